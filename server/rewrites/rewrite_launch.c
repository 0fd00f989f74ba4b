/* Applying a version must launch what was measured: rw_launch_config edits the launch
 * sites of one kernel (chevron, hipLaunchKernelGGL, cudaLaunchKernel) to the grid mode and
 * block of the version's launch_json, and refuses, with the line, what it cannot rewrite
 * safely. Works on tokens of the analysis model's launch spans (rewrite_lex.h). */
#include "rewrites/rewrite.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "spec/expr.h"
#include "rewrites/rewrite_lex.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What this file writes is shown where it is made (hkls apply's lines, the editor's Apply
 * action and its note) and never stored: it speaks the thread's language (docs/i18n.md),
 * its lists joined by the table's separators ("; " and ", " in English). */
#define TR(id) hk_tr(HK_MSG_##id)
#define SEMI hk_tr(HK_MSG_SAID_SEMI)
#define COMMA hk_tr(HK_MSG_INF_FRAG_SEP)

#define HELPER "hk_sm_count"
#define EXPR_TEXT_MAX 1024   /* longest grid/block expression handled (else: by hand) */
#define EVAL_DEPTH 4         /* names resolved through names, at most */
#define MAX_SITES 256        /* launch sites of one kernel handled in one text */

static const char helper_cuda[] =
    "/* Added by hkls apply: the GPU's SM count, read once. The launches below use a\n" /* i18n: not for people */
    " * multiple of it, the grid Hyper Kernel measured (the kernel loops over its range). */\n"
    "static int " HELPER "(void)\n" /* i18n: not for people */
    "{\n"
    "    static int sm_count = 0;\n"
    "    if (sm_count <= 0) {\n"
    "        int dev = 0, n = 0;\n"
    "        if (cudaGetDevice(&dev) != cudaSuccess ||\n"
    "            cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||\n"
    "            n < 1)\n"
    "            return 1; /* no answer: the launch that follows reports the device's error */\n"
    "        sm_count = n;\n"
    "    }\n"
    "    return sm_count;\n"
    "}\n\n";

static const char helper_hip[] =
    "/* Added by hkls apply: the GPU's CU count, read once. The launches below use a\n" /* i18n: not for people */
    " * multiple of it, the grid Hyper Kernel measured (the kernel loops over its range). */\n"
    "static int " HELPER "(void)\n" /* i18n: not for people */
    "{\n"
    "    static int sm_count = 0;\n"
    "    if (sm_count <= 0) {\n"
    "        int dev = 0, n = 0;\n"
    "        if (hipGetDevice(&dev) != hipSuccess ||\n"
    "            hipDeviceGetAttribute(&n, hipDeviceAttributeMultiProcessorCount, dev) != hipSuccess ||\n"
    "            n < 1)\n"
    "            return 1; /* no answer: the launch that follows reports the device's error */\n"
    "        sm_count = n;\n"
    "    }\n"
    "    return sm_count;\n"
    "}\n\n";

void rw_launch_report_free(rw_launch_report *rep)
{
    if (!rep)
        return;
    for (size_t i = 0; i < rep->n_edits; i++) {
        hk_free(rep->edits[i].text);
        hk_free(rep->edits[i].after);
    }
    hk_free(rep->edits);
    memset(rep, 0, sizeof *rep);
}

/* ------------------------------------------------------------------ launch_json */

/* base: the baseline's launch (its own sentences: a word pasted in would not be said) */
static int block_of(const json_t *a, unsigned out[3], bool base, char *err, size_t errlen)
{
    memset(out, 0, 3 * sizeof *out);
    if (!json_is_array(a))
        return HK_OK;
    size_t n = json_array_size(a);
    if (n < 1 || n > 3) {
        snprintf(err, errlen, "%s", base ? TR(RW_LA_BASE_BLOCK_DIMS) : TR(RW_LA_BLOCK_DIMS));
        return HK_EINVAL;
    }
    for (size_t d = 0; d < 3; d++) {
        json_int_t v = d < n ? json_integer_value(json_array_get(a, d)) : 1;
        if (d < n && !json_is_integer(json_array_get(a, d)))
            v = 0;
        if (v < 1 || v > 1024) {
            snprintf(err, errlen, base ? TR(RW_LA_BASE_BLOCK_DIM) : TR(RW_LA_BLOCK_DIM), d);
            return HK_EINVAL;
        }
        out[d] = (unsigned)v;
    }
    return HK_OK;
}

int rw_launch_from_json(const json_t *launch, const json_t *base, rw_launch *out, char *err,
                        size_t errlen)
{
    char dummy[8];
    if (!err || !errlen)
        err = dummy, errlen = sizeof dummy;
    err[0] = '\0';
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    if (!json_is_object(launch))
        return HK_OK;
    const char *form = json_string_value(json_object_get(launch, "form"));
    if (form && !strcmp(form, "command"))
        return HK_OK; /* the user's own build and run chose the launch */
    int rc = block_of(json_object_get(launch, "block"), out->block, false, err, errlen);
    if (!rc && json_is_object(base))
        rc = block_of(json_object_get(base, "block"), out->base_block, true, err,
                      errlen);
    if (rc)
        return rc;
    const char *mode = json_string_value(json_object_get(launch, "grid_mode"));
    if (mode && !strcmp(mode, "sm_multiple")) {
        json_int_t per = json_integer_value(json_object_get(launch, "grid_per_sm"));
        if (per < 1 || per > 65535) {
            snprintf(err, errlen, "%s", TR(RW_LA_PER_SM));
            return HK_EINVAL;
        }
        out->sm_multiple = true;
        out->grid_per_sm = (unsigned)per;
    } else if (mode && !strcmp(mode, "divided")) {
        json_int_t k = json_integer_value(json_object_get(launch, "grid_divisor"));
        const char *axis = json_string_value(json_object_get(launch, "grid_axis"));
        if (k < 2 || k > 64 || !axis || strlen(axis) != 1 || !strchr("xyz", axis[0])) {
            snprintf(err, errlen, "%s", TR(RW_LA_DIVIDED_NEEDS));
            return HK_EINVAL;
        }
        out->grid_divisor = (unsigned)k;
        out->grid_axis = (unsigned)(axis[0] - 'x');
    } else if (mode && !strcmp(mode, "multiplied")) {
        json_int_t k = json_integer_value(json_object_get(launch, "grid_multiplier"));
        const char *axis = json_string_value(json_object_get(launch, "grid_axis"));
        if (k < 2 || k > 64 || !axis || strlen(axis) != 1 || !strchr("xyz", axis[0])) {
            snprintf(err, errlen, "%s", TR(RW_LA_MULTIPLIED_NEEDS));
            return HK_EINVAL;
        }
        out->grid_multiplier = (unsigned)k;
        out->grid_axis = (unsigned)(axis[0] - 'x');
    } else if (mode && strcmp(mode, "spec") != 0) {
        snprintf(err, errlen, "launch: unknown grid_mode '%s'", mode);
        return HK_EINVAL;
    }
    return HK_OK;
}

/* ------------------------------------------------------------------ small helpers */

/* The last part of a possibly qualified name. */
static const char *last_part(const char *name)
{
    const char *p = strrchr(name, ':');
    return p ? p + 1 : name;
}

static bool same_kernel(const char *a, const char *b)
{
    return a && b && strcmp(last_part(a), last_part(b)) == 0;
}

/* Copy of text[s, e) with whitespace runs collapsed to one space (for messages). */
static char *span_text(const char *text, uint32_t s, uint32_t e)
{
    struct hk_buf b;
    hk_buf_init(&b, EXPR_TEXT_MAX + 8);
    bool space = false;
    int rc = HK_OK;
    for (uint32_t i = s; i < e && !rc; i++) {
        if (isspace((unsigned char)text[i])) {
            space = b.len > 0;
            continue;
        }
        if (space)
            rc = hk_buf_append(&b, " ", 1);
        space = false;
        if (!rc)
            rc = hk_buf_append(&b, text + i, 1);
    }
    if (rc == HK_ETOOBIG) {
        hk_buf_free(&b);
        return hk_strdup("(long expression)");
    }
    if (rc || !b.data) {
        hk_buf_free(&b);
        return rc ? NULL : hk_strdup("");
    }
    return hk_buf_steal(&b);
}

static bool squeezed_equal(const char *text, uint32_t s, uint32_t e, const char *want)
{
    char a[EXPR_TEXT_MAX + 1], b[EXPR_TEXT_MAX + 1];
    if (e - s > EXPR_TEXT_MAX || strlen(want) > EXPR_TEXT_MAX)
        return false;
    char raw[EXPR_TEXT_MAX + 1];
    memcpy(raw, text + s, e - s);
    raw[e - s] = '\0';
    rwl_squeeze(raw, a, sizeof a);
    rwl_squeeze(want, b, sizeof b);
    return strcmp(a, b) == 0;
}

