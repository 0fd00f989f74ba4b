/* vectorize and grid_stride run, not only compile (issue 13, "measure, don't trust"): each index
 * spelling that only the kernel model reads (an index from a block-base temporary, a
 * macro, a __device__ helper, a grid-stride step held in a temporary, the linear index
 * over a 2-D grid of 1-D blocks), a kernel with no
 * bounds check at all (the grid's threads are the elements) and an element type chosen by
 * an #if branch, against its 4-wide rewrite in the block emulator (emu_block.h): ragged
 * sizes (n not a multiple of 4: the scalar tail), pointers one element off their vector
 * alignment (the scalar fallback), three thread orders; every output bit for bit. A
 * rewrite whose tail is cut short must fail, so the check cannot pass vacuously. (A file
 * of its own beside test_rewrites_emu.c: each emulated program compiles for a second.) */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
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
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-emu-vec");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* C++ the drivers share. vec_case: inputs x, y (y also an output) and output o of n
 * elements, at offset 0 (vector-aligned) and 1 (not: the scalar fallback), n ragged or
 * not; the original on blocks of 128 covering n, the rewrite on that launch and on a grid
 * of 2 blocks (it is a grid-stride loop); index_case adds t, an index buffer of type I
 * (values 0 to 4) for gathers. grid_case: a kernel without a bounds check
 * handles exactly the grid's threads, so both run on the same launch (33 x 31 threads:
 * ragged; 64 x 16). Every output must match exactly. */
