/* The episode's GPU path on a machine without a GPU: everything is real (nvcc builds every
 * benchmark program, the runner runs them sandboxed, the oracle compares real output
 * files, the store and the report record it all) except the GPU itself. The mock sits at
 * the GPU boundary only: EP_GPU_SIMULATED gives a fixed device, and every program run goes
 * through measure.wrapper = tests/data/episode/fake_harness.c ("sim"), which answers in
 * the program's protocol instead of executing the CUDA binary (see that file for its
 * deterministic timing rules). Needs nvcc: skipped without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compile/compile.h"
#include "core/buf.h"
#include "core/hk.h"
#include "episode/episode.h"
#include "report/report.h"

static char dir[] = "/tmp/hk-test-episode-sim-XXXXXX";
static char sim[300];
static device_info dev;

static int setup(void **state)
{
    (void)state;
    char *nvcc = NULL;
    if (cc_find_compiler(CC_NVIDIA, &nvcc) != HK_OK)
        return 0; /* the tests skip */
    hk_free(nvcc);
    if (!mkdtemp(dir))
        return -1;
    snprintf(sim, sizeof sim, "%s/sim", dir);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cc -O1 -o %s %s/episode/fake_harness.c -lm", sim, HK_TEST_DATA);
    if (system(cmd) != 0)
        return -1;
    memset(&dev, 0, sizeof dev);
    dev.probe_version = DEVICE_PROBE_VERSION;
    snprintf(dev.name, sizeof dev.name, "Simulated GPU");
    snprintf(dev.uuid, sizeof dev.uuid, "GPU-00000000-0000-0000-0000-000000000000");
    snprintf(dev.arch, sizeof dev.arch, "sm_90");
    dev.cc_major = 9;
    dev.sm_count = 132;
    dev.copy_kernel_gbs = 3000;
    dev.memcpy_d2d_gbs = 2900;
    dev.fp32_tflops = 60;
    dev.tensor_bf16_tflops = -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

typedef struct {
    int verified, rejected, last_percent;
    bool percent_fell;
    long last_timed;       /* search id of the last candidate the optimize stage timed */
    int timed;
    bool timed_out_of_order;
    char stages[8][16];
    int n_stage;
    struct hk_buf log; /* the episode's log lines, printed when a check fails */
} seen;

static void on_event(const json_t *ev, void *data)
{
    seen *s = data;
    const char *kind = json_string_value(json_object_get(ev, "event"));
    if (!strcmp(kind, "log")) {
        const char *m = json_string_value(json_object_get(ev, "message"));
        if (getenv("SIM_LOG"))
            fprintf(stderr, "log: %s\n", m);
        if (s->log.max && hk_buf_printf(&s->log, "log: %s\n", m ? m : "") != HK_OK)
            s->log.max = 0; /* full: keep what there is */
    }
    json_t *p = json_object_get(ev, "percent");
    if (json_is_integer(p)) {
        if (json_integer_value(p) < s->last_percent)
            s->percent_fell = true;
        s->last_percent = (int)json_integer_value(p);
    }
    if (!strcmp(kind, "stage") && s->n_stage < 8)
        snprintf(s->stages[s->n_stage++], 16, "%s",
                 json_string_value(json_object_get(ev, "stage")));
    if (!strcmp(kind, "version")) {
        const char *st = json_string_value(json_object_get(ev, "status"));
        s->verified += !strcmp(st, "verified");
        s->rejected += !strcmp(st, "rejected");
        /* candidates are timed in the order the search proposed them (its skills first),
         * not in the order their builds end: a launch-only change needs no build */
        const char *why = json_string_value(json_object_get(ev, "reason"));
        json_t *sid = json_object_get(json_object_get(ev, "launch"), "search_id");
        bool timed = (!strcmp(st, "verified") || !strcmp(st, "rejected")) &&
                     !(why && (!strcmp(why, "compile_error") || !strcmp(why, "harness_error")));
        if (timed && json_is_integer(sid) &&
            !strcmp(json_string_value(json_object_get(ev, "stage")), "optimize")) {
            if (s->timed && json_integer_value(sid) < s->last_timed)
                s->timed_out_of_order = true;
            s->last_timed = (long)json_integer_value(sid);
            s->timed++;
        }
    }
}

