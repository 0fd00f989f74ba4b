/* Text synchronisation: didOpen / didChange / didClose / didSave keep the document
 * store, forward every applied edit to the document's tree-sitter analysis (so the
 * reparse is incremental) and schedule background compiles. A change that does not
 * fit the document is logged and dropped whole, never applied in part.
 *
 * The analysis (tree-sitter parse and model, 170 ms for a 742 KB file) runs on the libuv
 * pool, never on the loop: a parse takes a copy of the text and the document's an_doc,
 * which the loop leaves alone until the parse comes back (parse_after, on the loop).
 * Edits made meanwhile are applied to the text at once and kept for the an_doc; when the
 * parse returns they are recorded and the latest text is parsed next (one parse in
 * flight per document; what came between is coalesced). Requests that read the model
 * wait on the document (lsp_doc_await_analysis) and run when it is current. */
#include "lsp/textsync.h"

#include "lsp/loopwatch.h"
#include "lsp/base.h"
#include "lsp/symbols.h"
#include "lsp/lenses.h"
#include "lsp/config.h"

#include "core/hk.h"

#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

struct lsp_doc *lsp_doc_of(doc *d) { return d ? doc_user(d) : NULL; }

static void timer_closed(uv_handle_t *h) { hk_free(h); }

/* Edits kept for the an_doc while a parse is out; past this the next parse is a full one
 * (a storm of this many edits in one parse's time rewrites most of the text anyway). */
#define PENDING_EDITS_MAX 4096

/* One parse on the pool. The pool thread reads only text and an; ld is the loop's. */
struct lsp_parse {
    uv_work_t req;
    struct lsp_doc *ld; /* NULL once the document closed: parse_after frees an */
    an_doc *an;         /* the document's, owned by this parse until parse_after */
    char *text;         /* copy of the text at text_gen gen (owned), or text_json's */
    size_t text_cap;    /* bytes allocated at text (a copy) */
    json_t *text_json;  /* didOpen's text string (new reference): read in place, not copied */
    size_t len;
    uint64_t gen;
    bool full;          /* edits were lost: parse from scratch, then reuse again */
    bool lens_only;     /* the model is of this text already: only the lenses are rendered
                         * (their settings changed), no parse */
    char *uri;          /* copy (the flat symbol form names it) */
    enum doc_encoding enc; /* the documentSymbol reply's form, read on the loop */
    bool hier;
    struct lsp_lens_key lens_key; /* what the codeLens lenses depend on (nv_target owned) */
    struct lsp_lenses *lenses;    /* rendered with the symbols, or NULL */
    int rc;
};

/* A request waiting for the current analysis (lsp_doc_await_analysis). */
struct lsp_waiter {
    struct lsp_waiter *next;
    struct lsp_doc *ld;
    rpc_call *call;
    json_t *params;     /* new reference */
    rpc_method_fn fn;
};

static void waiter_free(struct lsp_waiter *w)
{
    json_decref(w->params);
    hk_free(w);
}

/* Finishes every waiting call with err (0: runs them, the analysis being current). */
static void waiters_finish(struct lsp_server *s, struct lsp_doc *ld, int err)
{
    struct lsp_waiter *w = ld->waiters;
    ld->waiters = NULL;
    while (w) {
        struct lsp_waiter *next = w->next;
        rpc_call_on_cancel(w->call, NULL, NULL);
        if (err) {
            rpc_call_error(w->call, err, hk_tr(HK_MSG_LSP_ERR_CLOSED));
        } else {
            lsp_loopwatch_note(s->loopwatch, "(a request that waited)"); /* i18n: not for people (loopStats' label) */
            w->fn(w->call, w->params, s);
        }
        waiter_free(w);
        w = next;
    }
}

struct lsp_spare_fill;
static void spare_fill_detach(struct lsp_spare_fill *f);

/* Drops the waiting calls without finishing them: rpc_free answers deferred calls. */
static void waiters_forget(struct lsp_doc *ld)
{
    while (ld->waiters) {
        struct lsp_waiter *w = ld->waiters;
        ld->waiters = w->next;
        rpc_call_on_cancel(w->call, NULL, NULL);
        waiter_free(w);
    }
}

