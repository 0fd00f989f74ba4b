/* `hkls check`: compile files the way the editor does in the background and print
 * each file's kernels with their resource usage and occupancy, plus the compiler's
 * diagnostics. Compiles run in parallel as cc_jobs on a libuv loop; the report is
 * built as JSON per file and printed in the order the files were given. */
#include "cli/cli.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "compile/compile.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "rewrites/rewrite.h"

/* Our own sentences in a report: English in the JSON (--json is language-neutral), said
 * again in the user's language by the text (print_text, hk_tr_said). */
#define EN(id) hk_tr_in(HK_LANG_EN, id)

#define CHECK_MAX_FILE ((size_t)16 << 20)
#define CHECK_MAX_FLAGS 256

struct check_file {
    const char *path;
    char *text;
    size_t len;
    an_model *model;       /* NULL when the analysis failed: names and lines then come
                            * from the compiler alone */
    enum cc_backend backend;
    char *arch;
    json_t *report;        /* new reference, set when done */
    int exit_class;        /* 0 ok, 1 compile errors, 2 could not check */
    uint64_t started;
};

struct check_run {
    uv_loop_t loop;
    struct check_file *files;
    size_t n_files, next, running, parallel;
    const char *compiler;
    const char **extra;
    unsigned timeout_ms;
    int block_override;    /* 0: from the source */
};

static void usage(FILE *f)
{
    fputs(hk_tr(HK_MSG_CLI_CHECK_USAGE), f);
}

/* ---- the block size for occupancy ---- */

/* Block size and dynamic shared memory for a kernel: --block, else what the file launches
 * it with (rw_kernel_block_of, as the editor reads it), else 256. *source says which. */
static void block_for(const struct check_run *run, const struct check_file *f,
                      const char *base, int *threads, int *dyn, const char **source)
{
    rw_kernel_block kb;
    *threads = 256;
    *dyn = 0;
    *source = "assumed";
    if (run->block_override) {
        *threads = run->block_override;
        *source = "--block";
        return;
    }
    if (rw_kernel_block_of(f->text, f->len, f->model, base, -1, &kb) != HK_OK || !kb.threads)
        return;
    *threads = kb.threads;
    *dyn = kb.dyn_smem;
    *source = kb.source;
}

/* ---- the per-file report ---- */

static const char *severity_name(enum cc_severity s)
{
    return s == CC_ERROR ? "error" : s == CC_WARNING ? "warning" : "note";
}

static int kernel_line(const an_model *m, const cc_resource *r)
{
    long k = m ? an_model_find_kernel(m, r->base_name) : -1;
    if (k >= 0)
        return (int)m->funcs[k].name_span.start_row + 1;
    return r->line;
}

static json_t *resource_json(const struct check_run *run, const struct check_file *f,
                             const cc_resource *r)
{
    json_t *k = json_object();
    if (!k)
        return NULL;
    json_object_set_new(k, "name", json_string(r->kernel));
    json_object_set_new(k, "base_name", json_string(r->base_name));
    json_object_set_new(k, "mangled", json_string(r->mangled));
    json_object_set_new(k, "arch", json_string(r->arch ? r->arch : f->arch));
    json_object_set_new(k, "line", json_integer(kernel_line(f->model, r)));
    json_object_set_new(k, "registers", json_integer(r->registers));
    json_object_set_new(k, "stack", json_integer(r->stack));
    json_object_set_new(k, "smem_static", json_integer(r->smem_static));
    json_object_set_new(k, "spills", json_boolean(cc_resource_spills(r)));
    if (f->backend == CC_NVIDIA) {
        json_object_set_new(k, "spill_stores", json_integer(r->spill_stores));
        json_object_set_new(k, "spill_loads", json_integer(r->spill_loads));
        json_object_set_new(k, "cmem", json_integer(r->cmem));
        json_object_set_new(k, "barriers", json_integer(r->barriers));
    } else {
        json_object_set_new(k, "sgprs", json_integer(r->sgprs));
        json_object_set_new(k, "agprs", json_integer(r->agprs));
        json_object_set_new(k, "vgpr_spills", json_integer(r->vgpr_spills));
        json_object_set_new(k, "sgpr_spills", json_integer(r->sgpr_spills));
        json_object_set_new(k, "waves_per_simd", json_integer(r->waves_per_simd));
    }
    int threads, dyn;
    const char *source;
    block_for(run, f, r->base_name, &threads, &dyn, &source);
    cc_occupancy occ;
    int rc = cc_occupancy_for(r->arch ? r->arch : f->arch, r, threads, dyn, &occ);
    if (rc == HK_OK) {
        json_t *o = json_object();
        json_object_set_new(o, "block_threads", json_integer(threads));
        json_object_set_new(o, "block_source", json_string(source));
        json_object_set_new(o, "dynamic_smem", json_integer(dyn));
        json_object_set_new(o, "blocks_per_sm", json_integer(occ.blocks_per_sm));
        json_object_set_new(o, "warps_per_sm", json_integer(occ.warps_per_sm));
        json_object_set_new(o, "occupancy", json_real(occ.occupancy));
        json_object_set_new(o, "limiter", json_string(occ.limiter));
        json_object_set_new(k, "occupancy", o);
    } else {
        json_object_set_new(k, "occupancy", json_null());
    }
    return k;
}

