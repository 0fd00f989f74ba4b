/* Local runner: runs one argv (a compiler, a benchmark program) as a child process
 * with limits (wall clock, CPU time, output, file size, memory, no core dumps) and in
 * the best sandbox this machine offers, capturing stdout and stderr into capped buffers.
 * Blocking: meant for the episode worker process, never for the LSP loop. A pool runs
 * several children at once (parallel compiles) and hands back whichever ends first.
 * Not thread-safe: one thread per pool; the isolation probe caches process-wide. */
#ifndef HK_RUNNERS_RUNNER_H
#define HK_RUNNERS_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Isolation, weakest to strongest. RUNNER_ISO_AUTO asks for the strongest available, or
 * for the level named by the environment variable HK_RUNNER_ISOLATION (bwrap, namespaces,
 * net, none), which forces one level for every AUTO job of the process (to test the
 * namespace sandbox where bwrap exists). */
enum runner_isolation {
    RUNNER_ISO_AUTO = 0,
    RUNNER_ISO_NONE,        /* plain child process */
    RUNNER_ISO_UNSHARE_NET, /* own network namespace (no network); filesystem shared */
    RUNNER_ISO_NAMESPACES,  /* bwrap's sandbox from namespaces directly (no bwrap needed):
                             * no network, read-only root, private /tmp and /dev, own pids */
    RUNNER_ISO_BWRAP,       /* bubblewrap: no network, read-only root, private /tmp */
};

/* How a memory limit is enforced. RLIMIT_AS is never used for GPU programs: the CUDA
 * driver reserves tens of GiB of address space and fails under it. */
enum runner_memory_method {
    RUNNER_MEM_NONE = 0,  /* no limit (not asked for, or nothing usable: see memory_words) */
    RUNNER_MEM_CGROUP2,   /* cgroup v2 memory.max */
    RUNNER_MEM_CGROUP1,   /* cgroup v1 memory.limit_in_bytes */
    RUNNER_MEM_RLIMIT_AS, /* RLIMIT_AS (CPU-only programs) */
};

#define RUNNER_KEEP_FDS_MAX 4

/* What to run. Value struct; every pointer is borrowed for the duration of the call
 * that takes it (runner_pool_submit copies what it keeps). Zero means "default/none". */
typedef struct {
    const char *const *argv;      /* NULL-terminated; argv[0] is looked up in PATH. Required. */
    const char *cwd;              /* working directory; NULL: the caller's */
    const char *const *env;       /* whole environment ("K=V", NULL-terminated); NULL: inherit */
    const char *const *env_set;   /* "K=V" entries set on top of env (or the inherited one) */
    unsigned timeout_ms;          /* wall clock; 0: none. The whole process group is killed. */
    unsigned kill_grace_ms;       /* SIGTERM to SIGKILL delay on timeout; 0: 500 */
    unsigned cpu_seconds;         /* RLIMIT_CPU per process; 0: none */
    size_t output_max;            /* cap per stream (stdout, stderr); 0: 1 MiB */
    uint64_t file_max;            /* RLIMIT_FSIZE in bytes; 0: none */
    uint64_t memory_max;          /* bytes for the whole job; 0: none */
    bool gpu;                     /* uses a GPU: device nodes stay visible in the sandbox and
                                   * RLIMIT_AS is never used */
    enum runner_isolation isolation;   /* wanted; AUTO: the strongest available */
    const char *const *writable;  /* extra directories writable inside bwrap (cwd always is) */
    const char *const *readable;  /* extra directories bound read-only inside bwrap: needed for
                                   * paths under /tmp, which the sandbox replaces by a private
                                   * tmpfs (the rest of the root is visible read-only anyway) */
    const char *const *hidden;    /* directories the program must not read (reference outputs):
                                   * covered by an empty read-only tmpfs in the bwrap and
                                   * namespace sandboxes; on the weaker levels a job with any
                                   * is refused (HK_EUNSUPPORTED), never run with them visible */
    const int *keep_fds;          /* descriptors the program inherits although the caller
                                   * opened them close-on-exec (cleared in the child only, so
                                   * no other child gets them): n_keep_fds of them, each > 2,
                                   * at most RUNNER_KEEP_FDS_MAX; HK_EINVAL otherwise. They
                                   * survive bwrap and the namespace sandbox */
    size_t n_keep_fds;
    unsigned max_processes;       /* RLIMIT_NPROC (threads count too). 0: 256 in the namespace
                                   * sandbox (counted per job there), none elsewhere. Set
                                   * explicitly, it applies on every level, where the kernel
                                   * counts every process of the uid and exempts root */
} runner_spec;

