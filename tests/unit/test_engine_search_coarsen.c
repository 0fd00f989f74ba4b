/* The search proposes coarsen early for memory-bound elementwise kernels (issue 13): for
 * the skill's sample kernel (an array of structures vectorize cannot take) and saxpy
 * (which vectorize takes) and, where bench/wild/src is extracted, the wild kernels that
 * stayed at 1.00x on the H200 (Rodinia's nn, mmcv's gather_points, three_interpolate,
 * bbox_overlaps, softmax_focal_loss and SyncBN output, SHOC's Triad) under their own specs,
 * llm.c's layernorm normalization_kernel (no bounds check; its grid a ceil_div of parameters),
 * and Parboil's stencil (one block per (j, k) line: coarsened along y),
 * the shipped skills' plan on sm_90 -- memory-bound or of unknown class -- puts a coarsen
 * candidate among the first five proposals, baseline included, after vectorize's where
 * vectorize applies and is planned; it runs under the spec's grid divided by K along x (the spec's own for
 * a block-stride loop) with __restrict__ on the pointers where that applies. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
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

/* candidates looked at, the baseline included: mmcv's softmax focal loss has readonly_loads,
 * pow_small_exponent (its pow with gamma), __restrict__ and vectorize before coarsen */
#define BUDGET 6

static sk_set *skills;

static int setup(void **state)
{
    (void)state;
    char err[4096];
    if (rwf_setup("search-coarsen"))
        return -1;
    return sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sk_set_free(skills);
    return rwf_teardown();
}

/* The first BUDGET proposals for kernel k of fx under launch l with the plan of class cls:
 * one is coarsen's (with its grid and restrict checked), and when vectorize applies to the
 * kernel a vectorize candidate comes before it. Prints them. */
static void proposed_early(const fixture *fx, size_t k, const struct spec *sp, search_launch l, enum sk_class cls,
                           const char *what, bool divided, unsigned axis)
{
    const an_span *span = &fx->m->funcs[k].span;
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k, .spec = sp};
    /* a vector loop bound by the launch's thread count keeps the spec's grid, where the
     * search does not propose it (SHOC's Triad) */
    rw_result rr;
    assert_int_equal(rw_apply_named("vectorize", &ctx, NULL, &rr, NULL), HK_OK);
    bool vectorizes = rr.applicable && !rr.keeps_grid;
    rw_result_free(&rr);
    assert_int_equal(rw_restrict(fx->text, fx->len, fx->m, k, true, &rr), HK_OK);
    bool restricts = rr.applicable;
    rw_result_free(&rr);
    skillplan plan;
    sk_metrics mt;
    sk_metrics_init(&mt);
    mt.v[SK_M_DRAM_PCT_OF_PEAK] = 40.0;   /* the wild kernels ran at 17-71% of peak */
    assert_int_equal(skillplan_build_for(skills, "sm_90", cls, &mt, fx->text + span->start_byte,
                                         span->end_byte - span->start_byte, &ctx, &plan),
                     HK_OK);
    /* under an unknown class the plan takes vectorize by its text alone, which mmcv's loop
     * macro hides: then there is no vectorize to come first */
    bool planned = false;
    for (size_t i = 0; i < plan.n; i++)
        planned |= !strcmp(plan.v[i].rewrite, "vectorize");
    vectorizes = vectorizes && planned;
    l.structs = plan.v;
    l.n_structs = plan.n;
    search_budget b = {.max_candidates = BUDGET};
    search *s;
    assert_int_equal(search_new(fx->text, fx->len, fx->m, k, &l, 1, &b, &s), HK_OK);
    const search_candidate *c;
    bool found = false, vector_seen = false;
    print_message("%s, %s%s:\n", what, cls == SK_CLASS_COUNT ? "class unknown" : sk_class_name(cls),
                  vectorizes ? ", vectorize applies" : "");
    while (search_next(s, &c) == HK_OK) {
        print_message("  %u: %s\n", c->id, c->description ? c->description : "-");
        if (c->structural && !strncmp(c->structural, "vectorize", 9)) {
            vector_seen = true;
            /* its count is the spec's launch, never the launched grid's: one wave */
            assert_int_equal(c->grid_mode, SEARCH_GRID_SM_MULTIPLE);
            assert_null(strstr(c->text, "hk_n = gridDim.x * blockDim.x;"));
        }
        if (c->structural && !strncmp(c->structural, "coarsen", 7) && !found) {
            found = true;
            assert_non_null(strstr(c->text, "hk_co_"));
            assert_non_null(strstr(c->text, "#pragma unroll"));
            if (divided) {
                assert_int_equal(c->grid_mode, SEARCH_GRID_DIVIDED);
                assert_int_equal(c->grid_axis, axis);
                assert_true(c->grid_divisor == 2 || c->grid_divisor == 4 || c->grid_divisor == 8);
            } else {
                assert_int_equal(c->grid_mode, SEARCH_GRID_SPEC);
            }
            assert_true(c->restrict_ptrs == restricts);
            if (restricts)
                assert_non_null(strstr(c->text, "__restrict__"));
            if (vectorizes && !vector_seen)
                fail_msg("%s: coarsen proposed before vectorize, which applies", what);
        }
        assert_int_equal(search_report(s, c->id, SEARCH_OK, 1.0), HK_OK);
    }
    search_free(s);
    skillplan_free(&plan);
    if (!found)
        fail_msg("%s: no coarsen candidate among the first %d", what, BUDGET);
}

