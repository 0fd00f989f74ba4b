/* documentSymbol and hover, answered from the analysis model of the document's current
 * text (no parse here: a request that comes while the parse is on the pool waits for
 * it, textsync.c) and the resources of its last compile. */
#include "lsp/features.h"

#include "lsp/base.h"
#include "lsp/symbols.h"
#include "lsp/textsync.h"
#include "lsp/diagnostics.h"
#include "lsp/episodes.h"

#include "core/buf.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Common request prologue: the open document, its analysis, and (optionally) the byte
 * offset of params.position. Answers the call itself on error and returns NULL. */
static doc *request_doc(struct lsp_server *s, rpc_call *call, json_t *params, uint32_t *offset)
{
    json_t *ju = json_object_get(json_object_get(params, "textDocument"), "uri");
    if (!json_is_string(ju)) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_URI_STRING));
        return NULL;
    }
    doc *d = doc_get(s->docs, json_string_value(ju));
    if (!d) {
        rpc_call_error(call, HK_ENOENT, hk_tr(HK_MSG_LSP_ERR_NOT_OPEN));
        return NULL;
    }
    struct lsp_doc *ld = lsp_doc_of(d);
    if (ld && ld->an && ld->model_stale) {
        /* The last reparse failed: the model describes older text, and its spans
         * would point at the wrong places. */
        rpc_call_error(call, HK_ESTALE, hk_tr(HK_MSG_LSP_ERR_NO_ANALYSIS));
        return NULL;
    }
    if (offset) {
        struct doc_pos p;
        if (doc_parse_position(json_object_get(params, "position"), &p)) {
            rpc_call_error(call, HK_EINVAL,
                           hk_tr(HK_MSG_LSP_ERR_POSITION));
            return NULL;
        }
        int rc = doc_offset_at(d, s->enc, p, offset);
        if (rc) {
            rpc_call_error(call, rc,
                           hk_tr(HK_MSG_LSP_ERR_POSITION_OUTSIDE));
            return NULL;
        }
    }
    return d;
}


static void on_document_symbol(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    if (lsp_doc_await_analysis(s, call, params, on_document_symbol))
        return;
    doc *d = request_doc(s, call, params, NULL);
    if (!d)
        return;
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!lsp_doc_model(ld)) { /* no grammar: nothing to show */
        rpc_call_reply_raw(call, "[]", 2);
        return;
    }
    lsp_symbols_reply(s, call, ld->an, d);
}

/* ---- hover ---- */

static void code_block(struct lsp_server *s, struct hk_buf *b, const char *text)
{
    if (s->cl_markdown)
        hk_buf_printf(b, "```cuda\n%s\n```\n", text);
    else
        hk_buf_printf(b, "%s\n", text);
}

/* One launch as a list item; name_kernel: say which kernel (else where it is). */
static void hover_launch(struct lsp_server *s, const doc *d, const an_model *m,
                         const an_launch *l, struct hk_buf *b, bool name_kernel)
{
    struct doc_pos p = {0, 0};
    doc_position_at(d, s->enc, l->span.start_byte, &p);
    const char *caller = l->caller >= 0 && (size_t)l->caller < m->n_funcs
                             ? m->funcs[l->caller].name : hk_tr(HK_MSG_HOVER_FILE_SCOPE);
    const char *q = s->cl_markdown ? "`" : "";
    /* each name or expression quoted first, then placed in the reader's sentence */
    char *who = hk_asprintf("%s%s%s", q, name_kernel ? l->kernel : caller, q);
    char *grid = hk_asprintf("%s%s%s", q, l->grid ? l->grid : "?", q);
    char *block = hk_asprintf("%s%s%s", q, l->block ? l->block : "?", q);
    char *shmem = l->shmem ? hk_asprintf("%s%s%s", q, l->shmem, q) : NULL;
    char *stream = l->stream ? hk_asprintf("%s%s%s", q, l->stream, q) : NULL;
    char *line = NULL;
    if (who && grid && block && (!l->shmem || shmem) && (!l->stream || stream)) {
        char *head = name_kernel ? hk_trf(HK_MSG_HOVER_KERNEL_AT_LINE, who, p.line + 1)
                                 : hk_trf(HK_MSG_HOVER_LINE_IN, p.line + 1, who);
        char *gb = hk_trf(HK_MSG_HOVER_GRID_BLOCK, grid, block);
        char *sm = shmem ? hk_trf(HK_MSG_HOVER_SHARED_MEMORY, shmem) : NULL;
        char *st = stream ? hk_trf(HK_MSG_HOVER_STREAM, stream) : NULL;
        if (head && gb && (!shmem || sm) && (!stream || st))
            line = hk_asprintf("%s%s%s%s\n", head, gb, sm ? sm : "", st ? st : "");
        hk_free(head);
        hk_free(gb);
        hk_free(sm);
        hk_free(st);
    }
    if (line) /* out of memory: the hover goes without this line */
        hk_buf_appends(b, line);
    hk_free(line);
    hk_free(who);
    hk_free(grid);
    hk_free(block);
    hk_free(shmem);
    hk_free(stream);
}

