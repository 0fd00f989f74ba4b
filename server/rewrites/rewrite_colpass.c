/* column_passes (issue 13, session 50): one thread per column (or per row) that walks its
 * column two or more times, each walk a reduction whose result the next one reads: the
 * two-pass standard deviation (the mean, then the squared deviations), PolyBench's
 * correlation's mean and deviation, batch-norm statistics, a min-max range then a count.
 * split_k_columns and spread_lanes take one loop only. The rewrite splits each pass over S
 * slices of the column: slice r runs the pass's rows A + r, A + r + S, ... into its own
 * partial, the partials meet in __shared__ memory after one barrier, and every slice adds
 * them (or takes their max/min) in slice order, so every slice holds the same total before
 * the statements between the passes and the next pass read it (the broadcast). The
 * statements after the last pass run once per column, on slice 0.
 *
 * The block is W columns x S slices (W = threads / S). The layout follows the loads: where
 * the first pass's counter is multiplied (`data[i * m + j]`: a column walked down its rows)
 * a slice's lanes are W neighbouring columns (`column`: a warp reads 32 adjacent elements of
 * one row); else (`data[j * m + i]`: a row walked along) the S slices of one row are
 * neighbouring lanes (`row`: they read S adjacent elements). Column groups are grid-strided
 * over the blocks (the stop test the group's first column against the guard's bound), so the
 * body is correct for any grid and block; the result asks for the spec's grid x S
 * (rw_result.grid_multiplier), one group a block.
 *
 * What it proves, from the body's tokens, else refuses with the construct and its line:
 *  - shape: `T IDX = blockIdx.x * blockDim.x + threadIdx.x;` first (its four spellings),
 *    then `if (IDX >= N) return;` or `if (IDX < N) { ... }` as the body's last statement,
 *    N a name the kernel never writes or declares; IDX is never written;
 *  - the region's top-level statements: PRE, then passes separated by statements (MID),
 *    then POST. A pass is a top-level `for (T I = A; I < B; I++)` (`++I`, `I += 1`, `<=`)
 *    with I declared in its header and not written in its body, A and B reading no name the
 *    loop writes and calling no impure function, that reduces into at least one local; every
 *    top-level loop before the last pass is a pass (no `while`/`do` there). At least two;
 *  - a reduction's local X is declared at the region's top level before its pass and not
 *    in the pass; in the pass every token of X belongs to one update `X += E;`, `X -= E;`,
 *    `X = X + E;`, `X = X - E;` (E without an operator looser than `+`), `X = fmaf(P, Q, X);`
 *    (sums), or a max/min update (rwl_minmax_update: `X = fmaxf(X, E)`, `fminf`, `max`,
 *    `min`, `fmax`, `fmin`, `if (E > X) X = E;`, `X = E > X ? E : X`), E never naming X, all
 *    updates of X in a pass of one kind. Any other name the pass writes is declared in its
 *    body (the iteration's own) and nowhere before it: no value is carried between
 *    iterations but the reductions;
 *  - nothing before POST writes memory (a store, `++`/`--` of an element) or jumps (`break`,
 *    `continue`, `return`, `goto`): every slice runs PRE, the passes and MID, on identical
 *    values (the combined totals are identical in every slice, the other locals computed
 *    from them and from the column), and a pass's trip count is fixed before it starts;
 *  - stores only to pointer parameters, and every use of a stored parameter is a store's
 *    target: the passes never read what POST writes (a write to the input is refused);
 *  - no parameter written (a thread now runs several columns one after another), no name
 *    of the proof declared again; no `return` or `goto` in POST (the group loop's barriers);
 *  - a map loop: when POST is the statements before a last counted loop (read as a pass's
 *    header, reducing and carrying nothing), those storing nothing, and every store in the
 *    loop goes to one base at one index `I`, `E + I` or `I + E` (E naming neither I nor the
 *    loop body's locals; the base a pointer parameter or a top-level local pointer
 *    `T *L = P [+ E];` every use of which is a store), distinct iterations store distinct
 *    elements: every slice runs the statements and its rows of the loop (layernorm's
 *    normalised row). Otherwise POST runs on slice 0 as it is;
 *  - an object-like macro whose value is one number (`#define EPS 1e-5f`) is read as that
 *    number; any other macro of the file named is refused;
 *  - the launch is read only in the index statement, nothing ties threads (barriers,
 *    atomics, shared memory, warp operations, fences, asm, volatile, static), every call a
 *    pure math function, no macro of the file named, no `->` and no unary `*` or `&`.
 * Threads beyond the columns (the last group) and the slots a block size not a multiple of
 * S leaves over run PRE and MID on the group's first column (a valid one: only reads, no
 * stores) and skip the passes' loops and POST, so every thread reaches every barrier.
 * Sums are reassociated: the float result's rounding changes (the fp64 shadow and the
 * spec's tolerance judge it); integer sums (wrapping), maxima and minima are exact. An
 * integer sum is split only where the value it adds is shown an integer from the tokens
 * (no floating-point literal, type word, call or member access; every name declared an
 * integer; or E one cast `(INT)(...)`, or E a comparison at its top level): `X += E` stores (T)(X + E), so a float E truncates
 * on every trip and the partials would not add up to the sum in order; a bool sum (which
 * saturates) is never split (int_sum_ok, review of session 50). The
 * select-form max/min partials start from the same value in every slice, so combining them
 * with the same select is exact, NaN included (rewrite_lex.h, rwl_minmax_update), but for
 * the sign of a float zero: among tied -0.0 and +0.0 the original keeps the first (`>`) or
 * last (`>=`) row's, the slices (rows interleaved) may keep another (rows -5, -0, +0 at S 2
 * with `if (e > hi) hi = e`: -0 in order, +0 split). The values compare equal; only a tail
 * that reads the sign (1 / hi, signbit, copysign) sees it (review of session 50, open).
 * Assumed, as the original's correctness assumes it: the arrays read do not alias the
 * outputs, the index arithmetic does not overflow, B + S does not overflow I's type. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define CP_MAX_PASSES 6
#define CP_MAX_ACC 4 /* reductions in one pass */

enum { CP_SUM, CP_CALL, CP_SELECT };

typedef struct {
    size_t decl;   /* the local's declaring token */
    int kind;      /* CP_SUM, CP_CALL (fn), CP_SELECT */
    bool max;
    char fn[8];
} cp_acc;

typedef struct {
    size_t fa, fb;      /* the for statement [fa, fb) */
    size_t ctr;         /* the counter's declared token */
    size_t st_a, st_b;  /* A */
    size_t inc_a, inc_b;/* the increment's tokens */
    size_t ba, bb;      /* the body's tokens (inside its braces, if any) */
    size_t ca, cb;      /* the body's text with its braces */
    size_t close;       /* the header's ')' */
    cp_acc acc[CP_MAX_ACC];
    size_t n_acc;
} cp_pass;

static bool tok_eq(const rw_toks *ts, size_t k, const char *s)
{
    return k < ts->n && rwl_tok_is(ts, k, s);
}

