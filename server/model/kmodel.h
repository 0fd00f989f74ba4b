/* The kernel model (issue 13): what one CUDA/HIP kernel computes, built once from its
 * tree-sitter tree, for rewrites to match on instead of textual shapes. Index expressions
 * become polynomial forms over thread/block ids, dims, parameters, named constants and
 * loop counters, followed through temporaries, casts, macros, template parameters and
 * calls of the file's __device__ functions; every memory access, loop, guard,
 * accumulator and atomic is listed with them.
 * A built model is immutable: any thread may read it. docs/model.md has the tour. */
#ifndef HK_MODEL_KMODEL_H
#define HK_MODEL_KMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hk_buf;

/* ---- forms ---------------------------------------------------------------------- */

/* Largest number of atoms in one product term; a longer product becomes an opaque atom. */
#define KM_DEGREE_MAX 6

/* coef * atoms[0] * ... * atoms[n-1]; n == 0 is the constant term. Atom ids index the
 * kernel's atom table (km_atoms). */
typedef struct {
    int64_t coef;
    uint32_t n;
    uint32_t atoms[KM_DEGREE_MAX];
} km_term;

/* A sum of terms, canonical: terms ordered by their printed text with the constant last,
 * atoms in a term likewise, no zero coefficients, no two terms with the same atoms. The
 * empty form is 0. Two forms are equal exactly when km_form_equal says so. Value type
 * whose terms belong to the kernel (valid until km_free). */
typedef struct {
    const km_term *t;
    uint32_t n;
} km_form;

enum km_atom_kind {
    KM_ATOM_THREAD_IDX,  /* threadIdx.{x,y,z} (hipThreadIdx_x ...); axis 0-2 */
    KM_ATOM_BLOCK_IDX,
    KM_ATOM_BLOCK_DIM,
    KM_ATOM_GRID_DIM,
    KM_ATOM_PARAM,       /* a scalar kernel parameter, by its name */
    KM_ATOM_CONST,       /* a named integer constant: #define with an integer value, a
                          * template parameter, a file-scope constexpr/const; has_value
                          * when its value is known */
    KM_ATOM_LOOP,        /* a loop counter: "$L<n>" counts iterations 0, 1, ... of an
                          * affine loop, "$G<n>" of a grid-stride loop; for a loop whose
                          * step is not affine (s >>= 1) the atom is the variable itself */
    KM_ATOM_ACC,         /* the running value of accumulator n: "$acc<n>" */
    KM_ATOM_VAR,         /* a local whose value the model does not follow ("$var<n>"),
                          * or an atom too long to name ("$big<n>") */
    KM_ATOM_READ,        /* the value read from memory: text "A[index]"; args[0] index */
    KM_ATOM_OPAQUE,      /* a non-affine operation kept with its operands: op is "/",
                          * "%", ">>", "&", "<", "?:", "call", "ceildiv"...; args are
                          * the operands (for "call": the arguments, name in name) */
    KM_ATOM_LITERAL,     /* a non-integer literal or other leaf kept by its text */
    KM_ATOM_NAME,        /* an identifier the model could not resolve (a global) */
};

typedef struct {
    enum km_atom_kind kind;
    const char *text;    /* canonical text, unique in the kernel: the atom's identity */
    const char *name;    /* PARAM/CONST/READ: the source name; "call": the callee; else NULL */
    const char *op;      /* OPAQUE: the operation; else NULL */
    const km_form *args; /* OPAQUE/READ operands */
    uint32_t n_args;
    int axis;            /* builtin ids: 0 x, 1 y, 2 z; else -1 */
    long loop;           /* LOOP: index in km_loops; ACC: index in km_accumulators; else -1 */
    bool has_value;      /* CONST */
    int64_t value;
} km_atom;

/* ---- the model ------------------------------------------------------------------ */

