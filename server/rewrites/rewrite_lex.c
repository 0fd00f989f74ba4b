/* The rewrites' shared token scanner, edit list and finishing step (rewrite_lex.h). */
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"
#include "model/kmodel.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

static const char *const type_words[] = {"int", "unsigned", "signed", "long", "short", "size_t",
                                         "auto", "int64_t", "uint64_t", "int32_t", "uint32_t",
                                         "ptrdiff_t", "unsigned int", "long long"};

static const char *const decl_words[] = {"float", "double", "bool", "char", "half", "const",
                                         "__half", "__nv_bfloat16", "float2", "float4", "int2", "int4"};

/* Words that start statements which are not declarations, however they continue
 * (`return x;`, `else y = 1;`): never a type name (rwl_is_hoistable_decl). */
static const char *const stmt_words[] = {"return", "goto", "else", "do", "if", "for", "while",
                                         "switch", "case", "default", "break", "continue",
                                         "sizeof", "typedef", "throw", "delete", "new", "asm",
                                         "static_assert", "using", "namespace", "template",
                                         "typename", "operator", "struct", "class", "union",
                                         "enum", "static", "extern", "__shared__",
                                         "__syncthreads", "true", "false", "nullptr", "this"};

static const char *const punct3[] = {"<<=", ">>=", "->*", "..."};
static const char *const punct2[] = {"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
                                     "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::"};

void rwl_toks_free(rw_toks *ts)
{
    hk_free(ts->t);
    ts->t = NULL;
    ts->n = ts->cap = 0;
}

int rwl_toks_push(rw_toks *ts, uint32_t start, uint32_t end, char kind)
{
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? ts->cap * 2 : 256;
        if (cap > RW_MAX_TOKENS)
            return HK_ETOOBIG;
        rw_tok *t = hk_realloc(ts->t, cap * sizeof *t);
        if (!t)
            return HK_ENOMEM;
        ts->t = t;
        ts->cap = cap;
    }
    ts->t[ts->n++] = (rw_tok){start, end, kind};
    return HK_OK;
}

/* Tokenizes text[start, end). Comments, whitespace and preprocessor lines are skipped. */
int rwl_lex(const char *text, uint32_t start, uint32_t end, rw_toks *ts)
{
    ts->text = text;
    uint32_t i = start;
    bool line_start = true;
    while (i < end) {
        char c = text[i];
        if (c == '\n') {
            line_start = true;
            i++;
            continue;
        }
        if (isspace((unsigned char)c)) {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < end && text[i + 1] == '/') {
            while (i < end && text[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < end && text[i + 1] == '*') {
            i += 2;
            while (i + 1 < end && !(text[i] == '*' && text[i + 1] == '/'))
                i++;
            i = i + 2 < end ? i + 2 : end;
            continue;
        }
        if (c == '#' && line_start) {   /* a preprocessor line, with continuations */
            while (i < end && text[i] != '\n') {
                if (text[i] == '\\' && i + 1 < end && text[i + 1] == '\n')
                    i++;
                i++;
            }
            continue;
        }
        line_start = false;
        uint32_t s = i;
        int rc;
        if (isalpha((unsigned char)c) || c == '_') {
            while (i < end && (isalnum((unsigned char)text[i]) || text[i] == '_'))
                i++;
            rc = rwl_toks_push(ts, s, i, T_IDENT);
        } else if (isdigit((unsigned char)c) || (c == '.' && i + 1 < end && isdigit((unsigned char)text[i + 1]))) {
            while (i < end && (isalnum((unsigned char)text[i]) || text[i] == '.' || text[i] == '\'' ||
                               ((text[i] == '+' || text[i] == '-') &&
                                (text[i - 1] == 'e' || text[i - 1] == 'E' || text[i - 1] == 'p' ||
                                 text[i - 1] == 'P'))))
                i++;
            rc = rwl_toks_push(ts, s, i, T_NUMBER);
        } else if (c == '"' || c == '\'') {
            i++;
            while (i < end && text[i] != c && text[i] != '\n') {
                if (text[i] == '\\')
                    i++;
                i++;
            }
            if (i < end && text[i] == c)
                i++;
            rc = rwl_toks_push(ts, s, i > end ? end : i, T_STRING);
        } else {
            size_t l = 1;
            for (size_t k = 0; k < HK_ARRAY_LEN(punct3) && l == 1; k++)
                if (i + 3 <= end && memcmp(text + i, punct3[k], 3) == 0)
                    l = 3;
            for (size_t k = 0; k < HK_ARRAY_LEN(punct2) && l == 1; k++)
                if (i + 2 <= end && memcmp(text + i, punct2[k], 2) == 0)
                    l = 2;
            i += (uint32_t)l;
            rc = rwl_toks_push(ts, s, i, T_PUNCT);
        }
        if (rc)
            return rc;
    }
    return HK_OK;
}

bool rwl_tok_is(const rw_toks *ts, size_t k, const char *s)
{
    if (k >= ts->n)
        return false;
    size_t l = ts->t[k].end - ts->t[k].start;
    return strlen(s) == l && memcmp(ts->text + ts->t[k].start, s, l) == 0;
}

bool rwl_tok_is_ident(const rw_toks *ts, size_t k, const char *name)
{
    return k < ts->n && ts->t[k].kind == T_IDENT && rwl_tok_is(ts, k, name);
}

bool rwl_barrier_stmt(const rw_toks *ts, size_t a, size_t b)
{
    return b == a + 4 && rwl_tok_is_ident(ts, a, "__syncthreads") && rwl_tok_is(ts, a + 1, "(") &&
           rwl_tok_is(ts, a + 2, ")") && rwl_tok_is(ts, a + 3, ";");
}

bool rwl_tok_is_assign_op(const rw_toks *ts, size_t k)
{
    static const char *const ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    for (size_t i = 0; i < HK_ARRAY_LEN(ops); i++)
        if (rwl_tok_is(ts, k, ops[i]))
            return true;
    return false;
}

bool rwl_is_use(const rw_toks *ts, size_t k)
{
    return k < ts->n && ts->t[k].kind == T_IDENT &&
           !(k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->")));
}

bool rwl_same_tok(const rw_toks *ts, size_t a, size_t b)
{
    size_t la = ts->t[a].end - ts->t[a].start, lb = ts->t[b].end - ts->t[b].start;
    return la == lb && memcmp(ts->text + ts->t[a].start, ts->text + ts->t[b].start, la) == 0;
}

bool rwl_scalar_written(const rw_toks *ts, size_t k)
{
    return rwl_tok_is_assign_op(ts, k + 1) || rwl_tok_is(ts, k + 1, "++") || rwl_tok_is(ts, k + 1, "--") ||
           (k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--") ||
                      (rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1))));
}

bool rwl_has_loose_op(const rw_toks *ts, size_t a, size_t b)
{
    static const char *const loose[] = {"?", ":", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|",
                                        "&&", "||", ","};
    int depth = 0;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "["))
            depth++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]"))
            depth--;
        else if (depth == 0) {
            if (rwl_tok_is_assign_op(ts, k))
                return true;
            for (size_t i = 0; i < HK_ARRAY_LEN(loose); i++)
                if (rwl_tok_is(ts, k, loose[i]))
                    return true;
        }
    }
    return false;
}

bool rwl_reads_memory(const rw_toks *ts, size_t a, size_t b)
{
    for (size_t k = a; k < b && k < ts->n; k++) {
        if (rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "->") || (rwl_tok_is(ts, k, "*") && rwl_unary_position(ts, k)))
            return true;
        if (ts->t[k].kind == T_IDENT && ts->t[k].end - ts->t[k].start > 4 && !memcmp(ts->text + ts->t[k].start, "__ld", 4) &&
            rwl_tok_is(ts, k + 1, "("))
            return true;
    }
    return false;
}

bool rwl_written_elsewhere(const rw_toks *ts, size_t k, size_t self)
{
    for (size_t i = 0; i < ts->n; i++)
        if (i != self && rwl_same_tok(ts, i, k) && rwl_is_use(ts, i) && rwl_scalar_written(ts, i))
            return true;
    return false;
}

/* Index of the token closing the bracket at k ("(", "[", "{", or "<" for template lists),
 * or ts->n when unbalanced. */
size_t rwl_next_logic_op(const rw_toks *ts, size_t k, size_t b)
{
    int d = 0;
    for (; k < b; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "["))
            d++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]"))
            d--;
        else if (d == 0 && (rwl_tok_is(ts, k, "&&") || rwl_tok_is(ts, k, "||")))
            return k;
    }
    return b;
}

/* Is [s, e) `if (...) return;` or `if (...) { return; }`? Sets *cclose to the ')'. */
bool rwl_return_guard(const rw_toks *ts, size_t s, size_t e, size_t *cclose)
{
    if (!rwl_tok_is_ident(ts, s, "if") || !rwl_tok_is(ts, s + 1, "("))
        return false;
    size_t c = rwl_match_close(ts, s + 1);
    if (c >= e)
        return false;
    *cclose = c;
    size_t t = c + 1;
    return (rwl_tok_is_ident(ts, t, "return") && rwl_tok_is(ts, t + 1, ";") && e == t + 2) ||
           (rwl_tok_is(ts, t, "{") && rwl_tok_is_ident(ts, t + 1, "return") && rwl_tok_is(ts, t + 2, ";") &&
            rwl_tok_is(ts, t + 3, "}") && e == t + 4);
}

