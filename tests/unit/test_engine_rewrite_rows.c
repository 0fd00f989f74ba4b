/* Unit tests of rw_warp_rows (rewrites/rewrite_rows.h): the suite's thread-per-row kernels
 * (sum_rows, rmsnorm) and the variants in tests/data/rewrite_rows become warp-per-row code
 * with lane-strided loops, xor shuffles and lane-0 stores that re-analyses, compiles with
 * nvcc on its own and inside the benchmark program of its spec; near misses are refused
 * with their reason; every suite kernel returns cleanly, also under allocation failures.
 * With HK_RWP_DUMP_DIR set, only the suite rewrites run and are written there as
 * <kernel>.warp_rows.cu for tests/gpu/rewrite_pattern_check.sh. nvcc missing: compile
 * checks say so and are skipped. */
#include "analysis/analysis.h"
#include "compile/compile.h"
#include "core/hk.h"
#include "measure/harness.h"
#include "measure/kimage.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_pattern.h"
#include "rewrites/rewrite_rows.h"
#include "rewrites/rewrite_lex.h"
#include "search/skillplan.h"
#include "spec/spec.h"
#include "skills/skills.h"

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
#define BENCH HK_SOURCE_DIR "/bench/kernels"
#define DATA HK_TEST_DATA "/rewrite_rows"

#include "rw_fixture.h"
#include "suite_compile.h" /* compile_programs_batched */

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrite-rows");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* Runs argv; fails the test with its output unless it exits 0. */
static void run_ok(char **argv, const char *tag)
{
    char cmd[8192];
    size_t n = 0;
    for (size_t i = 0; argv[i] && n < sizeof cmd - 4; i++)
        n += (size_t)snprintf(cmd + n, sizeof cmd - n, "'%s' ", argv[i]);
    if (n < sizeof cmd - 8)
        snprintf(cmd + n, sizeof cmd - n, "2>&1");
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[8192];
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = '\0';
    int st = pclose(p);
    if (st != 0)
        print_message("%s: %s\n%s\n", tag, cmd, out);
    assert_int_equal(st, 0);
}

/* The candidates inside the benchmark programs of bench/kernels/<kname>.bench.json, queued by
 * in_harness and compiled by harness_flush in few nvcc runs (suite_compile.h
 * compile_programs_batched: -cubin, each program in a namespace of its own; a program whose
 * batch fails is compiled alone, so that a failure names it). */
static job harness_jobs[8];
static size_t n_harness_jobs;

static void in_harness(const char *kname, const char *candidate)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.bench.json", BENCH, kname);
    spec *sp = NULL;
    spec_diags d = {0};
    int rc = spec_load(path, &sp, &d);
    assert_int_equal(rc, HK_OK);
    assert_int_equal(d.n_errors, 0);
    spec_diags_free(&d);
    if (access(NVCC, X_OK) != 0) {
        print_message("note: no nvcc at %s, harness compile of %s skipped\n", NVCC, kname);
        spec_free(sp);
        return;
    }
    assert_true(n_harness_jobs < HK_ARRAY_LEN(harness_jobs));
    job *j = &harness_jobs[n_harness_jobs++];
    memset(j, 0, sizeof *j);
    j->s = sp;
    j->source = hk_strdup(candidate);
    j->tag = hk_strdup(kname);
    assert_true(j->source && j->tag);
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

/* The rewrite re-analyses cleanly, keeps the signature, holds every string of want, none of
 * not (both NULL-terminated, may be NULL). */
static void check_structure(const fixture *fx, size_t k, const rw_result *r, const char *const *want,
                            const char *const *not)
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
            fprintf(stderr, "missing `%s` in:\n%s\n", want[i], r->text);   /* whole: print_message truncates */
        assert_non_null(strstr(r->text, want[i]));
    }
    for (size_t i = 0; not && not[i]; i++) {
        if (strstr(r->text, not[i]))
            print_message("unexpected `%s` in:\n%s\n", not[i], r->text);
        assert_null(strstr(r->text, not[i]));
    }
}

/* Applies rw_warp_rows to kernel kname of path: applicable with want/not (and compiling
 * with nvcc), or not applicable with why_part in the reason. Returns nothing; frees all. */
static void expect_desc(const char *path, const char *kname, const char *const *want, const char *const *not,
                        const char *why_part, const char *desc_part);

static void expect(const char *path, const char *kname, const char *const *want, const char *const *not,
                   const char *why_part)
{
    expect_desc(path, kname, want, not, why_part, NULL);
}

