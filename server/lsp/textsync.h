/* textsync.c: didOpen/didChange/didSave/didClose and the per-document state. Loop
 * thread. */
#ifndef HK_LSP_TEXTSYNC_H
#define HK_LSP_TEXTSYNC_H

#include "lsp/state.h"

void lsp_register_textsync(struct lsp_server *s);
/* Frees the per-document state (cancels its job, closes its timer). */
void lsp_doc_state_free(struct lsp_server *s, struct lsp_doc *ld);
/* The lsp_doc of uri, or NULL when not open. */
struct lsp_doc *lsp_doc_of(doc *d);

#endif