/* Is the token at k an identifier used as a value (not a call, member, cast word)? */
static bool value_ident(const rw_toks *ts, size_t k)
{
    if (ts->t[k].kind != T_IDENT)
        return false;
    if (rwl_tok_is(ts, k + 1, "(") || rwl_tok_is(ts, k + 1, "<") || rwl_tok_is(ts, k + 1, "::"))
        return false;
    if (k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->")))
        return false;
    static const char *const words[] = {"sizeof", "dim3", "int", "unsigned", "long", "size_t",
                                        "static_cast", "const", "true", "false"};
    for (size_t i = 0; i < HK_ARRAY_LEN(words); i++)
        if (rwl_tok_is(ts, k, words[i]))
            return false;
    return true;
}

/* Plain decimal integer literal (suffixes u/l allowed): its value and where the digits end. */
static bool decimal_literal(const char *text, const rw_tok *t, long long *v, uint32_t *digits_end)
{
    uint32_t i = t->start;
    if (text[i] == '0' && t->end - t->start > 1)
        return false; /* octal, hex, binary */
    long long x = 0;
    for (; i < t->end && isdigit((unsigned char)text[i]); i++) {
        x = x * 10 + (text[i] - '0');
        if (x > 1000000000LL)
            return false;
    }
    if (i == t->start)
        return false;
    *digits_end = i;
    for (; i < t->end; i++)
        if (!strchr("uUlL", text[i]))
            return false;
    *v = x;
    return true;
}

/* ------------------------------------------------------------------ locating a site */

typedef struct {
    uint32_t s, e; /* expression bytes */
} espan;

typedef struct {
    const an_launch *la;
    long caller;
    int line;
    espan grid, block, shmem; /* shmem.s == shmem.e when absent */
    espan *args;              /* chevron and hip: the kernel's argument expressions */
    size_t n_args;
    unsigned cur[3];          /* the block it launches now, when known */
    bool cur_known;
} site;

/* Splits tokens [from, close) at top-level commas into spans; HK_ETOOBIG over max,
 * HK_EPARSE for an empty one. */
static int split_range(const rw_toks *ts, size_t from, size_t close, espan *out, size_t max,
                       size_t *n)
{
    *n = 0;
    int depth = 0;
    size_t first = from;
    for (size_t i = from; i <= close; i++) {
        bool end = i == close || (depth == 0 && rwl_tok_is(ts, i, ","));
        if (!end) {
            if (rwl_tok_is(ts, i, "(") || rwl_tok_is(ts, i, "[") || rwl_tok_is(ts, i, "{"))
                depth++;
            else if (rwl_tok_is(ts, i, ")") || rwl_tok_is(ts, i, "]") || rwl_tok_is(ts, i, "}"))
                depth--;
            continue;
        }
        if (first < i) {
            if (*n == max)
                return HK_ETOOBIG;
            out[(*n)++] = (espan){ts->t[first].start, ts->t[i - 1].end};
        } else if (i < close || *n) {
            return HK_EPARSE; /* an empty argument */
        }
        first = i + 1;
    }
    return HK_OK;
}

/* Splits tokens (open, close) -- a call's or a chevron's arguments -- at top-level commas. */
static int split_args(const rw_toks *ts, size_t open, size_t close, espan *out, size_t max,
                      size_t *n)
{
    return split_range(ts, open + 1, close, out, max, n);
}

#define MAX_ARGS 64

/* Finds the grid, block and shared-memory expressions of launch la in text.
 * HK_OK, HK_EPARSE (they cannot be found where the model says they are), HK_ENOMEM. */
static int site_locate(const char *text, site *st)
{
    const an_launch *la = st->la;
    rw_toks ts = {0};
    espan parts[MAX_ARGS];
    size_t n = 0;
    int rc = rwl_lex(text, la->span.start_byte, la->span.end_byte, &ts);
    if (rc)
        goto out;
    rc = HK_EPARSE;
    if (la->form == AN_LAUNCH_CHEVRON) {
        size_t open = ts.n, close = ts.n;
        for (size_t i = 0; i + 1 < ts.n && open == ts.n; i++)
            if (rwl_tok_is(&ts, i, "<<") && rwl_tok_is(&ts, i + 1, "<") &&
                ts.t[i].end == ts.t[i + 1].start)
                open = i + 1;
        int depth = 0;
        for (size_t i = open + 1; i + 1 < ts.n && close == ts.n; i++) {
            if (rwl_tok_is(&ts, i, "(") || rwl_tok_is(&ts, i, "[") || rwl_tok_is(&ts, i, "{"))
                depth++;
            else if (rwl_tok_is(&ts, i, ")") || rwl_tok_is(&ts, i, "]") || rwl_tok_is(&ts, i, "}"))
                depth--;
            else if (depth == 0 && rwl_tok_is(&ts, i, ">>") && rwl_tok_is(&ts, i + 1, ">") &&
                     ts.t[i].end == ts.t[i + 1].start)
                close = i;
        }
        if (open >= ts.n || close >= ts.n)
            goto out;
        if ((rc = split_args(&ts, open, close, parts, MAX_ARGS, &n)) || n < 2 || n > 4) {
            rc = rc == HK_ENOMEM ? rc : HK_EPARSE;
            goto out;
        }
        st->grid = parts[0];
        st->block = parts[1];
        st->shmem = n > 2 ? parts[2] : (espan){0, 0};
        /* the kernel's own arguments follow ">>>" */
        size_t ao = close + 2, ac = rwl_match_close(&ts, ao);
        if (rwl_tok_is(&ts, ao, "(") && ac < ts.n) {
            espan args[MAX_ARGS];
            size_t na = 0;
            if (split_args(&ts, ao, ac, args, MAX_ARGS, &na) == HK_OK && na) {
                if (!(st->args = hk_malloc(na * sizeof *st->args))) {
                    rc = HK_ENOMEM;
                    goto out;
                }
                memcpy(st->args, args, na * sizeof *args);
                st->n_args = na;
            }
        }
    } else {
        const char *fn = la->form == AN_LAUNCH_HIP ? "hipLaunchKernelGGL" : "cudaLaunchKernel";
        size_t open = ts.n;
        for (size_t i = 0; i + 1 < ts.n && open == ts.n; i++)
            if (rwl_tok_is_ident(&ts, i, fn))
                for (size_t k = i + 1; k < ts.n && open == ts.n; k++)
                    if (rwl_tok_is(&ts, k, "("))
                        open = k;
        size_t close = open < ts.n ? rwl_match_close(&ts, open) : ts.n;
        if (close >= ts.n)
            goto out;
        if ((rc = split_args(&ts, open, close, parts, MAX_ARGS, &n)) || n < 3) {
            rc = rc == HK_ENOMEM ? rc : HK_EPARSE;
            goto out;
        }
        st->grid = parts[1];
        st->block = parts[2];
        size_t shm = la->form == AN_LAUNCH_HIP ? 3 : 4;
        st->shmem = n > shm ? parts[shm] : (espan){0, 0};
        if (la->form == AN_LAUNCH_HIP && n > 5) {
            if (!(st->args = hk_malloc((n - 5) * sizeof *st->args))) {
                rc = HK_ENOMEM;
                goto out;
            }
            memcpy(st->args, parts + 5, (n - 5) * sizeof *parts);
            st->n_args = n - 5;
        }
    }
    /* the model and this scan must agree on what the grid and block are */
    rc = la->grid && la->block && squeezed_equal(text, st->grid.s, st->grid.e, la->grid) &&
                 squeezed_equal(text, st->block.s, st->block.e, la->block)
             ? HK_OK
             : HK_EPARSE;
out:
    rwl_toks_free(&ts);
    return rc;
}

/* ------------------------------------------------------------------ evaluating a block */

typedef struct {
    const char *name; /* borrowed from the model */
    size_t i;         /* index into m->tunables */
} tunable_ref;

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    long caller;
    uint32_t before; /* only declarations before this offset count (the launch) */
    const tunable_ref *by_name; /* m's tunables by name, then index, or NULL */
} eval_ctx;

static int eval_scalar(const eval_ctx *c, const char *src, int depth, long long *out);

static bool tunable_visible(const an_tunable *t, const char *name, long caller)
{
    return t->kind != AN_TUNE_TEMPLATE && t->name[0] == name[0] && !strcmp(t->name, name) &&
           (t->owner < 0 || t->owner == caller);
}

/* A #define/constexpr tunable visible from the caller, or -1. */
static long find_tunable(const an_model *m, const char *name, long caller)
{
    for (size_t i = 0; i < m->n_tunables; i++)
        if (tunable_visible(&m->tunables[i], name, caller))
            return (long)i;
    return -1;
}

