/* Asynchronous children on a libuv loop (child.h). The child leads its own process group
 * (POSIX_SPAWN_SETSID), so a kill of -pid reaches everything it started
 * that stayed in the group: the compiler driver's cicc and ptxas, the episode worker's
 * compilers and benchmark programs. One timer serves the timeout, the grace between
 * SIGTERM and SIGKILL, and the drain after exit; the report comes from the last close
 * callback, the only point where no libuv callback can still reach the child.
 *
 * The child is started with posix_spawn, not uv_spawn: libuv 1.44 forks, and a fork of
 * the language server copies its page tables (tens of MB mapped) and makes every page it
 * writes next a copy-on-write fault; each compile the editor started cost the loop 10-24
 * ms (bench/results/lsp-2026-12-05-s28-busy.md). glibc's posix_spawn shares the memory
 * until the exec (CLONE_VM | CLONE_VFORK). Its exit is seen through a SIGCHLD watch and
 * waitpid on its own pid, so other children are never reaped here (_GNU_SOURCE, set for
 * the whole build, gives posix_spawn_file_actions_addchdir_np and POSIX_SPAWN_SETSID). */
#include "runners/child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#include "core/buf.h"
#include "core/hk.h"
#include "core/log.h"

#define CHILD_DRAIN_MS 2000

enum { H_PROC, H_OUT, H_ERR, H_TIMER, H_COUNT };

/* What the one timer is counting down to. */
enum timer_phase { T_IDLE, T_TIMEOUT, T_GRACE, T_DRAIN };

struct runner_child {
    uv_signal_t sig;               /* SIGCHLD: has the child exited? (H_PROC) */
    uv_pipe_t pipes[2];            /* stdout, stderr */
    uv_timer_t timer;
    bool open[H_COUNT];            /* initialised and not yet closed */
    bool closing[H_COUNT];
    bool spawned, exited, not_found, canceled, timed_out, killing, reported, silent;
    enum timer_phase phase;
    int pid;                       /* 0 before the spawn and after the exit */
    int pgid;                      /* the group, for the kills after the exit */
    int64_t exit_status;
    int term_signal;
    runner_child_stream streams[2];
    struct hk_buf bufs[2];         /* captured bytes, or the line being read */
    size_t dropped;
    char *name;
    unsigned grace_ms, drain_ms;
    runner_child_done_fn done;
    void *data;
    const void *tag;
    void (*on_kill_all)(void *data);
    runner_child *prev, *next;     /* live children, for runner_child_kill_all */
    char readbuf[65536];
};

/* Every child between a successful start and its free. Loop thread only. */
static runner_child *live;

static void live_add(runner_child *c)
{
    c->next = live;
    if (live)
        live->prev = c;
    live = c;
}

static void live_remove(runner_child *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else if (live == c)
        live = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

/* ---- lines ---- */

int runner_feed_lines(struct hk_buf *buf, const char *data, size_t len, size_t max,
                      size_t *dropped, void (*fn)(const char *line, size_t n, void *ud),
                      void *ud)
{
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t take = nl ? (size_t)(nl - data) : len;
        bool overlong = buf->max == SIZE_MAX; /* marks a line being skipped */
        if (!overlong) {
            if (buf->len + take > max) {
                hk_buf_reset(buf);
                buf->max = SIZE_MAX;
                overlong = true;
                (*dropped)++;
            } else if (take) {
                int rc = hk_buf_append(buf, data, take);
                if (rc)
                    return rc;
            }
        }
        if (!nl)
            return HK_OK;
        if (!overlong)
            fn(buf->data ? buf->data : "", buf->len, ud);
        hk_buf_reset(buf);
        buf->max = max;
        data += take + 1;
        len -= take + 1;
    }
    return HK_OK;
}

/* ---- the end ---- */

static void child_free(runner_child *c)
{
    live_remove(c);
    for (int s = 0; s < 2; s++)
        hk_buf_free(&c->bufs[s]);
    hk_free(c->name);
    hk_free(c);
}

