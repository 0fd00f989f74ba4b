/* The search proposes channel_chunks early (issue 13, session 26): where bench/wild/src is
 * extracted, mmcv's roi_align (the lockstep form) and carafe (the accumulation form) under
 * their own specs, the shipped skills' plan on sm_90 for a latency-bound kernel (roi_align
 * ran at 13.6-19.9% of its roofline on the H200, carafe at 4.6-7.8%) puts a candidate of the
 * rewrite among the first four proposals, baseline included (the wild run's `--budget 4`),
 * at the chunk the rewrite picks (chunk 0: 8 for both, chunk_choice). */
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

#define BUDGET 4

static sk_set *skills;

static int setup(void **state)
{
    (void)state;
    char err[4096];
    if (rwf_setup("search-chunks"))
        return -1;
    return sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sk_set_free(skills);
    return rwf_teardown();
}

static void wild_kernels(void **state)
{
    (void)state;
    static const struct {
        const char *id;
        double roofline_pct;
        wanted w;
    } cases[] = {
        {"mmcv_roi_align_fwd", 13.6, {"channel_chunks", "a thread takes 8 elements that differ only in `c`"}},
        {"mmcv_carafe_naive_fwd", 4.6, {"channel_chunks", "a thread takes 8 elements that differ only in `c`"}},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        wild_kernel w;
        if (!wild_open(cases[i].id, &w))
            continue;
        assert_true(proposed_early(skills, BUDGET, cases[i].roofline_pct, &w.fx, w.k, w.sp, w.l, SK_LATENCY_BOUND,
                                   cases[i].id, &cases[i].w));
        wild_close(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wild_kernels),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
