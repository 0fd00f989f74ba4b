/* The token scanner, edit list and checks the engine's rewrites share (module-internal:
 * rewrite.c, rewrite_mem.c, rewrite_pattern.c). A rewrite lexes the kernel's text with
 * rwl_lex (comments, whitespace and preprocessor lines skipped), finds exact positions in
 * the model's spans, collects edits against the original text, and rwl_finish applies
 * them in one pass and re-analyses the result, so a rewrite never hands back code that
 * no longer parses or has lost its kernel. Pure functions, any thread. */
#ifndef HK_ENGINE_REWRITE_LEX_H
#define HK_ENGINE_REWRITE_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"
#include "core/i18n.h"

/* A rewrite never produces more than this (the analysis refuses larger texts anyway). */
#define RW_TEXT_MAX AN_TEXT_MAX_BYTES
#define RW_MAX_TOKENS (1u << 22)

enum { T_IDENT = 'i', T_NUMBER = 'n', T_STRING = 's', T_PUNCT = 'p' };

typedef struct {
    uint32_t start, end;
    char kind;
} rw_tok;

/* Tokens of one text (borrowed); rwl_toks_free. */
typedef struct {
    const char *text;
    rw_tok *t;
    size_t n, cap;
} rw_toks;

/* One replacement of text[start, end) by repl (owned). */
typedef struct {
    uint32_t start, end;
    char *repl;
} rw_edit;

typedef struct {
    rw_edit *e;
    size_t n, cap;
} rw_edits;

void rwl_toks_free(rw_toks *ts);

int rwl_toks_push(rw_toks *ts, uint32_t start, uint32_t end, char kind);

/* Tokenizes text[start, end). Comments, whitespace and preprocessor lines are skipped. */
int rwl_lex(const char *text, uint32_t start, uint32_t end, rw_toks *ts);

bool rwl_tok_is(const rw_toks *ts, size_t k, const char *s);

bool rwl_tok_is_ident(const rw_toks *ts, size_t k, const char *name);

/* Is [a, b) exactly the statement `__syncthreads();`? */
bool rwl_barrier_stmt(const rw_toks *ts, size_t a, size_t b);

bool rwl_tok_is_assign_op(const rw_toks *ts, size_t k);

/* An identifier use at k: an identifier that is not a member name after . or ->. */
bool rwl_is_use(const rw_toks *ts, size_t k);

/* Do tokens a and b spell the same text? */
bool rwl_same_tok(const rw_toks *ts, size_t a, size_t b);

/* Is the name at k (a scalar's use) written there: assigned, incremented, decremented, or
 * its address taken (a write the scan cannot follow)? */
bool rwl_scalar_written(const rw_toks *ts, size_t k);

/* Does [a, b) hold a top-level operator that binds looser than `+` (so that `OFF + i` would
 * not be the sum of OFF and i): ?: shifts, comparisons, bitwise and logical operators, the
 * comma and any assignment? */
bool rwl_has_loose_op(const rw_toks *ts, size_t a, size_t b);

/* Does [a, b) read memory: a subscript, `->`, a unary `*`, or a call of a load intrinsic
 * (`__ldg`, `__ldcs`, ... any `__ld*`)? */
bool rwl_reads_memory(const rw_toks *ts, size_t a, size_t b);

/* Is the name at token k written (rwl_scalar_written) at any use in the token list other
 * than at token `self` (its declaration, or k itself)? */
bool rwl_written_elsewhere(const rw_toks *ts, size_t k, size_t self);

/* Index of the token closing the bracket at k ("(", "[", "{", or "<" for template lists),
 * or ts->n when unbalanced. */
size_t rwl_match_close(const rw_toks *ts, size_t k);

/* Index of the first `&&` or `||` in [k, b) outside parentheses and brackets, or b. */
size_t rwl_next_logic_op(const rw_toks *ts, size_t k, size_t b);

/* Is [s, e) `if (...) return;` or `if (...) { return; }`? Sets *cclose to the ')'. */
bool rwl_return_guard(const rw_toks *ts, size_t s, size_t e, size_t *cclose);

/* true when the token before k makes a '*' or '&' at k unary (not multiplication/and). */
bool rwl_unary_position(const rw_toks *ts, size_t k);

char *rwl_tok_text(const rw_toks *ts, size_t a, size_t b);

