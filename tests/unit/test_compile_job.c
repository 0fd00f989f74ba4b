/* Compile jobs with the real compiler on a libuv loop: success, errors mapped back to
 * the original path, relative includes, cancel and timeout mid-compile (the whole
 * process group dies, the temp dir goes), a missing compiler, parallel jobs, and
 * hipcc when it is installed. Needs nvcc (CUDA at /usr/local/cuda or on PATH). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "compile/compile.h"
#include "core/hk.h"

struct outcome {
    int calls;
    int status;
    cc_result copy_flags; /* exit_code / timed_out only */
    size_t n_res, n_diags;
    char first_file[512];
    int first_line;
    char res_kernel[64], res_arch[32];
    int res_registers;
    bool output_has_ptxas;
    bool output_mentions_tmp;
    int pid_at_cancel;
    cc_job *job;
};

static void on_done(cc_job *job, int status, const cc_result *res, void *data)
{
    struct outcome *o = data;
    o->calls++;
    o->status = status;
    assert_ptr_equal(job, o->job);
    /* Cancelling from inside the callback is a no-op, never a second call. */
    cc_job_cancel(job);
    if (!res)
        return;
    o->copy_flags.exit_code = res->exit_code;
    o->copy_flags.timed_out = res->timed_out;
    o->n_res = res->n_res;
    o->n_diags = res->n_diags;
    if (res->n_diags && res->diags[0].file) {
        snprintf(o->first_file, sizeof o->first_file, "%s", res->diags[0].file);
        o->first_line = res->diags[0].line;
    }
    if (res->n_res) {
        snprintf(o->res_kernel, sizeof o->res_kernel, "%s", res->res[0].kernel);
        snprintf(o->res_arch, sizeof o->res_arch, "%s", res->res[0].arch);
        o->res_registers = res->res[0].registers;
    }
    o->output_has_ptxas = res->output && strstr(res->output, "ptxas info");
    o->output_mentions_tmp = res->output && strstr(res->output, "hk-cc-");
}

static char *slurp(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/compile/%s", HK_TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("missing fixture %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_true(fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static char tmproot[] = "/tmp/hk-test-job-XXXXXX";

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static int setup(void **state)
{
    char *p = NULL;
    if (cc_find_compiler(CC_NVIDIA, &p) != HK_OK) {
        fprintf(stderr, "nvcc not found (PATH, CUDA_HOME, /usr/local/cuda/bin)\n");
        return -1;
    }
    hk_free(p);
    /* Jobs put their temp dirs under TMPDIR: a private one shows what is left over. */
    if (!mkdtemp(tmproot))
        return -1;
    setenv("TMPDIR", tmproot, 1);
    return 0;
}

static int teardown(void **state)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmproot);
    return system(cmd) == 0 ? 0 : -1;
}

/* Runs one job to completion on a fresh loop. */
static void run_one(const cc_options *o, const char *orig, const char *fixture,
                    struct outcome *out)
{
    size_t len;
    char *text = slurp(fixture, &len);
    uv_loop_t loop;
    uv_loop_init(&loop);
    memset(out, 0, sizeof *out);
    long live = hk_alloc_live();
    assert_int_equal(cc_job_start(&loop, o, orig, text, len, on_done, out, &out->job), HK_OK);
    assert_int_equal(out->calls, 0); /* never from inside start */
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(out->calls, 1);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(hk_alloc_live(), live);
    assert_int_equal(count_entries(tmproot), 0);
    free(text);
}

static void compiles_and_reports_resources(void **state)
{
    cc_options o = {.backend = CC_NVIDIA, .arch = "sm_80"};
    struct outcome out;
    run_one(&o, HK_TEST_DATA "/compile/saxpy.cu", "saxpy.cu", &out);
    assert_int_equal(out.status, HK_OK);
    assert_int_equal(out.copy_flags.exit_code, 0);
    assert_false(out.copy_flags.timed_out);
    assert_int_equal(out.n_diags, 0);
    assert_int_equal(out.n_res, 2);
    assert_string_equal(out.res_arch, "sm_80");
    assert_true(out.res_registers > 0);
    assert_true(out.output_has_ptxas);
}

