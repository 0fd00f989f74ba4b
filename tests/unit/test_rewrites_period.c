/* periodic_trips run, not only compiled: mmcv's tin_shift as mmcv launches it (nthreads
 * the output's size N*T*C*HW, while the body's coordinates repeat every N*C*HW trips; the
 * loop a statement macro), the same copy written as a plain for loop with a parenthesised
 * divisor product and a local array, and a gather whose period exceeds n (nothing
 * dropped), against their rewrites in the block emulator (emu_block.h) under three thread
 * orders and several grids (below, at and above the period): every output must be
 * bit-identical. A rewrite whose period leaves a factor out must differ. Kernels it must
 * not take are refused with the construct and its line; the wild suite's
 * mmcv_tin_shift_fwd, rewritten, compiles with nvcc -arch=sm_90. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"

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
    return rwf_setup("rewrites-period");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* PAIR(T, what, nout, ...): emu_batch.h's EMU_PAIR */
static const char helpers[] = EMU_PAIR;

static emu_batch batch;

/* mmcv's tin_shift forward, as in bench/wild/src (the macro and the kernel) */
static const char tshift[] =
    "#define CUDA_1D_KERNEL_LOOP(i, n)                              \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); \\\n"
    "       i += blockDim.x * gridDim.x)\n"
    "template <typename T>\n"
    "__global__ void tshift(const int nthreads, const T* input, const int* shift, T* output,\n"
    "                       const int batch_size, const int channels, const int t_size,\n"
    "                       const int hw_size, const int group_size, const int group_channel) {\n"
    "  CUDA_1D_KERNEL_LOOP(index, nthreads) {\n"
    "    const int hw_index = index % hw_size;\n"
    "    const int j = (index / hw_size) % channels;\n"
    "    const int n_index = (index / hw_size / channels) % batch_size;\n"
    "    int group_id = j / group_channel;\n"
    "    int t_shift = shift[n_index * group_size + group_id];\n"
    "    int offset = n_index * t_size * hw_size * channels + hw_size * j + hw_index;\n"
    "    for (int i = 0; i < t_size; i++) {\n"
    "      int now_t = i + t_shift;\n"
    "      int data_id = i * hw_size * channels + offset;\n"
    "      if (now_t < 0 || now_t >= t_size) {\n"
    "        continue;\n"
    "      }\n"
    "      int out_id = now_t * hw_size * channels + offset;\n"
    "      output[out_id] = input[data_id];\n"
    "    }\n"
    "  }\n"
    "}\n";

/* N 3, C 4, HW 5, G 2 (60 columns) over T 1, 3 and 8; nthreads N*T*C*HW as mmcv passes it;
 * grids of 1, 2 and 40 blocks of 32 (below the period, and above it) */
static const char tshift_drv[] =
    "for (int t : {1, 3, 8})\n"
    "for (int g : {1, 2, 40}) {\n"
    "    const int B = 3, C = 4, HW = 5, G = 2, n = B * t * C * HW;\n"
    "    emu::buf<float> in(n);\n"
    "    in.fill(t);\n"
    "    emu::buf<int> sh(B * G);\n"
    "    sh.fill_mod(t, 7);\n"
    "    for (int j = 0; j < B * G; j++) sh[j] -= 3;\n"
    "    PAIR(float, \"tshift\", n, emu::launch(dim3(g), dim3(32), 0, [&] {\n"
    "        NS::tshift<float>(n, in, sh, out, B, C, t, HW, G, C / G); }));\n"
    "}\n";

/* a plain for loop: a divisor product in parentheses, a literal modulus, a local array */
static const char plain[] =
    "__global__ void plain(long long n, const float *__restrict__ x, float *__restrict__ y, int h, int w)\n"
    "{\n"
    "    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = (i / w) % h;\n"
    "        int c = i / (h * w) % 3;\n"
    "        float v[2];\n"
    "        v[0] = x[(c * h + py) * w + px];\n"
    "        v[1] = px + 1 < w ? x[(c * h + py) * w + px + 1] : 0.0f;\n"
    "        y[(c * h + py) * w + px] = v[0] * 0.5f + v[1];\n"
    "    }\n"
    "}\n";

static const char plain_drv[] =
    "for (int reps : {1, 2, 5})\n"
    "for (int g : {1, 3}) {\n"
    "    const int H = 3, W = 7;\n"
    "    long long n = 3LL * H * W * reps - (reps > 2 ? 4 : 0);\n"
    "    emu::buf<float> x(3 * H * W);\n"
    "    x.fill(reps);\n"
    "    PAIR(float, \"plain\", 3 * H * W, emu::launch(dim3(g), dim3(16), 0, [&] { NS::plain(n, x, out, H, W); }));\n"
    "}\n";

