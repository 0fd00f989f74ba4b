// The suite's kernels built with -use_fast_math (the search's fast-math candidate), for
// ref64.cu.
#include <math.h>
namespace fast {
#include "../kernels/softmax.cu"
#include "../kernels/layernorm.cu"
#include "../kernels/rmsnorm.cu"
#include "../kernels/quick_gelu.cu"
#include "../kernels/reduce_sum.cu"
#include "../kernels/dot.cu"
#include "../kernels/sum_rows.cu"
#include "../kernels/gemv.cu"
#include "../kernels/rope.cu"
}
