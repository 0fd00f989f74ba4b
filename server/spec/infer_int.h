/* Spec inference, private to spec/: the skeleton being built (skel), the index facts,
 * and the functions the parts share. infer_text.c reads the launcher's text, infer_index.c
 * the kernel's index math, infer_build.c puts one skeleton together, infer.c chooses among
 * skeletons and finds the files. Not for use outside server/spec/. */
#ifndef HK_SPEC_INFER_INT_H
#define HK_SPEC_INFER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kclass.h"
#include "model/kmodel.h"
#include "spec/expr.h"
#include "spec/infer.h"
#include "spec/spec.h"

#define INFER_MAX_SOURCE ((size_t)16 << 20)

/* Whether s (may be NULL) is a C identifier. */
bool sk_is_identifier(const char *s);

/* Whether s is a name a kernel can have: an identifier, :: allowed. */
bool sk_is_kernel_name(const char *s);

#define SK_MAX_VARS (2 * HK_MAX_ARGS) /* every integer parameter, and launcher names */

#define SK_MAX_MAP 64

#define SK_MAX_NOTES 32

#define SK_MAX_TEXT 1024

typedef struct {
    const an_model *m;
    const char *text;     /* whole source */
    size_t len;
    /* The text holding the launch site: the kernel's own file, or a sibling file of the
     * same project when the kernel's has none (site_text then differs from text). */
    const an_model *site_m;
    const char *site_text;
    size_t site_len;
    const char *site_file;  /* for notes; NULL: the kernel's file */
    uint32_t body_start;  /* caller body in site_text, for launcher locals; 0/0 when none */
    uint32_t body_end;
    char *vars[SK_MAX_VARS];  /* size variables found so far (owned) */
    size_t n_vars;
    /* Names translated to fixed spec text (owned both): a kernel parameter to its launch
     * value, an index variable to its largest value. Consulted before anything else. */
    char *map_from[SK_MAX_MAP], *map_to[SK_MAX_MAP];
    size_t n_map;
    /* Launcher names kept as size variables (borrowed from the model's launch args). */
    const char *keep[SK_MAX_VARS];
    size_t n_keep;
    char *notes[SK_MAX_NOTES], *doubts[SK_MAX_NOTES]; /* owned */
    size_t n_notes, n_doubts;
    const char *file;         /* for "main.cu:42" in notes */
    const km_kernel *km;      /* the kernel model (borrowed), or NULL when it was not built */
    bool grid_known[3];       /* the launch fixes grid dimension d in sizes alone (sk_map_grid) */
    bool threads_known[3];    /* the spec's threads along d are known in sizes (sk_map_threads) */
    long long block_known[3]; /* the spec's block, once chosen (0 before) */
    bool nomem;
} skel;

/* Whether the word w (wl bytes) stands at byte i of t (len bytes), not inside a longer name. */
bool sk_word_at(const char *t, size_t len, size_t i, const char *w, size_t wl);

/* Text of the last `name = EXPR;` or `dim3 name(ARGS)` in the caller body: a new string
 * ("dim3(ARGS)" for the latter) or NULL. */
/* t (n bytes) without blank space and without parentheses around the whole, into out
 * (cap bytes); false when it does not fit or is empty. */
bool sk_bare(const char *t, size_t n, char *out, size_t cap);

char *sk_local_init(skel *k, const char *name);

/* Whether the launcher sets name to a tensor's element count, `name = T.numel();` (mmcv's
 * `int output_size = output.numel();`): then T's name into tensor (cap bytes). */
bool sk_numel_of(skel *k, const char *name, char *tensor, size_t cap);

/* Whether the launcher sets name to a product of two or more other names, one of them
 * passed at the launch site too (mmcv's `int nthreads = num_ * h_feature * w_feature;`
 * beside h_feature and w_feature): that launch argument is then the product of sizes the
 * kernel splits its index by, not a size of its own. */
bool sk_product_local(skel *k, const an_launch *site, const char *name);

