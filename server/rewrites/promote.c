/* fp64 shadows of kernels (promote.h): token edits on the baseline's text, found with the
 * rewrites' scanner (rewrite_lex.h) inside the spans of the analysis model. The rule is to
 * refuse rather than guess: a reference that silently kept part of the computation in float
 * would make the baseline's own error look small and let inaccurate candidates through. */
#include "rewrites/promote.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "rewrites/rewrite_lex.h"

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define LINE(k) rwl_line_at(p->text, ts->t[(k)].start)

/* ---- tables ---- */

/* Single-precision math API (CUDA Math API: single precision functions and intrinsics) and
 * the double form. A plain row renames the function; a row with open/sep/close rewrites
 * `name(` to open, each top-level comma of the call to sep and its `)` to close, for
 * intrinsics without a double twin. */
#define R(a, b) {a, b, NULL, NULL, NULL, NULL}
#define RA(a, b, args) {a, b, args, NULL, NULL, NULL}
static const promote_math math_rows[] = {
    R("acosf", "acos"), R("acoshf", "acosh"), R("asinf", "asin"), R("asinhf", "asinh"),
    R("atan2f", "atan2"), R("atanf", "atan"), R("atanhf", "atanh"), R("cbrtf", "cbrt"),
    R("ceilf", "ceil"), R("copysignf", "copysign"), R("cosf", "cos"), R("coshf", "cosh"),
    R("cospif", "cospi"), R("cyl_bessel_i0f", "cyl_bessel_i0"), R("cyl_bessel_i1f", "cyl_bessel_i1"),
    R("erfcf", "erfc"), R("erfcinvf", "erfcinv"), R("erfcxf", "erfcx"), R("erff", "erf"),
    R("erfinvf", "erfinv"), R("exp10f", "exp10"), R("exp2f", "exp2"), R("expf", "exp"),
    R("expm1f", "expm1"), R("fabsf", "fabs"), R("fdimf", "fdim"), R("floorf", "floor"),
    R("fmaf", "fma"), R("fmaxf", "fmax"), R("fminf", "fmin"), R("fmodf", "fmod"),
    RA("frexpf", "frexp", "f-"), R("hypotf", "hypot"), R("ilogbf", "ilogb"), R("j0f", "j0"),
    R("j1f", "j1"), RA("jnf", "jn", "-f"), RA("ldexpf", "ldexp", "f-"), R("lgammaf", "lgamma"),
    R("llrintf", "llrint"), R("llroundf", "llround"), R("log10f", "log10"), R("log1pf", "log1p"),
    R("log2f", "log2"), R("logbf", "logb"), R("logf", "log"), R("lrintf", "lrint"),
    R("lroundf", "lround"), RA("modff", "modf", "f-"), RA("nanf", "nan", "-"), R("nearbyintf", "nearbyint"),
    R("nextafterf", "nextafter"), R("norm3df", "norm3d"), R("norm4df", "norm4d"),
    R("normcdff", "normcdf"), R("normcdfinvf", "normcdfinv"), RA("normf", "norm", "--"),
    R("powf", "pow"), R("rcbrtf", "rcbrt"), R("remainderf", "remainder"), RA("remquof", "remquo", "ff-"),
    R("rhypotf", "rhypot"), R("rintf", "rint"), R("rnorm3df", "rnorm3d"), R("rnorm4df", "rnorm4d"),
    RA("rnormf", "rnorm", "--"), R("roundf", "round"), R("rsqrtf", "rsqrt"), RA("scalblnf", "scalbln", "f-"),
    RA("scalbnf", "scalbn", "f-"), RA("sincosf", "sincos", "f--"), RA("sincospif", "sincospi", "f--"), R("sinf", "sin"),
    R("sinhf", "sinh"), R("sinpif", "sinpi"), R("sqrtf", "sqrt"), R("tanf", "tan"),
    R("tanhf", "tanh"), R("tgammaf", "tgamma"), R("truncf", "trunc"), R("y0f", "y0"),
    R("y1f", "y1"), RA("ynf", "yn", "-f"),
    /* intrinsics: the fast approximations become the accurate double functions */
    R("__cosf", "cos"), R("__exp10f", "exp10"), R("__expf", "exp"), R("__log10f", "log10"),
    R("__log2f", "log2"), R("__logf", "log"), R("__powf", "pow"), RA("__sincosf", "sincos", "f--"),
    R("__sinf", "sin"), R("__tanf", "tan"), R("__tanhf", "tanh"), R("__frsqrt_rn", "rsqrt"),
    /* rounded arithmetic: the double intrinsic with the same rounding */
    R("__fadd_rd", "__dadd_rd"), R("__fadd_rn", "__dadd_rn"), R("__fadd_ru", "__dadd_ru"),
    R("__fadd_rz", "__dadd_rz"), R("__fsub_rd", "__dsub_rd"), R("__fsub_rn", "__dsub_rn"),
    R("__fsub_ru", "__dsub_ru"), R("__fsub_rz", "__dsub_rz"), R("__fmul_rd", "__dmul_rd"),
    R("__fmul_rn", "__dmul_rn"), R("__fmul_ru", "__dmul_ru"), R("__fmul_rz", "__dmul_rz"),
    R("__fdiv_rd", "__ddiv_rd"), R("__fdiv_rn", "__ddiv_rn"), R("__fdiv_ru", "__ddiv_ru"),
    R("__fdiv_rz", "__ddiv_rz"), R("__fmaf_rd", "__fma_rd"), R("__fmaf_rn", "__fma_rn"),
    R("__fmaf_ru", "__fma_ru"), R("__fmaf_rz", "__fma_rz"), R("__fmaf_ieee_rd", "__fma_rd"),
    R("__fmaf_ieee_rn", "__fma_rn"), R("__fmaf_ieee_ru", "__fma_ru"),
    R("__fmaf_ieee_rz", "__fma_rz"), R("__fsqrt_rd", "__dsqrt_rd"), R("__fsqrt_rn", "__dsqrt_rn"),
    R("__fsqrt_ru", "__dsqrt_ru"), R("__fsqrt_rz", "__dsqrt_rz"), R("__frcp_rd", "__drcp_rd"),
    R("__frcp_ru", "__drcp_ru"), R("__frcp_rz", "__drcp_rz"),
    /* conversions to integers: the same rounding from double */
    R("__float2int_rd", "__double2int_rd"), R("__float2int_rn", "__double2int_rn"),
    R("__float2int_ru", "__double2int_ru"), R("__float2int_rz", "__double2int_rz"),
    R("__float2uint_rd", "__double2uint_rd"), R("__float2uint_rn", "__double2uint_rn"),
    R("__float2uint_ru", "__double2uint_ru"), R("__float2uint_rz", "__double2uint_rz"),
    R("__float2ll_rd", "__double2ll_rd"), R("__float2ll_rn", "__double2ll_rn"),
    R("__float2ll_ru", "__double2ll_ru"), R("__float2ll_rz", "__double2ll_rz"),
    R("__float2ull_rd", "__double2ull_rd"), R("__float2ull_rn", "__double2ull_rn"),
    R("__float2ull_ru", "__double2ull_ru"), R("__float2ull_rz", "__double2ull_rz"),
    /* integers to float: a 32-bit integer is exact in double; 64-bit ones round once */
    RA("__int2float_rd", "__int2double_rn", "-"), RA("__int2float_rn", "__int2double_rn", "-"),
    RA("__int2float_ru", "__int2double_rn", "-"), RA("__int2float_rz", "__int2double_rn", "-"),
    RA("__uint2float_rd", "__uint2double_rn", "-"), RA("__uint2float_rn", "__uint2double_rn", "-"),
    RA("__uint2float_ru", "__uint2double_rn", "-"), RA("__uint2float_rz", "__uint2double_rn", "-"),
    RA("__ll2float_rd", "__ll2double_rd", "-"), RA("__ll2float_rn", "__ll2double_rn", "-"),
    RA("__ll2float_ru", "__ll2double_ru", "-"), RA("__ll2float_rz", "__ll2double_rz", "-"),
    RA("__ull2float_rd", "__ull2double_rd", "-"), RA("__ull2float_rn", "__ull2double_rn", "-"),
    RA("__ull2float_ru", "__ull2double_ru", "-"), RA("__ull2float_rz", "__ull2double_rz", "-"),
    /* classification: the generic names have double overloads */
    R("__finitef", "isfinite"), R("__isfinitef", "isfinite"), R("__isinff", "isinf"),
    R("__isnanf", "isnan"), R("__signbitf", "signbit"),
    /* no double twin: written out (a double narrowed to float stays double) */
    {"__double2float_rd", NULL, NULL, "((double)(", NULL, "))"},
    {"__double2float_rn", NULL, NULL, "((double)(", NULL, "))"},
    {"__double2float_ru", NULL, NULL, "((double)(", NULL, "))"},
    {"__double2float_rz", NULL, NULL, "((double)(", NULL, "))"},
    {"__fdividef", NULL, NULL, "(((double)(", "))/((double)(", ")))"},
    {"fdividef", NULL, NULL, "(((double)(", "))/((double)(", ")))"},
    {"__frcp_rn", NULL, NULL, "(1.0/(", NULL, "))"},
    {"__saturatef", NULL, NULL, "fmin(fmax((double)(", NULL, "),0.0),1.0)"},
};
#undef R
#undef RA

/* Float-rounded math constants of math_constants.h and their double twins. */
static const char *const const_rows[][2] = {
    {"CUDART_SQRT_HALF_F", "CUDART_SQRT_HALF"}, {"CUDART_SQRT_TWO_F", "CUDART_SQRT_TWO"},
    {"CUDART_THIRD_F", "CUDART_THIRD"}, {"CUDART_PIO4_F", "CUDART_PIO4"},
    {"CUDART_PIO2_F", "CUDART_PIO2"}, {"CUDART_3PIO4_F", "CUDART_3PIO4"},
    {"CUDART_2_OVER_PI_F", "CUDART_2_OVER_PI"}, {"CUDART_SQRT_2_OVER_PI_F", "CUDART_SQRT_2OPI"},
    {"CUDART_PI_F", "CUDART_PI"}, {"CUDART_L2E_F", "CUDART_L2E"}, {"CUDART_L2T_F", "CUDART_L2T"},
    {"CUDART_LG2_F", "CUDART_LG2"}, {"CUDART_LGE_F", "CUDART_LGE"}, {"CUDART_LN2_F", "CUDART_LN2"},
    {"CUDART_LNT_F", "CUDART_LNT"}, {"CUDART_LNPI_F", "CUDART_LNPI"},
};

/* Float constants that keep their value: it is exact in double, and the kernel's
 * arithmetic uses them as given (a guard such as `x + FLT_EPSILON` is part of the function
 * computed, and -FLT_MAX as a max's start works the same in double). They become double
 * typed, so that fmax(v, FLT_MAX) does not mix float and double arguments. */
static const char *const exact_rows[][2] = {
    {"FLT_MAX", "((double)FLT_MAX)"}, {"FLT_MIN", "((double)FLT_MIN)"},
    {"FLT_EPSILON", "((double)FLT_EPSILON)"}, {"FLT_TRUE_MIN", "((double)FLT_TRUE_MIN)"},
    {"INFINITY", "((double)INFINITY)"}, {"NAN", "((double)NAN)"}, {"HUGE_VALF", "HUGE_VAL"},
    {"CUDART_INF_F", "((double)CUDART_INF_F)"}, {"CUDART_NAN_F", "((double)CUDART_NAN_F)"},
    {"CUDART_ZERO_F", "((double)CUDART_ZERO_F)"}, {"CUDART_ONE_F", "((double)CUDART_ONE_F)"},
    {"CUDART_NEG_ZERO_F", "((double)CUDART_NEG_ZERO_F)"},
};

/* What makes a promotion unfaithful: one kind per construct, each with its sentences
 * (refusal_why). */
typedef enum {
    PR_NONE,
    PR_VECTOR,       /* float vector type */
    PR_HALF,         /* half-precision arithmetic */
    PR_BF16,         /* bfloat16 arithmetic */
    PR_FP8,          /* fp8 arithmetic */
    PR_ASM,          /* inline asm */
    PR_TEXTURE,      /* texture */
    PR_SURFACE,      /* surface */
    PR_BITS,         /* bit pattern of a float */
    PR_REINTERPRET,  /* reinterpret cast */
    PR_BYTES,        /* byte copy */
    PR_CONSTANT,     /* float-format constant */
    PR_TENSOR,       /* tensor-core fragment */
} pr_kind;

/* The refusal table: identifiers (exact, or a prefix when the row ends in '*') that make
 * a promotion unfaithful, and why. */
static const struct {
    const char *name;
    pr_kind why;
} refusal_rows[] = {
    {"float1", PR_VECTOR}, {"float2", PR_VECTOR}, {"float3", PR_VECTOR}, {"float4", PR_VECTOR},
    {"make_float1", PR_VECTOR}, {"make_float2", PR_VECTOR}, {"make_float3", PR_VECTOR},
    {"make_float4", PR_VECTOR}, {"__half*", PR_HALF}, {"half2", PR_HALF},
    {"__float2half*", PR_HALF}, {"__floats2half2*", PR_HALF}, {"__float22half2*", PR_HALF},
    {"__hadd*", PR_HALF}, {"__hsub*", PR_HALF}, {"__hmul*", PR_HALF}, {"__hdiv*", PR_HALF},
    {"__hfma*", PR_HALF}, {"__hneg*", PR_HALF}, {"__habs*", PR_HALF}, {"__hmax*", PR_HALF},
    {"__hmin*", PR_HALF}, {"__nv_bfloat16*", PR_BF16}, {"nv_bfloat16*", PR_BF16},
    {"__bfloat16*", PR_BF16}, {"__float2bfloat16*", PR_BF16}, {"__floats2bfloat162*", PR_BF16},
    {"__nv_fp8*", PR_FP8}, {"asm", PR_ASM}, {"__asm__", PR_ASM}, {"__asm", PR_ASM},
    {"texture", PR_TEXTURE}, {"cudaTextureObject_t", PR_TEXTURE}, {"tex1D*", PR_TEXTURE},
    {"tex2D*", PR_TEXTURE}, {"tex3D*", PR_TEXTURE}, {"texCubemap*", PR_TEXTURE},
    {"cudaSurfaceObject_t", PR_SURFACE}, {"surf1D*", PR_SURFACE}, {"surf2D*", PR_SURFACE},
    {"surf3D*", PR_SURFACE}, {"surfCubemap*", PR_SURFACE},
    {"__float_as_int", PR_BITS}, {"__float_as_uint", PR_BITS}, {"__int_as_float", PR_BITS},
    {"__uint_as_float", PR_BITS}, {"reinterpret_cast", PR_REINTERPRET}, {"memcpy", PR_BYTES},
    {"CUDART_*_F", PR_CONSTANT}, {"wmma", PR_TENSOR},
};