/* The outcome of one child. Owns out and err (runner_result_free). */
typedef struct {
    int error;              /* HK_OK when the program was started; else why it could not be
                             * (HK_ENOENT: argv[0] not found, HK_EIO, HK_ENOMEM, HK_EUNSUPPORTED) */
    int exit_code;          /* exit status; -1 when ended by a signal or never started */
    int term_signal;        /* signal that ended it; 0 when it exited */
    bool timed_out;         /* killed because timeout_ms passed */
    bool cpu_limit_hit;     /* ended by RLIMIT_CPU (SIGXCPU, or SIGKILL at the hard limit) */
    bool file_limit_hit;    /* ended by RLIMIT_FSIZE (SIGXFSZ) */
    bool memory_limit_hit;  /* the memory cgroup recorded an OOM kill */
    bool out_truncated;     /* stdout exceeded output_max; the excess was dropped */
    bool err_truncated;
    long wall_ms;
    long cpu_ms;            /* user + system time of the child and what it reaped, or of the
                             * job's cgroup (cgroup v2) when that is more: in bwrap's sandbox
                             * the rusage misses what ran inside */
    char *out;              /* NUL-terminated (never NULL after a run); hk_free */
    size_t out_len;
    char *err;
    size_t err_len;
    enum runner_isolation isolation;   /* what was actually used */
    enum runner_memory_method memory;  /* how memory_max was enforced */
    const char *isolation_words;       /* static sentence for the report */
    const char *memory_words;          /* static sentence for the report */
} runner_result;

/* Frees what *r owns and zeroes it; r may be NULL. */
void runner_result_free(runner_result *r);

/* Runs spec to completion (blocking). HK_OK when the child ran, whatever its exit status
 * (look at r); HK_EINVAL for a bad spec; otherwise r->error. *r is always initialized and
 * must be freed with runner_result_free. */
int runner_run(const runner_spec *spec, runner_result *r);

/* The isolation a RUNNER_ISO_AUTO job gets here: the level forced by HK_RUNNER_ISOLATION
 * (returned even when it does not work here: such jobs then fail with HK_EUNSUPPORTED),
 * else the strongest that works, in the order bwrap, namespaces, network namespace, none.
 * The first call probes (runs bwrap once, builds the namespace sandbox once around `true`,
 * tries unshare in a child) and caches. */
enum runner_isolation runner_isolation_available(void);
/* Whether a job asking for iso explicitly can have it here (probe cached). AUTO: whether
 * what runner_isolation_available() names works. */
bool runner_isolation_works(enum runner_isolation iso);
/* Static description of an isolation level (never NULL). */
const char *runner_isolation_name(enum runner_isolation iso);
/* Static short name of a level, as HK_RUNNER_ISOLATION spells it: "bwrap", "namespaces",
 * "net", "none"; "auto" for RUNNER_ISO_AUTO (never NULL). */
const char *runner_isolation_key(enum runner_isolation iso);
/* How a memory limit would be enforced for a job (probe cached); words: static sentence. */
enum runner_memory_method runner_memory_available(bool gpu, const char **words);

/* ---- pool: up to max_parallel children at once, results in completion order ---- */
typedef struct runner_pool runner_pool;

/* New pool in *out. max_parallel 0: number of online CPUs. HK_OK, HK_ENOMEM. */
int runner_pool_new(unsigned max_parallel, runner_pool **out);
/* Kills every running child (whole groups) and frees the pool; p may be NULL. */
void runner_pool_free(runner_pool *p);
/* Queues a job (spec deep-copied); it starts as soon as a slot is free. tag is returned
 * with its result. HK_OK, HK_EINVAL, HK_ENOMEM. */
int runner_pool_submit(runner_pool *p, const runner_spec *spec, void *tag);
/* Jobs queued or running. */
size_t runner_pool_pending(const runner_pool *p);
/* Starts queued jobs into free slots, then blocks until one job ends and hands its result
 * (*r, runner_result_free) and tag. A job that could not start comes back here too, with
 * r->error set. HK_OK; HK_ENOENT when nothing is queued or running; HK_ETIMEDOUT when
 * wait_ms (>= 0) passed first (-1: wait as long as it takes). */
int runner_pool_wait(runner_pool *p, int wait_ms, void **tag, runner_result *r);
/* Pushes back the timeout of every running job that has one and has not hit it yet by ms:
 * time a job spent waiting for something outside it (its turn at the GPU) is not counted
 * against its limit. */
void runner_pool_delay_timeouts(runner_pool *p, unsigned ms);
/* Kills every running child and drops queued jobs (their results are not delivered). */
void runner_pool_cancel(runner_pool *p);

#endif
