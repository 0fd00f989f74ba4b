/* Background compile diagnostics: a debounced nvcc/hipcc child per document, the newer
 * version cancelling the older job, stale results dropped, compiler errors and warnings
 * placed on their lines and per-kernel resources as hints on kernel names. Each source
 * keeps its own set; publishDiagnostics always sends the merged whole. */
#include "lsp/diagnostics.h"

#include "lsp/loopwatch.h"
#include "lsp/base.h"
#include "lsp/config.h"
#include "lsp/textsync.h"

#include "core/buf.h"
#include "core/hk.h"

#include <string.h>

#define MAX_DIAGS 500

struct job_ctx {
    struct lsp_server *s;
    char *uri;
    int64_t version;
};

/* ---- publishing ---- */

static void publish(struct lsp_server *s, const char *uri, int64_t version, bool with_version,
                    json_t *diags /* stolen */)
{
    json_t *p = json_pack("{s:s, s:o}", "uri", uri, "diagnostics", diags ? diags : json_array());
    if (p && with_version && s->cl_diag_version)
        json_object_set_new(p, "version", json_integer(version));
    rpc_notify(s->rpc, "textDocument/publishDiagnostics", p);
}

void lsp_diag_set(struct lsp_server *s, doc *d, enum lsp_diag_source src, json_t *diags)
{
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!ld || src >= LSP_DIAG_N) {
        json_decref(diags);
        return;
    }
    json_decref(ld->diags[src]);
    ld->diags[src] = diags;
    json_t *all = json_array();
    for (int i = 0; all && i < LSP_DIAG_N; i++)
        if (ld->diags[i])
            json_array_extend(all, ld->diags[i]);
    publish(s, doc_uri(d), doc_version(d), true, all);
}

void lsp_diag_clear_uri(struct lsp_server *s, const char *uri)
{
    publish(s, uri, 0, false, json_array());
}

/* ---- turning compiler output into diagnostics ---- */

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* Byte range on line (1-based) at column col (1-based bytes). Without a column, the
 * identifier the message quotes ("x" is undefined) when the line has it, else the
 * line's text. */
static void line_range(const doc *d, int line, int col, const char *msg, uint32_t *start,
                       uint32_t *end)
{
    uint32_t n = doc_line_count(d);
    uint32_t l = line > 0 ? (uint32_t)(line - 1) : 0;
    if (l >= n)
        l = n ? n - 1 : 0;
    uint32_t ls = 0, len = 0;
    doc_line_start(d, l, &ls);
    doc_line_length(d, l, &len);
    const char *t = doc_text(d) + ls;
    const char *q1 = msg ? strchr(msg, '"') : NULL;
    const char *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
    if (col <= 0 && q2 && q2 - q1 > 1 && q2 - q1 < 256) {
        size_t qn = (size_t)(q2 - q1 - 1);
        for (uint32_t i = 0; i + qn <= len; i++) {
            if (memcmp(t + i, q1 + 1, qn) != 0 || (i > 0 && ident_char(t[i - 1])) ||
                (i + qn < len && ident_char(t[i + qn])))
                continue;
            *start = ls + i;
            *end = ls + i + (uint32_t)qn;
            return;
        }
    }
    if (col <= 0) {
        uint32_t i = 0;
        while (i < len && (t[i] == ' ' || t[i] == '\t'))
            i++;
        *start = ls + i;
        *end = ls + len;
        return;
    }
    uint32_t c = (uint32_t)(col - 1) > len ? len : (uint32_t)(col - 1);
    uint32_t e = c;
    while (e < len && ident_char(t[e]))
        e++;
    if (e == c && e < len)
        e++;
    *start = ls + c;
    *end = ls + e;
}

