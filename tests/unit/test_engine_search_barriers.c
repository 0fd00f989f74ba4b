/* The search proposes merge_barriers early (issue 13): for the skill's sample kernel (two tiles
 * filled in two stages) and, where bench/wild/src is extracted, Rodinia's srad_cuda_1 under its
 * own spec (49% of its roofline on the H200, 1.00x so far), the shipped skills' plan on sm_90 --
 * memory-bound or of unknown class (nothing measured) -- puts a candidate of the rewrite among
 * the first four proposals, baseline included (the wild run's `--budget 4`), and that
 * candidate's text is the rewrite's (its removed barriers marked). */
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

#define ROOFLINE_PCT 49.0 /* rodinia_srad1's baseline on the H200 */
#define BUDGET 4

static sk_set *skills;

static int setup(void **state)
{
    (void)state;
    char err[4096];
    if (rwf_setup("search-barriers"))
        return -1;
    return sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sk_set_free(skills);
    return rwf_teardown();
}

static const wanted merge = {"merge_barriers", "/* hk merge_barriers: no barrier needed here */"};
static const enum sk_class classes[] = {SK_MEMORY_BOUND, SK_CLASS_COUNT};

static void sample_kernel(void **state)
{
    (void)state;
    fixture fx;
    load_path(HK_TEST_DATA "/skills/kernels/merge_barriers.cu", &fx);
    size_t k = kernel(&fx, "blend_tiles");
    search_launch l = {.block = {256, 1, 1}, .block_max_threads = 256, .sm_count = 132};
    for (size_t i = 0; i < HK_ARRAY_LEN(classes); i++)
        assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &fx, k, NULL, l, classes[i], "blend_tiles", &merge));
    unload(&fx);
}

static void wild_srad(void **state)
{
    (void)state;
    wild_kernel w;
    if (!wild_open("rodinia_srad1", &w))
        return;
    for (size_t i = 0; i < HK_ARRAY_LEN(classes); i++)
        assert_true(proposed_early(skills, BUDGET, ROOFLINE_PCT, &w.fx, w.k, w.sp, w.l, classes[i], "rodinia_srad1",
                                   &merge));
    wild_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_kernel),
        cmocka_unit_test(wild_srad),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
