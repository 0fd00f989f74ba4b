/* vectorize over spellings (issue 13): the same elementwise kernel written with an int,
 * unsigned or size_t index, the product either way round, through temporaries (`int tid =
 * threadIdx.x;`), `if (i >= n) return;`, a grid-stride while loop, mmcv's
 * CUDA_1D_KERNEL_LOOP macro, and a typedef'd element type all get float4 loads and stores;
 * each emitted text compiles with nvcc -arch=sm_90 -cubin when nvcc is there (no GPU here:
 * none is run). The safety refusals stay: in-place aliasing through a typedef, another
 * element than the thread's own, typedefs that disagree (one per #if branch), a macro that
 * is not a grid-stride loop or is defined twice. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_mem.h"

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
    return rwf_setup("rewrites-vectorize-model");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

#define LOOP_MACRO                                                    \
    "#define CUDA_1D_KERNEL_LOOP(i, n) \\\n"                          \
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); \\\n" \
    "       i += blockDim.x * gridDim.x)\n"

/* vectorize (4 wide) of kernel kname in src: applicable, with float4 loads and stores of
 * x and y, every string of want in the new text, which compiles. */
static void vec_applies(const char *src, const char *kname, const char *const *want)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, kname), 4, &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "reinterpret_cast<float4 *>(y)[hk_v] = hk_y;"));
    assert_non_null(strstr(r.text, "reinterpret_cast<const float4 *>(x)"));
    for (size_t i = 0; want && want[i]; i++) {
        if (!strstr(r.text, want[i]))
            print_message("%s: no `%s` in\n%s\n", kname, want[i], r.text);
        assert_non_null(strstr(r.text, want[i]));
    }
    rwf_nvcc_compiles(r.text, kname);
    rw_result_free(&r);
    unload(&fx);
}

static void vec_refused(const char *src, const char *kname, const char *why)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, kname), 4, &r), HK_OK);
    if (r.applicable || !strstr(r.description, why))
        print_message("%s: want refusal `%s`, got: %s\n", kname, why, r.description);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, why));
    rw_result_free(&r);
    unload(&fx);
}

static void int_index(void **state)
{
    (void)state;
    vec_applies("__global__ void axpy(const float *x, float *y, float a, int n)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n)\n"
                "        y[i] = a * x[i] + y[i];\n"
                "}\n",
                "axpy", NULL);
}

static void unsigned_index_swapped_product(void **state)
{
    (void)state;
    vec_applies("__global__ void axpy_u(const float *x, float *y, float a, unsigned n)\n"
                "{\n"
                "    unsigned i = blockDim.x * blockIdx.x + threadIdx.x;\n"
                "    if (i < n)\n"
                "        y[i] = a * x[i] + y[i];\n"
                "}\n",
                "axpy_u", NULL);
}

static void size_t_index_early_return(void **state)
{
    (void)state;
    vec_applies("#include <cstddef>\n"
                "__global__ void axpy_s(const float *x, float *y, float a, size_t n)\n"
                "{\n"
                "    size_t i = threadIdx.x + blockIdx.x * blockDim.x;\n"
                "    if (i >= n) return;\n"
                "    y[i] = a * x[i] + y[i];\n"
                "}\n",
                "axpy_s", NULL);
}

static void index_temporaries(void **state)
{
    (void)state;
    vec_applies("__global__ void axpy_tmp(const float *x, float *y, float a, int n)\n"
                "{\n"
                "    int tid = threadIdx.x;\n"
                "    const int bid = blockIdx.x;\n"
                "    int i = tid + (bid * blockDim.x);\n"
                "    if (i < n)\n"
                "        y[i] = a * x[i] + y[i];\n"
                "}\n",
                "axpy_tmp", NULL);
}