/* Index one past the statement starting at token i (within [i, end)). */
size_t rwl_stmt_end(const rw_toks *ts, size_t i, size_t end);

/* Is token q inside a loop (or, with switches, a switch) nested in [a, b), so that a break
 * or continue there is that statement's own? A do-while runs to its `while (c);`. */
bool rwl_in_nested(const rw_toks *ts, size_t a, size_t b, size_t q, bool switches);

bool rwl_is_type_word(const rw_toks *ts, size_t k);
/* A scalar type word or an arithmetic type a functional cast names (`float(x)`, `double(x)`,
 * `bool(x)`, `__half(x)`): a conversion, which writes no memory. */
bool rwl_is_cast_word(const rw_toks *ts, size_t k);

/* Does the statement at q start a declaration: a type word (`float *x`, `const ...`) or an
 * identifier and a name (`T x` of a typedef or template type; `return x` is no
 * declaration)? */
bool rwl_starts_declaration(const rw_toks *ts, size_t q);

/* Is the name at d declared there? After a type word (`unsigned char x`, `static float x`)
 * and any `*`s and `&`s (`float **p`); after an identifier (a typedef or template type)
 * where a statement or a for header starts (`T x`, `const T x`, `for (T x`); or a later
 * declarator (`float lo = a, hi = b;`). Statements that read alike are not (`return x`,
 * `else x = 1`, a call's `f(a * b)`). Rewrites ask it to tell a kernel's own variables from
 * the ones a loop carries. */
bool rwl_declared_here(const rw_toks *ts, size_t d);

/* Does t[0, n) mention the block's or grid's coordinates (blockIdx, gridDim, HIP's
 * hipBlockIdx_*, hipGridDim_*)? A plain text search: a callee body or a macro's text. */
bool rwl_mentions_grid(const char *t, size_t n);

/* The blanks before byte `start` on its line, into ind (at most n - 1 bytes), when only blanks
 * stand between the line's start and `start`; else (code before it on its line, or too long)
 * ind is "". The indentation of lines a rewrite adds around a statement. */
void rwl_line_indent(const char *text, size_t start, char *ind, size_t n);

/* The next #define of name[0, nl) in text from byte *at on (its '#' first on its line,
 * perhaps after blanks; the name followed by '(' or a blank): true with [*a, *b) its text
 * from the name to the end of its last line (continuation lines included) and *at moved
 * past it; false, *at at len, when there is no more. */
bool rwl_next_define(const char *text, size_t len, size_t *at, const char *name, size_t nl, size_t *a,
                     size_t *b);

/* Does a #define of name[0, nl) in text (a function-like or object-like macro, its '#'
 * first on its line) mention the block's or grid's coordinates? Its uses in a kernel
 * would then escape a rewrite that renames or replaces them in the kernel's text. */
bool rwl_macro_mentions_grid(const char *text, size_t len, const char *name, size_t nl);

/* The first of words[0, n_words) (keywords or names: `return`, `goto`, `asm`...) that the
 * text of a #define of name[0, nl) in text spells as a token, following the names in that
 * text into their own macros up to depth deep; NULL when none. A macro is a spelling the
 * rewrites' token scans do not expand (session 46: `#define LEAVE return` between
 * store_forward's row loops). */
const char *rwl_macro_text_word(const char *text, size_t len, const char *name, size_t nl,
                                const char *const *words, size_t n_words, int depth);

/* Is name[0, nl) a function-like macro of text (its #define, '#' first on its line) whose
 * value computes without touching memory: no subscript, `->`, unary `*` or `&`, assignment,
 * ++ or --, and every call in it a pure one (rwl_pure_call_name) or again such a macro (up
 * to depth macros deep)? What a loop header may call and still be a stride or a bound
 * (cuda-samples' `UMUL(a, b)`). Every definition in the file must qualify. */
bool rwl_pure_function_macro(const char *text, size_t len, const char *name, size_t nl, int depth);

/* Does the token at k (an occurrence of the pointer's name) possibly write through it?
 * Reads are `name[...]` and `*name`/`*(name ...)` not followed by an assignment, ++ or --
 * (also inside parentheses that only group them: `(*name) = v` writes) nor preceded by a
 * prefix ++, -- or unary & (`++*name`, `&(name[i])`); every other use (address taken,
 * passed on, copied into another pointer) counts as a write, because this scan cannot
 * follow it. */