static const char helpers[] =
    "#define BOTH(...) [&](auto x, auto y, auto o, long n) { orig::__VA_ARGS__; }, \\\n"
    "                  [&](auto x, auto y, auto o, long n) { cand::__VA_ARGS__; }\n"
    "template <class T, class F, class G>\n"
    "static void vec_case(const char *what, F ko, G kc)\n"
    "{\n"
    "    static const long sizes[] = {1003, 1024, 7, 4097};\n"
    "    for (long n : sizes)\n"
    "        for (int off = 0; off < 2; off++)\n"
    "            for (int s = 0; s < 3; s++) {\n"
    "                emu::schedule = s;\n"
    "                emu::buf<T> x(n + 1), yo(n + 1), yc(n + 1), oo(n + 1), oc(n + 1);\n"
    "                x.fill(s + 1);\n"
    "                yo.fill(s + 7);\n"
    "                yc.fill(s + 7);\n"
    "                oo.fill(99);\n"
    "                oc.fill(99);\n"
    "                dim3 g((unsigned)((n + 127) / 128)), b(128);\n"
    "                emu::launch(g, b, 0, [&] { ko(x.ptr() + off, yo.ptr() + off, oo.ptr() + off, n); });\n"
    "                emu::launch(s == 2 ? dim3(2) : g, b, 0, [&] { kc(x.ptr() + off, yc.ptr() + off, oc.ptr() + off, n); });\n"
    "                if (!emu::expect(what, yo, yc) || !emu::expect(what, oo, oc))\n"
    "                    printf(\"  (n %ld offset %d schedule %d)\\n\", n, off, s);\n"
    "            }\n"
    "}\n"
    "template <class T, class F, class G>\n"
    "static void rows_case(const char *what, F ko, G kc)\n"
    "{\n"
    "    static const long sizes[] = {1003, 1024, 4097};\n"
    "    for (long n : sizes)\n"
    "        for (int off = 0; off < 2; off++)\n"
    "            for (int s = 0; s < 3; s++) {\n"
    "                emu::schedule = s;\n"
    "                emu::buf<T> x(n + 1), yo(n + 1), yc(n + 1), oo(n + 1), oc(n + 1);\n"
    "                x.fill(s + 1);\n"
    "                yo.fill(s + 7);\n"
    "                yc.fill(s + 7);\n"
    "                oo.fill(99);\n"
    "                oc.fill(99);\n"
    "                dim3 g(3, (unsigned)((n + 3 * 64 - 1) / (3 * 64))), b(64);\n"
    "                emu::launch(g, b, 0, [&] { ko(x.ptr() + off, yo.ptr() + off, oo.ptr() + off, n); });\n"
    "                emu::launch(s == 2 ? dim3(2, 2) : g, b, 0, [&] { kc(x.ptr() + off, yc.ptr() + off, oc.ptr() + off, n); });\n"
    "                if (!emu::expect(what, yo, yc) || !emu::expect(what, oo, oc))\n"
    "                    printf(\"  (n %ld offset %d schedule %d)\\n\", n, off, s);\n"
    "            }\n"
    "}\n"
    "template <class T, class F, class G>\n"
    "static void grid_case(const char *what, F ko, G kc)\n"
    "{\n"
    "    static const unsigned shapes[][2] = {{31, 33}, {16, 64}};\n"
    "    for (auto &sh : shapes)\n"
    "        for (int off = 0; off < 2; off++)\n"
    "            for (int s = 0; s < 3; s++) {\n"
    "                emu::schedule = s;\n"
    "                long n = (long)sh[0] * sh[1];\n"
    "                emu::buf<T> x(n + 1), yo(n + 1), yc(n + 1), oo(n + 1), oc(n + 1);\n"
    "                x.fill(s + 1);\n"
    "                yo.fill(s + 7);\n"
    "                yc.fill(s + 7);\n"
    "                oo.fill(99);\n"
    "                oc.fill(99);\n"
    "                emu::launch(dim3(sh[0]), dim3(sh[1]), 0, [&] { ko(x.ptr() + off, yo.ptr() + off, oo.ptr() + off, n); });\n"
    "                emu::launch(dim3(sh[0]), dim3(sh[1]), 0, [&] { kc(x.ptr() + off, yc.ptr() + off, oc.ptr() + off, n); });\n"
    "                if (!emu::expect(what, yo, yc) || !emu::expect(what, oo, oc))\n"
    "                    printf(\"  (%u x %u offset %d schedule %d)\\n\", sh[0], sh[1], off, s);\n"
    "            }\n"
    "}\n"
    "#define BOTH_T(...) [&](auto x, auto y, auto o, auto t, long n) { orig::__VA_ARGS__; }, \\\n"
    "                    [&](auto x, auto y, auto o, auto t, long n) { cand::__VA_ARGS__; }\n"
    "template <class T, class I, class F, class G>\n"
    "static void index_case(const char *what, F ko, G kc)\n"
    "{\n"
    "    static const long sizes[] = {1003, 1024, 7, 4097};\n"
    "    for (long n : sizes)\n"
    "        for (int off = 0; off < 2; off++)\n"
    "            for (int s = 0; s < 3; s++) {\n"
    "                emu::schedule = s;\n"
    "                emu::buf<T> x(n + 1), yo(n + 1), yc(n + 1), oo(n + 1), oc(n + 1);\n"
    "                emu::buf<I> t(n + 1);\n"
    "                x.fill(s + 1);\n"
    "                yo.fill(s + 7);\n"
    "                yc.fill(s + 7);\n"
    "                t.fill_mod(s + 3, 5);\n"
    "                oo.fill(99);\n"
    "                oc.fill(99);\n"
    "                dim3 g((unsigned)((n + 127) / 128)), b(128);\n"
    "                emu::launch(g, b, 0, [&] { ko(x.ptr() + off, yo.ptr() + off, oo.ptr() + off, t.ptr() + off, n); });\n"
    "                emu::launch(s == 2 ? dim3(2) : g, b, 0, [&] { kc(x.ptr() + off, yc.ptr() + off, oc.ptr() + off, t.ptr() + off, n); });\n"
    "                if (!emu::expect(what, yo, yc) || !emu::expect(what, oo, oc))\n"
    "                    printf(\"  (n %ld offset %d schedule %d)\\n\", n, off, s);\n"
    "            }\n"
    "}\n";

