// Run on a real GPU to make occupancy_<gpu>.txt: the CUDA runtime's own
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for kernels with few and many
// registers and with static shared memory, over block sizes and dynamic shared memory,
// in the format of occupancy_ref.txt, plus the device's limits as "# prop" lines.
// Build and run: nvcc -arch=sm_90 occupancy_device.cu -o occ && ./occ > occupancy_h200.txt
#include <cstdio>
#include <cuda_runtime.h>

__global__ void small_kernel(float *p, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = a * p[i];
}

__global__ void smem_kernel(float *p)
{
    __shared__ float tile[5000];
    tile[threadIdx.x % 5000] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = tile[(threadIdx.x + 1) % 5000];
}

template <int N>
__global__ void regs_kernel(float *p)
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

#define CHECK(x)                                                                         \
    do {                                                                                 \
        cudaError_t e = (x);                                                             \
        if (e != cudaSuccess) {                                                          \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));                      \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

template <typename K>
static int rows(const char *arch, const char *name, K kernel, const cudaDeviceProp &p)
{
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, kernel));
    // Opt in to the largest dynamic shared memory, as cc_occupancy_for assumes.
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)(p.sharedMemPerBlockOptin - fa.sharedSizeBytes)));
    printf("# kernel %s regs %d smem %zu\n", name, fa.numRegs, fa.sharedSizeBytes);
    static const int threads[] = {32, 64, 96, 128, 256, 384, 512, 640, 768, 1024};
    static const int dyn[] = {0, 16384, 65536, 200000};
    for (int t : threads)
        for (int d : dyn) {
            int blocks = -1;
            CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, t, d));
            printf("%s %d %zu %d %d 1 %d\n", arch, fa.numRegs, fa.sharedSizeBytes, t, d, blocks);
        }
    return 0;
}

int main()
{
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d%d", p.major, p.minor);
    printf("# arch regs smem_static threads dyn_smem barriers -> blocks_per_sm (CUDA runtime on %s)\n",
           p.name);
    printf("# prop arch %s\n", arch);
    printf("# prop maxThreadsPerMultiProcessor %d\n", p.maxThreadsPerMultiProcessor);
    printf("# prop maxBlocksPerMultiProcessor %d\n", p.maxBlocksPerMultiProcessor);
    printf("# prop regsPerMultiprocessor %d\n", p.regsPerMultiprocessor);
    printf("# prop sharedMemPerMultiprocessor %zu\n", p.sharedMemPerMultiprocessor);
    printf("# prop sharedMemPerBlockOptin %zu\n", p.sharedMemPerBlockOptin);
    printf("# prop reservedSharedMemPerBlock %zu\n", p.reservedSharedMemPerBlock);
    printf("# prop maxThreadsPerBlock %d\n", p.maxThreadsPerBlock);
    printf("# prop warpSize %d\n", p.warpSize);
    printf("# prop multiProcessorCount %d\n", p.multiProcessorCount);
    if (rows(arch, "small_kernel", small_kernel, p) || rows(arch, "smem_kernel", smem_kernel, p) ||
        rows(arch, "regs_kernel<1>", regs_kernel<1>, p))
        return 1;
    return 0;
}