size_t rwl_match_close(const rw_toks *ts, size_t k)
{
    const char *open = NULL, *close = NULL;
    if (rwl_tok_is(ts, k, "(")) open = "(", close = ")";
    else if (rwl_tok_is(ts, k, "[")) open = "[", close = "]";
    else if (rwl_tok_is(ts, k, "{")) open = "{", close = "}";
    else if (rwl_tok_is(ts, k, "<")) open = "<", close = ">";
    else return ts->n;
    int depth = 0, paren = 0;
    bool angle = *open == '<';
    for (size_t i = k; i < ts->n; i++) {
        if (angle) {
            /* inside <...> only parentheses protect a '>' */
            if (rwl_tok_is(ts, i, "(")) paren++;
            else if (rwl_tok_is(ts, i, ")")) paren--;
            else if (paren == 0 && rwl_tok_is(ts, i, "<")) depth++;
            else if (paren == 0 && rwl_tok_is(ts, i, ">")) {
                if (--depth == 0)
                    return i;
            } else if (paren == 0 && rwl_tok_is(ts, i, ">>")) {
                depth -= 2;
                if (depth <= 0)
                    return i;
            } else if (rwl_tok_is(ts, i, ";") || rwl_tok_is(ts, i, "{"))
                return ts->n;
            continue;
        }
        if (rwl_tok_is(ts, i, open))
            depth++;
        else if (rwl_tok_is(ts, i, close) && --depth == 0)
            return i;
    }
    return ts->n;
}

/* true when the token before k makes a '*' or '&' at k unary (not multiplication/and). */
bool rwl_unary_position(const rw_toks *ts, size_t k)
{
    if (k == 0)
        return true;
    const rw_tok *p = &ts->t[k - 1];
    if (p->kind == T_IDENT)
        return rwl_tok_is(ts, k - 1, "return");
    if (p->kind == T_NUMBER || p->kind == T_STRING)
        return false;
    return !(rwl_tok_is(ts, k - 1, ")") || rwl_tok_is(ts, k - 1, "]"));
}

char *rwl_tok_text(const rw_toks *ts, size_t a, size_t b)
{
    if (a >= b)
        return hk_strdup("");
    return hk_strndup(ts->text + ts->t[a].start, ts->t[b - 1].end - ts->t[a].start);
}

/* Index one past the statement starting at token i (within [i, end)). */
size_t rwl_stmt_end(const rw_toks *ts, size_t i, size_t end)
{
    if (i >= end)
        return end;
    if (rwl_tok_is(ts, i, "{")) {
        size_t c = rwl_match_close(ts, i);
        return c < end ? c + 1 : end;
    }
    if (rwl_tok_is_ident(ts, i, "if") || rwl_tok_is_ident(ts, i, "for") || rwl_tok_is_ident(ts, i, "while") ||
        rwl_tok_is_ident(ts, i, "switch")) {
        size_t c = rwl_match_close(ts, i + 1);
        if (c >= end)
            return end;
        size_t e = rwl_stmt_end(ts, c + 1, end);
        if (rwl_tok_is_ident(ts, i, "if") && rwl_tok_is_ident(ts, e, "else"))
            e = rwl_stmt_end(ts, e + 1, end);
        return e;
    }
    if (rwl_tok_is_ident(ts, i, "do")) {
        size_t e = rwl_stmt_end(ts, i + 1, end);
        return rwl_stmt_end(ts, e, end);   /* while (...); */
    }
    int depth = 0;
    for (size_t k = i; k < end; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{"))
            depth++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}"))
            depth--;
        else if (depth == 0 && rwl_tok_is(ts, k, ";"))
            return k + 1;
    }
    return end;
}

bool rwl_in_nested(const rw_toks *ts, size_t a, size_t b, size_t q, bool switches)
{
    for (size_t k = a; k < q; k++) {
        bool loop = rwl_tok_is(ts, k, "for") || rwl_tok_is(ts, k, "while") || rwl_tok_is(ts, k, "do");
        bool sw = switches && rwl_tok_is(ts, k, "switch");
        if (!loop && !sw)
            continue;
        size_t e = rwl_stmt_end(ts, k, b);
        if (rwl_tok_is(ts, k, "do")) {   /* do S while (c); */
            size_t w = e;
            if (rwl_tok_is(ts, w, "while") && rwl_tok_is(ts, w + 1, "("))
                e = rwl_match_close(ts, w + 1) + 2;
        }
        if (q < e)
            return true;
    }
    return false;
}

static bool word_in(const rw_toks *ts, size_t k, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rwl_tok_is_ident(ts, k, words[i]))
            return true;
    return false;
}

bool rwl_is_type_word(const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(type_words); i++)
        if (rwl_tok_is_ident(ts, k, type_words[i]))
            return true;
    return false;
}


/* the arithmetic types a functional cast `T(x)` may name besides type_words */
static const char *const cast_words[] = {"float", "double", "bool", "char", "half", "__half", "__nv_bfloat16"};

bool rwl_is_cast_word(const rw_toks *ts, size_t k)
{
    return rwl_is_type_word(ts, k) || word_in(ts, k, cast_words, HK_ARRAY_LEN(cast_words));
}

bool rwl_starts_declaration(const rw_toks *ts, size_t q)
{
    return rwl_is_type_word(ts, q) || word_in(ts, q, decl_words, HK_ARRAY_LEN(decl_words)) ||
           (ts->t[q].kind == T_IDENT && q + 1 < ts->n && ts->t[q + 1].kind == T_IDENT &&
            !word_in(ts, q, stmt_words, HK_ARRAY_LEN(stmt_words)));
}

bool rwl_declared_here(const rw_toks *ts, size_t d)
{
    if (d < 2 || d >= ts->n)
        return false;
    size_t p = d - 1;
    while ((rwl_tok_is(ts, p, "*") || rwl_tok_is(ts, p, "&")) && p > 1)
        p--;
    if (rwl_is_type_word(ts, p) || word_in(ts, p, decl_words, HK_ARRAY_LEN(decl_words)))
        return true;
    if (rwl_tok_is(ts, p, ",")) {
        /* a later declarator: the statement starts a declaration (`float lo = a, hi = b;`) */
        size_t q = p;
        for (int depth = 0; q > 0; q--) {
            depth += rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]");
            depth -= rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[");
            if (depth < 0 || (depth == 0 && (rwl_tok_is(ts, q - 1, ";") || rwl_tok_is(ts, q - 1, "{") ||
                                             rwl_tok_is(ts, q - 1, "}"))))
                break;
        }
        return q > 0 && rwl_starts_declaration(ts, q);
    }
    /* `T name` of a type the lists do not know: only where a statement starts, or a for
     * header (`f(a * b)` is a product, `return x` and `else x = 1` are statements). The
     * type may be qualified and templated: `cg::thread_block cta`,
     * `cg::thread_block_tile<32> warp`, `ns::Pair<float, int> p` (p goes back to its first
     * word) */
    if (rwl_tok_is(ts, p, ">")) {
        size_t q = p;
        for (int depth = 0; q > 0; q--) {
            depth += rwl_tok_is(ts, q, ">");
            depth -= rwl_tok_is(ts, q, "<");
            if (depth == 0)
                break;
            /* template arguments hold type-like tokens alone: names, `::`, `,`, `*`, `&`,
             * numbers and nested `<>`; anything else (`&&`, `[`, `(`, an arithmetic or
             * comparison operator) makes the `<`...`>` comparisons (`i < m && x[j] > lim`) */
            if (q != p && !rwl_tok_is(ts, q, "<") && !rwl_tok_is(ts, q, ">") && ts->t[q].kind != T_IDENT &&
                ts->t[q].kind != T_NUMBER && !rwl_tok_is(ts, q, "::") && !rwl_tok_is(ts, q, ",") &&
                !rwl_tok_is(ts, q, "*") && !rwl_tok_is(ts, q, "&"))
                return false;
        }
        if (q < 2 || !rwl_tok_is(ts, q, "<"))
            return false;
        p = q - 1;
    }
    while (p >= 3 && ts->t[p].kind == T_IDENT && rwl_tok_is(ts, p - 1, "::") && ts->t[p - 2].kind == T_IDENT)
        p -= 2;
    if (ts->t[p].kind != T_IDENT || word_in(ts, p, stmt_words, HK_ARRAY_LEN(stmt_words)))
        return false;
    return rwl_tok_is(ts, p - 1, ";") || rwl_tok_is(ts, p - 1, "{") || rwl_tok_is(ts, p - 1, "}") ||
           rwl_tok_is_ident(ts, p - 1, "const") ||
           (rwl_tok_is(ts, p - 1, "(") && p >= 2 && rwl_tok_is_ident(ts, p - 2, "for"));
}

bool rwl_mentions_grid(const char *t, size_t n)
{
    static const char *const w[] = {"blockIdx", "gridDim", "hipBlockIdx", "hipGridDim"};
    for (size_t q = 0; q < n; q++)
        for (size_t i = 0; i < HK_ARRAY_LEN(w); i++)
            if (n - q >= strlen(w[i]) && !memcmp(t + q, w[i], strlen(w[i])))
                return true;
    return false;
}

void rwl_line_indent(const char *text, size_t start, char *ind, size_t n)
{
    size_t ls = start;
    while (ls > 0 && (text[ls - 1] == ' ' || text[ls - 1] == '\t'))
        ls--;
    size_t il = 0;
    if ((ls == 0 || text[ls - 1] == '\n') && start - ls < n)
        il = start - ls;
    memcpy(ind, text + ls, il);
    ind[il] = '\0';
}