static void index_temporaries_refused(void **state)
{
    (void)state;
    /* a temporary changed before use, one out of scope (the parameter is meant), one too
     * narrow for a block index, and a parenthesised sum are not the thread's index */
    vec_refused("__global__ void moved(const float *x, float *y, int n)\n"
                "{\n"
                "    int tid = threadIdx.x;\n"
                "    tid += 1;\n"
                "    int i = blockIdx.x * blockDim.x + tid;\n"
                "    if (i < n) y[i] = x[i];\n"
                "}\n",
                "moved", "no `int i = blockIdx.x * blockDim.x + threadIdx.x;`");
    vec_refused("__global__ void scoped(const float *x, float *y, int n, int tid)\n"
                "{\n"
                "    { int tid = threadIdx.x; }\n"
                "    int i = blockIdx.x * blockDim.x + tid;\n"
                "    if (i < n) y[i] = x[i];\n"
                "}\n",
                "scoped", "no `int i = blockIdx.x * blockDim.x + threadIdx.x;`");
    vec_refused("__global__ void narrow(const float *x, float *y, int n)\n"
                "{\n"
                "    short bid = blockIdx.x;\n"
                "    int i = bid * blockDim.x + threadIdx.x;\n"
                "    if (i < n) y[i] = x[i];\n"
                "}\n",
                "narrow", "no `int i = blockIdx.x * blockDim.x + threadIdx.x;`");
    vec_refused("__global__ void offset(const float *x, float *y, int n)\n"
                "{\n"
                "    int i = threadIdx.x + (blockIdx.x + 1) * blockDim.x;\n"
                "    if (i < n) y[i] = x[i];\n"
                "}\n",
                "offset", "no `int i = blockIdx.x * blockDim.x + threadIdx.x;`");
}

static void while_loop(void **state)
{
    (void)state;
    static const char *const src = "__global__ void axpy_w(const float *x, float *y, float a, int n)\n"
                                   "{\n"
                                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                   "    while (i < n) {\n"
                                   "        y[i] = a * x[i] + y[i];\n"
                                   "        i += blockDim.x * gridDim.x;\n"
                                   "    }\n"
                                   "}\n";
    static const char *const want[] = {"hk_y.x = a * hk_x.x + hk_y.x;", NULL};
    vec_applies(src, "axpy_w", want);
    /* the step is the loop's own now: no lane or scalar loop steps the index a second time */
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "axpy_w"), 4, &r), HK_OK);
    assert_non_null(strstr(r.description, "the while loop read as a for loop"));
    assert_null(strstr(r.text, "i += blockDim.x * gridDim.x"));
    assert_null(strstr(r.text, "while"));
    rw_result_free(&r);
    unload(&fx);
    /* the index moved in the body too, or a continue that would skip the step in the
     * while form but not in a for loop: not read as a for loop */
    vec_refused("__global__ void twice(const float *x, float *y, int n)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    while (i < n) {\n"
                "        y[i] = x[i];\n"
                "        i++;\n"
                "        i += blockDim.x * gridDim.x;\n"
                "    }\n"
                "}\n",
                "twice", "not followed by `if (i < n) ...`");
    vec_refused("__global__ void skip(const float *x, float *y, int n)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    while (i < n) {\n"
                "        if (x[i] < 0.0f) continue;\n"
                "        y[i] = x[i];\n"
                "        i += blockDim.x * gridDim.x;\n"
                "    }\n"
                "}\n",
                "skip", "not followed by `if (i < n) ...`");
}

static void loop_macro(void **state)
{
    (void)state;
    static const char *const want[] = {"#define CUDA_1D_KERNEL_LOOP(i, n)", "hk_nv", NULL};
    vec_applies(LOOP_MACRO
                "__global__ void axpy_m(const float *x, float *y, float a, int n)\n"
                "{\n"
                "    CUDA_1D_KERNEL_LOOP(i, n) {\n"
                "        y[i] = a * x[i] + y[i];\n"
                "    }\n"
                "}\n",
                "axpy_m", want);
    fixture fx;
    load_text(LOOP_MACRO
              "__global__ void axpy_m(const float *x, float *y, float a, int n)\n"
              "{\n"
              "    CUDA_1D_KERNEL_LOOP(i, n) {\n"
              "        y[i] = a * x[i] + y[i];\n"
              "    }\n"
              "}\n",
              &fx);
    rw_result r;
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "axpy_m"), 4, &r), HK_OK);
    assert_non_null(strstr(r.description, "CUDA_1D_KERNEL_LOOP loop macro expanded"));
    /* the call is gone from the kernel: the loop is the expansion, vectorized */
    const char *body = strstr(r.text, "axpy_m");
    assert_non_null(body);
    assert_null(strstr(body, "CUDA_1D_KERNEL_LOOP("));
    rw_result_free(&r);
    unload(&fx);
}

static void typedef_element(void **state)
{
    (void)state;
    vec_applies("typedef float real_t;\n"
                "using scalar = real_t;\n"
                "__global__ void axpy_t(const scalar *x, real_t *y, real_t a, int n)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n)\n"
                "        y[i] = a * x[i] + y[i];\n"
                "}\n",
                "axpy_t", NULL);
}