void lsp_doc_state_free(struct lsp_server *s, struct lsp_doc *ld)
{
    if (!ld)
        return;
    if (ld->parse) { /* the parse frees the analysis when it comes back */
        ld->parse->ld = NULL;
        ld->parse = NULL;
        ld->an = NULL;
    }
    if (s->stopped)
        waiters_forget(ld);
    else
        waiters_finish(s, ld, HK_ESTALE);
    hk_free(ld->edits);
    lsp_lenses_put(ld->lenses);
    ld->lenses = NULL;
    for (int i = 0; i < LSP_DOC_SPARES; i++)
        hk_free(ld->snap[i]);
    if (ld->fill) /* it frees its buffer when it comes back */
        spare_fill_detach(ld->fill);
    if (ld->job) {
        cc_job_cancel(ld->job); /* its callback finds no document and drops the result */
        ld->job = NULL;
    }
    if (ld->debounce) {
        uv_timer_stop(ld->debounce);
        ld->debounce->data = NULL;
        uv_close((uv_handle_t *)ld->debounce, timer_closed);
    }
    an_doc_free(ld->an);
    hk_free(ld->path);
    hk_free(ld->uri);
    hk_free(ld->res); /* one block, its strings inside (diagnostics.c) */
    for (int i = 0; i < LSP_DIAG_N; i++) {
        json_decref(ld->diags[i]);
        hk_free(ld->diag_text[i]);
    }
    hk_free(ld);
}

/* Reads textDocument.uri (and .version when want_version) from params. */
static int text_document(json_t *params, const char **uri, int64_t *version, bool want_version)
{
    json_t *td = json_object_get(params, "textDocument");
    json_t *ju = json_object_get(td, "uri");
    if (!json_is_string(ju) || json_string_length(ju) != strlen(json_string_value(ju)) ||
        json_string_length(ju) == 0)
        return HK_EINVAL;
    *uri = json_string_value(ju);
    if (want_version) {
        json_t *jv = json_object_get(td, "version");
        if (!json_is_integer(jv))
            return HK_EINVAL;
        *version = json_integer_value(jv);
    }
    return HK_OK;
}

bool lsp_doc_analysis_current(const struct lsp_doc *ld)
{
    return !ld->parse && ld->parsed_gen == ld->text_gen;
}

const an_model *lsp_doc_model(const struct lsp_doc *ld)
{
    if (!ld || !ld->an || ld->model_stale || !lsp_doc_analysis_current(ld))
        return NULL;
    return an_doc_model(ld->an);
}

static void waiter_cancelled(rpc_call *call, void *ud)
{
    struct lsp_waiter *w = ud, **pp = &w->ld->waiters;
    while (*pp && *pp != w)
        pp = &(*pp)->next;
    if (*pp)
        *pp = w->next;
    rpc_call_error(call, HK_ECANCELED, NULL); /* rpc answered already; this finishes it */
    waiter_free(w);
}

bool lsp_doc_await_analysis(struct lsp_server *s, rpc_call *call, json_t *params,
                            rpc_method_fn fn)
{
    json_t *ju = json_object_get(json_object_get(params, "textDocument"), "uri");
    doc *d = json_is_string(ju) ? doc_get(s->docs, json_string_value(ju)) : NULL;
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!ld || lsp_doc_analysis_current(ld))
        return false;
    struct lsp_waiter *w = hk_calloc(1, sizeof *w);
    if (!w) {
        rpc_call_error(call, HK_ENOMEM, NULL);
        return true;
    }
    w->ld = ld;
    w->call = call;
    w->params = json_incref(params);
    w->fn = fn;
    struct lsp_waiter **pp = &ld->waiters; /* oldest first: replies keep request order */
    while (*pp)
        pp = &(*pp)->next;
    *pp = w;
    rpc_call_defer(call);
    rpc_call_on_cancel(call, waiter_cancelled, w);
    return true;
}

static void parse_start(struct lsp_server *s, struct lsp_doc *ld, json_t *text_json);

/* Gives the edits made during the parse to the an_doc, so the next parse is incremental
 * from the text just parsed (they were applied to exactly that text, in this order). */
static void pending_edits_record(struct lsp_doc *ld)
{
    for (size_t i = 0; i < ld->n_edits; i++) {
        const struct doc_edit *e = &ld->edits[i];
        an_doc_edit(ld->an, e->start_byte, e->old_end_byte, e->new_end_byte, e->start_row,
                    e->start_col, e->old_end_row, e->old_end_col, e->new_end_row,
                    e->new_end_col);
    }
    ld->n_edits = 0;
}

