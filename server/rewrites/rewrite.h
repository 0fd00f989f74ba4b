/* Source-to-source rewrites of one kernel for the built-in engine: __launch_bounds__,
 * __restrict__ (and const where the kernel never writes through a pointer), setting a
 * tunable constant, and the 1D grid-stride loop. Each works on the analysis model's spans
 * (edits applied back to front) and re-analyses its result: a rewrite that would add
 * parse errors is refused. A rewrite that does not fit the code says "not applicable" and
 * why; that is a normal outcome, not an error. Pure functions on text, any thread. */
#ifndef HK_ENGINE_REWRITE_H
#define HK_ENGINE_REWRITE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

/* The outcome of one rewrite. Owns text and description (rw_result_free). */
typedef struct {
    bool applicable;    /* false: text is NULL and description says why not */
    char *text;         /* the whole new source, NUL-terminated; NULL when not applicable */
    size_t len;
    char *description;  /* one line: what changed, or why it does not apply. Never NULL
                         * after a call that returned HK_OK. */
    bool keeps_launch;  /* the body keeps the kernel's own use of its block and grid (a
                         * per-block partial at blockIdx.x, a block per channel): it runs
                         * under the original launch only, whatever block or grid the
                         * skill's choice names */
    bool keeps_grid;    /* the body counts its elements from the launch (no bounds check:
                         * the grid's threads are the elements), so it runs under the spec's
                         * grid only; the block may change when the spec's grid follows it */
    unsigned grid_divisor;  /* > 1: the body is written for the spec's grid divided (rounded
                             * up) by grid_divisor along grid_axis (each thread does the work
                             * of that many along it) and gains only under that grid; 0: the
                             * spec's grid */
    unsigned grid_axis;     /* 0 x, 1 y, 2 z; read when grid_divisor or grid_multiplier > 1 */
    unsigned grid_multiplier; /* > 1: the body is written for the spec's grid multiplied by
                               * grid_multiplier along grid_axis (grid_multiplier threads do
                               * the work of one: split_topk_scan's lanes per query) and is
                               * exact only under that grid; 0: the spec's grid. Never set
                               * with grid_divisor */
} rw_result;

void rw_result_free(rw_result *r);

/* The outcome of a rewrite tried on a transformed text (a macro expanded, loops unrolled, a
 * call's reads brought in) stands for the original's: desc (owned, may be NULL) replaces
 * from's description, then *from moves into *to (freed first) and is left empty.
 * HK_ENOMEM when desc is NULL, and nothing moves. */
int rw_result_adopt(rw_result *to, rw_result *from, char *desc);

/* Every rewrite below: text/len is the source that model m (borrowed) was built from;
 * kernel is an index into m->funcs that must be an AN_KERNEL. Returns HK_OK with
 * out->applicable true (new text) or false (reason); HK_EINVAL for bad arguments (index
 * out of range, not a kernel, span outside the text); HK_ENOMEM; HK_EPARSE when the
 * rewritten text no longer parses cleanly (a bug or very odd code: out is not applicable,
 * with the reason). */

/* Adds __launch_bounds__(max_threads[, min_blocks]) before the kernel's name, or replaces
 * the one it has. max_threads 1..1024; min_blocks 0 leaves it out. */
int rw_launch_bounds(const char *text, size_t len, const an_model *m, size_t kernel,
                     int max_threads, int min_blocks, rw_result *out);

/* Adds __restrict__ to every pointer parameter that lacks it and, with add_const, const
 * to the pointee of those the kernel never writes through (no assignment, ++/--, atomic or
 * escaping use of the name in the body). Not applicable when a launch site in the file
 * passes the same expression to two pointer parameters (they alias) or nothing would change. */
int rw_restrict(const char *text, size_t len, const an_model *m, size_t kernel, bool add_const,
                rw_result *out);

/* Sets tunable m->tunables[tunable] to value (an integer literal, e.g. "128"): the #define
 * or constexpr value, or for a template parameter its default and its value at the launch
 * sites and explicit instantiations that give it. Not applicable when there is nothing to
 * change (template parameter without default, launch or instantiation). A mechanical edit:
 * whether the value may change at all is knob_prove's question (knob.h), which the search
 * asks first -- a radius or a problem size is not a tuning knob. */
int rw_set_tunable(const char *text, size_t len, const an_model *m, size_t tunable,
                   const char *value, rw_result *out);

/* Turns the common 1D pattern
 *     int i = blockIdx.x * blockDim.x + threadIdx.x;  if (i < n) { ... }
 * (or `if (i >= n) return; ...`) into
 *     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) { ... }
 * Not applicable (with the reason) for any other shape, or when the body synchronizes,
 * returns early or changes the index. */
int rw_grid_stride(const char *text, size_t len, const an_model *m, size_t kernel,
                   rw_result *out);

/* true when identifier ident appears as a token (not in a comment or string) in the
 * kernel's body. Used by the search to decide which axes make sense. */
bool rw_body_mentions(const char *text, size_t len, const an_function *f, const char *ident);