static const enum sk_class classes[] = {SK_MEMORY_BOUND, SK_CLASS_COUNT};

/* The sample kernels: an array of structures, and saxpy (vectorize first). */
static void sample_kernels(void **state)
{
    (void)state;
    static const struct {
        const char *file, *kernel;
    } samples[] = {{"coarsen.cu", "distance"}, {"vectorize.cu", "saxpy"}};
    for (size_t j = 0; j < HK_ARRAY_LEN(samples); j++) {
        char path[600];
        snprintf(path, sizeof path, HK_TEST_DATA "/skills/kernels/%s", samples[j].file);
        fixture fx;
        load_path(path, &fx);
        size_t k = kernel(&fx, samples[j].kernel);
        search_launch l = {.block = {256, 1, 1}, .block_max_threads = 256, .sm_count = 132};
        for (size_t i = 0; i < HK_ARRAY_LEN(classes); i++)
            proposed_early(&fx, k, NULL, l, classes[i], samples[j].kernel, true, 0);
        unload(&fx);
    }
}

/* The wild kernels under their specs, where their sources are extracted. */
static void wild_kernels(void **state)
{
    (void)state;
    static const struct {
        const char *id;
        bool divided;
        unsigned axis;
    } wild[] = {{"rodinia_nn_euclid", true, 0},          {"mmcv_gather_points_fwd", true, 0},
                {"mmcv_three_interpolate_fwd", true, 0}, {"mmcv_bbox_overlaps", true, 0},
                {"mmcv_softmax_focal_loss_fwd", true, 0}, {"shoc_triad", true, 0},
                {"mmcv_sync_bn_output", false, 0},      {"parboil_stencil_naive", true, 1},
                /* no bounds check, grid ceil_div(B * T * C, 256): vectorize over the spec's
                 * count, then coarsen with the spec's grid as its bound (session 51) */
                {"llmc_layernorm_normalize", true, 0}};
    for (size_t i = 0; i < HK_ARRAY_LEN(wild); i++) {
        wild_kernel w;
        if (!wild_open(wild[i].id, &w))
            continue;
        for (size_t c = 0; c < HK_ARRAY_LEN(classes); c++)
            proposed_early(&w.fx, w.k, w.sp, w.l, classes[c], wild[i].id, wild[i].divided, wild[i].axis);
        wild_close(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_kernels),
        cmocka_unit_test(wild_kernels),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
