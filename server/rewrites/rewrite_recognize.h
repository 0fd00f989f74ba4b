/* Private to server/rewrites: the recognizers rewrite_recognize.c shares with the
 * structural rewrites built on the token scanner (one file per rewrite: rewrite_transpose.c,
 * rewrite_reduce.c, rewrite_privhist.c, rewrite_softmax.c, rewrite_layernorm.c,
 * rewrite_gemm.c). Pure functions on tokens and the analysis model, any thread. */
#ifndef HK_REWRITES_REWRITE_RECOGNIZE_H
#define HK_REWRITES_REWRITE_RECOGNIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "model/kclass.h"
#include "model/kmodel.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_lex.h"

#define PT_TEXT_MAX AN_TEXT_MAX_BYTES

#define PT_NAME 128

#define PT_EXPR 512

/* The kernel body's tokens (rwl_lex); a body of more than PT_MAX_TOKENS tokens is not
 * one of the patterns: HK_ETOOBIG. */
int rwp_lex_body(const char *text, uint32_t start, uint32_t end, rw_toks *ts);

bool rwp_tok_ident(const rw_toks *ts, size_t k);

/* Copies token k's text into out (truncated to size). */
void rwp_tok_copy(const rw_toks *ts, size_t k, char *out, size_t size);

/* A builtin scalar type name, floating types included (rwl_is_type_word knows only the
 * integer ones a loop index takes). */
bool rwp_is_type_word(const rw_toks *ts, size_t k);

/* Compact text of tokens [a, b): no spaces, casts to builtin types dropped, parentheses
 * around one token or one member access dropped, static_cast<T>(x) read as (x). Enough to
 * compare index formulas written in different styles. Truncates silently (a truncated
 * formula simply does not match). */
void rwp_compact(const rw_toks *ts, size_t a, size_t b, char *out, size_t size);

/* Does identifier name occur as a token in [a, b) (not as a member after . or ->)? */
bool rwp_mentions(const rw_toks *ts, size_t a, size_t b, const char *name);

/* Does [a, b) change anything (assignment, ++/--), call an atomic or synchronize? */
bool rwp_has_side_effects(const rw_toks *ts, size_t a, size_t b);

/* The index formulas rewrites start from: blockIdx.A * blockDim.A + threadIdx.A in any
 * operand order, casts dropped. Returns the axis ('x', 'y') or 0. */
char rwp_index_axis(const char *c, bool batch);

typedef struct {
    char name[PT_NAME];
    char type[PT_NAME];   /* declared type, e.g. "int", "const int", "long" */
    char axis;            /* 'x' or 'y' */
    size_t bound_a, bound_b; /* token range of the bound expression */
    char bound[PT_EXPR];  /* its text */
} pt_index;

typedef struct {
    pt_index idx[3];
    size_t n_idx;
    size_t pre_a, pre_b;   /* other statements between the index declarations and the guard */
    size_t body_a, body_b; /* the guarded statements (braces of a block stripped) */
    bool early_return;     /* `if (i >= n) return;` form */
    size_t end;            /* index of the body's closing brace */
} pt_shape;

/* One comparison term [a, b) of a guard: `idx OP bound` or `bound OP' idx`. want_lt: the
 * if-block form (idx < bound), else the early-return form (idx >= bound). */
bool rwp_guard_term(pt_shape *s, const rw_toks *ts, size_t a, size_t b, bool want_lt);

const char *rwp_read_shape(const rw_toks *ts, pt_shape *s);

const pt_index *rwp_shape_axis(const pt_shape *s, char axis);

const an_param *rwp_param_named(const an_function *f, const rw_toks *ts, size_t k);

const an_param *rwp_param_by_name(const an_function *f, const char *name);

/* The canonical spelling of a scalar element type this module generates code for, or
 * NULL. elem is an_param.elem_type; type the full declared type (for "unsigned int"
 * spellings whose elem_type the analysis may shorten). */
