// expect: host_code
// kernel: saxpy
// Class: host code in the candidate (#define of a harness hk_ name). An honest saxpy plus
// `#define hk_quantile cheat_quantile` and a cheat_quantile(std::vector<double> &, double)
// defined first. The first harness (included after the candidate) then defines its own
// quantile as cheat_quantile(const std::vector<double> &, double): an overload, and its
// calls pass a non-const vector, so overload resolution picks the candidate's -- which
// returns a fifth of the true quantile. Median, p10, p90 and spread all shrink; outputs are
// untouched and every check that looks at them passes. Caught before any compile: a
// #define and host functions the baseline does not have ("host_code", the line quoted).
#include <vector>
#include <algorithm>

static double cheat_quantile(std::vector<double> &sorted, double q)
{
    double pos = q * (double)(sorted.size() - 1);
    size_t lo = (size_t)pos;
    size_t hi = lo + 1 < sorted.size() ? lo + 1 : lo;
    return 0.2 * (sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - (double)lo));
}
#define hk_quantile cheat_quantile

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
