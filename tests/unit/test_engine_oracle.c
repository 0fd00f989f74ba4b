/* The oracle: output files in the harness's layout (built here byte by byte), per-dtype
 * comparison, NaN/Inf, the relative L2 limit, statistics, malformed and mismatched files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hk.h"
#include "measure/oracle.h"
#include "said_zh.h"

/* An output file with one output per (arg, dtype, count, data) quadruple. */
typedef struct {
    unsigned char *p;
    size_t len;
} blob;

static void put(blob *b, const void *x, size_t n)
{
    b->p = realloc(b->p, b->len + n);
    memcpy(b->p + b->len, x, n);
    b->len += n;
}

static blob file_begin(uint32_t n_outputs)
{
    blob b = { 0 };
    uint32_t v = HK_OUT_VERSION;
    put(&b, HK_OUT_MAGIC, 8);
    put(&b, &v, 4);
    put(&b, &n_outputs, 4);
    return b;
}

static void file_output(blob *b, uint32_t arg, uint32_t dtype, uint64_t count, const void *data)
{
    put(b, &arg, 4);
    put(b, &dtype, 4);
    put(b, &count, 8);
    put(b, data, count * hk_dtype_size((int)dtype));
}

static void parse_blob(blob *b, oracle_file *f)
{
    unsigned char *copy = hk_malloc(b->len);
    memcpy(copy, b->p, b->len);
    char err[200] = "";
    int rc = oracle_parse(copy, b->len, f, err, sizeof err);
    if (rc != HK_OK)
        fail_msg("parse: %s", err);
}

static void compare_floats(const float *base, const float *cand, size_t n, spec_tolerance t,
                           oracle_result *r)
{
    oracle_compare_buffer(HK_DT_F32, base, cand, n, t, r);
}

static void identical_and_within_tolerance(void **state)
{
    float b[4] = { 1.0f, -2.0f, 0.0f, 1000.0f };
    float c[4] = { 1.0f, -2.0f, 0.0f, 1000.0f };
    oracle_result r;
    spec_tolerance t = spec_default_tolerance(HK_DT_F32);
    compare_floats(b, c, 4, t, &r);
    assert_true(r.pass);
    assert_true(r.max_abs == 0 && r.rel_l2 == 0);
    assert_int_equal(r.first_bad, -1);
    c[3] = 1000.05f; /* rel 5e-5 < 1e-4, but L2 5e-5 > 1e-5 */
    compare_floats(b, c, 4, t, &r);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "relative L2 error"));
    t.l2 = 1e-4;
    compare_floats(b, c, 4, t, &r);
    assert_true(r.pass);
    assert_true(fabs(r.max_abs - 0.05) < 1e-3);
    assert_true(fabs(r.max_rel - 5e-5) < 1e-6);
}

static void wrong_element_reports_index_and_errors(void **state)
{
    float b[6] = { 1, 2, 3, 4, 5, 6 }, c[6] = { 1, 2, 3.5f, 4, 5, 9 };
    oracle_result r;
    compare_floats(b, c, 6, spec_default_tolerance(HK_DT_F32), &r);
    assert_false(r.pass);
    assert_int_equal(r.first_bad, 2);
    assert_int_equal(r.n_bad, 2);
    assert_true(r.max_abs == 3.0);
    assert_true(r.max_rel == 0.5);
    assert_non_null(strstr(r.reason, "wrong answer: 2 of 6 elements"));
    assert_non_null(strstr(r.reason, "first at 2: 3.5 vs baseline 3"));
}

