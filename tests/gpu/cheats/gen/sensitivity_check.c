/* A CPU estimate of a check the referee does not have (issue 12; README note on
 * reduce_sum_grid_aware.cu, bench/results/2026-12-07-red-cpu-s50.md): a sensitivity check
 * for a linear output. The candidate runs on real-valued inputs x and again on x' = x with
 * M random elements raised by known amounts D_j (|sum| / 64 and below, 16x apart, so that
 * no subset of them cancels another); its output must move by sum_j (x'_j - x_j) within
 * the rounding noise of two runs. A candidate that skips a share of the input cannot know
 * which of its skipped elements changed without reading them: it misses each one it skips,
 * and one it reads moves by D_j times its scale: off by about D_j either way.
 * Emulated at reduce_sum's timed size 2^24 on its three distributions, 6 seeds each, for
 * honest orders (the baseline's sequential float sum; warp shuffle trees with atomics in
 * warp order; block trees of 256 with their atomics in a random order drawn afresh for
 * each run, as the GPU's are; a pairwise sum) and the skippers (lopsided_sum.cu's every 4th
 * element x4; reduce_sum_warp_skip.cu's one warp in two x2, which reduce_sum_grid_aware.cu
 * runs on these inputs; two warps in three x1.5). Printed: the largest relative
 * discrepancy |moved - expected| / expected of each honest order and the smallest of each
 * skipper, over every seed and test (three tests of M = 1, one of M = 4).
 * The referee's check as built (sessions 51-52: the ladder and spread plans, every
 * distribution, the widened bound) is emulated with the real functions in
 * tests/unit/test_engine_oracle_sens.c; its small_skippers test gives the detection rate
 * against the share skipped (scaled or mean-filled, scattered or the tail):
 * bench/results/2026-12-08-sens-cpu-s52.md.
 *   cc -O2 -o sensitivity_check sensitivity_check.c -lm
 *   ./sensitivity_check [SEEDS]        (default 6, reduce_sum's seed count) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t st;
static double u01(void)
{
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    return ((st >> 11) + 0.5) * 0x1p-53;
}
static float draw(int d)
{
    switch (d) {
    case 0: return (float)u01();
    case 1: return (float)(1.0 + 0.25 * sqrt(-2 * log(u01())) * cos(6.283185307179586 * u01()));
    default: return (float)(0.25 + 0.5 * u01());
    }
}

#define N (1L << 24)
static float tree(const float *x, int len)
{
    float v[256];
    memcpy(v, x, (size_t)len * sizeof *v);
    for (int s = len / 2; s > 0; s >>= 1)
        for (int i = 0; i < s; i++)
            v[i] += v[i + s];
    return v[0];
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
static uint64_t order_state = 12345;
static float candidate(int c, const float *x)
{
    float s = 0;
    switch (c) {
    case 0: /* the baseline: one atomic an element, in index order */
        for (long i = 0; i < N; i++)
            s += x[i];
        return s;
    case 1: /* warp trees, atomics in warp order */
        for (long w = 0; w < N / 32; w++)
            s += tree(x + w * 32, 32);
        return s;
    case 2: { /* block trees, atomics in a fresh random order each run */
        static float part[N / 256];
        static long perm[N / 256];
        for (long b = 0; b < N / 256; b++) {
            part[b] = tree(x + b * 256, 256);
            perm[b] = b;
        }
        uint64_t save = st;
        st = order_state = order_state * 6364136223846793005ull + 1442695040888963407ull;
        for (long b = N / 256 - 1; b > 0; b--) {
            long j = (long)(u01() * (double)(b + 1));
            long t = perm[b];
            perm[b] = perm[j];
            perm[j] = t;
        }
        st = save;
        for (long b = 0; b < N / 256; b++)
            s += part[perm[b]];
        return s;
    }
    case 3: return pairwise(x, N);
    case 4: /* lopsided_sum.cu */
        for (long i = 0; i < N; i += 4)
            s += 4.0f * x[i];
        return s;
    case 5: /* reduce_sum_warp_skip.cu, reduce_sum_grid_aware.cu on real inputs */
        for (long w = 0; w < N / 32; w += 2)
            s += 2.0f * tree(x + w * 32, 32);
        return s;
    default: /* two warps in three */
        for (long w = 0; w < N / 32; w++)
            if (w % 3 < 2)
                s += 1.5f * tree(x + w * 32, 32);
        return s;
    }
}
#define NC 7
static const char *cname[NC] = {"baseline (index order)", "warp trees, warp order",
                                "block trees, random order", "pairwise",
                                "lopsided_sum (every 4th x4)", "warp_skip / grid_aware (1 in 2)",
                                "2 warps in 3"};

int main(int argc, char **argv)
{
    int seeds = argc > 1 ? atoi(argv[1]) : 6;
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    double worst[NC], best[NC];
    for (int c = 0; c < NC; c++)
        worst[c] = 0, best[c] = INFINITY;
    const int ms[4] = {1, 1, 1, 4};
    for (int d = 0; d < 3; d++)
        for (int seed = 1; seed <= seeds; seed++) {
            st = 0x9E3779B97F4A7C15ull * (uint64_t)(seed * 7 + d * 131 + 17);
            double sum = 0;
            for (long i = 0; i < N; i++) {
                x[i] = draw(d);
                sum += x[i];
            }
            for (int mi = 0; mi < 4; mi++) {
                memcpy(y, x, N * sizeof *y);
                double expected = 0;
                for (int k = 0; k < ms[mi]; k++) {
                    long j = (long)(u01() * N);
                    /* one element: |sum|/64 to |sum|/32; four: scales 16x apart, so that
                     * no subset of the changes, scaled by up to 4, cancels another */
                    double amount = ms[mi] == 1 ? sum / 64 * (1 + u01())
                                                : sum / 64 * ldexp(1.0, -4 * k) * (1 + 0.25 * u01());
                    float v = (float)(y[j] + amount);
                    expected += (double)v - y[j];
                    y[j] = v;
                }
                for (int c = 0; c < NC; c++) {
                    double moved = (double)candidate(c, y) - (double)candidate(c, x);
                    double r = fabs(moved - expected) / expected;
                    if (r > worst[c])
                        worst[c] = r;
                    if (r < best[c])
                        best[c] = r;
                }
            }
        }
    printf("reduce_sum n = 2^24, 3 distributions x %d seeds x 4 tests (three of one element raised by\n"
           "|sum|/64 to |sum|/32; one of 4 elements raised by about |sum|/64 x 16^-k, k = 0..3):\n", seeds);
    for (int c = 0; c < NC; c++)
        printf("  %-32s |moved - expected| / expected: largest %.3g, smallest %.3g\n", cname[c], worst[c],
               best[c]);
    free(x);
    free(y);
    return 0;
}
