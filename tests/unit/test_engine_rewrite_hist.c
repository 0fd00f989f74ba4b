/* The per-thread byte counter histogram rewrite (engine/rewrite_hist.h) on the suite's
 * histogram.cu and the shapes in tests/data/rewrite_hist/: applicable rewrites have the
 * expected structure (byte counters, flush, uint4 path or scalar path, shared-atomic
 * fallback), keep the signature and compile with the real nvcc (-arch=sm_90; the byte path's
 * PTX has 128-bit global loads); near-misses are not applicable with their reason; bad
 * arguments are HK_EINVAL; allocation failures give HK_ENOMEM without leaks. A CPU model of
 * the counter layout and the packed flush checks the arithmetic the template relies on.
 * nvcc missing: compile checks say so and pass. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "engine/rewrite.h"
#include "engine/rewrite_hist.h"
#include "engine/rewrite_pattern.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NVCC "/usr/local/cuda/bin/nvcc"
#define BENCH HK_SOURCE_DIR "/bench/kernels"
#define DATA HK_TEST_DATA "/rewrite_hist"

#include "rw_fixture.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrite-hist");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* Compiles text with nvcc -arch=sm_90 (-c, and with ptx_want also to PTX, which must contain
 * that string); fails the test with nvcc's output otherwise. Warnings are shown. */
static void nvcc_compiles(const char *text, const char *tag, const char *ptx_want)
{
    if (access(NVCC, X_OK) != 0) {
        print_message("note: no nvcc at %s, compile check of %s skipped\n", NVCC, tag);
        return;
    }
    char src[700], cmd[2400], out[16384];
    snprintf(src, sizeof src, "%s/%s.cu", tmpdir, tag);
    rwf_write_file(src, text);
    snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -c -std=c++17 -o %s/%s.o %s 2>&1", NVCC, tmpdir, tag, src);
    int st = run_cmd(cmd, out, sizeof out);
    if (st != 0 || strstr(out, "warning"))
        print_message("nvcc on %s:\n%s\n---\n%s\n", tag, out, text);
    assert_int_equal(st, 0);
    assert_null(strstr(out, "warning"));
    if (!ptx_want)
        return;
    snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -ptx -std=c++17 -o %s/%s.ptx %s 2>&1 && grep -c '%s' %s/%s.ptx",
             NVCC, tmpdir, tag, src, ptx_want, tmpdir, tag);
    st = run_cmd(cmd, out, sizeof out);
    if (st != 0)
        print_message("no `%s` in the PTX of %s: %s\n", ptx_want, tag, out);
    assert_int_equal(st, 0);
}

/* Applies the rewrite to kernel kname of path with bins and threads: applicable with every
 * string of want present and every string of unwanted absent, then compiled (tag), or not
 * applicable with why_part in the reason. */
