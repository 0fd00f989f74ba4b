/* The rewrite registry (registry.h): the one table of descriptors, the parameter checks, the
 * driver, and the refusal locator that turns a rewrite's reason into the construct that
 * stopped it and its line. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "core/hk.h"
#include "core/i18n.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* The descriptors, each defined in its rewrite's file. */
extern const rw_descriptor rw_launch_bounds_desc, rw_restrict_desc, rw_set_tunable_desc,
    rw_grid_stride_desc, rw_vectorize_desc, rw_readonly_loads_desc, rw_unroll_desc,
    rw_fast_math_desc, rw_tiled_transpose_desc, rw_warp_reduce_desc, rw_block_reduce_desc, rw_block_scan_desc,
    rw_privatized_histogram_desc, rw_online_softmax_desc, rw_online_layernorm_desc,
    rw_blas_substitution_desc, rw_tiled_gemm_desc, rw_warp_rows_desc, rw_grid_stride_2d_desc,
    rw_histogram_lane_replicas_desc, rw_invariant_table_desc, rw_stencil_window_desc, rw_stencil_tile_1d_desc,
    rw_register_accumulators_desc, rw_split_k_columns_desc, rw_ilp_accumulators_desc,
    rw_tiled_permute_desc, rw_double_narrowing_desc, rw_coarsen_desc, rw_uniform_tiles_desc,
    rw_fast_divmod_desc, rw_split_item_loop_desc, rw_specialize_constants_desc,
    rw_pow_small_exponent_desc, rw_split_grid_partials_desc, rw_unroll_jam_scan_desc,
    rw_load_batching_desc, rw_barrier_load_batching_desc, rw_merge_barriers_desc, rw_periodic_trips_desc, rw_channel_chunks_desc,
    rw_channel_lanes_desc,
    rw_float_literals_desc, rw_split_topk_scan_desc, rw_staged_gather_desc,
    rw_split_block_item_desc, rw_register_carry_desc, rw_register_threshold_desc, rw_cascade_guard_desc,
    rw_coalesced_columns_desc, rw_table_hoist_desc, rw_digit_order_desc, rw_grid_y_lanes_desc,
    rw_spread_lanes_desc, rw_window_lanes_desc, rw_window_warp_desc, rw_shared_padding_desc, rw_fused_blocks_desc,
    rw_warp_row_tree_desc, rw_store_forward_desc, rw_block_online_softmax_desc, rw_vectorize_2d_desc,
    rw_column_passes_desc, rw_interior_taps_desc, rw_occupancy_regs_desc;

/* Every rewrite, once. The order is the listing order (skills, `hkls skills`). */
static const rw_descriptor *const table[] = {
    &rw_launch_bounds_desc,
    &rw_restrict_desc,
    &rw_set_tunable_desc,
    &rw_grid_stride_desc,
    &rw_vectorize_desc,
    &rw_readonly_loads_desc,
    &rw_unroll_desc,
    &rw_fast_math_desc,
    &rw_pow_small_exponent_desc,
    &rw_tiled_transpose_desc,
    &rw_tiled_permute_desc,
    &rw_digit_order_desc,
    &rw_grid_y_lanes_desc,
    &rw_spread_lanes_desc,
    &rw_column_passes_desc,
    &rw_warp_reduce_desc,
    &rw_block_reduce_desc,
    &rw_block_scan_desc,
    &rw_warp_row_tree_desc,
    &rw_store_forward_desc,
    &rw_privatized_histogram_desc,
    &rw_online_softmax_desc,
    &rw_block_online_softmax_desc,
    &rw_online_layernorm_desc,
    &rw_blas_substitution_desc,
    &rw_tiled_gemm_desc,
    &rw_warp_rows_desc,
    &rw_grid_stride_2d_desc,
    &rw_vectorize_2d_desc,
    &rw_histogram_lane_replicas_desc,
    &rw_invariant_table_desc,
    &rw_stencil_window_desc,
    &rw_stencil_tile_1d_desc,
    &rw_interior_taps_desc,
    &rw_register_accumulators_desc,
    &rw_split_k_columns_desc,
    &rw_coalesced_columns_desc,
    &rw_ilp_accumulators_desc,
    &rw_unroll_jam_scan_desc,
    &rw_split_topk_scan_desc,
    &rw_window_lanes_desc,
    &rw_window_warp_desc,
    &rw_load_batching_desc,
    &rw_barrier_load_batching_desc,
    &rw_merge_barriers_desc,
    &rw_periodic_trips_desc,
    &rw_channel_chunks_desc,
    &rw_channel_lanes_desc,
    &rw_staged_gather_desc,
    &rw_double_narrowing_desc,
    &rw_float_literals_desc,
    &rw_register_carry_desc,
    &rw_register_threshold_desc,
    &rw_cascade_guard_desc,
    &rw_shared_padding_desc,
    &rw_fused_blocks_desc,
    &rw_coarsen_desc,
    &rw_uniform_tiles_desc,
    &rw_table_hoist_desc,
    &rw_fast_divmod_desc,
    &rw_split_item_loop_desc,
    &rw_split_block_item_desc,
    &rw_split_grid_partials_desc,
    &rw_specialize_constants_desc,
    &rw_occupancy_regs_desc,
};

