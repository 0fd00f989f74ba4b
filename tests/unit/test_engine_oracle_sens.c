/* The referee's sensitivity check (oracle.h oracle_sens_check, oracle_sens_judge; hk_harness.h
 * hk_perturb_plan; docs/accuracy.md "The sensitivity check"), on CPU emulations of the
 * kernels it must tell apart, judged by the real functions. reduce_sum at its timed size
 * 2^24 (bench/kernels/reduce_sum.bench.json, its three distributions): the baseline (one
 * float accumulator in element order, as the naive kernel's atomics) and honest orders (a
 * pairwise tree, warp shuffle trees added in warp order, block trees added in a fresh
 * random order each run) pass; the samplers that the fp64 rule passes, grid_aware's
 * (tests/gpu/cheats/reduce_sum_grid_aware.cu on real inputs: every other warp skipped, the
 * kept warps x2) and lopsided_sum's (every 4th element x4), are rejected as insensitive on
 * every seed set. Nonlinear rows (softmax, layernorm) in another summation order pass; a
 * baseline whose response is not finite (exp of raised inputs), or that does not respond,
 * skips the check with a note and rejects nothing. Prints the margins (the record's
 * figures: bench/results/2026-12-07-sens-cpu-s51.md). */
#include "core/hk.h"
#include "core/i18n.h"
#include "measure/oracle.h"
#include "spec/spec.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOT __attribute__((optimize("O2"))) /* the unit tests are built -O0 */

#define N_BIG (1L << 24) /* reduce_sum's timed size */
#define SEEDS 3

static HOT uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static HOT double u01(uint64_t *s) { return ((double)(splitmix(s) >> 11) + 0.5) * 0x1p-53; }

static HOT void fill(float *x, long n, hk_dist d, uint64_t seed)
{
    for (long i = 0; i < n; i++) {
        double u = u01(&seed);
        x[i] = (float)(d.kind == HK_DIST_UNIFORM
                           ? d.a + (d.b - d.a) * u
                           : d.a + d.b * sqrt(-2 * log(u)) * cos(6.283185307179586 * u01(&seed)));
    }
}

/* ---- the kernels: x (n elements; rows x cols for the row kernels) into out ---- */

typedef void (*kern_fn)(const float *x, long n, long cols, uint64_t run, float *out);

static HOT void sum_index(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    float acc = 0.0f;
    for (long i = 0; i < n; i++)
        acc += x[i];
    out[0] = acc;
}

static HOT float pairwise(const float *x, long n)
{
    if (n <= 8) {
        float a = 0.0f;
        for (long i = 0; i < n; i++)
            a += x[i];
        return a;
    }
    return pairwise(x, n / 2) + pairwise(x + n / 2, n - n / 2);
}
static HOT void sum_pairwise(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    out[0] = pairwise(x, n);
}

/* a warp's shuffle tree (xor butterfly) over 32 elements from w*32 */
static HOT float warp_tree(const float *x, long n, long w)
{
    float v[32];
    for (int l = 0; l < 32; l++)
        v[l] = w * 32 + l < n ? x[w * 32 + l] : 0.0f;
    for (int off = 16; off; off >>= 1)
        for (int l = 0; l < off; l++)
            v[l] += v[l + off];
    return v[0];
}
static HOT void sum_warps(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    float acc = 0.0f;
    for (long w = 0; w * 32 < n; w++)
        acc += warp_tree(x, n, w);
    out[0] = acc;
}

/* block trees of 256 (8 warps), the blocks' atomics in a random order, fresh each run */
static HOT void sum_blocks_random(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols;
    long nb = (n + 255) / 256;
    float *part = malloc((size_t)nb * sizeof *part);
    long *order = malloc((size_t)nb * sizeof *order);
    assert_non_null(part);
    assert_non_null(order);
    for (long b = 0; b < nb; b++) {
        float p = 0.0f;
        for (long w = b * 8; w < b * 8 + 8 && w * 32 < n; w++)
            p += warp_tree(x, n, w);
        part[b] = p;
        order[b] = b;
    }
    uint64_t s = run * 7919 + 1;
    for (long b = nb - 1; b > 0; b--) {
        long j = (long)(splitmix(&s) % (uint64_t)(b + 1)), t = order[b];
        order[b] = order[j];
        order[j] = t;
    }
    float acc = 0.0f;
    for (long b = 0; b < nb; b++)
        acc += part[order[b]];
    out[0] = acc;
    free(part);
    free(order);
}