/* The running test's emulated programs (emu_batch.h): queued by emulate(), built together
 * and checked, each on its own, by emu_batch_run at the test's end. */
static emu_batch batch;
#define emulate(tag, src, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* The block's base in a temporary: the text matching knows only `int tid = threadIdx.x;`. */
static const char base_temp[] =
    "__global__ void axpy_base(const float *x, float *y, float a, int n)\n"
    "{\n"
    "    const int base = blockIdx.x * blockDim.x;\n"
    "    int i = base + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";
/* The index through a macro and an early return, 64-bit. */
static const char macro_index[] =
    "#define GLOBAL_ID ((size_t)blockIdx.x * blockDim.x + threadIdx.x)\n"
    "__global__ void scale_m(const float *__restrict__ x, float *__restrict__ o, size_t n)\n"
    "{\n"
    "    size_t i = GLOBAL_ID;\n"
    "    if (i >= n) return;\n"
    "    o[i] = 3.0f * x[i] - 1.0f;\n"
    "}\n";
/* The index from a __device__ helper, unsigned. */
static const char helper_index[] =
    "__device__ __forceinline__ unsigned global_id() { return threadIdx.x + blockDim.x * blockIdx.x; }\n"
    "__global__ void add_h(const float *x, const float *y, float *o, unsigned n)\n"
    "{\n"
    "    unsigned i = global_id();\n"
    "    if (i < n) o[i] = x[i] + y[i];\n"
    "}\n";
/* A grid-stride loop whose step is a temporary. */
static const char stride_temp[] =
    "__global__ void mul_s(const float *x, const float *y, float *o, int n)\n"
    "{\n"
    "    const int stride = blockDim.x * gridDim.x;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n"
    "        o[i] = x[i] * y[i];\n"
    "}\n";
/* No bounds check (shoc's triad): the launch covers the data exactly. */
static const char triad[] =
    "__global__ void triad(float *A, float *B, float *C, float s)\n"
    "{\n"
    "    int gid = threadIdx.x + (blockIdx.x * blockDim.x);\n"
    "    C[gid] = A[gid] + s * B[gid];\n"
    "}\n";
/* The linear index over a 2-D grid of 1-D blocks (rodinia's spelling for more blocks
 * than a grid row holds): rows_case launches 3 x rows blocks of 64. */
static const char grid_rows[] =
    "__global__ void sq_rows(const float *x, float *o, int n)\n"
    "{\n"
    "    int gid = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;\n"
    "    if (gid < n)\n"
    "        o[gid] = x[gid] * x[gid];\n"
    "}\n";
/* bf16 elements by the #if branch the file's own #define picks (llm.c's floatX). */
static const char branch_bf16[] =
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "#define ENABLE_BF16\n"
    "#if defined(ENABLE_BF16)\n"
    "typedef __nv_bfloat16 floatX;\n"
    "#elif defined(ENABLE_FP16)\n"
    "typedef half floatX;\n"
    "#else\n"
    "typedef float floatX;\n"
    "#endif\n"
    "__global__ void gelu_x(floatX *out, const floatX *inp, int N)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < N) {\n"
    "        float xi = inp[i];\n"
    "        out[i] = 0.5f * xi * (1.0f + tanhf(0.79788456f * (xi + 0.044715f * xi * xi * xi)));\n"
    "    }\n"
    "}\n";

/* Reads at another index of pointers the kernel never writes (issue 13, kernels by others):
 * a neighbour x[i + 1], a bias per column (also through __ldg), a per-row value through locals computed from the index (mmcv's focal
 * loss: a loop macro, an int64 target, a weight tested against NULL), a table through an
 * index array, a scalar behind a pointer. Each lane reads them with its own index. */
static const char bias_add[] =
    "__global__ void bias_add(const float *x, const float *b, float *o, int h, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        o[i] = x[i] + b[i % h];\n"
    "}\n";
static const char neighbour_read[] =
    "__global__ void diff_next(const float *x, float *o, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n - 1)\n"
    "        o[i] = x[i + 1] - x[i];\n"
    "}\n";
