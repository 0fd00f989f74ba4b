/* A CPU estimate for tests/gpu/cheats/lopsided_sum.cu and strided_sum.cu (README notes): the
 * relative error against an fp64 sum of (1) the suite's reduce_sum (one float atomic per
 * element, simulated as a sequential float sum), (2) every 4th element x4 with the same
 * atomics (strided_sum.cu), at reduce_sum's sizes and distributions, and the fp64 rule's
 * verdict as oracle_ref64_judge computes it (RMS over the runs, k = 4, floor 2^-20): pooled
 * over both sizes with the cheat sampling at both (strided_sum) or only at 2^24 and exact
 * at 1000003 (lopsided_sum), and over the 2^24 runs alone. The GPU's atomics order differs
 * from a sequential one; the sizes of the errors do not. Inputs come from a xorshift
 * generator (normal by Box-Muller), not the harness's hash: the distribution is what matters.
 *   cc -O2 -o lopsided_sum_error lopsided_sum_error.c -lm
 *   ./lopsided_sum_error SEEDS          e.g. 6 (the spec's seeds: 6) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static uint64_t st;
static double u01(void) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return ((st >> 11) + 0.5) * 0x1p-53; }
static double draw(int dist)
{
    if (dist == 0)
        return u01();
    if (dist == 1)
        return 1.0 + 0.25 * sqrt(-2 * log(u01())) * cos(6.283185307179586 * u01());
    return 0.25 + 0.5 * u01();
}
int main(int argc, char **argv)
{
    int seeds = argc > 1 ? atoi(argv[1]) : 6;
    const long sizes[2] = {16777216, 1000003};
    float *x = malloc(sizes[0] * sizeof *x);
    /* squared relative errors, summed: [size][0 baseline, 1 strided] */
    double e2[2][2] = {{0}}, runs[2] = {0};
    for (int s = 0; s < 2; s++)
        for (int d = 0; d < 3; d++)
            for (int seed = 1; seed <= seeds; seed++) {
                long n = sizes[s];
                st = 0x9E3779B97F4A7C15ull * (uint64_t)(seed * 7 + d * 131 + s * 1009 + 17);
                double ref = 0;
                volatile float base = 0, strided = 0;
                for (long i = 0; i < n; i++) {
                    x[i] = (float)draw(d);
                    ref += x[i];
                    base = base + x[i];
                    if (i % 4 == 0)
                        strided = strided + 4.0f * x[i];
                }
                double eb = fabs(base - ref) / fabs(ref), es = fabs(strided - ref) / fabs(ref);
                printf("n=%-9ld dist %d seed %d: baseline %.3g, every 4th x4 %.3g\n", n, d, seed, eb, es);
                e2[s][0] += eb * eb;
                e2[s][1] += es * es;
                runs[s]++;
            }
    double floor_ = 0x1p-20, k = 4;
    double b_all = sqrt((e2[0][0] + e2[1][0]) / (runs[0] + runs[1]));
    double strided = sqrt((e2[0][1] + e2[1][1]) / (runs[0] + runs[1]));
    double lopsided = sqrt((e2[0][1] + e2[1][0]) / (runs[0] + runs[1])); /* exact where small */
    double b_big = sqrt(e2[0][0] / runs[0]), c_big = sqrt(e2[0][1] / runs[0]);
    printf("RMS baseline: 2^24 %.3g, 1000003 %.3g, both %.3g\n", b_big, sqrt(e2[1][0] / runs[1]), b_all);
    printf("strided_sum (both sizes): %.3g, %.2f of the limit\n", strided, strided / (k * b_all + floor_));
    printf("lopsided_sum (2^24 only), pooled: %.3g, %.2f of the limit\n", lopsided, lopsided / (k * b_all + floor_));
    printf("lopsided_sum, the 2^24 runs alone: %.3g, %.2f of the limit\n", c_big, c_big / (k * b_big + floor_));
    free(x);
    return 0;
}
