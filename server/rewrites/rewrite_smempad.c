/* shared_padding: a statically sized __shared__ array of 4-byte words whose accesses stride
 * threadIdx.x by a power of two (two or more words) puts a warp's lanes into the same few of
 * the 32 banks, and the accesses replay: the work-efficient up-sweep/down-sweep scan, whose
 * tree indices offset * (2 * t + 1) - 1 stride 2 * offset words, is 2- to 16-way conflicted
 * on every level; a tile read down its columns (`tile[threadIdx.x][k]`, 32 words a row) is
 * 32-way conflicted. The rewrite pads the array:
 *   - 1-D `T s[N]`: every access s[e] becomes s[(e) + ((e) >> 5)] and the size
 *     (N) + ((N) >> 5): one spare word after every 32, so that lanes 32 words apart land in
 *     neighbouring banks;
 *   - 2-D `T s[R][C]` read down its columns: `T s[R][(C) + 1]`, each row one word longer,
 *     and the accesses unchanged (the compiler linearises them with the new row length).
 * Bit-identical by construction: e -> e + (e >> 5) (e >= 0) and (r, c) -> r * (C + 1) + c are
 * one-to-one maps of the elements into a larger array, so every element is stored and read
 * at its own new address and no value changes. NVIDIA's shared memory and the LDS of AMD's
 * gfx9 (CDNA) both have 32 banks of 4-byte words, so the same padding serves both.
 *
 * It applies when the kernel model (server/model/) shows an access of the array whose
 * coefficient of threadIdx.x is a power of two of 2 or more words: a known constant, or for
 * a 1-D array a power of two times a tree stride (a local the loop steps geometrically,
 * km_local.geometric_in, or a geometric loop's variable). A 2-D array needs a known column
 * count C that is even and a coefficient that is a multiple of it (a column read). An array
 * with only unit-stride accesses is left alone: padding would add conflicts to an unaligned
 * `s[t + 16]`; so is an access under a guard `threadIdx.x == c` (its lanes share one x).
 * It refuses, with the construct and its line: extern (dynamic) shared memory,
 * an element type other than a 4-byte word, three or more dimensions, the array's address
 * taken or decayed to a pointer (`&s[i]`, `s` passed, `s + i`, a row `s[i]` of a 2-D array),
 * `sizeof` of it, a 1-D index with side effects (++, --, an assignment, a call: it is written
 * twice), an index that reads the array itself, a #define that mentions it (accesses the
 * rewrite cannot see), and a padded size past the 48 KiB of static shared memory. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define SP_ARRAYS_MAX 8
#define SP_STATIC_SMEM_MAX (48 * 1024)

static const char name[] = "shared_padding";

/* One candidate array: its declaration's tokens and what the model says of its strides. */
typedef struct {
    const km_local *loc;
    size_t decl;            /* the name's token in the declaration */
    size_t d0a, d0b, d1a, d1b; /* the extents' tokens [a, b) (d1: 2-D only) */
    int dims;
    int64_t cols;           /* 2-D: C's value, 0 when not known */
    int64_t stride;         /* the evidence: the coefficient's value, or its power-of-two factor */
    bool symbolic;          /* ... times a tree stride */
    uint32_t line;          /* of the access that strides */
} sp_array;

static bool pow2(int64_t v) { return v >= 2 && (v & (v - 1)) == 0; }

/* The statement start before token k: the token after the last `;`, `{` or `}`. */
static size_t stmt_start(const rw_toks *ts, size_t k)
{
    while (k > 0 && !rwl_tok_is(ts, k - 1, ";") && !rwl_tok_is(ts, k - 1, "{") &&
           !rwl_tok_is(ts, k - 1, "}"))
        k--;
    return k;
}

/* Is the element type of the declaration starting at s (up to its first declarator) a
 * 4-byte word? Its words into type (n bytes). */
