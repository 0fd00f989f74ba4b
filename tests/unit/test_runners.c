/* Runner tests with real children: exit codes and signals, capture and caps, wall-clock
 * timeout killing grandchildren, CPU/file/memory limits, the pool's parallelism, and the
 * sandboxes (network blocked, root read-only, hidden directories, own pids, a process cap)
 * for each level this machine offers: bwrap and the namespace sandbox built without it. */
#include "core/hk.h"
#include "runners/runner.h"

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <dirent.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[512];

static int setup(void **state)
{
    /* HK_TEST_TMPDIR: where the binary runs away from its build tree (the GPU machine) */
    const char *base = getenv("HK_TEST_TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/test-runners-XXXXXX", base ? base : HK_BINARY_DIR);
    if (!mkdtemp(tmpdir))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void run_sh(const char *script, runner_spec *s, runner_result *r)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    s->argv = argv;
    assert_int_equal(runner_run(s, r), HK_OK);
    s->argv = NULL;
}

static void test_exit_codes_and_capture(void **state)
{
    runner_spec s = {.isolation = RUNNER_ISO_NONE};
    runner_result r;
    run_sh("printf hello; printf oops >&2; exit 3", &s, &r);
    assert_int_equal(r.exit_code, 3);
    assert_int_equal(r.term_signal, 0);
    assert_false(r.timed_out);
    assert_string_equal(r.out, "hello");
    assert_int_equal(r.out_len, 5);
    assert_string_equal(r.err, "oops");
    assert_false(r.out_truncated);
    runner_result_free(&r);

    run_sh("kill -SEGV $$", &s, &r);
    assert_int_equal(r.exit_code, -1);
    assert_int_equal(r.term_signal, SIGSEGV);
    runner_result_free(&r);

    run_sh("true", &s, &r);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "");
    runner_result_free(&r);
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_not_found_and_bad_spec(void **state)
{
    const char *argv[] = {"hk-no-such-program-here", NULL};
    runner_spec s = {.argv = argv, .isolation = RUNNER_ISO_NONE};
    runner_result r;
    assert_int_equal(runner_run(&s, &r), HK_ENOENT);
    assert_int_equal(r.error, HK_ENOENT);
    assert_int_equal(r.exit_code, -1);
    runner_result_free(&r);

    runner_spec empty = {0};
    assert_int_equal(runner_run(&empty, &r), HK_EINVAL);
    runner_result_free(&r);

    const char *env_bad[] = {"NOEQUALS", NULL};
    const char *argv2[] = {"true", NULL};
    runner_spec s2 = {.argv = argv2, .env_set = env_bad, .isolation = RUNNER_ISO_NONE};
    assert_int_equal(runner_run(&s2, &r), HK_EINVAL);
    runner_result_free(&r);
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_env_and_cwd(void **state)
{
    const char *set[] = {"HK_RUNNER_X=42", "HOME=/nowhere", NULL};
    runner_spec s = {.env_set = set, .cwd = tmpdir, .isolation = RUNNER_ISO_NONE};
    runner_result r;
    run_sh("echo \"$HK_RUNNER_X $HOME $(pwd)\"", &s, &r);
    char want[700];
    snprintf(want, sizeof want, "42 /nowhere %s\n", tmpdir);
    assert_string_equal(r.out, want);
    runner_result_free(&r);

    const char *env[] = {"ONLY=1", "PATH=/usr/bin:/bin", NULL};
    runner_spec s2 = {.env = env, .isolation = RUNNER_ISO_NONE};
    run_sh("env | sort | tr '\\n' ' '", &s2, &r);
    /* sh may add PWD/SHLVL/_; what matters is that nothing else was inherited */
    assert_non_null(strstr(r.out, "ONLY=1"));
    assert_null(strstr(r.out, "HK_RUNNER_X"));
    assert_null(strstr(r.out, "HOME="));
    runner_result_free(&r);
}

static bool process_gone(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

static void test_timeout_kills_grandchildren(void **state)
{
    char pidfile[600], script[800];
    snprintf(pidfile, sizeof pidfile, "%s/grandchild.pid", tmpdir);
    /* the child forks a sleeper (a grandchild of the runner) and waits on it */
    snprintf(script, sizeof script, "sleep 100 & echo $! > '%s'; wait", pidfile);
    runner_spec s = {.timeout_ms = 300, .isolation = RUNNER_ISO_NONE};
    runner_result r;
    run_sh(script, &s, &r);
    assert_true(r.timed_out);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_true(r.wall_ms >= 280 && r.wall_ms < 3000);
    runner_result_free(&r);

    FILE *f = fopen(pidfile, "r");
    assert_non_null(f);
    long gpid = 0;
    assert_int_equal(fscanf(f, "%ld", &gpid), 1);
    fclose(f);
    assert_true(gpid > 1);
    bool gone = false;
    for (int i = 0; i < 100 && !gone; i++) {
        gone = process_gone((pid_t)gpid);
        if (!gone)
            usleep(10000);
    }
    assert_true(gone);

    /* a child that ignores SIGTERM gets SIGKILL after the grace period */
    runner_spec s2 = {.timeout_ms = 200, .kill_grace_ms = 200, .isolation = RUNNER_ISO_NONE};
    run_sh("trap '' TERM; sleep 100; sleep 100", &s2, &r);
    assert_true(r.timed_out);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_true(r.wall_ms >= 380 && r.wall_ms < 3000);
    runner_result_free(&r);

    /* a plain sleep 100 */
    const char *argv[] = {"sleep", "100", NULL};
    runner_spec s3 = {.argv = argv, .timeout_ms = 100, .isolation = RUNNER_ISO_NONE};
    assert_int_equal(runner_run(&s3, &r), HK_OK);
    assert_true(r.timed_out);
    assert_true(r.wall_ms < 2000);
    runner_result_free(&r);
}

static void test_output_cap(void **state)
{
    runner_spec s = {.output_max = 4096, .isolation = RUNNER_ISO_NONE};
    runner_result r;
    run_sh("head -c 10000000 /dev/zero | tr '\\0' x; echo done >&2", &s, &r);
    assert_int_equal(r.exit_code, 0);
    assert_true(r.out_truncated);
    assert_int_equal(r.out_len, 4096);
    assert_int_equal(strlen(r.out), 4096);
    assert_int_equal(r.out[0], 'x');
    assert_false(r.err_truncated);
    assert_string_equal(r.err, "done\n");
    runner_result_free(&r);

    /* an endless flood still times out on time */
    const char *yes[] = {"yes", "flood", NULL};
    runner_spec f = {.argv = yes, .output_max = 1000, .timeout_ms = 300, .isolation = RUNNER_ISO_NONE};
    assert_int_equal(runner_run(&f, &r), HK_OK);
    assert_true(r.timed_out);
    assert_true(r.out_truncated);
    assert_int_equal(r.out_len, 1000);
    assert_true(r.wall_ms < 3000);
    runner_result_free(&r);
}

static void test_cpu_file_core_limits(void **state)
{
    runner_spec s = {.cpu_seconds = 1, .timeout_ms = 20000, .isolation = RUNNER_ISO_NONE};
    runner_result r;
    const char *spin[] = {"sh", "-c", "while :; do :; done", NULL};
    s.argv = spin;
    assert_int_equal(runner_run(&s, &r), HK_OK);
    assert_false(r.timed_out);
    assert_true(r.cpu_limit_hit);
    assert_true(r.term_signal == SIGXCPU || r.term_signal == SIGKILL);
    assert_true(r.cpu_ms >= 500);   /* rusage is tick-accounted: a little under the limit */
    runner_result_free(&r);

    const char *dd[] = {"dd", "if=/dev/zero", "of=big", "bs=1000", "count=100", NULL};
    runner_spec s2 = {.argv = dd, .cwd = tmpdir, .file_max = 10000, .isolation = RUNNER_ISO_NONE};
    assert_int_equal(runner_run(&s2, &r), HK_OK);
    assert_true(r.file_limit_hit);
    assert_int_equal(r.term_signal, SIGXFSZ);
    runner_result_free(&r);
    char big[600];
    snprintf(big, sizeof big, "%s/big", tmpdir);
    struct stat st;
    assert_int_equal(stat(big, &st), 0);
    assert_true(st.st_size <= 10000);

    runner_spec s3 = {.isolation = RUNNER_ISO_NONE};
    run_sh("ulimit -c", &s3, &r);
    assert_string_equal(r.out, "0\n");
    runner_result_free(&r);
}

static void test_memory_limit(void **state)
{
    const char *words = NULL;
    enum runner_memory_method m = runner_memory_available(false, &words);
    print_message("memory limit method here: %s\n", words);
    runner_spec s = {.memory_max = 64u << 20, .timeout_ms = 30000, .isolation = RUNNER_ISO_NONE};
    runner_result r;
    /* tail -c keeps the last 200 MB of its input in memory */
    run_sh("head -c 300000000 /dev/zero | tail -c 200000000 > /dev/null", &s, &r);
    assert_int_equal(r.memory, m);
    assert_non_null(r.memory_words);
    assert_int_not_equal(r.exit_code, 0);
    if (m == RUNNER_MEM_CGROUP1 || m == RUNNER_MEM_CGROUP2)
        assert_true(r.memory_limit_hit);
    runner_result_free(&r);

    /* the same with room to spare succeeds */
    runner_spec s2 = {.memory_max = 512u << 20, .timeout_ms = 30000, .isolation = RUNNER_ISO_NONE};
    run_sh("head -c 3000000 /dev/zero | tail -c 2000000 | wc -c", &s2, &r);
    assert_int_equal(r.exit_code, 0);
    assert_false(r.memory_limit_hit);
    assert_int_equal(atol(r.out), 2000000);
    runner_result_free(&r);

    /* GPU programs never get RLIMIT_AS */
    enum runner_memory_method g = runner_memory_available(true, &words);
    print_message("memory limit method for GPU programs: %s\n", words);
    assert_int_not_equal(g, RUNNER_MEM_RLIMIT_AS);
}

static void test_pool_parallel(void **state)
{
    runner_pool *p;
    assert_int_equal(runner_pool_new(4, &p), HK_OK);
    const char *slow[] = {"sleep", "0.5", NULL};
    const char *fast[] = {"sh", "-c", "echo fast", NULL};
    runner_spec s = {.argv = slow, .isolation = RUNNER_ISO_NONE};
    for (long i = 0; i < 3; i++)
        assert_int_equal(runner_pool_submit(p, &s, (void *)(i + 1)), HK_OK);
    runner_spec f = {.argv = fast, .isolation = RUNNER_ISO_NONE};
    assert_int_equal(runner_pool_submit(p, &f, (void *)99), HK_OK);
    assert_int_equal(runner_pool_pending(p), 4);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    void *tag;
    runner_result r;
    /* the fast job ends first although it was queued last */
    assert_int_equal(runner_pool_wait(p, -1, &tag, &r), HK_OK);
    assert_ptr_equal(tag, (void *)99);
    assert_string_equal(r.out, "fast\n");
    runner_result_free(&r);
    int seen = 0;
    while (runner_pool_wait(p, -1, &tag, &r) == HK_OK) {
        long t = (long)tag;
        assert_true(t >= 1 && t <= 3);
        seen |= 1 << t;
        assert_int_equal(r.exit_code, 0);
        runner_result_free(&r);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(seen, 0xe);
    long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    assert_true(ms < 1400);   /* three 0.5 s sleeps in parallel, not 1.5 s in series */
    assert_int_equal(runner_pool_wait(p, -1, &tag, &r), HK_ENOENT);

    /* a wait with a short limit returns HK_ETIMEDOUT and the job keeps running */
    assert_int_equal(runner_pool_submit(p, &s, (void *)7), HK_OK);
    assert_int_equal(runner_pool_wait(p, 50, &tag, &r), HK_ETIMEDOUT);
    assert_int_equal(runner_pool_wait(p, -1, &tag, &r), HK_OK);
    assert_ptr_equal(tag, (void *)7);
    runner_result_free(&r);

    /* a job that cannot start comes back with its error; cancel drops the rest */
    const char *missing[] = {"hk-no-such-program-here", NULL};
    runner_spec m = {.argv = missing, .isolation = RUNNER_ISO_NONE};
    assert_int_equal(runner_pool_submit(p, &m, (void *)5), HK_OK);
    assert_int_equal(runner_pool_wait(p, -1, &tag, &r), HK_OK);
    assert_int_equal(r.error, HK_ENOENT);
    runner_result_free(&r);
    const char *forever[] = {"sleep", "100", NULL};
    runner_spec fs = {.argv = forever, .isolation = RUNNER_ISO_NONE};
    assert_int_equal(runner_pool_submit(p, &fs, NULL), HK_OK);
    assert_int_equal(runner_pool_wait(p, 20, &tag, &r), HK_ETIMEDOUT);
    runner_pool_free(p);   /* kills the sleeper */
    assert_int_equal(hk_alloc_live(), 0);

    /* max_parallel 1 runs in series */
    assert_int_equal(runner_pool_new(1, &p), HK_OK);
    const char *short_sleep[] = {"sleep", "0.2", NULL};
    runner_spec ss = {.argv = short_sleep, .isolation = RUNNER_ISO_NONE};
    for (int i = 0; i < 3; i++)
        assert_int_equal(runner_pool_submit(p, &ss, NULL), HK_OK);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (runner_pool_wait(p, -1, &tag, &r) == HK_OK)
        runner_result_free(&r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    assert_true(ms >= 580);
    runner_pool_free(p);
}

/* A listening socket on 127.0.0.1; its port in *port. */
static int listen_local(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 16), 0);
    socklen_t l = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void connect_with(enum runner_isolation iso, int port, runner_result *r)
{
    char script[200];
    snprintf(script, sizeof script, "exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port);
    const char *argv[] = {"bash", "-c", script, NULL};
    runner_spec s = {.argv = argv, .isolation = iso, .timeout_ms = 10000, .cwd = tmpdir};
    assert_int_equal(runner_run(&s, r), HK_OK);
}

static void test_sandbox_network(void **state)
{
    enum runner_isolation best = runner_isolation_available();
    print_message("isolation here: %s\n", runner_isolation_name(best));
    int port, fd = listen_local(&port);
    runner_result r;
    connect_with(RUNNER_ISO_NONE, port, &r);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "connected\n");
    assert_int_equal(r.isolation, RUNNER_ISO_NONE);
    runner_result_free(&r);
    /* nothing that shuts the network off here; or HK_RUNNER_ISOLATION forced a level that
     * does not work here (the namespace sandbox in a chroot or a container without user
     * namespaces), where AUTO jobs are refused, not run (test_ns_forced_by_environment) */
    if (best == RUNNER_ISO_NONE || !runner_isolation_works(best)) {
        close(fd);
        skip();
    }
    connect_with(RUNNER_ISO_AUTO, port, &r);
    assert_int_not_equal(r.exit_code, 0);
    assert_string_equal(r.out, "");
    assert_int_equal(r.isolation, best);
    assert_string_equal(r.isolation_words, runner_isolation_name(best));
    runner_result_free(&r);
    /* every sandbox that works here, asked for by name */
    const enum runner_isolation levels[] = {RUNNER_ISO_UNSHARE_NET, RUNNER_ISO_NAMESPACES,
                                            RUNNER_ISO_BWRAP};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        if (!runner_isolation_works(levels[i]))
            continue;
        connect_with(levels[i], port, &r);
        assert_int_equal(r.error, HK_OK);
        assert_int_not_equal(r.exit_code, 0);
        assert_string_equal(r.out, "");
        assert_int_equal(r.isolation, levels[i]);
        runner_result_free(&r);
    }
    close(fd);
}

/* The sandbox's /tmp is private, so a folder under /tmp (a CI clone, a spec's folder) is
 * hidden unless the spec lists it in readable; then it is visible but still read-only. */
static void check_readable_under_tmp(enum runner_isolation iso)
{
    char data[] = "/tmp/hk-runner-readable-XXXXXX";
    char work[600], file[700], script[2000];
    assert_non_null(mkdtemp(data));
    snprintf(work, sizeof work, "%s/work-ro-%d", tmpdir, (int)iso);
    snprintf(file, sizeof file, "%s/input.txt", data);
    assert_int_equal(mkdir(work, 0755), 0);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("seen\n", f);
    fclose(f);
    snprintf(script, sizeof script,
             "cat '%s' 2>/dev/null || echo hidden; touch '%s/new' 2>/dev/null && echo writable",
             file, data);
    runner_spec s = {.cwd = work, .isolation = iso};
    runner_result r;
    run_sh(script, &s, &r);
    assert_string_equal(r.out, "hidden\n");
    runner_result_free(&r);
    const char *readable[] = {data, NULL};
    s.readable = readable;
    run_sh(script, &s, &r);
    assert_string_equal(r.out, "seen\n");
    runner_result_free(&r);
    unlink(file);
    rmdir(data);
}

static void test_sandbox_readable_under_tmp(void **state)
{
    bool any = false;
    if (runner_isolation_works(RUNNER_ISO_BWRAP)) {
        check_readable_under_tmp(RUNNER_ISO_BWRAP);
        any = true;
    }
    if (runner_isolation_works(RUNNER_ISO_NAMESPACES)) {
        check_readable_under_tmp(RUNNER_ISO_NAMESPACES);
        any = true;
    }
    if (!any)
        skip();
}

/* Folders named through a symlink (a launcher cache under a build folder that is a link,
 * session 25): the sandbox binds them where they really are. The script names them by
 * their real paths, which a bind at the link's path would not provide; a bind through the
 * link made bwrap stop with "Can't mkdir". */
static void check_through_a_link(enum runner_isolation iso)
{
    char real[700], link[700], cache[800], work[800], out[800], hidden[800];
    char rcache[800], rwork[800], rout[800], rhidden[800], file[900], script[4000];
    snprintf(real, sizeof real, "%s/real-%d", tmpdir, (int)iso);
    snprintf(link, sizeof link, "%s/link-%d", tmpdir, (int)iso);
    assert_int_equal(mkdir(real, 0755), 0);
    assert_int_equal(symlink(real, link), 0);
    snprintf(rcache, sizeof rcache, "%s/cache", real);
    snprintf(rwork, sizeof rwork, "%s/work", real);
    snprintf(rout, sizeof rout, "%s/out", real);
    snprintf(rhidden, sizeof rhidden, "%s/work/refs", real);
    snprintf(cache, sizeof cache, "%s/cache", link);
    snprintf(work, sizeof work, "%s/work", link);
    snprintf(out, sizeof out, "%s/out", link);
    snprintf(hidden, sizeof hidden, "%s/work/refs", link);
    assert_int_equal(mkdir(rcache, 0755), 0);
    assert_int_equal(mkdir(rwork, 0755), 0);
    assert_int_equal(mkdir(rout, 0755), 0);
    assert_int_equal(mkdir(rhidden, 0755), 0);
    const char *with_text[] = {"cache/input.txt", "work/refs/ref.txt"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(file, sizeof file, "%s/%s", real, with_text[i]);
        FILE *f = fopen(file, "w");
        assert_non_null(f);
        fputs("seen\n", f);
        fclose(f);
    }
    snprintf(script, sizeof script,
             "cat '%s/input.txt' || echo no-cache; "
             "touch ./made && echo work-ok; touch '%s/made' && echo out-ok; "
             "cat '%s/ref.txt' 2>/dev/null || echo refs-hidden; "
             "touch '%s/made' 2>/dev/null && echo cache-writable; exit 0",
             rcache, rout, rhidden, rcache);
    const char *readable[] = {cache, NULL}, *writable[] = {out, NULL}, *hide[] = {hidden, NULL};
    runner_spec s = {.cwd = work, .isolation = iso, .readable = readable, .writable = writable,
                     .hidden = hide};
    runner_result r;
    run_sh(script, &s, &r);
    assert_string_equal(r.err, "");
    assert_string_equal(r.out, "seen\nwork-ok\nout-ok\nrefs-hidden\n");
    assert_int_equal(r.exit_code, 0);
    runner_result_free(&r);
    struct stat st;
    snprintf(file, sizeof file, "%s/made", rwork);
    assert_int_equal(stat(file, &st), 0);
    snprintf(file, sizeof file, "%s/made", rout);
    assert_int_equal(stat(file, &st), 0);
}

static void test_sandbox_folders_through_a_link(void **state)
{
    bool any = false;
    if (runner_isolation_works(RUNNER_ISO_BWRAP)) {
        check_through_a_link(RUNNER_ISO_BWRAP);
        any = true;
    }
    if (runner_isolation_works(RUNNER_ISO_NAMESPACES)) {
        check_through_a_link(RUNNER_ISO_NAMESPACES);
        any = true;
    }
    if (!any)
        skip();
}

static void check_readonly_root(enum runner_isolation iso)
{
    char outside[600], work[600], script[1600], priv[64];
    snprintf(priv, sizeof priv, "/tmp/hk-runner-private-%ld", (long)getpid());
    unlink(priv);
    snprintf(outside, sizeof outside, "%s/outside-%d", tmpdir, (int)iso);
    snprintf(work, sizeof work, "%s/work-%d", tmpdir, (int)iso);
    assert_int_equal(mkdir(outside, 0755), 0);
    assert_int_equal(mkdir(work, 0755), 0);
    /* writes outside the work directory fail; /tmp is private; the work dir is writable */
    snprintf(script, sizeof script,
             "if touch '%s/x' 2>/dev/null; then echo outside-writable; fi; "
             "touch %s && echo tmp-ok; "
             "touch ./inside && echo work-ok",
             outside, priv);
    runner_spec s = {.cwd = work, .isolation = iso};
    runner_result r;
    run_sh(script, &s, &r);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "tmp-ok\nwork-ok\n");
    assert_string_equal(r.isolation_words, runner_isolation_name(iso));
    runner_result_free(&r);
    char path[700];
    struct stat st;
    snprintf(path, sizeof path, "%s/inside", work);
    assert_int_equal(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/x", outside);
    assert_int_not_equal(stat(path, &st), 0);
    assert_int_not_equal(stat(priv, &st), 0);   /* it went to the sandbox's private /tmp */

    /* without the sandbox the same write goes through (the test can fail) */
    runner_spec s2 = {.cwd = work, .isolation = RUNNER_ISO_NONE};
    run_sh(script, &s2, &r);
    assert_non_null(strstr(r.out, "outside-writable"));
    runner_result_free(&r);
    unlink(priv);

    /* timeout inside the sandbox still kills everything */
    runner_spec s3 = {.cwd = work, .isolation = iso, .timeout_ms = 300};
    run_sh("sleep 100 & sleep 100", &s3, &r);
    assert_true(r.timed_out);
    assert_true(r.wall_ms < 3000);
    runner_result_free(&r);
}

static void test_sandbox_readonly_root(void **state)
{
    bool any = false;
    if (runner_isolation_works(RUNNER_ISO_BWRAP)) {
        check_readonly_root(RUNNER_ISO_BWRAP);
        any = true;
    }
    if (runner_isolation_works(RUNNER_ISO_NAMESPACES)) {
        check_readonly_root(RUNNER_ISO_NAMESPACES);
        any = true;
    }
    if (!any)
        skip();
}

/* ---- the namespace sandbox (RUNNER_ISO_NAMESPACES), asked for by name ---- */

static void ns_required(void)
{
    bool works = runner_isolation_works(RUNNER_ISO_NAMESPACES);
    print_message("namespace sandbox here: %s\n", works ? "works" : "not available");
    if (!works)
        skip();
}

static void make_dir(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", tmpdir, name);
    assert_int_equal(mkdir(out, 0755), 0);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_ns_forced_by_environment(void **state)
{
    const char *force = getenv("HK_RUNNER_ISOLATION");
    print_message("HK_RUNNER_ISOLATION=%s; AUTO jobs get: %s\n", force ? force : "(unset)",
                  runner_isolation_name(runner_isolation_available()));
    if (!force || strcmp(force, "namespaces") != 0)
        skip();
    assert_int_equal(runner_isolation_available(), RUNNER_ISO_NAMESPACES);
    runner_spec s = {.cwd = tmpdir, .isolation = RUNNER_ISO_AUTO};
    runner_result r;
    if (runner_isolation_works(RUNNER_ISO_NAMESPACES)) {
        run_sh("echo $$", &s, &r);
        assert_int_equal(r.isolation, RUNNER_ISO_NAMESPACES);
        assert_string_equal(r.out, "2\n");
    } else {
        /* forced: never a weaker level. The job is refused, runner_run says so and runs
         * nothing (a chroot, or a container without user namespaces: found on a fresh
         * Debian 12 chroot, bench/results/2026-12-06-fresh-debian12-s40.md) */
        const char *argv[] = {"sh", "-c", "echo $$", NULL};
        s.argv = argv;
        assert_int_equal(runner_run(&s, &r), HK_EUNSUPPORTED);
        assert_int_equal(r.error, HK_EUNSUPPORTED);
        assert_true(r.out == NULL || r.out[0] == '\0');   /* nothing ran */
    }
    runner_result_free(&r);
}

/* Writes outside the work directory and its writable directories fail; inside they go
 * through; /tmp is the sandbox's own. */
static void test_ns_filesystem(void **state)
{
    ns_required();
    char work[600], extra[600], outside[600], script[4000], host[600], priv[80], path[700];
    make_dir(work, sizeof work, "ns-work");
    make_dir(extra, sizeof extra, "ns-extra");
    make_dir(outside, sizeof outside, "ns-outside");
    snprintf(priv, sizeof priv, "/tmp/hk-runner-ns-private-%ld", (long)getpid());
    unlink(priv);
    /* a file of the host's /tmp (the work directories may be under /tmp too: they are bound
     * in, so counting /tmp's entries inside would count them) */
    snprintf(host, sizeof host, "/tmp/hk-runner-ns-host-%ld", (long)getpid());
    write_file(host, "host\n");
    snprintf(script, sizeof script,
             "for d in /root /etc /var/tmp /usr '%s'; do "
             "  touch \"$d/hk-ns-probe-$$\" 2>/dev/null && echo \"wrote $d\"; "
             "done; "
             "mkdir /hk-ns-root-dir 2>/dev/null && echo 'wrote /'; "
             "touch ./in-work && echo work-ok; "
             "touch '%s/in-extra' && echo extra-ok; "
             "echo private > '%s' && cat '%s'; "
             "test -e '%s' && echo host-tmp-visible || echo host-tmp-hidden",
             outside, extra, priv, priv, host);
    const char *writable[] = {extra, NULL};
    runner_spec s = {.cwd = work, .writable = writable, .isolation = RUNNER_ISO_NAMESPACES};
    runner_result r;
    run_sh(script, &s, &r);
    assert_int_equal(r.error, HK_OK);
    assert_int_equal(r.exit_code, 0);
    /* the sandbox's /tmp is its own: the host's file is not there */
    assert_string_equal(r.out, "work-ok\nextra-ok\nprivate\nhost-tmp-hidden\n");
    unlink(host);
    assert_int_equal(r.isolation, RUNNER_ISO_NAMESPACES);
    assert_string_equal(r.isolation_words, runner_isolation_name(RUNNER_ISO_NAMESPACES));
    assert_non_null(strstr(r.isolation_words, "read-only root"));
    runner_result_free(&r);
    snprintf(path, sizeof path, "%s/in-work", work);
    assert_true(exists(path));
    snprintf(path, sizeof path, "%s/in-extra", extra);
    assert_true(exists(path));
    assert_false(exists(priv));
    assert_false(exists("/hk-ns-root-dir"));

    /* a work directory that does not exist is an error, not a run somewhere else */
    snprintf(path, sizeof path, "%s/no-such-dir", tmpdir);
    runner_spec s2 = {.cwd = path, .isolation = RUNNER_ISO_NAMESPACES};
    const char *argv[] = {"true", NULL};
    s2.argv = argv;
    assert_int_equal(runner_run(&s2, &r), HK_ENOENT);
    runner_result_free(&r);
}

/* A hidden directory is empty and read-only inside, wherever it is, and its files stay
 * untouched outside. */
static void test_ns_hidden(void **state)
{
    ns_required();
    char work[600], ref[600], inner[700], script[3000], path[800];
    make_dir(work, sizeof work, "ns-hid-work");
    make_dir(ref, sizeof ref, "ns-hid-reference");
    snprintf(inner, sizeof inner, "%s/expected", work);
    assert_int_equal(mkdir(inner, 0755), 0);
    snprintf(path, sizeof path, "%s/out.bin", ref);
    write_file(path, "secret reference\n");
    snprintf(path, sizeof path, "%s/out.txt", inner);
    write_file(path, "secret expected\n");
    snprintf(script, sizeof script,
             "cat '%s/out.bin' 2>/dev/null || echo ref-hidden; "
             "ls -A '%s' | wc -l; "
             "cat expected/out.txt 2>/dev/null || echo inner-hidden; "
             "touch '%s/new' 2>/dev/null && echo ref-writable; "
             "touch ./visible && echo work-ok",
             ref, ref, ref);
    const char *hidden[] = {ref, inner, NULL};
    runner_spec s = {.cwd = work, .hidden = hidden, .isolation = RUNNER_ISO_NAMESPACES};
    runner_result r;
    run_sh(script, &s, &r);
    assert_int_equal(r.error, HK_OK);
    assert_string_equal(r.out, "ref-hidden\n0\ninner-hidden\nwork-ok\n");
    runner_result_free(&r);
    snprintf(path, sizeof path, "%s/out.bin", ref);
    assert_true(exists(path));
    snprintf(path, sizeof path, "%s/new", ref);
    assert_false(exists(path));

    /* the same spec without hiding sees the reference (the test can fail); bound in, since
     * the test's folders may be under /tmp, which the sandbox replaces */
    s.hidden = NULL;
    const char *readable[] = {ref, NULL};
    s.readable = readable;
    run_sh(script, &s, &r);
    s.readable = NULL;
    assert_non_null(strstr(r.out, "secret reference"));
    runner_result_free(&r);

    /* bwrap hides the same way. (The file the namespace sandbox made belongs to its
     * job's own uid, which bwrap's capability-less root may not touch: start afresh.) */
    snprintf(path, sizeof path, "%s/visible", work);
    unlink(path);
    if (runner_isolation_works(RUNNER_ISO_BWRAP)) {
        s.hidden = hidden;
        s.isolation = RUNNER_ISO_BWRAP;
        run_sh(script, &s, &r);
        assert_int_equal(r.error, HK_OK);
        assert_string_equal(r.out, "ref-hidden\n0\ninner-hidden\nwork-ok\n");
        runner_result_free(&r);
    }

    /* a level that cannot hide refuses the job rather than run it with the files visible */
    s.hidden = hidden;
    s.isolation = RUNNER_ISO_NONE;
    const char *argv[] = {"true", NULL};
    s.argv = argv;
    assert_int_equal(runner_run(&s, &r), HK_EUNSUPPORTED);
    runner_result_free(&r);
}

/* Its own pid namespace: the program sees itself as pid 2 (pid 1 is the sandbox's init),
 * few processes in /proc, and cannot signal the test process. */
static void test_ns_pids(void **state)
{
    ns_required();
    char script[600];
    snprintf(script, sizeof script,
             "echo pid=$$; "
             "n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo procs=$n; "
             "kill -0 %ld 2>/dev/null && echo can-signal-test || echo cannot-signal",
             (long)getpid());
    runner_spec s = {.cwd = tmpdir, .isolation = RUNNER_ISO_NAMESPACES};
    runner_result r;
    run_sh(script, &s, &r);
    assert_int_equal(r.exit_code, 0);
    /* init, sh; the glob above runs in sh itself */
    assert_string_equal(r.out, "pid=2\nprocs=2\ncannot-signal\n");
    runner_result_free(&r);
}

/* The namespace sandbox's own loopback is up: a tool that talks to its child over
 * 127.0.0.1 (compute-sanitizer's front end and target) works inside, while the host's
 * listeners stay out of reach (test_sandbox_network). With lo down, the connect below
 * fails with "Network is unreachable" instead of reaching the listener. */
static void test_ns_loopback(void **state)
{
    ns_required();
    const char *script =
        "command -v python3 >/dev/null || { echo no-python; exit 0; }; "
        "python3 -c 'import socket\n"
        "s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)\n"
        "c = socket.create_connection(s.getsockname(), timeout=5)\n"
        "a, _ = s.accept(); c.sendall(b\"ok\"); print(a.recv(2).decode())'";
    runner_spec s = {.cwd = tmpdir, .isolation = RUNNER_ISO_NAMESPACES};
    runner_result r;
    run_sh(script, &s, &r);
    if (r.out && !strcmp(r.out, "no-python\n")) {
        runner_result_free(&r);
        skip();
    }
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "ok\n");
    runner_result_free(&r);
}

/* Exit codes, signals, capture and the limits are reported exactly as without the
 * sandbox, although the runner's child is now a waiter outside the namespaces. */
static void test_ns_exit_status(void **state)
{
    ns_required();
    runner_spec s = {.cwd = tmpdir, .isolation = RUNNER_ISO_NAMESPACES};
    runner_result r;
    run_sh("printf hello; printf oops >&2; exit 3", &s, &r);
    assert_int_equal(r.exit_code, 3);
    assert_int_equal(r.term_signal, 0);
    assert_string_equal(r.out, "hello");
    assert_string_equal(r.err, "oops");
    runner_result_free(&r);

    run_sh("kill -SEGV $$", &s, &r);
    assert_int_equal(r.exit_code, -1);
    assert_int_equal(r.term_signal, SIGSEGV);
    runner_result_free(&r);

    run_sh("kill -TERM $$", &s, &r);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_false(r.timed_out);
    runner_result_free(&r);

    const char *missing[] = {"hk-no-such-program-here", NULL};
    runner_spec m = {.argv = missing, .cwd = tmpdir, .isolation = RUNNER_ISO_NAMESPACES};
    assert_int_equal(runner_run(&m, &r), HK_ENOENT);
    assert_int_equal(r.exit_code, -1);
    runner_result_free(&r);

    runner_spec c = {.cwd = tmpdir, .cpu_seconds = 1, .timeout_ms = 20000,
                     .isolation = RUNNER_ISO_NAMESPACES};
    run_sh("while :; do :; done", &c, &r);
    assert_false(r.timed_out);
    assert_true(r.cpu_limit_hit);
    assert_true(r.term_signal == SIGXCPU || r.term_signal == SIGKILL);
    assert_true(r.cpu_ms >= 500);   /* the waiter's rusage includes the program's */
    runner_result_free(&r);

    const char *dd[] = {"dd", "if=/dev/zero", "of=ns-big", "bs=1000", "count=100", NULL};
    runner_spec f = {.argv = dd, .cwd = tmpdir, .file_max = 10000,
                     .isolation = RUNNER_ISO_NAMESPACES};
    assert_int_equal(runner_run(&f, &r), HK_OK);
    assert_true(r.file_limit_hit);
    assert_int_equal(r.term_signal, SIGXFSZ);
    runner_result_free(&r);

    /* the memory limit holds for the program inside (the waiter joined the job's cgroup,
     * or carries RLIMIT_AS, before the namespaces were made) */
    runner_spec mem = {.cwd = tmpdir, .memory_max = 64u << 20, .timeout_ms = 30000,
                       .isolation = RUNNER_ISO_NAMESPACES};
    run_sh("head -c 300000000 /dev/zero | tail -c 200000000 > /dev/null", &mem, &r);
    assert_int_not_equal(r.exit_code, 0);
    if (r.memory == RUNNER_MEM_CGROUP1 || r.memory == RUNNER_MEM_CGROUP2)
        assert_true(r.memory_limit_hit);
    runner_result_free(&r);
}

/* Host processes whose command line is exactly `sleep ARG`. */
static int count_sleepers(const char *arg)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        char path[300], buf[256];
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        if (len > 6 && strcmp(buf, "sleep") == 0 && strcmp(buf + 6, arg) == 0 &&
            !process_gone((pid_t)atol(de->d_name)))
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* A timeout kills the program and the sleeper it forked; a program that ignores SIGTERM
 * gets SIGKILL after the grace period. */
static void test_ns_timeout(void **state)
{
    ns_required();
    char arg[32], script[200];
    snprintf(arg, sizeof arg, "%ld.5", 100 + (long)(getpid() % 1000));
    snprintf(script, sizeof script, "sleep %s & wait", arg);
    runner_spec s = {.cwd = tmpdir, .timeout_ms = 500, .isolation = RUNNER_ISO_NAMESPACES};
    runner_result r;
    const char *argv[] = {"sh", "-c", script, NULL};
    s.argv = argv;
    assert_int_equal(runner_run(&s, &r), HK_OK);
    assert_true(r.timed_out);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_true(r.wall_ms >= 480 && r.wall_ms < 3000);
    runner_result_free(&r);
    int left = 1;
    for (int i = 0; i < 100 && left; i++) {
        left = count_sleepers(arg);
        if (left)
            usleep(10000);
    }
    assert_int_equal(left, 0);

    runner_spec s2 = {.cwd = tmpdir, .timeout_ms = 200, .kill_grace_ms = 200,
                      .isolation = RUNNER_ISO_NAMESPACES};
    run_sh("trap '' TERM; sleep 100; sleep 100", &s2, &r);
    assert_true(r.timed_out);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_true(r.wall_ms >= 380 && r.wall_ms < 3000);
    runner_result_free(&r);

    /* a program that leaves a sleeper behind and exits: the sleeper dies with it */
    snprintf(script, sizeof script, "sleep %s & echo started", arg);
    runner_spec s3 = {.cwd = tmpdir, .timeout_ms = 10000, .isolation = RUNNER_ISO_NAMESPACES};
    run_sh(script, &s3, &r);
    assert_int_equal(r.exit_code, 0);
    assert_false(r.timed_out);
    assert_true(r.wall_ms < 3000);
    runner_result_free(&r);
    left = 1;
    for (int i = 0; i < 100 && left; i++) {
        left = count_sleepers(arg);
        if (left)
            usleep(10000);
    }
    assert_int_equal(left, 0);
}

/* A fork bomb stops at the process cap, and the job ends at once with all it started. */
static void test_ns_process_cap(void **state)
{
    ns_required();
    runner_spec s = {.cwd = tmpdir, .max_processes = 32, .timeout_ms = 20000,
                     .isolation = RUNNER_ISO_NAMESPACES};
    runner_result r;
    /* dash stops at the first fork it cannot make ("Cannot fork") */
    run_sh("i=0; while :; do sleep 30 & i=$((i+1)); echo $i; done", &s, &r);
    assert_false(r.timed_out);
    assert_int_not_equal(r.exit_code, 0);
    assert_true(r.wall_ms < 10000);
    const char *last = r.out, *p;
    for (p = r.out; *p; p++)
        if (p[0] == '\n' && p[1])
            last = p + 1;
    long started = atol(last);
    print_message("sleepers started under a cap of 32: %ld; stderr: %.80s\n", started, r.err);
    assert_true(started >= 20 && started < 32);
    runner_result_free(&r);

    /* the default cap leaves room for ordinary parallel work */
    runner_spec d = {.cwd = tmpdir, .timeout_ms = 20000, .isolation = RUNNER_ISO_NAMESPACES};
    run_sh("i=0; while [ $i -lt 64 ]; do sleep 0.2 & i=$((i+1)); done; wait; echo done", &d, &r);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "done\n");
    runner_result_free(&r);
}

/* With gpu = true the GPU stays usable inside the namespace sandbox (its device nodes are
 * bound into the private /dev); with gpu = false it is not there at all. */
static void test_ns_gpu(void **state)
{
    ns_required();
    if (access("/dev/nvidiactl", F_OK) != 0) {
        print_message("skipped: no GPU\n");
        skip();
    }
    const char *argv[] = {"nvidia-smi", "-L", NULL};
    runner_spec s = {.argv = argv, .cwd = tmpdir, .gpu = true, .timeout_ms = 60000,
                     .isolation = RUNNER_ISO_NAMESPACES};
    runner_result r;
    int rc = runner_run(&s, &r);
    if (rc == HK_ENOENT) {
        print_message("skipped: no nvidia-smi\n");
        runner_result_free(&r);
        skip();
    }
    print_message("gpu = true: exit %d: %.200s%.200s\n", r.exit_code, r.out, r.err);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "GPU 0"));
    runner_result_free(&r);
    s.gpu = false;
    assert_int_equal(runner_run(&s, &r), HK_OK);
    print_message("gpu = false: exit %d: %.200s%.200s\n", r.exit_code, r.out, r.err);
    assert_int_not_equal(r.exit_code, 0);
    runner_result_free(&r);
}

