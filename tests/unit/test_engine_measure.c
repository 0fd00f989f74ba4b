/* measure.c through the real runner with fake benchmark programs
 * (tests/data/episode/fake_harness.c, compiled here with cc). The fakes are the only mock,
 * and only at the GPU boundary: they speak the generated program's command line, JSON line,
 * output-file layout and exit codes, so the rejection reasons, the oracle comparisons, the
 * floor check, the >10x second look, interleaving and the speedup math run for real. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/hk.h"
#include "measure/measure.h"
#include "measure/oracle.h"

static const char *const fakes[] = {"ok",        "fast",   "fast20", "floor",  "wrong",
                                    "nan",       "cached", "cachedsmall", "unwritten", "oob", "cudaerr",
                                    "crash",     "hang",   "noline", "latebad", "latecrash",
                                    "noisy",     "noisyonce", "datadep", "unflushed", "seedfast",
                                    "coarse",    "coarse8", "stale", "drifty", "lopsided"};

typedef struct {
    char dir[256];
    char bin[300];
    spec *sp;
    measure_opts o;
    measure_baseline base;
    measure_prog base_prog;
    char base_exe[400];
} fixture;

static char *fake_path(fixture *f, const char *name)
{
    static char buf[8][400];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, 400, "%s/%s", f->bin, name);
    return b;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/hk-test-measure-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->bin, sizeof f->bin, "%s/bin", f->dir);
    if (measure_mkdirs(f->bin))
        return -1;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cc -O1 -o %s/ok %s/episode/fake_harness.c -lm", f->bin,
             HK_TEST_DATA);
    if (system(cmd) != 0)
        return -1;
    for (size_t i = 1; i < HK_ARRAY_LEN(fakes); i++) {
        snprintf(cmd, sizeof cmd, "cp %s/ok %s/%s", f->bin, f->bin, fakes[i]);
        if (system(cmd) != 0)
            return -1;
    }
    spec_diags d = {0};
    if (spec_load(HK_TEST_DATA "/episode/tiny.bench.json", &f->sp, &d) != HK_OK)
        return -1;
    spec_diags_free(&d);
    f->o.spec = f->sp;
    f->o.isolation = RUNNER_ISO_NONE;
    f->o.run_timeout_ms = 3000;
    f->o.time_timeout_ms = 3000;
    snprintf(f->base_exe, sizeof f->base_exe, "%s/ok", f->bin);
    f->base_prog.exe = f->base_exe;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    measure_baseline_clear(&f->base);
    spec_free(f->sp);
    measure_rmtree(f->dir);
    free(f);
    return 0;
}

/* A fresh baseline run of f's spec into DIR/NAME; returns the combinations it checked. */
static size_t baseline_in(fixture *f, const char *name)
{
    char ref[400];
    snprintf(ref, sizeof ref, "%s/%s", f->dir, name);
    measure_verdict v;
    measure_verdict_init(&v);
    measure_baseline_clear(&f->base);
    assert_int_equal(measure_baseline_run(&f->o, &f->base_prog, ref, &f->base, &v), HK_OK);
    if (v.reason != MEASURE_OK)
        fail_msg("baseline: %s", v.details ? v.details : "");
    size_t n = v.n_checked;
    measure_verdict_clear(&v);
    return n;
}

static void baseline(fixture *f)
{
    assert_int_equal(baseline_in(f, "ref"), 2 * 2 * 5);
}

static void evaluate(fixture *f, const char *name, measure_eval *e)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/cand-%s", f->dir, name);
    measure_prog p = {.exe = fake_path(f, name)};
    assert_int_equal(measure_evaluate(&f->o, &f->base, &f->base_prog, &p, dir, e), HK_OK);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(measure_reason_name(MEASURE_WRONG_ANSWER), "wrong_answer");
    assert_string_equal(measure_reason_name(MEASURE_BELOW_FLOOR), "below_floor");
    assert_string_equal(measure_reason_name(MEASURE_UNWRITTEN_OUTPUT), "unwritten_output");
    assert_string_equal(measure_reason_name((enum measure_reason)999), "unknown");
    assert_int_equal(measure_reason_from_exit(4), MEASURE_UNWRITTEN_OUTPUT);
    assert_int_equal(measure_reason_from_exit(5), MEASURE_INPUT_MODIFIED);
    assert_int_equal(measure_reason_from_exit(6), MEASURE_OUT_OF_BOUNDS);
    assert_int_equal(measure_reason_from_exit(3), MEASURE_CUDA_ERROR);
    assert_int_equal(measure_reason_from_exit(124), MEASURE_TIMEOUT);
    assert_int_equal(measure_reason_from_exit(42), MEASURE_CRASH);
}

static void test_speedup_math(void **state)
{
    (void)state;
    measure_speedup sp;
    double a[5] = {2, 2, 2, 2, 2}, b[5] = {1, 1, 1, 1, 1};
    assert_int_equal(measure_speedup_compute(a, b, 5, &sp), HK_OK);
    assert_true(fabs(sp.speedup - 2.0) < 1e-12);
    assert_true(fabs(sp.lo - 2.0) < 1e-12 && fabs(sp.hi - 2.0) < 1e-12);
    /* ratios 1..5 (unsorted pairs): p10 = 1.4, p90 = 4.6; medians 3 / 1 */
    double a2[5] = {3, 1, 5, 2, 4}, b2[5] = {1, 1, 1, 1, 1};
    assert_int_equal(measure_speedup_compute(a2, b2, 5, &sp), HK_OK);
    assert_true(fabs(sp.speedup - 3.0) < 1e-12);
    assert_true(fabs(sp.lo - 1.4) < 1e-12);
    assert_true(fabs(sp.hi - 4.6) < 1e-12);
    assert_int_equal(sp.n, 5);
    /* median of the times, not of the ratios: a = {10, 10, 1}, b = {1, 5, 5} */
    double a3[3] = {10, 10, 1}, b3[3] = {1, 5, 5};
    assert_int_equal(measure_speedup_compute(a3, b3, 3, &sp), HK_OK);
    assert_true(fabs(sp.speedup - 2.0) < 1e-12);
    double bad[2] = {1, 0};
    assert_int_equal(measure_speedup_compute(a, bad, 2, &sp), HK_EINVAL);
    assert_int_equal(measure_speedup_compute(a, b, 0, &sp), HK_EINVAL);
    double s[4] = {1, 2, 3, 4};
    assert_true(fabs(measure_quantile(s, 4, 0.5) - 2.5) < 1e-12);
}

/* "faster" needs the p10 of the pair ratios above 1 and the median ratio at the noise bar:
 * the H100's pairs of tests/gpu/cheats/printf_forge.cu (the baseline's kernel plus a device
 * printf, every ratio in 1.00001..1.00014) were called faster at 1.00004x by the p10 alone. */
static void test_speedup_faster(void **state)
{
    (void)state;
    measure_speedup sp;
    double a[5] = {29.4503, 29.4489, 29.4477, 29.4483, 29.4518};
    double b[5] = {29.4492, 29.4477, 29.4448, 29.4433, 29.4519};
    assert_int_equal(measure_speedup_compute(a, b, 5, &sp), HK_OK);
    assert_true(sp.lo > 1.0 && sp.speedup < 1.0001);
    assert_false(measure_speedup_faster(&sp));
    /* 2.5% in every pair: faster */
    double b2[5];
    for (int i = 0; i < 5; i++)
        b2[i] = a[i] / 1.025;
    assert_int_equal(measure_speedup_compute(a, b2, 5, &sp), HK_OK);
    assert_true(measure_speedup_faster(&sp));
    /* a 3x median with two pairs of five slower: not faster (the p10 is under 1) */
    double a3[5] = {3, 3, 3, 1, 1}, b3[5] = {1, 1, 1, 2, 2};
    assert_int_equal(measure_speedup_compute(a3, b3, 5, &sp), HK_OK);
    assert_true(sp.speedup >= MEASURE_NOISE_SPEEDUP && sp.lo < 1.0);
    assert_false(measure_speedup_faster(&sp));
    /* pairs 1% apart whose median times are 5% apart (the session 45 review): the pair
     * ratios' median decides, not faster */
    double a5[5] = {1.0, 1.0, 1.05, 1.05, 1.05}, b5[5] = {0.99, 0.99, 1.04, 1.04, 1.0};
    assert_int_equal(measure_speedup_compute(a5, b5, 5, &sp), HK_OK);
    assert_true(sp.speedup >= MEASURE_NOISE_SPEEDUP && sp.lo > 1.0 && sp.mid < 1.02);
    assert_false(measure_speedup_faster(&sp));
    /* exactly at the bar counts */
    double b4[5] = {1, 1, 1, 1, 1}, a4[5] = {MEASURE_NOISE_SPEEDUP, MEASURE_NOISE_SPEEDUP,
                                            MEASURE_NOISE_SPEEDUP, MEASURE_NOISE_SPEEDUP,
                                            MEASURE_NOISE_SPEEDUP};
    assert_int_equal(measure_speedup_compute(a4, b4, 5, &sp), HK_OK);
    assert_true(measure_speedup_faster(&sp));
}