/* expect, and the description (of an applicable rewrite too) holds desc_part (may be NULL). */
static void expect_desc(const char *path, const char *kname, const char *const *want, const char *const *not,
                        const char *why_part, const char *desc_part)
{
    fixture fx;
    load_path(path, &fx);
    size_t k = kernel(&fx, kname);
    rw_result r;
    assert_int_equal(rw_warp_rows(fx.text, fx.len, fx.m, k, &r), HK_OK);
    assert_non_null(r.description);
    print_message("%s: %s\n", kname, r.description);
    if (desc_part && !strstr(r.description, desc_part))
        print_message("expected a description containing `%s`\n", desc_part);
    assert_true(!desc_part || strstr(r.description, desc_part));
    if (why_part) {
        assert_false(r.applicable);
        assert_null(r.text);
        if (!strstr(r.description, why_part))
            print_message("expected reason containing `%s`\n", why_part);
        assert_non_null(strstr(r.description, why_part));
    } else {
        check_structure(&fx, k, &r, want, not);
        char tag[256];
        snprintf(tag, sizeof tag, "rows_%s", kname);
        /* queued: one nvcc run for all (rwf_nvcc_queued, last); a warning fails it too */
        rwf_nvcc_compiles_strict(r.text, tag);
    }
    rw_result_free(&r);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* The two suite kernels that motivated the rewrite: the structure of the new body. */
static void test_sum_rows(void **state)
{
    (void)state;
    const char *const want[] = {
        "for (long long hk_row = (long long)blockIdx.x * hk_nwarps + hk_warp; hk_row < (long long)(rows);",
        "hk_row += (long long)gridDim.x * hk_nwarps",
        "int r = (int)hk_row;",
        "for (int c = (int)hk_lane; c < cols; c += (int)hk_width)",
        "s += in[(long)r * cols + c];",
        "__shfl_xor_sync(hk_mask, s, hk_off, 32)",
        "s += hk_o;",
        "if (hk_lane == 0u) {\n            out[r] = s;",
        /* the float4 path: aligned rows only, four columns per lane and step, the tail and
         * the scalar loop for the rest */
        "const bool hk_vec1 = ((reinterpret_cast<unsigned long long>(&in[(long)r * cols])) & 15ull) == 0ull;",
        "if (hk_vec1) {",
        "#pragma unroll 4\n            for (int hk_c4 = (int)hk_lane; hk_c4 < (cols) / 4; hk_c4 += (int)hk_width) {",
        "const float4 hk_v0 = reinterpret_cast<const float4 *>(&in[(long)r * cols])[hk_c4];",
        "s += hk_v0.x;", "s += hk_v0.y;", "s += hk_v0.z;", "s += hk_v0.w;",
        "for (int c = (int)((cols) / 4 * 4) + (int)hk_lane; c < cols; c += (int)hk_width)\n"
        "                s += in[(long)r * cols + c];\n        } else {\n"
        "            for (int c = (int)hk_lane; c < cols; c += (int)hk_width)\n"
        "                s += in[(long)r * cols + c];\n        }",
        NULL};
    /* c itself is not used besides the index: no per-component `int c` */
    const char *const not[] = {"c++)", "return;", "(hk_c4 * 4", NULL};
    expect_desc(BENCH "/sum_rows.cu", "sum_rows", want, not, NULL, "float4 loads/stores in 1 of 1 column loop");
}

static void test_rmsnorm(void **state)
{
    (void)state;
    const char *const want[] = {
        "const float *x = in + (size_t)r * cols;",
        "ss += x[c] * x[c];",
        "__shfl_xor_sync(hk_mask, ss, hk_off, 32)",
        "float inv = 1.0f / sqrtf(ss / cols + eps);",
        "out[(size_t)r * cols + c] = x[c] * inv * weight[c];",
        "c += (int)hk_width",
        NULL};
    /* one reduction (ss), no lane-0 store: the write loop is per element */
    const char *const want_vec[] = {
        "const bool hk_vec1 = ((reinterpret_cast<unsigned long long>(x)) & 15ull) == 0ull;",
        "const float4 hk_v0 = reinterpret_cast<const float4 *>(x)[hk_c4];",
        "ss += hk_v0.x * hk_v0.x;",
        "ss += hk_v0.w * hk_v0.w;",
        /* every stream of the write loop must be aligned: the output row, x and weight */
        "const bool hk_vec2 = ((reinterpret_cast<unsigned long long>(&out[(size_t)r * cols]) | "
        "reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(weight)) & 15ull) == 0ull;",
        "float4 hk_s0;",
        "const float4 hk_v1 = reinterpret_cast<const float4 *>(x)[hk_c4];",
        "const float4 hk_v2 = reinterpret_cast<const float4 *>(weight)[hk_c4];",
        "hk_s0.x = hk_v1.x * inv * hk_v2.x;",
        "hk_s0.w = hk_v1.w * inv * hk_v2.w;",
        "reinterpret_cast<float4 *>(&out[(size_t)r * cols])[hk_c4] = hk_s0;",
        "for (int c = (int)((cols) / 4 * 4) + (int)hk_lane; c < cols; c += (int)hk_width)\n"
        "                out[(size_t)r * cols + c] = x[c] * inv * weight[c];",
        NULL};
    const char *const not[] = {"hk_lane == 0u", "__shfl_xor_sync(hk_mask, inv", NULL};
    expect(BENCH "/rmsnorm.cu", "rmsnorm", want, not, NULL);
    expect_desc(BENCH "/rmsnorm.cu", "rmsnorm", want_vec, NULL, NULL, "float4 loads/stores in 2 of 2 column loops");
}

/* The shapes of tests/data/rewrite_rows/rows_variants.cu that apply. */
static void test_variants(void **state)
{
    (void)state;
    const char *const want_block[] = {
        "const unsigned int n = rows;\n    for (long long hk_row",      /* the bound's declaration stays outside */
        "hk_row < (long long)(n)",
        "unsigned int r = (unsigned int)hk_row;",
        "for (unsigned int c = (unsigned int)hk_lane; c < cols; c += (unsigned int)hk_width)",
        "acc = acc + in[(size_t)r * cols + c];",
        "const decltype(acc) hk_o = __shfl_xor_sync(hk_mask, acc, hk_off, 32);",
        "out[r] = acc;",
        NULL};
    expect(DATA "/rows_variants.cu", "sum_block", want_block, NULL, NULL);
    const char *const want_stats[] = {"m = fmaxf(m, hk_o);", "cnt += hk_o;", "maxv[r] = m;", "npos[r] = cnt;",
                                      "float m = -INFINITY;", NULL};
    expect(DATA "/rows_variants.cu", "row_stats", want_stats, NULL, NULL);
    const char *const want_scale[] = {"s += fabsf(row[c]);", "float inv = s > 0.0f ? 1.0f / s : 0.0f;",
                                      "out[o] = row[c] * inv;", NULL};
    expect(DATA "/rows_variants.cu", "scale_rows", want_scale, NULL, NULL);
    /* session 48: a loop from a decimal column S (lane l takes S + l, S + l + W, ...), the
     * running max/min started from the row's first element; scalar lanes only (on main:
     * `a loop is not for (int c = 0; c < cols; c++)`) */
    const char *const want_first[] = {"float best = src[row * ncols];",
                                      "for (int c = (int)hk_lane + 1; c < ncols; c += (int)hk_width)",
                                      "best = fmaxf(best, hk_o);", "out[row] = best;", NULL};
    const char *const not_first[] = {"hk_c4", "for (int c = (int)hk_lane; c", NULL};
    expect_desc(DATA "/softmax_rows.cu", "max_from_col1", want_first, not_first, NULL,
                "the loop starts at column 1, not 0");
    const char *const want_two[] = {"for (unsigned c = (unsigned)hk_lane + 2; c < ncols; c += (unsigned)hk_width)",
                                    "m = fminf(m, hk_o);", "t += hk_o;", "mn[row] = m;", "tail[row] = t;", NULL};
    expect(DATA "/softmax_rows.cu", "min_sum_from_col2", want_two, NULL, NULL);
    /* session 48: accumulators of the template's type parameter (on main: `the accumulator
     * `s` is not a scalar type a warp shuffle takes`) */
    const char *const want_tmpl[] = {"T s = 0;", "const decltype(s) hk_o = __shfl_xor_sync(hk_mask, s, hk_off, 32);",
                                     "s += hk_o;", "m = max(m, hk_o);", "out[row] = s / ncols;", NULL};
    expect(DATA "/softmax_rows.cu", "tmpl_mean_max", want_tmpl, NULL, NULL);
    /* the suite's softmax and gemv are of the family too: a row pointer that is declared
     * and then stored through per column, a max then a sum reduction */
    const char *const want_softmax[] = {"float *y = out + (size_t)r * cols;", "m = fmaxf(m, hk_o);",
                                        "s += hk_o;", "y[c] = expf(x[c] - m) / s;", NULL};
    expect(BENCH "/softmax.cu", "softmax", want_softmax, NULL, NULL);
    const char *const want_gemv[] = {"acc += A[(size_t)row * N + j] * x[j];", "y[row] = acc;", NULL};
    expect(BENCH "/gemv.cu", "gemv", want_gemv, NULL, NULL);
}

/* gemv: the matrix row and the vector x both read as float4 (x's base is the pointer). */
static void test_gemv(void **state)
{
    (void)state;
    const char *const want[] = {
        "const bool hk_vec1 = ((reinterpret_cast<unsigned long long>(&A[(size_t)row * N]) | "
        "reinterpret_cast<unsigned long long>(x)) & 15ull) == 0ull;",
        "for (int hk_c4 = (int)hk_lane; hk_c4 < (N) / 4; hk_c4 += (int)hk_width)",
        "const float4 hk_v0 = reinterpret_cast<const float4 *>(&A[(size_t)row * N])[hk_c4];",
        "const float4 hk_v1 = reinterpret_cast<const float4 *>(x)[hk_c4];",
        "acc += hk_v0.x * hk_v1.x;", "acc += hk_v0.w * hk_v1.w;",
        "for (int j = (int)((N) / 4 * 4) + (int)hk_lane; j < N; j += (int)hk_width)",
        "for (int j = (int)hk_lane; j < N; j += (int)hk_width)",
        "__shfl_xor_sync(hk_mask, acc, hk_off, 32)",
        "if (hk_lane == 0u) {\n            y[row] = acc;",
        NULL};
    expect_desc(BENCH "/gemv.cu", "gemv", want, NULL, NULL, "float4 loads/stores in 1 of 1 column loop");
}

/* Writes src to tmpdir/<name>.cu and returns the path (static buffer). */
static const char *write_src(const char *name, const char *src)
{
    static char path[700];
    snprintf(path, sizeof path, "%s/%s.cu", tmpdir, name);
    rwf_write_file(path, src);
    return path;
}

/* Column loops the float4 path takes beyond the suite (c + base order, a local row
 * pointer updated in place, c used in the arithmetic) and those it leaves scalar, each
 * with its reason, while the warp-per-row rewrite itself still applies. */
static void test_vec_rules(void **state)
{
    (void)state;
    const char *src =
        "__device__ float at(const float *p, int i) { return p[i]; }\n"
        "__global__ void inplace(float *io, float *out, int rows, int cols)\n"
        "{\n"
        "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (r >= rows)\n"
        "        return;\n"
        "    float *x = io + (size_t)r * cols;\n"
        "    float s = 0.0f;\n"
        "    for (int c = 0; c < cols; c++)\n"
        "        s += io[c + (size_t)r * cols] * (float)c;\n"
        "    for (int c = 0; c < cols; c++) {\n"
        "        x[c] = x[c] * s;\n"
        "    }\n"
        "    out[r] = s;\n"
        "}\n"
        "__global__ void shifted(const float *in, float *out, int rows, int cols)\n"
        "{\n"
        "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (r >= rows)\n"
        "        return;\n"
        "    const float *x = in + (size_t)r * (cols + 1);\n"
        "    float s = 0.0f;\n"
        "    for (int c = 0; c < cols; c++)\n"
        "        s += x[c + 1] - x[c];\n"
        "    out[r] = s;\n"
        "}\n"
        "__global__ void strided(const float *in, float *out, int rows, int cols)\n"
        "{\n"
        "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (r >= rows)\n"
        "        return;\n"
        "    const float *x = in + (size_t)r * 2 * cols;\n"
        "    float s = 0.0f;\n"
        "    for (int c = 0; c < cols; c++)\n"
        "        s += x[2 * c];\n"
        "    out[r] = s;\n"
        "}\n"
        "__global__ void doubles(const double *in, double *out, int rows, int cols)\n"
        "{\n"
        "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (r >= rows)\n"
        "        return;\n"
        "    double s = 0.0;\n"
        "    for (int c = 0; c < cols; c++)\n"
        "        s += in[(size_t)r * cols + c];\n"
        "    out[r] = s;\n"
        "}\n"
        "__global__ void called(const float *in, float *out, int rows, int cols)\n"
        "{\n"
        "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (r >= rows)\n"
        "        return;\n"
        "    const float *x = in + (size_t)r * cols;\n"
        "    float s = 0.0f;\n"
        "    for (int c = 0; c < cols; c++)\n"
        "        s += at(x, c);\n"
        "    out[r] = s;\n"
        "}\n"
        "__global__ void branchy(const float *in, float *out, int rows, int cols)\n"
        "{\n"
        "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (r >= rows)\n"
        "        return;\n"
        "    float s = 0.0f;\n"
        "    for (int c = 0; c < cols; c++) {\n"
        "        float v = in[(size_t)r * cols + c];\n"
        "        if (v > 0.0f)\n"
        "            s += v;\n"
        "    }\n"
        "    out[r] = s;\n"
        "}\n"
        "__global__ void reread(const float *in, float *tmp, float *out, int rows, int cols)\n"
        "{\n"
        "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (r >= rows)\n"
        "        return;\n"
        "    float s = 0.0f;\n"
        "    for (int c = 0; c < cols; c++) {\n"
        "        tmp[(size_t)r * cols + c] = in[(size_t)r * cols + c] * 2.0f;\n"
        "        s += tmp[(size_t)r * cols + c];\n"
        "    }\n"
        "    out[r] = s;\n"
        "}\n";
    const char *path = write_src("vec_rules", src);
    const char *const want_inplace[] = {
        "const float4 hk_v0 = reinterpret_cast<const float4 *>(&io[(size_t)r * cols])[hk_c4];",
        "int c = (int)(hk_c4 * 4 + 2);\n                    s += hk_v0.z * (float)c;",
        /* loaded, then stored from the same float4 position */
        "const float4 hk_v0 = reinterpret_cast<const float4 *>(x)[hk_c4];\n                float4 hk_s0;",
        "hk_s0.y = hk_v0.y * s;",
        "reinterpret_cast<float4 *>(x)[hk_c4] = hk_s0;",
        NULL};
    expect_desc(path, "inplace", want_inplace, NULL, NULL, "float4 loads/stores in 2 of 2 column loops");
    const char *const scalar[] = {"for (int c = (int)hk_lane; c < cols; c += (int)hk_width)", NULL};
    const char *const no_vec[] = {"float4", "hk_vec", "hk_c4", NULL};
    static const struct {
        const char *kernel, *why;
    } cases[] = {
        {"shifted", "column loop 1 scalar only: the index of `x[...]` shifts the column by a constant"},
        {"strided", "column loop 1 scalar only: the index of `x[...]` is not `base + c`"},
        {"doubles", "column loop 1 scalar only: `in` is not known as a pointer to float"},
        {"called", "column loop 1 scalar only: it uses the pointer `x` other than by subscript"},
        {"branchy", "column loop 1 scalar only: its body branches (`if`)"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++)
        expect_desc(path, cases[i].kernel, scalar, no_vec, NULL, cases[i].why);
    /* a read after the store in the same iteration reads the component stored */
    const char *const want_reread[] = {
        "float4 hk_s0;\n                const float4 hk_v1 = reinterpret_cast<const float4 *>(&in[(size_t)r * cols])[hk_c4];",
        "hk_s0.x = hk_v1.x * 2.0f;\n        s += hk_s0.x;", "reinterpret_cast<float4 *>(&tmp[(size_t)r * cols])[hk_c4] = hk_s0;",
        NULL};
    expect_desc(path, "reread", want_reread, NULL, NULL, "float4 loads/stores in 1 of 1 column loop");
}

/* Thread-per-row softmax and row max/min (issue 13, llm.c's softmax_forward_kernel1): the
 * running maximum in its usual spellings is one reduction combined by fmaxf/fminf (by the
 * accumulator's type for the if and ?: forms), a double sum is shuffled as double, and
 * outputs re-read at the same column in a later loop keep those loops scalar. Emulated in
 * test_rewrites_emu_rows. */
static void test_softmax_rows(void **state)
{
    (void)state;
    const char *path = DATA "/softmax_rows.cu";
    const char *const guarded[] = {
        "for (int k = (int)hk_lane; k < ncols; k += (int)hk_width)",
        "if (hk_v0.x > hi) {\n                hi = hk_v0.x;",
        "hi = fmaxf(hi, hk_o);",
        "const decltype(total) hk_o = __shfl_xor_sync(hk_mask, total, hk_off, 32);",
        "total += hk_o;",
        "y[k] /= (float)total;",
        /* the two loops over y choose float4 under one condition; the store re-read and the
         * update in place go through hk_s0 */
        "const bool hk_vec2 = ((reinterpret_cast<unsigned long long>(y) | reinterpret_cast<unsigned long "
        "long>(x) | reinterpret_cast<unsigned long long>(y)) & 15ull) == 0ull;",
        "const bool hk_vec3 = ((reinterpret_cast<unsigned long long>(y) | reinterpret_cast<unsigned long "
        "long>(x) | reinterpret_cast<unsigned long long>(y)) & 15ull) == 0ull;",
        "hk_s0.x = expf(hk_v1.x - hi);\n            total += hk_s0.x;",
        "float4 hk_s0 = reinterpret_cast<const float4 *>(y)[hk_c4];",
        "hk_s0.w /= (float)total;",
        NULL};
    expect_desc(path, "soft_guarded", guarded, NULL, NULL,
                "float4 loads/stores in 3 of 3 column loops (16-byte aligned rows, scalar tail and fallback)");
    const char *const select[] = {"hi = hk_v0.x > hi ? hk_v0.x : hi;", "hi = fmaxf(hi, hk_o);",
                                  "if (hk_lane == 0u) {\n            rmax[row] = hi;", NULL};
    expect_desc(path, "soft_select", select, NULL, NULL, "float4 loads/stores in 3 of 3 column loops");
    expect_desc(path, "store_then_update", NULL, NULL, NULL, "float4 loads/stores in 2 of 2 column loops");
    expect_desc(path, "update_shorter", NULL, NULL, NULL,
                "column loop 1 scalar only: it shares memory with another column loop (the same index: every "
                "lane must own the same columns in both), and their bounds differ; column loop 2 scalar only");
    const char *const less[] = {"float v = hk_v0.x;\n        if (m1 < v)", "m2 = fmaxf(hk_v0.y, m2);", "m1 = fmaxf(m1, hk_o);",
                                "m2 = fmaxf(m2, hk_o);", NULL};
    expect_desc(path, "soft_less", less, NULL, NULL, "3 warp reductions");
    const char *const range[] = {"lo = fminf(lo, hk_o);", "lo2 = fminf(lo2, hk_o);", "hi = fmaxf(hi, hk_o);",
                                 "hi2 = fmaxf(hi2, hk_o);", NULL};
    expect_desc(path, "row_range", range, NULL, NULL, "4 warp reductions");
    const char *const dsum[] = {"const decltype(s) hk_o = __shfl_xor_sync(hk_mask, s, hk_off, 32);", NULL};
    expect(path, "double_sum", dsum, NULL, NULL);
    const char *const typed[] = {"hi = max(hi, hk_o);", "dl = fmin(dl, hk_o);", NULL};
    expect(path, "int_double", typed, NULL, NULL);
    expect(path, "max_then_sum", NULL, NULL, "the accumulator `a` is reduced in an earlier loop too");
    expect(path, "select_takes_nan", NULL, NULL, "writes the row variable `m` other than as a sum/max/min");
    expect(path, "guarded_else", NULL, NULL, "writes the row variable `m` other than as a sum/max/min");
    expect(path, "guarded_other", NULL, NULL, "writes the row variable `m` other than as a sum/max/min");
    expect(path, "guarded_cast", NULL, NULL, "writes the row variable `m` other than as a sum/max/min");
    expect(path, "reread_outside", NULL, NULL, "`dst` is stored in a column loop and accessed outside the column loops");
    expect(path, "reread_shifted", NULL, NULL, "`y` is stored in a column loop and accessed at another index");
    expect(path, "reread_moved", NULL, NULL, "at an index of `off`, which the row body changes");
}

/* Near misses: refused, each with its reason. */
/* Declarations of a type the word lists do not know (a typedef: llm.c's `floatX *out_bt =
 * out + ...;`) are declarations; statements that begin with a statement word are not,
 * however they continue. */
static void test_typedef_declarations(void **state)
{
    (void)state;
    static const struct {
        const char *stmt;
        bool decl;
        const char *name;
    } cases[] = {
        {"floatX* out_bt = out + b * C;", true, "out_bt"},
        {"const floatX *wte_ix = wte + ix * C;", true, "wte_ix"},
        {"real_t s = 0;", true, "s"},
        {"real_t s;", true, "s"},
        {"real_t a = 1, b = 2;", true, "a"},
        {"my_vec t[4];", true, "t"},
        {"return x;", false, NULL},
        {"else y = 1;", false, NULL},
        {"goto done;", false, NULL},
        {"delete p;", false, NULL},
        {"a * b;", false, NULL},
        {"y = x;", false, NULL},
        {"p[i] = 1;", false, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rw_toks ts = {0};
        const char *t = cases[i].stmt;
        assert_int_equal(rwl_lex(t, 0, (uint32_t)strlen(t), &ts), HK_OK);
        size_t names[8], n = 0;
        bool d = rwl_is_hoistable_decl(&ts, 0, ts.n, "", names, &n, 8);
        if (d != cases[i].decl)
            fail_msg("%s: read as %s", t, d ? "a declaration" : "no declaration");
        if (d) {
            char nm[32];
            size_t len = ts.t[names[0]].end - ts.t[names[0]].start;
            snprintf(nm, sizeof nm, "%.*s", (int)len, t + ts.t[names[0]].start);
            assert_string_equal(nm, cases[i].name);
        }
        rwl_toks_free(&ts);
    }
}

static void test_not_applicable(void **state)
{
    (void)state;
    expect(DATA "/rows_variants.cu", "nonzero_init", NULL, NULL, "does not start at zero");
    expect(DATA "/rows_variants.cu", "sum_from_first", NULL, NULL, "does not start at zero");
    expect(DATA "/rows_variants.cu", "shares_from_one", NULL, NULL, "and their first columns differ");
    expect(DATA "/rows_variants.cu", "acc_used", NULL, NULL, "read or written elsewhere inside its loop");
    expect(DATA "/rows_variants.cu", "with_atomic", NULL, NULL, "atomics");
    expect(DATA "/rows_variants.cu", "store_not_c", NULL, NULL, "does not depend on the column");
    expect(DATA "/rows_variants.cu", "last_value", NULL, NULL, "other than as a sum/max/min reduction");
    expect(DATA "/rows_variants.cu", "shifted_read", NULL, NULL, "accessed at another index");
    expect(DATA "/rows_variants.cu", "summed_twice", NULL, NULL, "reduced in an earlier loop");
    expect(DATA "/rows_variants.cu", "local_index_shift", NULL, NULL, "accessed in another loop");
    expect(DATA "/rows_variants.cu", "with_barrier", NULL, NULL, "__syncthreads");
    expect(DATA "/rows_variants.cu", "uses_tid", NULL, NULL, "besides the row index");
    expect(DATA "/rows_variants.cu", "conv_window", NULL, NULL, "a sliding window, not a row");
    expect(BENCH "/vector_add.cu", "vector_add", NULL, NULL, "no column loop");
    expect(BENCH "/reduce_sum.cu", "reduce_sum", NULL, NULL, "atomics");

    /* bad arguments */
    fixture fx;
    load_path(BENCH "/sum_rows.cu", &fx);
    rw_result r;
    assert_int_equal(rw_warp_rows(fx.text, fx.len, fx.m, 999, &r), HK_EINVAL);
    long launcher = -1;
    for (size_t i = 0; i < fx.m->n_funcs; i++)
        if (fx.m->funcs[i].kind != AN_KERNEL)
            launcher = (long)i;
    assert_true(launcher >= 0);
    assert_int_equal(rw_warp_rows(fx.text, fx.len, fx.m, (size_t)launcher, &r), HK_EINVAL);
    assert_int_equal(rw_warp_rows(NULL, fx.len, fx.m, 0, &r), HK_EINVAL);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Writes a rewritten suite kernel for the GPU check script when HK_RWP_DUMP_DIR is set. */
static void dump(const char *kname, const rw_result *r)
{
    const char *dir = getenv("HK_RWP_DUMP_DIR");
    if (!dir || !*dir)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.warp_rows.cu", dir, kname);
    rwf_write_file(path, r->text);
}

static const char *const suite[] = {"sum_rows", "rmsnorm", "gemv"};

/* The suite rewrites inside their benchmark programs (the spec's argument list still fits);
 * with HK_RWP_DUMP_DIR set, also written out for the GPU check. */
static void test_suite_rewrites(void **state)
{
    (void)state;
    bool dump_only = getenv("HK_RWP_DUMP_DIR") && *getenv("HK_RWP_DUMP_DIR");
    for (size_t c = 0; c < HK_ARRAY_LEN(suite); c++) {
        char path[1024], cand[1024];
        snprintf(path, sizeof path, "%s/%s.cu", BENCH, suite[c]);
        fixture fx;
        load_path(path, &fx);
        rw_result r;
        assert_int_equal(rw_warp_rows(fx.text, fx.len, fx.m, kernel(&fx, suite[c]), &r), HK_OK);
        if (!r.applicable)
            print_message("%s\n", r.description);
        assert_true(r.applicable);
        dump(suite[c], &r);
        if (!dump_only) {
            snprintf(cand, sizeof cand, "%s/cand-%s.cu", tmpdir, suite[c]);
            rwf_write_file(cand, r.text);
            in_harness(suite[c], cand);
        }
        rw_result_free(&r);
        unload(&fx);
    }
    harness_flush();
    assert_int_equal(hk_alloc_live(), 0);
}

/* Every suite kernel: HK_OK or HK_EPARSE, a description always, no crash or leak; the
 * launchers are refused as HK_EINVAL. Only the thread-per-row kernels apply among the ones
 * listed here as known (softmax/layernorm also loop over columns per thread). */
static void test_all_suite_kernels(void **state)
{
    (void)state;
    DIR *d = opendir(BENCH);
    assert_non_null(d);
    struct dirent *de;
    size_t n_files = 0;
    bool sum_rows = false, rmsnorm = false;
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
            rw_result r;
            int rc = rw_warp_rows(fx.text, fx.len, fx.m, k, &r);
            if (fx.m->funcs[k].kind != AN_KERNEL) {
                assert_int_equal(rc, HK_EINVAL);
                continue;
            }
            assert_true(rc == HK_OK || rc == HK_EPARSE);
            assert_non_null(r.description);
            print_message("%-16s %s\n", fx.m->funcs[k].name, r.applicable ? "applicable" : r.description);
            if (r.applicable) {
                sum_rows |= strcmp(fx.m->funcs[k].name, "sum_rows") == 0;
                rmsnorm |= strcmp(fx.m->funcs[k].name, "rmsnorm") == 0;
                /* elementwise and 2D kernels never qualify */
                assert_true(strcmp(fx.m->funcs[k].name, "vector_add") != 0);
                assert_true(strcmp(fx.m->funcs[k].name, "transpose") != 0);
            }
            rw_result_free(&r);
        }
        unload(&fx);
    }
    closedir(d);
    assert_true(n_files >= 10);
    assert_true(sum_rows && rmsnorm);
    assert_int_equal(hk_alloc_live(), 0);
}

static int warp_rows_of(const fixture *fx, size_t k, rw_result *r)
{
    return rw_warp_rows(fx->text, fx->len, fx->m, k, r);
}

/* Allocation failures anywhere give HK_ENOMEM (or a clean result), never a crash or leak. */
static void test_alloc_failures(void **state)
{
    (void)state;
    for (size_t c = 0; c < HK_ARRAY_LEN(suite); c++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.cu", BENCH, suite[c]);
        fixture fx;
        load_path(path, &fx);
        rwf_survives_alloc_failures(&fx, kernel(&fx, suite[c]), warp_rows_of);
        unload(&fx);
    }
    assert_int_equal(hk_alloc_live(), 0);
}

/* The suite rewrites built by the real hipcc for gfx906 (wavefront 64) as a DCU episode
 * builds a candidate (measure.c): module.cu (harness_module_generate: the harness header's
 * CUDA-to-HIP mapping, hk_hip.h, then the candidate) compiled device-only with
 * harness_image_argv's hipcc --genco; the code object must hold the kernel's entry. (Each
 * one was a whole benchmark program before, 6.5 s of CPU against 2: issue 14, CI time; the
 * program form's parameter check is test_suite_rewrites' under nvcc, and hipcc's program
 * form is test_engine_harness_hip's.) Skipped with a message when hipcc is missing. */
static void test_hip_build(void **state)
{
    (void)state;
    char *hipcc = NULL;
    if (cc_find_compiler(CC_DCU, &hipcc) != HK_OK) {
        print_message("note: no hipcc, the gfx906 build of the rewrites is skipped\n");
        return;
    }
    for (size_t c = 0; c < HK_ARRAY_LEN(suite); c++) {
        char path[1024], cand[1024], mod[1024], image[1024];
        snprintf(path, sizeof path, "%s/%s.cu", BENCH, suite[c]);
        fixture fx;
        load_path(path, &fx);
        rw_result r;
        assert_int_equal(rw_warp_rows(fx.text, fx.len, fx.m, kernel(&fx, suite[c]), &r), HK_OK);
        assert_true(r.applicable);
        snprintf(cand, sizeof cand, "%s/hip-cand-%s.cu", tmpdir, suite[c]);
        rwf_write_file(cand, r.text);
        rw_result_free(&r);
        unload(&fx);
        snprintf(path, sizeof path, "%s/%s.bench.json", BENCH, suite[c]);
        spec *sp = NULL;
        spec_diags d = {0};
        assert_int_equal(spec_load(path, &sp, &d), HK_OK);
        spec_diags_free(&d);
        char *text = NULL;
        assert_int_equal(harness_module_generate(sp, cand, &text), HK_OK);
        snprintf(mod, sizeof mod, "%s/hip-module-%s.cu", tmpdir, suite[c]);
        rwf_write_file(mod, text);
        hk_free(text);
        snprintf(image, sizeof image, "%s/hip-kernel-%s.co", tmpdir, suite[c]);
        char **argv = NULL;
        assert_int_equal(harness_image_argv(sp, hipcc, "gfx906", HK_SOURCE_DIR "/include", NULL, mod, image,
                                            &argv),
                         HK_OK);
        run_ok(argv, suite[c]);
        harness_argv_free(argv);
        char **names = NULL, *entry = NULL, *why = NULL;
        assert_int_equal(kimage_entries(image, &names), HK_OK);
        int rc = kimage_find(names, sp->kernel, NULL, 0, &entry, &why);
        if (rc != HK_OK)
            print_message("%s: %s\n", suite[c], why ? why : "?");
        assert_int_equal(rc, HK_OK);
        hk_free(entry);
        hk_free(why);
        kimage_names_free(names);
        spec_free(sp);
    }
    hk_free(hipcc);
    assert_int_equal(hk_alloc_live(), 0);
}

/* The shipped warp-per-row skills plan warp_rows first for sum_rows and rmsnorm on every
 * class (an algorithm rewrite), with the launch the thread-per-row grid lacks (256-thread
 * blocks, 8 then (sm_90) 16 then 4 blocks per SM), and plan it for gemv too ("*": after
 * the cuBLAS substitution); softmax keeps its own online rewrite first, and the GEMM (a 2D
 * index) is not claimed. */
static void test_skill_plan(void **state)
{
    (void)state;
    sk_set *skills = NULL;
    char err[1024];
    assert_int_equal(sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err), HK_OK);
    static const struct {
        const char *kernel, *arch, *first;
    } cases[] = {{"sum_rows", "sm_90", "warp_rows"}, {"rmsnorm", "sm_90", "warp_rows"}, {"gemv", "sm_90", "*"},
                 {"sum_rows", "sm_80", "warp_rows"}, {"rmsnorm", "gfx906", "warp_rows"},
                 {"softmax", "sm_90", "online_softmax"}, {"sgemm", "sm_90", NULL}};
    static const enum sk_class classes[] = {SK_LATENCY_BOUND, SK_MEMORY_BOUND, SK_COMPUTE_BOUND, SK_CLASS_COUNT};
    for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
        fixture fx;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.cu", BENCH, cases[c].kernel);
        load_path(path, &fx);
        for (size_t k = 0; k < HK_ARRAY_LEN(classes); k++) {
            skillplan p;
            assert_int_equal(skillplan_build(skills, cases[c].arch, classes[k], NULL, fx.text, fx.len, &p), HK_OK);
            size_t rows = p.n;
            for (size_t i = 0; i < p.n; i++)
                if (strcmp(p.v[i].rewrite, "warp_rows") == 0 && rows == p.n)
                    rows = i;
            if (!cases[c].first) {
                assert_int_equal(rows, p.n);
            } else if (!strcmp(cases[c].first, "*")) {
                /* planned, not necessarily first: gemv also matches the cuBLAS substitution,
                 * and the search measures both */
                assert_true(rows < p.n);
                assert_int_equal(p.v[rows].block_size, 256);
                assert_int_equal(p.v[rows].blocks_per_sm, 8);
            } else {
                assert_true(p.n > 0);
                /* the first rewrite that applies: rmsnorm also matches the layernorm skill's
                 * code condition, which rw_online_layernorm then refuses (the search drops
                 * rewrites that do not apply) */
                size_t first = 0;
                while (first < p.n) {
                    rw_result r;
                    long kk = an_model_find_kernel(fx.m, cases[c].kernel);
                    assert_true(kk >= 0);
                    bool ok = false;
                    if (!strcmp(p.v[first].rewrite, "warp_rows")) {
                        assert_int_equal(rw_warp_rows(fx.text, fx.len, fx.m, (size_t)kk, &r), HK_OK);
                        ok = r.applicable;
                        rw_result_free(&r);
                    } else if (!strcmp(p.v[first].rewrite, "online_layernorm")) {
                        assert_int_equal(rw_online_layernorm(fx.text, fx.len, fx.m, (size_t)kk, &r), HK_OK);
                        ok = r.applicable;
                        rw_result_free(&r);
                    } else {
                        ok = true;
                    }
                    if (ok)
                        break;
                    first++;
                }
                assert_true(first < p.n);
                if (strcmp(p.v[first].rewrite, cases[c].first) != 0)
                    print_message("%s on %s: first %s\n", cases[c].kernel, cases[c].arch, p.v[first].rewrite);
                assert_string_equal(p.v[first].rewrite, cases[c].first);
                assert_true(rows < p.n);
                assert_int_equal(p.v[rows].block_size, 256);
                assert_int_equal(p.v[rows].blocks_per_sm, 8);
                /* sm_90 also tries 16 blocks per SM (what the softmax template wins with) */
                size_t next = rows + 1;
                if (!strcmp(cases[c].arch, "sm_90")) {
                    assert_true(next < p.n);
                    assert_string_equal(p.v[next].rewrite, "warp_rows");
                    assert_int_equal(p.v[next].blocks_per_sm, 16);
                    next++;
                }
                assert_true(next < p.n);
                assert_string_equal(p.v[next].rewrite, "warp_rows");
                assert_int_equal(p.v[next].blocks_per_sm, 4);
            }
            skillplan_free(&p);
        }
        unload(&fx);
    }
    sk_set_free(skills);
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    const char *dir = getenv("HK_RWP_DUMP_DIR");
    const struct CMUnitTest dump_only[] = {cmocka_unit_test(test_suite_rewrites)};
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sum_rows),
        cmocka_unit_test(test_rmsnorm),
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_gemv),
        cmocka_unit_test(test_vec_rules),
        cmocka_unit_test(test_typedef_declarations),
        cmocka_unit_test(test_not_applicable),
        cmocka_unit_test(test_softmax_rows),
        cmocka_unit_test(test_suite_rewrites),
        cmocka_unit_test(test_all_suite_kernels),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_skill_plan),
        cmocka_unit_test(test_hip_build),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    if (dir && *dir)
        return cmocka_run_group_tests(dump_only, setup, teardown);
    return cmocka_run_group_tests(tests, setup, teardown);
}