size_t rw_registry_count(void) { return HK_ARRAY_LEN(table); }

const rw_descriptor *rw_registry_at(size_t i)
{
    return i < HK_ARRAY_LEN(table) ? table[i] : NULL;
}

const rw_descriptor *rw_find(const char *name)
{
    for (size_t i = 0; name && i < HK_ARRAY_LEN(table); i++)
        if (!strcmp(table[i]->name, name))
            return table[i];
    return NULL;
}

int rw_param_index(const rw_descriptor *d, const char *name)
{
    for (size_t i = 0; d && name && i < d->n_params; i++)
        if (!strcmp(d->params[i].name, name))
            return (int)i;
    return -1;
}

static bool param_allows(const rw_param *p, int v)
{
    switch (p->type) {
    case RW_PARAM_BOOL:
        return v == 0 || v == 1;
    case RW_PARAM_ENUM:
        for (size_t i = 0; i < p->n_values; i++)
            if (p->values[i] == v)
                return true;
        return false;
    case RW_PARAM_INT:
    default:
        return v >= p->min && v <= p->max;
    }
}

int rw_params_resolve(const rw_descriptor *d, const int *in, int *out, char *msg, size_t msg_size)
{
    if (msg && msg_size)
        msg[0] = '\0';
    for (size_t i = 0; i < RW_MAX_PARAMS; i++)
        out[i] = in ? in[i] : 0;
    for (size_t i = 0; i < d->n_params && i < RW_MAX_PARAMS; i++) {
        const rw_param *p = &d->params[i];
        if (out[i] == 0)
            out[i] = p->def;
        if (!param_allows(p, out[i])) {
            if (msg && msg_size)
                snprintf(msg, msg_size, EN(RW_PARAM_NOT_ALLOWED), d->name, p->name,
                         out[i]);
            return HK_EINVAL;
        }
    }
    return HK_OK;
}

/* ---- the refusal locator ---- */

/* A construct a reason may name: words of the reason that point at it, and how to find it
 * in the kernel's tokens. Checked in order: the more specific constructs first. */
typedef struct {
    const char *construct;
    const char *const *words;   /* any of them in the reason (NULL-terminated) */
    const char *const *tokens;  /* the first token equal to one of them (NULL-terminated);
                                 * NULL: the kernel's template prefix */
    bool prefix;                /* tokens are prefixes ("atomic" finds atomicAdd) */
    bool whole;                 /* searched from the definition's start (its signature),
                                 * else from the body's */
} construct_rule;

#define W(...) (const char *const[]){__VA_ARGS__, NULL}

static const construct_rule rules[] = {
    {"template kernel", W("template"), W("template"), false, true},
    {"__launch_bounds__", W("__launch_bounds__"), W("__launch_bounds__"), false, true},
    {"grid-stride loop", W("grid-stride", "gridDim", "hk_tid", "hk_nv"), W("gridDim"), false, false},
    {"__syncthreads()", W("synchroniz", "barrier", "__syncthreads"),
     W("__syncthreads", "__syncwarp", "__syncthreads_or", "__syncthreads_and"), false, false},
    {"atomic", W("atomic"), W("atomic"), true, false},
    {"__shared__ array", W("shared memory", "__shared__", "shared array", "shared-memory"),
     W("__shared__"), false, false},
    {"goto/break/continue", W("goto", "break", "continue"), W("goto", "break", "continue"), false,
     false},
    {"return", W("return"), W("return"), false, false},
    {"loop", W("loop", "for-loop"), W("for", "while", "do"), false, false},
    {"thread index", W("threadIdx", "blockIdx", "blockDim", "index declaration", "row index",
                       "1D index", "thread indices", "thread's coordinates"),
     W("threadIdx", "blockIdx", "blockDim"), false, false},
    {"bounds check", W("bounds check", "bound", "guard", "condition"), W("if"), false, false},
    {"accumulator", W("accumulator", "sum", "maximum", "mean", "variance"), W("float", "double"),
     false, false},
    {"parameter list", W("parameter", "float", "double", "element type", "counter type"),
     W("__global__"), false, true},
    {"math call", W("expf", "costly math", "intrinsics"),
     W("expf", "logf", "sinf", "cosf", "powf", "__expf", "exp", "pow"), false, false},
};

