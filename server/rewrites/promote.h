/* The fp64 shadow of a kernel (docs/accuracy.md): the baseline's source with the kernel
 * and every __device__ function it calls promoted from float to double, so the oracle can
 * judge baseline and candidate against a high-precision reference of the same computation.
 * A construct that cannot be promoted faithfully is a refusal that names it and its line,
 * never a silently weaker reference. Pure functions on text, any thread once
 * an_grammar_check has run. */
#ifndef HK_ENGINE_PROMOTE_H
#define HK_ENGINE_PROMOTE_H

#include <stddef.h>

#include "spec/spec.h"

/* The outcome of a promotion. Owns every pointer (promote_result_free). */
typedef struct {
    char *text;             /* the shadow source, NUL-terminated; NULL on a refusal */
    size_t len;
    /* The spec's template arguments with every "float" (or "fp32") made "double", in the
     * same order, for instantiating the shadow; NULL/0 when the caller passed none. */
    char **template_args;
    size_t n_template_args;
    /* Dynamic shared memory the shadow needs, as a multiple of the baseline's launch value:
     * 2 when an `extern __shared__` array of float became double, else 1. */
    int shmem_factor;
    /* Bit i: kernel parameter i was float (a value or a pointer) and is double in the
     * shadow: the harness gives it a double value or a buffer of doubles (the baseline's
     * float inputs converted exactly). Parameters of a template type are not marked. */
    unsigned long long double_params;
    size_t n_promoted;      /* functions promoted: the kernel and its device callees */
    size_t n_blanked;       /* other functions whose bodies were emptied (they call or launch
                             * promoted code with float arguments, e.g. the launcher, or share
                             * a dynamic shared array's name with it) */
    char reason[320];       /* a refusal: the construct, its line and why; "" otherwise */
} promote_result;

void promote_result_free(promote_result *r);

/* Promotes kernel (a __global__ function named so in text, len bytes) to an fp64 shadow.
 * The shadow is the whole text with these changes, and only these:
 *  - in the kernel and every __device__ function it calls (transitively, by name): the type
 *    `float` becomes `double` (parameters, locals, casts, sizeof, __shared__ arrays), float
 *    literals lose their f suffix, single-precision math functions and intrinsics become
 *    their double counterparts (promote_math_table), float-rounded math constants
 *    (CUDART_PI_F) become the double ones; a float value the device only reads (a macro
 *    that is one float literal, `__constant__` float data) is read as a double where it is
 *    used, `((double)EPS)`, `((double)w[i])`, its definition kept; integer code is kept
 *    byte for byte; the kernel keeps its name;
 *  - every other function of the model that calls or launches a promoted one gets an empty
 *    body `{ }` (the launcher would pass float pointers to double parameters), and so does
 *    one that declares an `extern __shared__` array of a name a promoted function declares
 *    (one array per name in a file: its type became double).
 * template_args (n_template_args, may be NULL/0) are the spec's for a template kernel:
 * a type parameter given "float" is promoted by the caller's instantiation (returned in
 * out->template_args); one the spec does not give and that defaults to float is refused.
 * Returns HK_OK with out->text; HK_EUNSUPPORTED with out->reason (see the refusal table
 * in promote.c: vector types, half/bfloat16, inline asm, textures/surfaces, bit casts of
 * floats, reinterpret casts, float template arguments, calls to functions not defined in
 * the text, macros and file-scope declarations with float in them that the kernel uses,
 * overloaded device functions, dynamic parallelism); HK_ENOENT when the text has no
 * kernel of that name (reason set); HK_EPARSE when the text does not parse cleanly or the
 * shadow would not (reason set); HK_ETOOBIG, HK_ENOMEM. out is always initialised. */
int promote_fp64(const char *text, size_t len, const char *kernel, const char *const *template_args,
                 size_t n_template_args, promote_result *out);

/* promote_fp64 for a harness-form spec's kernel: refuses first what the spec makes out of
 * scope (a buffer of half or bfloat16: its arithmetic has no faithful double form here),
 * then promotes s->kernel with s->template_args. Same results as promote_fp64. */
int promote_fp64_spec(const spec *s, const char *text, size_t len, promote_result *out);

/* One row of the math table: a single-precision function or intrinsic (name) and its
 * double form. A row with `to` renames the function; its arguments marked 'f' in args
 * (NULL: all of them) are cast to double, since an int or float argument next to a
 * double one would pick a host-only template overload of the double function. A row
 * without `to` rewrites `name(` to open, each top-level comma of the call to sep (NULL:
 * the function takes one argument) and the closing `)` to close, e.g. __fdividef(a, b)
 * becomes (((double)(a))/((double)(b))). */
typedef struct {
    const char *name, *to, *args, *open, *sep, *close;
} promote_math;

/* The table (static, *n entries; any thread), for the documentation and the tests. */
const promote_math *promote_math_table(size_t *n);

#endif