/* Whether launch argument text arg is tensor's data, `T.data_ptr<float>()` or
 * `T.data<float>()`, with no offset added. */
bool sk_passes_data_of(const char *arg, const char *tensor);

/* A #define or constexpr of the kernel's file, else of the launch site's. */
const char *sk_tunable_value(const skel *k, const char *name);

/* The spec text name is mapped to (sk_map), borrowed from k; NULL when none. */
const char *sk_mapped(const skel *k, const char *name);

/* Launcher or kernel text c in spec terms (launcher locals, #defines, function-like
 * macros, device limits and mapped names followed; casts dropped; n + b - 1) / b as
 * ceil_div): a new string, or NULL when a part cannot be read. depth: the nesting so
 * far (0 from outside; at most 16). */
char *sk_translate(skel *k, const char *c, int depth);

/* Whether text names a #define or constexpr constant of the kernel's or the launch's file. */
bool sk_mentions_tunable(const skel *k, const char *text);

/* Splits "dim3(a, b)" into its parts (new strings); anything else is one part. */
size_t sk_split_dims(const char *t, char **parts);

/* Adds name as a size variable, once (launch variables such as block_x are none);
 * k->nomem on ENOMEM. */
void sk_add_var(skel *k, const char *name);

/* Adds every variable of the spec text t as a size variable (sk_add_var). */
void sk_collect(skel *k, const char *t);

/* "(X + 255) / 256" or "(X + 256 - 1) / 256" with 256 the block size -> "ceil_div(X, block_v)". */
char *sk_ceil_div(const char *t, long long block, const char *bvar);

/* 0: written only (output); 1: read too (inout); 2: elements are atomic targets
 * (accumulators); 3: the pointer itself is one (a single accumulator, count 1). */
int sk_pointer_use(const char *t, size_t s, size_t e, const char *name);

/* n dimensions as JSON: one as a number or string, several as an array. New
 * reference, NULL on ENOMEM. */
json_t *sk_dims_json(char **dims, size_t n);

/* The spec dtype of a C element type; "float" for one the harness does not know (a struct,
 * an unresolved template parameter): sk_dtype_known says which. */
const char *sk_dtype(const char *elem, char **type_params, size_t n_tp, int *width);

/* Whether the harness knows the element type elem (sk_dtype_or_null). */
bool sk_dtype_known(const char *elem);

/* The value of a float scalar no launch gives, by its name (eps 1e-5, scale 0.125...). */
double sk_float_default(const char *name);

/* Whether size variable v names a head or model dimension (dim, d, hd): invented small. */
bool sk_dim_like(const char *v);

/* Records what was guessed and from where in k: msg is a format of core/i18n.c's table
 * (HK_MSG_INF_*), written in the process's language (docs/i18n.md); the arguments follow
 * its conversions, which test_core_i18n keeps the same in both languages. */
void sk_note(skel *k, enum hk_msg msg, ...);

/* Records why the spec is not sure enough to run on in k, as sk_note. */
void sk_doubt(skel *k, enum hk_msg msg, ...);

/* Records a doubt already in words (a validation message of spec_parse or sk_covers). */
void sk_doubt_text(skel *k, const char *text);

/* The 1-based line of byte in the kernel's text. */
int sk_line(const skel *k, size_t byte);

/* The line of a byte of the launch site's text. */
int sk_site_line(const skel *k, size_t byte);

/* Maps the name from to the spec text to (both copied) for sk_translate, which
 * consults the first mapping of a name; at most SK_MAX_MAP, k->nomem on ENOMEM. */
void sk_map(skel *k, const char *from, const char *to);

#define KF_MAX_INDEX 32

enum { IX_THREAD, IX_BLOCK, IX_LOOP };

typedef struct {
    char name[64];
    int dim;            /* 0..2 (x, y, z); -1 for a loop counter */
    int kind;           /* IX_* */
    char *bound;        /* C text (kernel terms) of the exclusive bound, or NULL */
    int bound_line;
    /* IX_THREAD whose block index is scaled by something other than blockDim or the one
     * constant the block is pinned at (blockIdx.x * tile + threadIdx.x): its bound says
     * nothing about how many blocks cover it */
    bool odd_stride;
    int line;
} kf_index;