static bool same_file(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static json_t *make_diag(struct lsp_server *s, const doc *d, uint32_t start, uint32_t end,
                         int severity, const char *source, const char *message)
{
    json_t *range = lsp_range_json(s, d, start, end);
    if (!range)
        return NULL;
    return json_pack("{s:o, s:i, s:s, s:s}", "range", range, "severity", severity, "source",
                     source, "message", message);
}

/* The model's kernels by name, for finding hundreds of them at once: an_model_find_kernel
 * searches the whole list each time (5 ms of the loop for the hints of a file of 1,000
 * kernels, bench/results/lsp-2026-12-05-s31-face4.md). The same answers: the first kernel
 * of that name, else of the name's last component after "::". */
struct kernel_name {
    const char *name;
    size_t at;
};

struct kernel_index {
    const an_model *m;
    struct kernel_name *k; /* sorted by name, then position; NULL: search the model */
    size_t n;
};

static int kernel_name_cmp(const void *a, const void *b)
{
    const struct kernel_name *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->at < y->at ? -1 : x->at > y->at;
}

static void kernel_index_init(struct kernel_index *x, const an_model *m)
{
    x->m = m;
    x->n = 0;
    x->k = m && m->n_funcs ? hk_malloc(m->n_funcs * sizeof *x->k) : NULL;
    for (size_t i = 0; x->k && i < m->n_funcs; i++)
        if (m->funcs[i].kind == AN_KERNEL)
            x->k[x->n++] = (struct kernel_name){m->funcs[i].name, i};
    if (x->k)
        qsort(x->k, x->n, sizeof *x->k, kernel_name_cmp);
}

static long kernel_index_find(const struct kernel_index *x, const char *name)
{
    if (!x->m || !name)
        return -1;
    if (!x->k)
        return an_model_find_kernel(x->m, name);
    size_t lo = 0, hi = x->n; /* the first entry not below name */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(x->k[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < x->n && !strcmp(x->k[lo].name, name))
        return (long)x->k[lo].at;
    const char *last = name;
    for (const char *p = name; (p = strstr(p, "::")); p += 2)
        last = p + 2;
    return last != name && *last ? kernel_index_find(x, last) : -1;
}

static void kernel_index_free(struct kernel_index *x) { hk_free(x->k); }

static json_t *compile_diags(struct lsp_server *s, const doc *d, struct lsp_doc *ld,
                             const cc_result *res, const char *source)
{
    json_t *out = json_array();
    const an_model *m = lsp_doc_model(ld);
    struct kernel_index ki;
    kernel_index_init(&ki, m);
    for (size_t i = 0; out && i < res->n_diags && json_array_size(out) < MAX_DIAGS; i++) {
        const cc_diag *g = &res->diags[i];
        int sev = g->severity == CC_ERROR ? 1 : g->severity == CC_WARNING ? 2 : 3;
        uint32_t a = 0, b = 0;
        char *msg = NULL;
        long k = -1;
        if (g->kernel && m) {
            const char *base = g->kernel;
            k = kernel_index_find(&ki, base);
        }
        if (g->file && same_file(g->file, ld->path) && g->line > 0) {
            line_range(d, g->line, g->col, g->message, &a, &b);
            msg = hk_strdup(g->message);
        } else if (k >= 0) {
            a = m->funcs[k].name_span.start_byte;
            b = m->funcs[k].name_span.end_byte;
            msg = hk_strdup(g->message);
        } else {
            if (g->severity == CC_NOTE)
                continue; /* notes about other files are noise without their error */
            line_range(d, 1, 0, NULL, &a, &b);
            msg = g->file ? hk_asprintf("%s:%d: %s", g->file, g->line, g->message)
                          : hk_strdup(g->message);
        }
        if (!msg)
            continue;
        json_t *dj = make_diag(s, d, a, b, sev, source, msg);
        hk_free(msg);
        if (dj)
            json_array_append_new(out, dj);
    }
    if (out && res->exit_code != 0 && !res->timed_out && json_array_size(out) == 0) {
        /* The compiler failed without a message we could place: say so, with its output. */
        char *msg = hk_asprintf("%s exited with status %d: %.400s", source, res->exit_code,
                                res->output ? res->output : "(no output)");
        json_t *dj = msg ? make_diag(s, d, 0, 0, 1, source, msg) : NULL;
        hk_free(msg);
        if (dj)
            json_array_append_new(out, dj);
    }
    if (out && res->timed_out) {
        json_t *dj = make_diag(s, d, 0, 0, 2, source,
                               hk_tr(HK_MSG_LSP_COMPILE_TIMED_OUT));
        if (dj)
            json_array_append_new(out, dj);
    }
    kernel_index_free(&ki);
    return out;
}

static json_t *resource_hints(struct lsp_server *s, const doc *d, struct lsp_doc *ld)
{
    json_t *out = json_array();
    const an_model *m = lsp_doc_model(ld);
    /* every kernel's launched block in one pass over the launches (a thousand kernels:
     * about 4 ms, where one call per kernel took 45) */
    rw_kernel_block *blocks = m && m->n_funcs ? hk_calloc(m->n_funcs, sizeof *blocks) : NULL;
    if (blocks && rw_kernel_blocks(doc_text(d), doc_length(d), m, blocks) != HK_OK) {
        hk_free(blocks);
        blocks = NULL;
    }
    struct kernel_index ki;
    kernel_index_init(&ki, m);
    for (size_t i = 0; out && m && i < ld->n_res; i++) {
        const cc_resource *r = &ld->res[i];
        const char *base = r->base_name ? r->base_name : r->kernel;
        long k = base ? kernel_index_find(&ki, base) : -1;
        if (k < 0 || (size_t)k >= m->n_funcs)
            continue;
        const an_function *f = &m->funcs[k];
        struct hk_buf b;
        hk_buf_init(&b, 4096);
        if (r->kernel && strcmp(r->kernel, f->name) != 0)
            hk_buf_printf(&b, "%s: ", r->kernel);
        lsp_resource_summary(r, blocks ? &blocks[k] : NULL, &b);
        json_t *dj = b.data ? make_diag(s, d, f->name_span.start_byte, f->name_span.end_byte, 4,
                                        "hkls", b.data)
                            : NULL;
        hk_buf_free(&b);
        if (dj)
            json_array_append_new(out, dj);
    }
    kernel_index_free(&ki);
    hk_free(blocks);
    return out;
}

static void free_res(struct lsp_doc *ld)
{
    for (size_t i = 0; i < ld->n_res; i++) {
        hk_free(ld->res[i].kernel);
        hk_free(ld->res[i].base_name);
        hk_free(ld->res[i].mangled);
        hk_free(ld->res[i].arch);
    }
    hk_free(ld->res);
    ld->res = NULL;
    ld->n_res = 0;
}

static char *dup_or_null(const char *s) { return s ? hk_strdup(s) : NULL; }

/* Keeps copies of the resources for hover and hints. */
static void keep_res(struct lsp_doc *ld, const cc_result *res, int64_t version)
{
    free_res(ld);
    if (!res->n_res)
        return;
    ld->res = hk_calloc(res->n_res, sizeof *ld->res);
    if (!ld->res)
        return;
    for (size_t i = 0; i < res->n_res; i++) {
        cc_resource r = res->res[i];
        r.kernel = dup_or_null(r.kernel);
        r.base_name = dup_or_null(r.base_name);
        r.mangled = dup_or_null(r.mangled);
        r.arch = dup_or_null(r.arch);
        ld->res[ld->n_res++] = r;
    }
    ld->res_version = version;
}

/* ---- jobs ---- */

static void job_done(cc_job *job, int status, const cc_result *res, void *data)
{
    struct job_ctx *ctx = data;
    struct lsp_server *s = ctx->s;
    lsp_loopwatch_note(s->loopwatch, "(compile done)");
    s->jobs_running--;
    doc *d = doc_get(s->docs, ctx->uri);
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!ld || ld->job != job) {
        HK_DEBUG("%s: compile of version %lld dropped (%s)", ctx->uri, (long long)ctx->version,
                 status == HK_ECANCELED ? "cancelled" : "superseded");
        goto out;
    }
    ld->job = NULL;
    if (status == HK_ENOENT) {
        if (!s->told_no_compiler)
            lsp_show_message(s, 2, "%s", hk_tr(HK_MSG_SHOW_NO_COMPILER));
        s->told_no_compiler = true;
        goto out;
    }
    if (status != HK_OK || !res) {
        lsp_log_message(s, 2, hk_tr(HK_MSG_LSP_LOG_COMPILE_FAILED), ctx->uri, hk_strerror(status));
        goto out;
    }
    if (doc_version(d) != ctx->version) {
        HK_DEBUG("%s: compile result for version %lld is stale (now %lld)", ctx->uri,
                 (long long)ctx->version, (long long)doc_version(d));
        goto out;
    }
    HK_INFO("%s: compiled version %lld: exit %d, %zu diagnostics, %zu kernels", ctx->uri,
            (long long)ctx->version, res->exit_code, res->n_diags, res->n_res);
    /* the compiler lsp_compile_options chose: the target's, else the .hip rule's */
    const char *source = cc_compiler_label(s->cfg.target_set ? s->cfg.backend
                                                             : cc_backend_of_path(ld->path));
    json_t *cd = compile_diags(s, d, ld, res, source);
    keep_res(ld, res, ctx->version);
    /* the hints place resources on kernels of the model: when the parse of this text is
     * still on the pool, they are made again once it is in (lsp_diag_model_ready) */
    ld->hints_due = ld->an && !lsp_doc_analysis_current(ld);
    json_t *hints = resource_hints(s, d, ld);
    /* Set both before one publish: replace the hints silently, then publish. */
    json_decref(ld->diags[LSP_DIAG_RESOURCES]);
    ld->diags[LSP_DIAG_RESOURCES] = hints;
    lsp_diag_set(s, d, LSP_DIAG_COMPILE, cd);
out:
    hk_free(ctx->uri);
    hk_free(ctx);
}

void lsp_diag_model_ready(struct lsp_server *s, doc *d)
{
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!ld || !ld->n_res || ld->res_version != doc_version(d))
        return; /* no resources, or of older text: the next compile brings new ones */
    lsp_diag_set(s, d, LSP_DIAG_RESOURCES, resource_hints(s, d, ld));
}