bool rwl_occurrence_writes(const rw_toks *ts, size_t k);

/* Is the token at k (an occurrence of a pointer's name) part of a statement that only moves
 * the pointer in place: `name += E;`, `name -= E;`, `name = name + E;` (or `- E`), `name++;`,
 * `++name;`, `name--;`, `--name;` -- or the same as a for header's step (`...; name++)`)?
 * The statement starts a statement (after `;`, `{`, `}`, `else`, or the `)` of an if,
 * while or for header); E does not mention name, assigns nothing, has no `++`/`--`, no
 * comma and no `?` at its top level, and calls only pure functions (rwl_pure_call_name) or
 * sizeof. Such a move writes the pointer variable, never the memory it points to, and
 * hands the pointer's value to nothing else (issue 13: cuda-samples' convolutionSeparable,
 * `d_Src += baseY * pitch + baseX;`). true also for the second name of `name = name + E`. */
bool rwl_pointer_move(const rw_toks *ts, size_t k);

/* Does [a, b) hold an assignment (any assignment operator), ++ or --? */
bool rwl_writes_any(const rw_toks *ts, size_t a, size_t b);

/* Whitespace-free copy of s into out (for comparing argument expressions). */
void rwl_squeeze(const char *s, char *out, size_t size);

struct hk_buf;
/* Appends the template tpl to b with every $KEY replaced by its value from kv (key, value
 * pairs, NULL-terminated; keys of A-Z, 0-9 and _). At each $ the longest key that matches
 * is taken, so a key may run into text ($IND__syncthreads: key IND). HK_OK; HK_ENOMEM or
 * HK_ETOOBIG from b; HK_EINVAL when no key matches (a bug in the template's caller). */
int rwl_render(struct hk_buf *b, const char *tpl, const char *const *kv);

/* Is [a, b) a plain declaration `[const] TYPE name = expr, ...;` that does not mention idx
 * and changes nothing else? Appends the declared names' token indices to names. */
bool rwl_is_hoistable_decl(const rw_toks *ts, size_t a, size_t b, const char *idx,
                              size_t *names, size_t *n_names, size_t max_names);

/* Compact text of tokens [a, b) with casts to integer types and parentheses around a
 * single operand removed, for matching the index formula. */
void rwl_compact_index(const rw_toks *ts, size_t a, size_t b, char *out, size_t size);

bool rwl_is_index_formula(const char *c);

/* A running maximum or minimum of one variable M, the statement [a, b) (with its ';'), in
 * any of its usual spellings, all read as the same reduction:
 *   M = F(M, X);   M = F(X, M);          F one of fmaxf fminf fmax fmin max min
 *   if (C) M = X;  if (C) { M = X; }     no else
 *   M = C ? X : M;                       parentheses around C or the whole right side allowed
 * where C compares X (the same text as the assigned X) with M and holds exactly when X is
 * the better value: `X > M`, `X >= M`, `M < X`, `M <= X` for a maximum, the mirrored four
 * for a minimum. X must not mention M nor change anything (it is evaluated twice in the
 * select forms). `M = M > X ? M : X` is not one: a NaN X would be taken.
 *
 * NaN: a comparison with NaN is false, so the select forms skip a NaN X, like fmaxf, and
 * once M is NaN they keep it forever, unlike fmaxf (fmaxf(NaN, x) is x). Combining
 * partial results of the select forms with fmaxf/fminf is still exact when every partial
 * starts from the same initial value v0 (a warp's lanes do): v0 NaN leaves every partial
 * NaN and fmaxf(NaN, NaN) is NaN, as the sequential loop; v0 not NaN keeps every partial
 * and the sequential result free of NaN, and fmaxf of NaN-free values is their maximum.
 * (Ties of -0 and +0 may keep the other zero: equal under ==.)
 *
 * mm gets M's assigned token, X's tokens (the assigned occurrence, or the call argument)
 * and the call's function ("" for the select forms). false when [a, b) is none of these. */
typedef struct {
    size_t acc;      /* M's token in `M = ...` */
    size_t xa, xb;   /* X */
    bool max;        /* a maximum, else a minimum */
    char fn[8];      /* the call form's function; "" for the if and ?: forms */
} rwl_minmax;
bool rwl_minmax_update(const rw_toks *ts, size_t a, size_t b, rwl_minmax *mm);