/* A kind's sentences (docs/i18n.md: one sentence per construct, so that no word is pasted
 * into a sentence): a use of the construct in a promoted function ("float vector type
 * 'float4' (line 3) in 'k': double vectors change alignment and load widths"), and a
 * template argument of the kind ("template argument 1 of 'k' is float4: float vector type
 * has no faithful double form"). Row PR_NONE: the template argument `half` or `bfloat16`
 * ("half precision has no ..."). */
static const struct {
    enum hk_msg use, template_arg;
} refusal_why[] = {
    [PR_NONE] = {HK_MSG_COUNT, HK_MSG_RW_PR_TARG_HALF_PRECISION},
    [PR_VECTOR] = {HK_MSG_RW_PR_USE_VECTOR, HK_MSG_RW_PR_TARG_VECTOR},
    [PR_HALF] = {HK_MSG_RW_PR_USE_HALF, HK_MSG_RW_PR_TARG_HALF},
    [PR_BF16] = {HK_MSG_RW_PR_USE_BF16, HK_MSG_RW_PR_TARG_BF16},
    [PR_FP8] = {HK_MSG_RW_PR_USE_FP8, HK_MSG_RW_PR_TARG_FP8},
    [PR_ASM] = {HK_MSG_RW_PR_USE_ASM, HK_MSG_RW_PR_TARG_ASM},
    [PR_TEXTURE] = {HK_MSG_RW_PR_USE_TEXTURE, HK_MSG_RW_PR_TARG_TEXTURE},
    [PR_SURFACE] = {HK_MSG_RW_PR_USE_SURFACE, HK_MSG_RW_PR_TARG_SURFACE},
    [PR_BITS] = {HK_MSG_RW_PR_USE_BITS, HK_MSG_RW_PR_TARG_BITS},
    [PR_REINTERPRET] = {HK_MSG_RW_PR_USE_REINTERPRET, HK_MSG_RW_PR_TARG_REINTERPRET},
    [PR_BYTES] = {HK_MSG_RW_PR_USE_BYTES, HK_MSG_RW_PR_TARG_BYTES},
    [PR_CONSTANT] = {HK_MSG_RW_PR_USE_CONSTANT, HK_MSG_RW_PR_TARG_CONSTANT},
    [PR_TENSOR] = {HK_MSG_RW_PR_USE_TENSOR, HK_MSG_RW_PR_TARG_TENSOR},
};

/* Calls that need nothing: synchronisation, atomics and shuffles (double overloads exist
 * for the ones that take values: atomicAdd on sm_60+, __shfl*, __ldg and the cache-hint
 * loads), integer intrinsics, generic min/max, and the keywords that take parentheses. */
static const char *const safe_calls[] = {
    "if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "static_cast",
    "const_cast", "static_assert", "__launch_bounds__", "__align__", "__builtin_expect",
    "__builtin_assume", "__assume", "defined", "catch", "throw", "noexcept",
    "__syncthreads", "__syncthreads_or", "__syncthreads_and", "__syncthreads_count", "__syncwarp",
    "__threadfence", "__threadfence_block", "__threadfence_system", "atomicAdd", "atomicSub",
    "atomicMax", "atomicMin", "atomicInc", "atomicDec", "atomicAnd", "atomicOr", "atomicXor",
    "atomicCAS", "atomicExch", "atomicAdd_block", "atomicAdd_system", "__shfl_sync",
    "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__shfl", "__shfl_up",
    "__shfl_down", "__shfl_xor", "__ballot_sync", "__any_sync", "__all_sync", "__activemask",
    "__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__reduce_min_sync",
    "__reduce_max_sync", "__popc", "__popcll", "__clz", "__clzll", "__ffs", "__ffsll", "__brev",
    "__brevll", "__mul24", "__umul24", "__mulhi", "__umulhi", "__mul64hi", "__umul64hi",
    "__sad", "__usad", "__byte_perm", "__funnelshift_l", "__funnelshift_r", "__ldg", "__ldcg",
    "__ldca", "__ldcs", "__ldlu", "__ldcv", "__stwb", "__stcg", "__stcs", "__stwt", "min", "max",
    "abs", "labs", "llabs", "isnan", "isinf", "isfinite", "signbit", "assert", "printf",
    "__trap", "__brkpt", "__nanosleep", "clock", "clock64", "__prof_trigger", "dim3",
    "__isGlobal", "__isShared", "__cvta_generic_to_shared", "__pipeline_commit",
};

/* Type names that may be called as conversions: `int(x)`, `(size_t)(x)`. */
static const char *const int_types[] = {
    "int", "unsigned", "signed", "long", "short", "char", "bool", "size_t", "ptrdiff_t",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "double", "float", "auto", "void", "const", "volatile",
};

/* Keywords and type words that may stand at the top level of a declaration; never names. */
static const char *const decl_keywords[] = {
    "static", "extern", "const", "constexpr", "volatile", "inline", "typedef", "using",
    "struct", "class", "union", "enum", "template", "typename", "__device__", "__host__",
    "__constant__", "__shared__", "__managed__", "__forceinline__", "__noinline__", "float",
    "double", "int", "unsigned", "signed", "long", "short", "char", "bool", "void", "auto",
    "namespace", "public", "private", "protected", "operator", "std", "size_t", "__restrict__",
};

static const char *const float_spellings[] = {"float", "fp32", "f32", "float32"};

/* ---- small helpers ---- */

static bool in_list(const char *const *list, size_t n, const char *s, size_t l)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == l && memcmp(list[i], s, l) == 0)
            return true;
    return false;
}

static bool tok_in(const rw_toks *ts, size_t k, const char *const *list, size_t n)
{
    if (k >= ts->n || ts->t[k].kind != T_IDENT)
        return false;
    return in_list(list, n, ts->text + ts->t[k].start, ts->t[k].end - ts->t[k].start);
}

static size_t tok_len(const rw_toks *ts, size_t k)
{
    return ts->t[k].end - ts->t[k].start;
}

/* The first token starting at or after byte. */
static size_t tok_at(const rw_toks *ts, uint32_t byte)
{
    size_t lo = 0, hi = ts->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ts->t[mid].start < byte)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const promote_math *math_lookup(const char *s, size_t l)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(math_rows); i++)
        if (strlen(math_rows[i].name) == l && memcmp(math_rows[i].name, s, l) == 0)
            return &math_rows[i];
    return NULL;
}

/* A double math function called by its double name (`cos`, `sqrt`, `pow`: the `to` of a
 * single-precision row): CUDA overloads it for float, so a `T` or float argument picks the
 * float function in the baseline, and the shadow casts its float-position arguments (the
 * row's args) to double. NULL when s[0, l) is not one. */
static const promote_math *double_math_lookup(const char *s, size_t l)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(math_rows); i++)
        if (math_rows[i].to && strlen(math_rows[i].to) == l && memcmp(math_rows[i].to, s, l) == 0 &&
            math_rows[i].name[0] != '_')
            return &math_rows[i];
    return NULL;
}

static const char *const_lookup(const char *s, size_t l)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(const_rows); i++)
        if (strlen(const_rows[i][0]) == l && memcmp(const_rows[i][0], s, l) == 0)
            return const_rows[i][1];
    return NULL;
}

static const char *exact_lookup(const char *s, size_t l)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(exact_rows); i++)
        if (strlen(exact_rows[i][0]) == l && memcmp(exact_rows[i][0], s, l) == 0)
            return exact_rows[i][1];
    return NULL;
}

/* Why the identifier s[0, l) is refused, or PR_NONE. Rows ending in '*' are prefixes; a
 * '*' inside a row ("CUDART_*_F") matches any middle. */
static pr_kind refusal_lookup(const char *s, size_t l)
{
    if (const_lookup(s, l) || exact_lookup(s, l))
        return PR_NONE;
    for (size_t i = 0; i < HK_ARRAY_LEN(refusal_rows); i++) {
        const char *p = refusal_rows[i].name, *star = strchr(p, '*');
        if (!star) {
            if (strlen(p) == l && memcmp(p, s, l) == 0)
                return refusal_rows[i].why;
            continue;
        }
        size_t pre = (size_t)(star - p), post = strlen(star + 1);
        if (l >= pre + post && memcmp(s, p, pre) == 0 && memcmp(s + l - post, star + 1, post) == 0)
            return refusal_rows[i].why;
    }
    return PR_NONE;
}

/* A floating literal with an f/F suffix: decimal with '.' or an exponent, or hexadecimal
 * with a binary exponent (0xFF is an integer that merely ends in F). */
static bool is_float_f_literal(const rw_toks *ts, size_t k)
{
    if (ts->t[k].kind != T_NUMBER)
        return false;
    const char *s = ts->text + ts->t[k].start;
    size_t l = tok_len(ts, k);
    if (l < 2 || (s[l - 1] != 'f' && s[l - 1] != 'F'))
        return false;
    bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    for (size_t i = 0; i + 1 < l; i++) {
        char c = s[i];
        if (hex ? (c == 'p' || c == 'P') : (c == '.' || c == 'e' || c == 'E'))
            return true;
    }
    return false;
}

static void refuse(promote_result *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(promote_result *out, const char *fmt, ...)
{
    if (out->reason[0])
        return; /* the first refusal is the one reported */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof out->reason, fmt, ap);
    va_end(ap);
}

/* ---- what the text declares outside functions ---- */

/* What a name declared outside functions holds: nothing a shadow must refuse, or float
 * code (a macro's, a file-scope declaration's, a function's the model does not hold). */
typedef enum { DN_HARMLESS, DN_MACRO_FLOAT, DN_DECL_FLOAT, DN_FUNC_FLOAT, DN_CLASS_SPECIALIZED,
               DN_FLOAT_VALUE /* a float value the device only reads: a macro that is one float literal
                               * (#define EPS 1e-5f), a __constant__ float scalar or array (a
                               * filter's weights). The shadow computes with the kernel's own
                               * float values in double, except where the name gives a type
                               * (auto, decltype) */ } decl_why;

typedef struct {
    uint32_t name_start, name_end; /* in text; the line is counted when a refusal names it */
    uint32_t text_end;             /* a macro's: its replacement is text[name_end, text_end) */
    decl_why why;
    bool array;                    /* DN_FLOAT_VALUE of a file-scope array (`__constant__ float w[5]`) */
    char what[48];
} decl_name;

typedef struct {
    decl_name *v;
    size_t n, cap;
} decl_names;

static int names_push(decl_names *d, uint32_t s, uint32_t e, decl_why why, const char *what)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 32;
        decl_name *v = hk_realloc(d->v, cap * sizeof *v);
        if (!v)
            return HK_ENOMEM;
        d->v = v;
        d->cap = cap;
    }
    decl_name *n = &d->v[d->n++];
    n->name_start = s;
    n->name_end = e;
    n->why = why;
    n->array = false;
    n->text_end = e;
    snprintf(n->what, sizeof n->what, "%.47s", what ? what : "");
    return HK_OK;
}

/* The declaration of name s[0, l): one that makes the shadow refuse it when there is one
 * (a class template's primary is harmless, its specialization for float is not), else the
 * first. */
static const decl_name *names_find(const decl_names *d, const char *text, const char *s, size_t l)
{
    const decl_name *first = NULL, *literal = NULL;
    for (size_t i = 0; i < d->n; i++)
        if (d->v[i].name_end - d->v[i].name_start == l && memcmp(text + d->v[i].name_start, s, l) == 0) {
            if (d->v[i].why == DN_FLOAT_VALUE) { /* another definition may hold float code */
                if (!literal)
                    literal = &d->v[i];
            } else if (d->v[i].why != DN_HARMLESS)
                return &d->v[i];
            if (!first)
                first = &d->v[i];
        }
    return literal ? literal : first;
}

/* Does the text [a, b) hold something that is float in a double shadow: the float type, a
 * float literal, a single-precision math name or a refused construct? what gets its
 * spelling. */
static int text_has_float(const char *text, uint32_t a, uint32_t b, bool *has, char *what, size_t wl)
{
    rw_toks ts = { 0 };
    int rc = rwl_lex(text, a, b, &ts);
    *has = false;
    for (size_t k = 0; rc == HK_OK && k < ts.n && !*has; k++) {
        const char *s = text + ts.t[k].start;
        size_t l = tok_len(&ts, k);
        if ((ts.t[k].kind == T_IDENT && ((l == 5 && !memcmp(s, "float", 5)) || math_lookup(s, l) ||
                                         refusal_lookup(s, l) || const_lookup(s, l))) ||
            is_float_f_literal(&ts, k)) {
            *has = true;
            snprintf(what, wl, "%.*s", (int)(l < 40 ? l : 40), s);
        }
    }
    rwl_toks_free(&ts);
    return rc;
}

/* Is a macro's replacement text[a, b) one float literal, signed or parenthesized
 * (#define EPS 1e-5f, #define NEG (-1.0f))? Not a function-like macro's (a '(' right after
 * the name). */
static bool macro_float_literal(const char *text, uint32_t a, uint32_t b)
{
    if (a < b && text[a] == '(')
        return false;
    rw_toks ts = { 0 };
    bool yes = false;
    if (rwl_lex(text, a, b, &ts) == HK_OK) {
        size_t i = 0, j = ts.n;
        while (j >= i + 2 && rwl_tok_is(&ts, i, "(") && rwl_tok_is(&ts, j - 1, ")")) {
            i++;
            j--;
        }
        if (i < j && (rwl_tok_is(&ts, i, "-") || rwl_tok_is(&ts, i, "+")))
            i++;
        yes = j == i + 1 && is_float_f_literal(&ts, i);
    }
    rwl_toks_free(&ts);
    return yes;
}