static void start_compile(struct lsp_server *s, doc *d, struct lsp_doc *ld)
{
    cc_options o;
    char **extra = NULL;
    struct job_ctx *ctx = NULL;
    int orc = lsp_compile_options(s, ld->path, &o, &extra);
    if (orc == HK_ESTATE) {
        /* compile_commands.json is being read on the pool: publishing it compiles again */
        HK_DEBUG("%s: compile waits for compile_commands.json", ld->uri);
        goto out;
    }
    if (orc) {
        HK_ERROR("%s: out of memory building compile options", ld->uri);
        goto out;
    }
    if (!s->cfg.compile_enabled)
        goto out; /* the workspace file may have just turned it off */
    ctx = hk_calloc(1, sizeof *ctx);
    if (!ctx || !(ctx->uri = hk_strdup(ld->uri)))
        goto out;
    ctx->s = s;
    ctx->version = doc_version(d);
    cc_job *job = NULL;
    int rc = cc_job_start(s->loop, &o, ld->path, doc_text(d), doc_length(d), job_done, ctx, &job);
    if (rc) {
        lsp_log_message(s, 2, hk_tr(HK_MSG_LSP_LOG_COMPILER_START), ld->uri, hk_strerror(rc));
        goto out;
    }
    ctx = NULL; /* owned by the job now */
    ld->job = job;
    ld->job_version = doc_version(d);
    s->jobs_running++;
    HK_DEBUG("%s: compiling version %lld", ld->uri, (long long)ld->job_version);
out:
    if (ctx) {
        hk_free(ctx->uri);
        hk_free(ctx);
    }
    hk_strv_free(extra);
}

