/* rw_fixture.h's queued compile checks (issue 14: CI time): rwf_nvcc_compiles queues a text,
 * rwf_nvcc_queued compiles the queue with nvcc_batch.h. Texts that can share a translation
 * unit are compiled in one nvcc run; a text that does not compile fails alone, the texts
 * beside it in its batch pass; a tag queued twice keeps both texts; a strict text
 * (rwf_nvcc_compiles_strict) fails on a warning too, named, in the same few runs. Texts
 * queued for their PTX (rwf_nvcc_ptx) share one nvcc -ptx run, and each text's PTX, cut back
 * out of the batch's, holds its own code and the shared functions and tables it uses, never
 * another text's; a PTX that cannot be cut per text (an extern "C" entry, a statement it
 * cannot read) is refused, and its texts are compiled alone. Skipped without nvcc (the
 * cutting's own cases run without it). */
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

/* A text's PTX check (rwf_nvcc_ptx): arg, a NULL-terminated list of what it must hold then
 * a NULL, then what it must not. */
static void ptx_has_not(const char *name, const char *ptx, const void *arg)
{
    const char *const *w = arg;
    for (; *w; w++) {
        if (!strstr(ptx, *w))
            print_message("%s: no `%s` in its PTX:\n%s\n", name, *w, ptx);
        assert_non_null(strstr(ptx, *w));
    }
    for (w++; *w; w++) {
        if (strstr(ptx, *w))
            print_message("%s: `%s` in its PTX:\n%s\n", name, *w, ptx);
        assert_null(strstr(ptx, *w));
    }
}

/* Three PTX texts in one nvcc -ptx run: a sine (the math library's reduction tables, shared
 * by no namespace), a double product, a template function kept out of line; each text's PTX
 * has its own entry and what it calls, and neither the others' entries nor their tables. */
static void ptx_texts_share_one_run_cut_per_text(void **state)
{
    (void)state;
    SKIP_WITHOUT_NVCC();
    static const char *const want_a[] = {".entry _ZN8hk_nvb_02kaEPf(", "__cudart_i2opi_f", NULL,
                                         "2kbE", "2kcE", "5twice", NULL};
    static const char *const want_b[] = {".entry _ZN8hk_nvb_12kbEPd(", "mul.f64", NULL,
                                         "2kaE", "2kcE", "__cudart_i2opi_f", "5twice", NULL};
    static const char *const want_c[] = {".entry _ZN8hk_nvb_22kcEPi(",
                                         ".func  (.param .b32 func_retval0) _ZN8hk_nvb_25twiceIiEET_S1_(", NULL,
                                         "2kaE", "2kbE", "__cudart_i2opi_f", NULL};
    rwf_nvcc_ptx("__global__ void ka(float *x) { x[threadIdx.x] = sinf(x[threadIdx.x] * 1e6f); }\n",
                 "p_a", ptx_has_not, want_a);
    rwf_nvcc_ptx("__global__ void kb(double *x) { x[0] = x[1] * x[2]; }\n", "p_b", ptx_has_not, want_b);
    rwf_nvcc_ptx("template <typename T> __device__ __noinline__ T twice(T v) { return v + v; }\n"
                 "__global__ void kc(int *x) { x[0] = twice(x[1]); }\n",
                 "p_c", ptx_has_not, want_c);
    rwf_nvcc_queued(NULL);
    assert_int_equal(nvb_runs, 1);
    assert_int_equal(nvb_n_jobs, 0);
}

/* The cutting itself, on PTX written here (no nvcc): texts 0 and 10 of a batch of 11, a prototype,
 * a table only text 10's function names, a shared function named through it, a variable no
 * text names (every text's), comment lines going to the text they name; an entry
 * of no namespace, a name of two namespaces, a statement that does not end and a directive
 * it does not read (.file) are refused. */