static const char bias_ldg[] =
    "__global__ void bias_ldg(const float *__restrict__ x, const float *__restrict__ b,\n"
    "                         float *__restrict__ o, int h, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        o[i] = x[i] * __ldg(&b[i % h]);\n"
    "}\n";
static const char gelu_bias_bf16[] =
    "#include <cuda_bf16.h>\n"
    "__global__ void gelu_bias(__nv_bfloat16 *out, const __nv_bfloat16 *inp, const __nv_bfloat16 *bias,\n"
    "                          int C, int N)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= N) return;\n"
    "    float xi = __bfloat162float(inp[i]) + __bfloat162float(bias[i % C]);\n"
    "    out[i] = __float2bfloat16(0.5f * xi * (1.0f + tanhf(0.79788456f * (xi + 0.044715f * xi * xi * xi))));\n"
    "}\n";
static const char focal_rows[] =
    "#include <stdint.h>\n"
    "#define CUDA_1D_KERNEL_LOOP(i, n) \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "__global__ void focal(const int nthreads, const float *input, const int64_t *target,\n"
    "                      const float *weight, float *output, const float alpha, const int num_classes)\n"
    "{\n"
    "  CUDA_1D_KERNEL_LOOP(index, nthreads) {\n"
    "    int n = index / num_classes;\n"
    "    int c = index % num_classes;\n"
    "    int64_t t = target[n];\n"
    "    float flag_p = (t == c);\n"
    "    float p = 1.0f / (1.0f + expf(-input[index]));\n"
    "    output[index] = -flag_p * alpha * (1.0f - p) - (1.0f - flag_p) * p;\n"
    "    if (weight != NULL) {\n"
    "      output[index] *= weight[t];\n"
    "    }\n"
    "  }\n"
    "}\n";
static const char table_gather[] =
    "__global__ void lookup(const float *__restrict__ table, const int *__restrict__ idx,\n"
    "                       const float *__restrict__ scale, float *__restrict__ o, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        o[i] = table[idx[i]] * scale[0] + *scale;\n"
    "}\n";

/* The reads at another index stay in each lane's code, the index declared per lane, and the
 * outputs match the original's exactly. */
static void gathers_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *src, *kernel, *kept, *driver;
    } cases[] = {
        {bias_add, "bias_add", "b[i % h]",
         "vec_case<float>(\"bias_add\", BOTH(bias_add(x, y, o, 37, (int)n)));"},
        {neighbour_read, "diff_next", "o.w = x[i + 1] - hk_x.w;",
         "vec_case<float>(\"diff_next\", BOTH(diff_next(x, o, (int)n)));"},
        {bias_ldg, "bias_ldg", "hk_o.y = hk_x.y * __ldg(&b[i % h]);",
         "vec_case<float>(\"bias_ldg\", BOTH(bias_ldg(x, y, o, 5, (int)n)));"},
        {gelu_bias_bf16, "gelu_bias", "bias[i % C]",
         "vec_case<__nv_bfloat16>(\"gelu_bias\", BOTH(gelu_bias(o, x, y, 13, (int)n)));"},
        {focal_rows, "focal", "int64_t t = target[n];",
         "index_case<float, int64_t>(\"focal\", BOTH_T(focal((int)n, x, t, y, o, 0.25f, 5)));\n"
         "index_case<float, int64_t>(\"focal_noweight\", BOTH_T(focal((int)n, x, t, nullptr, o, 0.25f, 5)));\n"
         "index_case<float, int64_t>(\"focal_rows3\", BOTH_T(focal((int)n, x, t, y, o, 0.25f, 3)));"},
        {table_gather, "lookup", "hk_idx.w] * scale[0] + *scale;",
         "index_case<float, int>(\"lookup\", BOTH_T(lookup(y, t, x + 3, o, (int)n)));"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(cases[i].src, cases[i].kernel, "vectorize", NULL);
        assert_non_null(strstr(cand, "hk_nv"));
        if (!strstr(cand, cases[i].kept))
            print_message("want `%s` in\n%s\n", cases[i].kept, cand);
        assert_non_null(strstr(cand, cases[i].kept));
        rwf_nvcc_compiles(cand, cases[i].kernel);
        emulate(cases[i].kernel, cases[i].src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* mmcv's form as written: a template kernel, T the spec's float. The lanes travel as bytes
 * read through T, the vector path only where sizeof(T) is 4: T = double runs the scalar
 * loop, and both give the original's outputs. */
static const char focal_template[] =
    "#include <stdint.h>\n"
    "#define CUDA_1D_KERNEL_LOOP(i, n) \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "template <typename T>\n"
    "__global__ void focal_t(const int nthreads, const T *input, const int64_t *target,\n"
    "                        const T *weight, T *output, const T alpha, const int num_classes)\n"
    "{\n"
    "  CUDA_1D_KERNEL_LOOP(index, nthreads) {\n"
    "    int64_t label = target[index];\n"
    "    T pred = input[(index * num_classes + label) % nthreads];\n"
    "    output[index] = label >= 2 ? -alpha * ((T)1. - pred) : input[index];\n"
    "    if (weight != NULL)\n"
    "      output[index] *= weight[label];\n"
    "  }\n"
    "}\n";

static void template_spec_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    fixture fx;
    load_text(focal_template, &fx);
    const char *targs[] = {"float"};
    rw_result r;
    assert_int_equal(rw_vectorize_targs(fx.text, fx.len, fx.m, kernel(&fx, "focal_t"), 4, targs, 1, &r), HK_OK);
    if (!r.applicable || !strstr(r.text, "if (sizeof(T) == 4 &&"))
        print_message("%s\n%s\n", r.description, r.text ? r.text : "");
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "if (sizeof(T) == 4 &&"));
    assert_non_null(strstr(r.text, "const T *hk_input_e = reinterpret_cast<const T *>(&hk_input);"));
    assert_non_null(strstr(r.text, "T *hk_output_e = reinterpret_cast<T *>(&hk_output);"));
    assert_non_null(strstr(r.text, "int64_t label = target[index];"));   /* no int64 vector: per lane */
    assert_non_null(strstr(r.description, "T as the spec's float: the vector path when sizeof(T) == 4"));
    char *cand = strdup(r.text);
    rw_result_free(&r);
    /* through the registry, as the search passes its template arguments */
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "focal_t"),
                      .template_args = targs, .n_template_args = 1};
    rw_refusal why;
    assert_int_equal(rw_apply_named("vectorize", &ctx, NULL, &r, &why), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "if (sizeof(T) == 4 &&"));
    rw_result_free(&r);
    /* without the spec's argument T has no vector type */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "focal_t"), 4, &r), HK_OK);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, "has element type T"));
    rw_result_free(&r);
    unload(&fx);
    rwf_nvcc_compiles(cand, "focal_t");
    emulate("focal_t", focal_template, cand,
            "index_case<float, int64_t>(\"focal_t\", BOTH_T(focal_t<float>((int)n, x, t, y, o, 0.25f, 5)));\n"
            "index_case<float, int64_t>(\"focal_t_noweight\", BOTH_T(focal_t<float>((int)n, x, t, nullptr, o, 0.25f, 5)));\n"
            "index_case<double, int64_t>(\"focal_t_double\", BOTH_T(focal_t<double>((int)n, x, t, y, o, 0.25, 5)));",
            EMU_OK);
    free(cand);
    emu_batch_run(&batch);
}