static void typedef_alias_guarded(void **state)
{
    (void)state;
    /* real_t is float: x and y may be the same array, so x[i] read after y[i] is written
     * sends an in-place call to the scalar loop, as for two float pointers */
    static const char *const want[] = {"(const void *)y != (const void *)x", NULL};
    vec_applies("typedef float real_t;\n"
                "__global__ void acc(const real_t *x, float *y, int n)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) { y[i] = 1.0f; y[i] += x[i]; }\n"
                "}\n",
                "acc", want);
}

static void typedefs_disagree(void **state)
{
    (void)state;
    /* a branch condition other than defined(): which typedef is compiled is not known */
    vec_refused("#include <cuda_fp16.h>\n"
                "#if HALF\n"
                "typedef __half floatX;\n"
                "#else\n"
                "typedef float floatX;\n"
                "#endif\n"
                "__global__ void gelu(const floatX *x, floatX *y, int n)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) y[i] = x[i];\n"
                "}\n",
                "gelu", "element type floatX has typedefs that disagree");
}

/* A typedef per #if branch read as the branch a build without -D flags compiles (the
 * file's own #define decides it); the lanes then travel as bytes read through the
 * parameter's type, and a static_assert stops a build whose branch differs in size. */
static void typedef_by_branch(void **state)
{
    (void)state;
    static const char *const flt[] = {"static_assert(sizeof(floatX) == 4,", "uint4 hk_y;",
                                      "floatX *hk_y_e = reinterpret_cast<floatX *>(&hk_y);", NULL};
    fixture fx;
    static const char src[] = "#include <cuda_fp16.h>\n"
                              "#if defined(HALF)\n"
                              "typedef __half floatX;\n"
                              "#else\n"
                              "typedef float floatX;\n"
                              "#endif\n"
                              "__global__ void gelu(const floatX *x, floatX *y, int n)\n"
                              "{\n"
                              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    if (i < n) y[i] = x[i];\n"
                              "}\n";
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "gelu"), 4, &r), HK_OK);
    assert_true(r.applicable);
    for (size_t i = 0; flt[i]; i++)
        assert_non_null(strstr(r.text, flt[i]));
    /* exactly one assert for the type both pointers share */
    const char *a = strstr(r.text, "static_assert");
    assert_null(strstr(a + 1, "static_assert"));
    rwf_nvcc_compiles(r.text, "gelu_float_branch");
    rw_result_free(&r);
    unload(&fx);
    /* the file defines HALF: the __half branch, 2 bytes a lane */
    load_text("#include <cuda_fp16.h>\n#define HALF 1\n"
              "#ifdef HALF\ntypedef __half floatX;\n#else\ntypedef float floatX;\n#endif\n"
              "__global__ void gelu(const floatX *x, floatX *y, int n)\n"
              "{\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    if (i < n) y[i] = x[i];\n"
              "}\n", &fx);
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "gelu"), 4, &r), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "static_assert(sizeof(floatX) == 2,"));
    assert_non_null(strstr(r.text, "uint2 hk_y;"));
    rwf_nvcc_compiles(r.text, "gelu_half_branch");
    rw_result_free(&r);
    unload(&fx);
}

/* Spellings of the index only the kernel model reads: a block-base temporary, a macro, a
 * __device__ helper, a grid-stride step in a temporary (test_rewrites_emu_vec.c runs
 * them); what stays refused: a temporary too narrow, a per-element code that reads the
 * thread's coordinates (its own index would differ per lane), a body without a bounds
 * check whose memory accesses are conditional. */