/* #define lines: the name, and whether the replacement holds float code. */
static int scan_macros(const char *text, size_t len, decl_names *macros)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if (i < len && text[i] == '#') {
            i++;
            while (i < len && (text[i] == ' ' || text[i] == '\t'))
                i++;
            if (len - i > 6 && !memcmp(text + i, "define", 6) && (text[i + 6] == ' ' || text[i + 6] == '\t')) {
                i += 6;
                while (i < len && (text[i] == ' ' || text[i] == '\t'))
                    i++;
                size_t ns = i;
                while (i < len && (isalnum((unsigned char)text[i]) || text[i] == '_'))
                    i++;
                size_t ne = i, end = i;
                while (end < len && text[end] != '\n') { /* continuation lines belong to it */
                    if (text[end] == '\\' && end + 1 < len && text[end + 1] == '\n')
                        end++;
                    end++;
                }
                bool has = false;
                char what[48] = "";
                int rc = text_has_float(text, (uint32_t)ne, (uint32_t)end, &has, what, sizeof what);
                if (!rc && ne > ns) {
                    rc = names_push(macros, (uint32_t)ns, (uint32_t)ne,
                                    !has ? DN_HARMLESS :
                                    macro_float_literal(text, (uint32_t)ne, (uint32_t)end) ? DN_FLOAT_VALUE :
                                    DN_MACRO_FLOAT, what);
                    if (!rc)
                        macros->v[macros->n - 1].text_end = (uint32_t)end;
                }
                if (rc)
                    return rc;
                i = end;
            }
        }
        while (i < len && text[i] != '\n')
            i++;
        i++;
    }
    return HK_OK;
}

/* Is byte inside one of the model's functions (in source order, never nested)? *end gets
 * the end of its span. A binary search: the scan below asks for every top-level token. */
static bool in_function(const an_model *m, uint32_t byte, size_t *end)
{
    size_t lo = 0, hi = m->n_funcs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->funcs[mid].span.start_byte <= byte)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || byte >= m->funcs[lo - 1].span.end_byte)
        return false;
    *end = m->funcs[lo - 1].span.end_byte;
    return true;
}

/* Notes the first float construct in tokens [a, b) into what. */
static void range_float(const rw_toks *ts, size_t a, size_t b, bool *has, char *what, size_t wl)
{
    for (size_t k = a; k < b && k < ts->n; k++)
        if (rwl_tok_is_ident(ts, k, "float") || is_float_f_literal(ts, k)) {
            if (!*has)
                snprintf(what, wl, "%.*s", (int)tok_len(ts, k), ts->text + ts->t[k].start);
            *has = true;
        }
}

/* Is the file-scope declaration [a, b) one `__constant__` float scalar or array, with at
 * most an initializer of numbers (`__constant__ float w[2 * R + 1];`,
 * `static __constant__ const float k[3] = {0.25f, 0.5f, 0.25f};`)? Device code only reads
 * it: its float values, read into double arithmetic, are the kernel's own. */
static bool constant_float_data(const rw_toks *ts, size_t a, size_t b)
{
    bool constant = false, is_float = false;
    size_t names = 0, k = a;
    for (; k < b && k < ts->n && !rwl_tok_is(ts, k, "="); k++) {
        if (rwl_tok_is(ts, k, "[")) { /* a dimension: numbers, names and operators */
            size_t close = rwl_match_close(ts, k);
            if (close >= b)
                return false;
            k = close;
            continue;
        }
        if (rwl_tok_is_ident(ts, k, "__constant__"))
            constant = true;
        else if (rwl_tok_is_ident(ts, k, "float"))
            is_float = true;
        else if (rwl_tok_is_ident(ts, k, "static") || rwl_tok_is_ident(ts, k, "const"))
            ;
        else if (ts->t[k].kind == T_IDENT)
            names++;
        else
            return false; /* a pointer, a reference, a second declarator, a call */
    }
    if (!constant || !is_float || names != 1)
        return false;
    for (k++; k < b && k < ts->n; k++) /* the initializer */
        if (!(ts->t[k].kind == T_NUMBER || rwl_tok_is(ts, k, "{") || rwl_tok_is(ts, k, "}") ||
              rwl_tok_is(ts, k, ",") || rwl_tok_is(ts, k, "-") || rwl_tok_is(ts, k, "+")))
            return false;
    return true;
}

/* Names declared at file scope (outside the model's functions and outside other function
 * bodies): each top-level declaration's identifiers outside brackets. A declaration that
 * mentions float marks its names: the shadow would read them as float. */
static int scan_file_scope(const rw_toks *ts, const an_model *m, decl_names *out)
{
    size_t i = 0;
    while (i < ts->n) {
        size_t fend;
        if (in_function(m, ts->t[i].start, &fend)) {
            i = tok_at(ts, (uint32_t)fend);
            continue;
        }
        /* one declaration: up to ';' at depth 0, skipping bracketed parts */
        size_t a = i;
        bool has_float = false, ends_body = false;
        char what[48] = "";
        while (i < ts->n && !rwl_tok_is(ts, i, ";")) {
            if (in_function(m, ts->t[i].start, &fend))
                break;
            range_float(ts, i, i + 1, &has_float, what, sizeof what);
            if (rwl_tok_is(ts, i, "{")) {
                bool body = i > a && rwl_tok_is(ts, i - 1, ")");
                bool ns = (i >= a + 2 && rwl_tok_is_ident(ts, i - 2, "namespace")) ||
                          (i > a && (rwl_tok_is_ident(ts, i - 1, "namespace") || ts->t[i - 1].kind == T_STRING));
                if (ns) { /* namespace X { and extern "C" {: their contents are file scope */
                    i++;
                    break;
                }
                size_t close = rwl_match_close(ts, i);
                range_float(ts, i, close, &has_float, what, sizeof what);
                i = close < ts->n ? close + 1 : ts->n;
                if (body) { /* a host function the model does not list */
                    ends_body = true;
                    break;
                }
                continue;
            }
            if (rwl_tok_is(ts, i, "(") || rwl_tok_is(ts, i, "[")) {
                size_t close = rwl_match_close(ts, i);
                range_float(ts, i, close, &has_float, what, sizeof what);
                i = close < ts->n ? close + 1 : ts->n;
                continue;
            }
            if (rwl_tok_is(ts, i, "}")) { /* closes a namespace */
                i++;
                break;
            }
            i++;
        }
        size_t b = i;
        /* template <...> struct NAME<...>, template <> constexpr double NAME<double> = ...:
         * an explicit or partial specialization of a class or variable template, which the
         * shadow's double may select differently from the float */
        bool class_spec = false, shared_idiom = false;
        if (rwl_tok_is_ident(ts, a, "template") && rwl_tok_is(ts, a + 1, "<")) {
            size_t c = rwl_match_close(ts, a + 1);
            for (size_t j = c + 1; j + 1 < b && !class_spec; j++) {
                if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "=") || rwl_tok_is(ts, j, "{") ||
                    rwl_tok_is(ts, j, ":"))
                    break;
                class_spec = ts->t[j].kind == T_IDENT && rwl_tok_is(ts, j + 1, "<");
            }
            c = class_spec && (rwl_tok_is_ident(ts, c + 1, "struct") || rwl_tok_is_ident(ts, c + 1, "class") ||
                               rwl_tok_is_ident(ts, c + 1, "union")) ? c : ts->n; /* the idiom: classes only */
            /* the dynamic shared memory idiom (SharedMemory<double>: an `extern __shared__`
             * array handed out, nothing computed) picks no arithmetic: names, `*`, brackets
             * and `;` only, no number, no operator */
            size_t o = class_spec && c + 3 < ts->n && rwl_tok_is(ts, c + 3, "<") ? rwl_match_close(ts, c + 3) + 1 : ts->n;
            if (o < ts->n && rwl_tok_is(ts, o, "{")) {
                size_t oe = rwl_match_close(ts, o);
                bool shared = false, plain = oe < ts->n;
                for (size_t j = o; plain && j <= oe; j++) {
                    shared |= rwl_tok_is_ident(ts, j, "__shared__");
                    plain = ts->t[j].kind == T_IDENT || rwl_tok_is(ts, j, "*") || rwl_tok_is(ts, j, "(") ||
                            rwl_tok_is(ts, j, ")") || rwl_tok_is(ts, j, "{") || rwl_tok_is(ts, j, "}") ||
                            rwl_tok_is(ts, j, "[") || rwl_tok_is(ts, j, "]") || rwl_tok_is(ts, j, ";") ||
                            rwl_tok_is(ts, j, ":");
                }
                shared_idiom = plain && shared;
            }
        }
        /* the names: identifiers at depth 0 of [a, b) (brackets were skipped above, so
         * walk again with the same rule) */
        for (size_t k = a; k < b && k < ts->n; k++) {
            if (rwl_tok_is(ts, k, "{") || rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") ||
                (rwl_tok_is(ts, k, "<") && k > a && ts->t[k - 1].kind == T_IDENT &&
                 rwl_match_close(ts, k) < b)) {
                size_t close = rwl_match_close(ts, k);
                if (close >= b)
                    break;
                k = close;
                continue;
            }
            if (ts->t[k].kind != T_IDENT || tok_in(ts, k, decl_keywords, HK_ARRAY_LEN(decl_keywords)))
                continue;
            if (rwl_tok_is(ts, k + 1, "::"))
                continue;
            decl_why why = has_float && !ends_body ? DN_DECL_FLOAT : DN_HARMLESS;
            if (why == DN_DECL_FLOAT && !class_spec && constant_float_data(ts, a, b))
                why = DN_FLOAT_VALUE;
            if (ends_body)
                why = has_float ? DN_FUNC_FLOAT : DN_HARMLESS;
            if (class_spec)
                why = shared_idiom ? DN_HARMLESS : DN_CLASS_SPECIALIZED;
            int rc = names_push(out, ts->t[k].start, ts->t[k].end, why, what);
            if (rc)
                return rc;
            if (why == DN_FLOAT_VALUE)
                for (size_t j = a; j < b && j < ts->n && !rwl_tok_is(ts, j, "="); j++)
                    out->v[out->n - 1].array |= rwl_tok_is(ts, j, "[");
        }
        if (i < ts->n && rwl_tok_is(ts, i, ";"))
            i++;
        if (i == a)
            i++;
    }
    return HK_OK;
}

/* ---- the promotion ---- */

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    rw_toks ts;
    bool *promoted;       /* [m->n_funcs] */
    decl_names macros, file_names;
    rw_edits edits;
    promote_result *out;
    /* the kernel's template type parameters the spec gives as float: instantiated with
     * double, so the kernel's parameters of these types are double in the shadow */
    char tparams[8][64];
    size_t n_tparams;
} promoter;

