/* features.c: documentSymbol and hover, and the range and resource helpers the other
 * files share. Loop thread. */
#ifndef HK_LSP_FEATURES_H
#define HK_LSP_FEATURES_H

#include "lsp/state.h"
#include "rewrites/rewrite.h"

void lsp_register_features(struct lsp_server *s);
/* Appends a one-line resource summary ("32 registers, 0 B spill, ...") to buf; the
 * occupancy is at the block the kernel is launched with, kb (rw_kernel_block_of or
 * rw_kernel_blocks; NULL or threads 0: not known). HK_OK or HK_ENOMEM. */
struct hk_buf;
int lsp_resource_summary(const cc_resource *r, const rw_kernel_block *kb, struct hk_buf *buf);
/* Brings the documentSymbol reply kept on an (an_doc_user) up to date with an's model:
 * patched in place after an edit, or rendered again. d is the text that model is of (its
 * line index; only read). Runs on whichever thread owns an: on the pool right after a
 * parse (textsync.c), so that the loop only writes the reply; on the loop when the form
 * changed since. HK_OK, or HK_ENOMEM (the kept reply is left as it was). */
int lsp_symbols_refresh(an_doc *an, const doc *d, enum doc_encoding enc, bool hier);
/* LSP Range JSON (new reference) for a byte span of d, or NULL. */
json_t *lsp_range_json(struct lsp_server *s, const doc *d, uint32_t start, uint32_t end);

#endif
