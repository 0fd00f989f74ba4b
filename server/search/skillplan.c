/* Skills to structural rewrites for the search (see skillplan.h). Parameter names are
 * the rewrite's arguments (width, factor, tile, bins, tile_m/n/k, math) or launch settings
 * (block_size, blocks_per_sm, launch_pairs); docs/skills.md lists them. */
#include "search/skillplan.h"

#include "core/hk.h"

#include <math.h>
#include <string.h>

enum sk_class skillplan_class(bool compute_bound, double pct_of_bound)
{
    if (isnan(pct_of_bound))
        return SK_CLASS_COUNT;
    if (compute_bound)
        return SK_COMPUTE_BOUND;
    return pct_of_bound < 20.0 ? SK_LATENCY_BOUND : SK_MEMORY_BOUND;
}

enum sk_class skillplan_static_class(double flop_per_byte)
{
    if (!isfinite(flop_per_byte) || flop_per_byte < 0)
        return SK_CLASS_COUNT;
    if (flop_per_byte < SKILLPLAN_RIDGE_LOW)
        return SK_MEMORY_BOUND;
    if (flop_per_byte > SKILLPLAN_RIDGE_HIGH)
        return SK_COMPUTE_BOUND;
    return SK_CLASS_COUNT;
}

/* Where a parameter's value goes in a search_struct: a launch setting, or the slot of the
 * skill's rewrite's parameter of that name (registry.h); false for names it has no place
 * for (those are for LLM engines or other rewrites). */
static bool set_param(search_struct *st, const rw_descriptor *d, const char *name, long v)
{
    if (v < 0 || v > 1 << 20)
        return false;
    int slot = rw_param_index(d, name);
    if (slot >= 0 && slot < RW_MAX_PARAMS)
        st->params[slot] = (int)v;
    else if (!strcmp(name, "block_size"))
        st->block_size = (unsigned)v;
    else if (!strcmp(name, "blocks_per_sm"))
        st->blocks_per_sm = (unsigned)v;
    else
        return false;
    return true;
}

static int push(skillplan *p, size_t *cap, const search_struct *st)
{
    if (p->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        search_struct *v = hk_realloc(p->v, nc * sizeof *v);
        if (!v)
            return HK_ENOMEM;
        p->v = v;
        *cap = nc;
    }
    p->v[p->n++] = *st;
    return HK_OK;
}

/* true when the skill's `launch_pairs: [1]` pairs its launch lists: the k-th block_size
 * goes with the k-th blocks_per_sm (lists of one length), since threads per block and
 * blocks per SM trade off -- 1024 x 2 and 512 x 3 both fill an H200 SM, 512 x 2 does not. */
static bool launch_paired(const sk_skill *sk)
{
    json_t *on = json_array_get(json_object_get(sk->params, "launch_pairs"), 0);
    size_t nb = json_array_size(json_object_get(sk->params, "block_size"));
    return json_is_integer(on) && json_integer_value(on) == 1 && nb > 1 &&
           nb == json_array_size(json_object_get(sk->params, "blocks_per_sm"));
}

/* The skill's choices: every parameter at its first value, then each parameter in turn
 * at each of its other values (the others at their first); with paired launch lists,
 * the launch pairs in order come first, as one parameter. */
static search_struct first_choice(const sk_skill *sk)
{
    search_struct first = {.skill = sk->id, .rewrite = sk->rewrite->name};
    const char *key;
    json_t *vals;
    json_object_foreach(sk->params, key, vals) {
        json_t *v0 = json_array_get(vals, 0);
        if (json_is_integer(v0))
            set_param(&first, sk->rewrite, key, (long)json_integer_value(v0));
    }
    return first;
}

static int expand(skillplan *p, size_t *cap, const sk_skill *sk)
{
    search_struct first = first_choice(sk);
    const char *key;
    json_t *vals;
    int rc = push(p, cap, &first);
    unsigned rank = 1;
    bool paired = launch_paired(sk);
    if (paired) {
        json_t *bs = json_object_get(sk->params, "block_size");
        json_t *bp = json_object_get(sk->params, "blocks_per_sm");
        for (size_t i = 1; i < json_array_size(bs) && rank < SKILLPLAN_CHOICES && !rc; i++) {
            json_t *b = json_array_get(bs, i), *g = json_array_get(bp, i);
            search_struct st = first;
            if (!json_is_integer(b) || !json_is_integer(g) ||
                !set_param(&st, sk->rewrite, "block_size", (long)json_integer_value(b)) ||
                !set_param(&st, sk->rewrite, "blocks_per_sm", (long)json_integer_value(g)))
                continue;
            st.rank = rank++;
            rc = push(p, cap, &st);
        }
    }
    json_object_foreach(sk->params, key, vals) {
        if (paired && (!strcmp(key, "block_size") || !strcmp(key, "blocks_per_sm")))
            continue;
        for (size_t i = 1; i < json_array_size(vals) && rank < SKILLPLAN_CHOICES && !rc; i++) {
            json_t *v = json_array_get(vals, i);
            search_struct st = first;
            if (!json_is_integer(v) || !set_param(&st, sk->rewrite, key, (long)json_integer_value(v)))
                continue;
            st.rank = rank++;
            rc = push(p, cap, &st);
        }
    }
    return rc;
}