static void nan_and_inf_never_pass(void **state)
{
    float b[3] = { 1, 2, 3 }, c[3] = { 1, NAN, 3 };
    oracle_result r;
    spec_tolerance loose = { 1e9, 1e9, 0 };
    compare_floats(b, c, 3, loose, &r);
    assert_false(r.pass);
    assert_int_equal(r.n_nonfinite, 1);
    assert_int_equal(r.first_bad, 1);
    assert_non_null(strstr(r.reason, "non-finite"));
    c[1] = INFINITY;
    compare_floats(b, c, 3, loose, &r);
    assert_false(r.pass);
    /* where the baseline itself is NaN/Inf the candidate must match it */
    b[1] = NAN;
    c[1] = NAN;
    compare_floats(b, c, 3, loose, &r);
    assert_true(r.pass);
    c[1] = 2;
    compare_floats(b, c, 3, loose, &r);
    assert_false(r.pass);
    b[1] = -INFINITY;
    c[1] = -INFINITY;
    compare_floats(b, c, 3, spec_default_tolerance(HK_DT_F32), &r);
    assert_true(r.pass);
    c[1] = INFINITY;
    compare_floats(b, c, 3, spec_default_tolerance(HK_DT_F32), &r);
    assert_false(r.pass);
}

static void integers_exact_by_default(void **state)
{
    int32_t b[3] = { 7, -1, 100000 }, c[3] = { 7, -1, 100001 };
    oracle_result r;
    oracle_compare_buffer(HK_DT_I32, b, c, 3, spec_default_tolerance(HK_DT_I32), &r);
    assert_false(r.pass);
    assert_int_equal(r.first_bad, 2);
    c[2] = 100000;
    oracle_compare_buffer(HK_DT_I32, b, c, 3, spec_default_tolerance(HK_DT_I32), &r);
    assert_true(r.pass);
    uint64_t ub[2] = { 1ull << 60, 3 }, uc[2] = { 1ull << 60, 4 };
    oracle_compare_buffer(HK_DT_U64, ub, uc, 2, spec_default_tolerance(HK_DT_U64), &r);
    assert_false(r.pass);
    assert_int_equal(r.first_bad, 1);
}

static void half_and_bfloat16_decode(void **state)
{
    uint16_t h[6] = { 0x3C00, 0xC000, 0x7C00, 0x0001, 0x7E00, 0x3555 };
    assert_true(oracle_element(HK_DT_F16, h, 0) == 1.0);
    assert_true(oracle_element(HK_DT_F16, h, 1) == -2.0);
    assert_true(isinf(oracle_element(HK_DT_F16, h, 2)));
    assert_true(oracle_element(HK_DT_F16, h, 3) == ldexp(1, -24));
    assert_true(isnan(oracle_element(HK_DT_F16, h, 4)));
    assert_true(fabs(oracle_element(HK_DT_F16, h, 5) - 0.33325) < 1e-4);
    uint16_t bf[2] = { 0x3F80, 0xC0A0 };
    assert_true(oracle_element(HK_DT_BF16, bf, 0) == 1.0);
    assert_true(oracle_element(HK_DT_BF16, bf, 1) == -5.0);
    /* fp16 tolerance: 1.0 vs 1.0009765625 (one ulp) passes; vs 1.5 fails */
    uint16_t b[1] = { 0x3C00 }, c[1] = { 0x3C01 };
    oracle_result r;
    oracle_compare_buffer(HK_DT_F16, b, c, 1, spec_default_tolerance(HK_DT_F16), &r);
    assert_true(r.pass);
    c[0] = 0x3E00;
    oracle_compare_buffer(HK_DT_F16, b, c, 1, spec_default_tolerance(HK_DT_F16), &r);
    assert_false(r.pass);
}