/* reduce_sum_grid_aware.cu on the spec's inputs (not grid-like): every other warp, x2 */
static HOT void sum_skip_warps(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    float acc = 0.0f;
    for (long w = 0; w * 32 < n; w += 2)
        acc += 2.0f * warp_tree(x, n, w);
    out[0] = acc;
}

/* lopsided_sum.cu: every 4th element, x4 */
static HOT void sum_lopsided(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    float acc = 0.0f;
    for (long i = 0; i < n; i += 4)
        acc += 4.0f * x[i];
    out[0] = acc;
}

/* softmax over each row: max, sum of exp(x - max) (in index order, or pairwise) */
static HOT void softmax_rows_k(const float *x, long n, long cols, bool pair, float *out)
{
    float *e = malloc((size_t)cols * sizeof *e);
    assert_non_null(e);
    for (long r = 0; r < n / cols; r++) {
        const float *row = x + r * cols;
        float m = row[0];
        for (long c = 1; c < cols; c++)
            m = fmaxf(m, row[c]);
        float s = 0.0f;
        for (long c = 0; c < cols; c++) {
            e[c] = expf(row[c] - m);
            s += e[c];
        }
        if (pair)
            s = pairwise(e, cols);
        for (long c = 0; c < cols; c++)
            out[r * cols + c] = e[c] / s;
    }
    free(e);
}
static HOT void softmax_rows(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)run;
    softmax_rows_k(x, n, cols, false, out);
}
static HOT void softmax_rows_pairwise(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)run;
    softmax_rows_k(x, n, cols, true, out);
}

/* layernorm over each row (no affine): two-pass mean and variance in index order, or
 * Welford's one pass (another rounding everywhere) */
static HOT void layernorm_k(const float *x, long n, long cols, bool welford, float *out)
{
    for (long r = 0; r < n / cols; r++) {
        const float *row = x + r * cols;
        float mean = 0.0f, var = 0.0f;
        if (welford) {
            float m2 = 0.0f;
            for (long c = 0; c < cols; c++) {
                float d = row[c] - mean;
                mean += d / (float)(c + 1);
                m2 += d * (row[c] - mean);
            }
            var = m2 / (float)cols;
        } else {
            for (long c = 0; c < cols; c++)
                mean += row[c];
            mean /= (float)cols;
            for (long c = 0; c < cols; c++)
                var += (row[c] - mean) * (row[c] - mean);
            var /= (float)cols;
        }
        float rs = 1.0f / sqrtf(var + 1e-5f);
        for (long c = 0; c < cols; c++)
            out[r * cols + c] = (row[c] - mean) * rs;
    }
}
static HOT void layernorm(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)run;
    layernorm_k(x, n, cols, false, out);
}
static HOT void layernorm_welford(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)run;
    layernorm_k(x, n, cols, true, out);
}

/* elementwise exp (its raised inputs overflow: the response is not finite) */
static HOT void exp_elem(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    for (long i = 0; i < n; i++)
        out[i] = expf(x[i]);
}

/* a kernel whose output does not depend on its input */
static void constant_out(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)x, (void)run;
    for (long i = 0; i < cols; i++)
        out[i] = 1.0f + (float)i;
    (void)n;
}

/* ---- the harness, emulated: inputs x, perturbed as --perturb does (hk_perturb_plan,
 * argument 0, rounded to float as hk_store), one output of out_count floats ---- */

typedef struct {
    float *x;
    long n, cols;
    size_t out_count;
    hk_dist d;
    kern_fn base, cand;
    uint64_t pseed, run;
    bool cand_fails_perturbed; /* a candidate process that crashes on x' */
} emu;

static int emu_run(void *ctx, bool baseline, double scale, oracle_file *out, char *why, size_t len)
{
    emu *e = ctx;
    uint64_t pos[HK_PERTURB_N];
    double amount[HK_PERTURB_N];
    float old[HK_PERTURB_N];
    int np = 0;
    if (!baseline && scale > 0.0 && e->cand_fails_perturbed) {
        snprintf(why, len, "crash: killed by signal 11");
        return ORACLE_SENS_RUN_FAILED;
    }
    if (scale > 0.0)
        hk_perturb_plan(e->pseed, 0, (uint64_t)e->n, HK_DT_F32, e->d, scale, pos, amount, &np);
    for (int j = 0; j < np; j++) {
        old[j] = e->x[pos[j]];
        e->x[pos[j]] = (float)((double)e->x[pos[j]] + amount[j]);
    }
    size_t bytes = e->out_count * sizeof(float);
    out->blob = hk_malloc(bytes);
    out->outputs = hk_calloc(1, sizeof *out->outputs);
    assert_non_null(out->blob);
    assert_non_null(out->outputs);
    out->n = 1;
    out->outputs[0] = (oracle_output){.arg_index = 1, .dtype = HK_DT_F32, .count = e->out_count,
                                      .data = out->blob};
    (baseline ? e->base : e->cand)(e->x, e->n, e->cols, e->run++, (float *)(void *)out->blob);
    for (int j = np - 1; j >= 0; j--)
        e->x[pos[j]] = old[j];
    return HK_OK;
}