static void file_done(struct check_run *run, struct check_file *f, int status,
                      const cc_result *res)
{
    json_t *rep = json_object();
    if (!rep)
        return;
    json_object_set_new(rep, "file", json_string(f->path));
    char *target = hk_asprintf("%s:%s", cc_backend_name(f->backend), f->arch);
    json_object_set_new(rep, "target", json_string(target ? target : ""));
    hk_free(target);
    json_object_set_new(rep, "seconds",
                        json_real((double)(uv_hrtime() - f->started) / 1e9));
    if (status != HK_OK) {
        f->exit_class = 2;
        json_object_set_new(rep, "status", json_string("failed"));
        json_object_set_new(rep, "error",
                            json_string(status == HK_ENOENT
                                            ? EN(f->backend == CC_NVIDIA ? HK_MSG_CHECK_NO_NVCC
                                                                         : HK_MSG_CHECK_NO_HIPCC)
                                            : hk_strerror(status)));
        f->report = rep;
        return;
    }
    bool errors = res->exit_code != 0 || res->timed_out;
    json_t *diags = json_array();
    for (size_t i = 0; i < res->n_diags; i++) {
        const cc_diag *d = &res->diags[i];
        if (d->severity == CC_ERROR)
            errors = true;
        json_t *j = json_object();
        int line = d->line;
        const char *file = d->file;
        if (!file) {
            /* ptxas and driver messages name no file: put them on the kernel they name,
             * or on the file being checked. */
            file = f->path;
            long k = d->kernel && f->model ? an_model_find_kernel(f->model, d->kernel) : -1;
            if (k >= 0)
                line = (int)f->model->funcs[k].name_span.start_row + 1;
        }
        json_object_set_new(j, "file", json_string(file));
        json_object_set_new(j, "line", json_integer(line));
        json_object_set_new(j, "col", json_integer(d->col));
        json_object_set_new(j, "severity", json_string(severity_name(d->severity)));
        json_object_set_new(j, "message", json_string(d->message));
        if (d->kernel)
            json_object_set_new(j, "kernel", json_string(d->kernel));
        json_array_append_new(diags, j);
    }
    if (res->timed_out) {
        json_t *j = json_object();
        json_object_set_new(j, "file", json_string(f->path));
        json_object_set_new(j, "line", json_integer(0));
        json_object_set_new(j, "col", json_integer(0));
        json_object_set_new(j, "severity", json_string("error"));
        json_object_set_new(j, "message", json_string(EN(HK_MSG_CHECK_TIMED_OUT)));
        json_array_append_new(diags, j);
    } else if (res->exit_code != 0 && res->n_diags == 0) {
        /* A failure the parser did not recognise: show the tail of the output. */
        const char *out = res->output ? res->output : "";
        size_t n = strlen(out);
        const char *tail = n > 2000 ? out + n - 2000 : out;
        char *msg = hk_asprintf(EN(HK_MSG_CHECK_FAILED_EXIT), res->exit_code, tail);
        json_t *j = json_object();
        json_object_set_new(j, "file", json_string(f->path));
        json_object_set_new(j, "line", json_integer(0));
        json_object_set_new(j, "col", json_integer(0));
        json_object_set_new(j, "severity", json_string("error"));
        json_object_set_new(j, "message", json_string(msg ? msg : EN(HK_MSG_CHECK_FAILED)));
        hk_free(msg);
        json_array_append_new(diags, j);
    }
    json_t *kernels = json_array();
    for (size_t i = 0; i < res->n_res; i++)
        json_array_append_new(kernels, resource_json(run, f, &res->res[i]));
    /* Kernels in the source without code: templates never instantiated here. */
    json_t *absent = json_array();
    for (size_t i = 0; f->model && !errors && i < f->model->n_funcs; i++) {
        const an_function *fn = &f->model->funcs[i];
        if (fn->kind != AN_KERNEL)
            continue;
        bool seen = false;
        for (size_t r = 0; r < res->n_res && !seen; r++)
            seen = strcmp(res->res[r].base_name, fn->name) == 0;
        if (!seen)
            json_array_append_new(absent, json_string(fn->name));
    }
    json_object_set_new(rep, "status", json_string(errors ? "errors" : "ok"));
    json_object_set_new(rep, "exit_code", json_integer(res->exit_code));
    json_object_set_new(rep, "timed_out", json_boolean(res->timed_out));
    json_object_set_new(rep, "diagnostics", diags);
    json_object_set_new(rep, "kernels", kernels);
    json_object_set_new(rep, "not_compiled", absent);
    f->exit_class = errors ? 1 : 0;
    f->report = rep;
}

