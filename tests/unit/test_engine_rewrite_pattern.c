/* Structural pattern rewrites (rewrites/rewrite_pattern.h) on the suite's bench kernels and on
 * the spelling variants and near-misses in tests/data/rewrite_pattern/: every applicable
 * rewrite compiles with the real nvcc (-arch=sm_90 -cubin, several per run: nvcc_batch.h) and
 * has the expected structure;
 * near-misses are not applicable, with their reason; every rewrite over every suite kernel
 * returns without crashing or leaking (also under injected allocation failures); the new
 * bench kernels' specs load and their benchmark programs (and those of the rewrites) compile.
 * With HK_RWP_DUMP_DIR set, only the suite rewrites run and are written there for
 * tests/gpu/rewrite_pattern_check.sh. nvcc missing: compile checks say so. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "runners/runner.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_pattern.h"
#include "measure/harness.h"
#include "spec/spec.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "nvcc_batch.h" /* after NVCC */
#define BENCH HK_SOURCE_DIR "/bench/kernels"
#define DATA HK_TEST_DATA "/rewrite_pattern"
#define STYLES HK_TEST_DATA "/styles"

#include "rw_fixture.h"
#include "suite_compile.h" /* compile_programs_batched */

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrite-pattern");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

enum rwp { RWP_TRANSPOSE, RWP_REDUCE, RWP_HIST, RWP_SOFTMAX, RWP_LAYERNORM, RWP_GEMM, RWP_COUNT };
static const char *const rwp_names[] = {"transpose", "reduce", "histogram", "softmax", "layernorm", "gemm"};

static int apply(enum rwp which, const fixture *fx, size_t k, rw_result *r)
{
    switch (which) {
    case RWP_TRANSPOSE: return rw_tiled_transpose(fx->text, fx->len, fx->m, k, 32, r);
    case RWP_REDUCE: return rw_warp_reduce(fx->text, fx->len, fx->m, k, r);
    case RWP_HIST: return rw_privatized_histogram(fx->text, fx->len, fx->m, k, 0, r);
    case RWP_SOFTMAX: return rw_online_softmax(fx->text, fx->len, fx->m, k, r);
    case RWP_LAYERNORM: return rw_online_layernorm(fx->text, fx->len, fx->m, k, r);
    case RWP_GEMM: return rw_tiled_gemm(fx->text, fx->len, fx->m, k, 128, 128, 8, r);
    default: return HK_EINVAL;
    }
}

/* Queues text's compile check (nvcc_batch.h); the test that queued it ends with
 * nvb_compile_all, where every queued text must compile. */
static void queue_compile(const char *text, const char *tag)
{
    nvb_add(tmpdir, tag, text, strlen(text));
}

/* The rewrite's text re-analyses cleanly, keeps the kernel's signature, and contains every
 * string in want (NULL-terminated). */
static void check_structure(const fixture *fx, size_t k, const rw_result *r, const char *const *want)
{
    assert_true(r->applicable);
    assert_non_null(r->text);
    assert_int_equal(strlen(r->text), r->len);
    an_model *m;
    assert_int_equal(an_analyze(r->text, r->len, &m), HK_OK);
    assert_false(m->has_errors);
    long k2 = an_model_find_kernel(m, fx->m->funcs[k].name);
    assert_true(k2 >= 0);
    assert_string_equal(m->funcs[k2].signature, fx->m->funcs[k].signature);
    an_model_free(m);
    for (size_t i = 0; want && want[i]; i++) {
        if (!strstr(r->text, want[i]))
            print_message("missing `%s` in:\n%s\n", want[i], r->text);
        assert_non_null(strstr(r->text, want[i]));
    }
    /* the old body is gone: no statement of the form `if (i < n)` guards the atomic etc. is
     * checked per case; here only that the text changed */
    assert_true(r->len != fx->len || memcmp(r->text, fx->text, fx->len) != 0);
}

/* Writes a rewritten suite kernel for the GPU check script when HK_RWP_DUMP_DIR is set. */
static void dump(const char *kname, enum rwp which, const rw_result *r)
{
    const char *dir = getenv("HK_RWP_DUMP_DIR");
    if (!dir || !*dir)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.%s.cu", dir, kname, rwp_names[which]);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(r->text, f);
    fclose(f);
}

/* Applies which to kernel kname of file path; expects it applicable with the strings in want
 * (and, for a fixture, compiling with nvcc), or not applicable with why_part in the reason. */