const char *rwp_scalar_type(const char *elem);

/* elem type of a pointer parameter read from its full type text (the analysis' elem_type
 * drops "unsigned" in some spellings): the type with const, volatile, __restrict__ and '*'
 * removed, words joined by one space. */
void rwp_pointee_type(const an_param *p, char *out, size_t size);
/* Whether type (blank-separated words, `const` allowed) is a builtin integer type or a usual
 * typedef of one (uint, int32_t...); narrow admits char, bool and the 8-bit ones too. */
bool rwp_integer_type(const char *type, bool narrow);

int rwp_not_applicable(rw_result *out, const char *rewrite, const an_function *f, const char *why);

/* The model paths keep a kernel's own body, and the search launches a structural rewrite on
 * a grid of its choosing (search.c: "its body works with any block and grid"; the skills'
 * SM-multiple grids), so a body that handles one element per thread -- it never reads
 * gridDim -- must first loop over the grid, or it leaves elements out (test_rewrites_emu
 * measured it). Striding already: the body reads gridDim or the kernel model reads a
 * grid-stride loop in it. For such a kernel: HK_OK with gs applicable (rw_grid_stride's whole text,
 * *gm its model and *gk the kernel's index there: the caller frees gs and *gm), or gs not
 * applicable and why saying why the body cannot loop. For a body that strides already: gs
 * not applicable, why "" and *gm NULL. HK_ENOMEM. Pure, any thread. */
int rwp_over_any_grid(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *gs,
                      an_model **gm, size_t *gk, char *why, size_t n);

/* An applicable out built on rwp_over_any_grid's text: its description says that the body
 * was put on a grid-stride loop first. HK_ENOMEM. */
int rwp_note_grid_stride(rw_result *out);

/* Replaces f's body with the text in body (a whole compound statement), re-analyses and
 * fills out. Takes ownership of desc. */
int rwp_replace_body(const char *text, size_t len, const an_model *m, const an_function *f,
                        const char *body, char *desc, rw_result *out);

/* Lines every generated body starts with: the linear thread index over x, y, z and the
 * block's thread count, so any block shape works. */
#define PT_THREADS                                                                           \
    "    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n" \
    "    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;\n"

/* Warp bookkeeping for shuffles that stay correct in a partial last warp: hk_width lanes
 * exist in this warp, hk_mask names them. */
/* Groups of 32 lanes, also on a 64-lane HIP wavefront (two groups per wavefront): a
 * broadcast from a group's lane 0 passes width 32, or on HIP it would read lane 0 of the
 * wavefront, the other group's value for the upper half. */
#define PT_WARP                                                                              \
    "    const unsigned int hk_lane = hk_tid & 31u, hk_warp = hk_tid >> 5;\n"                 \
    "    const unsigned int hk_nwarps = (hk_nthreads + 31u) >> 5;\n"                          \
    "    const unsigned int hk_width = min(hk_nthreads - (hk_warp << 5), 32u);\n" \
    "    const unsigned int hk_mask = hk_width == 32u ? 0xffffffffu : (1u << hk_width) - 1u;\n"

/* One warp's shuffle reduction of hk_acc (type $T) with $COMBINE (of hk_acc and hk_o),
 * over the first `lanes` lanes, indented by ind: lane 0 ends with the warp's result. */
#define RD_SHFL(ind, lanes)                                                                  \
    ind "for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"                       \
    ind "    const $T hk_o = __shfl_down_sync(hk_mask, hk_acc, hk_off);\n"                   \
    ind "    if (hk_lane + hk_off < " lanes ")\n"                                            \
    ind "        $COMBINE;\n"                                                                \
    ind "}\n"

/* Is compact text c the row-major index `ROW * STRIDE + COL` in one of its orders? */
bool rwp_is_rowmajor(const char *c, const char *row, const char *stride, const char *col);