/* find_tunable through c->by_name when there is one: the first in model order still. */
static long find_tunable_in(const eval_ctx *c, const char *name)
{
    if (!c->by_name)
        return find_tunable(c->m, name, c->caller);
    size_t lo = 0, hi = c->m->n_tunables;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(c->by_name[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < c->m->n_tunables && !strcmp(c->by_name[lo].name, name); lo++)
        if (tunable_visible(&c->m->tunables[c->by_name[lo].i], name, c->caller))
            return (long)c->by_name[lo].i;
    return -1;
}

/* A local declaration of name in the caller before the launch: `[const] TYPE name = expr;`
 * (*val_s/e: expr) or `dim3 name(a, b, c)` / `dim3 name{...}` / `dim3 name = dim3(...)`
 * (*is_dim3, *val_s/e: inside the parentheses). Only when nothing else in the caller
 * assigns it. */
static bool find_local(const eval_ctx *c, const char *name, bool *is_dim3, uint32_t *val_s,
                       uint32_t *val_e)
{
    if (c->caller < 0 || (size_t)c->caller >= c->m->n_funcs)
        return false;
    const an_function *f = &c->m->funcs[c->caller];
    if (f->body_span.end_byte > c->len || f->body_span.start_byte >= f->body_span.end_byte)
        return false;
    rw_toks ts = {0};
    bool found = false, assigned = false;
    if (rwl_lex(c->text, f->body_span.start_byte, f->body_span.end_byte, &ts) != HK_OK)
        goto out;
    size_t decl = ts.n;
    for (size_t i = 1; i < ts.n; i++) {
        if (!rwl_tok_is_ident(&ts, i, name) || rwl_tok_is(&ts, i - 1, ".") ||
            rwl_tok_is(&ts, i - 1, "->"))
            continue;
        bool typed = rwl_is_type_word(&ts, i - 1) || rwl_tok_is_ident(&ts, i - 1, "dim3") ||
                     rwl_tok_is_ident(&ts, i - 1, "const") || rwl_tok_is_ident(&ts, i - 1, "constexpr");
        if (typed && ts.t[i].start < c->before) {
            if (decl != ts.n)
                assigned = true; /* declared twice (shadowing): do not guess */
            decl = i;
            continue;
        }
        if (rwl_tok_is_assign_op(&ts, i + 1) || rwl_tok_is(&ts, i + 1, "++") ||
            rwl_tok_is(&ts, i + 1, "--") || rwl_tok_is(&ts, i - 1, "++") ||
            rwl_tok_is(&ts, i - 1, "--") || rwl_tok_is(&ts, i - 1, "&") ||
            (rwl_tok_is(&ts, i + 1, ".") && (rwl_tok_is_assign_op(&ts, i + 3) ||
                                             rwl_tok_is(&ts, i + 3, "++") ||
                                             rwl_tok_is(&ts, i + 3, "--"))))
            assigned = true; /* written, address taken, or a member set (block.x = ...) */
    }
    if (decl == ts.n || assigned)
        goto out;
    *is_dim3 = rwl_tok_is_ident(&ts, decl - 1, "dim3");
    size_t k = decl + 1;
    if (rwl_tok_is(&ts, k, "=")) {
        size_t e = rwl_stmt_end(&ts, k + 1, ts.n);
        if (e <= k + 1 || !rwl_tok_is(&ts, e - 1, ";"))
            goto out;
        if (*is_dim3 && rwl_tok_is_ident(&ts, k + 1, "dim3") && rwl_tok_is(&ts, k + 2, "(")) {
            size_t cl = rwl_match_close(&ts, k + 2);
            if (cl + 2 != e || cl <= k + 3)
                goto out;
            *val_s = ts.t[k + 3].start;
            *val_e = ts.t[cl - 1].end;
        } else {
            if (e - 1 <= k + 1)
                goto out;
            *val_s = ts.t[k + 1].start;
            *val_e = ts.t[e - 2].end;
            *is_dim3 = false; /* dim3 b = 256: a scalar */
        }
        found = true;
    } else if (*is_dim3 && (rwl_tok_is(&ts, k, "(") || rwl_tok_is(&ts, k, "{"))) {
        size_t cl = rwl_match_close(&ts, k);
        if (cl >= ts.n || cl <= k + 1 || !rwl_tok_is(&ts, cl + 1, ";"))
            goto out;
        *val_s = ts.t[k + 1].start;
        *val_e = ts.t[cl - 1].end;
        found = true;
    }
out:
    rwl_toks_free(&ts);
    return found;
}

static int eval_span(const eval_ctx *c, uint32_t s, uint32_t e, int depth, long long *out)
{
    if (e <= s || e - s > EXPR_TEXT_MAX)
        return HK_EINVAL;
    char *src = hk_strndup(c->text + s, e - s);
    if (!src)
        return HK_ENOMEM;
    int rc = eval_scalar(c, src, depth, out);
    hk_free(src);
    return rc;
}

struct var_list {
    const eval_ctx *c;
    int depth;
    expr_var v[16];
    char *names[16];
    size_t n;
    int rc;
};

static int resolve_var(const char *name, void *ctx)
{
    struct var_list *vl = ctx;
    for (size_t i = 0; i < vl->n; i++)
        if (!strcmp(vl->names[i], name))
            return 0;
    if (vl->n == HK_ARRAY_LEN(vl->v) || vl->depth >= EVAL_DEPTH)
        return vl->rc = HK_EINVAL;
    long long val = 0;
    int rc = HK_EINVAL;
    long ti = find_tunable_in(vl->c, name);
    if (ti >= 0 && vl->c->m->tunables[ti].value)
        rc = eval_scalar(vl->c, vl->c->m->tunables[ti].value, vl->depth + 1, &val);
    bool is_dim3 = false;
    uint32_t s = 0, e = 0;
    if (ti < 0 && find_local(vl->c, name, &is_dim3, &s, &e) && !is_dim3)
        rc = eval_span(vl->c, s, e, vl->depth + 1, &val);
    if (rc)
        return vl->rc = rc;
    if (!(vl->names[vl->n] = hk_strdup(name)))
        return vl->rc = HK_ENOMEM;
    vl->v[vl->n].name = vl->names[vl->n];
    vl->v[vl->n].value = (expr_value){.is_float = false, .i = val};
    vl->n++;
    return 0;
}

/* The integer value of a constant expression (literals, #define/constexpr names, local
 * constants of the launcher). HK_OK, HK_EINVAL (not a constant this can read), HK_ENOMEM. */
static int eval_scalar(const eval_ctx *c, const char *src, int depth, long long *out)
{
    expr *e = NULL;
    struct var_list vl = {.c = c, .depth = depth};
    int rc = expr_parse(src, &e, NULL, 0);
    if (rc) {
        rc = rc == HK_ENOMEM ? rc : HK_EINVAL;
        goto out;
    }
    expr_foreach_var(e, resolve_var, &vl);
    if ((rc = vl.rc))
        goto out;
    expr_value v;
    if (expr_eval(e, vl.v, vl.n, &v, NULL, 0) || v.is_float) {
        rc = HK_EINVAL;
        goto out;
    }
    *out = v.i;
out:
    for (size_t i = 0; i < vl.n; i++)
        hk_free(vl.names[i]);
    expr_free(e);
    return rc;
}

/* Values of "a, b, c" (1 to 3 constants) into out, the rest 1. */
static int eval_dims(const eval_ctx *c, uint32_t s, uint32_t e, unsigned out[3])
{
    rw_toks ts = {0};
    espan parts[4];
    size_t n = 0;
    int rc = rwl_lex(c->text, s, e, &ts);
    if (rc)
        goto out;
    /* split needs an enclosing pair: fake one around all tokens */
    if (!ts.n) {
        rc = HK_EINVAL;
        goto out;
    }
    {
        int depth = 0;
        size_t first = 0;
        for (size_t i = 0; i <= ts.n; i++) {
            bool end = i == ts.n || (depth == 0 && rwl_tok_is(&ts, i, ","));
            if (!end) {
                if (rwl_tok_is(&ts, i, "(") || rwl_tok_is(&ts, i, "["))
                    depth++;
                else if (rwl_tok_is(&ts, i, ")") || rwl_tok_is(&ts, i, "]"))
                    depth--;
                continue;
            }
            if (first >= i || n == 3) {
                rc = HK_EINVAL;
                goto out;
            }
            parts[n++] = (espan){ts.t[first].start, ts.t[i - 1].end};
            first = i + 1;
        }
    }
    for (size_t d = 0; d < 3; d++) {
        long long v = 1;
        if (d < n && (rc = eval_span(c, parts[d].s, parts[d].e, 0, &v)))
            goto out;
        if (v < 1 || v > 1024) {
            rc = HK_EINVAL;
            goto out;
        }
        out[d] = (unsigned)v;
    }
out:
    rwl_toks_free(&ts);
    return rc;
}

/* The block a site's block expression launches: a constant, dim3(...), or a name of a
 * constant, local scalar or local dim3. HK_OK, HK_EINVAL (cannot tell), HK_ENOMEM. */
static int eval_block(const eval_ctx *c, uint32_t s, uint32_t e, unsigned out[3])
{
    rw_toks ts = {0};
    int rc = rwl_lex(c->text, s, e, &ts);
    if (rc)
        goto out;
    rc = HK_EINVAL;
    if (ts.n >= 3 && rwl_tok_is_ident(&ts, 0, "dim3") &&
        (rwl_tok_is(&ts, 1, "(") || rwl_tok_is(&ts, 1, "{")) &&
        rwl_match_close(&ts, 1) == ts.n - 1) {
        rc = ts.n > 3 ? eval_dims(c, ts.t[2].start, ts.t[ts.n - 2].end, out) : HK_EINVAL;
        goto out;
    }
    if (ts.n == 1 && ts.t[0].kind == T_IDENT) {
        char *name = rwl_tok_text(&ts, 0, 1);
        bool is_dim3 = false;
        uint32_t vs = 0, ve = 0;
        if (!name) {
            rc = HK_ENOMEM;
            goto out;
        }
        bool local = find_tunable_in(c, name) < 0 &&
                     find_local(c, name, &is_dim3, &vs, &ve);
        hk_free(name);
        if (local && is_dim3) {
            rc = eval_dims(c, vs, ve, out);
            goto out;
        }
    }
    long long v = 0;
    if ((rc = eval_span(c, s, e, 0, &v)))
        goto out;
    if (v < 1 || v > 1024) {
        rc = HK_EINVAL;
        goto out;
    }
    out[0] = (unsigned)v;
    out[1] = out[2] = 1;
out:
    rwl_toks_free(&ts);
    return rc;
}

/* ------------------------------------------------------------------ a kernel's block */

/* The block and dynamic shared memory of launch site la, when they are constants. HK_OK
 * (*threads 0: the block is not one), HK_ENOMEM. */
static int site_block(const char *text, size_t len, const an_model *m, const tunable_ref *by_name,
                      const an_launch *la, int *threads, int *dyn)
{
    site st = {.la = la, .caller = la->caller >= 0 && (size_t)la->caller < m->n_funcs
                                       ? la->caller : -1};
    unsigned b[3];
    long long sh = 0;
    *threads = *dyn = 0;
    int rc = site_locate(text, &st);
    if (rc)
        goto out;
    eval_ctx ec = {.text = text, .len = len, .m = m, .caller = st.caller,
                   .before = la->span.start_byte, .by_name = by_name};
    if ((rc = eval_block(&ec, st.block.s, st.block.e, b)))
        goto out;
    *threads = (int)(b[0] * b[1] * b[2]);
    if (st.shmem.e > st.shmem.s &&
        (rc = eval_span(&ec, st.shmem.s, st.shmem.e, 0, &sh)) == HK_OK && sh >= 0 &&
        sh < 1 << 30)
        *dyn = (int)sh;
    rc = HK_OK;
out:
    hk_free(st.args);
    return rc == HK_ENOMEM ? rc : HK_OK;
}

/* The first __launch_bounds__ argument of m->funcs[fi] into out, when it is a constant.
 * HK_OK or HK_ENOMEM. */
static int bounds_block(const char *text, size_t len, const an_model *m,
                        const tunable_ref *by_name, long fi, rw_kernel_block *out)
{
    const char *lb = fi >= 0 && (size_t)fi < m->n_funcs ? m->funcs[fi].launch_bounds : NULL;
    if (!lb)
        return HK_OK;
    char *first = hk_strndup(lb, strcspn(lb, ","));
    eval_ctx ec = {.text = text, .len = len, .m = m, .caller = -1, .by_name = by_name};
    long long v = 0;
    int rc = first ? eval_scalar(&ec, first, 0, &v) : HK_ENOMEM;
    hk_free(first);
    if (rc == HK_ENOMEM)
        return rc;
    if (rc == HK_OK && v > 0 && v <= 1024) {
        out->threads = (int)v;
        out->source = "__launch_bounds__";
    }
    return HK_OK;
}

static bool site_usable(const an_launch *la, size_t len)
{
    return la->kernel && la->block && la->span.end_byte <= len &&
           la->span.start_byte < la->span.end_byte;
}

int rw_kernel_block_of(const char *text, size_t len, const an_model *m, const char *kernel,
                       long fi, rw_kernel_block *out)
{
    memset(out, 0, sizeof *out);
    if (!text || !m || !kernel)
        return HK_OK;
    const char *kl = last_part(kernel);
    for (size_t l = 0; l < m->n_launches; l++) {
        const an_launch *la = &m->launches[l];
        if (!site_usable(la, len) || strcmp(last_part(la->kernel), kl) != 0)
            continue;
        int rc = site_block(text, len, m, NULL, la, &out->threads, &out->dyn_smem);
        if (rc)
            return rc;
        if (out->threads > 0) {
            out->source = "launch";
            return HK_OK;
        }
    }
    return bounds_block(text, len, m, NULL, fi >= 0 ? fi : an_model_find_kernel(m, kernel),
                        out);
}

struct kname {
    const char *last; /* the last part of the kernel's name */
    long fi;
};

static int kname_cmp(const void *a, const void *b)
{
    return strcmp(((const struct kname *)a)->last, ((const struct kname *)b)->last);
}

static int tunable_cmp(const void *a, const void *b)
{
    const tunable_ref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

int rw_kernel_blocks(const char *text, size_t len, const an_model *m, rw_kernel_block *out)
{
    if (!text || !m || !m->n_funcs)
        return HK_OK;
    memset(out, 0, m->n_funcs * sizeof *out);
    struct kname *ks = hk_malloc(m->n_funcs * sizeof *ks);
    tunable_ref *by_name = m->n_tunables ? hk_malloc(m->n_tunables * sizeof *by_name) : NULL;
    size_t n = 0;
    int rc = ks && (by_name || !m->n_tunables) ? HK_OK : HK_ENOMEM;
    for (size_t i = 0; !rc && i < m->n_tunables; i++)
        by_name[i] = (tunable_ref){m->tunables[i].name ? m->tunables[i].name : "", i};
    if (!rc && m->n_tunables)
        qsort(by_name, m->n_tunables, sizeof *by_name, tunable_cmp);
    for (size_t i = 0; !rc && i < m->n_funcs; i++)
        if (m->funcs[i].kind == AN_KERNEL && m->funcs[i].name)
            ks[n++] = (struct kname){last_part(m->funcs[i].name), (long)i};
    if (n)
        qsort(ks, n, sizeof *ks, kname_cmp);
    /* each launch once, in order: it gives its block to every kernel of its name that has
     * none yet, as rw_kernel_block_of's first constant launch would */
    for (size_t l = 0; !rc && l < m->n_launches; l++) {
        const an_launch *la = &m->launches[l];
        if (!site_usable(la, len))
            continue;
        struct kname key = {last_part(la->kernel), -1};
        struct kname *hit = n ? bsearch(&key, ks, n, sizeof *ks, kname_cmp) : NULL;
        if (!hit)
            continue;
        while (hit > ks && !kname_cmp(hit - 1, &key))
            hit--;
        int threads = 0, dyn = 0;
        bool tried = false;
        for (; !rc && hit < ks + n && !kname_cmp(hit, &key); hit++) {
            rw_kernel_block *o = &out[hit->fi];
            if (o->threads)
                continue;
            if (!tried && (rc = site_block(text, len, m, by_name, la, &threads, &dyn)))
                break;
            tried = true;
            if (threads > 0)
                *o = (rw_kernel_block){.threads = threads, .dyn_smem = dyn, .source = "launch"};
        }
    }
    for (size_t i = 0; !rc && i < n; i++)
        if (!out[ks[i].fi].threads)
            rc = bounds_block(text, len, m, by_name, ks[i].fi, &out[ks[i].fi]);
    hk_free(ks);
    hk_free(by_name);
    return rc;
}

/* ------------------------------------------------------------------ the rewrite */

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    const char *kernel;
    const rw_launch *want;
    rw_edits es;
    struct hk_buf desc;   /* "; "-joined notes of what changed (lines fixed up at the end) */
    struct hk_buf advice;
    char *refusal;
    long tunable_done;    /* a block #define/constexpr already rewritten, or -1 */
} job;

static int refuse(job *j, char *why)
{
    if (!why)
        return HK_ENOMEM;
    if (!j->refusal)
        j->refusal = why;
    else
        hk_free(why);
    return HK_OK;
}

static void fmt_block(const unsigned b[3], char *out, size_t size)
{
    if (b[1] == 1 && b[2] == 1)
        snprintf(out, size, "%u", b[0]);
    else if (b[2] == 1)
        snprintf(out, size, "dim3(%u, %u)", b[0], b[1]);
    else
        snprintf(out, size, "dim3(%u, %u, %u)", b[0], b[1], b[2]);
}

static bool starts_with_dim3(const char *text, espan e)
{
    return e.e - e.s > 4 && memcmp(text + e.s, "dim3", 4) == 0 &&
           !isalnum((unsigned char)text[e.s + 4]) && text[e.s + 4] != '_';
}

/* Counts whole-word uses of name in text outside comments and strings (preprocessor lines
 * included), skipping [skip_s, skip_e); *first_other gets the offset of the first use that
 * lies outside every allowed span. */
static size_t count_uses(const char *text, size_t len, const char *name, uint32_t skip_s,
                         uint32_t skip_e, const espan *allowed, size_t n_allowed,
                         uint32_t *first_other)
{
    size_t nl = strlen(name), others = 0;
    for (size_t i = 0; i < len;) {
        char ch = text[i];
        if (ch == '/' && i + 1 < len && text[i + 1] == '/') {
            while (i < len && text[i] != '\n')
                i++;
            continue;
        }
        if (ch == '/' && i + 1 < len && text[i + 1] == '*') {
            i += 2;
            while (i + 1 < len && !(text[i] == '*' && text[i + 1] == '/'))
                i++;
            i += 2;
            continue;
        }
        if (ch == '"' || ch == '\'') {
            i++;
            while (i < len && text[i] != ch && text[i] != '\n')
                i += text[i] == '\\' ? 2 : 1;
            i++;
            continue;
        }
        if (isalpha((unsigned char)ch) || ch == '_') {
            size_t s = i;
            while (i < len && (isalnum((unsigned char)text[i]) || text[i] == '_'))
                i++;
            if (i - s != nl || memcmp(text + s, name, nl) != 0 || (s >= skip_s && s < skip_e))
                continue;
            bool ok = false;
            for (size_t a = 0; a < n_allowed && !ok; a++)
                ok = s >= allowed[a].s && s < allowed[a].e;
            if (!ok && others++ == 0)
                *first_other = (uint32_t)s;
            continue;
        }
        i++;
    }
    return others;
}

/* How often name is used in the caller's body (declaration included), or 0 when it cannot
 * be read. */
static size_t local_uses(const char *text, const an_function *f, const char *name)
{
    rw_toks ts = {0};
    size_t n = 0;
    if (rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts) == HK_OK)
        for (size_t i = 0; i < ts.n; i++)
            n += rwl_tok_is_ident(&ts, i, name) &&
                 !(i > 0 && (rwl_tok_is(&ts, i - 1, ".") || rwl_tok_is(&ts, i - 1, "->")));
    rwl_toks_free(&ts);
    return n;
}