/* true when the kernel's body writes through (or lets escape) pointer parameter name, or
 * moves it (any assignment to the pointer counts). */
bool rw_param_written(const char *text, size_t len, const an_function *f, const char *name);

/* The same, except that statements which only move the pointer in place (`p += e;`,
 * `p = p + e;`, `p++;` ..., rwl_pointer_move) do not count: true when the memory p points to
 * may be written through it or p escapes. The scan rw_restrict uses for const (`const T *p`
 * keeps p assignable), readonly_loads and load_batching use (issue 13). A rewrite that reads
 * p[i] as one element for the whole body must still check that p is not moved where it
 * looks (rw_param_written). */
bool rw_param_pointee_written(const char *text, size_t len, const an_function *f, const char *name);

/* Position (0-based) of template parameter name in a "template <int A, typename T>" text,
 * or -1 (params NULL, or no such parameter). */
long rw_template_param_index(const char *params, const char *name);

/* ---- the launch configuration a version was measured with (rewrite_launch.c) ---- */

/* What a version was launched with in its measurement (value type). */
typedef struct {
    unsigned block[3];      /* the block measured; all 0: not known, the sites' block is kept */
    unsigned base_block[3]; /* the block the file's launch sites use, when the caller knows it
                             * (the spec's); all 0: read from each site's block expression */
    bool sm_multiple;       /* 1-D grid of (SM count * grid_per_sm) blocks (grid-stride body) */
    unsigned grid_per_sm;   /* 1..65535 when sm_multiple */
    unsigned grid_divisor;  /* 2..64: the sites' grid divided (rounded up) by it along
                             * grid_axis (a stencil_window body); 0: not divided */
    unsigned grid_axis;     /* 0 x, 1 y, 2 z, when grid_divisor or grid_multiplier */
    unsigned grid_multiplier; /* 2..64: the sites' grid multiplied by it along grid_axis (a
                               * split_topk_scan body: that many lanes per query); 0: not.
                               * Never with grid_divisor or sm_multiple */
} rw_launch;

/* One edit rw_launch_config made, against the text it was given. */
typedef struct {
    uint32_t start, end; /* replaced bytes [start, end) of the original text */
    char *text;          /* the replacement (owned) */
    int line;            /* 1-based line of start in the original text */
    char *after;         /* the whole lines of the new text that hold the replacement (owned):
                          * what a document holds once this edit landed */
} rw_launch_edit;

/* Details of one rw_launch_config call; rw_launch_report_free. */
typedef struct {
    size_t n_sites;         /* launch sites of the kernel in the text */
    size_t n_sites_edited;
    bool helper_inserted;   /* the hk_sm_count() helper was added */
    bool advice;            /* nothing was edited, but description tells the user something
                             * (no launch site here, or a block that could not be read) */
    rw_launch_edit *edits;  /* front to back, non-overlapping */
    size_t n_edits;
} rw_launch_report;

void rw_launch_report_free(rw_launch_report *rep);

/* Reads a version's launch_json object (borrowed; NULL or JSON null: nothing was changed)
 * and, when base (borrowed, may be NULL) is the baseline version's and names a block, the
 * block the file uses. A command-form version ("form": "command") ran the user's own
 * launch, so it asks for nothing. HK_OK; HK_EINVAL with a reason in err (errlen bytes)
 * for a block outside 1..1024 per dimension, grid_per_sm outside 1..65535, or a divided
 * grid ("grid_mode": "divided") whose grid_divisor is not in 2..64 or grid_axis not x/y/z, or
 * a multiplied one ("multiplied", grid_multiplier) likewise. */
int rw_launch_from_json(const json_t *launch, const json_t *base, rw_launch *out, char *err,
                        size_t errlen);

/* Edits every launch site of kernel (a name as m spells it; "ns::k" and "k" match) in
 * text/len (model m, borrowed, built from that text) so that it launches want:
 *  - want->sm_multiple: the grid becomes `hk_sm_count() * grid_per_sm`, a static helper
 *    (cudaGetDevice + cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount), or the hip*
 *    calls with hip true or a hipLaunchKernelGGL site) read once, inserted before the
 *    top-level item holding the first launching function unless the text defines it;
 *  - want->grid_divisor: the component of the site's grid along grid_axis, written as
 *    dim3(...) at the site or in the declaration of a local `dim3` only this launch uses,
 *    becomes `((it) + K - 1) / K`; a grid with no component along the axis (1-D, or
 *    dim3(a) for y) stays, since ceil(1 / K) is 1; any other grid (a parameter, a
 *    variable used elsewhere, a call) is refused: the user must divide it by hand;
 *  - want->grid_multiplier: the same component becomes `((it) * K)` (a component the grid
 *    does not write stays 1: multiply it by hand);
 *  - a block that differs from the site's (read from a literal, dim3(...), a #define or
 *    constexpr, or a local `int`/`dim3` variable of the launcher): the block expression
 *    becomes the new block, or the #define/constexpr it names when only these launch
 *    sites use that name; with the spec's grid, literals of the old block size (B and
 *    B-1) in the grid expression (or in the declaration of the local the grid names, when
 *    only this launch uses it) become the new one's when that is unambiguous;
 *  - a block that cannot be read (a parameter) and no want->base_block: no edit, a note
 *    (rep->advice) with the block that was measured.
 * Returns HK_OK and r->applicable true with the whole new text (a copy when nothing needed
 * changing: rep->n_edits 0) and a one-line description naming the lines changed (lines of
 * the new text), or r->applicable false with the reason (a launch this cannot rewrite
 * safely: the user must set it by hand). rep (may be NULL) gets the edits. HK_EINVAL (bad
 * arguments, want out of range), HK_ENOMEM, HK_EPARSE (the result would not parse: r says
 * why). Pure function, any thread. */
