/* rw_fixture.h's queued compile checks (issue 14: CI time): rwf_nvcc_compiles queues a text,
 * rwf_nvcc_queued compiles the queue with nvcc_batch.h. Texts that can share a translation
 * unit are compiled in one nvcc run; a text that does not compile fails alone, the texts
 * beside it in its batch pass; a tag queued twice keeps both texts; a strict text
 * (rwf_nvcc_compiles_strict) fails on a warning too, named, in the same few runs. Skipped
 * without nvcc. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "rw_fixture.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-nvcc-queue");
}

static int teardown(void **state)
{
    (void)state;
    nvb_reset();
    return rwf_teardown();
}

#define SKIP_WITHOUT_NVCC()                                            \
    do {                                                               \
        if (access(NVCC, X_OK) != 0) {                                 \
            print_message("skipped: no nvcc at %s\n", NVCC);           \
            skip();                                                    \
        }                                                              \
    } while (0)

/* Three texts that compile, one with a macro and one with a template kernel and its
 * instantiation: one nvcc run for all three, and the queue is empty afterwards. */
static void queued_texts_share_one_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_NVCC();
    rwf_nvcc_compiles("__global__ void a(float *p) { p[threadIdx.x] *= 2.f; }\n", "q_a");
    rwf_nvcc_compiles("#define LANES 4\n__global__ void b(float *p) { p[LANES] = 1.f; }\n", "q_b");
    rwf_nvcc_compiles("template <typename T> __global__ void c(T *p) { p[0] = T(1); }\n"
                      "template __global__ void c<double>(double *);\n",
                      "q_c");
    assert_int_equal(nvb_n_jobs, 3);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(access(nvb_jobs[i].path, R_OK), 0); /* DIR/TAG.cu, as before */
    rwf_nvcc_queued(NULL);
    assert_int_equal(nvb_runs, 1);
    assert_int_equal(nvb_n_jobs, 0);
}

/* A text that does not compile (a name its host code never declares) fails alone; the one
 * batched with it passes. */
static void a_failing_text_fails_alone(void **state)
{
    (void)state;
    SKIP_WITHOUT_NVCC();
    rwf_nvcc_compiles("__global__ void good(float *p) { p[0] = 1.f; }\n", "q_good");
    rwf_nvcc_compiles("__global__ void k(float *p) { p[0] = 1.f; }\n"
                      "void launch(float *p) { k<<<1, 1>>>(p); not_declared(p); }\n",
                      "q_bad");
    assert_int_equal(nvb_check_all(tmpdir), 1);
    assert_false(nvb_jobs[0].failed);
    assert_true(nvb_jobs[1].failed);
    assert_true(nvb_runs >= 2); /* the batch, then each text alone */
    nvb_reset();
}

/* A tag queued twice (a test checking two texts under one name): each text gets a file of
 * its own (TAG.cu, TAG_2.cu, ...) and both are compiled; the second one failing fails. */
static void a_tag_queued_twice_checks_both(void **state)
{
    (void)state;
    SKIP_WITHOUT_NVCC();
    assert_false(rwf_nvcc_tag_queued("q_twice"));
    rwf_nvcc_compiles("__global__ void t1(float *p) { p[0] = 1.f; }\n", "q_twice");
    rwf_nvcc_compiles("__global__ void t2(float *p) { p[0] = undeclared; }\n", "q_twice");
    rwf_nvcc_compiles("__global__ void t3(float *p) { p[0] = 3.f; }\n", "q_twice");
    assert_int_equal(nvb_n_jobs, 3);
    assert_string_equal(nvb_jobs[0].name, "q_twice");
    assert_string_equal(nvb_jobs[1].name, "q_twice_2");
    assert_string_equal(nvb_jobs[2].name, "q_twice_3");
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(access(nvb_jobs[i].path, R_OK), 0);
    assert_int_equal(nvb_check_all(tmpdir), 1);
    assert_false(nvb_jobs[0].failed);
    assert_true(nvb_jobs[1].failed);
    assert_false(nvb_jobs[2].failed);
    nvb_reset();
    assert_false(rwf_nvcc_tag_queued("q_twice"));
}

/* Strict texts that compile cleanly, one with #pragma unroll, share one nvcc run. */
static void strict_texts_share_one_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_NVCC();
    rwf_nvcc_compiles_strict("__global__ void s1(float *p) { p[threadIdx.x] *= 2.f; }\n", "q_s1");
    rwf_nvcc_compiles_strict("__global__ void s2(float *p) {\n#pragma unroll 4\n"
                             "  for (int i = 0; i < 8; i++) p[i] += 1.f;\n}\n", "q_s2");
    assert_int_equal(nvb_n_jobs, 2);
    assert_true(nvb_jobs[0].strict && nvb_jobs[1].strict);
    assert_non_null(nvb_jobs[1].includes); /* #pragma unroll does not keep it alone */
    assert_int_equal(nvb_check_all(tmpdir), 0);
    assert_int_equal(nvb_runs, 1);
    nvb_reset();
}

/* A strict text with a warning (a variable never referenced: nvcc's #177-D) fails, alone and
 * named, though its batch compiles; the strict text beside it passes, and so does a
 * non-strict text with the same warning, in a batch of its own (strict texts are batched
 * only with strict texts). */
static void a_warning_fails_its_strict_text(void **state)
{
    (void)state;
    SKIP_WITHOUT_NVCC();
    rwf_nvcc_compiles_strict("__global__ void w1(float *p) { p[0] = 1.f; }\n", "q_clean");
    rwf_nvcc_compiles_strict("__global__ void w2(float *p) { int unused_here = 1; p[0] = 2.f; }\n",
                             "q_warns");
    rwf_nvcc_compiles("__global__ void w3(float *p) { int unused_too = 1; p[0] = 3.f; }\n",
                      "q_lenient");
    assert_non_null(nvb_jobs[1].includes); /* batched with the others */
    assert_int_equal(nvb_check_all(tmpdir), 1);
    assert_false(nvb_jobs[0].failed);
    assert_true(nvb_jobs[1].failed);
    assert_false(nvb_jobs[2].failed);
    /* the strict batch, then its two texts alone; the lenient text's batch */
    assert_int_equal(nvb_runs, 4);
    nvb_reset();
}

/* A strict text with a #pragma that could silence the next texts' warnings is compiled
 * alone; a warning in a strict text after it still fails that text. */
static void a_diagnostic_pragma_keeps_its_text_alone(void **state)
{
    (void)state;
    SKIP_WITHOUT_NVCC();
    rwf_nvcc_compiles_strict("#pragma nv_diag_suppress 177\n"
                             "__global__ void d1(float *p) { p[0] = 1.f; }\n", "q_pragma");
    rwf_nvcc_compiles_strict("__global__ void d2(float *p) { int unused_here = 1; p[0] = 2.f; }\n",
                             "q_after");
    assert_null(nvb_jobs[0].includes);
    assert_int_equal(nvb_check_all(tmpdir), 1);
    assert_false(nvb_jobs[0].failed);
    assert_true(nvb_jobs[1].failed);
    nvb_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(queued_texts_share_one_run),
        cmocka_unit_test(a_failing_text_fails_alone),
        cmocka_unit_test(a_tag_queued_twice_checks_both),
        cmocka_unit_test(strict_texts_share_one_run),
        cmocka_unit_test(a_warning_fails_its_strict_text),
        cmocka_unit_test(a_diagnostic_pragma_keeps_its_text_alone),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