static bool kept(const runner_child *c, int s)
{
    return c->streams[s].mode == RUNNER_CHILD_CAPTURE || c->streams[s].mode == RUNNER_CHILD_TAIL;
}

/* Runs at every close; the last one reports (the single place done is called) and frees. */
static void finish(runner_child *c)
{
    for (int h = 0; h < H_COUNT; h++)
        if (c->open[h])
            return;
    if (!c->silent && !c->reported) {
        c->reported = true;
        runner_child_exit e = {
            .spawned = c->spawned,
            .not_found = c->not_found,
            .timed_out = c->timed_out,
            .canceled = c->canceled,
            .exit_status = c->exit_status,
            .term_signal = c->term_signal,
            .out = kept(c, 0) ? c->bufs[0].data : NULL,
            .out_len = kept(c, 0) ? c->bufs[0].len : 0,
            .err = kept(c, 1) ? c->bufs[1].data : NULL,
            .err_len = kept(c, 1) ? c->bufs[1].len : 0,
            .dropped_lines = c->dropped,
        };
        c->done(c, &e, c->data);
    }
    child_free(c);
}

static uv_handle_t *handle_of(runner_child *c, int k)
{
    return k == H_PROC ? (uv_handle_t *)&c->sig
         : k == H_TIMER ? (uv_handle_t *)&c->timer
                        : (uv_handle_t *)&c->pipes[k - H_OUT];
}

static void on_close(uv_handle_t *h)
{
    runner_child *c = h->data;
    for (int k = 0; k < H_COUNT; k++)
        if (handle_of(c, k) == h)
            c->open[k] = false;
    finish(c);
}

static void close_handle(runner_child *c, int k)
{
    if (!c->open[k] || c->closing[k])
        return;
    c->closing[k] = true;
    uv_close(handle_of(c, k), on_close);
}

static void close_all(runner_child *c)
{
    for (int k = 0; k < H_COUNT; k++)
        close_handle(c, k);
}

static bool pipe_done(const runner_child *c, int s)
{
    return !c->open[H_OUT + s] || c->closing[H_OUT + s];
}

/* The timer goes last: once the process has exited and both pipes are done. */
static void maybe_close_timer(runner_child *c)
{
    if ((!c->spawned || c->exited) && pipe_done(c, 0) && pipe_done(c, 1))
        close_handle(c, H_TIMER);
}

/* A pipe at its end: a last line without its newline is still a line. */
static void close_pipe(runner_child *c, int s)
{
    if (pipe_done(c, s))
        return;
    struct hk_buf *b = &c->bufs[s];
    if (c->streams[s].mode == RUNNER_CHILD_LINES && b->len && b->max != SIZE_MAX)
        c->streams[s].on_line(b->data, b->len, c->data);
    if (c->streams[s].mode == RUNNER_CHILD_LINES)
        hk_buf_reset(b);
    close_handle(c, H_OUT + s);
}

/* ---- kills ---- */

static void signal_group(runner_child *c, int sig)
{
    if (c->pgid <= 0)
        return;
    if (kill(-c->pgid, sig) != 0 && errno != ESRCH && c->pid > 0)
        kill(c->pid, sig);
}

static void on_timer(uv_timer_t *t);

static void start_timer(runner_child *c, enum timer_phase phase, unsigned ms)
{
    c->phase = phase;
    uv_timer_stop(&c->timer);
    uv_timer_start(&c->timer, on_timer, ms, 0);
}

/* Cancel and timeout: SIGTERM with a grace when the spec asks for one, else SIGKILL. */
static void start_kill(runner_child *c)
{
    if (c->killing || !c->spawned || c->exited)
        return;
    c->killing = true;
    if (c->grace_ms) {
        signal_group(c, SIGTERM);
        start_timer(c, T_GRACE, c->grace_ms);
    } else {
        signal_group(c, SIGKILL);
        uv_timer_stop(&c->timer);
        c->phase = T_IDLE;
    }
}

