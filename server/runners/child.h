/* An asynchronous child on a libuv loop: one program in its own process group, its
 * stdout and stderr captured with a cap or cut into lines, a timeout and a cancel that
 * kill the whole group, and one report after every handle is closed. The background
 * compiles (compile/job.c) and the episode workers (lsp/episodes.c) run on it; runner.c
 * is the blocking runner with child-side limits and sandboxes, which posix_spawn cannot
 * set up. The child is started with posix_spawn (no fork of the caller's memory) and its
 * exit seen through SIGCHLD and waitpid on its own pid. Everything here runs on the
 * loop's thread. */
#ifndef HK_RUNNERS_CHILD_H
#define HK_RUNNERS_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

struct hk_buf;

typedef struct runner_child runner_child;

/* What becomes of one output stream. */
enum runner_child_mode {
    RUNNER_CHILD_IGNORE,  /* read and dropped (never left to fill the pipe) */
    RUNNER_CHILD_CAPTURE, /* the first max bytes are kept; the rest is read and dropped */
    RUNNER_CHILD_TAIL,    /* the last max bytes are kept */
    RUNNER_CHILD_LINES,   /* each line, without its newline, to on_line as it comes; a line
                           * longer than max is dropped whole and counted; a last line
                           * without a newline is delivered at end of stream */
};

typedef struct {
    enum runner_child_mode mode;
    size_t max;
    /* LINES: line is borrowed for the call and NUL-terminated at n; data is the spec's.
     * It may call runner_child_cancel. */
    void (*on_line)(const char *line, size_t n, void *data);
} runner_child_stream;

/* What the completion callback is told; borrowed for the call. */
typedef struct {
    bool spawned;          /* false: not_found is set */
    bool not_found;        /* the program was missing or not executable (report_not_found) */
    bool timed_out;        /* the timeout killed it */
    bool canceled;         /* runner_child_cancel or runner_child_kill_all came first */
    int64_t exit_status;   /* when term_signal is 0 */
    int term_signal;       /* the signal that ended it, or 0 */
    /* CAPTURE and TAIL streams: the kept bytes, NUL-terminated, or NULL when none */
    const char *out, *err;
    size_t out_len, err_len;
    size_t dropped_lines;  /* LINES streams: lines over max, both streams together */
} runner_child_exit;

typedef void (*runner_child_done_fn)(runner_child *c, const runner_child_exit *e, void *data);

typedef struct {
    char **argv;          /* borrowed; argv[0] is looked up on PATH. NULL: the caller found
                           * no program (reported as not_found; needs report_not_found) */
    char **env;           /* borrowed; NULL: this process's environment */
    const char *cwd;      /* borrowed; NULL: this process's directory */
    const char *name;     /* for log lines ("episode worker", "compile of a.cu"); copied */
    runner_child_stream out, err;
    unsigned timeout_ms;  /* 0: none */
    /* A cancel or timeout sends SIGTERM to the group, then SIGKILL this long after if the
     * child is still there; 0: SIGKILL at once. */
    unsigned kill_grace_ms;
    /* After the child exits, how long its pipes may stay open (a descendant that holds
     * them) before what is left of the group is killed and the pipes closed; 0: 2000. */
    unsigned drain_ms;
    /* A missing program (ENOENT, EACCES, or argv NULL) is reported through done on a later
     * loop iteration, not as the start's error. */
    bool report_not_found;
    runner_child_done_fn done; /* required; called exactly once unless the start failed */
    void *data;
    /* runner_child_kill_all(tag) reaches the children started with this tag; on_kill_all,
     * when set, is then called with data (the caller's own shutdown cleanup). */
    const void *tag;
    void (*on_kill_all)(void *data);
} runner_child_spec;

/* Starts argv in its own process group (setsid). The spec is copied where kept. *out (may
 * be NULL) gets the child, valid until done returns; it frees itself then. HK_OK;
 * HK_EINVAL; HK_ENOMEM; HK_ENOENT (program missing, without report_not_found) or HK_EIO
 * (any other spawn failure), with the libuv error in *uv_err (may be NULL). When it fails,
 * done is never called. */
int runner_child_start(uv_loop_t *loop, const runner_child_spec *spec, runner_child **out,
                       int *uv_err);

/* Kills the child's group (SIGTERM and a grace, or SIGKILL: the spec says); done still
 * comes, with canceled set. No-op once it has exited, a second time, or inside done. */
void runner_child_cancel(runner_child *c);

/* The child's pid, which is also its process group id; 0 once it has exited or when it
 * never started. */
int runner_child_pid(const runner_child *c);

/* The shutdown path: SIGKILL to the group of every live child started with tag (NULL:
 * every child), marked canceled, then its on_kill_all. Their done callbacks still come if
 * the loop runs again. */
void runner_child_kill_all(const void *tag);

/* Cuts data into lines for fn (see RUNNER_CHILD_LINES), carrying a partial line in buf
 * between calls; a line over max is dropped and counted in *dropped. HK_OK or HK_ENOMEM. */
int runner_feed_lines(struct hk_buf *buf, const char *data, size_t len, size_t max,
                      size_t *dropped, void (*fn)(const char *line, size_t n, void *ud),
                      void *ud);

#endif
