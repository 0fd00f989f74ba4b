/* actions.c: code actions, code lenses, workspace/executeCommand and the hyperkernel/
 * requests (issue 4); the edits of an Apply action are planned on the libuv pool. Loop
 * thread. */
#ifndef HK_LSP_ACTIONS_H
#define HK_LSP_ACTIONS_H

#include "lsp/state.h"

/* Adds codeActionProvider, codeLensProvider and executeCommandProvider to caps
 * (borrowed). */
void lsp_ep_capabilities(json_t *caps);
/* Registers the methods of actions.c (server.c, after lsp_ep_init). */
void lsp_ep_register(struct lsp_server *s);

#endif
