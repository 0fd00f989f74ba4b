/* Kernel images: the entries of a real cubin (nvcc -cubin of templates, a namespace, an
 * extern "C" kernel and a device function that is no entry), the spec-name matching rules,
 * and refusals of files that are not images (truncated, not ELF, empty). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hk.h"
#include "measure/kimage.h"

#include "test_nvcc.h"

static char dir[] = "/tmp/hk-kimage-XXXXXX";
static char cubin[600];

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    char src[600], cmd[2048];
    snprintf(src, sizeof src, "%s/k.cu", dir);
    snprintf(cubin, sizeof cubin, "%s/k.cubin", dir);
    FILE *f = fopen(src, "w");
    if (!f)
        return -1;
    fputs("__device__ float helper(float x) { return x * 2.0f; }\n"
          "template <int B, typename T> __global__ void red(const T *a, T *o, int n)\n"
          "{ int i = blockIdx.x * B + threadIdx.x; if (i < n) o[i] = a[i]; }\n"
          "__global__ void vadd(const float *a, float *c, int n)\n"
          "{ int i = threadIdx.x; if (i < n) c[i] = helper(a[i]); }\n"
          "namespace ns { __global__ void vadd(float x, float *o) { *o = x; } }\n"
          "extern \"C\" __global__ void plain_c(int *o) { *o = 1; }\n"
          "void inst(void) { (void)&red<128, double>; (void)&red<256, float>; }\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -cubin -arch=sm_90 -o %s %s >/dev/null 2>&1", NVCC, cubin, src);
    if (access(NVCC, X_OK) != 0)
        return 0; /* the tests that need the image say so */
    return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static char **entries(void)
{
    if (access(cubin, R_OK) != 0)
        skip();
    char **names = NULL;
    assert_int_equal(kimage_entries(cubin, &names), HK_OK);
    return names;
}

static void test_entries(void **state)
{
    (void)state;
    char **names = entries();
    size_t n = 0;
    bool helper = false, c_kernel = false;
    for (; names[n]; n++) {
        helper |= strstr(names[n], "helper") != NULL;
        c_kernel |= !strcmp(names[n], "plain_c");
    }
    assert_int_equal(n, 5); /* red x2, vadd, ns::vadd, plain_c: never the device function */
    assert_false(helper);
    assert_true(c_kernel);
    kimage_names_free(names);
}

static void expect_find(char **names, const char *kernel, char *const *targs, size_t nt,
                        const char *want)
{
    char *out = NULL, *why = NULL;
    assert_int_equal(kimage_find(names, kernel, targs, nt, &out, &why), HK_OK);
    assert_string_equal(out, want);
    assert_null(why);
    hk_free(out);
}

static void test_find(void **state)
{
    (void)state;
    char **names = entries();
    char *t1[] = {"128", "double"}, *t2[] = {"256", "float"}, *t3[] = {"256", " float "};
    expect_find(names, "red", t1, 2, "_Z3redILi128EdEvPKT0_PS0_i");
    expect_find(names, "red", t2, 2, "_Z3redILi256EfEvPKT0_PS0_i");
    expect_find(names, "red", t3, 2, "_Z3redILi256EfEvPKT0_PS0_i"); /* spaces do not count */
    expect_find(names, "vadd", NULL, 0, "_Z4vaddPKfPfi");           /* exact beats ns::vadd */
    expect_find(names, "ns::vadd", NULL, 0, "_ZN2ns4vaddEfPf");
    expect_find(names, "plain_c", NULL, 0, "plain_c");
    /* two instantiations and no template arguments: which one is meant is unknown */
    char *out = NULL, *why = NULL;
    assert_int_equal(kimage_find(names, "red", NULL, 0, &out, &why), HK_EINVAL);
    assert_null(out);
    assert_non_null(strstr(why, "more than one"));
    hk_free(why);
    why = NULL;
    assert_int_equal(kimage_find(names, "missing", NULL, 0, &out, &why), HK_ENOENT);
    assert_non_null(strstr(why, "red<128, double>")); /* the entries are listed, demangled */
    hk_free(why);
    kimage_names_free(names);
}

static void write_bytes(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
}

static void test_not_images(void **state)
{
    (void)state;
    char path[700], **names = NULL;
    snprintf(path, sizeof path, "%s/bad", dir);
    write_bytes(path, "", 0);
    assert_int_equal(kimage_entries(path, &names), HK_EPARSE);
    write_bytes(path, "#!/bin/sh\necho not an image\n", 28);
    assert_int_equal(kimage_entries(path, &names), HK_EPARSE);
    assert_int_equal(kimage_entries("/nonexistent/k.cubin", &names), HK_ENOENT);
    if (access(cubin, R_OK) != 0)
        return;
    /* a real image cut short: its section table points past the end */
    FILE *f = fopen(cubin, "rb");
    unsigned char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n > 200);
    write_bytes(path, buf, 200);
    assert_int_equal(kimage_entries(path, &names), HK_EPARSE);
    assert_null(names);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_not_images),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