/* ---- libuv callbacks ---- */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    runner_child *c = h->data;
    buf->base = c->readbuf;
    buf->len = sizeof c->readbuf;
}

static void keep_tail(struct hk_buf *b, size_t max, const char *p, size_t n)
{
    if (n >= max) {
        hk_buf_reset(b);
        hk_buf_append(b, p + n - max, max);
        return;
    }
    if (b->len + n > max)
        hk_buf_consume(b, b->len + n - max);
    hk_buf_append(b, p, n);
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    runner_child *c = st->data;
    int s = (uv_pipe_t *)st == &c->pipes[0] ? 0 : 1;
    if (nread < 0) {
        close_pipe(c, s);
        maybe_close_timer(c);
        return;
    }
    size_t n = (size_t)nread;
    struct hk_buf *b = &c->bufs[s];
    const runner_child_stream *m = &c->streams[s];
    /* Over a cap the rest is still read, so the child never blocks on a full pipe. */
    switch (m->mode) {
    case RUNNER_CHILD_CAPTURE:
        hk_buf_append(b, buf->base, n < m->max - b->len ? n : m->max - b->len);
        break;
    case RUNNER_CHILD_TAIL:
        keep_tail(b, m->max, buf->base, n);
        break;
    case RUNNER_CHILD_LINES:
        if (runner_feed_lines(b, buf->base, n, m->max, &c->dropped, m->on_line, c->data))
            HK_ERROR("%s %d: out of memory reading its output", c->name, c->pgid);
        break;
    case RUNNER_CHILD_IGNORE:
        break;
    }
}

static void on_exit_cb(runner_child *c, int64_t exit_status, int term_signal)
{
    c->exited = true;
    c->exit_status = exit_status;
    c->term_signal = term_signal;
    if (c->killing)
        signal_group(c, SIGKILL); /* stragglers that ignored the first signal or forked late */
    c->pid = 0;
    close_handle(c, H_PROC);
    uv_timer_stop(&c->timer);
    c->phase = T_IDLE;
    /* A descendant that left the group, or ignored a kill, could hold a pipe open forever. */
    if (!pipe_done(c, 0) || !pipe_done(c, 1))
        start_timer(c, T_DRAIN, c->drain_ms);
    maybe_close_timer(c);
}

static void on_timer(uv_timer_t *t)
{
    runner_child *c = t->data;
    enum timer_phase phase = c->phase;
    c->phase = T_IDLE;
    switch (phase) {
    case T_TIMEOUT:
        c->timed_out = true;
        HK_INFO("%s timed out; killing process group %d", c->name, c->pgid);
        start_kill(c);
        break;
    case T_GRACE:
        if (!c->exited) {
            HK_WARN("%s %d: still there %u ms after SIGTERM: SIGKILL", c->name, c->pgid,
                    c->grace_ms);
            signal_group(c, SIGKILL);
        }
        break;
    case T_DRAIN:
        HK_WARN("%s %d exited but its output stayed open: killing its group", c->name,
                c->pgid);
        signal_group(c, SIGKILL);
        close_pipe(c, 0);
        close_pipe(c, 1);
        maybe_close_timer(c);
        break;
    case T_IDLE:
        break;
    }
}

static void on_sigchld(uv_signal_t *h, int signum)
{
    (void)signum;
    runner_child *c = h->data;
    if (c->exited || c->pid <= 0)
        return;
    int st = 0;
    pid_t r = waitpid(c->pid, &st, WNOHANG);
    if (r == 0 || (r < 0 && errno == EINTR))
        return; /* another child's signal, or a stop */
    if (r < 0) { /* reaped elsewhere: nothing to say but that it is gone */
        on_exit_cb(c, 0, 0);
        return;
    }
    if (WIFEXITED(st))
        on_exit_cb(c, WEXITSTATUS(st), 0);
    else if (WIFSIGNALED(st))
        on_exit_cb(c, 0, WTERMSIG(st));
}

