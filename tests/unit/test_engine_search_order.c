/* What the search tries within a small budget (issue 12): with more first choices than half
 * the budget, half of it (rounded up) goes to the first choices in the plan's order, then,
 * once those are measured, the leader's follow-ups -- stacks on it, then its skill's next two
 * choices -- come before the other skills' first choices; when they lost (an algorithm
 * rewrite slower than the baseline or failed, none SEARCH_NOISE_SPEEDUP faster) the launch
 * axes' first values and the unroll skill's first choice come next (queue_fallback), with a
 * leader's follow-ups after them; with ties alone the first choices go on in the plan's
 * order; with a budget that holds the first choices nothing moves. A choice that moves only a launch its rewrite does not use is its
 * skill's first choice again: it is dropped from the axis and the skill's next program
 * becomes its second choice (FPS's key form). Where bench/wild/src is extracted, carafe's
 * chunk 4 and 16 follow chunk 8 in a budget of 4 when chunk 8 leads. */
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
    if (rwf_setup("search-order"))
        return -1;
    return sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sk_set_free(skills);
    return rwf_teardown();
}

static const char saxpy_src[] =
    "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

/* Three skills of distinct programs on saxpy, listed as skillplan lists them (each skill's
 * choices by rank), and a fourth skill's first choice. */
static const search_struct four_skills[] = {
    {.skill = "s-vec", .rewrite = "vectorize", .params = {4}, .blocks_per_sm = 8},
    {.skill = "s-vec", .rewrite = "vectorize", .params = {4}, .blocks_per_sm = 16, .rank = 1},
    {.skill = "s-vec", .rewrite = "vectorize", .params = {4}, .blocks_per_sm = 4, .rank = 2},
    {.skill = "s-vec", .rewrite = "vectorize", .params = {2}, .blocks_per_sm = 8, .rank = 3},
    {.skill = "s-ro", .rewrite = "readonly_loads", .block_size = 512},
    {.skill = "s-ro", .rewrite = "readonly_loads", .block_size = 128, .rank = 1},
    {.skill = "s-co", .rewrite = "coarsen", .params = {4}},
    {.skill = "s-co", .rewrite = "coarsen", .params = {2}, .rank = 1},
    {.skill = "s-ro2", .rewrite = "readonly_loads", .block_size = 1024},
};

/* A search of saxpy over four_skills with budget candidates after the baseline; the
 * baseline proposed and reported at 1 ms. */
static search *saxpy_search(const fixture *fx, unsigned budget)
{
    search_launch l = {.block = {256, 1, 1}, .block_free = true, .sm_count = 132,
                       .structs = four_skills, .n_structs = HK_ARRAY_LEN(four_skills)};
    search_budget b = {.max_candidates = budget + 1};
    search *s;
    assert_int_equal(search_new(fx->text, fx->len, fx->m, kernel(fx, "saxpy"), &l, 1, &b, &s), HK_OK);
    const search_candidate *c;
    assert_int_equal(search_next(s, &c), HK_OK);
    assert_int_equal(c->phase, 0);
    assert_int_equal(search_report(s, c->id, SEARCH_OK, 1.0), HK_OK);
    return s;
}

/* The next proposal, which must hold want in its description. */
static const search_candidate *expect_next(search *s, const char *want)
{
    const search_candidate *c = NULL;
    assert_int_equal(search_next(s, &c), HK_OK);
    if (!strstr(c->description, want))
        fail_msg("proposal %u is \"%s\", not %s", c->id, c->description, want);
    return c;
}

/* A budget of 4: two first choices, then the leader's next two choices; the other skills'
 * first choices wait (they come after, in a larger budget). */