/* The token declaring k's name at the top level of [a, b) (statements from a), or 0. */
static size_t top_decl(const rw_toks *ts, size_t a, size_t b, size_t k)
{
    for (size_t q = a; q < b;) {
        size_t e = rwl_stmt_end(ts, q, b);
        if (rwl_starts_declaration(ts, q) && !tok_eq(ts, q, "for") && !tok_eq(ts, q, "if"))
            for (size_t d = q; d < e; d++)
                if (ts->t[d].kind == T_IDENT && rwl_same_tok(ts, d, k) && rwl_declared_here(ts, d))
                    return d;
        /* `[const] T *NAME = ...;` of a template or typedef type T */
        size_t t = q + (tok_eq(ts, q, "const") ? 1 : 0);
        if (t + 3 < e && ts->t[t].kind == T_IDENT && tok_eq(ts, t + 1, "*") && ts->t[t + 2].kind == T_IDENT &&
            tok_eq(ts, t + 3, "=") && rwl_same_tok(ts, t + 2, k))
            return t + 2;
        q = e;
    }
    return 0;
}

/* Is every #define of name[0, nl) in text an object-like macro whose value is one number
 * (`#define EPS 1e-5f`, perhaps parenthesized or negated)? Such a name reads nothing. */
static bool numeric_macro(const char *text, size_t len, const char *name, size_t nl)
{
    size_t at = 0, a, b;
    bool any = false;
    while (rwl_next_define(text, len, &at, name, nl, &a, &b)) {
        any = true;
        size_t k = a + nl;
        if (k < b && text[k] == '(')
            return false;
        bool digit = false;
        for (; k < b; k++) {
            char c = text[k];
            if (c == ' ' || c == '\t' || c == '(' || c == ')' || c == '-' || c == '+' || c == '.')
                continue;
            if (c >= '0' && c <= '9') {
                digit = true;
                continue;
            }
            if (strchr("eEfFuUlLxXabcdABCD", c) && digit)
                continue;
            if (c == '\n' || c == '\r')
                continue;
            return false;
        }
        if (!digit)
            return false;
    }
    return any;
}

/* Every use of the name at token d (its declaration, or a parameter's first use) other
 * than d itself a store's target `NAME[..] = `? */
static bool only_stores(const rw_toks *ts, size_t d, size_t skip)
{
    for (size_t k = 1; k < ts->n; k++) {
        if (k == skip || ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k) || !rwl_same_tok(ts, k, d))
            continue;
        size_t cb = tok_eq(ts, k + 1, "[") ? rwl_match_close(ts, k + 1) : ts->n;
        if (cb >= ts->n || !tok_eq(ts, cb + 1, "="))
            return false;
    }
    return true;
}

/* The parameter a store's base at token b stands for: b itself when a parameter, else a
 * local pointer declared at the region's top level as `T *L = P;` or `T *L = P + E;` (P a
 * parameter, E without an operator looser than +), never written after. *decl gets L's
 * declaring token (0 for a parameter). 0 when neither. */
static size_t store_root(const an_function *f, const rw_toks *ts, size_t ra, size_t rb, size_t b, size_t *decl)
{
    *decl = 0;
    if (rwl_is_param(f, ts, b))
        return b;
    size_t d = top_decl(ts, ra, rb, b);
    if (!d || !tok_eq(ts, d - 1, "*") || !tok_eq(ts, d + 1, "=") || ts->t[d + 2].kind != T_IDENT ||
        !rwl_is_param(f, ts, d + 2) || rwl_written_elsewhere(ts, d, d))
        return 0;
    size_t e = d + 3;
    int depth = 0;
    while (e < ts->n && !(depth == 0 && (tok_eq(ts, e, ";") || tok_eq(ts, e, ",")))) {
        if (tok_eq(ts, e, "(") || tok_eq(ts, e, "["))
            depth++;
        else if (tok_eq(ts, e, ")") || tok_eq(ts, e, "]"))
            depth--;
        e++;
    }
    if (e != d + 3 && (!tok_eq(ts, d + 3, "+") || rwl_has_loose_op(ts, d + 4, e)))
        return 0;
    *decl = d;
    return d + 2;
}

/* Is the index [a, b) `I`, `E + I` or `I + E` (I the map loop's counter, E without an
 * operator looser than + and naming neither I nor a name the loop's body declares)? Then
 * distinct iterations store distinct elements. */
static bool map_index(const rw_toks *ts, const cp_pass *m, size_t a, size_t b)
{
    size_t ea, eb;
    if (b == a + 1 && rwl_same_tok(ts, a, m->ctr))
        return true;
    if (b > a + 2 && rwl_same_tok(ts, b - 1, m->ctr) && tok_eq(ts, b - 2, "+") && !tok_eq(ts, b - 3, "*"))
        ea = a, eb = b - 2;
    else if (b > a + 2 && rwl_same_tok(ts, a, m->ctr) && tok_eq(ts, a + 1, "+"))
        ea = a + 2, eb = b;
    else
        return false;
    if (rwl_has_loose_op(ts, ea, eb) || rwl_writes_any(ts, ea, eb))
        return false;
    for (size_t k = ea; k < eb; k++)
        if (ts->t[k].kind == T_IDENT && rwl_is_use(ts, k) &&
            (rwl_same_tok(ts, k, m->ctr) || rwl_declared_in(ts, m->ba, m->bb, k)))
            return false;
    return true;
}

/* A word of an arithmetic type (an accumulator's, a counter's): rwl_is_type_word's integer
 * words and the floating-point ones. */
static bool type_word(const rw_toks *ts, size_t k)
{
    static const char *const fl[] = {"float", "double", "bool", "char", "half", "__half", "__nv_bfloat16"};
    if (rwl_is_type_word(ts, k))
        return true;
    for (size_t i = 0; i < HK_ARRAY_LEN(fl); i++)
        if (tok_eq(ts, k, fl[i]))
            return true;
    return false;
}

static char *acc_type(const rw_toks *ts, size_t ra, size_t d);

/* An integer type's word: rwl_is_type_word's words but `auto`, and `char`. */
static bool int_word(const rw_toks *ts, size_t k)
{
    return (rwl_is_type_word(ts, k) && !tok_eq(ts, k, "auto")) || tok_eq(ts, k, "char");
}

/* Is every word of the type text s an integer word (or a qualifier, `*`)? */
static bool int_type_text(const char *s)
{
    static const char *const words[] = {"int",     "unsigned", "signed",   "long",     "short",     "size_t",
                                        "int64_t", "uint64_t", "int32_t",  "uint32_t", "ptrdiff_t", "char",
                                        "const",   "*",        "__restrict__", "volatile"};
    bool any = false;
    while (s && *s) {
        while (*s == ' ')
            s++;
        size_t l = 0;
        while (s[l] && s[l] != ' ' && s[l] != '*')
            l++;
        if (!l && *s == '*')
            l = 1;
        if (!l)
            break;
        bool ok = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(words); i++)
            ok |= strlen(words[i]) == l && !memcmp(words[i], s, l);
        if (!ok)
            return false;
        any |= *s != '*' && strncmp(s, "const", 5);
        s += l;
    }
    return any;
}