static bool word_type(const rw_toks *ts, size_t s, size_t decl, char *type, size_t n)
{
    static const char *const quals[] = {"__shared__", "static", "volatile", "extern", "const"};
    static const char *const ok[] = {"float", "int", "unsigned", "unsigned int", "signed",
                                     "signed int", "uint32_t", "int32_t", "uint"};
    type[0] = 0;
    for (size_t q = s; q < decl; q++) {
        if (ts->t[q].kind != T_IDENT)
            break;
        bool skip = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(quals); i++)
            skip |= rwl_tok_is_ident(ts, q, quals[i]);
        if (rwl_tok_is_ident(ts, q, "__align__") || rwl_tok_is_ident(ts, q, "alignas")) {
            size_t c = rwl_match_close(ts, q + 1);
            if (c >= decl)
                break;
            q = c;
            continue;
        }
        if (skip)
            continue;
        if (q + 1 < ts->n && (rwl_tok_is(ts, q + 1, "[") || rwl_tok_is(ts, q + 1, ",") ||
                              rwl_tok_is(ts, q + 1, ";")))
            break; /* the first declarator */
        size_t l = strlen(type), w = ts->t[q].end - ts->t[q].start;
        if (l + w + 2 >= n)
            break;
        snprintf(type + l, n - l, "%s%.*s", l ? " " : "", (int)w, ts->text + ts->t[q].start);
    }
    for (size_t i = 0; i < HK_ARRAY_LEN(ok); i++)
        if (!strcmp(type, ok[i]))
            return true;
    return false;
}

/* The value of the extent [a, b): one number, or one named constant the model knows. */
static int64_t extent_value(const rw_toks *ts, const km_kernel *k, size_t a, size_t b)
{
    if (b != a + 1)
        return 0;
    char *t = rwl_tok_text(ts, a, b);
    if (!t)
        return 0;
    int64_t v = 0;
    if (ts->t[a].kind == T_NUMBER) {
        char *e;
        long long x = strtoll(t, &e, 0);
        v = (*e == 0 || *e == 'u' || *e == 'U') ? x : 0;
    } else {
        size_t na;
        const km_atom *as = km_atoms(k, &na);
        for (size_t i = 0; i < na; i++)
            if (as[i].kind == KM_ATOM_CONST && as[i].has_value && as[i].name &&
                !strcmp(as[i].name, t))
                v = as[i].value;
    }
    hk_free(t);
    return v;
}

/* Does atom a stand for a tree's stride: a local a loop steps geometrically, or the
 * variable of a geometric loop? */
static bool tree_stride_atom(const km_kernel *k, uint32_t a)
{
    size_t n;
    const km_atom *at = &km_atoms(k, &n)[a];
    if (at->kind == KM_ATOM_LOOP && at->loop >= 0) {
        size_t nl;
        const km_loop *ls = km_loops(k, &nl);
        return (size_t)at->loop < nl && ls[at->loop].kind == KM_LOOP_GEOMETRIC;
    }
    if (at->kind != KM_ATOM_VAR)
        return false;
    const km_local *ls = km_locals(k, &n);
    for (size_t i = 0; i < n; i++)
        if (ls[i].kind == KM_LOCAL_VAR && ls[i].geometric_in && ls[i].form.n == 1 &&
            ls[i].form.t[0].n == 1 && ls[i].form.t[0].atoms[0] == a)
            return true;
    return false;
}

/* The model's evidence of bank conflicts for array p: an access whose threadIdx.x
 * coefficient is a power of two >= 2 (a multiple of an even C for a 2-D array), or for a
 * 1-D array a power of two >= 2 times tree strides. */
