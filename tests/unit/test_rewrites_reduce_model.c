/* warp_reduce read through the kernel model (issue 13): one global sum written five ways
 * (if-guard, grid-stride for, while loop with an early return, template T, a macro
 * grid-stride loop with `out + 0`), a max through atomicMax on int, and refusals (a row
 * reduction with a data-dependent target, a second atomic, an update that is not a sum,
 * max or min, the old value used). The rewritten kernel keeps the kernel's own code, adds
 * into a register and reduces with warp shuffles after it. Each emitted kernel compiles
 * with nvcc -arch=sm_90 -cubin when nvcc is there (no GPU here: none is run). */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_pattern.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "rw_fixture.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-reduce-model");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* warp_reduce of kernel kname in src: applicable, every string of want in the new text
 * (model: through the model path), which compiles. */
static void reduce_applies(const char *src, const char *kname, bool model, const char *const *want)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_warp_reduce(fx.text, fx.len, fx.m, kernel(&fx, kname), &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "__shfl_down_sync(hk_mask, hk_acc, hk_off)"));
    if (model) {
        if (!strstr(r.description, "the kernel model's reading"))
            print_message("%s: not the model path: %s\n", kname, r.description);
        assert_non_null(strstr(r.description, "the kernel model's reading"));
        /* the shuffles come after the kernel's own code, which every thread leaves */
        const char *lam = strstr(r.text, "}();");
        assert_non_null(lam);
        assert_true(strstr(r.text, "__shfl_down_sync(hk_mask") > lam);
    }
    for (size_t i = 0; want[i]; i++) {
        if (!strstr(r.text, want[i]))
            print_message("%s: no `%s` in\n%s\n", kname, want[i], r.text);
        assert_non_null(strstr(r.text, want[i]));
    }
    rwf_nvcc_compiles(r.text, kname);
    rw_result_free(&r);
    unload(&fx);
}

static void reduce_refused(const char *src, const char *kname, const char *why)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_warp_reduce(fx.text, fx.len, fx.m, kernel(&fx, kname), &r), HK_OK);
    if (r.applicable || !strstr(r.description, why))
        print_message("%s: want refusal `%s`, got: %s\n", kname, why, r.description);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, why));
    rw_result_free(&r);
    unload(&fx);
}

static void sum_if_guard(void **state)
{
    (void)state;
    static const char *const want[] = {"atomicAdd(&out[0], hk_acc);", NULL};
    reduce_applies("__global__ void sum_if(const float *in, float *out, int n)\n"
                   "{\n"
                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    if (i < n)\n"
                   "        atomicAdd(&out[0], in[i]);\n"
                   "}\n",
                   "sum_if", false, want);
}

static void sum_grid_stride_for(void **state)
{
    (void)state;
    static const char *const want[] = {"{ hk_acc += (float)(in[i] * in[i]); }", "atomicAdd(out, hk_acc);", NULL};
    reduce_applies("__global__ void sum_gs(const float *in, float *out, size_t n)\n"
                   "{\n"
                   "    const float scale = 1.0f;\n"
                   "    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)\n"
                   "        atomicAdd(out, in[i] * in[i]);\n"
                   "}\n",
                   "sum_gs", true, want);
}

static void sum_while_early_return(void **state)
{
    (void)state;
    static const char *const want[] = {"if (i >= n) return;", "double hk_acc = (double)0;",
                                       "atomicAdd(&out[0], hk_acc);", NULL};
    reduce_applies("__global__ void sum_w(const double *in, double *out, unsigned int n)\n"
                   "{\n"
                   "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    if (i >= n) return;\n"
                   "    double v = 0.0;\n"
                   "    while (i < n) {\n"
                   "        v = in[i];\n"
                   "        if (v > 0.0) atomicAdd(&out[0], v);\n"
                   "        i += blockDim.x * gridDim.x;\n"
                   "    }\n"
                   "}\n",
                   "sum_w", true, want);
}

static void sum_template(void **state)
{
    (void)state;
    static const char *const want[] = {"T hk_acc = (T)0;", "{ hk_acc += (T)(x[i]); }", NULL};
    reduce_applies("template <typename T>\n"
                   "__global__ void sum_t(const T *x, T *total, int n)\n"
                   "{\n"
                   "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
                   "        atomicAdd(total, x[i]);\n"
                   "    }\n"
                   "}\n"
                   "template __global__ void sum_t<float>(const float *, float *, int);\n",
                   "sum_t", true, want);
}

static void sum_macro_loop(void **state)
{
    (void)state;
    static const char *const want[] = {"CUDA_1D_KERNEL_LOOP(index, n)", "atomicAdd(loss + 0, hk_acc);", NULL};
    reduce_applies("#define CUDA_1D_KERNEL_LOOP(i, n) \\\n"
                   "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
                   "__global__ void loss_k(const float *pred, const float *tgt, float *loss, int n)\n"
                   "{\n"
                   "    CUDA_1D_KERNEL_LOOP(index, n) {\n"
                   "        const float d = pred[index] - tgt[index];\n"
                   "        atomicAdd(loss + 0, d * d);\n"
                   "    }\n"
                   "}\n",
                   "loss_k", true, want);
}

