/* Source-to-source rewrites of one kernel for the built-in engine: __launch_bounds__,
 * __restrict__ (and const where the kernel never writes through a pointer), setting a
 * tunable constant, and the 1D grid-stride loop. Each works on the analysis model's spans
 * (edits applied back to front) and re-analyses its result: a rewrite that would add
 * parse errors is refused. A rewrite that does not fit the code says "not applicable" and
 * why; that is a normal outcome, not an error. Pure functions on text, any thread. */
#ifndef HK_ENGINE_REWRITE_H
#define HK_ENGINE_REWRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/analysis.h"

/* The outcome of one rewrite. Owns text and description (rw_result_free). */
typedef struct {
    bool applicable;    /* false: text is NULL and description says why not */
    char *text;         /* the whole new source, NUL-terminated; NULL when not applicable */
    size_t len;
    char *description;  /* one line: what changed, or why it does not apply. Never NULL
                         * after a call that returned HK_OK. */
} rw_result;

void rw_result_free(rw_result *r);

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
 * change (template parameter without default, launch or instantiation). */
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

/* true when the kernel's body writes through (or lets escape) pointer parameter name;
 * the same scan rw_restrict uses for const. */
bool rw_param_written(const char *text, size_t len, const an_function *f, const char *name);

/* Position (0-based) of template parameter name in a "template <int A, typename T>" text,
 * or -1 (params NULL, or no such parameter). */
long rw_template_param_index(const char *params, const char *name);

#endif