/* n below the period: the loop keeps n */
static const char wide[] =
    "__global__ void wide(int n, const int *__restrict__ t, int *__restrict__ y, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i % m] = t[i % m] * 3 + 1;\n"
    "}\n";

static const char wide_drv[] =
    "for (int n : {0, 5, 64, 100}) {\n"
    "    emu::buf<int> t(1000);\n"
    "    t.fill_mod(n, 1000);\n"
    "    PAIR(int, \"wide\", 1000, emu::launch(dim3(2), dim3(16), 0, [&] { NS::wide(n, t, out, 1000); }));\n"
    "    PAIR(int, \"wide_small_m\", 1000, emu::launch(dim3(2), dim3(16), 0, [&] { NS::wide(n, t, out, 7); }));\n"
    "}\n";

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *tag, *src, *kernel, *driver;
    } cases[] = {
        {"tshift", tshift, "tshift", tshift_drv},
        {"plain", plain, "plain", plain_drv},
        {"wide", wide, "wide", wide_drv},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        char *cand = emu_rewrite(cases[i].src, cases[i].kernel, "periodic_trips", NULL);
        emu_batch_add_pair(&batch, cases[i].tag, cases[i].src, cand, helpers, cases[i].driver, EMU_OK);
        if (i == 0) {
            /* a period without the batch factor: the columns of later batches are lost */
            char *broken = emu_replaced(cand, "hk_pt_p *= (long long)(batch_size);", "hk_pt_p *= 1;");
            emu_batch_add_pair(&batch, "tshift_broken", cases[i].src, broken, helpers, cases[i].driver,
                               EMU_DIFFERS);
            free(broken);
        }
        free(cand);
    }
    emu_batch_run(&batch);
}

/* The emitted text: the period from the factors, the bound renamed in the macro's call. */
static void emitted_text(void **state)
{
    (void)state;
    char *t = emu_rewrite(tshift, "tshift", "periodic_trips", NULL);
    static const char *const want[] = {
        "hk: periodic_trips: the body reads `index` only as coordinates that repeat every hw_size * channels * "
        "batch_size trips",
        "auto hk_pt_n = (nthreads);",
        "hk_pt_p *= (long long)(hw_size);",
        "hk_pt_p *= (long long)(channels);",
        "hk_pt_p *= (long long)(batch_size);",
        "if (hk_pt_ok && hk_pt_p < hk_pt_n)",
        "CUDA_1D_KERNEL_LOOP(index, hk_pt_n) {",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(t, want[i]))
            fail_msg("no `%s` in\n%s", want[i], t);
    /* the for form: the factors of `(h * w)` and the literal 3, each once */
    char *p = emu_rewrite(plain, "plain", "periodic_trips", NULL);
    assert_non_null(strstr(p, "every w * h * 3 trips"));
    assert_non_null(strstr(p, "i < hk_pt_n; i += blockDim.x * gridDim.x) {"));
    free(p);
    /* a second application finds its own names */
    fixture fx;
    load_text(t, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "tshift")};
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("periodic_trips"), &ctx, NULL, &why), HK_OK);
    assert_non_null(strstr(why.reason, "at its period already"));
    unload(&fx);
    free(t);
}

