/* A command-form episode end to end without a GPU: the user's own build command (real
 * nvcc) builds each candidate in a private copy of the project, and the only stand-in is
 * the GPU boundary -- the run command is tests/data/episode/cmd_fake_run.sh, which writes
 * the kernel records libhk_cupti.so would (faster with __restrict__) and prints PASS or
 * FAIL. The builtin search's text rewrites are measured, launch-configuration candidates
 * are skipped, the fastest is verified by interleaved runs, and everything is stored.
 * Needs nvcc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "compile/compile.h"
#include "core/buf.h"
#include "core/hk.h"
#include "episode/episode.h"

static char dir[] = "/tmp/hk-test-episode-cmd-XXXXXX";
static char lib[400];
static bool ready;
static device_info dev;

static int setup(void **state)
{
    (void)state;
    char *nvcc = NULL;
    if (cc_find_compiler(CC_NVIDIA, &nvcc) != HK_OK)
        return 0;
    hk_free(nvcc);
    if (!mkdtemp(dir))
        return -1;
    /* any readable file: the fake run command only checks that it is set */
    snprintf(lib, sizeof lib, "%s/libhk_cupti.so", dir);
    FILE *f = fopen(lib, "w");
    if (!f)
        return -1;
    fputs("stand-in\n", f);
    fclose(f);
    memset(&dev, 0, sizeof dev);
    dev.probe_version = DEVICE_PROBE_VERSION;
    snprintf(dev.name, sizeof dev.name, "Simulated GPU");
    snprintf(dev.arch, sizeof dev.arch, "sm_90");
    dev.cc_major = 9;
    dev.sm_count = 132;
    dev.copy_kernel_gbs = 3000;
    dev.fp32_tflops = 60;
    dev.tensor_bf16_tflops = -1;
    ready = true;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (ready)
        measure_rmtree(dir);
    return 0;
}

/* A command-form spec for the project at project_dir, written into dir. */
static void write_spec(const char *path, const char *project_dir)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"form\": \"command\", \"kernel\": \"saxpy\", \"source\": \"%s/saxpy.cu\",\n"
            " \"workdir\": \"%s\", \"build\": \"nvcc -O1 -arch=sm_90 -o saxpy saxpy.cu\",\n"
            " \"run\": \"sh %s/episode/cmd_fake_run.sh\", \"pass_regex\": \"^PASS\",\n"
            " \"fail_regex\": \"FAIL|mismatch\", \"timeout_s\": 300}\n",
            project_dir, project_dir, HK_TEST_DATA);
    fclose(f);
}

typedef struct {
    int verified, rejected, skipped, no_start;
    char stages[8][16];
    int n_stage;
} seen;

static void on_event(const json_t *ev, void *data)
{
    seen *s = data;
    const char *kind = json_string_value(json_object_get(ev, "event"));
    const char *msg = json_string_value(json_object_get(ev, "message"));
    if (!strcmp(kind, "stage") && s->n_stage < 8)
        snprintf(s->stages[s->n_stage++], 16, "%s",
                 json_string_value(json_object_get(ev, "stage")));
    if (!strcmp(kind, "log") && msg && strstr(msg, "skipped "))
        s->skipped++;
    if (!strcmp(kind, "log") && msg && strstr(msg, "is no start") &&
        strstr(msg, "changes line 28, outside the definition of saxpy") &&
        strstr(msg, "atoi(argv[2]) : 1;"))
        s->no_start++;
    if (!strcmp(kind, "version")) {
        const char *st = json_string_value(json_object_get(ev, "status"));
        s->verified += !strcmp(st, "verified");
        s->rejected += !strcmp(st, "rejected");
    }
}

static ep_options options(const char *file, const char *spec_path, const char *db, seen *s,
                          const cmdform_options *co)
{
    ep_options o = {
        .file = file,
        .kernel = "saxpy",
        .spec_path = spec_path,
        .budget = 3,
        .minutes = 10,
        .seed = 1,
        .db_path = db,
        .gpu = EP_GPU_SIMULATED,
        .sim_device = &dev,
        .cmdform = co,
        .on_event = on_event,
        .event_data = s,
    };
    o.measure.isolation = RUNNER_ISO_NONE;
    return o;
}