static void model_index_spellings(void **state)
{
    (void)state;
    vec_applies("__global__ void k1(const float *x, float *y, int n)\n"
                "{\n"
                "    const int base = blockIdx.x * blockDim.x;\n"
                "    int i = base + threadIdx.x;\n"
                "    if (i < n) y[i] = x[i];\n"
                "}\n",
                "k1", NULL);
    vec_applies("#define GID (threadIdx.x + blockIdx.x * blockDim.x)\n"
                "__global__ void k2(const float *x, float *y, long n)\n"
                "{\n"
                "    long i = GID;\n"
                "    if (i >= n) return;\n"
                "    y[i] = 2.0f * x[i];\n"
                "}\n",
                "k2", NULL);
    static const char *const stride[] = {"const int hk_stride = gridDim.x * blockDim.x;", NULL};
    vec_applies("__global__ void k3(const float *x, float *y, int n)\n"
                "{\n"
                "    int step = gridDim.x * blockDim.x;\n"
                "    for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += step)\n"
                "        y[i] = x[i] + 1.0f;\n"
                "}\n",
                "k3", stride);
    static const char *const rows[] = {"const int hk_stride = gridDim.x * gridDim.y * blockDim.x;", NULL};
    vec_applies("__global__ void k4(const float *x, float *y, int n)\n"
                "{\n"
                "    int gid = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;\n"
                "    if (gid < n) y[gid] = x[gid] + 1.0f;\n"
                "}\n",
                "k4", rows);
    vec_refused("__global__ void r0(const float *x, float *y, int n)\n"
                "{\n"
                "    int gid = blockDim.x * (gridDim.y * blockIdx.y + blockIdx.x) + threadIdx.x;\n"
                "    if (gid < n) y[gid] = x[gid] + 1.0f;\n"
                "}\n",
                "r0", "no `int i = blockIdx.x * blockDim.x + threadIdx.x;`");
    vec_refused("__global__ void r1(const float *x, float *y, int n)\n"
                "{\n"
                "    short b = blockIdx.x;\n"
                "    int base = b * blockDim.x;\n"
                "    int i = base + threadIdx.x;\n"
                "    if (i < n) y[i] = x[i];\n"
                "}\n",
                "r1", "no `int i = blockIdx.x * blockDim.x + threadIdx.x;`");
    vec_refused("__global__ void r2(const float *x, float *y, int n)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) y[i] = x[i] + threadIdx.x;\n"
                "}\n",
                "r2", "reads threadIdx or blockIdx");
    vec_refused("__global__ void r3(const float *x, float *y, int n)\n"
                "{\n"
                "    int lane = threadIdx.x % 32;\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) y[i] = x[i] * lane;\n"
                "}\n",
                "r3", "reads a local computed from threadIdx or blockIdx");
    vec_refused("__global__ void r4(const float *x, float *y)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (x[i] > 0.0f) y[i] = x[i];\n"
                "}\n",
                "r4", "bounds check");
    vec_refused("__global__ void r5(const float *x, float *y)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    y[i] = x[i] > 0.0f ? x[i] : 0.0f;\n"
                "}\n",
                "r5", "nor by code that runs unconditionally");
    vec_refused("__global__ void r6(const float *x, float *y, int n)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    const float *p = x + i;\n"
                "    if (i < n) y[i] = *p;\n"
                "}\n",
                "r6", "a statement between the index and its bounds check uses the index");
}

/* No bounds check (shoc's triad): the grid's threads are the elements. */
static void whole_grid(void **state)
{
    (void)state;
    static const char *const want[] = {"const auto hk_n = gridDim.x * blockDim.x;", NULL};
    vec_applies("__global__ void triad(const float *x, float *y, float s)\n"
                "{\n"
                "    int gid = threadIdx.x + (blockIdx.x * blockDim.x);\n"
                "    y[gid] = s * x[gid];\n"
                "}\n",
                "triad", want);
    static const char *const want64[] = {"const auto hk_n = (size_t)gridDim.x * blockDim.x;", NULL};
    vec_applies("#include <cstddef>\n"
                "__global__ void triad64(const float *x, float *y, float s)\n"
                "{\n"
                "    size_t gid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    y[gid] = s * x[gid];\n"
                "}\n",
                "triad64", want64);
}

/* readonly_loads reads the same typedefs: __ldg for a type that has an overload in every
 * #if branch (float, half, bf16), none for a struct. */
static void readonly_through_typedefs(void **state)
{
    (void)state;
    static const char src[] = "#include <cuda_fp16.h>\n"
                              "#include <cuda_bf16.h>\n"
                              "#if defined(BF16)\n"
                              "typedef __nv_bfloat16 floatX;\n"
                              "#elif defined(FP16)\n"
                              "typedef half floatX;\n"
                              "#else\n"
                              "typedef float floatX;\n"
                              "#endif\n"
                              "typedef struct { float a, b; } pair_t;\n"
                              "__global__ void act(const floatX *x, floatX *y, const pair_t *p, float *q, int n)\n"
                              "{\n"
                              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    if (i < n) {\n"
                              "        float v = x[i];\n"
                              "        y[i] = 2.0f * v;\n"
                              "        q[i] = p[i].a;\n"
                              "    }\n"
                              "}\n";
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_readonly_loads(fx.text, fx.len, fx.m, kernel(&fx, "act"), false, &r), HK_OK);
    if (!r.applicable)
        print_message("%s\n", r.description);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "float v = __ldg(&x[i]);"));
    assert_non_null(strstr(r.text, "q[i] = p[i].a;"));
    assert_non_null(strstr(r.description, "p (element type pair_t)"));
    rwf_nvcc_compiles(r.text, "readonly_typedefs");
    rw_result_free(&r);
    unload(&fx);
}

