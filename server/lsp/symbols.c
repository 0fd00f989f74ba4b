/* documentSymbol's reply, rendered straight to JSON text and kept on the document's
 * analysis (symbols.h). Below textsync.c, which renders it on the pool right after a
 * parse; features.c answers the request with it. */
#include "lsp/symbols.h"

#include "lsp/loopwatch.h"

#include "core/buf.h"
#include "core/hk.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { SK_FUNCTION = 12, SK_VARIABLE = 13, SK_EVENT = 24 };

/* ---- documentSymbol ----
 * Written straight to JSON text: a file of 1,000 kernels has thousands of symbols, and
 * building them as jansson objects costs ten times more than the answer is worth.
 *
 * The reply for such a file is 1 MB while an edit changes one function, so the last
 * reply is kept (attached to the document's analysis) with where each function's text
 * lies in it and where its line numbers are. After an edit the kept reply is patched in
 * place (sym_patch): the functions the incremental rebuild re-extracted (new
 * an_function.gen) are rendered and replace the old ones' text, and the line numbers of
 * the reused functions after them are rewritten where lines were added or removed above
 * (a reused function's text and columns are unchanged): no megabyte is copied. When that
 * is not possible (functions reordered, a line number gains a digit, other settings) the
 * reply is rendered again, copying the reused functions' text from the old one. A
 * request against the same model is answered with the same text. */

/* What the reply's form depends on: the client's position encoding and symbol shape.
 * The names are the server's, so the renderer reads as it did when it took the server. */
struct sym_opts {
    enum doc_encoding enc;
    bool cl_hier_symbols;
};

/* Bytes kept free before the reply for rpc's envelope (rpc_call_reply_inplace). */
#define SYM_ROOM 64
#define SYM_MAX_REPLY ((size_t)1 << 30)

struct sym_num {           /* a line number in the reply text */
    uint32_t off, len;     /* where its digits are, from the start of its function's text */
    uint32_t rel;          /* its line minus the line where the function starts */
};

struct sym_frag {          /* one function's symbol (children included) in the reply */
    uint64_t gen;          /* an_function.gen */
    uint32_t off, len;     /* its text (after the comma that separates it from the last) */
    uint32_t line;         /* line where the function starts */
    uint32_t num0, n_num;  /* its line numbers: nums[num0 .. num0 + n_num) */
};

/* The reply text lent to the writes that send it (rpc_call_reply_lent): they read it in
 * place, from the pool for a large one, while the cache keeps it. One reference is the
 * cache's, one each write's; the last frees the text. The cache is not patched in place
 * while a write holds a reference: the next parse renders a new reply instead. The loop
 * takes references only while no parse is out (requests wait for the analysis), so a
 * pool thread that reads refs == 1 knows the text is the cache's alone. */
struct sym_lease {
    atomic_int refs;
    char *text;        /* the cache's b.data */
};

static void sym_lease_put(void *p)
{
    struct sym_lease *l = p;
    if (atomic_fetch_sub(&l->refs, 1) == 1) {
        hk_free(l->text);
        hk_free(l);
    }
}

/* The rendered reply of one model, or one being rendered. */
struct sym_cache {
    uint64_t model_id;     /* an_doc_model_id it was rendered from; 0: none */
    enum doc_encoding enc; /* the settings it was rendered with */
    bool hier;
    struct hk_buf b;       /* SYM_ROOM bytes, the result, one spare byte for rpc */
    struct sym_frag *frags;
    size_t n_frags, cap_frags;
    struct sym_num *nums;
    size_t n_nums, cap_nums;
    uint64_t max_gen;      /* largest gen among frags */
    uint32_t line0;        /* while rendering: line of the current function's start */
    uint32_t frag0;        /* while rendering: offset of the current function's text */
    struct sym_lease *lease; /* b.data lent to writes, or NULL */
};

static void sym_cache_clear(struct sym_cache *c)
{
    if (c->lease) { /* the writes still out free the text */
        c->b.data = NULL;
        sym_lease_put(c->lease);
    }
    hk_buf_free(&c->b);
    hk_free(c->frags);
    hk_free(c->nums);
    memset(c, 0, sizeof(*c));
}

