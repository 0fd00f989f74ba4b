/* store_forward (issue 13, session 44): a block-per-row kernel that stores a value and reads
 * it back in a later pass gets the value forwarded instead of re-read. Exact.
 *
 * The shape: the kernel body's top-level statements hold block-strided row loops
 * `for (T i = tid; i < N; i += B)` (tid the thread's threadIdx.x, B blockDim.x or a local of
 * it, N the same for the whole block; every such loop the same start, bound and step) whose
 * bodies are straight-line statements over row elements `P[OFF + i]` or `x[i]` with x a
 * local pointer `x = P + OFF` (re-pointed between loops as llm.c does). llm.c's
 * softmax_forward_kernel2 makes four passes over its row: the maximum of inp, out = expf(inp
 * - max), the sum of out read back, out = out / sum read back again: 4 reads and 2 writes an
 * element where 1 and 1 do.
 *
 * Why the same: with a 1-D block and B = blockDim.x, element i of every row loop belongs to
 * the one thread with threadIdx.x = i mod B, in every loop, and the buffers the loops write
 * are touched nowhere else in the kernel (checked: every other use refuses). So between a
 * thread's store of E to an element and its later read of that element nothing else writes
 * it (another block writing this block's row races in the original; blocks are assumed to
 * own their rows, as in register_carry), and the read returns E converted to the element
 * type. Two forms, chosen at run time by a test that is the same for the whole block (N, B
 * and the block shape), so every barrier outside the loops is reached by all or none:
 *   - registers, when N <= cap * B: each row loop becomes `for (c < cap) { i = tid + c * B;
 *     if (i < N) body }` (fully unrolled), a stored value is kept in `hk_fw<k>[c]` and read
 *     from there, an element of a buffer never written that is read in two loops is loaded
 *     once into such an array;
 *   - recomputed otherwise: a read is replaced by the stored expression, re-evaluated, when
 *     it reads only buffers the kernel never writes (the row reads spelled through their
 *     buffer, `(inp + (idx * C))[i]`, since x may point elsewhere by then) and locals no
 *     statement writes from the store's loop to the read's loop; expf and the rest are
 *     deterministic, so the value is the same bits.
 * In both, a store that a later store of the same thread to the same element overwrites,
 * with every read between them forwarded, is dropped. A stored product or quotient is not
 * forwarded: recomputed or kept in a register it could be contracted into the reader's add
 * (fmad), which the store's rounding prevented. Pointer buffers that may be one (in place:
 * out == inp; a written row buffer and any other pointer parameter the body names, read beside
 * the rows or through a local copy) take the original body, a test at run time too.
 * Refused with the construct and line: no such loop, loops with another start, bound or step,
 * a row buffer used outside the row loops, a body with control flow, a barrier or a call
 * that is not pure, an early exit after the first row loop, a pointer-to-pointers parameter
 * or a structure passed by value whose members the body reads (no test of pointers sees a row
 * reached through them), and nothing to forward. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define SF_LOOPS 16
#define SF_STMTS 256
#define SF_EVENTS 512
#define SF_SLOTS 16
#define SF_ALIASES 8
#define SF_TEXT 2048
#define SF_VAR "\x01"   /* the loop variable in a stored expression */

static const char *const name = "store_forward";

typedef struct {
    size_t a, b;          /* the for statement [a, b) */
    size_t var;           /* the loop variable's token */
    size_t ta, tb;        /* its type tokens */
    size_t ca, cb;        /* the condition `i < N` */
    size_t body_a, body_b;/* the statements [body_a, body_b) (inside braces or one) */
} sf_loop;

typedef struct {
    size_t param;         /* the buffer: a pointer parameter */
    char off[256];        /* the row's offset, squeezed ("" none) */
    char off_text[256];   /* as written */
    bool written;         /* the kernel stores to the buffer */
} sf_slot;

enum { EV_READ, EV_STORE };

typedef struct {
    int kind;
    int slot;
    size_t loop;          /* index into loops */
    size_t tok;           /* the access's name token */
    size_t close;         /* its `]` */
    /* stores */
    size_t sa, sb;        /* the statement [sa, sb), ';' included */
    size_t ra, rb;        /* the right side */
    char op[4];           /* "" for `=`, else the compound operator ("+", "/"...) */
    bool product;         /* its value is a product or quotient: never forwarded */
    bool pure_rhs;        /* the right side writes nothing: the statement can go */
    /* reads */
    int reach;            /* the store event it reads (-1: memory before any store) */
    bool fwd_reg, fwd_rec;/* forwarded in the register / recomputed form */
    bool dead_reg, dead_rec; /* stores: overwritten with every read between forwarded */
    bool rec_ok;          /* stores: its expression may be re-evaluated */
    size_t from;          /* stores: the first token from which its locals must stay */
    char *rec;            /* stores: its expression, loop variable as SF_VAR (owned) */
} sf_event;

typedef struct {
    const rw_toks *ts;
    const char *text;
    size_t len;
    const an_function *f;
    size_t stmt[SF_STMTS], n_stmt;   /* top-level statements' first tokens; stmt[n] = end */
    sf_loop loops[SF_LOOPS];
    size_t n_loops;
    int loop_of_stmt[SF_STMTS];      /* -1: not a row loop */
    sf_slot slots[SF_SLOTS];
    size_t n_slots;
    sf_event ev[SF_EVENTS];
    size_t n_ev;
    /* local pointer aliases: name token, buffer, offset; valid from statement `from` */
    struct { size_t name_tok; size_t param; char off[256], off_text[256]; bool bound; unsigned long long ever; } al[SF_ALIASES];
    size_t n_al;
    char why[600];
    bool oom;                        /* an allocation failed in a helper: HK_ENOMEM at the end */
} sf_state;

/* Is the name at k a use of a parameter (its index into *ix)? */
static bool param_at(const sf_state *s, size_t k, size_t *ix)
{
    const an_param *p = rwp_param_named(s->f, s->ts, k);
    if (!p || !rwl_is_use(s->ts, k))
        return false;
    if (ix)
        *ix = (size_t)(p - s->f->params);
    return true;
}

/* A CUDA vector type (float4, int2, double2...): its members x, y, z, w are values. */
static bool sf_vector_type(const char *t)
{
    static const char *const base[] = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                                       "longlong", "ulonglong", "float", "double", "half", "bfloat16"};
    if (!t)
        return false;
    if (!strcmp(t, "__half2") || !strcmp(t, "half2") || !strcmp(t, "__nv_bfloat162") || !strcmp(t, "dim3"))
        return true;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        size_t n = strlen(base[i]);
        if (!strncmp(t, base[i], n) && t[n] >= '1' && t[n] <= '4' && !t[n + 1])
            return true;
    }
    return false;
}

/* The type name t is one of the function's template type parameters (`typename T`, `class T`). */
static bool sf_template_type(const an_function *f, const char *t)
{
    const char *tp = f->template_params;
    size_t n = t ? strlen(t) : 0;
    if (!tp || !n)
        return false;
    for (const char *q = tp; (q = strstr(q, t)); q += n) {
        bool word = (q == tp || !(isalnum((unsigned char)q[-1]) || q[-1] == '_')) &&
                    !(isalnum((unsigned char)q[n]) || q[n] == '_');
        if (!word)
            continue;
        /* the word before it: typename or class */
        const char *e = q;
        while (e > tp && isspace((unsigned char)e[-1]))
            e--;
        if ((e - tp >= 8 && !strncmp(e - 8, "typename", 8)) || (e - tp >= 5 && !strncmp(e - 5, "class", 5)))
            return true;
    }
    return false;
}

/* The file declares `gname` on a line with __device__ or __constant__ before `end`, not as a function. */
static bool sf_device_global(const char *text, size_t end, const char *gname)
{
    size_t n = strlen(gname);
    for (const char *q = text; n && (q = strstr(q, gname)) && (size_t)(q - text) < end; q += n) {
        if ((q > text && (isalnum((unsigned char)q[-1]) || q[-1] == '_')) || isalnum((unsigned char)q[n]) || q[n] == '_')
            continue;
        const char *ls = q;
        while (ls > text && ls[-1] != '\n')
            ls--;
        const char *r = q + n;
        while (*r == ' ' || *r == '\t')
            r++;
        if (*r != ';' && *r != '=' && *r != '[' && *r != ',')
            continue; /* not the declared name (a type word of the line, a call) */
        char line[512];
        size_t ln = (size_t)(q - ls) < sizeof line - 1 ? (size_t)(q - ls) : sizeof line - 1;
        memcpy(line, ls, ln);
        line[ln] = 0;
        if (strstr(line, "__device__") || strstr(line, "__constant__"))
            return true;
    }
    return false;
}

/* The top-level declaration `NAME = ...` of the name at k (its token), or ts->n. */
static size_t decl_of(const sf_state *s, size_t k)
{
    for (size_t i = 0; i < s->n_stmt; i++)
        for (size_t j = s->stmt[i]; j < s->stmt[i + 1]; j++) {
            if (rwl_tok_is(s->ts, j, "(") || rwl_tok_is(s->ts, j, "{"))
                break;   /* a declaration's names come before any bracket of its own */
            if (rwl_same_tok(s->ts, j, k) && rwl_declared_here(s->ts, j))
                return j;
        }
    return s->ts->n;
}

/* A local declared at top level as `NAME = <builtin>.x` (one of threadIdx, blockDim) and never
 * written again, or the builtin itself at [a, b). */
static bool is_builtin_x(const sf_state *s, size_t a, size_t b, const char *builtin)
{
    const rw_toks *ts = s->ts;
    if (b - a == 3 && rwl_builtin_x(ts, a, builtin))
        return true;
    if (b - a != 1 || ts->t[a].kind != T_IDENT)
        return false;
    size_t d = decl_of(s, a);
    if (d >= ts->n || rwl_written_elsewhere(ts, d, d) || !rwl_tok_is(ts, d + 1, "="))
        return false;
    return rwl_builtin_x(ts, d + 2, builtin) && (rwl_tok_is(ts, d + 5, ";") || rwl_tok_is(ts, d + 5, ","));
}

/* Is the name at k a macro of the file whose text reads the thread's index (threadIdx, HIP's
 * hipThreadIdx_, a lane id)? Then it differs between the block's threads. */