static void errors_point_at_the_original_file(void **state)
{
    /* The original need not exist: the text is what is compiled. */
    cc_options o = {.backend = CC_NVIDIA};
    struct outcome out;
    run_one(&o, "/nonexistent/dir/errors.cu", "errors.cu", &out);
    assert_int_equal(out.status, HK_OK);
    assert_true(out.copy_flags.exit_code != 0);
    assert_int_equal(out.n_diags, 2);
    assert_string_equal(out.first_file, "/nonexistent/dir/errors.cu");
    assert_int_equal(out.first_line, 7);
    assert_false(out.output_mentions_tmp);
}

static void relative_includes_resolve(void **state)
{
    cc_options o = {.backend = CC_NVIDIA};
    struct outcome out;
    run_one(&o, HK_TEST_DATA "/compile/uses_include.cu", "uses_include.cu", &out);
    assert_int_equal(out.status, HK_OK);
    assert_int_equal(out.copy_flags.exit_code, 0);
    assert_int_equal(out.n_diags, 0);
    assert_string_equal(out.res_kernel, "doubled");
}

static void extra_flags_reach_the_compiler(void **state)
{
    const char *extra[] = {"-DHK_ARCH_OK", NULL};
    cc_options o = {.backend = CC_NVIDIA, .extra = extra};
    struct outcome out;
    run_one(&o, HK_TEST_DATA "/compile/host_error.cu", "host_error.cu", &out);
    assert_int_equal(out.copy_flags.exit_code, 0);
    assert_int_equal(out.n_diags, 0);
    cc_options o2 = {.backend = CC_NVIDIA};
    run_one(&o2, HK_TEST_DATA "/compile/host_error.cu", "host_error.cu", &out);
    assert_int_equal(out.n_diags, 1);
    assert_int_equal(out.first_line, 4);
}

struct cancel_ctx {
    cc_job *job;
    uv_timer_t timer;
    int pgid;
    uint64_t cancelled_at;
};

static void cancel_later(uv_timer_t *t)
{
    struct cancel_ctx *c = t->data;
    c->pgid = cc_job_pid(c->job);
    c->cancelled_at = uv_hrtime();
    cc_job_cancel(c->job);
    cc_job_cancel(c->job); /* twice is harmless */
    uv_close((uv_handle_t *)t, NULL);
}

static void cancel_kills_the_process_group(void **state)
{
    size_t len;
    char *text = slurp("slow.cu", &len);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct outcome out = {0};
    long live = hk_alloc_live();
    cc_options o = {.backend = CC_NVIDIA};
    assert_int_equal(cc_job_start(&loop, &o, "/x/slow.cu", text, len, on_done, &out, &out.job),
                     HK_OK);
    struct cancel_ctx c = {.job = out.job};
    uv_timer_init(&loop, &c.timer);
    c.timer.data = &c;
    uv_timer_start(&c.timer, cancel_later, 1200, 0); /* cicc is running by then */
    uv_run(&loop, UV_RUN_DEFAULT);
    uint64_t ms = (uv_hrtime() - c.cancelled_at) / 1000000;
    assert_int_equal(out.calls, 1);
    assert_int_equal(out.status, HK_ECANCELED);
    /* Reported promptly after the kill, not when the 5 s compile would have ended. */
    if (ms > 2500)
        fail_msg("cancel took %llu ms to report", (unsigned long long)ms);
    assert_true(c.pgid > 0);
    /* No member of the compiler's process group survives. SIGKILLed grandchildren
     * (cicc, ptxas) are reaped by init, not by us: give that a moment. */
    int alive = 0;
    for (int i = 0; i < 300 && (alive = kill(-c.pgid, 0) == 0 || errno != ESRCH); i++)
        usleep(10000);
    if (alive)
        fail_msg("process group %d still has members", c.pgid);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(hk_alloc_live(), live);
    assert_int_equal(count_entries(tmproot), 0);
    free(text);
}

static void kill_all_later(uv_timer_t *t)
{
    struct cancel_ctx *c = t->data;
    c->pgid = cc_job_pid(c->job);
    c->cancelled_at = uv_hrtime();
    cc_job_kill_all();
    uv_close((uv_handle_t *)t, NULL);
}

