/* symbols.c: documentSymbol's reply, written straight to JSON text and kept with the
 * document's analysis, patched in place after an edit. Below textsync.c (which renders it
 * on the pool after a parse) and features.c (which answers the request). */
#ifndef HK_LSP_SYMBOLS_H
#define HK_LSP_SYMBOLS_H

#include "lsp/state.h"

/* Brings the documentSymbol reply kept on an (an_doc_user) up to date with an's model:
 * patched in place after an edit, or rendered again. d is the text that model is of (its
 * line index; only read). Runs on whichever thread owns an: on the pool right after a
 * parse (textsync.c), so that the loop only writes the reply; on the loop when the form
 * changed since. HK_OK, or HK_ENOMEM (the kept reply is left as it was). */
int lsp_symbols_refresh(an_doc *an, const doc *d, enum doc_encoding enc, bool hier);
/* Answers call with the reply for an's model (d: its text), brought up to date first
 * (the loop watch is told when that rendered on the loop); an error reply when that
 * failed. The text is lent to the writes, not copied. Loop thread. */
void lsp_symbols_reply(struct lsp_server *s, rpc_call *call, an_doc *an, const doc *d);
/* The detail line of f's symbol (its signature marked __global__/__device__, or a
 * launcher's count of launches), also hover's heading: new string, or NULL. Any thread. */
char *lsp_symbol_detail(const an_function *f);

#endif
