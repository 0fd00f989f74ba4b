/* The writable globals of a kernel image (include/hk_harness.h: hk_kglobals_each,
 * hk_kglobals_ranges), which every launcher restores before every launch so that no launch
 * carries state to the next: read from real images that nvcc (and hipcc, where it is) build
 * here from tests/data/kglobals/globals.cu -- a namespaced, a templated, a file-local, a
 * const and an initialised variable are found by their symbols, the __constant__ and the
 * __shared__ are not; the ranges the launcher copies, a spec constant splitting one;
 * images it cannot read; and the launch_state reason (exit code, argv, message table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hk.h"
#include "core/i18n.h"
#include "hk_harness.h"
#include "measure/harness.h"
#include "measure/kimage.h"
#include "measure/measure.h"
#include "test_nvcc.h"

static char dir[] = "/tmp/hk-kglobals-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = hk_malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

#define MAX_FOUND 32
typedef struct {
    size_t n;
    hk_kglobal g[MAX_FOUND];
} found;

static int collect(void *ctx, const hk_kglobal *g)
{
    found *f = ctx;
    assert_true(f->n < MAX_FOUND);
    f->g[f->n++] = *g;
    return 0;
}

static int stop_at_first(void *ctx, const hk_kglobal *g)
{
    (void)ctx;
    (void)g;
    return 7;
}

static const hk_kglobal *find(const found *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->g[i].name, name))
            return &f->g[i];
    return NULL;
}

/* Builds globals.cu with cmd_fmt (%s: the output, then the source) into dir/out; its bytes. */
static unsigned char *build(const char *cmd_fmt, const char *out, size_t *len)
{
    char path[300], cmd[1024];
    snprintf(path, sizeof path, "%s/%s", dir, out);
    snprintf(cmd, sizeof cmd, cmd_fmt, path, HK_TEST_DATA "/kglobals/globals.cu");
    if (system(cmd) != 0)
        fail_msg("failed: %s", cmd);
    return slurp(path, len);
}

/* nvcc -cubin -arch=sm_90, as the referee builds an image: the six writable variables by
 * their symbols (mangled where C++ mangles them), each in its section with its ELF size;
 * taps (__constant__) and tile (__shared__) are not among them. */
static void test_cubin(void **state)
{
    (void)state;
    if (access(NVCC, X_OK) != 0)
        skip();
    char fmt[600];
    snprintf(fmt, sizeof fmt, "%s -cubin -arch=sm_90 -o %%s %%s", NVCC);
    size_t len = 0;
    unsigned char *img = build(fmt, "globals.cubin", &len);
    found f = {0};
    assert_int_equal(hk_kglobals_each(img, len, collect, &f), 0);
    assert_int_equal(f.n, 6);
    static const struct { const char *name, *section; uint64_t size; } want[] = {
        {"_ZN5stage7retiredE", ".nv.global", 4},   /* namespace, zero-initialised */
        {"_ZN5stage4biasE", ".nv.global.init", 32}, /* namespace, initialised */
        {"_Z5scaleIfE", ".nv.global.init", 4},      /* a variable template's instance */
        {"file_local_hits", ".nv.global", 4},       /* static */
        {"weights", ".nv.global.init", 16},         /* const, in writable memory */
        {"spill", ".nv.global", 8},                 /* a pointer */
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const hk_kglobal *g = find(&f, want[i].name);
        if (!g)
            fail_msg("%s not found", want[i].name);
        assert_string_equal(g->section_name, want[i].section);
        assert_int_equal(g->size, want[i].size);
        /* .nv.global is NOBITS: the launcher takes its bytes at load as zeros instead of
         * reading memory nothing has written yet */
        assert_int_equal(g->zero_init, !strcmp(want[i].section, ".nv.global"));
    }
    assert_null(find(&f, "taps"));
    for (size_t i = 0; i < f.n; i++)
        assert_null(strstr(f.g[i].name, "tile"));
    /* a walk stops at the callback's answer */
    assert_int_equal(hk_kglobals_each(img, len, stop_at_first, NULL), 7);
    /* the same bytes cut short, or one byte wrong in the header: not read */
    assert_int_equal(hk_kglobals_each(img, 63, collect, &f), -1);
    img[4] = 1; /* a 32-bit ELF */
    assert_int_equal(hk_kglobals_each(img, len, collect, &f), -1);
    hk_free(img);
}

/* hipcc --genco: a clang offload bundle around an AMDGPU ELF. __device__ variables are in
 * .data/.bss, and HIP puts taps (__constant__) there too: the reader lists it, and the
 * launcher leaves it alone by name as a spec constant (test_ranges). The const array is in
 * .rodata here: not writable, not listed. */