static void expect(const char *path, const char *kname, enum rwp which, const char *const *want,
                   const char *why_part)
{
    fixture fx;
    load_path(path, &fx);
    size_t k = kernel(&fx, kname);
    rw_result r;
    int rc = apply(which, &fx, k, &r);
    assert_int_equal(rc, HK_OK);
    assert_non_null(r.description);
    print_message("%s/%s: %s\n", kname, rwp_names[which], r.description);
    if (why_part) {
        assert_false(r.applicable);
        assert_null(r.text);
        if (!strstr(r.description, why_part))
            print_message("expected reason containing `%s`\n", why_part);
        assert_non_null(strstr(r.description, why_part));
    } else {
        check_structure(&fx, k, &r, want);
        char tag[256];
        snprintf(tag, sizeof tag, "%s_%s", kname, rwp_names[which]);
        /* the suite kernels' rewrites are compiled inside their benchmark programs by
         * test_rewrites_in_harness; compiling them alone as well only costs time */
        if (strncmp(path, BENCH, strlen(BENCH)) != 0)
            queue_compile(r.text, tag);
    }
    rw_result_free(&r);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* full tiles with HK_TPB threads: fixed-count unrolled copies without bounds checks; the
 * guarded loops for edge tiles and other block sizes */
static const char *const want_transpose[] = {"__shared__", "[HK_TILE + 1]", "constexpr int HK_TILE = 32;",
                                             "__syncthreads()", "hk_tile[hk_tx][hk_ty]",
                                             "hk_nthreads == HK_TPB && (HK_TILE * HK_TILE) % HK_TPB == 0",
                                             "for (int hk_k = 0; hk_k < HK_TILE * HK_TILE / HK_TPB; hk_k++)",
                                             "hk_tile[hk_e % HK_TILE][hk_e / HK_TILE]", NULL};

static void test_transpose(void **state)
{
    expect(BENCH "/transpose.cu", "transpose", RWP_TRANSPOSE, want_transpose, NULL);
    const char *const want_double[] = {"__shared__ double hk_tile[HK_TILE][HK_TILE + 1]",
                                       "src[(size_t)hk_y * hk_w + hk_x]", "dst[(size_t)hk_x * hk_h + hk_y]", NULL};
    expect(DATA "/transpose_variants.cu", "t_early", RWP_TRANSPOSE, want_double, NULL);
    const char *const want_int[] = {"__shared__ int hk_tile", "hk_w = (cols), hk_h = (rows)", NULL};
    expect(DATA "/transpose_variants.cu", "t_block", RWP_TRANSPOSE, want_int, NULL);
    expect(DATA "/transpose_variants.cu", "copy2d", RWP_TRANSPOSE, NULL, "a copy, not a transpose");
    expect(DATA "/transpose_variants.cu", "t_wrong_stride", RWP_TRANSPOSE, NULL, "the write is not");
    expect(DATA "/transpose_variants.cu", "t_1d", RWP_TRANSPOSE, NULL, "not a 2D kernel");
    expect(BENCH "/stencil2d.cu", "stencil2d", RWP_TRANSPOSE, NULL, "not one copy");

    /* the tile is a tunable of the new text, and out-of-range tiles are refused */
    fixture fx;
    load_path(BENCH "/transpose.cu", &fx);
    size_t k = kernel(&fx, "transpose");
    rw_result r;
    assert_int_equal(rw_tiled_transpose(fx.text, fx.len, fx.m, k, 16, &r), HK_OK);
    assert_non_null(strstr(r.text, "constexpr int HK_TILE = 16;"));
    an_model *m;
    assert_int_equal(an_analyze(r.text, r.len, &m), HK_OK);
    bool found = false;
    for (size_t i = 0; i < m->n_tunables; i++)
        if (strcmp(m->tunables[i].name, "HK_TILE") == 0) {
            found = true;
            assert_true(m->tunables[i].in_array);
            assert_string_equal(m->tunables[i].value, "16");
        }
    assert_true(found);
    an_model_free(m);
    rw_result_free(&r);
    assert_int_equal(rw_tiled_transpose(fx.text, fx.len, fx.m, k, 12, &r), HK_EINVAL);
    assert_int_equal(rw_tiled_transpose(fx.text, fx.len, fx.m, k, 128, &r), HK_EINVAL);
    assert_int_equal(rw_tiled_transpose(fx.text, fx.len, fx.m, 99, 32, &r), HK_EINVAL);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
    nvb_compile_all(tmpdir);
}

static void test_reduce(void **state)
{
    /* float sums over P[i] loads get a float4 loop; the scalar loop starts where it stopped */
    const char *const want_sum[] = {"__shfl_down_sync", "hk_part[32]", "hk_acc += (float)(in[i]);",
                                    "atomicAdd(out, hk_acc)",
                                    "const float4 hk_q0 = reinterpret_cast<const float4 *>(in)[hk_v];",
                                    "for (long long hk_i = hk_n4 * 4 + (long long)blockIdx.x", NULL};
    expect(BENCH "/reduce_sum.cu", "reduce_sum", RWP_REDUCE, want_sum, NULL);
    const char *const want_sq[] = {"hk_acc += (float)(x[i] * x[i]);", "const long i = (long)hk_i;",
                                   "(float)(hk_q0.w * hk_q0.w)",
                                   "hk_i += (long long)hk_blocks * blockDim.x", NULL};
    expect(DATA "/reduce_variants.cu", "sum_squares", RWP_REDUCE, want_sq, NULL);
    const char *const want_max[] = {"int hk_acc = (-2147483647 - 1);", "atomicMax(&out[0], hk_acc)",
                                    "hk_acc = (hk_o > hk_acc) ? hk_o : hk_acc", NULL};
    expect(DATA "/reduce_variants.cu", "max_int", RWP_REDUCE, want_max, NULL);
    const char *const want_min[] = {"unsigned int hk_acc = 0xffffffffu;", "atomicMin(out, hk_acc)", NULL};
    expect(DATA "/reduce_variants.cu", "min_u", RWP_REDUCE, want_min, NULL);
    const char *const want_count[] = {"if (x[i] > 0.0f) hk_acc += (unsigned long long)(1ull);", NULL};
    expect(DATA "/reduce_variants.cu", "count_positive", RWP_REDUCE, want_count, NULL);
    const char *const want_dot[] = {"double hk_acc = 0;", "__shfl_down_sync", NULL};
    expect(DATA "/reduce_variants.cu", "ddot", RWP_REDUCE, want_dot, NULL);
    const char *const want_tree[] = {"hk_acc += (float)(in[i]);", "__shfl_down_sync", "atomicAdd(out, hk_acc)", NULL};
    expect(DATA "/reduce_variants.cu", "tree_sum", RWP_REDUCE, want_tree, NULL);
    expect(DATA "/reduce_variants.cu", "tree_partial", RWP_REDUCE, NULL, "per-block partial");
    expect(DATA "/reduce_variants.cu", "scatter", RWP_REDUCE, NULL, "depends on the index");
    expect(DATA "/reduce_variants.cu", "scale", RWP_REDUCE, NULL, "not atomicAdd");
    expect(BENCH "/histogram.cu", "histogram", RWP_REDUCE, NULL, "depends on the index");
    nvb_compile_all(tmpdir);
}

static void test_histogram(void **state)
{
    const char *const want_bench[] = {"constexpr int HK_BINS = 256;", "__shared__ unsigned int hk_hist[HK_BINS]",
                                      "(long long)(data[i])", "atomicAdd(&bins[hk_b], hk_hist[hk_b])", NULL};
    expect(BENCH "/histogram.cu", "histogram", RWP_HIST, want_bench, NULL);
    const char *const want_w[] = {"constexpr int HK_BINS = 64;", "__shared__ float hk_hist", "(float)(w[i])",
                                  NULL};
    expect(DATA "/hist_variants.cu", "weighted_hist", RWP_HIST, want_w, NULL);
    const char *const want_rt[] = {"constexpr int HK_BINS = 256;", "atomicAdd(&bins[hk_bin]", NULL};
    expect(DATA "/hist_variants.cu", "hist_runtime", RWP_HIST, want_rt, NULL);
    expect(DATA "/hist_variants.cu", "one_bin", RWP_HIST, NULL, "does not depend on the index");
    /* the bin in a temporary declared just before the atomic: its expression is the bin */
    const char *const want_local[] = {"constexpr int HK_BINS = 256;", "const long long hk_bin = (long long)((int)(x[i] * 16.0f));",
                                      NULL};
    expect(DATA "/hist_variants.cu", "hist_local", RWP_HIST, want_local, NULL);
    expect(DATA "/hist_variants.cu", "hist_local_value", RWP_HIST, NULL, "line 46: the bin count is not known");
    expect(BENCH "/reduce_sum.cu", "reduce_sum", RWP_HIST, NULL, "not `&hist[bin]`");

    /* an explicit bin count, and one too large for shared memory */
    fixture fx;
    load_path(BENCH "/histogram.cu", &fx);
    size_t k = kernel(&fx, "histogram");
    rw_result r;
    assert_int_equal(rw_privatized_histogram(fx.text, fx.len, fx.m, k, 1024, &r), HK_OK);
    assert_non_null(strstr(r.text, "constexpr int HK_BINS = 1024;"));
    rw_result_free(&r);
    assert_int_equal(rw_privatized_histogram(fx.text, fx.len, fx.m, k, 16384, &r), HK_OK);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, "shared-memory budget"));
    rw_result_free(&r);
    assert_int_equal(rw_privatized_histogram(fx.text, fx.len, fx.m, k, -1, &r), HK_EINVAL);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
    nvb_compile_all(tmpdir);
}

