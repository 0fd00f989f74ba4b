/* A CPU estimate of tensor-core shortcuts for sgemm and batched_gemm (issue 12; README
 * note on reduce_sum_warp_skip.cu, bench/results/2026-12-07-red-cpu-s50.md): the error
 * against an fp64 reference of the suite's baselines (one fmaf per k, in k order: nvcc
 * contracts `acc += a * b`; sgemm's epilogue fmaf(alpha, acc, beta * C)) and of candidates
 * that round the inputs: bf16x1, tf32x1 (one product of rounded inputs), bf16x3 (a = ah + al
 * in bf16, ah*bh + ah*bl + al*bh: the small al*bl dropped; also with the K range split over
 * the 8 warps of the spec's 16 x 16 block, partial sums added in float), fp16x3 (the same in
 * half) and tf32x3 (the accurate split, an honest rewrite's error), at the specs' timed
 * sizes (2048^3; 128 x 256^3) and distributions, judged by the real oracle functions
 * (oracle_ref64_error, oracle_ref64_judge_groups with the default rule, and the spec's
 * tolerance against the baseline widened as measure.c's widen_add does). The candidates
 * run the baseline's own kernel at the other size (a lopsided cheat), so that size's groups
 * pass and only the pool sees them. None of these was written as a cheat: what passes
 * (fp16x3, tf32x3) is as accurate as fp32, and what gains over them fails.
 * Tensor-core accumulation is modelled as each mma's 16 (bf16/fp16) or 8 (tf32) k-steps of
 * products summed exactly and added to the fp32 accumulator once, rounded to nearest ("rn")
 * or toward zero ("rz", closer to the hardware's truncating adder). Only a sample of each
 * output is computed (ROWS x COLS elements, all k): the max error is over the sample, which
 * understates the full output's max for the baseline and the candidate alike.
 * Inputs come from a xorshift generator (normal by Box-Muller), not the harness's hash.
 * The grid() referee set (helper "exact", session 50): every float input drawn from the
 * multiples of q in the union of the spec's ranges ([-2, 10]: q = 8, {0, 8}), where the
 * baseline is exact and the limit is the floor alone; and a probe that is not a grid (B with
 * one signed power of two per column, A with full mantissas: sparse_probe).
 *   M=/tmp/b-main; S=/work/main/server
 *   cc -O2 -I$S/measure -I$S/core -I$S/spec -I$S -I/work/main/include -o gemm_precision_error \
 *      gemm_precision_error.c $M/CMakeFiles/hk_measure.dir/server/measure/oracle.c.o \
 *      $M/libhk_spec.a $M/libhk_model.a $M/libhk_analysis.a $M/libhk_grammar_lib.a \
 *      $M/libhk_spec.a $M/libhk_core.a -ljansson -lm -lpthread
 *   ./gemm_precision_error [SEEDS]       (default 5, the specs' seed count) */
#include "oracle.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 16
#define COLS 256
#define NS (ROWS * COLS)

static uint64_t st;
static double u01(void)
{
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    return ((st >> 11) + 0.5) * 0x1p-53;
}
/* dist: 0 uniform(-1,1), 1 normal(0,1), 2 uniform(0,10), 3 grid {0, 8} */
static float draw(int dist)
{
    switch (dist) {
    case 0: return (float)(-1 + 2 * u01());
    case 1: return (float)(sqrt(-2 * log(u01())) * cos(6.283185307179586 * u01()));
    case 2: return (float)(10 * u01());
    default: return u01() < 0.5 ? 0.0f : 8.0f;
    }
}
static const char *dist_name[4] = {"uniform(-1,1)", "normal(0,1)", "uniform(0,10)", "grid{0,8}"};

/* x rounded to mbits significant bits (the leading one included), exponents below emin
 * kept at emin's quantum (half's subnormals); away: ties away from zero (cvt.rna.tf32),
 * else to even */
static float rnd(float x, int mbits, int emin, int away)
{
    if (x == 0 || !isfinite(x))
        return x;
    int e;
    frexp(x, &e); /* x = f * 2^e, 0.5 <= |f| < 1 */
    e -= 1;
    if (e < emin)
        e = emin;
    double q = ldexp(1.0, e - (mbits - 1));
    double v = (double)x / q;
    v = away ? round(v) : nearbyint(v);
    return (float)(v * q);
}
static float bf16(float x) { return rnd(x, 8, -126, 0); }
static float fp16(float x) { return rnd(x, 11, -14, 0); }
static float tf32(float x) { return rnd(x, 11, -126, 1); }