/* ---- running ---- */

static void start_next(struct check_run *run);

struct job_ctx {
    struct check_run *run;
    struct check_file *file;
};

static void on_done(cc_job *job, int status, const cc_result *res, void *data)
{
    struct job_ctx *c = data;
    (void)job;
    file_done(c->run, c->file, status, res);
    c->run->running--;
    struct check_run *run = c->run;
    hk_free(c);
    start_next(run);
}

static void start_next(struct check_run *run)
{
    while (run->running < run->parallel && run->next < run->n_files) {
        struct check_file *f = &run->files[run->next++];
        if (f->report)
            continue; /* already failed (unreadable) */
        cc_options o = {.backend = f->backend, .compiler = run->compiler, .arch = f->arch,
                        .extra = run->extra, .timeout_ms = run->timeout_ms};
        struct job_ctx *c = hk_calloc(1, sizeof *c);
        int rc = HK_ENOMEM;
        if (c) {
            c->run = run;
            c->file = f;
            f->started = uv_hrtime();
            rc = cc_job_start(&run->loop, &o, f->path, f->text, f->len, on_done, c, NULL);
        }
        if (rc != HK_OK) {
            hk_free(c);
            file_done(run, f, rc, NULL);
            continue;
        }
        run->running++;
    }
}

static int read_file(const char *path, char **text, size_t *len, const char **why)
{
    *text = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        *why = strerror(errno);
        return HK_ENOENT;
    }
    struct hk_buf_local {
        char *data;
        size_t len, cap;
    } b = {0};
    int rc = HK_OK;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (b.len + n > CHECK_MAX_FILE) {
            rc = HK_ETOOBIG;
            *why = EN(HK_MSG_CHECK_TOO_BIG);
            break;
        }
        if (b.len + n + 1 > b.cap) {
            size_t cap = b.cap ? b.cap * 2 : 65536;
            while (cap < b.len + n + 1)
                cap *= 2;
            char *p = hk_realloc(b.data, cap);
            if (!p) {
                rc = HK_ENOMEM;
                *why = EN(HK_MSG_CHECK_NO_MEMORY);
                break;
            }
            b.data = p;
            b.cap = cap;
        }
        memcpy(b.data + b.len, chunk, n);
        b.len += n;
    }
    if (rc == HK_OK && ferror(fp)) {
        rc = HK_EIO;
        *why = strerror(errno);
    }
    fclose(fp);
    if (rc != HK_OK) {
        hk_free(b.data);
        return rc;
    }
    if (!b.data) {
        b.data = hk_strdup("");
        if (!b.data) {
            *why = EN(HK_MSG_CHECK_NO_MEMORY);
            return HK_ENOMEM;
        }
    }
    b.data[b.len] = '\0';
    *text = b.data;
    *len = b.len;
    return HK_OK;
}

/* f's report when it could not be checked at all (exit class 2): error says why. */
static void not_checked(struct check_file *f, const char *error)
{
    f->started = uv_hrtime();
    f->report = json_object();
    json_object_set_new(f->report, "file", json_string(f->path));
    char *t = hk_asprintf("%s:%s", cc_backend_name(f->backend), f->arch);
    json_object_set_new(f->report, "target", json_string(t ? t : ""));
    hk_free(t);
    json_object_set_new(f->report, "status", json_string("failed"));
    json_object_set_new(f->report, "error", json_string(error));
    f->exit_class = 2;
}

