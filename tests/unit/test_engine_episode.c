/* The episode with no GPU, end to end and for real: bench/kernels/saxpy.cu with its spec,
 * nvcc compiling the baseline and the candidates the builtin search proposes, the store
 * holding the versions with their ptxas resources, and the episode ending "failed" with
 * "no GPU found". Nothing is mocked (the GPU is simply absent, or declared absent with
 * EP_GPU_NONE on a machine that has one). Needs nvcc: skipped without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile/compile.h"
#include "core/hk.h"
#include "episode/episode.h"

typedef struct {
    int n_events, n_stage, n_version, n_done, last_percent;
    bool percent_fell, done_last;
    char stages[8][16];
} seen;

static void on_event(const json_t *ev, void *data)
{
    seen *s = data;
    const char *kind = json_string_value(json_object_get(ev, "event"));
    assert_non_null(kind);
    assert_non_null(json_string_value(json_object_get(ev, "message")));
    s->n_events++;
    s->done_last = !strcmp(kind, "done");
    json_t *p = json_object_get(ev, "percent");
    if (json_is_integer(p)) {
        if (json_integer_value(p) < s->last_percent)
            s->percent_fell = true;
        s->last_percent = (int)json_integer_value(p);
    }
    if (!strcmp(kind, "stage") && s->n_stage < 8)
        snprintf(s->stages[s->n_stage++], 16, "%s",
                 json_string_value(json_object_get(ev, "stage")));
    if (!strcmp(kind, "version"))
        s->n_version++;
    if (!strcmp(kind, "done"))
        s->n_done++;
}

static void test_no_gpu(void **state)
{
    (void)state;
    char *nvcc = NULL;
    if (cc_find_compiler(CC_NVIDIA, &nvcc) != HK_OK)
        skip();
    hk_free(nvcc);
    char dir[] = "/tmp/hk-test-episode-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char db[256], out[256];
    snprintf(db, sizeof db, "%s/history.db", dir);
    snprintf(out, sizeof out, "%s/reports", dir);
    seen s = {0};
    ep_options o = {
        .file = HK_SOURCE_DIR "/bench/kernels/saxpy.cu",
        .kernel = "saxpy",
        .spec_path = HK_TEST_DATA "/specs/saxpy.bench.json",
        .budget = 2,
        .seed = 7,
        .db_path = db,
        .out_dir = out,
        .jobs = 2,
        .gpu = EP_GPU_NONE,
        .on_event = on_event,
        .event_data = &s,
    };
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    assert_int_equal(r.status, STORE_EP_FAILED);
    assert_true(r.no_gpu);
    assert_non_null(r.error);
    assert_non_null(strstr(r.error, "no GPU found"));
    assert_non_null(r.report_html);
    assert_int_equal(access(r.report_html, R_OK), 0);
    assert_int_equal(access(r.report_md, R_OK), 0);
    assert_true(s.done_last);
    assert_int_equal(s.n_done, 1);
    assert_false(s.percent_fell);
    assert_string_equal(s.stages[0], "init");
    assert_string_equal(s.stages[1], "baseline");
    assert_string_equal(s.stages[2], "optimize");
    assert_string_equal(s.stages[3], "report");
    assert_int_equal(s.n_version, 2);
    /* the done event's summary */
    const json_t *sum = json_object_get(r.summary, "summary");
    assert_int_equal(json_integer_value(json_object_get(sum, "candidates")), 2);
    assert_int_equal(json_integer_value(json_object_get(sum, "not_measured")), 2);
    /* what was built, each version with its registers; the candidates' sources kept */
    const json_t *built = json_object_get(sum, "built");
    assert_int_equal(json_array_size(built), 3);
    for (size_t i = 0; i < 3; i++)
        assert_true(json_integer_value(json_object_get(json_array_get(built, i), "registers")) > 0);
    const char *kept = json_string_value(json_object_get(sum, "candidates_dir"));
    assert_non_null(kept);
    char kept_file[4096];
    snprintf(kept_file, sizeof kept_file, "%s/v1.cu", kept);
    assert_int_equal(access(kept_file, R_OK), 0);
    assert_string_equal(json_string_value(json_object_get(r.summary, "status")), "failed");

    /* the store: the episode, its baseline v0 and two compiled candidates with resources */
    store *st = NULL;
    assert_int_equal(store_open(db, &st), HK_OK);
    store_episode e;
    assert_int_equal(store_episode_get(st, r.episode_id, &e), HK_OK);
    assert_int_equal(e.status, STORE_EP_FAILED);
    assert_non_null(strstr(e.error, "no GPU found"));
    assert_string_equal(e.name, "saxpy sm_90");
    assert_string_equal(e.arch, "sm_90");
    assert_non_null(strstr(e.info_json, "\"isolation\""));
    assert_true(e.baseline_version_id > 0);
    assert_int_equal(e.best_version_id, 0);
    store_history_row *rows = NULL;
    size_t n = 0;
    assert_int_equal(store_episode_versions(st, r.episode_id, &rows, &n), HK_OK);
    assert_int_equal(n, 3);
    assert_int_equal(rows[0].version.number, 0);
    /* nothing measured: the original is built, not verified (issue 15) */
    assert_int_equal(rows[0].version.status, STORE_V_CANDIDATE);
    assert_false(rows[0].measured);
    assert_string_equal(store_version_status_label(rows[0].version.status, rows[0].measured),
                        "built, not measured");
    for (size_t i = 1; i < n; i++) {
        assert_int_equal(rows[i].version.status, STORE_V_CANDIDATE);
        assert_int_equal(rows[i].version.parent_id, e.baseline_version_id);
        assert_non_null(strstr(rows[i].version.launch_json, "\"registers\""));
        assert_non_null(strstr(rows[i].version.produced_by, "builtin: "));
        assert_false(rows[i].measured);
    }
    store_history_free(rows, n);
    store_evidence *ev = NULL;
    assert_int_equal(store_evidence_list(st, e.baseline_version_id, r.episode_id, &ev, &n), HK_OK);
    assert_int_equal(n, 1);
    assert_string_equal(ev[0].kind, "ptxas");
    assert_non_null(strstr(ev[0].json, "\"kernel\":\"saxpy\""));
    store_evidences_free(ev, n);
    store_stage *stg = NULL;
    assert_int_equal(store_episode_stages(st, r.episode_id, &stg, &n), HK_OK);
    assert_int_equal(n, 4);
    assert_string_equal(stg[1].stage, "baseline");
    store_stages_free(stg, n);
    store_episode_clear(&e);
    store_close(st);
    ep_result_clear(&r);

    /* bad input: no episode, a clear error */
    o.kernel = "no_such_kernel";
    assert_int_equal(ep_run(&o, &r), HK_ENOENT);
    assert_int_equal(r.episode_id, 0);
    assert_non_null(strstr(r.error, "no __global__ kernel named 'no_such_kernel'"));
    ep_result_clear(&r);
    o.kernel = "saxpy";
    o.spec_path = HK_TEST_DATA "/episode/broken.bench.json";
    assert_int_equal(ep_run(&o, &r), HK_EPARSE);
    ep_result_clear(&r);
    o.spec_path = HK_TEST_DATA "/specs/saxpy.bench.json";
    o.target = "dcu:sm_90";   /* DCU targets run (test_engine_episode_dcu); this one is wrong */
    assert_int_equal(ep_run(&o, &r), HK_EINVAL);
    assert_non_null(strstr(r.error, "expected nvidia, nvidia:sm_XX, dcu or dcu:gfxNNN"));
    ep_result_clear(&r);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_default_db(void **state)
{
    (void)state;
    char *p = NULL;
    setenv("HK_DB", "/x/h.db", 1);
    assert_int_equal(ep_default_db_path(&p), HK_OK);
    assert_string_equal(p, "/x/h.db");
    hk_free(p);
    unsetenv("HK_DB");
    setenv("XDG_DATA_HOME", "/d", 1);
    assert_int_equal(ep_default_db_path(&p), HK_OK);
    assert_string_equal(p, "/d/hyperkernel/history.db");
    hk_free(p);
    unsetenv("XDG_DATA_HOME");
    setenv("HOME", "/home/u", 1);
    assert_int_equal(ep_default_db_path(&p), HK_OK);
    assert_string_equal(p, "/home/u/.local/share/hyperkernel/history.db");
    hk_free(p);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_db),
        cmocka_unit_test(test_no_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