static void test_softmax(void **state)
{
    /* the row in registers (HK_ROW_VEC float4 per lane) with the three-pass fallback */
    const char *const want_bench[] = {"__shfl_down_sync(hk_mask, hk_m, hk_off)", "float4",
                                      "__shfl_sync(hk_mask, hk_m, 0, 32)", "__shfl_sync(hk_mask, hk_s, 0, 32)",
                                      "hk_row += (long long)gridDim.x * hk_nwarps",
                                      "constexpr int HK_ROW_VEC = 8;", "float4 hk_r[HK_ROW_VEC];",
                                      "hk_r[hk_k].x = expf(hk_r[hk_k].x - hk_m);", "const float hk_inv = 1.0f / hk_s;",
                                      "hk_y[hk_c] = expf(hk_x[hk_c] - hk_m) * hk_inv;", NULL};
    expect(BENCH "/softmax.cu", "softmax", RWP_SOFTMAX, want_bench, NULL);
    const char *const want_direct[] = {"const float *hk_x = logits + hk_row * hk_cols;", "__expf(", "(n_rows)",
                                       NULL};
    expect(DATA "/rows_variants.cu", "softmax_direct", RWP_SOFTMAX, want_direct, NULL);
    expect(DATA "/rows_variants.cu", "softmax_guarded", RWP_SOFTMAX, NULL, NULL);
    expect(DATA "/rows_variants.cu", "log_softmax", RWP_SOFTMAX, NULL, "write loop");
    expect(DATA "/rows_variants.cu", "softmax_double", RWP_SOFTMAX, NULL, "not float");
    expect(BENCH "/layernorm.cu", "layernorm", RWP_SOFTMAX, NULL, "running maximum");
    expect(BENCH "/vector_add.cu", "vector_add", RWP_SOFTMAX, NULL, "no column loop");
    nvb_compile_all(tmpdir);
}