enum { V_BASE, V_BF16X1, V_TF32X1, V_BF16X3, V_BF16X3_RZ, V_BF16X3_8W, V_FP16X3, V_TF32X3, NV };
static const char *vname[NV] = {"baseline fp32", "bf16x1", "tf32x1", "bf16x3 (rn)", "bf16x3 (rz)",
                                "bf16x3 8 warps", "fp16x3", "tf32x3"};

/* acc += chunk, once per mma, to nearest or toward zero */
static float acc_add(float acc, double chunk, int rz)
{
    double s = (double)acc + chunk;
    float f = (float)s;
    if (rz && fabs((double)f) > fabs(s))
        f = nextafterf(f, 0.0f);
    return f;
}

/* One output's K-sum of a[k] * b[k] as variant v computes it. */
static float kdot(int v, const float *a, const float *b, int K)
{
    float acc = 0;
    if (v == V_BF16X3_8W) {
        /* the spec's 16 x 16 block as 8 warps, each owning K/8 consecutive k (rz adds), their
         * partial sums added in warp order in float */
        int part = K / 8;
        for (int w = 0; w < 8; w++)
            acc += kdot(V_BF16X3_RZ, a + w * part, b + w * part, w == 7 ? K - 7 * part : part);
        return acc;
    }
    if (v == V_BASE) {
        for (int k = 0; k < K; k++)
            acc = fmaf(a[k], b[k], acc);
        return acc;
    }
    int step = (v == V_TF32X1 || v == V_TF32X3) ? 8 : 16, rz = v == V_BF16X3_RZ;
    for (int k0 = 0; k0 < K; k0 += step) {
        double chunk = 0;
        for (int k = k0; k < k0 + step && k < K; k++) {
            float x = a[k], y = b[k], xh, yh, xl, yl;
            switch (v) {
            case V_BF16X1: chunk += (double)bf16(x) * bf16(y); break;
            case V_TF32X1: chunk += (double)tf32(x) * tf32(y); break;
            case V_BF16X3:
            case V_BF16X3_RZ:
                xh = bf16(x), yh = bf16(y), xl = bf16(x - xh), yl = bf16(y - yh);
                chunk += (double)xh * yh + (double)xh * yl + (double)xl * yh;
                break;
            case V_FP16X3:
                xh = fp16(x), yh = fp16(y), xl = fp16(x - xh), yl = fp16(y - yh);
                chunk += (double)xh * yh + (double)xh * yl + (double)xl * yh;
                break;
            default: /* tf32x3 */
                xh = tf32(x), yh = tf32(y), xl = tf32(x - xh), yl = tf32(y - yh);
                chunk += (double)xh * yh + (double)xh * yl + (double)xl * yh;
                break;
            }
        }
        acc = acc_add(acc, chunk, rz);
    }
    return acc;
}

typedef struct {
    const char *name;
    int K_big, K_small;
    int epilogue; /* sgemm: alpha * acc + beta * C */
    spec_tolerance tol;
} gemm_spec;

#define MAXRUNS 64
static oracle_ref64_err eb[NV][MAXRUNS], ec[NV][MAXRUNS];
static int group[MAXRUNS];

