/* Background compile diagnostics: a debounced nvcc/hipcc child per document, the newer
 * version cancelling the older job, stale results dropped, compiler errors and warnings
 * placed on their lines and per-kernel resources as hints on kernel names. Each source
 * keeps its own set, as JSON text; publishDiagnostics always sends the merged whole. A
 * finished compile's diagnostics and hints are placed and serialized on the pool, against
 * the compiled text (post_work); the loop swaps them in and sends them. */
#include "lsp/diagnostics.h"

#include "lsp/loopwatch.h"
#include "lsp/base.h"
#include "lsp/config.h"
#include "lsp/textsync.h"

#include "core/buf.h"
#include "core/hk.h"

#include <string.h>

#define MAX_DIAGS 500

/* ---- publishing ---- */

/* One source's diagnostics as JSON text: the array's elements without its brackets
 * (new, hk_free; NULL for none), in *text and *len. HK_OK or HK_ENOMEM. Any thread. */
static int diags_text(const json_t *diags, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    if (!diags || !json_array_size(diags))
        return HK_OK;
    char *t = json_dumps(diags, JSON_COMPACT);
    if (!t)
        return HK_ENOMEM;
    size_t n = strlen(t); /* "[...]" */
    memmove(t, t + 1, n - 2);
    t[n - 2] = '\0';
    *text = t;
    *len = n - 2;
    return HK_OK;
}

/* Sends every source's diagnostics of uri (ld NULL: none) as one publishDiagnostics.
 * The sources' texts are joined as they are, a compile's made ready on the pool: the
 * loop writes the message once and serializes nothing big. */
static void publish(struct lsp_server *s, const char *uri, int64_t version, bool with_version,
                    const struct lsp_doc *ld)
{
    json_t *ju = json_string(uri);
    char *quri = ju ? json_dumps(ju, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    json_decref(ju);
    if (!quri)
        return;
    static const char head[] = "{\"uri\":", mid[] = ",\"diagnostics\":[";
    char tail[48];
    if (with_version && s->cl_diag_version)
        snprintf(tail, sizeof tail, "],\"version\":%lld}", (long long)version);
    else
        snprintf(tail, sizeof tail, "]}");
    const char *parts[4 + 2 * LSP_DIAG_N];
    size_t lens[HK_ARRAY_LEN(parts)], n = 0;
    parts[n] = head, lens[n++] = sizeof head - 1;
    parts[n] = quri, lens[n++] = strlen(quri);
    parts[n] = mid, lens[n++] = sizeof mid - 1;
    bool first = true;
    for (int i = 0; ld && i < LSP_DIAG_N; i++) {
        if (!ld->diag_len[i])
            continue;
        if (!first)
            parts[n] = ",", lens[n++] = 1;
        parts[n] = ld->diag_text[i], lens[n++] = ld->diag_len[i];
        first = false;
    }
    parts[n] = tail, lens[n++] = strlen(tail);
    rpc_notify_raw(s->rpc, "textDocument/publishDiagnostics", parts, lens, n);
    hk_free(quri);
}

/* Replaces one source's text (stolen; NULL: none) without publishing. */
static void set_text(struct lsp_doc *ld, enum lsp_diag_source src, char *text, size_t len)
{
    hk_free(ld->diag_text[src]);
    ld->diag_text[src] = text;
    ld->diag_len[src] = text ? len : 0;
}

void lsp_diag_set(struct lsp_server *s, doc *d, enum lsp_diag_source src, json_t *diags)
{
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!ld || src >= LSP_DIAG_N) {
        json_decref(diags);
        return;
    }
    char *text = NULL;
    size_t len = 0;
    if (diags_text(diags, &text, &len)) {
        json_decref(diags);
        return; /* out of memory: the sources stay as they were */
    }
    json_decref(ld->diags[src]);
    ld->diags[src] = diags;
    set_text(ld, src, text, len);
    publish(s, doc_uri(d), doc_version(d), true, ld);
}

void lsp_diag_clear_uri(struct lsp_server *s, const char *uri)
{
    publish(s, uri, 0, false, NULL);
}

/* ---- turning compiler output into diagnostics (on the pool) ---- */

/* The text a compile's diagnostics are placed in: the compiled text's draft (its line
 * index) and the positions' encoding, read on the pool while the loop goes on. */
struct placed {
    const doc_draft *dr;
    enum doc_encoding enc;
};

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* Byte range on line (1-based) at column col (1-based bytes). Without a column, the
 * identifier the message quotes ("x" is undefined) when the line has it, else the
 * line's text. */
