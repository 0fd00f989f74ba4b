/* lenses.c: codeLens's Optimize lenses (NVIDIA and DCU on every kernel's name), written as
 * JSON text once per parse, on the pool, and kept with the document; actions.c answers
 * the request from them and adds the few lenses of the kernels that have results. Below
 * textsync.c (which renders them after a parse) and actions.c. */
#ifndef HK_LSP_LENSES_H
#define HK_LSP_LENSES_H

#include "lsp/state.h"

struct hk_buf;

/* The rendered lenses of one parse of one document: a comma-separated list of lens
 * objects (no brackets), shared by reference between the document and the writes that
 * send it. */
struct lsp_lenses;

/* What a rendering depends on besides the text: the client's position encoding, the
 * NVIDIA target the lens asks for and the language of the titles. */
struct lsp_lens_key {
    uint64_t gen;           /* lsp_doc.text_gen of the text rendered */
    enum doc_encoding enc;
    const char *nv_target;  /* "nvidia" or "nvidia:ARCH" (lsp_nvidia_target) */
    enum hk_lang lang;
};

/* Renders the two Optimize lenses of every kernel of m, placed through d (the text m is
 * of; only read), for uri. Any thread (reads only its arguments; the titles come from
 * the message table in key->lang). New lenses (one reference), or NULL on no memory. */
struct lsp_lenses *lsp_lenses_render(const an_model *m, const doc *d, const char *uri,
                                     const struct lsp_lens_key *key);
/* Whether l (may be NULL: false) was rendered for key. Loop. */
bool lsp_lenses_fit(const struct lsp_lenses *l, const struct lsp_lens_key *key);
/* l's text (borrowed: valid while a reference is held) and its length; "" when the model
 * has no kernel. */
const char *lsp_lenses_text(const struct lsp_lenses *l, size_t *len);
/* Takes a reference (returns l). Loop. */
struct lsp_lenses *lsp_lenses_ref(struct lsp_lenses *l);
/* Drops a reference (an rpc_release_fn: arg is a struct lsp_lenses *); the last frees
 * them. NULL: nothing. Loop, or the thread that rendered them while it holds the only
 * reference. */
void lsp_lenses_put(void *arg);

/* The target an NVIDIA Optimize asks for under s's settings: "nvidia", or "nvidia:ARCH"
 * when the settings name an architecture. New string, or NULL on no memory. Loop. */
char *lsp_nvidia_target(const struct lsp_server *s);

/* Appends s to b as a JSON string (quotes, escapes). HK_OK or HK_ENOMEM. */
int lsp_json_str(struct hk_buf *b, const char *s);
/* The JSON text of kernel f's name range in d (positions in enc), written into range (n
 * bytes): a lens's "range". 0; -1 when a position cannot be computed (the lens is left out). */
int lsp_lens_range(const doc *d, enum doc_encoding enc, const an_function *f, char *range,
                   size_t n);
/* Appends one lens {"range":RANGE,"command":{"title":TITLE,"command":CMD,"arguments":[ARG]}}
 * to b, preceded by a comma unless *first (then cleared); range, title, cmd and arg are
 * JSON text. HK_OK or HK_ENOMEM. */
int lsp_lens_text(struct hk_buf *b, bool *first, const char *range, const char *title,
                  const char *cmd, const char *arg);

#endif
