// cluster_probe: what a thread block cluster costs a loop of dependent block-wide steps, the
// question before a clustered furthest point sampling (bench/results/
// 2026-12-05-wild-rewrites-cpu-s28-fps.md): mmcv's FPS runs one 1024-thread block per batch
// (16 of the H200's 132 SMs busy), each pick a block-wide argmax that the next pick needs.
// Split over a cluster of C blocks, a pick would add one cross-block exchange: each block's
// 64-bit key (value order << 32 | rank) written into every block's shared slots (distributed
// shared memory), one cluster barrier, C keys reduced. Modes, each a loop of ITERS steps of
// 1024-thread blocks, 16 clusters of C blocks (C = 1, 2, 4, 8, 16), each step depending on
// the last:
//   0  __syncthreads()                       (what one level of the shared tree pays)
//   1  cluster.sync()                        (barrier.cluster arrive + wait)
//   2  the exchange: keys to every block's slots (double-buffered), cluster.sync(), the max
// Prints cycles (clock64, the mean over blocks) and ns (events over the launch) per step.
//   nvcc -O3 -arch=sm_90 -o cluster_probe bench/explore/cluster_probe.cu && ./cluster_probe [ITERS]
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); return false; } } while (0)

__global__ void probe(int iters, int mode, unsigned long long *out, long long *cycles)
{
    __shared__ unsigned long long slots[2][16];
    cg::cluster_group cl = cg::this_cluster();
    const unsigned int rank = cl.block_rank(), csize = cl.num_blocks();
    unsigned long long key = (unsigned long long)blockIdx.x * 7919ull + threadIdx.x;
    cl.sync();   // every block of the cluster started: its shared memory may be written
    const long long t0 = clock64();
    for (int it = 0; it < iters; it++) {
        if (mode == 0) {
            __syncthreads();
            key += 1;
        } else if (mode == 1) {
            cl.sync();
            key += 1;
        } else {
            // two slot tables: a block writes table it & 1 only after every block passed the
            // barrier of step it - 1, so after each had read that table at step it - 2
            const int buf = it & 1;
            if (threadIdx.x < csize) {
                unsigned long long *remote = cl.map_shared_rank(&slots[buf][0], threadIdx.x);
                remote[rank] = key;
            }
            cl.sync();
            unsigned long long best = 0;
            for (unsigned int r = 0; r < csize; r++)
                best = slots[buf][r] > best ? slots[buf][r] : best;
            key = best + threadIdx.x;   // the next step depends on this one's result
        }
    }
    const long long t1 = clock64();
    cl.sync();   // no block leaves while another may still write its slots
    if (threadIdx.x == 0)
        cycles[blockIdx.x] = t1 - t0;
    out[blockIdx.x * blockDim.x + threadIdx.x] = key;
}

static bool run(int c, int mode, int iters)
{
    const int blocks = 16 * c, threads = 1024;
    unsigned long long *out;
    long long *cyc;
    CHECK(cudaMalloc(&out, sizeof *out * blocks * threads));
    CHECK(cudaMalloc(&cyc, sizeof *cyc * blocks));
    if (c > 8)
        CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = c;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int active = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&active, probe, &cfg));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaLaunchKernelEx(&cfg, probe, iters, mode, out, cyc));   // warm-up
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(a));
    CHECK(cudaLaunchKernelEx(&cfg, probe, iters, mode, out, cyc));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    std::vector<long long> h(blocks);
    CHECK(cudaMemcpy(h.data(), cyc, sizeof *cyc * blocks, cudaMemcpyDeviceToHost));
    double mean = 0;
    for (long long v : h)
        mean += (double)v / blocks;
    printf("| %d | %s | %d | %.0f | %.1f |\n", c, mode == 0 ? "__syncthreads" : mode == 1 ? "cluster.sync" : "exchange",
           active, mean / iters, ms * 1e6 / iters);
    CHECK(cudaFree(out));
    CHECK(cudaFree(cyc));
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return true;
}

int main(int argc, char **argv)
{
    const int iters = argc > 1 ? atoi(argv[1]) : 2048;
    if (iters <= 0) {
        fprintf(stderr, "usage: cluster_probe [ITERS > 0]\n");
        return 2;
    }
    printf("| cluster | step | max active clusters | cycles a step | ns a step |\n|---|---|---|---|---|\n");
    int failed = 0;
    for (int c = 1; c <= 16; c *= 2)
        for (int mode = 0; mode < 3; mode++)
            if (!run(c, mode, iters)) {
                failed = 1;
                cudaGetLastError();
            }
    return failed;
}