bool rwl_next_define(const char *text, size_t len, size_t *at, const char *name, size_t nl, size_t *a,
                     size_t *b)
{
    for (size_t i = *at; i + 7 < len; i++) {
        if (text[i] != '#')
            continue;
        /* a directive's '#' starts its line, perhaps after blanks */
        size_t l = i;
        while (l > 0 && (text[l - 1] == ' ' || text[l - 1] == '\t'))
            l--;
        if (l > 0 && text[l - 1] != '\n')
            continue;
        size_t j = i + 1;
        while (j < len && (text[j] == ' ' || text[j] == '\t'))
            j++;
        if (len - j < 7 || memcmp(text + j, "define", 6) != 0)
            continue;
        j += 6;
        while (j < len && (text[j] == ' ' || text[j] == '\t'))
            j++;
        if (len - j <= nl || memcmp(text + j, name, nl) != 0 ||
            (text[j + nl] != '(' && text[j + nl] != ' ' && text[j + nl] != '\t'))
            continue;
        size_t e = j;
        while (e < len && text[e] != '\n')
            e += text[e] == '\\' && e + 1 < len && text[e + 1] == '\n' ? 2 : 1;
        *a = j;
        *b = e;
        *at = e;
        return true;
    }
    *at = len;
    return false;
}

bool rwl_macro_mentions_grid(const char *text, size_t len, const char *name, size_t nl)
{
    size_t at = 0, a, b;
    while (rwl_next_define(text, len, &at, name, nl, &a, &b))
        if (rwl_mentions_grid(text + a, b - a))
            return true;
    return false;
}

const char *rwl_macro_text_word(const char *text, size_t len, const char *name, size_t nl,
                                const char *const *words, size_t n_words, int depth)
{
    size_t at = 0, a, b;
    const char *hit = NULL;
    if (depth <= 0)
        return NULL;
    while (!hit && rwl_next_define(text, len, &at, name, nl, &a, &b)) {
        rw_toks ts = {0};
        if (rwl_lex(text, (uint32_t)(a + nl), (uint32_t)b, &ts) != HK_OK) {
            rwl_toks_free(&ts);
            return words[0];
        }
        for (size_t k = 0; k < ts.n && !hit; k++) {
            if (ts.t[k].kind != T_IDENT)
                continue;
            for (size_t i = 0; i < n_words && !hit; i++)
                if (rwl_tok_is(&ts, k, words[i]))
                    hit = words[i];
            size_t ml = ts.t[k].end - ts.t[k].start;
            if (!hit && (ml != nl || memcmp(text + ts.t[k].start, name, nl)))
                hit = rwl_macro_text_word(text, len, text + ts.t[k].start, ml, words, n_words, depth - 1);
        }
        rwl_toks_free(&ts);
    }
    return hit;
}

bool rwl_pure_function_macro(const char *text, size_t len, const char *name, size_t nl, int depth)
{
    size_t at = 0, a, b;
    bool found = false;
    if (depth <= 0)
        return false;
    while (rwl_next_define(text, len, &at, name, nl, &a, &b)) {
        if (text[a + nl] != '(')
            return false;   /* an object-like definition of the name */
        rw_toks ts = {0};
        if (rwl_lex(text, (uint32_t)a, (uint32_t)b, &ts) != HK_OK)
            return false;
        /* the value: after the parameter list */
        size_t v = ts.n > 1 ? rwl_match_close(&ts, 1) + 1 : ts.n;
        bool ok = v <= ts.n && v < ts.n;
        for (size_t k = v; ok && k < ts.n; k++) {
            if (rwl_tok_is(&ts, k, "[") || rwl_tok_is(&ts, k, "->") || rwl_tok_is(&ts, k, "++") ||
                rwl_tok_is(&ts, k, "--") || rwl_tok_is_assign_op(&ts, k) || rwl_tok_is(&ts, k, "#") ||
                rwl_tok_is(&ts, k, "##") ||
                ((rwl_tok_is(&ts, k, "*") || rwl_tok_is(&ts, k, "&")) && (k == v || rwl_unary_position(&ts, k))))
                ok = false;
            else if (ts.t[k].kind == T_IDENT && k + 1 < ts.n && rwl_tok_is(&ts, k + 1, "(") &&
                     !rwl_pure_call_name(&ts, k) && !rwl_is_type_word(&ts, k))
                ok = rwl_pure_function_macro(text, len, text + ts.t[k].start, ts.t[k].end - ts.t[k].start, depth - 1);
        }
        rwl_toks_free(&ts);
        if (!ok)
            return false;
        found = true;
    }
    return found;
}

/* Does the token at k (an occurrence of the pointer's name) possibly write through it?
 * Reads are `name[...]` and `*name`/`*(name ...)` not followed by an assignment; every
 * other use (address taken, passed on, copied into another pointer) counts as a write,
 * because this scan cannot follow it. */
bool rwl_occurrence_writes(const rw_toks *ts, size_t k)
{
    if (k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--")))
        return true;
    if (k > 0 && rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1))
        return true;
    size_t after, first;   /* the token after the lvalue, and its first token */
    if (rwl_tok_is(ts, k + 1, "[")) {
        size_t close = rwl_match_close(ts, k + 1);
        if (close >= ts->n)
            return true;
        after = close + 1;
        first = k;
    } else if (k > 0 && rwl_tok_is(ts, k - 1, "*") && rwl_unary_position(ts, k - 1)) {
        after = k + 1;
        first = k - 1;
    } else if (k > 1 && rwl_tok_is(ts, k - 1, "(") && rwl_tok_is(ts, k - 2, "*") && rwl_unary_position(ts, k - 2)) {
        /* *(name + i): the expression runs to the matching ')' */
        size_t close = rwl_match_close(ts, k - 1);
        if (close >= ts->n)
            return true;
        for (size_t i = k + 1; i < close; i++)
            if (rwl_tok_is_assign_op(ts, i) || rwl_tok_is(ts, i, "++") || rwl_tok_is(ts, i, "--"))
                return true;
        after = close + 1;
        first = k - 2;
    } else {
        return true;   /* the pointer value itself is used: it may escape */
    }
    for (;;) {
        /* skip member accesses and further subscripts: name[i].x[j] = ... */
        if ((rwl_tok_is(ts, after, ".") || rwl_tok_is(ts, after, "->")) && after + 1 < ts->n &&
            ts->t[after + 1].kind == T_IDENT) {
            after += 2;
        } else if (rwl_tok_is(ts, after, "[")) {
            size_t close = rwl_match_close(ts, after);
            if (close >= ts->n)
                return true;
            after = close + 1;
        } else if (first > 0 && rwl_tok_is(ts, first - 1, "(") && rwl_tok_is(ts, after, ")") &&
                   rwl_match_close(ts, first - 1) == after &&
                   (first < 2 || ts->t[first - 2].kind != T_IDENT || rwl_tok_is(ts, first - 2, "return") ||
                    rwl_tok_is(ts, first - 2, "else"))) {
            /* parentheses that only group the lvalue (not a call's, an if's or a while's):
             * `(*p) = v`, `(p[i])++` store through it too */
            first--;
            after++;
        } else {
            break;
        }
    }
    /* a prefix ++/-- or & before the whole lvalue: `++*p`, `--(p[i])`, `&*p` */
    if (first > 0 && (rwl_tok_is(ts, first - 1, "++") || rwl_tok_is(ts, first - 1, "--") ||
                      (rwl_tok_is(ts, first - 1, "&") && rwl_unary_position(ts, first - 1))))
        return true;
    return rwl_tok_is_assign_op(ts, after) || rwl_tok_is(ts, after, "++") || rwl_tok_is(ts, after, "--");
}

/* Does the `(` matched by the `)` at k open an if, while or for header? */
static bool closes_header(const rw_toks *ts, size_t k)
{
    int depth = 0;
    for (size_t o = k + 1; o-- > 0;) {
        if (rwl_tok_is(ts, o, ")") || rwl_tok_is(ts, o, "]") || rwl_tok_is(ts, o, "}"))
            depth++;
        else if (rwl_tok_is(ts, o, "(") || rwl_tok_is(ts, o, "[") || rwl_tok_is(ts, o, "{")) {
            if (--depth == 0)
                return rwl_tok_is(ts, o, "(") && o > 0 &&
                       (rwl_tok_is_ident(ts, o - 1, "if") || rwl_tok_is_ident(ts, o - 1, "while") ||
                        rwl_tok_is_ident(ts, o - 1, "for"));
            if (depth < 0)
                return false;
        }
    }
    return false;
}

/* Is the `(` at o (unmatched, before the step) a for header's? */
static bool opens_for(const rw_toks *ts, size_t o)
{
    return rwl_tok_is(ts, o, "(") && o > 0 && rwl_tok_is_ident(ts, o - 1, "for");
}

/* The statement starting at s (a name, or the `++`/`--` before it) moves name in place, and
 * the move ends at token e: `;`, or the `)` of a for header when the statement follows the
 * header's second `;`. */
