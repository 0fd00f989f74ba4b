// Up to ns hits per row, found in the data (ball query): the hit counter starts at 0, each
// step is followed at once by the check that breaks out at ns, so out[i * ns + cnt] stays
// inside the row. Which elements are written depends on the data: out is an inout.
__global__ void near_hits(const float *pts, int *out, int rows, int n, int ns, float r2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    int cnt = 0;
    for (int k = 0; k < n; ++k) {
        float d = pts[k] - pts[i];
        if (d * d < r2) {
            out[i * ns + cnt] = k;
            ++cnt;
            if (cnt >= ns) break;
        }
    }
}

// The same with hits++ and `== ns` in braces.
__global__ void near_hits_eq(const float *pts, int *out, int rows, int n, int ns, float r2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    int hits = 0;
    for (int k = 0; k < n; ++k) {
        float d = pts[k] - pts[i];
        if (d * d < r2) {
            out[i * ns + hits] = k;
            hits++;
            if (hits == ns) {
                break;
            }
        }
    }
}

// Used again after the loop, where the counter may have reached ns: no bound from it.
__global__ void near_hits_after(const float *pts, int *out, int rows, int n, int ns, float r2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    int cnt = 0;
    for (int k = 0; k < n; ++k) {
        float d = pts[k] - pts[i];
        if (d * d < r2) {
            out[i * ns + cnt] = k;
            ++cnt;
            if (cnt >= ns) break;
        }
    }
    out[i * ns + cnt] = -1;
}

// Written where a value read decides (a mask, a comparison): inouts. Written everywhere
// with a select instead: an output.
__global__ void masked_copy(const float *in, const int *mask, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && mask[i] != 0)
        out[i] = in[i];
}

__global__ void positive_copy(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (in[i] > 0.0f)
            out[i] = in[i];
    }
}

__global__ void select_copy(const float *in, const int *mask, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = mask[i] != 0 ? in[i] : 0.0f;
}

// A range given by its ends: the low one is 0 (no launch gives either), so the range is not
// empty.
__global__ void in_shell(const float *d2, int *hit, int n, float min_radius, float max_radius)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        hit[i] = d2[i] >= min_radius * min_radius && d2[i] < max_radius * max_radius;
}