static bool strided(const km_kernel *k, sp_array *p)
{
    uint32_t tx;
    if (!km_builtin_atom(k, KM_ATOM_THREAD_IDX, 0, &tx))
        return false;
    size_t n, ng;
    const km_access *as = km_accesses(k, &n);
    const km_guard *gs = km_guards(k, &ng);
    for (size_t i = 0; i < n; i++) {
        const km_access *a = &as[i];
        if (a->space != KM_SPACE_SHARED || strcmp(a->buffer, p->loc->name) != 0)
            continue;
        /* under `threadIdx.x == c` the lanes that access are pinned to one x (Rodinia
         * backprop's `if (tx == 0) ... = weight_matrix[tx][ty]`): no stride across lanes */
        bool pinned = false;
        for (uint32_t g = 0; g < a->n_guards && !pinned; g++) {
            const km_guard *gd = &gs[a->guards[g]];
            pinned = !strcmp(gd->op, "==") &&
                     (km_form_mentions(k, gd->lhs, tx) || km_form_mentions(k, gd->rhs, tx));
        }
        if (pinned)
            continue;
        km_term t[8];
        uint32_t nt;
        if (!km_form_coefficient(k, a->index, tx, t, HK_ARRAY_LEN(t), &nt) || nt == 0)
            continue;
        int64_t v;
        if (km_form_value(k, (km_form){t, nt}, &v)) {
            v = v < 0 ? -v : v;
            bool ok = p->dims == 1 ? pow2(v)
                                   : p->cols > 0 && p->cols % 2 == 0 && v % p->cols == 0;
            if (ok) {
                p->stride = v;
                p->symbolic = false;
                p->line = a->line;
                return true;
            }
            continue;
        }
        if (p->dims != 1 || nt != 1)
            continue;
        int64_t c = t[0].coef < 0 ? -t[0].coef : t[0].coef;
        bool ok = pow2(c) && t[0].n > 0;
        for (uint32_t j = 0; ok && j < t[0].n; j++)
            ok = tree_stride_atom(k, t[0].atoms[j]);
        if (ok && !p->line) {
            p->stride = c;
            p->symbolic = true;
            p->line = a->line;
        }
    }
    return p->line != 0;
}

