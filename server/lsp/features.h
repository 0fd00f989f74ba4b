/* features.c: documentSymbol (its reply made by symbols.c) and hover. Loop thread. */
#ifndef HK_LSP_FEATURES_H
#define HK_LSP_FEATURES_H

#include "lsp/state.h"

void lsp_register_features(struct lsp_server *s);

#endif