/* Is s[0, l) a type parameter of f's template ("typename NAME", "class NAME")? */
static bool is_type_param(const an_function *f, const char *s, size_t l)
{
    if (!f->template_params)
        return false;
    const char *t = f->template_params;
    /* a cheap scan: "typename NAME" or "class NAME" */
    for (size_t i = 0; t[i]; i++) {
        size_t kw = !strncmp(t + i, "typename", 8) ? 8 : !strncmp(t + i, "class", 5) ? 5 : 0;
        if (!kw || (i > 0 && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_')))
            continue;
        size_t j = i + kw;
        while (t[j] == ' ')
            j++;
        if (!strncmp(t + j, s, l) && !(isalnum((unsigned char)t[j + l]) || t[j + l] == '_'))
            return true;
    }
    return false;
}

/* Is the identifier `half` at k the type, or a variable the function declares? */
static bool half_is_variable(const rw_toks *ts, size_t a, size_t b, const char *name, size_t l)
{
    for (size_t k = a + 1; k < b; k++)
        if (ts->t[k].kind == T_IDENT && tok_len(ts, k) == l && !memcmp(ts->text + ts->t[k].start, name, l) &&
            tok_in(ts, k - 1, int_types, HK_ARRAY_LEN(int_types)))
            return true;
    return false;
}

/* The template parameters of the kernel against the spec's arguments: a type parameter
 * the spec gives as float is promoted through out->template_args; one it does not give
 * must not default to float. */
static int check_kernel_template(promoter *p, const an_function *f, const char *const *targs, size_t n_targs)
{
    promote_result *out = p->out;
    if (n_targs) {
        out->template_args = hk_calloc(n_targs, sizeof *out->template_args);
        if (!out->template_args)
            return HK_ENOMEM;
        out->n_template_args = n_targs;
        for (size_t i = 0; i < n_targs; i++) {
            const char *a = targs[i] ? targs[i] : "";
            bool is_float = false;
            for (size_t h = 0; h < HK_ARRAY_LEN(float_spellings); h++)
                is_float |= !strcmp(a, float_spellings[h]);
            pr_kind why = refusal_lookup(a, strlen(a));
            if (why != PR_NONE || !strcmp(a, "half") || !strcmp(a, "bfloat16"))
                refuse(out, hk_tr_in(HK_LANG_EN, refusal_why[why].template_arg), i + 1, f->name, a);
            out->template_args[i] = hk_strdup(is_float ? "double" : a);
            if (!out->template_args[i])
                return HK_ENOMEM;
        }
    }
    if (!f->template_params)
        return HK_OK;
    /* the parameters in order, split at top-level commas */
    rw_toks ts = { 0 };
    const char *t = f->template_params;
    int rc = rwl_lex(t, 0, (uint32_t)strlen(t), &ts);
    if (rc)
        goto out;
    size_t open = 0;
    while (open < ts.n && !rwl_tok_is(&ts, open, "<"))
        open++;
    size_t close = rwl_match_close(&ts, open);
    size_t idx = 0, start = open + 1;
    for (size_t k = open + 1; k <= close && k < ts.n + 1; k++) {
        bool end = k >= close || k == ts.n;
        if (!end && (rwl_tok_is(&ts, k, "(") || rwl_tok_is(&ts, k, "<"))) {
            size_t c = rwl_match_close(&ts, k);
            if (c < close)
                k = c;
            continue;
        }
        if (!end && !rwl_tok_is(&ts, k, ","))
            continue;
        /* parameter [start, k) */
        bool has_float = false;
        for (size_t j = start; j < k; j++)
            has_float |= rwl_tok_is_ident(&ts, j, "float");
        if (has_float && idx >= n_targs)
            refuse(p->out, EN(RW_PR_TPARAM_DEFAULT), idx + 1, f->name, (int)f->span.start_row + 1);
        /* a default the spec does not give, made of a promoted type parameter: `typename
         * Acc = T` is double with it (its parameters are marked like T's); anything else
         * (Traits<T>::acc, sizeof(T)) is refused: its double form is not known here */
        size_t eq = start;
        while (eq < k && !rwl_tok_is(&ts, eq, "="))
            eq++;
        if (idx >= n_targs && eq < k) {
            const char *dep = NULL;
            for (size_t j = eq + 1; j < k && !dep; j++)
                for (size_t q = 0; q < p->n_tparams && !dep; q++)
                    if (ts.t[j].kind == T_IDENT && tok_len(&ts, j) == strlen(p->tparams[q]) &&
                        !memcmp(t + ts.t[j].start, p->tparams[q], tok_len(&ts, j)))
                        dep = p->tparams[q];
            bool same = dep && k == eq + 2 && eq == start + 2 &&
                        (rwl_tok_is_ident(&ts, start, "typename") || rwl_tok_is_ident(&ts, start, "class")) &&
                        ts.t[start + 1].kind == T_IDENT;
            if (same && p->n_tparams < HK_ARRAY_LEN(p->tparams) && tok_len(&ts, start + 1) < sizeof p->tparams[0]) {
                size_t l = tok_len(&ts, start + 1);
                memcpy(p->tparams[p->n_tparams], t + ts.t[start + 1].start, l);
                p->tparams[p->n_tparams++][l] = '\0';
            } else if (dep) {
                refuse(p->out, EN(RW_PR_TPARAM_DEPENDS), idx + 1, f->name, (int)f->span.start_row + 1, dep);
            }
        }
        /* `typename NAME` / `class NAME` given float: NAME is double in the shadow */
        if (idx < n_targs && start + 1 < k &&
            (rwl_tok_is_ident(&ts, start, "typename") || rwl_tok_is_ident(&ts, start, "class")) &&
            ts.t[start + 1].kind == T_IDENT && out->template_args &&
            !strcmp(out->template_args[idx], "double") && strcmp(targs[idx] ? targs[idx] : "", "double")) {
            size_t l = tok_len(&ts, start + 1);
            if (p->n_tparams < HK_ARRAY_LEN(p->tparams) && l < sizeof p->tparams[0]) {
                memcpy(p->tparams[p->n_tparams], t + ts.t[start + 1].start, l);
                p->tparams[p->n_tparams++][l] = '\0';
            } else {
                refuse(p->out, EN(RW_PR_TPARAM_MANY), f->name, (int)f->span.start_row + 1);
            }
        }
        idx++;
        start = k + 1;
        if (end)
            break;
    }
out:
    rwl_toks_free(&ts);
    return rc;
}

/* Do functions a and b have the same signature (template header, parameters' declared
 * types)? Two such definitions cannot both be compiled in one file: they stand in exclusive
 * preprocessor branches (mmcv's `#ifdef MMCV_WITH_TRT ... #else` copies of its helpers). */
static bool same_signature(const an_function *a, const an_function *b)
{
    if (a->n_params != b->n_params || !a->template_params != !b->template_params ||
        (a->template_params && strcmp(a->template_params, b->template_params) != 0))
        return false;
    for (size_t i = 0; i < a->n_params; i++)
        if (!a->params[i].type || !b->params[i].type || strcmp(a->params[i].type, b->params[i].type) != 0)
            return false;
    return true;
}

/* Adds the file's function named by token k of a function's body (name[0, l)) to the
 * promoted set: none, one (added; or every definition, when all have one signature: only
 * one of them is compiled), or refused (a kernel, overloads). */
static void follow_name(promoter *p, size_t k, const char *s, size_t l, size_t *work, size_t *n_work, bool *found)
{
    const rw_toks *ts = &p->ts;
    size_t hits = 0, hit = 0;
    bool kernel = false, alike = true;
    for (size_t g = 0; g < p->m->n_funcs; g++) {
        const an_function *h = &p->m->funcs[g];
        if (h->kind == AN_LAUNCHER || strlen(h->name) != l || memcmp(h->name, s, l))
            continue;
        kernel |= h->kind == AN_KERNEL;
        alike &= !hits || same_signature(&p->m->funcs[hit], h);
        hits++;
        hit = g;
    }
    *found = hits > 0;
    if (kernel)
        refuse(p->out, EN(RW_PR_DEVICE_LAUNCH), (int)l, s, LINE(k));
    else if (hits > 1 && !alike)
        refuse(p->out, EN(RW_PR_OVERLOADED), (int)l, s, LINE(k));
    else
        for (size_t g = 0; hits && g < p->m->n_funcs; g++) {
            const an_function *h = &p->m->funcs[g];
            if (h->kind == AN_LAUNCHER || strlen(h->name) != l || memcmp(h->name, s, l) || p->promoted[g])
                continue;
            p->promoted[g] = true;
            work[(*n_work)++] = g;
        }
}

/* Token k names a macro of the file: the file's functions its replacement calls run in the
 * promoted code, so they are promoted too (`#define sqrt(v) my_sqrt(v)`: my_sqrt stays
 * float otherwise). Macros within the replacement are not followed further. */
static int follow_macro(promoter *p, size_t k, size_t *work, size_t *n_work)
{
    const rw_toks *ts = &p->ts;
    const decl_name *mac = names_find(&p->macros, p->text, p->text + ts->t[k].start, tok_len(ts, k));
    if (!mac || mac->text_end <= mac->name_end)
        return HK_OK;
    rw_toks mt = { 0 };
    int rc = rwl_lex(p->text, mac->name_end, mac->text_end, &mt);
    for (size_t j = 0; !rc && j < mt.n && !p->out->reason[0]; j++) {
        bool found;
        if (mt.t[j].kind == T_IDENT)
            follow_name(p, k, p->text + mt.t[j].start, tok_len(&mt, j), work, n_work, &found);
    }
    rwl_toks_free(&mt);
    return rc;
}

/* Adds the callees of function fi to the promoted set; refuses what cannot be followed. */
static int follow_calls(promoter *p, size_t fi, size_t *work, size_t *n_work)
{
    const an_function *f = &p->m->funcs[fi];
    const rw_toks *ts = &p->ts;
    size_t a = tok_at(ts, f->body_span.start_byte), b = tok_at(ts, f->body_span.end_byte);
    for (size_t k = a; k < b && !p->out->reason[0]; k++) {
        if (ts->t[k].kind != T_IDENT)
            continue;
        if (!(k > a && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->")))) {
            int rc = follow_macro(p, k, work, n_work);
            if (rc)
                return rc;
        }
        size_t next = k + 1;
        if (rwl_tok_is(ts, next, "<")) {  /* f<...>( : a template call */
            size_t c = rwl_match_close(ts, next);
            if (c < b && rwl_tok_is(ts, c + 1, "("))
                next = c + 1;
        }
        if (!rwl_tok_is(ts, next, "("))
            continue;
        if (k > a && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->")))
            continue; /* a member call: cooperative groups' sync(), shfl_down() */
        const char *s = p->text + ts->t[k].start;
        size_t l = tok_len(ts, k);
        bool found = false;
        follow_name(p, k, s, l, work, n_work, &found);
        if (found)
            continue;
        if (k > a && rwl_tok_is(ts, k - 1, "::")) {
            /* ns::f where no f is defined here: only cooperative groups are known */
            bool cg = k >= 2 && (rwl_tok_is_ident(ts, k - 2, "cg") || rwl_tok_is_ident(ts, k - 2, "cooperative_groups"));
            if (!cg)
                refuse(p->out, EN(RW_PR_QUALIFIED_CALL), (int)l, s, LINE(k));
            continue;
        }
        if (math_lookup(s, l) || double_math_lookup(s, l) || in_list(safe_calls, HK_ARRAY_LEN(safe_calls), s, l) ||
            in_list(int_types, HK_ARRAY_LEN(int_types), s, l) || refusal_lookup(s, l) ||
            is_type_param(f, s, l))
            continue;
        const decl_name *mac = names_find(&p->macros, p->text, s, l);
        const decl_name *fs = names_find(&p->file_names, p->text, s, l);
        if (mac || fs)
            continue; /* judged where the name is used (promote_function) */
        refuse(p->out, EN(RW_PR_UNDEFINED_CALL), (int)l, s, LINE(k));
    }
    return HK_OK;
}

static int add_edit(promoter *p, uint32_t s, uint32_t e, const char *repl)
{
    return rwl_edits_add(&p->edits, s, e, repl);
}

/* Casts the arguments of the call whose '(' is at open to double where args says 'f'
 * (args NULL: all), by editing the call's own parentheses and top-level commas, which no
 * other edit touches. */
static int cast_arguments(promoter *p, size_t open, size_t b, const char *args)
{
    const rw_toks *ts = &p->ts;
    size_t close = rwl_match_close(ts, open);
    if (close >= b || close == open + 1)
        return HK_OK;
    size_t arg = 0;
#define CAST(i) (!args || (args[i] == 'f'))
    int rc = add_edit(p, ts->t[open].start, ts->t[open].end, CAST(0) ? "((double)(" : "(");
    for (size_t j = open + 1; j < close && !rc; j++) {
        if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "[") || rwl_tok_is(ts, j, "{")) {
            j = rwl_match_close(ts, j);
            continue;
        }
        if (!rwl_tok_is(ts, j, ","))
            continue;
        if (args && !args[arg + 1])
            return HK_OK; /* more arguments than the function takes: nvcc will say so */
        /* the edit runs to the next token, so the cast sits against its argument */
        char sep[24];
        snprintf(sep, sizeof sep, "%s, %s", CAST(arg) ? ")" : "", CAST(arg + 1) ? "(double)(" : "");
        rc = add_edit(p, ts->t[j].start, ts->t[j + 1].start, sep);
        arg++;
    }
    if (!rc)
        rc = add_edit(p, ts->t[close].start, ts->t[close].end, CAST(arg) ? "))" : ")");
#undef CAST
    return rc;
}

/* Is token k a type that is double in the shadow besides float: a type parameter of the
 * kernel given float, or one of a device function's own (deduced from its arguments, which
 * may be promoted)? */
static bool promoted_type(const promoter *p, const an_function *f, bool is_kernel, size_t k)
{
    const rw_toks *ts = &p->ts;
    if (ts->t[k].kind != T_IDENT)
        return false;
    const char *s = p->text + ts->t[k].start;
    size_t l = tok_len(ts, k);
    for (size_t t = 0; t < p->n_tparams; t++)
        if (strlen(p->tparams[t]) == l && !memcmp(p->tparams[t], s, l))
            return true;
    return !is_kernel && is_type_param(f, s, l);
}

/* The names [a, b) declares with a type that is double in the shadow (`float [*]NAME`, `T
 * [*]NAME` of a promoted_type; parameters and locals) into names (token indexes, at most
 * cap), and whether each was declared a pointer. */
static size_t float_names(const promoter *p, const an_function *f, bool is_kernel, size_t a, size_t b,
                          size_t *names, bool *pointer, size_t cap)
{
    const rw_toks *ts = &p->ts;
    size_t n_names = 0;
    for (size_t k = a; k < b && n_names < cap; k++) {
        if (!rwl_tok_is_ident(ts, k, "float") && !promoted_type(p, f, is_kernel, k))
            continue;
        /* float [const|__restrict__|*|&]* NAME [, [*]* NAME]* */
        size_t j = k + 1;
        for (;;) {
            bool star = false;
            while (j < b && (rwl_tok_is(ts, j, "*") || rwl_tok_is(ts, j, "&") ||
                             rwl_tok_is_ident(ts, j, "const") || rwl_tok_is_ident(ts, j, "__restrict__") ||
                             rwl_tok_is_ident(ts, j, "volatile"))) {
                star |= rwl_tok_is(ts, j, "*");
                j++;
            }
            if (j >= b || ts->t[j].kind != T_IDENT || n_names >= cap)
                break;
            if (pointer)
                pointer[n_names] = star;
            names[n_names++] = j;
            /* skip an initializer or array size to the next declarator of the same statement */
            size_t e = j + 1;
            while (e < b && !rwl_tok_is(ts, e, ",") && !rwl_tok_is(ts, e, ";") && !rwl_tok_is(ts, e, ")")) {
                if (rwl_tok_is(ts, e, "(") || rwl_tok_is(ts, e, "[") || rwl_tok_is(ts, e, "{")) {
                    size_t c = rwl_match_close(ts, e);
                    e = c < b ? c : b;
                }
                e++;
            }
            if (e >= b || !rwl_tok_is(ts, e, ",") || rwl_tok_is_ident(ts, e + 1, "float") ||
                rwl_tok_is_ident(ts, e + 1, "const") || rwl_tok_is_ident(ts, e + 1, "int"))
                break;
            j = e + 1;
        }
    }
    return n_names;
}

/* Refuses what reads a float's bytes as another type once it is a double: a C-style cast
 * of a float pointer to a pointer of another type (`(int *)x`, `(const char *)&v`), and
 * unions. Float pointers are the names declared `float *NAME` (parameters, locals) in the
 * function, or `T *NAME` of a type double in the shadow (promoted_type); a value whose
 * address is taken (`&v` of a float local) counts too. */
static int check_casts(promoter *p, const an_function *f, bool is_kernel, size_t a, size_t b)
{
    const rw_toks *ts = &p->ts;
    size_t names[64];
    size_t n_names = float_names(p, f, is_kernel, a, b, names, NULL, HK_ARRAY_LEN(names));
    for (size_t k = a; k < b && !p->out->reason[0]; k++) {
        if (rwl_tok_is_ident(ts, k, "union")) {
            refuse(p->out, EN(RW_PR_UNION), rwl_line_at(p->text, ts->t[k].start), f->name);
            break;
        }
        /* ( TYPE... * ) operand, TYPE not float or double */
        if (!rwl_tok_is(ts, k, "("))
            continue;
        size_t c = rwl_match_close(ts, k);
        if (c >= b || c < k + 3 || !rwl_tok_is(ts, c - 1, "*"))
            continue;
        bool type = true, floating = false;
        for (size_t j = k + 1; j < c && type; j++) {
            type = ts->t[j].kind == T_IDENT || rwl_tok_is(ts, j, "*") || rwl_tok_is(ts, j, "::");
            floating |= rwl_tok_is_ident(ts, j, "float") || rwl_tok_is_ident(ts, j, "double") ||
                        promoted_type(p, f, is_kernel, j);
        }
        if (!type || floating)
            continue;
        /* the operand's first name */
        size_t o = c + 1;
        while (o < b && (rwl_tok_is(ts, o, "(") || rwl_tok_is(ts, o, "&")))
            o++;
        for (size_t i = 0; i < n_names && o < b; i++)
            if (tok_len(ts, names[i]) == tok_len(ts, o) &&
                !memcmp(p->text + ts->t[names[i]].start, p->text + ts->t[o].start, tok_len(ts, o))) {
                char *ty = rwl_tok_text(ts, k + 1, c);
                if (!ty)
                    return HK_ENOMEM;
                refuse(p->out, EN(RW_PR_CAST), (int)tok_len(ts, o), p->text + ts->t[o].start, ty,
                       rwl_line_at(p->text, ts->t[k].start), f->name);
                hk_free(ty);
                break;
            }
    }
    return HK_OK;
}

/* Token k, a type that is double in the shadow (promoted_type), inside a template
 * argument list [a, b): the name the list belongs to must be one whose code the shadow
 * holds (the file's functions and declarations: SharedMemory<T>, warpReduceSum<T>), a cast
 * or cooperative groups'; anything else (std::is_same<T, double>, a trait of a header) may
 * select other code at double than the baseline's float. */
static int check_type_targ(promoter *p, size_t a, size_t b, size_t k)
{
    const rw_toks *ts = &p->ts;
    size_t j = k;
    while (j > a && (ts->t[j - 1].kind == T_IDENT || rwl_tok_is(ts, j - 1, "::") || rwl_tok_is(ts, j - 1, ",") ||
                     rwl_tok_is(ts, j - 1, "*") || rwl_tok_is(ts, j - 1, "&") || ts->t[j - 1].kind == T_NUMBER))
        j--;
    if (!(j >= a + 2 && rwl_tok_is(ts, j - 1, "<") && ts->t[j - 2].kind == T_IDENT && rwl_match_close(ts, j - 1) < b))
        return HK_OK;
    size_t n = j - 2;
    const char *s = p->text + ts->t[n].start;
    size_t l = tok_len(ts, n);
    if (rwl_tok_is_ident(ts, n, "static_cast") || rwl_tok_is_ident(ts, n, "const_cast") ||
        names_find(&p->file_names, p->text, s, l) || names_find(&p->macros, p->text, s, l))
        return HK_OK;
    if (n >= 2 && rwl_tok_is(ts, n - 1, "::") &&
        (rwl_tok_is_ident(ts, n - 2, "cg") || rwl_tok_is_ident(ts, n - 2, "cooperative_groups")))
        return HK_OK;
    for (size_t g = 0; g < p->m->n_funcs; g++)
        if (strlen(p->m->funcs[g].name) == l && !memcmp(p->m->funcs[g].name, s, l))
            return HK_OK;
    refuse(p->out, EN(RW_PR_TPARAM_TARG), (int)tok_len(ts, k), p->text + ts->t[k].start, (int)l, s, LINE(k));
    return HK_OK;
}

/* A dynamic shared array of another type (char, int) carved into parts of a type that
 * becomes double (`(T *)smem`, `(float *)smem`) and offset by a count written without
 * sizeof (`(int *)(smem + 4 * blockDim.x)`): the offset stays where a float part ended, so
 * the doubled part would run into the next one. Refused; offsets with sizeof (sizeof(T) or
 * sizeof(float) double with the part) and offsets after the cast (in elements) are kept. */
static void check_shared_offsets(promoter *p, const an_function *f, bool is_kernel, size_t a, size_t b)
{
    const rw_toks *ts = &p->ts;
    for (size_t i = 0; i < f->n_shared && !p->out->reason[0]; i++) {
        const an_shared *sh = &f->shared[i];
        if (!sh->is_extern || !sh->name || !sh->type || strstr(sh->type, "float"))
            continue;
        size_t nl = strlen(sh->name);
        bool carved = false;
        size_t raw = 0;
        for (size_t k = a; k < b; k++) {
            if (ts->t[k].kind != T_IDENT || tok_len(ts, k) != nl || memcmp(p->text + ts->t[k].start, sh->name, nl))
                continue;
            size_t q = k;
            while (q > a && rwl_tok_is(ts, q - 1, "("))
                q--;
            bool cast_before = false;
            if (q > a && rwl_tok_is(ts, q - 1, ")") && q >= a + 2 && rwl_tok_is(ts, q - 2, "*")) {
                cast_before = q == k; /* (T *)smem + n: in elements of the cast */
                for (size_t j = q - 2; j > a && !rwl_tok_is(ts, j, "("); j--)
                    carved |= rwl_tok_is_ident(ts, j, "float") || promoted_type(p, f, is_kernel, j);
            }
            /* smem + EXPR or &smem[EXPR]: EXPR up to the end of its operand */
            bool plus = rwl_tok_is(ts, k + 1, "+") && !cast_before;
            bool index = rwl_tok_is(ts, k + 1, "[") && k > a && rwl_tok_is(ts, k - 1, "&");
            if (!(plus || index) || raw)
                continue;
            bool has_sizeof = false;
            int depth = 0;
            for (size_t j = k + 2; j < b; j++) {
                if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "["))
                    depth++;
                else if (rwl_tok_is(ts, j, ")") || rwl_tok_is(ts, j, "]"))
                    depth--;
                if (depth < 0 || (depth == 0 && (rwl_tok_is(ts, j, ";") || rwl_tok_is(ts, j, ","))))
                    break;
                has_sizeof |= rwl_tok_is_ident(ts, j, "sizeof");
            }
            if (!has_sizeof)
                raw = k;
        }
        if (carved && raw)
            refuse(p->out, EN(RW_PR_SHARED_OFFSET), sh->name, f->name, LINE(raw));
    }
}

