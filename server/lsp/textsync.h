/* textsync.c: didOpen/didChange/didSave/didClose, the per-document state and its
 * analysis, parsed on the libuv pool. Loop thread. */
#ifndef HK_LSP_TEXTSYNC_H
#define HK_LSP_TEXTSYNC_H

#include "lsp/state.h"

void lsp_register_textsync(struct lsp_server *s);
/* Frees the per-document state (cancels its job, closes its timer). */
void lsp_doc_state_free(struct lsp_server *s, struct lsp_doc *ld);
/* The lsp_doc of uri, or NULL when not open. */
struct lsp_doc *lsp_doc_of(doc *d);

/* Whether the document's analysis describes its current text: no parse on the pool and
 * none due. Always true without a grammar. */
bool lsp_doc_analysis_current(const struct lsp_doc *ld);
/* The model of the document's current text (borrowed; valid until the next parse comes
 * back or the document closes), or NULL: no grammar, the analysis of the current text is
 * not back from the pool yet, or its parse failed (model_stale). */
const an_model *lsp_doc_model(const struct lsp_doc *ld);
/* For a request handler that reads the analysis, called first: when the document named
 * by params' textDocument.uri is open and its analysis is not current, the call is
 * deferred and fn(call, params, s) runs again once it is (params kept by a new
 * reference). A waiting call that the client cancels, or whose document closes, is
 * finished here. true: the call is queued or answered, the handler returns at once;
 * false: the analysis is current, or the document is not open (the handler's own
 * checks answer that). */
bool lsp_doc_await_analysis(struct lsp_server *s, rpc_call *call, json_t *params,
                            rpc_method_fn fn);

/* A setting the codeLens lenses show changed: every open document with an analysis has
 * its lenses rendered again on the pool with the new settings, holding its analysis as a
 * parse does (no parse when the model is of the current text; else the parse due renders
 * them); requests that read the model wait for it meanwhile, as after an edit. Loop. */
void lsp_doc_lenses_stale(struct lsp_server *s);

/* A buffer for a copy of ld's text (need bytes or more) taken for a pool job: one of the
 * document's kept ones (LSP_DOC_SPARES) when one is free and large enough (its pages are
 * in: a 742 KB copy into fresh pages was 180 page faults on the loop), else a new one,
 * with room for the text to grow by an eighth when it is of LSP_TEXT_PREP_BYTES or more.
 * *cap gets its size. When a large text's copy leaves fewer than LSP_DOC_SPARES_FREE
 * spares of its size, the pool makes one more (allocated and its pages touched there)
 * and the loop adds it to the spares when it comes back; a document closed meanwhile has
 * it freed.
 * New (give it back with lsp_doc_copy_return, or hk_free), or NULL on no memory. Loop. */
char *lsp_doc_copy_buffer(struct lsp_doc *ld, size_t need, size_t *cap);
/* Gives buf (cap bytes, stolen; may be NULL) back: kept as one of the document's when it
 * is of LSP_TEXT_PREP_BYTES or more and a slot is free or holds a smaller one (which is
 * freed), else freed. ld may be NULL (the document closed): freed. Loop. */
void lsp_doc_copy_return(struct lsp_doc *ld, char *buf, size_t cap);

/* A large didOpen's or full-text didChange's text made ready off the loop: the
 * document's own copy of it with its line index (doc_draft) and a buffer for the next
 * parse's copy, its pages touched. Copying the 742 KB text on the loop was 180 page
 * faults (about 4 ms on a VM) after a trim. server.c makes one on the pool next to the
 * message's decode and lends it to the handler through s->in_prep. */
struct lsp_text_prep;
/* Any thread; msg (borrowed) is only read. New prep, or NULL when msg is neither a
 * didOpen nor a didChange of one full-text change of LSP_TEXT_PREP_BYTES or more, or on
 * no memory (the handler then copies on the loop, as for a small text). */
struct lsp_text_prep *lsp_text_prep_new(const json_t *msg);
#define LSP_TEXT_PREP_BYTES ((size_t)64 << 10)
void lsp_text_prep_free(struct lsp_text_prep *tp);

#endif
