/* The search proposes unroll_jam_scan early (issue 13): for the skill's sample kernel (a
 * capped radius query, a thread per query) and, where bench/wild/src is extracted, mmcv's
 * three_nn, knn and ball_query under their own specs, the shipped skills' plan on sm_90 for
 * a latency-bound kernel (1-12% of the roofline on the H200) puts a candidate of the rewrite
 * among the first four proposals, baseline included (the wild run's `--budget 4`), under
 * the kernel's own launch. */
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
    static const char *const ids[] = {"mmcv_three_nn_fwd", "mmcv_knn_fwd", "mmcv_ball_query_fwd"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ids); i++) {
        wild_kernel w;
        if (!wild_open(ids[i], &w))
            continue;
        assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &w.fx, w.k, w.sp, w.l, SK_LATENCY_BOUND, ids[i], &jam));
        wild_close(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_kernel),
        cmocka_unit_test(wild_kernels),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
