// Kernel qualifiers through macros, namespaces, extern "C", #ifdef blocks.
#define KERNEL __global__
#define HD __host__ __device__
#define NT 64

namespace ops {
extern "C" __global__ void __launch_bounds__(NT) k_extern(float *a) { a[threadIdx.x] = 0; }

KERNEL void k_macro(double *__restrict__ p, const double *const *pp) { p[0] = **pp; }

HD float twice(float v) { return 2 * v; }

struct Launcher {
    void go(float *a) { k_extern<<<1, NT>>>(a); }
    __device__ float get() const { return 1.0f; }
};
} // namespace ops

#ifdef USE_SPECIAL
template <>
__global__ void special<float>(float *x) { x[0] = 1; }
#endif

static void host_only(void) { int unused = 0; (void)unused; }