static void leader_follow_ups_in_a_small_budget(void **state)
{
    (void)state;
    long live = hk_alloc_live();
    fixture fx;
    load_text(saxpy_src, &fx);
    for (int leader = 0; leader < 2; leader++) {
        search *s = saxpy_search(&fx, 4);
        const search_candidate *v = expect_next(s, "vectorize width=4, 8 blocks/SM");
        const search_candidate *r = expect_next(s, "readonly_loads, block 512");
        /* half the budget explored: the follow-ups wait for its results */
        const search_candidate *c;
        assert_int_equal(search_next(s, &c), HK_ESTATE);
        assert_int_equal(search_report(s, v->id, SEARCH_OK, leader ? 0.9 : 0.5), HK_OK);
        assert_int_equal(search_next(s, &c), HK_ESTATE);
        assert_int_equal(search_report(s, r->id, SEARCH_OK, leader ? 0.5 : 0.9), HK_OK);
        if (leader == 0) {
            /* vectorize led: its 16 and 4 blocks/SM (ranks 1 and 2), not its rank 3 */
            c = expect_next(s, "vectorize width=4, 16 blocks/SM");
            assert_string_equal(c->skill, "s-vec");
            assert_int_equal(c->phase, 1);
            assert_int_equal(search_report(s, c->id, SEARCH_OK, 0.45), HK_OK);
            c = expect_next(s, "vectorize width=4, 4 blocks/SM");
        } else {
            /* readonly_loads led: its one other choice, then the first choices go on */
            c = expect_next(s, "readonly_loads, block 128");
            assert_string_equal(c->skill, "s-ro");
            assert_int_equal(search_report(s, c->id, SEARCH_OK, 0.6), HK_OK);
            c = expect_next(s, "coarsen elements=4");
        }
        assert_int_equal(search_report(s, c->id, SEARCH_OK, 0.7), HK_OK);
        assert_int_equal(search_next(s, &c), HK_ENOENT);   /* 4 after the baseline */
        assert_int_equal(search_count(s), 5);
        search_free(s);
    }
    unload(&fx);
    assert_int_equal(hk_alloc_live(), live);
}

/* A row per thread (our own row sum): warp_rows, an algorithm rewrite (RW_ALGORITHM), is
 * the plan's first choice, then three class skills; the last is unroll (RW_TUNING). */
static const char rowsum_src[] =
    "__global__ void row_sum(int rows, int cols, const float *a, float *out)\n"
    "{\n"
    "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (r < rows) {\n"
    "        float s = 0.0f;\n"
    "        for (int c = 0; c < cols; c++)\n"
    "            s += a[r * cols + c];\n"
    "        out[r] = s;\n"
    "    }\n"
    "}\n";

static const search_struct rowsum_plan[] = {
    {.skill = "s-wr", .rewrite = "warp_rows", .block_size = 256, .blocks_per_sm = 8},
    {.skill = "s-wr", .rewrite = "warp_rows", .block_size = 256, .blocks_per_sm = 16, .rank = 1},
    {.skill = "s-ro", .rewrite = "readonly_loads", .block_size = 512},
    {.skill = "s-ro", .rewrite = "readonly_loads", .block_size = 128, .rank = 1},
    {.skill = "s-ro2", .rewrite = "readonly_loads", .block_size = 1024},
    {.skill = "s-un", .rewrite = "unroll", .params = {4}},
};

/* A search of row_sum over rowsum_plan with budget candidates after the baseline, the
 * baseline proposed and reported at 1 ms; launch_axes: the spec's block free and the SM
 * count known (a block axis and a grid-stride axis), else neither. */
static search *rowsum_search(const fixture *fx, unsigned budget, bool launch_axes)
{
    search_launch l = {.block = {256, 1, 1}, .block_free = launch_axes, .sm_count = launch_axes ? 132 : 0,
                       .structs = rowsum_plan, .n_structs = HK_ARRAY_LEN(rowsum_plan)};
    search_budget b = {.max_candidates = budget + 1};
    search *s;
    assert_int_equal(search_new(fx->text, fx->len, fx->m, kernel(fx, "row_sum"), &l, 1, &b, &s), HK_OK);
    const search_candidate *c;
    assert_int_equal(search_next(s, &c), HK_OK);
    assert_int_equal(c->phase, 0);
    assert_int_equal(search_report(s, c->id, SEARCH_OK, 1.0), HK_OK);
    return s;
}

