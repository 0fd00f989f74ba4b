/* Background compiles: the compiler runs as a runner_child (runners/child.h: its own
 * process group, so a cancel or timeout kills cicc/ptxas/clang with it; both streams
 * captured with a cap; one report after every handle is closed), and this file adds what
 * is the compile's own: the temp dir, the command, and the parsed result. The temp dir
 * holding the text is also the compiler's TMPDIR, so nothing a killed nvcc leaves behind
 * outlives the job. The text's copy is written on the libuv pool, not on the caller's
 * loop (a 742 KB file is hundreds of page-cache pages, and a write can wait on the disk);
 * the compiler is spawned on the loop once the copy is on disk. Its output is parsed on
 * the pool too, with the temp dir's removal (a thousand kernels' ptxas lines: 4-5 ms of
 * the loop, bench/results/lsp-2026-12-05-s31-face4.md), and the caller's own work on the
 * result with it (cc_job_start_post: the editor's diagnostics, placed on the compiled
 * text, lsp/diagnostics.c). */
#include "compile/compile.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/hk.h"
#include "core/log.h"
#include "runners/child.h"

extern char **environ;

#define CC_OUTPUT_MAX (1u << 20)       /* per stream */
#define CC_TEXT_MAX ((size_t)16 << 20) /* a source bigger than this is not compiled */
#define CC_DRAIN_MS 2000               /* after exit, how long pipes may stay open */
#define CC_MAX_ENV 4096

struct cc_job {
    runner_child *child;          /* the compiler; NULL once it has reported */
    uv_loop_t *loop;
    uv_work_t write_req;          /* the temp copy's write, on the pool */
    bool writing;                 /* write_req queued and not yet back on the loop */
    bool canceled;
    bool reported;                /* cb has been called (or is being called) */
    /* The compiler's end, parsed on the pool (parse_work): its streams (the job's own
     * copies), exit code and timeout, and what the parse made of them. */
    uv_work_t parse_req;
    char *stream[2];
    size_t stream_len[2];
    int exit_code;
    bool timed_out;
    bool tmpdir_removed;          /* by parse_work, on the pool */
    cc_result res;
    int parse_rc;
    struct cc_job *prev_w, *next_w; /* jobs writing, for cc_job_kill_all */
    /* What the write needs and its result: text is the job's own copy (freed on the pool
     * once written), write_rc the write's HK_ code. */
    char *text;
    size_t len;
    int write_rc;
    /* What the spawn needs once the copy is written (the caller's cc_options are borrowed
     * only for cc_job_start). */
    char **argv;                  /* NULL: no compiler was found (HK_ENOENT later) */
    char **env;
    char *cwd;
    char *name;
    unsigned timeout_ms;
    enum cc_backend backend;
    char *arch;
    char *tmpdir;
    char *tmpfile;
    char *orig_path;
    cc_post_fn post;              /* or NULL: then text is freed once written */
    cc_done_cb cb;
    void *data;
};

/* The tag of the compile children, for cc_job_kill_all. */
static const char job_tag = 'c';

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

/* Builds the result from the job's copies of the streams: parse each stream, map the temp
 * copy back to the original. Pool thread (or the loop when the pool takes no work); reads
 * only the job's own fields. */
static int job_result(cc_job *j, cc_result *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = j->exit_code;
    r->timed_out = j->timed_out;
    const char *text[2] = {j->stream[0], j->stream[1]};
    size_t len[2] = {j->stream_len[0], j->stream_len[1]};
    int rc = HK_OK;
    for (int s = 0; s < 2 && rc == HK_OK; s++)
        if (text[s])
            rc = cc_parse_output(j->backend, text[s], len[s], r);
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
        if (text[s])
            rc = hk_buf_append(&all, text[s], len[s]);
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
    if (!j->tmpdir_removed)
        remove_tree(j->tmpdir);
    hk_free(j->stream[0]);
    hk_free(j->stream[1]);
    hk_free(j->text);
    cc_argv_free(j->argv);
    cc_argv_free(j->env);
    hk_free(j->cwd);
    hk_free(j->name);
    hk_free(j->arch);
    hk_free(j->tmpdir);
    hk_free(j->tmpfile);
    hk_free(j->orig_path);
    hk_free(j);
}

/* Pool thread: parses the compiler's output; the temp dir goes meanwhile (the compiler
 * has ended, nothing writes there any more). */
static void parse_work(uv_work_t *req)
{
    cc_job *j = req->data;
    j->parse_rc = job_result(j, &j->res);
    remove_tree(j->tmpdir);
    j->tmpdir_removed = true;
    if (!j->post)
        return;
    /* The caller's own work on the result and the compiled text (which it may take
     * back), then what cb does not get is freed here too (a thousand kernels' result:
     * thousands of frees). */
    if (j->parse_rc == HK_OK && j->text)
        j->post(&j->res, &j->text, j->len, j->data);
    cc_result kept = {.exit_code = j->res.exit_code, .timed_out = j->res.timed_out};
    cc_result_free(&j->res);
    j->res = kept;
    hk_free(j->text);
    j->text = NULL;
}