static void max_int(void **state)
{
    (void)state;
    static const char *const want[] = {"int hk_acc = (int)(-2147483647 - 1);",
                                       "if (hk_v > hk_acc) hk_acc = hk_v;", "atomicMax(best, hk_acc);", NULL};
    reduce_applies("__global__ void max_k(const int *v, int *best, int n)\n"
                   "{\n"
                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    if (i >= n) return;\n"
                   "    const int x = v[i] < 0 ? -v[i] : v[i];\n"
                   "    atomicMax(best, x);\n"
                   "}\n",
                   "max_k", true, want);
}

/* Statistics the model names by what is summed (session 48): a sum of squared deviations
 * kept in a register over a grid-stride loop (fmaf) and added once per thread after it (the
 * second pass of a two-pass standard deviation: class sumsq), a mean's share `/ n` added
 * per thread (class mean), a per-thread root (class std). What the atomic adds is the
 * kernel's own code, kept in the lambda: the combine is the atomic's sum. On main each was
 * refused `line N: a sumsq reduction (only sum, max and min)` (mean, std likewise). */
static void statistics_summed(void **state)
{
    (void)state;
    static const char *const sq[] = {"acc = fmaf(d, d, acc);", "{ hk_acc += (float)(acc); }",
                                     "atomicAdd(sqsum, hk_acc);", NULL};
    reduce_applies("__global__ void sqdev(const float *x, const float *mean, float *sqsum, int n)\n"
                   "{\n"
                   "    float mu = mean[0];\n"
                   "    float acc = 0.0f;\n"
                   "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
                   "        float d = x[i] - mu;\n"
                   "        acc = fmaf(d, d, acc);\n"
                   "    }\n"
                   "    atomicAdd(sqsum, acc);\n"
                   "}\n",
                   "sqdev", true, sq);
    static const char *const mean[] = {"{ hk_acc += (double)(s / n); }", "atomicAdd(&avg[0], hk_acc);", NULL};
    reduce_applies("__global__ void avg_k(const double *v, double *avg, unsigned n)\n"
                   "{\n"
                   "    double s = 0;\n"
                   "    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
                   "        s += v[i];\n"
                   "    atomicAdd(&avg[0], s / n);\n"
                   "}\n",
                   "avg_k", true, mean);
    static const char *const root[] = {"{ hk_acc += (float)(sqrtf(q)); }", "atomicAdd(out, hk_acc);", NULL};
    reduce_applies("__global__ void rootsum(const float *v, float *out, int n)\n"
                   "{\n"
                   "    float q = 0.0f;\n"
                   "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
                   "        q += v[i] * v[i];\n"
                   "    atomicAdd(out, sqrtf(q));\n"
                   "}\n",
                   "rootsum", true, root);
}

/* A statistic summed whose atomic is not a sum: the model's sum and the atomic's max differ. */
static void statistic_by_max_refused(void **state)
{
    (void)state;
    reduce_refused("__global__ void sqmax(const float *x, float *out, int n)\n"
                   "{\n"
                   "    float acc = 0.0f;\n"
                   "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
                   "        acc += x[i] * x[i];\n"
                   "    atomicMax((int *)out, __float_as_int(acc));\n"
                   "}\n",
                   "sqmax", "line 6: the atomic is not the model's sumsq");
}

/* restrict pointers, a long index, a data-dependent skip, `return` in an else branch */
static void sum_restrict_else_return(void **state)
{
    (void)state;
    /* one element per thread, and the return would end a grid-stride loop early: the
     * skill's grid (smaller than the data) would leave elements out */
    reduce_refused("__global__ void dot(const float *__restrict__ a, const float *__restrict__ b,\n"
                   "                    float *__restrict__ r, long n)\n"
                   "{\n"
                   "    const long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    if (tid < n) {\n"
                   "        float v = a[tid] * b[tid];\n"
                   "        if (v != 0.0f)\n"
                   "            atomicAdd(r, v);\n"
                   "        else\n"
                   "            return;\n"
                   "    }\n"
                   "}\n",
                   "dot", "cannot be put on a grid-stride loop (the body returns early");
}

/* the same without the return: on a grid-stride loop first, then the model path */
static void sum_restrict_long(void **state)
{
    (void)state;
    static const char *const want[] = {"gridDim.x * blockDim.x", "{ hk_acc += (float)(v); }", "atomicAdd(r, hk_acc);",
                                       NULL};
    reduce_applies("__global__ void dot(const float *__restrict__ a, const float *__restrict__ b,\n"
                   "                    float *__restrict__ r, long n)\n"
                   "{\n"
                   "    const long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    if (tid < n) {\n"
                   "        float v = a[tid] * b[tid];\n"
                   "        if (v != 0.0f)\n"
                   "            atomicAdd(r, v);\n"
                   "    }\n"
                   "}\n",
                   "dot", true, want);
}