/* The rewrites lost (the algorithm rewrite ran slower than the baseline or failed, and no
 * rewrite beat it by SEARCH_NOISE_SPEEDUP): the launch axes' first values go next
 * (queue_fallback), 8 blocks/SM of the grid-stride loop, then the nearest block size, before
 * the other skills' first choices: a budget of 3 is not spent on rewrites alone. A leader
 * within the noise keeps its follow-up, after them. A gain, a class skill's loss alone, or ties
 * keep the plan. */
static void lost_rewrites_fall_back_to_the_launch(void **state)
{
    (void)state;
    long live = hk_alloc_live();
    fixture fx;
    load_text(rowsum_src, &fx);
    /* warp_rows' status and time, readonly_loads' time; lost: the fallback comes */
    static const struct { enum search_status ws; double w, r; bool lost; } cases[] = {
        {SEARCH_OK, 1.2, 1.0, true},
        {SEARCH_WRONG, 1.0, 1.0, true},
        {SEARCH_COMPILE_ERROR, 1.0, 0.995, true},
        {SEARCH_OK, 1.005, 0.99, true},     /* a loss by a hair beside a 1.01x leader */
        {SEARCH_OK, 1.2, 0.97, false},      /* a 1.03x gain beside it */
        {SEARCH_OK, 1.0, 1.2, false},       /* a class skill's loss alone */
        {SEARCH_OK, 0.995, 0.99, false},    /* gains within the noise */
        {SEARCH_OK, 1.0, 1.0, false},       /* ties */
    };
    for (size_t k = 0; k < HK_ARRAY_LEN(cases); k++) {
        for (unsigned budget = 3; budget <= 4; budget++) {
            search *s = rowsum_search(&fx, budget, true);
            const search_candidate *w = expect_next(s, "warp_rows");
            const search_candidate *r = expect_next(s, "readonly_loads, block 512");
            const search_candidate *c;
            assert_int_equal(search_next(s, &c), HK_ESTATE);   /* the explored half waits */
            assert_int_equal(search_report(s, w->id, cases[k].ws, cases[k].w), HK_OK);
            assert_int_equal(search_report(s, r->id, SEARCH_OK, cases[k].r), HK_OK);
            bool leader = cases[k].r < 1.0 && (cases[k].ws != SEARCH_OK || cases[k].r < cases[k].w);
            if (!cases[k].lost) {
                /* the plan goes on: the leader's follow-up (readonly at block 128), else the
                 * next first choice */
                c = expect_next(s, leader ? "readonly_loads, block 128" : "readonly_loads, block 1024");
                search_free(s);
                continue;
            }
            c = expect_next(s, "grid-stride, 8 blocks/SM");
            assert_null(c->structural);
            assert_int_equal(c->phase, 1);
            assert_int_equal(search_report(s, c->id, SEARCH_OK, 0.8), HK_OK);
            if (budget == 4) {
                c = expect_next(s, "block 128x1x1");
                assert_true(c->block_own);
                assert_int_equal(search_report(s, c->id, SEARCH_OK, 1.0), HK_OK);
            }
            assert_int_equal(search_next(s, &c), HK_ENOENT);
            search_free(s);
        }
        if (!cases[k].lost)
            continue;
        /* a larger budget (three first choices explored): the launch values, then a noise
         * leader's follow-up, then the last first choice, unroll, which the budget reaches
         * where it stands */
        search *s = rowsum_search(&fx, 6, true);
        const search_candidate *w = expect_next(s, "warp_rows");
        const search_candidate *r = expect_next(s, "readonly_loads, block 512");
        const search_candidate *r2 = expect_next(s, "readonly_loads, block 1024"), *c;
        assert_int_equal(search_next(s, &c), HK_ESTATE);
        assert_int_equal(search_report(s, w->id, cases[k].ws, cases[k].w), HK_OK);
        assert_int_equal(search_report(s, r->id, SEARCH_OK, cases[k].r), HK_OK);
        assert_int_equal(search_report(s, r2->id, SEARCH_OK, 1.05), HK_OK);
        const char *const next[] = {"grid-stride, 8 blocks/SM", "block 128x1x1",
                                    cases[k].r < 1.0 ? "readonly_loads, block 128" : "unroll factor=4"};
        for (size_t i = 0; i < HK_ARRAY_LEN(next); i++) {
            c = expect_next(s, next[i]);
            assert_int_equal(search_report(s, c->id, SEARCH_OK, 1.0), HK_OK);
        }
        assert_int_equal(search_next(s, &c), HK_ENOENT);
        search_free(s);
    }
    unload(&fx);
    assert_int_equal(hk_alloc_live(), live);
}

