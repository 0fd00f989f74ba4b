/* config.c: the settings layers (the "episodes" and "engines" settings included), compile
 * options (compile_commands.json read on the libuv pool). Loop thread unless a function
 * says otherwise. */
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

/* struct lsp_ep_config, the settings under "episodes" and "engines", is in state.h. */
void lsp_ep_config_init(struct lsp_ep_config *c);
void lsp_ep_config_free(struct lsp_ep_config *c);
/* Applies one settings layer (o borrowed; from names it in messages): keys "episodes"
 * (nested or dotted "episodes.db" ...) and "engines". Bad values are reported with
 * window/logMessage and ignored. */
void lsp_ep_config_apply(struct lsp_server *s, struct lsp_ep_config *c, json_t *o,
                         const char *from);
/* true for the top-level keys lsp_ep_config_apply reads (so that they are not
 * reported unknown). */
bool lsp_ep_config_key(const char *key);

#endif
