/* runner_child with /bin/sh children on a libuv loop: captured output and exit status, a
 * head cap and a tail, lines with an overlong one dropped and a last line without its
 * newline, a timeout killing a group that has a grandchild (SIGKILL at once, and SIGTERM
 * ignored then SIGKILL after the grace), cancel, a missing program reported both ways,
 * kill-all by tag; the child in its own session, in the spec's folder, argv[0] found on the
 * spec environment's PATH, signals at their defaults; starting a child copies none of the
 * parent's memory (no fork: the parent's later writes take no copy-on-write faults). Each
 * case ends with every block freed (hk_alloc_live). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/hk.h"
#include "runners/child.h"

struct outcome {
    int calls;
    runner_child_exit e;
    char out[256], err[256];
    char lines[8][64];
    int n_lines;
    runner_child *c;
    int pgid;
    int kill_all_calls;
    uint64_t done_at;
};

static void on_done(runner_child *c, const runner_child_exit *e, void *data)
{
    struct outcome *o = data;
    o->calls++;
    assert_ptr_equal(c, o->c);
    o->e = *e;
    snprintf(o->out, sizeof o->out, "%s", e->out ? e->out : "");
    snprintf(o->err, sizeof o->err, "%s", e->err ? e->err : "");
    o->e.out = o->e.err = NULL;
    o->done_at = uv_hrtime();
    runner_child_cancel(c); /* from inside done: a no-op, never a second call */
    assert_int_equal(runner_child_pid(c), 0);
}

static void on_line(const char *line, size_t n, void *data)
{
    struct outcome *o = data;
    assert_true(o->n_lines < 8);
    assert_int_equal(strlen(line), n); /* NUL-terminated at n */
    snprintf(o->lines[o->n_lines++], 64, "%.*s", (int)n, line);
}

static char *sh_argv[4] = {"/bin/sh", "-c", NULL, NULL};

static runner_child_spec sh_spec(const char *script, struct outcome *o)
{
    sh_argv[2] = (char *)script;
    runner_child_spec s = {
        .argv = sh_argv,
        .name = "test child",
        .out = {.mode = RUNNER_CHILD_CAPTURE, .max = 200},
        .err = {.mode = RUNNER_CHILD_CAPTURE, .max = 200},
        .done = on_done,
        .data = o,
    };
    return s;
}

/* The group is empty: its killed members reparent to us (a subreaper, see setup) and are
 * reaped here, since init in a container may not reap. */
static bool group_gone(int pgid)
{
    for (int i = 0; i < 300; i++) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (kill(-pgid, 0) != 0 && errno == ESRCH)
            return true;
        usleep(10000);
    }
    return false;
}

/* Runs one child to its report on a fresh loop; the caller's spec. */
static void run_spec(runner_child_spec *s, struct outcome *o)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    memset(o, 0, sizeof *o);
    s->data = o;
    long live = hk_alloc_live();
    assert_int_equal(runner_child_start(&loop, s, &o->c, NULL), HK_OK);
    o->pgid = runner_child_pid(o->c);
    assert_int_equal(o->calls, 0); /* never from inside start */
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(o->calls, 1);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(hk_alloc_live(), live);
}

static void captures_output_and_status(void **state)
{
    struct outcome o;
    runner_child_spec s = sh_spec("echo out; echo err >&2; exit 3", &o);
    run_spec(&s, &o);
    assert_true(o.e.spawned);
    assert_false(o.e.timed_out || o.e.canceled || o.e.not_found);
    assert_int_equal(o.e.exit_status, 3);
    assert_int_equal(o.e.term_signal, 0);
    assert_string_equal(o.out, "out\n");
    assert_string_equal(o.err, "err\n");
    assert_int_equal(o.e.out_len, 4);
    assert_true(o.pgid > 0);
    assert_true(group_gone(o.pgid));
}

static void caps_head_and_tail(void **state)
{
    struct outcome o;
    /* 1 MB through a 10-byte cap: the child must not block on a full pipe */
    runner_child_spec s = sh_spec("head -c 1000000 /dev/zero | tr '\\0' y; "
                                  "printf 0123456789abcdef >&2", &o);
    s.out.max = 10;
    s.err.mode = RUNNER_CHILD_TAIL;
    s.err.max = 4;
    run_spec(&s, &o);
    assert_int_equal(o.e.exit_status, 0);
    assert_int_equal(o.e.out_len, 10);
    assert_string_equal(o.out, "yyyyyyyyyy");
    assert_int_equal(o.e.err_len, 4);
    assert_string_equal(o.err, "cdef");
}

