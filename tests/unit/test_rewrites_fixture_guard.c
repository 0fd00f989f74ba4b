/* The guard of rw_fixture.h's queued compile checks: rwf_nvcc_compiles only queues a text,
 * and rwf_nvcc_queued, listed last in a test binary, compiles the queue. A binary whose
 * list forgets rwf_nvcc_queued would pass with its texts never compiled; the atexit guard
 * (rwf_nvcc_unchecked_at_exit) fails it instead, naming the count. Shown here on this
 * binary run again as a child: with a text queued and rwf_nvcc_queued not listed, cmocka
 * says every test passed and the binary still exits 1 with the guard's message; with
 * rwf_nvcc_queued listed last it exits 0; a binary that queued nothing exits 0. Skipped
 * without nvcc (rwf_nvcc_compiles queues nothing then). */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "rw_fixture.h"

#define CHILD_ENV "HK_GUARD_CHILD"

/* In the child: queue one small, valid text. */
static void queue_one(void **state)
{
    (void)state;
    rwf_nvcc_compiles("__global__ void hk_guard_k(float *x) { x[threadIdx.x] = 1.0f; }\n",
                      "guard_k");
}

static void nothing_queued(void **state) { (void)state; }

static int setup(void **state)
{
    (void)state;
    return rwf_setup("fixture-guard");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

struct child {
    int code;      /* exit status, or -1 when it did not exit */
    char err[8192];
};

/* Runs this binary as a child with CHILD_ENV=mode; its stderr and stdout into c->err. */
static void run_child(const char *mode, struct child *c)
{
    memset(c, 0, sizeof *c);
    c->code = -1;
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        setenv(CHILD_ENV, mode, 1);
        execl(self, self, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fds[0], c->err + len, sizeof c->err - 1 - len);
        if (r <= 0)
            break;
        len += (size_t)r;
        if (len == sizeof c->err - 1) { /* keep the tail */
            memmove(c->err, c->err + len / 2, len - len / 2);
            len -= len / 2;
        }
    }
    c->err[len] = '\0';
    close(fds[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st))
        c->code = WEXITSTATUS(st);
}

static void test_unrun_queue_fails_the_binary(void **state)
{
    (void)state;
    if (access(NVCC, X_OK) != 0)
        skip();
    struct child c;
    run_child("forgot", &c);
    if (c.code != 1 || !strstr(c.err, "error: 1 queued compile check(s) never ran") ||
        !strstr(c.err, "[  PASSED  ] 1 test(s)."))
        fail_msg("child without rwf_nvcc_queued: exit %d, want 1 with the guard's message after "
                 "its test passed:\n%s", c.code, c.err);
}

static void test_listed_queue_passes(void **state)
{
    (void)state;
    if (access(NVCC, X_OK) != 0)
        skip();
    struct child c;
    run_child("listed", &c);
    if (c.code != 0 || strstr(c.err, "never ran"))
        fail_msg("child with rwf_nvcc_queued last: exit %d, want 0:\n%s", c.code, c.err);
    run_child("none", &c);
    if (c.code != 0 || strstr(c.err, "never ran"))
        fail_msg("child that queued nothing: exit %d, want 0:\n%s", c.code, c.err);
}

int main(void)
{
    const char *mode = getenv(CHILD_ENV);
    if (mode && !strcmp(mode, "forgot")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(queue_one)};
        return cmocka_run_group_tests(t, setup, teardown);
    }
    if (mode && !strcmp(mode, "listed")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(queue_one),
                                       cmocka_unit_test(rwf_nvcc_queued)};
        return cmocka_run_group_tests(t, setup, teardown);
    }
    if (mode && !strcmp(mode, "none")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(nothing_queued)};
        return cmocka_run_group_tests(t, setup, teardown);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unrun_queue_fails_the_binary),
        cmocka_unit_test(test_listed_queue_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
