/* The built hkls binary's `optimize --events` protocol (what the editor's server reads)
 * and the exit codes of `optimize` and `verify-candidate`, without a GPU (HK_NO_GPU=1, so
 * the result is the same on a GPU machine). Real nvcc, real store. Skipped when hkls or
 * nvcc is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile/compile.h"
#include "core/hk.h"

#define HKLS HK_BINARY_DIR "/hkls"

static char dir[] = "/tmp/hk-test-episode-cli-XXXXXX";

static bool usable(void)
{
    char *nvcc = NULL;
    bool ok = access(HKLS, X_OK) == 0 && cc_find_compiler(CC_NVIDIA, &nvcc) == HK_OK;
    hk_free(nvcc);
    return ok;
}

static void read_all(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    size_t got = f ? fread(buf, 1, n - 1, f) : 0;
    buf[got] = '\0';
    if (f)
        fclose(f);
}

/* Runs cmd with stdout to out_path; returns the exit status. */
static int run(const char *cmd, const char *out_path)
{
    char full[4096];
    snprintf(full, sizeof full, "HK_NO_GPU=1 %s >%s 2>%s.err", cmd, out_path, out_path);
    int st = system(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_events_protocol(void **state)
{
    (void)state;
    if (!usable())
        skip();
    assert_non_null(mkdtemp(dir));
    char cmd[2048], out[512];
    snprintf(out, sizeof out, "%s/events.jsonl", dir);
    snprintf(cmd, sizeof cmd,
             "%s optimize %s/bench/kernels/saxpy.cu --kernel saxpy --spec %s/specs/saxpy.bench.json "
             "--budget 1 --jobs 2 --db %s/h.db --events",
             HKLS, HK_SOURCE_DIR, HK_TEST_DATA, dir);
    assert_int_equal(run(cmd, out), 3); /* no GPU */
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char line[65536];
    int n = 0, last_pct = 0;
    json_t *last = NULL;
    bool saw_stage = false, saw_version = false;
    while (fgets(line, sizeof line, f)) {
        json_error_t err;
        json_t *j = json_loads(line, 0, &err);
        if (!j)
            fail_msg("stdout line %d is not JSON: %s", n + 1, line);
        assert_true(json_is_object(j));
        const char *kind = json_string_value(json_object_get(j, "event"));
        assert_non_null(kind);
        json_t *p = json_object_get(j, "percent");
        if (json_is_integer(p)) {
            assert_true(json_integer_value(p) >= last_pct);
            last_pct = (int)json_integer_value(p);
        }
        saw_stage |= !strcmp(kind, "stage");
        saw_version |= !strcmp(kind, "version");
        json_decref(last);
        last = j;
        n++;
    }
    fclose(f);
    assert_true(n > 5 && saw_stage && saw_version);
    assert_string_equal(json_string_value(json_object_get(last, "event")), "done");
    assert_string_equal(json_string_value(json_object_get(last, "status")), "failed");
    assert_true(json_is_true(json_object_get(last, "no_gpu")));
    assert_true(json_integer_value(json_object_get(last, "episode")) > 0);
    assert_non_null(json_string_value(json_object_get(json_object_get(last, "report"), "html")));
    json_decref(last);

    /* usage and input errors: 2, with a message; no stdout protocol break */
    snprintf(cmd, sizeof cmd, "%s optimize %s/bench/kernels/saxpy.cu --kernel nope --spec "
             "%s/specs/saxpy.bench.json --db %s/h.db", HKLS, HK_SOURCE_DIR, HK_TEST_DATA, dir);
    assert_int_equal(run(cmd, out), 2);
    snprintf(cmd, sizeof cmd, "%s optimize --budget x", HKLS);
    assert_int_equal(run(cmd, out), 2);
    snprintf(cmd, sizeof cmd, "%s optimize %s/bench/kernels/saxpy.cu --kernel saxpy --spec "
             "%s/episode/broken.bench.json --db %s/h.db", HKLS, HK_SOURCE_DIR, HK_TEST_DATA, dir);
    assert_int_equal(run(cmd, out), 2);
    char errp[600], text[8192] = "";
    snprintf(errp, sizeof errp, "%s.err", out);
    f = fopen(errp, "r");
    assert_non_null(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    assert_non_null(strstr(text, "broken.bench.json:"));
    assert_non_null(strstr(text, "args[2]"));
}

static void test_verify_candidate_codes(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char cmd[2048], out[512], bad[512];
    snprintf(out, sizeof out, "%s/verdict.json", dir);
    snprintf(bad, sizeof bad, "%s/bad.cu", dir);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("__global__ void saxpy(int n, float a, const float *x, float *y)\n"
          "{\n    y[threadIdx.x] = a * x[threadIdx.x] + undefined_name;\n}\n", f);
    fclose(f);
    /* a compile error is a rejection (1), with the compiler's words and the file's name */
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s/specs/saxpy.bench.json "
             "--candidate %s --json", HKLS, HK_TEST_DATA, bad);
    assert_int_equal(run(cmd, out), 1);
    json_t *j = json_load_file(out, 0, NULL);
    assert_non_null(j);
    assert_false(json_is_true(json_object_get(j, "accepted")));
    assert_string_equal(json_string_value(json_object_get(j, "reason")), "compile_error");
    const char *d = json_string_value(json_object_get(j, "details"));
    assert_non_null(d);
    assert_non_null(strstr(d, "bad.cu:3: error:"));
    assert_non_null(strstr(d, "undefined_name"));
    json_decref(j);
    /* a candidate that builds, with no GPU: 3, and nothing was rejected */
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s/specs/saxpy.bench.json "
             "--candidate %s/bench/kernels/saxpy.cu", HKLS, HK_TEST_DATA, HK_SOURCE_DIR);
    assert_int_equal(run(cmd, out), 3);
    char text[4096];
    read_all(out, text, sizeof text);
    assert_non_null(strstr(text, "not measured: no GPU"));
    assert_null(strstr(text, "rejected"));
    /* the verdict in words in the user's language; the reason codes stay (docs/i18n.md) */
    snprintf(cmd, sizeof cmd, "LC_ALL=zh_CN.UTF-8 %s verify-candidate --spec "
             "%s/specs/saxpy.bench.json --candidate %s/bench/kernels/saxpy.cu", HKLS,
             HK_TEST_DATA, HK_SOURCE_DIR);
    assert_int_equal(run(cmd, out), 3);
    read_all(out, text, sizeof text);
    if (!strstr(text, "未测量：没有 GPU") || strstr(text, "not measured"))
        fail_msg("not the Chinese verdict:\n%s", text);
    snprintf(cmd, sizeof cmd, "LC_ALL=zh_CN.UTF-8 %s verify-candidate --spec "
             "%s/specs/saxpy.bench.json --candidate %s", HKLS, HK_TEST_DATA, bad);
    assert_int_equal(run(cmd, out), 1);
    read_all(out, text, sizeof text);
    if (!strstr(text, "已拒绝：compile_error\n") || !strstr(text, "undefined_name"))
        fail_msg("not the Chinese rejection:\n%s", text);
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s/specs/saxpy.bench.json "
             "--candidate %s/bench/kernels/saxpy.cu --json", HKLS, HK_TEST_DATA, HK_SOURCE_DIR);
    assert_int_equal(run(cmd, out), 3);
    j = json_load_file(out, 0, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "verdict")), "not_measured");
    assert_true(json_is_false(json_object_get(j, "measured")));
    assert_int_equal(json_integer_value(json_object_get(j, "exit")), 3);
    json_decref(j);
    /* bad --pairs: 2 */
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s/specs/saxpy.bench.json "
             "--candidate %s/bench/kernels/saxpy.cu --pairs 0", HKLS, HK_TEST_DATA,
             HK_SOURCE_DIR);
    assert_int_equal(run(cmd, out), 2);
    /* no candidate file: 2 */
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s/specs/saxpy.bench.json "
             "--candidate %s/nope.cu", HKLS, HK_TEST_DATA, dir);
    assert_int_equal(run(cmd, out), 2);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* stderr of the last run(cmd, out) */
static void read_err(const char *out, char *buf, size_t n)
{
    char p[600];
    snprintf(p, sizeof p, "%s.err", out);
    read_all(p, buf, n);
}

static void expect_err(const char *out, const char *needle)
{
    char text[8192];
    read_err(out, text, sizeof text);
    if (!strstr(text, needle))
        fail_msg("expected \"%s\" in stderr:\n%s", needle, text);
}

