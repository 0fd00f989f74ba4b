/* The search proposes fast_divmod early (issue 13): for the skill's sample kernel (NCHW
 * coordinates of a flat index in a grid-stride loop) and, where bench/wild/src is
 * extracted, mmcv's kernels that split their flat index with / and % by runtime sizes
 * (roi_align, carafe, tin_shift, deform_im2col, bbox_overlaps, psamask collect, sigmoid
 * focal loss) under their own specs, the shipped skills' plan on sm_90 -- latency-bound,
 * memory-bound, or of unknown class (nothing measured) -- puts a candidate of the rewrite
 * among the first five proposals, baseline included (a `--budget 5` run). */
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

#define ROOFLINE_PCT 14.0 /* the wild kernels ran at 4-27% of their roofline bound */
#define BUDGET 5

static sk_set *skills;

static int setup(void **state)
{
    (void)state;
    char err[4096];
    if (rwf_setup("search-divmod"))
        return -1;
    return sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sk_set_free(skills);
    return rwf_teardown();
}

static const wanted divmod = {"fast_divmod", "hk_fdiv_make_s("};

static const enum sk_class classes[] = {SK_LATENCY_BOUND, SK_MEMORY_BOUND, SK_CLASS_COUNT};

/* The skill's sample kernel: a grid-stride loop of 256-thread blocks. */
static void sample_kernel(void **state)
{
    (void)state;
    fixture fx;
    load_path(HK_TEST_DATA "/skills/kernels/fast_divmod.cu", &fx);
    size_t k = kernel(&fx, "nchw_gather");
    search_launch l = {.block = {256, 1, 1}, .block_max_threads = 256, .sm_count = 132};
    for (size_t i = 0; i < HK_ARRAY_LEN(classes); i++)
        assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &fx, k, NULL, l, classes[i], "nchw_gather", &divmod));
    unload(&fx);
}

/* The wild kernels under their specs, where their sources are extracted. */
static void wild_kernels(void **state)
{
    (void)state;
    static const char *const ids[] = {"mmcv_roi_align_fwd", "mmcv_carafe_naive_fwd", "mmcv_tin_shift_fwd",
                                      "mmcv_deform_im2col", "mmcv_bbox_overlaps", "mmcv_psamask_collect_fwd",
                                      "mmcv_sigmoid_focal_loss_fwd"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ids); i++) {
        wild_kernel w;
        if (!wild_open(ids[i], &w))
            continue;
        for (size_t c = 0; c < HK_ARRAY_LEN(classes); c++)
            assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &w.fx, w.k, w.sp, w.l, classes[c], ids[i], &divmod));
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