/* One run: the sample's outputs for every variant, their errors into slot r. */
static void one_run(const gemm_spec *g, int K, int dist, int seed, int r, int size, int *tol_fail,
                    double *tol_ratio)
{
    static float A[ROWS][2048], Bt[COLS][2048], C0[NS], out[NV][NS];
    static double ref[NS];
    st = 0x9E3779B97F4A7C15ull * (uint64_t)(seed * 7 + dist * 131 + size * 1009 + K + 17);
    for (int i = 0; i < ROWS; i++)
        for (int k = 0; k < K; k++)
            A[i][k] = draw(dist);
    for (int j = 0; j < COLS; j++)
        for (int k = 0; k < K; k++)
            Bt[j][k] = draw(dist);
    for (int i = 0; i < NS; i++)
        C0[i] = draw(dist);
    const float alpha = 1.5f, beta = 0.5f;
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)A[i][k] * Bt[j][k];
            int o = i * COLS + j;
            ref[o] = g->epilogue ? alpha * s + beta * (double)C0[o] : s;
            for (int v = 0; v < NV; v++) {
                /* lopsided: the baseline's kernel at the other size */
                int vv = size == 0 ? v : V_BASE;
                float acc = kdot(vv, A[i], Bt[j], K);
                out[v][o] = g->epilogue ? fmaf(alpha, acc, beta * C0[o]) : acc;
            }
        }
    for (int v = 0; v < NV; v++) {
        oracle_ref64_error(ref, out[V_BASE], HK_DT_F32, NS, &eb[v][r]);
        oracle_ref64_error(ref, out[v], HK_DT_F32, NS, &ec[v][r]);
    }
    /* the spec's tolerance against the baseline, widened by twice the baseline's own
     * error (measure.c widen_add; the grid is a referee distribution: not widened) */
    double bmax, bl2;
    oracle_ref64_rel(&eb[0][r], &bmax, &bl2);
    double room = fmin(0.01 * eb[0][r].ref_max, fmax(g->tol.atol, g->tol.rtol * eb[0][r].ref_max));
    oracle_widen w = {2 * fmin(eb[0][r].max_abs, room), 2 * fmin(bl2, fmin(g->tol.l2, 0.01))};
    if (dist == 3)
        w = (oracle_widen){0, 0};
    for (int v = 0; v < NV; v++) {
        oracle_result res;
        oracle_compare_buffer_widened(HK_DT_F32, out[V_BASE], out[v], NS, g->tol, w, &res);
        if (!res.pass)
            tol_fail[v]++;
        double lim = g->tol.l2 + w.l2, rr = res.rel_l2 / lim;
        if (rr > tol_ratio[v])
            tol_ratio[v] = rr;
    }
}

static void judge_spec(const gemm_spec *g, int seeds)
{
    int tol_fail[NV] = {0};
    double tol_ratio[NV] = {0};
    int r = 0;
    printf("== %s (timed K=%d; other size K=%d: the baseline's kernel), %dx%d sample, %d seeds\n",
           g->name, g->K_big, g->K_small, ROWS, COLS, seeds);
    for (int size = 0; size < 2; size++)
        for (int dist = 0; dist < 3; dist++)
            for (int seed = 1; seed <= seeds; seed++, r++) {
                group[r] = size * 256 + dist;
                one_run(g, size == 0 ? g->K_big : g->K_small, dist, seed, r, size, tol_fail, tol_ratio);
            }
    int runs = r;
    for (int v = 1; v < NV; v++) {
        oracle_ref64_result res;
        int failed = -1;
        size_t fr = 0;
        oracle_rule rule = oracle_default_rule(HK_DT_F32);
        oracle_ref64_judge_groups(HK_DT_F32, eb[v], ec[v], group, (size_t)runs, &rule, &res, &failed, &fr);
        /* each timed-size group's ratio, for the table */
        double worst = 0;
        int worst_d = -1;
        for (int d = 0; d < 3; d++) {
            oracle_ref64_result gr;
            oracle_ref64_judge(HK_DT_F32, &eb[v][d * seeds], &ec[v][d * seeds], (size_t)seeds, &rule, &gr);
            printf("  %-14s %-14s base max %.3g l2 %.3g | cand max %.3g l2 %.3g | ratio %.2f\n",
                   vname[v], dist_name[d], gr.base_max, gr.base_l2, gr.cand_max, gr.cand_l2, gr.ratio);
            if (gr.ratio > worst)
                worst = gr.ratio, worst_d = d;
        }
        oracle_ref64_result pool;
        oracle_ref64_judge(HK_DT_F32, eb[v], ec[v], (size_t)runs, &rule, &pool);
        printf("  %-14s => fp64 rule %s (pool ratio %.2f, worst timed group %.2f at %s%s); "
               "tolerance vs baseline: %d of %d runs fail, worst l2 %.2f of its limit\n",
               vname[v], res.pass ? "PASS" : "FAIL", pool.ratio, worst, dist_name[worst_d],
               failed >= 0 ? ", the failing group decides" : "", tol_fail[v], runs, tol_ratio[v]);
    }
    /* the grid() referee set at the timed size: the baseline exact, the limit the floor */
    int gtol[NV] = {0};
    double gtr[NV] = {0};
    for (int seed = 1; seed <= seeds; seed++)
        one_run(g, g->K_big, 3, seed, seed - 1, 0, gtol, gtr);
    for (int v = 0; v < NV; v++) {
        double worst = 0;
        for (int s = 0; s < seeds; s++) {
            double m, l;
            oracle_ref64_rel(&ec[v][s], &m, &l);
            if (m > worst)
                worst = m;
            if (l > worst)
                worst = l;
        }
        printf("  grid{0,8} %-14s worst relative error %.3g (floor %.3g): %s\n", vname[v], worst,
               ldexp(1.0, -20), worst <= ldexp(1.0, -20) ? "within the floor (not caught)" : "CAUGHT");
    }
}