static bool word_char(char ch)
{
    return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

/* Does a #define of the file mention name as a word? Its line into *line. */
static bool macro_mentions(const char *text, size_t len, const char *nm, int *line)
{
    size_t nl = strlen(nm);
    for (size_t at = 0; at < len;) {
        size_t e = at;
        while (e < len && text[e] != '\n')
            e++;
        while (e + 1 < len && e > at && text[e - 1] == '\\')
            for (e++; e < len && text[e] != '\n';)
                e++;
        size_t p = at;
        while (p < e && (text[p] == ' ' || text[p] == '\t'))
            p++;
        if (p < e && text[p] == '#') {
            size_t q = p + 1;
            while (q < e && (text[q] == ' ' || text[q] == '\t'))
                q++;
            if (e - q > 6 && !strncmp(text + q, "define", 6)) {
                q += 6;
                while (q < e && (text[q] == ' ' || text[q] == '\t'))
                    q++;
                while (q < e && word_char(text[q]))
                    q++; /* the macro's own name */
                for (size_t s = q; s + nl <= e; s++) {
                    if (memcmp(text + s, nm, nl) != 0)
                        continue;
                    if (!word_char(text[s - 1]) && !(s + nl < len && word_char(text[s + nl]))) {
                        *line = rwl_line_at(text, p);
                        return true;
                    }
                }
            }
        }
        at = e + 1;
    }
    return false;
}

/* Side effects in [a, b): ++, --, an assignment, a call (an identifier before `(`). The
 * first one's text into what. */
static size_t side_effect(const rw_toks *ts, size_t a, size_t b)
{
    for (size_t q = a; q < b; q++) {
        if (rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--") || rwl_tok_is_assign_op(ts, q))
            return q;
        if (ts->t[q].kind == T_IDENT && q + 1 < b && rwl_tok_is(ts, q + 1, "(") &&
            !rwl_is_type_word(ts, q))
            return q;
    }
    return b;
}

/* Checks every use of p in the body and adds its edits; a refusal into why (false). */
static bool pad_array(const char *text, size_t len, const rw_toks *ts, const sp_array *all,
                      size_t nall, const sp_array *p, rw_edits *es, char *why, size_t nwhy, int *rc)
{
    const char *nm = p->loc->name;
    int mline;
    if (macro_mentions(text, len, nm, &mline)) {
        snprintf(why, nwhy, EN(RW_SP_MACRO), mline, nm);
        return false;
    }
    for (size_t k = 1; k < ts->n; k++) {
        if (k == p->decl || !rwl_tok_is_ident(ts, k, nm) || !rwl_is_use(ts, k))
            continue;
        int line = rwl_line_at(text, ts->t[k].start);
        if (rwl_tok_is_ident(ts, k - 1, "sizeof") ||
            (k > 1 && rwl_tok_is(ts, k - 1, "(") && rwl_tok_is_ident(ts, k - 2, "sizeof"))) {
            snprintf(why, nwhy, EN(RW_SP_SIZEOF), line, nm);
            return false;
        }
        size_t c0 = rwl_tok_is(ts, k + 1, "[") ? rwl_match_close(ts, k + 1) : ts->n;
        size_t c1 = c0 + 1 < ts->n && rwl_tok_is(ts, c0 + 1, "[") ? rwl_match_close(ts, c0 + 1) : ts->n;
        bool whole = c0 < ts->n && (p->dims == 1 || c1 < ts->n);
        if (!whole || (rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1))) {
            size_t e = whole ? (p->dims == 1 ? c0 : c1) + 1 : k + 1;
            char *t = rwl_tok_text(ts, rwl_tok_is(ts, k - 1, "&") ? k - 1 : k, e < ts->n ? e : ts->n);
            snprintf(why, nwhy, EN(RW_SP_ADDRESS), line, nm, t ? t : nm);
            hk_free(t);
            return false;
        }
        size_t end = p->dims == 1 ? c0 : c1;
        for (size_t q = k + 2; q < end; q++)
            for (size_t o = 0; o < nall; o++)
                if (rwl_tok_is_ident(ts, q, all[o].loc->name)) {
                    /* its own elements, or another padded array's (nested edits) */
                    snprintf(why, nwhy, EN(RW_SP_NESTED), line, nm, all[o].loc->name);
                    return false;
                }
        if (p->dims != 1)
            continue;
        size_t s = side_effect(ts, k + 2, c0);
        if (s < c0) {
            char *t = rwl_tok_text(ts, s, s + 1);
            snprintf(why, nwhy, EN(RW_SP_SIDE), line, nm, t ? t : "?");
            hk_free(t);
            return false;
        }
        if (c0 == k + 2)
            continue;
        char *e = hk_strndup(text + ts->t[k + 2].start, ts->t[c0 - 1].end - ts->t[k + 2].start);
        char *r = e ? hk_asprintf("(%s) + ((%s) >> 5)", e, e) : NULL;
        hk_free(e);
        if (!r || (*rc = rwl_edits_add_owned(es, ts->t[k + 2].start, ts->t[c0 - 1].end, r))) {
            if (!r)
                *rc = HK_ENOMEM;
            return false;
        }
    }
    /* the declaration's size */
    size_t a = p->dims == 1 ? p->d0a : p->d1a, b = p->dims == 1 ? p->d0b : p->d1b;
    char *e = hk_strndup(text + ts->t[a].start, ts->t[b - 1].end - ts->t[a].start);
    char *r = !e ? NULL : p->dims == 1 ? hk_asprintf("(%s) + ((%s) >> 5)", e, e) : hk_asprintf("(%s) + 1", e);
    hk_free(e);
    if (!r) {
        *rc = HK_ENOMEM;
        return false;
    }
    if ((*rc = rwl_edits_add_owned(es, ts->t[a].start, ts->t[b - 1].end, r)))
        return false;
    return true;
}

static int shared_padding(const rw_context *c, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(c->text, c->len, c->m, c->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    km_kernel *km = NULL;
    char why[600] = "";
    struct hk_buf names;
    hk_buf_init(&names, 1024);
    if ((rc = rwl_open_body(c->text, c->len, f, true, &ts, &km, why, sizeof why)) || why[0])
        goto refuse;
    size_t nloc;
    const km_local *ls = km_locals(km, &nloc);
    sp_array arr[SP_ARRAYS_MAX];
    size_t narr = 0, padded = 0;
    int first_line = 0;
    for (size_t i = 0; i < nloc && narr < SP_ARRAYS_MAX; i++) {
        const km_local *l = &ls[i];
        if (l->kind != KM_LOCAL_ARRAY || l->space != KM_SPACE_SHARED)
            continue;
        if (!first_line)
            first_line = (int)l->line;
        sp_array p = {.loc = l, .decl = ts.n};
        for (size_t k = 0; k < ts.n; k++)
            if (rwl_tok_is_ident(&ts, k, l->name) && rwl_tok_is(&ts, k + 1, "[") &&
                (uint32_t)rwl_line_at(c->text, ts.t[k].start) == l->line) {
                p.decl = k;
                break;
            }
        if (p.decl >= ts.n)
            continue;
        size_t s = stmt_start(&ts, p.decl);
        bool ext = false;
        for (size_t q = s; q < p.decl; q++)
            ext |= rwl_tok_is_ident(&ts, q, "extern");
        /* the extents */
        size_t q = p.decl + 1;
        while (q < ts.n && rwl_tok_is(&ts, q, "[")) {
            size_t cl = rwl_match_close(&ts, q);
            if (cl >= ts.n)
                break;
            if (p.dims == 0)
                p.d0a = q + 1, p.d0b = cl;
            else if (p.dims == 1)
                p.d1a = q + 1, p.d1b = cl;
            p.dims++;
            q = cl + 1;
        }
        int line = (int)l->line;
        if (ext || !l->form.n || p.d0a == p.d0b) {
            if (!why[0])
                snprintf(why, sizeof why, EN(RW_SP_EXTERN), line, l->name);
            continue;
        }
        if (p.dims > 2) {
            if (!why[0])
                snprintf(why, sizeof why, EN(RW_SP_DIMS), line, l->name, p.dims);
            continue;
        }
        if (p.dims == 2)
            p.cols = extent_value(&ts, km, p.d1a, p.d1b);
        if (!strided(km, &p))
            continue; /* nothing to gain (said below when no array has it) */
        char type[64];
        if (!word_type(&ts, s, p.decl, type, sizeof type)) {
            if (!why[0])
                snprintf(why, sizeof why, EN(RW_SP_TYPE), line, l->name, type[0] ? type : "?");
            continue;
        }
        int64_t count;
        if (km_form_value(km, l->form, &count)) {
            int64_t words = p.dims == 1 ? count + (count >> 5) : count / (p.cols ? p.cols : 1) * ((p.cols ? p.cols : count) + 1);
            if (words * 4 > SP_STATIC_SMEM_MAX) {
                if (!why[0])
                    snprintf(why, sizeof why, EN(RW_SP_SIZE), line, l->name, (long long)words * 4);
                continue;
            }
        }
        arr[narr++] = p;
    }
    for (size_t i = 0; i < narr; i++) {
        char w[600] = "";
        size_t before = es.n;
        if (!pad_array(c->text, c->len, &ts, arr, narr, &arr[i], &es, w, sizeof w, &rc)) {
            if (rc)
                goto out;
            while (es.n > before) /* this array's edits go back */
                hk_free(es.e[--es.n].repl);
            if (!why[0])
                snprintf(why, sizeof why, "%s", w);
            continue;
        }
        const sp_array *p = &arr[i];
        char ev[160];
        if (p->symbolic)
            snprintf(ev, sizeof ev, "%lld * 2^k", (long long)p->stride);
        else
            snprintf(ev, sizeof ev, "%lld", (long long)p->stride);
        if ((rc = hk_buf_printf(&names, EN(RW_SP_ONE), padded ? "; " : "", p->loc->name,
                                p->dims == 1 ? "s[e] -> s[e + (e >> 5)]" : "[R][C] -> [R][C + 1]",
                                ev, p->line)))
            goto out;
        padded++;
    }
    if (padded) {
        char *desc = hk_asprintf(EN(RW_SP_DESC), f->name, names.data);
        rc = rwl_finish(c->text, c->len, c->m, f->name, &es, desc, out);
        goto out;
    }
    if (!why[0]) {
        if (first_line)
            snprintf(why, sizeof why, EN(RW_SP_NO_STRIDE), first_line);
        else
            snprintf(why, sizeof why, EN(RW_SP_NO_ARRAY), rwl_line_at(c->text, f->body_span.start_byte));
    }
refuse:
    if (!rc)
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), name, f->name, why));
out:
    hk_buf_free(&names);
    km_free(km);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static int emit_shared_padding(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return shared_padding(c, out);
}

const rw_descriptor rw_shared_padding_desc = {
    .name = "shared_padding",
    .summary = "a __shared__ array of 4-byte words accessed at a power-of-two stride across " /* i18n: not for people */
               "threadIdx.x padded one word in 32 (1-D) or one column (2-D): no bank conflicts, exact",
    .flags = 0,
    .emit = emit_shared_padding,
};