/* The value of PATH in env (NULL: this process's). */
static const char *path_of(char **env)
{
    if (!env)
        return getenv("PATH");
    for (char **e = env; *e; e++)
        if (!strncmp(*e, "PATH=", 5))
            return *e + 5;
    return NULL;
}

/* argv[0] as execvp would find it on the child's PATH (uv_spawn's rule): a name with a
 * slash as it is; NULL with *err ENOENT or EACCES when there is none to run, or ENOMEM. */
static char *find_program(const char *file, char **env, int *err)
{
    *err = 0;
    if (strchr(file, '/')) {
        char *p = hk_strdup(file);
        if (!p)
            *err = ENOMEM;
        return p;
    }
    const char *path = path_of(env);
    if (!path)
        path = "/bin:/usr/bin";
    int seen = ENOENT;
    while (*file) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        char *cand = n ? hk_asprintf("%.*s/%s", (int)n, path, file) : hk_asprintf("%s", file);
        if (!cand) {
            *err = ENOMEM;
            return NULL;
        }
        if (access(cand, X_OK) == 0)
            return cand;
        if (errno == EACCES)
            seen = EACCES;
        hk_free(cand);
        if (!end)
            break;
        path = end + 1;
    }
    *err = seen;
    return NULL;
}

/* Starts argv with stdin on /dev/null, stdout/stderr on the pipes' write ends (or
 * /dev/null), in its own session, signals at their defaults and none blocked. 0 and
 * *pid, or an errno value. */
static int spawn(const runner_child_spec *spec, const int wr[2], pid_t *pid)
{
    int err = 0;
    char *prog = find_program(spec->argv[0], spec->env, &err);
    if (!prog)
        return err;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    if ((err = posix_spawn_file_actions_init(&fa)) != 0) {
        hk_free(prog);
        return err;
    }
    if ((err = posix_spawnattr_init(&at)) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        hk_free(prog);
        return err;
    }
    sigset_t def, none;
    sigfillset(&def);
    sigdelset(&def, SIGKILL);
    sigdelset(&def, SIGSTOP);
    sigemptyset(&none);
    err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    for (int s = 0; s < 2 && !err; s++)
        err = wr[s] >= 0 ? posix_spawn_file_actions_adddup2(&fa, wr[s], 1 + s)
                         : posix_spawn_file_actions_addopen(&fa, 1 + s, "/dev/null", O_WRONLY, 0);
    if (!err && spec->cwd)
        err = posix_spawn_file_actions_addchdir_np(&fa, spec->cwd);
    if (!err)
        err = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF |
                                                POSIX_SPAWN_SETSIGMASK);
    if (!err)
        err = posix_spawnattr_setsigdefault(&at, &def);
    if (!err)
        err = posix_spawnattr_setsigmask(&at, &none);
    if (!err)
        err = posix_spawn(pid, prog, &fa, &at, spec->argv, spec->env ? spec->env : environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    hk_free(prog);
    return err;
}

static int uv_err_of(int err)
{
    return err == ENOENT ? UV_ENOENT : err == EACCES ? UV_EACCES : err == ENOMEM ? UV_ENOMEM
                                                                                 : uv_translate_sys_error(err);
}

/* ---- the API ---- */

