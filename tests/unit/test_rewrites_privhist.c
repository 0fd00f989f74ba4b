/* privatized_histogram read through the kernel model (issue 13): global-atomic histograms
 * spelled as templates (counter type T, bin count a template parameter), with a macro
 * count and `hist + bin`, a parameter count and an early return, or a weight in a
 * grid-stride loop, all get a per-block shared copy of the bins with the kernel's own code
 * counting into it; unknown counts and already privatized kernels are refused with their
 * line. Each emitted kernel compiles with nvcc -arch=sm_90 -cubin when nvcc is there (no GPU
 * here: none is run). */
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
    return rwf_setup("rewrites-privhist");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* privatized_histogram of kernel kname in src: applicable, every string of want in the
 * new text, which compiles. */
static void hist_applies(const char *src, const char *kname, const char *const *want)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_privatized_histogram(fx.text, fx.len, fx.m, kernel(&fx, kname), 0, &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    for (size_t i = 0; want[i]; i++) {
        if (!strstr(r.text, want[i]))
            print_message("%s: no `%s` in\n%s\n", kname, want[i], r.text);
        assert_non_null(strstr(r.text, want[i]));
    }
    /* shared bins zeroed, counted, merged with one atomic per bin (into hk_global, the
     * counter's view, or straight into the output where the bin is an expression) */
    assert_non_null(strstr(r.text, "hk_hist[hk_b] = 0;"));
    assert_non_null(strstr(r.text, "[hk_b], hk_hist[hk_b]);"));
    rwf_nvcc_compiles(r.text, kname);
    rw_result_free(&r);
    unload(&fx);
}

static void hist_refused(const char *src, const char *kname, const char *why)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_privatized_histogram(fx.text, fx.len, fx.m, kernel(&fx, kname), 0, &r), HK_OK);
    if (r.applicable || !strstr(r.description, why))
        print_message("%s: want refusal `%s`, got: %s\n", kname, why, r.description);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, why));
    rw_result_free(&r);
    unload(&fx);
}

static void templated_counter_and_count(void **state)
{
    (void)state;
    static const char *const want[] = {"constexpr int HK_BINS = NBINS;", "__shared__ T hk_hist[HK_BINS];",
                                       "const hk_bins_view bins = {hk_global, hk_hist, hk_nb};",
                                       "atomicAdd(&bins[in[i] % NBINS], (T)1);", NULL};
    hist_applies("template <typename T, int NBINS>\n"
                 "__global__ void bincount(const int *in, T *bins, int n)\n"
                 "{\n"
                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "    if (i < n)\n"
                 "        atomicAdd(&bins[in[i] % NBINS], (T)1);\n"
                 "}\n"
                 "template __global__ void bincount<unsigned int, 64>(const int *, unsigned int *, int);\n",
                 "bincount", want);
}