static bool macro_reads_thread(const sf_state *s, size_t k)
{
    const rw_toks *ts = s->ts;
    size_t nl = ts->t[k].end - ts->t[k].start, at = 0, a, b;
    while (rwl_next_define(s->text, s->len, &at, ts->text + ts->t[k].start, nl, &a, &b)) {
        for (size_t i = a; i + 9 <= b; i++)
            if (!memcmp(s->text + i, "threadIdx", 9) || !memcmp(s->text + i, "ThreadIdx", 9) ||
                (i + 6 <= b && !memcmp(s->text + i, "laneid", 6)))
                return true;
    }
    return false;
}

/* Is every name in [a, b) the same for the whole block and unchanged: numbers, parameters
 * never written, blockIdx/blockDim/gridDim, locals declared at top level and never written
 * again, a macro or constant (no local of that name)? A read of memory is not. */
static bool uniform_expr(const sf_state *s, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    for (size_t k = a; k < b; k++) {
        if (rwl_reads_memory(ts, k, k + 2 < b ? k + 2 : b) || rwl_tok_is(ts, k, "threadIdx") ||
            rwl_writes_any(ts, k, k + 1))
            return false;
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        if (rwl_tok_is(ts, k + 1, "(")) {
            if (!rwl_pure_call_name(ts, k) && !rwl_is_type_word(ts, k))
                return false;   /* a function of ours may read the thread index */
            continue;
        }
        if (param_at(s, k, NULL)) {
            if (rwl_written_elsewhere(ts, k, ts->n))
                return false;
            continue;
        }
        size_t d = decl_of(s, k);
        if (d < ts->n && rwl_written_elsewhere(ts, d, d))
            return false;
        if (d >= ts->n && rwl_written_elsewhere(ts, k, ts->n))
            return false;
        if (d >= ts->n && macro_reads_thread(s, k))
            return false;
    }
    return true;
}

static char *squeeze_span(const sf_state *s, size_t a, size_t b, char *out, size_t n)
{
    out[0] = '\0';
    if (a >= b)
        return out;
    char *t = rwl_tok_text(s->ts, a, b);
    if (t) {
        rwl_squeeze(t, out, n);
        hk_free(t);
    } else {
        ((sf_state *)s)->oom = true;
    }
    return out;
}

static void span_copy(const sf_state *s, size_t a, size_t b, char *out, size_t n)
{
    out[0] = '\0';
    if (a >= b)
        return;
    size_t l = s->ts->t[b - 1].end - s->ts->t[a].start;
    snprintf(out, n, "%.*s", (int)l, s->text + s->ts->t[a].start);
}

/* The header of the for at i: `for ( TYPE v = START ; v < N ; v += STEP )`. */
static bool parse_loop(sf_state *s, size_t i, size_t end, sf_loop *L)
{
    const rw_toks *ts = s->ts;
    if (!rwl_tok_is(ts, i, "for") || !rwl_tok_is(ts, i + 1, "("))
        return false;
    size_t close = rwl_match_close(ts, i + 1);
    if (close >= end)
        return false;
    size_t s1 = i + 2;
    while (s1 < close && !rwl_tok_is(ts, s1, ";"))
        s1++;
    size_t eq = i + 2;
    while (eq < s1 && !rwl_tok_is(ts, eq, "="))
        eq++;
    if (eq >= s1 || eq < i + 4)
        return false;
    size_t s2 = s1 + 1;
    while (s2 < close && !rwl_tok_is(ts, s2, ";"))
        s2++;
    L->var = eq - 1;
    if (s2 >= close || !rwl_same_tok(ts, s1 + 1, L->var) || !rwl_tok_is(ts, s1 + 2, "<") ||
        !rwl_same_tok(ts, s2 + 1, L->var) || !rwl_tok_is(ts, s2 + 2, "+="))
        return false;
    if (!is_builtin_x(s, eq + 1, s1, "threadIdx") || !is_builtin_x(s, s2 + 3, close, "blockDim") ||
        !uniform_expr(s, s1 + 3, s2))
        return false;
    L->a = i;
    L->ta = i + 2;
    L->tb = L->var;
    L->ca = s1 + 1;
    L->cb = s2;
    L->b = rwl_stmt_end(ts, close + 1, end);
    if (rwl_tok_is(ts, close + 1, "{")) {
        L->body_a = close + 2;
        L->body_b = L->b - 1;
    } else {
        L->body_a = close + 1;
        L->body_b = L->b;
    }
    return true;
}

/* The header text between `(` and `)` of a row loop, squeezed, without the variable's name
 * (two loops may name it differently). */
static void loop_key(const sf_state *s, const sf_loop *L, char *out, size_t n)
{
    char st[256], bd[256], stp[256];
    const rw_toks *ts = s->ts;
    size_t s1 = L->var + 2;
    while (!rwl_tok_is(ts, s1, ";"))
        s1++;
    squeeze_span(s, L->var + 2, s1, st, sizeof st);
    squeeze_span(s, L->ca + 2, L->cb, bd, sizeof bd);
    size_t close = rwl_match_close(ts, L->a + 1);
    squeeze_span(s, L->cb + 3, close, stp, sizeof stp);
    snprintf(out, n, "%s;%s;%s", st, bd, stp);
}

static int slot_of(sf_state *s, size_t param, const char *off, const char *off_text)
{
    for (size_t i = 0; i < s->n_slots; i++)
        if (s->slots[i].param == param && !strcmp(s->slots[i].off, off))
            return (int)i;
    if (s->n_slots >= SF_SLOTS)
        return -1;
    sf_slot *sl = &s->slots[s->n_slots];
    sl->param = param;
    snprintf(sl->off, sizeof sl->off, "%s", off);
    snprintf(sl->off_text, sizeof sl->off_text, "%s", off_text);
    return (int)s->n_slots++;
}

/* The alias bound to the name at k, or -1. */
static int alias_at(const sf_state *s, size_t k)
{
    for (size_t i = 0; i < s->n_al; i++)
        if (rwl_same_tok(s->ts, k, s->al[i].name_tok))
            return (int)i;
    return -1;
}

/* The row access at k (NAME [ ... ]) in loop L: its slot, or -1 when it is not one. */
static int row_access(sf_state *s, const sf_loop *L, size_t k)
{
    const rw_toks *ts = s->ts;
    if (!rwl_tok_is(ts, k + 1, "["))
        return -1;
    size_t close = rwl_match_close(ts, k + 1);
    if (close >= ts->n)
        return -1;
    size_t a = k + 2, b = close;
    int al = alias_at(s, k);
    if (al >= 0) {
        if (!s->al[al].bound || b != a + 1 || !rwl_same_tok(ts, a, L->var))
            return -1;
        return slot_of(s, s->al[al].param, s->al[al].off, s->al[al].off_text);
    }
    size_t p;
    if (!param_at(s, k, &p) || s->f->params[p].pointer_depth != 1)
        return -1;
    char off[256], off_text[256];
    if (b == a + 1 && rwl_same_tok(ts, a, L->var)) {
        off[0] = off_text[0] = '\0';
    } else if (b > a + 2 && rwl_same_tok(ts, b - 1, L->var) && rwl_tok_is(ts, b - 2, "+") &&
               !rwl_has_loose_op(ts, a, b - 2) && uniform_expr(s, a, b - 2)) {
        squeeze_span(s, a, b - 2, off, sizeof off);
        span_copy(s, a, b - 2, off_text, sizeof off_text);
    } else if (b > a + 2 && rwl_same_tok(ts, a, L->var) && rwl_tok_is(ts, a + 1, "+") &&
               !rwl_has_loose_op(ts, a + 2, b) && uniform_expr(s, a + 2, b)) {
        for (size_t q = a + 2; q < b; q++)   /* i + a - b is (i + a) - b: only * / % after i + */
            if (rwl_tok_is(ts, q, "+") || rwl_tok_is(ts, q, "-"))
                return -1;
        squeeze_span(s, a + 2, b, off, sizeof off);
        span_copy(s, a + 2, b, off_text, sizeof off_text);
    } else {
        return -1;
    }
    for (size_t q = a; q < b; q++)
        if (!rwl_same_tok(ts, q, L->var) && rwl_tok_is(ts, q, "threadIdx"))
            return -1;
    return slot_of(s, p, off, off_text);
}

/* A statement `x = P + OFF;` or `T *x = P + OFF;` (or `= P;`) at top level [a, b): binds alias
 * x. Returns true when it is one (refusal reason set when malformed). */
static bool alias_stmt(sf_state *s, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    size_t eq = a;
    while (eq < b && !rwl_tok_is(ts, eq, "="))
        eq++;
    if (eq >= b || eq == a || ts->t[eq - 1].kind != T_IDENT)
        return false;
    size_t p;
    if (!param_at(s, eq + 1, &p) || s->f->params[p].pointer_depth != 1)
        return false;
    size_t semi = b - 1;
    if (!rwl_tok_is(ts, semi, ";"))
        return false;
    bool decl = rwl_declared_here(ts, eq - 1);
    if (!decl && eq != a + 1)
        return false;
    char off[256] = "", off_text[256] = "";
    if (eq + 2 < semi) {
        if (!rwl_tok_is(ts, eq + 2, "+") || rwl_has_loose_op(ts, eq + 3, semi) || !uniform_expr(s, eq + 3, semi))
            return false;
        squeeze_span(s, eq + 3, semi, off, sizeof off);
        span_copy(s, eq + 3, semi, off_text, sizeof off_text);
    }
    int al = alias_at(s, eq - 1);
    if (al < 0) {
        if (s->n_al >= SF_ALIASES)
            return false;
        al = (int)s->n_al++;
        s->al[al].name_tok = eq - 1;
    }
    s->al[al].param = p;
    s->al[al].bound = true;
    s->al[al].ever |= p < 64 ? 1ull << p : ~0ull;   /* every buffer it ever points into */
    snprintf(s->al[al].off, sizeof s->al[al].off, "%s", off);
    snprintf(s->al[al].off_text, sizeof s->al[al].off_text, "%s", off_text);
    return true;
}

/* Is [a, b) one name, perhaps in parentheses or under casts (`v`, `(float)(v)`)? Its value may
 * be a product computed in another statement, which nvcc may contract into a reader's add as
 * it may a product stored in place: not forwarded either. */
static bool names_one_value(const rw_toks *ts, size_t a, size_t b)
{
    size_t names = 0;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, ")") || rwl_is_type_word(ts, k) ||
            rwl_tok_is_ident(ts, k, "const"))
            continue;
        if (ts->t[k].kind != T_IDENT || rwl_tok_is(ts, k + 1, "(") || rwl_tok_is(ts, k + 1, "["))
            return false;
        names++;
    }
    return names == 1;
}

