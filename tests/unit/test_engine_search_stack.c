/* The search stacks a second structural rewrite on the leading one (registry.h RW_STACKS,
 * search.c queue_stacks and stack_on): once every first choice is measured, and not
 * before, unroll_jam_scan is applied to the fastest first choice's text (uniform_tiles'
 * output, re-modelled) as one candidate "A + B" whose label and description name both; it
 * is never stacked on itself nor on a first choice that lost to the baseline; when it
 * refuses the leader's text nothing is proposed and its reason is kept for the report.
 * Where bench/wild/src is extracted, mmcv's three_nn, knn and ball_query under the shipped
 * skills' plan get the stacked candidate with the full tile's loop jammed. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"
#include "search/search.h"
#include "search/skillplan.h"
#include "spec/spec.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rw_fixture.h"
#include "wild_kernel.h"

static sk_set *skills;

static int setup(void **state)
{
    (void)state;
    char err[4096];
    if (rwf_setup("search-stack"))
        return -1;
    return sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sk_set_free(skills);
    return rwf_teardown();
}

/* A thread per query, every thread scanning the same items: uniform_tiles and
 * unroll_jam_scan both apply, and the jam applies to the tiles' output too. */
static const char nearest_src[] =
    "__global__ void nearest(const float *query, const float *ref, float *dist, int *idx, int n, int m)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    float qx = query[3 * i], qy = query[3 * i + 1], qz = query[3 * i + 2];\n"
    "    float best = 1e30f;\n"
    "    int besti = 0;\n"
    "    for (int k = 0; k < m; k++) {\n"
    "        float x = ref[3 * k], y = ref[3 * k + 1], z = ref[3 * k + 2];\n"
    "        float d = (qx - x) * (qx - x) + (qy - y) * (qy - y) + (qz - z) * (qz - z);\n"
    "        if (d < best) {\n"
    "            best = d;\n"
    "            besti = k;\n"
    "        }\n"
    "    }\n"
    "    dist[i] = best;\n"
    "    idx[i] = besti;\n"
    "}\n";

/* The same scan whose value reads the state (line 10 reads best, written at line 11): the
 * tiles apply, the jam refuses, on the tiles' output as on the kernel. */
static const char relative_src[] =
    "__global__ void relative(const float *query, const float *ref, float *dist, int n, int m)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    float qx = query[i];\n"
    "    float best = 1e30f;\n"
    "    for (int k = 0; k < m; k++) {\n"
    "        float x = ref[k];\n"
    "        float d = (qx - x) * (qx - x) + best * 0.5f;\n"
    "        if (d < best) best = d;\n"
    "    }\n"
    "    dist[i] = best;\n"
    "}\n";

/* Two skills' choices, as a plan lists them: each skill's first choice, then its second. */
static const search_struct structs[] = {
    {.skill = "tiles", .rewrite = "uniform_tiles", .params = {256, 4}, .rank = 0},
    {.skill = "jam", .rewrite = "unroll_jam_scan", .params = {4}, .rank = 0},
    {.skill = "tiles", .rewrite = "uniform_tiles", .params = {256, 1}, .rank = 1},
    {.skill = "jam", .rewrite = "unroll_jam_scan", .params = {8}, .rank = 1},
};

/* Times by what a candidate is: ms[0] the baseline, ms[1] uniform_tiles alone, ms[2]
 * unroll_jam_scan alone, ms[3] a stacked one, 9.5 anything else. */
static double time_of(const search_candidate *c, const double ms[4])
{
    if (!c->structural)
        return c->phase == 0 ? ms[0] : 9.5;
    if (strstr(c->structural, " + "))
        return ms[3];
    if (!strncmp(c->structural, "uniform_tiles", 13))
        return ms[1];
    if (!strncmp(c->structural, "unroll_jam_scan", 15))
        return ms[2];
    return 9.5;
}

static bool is_stacked(const search_candidate *c)
{
    return c->structural && strstr(c->structural, " + ") != NULL;
}

/* Proposes until the search waits for results (no stacked candidate may come before),
 * reports them all at ms, and returns the first structural proposal that follows (NULL
 * when none). */
