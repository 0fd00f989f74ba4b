/* The search proposes split_item_loop early (issue 13): for the skill's sample kernel of
 * one block per item and, where bench/wild/src is extracted, mmcv's chamfer distance under
 * its own spec (8 items, 256 blocks), the shipped skills' plan on sm_90 -- compute-bound (as
 * chamfer measured), latency-bound, or of unknown class (nothing measured) -- puts a
 * candidate of the rewrite among the first five proposals, baseline included
 * (`--budget 5`). */
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

#define ROOFLINE_PCT 4.1 /* chamfer on the H200: 8 of 132 SMs busy */
#define BUDGET 5

static sk_set *skills;

static int setup(void **state)
{
    (void)state;
    char err[4096];
    if (rwf_setup("search-split"))
        return -1;
    return sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sk_set_free(skills);
    return rwf_teardown();
}

static const wanted split = {"split_item_loop", "hk_sp_part"};

static const enum sk_class classes[] = {SK_COMPUTE_BOUND, SK_LATENCY_BOUND, SK_CLASS_COUNT};

/* The skill's sample kernel: a block per item, a tile loop around a thread loop. */
static void sample_kernel(void **state)
{
    (void)state;
    static const struct {
        const char *file, *kernel;
        const wanted *w;
    } samples[] = {{"split_item_loop.cu", "nearest_per_item", &split}};
    for (size_t j = 0; j < HK_ARRAY_LEN(samples); j++) {
        char path[600];
        snprintf(path, sizeof path, HK_TEST_DATA "/skills/kernels/%s", samples[j].file);
        fixture fx;
        load_path(path, &fx);
        size_t k = kernel(&fx, samples[j].kernel);
        search_launch l = {.block = {512, 1, 1}, .block_max_threads = 512, .sm_count = 132};
        for (size_t i = 0; i < HK_ARRAY_LEN(classes); i++)
            assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &fx, k, NULL, l, classes[i], samples[j].kernel, samples[j].w));
        unload(&fx);
    }
}

/* The wild kernels under their specs, where their sources are extracted. */
static void wild_kernels(void **state)
{
    (void)state;
    static const char *const ids[] = {"mmcv_chamfer_distance_fwd"};
    static const wanted *const want[] = {&split};
    for (size_t i = 0; i < HK_ARRAY_LEN(ids); i++) {
        wild_kernel w;
        if (!wild_open(ids[i], &w))
            continue;
        for (size_t c = 0; c < HK_ARRAY_LEN(classes); c++)
            assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &w.fx, w.k, w.sp, w.l, classes[c], ids[i], want[i]));
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