/* Is the expression [a, b)'s last operation a product, quotient or remainder (through
 * parentheses, casts and unary minus)? Such a value, recomputed or kept in a register
 * instead of stored and reloaded, could be contracted with the reader's add into an fma. */
static bool top_is_product(const rw_toks *ts, size_t a, size_t b, int depth)
{
    if (a >= b || depth > 8)
        return false;
    static const char *const looser[] = {"+", "-", "?", ":", "<<", ">>", "<", ">", "<=", ">=", "==", "!=",
                                         "&", "^", "|", "&&", "||", ","};
    bool mul = false;
    int d = 0;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "["))
            d++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]"))
            d--;
        else if (d == 0 && k > a && !rwl_unary_position(ts, k)) {
            for (size_t i = 0; i < HK_ARRAY_LEN(looser); i++)
                if (rwl_tok_is(ts, k, looser[i]))
                    return false;
            if (rwl_tok_is(ts, k, "*") || rwl_tok_is(ts, k, "/") || rwl_tok_is(ts, k, "%"))
                mul = true;
        }
    }
    if (mul)
        return true;
    if (rwl_tok_is(ts, a, "-") || rwl_tok_is(ts, a, "+"))
        return top_is_product(ts, a + 1, b, depth + 1);
    if (rwl_tok_is(ts, a, "(")) {
        size_t c = rwl_match_close(ts, a);
        if (c + 1 == b)
            return top_is_product(ts, a + 1, c, depth + 1);
        if (c < b && rwl_is_type_word(ts, a + 1))   /* a cast: (float)(...) */
            return top_is_product(ts, c + 1, b, depth + 1);
    }
    return false;
}

/* Is [a, b) free of control flow, barriers and calls that are not pure? */
static bool straight_line(sf_state *s, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    static const char *const flow[] = {"if", "for", "while", "do", "switch", "return", "break", "continue", "goto",
                                       "asm", "{", "}"};
    for (size_t k = a; k < b; k++) {
        for (size_t i = 0; i < HK_ARRAY_LEN(flow); i++)
            if (rwl_tok_is(ts, k, flow[i]))
                return rwl_refuse(s->why, sizeof s->why, ts, s->text, k, "loop body", EN(RW_SF_FLOW), flow[i]);
        if (ts->t[k].kind == T_IDENT && rwl_tok_is(ts, k + 1, "(") && !rwl_pure_call_name(ts, k) &&
            !rwl_is_type_word(ts, k))
            return rwl_refuse(s->why, sizeof s->why, ts, s->text, k, "call", EN(RW_SF_CALL));
    }
    return true;
}

/* Names declared inside any row loop body. */
static bool loop_local(const sf_state *s, size_t k)
{
    for (size_t l = 0; l < s->n_loops; l++)
        for (size_t j = s->loops[l].body_a; j < s->loops[l].body_b; j++)
            if (rwl_same_tok(s->ts, j, k) && rwl_declared_here(s->ts, j))
                return true;
    return false;
}

static sf_event *find_event(sf_state *s, size_t tok)
{
    for (size_t i = 0; i < s->n_ev; i++)
        if (s->ev[i].tok == tok)
            return &s->ev[i];
    return NULL;
}

/* Appends the recomputable text of [a, b) in loop L to bf: the loop variable as SF_VAR,
 * forwarded reads as their stored expression, other row reads of unwritten buffers through
 * their buffer. false when it cannot be re-evaluated later. */
static bool rec_text(sf_state *s, const sf_loop *L, size_t a, size_t b, struct hk_buf *bf, size_t *from)
{
    const rw_toks *ts = s->ts;
#define SF_PUT(call) do { int put_rc = (call); if (put_rc) { s->oom |= put_rc == HK_ENOMEM; return false; } } while (0)
    for (size_t k = a; k < b; k++) {
        if (k > a)
            SF_PUT(hk_buf_appends(bf, " "));
        sf_event *e = ts->t[k].kind == T_IDENT ? find_event(s, k) : NULL;
        if (e && e->kind == EV_READ) {
            if (e->reach >= 0) {
                sf_event *st = &s->ev[e->reach];
                if (!st->rec_ok || !st->rec)
                    return false;
                if (st->from < *from)
                    *from = st->from;
                SF_PUT(hk_buf_printf(bf, "((%s)(%s))", s->f->params[s->slots[st->slot].param].elem_type, st->rec));
            } else {
                const sf_slot *sl = &s->slots[e->slot];
                if (sl->written)
                    return false;
                const char *pn = s->f->params[sl->param].name;
                SF_PUT(sl->off[0] ? hk_buf_printf(bf, "(%s + (%s))[" SF_VAR "]", pn, sl->off_text)
                                   : hk_buf_printf(bf, "%s[" SF_VAR "]", pn));
            }
            k = e->close;
            continue;
        }
        if (rwl_reads_memory(ts, k, k + 2 < b ? k + 2 : b) || rwl_tok_is_assign_op(ts, k) ||
            rwl_tok_is(ts, k, "++") || rwl_tok_is(ts, k, "--"))
            return false;   /* another read of memory (`[`, `->`, `*p`, `__ldg(`), or a write */
        if (ts->t[k].kind == T_IDENT && rwl_same_tok(ts, k, L->var) && rwl_is_use(ts, k)) {
            SF_PUT(hk_buf_appends(bf, SF_VAR));
            continue;
        }
        if (ts->t[k].kind == T_IDENT && rwl_is_use(ts, k) && !rwl_tok_is(ts, k + 1, "(") && loop_local(s, k))
            return false;
        SF_PUT(hk_buf_append(bf, s->text + ts->t[k].start, ts->t[k].end - ts->t[k].start));
    }
    return true;
#undef SF_PUT
}

/* May the stored expression of st be re-evaluated at the read e: none of its locals (or
 * parameters) written from the store's loop to the end of the read's loop? */
static bool rec_valid_at(const sf_state *s, const sf_event *st, const sf_event *e, int depth)
{
    const rw_toks *ts = s->ts;
    size_t hi = s->loops[e->loop].b;
    size_t var = s->loops[st->loop].var;
    if (depth > 16)
        return false;
    for (size_t k = st->op[0] ? st->tok : st->ra; k < st->rb; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        const sf_event *r = NULL;
        for (size_t i = 0; i < s->n_ev && !r; i++)
            if (s->ev[i].tok == k && s->ev[i].kind == EV_READ)
                r = &s->ev[i];
        if (r) {
            /* a row read: spelled through its buffer, or the expression it forwards */
            if (r->reach >= 0 && !rec_valid_at(s, &s->ev[r->reach], e, depth + 1))
                return false;
            k = r->close;
            if (k < st->ra)
                k = st->ra - 1;   /* a compound store's own element: on to its right side */
            continue;
        }
        if (rwl_tok_is(ts, k + 1, "(") || rwl_same_tok(ts, k, var))
            continue;
        for (size_t j = st->from; j < hi; j++)
            if (rwl_same_tok(ts, j, k) && rwl_is_use(ts, j) && rwl_scalar_written(ts, j))
                return false;
    }
    return true;
}

/* ---- emission ---- */

typedef struct {
    bool reg;          /* the register form, else the recomputed one */
    int cap;
    bool captured[SF_SLOTS];   /* register form: unwritten slots loaded into hk_fw<k> */
    size_t capture_loop[SF_SLOTS];
    bool has_reg[SF_SLOTS];    /* a register array hk_fw<k> is declared */
    int mem_reads, mem_writes; /* row passes left (per element) */
} sf_form;

static bool fwd(const sf_event *e, const sf_form *fm)
{
    return fm->reg ? e->fwd_reg : e->fwd_rec;
}

static bool dead(const sf_event *e, const sf_form *fm)
{
    return fm->reg ? e->dead_reg : e->dead_rec;
}

static int subst(const char *t, const char *var, struct hk_buf *b)
{
    int rc = HK_OK;
    for (const char *p = t; *p && !rc; p++)
        rc = *p == SF_VAR[0] ? hk_buf_appends(b, var) : hk_buf_append(b, p, 1);
    return rc;
}

/* The value a forwarded read e gives, into b. */
static int read_value(sf_state *s, const sf_event *e, const sf_form *fm, const char *var, struct hk_buf *b)
{
    if (fm->reg)
        return hk_buf_printf(b, "hk_fw%d[hk_c]", e->slot);
    const sf_event *st = &s->ev[e->reach];
    int rc = hk_buf_printf(b, "((%s)(", s->f->params[s->slots[st->slot].param].elem_type);
    if (!rc)
        rc = subst(st->rec, var, b);
    if (!rc)
        rc = hk_buf_appends(b, "))");
    return rc;
}

/* [a, b) of loop L as the form has it, reads replaced, into b (original spacing). */
static int render_span(sf_state *s, const sf_loop *L, size_t a, size_t b, sf_form *fm, struct hk_buf *out)
{
    const rw_toks *ts = s->ts;
    char var[64];
    span_copy(s, L->var, L->var + 1, var, sizeof var);
    uint32_t at = ts->t[a].start;
    int rc = HK_OK;
    for (size_t k = a; k < b && !rc; k++) {
        sf_event *e = ts->t[k].kind == T_IDENT ? find_event(s, k) : NULL;
        if (!e || e->kind != EV_READ)
            continue;
        bool cap = fm->reg && fm->captured[e->slot] && fm->capture_loop[e->slot] <= e->loop;
        if (!fwd(e, fm) && !cap) {
            fm->mem_reads++;
            continue;
        }
        rc = hk_buf_append(out, s->text + at, ts->t[k].start - at);
        if (!rc && cap)
            rc = hk_buf_printf(out, "hk_fw%d[hk_c]", e->slot);
        else if (!rc) {
            rc = read_value(s, e, fm, var, out);
            if (!fm->reg && e->reach >= 0)   /* the recomputed expression's own row reads */
                for (const char *p = s->ev[e->reach].rec; p && (p = strstr(p, "[" SF_VAR "]")) != NULL; p++)
                    fm->mem_reads++;
        }
        at = ts->t[e->close].end;
        k = e->close;
    }
    if (!rc)
        rc = hk_buf_append(out, s->text + at, ts->t[b - 1].end - at);
    return rc;
}

