/* Episodes for DCU targets on a machine without an AMD/Hygon GPU, for real: ep_run with
 * "dcu:gfx906" builds bench/kernels/saxpy.cu's baseline with the real hipcc, then ends
 * quickly as failed/no-GPU with "no DCU GPU here", recorded in the store (backend dcu, the
 * hipcc resource remarks as the baseline's evidence) with a report. A source hipcc
 * refuses gives hipcc's error; verify-candidate judges a broken candidate for DCU as a
 * compile error; bad targets are refused; with the GPU simulated (CI only) the whole
 * pipeline runs on hipcc builds. The KFD topology reader is checked on a fake sysfs tree. Skipped with a message when hipcc is missing (the parser tests still run). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compile/compile.h"
#include "core/hk.h"
#include "measure/device.h"
#include "episode/episode.h"

#define SAXPY HK_SOURCE_DIR "/bench/kernels/saxpy.cu"
#define SAXPY_SPEC HK_TEST_DATA "/specs/saxpy.bench.json"

typedef struct {
    int n_stage, n_done;
    char stages[8][16];
    bool isa_logged, hipcc_logged, percent_fell;
    int last_percent;
} seen;

static void on_event(const json_t *ev, void *data)
{
    seen *s = data;
    const char *kind = json_string_value(json_object_get(ev, "event"));
    const char *msg = json_string_value(json_object_get(ev, "message"));
    assert_non_null(kind);
    assert_non_null(msg);
    json_t *p = json_object_get(ev, "percent");
    if (json_is_integer(p)) {
        if (json_integer_value(p) < s->last_percent)
            s->percent_fell = true;
        s->last_percent = (int)json_integer_value(p);
    }
    if (!strcmp(kind, "stage") && s->n_stage < 8)
        snprintf(s->stages[s->n_stage++], 16, "%s",
                 json_string_value(json_object_get(ev, "stage")));
    if (!strcmp(kind, "done"))
        s->n_done++;
    if (!strcmp(kind, "log") && strstr(msg, " ISA (gfx"))
        s->isa_logged = true;
    if (!strcmp(kind, "log") && !strncmp(msg, "hipcc: /", 8))
        s->hipcc_logged = true;
}

static char dir[] = "/tmp/hk-test-episode-dcu-XXXXXX";

/* Whether the AMD ISA tools the episode looks for are on PATH (Debian's versioned names). */
static bool have_isa_tools(void)
{
    return system("command -v llvm-objdump-15 >/dev/null 2>&1 || command -v llvm-objdump "
                  ">/dev/null 2>&1") == 0 &&
           system("command -v clang-offload-bundler-15 >/dev/null 2>&1 || command -v "
                  "clang-offload-bundler >/dev/null 2>&1") == 0;
}
static bool have_hipcc;