static void test_combos(void **state)
{
    fixture *f = *state;
    measure_combo *c = NULL;
    size_t n = 0;
    assert_int_equal(measure_combos(f->sp, 1000, &c, &n), HK_OK);
    assert_int_equal(n, 20);
    assert_int_equal(c[0].size, 0);
    assert_int_equal(c[0].seed, 1001);
    assert_int_equal(c[4].seed, 1005);
    assert_int_equal(c[5].dist, 1);
    assert_int_equal(c[19].size, 1);
    hk_free(c);
    /* quick: 5 seeds x 2 dists at size 0, then 2 dists at size 1 with the first seed */
    assert_int_equal(measure_combos_quick(f->sp, 0, &c, &n), HK_OK);
    assert_int_equal(n, 12);
    assert_int_equal(c[0].size, 0);
    assert_int_equal(c[9].seed, 5);
    assert_int_equal(c[10].size, 1);
    assert_int_equal(c[10].dist, 0);
    assert_int_equal(c[11].dist, 1);
    assert_int_equal(c[11].seed, 1);
    hk_free(c);
}

static void test_baseline_and_ok(void **state)
{
    fixture *f = *state;
    baseline(f);
    assert_int_equal(f->base.n_times, 2);
    assert_int_equal(f->base.primary_size, 1); /* n = 4099 is the slower one */
    assert_true(fabs(f->base.times[1].median_ms - 4.099) < 1e-6);
    measure_eval e;
    evaluate(f, "ok", &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    assert_int_equal(e.verdict.n_checked, 20);
    assert_true(e.verdict.max_abs_err == 0);
    assert_true(fabs(e.speedup - 1.0) < 1e-9);
    assert_false(e.flagged);
    json_t *j = measure_eval_json(&e);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "reason")), "ok");
    json_decref(j);
    measure_eval_clear(&e);
    /* the candidate's outputs were deleted after comparison; the references stay */
    char path[512];
    snprintf(path, sizeof path, "%s/cand-ok/run-s0-d0-seed1.out", f->dir);
    assert_int_not_equal(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/ref/run-s0-d0-seed1.out", f->dir);
    assert_int_equal(access(path, F_OK), 0);
}

static void expect_reject(fixture *f, const char *name, enum measure_reason want,
                          const char *needle)
{
    measure_eval e;
    evaluate(f, name, &e);
    if (e.verdict.reason != want)
        fail_msg("%s: got %s (%s), want %s", name, measure_reason_name(e.verdict.reason),
                 e.verdict.details ? e.verdict.details : "", measure_reason_name(want));
    assert_non_null(e.verdict.details);
    if (needle && !strstr(e.verdict.details, needle))
        fail_msg("%s: details '%s' lack '%s'", name, e.verdict.details, needle);
    measure_eval_clear(&e);
}

static void test_rejections(void **state)
{
    fixture *f = *state;
    baseline(f);
    measure_eval e;
    evaluate(f, "wrong", &e);
    assert_int_equal(e.verdict.reason, MEASURE_WRONG_ANSWER);
    assert_true(fabs(e.verdict.max_abs_err - 1.0) < 1e-3);
    assert_int_equal(e.verdict.where.size, 0);
    assert_int_equal(e.verdict.where.seed, 1);
    assert_int_equal(e.verdict.n_checked, 0);
    assert_true(isnan(e.speedup)); /* never timed */
    measure_eval_clear(&e);

    expect_reject(f, "nan", MEASURE_WRONG_ANSWER, "NaN/Inf where the baseline is finite");
    expect_reject(f, "cached", MEASURE_WRONG_ANSWER, "re-check after the timing loop");
    /* caching only at the small size: the primary size (n = 4099) passes, the short timed
     * run at the other size must catch it */
    expect_reject(f, "cachedsmall", MEASURE_WRONG_ANSWER, "size 0, seed 1000004");
    expect_reject(f, "unwritten", MEASURE_UNWRITTEN_OUTPUT, "never written");
    expect_reject(f, "oob", MEASURE_OUT_OF_BOUNDS, "outside buffer");
    expect_reject(f, "cudaerr", MEASURE_CUDA_ERROR, "IllegalAddress");
    expect_reject(f, "crash", MEASURE_CRASH, "signal 6");
    expect_reject(f, "noline", MEASURE_HARNESS_ERROR, "without a result line");
}

static int count_lines(const char *path, const char *needle)
{
    FILE *fp = fopen(path, "r");
    char line[256];
    int n = 0;
    while (fp && fgets(line, sizeof line, fp))
        n += strstr(line, needle) != NULL;
    if (fp)
        fclose(fp);
    return n;
}

static int count_outputs(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s 2>/dev/null | grep -c '^run-' > %s.count", dir, dir);
    if (system(cmd) < 0)
        return -1;
    snprintf(cmd, sizeof cmd, "%s.count", dir);
    FILE *fp = fopen(cmd, "r");
    int n = -1;
    if (fp && fscanf(fp, "%d", &n) != 1)
        n = -1;
    if (fp)
        fclose(fp);
    return n;
}

/* One run-mode process per (program, size) covers every combination of that size; a
 * failure inside a process is pinned to its combination, the combinations before it are
 * still compared, and no candidate output is left behind. */
static void test_one_process_per_size(void **state)
{
    fixture *f = *state;
    char log[400], dir[400];
    snprintf(log, sizeof log, "%s/fake.log", f->dir);
    setenv("FAKE_LOG", log, 1);
    baseline(f); /* 20 combinations over 2 sizes, then 2 timings */
    assert_int_equal(count_lines(log, " run"), 2);
    assert_int_equal(count_lines(log, " time"), 2);
    measure_eval e;
    evaluate(f, "ok", &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    assert_int_equal(e.verdict.n_checked, 20);
    measure_eval_clear(&e);
    assert_int_equal(count_lines(log, "ok run"), 4);
    snprintf(dir, sizeof dir, "%s/cand-ok", f->dir);
    assert_int_equal(count_outputs(dir), 0);

    /* exit 4 at the second combination (seed 2), named in its error line */
    evaluate(f, "latebad", &e);
    assert_int_equal(e.verdict.reason, MEASURE_UNWRITTEN_OUTPUT);
    assert_int_equal(e.verdict.where.size, 0);
    assert_int_equal(e.verdict.where.seed, 2);
    assert_int_equal(e.verdict.n_checked, 1); /* the first one was compared and passed */
    assert_non_null(strstr(e.verdict.details, "seed 2"));
    measure_eval_clear(&e);
    snprintf(dir, sizeof dir, "%s/cand-latebad", f->dir);
    assert_int_equal(count_outputs(dir), 0);

    /* a crash does not say where: the first combination without its file is blamed */
    evaluate(f, "latecrash", &e);
    assert_int_equal(e.verdict.reason, MEASURE_CRASH);
    assert_int_equal(e.verdict.where.seed, 2);
    assert_int_equal(e.verdict.n_checked, 1);
    measure_eval_clear(&e);

    /* a wrong answer in a file before the failing combination comes first, as it would
     * with one process per combination: "wrong" is wrong from its first combination */
    evaluate(f, "wrong", &e);
    assert_int_equal(e.verdict.reason, MEASURE_WRONG_ANSWER);
    assert_int_equal(e.verdict.where.seed, 1);
    measure_eval_clear(&e);
    snprintf(dir, sizeof dir, "%s/cand-wrong", f->dir);
    assert_int_equal(count_outputs(dir), 0);
    unsetenv("FAKE_LOG");
}

/* The search's ranked evaluation: timing first; a candidate that cannot lead is left
 * behind without the correctness set (no run-mode process), one that could lead gets every
 * check, and a cheat that could lead is caught as before. */
static void ranked(fixture *f, const char *name, double lead, measure_eval *e)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/ranked-%s", f->dir, name);
    measure_prog p = {.exe = fake_path(f, name)};
    assert_int_equal(measure_evaluate_ranked(&f->o, &f->base, &f->base_prog, &p, dir, lead, e),
                     HK_OK);
}