static const hk_dist reduce_dists[3] = {
    {HK_DIST_UNIFORM, 0, 1}, {HK_DIST_NORMAL, 1, 0.25}, {HK_DIST_UNIFORM, 0.25, 0.75}};

static float *big_input(void)
{
    float *x = malloc((size_t)N_BIG * sizeof *x);
    assert_non_null(x);
    return x;
}

/* the reduce_sum kernels over 3 distributions x SEEDS seeds: honest ones pass, the
 * samplers fail with the element and the changes named */
static void reduce_sum_orders(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        kern_fn k;
        bool honest;
    } kinds[] = {
        {"baseline (index order)", sum_index, true},
        {"pairwise", sum_pairwise, true},
        {"warp trees, warp order", sum_warps, true},
        {"block trees, random order", sum_blocks_random, true},
        {"grid_aware on real inputs (1 warp in 2, x2)", sum_skip_warps, false},
        {"lopsided (every 4th, x4)", sum_lopsided, false},
    };
    /* reduce_sum's own spec: its output's tolerance (rtol 1e-3, atol 1e-2) in the bound */
    spec *rs = NULL;
    spec_diags dg = {0};
    assert_int_equal(spec_load(HK_SOURCE_DIR "/bench/kernels/reduce_sum.bench.json", &rs, &dg), HK_OK);
    spec_diags_free(&dg);
    assert_true(rs->n_args == 3 && rs->args[1].tol.rtol == 1e-3);
    float *x = big_input();
    double worst[6] = {0}, least[6], scale_max = 0;
    int runs_max = 0;
    for (int k = 0; k < 6; k++)
        least[k] = INFINITY;
    for (int d = 0; d < 3; d++)
        for (int sd = 0; sd < SEEDS; sd++) {
            fill(x, N_BIG, reduce_dists[d], 1000u * (uint64_t)d + (uint64_t)sd + 1);
            for (int k = 0; k < 6; k++) {
                emu e = {.x = x, .n = N_BIG, .cols = 1, .out_count = 1, .d = reduce_dists[d],
                         .base = sum_index, .cand = kinds[k].k, .pseed = 77u + (uint64_t)sd * 31u};
                oracle_sens_outcome o;
                assert_int_equal(oracle_sens_check(rs, emu_run, &e, &o), HK_OK);
                if (o.verdict != (kinds[k].honest ? ORACLE_SENS_PASS : ORACLE_SENS_FAIL))
                    fail_msg("%s on dist %d seed %d: verdict %d (worst %g, expected %g got %g, note %s)",
                             kinds[k].name, d, sd, (int)o.verdict, o.worst, o.expected, o.got, o.note);
                if (kinds[k].honest) {
                    worst[k] = fmax(worst[k], o.worst);
                } else {
                    assert_int_equal(o.arg_index, 1);
                    assert_int_equal(o.element, 0);
                    least[k] = fmin(least[k], fabs(o.got - o.expected) / o.bound);
                }
                scale_max = fmax(scale_max, o.scale);
                runs_max = o.runs > runs_max ? o.runs : runs_max;
            }
        }
    for (int k = 0; k < 6; k++)
        fprintf(stderr, "reduce_sum 2^24, %d seed sets: %-45s %s %.3g of the bound\n", 3 * SEEDS,
                kinds[k].name, kinds[k].honest ? "passes, worst" : "rejected, least miss",
                kinds[k].honest ? worst[k] : least[k]);
    fprintf(stderr, "reduce_sum 2^24: amount used up to %g x the magnitude, at most %d runs per check\n",
            scale_max, runs_max);
    free(x);
    spec_free(rs);
}