/* A failed check prints the episode's own log first: a failure seen once in CI (a timing
 * or load dependent one) must be diagnosable from the CI output alone. */
#define fail_with_log(s, ...)                                                           \
    do {                                                                                \
        fprintf(stderr, "%s", (s)->log.data ? (s)->log.data : "(no log)\n");           \
        fail_msg(__VA_ARGS__);                                                          \
    } while (0)

static ep_options options(const char *db, seen *s, const char *const *wrapper)
{
    ep_options o = {
        .file = HK_SOURCE_DIR "/bench/kernels/saxpy.cu",
        .kernel = "saxpy",
        .spec_path = HK_TEST_DATA "/episode/tiny.bench.json",
        .budget = 5,
        .seed = 3,
        .db_path = db,
        .jobs = 2,
        .gpu = EP_GPU_SIMULATED,
        .sim_device = &dev,
        .on_event = on_event,
        .event_data = s,
    };
    o.measure.wrapper = wrapper;
    o.measure.isolation = getenv("SIM_ISO_NONE") ? RUNNER_ISO_NONE : RUNNER_ISO_AUTO;
    return o;
}

static void test_simulated_episode(void **state)
{
    (void)state;
    if (!sim[0])
        skip();
    char db[400];
    snprintf(db, sizeof db, "%s/history.db", dir);
    const char *wrapper[] = {sim, NULL};
    seen s = {0};
    hk_buf_init(&s.log, 1u << 20);
    ep_options o = options(db, &s, wrapper);
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    if (r.status != STORE_EP_COMPLETED)
        fail_with_log(&s, "episode ended %s: %s", store_episode_status_name(r.status),
                 r.error ? r.error : "");
    assert_false(s.percent_fell);
    assert_true(s.timed >= 2);
    assert_false(s.timed_out_of_order);
    const char *want[] = {"init", "baseline", "optimize", "accuracy", "verify", "report"};
    assert_int_equal(s.n_stage, 6);
    for (int i = 0; i < 6; i++)
        assert_string_equal(s.stages[i], want[i]);
    assert_true(s.verified >= 1);

    /* the simulator makes __restrict__ 1.25x faster and float4 accesses 1.43x (the
     * vectorize skill's rewrite): the search must find a faster version, the
     * interleaved verify must confirm it, and the report must say so */
    const json_t *sum = json_object_get(r.summary, "summary");
    double sp = json_number_value(json_object_get(sum, "speedup"));
    assert_true(sp > 1.1 && sp < 2.5);
    assert_true(json_number_value(json_object_get(sum, "speedup_p10")) <= sp + 1e-9);
    assert_non_null(strstr(json_string_value(json_object_get(sum, "produced_by")), "builtin"));
    assert_true(json_number_value(json_object_get(sum, "max_abs_err")) == 0);
    assert_true(json_number_value(json_object_get(sum, "roofline_pct")) > 0);
    assert_int_equal(access(r.report_html, R_OK), 0);

    store *st = NULL;
    assert_int_equal(store_open(db, &st), HK_OK);
    store_episode e;
    assert_int_equal(store_episode_get(st, r.episode_id, &e), HK_OK);
    assert_int_equal(e.status, STORE_EP_COMPLETED);
    assert_string_equal(e.device, "Simulated GPU");
    assert_true(e.best_version_id > 0);
    /* engine v2: the skills that fit saxpy were planned (the class comes from the spec's
     * intensity on a simulated GPU: its times are not physical) and each one tried has
     * its record */
    json_t *info = json_loads(e.info_json, 0, NULL);
    assert_non_null(info);
    json_t *skills = json_object_get(info, "skills");
    assert_true(json_array_size(skills) >= 1);
    bool vec = false;
    for (size_t i = 0; i < json_array_size(skills); i++)
        vec |= !strcmp(json_string_value(json_array_get(skills, i)), "sm90-vectorize-128bit");
    assert_true(vec);
    assert_string_equal(json_string_value(json_object_get(info, "bottleneck")),
                        "memory-bound (spec: 0.17 FLOP/byte; not measured)");
    const char *axes = json_string_value(json_object_get(info, "search_axes"));
    if (!axes || !strstr(axes, "structural: ") ||
        !strstr(axes, "vectorize width=4 (skill sm90-vectorize-128bit)"))
        fail_with_log(&s, "no structural vectorize axis: %s", axes ? axes : "(none)");
    /* every skill that fit is listed with whether its rewrite applied (saxpy: all do) */
    json_t *tried = json_object_get(info, "skills_tried");
    assert_int_equal(json_array_size(tried), json_array_size(skills));
    bool vec_applied = false;
    for (size_t i = 0; i < json_array_size(tried); i++) {
        const json_t *t = json_array_get(tried, i);
        assert_string_equal(json_string_value(json_object_get(t, "skill")),
                            json_string_value(json_array_get(skills, i)));
        assert_non_null(json_string_value(json_object_get(t, "rewrite")));
        if (!strcmp(json_string_value(json_object_get(t, "skill")), "sm90-vectorize-128bit"))
            vec_applied = json_is_true(json_object_get(t, "applied"));
    }
    if (!vec_applied) {
        char *dump = json_dumps(tried, JSON_COMPACT);
        fail_with_log(&s, "the vectorize skill's rewrite did not apply: %s", dump ? dump : "");
    }
    store_skill_stat *sst = NULL;
    size_t nst = 0;
    assert_int_equal(store_skill_stats(st, "sm_90", &sst, &nst), HK_OK);
    bool recorded = false;
    for (size_t i = 0; i < nst; i++) {
        recorded |= !strcmp(sst[i].skill_id, "sm90-vectorize-128bit") && sst[i].tried >= 1;
        /* help is a gain beyond one timed run's noise (episode.c SKILL_HELPED_MIN) */
        if (sst[i].helped > 0 && !(sst[i].best_speedup >= 1.03))
            fail_with_log(&s, "%s counted as helping at %.3fx", sst[i].skill_id, sst[i].best_speedup);
    }
    if (!recorded) {
        char got[1024] = "";
        for (size_t i = 0; i < nst; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), " %s:%lld/%lld",
                     sst[i].skill_id, (long long)sst[i].helped, (long long)sst[i].tried);
        fail_with_log(&s, "no record of sm90-vectorize-128bit; records:%s; axes: %s", got, axes);
    }
    store_skill_stats_free(sst, nst);
    json_decref(info);
    int64_t first_best = e.best_version_id, baseline = e.baseline_version_id;
    assert_int_not_equal(first_best, baseline);
    /* verify measurements for baseline and best, interleaved pairs */
    store_measurement *ms = NULL;
    size_t n = 0;
    assert_int_equal(store_measurement_list(st, first_best, r.episode_id, &ms, &n), HK_OK);
    bool has_verify = false;
    for (size_t i = 0; i < n; i++)
        if (ms[i].kind == STORE_M_VERIFY) {
            has_verify = true;
            assert_int_equal(ms[i].reps, 5);
            assert_non_null(strstr(ms[i].raw_json, "\"samples\""));
            assert_true(ms[i].bytes_per_s > 0);
        }
    assert_true(has_verify);
    store_measurements_free(ms, n);
    store_evidence *ev = NULL;
    assert_int_equal(store_evidence_list(st, first_best, r.episode_id, &ev, &n), HK_OK);
    bool has_roof = false, has_ptxas = false;
    for (size_t i = 0; i < n; i++) {
        has_roof |= !strcmp(ev[i].kind, "roofline");
        has_ptxas |= !strcmp(ev[i].kind, "ptxas");
    }
    if (!(has_roof && has_ptxas)) {
        char kinds[512] = "";
        for (size_t i = 0; i < n; i++)
            snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), " %s", ev[i].kind);
        fail_with_log(&s, "best v%lld lacks roofline or ptxas evidence; has:%s", (long long)first_best,
                 kinds);
    }
    store_evidences_free(ev, n);
    /* the simulator answers wrongly with block 128: that candidate (the search's first
     * block change) must be rejected as a wrong answer with its error */
    store_history_row *rows = NULL;
    assert_int_equal(store_episode_versions(st, r.episode_id, &rows, &n), HK_OK);
    int wrong = 0, verified = 0;
    for (size_t i = 0; i < n; i++) {
        const store_version *v = &rows[i].version;
        verified += v->status == STORE_V_VERIFIED && v->id != baseline;
        if (v->id == baseline) {
            /* the baseline records the spec's block: applying compares launches with it */
            assert_non_null(v->launch_json);
            assert_non_null(strstr(v->launch_json, "\"block\":[256,1,1]"));
            assert_non_null(strstr(v->launch_json, "\"grid_mode\":\"spec\""));
        }
        if (!v->launch_json || !strstr(v->launch_json, "\"block\":[128,"))
            continue;
        assert_int_equal(v->status, STORE_V_REJECTED);
        assert_string_equal(v->reject_reason, "wrong_answer");
        assert_non_null(strstr(v->reject_details, "max abs error"));
        assert_true(fabs(v->max_abs_err - 1.0) < 1e-3);
        wrong++;
    }
    store_history_free(rows, n);
    assert_int_equal(wrong, 1);
    assert_int_equal(s.rejected, 1);
    assert_int_equal(verified, s.verified);
    store_episode_clear(&e);
    ep_result_clear(&r);
    hk_buf_free(&s.log);

    store_close(st);
}