static void ptx_cut_by_namespace(void **state)
{
    (void)state;
    static const char head[] = "//\n// Generated by NVIDIA NVVM Compiler\n//\n\n.version 9.0\n.target sm_90\n"
                               ".address_size 64\n";
    static const char body[] =
        "\t// .globl\t_ZN8hk_nvb_01kEv\n"
        ".func  (.param .b32 func_retval0) _ZN9hk_nvb_105helpEf\n(\n\t.param .b32 p\n)\n;\n"
        ".func shared_fn\n(\n)\n;\n"
        ".global .align 4 .b8 tab[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
        ".global .align 4 .b8 unnamed_by_any[4];\n"
        ".visible .entry _ZN8hk_nvb_01kEv(\n)\n{\n\tret;\n}\n"
        "\t// .globl\t_ZN9hk_nvb_101gEv\n"
        ".visible .entry _ZN9hk_nvb_101gEv(\n)\n{\n\t{ // callseq 0\n\tcall.uni _ZN9hk_nvb_105helpEf, ();\n\t}\n}\n"
        ".func  (.param .b32 func_retval0) _ZN9hk_nvb_105helpEf(\n\t.param .b32 p\n)\n{\n"
        "\tmov.u64 %rd1, tab;\n\tcall.uni shared_fn, ();\n}\n"
        ".func shared_fn(\n)\n{\n\tret;\n}\n";
    char ptx[4096], *cut[11];
    snprintf(ptx, sizeof ptx, "%s\n%s", head, body);
    assert_true(nvb_ptx_split(ptx, 11, cut));
    /* text 0 (8hk_nvb_0, then its kernel 1k): its entry with its comment, and what every
     * text has */
    assert_int_equal(strncmp(cut[0], head, strlen(head)), 0);
    assert_non_null(strstr(cut[0], "// .globl\t_ZN8hk_nvb_01kEv\n"));
    assert_non_null(strstr(cut[0], ".visible .entry _ZN8hk_nvb_01kEv(\n)\n{\n\tret;\n}\n"));
    assert_non_null(strstr(cut[0], "unnamed_by_any"));
    assert_null(strstr(cut[0], "hk_nvb_10"));
    assert_null(strstr(cut[0], "tab"));
    assert_null(strstr(cut[0], "shared_fn"));
    /* text 10 (9hk_nvb_10, then 1g and 5help): its entry, its function and prototype, the table and shared_fn it names */
    assert_non_null(strstr(cut[10], ".visible .entry _ZN9hk_nvb_101gEv("));
    assert_non_null(strstr(cut[10], ".func  (.param .b32 func_retval0) _ZN9hk_nvb_105helpEf(\n"));
    assert_non_null(strstr(cut[10], "_ZN9hk_nvb_105helpEf\n(\n\t.param .b32 p\n)\n;\n"));
    assert_non_null(strstr(cut[10], ".global .align 4 .b8 tab[8]"));
    assert_non_null(strstr(cut[10], ".func shared_fn\n(\n)\n;\n"));
    assert_non_null(strstr(cut[10], ".func shared_fn(\n)\n{\n\tret;\n}\n"));
    assert_non_null(strstr(cut[10], "unnamed_by_any"));
    assert_null(strstr(cut[10], "hk_nvb_01k"));
    assert_non_null(strstr(cut[10], "// .globl\t_ZN9hk_nvb_101gEv\n"));
    assert_int_equal(strncmp(cut[10], head, strlen(head)), 0);
    /* a text with nothing of its own: the header and what no text names */
    assert_non_null(strstr(cut[5], "unnamed_by_any"));
    assert_null(strstr(cut[5], ".entry"));
    for (size_t k = 0; k < 11; k++)
        free(cut[k]);
    /* refused: an entry of no namespace (extern "C"), a position past the batch, two
     * namespaces in one name, a body that does not end, a directive not read here */
    static const char *const bad[] = {
        ".visible .entry ck(\n)\n{\n\tret;\n}\n",
        ".visible .entry _ZN9hk_nvb_111kEv(\n)\n{\n\tret;\n}\n",
        ".global .align 4 .b8 _ZN8hk_nvb_01tIN8hk_nvb_11uEEE[4];\n",
        ".visible .entry _ZN8hk_nvb_01kEv(\n)\n{\n\tret;\n",
        ".file\t1 \"/tmp/x.cu\"\n.visible .entry _ZN8hk_nvb_01kEv(\n)\n{\n\tret;\n}\n",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
        snprintf(ptx, sizeof ptx, "%s\n%s", head, bad[i]);
        if (nvb_ptx_split(ptx, 11, cut))
            fail_msg("cut, expected refused: %s", bad[i]);
    }
}

/* An extern "C" kernel keeps its name in a namespace: the batch's PTX cannot be cut, so
 * both texts are compiled alone, and each PTX is still its own. */
static void an_extern_c_entry_compiles_alone(void **state)
{
    (void)state;
    SKIP_WITHOUT_NVCC();
    static const char *const want_d[] = {".entry kd(", NULL, "keEPf", NULL};
    static const char *const want_e[] = {".entry _Z2kePf(", NULL, "kd(", NULL};
    rwf_nvcc_ptx("extern \"C\" __global__ void kd(float *x) { x[0] = 1.f; }\n", "p_d", ptx_has_not, want_d);
    rwf_nvcc_ptx("__global__ void ke(float *x) { x[1] = 2.f; }\n", "p_e", ptx_has_not, want_e);
    rwf_nvcc_queued(NULL);
    assert_int_equal(nvb_runs, 3); /* the batch, then each alone */
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
        cmocka_unit_test(ptx_texts_share_one_run_cut_per_text),
        cmocka_unit_test(ptx_cut_by_namespace),
        cmocka_unit_test(an_extern_c_entry_compiles_alone),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