/* Is the name at token k (a use) declared an integer, or a pointer to integers: the nearest
 * declaration before k, `INTWORDS [*...] NAME`, or a parameter whose element type is? A
 * name declared otherwise, or not found (a global, a macro), is not. */
static bool int_name(const an_function *f, const rw_toks *ts, size_t k)
{
    for (size_t d = k; d-- > 0;)
        if (ts->t[d].kind == T_IDENT && rwl_same_tok(ts, d, k) && rwl_declared_here(ts, d)) {
            size_t t = d;
            while (t > 0 && (tok_eq(ts, t - 1, "*") || tok_eq(ts, t - 1, "__restrict__") || tok_eq(ts, t - 1, "const")))
                t--;
            return t > 0 && int_word(ts, t - 1);
        }
    size_t l = ts->t[k].end - ts->t[k].start;
    for (size_t p = 0; p < f->n_params; p++)
        if (f->params[p].name && strlen(f->params[p].name) == l &&
            !memcmp(f->params[p].name, ts->text + ts->t[k].start, l))
            return int_type_text(f->params[p].elem_type);
    return false;
}

/* The sum update [q, e) into an integer (or bool) local of type text ty: is the value it adds
 * an integer? `X op= E` stores (T)(X op E): a value that is not an integer is truncated on
 * every trip, and a bool saturates, so partial sums would not add up to the sum in order.
 * Shown an integer only from the tokens: no floating-point literal or type word, no call, no
 * member access, every name declared an integer (or E one cast `(INT)(...)`, or a comparison or && || at its top level). */
static bool int_sum_ok(const an_function *f, const rw_toks *ts, size_t q, size_t e, const char *ty)
{
    if (strstr(ty, "bool"))
        return false;
    size_t ea = q + 2, eb = e - 1; /* after `+=`, `-=` or `=` (X's own tokens are integer names) */
    if (tok_eq(ts, ea, "(")) {
        size_t c = rwl_match_close(ts, ea);
        bool cast = c + 1 < eb && c > ea + 1;
        for (size_t k = ea + 1; cast && k < c; k++)
            cast = int_word(ts, k) || tok_eq(ts, k, "const");
        if (cast && (c + 2 == eb || (tok_eq(ts, c + 1, "(") && rwl_match_close(ts, c + 1) == eb - 1)))
            return true;
    }
    /* a comparison or a logical operator at E's top level (no `?:`, assignment, comma or
     * cast template): E is a bool, an integer, whatever it compares (`c += x[i] > mu;`) */
    {
        size_t a = ea, b = eb;
        while (b > a + 1 && tok_eq(ts, a, "(") && rwl_match_close(ts, a) == b - 1)
            a++, b--;
        bool cmp = false, other = false;
        int depth = 0;
        for (size_t k = a; k < b; k++) {
            if (tok_eq(ts, k, "(") || tok_eq(ts, k, "["))
                depth++;
            else if (tok_eq(ts, k, ")") || tok_eq(ts, k, "]"))
                depth--;
            else if (ts->t[k].kind == T_IDENT && strstr(ts->text + ts->t[k].start, "_cast") &&
                     strstr(ts->text + ts->t[k].start, "_cast") < ts->text + ts->t[k].end)
                other = true;
            else if (ts->t[k].kind == T_IDENT && tok_eq(ts, k + 1, "<") && rwl_call_paren(ts, k))
                other = true; /* `max<float>(a, b)`: template arguments, not a comparison */
            else if (depth == 0 && (tok_eq(ts, k, "?") || tok_eq(ts, k, ",") || rwl_tok_is_assign_op(ts, k)))
                other = true;
            else if (depth == 0 && (tok_eq(ts, k, "<") || tok_eq(ts, k, ">") || tok_eq(ts, k, "<=") ||
                                    tok_eq(ts, k, ">=") || tok_eq(ts, k, "==") || tok_eq(ts, k, "!=") ||
                                    tok_eq(ts, k, "&&") || tok_eq(ts, k, "||")))
                cmp = true;
        }
        if (cmp && !other)
            return true;
    }
    for (size_t k = ea; k < eb; k++) {
        const char *c = ts->text + ts->t[k].start;
        size_t l = ts->t[k].end - ts->t[k].start;
        if (ts->t[k].kind == T_NUMBER) {
            bool hex = l > 1 && c[0] == '0' && (c[1] == 'x' || c[1] == 'X');
            for (size_t i = 0; i < l; i++)
                if (c[i] == '.' || (!hex && (c[i] == 'e' || c[i] == 'E' || c[i] == 'f' || c[i] == 'F')))
                    return false;
            continue;
        }
        if (tok_eq(ts, k, ".") || tok_eq(ts, k, "->"))
            return false;
        if (ts->t[k].kind != T_IDENT)
            continue;
        if (int_word(ts, k) || tok_eq(ts, k, "const") || tok_eq(ts, k, "sizeof"))
            continue;
        if (type_word(ts, k) || rwl_call_paren(ts, k) || !int_name(f, ts, k))
            return false;
    }
    return true;
}

/* Reads the loop header at fa: `for ( TYPE I = A ; I (<|<=) B ; I++ | ++I | I += 1 ) {`. */
static bool read_header(const rw_toks *ts, size_t fa, size_t fb, cp_pass *p)
{
    size_t k = fa + 2;
    if (!tok_eq(ts, fa + 1, "("))
        return false;
    while (k < fb && type_word(ts, k))
        k++;
    if (k == fa + 2 || ts->t[k].kind != T_IDENT || !tok_eq(ts, k + 1, "="))
        return false;
    p->ctr = k;
    p->st_a = k + 2;
    size_t semi = p->st_a;
    while (semi < fb && !tok_eq(ts, semi, ";"))
        semi++;
    p->st_b = semi;
    if (semi >= fb || semi == p->st_a)
        return false;
    size_t q = semi + 1;
    if (!rwl_same_tok(ts, q, k) || !(tok_eq(ts, q + 1, "<") || tok_eq(ts, q + 1, "<=")))
        return false;
    size_t s2 = q + 2;
    while (s2 < fb && !tok_eq(ts, s2, ";"))
        s2++;
    if (s2 >= fb || s2 == q + 2 || rwl_has_loose_op(ts, q + 2, s2))
        return false;
    size_t i0 = s2 + 1, close;
    if (rwl_same_tok(ts, i0, k) && tok_eq(ts, i0 + 1, "++") && tok_eq(ts, i0 + 2, ")"))
        close = i0 + 2;
    else if (tok_eq(ts, i0, "++") && rwl_same_tok(ts, i0 + 1, k) && tok_eq(ts, i0 + 2, ")"))
        close = i0 + 2;
    else if (rwl_same_tok(ts, i0, k) && tok_eq(ts, i0 + 1, "+=") && tok_eq(ts, i0 + 2, "1") &&
             tok_eq(ts, i0 + 3, ")"))
        close = i0 + 3;
    else
        return false;
    if (rwl_match_close(ts, fa + 1) != close || close + 1 >= fb)
        return false;
    p->inc_a = i0;
    p->inc_b = close;
    p->close = close;
    if (tok_eq(ts, close + 1, "{")) {
        if (rwl_match_close(ts, close + 1) + 1 != fb)
            return false;
        p->ba = close + 2;
        p->bb = fb - 1;
    } else {
        p->ba = close + 1;
        p->bb = fb;
    }
    p->ca = close + 1;
    p->cb = fb;
    /* A and B: no writes, no impure calls (scan_kernel), no name the loop writes (checked by
     * the caller once the pass's written names are known) */
    if (rwl_writes_any(ts, p->st_a, p->st_b) || rwl_writes_any(ts, q + 2, s2))
        return false;
    return true;
}