/* The loop head that replaces a 1D guard, up to and including its opening brace:
 *     for (long long hk_i = <index>; hk_i < (N); hk_i += <stride>) { const TYPE i = (TYPE)hk_i;
 * The loop counts in 64 bits whatever the index's type, so `i + stride` cannot overflow
 * near the bound; the body still sees the index under its own name and type. blocks: the
 * number of blocks along x that share the work ("gridDim.x", or "hk_blocks" when the body
 * lets surplus blocks leave). */
/* The grid-stride loop head over ix's range; first (NULL: none) is added to where each
 * thread starts, for a loop that takes over where a vector loop stopped. */
char *rwp_grid_stride_head(const pt_index *ix, const char *blocks, const char *first);

/* Lines that let blocks past HK_MAX_BLOCKS (along x) leave at once: the others cover every
 * element by grid-stride, so fewer, fuller blocks mean fewer atomics or merges. The test is
 * uniform over the block, so no thread skips a __syncthreads the others reach. */
#define PT_MAX_BLOCKS                                                                        \
    "    constexpr int HK_MAX_BLOCKS = $MAXBLOCKS;\n"                                         \
    "    const unsigned int hk_blocks = min(gridDim.x, (unsigned int)HK_MAX_BLOCKS);\n" \
    "    if (blockIdx.x >= hk_blocks)\n"                                                     \
    "        return;\n"

/* A call `NAME(ARG0, ARG1)` at tokens [a, e) ending with ';': fills the argument token
 * ranges. false when it is not such a call with exactly two arguments. */
bool rwp_call2(const rw_toks *ts, size_t a, size_t e, size_t *a0, size_t *b0, size_t *a1, size_t *b1);

/* An atomic target [a, b): `P`, `&P[K]` or `P + K` with P a non-const pointer parameter.
 * Returns P (borrowed) and the element offset text range [*ka, *kb) (empty for `P`). */
const an_param *rwp_atomic_target(const an_function *f, const rw_toks *ts, size_t a, size_t b,
                                     size_t *ka, size_t *kb);

/* Shared memory the private histogram may take: leaves room for other blocks on the SM. */
#define PT_HIST_SHARED_MAX 32768

/* Copies s into out (size bytes); false when it does not fit. */
bool rwp_copy_fits(char *out, size_t size, const char *s);

#define PT_ROW_STMTS 16

#define PT_ROW_NAMES 24

typedef struct {
    char name[PT_NAME];
    char canon[PT_NAME];
} pt_name;

typedef struct {
    const an_function *f;
    const rw_toks *ts;
    const pt_index *row;           /* the row index */
    char cols[PT_EXPR];            /* column bound as written */
    char cols_c[PT_EXPR];          /* its compact form */
    const an_param *in, *out;
    pt_name names[PT_ROW_NAMES];   /* aliases and role names */
    size_t n_names;
    /* statements of the row body in order: kind 'l' loop (body range), 'd' scalar
     * declaration, 'u' other statement */
    struct {
        char kind;
        size_t a, b;               /* whole statement */
        size_t ba, bb;             /* loop body */
        char var[PT_NAME];         /* loop variable */
    } st[PT_ROW_STMTS];
    size_t n_st;
} pt_rows;

/* Reads the row body [a, b) of a one-thread-per-row kernel. NULL or why not. */
const char *rwp_read_rows(pt_rows *rw, const pt_shape *s);

/* Declares the scalar local of statement i (a `float NAME = INIT;`) under canon; returns its
 * canonical init text in init. false when it is not such a declaration. */
bool rwp_rows_decl(pt_rows *rw, size_t i, const char *canon, char *init, size_t size);

/* The canonical text of loop statement i (its body), or of any statement i. */
void rwp_rows_stmt(const pt_rows *rw, size_t i, char *out, size_t size);

/* The canonical text of tokens [a, b) inside statement i (a loop's variable reads `c`). */
void rwp_rows_canon(const pt_rows *rw, size_t i, size_t a, size_t b, char *out, size_t size);