typedef struct {
    double t_optimize, t_spent;
    const char *stop_file; /* made when the budget is spent: the timed runs stop sleeping */
} budget_seen;

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A saxpy that also reads x backwards through an offset pointer (line 5): the vectorize
 * skill fits its code, but the rewrite cannot follow *(x + ...) (a read-only pointer read at
 * another index, x[n - 1 - i], is a per-lane load since s15-vecgather). The episode info,
 * the log and the Markdown report say so, with the construct and its line. */
static void test_refusal_in_report(void **state)
{
    (void)state;
    if (!sim[0])
        skip();
    char db[400], src[400];
    snprintf(db, sizeof db, "%s/refusal.db", dir);
    snprintf(src, sizeof src, "%s/saxpy_rev.cu", dir);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    fputs("__global__ void saxpy(int n, float a, const float *x, float *y)\n"
          "{\n"
          "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "    if (i < n)\n"
          "        y[i] = a * x[i] + y[i] + 0.5f * *(x + (n - 1 - i));\n"
          "}\n", f);
    fclose(f);
    const char *wrapper[] = {sim, NULL};
    seen s = {0};
    ep_options o = options(db, &s, wrapper);
    o.file = src;
    o.budget = 2;
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    store *st = NULL;
    assert_int_equal(store_open(db, &st), HK_OK);
    store_episode e;
    assert_int_equal(store_episode_get(st, r.episode_id, &e), HK_OK);
    json_t *info = json_loads(e.info_json, 0, NULL);
    assert_non_null(info);
    json_t *tried = json_object_get(info, "skills_tried");
    const json_t *refused = NULL;
    for (size_t i = 0; i < json_array_size(tried) && !refused; i++) {
        const json_t *t = json_array_get(tried, i);
        if (json_is_false(json_object_get(t, "applied")))
            refused = t;
    }
    if (!refused) {
        char *dump = json_dumps(tried, JSON_COMPACT);
        fail_msg("no fitting skill refused: %s", dump ? dump : "(no skills_tried)");
    }
    json_int_t line = json_integer_value(json_object_get(refused, "line"));
    const char *reason = json_string_value(json_object_get(refused, "reason"));
    const char *construct = json_string_value(json_object_get(refused, "construct"));
    assert_true(line >= 1 && line <= 6 && reason && construct && construct[0]);
    char at[96];
    snprintf(at, sizeof at, "%s at line %lld", construct, (long long)line);
    if (!strstr(reason, at))
        fail_msg("the refusal does not name its construct and line: %s", reason);
    struct hk_buf md;
    hk_buf_init(&md, 1 << 16);
    assert_int_equal(report_render_markdown(st, r.episode_id, &md), HK_OK);
    const char *section = strstr(md.data, "## Skills tried");
    assert_non_null(section);
    assert_non_null(strstr(section, json_string_value(json_object_get(refused, "skill"))));
    snprintf(at, sizeof at, "at line %lld", (long long)line);
    assert_non_null(strstr(section, at));
    assert_non_null(strstr(section, "| no |"));
    hk_buf_free(&md);
    json_decref(info);
    store_episode_clear(&e);
    store_close(st);
    ep_result_clear(&r);
}

