/* GPU check of the built-in engine v1: for kernels of the project's suite, the search's
 * candidates (grid-stride on SM-multiple grids, block sizes, restrict/const, launch bounds,
 * fast-math) are built and judged by the real pipeline (engine/measure: generated harness,
 * oracle against the baseline on every spec input, timing). Every candidate that does not
 * change the arithmetic must pass the oracle. Where there is no GPU: "skipped: no GPU" and
 * exit 77, which ctest counts as skipped (SKIP_RETURN_CODE, tests/CMakeLists.txt).
 * HK_GPU_KERNELS (comma list of spec names) and HK_GPU_BUDGET choose the work. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "measure/device.h"
#include "spec/expr.h"
#include "measure/measure.h"
#include "search/search.h"
#include "spec/spec.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[512];
static device_gpu gpu;

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/test-search-gpu-XXXXXX", HK_BINARY_DIR);
    if (!mkdtemp(tmpdir))
        return -1;
    return device_detect_gpu(&gpu) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Builds and compiles text under dir with spec sp; false (and the reason printed) when the
 * compile fails. */
static bool build(const measure_opts *o, const char *dir, const char *text, size_t len,
                  const char *const *flags, measure_build *b)
{
    assert_int_equal(measure_build_prepare(o, dir, text, len, flags, b), HK_OK);
    measure_compile mc;
    memset(&mc, 0, sizeof mc);
    assert_int_equal(measure_build_compile(o, b, &mc), HK_OK);
    bool ok = mc.ok;
    if (!ok)
        print_message("compile failed in %s: %s\n", dir, mc.details ? mc.details : "?");
    measure_compile_clear(&mc);
    return ok;
}

