/* The search proposes split_item_loop early (issue 13): for the skill's sample kernel of
 * one block per item and, where bench/wild/src is extracted, mmcv's chamfer distance under
 * its own spec (8 items, 256 blocks), the shipped skills' plan on sm_90 -- compute-bound (as
 * chamfer measured), latency-bound, or of unknown class (nothing measured) -- puts a
 * candidate of the rewrite among the first five proposals, baseline included
 * (`--budget 5`). Likewise split_block_item (session 26) among the first four (the wild
 * suite's `--budget 4`) for its sample kernel and mmcv's sync_bn_output under its spec (256
 * channels of 512 threads, 51% of its roofline measured: memory-bound), in every class, with
 * the grid multiplied along y. */
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
static const wanted block_split = {"split_block_item", "gridDim.y"};

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

/* split_block_item within the wild suite's budget of 4, baseline included. */
#define BLOCK_BUDGET 4
#define SYNC_BN_PCT 51.0 /* sync_bn_output on the H200 (session 25) */
static const enum sk_class block_classes[] = {SK_MEMORY_BOUND, SK_LATENCY_BOUND, SK_CLASS_COUNT};

static void block_items(void **state)
{
    (void)state;
    char path[600];
    snprintf(path, sizeof path, HK_TEST_DATA "/skills/kernels/split_block_item.cu");
    fixture fx;
    load_path(path, &fx);
    size_t k = kernel(&fx, "normalize_per_channel");
    search_launch l = {.block = {512, 1, 1}, .block_max_threads = 512, .sm_count = 132};
    for (size_t i = 0; i < HK_ARRAY_LEN(block_classes); i++)
        assert_true(proposed_early(skills, BLOCK_BUDGET, SYNC_BN_PCT, &fx, k, NULL, l, block_classes[i],
                                   "normalize_per_channel", &block_split));
    unload(&fx);
    wild_kernel w;
    if (!wild_open("mmcv_sync_bn_output", &w))
        return;
    for (size_t c = 0; c < HK_ARRAY_LEN(block_classes); c++)
        assert_true(proposed_early(skills, BLOCK_BUDGET, SYNC_BN_PCT, &w.fx, w.k, w.sp, w.l, block_classes[c],
                                   "mmcv_sync_bn_output", &block_split));
    wild_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_kernel),
        cmocka_unit_test(wild_kernels),
        cmocka_unit_test(block_items),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