static void test_layernorm(void **state)
{
    const char *const want_bench[] = {"__shfl_down_sync(hk_mask, hk_sum, hk_off)", "hk_sq +=",
                                      "__shfl_sync(hk_mask, hk_sq, 0, 32)",
                                      "1.0f / sqrtf(hk_var + (eps))", "hk_g.x", "hk_b.w",
                                      "(hk_x[hk_c] - hk_mean) * hk_rstd * gamma[hk_c] + beta[hk_c]", NULL};
    expect(BENCH "/layernorm.cu", "layernorm", RWP_LAYERNORM, want_bench, NULL);
    const char *const want_plain[] = {"rsqrtf(hk_var + (1e-5f))", "hk_y[hk_c] = (hk_x[hk_c] - hk_mean) * hk_rstd;",
                                      NULL};
    expect(DATA "/rows_variants.cu", "layernorm_plain", RWP_LAYERNORM, want_plain, NULL);
    const char *const want_gf[] = {"hk_rstd * w[hk_c] + b[hk_c]", NULL};
    expect(DATA "/rows_variants.cu", "layernorm_gamma_first", RWP_LAYERNORM, want_gf, NULL);
    expect(DATA "/rows_variants.cu", "rmsnorm_like", RWP_LAYERNORM, NULL, "first column loop");
    expect(BENCH "/softmax.cu", "softmax", RWP_LAYERNORM, NULL, "sum for the mean");
    nvb_compile_all(tmpdir);
}

