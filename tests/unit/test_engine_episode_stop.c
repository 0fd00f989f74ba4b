/* Ctrl-C during an episode, and the next episode after it. A child process runs an episode
 * on the simulated GPU (the only mock, at the GPU boundary: EP_GPU_SIMULATED with
 * tests/data/episode/fake_harness.c as measure.wrapper, which sleeps $FAKE_SLOW_MS in every
 * timed run so a signal lands while a program runs); the parent sends SIGINT once a
 * candidate has been verified and checks that the episode is marked stopped, kept its
 * versions, wrote its report and left no program running. Then a new episode on the same
 * database starts from the best verified version while its baseline stays the original.
 * Everything else (nvcc, runner, oracle, store, report) is real. Needs nvcc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compile/compile.h"
#include "core/hk.h"
#include "episode/episode.h"

static char dir[] = "/tmp/hk-test-episode-stop-XXXXXX";
static char sim[300], db[300];
static device_info dev;

static int setup(void **state)
{
    (void)state;
    /* These tests stop episodes in the middle of compiles that take seconds: the suite's
     * compile cache (tests/tools/nvcc_cache.c) would answer them at once. */
    unsetenv("HK_NVCC_CACHE");
    char *nvcc = NULL;
    if (cc_find_compiler(CC_NVIDIA, &nvcc) != HK_OK)
        return 0;
    hk_free(nvcc);
    if (!mkdtemp(dir))
        return -1;
    snprintf(sim, sizeof sim, "%s/sim", dir);
    snprintf(db, sizeof db, "%s/history.db", dir);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cc -O1 -o %s %s/episode/fake_harness.c -lm", sim, HK_TEST_DATA);
    if (system(cmd) != 0)
        return -1;
    memset(&dev, 0, sizeof dev);
    dev.probe_version = DEVICE_PROBE_VERSION;
    snprintf(dev.name, sizeof dev.name, "Simulated GPU");
    snprintf(dev.arch, sizeof dev.arch, "sm_90");
    dev.cc_major = 9;
    dev.sm_count = 132;
    dev.copy_kernel_gbs = 3000;
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

static ep_options options(const char *const *wrapper)
{
    ep_options o = {
        .file = HK_SOURCE_DIR "/bench/kernels/saxpy.cu",
        .kernel = "saxpy",
        .spec_path = HK_TEST_DATA "/episode/tiny.bench.json",
        .budget = 8,
        .seed = 3,
        .db_path = db,
        .jobs = 2,
        .gpu = EP_GPU_SIMULATED,
        .sim_device = &dev,
    };
    o.measure.wrapper = wrapper;
    o.measure.isolation = RUNNER_ISO_NONE;
    return o;
}

/* How many verified candidates faster than the baseline the store has events for. */
static int verified_events(void)
{
    store *st = NULL;
    if (store_open(db, &st) != HK_OK)
        return 0;
    store_event *ev = NULL;
    size_t n = 0;
    int found = 0;
    if (store_event_list(st, 1, 0, 0, &ev, &n) == HK_OK)
        for (size_t i = 0; i < n; i++)
            if (ev[i].json && strstr(ev[i].json, "\"status\":\"verified\"")) {
                json_t *j = json_loads(ev[i].json, 0, NULL);
                found += json_number_value(json_object_get(j, "speedup")) > 1.05;
                json_decref(j);
            }
    store_events_free(ev, n);
    store_close(st);
    return found;
}

static void test_sigint_stops(void **state)
{
    (void)state;
    if (!sim[0])
        skip();
    const char *wrapper[] = {sim, NULL};
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("FAKE_SLOW_MS", "400", 1);
        ep_options o = options(wrapper);
        o.stop = ep_stop_on_signals();
        ep_result r;
        int rc = ep_run(&o, &r);
        int code = rc ? 90 : (int)r.status;
        ep_result_clear(&r);
        _exit(code);
    }
    /* wait for a verified candidate faster than the baseline, then Ctrl-C */
    int waited = 0;
    while (!verified_events() && waited < 100000) {
        usleep(200000);
        waited += 200;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            fail_msg("the episode ended before it was stopped (status %d)", WEXITSTATUS(st));
    }
    assert_true(waited < 100000);
    usleep(300000); /* likely inside a timed run of the next candidate */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(kill(pid, SIGINT), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), STORE_EP_STOPPED);
    assert_true(s < 20.0); /* stops promptly: no waiting for the rest of the budget */

    /* no simulated program of ours is still running */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "pgrep -f '^%s ' >/dev/null", sim);
    assert_int_not_equal(system(cmd), 0);

    store *st = NULL;
    assert_int_equal(store_open(db, &st), HK_OK);
    store_episode e;
    assert_int_equal(store_episode_get(st, 1, &e), HK_OK);
    assert_int_equal(e.status, STORE_EP_STOPPED);
    assert_string_equal(e.error, "stopped by the user");
    assert_true(e.ended_ms > 0);
    assert_non_null(e.report_html);
    assert_int_equal(access(e.report_html, R_OK), 0);
    int64_t baseline = e.baseline_version_id;
    store_episode_clear(&e);
    store_history_row *rows = NULL;
    size_t n = 0;
    assert_int_equal(store_episode_versions(st, 1, &rows, &n), HK_OK);
    int verified = 0;
    for (size_t i = 0; i < n; i++)
        verified += rows[i].version.status == STORE_V_VERIFIED && rows[i].version.id != baseline;
    assert_true(verified >= 1); /* what it found is kept */
    store_history_free(rows, n);

    /* The next episode starts from the best verified version; the baseline stays v0. */
    ep_options o = options(wrapper);
    o.budget = 1;
    ep_result r;
    assert_int_equal(ep_run(&o, &r), HK_OK);
    if (r.status != STORE_EP_COMPLETED)
        fail_msg("second episode ended %s: %s", store_episode_status_name(r.status),
                 r.error ? r.error : "");
    assert_int_equal(store_episode_get(st, r.episode_id, &e), HK_OK);
    assert_int_equal(e.baseline_version_id, baseline);
    assert_non_null(strstr(e.info_json, "\"started_from\":{"));
    store_episode_clear(&e);
    ep_result_clear(&r);
    store_close(st);
}

static volatile sig_atomic_t probe_stop;

static void on_alarm(int sig)
{
    (void)sig;
    probe_stop = 1;
}

/* Ctrl-C during the first device probe (its nvcc compile takes seconds) ends it within a
 * poll tick: device_probe returns HK_ECANCELED instead of finishing the compile. */
static void test_probe_stops(void **state)
{
    (void)state;
    if (!sim[0])
        skip();
    char pdir[400];
    snprintf(pdir, sizeof pdir, "%s/probe", dir);
    assert_int_equal(mkdir(pdir, 0777), 0);
    probe_stop = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
    struct itimerval it = {.it_value = {.tv_sec = 0, .tv_usec = 300000}};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
    device_probe_options po = {.workdir = pdir, .arch = "sm_90", .compile_only = true,
                               .stop = &probe_stop};
    char *why = NULL;
    device_info info;
    int rc = device_probe(&po, &info, &why);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    hk_free(why);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(stderr, "probe stopped after %.2f s\n", s);
    assert_int_equal(rc, HK_ECANCELED);
    assert_true(s < 3.0);
    /* and a raised flag stops it before it starts anything */
    rc = device_probe(&po, &info, NULL);
    assert_int_equal(rc, HK_ECANCELED);
    signal(SIGALRM, SIG_DFL);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigint_stops),
        cmocka_unit_test(test_probe_stops),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