/* An explicit level that does not work here is refused, never replaced by a weaker one. */
static void test_no_silent_downgrade(void **state)
{
    const enum runner_isolation levels[] = {RUNNER_ISO_UNSHARE_NET, RUNNER_ISO_NAMESPACES,
                                            RUNNER_ISO_BWRAP};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        runner_spec s = {.cwd = tmpdir, .isolation = levels[i]};
        runner_result r;
        const char *argv[] = {"true", NULL};
        s.argv = argv;
        int rc = runner_run(&s, &r);
        print_message("%s: %s\n", runner_isolation_name(levels[i]),
                      runner_isolation_works(levels[i]) ? "works" : "not available");
        if (runner_isolation_works(levels[i])) {
            assert_int_equal(rc, HK_OK);
            assert_int_equal(r.isolation, levels[i]);
        } else {
            assert_int_equal(rc, HK_EUNSUPPORTED);
        }
        runner_result_free(&r);
    }
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_codes_and_capture),
        cmocka_unit_test(test_not_found_and_bad_spec),
        cmocka_unit_test(test_env_and_cwd),
        cmocka_unit_test(test_timeout_kills_grandchildren),
        cmocka_unit_test(test_output_cap),
        cmocka_unit_test(test_cpu_file_core_limits),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_pool_parallel),
        cmocka_unit_test(test_sandbox_network),
        cmocka_unit_test(test_sandbox_readonly_root),
        cmocka_unit_test(test_sandbox_readable_under_tmp),
        cmocka_unit_test(test_sandbox_folders_through_a_link),
        cmocka_unit_test(test_ns_forced_by_environment),
        cmocka_unit_test(test_ns_filesystem),
        cmocka_unit_test(test_ns_hidden),
        cmocka_unit_test(test_ns_pids),
        cmocka_unit_test(test_ns_exit_status),
        cmocka_unit_test(test_ns_timeout),
        cmocka_unit_test(test_ns_process_cap),
        cmocka_unit_test(test_ns_loopback),
        cmocka_unit_test(test_ns_gpu),
        cmocka_unit_test(test_no_silent_downgrade),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
