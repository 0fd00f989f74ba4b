/* diagnostics.c: background compiles (debounced) and the merged per-file diagnostics.
 * Loop thread. */
#ifndef HK_LSP_DIAGNOSTICS_H
#define HK_LSP_DIAGNOSTICS_H

#include "lsp/state.h"
#include "rewrites/rewrite.h"

/* Schedules a compile of d after delay_ms (the configured debounce when negative). */
void lsp_diag_schedule(struct lsp_server *s, doc *d, int delay_ms);
/* Replaces one source's diagnostics of d (stolen; NULL clears) and publishes the
 * merged set. */
void lsp_diag_set(struct lsp_server *s, doc *d, enum lsp_diag_source src, json_t *diags);
/* Publishes an empty set for uri (on close). */
void lsp_diag_clear_uri(struct lsp_server *s, const char *uri);
void lsp_diag_cancel_all(struct lsp_server *s);

/* Appends a one-line resource summary ("32 registers, 0 B spill, ...") to buf; the
 * occupancy is at the block the kernel is launched with, kb (rw_kernel_block_of or
 * rw_kernel_blocks; NULL or threads 0: not known). HK_OK or HK_ENOMEM. Any thread. */
struct hk_buf;
int lsp_resource_summary(const cc_resource *r, const rw_kernel_block *kb, struct hk_buf *buf);

#endif