static void debounce_fired(uv_timer_t *t)
{
    struct lsp_doc *ld = t->data;
    if (!ld)
        return;
    lsp_loopwatch_note(ld->s->loopwatch, "(compile started)");
    struct lsp_server *s = ld->s;
    doc *d = doc_get(s->docs, ld->uri);
    if (!d || lsp_doc_of(d) != ld || s->stopped || s->state != LSP_RUNNING)
        return;
    start_compile(s, d, ld);
}

void lsp_diag_schedule(struct lsp_server *s, doc *d, int delay_ms)
{
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!ld || s->stopped || s->state != LSP_RUNNING || !ld->compilable || !ld->path ||
        !s->cfg.compile_enabled || !s->loop || s->compiles_disabled)
        return;
    /* A newer version makes the running compile worthless: stop it now. */
    if (ld->job && ld->job_version != doc_version(d)) {
        cc_job_cancel(ld->job);
        ld->job = NULL;
    }
    if (!ld->debounce) {
        ld->debounce = hk_malloc(sizeof *ld->debounce);
        if (!ld->debounce)
            return;
        uv_timer_init(s->loop, ld->debounce);
        ld->debounce->data = ld;
    }
    uv_timer_start(ld->debounce, debounce_fired,
                   delay_ms < 0 ? s->cfg.debounce_ms : (unsigned)delay_ms, 0);
}