static void test_hip_code_object(void **state)
{
    (void)state;
    if (system("command -v hipcc >/dev/null 2>&1") != 0)
        skip();
    size_t len = 0;
    unsigned char *img = build("hipcc --genco --offload-arch=gfx906 -DHK_KGLOBALS_HIP -w -o %s %s",
                               "globals.co", &len);
    assert_int_equal(memcmp(img, "__CLANG_OFFLOAD_BUNDLE__", 24), 0);
    found f = {0};
    assert_int_equal(hk_kglobals_each(img, len, collect, &f), 0);
    assert_non_null(find(&f, "_ZN5stage7retiredE"));
    assert_non_null(find(&f, "_ZN5stage4biasE"));
    assert_non_null(find(&f, "spill"));
    assert_non_null(find(&f, "taps"));
    assert_null(find(&f, "weights"));
    for (size_t i = 0; i < f.n; i++) {
        assert_true(!strcmp(f.g[i].section_name, ".data") || !strcmp(f.g[i].section_name, ".bss"));
        assert_null(strstr(f.g[i].name, ".kd")); /* kernel descriptors are read-only */
        assert_int_equal(f.g[i].zero_init, !strcmp(f.g[i].section_name, ".bss"));
    }
    /* a bundle whose only entry is the host's: no device ELF */
    static const char host_only[] = "__CLANG_OFFLOAD_BUNDLE__"
                                    "\x01\0\0\0\0\0\0\0"                 /* 1 entry */
                                    "\x60\0\0\0\0\0\0\0" "\0\0\0\0\0\0\0\0" /* offset, size */
                                    "\x19\0\0\0\0\0\0\0" "host-x86_64-unknown-linux";
    assert_int_equal(hk_kglobals_each((const unsigned char *)host_only, sizeof host_only - 1,
                                      collect, &f), -1);
    hk_free(img);
}

static hk_kglobal_at var(const char *name, unsigned section, uint64_t offset, uint64_t size,
                         unsigned long long dptr, int resolved, int excluded)
{
    hk_kglobal_at a;
    memset(&a, 0, sizeof a);
    a.g.name = name;
    a.g.section = section;
    a.g.section_name = section == 20 ? ".nv.global" : ".nv.global.init";
    a.g.offset = offset;
    a.g.size = size;
    a.dptr = dptr;
    a.dev_size = resolved ? (size_t)size : 0;
    a.resolved = resolved;
    a.excluded = excluded;
    return a;
}

/* The ranges the launcher copies: one per variable the driver found, never one spanning
 * two (the driver allocates each variable alone, so a copy across two fails: session 32's
 * fingerprint_cache and split_grid_partials, whose arrays sit where the image's layout puts
 * them); none for a spec constant; a variable the driver did not find, counted as not
 * restored. */
static void test_ranges(void **state)
{
    (void)state;
    hk_krange r[8];
    size_t unrestored = 9;
    /* laid out as the image says (section 16 at 0x1000: tag 0..1 MiB, sum after it), as
     * fingerprint_cache's arrays were: still two ranges, each exactly its variable */
    hk_kglobal_at f[] = {
        var("sum", 16, 0x100000, 0x80000, 0x1000 + 0x100000, 1, 0),
        var("tag", 16, 0, 0x100000, 0x1000, 1, 0),
    };
    assert_int_equal(hk_kglobals_ranges(f, 2, r, &unrestored), 2);
    assert_int_equal(unrestored, 0);
    assert_string_equal(f[r[0].first].g.name, "tag"); /* sorted by offset */
    assert_int_equal(r[0].dptr, 0x1000);
    assert_int_equal(r[0].bytes, 0x100000);
    assert_int_equal(r[0].count, 1);
    assert_int_equal(r[1].dptr, 0x1000 + 0x100000);
    assert_int_equal(r[1].bytes, 0x80000);
    /* a variable the driver did not find by name is neither copied nor covered */
    hk_kglobal_at g[] = {
        var("c", 20, 16, 4, 0x1010, 1, 0),
        var("a", 20, 0, 4, 0x1000, 1, 0),
        var("b", 20, 8, 8, 0, 0, 0),
    };
    assert_int_equal(hk_kglobals_ranges(g, 3, r, &unrestored), 2);
    assert_int_equal(unrestored, 1);
    assert_int_equal(r[0].dptr, 0x1000);
    assert_int_equal(r[0].bytes, 4);
    assert_int_equal(r[1].dptr, 0x1010);
    assert_int_equal(r[1].bytes, 4);
    /* a spec constant (HIP's __constant__ in .bss) gets no range */
    hk_kglobal_at h[] = {
        var("x", 20, 0, 4, 0x2000, 1, 0),
        var("taps", 20, 16, 64, 0x2010, 1, 1),
        var("y", 20, 80, 4, 0x2050, 1, 0),
    };
    assert_int_equal(hk_kglobals_ranges(h, 3, r, &unrestored), 2);
    assert_int_equal(unrestored, 0);
    for (size_t k = 0; k < 2; k++) /* never a byte of the constant */
        assert_true(r[k].dptr + r[k].bytes <= 0x2010 || r[k].dptr >= 0x2050);
    /* a variable is copied at the smaller of the image's and the driver's sizes; a size of
     * 0 from the driver is not restored */
    hk_kglobal_at w[] = {
        var("wide", 17, 0, 16, 0x5000, 1, 0),
        var("other", 17, 64, 4, 0x7000, 1, 0),
        var("empty", 17, 96, 4, 0x8000, 1, 0),
    };
    w[0].dev_size = 8;
    w[2].dev_size = 0;
    assert_int_equal(hk_kglobals_ranges(w, 3, r, &unrestored), 2);
    assert_int_equal(r[0].bytes, 8);
    assert_int_equal(r[1].bytes, 4);
    assert_int_equal(unrestored, 1);
    /* no variables: no ranges, no copies */
    assert_int_equal(hk_kglobals_ranges(w, 0, r, &unrestored), 0);
    assert_int_equal(unrestored, 0);
}