static void delivers_lines(void **state)
{
    struct outcome o;
    /* a 5000-byte line over a 100-byte max is dropped whole; the last has no newline */
    runner_child_spec s = sh_spec("echo first; echo; head -c 5000 /dev/zero | tr '\\0' x; "
                                  "echo; echo after; printf last", &o);
    s.out = (runner_child_stream){.mode = RUNNER_CHILD_LINES, .max = 100, .on_line = on_line};
    s.err.mode = RUNNER_CHILD_IGNORE;
    run_spec(&s, &o);
    assert_int_equal(o.e.exit_status, 0);
    assert_int_equal(o.n_lines, 4);
    assert_string_equal(o.lines[0], "first");
    assert_string_equal(o.lines[1], "");
    assert_string_equal(o.lines[2], "after");
    assert_string_equal(o.lines[3], "last");
    assert_int_equal(o.e.dropped_lines, 1);
    assert_null(o.e.out);
}

static void timeout_kills_the_group(void **state)
{
    struct outcome o;
    /* the grandchild holds the pipes: only a kill of the whole group ends this promptly */
    runner_child_spec s = sh_spec("sleep 100 & sleep 100", &o);
    s.timeout_ms = 300;
    uint64_t t0 = uv_hrtime();
    run_spec(&s, &o);
    uint64_t ms = (o.done_at - t0) / 1000000;
    assert_true(o.e.timed_out);
    assert_false(o.e.canceled);
    assert_int_equal(o.e.term_signal, SIGKILL);
    /* libuv's timers count from the loop's cached millisecond clock, which can be up to a
     * millisecond behind uv_hrtime's t0 (the session 50 CI's ASan pass: 299 ms), and ms
     * truncates: 298 is still the 300 ms timeout, 1500 a kill that did not come promptly */
    if (ms < 298 || ms > 1500)
        fail_msg("a 300 ms timeout reported after %llu ms", (unsigned long long)ms);
    assert_true(group_gone(o.pgid));
}

static void timeout_grace_then_sigkill(void **state)
{
    struct outcome o;
    /* SIGTERM ignored by the shell and its grandchild (ignored signals survive exec) */
    runner_child_spec s = sh_spec("trap '' TERM; sleep 100 & sleep 100", &o);
    s.timeout_ms = 200;
    s.kill_grace_ms = 400;
    uint64_t t0 = uv_hrtime();
    run_spec(&s, &o);
    uint64_t ms = (o.done_at - t0) / 1000000;
    assert_true(o.e.timed_out);
    assert_int_equal(o.e.term_signal, SIGKILL);
    if (ms < 600 || ms > 2500)
        fail_msg("timeout 200 ms + grace 400 ms reported after %llu ms", (unsigned long long)ms);
    assert_true(group_gone(o.pgid));
}

static void cancel_later(uv_timer_t *t)
{
    struct outcome *o = t->data;
    runner_child_cancel(o->c);
    runner_child_cancel(o->c); /* twice is harmless */
    uv_close((uv_handle_t *)t, NULL);
}

static void cancel_kills_the_group(void **state)
{
    for (int graceful = 0; graceful < 2; graceful++) {
        struct outcome o;
        runner_child_spec s = sh_spec("sleep 100 & sleep 100", &o);
        s.kill_grace_ms = graceful ? 2000 : 0; /* sleep dies of the SIGTERM: no SIGKILL */
        uv_loop_t loop;
        uv_loop_init(&loop);
        memset(&o, 0, sizeof o);
        long live = hk_alloc_live();
        assert_int_equal(runner_child_start(&loop, &s, &o.c, NULL), HK_OK);
        o.pgid = runner_child_pid(o.c);
        uv_timer_t t;
        uv_timer_init(&loop, &t);
        t.data = &o;
        uv_timer_start(&t, cancel_later, 100, 0);
        uint64_t t0 = uv_hrtime();
        uv_run(&loop, UV_RUN_DEFAULT);
        uint64_t ms = (o.done_at - t0) / 1000000;
        assert_int_equal(o.calls, 1);
        assert_true(o.e.canceled);
        assert_false(o.e.timed_out);
        assert_int_equal(o.e.term_signal, graceful ? SIGTERM : SIGKILL);
        if (ms > 1500)
            fail_msg("cancel reported after %llu ms", (unsigned long long)ms);
        assert_int_equal(uv_loop_close(&loop), 0);
        assert_int_equal(hk_alloc_live(), live);
        assert_true(group_gone(o.pgid));
    }
}