/* A pointer the kernel writes may not be read at another index (another lane's or thread's
 * element, moved across the vector stores), nor one that could be written through a copy,
 * an address or a call, nor one a launch passes as the written pointer too. */
static void gathers_refused(void **state)
{
    (void)state;
    static const struct {
        const char *src, *kernel, *why;
    } cases[] = {
        {"__global__ void self_bias(const float *x, float *o, int h, int n)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i < n) o[i] = x[i] + o[i % h];\n"
         "}\n",
         "self_bias", "statement at line 4: pointer o is used other than as o[i] or o[s * i + k] "
                      "(another index, a dereference or the pointer itself) and is written,"},
        {"__global__ void bias_store(const float *x, float *b, float *o, int h, int n)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i < n) {\n"
         "        o[i] = x[i] + b[i % h];\n"
         "        b[0] = 0.0f;\n"
         "    }\n"
         "}\n",
         "bias_store", "statement at line 6: pointer b is used other than as b[i] or b[s * i + k] "
                       "(another index, a dereference or the pointer itself) and is written,"},
        {"__device__ void touch(float *p) { p[1] = 2.0f; }\n"
         "__global__ void bias_call(const float *x, float *b, float *o, int h, int n)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i < n) {\n"
         "        o[i] = x[i] + b[i % h];\n"
         "        touch(b);\n"
         "    }\n"
         "}\n",
         "bias_call", "and is used as a pointer (passed on, copied, offset or assigned)"},
        {"__global__ void bias_atomic(const float *x, float *b, float *o, int h, int n)\n"
         "{\n"
         "    if (threadIdx.x == 0) atomicAdd(&b[1], 1.0f);\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
         "        o[i] = x[i] + b[i % h];\n"
         "}\n",
         "bias_atomic", "statement at line 3: pointer b"},
        {"__global__ void bias_inplace(const float *x, const float *b, float *o, int h, int n)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i < n) o[i] = x[i] + b[i % h];\n"
         "}\n"
         "void run(const float *x, float *o, int h, int n)\n"
         "{\n"
         "    bias_inplace<<<(n + 255) / 256, 256>>>(x, o, o, h, n);\n"
         "}\n",
         "bias_inplace", "a launch in the file passes the same pointer as b, read at another index, and o"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture fx;
        load_text(cases[i].src, &fx);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel)};
        rw_result r;
        rw_refusal why;
        assert_int_equal(rw_apply_named("vectorize", &ctx, NULL, &r, &why), HK_OK);
        if (r.applicable || !strstr(r.description, cases[i].why))
            print_message("vectorize of %s: want `%s`, got: %s\n", cases[i].kernel, cases[i].why,
                          r.description);
        assert_false(r.applicable);
        assert_non_null(strstr(r.description, cases[i].why));
        rw_result_free(&r);
        unload(&fx);
    }
}

