// Takes nvcc several seconds (many unrolled instantiations): long enough to cancel
// or time out mid-compile.
template <int N>
__global__ void slow(float *p)
{
    float acc[64];
#pragma unroll
    for (int k = 0; k < 64; k++)
        acc[k] = p[threadIdx.x * 64 + k] * (N + k);
#pragma unroll
    for (int r = 0; r < 64; r++)
#pragma unroll
        for (int k = 0; k < 64; k++)
            acc[k] = acc[k] * acc[(k + r) % 64] + (float)N;
    float s = 0;
#pragma unroll
    for (int k = 0; k < 64; k++)
        s += acc[k];
    p[threadIdx.x] = s;
}
template __global__ void slow<1>(float *);
template __global__ void slow<2>(float *);
template __global__ void slow<3>(float *);
template __global__ void slow<4>(float *);
template __global__ void slow<5>(float *);
template __global__ void slow<6>(float *);
template __global__ void slow<7>(float *);
template __global__ void slow<8>(float *);