static bool move_ends(const rw_toks *ts, size_t s, size_t e)
{
    if (s == 0)
        return false;
    size_t b = s - 1;
    bool start = rwl_tok_is(ts, b, "{") || rwl_tok_is(ts, b, "}") || rwl_tok_is_ident(ts, b, "else") ||
                 (rwl_tok_is(ts, b, ")") && closes_header(ts, b));
    if (rwl_tok_is(ts, e, ";"))
        return start || rwl_tok_is(ts, b, ";");
    if (!rwl_tok_is(ts, e, ")") || !rwl_tok_is(ts, b, ";"))
        return false;
    /* the for step: `for (init; cond; name++)`: the `(` before the two `;` */
    int depth = 0, semis = 0;
    for (size_t o = b + 1; o-- > 0;) {
        if (rwl_tok_is(ts, o, ")") || rwl_tok_is(ts, o, "]") || rwl_tok_is(ts, o, "}"))
            depth++;
        else if (rwl_tok_is(ts, o, "(") || rwl_tok_is(ts, o, "[") || rwl_tok_is(ts, o, "{")) {
            if (depth == 0)
                return semis == 2 && opens_for(ts, o);
            depth--;
        } else if (depth == 0 && rwl_tok_is(ts, o, ";"))
            semis++;
    }
    return false;
}

/* Is the occurrence at k the target of a move statement (see rwl_pointer_move)? */
static bool move_target(const rw_toks *ts, size_t k)
{
    if (!rwl_is_use(ts, k) || (k > 0 && rwl_tok_is(ts, k - 1, "::")))
        return false;
    if (k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--")))
        return move_ends(ts, k - 1, k + 1);
    if (rwl_tok_is(ts, k + 1, "++") || rwl_tok_is(ts, k + 1, "--"))
        return move_ends(ts, k, k + 2);
    size_t e0;   /* E's first token */
    bool plain = rwl_tok_is(ts, k + 1, "=");
    if (rwl_tok_is(ts, k + 1, "+=") || rwl_tok_is(ts, k + 1, "-="))
        e0 = k + 2;
    else if (plain && k + 2 < ts->n && rwl_same_tok(ts, k + 2, k) && rwl_is_use(ts, k + 2) &&
             (rwl_tok_is(ts, k + 3, "+") || rwl_tok_is(ts, k + 3, "-")))
        e0 = k + 4;
    else
        return false;
    int depth = 0;
    size_t q = e0;
    for (; q < ts->n; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{"))
            depth++;
        else if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, "}")) {
            if (depth == 0)
                break;
            depth--;
        } else if (depth == 0 && rwl_tok_is(ts, q, ";"))
            break;
        else if (depth == 0 && (rwl_tok_is(ts, q, ",") || rwl_tok_is(ts, q, "?")))
            return false;
        if ((rwl_is_use(ts, q) && rwl_same_tok(ts, q, k)) || rwl_tok_is_assign_op(ts, q) || rwl_tok_is(ts, q, "++") ||
            rwl_tok_is(ts, q, "--"))
            return false;
        if (ts->t[q].kind == T_IDENT && rwl_tok_is(ts, q + 1, "(") && !rwl_pure_call_name(ts, q) &&
            !rwl_tok_is_ident(ts, q, "sizeof"))
            return false;
    }
    if (q >= ts->n || q == e0)
        return false;
    return move_ends(ts, k, q);
}

bool rwl_pointer_move(const rw_toks *ts, size_t k)
{
    if (k >= ts->n || ts->t[k].kind != T_IDENT)
        return false;
    if (move_target(ts, k))
        return true;
    /* the base of `name = name + E;` */
    return k >= 2 && rwl_tok_is(ts, k - 1, "=") && rwl_same_tok(ts, k - 2, k) && move_target(ts, k - 2);
}

/* Whitespace-free copy of s into out (for comparing argument expressions). */
void rwl_squeeze(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (; s && *s && n + 1 < size; s++)
        if (!isspace((unsigned char)*s))
            out[n++] = *s;
    out[n] = '\0';
}

/* Is [a, b) a plain declaration `[const] TYPE name = expr, ...;` that does not mention idx
 * and changes nothing else? Appends the declared names' token indices to names. */
bool rwl_is_hoistable_decl(const rw_toks *ts, size_t a, size_t b, const char *idx,
                              size_t *names, size_t *n_names, size_t max_names)
{
    size_t k = a;
    bool typed = false;
    for (;;) {
        bool w = rwl_is_type_word(ts, k);
        for (size_t i = 0; i < HK_ARRAY_LEN(decl_words) && !w; i++)
            w = rwl_tok_is_ident(ts, k, decl_words[i]);
        if (!w)
            break;
        typed |= !rwl_tok_is_ident(ts, k, "const");
        k++;
    }
    /* a type the word lists do not know (a typedef: llm.c's `floatX *out_bt = ...;`): one
     * identifier, then `*`s, then the name and `=`; or the name right after it and `=`,
     * `;`, `,` or `[`. No expression statement reads so (`a * b = c` assigns to an rvalue,
     * `a b` is no expression), once statement words are left out. */
    if (!typed && k + 2 < b && ts->t[k].kind == T_IDENT) {
        bool word = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(stmt_words) && !word; i++)
            word = rwl_tok_is_ident(ts, k, stmt_words[i]);
        size_t q = k + 1;
        while (q < b && rwl_tok_is(ts, q, "*"))
            q++;
        bool named = q < b - 1 && ts->t[q].kind == T_IDENT && !rwl_tok_is_ident(ts, q, idx);
        if (!word && named &&
            (rwl_tok_is(ts, q + 1, "=") ||
             (q == k + 1 && (rwl_tok_is(ts, q + 1, ";") || rwl_tok_is(ts, q + 1, ",") ||
                             rwl_tok_is(ts, q + 1, "[")))))
            typed = true, k++;
    }
    if (!typed || k >= b || !rwl_tok_is(ts, b - 1, ";"))
        return false;
    int depth = 0;
    bool expect_name = true;
    size_t first_name = *n_names;
    for (size_t i = k; i < b - 1; i++) {
        if (rwl_tok_is_ident(ts, i, idx) || rwl_tok_is(ts, i, "++") || rwl_tok_is(ts, i, "--") ||
            (rwl_tok_is_assign_op(ts, i) && !rwl_tok_is(ts, i, "=")))
            goto no;
        if (rwl_tok_is(ts, i, "(") || rwl_tok_is(ts, i, "[") || rwl_tok_is(ts, i, "{"))
            depth++;
        else if (rwl_tok_is(ts, i, ")") || rwl_tok_is(ts, i, "]") || rwl_tok_is(ts, i, "}"))
            depth--;
        else if (depth == 0 && rwl_tok_is(ts, i, ","))
            expect_name = true;
        else if (depth == 0 && rwl_tok_is(ts, i, "=") && expect_name)
            goto no;   /* `= x` with no name before it: an assignment, not a declaration */
        if (expect_name && depth == 0 && ts->t[i].kind == T_IDENT) {
            if (*n_names >= max_names)
                goto no;
            names[(*n_names)++] = i;
            expect_name = false;
        } else if (expect_name && depth == 0 && !rwl_tok_is(ts, i, ",") && !rwl_tok_is(ts, i, "*")) {
            goto no;
        }
    }
    return *n_names > first_name;
no:
    *n_names = first_name;
    return false;
}

/* Compact text of tokens [a, b) with casts to integer types and parentheses around a
 * single operand removed, for matching the index formula. */
void rwl_compact_index(const rw_toks *ts, size_t a, size_t b, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "(")) {
            /* (int) / (size_t) / (unsigned long long) casts */
            size_t j = k + 1;
            while (j < b && rwl_is_type_word(ts, j))
                j++;
            if (j > k + 1 && rwl_tok_is(ts, j, ")")) {
                k = j;
                continue;
            }
            /* (blockIdx.x): parentheses around one member access */
            if (k + 4 < b && ts->t[k + 1].kind == T_IDENT && rwl_tok_is(ts, k + 2, ".") &&
                ts->t[k + 3].kind == T_IDENT && rwl_tok_is(ts, k + 4, ")")) {
                for (size_t q = k + 1; q < k + 4; q++) {
                    size_t l = ts->t[q].end - ts->t[q].start;
                    if (n + l + 1 >= size)
                        return;
                    memcpy(out + n, ts->text + ts->t[q].start, l);
                    n += l;
                }
                out[n] = '\0';
                k += 4;
                continue;
            }
        }
        if (rwl_tok_is_ident(ts, k, "static_cast") && rwl_tok_is(ts, k + 1, "<")) {
            size_t c = rwl_match_close(ts, k + 1);
            if (c < b) {
                k = c;   /* the (operand) that follows is handled as parentheses */
                continue;
            }
        }
        size_t l = ts->t[k].end - ts->t[k].start;
        if (n + l + 1 >= size)
            return;
        memcpy(out + n, ts->text + ts->t[k].start, l);
        n += l;
        out[n] = '\0';
    }
}

/* ------------------------------------------------------------------ max/min updates */

/* [*a, *b) without parentheses around all of it. */
static void mm_strip(const rw_toks *ts, size_t *a, size_t *b)
{
    while (*b > *a + 2 && rwl_tok_is(ts, *a, "(") && rwl_match_close(ts, *a) == *b - 1) {
        (*a)++;
        (*b)--;
    }
}

/* Does [a, b) use the name of token m, or change anything? */
static bool mm_mentions(const rw_toks *ts, size_t a, size_t b, size_t m)
{
    for (size_t k = a; k < b; k++)
        if (rwl_is_use(ts, k) && rwl_same_tok(ts, k, m))
            return true;
    return false;
}