/* One row loop as the form has it. */
static int render_loop(sf_state *s, size_t l, sf_form *fm, struct hk_buf *out)
{
    const sf_loop *L = &s->loops[l];
    const rw_toks *ts = s->ts;
    char var[64], type[128], cond[512], start[256], step[256];
    span_copy(s, L->var, L->var + 1, var, sizeof var);
    span_copy(s, L->ta, L->tb, type, sizeof type);
    span_copy(s, L->ca, L->cb, cond, sizeof cond);
    size_t s1 = L->var + 2;
    while (!rwl_tok_is(ts, s1, ";"))
        s1++;
    span_copy(s, L->var + 2, s1, start, sizeof start);
    span_copy(s, L->cb + 3, rwl_match_close(ts, L->a + 1), step, sizeof step);
    struct hk_buf body;
    hk_buf_init(&body, RW_TEXT_MAX);
    int rc = HK_OK;
    int kept = 0;
    for (size_t sl = 0; sl < s->n_slots && !rc && fm->reg; sl++)
        if (fm->captured[sl] && fm->capture_loop[sl] == l) {
            const sf_slot *sp = &s->slots[sl];
            const char *pn = s->f->params[sp->param].name;
            rc = sp->off[0] ? hk_buf_printf(&body, "\n        hk_fw%zu[hk_c] = (%s + (%s))[%s];", sl, pn, sp->off_text, var)
                            : hk_buf_printf(&body, "\n        hk_fw%zu[hk_c] = %s[%s];", sl, pn, var);
            fm->mem_reads++;
            kept++;
        }
    /* statement by statement */
    size_t k = L->body_a;
    while (k < L->body_b && !rc) {
        size_t e_end = rwl_stmt_end(ts, k, L->body_b);
        sf_event *st = NULL;
        for (size_t i = 0; i < s->n_ev; i++)
            if (s->ev[i].kind == EV_STORE && s->ev[i].sa == k)
                st = &s->ev[i];
        if (!st) {
            rc = hk_buf_appends(&body, "\n        ");
            if (!rc)
                rc = render_span(s, L, k, e_end, fm, &body);
            kept++;
            k = e_end;
            continue;
        }
        /* a store: its value, forwarded reads replaced (its reads counted only if it stays) */
        int reads_before = fm->mem_reads;
        struct hk_buf v;
        hk_buf_init(&v, RW_TEXT_MAX);
        if (st->op[0]) {
            sf_event *self = NULL;
            for (size_t i = 0; i < s->n_ev; i++)
                if (s->ev[i].kind == EV_READ && s->ev[i].tok == st->tok)
                    self = &s->ev[i];
            if (self && fwd(self, fm)) {
                rc = read_value(s, self, fm, var, &v);
            } else {
                rc = hk_buf_append(&v, s->text + ts->t[st->tok].start, ts->t[st->close].end - ts->t[st->tok].start);
                fm->mem_reads++;
            }
            if (!rc)
                rc = hk_buf_printf(&v, " %s (", st->op);
        }
        if (!rc)
            rc = render_span(s, L, st->ra, st->rb, fm, &v);
        if (!rc && st->op[0])
            rc = hk_buf_appends(&v, ")");
        bool to_reg = fm->reg && st->fwd_reg;   /* a later read takes it from the register */
        if (!to_reg && dead(st, fm))
            fm->mem_reads = reads_before;
        char lhs[512];
        span_copy(s, st->tok, st->close + 1, lhs, sizeof lhs);
        if (!rc && to_reg) {
            rc = hk_buf_printf(&body, "\n        hk_fw%d[hk_c] = (%s)(%s);", st->slot,
                               s->f->params[s->slots[st->slot].param].elem_type, v.data ? v.data : "");
            kept++;
        }
        if (!rc && !dead(st, fm)) {
            rc = to_reg ? hk_buf_printf(&body, "\n        %s = hk_fw%d[hk_c];", lhs, st->slot)
                        : hk_buf_printf(&body, "\n        %s = %s;", lhs, v.data ? v.data : "");
            fm->mem_writes++;
            kept++;
        }
        hk_buf_free(&v);
        k = e_end;
    }
    if (!rc && !kept) {
        rc = hk_buf_printf(out, "// hk: the row loop of line %d dropped: every value it stored is forwarded",
                           rwl_line_at(s->text, ts->t[L->a].start)); /* i18n: not for people */
    } else if (!rc && fm->reg) {
        rc = hk_buf_printf(out, "#pragma unroll\n    for (int hk_c = 0; hk_c < %d; hk_c++) {\n" /* i18n: not for people */
                                "        %s %s = (%s) + hk_c * (%s);\n        if (%s) {",
                           fm->cap, type, var, start, step, cond);
        if (!rc)
            rc = hk_buf_append(out, body.data ? body.data : "", body.len);
        if (!rc)
            rc = hk_buf_appends(out, "\n        }\n    }");
    } else if (!rc) {
        /* the header through its `{`, or through `)` and a `{` of our own */
        size_t upto = L->body_a - 1;
        rc = hk_buf_append(out, s->text + ts->t[L->a].start, ts->t[upto].end - ts->t[L->a].start);
        if (!rc && !rwl_tok_is(ts, upto, "{"))
            rc = hk_buf_appends(out, " {");
        if (!rc)
            rc = hk_buf_append(out, body.data ? body.data : "", body.len);
        if (!rc)
            rc = hk_buf_appends(out, "\n    }");
    }
    hk_buf_free(&body);
    return rc;
}

/* ---- analysis ---- */

/* Collects the events of loop l: per statement its reads in token order, then its store. */
static bool loop_events(sf_state *s, size_t l)
{
    const rw_toks *ts = s->ts;
    const sf_loop *L = &s->loops[l];
    if (!straight_line(s, L->body_a, L->body_b))
        return false;
    for (size_t k = L->body_a; k < L->body_b; k++)
        if (rwl_same_tok(ts, k, L->var) && rwl_is_use(ts, k) && rwl_scalar_written(ts, k))
            return rwl_refuse(s->why, sizeof s->why, ts, s->text, k, "loop variable", EN(RW_SF_VAR_WRITTEN));
    for (size_t k = L->body_a; k < L->body_b;) {
        size_t e_end = rwl_stmt_end(ts, k, L->body_b);
        /* a store: ACCESS op= RHS ; */
        int st_slot = -1;
        size_t st_close = 0;
        if (ts->t[k].kind == T_IDENT && rwl_tok_is(ts, k + 1, "[")) {
            size_t c = rwl_match_close(ts, k + 1);
            if (c < e_end && rwl_tok_is_assign_op(ts, c + 1)) {
                st_slot = row_access(s, L, k);
                st_close = c;
            }
        }
        for (size_t j = k; j < e_end; j++) {
            if (ts->t[j].kind != T_IDENT || !rwl_tok_is(ts, j + 1, "[") || !rwl_is_use(ts, j))
                continue;
            size_t c = rwl_match_close(ts, j + 1);
            int sl = row_access(s, L, j);
            bool managed_name = alias_at(s, j) >= 0;
            size_t p;
            if (!managed_name && param_at(s, j, &p))
                for (size_t q = 0; q < s->n_slots; q++)
                    managed_name |= s->slots[q].param == p;
            if (sl < 0) {
                if (managed_name || rwl_occurrence_writes(ts, j))
                    return rwl_refuse(s->why, sizeof s->why, ts, s->text, j, "row access", EN(RW_SF_ACCESS));
                j = c;
                continue;
            }
            if (j == k && st_slot >= 0) {
                /* a compound store (`+=`, `/=`) reads the element first */
                if (!rwl_tok_is(ts, c + 1, "=")) {
                    if (s->n_ev >= SF_EVENTS)
                        return rwl_refuse(s->why, sizeof s->why, ts, s->text, j, "row loop", EN(RW_SF_TOO_MANY));
                    s->ev[s->n_ev++] = (sf_event){.kind = EV_READ, .slot = sl, .loop = l, .tok = j, .close = c, .reach = -1};
                }
                j = c;
                continue;
            }
            if (rwl_occurrence_writes(ts, j))
                return rwl_refuse(s->why, sizeof s->why, ts, s->text, j, "row access", EN(RW_SF_ACCESS));
            if (s->n_ev >= SF_EVENTS)
                return rwl_refuse(s->why, sizeof s->why, ts, s->text, j, "row loop", EN(RW_SF_TOO_MANY));
            s->ev[s->n_ev++] = (sf_event){.kind = EV_READ, .slot = sl, .loop = l, .tok = j, .close = c, .reach = -1};
            j = c;
        }
        if (st_slot >= 0) {
            if (s->n_ev >= SF_EVENTS)
                return rwl_refuse(s->why, sizeof s->why, ts, s->text, k, "row loop", EN(RW_SF_TOO_MANY));
            sf_event *e = &s->ev[s->n_ev++];
            *e = (sf_event){.kind = EV_STORE, .slot = st_slot, .loop = l, .tok = k, .close = st_close, .sa = k,
                            .sb = e_end, .ra = st_close + 2, .rb = e_end - 1, .reach = -1};
            const char *opt = ts->text + ts->t[st_close + 1].start;
            size_t opl = ts->t[st_close + 1].end - ts->t[st_close + 1].start;
            if (opl >= 2)
                snprintf(e->op, sizeof e->op, "%.*s", (int)(opl - 1), opt);
            e->product = !strcmp(e->op, "*") || !strcmp(e->op, "/") || !strcmp(e->op, "%") ||
                         (!e->op[0] && (top_is_product(ts, e->ra, e->rb, 0) || names_one_value(ts, e->ra, e->rb)));
            e->pure_rhs = !rwl_writes_any(ts, e->ra, e->rb);
            if (!rwl_tok_is(ts, e_end - 1, ";") || e->ra >= e->rb)
                return rwl_refuse(s->why, sizeof s->why, ts, s->text, k, "row access", EN(RW_SF_ACCESS));
            s->slots[st_slot].written = true;
        }
        k = e_end;
    }
    return true;
}

/* A call between the first row loop's start and the last row loop's end that cannot touch a
 * row buffer: a pure function (rwl_pure_call_name), a cast (a type word, a template type
 * parameter), a barrier, fence or warp operation, or a keyword that reads like one. */
static bool sf_harmless_call(const sf_state *s, size_t k)
{
    static const char *const ok[] = {"if", "for", "while", "switch", "return", "sizeof", "alignof",
                                     "__syncthreads", "__syncthreads_or", "__syncthreads_and",
                                     "__syncthreads_count", "__syncwarp", "__threadfence_block",
                                     "__threadfence", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                     "__shfl_xor_sync", "__ballot_sync", "__any_sync", "__all_sync",
                                     "__activemask", "__reduce_add_sync", "__reduce_min_sync",
                                     "__reduce_max_sync"};
    const rw_toks *ts = s->ts;
    for (size_t i = 0; i < HK_ARRAY_LEN(ok); i++)
        if (rwl_tok_is(ts, k, ok[i]))
            return true;
    return rwl_pure_call_name(ts, k) || rwl_is_type_word(ts, k) ||
           rwl_template_type_param(s->f->template_params, ts, k) || rwl_declared_here(ts, k) ||
           rwl_pure_function_macro(s->text, s->len, s->text + ts->t[k].start, ts->t[k].end - ts->t[k].start, 4);
}