/* Is token q at a statement's start (what precedes it ends a statement or opens a block)? */
static bool stmt_start(const rw_toks *ts, size_t q)
{
    return q > 0 && (tok_eq(ts, q - 1, ";") || tok_eq(ts, q - 1, "{") || tok_eq(ts, q - 1, "}") ||
                     tok_eq(ts, q - 1, ")") || tok_eq(ts, q - 1, "else"));
}

/* Does [a, b) name the token k's name (a use)? */
static bool mentions(const rw_toks *ts, size_t a, size_t b, size_t k)
{
    for (size_t q = a; q < b; q++)
        if (ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) && rwl_same_tok(ts, q, k))
            return true;
    return false;
}

/* The sum update at q (`X += E;` and its forms) ending before b: its end, or 0. */
static size_t sum_update(const rw_toks *ts, size_t q, size_t b)
{
    if (!stmt_start(ts, q))
        return 0;
    size_t e = rwl_stmt_end(ts, q, b);
    if (e <= q + 3 || !tok_eq(ts, e - 1, ";"))
        return 0;
    if (tok_eq(ts, q + 1, "+=") || tok_eq(ts, q + 1, "-="))
        return mentions(ts, q + 2, e - 1, q) || rwl_writes_any(ts, q + 2, e - 1) ? 0 : e;
    if (!tok_eq(ts, q + 1, "="))
        return 0;
    if (rwl_same_tok(ts, q + 2, q) && (tok_eq(ts, q + 3, "+") || tok_eq(ts, q + 3, "-")) && e > q + 5)
        return mentions(ts, q + 4, e - 1, q) || rwl_writes_any(ts, q + 4, e - 1) ||
                       rwl_has_loose_op(ts, q + 4, e - 1)
                   ? 0
                   : e;
    if ((tok_eq(ts, q + 2, "fmaf") || tok_eq(ts, q + 2, "fma")) && tok_eq(ts, q + 3, "(") &&
        rwl_match_close(ts, q + 3) == e - 2 && rwl_same_tok(ts, e - 3, q) &&
        tok_eq(ts, e - 4, ","))
        return mentions(ts, q + 4, e - 4, q) || rwl_writes_any(ts, q + 4, e - 4) ? 0 : e;
    return 0;
}

/* The pass [p->fa, p->fb): its reductions into p->acc, else a refusal. ra: the region's
 * first token (reductions' locals are declared at its top level before the pass). */
static bool read_pass(const an_function *f, const char *text, const rw_toks *ts, size_t ra, cp_pass *p,
                      char *why, size_t nwhy)
{
    size_t a = p->ba, b = p->bb;
    unsigned char *cov = calloc(ts->n, 1);
    if (!cov)
        return rwl_refuse(why, nwhy, ts, text, p->fa, "loop", "%s", EN(RW_CP_LOOP));
    bool ok = true;
    p->n_acc = 0;
    /* the updates: mark their tokens, collect their locals */
    for (size_t q = a; q < b && ok; q++) {
        size_t e = 0, accq = 0;
        int kind = CP_SUM;
        bool max = false;
        char fn[8] = "";
        rwl_minmax mm;
        if (tok_eq(ts, q, "if") && stmt_start(ts, q)) {
            size_t se = rwl_stmt_end(ts, q, b);
            if (rwl_minmax_update(ts, q, se, &mm) && !mm.fn[0]) {
                e = se;
                accq = mm.acc;
                kind = CP_SELECT;
                max = mm.max;
            }
        } else if (ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) && stmt_start(ts, q) && tok_eq(ts, q + 1, "=") &&
                   !rwl_declared_in(ts, a, q + 1, q)) {
            size_t se = rwl_stmt_end(ts, q, b);
            if (rwl_minmax_update(ts, q, se, &mm)) {
                e = se;
                accq = q;
                kind = mm.fn[0] ? CP_CALL : CP_SELECT;
                max = mm.max;
                memcpy(fn, mm.fn, sizeof fn);
            }
        }
        if (!e && ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) && !rwl_declared_in(ts, a, q + 1, q)) {
            size_t se = sum_update(ts, q, b);
            if (se) {
                e = se;
                accq = q;
                kind = CP_SUM;
            }
        }
        if (!e)
            continue;
        size_t d = top_decl(ts, ra, p->fa, accq);
        if (!d || rwl_is_param(f, ts, accq) || rwl_declared_in(ts, a, b, accq))
            continue; /* not a reduction's local: the carried-value check below refuses it */
        if (kind == CP_SUM) {
            char *ty = acc_type(ts, ra, d);
            bool bad = ty && (int_type_text(ty) || strstr(ty, "bool")) && !int_sum_ok(f, ts, q, e, ty);
            free(ty);
            if (bad) {
                ok = rwl_refuse(why, nwhy, ts, text, q, "reduction", EN(RW_CP_TRUNC),
                                (int)(ts->t[accq].end - ts->t[accq].start), text + ts->t[accq].start);
                break;
            }
        }
        size_t i;
        for (i = 0; i < p->n_acc; i++)
            if (rwl_same_tok(ts, p->acc[i].decl, accq))
                break;
        if (i == p->n_acc) {
            if (p->n_acc == CP_MAX_ACC) {
                ok = rwl_refuse(why, nwhy, ts, text, q, "reduction", EN(RW_CP_UPDATE),
                                (int)(ts->t[accq].end - ts->t[accq].start), text + ts->t[accq].start);
                break;
            }
            p->acc[i] = (cp_acc){.decl = d, .kind = kind, .max = max};
            memcpy(p->acc[i].fn, fn, sizeof fn);
            p->n_acc++;
        } else if (p->acc[i].kind != kind || p->acc[i].max != max || strcmp(p->acc[i].fn, fn)) {
            ok = rwl_refuse(why, nwhy, ts, text, q, "reduction", EN(RW_CP_UPDATE),
                            (int)(ts->t[accq].end - ts->t[accq].start), text + ts->t[accq].start);
            break;
        }
        for (size_t k = q; k < e; k++)
            if (ts->t[k].kind == T_IDENT && rwl_same_tok(ts, k, accq))
                cov[k] = 1;
        cov[accq] = 1;
    }
    /* every other token: a reduction's local only where covered; a written name the
     * iteration's own; the counter never written */
    for (size_t q = a; q < b && ok; q++) {
        if (ts->t[q].kind != T_IDENT || !rwl_is_use(ts, q))
            continue;
        const char *c = text + ts->t[q].start;
        int l = (int)(ts->t[q].end - ts->t[q].start);
        bool is_acc = false;
        for (size_t i = 0; i < p->n_acc; i++)
            is_acc |= rwl_same_tok(ts, q, p->acc[i].decl);
        if (is_acc) {
            if (!cov[q])
                ok = rwl_refuse(why, nwhy, ts, text, q, "reduction", EN(RW_CP_UPDATE), l, c);
            continue;
        }
        if (rwl_same_tok(ts, q, p->ctr) && rwl_scalar_written(ts, q)) {
            ok = rwl_refuse(why, nwhy, ts, text, q, "loop index", EN(RW_SL_CARRIED), l, c);
            continue;
        }
        if (rwl_scalar_written(ts, q) && !rwl_declared_here(ts, q) &&
            (!rwl_declared_in(ts, a, q + 1, q) || rwl_declared_in(ts, 0, p->ba, q) || rwl_is_param(f, ts, q)))
            ok = rwl_refuse(why, nwhy, ts, text, q, "carried value", EN(RW_SL_CARRIED), l, c);
    }
    /* A and B read no reduction's local */
    for (size_t i = 0; i < p->n_acc && ok; i++)
        if (mentions(ts, p->fa + 2, p->close, p->acc[i].decl))
            ok = rwl_refuse(why, nwhy, ts, text, p->fa, "loop", "%s", EN(RW_CP_LOOP));
    free(cov);
    return ok;
}