static void one_kernel(const char *name, const device_info *dev, unsigned budget)
{
    char path[700];
    snprintf(path, sizeof path, "%s/specs/%s.bench.json", HK_TEST_DATA, name);
    spec *sp = NULL;
    spec_diags d = {0};
    assert_int_equal(spec_load(path, &sp, &d), HK_OK);
    size_t len;
    char *text = slurp(sp->source_path, &len);
    an_model *m;
    assert_int_equal(an_analyze(text, len, &m), HK_OK);
    long k = an_model_find_kernel(m, sp->kernel);
    assert_true(k >= 0);

    measure_opts o = {.spec = sp, .arch = dev->arch, .sm_count = dev->sm_count,
                      .peak_bytes_per_s = device_peak_bandwidth_gbs(dev) * 1e9,
                      .peak_flops = dev->fp32_tflops * 1e12, .isolation = RUNNER_ISO_AUTO};
    char dir[800];
    snprintf(dir, sizeof dir, "%s/%s/base", tmpdir, name);
    measure_build bb;
    memset(&bb, 0, sizeof bb);
    assert_true(build(&o, dir, text, len, NULL, &bb));
    measure_prog bp = {.exe = bb.exe};
    measure_baseline base;
    memset(&base, 0, sizeof base);
    measure_verdict bv;
    measure_verdict_init(&bv);
    char ref[820];
    snprintf(ref, sizeof ref, "%s/%s/ref", tmpdir, name);
    assert_int_equal(measure_baseline_run(&o, &bp, ref, &base, &bv), HK_OK);
    assert_int_equal(bv.reason, MEASURE_OK);

    search_launch sl;
    char err[256];
    assert_int_equal(search_launch_from_spec(sp, dev->sm_count, &sl, err, sizeof err), HK_OK);
    search_budget sb = {.max_candidates = budget};
    search *s;
    assert_int_equal(search_new(text, len, m, (size_t)k, &sl, 1, &sb, &s), HK_OK);
    char *axes = search_describe_axes(s);
    print_message("%s: axes: %s\n", name, axes);
    hk_free(axes);

    const search_candidate *c;
    size_t n = 0, wrong = 0;
    int rc;
    while ((rc = search_next(s, &c)) == HK_OK || rc == HK_ESTATE) {
        if (rc == HK_ESTATE)
            break;   /* every candidate is reported before the next is asked: cannot happen */
        /* the candidate's spec: its template arguments and grid mode, as the episode does */
        spec cs = *sp;
        expr *g[3] = {NULL, NULL, NULL};
        if (c->n_template_args) {
            cs.template_args = c->template_args;
            cs.n_template_args = c->n_template_args;
        }
        if (c->grid_mode == SEARCH_GRID_SM_MULTIPLE) {
            char gt[64];
            snprintf(gt, sizeof gt, "sm_count * %u", c->grid_per_sm);
            assert_int_equal(expr_parse(gt, &g[0], NULL, 0), HK_OK);
            assert_int_equal(expr_parse("1", &g[1], NULL, 0), HK_OK);
            assert_int_equal(expr_parse("1", &g[2], NULL, 0), HK_OK);
            for (int dd = 0; dd < 3; dd++)
                cs.grid[dd] = g[dd];
        }
        measure_opts co = o;
        co.spec = &cs;
        snprintf(dir, sizeof dir, "%s/%s/c%u", tmpdir, name, c->id);
        measure_build cb;
        memset(&cb, 0, sizeof cb);
        enum search_status st = SEARCH_COMPILE_ERROR;
        double ms = 0, speedup = NAN;
        const char *verdict = "compile_error";
        if (build(&co, dir, c->text, c->len, c->flags, &cb)) {
            long long blk[3] = {c->block[0], c->block[1], c->block[2]};
            measure_prog cp = {.exe = cb.exe, .block = blk};
            measure_eval ev;
            memset(&ev, 0, sizeof ev);
            assert_int_equal(measure_evaluate(&co, &base, &bp, &cp, dir, &ev), HK_OK);
            verdict = measure_reason_name(ev.verdict.reason);
            if (ev.verdict.reason == MEASURE_OK) {
                st = SEARCH_OK;
                ms = ev.timing.median_ms;
                speedup = ev.speedup;
            } else {
                st = ev.verdict.reason == MEASURE_WRONG_ANSWER ? SEARCH_WRONG : SEARCH_REJECTED;
                print_message("  details: %s\n", ev.verdict.details ? ev.verdict.details : "");
            }
            measure_eval_clear(&ev);
        }
        print_message("%s #%u [phase %d] %-60s %-14s %8.4f ms  %5.2fx\n", name, c->id, c->phase,
                      c->description, verdict, ms, speedup);
        /* rewrites that keep the arithmetic must be correct; fast-math may legitimately
         * miss a tight tolerance */
        if (st != SEARCH_OK && !c->fast_math)
            wrong++;
        assert_int_equal(search_report(s, c->id, st, ms), HK_OK);
        measure_build_free(&cb);
        for (int dd = 0; dd < 3; dd++)
            expr_free(g[dd]);
        n++;
    }
    double best_ms;
    const search_candidate *best = search_best(s, &best_ms);
    assert_non_null(best);
    print_message("%s: best %s, %.4f ms (baseline %.4f ms at its slowest size)\n", name,
                  best->description, best_ms, base.times[base.primary_size].median_ms);
    assert_int_equal(wrong, 0);
    assert_true(n >= 2);
    search_free(s);
    measure_baseline_clear(&base);
    measure_verdict_clear(&bv);
    measure_build_free(&bb);
    an_model_free(m);
    free(text);
    spec_free(sp);
    spec_diags_free(&d);
}

static void test_search_on_gpu(void **state)
{
    if (!gpu.present) {
        print_message("skipped: no GPU (%s)\n", gpu.how);
        skip();
    }
    device_probe_options po = {.workdir = tmpdir};
    device_info dev;
    char *why = NULL;
    int rc = device_probe(&po, &dev, &why);
    if (rc)
        print_message("device probe failed: %s\n", why ? why : hk_strerror(rc));
    assert_int_equal(rc, HK_OK);
    hk_free(why);
    const char *env = getenv("HK_GPU_KERNELS");
    char list[512];
    /* each candidate runs every spec input and a timing loop (about 30 s on the H200), so
     * the default stays small; HK_GPU_KERNELS / HK_GPU_BUDGET widen it */
    snprintf(list, sizeof list, "%s", env && *env ? env : "saxpy");
    unsigned budget = getenv("HK_GPU_BUDGET") ? (unsigned)atoi(getenv("HK_GPU_BUDGET")) : 6;
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
        one_kernel(t, &dev, budget);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_search_on_gpu),
    };
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    /* its one test skipped itself: tell ctest, which would otherwise count a pass */
    return failed == 0 && !gpu.present ? 77 : failed;
}