static const search_candidate *after_first_choices(search *s, const double ms[4])
{
    const search_candidate *c;
    unsigned first = (unsigned)search_count(s), n = 0;
    int rc;
    while ((rc = search_next(s, &c)) == HK_OK) {
        print_message("  %u: %s\n", c->id, c->description);
        assert_false(is_stacked(c));
        n++;
    }
    assert_int_equal(rc, HK_ESTATE);   /* the stacking waits for the first choices' results */
    assert_true(n >= 2);                /* the baseline and the first choices that apply */
    for (unsigned id = first; id < first + n; id++)
        assert_int_equal(search_report(s, id, SEARCH_OK, time_of(search_get(s, id), ms)), HK_OK);
    /* what keeps its place first after the first choices (restrict_early's __restrict__) */
    while (search_next(s, &c) == HK_OK) {
        print_message("  %u: %s\n", c->id, c->description);
        if (c->structural)
            return c;
        assert_int_equal(search_report(s, c->id, SEARCH_OK, time_of(c, ms)), HK_OK);
    }
    return NULL;
}

static search *new_search(const fixture *fx, const char *kname)
{
    search_launch l = {.block = {256, 1, 1}, .block_max_threads = 256, .sm_count = 132,
                       .structs = structs, .n_structs = HK_ARRAY_LEN(structs)};
    search_budget b = {.max_candidates = 40};
    search *s;
    assert_int_equal(search_new(fx->text, fx->len, fx->m, kernel(fx, kname), &l, 1, &b, &s), HK_OK);
    char *axes = search_describe_axes(s);
    assert_non_null(axes);
    print_message("axes: %s\n", axes);
    assert_non_null(strstr(axes, "stacked on the leading structural candidates: unroll_jam_scan unroll=4 (skill jam)"));
    free(axes);
    return s;
}

/* uniform_tiles leads, unroll_jam_scan is second: the first proposal once both are measured
 * is the jam on the tiles' output, the full tile's loop jammed; the jam is not stacked on
 * itself, so the next is a second choice. */
static void stacked_on_the_leader(void **state)
{
    (void)state;
    fixture fx;
    load_text(nearest_src, &fx);
    search *s = new_search(&fx, "nearest");
    static const double ms[4] = {10.0, 5.0, 8.0, 3.0};
    const search_candidate *c = after_first_choices(s, ms);
    assert_non_null(c);
    assert_true(is_stacked(c));
    assert_int_equal(c->phase, 1);
    assert_non_null(strstr(c->structural, "uniform_tiles tile=256 unroll=4 (skill tiles) + unroll_jam_scan unroll=4 (skill jam)"));
    assert_non_null(strstr(c->description, " + unroll_jam_scan unroll=4 (skill jam)"));
    assert_non_null(strstr(c->text, "__shared__"));
    assert_non_null(strstr(c->text, "= hk_r0[hk_uj_k3];"));
    /* the tiles' launch, kept by the jam: the block the search gives uniform_tiles */
    assert_int_equal(c->block[0], 256);
    assert_int_equal(search_report(s, c->id, SEARCH_OK, 3.0), HK_OK);
    const search_candidate *next;
    assert_int_equal(search_next(s, &next), HK_OK);
    print_message("  %u: %s\n", next->id, next->description);
    assert_false(is_stacked(next));
    assert_int_equal(search_report(s, next->id, SEARCH_OK, 9.5), HK_OK);
    size_t n;
    search_stack_refusals(s, &n);
    assert_int_equal(n, 0);
    /* the stacked candidate leads the search */
    double best;
    assert_ptr_equal(search_best(s, &best), c);
    search_free(s);
    unload(&fx);
}

/* Only first choices that beat the baseline lead: uniform_tiles slower than the kernel and
 * the jam alone ahead proposes no stacked candidate (the jam is not put on itself). */
static void no_stack_without_a_leader(void **state)
{
    (void)state;
    fixture fx;
    load_text(nearest_src, &fx);
    search *s = new_search(&fx, "nearest");
    static const double ms[4] = {10.0, 12.0, 8.0, 3.0};
    const search_candidate *c = after_first_choices(s, ms);
    assert_non_null(c);
    assert_false(is_stacked(c));
    search_free(s);
    unload(&fx);
}