/* A generic tuning (RW_TUNING: unroll) is part of the fallback: with no launch axis (the
 * spec's block fixed, no SM count) the unroll skill's first choice, last in the plan, comes
 * right after the algorithm rewrite lost; with a gain, the leader's follow-up comes. */
static void lost_rewrites_fall_back_to_unroll(void **state)
{
    (void)state;
    long live = hk_alloc_live();
    fixture fx;
    load_text(rowsum_src, &fx);
    for (int gain = 0; gain < 2; gain++) {
        search *s = rowsum_search(&fx, 3, false);
        char *axes = search_describe_axes(s);
        assert_non_null(axes);
        assert_null(strstr(axes, "| block"));
        assert_null(strstr(axes, "blocks per SM"));
        hk_free(axes);
        const search_candidate *w = expect_next(s, "warp_rows");
        const search_candidate *r = expect_next(s, "readonly_loads, block 512"), *c;
        assert_int_equal(search_report(s, w->id, SEARCH_OK, 1.3), HK_OK);
        assert_int_equal(search_report(s, r->id, SEARCH_OK, gain ? 0.9 : 1.0), HK_OK);
        if (gain) {
            c = expect_next(s, "readonly_loads, block 128");   /* the leader's follow-up */
        } else {
            c = expect_next(s, "unroll factor=4");
            assert_string_equal(c->skill, "s-un");
        }
        search_free(s);
    }
    unload(&fx);
    assert_int_equal(hk_alloc_live(), live);
}

/* A budget that holds every first choice (8 >= 4 * 2): the four first choices come first,
 * and only then the second choices, fastest skill first (order_second_choices). */
static void large_budget_keeps_the_first_choices_first(void **state)
{
    (void)state;
    long live = hk_alloc_live();
    fixture fx;
    load_text(saxpy_src, &fx);
    search *s = saxpy_search(&fx, 8);
    static const char *const firsts[] = {"vectorize width=4, 8 blocks/SM", "readonly_loads, block 512",
                                         "coarsen elements=4", "readonly_loads, block 1024"};
    static const double ms[] = {0.9, 0.5, 1.0, 1.0};
    unsigned id[4];
    for (int i = 0; i < 4; i++)
        id[i] = expect_next(s, firsts[i])->id;
    const search_candidate *c;
    assert_int_equal(search_next(s, &c), HK_ESTATE);
    for (int i = 0; i < 4; i++)
        assert_int_equal(search_report(s, id[i], SEARCH_OK, ms[i]), HK_OK);
    c = expect_next(s, "readonly_loads, block 128");   /* the leader's skill's second */
    search_free(s);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), live);
}

/* The spelling of a furthest-point pick (test_rewrites_block_tree's): block_reduce keeps its
 * template block, so the skill's block-size and blocks/SM choices are its first choice's
 * program; its key form is the next program and becomes the skill's second choice. */
