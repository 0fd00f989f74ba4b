/* The oracle's comparison speed: one float output of N elements (default 2^26, a 268 MB
 * output) compared with the baseline's, and the fp64 rule's error pass, each timed REPS
 * times; prints a table. Built and run by bench/oracle/run.sh. */
#include "core/hk.h"
#include "measure/oracle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)1 << 26;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (n == 0 || reps < 1 || reps > 100) {
        fprintf(stderr, "usage: bench_oracle [ELEMENTS [REPS]]\n");
        return 2;
    }
    float *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double *ref = malloc(n * sizeof *ref);
    if (!b || !c || !ref) {
        fprintf(stderr, "bench_oracle: out of memory for %zu elements\n", n);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        b[i] = sinf((float)i * 0.001f);
        c[i] = b[i] * (1.0f + 1e-6f);
        ref[i] = (double)b[i];
    }
    spec_tolerance tol = {.rtol = 1e-3, .atol = 1e-5, .l2 = 1e-4};
    double t_cmp[100], t_ref[100];
    oracle_result r;
    oracle_ref64_err e;
    for (int k = 0; k < reps; k++) {
        double t0 = now_s();
        oracle_compare_buffer(HK_DT_F32, b, c, n, tol, &r);
        double t1 = now_s();
        oracle_ref64_error(ref, c, HK_DT_F32, n, &e);
        t_cmp[k] = t1 - t0;
        t_ref[k] = now_s() - t1;
    }
    qsort(t_cmp, (size_t)reps, sizeof *t_cmp, by_value);
    qsort(t_ref, (size_t)reps, sizeof *t_ref, by_value);
    printf("%zu float elements, %d reps, %ld cores online; %s\n\n", n, reps,
           sysconf(_SC_NPROCESSORS_ONLN), r.reason);
    printf("| pass | median s | min s | ns/element |\n|---|---|---|---|\n");
    printf("| compare with the baseline (tolerance) | %.3f | %.3f | %.2f |\n", t_cmp[reps / 2],
           t_cmp[0], t_cmp[reps / 2] * 1e9 / (double)n);
    printf("| error against the fp64 reference | %.3f | %.3f | %.2f |\n", t_ref[reps / 2],
           t_ref[0], t_ref[reps / 2] * 1e9 / (double)n);
    free(b);
    free(c);
    free(ref);
    return 0;
}