bool rwl_writes_any(const rw_toks *ts, size_t a, size_t b)
{
    for (size_t k = a; k < b && k < ts->n; k++)
        if (rwl_tok_is_assign_op(ts, k) || rwl_tok_is(ts, k, "++") || rwl_tok_is(ts, k, "--"))
            return true;
    return false;
}

/* The one top-level comparison (<, >, <=, >=) of [a, b), or b: also when there are two,
 * or when another top-level operator binds looser than a comparison (so the comparison
 * would not be the whole condition). */
static size_t mm_compare_op(const rw_toks *ts, size_t a, size_t b)
{
    static const char *const looser[] = {"==", "!=", "&", "^", "|", "&&", "||", "?", ":", ","};
    size_t found = b;
    int depth = 0;
    for (size_t k = a; k < b; k++) {
        if ((rwl_tok_is(ts, k, "static_cast") || rwl_tok_is(ts, k, "reinterpret_cast")) && rwl_tok_is(ts, k + 1, "<")) {
            size_t c = rwl_match_close(ts, k + 1);
            if (c >= b)
                return b;
            k = c;
            continue;
        }
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{"))
            depth++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}"))
            depth--;
        else if (depth != 0)
            continue;
        else if (rwl_tok_is(ts, k, "<") || rwl_tok_is(ts, k, ">") || rwl_tok_is(ts, k, "<=") ||
                 rwl_tok_is(ts, k, ">=")) {
            if (found != b)
                return b;
            found = k;
        } else if (rwl_tok_is_assign_op(ts, k)) {
            return b;
        } else {
            for (size_t i = 0; i < sizeof looser / sizeof looser[0]; i++)
                if (rwl_tok_is(ts, k, looser[i]))
                    return b;
        }
    }
    return found;
}

/* Does condition [ca, cb) compare X [xa, xb) with M (token m) so that it holds exactly when
 * X is the better value? 1 for a maximum, -1 for a minimum, 0 when it is not such a test. */
static int mm_condition(const rw_toks *ts, size_t ca, size_t cb, size_t m, size_t xa, size_t xb)
{
    mm_strip(ts, &ca, &cb);
    size_t op = mm_compare_op(ts, ca, cb);
    if (op >= cb)
        return 0;
    size_t la = ca, lb = op, ra = op + 1, rb = cb;
    mm_strip(ts, &la, &lb);
    mm_strip(ts, &ra, &rb);
    bool m_left = lb == la + 1 && rwl_is_use(ts, la) && rwl_same_tok(ts, la, m);
    bool m_right = rb == ra + 1 && rwl_is_use(ts, ra) && rwl_same_tok(ts, ra, m);
    if (m_left == m_right)
        return 0;
    /* the compared value is the assigned one, token for token (a cast dropped, as
     * `(int)x > m` then `m = x`, would compare another value) */
    size_t ya = m_left ? ra : la, yb = m_left ? rb : lb;
    mm_strip(ts, &xa, &xb);
    if (xb - xa != yb - ya || xb <= xa)
        return 0;
    for (size_t i = 0; i < xb - xa; i++)
        if (!rwl_same_tok(ts, xa + i, ya + i))
            return 0;
    bool greater = rwl_tok_is(ts, op, ">") || rwl_tok_is(ts, op, ">=");
    /* X > M and M < X take the larger X; X < M and M > X the smaller */
    return greater == !m_left ? 1 : -1;
}

bool rwl_minmax_update(const rw_toks *ts, size_t a, size_t b, rwl_minmax *mm)
{
    static const char *const fns[] = {"fmaxf", "fminf", "fmax", "fmin", "max", "min"};
    memset(mm, 0, sizeof *mm);
    if (b > ts->n || b < a + 4)
        return false;
    if (rwl_tok_is(ts, a, "if") && rwl_tok_is(ts, a + 1, "(")) {
        /* if (C) M = X;  or  if (C) { M = X; } */
        size_t c = rwl_match_close(ts, a + 1), sa = c + 1, sb = b;
        if (c >= b || sa >= b)
            return false;
        if (rwl_tok_is(ts, sa, "{")) {
            if (rwl_match_close(ts, sa) != b - 1)
                return false;
            sa++;
            sb = b - 1;
        }
        if (sb < sa + 4 || rwl_stmt_end(ts, sa, sb) != sb || !rwl_tok_is(ts, sb - 1, ";") ||
            ts->t[sa].kind != T_IDENT || !rwl_tok_is(ts, sa + 1, "="))
            return false;
        size_t xa = sa + 2, xb = sb - 1;
        if (mm_mentions(ts, xa, xb, sa) || rwl_writes_any(ts, xa, xb) || rwl_writes_any(ts, a + 2, c))
            return false;
        int dir = mm_condition(ts, a + 2, c, sa, xa, xb);
        if (!dir)
            return false;
        mm->acc = sa;
        mm->xa = xa;
        mm->xb = xb;
        mm->max = dir > 0;
        return true;
    }
    if (ts->t[a].kind != T_IDENT || !rwl_tok_is(ts, a + 1, "=") || !rwl_tok_is(ts, b - 1, ";"))
        return false;
    size_t ra = a + 2, rb = b - 1;
    mm_strip(ts, &ra, &rb);
    if (rb <= ra || rwl_writes_any(ts, ra, rb))
        return false;
    /* M = F(M, X) or F(X, M) */
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        if (!rwl_tok_is(ts, ra, fns[i]) || !rwl_tok_is(ts, ra + 1, "(") || rwl_match_close(ts, ra + 1) != rb - 1)
            continue;
        size_t comma = rb;
        int depth = 0;
        for (size_t k = ra + 2; k < rb - 1; k++) {
            if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{"))
                depth++;
            else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}"))
                depth--;
            else if (depth == 0 && rwl_tok_is(ts, k, ",")) {
                if (comma != rb)
                    return false;
                comma = k;
            }
        }
        if (comma == rb)
            return false;
        size_t x0a = ra + 2, x0b = comma, x1a = comma + 1, x1b = rb - 1;
        mm_strip(ts, &x0a, &x0b);
        mm_strip(ts, &x1a, &x1b);
        bool first = x0b == x0a + 1 && rwl_same_tok(ts, x0a, a) && x1b > x1a && !mm_mentions(ts, x1a, x1b, a);
        bool second = x1b == x1a + 1 && rwl_same_tok(ts, x1a, a) && x0b > x0a && !mm_mentions(ts, x0a, x0b, a);
        if (!first && !second)
            return false;
        mm->acc = a;
        mm->xa = first ? x1a : x0a;
        mm->xb = first ? x1b : x0b;
        mm->max = strstr(fns[i], "max") != NULL;
        snprintf(mm->fn, sizeof mm->fn, "%s", fns[i]);
        return true;
    }
    /* M = C ? X : M */
    size_t q = rb, colon = rb;
    int depth = 0;
    for (size_t k = ra; k < rb; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{"))
            depth++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}"))
            depth--;
        else if (depth == 0 && rwl_tok_is(ts, k, "?")) {
            if (q != rb)
                return false;   /* a nested ?: at the top level: not this form */
            q = k;
        } else if (depth == 0 && rwl_tok_is(ts, k, ":")) {
            if (q == rb || colon != rb)
                return false;
            colon = k;
        }
    }
    if (q == rb || colon == rb)
        return false;
    size_t xa = q + 1, xb = colon, ea = colon + 1, eb = rb;
    mm_strip(ts, &xa, &xb);
    mm_strip(ts, &ea, &eb);
    if (eb != ea + 1 || !rwl_same_tok(ts, ea, a) || xb <= xa || mm_mentions(ts, xa, xb, a))
        return false;
    int dir = mm_condition(ts, ra, q, a, xa, xb);
    if (!dir)
        return false;
    mm->acc = a;
    mm->xa = xa;
    mm->xb = xb;
    mm->max = dir > 0;
    return true;
}

bool rwl_is_index_formula(const char *c)
{
    static const char *const forms[] = {
        "blockIdx.x*blockDim.x+threadIdx.x", "blockDim.x*blockIdx.x+threadIdx.x",
        "threadIdx.x+blockIdx.x*blockDim.x", "threadIdx.x+blockDim.x*blockIdx.x"};
    for (size_t i = 0; i < HK_ARRAY_LEN(forms); i++)
        if (strcmp(c, forms[i]) == 0)
            return true;
    return false;
}

void rwl_edits_free(rw_edits *es)
{
    for (size_t i = 0; i < es->n; i++)
        hk_free(es->e[i].repl);
    hk_free(es->e);
    es->e = NULL;
    es->n = es->cap = 0;
}

/* Takes ownership of repl (also on failure). */
int rwl_edits_add_owned(rw_edits *es, uint32_t start, uint32_t end, char *repl)
{
    if (!repl)
        return HK_ENOMEM;
    if (es->n == es->cap) {
        size_t cap = es->cap ? es->cap * 2 : 8;
        rw_edit *e = hk_realloc(es->e, cap * sizeof *e);
        if (!e) {
            hk_free(repl);
            return HK_ENOMEM;
        }
        es->e = e;
        es->cap = cap;
    }
    es->e[es->n++] = (rw_edit){start, end, repl};
    return HK_OK;
}

int rwl_edits_add(rw_edits *es, uint32_t start, uint32_t end, const char *repl)
{
    return rwl_edits_add_owned(es, start, end, hk_strdup(repl));
}

