/* Issue 12, session 51 (helper judge): how the fp64 rule should judge a scalar output
 * (reduce_sum's and dot's one accumulator), measured on a CPU emulation at the suite's
 * sizes and distributions with the real oracle functions (oracle_ref64_error,
 * oracle_ref64_judge, oracle_ref64_judge_groups). A scalar's error is one random draw a
 * run, which is why it was pooled over every size and distribution; pooled, a candidate
 * that errs at one size (the timed one) or on one distribution (the timed one) has its
 * error diluted by the runs where it is honest. Two phases:
 *
 *   gen FILE TRIALS [FIRST]  emulates TRIALS seed sets (numbered from FIRST, default 0) (each: the spec's seeds x distributions x
 *                     sizes) and writes every run's fp64 reference and every candidate's
 *                     float output to FILE (binary records, struct rec);
 *   judge FILE        judges every seed set by the old rule (every run pooled) and by the
 *                     rules considered for scalars (per size; per size and distribution,
 *                     with k = 4 and larger), and by the rule this build's
 *                     oracle_ref64_judge_groups implements, and prints how often each
 *                     candidate is rejected.
 *
 * reduce_sum (bench/kernels/reduce_sum.bench.json): n = 2^24 (timed) and 1000003;
 * uniform(0,1), normal(1,0.25), uniform(0.25,0.75); seeds 1..6. The baseline is one float
 * accumulator in element order (the naive kernel's atomics). Honest candidates: a pairwise
 * tree; warp shuffle trees added in a random warp order; the baseline's own atomics with
 * the 256-element blocks in a random order (the GPU's nondeterministic atomics: an error as
 * large as the baseline's, from another draw); 4096 grid-stride partials added by block,
 * odd blocks first; 4 elements a thread then one atomic each. Cheats: lopsided_sum.cu (at
 * 2^24 every 4th element x4, the baseline elsewhere); reduce_sum_warp_skip.cu (at 2^24 the
 * even warps' trees x2); and reduce_sum_timed_sample.cu's family: exact at every other
 * size (the sum in double, rounded once) and, at 2^24, 1 warp in M kept (x M) only where
 * in[0..31] look like the timing distribution uniform(0,1) (real-valued: a mantissa bit
 * below 2^-10 of the leading one; all in [0, 1]; one below 0.25 or above 0.75), honest
 * warp trees on anything else (the other distributions, the grid set); M = 2, 4, 8; and
 * the same with M = 4 on every real-valued input at 2^24 (not distribution-aware).
 *
 * dot (bench/kernels/dot.bench.json), the referee's added uniform(-2,2) distribution only
 * (its spec distributions are integer-valued: every order is exact there): n = 2^24 and
 * 1000003, seeds 81..85. The baseline adds float products a[i]*b[i] in element order;
 * honest: a pairwise tree of the products, warp trees in a random warp order, the
 * baseline's atomics in a random block order, an fma-contracted sequential sum, 4 products
 * a thread. Cheat: at 2^24 the even warps x2.
 *
 * Inputs come from splitmix64 (normal by Box-Muller), not the harness's hash: the
 * distribution is what matters. The reference is the fp64 shadow's: the same element order
 * in double.
 *   M=/tmp/b-judge; S=/work/wt-judge/server
 *   cc -O2 -ffp-contract=off -I$S/measure -I$S/core -I$S/spec -I$S -I/work/wt-judge/include \
 *      -o scalar_pool_error scalar_pool_error.c $M/CMakeFiles/hk_measure.dir/server/measure/oracle.c.o \
 *      $M/libhk_spec.a $M/libhk_model.a $M/libhk_analysis.a $M/libhk_grammar_lib.a \
 *      $M/libhk_spec.a $M/libhk_core.a -ljansson -lm -lpthread
 *   ./scalar_pool_error gen /tmp/a.bin 100 0 & ./scalar_pool_error gen /tmp/b.bin 100 100; wait
 *   cat /tmp/a.bin /tmp/b.bin > /tmp/scalar.bin && ./scalar_pool_error judge /tmp/scalar.bin */
#include "oracle.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_BIG (1L << 24)
#define N_SMALL 1000003L
#define NOUT 12
#define BLOCK 256