static void model_spellings_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *src, *kernel, *driver;
    } cases[] = {
        {base_temp, "axpy_base", "vec_case<float>(\"axpy_base\", BOTH(axpy_base(x, y, 1.5f, (int)n)));"},
        {macro_index, "scale_m", "vec_case<float>(\"scale_m\", BOTH(scale_m(x, o, (size_t)n)));"},
        {helper_index, "add_h", "vec_case<float>(\"add_h\", BOTH(add_h(x, y, o, (unsigned)n)));"},
        {stride_temp, "mul_s", "vec_case<float>(\"mul_s\", BOTH(mul_s(x, y, o, (int)n)));"},
        {triad, "triad", "grid_case<float>(\"triad\", BOTH(triad(x, y, o, 0.75f)));"},
        {grid_rows, "sq_rows", "rows_case<float>(\"sq_rows\", BOTH(sq_rows(x, o, (int)n)));"},
        {branch_bf16, "gelu_x",
         "vec_case<__nv_bfloat16>(\"gelu_x\", BOTH(gelu_x(o, x, (int)n)));"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(cases[i].src, cases[i].kernel, "vectorize", NULL);
        assert_non_null(strstr(cand, "hk_nv"));
        rwf_nvcc_compiles(cand, cases[i].kernel);
        emulate(cases[i].kernel, cases[i].src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* grid_stride reads the index through the kernel model too: the same spellings become
 * grid-stride loops that give the same outputs on the original's launch and on 2 blocks. */
static void grid_stride_spellings_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *src, *kernel, *driver;
    } cases[] = {
        {base_temp, "axpy_base", "vec_case<float>(\"axpy_base\", BOTH(axpy_base(x, y, 1.5f, (int)n)));"},
        {macro_index, "scale_m", "vec_case<float>(\"scale_m\", BOTH(scale_m(x, o, (size_t)n)));"},
        {helper_index, "add_h", "vec_case<float>(\"add_h\", BOTH(add_h(x, y, o, (unsigned)n)));"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(cases[i].src, cases[i].kernel, "grid_stride", NULL);
        assert_non_null(strstr(cand, "gridDim.x * blockDim.x)"));
        char tag[64];
        snprintf(tag, sizeof tag, "gs_%s", cases[i].kernel);
        rwf_nvcc_compiles(cand, tag);
        emulate(tag, cases[i].src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* What stays refused, with the reason: the thread's own coordinates read per element
 * (directly or through a local computed before the loop), for grid_stride as for
 * vectorize; a temporary too narrow for a block index. */
static void thread_coordinates_refused(void **state)
{
    (void)state;
    static const struct {
        const char *src, *kernel, *why;
    } cases[] = {
        {"__global__ void lane_k(const float *x, float *y, int n)\n"
         "{\n"
         "    const int base = blockIdx.x * blockDim.x;\n"
         "    int i = base + threadIdx.x;\n"
         "    if (i < n) y[i] = x[i] + base;\n"
         "}\n",
         "lane_k", "reads a local computed from threadIdx or blockIdx"},
        {"__global__ void tid_k(const float *x, float *y, int n)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    int lane = threadIdx.x % 32;\n"
         "    if (i < n) y[i] = x[i] * lane;\n"
         "}\n",
         "tid_k", "reads a local computed from threadIdx or blockIdx"},
        {"__global__ void direct_k(const float *x, float *y, int n)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i < n) y[i] = x[i] * threadIdx.x;\n"
         "}\n",
         "direct_k", "reads threadIdx or blockIdx"},
        {"__global__ void narrow_k(const float *x, float *y, int n)\n"
         "{\n"
         "    unsigned char b = blockIdx.x;\n"
         "    int i = b * blockDim.x + threadIdx.x;\n"
         "    if (i < n) y[i] = x[i];\n"
         "}\n",
         "narrow_k", "no `int i = blockIdx.x * blockDim.x + threadIdx.x;`"},
    };
    static const char *const rewrites[] = {"grid_stride", "vectorize"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t w = 0; w < 2; w++) {
            fixture fx;
            load_text(cases[i].src, &fx);
            rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel)};
            rw_result r;
            rw_refusal why;
            assert_int_equal(rw_apply_named(rewrites[w], &ctx, NULL, &r, &why), HK_OK);
            if (r.applicable || !strstr(r.description, cases[i].why))
                print_message("%s of %s: want `%s`, got: %s\n", rewrites[w], cases[i].kernel, cases[i].why,
                              r.description);
            assert_false(r.applicable);
            assert_non_null(strstr(r.description, cases[i].why));
            rw_result_free(&r);
            unload(&fx);
        }
}

/* llm.c's AdamW spelling: v[i] and m[i] read after m[i] is written, neither pointer
 * __restrict__, and a pointer named v (whose vector cannot be the loop's hk_v). The vector path is guarded by the pointers' inequality, so an in-place call
 * (m and v one buffer) takes the scalar loop and reads what the element's own write left,
 * as the original does; distinct buffers take the vector path. Both match exactly. */
static const char moments[] =
    "__global__ void moments(float *m, float *v, const float *g, long n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    m[i] = 0.75f * m[i] + 0.25f * g[i];\n"
    "    v[i] = 0.5f * v[i] + m[i] * g[i];\n"
    "    float m_hat = m[i] / 0.125f;\n"
    "    v[i] += m_hat;\n"
    "}\n";
static const char moments_drivers[] =
    "vec_case<float>(\"moments\", BOTH(moments(y, o, x, n)));\n"
    "vec_case<float>(\"moments_in_place\", BOTH(moments(y, y, x, n)));";

static void in_place_call_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(moments, "moments", "vectorize", NULL);
    assert_non_null(strstr(cand, "hk_nv"));
    assert_non_null(strstr(cand, "(const void *)m != (const void *)v"));
    assert_null(strstr(cand, "(const void *)v != (const void *)m")); /* one term per pair */
    /* the pointer v's vector is not the loop's hk_v */
    assert_non_null(strstr(cand, "float4 hk_v_ = reinterpret_cast<const float4 *>(v)[hk_v];"));
    rwf_nvcc_compiles(cand, "moments");
    emulate("moments", moments, cand, moments_drivers, EMU_OK);
    free(cand);
    emu_batch_run(&batch);
}

/* The check can fail: a vector loop that stops one vector short (its elements then never
 * written) and a triad bounded by one element less than the grid differ. */
static void broken_vectorize_fails(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(base_temp, "axpy_base", "vectorize", NULL);
    char *short_loop = emu_replaced(cand, "hk_v < hk_nv;", "hk_v + 1 < hk_nv;");
    char *no_tail = emu_replaced(short_loop, "hk_nv * 4 + hk_start", "hk_nv * 4 + hk_start + hk_n");
    emulate("broken_axpy", base_temp, no_tail,
            "vec_case<float>(\"axpy_base\", BOTH(axpy_base(x, y, 1.5f, (int)n)));", EMU_DIFFERS);
    free(no_tail);
    free(short_loop);
    free(cand);
    cand = emu_rewrite(triad, "triad", "vectorize", NULL);
    char *short_n = emu_replaced(cand, "const auto hk_n = gridDim.x * blockDim.x;",
                                 "const auto hk_n = gridDim.x * blockDim.x - 1;");
    emulate("broken_triad", triad, short_n, "grid_case<float>(\"triad\", BOTH(triad(x, y, o, 0.75f)));",
            EMU_DIFFERS);
    free(short_n);
    free(cand);
    /* a gather read with the vector's index instead of its lane's (the first is lane 0's) */
    cand = emu_rewrite(bias_add, "bias_add", "vectorize", NULL);
    char *vector_index = emu_replaced(cand, "b[i % h]", "b[hk_v % h]");
    emulate("broken_bias", bias_add, vector_index,
            "vec_case<float>(\"bias_add\", BOTH(bias_add(x, y, o, 37, (int)n)));", EMU_DIFFERS);
    free(vector_index);
    free(cand);
    cand = emu_rewrite(focal_rows, "focal", "vectorize", NULL);
    char *row_of_vector = emu_replaced(cand, "int n = index / num_classes;", "int n = hk_v / num_classes;");
    emulate("broken_focal", focal_rows, row_of_vector,
            "index_case<float, int64_t>(\"focal\", BOTH_T(focal((int)n, x, t, y, o, 0.25f, 5)));",
            EMU_DIFFERS);
    free(row_of_vector);
    free(cand);
    /* without the pointers' inequality an in-place call reads v's vector loaded before
     * m's lanes were written */
    cand = emu_rewrite(moments, "moments", "vectorize", NULL);
    char *unguarded = emu_replaced(cand, "(const void *)m != (const void *)v", "true");
    emulate("broken_moments", moments, unguarded, moments_drivers, EMU_DIFFERS);
    free(unguarded);
    free(cand);
    emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(model_spellings_run),
        cmocka_unit_test(grid_stride_spellings_run),
        cmocka_unit_test(thread_coordinates_refused),
        cmocka_unit_test(gathers_run),
        cmocka_unit_test(gathers_refused),
        cmocka_unit_test(template_spec_run),
        cmocka_unit_test(in_place_call_runs),
        cmocka_unit_test(broken_vectorize_fails),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