static void cancel_doc(doc *d, void *ud)
{
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!ld)
        return;
    if (ld->debounce)
        uv_timer_stop(ld->debounce);
    if (ld->job) {
        cc_job_cancel(ld->job);
        ld->job = NULL;
    }
}

void lsp_diag_cancel_all(struct lsp_server *s) { doc_store_foreach(s->docs, cancel_doc, s); }

/* ---- resource summaries (hints here, hover in features.c) ---- */

/* The occupancy limiter (compile/occupancy.c's name for it) as the user reads it. */
static const char *limiter_label(const char *limiter)
{
    static const struct {
        const char *name;
        enum hk_msg msg;
    } limits[] = {
        {"threads", HK_MSG_LIMIT_THREADS},         {"blocks", HK_MSG_LIMIT_BLOCKS},
        {"registers", HK_MSG_LIMIT_REGISTERS},     {"shared memory", HK_MSG_LIMIT_SHARED_MEMORY},
        {"barriers", HK_MSG_LIMIT_BARRIERS},       {"sgprs", HK_MSG_LIMIT_SGPRS},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(limits); i++)
        if (!strcmp(limiter, limits[i].name))
            return hk_tr(limits[i].msg);
    return limiter;
}

int lsp_resource_summary(const cc_resource *r, const rw_kernel_block *kb, struct hk_buf *b)
{
    int rc = hk_buf_printf(b, hk_tr(HK_MSG_RES_SUMMARY), r->registers,
                           r->spill_stores + r->spill_loads);
    if (!rc && (r->vgpr_spills || r->sgpr_spills))
        rc = hk_buf_printf(b, hk_tr(HK_MSG_RES_DCU_SPILLED), r->vgpr_spills, r->sgpr_spills);
    if (!rc)
        rc = hk_buf_printf(b, hk_tr(HK_MSG_RES_SMEM), r->smem_static);
    if (rc || !r->arch)
        return rc;
    int block = kb ? kb->threads : 0, dyn = kb ? kb->dyn_smem : 0;
    cc_occupancy occ;
    if (cc_occupancy_for(r->arch, r, block, dyn, &occ) == HK_OK) {
        rc = hk_buf_printf(b, hk_tr(HK_MSG_RES_OCCUPANCY), occ.occupancy * 100.0,
                           occ.block_threads ? occ.block_threads : (block ? block : 256));
        if (!rc && occ.limiter)
            rc = hk_buf_printf(b, hk_tr(HK_MSG_RES_LIMITED_BY), limiter_label(occ.limiter));
    }
    return rc;
}