/* Does an object-like macro of the file named name[0, nl) touch memory or call what may: a
 * subscript, `->`, a unary `*` or `&`, a call that is not pure (or a pure function-like
 * macro), a `__device__`/`__constant__` name of the file, or again such a macro (up to depth
 * deep)? `#define BV (g_bias[0])` read between the row loops reads what a dropped store left. */
static bool sf_macro_touches_memory(const sf_state *s, const char *mname, size_t nl, size_t body, int depth)
{
    size_t at = 0, a, b;
    if (depth <= 0)
        return true;
    while (rwl_next_define(s->text, s->len, &at, mname, nl, &a, &b)) {
        rw_toks mt = {0};
        if (rwl_lex(s->text, (uint32_t)(a + nl), (uint32_t)b, &mt) != HK_OK) {
            rwl_toks_free(&mt);
            return true;
        }
        bool bad = false;
        for (size_t k = 0; k < mt.n && !bad; k++) {
            if (rwl_tok_is(&mt, k, "[") || rwl_tok_is(&mt, k, "->") ||
                ((rwl_tok_is(&mt, k, "*") || rwl_tok_is(&mt, k, "&")) && (k == 0 || rwl_unary_position(&mt, k))))
                bad = true;
            else if (mt.t[k].kind == T_IDENT && k + 1 < mt.n && rwl_tok_is(&mt, k + 1, "(") &&
                     !rwl_pure_call_name(&mt, k) && !rwl_is_type_word(&mt, k))
                bad = !rwl_pure_function_macro(s->text, s->len, s->text + mt.t[k].start, mt.t[k].end - mt.t[k].start, 4);
            else if (rwl_tok_is(&mt, k, "return") || rwl_tok_is(&mt, k, "goto") || rwl_tok_is(&mt, k, "asm") ||
                     rwl_tok_is(&mt, k, "break") || rwl_tok_is(&mt, k, "continue") || rwl_tok_is(&mt, k, "volatile"))
                bad = true;   /* an early exit: a dropped store might never be overwritten */
            else if (mt.t[k].kind == T_IDENT) {
                char nm[128];
                size_t n = mt.t[k].end - mt.t[k].start;
                snprintf(nm, sizeof nm, "%.*s", (int)n, s->text + mt.t[k].start);
                bad = sf_device_global(s->text, body, nm) ||
                      ((n != nl || memcmp(nm, mname, nl)) && sf_macro_touches_memory(s, nm, n, body, depth - 1));
            }
        }
        rwl_toks_free(&mt);
        if (bad)
            return true;
    }
    return false;
}

/* How the body's declarations of the name at k declare it: *pointerish when one declares a
 * pointer or reference (`T *p`, `T &r`, `T *a[2]`), or its type is `auto` or `decltype(..)`;
 * *scalar when one declares it neither an array nor such (`T v`: through a typedef or a
 * template type it may be a pointer still). Returns whether the body declares it at all. */
static bool sf_local_kind(const sf_state *s, size_t k, bool *pointerish, bool *scalar)
{
    const rw_toks *ts = s->ts;
    bool any = false;
    *pointerish = *scalar = false;
    for (size_t j = 1; j + 1 < ts->n; j++) {
        if (!rwl_same_tok(ts, j, k) || !rwl_declared_here(ts, j))
            continue;
        any = true;
        if (rwl_tok_is(ts, j - 1, "*") || rwl_tok_is(ts, j - 1, "&") || rwl_tok_is(ts, j - 1, "&&"))
            *pointerish = true;
        else if (!rwl_tok_is(ts, j + 1, "["))
            *scalar = true;
        /* the declaration's type: back to the statement's start */
        for (size_t q = j; q-- > 0;) {
            if (rwl_tok_is(ts, q, ";") || rwl_tok_is(ts, q, "{") || rwl_tok_is(ts, q, "}") ||
                rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, ")"))
                break;
            if (rwl_tok_is(ts, q, "auto") || rwl_tok_is(ts, q, "decltype"))
                *pointerish = true;
        }
    }
    return any;
}

/* Between the first row loop's start and the last row loop's end, memory no run-time test of
 * the pointer parameters bounds must not be touched: the register and recomputed forms drop
 * and move the row buffers' stores there (before the first loop and after the last, memory is
 * the original's). Refused with the line (session 46, issue 13): a call that is not harmless
 * (a function of the file may read or write a row buffer through a pointer of its own:
 * `v = readg(k)`, `putg(k, v)`, a lambda); a subscript, `->` or `*` of an expression that is
 * not a name (`((const float *)addr)[k]`, `*(T *)p`); a local pointer or reference that is no
 * row pointer `x = P + OFF` (`const float *b = getg();`, `auto b = ..`), or a local that is
 * not an array read as memory (`b[k]`, `*b`, `b->m`, `__ldg(b + k)`: a typedef may make it a
 * pointer). */
static bool sf_between_refusal(sf_state *s)
{
    const rw_toks *ts = s->ts;
    const sf_loop *L0 = &s->loops[0], *Ln = &s->loops[s->n_loops - 1];
    for (size_t k = L0->a; k < Ln->b && k + 1 < ts->n; k++) {
        if (ts->t[k].kind == T_IDENT && rwl_call_paren(ts, k) &&
            !sf_harmless_call(s, k)) {
            char nm[128];
            snprintf(nm, sizeof nm, "%.*s", (int)(ts->t[k].end - ts->t[k].start), s->text + ts->t[k].start);
            return rwl_refuse(s->why, sizeof s->why, ts, s->text, k, "call", EN(RW_SF_CALL_BETWEEN), nm);
        }
        if ((rwl_tok_is(ts, k, ")") && (rwl_tok_is(ts, k + 1, "[") || rwl_tok_is(ts, k + 1, "->"))) ||
            (rwl_tok_is(ts, k, "]") && (rwl_tok_is(ts, k + 1, "(") || rwl_tok_is(ts, k + 1, "{"))) ||
            (rwl_tok_is(ts, k, "*") && rwl_unary_position(ts, k) && rwl_tok_is(ts, k + 1, "(")))
            return rwl_refuse(s->why, sizeof s->why, ts, s->text, k, "memory access", EN(RW_SF_UNNAMED_ACCESS));
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k) || rwl_tok_is(ts, k - 1, "::") || param_at(s, k, NULL) ||
            alias_at(s, k) >= 0)
            continue;
        bool pointerish, scalar;
        if (!sf_local_kind(s, k, &pointerish, &scalar)) {
            /* not a local: the file's pointers are checked before; its macros here */
            if (sf_macro_touches_memory(s, s->text + ts->t[k].start, ts->t[k].end - ts->t[k].start, ts->t[0].start, 4)) {
                char nm[128];
                snprintf(nm, sizeof nm, "%.*s", (int)(ts->t[k].end - ts->t[k].start), s->text + ts->t[k].start);
                return rwl_refuse(s->why, sizeof s->why, ts, s->text, k, "macro", EN(RW_SF_MACRO_BETWEEN), nm);
            }
            continue;
        }
        bool as_memory = rwl_tok_is(ts, k + 1, "[") || rwl_tok_is(ts, k + 1, "->") ||
                         (rwl_tok_is(ts, k - 1, "*") && rwl_unary_position(ts, k - 1));
        /* an argument of a load intrinsic (`__ldg(b + k)`) */
        for (size_t q = k; q-- > L0->a && !as_memory;) {
            if (rwl_tok_is(ts, q, "(") && rwl_match_close(ts, q) > k && q > 0 && ts->t[q - 1].kind == T_IDENT &&
                ts->t[q - 1].end - ts->t[q - 1].start > 4 && !memcmp(s->text + ts->t[q - 1].start, "__ld", 4))
                as_memory = true;
            if (rwl_tok_is(ts, q, ";") || rwl_tok_is(ts, q, "{") || rwl_tok_is(ts, q, "}"))
                break;
        }
        if (pointerish || (scalar && as_memory)) {
            char nm[128];
            snprintf(nm, sizeof nm, "%.*s", (int)(ts->t[k].end - ts->t[k].start), s->text + ts->t[k].start);
            return rwl_refuse(s->why, sizeof s->why, ts, s->text, k, "local pointer", EN(RW_SF_LOCAL_POINTER), nm);
        }
    }
    return true;
}