/* The jam refuses the tiles' output (its value reads the state): nothing stacked, and the
 * refusal, with its construct and line, is what the report gets. */
static void refusal_reaches_the_report(void **state)
{
    (void)state;
    fixture fx;
    load_text(relative_src, &fx);
    search *s = new_search(&fx, "relative");
    static const double ms[4] = {10.0, 5.0, 8.0, 3.0};
    const search_candidate *c = after_first_choices(s, ms);
    assert_true(c == NULL || !is_stacked(c));
    size_t n;
    const char *const *why = search_stack_refusals(s, &n);
    assert_int_equal(n, 1);
    print_message("  %s\n", why[0]);
    assert_non_null(strstr(why[0], "unroll_jam_scan unroll=4 (skill jam) not stacked on uniform_tiles tile=256 unroll=4"));
    assert_non_null(strstr(why[0], "value declaration at line"));
    assert_non_null(strstr(why[0], "reads `best`, which the loop body writes"));
    search_free(s);
    unload(&fx);
}

/* The search over wild kernel w under the shipped skills' plan for class cls on sm_90 at
 * the roofline share given (plan kept in *plan: the search reads its structures). */
static search *wild_search(wild_kernel *w, enum sk_class cls, double roofline_pct, skillplan *plan)
{
    const an_span *span = &w->fx.m->funcs[w->k].span;
    rw_context ctx = {.text = w->fx.text, .len = w->fx.len, .m = w->fx.m, .kernel = w->k, .spec = w->sp};
    sk_metrics mt;
    sk_metrics_init(&mt);
    mt.v[SK_M_ROOFLINE_PCT] = roofline_pct;
    assert_int_equal(skillplan_build_for(skills, "sm_90", cls, &mt, w->fx.text + span->start_byte,
                                         span->end_byte - span->start_byte, &ctx, plan),
                     HK_OK);
    w->l.structs = plan->v;
    w->l.n_structs = plan->n;
    search_budget b = {.max_candidates = 40};
    search *s;
    assert_int_equal(search_new(w->fx.text, w->fx.len, w->fx.m, w->k, &w->l, 1, &b, &s), HK_OK);
    return s;
}

/* mmcv's kernels under their specs and the shipped skills' latency-bound plan on sm_90:
 * uniform_tiles leading, the stacked candidate comes right after the first choices (on
 * three_nn after the stack with double_narrowing). */
static void wild_kernels(void **state)
{
    (void)state;
    static const char *const ids[] = {"mmcv_three_nn_fwd", "mmcv_knn_fwd", "mmcv_ball_query_fwd"};
    static const double ms[4] = {10.0, 5.0, 8.0, 3.0};
    for (size_t i = 0; i < HK_ARRAY_LEN(ids); i++) {
        wild_kernel w;
        if (!wild_open(ids[i], &w))
            continue;
        skillplan plan;
        search *s = wild_search(&w, SK_LATENCY_BOUND, 5.0, &plan);
        print_message("%s:\n", ids[i]);
        const search_candidate *c = after_first_choices(s, ms);
        assert_non_null(c);
        assert_true(is_stacked(c));
        assert_true(!strncmp(c->structural, "uniform_tiles", 13));
        /* three_nn: double_narrowing stacks too (session 27, RW_STACKS), the plan's order
         * putting it first; the jam's stack follows it */
        if (strstr(c->structural, " + double_narrowing")) {
            assert_string_equal(ids[i], "mmcv_three_nn_fwd");
            assert_null(strstr(c->text, "double best1"));
            assert_int_equal(search_report(s, c->id, SEARCH_OK, time_of(c, ms)), HK_OK);
            assert_int_equal(search_next(s, &c), HK_OK);
            print_message("  %u: %s\n", c->id, c->description);
            assert_true(is_stacked(c));
            assert_true(!strncmp(c->structural, "uniform_tiles", 13));
        }
        assert_non_null(strstr(c->structural, " + unroll_jam_scan unroll=4"));
        assert_non_null(strstr(c->text, "= hk_r0[hk_uj_k3];"));
        search_free(s);
        skillplan_free(&plan);
        wild_close(&w);
    }
}

