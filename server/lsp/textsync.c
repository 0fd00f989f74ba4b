/* Text synchronisation: didOpen / didChange / didClose / didSave keep the document
 * store, forward every applied edit to the document's tree-sitter analysis (so the
 * reparse is incremental) and schedule background compiles. A change that does not
 * fit the document is logged and dropped whole, never applied in part. */
#include "lsp/textsync.h"

#include "lsp/config.h"
#include "lsp/diagnostics.h"
#include "lsp/episodes.h"
#include "lsp/server.h"

#include "core/hk.h"

#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

struct lsp_doc *lsp_doc_of(doc *d) { return d ? doc_user(d) : NULL; }

static void timer_closed(uv_handle_t *h) { hk_free(h); }

void lsp_doc_state_free(struct lsp_server *s, struct lsp_doc *ld)
{
    if (!ld)
        return;
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
    for (size_t i = 0; i < ld->n_res; i++) {
        hk_free(ld->res[i].kernel);
        hk_free(ld->res[i].base_name);
        hk_free(ld->res[i].mangled);
        hk_free(ld->res[i].arch);
    }
    hk_free(ld->res);
    for (int i = 0; i < LSP_DIAG_N; i++)
        json_decref(ld->diags[i]);
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

static void parse_analysis(struct lsp_server *s, doc *d, struct lsp_doc *ld)
{
    if (!ld->an)
        return;
    int rc = an_doc_parse(ld->an, doc_text(d), doc_length(d));
    if (rc)
        HK_WARN("%s: analysis failed: %s (the previous model is kept)", doc_uri(d),
                hk_strerror(rc));
    ld->model_stale = rc != HK_OK;
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
                       "didOpen needs textDocument.uri, .version (integer) and .text");
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
    int rc = doc_open(s->docs, uri, version, json_string_value(jt), json_string_length(jt), &d);
    if (rc) {
        lsp_log_message(s, 2, "%s: cannot open: %s", uri,
                        rc == HK_ETOOBIG ? "over the document size cap or too many open files"
                                         : hk_strerror(rc));
        lsp_doc_state_free(s, ld);
        if (d)
            doc_close(s->docs, uri);
        rpc_call_error(call, rc, NULL);
        return;
    }
    doc_set_user(d, ld);
    parse_analysis(s, d, ld);
    lsp_diag_schedule(s, d, -1);
    /* earlier episodes' results (diagnostics, lenses) for this file, read off the loop */
    lsp_ep_doc_opened(s, d);
    rpc_call_reply(call, NULL);
}

struct edit_fwd {
    struct lsp_doc *ld;
    size_t n;
};

static void forward_edit(const struct doc_edit *e, void *ud)
{
    struct edit_fwd *f = ud;
    f->n++;
    if (f->ld->an)
        an_doc_edit(f->ld->an, e->start_byte, e->old_end_byte, e->new_end_byte, e->start_row,
                    e->start_col, e->old_end_row, e->old_end_col, e->new_end_row,
                    e->new_end_col);
}

static void on_did_change(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    const char *uri;
    int64_t version = 0;
    if (text_document(params, &uri, &version, true)) {
        rpc_call_error(call, HK_EINVAL, "didChange needs textDocument.uri and .version");
        return;
    }
    doc *d = doc_get(s->docs, uri);
    if (!d) {
        HK_WARN("didChange for %s, which is not open: ignored", uri);
        rpc_call_error(call, HK_ENOENT, "document not open");
        return;
    }
    struct lsp_doc *ld = lsp_doc_of(d);
    struct edit_fwd fwd = {ld, 0};
    const char *why = NULL;
    int rc = doc_apply_changes(d, s->enc, version, json_object_get(params, "contentChanges"),
                               forward_edit, &fwd, &why);
    if (rc) {
        lsp_log_message(s, 2,
                        "%s: change to version %lld rejected (%s); the server keeps version "
                        "%lld, so close and reopen the file if the editor applied it",
                        uri, (long long)version, why ? why : hk_strerror(rc),
                        (long long)doc_version(d));
        rpc_call_error(call, rc, why);
        return;
    }
    if (fwd.n) /* no edits: the text, and so the model, is unchanged */
        parse_analysis(s, d, ld);
    lsp_diag_schedule(s, d, -1);
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
        rpc_call_error(call, HK_EINVAL, "didClose needs textDocument.uri");
        return;
    }
    doc *d = doc_get(s->docs, uri);
    if (!d) {
        HK_WARN("didClose for %s, which is not open: ignored", uri);
        rpc_call_error(call, HK_ENOENT, "document not open");
        return;
    }
    lsp_doc_state_free(s, lsp_doc_of(d));
    doc_set_user(d, NULL);
    doc_close(s->docs, uri);
    lsp_diag_clear_uri(s, uri);
    release_heap();
    rpc_call_reply(call, NULL);
}

static void on_did_save(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    const char *uri;
    if (text_document(params, &uri, NULL, false)) {
        rpc_call_error(call, HK_EINVAL, "didSave needs textDocument.uri");
        return;
    }
    /* Saving the workspace config applies it at once. */
    char *path = lsp_uri_to_path(uri);
    if (path && s->root) {
        const char *base = strrchr(path, '/');
        if (base && strcmp(base + 1, LSP_CONFIG_FILE) == 0)
            lsp_config_refresh_file(s);
    }
    if (path) /* a draft spec that an Optimize waits for */
        lsp_ep_spec_saved(s, path);
    hk_free(path);
    doc *d = doc_get(s->docs, uri);
    if (d)
        lsp_diag_schedule(s, d, 0);
    rpc_call_reply(call, NULL);
}

void lsp_register_textsync(struct lsp_server *s)
{
    rpc_register(s->rpc, "textDocument/didOpen", on_did_open, s);
    rpc_register(s->rpc, "textDocument/didChange", on_did_change, s);
    rpc_register(s->rpc, "textDocument/didClose", on_did_close, s);
    rpc_register(s->rpc, "textDocument/didSave", on_did_save, s);
}