/* The shutdown path: every running compile dies at once, the temp dirs go at once. */
static void kill_all_for_shutdown(void **state)
{
    size_t len;
    char *text = slurp("slow.cu", &len);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct outcome out = {0};
    cc_options o = {.backend = CC_NVIDIA};
    assert_int_equal(cc_job_start(&loop, &o, "/x/slow.cu", text, len, on_done, &out, &out.job),
                     HK_OK);
    struct cancel_ctx c = {.job = out.job};
    uv_timer_init(&loop, &c.timer);
    c.timer.data = &c;
    uv_timer_start(&c.timer, kill_all_later, 1000, 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(out.calls, 1);
    assert_int_equal(out.status, HK_ECANCELED);
    assert_true(c.pgid > 0);
    int alive = 0;
    for (int i = 0; i < 300 && (alive = kill(-c.pgid, 0) == 0 || errno != ESRCH); i++)
        usleep(10000);
    assert_false(alive);
    assert_int_equal(count_entries(tmproot), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    cc_job_kill_all(); /* nothing live: a no-op */
    free(text);
}

static void timeout_kills_and_reports(void **state)
{
    cc_options o = {.backend = CC_NVIDIA, .timeout_ms = 800};
    struct outcome out;
    uint64_t t0 = uv_hrtime();
    run_one(&o, "/x/slow.cu", "slow.cu", &out);
    uint64_t ms = (uv_hrtime() - t0) / 1000000;
    assert_int_equal(out.status, HK_OK);
    assert_true(out.copy_flags.timed_out);
    assert_int_equal(out.copy_flags.exit_code, -1);
    if (ms > 800 + 2500)
        fail_msg("a 800 ms timeout took %llu ms to report", (unsigned long long)ms);
}

static void missing_compiler_reports_enoent(void **state)
{
    cc_options o = {.backend = CC_NVIDIA, .compiler = "/nonexistent/bin/nvcc"};
    struct outcome out;
    run_one(&o, "/x/saxpy.cu", "saxpy.cu", &out);
    assert_int_equal(out.status, HK_ENOENT);

    /* Not found anywhere: an empty PATH and no CUDA/ROCm directories for hipcc. */
    if (system("test -x /opt/rocm/bin/hipcc || test -x /opt/dtk/bin/hipcc") != 0) {
        char *path = strdup(getenv("PATH"));
        char *rocm = getenv("ROCM_PATH") ? strdup(getenv("ROCM_PATH")) : NULL;
        setenv("PATH", "/nonexistent", 1);
        unsetenv("ROCM_PATH");
        cc_options h = {.backend = CC_DCU};
        run_one(&h, "/x/saxpy.hip", "saxpy.hip", &out);
        assert_int_equal(out.status, HK_ENOENT);
        setenv("PATH", path, 1);
        if (rocm)
            setenv("ROCM_PATH", rocm, 1);
        free(path);
        free(rocm);
    }
}

static void cancel_before_the_loop_runs(void **state)
{
    size_t len;
    char *text = slurp("saxpy.cu", &len);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct outcome out = {0};
    cc_options o = {.backend = CC_NVIDIA};
    assert_int_equal(cc_job_start(&loop, &o, "/x/saxpy.cu", text, len, on_done, &out, &out.job),
                     HK_OK);
    cc_job_cancel(out.job);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(out.calls, 1);
    assert_int_equal(out.status, HK_ECANCELED);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(text);
}

static void parallel_jobs(void **state)
{
    static const char *files[] = {"saxpy.cu", "reduce.cu", "errors.cu", "warning.cu"};
    char *texts[4];
    size_t lens[4];
    struct outcome outs[4];
    uv_loop_t loop;
    uv_loop_init(&loop);
    long live = hk_alloc_live();
    cc_options o = {.backend = CC_NVIDIA};
    for (int i = 0; i < 4; i++) {
        texts[i] = slurp(files[i], &lens[i]);
        memset(&outs[i], 0, sizeof outs[i]);
        char orig[256];
        snprintf(orig, sizeof orig, "/src/%s", files[i]);
        assert_int_equal(cc_job_start(&loop, &o, orig, texts[i], lens[i], on_done, &outs[i],
                                      &outs[i].job),
                         HK_OK);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(outs[i].calls, 1);
        assert_int_equal(outs[i].status, HK_OK);
        free(texts[i]);
    }
    assert_int_equal(outs[0].n_res, 2);
    assert_int_equal(outs[1].n_res, 3);
    assert_int_equal(outs[2].n_diags, 2);
    assert_string_equal(outs[2].first_file, "/src/errors.cu");
    assert_int_equal(outs[3].n_diags, 1);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(hk_alloc_live(), live);
}

static void bad_arguments(void **state)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct outcome out = {0};
    cc_options o = {.backend = CC_NVIDIA};
    cc_job *j = (cc_job *)1;
    assert_int_equal(cc_job_start(&loop, &o, "", "x", 1, on_done, &out, &j), HK_EINVAL);
    assert_null(j);
    assert_int_equal(cc_job_start(&loop, &o, "/a.cu", NULL, 5, on_done, &out, &j), HK_EINVAL);
    assert_int_equal(cc_job_start(&loop, &o, "/a.cu", "x", 1, NULL, &out, &j), HK_EINVAL);
    assert_int_equal(cc_job_start(&loop, &o, "/a.cu", "x", (size_t)1 << 30, on_done, &out, &j),
                     HK_ETOOBIG);
    cc_options bad = {.backend = CC_NVIDIA, .arch = "-o"};
    assert_int_equal(cc_job_start(&loop, &bad, "/a.cu", "x", 1, on_done, &out, &j), HK_EINVAL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(out.calls, 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(count_entries(tmproot), 0);
}

static void hipcc_job(void **state)
{
    char *p = NULL;
    if (cc_find_compiler(CC_DCU, &p) != HK_OK)
        skip();
    hk_free(p);
    cc_options o = {.backend = CC_DCU, .arch = "gfx906"};
    struct outcome out;
    run_one(&o, HK_TEST_DATA "/compile/spill.hip", "spill.hip", &out);
    assert_int_equal(out.status, HK_OK);
    assert_int_equal(out.copy_flags.exit_code, 0);
    assert_int_equal(out.n_res, 1);
    assert_string_equal(out.res_kernel, "heavy");
    assert_string_equal(out.res_arch, "gfx906");
    assert_int_equal(out.res_registers, 24);

    run_one(&o, "/elsewhere/errors.hip", "errors.hip", &out);
    assert_true(out.copy_flags.exit_code != 0);
    assert_int_equal(out.n_diags, 2);
    assert_string_equal(out.first_file, "/elsewhere/errors.hip");
    assert_int_equal(out.first_line, 7);
}

/* ---- the copy is written on the pool, not on the caller's loop ---- */

/* Holds the pool's only thread (main sets UV_THREADPOOL_SIZE=1) until released. */
struct pool_plug {
    uv_work_t req;
    uv_sem_t in, go;
};

static void plug_work(uv_work_t *req)
{
    struct pool_plug *p = req->data;
    uv_sem_post(&p->in);
    uv_sem_wait(&p->go);
}

static void plug_after(uv_work_t *req, int status) { (void)req, (void)status; }

static void plug_pool(uv_loop_t *loop, struct pool_plug *p)
{
    uv_sem_init(&p->in, 0);
    uv_sem_init(&p->go, 0);
    p->req.data = p;
    assert_int_equal(uv_queue_work(loop, &p->req, plug_work, plug_after), 0);
    uv_sem_wait(&p->in); /* the thread is in plug_work: nothing else runs on the pool */
}

static void unplug_pool(struct pool_plug *p) { uv_sem_post(&p->go); }

static void plug_destroy(struct pool_plug *p)
{
    uv_sem_destroy(&p->in);
    uv_sem_destroy(&p->go);
}

/* The entries of the one job dir under tmproot: -1 when there is none. */
static int job_dir_entries(void)
{
    DIR *d = opendir(tmproot);
    assert_non_null(d);
    struct dirent *e;
    int n = -1;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, "hk-cc-", 6) == 0) {
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", tmproot, e->d_name);
            n = count_entries(p);
        }
    closedir(d);
    return n;
}

/* cc_job_start writes nothing itself: with the pool held, the job's dir is there and
 * empty when it returns, and no compiler runs; the text is the job's own copy (the
 * caller's buffer changed at once does not reach the compiler); once the pool runs, the
 * copy is written, the compiler spawned and the result as usual. */
static void copy_written_on_the_pool(void **state)
{
    size_t len;
    char *text = slurp("saxpy.cu", &len);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct outcome out = {0};
    long live = hk_alloc_live();
    struct pool_plug plug;
    plug_pool(&loop, &plug);
    cc_options o = {.backend = CC_NVIDIA, .arch = "sm_80"};
    assert_int_equal(cc_job_start(&loop, &o, "/x/saxpy.cu", text, len, on_done, &out, &out.job),
                     HK_OK);
    assert_int_equal(job_dir_entries(), 0); /* the dir, no copy in it yet */
    assert_int_equal(cc_job_pid(out.job), 0); /* no compiler before the copy */
    memset(text, '#', len);                   /* the editor's next change */
    unplug_pool(&plug);
    uv_run(&loop, UV_RUN_DEFAULT);
    plug_destroy(&plug);
    assert_int_equal(out.calls, 1);
    assert_int_equal(out.status, HK_OK);
    assert_int_equal(out.copy_flags.exit_code, 0);
    assert_int_equal(out.n_diags, 0);
    assert_int_equal(out.n_res, 2);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(hk_alloc_live(), live);
    assert_int_equal(count_entries(tmproot), 0);
    free(text);
}

/* A cancel or a kill_all while the copy waits for the pool: no compiler is ever
 * spawned, cb reports HK_ECANCELED once, later, and the temp dir goes. */
static void cancel_while_writing(void **state)
{
    for (int kill_all = 0; kill_all < 2; kill_all++) {
        size_t len;
        char *text = slurp("saxpy.cu", &len);
        uv_loop_t loop;
        uv_loop_init(&loop);
        struct outcome out = {0};
        long live = hk_alloc_live();
        struct pool_plug plug;
        plug_pool(&loop, &plug);
        cc_options o = {.backend = CC_NVIDIA};
        assert_int_equal(
            cc_job_start(&loop, &o, "/x/saxpy.cu", text, len, on_done, &out, &out.job), HK_OK);
        if (kill_all) {
            cc_job_kill_all();
            assert_int_equal(job_dir_entries(), -1); /* gone at once, as for a compile */
        } else {
            cc_job_cancel(out.job);
        }
        assert_int_equal(out.calls, 0); /* never from inside the call */
        unplug_pool(&plug);
        uv_run(&loop, UV_RUN_DEFAULT);
        plug_destroy(&plug);
        assert_int_equal(out.calls, 1);
        assert_int_equal(out.status, HK_ECANCELED);
        assert_int_equal(uv_loop_close(&loop), 0);
        assert_int_equal(hk_alloc_live(), live);
        assert_int_equal(count_entries(tmproot), 0);
        free(text);
    }
}

/* A copy that cannot be written (its dir removed behind the job's back) is a report of
 * HK_EIO through cb, not a compile of nothing. */
static void copy_not_written_reports_eio(void **state)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct outcome out = {0};
    struct pool_plug plug;
    plug_pool(&loop, &plug);
    cc_options o = {.backend = CC_NVIDIA};
    assert_int_equal(cc_job_start(&loop, &o, "/x/a.cu", "x", 1, on_done, &out, &out.job), HK_OK);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rmdir %s/hk-cc-*", tmproot);
    assert_int_equal(system(cmd), 0);
    unplug_pool(&plug);
    uv_run(&loop, UV_RUN_DEFAULT);
    plug_destroy(&plug);
    assert_int_equal(out.calls, 1);
    assert_int_equal(out.status, HK_EIO);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(count_entries(tmproot), 0);
}

int main(void)
{
    /* one pool thread, so that plug_pool holds the whole pool */
    setenv("UV_THREADPOOL_SIZE", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compiles_and_reports_resources),
        cmocka_unit_test(errors_point_at_the_original_file),
        cmocka_unit_test(relative_includes_resolve),
        cmocka_unit_test(extra_flags_reach_the_compiler),
        cmocka_unit_test(cancel_kills_the_process_group),
        cmocka_unit_test(kill_all_for_shutdown),
        cmocka_unit_test(timeout_kills_and_reports),
        cmocka_unit_test(missing_compiler_reports_enoent),
        cmocka_unit_test(cancel_before_the_loop_runs),
        cmocka_unit_test(parallel_jobs),
        cmocka_unit_test(bad_arguments),
        cmocka_unit_test(hipcc_job),
        cmocka_unit_test(copy_written_on_the_pool),
        cmocka_unit_test(cancel_while_writing),
        cmocka_unit_test(copy_not_written_reports_eio),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