/* a do-while grid-stride loop, atomicMin on unsigned */
static void min_do_while(void **state)
{
    (void)state;
    static const char *const want[] = {"unsigned int hk_acc = (unsigned int)0xffffffffu;",
                                       "if (hk_v < hk_acc) hk_acc = hk_v;", "atomicMin(&m[0], hk_acc);", NULL};
    reduce_applies("__global__ void mn(const unsigned int *a, unsigned int *m, int n)\n"
                   "{\n"
                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    do {\n"
                   "        if (i < n) atomicMin(&m[0], a[i]);\n"
                   "        i += blockDim.x * gridDim.x;\n"
                   "    } while (i < n);\n"
                   "}\n",
                   "mn", true, want);
}

/* one sum per row, the row read from memory: a scatter, not one location */
static void row_data_target_refused(void **state)
{
    (void)state;
    reduce_refused("__global__ void seg(const float *in, const int *row, float *out, int n)\n"
                   "{\n"
                   "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
                   "        atomicAdd(&out[row[i]], in[i]);\n"
                   "}\n",
                   "seg", "the kernel model classes it histogram, not a reduction");
}

static void second_atomic_refused(void **state)
{
    (void)state;
    reduce_refused("__global__ void two(const float *in, float *s, float *c, int n)\n"
                   "{\n"
                   "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
                   "        atomicAdd(s, in[i]);\n"
                   "        atomicAdd(c, 1.0f);\n"
                   "    }\n"
                   "}\n",
                   "two", "line 5: a second atomic");
}

static void exchange_refused(void **state)
{
    (void)state;
    reduce_refused("__global__ void last(const int *in, int *out, int n)\n"
                   "{\n"
                   "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
                   "        atomicExch(out, in[i]);\n"
                   "}\n",
                   "last", "not a reduction");
}

static void old_value_used_refused(void **state)
{
    (void)state;
    reduce_refused("__global__ void slot(const float *in, float *out, int *pos, int n)\n"
                   "{\n"
                   "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
                   "        float old = atomicAdd(out, in[i]);\n"
                   "        pos[i] = (int)old;\n"
                   "    }\n"
                   "}\n",
                   "slot", "line 4: the atomic is not a statement of its own");
}

/* one sum per block (a row): not one location for the grid */
static void row_per_block_refused(void **state)
{
    (void)state;
    reduce_refused("__global__ void rowsum(const float *in, float *out, int cols)\n"
                   "{\n"
                   "    for (int c = threadIdx.x; c < cols; c += blockDim.x)\n"
                   "        atomicAdd(&out[blockIdx.x], in[blockIdx.x * cols + c]);\n"
                   "}\n",
                   "rowsum", "line 4: a row reduction by atomics");
    reduce_refused("__global__ void rowp(const float *in, float *out, int cols, int r)\n"
                   "{\n"
                   "    r = blockIdx.x;\n"
                   "    for (int c = threadIdx.x; c < cols; c += blockDim.x)\n"
                   "        atomicAdd(&out[r], in[r * cols + c]);\n"
                   "}\n",
                   "rowp", "line 5: the atomic's target depends on r, which is not an unchanged parameter");
    /* a local that shadows the parameter, declared without `=` */
    reduce_refused("__global__ void rows(const float *in, float *out, int cols, int r)\n"
                   "{\n"
                   "    if (cols > 0) {\n"
                   "        int r(blockIdx.x);\n"
                   "        for (int c = threadIdx.x; c < cols; c += blockDim.x)\n"
                   "            atomicAdd(&out[r], in[r * cols + c]);\n"
                   "    }\n"
                   "}\n",
                   "rows", "line 6: the atomic's target depends on r");
}

static int warp(const fixture *fx, size_t k, rw_result *r)
{
    return rw_warp_reduce(fx->text, fx->len, fx->m, k, r);
}

/* every allocation of the model path may fail: HK_ENOMEM, nothing left behind */
static void model_path_survives_alloc_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text("__global__ void s(const float *in, float *out, int n)\n"
              "{\n"
              "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
              "        atomicAdd(out, in[i]);\n"
              "}\n",
              &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "s"), warp);
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sum_if_guard),
        cmocka_unit_test(sum_grid_stride_for),
        cmocka_unit_test(sum_while_early_return),
        cmocka_unit_test(sum_template),
        cmocka_unit_test(sum_macro_loop),
        cmocka_unit_test(max_int),
        cmocka_unit_test(sum_restrict_else_return),
        cmocka_unit_test(sum_restrict_long),
        cmocka_unit_test(min_do_while),
        cmocka_unit_test(statistics_summed),
        cmocka_unit_test(statistic_by_max_refused),
        cmocka_unit_test(row_data_target_refused),
        cmocka_unit_test(second_atomic_refused),
        cmocka_unit_test(exchange_refused),
        cmocka_unit_test(old_value_used_refused),
        cmocka_unit_test(row_per_block_refused),
        cmocka_unit_test(model_path_survives_alloc_failures),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