static void macro_count_pointer_plus(void **state)
{
    (void)state;
    /* since session 38 the temporary `bin` is read as the bin's expression (STYLES): the
     * pointer-plus target becomes the output's element */
    static const char *const want[] = {"constexpr int HK_BINS = 128;", "__shared__ unsigned int hk_hist",
                                       "const long long hk_bin = (long long)((unsigned int)data[i] % NB);",
                                       "atomicAdd(&hist[hk_bin], (unsigned int)(1u));",
                                       "atomicAdd(&hist[hk_b], hk_hist[hk_b]);", NULL};
    hist_applies("#define NB 128\n"
                 "template <typename T>\n"
                 "__global__ void bc(const T *data, unsigned int *hist, size_t n)\n"
                 "{\n"
                 "    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "    if (i < n) {\n"
                 "        unsigned int bin = (unsigned int)data[i] % NB;\n"
                 "        atomicAdd(hist + bin, 1u);\n"
                 "    }\n"
                 "}\n"
                 "template __global__ void bc<int>(const int *, unsigned int *, size_t);\n",
                 "bc", want);
}

static void parameter_count_early_return(void **state)
{
    (void)state;
    static const char *const want[] = {"constexpr int HK_BINS = 2048;",
                                       "const long long hk_nb = (long long)(nbins) < HK_BINS ? (long long)(nbins) : HK_BINS;",
                                       /* one element per thread: put on a grid-stride loop first, as
                                        * the skill's grid is smaller than the data */
                                       "gridDim.x * blockDim.x", NULL};
    hist_applies("__global__ void hist_p(const int *in, int *bins, int n, int nbins)\n"
                 "{\n"
                 "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "    if (i >= n) return;\n"
                 "    const int v = in[i];\n"
                 "    const int b = v % nbins;\n"
                 "    atomicAdd(&bins[b], 1);\n"
                 "}\n",
                 "hist_p", want);
}

/* The range only in a guard on the bin (`if (v >= 0 && v < nbins)`, a templated bincount):
 * the guard's bound is the bin count (kclass.c try_histogram). */
static void parameter_count_from_guard(void **state)
{
    (void)state;
    static const char *const want[] = {"constexpr int HK_BINS = 2048;",
                                       "const long long hk_nb = (long long)(nbins) < HK_BINS ? (long long)(nbins) : HK_BINS;",
                                       "atomicAdd(&bins[(int)v], 1u);", NULL};
    hist_applies("template <typename T>\n"
                 "__global__ void bincount(const T *in, unsigned int *bins, int n, int nbins)\n"
                 "{\n"
                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "    if (i < n) {\n"
                 "        T v = in[i];\n"
                 "        if (v >= 0 && v < nbins)\n"
                 "            atomicAdd(&bins[(int)v], 1u);\n"
                 "    }\n"
                 "}\n",
                 "bincount", want);
}

static void weighted_grid_stride(void **state)
{
    (void)state;
    static const char *const want[] = {"constexpr int HK_BINS = 64;", "__shared__ float hk_hist[HK_BINS];",
                                       "atomicAdd(&bins[in[i] % 64], w[i]);", NULL};
    hist_applies("__global__ void hist_w(const int *in, const float *w, float *bins, int n)\n"
                 "{\n"
                 "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
                 "        atomicAdd(&bins[in[i] % 64], w[i]);\n"
                 "}\n",
                 "hist_w", want);
}

/* session 48: a byte histogram on a grid-stride loop, the count the byte's own range (256;
 * on main: `line 6: the bin count is not known`), a mask's (64) and a clamp's (nbins) */
static void byte_and_mask_counts(void **state)
{
    (void)state;
    static const char *const want[] = {"constexpr int HK_BINS = 256;", "const long long hk_nb = HK_BINS;",
                                       "const hk_bins_view bins = {hk_global, hk_hist, hk_nb};",
                                       "atomicAdd(bins + b, 1u);", NULL};
    hist_applies("__global__ void hist_b(const unsigned char *data, size_t len, unsigned int *bins)\n"
                 "{\n"
                 "    size_t stride = (size_t)blockDim.x * gridDim.x;\n"
                 "    for (size_t pos = blockIdx.x * (size_t)blockDim.x + threadIdx.x; pos < len; pos += stride) {\n"
                 "        unsigned int b = data[pos];\n"
                 "        atomicAdd(bins + b, 1u);\n"
                 "    }\n"
                 "}\n",
                 "hist_b", want);
    static const char *const want_mask[] = {"constexpr int HK_BINS = 64;", NULL};
    hist_applies("__global__ void hist_m(const int *keys, unsigned int *bins, int n)\n"
                 "{\n"
                 "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
                 "        atomicAdd(&bins[(keys[i] >> 4) & 63], 1u);\n"
                 "}\n",
                 "hist_m", want_mask);
    /* a float histogram clamped into its bins, `min(max(b, 0), nbins - 1)`: nbins, a
     * parameter, capped (main: `the bin count is not known`) */
    static const char *const want_clamp[] = {
        "const long long hk_nb = (long long)(nbins) < HK_BINS ? (long long)(nbins) : HK_BINS;",
        "b = min(max(b, 0), nbins - 1);", NULL};
    hist_applies("__global__ void hist_c(const float *x, int *hist, int n, int nbins, float lo, float hi)\n"
                 "{\n"
                 "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
                 "        int b = (int)((x[i] - lo) / (hi - lo) * nbins);\n"
                 "        b = min(max(b, 0), nbins - 1);\n"
                 "        atomicAdd(&hist[b], 1);\n"
                 "    }\n"
                 "}\n",
                 "hist_c", want_clamp);
}

/* the bin is a value read from memory with nothing bounding it */
static void unknown_count_refused(void **state)
{
    (void)state;
    hist_refused("__global__ void hist_u(const int *in, unsigned int *bins, int n)\n"
                 "{\n"
                 "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
                 "        atomicAdd(&bins[in[i]], 1u);\n"
                 "}\n",
                 "hist_u", "line 4: the bin count is not known");
}

/* counted in shared memory already (per-block partial histograms written out) */
static void privatized_refused(void **state)
{
    (void)state;
    hist_refused("#define NB 256\n"
                 "__global__ void hist_s(const unsigned int *in, unsigned int *partial, int n)\n"
                 "{\n"
                 "    __shared__ unsigned int s[NB];\n"
                 "    for (int b = threadIdx.x; b < NB; b += blockDim.x) s[b] = 0;\n"
                 "    __syncthreads();\n"
                 "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
                 "        atomicAdd(&s[in[i] % NB], 1u);\n"
                 "    __syncthreads();\n"
                 "    for (int b = threadIdx.x; b < NB; b += blockDim.x) partial[blockIdx.x * NB + b] = s[b];\n"
                 "}\n",
                 "hist_s", "already counted in __shared__ memory");
}

/* a count the caller gives replaces an unknown one; too many bins for 32 KiB are refused */
static void given_count(void **state)
{
    (void)state;
    static const char src[] =
        "template <typename T>\n"
        "__global__ void hist_g(const int *in, T *bins, int n)\n"
        "{\n"
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
        "        atomicAdd(&bins[in[i]], (T)1);\n"
        "}\n";
    fixture fx;
    load_text(src, &fx);
    size_t k = kernel(&fx, "hist_g");
    rw_result r;
    assert_int_equal(rw_privatized_histogram(fx.text, fx.len, fx.m, k, 512, &r), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "constexpr int HK_BINS = 512;"));
    rw_result_free(&r);
    assert_int_equal(rw_privatized_histogram(fx.text, fx.len, fx.m, k, 16384, &r), HK_OK);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, "shared-memory budget"));
    rw_result_free(&r);
    unload(&fx);
}

static int privatized(const fixture *fx, size_t k, rw_result *r)
{
    return rw_privatized_histogram(fx->text, fx->len, fx->m, k, 0, r);
}

/* every allocation of the model path may fail: HK_ENOMEM, nothing left behind */
static void model_path_survives_alloc_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text("#define NB 64\n"
              "__global__ void h(const int *in, unsigned int *bins, int n)\n"
              "{\n"
              "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
              "        atomicAdd(&bins[in[i] % NB], 1u);\n"
              "}\n",
              &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "h"), privatized);
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(templated_counter_and_count),
        cmocka_unit_test(macro_count_pointer_plus),
        cmocka_unit_test(parameter_count_early_return),
        cmocka_unit_test(parameter_count_from_guard),
        cmocka_unit_test(weighted_grid_stride),
        cmocka_unit_test(byte_and_mask_counts),
        cmocka_unit_test(unknown_count_refused),
        cmocka_unit_test(privatized_refused),
        cmocka_unit_test(given_count),
        cmocka_unit_test(model_path_survives_alloc_failures),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