/* A rewrite that keeps the kernel's own launch (block_reduce's tree path: the body is the
 * kernel's, under the spec's block and grid) runs the same program at every block size and
 * blocks per SM, so the search skips those choices when it meets them (search.c). They
 * are dropped here instead, before they take ranks: the choices that change the program
 * (block_reduce's key form, a pair tree's 2-barrier variant) then follow the first choice
 * as the skill's second, among the early proposals of a small budget, instead of behind
 * every launch-only choice (mmcv's FPS had key=1 at rank 5, its 7th candidate, with the wild
 * run's budget of 4). Choices [first, p->n) are sk's; ctx NULL: kept as they are. */
static int drop_kept_launch(skillplan *p, size_t first, const sk_skill *sk, const rw_context *ctx)
{
    if (!ctx || p->n - first < 2)
        return HK_OK;
    rw_result r;
    int rc = rw_apply(sk->rewrite, ctx, p->v[first].params, &r, NULL);
    bool kept = rc == HK_OK && r.applicable && r.keeps_launch;
    rw_result_free(&r);
    if (rc == HK_ENOMEM)
        return rc;
    if (!kept)
        return HK_OK;   /* a refusal or any other failure: the search decides per choice */
    size_t w = first + 1;
    unsigned rank = 1;
    for (size_t c = first + 1; c < p->n; c++) {
        if (!memcmp(p->v[c].params, p->v[first].params, sizeof p->v[c].params))
            continue;   /* the first choice's program at another launch */
        p->v[w] = p->v[c];
        p->v[w++].rank = rank++;
    }
    p->n = w;
    return HK_OK;
}

static bool used_already(const skillplan *p, const sk_skill *sk)
{
    for (size_t i = 0; i < p->n_used; i++)
        if (p->used[i] == sk)
            return true;
    return false;
}

/* A skill whose query missed still fits when its rewrite applies to ctx's kernel at the
 * skill's first choice: the rewrite's own recognizer reads the kernel model (index
 * variables, macros, helper types), which a query over the text cannot, so a kernel written
 * unlike the query's example is not left to the generic axes. Structural rewrites of the
 * kernel's class too (the caller decides): mmcv writes every elementwise kernel in
 * CUDA_1D_KERNEL_LOOP, whose threadIdx.x the vectorize skill's pattern never sees, while
 * vectorize applies. The metrics still decide (sk_matches_metrics). */
static int applies_by_model(const sk_skill *sk, const rw_context *ctx, bool *match)
{
    *match = false;
    if (!ctx)
        return HK_OK;
    /* at any of its choices: vectorize's first, width 8, is for 16-bit types; float
     * kernels take its width 4 */
    skillplan choices = {0};
    size_t cap = 0;
    int rc = expand(&choices, &cap, sk);
    for (size_t i = 0; rc == HK_OK && i < choices.n && !*match; i++) {
        rw_refusal why;
        memset(&why, 0, sizeof why);
        int arc = rw_applies(sk->rewrite, ctx, choices.v[i].params, &why);
        if (arc == HK_ENOMEM)
            rc = arc;
        *match = arc == HK_OK && !why.reason[0];
    }
    hk_free(choices.v);
    return rc;
}

/* Does a planned vector-loop rewrite (RW_VECTOR_LOOP) apply to ctx's kernel at one of its
 * skill's choices? (ctx NULL: taken to apply.) HK_OK or HK_ENOMEM. */
static int vector_loop_applies(const skillplan *p, const rw_context *ctx, bool *applies)
{
    *applies = false;
    int rc = HK_OK;
    for (size_t i = 0; i < p->n_used && !*applies && rc == HK_OK; i++) {
        if (!(p->used[i]->rewrite->flags & RW_VECTOR_LOOP))
            continue;
        if (!ctx)
            *applies = true;
        else
            rc = applies_by_model(p->used[i], ctx, applies);
    }
    return rc;
}

int skillplan_build(const sk_set *set, const char *arch, enum sk_class cls, const sk_metrics *mt,
                    const char *kernel_text, size_t len, skillplan *out)
{
    return skillplan_build_for(set, arch, cls, mt, kernel_text, len, NULL, out);
}