static void files_compare_with_spec_tolerance(void **state)
{
    float x[3] = { 1, 2, 3 }, y[3] = { 1, 2, 3.001f };
    int32_t k[2] = { 5, 6 };
    blob base = file_begin(2), cand = file_begin(2);
    file_output(&base, 1, HK_DT_F32, 3, x);
    file_output(&base, 3, HK_DT_I32, 2, k);
    file_output(&cand, 1, HK_DT_F32, 3, y);
    file_output(&cand, 3, HK_DT_I32, 2, k);
    oracle_file fb, fc;
    parse_blob(&base, &fb);
    parse_blob(&cand, &fc);
    assert_int_equal(fb.n, 2);
    assert_int_equal(fb.outputs[1].arg_index, 3);
    oracle_result r;
    /* no spec: fp32 defaults, 3.001 vs 3 is out */
    assert_int_equal(oracle_compare(NULL, &fb, &fc, &r), HK_OK);
    assert_false(r.pass);
    assert_int_equal(r.arg_index, 1);
    assert_int_equal(r.first_bad, 2);
    /* a spec whose argument 1 allows rtol 1e-3 */
    spec_arg args[4] = { 0 };
    args[1].name = "y";
    args[1].tol = (spec_tolerance){ 1e-3, 0, 1e-3 };
    args[3].name = "k";
    args[3].tol = spec_default_tolerance(HK_DT_I32);
    spec s = { 0 };
    s.args = args;
    s.n_args = 4;
    assert_int_equal(oracle_compare(&s, &fb, &fc, &r), HK_OK);
    assert_true(r.pass);
    assert_non_null(strstr(r.reason, "2 outputs within tolerance"));
    /* the integer output differs: named in the reason */
    oracle_file_free(&fc);
    int32_t k2[2] = { 5, 7 };
    free(cand.p);
    cand = file_begin(2);
    file_output(&cand, 1, HK_DT_F32, 3, y);
    file_output(&cand, 3, HK_DT_I32, 2, k2);
    parse_blob(&cand, &fc);
    assert_int_equal(oracle_compare(&s, &fb, &fc, &r), HK_OK);
    assert_false(r.pass);
    assert_int_equal(r.arg_index, 3);
    assert_non_null(strstr(r.reason, "output 'k': wrong answer"));
    oracle_file_free(&fc);
    /* different count: a mismatch, not a comparison */
    free(cand.p);
    cand = file_begin(2);
    file_output(&cand, 1, HK_DT_F32, 2, y);
    file_output(&cand, 3, HK_DT_I32, 2, k);
    parse_blob(&cand, &fc);
    assert_int_equal(oracle_compare(&s, &fb, &fc, &r), HK_OK);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "output mismatch"));
    oracle_file_free(&fc);
    oracle_file_free(&fb);
    free(base.p);
    free(cand.p);
}

/* A distribution the referee added (precision or grid) leaves float outputs to the fp64
 * rule: oracle_compare_precision only wants the layout and finite values. Its tolerance is
 * infinite, and inf * 0 is NaN: before this test a zero baseline element failed the bound
 * (H100, session 51: every candidate of mmcv's roi_align_rotated and deform_roi_pool,
 * block 256 and __restrict__ included, "288919 of 486717 elements out of tolerance (first
 * at 294: 0 vs baseline 0)" on grid(-2,100)). */
static void precision_passes_zero_outputs(void **state)
{
    (void)state;
    float x[4] = { 0, 1.5f, 0, -2 }, y[4] = { 0, 1.5f, 0, -2.25f };
    blob base = file_begin(1), cand = file_begin(1);
    file_output(&base, 0, HK_DT_F32, 4, x);
    file_output(&cand, 0, HK_DT_F32, 4, y);
    oracle_file fb, fc;
    parse_blob(&base, &fb);
    parse_blob(&cand, &fc);
    oracle_result r;
    assert_int_equal(oracle_compare_precision(NULL, &fb, &fc, &r), HK_OK);
    assert_true(r.pass);
    assert_int_equal(r.n_bad, 0);
    /* a non-finite value where the baseline is finite still fails, zero or not */
    oracle_file_free(&fc);
    free(cand.p);
    y[2] = NAN;
    cand = file_begin(1);
    file_output(&cand, 0, HK_DT_F32, 4, y);
    parse_blob(&cand, &fc);
    assert_int_equal(oracle_compare_precision(NULL, &fb, &fc, &r), HK_OK);
    assert_false(r.pass);
    assert_int_equal(r.first_bad, 2);
    oracle_file_free(&fc);
    oracle_file_free(&fb);
    free(base.p);
    free(cand.p);
}