/* Loop thread: the single place cb is called with a result. */
static void parse_done(uv_work_t *req, int status)
{
    cc_job *j = req->data;
    j->reported = true;
    if (j->canceled || status == UV_ECANCELED)
        j->cb(j, HK_ECANCELED, NULL, j->data);
    else if (j->parse_rc == HK_OK)
        j->cb(j, HK_OK, &j->res, j->data);
    else
        j->cb(j, j->parse_rc, NULL, j->data);
    cc_result_free(&j->res);
    job_free(j);
}

/* New copy of a stream the child's report lends (NULL for none or no memory: *ok false). */
static char *stream_copy(const char *text, size_t len, bool *ok)
{
    if (!text)
        return NULL;
    char *c = hk_strndup(text, len);
    if (!c)
        *ok = false;
    return c;
}

/* The compiler's one report (runner_child calls it after every handle is closed): cb now
 * when there is nothing to parse, else once the pool has parsed the output. */
static void on_child_done(runner_child *c, const runner_child_exit *e, void *data)
{
    (void)c;
    cc_job *j = data;
    j->child = NULL;
    if (j->canceled || e->canceled) {
        j->reported = true;
        j->cb(j, HK_ECANCELED, NULL, j->data);
    } else if (e->not_found) {
        HK_INFO("no %s compiler found for %s", cc_backend_name(j->backend), j->orig_path);
        j->reported = true;
        j->cb(j, HK_ENOENT, NULL, j->data);
    } else {
        bool ok = true;
        j->exit_code = e->term_signal ? -1 : (int)e->exit_status;
        j->timed_out = e->timed_out;
        j->stream[0] = stream_copy(e->out, e->out_len, &ok);
        j->stream_len[0] = e->out_len;
        j->stream[1] = stream_copy(e->err, e->err_len, &ok);
        j->stream_len[1] = e->err_len;
        if (!ok) {
            j->reported = true;
            j->cb(j, HK_ENOMEM, NULL, j->data);
        } else {
            j->parse_req.data = j;
            if (uv_queue_work(j->loop, &j->parse_req, parse_work, parse_done) == 0)
                return; /* parse_done reports */
            parse_work(&j->parse_req); /* the loop is closing: here, as the pool would */
            parse_done(&j->parse_req, 0);
            return;
        }
    }
    job_free(j);
}

