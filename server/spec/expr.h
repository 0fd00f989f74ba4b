/* Size and launch expressions of bench specs: a tiny integer/float language
 * (+ - * / %, unary minus, parentheses, variables, min, max, ceil_div) that is
 * parsed once, evaluated for validation and physical floors, and emitted as C for
 * the generated harness. Evaluation and emitted C agree: integers are 64-bit with
 * C semantics (division truncates), a float literal anywhere makes that operation
 * double. Pure functions, any thread. */
#ifndef HK_ENGINE_EXPR_H
#define HK_ENGINE_EXPR_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"

#define EXPR_MAX_TEXT 4096 /* longest expression accepted */
#define EXPR_MAX_DEPTH 64  /* deepest nesting accepted */

typedef struct expr expr; /* opaque parsed expression */

typedef struct {
    bool is_float;
    long long i; /* when !is_float */
    double f;    /* when is_float */
} expr_value;

typedef struct {
    const char *name; /* borrowed */
    expr_value value;
} expr_var;

/* Parses text into a new expression (*out, expr_free). On a syntax error returns
 * HK_EPARSE and writes a one-line reason naming the column into err (errlen bytes,
 * err may be NULL). HK_ETOOBIG over EXPR_MAX_TEXT or EXPR_MAX_DEPTH, HK_ENOMEM. */
int expr_parse(const char *text, expr **out, char *err, size_t errlen);

/* New expression holding one number literal (is_float picks the type). HK_OK/HK_ENOMEM. */
int expr_from_number(double f, long long i, bool is_float, expr **out);

void expr_free(expr *e);

/* The text the expression was parsed from (borrowed, never NULL). */
const char *expr_text(const expr *e);

/* Evaluates with the given variables (all looked up by name). HK_OK, or HK_EINVAL
 * with a reason in err for an unknown variable, division by zero, integer overflow,
 * a float operand of % or ceil_div. */
int expr_eval(const expr *e, const expr_var *vars, size_t n_vars, expr_value *out, char *err,
              size_t errlen);

/* The value as a double. */
double expr_value_double(expr_value v);

/* Calls fn once per variable occurrence, in source order, until fn returns non-zero
 * (that value is returned). Returns 0 when all were visited. */
int expr_foreach_var(const expr *e, int (*fn)(const char *name, void *ctx), void *ctx);

/* true when the expression uses variable name. */
bool expr_uses(const expr *e, const char *name);

/* true when the result is a float (some float literal reaches the top), assuming
 * every variable is an integer, as all spec variables are. */
bool expr_is_float(const expr *e);

/* Appends C text computing the expression to out: every variable v becomes
 * <var_prefix>v (a long long in scope), ceil_div/min/max become hk_ceil_div/hk_min/
 * hk_max (long long) or fmin/fmax (double), ints are promoted where C would mix.
 * HK_OK, HK_ENOMEM, HK_ETOOBIG. */
int expr_emit_c(const expr *e, const char *var_prefix, struct hk_buf *out);

#endif