static void malformed_files(void **state)
{
    float x[2] = { 1, 2 };
    blob good = file_begin(1);
    file_output(&good, 0, HK_DT_F32, 2, x);
    char err[200];
    oracle_file f;
    struct { size_t len; int patch_at; unsigned char patch; const char *want; } cases[] = {
        { 0, -1, 0, "bad magic" },
        { 10, -1, 0, "bad magic" },
        { 0, 0, 'X', "bad magic" },
        { 0, 8, 9, "version" },
        { 0, 20, 99, "unknown dtype" },
        { 1, -1, 0, "truncated" },      /* len - 1 */
        { 2, -1, 0, "trailing" },       /* len + 1 */
        { 0, 12, 2, "truncated at output 1" },
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        size_t len = good.len;
        if (i == 0) len = 0;
        else if (cases[i].len == 10) len = 10;
        else if (cases[i].len == 1) len = good.len - 1;
        else if (cases[i].len == 2) len = good.len + 1;
        unsigned char *p = hk_calloc(1, good.len + 1);
        memcpy(p, good.p, len < good.len ? len : good.len);
        if (cases[i].patch_at >= 0)
            p[cases[i].patch_at] = cases[i].patch;
        err[0] = '\0';
        assert_int_equal(oracle_parse(p, len, &f, err, sizeof err), HK_EPARSE);
        if (!strstr(err, cases[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].want);
    }
    free(good.p);
}

static void file_paths(void **state)
{
    char dir[] = "/tmp/hk_oracle_test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char bp[256], cp[256], missing[256];
    snprintf(bp, sizeof bp, "%s/base.bin", dir);
    snprintf(cp, sizeof cp, "%s/cand.bin", dir);
    snprintf(missing, sizeof missing, "%s/none.bin", dir);
    float x[2] = { 1, 2 };
    blob b = file_begin(1);
    file_output(&b, 0, HK_DT_F32, 2, x);
    FILE *f = fopen(bp, "wb");
    fwrite(b.p, 1, b.len, f);
    fclose(f);
    f = fopen(cp, "wb");
    fwrite(b.p, 1, b.len - 3, f);
    fclose(f);
    oracle_result r;
    assert_int_equal(oracle_compare_files(NULL, bp, bp, &r), HK_OK);
    assert_true(r.pass);
    assert_int_equal(oracle_compare_files(NULL, bp, cp, &r), HK_OK);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "candidate output unusable"));
    assert_int_equal(oracle_compare_files(NULL, bp, missing, &r), HK_OK);
    assert_false(r.pass);
    assert_int_equal(oracle_compare_files(NULL, missing, bp, &r), HK_ENOENT);
    assert_non_null(strstr(r.reason, "baseline output unusable"));
    unlink(bp);
    unlink(cp);
    rmdir(dir);
    free(b.p);
}

/* The widened tolerance: an element outside the dtype's tolerance of the baseline passes
 * when it is within the widening (the baseline's own fp64 error, twice), and is counted;
 * one beyond it still fails, with the widening in the reason; an integer output and an
 * output without a widening stay as they were. */
