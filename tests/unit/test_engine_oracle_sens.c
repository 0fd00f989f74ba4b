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
 * skips the check with a note and rejects nothing. dot at 2^24 on the referee's
 * uniform(-2,2) (a sum that cancels, its baseline's atomics in a fresh order each run):
 * the baseline in another order and a block reduction pass. The checked distribution
 * (measure_sens_dist) is picked by the seed: a sampler honest on reduce_sum's uniform(0,1)
 * alone passes there and is insensitive on the other two. Prints the margins (the record's
 * figures: bench/results/2026-12-07-sens-cpu-s51.md, 2026-12-07-rev-cpu-s51.md). */
#include "core/hk.h"
#include "core/i18n.h"
#include "measure/measure.h"
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
    bool out_of_range;         /* session 51's raise: x + amount even past a uniform's hi */
} emu;

static int emu_run(void *ctx, bool baseline, double scale, int kind, oracle_file *out, char *why, size_t len)
{
    emu *e = ctx;
    uint64_t pos[HK_PERTURB_MAX];
    double amount[HK_PERTURB_MAX];
    float old[HK_PERTURB_MAX];
    int np = 0;
    if (!baseline && scale > 0.0 && e->cand_fails_perturbed) {
        snprintf(why, len, "crash: killed by signal 11");
        return ORACLE_SENS_RUN_FAILED;
    }
    if (scale > 0.0)
        hk_perturb_plan_kind(e->pseed, 0, (uint64_t)e->n, HK_DT_F32, e->d, scale, kind, pos, amount, &np);
    for (int j = 0; j < np; j++) {
        old[j] = e->x[pos[j]];
        e->x[pos[j]] = (float)(e->out_of_range ? (double)e->x[pos[j]] + amount[j]
                                               : hk_perturb_value((double)e->x[pos[j]], amount[j], e->d, scale));
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
                assert_int_equal(oracle_sens_check(rs, NULL, emu_run, &e, &o), HK_OK);
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
            assert_int_equal(oracle_sens_check(NULL, NULL, emu_run, &e, &o), HK_OK);
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
    const hk_dist hot = {HK_DIST_NORMAL, 70, 5}; /* raised by 75 (a uniform's stays in range) */
    fill(x, n, hot, 3);
    emu e = {.x = x, .n = n, .cols = 1, .out_count = (size_t)n, .d = hot, .base = exp_elem,
             .cand = sum_index /* never run */, .pseed = 5};
    oracle_sens_outcome o;
    hk_i18n_thread_lang(HK_LANG_EN);
    assert_int_equal(oracle_sens_check(NULL, NULL, emu_run, &e, &o), HK_OK);
    assert_int_equal(o.verdict, ORACLE_SENS_SKIPPED);
    assert_int_equal(o.runs, 3); /* b(x) twice, b(x') at the first amount */
    assert_non_null(strstr(o.note, "not finite"));
    fprintf(stderr, "exp of normal(70, 5): %s\n", o.note);
    const hk_dist u = {HK_DIST_UNIFORM, -1, 1};
    fill(x, n, u, 4);
    e = (emu){.x = x, .n = n, .cols = 16, .out_count = 16, .d = u, .base = constant_out,
              .cand = constant_out, .pseed = 6};
    assert_int_equal(oracle_sens_check(NULL, NULL, emu_run, &e, &o), HK_OK);
    assert_int_equal(o.verdict, ORACLE_SENS_SKIPPED);
    assert_true(o.runs <= 2 + ORACLE_SENS_TRIES);
    assert_true(o.tried == ORACLE_SENS_MAX_SCALE);
    assert_non_null(strstr(o.note, "do not move"));
    fprintf(stderr, "an output that ignores its input: %s\n", o.note);
    /* a candidate that fails on the raised inputs is insensitive, the run's words kept */
    fill(x, n, u, 5);
    e = (emu){.x = x, .n = n, .cols = 1, .out_count = (size_t)n, .d = u, .base = exp_elem,
              .cand = exp_elem, .pseed = 7, .cand_fails_perturbed = true};
    assert_int_equal(oracle_sens_check(NULL, NULL, emu_run, &e, &o), HK_OK);
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

/* ---- dot on its referee distribution (issue: a scalar with cancellation) ----
 * bench/kernels/dot.bench.json's inputs are integer-valued, so the check runs on the
 * referee's added uniform(-2,2) at the timed size 2^24: a zero-mean sum whose result is
 * small next to its partial sums, and whose rounding (about 2^-24 of the partial sums on
 * every add) does not scale with the result. The baseline is one float atomicAdd per
 * product: emulated as warps in a fresh random order each run, lanes in order. */

typedef float (*dot_fn)(const float *a, const float *b, long n, uint64_t run);

static HOT void shuffle_long(long *o, long m, uint64_t s)
{
    for (long i = 0; i < m; i++)
        o[i] = i;
    for (long i = m - 1; i > 0; i--) {
        long j = (long)(splitmix(&s) % (uint64_t)(i + 1)), t = o[i];
        o[i] = o[j];
        o[j] = t;
    }
}

static HOT float dot_atomics(const float *a, const float *b, long n, uint64_t run)
{
    long nw = (n + 31) / 32;
    long *o = malloc((size_t)nw * sizeof *o);
    assert_non_null(o);
    shuffle_long(o, nw, run * 7919 + 3);
    float acc = 0.0f;
    for (long w = 0; w < nw; w++)
        for (long i = o[w] * 32; i < o[w] * 32 + 32 && i < n; i++)
            acc += a[i] * b[i];
    free(o);
    return acc;
}

/* an honest block reduction: 256 products a block by a tree, the blocks' atomics in a
 * fresh random order */
static HOT float dot_blocks(const float *a, const float *b, long n, uint64_t run)
{
    long nb = (n + 255) / 256;
    long *o = malloc((size_t)nb * sizeof *o);
    float *part = malloc((size_t)nb * sizeof *part);
    assert_non_null(o);
    assert_non_null(part);
    for (long k = 0; k < nb; k++) {
        float v[256];
        for (int l = 0; l < 256; l++)
            v[l] = k * 256 + l < n ? a[k * 256 + l] * b[k * 256 + l] : 0.0f;
        for (int off = 128; off; off >>= 1)
            for (int l = 0; l < off; l++)
                v[l] += v[l + off];
        part[k] = v[0];
    }
    shuffle_long(o, nb, run * 104729 + 5);
    float acc = 0.0f;
    for (long k = 0; k < nb; k++)
        acc += part[o[k]];
    free(o);
    free(part);
    return acc;
}

typedef struct {
    float *a, *b;
    long n;
    hk_dist d;
    dot_fn base, cand;
    uint64_t pseed, run;
} emu_dot;

static int emu_dot_run(void *ctx, bool baseline, double scale, int kind, oracle_file *out, char *why,
                       size_t len)
{
    emu_dot *e = ctx;
    (void)why, (void)len;
    float *arg[2] = {e->a, e->b};
    uint64_t pos[2][HK_PERTURB_MAX];
    double amount[2][HK_PERTURB_MAX];
    float old[2][HK_PERTURB_MAX];
    int np[2] = {0, 0};
    for (int k = 0; k < 2 && scale > 0.0; k++) {
        hk_perturb_plan_kind(e->pseed, k, (uint64_t)e->n, HK_DT_F32, e->d, scale, kind, pos[k], amount[k],
                             &np[k]);
        for (int j = 0; j < np[k]; j++) {
            old[k][j] = arg[k][pos[k][j]];
            arg[k][pos[k][j]] = (float)hk_perturb_value((double)arg[k][pos[k][j]], amount[k][j], e->d, scale);
        }
    }
    out->blob = hk_malloc(sizeof(float));
    out->outputs = hk_calloc(1, sizeof *out->outputs);
    assert_non_null(out->blob);
    assert_non_null(out->outputs);
    out->n = 1;
    out->outputs[0] = (oracle_output){.arg_index = 2, .dtype = HK_DT_F32, .count = 1, .data = out->blob};
    *(float *)(void *)out->blob = (baseline ? e->base : e->cand)(e->a, e->b, e->n, e->run++);
    for (int k = 1; k >= 0; k--)
        for (int j = np[k] - 1; j >= 0; j--)
            arg[k][pos[k][j]] = old[k][j];
    return HK_OK;
}

#define DOT_SEEDS 24

/* the baseline against itself (another random order) and an honest block reduction, on
 * DOT_SEEDS seeds: neither may be rejected */
static void dot_referee_dist(void **state)
{
    (void)state;
    spec *ds = NULL;
    spec_diags dg = {0};
    assert_int_equal(spec_load(HK_SOURCE_DIR "/bench/kernels/dot.bench.json", &ds, &dg), HK_OK);
    spec_diags_free(&dg);
    assert_true(ds->n_args == 4 && ds->args[2].tol.rtol == 1e-3);
    const hk_dist u = {HK_DIST_UNIFORM, -2, 2};
    float *a = big_input(), *b = big_input();
    static const struct {
        const char *name;
        dot_fn k;
    } kinds[] = {{"the baseline itself (atomics, another order)", dot_atomics},
                 {"block trees, random block order", dot_blocks}};
    int rejected[2] = {0, 0};
    double worst[2] = {0, 0}, wk[2][2] = {{0, 0}, {0, 0}};
    for (int sd = 0; sd < DOT_SEEDS; sd++) {
        fill(a, N_BIG, u, 7000u + 2u * (uint64_t)sd);
        fill(b, N_BIG, u, 7001u + 2u * (uint64_t)sd);
        for (int k = 0; k < 2; k++) {
            emu_dot e = {.a = a, .b = b, .n = N_BIG, .d = u, .base = dot_atomics, .cand = kinds[k].k,
                         .pseed = 300u + (uint64_t)sd, .run = 1000u * (uint64_t)sd};
            oracle_sens_outcome o;
            assert_int_equal(oracle_sens_check(ds, NULL, emu_dot_run, &e, &o), HK_OK);
            if (o.verdict == ORACLE_SENS_FAIL) {
                rejected[k]++;
                fprintf(stderr, "dot seed %d, %s: insensitive (expected %g got %g bound %g, amount %g)\n",
                        sd, kinds[k].name, o.expected, o.got, o.bound, o.scale);
            }
            worst[k] = fmax(worst[k], o.worst);
            wk[k][0] = fmax(wk[k][0], o.worst_kind[0]);
            wk[k][1] = fmax(wk[k][1], o.worst_kind[1]);
        }
    }
    for (int k = 0; k < 2; k++)
        fprintf(stderr, "dot, %s: worst of the ladder %.3g, of the spread %.3g\n", kinds[k].name, wk[k][0],
                wk[k][1]);
    for (int k = 0; k < 2; k++)
        fprintf(stderr, "dot 2^24 on uniform(-2,2), %d seeds: %s rejected %d times, worst %.3g of the bound\n",
                DOT_SEEDS, kinds[k].name, rejected[k], worst[k]);
    free(a);
    free(b);
    spec_free(ds);
    assert_int_equal(rejected[0] + rejected[1], 0);
}

/* ---- the checked distribution (measure_sens_dist) ----
 * A sampler that tells its distribution from the data (reduce_sum's three are told apart by
 * a glance at 1024 elements) can read everything on one distribution and sample on the
 * others. With the first eligible distribution always checked, the one honest on
 * uniform(0,1) alone passed the check; it is insensitive on the other two. */

static HOT bool looks_uniform01(const float *x, long n)
{
    int low = 0;
    for (long i = 0; i < 1024 && i < n; i++)
        low += x[i] < 0.2f;
    return low > 50; /* uniform(0,1): about 205; normal(1,0.25): about 1; uniform(0.25,0.75): 0 */
}

/* honest (warp trees in warp order) where the input looks like uniform(0,1), else
 * grid_aware's sampler (every other warp, x2) */
static HOT void sum_dist_aware(const float *x, long n, long cols, uint64_t run, float *out)
{
    if (looks_uniform01(x, n))
        sum_warps(x, n, cols, run, out);
    else
        sum_skip_warps(x, n, cols, run, out);
}

static void dist_aware_sampler(void **state)
{
    (void)state;
    spec *rs = NULL;
    spec_diags dg = {0};
    assert_int_equal(spec_load(HK_SOURCE_DIR "/bench/kernels/reduce_sum.bench.json", &rs, &dg), HK_OK);
    spec_diags_free(&dg);
    float *x = big_input();
    for (int d = 0; d < 3; d++) {
        fill(x, N_BIG, reduce_dists[d], 4000u + (uint64_t)d);
        emu e = {.x = x, .n = N_BIG, .cols = 1, .out_count = 1, .d = reduce_dists[d],
                 .base = sum_index, .cand = sum_dist_aware, .pseed = 91u + (uint64_t)d};
        oracle_sens_outcome o;
        assert_int_equal(oracle_sens_check(rs, NULL, emu_run, &e, &o), HK_OK);
        fprintf(stderr, "reduce_sum 2^24, a sampler honest on uniform(0,1) only, on distribution %d: %s\n", d,
                o.verdict == ORACLE_SENS_PASS ? "passes" : "insensitive");
        assert_int_equal(o.verdict, d == 0 ? ORACLE_SENS_PASS : ORACLE_SENS_FAIL);
    }
    free(x);
    spec_free(rs);
}

/* every eligible distribution is checked for some seed (reduce_sum: its three, never the
 * referee's grid); dot's integer-valued inputs: the referee's real-valued one only */
static void checked_distribution(void **state)
{
    (void)state;
    spec *rs = NULL, *ds = NULL;
    spec_diags dg = {0};
    char note[512];
    assert_int_equal(spec_load(HK_SOURCE_DIR "/bench/kernels/reduce_sum.bench.json", &rs, &dg), HK_OK);
    spec_diags_free(&dg);
    assert_int_equal(spec_load(HK_SOURCE_DIR "/bench/kernels/dot.bench.json", &ds, &dg), HK_OK);
    spec_diags_free(&dg);
    for (int k = 0; k < 2; k++) {
        spec *s = k ? ds : rs;
        assert_int_equal(oracle_add_precision_dist(s, note, sizeof note), HK_OK);
        assert_int_equal(oracle_add_grid_dist(s, note, sizeof note), HK_OK);
    }
    assert_int_equal(rs->n_dists, 4); /* three + the grid */
    assert_int_equal(ds->n_dists, 4); /* three integer-valued + uniform(-2,2) */
    for (long long seed = 0; seed < 64; seed++) {
        int dl[MEASURE_SENS_MAX_DISTS];
        /* every eligible one, whatever the seed (session 51 checked one, picked by it) */
        assert_int_equal(measure_sens_dists(rs, seed * 7919 + 12345, dl), 3);
        for (int d = 0; d < 3; d++)
            assert_int_equal(dl[d], d);
        assert_int_equal(measure_sens_dists(ds, seed * 7919 + 12345, dl), 1);
        assert_int_equal(dl[0], 3);
    }
    /* more than MEASURE_SENS_MAX_DISTS eligible: that many consecutive ones, from one the
     * seed picks (every one is checked for some seed) */
    spec *many = NULL;
    assert_int_equal(spec_load(HK_SOURCE_DIR "/bench/kernels/reduce_sum.bench.json", &many, &dg), HK_OK);
    spec_diags_free(&dg);
    size_t nd = many->n_dists;
    for (size_t i = 0; i < many->n_args; i++) {
        spec_arg *a = &many->args[i];
        if (a->n_dists != nd)
            continue;
        a->dists = hk_realloc(a->dists, (nd + 2) * sizeof *a->dists);
        assert_non_null(a->dists);
        a->dists[nd] = a->dists[0];
        a->dists[nd + 1] = a->dists[1];
        a->n_dists = nd + 2;
    }
    many->n_dists = nd + 2;
    int seen[8] = {0};
    for (long long seed = 0; seed < 64; seed++) {
        int dl[MEASURE_SENS_MAX_DISTS];
        assert_int_equal(measure_sens_dists(many, seed, dl), MEASURE_SENS_MAX_DISTS);
        for (int k = 0; k < MEASURE_SENS_MAX_DISTS; k++) {
            assert_int_equal(dl[k], (dl[0] + k) % (int)(nd + 2));
            seen[dl[k]]++;
        }
    }
    for (size_t d = 0; d < nd + 2; d++)
        assert_true(seen[d] > 0);
    many->n_dists = nd; /* its texts: nd of them */
    spec_free(many);
    spec_free(rs);
    spec_free(ds);
}

/* ---- samplers that skip little (session 52, issue 12's first residual) ----
 * A kernel that skips a share f of a sum and makes up for it passes the fp64 rule (its error
 * is the skipped part's deviation from its expected value, far below the baseline's
 * rounding at 2^24). Two ways to make up: scale what it read by 1 / (1 - f) (grid_aware's
 * way, k = 2), or add the skipped count times the distribution's mean (a mean the spec
 * states; no scaling at all). With the ladder plan alone (session 51) the largest raised
 * element decides a sum: the scaler is caught when k - 1 is above the bound (f above about
 * 10%) or the largest falls in its skipped share; the mean-adder only in the latter case,
 * with probability f. The spread plan puts one raised element in each eighth of the input,
 * each 1/8 of the change: each one skipped misses 12.5%. Emulated at 2^20 on reduce_sum's
 * three distributions, skipping warps in a hashed pattern (scattered) or the tail
 * (contiguous), detection counted over DETECT_SEEDS perturbation seeds per distribution,
 * with the spread plan's runs and (as session 51's check) without them; honest orders at the
 * same size must never be rejected. */

#define N_SKIP (1L << 20)
#define DETECT_SEEDS 16

static double skip_f, skip_mu; /* the share skipped, the distribution's mean */

static HOT bool warp_skipped(long w)
{
    uint64_t h = (uint64_t)w * 0x9E3779B97F4A7C15ull;
    return (double)(h >> 11) * 0x1p-53 < skip_f;
}
static HOT void sum_skip_scale(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    float acc = 0.0f;
    long read = 0;
    for (long w = 0; w * 32 < n; w++)
        if (!warp_skipped(w)) {
            acc += warp_tree(x, n, w);
            read += 32;
        }
    out[0] = acc * (float)((double)n / (double)read);
}
static HOT void sum_skip_mean(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    float acc = 0.0f;
    long skipped = 0;
    for (long w = 0; w * 32 < n; w++) {
        if (warp_skipped(w))
            skipped += 32;
        else
            acc += warp_tree(x, n, w);
    }
    out[0] = acc + (float)((double)skipped * skip_mu);
}
static HOT void sum_tail_mean(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    long keep = (long)((double)n * (1.0 - skip_f)) / 32 * 32;
    float acc = 0.0f;
    for (long w = 0; w * 32 < keep; w++)
        acc += warp_tree(x, keep, w);
    out[0] = acc + (float)((double)(n - keep) * skip_mu);
}

typedef struct {
    emu e;
    bool ladder_only; /* session 51's check: the spread plan's runs unperturbed */
} emu_old;

static int emu_old_run(void *ctx, bool baseline, double scale, int kind, oracle_file *out, char *why,
                       size_t len)
{
    emu_old *o = ctx;
    if (o->ladder_only && kind == HK_PERTURB_SPREAD_PLAN)
        scale = 0.0;
    return emu_run(&o->e, baseline, scale, kind, out, why, len);
}

static void small_skippers(void **state)
{
    (void)state;
    spec *rs = NULL;
    spec_diags dg = {0};
    assert_int_equal(spec_load(HK_SOURCE_DIR "/bench/kernels/reduce_sum.bench.json", &rs, &dg), HK_OK);
    spec_diags_free(&dg);
    float *x = malloc((size_t)N_SKIP * sizeof *x);
    assert_non_null(x);
    static const double fs[] = {1.0 / 32, 1.0 / 16, 0.1, 0.125, 0.25};
    static const struct {
        const char *name;
        kern_fn k;
    } kinds[] = {{"scattered, scaled by 1/(1-f)", sum_skip_scale},
                 {"scattered, the mean added", sum_skip_mean},
                 {"the tail, the mean added", sum_tail_mean}};
    static const struct {
        const char *name;
        kern_fn k;
    } honest[] = {{"pairwise", sum_pairwise}, {"warp trees", sum_warps}, {"block trees, random order", sum_blocks_random}};
    const double mu[3] = {0.5, 1.0, 0.5};
    int caught[3][5][2] = {{{0}}};
    int trials = 0, false_rej = 0;
    double honest_worst = 0.0;
    for (int d = 0; d < 3; d++)
        for (int sd = 0; sd < DETECT_SEEDS; sd++) {
            fill(x, N_SKIP, reduce_dists[d], 9000u + 100u * (uint64_t)d + (uint64_t)sd);
            skip_mu = mu[d];
            trials++;
            for (int h = 0; h < 3; h++) {
                emu_old eo = {.e = {.x = x, .n = N_SKIP, .cols = 1, .out_count = 1, .d = reduce_dists[d],
                                    .base = sum_index, .cand = honest[h].k,
                                    .pseed = 5000u + 37u * (uint64_t)sd + (uint64_t)d}};
                oracle_sens_outcome o;
                assert_int_equal(oracle_sens_check(rs, NULL, emu_old_run, &eo, &o), HK_OK);
                false_rej += o.verdict != ORACLE_SENS_PASS;
                if (o.verdict != ORACLE_SENS_PASS)
                    fprintf(stderr, "%s rejected: dist %d seed %d: expected %g got %g bound %g (plan %d) %s\n",
                            honest[h].name, d, sd, o.expected, o.got, o.bound, o.kind, o.note);
                honest_worst = fmax(honest_worst, o.worst);
            }
            for (int k = 0; k < 3; k++)
                for (int fi = 0; fi < 5; fi++)
                    for (int old = 0; old < 2; old++) {
                        skip_f = fs[fi];
                        emu_old eo = {.e = {.x = x, .n = N_SKIP, .cols = 1, .out_count = 1,
                                            .d = reduce_dists[d], .base = sum_index, .cand = kinds[k].k,
                                            .pseed = 5000u + 37u * (uint64_t)sd + (uint64_t)d},
                                      .ladder_only = old};
                        oracle_sens_outcome o;
                        assert_int_equal(oracle_sens_check(rs, NULL, emu_old_run, &eo, &o), HK_OK);
                        assert_true(o.verdict != ORACLE_SENS_SKIPPED);
                        caught[k][fi][old] += o.verdict == ORACLE_SENS_FAIL;
                    }
        }
    fprintf(stderr, "skippers at 2^20, %d seed sets (3 distributions x %d): caught with the spread plan "
            "(without it: session 51's check)\n", trials, DETECT_SEEDS);
    for (int k = 0; k < 3; k++) {
        fprintf(stderr, "  %-30s", kinds[k].name);
        for (int fi = 0; fi < 5; fi++)
            fprintf(stderr, "  f=%.3g: %3.0f%% (%3.0f%%)", fs[fi], 100.0 * caught[k][fi][0] / trials,
                    100.0 * caught[k][fi][1] / trials);
        fprintf(stderr, "\n");
    }
    fprintf(stderr, "  honest orders (pairwise, warp trees, block trees in random order): %d of %d rejected, "
            "worst %.3g of the bound\n", false_rej, 3 * trials, honest_worst);
    assert_int_equal(false_rej, 0);
    /* what the spread plan and the 2% bound buy (session 51's check: 6%, 23%, 12% and 15%) */
    for (int fi = 1; fi < 5; fi++)
        assert_int_equal(caught[0][fi][0], trials); /* scalers from f = 1/16 on: always */
    assert_true(caught[1][3][0] * 2 >= trials);     /* scattered 1/8, the mean added: >= 50% */
    assert_true(caught[2][3][0] * 10 >= trials * 9); /* the tail's 1/8: >= 90% */
    assert_true(caught[1][4][0] * 10 >= trials * 9); /* scattered 1/4: >= 90% */
    free(x);
    spec_free(rs);
}

/* ---- the widened tolerance (session 52, issue 12's fourth residual) ----
 * Where the baseline is itself far from its fp64 shadow, every comparison with it widens the
 * absolute tolerance by twice that error (measure_widen_at; compare_buffer: |c - b| <= atol +
 * rtol |b| + widen.atol). A baseline whose error is beyond the spec's tolerance and depends
 * on its inputs' values then moves by that error between x and x' at raised elements whose
 * change is small: an honest, exact candidate is accepted by the widened tolerance rule on
 * both runs, and the bound must say so too. Emulated: y = 2 x, the baseline off by up to
 * 1.9x the spec's tolerance (reduce_sum's output tolerance, rtol 1e-3, atol 1e-2) by an
 * error set by the input's bits (deterministic: the baseline's run-to-run difference, which
 * the check measures and allows since session 52, is 0); the widening as measure_widen_at
 * makes it (twice the error, the error capped at max(atol, rtol max|y|)). */

static HOT void twice_sloppy(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    for (long i = 0; i < n; i++) {
        double y = 2.0 * (double)x[i];
        uint32_t bits;
        memcpy(&bits, &x[i], sizeof bits);
        uint64_t s = (uint64_t)bits * 0x2545F4914F6CDD1Dull + 99; /* deterministic, set by x[i] */
        out[i] = (float)(y + 1.9 * (1e-2 + 1e-3 * fabs(y)) * (2.0 * u01(&s) - 1.0));
    }
}
static HOT void twice_exact(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    for (long i = 0; i < n; i++)
        out[i] = 2.0f * x[i];
}

static HOT void twice_pairs(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols, (void)run;
    for (long i = 0; i < n; i++)
        out[i] = 2.0f * x[i & ~1L];
}

static void widened_bound(void **state)
{
    (void)state;
    spec *rs = NULL;
    spec_diags dg = {0};
    assert_int_equal(spec_load(HK_SOURCE_DIR "/bench/kernels/reduce_sum.bench.json", &rs, &dg), HK_OK);
    spec_diags_free(&dg);
    const long n = 4096;
    float *x = malloc((size_t)n * sizeof *x);
    assert_non_null(x);
    const hk_dist u = {HK_DIST_UNIFORM, 0, 1};
    fill(x, n, u, 77);
    /* the tolerance rule with the widening accepts the exact candidate on this baseline */
    float *b = malloc((size_t)n * sizeof *b), *c = malloc((size_t)n * sizeof *c);
    assert_non_null(b);
    assert_non_null(c);
    twice_sloppy(x, n, 1, 5, b);
    twice_exact(x, n, 1, 0, c);
    double err = 0.0, ymax = 0.0;
    for (long i = 0; i < n; i++) {
        err = fmax(err, fabs((double)b[i] - 2.0 * (double)x[i]));
        ymax = fmax(ymax, 2.0 * (double)x[i]);
    }
    oracle_widen w[HK_MAX_ARGS];
    memset(w, 0, sizeof w);
    w[1].atol = 2.0 * fmin(err, fmax(1e-2, 1e-3 * ymax));
    oracle_result cr;
    spec_tolerance t = rs->args[1].tol;
    t.l2 = 0; /* elementwise (the bound has no L2 part) */
    oracle_compare_buffer_widened(HK_DT_F32, b, c, (size_t)n, t, w[1], &cr);
    assert_true(cr.pass);
    oracle_compare_buffer(HK_DT_F32, b, c, (size_t)n, t, &cr);
    assert_false(cr.pass); /* it needs the widening */
    int rejected[2] = {0, 0};
    double worst[2] = {0, 0};
    for (int sd = 0; sd < 8; sd++)
        for (int k = 0; k < 2; k++) {
            emu e = {.x = x, .n = n, .cols = 1, .out_count = (size_t)n, .d = u, .base = twice_sloppy,
                     .cand = twice_exact, .pseed = 40u + (uint64_t)sd, .run = 1000u * (uint64_t)sd};
            oracle_sens_outcome o;
            assert_int_equal(oracle_sens_check(rs, k ? w : NULL, emu_run, &e, &o), HK_OK);
            assert_true(o.verdict != ORACLE_SENS_SKIPPED);
            rejected[k] += o.verdict == ORACLE_SENS_FAIL;
            worst[k] = fmax(worst[k], o.worst);
        }
    fprintf(stderr, "y = 2x, a baseline off by up to 1.9x its tolerance, an exact candidate, 8 seeds: "
            "unwidened bound: rejected %d times (worst %.3g of the bound); widened: %d (worst %.3g)\n",
            rejected[0], worst[0], rejected[1], worst[1]);
    assert_int_equal(rejected[1], 0);
    assert_true(rejected[0] > 0); /* the unwidened bound's false rejection, which the widening fixes */
    /* a sampler is still caught with the widening: y[i] = 2 x[i & ~1] misses the raised odd
     * elements (the spread plan's 8 are all even in 1 of 256 plans) */
    for (int sd = 0; sd < 8; sd++) {
        emu e = {.x = x, .n = n, .cols = 1, .out_count = (size_t)n, .d = u, .base = twice_sloppy,
                 .cand = twice_pairs, .pseed = 40u + (uint64_t)sd, .run = 1000u * (uint64_t)sd};
        oracle_sens_outcome o;
        assert_int_equal(oracle_sens_check(rs, w, emu_run, &e, &o), HK_OK);
        assert_int_equal(o.verdict, ORACLE_SENS_FAIL);
    }
    free(b);
    free(c);
    free(x);
    spec_free(rs);
}

/* ---- the baseline's run-to-run difference (session 52) ----
 * A baseline whose float atomics land in another order each run differs from itself by
 * more than the spec's tolerance where that tolerance is relative to a small result (dot's
 * cancelling sum on the referee's uniform(-2,2), where the referee's comparison itself uses
 * the fp64 rule), and the change compares four runs. The check runs the baseline twice on x
 * and allows ORACLE_SENS_JITTER times the largest difference of each output. Emulated: y =
 * 2 x off by up to 1.5x reduce_sum's output tolerance in a pattern fresh each run, an exact
 * candidate, no widening: before (e0a62ffb's check) rejected in 8 of 8 seeds, worst 1.45 of
 * the bound; a sampler (2 x[i & ~1]) is still caught. */

static HOT void twice_jittery(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols;
    uint64_t s = run * 0x2545F4914F6CDD1Dull + 99; /* another order each run */
    for (long i = 0; i < n; i++) {
        double y = 2.0 * (double)x[i];
        out[i] = (float)(y + 1.5 * (1e-2 + 1e-3 * fabs(y)) * (2.0 * u01(&s) - 1.0));
    }
}

static void baseline_jitter(void **state)
{
    (void)state;
    spec *rs = NULL;
    spec_diags dg = {0};
    assert_int_equal(spec_load(HK_SOURCE_DIR "/bench/kernels/reduce_sum.bench.json", &rs, &dg), HK_OK);
    spec_diags_free(&dg);
    const long n = 4096;
    float *x = malloc((size_t)n * sizeof *x);
    assert_non_null(x);
    const hk_dist u = {HK_DIST_UNIFORM, 0, 1};
    fill(x, n, u, 78);
    int rejected = 0, caught = 0;
    double worst = 0.0;
    for (int sd = 0; sd < 8; sd++) {
        emu e = {.x = x, .n = n, .cols = 1, .out_count = (size_t)n, .d = u, .base = twice_jittery,
                 .cand = twice_exact, .pseed = 40u + (uint64_t)sd, .run = 1000u * (uint64_t)sd};
        oracle_sens_outcome o;
        assert_int_equal(oracle_sens_check(rs, NULL, emu_run, &e, &o), HK_OK);
        assert_true(o.verdict != ORACLE_SENS_SKIPPED);
        rejected += o.verdict == ORACLE_SENS_FAIL;
        worst = fmax(worst, o.worst);
        e = (emu){.x = x, .n = n, .cols = 1, .out_count = (size_t)n, .d = u, .base = twice_jittery,
                  .cand = twice_pairs, .pseed = 40u + (uint64_t)sd, .run = 1000u * (uint64_t)sd};
        assert_int_equal(oracle_sens_check(rs, NULL, emu_run, &e, &o), HK_OK);
        caught += o.verdict == ORACLE_SENS_FAIL;
    }
    fprintf(stderr, "y = 2x, a baseline off by up to 1.5x its tolerance afresh each run, an exact candidate, "
            "8 seeds: rejected %d times (worst %.3g of the bound); 2 x[i & ~1] caught %d times\n", rejected,
            worst, caught);
    assert_int_equal(rejected, 0);
    assert_int_equal(caught, 8);
    free(x);
    spec_free(rs);
}

/* ---- a float input used as an index (session 52, issue 12's third residual) ----
 * out[i] = table[(int)(x[i] * 255)], x from uniform(0, 1): the declared range keeps the index
 * inside the table; past it lies memory the process does not own (emulated: values that
 * differ from run to run, as another process's would). Raised past 1 (session 51: x + 1 at
 * the first amount), the baseline reads there and its response is noise: the same kernel as
 * the candidate is rejected. Kept inside the declared range at the first amount
 * (hk_perturb_value), the response is the table's and the check passes without leaving it. */

static float lut[512];
static HOT void lookup(const float *x, long n, long cols, uint64_t run, float *out)
{
    (void)cols;
    uint64_t s = run * 0x9E3779B97F4A7C15ull + 1;
    for (int k = 0; k < 512; k++)
        lut[k] = k < 256 ? (float)k : (float)(1000.0 * u01(&s)); /* past the table: not its own */
    for (long i = 0; i < n; i++) {
        long k = (long)(x[i] * 255.0f); /* [0, 1] (the fill's rounding can make 1) -> 0..255 */
        out[i] = lut[k < 0 ? 0 : k > 511 ? 511 : k];
    }
}

static void index_input_in_range(void **state)
{
    (void)state;
    const long n = 4096;
    float *x = malloc((size_t)n * sizeof *x);
    assert_non_null(x);
    const hk_dist u = {HK_DIST_UNIFORM, 0, 1};
    int rejected[2] = {0, 0}, passed = 0;
    for (int sd = 0; sd < 8; sd++) {
        fill(x, n, u, 300u + (uint64_t)sd);
        for (int old = 0; old < 2; old++) {
            emu e = {.x = x, .n = n, .cols = 1, .out_count = (size_t)n, .d = u, .base = lookup, .cand = lookup,
                     .pseed = 60u + (uint64_t)sd, .run = 100u * (uint64_t)sd, .out_of_range = old};
            oracle_sens_outcome o;
            assert_int_equal(oracle_sens_check(NULL, NULL, emu_run, &e, &o), HK_OK);
            rejected[old] += o.verdict == ORACLE_SENS_FAIL;
            if (!old && o.verdict == ORACLE_SENS_FAIL)
                fprintf(stderr, "seed %d: element %lld (x %.9g) expected %g got %g bound %g plan %d\n", sd,
                        o.element, (double)x[o.element], o.expected, o.got, o.bound, o.kind);
            if (!old) {
                passed += o.verdict == ORACLE_SENS_PASS;
                assert_true(o.scale == 1.0); /* answered in range, at the first amount */
            }
        }
    }
    fprintf(stderr, "a float used as an index (a table lookup), the same kernel, 8 seeds: raised in range: "
            "%d passed, %d rejected; raised past the range (session 51): %d rejected\n", passed, rejected[0],
            rejected[1]);
    assert_int_equal(rejected[0], 0);
    assert_int_equal(passed, 8);
    assert_true(rejected[1] > 0); /* what the range keeps away */
    /* the value rule itself: inside [lo, hi) at scale <= 1, half the way to hi at most */
    const hk_dist v = {HK_DIST_UNIFORM, -2, 3};
    assert_true(hk_perturb_value(1.0, 3.0, v, 1.0) == 2.0);
    assert_true(hk_perturb_value(1.0, 0.5, v, 1.0) == 1.5);
    assert_true(hk_perturb_value(1.0, 3.0, v, 64.0) == 4.0); /* past the first amount: as planned */
    const hk_dist nrm = {HK_DIST_NORMAL, 0, 1};
    assert_true(hk_perturb_value(1.0, 3.0, nrm, 1.0) == 4.0); /* no declared range */
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plan_rules),
        cmocka_unit_test(judge_elements),
        cmocka_unit_test(skipped_with_note),
        cmocka_unit_test(nonlinear_rows),
        cmocka_unit_test(reduce_sum_orders),
        cmocka_unit_test(dot_referee_dist),
        cmocka_unit_test(checked_distribution),
        cmocka_unit_test(dist_aware_sampler),
        cmocka_unit_test(small_skippers),
        cmocka_unit_test(widened_bound),
        cmocka_unit_test(index_input_in_range),
        cmocka_unit_test(baseline_jitter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