/* Is token k inside the byte offset of a dynamic shared array declared in [a, b) (`smem +
 * EXPR`, `&smem[EXPR]`, EXPR to the end of its operand), the form check_shared_offsets
 * keeps? The arrays are found in the tokens (`extern __shared__ ... NAME[]`): the model's
 * list misses one declared with `__align__(...)`. */
static bool in_shared_offset(const promoter *p, size_t a, size_t b, size_t k)
{
    const rw_toks *ts = &p->ts;
    for (size_t d = a; d + 1 < b; d++) {
        if (!rwl_tok_is_ident(ts, d, "extern") || !rwl_tok_is_ident(ts, d + 1, "__shared__"))
            continue;
        size_t br = d + 2;
        while (br < b && !rwl_tok_is(ts, br, "[") && !rwl_tok_is(ts, br, ";")) {
            if (rwl_tok_is(ts, br, "(")) /* __align__(...) */
                br = rwl_match_close(ts, br);
            br++;
        }
        if (br >= b || !rwl_tok_is(ts, br, "[") || ts->t[br - 1].kind != T_IDENT)
            continue;
        const char *name = p->text + ts->t[br - 1].start;
        size_t nl = tok_len(ts, br - 1);
        for (size_t q = br; q < k; q++) {
            if (ts->t[q].kind != T_IDENT || tok_len(ts, q) != nl || memcmp(p->text + ts->t[q].start, name, nl))
                continue;
            if (!rwl_tok_is(ts, q + 1, "+") && !(rwl_tok_is(ts, q + 1, "[") && q > a && rwl_tok_is(ts, q - 1, "&")))
                continue;
            int depth = 0;
            for (size_t j = q + 2; j < b; j++) {
                if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "["))
                    depth++;
                else if (rwl_tok_is(ts, j, ")") || rwl_tok_is(ts, j, "]"))
                    depth--;
                if (depth < 0 || (depth == 0 && (rwl_tok_is(ts, j, ";") || rwl_tok_is(ts, j, ","))))
                    break;
                if (j == k)
                    return true;
            }
        }
    }
    return false;
}

/* Is the identifier at token j declared in [a, b) with a type the compiler deduces or an
 * alias names (`auto NAME`, `decltype(...) NAME`, `using NAME = ...`), or a template-id
 * with a promoted argument (`S<T> NAME`)? Its type may be one that is double in the shadow,
 * or hold one (auto v = x[i] of a float x; a struct S with a T member), which float_names
 * does not see. */
static bool deduced_name(const promoter *p, const an_function *f, bool is_kernel, size_t a, size_t b, size_t j)
{
    const rw_toks *ts = &p->ts;
    size_t l = tok_len(ts, j);
    for (size_t d = a; d < b; d++) {
        size_t n;
        if (rwl_tok_is(ts, d, "<") && d > a && ts->t[d - 1].kind == T_IDENT) {
            /* a template-id type with a promoted argument: `S<T> s`, `S<float> s` (a
             * struct holding a T is larger in the shadow) */
            int depth = 0;
            bool promoted = false;
            for (n = d; n < b; n++) {
                if (rwl_tok_is(ts, n, "<"))
                    depth++;
                else if (rwl_tok_is(ts, n, ">") && --depth == 0)
                    break;
                else if (rwl_tok_is(ts, n, ">>") && (depth -= 2) <= 0)
                    break;
                else if (rwl_tok_is(ts, n, ";") || rwl_tok_is(ts, n, "{") || rwl_tok_is(ts, n, "(") ||
                         rwl_tok_is(ts, n, ")") || rwl_tok_is(ts, n, "?") || rwl_tok_is(ts, n, "="))
                    break; /* a comparison, not a template-id */
                promoted = promoted || rwl_tok_is_ident(ts, n, "float") || promoted_type(p, f, is_kernel, n);
            }
            if (n >= b || !promoted || !(rwl_tok_is(ts, n, ">") || rwl_tok_is(ts, n, ">>")))
                continue;
            n++;
        } else if (rwl_tok_is_ident(ts, d, "auto"))
            n = d + 1;
        else if (rwl_tok_is_ident(ts, d, "decltype") && d + 1 < b && rwl_tok_is(ts, d + 1, "("))
            n = rwl_match_close(ts, d + 1) + 1;
        else if (rwl_tok_is_ident(ts, d, "using") && d + 2 < b && rwl_tok_is(ts, d + 2, "="))
            n = d + 1;
        else
            continue;
        while (n < b && (rwl_tok_is(ts, n, "*") || rwl_tok_is(ts, n, "&") || rwl_tok_is(ts, n, "&&") ||
                         rwl_tok_is_ident(ts, n, "const") || rwl_tok_is_ident(ts, n, "volatile") ||
                         rwl_tok_is_ident(ts, n, "__restrict__")))
            n++;
        if (n < b && n != j && ts->t[n].kind == T_IDENT && tok_len(ts, n) == l &&
            !memcmp(p->text + ts->t[n].start, p->text + ts->t[j].start, l))
            return true;
    }
    return false;
}

/* Is token k a float literal (1.0f, 2.f, 1e-3F), a double in the shadow? */
static bool float_literal(const rw_toks *ts, size_t k)
{
    size_t l = ts->t[k].end - ts->t[k].start;
    const char *s = ts->text + ts->t[k].start;
    return ts->t[k].kind == T_NUMBER && l > 1 && (s[l - 1] == 'f' || s[l - 1] == 'F') &&
           !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'));
}

/* Refuses a use in [a, b) of a macro whose replacement reads a size or an alignment
 * (`#define VW (16 / sizeof(T))`): the lexer skips preprocessor lines, so check_size_reads
 * never sees the read, and T (or a float name) in it is double where the macro is expanded
 * in the shadow. */
static int check_size_macros(promoter *p, const an_function *f, size_t a, size_t b)
{
    const rw_toks *ts = &p->ts;
    for (size_t m = 0; m < p->macros.n && !p->out->reason[0]; m++) {
        const decl_name *d = &p->macros.v[m];
        if (d->text_end <= d->name_end)
            continue;
        size_t nl = d->name_end - d->name_start;
        bool used = false;
        for (size_t k = a; k < b && !used; k++)
            used = ts->t[k].kind == T_IDENT && tok_len(ts, k) == nl &&
                   !memcmp(p->text + ts->t[k].start, p->text + d->name_start, nl);
        if (!used)
            continue;
        rw_toks mt = {0};
        int rc = rwl_lex(p->text, d->name_end, d->text_end, &mt);
        bool reads = false;
        for (size_t q = 0; !rc && q < mt.n && !reads; q++)
            reads = rwl_tok_is_ident(&mt, q, "sizeof") || rwl_tok_is_ident(&mt, q, "alignof") ||
                    rwl_tok_is_ident(&mt, q, "__alignof__") || rwl_tok_is_ident(&mt, q, "_Alignof");
        rwl_toks_free(&mt);
        if (rc)
            return rc;
        for (size_t k = a; k < b && reads; k++)
            if (ts->t[k].kind == T_IDENT && tok_len(ts, k) == nl &&
                !memcmp(p->text + ts->t[k].start, p->text + d->name_start, nl)) {
                refuse(p->out, EN(RW_PR_SIZE_MACRO), (int)nl, p->text + d->name_start,
                       rwl_line_at(p->text, d->name_start), LINE(k), f->name);
                break;
            }
    }
    return HK_OK;
}

/* Is the `sizeof` at token k one side of an element count, `sizeof(NAME) / sizeof(NAME[N])`
 * or `sizeof(NAME) / sizeof(*NAME)`, of an array NAME the body declares with a float (or
 * promoted) element: bytes and element both double in the shadow, so the count does not
 * change. Every declaration of NAME among the float names (names[0, n_names)) must be such
 * an array (a parameter `float v[8]` or a pointer is a pointer: 8 / 4 in the kernel, 8 / 8
 * in the shadow), and the ratio must stand alone (`n / sizeof(buf) / sizeof(buf[0])` and
 * `-sizeof(buf) / ...` divide other numbers): after `(`, `[`, `{`, `=`, `,`, `;`, `?`, `:`,
 * a comparison, `&&`, `||` or `return`. Anything else that reads NAME's size
 * (`sizeof(buf) / sizeof(float)`, `sizeof(buf) / 4`) stays refused. */