/* The analysis of the current text is in: the requests and results that waited for it. */
static void analysis_ready(struct lsp_server *s, struct lsp_doc *ld)
{
    doc *d = doc_get(s->docs, ld->uri);
    if (!d)
        return;
    if (ld->ep_diags_due) {
        ld->ep_diags_due = false;
        lsp_emit(s, LSP_EV_MODEL_FOR_RESULTS, d, NULL);
    }
    waiters_finish(s, ld, 0);
    lsp_emit(s, LSP_EV_ANALYSIS_DRAINED, NULL, NULL); /* last: it may stop the server and
                                                        * free ld */
}

/* The documentSymbol reply and the codeLens lenses of the model just parsed, made here
 * rather than on the loop (a first render of 1,000 kernels' symbols is 1.1 MB and took
 * 20-27 ms there; their 2,000 lenses 2.2-3.5 ms, growing with the kernels). The renderers
 * read positions through a line index: that of a private document of the same text. A
 * failure is left for the request, which renders on the loop. Pool thread. */
static void parse_render_symbols(struct lsp_parse *p)
{
    doc_store *st = NULL;
    doc *d = NULL;
    if (doc_store_new(0, &st) == HK_OK && doc_open(st, p->uri, 0, p->text, p->len, &d) == HK_OK) {
        if (!p->lens_only)
            lsp_symbols_refresh(p->an, d, p->enc, p->hier);
        if (p->lens_key.nv_target)
            p->lenses = lsp_lenses_render(an_doc_model(p->an), d, p->uri, &p->lens_key);
    }
    doc_store_free(st);
}

static void parse_work(uv_work_t *req)
{
    hk_thread_background();
    struct lsp_parse *p = req->data;
    if (p->lens_only) { /* a whole parse of 2,000 kernels was 1.2 s of the pool for this */
        p->rc = HK_OK;
        parse_render_symbols(p);
        return;
    }
    if (p->full)
        an_doc_set_reuse(p->an, false);
    p->rc = an_doc_parse(p->an, p->text, p->len);
    if (p->full)
        an_doc_set_reuse(p->an, true);
    if (p->rc == HK_OK)
        parse_render_symbols(p);
}

/* A closed document's analysis, freed on the pool and followed by release_heap: for a
 * 1000-kernel file the two took 16-24 ms on the loop. */
struct lsp_release {
    uv_work_t req;
    an_doc *an;
};

static void release_heap(void);

static void release_now(an_doc *an)
{
    an_doc_free(an);
    release_heap();
}

static void release_work(uv_work_t *req)
{
    hk_thread_background();
    struct lsp_release *r = req->data;
    release_now(r->an);
}

static void release_after(uv_work_t *req, int status)
{
    (void)status;
    hk_free(req->data);
}

/* loop, not the server: a parse that comes back after lsp_server_free releases too. */
static void release_later(uv_loop_t *loop, an_doc *an)
{
    struct lsp_release *r = loop ? hk_calloc(1, sizeof *r) : NULL;
    if (r) {
        r->req.data = r;
        r->an = an;
        if (uv_queue_work(loop, &r->req, release_work, release_after) == 0)
            return;
        hk_free(r);
    }
    release_now(an); /* no pool: here */
}

/* A copy of the text of LSP_TEXT_PREP_BYTES or more is kept for the next copy (its pages
 * are the document's from then on); smaller ones are freed, as they cost few faults. */
void lsp_doc_copy_return(struct lsp_doc *ld, char *buf, size_t cap)
{
    if (!ld || !buf || cap < LSP_TEXT_PREP_BYTES) {
        hk_free(buf);
        return;
    }
    int slot = 0; /* an empty one, else the smallest */
    for (int i = 0; i < LSP_DOC_SPARES; i++) {
        if (!ld->snap[i]) {
            slot = i;
            break;
        }
        if (ld->snap_cap[i] < ld->snap_cap[slot])
            slot = i;
    }
    if (ld->snap[slot] && ld->snap_cap[slot] >= cap) {
        hk_free(buf); /* every kept one is as large */
        return;
    }
    hk_free(ld->snap[slot]);
    ld->snap[slot] = buf;
    ld->snap_cap[slot] = cap;
}