static void test_ranked(void **state)
{
    fixture *f = *state;
    char log[400];
    snprintf(log, sizeof log, "%s/fake-ranked.log", f->dir);
    setenv("FAKE_LOG", log, 1);
    baseline(f);
    double base_ms = f->base.times[f->base.primary_size].median_ms;
    int runs0 = count_lines(log, "ok run"), times0 = count_lines(log, "ok time");
    measure_eval e;

    /* behind a leader twice as fast: timed only, not credited, the check set not run */
    ranked(f, "ok", base_ms / 2, &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    assert_true(e.behind);
    assert_false(e.credited);
    assert_int_equal(e.verdict.n_checked, 0);
    assert_true(fabs(e.speedup - 1.0) < 1e-9);
    assert_non_null(e.credit_note);
    assert_non_null(strstr(e.credit_note, "behind the leader"));
    json_t *j = measure_eval_json(&e);
    assert_true(json_is_true(json_object_get(j, "behind")));
    json_decref(j);
    measure_eval_clear(&e);
    assert_int_equal(count_lines(log, "ok run"), runs0);
    assert_int_equal(count_lines(log, "ok time"), times0 + 1);

    /* a near tie (within MEASURE_LEAD_MARGIN) is checked in full */
    ranked(f, "ok", base_ms * 1.01, &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    assert_false(e.behind);
    assert_true(!e.credit_note || !strstr(e.credit_note, "behind"));
    assert_int_equal(e.verdict.n_checked, 20);
    measure_eval_clear(&e);
    assert_int_equal(count_lines(log, "ok run"), runs0 + 2);

    /* one that leads: every check */
    ranked(f, "fast", base_ms, &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    assert_false(e.behind);
    assert_true(!e.credit_note || !strstr(e.credit_note, "behind"));
    assert_int_equal(e.verdict.n_checked, 20);
    measure_eval_clear(&e);

    /* not a number: measure_evaluate itself */
    ranked(f, "ok", NAN, &e);
    assert_false(e.behind);
    assert_int_equal(e.verdict.n_checked, 20);
    measure_eval_clear(&e);

    /* cheats that could lead are judged as before: the re-check after the timing loop, the
     * correctness set, the other sizes' short timed runs */
    ranked(f, "wrong", base_ms * 10, &e);
    assert_int_equal(e.verdict.reason, MEASURE_WRONG_ANSWER);
    assert_false(e.behind);
    measure_eval_clear(&e);
    ranked(f, "nan", base_ms * 10, &e);
    assert_int_equal(e.verdict.reason, MEASURE_WRONG_ANSWER);
    assert_non_null(strstr(e.verdict.details, "NaN/Inf"));
    measure_eval_clear(&e);
    ranked(f, "cachedsmall", base_ms * 10, &e);
    assert_int_equal(e.verdict.reason, MEASURE_WRONG_ANSWER);
    assert_non_null(strstr(e.verdict.details, "size 0, seed 1000004"));
    measure_eval_clear(&e);
    ranked(f, "unwritten", base_ms * 10, &e);
    assert_int_not_equal(e.verdict.reason, MEASURE_OK);
    measure_eval_clear(&e);
    unsetenv("FAKE_LOG");
}

/* Output sizes and where output files go. */
static void test_scratch(void **state)
{
    fixture *f = *state;
    uint64_t b = 0;
    assert_int_equal(measure_output_bytes(f->sp, 0, &b), HK_OK);
    assert_int_equal(b, 16 + 16 + 1000 * 4); /* header, one float output of n = 1000 */
    assert_int_equal(measure_output_bytes(f->sp, 1, &b), HK_OK);
    assert_int_equal(b, 16 + 16 + 4099 * 4);
    assert_int_equal(measure_output_bytes(f->sp, 2, &b), HK_EINVAL);
    char *pick = NULL;
    setenv("HK_SCRATCH_DIR", f->dir, 1);
    assert_int_equal(measure_scratch_parent(1 << 20, "/fallback", &pick), HK_OK);
    assert_string_equal(pick, f->dir);
    hk_free(pick);
    /* no file system has room for 2^62 bytes: the fallback */
    assert_int_equal(measure_scratch_parent((uint64_t)1 << 62, "/fallback", &pick), HK_OK);
    assert_string_equal(pick, "/fallback");
    hk_free(pick);
    /* not a directory, not writable: skipped */
    setenv("HK_SCRATCH_DIR", "/proc/self/status", 1);
    unsetenv("XDG_RUNTIME_DIR");
    assert_int_equal(measure_scratch_parent(1 << 20, "/fallback", &pick), HK_OK);
    assert_string_not_equal(pick, "/proc/self/status");
    hk_free(pick);
    unsetenv("HK_SCRATCH_DIR");
}

static void test_timeout(void **state)
{
    fixture *f = *state;
    baseline(f);
    f->o.run_timeout_ms = 300;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    expect_reject(f, "hang", MEASURE_TIMEOUT, "killed");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(s < 5.0);
    f->o.run_timeout_ms = 3000;
}

/* run_timeout_ms is per combination: a process of 10 combinations at 250 ms each runs past
 * a 1 s limit and passes, since its files keep coming; one that stops making progress is
 * killed one limit after its last file, not n limits. */
static void test_timeout_per_combination(void **state)
{
    fixture *f = *state;
    baseline(f);
    f->o.run_timeout_ms = 1000;
    char dir[400];
    snprintf(dir, sizeof dir, "%s/slow", f->dir);
    measure_prog p = {.exe = fake_path(f, "ok")};
    measure_verdict v;
    measure_verdict_init(&v);
    setenv("FAKE_COMBO_MS", "250", 1);
    assert_int_equal(measure_check(&f->o, &p, dir, f->base.ref_dir, f->base.combos, 10, &v), HK_OK);
    unsetenv("FAKE_COMBO_MS");
    if (v.reason != MEASURE_OK)
        fail_msg("%s", v.details);
    assert_int_equal(v.n_checked, 10);
    assert_true(v.max_wall_ms >= 2500);
    assert_true(v.max_combo_wall_ms >= 250 && v.max_combo_wall_ms < 1000);
    measure_verdict_clear(&v);

    measure_verdict_init(&v);
    setenv("FAKE_COMBO_MS", "3000", 1); /* stalls at its first combination */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(measure_check(&f->o, &p, dir, f->base.ref_dir, f->base.combos, 10, &v), HK_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    unsetenv("FAKE_COMBO_MS");
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_int_equal(v.reason, MEASURE_TIMEOUT);
    assert_non_null(strstr(v.details, "no progress"));
    assert_int_equal(v.where.seed, f->base.combos[0].seed);
    assert_true(s < 2.5);
    measure_verdict_clear(&v);

    /* outputs are compared while the program runs the next combination: a wrong answer
     * in the first file ends a process that would take 10 x 300 ms at once */
    measure_prog pw = {.exe = fake_path(f, "wrong")};
    measure_verdict_init(&v);
    setenv("FAKE_COMBO_MS", "300", 1);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(measure_check(&f->o, &pw, dir, f->base.ref_dir, f->base.combos, 10, &v), HK_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    unsetenv("FAKE_COMBO_MS");
    s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_int_equal(v.reason, MEASURE_WRONG_ANSWER);
    assert_int_equal(v.where.seed, f->base.combos[0].seed);
    assert_int_equal(v.n_checked, 0);
    assert_true(s < 2.0);
    assert_int_equal(count_outputs(dir), 0);
    measure_verdict_clear(&v);
    f->o.run_timeout_ms = 3000;
}

static void test_floor_and_flag(void **state)
{
    fixture *f = *state;
    f->o.peak_bytes_per_s = 3e12;
    f->o.peak_flops = 60e12;
    baseline(f);
    measure_eval e;
    evaluate(f, "floor", &e);
    assert_int_equal(e.verdict.reason, MEASURE_BELOW_FLOOR);
    /* floor of n = 4099: 12 * n bytes at 3 TB/s */
    assert_true(fabs(e.floor_ms - 12.0 * 4099 / 3e12 * 1e3) < 1e-12);
    assert_non_null(strstr(e.verdict.details, "physical floor"));
    measure_eval_clear(&e);

    evaluate(f, "fast20", &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    assert_true(e.flagged);
    assert_non_null(e.flag_note);
    assert_non_null(strstr(e.flag_note, "second"));
    assert_true(fabs(e.speedup - 20.0) < 1e-6);
    json_t *j = measure_eval_json(&e);
    assert_true(json_is_true(json_object_get(j, "flagged")));
    json_decref(j);
    measure_eval_clear(&e);

    evaluate(f, "fast", &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    assert_false(e.flagged);
    assert_null(e.flag_note);
    assert_true(fabs(e.speedup - 2.0) < 1e-6);
    measure_eval_clear(&e);

    /* rates: 12 * 4099 bytes in 4.099 ms = 12 MB/s... scaled: bytes/s = 12e3 * 1e3 */
    double bps, fps, pct;
    measure_rates(&f->o, 1, 4.099, &bps, &fps, &pct);
    assert_true(fabs(bps - 12.0 * 4099 / 4.099e-3) < 1e-3);
    assert_true(fabs(fps - 2.0 * 4099 / 4.099e-3) < 1e-3);
    assert_true(fabs(pct - 100.0 * bps / 3e12) < 1e-9); /* memory-bound: intensity 1/6 */
    f->o.peak_bytes_per_s = 0;
    f->o.peak_flops = 0;
}

/* The checks array's entries named check (and result, when not NULL). */
static int count_checks(const measure_eval *e, const char *check, const char *result)
{
    int n = 0;
    size_t i;
    json_t *c;
    json_array_foreach(e->checks, i, c) {
        const char *k = json_string_value(json_object_get(c, "check"));
        const char *r = json_string_value(json_object_get(c, "result"));
        n += k && !strcmp(k, check) && (!result || (r && !strcmp(r, result)));
    }
    return n;
}

static json_t *find_check(const measure_eval *e, const char *check)
{
    size_t i;
    json_t *c;
    json_array_foreach(e->checks, i, c)
        if (!strcmp(json_string_value(json_object_get(c, "check")), check))
            return c;
    return NULL;
}

/* A candidate's run-mode process first launches at the spec's other sizes (--prime-sizes),
 * the baseline's never: "stale" answers right in a fresh process and wrong at the small size
 * after a launch at the large one, the way a fixed-size __device__ scratch does. */
static void test_stale_state(void **state)
{
    fixture *f = *state;
    char log[400];
    snprintf(log, sizeof log, "%s/fake-stale.log", f->dir);
    setenv("FAKE_LOG", log, 1);
    f->base_prog.exe = fake_path(f, "stale"); /* as a baseline it passes: never primed */
    baseline(f);
    assert_int_equal(count_lines(log, "prime="), 0);
    measure_eval e;
    evaluate(f, "ok", &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    assert_int_equal(count_lines(log, "ok run prime=1"), 1); /* size 0's process */
    assert_int_equal(count_lines(log, "ok run prime=0"), 1); /* size 1's process */
    assert_int_equal(count_lines(log, "ok time prime"), 0);  /* timing is not primed */
    assert_int_equal(count_checks(&e, "stale_state", "pass"), 1);
    assert_int_equal(json_integer_value(json_object_get(find_check(&e, "stale_state"),
                                                        "primed_sizes")), 1);
    measure_eval_clear(&e);

    evaluate(f, "stale", &e);
    assert_int_equal(e.verdict.reason, MEASURE_WRONG_ANSWER);
    assert_int_equal(e.verdict.where.size, 0); /* the smaller size, after the larger */
    assert_non_null(strstr(e.verdict.details, "size 0"));
    assert_int_equal(count_checks(&e, "stale_state", NULL), 0);
    measure_eval_clear(&e);

    /* a spec of one size (the parser wants two, so only by hand): no size to prime with,
     * and the checks say so instead of claiming a pass */
    f->sp->n_sizes = 1;
    evaluate(f, "stale", &e);
    assert_int_equal(count_checks(&e, "stale_state", "not_run"), 1);
    assert_non_null(json_object_get(find_check(&e, "stale_state"), "why"));
    measure_eval_clear(&e);
    f->sp->n_sizes = 2;
    unsetenv("FAKE_LOG");
    f->base_prog.exe = f->base_exe;
}

/* A spread above the bound is measured again in a fresh process; above twice with medians
 * that disagree is "unstable", once then within the bound is accepted, twice with one
 * median is accepted; the baseline's is an error. */
static void test_spread(void **state)
{
    fixture *f = *state;
    baseline(f);
    measure_eval e;
    evaluate(f, "noisy", &e);
    if (e.verdict.reason != MEASURE_UNSTABLE)
        fail_msg("noisy: %s (%s)", measure_reason_name(e.verdict.reason), e.verdict.details);
    assert_non_null(strstr(e.verdict.details, "0.5, then 0.5 in a fresh process"));
    assert_non_null(strstr(e.verdict.details, "above the bound 0.1"));
    assert_int_equal(count_checks(&e, "spread", "remeasure"), 1);
    assert_int_equal(count_checks(&e, "spread", "fail"), 1);
    assert_false(e.credited);
    json_t *j = measure_eval_json(&e);
    assert_string_equal(json_string_value(json_object_get(j, "reason")), "unstable");
    json_t *last = json_array_get(json_object_get(j, "checks"),
                                  json_array_size(json_object_get(j, "checks")) - 1);
    assert_string_equal(json_string_value(json_object_get(last, "result")), "fail");
    assert_string_equal(json_string_value(json_object_get(last, "reason")), "unstable");
    json_decref(j);
    measure_eval_clear(&e);

    evaluate(f, "noisyonce", &e);
    if (e.verdict.reason != MEASURE_OK)
        fail_msg("noisyonce: %s (%s)", measure_reason_name(e.verdict.reason), e.verdict.details);
    assert_int_equal(count_checks(&e, "spread", "remeasure"), 1);
    assert_int_equal(count_checks(&e, "spread", "pass"), 1);
    assert_true(fabs(e.timing.spread - 0.01) < 1e-9); /* the re-measure's time is the one kept */
    measure_eval_clear(&e);

    /* above the bound twice, but the same median in both processes: a time that depends
     * on the inputs drawn per launch, trusted by its median */
    evaluate(f, "datadep", &e);
    if (e.verdict.reason != MEASURE_OK)
        fail_msg("datadep: %s (%s)", measure_reason_name(e.verdict.reason), e.verdict.details);
    assert_int_equal(count_checks(&e, "spread", "remeasure"), 1);
    assert_int_equal(count_checks(&e, "spread", "pass"), 1);
    json_t *pass = NULL, *c;
    size_t ci;
    json_array_foreach(e.checks, ci, c)
        if (!strcmp(json_string_value(json_object_get(c, "check")), "spread") &&
            !strcmp(json_string_value(json_object_get(c, "result")), "pass"))
            pass = c;
    assert_non_null(pass);
    assert_string_equal(json_string_value(json_object_get(pass, "note")),
                        "the median agrees across processes");
    assert_true(json_real_value(json_object_get(pass, "median_drift")) < 1e-9);
    measure_eval_clear(&e);

    /* the bound is an option */
    f->o.spread_bound = 0.6;
    evaluate(f, "noisy", &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    assert_int_equal(count_checks(&e, "spread", "pass"), 1);
    measure_eval_clear(&e);
    f->o.spread_bound = 0;

    /* a baseline that cannot be timed reliably stops everything */
    char ref[400];
    snprintf(ref, sizeof ref, "%s/ref-noisy", f->dir);
    measure_prog noisy = {.exe = fake_path(f, "noisy")};
    measure_verdict v;
    measure_verdict_init(&v);
    measure_baseline b;
    assert_int_equal(measure_baseline_run(&f->o, &noisy, ref, &b, &v), HK_OK);
    assert_int_equal(v.reason, MEASURE_UNSTABLE);
    assert_non_null(strstr(v.details, "the baseline cannot be timed reliably"));
    measure_verdict_clear(&v);
    measure_baseline_clear(&b);
}

/* The drift rule: a baseline whose spread stays above the bound and whose median moves
 * from process to process within MEASURE_DRIFT_MAX (1.0, 1.1, 1.05 ms) is kept as the middle
 * of three processes with its drift; a candidate against it gets the same allowance, and its
 * speedup is credited only beyond the drift. Against a stable baseline the same candidate is
 * unstable, and medians that keep moving (noisy: 1.0, 1.2, 1.4) are unstable as before. */
static void test_drift(void **state)
{
    fixture *f = *state;
    f->base_prog.exe = fake_path(f, "drifty");
    baseline_in(f, "ref-drifty");
    int k = f->base.primary_size;
    const measure_timing *bt = &f->base.times[k];
    assert_true(fabs(bt->drift - 0.1) < 1e-6);
    double scale = bt->median_ms / 1.05; /* the fake's time scales with the size */
    assert_true(fabs(bt->median_ms - 1.05 * scale) < 1e-9);
    json_t *pass = NULL, *c;
    size_t ci;
    json_array_foreach(f->base.checks, ci, c)
        if (json_object_get(c, "drift"))
            pass = c;
    assert_non_null(pass);
    assert_string_equal(json_string_value(json_object_get(pass, "result")), "pass");
    assert_int_equal(json_array_size(json_object_get(pass, "medians")), 3);

    /* a faster candidate, stable: 2x is beyond a 10% drift, credited (a floor applies) */
    f->o.peak_bytes_per_s = 3e12;
    measure_eval e;
    evaluate(f, "fast", &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    if (!e.credited)
        fail_msg("fast: not credited: %s", e.credit_note ? e.credit_note : "");
    measure_eval_clear(&e);
    /* the same kernel as a candidate: timed by the same rule, its ~1.0x within the drift */
    evaluate(f, "drifty", &e);
    if (e.verdict.reason != MEASURE_OK)
        fail_msg("drifty: %s (%s)", measure_reason_name(e.verdict.reason), e.verdict.details);
    assert_true(e.timing.drift > 0);
    assert_false(e.credited);
    assert_non_null(strstr(e.credit_note, "within the drift between processes"));
    assert_int_equal(count_checks(&e, "credit", "not_credited"), 1);
    measure_eval_clear(&e);
    f->o.peak_bytes_per_s = 0;

    /* against a stable baseline the drifting candidate is unstable (no allowance) */
    f->base_prog.exe = f->base_exe;
    baseline(f);
    evaluate(f, "drifty", &e);
    assert_int_equal(e.verdict.reason, MEASURE_UNSTABLE);
    measure_eval_clear(&e);
}

/* flushed_l2 false: no time is credited, for a candidate or a baseline. */
static void test_unflushed(void **state)
{
    fixture *f = *state;
    baseline(f);
    measure_eval e;
    evaluate(f, "unflushed", &e);
    if (e.verdict.reason != MEASURE_UNFLUSHED)
        fail_msg("unflushed: %s (%s)", measure_reason_name(e.verdict.reason), e.verdict.details);
    assert_non_null(strstr(e.verdict.details, "flushed_l2 false"));
    assert_true(isnan(e.speedup));
    assert_false(e.credited);
    assert_int_equal(count_checks(&e, "l2_flush", "fail"), 1);
    measure_eval_clear(&e);

    char ref[400];
    snprintf(ref, sizeof ref, "%s/ref-unflushed", f->dir);
    measure_prog p = {.exe = fake_path(f, "unflushed")};
    measure_verdict v;
    measure_verdict_init(&v);
    measure_baseline b;
    assert_int_equal(measure_baseline_run(&f->o, &p, ref, &b, &v), HK_OK);
    assert_int_equal(v.reason, MEASURE_UNFLUSHED);
    measure_verdict_clear(&v);
    measure_baseline_clear(&b);
}

/* No physical floor: judged and timed, not credited unless allowed. */
static void test_floor_credit(void **state)
{
    fixture *f = *state;
    baseline(f);
    measure_eval e;
    evaluate(f, "fast", &e); /* no peaks in the fixture */
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    assert_true(fabs(e.speedup - 2.0) < 1e-6);
    assert_false(e.credited);
    assert_non_null(e.credit_note);
    assert_non_null(strstr(e.credit_note, "peaks are unknown"));
    assert_non_null(strstr(e.credit_note, "--allow-no-floor"));
    assert_int_equal(count_checks(&e, "floor", "missing"), 2); /* both sizes */
    assert_int_equal(count_checks(&e, "credit", "not_credited"), 1);
    json_t *j = measure_eval_json(&e);
    assert_true(json_is_false(json_object_get(j, "credited")));
    assert_non_null(json_string_value(json_object_get(j, "credit_note")));
    json_decref(j);
    measure_eval_clear(&e);

    f->o.allow_no_floor = true;
    evaluate(f, "fast", &e);
    assert_true(e.credited);
    assert_non_null(strstr(e.credit_note, "credited because"));
    measure_eval_clear(&e);
    f->o.allow_no_floor = false;

    f->o.peak_bytes_per_s = 3e12;
    evaluate(f, "fast", &e);
    assert_true(e.credited);
    assert_null(e.credit_note);
    assert_int_equal(count_checks(&e, "floor", "pass"), 2);
    measure_eval_clear(&e);

    /* a spec without formulas has no floor whatever the peaks */
    expr *bytes = f->sp->bytes, *flops = f->sp->flops;
    f->sp->bytes = f->sp->flops = NULL;
    assert_string_equal(measure_floor_missing(&f->o), "the spec has no bytes or flops formula");
    evaluate(f, "fast", &e);
    assert_false(e.credited);
    assert_non_null(strstr(e.credit_note, "no bytes or flops formula"));
    measure_eval_clear(&e);
    f->sp->bytes = bytes;
    f->sp->flops = flops;
    f->o.peak_flops = 60e12;
    f->o.peak_bytes_per_s = 0;
    assert_null(measure_floor_missing(&f->o)); /* flops at the FP32 peak */
    f->o.peak_flops = 0;
}

/* Over 10x: verified again on fresh seeds; a speedup that does not come back is rejected. */
static void test_second_look(void **state)
{
    fixture *f = *state;
    baseline(f);
    measure_eval e;
    evaluate(f, "seedfast", &e);
    if (e.verdict.reason != MEASURE_UNSTABLE)
        fail_msg("seedfast: %s (%s)", measure_reason_name(e.verdict.reason), e.verdict.details);
    assert_true(e.flagged);
    assert_non_null(strstr(e.verdict.details, "did not reproduce"));
    json_t *c = find_check(&e, "second_look");
    assert_non_null(c);
    assert_string_equal(json_string_value(json_object_get(c, "result")), "not_reproduced");
    assert_true(fabs(json_number_value(json_object_get(c, "first")) - 20.0) < 1e-6);
    assert_true(fabs(json_number_value(json_object_get(c, "second")) - 1.0) < 1e-6);
    long long seed = json_integer_value(json_object_get(c, "seed"));
    assert_true(seed > 5 && seed != f->base.time_seed);
    assert_true(json_integer_value(json_object_get(c, "check_seed")) != f->base.check_seed);
    measure_eval_clear(&e);

    /* a real 20x comes back on fresh seeds, each time with other seeds */
    evaluate(f, "fast20", &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    c = find_check(&e, "second_look");
    assert_non_null(c);
    assert_string_equal(json_string_value(json_object_get(c, "result")), "pass");
    assert_int_equal(json_integer_value(json_object_get(c, "combinations")), 12);
    long long seed1 = json_integer_value(json_object_get(c, "seed"));
    assert_non_null(strstr(e.flag_note, "fresh inputs"));
    measure_eval_clear(&e);
    evaluate(f, "fast20", &e);
    c = find_check(&e, "second_look");
    assert_true(json_integer_value(json_object_get(c, "seed")) != seed1);
    measure_eval_clear(&e);
}

static void test_interleave(void **state)
{
    fixture *f = *state;
    baseline(f);
    char log[512], da[512], db[512];
    snprintf(log, sizeof log, "%s/bin/order.log", f->dir);
    snprintf(da, sizeof da, "%s/ia", f->dir);
    snprintf(db, sizeof db, "%s/ib", f->dir);
    setenv("FAKE_LOG", log, 1);
    measure_prog pb = {.exe = fake_path(f, "fast")};
    double a[5], b[5];
    measure_verdict va, vb;
    measure_verdict_init(&va);
    measure_verdict_init(&vb);
    /* A must not write over the references it is compared with */
    assert_int_equal(measure_interleave(&f->o, &f->base_prog, f->base.ref_dir, &pb, db,
                                        f->base.ref_dir, 1, 1, 0, f->base.check_seed, 5, a, b,
                                        &va, &vb),
                     HK_EINVAL);
    assert_int_equal(measure_interleave(&f->o, &f->base_prog, da, &pb, db, f->base.ref_dir, 1,
                                        f->base.time_seed, f->base.time_dist,
                                        f->base.check_seed, 5, a, b, &va, &vb),
                     HK_OK);
    unsetenv("FAKE_LOG");
    assert_int_equal(va.reason, MEASURE_OK);
    assert_int_equal(vb.reason, MEASURE_OK);
    FILE *lf = fopen(log, "r");
    assert_non_null(lf);
    char line[64];
    int k = 0;
    while (fgets(line, sizeof line, lf)) {
        assert_string_equal(line, k % 2 == 0 ? "ok time\n" : "fast time\n");
        k++;
    }
    fclose(lf);
    assert_int_equal(k, 10);
    measure_speedup sp;
    assert_int_equal(measure_speedup_compute(a, b, 5, &sp), HK_OK);
    assert_true(fabs(sp.speedup - 2.0) < 1e-6);
    measure_verdict_clear(&va);
    measure_verdict_clear(&vb);

    /* a wrong candidate's re-check fails the interleave on its first turn */
    measure_prog pw = {.exe = fake_path(f, "cached")};
    measure_verdict_init(&va);
    measure_verdict_init(&vb);
    assert_int_equal(measure_interleave(&f->o, &f->base_prog, da, &pw, db, f->base.ref_dir, 1,
                                        f->base.time_seed, f->base.time_dist,
                                        f->base.check_seed, 5, a, b, &va, &vb),
                     HK_OK);
    assert_int_equal(vb.reason, MEASURE_WRONG_ANSWER);
    measure_verdict_clear(&va);
    measure_verdict_clear(&vb);
}

static volatile sig_atomic_t stop_flag;
static void on_alarm(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void test_stop(void **state)
{
    fixture *f = *state;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    stop_flag = 0;
    measure_opts o = f->o;
    o.stop = &stop_flag;
    o.run_timeout_ms = 60000;
    struct itimerval it = {.it_value = {.tv_sec = 0, .tv_usec = 300000}};
    setitimer(ITIMER_REAL, &it, NULL);
    measure_prog p = {.exe = fake_path(f, "hang")};
    measure_run r;
    char dir[400];
    snprintf(dir, sizeof dir, "%s/stop", f->dir);
    measure_mkdirs(dir);
    harness_run hr = {.mode = "run", .size = 0, .seed = 1, .check_seed = -1};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(measure_run_program(&o, &p, dir, &hr, &r), HK_ECANCELED);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(s < 3.0);
    measure_run_clear(&r);
    /* no "hang" process of ours is left */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "pgrep -f '^%s/hang' >/dev/null", f->bin);
    assert_int_not_equal(system(cmd), 0);
    /* a raised flag refuses to start anything */
    assert_int_equal(measure_run_program(&o, &p, dir, &hr, &r), HK_ECANCELED);
    measure_run_clear(&r);
}

static double real_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The reference kernel of a candidate's checked timed launches runs with the baseline's
 * own launch: the baseline's timing at a size leaves its grid, block and shared bytes
 * beside its output, and a candidate launched otherwise (block 512) passes them as
 * --ref-launch; with no launch kept nothing is passed. */
static void test_reference_launch(void **state)
{
    fixture *f = *state;
    char log[400], ref[400], cand[400], bmod[400], cmod[400];
    snprintf(log, sizeof log, "%s/fake-reflaunch.log", f->dir);
    snprintf(ref, sizeof ref, "%s/reflaunch-base", f->dir);
    snprintf(cand, sizeof cand, "%s/reflaunch-cand", f->dir);
    snprintf(bmod, sizeof bmod, "%s/reflaunch-b.cubin", f->dir);
    snprintf(cmod, sizeof cmod, "%s/reflaunch-c.cubin", f->dir);
    const char *mods[2] = {bmod, cmod};
    for (int i = 0; i < 2; i++) {
        char fn[420];
        snprintf(fn, sizeof fn, "%s.fn", mods[i]);
        FILE *fp = fopen(fn, "w");
        assert_non_null(fp);
        fputs("saxpy\n", fp);
        fclose(fp);
    }
    setenv("FAKE_LOG", log, 1);
    measure_prog pb = {.exe = fake_path(f, "ok"), .module = bmod};
    static const long long b512[3] = {512, 1, 1};
    measure_prog pc = {.exe = fake_path(f, "ok"), .module = cmod, .ref_module = bmod,
                       .block = b512};
    measure_timing t;
    memset(&t, 0, sizeof t);
    measure_verdict v;
    measure_verdict_init(&v);
    assert_int_equal(measure_time(&f->o, &pb, ref, NULL, 1, 7, 0, 8, &t, &v), HK_OK);
    assert_int_equal(v.reason, MEASURE_OK);
    measure_timing_clear(&t);
    assert_int_equal(measure_time(&f->o, &pc, cand, ref, 1, 7, 0, 8, &t, &v), HK_OK);
    assert_int_equal(v.reason, MEASURE_OK);
    measure_timing_clear(&t);
    assert_int_equal(count_lines(log, "ok time ref_launch=1001,1,1,256,1,1,1024"), 1);
    /* no launch kept for the size (an older baseline directory): none passed */
    char kept[460];
    snprintf(kept, sizeof kept, "%s/launch-s1.txt", ref);
    assert_int_equal(unlink(kept), 0);
    assert_int_equal(measure_time(&f->o, &pc, cand, ref, 1, 7, 0, 8, &t, &v), HK_OK);
    assert_int_equal(v.reason, MEASURE_OK);
    measure_timing_clear(&t);
    assert_int_equal(count_lines(log, "ref_launch="), 1);
    measure_verdict_clear(&v);
    unsetenv("FAKE_LOG");
}

/* tiny_int.bench.json: integer-valued inputs only, so the referee adds distribution 2
 * (uniform(-2,2)); the baseline "coarse" is 1e-3 off there. shadow: an fp64 shadow (the
 * fake's --promote answers, exact) as measure_opts.ref64, or none. */
static void precision_setup(fixture *f, bool shadow, measure_prog *sp)
{
    spec_free(f->sp);
    spec_diags d = {0};
    assert_int_equal(spec_load(HK_TEST_DATA "/episode/tiny_int.bench.json", &f->sp, &d), HK_OK);
    spec_diags_free(&d);
    char note[640];
    assert_int_equal(oracle_add_precision_dist(f->sp, note, sizeof note), HK_OK);
    assert_int_equal(f->sp->n_dists, 3);
    f->o.spec = f->sp;
    snprintf(f->base_exe, sizeof f->base_exe, "%s/coarse", f->bin);
    f->o.ref64 = NULL;
    if (shadow) {
        static char module[400], fn[420];
        snprintf(module, sizeof module, "%s/shadow.cubin", f->dir);
        snprintf(fn, sizeof fn, "%s.fn", module);
        FILE *fp = fopen(fn, "w");
        assert_non_null(fp);
        fputs("saxpy\n", fp);
        fclose(fp);
        *sp = (measure_prog){.exe = fake_path(f, "ok"), .module = module, .promote = 1};
        f->o.ref64 = sp;
    }
    char ref[400];
    snprintf(ref, sizeof ref, "%s/ref", f->dir);
    measure_verdict v;
    measure_verdict_init(&v);
    measure_baseline_clear(&f->base);
    assert_int_equal(measure_baseline_run(&f->o, &f->base_prog, ref, &f->base, &v), HK_OK);
    assert_int_equal(v.reason, MEASURE_OK);
    assert_int_equal(v.n_checked, 2 * 3 * 5);
    assert_true(shadow == (f->base.ref64_dir != NULL));
    measure_verdict_clear(&v);
}

/* The "precision" entry of e's checks; NULL when none. */
static json_t *precision_entry(const measure_eval *e)
{
    json_t *last = NULL, *x;
    size_t i;
    json_array_foreach(e->checks, i, x)
        if (!strcmp(json_string_value(json_object_get(x, "check")), "precision"))
            last = x;
    return last;
}

/* On the referee's distribution only the fp64 rule judges: an accurate candidate passes
 * though the inaccurate baseline is far outside the spec's tolerance from it, and one with
 * 8x the baseline's own error is rejected, the distribution and the rule named. */
static void test_precision_dist(void **state)
{
    fixture *f = *state;
    measure_prog sp;
    precision_setup(f, true, &sp);
    measure_eval e;
    evaluate(f, "ok", &e);
    if (e.verdict.reason != MEASURE_OK)
        fail_msg("ok: %s", e.verdict.details);
    assert_int_equal(e.verdict.precision, MEASURE_PRECISION_PASS);
    assert_int_equal(e.verdict.precision_runs, 10);
    json_t *p = precision_entry(&e);
    assert_non_null(p);
    assert_string_equal(json_string_value(json_object_get(p, "result")), "pass");
    assert_string_equal(json_string_value(json_object_get(p, "distribution")), "uniform(-2,2)");
    assert_int_equal(json_integer_value(json_object_get(p, "dist")), 2);
    assert_string_equal(json_string_value(json_object_get(p, "added_by")), "referee");
    assert_string_equal(json_string_value(json_object_get(p, "decided_by")),
                        "fp64 reference, error ratio");
    assert_true(json_real_value(json_object_get(p, "ratio")) < 0.1);
    measure_eval_clear(&e);
    /* the spec's tolerance would have rejected it there (1e-3 from the baseline): judged
     * as one of the spec's own distributions, it is */
    f->sp->n_referee_dists = 0;
    expect_reject(f, "ok", MEASURE_WRONG_ANSWER, "distribution 2: ");
    f->sp->n_referee_dists = 1;

    evaluate(f, "coarse", &e); /* the baseline itself */
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    measure_eval_clear(&e);

    evaluate(f, "coarse8", &e);
    assert_int_equal(e.verdict.reason, MEASURE_WRONG_ANSWER);
    print_message("coarse8: %s\n", e.verdict.details);
    assert_non_null(strstr(e.verdict.details, "on distribution 2 uniform(-2,2) (added by the referee"));
    assert_non_null(strstr(e.verdict.details, "fp64 reference, error ratio"));
    assert_int_equal(e.verdict.precision, MEASURE_PRECISION_FAIL);
    p = precision_entry(&e);
    assert_non_null(p);
    assert_ptr_equal(p, json_array_get(e.checks, json_array_size(e.checks) - 1));
    assert_string_equal(json_string_value(json_object_get(p, "result")), "fail");
    assert_string_equal(json_string_value(json_object_get(p, "reason")), "wrong_answer");
    assert_true(json_real_value(json_object_get(p, "ratio")) > 1);
    assert_true(isnan(e.speedup)); /* never timed */
    measure_eval_clear(&e);
    /* the spec's own distributions still face the tolerance rule */
    expect_reject(f, "wrong", MEASURE_WRONG_ANSWER, "distribution 0: ");
    /* issue 12, session 49 (ref12): 5x the baseline's error at one size and exact at the
     * other passed the pool of both (3.5x RMS); an output of 4099 elements is judged one
     * combination at a time too */
    evaluate(f, "lopsided", &e);
    print_message("lopsided: %s\n", e.verdict.details ? e.verdict.details : "");
    assert_int_equal(e.verdict.reason, MEASURE_WRONG_ANSWER);
    assert_non_null(strstr(e.verdict.details, "at size 0 on distribution 2 uniform(-2,2)"));
    assert_non_null(strstr(e.verdict.details, "judged on its own"));
    assert_int_equal(e.verdict.precision, MEASURE_PRECISION_FAIL);
    measure_eval_clear(&e);
}

/* The referee's grid distribution (oracle_add_grid_dist) on tiny.bench.json (real-valued:
 * grid(-2,2) becomes distribution 2), judged by oracle_ref64_judge_exact through measure's
 * own pool: with the exact baseline "ok", an exact candidate passes and "coarse" (1e-3 off
 * on distribution 2, where the fp64 rule alone judges) is rejected by the floor, the verdict naming the grid and "the baseline is exact here"; with
 * the baseline "coarse" (not exact there) the usual rule judges: "coarse" itself passes and
 * "coarse8" (8x its error) does not, the verdict saying the baseline is not exact. */
static void test_grid_dist(void **state)
{
    fixture *f = *state;
    spec_free(f->sp);
    spec_diags d = {0};
    assert_int_equal(spec_load(HK_TEST_DATA "/episode/tiny.bench.json", &f->sp, &d), HK_OK);
    spec_diags_free(&d);
    char note[640];
    assert_int_equal(oracle_add_precision_dist(f->sp, note, sizeof note), HK_OK);
    assert_int_equal(oracle_add_grid_dist(f->sp, note, sizeof note), HK_OK);
    assert_int_equal(f->sp->n_dists, 3);
    assert_string_equal(f->sp->dist_texts[2], "grid(-2,2)");
    f->o.spec = f->sp;
    static char module[400], fn[420];
    snprintf(module, sizeof module, "%s/shadow.cubin", f->dir);
    snprintf(fn, sizeof fn, "%s.fn", module);
    FILE *fp = fopen(fn, "w");
    assert_non_null(fp);
    fputs("saxpy\n", fp);
    fclose(fp);
    measure_prog sp = {.exe = fake_path(f, "ok"), .module = module, .promote = 1};
    f->o.ref64 = &sp;
    snprintf(f->base_exe, sizeof f->base_exe, "%s/ok", f->bin);
    assert_int_equal(baseline_in(f, "ref-grid"), 2 * 3 * 5);
    assert_non_null(f->base.ref64_dir);
    measure_eval e;
    evaluate(f, "ok", &e);
    if (e.verdict.reason != MEASURE_OK)
        fail_msg("ok: %s", e.verdict.details);
    assert_int_equal(e.verdict.precision, MEASURE_PRECISION_PASS);
    assert_int_equal(e.verdict.precision_runs, 10);
    json_t *p = precision_entry(&e);
    assert_non_null(p);
    assert_string_equal(json_string_value(json_object_get(p, "distribution")), "grid(-2,2)");
    assert_int_equal(json_integer_value(json_object_get(p, "dist")), 2);
    measure_eval_clear(&e);
    evaluate(f, "coarse", &e);
    print_message("coarse on an exact baseline: %s\n", e.verdict.details ? e.verdict.details : "");
    assert_int_equal(e.verdict.reason, MEASURE_WRONG_ANSWER);
    assert_non_null(strstr(e.verdict.details, "at size 0 on distribution 2 grid(-2,2) "
                                              "(added by the referee: values on a power-of-two grid"));
    assert_non_null(strstr(e.verdict.details, "the baseline is exact here"));
    assert_int_equal(e.verdict.precision, MEASURE_PRECISION_FAIL);
    measure_eval_clear(&e);
    /* a baseline not exact on the grid: the usual rule */
    snprintf(f->base_exe, sizeof f->base_exe, "%s/coarse", f->bin);
    assert_int_equal(baseline_in(f, "ref-grid-coarse"), 2 * 3 * 5);
    evaluate(f, "coarse", &e);
    if (e.verdict.reason != MEASURE_OK)
        fail_msg("coarse: %s", e.verdict.details);
    measure_eval_clear(&e);
    evaluate(f, "coarse8", &e);
    print_message("coarse8 on the baseline coarse: %s\n", e.verdict.details ? e.verdict.details : "");
    assert_int_equal(e.verdict.reason, MEASURE_WRONG_ANSWER);
    assert_non_null(strstr(e.verdict.details, "the baseline is not exact here"));
    assert_non_null(strstr(e.verdict.details, "on distribution 2 grid(-2,2) (added by the referee: values on a "
                                              "power-of-two grid, exact arithmetic), its sizes where the baseline "
                                              "is not exact pooled, against the baseline's fp64 shadow over 10 runs"));
    measure_eval_clear(&e);
}

/* The widened tolerance (measure_widen): with distribution 2 one of the spec's own, the
 * baseline "coarse" is 1e-3 (relative) from its fp64 shadow there; an exact candidate, as
 * far from the baseline (outside the spec's tolerance), passes with the comparison widened
 * by twice that and the elements counted, while one 8e-3 off is still a wrong answer. Without the shadow nothing widens. */
static void test_widened(void **state)
{
    fixture *f = *state;
    measure_prog sp;
    precision_setup(f, true, &sp);
    f->sp->n_referee_dists = 0; /* before the baseline: the table covers distribution 2 */
    /* an absolute tolerance of 2e-3: the baseline's error (up to 3e-3) is within the room
     * the widening may take (max(atol, rtol max|ref|)) except at its largest */
    spec_tolerance loose = {.rtol = 0, .atol = 2e-3, .l2 = 0};
    f->sp->args[3].tol = loose;
    baseline_in(f, "ref-widened");
    oracle_widen w = measure_widen_at(&f->base.widen, 0, 2, 3); /* 1e-3 relative, |y| <= 3 */
    assert_true(w.atol > 3e-3 && w.atol <= 4e-3 + 1e-12); /* capped at twice the atol */
    assert_true(w.l2 > 1e-3 && w.l2 <= 2.01e-3);
    assert_true(measure_widen_at(&f->base.widen, 0, 0, 3).atol < 1e-6); /* one float rounding */
    assert_true(measure_widen_at(&f->base.widen, 0, 2, 2).atol == 0); /* an input */
    assert_true(measure_widen_at(&f->base.widen, 5, 2, 3).atol == 0); /* no such size */
    measure_eval e;
    evaluate(f, "ok", &e);
    if (e.verdict.reason != MEASURE_OK)
        fail_msg("ok: %s", e.verdict.details);
    assert_true(e.verdict.n_widened > 0);
    json_t *first = json_array_get(e.checks, 0);
    assert_string_equal(json_string_value(json_object_get(first, "check")), "correctness");
    assert_true(json_integer_value(json_object_get(first, "widened_elements")) > 0);
    measure_eval_clear(&e);
    expect_reject(f, "coarse8", MEASURE_WRONG_ANSWER, "+ widening 0.00");
    /* the spec's default fp32 tolerance (1e-5 + 1e-4 |b|, |b| <= 3): the baseline's 3e-3
     * is beyond that room (3e-4), so the widening stays at twice it and "ok" is refused */
    f->sp->args[3].tol = spec_default_tolerance(HK_DT_F32);
    baseline_in(f, "ref-widened");
    assert_true(measure_widen_at(&f->base.widen, 0, 2, 3).atol <= 2 * 3e-4 + 1e-12);
    expect_reject(f, "ok", MEASURE_WRONG_ANSWER, "distribution 2: ");
    /* no shadow: the spec's tolerance alone */
    precision_setup(f, false, NULL);
    f->sp->n_referee_dists = 0;
    baseline_in(f, "ref-widened");
    assert_null(f->base.widen.err);
    expect_reject(f, "ok", MEASURE_WRONG_ANSWER, "distribution 2: ");
}

/* Without an fp64 shadow the referee's distribution runs (crashes, poison, guard zones,
 * NaN still count) but its accuracy is not judged, and the verdict says so. */
static void test_precision_unjudged(void **state)
{
    fixture *f = *state;
    precision_setup(f, false, NULL);
    const char *const names[] = {"ok", "coarse8"};
    for (size_t k = 0; k < 2; k++) {
        measure_eval e;
        evaluate(f, names[k], &e);
        if (e.verdict.reason != MEASURE_OK)
            fail_msg("%s: %s", names[k], e.verdict.details);
        assert_int_equal(e.verdict.precision, MEASURE_PRECISION_NOT_JUDGED);
        json_t *p = precision_entry(&e);
        assert_non_null(p);
        assert_string_equal(json_string_value(json_object_get(p, "result")), "not_judged");
        assert_string_equal(json_string_value(json_object_get(p, "decided_by")), "none");
        assert_non_null(strstr(json_string_value(json_object_get(p, "why")), "no fp64 shadow"));
        measure_eval_clear(&e);
    }
    expect_reject(f, "nan", MEASURE_WRONG_ANSWER, "NaN/Inf where the baseline is finite");
}

/* The lock is keyed by the GPU a benchmark program runs on (device 0 of those it sees), not
 * by how the variable spells the set: on a one-GPU machine an episode with
 * CUDA_VISIBLE_DEVICES unset and one with it "0" take one lock (session 30's H100 run timed
 * a wild batch beside the cheats under two); another first device is another lock. */
static void test_gpu_lock_key(void **state)
{
    (void)state;
    char unset[512], zero[512], pair[512], one[512], hip[512], empty[512];
    unsetenv("HK_GPU_LOCK");
    unsetenv("CUDA_VISIBLE_DEVICES");
    unsetenv("HIP_VISIBLE_DEVICES");
    assert_int_equal(measure_gpu_lock_path(unset, sizeof unset), HK_OK);
    setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    assert_int_equal(measure_gpu_lock_path(zero, sizeof zero), HK_OK);
    setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
    assert_int_equal(measure_gpu_lock_path(pair, sizeof pair), HK_OK);
    setenv("CUDA_VISIBLE_DEVICES", "1", 1);
    assert_int_equal(measure_gpu_lock_path(one, sizeof one), HK_OK);
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    assert_int_equal(measure_gpu_lock_path(empty, sizeof empty), HK_OK);
    unsetenv("CUDA_VISIBLE_DEVICES");
    setenv("HIP_VISIBLE_DEVICES", "1,0", 1);
    assert_int_equal(measure_gpu_lock_path(hip, sizeof hip), HK_OK);
    unsetenv("HIP_VISIBLE_DEVICES");
    assert_string_equal(unset, zero);
    assert_string_equal(pair, zero);
    assert_string_equal(empty, zero);
    assert_string_not_equal(one, zero);
    assert_string_equal(hip, one);
    assert_non_null(strstr(zero, "/tmp/hyperkernel-gpu-"));
}

/* GPU programs of two processes never run at once: while another process holds the GPU
 * lock, a GPU run waits for it (and a stop ends the wait); a CPU run (a compile) does not
 * wait; HK_GPU_LOCK=off runs unlocked. */
static void test_gpu_lock(void **state)
{
    fixture *f = *state;
    char lock[400], stamp[400], released[400];
    snprintf(lock, sizeof lock, "%s/gpu.lock", f->dir);
    snprintf(stamp, sizeof stamp, "%s/started", f->dir);
    snprintf(released, sizeof released, "%s/released", f->dir);
    setenv("HK_GPU_LOCK", lock, 1);
    char path[512];
    assert_int_equal(measure_gpu_lock_path(path, sizeof path), HK_OK);
    assert_string_equal(path, lock);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* another hkls process timing a program: holds the lock 600 ms */
        int fd = open(lock, O_RDWR | O_CREAT, 0600);
        if (fd < 0 || flock(fd, LOCK_EX) != 0)
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        usleep(600000);
        FILE *o = fopen(released, "w");
        fprintf(o, "%.6f\n", real_s());
        fclose(o);
        close(fd);
        _exit(0);
    }
    char x;
    assert_int_equal(read(ready[0], &x, 1), 1);
    char script[600];
    snprintf(script, sizeof script, "date +%%s.%%N > %s", stamp);
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    /* a compile does not wait */
    runner_spec cpu = {.argv = argv, .timeout_ms = 10000, .output_max = 4096,
                       .isolation = RUNNER_ISO_NONE};
    runner_result r;
    double waited = 0;
    measure_opts counted = f->o;
    counted.lock_wait_s = &waited;
    double t0 = real_s();
    assert_int_equal(measure_run_argv(&counted, &cpu, &r), HK_OK);
    runner_result_free(&r);
    assert_true(real_s() - t0 < 0.4);
    assert_true(waited == 0);
    /* a GPU program starts only once the other process let go, and the wait is counted
     * (an episode's search budget leaves it out) */
    runner_spec gpu = cpu;
    gpu.gpu = true;
    t0 = real_s();
    assert_int_equal(measure_run_argv(&counted, &gpu, &r), HK_OK);
    runner_result_free(&r);
    assert_true(waited >= 0.15);
    assert_true(waited <= real_s() - t0 + 0.01);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    double started = 0, rel = 0;
    FILE *a = fopen(stamp, "r"), *b = fopen(released, "r");
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(fscanf(a, "%lf", &started), 1);
    assert_int_equal(fscanf(b, "%lf", &rel), 1);
    fclose(a);
    fclose(b);
    assert_true(started >= rel);
    /* a stop while waiting ends the wait */
    int fd = open(lock, O_RDWR);
    assert_true(fd >= 0);
    pid = fork();
    if (pid == 0) {
        int cfd = open(lock, O_RDWR);
        flock(cfd, LOCK_EX);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        usleep(3000000);
        _exit(0);
    }
    assert_int_equal(read(ready[0], &x, 1), 1);
    static volatile sig_atomic_t stop_now = 1;
    measure_opts o = f->o;
    o.stop = &stop_now;
    t0 = real_s();
    assert_int_equal(measure_run_argv(&o, &gpu, &r), HK_ECANCELED);
    runner_result_free(&r);
    assert_true(real_s() - t0 < 1.0);
    /* HK_GPU_LOCK=off: no waiting even while it is held */
    setenv("HK_GPU_LOCK", "off", 1);
    assert_int_equal(measure_gpu_lock_path(path, sizeof path), HK_ENOENT);
    t0 = real_s();
    assert_int_equal(measure_run_argv(&f->o, &gpu, &r), HK_OK);
    runner_result_free(&r);
    assert_true(real_s() - t0 < 1.0);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    close(fd);
    close(ready[0]);
    close(ready[1]);
    unsetenv("HK_GPU_LOCK");
}

/* measure.c hands the GPU lock to every benchmark program it runs, run and time mode
 * alike (the program holds it shared, and exclusively while it times), and to none when
 * HK_GPU_LOCK=off. */
static void test_gpu_lock_handed(void **state)
{
    fixture *f = *state;
    char lock[400], log[400];
    snprintf(lock, sizeof lock, "%s/gpu.lock", f->dir);
    snprintf(log, sizeof log, "%s/gpulock.log", f->dir);
    setenv("HK_GPU_LOCK", lock, 1);
    setenv("FAKE_GPULOCK_LOG", log, 1);
    baseline_in(f, "ref-handed");
    FILE *l = fopen(log, "r");
    assert_non_null(l);
    char line[200];
    int runs = 0, times = 0;
    while (fgets(line, sizeof line, l)) {
        if (!strcmp(line, "run handed=1 exclusive=0\n"))
            runs++;
        else if (!strcmp(line, "time handed=1 exclusive=1\n"))
            times++;
        else
            fail_msg("unexpected: %s", line);
    }
    fclose(l);
    assert_true(runs > 0);
    assert_true(times > 0);
    unlink(log);
    setenv("HK_GPU_LOCK", "off", 1);
    baseline_in(f, "ref-unlocked");
    l = fopen(log, "r");
    assert_non_null(l);
    while (fgets(line, sizeof line, l))
        assert_true(!strncmp(line, "run handed=0", 12) || !strncmp(line, "time handed=0", 13));
    fclose(l);
    unsetenv("FAKE_GPULOCK_LOG");
    unsetenv("HK_GPU_LOCK");
}

/* The launcher cache (HK_CACHE_DIR/launchers) is the user's alone (0700), and an entry
 * whose source is not the text this spec generates (planted, or half-written by someone
 * other than hkls) loses its source and program and is written again. No compile: only
 * the preparation is checked. */
static void test_launcher_cache_checked(void **state)
{
    fixture *f = *state;
    char cache[400], d1[400], d2[400], root[420];
    snprintf(cache, sizeof cache, "%s/cache", f->dir);
    snprintf(root, sizeof root, "%s/launchers", cache);
    snprintf(d1, sizeof d1, "%s/eps/c1", f->dir);
    snprintf(d2, sizeof d2, "%s/eps/c2", f->dir);
    const char *old = getenv("HK_CACHE_DIR");
    char *saved = old ? hk_strdup(old) : NULL;
    setenv("HK_CACHE_DIR", cache, 1);
    const char *text = "__global__ void tiny(const float *a, float *b, int n) {}\n";
    measure_build b1, b2;
    memset(&b1, 0, sizeof b1);
    memset(&b2, 0, sizeof b2);
    assert_int_equal(measure_build_prepare(&f->o, d1, text, strlen(text), NULL, &b1), HK_OK);
    assert_non_null(b1.module); /* the device-only path: a shared launcher */
    assert_non_null(strstr(b1.prog, "/launchers/"));
    struct stat st;
    assert_int_equal(stat(root, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    size_t len = 0;
    FILE *fp = fopen(b1.prog, "rb");
    assert_non_null(fp);
    char *good = calloc(1, 1 << 20);
    len = fread(good, 1, (1 << 20) - 1, fp);
    fclose(fp);
    assert_true(len > 0);
    /* plant a different launcher and a program beside it */
    fp = fopen(b1.prog, "wb");
    assert_non_null(fp);
    fputs("int main(void) { /* prints a made-up time */ return 0; }\n", fp);
    fclose(fp);
    fp = fopen(b1.exe, "wb");
    assert_non_null(fp);
    fputs("#!/bin/sh\necho '{\"median_ms\": 0.001}'\n", fp);
    fclose(fp);
    assert_int_equal(measure_build_prepare(&f->o, d2, text, strlen(text), NULL, &b2), HK_OK);
    assert_string_equal(b2.prog, b1.prog);
    assert_int_not_equal(stat(b2.exe, &st), 0); /* the planted program is gone */
    fp = fopen(b2.prog, "rb");
    assert_non_null(fp);
    char *now = calloc(1, 1 << 20);
    size_t len2 = fread(now, 1, (1 << 20) - 1, fp);
    fclose(fp);
    assert_int_equal(len2, len);
    assert_memory_equal(now, good, len);
    free(good);
    free(now);
    measure_build_free(&b1);
    measure_build_free(&b2);
    if (saved) {
        setenv("HK_CACHE_DIR", saved, 1);
        hk_free(saved);
    } else {
        unsetenv("HK_CACHE_DIR");
    }
}

static void test_sandboxed(void **state)
{
    fixture *f = *state;
    /* The same pipeline under the strongest isolation here (bwrap where it works): the
     * program runs from its build directory, writes in its own, and is judged the same. */
    f->o.isolation = RUNNER_ISO_AUTO;
    baseline(f);
    expect_reject(f, "wrong", MEASURE_WRONG_ANSWER, "max abs error");
    measure_eval e;
    evaluate(f, "fast", &e);
    assert_int_equal(e.verdict.reason, MEASURE_OK);
    measure_eval_clear(&e);
    f->o.isolation = RUNNER_ISO_NONE;
}

int main(void)
{
    /* the spec's own seeds (offset 0), so that fixtures can name them: a real run draws a
     * fresh offset (measure_fresh_seed) */
    setenv("HK_SEED", "0", 1);
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_speedup_math),
        cmocka_unit_test(test_speedup_faster),
        cmocka_unit_test_setup_teardown(test_combos, setup, teardown),
        cmocka_unit_test_setup_teardown(test_launcher_cache_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_baseline_and_ok, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reference_launch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rejections, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_process_per_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ranked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_state, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scratch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_per_combination, setup, teardown),
        cmocka_unit_test_setup_teardown(test_floor_and_flag, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drift, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unflushed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_floor_credit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_second_look, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interleave, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sandboxed, setup, teardown),
        cmocka_unit_test(test_gpu_lock_key),
        cmocka_unit_test_setup_teardown(test_gpu_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gpu_lock_handed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_precision_dist, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grid_dist, setup, teardown),
        cmocka_unit_test_setup_teardown(test_precision_unjudged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_widened, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