static bool element_count(const promoter *p, const an_function *f, bool is_kernel, size_t a, size_t b,
                          size_t k, const size_t *names, size_t n_names)
{
    const rw_toks *ts = &p->ts;
    if (!rwl_tok_is_ident(ts, k, "sizeof"))
        return false;
    /* the numerator's sizeof: k itself, or five tokens before the denominator's */
    size_t n = k;
    if (!(n + 4 < b && rwl_tok_is(ts, n + 1, "(") && rwl_tok_is(ts, n + 3, ")") && rwl_tok_is(ts, n + 4, "/"))) {
        if (k < a + 5)
            return false;
        n = k - 5;
    }
    if (!(n > a && n + 7 < b && rwl_tok_is_ident(ts, n, "sizeof") && rwl_tok_is(ts, n + 1, "(") &&
          ts->t[n + 2].kind == T_IDENT && rwl_tok_is(ts, n + 3, ")") && rwl_tok_is(ts, n + 4, "/") &&
          rwl_tok_is_ident(ts, n + 5, "sizeof") && rwl_tok_is(ts, n + 6, "(")))
        return false;
    if (k != n && k != n + 5)
        return false;
    size_t name = n + 2, l = tok_len(ts, name);
    const char *s = p->text + ts->t[name].start;
#define SAME(j) (ts->t[(j)].kind == T_IDENT && tok_len(ts, (j)) == l && !memcmp(p->text + ts->t[(j)].start, s, l))
    size_t o = n + 7; /* the denominator's operand: NAME [ N ] ) or * NAME ) */
    bool element = (o + 4 < b && SAME(o) && rwl_tok_is(ts, o + 1, "[") && ts->t[o + 2].kind == T_NUMBER &&
                    !float_literal(ts, o + 2) && rwl_tok_is(ts, o + 3, "]") && rwl_tok_is(ts, o + 4, ")")) ||
                   (o + 2 < b && rwl_tok_is(ts, o, "*") && SAME(o + 1) && rwl_tok_is(ts, o + 2, ")"));
    if (!element)
        return false;
    /* the ratio stands alone */
    static const char *const before[] = {"(", "[", "{", "=", ",", ";", "?", ":", "<", ">", "<=", ">=",
                                         "==", "!=", "&&", "||"};
    bool alone = rwl_tok_is_ident(ts, n - 1, "return");
    for (size_t i = 0; i < HK_ARRAY_LEN(before) && !alone; i++)
        alone = rwl_tok_is(ts, n - 1, before[i]);
    if (!alone || deduced_name(p, f, is_kernel, a, b, name))
        return false;
    /* every float declaration of NAME: an array of the body */
    size_t body = tok_at(ts, f->body_span.start_byte), arrays = 0;
    for (size_t i = 0; i < n_names; i++) {
        if (!SAME(names[i]))
            continue;
        if (names[i] <= body || !(names[i] + 1 < b && rwl_tok_is(ts, names[i] + 1, "[")))
            return false;
        /* a statement's declaration, not a parameter's (a lambda's `float v[8]` is a pointer) */
        int depth = 0;
        for (size_t j = names[i]; j-- > body;) {
            if (rwl_tok_is(ts, j, ")") || rwl_tok_is(ts, j, "]") || rwl_tok_is(ts, j, "}"))
                depth++;
            else if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "[") || rwl_tok_is(ts, j, "{")) {
                if (depth == 0 && !rwl_tok_is(ts, j, "{"))
                    return false;
                if (depth-- == 0)
                    break;
            } else if (depth == 0 && rwl_tok_is(ts, j, ";"))
                break;
        }
        arrays++;
    }
#undef SAME
    return arrays > 0;
}

/* Refuses a read of the size or alignment of a type that is double in the shadow: `float`,
 * a type parameter given float, or a name declared with one (`sizeof(T)`, `alignof(T)`,
 * `sizeof(v)`, `sizeof(*x)`, `sizeof(T[4])`). It is 4 in the kernel and 8 in the shadow, so
 * code it chooses (`if (sizeof(T) == 4)`, a vector width `16 / sizeof(T)`) can differ and
 * the shadow compute another function than the kernel, against which the baseline's error
 * means nothing. Kept: a pointer's size (`sizeof(T *)`, `sizeof(x)` of a pointer `x`), an
 * alignment given to storage (`__align__(sizeof(T))`, `alignas(T)`), and the byte offset
 * into a dynamic shared array (in_shared_offset: the size doubles with the part, and
 * shmem_factor gives the room). std::numeric_limits<T> is check_type_targ's. */
static int check_size_reads(promoter *p, const an_function *f, bool is_kernel, size_t a, size_t b)
{
    const rw_toks *ts = &p->ts;
    size_t names[64];
    bool pointer[64];
    size_t n_names = float_names(p, f, is_kernel, a, b, names, pointer, HK_ARRAY_LEN(names));
    for (size_t k = a; k < b && !p->out->reason[0]; k++) {
        if (!(rwl_tok_is_ident(ts, k, "sizeof") || rwl_tok_is_ident(ts, k, "alignof") ||
              rwl_tok_is_ident(ts, k, "__alignof__") || rwl_tok_is_ident(ts, k, "_Alignof")))
            continue;
        /* the operand: (...) or a unary expression up to an operator */
        size_t o = k + 1, e;
        if (rwl_tok_is(ts, o, "(")) {
            e = rwl_match_close(ts, o);
            if (e >= b)
                continue;
            o++;
        } else {
            e = o;
            while (e < b && (ts->t[e].kind == T_IDENT || rwl_tok_is(ts, e, "*") || rwl_tok_is(ts, e, ".") ||
                             rwl_tok_is(ts, e, "->") || rwl_tok_is(ts, e, "[")))
                e = rwl_tok_is(ts, e, "[") ? rwl_match_close(ts, e) + 1 : e + 1;
        }
        const char *what = NULL;
        size_t at = o;
        for (size_t j = o; j < e && !what; j++) {
            if (rwl_tok_is_ident(ts, j, "float") || promoted_type(p, f, is_kernel, j)) {
                /* a type: T, const T, T[4] read its size; T *, T ** a pointer's */
                size_t q = j + 1;
                while (q < e && (rwl_tok_is_ident(ts, q, "const") || rwl_tok_is_ident(ts, q, "volatile")))
                    q++;
                if (!(q < e && rwl_tok_is(ts, q, "*")))
                    what = "type";
                at = j;
                continue;
            }
            if (float_literal(ts, j)) {
                what = "literal";
                at = j;
                continue;
            }
            if (ts->t[j].kind == T_IDENT && !(j > o && (rwl_tok_is(ts, j - 1, ".") || rwl_tok_is(ts, j - 1, "->"))) &&
                deduced_name(p, f, is_kernel, a, b, j)) {
                what = "deduced";
                at = j;
                continue;
            }
            for (size_t i = 0; i < n_names && !what; i++) {
                if (names[i] == j || ts->t[j].kind != T_IDENT || tok_len(ts, names[i]) != tok_len(ts, j) ||
                    memcmp(p->text + ts->t[names[i]].start, p->text + ts->t[j].start, tok_len(ts, j)))
                    continue;
                if (j > o && (rwl_tok_is(ts, j - 1, ".") || rwl_tok_is(ts, j - 1, "->")))
                    continue; /* a member of that name */
                /* a value, an element or a pointee of a float pointer; not the pointer */
                if (!pointer[i] || e - o > 1)
                    what = "name";
                at = j;
            }
        }
        if (!what)
            continue;
        /* an alignment given to storage: __align__(sizeof(T)), alignas(sizeof(T)) */
        bool storage = false;
        for (size_t j = k; j > a && !storage; j--)
            if (rwl_tok_is(ts, j - 1, "(") && rwl_match_close(ts, j - 1) > k)
                storage = j >= a + 2 && (rwl_tok_is_ident(ts, j - 2, "__align__") || rwl_tok_is_ident(ts, j - 2, "alignas"));
        if (storage || in_shared_offset(p, a, b, k) ||
            (n_names < HK_ARRAY_LEN(names) && element_count(p, f, is_kernel, a, b, k, names, n_names)))
            continue;
        char *read = rwl_tok_text(ts, k, rwl_tok_is(ts, k + 1, "(") ? e + 1 : e);
        if (!read)
            return HK_ENOMEM;
        refuse(p->out, EN(RW_PR_SIZE_READ), read, (int)tok_len(ts, at), p->text + ts->t[at].start,
               LINE(k), f->name);
        hk_free(read);
    }
    return HK_OK;
}

/* Does a float value (DN_FLOAT_VALUE: a float-literal macro, a __constant__ float) used at
 * token k (after a, the function's first token) give a declaration its type:
 * `auto NAME = EPS`, `auto NAME{EPS}`, `auto NAME(EPS)`, `auto w0 = w[0]` or
 * `decltype(EPS)`? That name would stay float in the shadow (an accumulator started from
 * it would sum in float), so the value is refused there. */
static bool literal_gives_type(const rw_toks *ts, size_t a, size_t k)
{
    if (k >= a + 2 && rwl_tok_is(ts, k - 1, "(") && rwl_tok_is_ident(ts, k - 2, "decltype"))
        return true;
    if (k < a + 3 || !(rwl_tok_is(ts, k - 1, "=") || rwl_tok_is(ts, k - 1, "{") || rwl_tok_is(ts, k - 1, "(")) ||
        ts->t[k - 2].kind != T_IDENT)
        return false;
    size_t d = k - 3; /* auto NAME, auto &NAME, auto &&NAME, auto *NAME */
    while (d > a && (rwl_tok_is(ts, d, "&") || rwl_tok_is(ts, d, "&&") || rwl_tok_is(ts, d, "*")))
        d--;
    return rwl_tok_is_ident(ts, d, "auto");
}

/* The dimensions a file-scope array declares after its name (`w[3]` 1, `w[2][3]` 2): the
 * bracket groups that follow name_end in text[0, len). */
static size_t array_rank(const char *text, size_t len, uint32_t name_end)
{
    size_t rank = 0, i = name_end;
    for (;;) {
        while (i < len && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if (i >= len || text[i] != '[')
            return rank;
        int depth = 0;
        do {
            depth += text[i] == '[';
            depth -= text[i] == ']';
            i++;
        } while (i < len && depth > 0);
        if (depth)
            return rank;
        rank++;
    }
}

/* Is the float value d used at token k (after a) exactly the initializer of a plain `auto`
 * declaration: `auto NAME = EPS;`, `auto NAME{EPS};`, `const auto w0 = w[0];` (every
 * dimension of an array subscripted)? Read as a double there
 * (`auto e = ((double)EPS);`) the name is deduced double, as a float local declared with
 * it would be in the shadow. Not a reference or pointer (`auto &r = w[0]` binds the float
 * itself), not decltype, and nothing else in the initializer (`auto e = EPS * n` stays
 * refused: the rule is kept to the one form it was shown for). */
static bool exact_auto_value(const promoter *p, size_t a, size_t b, size_t k, const decl_name *d)
{
    const rw_toks *ts = &p->ts;
    if (k < a + 3 || ts->t[k - 2].kind != T_IDENT || !rwl_tok_is_ident(ts, k - 3, "auto"))
        return false;
    const char *close = rwl_tok_is(ts, k - 1, "=") ? NULL : rwl_tok_is(ts, k - 1, "{") ? "}" : "";
    if (close && !*close)
        return false; /* `auto NAME(EPS)` reads as a call of NAME: refused as one */
    size_t last = k, subscripts = 0;
    while (d->array && last + 1 < b && rwl_tok_is(ts, last + 1, "[")) {
        size_t c = rwl_match_close(ts, last + 1);
        if (c >= b)
            return false;
        last = c;
        subscripts++;
    }
    if (d->array && (subscripts == 0 || subscripts != array_rank(p->text, p->len, d->name_end)))
        return false;
    size_t e = last + 1;
    if (close) {
        if (!(e < b && rwl_tok_is(ts, e, close)))
            return false;
        e++;
    }
    return e < b && rwl_tok_is(ts, e, ";");
}

/* Is token k (after a, the function's first token) in an operand that is not evaluated
 * (`sizeof(w)`, `sizeof EPS`, `alignof(...)`)? Its size is the same in the kernel and the
 * shadow when the name is left as it is. */
static bool unevaluated(const rw_toks *ts, size_t a, size_t k)
{
    if (k > a && (rwl_tok_is_ident(ts, k - 1, "sizeof") || rwl_tok_is_ident(ts, k - 1, "alignof")))
        return true;
    int depth = 0;
    for (size_t j = k; j-- > a;) {
        if (rwl_tok_is(ts, j, ")") || rwl_tok_is(ts, j, "]"))
            depth++;
        else if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "[")) {
            if (depth > 0) {
                depth--;
                continue;
            }
            if (j > a && rwl_tok_is(ts, j, "(") &&
                (rwl_tok_is_ident(ts, j - 1, "sizeof") || rwl_tok_is_ident(ts, j - 1, "alignof") ||
                 rwl_tok_is_ident(ts, j - 1, "__alignof__")))
                return true;
        } else if (depth == 0 && (rwl_tok_is(ts, j, ";") || rwl_tok_is(ts, j, "{") || rwl_tok_is(ts, j, "}")))
            return false;
    }
    return false;
}

/* Integer type words: a conversion to one of them (`(int)(T_END / DT)`, `int steps = ...`). */
static const char *const integer_words[] = {
    "int", "unsigned", "signed", "long", "short", "char", "bool", "size_t", "ptrdiff_t",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
};

/* Do the tokens right before position q (the start of a value or of a parenthesized group)
 * convert it to an integer type: `(int)`, `(unsigned int)`, `int(`, `static_cast<int>(`? */
static bool integer_cast_before(const rw_toks *ts, size_t a, size_t q)
{
    if (q > a && tok_in(ts, q - 1, integer_words, HK_ARRAY_LEN(integer_words)) && rwl_tok_is(ts, q, "("))
        return true;
    if (q >= a + 4 && rwl_tok_is(ts, q - 1, ">") && tok_in(ts, q - 2, integer_words, HK_ARRAY_LEN(integer_words)) &&
        rwl_tok_is(ts, q - 3, "<") && rwl_tok_is_ident(ts, q - 4, "static_cast"))
        return true;
    if (q >= a + 3 && rwl_tok_is(ts, q - 1, ")")) {
        size_t j = q - 2;
        while (j > a && tok_in(ts, j, integer_words, HK_ARRAY_LEN(integer_words)))
            j--;
        return j + 1 < q - 1 && rwl_tok_is(ts, j, "(");
    }
    return false;
}

/* Is the value at token first (after a) converted to an integer: inside a cast to an
 * integer type (`(int)(T_END / DT)`), or the initializer of an integer declaration
 * (`int steps = T_END / DT;`)? There the kernel's float arithmetic on its constants is kept
 * as it is: done in double, 1.0f / 0.1f is 9.99999985 and the count 9 where the kernel's
 * is 10. */