static void test_gemm(void **state)
{
    const char *const want_bench[] = {"__shared__ float4 hk_as_v[HK_BK * (HK_BM + 4) / 4]", "const float4 hk_v = *reinterpret_cast<const float4 *>(&hk_as[hk_kk]", "constexpr int HK_BM = 128;",
                                      "hk_acc[hk_i][hk_j] += hk_a[hk_i] * hk_b[hk_j]",
                                      "C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];",
                                      "if (hk_nthreads == HK_THREADS)", NULL};
    expect(BENCH "/sgemm.cu", "sgemm", RWP_GEMM, want_bench, NULL);
    const char *const want_ld[] = {"A[(size_t)hk_gr * (lda) + hk_gk]", "B[(size_t)hk_gk * (ldb) + hk_gc]",
                                   "C[r * ldc + c] = sum;", NULL};
    expect(DATA "/gemm_variants.cu", "gemm_ld", RWP_GEMM, want_ld, NULL);
    const char *const want_d[] = {"__shared__ double2 hk_bs_v", "out[(size_t)row * n + col] = acc + bias[col];", NULL};
    expect(DATA "/gemm_variants.cu", "dgemm_bias", RWP_GEMM, want_d, NULL);
    /* A^T * B: A's tile is fetched along k (A[k * M + row], coalesced) */
    const char *const want_at[] = {"A[(size_t)hk_gk * (M) + hk_gr]", "hk_as[hk_e / HK_BM][hk_e % HK_BM] = hk_ra[hk_l];",
                                   "acc += A[(size_t)hk_kk * (M) + row] * B[(size_t)hk_kk * (N) + col];", NULL};
    expect(DATA "/gemm_variants.cu", "gemm_at", RWP_GEMM, want_at, NULL);
    expect(DATA "/gemm_variants.cu", "gemm_a_skew", RWP_GEMM, NULL, "A is not read as");
    expect(DATA "/gemm_variants.cu", "gemm_local", RWP_GEMM, NULL, "local variable");
    expect(BENCH "/transpose.cu", "transpose", RWP_GEMM, NULL, "accumulator");
    /* issue 13's spellings (tests/data/styles): x indexing rows; no accumulator, the k loop
     * summing into C after a beta scaling, sizes as macros; a rank-k update's transposed B */
    const char *const want_xrows[] = {"hk_m = (M), hk_n = (N), hk_k = (K);", "const unsigned x = (unsigned)hk_gr;",
                                      "const unsigned y = (unsigned)hk_gc;",
                                      "C[x * N + y] = alpha * tmp + beta * C[x * N + y];", NULL};
    expect(STYLES "/gemm.cu", "gemm_xrows_unsigned", RWP_GEMM, want_xrows, NULL);
    const char *const want_mem[] = {"hk_m = (NI), hk_n = (NJ), hk_k = (NK);", "float hk_ksum = hk_acc[hk_i][hk_j];",
                                    "c[i * NJ + j] *= beta; c[i * NJ + j] += alpha * hk_ksum;",
                                    "hk_ksum += a[(size_t)i * (NK) + hk_kk] * b[(size_t)hk_kk * (NJ) + j];", NULL};
    expect(STYLES "/gemm.cu", "gemm_kloop_global", RWP_GEMM, want_mem, NULL);
    const char *const want_mem_t[] = {"hk_m = (ni), hk_n = (nj), hk_k = (nk);", "const size_t i = (size_t)hk_gr;",
                                      "c[i * nj + j] *= beta; c[i * nj + j] += alpha * hk_ksum;", NULL};
    expect(STYLES "/gemm.cu", "gemm_kloop_global_sizet", RWP_GEMM, want_mem_t, NULL);
    const char *const want_syrk[] = {"a[(size_t)hk_gc * (m) + hk_gk]", "hk_bs[hk_e % HK_BK][hk_e / HK_BK] = hk_rb[hk_l];",
                                     "hk_ksum += a[(size_t)i * (m) + hk_kk] * a[(size_t)j * (m) + hk_kk];", NULL};
    expect(STYLES "/gemm.cu", "syrk_kloop_global", RWP_GEMM, want_syrk, NULL);
    /* the local accumulator summed with fmaf */
    const char *const want_fma[] = {"a[(size_t)hk_gc * (m) + hk_gk]", "c[i * n + j] = alpha * acc + beta * c[i * n + j];",
                                    NULL};
    expect(STYLES "/gemm.cu", "syrk_local", RWP_GEMM, want_fma, NULL);
    expect(DATA "/gemm_variants.cu", "gemm_b_skew", RWP_GEMM, NULL, "B is not read as B[k * ldb + col]");
    /* uniform factors in the k loop's product (a 2mm chain's `s += alpha * A[..] * B[..]`;
     * session 47's probes): the tiles sum A * B, the sum scaled once before the epilogue */
    const char *const want_scaled[] = {"float s = hk_acc[hk_i][hk_j];",
                                       "s = alpha * s; tmp[(size_t)row * nj + col] = s;",
                                       "s += A[(size_t)row * (nk) + hk_kk] * B[(size_t)hk_kk * (nj) + col];", NULL};
    expect(DATA "/gemm_variants.cu", "gemm_scaled_local", RWP_GEMM, want_scaled, NULL);
    const char *const want_scaled_d[] = {"__shared__ double2 hk_bs_v", "acc = 2.0 * w * acc; c[i * n + j] = acc;",
                                         NULL};
    expect(DATA "/gemm_variants.cu", "dgemm_scaled_last", RWP_GEMM, want_scaled_d, NULL);
    expect(DATA "/gemm_variants.cu", "gemm_scaled_written", RWP_GEMM, NULL, "the k loop is not `acc += A[...] * B[...];`");
    static const char mem_why[] = "the guarded body is not `C[...] *= s;` (optional) then a k loop";
    expect(DATA "/gemm_variants.cu", "gemm_mem_other", RWP_GEMM, NULL, mem_why);
    expect(DATA "/gemm_variants.cu", "gemm_mem_reads_c", RWP_GEMM, NULL, mem_why);
    expect(DATA "/gemm_variants.cu", "gemm_mem_call", RWP_GEMM, NULL, mem_why);
    expect(DATA "/gemm_variants.cu", "gemm_mem_moves", RWP_GEMM, NULL, mem_why);
    /* no bounds check: M and N are the launch's, and the version keeps the spec's grid */
    const char *const want_grid[] = {"hk_m = ((long long)gridDim.y * blockDim.y), hk_n = ((long long)gridDim.x * "
                                     "blockDim.x), hk_k = (K);",
                                     "C[row * N + col] = acc;", NULL};
    expect(DATA "/gemm_variants.cu", "gemm_grid", RWP_GEMM, want_grid, NULL);
    expect(DATA "/gemm_variants.cu", "gemm_grid_xrows", RWP_GEMM, NULL,
           "no bounds check, and C's rows are not the .y index");
    expect(DATA "/gemm_variants.cu", "gemm_grid_half", RWP_GEMM, NULL,
           "M is not known from the kernel (no guard or loop bounds it) and the launch does not give it exactly");

    fixture fx;
    load_path(BENCH "/sgemm.cu", &fx);
    size_t k = kernel(&fx, "sgemm");
    rw_result r;
    assert_int_equal(rw_tiled_gemm(fx.text, fx.len, fx.m, k, 64, 64, 16, &r), HK_OK);
    assert_true(r.applicable);
    assert_false(r.keeps_grid);
    assert_non_null(strstr(r.text, "constexpr int HK_BK = 16;"));
    queue_compile(r.text, "sgemm_64x64x16");
    rw_result_free(&r);
    assert_int_equal(rw_tiled_gemm(fx.text, fx.len, fx.m, k, 96, 64, 8, &r), HK_EINVAL);
    assert_int_equal(rw_tiled_gemm(fx.text, fx.len, fx.m, k, 64, 64, 4, &r), HK_EINVAL);
    unload(&fx);
    load_path(DATA "/gemm_variants.cu", &fx);
    assert_int_equal(rw_tiled_gemm(fx.text, fx.len, fx.m, kernel(&fx, "gemm_grid"), 64, 64, 8, &r), HK_OK);
    assert_true(r.applicable);
    assert_true(r.keeps_grid);   /* another grid would be another matrix */
    rw_result_free(&r);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
    nvb_compile_all(tmpdir);
}

