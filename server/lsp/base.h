/* base.c: the bottom layer of the module, which every other file may call: messages to
 * the user, requests to the client, file URIs, LSP ranges, and lsp_emit, through which a
 * file tells the files above it what happened (docs/ARCHITECTURE.md, "Inside lsp/").
 * Loop thread unless a function says otherwise. */
#ifndef HK_LSP_BASE_H
#define HK_LSP_BASE_H

#include "lsp/state.h"

/* Sends ev up: server.c, the top, passes it to the files that act on it (its route()).
 * Nothing when no router is set (a server not made by lsp_server_new). */
void lsp_emit(struct lsp_server *s, enum lsp_event ev, doc *d, const char *str);

/* Messages to the user (window/logMessage, window/showMessage; type 1 error, 2 warning,
 * 3 info, 4 log), also written to the log. */
void lsp_log_message(struct lsp_server *s, int type, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lsp_show_message(struct lsp_server *s, int type, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Requests to the client. Each checks the client's capability first (HK_EUNSUPPORTED
 * when missing) and otherwise returns what rpc_request returns; cb is called exactly once
 * when HK_OK is returned. edit/range: stolen (NULL allowed). */
int lsp_client_apply_edit(struct lsp_server *s, const char *label, json_t *edit,
                          rpc_reply_fn cb, void *ud);
int lsp_client_progress_create(struct lsp_server *s, const char *token, rpc_reply_fn cb,
                               void *ud);
/* Without client support it falls back to a window/showMessage naming the path
 * (Neovim 0.7) and returns HK_EUNSUPPORTED; cb is then not called. */
int lsp_client_show_document(struct lsp_server *s, const char *uri, bool take_focus,
                             json_t *selection, rpc_reply_fn cb, void *ud);

/* New file path for a file:// uri (percent-decoded), or NULL (other scheme, ENOMEM). Any
 * thread. */
char *lsp_uri_to_path(const char *uri);
/* New file:// uri for an absolute path, or NULL. Any thread. */
char *lsp_path_to_uri(const char *path);

/* LSP Range JSON (new reference) for a byte span of d, or NULL. */
/* [start, end) clamped to a text of len bytes (end never before start). */
void lsp_clamp_span(size_t len, uint32_t *start, uint32_t *end);
/* An LSP Range from two positions. */
json_t *lsp_range_pack(const struct doc_pos *a, const struct doc_pos *b);
json_t *lsp_range_json(struct lsp_server *s, const doc *d, uint32_t start, uint32_t end);

#endif
