/* diagnostics.c: background compiles (debounced) and the merged per-file diagnostics.
 * Loop thread. */
#ifndef HK_LSP_DIAGNOSTICS_H
#define HK_LSP_DIAGNOSTICS_H

#include "lsp/state.h"

/* Schedules a compile of d after delay_ms (the configured debounce when negative). */
void lsp_diag_schedule(struct lsp_server *s, doc *d, int delay_ms);
/* Replaces one source's diagnostics of d (stolen; NULL clears) and publishes the
 * merged set. */
void lsp_diag_set(struct lsp_server *s, doc *d, enum lsp_diag_source src, json_t *diags);
/* Publishes an empty set for uri (on close). */
void lsp_diag_clear_uri(struct lsp_server *s, const char *uri);
void lsp_diag_cancel_all(struct lsp_server *s);
/* The analysis of d's current text came back from the pool after a compile of that text
 * had finished: its resource hints, which need the model, are made and published now. */
void lsp_diag_model_ready(struct lsp_server *s, doc *d);

#endif