static char *copy_take(struct lsp_doc *ld, size_t need, size_t *cap);

/* The size of a new copy buffer for need bytes: a large text's gets room for edits that
 * grow it by an eighth (copy_take), the spares made on the pool too. */
static size_t copy_cap(size_t need)
{
    return need >= LSP_TEXT_PREP_BYTES ? need + need / 8 : need;
}

/* A spare buffer made on the pool: allocated and its pages touched there (1.5 MB of fresh
 * pages written on the loop were 364 page faults, 5-13 ms of its CPU under load), then
 * given to the document's spares on the loop. */
struct lsp_spare_fill {
    uv_work_t req;
    struct lsp_doc *ld; /* NULL once the document closed: fill_after frees buf */
    char *buf;          /* made by fill_work, or NULL (no memory) */
    size_t need, cap;
};

static void spare_fill_detach(struct lsp_spare_fill *f) { f->ld = NULL; }

static void fill_work(uv_work_t *req)
{
    struct lsp_spare_fill *f = req->data;
    hk_thread_background();
    f->buf = hk_malloc(f->cap);
    if (f->buf)
        memset(f->buf, 0, f->cap); /* its pages faulted in here, not on the loop */
}

static void spares_refill(struct lsp_doc *ld, size_t need);

static void fill_after(uv_work_t *req, int status)
{
    (void)status; /* cancelled (the loop closing): buf is NULL */
    struct lsp_spare_fill *f = req->data;
    struct lsp_doc *ld = f->ld;
    if (!ld) {
        hk_free(f->buf);
        hk_free(f);
        return;
    }
    ld->fill = NULL;
    lsp_loopwatch_note(ld->s->loopwatch, "(spare buffer made)"); /* i18n: not for people (loopStats' label) */
    size_t need = f->need;
    bool made = f->buf != NULL;
    lsp_doc_copy_return(ld, f->buf, f->cap);
    hk_free(f);
    if (made)
        spares_refill(ld, need); /* two copies may have been taken meanwhile */
}

/* Spares free of need bytes or more. */
static int spares_free(const struct lsp_doc *ld, size_t need)
{
    int n = 0;
    for (int i = 0; i < LSP_DOC_SPARES; i++)
        n += ld->snap[i] && ld->snap_cap[i] >= need;
    return n;
}

/* Fewer than LSP_DOC_SPARES_FREE spares of a large text's need: one more is made on the
 * pool (one at a time per document; fill_after asks again). */
static void spares_refill(struct lsp_doc *ld, size_t need)
{
    if (!ld->s || !ld->s->loop || ld->s->stopped || ld->fill || need < LSP_TEXT_PREP_BYTES ||
        spares_free(ld, need) >= LSP_DOC_SPARES_FREE)
        return;
    struct lsp_spare_fill *f = hk_calloc(1, sizeof *f);
    if (!f)
        return; /* the next copy may fault on the loop; nothing else is lost */
    f->req.data = f;
    f->ld = ld;
    f->need = need;
    f->cap = copy_cap(need);
    if (uv_queue_work(ld->s->loop, &f->req, fill_work, fill_after)) {
        hk_free(f);
        return;
    }
    ld->fill = f;
}

char *lsp_doc_copy_buffer(struct lsp_doc *ld, size_t need, size_t *cap)
{
    char *b = copy_take(ld, need, cap);
    if (ld && b)
        spares_refill(ld, need);
    return b;
}

static char *copy_take(struct lsp_doc *ld, size_t need, size_t *cap)
{
    int best = -1; /* the smallest kept one large enough */
    for (int i = 0; ld && i < LSP_DOC_SPARES; i++)
        if (ld->snap[i] && ld->snap_cap[i] >= need &&
            (best < 0 || ld->snap_cap[i] < ld->snap_cap[best]))
            best = i;
    if (best >= 0) {
        char *b = ld->snap[best];
        *cap = ld->snap_cap[best];
        ld->snap[best] = NULL;
        return b;
    }
    /* A large text's copy gets room for edits that grow it by an eighth, as the first one
     * made off the loop does (lsp_text_prep_new): kept exactly as large, it fitted no copy
     * of the text once a line was typed, and the copy went to fresh pages (364 page
     * faults for the 2,000-kernel file). Copies land in fresh pages here only while every
     * spare is out and the pool has not made the next yet (spares_refill). */
    *cap = copy_cap(need);
    return hk_malloc(*cap);
}