static void missing_program(void **state)
{
    char *argv[] = {"/nonexistent/bin/prog", NULL};
    struct outcome o;
    runner_child_spec s = sh_spec("", &o);
    s.argv = argv;
    /* without report_not_found: the start's error, and done never comes */
    uv_loop_t loop;
    uv_loop_init(&loop);
    memset(&o, 0, sizeof o);
    long live = hk_alloc_live();
    int uerr = 0;
    runner_child *c = (runner_child *)&o; /* any non-NULL: start must clear it */
    assert_int_equal(runner_child_start(&loop, &s, &c, &uerr), HK_ENOENT);
    assert_null(c);
    assert_int_equal(uerr, UV_ENOENT);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(o.calls, 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(hk_alloc_live(), live);

    /* with it: reported on a later iteration */
    s.report_not_found = true;
    run_spec(&s, &o);
    assert_true(o.e.not_found);
    assert_false(o.e.spawned);
    assert_int_equal(o.pgid, 0);
    /* no program at all (the caller looked and found none) */
    s.argv = NULL;
    run_spec(&s, &o);
    assert_true(o.e.not_found);
    s.report_not_found = false;
    assert_int_equal(runner_child_start(&loop, &s, NULL, NULL), HK_EINVAL);
}

/* Its own session and group, the spec's cwd, PATH and environment, and SIGTERM at its
 * default though this process ignores it and blocks SIGUSR1 (a server's loop thread may). */
static void session_cwd_env_signals(void **state)
{
    (void)state;
    char dir[] = "/tmp/hk-child-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char prog[64];
    snprintf(prog, sizeof prog, "%s/hk-child-prog", dir);
    FILE *f = fopen(prog, "w");
    assert_non_null(f);
    /* pid, session, cwd, a variable of the spec's environment, then a SIGTERM to itself */
    fputs("#!/bin/sh\necho \"$$ $(cut -d' ' -f6 /proc/$$/stat) $(pwd) $HK_CHILD_X\"\n"
          "kill -TERM $$\necho survived\n", f);
    fclose(f);
    assert_int_equal(chmod(prog, 0700), 0);
    char path_var[80], *env[] = {path_var, "HK_CHILD_X=seen", NULL};
    snprintf(path_var, sizeof path_var, "PATH=/usr/bin:/bin:%s", dir);
    char *argv[] = {"hk-child-prog", NULL}; /* not on this process's PATH */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_term;
    sigaction(SIGTERM, &ign, &old_term);
    sigset_t usr1, old_mask;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, &old_mask);
    struct outcome o;
    runner_child_spec s = sh_spec("", &o);
    s.argv = argv;
    s.env = env;
    s.cwd = dir;
    run_spec(&s, &o);
    sigaction(SIGTERM, &old_term, NULL);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    assert_true(o.e.spawned);
    assert_int_equal(o.e.term_signal, SIGTERM);
    int pid = 0, sid = -1;
    char cwd[64] = "", x[16] = "";
    assert_int_equal(sscanf(o.out, "%d %d %63s %15s", &pid, &sid, cwd, x), 4);
    assert_int_equal(pid, o.pgid);
    assert_int_equal(sid, pid);
    assert_string_equal(cwd, dir);
    assert_string_equal(x, "seen");
    assert_null(strstr(o.out, "survived"));
    unlink(prog);
    rmdir(dir);
}

static long thread_faults(void)
{
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
    return ru.ru_minflt + ru.ru_majflt;
}

/* A fork copies the page tables and write-protects every private page: each page the
 * parent writes next is a fault, for as much memory as it has (the language server: tens
 * of MB, 10-24 ms of its loop per compile on the 2-core machine). Starting a child must
 * not: after a start, writing 16 MB the parent had already touched takes (almost) no
 * faults. A count, not a time: the same on any machine and load. */
