/* config.c: the settings layers, compile options (compile_commands.json read on the
 * libuv pool), uri/path helpers. Loop thread unless a function says otherwise. */
#ifndef HK_LSP_CONFIG_H
#define HK_LSP_CONFIG_H

#include "core/strv.h"
#include "lsp/state.h"

void lsp_config_init(struct lsp_config *c);
void lsp_config_free(struct lsp_config *c);
/* Rebuilds s->cfg from the layers; reports bad keys with window/logMessage. */
void lsp_config_rebuild(struct lsp_server *s);
/* Re-reads .hyperkernel.json when its mtime changed (or it appeared/vanished);
 * rebuilds s->cfg then. Returns true when it changed. */
bool lsp_config_refresh_file(struct lsp_server *s);
/* Builds the compile options for path: backend/arch from the target (or from the file
 * extension when no target is set), flags from the config and compile_commands.json.
 * *extra_out: new NULL-terminated vector (hk_strv_free). HK_OK, HK_ENOMEM, or HK_ESTATE
 * while compile_commands.json is being read on the pool (*extra_out NULL): the caller
 * waits; every open document is compiled again once the database is published. */
int lsp_compile_options(struct lsp_server *s, const char *path, cc_options *o,
                        char ***extra_out);
void lsp_ccdb_free(struct lsp_ccdb *db);
/* New file path for a file:// uri (percent-decoded), or NULL (other scheme, ENOMEM). */
char *lsp_uri_to_path(const char *uri);
/* New file:// uri for an absolute path, or NULL. */
char *lsp_path_to_uri(const char *path);

#endif