enum km_loop_kind {
    KM_LOOP_AFFINE,       /* for (v = start; v < bound; v += step), step not mentioning v */
    KM_LOOP_GRID_STRIDE,  /* ... step = blockDim.a*gridDim.a, start mentions threadIdx.a */
    KM_LOOP_BLOCK_STRIDE, /* ... step = blockDim.a, start mentions threadIdx.a */
    KM_LOOP_GEOMETRIC,    /* v >>= 1, v /= 2, v *= 2, v <<= 1 ... */
    KM_LOOP_OTHER,        /* a for, while or do the model does not read as counted (a
                           * while/do whose last statement steps its condition's variable
                           * is read as the for loop it spells) */
};

typedef struct {
    enum km_loop_kind kind;
    uint32_t counter;     /* atom id of its counter ($L/$G) */
    const char *var;      /* the induction variable's source name, or NULL */
    km_form start;        /* v at the first iteration */
    km_form step;         /* affine kinds: v = start + step * counter */
    km_form bound;
    const char *cmp;      /* "<", "<=", ">", ">=", "!=" of `v cmp bound`, or NULL */
    km_form trip;         /* iterations (per thread); empty when unknown */
    bool has_trip;
    long parent;          /* enclosing loop index or -1 */
    uint32_t line;        /* 1-based */
    /* A grid-stride loop of width W >= 2 along grid_axis: an AFFINE loop (the kind stays
     * AFFINE, so that no rewrite of KM_LOOP_GRID_STRIDE takes it for one element per
     * thread per step) whose step is W * blockDim.a * gridDim.a and whose start is
     * blockIdx.a * W * blockDim.a + threadIdx.a (plus anything free of the block index):
     * block b's threads take W * blockDim.a consecutive elements per step, SHOC's
     * `i += blockDim.x * 2 * gridDim.x` over g[i] and g[i + blockSize]. 0 otherwise. */
    uint32_t grid_width;
    int grid_axis;        /* its axis when grid_width; else -1 */
} km_loop;

enum km_op { KM_OP_NONE, KM_OP_SUM, KM_OP_PRODUCT, KM_OP_MAX, KM_OP_MIN, KM_OP_EXCHANGE,
             KM_OP_BITWISE, KM_OP_OTHER };

enum km_space { KM_SPACE_GLOBAL, KM_SPACE_SHARED, KM_SPACE_LOCAL, KM_SPACE_OTHER };
enum km_mode { KM_READ, KM_WRITE, KM_RMW };

/* One memory access site (reads of the same element in the same loops and guards are
 * listed once). Index in elements of the buffer as declared (a 2-D array is linearised
 * with its declared extents). */
typedef struct {
    const char *buffer;   /* parameter or array name */
    enum km_space space;
    enum km_mode mode;
    bool atomic;          /* atomicAdd & co.: mode is KM_RMW */
    enum km_op op;        /* RMW: how the old value is combined (x += v: SUM) */
    km_form index;
    km_form element;      /* index with grid-stride counters at 0: the element the thread
                           * handles first; equal to index outside grid-stride loops */
    km_form value;        /* WRITE: the value stored; RMW: the operand (v of x += v, or
                           * the whole new value when op is OTHER); READ: empty */
    km_form element_value;/* value with grid-stride counters at 0 (as element) */
    const uint32_t *loops;/* enclosing loops, outermost first */
    uint32_t n_loops;
    const uint32_t *guards; /* guards in force, outermost first */
    uint32_t n_guards;
    uint32_t line;
    km_form entry_element; /* the buffer a parameter moved once (km_param's moved_at) and
                            * accessed after that: element counted from where the
                            * parameter pointed at entry (the move's offset put in for
                            * its "$var" atom); has_entry_element false otherwise */
    bool has_entry_element;
} km_access;

/* A condition under which code runs: `lhs op rhs` with op "<", "<=", "==", "!=", or
 * op "true" when the condition is not a comparison (lhs holds it). `if (i >= n) return;`
 * gives the guard i < n for what follows; `a > b` is stored as b < a. */
typedef struct {
    km_form lhs, rhs;
    const char *op;
    uint32_t line;
} km_guard;

/* A local the kernel updates by combining (acc += x, acc = fmaf(a, b, acc),
 * acc = fmaxf(acc, x), acc *= x); atom "$acc<n>" stands for its running value. */