static void test_command_form_episode(void **state)
{
    (void)state;
    if (!ready)
        skip();
    char spec_path[400], db[400];
    const char *project = HK_TEST_DATA "/cmdform/project";
    snprintf(spec_path, sizeof spec_path, "%s/saxpy.cmd.bench.json", dir);
    snprintf(db, sizeof db, "%s/history.db", dir);
    write_spec(spec_path, project);
    cmdform_options co = {.runs = 3, .cupti_lib = lib, .isolation = RUNNER_ISO_NONE};
    seen s = {0};
    ep_options o = options(HK_TEST_DATA "/cmdform/project/saxpy.cu", spec_path, db, &s, &co);
    /* a command-form spec has no bytes/flops formula, so no physical floor: its speedups
     * are credited only when allowed (the uncredited run is test_command_form_no_floor) */
    o.measure.allow_no_floor = true;
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    if (r.status != STORE_EP_COMPLETED)
        fail_msg("episode ended %s: %s", store_episode_status_name(r.status),
                 r.error ? r.error : "");
    const char *want[] = {"init", "baseline", "optimize", "accuracy", "verify", "report"};
    assert_int_equal(s.n_stage, 6);
    for (int i = 0; i < 6; i++)
        assert_string_equal(s.stages[i], want[i]);
    /* 3 launches of 1000 ns per run; __restrict__ makes them 800 ns: 1.25x */
    const json_t *sum = json_object_get(r.summary, "summary");
    assert_true(fabs(json_number_value(json_object_get(sum, "baseline_ms")) - 0.003) < 1e-9);
    double sp = json_number_value(json_object_get(sum, "speedup"));
    if (!(fabs(sp - 1.25) < 1e-6))
        fail_msg("speedup %g, want 1.25", sp);
    assert_true(fabs(json_number_value(json_object_get(sum, "best_ms")) - 0.0024) < 1e-9);
    assert_non_null(strstr(json_string_value(json_object_get(sum, "produced_by")), "restrict"));
    assert_true(s.verified >= 1);
    assert_true(s.skipped >= 1); /* launch bounds and such: not the command form's */
    assert_int_equal(access(r.report_md, R_OK), 0);
    /* the report says plainly who decided "correct" (issue 12: command-form reports are
     * marked "checked by your program"), and what the command form cannot guarantee */
    char *md = NULL;
    size_t md_len = 0;
    assert_int_equal(hk_read_file(r.report_md, (size_t)4 << 20, &md, &md_len), HK_OK);
    if (!strstr(md, "Correctness") || !strstr(md, "checked by your program") ||
        !strstr(md, "nonce") || strstr(md, "checked by the harness"))
        fail_msg("the command form's report does not say who checked it:\n%s", md);
    hk_free(md);

    store *st = NULL;
    assert_int_equal(store_open(db, &st), HK_OK);
    store_episode e;
    assert_int_equal(store_episode_get(st, r.episode_id, &e), HK_OK);
    assert_int_equal(e.status, STORE_EP_COMPLETED);
    assert_true(e.best_version_id > 0);
    store_measurement *ms = NULL;
    size_t n = 0;
    assert_int_equal(store_measurement_list(st, e.best_version_id, r.episode_id, &ms, &n), HK_OK);
    bool verify = false;
    for (size_t i = 0; i < n; i++)
        if (ms[i].kind == STORE_M_VERIFY) {
            verify = true;
            assert_int_equal(ms[i].reps, 5);
            assert_non_null(strstr(ms[i].raw_json, "\"cupti\""));
        }
    assert_true(verify);
    store_measurements_free(ms, n);
    /* the stored best is the whole file text with __restrict__ */
    store_version v;
    assert_int_equal(store_version_get(st, e.best_version_id, &v), HK_OK);
    assert_non_null(strstr(v.source, "__restrict__"));
    assert_non_null(strstr(v.source, "int main"));
    store_version_clear(&v);
    store_episode_clear(&e);
    store_close(st);
    ep_result_clear(&r);
}

/* Without --allow-no-floor the same episode measures the faster __restrict__ version but
 * credits nothing: no verified version, no best, and the summary says why. */
static void test_command_form_no_floor(void **state)
{
    (void)state;
    if (!ready)
        skip();
    char spec_path[400], db[400];
    snprintf(spec_path, sizeof spec_path, "%s/saxpy.nofloor.bench.json", dir);
    snprintf(db, sizeof db, "%s/nofloor.db", dir);
    write_spec(spec_path, HK_TEST_DATA "/cmdform/project");
    cmdform_options co = {.runs = 3, .cupti_lib = lib, .isolation = RUNNER_ISO_NONE};
    seen s = {0};
    ep_options o = options(HK_TEST_DATA "/cmdform/project/saxpy.cu", spec_path, db, &s, &co);
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    if (r.status != STORE_EP_COMPLETED)
        fail_msg("episode ended %s: %s", store_episode_status_name(r.status),
                 r.error ? r.error : "");
    assert_int_equal(s.verified, 0);
    const json_t *sum = json_object_get(r.summary, "summary");
    assert_true(json_is_null(json_object_get(sum, "best_version")));
    assert_true(json_integer_value(json_object_get(sum, "not_credited")) >= 1);
    const json_t *nb = json_object_get(sum, "not_credited_best");
    assert_true(fabs(json_number_value(json_object_get(nb, "speedup")) - 1.25) < 1e-6);
    assert_non_null(strstr(json_string_value(json_object_get(nb, "why")), "command-form"));
    ep_result_clear(&r);
}