static void hover_kernel(struct lsp_server *s, const doc *d, const an_model *m,
                         const an_function *f, const an_launch *at, struct hk_buf *b)
{
    struct lsp_doc *ld = lsp_doc_of((doc *)d);
    const char *bold = s->cl_markdown ? "**" : "";
    if (at) {
        char *title = hk_trf(HK_MSG_HOVER_LAUNCH_OF, at->kernel);
        hk_buf_printf(b, "%s%s%s\n", bold, title ? title : at->kernel, bold);
        hk_free(title);
        hover_launch(s, d, m, at, b, false);
        hk_buf_appends(b, "\n");
    }
    if (!f)
        return; /* the launched kernel is not defined in this file */
    struct hk_buf sig;
    hk_buf_init(&sig, 1 << 16);
    if (f->template_params)
        hk_buf_printf(&sig, "%s\n", f->template_params);
    char *detail = f->kind == AN_LAUNCHER ? hk_strdup(f->signature ? f->signature : f->name)
                                          : lsp_symbol_detail(f);
    hk_buf_appends(&sig, detail ? detail : f->name);
    hk_free(detail);
    code_block(s, b, sig.data ? sig.data : f->name);
    hk_buf_free(&sig);
    if (f->launch_bounds)
        hk_buf_printf(b, "\n__launch_bounds__(%s)\n", f->launch_bounds);
    if (f->kind == AN_LAUNCHER) {
        hk_buf_printf(b, "\n%s%s%s (%zu)\n", bold, hk_tr(HK_MSG_HOVER_LAUNCHES), bold,
                      f->n_launches);
        for (size_t i = 0; i < f->n_launches; i++)
            if (f->launches[i] < m->n_launches)
                hover_launch(s, d, m, &m->launches[f->launches[i]], b, true);
        return;
    }
    if (f->kind != AN_KERNEL)
        return;
    size_t n = 0;
    for (size_t i = 0; i < m->n_launches; i++)
        if (strcmp(m->launches[i].kernel, f->name) == 0)
            n++;
    hk_buf_printf(b, "\n%s%s%s (%zu)\n", bold, hk_tr(HK_MSG_HOVER_LAUNCH_CONFIGS), bold, n);
    if (!n)
        hk_buf_appends(b, hk_tr(HK_MSG_HOVER_NONE_IN_FILE));
    for (size_t i = 0; i < m->n_launches; i++)
        if (strcmp(m->launches[i].kernel, f->name) == 0)
            hover_launch(s, d, m, &m->launches[i], b, false);
    bool any = false;
    rw_kernel_block kb = {0};
    for (size_t i = 0; ld && i < ld->n_res; i++) {
        const cc_resource *r = &ld->res[i];
        const char *name = r->base_name ? r->base_name : r->kernel;
        if (!name || strcmp(name, f->name) != 0)
            continue;
        /* the block it is launched with, read as hkls check and Apply read it */
        if (!any && f >= m->funcs && f < m->funcs + m->n_funcs)
            rw_kernel_block_of(doc_text(d), doc_length(d), m, f->name, (long)(f - m->funcs),
                               &kb);
        if (!any) {
            hk_buf_printf(b, "\n%s%s%s (", bold, hk_tr(HK_MSG_HOVER_RESOURCES), bold);
            hk_buf_printf(b, hk_tr(HK_MSG_HOVER_LAST_COMPILE),
                          ld->res_version == doc_version(d) ? ""
                                                            : hk_tr(HK_MSG_HOVER_OLDER_VERSION));
            hk_buf_appends(b, ")\n");
        }
        any = true;
        hk_buf_printf(b, "- %s%s%s: ", r->kernel ? r->kernel : name,
                      r->arch ? " on " : "", r->arch ? r->arch : "");
        lsp_resource_summary(r, &kb, b);
        hk_buf_appends(b, "\n");
    }
    lsp_ep_hover(s, (doc *)d, f->name, b); /* optimization results, when there are any */
}

static void on_hover(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    if (lsp_doc_await_analysis(s, call, params, on_hover))
        return;
    uint32_t off;
    doc *d = request_doc(s, call, params, &off);
    if (!d)
        return;
    const an_model *m = lsp_doc_model(lsp_doc_of(d));
    if (!m) {
        rpc_call_reply(call, NULL);
        return;
    }
    const an_launch *at = NULL;
    const an_function *f = NULL;
    an_span range = {0};
    long li = an_model_launch_at(m, off);
    if (li >= 0 && (size_t)li < m->n_launches) {
        at = &m->launches[li];
        long k = an_model_find_kernel(m, at->kernel);
        f = k >= 0 && (size_t)k < m->n_funcs ? &m->funcs[k] : NULL;
        range = at->span;
    } else {
        long fi = an_model_function_at(m, off);
        if (fi >= 0 && (size_t)fi < m->n_funcs) {
            f = &m->funcs[fi];
            /* On the name: highlight the name; elsewhere in the body: nothing more. */
            range = off >= f->name_span.start_byte && off <= f->name_span.end_byte
                        ? f->name_span : (an_span){0};
        }
    }
    if (!at && !f) {
        rpc_call_reply(call, NULL);
        return;
    }
    struct hk_buf b;
    hk_buf_init(&b, 1 << 20);
    hover_kernel(s, d, m, f, at, &b);
    json_t *res = json_pack("{s:{s:s, s:s}}", "contents", "kind",
                            s->cl_markdown ? "markdown" : "plaintext", "value",
                            b.data ? b.data : "");
    hk_buf_free(&b);
    if (res && range.end_byte > range.start_byte) {
        json_t *r = lsp_range_json(s, d, range.start_byte, range.end_byte);
        if (r)
            json_object_set_new(res, "range", r);
    }
    if (!res)
        rpc_call_error(call, HK_ENOMEM, NULL);
    else
        rpc_call_reply(call, res);
}

void lsp_register_features(struct lsp_server *s)
{
    rpc_register(s->rpc, "textDocument/documentSymbol", on_document_symbol, s);
    rpc_register(s->rpc, "textDocument/hover", on_hover, s);
}