/* softmax and layernorm rows (64 x 4096, normal(0, 1)): another summation order passes */
static void nonlinear_rows(void **state)
{
    (void)state;
    const long rows = 64, cols = 4096, n = rows * cols;
    float *x = malloc((size_t)n * sizeof *x);
    assert_non_null(x);
    const hk_dist d = {HK_DIST_NORMAL, 0, 1};
    static const struct {
        const char *name;
        kern_fn base, cand;
    } pairs[] = {
        {"softmax rows, pairwise sum", softmax_rows, softmax_rows_pairwise},
        {"layernorm rows, Welford", layernorm, layernorm_welford},
        {"softmax rows, itself", softmax_rows, softmax_rows},
    };
    for (int p = 0; p < 3; p++)
        for (int sd = 0; sd < SEEDS; sd++) {
            fill(x, n, d, 500u + (uint64_t)sd);
            emu e = {.x = x, .n = n, .cols = cols, .out_count = (size_t)n, .d = d,
                     .base = pairs[p].base, .cand = pairs[p].cand, .pseed = 9u + (uint64_t)sd};
            oracle_sens_outcome o;
            assert_int_equal(oracle_sens_check(NULL, emu_run, &e, &o), HK_OK);
            if (o.verdict != ORACLE_SENS_PASS)
                fail_msg("%s seed %d: verdict %d at %lld (expected %g got %g bound %g) %s", pairs[p].name,
                         sd, (int)o.verdict, o.element, o.expected, o.got, o.bound, o.note);
            assert_true(o.n_significant > 0);
            fprintf(stderr, "%s, seed %d: passes, worst %.3g of the bound, %zu elements significant, "
                    "amount %g, %d runs\n", pairs[p].name, sd, o.worst, o.n_significant, o.scale, o.runs);
        }
    free(x);
}

/* a response that is not finite, or none: not checked, said why, never a rejection */
static void skipped_with_note(void **state)
{
    (void)state;
    const long n = 4096;
    float x[4096];
    const hk_dist hot = {HK_DIST_UNIFORM, 60, 80};
    fill(x, n, hot, 3);
    emu e = {.x = x, .n = n, .cols = 1, .out_count = (size_t)n, .d = hot, .base = exp_elem,
             .cand = sum_index /* never run */, .pseed = 5};
    oracle_sens_outcome o;
    hk_i18n_thread_lang(HK_LANG_EN);
    assert_int_equal(oracle_sens_check(NULL, emu_run, &e, &o), HK_OK);
    assert_int_equal(o.verdict, ORACLE_SENS_SKIPPED);
    assert_int_equal(o.runs, 2); /* b(x), b(x') at the first amount */
    assert_non_null(strstr(o.note, "not finite"));
    fprintf(stderr, "exp of uniform(60, 80): %s\n", o.note);
    const hk_dist u = {HK_DIST_UNIFORM, -1, 1};
    fill(x, n, u, 4);
    e = (emu){.x = x, .n = n, .cols = 16, .out_count = 16, .d = u, .base = constant_out,
              .cand = constant_out, .pseed = 6};
    assert_int_equal(oracle_sens_check(NULL, emu_run, &e, &o), HK_OK);
    assert_int_equal(o.verdict, ORACLE_SENS_SKIPPED);
    assert_true(o.runs <= 1 + ORACLE_SENS_TRIES);
    assert_true(o.tried == ORACLE_SENS_MAX_SCALE);
    assert_non_null(strstr(o.note, "do not move"));
    fprintf(stderr, "an output that ignores its input: %s\n", o.note);
    /* a candidate that fails on the raised inputs is insensitive, the run's words kept */
    fill(x, n, u, 5);
    e = (emu){.x = x, .n = n, .cols = 1, .out_count = (size_t)n, .d = u, .base = exp_elem,
              .cand = exp_elem, .pseed = 7, .cand_fails_perturbed = true};
    assert_int_equal(oracle_sens_check(NULL, emu_run, &e, &o), HK_OK);
    assert_int_equal(o.verdict, ORACLE_SENS_FAIL);
    assert_int_equal(o.element, -1);
    assert_non_null(strstr(o.note, "signal 11"));
}

/* the element rule alone: a change where the baseline has none fails; integers are not
 * judged; a candidate NaN fails */
