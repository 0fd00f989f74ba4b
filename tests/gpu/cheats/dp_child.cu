// expect: compile_error|stray_work
// kernel: vector_add
// Class: timed launches (work handed to a child grid). vector_add whose first thread
// launches the real work as a fire-and-forget child grid (dynamic parallelism) and returns
// at once; the other threads do nothing. The parent grid is short; the child runs on. The
// candidate cannot choose nvcc's flags: a cubin built without -rdc cannot launch from the
// device ("kernel launch from __device__ or __global__ functions requires separate
// compilation mode"), so the referee's plain `nvcc -cubin` rejects it as "compile_error".
// A launcher that ever built candidates with -rdc must instead catch the child still
// running after the timed launch ("stray_work"): CUDA counts a parent grid complete only
// when its children are, but a referee must not rely on the stop event alone.
__global__ void cheat_vector_add_child(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        cheat_vector_add_child<<<(n + 255) / 256, 256, 0, cudaStreamFireAndForget>>>(a, b, c, n);
}