static const char pick_src[] =
    "__device__ void keep_larger(float *val, int *arg, int lo, int hi) {\n"
    "    const float a = val[lo], b = val[hi];\n"
    "    const int ia = arg[lo], ib = arg[hi];\n"
    "    val[lo] = max(a, b);\n"
    "    arg[lo] = b > a ? ib : ia;\n"
    "}\n"
    "template <unsigned int BS>\n"
    "__global__ void pick(int n, int rounds, const float *__restrict__ d, int *__restrict__ chosen)\n"
    "{\n"
    "    if (rounds <= 0) return;\n"
    "    __shared__ float val[BS];\n"
    "    __shared__ int arg[BS];\n"
    "    const int me = threadIdx.x;\n"
    "    int last = 0;\n"
    "    for (int r = 0; r < rounds; r++) {\n"
    "        float top = -1.0f;\n"
    "        int at = 0;\n"
    "        for (int q = me; q < n; q += BS) {\n"
    "            const float x = d[q] * (float)(1 + ((q + last) & 3));\n"
    "            at = x > top ? q : at;\n"
    "            top = x > top ? x : top;\n"
    "        }\n"
    "        val[me] = top;\n"
    "        arg[me] = at;\n"
    "        __syncthreads();\n"
    "#pragma unroll\n"
    "        for (int w = 1024; w >= 2; w >>= 1) {\n"
    "            const int half = w / 2;\n"
    "            if (BS >= w && me < half) {\n"
    "                keep_larger(val, arg, me, me + half);\n"
    "            }\n"
    "            __syncthreads();\n"
    "        }\n"
    "        last = arg[0];\n"
    "        if (me == 0) chosen[r] = last;\n"
    "    }\n"
    "}\n"
    "template __global__ void pick<1024>(int, int, const float *__restrict__, int *__restrict__);\n";

static void launch_only_choices_are_one_program(void **state)
{
    (void)state;
    long live = hk_alloc_live();
    fixture fx;
    load_text(pick_src, &fx);
    /* the shipped skill's expansion (skillplan.c expand): blocks_per_sm [6, 4, 8],
     * block_size [256, 512, 1024], key [0, 1]; then another skill with three choices */
    static const search_struct choices[] = {
        {.skill = "br", .rewrite = "block_reduce", .block_size = 256, .blocks_per_sm = 6},
        {.skill = "br", .rewrite = "block_reduce", .block_size = 256, .blocks_per_sm = 4, .rank = 1},
        {.skill = "br", .rewrite = "block_reduce", .block_size = 256, .blocks_per_sm = 8, .rank = 2},
        {.skill = "br", .rewrite = "block_reduce", .block_size = 512, .blocks_per_sm = 6, .rank = 3},
        {.skill = "br", .rewrite = "block_reduce", .block_size = 1024, .blocks_per_sm = 6, .rank = 4},
        {.skill = "br", .rewrite = "block_reduce", .params = {1}, .block_size = 256, .blocks_per_sm = 6,
         .rank = 5},
        {.skill = "un", .rewrite = "unroll", .params = {4}},
        {.skill = "un", .rewrite = "unroll", .params = {8}, .rank = 1},
        {.skill = "un", .rewrite = "unroll", .params = {2}, .rank = 2},
    };
    static const char *const targs[] = {"1024"};
    search_launch l = {.block = {1024, 1, 1}, .sm_count = 132, .template_args = targs, .n_template_args = 1,
                       .structs = choices, .n_structs = HK_ARRAY_LEN(choices)};
    search_budget b = {.max_candidates = 5};
    search *s;
    assert_int_equal(search_new(fx.text, fx.len, fx.m, kernel(&fx, "pick"), &l, 1, &b, &s), HK_OK);
    char *axes = search_describe_axes(s);
    assert_non_null(axes);
    /* the key form is on the axis, the launch-only choices are not */
    assert_non_null(strstr(axes, "block_reduce key=1"));
    assert_null(strstr(axes, "block 512"));
    assert_null(strstr(axes, "4 blocks/SM"));
    hk_free(axes);
    const search_candidate *c;
    bool key = false;
    unsigned n = 0;
    while (search_next(s, &c) == HK_OK) {
        print_message("  %u: %s\n", c->id, c->description);
        if (c->structural && strstr(c->structural, "block_reduce key=1")) {
            key = true;
            assert_non_null(strstr(c->text, "key form"));
            assert_non_null(strstr(c->description, "the kernel's own launch"));
        }
        /* the baseline at 1, the block_reduce tree behind it (FPS's exact form: 0.84x) */
        double ms = c->structural && strstr(c->structural, "block_reduce") ? 1.19 : 1.0;
        assert_int_equal(search_report(s, c->id, SEARCH_OK, ms), HK_OK);
        n++;
    }
    assert_true(key);   /* among the baseline and 4 */
    assert_int_equal(n, 5);
    search_free(s);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), live);
}

