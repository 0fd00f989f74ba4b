// The fp64 shadows of the suite's kernels (written by test_engine_promote under
// HK_PROMOTE_DUMP_DIR, see build.sh) and launches with the baseline's configurations, for
// ref64.cu.
#include <math.h>
namespace shadow_k {
#include "softmax.fp64.cu"
#include "layernorm.fp64.cu"
#include "rmsnorm.fp64.cu"
#include "quick_gelu.fp64.cu"
#include "reduce_sum.fp64.cu"
#include "dot.fp64.cu"
#include "sum_rows.fp64.cu"
#include "gemv.fp64.cu"
#include "rope_forward.fp64.cu"
}
namespace shadow {
using namespace shadow_k;
void softmax(const double *in, double *out, int rows, int cols)
{ shadow_k::softmax<<<(rows + 127) / 128, 128>>>(in, out, rows, cols); }
void layernorm(const double *in, const double *g, const double *b, double *out, int rows, int cols, double eps)
{ shadow_k::layernorm<<<(rows + 127) / 128, 128>>>(in, g, b, out, rows, cols, eps); }
void rmsnorm(const double *in, const double *w, double *out, int rows, int cols, double eps)
{ shadow_k::rmsnorm<<<(rows + 127) / 128, 128>>>(in, w, out, rows, cols, eps); }
void quick_gelu(const double *x, double *out, int n)
{ shadow_k::quick_gelu<<<(n + 255) / 256, 256>>>(x, out, n); }
void reduce_sum(const double *in, double *out, int n)
{ shadow_k::reduce_sum<<<(n + 255) / 256, 256>>>(in, out, n); }
void dot(const double *a, const double *b, double *out, int n)
{ shadow_k::dot<<<(n + 255) / 256, 256>>>(a, b, out, n); }
void sum_rows(const double *in, double *out, int rows, int cols)
{ shadow_k::sum_rows<<<(rows + 127) / 128, 128>>>(in, out, rows, cols); }
void gemv(const double *A, const double *x, double *y, int M, int N)
{ shadow_k::gemv<<<(M + 127) / 128, 128>>>(A, x, y, M, N); }
void rope_forward(const double *x, double *out, int tokens, int heads, int dim, double base)
{
    long pairs = (long)tokens * heads * (dim / 2);
    shadow_k::rope_forward<<<(pairs + 255) / 256, 256>>>(x, out, tokens, heads, dim, base);
}
}