typedef struct {
    kf_index idx[KF_MAX_INDEX];
    size_t n_idx;
    bool uses_dim[3];    /* blockIdx/threadIdx in that dimension */
    bool grid_stride;    /* gridDim appears: the kernel loops over the grid */
    bool bounds_checked; /* a thread or block index is compared with a bound */
    long long fixed_block; /* block size the index math hard-codes (blockIdx.x * 256), or 0 */
    int fixed_line;
    const char *fixed_why;
} kfacts;

/* Frees what f holds (the bounds' texts). */
void kf_free(kfacts *f);

/* The text [s, e) with the matching close of an opener at s - 1: the index of the first
 * depth-0 stop character at or after s (or e). */
size_t kf_expr_end(const char *t, size_t s, size_t e, const char *stops);

/* Scans f's body into kf: its index variables and their bounds checks, the
 * dimensions used, grid-stride loops and a block size the index math fixes. */
void kf_scan(skel *k, const an_function *f, kfacts *kf);

/* The bound of an index variable in spec terms (kernel parameters replaced by their launch
 * values), or NULL. New string. */
char *kf_bound_spec(skel *k, const kf_index *x);

/* Whether the spec text t parses and names only size and launch variables. */
bool kf_only_sizes(skel *k, const char *t);

/* Whether the spec text t (a launch's block, translated) names size variables and nothing
 * else, so the block grows with the problem (nx - 1). */
bool sk_sized_block(skel *k, const char *t);

/* Whether c counts hits in t's [s, e) (ball query's cnt): set to 0 where it first appears,
 * changed only by ++c (c++, c += 1) each followed at once by `if (c >= N) break;` (or ==, or
 * braces round the break), and used elsewhere only before the first of them, so below N at
 * every use. N's text in bound (cap bytes). */
bool kf_hit_counter(const char *t, size_t s, size_t e, const char *c, char *bound, size_t cap);

/* Count of pointer parameter name from its subscripts in the body: every index variable
 * replaced by its largest value (bound - 1), the largest subscript plus one. New string,
 * or NULL when one subscript cannot be bounded. */
char *kf_count_from_index(skel *k, const an_function *f, kfacts *kf, const char *name);

extern const char *const kc_grid_names[3];

extern const char *const kc_thread_names[3];

/* Does the model place every access of parameter name, moved once? A move inside a
 * grid-stride loop adds up over its iterations: exact only when the grid gives every
 * thread one iteration (stride_grid: the grid is the loop bound's). */
bool kc_moved_once(const skel *k, const char *name, bool stride_grid);

/* When every write of buffer name in the kernel model (NULL: none) sits under a condition
 * on a value read from memory (ball query's `if (d2 < r2) idx[cnt] = k`) or on a local the
 * model does not follow (a flag set in a loop from a device function's answer: mmcv's
 * points_in_boxes): the line of the first, else 0; *by_local (may be NULL) says whether
 * some write's condition is such a local alone. Which elements are written then depends
 * on the data, so the others keep what the buffer held: an inout, never an output the
 * harness checks as all written. */
int kc_data_guarded_writes(const km_kernel *km, const char *name, bool *by_local);

/* When every write of buffer name in the kernel model sits in a loop whose start or bound
 * is a min or max of something that moves with the thread (psamask's window clipped at
 * the feature map's edges): the line of the first, else 0. Which elements such windows
 * reach together is not known: an inout, whose elements not written keep their contents. */
int kc_window_writes(const km_kernel *km, const char *name);

/* When every access of buffer name (global) sits in a loop (not grid-stride) whose
 * iterations a guard on its counter skips whatever the data (no value read from memory in
 * it: tin_shift's shift read, ball query's distances let some data reach every element),
 * or whose start or bound is clipped by a min or max (carafe's window
 * `if (iy < 0 || iy > down_height - 1) continue;`): the line of the first, else 0 (also
 * when the kernel has no access of it). Which of the elements its count spans the kernel touches then depends on
 * the sizes (at the invented ones, a window larger than the map skips most of them): its
 * count is no measure of the bytes moved. */
