/* trust.c inside the module: which .hyperkernel.json keys need trust, and the trust
 * commands (the blocking list functions are in lsp.h). Loop thread. */
#ifndef HK_LSP_TRUST_H
#define HK_LSP_TRUST_H

#include "core/i18n.h"
#include "lsp/state.h"

/* The keys of .hyperkernel.json that apply only in a trusted folder, nested
 * (section.key) or dotted, with why (for the warning); config.c filters them out. */
struct lsp_trust_key {
    const char *section;      /* NULL: a top-level key */
    const char *key;
    enum hk_msg why;          /* why it needs trust (core/i18n.c) */
};
extern const struct lsp_trust_key lsp_trust_keys[];
extern const size_t lsp_trust_n_keys;
/* Reads the user's trust list into s->trusted_folders (blocking: at startup only). */
void lsp_trust_load(struct lsp_server *s);
/* true when the client said the workspace is trusted or the root is in the user's list. */
bool lsp_trusted(const struct lsp_server *s);
/* Records the keys of .hyperkernel.json the last rebuild ignored ("a,b"; borrowed) and,
 * when they changed, reports them (lsp_trust_report). */
void lsp_trust_set_ignored(struct lsp_server *s, const char *keys);
/* Sends the pending report once the initialize response is out: window/showMessage
 * (Warning) naming the ignored keys and how to trust the folder, and one Warning
 * diagnostic per key on .hyperkernel.json (an empty set when none is ignored). */
void lsp_trust_report(struct lsp_server *s);
/* workspace/executeCommand hyperkernel.trustFolder (add) / hyperkernel.untrustFolder:
 * arguments [] (the workspace root) or [{folder}] / ["PATH"] (path or file:// URI). The
 * list is written on the libuv thread pool; then the settings are rebuilt, compiles of
 * open files are redone when the folder became trusted, and call is answered with
 * {folder, file, changed, workspaceTrusted}. */
void lsp_trust_command(struct lsp_server *s, rpc_call *call, json_t *params, bool add);

#endif