/* The accumulator's type: the leading type words of its declaration statement. */
static char *acc_type(const rw_toks *ts, size_t ra, size_t d)
{
    size_t s = ra;
    for (size_t q = ra; q < d;) {
        size_t e = rwl_stmt_end(ts, q, ts->n);
        if (e > d) {
            s = q;
            break;
        }
        q = e;
    }
    size_t k = s;
    while (k < d && type_word(ts, k))
        k++;
    if (k == s && ts->t[s].kind == T_IDENT && s + 1 == d)
        k = s + 1; /* `T x`: a typedef or template type */
    if (k == s)
        return NULL;
    return rwl_tok_text(ts, s, k);
}

static int column_passes(const rw_context *ctx, int S, rw_result *out)
{
    const char *text = ctx->text;
    size_t len = ctx->len;
    *out = (rw_result){0};
    const an_function *f;
    int rc = rwl_check_kernel(text, len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    km_kernel *km = NULL;
    rw_edits es = {0};
    struct hk_buf nb;
    hk_buf_init(&nb, 1u << 22);
    char why[640] = "";
    cp_pass ps[CP_MAX_PASSES];
    size_t np = 0;
    if ((rc = rwl_open_body(text, len, f, true, &ts, &km, why, sizeof why)))
        goto out;
    if (why[0])
        goto refused;
    size_t n = ts.n;
    if (n < 3 || !rwl_tok_is(&ts, 0, "{") || !rwl_tok_is(&ts, n - 1, "}")) {
        rwl_refuse(why, sizeof why, &ts, text, 0, "kernel body", "%s", EN(RW_SL_NO_ID));
        goto refused;
    }
    /* 1. T IDX = <global thread id>; */
    size_t a0 = 1, b0 = 0, eq = rwl_global_id_decl(&ts, text, a0, n - 1, &b0, why, sizeof why);
    if (!eq)
        goto refused;
    size_t idx = eq - 1;
    if (!rwl_scan_untied(text, len, &ts, eq + 1, b0, numeric_macro, why, sizeof why))
        goto refused;
    /* 2. the guard */
    size_t g0 = b0, ra = 0, rb = 0, bound = 0;
    bool guard_ok = false;
    if (tok_eq(&ts, g0, "if") && tok_eq(&ts, g0 + 1, "(") && tok_eq(&ts, g0 + 5, ")") &&
        rwl_same_tok(&ts, g0 + 2, idx) && ts.t[g0 + 4].kind == T_IDENT) {
        bound = g0 + 4;
        if (tok_eq(&ts, g0 + 3, "<") && tok_eq(&ts, g0 + 6, "{")) {
            size_t c = rwl_match_close(&ts, g0 + 6);
            if (c + 1 == n - 1) {
                ra = g0 + 7;
                rb = c;
                guard_ok = true;
            }
        } else if (tok_eq(&ts, g0 + 3, ">=") && tok_eq(&ts, g0 + 6, "return") && tok_eq(&ts, g0 + 7, ";")) {
            ra = g0 + 8;
            rb = n - 1;
            guard_ok = true;
        }
    }
    if (guard_ok)
        for (size_t q = 0; q < n; q++)
            if (ts.t[q].kind == T_IDENT && rwl_same_tok(&ts, q, bound) && rwl_is_use(&ts, q) &&
                (rwl_scalar_written(&ts, q) || rwl_declared_here(&ts, q)))
                guard_ok = false;
    if (!guard_ok) {
        rwl_refuse(why, sizeof why, &ts, text, g0, "guard", "%s", EN(RW_SL_NO_GUARD));
        goto refused;
    }
    /* names of the proof never declared again; parameters never written */
    for (size_t q = 1; q < n; q++) {
        if (ts.t[q].kind != T_IDENT || !rwl_is_use(&ts, q))
            continue;
        const char *c = text + ts.t[q].start;
        int l = (int)(ts.t[q].end - ts.t[q].start);
        if ((q != idx && rwl_same_tok(&ts, q, idx) && (rwl_declared_here(&ts, q) || rwl_scalar_written(&ts, q))) ||
            (rwl_is_param(f, &ts, q) && (rwl_declared_here(&ts, q) || rwl_scalar_written(&ts, q)))) {
            rwl_refuse(why, sizeof why, &ts, text, q, "declaration", EN(RW_CP_SHADOW), l, c);
            goto refused;
        }
    }
    /* 3. the region's top-level statements: the passes */
    size_t last_end = ra; /* one past the last pass */
    for (size_t q = ra; q < rb;) {
        size_t e = rwl_stmt_end(&ts, q, rb);
        if (tok_eq(&ts, q, "for")) {
            cp_pass p = {.fa = q, .fb = e};
            bool hdr = read_header(&ts, q, e, &p);
            if (hdr && !read_pass(f, text, &ts, ra, &p, why, sizeof why))
                goto refused;
            if (hdr && p.n_acc) {
                if (np == CP_MAX_PASSES) {
                    rwl_refuse(why, sizeof why, &ts, text, q, "loop", "%s", EN(RW_CP_PASSES));
                    goto refused;
                }
                ps[np++] = p;
                last_end = e;
            } else if (!hdr) {
                /* a loop of another form: fine after the last pass, else refused below */
                ps[np < CP_MAX_PASSES ? np : CP_MAX_PASSES - 1].fa = 0;
            }
        }
        q = e;
    }
    /* before the last pass: every top-level loop a pass, no while/do, no store, no jump; a
     * pass's bounds read no name its body writes */
    for (size_t q = ra; q < last_end;) {
        size_t e = rwl_stmt_end(&ts, q, rb);
        bool pass = false;
        for (size_t i = 0; i < np; i++)
            pass |= ps[i].fa == q;
        if (!pass && (tok_eq(&ts, q, "for") || tok_eq(&ts, q, "while") || tok_eq(&ts, q, "do"))) {
            rwl_refuse(why, sizeof why, &ts, text, q, "loop", "%s",
                       tok_eq(&ts, q, "for") ? EN(RW_CP_LOOP) : EN(RW_CP_STMT));
            goto refused;
        }
        q = e;
    }
    if (np < 2) {
        rwl_refuse(why, sizeof why, &ts, text, np ? ps[0].fa : ra, "loop", "%s", EN(RW_CP_PASSES));
        goto refused;
    }
    for (size_t i = 0; i < np; i++) {
        for (size_t k = ps[i].fa + 2; k < ps[i].close; k++)
            if (ts.t[k].kind == T_IDENT && rwl_is_use(&ts, k) && rwl_declared_in(&ts, ps[i].ba, ps[i].bb, k) &&
                !rwl_same_tok(&ts, k, ps[i].ctr)) {
                rwl_refuse(why, sizeof why, &ts, text, ps[i].fa, "loop", "%s", EN(RW_CP_LOOP));
                goto refused;
            }
        /* a reduction's local not declared again anywhere after its declaration */
        for (size_t j = 0; j < ps[i].n_acc; j++) {
            size_t d = ps[i].acc[j].decl;
            for (size_t k = ra; k < rb; k++)
                if (k != d && ts.t[k].kind == T_IDENT && rwl_same_tok(&ts, k, d) && rwl_declared_here(&ts, k)) {
                    rwl_refuse(why, sizeof why, &ts, text, k, "declaration", EN(RW_CP_SHADOW),
                               (int)(ts.t[k].end - ts.t[k].start), text + ts.t[k].start);
                    goto refused;
                }
        }
    }
    /* a map loop: the region's last statement a counted loop after the last pass, reducing
     * nothing and carrying nothing, the statements before it storing nothing; its stores
     * (checked below) go to one base at one index E + I. Else the tail runs on slice 0. */
    cp_pass map = {0};
    bool mapped = false;
    {
        size_t lastst = 0;
        for (size_t q = last_end; q < rb;) {
            lastst = q;
            q = rwl_stmt_end(&ts, q, rb);
        }
        if (lastst && tok_eq(&ts, lastst, "for") && rwl_stmt_end(&ts, lastst, rb) == rb) {
            map.fa = lastst;
            map.fb = rb;
            char keep[sizeof why];
            memcpy(keep, why, sizeof why);
            if (read_header(&ts, lastst, rb, &map) && read_pass(f, text, &ts, ra, &map, why, sizeof why) && !map.n_acc)
                mapped = true;
            memcpy(why, keep, sizeof why);
            for (size_t k = map.fa + 2; mapped && k < map.close; k++)
                if (ts.t[k].kind == T_IDENT && rwl_is_use(&ts, k) && rwl_declared_in(&ts, map.ba, map.bb, k) &&
                    !rwl_same_tok(&ts, k, map.ctr))
                    mapped = false;
        }
    }
    size_t map_base, map_ia, map_ib;
    bool map_bad;
recheck:
    map_base = map_ia = map_ib = 0;
    map_bad = false;
    for (size_t q = ra; q < rb && !map_bad; q++) {
        const char *c = text + ts.t[q].start;
        int l = (int)(ts.t[q].end - ts.t[q].start);
        bool in_map = mapped && q >= map.fa;
        bool pre = q < last_end || (mapped && !in_map);
        if (tok_eq(&ts, q, "return") || tok_eq(&ts, q, "goto") ||
            ((pre || in_map) && (tok_eq(&ts, q, "break") || tok_eq(&ts, q, "continue")))) {
            rwl_refuse(why, sizeof why, &ts, text, q, "jump", EN(RW_CP_JUMP), l, c);
            goto refused;
        }
        /* writes: an assignment's target a plain name, else a store */
        bool store = false;
        size_t base = 0;
        if (rwl_tok_is_assign_op(&ts, q) || tok_eq(&ts, q, "++") || tok_eq(&ts, q, "--")) {
            bool incdec = !rwl_tok_is_assign_op(&ts, q);
            size_t t = q - 1;
            if (incdec && !(ts.t[t].kind == T_IDENT || tok_eq(&ts, t, "]")))
                t = q + 1; /* prefix */
            if (incdec && t == q + 1) {
                if (ts.t[t].kind == T_IDENT && tok_eq(&ts, t + 1, "["))
                    store = true, base = t;
                else if (!(ts.t[t].kind == T_IDENT && rwl_is_use(&ts, t)))
                    store = true;
            } else if (tok_eq(&ts, t, "]")) {
                store = true;
                /* the subscripted name: walk back over [..] groups */
                size_t k = t;
                while (tok_eq(&ts, k, "]")) {
                    size_t o = k;
                    int depth = 0;
                    while (o > ra) {
                        if (tok_eq(&ts, o, "]"))
                            depth++;
                        else if (tok_eq(&ts, o, "[") && --depth == 0)
                            break;
                        o--;
                    }
                    k = o - 1;
                }
                base = ts.t[k].kind == T_IDENT ? k : 0;
            } else if (!(ts.t[t].kind == T_IDENT && rwl_is_use(&ts, t)))
                store = true;
        }
        if (!store)
            continue;
        size_t ldecl = 0, root = base ? store_root(f, &ts, ra, rb, base, &ldecl) : 0;
        if (pre || !root) {
            rwl_refuse(why, sizeof why, &ts, text, q, "store", "%s", EN(RW_CP_STORE));
            goto refused;
        }
        if (in_map) {
            /* one base, one index E + I, a plain `=` of one subscript */
            size_t ob = base + 1, cb = rwl_match_close(&ts, base + 1);
            if (!tok_eq(&ts, ob, "[") || cb + 1 != q || !tok_eq(&ts, q, "=") || !map_index(&ts, &map, ob + 1, cb) ||
                (map_base && (!rwl_same_tok(&ts, map_base, base) || cb - ob - 1 != map_ib - map_ia))) {
                map_bad = true; /* not shown disjoint: the loop runs on slice 0 as the tail */
                break;
            }
            for (size_t k = 0; map_base && k < cb - ob - 1; k++)
                if (!rwl_same_tok(&ts, ob + 1 + k, map_ia + k))
                    map_bad = true;
            if (map_bad)
                break;
            map_base = base;
            map_ia = ob + 1;
            map_ib = cb;
        }
        /* every use of the stored parameter a store's target `P[..] = `, or the one local
         * pointer's initializer, and every use of that pointer a store's target */
        for (size_t k = 1; k < n; k++) {
            if (ts.t[k].kind != T_IDENT || !rwl_is_use(&ts, k) || !rwl_same_tok(&ts, k, root))
                continue;
            size_t cb = tok_eq(&ts, k + 1, "[") ? rwl_match_close(&ts, k + 1) : n;
            bool ok = cb < n && tok_eq(&ts, cb + 1, "=");
            if (!ok && k >= 3 && tok_eq(&ts, k - 1, "=") && top_decl(&ts, ra, rb, k - 2) == k - 2 && tok_eq(&ts, k - 3, "*") &&
                store_root(f, &ts, ra, rb, k - 2, &(size_t){0}) == k && only_stores(&ts, k - 2, k - 2))
                ok = true;
            if (!ok) {
                rwl_refuse(why, sizeof why, &ts, text, k, "output", EN(RW_CP_OUTPUT), (int)(ts.t[k].end - ts.t[k].start),
                           text + ts.t[k].start);
                goto refused;
            }
        }
        if (ldecl && !only_stores(&ts, ldecl, ldecl)) {
            rwl_refuse(why, sizeof why, &ts, text, base, "output", EN(RW_CP_OUTPUT),
                       (int)(ts.t[base].end - ts.t[base].start), text + ts.t[base].start);
            goto refused;
        }
    }
    if (map_bad) {
        mapped = false;
        goto recheck;
    }
    if (mapped && !map_base)
        mapped = false; /* a loop that stores nothing: the tail as it is */
    /* 4. the layout: the first pass's counter multiplied -> columns walked down */
    bool column = false;
    for (size_t k = ps[0].ba; k < ps[0].bb; k++)
        if (ts.t[k].kind == T_IDENT && rwl_same_tok(&ts, k, ps[0].ctr) &&
            (tok_eq(&ts, k + 1, "*") || (tok_eq(&ts, k - 1, "*") && !rwl_unary_position(&ts, k - 1))))
            column = true;
    /* 5. the new body */
    char *ity = rwl_tok_text(&ts, a0, idx);
    char *bnd = rwl_tok_text(&ts, bound, bound + 1);
    if (!ity || !bnd) {
        free(ity);
        free(bnd);
        rc = HK_ENOMEM;
        goto out;
    }
    int w = 0;
    w |= hk_buf_printf(&nb, "\n    /* hk column_passes: %zu passes, %d slices a column (%s layout) */\n", /* i18n: not for people */
                       np, S, column ? "column" : "row");
    size_t slot = 0, shared = 0;
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < ps[i].n_acc; j++, slot++) {
            char *ty = acc_type(&ts, ra, ps[i].acc[j].decl);
            if (!ty) {
                free(ity);
                free(bnd);
                rwl_refuse(why, sizeof why, &ts, text, ps[i].acc[j].decl, "reduction", EN(RW_CP_UPDATE),
                           (int)(ts.t[ps[i].acc[j].decl].end - ts.t[ps[i].acc[j].decl].start),
                           text + ts.t[ps[i].acc[j].decl].start);
                goto refused;
            }
            /* 8 bytes for the wide types and for a template or typedef type (not known) */
            shared += strstr(ty, "double") || strstr(ty, "long") || strstr(ty, "size_t") || !type_word(&ts, ra) ||
                              !(type_word(&ts, ps[i].acc[j].decl - 1))
                          ? 8192
                          : 4096;
            if (shared > 48 * 1024) {
                free(ty);
                free(ity);
                free(bnd);
                rwl_refuse(why, sizeof why, &ts, text, ps[i].fa, "loop", "%s", EN(RW_CP_SHARED));
                goto refused;
            }
            w |= hk_buf_printf(&nb, "    __shared__ %s hk_cp%zu[1024];\n", ty, slot); /* i18n: not for people */
            free(ty);
        }
    w |= hk_buf_printf(&nb,
                       "    const unsigned hk_nt = blockDim.x * blockDim.y * blockDim.z;\n" /* i18n: not for people */
                       "    const unsigned hk_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n" /* i18n: not for people */
                       "    const unsigned hk_s = hk_nt < %du ? hk_nt : %du;\n" /* i18n: not for people */
                       "    const unsigned hk_w = hk_nt / hk_s;\n" /* i18n: not for people */
                       "    const unsigned hk_c = %s;\n" /* i18n: not for people */
                       "    const unsigned hk_r = %s;\n" /* i18n: not for people */
                       "    const bool hk_live = hk_r < hk_s && hk_c < hk_w;\n" /* i18n: not for people */
                       "    for (long long hk_g = blockIdx.x; hk_g * (long long)hk_w < (long long)(%s); hk_g += gridDim.x) {\n" /* i18n: not for people */
                       "        const long long hk_col = hk_g * (long long)hk_w + (long long)(hk_live ? hk_c : 0u);\n" /* i18n: not for people */
                       "        const bool hk_on = hk_live && hk_col < (long long)(%s);\n", /* i18n: not for people */
                       S, S, column ? "hk_t % hk_w" : "hk_t / hk_s", column ? "hk_t / hk_w" : "hk_t % hk_s", bnd, bnd);
    free(bnd);
    /* the index statement's type and name verbatim, its value the group's column */
    char *decl = rwl_tok_text(&ts, a0, eq);
    if (!decl) {
        free(ity);
        rc = HK_ENOMEM;
        goto out;
    }
    w |= hk_buf_printf(&nb, "        %s = (%s)(hk_on ? hk_col : hk_g * (long long)hk_w);\n", decl, ity); /* i18n: not for people */
    free(decl);
    free(ity);
    if (w) {
        rc = HK_ENOMEM;
        goto out;
    }
    slot = 0;
    size_t cur = ra;
    for (size_t i = 0; i < np; i++) {
        cp_pass *p = &ps[i];
        /* PRE / MID verbatim */
        if (p->fa > cur) {
            w |= hk_buf_appends(&nb, "        ");
            w |= hk_buf_append(&nb, text + ts.t[cur].start, ts.t[p->fa - 1].end - ts.t[cur].start);
            w |= hk_buf_appends(&nb, "\n");
        }
        char *ctn = rwl_tok_text(&ts, p->ctr, p->ctr + 1);
        char *cty = rwl_tok_text(&ts, p->fa + 2, p->ctr);
        char *st = rwl_tok_text(&ts, p->st_a, p->st_b);
        if (!ctn || !cty || !st) {
            free(ctn);
            free(cty);
            free(st);
            rc = HK_ENOMEM;
            goto out;
        }
        for (size_t j = 0; j < p->n_acc; j++) {
            char *an = rwl_tok_text(&ts, p->acc[j].decl, p->acc[j].decl + 1);
            if (p->acc[j].kind == CP_SUM)
                w |= !an || hk_buf_printf(&nb, "        const auto hk_a%zu = %s; %s = 0;\n", slot + j, an, an); /* i18n: not for people */
            else
                w |= !an || hk_buf_printf(&nb, "        const auto hk_a%zu = %s;\n", slot + j, an); /* i18n: not for people */
            free(an);
        }
        /* the loop: its start moved by the slice, its step S, its test and body verbatim */
        w |= hk_buf_printf(&nb, "        if (hk_live) for (%s %s = (%s) + (%s)hk_r; ", cty, ctn, st, cty); /* i18n: not for people */
        size_t s1 = p->st_b + 1;
        size_t s2 = s1;
        while (!tok_eq(&ts, s2, ";"))
            s2++;
        w |= hk_buf_append(&nb, text + ts.t[s1].start, ts.t[s2].end - ts.t[s1].start);
        w |= hk_buf_printf(&nb, " %s += (%s)hk_s) ", ctn, cty); /* i18n: not for people */
        w |= hk_buf_append(&nb, text + ts.t[p->ca].start, ts.t[p->cb - 1].end - ts.t[p->ca].start);
        w |= hk_buf_appends(&nb, "\n");
        free(ctn);
        free(cty);
        free(st);
        for (size_t j = 0; j < p->n_acc; j++) {
            char *an = rwl_tok_text(&ts, p->acc[j].decl, p->acc[j].decl + 1);
            w |= !an || hk_buf_printf(&nb, "        if (hk_live) hk_cp%zu[hk_r * hk_w + hk_c] = %s;\n", slot + j, an); /* i18n: not for people */
            free(an);
        }
        w |= hk_buf_appends(&nb, "        __syncthreads();\n        if (hk_live) {\n"); /* i18n: not for people */
        for (size_t j = 0; j < p->n_acc; j++) {
            char *an = rwl_tok_text(&ts, p->acc[j].decl, p->acc[j].decl + 1);
            if (!an) {
                rc = HK_ENOMEM;
                goto out;
            }
            if (p->acc[j].kind == CP_SUM)
                w |= hk_buf_printf(&nb, /* i18n: not for people */
                                   "            %s = hk_a%zu; for (unsigned hk_k = 0; hk_k < hk_s; hk_k++) %s += hk_cp%zu[hk_k * hk_w + hk_c];\n", /* i18n: not for people */
                                   an, slot + j, an, slot + j);
            else if (p->acc[j].kind == CP_CALL)
                w |= hk_buf_printf(&nb, /* i18n: not for people */
                                   "            %s = hk_a%zu; for (unsigned hk_k = 0; hk_k < hk_s; hk_k++) %s = %s(%s, hk_cp%zu[hk_k * hk_w + hk_c]);\n", /* i18n: not for people */
                                   an, slot + j, an, p->acc[j].fn, an, slot + j);
            else
                w |= hk_buf_printf(&nb, /* i18n: not for people */
                                   "            %s = hk_a%zu; for (unsigned hk_k = 0; hk_k < hk_s; hk_k++) if (hk_cp%zu[hk_k * hk_w + hk_c] %s %s) %s = hk_cp%zu[hk_k * hk_w + hk_c];\n", /* i18n: not for people */
                                   an, slot + j, slot + j, p->acc[j].max ? ">" : "<", an, an, slot + j);
            free(an);
        }
        w |= hk_buf_appends(&nb, "        }\n");
        slot += p->n_acc;
        cur = p->fb;
    }
    if (mapped) {
        /* the statements before the map loop in every slice, the loop split as a pass */
        if (map.fa > cur) {
            w |= hk_buf_appends(&nb, "        ");
            w |= hk_buf_append(&nb, text + ts.t[cur].start, ts.t[map.fa - 1].end - ts.t[cur].start);
            w |= hk_buf_appends(&nb, "\n");
        }
        char *ctn = rwl_tok_text(&ts, map.ctr, map.ctr + 1);
        char *cty = rwl_tok_text(&ts, map.fa + 2, map.ctr);
        char *st = rwl_tok_text(&ts, map.st_a, map.st_b);
        if (!ctn || !cty || !st) {
            free(ctn);
            free(cty);
            free(st);
            rc = HK_ENOMEM;
            goto out;
        }
        w |= hk_buf_printf(&nb, "        if (hk_on) for (%s %s = (%s) + (%s)hk_r; ", cty, ctn, st, cty); /* i18n: not for people */
        size_t s1 = map.st_b + 1, s2 = s1;
        while (!tok_eq(&ts, s2, ";"))
            s2++;
        w |= hk_buf_append(&nb, text + ts.t[s1].start, ts.t[s2].end - ts.t[s1].start);
        w |= hk_buf_printf(&nb, " %s += (%s)hk_s) ", ctn, cty); /* i18n: not for people */
        w |= hk_buf_append(&nb, text + ts.t[map.ca].start, ts.t[map.cb - 1].end - ts.t[map.ca].start);
        w |= hk_buf_appends(&nb, "\n");
        free(ctn);
        free(cty);
        free(st);
        cur = rb;
    }
    if (rb > cur) {
        w |= hk_buf_appends(&nb, "        if (hk_on && hk_r == 0u) {\n        "); /* i18n: not for people */
        w |= hk_buf_append(&nb, text + ts.t[cur].start, ts.t[rb - 1].end - ts.t[cur].start);
        w |= hk_buf_appends(&nb, "\n        }\n");
    }
    w |= hk_buf_appends(&nb, "        __syncthreads();\n    }\n"); /* i18n: not for people */
    if (w) {
        rc = HK_ENOMEM;
        goto out;
    }
    char *body = hk_buf_steal(&nb);
    if (!body) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_edits_add_owned(&es, ts.t[0].end, ts.t[n - 1].start, body)))
        goto out;
    char *ctn = rwl_tok_text(&ts, ps[0].ctr, ps[0].ctr + 1);
    char *d = ctn ? hk_asprintf(EN(RW_CP_DESC), f->name, (int)np, ctn, S, column ? "column" : "row",
                                column ? "a slice's lanes are neighbouring columns" /* i18n: not for people */
                                       : "the slices of one row are neighbouring lanes", /* i18n: not for people */
                                S)
                  : NULL;
    free(ctn);
    rc = rwl_finish(text, len, ctx->m, f->name, &es, d, out);
    if (rc == HK_OK && out->applicable) {
        out->grid_multiplier = (unsigned)S;
        out->grid_axis = 0;
    }
    goto out;