static void judge_elements(void **state)
{
    (void)state;
    const float b0[4] = {1, 2, 3, 4}, b1[4] = {1, 2, 3 + 64, 4};
    const float c0[4] = {1, 2, 3, 4}, ok1[4] = {1, 2, 3 + 64.5f, 4}, moved[4] = {1.5f, 2, 3 + 64, 4},
                missed[4] = {1, 2, 3 + 32, 4}, nan1[4] = {1, 2, NAN, 4};
    oracle_sens_result r;
    oracle_sens_judge(HK_DT_F32, b0, b1, c0, ok1, 4, NULL, NULL, &r);
    assert_true(r.pass);
    assert_int_equal(r.n_significant, 1);
    oracle_sens_judge(HK_DT_F32, b0, b1, c0, moved, 4, NULL, NULL, &r);
    assert_false(r.pass);
    assert_int_equal(r.element, 0);
    assert_true(r.expected == 0.0 && r.got == 0.5);
    oracle_sens_judge(HK_DT_F32, b0, b1, c0, missed, 4, NULL, NULL, &r);
    assert_false(r.pass);
    assert_int_equal(r.element, 2);
    assert_true(r.expected == 64.0 && r.got == 32.0);
    oracle_sens_judge(HK_DT_F32, b0, b1, c0, nan1, 4, NULL, NULL, &r);
    assert_false(r.pass);
    const int32_t i0[2] = {1, 2}, i1[2] = {1, 9};
    oracle_sens_judge(HK_DT_I32, i0, i1, i0, i0, 2, NULL, NULL, &r);
    assert_true(r.pass);
    assert_int_equal(r.n_significant, 0);
    /* the two runs' tolerances: a candidate 0.9% below the baseline on x and 0.9% above on x'
     * is within a 1% tolerance on both runs, and so within the bound (the rounding allowance
     * alone, 2 x 2^-10 of 100, would reject it) */
    const float h0[2] = {100, 1}, hc0[2] = {99.1f, 1}, hc1[2] = {100.9f, 1};
    const spec_tolerance loose = {.rtol = 1e-2, .atol = 1e-3};
    oracle_sens_judge(HK_DT_F32, h0, h0, hc0, hc1, 2, NULL, NULL, &r);
    assert_false(r.pass);
    oracle_sens_judge(HK_DT_F32, h0, h0, hc0, hc1, 2, NULL, &loose, &r);
    assert_true(r.pass);
}

/* the plan: 4 distinct positions, amounts 64x apart from scale x the magnitude, the same
 * for the same seed, others for another; nothing for integers, grids, zeros, tiny buffers */
static void plan_rules(void **state)
{
    (void)state;
    uint64_t p[HK_PERTURB_N], q[HK_PERTURB_N];
    double a[HK_PERTURB_N], b[HK_PERTURB_N];
    int n = 0, m = 0;
    const hk_dist u = {HK_DIST_UNIFORM, -3, 2}, nrm = {HK_DIST_NORMAL, 1, 0.25};
    hk_perturb_plan(42, 0, 100, HK_DT_F32, u, 64, p, a, &n);
    assert_int_equal(n, HK_PERTURB_N);
    for (int j = 0; j < n; j++) {
        assert_true(p[j] < 100);
        for (int k = 0; k < j; k++)
            assert_true(p[k] != p[j]);
        assert_true(a[j] == 64.0 * 3.0 * ldexp(1.0, -6 * j));
    }
    hk_perturb_plan(42, 0, 100, HK_DT_F32, u, 64, q, b, &m);
    assert_memory_equal(p, q, sizeof p);
    hk_perturb_plan(43, 0, 100, HK_DT_F32, u, 64, q, b, &m);
    assert_true(memcmp(p, q, sizeof p) != 0);
    hk_perturb_plan(42, 1, 100, HK_DT_F32, u, 64, q, b, &m);
    assert_true(memcmp(p, q, sizeof p) != 0);
    hk_perturb_plan(42, 0, 100, HK_DT_BF16, nrm, 1, q, b, &m);
    assert_int_equal(m, HK_PERTURB_N);
    assert_true(b[0] == 1.25);
    const hk_dist grid = {HK_DIST_GRID, 0, 1}, ints = {HK_DIST_INT, 0, 9}, zeros = {HK_DIST_ZEROS, 0, 0};
    hk_perturb_plan(42, 0, 100, HK_DT_F32, grid, 1, q, b, &m);
    assert_int_equal(m, 0);
    hk_perturb_plan(42, 0, 100, HK_DT_F32, ints, 1, q, b, &m);
    assert_int_equal(m, 0);
    hk_perturb_plan(42, 0, 100, HK_DT_F32, zeros, 1, q, b, &m);
    assert_int_equal(m, 0);
    hk_perturb_plan(42, 0, 100, HK_DT_I32, u, 1, q, b, &m);
    assert_int_equal(m, 0);
    hk_perturb_plan(42, 0, HK_PERTURB_N - 1, HK_DT_F32, u, 1, q, b, &m);
    assert_int_equal(m, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plan_rules),
        cmocka_unit_test(judge_elements),
        cmocka_unit_test(skipped_with_note),
        cmocka_unit_test(nonlinear_rows),
        cmocka_unit_test(reduce_sum_orders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