static void parse_after(uv_work_t *req, int status)
{
    struct lsp_parse *p = req->data;
    struct lsp_doc *ld = p->ld;
    if (p->text_json)
        json_decref(p->text_json);
    else
        lsp_doc_copy_return(ld, p->text, p->text_cap);
    hk_free(p->uri);
    hk_free((char *)p->lens_key.nv_target);
    if (!ld) { /* closed meanwhile */
        lsp_lenses_put(p->lenses);
        release_later(req->loop, p->an);
        hk_free(p);
        return;
    }
    if (p->lenses) { /* of the text at p->gen: lsp_lenses_fit tells whether still current */
        lsp_lenses_put(ld->lenses);
        ld->lenses = p->lenses;
    }
    struct lsp_server *s = ld->s;
    lsp_loopwatch_note(s->loopwatch, "(parse done)");
    ld->parse = NULL;
    int rc = status ? HK_ECANCELED : p->rc;
    if (rc)
        HK_WARN("%s: analysis failed: %s (the previous model is kept)", ld->uri,
                hk_strerror(rc));
    if (!p->lens_only)
        ld->model_stale = rc != HK_OK;
    ld->parsed_gen = p->gen;
    hk_free(p);
    pending_edits_record(ld);
    if (ld->parsed_gen != ld->text_gen || ld->lens_due)
        parse_start(s, ld, NULL); /* the text moved on (or the lenses' settings did): parse
                                   * the latest, requests wait */
    else
        analysis_ready(s, ld);
}

/* Parses the document's current text on the pool unless a parse is out already (then
 * parse_after starts the next). Without a grammar the analysis is current at once.
 * text_json (borrowed, may be NULL): a JSON string holding exactly that text, which the
 * parse reads in place instead of a copy (didOpen's: copying the 742 KB text again was
 * 180 page faults on the loop after a trim). */
static void parse_start(struct lsp_server *s, struct lsp_doc *ld, json_t *text_json)
{
    doc *d = doc_get(s->docs, ld->uri);
    if (ld->parse || !d)
        return;
    if (!ld->an) {
        ld->parsed_gen = ld->text_gen;
        analysis_ready(s, ld);
        return;
    }
    bool in_place = text_json && json_string_length(text_json) == doc_length(d);
    size_t need = doc_length(d) + 1, cap = need;
    struct lsp_parse *p = hk_calloc(1, sizeof *p);
    char *text = NULL;
    if (p && in_place)
        text = (char *)json_string_value(text_json);
    else if (p)
        text = lsp_doc_copy_buffer(ld, need, &cap);
    char *uri = text ? hk_strdup(ld->uri) : NULL;
    if (!uri) {
        if (!in_place)
            lsp_doc_copy_return(ld, text, cap);
        hk_free(p);
        HK_WARN("%s: no memory to parse; the previous model is kept", ld->uri);
        ld->model_stale = true;
        ld->parsed_gen = ld->text_gen; /* answered as stale rather than never */
        analysis_ready(s, ld);
        return;
    }
    if (in_place)
        p->text_json = json_incref(text_json);
    else
        memcpy(text, doc_text(d), doc_length(d) + 1);
    p->req.data = p;
    p->ld = ld;
    p->an = ld->an;
    p->text = text;
    p->text_cap = in_place ? 0 : cap;
    p->uri = uri;
    p->enc = s->enc;
    p->hier = s->cl_hier_symbols;
    /* NULL on no memory: no lenses rendered, the request renders them on the loop */
    p->lens_key = (struct lsp_lens_key){.gen = ld->text_gen, .enc = s->enc,
                                        .nv_target = lsp_nvidia_target(s),
                                        .lang = hk_i18n_lang()};
    p->len = doc_length(d);
    p->gen = ld->text_gen;
    p->full = ld->edits_lost;
    p->lens_only = ld->lens_due && ld->parsed_gen == ld->text_gen && !ld->model_stale &&
                   !ld->edits_lost;
    ld->edits_lost = false;
    ld->lens_due = false;
    ld->parse = p;
    if (uv_queue_work(s->loop, &p->req, parse_work, parse_after)) {
        /* no pool (the loop is closing): parse here, as the pool would */
        ld->parse = NULL;
        parse_work(&p->req);
        p->ld = ld;
        parse_after(&p->req, 0);
    }
}