static void on_budget_event(const json_t *ev, void *data)
{
    budget_seen *b = data;
    const char *kind = json_string_value(json_object_get(ev, "event"));
    const char *stage = json_string_value(json_object_get(ev, "stage"));
    const char *msg = json_string_value(json_object_get(ev, "message"));
    if (!strcmp(kind, "stage") && stage && !strcmp(stage, "optimize"))
        b->t_optimize = mono_s();
    if (!strcmp(kind, "log") && msg && strstr(msg, "time budget") && b->t_spent == 0) {
        b->t_spent = mono_s();
        /* what the test checks is over: the final checks of the best candidate need not
         * sleep 3 s a timed run too (about 30 s of this test's wall, in both passes) */
        FILE *f = b->stop_file ? fopen(b->stop_file, "w") : NULL;
        if (f)
            fclose(f);
    }
}

/* --minutes counts from the start of the optimize stage: init and a slow baseline (its
 * builds, and every timed run sleeping) take longer than the whole budget, yet the search
 * still gets its minutes. The quick check runs one program per size, in the scratch
 * directory (HK_SCRATCH_DIR here), which is gone afterwards. */
static void test_budget_from_optimize_and_scratch(void **state)
{
    (void)state;
    if (!sim[0])
        skip();
    char db[400], scratch[400], cwdlog[400];
    snprintf(db, sizeof db, "%s/budget.db", dir);
    snprintf(scratch, sizeof scratch, "%s/scratch", dir);
    snprintf(cwdlog, sizeof cwdlog, "%s/cwd.log", dir);
    assert_int_equal(mkdir(scratch, 0777), 0);
    setenv("HK_SCRATCH_DIR", scratch, 1);
    setenv("FAKE_CWD_LOG", cwdlog, 1);
    char stop[400];
    snprintf(stop, sizeof stop, "%s/budget-spent", dir);
    setenv("FAKE_SLOW_MS", "3000", 1); /* two timed baseline runs: 6 s */
    setenv("FAKE_SLOW_STOP_FILE", stop, 1);
    const char *wrapper[] = {sim, NULL};
    seen s = {0};
    budget_seen b = {0, 0, stop};
    ep_options o = options(db, &s, wrapper);
    o.on_event = on_budget_event;
    o.event_data = &b;
    o.budget = 50;
    o.minutes = 0.1; /* 6 s: less than the baseline stage takes here */
    o.measure.quick_check = true;
    double t0 = mono_s();
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    unsetenv("FAKE_SLOW_MS");
    unsetenv("FAKE_SLOW_STOP_FILE");
    unsetenv("FAKE_CWD_LOG");
    unsetenv("HK_SCRATCH_DIR");
    assert_true(b.t_optimize > 0 && b.t_spent > 0);
    double before = b.t_optimize - t0, search = b.t_spent - b.t_optimize;
    fprintf(stderr, "init + baseline %.1f s, search %.1f s of a 6 s budget\n", before, search);
    assert_true(before > 6.0); /* counted from the episode's start, nothing would be left */
    assert_true(search >= 5.9);
    /* the baseline's run-mode programs: one per size (the quick set: 10 + 2 combinations),
     * and as many of its fp64 shadow (the accuracy rule's reference), all in the scratch
     * directory */
    FILE *f = fopen(cwdlog, "r");
    assert_non_null(f);
    char line[1024];
    int runs = 0, in_scratch = 0, total = 0;
    bool baseline_done = false;
    while (fgets(line, sizeof line, f)) {
        total++;
        in_scratch += strstr(line, scratch) != NULL;
        if (!strncmp(line, "time ", 5))
            baseline_done = true;
        if (!baseline_done && !strncmp(line, "run ", 4))
            runs++;
    }
    fclose(f);
    assert_int_equal(runs, 4);
    assert_true(total > 4);
    assert_int_equal(in_scratch, total);
    /* nothing is left in the scratch directory */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", scratch);
    assert_int_equal(system(cmd), 0);
    ep_result_clear(&r);
}

