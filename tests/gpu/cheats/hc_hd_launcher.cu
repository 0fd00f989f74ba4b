// expect: host_code
// kernel: vector_add
// Class: 1 (host code in a device disguise, session 52): the baseline's own host launcher,
// dropped and defined again as __host__ __device__. The policy compares the candidate's items
// with the baseline's; a missing baseline item is no finding, and the new definition was
// device-kind with a name on no list, so it passed. In a host compile (the command form, or
// any program that links the candidate) the launcher is the candidate's: it launches one
// block in four and the program's own timing and checks run on that. Since session 52 a
// function compiled for the host must sit in a namespace or class of the candidate's own:
// host_code.
#include <nv/target>
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__host__ __device__ void launch_vector_add(const float *a, const float *b, float *c, int n)
{
    NV_IF_TARGET(NV_IS_HOST, (vector_add<<<(n + 1023) / 1024, 256>>>(a, b, c, n / 4);))
}