/* skillplan_prepare on a text parsed once (the plan's own). */
static int prepare_text(const sk_set *set, const char *arch, const sk_text *t, char *err,
                        size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    const sk_skill **list = NULL;
    size_t n_list = 0, m = 0;
    int rc = sk_for(set, arch, SK_CLASS_COUNT, &list, &n_list);
    /* the skills skillplan_build_for asks (its loop leaves the search's axes out) */
    for (size_t i = 0; rc == HK_OK && i < n_list; i++)
        if (!(list[i]->rewrite->flags & RW_SEARCH_AXIS))
            list[m++] = list[i];
    if (rc == HK_OK)
        rc = sk_prepare_text(set, list, m, t, err, errlen);
    hk_free(list);
    return rc;
}

int skillplan_prepare(const sk_set *set, const char *arch, const char *kernel_text, size_t len,
                      char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    sk_text *t = NULL;
    int rc = sk_text_new(kernel_text, len, &t);
    if (rc == HK_OK)
        rc = prepare_text(set, arch, t, err, errlen);
    sk_text_free(t);
    return rc;
}

int skillplan_build_for(const sk_set *set, const char *arch, enum sk_class cls,
                        const sk_metrics *mt, const char *kernel_text, size_t len,
                        const rw_context *ctx, skillplan *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    const sk_skill **list = NULL;
    size_t n_list = 0;
    /* one parse of the kernel for every skill asked (and the lazy set's queries) */
    sk_text *text = NULL;
    int rc = sk_text_new(kernel_text, len, &text);
    if (rc == HK_OK)
        rc = prepare_text(set, arch, text, NULL, 0);
    if (rc) {
        sk_text_free(text);
        return rc;
    }
    sk_metrics none;
    sk_metrics_init(&none);
    if (!mt)
        mt = &none;
    /* algorithm replacements first, then the other rewrites; within each, the class's
     * skills, then everyone's (the class's again are skipped) */
    for (int pass = 0; pass < 4 && rc == HK_OK; pass++) {
        bool by_class = pass % 2 == 0, algorithms = pass < 2;
        if (by_class && cls == SK_CLASS_COUNT)
            continue;
        rc = sk_for(set, arch, by_class ? cls : SK_CLASS_COUNT, &list, &n_list);
        /* a fallback for a vector loop (coarsen) after the rest of its pass: where
         * vectorize applies, its wider loads are tried first */
        for (size_t j = 0; j < 2 * n_list && rc == HK_OK; j++) {
            const sk_skill *sk = list[j % n_list];
            if (((sk->rewrite->flags & RW_VECTOR_FALLBACK) != 0) != (j >= n_list))
                continue;
            /* rewrites the search has as its own axes are left to those axes; rewrites
             * that replace the algorithm once their pattern matched are more specific
             * than a roofline class (a naive softmax classed latency-bound on an H200 had
             * its unroll choices timed before the online softmax, and a short budget
             * ended first), so they are planned first */
            unsigned fl = sk->rewrite->flags;
            if ((fl & RW_SEARCH_AXIS) || used_already(out, sk) ||
                ((fl & RW_ALGORITHM) != 0) != algorithms)
                continue;
            bool match = false;
            rc = sk_matches_text(sk, text, &match);
            if (rc == HK_EUNSUPPORTED || rc == HK_ETOOBIG)
                rc = HK_OK;              /* no grammar or a huge text: not this skill */
            /* by the model: algorithm replacements of any class, structural rewrites of the
             * kernel's own class only (another class's fast-math or vectorize, asked of every
             * kernel they apply to, took a slot of a three-candidate budget from the class's
             * own rewrites on the H200) */
            if (!rc && !match && (by_class || algorithms))
                rc = applies_by_model(sk, ctx, &match);
            if (rc || !match || !sk_matches_metrics(sk, mt))
                continue;
            const sk_skill **u = hk_realloc(out->used, (out->n_used + 1) * sizeof *u);
            if (!u) {
                rc = HK_ENOMEM;
                break;
            }
            out->used = u;
            out->used[out->n_used++] = sk;
            size_t first = out->n;
            rc = expand(out, &cap, sk);
            if (!rc)
                rc = drop_kept_launch(out, first, sk, ctx);
            /* a vector loop's first choice may not fit (vectorize's width 8 is for 16-bit
             * types): the fallback's choices wait one rank, behind the width that does */
            bool after = false;
            if (!rc && (fl & RW_VECTOR_FALLBACK))
                rc = vector_loop_applies(out, ctx, &after);
            for (size_t c = first; after && c < out->n; c++)
                out->v[c].rank++;
        }
        hk_free(list);
        list = NULL;
    }
    sk_text_free(text);
    if (rc)
        skillplan_free(out);
    return rc;
}

void skillplan_free(skillplan *p)
{
    hk_free(p->v);
    hk_free(p->used);
    memset(p, 0, sizeof *p);
}
