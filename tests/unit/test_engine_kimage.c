/* Kernel images: the entries of a real cubin (nvcc -cubin of templates, a namespace, an
 * extern "C" kernel and a device function that is no entry), the spec-name matching rules,
 * and refusals of files that are not images (truncated, not ELF, empty). The same source
 * built as a HIP code object (hipcc --genco for gfx906: a clang offload bundle around an
 * AMDGPU ELF, whose kernels are found by their NAME.kd descriptors) gives the same entries,
 * bundled and bare; bundles without a device entry, or pointing past their end, are
 * refused. The hipcc cases are skipped where hipcc is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hk.h"
#include "measure/kimage.h"

#include "test_nvcc.h"

static char dir[] = "/tmp/hk-kimage-XXXXXX";
static char cubin[600], codeobj[600];

static const char source[] =
    "__device__ float helper(float x) { return x * 2.0f; }\n"
    "template <int B, typename T> __global__ void red(const T *a, T *o, int n)\n"
    "{ int i = blockIdx.x * B + threadIdx.x; if (i < n) o[i] = a[i]; }\n"
    "__global__ void vadd(const float *a, float *c, int n)\n"
    "{ int i = threadIdx.x; if (i < n) c[i] = helper(a[i]); }\n"
    "namespace ns { __global__ void vadd(float x, float *o) { *o = x; } }\n"
    "extern \"C\" __global__ void plain_c(int *o) { *o = 1; }\n"
    "void inst(void) { (void)&red<128, double>; (void)&red<256, float>; }\n";

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    char src[600], hsrc[600], cmd[2048];
    snprintf(src, sizeof src, "%s/k.cu", dir);
    snprintf(hsrc, sizeof hsrc, "%s/k.hip", dir);
    snprintf(cubin, sizeof cubin, "%s/k.cubin", dir);
    snprintf(codeobj, sizeof codeobj, "%s/k.co", dir);
    FILE *f = fopen(src, "w"), *h = fopen(hsrc, "w");
    if (!f || !h)
        return -1;
    fputs(source, f);
    fclose(f);
    fputs("#include <hip/hip_runtime.h>\n", h);
    fputs(source, h);
    fclose(h);
    /* the HIP code object as measure.c builds a DCU candidate's (harness_image_argv) */
    if (system("command -v hipcc >/dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd, "hipcc --genco --offload-arch=gfx906 -O3 -std=c++17 -o %s -x hip %s "
                 ">/dev/null 2>&1", codeobj, hsrc);
        if (system(cmd) != 0)
            return -1;
    }
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

static unsigned char *slurp_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *b = hk_malloc(1 << 20);
    assert_non_null(b);
    *n = fread(b, 1, 1 << 20, f);
    fclose(f);
    return b;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

/* The code object's entries equal the cubin's: the same five kernels (found by their .kd
 * descriptors), the same mangled names, never the device function. */
static void check_hip_entries(const char *path)
{
    char **names = NULL;
    assert_int_equal(kimage_entries(path, &names), HK_OK);
    size_t n = 0;
    for (; names[n]; n++)
        assert_null(strstr(names[n], "helper"));
    assert_int_equal(n, 5);
    char *t1[] = {"128", "double"};
    expect_find(names, "red", t1, 2, "_Z3redILi128EdEvPKT0_PS0_i");
    expect_find(names, "vadd", NULL, 0, "_Z4vaddPKfPfi");
    expect_find(names, "ns::vadd", NULL, 0, "_ZN2ns4vaddEfPf");
    expect_find(names, "plain_c", NULL, 0, "plain_c");
    kimage_names_free(names);
}

static void test_hip_code_object(void **state)
{
    (void)state;
    if (access(codeobj, R_OK) != 0) {
        fprintf(stderr, "skipped: no hipcc here\n");
        skip();
    }
    size_t n = 0;
    unsigned char *b = slurp_bytes(codeobj, &n);
    assert_memory_equal(b, "__CLANG_OFFLOAD_BUNDLE__", 24); /* hipcc --genco bundles */
    check_hip_entries(codeobj);
    /* the bare AMDGPU ELF (the bundle's amdgcn entry) reads the same */
    uint64_t count = le64(b + 24), at = 32, off = 0, size = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t o = le64(b + at), sz = le64(b + at + 8), tl = le64(b + at + 16);
        if (memmem(b + at + 24, tl, "amdgcn", 6)) {
            off = o;
            size = sz;
        }
        at += 24 + tl;
    }
    assert_true(size > 64 && off + size <= n);
    assert_memory_equal(b + off, "\x7f" "ELF", 4);
    char path[700], **names = NULL;
    snprintf(path, sizeof path, "%s/bare.elf", dir);
    write_bytes(path, b + off, size);
    check_hip_entries(path);
    /* the bundle cut before its device entry's bytes: refused, nothing read */
    snprintf(path, sizeof path, "%s/cut.co", dir);
    write_bytes(path, b, off + 16);
    assert_int_equal(kimage_entries(path, &names), HK_EPARSE);
    assert_null(names);
    /* the device entry's size made to run past the file's end */
    unsigned char *bad = hk_malloc(n);
    assert_non_null(bad);
    memcpy(bad, b, n);
    at = 32;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t tl = le64(bad + at + 16);
        if (memmem(bad + at + 24, tl, "amdgcn", 6))
            put64(bad + at + 8, n);
        at += 24 + tl;
    }
    snprintf(path, sizeof path, "%s/long.co", dir);
    write_bytes(path, bad, n);
    assert_int_equal(kimage_entries(path, &names), HK_EPARSE);
    hk_free(bad);
    hk_free(b);
}

/* Bundles made by hand, with no compiler: only a host entry (no device code), an empty
 * bundle, and a header cut short are all refused. */
static void test_bundles_refused(void **state)
{
    (void)state;
    unsigned char b[256];
    memset(b, 0, sizeof b);
    memcpy(b, "__CLANG_OFFLOAD_BUNDLE__", 24);
    put64(b + 24, 1);
    const char host[] = "host-x86_64-unknown-linux";
    put64(b + 32, 100);          /* offset */
    put64(b + 40, 16);           /* size */
    put64(b + 48, sizeof host - 1);
    memcpy(b + 56, host, sizeof host - 1);
    char path[700], **names = NULL;
    snprintf(path, sizeof path, "%s/host-only.co", dir);
    write_bytes(path, b, 200);
    assert_int_equal(kimage_entries(path, &names), HK_EPARSE);
    put64(b + 24, 0);
    write_bytes(path, b, 200);
    assert_int_equal(kimage_entries(path, &names), HK_EPARSE);
    put64(b + 24, 1);
    write_bytes(path, b, 40);    /* the entry table cut short */
    assert_int_equal(kimage_entries(path, &names), HK_EPARSE);
    /* a device triple whose bytes are no ELF */
    const char dev[] = "hipv4-amdgcn-amd-amdhsa--gfx906";
    put64(b + 48, sizeof dev - 1);
    memcpy(b + 56, dev, sizeof dev - 1);
    write_bytes(path, b, 200);
    assert_int_equal(kimage_entries(path, &names), HK_EPARSE);
    assert_null(names);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_not_images),
        cmocka_unit_test(test_hip_code_object),
        cmocka_unit_test(test_bundles_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