static int rwl_edit_cmp_desc(const void *a, const void *b)
{
    const rw_edit *x = a, *y = b;
    if (x->start != y->start)
        return x->start > y->start ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end;
}

/* Applies edits (all against the original text). They are sorted back to front, which is
 * the order the overlap check needs; the new text is then assembled front to back in one
 * buffer of the final size. Overlapping edits are a bug: HK_EINVAL. */
int rwl_edits_apply(const char *text, size_t len, rw_edits *es, char **out, size_t *out_len)
{
    if (es->n)   /* qsort of a NULL array, even empty, is undefined */
        qsort(es->e, es->n, sizeof *es->e, rwl_edit_cmp_desc);
    size_t total = len;
    for (size_t i = 0; i < es->n; i++) {
        if (es->e[i].end < es->e[i].start || es->e[i].end > len)
            return HK_EINVAL;
        if (i + 1 < es->n && es->e[i + 1].end > es->e[i].start)
            return HK_EINVAL;
        total = total - (es->e[i].end - es->e[i].start) + strlen(es->e[i].repl);
    }
    if (total > RW_TEXT_MAX)
        return HK_ETOOBIG;
    char *buf = hk_malloc(total + 1);
    if (!buf)
        return HK_ENOMEM;
    size_t o = 0, from = 0;
    for (size_t i = es->n; i-- > 0;) {
        const rw_edit *e = &es->e[i];
        memcpy(buf + o, text + from, e->start - from);
        o += e->start - from;
        size_t rl = strlen(e->repl);
        memcpy(buf + o, e->repl, rl);
        o += rl;
        from = e->end;
    }
    memcpy(buf + o, text + from, len - from);
    o += len - from;
    buf[o] = '\0';
    *out = buf;
    *out_len = o;
    return HK_OK;
}

int rwl_not_applicable(rw_result *out, char *why)
{
    if (!why)
        return HK_ENOMEM;
    out->applicable = false;
    out->description = why;
    return HK_OK;
}

int rwl_not_applicable_to(rw_result *out, const char *rewrite, const char *kernel, enum hk_msg why,
                          ...)
{
    va_list ap;
    va_start(ap, why);
    char *reason = hk_vasprintf(hk_tr_in(HK_LANG_EN, why), ap);
    va_end(ap);
    char *all = reason ? hk_asprintf(EN(RW_NOT_APPLICABLE_TO), rewrite, kernel, reason) : NULL;
    hk_free(reason);
    return rwl_not_applicable(out, all);
}

int rwl_check_kernel(const char *text, size_t len, const an_model *m, size_t kernel,
                        const an_function **f)
{
    if (!text || !m || kernel >= m->n_funcs)
        return HK_EINVAL;
    const an_function *k = &m->funcs[kernel];
    if (k->kind != AN_KERNEL || k->span.end_byte > len || k->body_span.end_byte > len ||
        k->body_span.start_byte >= k->body_span.end_byte || k->name_span.end_byte > len)
        return HK_EINVAL;
    *f = k;
    return HK_OK;
}

bool rwl_builtin_x(const rw_toks *ts, size_t k, const char *name)
{
    return rwl_tok_is_ident(ts, k, name) && k + 2 < ts->n && rwl_tok_is(ts, k + 1, ".") &&
           rwl_tok_is_ident(ts, k + 2, "x") && rwl_is_use(ts, k);
}

const an_function *rwl_callee(const an_model *m, const an_function *self, const rw_toks *ts,
                              size_t k)
{
    size_t nl = ts->t[k].end - ts->t[k].start;
    for (size_t fi = 0; fi < m->n_funcs; fi++) {
        const an_function *g = &m->funcs[fi];
        if (g != self && strlen(g->name) == nl && !memcmp(g->name, ts->text + ts->t[k].start, nl) &&
            g->body_span.end_byte > g->body_span.start_byte)
            return g;
    }
    return NULL;
}

bool rwl_template_type_param(const char *tpl, const rw_toks *ts, size_t k)
{
    if (!tpl)
        return false;
    rw_toks tt = {0};
    bool found = false;
    if (rwl_lex(tpl, 0, (uint32_t)strlen(tpl), &tt) == HK_OK)
        for (size_t q = 0; q + 1 < tt.n && !found; q++)
            found = (rwl_tok_is(&tt, q, "typename") || rwl_tok_is(&tt, q, "class")) &&
                    tt.t[q + 1].end - tt.t[q + 1].start == ts->t[k].end - ts->t[k].start &&
                    !memcmp(tpl + tt.t[q + 1].start, ts->text + ts->t[k].start, ts->t[k].end - ts->t[k].start);
    rwl_toks_free(&tt);
    return found;
}

size_t rwl_call_paren(const rw_toks *ts, size_t k)
{
    if (k + 1 >= ts->n)
        return 0;
    if (rwl_tok_is(ts, k + 1, "("))
        return k + 1;
    if (!rwl_tok_is(ts, k + 1, "<"))
        return 0;
    int depth = 0;
    for (size_t r = k + 1; r + 1 < ts->n; r++) {
        if (rwl_tok_is(ts, r, "<"))
            depth++;
        else if (rwl_tok_is(ts, r, ">"))
            depth--;
        else if (rwl_tok_is(ts, r, ">>"))
            depth -= 2;
        else if (rwl_tok_is(ts, r, ";") || rwl_tok_is(ts, r, "{") || rwl_tok_is(ts, r, "&&") ||
                 rwl_tok_is(ts, r, "||"))
            return 0;
        if (depth <= 0)
            return depth == 0 && rwl_tok_is(ts, r + 1, "(") ? r + 1 : 0;
    }
    return 0;
}

bool rwl_confined_body(const char *text, const an_function *g, bool ref_writes, rwl_call_rule call_ok, void *ctx)
{
    if (g->body_span.end_byte <= g->body_span.start_byte)
        return false;
    rw_toks gt = {0};
    if (rwl_lex(text, g->body_span.start_byte, g->body_span.end_byte, &gt) != HK_OK)
        return false;
    bool ok = gt.n >= 2;
    for (size_t k = 1; ok && k + 1 < gt.n; k++) {
        size_t l = gt.t[k].end - gt.t[k].start;
        const char *c = gt.text + gt.t[k].start;
        if (rwl_tok_is(&gt, k, "->") || rwl_tok_is(&gt, k, "asm") || rwl_tok_is(&gt, k, "static") ||
            rwl_tok_is(&gt, k, "volatile") || rwl_tok_is(&gt, k, "__shared__") || rwl_tok_is(&gt, k, "threadIdx") ||
            rwl_tok_is(&gt, k, "blockIdx") || rwl_tok_is(&gt, k, "blockDim") || rwl_tok_is(&gt, k, "gridDim") ||
            rwl_tok_is(&gt, k, "goto") ||
            (gt.t[k].kind == T_IDENT && l >= 6 && (!memcmp(c, "atomic", 6) || !memcmp(c, "__sync", 6) ||
                                                   !memcmp(c, "__shfl", 6) || !memcmp(c, "__ballot", 6))))
            ok = false;
        else if (rwl_tok_is(&gt, k, "&") && rwl_unary_position(&gt, k))
            ok = false;
        else if (gt.t[k].kind == T_IDENT && rwl_call_paren(&gt, k) && !rwl_pure_call_name(&gt, k) &&
                 !rwl_is_type_word(&gt, k) && !word_in(&gt, k, decl_words, HK_ARRAY_LEN(decl_words)) &&
                 !rwl_template_type_param(g->template_params, &gt, k) && !rwl_tok_is(&gt, k, "return") &&
                 !rwl_tok_is(&gt, k, "if") && !rwl_tok_is(&gt, k, "for") && !rwl_tok_is(&gt, k, "while") &&
                 !rwl_tok_is(&gt, k, "sizeof"))
            ok = call_ok && call_ok(ctx, &gt, k);
        else if (rwl_tok_is_assign_op(&gt, k) || rwl_tok_is(&gt, k, "++") || rwl_tok_is(&gt, k, "--")) {
            /* the target: a name (a local the body declares, or a parameter as ref_writes says), never memory */
            size_t t = rwl_tok_is_assign_op(&gt, k) || gt.t[k - 1].kind == T_IDENT ? k - 1 : k + 1;
            if (gt.t[t].kind != T_IDENT || rwl_tok_is(&gt, t - 1, "*") || rwl_tok_is(&gt, t - 1, "."))
                ok = false;
            bool mine = false;
            for (size_t i = 0; ok && i < g->n_params; i++) {
                if (!rwl_tok_is_ident(&gt, t, g->params[i].name))
                    continue;
                bool ref = strchr(g->params[i].type ? g->params[i].type : "", '&') != NULL;
                if (ref_writes) /* a reference parameter, and no other */
                    ok = ref, mine = true;
                else
                    mine |= !g->params[i].pointer_depth;
            }
            for (size_t r = 1; ok && !mine && r + 1 < gt.n; r++)
                mine = rwl_same_tok(&gt, r, t) && rwl_declared_here(&gt, r);
            ok = ok && mine;
        }
    }
    rwl_toks_free(&gt);
    return ok;
}

static bool reader_named(const an_model *m, const char *text, const an_function *self, const rw_toks *ts, size_t k,
                         int depth);

typedef struct {
    const an_model *m;
    const char *text;
    const an_function *g;
    int depth;
} reader_ctx;