/* When the site's grid is the name of a local of its launcher, declared once, never
 * assigned and used only by this launch, *where becomes the declaration's value. */
static int grid_variable(const job *j, const site *st, espan *where)
{
    rw_toks ts = {0};
    int rc = rwl_lex(j->text, st->grid.s, st->grid.e, &ts);
    if (rc || ts.n != 1 || ts.t[0].kind != T_IDENT || st->caller < 0)
        goto out;
    char *name = rwl_tok_text(&ts, 0, 1);
    if (!name) {
        rc = HK_ENOMEM;
        goto out;
    }
    eval_ctx ec = {.text = j->text, .len = j->len, .m = j->m, .caller = st->caller,
                   .before = st->la->span.start_byte};
    bool is_dim3 = false;
    uint32_t vs = 0, ve = 0;
    if (find_tunable(j->m, name, st->caller) < 0 && find_local(&ec, name, &is_dim3, &vs, &ve) &&
        local_uses(j->text, &j->m->funcs[st->caller], name) == 2)
        *where = (espan){vs, ve};
    hk_free(name);
out:
    rwl_toks_free(&ts);
    return rc;
}

/* Rewrites literals of the old block size in the spec-mode grid expression. Returns HK_OK;
 * a refusal goes to j. *n_changed: literals rewritten. */