int kc_window_reads(const km_kernel *km, const char *name);
/* Elements of parameter name each thread reads when every global access of it is a read
 * outside any loop whose subscript holds a value read from memory (a gather by a loaded
 * index: softmax[n * classes + label[n]]): the number of such reads; else 0. *strided:
 * one of them is in a grid-stride loop (it reads once per element the loop visits). */
int kc_gather_reads(const km_kernel *km, const char *name, bool *strided);

/* Count of buffer from the model: the largest element any global access of it can reach,
 * plus one, in spec terms (kernel parameters replaced by their launch values). New
 * string, or NULL when one access cannot be bounded or the kernel has no model. */
char *kc_count(skel *k, const char *buffer);
char *kc_write_reach(skel *k, const char *buffer);

/* The exclusive bound (spec terms) of the global thread index along axis d that a guard of
 * the model compares, e.g. `if (idx < n)` with idx = blockIdx.x * blockDim.x + threadIdx.x
 * computed through temporaries; *line gets the guard's line. New string or NULL. */
char *kc_axis_bound(skel *k, int d, int *line);

/* The exclusive bound (spec terms) that a guard of the model compares the flat global
 * index of a 2-D grid with, blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) +
 * threadIdx.x < B (Rodinia's nn): the threads of any grid number the indices below
 * blockDim.x * gridDim.x * gridDim.y once each, so grid x times grid y must reach
 * ceil_div(B, block_x). *line gets the guard's line. New string or NULL. */
char *kc_flat_bound(skel *k, int *line);

/* A write to a pointer parameter of f whose element the model computes with gridDim,
 * in a kernel without a grid-stride loop, other than the flat index kc_flat_bound reads
 * (gridDim there makes the elements depend on the grid's shape, which no bounds check
 * says how to cover): its line, and its buffer in *buffer; 0 when there is none. */
uint32_t kc_grid_dim_write(const skel *k, const an_function *f, const char **buffer);

/* The bound of the outermost grid-stride loops (for (i = tid; i < bound; i += stride)) in
 * spec terms, when made of size variables only: the elements the grid covers (mmcv's
 * CUDA_1D_KERNEL_LOOP(i, nthreads) gives nthreads; loops over n and n * m on two branches,
 * as in bbox_overlaps, give max(n, n * m), so neither runs on a grid sized for the other).
 * *line gets the first one's line. New string, or NULL when no such loop has a sized bound. */
char *kc_stride_bound(skel *k, int *line);

/* Does the model list a loop that steps by the grid (a grid-stride loop, SHOC's
 * `i += blockDim.x * 2 * gridDim.x`, mmcv's `i += gridDim.x` over blocks)? Such loops reach
 * their bounds with any grid. True without a model (the text's gridDim decides then). */
bool kc_grid_steps(const skel *k);

/* Does the model list a grid-stride loop (gridDim in the text may be a last block's test)? */
bool kc_has_grid_stride(const skel *k);

/* How a 2-D kernel without bounds checks tiles a matrix (kc_row_tiles). */
typedef struct {
    long long cx, cy; /* the block the index math assumes along x (when bx) and y */
    bool bx;          /* blockIdx.x in the index: tiles side by side; else one block wide */
    char *stride;     /* the row stride S in spec terms (new) */
    bool store;       /* one of the writes stores to an output (not an inout) */
} kc_rows;

/* Does every write of the kernel that moves with threadIdx.y or blockIdx.y store row
 * (cy * blockIdx.y + threadIdx.y) of a matrix of row stride S, at column (cx * blockIdx.x)
 * + threadIdx.x, plus sized terms: S * (cy*by + ty) + cx*bx + tx + rest? Rodinia's srad
 * and backprop, cuda-samples' matrixMul write so. With such a write the rows a grid covers
 * are the grid's to choose (one size of the kernel's that it never reads) and the counts
 * follow it; the columns are S when the tiles go side by side. */