/* A call in a reader's body: again a reader, while the depth lasts. */
static bool reader_inner_call(void *ctx, const rw_toks *gt, size_t k)
{
    const reader_ctx *r = ctx;
    return r->depth > 0 && reader_named(r->m, r->text, r->g, gt, k, r->depth - 1);
}

/* rwl_reader_call's rules on one definition g. */
static bool reader_body(const an_model *m, const char *text, const an_function *g, int depth)
{
    for (size_t i = 0; i < g->n_params; i++) {
        const char *ty = g->params[i].type ? g->params[i].type : "";
        if (strchr(ty, '&') || g->params[i].pointer_depth > 1 || (g->params[i].pointer_depth && !g->params[i].is_const))
            return false;
    }
    reader_ctx r = {m, text, g, depth};
    return rwl_confined_body(text, g, false, reader_inner_call, &r);
}

/* Every definition in m of the name at k (the file may hold several under #if branches, and
 * explicit specialisations) a reader body, self not among them. */
typedef bool (*body_test)(const an_model *m, const char *text, const an_function *g, int depth);

/* Every definition in m of the name called at k (with the callee's parameter count) passes
 * body, self not among them: one rule for reader and value calls. */
static bool every_definition(const an_model *m, const char *text, const an_function *self, const rw_toks *ts,
                             size_t k, int depth, body_test body)
{
    const an_function *g = rwl_callee(m, self, ts, k);
    if (!g)
        return false;
    for (size_t fi = 0; fi < m->n_funcs; fi++) {
        const an_function *h = &m->funcs[fi];
        if (!strcmp(h->name, g->name) && (h == self || h->n_params != g->n_params || !body(m, text, h, depth)))
            return false;
    }
    return true;
}

static bool reader_named(const an_model *m, const char *text, const an_function *self, const rw_toks *ts, size_t k,
                         int depth)
{
    return every_definition(m, text, self, ts, k, depth, reader_body);
}

bool rwl_reader_call(const an_model *m, const char *text, const an_function *self, const rw_toks *ts, size_t k)
{
    return m && ts->t[k].kind == T_IDENT && rwl_call_paren(ts, k) && reader_named(m, text, self, ts, k, 4);
}

static bool value_named(const an_model *m, const char *text, const an_function *self, const rw_toks *ts, size_t k,
                        int depth);

/* A call in a value function's body: again a value function, while the depth lasts. */
static bool value_inner_call(void *ctx, const rw_toks *gt, size_t k)
{
    const reader_ctx *r = ctx;
    return r->depth > 0 && value_named(r->m, r->text, r->g, gt, k, r->depth - 1);
}

/* Is the name at k declared at the top level of the function body gt (brace depth 1, outside
 * any parentheses: not a for header's, not a nested block's) before k? Then its scope holds
 * k and k reads that local, never a global of the same name. */
static bool declared_on_top_before(const rw_toks *gt, size_t k)
{
    int braces = 0, parens = 0;
    for (size_t d = 0; d < k; d++) {
        if (rwl_tok_is(gt, d, "{"))
            braces++;
        else if (rwl_tok_is(gt, d, "}"))
            braces--;
        else if (rwl_tok_is(gt, d, "("))
            parens++;
        else if (rwl_tok_is(gt, d, ")"))
            parens--;
        else if (braces == 1 && parens == 0 && gt->t[d].kind == T_IDENT && rwl_same_tok(gt, d, k) &&
                 rwl_declared_here(gt, d))
            return true;
    }
    return false;
}

/* rwl_value_call's rules on one definition g: every parameter a by-value non-pointer, the
 * body confined (rwl_confined_body: writes only its own locals and by-value parameters, no
 * atomic, barrier, shared memory, thread index, address taken...), no subscript and no
 * unary `*` (it touches no memory, not even a __constant__ or __device__ array), and every
 * other name it reads one of its parameters or a local it declares before, at its body's top
 * level (a global variable, or an object-like macro that may spell one, is not read; nor a
 * name a nested block declares, which may hide a global elsewhere). */
static bool value_body(const an_model *m, const char *text, const an_function *g, int depth)
{
    for (size_t i = 0; i < g->n_params; i++) {
        const char *ty = g->params[i].type ? g->params[i].type : "";
        if (strchr(ty, '&') || strchr(ty, '*') || strchr(ty, '[') || g->params[i].pointer_depth)
            return false;
    }
    if (g->body_span.end_byte <= g->body_span.start_byte)
        return false;
    rw_toks gt = {0};
    if (rwl_lex(text, g->body_span.start_byte, g->body_span.end_byte, &gt) != HK_OK)
        return false;
    bool ok = gt.n >= 2;
    for (size_t k = 1; ok && k + 1 < gt.n; k++) {
        if (rwl_tok_is(&gt, k, "[") || (rwl_tok_is(&gt, k, "*") && rwl_unary_position(&gt, k)))
            ok = false;
        else if (gt.t[k].kind == T_IDENT && rwl_is_use(&gt, k) && !rwl_call_paren(&gt, k) &&
                 !rwl_is_type_word(&gt, k) && !word_in(&gt, k, decl_words, HK_ARRAY_LEN(decl_words)) &&
                 !word_in(&gt, k, stmt_words, HK_ARRAY_LEN(stmt_words)) && !rwl_tok_is(&gt, k, "true") &&
                 !rwl_tok_is(&gt, k, "false") && !rwl_tok_is(&gt, k - 1, ".") && !rwl_tok_is(&gt, k + 1, "::") &&
                 !rwl_tok_is(&gt, k - 1, "::") && !rwl_template_type_param(g->template_params, &gt, k) &&
                 !rwl_declared_here(&gt, k) && !declared_on_top_before(&gt, k)) {
            bool param = false;
            for (size_t i = 0; i < g->n_params && !param; i++)
                param = g->params[i].name && rwl_tok_is_ident(&gt, k, g->params[i].name);
            ok = param;
        }
    }
    rwl_toks_free(&gt);
    reader_ctx r = {m, text, g, depth};
    return ok && rwl_confined_body(text, g, false, value_inner_call, &r);
}

/* Every definition in m of the name at k a value body, self not among them. */
static bool value_named(const an_model *m, const char *text, const an_function *self, const rw_toks *ts, size_t k,
                        int depth)
{
    return every_definition(m, text, self, ts, k, depth, value_body);
}

bool rwl_value_call(const an_model *m, const char *text, const an_function *self, const rw_toks *ts, size_t k)
{
    return m && ts->t[k].kind == T_IDENT && rwl_call_paren(ts, k) && value_named(m, text, self, ts, k, 4);
}

int rwl_open_body(const char *text, size_t len, const an_function *f, bool need_body,
                  rw_toks *ts, km_kernel **km, char *why, size_t n_why)
{
    int line = rwl_line_at(text, f->body_span.start_byte);
    int rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, ts);
    if (rc)
        return rc;
    if (need_body && ts->n < 3) {
        snprintf(why, n_why, EN(RW_LEX_BODY_EMPTY), line);
        return HK_OK;
    }
    char kwhy[200];
    rc = km_build(text, len, f->name, km, kwhy, sizeof kwhy);
    if (rc == HK_ENOMEM)
        return rc;
    if (rc)
        snprintf(why, n_why, EN(RW_LEX_MODEL), line,
                 kwhy);
    return HK_OK;
}

/* Applies the edits, re-analyses, and fills out. Takes ownership of desc. */
int rwl_finish(const char *text, size_t len, const an_model *m, const char *kernel_name,
                  rw_edits *es, char *desc, rw_result *out)
{
    char *nt = NULL;
    size_t nl = 0;
    an_model *nm = NULL;
    int rc;
    if (!desc)
        return HK_ENOMEM;
    if ((rc = rwl_edits_apply(text, len, es, &nt, &nl)))
        goto fail;
    if ((rc = an_analyze(nt, nl, &nm)))
        goto fail;
    /* the rewrite must not break parsing, nor lose the kernel */
    if ((nm->has_errors && !m->has_errors) || (kernel_name && an_model_find_kernel(nm, kernel_name) < 0)) {
        an_model_free(nm);
        hk_free(nt);
        char *why = hk_asprintf(EN(RW_LEX_NOT_CLEAN), desc);
        hk_free(desc);
        if (!why)
            return HK_ENOMEM;
        rwl_not_applicable(out, why);
        return HK_EPARSE;
    }
    an_model_free(nm);
    out->applicable = true;
    out->text = nt;
    out->len = nl;
    out->description = desc;
    return HK_OK;
fail:
    hk_free(nt);
    hk_free(desc);
    return rc;
}

int rwl_render(struct hk_buf *b, const char *tpl, const char *const *kv)
{
    for (const char *p = tpl; *p;) {
        if (*p != '$') {
            const char *q = strchr(p, '$');
            size_t l = q ? (size_t)(q - p) : strlen(p);
            int rc = hk_buf_append(b, p, l);
            if (rc)
                return rc;
            p += l;
            continue;
        }
        p++;
        /* the longest key that matches here ($IND__syncthreads: key IND, then text) */
        const char *v = NULL;
        size_t best = 0;
        for (size_t i = 0; kv[i]; i += 2) {
            size_t kl = strlen(kv[i]);
            if (kl > best && strncmp(p, kv[i], kl) == 0) {
                best = kl;
                v = kv[i + 1];
            }
        }
        if (!v)
            return HK_EINVAL;
        int rc = hk_buf_appends(b, v);
        if (rc)
            return rc;
        p += best;
    }
    return HK_OK;
}

