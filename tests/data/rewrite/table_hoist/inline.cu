// table_hoist's own test kernel: how many of m weighted rotations put each point above the
// line, the rotation's cosf/sinf written inline in the loop's body; an early return, no break.
__global__ void count_above(int n, int m, const float *rot, const float *pts, int *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = pts[2 * i], y = pts[2 * i + 1];
    int c = 0;
    for (int k = 0; k < m; k++) {
        float a = rot[2 * k], off = rot[2 * k + 1];
        float ca = cosf(a), sa = sinf(a);
        float t = x * ca + y * sa;
        if (t > off)
            c++;
    }
    count[i] = c;
}
