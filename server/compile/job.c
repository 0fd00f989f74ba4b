/* Background compiles: the compiler runs as a child in its own process group (so a
 * cancel or timeout kills cicc/ptxas/clang with it), its output is read through libuv
 * pipes into capped buffers, and the job reports once, after every handle is closed.
 * The temp dir holding the text is also the compiler's TMPDIR, so nothing a killed
 * nvcc leaves behind outlives the job. */
#include "compile/compile.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/hk.h"
#include "core/log.h"

extern char **environ;

#define CC_OUTPUT_MAX (1u << 20)       /* per stream */
#define CC_TEXT_MAX ((size_t)16 << 20) /* a source bigger than this is not compiled */
#define CC_DRAIN_MS 2000               /* after exit, how long pipes may stay open */
#define CC_MAX_ENV 4096

enum { H_PROC, H_OUT, H_ERR, H_TIMER, H_COUNT };

struct cc_job {
    uv_loop_t *loop;
    uv_process_t proc;
    uv_pipe_t pipes[2];           /* stdout, stderr */
    uv_timer_t timer;             /* timeout, then drain after exit, or the deferred report */
    bool open[H_COUNT];           /* initialised and not yet closed */
    bool closing[H_COUNT];
    bool spawned, exited, canceled, timed_out, reported, silent;
    int status;                   /* HK_OK, or HK_ENOENT when there is no compiler */
    int64_t exit_status;
    int term_signal;
    int pid;
    struct hk_buf out[2];
    char readbuf[65536];
    enum cc_backend backend;
    char *arch;
    char *tmpdir;
    char *tmpfile;
    char *orig_path;
    cc_done_cb cb;
    void *data;
    struct cc_job *prev, *next;   /* live jobs, for cc_job_kill_all */
};

/* Every job between start and free. Loop thread only, like the jobs themselves. */
static cc_job *live_jobs;

static void live_add(cc_job *j)
{
    j->next = live_jobs;
    if (live_jobs)
        live_jobs->prev = j;
    live_jobs = j;
}

static void live_remove(cc_job *j)
{
    if (j->prev)
        j->prev->next = j->next;
    else if (live_jobs == j)
        live_jobs = j->next;
    if (j->next)
        j->next->prev = j->prev;
    j->prev = j->next = NULL;
}

/* ---- temp dir ---- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void remove_tree(const char *dir)
{
    if (dir)
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* New absolute directory of path when it exists, else NULL. */
static char *dir_of(const char *path)
{
    const char *s = strrchr(path, '/');
    char *d = s ? hk_strndup(path, s == path ? 1 : (size_t)(s - path)) : hk_strdup(".");
    if (!d)
        return NULL;
    char *real = realpath(d, NULL); /* libc allocation: copied into the seam */
    hk_free(d);
    if (!real)
        return NULL;
    char *r = hk_strdup(real);
    free(real);
    return r;
}

static bool is_dir(const char *p)
{
    struct stat sb;
    return p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int write_all(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return HK_EIO;
    int rc = HK_OK;
    while (len) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = HK_EIO;
            break;
        }
        text += n;
        len -= (size_t)n;
    }
    if (close(fd) != 0)
        rc = HK_EIO;
    return rc;
}

/* ---- the end of a job ---- */

/* Replaces every occurrence of from with to in *s (new string on success). */
static int replace_all(char **s, const char *from, const char *to)
{
    if (!*s || !*from || !strstr(*s, from))
        return HK_OK;
    struct hk_buf b;
    hk_buf_init(&b, 4 * CC_OUTPUT_MAX);
    size_t fl = strlen(from);
    const char *p = *s, *q;
    int rc = HK_OK;
    while (rc == HK_OK && (q = strstr(p, from))) {
        rc = hk_buf_append(&b, p, (size_t)(q - p));
        if (rc == HK_OK)
            rc = hk_buf_appends(&b, to);
        p = q + fl;
    }
    if (rc == HK_OK)
        rc = hk_buf_appends(&b, p);
    if (rc != HK_OK) {
        hk_buf_free(&b);
        return rc;
    }
    hk_free(*s);
    *s = hk_buf_steal(&b);
    return HK_OK;
}