/* A probe the grid set is not: A and C from the spec's real-valued distributions (full
 * mantissas), B with one nonzero per column, a signed power of two 2^e (e in [-2, 2]) at a
 * random row: each C element is alpha * a * 2^e + beta * c, which the baseline computes with
 * one rounding (its fmaf's; the other k add exact zeros), so the limit may be the floor
 * alone, and a candidate that rounds A loses A's low bits. Printed: each variant's worst
 * relative error (max and L2, against the fp64 value) over SEEDS runs of each
 * distribution, at the timed K. */
static void sparse_probe(const gemm_spec *g, int seeds)
{
    static float a[ROWS][2048], bcol[2048], out[NV];
    double worst[NV] = {0};
    for (int dist = 0; dist < 3; dist++)
        for (int seed = 1; seed <= seeds; seed++) {
            st = 0xD1B54A32D192ED03ull * (uint64_t)(seed * 7 + dist * 131 + 5);
            oracle_ref64_err e[NV];
            static double ref[NS];
            static float o[NV][NS];
            for (int i = 0; i < ROWS; i++)
                for (int k = 0; k < g->K_big; k++)
                    a[i][k] = draw(dist);
            for (int j = 0; j < COLS; j++) {
                int kk = (int)(u01() * g->K_big), ex = (int)(u01() * 5) - 2;
                float bv = (u01() < 0.5 ? -1.0f : 1.0f) * ldexpf(1.0f, ex);
                memset(bcol, 0, sizeof bcol);
                bcol[kk] = bv;
                for (int i = 0; i < ROWS; i++) {
                    float c = draw(dist);
                    double r = (double)a[i][kk] * bv;
                    ref[i * COLS + j] = g->epilogue ? 1.5 * r + 0.5 * (double)c : r;
                    for (int v = 0; v < NV; v++) {
                        float acc = kdot(v, a[i], bcol, g->K_big);
                        out[v] = g->epilogue ? fmaf(1.5f, acc, 0.5f * c) : acc;
                        o[v][i * COLS + j] = out[v];
                    }
                }
            }
            for (int v = 0; v < NV; v++) {
                double m, l;
                oracle_ref64_error(ref, o[v], HK_DT_F32, NS, &e[v]);
                oracle_ref64_rel(&e[v], &m, &l);
                worst[v] = fmax(worst[v], fmax(m, l));
            }
        }
    for (int v = 0; v < NV; v++)
        printf("  sparse-B probe %-14s worst relative error %.3g: %s the floor (%.3g)\n", vname[v], worst[v],
               worst[v] <= ldexp(1.0, -20) ? "within" : "CAUGHT, over", ldexp(1.0, -20));
}

int main(int argc, char **argv)
{
    int seeds = argc > 1 ? atoi(argv[1]) : 5;
    if (seeds < 1 || 6 * seeds > MAXRUNS)
        return 2;
    gemm_spec sg = {"sgemm 2048^3 (alpha 1.5, beta 0.5)", 2048, 997, 1, {1e-4, 1e-3, 1e-5}};
    gemm_spec bg = {"batched_gemm 128 x 256^3", 256, 67, 0, {1e-4, 1e-3, 1e-5}};
    judge_spec(&sg, seeds);
    sparse_probe(&sg, seeds);
    judge_spec(&bg, seeds);
    sparse_probe(&bg, seeds);
    return 0;
}