static void sym_cache_free(void *p)
{
    if (!p)
        return;
    sym_cache_clear(p);
    hk_free(p);
}

static int sym_grow(void *pp, size_t *cap, size_t need, size_t es)
{
    if (need <= *cap)
        return HK_OK;
    size_t n = *cap ? *cap * 2 : 256;
    while (n < need)
        n *= 2;
    void *p = hk_realloc(*(void **)pp, n * es);
    if (!p)
        return HK_ENOMEM;
    *(void **)pp = p;
    *cap = n;
    return HK_OK;
}

/* Appends the decimal digits of v (printf costs more than the rest of a symbol). */
static int jw_u32(struct hk_buf *b, uint32_t v)
{
    char tmp[10];
    int n = 0;
    do {
        tmp[9 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return hk_buf_append(b, tmp + 10 - n, (size_t)n);
}

/* Appends a line number and remembers where it is, relative to the function start. */
static int jw_line(struct sym_cache *c, uint32_t line)
{
    int rc = sym_grow(&c->nums, &c->cap_nums, c->n_nums + 1, sizeof(*c->nums));
    if (rc)
        return rc;
    size_t at = c->b.len;
    rc = jw_u32(&c->b, line);
    if (rc)
        return rc;
    c->nums[c->n_nums++] = (struct sym_num){(uint32_t)(at - c->frag0),
                                            (uint32_t)(c->b.len - at), line - c->line0};
    return HK_OK;
}

/* Appends s as a JSON string; bytes that are not valid UTF-8 become U+FFFD so the
 * output is always valid JSON whatever the document holds. */
static int jw_str(struct hk_buf *b, const char *s)
{
    int rc = hk_buf_append(b, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    while (!rc && *p) {
        const unsigned char *run = p;
        while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
            p++;
        if (p > run)
            rc = hk_buf_append(b, run, (size_t)(p - run));
        if (rc || !*p)
            break;
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            rc = hk_buf_append(b, e, 2);
            p++;
        } else if (*p < 0x20) {
            rc = hk_buf_printf(b, "\\u%04x", *p);
            p++;
        } else {
            size_t n = *p >= 0xF0 && *p < 0xF8 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC2 ? 2 : 0;
            size_t k = 1;
            while (n && k < n && (p[k] & 0xC0) == 0x80)
                k++;
            if (n && k == n) {
                rc = hk_buf_append(b, p, n);
                p += n;
            } else {
                rc = hk_buf_appends(b, "\xef\xbf\xbd"); /* i18n: not for people (U+FFFD, the replacement character) */
                p += k;
            }
        }
    }
    return rc ? rc : hk_buf_append(b, "\"", 1);
}

static int jw_range(const struct sym_opts *s, const doc *d, struct sym_cache *c, uint32_t start,
                    uint32_t end)
{
    struct hk_buf *b = &c->b;
    struct doc_pos a = {0, 0}, z = {0, 0};
    size_t len = doc_length(d);
    start = start > len ? (uint32_t)len : start;
    end = end > len ? (uint32_t)len : end < start ? start : end;
    doc_position_at(d, s->enc, start, &a);
    doc_position_at(d, s->enc, end, &z);
    int rc = hk_buf_appends(b, "{\"start\":{\"line\":");
    if (!rc)
        rc = jw_line(c, a.line);
    if (!rc)
        rc = hk_buf_appends(b, ",\"character\":");
    if (!rc)
        rc = jw_u32(b, a.character);
    if (!rc)
        rc = hk_buf_appends(b, "},\"end\":{\"line\":");
    if (!rc)
        rc = jw_line(c, z.line);
    if (!rc)
        rc = hk_buf_appends(b, ",\"character\":");
    if (!rc)
        rc = jw_u32(b, z.character);
    return rc ? rc : hk_buf_appends(b, "}}");
}

/* One symbol. Hierarchical: a DocumentSymbol, left open for "children" (the caller
 * closes it). Flat: a complete SymbolInformation. */
static int jw_symbol(const struct sym_opts *s, const doc *d, struct sym_cache *c, const char *name,
                     int kind, const char *detail, an_span span, an_span sel,
                     const char *container)
{
    struct hk_buf *b = &c->b;
    int rc = hk_buf_appends(b, "{\"name\":");
    if (!rc)
        rc = jw_str(b, name && name[0] ? name : "(anonymous)");
    if (!rc)
        rc = hk_buf_appends(b, ",\"kind\":");
    if (!rc)
        rc = jw_u32(b, (uint32_t)kind);
    if (!s->cl_hier_symbols) {
        if (!rc && container) {
            rc = hk_buf_appends(b, ",\"containerName\":");
            if (!rc)
                rc = jw_str(b, container);
        }
        if (!rc)
            rc = hk_buf_appends(b, ",\"location\":{\"uri\":");
        if (!rc)
            rc = jw_str(b, doc_uri(d));
        if (!rc)
            rc = hk_buf_appends(b, ",\"range\":");
        if (!rc)
            rc = jw_range(s, d, c, span.start_byte, span.end_byte);
        return rc ? rc : hk_buf_appends(b, "}}");
    }
    if (!rc && detail) {
        rc = hk_buf_appends(b, ",\"detail\":");
        if (!rc)
            rc = jw_str(b, detail);
    }
    if (!rc)
        rc = hk_buf_appends(b, ",\"range\":");
    if (!rc)
        rc = jw_range(s, d, c, span.start_byte, span.end_byte);
    /* The selection must lie inside the range (clients check it). */
    if (sel.start_byte < span.start_byte || sel.end_byte > span.end_byte)
        sel = span;
    if (!rc)
        rc = hk_buf_appends(b, ",\"selectionRange\":");
    if (!rc)
        rc = jw_range(s, d, c, sel.start_byte, sel.end_byte);
    return rc;
}

static char *launch_label(const an_launch *l)
{
    switch (l->form) {
    case AN_LAUNCH_CHEVRON:
        return hk_asprintf("%s<<<%s, %s%s%s>>>", l->kernel, l->grid ? l->grid : "?",
                           l->block ? l->block : "?", l->shmem ? ", " : "",
                           l->shmem ? l->shmem : "");
    case AN_LAUNCH_HIP:
        return hk_asprintf("hipLaunchKernelGGL(%s, %s, %s, ...)", l->kernel,
                           l->grid ? l->grid : "?", l->block ? l->block : "?");
    case AN_LAUNCH_CUDA_API:
        return hk_asprintf("cudaLaunchKernel(%s, %s, %s, ...)", l->kernel,
                           l->grid ? l->grid : "?", l->block ? l->block : "?");
    }
    return hk_strdup(l->kernel);
}

char *lsp_symbol_detail(const an_function *f)
{
    const char *sig = f->signature ? f->signature : f->name;
    switch (f->kind) {
    case AN_KERNEL:
        return strstr(sig, "__global__") ? hk_strdup(sig) : hk_asprintf("__global__ %s", sig);
    case AN_DEVICE_FUNC:
        return strstr(sig, "__device__") ? hk_strdup(sig) : hk_asprintf("__device__ %s", sig);
    case AN_LAUNCHER:
        return hk_asprintf("launcher: %zu launch%s", f->n_launches,
                           f->n_launches == 1 ? "" : "es");
    }
    return NULL;
}

/* A function and its children: launch sites (launchers) and __shared__ arrays. */
static int jw_function(const struct sym_opts *s, const doc *d, const an_model *m,
                       const an_function *f, struct sym_cache *c)
{
    struct hk_buf *b = &c->b;
    char *detail = lsp_symbol_detail(f);
    int rc = jw_symbol(s, d, c, f->name, SK_FUNCTION, detail, f->span, f->name_span, NULL);
    hk_free(detail);
    bool hier = s->cl_hier_symbols;
    bool any = false;
    for (size_t i = 0; !rc && i < f->n_launches; i++) {
        if (f->launches[i] >= m->n_launches)
            continue;
        const an_launch *l = &m->launches[f->launches[i]];
        char *label = launch_label(l);
        if (!label)
            return HK_ENOMEM;
        rc = hk_buf_appends(b, hier ? (any ? "," : ",\"children\":[") : ",");
        if (!rc)
            rc = jw_symbol(s, d, c, label, SK_EVENT, "launch", l->span, l->span, f->name);
        if (!rc && hier)
            rc = hk_buf_appends(b, "}");
        any = true;
        hk_free(label);
    }
    for (size_t i = 0; !rc && i < f->n_shared; i++) {
        const an_shared *sh = &f->shared[i];
        char *dt = hk_asprintf("%s__shared__ %s%s", sh->is_extern ? "extern " : "",
                               sh->type ? sh->type : "", sh->size_expr ? sh->size_expr : "");
        if (!dt)
            return HK_ENOMEM;
        rc = hk_buf_appends(b, hier ? (any ? "," : ",\"children\":[") : ",");
        if (!rc)
            rc = jw_symbol(s, d, c, sh->name, SK_VARIABLE, dt, sh->span, sh->span, f->name);
        if (!rc && hier)
            rc = hk_buf_appends(b, "}");
        any = true;
        hk_free(dt);
    }
    if (!rc && hier)
        rc = hk_buf_appends(b, any ? "]}" : "}");
    return rc;
}

/* Gives back what the doubling buffers over-allocated: the cache lives as long as the
 * document (a megabyte of text for 1,000 kernels), and the slack would double it. */
static void sym_cache_fit(struct sym_cache *c)
{
    if (c->b.data && c->b.cap > c->b.len + 1) {
        char *p = hk_realloc(c->b.data, c->b.len + 1);
        if (p) {
            c->b.data = p;
            c->b.cap = c->b.len + 1;
        }
    }
    if (c->nums && c->cap_nums > c->n_nums) {
        struct sym_num *p = hk_realloc(c->nums, (c->n_nums ? c->n_nums : 1) * sizeof(*p));
        if (p) {
            c->nums = p;
            c->cap_nums = c->n_nums ? c->n_nums : 1;
        }
    }
}

/* Copies a function's fragment from the previous reply into c, its line numbers
 * rewritten for the function now starting at line. */
static int sym_copy(struct sym_cache *c, const struct sym_cache *old, const struct sym_frag *fr,
                    uint32_t line)
{
    const char *src = old->b.data + fr->off;
    int rc = sym_grow(&c->nums, &c->cap_nums, c->n_nums + fr->n_num, sizeof(*c->nums));
    if (rc)
        return rc;
    if (line == fr->line) {
        /* nothing moved: one copy; the numbers' offsets are relative to the fragment */
        memcpy(c->nums + c->n_nums, old->nums + fr->num0, fr->n_num * sizeof(*c->nums));
        c->n_nums += fr->n_num;
        return hk_buf_append(&c->b, src, fr->len);
    }
    uint32_t at = 0;
    for (uint32_t k = 0; !rc && k < fr->n_num; k++) {
        const struct sym_num *n = &old->nums[fr->num0 + k];
        rc = hk_buf_append(&c->b, src + at, n->off - at);
        if (!rc)
            rc = jw_line(c, line + n->rel);
        at = n->off + n->len;
    }
    return rc ? rc : hk_buf_append(&c->b, src + at, fr->len - at);
}

/* The previous fragment of f, or NULL. Functions keep their order across rebuilds,
 * so the search resumes where the last one ended (*j); a miss does not move it. */
static const struct sym_frag *sym_find(const struct sym_cache *old, const an_function *f,
                                       size_t *j)
{
    if (!old || f->gen > old->max_gen)
        return NULL; /* extracted after old was rendered */
    for (size_t k = *j; k < old->n_frags; k++)
        if (old->frags[k].gen == f->gen) {
            *j = k + 1;
            return &old->frags[k];
        }
    return NULL;
}

/* The line where f starts. rows_are_lines: the text has no lone '\r', so the tree's rows
 * ('\n' only) are the document's lines and no lookup in the line index is needed. */
static uint32_t sym_func_line(const struct sym_opts *s, const doc *d, const an_function *f,
                              bool rows_are_lines)
{
    size_t len = doc_length(d);
    struct doc_pos p = {f->span.start_row, 0};
    if (!rows_are_lines || f->span.start_byte > len)
        doc_position_at(d, s->enc, f->span.start_byte > len ? (uint32_t)len : f->span.start_byte,
                        &p);
    return p.line;
}

/* Appends function i of m to c as a new fragment (after a comma unless it is the first),
 * copied from old (may be NULL) when it has it (*j: see sym_find), else rendered. */
static int sym_append(const struct sym_opts *s, const doc *d, const an_model *m, size_t i,
                      uint32_t line, const struct sym_cache *old, size_t *j, struct sym_cache *c)
{
    const an_function *f = &m->funcs[i];
    int rc = sym_grow(&c->frags, &c->cap_frags, c->n_frags + 1, sizeof(*c->frags));
    if (!rc && i)
        rc = hk_buf_appends(&c->b, ",");
    if (rc)
        return rc;
    struct sym_frag *fr = &c->frags[c->n_frags];
    fr->gen = f->gen;
    if (f->gen > c->max_gen)
        c->max_gen = f->gen;
    fr->off = (uint32_t)c->b.len;
    fr->line = line;
    fr->num0 = (uint32_t)c->n_nums;
    c->line0 = line;
    c->frag0 = fr->off;
    const struct sym_frag *was = sym_find(old, f, j);
    rc = was ? sym_copy(c, old, was, line) : jw_function(s, d, m, f, c);
    fr->len = (uint32_t)(c->b.len - fr->off);
    fr->n_num = (uint32_t)(c->n_nums - fr->num0);
    c->n_frags++;
    return rc;
}

/* Renders the reply for model m of d into c (empty on entry), reusing old (may be
 * NULL) where the functions are the same. lines: each function's start line. */
static int sym_render(const struct sym_opts *s, const doc *d, const an_model *m,
                      const uint32_t *lines, const struct sym_cache *old, struct sym_cache *c)
{
    static const char room[SYM_ROOM];
    hk_buf_init(&c->b, SYM_MAX_REPLY);
    c->enc = s->enc;
    c->hier = s->cl_hier_symbols;
    if (old && (old->enc != c->enc || old->hier != c->hier || !old->b.data))
        old = NULL;
    int rc = HK_OK;
    if (old) {
        /* about the old reply's size: no regrowing (and copying) a megabyte as it fills */
        size_t cap = old->b.len + old->b.len / 8 + 256;
        c->b.data = hk_malloc(cap);
        if (!c->b.data)
            return HK_ENOMEM;
        c->b.data[0] = '\0';
        c->b.cap = cap;
    }
    rc = hk_buf_append(&c->b, room, sizeof room);
    if (!rc)
        rc = hk_buf_appends(&c->b, "[");
    if (!rc)
        rc = sym_grow(&c->frags, &c->cap_frags, m->n_funcs, sizeof(*c->frags));
    size_t j = 0;
    for (size_t i = 0; !rc && i < m->n_funcs; i++)
        rc = sym_append(s, d, m, i, lines[i], old, &j, c);
    if (!rc)
        rc = hk_buf_appends(&c->b, "] "); /* the space: rpc's spare byte */
    return rc;
}

static uint32_t digits(uint32_t v)
{
    uint32_t n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Brings c, the reply of an earlier model rendered with the same settings, up to model
 * m in place when m's functions are c's with one contiguous run replaced (what an
 * incremental rebuild leaves): the run is rendered anew and spliced in, the functions
 * after it get their new line numbers written over the old digits. *done false: the
 * shape does not allow it (c unchanged; render instead). HK_OK or HK_ENOMEM/HK_ETOOBIG
 * (c unchanged). */
static int sym_patch(const struct sym_opts *s, const doc *d, const an_model *m,
                     const uint32_t *lines, struct sym_cache *c, bool *done)
{
    *done = false;
    size_t n_old = c->n_frags, n_new = m->n_funcs, lo = 0, k = 0;
    while (lo < n_old && lo < n_new && c->frags[lo].gen == m->funcs[lo].gen &&
           c->frags[lo].line == lines[lo])
        lo++;
    while (k < n_old - lo && k < n_new - lo &&
           c->frags[n_old - 1 - k].gen == m->funcs[n_new - 1 - k].gen)
        k++;
    /* the first function after the run is preceded by a comma in both, or in neither */
    if ((n_old - k > 0) != (n_new - k > 0))
        return HK_OK;
    /* the functions after the run: their new numbers must have the old widths */
    for (size_t t = 0; t < k; t++) {
        const struct sym_frag *fr = &c->frags[n_old - k + t];
        uint32_t line = lines[n_new - k + t];
        if (line == fr->line)
            continue;
        for (uint32_t q = 0; q < fr->n_num; q++) {
            const struct sym_num *nm = &c->nums[fr->num0 + q];
            if ((uint64_t)line + nm->rel > UINT32_MAX || digits(line + nm->rel) != nm->len)
                return HK_OK;
        }
    }

    /* the run, rendered on its own */
    struct sym_cache t;
    memset(&t, 0, sizeof(t));
    hk_buf_init(&t.b, SYM_MAX_REPLY);
    int rc = HK_OK;
    size_t j = 0;
    for (size_t i = lo; !rc && i < n_new - k; i++)
        rc = sym_append(s, d, m, i, lines[i], NULL, &j, &t);
    /* bytes [a, z) of c, the old run with its commas, give way to t's text */
    size_t end = c->b.len - 2;               /* where "] " starts */
    size_t a = lo < n_old ? c->frags[lo].off - (lo > 0) : end;
    size_t z = k ? c->frags[n_old - k].off - (n_old - k > 0) : end;
    if (a > z)
        a = z;                               /* no old run: t goes in at z */
    size_t nums_a = lo < n_old ? c->frags[lo].num0 : c->n_nums;
    size_t nums_z = k ? c->frags[n_old - k].num0 : c->n_nums;
    if (nums_a > nums_z)
        nums_a = nums_z;
    long delta = (long)t.b.len - (long)(z - a);
    long dnum = (long)t.n_nums - (long)(nums_z - nums_a);
    size_t n_frags = lo + t.n_frags + k, n_nums = c->n_nums + dnum;
    if (!rc && c->b.len + delta > SYM_MAX_REPLY + SYM_ROOM + 2)
        rc = HK_ETOOBIG;
    if (!rc && delta > 0) {
        size_t need = c->b.len + (size_t)delta + 1;
        if (need > c->b.cap) {
            char *p = hk_realloc(c->b.data, need + need / 16);
            if (!p)
                rc = HK_ENOMEM;
            else {
                c->b.data = p;
                c->b.cap = need + need / 16;
            }
        }
    }
    if (!rc)
        rc = sym_grow(&c->frags, &c->cap_frags, n_frags, sizeof(*c->frags));
    if (!rc)
        rc = sym_grow(&c->nums, &c->cap_nums, n_nums, sizeof(*c->nums));
    if (rc) {
        sym_cache_clear(&t);
        return rc;
    }
    /* text */
    memmove(c->b.data + z + delta, c->b.data + z, c->b.len - z);
    if (t.b.len)
        memcpy(c->b.data + a, t.b.data, t.b.len);
    c->b.len += delta;
    c->b.data[c->b.len] = '\0';
    /* line numbers: the run's replace the old run's; the rest keep theirs */
    memmove(c->nums + nums_z + dnum, c->nums + nums_z, (c->n_nums - nums_z) * sizeof(*c->nums));
    if (t.n_nums)
        memcpy(c->nums + nums_a, t.nums, t.n_nums * sizeof(*c->nums));
    c->n_nums = n_nums;
    /* fragments */
    memmove(c->frags + lo + t.n_frags, c->frags + n_old - k, k * sizeof(*c->frags));
    for (size_t i = 0; i < t.n_frags; i++) {
        struct sym_frag fr = t.frags[i];
        fr.off += (uint32_t)a;
        fr.num0 += (uint32_t)nums_a;
        c->frags[lo + i] = fr;
    }
    if (t.max_gen > c->max_gen)
        c->max_gen = t.max_gen;
    c->n_frags = n_frags;
    for (size_t i = lo + t.n_frags; i < n_frags; i++) {
        struct sym_frag *fr = &c->frags[i];
        fr->off = (uint32_t)((long)fr->off + delta);
        fr->num0 = (uint32_t)((long)fr->num0 + dnum);
        uint32_t line = lines[i];
        if (line == fr->line)
            continue;
        fr->line = line;
        for (uint32_t q = 0; q < fr->n_num; q++) {
            const struct sym_num *nm = &c->nums[fr->num0 + q];
            uint32_t v = line + nm->rel;
            char *p = c->b.data + fr->off + nm->off + nm->len;
            for (uint32_t w = 0; w < nm->len; w++, v /= 10)
                *--p = (char)('0' + v % 10);
        }
    }
    sym_cache_clear(&t);
    *done = true;
    return HK_OK;
}

int lsp_symbols_refresh(an_doc *an, const doc *d, enum doc_encoding enc, bool hier)
{
    const struct sym_opts o = {enc, hier}, *s = &o;
    const an_model *m = an_doc_model(an);
    struct sym_cache *old = an_doc_user(an);
    uint64_t id = an_doc_model_id(an);
    bool same = old && old->enc == enc && old->hier == hier && old->b.data;
    if (same && old->model_id == id)
        return HK_OK;
    if (old && old->lease && atomic_load(&old->lease->refs) == 1) {
        hk_free(old->lease); /* no write holds the text any more: the cache's again */
        old->lease = NULL;
    }
    bool lent = old && old->lease;
    /* Without a lone '\r' the document's lines are the tree's rows ('\n' only). */
    bool rows_are_lines = doc_line_count(d) == an_doc_rows(an) + 1;
    uint32_t *lines = hk_malloc((m->n_funcs ? m->n_funcs : 1) * sizeof(*lines));
    struct sym_cache *c = NULL;
    bool done = false;
    int rc = lines ? HK_OK : HK_ENOMEM;
    for (size_t i = 0; !rc && i < m->n_funcs; i++)
        lines[i] = sym_func_line(s, d, &m->funcs[i], rows_are_lines);
    if (!rc && same && !lent)
        rc = sym_patch(s, d, m, lines, old, &done);
    if (!rc && done) {
        c = old;
    } else if (!rc) {
        c = hk_calloc(1, sizeof(*c));
        rc = c ? sym_render(s, d, m, lines, old, c) : HK_ENOMEM;
    }
    hk_free(lines);
    if (rc) {
        if (c != old)
            sym_cache_free(c);
        return rc;
    }
    c->model_id = id;
    if (c != old) {
        sym_cache_fit(c);
        an_doc_set_user(an, c, sym_cache_free); /* frees old */
    }
    return HK_OK;
}

void lsp_symbols_reply(struct lsp_server *s, rpc_call *call, an_doc *an, const doc *d)
{
    /* usually rendered on the pool already, right after the parse (textsync.c) */
    struct sym_cache *c0 = an_doc_user(an);
    uint64_t id0 = c0 ? c0->model_id : 0;
    int rc = lsp_symbols_refresh(an, d, s->enc, s->cl_hier_symbols);
    struct sym_cache *c1 = an_doc_user(an);
    if (c1 != c0 || (c1 && c1->model_id != id0)) /* the loop watch names it */
        lsp_loopwatch_note(s->loopwatch, "(symbols rendered on the loop)"); /* i18n: not for people (loopStats' label) */
    if (rc) {
        rpc_call_error(call, rc, NULL);
        return;
    }
    struct sym_cache *c = an_doc_user(an);
    if (!c->lease && (c->lease = hk_malloc(sizeof *c->lease)) != NULL) {
        atomic_init(&c->lease->refs, 1);
        c->lease->text = c->b.data;
    }
    if (!c->lease) {
        rpc_call_reply_inplace(call, c->b.data, SYM_ROOM, c->b.len - SYM_ROOM - 1);
        return;
    }
    /* no copy: the writes read the cache's text (a 1.1 MB copy after a trim was hundreds
     * of page faults on the loop) */
    atomic_fetch_add(&c->lease->refs, 1);
    rpc_call_reply_lent(call, c->b.data + SYM_ROOM, c->b.len - SYM_ROOM - 1, sym_lease_put,
                        c->lease);
}