/* How much of its local window the launcher zeroes before a candidate's launch
 * (hk_lmem_scrub_size): the larger of the frame and the context's stack, the next of the
 * scrub's sizes up; a frameless kernel is scrubbed too (the stack); past 64 KiB, 0 (its
 * checked process fails launch_state). Stable: the driver raises the stack limit to the
 * scrub's own frame (H100, session 37), and that limit gives the same size again. Session 36
 * sized it by the frame alone, and frameless kernels were not scrubbed at all: a word below a
 * small array kept its mark (tests/gpu/cheats/local_past_end.cu, local_from_int.cu). */
static void test_lmem_scrub_size(void **state)
{
    (void)state;
    static const size_t sizes[] = { HK_LMEM_SIZES };
    size_t n = sizeof sizes / sizeof sizes[0];
    assert_int_equal(sizes[n - 1], HK_LMEM_MOST);
    for (size_t k = 1; k < n; k++)
        assert_true(sizes[k - 1] < sizes[k]);
    assert_int_equal(hk_lmem_scrub_size(0, 0), 256);        /* nothing to reach: the least */
    assert_int_equal(hk_lmem_scrub_size(0, 1024), 1024);    /* frameless, the default stack */
    assert_int_equal(hk_lmem_scrub_size(8, 1024), 1024);    /* local_from_int.cu's 8 B frame */
    assert_int_equal(hk_lmem_scrub_size(16, 1024), 1024);   /* local_past_end.cu's 16 B */
    assert_int_equal(hk_lmem_scrub_size(256, 0), 256);      /* session 36's frame-only case */
    assert_int_equal(hk_lmem_scrub_size(1025, 1024), 1536); /* a frame past the stack */
    assert_int_equal(hk_lmem_scrub_size(4096, 1024), 4096);
    assert_int_equal(hk_lmem_scrub_size(4097, 1024), 8192);
    assert_int_equal(hk_lmem_scrub_size(16, 1536), 1536);   /* a raised limit is followed */
    assert_int_equal(hk_lmem_scrub_size(20000, 1024), 32768);
    assert_int_equal(hk_lmem_scrub_size(HK_LMEM_MOST, 1024), HK_LMEM_MOST);
    assert_int_equal(hk_lmem_scrub_size(HK_LMEM_MOST + 1, 1024), 0); /* past 64 KiB */
    assert_int_equal(hk_lmem_scrub_size(16, HK_LMEM_MOST + 1), 0);
    assert_int_equal(hk_lmem_scrub_size(SIZE_MAX, 1024), 0);
    assert_int_equal(hk_lmem_scrub_size(1024, SIZE_MAX), 0);
    /* every answer holds the reach and is the least size that does; and it is stable: with
     * the limit raised to it (the driver's answer to the scrub's frame), the same again */
    for (size_t frame = 0; frame <= HK_LMEM_MOST + 8; frame += 56)
        for (size_t stack = 0; stack <= 4096; stack += 512) {
            size_t z = hk_lmem_scrub_size(frame, stack);
            size_t reach = frame > stack ? frame : stack;
            if (reach > HK_LMEM_MOST) {
                assert_int_equal(z, 0);
                continue;
            }
            assert_true(z >= reach);
            for (size_t k = 0; k < n; k++)
                if (sizes[k] >= reach) {
                    assert_int_equal(z, sizes[k]);
                    break;
                }
            assert_int_equal(hk_lmem_scrub_size(frame, z > stack ? z : stack), z);
        }
}

