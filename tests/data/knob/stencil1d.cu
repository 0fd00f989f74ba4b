// Knob fixture: the 1D stencil of the CUDA introductions. RADIUS decides what is computed
// (and the program's own check shares it); BLOCK_SIZE is the block size and the tile.
#include <cstdio>
#include <cstdlib>

#define RADIUS 3
#define BLOCK_SIZE 256
#define N (1024 * 1024)

__global__ void stencil_1d(const int *in, int *out)
{
    __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];
    int gindex = threadIdx.x + blockIdx.x * blockDim.x;
    int lindex = threadIdx.x + RADIUS;
    temp[lindex] = in[gindex];
    if (RADIUS > threadIdx.x) { // (`threadIdx.x < RADIUS` trips tree-sitter-cuda 0.20.4)
        temp[lindex - RADIUS] = in[gindex - RADIUS];
        temp[lindex + BLOCK_SIZE] = in[gindex + BLOCK_SIZE];
    }
    __syncthreads();
    int result = 0;
    for (int offset = -RADIUS; offset <= RADIUS; offset++)
        result += temp[lindex + offset];
    out[gindex] = result;
}

int main()
{
    int size = (N + 2 * RADIUS) * sizeof(int);
    int *in = (int *)malloc(size), *out = (int *)malloc(size), *d_in, *d_out;
    for (int i = 0; i < N + 2 * RADIUS; i++)
        in[i] = i % 7;
    cudaMalloc((void **)&d_in, size);
    cudaMalloc((void **)&d_out, size);
    cudaMemcpy(d_in, in, size, cudaMemcpyHostToDevice);
    stencil_1d<<<N / BLOCK_SIZE, BLOCK_SIZE>>>(d_in + RADIUS, d_out + RADIUS);
    cudaMemcpy(out, d_out, size, cudaMemcpyDeviceToHost);
    for (int i = RADIUS; i < N + RADIUS; i++) {
        int want = 0;
        for (int j = -RADIUS; j <= RADIUS; j++)
            want += in[i + j];
        if (out[i] != want) {
            printf("FAIL at %d\n", i);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
