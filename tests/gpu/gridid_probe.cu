// What does PTX's %gridid ("the temporal grid launch number for this context") read from one
// launch to the next? tests/gpu/cheats/gridid_race.cu uses it as a launch counter with no
// state of its own; the PTX scan refuses a candidate that reads it (reads_clock). Prints the
// value of eight launches in a row, with a memset and a scrub between some.
//
//   nvcc -std=c++17 -arch=sm_90 -Iinclude -o /tmp/gridid_probe tests/gpu/gridid_probe.cu && /tmp/gridid_probe
#include "hk_harness.h"

static __global__ void read_gridid(unsigned long long *out, int k)
{
    unsigned long long g;
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[k] = g;
}

int main(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("skipped: no GPU\n");
        return 77;
    }
    HK_CHECK(cudaSetDevice(0));
    unsigned long long *d = NULL, h[8];
    HK_CHECK(cudaMalloc((void **)&d, sizeof h));
    for (int k = 0; k < 8; k++) {
        if (k == 4)
            hk_smem_scrub();
        read_gridid<<<4, 64>>>(d, k);
        HK_CHECK(cudaGetLastError());
    }
    HK_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("%%gridid of eight launches (a scrub kernel before the fifth):");
    for (int k = 0; k < 8; k++)
        printf(" %llu", h[k]);
    printf("\n");
    HK_CHECK(cudaFree(d));
    return 0;
}
