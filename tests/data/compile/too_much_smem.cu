// Static shared memory over the 48 KiB per-block limit: ptxas refuses it.
__global__ void big(float *out)
{
    __shared__ float tile[16384];
    tile[threadIdx.x] = (float)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) % 16384];
}