/* The benchmark programs spec_and_harness queued, compiled by harness_flush: in few nvcc
 * runs (suite_compile.h compile_programs_batched: -cubin, programs in namespaces of their
 * own, each compiled alone when its batch fails, so that a failure names its program). */
static job harness_jobs[16];
static size_t n_harness_jobs;

/* The spec of a suite kernel loads without errors, and the generated benchmark program for
 * candidate (the kernel file itself, or a rewrite of it) compiles with nvcc (queued: see
 * harness_flush; tag names it). */
static void spec_and_harness(const char *kname, const char *candidate, const char *tag)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.bench.json", BENCH, kname);
    spec *sp = NULL;
    spec_diags d = {0};
    int rc = spec_load(path, &sp, &d);
    for (size_t i = 0; i < d.n; i++) {
        char *line = spec_diag_format(&d.items[i], path);
        print_message("%s\n", line ? line : "?");
        hk_free(line);
    }
    assert_int_equal(rc, HK_OK);
    assert_int_equal(d.n_errors, 0);
    assert_string_equal(sp->kernel, kname);
    spec_diags_free(&d);
    if (access(NVCC, X_OK) == 0) {
        assert_true(n_harness_jobs < HK_ARRAY_LEN(harness_jobs));
        job *j = &harness_jobs[n_harness_jobs++];
        memset(j, 0, sizeof *j);
        j->s = sp;
        j->source = hk_strdup(candidate);
        j->tag = hk_strdup(tag);
        assert_true(j->source && j->tag);
    } else {
        print_message("note: no nvcc at %s, harness compile of %s skipped\n", NVCC, kname);
        spec_free(sp);
    }
}