/* A statement before a grid-stride loop with `c ? a - b : d` has no label (mmcv's
 * bbox_overlaps was refused for one); a real label still refuses. */
static void ternary_is_not_a_label(void **state)
{
    (void)state;
    vec_applies("__global__ void tern(const float *x, float *y, int n, float a, float b)\n"
                "{\n"
                "    float s;\n"
                "    s = a > 0.0f ? a - b : b;\n"
                "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
                "        y[i] = s * x[i];\n"
                "}\n",
                "tern", NULL);
    vec_refused("__global__ void lab(const float *x, float *y, int n, float a)\n"
                "{\n"
                "    float s;\n"
                "again: s = a;\n"
                "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
                "        y[i] = s * x[i];\n"
                "}\n",
                "lab", "has a goto or a label");
}

static void macro_other_element_refused(void **state)
{
    (void)state;
    vec_refused(LOOP_MACRO
                "__global__ void shift(const float *x, float *y, int n)\n"
                "{\n"
                "    CUDA_1D_KERNEL_LOOP(i, n) { y[i] = x[i] + y[i + 1]; }\n"
                "}\n",
                "shift", "loop macro expanded");
}

static void macro_not_grid_stride_refused(void **state)
{
    (void)state;
    vec_refused("#define LOOP1(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += 1)\n"
                "__global__ void step1(const float *x, float *y, int n)\n"
                "{\n"
                "    LOOP1(i, n) { y[i] = x[i]; }\n"
                "}\n",
                "step1", "the loop step is not `i += gridDim.x * blockDim.x`");
    /* defined twice: which one applies depends on the order, not read */
    vec_refused(LOOP_MACRO LOOP_MACRO
                "__global__ void twice(const float *x, float *y, int n)\n"
                "{\n"
                "    CUDA_1D_KERNEL_LOOP(i, n) { y[i] = x[i]; }\n"
                "}\n",
                "twice", "no `int i = blockIdx.x * blockDim.x + threadIdx.x;`");
}

static int vectorize4(const fixture *fx, size_t k, rw_result *r)
{
    return rw_vectorize(fx->text, fx->len, fx->m, k, 4, r);
}

/* every allocation of the normalising paths may fail: HK_ENOMEM, nothing left behind */
static void normalised_paths_survive_alloc_failures(void **state)
{
    (void)state;
    static const char *const srcs[] = {
        LOOP_MACRO "typedef float real_t;\n"
                   "__global__ void k(const real_t *x, float *y, int n)\n"
                   "{\n"
                   "    CUDA_1D_KERNEL_LOOP(i, n) { y[i] = 2.0f * x[i]; }\n"
                   "}\n",
        "__global__ void k(const float *x, float *y, int n)\n"
        "{\n"
        "    int tid = threadIdx.x;\n"
        "    int i = blockIdx.x * blockDim.x + tid;\n"
        "    while (i < n) { y[i] = x[i]; i += blockDim.x * gridDim.x; }\n"
        "}\n",
        "typedef float a_t;\ntypedef double a_t;\n"
        "__global__ void k(const a_t *x, a_t *y, int n)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = x[i];\n"
        "}\n"};
    for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++) {
        fixture fx;
        load_text(srcs[i], &fx);
        rwf_survives_alloc_failures(&fx, kernel(&fx, "k"), vectorize4);
        unload(&fx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(int_index),
        cmocka_unit_test(unsigned_index_swapped_product),
        cmocka_unit_test(size_t_index_early_return),
        cmocka_unit_test(index_temporaries),
        cmocka_unit_test(index_temporaries_refused),
        cmocka_unit_test(while_loop),
        cmocka_unit_test(loop_macro),
        cmocka_unit_test(typedef_element),
        cmocka_unit_test(typedef_alias_guarded),
        cmocka_unit_test(typedefs_disagree),
        cmocka_unit_test(typedef_by_branch),
        cmocka_unit_test(model_index_spellings),
        cmocka_unit_test(whole_grid),
        cmocka_unit_test(ternary_is_not_a_label),
        cmocka_unit_test(readonly_through_typedefs),
        cmocka_unit_test(macro_other_element_refused),
        cmocka_unit_test(macro_not_grid_stride_refused),
        cmocka_unit_test(normalised_paths_survive_alloc_failures),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