static bool to_integer(const rw_toks *ts, size_t a, size_t first)
{
    if (integer_cast_before(ts, a, first))
        return true;
    int depth = 0;
    size_t j = first;
    while (j-- > a) {
        if (rwl_tok_is(ts, j, ")") || rwl_tok_is(ts, j, "]")) {
            depth++;
        } else if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "[")) {
            if (depth > 0)
                depth--;
            else if (rwl_tok_is(ts, j, "(") && integer_cast_before(ts, a, j))
                return true;
        } else if (depth == 0 && (rwl_tok_is(ts, j, ";") || rwl_tok_is(ts, j, "{") || rwl_tok_is(ts, j, "}"))) {
            break;
        }
    }
    /* `[const] INT... NAME = ...` from the statement's start */
    size_t q = j + 1;
    while (q < first && (rwl_tok_is_ident(ts, q, "const") || rwl_tok_is_ident(ts, q, "static")))
        q++;
    size_t t = q;
    while (t < first && tok_in(ts, t, integer_words, HK_ARRAY_LEN(integer_words)))
        t++;
    return t > q && t + 1 < first && ts->t[t].kind == T_IDENT && rwl_tok_is(ts, t + 1, "=");
}

/* A float value the device only reads (DN_FLOAT_VALUE) used at token k: the shadow reads
 * the kernel's own float value as a double, `((double)EPS)`, `((double)w[i])`, so that
 * every operation on it is in double as the kernel's other float arithmetic is (`i * DX`,
 * `w[0] * w[1]`, `2 * ZERO` as an accumulator's start, a template deduced from it would
 * otherwise stay float). A file-scope array used other than by a subscript (`(float *)w`,
 * `const float *p = w`), or its element's or a scalar's address taken (`&w[0]`), is a float
 * pointer: refused (a cast of it to the promoted `double *` would read its bytes as
 * doubles). In an unevaluated operand (sizeof) the name is kept. */
static int read_as_double(promoter *p, const an_function *f, size_t a, size_t b, size_t k, const decl_name *d,
                          bool file_scope)
{
    const rw_toks *ts = &p->ts;
    if (unevaluated(ts, a, k))
        return HK_OK;
    size_t last = k; /* the value's last token */
    if (d->array) {
        while (last + 1 < b && rwl_tok_is(ts, last + 1, "[")) {
            size_t c = rwl_match_close(ts, last + 1);
            if (c >= b)
                break;
            last = c;
        }
    }
    /* a file-scope name the function declares again (a local, a parameter, a template
     * parameter: `int c = n; y[0] = c / 2`) is the function's own there: wrapped, its
     * integer arithmetic would become double */
    bool own = false;
    if (file_scope) /* a macro is not declared again */
        for (size_t j = tok_at(ts, f->span.start_byte); j < b && !own; j++)
            own = ts->t[j].kind == T_IDENT && tok_len(ts, j) == tok_len(ts, k) &&
                  !memcmp(p->text + ts->t[j].start, p->text + ts->t[k].start, tok_len(ts, k)) &&
                  rwl_declared_here(ts, j);
    /* a macro defined again as something else (`#undef N`, `#define N 16`): which definition
     * the use sees is not known here, and read as a double an integer's division would change */
    if (!file_scope)
        for (size_t i = 0; i < p->macros.n; i++) {
            const decl_name *o = &p->macros.v[i];
            if (o->why != DN_FLOAT_VALUE && o->name_end - o->name_start == tok_len(ts, k) &&
                !memcmp(p->text + o->name_start, p->text + ts->t[k].start, tok_len(ts, k))) {
                refuse(p->out, EN(RW_PR_MACRO_AGAIN), (int)tok_len(ts, k), p->text + ts->t[k].start,
                       rwl_line_at(p->text, d->name_start), f->name, rwl_line_at(p->text, ts->t[k].start), d->what,
                       rwl_line_at(p->text, o->name_start));
                return HK_OK;
            }
        }
    size_t first = k; /* a qualified name from its first part: `cf::w[i]`, `::cf::w[i]` */
    while (first >= a + 2 && rwl_tok_is(ts, first - 1, "::") && ts->t[first - 2].kind == T_IDENT)
        first -= 2;
    if (first > a && rwl_tok_is(ts, first - 1, "::"))
        first--;
    bool address = first >= a + 2 && rwl_tok_is(ts, first - 1, "&") &&
                   !(ts->t[first - 2].kind == T_IDENT || ts->t[first - 2].kind == T_NUMBER ||
                     rwl_tok_is(ts, first - 2, ")") || rwl_tok_is(ts, first - 2, "]"));
    /* a range-for over the array with a declared element type (`for (float v : w)`, its
     * float made double): each element is converted to double as it is read; with `auto`
     * the element would stay float */
    if (d->array && last == k && !address && !own && k >= a + 2 && rwl_tok_is(ts, k - 1, ":") &&
        rwl_tok_is(ts, k + 1, ")")) {
        bool deduced = false;
        size_t j = k - 1;
        while (j > a && !rwl_tok_is(ts, j, "(") && !rwl_tok_is(ts, j, ";") && !rwl_tok_is(ts, j, "{")) {
            j--;
            deduced |= rwl_tok_is_ident(ts, j, "auto") || rwl_tok_is_ident(ts, j, "decltype");
        }
        if (!deduced && rwl_tok_is(ts, j, "(") && j > a && rwl_tok_is_ident(ts, j - 1, "for"))
            return HK_OK;
    }
    if ((d->array && last == k) || address || own) {
        refuse(p->out, EN(RW_PR_FILE_DECL), (int)tok_len(ts, k), p->text + ts->t[k].start,
               rwl_line_at(p->text, d->name_start), f->name, rwl_line_at(p->text, ts->t[k].start));
        return HK_OK;
    }
    if (to_integer(ts, a, first))
        return HK_OK;
    int rc = add_edit(p, ts->t[first].start, ts->t[first].start, "((double)");
    if (!rc)
        rc = add_edit(p, ts->t[last].end, ts->t[last].end, ")");
    return rc;
}

/* A macro without float code of its own (DN_HARMLESS) whose replacement names, directly or
 * through such macros (at most depth 8), a macro or file-scope name that is not harmless:
 * that name, else NULL. `#define EPS2 (EPS * EPS)` of a literal EPS, `#define W(i) w[i]`
 * of `__constant__ float w[]`: the use reads float values that no edit of the kernel's text
 * reaches (read_as_double edits the kernel's tokens, not a macro's). *rc: HK_ENOMEM. */
static const decl_name *macro_reaches(const promoter *p, const decl_name *mac, int depth, int *rc)
{
    if (depth > 8 || mac->text_end <= mac->name_end)
        return NULL;
    rw_toks mt = { 0 };
    const decl_name *found = NULL;
    if ((*rc = rwl_lex(p->text, mac->name_end, mac->text_end, &mt)))
        return NULL;
    for (size_t j = 0; j < mt.n && !found && !*rc; j++) {
        if (mt.t[j].kind != T_IDENT)
            continue;
        const char *s = p->text + mt.t[j].start;
        size_t l = tok_len(&mt, j);
        if (l == mac->name_end - mac->name_start && !memcmp(s, p->text + mac->name_start, l))
            continue; /* the macro's own name: not expanded again */
        const decl_name *d = names_find(&p->macros, p->text, s, l);
        if (d && d->why != DN_HARMLESS)
            found = d;
        else if (d)
            found = macro_reaches(p, d, depth + 1, rc);
        else if ((d = names_find(&p->file_names, p->text, s, l)) && d->why != DN_HARMLESS &&
                 d->why != DN_FUNC_FLOAT) /* a function's float code is followed as a call */
            found = d;
    }
    rwl_toks_free(&mt);
    return found;
}

/* Promotes one function: edits for float, literals, math and constants; refusals. */
static int promote_function(promoter *p, size_t fi, bool is_kernel)
{
    const an_function *f = &p->m->funcs[fi];
    const rw_toks *ts = &p->ts;
    promote_result *out = p->out;
    size_t a = tok_at(ts, f->span.start_byte), b = tok_at(ts, f->span.end_byte);
    int rc = HK_OK;
    if (rwl_tok_is_ident(ts, a, "template") && rwl_tok_is(ts, a + 1, "<")) {
        size_t c = rwl_match_close(ts, a + 1);
        if (!is_kernel)
            for (size_t k = a; k < c && k < b; k++)
                if (rwl_tok_is_ident(ts, k, "float"))
                    refuse(out, EN(RW_PR_DEVICE_TPARAM), f->name, rwl_line_at(p->text, ts->t[k].start));
        a = c < b ? c + 1 : b;
    }
    /* Dynamic shared memory is carved by the kernel (sizeof(float) offsets, float arrays)
     * from the bytes the launch gives; with every float doubled and nothing else changed,
     * twice the bytes are always enough. */
    for (size_t i = 0; i < f->n_shared; i++)
        if (f->shared[i].is_extern)
            out->shmem_factor = 2;
    if ((rc = check_casts(p, f, is_kernel, a, b)))
        return rc;
    check_shared_offsets(p, f, is_kernel, a, b);
    if ((rc = check_size_reads(p, f, is_kernel, a, b)))
        return rc;
    if (!out->reason[0] && (rc = check_size_macros(p, f, a, b)))
        return rc;
    for (size_t k = a; k < b && !rc && !out->reason[0]; k++) {
        const char *s = p->text + ts->t[k].start;
        size_t l = tok_len(ts, k);
        if (is_float_f_literal(ts, k)) {
            rc = add_edit(p, ts->t[k].end - 1, ts->t[k].end, "");
            continue;
        }
        if (ts->t[k].kind != T_IDENT)
            continue;
        if (promoted_type(p, f, is_kernel, k) && (rc = check_type_targ(p, a, b, k)))
            break;
        if (l == 5 && !memcmp(s, "float", 5)) {
            /* inside a template argument list: only a cast's type may change */
            size_t j = k;
            while (j > a && (ts->t[j - 1].kind == T_IDENT || rwl_tok_is(ts, j - 1, "::") ||
                             rwl_tok_is(ts, j - 1, ",") || rwl_tok_is(ts, j - 1, "*") ||
                             rwl_tok_is(ts, j - 1, "&") || ts->t[j - 1].kind == T_NUMBER))
                j--;
            if (j > a && rwl_tok_is(ts, j - 1, "<") && j >= a + 2 && ts->t[j - 2].kind == T_IDENT &&
                !rwl_tok_is_ident(ts, j - 2, "static_cast") && !rwl_tok_is_ident(ts, j - 2, "const_cast") &&
                rwl_match_close(ts, j - 1) < b) {
                refuse(out, EN(RW_PR_FLOAT_TARG), (int)tok_len(ts, j - 2),
                       p->text + ts->t[j - 2].start, LINE(k));
                continue;
            }
            rc = add_edit(p, ts->t[k].start, ts->t[k].end, "double");
            continue;
        }
        pr_kind why = refusal_lookup(s, l);
        if (why == PR_NONE && l == 4 && !memcmp(s, "half", 4) && !half_is_variable(ts, a, b, "half", 4))
            why = PR_HALF;
        if (why != PR_NONE) {
            refuse(out, hk_tr_in(HK_LANG_EN, refusal_why[why].use), (int)l, s, LINE(k), f->name);
            continue;
        }
        const char *c = const_lookup(s, l);
        if (!c)
            c = exact_lookup(s, l);
        if (c) {
            rc = add_edit(p, ts->t[k].start, ts->t[k].end, c);
            continue;
        }
        const promote_math *mr = math_lookup(s, l);
        /* a double name that a macro of the file redefines is the macro's (judged below) */
        const promote_math *dm = mr || names_find(&p->macros, p->text, s, l) ? NULL : double_math_lookup(s, l);
        if (dm && rwl_tok_is(ts, k + 1, "(") &&
            !(k > a && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->") ||
                        rwl_tok_is(ts, k - 1, "::")))) {
            rc = cast_arguments(p, k + 1, b, dm->args);
            continue;
        }
        if (mr && !(k > a && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->") ||
                              rwl_tok_is(ts, k - 1, "::")))) {
            if (mr->to) {
                rc = add_edit(p, ts->t[k].start, ts->t[k].end, mr->to);
                if (!rc && rwl_tok_is(ts, k + 1, "("))
                    rc = cast_arguments(p, k + 1, b, mr->args);
                continue;
            }
            if (!rwl_tok_is(ts, k + 1, "(")) {
                refuse(out, EN(RW_PR_NO_CALL), (int)l, s, LINE(k));
                continue;
            }
            size_t close = rwl_match_close(ts, k + 1);
            if (close >= b) {
                refuse(out, EN(RW_PR_UNBALANCED), (int)l, s, LINE(k));
                continue;
            }
            rc = add_edit(p, ts->t[k].start, ts->t[k + 1].end, mr->open);
            for (size_t j = k + 2; j < close && !rc; j++) {
                if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "[") || rwl_tok_is(ts, j, "{")) {
                    j = rwl_match_close(ts, j);
                    continue;
                }
                if (rwl_tok_is(ts, j, ",")) {
                    if (!mr->sep) {
                        refuse(out, EN(RW_PR_MORE_ARGS), (int)l, s, LINE(k));
                        break;
                    }
                    rc = add_edit(p, ts->t[j].start, ts->t[j + 1].start, mr->sep);
                }
            }
            if (!rc)
                rc = add_edit(p, ts->t[close].start, ts->t[close].end, mr->close);
            continue;
        }
        /* names the kernel reads from elsewhere in the file */
        if (k > a && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->")))
            continue;
        const decl_name *mac = names_find(&p->macros, p->text, s, l);
        if (mac && mac->why == DN_FLOAT_VALUE &&
            (!literal_gives_type(ts, a, k) || exact_auto_value(p, a, b, k, mac))) {
            rc = read_as_double(p, f, a, b, k, mac, false);
            continue;
        }
        const decl_name *inner = mac && mac->why == DN_HARMLESS ? macro_reaches(p, mac, 0, &rc) : NULL;
        if (rc)
            break;
        if (inner) {
            char what[48];
            snprintf(what, sizeof what, "%.*s", (int)(inner->name_end - inner->name_start),
                     p->text + inner->name_start);
            refuse(out, EN(RW_PR_MACRO), (int)l, s, rwl_line_at(p->text, mac->name_start), f->name, LINE(k), what);
            continue;
        }
        if (mac && mac->why != DN_HARMLESS) {
            refuse(out, EN(RW_PR_MACRO), (int)l, s, rwl_line_at(p->text, mac->name_start), f->name, LINE(k), mac->what);
            continue;
        }
        const decl_name *fs = mac ? NULL : names_find(&p->file_names, p->text, s, l);
        if (fs && fs->why == DN_FLOAT_VALUE &&
            (!literal_gives_type(ts, a, k) || exact_auto_value(p, a, b, k, fs))) {
            rc = read_as_double(p, f, a, b, k, fs, true);
            continue;
        }
        if (fs && fs->why != DN_HARMLESS && !is_type_param(f, s, l)) {
            bool is_func = false;
            for (size_t g = 0; g < p->m->n_funcs; g++)
                is_func |= strlen(p->m->funcs[g].name) == l && !memcmp(p->m->funcs[g].name, s, l);
            if (!is_func)
                refuse(out, fs->why == DN_FUNC_FLOAT ? EN(RW_PR_FILE_FUNC) :
                            fs->why == DN_CLASS_SPECIALIZED ? EN(RW_PR_CLASS_SPECIALIZED) : EN(RW_PR_FILE_DECL),
                       (int)l, s, rwl_line_at(p->text, fs->name_start), f->name, LINE(k));
        }
    }
    return rc;
}