static int store_forward(const rw_context *c, int cap, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(c->text, c->len, c->m, c->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    sf_state *s = hk_calloc(1, sizeof *s);
    struct hk_buf body, rreg, rrec, rng;
    hk_buf_init(&body, RW_TEXT_MAX);
    hk_buf_init(&rng, SF_TEXT);
    hk_buf_init(&rreg, RW_TEXT_MAX);
    hk_buf_init(&rrec, RW_TEXT_MAX);
    sf_form freg = {.reg = true, .cap = cap}, frec = {.reg = false, .cap = cap};
    if (!s) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwp_lex_body(c->text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    s->ts = &ts;
    s->text = c->text;
    s->len = c->len;
    s->f = f;
    int body_line = rwl_line_at(c->text, f->body_span.start_byte);
    if (ts.n < 3 || !rwl_tok_is(&ts, 0, "{") || !rwl_tok_is(&ts, ts.n - 1, "}")) {
        snprintf(s->why, sizeof s->why, "%s at line %d: %s", "kernel body", body_line, EN(RW_SF_NO_LOOP));
        goto refuse;
    }
    /* top-level statements */
    for (size_t k = 1; k < ts.n - 1;) {
        if (s->n_stmt + 1 >= SF_STMTS) {
            snprintf(s->why, sizeof s->why, "%s at line %d: %s", "kernel body", body_line, EN(RW_SF_TOO_MANY));
            goto refuse;
        }
        s->stmt[s->n_stmt] = k;
        s->loop_of_stmt[s->n_stmt++] = -1;
        size_t e = rwl_stmt_end(&ts, k, ts.n - 1);
        k = e > k ? e : k + 1;
    }
    s->stmt[s->n_stmt] = ts.n - 1;
    /* the row loops: one header for all */
    char key0[800] = "";
    size_t first_loop_tok = ts.n;
    for (size_t i = 0; i < s->n_stmt; i++) {
        sf_loop L;
        if (!parse_loop(s, s->stmt[i], s->stmt[i + 1], &L))
            continue;
        char key[800];
        loop_key(s, &L, key, sizeof key);
        if (!key0[0])
            snprintf(key0, sizeof key0, "%s", key);
        else if (strcmp(key, key0)) {
            rwl_refuse(s->why, sizeof s->why, &ts, c->text, L.a, "block-strided loop", EN(RW_SF_OTHER_SPACE));
            goto refuse;
        }
        if (s->n_loops >= SF_LOOPS) {
            rwl_refuse(s->why, sizeof s->why, &ts, c->text, L.a, "block-strided loop", EN(RW_SF_TOO_MANY));
            goto refuse;
        }
        if (first_loop_tok == ts.n)
            first_loop_tok = L.a;
        s->loop_of_stmt[i] = (int)s->n_loops;
        s->loops[s->n_loops++] = L;
    }
    /* a name a row loop declares (its variable, a local of its body) that hides a local of
     * the kernel or a parameter: the forwarded texts name those and would read the loop's */
    for (size_t l = 0; l < s->n_loops; l++)
        for (size_t k = s->loops[l].ta; k < s->loops[l].body_b; k++) {
            if (ts.t[k].kind != T_IDENT || !rwl_is_use(&ts, k) || !rwl_declared_here(&ts, k))
                continue;
            if (param_at(s, k, NULL) || decl_of(s, k) < ts.n) {
                rwl_refuse(s->why, sizeof s->why, &ts, c->text, k, "declaration", EN(RW_SF_SHADOW));
                goto refuse;
            }
        }
    if (s->n_loops < 2) {
        snprintf(s->why, sizeof s->why, "%s at line %d: %s", "kernel body", body_line, EN(RW_SF_NO_LOOP));
        goto refuse;
    }
    /* an early exit after the first row loop would skip the store that makes another dead */
    for (size_t k = first_loop_tok; k < ts.n; k++)
        if (rwl_tok_is(&ts, k, "return") || rwl_tok_is(&ts, k, "goto") || rwl_tok_is(&ts, k, "asm")) {
            rwl_refuse(s->why, sizeof s->why, &ts, c->text, k, "early exit", EN(RW_SF_EXIT));
            goto refuse;
        }
    /* walk the statements in order: aliases bound, row loops' events collected */
    for (size_t i = 0; i < s->n_stmt; i++) {
        if (s->loop_of_stmt[i] >= 0) {
            if (!loop_events(s, (size_t)s->loop_of_stmt[i]))
                goto refuse;
            continue;
        }
        alias_stmt(s, s->stmt[i], s->stmt[i + 1]);
    }
    /* every use of a row buffer or an alias outside the row loops' accesses refuses: a
     * pointer parameter a row loop touches, anywhere else in the body, but for binding an
     * alias; an alias written anywhere but such a binding */
    for (size_t k = 1; k + 1 < ts.n; k++) {
        if (ts.t[k].kind != T_IDENT || !rwl_is_use(&ts, k))
            continue;
        size_t p;
        bool row_buf = false;
        if (param_at(s, k, &p))
            for (size_t q = 0; q < s->n_slots; q++)
                row_buf |= s->slots[q].param == p;
        int al = alias_at(s, k);
        if (!row_buf && al < 0)
            continue;
        if (find_event(s, k))
            continue;
        bool in_loop_access = false;
        for (size_t l = 0; l < s->n_loops; l++)
            if (k >= s->loops[l].body_a && k < s->loops[l].body_b)
                in_loop_access = true;   /* events cover every access collected there */
        bool binding = false;
        for (size_t i = 0; i < s->n_stmt && !binding; i++) {
            size_t a = s->stmt[i], b = s->stmt[i + 1];
            if (s->loop_of_stmt[i] >= 0 || k < a || k >= b)
                continue;
            size_t eq = a;
            while (eq < b && !rwl_tok_is(&ts, eq, "="))
                eq++;
            /* `x = P + OFF;`: the alias at eq - 1 and P at eq + 1, one binding a statement */
            binding = eq < b && alias_at(s, eq - 1) >= 0 && (k == eq - 1 || k == eq + 1) && param_at(s, eq + 1, NULL);
        }
        if (binding && !in_loop_access)
            continue;
        /* elsewhere: a read of a buffer no row loop writes is only a read */
        bool wr = rwl_occurrence_writes(&ts, k) || in_loop_access;
        for (size_t q = 0; q < s->n_slots && !wr; q++) {
            if (!s->slots[q].written)
                continue;
            if (row_buf && s->slots[q].param == p)
                wr = true;
            /* an alias: any buffer it ever points into (its binding there is not followed) */
            size_t qp = s->slots[q].param;
            if (al >= 0 && (s->al[al].ever & (qp < 64 ? 1ull << qp : ~0ull)))
                wr = true;
        }
        if (wr) {
            rwl_refuse(s->why, sizeof s->why, &ts, c->text, k, "row buffer", EN(RW_SF_ELSEWHERE));
            goto refuse;
        }
    }
    /* the bound: the run-time test stands before the body's own declarations */
    {
        const sf_loop *L = &s->loops[0];
        for (size_t k = L->ca + 2; k < L->cb; k++)
            if (ts.t[k].kind == T_IDENT && rwl_is_use(&ts, k) && !rwl_tok_is(&ts, k + 1, "(") && decl_of(s, k) < ts.n) {
                rwl_refuse(s->why, sizeof s->why, &ts, c->text, k, "loop bound", EN(RW_SF_BOUND_LOCAL));
                goto refuse;
            }
    }
    /* the pointer parameters the body names: a row buffer written may be one of them (passed
     * twice), which then reads what a dropped or forwarded store left (a read beside the rows,
     * `b[(OFF + i)]`, or through a local copy `b = &bias[OFF]`); a pointer to pointers may reach
     * a row buffer where no test of pointers sees it */
    bool named[64] = {false};
    /* a name neither a parameter nor declared in the body (a `__device__` or `__constant__`
     * pointer or array of the file) read through `[`, `*` or `->`, or copied: the host may
     * have set it to a row buffer, which no test of the parameters sees */
    for (size_t k = 1; k + 1 < ts.n; k++) {
        if (ts.t[k].kind != T_IDENT || !rwl_is_use(&ts, k) || rwp_param_named(f, &ts, k) ||
            rwl_tok_is(&ts, k - 1, ".") || rwl_tok_is(&ts, k - 1, "->") || rwl_tok_is(&ts, k + 1, "(") ||
            rwl_tok_is(&ts, k + 1, "::"))
            continue;
        bool through = rwl_tok_is(&ts, k + 1, "[") || rwl_tok_is(&ts, k + 1, "->") ||
                       (rwl_tok_is(&ts, k - 1, "*") &&
                        (rwl_tok_is(&ts, k - 2, "return") ||
                         !(ts.t[k - 2].kind == T_IDENT || ts.t[k - 2].kind == T_NUMBER || rwl_tok_is(&ts, k - 2, ")") ||
                           rwl_tok_is(&ts, k - 2, "]"))));
        char nm[128];
        snprintf(nm, sizeof nm, "%.*s", (int)(ts.t[k].end - ts.t[k].start), c->text + ts.t[k].start);
        /* a `__device__`/`__constant__` name of the file in any other spelling too:
         * `*(g + i)`, `p = (g)`, `__ldg(g + i)` (the session 45 review) */
        if (!through && !rwl_is_type_word(&ts, k))
            through = sf_device_global(c->text, ts.t[0].start, nm);
        if (!through)
            continue;
        bool local = false;   /* a qualified name (`ns::g`, `::g`) is the file's (session 46) */
        for (size_t j = 1; j + 1 < ts.n && !local && !rwl_tok_is(&ts, k - 1, "::"); j++)
            local = rwl_same_tok(&ts, j, k) && rwl_declared_here(&ts, j);
        if (!local) {
            rwl_refuse(s->why, sizeof s->why, &ts, c->text, k, "global", EN(RW_SF_GLOBAL_POINTER), nm);
            goto refuse;
        }
    }
    for (size_t k = 1; k + 1 < ts.n; k++) {
        size_t p;
        if (ts.t[k].kind != T_IDENT || !param_at(s, k, &p))
            continue;
        /* a structure passed by value: a pointer among its members may be the output too
         * (members named x, y, z, w are values only in a CUDA vector type: a structure's
         * `a.x` may be a pointer) */
        if (f->params[p].pointer_depth == 0 && rwl_tok_is(&ts, k + 1, ".") &&
            !(sf_vector_type(f->params[p].elem_type) &&
              (rwl_tok_is(&ts, k + 2, "x") || rwl_tok_is(&ts, k + 2, "y") || rwl_tok_is(&ts, k + 2, "z") ||
               rwl_tok_is(&ts, k + 2, "w")))) {
            rwl_refuse(s->why, sizeof s->why, &ts, c->text, k, "parameter", EN(RW_SF_STRUCT_PARAM),
                       f->params[p].name);
            goto refuse;
        }
        /* a pointer to a structure: the test compares the structure's address, not the
         * pointers among its members */
        /* an element that is a structure (`a[0].bias[...]`) or, through a template type,
         * a pointer (`x[i][j]`): the same */
        if (f->params[p].pointer_depth == 1 && rwl_tok_is(&ts, k + 1, "[")) {
            size_t cl = rwl_match_close(&ts, k + 1);
            bool member = cl + 1 < ts.n && rwl_tok_is(&ts, cl + 1, ".");
            bool vec_member = member && sf_vector_type(f->params[p].elem_type) &&
                              (rwl_tok_is(&ts, cl + 2, "x") || rwl_tok_is(&ts, cl + 2, "y") ||
                               rwl_tok_is(&ts, cl + 2, "z") || rwl_tok_is(&ts, cl + 2, "w"));
            if (cl + 1 < ts.n && ((member && !vec_member) || rwl_tok_is(&ts, cl + 1, "->") ||
                                  rwl_tok_is(&ts, cl + 1, "["))) {
                rwl_refuse(s->why, sizeof s->why, &ts, c->text, k, "parameter", EN(RW_SF_STRUCT_POINTER),
                           f->params[p].name);
                goto refuse;
            }
        }
        if (f->params[p].pointer_depth >= 1 && rwl_tok_is(&ts, k + 1, "->")) {
            rwl_refuse(s->why, sizeof s->why, &ts, c->text, k, "parameter", EN(RW_SF_STRUCT_POINTER),
                       f->params[p].name);
            goto refuse;
        }
        /* a parameter of a template's type parameter: it may be instantiated as a pointer,
         * which the test does not name */
        if (f->params[p].pointer_depth == 0 && sf_template_type(f, f->params[p].elem_type)) {
            rwl_refuse(s->why, sizeof s->why, &ts, c->text, k, "parameter", EN(RW_SF_TEMPLATE_PARAM),
                       f->params[p].name);
            goto refuse;
        }
        if (f->params[p].pointer_depth < 1)
            continue;
        if (f->params[p].pointer_depth > 1) {
            rwl_refuse(s->why, sizeof s->why, &ts, c->text, k, "pointer parameter", EN(RW_SF_DEEP_POINTER),
                       f->params[p].name);
            goto refuse;
        }
        if (p < 64)
            named[p] = true;
    }
    /* a launch passing one pointer as a written row buffer and another buffer the body names:
     * they are one, always */
    for (size_t x = 0; x < s->n_slots; x++)
        for (size_t y = 0; y < f->n_params && y < 64; y++)
            if (s->slots[x].param != y && s->slots[x].written && named[y] &&
                rwl_launch_passing_twice(c->m, f, s->slots[x].param, y)) {
                snprintf(s->why, sizeof s->why, "%s at line %d: %s", "kernel body", body_line, EN(RW_SF_ALIASED));
                goto refuse;
            }
    /* written buffers: their slots are disjoint rows, or one (same offset) */
    for (size_t x = 0; x < s->n_slots; x++)
        for (size_t y = x + 1; y < s->n_slots; y++)
            if (s->slots[x].param == s->slots[y].param && (s->slots[x].written || s->slots[y].written)) {
                snprintf(s->why, sizeof s->why, "%s at line %d: %s", "kernel body", body_line, EN(RW_SF_TWO_OFFSETS));
                goto refuse;
            }
    /* reaching stores; the forms' choices */
    for (size_t i = 0; i < s->n_ev; i++) {
        sf_event *e = &s->ev[i];
        if (e->kind != EV_READ)
            continue;
        for (size_t j = i; j-- > 0;)
            if (s->ev[j].kind == EV_STORE && s->ev[j].slot == e->slot) {
                e->reach = (int)j;
                break;
            }
    }
    for (size_t i = 0; i < s->n_ev; i++) {
        sf_event *e = &s->ev[i];
        if (e->kind == EV_STORE) {
            struct hk_buf rb;
            hk_buf_init(&rb, SF_TEXT);
            e->from = s->loops[e->loop].a;
            bool ok = !e->product && e->pure_rhs;
            if (ok && e->op[0]) {
                /* compound: the element's own value first */
                const sf_event *self = NULL;
                for (size_t j = 0; j < i; j++)
                    if (s->ev[j].kind == EV_READ && s->ev[j].tok == e->tok)
                        self = &s->ev[j];
                if (!self || self->reach < 0 || !s->ev[self->reach].rec_ok)
                    ok = false;
                else {
                    if (s->ev[self->reach].from < e->from)
                        e->from = s->ev[self->reach].from;
                    int prc = hk_buf_printf(&rb, "((%s)(%s)) %s (", f->params[s->slots[e->slot].param].elem_type,
                                            s->ev[self->reach].rec, e->op);
                    s->oom |= prc == HK_ENOMEM;
                    ok = !prc;
                }
            }
            ok = ok && rec_text(s, &s->loops[e->loop], e->ra, e->rb, &rb, &e->from);
            if (ok && e->op[0]) {
                int prc = hk_buf_appends(&rb, ")");
                s->oom |= prc == HK_ENOMEM;
                ok = !prc;
            }
            if (ok && rb.data) {
                e->rec = hk_buf_steal(&rb);
                e->rec_ok = e->rec != NULL;
                s->oom |= !e->rec;
            }
            hk_buf_free(&rb);
            continue;
        }
        if (e->reach < 0)
            continue;
        const sf_event *st = &s->ev[e->reach];
        e->fwd_reg = !st->product && st->pure_rhs;
        e->fwd_rec = e->fwd_reg && st->rec_ok && rec_valid_at(s, st, e, 0);
    }
    /* the register form forwards from a register the store fills: its value must be
     * computed where it is stored (a store kept or a forwarded one alike) */
    for (size_t i = 0; i < s->n_ev; i++) {
        sf_event *st = &s->ev[i];
        if (st->kind != EV_STORE)
            continue;
        bool any_reg = false;
        for (size_t j = i + 1; j < s->n_ev; j++)
            if (s->ev[j].kind == EV_READ && s->ev[j].reach == (int)i && s->ev[j].fwd_reg)
                any_reg = true;
        st->fwd_reg = any_reg;   /* stores: "fills its register" */
        if (any_reg)
            freg.has_reg[st->slot] = true;
        /* dead: a later store to the slot, every read between forwarded */
        size_t next = s->n_ev;
        for (size_t j = i + 1; j < s->n_ev && next == s->n_ev; j++)
            if (s->ev[j].kind == EV_STORE && s->ev[j].slot == st->slot)
                next = j;
        if (next == s->n_ev || !st->pure_rhs)
            continue;
        bool all_reg = true, all_rec = true;
        for (size_t j = i + 1; j < next; j++)
            if (s->ev[j].kind == EV_READ && s->ev[j].slot == st->slot) {
                all_reg &= s->ev[j].fwd_reg;
                all_rec &= s->ev[j].fwd_rec;
            }
        /* the compound store at next reads the element too: its read is an event before it */
        st->dead_reg = all_reg;
        st->dead_rec = all_rec;
    }
    /* the register form's loads of unwritten elements read in two loops or more */
    for (size_t sl = 0; sl < s->n_slots; sl++) {
        if (s->slots[sl].written)
            continue;
        size_t first = SF_LOOPS, loops = 0, last = SF_LOOPS;
        for (size_t i = 0; i < s->n_ev; i++)
            if (s->ev[i].slot == (int)sl && s->ev[i].loop != last) {
                if (first == SF_LOOPS)
                    first = s->ev[i].loop;
                last = s->ev[i].loop;
                loops++;
            }
        if (loops >= 2) {
            freg.captured[sl] = freg.has_reg[sl] = true;
            freg.capture_loop[sl] = first;
        }
    }
    if (s->oom) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (s->why[0])   /* a refusal recorded on the way is final */
        goto refuse;
    /* anything to do? */
    int n_fwd_reg = 0, n_fwd_rec = 0, n_dead_reg = 0, n_dead_rec = 0, n_cap = 0, reads0 = 0, writes0 = 0;
    for (size_t i = 0; i < s->n_ev; i++) {
        const sf_event *e = &s->ev[i];
        if (e->kind == EV_READ) {
            n_fwd_reg += e->fwd_reg;
            n_fwd_rec += e->fwd_rec;
            reads0++;
        } else {
            n_dead_reg += e->dead_reg;
            n_dead_rec += e->dead_rec;
            writes0++;
        }
    }
    for (size_t sl = 0; sl < s->n_slots; sl++)
        n_cap += freg.captured[sl];
    if (!n_fwd_reg && !n_cap) {
        snprintf(s->why, sizeof s->why, "%s at line %d: %s", "block-strided loop",
                 rwl_line_at(c->text, ts.t[s->loops[0].a].start), EN(RW_SF_NOTHING));
        goto refuse;
    }
    /* Only the row loops are versioned; every other statement stays once, in place (its
     * barriers, its trees), as register_carry does: the referee credits a race to the
     * original only where each line it names occurs no more often in the candidate
     * (sanitize.c inherited()). The flags are the same for the whole block (a block's rows
     * are its own), so every loop takes the same form and the forms' analysis holds. */
    bool rec_changes = n_fwd_rec > 0 || n_dead_rec > 0;
    const sf_loop *L0 = &s->loops[0];
    char bound[256], step[256];
    span_copy(s, L0->ca + 2, L0->cb, bound, sizeof bound);
    span_copy(s, L0->cb + 3, rwl_match_close(&ts, L0->a + 1), step, sizeof step);
    /* every pointer parameter the kernel may write (a row buffer, or any other written or
     * passed on) against every other pointer parameter the body names: one buffer passed as
     * two, or a buffer and a pointer into it, takes the original loops, whose later passes see
     * what the other name's stores left. The run-time test compares ranges, so only buffers
     * whose extent in the block is known take part: row buffers, each slot `P[OFF + i]` with
     * 0 <= i < N reaching [P + OFF, P + OFF + N); a pointer written or read beside the rows
     * (a read `b[(OFF + i)]`, a local copy `b = &bias[OFF]`, a store through a name) reaches
     * what no test bounds: refused. (A block's rows that overlap another block's are assumed
     * not to: they would race between blocks in the original.) */
    bool writes[64] = {false};
    for (size_t w = 0; w < f->n_params && w < 64; w++) {
        if (f->params[w].pointer_depth != 1 || !f->params[w].name[0])
            continue;
        for (size_t k = 1; k + 1 < ts.n && !writes[w]; k++)
            writes[w] = rwl_tok_is_ident(&ts, k, f->params[w].name) && rwl_is_use(&ts, k) &&
                        !find_event(s, k) && !rwl_tok_is(&ts, k - 1, "=") && rwl_occurrence_writes(&ts, k);
        for (size_t q = 0; q < s->n_slots && !writes[w]; q++)
            writes[w] = s->slots[q].written && s->slots[q].param == w;
    }
    bool row_buf[64] = {false}, row_written[64] = {false};
    for (size_t q = 0; q < s->n_slots; q++)
        if (s->slots[q].param < 64) {
            row_buf[s->slots[q].param] = true;
            row_written[s->slots[q].param] |= s->slots[q].written;
        }
    for (size_t w = 0; w < f->n_params && w < 64; w++)
        for (size_t y = 0; writes[w] && y < f->n_params && y < 64; y++) {
            if (y == w || !(row_buf[y] || (row_written[w] && named[y])))
                continue;
            /* the pair is tested: both extents must be their slots */
            size_t beside = ts.n, who = w;
            if (!row_written[w] || !row_buf[y]) {
                who = row_written[w] ? y : w;
                /* an element read before the first row loop or after the last sees memory as
                 * the original leaves it there */
                size_t first = s->loops[0].a, last = s->loops[s->n_loops - 1].b;
                for (size_t k = 1; k + 1 < ts.n && beside == ts.n; k++)
                    if (rwl_tok_is_ident(&ts, k, f->params[who].name) && rwl_is_use(&ts, k) &&
                        !((k < first || k >= last) && who == y && rwl_tok_is(&ts, k + 1, "[") &&
                          !rwl_tok_is(&ts, k - 1, "&") && !rwl_occurrence_writes(&ts, k)))
                        beside = k;
            } else {
                /* a read row buffer's (or its aliases') every use an element access, or the
                 * binding of an alias whose uses are; an element read before the first row
                 * loop or after the last sees memory as the original leaves it there (the
                 * sample's `first = xr[0]`) */
                size_t first = s->loops[0].a, last = s->loops[s->n_loops - 1].b;
                for (size_t k = 1; k + 1 < ts.n && beside == ts.n; k++) {
                    if (ts.t[k].kind != T_IDENT || !rwl_is_use(&ts, k) || find_event(s, k))
                        continue;
                    if ((k < first || k >= last) && rwl_tok_is(&ts, k + 1, "[") &&
                        !rwl_tok_is(&ts, k - 1, "&") && !rwl_occurrence_writes(&ts, k))
                        continue;
                    size_t p;
                    int a = alias_at(s, k);
                    bool of_y = (param_at(s, k, &p) && p == y) ||
                                (a >= 0 && (s->al[a].ever & (y < 64 ? 1ull << y : ~0ull)));
                    if (!of_y || rwl_declared_here(&ts, k))
                        continue;
                    if (a < 0 && rwl_tok_is(&ts, k - 1, "=") && !rwl_tok_is(&ts, k + 1, "["))
                        continue;   /* the binding `x = y + OFF` (x's uses are checked) */
                    if (a >= 0 && rwl_tok_is(&ts, k + 1, "=") && !rwl_tok_is(&ts, k + 2, "="))
                        continue;   /* a rebinding */
                    beside = k;
                    who = y;
                }
            }
            if (beside < ts.n) {
                rwl_refuse(s->why, sizeof s->why, &ts, c->text, beside, "pointer parameter", EN(RW_SF_NO_EXTENT),
                           f->params[who].name);
                goto refuse;
            }
        }
    /* the ranges: each written row slot against each slot of another buffer, tested before
     * the first row loop, where every offset's names are declared (block-uniform locals never
     * written again, parameters) */
    for (size_t x = 0; x < s->n_slots && !rc; x++)
        for (size_t y = 0; y < s->n_slots && !rc; y++) {
            const sf_slot *A = &s->slots[x], *B = &s->slots[y];
            if (!A->written || A->param == B->param || (B->written && y < x))
                continue;
            for (int side = 0; side < 2; side++) {
                const char *o = side ? B->off_text : A->off_text;
                for (const char *q = o; *q; q++) {
                    if (!(isalpha((unsigned char)*q) || *q == '_') || (q > o && (isalnum((unsigned char)q[-1]) || q[-1] == '_')))
                        continue;
                    size_t n = 0;
                    while (isalnum((unsigned char)q[n]) || q[n] == '_')
                        n++;
                    char id[128];
                    snprintf(id, sizeof id, "%.*s", (int)n, q);
                    for (size_t k = L0->a; k + 1 < ts.n; k++)
                        if (rwl_tok_is_ident(&ts, k, id) && rwl_declared_here(&ts, k)) {
                            rwl_refuse(s->why, sizeof s->why, &ts, c->text, k, "declaration", EN(RW_SF_OFF_LATE), id);
                            goto refuse;
                        }
                }
            }
            const char *wn = f->params[A->param].name, *yn = f->params[B->param].name;
            char wa[300], ya[300];
            snprintf(wa, sizeof wa, A->off_text[0] ? "%s + (%s)" : "%s%s", wn, A->off_text);
            snprintf(ya, sizeof ya, B->off_text[0] ? "%s + (%s)" : "%s%s", yn, B->off_text);
            rc = hk_buf_printf(&rng, " &&\n        ((const char *)(%s + (%s)) <= (const char *)(%s) ||\n" /* i18n: not for people */
                                     "         (const char *)(%s + (%s)) <= (const char *)(%s))",
                               wa, bound, ya, ya, bound, wa);
        }
    if (!rc && !sf_between_refusal(s))
        goto refuse;
    bool ranged = rng.len > 0;
    if (!rc)
        rc = hk_buf_printf(&body, "\n    // hk rewrite: store_forward. A value a thread stores to its element of the row is\n" /* i18n: not for people */
                                  "    // forwarded to its later reads: in registers when the row fits %d a thread, else\n"
                                  "    // recomputed; a 2-D block or a row buffer overlapping another runs the original loops.\n"
                                  "    %sbool hk_sf_own = blockDim.y == 1 && blockDim.z == 1",
                           cap, ranged ? "" : "const ");
    if (!rc)
        rc = hk_buf_printf(&body, ";\n    %sbool hk_sf_reg = hk_sf_own && (long long)(%s) <= %dLL * (long long)blockDim.x;", /* i18n: not for people */
                           ranged ? "" : "const ", bound, cap);
    for (size_t sl = 0; sl < s->n_slots && !rc; sl++)
        if (freg.has_reg[sl])
            rc = hk_buf_printf(&body, "\n    %s hk_fw%zu[%d];", f->params[s->slots[sl].param].elem_type, sl, cap);
    if (rc)
        goto out;
    if ((rc = rwl_edits_add_owned(&es, ts.t[0].end, ts.t[0].end, hk_buf_steal(&body))))
        goto out;
    for (size_t l = 0; l < s->n_loops && !rc; l++) {
        const sf_loop *L = &s->loops[l];
        hk_buf_reset(&rreg);
        hk_buf_reset(&rrec);
        rc = render_loop(s, l, &freg, &rreg);
        if (!rc && rec_changes)
            rc = render_loop(s, l, &frec, &rrec);
        struct hk_buf v;
        hk_buf_init(&v, RW_TEXT_MAX);
        if (!rc && l == 0 && ranged)
            rc = hk_buf_printf(&v, "// the rows the block touches, each written one apart from every other buffer's\n" /* i18n: not for people */
                                   "    hk_sf_own = hk_sf_own%s;\n    hk_sf_reg = hk_sf_reg && hk_sf_own;\n    ",
                               rng.data);
        if (!rc)
            rc = hk_buf_appends(&v, "if (hk_sf_reg) {\n    ");
        if (!rc)
            rc = hk_buf_append(&v, rreg.data ? rreg.data : "", rreg.len);
        if (!rc && rec_changes) {
            rc = hk_buf_appends(&v, "\n    } else if (hk_sf_own) {\n    ");
            if (!rc)
                rc = hk_buf_append(&v, rrec.data ? rrec.data : "", rrec.len);
        }
        if (!rc)
            rc = hk_buf_appends(&v, "\n    } else {\n    ");
        if (!rc)
            rc = hk_buf_append(&v, c->text + ts.t[L->a].start, ts.t[L->b - 1].end - ts.t[L->a].start);
        if (!rc)
            rc = hk_buf_appends(&v, "\n    }");
        if (rc) {
            hk_buf_free(&v);
            break;
        }
        rc = rwl_edits_add_owned(&es, ts.t[L->a].start, ts.t[L->b - 1].end, hk_buf_steal(&v));
    }
    if (rc)
        goto out;
    char lines[128] = "";
    for (size_t l = 0; l < s->n_loops && strlen(lines) + 8 < sizeof lines; l++)
        snprintf(lines + strlen(lines), sizeof lines - strlen(lines), "%s%d", l ? ", " : "",
                 rwl_line_at(c->text, ts.t[s->loops[l].a].start));
    char *desc = rec_changes
                     ? hk_asprintf(EN(RW_SF_DESC), f->name, (int)s->n_loops, lines, bound, step, reads0, writes0, bound,
                                   cap, freg.mem_reads, freg.mem_writes, frec.mem_reads, frec.mem_writes, n_dead_rec)
                     : hk_asprintf(EN(RW_SF_DESC_REG), f->name, (int)s->n_loops, lines, bound, step, reads0, writes0,
                                   bound, cap, freg.mem_reads, freg.mem_writes);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_finish(c->text, c->len, c->m, f->name, &es, desc, out);
    out->keeps_launch = rc == HK_OK && out->applicable;
    goto out;
refuse:
    if (s->oom) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (!s->why[0])
        snprintf(s->why, sizeof s->why, "%s at line %d: %s", "kernel body", body_line, EN(RW_SF_NO_LOOP));
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), name, f->name, s->why));
out:
    if (s)
        for (size_t i = 0; i < s->n_ev; i++)
            hk_free(s->ev[i].rec);
    hk_free(s);
    hk_buf_free(&body);
    hk_buf_free(&rreg);
    hk_buf_free(&rng);
    hk_buf_free(&rrec);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