/* Compiles the queued programs; every one must compile. */
static void harness_flush(void)
{
    int failures = n_harness_jobs ? compile_programs_batched(harness_jobs, n_harness_jobs) : 0;
    for (size_t i = 0; i < n_harness_jobs; i++) {
        spec_free((spec *)harness_jobs[i].s);
        hk_free((char *)harness_jobs[i].source);
        hk_free(harness_jobs[i].tag);
    }
    n_harness_jobs = 0;
    assert_int_equal(failures, 0);
}

/* The new naive bench kernels: specs valid, harness programs compile. */
static void test_new_bench_kernels(void **state)
{
    static const char *const names[] = {"dot", "gemv", "matadd2d", "rmsnorm", "batched_gemm"};
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++) {
        char src[1024];
        snprintf(src, sizeof src, "%s/%s.cu", BENCH, names[i]);
        spec_and_harness(names[i], src, names[i]);
    }
    harness_flush();
    /* dot is a reduction the warp-reduce rewrite takes */
    const char *const want_dot[] = {"hk_acc += (float)(a[i] * b[i]);", "__shfl_down_sync", NULL};
    expect(BENCH "/dot.cu", "dot", RWP_REDUCE, want_dot, NULL);
    /* session 48: the batched GEMM's tiles, every batch's in one grid-stride range, each
     * batch's matrices through pointers moved by its strides in long long */
    const char *const want_bgemm[] = {"const long long hk_nb = hk_m > 0 && hk_n > 0 ? (long long)(batch) : 0;",
                                      "const long long hk_tiles = hk_tiles_n * ((hk_m + HK_BM - 1) / HK_BM) * hk_nb;",
                                      "const float *const hk_za = A + hk_z * M*K;",
                                      "float *const hk_zc = C + hk_z * M*N;",
                                      "hk_zc[(size_t)hk_row * (N) + hk_col] = hk_sum;", NULL};
    expect(BENCH "/batched_gemm.cu", "batched_gemm", RWP_GEMM, want_bgemm, NULL);
    expect(BENCH "/rmsnorm.cu", "rmsnorm", RWP_LAYERNORM, NULL, "first column loop");
    assert_int_equal(hk_alloc_live(), 0);
}

/* The rewrites of the suite kernels the GPU check judges (tests/gpu/rewrite_pattern_check.sh):
 * each applies with the default tunables; with HK_RWP_DUMP_DIR set, each is written there as
 * <kernel>.<rewrite>.cu. */
static const struct {
    const char *kernel;
    enum rwp which;
} suite_rewrites[] = {{"transpose", RWP_TRANSPOSE}, {"reduce_sum", RWP_REDUCE}, {"dot", RWP_REDUCE},
                      {"histogram", RWP_HIST}, {"softmax", RWP_SOFTMAX}, {"layernorm", RWP_LAYERNORM},
                      {"sgemm", RWP_GEMM}};

static void test_suite_rewrites(void **state)
{
    for (size_t c = 0; c < HK_ARRAY_LEN(suite_rewrites); c++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.cu", BENCH, suite_rewrites[c].kernel);
        fixture fx;
        load_path(path, &fx);
        rw_result r;
        assert_int_equal(apply(suite_rewrites[c].which, &fx, kernel(&fx, suite_rewrites[c].kernel), &r), HK_OK);
        if (!r.applicable)
            print_message("%s\n", r.description);
        assert_true(r.applicable);
        dump(suite_rewrites[c].kernel, suite_rewrites[c].which, &r);
        rw_result_free(&r);
        unload(&fx);
    }
    assert_int_equal(hk_alloc_live(), 0);
}

/* Each rewrite of a suite kernel, inside the benchmark program its spec generates,
 * compiles: the rewritten body still fits the spec's argument list. */