static void expect(const char *path, const char *kname, int bins, int threads, const char *const *want,
                   const char *const *unwanted, const char *ptx_want, const char *why_part)
{
    fixture fx;
    load_path(path, &fx);
    size_t k = kernel(&fx, kname);
    rw_result r;
    assert_int_equal(rw_histogram_thread_counters(fx.text, fx.len, fx.m, k, bins, threads, &r), HK_OK);
    assert_non_null(r.description);
    print_message("%s: %s\n", kname, r.description);
    if (why_part) {
        assert_false(r.applicable);
        assert_null(r.text);
        if (!strstr(r.description, why_part))
            print_message("expected reason containing `%s`\n", why_part);
        assert_non_null(strstr(r.description, why_part));
    } else {
        assert_true(r.applicable);
        assert_int_equal(strlen(r.text), r.len);
        an_model *m;
        assert_int_equal(an_analyze(r.text, r.len, &m), HK_OK);
        assert_false(m->has_errors);
        long k2 = an_model_find_kernel(m, kname);
        assert_true(k2 >= 0);
        assert_string_equal(m->funcs[k2].signature, fx.m->funcs[k].signature);
        /* HK_BINS and HK_T are tunables of the new text */
        int found = 0;
        for (size_t i = 0; i < m->n_tunables; i++)
            if (!strcmp(m->tunables[i].name, "HK_T") || !strcmp(m->tunables[i].name, "HK_BINS"))
                found++;
        assert_int_equal(found, 2);
        an_model_free(m);
        for (size_t i = 0; want && want[i]; i++) {
            if (!strstr(r.text, want[i]))
                print_message("missing `%s` in:\n%s\n", want[i], r.text);
            assert_non_null(strstr(r.text, want[i]));
        }
        for (size_t i = 0; unwanted && unwanted[i]; i++) {
            if (strstr(r.text, unwanted[i]))
                print_message("unexpected `%s` in:\n%s\n", unwanted[i], r.text);
            assert_null(strstr(r.text, unwanted[i]));
        }
        char tag[300];
        snprintf(tag, sizeof tag, "%s_%d_%d", kname, bins, threads);
        nvcc_compiles(r.text, tag, ptx_want);
    }
    rw_result_free(&r);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_bench_histogram(void **state)
{
    (void)state;
    const char *const want[] = {
        "__shared__ unsigned int hk_cnt[HK_BQ * HK_T];", "constexpr int HK_T = 128;", "constexpr int HK_BINS = 256;",
        "if (blockDim.x != HK_T || hk_nthreads != HK_T) {", "atomicAdd(&hk_tot[hk_bin], (unsigned int)1);",
        "const int i = (int)hk_i;", "const long long hk_bin = (long long)(data[i]);",
        "++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];", "hk_ev += hk_v & 0x00ff00ffu;",
        "hk_od += (hk_v >> 8) & 0x00ff00ffu;", "hk_cnt[hk_q * HK_T + hk_c] = 0u;", "(hk_j + hk_lane) % HK_L",
        /* the uint4 path: two loads, then the sixteen counts of each, bytes in memory order */
        "const unsigned char *const hk_src = data;", "reinterpret_cast<const uint4 *>(hk_src + hk_head)",
        "hk_x0 = hk_vec[hk_j];", "hk_x1 = hk_vec[hk_j + HK_T];", "hk_y0 = hk_vec[hk_jn];",
        "hk_y1 = hk_vec[hk_jn + HK_T];", "hk_x0 = hk_y0;", "(int)((unsigned char)(hk_x0.x >> 0))",
        "(int)((unsigned char)(hk_x1.w >> 24))", "(int)((unsigned char)hk_src[hk_tail + hk_g])",
        "constexpr int HK_CHUNK = 7;", "atomicAdd(&bins[hk_b], (unsigned int)hk_tot[hk_b]);",
        "static_assert(HK_BQ * HK_T * 4 + HK_BINS * sizeof(unsigned int) <= 48 * 1024", NULL};
    /* no per-element atomics on the counters, and the original guard is gone */
    const char *const unwanted[] = {"atomicAdd(&hk_cnt", "atomicAdd(&bins[data[i]]", "if (i < n)", NULL};
    expect(BENCH "/histogram.cu", "histogram", 0, 128, want, unwanted, "ld.global.v4.u32", NULL);
    /* another block size: the tunable follows, the shared budget is checked for it */
    const char *const want64[] = {"constexpr int HK_T = 64;", NULL};
    expect(BENCH "/histogram.cu", "histogram", 0, 64, want64, NULL, NULL, NULL);
    expect(BENCH "/histogram.cu", "histogram", 0, 256, NULL, NULL, NULL, "more than the 49152 bytes");
    /* fewer bins given: the bigger byte values go to global memory */
    const char *const want100[] = {"constexpr int HK_BINS = 100;", "atomicAdd(&bins[hk_b], (unsigned int)1);",
                                   NULL};
    expect(BENCH "/histogram.cu", "histogram", 100, 128, want100, NULL, NULL, NULL);
}

static void test_scalar_paths(void **state)
{
    (void)state;
    const char *const want_mod[] = {"constexpr int HK_BINS = 64;", "const long long hk_b = (long long)(v[i] % NBINS);",
                                    "constexpr int HK_CHUNK = 240;", "++hk_c8[(hk_b & ~3ll) * HK_T + (hk_b & 3)];",
                                    "const int i = (int)hk_i;", NULL};
    const char *const no_vec[] = {"uint4", NULL};
    expect(DATA "/hist_kernels.cu", "mod_hist", 0, 128, want_mod, no_vec, NULL, NULL);
    const char *const want_ull[] = {"__shared__ unsigned long long hk_tot[HK_BINS];",
                                    "atomicAdd(&bins[hk_b], (unsigned long long)1);",
                                    "(long long)((int)(x[i] * 16.0f) & 255)", NULL};
    expect(DATA "/hist_kernels.cu", "ull_hist", 0, 128, want_ull, no_vec, NULL, NULL);
    /* 200 bins: 50 quads x 128 threads fit, 50 x 256 do not */
    const char *const want200[] = {"constexpr int HK_BINS = 200;", NULL};
    expect(DATA "/hist_kernels.cu", "hist200", 0, 128, want200, no_vec, NULL, NULL);
    expect(DATA "/hist_kernels.cu", "hist200", 0, 256, NULL, NULL, NULL, "more than the 49152 bytes");
}

static void test_signed_bytes(void **state)
{
    (void)state;
    /* char data: the byte path converts each byte to char, so a negative bin goes to global
     * memory exactly where the original's index is negative */
    const char *const want[] = {"const char *const hk_src = data;", "(int)((char)(hk_x0.y >> 16))",
                                "atomicAdd(&bins[hk_b], (int)1);", "const long i = (long)hk_i;",
                                "const long long hk_n = (long long)(n);", NULL};
    expect(DATA "/hist_kernels.cu", "signed_bytes", 0, 128, want, NULL, "ld.global.v4.u32", NULL);
}

static void test_not_applicable(void **state)
{
    (void)state;
    expect(DATA "/hist_kernels.cu", "weighted", 0, 128, NULL, NULL, NULL, "not the literal 1");
    expect(DATA "/hist_kernels.cu", "float_hist", 0, 128, NULL, NULL, NULL, "counter type float");
    expect(DATA "/hist_kernels.cu", "wide_hist", 0, 128, NULL, NULL, NULL, "1024 bins: byte counters take at most 256");
    expect(DATA "/hist_kernels.cu", "hist_local", 0, 128, NULL, NULL, NULL, "not one atomicAdd");
    expect(BENCH "/reduce_sum.cu", "reduce_sum", 0, 128, NULL, NULL, NULL, "not `&hist[bin]`");
    expect(HK_TEST_DATA "/rewrite_pattern/hist_variants.cu", "one_bin", 0, 128, NULL, NULL, NULL,
           "does not depend on the index");

    fixture fx;
    load_path(BENCH "/histogram.cu", &fx);
    size_t k = kernel(&fx, "histogram");
    rw_result r;
    assert_int_equal(rw_histogram_thread_counters(fx.text, fx.len, fx.m, k, -1, 128, &r), HK_EINVAL);
    assert_int_equal(rw_histogram_thread_counters(fx.text, fx.len, fx.m, k, 257, 128, &r), HK_EINVAL);
    assert_int_equal(rw_histogram_thread_counters(fx.text, fx.len, fx.m, k, 0, 96 + 1, &r), HK_EINVAL);
    assert_int_equal(rw_histogram_thread_counters(fx.text, fx.len, fx.m, k, 0, 16, &r), HK_EINVAL);
    assert_int_equal(rw_histogram_thread_counters(fx.text, fx.len, fx.m, k, 0, 2048, &r), HK_EINVAL);
    assert_int_equal(rw_histogram_thread_counters(fx.text, fx.len, fx.m, 99, 0, 128, &r), HK_EINVAL);
    /* the matcher alone: the same view rw_privatized_histogram uses */
    rwp_hist g;
    char why[256];
    assert_int_equal(rwp_match_histogram(fx.text, fx.len, fx.m, k, 0, &g, why, sizeof why), HK_OK);
    assert_string_equal(why, "");
    assert_string_equal(g.hist->name, "bins");
    assert_non_null(g.bytes);
    assert_string_equal(g.bytes->name, "data");
    assert_string_equal(g.byte_type, "unsigned char");
    assert_string_equal(g.bin, "data[i]");
    assert_string_equal(g.value, "1u");
    assert_string_equal(g.bound, "n");
    assert_int_equal(g.bins, 256);
    assert_false(g.guessed);
    assert_int_equal(rwp_match_histogram(fx.text, fx.len, fx.m, k, 0, &g, NULL, 0), HK_EINVAL);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Every allocation the rewrite makes may fail: HK_ENOMEM (or, past the last, HK_OK), never
 * a leak. */
static void test_alloc_failures(void **state)
{
    (void)state;
    fixture fx;
    load_path(BENCH "/histogram.cu", &fx);
    size_t k = kernel(&fx, "histogram");
    long live = hk_alloc_live();   /* the model's own blocks */
    bool done = false;
    for (long fail = 1; fail < 10000 && !done; fail++) {
        rw_result r;
        hk_alloc_fail_after(fail);
        int rc = rw_histogram_thread_counters(fx.text, fx.len, fx.m, k, 0, 128, &r);
        hk_alloc_fail_after(0);
        assert_true(rc == HK_OK || rc == HK_ENOMEM);
        if (rc == HK_OK && r.applicable)
            done = true;
        rw_result_free(&r);
        assert_int_equal(hk_alloc_live(), live);
    }
    assert_true(done);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* A CPU model of what the template computes per block: counters laid out as (b / 4) * T + t,
 * byte b % 4, incremented as bytes; flushed by columns staggered by lane and summed as two
 * 16-bit lanes per word, with the same HK_P / HK_L split. The totals must equal a direct
 * count for a skewed and a uniform input, with counters right at 240 per thread. */
static void model_block(int bins, int t, const unsigned char *data, size_t n, uint64_t *tot)
{
    int bq = (bins + 3) / 4;
    int p = t / bq < 1 ? 1 : (t / bq < t / 32 ? t / bq : t / 32);
    int l = (t + p - 1) / p;
    uint32_t *cnt = calloc((size_t)bq * (size_t)t, sizeof *cnt);
    assert_non_null(cnt);
    unsigned char *c8 = (unsigned char *)cnt;
    for (size_t r0 = 0; r0 * (size_t)t < n; r0 += 240) {
        for (int tid = 0; tid < t; tid++)
            for (size_t r = r0; r < r0 + 240; r++) {
                size_t i = r * (size_t)t + (size_t)tid;
                if (i >= n)
                    break;
                int b = data[i];
                if (b < bins) {
                    assert_true(c8[(size_t)(b & ~3) * (size_t)t + (size_t)(b & 3) + 4u * (size_t)tid] < 255);
                    c8[(size_t)(b & ~3) * (size_t)t + (size_t)(b & 3) + 4u * (size_t)tid]++;
                }
            }
        for (int w = 0; w < bq * p; w++) {
            int q = w / p, c0 = (w % p) * l, lane = w % 32; /* lane of thread w (tid == w here) */
            uint32_t s[4] = {0, 0, 0, 0};
            for (int j0 = 0; j0 < l; j0 += 256) {
                uint32_t ev = 0, od = 0;
                int j1 = j0 + 256 < l ? j0 + 256 : l;
                for (int j = j0; j < j1; j++) {
                    int c = c0 + (j + lane) % l;
                    if (c < t) {
                        uint32_t v = cnt[q * t + c];
                        cnt[q * t + c] = 0;
                        ev += v & 0x00ff00ffu;
                        od += (v >> 8) & 0x00ff00ffu;
                    }
                }
                s[0] += ev & 0xffffu;
                s[1] += od & 0xffffu;
                s[2] += ev >> 16;
                s[3] += od >> 16;
            }
            for (int kk = 0; kk < 4; kk++)
                if (q * 4 + kk < bins)
                    tot[q * 4 + kk] += s[kk];
        }
        for (size_t x = 0; x < (size_t)bq * (size_t)t; x++)
            assert_int_equal(cnt[x], 0);
    }
    free(cnt);
}

static void test_counter_model(void **state)
{
    (void)state;
    static const int shapes[][2] = {{256, 128}, {64, 128}, {256, 32}, {200, 64}, {8, 1024}};
    size_t n = 1u << 20;
    unsigned char *data = malloc(n);
    assert_non_null(data);
    for (int dist = 0; dist < 2; dist++) {
        uint32_t x = 12345;
        for (size_t i = 0; i < n; i++) {
            x = x * 1664525u + 1013904223u;
            data[i] = dist == 0 ? (unsigned char)(x >> 24) : (unsigned char)(96 + ((x >> 24) & 7));
        }
        for (size_t s = 0; s < HK_ARRAY_LEN(shapes); s++) {
            int bins = shapes[s][0], t = shapes[s][1];
            uint64_t tot[256] = {0}, want[256] = {0};
            for (size_t i = 0; i < n; i++)
                if (data[i] < bins)
                    want[data[i]]++;
            model_block(bins, t, data, n, tot);
            for (int b = 0; b < bins; b++)
                assert_int_equal(tot[b], want[b]);
        }
    }
    free(data);
}

/* Builds tests/data/rewrite_hist/check_main.cu (a GPU check against a CPU count: sizes with
 * odd tails, misaligned data, three distributions, the counter block and fallback blocks)
 * around the rewrite of kname in path. nvcc missing: skipped. With HK_RWH_GPU_DIR set, the
 * executable is written there as <kname>.chk for a run on a GPU machine, beside the rewritten
 * kernel it checks (<kname>_rw.cu). */
static void build_check(const char *path, const char *kname, int kind)
{
    if (access(NVCC, X_OK) != 0) {
        print_message("note: no nvcc at %s, GPU check of %s not built\n", NVCC, kname);
        return;
    }
    fixture fx;
    load_path(path, &fx);
    size_t k = kernel(&fx, kname);
    rw_result r;
    assert_int_equal(rw_histogram_thread_counters(fx.text, fx.len, fx.m, k, 0, RWH_DEFAULT_THREADS, &r), HK_OK);
    assert_true(r.applicable);
    char src[700], exe[1200], cmd[4000], out[16384];
    const char *dir = getenv("HK_RWH_GPU_DIR");
    snprintf(src, sizeof src, "%s/%s_rw.cu", dir && *dir ? dir : tmpdir, kname);
    rwf_write_file(src, r.text);
    rw_result_free(&r);
    unload(&fx);
    if (dir && *dir)
        snprintf(exe, sizeof exe, "%s/%s.chk", dir, kname);
    else
        snprintf(exe, sizeof exe, "%s/%s.chk", tmpdir, kname);
    snprintf(cmd, sizeof cmd,
             "%s -arch=sm_90 -O3 -std=c++17 -DHK_CHECK_KIND=%d '-DHK_KERNEL_FILE=\"%s\"' -o '%s' %s/check_main.cu 2>&1",
             NVCC, kind, src, exe, DATA);
    int st = run_cmd(cmd, out, sizeof out);
    if (st != 0 || strstr(out, "warning"))
        print_message("nvcc on the GPU check of %s:\n%s\n", kname, out);
    assert_int_equal(st, 0);
    if (dir && *dir)
        print_message("GPU check written: %s\n", exe);
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_gpu_checks_build(void **state)
{
    (void)state;
    build_check(BENCH "/histogram.cu", "histogram", 1);
    build_check(DATA "/hist_kernels.cu", "signed_bytes", 2);
    build_check(DATA "/hist_kernels.cu", "mod_hist", 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench_histogram), cmocka_unit_test(test_scalar_paths),
        cmocka_unit_test(test_signed_bytes),    cmocka_unit_test(test_not_applicable),
        cmocka_unit_test(test_alloc_failures),  cmocka_unit_test(test_counter_model),
        cmocka_unit_test(test_gpu_checks_build),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