/* cap: the row's elements a thread keeps in registers at most. Each array takes cap
 * registers and the whole kernel is allocated for its largest path, so a larger cap lowers
 * the blocks an SM holds for rows too long for it as well: llm.c's softmax_forward_kernel2
 * (sm_90, --use_fast_math) takes 26 registers, rewritten 26 at cap 1 and 2, 27 at 4, 40 at
 * 8, 56 at 16, 104 at 32; with its blocks of 512, 4 blocks an SM up to cap 4, 3 at 8, 2 at
 * 16. cap 4 (rows up to 4 * blockDim.x: 2048 at 512) is the default. */
static const rw_param sf_params[] = {
    {.name = "cap", .type = RW_PARAM_ENUM, .values = {1, 2, 4, 8, 16, 32}, .n_values = 6, .def = 4},
};

static int emit_store_forward(const rw_context *c, const int *p, rw_result *out)
{
    return store_forward(c, p[0], out);
}

const rw_descriptor rw_store_forward_desc = {
    .name = "store_forward",
    .summary = "block-per-row loops (i = threadIdx.x; i < N; i += blockDim.x): a value a thread stores to its row " /* i18n: not for people */
               "element is forwarded to its later reads (registers when N <= cap * blockDim.x, else recomputed) and "
               "stores a later store of the same thread overwrites are dropped (exact)",
    .params = sf_params,
    .n_params = HK_ARRAY_LEN(sf_params),
    /* planned first once its shape matched (its loops are the kernel's passes), and offered
     * on a leader's text too (it keeps that text's launch and reshapes only the row loops:
     * on block_reduce's shuffled trees it removes the passes the trees left) */
    .flags = RW_ALGORITHM | RW_STACKS,
    .emit = emit_store_forward,
};