static int setup(void **state)
{
    (void)state;
    char *hipcc = NULL;
    have_hipcc = cc_find_compiler(CC_DCU, &hipcc) == HK_OK;
    hk_free(hipcc);
    if (!have_hipcc)
        fprintf(stderr, "skipped: hipcc not found (apt-get install hipcc libamdhip64-dev "
                        "rocm-device-libs)\n");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* No DCU here (or declared absent where one exists): the real gpu detection is used
 * unless /dev/kfd exists. */
static enum ep_gpu_mode no_dcu_mode(void)
{
    return access("/dev/kfd", F_OK) == 0 ? EP_GPU_NONE : EP_GPU_DETECT;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void test_no_dcu(void **state)
{
    (void)state;
    if (!have_hipcc)
        skip();
    char db[256], out[256];
    snprintf(db, sizeof db, "%s/history.db", dir);
    snprintf(out, sizeof out, "%s/reports", dir);
    seen s = { 0 };
    ep_options o = {
        .file = SAXPY,
        .kernel = "saxpy",
        .spec_path = SAXPY_SPEC,
        .target = "dcu:gfx906",
        .budget = 4,
        .seed = 7,
        .db_path = db,
        .out_dir = out,
        .jobs = 2,
        .gpu = no_dcu_mode(),
        .on_event = on_event,
        .event_data = &s,
    };
    ep_result r;
    double t0 = now_s();
    assert_int_equal(ep_run(&o, &r), HK_OK);
    double took = now_s() - t0;
    fprintf(stderr, "DCU episode without a DCU: %.1f s\n", took);
    /* one hipcc build of the baseline and nothing else: well under the compile timeout
     * even on a loaded two-core machine */
    assert_true(took < 170.0);
    assert_int_equal(r.status, STORE_EP_FAILED);
    assert_true(r.no_gpu);
    assert_non_null(r.error);
    assert_non_null(strstr(r.error, "no DCU GPU here"));
    if (o.gpu == EP_GPU_DETECT)
        assert_non_null(strstr(r.error, "no /dev/kfd"));
    assert_non_null(strstr(r.error, "built the baseline for gfx906 with hipcc"));
    assert_null(strstr(r.error, "nvidia"));
    assert_int_equal(access(r.report_html, R_OK), 0);
    assert_int_equal(access(r.report_md, R_OK), 0);
    assert_int_equal(s.n_done, 1);
    assert_false(s.percent_fell);
    assert_true(s.hipcc_logged);
    assert_true(s.isa_logged == have_isa_tools());
    /* init, baseline, then straight to the report: no optimize stage */
    assert_int_equal(s.n_stage, 3);
    assert_string_equal(s.stages[0], "init");
    assert_string_equal(s.stages[1], "baseline");
    assert_string_equal(s.stages[2], "report");
    assert_string_equal(json_string_value(json_object_get(r.summary, "status")), "failed");

    store *st = NULL;
    assert_int_equal(store_open(db, &st), HK_OK);
    store_episode e;
    assert_int_equal(store_episode_get(st, r.episode_id, &e), HK_OK);
    assert_int_equal(e.status, STORE_EP_FAILED);
    assert_non_null(strstr(e.error, "no DCU GPU here"));
    assert_string_equal(e.name, "saxpy gfx906");
    assert_string_equal(e.arch, "gfx906");
    assert_string_equal(e.backend, "dcu");
    assert_string_equal(e.target, "dcu:gfx906");
    assert_non_null(strstr(e.info_json, "\"backend\":\"dcu\""));
    assert_non_null(strstr(e.info_json, "hipcc"));
    assert_true(e.baseline_version_id > 0);
    /* the baseline's resources come from hipcc's kernel-resource-usage remarks; its
     * machine code from llvm-objdump (SASS is NVIDIA-only) */
    store_evidence *ev = NULL;
    size_t n = 0;
    assert_int_equal(store_evidence_list(st, e.baseline_version_id, r.episode_id, &ev, &n), HK_OK);
    assert_int_equal(n, have_isa_tools() ? 2 : 1);
    for (size_t i = 0; i < n; i++) {
        json_t *j = json_loads(ev[i].json, 0, NULL);
        assert_non_null(j);
        assert_string_equal(json_string_value(json_object_get(j, "kernel")), "saxpy");
        assert_string_equal(json_string_value(json_object_get(j, "arch")), "gfx906");
        if (!strcmp(ev[i].kind, "ptxas")) {
            assert_true(json_integer_value(json_object_get(j, "registers")) > 0);
        } else {
            assert_string_equal(ev[i].kind, "isa");
            assert_true(json_integer_value(json_object_get(j, "instructions")) > 5);
            json_t *k = json_object_get(j, "counts");
            /* saxpy loads x[i] and y[i] and stores y[i], one dword each, no scratch */
            assert_int_equal(json_integer_value(json_object_get(k, "global_load")), 2);
            assert_int_equal(json_integer_value(json_object_get(k, "global_store")), 1);
            assert_int_equal(json_integer_value(json_object_get(k, "global_load_dwordx4")), 0);
            assert_int_equal(json_integer_value(json_object_get(k, "scratch_")), 0);
        }
        json_decref(j);
    }
    store_evidences_free(ev, n);
    store_history_row *rows = NULL;
    assert_int_equal(store_episode_versions(st, r.episode_id, &rows, &n), HK_OK);
    assert_int_equal(n, 1); /* the baseline only: no candidates were built */
    store_history_free(rows, n);
    store_episode_clear(&e);
    store_close(st);
    ep_result_clear(&r);

    /* bare "dcu": gfx906 when no GPU names its arch */
    seen s2 = { 0 };
    o.target = "dcu";
    o.event_data = &s2;
    o.name = "bare dcu";
    assert_int_equal(ep_run(&o, &r), HK_OK);
    assert_int_equal(r.status, STORE_EP_FAILED);
    assert_true(r.no_gpu);
    assert_non_null(strstr(r.error, "built the baseline for gfx906"));
    ep_result_clear(&r);
}

/* A source hipcc refuses: the episode fails with hipcc's own error, not "no GPU". */
static void test_bad_source(void **state)
{
    (void)state;
    if (!have_hipcc)
        skip();
    char db[256];
    snprintf(db, sizeof db, "%s/bad.db", dir);
    seen s = { 0 };
    ep_options o = {
        .file = HK_TEST_DATA "/dcu/saxpy_broken.cu",
        .kernel = "saxpy",
        .spec_path = SAXPY_SPEC,
        .target = "dcu:gfx90a",
        .budget = 2,
        .db_path = db,
        .jobs = 2,
        .gpu = no_dcu_mode(),
        .on_event = on_event,
        .event_data = &s,
    };
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    assert_int_equal(r.status, STORE_EP_FAILED);
    assert_false(r.no_gpu);
    assert_non_null(r.error);
    assert_non_null(strstr(r.error, "does not build"));
    assert_non_null(strstr(r.error, "use of undeclared identifier 'yy'"));
    assert_non_null(strstr(r.error, "saxpy_broken.cu"));
    ep_result_clear(&r);
}

/* verify-candidate for DCU: both programs built by hipcc; the broken one is a compile
 * error with hipcc's message. */
static void test_verify_candidate(void **state)
{
    (void)state;
    if (!have_hipcc)
        skip();
    ep_verify_options vo = {
        .spec_path = SAXPY_SPEC,
        .candidate = HK_TEST_DATA "/dcu/saxpy_broken.cu",
        .target = "dcu:gfx906",
        .gpu = EP_GPU_NONE,
    };
    json_t *v = NULL;
    assert_int_equal(ep_verify_candidate(&vo, &v), HK_OK);
    assert_non_null(v);
    char *txt = json_dumps(v, JSON_COMPACT);
    fprintf(stderr, "verdict: %s\n", txt);
    free(txt);
    assert_false(json_is_true(json_object_get(v, "accepted")));
    assert_string_equal(json_string_value(json_object_get(v, "reason")), "compile_error");
    assert_non_null(strstr(json_string_value(json_object_get(v, "details")), "yy"));
    json_decref(v);
}

/* The whole DCU pipeline with the GPU simulated (CI only, as test_engine_episode_sim.c):
 * hipcc builds the baseline and every candidate the search proposes for gfx906 (flags
 * translated, rewrites included), the runner runs the simulator in the programs' place,
 * the oracle, verify, store and report are real. The simulator makes __restrict__ faster:
 * the search must find it through hipcc builds. */
static void test_simulated_dcu(void **state)
{
    (void)state;
    if (!have_hipcc)
        skip();
    char sim[400], cmd[1024], db[400];
    snprintf(sim, sizeof sim, "%s/sim", dir);
    snprintf(cmd, sizeof cmd, "cc -O1 -o %s %s/episode/fake_harness.c -lm", sim, HK_TEST_DATA);
    assert_int_equal(system(cmd), 0);
    snprintf(db, sizeof db, "%s/sim.db", dir);
    device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.probe_version = DEVICE_PROBE_VERSION;
    snprintf(dev.name, sizeof dev.name, "Simulated DCU");
    snprintf(dev.uuid, sizeof dev.uuid, "GPU-00000000000000ff");
    snprintf(dev.arch, sizeof dev.arch, "gfx906");
    dev.sm_count = 60;
    dev.warp_size = 64;
    dev.copy_kernel_gbs = 900;
    dev.memcpy_d2d_gbs = 850;
    dev.fp32_tflops = 13;
    dev.tensor_bf16_tflops = -1;
    const char *wrapper[] = { sim, NULL };
    seen s = { 0 };
    ep_options o = {
        .file = SAXPY,
        .kernel = "saxpy",
        .spec_path = HK_TEST_DATA "/episode/tiny.bench.json",
        .target = "dcu:gfx906",
        .budget = 5,
        .seed = 3,
        .db_path = db,
        .jobs = 2,
        .gpu = EP_GPU_SIMULATED,
        .sim_device = &dev,
        .on_event = on_event,
        .event_data = &s,
    };
    o.measure.wrapper = wrapper;
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    if (r.status != STORE_EP_COMPLETED)
        fail_msg("episode ended %s: %s", store_episode_status_name(r.status),
                 r.error ? r.error : "");
    const char *want[] = { "init", "baseline", "optimize", "accuracy", "verify", "report" };
    assert_int_equal(s.n_stage, 6);
    for (int i = 0; i < 6; i++)
        assert_string_equal(s.stages[i], want[i]);
    assert_true(s.hipcc_logged);
    const json_t *sum = json_object_get(r.summary, "summary");
    double sp = json_number_value(json_object_get(sum, "speedup"));
    fprintf(stderr, "simulated DCU: speedup %.3f by %s\n", sp,
            json_string_value(json_object_get(sum, "produced_by")));
    assert_true(sp > 1.1 && sp < 2.5);

    store *st = NULL;
    assert_int_equal(store_open(db, &st), HK_OK);
    store_episode e;
    assert_int_equal(store_episode_get(st, r.episode_id, &e), HK_OK);
    assert_string_equal(e.backend, "dcu");
    assert_string_equal(e.arch, "gfx906");
    assert_string_equal(e.device, "Simulated DCU");
    assert_true(e.best_version_id > 0);
    /* every version the search built was built by hipcc for gfx906: its resources say so */
    store_history_row *rows = NULL;
    size_t n = 0, with_res = 0;
    assert_int_equal(store_episode_versions(st, r.episode_id, &rows, &n), HK_OK);
    for (size_t i = 1; i < n; i++)
        if (rows[i].version.launch_json && strstr(rows[i].version.launch_json, "\"registers\"")) {
            assert_non_null(strstr(rows[i].version.launch_json, "gfx906"));
            with_res++;
        }
    assert_true(with_res >= 1);
    store_history_free(rows, n);
    store_episode_clear(&e);
    store_close(st);
    ep_result_clear(&r);
}

/* Targets: accepted forms and clear refusals (no episode is created). */
static void test_targets(void **state)
{
    (void)state;
    char db[256];
    snprintf(db, sizeof db, "%s/targets.db", dir);
    ep_options o = {
        .file = SAXPY,
        .kernel = "saxpy",
        .spec_path = SAXPY_SPEC,
        .db_path = db,
        .gpu = EP_GPU_NONE,
    };
    const char *bad[] = { "dcu:sm_90", "nvidia:gfx906", "rocm", "dcu:", "dcu:gfx 906" };
    for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
        ep_result r;
        o.target = bad[i];
        assert_int_equal(ep_run(&o, &r), HK_EINVAL);
        assert_int_equal(r.episode_id, 0);
        assert_non_null(r.error);
        assert_non_null(strstr(r.error, "expected nvidia, nvidia:sm_XX, dcu or dcu:gfxNNN"));
        ep_result_clear(&r);
    }
}

/* The KFD topology: node properties parsed, and detection over a fake sysfs tree. */
static void test_kfd(void **state)
{
    (void)state;
    bool gpu = true;
    char arch[32], uuid[64];
    int cus = -1;
    assert_int_equal(device_parse_kfd_node("cpu_cores_count 16\nsimd_count 0\n"
                                           "gfx_target_version 0\n",
                                           &gpu, arch, sizeof arch, &cus, uuid, sizeof uuid),
                     HK_OK);
    assert_false(gpu);
    assert_int_equal(device_parse_kfd_node("simd_count 240\nsimd_per_cu 4\n"
                                           "gfx_target_version 90006\nunique_id 255\n",
                                           &gpu, arch, sizeof arch, &cus, uuid, sizeof uuid),
                     HK_OK);
    assert_true(gpu);
    assert_string_equal(arch, "gfx906");
    assert_int_equal(cus, 60);
    assert_string_equal(uuid, "GPU-00000000000000ff");
    assert_int_equal(device_parse_kfd_node("gfx_target_version 90010\n", &gpu, arch,
                                           sizeof arch, &cus, uuid, sizeof uuid),
                     HK_OK);
    assert_string_equal(arch, "gfx90a");
    assert_int_equal(cus, 0);
    assert_string_equal(uuid, "");
    assert_int_equal(device_parse_kfd_node("gfx_target_version 90208", &gpu, arch, sizeof arch,
                                           &cus, uuid, sizeof uuid),
                     HK_OK);
    assert_string_equal(arch, "gfx928");
    assert_int_equal(device_parse_kfd_node("simd_count 4\n", &gpu, arch, sizeof arch, &cus,
                                           uuid, sizeof uuid),
                     HK_EPARSE);

    /* a fake machine: node 0 a CPU, node 1 a DCU */
    char root[300], path[400], kfd[300];
    snprintf(root, sizeof root, "%s/sys", dir);
    snprintf(kfd, sizeof kfd, "%s/kfd", dir);
    device_gpu g;
    assert_int_equal(device_detect_dcu(kfd, root, &g), HK_OK); /* no kfd file yet */
    assert_false(g.present);
    assert_string_equal(g.how, "none");
    FILE *f = fopen(kfd, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(device_detect_dcu(kfd, root, &g), HK_OK); /* kfd, no topology */
    assert_true(g.present);
    assert_string_equal(g.how, "/dev/kfd");
    assert_string_equal(g.arch, "");
    for (int n = 0; n < 2; n++) {
        snprintf(path, sizeof path, "mkdir -p %s/class/kfd/kfd/topology/nodes/%d", root, n);
        assert_int_equal(system(path), 0);
    }
    snprintf(path, sizeof path, "%s/class/kfd/kfd/topology/nodes/0/properties", root);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("cpu_cores_count 32\nsimd_count 0\ngfx_target_version 0\n", f);
    fclose(f);
    assert_int_equal(device_detect_dcu(kfd, root, &g), HK_OK); /* CPU nodes only */
    assert_false(g.present);
    snprintf(path, sizeof path, "%s/class/kfd/kfd/topology/nodes/1/properties", root);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("cpu_cores_count 0\nsimd_count 256\nsimd_per_cu 4\ngfx_target_version 90208\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/class/kfd/kfd/topology/nodes/1/name", root);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("K100_AI\n", f);
    fclose(f);
    assert_int_equal(device_detect_dcu(kfd, root, &g), HK_OK);
    assert_true(g.present);
    assert_int_equal(g.count, 1);
    assert_string_equal(g.arch, "gfx928");
    assert_string_equal(g.name, "K100_AI");
    assert_int_equal(g.cu_count, 64);
    assert_string_equal(g.how, "kfd topology");
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kfd),
        cmocka_unit_test(test_targets),
        cmocka_unit_test(test_no_dcu),
        cmocka_unit_test(test_bad_source),
        cmocka_unit_test(test_verify_candidate),
        cmocka_unit_test(test_simulated_dcu),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