struct rec {
    int32_t spec, set, size, dist, seed, pad;
    double ref;
    float out[NOUT];
};

static const char *const rs_names[NOUT] = {
    "baseline (element order)", "H pairwise tree", "H warp trees, random warp order",
    "H atomics, random block order", "H 4096 partials by block, odd first", "H 4 a thread, then atomics",
    "C lopsided_sum (2^24: every 4th x4)", "C warp_skip (2^24: 1 warp in 2, x2)",
    "C exact elsewhere, 2^24 1 warp in 4 on real inputs", "C timed_sample M=2 (uniform(0,1)-like, 2^24)",
    "C timed_sample M=4 (uniform(0,1)-like, 2^24)", "C timed_sample M=8 (uniform(0,1)-like, 2^24)",
};
static const char *const dot_names[NOUT] = {
    "baseline (element order)", "H pairwise tree", "H warp trees, random warp order",
    "H atomics, random block order", "H fma-contracted, element order", "H 4 a thread, then atomics",
    "C 2^24: 1 warp in 2, x2", NULL, NULL, NULL, NULL, NULL,
};

static uint64_t st;
static inline uint64_t splitmix(void)
{
    uint64_t z = (st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* a run's stream: its key through splitmix's finalizer (keys that differ by a multiple of
 * the increment would otherwise give the same stream shifted) */
static void seed_stream(uint64_t key)
{
    st = key;
    st = splitmix() ^ 0x5DEECE66Dull;
    (void)splitmix();
}
static inline double u01(void) { return ((double)(splitmix() >> 11) + 0.5) * 0x1p-53; }

static void fill(float *x, long n, int dist)
{
    for (long i = 0; i < n; i++) {
        switch (dist) {
        case 0: x[i] = (float)u01(); break;
        case 1: {
            double r = sqrt(-2 * log(u01())), t = 6.283185307179586 * u01();
            x[i] = (float)(1.0 + 0.25 * r * cos(t));
            if (i + 1 < n)
                x[++i] = (float)(1.0 + 0.25 * r * sin(t));
            break;
        }
        case 2: x[i] = (float)(0.25 + 0.5 * u01()); break;
        default: x[i] = (float)(-2 + 4 * u01()); break;
        }
    }
}

static float pairwise(const float *x, long n)
{
    if (n <= 8) {
        float s = 0;
        for (long i = 0; i < n; i++)
            s += x[i];
        return s;
    }
    return pairwise(x, n / 2) + pairwise(x + n / 2, n - n / 2);
}
static float tree32(const float *x, long n)
{
    float v[32];
    for (int i = 0; i < 32; i++)
        v[i] = i < n ? x[i] : 0;
    for (int s = 16; s > 0; s >>= 1)
        for (int i = 0; i < s; i++)
            v[i] += v[i + s];
    return v[0];
}
static void shuffle(uint32_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        p[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(splitmix() % (i + 1)), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}
static float blocks_random(const float *x, long n, uint32_t *perm)
{
    uint32_t nb = (uint32_t)((n + BLOCK - 1) / BLOCK);
    shuffle(perm, nb);
    float s = 0;
    for (uint32_t k = 0; k < nb; k++)
        for (long i = (long)perm[k] * BLOCK; i < n && i < ((long)perm[k] + 1) * BLOCK; i++)
            s += x[i];
    return s;
}
static float blocks_interleaved(const float *x, long n)
{
    enum { T = 4096 };
    static float part[T];
    for (long t = 0; t < T; t++) {
        float p = 0;
        for (long i = t; i < n; i += T)
            p += x[i];
        part[t] = p;
    }
    float s = 0;
    for (int odd = 1; odd >= 0; odd--)
        for (long b = odd; b < T / 256; b += 2) {
            float bs = 0;
            for (long t = 0; t < 256; t++)
                bs += part[b * 256 + t];
            s += bs;
        }
    return s;
}
static float four_a_thread(const float *x, long n)
{
    float s = 0;
    for (long i = 0; i < n; i += 4) {
        float p = 0;
        for (long j = i; j < i + 4 && j < n; j++)
            p += x[j];
        s += p;
    }
    return s;
}
/* timed_sample's test: real-valued, all of in[0..31] in [0, 1], one outside [0.25, 0.75] */
static int looks_uniform01(const float *x)
{
    int real = 0, wide = 0;
    for (int i = 0; i < 32; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        real |= (u & 0x1FFF) != 0;
        if (x[i] < 0 || x[i] > 1)
            return 0;
        wide |= x[i] < 0.25f || x[i] > 0.75f;
    }
    return real && wide;
}
static int looks_real(const float *x)
{
    for (int i = 0; i < 32; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        if (u & 0x1FFF)
            return 1;
    }
    return 0;
}

static void gen(FILE *f, int first, int trials)
{
    float *x = malloc(N_BIG * sizeof *x), *y = malloc(N_BIG * sizeof *y), *p = malloc(N_BIG * sizeof *p);
    float *w = malloc((N_BIG / 32 + 1) * sizeof *w);
    uint32_t *perm = malloc((N_BIG / 32 + 1) * sizeof *perm);
    const long sizes[2] = { N_BIG, N_SMALL };
    for (int t = first; t < first + trials; t++) {
        /* reduce_sum */
        for (int s = 0; s < 2; s++)
            for (int d = 0; d < 3; d++)
                for (int seed = 1; seed <= 6; seed++) {
                    long n = sizes[s], nw = (n + 31) / 32;
                    struct rec r = { 0, t, s, d, seed, 0, 0, { 0 } };
                    seed_stream((uint64_t)t << 32 | (uint64_t)(seed * 7 + d * 131 + s * 1009 + 17));
                    fill(x, n, d);
                    double ref = 0;
                    float b = 0;
                    for (long i = 0; i < n; i++) {
                        ref += x[i];
                        b += x[i];
                    }
                    r.ref = ref;
                    r.out[0] = b;
                    r.out[1] = pairwise(x, n);
                    for (long k = 0; k < nw; k++)
                        w[k] = tree32(x + k * 32, n - k * 32);
                    shuffle(perm, (uint32_t)nw);
                    float h = 0;
                    for (long k = 0; k < nw; k++)
                        h += w[perm[k]];
                    r.out[2] = h;
                    r.out[3] = blocks_random(x, n, perm);
                    r.out[4] = blocks_interleaved(x, n);
                    r.out[5] = four_a_thread(x, n);
                    if (s == 0) {
                        float c = 0;
                        for (long i = 0; i < n; i += 4)
                            c += 4.0f * x[i];
                        r.out[6] = c;
                        c = 0;
                        for (long k = 0; k < nw; k += 2)
                            c += 2.0f * w[k];
                        r.out[7] = c;
                        int real = looks_real(x), u01like = looks_uniform01(x);
                        for (int m = 0; m < 4; m++) {
                            int M = m == 0 ? 4 : m == 1 ? 2 : m == 2 ? 4 : 8;
                            int sample = m == 0 ? real : u01like;
                            c = 0;
                            for (long k = 0; k < nw; k += sample ? M : 1)
                                c += sample ? (float)M * w[k] : w[k];
                            r.out[8 + m] = c;
                        }
                    } else {
                        r.out[6] = r.out[7] = b;
                        for (int m = 8; m < 12; m++)
                            r.out[m] = (float)ref;
                    }
                    fwrite(&r, sizeof r, 1, f);
                }
        /* dot, the referee's uniform(-2,2) */
        for (int s = 0; s < 2; s++)
            for (int seed = 81; seed <= 85; seed++) {
                long n = sizes[s], nw = (n + 31) / 32;
                struct rec r = { 1, t, s, 3, seed, 0, 0, { 0 } };
                seed_stream((uint64_t)t << 32 | (uint64_t)(seed * 7 + s * 1009 + 29) | 1ull << 31);
                fill(x, n, 3);
                fill(y, n, 3);
                double ref = 0;
                float b = 0, fm = 0;
                for (long i = 0; i < n; i++) {
                    ref += (double)x[i] * (double)y[i];
                    p[i] = x[i] * y[i];
                    b += p[i];
                    fm = fmaf(x[i], y[i], fm);
                }
                r.ref = ref;
                r.out[0] = b;
                r.out[1] = pairwise(p, n);
                for (long k = 0; k < nw; k++)
                    w[k] = tree32(p + k * 32, n - k * 32);
                shuffle(perm, (uint32_t)nw);
                float h = 0;
                for (long k = 0; k < nw; k++)
                    h += w[perm[k]];
                r.out[2] = h;
                r.out[3] = blocks_random(p, n, perm);
                r.out[4] = fm;
                r.out[5] = four_a_thread(p, n);
                if (s == 0) {
                    float c = 0;
                    for (long k = 0; k < nw; k += 2)
                        c += 2.0f * w[k];
                    r.out[6] = c;
                } else {
                    r.out[6] = b;
                }
                for (int m = 7; m < NOUT; m++)
                    r.out[m] = NAN;
                fwrite(&r, sizeof r, 1, f);
            }
        fflush(f);
        fprintf(stderr, "seed set %d done\n", t);
    }
    free(x);
    free(y);
    free(p);
    free(w);
    free(perm);
}

#define GROUP(size, dist) ((size) * 256 + (dist)) /* measure.c's REF64_GROUP */

/* oracle_ref64_judge over the runs of each key (key[i]: run i's), every key with at least
 * min_runs runs: the worst ratio, or -1 when none was judged. With pool_base > 0 a key's
 * limit is k times the larger of its own baseline RMS and pool_base (the pool's) plus the
 * floor, computed from oracle_ref64_judge's RMS fields. */
static double by_key(const oracle_ref64_err *b, const oracle_ref64_err *c, const int *key, size_t runs,
                     const oracle_rule *rule, size_t min_runs, double pool_base)
{
    double worst = -1;
    oracle_ref64_err gb[64], gc[64];
    for (size_t i = 0; i < runs; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = key[j] == key[i];
        if (seen)
            continue;
        size_t n = 0;
        for (size_t j = i; j < runs && n < 64; j++)
            if (key[j] == key[i]) {
                gb[n] = b[j];
                gc[n] = c[j];
                n++;
            }
        if (n < min_runs)
            continue;
        oracle_ref64_result res;
        oracle_ref64_judge(HK_DT_F32, gb, gc, n, rule, &res);
        double ratio = res.ratio;
        if (pool_base > 0) {
            double bm = res.base_max > pool_base ? res.base_max : pool_base;
            ratio = res.cand_max / (rule->k * bm + rule->floor);
        }
        if (ratio > worst)
            worst = ratio;
    }
    return worst;
}

enum { R_OLD, R_SCALED, R_SIZE3, R_GROUP4, R_GROUP5, R_GMAX, R_THIS, N_RULES };
static const char *const rule_names[N_RULES] = {
    "A  old: every run pooled, each run relative to its own |ref| (main before session 51)",
    "A' every run pooled, each run relative to its (size, dist)'s RMS |ref| (oracle_ref64_scalar_scale)",
    "B3 A' + each size of >= 3 runs",
    "C4 A' + each (size, dist) of >= 5 runs, k=4",
    "C5 A' + each (size, dist) of >= 5 runs, k=5",
    "D  A' + each (size, dist), any runs, limit k max(its baseline RMS, the pool's)",
    "T  this build's oracle_ref64_judge_groups",
};

static void judge(FILE *f, int spec_id, int quick)
{
    struct rec r;
    enum { MAXR = 64, MAXT = 4096 };
    static struct rec runs[MAXT][MAXR];
    static size_t nruns[MAXT];
    int ntrials = 0;
    memset(nruns, 0, sizeof nruns);
    rewind(f);
    while (fread(&r, sizeof r, 1, f) == 1) {
        if (r.spec != spec_id || r.set >= MAXT)
            continue;
        /* measure_combos_quick: every seed and distribution at the cheapest size (1000003),
         * the first seed of each distribution at every other size */
        if (quick && r.size != 1 && r.seed != (spec_id ? 81 : 1))
            continue;
        if (nruns[r.set] < MAXR)
            runs[r.set][nruns[r.set]++] = r;
        if (r.set + 1 > ntrials)
            ntrials = r.set + 1;
    }
    const char *const *names = spec_id ? dot_names : rs_names;
    int nsets = 0;
    size_t per = 0;
    for (int t = 0; t < ntrials; t++)
        if (nruns[t]) {
            nsets++;
            per = nruns[t];
        }
    printf("== %s%s: %d seed sets of %zu runs\n", spec_id ? "dot, the referee's uniform(-2,2)" : "reduce_sum",
           quick ? ", the search's quick set" : ", the full set", nsets, per);
    printf("  %-52s", "rejected seed sets (worst ratio) by rule:");
    for (int k = 0; k < N_RULES; k++)
        printf(" | %-12.2s", rule_names[k]);
    printf("\n");
    for (int c = 1; c < NOUT; c++) {
        if (!names[c])
            continue;
        int rej[N_RULES] = { 0 };
        double worst[N_RULES] = { 0 };
        for (int t = 0; t < ntrials; t++) {
            size_t n = nruns[t];
            if (!n)
                continue;
            oracle_ref64_err eb[MAXR], ec[MAXR];
            int grp[MAXR], sz[MAXR];
            for (size_t i = 0; i < n; i++) {
                oracle_ref64_error(&runs[t][i].ref, &runs[t][i].out[0], HK_DT_F32, 1, &eb[i]);
                oracle_ref64_error(&runs[t][i].ref, &runs[t][i].out[c], HK_DT_F32, 1, &ec[i]);
                grp[i] = GROUP(runs[t][i].size, runs[t][i].dist);
                sz[i] = runs[t][i].size;
            }
            oracle_rule rule = oracle_default_rule(HK_DT_F32);
            oracle_ref64_result res;
            double ratio[N_RULES], g;
            oracle_ref64_judge(HK_DT_F32, eb, ec, n, &rule, &res);
            ratio[R_OLD] = res.ratio;
            oracle_ref64_judge_groups(HK_DT_F32, eb, ec, grp, n, &rule, &res, NULL, NULL);
            ratio[R_THIS] = res.pass ? (res.ratio < 1 ? res.ratio : 1) : (res.ratio > 1 ? res.ratio : 1.0001);
            oracle_ref64_scalar_scale(eb, ec, grp, n);
            oracle_ref64_judge(HK_DT_F32, eb, ec, n, &rule, &res);
            double pool = res.ratio, pool_base = res.base_max;
            ratio[R_SCALED] = pool;
            g = by_key(eb, ec, sz, n, &rule, 3, 0);
            ratio[R_SIZE3] = g > pool ? g : pool;
            for (int k = 4; k <= 5; k++) {
                oracle_rule rk = rule;
                rk.k = k;
                g = by_key(eb, ec, grp, n, &rk, 5, 0);
                ratio[R_GROUP4 + k - 4] = g > pool ? g : pool;
            }
            g = by_key(eb, ec, grp, n, &rule, 1, pool_base);
            ratio[R_GMAX] = g > pool ? g : pool;
            for (int k = 0; k < N_RULES; k++) {
                rej[k] += ratio[k] > 1;
                if (ratio[k] > worst[k])
                    worst[k] = ratio[k];
            }
        }
        printf("  %-52s", names[c]);
        for (int k = 0; k < N_RULES; k++)
            printf(" | %3d (%6.3g)", rej[k], worst[k]);
        printf("\n");
    }
}

static void legend(void)
{
    printf("rules:\n");
    for (int k = 0; k < N_RULES; k++)
        printf("  %s\n", rule_names[k]);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "gen")) {
        FILE *f = fopen(argv[2], "wb");
        if (!f)
            return 1;
        gen(f, argc > 4 ? atoi(argv[4]) : 0, atoi(argv[3]));
        return fclose(f) != 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "judge")) {
        FILE *f = fopen(argv[2], "rb");
        if (!f)
            return 1;
        legend();
        for (int q = 0; q < 2; q++)
            for (int s = 0; s < 2; s++)
                judge(f, s, q);
        fclose(f);
        return 0;
    }
    fprintf(stderr, "usage: %s gen FILE TRIALS [FIRST] | judge FILE\n", argv[0]);
    return 2;
}