/* The program's own FAIL output rejects: here the original itself fails, so the episode
 * fails with the command form's reason and runs nothing more. */
static void test_command_form_baseline_fails(void **state)
{
    (void)state;
    if (!ready)
        skip();
    char proj[400], spec_path[400], db[400], cmd[1200];
    snprintf(proj, sizeof proj, "%s/wrong-project", dir);
    snprintf(cmd, sizeof cmd, "cp -r %s/cmdform/project %s && echo '// HK_WRONG' >> %s/saxpy.cu",
             HK_TEST_DATA, proj, proj);
    assert_int_equal(system(cmd), 0);
    snprintf(spec_path, sizeof spec_path, "%s/wrong.bench.json", dir);
    snprintf(db, sizeof db, "%s/wrong.db", dir);
    write_spec(spec_path, proj);
    char file[500];
    snprintf(file, sizeof file, "%s/saxpy.cu", proj);
    cmdform_options co = {.runs = 2, .cupti_lib = lib, .isolation = RUNNER_ISO_NONE};
    seen s = {0};
    ep_options o = options(file, spec_path, db, &s, &co);
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    assert_int_equal(r.status, STORE_EP_FAILED);
    assert_non_null(r.error);
    if (!strstr(r.error, "fail_output"))
        fail_msg("error: %s", r.error);
    assert_int_equal(s.n_stage >= 2, 1);
    ep_result_clear(&r);
}

/* Issue 12: a version an earlier episode accepted with a host line changed (here the
 * program's iteration count) is no start for the command form: the episode says why and
 * starts from the original. */