/* Builds the result: parse each stream, map the temp copy back to the original. */
static int job_result(cc_job *j, cc_result *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = j->term_signal ? -1 : (int)j->exit_status;
    r->timed_out = j->timed_out;
    int rc = HK_OK;
    for (int s = 0; s < 2 && rc == HK_OK; s++)
        if (j->out[s].data)
            rc = cc_parse_output(j->backend, j->out[s].data, j->out[s].len, r);
    if (rc)
        return rc;
    for (size_t i = 0; i < r->n_diags; i++) {
        cc_diag *d = &r->diags[i];
        if (d->file && (strcmp(d->file, j->tmpfile) == 0 ||
                        strcmp(d->file, base_name(j->tmpfile)) == 0)) {
            char *f = hk_strdup(j->orig_path);
            if (!f)
                return HK_ENOMEM;
            hk_free(d->file);
            d->file = f;
        }
    }
    for (size_t i = 0; i < r->n_res; i++) {
        if (!r->res[i].arch) {
            r->res[i].arch = hk_strdup(j->arch);
            if (!r->res[i].arch)
                return HK_ENOMEM;
        }
    }
    struct hk_buf all;
    hk_buf_init(&all, 2 * CC_OUTPUT_MAX + 1);
    for (int s = 0; s < 2 && rc == HK_OK; s++)
        if (j->out[s].data)
            rc = hk_buf_append(&all, j->out[s].data, j->out[s].len);
    if (rc) {
        hk_buf_free(&all);
        return rc;
    }
    r->output = hk_buf_steal(&all);
    rc = replace_all(&r->output, j->tmpfile, j->orig_path);
    if (rc == HK_OK)
        rc = replace_all(&r->output, j->tmpdir, "<tmp>");
    return rc;
}

static void job_free(cc_job *j)
{
    live_remove(j);
    remove_tree(j->tmpdir);
    for (int s = 0; s < 2; s++)
        hk_buf_free(&j->out[s]);
    hk_free(j->arch);
    hk_free(j->tmpdir);
    hk_free(j->tmpfile);
    hk_free(j->orig_path);
    hk_free(j);
}

/* Runs once every handle is closed: the single place cb is called. */
static void job_finish(cc_job *j)
{
    for (int h = 0; h < H_COUNT; h++)
        if (j->open[h])
            return;
    if (!j->silent && !j->reported) {
        j->reported = true;
        if (j->canceled) {
            j->cb(j, HK_ECANCELED, NULL, j->data);
        } else if (j->status != HK_OK) {
            j->cb(j, j->status, NULL, j->data);
        } else {
            cc_result r;
            int rc = job_result(j, &r);
            if (rc == HK_OK)
                j->cb(j, HK_OK, &r, j->data);
            else
                j->cb(j, rc, NULL, j->data);
            cc_result_free(&r);
        }
    }
    job_free(j);
}

static void on_close(uv_handle_t *h)
{
    cc_job *j = h->data;
    for (int k = 0; k < H_COUNT; k++) {
        uv_handle_t *hk = k == H_PROC ? (uv_handle_t *)&j->proc
                        : k == H_TIMER ? (uv_handle_t *)&j->timer
                                       : (uv_handle_t *)&j->pipes[k - H_OUT];
        if (hk == h)
            j->open[k] = false;
    }
    job_finish(j);
}

static void close_handle(cc_job *j, int k)
{
    if (!j->open[k] || j->closing[k])
        return;
    j->closing[k] = true;
    uv_handle_t *h = k == H_PROC ? (uv_handle_t *)&j->proc
                   : k == H_TIMER ? (uv_handle_t *)&j->timer
                                  : (uv_handle_t *)&j->pipes[k - H_OUT];
    uv_close(h, on_close);
}

/* Closes the timer once the process has exited and both pipes are done. */
static void maybe_close_rest(cc_job *j)
{
    if ((!j->spawned || j->exited) && (!j->open[H_OUT] || j->closing[H_OUT]) &&
        (!j->open[H_ERR] || j->closing[H_ERR]))
        close_handle(j, H_TIMER);
}

static void kill_group(cc_job *j)
{
    if (j->pid <= 0)
        return;
    /* The child leads its own process group (UV_PROCESS_DETACHED runs setsid), so
     * -pid reaches cicc, ptxas and clang too. */
    if (kill(-j->pid, SIGKILL) != 0 && errno != ESRCH)
        kill(j->pid, SIGKILL);
}

/* ---- libuv callbacks ---- */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    cc_job *j = h->data;
    buf->base = j->readbuf;
    buf->len = sizeof j->readbuf;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    cc_job *j = s->data;
    int k = (uv_pipe_t *)s == &j->pipes[0] ? 0 : 1;
    if (nread > 0) {
        /* Over the cap the rest is dropped but still read, so the child never blocks. */
        struct hk_buf *b = &j->out[k];
        size_t room = b->max - b->len;
        hk_buf_append(b, buf->base, (size_t)nread < room ? (size_t)nread : room);
        return;
    }
    if (nread < 0) {
        close_handle(j, H_OUT + k);
        maybe_close_rest(j);
    }
}

static void on_drain(uv_timer_t *t);