static bool reason_names(const char *reason, const char *const *words)
{
    for (size_t i = 0; words[i]; i++)
        if (strstr(reason, words[i]))
            return true;
    return false;
}

/* First token of ts from index from equal to (or, with prefix, starting with) one of
 * tokens: its byte, or -1. */
static long first_token(const rw_toks *ts, size_t from, const char *const *tokens, bool prefix)
{
    for (size_t k = from; k < ts->n; k++) {
        const char *s = ts->text + ts->t[k].start;
        size_t l = ts->t[k].end - ts->t[k].start;
        for (size_t i = 0; tokens[i]; i++) {
            size_t tl = strlen(tokens[i]);
            if ((prefix ? l > tl : l == tl) && !memcmp(s, tokens[i], tl))
                return (long)ts->t[k].start;
        }
    }
    return -1;
}

/* What the statement starting at token k is, as a construct name. */
static const char *statement_construct(const rw_toks *ts, size_t k)
{
    if (rwl_tok_is(ts, k, "for")) {
        size_t c = rwl_match_close(ts, k + 1);
        for (size_t j = k + 1; j < c && j < ts->n; j++)
            if (rwl_tok_is(ts, j, "gridDim"))
                return "grid-stride loop";
        return "loop";
    }
    if (rwl_tok_is(ts, k, "while") || rwl_tok_is(ts, k, "do"))
        return "loop";
    if (rwl_tok_is(ts, k, "__shared__") || rwl_tok_is(ts, k, "extern"))
        return "__shared__ array";
    if (rwl_tok_is(ts, k, "if"))
        return "bounds check";
    if (rwl_tok_is(ts, k, "return"))
        return "return";
    if (rwl_tok_is(ts, k, "__syncthreads"))
        return "__syncthreads()";
    return "statement";
}

/* Reasons that say the expected start of the body is missing: the construct is then what
 * the body starts with instead (a grid-stride loop, a shared array, ...). */
static const char *const missing_start[] = {
    "does not start with an index declaration", "no `int i = ", "has no row index", /* i18n: not for people */
    "not a 2-D kernel: no", "does not have one 1D", NULL}; /* i18n: not for people */

void rw_refusal_locate(const rw_context *ctx, const char *text, rw_refusal *why)
{
    memset(why, 0, sizeof *why);
    const char *reason = text ? text : EN(RW_NOT_APPLICABLE);
    /* "X not applicable to kernel K: why" -> "why" */
    const char *colon = strstr(reason, "not applicable to kernel "); /* i18n: not for people */
    if (colon && (colon = strchr(colon, ':')) && colon[1] == ' ')
        reason = colon + 2;
    const an_function *f = ctx->m && ctx->kernel < ctx->m->n_funcs ? &ctx->m->funcs[ctx->kernel]
                                                                   : NULL;
    int line = 0;
    const char *construct = NULL;
    /* a reason that starts with its construct and line ("statement at line 5: ...") says both */
    char lead[64];
    const char *lat = strstr(reason, " at line ");
    if (lat && lat > reason && (size_t)(lat - reason) < sizeof lead && lat[9] >= '1' && lat[9] <= '9') {
        char *end = NULL;
        long n = strtol(lat + 9, &end, 10);
        bool words = true;
        for (const char *c = reason; c < lat && words; c++)
            words = (*c >= 'a' && *c <= 'z') || *c == ' ' || *c == '_' || *c == '-';
        if (words && end && end[0] == ':' && end[1] == ' ' && n > 0 && n < 1000000) {
            snprintf(lead, sizeof lead, "%.*s", (int)(lat - reason), reason);
            why->line = (int)n;
            snprintf(why->construct, sizeof why->construct, "%s", lead);
            snprintf(why->reason, sizeof why->reason, "%s", reason);
            return;
        }
    }
    /* a line the rewrite already gave ("the launch at line 12 ...") is exact */
    const char *ln = strstr(reason, "line ");
    if (ln && ln[5] >= '1' && ln[5] <= '9') {
        line = atoi(ln + 5);
        construct = "as stated";
    }
    rw_toks ts = {0};
    bool lexed = f && f->span.end_byte > f->span.start_byte && f->span.end_byte <= ctx->len &&
                 rwl_lex(ctx->text, f->span.start_byte, f->span.end_byte, &ts) == HK_OK;
    size_t body = 0;   /* the body's first token (its brace) */
    while (lexed && body < ts.n && ts.t[body].start < f->body_span.start_byte)
        body++;
    if (!line && lexed && body + 1 < ts.n && reason_names(reason, missing_start)) {
        construct = statement_construct(&ts, body + 1);
        line = rwl_line_at(ctx->text, ts.t[body + 1].start);
    }
    for (size_t r = 0; !line && f && r < HK_ARRAY_LEN(rules); r++) {
        if (!reason_names(reason, rules[r].words))
            continue;
        long at = lexed ? first_token(&ts, rules[r].whole ? 0 : body, rules[r].tokens,
                                      rules[r].prefix)
                        : -1;
        if (at < 0)
            continue;
        line = rwl_line_at(ctx->text, (size_t)at);
        construct = rules[r].construct;
    }
    if (!line && f) {
        /* nothing the reason names is in the body: the matching stopped at its start */
        bool first = lexed && body + 1 < ts.n;
        line = rwl_line_at(ctx->text, first ? ts.t[body + 1].start : f->body_span.start_byte);
        construct = first ? statement_construct(&ts, body + 1) : "kernel body";
    }
    rwl_toks_free(&ts);
    why->line = line;
    snprintf(why->construct, sizeof why->construct, "%s", construct ? construct : "kernel");
    if (construct && !strcmp(construct, "as stated"))
        snprintf(why->reason, sizeof why->reason, "%s", reason);
    else
        snprintf(why->reason, sizeof why->reason, EN(RW_REFUSAL_AT), why->construct, line,
                 reason);
}