/* mmcv's CARAFE under the shipped skills' plan (latency-bound, as on the H200) with a budget
 * of 6: when channel_chunks' chunk 8 leads (2.12x on the H200; the skills' first choice is chunk
 * 0, the rewrite's own choice, which gives 8 here), chunk 4 and 16 are proposed within the
 * budget, and each is the rewrite at its chunk. Since session 49 specialize_constants stacks
 * (RW_STACKS): chunk 8 + specialize_constants (CARAFE's kernel size, group and scale as
 * constants under the chunk) comes right after the first choices, before chunk 4 and 16,
 * which a budget of 4 reached before. Since session 50 interior_taps applies to CARAFE's
 * kernel-width loop (`if (... || ix > down_width - 1) continue;`) and its latency-bound skill
 * fits: it comes third and its stack on chunk 8 fifth, so the budget is 9 (was 7). */
static void wild_carafe_chunks(void **state)
{
    (void)state;
    long live = hk_alloc_live();
    wild_kernel w;
    if (!wild_open("mmcv_carafe_naive_fwd", &w))
        return;
    const an_span *span = &w.fx.m->funcs[w.k].span;
    rw_context ctx = {.text = w.fx.text, .len = w.fx.len, .m = w.fx.m, .kernel = w.k, .spec = w.sp,
                      .sm_count = 132, .warps_per_sm = 64};
    skillplan plan;
    sk_metrics mt;
    sk_metrics_init(&mt);
    assert_int_equal(skillplan_build_for(skills, "sm_90", SK_LATENCY_BOUND, &mt, w.fx.text + span->start_byte,
                                         span->end_byte - span->start_byte, &ctx, &plan),
                     HK_OK);
    search_launch l = w.l;
    l.structs = plan.v;
    l.n_structs = plan.n;
    l.warps_per_sm = 64;
    l.spec = w.sp;
    search_budget b = {.max_candidates = 9};
    search *s;
    assert_int_equal(search_new(w.fx.text, w.fx.len, w.fx.m, w.k, &l, 1, &b, &s), HK_OK);
    const search_candidate *c;
    unsigned chunks = 0;
    bool stacked = false;
    while (search_next(s, &c) == HK_OK) {
        print_message("  %u: %s\n", c->id, c->description);
        if (c->structural && strstr(c->structural, "channel_chunks chunk=0 (skill sm90-channel-chunks) + specialize_constants")) {
            assert_false(chunks & (1u << 4));   /* before the second choices */
            stacked = true;
        }
        int chunk = 0;
        if (c->structural && sscanf(c->structural, "channel_chunks chunk=%d", &chunk) == 1) {
            assert_int_equal(c->grid_mode, SEARCH_GRID_DIVIDED);
            if (chunk == 0) /* the rewrite's own choice (rw_chunks_choose): 8 for carafe */
                chunk = (int)c->grid_divisor;
            assert_int_equal(c->grid_divisor, (unsigned)chunk);
            chunks |= 1u << chunk;
        }
        double ms = chunk == 8 ? 0.4455 : 0.9439;   /* the H200's chunk 8 and baseline */
        assert_int_equal(search_report(s, c->id, SEARCH_OK, ms), HK_OK);
    }
    assert_int_equal(chunks, (1u << 4) | (1u << 8) | (1u << 16));
    assert_true(stacked);
    search_free(s);
    skillplan_free(&plan);
    wild_close(&w);
    assert_int_equal(hk_alloc_live(), live);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(leader_follow_ups_in_a_small_budget),
        cmocka_unit_test(lost_rewrites_fall_back_to_the_launch),
        cmocka_unit_test(lost_rewrites_fall_back_to_unroll),
        cmocka_unit_test(large_budget_keeps_the_first_choices_first),
        cmocka_unit_test(launch_only_choices_are_one_program),
        cmocka_unit_test(wild_carafe_chunks),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