static void on_exit_cb(uv_process_t *p, int64_t exit_status, int term_signal)
{
    cc_job *j = p->data;
    j->exited = true;
    j->exit_status = exit_status;
    j->term_signal = term_signal;
    if (j->canceled || j->timed_out)
        kill_group(j); /* stragglers that ignored the first signal or forked late */
    j->pid = 0;
    close_handle(j, H_PROC);
    if (j->open[H_OUT] || j->open[H_ERR]) {
        /* A grandchild that left the group could hold the pipes open forever. */
        uv_timer_stop(&j->timer);
        uv_timer_start(&j->timer, on_drain, CC_DRAIN_MS, 0);
    }
    maybe_close_rest(j);
}

static void on_drain(uv_timer_t *t)
{
    cc_job *j = t->data;
    close_handle(j, H_OUT);
    close_handle(j, H_ERR);
    maybe_close_rest(j);
}

static void on_timeout(uv_timer_t *t)
{
    cc_job *j = t->data;
    if (j->exited) {
        on_drain(t);
        return;
    }
    j->timed_out = true;
    HK_INFO("compile of %s timed out; killing process group %d", j->orig_path, j->pid);
    kill_group(j);
}

/* The deferred report for a job that never spawned (no compiler). */
static void on_deferred(uv_timer_t *t)
{
    cc_job *j = t->data;
    close_handle(j, H_OUT);
    close_handle(j, H_ERR);
    close_handle(j, H_PROC);
    close_handle(j, H_TIMER);
}

/* ---- starting ---- */

/* New environment: ours with TMPDIR pointing into the job's own directory. */
static char **make_env(const char *tmpdir)
{
    size_t n = 0;
    while (environ && environ[n] && n < CC_MAX_ENV)
        n++;
    char **env = hk_calloc(n + 2, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(environ[i], "TMPDIR=", 7) == 0)
            continue;
        if (!(env[k++] = hk_strdup(environ[i])))
            goto fail;
    }
    if (!(env[k++] = hk_asprintf("TMPDIR=%s", tmpdir)))
        goto fail;
    env[k] = NULL;
    return env;
fail:
    cc_argv_free(env);
    return NULL;
}