static void lenses_stale(doc *d, void *ud)
{
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!ld || !ld->an)
        return; /* no grammar: no model, no lenses */
    ld->lens_due = true;
    parse_start(ud, ld, NULL); /* or parse_after starts it once the parse out is back */
}

void lsp_doc_lenses_stale(struct lsp_server *s)
{
    if (s->docs)
        doc_store_foreach(s->docs, lenses_stale, s);
}

/* ---- texts made ready on the pool ---- */

struct lsp_text_prep {
    const json_t *src;  /* the text string it was made from: names its message */
    doc_draft *draft;   /* the document's copy of the text, with its index */
    char *snap;         /* hk_malloc'd, snap_cap bytes, touched: the next parse's copy */
    size_t snap_cap;
};

void lsp_text_prep_free(struct lsp_text_prep *tp)
{
    if (!tp)
        return;
    doc_draft_free(tp->draft);
    hk_free(tp->snap);
    hk_free(tp);
}

/* The text string of a didOpen, or of a didChange's one full-text change; else NULL. */
static json_t *prep_source(const json_t *msg)
{
    const char *method = json_string_value(json_object_get(msg, "method"));
    json_t *params = json_object_get(msg, "params");
    if (!method)
        return NULL;
    if (strcmp(method, "textDocument/didOpen") == 0)
        return json_object_get(json_object_get(params, "textDocument"), "text");
    if (strcmp(method, "textDocument/didChange") == 0) {
        json_t *changes = json_object_get(params, "contentChanges");
        json_t *c = json_array_size(changes) == 1 ? json_array_get(changes, 0) : NULL;
        if (json_is_object(c) && !json_object_get(c, "range"))
            return json_object_get(c, "text");
    }
    return NULL;
}

struct lsp_text_prep *lsp_text_prep_new(const json_t *msg)
{
    json_t *jt = prep_source(msg);
    if (!json_is_string(jt) || json_string_length(jt) < LSP_TEXT_PREP_BYTES)
        return NULL;
    size_t len = json_string_length(jt);
    struct lsp_text_prep *tp = hk_calloc(1, sizeof *tp);
    if (!tp)
        return NULL;
    tp->src = jt;
    /* room for edits that grow the text by an eighth before the next parse needs more */
    tp->snap_cap = len + len / 8 + 1;
    tp->snap = hk_malloc(tp->snap_cap);
    if (!tp->snap || doc_draft_new(json_string_value(jt), len, &tp->draft) != HK_OK) {
        lsp_text_prep_free(tp);
        return NULL;
    }
    memset(tp->snap, 0, tp->snap_cap); /* its pages faulted in here, not on the loop */
    return tp;
}

/* The prep server.c made for the message being handled, when it is of text jt
 * (borrowed); the caller owns it. */
static struct lsp_text_prep *prep_take(struct lsp_server *s, const json_t *jt)
{
    struct lsp_text_prep *tp = s->in_prep;
    if (!tp || tp->src != jt)
        return NULL;
    s->in_prep = NULL;
    return tp;
}