bool kc_row_tiles(skel *k, const an_function *f, kc_rows *r);

/* flops of one launch from what the model recognises, in spec terms: a GEMM's 2*M*N*K, a
 * GEMV's 2*M*N, an elementwise kernel's operations per element times the output's
 * count (counts: the spec text of each parameter's count, by parameter index). New
 * string and a note, or NULL. */
char *kc_flops(skel *k, const an_function *f, char *const *counts, const bool *count_sure);

/* The bytes of a C scalar or vector type name, 0 when not known. */
long sk_type_size(const char *t);

/* Replaces sizeof(T) by its size and NAME.size() by a vector's constructor argument in
 * host text. New string or NULL when a sizeof cannot be resolved. */
char *sk_host_text(skel *k, const char *c, long elem_size, const char *elem);

/* Count of the buffer passed as launch argument arg, from the host code: cudaMalloc/
 * hipMalloc(&arg, BYTES) or a vector's size in the caller before the launch; for a
 * file-scope pointer (not declared in the caller), its one allocation anywhere in the file
 * (an init function's), when the size is a constant there: that function's own names
 * mean nothing at the launch. New string or NULL; *line set. */
char *sk_count_from_host(skel *k, const char *arg, long elem_size, const char *elem, int *line);

/* How the body t[s, e) of k's text uses pointer parameter name (sk_pointer_role). */
typedef struct {
    /* sk_pointer_use's answer, with the elements reached through other pointers made from
     * name: read there makes 0 a 1, atomic targets there make 0 or 1 a 2 */
    int use;
    bool written;       /* some element is stored, atomics included */
    /* The first use whose effect is not known: name (or a pointer made from it) passed to a
     * function whose body is not in the file (call: its name), or kept where the walk does
     * not follow it (call ""): a return, a struct, helpers nested past the depth followed.
     * Such a use counts as a read and a write. lost_at: its byte, 0 when there is none. */
    size_t lost_at;
    char call[64];
} sk_role;

/* How pointer parameter name is used in k's text [s, e): sk_pointer_use and the stores
 * of the body itself, and what happens through every pointer made from name (an offset,
 * &name[i], a cast, parentheses, c ? name : other) where it is used: subscripted or
 * dereferenced, kept in a local pointer (followed), passed to an element intrinsic
 * (atomics, __ldg, the cache-hinted stores), bound to a local reference (T &r = name[i]),
 * or passed to a __device__ function or function-like macro of the file (its parameter
 * followed in its body, within one another to a depth of 6; a pointer a helper returns or a
 * macro's value followed at the call; an element passed to a non-const reference parameter
 * too), and the file's macros that name it without taking it as a parameter (#define
 * STORE(v) y[i] = v, their text walked where they are used). A macro defined more than once
 * is not followed (lost). What cannot be followed is in lost_at. Runs on the caller's
 * thread; k is only read. */
void sk_pointer_role(const skel *k, size_t s, size_t e, const char *name, sk_role *r);

/* Where the body moves the pointer itself (name += off, name = ..., ++name): its subscripts
 * are then relative to a place they do not show, so they cannot give its count. The byte
 * of the first such statement, or 0 when there is none. */
size_t sk_pointer_moved(const char *t, size_t s, size_t e, const char *name);

/* Where the body makes another pointer from the pointer parameter name: name + off, off +
 * name, &name[i] (outside an element intrinsic), q = name, c ? name : other, or name passed
 * to a function. The elements reached through that pointer are not in name's own
 * subscripts, so those cannot give its count (float *hi = out + n; hi[i] = v writes past
 * every out[i]). The byte of the first such use, or 0. */
size_t sk_pointer_derived(const char *t, size_t s, size_t e, const char *name);

/* The line where pointer parameter name is cast to a pointer of elements of another size
 * (km_param's recast_at: float4 over float), whose subscripts the model does not list;
 * 0 when none (or no model). */
uint32_t kc_recast_line(const km_kernel *km, const char *name);

