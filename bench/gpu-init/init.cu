// How long a fresh process takes to get a CUDA context (the cost every benchmark process
// of an episode pays), and, with --hold S, a process that keeps one open for S seconds.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

__global__ void touch(int *p) { p[threadIdx.x] = threadIdx.x; }

int main(int argc, char **argv)
{
    double t0 = now_ms();
    cudaError_t e = cudaFree(0);
    double t1 = now_ms();
    int *d = NULL;
    if (e == cudaSuccess)
        e = cudaMalloc(&d, 1024);
    if (e == cudaSuccess) {
        touch<<<1, 32>>>(d);
        e = cudaDeviceSynchronize();
    }
    double t2 = now_ms();
    if (e != cudaSuccess) {
        fprintf(stderr, "init: %s\n", cudaGetErrorString(e));
        return 1;
    }
    if (argc > 2 && !strcmp(argv[1], "--hold")) {
        printf("holding a context for %s s\n", argv[2]);
        fflush(stdout);
        sleep((unsigned)atoi(argv[2]));
        return 0;
    }
    printf("context %.1f ms, first launch %.1f ms\n", t1 - t0, t2 - t1);
    return 0;
}