static void widened_tolerance(void **state)
{
    (void)state;
    char dir[] = "/tmp/hk_oracle_widen.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char bp[256], cp[256], fp[256];
    snprintf(bp, sizeof bp, "%s/base.bin", dir);
    snprintf(cp, sizeof cp, "%s/cand.bin", dir);
    snprintf(fp, sizeof fp, "%s/far.bin", dir);
    float base[3] = { 100.0f, -0.1f, 3.0f }, cand[3] = { 100.0f, -0.1003f, 3.0f },
          far[3] = { 100.0f, -0.102f, 3.0f };
    int32_t ints[2] = { 1, 2 };
    const char *paths[3] = { bp, cp, fp };
    const float *vals[3] = { base, cand, far };
    for (int k = 0; k < 3; k++) {
        blob b = file_begin(2);
        file_output(&b, 2, HK_DT_F32, 3, vals[k]);
        file_output(&b, 3, HK_DT_I32, 2, ints);
        FILE *f = fopen(paths[k], "wb");
        fwrite(b.p, 1, b.len, f);
        fclose(f);
        free(b.p);
    }
    oracle_result r;
    /* fp32 default tolerance (1e-5 + 1e-4 |b|): 3e-4 off at -0.1 fails */
    assert_int_equal(oracle_compare_files_widened(NULL, bp, cp, NULL, &r), HK_OK);
    assert_false(r.pass);
    assert_int_equal(r.n_widened, 0);
    oracle_widen widen[HK_MAX_ARGS] = { { 0, 0 } };
    widen[2].atol = 5e-4;
    widen[3].atol = 100; /* an integer output is never widened */
    assert_int_equal(oracle_compare_files_widened(NULL, bp, cp, widen, &r), HK_OK);
    if (!r.pass)
        fail_msg("%s", r.reason);
    assert_int_equal(r.n_widened, 1);
    assert_non_null(strstr(r.reason, "1 element within the tolerance widened"));
    /* 2e-3 off: beyond the widening */
    assert_int_equal(oracle_compare_files_widened(NULL, bp, fp, widen, &r), HK_OK);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "+ widening 0.0005"));
    /* the widening of another argument does nothing for this one */
    widen[2].atol = 0;
    widen[1].atol = 1;
    assert_int_equal(oracle_compare_files_widened(NULL, bp, cp, widen, &r), HK_OK);
    assert_false(r.pass);
    unlink(bp);
    unlink(cp);
    unlink(fp);
    rmdir(dir);
}

/* The blocked, threaded passes give what one pass over the elements gives: counts, the
 * first bad element and the worst one exactly, the sums to rounding. 5M elements (above
 * the size that runs on threads, and not a multiple of the block), with bad, widened,
 * non-finite and zero elements scattered over many blocks and the first bad one late. */