/* Whether every global access the kernel model lists is to a pointer parameter: then it
 * followed every pointer made from one, and its per-buffer extents are whole. */
bool kc_accesses_resolved(const km_kernel *km, const an_function *f);

/* The model's view of a gather: an access to a pointer parameter whose index holds a value
 * read from memory, however it is spelled (through a pointer moved by it, `w = wte +
 * ix * C; w[i]`, which no subscript shows). Its line, or 0. */
uint32_t kc_gather_line(const km_kernel *km, const an_function *f);

/* The data-dependent subscripts the guards keep inside their buffers: every global
 * access whose index holds a value read from memory has each such value in a part that
 * guards bound on both sides (0 <= L < X, read at the thread's first element), and its
 * buffer's count (counts[], count_sure[] per parameter) is the model's (kc_count), which
 * holds that bound. The first such access's line, or 0 when one is not so (or none). */
uint32_t kc_gathers_guarded(skel *k, const an_function *f, char *const *counts, const bool *count_sure);

/* A scalar passed a launcher size that is a tensor's element count (`int output_size =
 * output.numel();`, mmcv's nthreads) whose data is passed as pointer parameter j with a
 * sure count: the size is that count. scal[i] becomes the count's text, the size variable
 * goes from k->vars (program[] and have_program[] kept in step) and the grid's texts
 * follow. Left as it is when any count or another scalar mentions the size. */
void sk_numel_sizes(skel *k, const an_function *f, const an_launch *site, char **scal, char *const *counts,
                    const bool *count_sure, char **grid, size_t n_grid, long long *program, bool *have_program);

/* Spec expression text evaluated at one size set (a JSON object of integers). */
bool sk_eval_at(const char *text, const json_t *set, long long *v);

#define SK_MAX_ASSERTS 32

/* One comparison an assert in the launcher makes (a conjunct of assert(a && b)), in spec
 * terms: both sides translated over the size variables. */
typedef struct {
    char *lhs, *rhs; /* owned */
    char op[3];      /* "<", "<=", ">", ">=", "==", "!=" */
    int line;
} sk_assert_cmp;

/* The comparisons of the asserts in the launcher body before the launch, each conjunct of
 * assert(a && b) one; an assert with || at its top level, or a side that does not
 * translate, gives none. Into out (at most cap), their number returned. */
size_t sk_launcher_asserts(skel *k, sk_assert_cmp *out, size_t cap);

/* Whether comparison c holds at the sizes of set: 1 yes, 0 no, -1 cannot say (a side
 * names something that is no size). */
int sk_assert_holds(const sk_assert_cmp *c, const json_t *set);

/* Past a comment, string or character literal starting at t[i] (the index after it), or i
 * when none starts there. */
size_t sk_skip_lexeme(const char *t, size_t len, size_t i);

/* Whether byte at of t lies inside a comment or a string or character literal that starts
 * in [s, at) (t's text up to e): a name there is no use of it. */
bool sk_in_comment(const char *t, size_t s, size_t e, size_t at);

/* The C of an assert that size variable var is a multiple of a constant (var % C == 0),
 * else 0. */
long long sk_assert_multiple(const sk_assert_cmp *c, const char *var);

/* The largest value of size variable var that comparison c allows (var <= C, var < C,
 * C >= var, C > var with C a constant), or -1. */
long long sk_assert_upper(const sk_assert_cmp *c, const char *var);

/* Whether every scalar parameter form f mentions (operands of its operations too) is
 * passed a number or a size variable that bounded fixes (>= 0): a subscript through them
 * then takes the values the program is written for. */
bool kc_params_bounded(const skel *k, const an_function *f, km_form form, char *const *scal,
                       const long long *bounded, int depth);