int rwl_line_at(const char *text, size_t b)
{
    int line = 1;
    for (size_t i = 0; i < b; i++)
        line += text[i] == '\n';
    return line;
}

bool rwl_refuse(char *why, size_t n, const rw_toks *ts, const char *text, size_t k,
                const char *construct, const char *fmt, ...)
{
    if (why[0])
        return false;
    int line = k < ts->n ? rwl_line_at(text, ts->t[k].start) : 1;
    int w = snprintf(why, n, "%s at line %d: ", construct, line);
    va_list ap;
    va_start(ap, fmt);
    if (w > 0 && (size_t)w < n)
        vsnprintf(why + w, n - (size_t)w, fmt, ap);
    va_end(ap);
    return false;
}

bool rwl_pure_call_name(const rw_toks *ts, size_t k)
{
    static const char *const ok[] = {
        "__ldg", "fmaf", "fma", "__fmaf_rn", "__fmul_rn", "__fadd_rn", "__fdividef", "sqrtf", "sqrt",
        "rsqrtf", "rsqrt", "expf", "exp", "__expf", "exp2f", "logf", "log", "__logf", "log2f", "fabsf",
        "fabs", "abs", "powf", "pow", "__powf", "sinf", "cosf", "sin", "cos", "tanhf", "tanh", "fminf",
        "fmaxf", "fmin", "fmax", "min", "max", "floorf", "ceilf", "floor", "ceil", "erff", "erf",
        "static_cast", "__float2int_rn", "__int2float_rn", "__half2float", "__bfloat162float",
        "__float2half", "__float2bfloat16", "__ldcs", "__ldcg", "__ldca", "__ldlu", "__ldcv", "__umul24",
        "__mul24"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ok); i++)
        if (rwl_tok_is(ts, k, ok[i]))
            return true;
    return false;
}

const an_launch *rwl_launch_passing_twice(const an_model *m, const an_function *f, size_t a,
                                          size_t b)
{
    for (size_t l = 0; m && f && l < m->n_launches; l++) {
        const an_launch *la = &m->launches[l];
        if (!la->kernel || la->form == AN_LAUNCH_CUDA_API || la->n_args != f->n_params ||
            a >= la->n_args || b >= la->n_args)
            continue;
        const char *sn = strrchr(la->kernel, ':');
        sn = sn ? sn + 1 : la->kernel;
        if (strcmp(sn, f->name))
            continue;
        char x[512], y[512];
        rwl_squeeze(la->args[a], x, sizeof x);
        rwl_squeeze(la->args[b], y, sizeof y);
        if (!strcmp(x, y))
            return la;
    }
    return NULL;
}

static bool lex_prefix_is(const char *c, size_t l, const char *p)
{
    size_t n = strlen(p);
    return l >= n && !memcmp(c, p, n);
}

/* rewrite_lex.h; spread_lanes' and column_passes' whole-kernel scan (one copy, session 50) */
bool rwl_scan_untied(const char *text, size_t len, const rw_toks *ts, size_t ia, size_t ib,
                     bool (*macro_ok)(const char *text, size_t len, const char *name, size_t nl), char *why,
                     size_t nwhy)
{
    for (size_t q = 0; q < ts->n; q++) {
        const char *c = text + ts->t[q].start;
        size_t l = ts->t[q].end - ts->t[q].start;
        if (rwl_tok_is(ts, q, "->"))
            return rwl_refuse(why, nwhy, ts, text, q, "->", hk_tr_in(HK_LANG_EN, HK_MSG_RW_SL_READS_OUT), (int)l, c);
        if (rwl_tok_is(ts, q, "*") && rwl_unary_position(ts, q))
            return rwl_refuse(why, nwhy, ts, text, q, "unary *", hk_tr_in(HK_LANG_EN, HK_MSG_RW_SL_READS_OUT), (int)l, c);
        if (rwl_tok_is(ts, q, "&") && rwl_unary_position(ts, q))
            return rwl_refuse(why, nwhy, ts, text, q, "unary &", hk_tr_in(HK_LANG_EN, HK_MSG_RW_SL_READS_OUT), (int)l, c);
        if (ts->t[q].kind != T_IDENT)
            continue;
        bool launch = (l == 9 && (!memcmp(c, "threadIdx", 9))) || (l == 8 && !memcmp(c, "blockIdx", 8)) ||
                      (l == 8 && !memcmp(c, "blockDim", 8)) || (l == 7 && !memcmp(c, "gridDim", 7));
        if (launch && (q < ia || q >= ib))
            return rwl_refuse(why, nwhy, ts, text, q, "thread index", hk_tr_in(HK_LANG_EN, HK_MSG_RW_SL_TIES), (int)l, c);
        if (lex_prefix_is(c, l, "__sync") || lex_prefix_is(c, l, "atomic") || (l == 10 && !memcmp(c, "__shared__", 10)) ||
            lex_prefix_is(c, l, "__shfl") || lex_prefix_is(c, l, "__ballot") || lex_prefix_is(c, l, "__any") ||
            lex_prefix_is(c, l, "__all") || lex_prefix_is(c, l, "__reduce_") || lex_prefix_is(c, l, "__match_") ||
            lex_prefix_is(c, l, "__activemask") || (l == 3 && !memcmp(c, "asm", 3)) || lex_prefix_is(c, l, "__threadfence") ||
            lex_prefix_is(c, l, "cooperative_groups") || lex_prefix_is(c, l, "this_") || lex_prefix_is(c, l, "hip") ||
            lex_prefix_is(c, l, "__ockl_") || lex_prefix_is(c, l, "__builtin_") || lex_prefix_is(c, l, "__nvvm_") ||
            (l == 8 && !memcmp(c, "volatile", 8)) || (l == 6 && !memcmp(c, "static", 6)))
            return rwl_refuse(why, nwhy, ts, text, q, "construct", hk_tr_in(HK_LANG_EN, HK_MSG_RW_SL_TIES), (int)l, c);
        size_t at = 0, ma, mb;
        if (rwl_next_define(text, len, &at, c, l, &ma, &mb) && !(macro_ok && macro_ok(text, len, c, l)))
            return rwl_refuse(why, nwhy, ts, text, q, "macro", hk_tr_in(HK_LANG_EN, HK_MSG_RW_SL_CALL), (int)l, c);
        static const char *const kw[] = {"if", "for", "while", "switch", "return", "sizeof"};
        bool keyword = false;
        for (size_t w = 0; w < HK_ARRAY_LEN(kw); w++)
            keyword |= rwl_tok_is(ts, q, kw[w]);
        if (!keyword && rwl_call_paren(ts, q) && !rwl_is_type_word(ts, q) && !rwl_pure_call_name(ts, q))
            return rwl_refuse(why, nwhy, ts, text, q, "call", hk_tr_in(HK_LANG_EN, HK_MSG_RW_SL_CALL), (int)l, c);
    }
    return true;
}

/* rewrite_lex.h (spread_lanes' and column_passes' helpers, one copy: session 50) */
bool rwl_is_param(const an_function *f, const rw_toks *ts, size_t k)
{
    size_t l = ts->t[k].end - ts->t[k].start;
    for (size_t p = 0; p < f->n_params; p++)
        if (f->params[p].name && strlen(f->params[p].name) == l &&
            !memcmp(f->params[p].name, ts->text + ts->t[k].start, l))
            return true;
    return false;
}

bool rwl_declared_in(const rw_toks *ts, size_t a, size_t b, size_t k)
{
    for (size_t d = a; d < b; d++)
        if (d != k && ts->t[d].kind == T_IDENT && rwl_same_tok(ts, d, k) && rwl_declared_here(ts, d))
            return true;
    return false;
}

void rwl_squeeze_range(const rw_toks *ts, size_t a, size_t b, char *out, size_t n)
{
    size_t w = 0;
    for (size_t k = a; k < b && w + 1 < n; k++) {
        size_t l = ts->t[k].end - ts->t[k].start;
        if (w + l + 1 >= n)
            break;
        memcpy(out + w, ts->text + ts->t[k].start, l);
        w += l;
    }
    out[w] = 0;
}

size_t rwl_global_id_decl(const rw_toks *ts, const char *text, size_t a, size_t end, size_t *stmt_end,
                          char *why, size_t n)
{
    size_t b = rwl_stmt_end(ts, a, end), eq = 0;
    *stmt_end = b;
    for (size_t k = a; k < b; k++)
        if (rwl_tok_is(ts, k, "=")) {
            eq = k;
            break;
        }
    char id[160];
    if (eq)
        rwl_squeeze_range(ts, eq + 1, b - 1, id, sizeof id);
    if (!eq || eq < a + 2 || !rwl_starts_declaration(ts, a) || ts->t[eq - 1].kind != T_IDENT ||
        !rwl_declared_here(ts, eq - 1) || b < 1 || b - 1 >= ts->n || !rwl_tok_is(ts, b - 1, ";") ||
        (strcmp(id, "blockIdx.x*blockDim.x+threadIdx.x") && strcmp(id, "blockDim.x*blockIdx.x+threadIdx.x") &&
         strcmp(id, "threadIdx.x+blockIdx.x*blockDim.x") && strcmp(id, "threadIdx.x+blockDim.x*blockIdx.x"))) {
        rwl_refuse(why, n, ts, text, a, "kernel body", "%s", EN(RW_SL_NO_ID));
        return 0;
    }
    return eq;
}