int cc_job_start(uv_loop_t *loop, const cc_options *o, const char *orig_path,
                 const char *text, size_t len, cc_done_cb cb, void *data, cc_job **out)
{
    if (out)
        *out = NULL;
    if (!loop || !o || !orig_path || !*orig_path || (!text && len) || !cb)
        return HK_EINVAL;
    if (len > CC_TEXT_MAX)
        return HK_ETOOBIG;
    int rc = HK_ENOMEM;
    char *compiler = NULL, *incdir = NULL, *incflag = NULL;
    char **argv = NULL, **env = NULL;
    const char **extra = NULL;
    cc_job *j = hk_calloc(1, sizeof *j);
    if (!j)
        return HK_ENOMEM;
    j->loop = loop;
    j->cb = cb;
    j->data = data;
    j->backend = o->backend;
    hk_buf_init(&j->out[0], CC_OUTPUT_MAX);
    hk_buf_init(&j->out[1], CC_OUTPUT_MAX);
    j->arch = hk_strdup(o->arch ? o->arch : o->backend == CC_NVIDIA ? "sm_90" : "gfx906");
    j->orig_path = hk_strdup(orig_path);
    if (!j->arch || !j->orig_path)
        goto fail;

    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/' || !is_dir(tmp))
        tmp = "/tmp";
    j->tmpdir = hk_asprintf("%s/hk-cc-XXXXXX", tmp);
    if (!j->tmpdir)
        goto fail;
    if (!mkdtemp(j->tmpdir)) {
        hk_free(j->tmpdir);
        j->tmpdir = NULL;
        rc = HK_EIO;
        goto fail;
    }
    const char *bn = base_name(orig_path);
    if (!*bn || strcmp(bn, ".") == 0 || strcmp(bn, "..") == 0)
        bn = "source.cu";
    j->tmpfile = hk_asprintf("%s/%s", j->tmpdir, bn);
    if (!j->tmpfile)
        goto fail;
    /* The copy's name goes on the compiler's command line, and the driver runs its steps
     * through a shell: a file named k`cmd`.cu must not run cmd. Its messages are mapped
     * back to the original path by the copy's full name, so any safe name does. */
    for (char *p = j->tmpfile + strlen(j->tmpdir) + 1; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-' || *p == '+'))
            *p = '_';
    rc = write_all(j->tmpfile, text ? text : "", len);
    if (rc)
        goto fail;
    rc = HK_ENOMEM;

    if (o->compiler) {
        compiler = hk_strdup(o->compiler);
        if (!compiler)
            goto fail;
    } else {
        int frc = cc_find_compiler(o->backend, &compiler);
        if (frc == HK_ENOMEM)
            goto fail;
        if (frc != HK_OK)
            j->status = HK_ENOENT;
    }

    /* The original directory first, as the compiler would search it for a quoted
     * include of the real file; then the caller's flags. */
    size_t n_extra = 0;
    if (o->extra)
        while (o->extra[n_extra])
            n_extra++;
    extra = hk_calloc(n_extra + 2, sizeof *extra);
    if (!extra)
        goto fail;
    size_t e = 0;
    incdir = dir_of(orig_path);
    if (incdir && !cc_arg_shell_safe(o->backend, incdir)) {
        /* the same shell: a folder named d`cmd` must not run cmd */
        HK_WARN("compile of %s: its folder is not passed as -I (its name has characters "
                "the compiler driver's shell would interpret)", orig_path);
    } else if (incdir) {
        incflag = hk_asprintf("-I%s", incdir);
        if (!incflag)
            goto fail;
        extra[e++] = incflag;
    }
    for (size_t i = 0; i < n_extra; i++)
        extra[e++] = o->extra[i];
    extra[e] = NULL;
    cc_options o2 = *o;
    o2.compiler = compiler ? compiler : (o->backend == CC_NVIDIA ? "nvcc" : "hipcc");
    o2.extra = extra;
    rc = cc_build_argv(&o2, j->tmpfile, &argv);
    if (rc)
        goto fail;
    rc = HK_ENOMEM;
    env = make_env(j->tmpdir);
    if (!env)
        goto fail;

    /* From here on the job's memory belongs to its handles: failures close them and
     * the last close callback frees the job (silently: cb is never called). */
    uv_timer_init(loop, &j->timer);
    j->timer.data = j;
    j->open[H_TIMER] = true;
    for (int s = 0; s < 2; s++) {
        uv_pipe_init(loop, &j->pipes[s], 0);
        j->pipes[s].data = j;
        j->open[H_OUT + s] = true;
    }
    if (j->status == HK_OK) {
        const char *cwd = is_dir(o->workdir) ? o->workdir : incdir ? incdir : j->tmpdir;
        uv_stdio_container_t stdio[3];
        stdio[0].flags = UV_IGNORE;
        stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
        stdio[1].data.stream = (uv_stream_t *)&j->pipes[0];
        stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
        stdio[2].data.stream = (uv_stream_t *)&j->pipes[1];
        uv_process_options_t po;
        memset(&po, 0, sizeof po);
        po.exit_cb = on_exit_cb;
        po.file = argv[0];
        po.args = argv;
        po.env = env;
        po.cwd = cwd;
        po.flags = UV_PROCESS_DETACHED;
        po.stdio_count = 3;
        po.stdio = stdio;
        j->proc.data = j;
        int urc = uv_spawn(loop, &j->proc, &po);
        j->open[H_PROC] = true; /* closed even when the spawn failed (libuv's rule) */
        if (urc == UV_ENOENT || urc == UV_EACCES) {
            j->status = HK_ENOENT;
        } else if (urc != 0) {
            HK_WARN("spawning %s failed: %s", argv[0], uv_strerror(urc));
            j->silent = true;
            for (int h = 0; h < H_COUNT; h++)
                close_handle(j, h);
            rc = HK_EIO;
            goto out;
        } else {
            j->spawned = true;
            j->pid = j->proc.pid;
            for (int s = 0; s < 2; s++)
                uv_read_start((uv_stream_t *)&j->pipes[s], on_alloc, on_read);
            unsigned ms = o->timeout_ms ? o->timeout_ms : 60000;
            uv_timer_start(&j->timer, on_timeout, ms, 0);
        }
    }
    if (j->status != HK_OK) {
        /* No compiler: report on a later iteration, never from inside this call. */
        HK_INFO("no %s compiler found for %s", cc_backend_name(o->backend), orig_path);
        uv_timer_start(&j->timer, on_deferred, 0, 0);
    }
    live_add(j);
    if (out)
        *out = j;
    rc = HK_OK;
    goto out;

fail:
    job_free(j);
out:
    hk_free(compiler);
    hk_free(incdir);
    hk_free(incflag);
    hk_free(extra);
    cc_argv_free(argv);
    cc_argv_free(env);
    return rc;
}

void cc_job_cancel(cc_job *job)
{
    if (!job || job->canceled || job->reported)
        return;
    job->canceled = true;
    if (job->spawned && !job->exited)
        kill_group(job);
}

int cc_job_pid(const cc_job *job) { return job && !job->exited ? job->pid : 0; }

void cc_job_kill_all(void)
{
    for (cc_job *j = live_jobs; j; j = j->next) {
        if (j->spawned && !j->exited)
            kill_group(j);
        j->canceled = true;
        remove_tree(j->tmpdir);
    }
}