/* ---- printing ---- */

static const char *jstr(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static long long jint(json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static void print_kernel(FILE *out, json_t *k, bool nvidia)
{
    fprintf(out, "  %s", jstr(k, "name"));
    if (jint(k, "line") > 0)
        fprintf(out, hk_tr(HK_MSG_CHECK_AT_LINE), jint(k, "line"));
    if (nvidia) {
        fprintf(out, hk_tr(HK_MSG_CHECK_NV_REGISTERS), jint(k, "registers"));
        if (jint(k, "spill_stores") || jint(k, "spill_loads"))
            fprintf(out, hk_tr(HK_MSG_CHECK_NV_SPILLS), jint(k, "spill_stores"),
                    jint(k, "spill_loads"));
        else
            fputs(hk_tr(HK_MSG_CHECK_NO_SPILLS), out);
        fprintf(out, hk_tr(HK_MSG_CHECK_NV_MEMORY), jint(k, "smem_static"), jint(k, "stack"));
    } else {
        fprintf(out, hk_tr(HK_MSG_CHECK_DCU_REGISTERS), jint(k, "registers"), jint(k, "sgprs"));
        if (jint(k, "agprs"))
            fprintf(out, hk_tr(HK_MSG_CHECK_DCU_AGPRS), jint(k, "agprs"));
        if (jint(k, "vgpr_spills") || jint(k, "sgpr_spills"))
            fprintf(out, hk_tr(HK_MSG_CHECK_DCU_SPILLS), jint(k, "vgpr_spills"),
                    jint(k, "sgpr_spills"));
        else
            fputs(hk_tr(HK_MSG_CHECK_NO_SPILLS), out);
        fprintf(out, hk_tr(HK_MSG_CHECK_DCU_MEMORY), jint(k, "smem_static"), jint(k, "stack"));
    }
    json_t *o = json_object_get(k, "occupancy");
    if (json_is_object(o)) {
        const char *src = jstr(o, "block_source");
        fprintf(out, hk_tr(HK_MSG_CHECK_OCCUPANCY),
                json_real_value(json_object_get(o, "occupancy")) * 100.0,
                jint(o, "blocks_per_sm"), nvidia ? "SM" : "CU", jint(o, "block_threads"));
        if (!strcmp(src, "assumed"))
            fputs(hk_tr(HK_MSG_CHECK_BLOCK_ASSUMED), out);
        else /* __launch_bounds__, reqd_work_group_size, ...: names, as they are */
            fprintf(out, hk_tr(HK_MSG_CHECK_BLOCK_FROM),
                    !strcmp(src, "launch") ? hk_tr(HK_MSG_CHECK_A_LAUNCH) : src);
        if (jint(o, "dynamic_smem"))
            fprintf(out, hk_tr(HK_MSG_CHECK_DYNAMIC_SHARED), jint(o, "dynamic_smem"));
        fprintf(out, hk_tr(HK_MSG_CHECK_LIMITED_BY), jstr(o, "limiter"));
    } else {
        fprintf(out, hk_tr(HK_MSG_CHECK_OCCUPANCY_UNKNOWN), jstr(k, "arch"));
    }
    fputc('\n', out);
}

static void print_text(FILE *out, json_t *rep)
{
    const char *status = jstr(rep, "status");
    fprintf(out, "%s [%s]: ", jstr(rep, "file"), jstr(rep, "target"));
    bool nvidia = strncmp(jstr(rep, "target"), "nvidia:", 7) == 0;
    if (!strcmp(status, "failed")) {
        char *said = hk_tr_said(hk_i18n_lang(), jstr(rep, "error"));
        fprintf(out, hk_tr(HK_MSG_CHECK_NOT_CHECKED), said ? said : jstr(rep, "error"));
        hk_free(said);
        return;
    }
    json_t *kernels = json_object_get(rep, "kernels");
    json_t *diags = json_object_get(rep, "diagnostics");
    size_t nk = json_array_size(kernels);
    double secs = json_real_value(json_object_get(rep, "seconds"));
    if (!strcmp(status, "ok") && nk == 1)
        fprintf(out, hk_tr(HK_MSG_CHECK_OK_ONE), secs);
    else if (!strcmp(status, "ok"))
        fprintf(out, hk_tr(HK_MSG_CHECK_OK_MANY), nk, secs);
    else
        fprintf(out, hk_tr(HK_MSG_CHECK_COMPILE_ERRORS), jint(rep, "exit_code"));
    size_t i;
    json_t *d;
    json_array_foreach(diags, i, d) {
        fprintf(out, "%s", jstr(d, "file"));
        if (jint(d, "line") > 0)
            fprintf(out, ":%lld", jint(d, "line"));
        if (jint(d, "col") > 0)
            fprintf(out, ":%lld", jint(d, "col"));
        /* a line-less message may be ours (a timeout, a failure we could not place): the
         * compilers' own words match no entry and stay as they are */
        char *said = jint(d, "line") > 0 ? NULL : hk_tr_said(hk_i18n_lang(), jstr(d, "message"));
        fprintf(out, ": %s: %s\n", jstr(d, "severity"), said ? said : jstr(d, "message"));
        hk_free(said);
    }
    json_t *k;
    json_array_foreach(kernels, i, k)
        print_kernel(out, k, nvidia);
    json_t *absent = json_object_get(rep, "not_compiled");
    json_array_foreach(absent, i, k)
        fprintf(out, hk_tr(HK_MSG_CHECK_NOT_COMPILED), json_string_value(k));
}

/* ---- the command ---- */

int cli_check(int argc, char **argv)
{
    int exit_code = 2;
    const char *target = NULL;
    bool as_json = false;
    struct check_run run;
    memset(&run, 0, sizeof run);
    const char **files = hk_calloc((size_t)argc + 1, sizeof *files);
    const char **extra = hk_calloc(2 * (size_t)argc + 1, sizeof *extra);
    char **owned = hk_calloc((size_t)argc + 1, sizeof *owned); /* "-I" + dir joined */
    size_t n_files = 0, n_extra = 0, n_owned = 0;
    enum cc_backend forced_backend = CC_NVIDIA;
    char *forced_arch = NULL;
    json_t *all = NULL;
    bool loop_ready = false;
    if (!files || !extra || !owned) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_CHECK_OOM));
        goto out;
    }
    hk_alloc_init_json();
    run.timeout_ms = 120000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