void rwl_edits_free(rw_edits *es);

/* Takes ownership of repl (also on failure). */
int rwl_edits_add_owned(rw_edits *es, uint32_t start, uint32_t end, char *repl);

int rwl_edits_add(rw_edits *es, uint32_t start, uint32_t end, const char *repl);

/* Applies edits (all against the original text). They are sorted back to front, which is
 * the order the overlap check needs; the new text is then assembled front to back in one
 * buffer of the final size. Overlapping edits are a bug: HK_EINVAL. */
int rwl_edits_apply(const char *text, size_t len, rw_edits *es, char **out, size_t *out_len);

/* Is token k the name of a call that writes no memory: math functions and intrinsics,
 * read-only loads (__ldg, __ldcs...), conversions (static_cast, __float2half...)? Type
 * names used as casts (float(x)) are the caller's to add. */
bool rwl_pure_call_name(const rw_toks *ts, size_t k);
/* 1-based line of byte b of text (counted up to b: for the one refusal reported). */
int rwl_line_at(const char *text, size_t b);
/* A rewrite's refusal "CONSTRUCT at line N: ...", N the line of token k of ts (1 when k is
 * past the tokens), written into why (n bytes) unless why already holds one: the first
 * wins. Returns false, for `return rwl_refuse(...)`. */