int runner_child_start(uv_loop_t *loop, const runner_child_spec *spec, runner_child **out,
                       int *uv_err)
{
    if (out)
        *out = NULL;
    if (uv_err)
        *uv_err = 0;
    if (!loop || !spec || !spec->done || (!spec->argv && !spec->report_not_found) ||
        (spec->argv && !spec->argv[0]))
        return HK_EINVAL;
    const runner_child_stream *st[2] = {&spec->out, &spec->err};
    for (int s = 0; s < 2; s++)
        if (st[s]->mode == RUNNER_CHILD_LINES && (!st[s]->on_line || !st[s]->max))
            return HK_EINVAL;
    runner_child *c = hk_calloc(1, sizeof *c);
    if (!c)
        return HK_ENOMEM;
    c->name = hk_strdup(spec->name ? spec->name : spec->argv ? spec->argv[0] : "child");
    if (!c->name) {
        hk_free(c);
        return HK_ENOMEM;
    }
    c->grace_ms = spec->kill_grace_ms;
    c->drain_ms = spec->drain_ms ? spec->drain_ms : CHILD_DRAIN_MS;
    c->done = spec->done;
    c->data = spec->data;
    c->tag = spec->tag;
    c->on_kill_all = spec->on_kill_all;
    for (int s = 0; s < 2; s++) {
        c->streams[s] = *st[s];
        hk_buf_init(&c->bufs[s], st[s]->max);
    }

    /* From here on the child's memory belongs to its handles: the last close frees it. */
    uv_timer_init(loop, &c->timer);
    c->timer.data = c;
    c->open[H_TIMER] = true;
    int rd[2] = {-1, -1}, wr[2] = {-1, -1};
    for (int s = 0; s < 2; s++) {
        if (c->streams[s].mode == RUNNER_CHILD_IGNORE)
            continue;
        uv_pipe_init(loop, &c->pipes[s], 0);
        c->pipes[s].data = c;
        c->open[H_OUT + s] = true;
    }
    int rc = HK_OK;
    if (!spec->argv) {
        c->not_found = true;
    } else {
        /* the watch first: a child that exits at once is still seen */
        int urc = uv_signal_init(loop, &c->sig);
        if (urc == 0) {
            c->sig.data = c;
            c->open[H_PROC] = true;
            urc = uv_signal_start(&c->sig, on_sigchld, SIGCHLD);
        }
        for (int s = 0; s < 2 && urc == 0; s++) {
            if (!c->open[H_OUT + s])
                continue;
            uv_file fds[2];
            urc = uv_pipe(fds, 0, 0); /* both ends close-on-exec; dup2 clears it in the child */
            if (urc == 0) {
                rd[s] = fds[0];
                wr[s] = fds[1];
            }
        }
        pid_t pid = 0;
        int err = urc ? 0 : spawn(spec, wr, &pid);
        if (urc == 0 && err)
            urc = uv_err_of(err);
        for (int s = 0; s < 2; s++)
            if (wr[s] >= 0)
                close(wr[s]);
        if (urc == 0) {
            c->spawned = true;
            c->pid = c->pgid = (int)pid;
            for (int s = 0; s < 2; s++) {
                if (!c->open[H_OUT + s])
                    continue;
                if (uv_pipe_open(&c->pipes[s], rd[s]) == 0) {
                    rd[s] = -1;
                    uv_read_start((uv_stream_t *)&c->pipes[s], on_alloc, on_read);
                } else {
                    close_pipe(c, s);
                }
            }
            if (spec->timeout_ms)
                start_timer(c, T_TIMEOUT, spec->timeout_ms);
        } else if ((urc == UV_ENOENT || urc == UV_EACCES) && spec->report_not_found) {
            c->not_found = true;
        } else {
            if (uv_err)
                *uv_err = urc;
            c->silent = true;
            rc = urc == UV_ENOENT || urc == UV_EACCES ? HK_ENOENT : HK_EIO;
        }
        for (int s = 0; s < 2; s++)
            if (rd[s] >= 0)
                close(rd[s]);
    }
    if (!c->spawned)
        close_all(c); /* the report, if any, comes from the last close: a later iteration */
    if (rc == HK_OK) {
        live_add(c);
        if (out)
            *out = c;
    }
    return rc;
}

void runner_child_cancel(runner_child *c)
{
    if (!c || c->canceled || c->reported)
        return;
    c->canceled = true;
    start_kill(c);
}

int runner_child_pid(const runner_child *c) { return c && !c->exited ? c->pid : 0; }

void runner_child_kill_all(const void *tag)
{
    for (runner_child *c = live; c; c = c->next) {
        if ((tag && c->tag != tag) || c->reported)
            continue;
        if (c->spawned && !c->exited) {
            c->killing = true;
            signal_group(c, SIGKILL);
        }
        c->canceled = true;
        if (c->on_kill_all)
            c->on_kill_all(c->data);
    }
}