/* Gives the prep's parse buffer to the document, which owns it from then on. */
static void prep_give_snap(struct lsp_doc *ld, struct lsp_text_prep *tp)
{
    lsp_doc_copy_return(ld, tp->snap, tp->snap_cap);
    tp->snap = NULL;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Whether nvcc/hipcc should compile this document for diagnostics. */
static bool compilable(const char *path, json_t *language_id)
{
    const char *lang = json_string_value(language_id);
    if (lang && (!strcmp(lang, "cuda") || !strcmp(lang, "cuda-cpp") || !strcmp(lang, "hip")))
        return true;
    if (!path)
        return false;
    static const char *const exts[] = {".cu", ".cuh", ".hip"};
    for (size_t i = 0; i < HK_ARRAY_LEN(exts); i++)
        if (has_suffix(path, exts[i]))
            return true;
    return false;
}

static void on_did_open(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    const char *uri;
    int64_t version = 0;
    json_t *jt = json_object_get(json_object_get(params, "textDocument"), "text");
    if (text_document(params, &uri, &version, true) || !json_is_string(jt)) {
        rpc_call_error(call, HK_EINVAL,
                       hk_tr(HK_MSG_LSP_ERR_DIDOPEN));
        return;
    }
    struct lsp_doc *ld = hk_calloc(1, sizeof *ld);
    if (!ld) {
        rpc_call_error(call, HK_ENOMEM, NULL);
        return;
    }
    ld->s = s;
    ld->uri = hk_strdup(uri);
    ld->path = lsp_uri_to_path(uri);
    ld->compilable = compilable(ld->path, json_object_get(json_object_get(params, "textDocument"),
                                                          "languageId"));
    if (!ld->uri) {
        lsp_doc_state_free(s, ld);
        rpc_call_error(call, HK_ENOMEM, NULL);
        return;
    }
    if (s->grammar_ok && an_doc_new(&ld->an) != HK_OK)
        ld->an = NULL;
    doc *d = doc_get(s->docs, uri);
    if (d) {
        HK_WARN("%s: opened again; the new text replaces the old", uri);
        lsp_doc_state_free(s, lsp_doc_of(d));
        doc_set_user(d, NULL);
    }
    /* a large text comes ready from the pool (no copy here), else it is copied now */
    struct lsp_text_prep *tp = prep_take(s, jt);
    int rc = tp ? doc_open_draft(s->docs, uri, version, tp->draft, &d)
                : doc_open(s->docs, uri, version, json_string_value(jt),
                           json_string_length(jt), &d);
    if (tp) {
        tp->draft = NULL; /* stolen */
        if (!rc)
            prep_give_snap(ld, tp);
        lsp_text_prep_free(tp);
    }
    if (rc) {
        lsp_log_message(s, 2, hk_tr(HK_MSG_LSP_LOG_CANNOT_OPEN), uri,
                        rc == HK_ETOOBIG ? hk_tr(HK_MSG_LSP_OPEN_TOO_BIG)
                                         : hk_strerror_tr(rc));
        lsp_doc_state_free(s, ld);
        if (d)
            doc_close(s->docs, uri);
        rpc_call_error(call, rc, NULL);
        return;
    }
    doc_set_user(d, ld);
    ld->text_gen = 1;
    /* compiled after the debounce; earlier episodes' results (diagnostics, lenses) for this
     * file read off the loop and placed once the model is in */
    lsp_emit(s, LSP_EV_DOC_OPENED, d, NULL);
    parse_start(s, ld, jt);
    rpc_call_reply(call, NULL);
}

struct edit_fwd {
    struct lsp_doc *ld;
    size_t n;
};

/* Keeps an edit made while a parse is out, for pending_edits_record. */
static void pending_edit_keep(struct lsp_doc *ld, const struct doc_edit *e)
{
    if (ld->edits_lost)
        return;
    if (ld->n_edits == ld->cap_edits) {
        size_t cap = ld->cap_edits ? ld->cap_edits * 2 : 16;
        struct doc_edit *v = cap <= PENDING_EDITS_MAX
                                 ? hk_realloc(ld->edits, cap * sizeof *v) : NULL;
        if (!v) { /* too many, or no memory: the next parse starts from scratch */
            ld->edits_lost = true;
            ld->n_edits = 0;
            return;
        }
        ld->edits = v;
        ld->cap_edits = cap;
    }
    ld->edits[ld->n_edits++] = *e;
}

static void forward_edit(const struct doc_edit *e, void *ud)
{
    struct edit_fwd *f = ud;
    struct lsp_doc *ld = f->ld;
    f->n++;
    if (ld->parse)
        pending_edit_keep(ld, e);
    else if (ld->an)
        an_doc_edit(ld->an, e->start_byte, e->old_end_byte, e->new_end_byte, e->start_row,
                    e->start_col, e->old_end_row, e->old_end_col, e->new_end_row,
                    e->new_end_col);
}

static void on_did_change(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    const char *uri;
    int64_t version = 0;
    if (text_document(params, &uri, &version, true)) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_DIDCHANGE));
        return;
    }
    doc *d = doc_get(s->docs, uri);
    if (!d) {
        HK_WARN("didChange for %s, which is not open: ignored", uri);
        rpc_call_error(call, HK_ENOENT, hk_tr(HK_MSG_LSP_ERR_NOT_OPEN));
        return;
    }
    struct lsp_doc *ld = lsp_doc_of(d);
    struct edit_fwd fwd = {ld, 0};
    const char *why = NULL;
    json_t *changes = json_object_get(params, "contentChanges");
    /* a large full text comes ready from the pool: the document takes it without a copy,
     * and the parse reads the change's string in place */
    json_t *full = json_array_size(changes) == 1
                       ? json_object_get(json_array_get(changes, 0), "text") : NULL;
    struct lsp_text_prep *tp = full ? prep_take(s, full) : NULL;
    int rc;
    if (tp) {
        struct doc_edit e;
        rc = doc_replace_draft(d, version, tp->draft, &e);
        tp->draft = NULL; /* stolen */
        if (rc == HK_ETOOBIG)
            why = hk_tr(HK_MSG_DOC_CHANGE_TOO_BIG);
        if (!rc) {
            forward_edit(&e, &fwd);
            prep_give_snap(ld, tp);
        }
        lsp_text_prep_free(tp);
    } else {
        full = NULL;
        rc = doc_apply_changes(d, s->enc, version, changes, forward_edit, &fwd, &why);
    }
    if (rc) {
        lsp_log_message(s, 2,
                        hk_tr(HK_MSG_LSP_LOG_CHANGE_REJECTED),
                        uri, (long long)version, why ? why : hk_strerror_tr(rc),
                        (long long)doc_version(d));
        rpc_call_error(call, rc, why);
        return;
    }
    if (fwd.n) { /* no edits: the text, and so the model, is unchanged */
        ld->text_gen++;
        parse_start(s, ld, full);
    }
    lsp_emit(s, LSP_EV_DOC_CHANGED, d, NULL);
    rpc_call_reply(call, NULL);
}