refused:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "column_passes", f->name,
                                             why[0] ? why : EN(RW_NO_REASON)));
out:
    hk_buf_free(&nb);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    km_free(km);
    return rc;
}

static const rw_param colpass_params[] = {
    {.name = "slices", .type = RW_PARAM_ENUM, .values = {4, 8, 16, 32}, .n_values = 4, .def = 16},
};

static int emit_column_passes(const rw_context *c, const int *p, rw_result *out)
{
    return column_passes(c, p[0], out);
}

const rw_descriptor rw_column_passes_desc = {
    .name = "column_passes",
    .summary = "dependent reduction passes of a thread per column split over S slices, broadcast through shared memory (grid x S)", /* i18n: not for people (no listing reads it) */
    .params = colpass_params,
    .n_params = HK_ARRAY_LEN(colpass_params),
    /* a structural rewrite of its class, not RW_ALGORITHM: its skill's query (two counted
     * loops, thread indices, no shared memory) also fits thread-per-row kernels, where
     * warp_rows and the online rewrites are the better algorithm; planned as an algorithm it
     * came first in every class on sum_rows, rmsnorm and softmax, ahead of them
     * (test_engine_rewrite_rows test_skill_plan, test_engine_skillplan test_suite_kernels) */
    .flags = 0,
    .emit = emit_column_passes,
};
