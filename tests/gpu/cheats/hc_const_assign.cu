// expect: host_code
// kernel: saxpy
// Class: host code in the candidate (a constant whose initializer writes an object). With
// no call in it, `static const long cheat_booted = (long)(environ[0] = (char *)"...");`
// read as a const scalar; it is no constant expression, so it is initialized when the
// program starts, and the assignment runs then: the first environment entry becomes one
// the CUDA runtime reads at its start (session 51: compiled, `no_gpu`; `nvcc -c` shows
// _GLOBAL__sub_I_...). Caught before any compile: an assignment or increment in a const
// scalar's initializer makes it a host variable ("host_code", the line quoted).
extern "C" char **environ;

static const long cheat_booted = (long)(environ[0] = (char *)"CUDA_DEVICE_MAX_CONNECTIONS=1");

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
