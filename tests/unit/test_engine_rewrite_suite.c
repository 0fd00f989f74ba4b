/* Every rewrite on every kernel of the project's suite (bench/kernels) compiles with the real
 * nvcc -arch=sm_90: launch bounds, restrict/const, grid-stride, and all three composed.
 * Device code only, several texts per nvcc run, two runs at a time through the runner pool
 * (nvcc_batch.h). No nvcc: the test says so and skips. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"
#include "runners/runner.h"

#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "nvcc_batch.h" /* after NVCC */
#define SUITE HK_TEST_DATA "/../../bench/kernels"

static char tmpdir[512];

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/test-rewrite-suite-XXXXXX", HK_BINARY_DIR);
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes text as a compile job (nvcc_batch.h). */
static void add_job(const char *name, const char *text, size_t len)
{
    nvb_add(tmpdir, name, text, len);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Applies the rewrites to each kernel of one suite file, adding a job per result. */
static void rewrite_file(const char *file, size_t *gs_applied)
{
    char path[900], base[256];
    snprintf(path, sizeof path, "%s/%.255s", SUITE, file);
    snprintf(base, sizeof base, "%.*s", (int)(strlen(file) - 3), file);
    size_t len;
    char *text = slurp(path, &len);
    an_model *m;
    assert_int_equal(an_analyze(text, len, &m), HK_OK);
    for (size_t k = 0; k < m->n_funcs; k++) {
        if (m->funcs[k].kind != AN_KERNEL)
            continue;
        char name[300];
        rw_result lb, rs, gs;
        assert_int_equal(rw_launch_bounds(text, len, m, k, 256, 2, &lb), HK_OK);
        assert_true(lb.applicable);
        snprintf(name, sizeof name, "%s_%zu_lb", base, k);
        add_job(name, lb.text, lb.len);
        assert_int_equal(rw_restrict(text, len, m, k, true, &rs), HK_OK);
        if (rs.applicable) {
            snprintf(name, sizeof name, "%s_%zu_restrict", base, k);
            add_job(name, rs.text, rs.len);
        }
        assert_int_equal(rw_grid_stride(text, len, m, k, &gs), HK_OK);
        print_message("%s: %s\n", base, gs.description);
        if (gs.applicable) {
            (*gs_applied)++;
            snprintf(name, sizeof name, "%s_%zu_gridstride", base, k);
            add_job(name, gs.text, gs.len);
            /* all three composed, each on the previous result */
            an_model *m1, *m2;
            rw_result a, b;
            assert_int_equal(an_analyze(gs.text, gs.len, &m1), HK_OK);
            assert_int_equal(rw_restrict(gs.text, gs.len, m1, k, true, &a), HK_OK);
            const char *t1 = a.applicable ? a.text : gs.text;
            size_t l1 = a.applicable ? a.len : gs.len;
            assert_int_equal(an_analyze(t1, l1, &m2), HK_OK);
            assert_int_equal(rw_launch_bounds(t1, l1, m2, k, 512, 0, &b), HK_OK);
            assert_true(b.applicable);
            snprintf(name, sizeof name, "%s_%zu_all", base, k);
            add_job(name, b.text, b.len);
            an_model_free(m1);
            an_model_free(m2);
            rw_result_free(&a);
            rw_result_free(&b);
        }
        rw_result_free(&lb);
        rw_result_free(&rs);
        rw_result_free(&gs);
    }
    an_model_free(m);
    free(text);
}

static void test_suite_rewrites_compile(void **state)
{
    if (access(NVCC, X_OK) != 0) {
        print_message("skipped: no nvcc at %s\n", NVCC);
        skip();
    }
    DIR *d = opendir(SUITE);
    if (!d) {
        print_message("skipped: no kernel suite at %s\n", SUITE);
        skip();
    }
    char files[64][256];
    size_t n_files = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n_files < 64) {
        size_t l = strlen(de->d_name);
        if (l > 3 && strcmp(de->d_name + l - 3, ".cu") == 0)
            snprintf(files[n_files++], sizeof files[0], "%s", de->d_name);
    }
    closedir(d);
    qsort(files, n_files, sizeof files[0], (int (*)(const void *, const void *))strcmp);
    assert_true(n_files >= 5);
    size_t gs_applied = 0;
    for (size_t i = 0; i < n_files; i++)
        rewrite_file(files[i], &gs_applied);
    assert_true(gs_applied >= 4);   /* the 1D elementwise kernels of the suite */

    nvb_compile_all(tmpdir);
}

/* The batched check fails every text that fails alone, also where another text in the same
 * nvcc run could have hidden it: an error in host code, a brace or a comment opened by one
 * text and closed by the next, a header only another text includes, a macro only another
 * text defines. The texts that compile pass. */
static void test_batched_check_fails_what_fails_alone(void **state)
{
    if (access(NVCC, X_OK) != 0) {
        print_message("skipped: no nvcc at %s\n", NVCC);
        skip();
    }
    /* pairs checked together, so that one pair's batch holds no other error */
    static const struct {
        const char *name, *text;
        bool fails;
    } cases[][2] = {
        {{"good", "__global__ void good(float *p) { p[0] = 1.f; }\n", false},
         {"host_undefined", "__global__ void k(float *p) { p[0] = 1.f; }\n"
                            "void launch(float *p) { k<<<1, 1>>>(p); undefined_fn(p); }\n", true}},
        {{"brace_open", "__global__ void a(float *p) { p[0] = 1.f;\n", true},
         {"brace_close", "__global__ void b(float *p) { p[0] = 2.f; }\n}\n", true}},
        {{"comment_open", "__global__ void c(float *p) { p[0] = 1.f; }\n/*\n", true},
         {"comment_close", "*/\n__global__ void d(float *p) { p[0] = 2.f; }\n", true}},
        {{"half_included", "#include <cuda_fp16.h>\n"
                           "__global__ void e(__half *p) { p[0] = __float2half(1.f); }\n", false},
         {"half_not_included", "__global__ void f(__half *p) { p[0] = __float2half(1.f); }\n", true}},
        {{"macro_defined", "#define N_LANES 4\n__global__ void g(float *p) { p[N_LANES] = 1.f; }\n",
          false},
         {"macro_not_defined", "__global__ void h(float *p) { p[N_LANES] = 1.f; }\n", true}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t i = 0; i < 2; i++)
            nvb_add(tmpdir, cases[c][i].name, cases[c][i].text, strlen(cases[c][i].text));
        assert_int_equal(nvb_check_all(tmpdir), (long)cases[c][0].fails + cases[c][1].fails);
        for (size_t i = 0; i < 2; i++) {
            if (nvb_jobs[i].failed != cases[c][i].fails)
                print_message("%s: %s\n", cases[c][i].name, cases[c][i].fails ? "passed" : "failed");
            assert_int_equal(nvb_jobs[i].failed, cases[c][i].fails);
        }
        nvb_reset();
    }
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suite_rewrites_compile),
        cmocka_unit_test(test_batched_check_fails_what_fails_alone),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