static void test_command_form_start_outside_kernel(void **state)
{
    (void)state;
    if (!ready)
        skip();
    char spec_path[400], db[400];
    const char *project = HK_TEST_DATA "/cmdform/project";
    snprintf(spec_path, sizeof spec_path, "%s/start.cmd.bench.json", dir);
    snprintf(db, sizeof db, "%s/start.db", dir);
    write_spec(spec_path, project);
    cmdform_options co = {.runs = 2, .cupti_lib = lib, .isolation = RUNNER_ISO_NONE};
    seen s = {0};
    ep_options o = options(HK_TEST_DATA "/cmdform/project/saxpy.cu", spec_path, db, &s, &co);
    o.budget = 2;
    o.measure.allow_no_floor = true; /* no floor in the command form: credit it anyway */
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    assert_int_equal(r.status, STORE_EP_COMPLETED);
    store *st = NULL;
    assert_int_equal(store_open(db, &st), HK_OK);
    store_episode e;
    assert_int_equal(store_episode_get(st, r.episode_id, &e), HK_OK);
    int64_t best = e.best_version_id;
    assert_true(best > 0);
    store_episode_clear(&e);
    store_close(st);
    ep_result_clear(&r);
    /* the best version as an engine without the check would have kept it */
    sqlite3 *q = NULL;
    assert_int_equal(sqlite3_open(db, &q), SQLITE_OK);
    char sql[300];
    snprintf(sql, sizeof sql, "UPDATE versions SET source = replace(source, 'atoi(argv[2]) : 10;', "
             "'atoi(argv[2]) : 1;') WHERE id = %lld", (long long)best);
    assert_int_equal(sqlite3_exec(q, sql, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_changes(q), 1);
    sqlite3_close(q);

    memset(&s, 0, sizeof s);
    assert_int_equal(ep_run(&o, &r), HK_OK);
    assert_int_equal(r.status, STORE_EP_COMPLETED);
    assert_int_equal(s.no_start, 1);
    assert_int_equal(store_open(db, &st), HK_OK);
    assert_int_equal(store_episode_get(st, r.episode_id, &e), HK_OK);
    json_t *info = json_loads(e.info_json, 0, NULL);
    assert_non_null(info);
    assert_string_equal(json_string_value(json_object_get(info, "started_from")), "original");
    json_decref(info);
    store_episode_clear(&e);
    store_close(st);
    ep_result_clear(&r);
}

/* Every event of an episode (copies). */
static void keep_event(const json_t *ev, void *data)
{
    json_array_append_new((json_t *)data, json_deep_copy(ev));
}

static const char *str(const json_t *ev, const char *key)
{
    const char *v = json_string_value(json_object_get(ev, key));
    return v ? v : "(none)";
}

/* The command form's verify stage drops a best that the program fails when it runs again
 * there (its search runs passed: $FAKE_CMD_FAIL_FROM, from its 4th run on) and looks for the
 * next fastest accepted version (cmd_next_best). The builtin search has one text rewrite
 * for this saxpy (__restrict__; the launch bounds are the command form's own), so none is
 * left: no best, and the episode info's "verify" and the log say what was dropped and why.
 * Before, the info said nothing of it. */
static void test_command_form_verify_fallback(void **state)
{
    (void)state;
    if (!ready)
        skip();
    char spec_path[400], db[400], st_dir[400];
    const char *project = HK_TEST_DATA "/cmdform/project";
    snprintf(spec_path, sizeof spec_path, "%s/fallback.cmd.bench.json", dir);
    snprintf(db, sizeof db, "%s/fallback.db", dir);
    snprintf(st_dir, sizeof st_dir, "%s/fallback-state", dir);
    assert_int_equal(mkdir(st_dir, 0700), 0);
    write_spec(spec_path, project);
    cmdform_options co = {.runs = 3, .cupti_lib = lib, .isolation = RUNNER_ISO_NONE};
    seen s = {0};
    ep_options o = options(HK_TEST_DATA "/cmdform/project/saxpy.cu", spec_path, db, &s, &co);
    o.measure.allow_no_floor = true;
    json_t *events = json_array();
    o.on_event = keep_event;
    o.event_data = events;
    setenv("FAKE_CMD_STATE", st_dir, 1);
    setenv("FAKE_CMD_FAIL_FROM", "__restrict__:4", 1);
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    unsetenv("FAKE_CMD_STATE");
    unsetenv("FAKE_CMD_FAIL_FROM");
    assert_int_equal(r.status, STORE_EP_COMPLETED);
    /* v1 passed the search's runs, was rejected on its interleaved runs, and said so */
    int verified = 0, rejected = 0;
    bool dropped_log = false, none_left = false;
    size_t i;
    const json_t *ev;
    json_array_foreach(events, i, ev) {
        const char *kind = str(ev, "event"), *stage = str(ev, "stage"), *m = str(ev, "message");
        if (!strcmp(kind, "version") && !strcmp(stage, "optimize"))
            verified += !strcmp(str(ev, "status"), "verified");
        if (!strcmp(kind, "version") && !strcmp(stage, "verify"))
            rejected += !strcmp(str(ev, "status"), "rejected") && strstr(m, "fail_output") != NULL;
        dropped_log |= !strcmp(stage, "verify") &&
                       strstr(m, "v1 dropped in verify (rejected on its interleaved runs: wrong_answer)");
        none_left |= !strcmp(stage, "verify") && strstr(m, "in place of v1: no best");
    }
    json_decref(events);
    assert_int_equal(verified, 1);
    assert_int_equal(rejected, 1);
    assert_true(dropped_log);
    assert_true(none_left);
    const json_t *sum = json_object_get(r.summary, "summary");
    assert_true(json_is_null(json_object_get(sum, "best_version")) ||
                !json_object_get(sum, "best_version"));
    store *st = NULL;
    assert_int_equal(store_open(db, &st), HK_OK);
    store_episode e;
    assert_int_equal(store_episode_get(st, r.episode_id, &e), HK_OK);
    json_t *info = json_loads(e.info_json ? e.info_json : "{}", 0, NULL);
    const json_t *vi = json_object_get(info, "verify");
    const json_t *d = json_array_get(json_object_get(vi, "dropped"), 0);
    if (!d || json_integer_value(json_object_get(d, "version")) != 1 ||
        strcmp(str(d, "reason"), "wrong_answer") || !json_is_null(json_object_get(vi, "version")))
        fail_msg("info.verify: %s", e.info_json ? e.info_json : "(none)");
    json_decref(info);
    store_episode_clear(&e);
    store_close(st);
    ep_result_clear(&r);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_command_form_episode),
        cmocka_unit_test(test_command_form_no_floor),
        cmocka_unit_test(test_command_form_baseline_fails),
        cmocka_unit_test(test_command_form_start_outside_kernel),
        cmocka_unit_test(test_command_form_verify_fallback),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