/* Index buffers whose values subscript other buffers (gathers), given a range from the
 * index math. First the limit of each index buffer Q: the smallest radix R (kg_radix),
 * over the size sets, of the gathers that read Q's value as the lowest digit of their
 * subscript, or KG_TABLE_ROWS where Q picks rows of a table (kg_row_term) that nothing
 * sizes (count_fixed[dest] false: no allocation of the program's): that table's count is then rows_count[dest] ("65536 * S", a new string), and all
 * its reads must pick rows. Then every gather of f must read one such value alone
 * (kg_read_term) or as a row and, with that value below its limit, stay inside its buffer
 * (kg_inside). On success limit[q] is Q's limit (0 for a buffer that is no index),
 * rows_count[] the counts of the tables (NULL for others) and *line the first gather's
 * line; false (limits unusable, rows_count all NULL) when one gather is not such, Q is not
 * an integer input, a limit is below 2 (a constant input), or the textual scan's gather
 * (text_line, 0 for none) is none of the model's. Where the kernel checks Q's value against
 * a size R before using it (`if (r < 0 || r >= R) continue;`), R is the table's rows and
 * Q's limit, and checked[] is set for both Q and the table. Where one size R alone bounds
 * Q's values, limit_text[q] is R as the spec's size expression (a new string: Q's values
 * are then int(0, R - 1) at each size set, and the gathers are checked so), else NULL. */
bool kg_gathers(skel *k, const an_function *f, size_t bs, size_t be, char *const *counts,
                const json_t *const *sets, size_t n_sets, int text_line, long long *limit, int *line,
                bool *compared, bool *checked, const bool *count_fixed, char **rows_count, char **limit_text);

/* Whether shared access a of km stays inside its array at every size: its subscript
 * bounded by constants through loop trips, min/max operands, masks and ceil_div (a tile
 * loop's `min(m, k + TILE) - k`), [*lo, *hi] below the array's *extent elements. */
bool kc_shared_inside(const km_kernel *km, const km_access *a, long long *lo, long long *hi, long long *extent);

/* The rows of a table whose rows an index buffer picks and nothing sizes (kg_gathers):
 * tables read so are vocabularies and embeddings, tens of thousands of rows and larger than
 * the L2 in real programs; a small one would make every gather a cache hit. */
#define KG_TABLE_ROWS 65536

/* A subscript of a pointer parameter whose index is a value read from a buffer (P[Q[i]],
 * or label = target[i]; P[label]): the generated inputs are random, not valid indices,
 * so such a kernel reads out of bounds. The byte of the first such subscript, or 0. */
size_t sk_gather(const char *t, size_t s, size_t e, const an_function *f);

/* The "constants" of the spec: every file-scope __constant__ variable the kernel reads that
 * its declaration does not initialise (the program fills it with cudaMemcpyToSymbol; the
 * harness fills it like an input, in baseline and candidate alike), with its element type
 * and count from the declaration. A new array (NULL on ENOMEM); what could not be read is a
 * doubt and left out. */
json_t *sk_constants(skel *k, const an_function *f);

enum { GRID_SITE, GRID_BOUNDS, GRID_FLAT };

typedef struct {
    char *need[3];      /* blocks each grid dimension needs (spec text), or NULL */
    char *need_xy;      /* blocks grid x times grid y must reach (a flat 2-D index), or NULL */
    bool unknown[3];    /* the dimension is used and nothing says how far it goes */
    bool grid_stride;
} sk_cover;

/* Frees what c holds and zeroes it. */
void sk_cover_free(sk_cover *c);

/* Frees what k holds and zeroes it. */
void sk_free(skel *k);

/* Splits "<256, float>" (or a template parameter list's defaults) at depth-0 commas into
 * up to cap new strings. */
size_t sk_split_targs(const char *t, char **out, size_t cap);

/* The template arguments of an explicit instantiation of kernel in t
 * ("template __global__ void k<float, 128>(const float *, ...);"): a new string "<...>", or
 * NULL; *at set to its byte. A program instantiates what it runs, so these are as good as a
 * launch site's. */
char *sk_instantiation(const char *t, size_t len, const char *kernel, size_t *at);

/* The name a template parameter declares: the last word before its default (`unsigned int
 * threads = 256` is threads, `typename T` is T). False when there is none. */