bool rwl_refuse(char *why, size_t n, const rw_toks *ts, const char *text, size_t k,
                const char *construct, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

int rwl_not_applicable(rw_result *out, char *why);
/* rwl_not_applicable with "REWRITE not applicable to kernel KERNEL: WHY" (RW_NOT_APPLICABLE_TO),
 * WHY the message why (a format of the rewrites' section) formatted with the arguments, both
 * in English: the reason is stored, and rw_refusal_locate reads it after the colon, where
 * hk_tr_said finds why's entry. HK_OK, or HK_ENOMEM. */
int rwl_not_applicable_to(rw_result *out, const char *rewrite, const char *kernel, enum hk_msg why,
                          ...);

int rwl_check_kernel(const char *text, size_t len, const an_model *m, size_t kernel,
                        const an_function **f);

/* `NAME . x` at token k, NAME a use (blockIdx.x, gridDim.x): spans 3 tokens. */
bool rwl_builtin_x(const rw_toks *ts, size_t k, const char *name);

/* The first launch of kernel f in m (by its last name component; a cudaLaunchKernel form is
 * not read) that passes the same expression, squeezed of spaces, as its parameters a and b,
 * or NULL: the two pointers alias there whatever the kernel's text says. */
const an_launch *rwl_launch_passing_twice(const an_model *m, const an_function *f, size_t a,
                                          size_t b);

/* The function of m other than self, with a body, that token k names; NULL if none. */
const an_function *rwl_callee(const an_model *m, const an_function *self, const rw_toks *ts,
                              size_t k);

/* Does the template parameter list tpl ("template <typename T, int N>", may be NULL) declare
 * the name at token k as a type (`typename name` or `class name`)? */
bool rwl_template_type_param(const char *tpl, const rw_toks *ts, size_t k);

/* After the name at k: the `(` of a call `k(` or `k<...>(` (template arguments: no `;`, `{`,
 * `&&` or `||` inside them), or 0. */
size_t rwl_call_paren(const rw_toks *ts, size_t k);

/* A call in a confined body (rwl_confined_body) at token k of the body's tokens gt: whether it
 * is allowed. */
typedef bool (*rwl_call_rule)(void *ctx, const rw_toks *gt, size_t k);

/* Whether function g's body, in text, is confined: it uses no atomic, barrier, warp operation,
 * asm, static, volatile, shared memory or `->`, reads no thread index, takes no address, writes
 * only names, never memory: its own locals and, where ref_writes, its reference parameters (and
 * no other parameter), else its by-value scalar parameters; and each call it makes (`f(..)` or
 * `f<A>(..)`) is a pure function (rwl_pure_call_name), a cast (a type word or one of its
 * template type parameters) or one that call_ok allows (none when call_ok is NULL). The one
 * body scan behind rwl_reader_call and the chunk rewrites' kept output calls. */
bool rwl_confined_body(const char *text, const an_function *g, bool ref_writes, rwl_call_rule call_ok, void *ctx);

/* A reader call: token k of ts names a function of m (not self) every definition of which,
 * in text, takes its pointers as pointers to const and everything else by value, writes only
 * its own locals and by-value parameters, uses no atomic, barrier, warp operation, asm,
 * static, volatile or shared memory, reads no thread index, and calls only pure functions
 * (rwl_pure_call_name), casts (a type word or one of its template type parameters, `T(x)`)
 * and again such reader functions (`f(..)` or `f<A>(..)`, up to 4 deep): a function of its
 * arguments and of memory it only reads (mmcv's bilinear_interpolate, PrRoIPool's
 * PrRoIPoolingMatCalculation through PrRoIPoolingGetData). k may be followed by `(` or by
 * template arguments and `(`. */
bool rwl_reader_call(const an_model *m, const char *text, const an_function *self, const rw_toks *ts,
                     size_t k);

/* A value call: token k of ts names a function of m (not self) every definition of which
 * takes only by-value non-pointer, non-reference parameters, touches no memory (no
 * subscript, no unary `*`, no `->`, no address taken, no shared memory, atomic, barrier,
 * warp operation, asm, static or volatile), reads no thread index and no name but its
 * parameters and its own locals declared before at its top level (no global variable, no
 * object-like macro, no name a nested block declares), writes only
 * those, and calls only pure functions (rwl_pure_call_name), casts and again value functions
 * (up to 4 deep): its result is a function of its arguments alone, and it writes none of
 * them (SHOC's `ToFlatIdx(int row, int col, int rowWidth)`). Such a call may be evaluated
 * earlier or again with the same arguments and give the same value, and passing a name to it
 * does not write the name. */
bool rwl_value_call(const an_model *m, const char *text, const an_function *self, const rw_toks *ts, size_t k);

typedef struct km_kernel km_kernel;

/* The start most model-based rewrites share: kernel f's body lexed into *ts and its kernel
 * model built into *km. A refusal (an empty body when need_body, a model that cannot be
 * built) returns HK_OK with why set ("kernel body at line N: ..."); HK_ENOMEM and the
 * lexer's errors are returned as such. The caller frees *ts and *km in every case. */
int rwl_open_body(const char *text, size_t len, const an_function *f, bool need_body,
                  rw_toks *ts, km_kernel **km, char *why, size_t n_why);

/* Applies the edits, re-analyses, and fills out. Takes ownership of desc. */
int rwl_finish(const char *text, size_t len, const an_model *m, const char *kernel_name,
                  rw_edits *es, char *desc, rw_result *out);

/* Whole-kernel scan for rewrites that give a thread several columns or rows (spread_lanes,
 * column_passes): false, with construct and line in why (English), where the launch is read
 * outside [ia, ib) (its index statement), where threads are tied (barriers, atomics,
 * __shared__, warp operations, fences, asm, volatile, static, cooperative groups, HIP and
 * compiler builtins), at `->`, unary `*` or `&`, at an impure call, or at a use of a macro of
 * the file that macro_ok (NULL: none) does not accept. */
bool rwl_scan_untied(const char *text, size_t len, const rw_toks *ts, size_t ia, size_t ib,
                     bool (*macro_ok)(const char *text, size_t len, const char *name, size_t nl), char *why,
                     size_t nwhy);

/* Is the token at k the name of one of f's parameters? */
bool rwl_is_param(const an_function *f, const rw_toks *ts, size_t k);
/* Is the name at token k declared (rwl_declared_here) at some other token of [a, b)? */
bool rwl_declared_in(const rw_toks *ts, size_t a, size_t b, size_t k);
/* The tokens [a, b) joined without spaces into out (n bytes, cut at a whole token). */
void rwl_squeeze_range(const rw_toks *ts, size_t a, size_t b, char *out, size_t n);

/* The statement at token a (its end before `end`) as `T IDX = <the global x thread id>;`, one
 * of the four spellings of blockIdx.x * blockDim.x + threadIdx.x, IDX declared there: the `=`
 * token (IDX is the token before it), *stmt_end the statement's end; or 0 with why set
 * (RW_SL_NO_ID). spread_lanes' and column_passes' first statement. */
size_t rwl_global_id_decl(const rw_toks *ts, const char *text, size_t a, size_t end, size_t *stmt_end,
                          char *why, size_t n);

#endif