static int grid_literals(job *j, const site *st, const unsigned *old, const unsigned *nw,
                         const char *block_name, bool block_name_follows, size_t *n_changed)
{
    *n_changed = 0;
    /* the mapping old -> new for B and B-1 of each changed dimension; a value that would
     * map to two different ones (or to itself through an unchanged dimension) is ambiguous */
    long long from[12], to[12];
    size_t n = 0;
    for (int d = 0; d < 3; d++) {
        long long pairs[2][2] = {{old[d], nw[d]}, {(long long)old[d] - 1, (long long)nw[d] - 1}};
        for (int p = 0; p < 2; p++) {
            if (p == 1 && old[d] <= 2)
                continue; /* B-1 of 1 or 2 is 0 or 1: not a recognisable block literal */
            if (old[d] == 1)
                continue;
            size_t k;
            for (k = 0; k < n && from[k] != pairs[p][0]; k++)
                ;
            if (k < n) {
                if (to[k] != pairs[p][1])
                    return refuse(j, hk_asprintf(TR(RW_LA_LITERAL_TWO),
                        j->kernel, st->line, st->la->grid, pairs[p][0]));
                continue;
            }
            from[n] = pairs[p][0];
            to[n++] = pairs[p][1];
        }
    }
    /* `dim3 grid(...); k<<<grid, ...>>>`: the literals are in the declaration of a local
     * that only this launch uses */
    espan where = st->grid;
    int rc = grid_variable(j, st, &where);
    if (rc)
        return rc;
    rw_toks ts = {0};
    if ((rc = rwl_lex(j->text, where.s, where.e, &ts)))
        goto out;
    bool other_ident = false, mentions_block_name = false;
    for (size_t i = 0; i < ts.n; i++) {
        if (ts.t[i].kind == T_IDENT) {
            if (block_name && rwl_tok_is_ident(&ts, i, block_name))
                mentions_block_name = true;
            else if (value_ident(&ts, i))
                other_ident = true;
            continue;
        }
        long long v;
        uint32_t de;
        if (ts.t[i].kind != T_NUMBER || !decimal_literal(j->text, &ts.t[i], &v, &de))
            continue;
        for (size_t k = 0; k < n; k++) {
            if (from[k] != v || from[k] == to[k])
                continue;
            char num[32];
            snprintf(num, sizeof num, "%lld", to[k]);
            if ((rc = rwl_edits_add(&j->es, ts.t[i].start, de, num)))
                goto out;
            ++*n_changed;
            break;
        }
    }
    if (mentions_block_name && !block_name_follows) {
        rc = refuse(j, hk_asprintf(TR(RW_LA_GRID_FROM_NAME),
                                   j->kernel, st->line, st->la->grid, block_name));
    } else if (!*n_changed && !mentions_block_name && other_ident) {
        rc = refuse(j, hk_asprintf(TR(RW_LA_GRID_HIDES_BLOCK),
                                   j->kernel, st->line, st->la->grid));
    }
out:
    rwl_toks_free(&ts);
    return rc;
}

/* Does a token list call anything (a name followed by a parenthesis)? */
static bool has_call(const rw_toks *ts)
{
    for (size_t i = 0; i + 1 < ts->n; i++)
        if (ts->t[i].kind == T_IDENT && rwl_tok_is(ts, i + 1, "("))
            return true;
    return false;
}

static bool lone_name(const rw_toks *ts)
{
    return ts->n == 1 && ts->t[0].kind == T_IDENT;
}

/* The components of a site's grid: in `dim3(...)` at the site, in the declaration of a
 * local dim3 only this launch uses (grid_variable), or one scalar (a 1-D grid). *n 0 when
 * they cannot be read (a name or a call, which may be a dim3 made elsewhere). */
static int grid_parts(const job *j, const site *st, espan parts[3], size_t *n)
{
    *n = 0;
    espan where = st->grid;
    int rc = grid_variable(j, st, &where);
    if (rc)
        return rc;
    bool local = where.s != st->grid.s || where.e != st->grid.e;
    rw_toks ts = {0};
    espan p[4];
    size_t np = 0;
    if ((rc = rwl_lex(j->text, where.s, where.e, &ts)))
        goto out;
    bool ok;
    if (ts.n >= 3 && rwl_tok_is_ident(&ts, 0, "dim3") && rwl_tok_is(&ts, 1, "(") &&
        rwl_match_close(&ts, 1) == ts.n - 1)
        ok = split_args(&ts, 1, ts.n - 1, p, 4, &np) == HK_OK;   /* dim3(a, b, c) */
    else if (local)   /* the inside of `dim3 g(a, b, c)`, or a scalar local's value */
        ok = split_range(&ts, 0, ts.n, p, 4, &np) == HK_OK;
    else
        ok = ts.n > 0, p[0] = where, np = 1;
    /* one part that is a lone name or a call may itself be a dim3 */
    ok = ok && np >= 1 && np <= 3 && !(np == 1 && (lone_name(&ts) || has_call(&ts)));
    if (ok) {
        memcpy(parts, p, np * sizeof *p);
        *n = np;
    }
out:
    rwl_toks_free(&ts);
    return rc;
}