#define NEED_VALUE()                                                           \
    do {                                                                       \
        if (i + 1 >= argc) {                                                   \
            fprintf(stderr, hk_tr(HK_MSG_CLI_CHECK_NEEDS_VALUE), a);              \
            goto out;                                                          \
        }                                                                      \
        val = argv[++i];                                                       \
    } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit_code = 0;
            goto out;
        } else if (!strcmp(a, "--json")) {
            as_json = true;
        } else if (!strcmp(a, "--target")) {
            NEED_VALUE();
            target = val;
        } else if (!strncmp(a, "--target=", 9)) {
            target = a + 9;
        } else if (!strcmp(a, "--compiler")) {
            NEED_VALUE();
            run.compiler = val;
        } else if (!strcmp(a, "--block") || !strcmp(a, "--timeout")) {
            NEED_VALUE();
            char *end;
            errno = 0;
            long v = strtol(val, &end, 10);
            bool block = !strcmp(a, "--block");
            if (errno || *end || v <= 0 || v > (block ? 1024 : 3600)) {
                fprintf(stderr, hk_tr(HK_MSG_CLI_CHECK_BAD_VALUE), a, val);
                goto out;
            }
            if (block)
                run.block_override = (int)v;
            else
                run.timeout_ms = (unsigned)v * 1000;
        } else if (!strcmp(a, "--flag")) {
            NEED_VALUE();
            extra[n_extra++] = val;
        } else if (!strcmp(a, "-I") || !strcmp(a, "-D")) {
            NEED_VALUE();
            char *joined = hk_asprintf("%s%s", a, val);
            if (!joined) {
                fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_CHECK_OOM));
                goto out;
            }
            owned[n_owned++] = joined;
            extra[n_extra++] = joined;
        } else if (!strncmp(a, "-I", 2) || !strncmp(a, "-D", 2)) {
            extra[n_extra++] = a;
        } else if (!strcmp(a, "--")) {
            for (i++; i < argc; i++)
                files[n_files++] = argv[i];
        } else if (a[0] == '-') {
            fprintf(stderr, hk_tr(HK_MSG_CLI_CHECK_UNKNOWN_OPTION), a);
            usage(stderr);
            goto out;
        } else {
            files[n_files++] = a;
        }
