/* pow_small_exponent: `pow(b, e)` / `powf(b, e)` with an exponent the kernel only knows at
 * run time (a focal loss's gamma, a p-norm's p, a parameter of a generalised mean) calls the
 * full power function: a logarithm, a product and an exponential with their corrections, tens
 * of instructions per call, even when every launch passes e = 2. The rewrite routes each such
 * call through a helper that multiplies the base out when the exponent is 0, 1, 2, 3 or 4 and
 * calls the same pow otherwise.
 *
 * Why it is safe: the exponent test is the same for every thread that passes the same
 * exponent (a kernel parameter: a uniform branch), and the products equal pow's value within
 * the rounding of two or three multiplications where pow rounds once: b*b is the correctly
 * rounded square (pow(b, 2) is within its documented ulps of it), b*b*b and (b*b)*(b*b) round
 * two and two times. The special values agree: pow(b, 0) is 1 for every b, NaN included;
 * pow(b, 1) is b; squares of -0, infinities and NaN are +0, +inf and NaN as pow's; odd powers
 * keep the sign. Any other exponent (2.5, NaN, -1) takes pow itself, with the original's
 * argument types, so the original's overload (float or double) is the one called.
 *
 * It applies when at least one pow/powf call in the kernel's body has an exponent that is not
 * a number literal (a literal exponent the compiler folds already); the literal ones in the
 * same body go through the helper too, where the test folds away. A file that declares its own
 * pow or powf is refused: its calls are not the math library's. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdio.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* The helpers, before the kernel (no preprocessor guard: the referee takes a conditional
 * directive the baseline lacks for host code; a file that has them already is refused). */
static const char pow_helpers[] =
    "// hk rewrite (pow_small_exponent): pow with an exponent known only at run time,\n" /* i18n: not for people */
    "// multiplied out when the exponent is 0, 1, 2, 3 or 4 (one uniform compare instead of\n"
    "// pow's logarithm and exponential; the products round at most three times where pow\n"
    "// rounds once); any other exponent calls the same pow as before.\n"
    "template <typename HkPowB, typename HkPowE>\n"
    "__device__ __forceinline__ auto hk_pow(HkPowB hk_b, HkPowE hk_e) -> decltype(pow(hk_b, hk_e))\n"
    "{\n"
    "    typedef decltype(pow(hk_b, hk_e)) HkPowR;\n"
    "    const HkPowR hk_x = (HkPowR)hk_b;\n"
    "    if (hk_e == (HkPowE)2) return hk_x * hk_x;\n"
    "    if (hk_e == (HkPowE)1) return hk_x;\n"
    "    if (hk_e == (HkPowE)0) return (HkPowR)1;\n"
    "    if (hk_e == (HkPowE)3) return hk_x * hk_x * hk_x;\n"
    "    if (hk_e == (HkPowE)4) { const HkPowR hk_y = hk_x * hk_x; return hk_y * hk_y; }\n"
    "    return pow(hk_b, hk_e);\n"
    "}\n"
    "__device__ __forceinline__ float hk_powf(float hk_b, float hk_e)\n"
    "{\n"
    "    if (hk_e == 2.0f) return hk_b * hk_b;\n"
    "    if (hk_e == 1.0f) return hk_b;\n"
    "    if (hk_e == 0.0f) return 1.0f;\n"
    "    if (hk_e == 3.0f) return hk_b * hk_b * hk_b;\n"
    "    if (hk_e == 4.0f) { const float hk_y = hk_b * hk_b; return hk_y * hk_y; }\n"
    "    return powf(hk_b, hk_e);\n"
    "}\n";

/* Is [a, b) one number literal, signed or not (`2`, `2.0f`, `-1.5`, `(2.f)`)? */
static bool number_literal(const rw_toks *ts, size_t a, size_t b)
{
    while (a + 1 < b && rwl_tok_is(ts, a, "(") && rwl_tok_is(ts, b - 1, ")"))
        a++, b--;
    if (a < b && (rwl_tok_is(ts, a, "-") || rwl_tok_is(ts, a, "+")))
        a++;
    return b == a + 1 && ts->t[a].kind == T_NUMBER;
}

