/* The search proposes unroll_jam_scan early (issue 13): for the skill's sample kernel (a
 * capped radius query, a thread per query) and, where bench/wild/src is extracted, mmcv's
 * three_nn, knn, ball_query (and since session 41 border_align) under their own specs, the
 * shipped skills' plan on sm_90 for a latency-bound kernel (1-12% of the roofline on the
 * H200) puts a candidate of the rewrite among the first four proposals, baseline included
 * (the wild run's `--budget 4`), under the kernel's own launch. */
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
#include "search_early.h"
#include "wild_kernel.h"

#define ROOFLINE_PCT 5.0
#define BUDGET 4

static sk_set *skills;

static int setup(void **state)
{
    (void)state;
    char err[4096];
    if (rwf_setup("search-scan"))
        return -1;
    return sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sk_set_free(skills);
    return rwf_teardown();
}

static const wanted jam = {"unroll_jam_scan", "hk_uj_k3"};

static void sample_kernel(void **state)
{
    (void)state;
    fixture fx;
    load_path(HK_TEST_DATA "/skills/kernels/unroll_jam_scan.cu", &fx);
    size_t k = kernel(&fx, "first_within");
    search_launch l = {.block = {256, 1, 1}, .block_max_threads = 256, .sm_count = 132};
    assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &fx, k, NULL, l, SK_LATENCY_BOUND, "first_within", &jam));
    unload(&fx);
}

static void wild_kernels(void **state)
{
    (void)state;
    /* and since session 41 border_align, whose sample loop has an inclusive bound and its
     * coordinates as a recurrence */
    static const char *const ids[] = {"mmcv_three_nn_fwd", "mmcv_knn_fwd", "mmcv_ball_query_fwd",
                                      "mmcv_border_align_fwd"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ids); i++) {
        wild_kernel w;
        if (!wild_open(ids[i], &w))
            continue;
        assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &w.fx, w.k, w.sp, w.l, SK_LATENCY_BOUND, ids[i], &jam));
        wild_close(&w);
    }
}

/* split_topk_scan (session 25): among the first 8 proposals for a top-K cascade (its skill's
 * sample kernel, mmcv's three_nn) and every candidate of it launched on the spec's grid
 * multiplied by its parts along x (SEARCH_GRID_MULTIPLIED), which its text is written for;
 * since session 38 also for knn (a heap) and ball_query (a counted break), in the guarded
 * form (guarded: the ballot's text, no merge). */
static unsigned split_candidates(const fixture *fx, size_t k, const struct spec *sp, search_launch l, const char *what,
                                 bool guarded)
{
    const an_span *span = &fx->m->funcs[k].span;
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k, .spec = sp};
    skillplan plan;
    sk_metrics mt;
    sk_metrics_init(&mt);
    mt.v[SK_M_ROOFLINE_PCT] = ROOFLINE_PCT;
    assert_int_equal(skillplan_build_for(skills, "sm_90", SK_LATENCY_BOUND, &mt, fx->text + span->start_byte,
                                         span->end_byte - span->start_byte, &ctx, &plan),
                     HK_OK);
    l.structs = plan.v;
    l.n_structs = plan.n;
    search_budget b = {.max_candidates = 8};
    search *s;
    assert_int_equal(search_new(fx->text, fx->len, fx->m, k, &l, 1, &b, &s), HK_OK);
    const search_candidate *c;
    unsigned n = 0;
    print_message("%s:\n", what);
    while (search_next(s, &c) == HK_OK) {
        print_message("  %u: %s\n", c->id, c->description ? c->description : "-");
        if (c->structural && !strncmp(c->structural, "split_topk_scan", 15)) {
            n++;
            const char *pp = strstr(c->structural, "parts=");
            assert_non_null(pp);
            unsigned parts = (unsigned)atoi(pp + 6);
            assert_int_equal(c->grid_mode, SEARCH_GRID_MULTIPLIED);
            assert_int_equal(c->grid_multiplier, parts);
            assert_int_equal(c->grid_axis, 0);
            char want[64];
            snprintf(want, sizeof want, "grid x %u along x", parts);
            assert_non_null(strstr(c->description, want));
            if (guarded) {
                assert_null(strstr(c->text, "hk_sp_merge<"));
                assert_non_null(strstr(c->text, "__ballot_sync(hk_sp_gm, "));
            } else
                assert_non_null(strstr(c->text, "hk_sp_merge<"));
        } else
            assert_int_not_equal(c->grid_mode, SEARCH_GRID_MULTIPLIED);
        assert_int_equal(search_report(s, c->id, SEARCH_OK, 1.0), HK_OK);
    }
    search_free(s);
    skillplan_free(&plan);
    return n;
}

static void split_grid(void **state)
{
    (void)state;
    fixture fx;
    load_path(HK_TEST_DATA "/skills/kernels/split_topk_scan.cu", &fx);
    search_launch l = {.block = {256, 1, 1}, .block_max_threads = 256, .sm_count = 132};
    assert_true(split_candidates(&fx, kernel(&fx, "two_nearest_idx"), NULL, l, "two_nearest_idx", false) > 0);
    unload(&fx);
    static const char *const ids[] = {"mmcv_three_nn_fwd", "mmcv_knn_fwd", "mmcv_ball_query_fwd"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ids); i++) {
        wild_kernel w;
        if (!wild_open(ids[i], &w))
            continue;
        unsigned n = split_candidates(&w.fx, w.k, w.sp, w.l, ids[i], i > 0);
        assert_true(n > 0);
        wild_close(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_kernel),
        cmocka_unit_test(wild_kernels),
        cmocka_unit_test(split_grid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