/* The K of a component written `((c) + K - 1) / K` (what divide_grid writes), else 0. */
static unsigned divided_by(const char *text, espan c)
{
    char raw[EXPR_TEXT_MAX + 1], sq[EXPR_TEXT_MAX + 1];
    if (c.e - c.s > EXPR_TEXT_MAX)
        return 0;
    memcpy(raw, text + c.s, c.e - c.s);
    raw[c.e - c.s] = '\0';
    rwl_squeeze(raw, sq, sizeof sq);
    size_t l = strlen(sq);
    const char *t = l > 4 ? strrchr(sq, '/') : NULL;
    unsigned k = 0;
    char tail[48];
    if (strncmp(sq, "((", 2) != 0 || !t || sscanf(t, "/%u", &k) != 1 || k < 2)
        return 0;
    snprintf(tail, sizeof tail, ")+%u-1)/%u", k, k);
    size_t tl = strlen(tail);
    return l > tl + 2 && strcmp(sq + l - tl, tail) == 0 ? k : 0;
}

/* The K of a component written `((c) * K)` (what divide_grid writes for a multiplier), else 0. */
static unsigned multiplied_by(const char *text, espan c)
{
    char raw[EXPR_TEXT_MAX + 1], sq[EXPR_TEXT_MAX + 1];
    if (c.e - c.s > EXPR_TEXT_MAX)
        return 0;
    memcpy(raw, text + c.s, c.e - c.s);
    raw[c.e - c.s] = '\0';
    rwl_squeeze(raw, sq, sizeof sq);
    size_t l = strlen(sq);
    const char *t = l > 6 ? strrchr(sq, '*') : NULL;
    unsigned k = 0;
    char tail[48];
    if (strncmp(sq, "((", 2) != 0 || !t || sscanf(t, "*%u", &k) != 1 || k < 2)
        return 0;
    snprintf(tail, sizeof tail, ")*%u)", k);
    size_t tl = strlen(tail);
    return l > tl + 2 && strcmp(sq + l - tl, tail) == 0 ? k : 0;
}

/* The grid at one site for want: divided along the axis (want->grid_divisor: the component
 * becomes `((c) + K - 1) / K`, as two insertions around it so that grid_literals may still
 * rewrite block literals inside it; a grid without that component is 1 along the axis and
 * stays, since ceil(1 / K) is 1), or refused when it is already divided by another K (an
 * earlier apply) or cannot be read. *divided: an edit was made. */
static int divide_grid(job *j, const site *st, bool *divided)
{
    const rw_launch *w = j->want;
    *divided = false;
    espan parts[3];
    size_t n = 0;
    int rc = grid_parts(j, st, parts, &n);
    if (rc)
        return rc;
    unsigned want_k = w->grid_divisor ? w->grid_divisor : w->grid_multiplier;
    if (!n && want_k)
        return refuse(j, hk_asprintf(w->grid_divisor ? TR(RW_LA_CANNOT_DIVIDE) : TR(RW_LA_CANNOT_MULTIPLY),
                                     j->kernel, st->line, st->la->grid, want_k, "xyz"[w->grid_axis]));
    for (size_t d = 0; d < n; d++) {
        unsigned had = divided_by(j->text, parts[d]), hadm = multiplied_by(j->text, parts[d]);
        bool wanted = w->grid_divisor && d == w->grid_axis;
        bool wanted_m = w->grid_multiplier && d == w->grid_axis;
        if ((had && (!wanted || had != w->grid_divisor)) || (hadm && (!wanted_m || hadm != w->grid_multiplier)))
            return refuse(j, hk_asprintf(had ? (want_k ? TR(RW_LA_DIVIDED_ANOTHER) : TR(RW_LA_DIVIDED_SPEC))
                                             : want_k ? TR(RW_LA_MULTIPLIED_ANOTHER) : TR(RW_LA_MULTIPLIED_SPEC),
                                         j->kernel, st->line, st->la->grid, had ? had : hadm, "xyz"[d]));
        if (had || hadm)
            return HK_OK; /* divided (multiplied) as wanted already */
    }
    if (w->grid_multiplier && w->grid_axis >= n)
        return refuse(j, hk_asprintf(TR(RW_LA_NO_COMPONENT),
                                     j->kernel, st->line, st->la->grid, "xyz"[w->grid_axis],
                                     w->grid_multiplier));
    if (!want_k || w->grid_axis >= n)
        return HK_OK;   /* a grid without the axis: ceil(1 / K) is 1 */
    char tail[48];
    if (w->grid_divisor)
        snprintf(tail, sizeof tail, ") + %u - 1) / %u", w->grid_divisor, w->grid_divisor);
    else
        snprintf(tail, sizeof tail, ") * %u)", w->grid_multiplier);
    espan c = parts[w->grid_axis];
    if ((rc = rwl_edits_add(&j->es, c.s, c.s, "((")) ||
        (rc = rwl_edits_add(&j->es, c.e, c.e, tail)))
        return rc;
    *divided = true;
    return HK_OK;
}

/* Does expression span e mention identifier name or a literal of value old? */
static bool mentions(const char *text, espan e, const char *name, unsigned old)
{
    rw_toks ts = {0};
    bool hit = false;
    if (e.e <= e.s || rwl_lex(text, e.s, e.e, &ts) != HK_OK)
        goto out;
    for (size_t i = 0; i < ts.n && !hit; i++) {
        long long v;
        uint32_t de;
        if (name && rwl_tok_is_ident(&ts, i, name))
            hit = true;
        else if (old > 1 && ts.t[i].kind == T_NUMBER && decimal_literal(text, &ts.t[i], &v, &de) &&
                 v == old)
            hit = true;
    }
out:
    rwl_toks_free(&ts);
    return hit;
}

/* "@OFFSET": a byte of the original text, which fix_lines turns into its line in the new
 * text; passed as a %s, since the table's sentences hold no '@' (buf: 16 bytes). */
static const char *at_mark(char *buf, uint32_t off)
{
    snprintf(buf, 16, "@%u", off);
    return buf;
}

