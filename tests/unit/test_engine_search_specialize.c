/* The search proposes specialize_constants early (issue 13): for the skill's sample kernel
 * (a pooling window whose size, stride and mode every launch passes as literals) and, where
 * bench/wild/src is extracted, mmcv's window kernels whose specs pass window sizes, strides
 * and modes as literals (CARAFE, deform_im2col, roi_align; Rodinia's hotspot, its pyramid
 * height, latency- and memory-bound only), the shipped skills' plan on
 * sm_90 -- latency-bound, memory-bound, or of unknown class (nothing measured) -- puts a
 * candidate of the rewrite among the first five proposals, baseline included (a `--budget
 * 5` run). */
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
    if (rwf_setup("search-specialize"))
        return -1;
    return sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sk_set_free(skills);
    return rwf_teardown();
}

static const wanted specialize = {"specialize_constants", "specialize_constants: the values the launches pass"};

static const enum sk_class classes[] = {SK_LATENCY_BOUND, SK_MEMORY_BOUND, SK_CLASS_COUNT};

/* The skill's sample kernel: 128-thread blocks, its values from its launch site. */
static void sample_kernel(void **state)
{
    (void)state;
    fixture fx;
    load_path(HK_TEST_DATA "/skills/kernels/specialize_constants.cu", &fx);
    size_t k = kernel(&fx, "max_pool");
    search_launch l = {.block = {128, 1, 1}, .block_max_threads = 128, .sm_count = 132};
    for (size_t i = 0; i < HK_ARRAY_LEN(classes); i++)
        assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &fx, k, NULL, l, classes[i], "max_pool", &specialize));
    unload(&fx);
}

/* The wild kernels under their specs, where their sources are extracted. */
static void wild_kernels(void **state)
{
    (void)state;
    static const char *const ids[] = {"mmcv_carafe_naive_fwd", "mmcv_deform_im2col", "mmcv_roi_align_fwd",
                                      "rodinia_hotspot"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ids); i++) {
        wild_kernel w;
        if (!wild_open(ids[i], &w))
            continue;
        /* hotspot's one loop over the pyramid is no window the skills' query sees: with no
         * class measured only the query offers a structural rewrite, so it is asked under the
         * classes a measurement gives (latency-bound on the H200) */
        size_t n_classes = strcmp(ids[i], "rodinia_hotspot") ? HK_ARRAY_LEN(classes) : 2;
        for (size_t c = 0; c < n_classes; c++)
            assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &w.fx, w.k, w.sp, w.l, classes[c], ids[i], &specialize));
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