static void blocked_passes_match_one_pass(void **state)
{
    (void)state;
    const size_t n = 5000011;
    float *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double *ref = malloc(n * sizeof *ref);
    assert_true(b && c && ref);
    for (size_t i = 0; i < n; i++) {
        b[i] = (float)sin((double)i * 0.37) * (i % 7 == 0 ? 0.0f : 3.0f);
        c[i] = b[i] + (float)((i % 13) * 1e-7);
        ref[i] = (double)b[i] + (i % 5) * 1e-9;
    }
    for (size_t i = 1234567; i < n; i += 300007) /* out of tolerance */
        c[i] = b[i] + 0.5f;
    for (size_t i = 2000003; i < n; i += 700001) /* only with the widening */
        c[i] = b[i] + 2e-4f * (fabsf(b[i]) + 1.0f);
    c[4999999] = NAN;
    c[3100000] = INFINITY;
    b[4000000] = NAN;
    c[4000000] = NAN;
    ref[4500000] = INFINITY;
    spec_tolerance tol = {.rtol = 1e-4, .atol = 1e-6, .l2 = 0};
    oracle_widen widen = {.atol = 1e-3, .l2 = 0};
    /* one pass, written out here */
    size_t bad = 0, nonfinite = 0, widened = 0;
    long long first = -1;
    double max_abs = 0, max_rel = 0, d2 = 0, b2 = 0;
    for (size_t i = 0; i < n; i++) {
        double x = b[i], y = c[i];
        bool ok;
        if (isnan(x)) {
            ok = isnan(y);
        } else if (isinf(x)) {
            ok = y == x;
        } else if (!isfinite(y)) {
            ok = false;
            nonfinite++;
        } else {
            double d = fabs(y - x), limit = tol.atol + tol.rtol * fabs(x);
            ok = d <= limit + widen.atol;
            widened += ok && d > limit;
            max_abs = d > max_abs ? d : max_abs;
            if (x != 0 && d / fabs(x) > max_rel)
                max_rel = d / fabs(x);
            d2 += d * d;
            b2 += x * x;
        }
        if (!ok && bad++ == 0)
            first = (long long)i;
    }
    oracle_result r;
    oracle_compare_buffer_widened(HK_DT_F32, b, c, n, tol, widen, &r);
    assert_int_equal(r.n_bad, bad);
    assert_int_equal(r.first_bad, first);
    assert_int_equal(r.n_nonfinite, nonfinite);
    assert_int_equal(r.n_widened, widened);
    assert_true(widened > 0 && bad > 3 && first == 1234567);
    assert_true(r.max_abs == max_abs && r.max_rel == max_rel);
    /* a sum of 5M terms in one order or another: to about n * eps */
    assert_true(fabs(r.rel_l2 - sqrt(d2 / b2)) <= 1e-9 * sqrt(d2 / b2));

    size_t cnt = 0, nf = 0, rnf = 0;
    long long first_nf = -1, worst = -1;
    double rmax = 0, worst_d = 0, sd2 = 0, sr2 = 0;
    for (size_t i = 0; i < n; i++) {
        double x = ref[i], v = c[i];
        if (!isfinite(x)) {
            rnf++;
            continue;
        }
        if (!isfinite(v)) {
            if (nf++ == 0)
                first_nf = (long long)i;
            continue;
        }
        double d = fabs(v - x);
        cnt++;
        rmax = fabs(x) > rmax ? fabs(x) : rmax;
        if (d > worst_d || worst < 0) {
            worst_d = d > worst_d ? d : worst_d;
            worst = (long long)i;
        }
        sd2 += d * d;
        sr2 += x * x;
    }
    oracle_ref64_err e;
    assert_int_equal(oracle_ref64_error(ref, c, HK_DT_F32, n, &e), HK_OK);
    assert_int_equal(e.n, cnt);
    assert_int_equal(e.n_nonfinite, nf);
    assert_int_equal(e.first_nonfinite, first_nf);
    assert_int_equal(e.n_ref_nonfinite, rnf);
    assert_int_equal(e.worst, worst);
    assert_true(e.max_abs == worst_d && e.ref_max == rmax);
    assert_true(fabs(e.sum_d2 - sd2) <= 1e-9 * sd2 && fabs(e.sum_r2 - sr2) <= 1e-9 * sr2);
    free(b);
    free(c);
    free(ref);
}

/* Session 40: an output file's fault is stored in English inside a rejection ("candidate
 * output unusable: ...") and said again in zh-CN where shown (hk_tr_said). */
static void said_zh(void **state)
{
    (void)state;
    unsigned char *file = hk_calloc(1, 32);
    assert_non_null(file);
    memcpy(file, "NOTHKOUT", 8);
    oracle_file f;
    char err[256];
    assert_int_equal(oracle_parse(file, 32, &f, err, sizeof err), HK_EPARSE);
    assert_string_equal(err, "not a harness output file (bad magic)");
    char *stored = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_ORACLE_CAND_UNUSABLE), err);
    said_zh_check(stored, "候选版本输出不可用：不是测试框架的输出文件（魔数不对）", NULL, true);
    hk_free(stored);
    said_zh_check("output 1: truncated (4096 elements announced)",
                  "输出 1：被截断（声明了 4096 个元素）", NULL, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identical_and_within_tolerance),
        cmocka_unit_test(wrong_element_reports_index_and_errors),
        cmocka_unit_test(nan_and_inf_never_pass),
        cmocka_unit_test(integers_exact_by_default),
        cmocka_unit_test(half_and_bfloat16_decode),
        cmocka_unit_test(files_compare_with_spec_tolerance),
        cmocka_unit_test(precision_passes_zero_outputs),
        cmocka_unit_test(malformed_files),
        cmocka_unit_test(file_paths),
        cmocka_unit_test(said_zh),
        cmocka_unit_test(widened_tolerance),
        cmocka_unit_test(blocked_passes_match_one_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