/* launch_state end to end on the CPU side: the launcher's exit code and its sentence, the
 * server's reason and argv, the message table's English entry word for word the launcher's
 * format, and the sentence said again in Chinese where it is shown. */
static void test_launch_state_reason(void **state)
{
    (void)state;
    assert_string_equal(harness_exit_reason(HK_EXIT_LAUNCH_STATE), "launch_state");
    assert_int_equal(measure_reason_from_exit(HK_EXIT_LAUNCH_STATE), MEASURE_LAUNCH_STATE);
    assert_string_equal(measure_reason_name(MEASURE_LAUNCH_STATE), "launch_state");
    assert_string_equal(hk_msg_entry(HK_LANG_EN, HK_MSG_MEAS_LAUNCH_STATE), HK_LAUNCH_STATE_FMT);
    assert_string_equal(hk_msg_entry(HK_LANG_EN, HK_MSG_MEAS_LAUNCH_UNRESTORED),
                        HK_LAUNCH_UNRESTORED_FMT);
    assert_string_equal(hk_msg_entry(HK_LANG_EN, HK_MSG_MEAS_LAUNCH_FRAME), HK_LAUNCH_FRAME_FMT);
    /* the launcher's largest scrub is the PTX scan's bound (KIMAGE_LARGE_FRAME) */
    assert_int_equal(KIMAGE_LOCAL_SCRUB_MOST, HK_LMEM_MOST);
    { /* a candidate's frame and stack over the largest scrub (the launcher's check, in Chinese) */
        char frame[512];
        snprintf(frame, sizeof frame, HK_LAUNCH_FRAME_FMT, (size_t)70000, HK_LMEM_MOST);
        char *fz = hk_tr_said(HK_LANG_ZH_CN, frame);
        assert_non_null(fz);
        assert_non_null(strstr(fz, "每线程 70000 字节，超过启动器在每次启动前清零的 65536 字节"));
        hk_free(fz);
    }
    char said[1024];
    snprintf(said, sizeof said, HK_LAUNCH_STATE_FMT, "_ZN5stage7retiredE", (size_t)4, (size_t)0,
             (size_t)1, "0000", "2001");
    char *zh = hk_tr_said(HK_LANG_ZH_CN, said);
    assert_non_null(zh);
    assert_non_null(strstr(zh, "_ZN5stage7retiredE"));
    assert_non_null(strstr(zh, "启动器在每次启动前恢复它们"));
    hk_free(zh);
    /* as a candidate's first launch (a priming launch) fails with it: the launcher's prefix */
    char primed[1200];
    snprintf(primed, sizeof primed, "priming launch at size %d: %s", 1, said);
    assert_non_null(strstr(hk_msg_entry(HK_LANG_EN, HK_MSG_MEAS_PRIMING_AT), "priming launch at size %d: "));
    zh = hk_tr_said(HK_LANG_ZH_CN, primed);
    assert_non_null(zh);
    assert_non_null(strstr(zh, "规模 1 的预热启动"));
    assert_non_null(strstr(zh, "启动器在每次启动前恢复它们"));
    hk_free(zh);
    /* a candidate's run-mode process with its image: --launch-state check */
    const int prime[] = { 1 };
    const long long seeds[] = { 7 };
    const int dists[] = { 0 };
    harness_run r = { .mode = "run", .size = 0, .n_combos = 1, .combo_seeds = seeds,
                      .combo_dists = dists, .n_prime_sizes = 1, .prime_sizes = prime,
                      .module = "kernel.cubin", .function = "k", .launch_state_check = true };
    char **argv = NULL;
    assert_int_equal(harness_run_argv("./bench", &r, &argv), HK_OK);
    bool seen = false;
    for (size_t i = 0; argv[i]; i++)
        if (!strcmp(argv[i], "--launch-state")) {
            assert_non_null(argv[i + 1]);
            assert_string_equal(argv[i + 1], "check");
            seen = true;
        }
    assert_true(seen);
    harness_argv_free(argv);
    r.module = r.function = NULL; /* a program has no image to check */
    assert_int_equal(harness_run_argv("./bench", &r, &argv), HK_EINVAL);
    r.module = "kernel.cubin";
    r.function = "k";
    r.mode = "time"; /* run mode only */
    r.n_combos = 0;
    r.n_prime_sizes = 0;
    assert_int_equal(harness_run_argv("./bench", &r, &argv), HK_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cubin),
        cmocka_unit_test(test_hip_code_object),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_launch_state_reason),
        cmocka_unit_test(test_lmem_scrub_size),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