bool sk_tparam_name(const char *decl, char *out, size_t cap);

/* When the launch passes name, a type parameter of the template function that launches
 * (cuda-samples' `template <class T> void reduce(...)` launching reduce0<T>), and an
 * explicit instantiation of that function gives float there (`template void
 * reduce<float>(...)`), or a call that spells its template arguments does (`RunTest<float>(op)`):
 * the launcher's name (borrowed), *line that instantiation's line in the site's file. NULL
 * otherwise. */
const char *sk_launcher_float(const skel *k, const an_launch *site, const char *name, int *line);

/* The launch under `case V:` of `switch (B)` with B its block's text (mmcv's furthest
 * point sampling launches k<1024><<<b, n_threads>>> in case 1024 of switch (n_threads)):
 * true and *v = V (1 to 1024). The case must be the last label before the launch, with no
 * break between them. */
bool sk_switch_case(skel *k, const an_launch *site, long long *v);
/* The launch in the then-branch of `if (X == V)` with X its block, or every variable part of
 * its dim3 block: each dimension's value in dims[0..2]; how many, 0 when it does not apply. */
size_t sk_if_block(skel *k, const an_launch *site, long long *dims);

/* elem with the typedefs of the kernel's file followed (at most four deep), into
 * cur (n bytes). */
void sk_resolve_type(const skel *k, const char *elem, char *cur, size_t n);

/* The element type of a buffer or a __constant__ table: as sk_resolve_type, and a struct of
 * like fields as the vector of them (sk_struct_vector), whose elements the harness
 * generates and compares (fills, for a table). A scalar or a single __constant__ of such a
 * struct is not one (its bytes are no buffer; its fields are settings). */
void sk_resolve_pointee(const skel *k, const char *elem, char *cur, size_t n);

/* PyTorch's AT_DISPATCH_FLOATING_TYPES* macros run their lambda once per floating type,
 * each time with scalar_t that type; float is always one of them. The macro whose
 * still-open call holds the launch at byte site (in the caller body of the launch's text),
 * or NULL. */
const char *sk_dispatch_macro(const skel *k, size_t site);

/* Where the body of the function holding launch l starts in t (len bytes): the caller's
 * body, or for a launch the analysis left at file scope (a function lost in broken code),
 * the outermost brace before it that opens a function body. False when there is none. */
bool sk_site_body(const an_model *m, const char *t, size_t len, const an_launch *l, uint32_t *start);

/* A launch under `if (P == V)` (or !=, or that if's else) with P an integer parameter of
 * the launcher that every call of the launcher in the file passes as the same constant (a
 * literal, or a local of the caller initialised with one and never changed): whether the
 * program takes that branch. */
typedef struct {
    char param[64];     /* P */
    char launcher[128]; /* the function holding the launch */
    long long value;    /* what every call passes as P */
    int calls;
    bool taken;
} sk_branch;

/* Whether the launch l of m (text, len bytes) sits in such a branch: *br filled. */
bool sk_site_branch(const an_model *m, const char *t, size_t len, const an_launch *l, sk_branch *br);

/* The first launch of kernel in m (analysed from text, len bytes; text may be NULL) that
 * passes n_params arguments (a launch of another kernel of the same name, in a sibling
 * file, would not) and is not in a branch the program never takes (sk_site_branch; the
 * first one when all are), else one through a function pointer its launcher sets to the
 * kernel (`p = &kernel; ... p<<<g, b>>>(...)`). Borrowed from m, or NULL. */
const an_launch *sk_find_site(const an_model *m, const char *text, size_t len, const char *kernel,
                              size_t n_params);

/* The spec of kernel kernel of m (source: the path the spec names) for grid_mode
 * (GRID_SITE: the launch's grid, else the bounds', else GRID_FLAT) into *out (new
 * reference), with what its grid must cover in cover and the notes and doubts in k.
 * HK_OK or HK_ENOMEM. */
int sk_build(const an_model *m, long kernel, skel *k, const char *source, int grid_mode,
             sk_cover *cover, json_t **out);

#endif