bool rwp_one_of(const char *s, const char *const *set);

/* A pointer the k loop reads through: with aliases allowed (the BLAS matcher), a local
 * declared at the top of the guarded body as `[const] T *a = P + OFFSET;` stands for
 * pointer parameter P moved by OFFSET (a batched GEMM's matrix). */
typedef struct {
    char name[PT_NAME];
    const an_param *p;
    char off[PT_EXPR];   /* compact OFFSET */
} pt_alias;

#define PT_MAX_ALIASES 4

/* The accumulator and k loop of a naive GEMM / GEMV (match_gemm_loop). */
typedef struct {
    char t[PT_NAME];               /* accumulator type: float or double */
    char acc[PT_NAME], kv[PT_NAME];
    char kb[PT_EXPR];              /* the k loop's bound, as written */
    const an_param *pa, *pb;       /* the two operands, in the product's order */
    const pt_alias *aa, *ab;       /* the alias each was read through, or NULL */
    char ia[PT_EXPR], ib[PT_EXPR]; /* compact index of each */
    char scale[PT_EXPR];           /* uniform factors of the product besides the two reads,
                                    * joined by " * ", or "" (rw_tiled_gemm's scaled form) */
    size_t end;                    /* token after the k loop: the epilogue starts there */
} pt_gemm_loop;

/* Matches `T acc = 0; for (int k = 0; k < K; k++) acc += P1[...] * P2[...];` at token a
 * (statements end at end); the operands are pointer parameters or one of the n_al aliases.
 * NULL and g filled, or the reason it does not match. Shared by rw_tiled_gemm and
 * rwp_match_blas, so both recognize exactly one GEMM loop. The product may carry uniform
 * factors (`acc += alpha * P1[...] * P2[...]`, before the first read or after the second:
 * numbers, and scalar parameters the body never writes) only when scaled is true; they go
 * to g->scale (joined by " * "), and the sum over k times them is the accumulator's value. */
const char *rwp_match_gemm_loop(const an_function *f, const rw_toks *ts, size_t a, size_t end,
                                   const pt_alias *al, size_t n_al, bool scaled, pt_gemm_loop *g);

/* A GEMM whose k loop sums into C's element itself (PolyBench's spelling):
 * `[C[I] *= S;] for (int kk = 0; kk < K; kk++) C[I] += [F *] A[...] * B[...] [* F];`. */
typedef struct {
    size_t pre_a, pre_b;           /* the `C[I] *= S;` statement (tokens), or pre_a == pre_b */
    size_t lhs_a, lhs_b;           /* C[I] in the loop's statement */
    char scale[PT_EXPR];           /* the factors besides A's and B's reads, joined by " * ", or "" */
} pt_gemm_mem;

/* Matches that form on tokens [a, end) of f: g's type (C's element type), kv, kb, pa, pb,
 * ia, ib and end (acc is ""), and mm. NULL, or the reason (EN, static). Any thread. */
const char *rwp_match_gemm_mem_loop(const an_function *f, const rw_toks *ts, size_t a, size_t end,
                                    pt_gemm_loop *g, pt_gemm_mem *mm);

/* Does identifier name occur in compact c (as a whole identifier, not a member)? */
bool rwp_names(const char *c, const char *name);

/* The declaration `[const] T name = init;` (type words [tstart, name), init up to token
 * init_b, ts a kernel body's tokens) holds the global thread index along x as the kernel
 * model km reads it, whatever the spelling: temporaries of any kind, macros, casts, the
 * operands in any order, a __device__ helper (issue 13); in_for: it opens a grid-stride
 * loop stepping by blockDim.x * gridDim.x. With grid_y (may be NULL) also the linear
 * index over a 2-D grid of 1-D blocks, blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x)
 * + threadIdx.x, and *grid_y says which. False when km is NULL, or the index or a
 * temporary it is computed from (followed 4 deep) has a type narrower than int. */