/* Does h declare an `extern __shared__` array of a name that a promoted function also
 * declares? All such declarations of one name in a translation unit are one array and must
 * agree on its type, and the promoted one's float became double (llm.c's softmax kernels all
 * declare `extern __shared__ float shared[]`). */
static bool shares_extern_array(const promoter *p, const an_function *h, const size_t *work, size_t n_work)
{
    for (size_t i = 0; i < h->n_shared; i++)
        for (size_t w = 0; h->shared[i].is_extern && w < n_work; w++) {
            const an_function *f = &p->m->funcs[work[w]];
            for (size_t j = 0; j < f->n_shared; j++)
                if (f->shared[j].is_extern && !strcmp(f->shared[j].name, h->shared[i].name))
                    return true;
        }
    return false;
}

/* Is s[0, l) another spelling of float: a name a file-scope declaration with float gives
 * (typedef float f32; using f32 = float) or a macro with float code (#define F32 float)? */
static bool float_alias(const promoter *p, const char *s, size_t l)
{
    const decl_name *d = names_find(&p->macros, p->text, s, l);
    if (d)
        return d->why == DN_MACRO_FLOAT;
    d = names_find(&p->file_names, p->text, s, l);
    return d && d->why == DN_DECL_FLOAT;
}

/* Empties the bodies of functions outside the promoted set that name a promoted one or
 * declare a dynamic shared array of a promoted one's name (work[0, n_work): the promoted
 * functions' indices): the shadow runs only the promoted kernel. */
static int blank_callers(promoter *p, const size_t *work, size_t n_work)
{
    const an_model *m = p->m;
    const rw_toks *ts = &p->ts;
    for (size_t g = 0; g < m->n_funcs; g++) {
        const an_function *h = &m->funcs[g];
        if (p->promoted[g] || h->body_span.end_byte <= h->body_span.start_byte)
            continue;
        /* an explicit specialization (`template <>`) of a promoted function keeps its float
         * signature, which no longer matches the promoted template: the shadow instantiates
         * the primary alone, so the specialization goes -- unless it is the one the spec's
         * float instantiates (float where the primary has a promoted type parameter, or in
         * its explicit arguments): then the baseline runs its code, not the primary's */
        size_t s0 = tok_at(ts, h->span.start_byte);
        bool special = rwl_tok_is_ident(ts, s0, "template") && rwl_tok_is(ts, s0 + 1, "<") &&
                       rwl_tok_is(ts, s0 + 2, ">");
        for (size_t w = 0; special && w < n_work; w++)
            if (!strcmp(m->funcs[work[w]].name, h->name)) {
                const an_function *primary = &m->funcs[work[w]];
                bool for_float = false;
                for (size_t i = 0; i < primary->n_params && i < h->n_params; i++)
                    for (size_t t = 0; t < p->n_tparams; t++)
                        for_float |= primary->params[i].elem_type && h->params[i].elem_type &&
                                     !strcmp(primary->params[i].elem_type, p->tparams[t]) &&
                                     (!strcmp(h->params[i].elem_type, "float") ||
                                      float_alias(p, h->params[i].elem_type, strlen(h->params[i].elem_type)));
                size_t hb = tok_at(ts, h->body_span.start_byte);
                for (size_t k = s0 + 3; k < hb && !rwl_tok_is(ts, k, "("); k++)
                    if (rwl_tok_is(ts, k, "<"))
                        for (size_t j = k + 1, e = rwl_match_close(ts, k); j < e && j < hb; j++)
                            for_float |= rwl_tok_is_ident(ts, j, "float") ||
                                         (ts->t[j].kind == T_IDENT &&
                                          float_alias(p, p->text + ts->t[j].start, tok_len(ts, j)));
                if (for_float || p->n_tparams == 0) {
                    refuse(p->out, EN(RW_PR_SPECIALIZED), h->name, rwl_line_at(p->text, ts->t[s0].start));
                    return HK_EUNSUPPORTED;
                }
                int rc = add_edit(p, h->span.start_byte, h->body_span.end_byte,
                                  "/* hk fp64 shadow: an explicit specialization removed (the shadow instantiates the promoted template) */"); /* i18n: not for people */
                if (rc)
                    return rc;
                p->out->n_blanked++;
                special = false;
                h = NULL;
            }
        if (!h)
            continue;
        size_t a = tok_at(ts, h->body_span.start_byte), b = tok_at(ts, h->body_span.end_byte);
        bool calls = shares_extern_array(p, h, work, n_work);
        for (size_t k = a; k < b && !calls; k++) {
            if (ts->t[k].kind != T_IDENT)
                continue;
            for (size_t w = 0; w < n_work && !calls; w++) {
                const char *name = m->funcs[work[w]].name;
                calls = strlen(name) == tok_len(ts, k) && !memcmp(name, p->text + ts->t[k].start, tok_len(ts, k));
            }
        }
        if (!calls)
            continue;
        /* unreachable, not just empty: a non-void function then needs no return value */
        int rc = add_edit(p, h->body_span.start_byte, h->body_span.end_byte,
                          "{ /* hk fp64 shadow: emptied: it calls promoted code or shares a dynamic shared array with it */ __builtin_unreachable(); }"); /* i18n: not for people */
        if (rc)
            return rc;
        p->out->n_blanked++;
    }
    return HK_OK;
}

void promote_result_free(promote_result *r)
{
    if (!r)
        return;
    hk_free(r->text);
    for (size_t i = 0; i < r->n_template_args; i++)
        hk_free(r->template_args[i]);
    hk_free(r->template_args);
    memset(r, 0, sizeof *r);
    r->shmem_factor = 1;
}

int promote_fp64(const char *text, size_t len, const char *kernel, const char *const *template_args,
                 size_t n_template_args, promote_result *out)
{
    memset(out, 0, sizeof *out);
    out->shmem_factor = 1;
    if (!text || !kernel) {
        refuse(out, "%s", EN(RW_PR_NO_TEXT));
        return HK_EINVAL;
    }
    if (len > RW_TEXT_MAX) {
        refuse(out, EN(RW_PR_TOO_LARGE), (size_t)RW_TEXT_MAX);
        return HK_ETOOBIG;
    }
    promoter p = { .text = text, .len = len, .out = out };
    an_model *m = NULL, *nm = NULL;
    size_t *work = NULL;
    char *nt = NULL;
    size_t nl = 0;
    int rc = an_analyze(text, len, &m);
    if (rc) {
        refuse(out, EN(RW_PR_NOT_ANALYSED), hk_strerror(rc));
        goto out;
    }
    p.m = m;
    long ki = an_model_find_kernel(m, kernel);
    if (ki < 0 || m->funcs[ki].kind != AN_KERNEL) {
        refuse(out, EN(RW_PR_NO_KERNEL), kernel);
        rc = HK_ENOENT;
        goto out;
    }
    if (m->funcs[ki].recovered) {
        refuse(out, EN(RW_PR_KERNEL_UNPARSED), kernel);
        rc = HK_EPARSE;
        goto out;
    }
    p.promoted = hk_calloc(m->n_funcs, sizeof *p.promoted);
    work = hk_calloc(m->n_funcs, sizeof *work);
    if (!p.promoted || !work) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_lex(text, 0, (uint32_t)len, &p.ts)) || (rc = scan_macros(text, len, &p.macros)) ||
        (rc = scan_file_scope(&p.ts, m, &p.file_names)))
        goto out;
    if ((rc = check_kernel_template(&p, &m->funcs[ki], template_args, n_template_args)))
        goto out;
    /* the kernel and its device callees, transitively */
    size_t n_work = 0;
    p.promoted[ki] = true;
    work[n_work++] = (size_t)ki;
    for (size_t w = 0; w < n_work && !out->reason[0]; w++)
        if ((rc = follow_calls(&p, work[w], work, &n_work)))
            goto out;
    for (size_t l = 0; l < m->n_launches && !out->reason[0]; l++) {
        const an_launch *la = &m->launches[l];
        if (la->caller >= 0 && p.promoted[la->caller])
            refuse(out, EN(RW_PR_DEVICE_LAUNCH_IN), la->kernel, m->funcs[la->caller].name,
                   la->span.start_row + 1);
    }
    for (size_t w = 0; w < n_work && !out->reason[0]; w++) {
        if (m->funcs[work[w]].recovered) {
            refuse(out, EN(RW_PR_DEVICE_UNPARSED), m->funcs[work[w]].name);
            break;
        }
        if ((rc = promote_function(&p, work[w], work[w] == (size_t)ki)))
            goto out;
    }
    out->n_promoted = n_work;
    if (out->reason[0]) {
        rc = HK_EUNSUPPORTED;
        goto out;
    }
    if ((rc = blank_callers(&p, work, n_work)) || (rc = rwl_edits_apply(text, len, &p.edits, &nt, &nl)))
        goto out;
    /* the shadow must parse as well as the baseline did and still hold the kernel */
    if ((rc = an_analyze(nt, nl, &nm)))
        goto out;
    if ((nm->has_errors && !m->has_errors) || an_model_find_kernel(nm, kernel) < 0) {
        refuse(out, "%s", EN(RW_PR_SHADOW_UNPARSED));
        rc = HK_EPARSE;
        goto out;
    }
    /* which parameters the harness must now give as double: float ones made double, and
     * those of a template type the shadow instantiates with double */
    const an_function *before = &m->funcs[ki], *after = &nm->funcs[an_model_find_kernel(nm, kernel)];
    for (size_t i = 0; i < before->n_params && i < after->n_params && i < 64; i++) {
        const char *bt = before->params[i].elem_type, *at = after->params[i].elem_type;
        bool as_tparam = false;
        for (size_t t = 0; bt && t < p.n_tparams; t++)
            as_tparam |= !strcmp(bt, p.tparams[t]) && at && !strcmp(at, bt);
        if ((bt && at && !strcmp(bt, "float") && !strcmp(at, "double")) || as_tparam)
            out->double_params |= 1ull << i;
    }
    /* a parameter whose type is built from a promoted type parameter but is not that type
     * (Traits<T>::type *, Box<T> *): it changes with T, and the harness, which widens only
     * marked parameters, would give it the baseline's type */
    for (size_t i = 0; i < before->n_params && i < 64 && !out->reason[0]; i++) {
        const char *ty = before->params[i].type;
        if (!ty || (out->double_params >> i & 1))
            continue;
        for (size_t t = 0; t < p.n_tparams && !out->reason[0]; t++) {
            size_t tl = strlen(p.tparams[t]);
            for (const char *q = strstr(ty, p.tparams[t]); q; q = strstr(q + 1, p.tparams[t]))
                if ((q == ty || !(isalnum((unsigned char)q[-1]) || q[-1] == '_')) &&
                    !(isalnum((unsigned char)q[tl]) || q[tl] == '_')) {
                    refuse(out, EN(RW_PR_TPARAM_PARAM), i + 1, before->params[i].name, kernel, ty, p.tparams[t]);
                    break;
                }
        }
    }
    if (out->reason[0]) {
        rc = HK_EUNSUPPORTED;
        goto out;
    }
    /* a dynamic shared array of a type parameter, or carved by a helper of its type
     * (SharedMemory<T>()), doubles with it: twice the bytes are always enough */
    if (p.n_tparams)
        out->shmem_factor = 2;
    out->text = nt;
    out->len = nl;
    nt = NULL;
out:
    if (rc && rc != HK_ENOMEM && !out->reason[0])
        refuse(out, "%s", hk_strerror(rc));
    if (rc) {
        char reason[sizeof out->reason];
        memcpy(reason, out->reason, sizeof reason);
        size_t np = out->n_promoted;
        promote_result_free(out);
        memcpy(out->reason, reason, sizeof reason);
        out->n_promoted = np;
    }
    hk_free(nt);
    an_model_free(nm);
    an_model_free(m);
    hk_free(work);
    hk_free(p.promoted);
    hk_free(p.macros.v);
    hk_free(p.file_names.v);
    rwl_edits_free(&p.edits);
    rwl_toks_free(&p.ts);
    return rc;
}

int promote_fp64_spec(const spec *s, const char *text, size_t len, promote_result *out)
{
    memset(out, 0, sizeof *out);
    out->shmem_factor = 1;
    if (!s || !s->kernel) {
        refuse(out, "%s", EN(RW_PR_NO_SPEC));
        return HK_EINVAL;
    }
    for (size_t i = 0; i < s->n_args; i++) {
        const spec_arg *a = &s->args[i];
        if (a->dtype == HK_DT_F16 || a->dtype == HK_DT_BF16) {
            refuse(out, EN(RW_PR_HALF_ARG), a->name, hk_dtype_name(a->dtype));
            return HK_EUNSUPPORTED;
        }
    }
    return promote_fp64(text, len, s->kernel, (const char *const *)s->template_args,
                        s->n_template_args, out);
}

const promote_math *promote_math_table(size_t *n)
{
    *n = HK_ARRAY_LEN(math_rows);
    return math_rows;
}
