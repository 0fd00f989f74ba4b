/* The reader of a kernel's grid-stride loop over x (one output or query per thread, written
 * `for (TYPE i = <thread index over x>; i < N; i += <grid stride>) { ... }` or through a loop
 * macro such as mmcv's CUDA_1D_KERNEL_LOOP), and the small token helpers around it, shared
 * by the rewrites that give each of the loop's items several lanes (module-internal:
 * rewrite_topk.c, rewrite_window.c). Refusals name the caller's construct ("query loop",
 * "output loop") and go through rwl_refuse. Pure functions, any thread. */
#ifndef HK_REWRITES_REWRITE_GRIDLOOP_H
#define HK_REWRITES_REWRITE_GRIDLOOP_H

#include <stdbool.h>
#include <stddef.h>

#include "rewrites/rewrite_lex.h"

#define RWG_WHY 700

/* One kernel being read: its text, its body's tokens (borrowed), the first refusal. */
typedef struct {
    const char *text;
    size_t len;
    const rw_toks *ts;
    const an_function *f;
    const an_model *m;          /* the file's functions, for calls it follows; may be NULL */
    char why[RWG_WHY];
    bool oom;                   /* an allocation failed: HK_ENOMEM, not the refusal in why */
} rwg_scan;

/* The loop's counter: its type and name, and the bound it is compared with, as written. */
typedef struct {
    char type[64], var[64];
    char bound[256];
} rwg_header;

/* Are the tokens at a and b identifiers of the same name? */
bool rwg_same_name(const rw_toks *ts, size_t a, size_t b);
/* Is token k a use (rwl_is_use) of the name at token name? */
bool rwg_is_name(const rw_toks *ts, size_t k, size_t name);
/* The tokens [a, b) without spaces, into out (n bytes); empty when they do not fit. */
void rwg_compact(const rw_toks *ts, size_t a, size_t b, char *out, size_t n);
/* Is token k a statement keyword (if, for, while, switch, return, sizeof, do, else)? */
bool rwg_is_kw(const rw_toks *ts, size_t k);
/* Is token k inside a loop or switch that starts in [a, k)? (A break there is its own; a
 * `continue` only inside a loop: one in a switch continues the enclosing loop.) */
bool rwg_in_inner_construct(const rw_toks *ts, size_t a, size_t b, size_t k);
/* One past the statement at s of the kernel body: a loop macro's call `M(args) { ... }`
 * ends at its closing brace. */
size_t rwg_stmt_end(const rw_toks *ts, size_t s, size_t end);
/* Is the kernel parameter or body-declared name at k a local array (`float a[8];`)? */
bool rwg_local_array(const rw_toks *ts, size_t k);
/* Is c one of the n strings forms? */
bool rwg_one_of(const char *c, const char *const *forms, size_t n);
/* Is c (compacted, rwg_compact) the global thread index over x, in one of its spellings
 * (`blockIdx.x*blockDim.x+threadIdx.x` and its reorderings)? */
bool rwg_global_x_index(const char *c);
/* The first token of statement [a, b) that stores to memory other than a local array
 * (*call false), or that names a function that may (*call true: not a keyword, a type or
 * rwl_pure_call_name); b when there is none. */
size_t rwg_first_store(const rw_toks *ts, size_t a, size_t b, bool *call);

/* A counted loop's header `for (TYPE v = A; v < B; ++v | v++ | v += 1)`: TYPE's tokens
 * [type_a, type_b), v's token, A's [a_a, a_b) and B's [b_a, b_b); inclusive when the
 * condition is `v <= B` (the last trip is B itself). */
typedef struct {
    size_t type_a, type_b, var, a_a, a_b, b_a, b_b;
    bool inclusive;
} rwg_counted;
/* Reads the header of the `for` at q, its `(` at q + 1 closing at hc, into c: false (no
 * refusal) when it is not a counted loop of that form declaring its counter; `v <= B` is
 * taken only when allow_le (c->inclusive then says which it was). */
bool rwg_counted_header(const rw_toks *ts, size_t q, size_t hc, bool allow_le, rwg_counted *c);

/* Does a grid-stride loop's statement start at q of the kernel body ending at end: `for (`
 * or a call `M(...) {` of a name that is not a keyword (*macro set)? */
bool rwg_loop_at(const rw_toks *ts, size_t q, size_t end, bool *macro);
/* Reads the loop at q (rwg_loop_at said so, macro as it set) into hdr and its braced body
 * [*body_a, *body_b), [*body_a] its '{'. false with a refusal about construct in s->why (or
 * s->oom) when it is not a braced grid-stride loop over x with a plain integer counter
 * compared with one value of the kernel's arguments, or the file defines no such macro. */
bool rwg_read_loop(rwg_scan *s, const char *construct, size_t q, size_t end, bool macro, rwg_header *hdr,
                   size_t *body_a, size_t *body_b);

#endif
