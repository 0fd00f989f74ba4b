/* codeLens's Optimize lenses, written as JSON text after each parse and kept with the
 * document (lenses.h). A file of 2,000 kernels has 4,000 of them: rendered on the loop
 * for every request they cost it 2.2-3.5 ms at 1,000 kernels and past 5 ms at 2,000
 * (bench/results/lsp-2026-12-05-s33-face6.md); rendered once on the pool, next to the
 * documentSymbol reply, a request only lends the kept text to the write. */
#include "lsp/lenses.h"

#include "lsp/base.h"

#include "core/buf.h"
#include "core/hk.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define LENS_MAX ((size_t)1 << 30)

struct lsp_lenses {
    atomic_int refs;
    uint64_t gen;
    enum doc_encoding enc;
    enum hk_lang lang;
    char *nv_target;
    char *text; /* the lens objects, comma-separated (owned) */
    size_t len;
};

int lsp_json_str(struct hk_buf *b, const char *s)
{
    int rc = hk_buf_appends(b, "\"");
    const char *run = s;
    for (const char *p = s; !rc && *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c != '"' && c != '\\' && c >= 0x20)
            continue;
        rc = hk_buf_append(b, run, (size_t)(p - run));
        if (!rc)
            rc = c == '"' ? hk_buf_appends(b, "\\\"")
               : c == '\\' ? hk_buf_appends(b, "\\\\")
                           : hk_buf_printf(b, "\\u%04x", c);
        run = p + 1;
    }
    if (!rc)
        rc = hk_buf_appends(b, run);
    return rc ? rc : hk_buf_appends(b, "\"");
}

int lsp_lens_range(const doc *d, enum doc_encoding enc, const an_function *f, char *range,
                   size_t n)
{
    uint32_t sb = f->name_span.start_byte, eb = f->name_span.end_byte;
    struct doc_pos a, e;
    lsp_clamp_span(doc_length(d), &sb, &eb);
    if (doc_position_at(d, enc, sb, &a) || doc_position_at(d, enc, eb, &e))
        return -1;
    snprintf(range, n,
             "{\"start\":{\"line\":%u,\"character\":%u}," /* i18n: not for people */
             "\"end\":{\"line\":%u,\"character\":%u}}",
             a.line, a.character, e.line, e.character);
    return 0;
}

int lsp_lens_text(struct hk_buf *b, bool *first, const char *range, const char *title,
                  const char *cmd, const char *arg)
{
    int rc = hk_buf_appends(b, *first ? "{\"range\":" : ",{\"range\":");
    *first = false;
    rc = rc ? rc : hk_buf_appends(b, range);
    rc = rc ? rc : hk_buf_appends(b, ",\"command\":{\"title\":");
    rc = rc ? rc : hk_buf_appends(b, title);
    rc = rc ? rc : hk_buf_appends(b, ",\"command\":");
    rc = rc ? rc : hk_buf_appends(b, cmd);
    rc = rc ? rc : hk_buf_appends(b, ",\"arguments\":[");
    rc = rc ? rc : hk_buf_appends(b, arg);
    return rc ? rc : hk_buf_appends(b, "]}}");
}

char *lsp_nvidia_target(const struct lsp_server *s)
{
    if (s->cfg.target_set && s->cfg.backend == CC_NVIDIA && s->cfg.arch)
        return hk_asprintf("nvidia:%s", s->cfg.arch);
    return hk_strdup("nvidia");
}

struct lsp_lenses *lsp_lenses_render(const an_model *m, const doc *d, const char *uri,
                                     const struct lsp_lens_key *key)
{
    struct lsp_lenses *l = hk_calloc(1, sizeof *l);
    char *target = key->nv_target ? hk_strdup(key->nv_target) : NULL;
    /* what every kernel's two lenses share, quoted once */
    struct hk_buf q[5], b, arg;
    for (int i = 0; i < 5; i++)
        hk_buf_init(&q[i], 1 << 20);
    hk_buf_init(&b, LENS_MAX);
    hk_buf_init(&arg, 1 << 20); /* one kernel's arguments, its memory reused for the next */
    int rc = l && target ? HK_OK : HK_ENOMEM;
    rc = rc ? rc : lsp_json_str(&q[0], uri);
    rc = rc ? rc : lsp_json_str(&q[1], target);
    rc = rc ? rc : lsp_json_str(&q[2], hk_tr_in(key->lang, HK_MSG_LENS_OPTIMIZE_NVIDIA));
    rc = rc ? rc : lsp_json_str(&q[3], hk_tr_in(key->lang, HK_MSG_LENS_OPTIMIZE_DCU));
    rc = rc ? rc : lsp_json_str(&q[4], "hyperkernel.optimize");
    bool first = true;
    for (size_t k = 0; !rc && m && k < m->n_funcs; k++) {
        const an_function *f = &m->funcs[k];
        if (f->kind != AN_KERNEL)
            continue;
        char range[160];
        if (lsp_lens_range(d, key->enc, f, range, sizeof range) != 0)
            continue;
        hk_buf_reset(&arg);
        rc = hk_buf_printf(&arg, "{\"uri\":%s,\"kernel\":", q[0].data);
        rc = rc ? rc : lsp_json_str(&arg, f->name);
        size_t base = arg.len;
        rc = rc ? rc : hk_buf_printf(&arg, ",\"target\":%s}", q[1].data);
        rc = rc ? rc : lsp_lens_text(&b, &first, range, q[2].data, q[4].data, arg.data);
        if (!rc) {
            arg.len = base;
            arg.data[base] = '\0';
            rc = hk_buf_appends(&arg, ",\"target\":\"dcu\"}");
        }
        rc = rc ? rc : lsp_lens_text(&b, &first, range, q[3].data, q[4].data, arg.data);
    }
    hk_buf_free(&arg);
    for (int i = 0; i < 5; i++)
        hk_buf_free(&q[i]);
    if (rc) {
        hk_buf_free(&b);
        hk_free(target);
        hk_free(l);
        return NULL;
    }
    atomic_init(&l->refs, 1);
    l->gen = key->gen;
    l->enc = key->enc;
    l->lang = key->lang;
    l->nv_target = target;
    l->len = b.len;
    l->text = hk_buf_steal(&b);
    return l;
}

bool lsp_lenses_fit(const struct lsp_lenses *l, const struct lsp_lens_key *key)
{
    return l && l->gen == key->gen && l->enc == key->enc && l->lang == key->lang &&
           key->nv_target && !strcmp(l->nv_target, key->nv_target);
}

const char *lsp_lenses_text(const struct lsp_lenses *l, size_t *len)
{
    *len = l->len;
    return l->text ? l->text : ""; /* no kernel: nothing was written */
}

struct lsp_lenses *lsp_lenses_ref(struct lsp_lenses *l)
{
    atomic_fetch_add(&l->refs, 1);
    return l;
}

void lsp_lenses_put(void *arg)
{
    struct lsp_lenses *l = arg;
    if (l && atomic_fetch_sub(&l->refs, 1) == 1) {
        hk_free(l->text);
        hk_free(l->nv_target);
        hk_free(l);
    }
}