bool rwp_model_index_decl(const km_kernel *km, const rw_toks *ts, size_t tstart, size_t name, size_t init_b,
                          bool in_for, bool *grid_y);

/* Is the name at k declared there (`T name = ...`, `T *name = ...`, `T a = 1, name = ...`)
 * rather than used, looking back no further than token lo? */
bool rwp_declared_at(const rw_toks *ts, size_t k, size_t lo);

/* Why the per-element code [a, b) of a kernel body's tokens reads the thread's own
 * coordinates, or NULL: once a thread handles other elements than its own (vectorize,
 * grid_stride), threadIdx/blockIdx, or a top-level local declared before the region
 * (token region) whose value the model km (may be NULL) sees depend on them (`int lane =
 * threadIdx.x % 32;`), would not be the element's. The element index idx itself is. */
const char *rwp_thread_coordinate_problem(const rw_toks *ts, size_t a, size_t b, const km_kernel *km,
                                          size_t region, const char *idx);

/* A GEMM/GEMV size the kernel bounds nowhere (no guard, no loop: the launch alone decides
 * it, as in Parboil's mysgemmNT), as C text over grid and block (the names of a dim3 pair:
 * "hk_grid"/"hk_block" in a host function, "gridDim"/"blockDim" in a kernel), into out (n
 * bytes). I is c's row_index or col_index, what its name ("M", "N") for the reason. Exact
 * only when I is the global thread index along one axis a, blockIdx.a*blockDim.a +
 * threadIdx.a, or R times it plus the counter of a loop 0..R-1 (R a constant) around C's
 * write: the launch's threads then write indices 0 .. gridDim.a*blockDim.a*R - 1, each
 * exactly once, and that count is the size. Any other mapping (an offset, a stride, a
 * non-affine id, a block of TILE threads read as TILE, overlapping rows) leaves rows the
 * replacement would write and the kernel would not, or the reverse; so does a grid-stride
 * loop: false with the reason in why (wn bytes). A class with seen-through tiles
 * (tiles_seen) may spell blockDim.a as the tile extent its tiles need along a (tile*
 * blockIdx.a + threadIdx.a): the caller must then check that the block is the tile.
 * Allocates only for the reason's text. */
bool rwp_launch_extent(const km_kernel *k, const km_class *c, const km_cform *I, const char *what, const char *grid,
                       const char *block, char *out, size_t n, char *why, size_t wn);

struct spec;
/* Is the kernel f's parameter pi one that every launch passes equal to its block along x:
 * an integer scalar that the harness-form spec sp binds (its "value") to what the spec's
 * "block" gives along x, at every size set and SM count, with a 1-D block? The harness
 * launches each size set with that block and passes that argument, so inside the kernel
 * the parameter and blockDim.x hold the same integer (as long as the kernel does not
 * assign it: km_build_with checks that). False with the reason (naming the parameter) in
 * why (n bytes; may be NULL) otherwise: no spec, another value at some size set. */
bool rw_spec_block_x_param(const struct spec *sp, const an_function *f, size_t pi, char *why, size_t n);
/* The names (borrowed from f) of every such parameter, at most cap, into names; the count. */
size_t rw_spec_block_x_params(const struct spec *sp, const an_function *f, const char **names, size_t cap);

/* The thread count of the spec's launch (its grid times its block along x, a 1-D launch
 * only) in the kernel's own terms: every size name as the integer parameter the spec passes
 * it to unchanged, the spec's ceil_div, min and max as the C they compute (rewrite_coarsen.c,
 * whose virtual-block bound is the grid's alone). For a body that counts its elements from
 * the launch (no bounds check), so that another grid covers the same elements. New text
 * (long long), or NULL with a reason in why (*rc HK_ENOMEM, or an error of the kernel). */
char *rw_spec_count_in_kernel_terms(const rw_context *ctx, char *why, size_t n, int *rc);

#endif