static void line_range(const doc_draft *d, int line, int col, const char *msg, uint32_t *start,
                       uint32_t *end)
{
    uint32_t n = doc_draft_line_count(d);
    uint32_t l = line > 0 ? (uint32_t)(line - 1) : 0;
    if (l >= n)
        l = n ? n - 1 : 0;
    uint32_t ls = 0, len = 0;
    doc_draft_line_start(d, l, &ls);
    doc_draft_line_length(d, l, &len);
    const char *t = doc_draft_text(d) + ls;
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

/* lsp_range_json on the draft. */
static json_t *range_json(const struct placed *pl, uint32_t start, uint32_t end)
{
    struct doc_pos a, b;
    lsp_clamp_span(doc_draft_length(pl->dr), &start, &end);
    if (doc_draft_position_at(pl->dr, pl->enc, start, &a) ||
        doc_draft_position_at(pl->dr, pl->enc, end, &b))
        return NULL;
    return lsp_range_pack(&a, &b);
}

static json_t *make_diag(const struct placed *pl, uint32_t start, uint32_t end, int severity,
                         const char *source, const char *message)
{
    json_t *range = range_json(pl, start, end);
    if (!range)
        return NULL;
    return json_pack("{s:o, s:i, s:s, s:s}", "range", range, "severity", severity, "source",
                     source, "message", message);
}

/* The model's kernels by name, for finding hundreds of them at once: an_model_find_kernel
 * searches the whole list each time (5 ms for the hints of a file of 1,000 kernels,
 * bench/results/lsp-2026-12-05-s31-face4.md). The same answers: the first kernel of that
 * name, else of the name's last component after "::". */
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

/* The compiler's diagnostics placed on the compiled text (path: the document's file);
 * a kernel-named one on the kernel's name in m (NULL: no model, on the first line). */
static json_t *compile_diags(const struct placed *pl, const an_model *m, const char *path,
                             const cc_result *res, const char *source)
{
    json_t *out = json_array();
    struct kernel_index ki;
    kernel_index_init(&ki, m);
    for (size_t i = 0; out && i < res->n_diags && json_array_size(out) < MAX_DIAGS; i++) {
        const cc_diag *g = &res->diags[i];
        int sev = g->severity == CC_ERROR ? 1 : g->severity == CC_WARNING ? 2 : 3;
        uint32_t a = 0, b = 0;
        char *msg = NULL;
        long k = g->kernel && m ? kernel_index_find(&ki, g->kernel) : -1;
        if (g->file && same_file(g->file, path) && g->line > 0) {
            line_range(pl->dr, g->line, g->col, g->message, &a, &b);
            msg = hk_strdup(g->message);
        } else if (k >= 0) {
            a = m->funcs[k].name_span.start_byte;
            b = m->funcs[k].name_span.end_byte;
            msg = hk_strdup(g->message);
        } else {
            if (g->severity == CC_NOTE)
                continue; /* notes about other files are noise without their error */
            line_range(pl->dr, 1, 0, NULL, &a, &b);
            msg = g->file ? hk_asprintf("%s:%d: %s", g->file, g->line, g->message)
                          : hk_strdup(g->message);
        }
        if (!msg)
            continue;
        json_t *dj = make_diag(pl, a, b, sev, source, msg);
        hk_free(msg);
        if (dj)
            json_array_append_new(out, dj);
    }
    if (out && res->exit_code != 0 && !res->timed_out && json_array_size(out) == 0) {
        /* The compiler failed without a message we could place: say so, with its output. */
        char *msg = hk_asprintf(hk_tr(HK_MSG_LSP_COMPILER_EXITED), source, res->exit_code,
                                res->output ? res->output : hk_tr(HK_MSG_LSP_COMPILER_NO_OUTPUT));
        json_t *dj = msg ? make_diag(pl, 0, 0, 1, source, msg) : NULL;
        hk_free(msg);
        if (dj)
            json_array_append_new(out, dj);
    }
    if (out && res->timed_out) {
        json_t *dj = make_diag(pl, 0, 0, 2, source, hk_tr(HK_MSG_LSP_COMPILE_TIMED_OUT));
        if (dj)
            json_array_append_new(out, dj);
    }
    kernel_index_free(&ki);
    return out;
}

/* A hint on each kernel's name: its resources, and its occupancy at the block it is
 * launched with, both found in m, the compiled text's own model (NULL: no hints). */
static json_t *resource_hints(const struct placed *pl, const an_model *m, const cc_resource *res,
                              size_t n_res)
{
    json_t *out = json_array();
    /* every kernel's launched block in one pass over the launches (a thousand kernels:
     * about 4 ms, where one call per kernel took 45) */
    rw_kernel_block *blocks = m && m->n_funcs ? hk_calloc(m->n_funcs, sizeof *blocks) : NULL;
    if (blocks && rw_kernel_blocks(doc_draft_text(pl->dr), doc_draft_length(pl->dr), m,
                                   blocks) != HK_OK) {
        hk_free(blocks);
        blocks = NULL;
    }
    struct kernel_index ki;
    kernel_index_init(&ki, m);
    for (size_t i = 0; out && m && i < n_res; i++) {
        const cc_resource *r = &res[i];
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
        json_t *dj = b.data ? make_diag(pl, f->name_span.start_byte, f->name_span.end_byte, 4,
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

/* Copies s to *at, returns the copy (NULL stays NULL). */
static char *pack_str(const char *s, char **at)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *c = memcpy(*at, s, n);
    *at += n;
    return c;
}

/* The resources for hover and the hints, copied into one block with their strings (so
 * the loop frees a thousand kernels' in one call): hk_free; NULL for none or no memory. */
static cc_resource *copy_res(const cc_result *res, size_t *n_out)
{
    *n_out = 0;
    size_t bytes = res->n_res * sizeof(cc_resource);
    for (size_t i = 0; i < res->n_res; i++) {
        const cc_resource *r = &res->res[i];
        const char *str[] = {r->kernel, r->base_name, r->mangled, r->arch};
        for (size_t k = 0; k < HK_ARRAY_LEN(str); k++)
            bytes += str[k] ? strlen(str[k]) + 1 : 0;
    }
    cc_resource *out = res->n_res ? hk_malloc(bytes) : NULL;
    if (!out)
        return NULL;
    char *at = (char *)(out + res->n_res);
    for (size_t i = 0; i < res->n_res; i++) {
        cc_resource r = res->res[i];
        r.kernel = pack_str(r.kernel, &at);
        r.base_name = pack_str(r.base_name, &at);
        r.mangled = pack_str(r.mangled, &at);
        r.arch = pack_str(r.arch, &at);
        out[i] = r;
    }
    *n_out = res->n_res;
    return out;
}

/* ---- jobs ---- */

/* A compile in flight and, once its output is parsed, what the pool made of it
 * (post_work) for job_done: the loop only checks that it is of the document's current
 * version, swaps it in and sends it. */
struct job_ctx {
    struct lsp_server *s;     /* the loop's: post_work never reads it */
    char *uri;
    int64_t version;
    /* read by post_work: copies taken when the compile started */
    char *path;
    const char *source;       /* cc_compiler_label (static) */
    enum doc_encoding enc;
    enum hk_lang lang;        /* the session's language then */
    /* made by post_work */
    bool made;
    char *text[2];            /* LSP_DIAG_COMPILE's, LSP_DIAG_RESOURCES' (diags_text) */
    size_t len[2];
    cc_resource *res;
    size_t n_res;
    size_t n_diags;           /* the compiler's, for the log */
    int exit_code;
    char *copy;               /* the compiled text's buffer, taken back from the job for the
                               * document's spares (lsp_doc_copy_return), or NULL */
    size_t copy_cap;
};

static void job_ctx_free(struct job_ctx *ctx)
{
    if (!ctx)
        return;
    hk_free(ctx->uri);
    hk_free(ctx->path);
    hk_free(ctx->text[0]);
    hk_free(ctx->text[1]);
    hk_free(ctx->res);
    hk_free(ctx->copy);
    hk_free(ctx);
}

/* Pool thread (cc_post_fn): places the compiler's diagnostics and the resource hints on
 * the very text compiled, with that text's own model (an_analyze: the document's model
 * is of whatever text the loop has parsed by now, and a parse may replace it while this
 * runs), and serializes both. On a file of 1,000 kernels this was 18 ms of the loop
 * (bench/results/lsp-2026-12-05-s31-face4.md). */
static void post_work(const cc_result *res, char **textp, size_t len, void *data)
{
    struct job_ctx *ctx = data;
    const char *text = *textp;
    ctx->copy = *textp; /* back to the document's spares once done (job_done) */
    *textp = NULL;
    hk_thread_background();
    int was = hk_i18n_thread_lang((int)ctx->lang);
    doc_draft *dr = NULL;
    an_model *m = NULL;
    bool by_kernel = res->n_res > 0;
    for (size_t i = 0; !by_kernel && i < res->n_diags; i++)
        by_kernel = res->diags[i].kernel != NULL;
    if (doc_draft_new(text, len, &dr))
        goto out;
    if (by_kernel && an_analyze(text, len, &m) != HK_OK)
        m = NULL; /* kernel-named messages go on the first line, and no hints */
    struct placed pl = {dr, ctx->enc};
    json_t *cd = compile_diags(&pl, m, ctx->path, res, ctx->source);
    ctx->res = copy_res(res, &ctx->n_res);
    json_t *hints = resource_hints(&pl, m, ctx->res, ctx->n_res);
    ctx->made = cd && hints && (ctx->n_res == res->n_res) &&
                !diags_text(cd, &ctx->text[0], &ctx->len[0]) &&
                !diags_text(hints, &ctx->text[1], &ctx->len[1]);
    json_decref(cd);
    json_decref(hints);
    ctx->n_diags = res->n_diags;
    ctx->exit_code = res->exit_code;
out:
    an_model_free(m);
    doc_draft_free(dr);
    hk_i18n_thread_lang(was);
}

static void job_done(cc_job *job, int status, const cc_result *res, void *data)
{
    struct job_ctx *ctx = data;
    struct lsp_server *s = ctx->s;
    lsp_loopwatch_note(s->loopwatch, "(compile done)");
    s->jobs_running--;
    doc *d = doc_get(s->docs, ctx->uri);
    struct lsp_doc *ld = lsp_doc_of(d);
    lsp_doc_copy_return(ld, ctx->copy, ctx->copy_cap); /* NULL ld: freed */
    ctx->copy = NULL;
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
    if (status == HK_OK && res && !ctx->made)
        status = HK_ENOMEM; /* the pool could not make them */
    if (status != HK_OK || !res) {
        lsp_log_message(s, 2, hk_tr(HK_MSG_LSP_LOG_COMPILE_FAILED), ctx->uri, hk_strerror(status));
        goto out;
    }
    if (doc_version(d) != ctx->version) {
        /* the text changed and nothing cancelled the compile (compiles were turned off
         * meanwhile): what the pool placed is on older text, at positions now wrong */
        HK_DEBUG("%s: compile result for version %lld is stale (now %lld)", ctx->uri,
                 (long long)ctx->version, (long long)doc_version(d));
        goto out;
    }
    HK_INFO("%s: compiled version %lld: exit %d, %zu diagnostics, %zu kernels", ctx->uri,
            (long long)ctx->version, ctx->exit_code, ctx->n_diags, ctx->n_res);
    hk_free(ld->res);
    ld->res = ctx->res;
    ld->n_res = ctx->n_res;
    ld->res_version = ctx->version;
    ctx->res = NULL;
    ctx->n_res = 0;
    /* both sources replaced, then one publish */
    for (int i = 0; i < 2; i++) {
        enum lsp_diag_source src = i ? LSP_DIAG_RESOURCES : LSP_DIAG_COMPILE;
        json_decref(ld->diags[src]);
        ld->diags[src] = NULL; /* kept as text only */
        set_text(ld, src, ctx->text[i], ctx->len[i]);
        ctx->text[i] = NULL;
    }
    publish(s, doc_uri(d), doc_version(d), true, ld);
out:
    job_ctx_free(ctx);
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
    if (!ctx || !(ctx->uri = hk_strdup(ld->uri)) || !(ctx->path = hk_strdup(ld->path)))
        goto out;
    ctx->s = s;
    ctx->version = doc_version(d);
    /* the compiler lsp_compile_options chose: the target's, else the .hip rule's */
    ctx->source = cc_compiler_label(s->cfg.target_set ? s->cfg.backend
                                                      : cc_backend_of_path(ld->path));
    ctx->enc = s->enc;
    ctx->lang = hk_i18n_lang();
    /* the copy the job writes and post_work reads, in one of the document's spare buffers
     * (their pages are in) */
    size_t len = doc_length(d);
    char *copy = lsp_doc_copy_buffer(ld, len + 1, &ctx->copy_cap);
    if (!copy)
        goto out;
    memcpy(copy, doc_text(d), len);
    copy[len] = '\0';
    cc_job *job = NULL;
    int rc = cc_job_start_post(s->loop, &o, ld->path, copy, len, post_work, job_done, ctx, &job);
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
    job_ctx_free(ctx);
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