/* Per-block partials by a shared-memory tree, two loads per thread (a reduce3-like shape):
 * block_reduce replaces the tree and keeps the launch, fused_blocks runs 4 blocks' loads
 * together and keeps the launch too, and applies to block_reduce's output (its nested
 * `hk_part[32]`, one per copy). */
static const char partials_src[] =
    "__global__ void partials(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float sm[256];\n"
    "    int t = threadIdx.x;\n"
    "    int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;\n"
    "    float v = (i < n) ? in[i] : 0.0f;\n"
    "    if (n > i + (int)blockDim.x)\n"
    "        v += in[i + blockDim.x];\n"
    "    sm[t] = v;\n"
    "    __syncthreads();\n"
    "    for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
    "        if (t < k)\n"
    "            sm[t] += sm[t + k];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0)\n"
    "        out[blockIdx.x] = sm[0];\n"
    "}\n";

/* Times by what a candidate is: ms[0] the baseline, ms[1] block_reduce alone, ms[2]
 * fused_blocks alone, ms[3] a stacked one, 9.5 anything else. */
static double partials_time(const search_candidate *c, const double ms[4])
{
    if (!c->structural)
        return c->phase == 0 ? ms[0] : 9.5;
    if (strstr(c->structural, " + "))
        return ms[3];
    if (!strncmp(c->structural, "block_reduce", 12))
        return ms[1];
    if (!strncmp(c->structural, "fused_blocks", 12))
        return ms[2];
    return 9.5;
}

/* Proposes and reports (at partials_time) until the first stacked candidate, which it
 * returns (NULL when none comes within the budget). */
static const search_candidate *first_stacked(search *s, const double ms[4])
{
    const search_candidate *c;
    int rc;
    for (;;) {
        while ((rc = search_next(s, &c)) == HK_OK) {
            print_message("  %u: %s\n", c->id, c->description);
            if (is_stacked(c))
                return c;
            assert_int_equal(search_report(s, c->id, SEARCH_OK, partials_time(c, ms)), HK_OK);
        }
        if (rc != HK_ESTATE)
            return NULL;
        bool reported = false;
        for (unsigned id = 0; id < (unsigned)search_count(s); id++)
            reported |= search_report(s, id, SEARCH_OK, partials_time(search_get(s, id), ms)) == HK_OK;
        if (!reported)
            return NULL;
    }
}

/* fused_blocks stacks (RW_STACKS, session 40): with block_reduce ahead of the baseline
 * and fused_blocks too, fused_blocks blocks=4 goes on block_reduce's output as one
 * candidate, the warp-shuffle tree copied per fused block, under the kernel's own launch;
 * block_reduce, which does not stack, is never put on fused_blocks' output. Without the
 * flag no stacking axis exists and no candidate is stacked. */
