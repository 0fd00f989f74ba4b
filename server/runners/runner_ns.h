/* Namespace sandbox: the bubblewrap sandbox rebuilt from Linux namespaces directly, for
 * machines without bwrap (the GPU machine). Internal to the runners module: runner.c
 * prepares a plan before fork (allocations, path canonicalization, directory listing)
 * and the forked child enters it with system calls only, since the parent may have
 * other threads and nothing but async-signal-safe calls are allowed after fork. */
#ifndef HK_RUNNERS_RUNNER_NS_H
#define HK_RUNNERS_RUNNER_NS_H

#include <stdbool.h>

/* What the sandbox should show the program. Value struct; pointers are borrowed for the
 * duration of runner_ns_plan_new (the plan keeps copies). Paths must be absolute. */
typedef struct {
    const char *cwd;                /* work directory, bound writable and entered; NULL:
                                     * nothing bound, the program starts in "/" (the probe) */
    const char *const *writable;    /* more directories bound writable at the same path */
    const char *const *readable;    /* directories bound read-only: paths under /tmp, which
                                     * the sandbox replaces by a private tmpfs */
    const char *const *hidden;      /* directories covered by an empty read-only tmpfs */
    bool gpu;                       /* bind the GPU device nodes into the private /dev */
    bool userns;                    /* enter a user namespace first (not root, or a root
                                     * without CAP_SYS_ADMIN); ids map to themselves */
    unsigned max_processes;         /* RLIMIT_NPROC for the program; 0: none */
} runner_ns_options;

typedef struct runner_ns_plan runner_ns_plan;

/* New plan in *out (runner_ns_plan_free). Directories in writable/readable/hidden that do
 * not exist are left out, as bwrap's runner does; cwd must exist. HK_OK, HK_ENOMEM,
 * HK_ENOENT (cwd missing), HK_ETOOBIG (a path over PATH_MAX), HK_EINVAL (a relative path). */
int runner_ns_plan_new(const runner_ns_options *o, runner_ns_plan **out);
/* Frees a plan; p may be NULL. */
void runner_ns_plan_free(runner_ns_plan *p);

/* Child side, right after the runner's fork, after stdio, limits and signal dispositions
 * are set. Creates the namespaces and forks twice: the calling process stays outside as
 * a waiter that ends exactly as the program ends (same exit code, same signal), an init
 * process (pid 1) builds the new root and reaps, and the program's process (pid 2) drops
 * its privileges and returns 0 here so the caller execs it. status_fd (the runner's
 * CLOEXEC exec-status pipe) is closed in the waiter and init so that only the program's
 * exec closes the last copy. Returns -1 with errno set when the sandbox cannot be built
 * (in whichever process failed; the caller reports errno and exits 127). Never returns
 * in the waiter and init. Async-signal-safe. */
int runner_ns_enter(const runner_ns_plan *p, int status_fd);

#endif
