// A row sweep kept in shared memory: each step reads one cost per cell from global memory
// under a guard that shrinks with the step, between two block barriers: one load in flight
// per thread per step.
#define TB 128
__global__ void sweep(const int *cost, const int *row, int *out, int n, int steps)
{
    __shared__ int a[TB];
    __shared__ int b[TB];
    int t = threadIdx.x;
    int x = blockIdx.x * (TB - 2 * steps) - steps + t;
    bool in = x >= 0 && x < n;
    a[t] = in ? row[x] : 0;
    __syncthreads();
    for (int s = 0; s < steps; s++) {
        if (t > s && t < TB - 1 - s && in) {
            int l = min(a[t - 1], a[t + 1]);
            int c = cost[s * n + x];
            b[t] = min(l, a[t]) + c;
        }
        __syncthreads();
        if (t > s && t < TB - 1 - s && in)
            a[t] = b[t];
        __syncthreads();
    }
    if (in && t >= steps && t < TB - steps)
        out[x] = a[t];
}