int rw_launch_config(const char *text, size_t len, const an_model *m, const char *kernel,
                     const rw_launch *want, bool hip, rw_result *r, rw_launch_report *rep);

/* The block a kernel is launched with in a text, for occupancy (hkls check, the editor's
 * resource hints and hover): the first launch site of kernel whose block is a constant,
 * read as rw_launch_config reads it (a literal, dim3(...), a #define or constexpr, a local
 * constant of the launcher), with that launch's dynamic shared memory when it is one too;
 * else the first __launch_bounds__ argument when it is a constant. */
typedef struct {
    int threads;        /* threads per block (the dimensions' product); 0: not known */
    int dyn_smem;       /* dynamic shared memory in bytes; 0 when absent or not known */
    const char *source; /* "launch", "__launch_bounds__", or NULL when not known (static) */
} rw_kernel_block;

/* Fills *out for kernel (a name as m spells it; "ns::k" and "k" match) in text/len, with
 * m its model (borrowed) and fi the kernel's index in m->funcs when the caller knows it
 * (else -1: looked up). HK_OK (out->threads 0 when no constant block was found) or
 * HK_ENOMEM. Pure, any thread; lexes the launch sites and their callers only. */
int rw_kernel_block_of(const char *text, size_t len, const an_model *m, const char *kernel,
                       long fi, rw_kernel_block *out);

/* rw_kernel_block_of for every kernel of m at once, into out[i] for m->funcs[i] (m->n_funcs
 * entries; zero for what is not a kernel): each launch site is read once, so a file of a
 * thousand kernels costs a pass over its launches, not a thousand. HK_OK or HK_ENOMEM. */
int rw_kernel_blocks(const char *text, size_t len, const an_model *m, rw_kernel_block *out);

/* ---- library substitution (rewrite_blas.c) ---- */

/* Replaces a naive row-major float GEMM (C = [alpha *] A * B [+ beta * C]), strided batched
 * GEMM or GEMV (y = A * x) -- recognized by rwp_match_blas, which finds A, B, C from the
 * index expressions -- by a library call: appends after the kernel a host function
 * `hk_host_<kernel>` taking the kernel's parameters that calls cublasSgemm /
 * cublasSgemmStridedBatched / cublasSgemv (hipblas* with hip) with B and A swapped for the
 * column-major view, on a handle created once and bound to the legacy default stream; defines
 * HK_HOST_CALL_<kernel> (the benchmark program then calls the host function instead of
 * launching), includes <cublas_v2.h> at the top, and turns each launch site
 * `k<<<...>>>(args)` into `hk_host_k(args)`. A size the kernel bounds nowhere (no guard,
 * no loop: Parboil's mysgemmNT) is its launch's, gridDim.a * blockDim.a (times R rows per
 * thread), when the row (column) index maps the grid exactly: the host function then takes
 * `dim3 hk_grid, dim3 hk_block` first, HK_HOST_CALL_GRID_<kernel> is defined too (the
 * benchmark program passes the spec's grid and block) and a launch site becomes
 * `hk_host_k(dim3(grid), dim3(block), args)`. The kernel stays, unused. math: 0 FP32
 * (CUBLAS_DEFAULT_MATH), 1 TF32 (CUBLAS_TF32_TENSOR_OP_MATH; not applicable with hip).
 * Not applicable, with the reason, for: another element type (double, half), an index that
 * is not row-major with unit stride, a store that is not exactly one per output, a size
 * that is not a scalar parameter or file-scope constant (nor the launch's, exactly), a
 * template kernel, a launch on a
 * stream, through cudaLaunchKernel, or before the kernel's definition. The program must be
 * linked with -lcublas (-lhipblas). Contract otherwise as above; HK_EINVAL also for math
 * outside 0..1. */
int rw_blas_substitution(const char *text, size_t len, const an_model *m, size_t kernel, int math,
                         bool hip, rw_result *out);
/* The library a version made by rw_blas_substitution calls, read from its text: "cuBLAS" or
 * "hipBLAS", with the product routine its host function calls ("cublasSgemm", "cublasSgemv", ...;
 * a scal only when it calls no product) written to
 * routine (n bytes; may be NULL). NULL when the text calls no routine of either (not such a
 * version): a name not followed by "(" (a prefix of a longer name) is no call. */
const char *rw_blas_library_of(const char *text, char *routine, size_t n);

#endif