static const char refused[] =
    "__global__ void direct(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i] = x[i % m];\n"
    "}\n"
    "__global__ void outer(const float *x, float *y, int n, int w)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int c = i / w;\n"
    "        y[c] = x[i % w];\n"
    "    }\n"
    "}\n"
    "__global__ void atom(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        atomicAdd(y + i % m, x[i % m]);\n"
    "}\n"
    "__global__ void accum(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i % m] += x[i % m];\n"
    "}\n"
    "__global__ void inplace(float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i % m] = y[i % m] * 2.0f;\n"
    "}\n"
    "__global__ void carried(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    float s = 0.0f;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        s = s + x[i % m];\n"
    "        y[i % m] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void tid(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i % m] = x[threadIdx.x];\n"
    "}\n"
    "__global__ void after(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i % m] = x[i % m];\n"
    "    y[0] = 1.0f;\n"
    "}\n"
    "__global__ void offset(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x + 3; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i % m] = x[i % m];\n"
    "}\n"
    "__global__ void divw(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    m = m + 1;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i % m] = x[i % m];\n"
    "}\n"
    "__global__ void scaled(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[2 * i % m] = x[i % m];\n"
    "}\n"
    "__global__ void aliased(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i % m] = x[i % m];\n"
    "}\n"
    "void launch(float *buf, int n) { aliased<<<1, 64>>>(buf, buf, n, 9); }\n"
    "__global__ void sync(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        __syncthreads();\n"
    "        y[i % m] = x[i % m];\n"
    "    }\n"
    "}\n"
    "#define LOOPM(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "#define LOOPM(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; (i) < (n); i += blockDim.x * gridDim.x)\n"
    "__global__ void twodefs(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    LOOPM(i, n) {\n"
    "        y[i % m] = x[i % m];\n"
    "    }\n"
    "}\n"
    "#define LANE (threadIdx.x & 31)\n"
    "#define FLAT (i + 0)\n"
    "__global__ void hidden(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i % m] = x[LANE];\n"
    "}\n"
    "__global__ void hidden_counter(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i % m] = x[FLAT];\n"
    "}\n"
    "__global__ void shadow(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    float s = 0.0f;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        s = x[i % m];\n"
    "        { float s = 1.0f; y[i % m] = s; }\n"
    "    }\n"
    "}\n";

static void refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"direct", "counter", 4, "used other than as `i % A`"},
        {"outer", "counter", 9, "grows with the counter"},
        {"atom", "atomic", 16, "a repeated trip combines again"},
        {"accum", "write", 21, "only plain `=` stores"},
        {"inplace", "memory", 26, "which the kernel writes"},
        {"carried", "write", 32, "`s` is declared outside the loop"},
        {"tid", "thread index", 39, "`threadIdx` in the loop"},
        {"after", "statement", 45, "a statement after the loop"},
        {"offset", "grid-stride loop", 49, "every trip must be run once by the grid"},
        {"divw", "divisor", 54, "the divisor `m` is written in the kernel"},
        {"scaled", "counter", 61, "`*` before the coordinate of `i`"},
        {"aliased", "store", 66, "passes `buf` as both y and x"},
        {"sync", "barrier", 72, "`__syncthreads` in the loop"},
        {"twodefs", "loop macro", 80, "defined more than once, differently"},
        {"hidden", "macro", 89, "`LANE` is a macro of the file"},
        {"hidden_counter", "macro", 94, "`FLAT` is a macro of the file"},
        {"shadow", "write", 100, "`s` is declared outside the loop"},
    };
    rwf_expect_refusals(refused, "periodic_trips", cases, HK_ARRAY_LEN(cases));
}

/* The wild suite's tin_shift, rewritten, compiles for sm_90 (skipped when bench/wild/src is
 * not extracted); the four other low-roofline kernels of issue 13 are refused (their
 * coordinates do not repeat). */
static void wild_kernels(void **state)
{
    (void)state;
    static const struct {
        const char *id, *kernel;
        bool applies;
    } ks[] = {
        {"mmcv_tin_shift_fwd", "tin_shift_forward_cuda_kernel", true},
        {"mmcv_carafe_naive_fwd", "carafe_naive_forward_cuda_kernel", false},
        {"mmcv_roi_align_fwd", "roi_align_forward_cuda_kernel", false},
        {"mmcv_furthest_point_sample", "furthest_point_sampling_forward_cuda_kernel", false},
        {"rodinia_hotspot", "calculate_temp", false},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(ks); i++) {
        fixture fx;
        if (!rwf_load_wild(ks[i].id, &fx))
            continue;
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, ks[i].kernel)};
        rw_result r;
        assert_int_equal(rw_apply_named("periodic_trips", &ctx, NULL, &r, NULL), HK_OK);
        if (r.applicable != ks[i].applies)
            fail_msg("%s: applicable %d: %s", ks[i].id, r.applicable, r.description);
        if (r.applicable) {
            assert_non_null(strstr(r.text, "CUDA_1D_KERNEL_LOOP(index, hk_pt_n)"));
            rwf_nvcc_compiles_with(&r,
                                   "template __global__ void tin_shift_forward_cuda_kernel<float>(const int, const "
                                   "float *, const int *, float *, const int, const int, const int, const int, "
                                   "const int, const int);\n",
                                   "period", ks[i].id);
        }
        rw_result_free(&r);
        unload(&fx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emitted_text),
        cmocka_unit_test(refusals),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(wild_kernels),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