/* The call's second argument [*ea, *eb) between the top-level comma and the ')' at close. */
static bool exponent_of(const rw_toks *ts, size_t open, size_t close, size_t *ea, size_t *eb)
{
    size_t comma = 0;
    int depth = 0;
    for (size_t q = open + 1; q < close; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{"))
            depth++;
        else if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, "}"))
            depth--;
        else if (depth == 0 && rwl_tok_is(ts, q, ",")) {
            if (comma)
                return false; /* three arguments: not the math function */
            comma = q;
        }
    }
    if (!comma || comma + 1 >= close || comma == open + 1)
        return false;
    *ea = comma + 1;
    *eb = close;
    return true;
}

static int rw_pow_small_exponent(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    for (size_t i = 0; i < m->n_funcs; i++) {
        const char *n = m->funcs[i].name;
        if (n && (!strcmp(n, "pow") || !strcmp(n, "powf")))
            return rwl_not_applicable_to(out, "pow_small_exponent", f->name, HK_MSG_RW_POW_OWN_POW,
                                         rwl_line_at(text, m->funcs[i].span.start_byte), n);
    }
    for (size_t i = 0; i < m->n_funcs; i++) {
        const char *n = m->funcs[i].name;
        if (n && (!strcmp(n, "hk_pow") || !strcmp(n, "hk_powf")))
            return rwl_not_applicable_to(out, "pow_small_exponent", f->name, HK_MSG_RW_POW_ALREADY,
                                         rwl_line_at(text, m->funcs[i].span.start_byte), n);
    }
    rw_toks ts = {0};
    rw_edits es = {0};
    size_t runtime = 0, literal = 0;
    int first_line = 0, literal_line = 0;
    uint32_t bs = f->body_span.start_byte, be = f->body_span.end_byte;
    if ((rc = rwl_lex(text, bs, be, &ts)))
        goto out;
    for (size_t k = 0; k < ts.n; k++) {
        bool is_pow = rwl_tok_is_ident(&ts, k, "pow"), is_powf = rwl_tok_is_ident(&ts, k, "powf");
        if (!(is_pow || is_powf) || !rwl_tok_is(&ts, k + 1, "("))
            continue;
        size_t from = k; /* `std::pow` and `::pow` are the same function; `x.pow(`, `ns::pow` are not */
        if (k > 0 && (rwl_tok_is(&ts, k - 1, ".") || rwl_tok_is(&ts, k - 1, "->")))
            continue;
        if (k > 0 && rwl_tok_is(&ts, k - 1, "::")) {
            if (k > 1 && rwl_tok_is_ident(&ts, k - 2, "std"))
                from = k - 2;
            else if (k > 1 && ts.t[k - 2].kind == T_IDENT)
                continue;
            else
                from = k - 1;
        }
        size_t close = rwl_match_close(&ts, k + 1), ea, eb;
        if (close >= ts.n || !exponent_of(&ts, k + 1, close, &ea, &eb))
            continue;
        if (number_literal(&ts, ea, eb)) {
            if (!literal++)
                literal_line = rwl_line_at(text, ts.t[k].start);
        } else if (!runtime++) {
            first_line = rwl_line_at(text, ts.t[k].start);
        }
        if ((rc = rwl_edits_add(&es, ts.t[from].start, ts.t[k].end, is_powf ? "hk_powf" : "hk_pow")))
            goto out;
    }
    if (!runtime) {
        rc = literal ? rwl_not_applicable_to(out, "pow_small_exponent", f->name,
                                             HK_MSG_RW_POW_ALL_LITERAL, literal_line)
                     : rwl_not_applicable_to(out, "pow_small_exponent", f->name, HK_MSG_RW_POW_NONE);
        goto out;
    }
    if ((rc = rwl_edits_add(&es, f->span.start_byte, f->span.start_byte, pow_helpers)))
        goto out;
    /* one entry per number (Chinese has no plural) */
    char *d = hk_asprintf(runtime == 1 ? EN(RW_POW_DESC_ONE) : EN(RW_POW_DESC), f->name, runtime,
                          first_line, literal ? EN(RW_POW_AND_LITERAL) : "");
    rc = rwl_finish(text, len, m, f->name, &es, d, out);
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

static int emit_pow_small_exponent(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_pow_small_exponent(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_pow_small_exponent_desc = {
    .name = "pow_small_exponent",
    .summary = "pow/powf with a run-time exponent multiplied out when it is 0-4", /* i18n: not for people (no listing reads it) */
    .flags = 0,
    .emit = emit_pow_small_exponent,
};