static void fused_blocks_on_block_reduce(void **state)
{
    (void)state;
    static const search_struct two[] = {
        {.skill = "br", .rewrite = "block_reduce", .rank = 0},
        {.skill = "fb", .rewrite = "fused_blocks", .params = {4}, .rank = 0},
        {.skill = "fb", .rewrite = "fused_blocks", .params = {2}, .rank = 1},
    };
    fixture fx;
    load_text(partials_src, &fx);
    search_launch l = {.block = {256, 1, 1}, .block_max_threads = 256, .sm_count = 132,
                       .structs = two, .n_structs = HK_ARRAY_LEN(two)};
    search_budget b = {.max_candidates = 40};
    search *s;
    assert_int_equal(search_new(fx.text, fx.len, fx.m, kernel(&fx, "partials"), &l, 1, &b, &s), HK_OK);
    char *axes = search_describe_axes(s);
    assert_non_null(axes);
    print_message("axes: %s\n", axes);
    assert_non_null(strstr(axes, "stacked on the leading structural candidates: fused_blocks blocks=4 (skill fb)"));
    assert_null(strstr(axes, "stacked on the leading structural candidates: block_reduce"));
    free(axes);
    /* fused_blocks leads, block_reduce second: fused_blocks is stacked on block_reduce */
    static const double ms[4] = {10.0, 9.0, 8.5, 7.5};
    const search_candidate *c = first_stacked(s, ms);
    assert_non_null(c);
    assert_non_null(strstr(c->structural, "block_reduce (skill br) + fused_blocks blocks=4 (skill fb)"));
    assert_non_null(strstr(c->text, "hk_part"));
    assert_non_null(strstr(c->text, "__shfl_down_sync"));
    assert_non_null(strstr(c->text, "% 4u != 0u"));
    assert_non_null(strstr(c->text, "blockIdx.x + 3u"));
    assert_null(strstr(c->text, "for (int k = blockDim.x / 2; k > 0; k >>= 1)"));
    assert_int_equal(c->block[0], 256);
    assert_int_equal(c->grid_mode, SEARCH_GRID_SPEC);
    assert_int_equal(search_report(s, c->id, SEARCH_OK, partials_time(c, ms)), HK_OK);
    /* no other stack: fused_blocks not on itself, block_reduce not stacking (the later
     * phases may mix the stacked leader with the launch axes, the same two rewrites) */
    const search_candidate *next;
    while (search_next(s, &next) == HK_OK) {
        if (is_stacked(next))
            assert_true(!strncmp(next->structural, "block_reduce (skill br) + fused_blocks blocks=", 46));
        assert_null(strstr(next->structural ? next->structural : "", "+ block_reduce"));
        assert_int_equal(search_report(s, next->id, SEARCH_OK, 9.5), HK_OK);
    }
    size_t n;
    search_stack_refusals(s, &n);
    assert_int_equal(n, 0);
    search_free(s);
    unload(&fx);
}

/* A grid-stride window whose size every launch passes as a literal, over rows of a runtime
 * width: the divisions by C go to fast_divmod, the window loop to specialize_constants. */
static const char window_src[] =
    "__global__ void window(const float *in, float *out, int n, int C, int ksize)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int c = i % C;\n"
    "        int r = i / C;\n"
    "        float s = 0.0f;\n"
    "        for (int j = 0; j < ksize; j++)\n"
    "            s += in[r * ksize + j] * (float)c;\n"
    "        out[i] = s;\n"
    "    }\n"
    "}\n"
    "void run(const float *in, float *out, int n, int C)\n"
    "{\n"
    "    window<<<(n + 255) / 256, 256>>>(in, out, n, C, 5);\n"
    "}\n";

/* Times by what a candidate is: ms[0] the baseline, ms[1] fast_divmod alone, ms[2]
 * specialize_constants alone, ms[3] a stacked one, 12 anything else (behind the baseline). */
static double window_time(const search_candidate *c, const double ms[4])
{
    if (!c->structural)
        return c->phase == 0 ? ms[0] : 12.0;
    if (strstr(c->structural, " + "))
        return ms[3];
    if (!strncmp(c->structural, "fast_divmod", 11))
        return ms[1];
    if (!strncmp(c->structural, "specialize_constants", 20))
        return ms[2];
    return 12.0;
}

/* specialize_constants stacks (RW_STACKS, session 49, issue 13's ROI kernels): it keeps the
 * text's launch (rw_result.keeps_launch), so with fast_divmod and specialize_constants both
 * ahead of the baseline it goes on fast_divmod's output as one candidate holding both: the
 * magic-number divisions and the copy of the body for ksize == 5. fast_divmod, which does
 * not stack, is never put on specialize_constants' output. Without the flag (or without
 * keeps_launch: the refusal "would change the leader's launch") no candidate is stacked. */