/* cc_job_kill_all: the temp dir goes now, not when the loop next runs. */
static void on_kill_all(void *data)
{
    cc_job *j = data;
    j->canceled = true;
    remove_tree(j->tmpdir);
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

/* The jobs whose copy is being written (the loop thread's list; the pool never
 * touches it), for cc_job_kill_all: they have no child yet. */
static cc_job *writing_jobs;

static void writing_unlink(cc_job *j)
{
    if (j->prev_w)
        j->prev_w->next_w = j->next_w;
    else if (writing_jobs == j)
        writing_jobs = j->next_w;
    if (j->next_w)
        j->next_w->prev_w = j->prev_w;
    j->prev_w = j->next_w = NULL;
}

/* Pool thread: writes the copy and frees it (a big free is an munmap, kept off the loop
 * too), unless post reads it later. Reads only the job's own fields, which the loop
 * leaves alone meanwhile (a cancel sets canceled, read back on the loop in write_done). */
static void write_work(uv_work_t *req)
{
    cc_job *j = req->data;
    j->write_rc = write_all(j->tmpfile, j->text ? j->text : "", j->len);
    if (j->post)
        return; /* kept for post, freed after it on the pool */
    hk_free(j->text);
    j->text = NULL;
}

/* A failure to spawn, reported through cb like every other outcome of a started job. */
static void report_early(cc_job *j, int status)
{
    j->reported = true;
    j->cb(j, status, NULL, j->data);
    job_free(j);
}

/* Loop thread: the copy is on disk (or not): spawn the compiler, or report. */
static void write_done(uv_work_t *req, int status)
{
    cc_job *j = req->data;
    j->writing = false;
    writing_unlink(j);
    if (j->canceled || status == UV_ECANCELED) {
        report_early(j, HK_ECANCELED);
        return;
    }
    if (j->write_rc) {
        HK_WARN("compile of %s: cannot write its copy in %s", j->orig_path, j->tmpdir);
        report_early(j, j->write_rc);
        return;
    }
    /* No compiler: reported as HK_ENOENT on a later iteration, never from inside this
     * call (runner_child's report_not_found). */
    runner_child_spec cs = {
        .argv = j->argv,
        .env = j->env,
        .cwd = j->cwd,
        .name = j->name,
        .out = {.mode = RUNNER_CHILD_CAPTURE, .max = CC_OUTPUT_MAX},
        .err = {.mode = RUNNER_CHILD_CAPTURE, .max = CC_OUTPUT_MAX},
        .timeout_ms = j->timeout_ms,
        .kill_grace_ms = 0, /* a compile has nothing to save: SIGKILL at once */
        .drain_ms = CC_DRAIN_MS,
        .report_not_found = true,
        .done = on_child_done,
        .data = j,
        .tag = &job_tag,
        .on_kill_all = on_kill_all,
    };
    int uerr = 0;
    int rc = runner_child_start(j->loop, &cs, &j->child, &uerr);
    if (rc) {
        if (rc != HK_ENOMEM) {
            HK_WARN("spawning %s failed: %s", j->argv ? j->argv[0] : "the compiler",
                    uerr ? uv_strerror(uerr) : hk_strerror(rc));
            rc = HK_EIO;
        }
        report_early(j, rc);
    }
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
    /* the caller's text may change once this returns (an editor's next keystroke) */
    char *copy = hk_strndup(text, len);
    if (!copy)
        return HK_ENOMEM;
    return cc_job_start_post(loop, o, orig_path, copy, len, NULL, cb, data, out);
}

int cc_job_start_post(uv_loop_t *loop, const cc_options *o, const char *orig_path, char *text,
                      size_t len, cc_post_fn post, cc_done_cb cb, void *data, cc_job **out)
{
    if (out)
        *out = NULL;
    if (!loop || !o || !orig_path || !*orig_path || !text || !cb) {
        hk_free(text);
        return HK_EINVAL;
    }
    if (len > CC_TEXT_MAX) {
        hk_free(text);
        return HK_ETOOBIG;
    }
    int rc = HK_ENOMEM;
    char *compiler = NULL, *incdir = NULL, *incflag = NULL;
    char **argv = NULL;
    const char **extra = NULL;
    cc_job *j = hk_calloc(1, sizeof *j);
    if (!j) {
        hk_free(text);
        return HK_ENOMEM;
    }
    j->loop = loop;
    j->post = post;
    j->cb = cb;
    j->data = data;
    j->backend = o->backend;
    j->text = text; /* the job's from now on, freed with it on failure too */
    j->len = len;
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

    bool found = true;
    if (o->compiler) {
        compiler = hk_strdup(o->compiler);
        if (!compiler)
            goto fail;
    } else {
        int frc = cc_find_compiler(o->backend, &compiler);
        if (frc == HK_ENOMEM)
            goto fail;
        found = frc == HK_OK;
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
    j->env = make_env(j->tmpdir);
    j->cwd = hk_strdup(is_dir(o->workdir) ? o->workdir : incdir ? incdir : j->tmpdir);
    j->name = hk_asprintf("compile of %s", orig_path);
    if (!j->env || !j->cwd || !j->name)
        goto fail;
    j->timeout_ms = o->timeout_ms ? o->timeout_ms : 60000;
    if (found) {
        j->argv = argv;
        argv = NULL;
    }

    j->write_req.data = j;
    if (uv_queue_work(loop, &j->write_req, write_work, write_done)) {
        rc = HK_EIO; /* the loop is closing: nothing would report */
        goto fail;
    }
    j->writing = true;
    j->next_w = writing_jobs;
    if (writing_jobs)
        writing_jobs->prev_w = j;
    writing_jobs = j;
    rc = HK_OK;
    if (out)
        *out = j;
    goto out;

fail:
    job_free(j);
out:
    hk_free(compiler);
    hk_free(incdir);
    hk_free(incflag);
    hk_free(extra);
    cc_argv_free(argv);
    return rc;
}

void cc_job_cancel(cc_job *job)
{
    if (!job || job->canceled || job->reported)
        return;
    job->canceled = true;
    if (job->writing)
        uv_cancel((uv_req_t *)&job->write_req); /* fails once the write has started:
                                                   write_done then sees canceled */
    else if (job->child)
        runner_child_cancel(job->child);
    /* else the output is being parsed on the pool: parse_done reports the cancel */
}

int cc_job_pid(const cc_job *job) { return job ? runner_child_pid(job->child) : 0; }

void cc_job_kill_all(void)
{
    /* A job still writing its copy has no compiler yet: it will spawn none, and its
     * temp dir goes now; a write on the pool at this very moment may leave the copy
     * behind, which write_done's job_free removes if the loop runs again. */
    for (cc_job *j = writing_jobs; j; j = j->next_w) {
        j->canceled = true;
        uv_cancel((uv_req_t *)&j->write_req);
        remove_tree(j->tmpdir);
    }
    runner_child_kill_all(&job_tag);
}