typedef struct {
    const char *name;     /* source name (not in the dump) */
    enum km_op op;        /* OTHER when updates disagree or are not a pure combination */
    km_form init;
    km_form operand;      /* what the (first) update combines in */
    km_form element_operand; /* operand with grid-stride counters at 0 */
    long loop;            /* innermost loop of the (first) update, or -1 */
    uint32_t n_updates;
    uint32_t line;        /* of the declaration */
} km_accumulator;

/* One update of an accumulator, in walk order (km_accumulator holds only the first
 * update's operand): how it combines and what, with the loops and guards in force as for
 * an access. A register carry of a shared-memory tree (`S[t] = acc = acc + S[t + s]`, whose
 * store's value is the accumulator's atom) is read from here. */
typedef struct {
    uint32_t acc;         /* index in km_accumulators */
    enum km_op op;        /* as km_accumulator's, for this update alone */
    km_form operand;
    const uint32_t *loops;/* enclosing loops, outermost first */
    uint32_t n_loops;
    const uint32_t *guards;
    uint32_t n_guards;
    uint32_t line;
} km_acc_update;

enum km_local_kind {
    KM_LOCAL_VALUE,       /* substituted by its definition (form) */
    KM_LOCAL_LOOP_VAR,    /* form: start + step * counter */
    KM_LOCAL_ACC,
    KM_LOCAL_VAR,         /* not followed */
    KM_LOCAL_POINTER,     /* form: offset into base */
    KM_LOCAL_ARRAY,       /* local or __shared__ array; form: element count (empty for
                           * extern []) */
};

/* A named local (for rewrites that must find or edit the declaration). */
typedef struct {
    const char *name;
    enum km_local_kind kind;
    km_form form;
    const char *base;     /* POINTER: the buffer; ARRAY: NULL */
    enum km_space space;  /* ARRAY */
    uint32_t line;
    /* VAR: bit l set when loop l (l < 64) steps the local geometrically, `x *= c` or
     * `x /= c` with a constant c >= 2, `x <<= c` or `x >>= c` with c >= 1 (the work-efficient
     * scan doubles and halves `offset` in its two sweeps while counting with another variable): its "$var"
     * atom then takes another power-of-two value in each iteration of that loop. */
    uint64_t geometric_in;
} km_local;

/* Where a global or local read is spelled in the kernel's own text: the subscript
 * `in[i + 1]` or the call `__ldg(&in[i + 1])`, with its index. Only reads written in the
 * kernel body itself (not inside a macro's value or a called __device__ function) have a
 * site; a read the walk met more than once with different indices (a loop body walked
 * again) is ambiguous. For rewrites that replace a read by something else. */
typedef struct {
    uint32_t start, end;  /* bytes [start, end) of the text km_build was given */
    const char *buffer;
    km_form index;
    const uint32_t *loops;/* enclosing loops, outermost first */
    uint32_t n_loops;
    bool ambiguous;
} km_read_site;

typedef struct {
    const char *name;
    bool pointer;
    const char *elem_type;
    bool is_const;
    bool read, written;
    /* A pointer moved exactly once, by `p += off` (off not mentioning p) outside every
     * loop but grid-stride ones (mmcv's `idx += bs_idx * m * nsample + pt_idx * nsample`):
     * the line of the move, and whether a grid-stride loop encloses it (its offset then
     * holds the thread's first element only, and repeats add up: one iteration per thread
     * keeps it exact). Its accesses keep an unknown offset ("$var") in index and element;
     * those after the move also have entry_element. moved_at 0: not moved that way. */
    uint32_t moved_at;
    bool moved_in_grid_stride;
    /* Line of a cast of it to a pointer of elements of another size, or of a size not
     * known (`reinterpret_cast<const float4 *>(p + base)[0]` over float: elements base to
     * base + 3): subscripts through that pointer are not listed (they would name the wrong
     * elements), so its accesses are not all here. 0: none. */
    uint32_t recast_at;
} km_param;

typedef struct km_kernel km_kernel;

/* Builds the model of the kernel named kernel (template arguments stripped, see
 * an_model_find_kernel) in text (len bytes). New model in *out (km_free). HK_OK;
 * HK_ENOENT when no kernel has that name, HK_EPARSE when the text does not parse,
 * HK_ENOMEM, HK_ETOOBIG (over AN_TEXT_MAX_BYTES); on failure *out is NULL and why
 * (may be NULL) gets a sentence. Calls an_grammar_check. Any thread. */
