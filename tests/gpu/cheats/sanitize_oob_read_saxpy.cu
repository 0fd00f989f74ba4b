// expect: out_of_bounds
// saxpy on float4 vectors over ceil(n/4) of them: the last vector's 16-byte loads read up to
// 12 bytes past the end of x and y (n = 1000003 leaves 3 elements in it); only in-bounds
// elements are written, so every answer is right and no guard zone is written. Only
// compute-sanitizer memcheck sees the over-read, and only when it knows the harness's 64 KiB
// guard zones are not the buffer's: inside a guard zone the read is inside the allocation.
// Until session 38 the tool's run allocated every buffer exactly (HK_GUARD_ZONES=0); since,
// it keeps the zones (the same layout as every run) and declares them to the tool as outside
// the buffer (HK_TOOL_REGIONS=1, the NVTX memory API; docs/sanitizer.md).
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * v >= n)
        return;
    float4 xv = reinterpret_cast<const float4 *>(x)[v];
    float4 yv = reinterpret_cast<const float4 *>(y)[v];
    float xs[4] = {xv.x, xv.y, xv.z, xv.w}, ys[4] = {yv.x, yv.y, yv.z, yv.w};
    for (int k = 0; k < 4; k++)
        if (4 * v + k < n)
            y[4 * v + k] = a * xs[k] + ys[k];
}