/* Issue 15: what the user got wrong is said before anything is built, with exit 2: a
 * missing file (not "no bench spec" next to it), a binary file renamed to .cu (not 200
 * lines of nvcc warnings), an arch nvcc does not know (not a compile error, exit 1). */
static void test_refusals_before_compiling(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-refusals-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[2048], out[512], bin[512], spec[512];
    snprintf(out, sizeof out, "%s/out.txt", d);
    snprintf(bin, sizeof bin, "%s/blob.cu", d);
    /* a binary: the hkls executable itself */
    snprintf(cmd, sizeof cmd, "head -c 100000 %s > %s", HKLS, bin);
    assert_int_equal(system(cmd), 0);

    snprintf(cmd, sizeof cmd, "cd %s && %s optimize nope.cu --kernel saxpy", d, HKLS);
    assert_int_equal(run(cmd, out), 2);
    expect_err(out, "nope.cu does not exist");
    char text[8192];
    read_err(out, text, sizeof text);
    assert_null(strstr(text, "spec"));

    snprintf(cmd, sizeof cmd, "%s optimize %s --kernel saxpy --spec %s/specs/saxpy.bench.json "
             "--db %s/h.db", HKLS, bin, HK_TEST_DATA, d);
    assert_int_equal(run(cmd, out), 2);
    expect_err(out, "blob.cu is not a text file (a NUL byte at byte ");
    read_err(out, text, sizeof text);
    assert_null(strstr(text, "warning"));
    assert_null(strstr(text, "spec")); /* before the spec is looked for, too */
    snprintf(cmd, sizeof cmd, "%s optimize %s --kernel saxpy --db %s/h.db", HKLS, bin, d);
    assert_int_equal(run(cmd, out), 2);
    expect_err(out, "blob.cu is not a text file");

    snprintf(cmd, sizeof cmd, "%s optimize %s/bench/kernels/saxpy.cu --kernel saxpy --spec "
             "%s/specs/saxpy.bench.json --db %s/h.db --target nvidia:sm_999", HKLS,
             HK_SOURCE_DIR, HK_TEST_DATA, d);
    assert_int_equal(run(cmd, out), 2);
    expect_err(out, "sm_999 is not an NVIDIA architecture nvcc knows; accepted: sm_50 ");
    expect_err(out, "sm_121");
    /* a known one still gets as far as the GPU */
    snprintf(cmd, sizeof cmd, "%s optimize %s/bench/kernels/saxpy.cu --kernel saxpy --spec "
             "%s/specs/saxpy.bench.json --db %s/h.db --target nvidia:sm_90 --budget 1 --jobs 2",
             HKLS, HK_SOURCE_DIR, HK_TEST_DATA, d);
    assert_int_equal(run(cmd, out), 3);

    /* verify-candidate: the candidate, the spec's own source, the target */
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s/specs/saxpy.bench.json "
             "--candidate %s", HKLS, HK_TEST_DATA, bin);
    assert_int_equal(run(cmd, out), 2);
    expect_err(out, "the candidate ");
    expect_err(out, "blob.cu is not a text file (a NUL byte at byte ");
    read_err(out, text, sizeof text);
    assert_null(strstr(text, "warning"));
    snprintf(spec, sizeof spec, "%s/blob.bench.json", d);
    snprintf(cmd, sizeof cmd, "sed 's#\"source\": \"[^\"]*\"#\"source\": \"blob.cu\"#' "
             "%s/specs/saxpy.bench.json > %s && grep -q blob.cu %s", HK_TEST_DATA, spec, spec);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s --candidate %s/bench/kernels/saxpy.cu",
             HKLS, spec, HK_SOURCE_DIR);
    assert_int_equal(run(cmd, out), 2);
    expect_err(out, "blob.cu is not a text file");
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s/specs/saxpy.bench.json "
             "--candidate %s/bench/kernels/saxpy.cu --target sm_999", HKLS, HK_TEST_DATA,
             HK_SOURCE_DIR);
    assert_int_equal(run(cmd, out), 2);
    expect_err(out, "sm_999 is not an NVIDIA architecture nvcc knows; accepted: ");
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* stdout must hold needle; fails with the whole text otherwise */
static void expect_in(const char *text, const char *needle)
{
    if (!strstr(text, needle))
        fail_msg("expected \"%s\" in:\n%s", needle, text);
}

/* Issue 15: the demo (examples/saxpy.cu) without a GPU ends by saying what it built, with
 * each version's registers, where the candidates' code is, and the recorded GPU report of
 * the same kernel (budget 4: readonly_loads, vectorize, coarsen and a launch change); v0 is
 * not "verified", its class is not "unknown", and a launch-only
 * candidate is not said to be both "not rebuilt" and "built". */