typedef struct {
    int not_credited, verified;
    bool warned;
} credit_seen;

static void on_credit_event(const json_t *ev, void *data)
{
    credit_seen *c = data;
    const char *kind = json_string_value(json_object_get(ev, "event"));
    const char *msg = json_string_value(json_object_get(ev, "message"));
    if (!strcmp(kind, "log") && msg && strstr(msg, "no physical floor"))
        c->warned = true;
    if (strcmp(kind, "version") != 0)
        return;
    const char *st = json_string_value(json_object_get(ev, "status"));
    const char *why = json_string_value(json_object_get(ev, "reason"));
    c->verified += !strcmp(st, "verified") &&
                   strcmp(json_string_value(json_object_get(ev, "stage")), "baseline") != 0;
    c->not_credited += why && !strcmp(why, "not_credited");
}

/* Peaks unknown (a probe that failed): the candidates are judged and timed, but none is
 * verified, made the best or offered to apply, and the summary says why; with
 * --allow-no-floor the same episode credits its best. */
static void test_no_floor_not_credited(void **state)
{
    (void)state;
    if (!sim[0])
        skip();
    device_info no_peaks = dev;
    no_peaks.copy_kernel_gbs = no_peaks.memcpy_d2d_gbs = no_peaks.fp32_tflops = 0;
    const char *wrapper[] = {sim, NULL};
    for (int allow = 0; allow < 2; allow++) {
        char db[400];
        snprintf(db, sizeof db, "%s/nofloor-%d.db", dir, allow);
        seen s = {0};
        credit_seen cs = {0, 0, false};
        ep_options o = options(db, &s, wrapper);
        o.sim_device = &no_peaks;
        o.budget = 3;
        o.on_event = on_credit_event;
        o.event_data = &cs;
        o.measure.allow_no_floor = allow;
        o.measure.quick_check = true;
        ep_result r;
        assert_int_equal(ep_run(&o, &r), HK_OK);
        if (r.status != STORE_EP_COMPLETED)
            fail_msg("episode ended %s: %s", store_episode_status_name(r.status),
                     r.error ? r.error : "");
        assert_true(cs.warned);
        const json_t *sum = json_object_get(r.summary, "summary");
        store *st = NULL;
        assert_int_equal(store_open(db, &st), HK_OK);
        store_episode e;
        assert_int_equal(store_episode_get(st, r.episode_id, &e), HK_OK);
        json_t *info = json_loads(e.info_json, 0, NULL);
        assert_false(json_is_true(json_object_get(json_object_get(info, "floor"), "available")));
        if (!allow) {
            assert_true(cs.not_credited >= 1);
            assert_int_equal(cs.verified, 0);
            assert_true(json_is_null(json_object_get(sum, "best_version")));
            assert_true(json_integer_value(json_object_get(sum, "not_credited")) >= 1);
            const json_t *nb = json_object_get(sum, "not_credited_best");
            assert_true(json_number_value(json_object_get(nb, "speedup")) > 1.1);
            assert_non_null(strstr(json_string_value(json_object_get(nb, "why")),
                                   "peaks are unknown"));
            assert_non_null(json_object_get(info, "not_credited"));
            assert_true(e.best_version_id == 0 || e.best_version_id == e.baseline_version_id);
            /* no version but the baseline is verified: nothing to apply or start from */
            store_history_row *rows = NULL;
            size_t n = 0;
            assert_int_equal(store_episode_versions(st, r.episode_id, &rows, &n), HK_OK);
            for (size_t i = 0; i < n; i++)
                if (rows[i].version.id != e.baseline_version_id)
                    assert_int_not_equal(rows[i].version.status, STORE_V_VERIFIED);
            store_history_free(rows, n);
        } else {
            assert_int_equal(cs.not_credited, 0);
            assert_true(cs.verified >= 1);
            assert_true(json_number_value(json_object_get(sum, "speedup")) > 1.1);
            assert_true(e.best_version_id > 0 && e.best_version_id != e.baseline_version_id);
        }
        json_decref(info);
        store_episode_clear(&e);
        store_close(st);
        ep_result_clear(&r);
    }
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simulated_episode),
        cmocka_unit_test(test_refusal_in_report),
        cmocka_unit_test(test_budget_from_optimize_and_scratch),
        cmocka_unit_test(test_no_floor_not_credited),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