static void test_rewrites_in_harness(void **state)
{
#define cases suite_rewrites
    for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
        char path[1024], cand[1024];
        snprintf(path, sizeof path, "%s/%s.cu", BENCH, cases[c].kernel);
        fixture fx;
        load_path(path, &fx);
        rw_result r;
        assert_int_equal(apply(cases[c].which, &fx, kernel(&fx, cases[c].kernel), &r), HK_OK);
        assert_true(r.applicable);
        snprintf(cand, sizeof cand, "%s/cand-%s.cu", tmpdir, cases[c].kernel);
        FILE *f = fopen(cand, "w");
        assert_non_null(f);
        fputs(r.text, f);
        fclose(f);
        char tag[64];
        snprintf(tag, sizeof tag, "rw-%s", cases[c].kernel);
        spec_and_harness(cases[c].kernel, cand, tag);
        rw_result_free(&r);
        unload(&fx);
    }
#undef cases
    harness_flush();
    assert_int_equal(hk_alloc_live(), 0);
}

/* Every rewrite on every kernel of every suite file: HK_OK (applicable or not) or HK_EPARSE,
 * a description always, never a crash or a leak. */
static void test_all_suite_kernels(void **state)
{
    DIR *d = opendir(BENCH);
    assert_non_null(d);
    struct dirent *de;
    size_t n_files = 0, n_applicable = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 4 || strcmp(de->d_name + l - 3, ".cu") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", BENCH, de->d_name);
        fixture fx;
        load_path(path, &fx);
        n_files++;
        for (size_t k = 0; k < fx.m->n_funcs; k++) {
            if (fx.m->funcs[k].kind != AN_KERNEL)
                continue;
            for (int w = 0; w < RWP_COUNT; w++) {
                rw_result r;
                int rc = apply((enum rwp)w, &fx, k, &r);
                assert_true(rc == HK_OK || rc == HK_EPARSE);
                assert_non_null(r.description);
                if (r.applicable) {
                    n_applicable++;
                    print_message("%-14s %-10s applicable\n", fx.m->funcs[k].name, rwp_names[w]);
                }
                rw_result_free(&r);
            }
            /* launchers are not kernels: refused */
        }
        for (size_t k = 0; k < fx.m->n_funcs; k++)
            if (fx.m->funcs[k].kind != AN_KERNEL) {
                rw_result r;
                for (int w = 0; w < RWP_COUNT; w++)
                    assert_int_equal(apply((enum rwp)w, &fx, k, &r), HK_EINVAL);
            }
        unload(&fx);
    }
    closedir(d);
    assert_true(n_files >= 10);
    assert_true(n_applicable >= 4);
    assert_int_equal(hk_alloc_live(), 0);
}

/* The rewrite test_alloc_failures is on (rwf_rewrite takes no rewrite argument). */
static enum rwp alloc_which;

static int apply_alloc_which(const fixture *fx, size_t k, rw_result *r)
{
    return apply(alloc_which, fx, k, r);
}

/* Allocation failures anywhere inside a rewrite give HK_ENOMEM (or a clean result), never a
 * crash or a leak. */
static void test_alloc_failures(void **state)
{
    static const struct {
        const char *file, *kernel;
        enum rwp which;
    } cases[] = {{"transpose.cu", "transpose", RWP_TRANSPOSE}, {"reduce_sum.cu", "reduce_sum", RWP_REDUCE},
                 {"histogram.cu", "histogram", RWP_HIST}, {"softmax.cu", "softmax", RWP_SOFTMAX},
                 {"layernorm.cu", "layernorm", RWP_LAYERNORM}, {"sgemm.cu", "sgemm", RWP_GEMM}};
    for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", BENCH, cases[c].file);
        fixture fx;
        load_path(path, &fx);
        alloc_which = cases[c].which;
        rwf_survives_alloc_failures(&fx, kernel(&fx, cases[c].kernel), apply_alloc_which);
        unload(&fx);
    }
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    /* HK_RWP_DUMP_DIR: only write the suite rewrites (the GPU check's candidates) */
    const struct CMUnitTest dump_only[] = {cmocka_unit_test(test_suite_rewrites)};
    if (getenv("HK_RWP_DUMP_DIR") && *getenv("HK_RWP_DUMP_DIR"))
        return cmocka_run_group_tests(dump_only, setup, teardown);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suite_rewrites),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_layernorm),
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_new_bench_kernels),
        cmocka_unit_test(test_rewrites_in_harness),
        cmocka_unit_test(test_all_suite_kernels),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