int km_build(const char *text, size_t len, const char *kernel, km_kernel **out, char *why,
             size_t why_n);
/* What the launch says that the kernel's text does not (value type, borrowed for the
 * call). block_x_params: scalar parameters that every launch passes equal to its block
 * along x (a bench spec binds each to the launch's block at every size set:
 * rw_spec_block_x_params). The model reads each of them as blockDim.x wherever the kernel
 * itself reads it (not where a called function has a parameter of that name), unless the
 * kernel assigns it: llm.c's `block_size` then gives the same model as blockDim.x. */
typedef struct {
    const char *const *block_x_params;
    size_t n_block_x_params;
} km_launch_facts;
/* km_build with launch facts (NULL: none, km_build itself). */
int km_build_with(const char *text, size_t len, const char *kernel, const km_launch_facts *facts,
                  km_kernel **out, char *why, size_t why_n);
/* NULL is a no-op. */
void km_free(km_kernel *k);

/* Accessors: borrowed arrays valid until km_free; *n gets the count. */
const char *km_name(const km_kernel *k);
const km_atom *km_atoms(const km_kernel *k, size_t *n);
const km_param *km_params(const km_kernel *k, size_t *n);
const km_loop *km_loops(const km_kernel *k, size_t *n);
const km_access *km_accesses(const km_kernel *k, size_t *n);
const km_guard *km_guards(const km_kernel *k, size_t *n);
const km_accumulator *km_accumulators(const km_kernel *k, size_t *n);
const km_acc_update *km_acc_updates(const km_kernel *k, size_t *n);
const km_local *km_locals(const km_kernel *k, size_t *n);
const km_read_site *km_read_sites(const km_kernel *k, size_t *n);
/* __syncthreads() and friends in the kernel body. */
size_t km_barriers(const km_kernel *k);

/* ---- forms ---------------------------------------------------------------------- */

bool km_form_equal(km_form a, km_form b);
/* The same coefficient and the same atoms (terms keep their atoms sorted). */
bool km_term_equal(const km_term *a, const km_term *b);
/* Does a mention atom (also inside opaque atoms' operands)? */
bool km_form_mentions(const km_kernel *k, km_form f, uint32_t atom);
/* Does f mention any atom of that kind (and axis, unless axis < 0)? */
bool km_form_mentions_kind(const km_kernel *k, km_form f, enum km_atom_kind kind, int axis);
/* The constant value of f with every CONST atom's known value put in, and `/` and `%` of
 * such values worked out as C does (`MASK_DIM / 2`): true and *v, or false when f has
 * other atoms. */
bool km_form_value(const km_kernel *k, km_form f, int64_t *v);
/* Appends the canonical text of f ("0" when empty). HK_OK, HK_ENOMEM, HK_ETOOBIG. */
int km_form_print(const km_kernel *k, km_form f, struct hk_buf *b);
/* Id of the builtin atom kind/axis (threadIdx.x: KM_ATOM_THREAD_IDX, 0) when the kernel
 * uses it; false otherwise. */
bool km_builtin_atom(const km_kernel *k, enum km_atom_kind kind, int axis, uint32_t *id);

/* ---- queries rewrites ask ------------------------------------------------------- */

enum km_stride {
    KM_STRIDE_BROADCAST,   /* does not depend on threadIdx.x: all lanes one element */
    KM_STRIDE_CONTIGUOUS,  /* coefficient 1 */
    KM_STRIDE_STRIDED,     /* another coefficient (symbolic: *stride is 0) */
    KM_STRIDE_UNKNOWN,     /* threadIdx.x inside a non-affine term, or squared */
};
/* Coalescing of a (grid-stride normalised) access along threadIdx.x; *stride (may be
 * NULL) gets the coefficient when it is a known constant, else 0. */
enum km_stride km_access_stride_tx(const km_kernel *k, const km_access *a, int64_t *stride);
/* Reuse: the access touches the same element in every iteration of loop (its index does
 * not mention the loop's counter). False when loop is not one of the access's loops. */