/* Gives freed heap pages back to the system. A closed document's syntax tree is tens
 * of megabytes in small blocks (34 MB for 18,000 lines), and glibc keeps such freed
 * memory mapped: without this the server stays at its high-water mark after the file
 * is closed (measured 45 MB -> 9 MB). It walks the heap, so only after a close. */
static void release_heap(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

static void on_did_close(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    const char *uri;
    if (text_document(params, &uri, NULL, false)) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_DIDCLOSE));
        return;
    }
    doc *d = doc_get(s->docs, uri);
    if (!d) {
        HK_WARN("didClose for %s, which is not open: ignored", uri);
        rpc_call_error(call, HK_ENOENT, hk_tr(HK_MSG_LSP_ERR_NOT_OPEN));
        return;
    }
    struct lsp_doc *ld = lsp_doc_of(d);
    an_doc *an = NULL;
    if (ld && !ld->parse) { /* else the parse releases it when it comes back */
        an = ld->an;
        ld->an = NULL;
    }
    lsp_doc_state_free(s, ld);
    doc_set_user(d, NULL);
    doc_close(s->docs, uri);
    lsp_emit(s, LSP_EV_DOC_CLOSED, NULL, uri);
    release_later(s->loop, an);
    rpc_call_reply(call, NULL);
    lsp_emit(s, LSP_EV_ANALYSIS_DRAINED, NULL, NULL); /* its waiting requests were answered */
}

static void on_did_save(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    const char *uri;
    if (text_document(params, &uri, NULL, false)) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_DIDSAVE));
        return;
    }
    /* Saving the workspace config applies it at once. */
    char *path = lsp_uri_to_path(uri);
    if (path && s->root) {
        const char *base = strrchr(path, '/');
        if (base && strcmp(base + 1, LSP_CONFIG_FILE) == 0)
            lsp_config_refresh_file(s);
    }
    /* a draft spec that an Optimize waits for; the document compiled at once */
    lsp_emit(s, LSP_EV_DOC_SAVED, doc_get(s->docs, uri), path);
    hk_free(path);
    rpc_call_reply(call, NULL);
}

void lsp_register_textsync(struct lsp_server *s)
{
    rpc_register(s->rpc, "textDocument/didOpen", on_did_open, s);
    rpc_register(s->rpc, "textDocument/didChange", on_did_change, s);
    rpc_register(s->rpc, "textDocument/didClose", on_did_close, s);
    rpc_register(s->rpc, "textDocument/didSave", on_did_save, s);
}