static void start_copies_no_memory(void **state)
{
    (void)state;
    size_t bytes = (size_t)16 << 20, pages = bytes / 4096;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    madvise(p, bytes, MADV_NOHUGEPAGE); /* a fault per 4 KB page */
    memset(p, 1, bytes);                /* all present and writable */
    struct outcome o;
    runner_child_spec s = sh_spec("sleep 0.2", &o);
    uv_loop_t loop;
    uv_loop_init(&loop);
    memset(&o, 0, sizeof o);
    assert_int_equal(runner_child_start(&loop, &s, &o.c, NULL), HK_OK);
    long f0 = thread_faults();
    memset(p, 2, bytes);
    long faults = thread_faults() - f0;
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(o.calls, 1);
    assert_int_equal(o.e.exit_status, 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    munmap(p, bytes);
    print_message("faults writing %zu pages after a start: %ld\n", pages, faults);
    assert_true(faults < (long)pages / 4);
}

static void count_kill_all(void *data) { ((struct outcome *)data)->kill_all_calls++; }

static void kill_all_later(uv_timer_t *t)
{
    runner_child_kill_all(t->data);
    uv_close((uv_handle_t *)t, NULL);
}

static void cancel_b(uv_timer_t *t)
{
    struct outcome *o = t->data;
    runner_child_cancel(o->c);
    uv_close((uv_handle_t *)t, NULL);
}

static void kill_all_by_tag(void **state)
{
    static const char tag_a = 'a', tag_b = 'b';
    struct outcome a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    runner_child_spec sa = sh_spec("sleep 100 & sleep 100", &a);
    sa.tag = &tag_a;
    sa.on_kill_all = count_kill_all;
    sa.kill_grace_ms = 5000; /* the shutdown path kills at once all the same */
    uv_loop_t loop;
    uv_loop_init(&loop);
    long live = hk_alloc_live();
    assert_int_equal(runner_child_start(&loop, &sa, &a.c, NULL), HK_OK);
    runner_child_spec sb = sh_spec("sleep 100", &b);
    sb.tag = &tag_b;
    sb.on_kill_all = count_kill_all;
    assert_int_equal(runner_child_start(&loop, &sb, &b.c, NULL), HK_OK);
    a.pgid = runner_child_pid(a.c);
    b.pgid = runner_child_pid(b.c);
    uv_timer_t t1, t2;
    uv_timer_init(&loop, &t1);
    uv_timer_init(&loop, &t2);
    t1.data = (void *)&tag_a;
    t2.data = &b;
    uv_timer_start(&t1, kill_all_later, 100, 0);
    uv_timer_start(&t2, cancel_b, 700, 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(a.calls, 1);
    assert_int_equal(b.calls, 1);
    assert_true(a.e.canceled);
    assert_int_equal(a.e.term_signal, SIGKILL);
    assert_int_equal(a.kill_all_calls, 1);
    assert_int_equal(b.kill_all_calls, 0);
    /* b outlived a's kill: it ended by its own cancel, later */
    assert_true(b.done_at > a.done_at + 300 * 1000000ull);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(hk_alloc_live(), live);
    assert_true(group_gone(a.pgid));
    assert_true(group_gone(b.pgid));
    runner_child_kill_all(NULL); /* nothing live: a no-op */
}

static void feed_lines_across_reads(void **state)
{
    struct outcome o;
    memset(&o, 0, sizeof o);
    struct hk_buf b;
    hk_buf_init(&b, 8);
    size_t dropped = 0;
    assert_int_equal(runner_feed_lines(&b, "ab", 2, 8, &dropped, on_line, &o), HK_OK);
    assert_int_equal(runner_feed_lines(&b, "c\n0123456789", 12, 8, &dropped, on_line, &o),
                     HK_OK);
    assert_int_equal(runner_feed_lines(&b, "xy\nz\n", 5, 8, &dropped, on_line, &o), HK_OK);
    assert_int_equal(o.n_lines, 2);
    assert_string_equal(o.lines[0], "abc");
    assert_string_equal(o.lines[1], "z");
    assert_int_equal(dropped, 1);
    hk_buf_free(&b);
}

static int setup(void **state)
{
    (void)state;
    /* Killed grandchildren come back to this process to be reaped (group_gone). */
    return prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(captures_output_and_status),
        cmocka_unit_test(caps_head_and_tail),
        cmocka_unit_test(delivers_lines),
        cmocka_unit_test(timeout_kills_the_group),
        cmocka_unit_test(timeout_grace_then_sigkill),
        cmocka_unit_test(cancel_kills_the_group),
        cmocka_unit_test(missing_program),
        cmocka_unit_test(session_cwd_env_signals),
        cmocka_unit_test(start_copies_no_memory),
        cmocka_unit_test(kill_all_by_tag),
        cmocka_unit_test(feed_lines_across_reads),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
