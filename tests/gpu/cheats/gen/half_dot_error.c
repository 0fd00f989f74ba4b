/* A CPU estimate for tests/gpu/cheats/README.md's half_dot note: the relative error against
 * an fp64 sum of (1) the suite's naive dot (one float atomic per element, simulated as a
 * sequential float sum), (2) half_dot.cu (products rounded to half, half warp tree through
 * shfl_down, half block sum of 8 warps, one float atomic per block) and (3) an honest float
 * block reduction of the same shape, on uniform(lo, hi) inputs, RMS over seeds 1..S as the
 * referee pools them. The GPU's atomics order differs from a sequential one; the sizes of
 * the errors do not. Inputs come from a xorshift generator, not the harness's hash: the
 * distribution is what matters here.
 *   cc -O2 -o half_dot_error half_dot_error.c -lm   (GCC 12+ or clang: _Float16)
 *   ./half_dot_error N LO HI SEEDS                   e.g. 1000003 -2 2 5 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static uint64_t st;
static double u01(void) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return (st >> 11) * 0x1p-53; }
static _Float16 hadd(_Float16 x, _Float16 y) { volatile float s = (float)x + (float)y; return (_Float16)s; }
int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s N LO HI SEEDS\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    double lo = atof(argv[2]), hi = atof(argv[3]);
    int seeds = atoi(argv[4]);
    float *a = malloc(n * 4), *b = malloc(n * 4);
    double sb = 0, sc = 0, sf = 0;
    for (int s = 1; s <= seeds; s++) {
        st = 0x9E3779B97F4A7C15ull * (uint64_t)(s + 17);
        for (long i = 0; i < n; i++) { a[i] = (float)(lo + (hi - lo) * u01()); b[i] = (float)(lo + (hi - lo) * u01()); }
        double ref = 0; volatile float base = 0, cand = 0;
        for (long i = 0; i < n; i++) { ref += (double)a[i] * (double)b[i]; volatile float p = a[i] * b[i]; base = base + p; }
        /* half_dot: block of 256 = 8 warps; warp tree via shfl_down in half; block sum in half from 0 */
        volatile float flt = 0; /* an honest float block reduction for comparison (tree) */
        for (long b0 = 0; b0 < n; b0 += 256) {
            _Float16 part[8];
            float fpart[8];
            for (int w = 0; w < 8; w++) {
                _Float16 v[32]; float fv[32];
                for (int l = 0; l < 32; l++) {
                    long i = b0 + w * 32 + l;
                    volatile float p = i < n ? a[i] * b[i] : 0.0f;
                    v[l] = (_Float16)p; fv[l] = p;
                }
                for (int o = 16; o > 0; o >>= 1)
                    for (int l = 0; l < 32; l++) {
                        /* shfl_down: lane l reads lane l+o (own value beyond 31) */
                        if (l + o < 32) { v[l] = hadd(v[l], v[l + o]); volatile float t = fv[l] + fv[l + o]; fv[l] = t; }
                        else { v[l] = hadd(v[l], v[l]); } /* lanes past 31 read their own: unused */
                    }
                part[w] = v[0]; fpart[w] = fv[0];
            }
            _Float16 hs = 0; float fs = 0;
            for (int w = 0; w < 8; w++) { hs = hadd(hs, part[w]); volatile float t = fs + fpart[w]; fs = t; }
            cand = cand + (float)hs;
            flt = flt + fs;
        }
        double eb = fabs(base - ref) / fabs(ref), ec = fabs(cand - ref) / fabs(ref), ef = fabs(flt - ref) / fabs(ref);
        printf("n=%ld seed=%d ref=%.6g base_err=%.3g half_err=%.3g floatblock_err=%.3g\n", n, s, ref, eb, ec, ef);
        sb += eb * eb; sc += ec * ec; sf += ef * ef;
    }
    printf("n=%ld RMS base %.3g half %.3g (%.1fx) floatblock %.3g (%.2fx)\n", n, sqrt(sb / seeds), sqrt(sc / seeds),
           sqrt(sc / sb), sqrt(sf / seeds), sqrt(sf / sb));
    return 0;
}