static void specialize_on_fast_divmod(void **state)
{
    (void)state;
    static const search_struct two[] = {
        {.skill = "fd", .rewrite = "fast_divmod", .rank = 0},
        {.skill = "sc", .rewrite = "specialize_constants", .rank = 0},
    };
    fixture fx;
    load_text(window_src, &fx);
    size_t k = kernel(&fx, "window");
    rw_result r;
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = k};
    assert_int_equal(rw_apply_named("specialize_constants", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_true(r.keeps_launch);
    rw_result_free(&r);
    search_launch l = {.block = {256, 1, 1}, .block_max_threads = 256, .sm_count = 132,
                       .structs = two, .n_structs = HK_ARRAY_LEN(two)};
    search_budget b = {.max_candidates = 40};
    search *s;
    assert_int_equal(search_new(fx.text, fx.len, fx.m, k, &l, 1, &b, &s), HK_OK);
    char *axes = search_describe_axes(s);
    assert_non_null(axes);
    print_message("axes: %s\n", axes);
    assert_non_null(strstr(axes, "stacked on the leading structural candidates: specialize_constants (skill sc)"));
    assert_null(strstr(axes, "stacked on the leading structural candidates: fast_divmod"));
    free(axes);
    static const double ms[4] = {10.0, 9.0, 8.0, 7.0};
    const search_candidate *c;
    const search_candidate *st = NULL;
    int rc;
    for (int round = 0; round < 8 && !st; round++) {
        while (!st && (rc = search_next(s, &c)) == HK_OK) {
            print_message("  %u: %s\n", c->id, c->description);
            if (is_stacked(c))
                st = c;
            else
                assert_int_equal(search_report(s, c->id, SEARCH_OK, window_time(c, ms)), HK_OK);
        }
        for (unsigned id = 0; !st && id < (unsigned)search_count(s); id++)
            (void)search_report(s, id, SEARCH_OK, window_time(search_get(s, id), ms));
    }
    assert_non_null(st);
    assert_non_null(strstr(st->structural, "fast_divmod (skill fd) + specialize_constants (skill sc)"));
    assert_non_null(strstr(st->text, "hk_fdiv"));
    assert_non_null(strstr(st->text, "if (ksize == 5)"));
    assert_non_null(strstr(st->text, "int ksize = 5;"));
    assert_int_equal(st->block[0], 256);
    assert_int_equal(st->grid_mode, SEARCH_GRID_SPEC);
    assert_int_equal(search_report(s, st->id, SEARCH_OK, ms[3]), HK_OK);
    while (search_next(s, &c) == HK_OK) {
        assert_null(strstr(c->structural ? c->structural : "", "+ fast_divmod"));
        assert_int_equal(search_report(s, c->id, SEARCH_OK, 12.0), HK_OK);
    }
    size_t n;
    search_stack_refusals(s, &n);
    assert_int_equal(n, 0);
    search_free(s);
    unload(&fx);
}

/* cuda-samples' reduce3 under its spec and the shipped skills' memory-bound plan on sm_90
 * (H100/H200 device): block_reduce and fused_blocks both ahead of the baseline, the
 * stacked "block_reduce + fused_blocks blocks=4" is proposed (session 39 measured the
 * stacked text by hand: 1.30x on the H100, fused_blocks alone 1.18x). */
static void wild_reduce3(void **state)
{
    (void)state;
    wild_kernel w;
    if (!wild_open("cs_reduce3", &w))
        return;
    skillplan plan;
    search *s = wild_search(&w, SK_MEMORY_BOUND, 53.0, &plan);
    static const double ms[4] = {10.0, 9.5, 8.5, 7.5};
    const search_candidate *c = first_stacked(s, ms);
    assert_non_null(c);
    assert_true(!strncmp(c->structural, "block_reduce", 12));
    assert_non_null(strstr(c->structural, " + fused_blocks blocks=4"));
    assert_non_null(strstr(c->text, "hk_part"));
    assert_non_null(strstr(c->text, "% 4u != 0u"));
    assert_true(c->id <= 4);   /* within the wild runs' budget of 4 */
    search_free(s);
    skillplan_free(&plan);
    wild_close(&w);
}

/* cuda-samples' reduce0 under its spec and the shipped latency-bound plan on sm_90 (its
 * class on the H100: 9.7% of roofline): since session 45 fused_blocks applies to it (its one
 * load is the value of the store into SharedMemory<T>'s pointer, loaded per block ahead), and
 * with block_reduce (the modulo tree as shuffles) and fused_blocks ahead of the baseline the
 * stacked "block_reduce + fused_blocks blocks=4" is proposed, each block's value loaded before
 * the rests on block_reduce's text. */
static void wild_reduce0(void **state)
{
    (void)state;
    wild_kernel w;
    if (!wild_open("cs_reduce0", &w))
        return;
    skillplan plan;
    search *s = wild_search(&w, SK_LATENCY_BOUND, 9.7, &plan);
    static const double ms[4] = {10.0, 4.2, 8.0, 2.5};
    const search_candidate *c = first_stacked(s, ms);
    assert_non_null(c);
    assert_true(!strncmp(c->structural, "block_reduce", 12));
    assert_non_null(strstr(c->structural, " + fused_blocks blocks=4"));
    assert_non_null(strstr(c->text, "hk_part"));
    assert_non_null(strstr(c->text, "auto hk_fb_s3 = "));
    assert_non_null(strstr(c->text, "sdata[tid] = hk_fb_s3;"));
    assert_true(c->id <= 4); /* within the wild runs' budget of 4 */
    search_free(s);
    skillplan_free(&plan);
    wild_close(&w);
}

/* Times for points_in_boxes: the baseline 10, table_hoist 8, float_literals 9.5, a stacked
 * candidate 7.5, anything else 10.5 (no other leader). */
static double pib_time(const search_candidate *c)
{
    if (!c->structural)
        return c->phase == 0 ? 10.0 : 10.5;
    if (strstr(c->structural, " + "))
        return 7.5;
    if (!strncmp(c->structural, "table_hoist", 11))
        return 8.0;
    if (!strncmp(c->structural, "float_literals", 14))
        return 9.5;
    return 10.5;
}

/* float_literals stacks (RW_STACKS, session 40): mmcv's points_in_boxes_part under its spec
 * and the shipped latency-bound plan on sm_90 (sm90-float-literals-latency: its literals
 * sit in the callee check_pt_in_box3d, which the skill's query over the kernel's text
 * cannot see, so the rewrite's own reading plans it): table_hoist leading, the stacked
 * "table_hoist + float_literals" follows the first choices, the callee's half sizes in
 * float in its text (the hoisted kernel's unrolled box loop had 54 cvt.f64.f32). */
static void wild_points_in_boxes(void **state)
{
    (void)state;
    wild_kernel w;
    if (!wild_open("mmcv_points_in_boxes_part", &w))
        return;
    skillplan plan;
    search *s = wild_search(&w, SK_LATENCY_BOUND, 1.8, &plan);
    const search_candidate *c;
    bool alone = false;
    int rc;
    for (;;) {
        while ((rc = search_next(s, &c)) == HK_OK && !is_stacked(c)) {
            print_message("  %u: %s\n", c->id, c->description);
            alone |= c->structural && !strncmp(c->structural, "float_literals", 14);
            assert_int_equal(search_report(s, c->id, SEARCH_OK, pib_time(c)), HK_OK);
        }
        if (rc != HK_ESTATE)
            break;
        bool reported = false;
        for (unsigned id = 0; id < (unsigned)search_count(s); id++)
            reported |= search_report(s, id, SEARCH_OK, pib_time(search_get(s, id))) == HK_OK;
        if (!reported)
            break;
    }
    assert_int_equal(rc, HK_OK);
    print_message("  %u: %s\n", c->id, c->description);
    assert_true(alone);   /* planned by its latency-bound skill */
    assert_true(!strncmp(c->structural, "table_hoist", 11));
    assert_non_null(strstr(c->structural, " + float_literals (skill sm90-float-literals-latency)"));
    assert_non_null(strstr(c->text, "(local_x > -x_size / 2.0f) & (local_x < x_size / 2.0f)"));
    assert_non_null(strstr(c->text, "if (fabsf(z - cz) > z_size / 2.0f) return 0;"));
    search_free(s);
    skillplan_free(&plan);
    wild_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stacked_on_the_leader),
        cmocka_unit_test(no_stack_without_a_leader),
        cmocka_unit_test(refusal_reaches_the_report),
        cmocka_unit_test(wild_kernels),
        cmocka_unit_test(fused_blocks_on_block_reduce),
        cmocka_unit_test(specialize_on_fast_divmod),
        cmocka_unit_test(wild_reduce3),
        cmocka_unit_test(wild_reduce0),
        cmocka_unit_test(wild_points_in_boxes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
