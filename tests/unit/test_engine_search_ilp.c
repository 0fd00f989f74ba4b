/* The search proposes ilp_accumulators and double_narrowing early (issue 13): for a
 * SyncBN-like channel mean and a two-nearest-neighbour search in double (the skills' sample
 * kernels) and, where bench/wild/src is extracted, mmcv's SyncBN mean and variance, SHOC's
 * reduce and mmcv's three_nn under their own specs, the shipped skills' plan on sm_90 --
 * latency-bound, memory-bound, or of unknown class (nothing measured) -- puts a candidate
 * of the rewrite among the first four proposals, baseline included (the wild run's
 * `--budget 4`), under the kernel's own launch. */
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

#define ROOFLINE_PCT 12.0 /* the wild reductions ran at 8-25% of their roofline bound */
#define BUDGET 4

static sk_set *skills;

static int setup(void **state)
{
    (void)state;
    char err[4096];
    if (rwf_setup("search-ilp"))
        return -1;
    return sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sk_set_free(skills);
    return rwf_teardown();
}

static const wanted ilp = {"ilp_accumulators", "hk_ilp0"};
static const wanted narrowing = {"double_narrowing", "float "};

static const enum sk_class classes[] = {SK_LATENCY_BOUND, SK_MEMORY_BOUND, SK_CLASS_COUNT};

/* The skills' sample kernels: a block per channel of 256 threads; a thread per query. */
static void sample_kernel(void **state)
{
    (void)state;
    static const struct {
        const char *file, *kernel;
        const wanted *w;
    } samples[] = {{"ilp_accumulators.cu", "channel_mean", &ilp}, {"double_narrowing.cu", "two_nearest", &narrowing}};
    for (size_t j = 0; j < HK_ARRAY_LEN(samples); j++) {
        char path[600];
        snprintf(path, sizeof path, HK_TEST_DATA "/skills/kernels/%s", samples[j].file);
        fixture fx;
        load_path(path, &fx);
        size_t k = kernel(&fx, samples[j].kernel);
        search_launch l = {.block = {256, 1, 1}, .block_max_threads = 256, .sm_count = 132};
        for (size_t i = 0; i < HK_ARRAY_LEN(classes); i++)
            assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &fx, k, NULL, l, classes[i], samples[j].kernel, samples[j].w));
        unload(&fx);
    }
}

/* The wild kernels under their specs, where their sources are extracted. */
static void wild_kernels(void **state)
{
    (void)state;
    static const char *const ids[] = {"mmcv_sync_bn_mean", "mmcv_sync_bn_var", "shoc_reduce", "mmcv_three_nn_fwd"};
    static const wanted *const want[] = {&ilp, &ilp, &ilp, &narrowing};
    for (size_t i = 0; i < HK_ARRAY_LEN(ids); i++) {
        wild_kernel w;
        if (!wild_open(ids[i], &w))
            continue;
        for (size_t c = 0; c < HK_ARRAY_LEN(classes); c++)
            assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &w.fx, w.k, w.sp, w.l, classes[c], ids[i], want[i]));
        wild_close(&w);
    }
}

/* load_batching on the wild kernel it was made for, classed latency-bound (cs_histogram256
 * at 11% of its roofline on the H200), and periodic_trips on mmcv_tin_shift_fwd (14%: its
 * loop runs every column T times, which no batching of loads recovers; session 25 put it
 * first, load_batching then falls out of the first four): within the first candidates, on
 * the kernel's own launch. */
static void wild_batching(void **state)
{
    (void)state;
    static const wanted batching = {"load_batching", "hk_lb_k"}, periodic = {"periodic_trips", "hk_pt_n"};
    static const char *const ids[] = {"cs_histogram256", "mmcv_tin_shift_fwd"};
    static const wanted *const want[] = {&batching, &periodic};
    for (size_t i = 0; i < HK_ARRAY_LEN(ids); i++) {
        wild_kernel w;
        if (!wild_open(ids[i], &w))
            continue;
        assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &w.fx, w.k, w.sp, w.l, SK_LATENCY_BOUND, ids[i],
                                   want[i]));
        wild_close(&w);
    }
}

/* Rodinia's pathfinder (37.5% of its roofline on the H100, session 30: memory-bound), whose
 * DP loop reads one cost per step between two barriers: barrier_load_batching classed
 * memory-bound, load_batching classed latency-bound, within the first candidates on the
 * kernel's own launch. */
static void wild_barrier_batching(void **state)
{
    (void)state;
    static const wanted barrier = {"barrier_load_batching", "hk_lb_k"}, plain = {"load_batching", "hk_lb_k"};
    wild_kernel w;
    if (!wild_open("rodinia_pathfinder", &w))
        return;
    assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &w.fx, w.k, w.sp, w.l, SK_MEMORY_BOUND,
                               "rodinia_pathfinder", &barrier));
    assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &w.fx, w.k, w.sp, w.l, SK_LATENCY_BOUND,
                               "rodinia_pathfinder", &plain));
    wild_close(&w);
}

/* float_literals on Rodinia's hotspot (19-22% of its roofline on the H200; its update in
 * FP64 through `2.0*t`): within the first candidates in every class, as the search ran it. */
static void wild_literals(void **state)
{
    (void)state;
    static const wanted literals = {"float_literals", "2.0f*temp_on_cuda"};
    wild_kernel w;
    if (!wild_open("rodinia_hotspot", &w))
        return;
    for (size_t c = 0; c < HK_ARRAY_LEN(classes); c++)
        assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &w.fx, w.k, w.sp, w.l, classes[c], "rodinia_hotspot",
                                   &literals));
    wild_close(&w);
}

/* staged_gather on mmcv's three row gathers (gather_points at 26% of its roofline on the H200,
 * group_points and three_interpolate at 1.36x and 1.45x of their baselines in session 25's
 * table): within the first candidates in every class, under the kernel's own launch, with
 * the grid it asks for (the spec's divided by 16 along x). */
static void wild_gathers(void **state)
{
    (void)state;
    static const wanted staged = {"staged_gather", "hk_sg_load(hk_sg_s"};
    static const char *const ids[] = {"mmcv_gather_points_fwd", "mmcv_group_points_fwd", "mmcv_three_interpolate_fwd"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ids); i++) {
        wild_kernel w;
        if (!wild_open(ids[i], &w))
            continue;
        for (size_t c = 0; c < HK_ARRAY_LEN(classes); c++)
            assert_true(proposed_early(skills, BUDGET, 26.0, &w.fx, w.k, w.sp, w.l, classes[c], ids[i], &staged));
        wild_close(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_kernel),
        cmocka_unit_test(wild_kernels),
        cmocka_unit_test(wild_batching),
        cmocka_unit_test(wild_barrier_batching),
        cmocka_unit_test(wild_literals),
        cmocka_unit_test(wild_gathers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