static void test_demo_without_gpu(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-demo-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[4096], out[600], text[65536], err[65536];
    snprintf(out, sizeof out, "%s/demo.txt", d);
    snprintf(cmd, sizeof cmd, "%s optimize %s/examples/saxpy.cu --kernel saxpy --spec "
             "%s/examples/saxpy.bench.json --budget 4 --jobs 2 --db %s/h.db",
             HKLS, HK_SOURCE_DIR, HK_SOURCE_DIR, d);
    assert_int_equal(run(cmd, out), 3);
    read_all(out, text, sizeof text);
    read_err(out, err, sizeof err);

    /* what it built: every version with its registers, in version order */
    expect_in(text, "built, not measured:");
    expect_in(text, "registers");
    const char *v0 = strstr(text, "\n    v0 "), *v1 = strstr(text, "\n    v1 ");
    const char *v3 = strstr(text, "\n    v3 ");
    if (!v0 || !v1 || !v3 || !(v0 < v1 && v1 < v3))
        fail_msg("no v0, v1, v3 rows in order:\n%s", text);
    long regs = 0;
    assert_int_equal(sscanf(v1, "\n    v1 %ld", &regs), 1);
    assert_true(regs > 0);
    expect_in(text, "(the device code of v0: launch change only)");

    /* where the candidates' code is: a folder that holds them */
    const char *kept = strstr(text, "the candidates' sources: ");
    assert_non_null(kept);
    char folder[1024];
    assert_int_equal(sscanf(kept, "the candidates' sources: %1023s", folder), 1);
    char path[1100], src[8192];
    snprintf(path, sizeof path, "%s/v3.cu", folder);
    read_all(path, src, sizeof src);
    expect_in(src, "saxpy");

    /* the recorded GPU report of the same kernel, a file that exists */
    const char *gpu = strstr(text, "what a GPU gives: ");
    assert_non_null(gpu);
    const char *rec = "/bench/results/2026-11-30-h200-saxpy/episode-2.html";
    const char *html = strstr(gpu, rec);
    assert_non_null(html);
    const char *start = html;
    while (start > gpu && start[-1] != ' ')
        start--;
    snprintf(path, sizeof path, "%.*s", (int)(html - start + strlen(rec)), start);
    assert_int_equal(access(path, R_OK), 0);

    /* one line per version; the class from the spec's intensity; v0 not verified */
    /* the launch-only version: whichever number its build got */
    const char *same = strstr(err, ": the device code of v0, not rebuilt: ");
    if (!same)
        fail_msg("no launch-only version in:\n%s", err);
    const char *vn = same;
    while (vn > err && vn[-1] != 'v')
        vn--;
    char built[32];
    snprintf(built, sizeof built, "v%.*s built", (int)(same - vn), vn);
    assert_null(strstr(err, built));
    expect_in(err, "baseline: memory-bound (spec: 0.17 FLOP/byte; not measured)");
    assert_null(strstr(err, "unknown class"));
    snprintf(cmd, sizeof cmd, "%s history %s/examples/saxpy.cu --db %s/h.db", HKLS, HK_SOURCE_DIR, d);
    assert_int_equal(run(cmd, out), 0);
    read_all(out, text, sizeof text);
    const char *h0 = strstr(text, "    v0 ");
    assert_non_null(h0);
    const char *eol = strchr(h0, '\n');
    char row[512];
    snprintf(row, sizeof row, "%.*s", eol ? (int)(eol - h0) : (int)strlen(h0), h0);
    expect_in(row, "built, not measured");
    assert_null(strstr(row, "verified"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* Runs cmd on the simulated GPU (no HK_NO_GPU), stdout to out_path; the exit status. */
/* saxpy.cu with __restrict__ on the kernel's pointers (its parameters only: a changed host
 * launcher would be host_code), written to path: x0.8 on the simulated GPU. */
static void write_restrict_saxpy(const char *path)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sed '/__global__/s/const float \\*x, float \\*y/const float *__restrict__ x, "
             "float *__restrict__ y/' %s/bench/kernels/saxpy.cu > %s && grep -q __restrict__ %s",
             HK_SOURCE_DIR, path, path);
    assert_int_equal(system(cmd), 0);
}

static int run_sim(const char *cmd, const char *out_path)
{
    char full[4096];
    snprintf(full, sizeof full, "%s --simulate-gpu >%s 2>%s.err", cmd, out_path, out_path);
    int st = system(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* verify-candidate's speed verdict on the CI's simulated GPU (x0.8 with __restrict__, the
 * baseline's own text 1.0x): the interleaved line, 0 only when faster, 5 when correct but
 * not faster, and the interleaved speedup with its spread in the JSON. */
static void test_verify_candidate_interleaved(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-verify-sim-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[2048], out[512], fast[512], text[8192];
    snprintf(out, sizeof out, "%s/out.txt", d);
    snprintf(fast, sizeof fast, "%s/fast.cu", d);
    /* the kernel's parameters only: a changed host launcher would be host_code */
    write_restrict_saxpy(fast);
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s/episode/tiny.bench.json "
             "--candidate %s --pairs 3", HKLS, HK_TEST_DATA, fast);
    assert_int_equal(run_sim(cmd, out), 0);
    read_all(out, text, sizeof text);
    if (!strstr(text, "interleaved: baseline 4.099 ms, candidate 3.279 ms: 1.25x (pairs p10 "
                      "1.25x .. p90 1.25x, 3 pairs)") ||
        !strstr(text, "accepted: faster"))
        fail_msg("verify-candidate said: %s", text);

    /* the baseline's own text: correct, not faster, 5 */
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s/episode/tiny.bench.json "
             "--candidate %s/bench/kernels/saxpy.cu --pairs 3 --json", HKLS, HK_TEST_DATA,
             HK_SOURCE_DIR);
    assert_int_equal(run_sim(cmd, out), 5);
    json_t *j = json_load_file(out, 0, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "verdict")), "not_faster");
    assert_true(json_is_true(json_object_get(j, "accepted")));
    assert_true(json_is_false(json_object_get(j, "faster")));
    const json_t *il = json_object_get(j, "interleaved");
    assert_int_equal(json_integer_value(json_object_get(il, "pairs")), 3);
    assert_true(fabs(json_number_value(json_object_get(il, "speedup")) - 1.0) < 1e-9);
    assert_true(json_number_value(json_object_get(il, "p10")) <= 1.0);
    assert_int_equal(json_array_size(json_object_get(il, "candidate_samples")), 3);
    /* every rule that decided, the interleaved one last */
    const json_t *checks = json_object_get(j, "checks");
    const json_t *last = json_array_get(checks, json_array_size(checks) - 1);
    assert_string_equal(json_string_value(json_object_get(last, "check")), "interleaved");
    assert_string_equal(json_string_value(json_object_get(last, "result")), "not_faster");
    assert_int_equal(json_integer_value(json_object_get(j, "exit")), 5);
    json_decref(j);
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* verify-candidate's sensitivity check on the simulated GPU: a candidate that misses every
 * other raised input element ($FAKE_SIM_INSENSITIVE names it) is rejected as insensitive
 * (exit 1) with the element, both changes and the perturbation seed; the same candidate
 * otherwise passes it, and the JSON says what the check found. */
static void test_verify_candidate_insensitive(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-verify-sens-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[2048], out[512], fast[512];
    snprintf(out, sizeof out, "%s/out.json", d);
    snprintf(fast, sizeof fast, "%s/fast.cu", d);
    write_restrict_saxpy(fast);
    snprintf(cmd, sizeof cmd, "FAKE_SIM_INSENSITIVE=__restrict__ %s verify-candidate --spec "
             "%s/episode/tiny.bench.json --candidate %s --pairs 3 --json", HKLS, HK_TEST_DATA, fast);
    assert_int_equal(run_sim(cmd, out), 1);
    json_t *j = json_load_file(out, 0, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "verdict")), "rejected");
    assert_string_equal(json_string_value(json_object_get(j, "reason")), "insensitive");
    const char *det = json_string_value(json_object_get(j, "details"));
    if (!det || !strstr(det, "insensitive: output 'y' element") || !strstr(det, "perturbation seed"))
        fail_msg("details: %s", det ? det : "(none)");
    json_decref(j);
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s/episode/tiny.bench.json "
             "--candidate %s --pairs 3 --json", HKLS, HK_TEST_DATA, fast);
    assert_int_equal(run_sim(cmd, out), 0);
    j = json_load_file(out, 0, NULL);
    assert_non_null(j);
    const char *sens = json_string_value(json_object_get(j, "sensitivity"));
    if (!sens || strncmp(sens, "sensitivity: passed", 19) != 0)
        fail_msg("sensitivity: %s", sens ? sens : "(none)");
    json_decref(j);
    /* insensitive on distribution 1 only: HK_SEED=2 is a seed on which session 51's check
     * (one distribution, picked by the seed: splitmix64(2) % 2 = 0) saw distribution 0 alone
     * and passed it; every eligible distribution is checked now (measure_sens_dists) */
    snprintf(cmd, sizeof cmd, "HK_SEED=2 FAKE_SIM_INSENSITIVE=__restrict__ FAKE_SIM_INSENSITIVE_DIST=1 %s "
             "verify-candidate --spec %s/episode/tiny.bench.json --candidate %s --pairs 3 --json", HKLS,
             HK_TEST_DATA, fast);
    assert_int_equal(run_sim(cmd, out), 1);
    j = json_load_file(out, 0, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "reason")), "insensitive");
    det = json_string_value(json_object_get(j, "details"));
    if (!det || !strstr(det, "distribution 1)"))
        fail_msg("details: %s", det ? det : "(none)");
    json_decref(j);
    /* a spec whose inputs are integer-valued only: checked on the referee's added
     * real-valued distribution (2), where the insensitive candidate is caught */
    snprintf(cmd, sizeof cmd, "FAKE_SIM_INSENSITIVE=__restrict__ %s verify-candidate --spec "
             "%s/episode/tiny_int.bench.json --candidate %s --pairs 3 --json", HKLS, HK_TEST_DATA, fast);
    assert_int_equal(run_sim(cmd, out), 1);
    j = json_load_file(out, 0, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "reason")), "insensitive");
    det = json_string_value(json_object_get(j, "details"));
    if (!det || !strstr(det, "distribution 2)"))
        fail_msg("details: %s", det ? det : "(none)");
    json_decref(j);
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* A claim over 2x whose memory-safety check could not complete (the tool past its time
 * limit: a kernel that is slow only under compute-sanitizer) is measured and correct, but not
 * credited: verdict not_credited, the note says why, the checks end their credit entry with
 * the rule. The same candidate whose check completes is faster (exit 0). On the simulated GPU
 * (x0.8 with __restrict__, x0.9 __launch_bounds__, x0.7 float4, x0.95 __ldg: the words in a
 * comment are enough for it) the candidate claims 2.09x; the stand-in tool sleeps in memcheck. */