#undef NEED_VALUE
    }
    if (!n_files) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_CHECK_NO_FILES));
        usage(stderr);
        goto out;
    }
    if (target && cc_parse_target(target, &forced_backend, &forced_arch) != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_CHECK_BAD_TARGET), target, cc_nvidia_archs_text());
        goto out;
    }
    if (forced_arch && !cc_arch_find(forced_arch))
        fprintf(stderr, hk_tr(HK_MSG_CLI_CHECK_NO_OCC_TABLE),
                forced_arch);
    extra[n_extra] = NULL;
    run.extra = n_extra ? extra : NULL;

    run.files = hk_calloc(n_files, sizeof *run.files);
    if (!run.files || uv_loop_init(&run.loop) != 0) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_CHECK_CANNOT_START));
        goto out;
    }
    loop_ready = true;
    run.n_files = n_files;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    run.parallel = cpus < 1 ? 1 : cpus > 8 ? 8 : (size_t)cpus;
    for (size_t i = 0; i < n_files; i++) {
        struct check_file *f = &run.files[i];
        f->path = files[i];
        f->backend = forced_arch ? forced_backend
                                 : cc_backend_of_path(files[i]);
        f->arch = hk_strdup(forced_arch ? forced_arch
                                        : f->backend == CC_DCU ? "gfx906" : "sm_90");
        if (!f->arch) {
            fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_CHECK_OOM));
            goto out;
        }
        const char *why = NULL;
        int rc = read_file(f->path, &f->text, &f->len, &why);
        if (rc != HK_OK) {
            char *msg = hk_asprintf(EN(HK_MSG_CHECK_CANNOT_READ), why ? why : hk_strerror(rc));
            not_checked(f, msg ? msg : EN(HK_MSG_CHECK_CANNOT_READ_BARE));
            hk_free(msg);
            continue;
        }
        /* a binary file renamed to .cu: refused, not handed to the compiler */
        const char *what = "";
        size_t at = 0;
        if (!cc_source_is_text(f->text, f->len, &what, &at)) {
            char *msg = hk_asprintf(EN(HK_MSG_EP_NOT_TEXT_FILE_AT_2), f->path, what, at);
            not_checked(f, msg ? msg : EN(HK_MSG_CHECK_NOT_TEXT_BARE));
            hk_free(msg);
            continue;
        }
        /* Analysis gives kernel lines and block sizes; without it the compiler's
         * names still print. */
        if (an_analyze(f->text, f->len, &f->model) != HK_OK)
            f->model = NULL;
    }
    start_next(&run);
    uv_run(&run.loop, UV_RUN_DEFAULT);

    all = json_object();
    json_t *arr = json_array();
    int worst = 0;
    size_t n_errors = 0;
    for (size_t i = 0; i < n_files; i++) {
        struct check_file *f = &run.files[i];
        if (!f->report) {
            f->exit_class = 2;
            continue;
        }
        if (f->exit_class)
            n_errors++;
        if (f->exit_class > worst)
            worst = f->exit_class;
        json_array_append(arr, f->report);
    }
    json_object_set_new(all, "files", arr);
    json_object_set_new(all, "files_with_errors", json_integer((json_int_t)n_errors));
    if (as_json) {
        char *s = json_dumps(all, JSON_INDENT(2));
        if (s) {
            fputs(s, stdout);
            fputc('\n', stdout);
        }
        hk_free(s);
    } else {
        size_t i;
        json_t *rep;
        json_array_foreach(arr, i, rep)
            print_text(stdout, rep);
    }
    exit_code = worst;
out:
    fflush(stdout);
    json_decref(all);
    if (loop_ready) {
        uv_run(&run.loop, UV_RUN_DEFAULT);
        uv_loop_close(&run.loop);
    }
    for (size_t i = 0; run.files && i < run.n_files; i++) {
        hk_free(run.files[i].text);
        hk_free(run.files[i].arch);
        an_model_free(run.files[i].model);
        json_decref(run.files[i].report);
    }
    hk_free(run.files);
    for (size_t i = 0; i < n_owned; i++)
        hk_free(owned[i]);
    hk_free(owned);
    hk_free(files);
    hk_free(extra);
    hk_free(forced_arch);
    return exit_code;
}
