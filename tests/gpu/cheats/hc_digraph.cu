// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (a #define spelled with the %: digraph). `%:` is `#` in
// C and C++ (a digraph, always enabled), so `%:define` is a preprocessor directive that no
// line starting with '#' announces. The macro makes every later cudaEventElapsedTime --
// the first harness's timing, compiled after the candidate -- divide the measured time by 8,
// with no host function anywhere: the candidate is an honest kernel plus one "line of
// text". Caught before any compile by a check that reads preprocessing tokens, not raw lines
// ("host_code", the line quoted).
%:define cudaEventElapsedTime(ms, start, stop) \
    (cudaEventElapsedTime((ms), (start), (stop)), *(ms) /= 8, cudaSuccess)

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
