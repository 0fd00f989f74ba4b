// expect: host_code
// kernel: saxpy
// Class: host code in the candidate (a #define hidden by a comment and a line splice). The
// directive starts after a comment on the same line, and a backslash-newline splits "#"
// from "define": after translation phases 2 and 3 (splices joined, comments replaced by a
// space) it is an ordinary `#define`, but no raw line matches `^\s*#\s*define`. The macro
// rewrites cudaEventElapsedTime as in hc_digraph.cu: the timed interval is reported at a
// quarter, no host function needed. Caught before any compile by a check that splices
// lines and strips comments the way the compiler does ("host_code", the line quoted).
/* tuned for sm_90 */ #\
define cudaEventElapsedTime(ms, start, stop) (cudaEventElapsedTime((ms), (start), (stop)), *(ms) *= 0.25f, cudaSuccess)

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