/* ---- the driver ---- */

static int check_context(const rw_context *ctx)
{
    if (!ctx || !ctx->text || !ctx->m || ctx->kernel >= ctx->m->n_funcs ||
        ctx->m->funcs[ctx->kernel].kind != AN_KERNEL)
        return HK_EINVAL;
    return HK_OK;
}

int rw_applies(const rw_descriptor *d, const rw_context *ctx, const int *params, rw_refusal *why)
{
    memset(why, 0, sizeof *why);
    int p[RW_MAX_PARAMS];
    int rc = check_context(ctx);
    if (rc || !d || (rc = rw_params_resolve(d, params, p, why->reason, sizeof why->reason)))
        return rc ? rc : HK_EINVAL;
    if (d->applies)
        return d->applies(ctx, p, why);
    /* no recognizer of its own yet: the emitter decides, its text is dropped */
    rw_result r;
    rc = d->emit(ctx, p, &r);
    if ((rc == HK_OK || rc == HK_EPARSE) && !r.applicable)
        rw_refusal_locate(ctx, r.description, why);
    rw_result_free(&r);
    return rc == HK_EPARSE ? HK_OK : rc;
}

int rw_apply(const rw_descriptor *d, const rw_context *ctx, const int *params, rw_result *out,
             rw_refusal *why)
{
    memset(out, 0, sizeof *out);
    rw_refusal local;
    if (!why)
        why = &local;
    memset(why, 0, sizeof *why);
    int p[RW_MAX_PARAMS];
    int rc = check_context(ctx);
    if (rc || !d)
        return HK_EINVAL;
    if ((rc = rw_params_resolve(d, params, p, why->reason, sizeof why->reason))) {
        out->description = hk_strdup(why->reason);
        return out->description ? rc : HK_ENOMEM;
    }
    if (d->applies) {
        if ((rc = d->applies(ctx, p, why)))
            return rc;
        if (why->line) {
            out->description = hk_asprintf(EN(RW_NOT_APPLICABLE_TO), d->name,
                                           ctx->m->funcs[ctx->kernel].name, why->reason);
            return out->description ? HK_OK : HK_ENOMEM;
        }
    }
    rc = d->emit(ctx, p, out);
    if ((rc == HK_OK || rc == HK_EPARSE) && !out->applicable)
        rw_refusal_locate(ctx, out->description, why);
    return rc;
}

int rw_apply_named(const char *name, const rw_context *ctx, const int *params, rw_result *out,
                   rw_refusal *why)
{
    const rw_descriptor *d = rw_find(name);
    if (!d) {
        memset(out, 0, sizeof *out);
        if (why)
            memset(why, 0, sizeof *why);
        return HK_EINVAL;
    }
    return rw_apply(d, ctx, params, out, why);
}

int rw_model_classify(const char *text, size_t len, const char *name, km_kernel **k, km_class *c,
                      char *why, size_t n)
{
    *k = NULL;
    why[0] = '\0';
    char bwhy[200];
    int rc = km_build(text, len, name, k, bwhy, sizeof bwhy);
    if (rc == HK_ENOMEM)
        return rc;
    if (rc) {
        snprintf(why, n, EN(RW_MODEL_CANNOT_BUILD), bwhy);
        return HK_OK;
    }
    if ((rc = km_classify(*k, c))) {
        km_free(*k);
        *k = NULL;
    }
    return rc;
}