bool km_access_invariant_in(const km_kernel *k, const km_access *a, size_t loop);
/* How the access's index moves with its innermost loop's counter: not at all (or no
 * loop), by one element per iteration (the counter alone, coefficient +-1, in one term:
 * a window or a row walked along), or otherwise (`A[i * n + j]`, and `i * (n + 1)`,
 * which is i*n + i: a column walked down). */
enum km_step { KM_STEP_NONE, KM_STEP_UNIT, KM_STEP_OTHER };
enum km_step km_access_loop_step(const km_kernel *k, const km_access *a);
/* A sliding window (a 1-D stencil `in[i + d]`, a convolution `x[i - K / 2 + t]`): some
 * global load contiguous along threadIdx.x moves by one element per iteration of its loop
 * and none moves otherwise. *first (may be NULL) gets the first such load. */
bool km_sliding_window(const km_kernel *k, const km_access **first);
/* A loop that stores through one pointer parameter and loads through another (a copy or
 * scatter loop, a grid-stride loop over such a body): without __restrict__ the compiler
 * must assume the store may change what the next iteration loads, so the loads wait for
 * the stores. *store and *load (may be NULL) get the first such pair's accesses. */
bool km_loop_store_beside_load(const km_kernel *k, const km_access **store,
                               const km_access **load);
/* The first write (or RMW) of a global buffer: its element form says which output element
 * each thread writes. NULL when the kernel never writes buffer. */
const km_access *km_output_map(const km_kernel *k, const char *buffer);
/* A reduction: an accumulator updated inside a loop, an RMW of one element across a loop's
 * iterations, or an atomic combine. *op (may be NULL) gets the first one's operation. */
bool km_is_reduction(const km_kernel *k, enum km_op *op);
/* Is f exactly blockIdx.a*blockDim.a + threadIdx.a (the global thread index along a)? */
bool km_form_is_global_index(const km_kernel *k, km_form f, int axis);

const char *km_op_name(enum km_op op);

/* Coordinates of a flat index split with / and % (issue 13, permutations): is atom a one
 * coordinate of the flat index g, `g % D` (stride 1), `(g / S) % D` or `g / S` (the
 * outermost, whose extent the guard on g gives)? Then true, with *stride S (the constant 1
 * for `g % D`) and *extent D (empty, n 0, for the outermost); both borrowed from the model.
 * `(g / S) % D` whose S is 1 after folding is `g % D`. */
bool km_atom_coordinate(const km_kernel *k, uint32_t a, km_form g, km_form *stride, km_form *extent);
/* The coefficient of atom a in f: the sum of f's terms that hold a once, each with a taken
 * out, into t (at most cap terms, canonical order) and *n. False when a term holds a more
 * than once or cap is too small. */
bool km_form_coefficient(const km_kernel *k, km_form f, uint32_t a, km_term *t, uint32_t cap,
                         uint32_t *n);
/* Appends f as C source: scalar parameters and named constants by their names, `/` and `%`
 * atoms as C divisions, every c*g inside f (the flat index, at any depth) as c*name. A
 * product's first factor is written with cast in front (NULL: none), so that `(long long)`
 * widens the arithmetic before it can overflow. HK_OK; HK_EUNSUPPORTED when f holds an
 * atom C cannot be written from here (thread or block ids outside g, loop counters, reads,
 * unresolved locals, other operations); HK_ENOMEM, HK_ETOOBIG from b. */
int km_form_print_c(const km_kernel *k, km_form f, km_form g, const char *name, const char *cast,
                    struct hk_buf *b);

/* Canonical text of the whole model: the same computation written with other
 * temporaries, casts, integer types, macro or template constants, fmaf or +=, an if
 * block or an early return gives the same text. KM_DUMP_ELEMENTS shows each access by its
 * element and leaves grid-stride loops out (their bounds stay as guards), so a
 * grid-stride kernel dumps like its one-element-per-thread form. HK_OK, HK_ENOMEM,
 * HK_ETOOBIG from b. */
#define KM_DUMP_ELEMENTS 1u
int km_dump(const km_kernel *k, unsigned flags, struct hk_buf *b);

#endif
