// Compiles only with the -D and -I of compile_commands.json.
#include "ccdb_only.h"
#if FROM_CCDB != 2
#error "flags from compile_commands.json were not applied"
#endif
__global__ void ccdb_kernel(float *p) { p[threadIdx.x] *= CCDB_SCALE; }