static void test_verify_candidate_sanitizer_incomplete(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-verify-san-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[4096], out[512], fast[512], env[1024];
    snprintf(out, sizeof out, "%s/out.json", d);
    snprintf(fast, sizeof fast, "%s/fast.cu", d);
    write_restrict_saxpy(fast);
    snprintf(cmd, sizeof cmd, "echo '// float4 __ldg( __launch_bounds__(' >> %s", fast);
    assert_int_equal(system(cmd), 0);
    snprintf(env, sizeof env, "HK_COMPUTE_SANITIZER=%s/sanitize/fake_compute_sanitizer.sh "
             "HK_SANITIZE_TIMEOUT_S=1", HK_TEST_DATA);
    for (int slow = 1; slow >= 0; slow--) {
        snprintf(cmd, sizeof cmd, "%s %s %s verify-candidate --spec %s/episode/tiny.bench.json "
                 "--candidate %s --pairs 3 --json", env, slow ? "FAKE_SANITIZER_SLEEP=memcheck" : "",
                 HKLS, HK_TEST_DATA, fast);
        int code = run_sim(cmd, out);
        json_t *j = json_load_file(out, 0, NULL);
        assert_non_null(j);
        assert_true(json_is_true(json_object_get(j, "accepted")));
        double claim = json_number_value(json_object_get(j, "speedup"));
        if (!(claim > 2.0))
            fail_msg("the simulated candidate claims %.3fx, not over 2x", claim);
        const char *note = json_string_value(json_object_get(j, "credit_note"));
        if (slow) {
            assert_int_not_equal(code, 0);
            assert_false(json_is_true(json_object_get(j, "credited")));
            assert_string_equal(json_string_value(json_object_get(j, "verdict")), "not_credited");
            assert_non_null(note);
            assert_non_null(strstr(note, "memory safety could not be checked (compute-sanitizer "
                                         "memcheck: timed out after 1 s without a finding): a "
                                         "speedup over 2x is credited only once"));
            const json_t *checks = json_object_get(j, "checks"), *c;
            size_t i;
            bool by_safety = false;
            json_array_foreach(checks, i, c)
                by_safety |= !strcmp(json_string_value(json_object_get(c, "check")), "credit") &&
                             json_string_value(json_object_get(c, "by")) &&
                             !strcmp(json_string_value(json_object_get(c, "by")), "memory_safety");
            assert_true(by_safety);
            assert_true(json_is_true(json_object_get(json_object_get(j, "sanitizer"), "incomplete")));
        } else {
            if (code != 0)
                fail_msg("checked, the candidate should be faster (exit 0), got %d: %s", code,
                         json_string_value(json_object_get(j, "verdict")));
            assert_true(json_is_true(json_object_get(j, "credited")));
        }
        json_decref(j);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* A faster candidate is checked for memory safety even when it claims 2x or less and
 * --sanitize is not given (session 45): verify-candidate's faster verdict is its accepted
 * best, and the episode never reports a best unchecked. The simulated candidate (x0.8 with
 * __restrict__: 1.25x) races by the stand-in tool's word: without the late check it was
 * "faster" (exit 0) with no sanitizer run; now it is rejected as race after its interleaved
 * pairs, which stay in the verdict. The same candidate with no finding stays faster, its
 * memory-safety note saying why the tools ran. */
static void test_verify_candidate_sanitizes_faster(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-verify-sanfast-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[4096], out[512], fast[512];
    snprintf(out, sizeof out, "%s/out.json", d);
    snprintf(fast, sizeof fast, "%s/fast.cu", d);
    write_restrict_saxpy(fast);
    for (int racy = 1; racy >= 0; racy--) {
        char race_env[1024] = "";
        if (racy)
            snprintf(race_env, sizeof race_env, "FAKE_SANITIZER_RACECHECK=%s/sanitize/racecheck_error.txt",
                     HK_TEST_DATA);
        snprintf(cmd, sizeof cmd, "HK_COMPUTE_SANITIZER=%s/sanitize/fake_compute_sanitizer.sh %s "
                 "HK_RUNNER_ISOLATION=none %s verify-candidate --spec %s/episode/tiny.bench.json "
                 "--candidate %s --pairs 3 --json", HK_TEST_DATA, race_env, HKLS, HK_TEST_DATA,
                 fast);
        int code = run_sim(cmd, out);
        json_t *j = json_load_file(out, 0, NULL);
        assert_non_null(j);
        double claim = json_number_value(json_object_get(j, "speedup"));
        if (!(claim > 1.02 && claim <= 2.0))
            fail_msg("the simulated candidate claims %.3fx, not in (1.02, 2]", claim);
        const json_t *il = json_object_get(j, "interleaved");
        assert_true(json_number_value(json_object_get(il, "speedup")) > 1.2);
        const char *note = json_string_value(json_object_get(j, "memory_safety"));
        assert_non_null(note);
        assert_null(strstr(note, "not checked"));
        assert_non_null(json_object_get(j, "sanitizer"));
        if (racy) {
            assert_int_not_equal(code, 0);
            const char *reason = json_string_value(json_object_get(j, "reason"));
            if (!reason || strcmp(reason, "race"))
                fail_msg("a faster candidate with a race should be rejected as race, got %s",
                         reason ? reason : "(none)");
            assert_string_equal(json_string_value(json_object_get(j, "verdict")), "rejected");
            assert_true(json_is_false(json_object_get(j, "accepted")));
            assert_true(json_is_false(json_object_get(j, "faster")));
            assert_true(json_is_false(json_object_get(j, "credited")));
            assert_non_null(strstr(json_string_value(json_object_get(j, "details")),
                                   "Race reported between"));
            const json_t *checks = json_object_get(j, "checks");
            const json_t *last = json_array_get(checks, json_array_size(checks) - 1);
            assert_string_equal(json_string_value(json_object_get(last, "check")), "memory_safety");
            assert_string_equal(json_string_value(json_object_get(last, "result")), "rejected");
        } else {
            if (code != 0)
                fail_msg("with no finding the candidate stays faster (exit 0), got %d: %s", code,
                         json_string_value(json_object_get(j, "verdict")));
            assert_string_equal(json_string_value(json_object_get(j, "verdict")), "faster");
        }
        json_decref(j);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* A faster candidate whose memory-safety check it leaves incomplete, where the original
 * kernel's run under the same tool at the same size completes, is not credited at any claim
 * (session 46): a kernel that spins only under compute-sanitizer made its check time out and,
 * claiming 2x or less, stayed "faster" (exit 0) with the race or over-read the tool would have
 * seen. The stand-in tool sleeps in memcheck for the candidate's program only: verdict
 * not_credited (exit 5), the note names the tool and the original's completed run, the checks
 * end with the credit entry by memory_safety, and the original was run under the tools. When
 * the tool cannot finish the original either (it sleeps for both), the tool cannot check this
 * program at this size: the note says so and the candidate stays faster (exit 0). */
static void test_verify_candidate_sanitizer_incomplete_own(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-verify-sanown-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[4096], out[512], fast[512], log[512], text[16384];
    snprintf(out, sizeof out, "%s/out.json", d);
    snprintf(fast, sizeof fast, "%s/fast.cu", d);
    snprintf(log, sizeof log, "%s/tool.log", d);
    write_restrict_saxpy(fast);
    for (int own = 1; own >= 0; own--) {
        snprintf(cmd, sizeof cmd, "rm -f %s; HK_COMPUTE_SANITIZER=%s/sanitize/fake_compute_sanitizer.sh "
                 "%s FAKE_SANITIZER_LOG=%s HK_SANITIZE_TIMEOUT_S=1 "
                 "HK_RUNNER_ISOLATION=none %s verify-candidate --spec %s/episode/tiny.bench.json "
                 "--candidate %s --pairs 3 --json", log, HK_TEST_DATA,
                 own ? "FAKE_SANITIZER_SLEEP=memcheck@/candidate/" : "FAKE_SANITIZER_SLEEP=memcheck", log, HKLS, HK_TEST_DATA, fast);
        int code = run_sim(cmd, out);
        json_t *j = json_load_file(out, 0, NULL);
        assert_non_null(j);
        double claim = json_number_value(json_object_get(j, "speedup"));
        if (!(claim > 1.02 && claim <= 2.0))
            fail_msg("the simulated candidate claims %.3fx, not in (1.02, 2]", claim);
        assert_true(json_is_true(json_object_get(j, "accepted")));
        assert_true(json_is_true(json_object_get(json_object_get(j, "sanitizer"), "incomplete")));
        read_all(log, text, sizeof text);
        /* the original kernel ran under memcheck, to tell whose doing the timeout was */
        assert_non_null(strstr(text, "/baseline/"));
        const char *note = json_string_value(json_object_get(j, "credit_note"));
        if (own) {
            if (code != 5)
                fail_msg("a check the candidate alone left incomplete should not be credited "
                         "(exit 5), got %d: %s", code,
                         json_string_value(json_object_get(j, "verdict")));
            assert_string_equal(json_string_value(json_object_get(j, "verdict")), "not_credited");
            assert_true(json_is_false(json_object_get(j, "credited")));
            assert_non_null(note);
            assert_non_null(strstr(note, "memory safety could not be checked (compute-sanitizer "
                                         "memcheck: timed out after 1 s without a finding) where "
                                         "the original kernel's run under the same tool at the "
                                         "same size completed in"));
            const json_t *checks = json_object_get(j, "checks");
            const json_t *last = json_array_get(checks, json_array_size(checks) - 1);
            assert_string_equal(json_string_value(json_object_get(last, "check")), "credit");
            assert_string_equal(json_string_value(json_object_get(last, "by")), "memory_safety");
        } else {
            if (code != 0)
                fail_msg("a tool that cannot finish the original either leaves the credit (exit "
                         "0), got %d: %s", code, json_string_value(json_object_get(j, "verdict")));
            assert_string_equal(json_string_value(json_object_get(j, "verdict")), "faster");
            assert_null(note);
            assert_non_null(strstr(json_string_value(json_object_get(j, "memory_safety")),
                                   "memcheck not checked: timed out after 1 s"));
        }
        json_decref(j);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* The rule's edges (session 46, the final read's probes), each a verify-candidate of the
 * 1.25x simulated candidate:
 * - the original times out in racecheck, the candidate in initcheck: the original's initcheck
 *   still runs (a tool past its limit no longer ends the run) and completes, so the
 *   candidate's incomplete initcheck is its own doing: not credited (exit 5). Before, the
 *   original's initcheck was "not run", which counted as not completed: faster (exit 0);
 * - the original's racecheck prints a race and is then cut at the limit, the candidate's runs
 *   past it with none: a cut run is no completed one, so the credit stands (exit 0). Before,
 *   the printed finding made it "completed": not credited;
 * - a spec without bytes or flops (no physical floor) and clean tools: not credited by the
 *   floor, and the checks must not say memory_safety took it (the late check's branch fired
 *   on any uncredited candidate). */
static void test_verify_candidate_sanitizer_incomplete_edges(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-verify-sanedge-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[4096], out[512], fast[512], nofloor[512];
    snprintf(out, sizeof out, "%s/out.json", d);
    snprintf(fast, sizeof fast, "%s/fast.cu", d);
    snprintf(nofloor, sizeof nofloor, "%s/nofloor.bench.json", d);
    write_restrict_saxpy(fast);
    json_t *spec = json_load_file(HK_TEST_DATA "/episode/tiny.bench.json", 0, NULL);
    assert_non_null(spec);
    char src[600];
    snprintf(src, sizeof src, "%s/bench/kernels/saxpy.cu", HK_SOURCE_DIR);
    json_object_set_new(spec, "source", json_string(src));
    json_object_del(spec, "bytes");
    json_object_del(spec, "flops");
    assert_int_equal(json_dump_file(spec, nofloor, 0), 0);
    json_decref(spec);
    struct {
        const char *env, *spec;
        int code;
        const char *verdict;
    } cases[] = {
        {"FAKE_SANITIZER_SLEEP='racecheck@/baseline/ initcheck@/candidate/'", NULL, 5, "not_credited"},
        {"FAKE_SANITIZER_SLEEP=racecheck@/candidate/ FAKE_SANITIZER_CUT=racecheck@/baseline/ "
         "FAKE_SANITIZER_RACECHECK=" HK_TEST_DATA "/sanitize/racecheck_error.txt", NULL, 0, "faster"},
        {"", nofloor, 5, "not_credited"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char specp[600];
        snprintf(specp, sizeof specp, "%s", cases[k].spec ? cases[k].spec
                                                          : HK_TEST_DATA "/episode/tiny.bench.json");
        snprintf(cmd, sizeof cmd, "HK_COMPUTE_SANITIZER=%s/sanitize/fake_compute_sanitizer.sh %s "
                 "HK_SANITIZE_TIMEOUT_S=1 HK_RUNNER_ISOLATION=none %s verify-candidate --spec %s "
                 "--candidate %s --pairs 3 --json", HK_TEST_DATA, cases[k].env, HKLS, specp, fast);
        int code = run_sim(cmd, out);
        json_t *j = json_load_file(out, 0, NULL);
        assert_non_null(j);
        const char *verdict = json_string_value(json_object_get(j, "verdict"));
        if (code != cases[k].code || !verdict || strcmp(verdict, cases[k].verdict))
            fail_msg("case %zu: exit %d, verdict %s; expected %d, %s (%s)", k, code,
                     verdict ? verdict : "(none)", cases[k].code, cases[k].verdict,
                     json_string_value(json_object_get(j, "credit_note")));
        const json_t *checks = json_object_get(j, "checks"), *c;
        size_t i;
        bool by_safety = false;
        json_array_foreach(checks, i, c)
            by_safety |= json_string_value(json_object_get(c, "by")) &&
                         !strcmp(json_string_value(json_object_get(c, "by")), "memory_safety");
        /* only the first case's check was the candidate's doing */
        if (by_safety != (k == 0))
            fail_msg("case %zu: a credit entry by memory_safety %s", k,
                     by_safety ? "where none belongs" : "missing");
        json_decref(j);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* The same rule in an episode (session 46): the best, claiming 1.05x, leaves its racecheck run
 * incomplete (the stand-in tool sleeps for the candidate's program, c001/) while the original's
 * completes: it is kept as a candidate, measured and not credited, never the best, and the
 * summary says it was memory safety (by), not a missing floor. With the tool sleeping for
 * neither, the same version is the best. */
static void test_optimize_sanitizer_incomplete_own(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-opt-sanown-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[4096], out[512];
    snprintf(out, sizeof out, "%s/out.json", d);
    for (int own = 1; own >= 0; own--) {
        snprintf(cmd, sizeof cmd, "rm -f %s/h.db; HK_COMPUTE_SANITIZER=%s/sanitize/fake_compute_sanitizer.sh "
                 "%s HK_SANITIZE_TIMEOUT_S=1 HK_RUNNER_ISOLATION=none %s optimize "
                 "%s/bench/kernels/saxpy.cu --kernel saxpy --spec %s/episode/tiny.bench.json "
                 "--budget 1 --jobs 2 --db %s/h.db --json", d, HK_TEST_DATA,
                 own ? "FAKE_SANITIZER_SLEEP=racecheck@/c001/" : "", HKLS,
                 HK_SOURCE_DIR, HK_TEST_DATA, d);
        assert_int_equal(run_sim(cmd, out), 0);
        json_t *j = json_load_file(out, 0, NULL);
        assert_non_null(j);
        const json_t *s = json_object_get(j, "summary");
        assert_non_null(s);
        if (own) {
            assert_int_equal(json_integer_value(json_object_get(s, "accepted")), 0);
            assert_int_equal(json_integer_value(json_object_get(s, "not_credited")), 1);
            assert_true(json_is_null(json_object_get(s, "best_version")));
            const json_t *nc = json_object_get(s, "not_credited_best");
            assert_string_equal(json_string_value(json_object_get(nc, "by")), "memory_safety");
            assert_non_null(strstr(json_string_value(json_object_get(nc, "why")),
                                   "racecheck: timed out after 1 s without a finding) where the "
                                   "original kernel's run under the same tool"));
        } else {
            assert_int_equal(json_integer_value(json_object_get(s, "accepted")), 1);
            assert_int_equal(json_integer_value(json_object_get(s, "best_version")), 1);
            assert_null(json_object_get(s, "not_credited_best"));
        }
        json_decref(j);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* Memory safety at the size that is timed (issue 12; tests/gpu/cheats/size_race.cu): a
 * candidate safe at the spec's smallest size and racing at the timed (primary) one must be
 * rejected. The stand-in tool reports a race only for a program run with --size 1 (tiny's
 * larger size, the one timed) and logs every command line: the tools run at size 0 first,
 * then at the timed size with one run-mode launch, and the race found there rejects as
 * `race`, quoting the finding and naming the size. Without the timed pass the candidate was
 * accepted. */
static void test_verify_candidate_sanitizer_timed_size(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-verify-santimed-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[4096], out[512], log[512], text[16384];
    snprintf(out, sizeof out, "%s/out.json", d);
    snprintf(log, sizeof log, "%s/tool.log", d);
    snprintf(cmd, sizeof cmd, "HK_COMPUTE_SANITIZER=%s/sanitize/fake_compute_sanitizer.sh "
             "FAKE_SANITIZER_RACECHECK=%s/sanitize/racecheck_error.txt FAKE_SANITIZER_AT_SIZE=1 "
             "FAKE_SANITIZER_LOG=%s HK_SANITIZE_TIMED_S=30 HK_RUNNER_ISOLATION=none %s "
             "verify-candidate --spec %s/episode/tiny.bench.json --candidate %s/bench/kernels/saxpy.cu --sanitize "
             "--pairs 3 --json", HK_TEST_DATA, HK_TEST_DATA, log, HKLS, HK_TEST_DATA,
             HK_SOURCE_DIR);
    (void)run_sim(cmd, out);
    json_t *j = json_load_file(out, 0, NULL);
    assert_non_null(j);
    const char *reason = json_string_value(json_object_get(j, "reason"));
    const char *details = json_string_value(json_object_get(j, "details"));
    if (!reason || strcmp(reason, "race"))
        fail_msg("a race at the timed size should reject as race, got %s: %s",
                 reason ? reason : "(none)", details ? details : "");
    assert_string_equal(json_string_value(json_object_get(j, "verdict")), "rejected");
    assert_false(json_is_true(json_object_get(j, "accepted")));
    assert_non_null(details);
    assert_non_null(strstr(details, "compute-sanitizer racecheck at the timed size 1: Error: Race "
                                    "reported between"));
    const json_t *san = json_object_get(j, "sanitizer"), *timed = json_object_get(san, "timed");
    assert_string_equal(json_string_value(json_object_get(san, "outcome")), "rejected");
    assert_int_equal(json_integer_value(json_object_get(san, "size")), 0);
    assert_non_null(timed);
    assert_int_equal(json_integer_value(json_object_get(timed, "size")), 1);
    assert_string_equal(json_string_value(json_object_get(timed, "reason")), "race");
    json_decref(j);
    /* the tool ran at both sizes: every tool at size 0, then memcheck and racecheck (which
     * found the race) at size 1, each a run-mode process of one combination (no sandbox:
     * the log lies under the real /tmp) */
    read_all(log, text, sizeof text);
    const char *want[] = {"memcheck", "racecheck", "initcheck"};
    for (int t = 0; t < 3; t++) {
        char line[64];
        snprintf(line, sizeof line, "%s --tool %s", want[t], want[t]);
        assert_non_null(strstr(text, line));
    }
    assert_non_null(strstr(text, "--mode run --size 0"));
    const char *at1 = strstr(text, "--mode run --size 1");
    assert_non_null(at1);
    assert_true(at1 > strstr(text, "--mode run --size 0")); /* the smallest size first */
    assert_null(strstr(text, "--mode time"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* A verify-candidate stopped by a signal (tests/gpu/run.sh's CHEAT_TIMEOUT) says where its
 * time went: how long it ran, the stage and the last thing it was doing (session 12's H200
 * run had five cheats cut with only "stopped"). The simulated GPU is the fake harness,
 * slowed to 400 ms a combination. */
static void test_verify_candidate_stopped(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-verify-stop-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[2048], out[512], text[8192];
    snprintf(cmd, sizeof cmd, "cc -O1 -o %s/fakesim %s/episode/fake_harness.c -lm", d, HK_TEST_DATA);
    if (system(cmd) != 0)
        skip();
    snprintf(out, sizeof out, "%s/out.txt", d);
    snprintf(cmd, sizeof cmd, "HK_GPU_SIMULATOR=%s/fakesim FAKE_COMBO_MS=400 timeout -s TERM 5 "
             "%s verify-candidate --spec %s/episode/tiny.bench.json --candidate "
             "%s/bench/kernels/saxpy.cu --json --simulate-gpu >%s 2>%s.err", d, HKLS,
             HK_TEST_DATA, HK_SOURCE_DIR, out, out);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 124);   /* timeout's: the signal ended it */
    char err[600];
    snprintf(err, sizeof err, "%s.err", out);
    read_all(err, text, sizeof text);
    const char *line = strstr(text, "hkls verify-candidate: stopped after ");
    if (!line || !strstr(line, " s, in verify (") || !strstr(line, " s so far): "))
        fail_msg("verify-candidate said: %s", text);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
}

/* The fp64 rule on the CI's simulated GPU: the baseline's shadow (promote.h) is built and
 * run with --promote, and a candidate 5e-6 off (HK_SIM_SLOPPY: inside the tolerance against the
 * baseline) is rejected against it, with the rule named; the shadow's absence is said when
 * it is switched off, and then the same candidate passes the tolerance rule alone. */
static void test_verify_candidate_fp64(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-verify-fp64-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[2048], out[512], sloppy[512], text[8192];
    snprintf(out, sizeof out, "%s/out.txt", d);
    snprintf(sloppy, sizeof sloppy, "%s/sloppy.cu", d);
    snprintf(cmd, sizeof cmd, "sed 's#+ y\\[i\\];#+ y[i]; /* HK_SIM_SLOPPY */#' %s/bench/kernels/saxpy.cu "
             "> %s && grep -q HK_SIM_SLOPPY %s", HK_SOURCE_DIR, sloppy, sloppy);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s verify-candidate --spec %s/episode/tiny.bench.json "
             "--candidate %s --pairs 1", HKLS, HK_TEST_DATA, sloppy);
    assert_int_equal(run_sim(cmd, out), 1);
    read_all(out, text, sizeof text);
    if (!strstr(text, "rejected: wrong_answer") || !strstr(text, "fp64 shadow"))
        fail_msg("verify-candidate said: %s", text);
    /* the rejection's details in zh-CN (issue 14, session 28): the referee's sentence in
     * Chinese, the reason code as it is */
    snprintf(cmd, sizeof cmd, "LC_ALL=zh_CN.UTF-8 %s verify-candidate --spec "
             "%s/episode/tiny.bench.json --candidate %s --pairs 1", HKLS, HK_TEST_DATA, sloppy);
    assert_int_equal(run_sim(cmd, out), 1);
    read_all(out, text, sizeof text);
    if (!strstr(text, "已拒绝：wrong_answer") || !strstr(text, "与基线的 fp64 影子版本在 ") ||
        strstr(text, "against the baseline's fp64 shadow"))
        fail_msg("not the Chinese rejection: %s", text);
    snprintf(cmd, sizeof cmd, "HK_REF64=off %s verify-candidate --spec %s/episode/tiny.bench.json "
             "--candidate %s --pairs 1", HKLS, HK_TEST_DATA, sloppy);
    assert_int_equal(run_sim(cmd, out), 5);
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* issue 14: optimize a kernel that has no spec. The CLI infers one, saves it next to the
 * kernel, says what it guessed, and completes an episode on the simulated GPU; a kernel
 * whose inference has doubts (a __constant__ table) exits 2 with the reasons and the
 * draft's path, and runs nothing. */
static void test_optimize_without_a_spec(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-nospec-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[2048], out[512], text[16384], spec_path[512];
    snprintf(out, sizeof out, "%s/out.txt", d);
    snprintf(cmd, sizeof cmd, "cp %s/bench/kernels/saxpy.cu %s/infer/const_offsets.cu %s/", HK_SOURCE_DIR,
             HK_TEST_DATA, d);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s optimize saxpy.cu --kernel saxpy --budget 1 --db %s/h.db", d,
             HKLS, d);
    assert_int_equal(run_sim(cmd, out), 0);
    read_err(out, text, sizeof text);
    if (!strstr(text, "inferred one and saved it to saxpy.saxpy.bench.json") ||
        !strstr(text, "grid from the launch site at saxpy.cu:") || !strstr(text, "spec inferred: "))
        fail_msg("optimize said: %s", text);
    snprintf(spec_path, sizeof spec_path, "%s/saxpy.saxpy.bench.json", d);
    assert_int_equal(access(spec_path, R_OK), 0);
    /* doubts: the reasons, the draft's path, exit 2, and no episode */
    snprintf(cmd, sizeof cmd, "cd %s && %s optimize const_offsets.cu --kernel gather_taps --db %s/h2.db", d, HKLS, d);
    assert_int_equal(run_sim(cmd, out), 2);
    read_err(out, text, sizeof text);
    if (!strstr(text, "integer __constant__ taps") || !strstr(text, "const_offsets.gather_taps.bench.json"))
        fail_msg("optimize said: %s", text);
    assert_int_not_equal(access(spec_path, R_OK), -1);
    snprintf(cmd, sizeof cmd, "test ! -e %s/h2.db && rm -rf %s", d, d);
    assert_int_equal(system(cmd), 0);
}

/* The .hip rule (session 30): without --target, a .hip file is for a DCU, as hkls check and
 * the editor read it; it went to nvcc, whose HIP-on-CUDA headers do not build the harness.
 * Without a GPU the episode stops at "no DCU GPU here" (hipcc found) or "hipcc not found":
 * never at nvcc. */
static void test_optimize_hip_file_is_dcu(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-hip-rule-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[2048], out[512], text[16384];
    snprintf(out, sizeof out, "%s/out.json", d);
    snprintf(cmd, sizeof cmd, "cp %s/analysis/vadd.hip %s/", HK_TEST_DATA, d);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s optimize vadd.hip --kernel vadd --budget 1 --json "
             "--db %s/h.db", d, HKLS, d);
    assert_int_not_equal(run(cmd, out), 0);
    read_all(out, text, sizeof text);
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    if (!j)
        fail_msg("not JSON: %s", text);
    const char *e = json_string_value(json_object_get(j, "error"));
    if (!e || (strncmp(e, "no DCU GPU here", 15) && strncmp(e, "hipcc not found", 15)))
        fail_msg("a .hip file without --target did not go to the DCU: %s", e ? e : text);
    json_decref(j);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
}

/* The summary and the report in the user's language (docs/i18n.md): Chinese from the
 * environment's locale, English with --lang en whatever the environment says, and a
 * language it does not have refused before anything runs. Simulated GPU. */
static void test_optimize_language(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-i18n-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[2048], out[512], text[16384], html[8192];
    snprintf(out, sizeof out, "%s/out.txt", d);
    snprintf(cmd, sizeof cmd, "cp %s/bench/kernels/saxpy.cu %s/", HK_SOURCE_DIR, d);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "cd %s && LC_ALL=zh_CN.UTF-8 %s optimize saxpy.cu --kernel saxpy "
             "--budget 1 --db %s/h.db", d, HKLS, d);
    assert_int_equal(run_sim(cmd, out), 0);
    read_all(out, text, sizeof text);
    expect_in(text, "优化任务 1：completed\n"); /* the status: the store's name */
    expect_in(text, "  核函数 saxpy，sm_90，运行于 ");
    expect_in(text, "  候选版本：提出 1 个，接受 ");
    expect_in(text, "  模拟 GPU：以下时间和加速比均为模拟值");
    expect_in(text, "  报告：");
    assert_null(strstr(text, "candidates:"));
    /* the worker's lines on stderr (session 28): its log lines and version lines */
    char err[2048], log[16384];
    snprintf(err, sizeof err, "%s.err", out);
    read_all(err, log, sizeof log);
    expect_in(log, "已提出 1 个候选版本，测量了 1 个");
    expect_in(log, "基线：");
    expect_in(log, "个寄存器，溢出 0 字节");
    expect_in(log, "] v1：");
    expect_in(log, "警告：模拟 GPU ");
    assert_null(strstr(log, "candidates proposed"));
    assert_null(strstr(log, "warning: "));
    snprintf(cmd, sizeof cmd, "%s/reports/1/episode-1.html", d);
    read_all(cmd, html, sizeof html);
    expect_in(html, "<html lang=\"zh-CN\">");
    expect_in(html, "Hyper Kernel 优化报告（模拟 GPU）：");
    snprintf(cmd, sizeof cmd, "cd %s && LC_ALL=zh_CN.UTF-8 %s optimize saxpy.cu --kernel saxpy "
             "--budget 1 --db %s/h.db --lang en", d, HKLS, d);
    assert_int_equal(run_sim(cmd, out), 0);
    read_all(out, text, sizeof text);
    expect_in(text, "episode 2: completed\n");
    expect_in(text, "  candidates: ");
    expect_in(text, " proposed, ");
    assert_null(strstr(text, "候选版本"));
    read_all(err, log, sizeof log);
    expect_in(log, " candidates proposed, ");
    expect_in(log, "] v1: ");
    expect_in(log, "warning: SIMULATED GPU ");
    assert_null(strstr(log, "已提出"));
    snprintf(cmd, sizeof cmd, "%s/reports/2/episode-2.html", d);
    read_all(cmd, html, sizeof html);
    expect_in(html, "<html lang=\"en\">");
    snprintf(cmd, sizeof cmd, "cd %s && %s optimize saxpy.cu --kernel saxpy --db %s/h3.db "
             "--lang fr", d, HKLS, d);
    assert_int_equal(run_sim(cmd, out), 2);
    snprintf(cmd, sizeof cmd, "test ! -e %s/h3.db && rm -rf %s", d, d);
    assert_int_equal(system(cmd), 0);
}

/* Why a faster version is not credited, in the user's language (session 31): a spec with
 * no bytes/flops formula has no physical floor; hkls optimize's "not credited" line and the
 * Markdown report's floor row quote the engine's reason, stored in English (the report's
 * JSON keeps it so), said in Chinese; with --lang en the line is as before. Simulated GPU. */
static void test_optimize_not_credited_language(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-nocredit-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[4096], out[512], text[16384], md[512], report[65536];
    snprintf(out, sizeof out, "%s/out.txt", d);
    snprintf(cmd, sizeof cmd, "cp %s/bench/kernels/saxpy.cu %s/ && sed -e '/\"flops\"/d' -e "
             "'/\"bytes\"/d' -e 's|\"source\": .*|\"source\": \"saxpy.cu\",|' "
             "%s/episode/tiny.bench.json > %s/nf.bench.json", HK_SOURCE_DIR, d, HK_TEST_DATA, d);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "cd %s && LC_ALL=zh_CN.UTF-8 %s optimize saxpy.cu --kernel saxpy "
             "--spec nf.bench.json --budget 1 --db %s/h.db", d, HKLS, d);
    assert_int_equal(run_sim(cmd, out), 0);
    read_all(out, text, sizeof text);
    expect_in(text, "但没有物理下限检查过它（bench spec 没有 bytes 或 flops 公式）；--allow-no-floor");
    assert_null(strstr(text, "the spec has no bytes"));
    snprintf(md, sizeof md, "%s/reports/1/episode-1.md", d);
    read_all(md, report, sizeof report);
    expect_in(report, "| 物理下限 | 无（bench spec 没有 bytes 或 flops 公式）：加速比已测量，但未计入");
    snprintf(md, sizeof md, "%s/reports/1/episode-1.json", d);
    read_all(md, report, sizeof report);
    expect_in(report, "\"why\": \"the spec has no bytes or flops formula\"");
    snprintf(cmd, sizeof cmd, "cd %s && LC_ALL=zh_CN.UTF-8 %s optimize saxpy.cu --kernel saxpy "
             "--spec nf.bench.json --budget 1 --db %s/h.db --lang en", d, HKLS, d);
    assert_int_equal(run_sim(cmd, out), 0);
    read_all(out, text, sizeof text);
    expect_in(text, "but no physical floor checked it (the spec has no bytes or flops formula); "
                    "--allow-no-floor credits them\n");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
}

/* Issue 13: stencil2d's first candidate on the simulated GPU is stencil_window at K = 8,
 * built and measured with the spec's grid divided by 8 along y (its launcher's grid, the
 * version's launch JSON in the report); `hkls apply` divides the file's launch the same way,
 * and refuses the version (exit 3, the reason) once that launch cannot be divided. */
static void test_optimize_stencil_divided_grid(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-divided-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[2048], out[512], text[65536];
    snprintf(out, sizeof out, "%s/out.txt", d);
    snprintf(cmd, sizeof cmd, "cp %s/bench/kernels/stencil2d.cu %s/bench/kernels/stencil2d.bench.json "
             "%s/", HK_SOURCE_DIR, HK_SOURCE_DIR, d);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "cd %s && HK_CACHE_DIR=%s/cache %s optimize stencil2d.cu --kernel "
             "stencil2d --budget 1 --db %s/h.db --work-dir %s/work", d, d, HKLS, d, d);
    assert_int_equal(run_sim(cmd, out), 0);
    read_err(out, text, sizeof text);
    expect_in(text, "v1 built: ");
    expect_in(text, "stencil_window outputs_per_thread=8");
    expect_in(text, "grid / 8 along y");
    /* the launcher v1 ran with computes that grid; the baseline's does not */
    snprintf(cmd, sizeof cmd, "grep -lF 'st->grid[1] = hk_ceil_div(hk_ceil_div(hk_v_h, "
             "hk_v_block_y), 8LL);' %s/cache/launchers/*/bench.cpp | wc -l | grep -qx 1", d);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/reports/1/episode-1.json", d);
    json_t *rep = json_load_file(cmd, 0, NULL);
    assert_non_null(rep);
    json_t *v1 = json_array_get(json_object_get(rep, "versions"), 1);
    json_t *l = json_object_get(v1, "launch");
    assert_string_equal(json_string_value(json_object_get(l, "grid_mode")), "divided");
    assert_int_equal(json_integer_value(json_object_get(l, "grid_divisor")), 8);
    assert_string_equal(json_string_value(json_object_get(l, "grid_axis")), "y");
    json_decref(rep);
    /* apply: the local grid's y component is divided */
    snprintf(cmd, sizeof cmd, "%s apply 1 --version 1 --db %s/h.db", HKLS, d);
    assert_int_equal(run(cmd, out), 0);
    snprintf(cmd, sizeof cmd, "grep -qF 'dim3 grid((w + 15) / 16, (((h + 15) / 16) + 8 - 1) / 8);' "
             "%s/stencil2d.cu", d);
    assert_int_equal(system(cmd), 0);
    /* a launch that cannot be divided (the grid also used elsewhere): refused */
    snprintf(cmd, sizeof cmd, "cd %s && cp %s/bench/kernels/stencil2d.cu . && sed -i "
             "'s|^    stencil2d<<<grid, block>>>(in, out, h, w);|& (void)grid;|' stencil2d.cu "
             "&& grep -q '(void)grid' stencil2d.cu", d, HK_SOURCE_DIR);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s apply 1 --version 1 --db %s/h.db", HKLS, d);
    assert_int_equal(run(cmd, out), 3);
    expect_err(out, "hkls apply: refused: v1 was measured with its grid divided by 8 along y");
    expect_err(out, "divide it by hand");
    snprintf(cmd, sizeof cmd, "grep -q hk_win %s/stencil2d.cu", d);
    assert_int_not_equal(system(cmd), 0);
    /* v1 (x0.6 on the simulator) is the best verified version, but the next episode's search
     * would time its text on the spec's grid: it starts from the original */
    snprintf(cmd, sizeof cmd, "cd %s && HK_CACHE_DIR=%s/cache %s optimize stencil2d.cu --kernel "
             "stencil2d --budget 1 --db %s/h.db", d, d, HKLS, d);
    assert_int_equal(run_sim(cmd, out), 0);
    expect_err(out, "the best earlier version v1 runs on the spec's grid divided along one axis");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
}

/* split_topk_scan on the simulated GPU (session 25): its candidate is measured on the spec's
 * grid times its parts (the launcher computes `(grid) * 4`), recorded as a "multiplied"
 * launch, and `hkls apply` multiplies the launch site (the merge helper it inserts before the
 * kernel comes with it). */
static const char nn2_src[] =
    "#include <cuda_runtime.h>\n"
    "__global__ void nn2(const float *query, const float *ref, float *dist, int *which, int n, int m)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        float qx = query[2 * i], qy = query[2 * i + 1];\n"
    "        float b1 = 3.0e38f, b2 = 3.0e38f;\n"
    "        int w1 = -1, w2 = -1;\n"
    "        for (int k = 0; k < m; k++) {\n"
    "            float dx = qx - ref[2 * k], dy = qy - ref[2 * k + 1];\n"
    "            float d = dx * dx + dy * dy;\n"
    "            if (d < b1) {\n"
    "                b2 = b1; w2 = w1; b1 = d; w1 = k;\n"
    "            } else if (d < b2) {\n"
    "                b2 = d; w2 = k;\n"
    "            }\n"
    "        }\n"
    "        dist[2 * i] = b1; dist[2 * i + 1] = b2;\n"
    "        which[2 * i] = w1; which[2 * i + 1] = w2;\n"
    "    }\n"
    "}\n"
    "void run_nn2(const float *query, const float *ref, float *dist, int *which, int n, int m)\n"
    "{\n"
    "    nn2<<<(n + 255) / 256, 256>>>(query, ref, dist, which, n, m);\n"
    "}\n";

static const char nn2_spec[] =
    "{\"name\": \"nn2\", \"kernel\": \"nn2\", \"source\": \"nn2.cu\",\n"
    " \"sizes\": [{\"n\": 1000, \"m\": 300}, {\"n\": 4099, \"m\": 500}],\n"
    " \"args\": [\n"
    "  {\"name\": \"query\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"2 * n\"},\n"
    "  {\"name\": \"ref\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"2 * m\"},\n"
    "  {\"name\": \"dist\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"2 * n\"},\n"
    "  {\"name\": \"which\", \"kind\": \"output\", \"dtype\": \"int32\", \"count\": \"2 * n\"},\n"
    "  {\"name\": \"n\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
    "  {\"name\": \"m\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"m\"}],\n"
    " \"launch\": {\"grid\": \"ceil_div(n, block_x)\", \"block\": 256},\n"
    " \"flops\": \"8 * n * m\", \"bytes\": \"8 * (n + m) + 16 * n\",\n"
    " \"seeds\": [1, 2, 3, 4, 5], \"distributions\": [\"uniform(-1,1)\", \"normal(0,1)\"]}\n";

static void write_to(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    fclose(f);
}

static void test_optimize_split_multiplied_grid(void **state)
{
    (void)state;
    if (!usable())
        skip();
    char d[] = "/tmp/hk-test-multiplied-XXXXXX";
    assert_non_null(mkdtemp(d));
    char cmd[2048], out[512], p[600], text[65536];
    snprintf(out, sizeof out, "%s/out.txt", d);
    snprintf(p, sizeof p, "%s/nn2.cu", d);
    write_to(p, nn2_src);
    snprintf(p, sizeof p, "%s/nn2.bench.json", d);
    write_to(p, nn2_spec);
    /* the sm_90 latency-bound plan offers it 5th (test_engine_search_scan) */
    snprintf(cmd, sizeof cmd, "cd %s && HK_CACHE_DIR=%s/cache %s optimize nn2.cu --kernel nn2 --budget 5 "
             "--db %s/h.db --work-dir %s/work", d, d, HKLS, d, d);
    assert_int_equal(run_sim(cmd, out), 0);
    read_err(out, text, sizeof text);
    expect_in(text, "split_topk_scan parts=4 (skill sm90-split-topk-scan); grid x 4 along x");
    /* the launcher that version ran with computes the grid times 4; the others do not */
    snprintf(cmd, sizeof cmd, "grep -lF 'st->grid[0] = (hk_ceil_div(hk_v_n, hk_v_block_x) * 4LL);' "
             "%s/cache/launchers/*/bench.cpp | wc -l | grep -qx 1", d);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/reports/1/episode-1.json", d);
    json_t *rep = json_load_file(cmd, 0, NULL);
    assert_non_null(rep);
    json_t *vs = json_object_get(rep, "versions");
    int split_v = -1;
    for (size_t i = 0; i < json_array_size(vs); i++) {
        json_t *v = json_array_get(vs, i);
        const char *by = json_string_value(json_object_get(v, "produced_by"));
        json_t *l = json_object_get(v, "launch");
        const char *mode = json_string_value(json_object_get(l, "grid_mode"));
        if (by && strstr(by, "split_topk_scan")) {
            split_v = (int)json_integer_value(json_object_get(v, "number"));
            assert_string_equal(mode, "multiplied");
            assert_int_equal(json_integer_value(json_object_get(l, "grid_multiplier")), 4);
            assert_string_equal(json_string_value(json_object_get(l, "grid_axis")), "x");
        } else if (mode)
            assert_string_not_equal(mode, "multiplied");
    }
    json_decref(rep);
    assert_true(split_v > 0);
    /* apply: the site's grid is multiplied */
    snprintf(cmd, sizeof cmd, "%s apply 1 --version %d --db %s/h.db", HKLS, split_v, d);
    assert_int_equal(run(cmd, out), 0);
    snprintf(cmd, sizeof cmd, "grep -qF 'nn2<<<(((n + 255) / 256) * 4), 256>>>' %s/nn2.cu && "
             "grep -q hk_sp_merge %s/nn2.cu", d, d);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_protocol),
        cmocka_unit_test(test_verify_candidate_codes),
        cmocka_unit_test(test_refusals_before_compiling),
        cmocka_unit_test(test_demo_without_gpu),
        cmocka_unit_test(test_verify_candidate_interleaved),
        cmocka_unit_test(test_verify_candidate_insensitive),
        cmocka_unit_test(test_verify_candidate_sanitizer_incomplete),
        cmocka_unit_test(test_verify_candidate_sanitizes_faster),
        cmocka_unit_test(test_verify_candidate_sanitizer_incomplete_own),
        cmocka_unit_test(test_verify_candidate_sanitizer_incomplete_edges),
        cmocka_unit_test(test_optimize_sanitizer_incomplete_own),
        cmocka_unit_test(test_verify_candidate_sanitizer_timed_size),
        cmocka_unit_test(test_verify_candidate_fp64),
        cmocka_unit_test(test_verify_candidate_stopped),
        cmocka_unit_test(test_optimize_without_a_spec),
        cmocka_unit_test(test_optimize_stencil_divided_grid),
        cmocka_unit_test(test_optimize_split_multiplied_grid),
        cmocka_unit_test(test_optimize_language),
        cmocka_unit_test(test_optimize_not_credited_language),
        cmocka_unit_test(test_optimize_hip_file_is_dcu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
