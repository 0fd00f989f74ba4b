/* server.c: lifecycle and dispatch (lsp.h), and what every other file of the module
 * sends through it: messages to the user and requests to the client. Loop thread. */
#ifndef HK_LSP_SERVER_H
#define HK_LSP_SERVER_H

#include "lsp/state.h"

/* server.c: messages to the user (window/logMessage, window/showMessage; type 1 error,
 * 2 warning, 3 info, 4 log), also written to the log. */
void lsp_log_message(struct lsp_server *s, int type, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lsp_show_message(struct lsp_server *s, int type, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* server.c: requests to the client. Each checks the client's capability first
 * (HK_EUNSUPPORTED when missing) and otherwise returns what rpc_request returns; cb is
 * called exactly once when HK_OK is returned. edit/range: stolen (NULL allowed). */
int lsp_client_apply_edit(struct lsp_server *s, const char *label, json_t *edit,
                          rpc_reply_fn cb, void *ud);
int lsp_client_progress_create(struct lsp_server *s, const char *token, rpc_reply_fn cb,
                               void *ud);
/* Without client support it falls back to a window/showMessage naming the path
 * (Neovim 0.7) and returns HK_EUNSUPPORTED; cb is then not called. */
int lsp_client_show_document(struct lsp_server *s, const char *uri, bool take_focus,
                             json_t *selection, rpc_reply_fn cb, void *ud);

/* server.c: a document's waiting requests were answered (textsync.c). A shutdown that
 * waited for them is answered once no document has any, and an exit that came after it
 * is carried out then: requests sent before shutdown get their replies first. */
void lsp_server_analysis_drained(struct lsp_server *s);

#endif