static int add_desc(job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int add_desc(job *j, const char *fmt, ...)
{
    char s[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    return hk_buf_printf(&j->desc, "%s%s", j->desc.len ? SEMI : "", s);
}

/* One site: its edits into j->es (or a refusal into j). */
static int do_site(job *j, site *st, const espan *allowed, size_t n_allowed, bool *needs_helper)
{
    const rw_launch *w = j->want;
    const char *text = j->text;
    int rc = HK_OK;
    char *block_name = NULL;
    bool want_known = w->block[0] != 0;
    bool changed = false;
    if (want_known && st->cur_known)
        changed = memcmp(w->block, st->cur, sizeof st->cur) != 0;
    if (want_known && !st->cur_known) {
        /* cannot tell whether the block changed: say so, edit the grid all the same */
        char b[48];
        fmt_block(w->block, b, sizeof b);
        char at[16];
        if ((rc = hk_buf_appends(&j->advice, j->advice.len ? SEMI : "")) ||
            (rc = hk_buf_printf(&j->advice, TR(RW_LA_BLOCK_UNREADABLE), j->kernel,
                                at_mark(at, st->la->span.start_byte), st->la->block, b)))
            return rc;
    }
    /* the block expression as a single name */
    {
        rw_toks bt = {0};
        if ((rc = rwl_lex(text, st->block.s, st->block.e, &bt)))
            return rc;
        if (bt.n == 1 && bt.t[0].kind == T_IDENT && !(block_name = rwl_tok_text(&bt, 0, 1)))
            rc = HK_ENOMEM;
        rwl_toks_free(&bt);
        if (rc)
            return rc;
    }
    if (w->sm_multiple && st->caller >= 0 &&
        j->m->funcs[st->caller].kind != AN_LAUNCHER) {
        rc = refuse(j, hk_asprintf(TR(RW_LA_ON_DEVICE),
                                   j->kernel, st->line));
        goto out;
    }
    if (w->sm_multiple && st->caller < 0) {
        rc = refuse(j, hk_asprintf(TR(RW_LA_OUTSIDE), j->kernel, st->line));
        goto out;
    }
    bool site_edited = false;
    char note[512] = "";
    if (w->sm_multiple) {
        char g[96];
        bool d3 = starts_with_dim3(text, st->grid);
        snprintf(g, sizeof g, "%s" HELPER "() * %u%s", d3 ? "dim3(" : "", w->grid_per_sm,
                 d3 ? ")" : "");
        *needs_helper = true;
        if (!squeezed_equal(text, st->grid.s, st->grid.e, g)) {
            if ((rc = rwl_edits_add(&j->es, st->grid.s, st->grid.e, g)))
                goto out;
            snprintf(note, sizeof note, TR(RW_LA_NOTE_GRID_SM), st->la->grid, g);
            site_edited = true;
        }
    } else if (mentions(text, st->grid, HELPER, 0)) {
        rc = refuse(j, hk_asprintf(TR(RW_LA_SM_GRID),
                                   j->kernel, st->line, st->la->grid));
        goto out;
    }
    if (!w->sm_multiple) {
        bool divided = false;
        if ((rc = divide_grid(j, st, &divided)) || j->refusal)
            goto out;
        if (divided) {
            snprintf(note, sizeof note, w->grid_divisor ? TR(RW_LA_NOTE_DIVIDED) : TR(RW_LA_NOTE_MULTIPLIED),
                     st->la->grid, w->grid_divisor ? w->grid_divisor : w->grid_multiplier, "xyz"[w->grid_axis]);
            site_edited = true;
        }
    }
    if (changed) {
        char nb[48], ob[48];
        fmt_block(w->block, nb, sizeof nb);
        fmt_block(st->cur, ob, sizeof ob);
        /* what else in the launch was written for the old block */
        for (size_t a = 0; a < st->n_args; a++)
            if (block_name && mentions(text, st->args[a], block_name, 0)) {
                rc = refuse(j, hk_asprintf(TR(RW_LA_PASSES_BLOCK),
                                           j->kernel, st->line, block_name));
                goto out;
            }
        if (st->shmem.e > st->shmem.s &&
            mentions(text, st->shmem, block_name, st->cur[1] == 1 && st->cur[2] == 1 ? st->cur[0] : 0)) {
            char *sh = span_text(text, st->shmem.s, st->shmem.e);
            rc = refuse(j, sh ? hk_asprintf(TR(RW_LA_SHMEM), j->kernel, st->line, sh)
                              : NULL);
            hk_free(sh);
            goto out;
        }
        long ti = block_name ? find_tunable(j->m, block_name, st->caller) : -1;
        bool via_tunable = false;
        if (ti >= 0) {
            const an_tunable *t = &j->m->tunables[ti];
            uint32_t other = 0;
            size_t others = count_uses(text, j->len, block_name, t->span.start_byte,
                                       t->span.end_byte, allowed, n_allowed, &other);
            if (others) {
                rc = refuse(j, hk_asprintf(TR(RW_LA_BLOCK_USED),
                                           j->kernel, st->line, block_name,
                                           rwl_line_at(text, other)));
                goto out;
            }
            if (w->block[1] != 1 || w->block[2] != 1) {
                rc = refuse(j, hk_asprintf(TR(RW_LA_BLOCK_NUMBER), j->kernel, st->line, block_name, nb));
                goto out;
            }
            if (t->value_span.end_byte <= t->value_span.start_byte ||
                t->value_span.end_byte > j->len) {
                rc = refuse(j, hk_asprintf(TR(RW_LA_NO_VALUE), j->kernel, st->line,
                                           block_name));
                goto out;
            }
            via_tunable = true;
            if (j->tunable_done != ti) {
                if (j->tunable_done >= 0) {
                    rc = refuse(j, hk_asprintf(TR(RW_LA_DIFFERENT_CONSTANTS), j->kernel));
                    goto out;
                }
                if ((rc = rwl_edits_add(&j->es, t->value_span.start_byte, t->value_span.end_byte,
                                        nb)))
                    goto out;
                j->tunable_done = ti;
                char at[16];
                if ((rc = add_desc(j, TR(RW_LA_TUNABLE_DESC), block_name, ob, nb,
                                   at_mark(at, t->value_span.start_byte))))
                    goto out;
            }
        }
        size_t lits = 0;
        if (!w->sm_multiple &&
            (rc = grid_literals(j, st, st->cur, w->block, block_name, via_tunable, &lits)))
            goto out;
        if (j->refusal)
            goto out;
        if (!via_tunable) {
            char nbe[64];
            bool d3 = starts_with_dim3(text, st->block) && w->block[1] == 1 && w->block[2] == 1;
            snprintf(nbe, sizeof nbe, d3 ? "dim3(%s)" : "%s", nb);
            if ((rc = rwl_edits_add(&j->es, st->block.s, st->block.e, nbe)))
                goto out;
        }
        if (!via_tunable || lits) {
            size_t l = strlen(note);
            snprintf(note + l, sizeof note - l, "%s", l ? COMMA : "");
            l = strlen(note);
            snprintf(note + l, sizeof note - l, lits ? TR(RW_LA_NOTE_BLOCK_LITERALS) : TR(RW_LA_NOTE_BLOCK), ob, nb);
            site_edited = true;
        }
    }
    if (site_edited) {
        char at[16];
        rc = add_desc(j, TR(RW_LA_SITE_DESC), j->kernel, at_mark(at, st->la->span.start_byte), note);
    }
out:
    hk_free(block_name);
    return rc;
}

/* Where the helper goes: before the top-level item holding byte at (the first launching
 * function), above the comment lines directly over it. */
static int helper_position(const char *text, uint32_t at, uint32_t *pos)
{
    rw_toks ts = {0};
    int rc = rwl_lex(text, 0, at, &ts);
    if (rc)
        goto out;
    int depth = 0;
    size_t item = 0;
    for (size_t i = 0; i < ts.n; i++) {
        if (rwl_tok_is(&ts, i, "{") || rwl_tok_is(&ts, i, "(") || rwl_tok_is(&ts, i, "["))
            depth++;
        else if (rwl_tok_is(&ts, i, "}") || rwl_tok_is(&ts, i, ")") || rwl_tok_is(&ts, i, "]")) {
            if (--depth == 0 && rwl_tok_is(&ts, i, "}"))
                item = i + 1;
        } else if (depth == 0 && rwl_tok_is(&ts, i, ";"))
            item = i + 1;
    }
    uint32_t p = item < ts.n ? ts.t[item].start : at;
    uint32_t floor = item > 0 && item - 1 < ts.n ? ts.t[item - 1].end : 0;
    uint32_t ls = p;
    while (ls > 0 && text[ls - 1] != '\n')
        ls--;
    bool alone = true;
    for (uint32_t i = ls; i < p; i++)
        alone = alone && isspace((unsigned char)text[i]);
    if (alone && ls >= floor) {
        p = ls;
        /* comment lines right above belong to the item */
        while (p > floor && p > 0) {
            uint32_t pe = p - 1, ps = pe;
            while (ps > 0 && text[ps - 1] != '\n')
                ps--;
            if (ps < floor)
                break;
            uint32_t f = ps;
            while (f < pe && (text[f] == ' ' || text[f] == '\t'))
                f++;
            if (f == pe || text[f] == '#' ||
                !(text[f] == '/' || text[f] == '*' || (pe >= 2 && text[pe - 1] == '/' && text[pe - 2] == '*')))
                break;
            p = ps;
        }
    }
    *pos = p;
out:
    rwl_toks_free(&ts);
    return rc;
}

static bool helper_defined(const char *text, size_t len)
{
    rw_toks ts = {0};
    bool found = false;
    if (rwl_lex(text, 0, (uint32_t)len, &ts) == HK_OK)
        for (size_t i = 1; i + 1 < ts.n && !found; i++)
            found = rwl_tok_is_ident(&ts, i, HELPER) && rwl_tok_is_ident(&ts, i - 1, "int") &&
                    rwl_tok_is(&ts, i + 1, "(");
    rwl_toks_free(&ts);
    return found;
}

/* Replaces each "@<offset>" in s by the line that offset of the original text has in the new
 * text (edits es applied). New string. */
static char *fix_lines(const char *s, const char *ntext, const rw_edits *es)
{
    struct hk_buf b;
    hk_buf_init(&b, 1 << 20);
    int rc = HK_OK;
    for (const char *p = s; *p && !rc; p++) {
        if (*p != '@' || !isdigit((unsigned char)p[1])) {
            rc = hk_buf_append(&b, p, 1);
            continue;
        }
        char *end;
        unsigned long off = strtoul(p + 1, &end, 10);
        long long delta = 0;
        /* edits wholly before off move it; an insertion at off itself goes before it
         * in the new text, and the line named is then the inserted text's first */
        for (size_t i = 0; i < es->n; i++)
            if (es->e[i].start < off && es->e[i].end <= off)
                delta += (long long)strlen(es->e[i].repl) - (es->e[i].end - es->e[i].start);
        rc = hk_buf_printf(&b, "%d", rwl_line_at(ntext, (uint32_t)((long long)off + delta)));
        p = end - 1;
    }
    if (rc) {
        hk_buf_free(&b);
        return NULL;
    }
    return b.data ? hk_buf_steal(&b) : hk_strdup("");
}

/* Fills rep from the applied edits (es sorted back to front by rwl_edits_apply). */
static int fill_report(rw_launch_report *rep, const char *text, const rw_edits *es,
                       const char *ntext, size_t nlen)
{
    if (!es->n)
        return HK_OK;
    if (!(rep->edits = hk_calloc(es->n, sizeof *rep->edits)))
        return HK_ENOMEM;
    long long delta = 0;
    for (size_t k = es->n; k-- > 0;) {
        const rw_edit *e = &es->e[k];
        rw_launch_edit *o = &rep->edits[rep->n_edits++];
        o->start = e->start;
        o->end = e->end;
        o->line = rwl_line_at(text, e->start);
        if (!(o->text = hk_strdup(e->repl)))
            return HK_ENOMEM;
        size_t ns = (size_t)((long long)e->start + delta);
        size_t ne = ns + strlen(e->repl);
        delta += (long long)strlen(e->repl) - (e->end - e->start);
        while (ns > 0 && ntext[ns - 1] != '\n')
            ns--;
        while (ne < nlen && ntext[ne] != '\n')
            ne++;
        if (!(o->after = hk_strndup(ntext + ns, ne - ns)))
            return HK_ENOMEM;
    }
    return HK_OK;
}

int rw_launch_config(const char *text, size_t len, const an_model *m, const char *kernel,
                     const rw_launch *want, bool hip, rw_result *r, rw_launch_report *rep)
{
    if (!text || !m || !kernel || !*kernel || !want || !r || len > RW_TEXT_MAX)
        return HK_EINVAL;
    memset(r, 0, sizeof *r);
    if (rep)
        memset(rep, 0, sizeof *rep);
    for (int d = 0; d < 3; d++)
        if (want->block[d] > 1024 || want->base_block[d] > 1024 ||
            (want->block[0] && !want->block[d]))
            return HK_EINVAL;
    if (want->sm_multiple && (want->grid_per_sm < 1 || want->grid_per_sm > 65535))
        return HK_EINVAL;
    if (want->grid_divisor && (want->sm_multiple || want->grid_divisor < 2 ||
                               want->grid_divisor > 64 || want->grid_axis > 2))
        return HK_EINVAL;
    if (want->grid_multiplier && (want->sm_multiple || want->grid_divisor || want->grid_multiplier < 2 ||
                                  want->grid_multiplier > 64 || want->grid_axis > 2))
        return HK_EINVAL;
    job j = {.text = text, .len = len, .m = m, .kernel = kernel, .want = want, .tunable_done = -1};
    hk_buf_init(&j.desc, 1 << 16);
    hk_buf_init(&j.advice, 1 << 16);
    site *sites = NULL;
    espan *allowed = NULL;
    size_t n_sites = 0;
    char *desc = NULL;
    int rc = HK_OK;

    for (size_t l = 0; l < m->n_launches; l++)
        n_sites += same_kernel(m->launches[l].kernel, kernel);
    if (n_sites > MAX_SITES) {
        rc = rwl_not_applicable(r, hk_asprintf(TR(RW_LA_TOO_MANY), kernel, n_sites,
                                               MAX_SITES));
        goto out;
    }
    if (n_sites && (!(sites = hk_calloc(n_sites, sizeof *sites)) ||
                    !(allowed = hk_calloc(2 * n_sites, sizeof *allowed)))) {
        rc = HK_ENOMEM;
        goto out;
    }
    n_sites = 0;
    bool any_hip = hip;
    for (size_t l = 0; l < m->n_launches; l++) {
        const an_launch *la = &m->launches[l];
        if (!same_kernel(la->kernel, kernel))
            continue;
        if (la->span.end_byte > len || la->span.start_byte >= la->span.end_byte) {
            rc = HK_EINVAL;
            goto out;
        }
        site *st = &sites[n_sites++];
        st->la = la;
        st->caller = la->caller >= 0 && (size_t)la->caller < m->n_funcs ? la->caller : -1;
        st->line = rwl_line_at(text, la->span.start_byte);
        any_hip = any_hip || la->form == AN_LAUNCH_HIP;
        rc = site_locate(text, st);
        if (rc == HK_ENOMEM)
            goto out;
        if (rc) {
            rc = rwl_not_applicable(r, hk_asprintf(TR(RW_LA_NOT_FOUND), kernel, st->line));
            goto out;
        }
        allowed[2 * (n_sites - 1)] = st->grid;
        allowed[2 * (n_sites - 1) + 1] = st->block;
        eval_ctx ec = {.text = text, .len = len, .m = m, .caller = st->caller,
                       .before = la->span.start_byte};
        rc = eval_block(&ec, st->block.s, st->block.e, st->cur);
        if (rc == HK_ENOMEM)
            goto out;
        st->cur_known = rc == HK_OK;
        if (!st->cur_known && want->base_block[0]) {
            memcpy(st->cur, want->base_block, sizeof st->cur);
            st->cur_known = true;
        }
        rc = HK_OK;
    }
    if (rep)
        rep->n_sites = n_sites;

    bool needs_helper = false;
    for (size_t i = 0; i < n_sites && !j.refusal; i++) {
        size_t before = j.es.n;
        if ((rc = do_site(&j, &sites[i], allowed, 2 * n_sites, &needs_helper)))
            goto out;
        if (rep && j.es.n > before)
            rep->n_sites_edited++;
    }
    if (j.refusal) {
        rc = rwl_not_applicable(r, j.refusal);
        j.refusal = NULL;
        goto out;
    }
    if (needs_helper && !helper_defined(text, len)) {
        uint32_t first = UINT32_MAX, pos = 0;
        char at[16];
        for (size_t i = 0; i < n_sites; i++)
            if (m->funcs[sites[i].caller].span.start_byte < first)
                first = m->funcs[sites[i].caller].span.start_byte;
        if ((rc = helper_position(text, first, &pos)) ||
            (rc = rwl_edits_add(&j.es, pos, pos, any_hip ? helper_hip : helper_cuda)) ||
            (rc = add_desc(&j, TR(RW_LA_HELPER_ADDED), at_mark(at, pos))))
            goto out;
        if (rep)
            rep->helper_inserted = true;
    }

    if (!n_sites) {
        /* nothing to edit here: say how it must be launched when that matters */
        char b[48] = "";
        if (want->block[0])
            fmt_block(want->block, b, sizeof b);
        bool differs = want->sm_multiple || want->grid_divisor || want->grid_multiplier ||
                       (want->block[0] && memcmp(want->block, want->base_block,
                                                 sizeof want->block) != 0);
        if (differs) {
            char g[96];
            if (want->sm_multiple)
                snprintf(g, sizeof g, TR(RW_LA_WITH_SM_GRID), want->grid_per_sm);
            else if (want->grid_divisor)
                snprintf(g, sizeof g, TR(RW_LA_WITH_DIVIDED),
                         want->grid_divisor, "xyz"[want->grid_axis]);
            else if (want->grid_multiplier)
                snprintf(g, sizeof g, TR(RW_LA_WITH_MULTIPLIED),
                         want->grid_multiplier, "xyz"[want->grid_axis]);
            else
                snprintf(g, sizeof g, "%s", TR(RW_LA_WITH_SPEC_GRID));
            desc = b[0] ? hk_asprintf(TR(RW_LA_NO_SITE_BLOCK), kernel, b, g)
                        : hk_asprintf(TR(RW_LA_NO_SITE_WITH), kernel, g);
            if (rep)
                rep->advice = true;
        } else {
            desc = hk_asprintf(TR(RW_LA_NO_SITE), kernel);
        }
    } else if (!j.es.n) {
        if (j.advice.len) {
            desc = fix_lines(j.advice.data, text, &j.es);
            if (rep)
                rep->advice = true;
        } else {
            /* one sentence per number: Chinese has no plural */
            desc = hk_asprintf(n_sites > 1 ? TR(RW_LA_MATCH_N) : TR(RW_LA_MATCH_1), kernel);
        }
    }
    if (!j.es.n) {
        if (!desc) {
            rc = HK_ENOMEM;
            goto out;
        }
        if (!(r->text = hk_strndup(text, len))) {
            rc = HK_ENOMEM;
            goto out;
        }
        r->len = len;
        r->applicable = true;
        r->description = desc;
        desc = NULL;
        goto out;
    }
    if (j.advice.len && (rc = hk_buf_printf(&j.desc, "%s%s", SEMI, j.advice.data)))
        goto out;
    rc = rwl_finish(text, len, m, kernel, &j.es, hk_buf_steal(&j.desc), r);
    if (rc == HK_OK && r->applicable) {
        char *fixed = fix_lines(r->description, r->text, &j.es);
        if (!fixed) {
            rc = HK_ENOMEM;
            goto out;
        }
        hk_free(r->description);
        r->description = fixed;
        if (rep && (rc = fill_report(rep, text, &j.es, r->text, r->len)))
            goto out;
    }
out:
    if (rc != HK_OK && rc != HK_EPARSE) {
        rw_result_free(r);
        rw_launch_report_free(rep);
    }
    for (size_t i = 0; sites && i < n_sites; i++)
        hk_free(sites[i].args);
    hk_free(sites);
    hk_free(allowed);
    hk_free(desc);
    hk_free(j.refusal);
    hk_buf_free(&j.desc);
    hk_buf_free(&j.advice);
    rwl_edits_free(&j.es);
    return rc;
}
