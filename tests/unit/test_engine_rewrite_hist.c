/* The lane-replica histogram rewrite (rewrites/rewrite_hist.h) on the suite's histogram.cu
 * and the shapes in tests/data/rewrite_hist/: applicable rewrites have the expected
 * structure (32 replicas per bin in shared memory, replica atomics, no flush, the uint4 path
 * or the scalar path, weights per element), keep the signature and compile with the real
 * nvcc (-arch=sm_90 -cubin, queued and checked in few nvcc runs by rwf_nvcc_queued, the last
 * test; the PTX, compiled in the same queue, has 128-bit global loads and shared atomics); near-misses are
 * not applicable with their reason; bad arguments are HK_EINVAL; allocation failures give
 * HK_ENOMEM without leaks. A CPU model of the template's index arithmetic checks that every
 * element is counted once per y/z thread, that a warp's replica atomics and merge reads hit
 * 32 different banks, and that the sums are exact. nvcc missing: compile checks say so and
 * pass. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_hist.h"
#include "rewrites/rewrite_pattern.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
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

/* Queues text's compile check with nvcc -arch=sm_90 -cubin (rwf_nvcc_compiles_strict: a
 * warning fails it too) and, with ptx_want (static: it is read after this test), its compile
 * to PTX, where every extended regular expression of ptx_want must match (rwf_nvcc_ptx,
 * rwf_ptx_matches); rwf_nvcc_queued, the last test, compiles both queues in few nvcc runs
 * (each text's own PTX cut back out of its batch's) and fails with nvcc's output or the
 * pattern and the text's name. */
static void nvcc_compiles(const char *text, const char *tag, const char *const *ptx_want)
{
    rwf_nvcc_compiles_strict(text, tag);
    if (!ptx_want || !ptx_want[0])
        return;
    char name[300];
    snprintf(name, sizeof name, "%s_ptx", tag);
    rwf_nvcc_ptx(text, name, rwf_ptx_matches, ptx_want);
}

/* Occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Applies the rewrite to kernel kname of path with bins: applicable with every string of
 * want present and every string of unwanted absent, then compiled (its PTX matching each
 * regex of ptx_want), or not applicable with why_part in the reason. */
static void expect(const char *path, const char *kname, int bins, const char *const *want,
                   const char *const *unwanted, const char *const *ptx_want, const char *why_part)
{
    fixture fx;
    load_path(path, &fx);
    size_t k = kernel(&fx, kname);
    rw_result r;
    assert_int_equal(rw_histogram_lane_replicas(fx.text, fx.len, fx.m, k, bins, &r), HK_OK);
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
        /* HK_LANES and HK_BINS are tunables of the new text */
        int found = 0;
        for (size_t i = 0; i < m->n_tunables; i++)
            if (!strcmp(m->tunables[i].name, "HK_LANES") || !strcmp(m->tunables[i].name, "HK_BINS"))
                found++;
        assert_int_equal(found, 2);
        an_model_free(m);
        /* every design gets: the replicas, the lane, a replica atomic, the merge; and no
         * flush: one barrier after zeroing, one before the merge */
        static const char *const always[] = {
            "constexpr int HK_LANES = 32;", "const unsigned int hk_lane = hk_tid % HK_LANES;",
            "atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], ",
            "hk_s += hk_rep[hk_b * HK_LANES + (hk_l + hk_b) % HK_LANES];",
            "static_assert(HK_BINS * HK_LANES * sizeof(", NULL};
        for (size_t i = 0; always[i]; i++)
            assert_non_null(strstr(r.text, always[i]));
        assert_int_equal(count_of(r.text, "__syncthreads()"), 2);
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
        snprintf(tag, sizeof tag, "%s_%d", kname, bins);
        nvcc_compiles(r.text, tag, ptx_want);
    }
    rw_result_free(&r);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* 128-bit global loads; the shared replica atomics without a result (red.shared, which
 * ptxas makes ATOMS.POPC.INC for a constant 1 and ATOMS.ADD otherwise) */
static const char *const ptx_bytes[] = {"ld.global.v4.u32", "(red|atom)\\.shared\\.add\\.u32", NULL};

/* The registers ptxas gives kernel kname of text for sm_90 (-O3), or -1 without nvcc. */
static int sm90_registers(const char *text, const char *tag)
{
    if (access(NVCC, X_OK) != 0)
        return -1;
    char src[700], cmd[2400], out[16384];
    snprintf(src, sizeof src, "%s/%s.cu", tmpdir, tag);
    rwf_write_file(src, text);
    snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -O3 -cubin -std=c++17 -Xptxas -v -o /dev/null %s 2>&1", NVCC, src);
    assert_int_equal(run_cmd(cmd, out, sizeof out), 0);
    const char *p = strstr(out, "Used ");
    assert_non_null(p);
    return atoi(p + 5);
}

static void test_bench_histogram(void **state)
{
    (void)state;
    const char *const want[] = {
        "__shared__ unsigned int hk_rep[HK_BINS * HK_LANES];", "constexpr int HK_BINS = 256;",
        "atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);", "hk_rep[hk_w] = 0;",
        "static_assert(HK_BINS * HK_LANES * sizeof(unsigned int) <= 48 * 1024",
        /* the uint4 path: one load, the sixteen counts of it, bytes in memory order */
        "const unsigned char *const hk_src = data;", "reinterpret_cast<const uint4 *>(hk_src + hk_head)",
        "for (long long hk_j = hk_gx; hk_j < hk_nv; hk_j += hk_sx) {", "const uint4 hk_x = hk_vec[hk_j];",
        "(int)((unsigned char)(hk_x.x >> 0))", "(int)((unsigned char)(hk_x.w >> 24))",
        "(int)((unsigned char)hk_src[hk_gx])", "(int)((unsigned char)hk_src[hk_tail + hk_gx])",
        "atomicAdd(&bins[hk_b], (unsigned int)(1u));", "atomicAdd(&bins[hk_b], (unsigned int)hk_s);",
        "const long long hk_sx = (long long)hk_blocks * blockDim.x;", NULL};
    /* no per-thread counters or flush of the old design, the original guard and atomic are
     * gone, and the value does not use the index, so it is never declared */
    const char *const unwanted[] = {"hk_cnt", "HK_T", "hk_tot", "atomicAdd(&bins[data[i]]", "if (i < n)",
                                    "const int i", NULL};
    expect(BENCH "/histogram.cu", "histogram", 0, want, unwanted, ptx_bytes, NULL);
    /* the sm90 skill's first launch, 2 blocks of 1024 per SM, is resident only at <= 32
     * registers per thread (65536 per SM) */
    fixture fx;
    load_path(BENCH "/histogram.cu", &fx);
    rw_result r;
    assert_int_equal(rw_histogram_lane_replicas(fx.text, fx.len, fx.m, kernel(&fx, "histogram"), 0, &r), HK_OK);
    int regs = sm90_registers(r.text, "histogram_regs");
    print_message("histogram rewrite: %d registers on sm_90\n", regs);
    assert_true(regs <= 32);
    rw_result_free(&r);
    unload(&fx);
    /* fewer bins given: the bigger byte values go to global memory */
    const char *const want100[] = {"constexpr int HK_BINS = 100;", "atomicAdd(&bins[hk_b], (unsigned int)(1u));",
                                   NULL};
    expect(BENCH "/histogram.cu", "histogram", 100, want100, NULL, NULL, NULL);
    /* the most 32-bit replicas that fit: 384 x 32 x 4 = 48 KiB; one more does not */
    const char *const want384[] = {"constexpr int HK_BINS = 384;", NULL};
    expect(BENCH "/histogram.cu", "histogram", 384, want384, NULL, NULL, NULL);
    expect(BENCH "/histogram.cu", "histogram", 385, NULL, NULL, NULL,
           "385 bins x 32 lane replicas of unsigned int take 49280 bytes, more than the 49152 bytes");
}

static void test_scalar_paths(void **state)
{
    (void)state;
    static const char *const ptx_scalar[] = {"(red|atom)\\.shared\\.add\\.u32", NULL};
    const char *const want_mod[] = {"constexpr int HK_BINS = 64;", "const long long hk_b = (long long)(v[i] % NBINS);",
                                    "for (long long hk_i = hk_gx; hk_i < hk_n; hk_i += hk_sx) {",
                                    "#pragma unroll 4", "const int i = (int)hk_i;",
                                    "atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);", NULL};
    const char *const no_vec[] = {"uint4", NULL};
    expect(DATA "/hist_kernels.cu", "mod_hist", 0, want_mod, no_vec, ptx_scalar, NULL);
    /* 64-bit counters: 64-bit replicas, 192 bins at most; the guessed 256 do not fit */
    expect(DATA "/hist_kernels.cu", "ull_hist", 0, NULL, NULL, NULL,
           "256 bins x 32 lane replicas of unsigned long long take 65536 bytes, more than the 49152");
    const char *const want_ull[] = {"__shared__ unsigned long long hk_rep[HK_BINS * HK_LANES];",
                                    "constexpr int HK_BINS = 128;",
                                    "atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1ull);",
                                    "atomicAdd(&bins[hk_b], (unsigned long long)(1ull));",
                                    "atomicAdd(&bins[hk_b], (unsigned long long)hk_s);",
                                    "(long long)((int)(x[i] * 16.0f) & 255)", NULL};
    static const char *const ptx_ull[] = {"(red|atom)\\.shared\\.add\\.u64", NULL};
    expect(DATA "/hist_kernels.cu", "ull_hist", 128, want_ull, no_vec, ptx_ull, NULL);
    const char *const want200[] = {"constexpr int HK_BINS = 200;", NULL};
    expect(DATA "/hist_kernels.cu", "hist200", 0, want200, no_vec, NULL, NULL);
    /* int counters, a signed weight per element: converted as the original converts it,
     * added as its unsigned bits (sums wrap the same way in any order) */
    const char *const want_sw[] = {"constexpr int HK_BINS = 128;",
                                   "atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], (unsigned int)(int)(w[i] - 3));",
                                   "atomicAdd(&bins[hk_b], (int)(w[i] - 3));", "atomicAdd(&bins[hk_b], (int)hk_s);",
                                   NULL};
    expect(DATA "/hist_kernels.cu", "signed_weights", 0, want_sw, no_vec, ptx_scalar, NULL);
    /* the bin in a temporary declared just before the atomic: its expression is the bin */
    const char *const want_local[] = {"constexpr int HK_BINS = 256;",
                                      "const long long hk_b = (long long)((int)(x[i] * 16.0f));",
                                      "atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);", NULL};
    expect(DATA "/hist_kernels.cu", "hist_local", 0, want_local, no_vec, ptx_scalar, NULL);
}

static void test_signed_bytes(void **state)
{
    (void)state;
    /* char data: the byte path converts each byte to char, so a negative bin goes to global
     * memory exactly where the original's index is negative */
    const char *const want[] = {"const char *const hk_src = data;", "(int)((char)(hk_x.y >> 16))",
                                "atomicAdd(&bins[hk_b], (int)(1));", "atomicAdd(&bins[hk_b], (int)hk_s);",
                                "atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);",
                                "const long long hk_n = (long long)(n);", NULL};
    const char *const unwanted[] = {"const long i", NULL};
    expect(DATA "/hist_kernels.cu", "signed_bytes", 0, want, unwanted, ptx_bytes, NULL);
}

static void test_weighted_bytes(void **state)
{
    (void)state;
    /* a weight per element: the byte path declares the index of each byte it counts */
    const char *const want[] = {"const int i = (int)(hk_gx);", "const int i = (int)(hk_tail + hk_gx);",
                                "const int i = (int)(hk_head + hk_j * 16 + 0);",
                                "const int i = (int)(hk_head + hk_j * 16 + 15);",
                                "atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], (unsigned int)(w[i]));",
                                "atomicAdd(&bins[hk_b], (unsigned int)(w[i]));", NULL};
    expect(DATA "/hist_kernels.cu", "weighted", 0, want, NULL, ptx_bytes, NULL);
}

static void test_not_applicable(void **state)
{
    (void)state;
    expect(DATA "/hist_kernels.cu", "float_hist", 0, NULL, NULL, NULL, "counter type float");
    expect(DATA "/hist_kernels.cu", "wide_hist", 0, NULL, NULL, NULL,
           "1024 bins x 32 lane replicas of unsigned int take 131072 bytes");
    expect(DATA "/hist_kernels.cu", "hist_local_value", 0, NULL, NULL, NULL, "not one atomicAdd");
    expect(BENCH "/reduce_sum.cu", "reduce_sum", 0, NULL, NULL, NULL, "not `&hist[bin]`");
    expect(HK_TEST_DATA "/rewrite_pattern/hist_variants.cu", "one_bin", 0, NULL, NULL, NULL,
           "does not depend on the index");

    fixture fx;
    load_path(BENCH "/histogram.cu", &fx);
    size_t k = kernel(&fx, "histogram");
    rw_result r;
    assert_int_equal(rw_histogram_lane_replicas(fx.text, fx.len, fx.m, k, -1, &r), HK_EINVAL);
    assert_int_equal(rw_histogram_lane_replicas(fx.text, fx.len, fx.m, k, RWH_MAX_BINS + 1, &r), HK_EINVAL);
    assert_int_equal(rw_histogram_lane_replicas(fx.text, fx.len, fx.m, 99, 0, &r), HK_EINVAL);
    /* the most bins the caller may give is the matcher's range: not applicable, not invalid */
    assert_int_equal(rw_histogram_lane_replicas(fx.text, fx.len, fx.m, k, RWH_MAX_BINS, &r), HK_OK);
    assert_false(r.applicable);
    rw_result_free(&r);
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

static int call_bench(const fixture *fx, size_t k, rw_result *r)
{
    return rw_histogram_lane_replicas(fx->text, fx->len, fx->m, k, 0, r);
}

/* Every allocation the rewrite makes may fail: HK_ENOMEM, never a leak; the byte path
 * with a weight (the index's lexing) too. */
static void test_alloc_failures(void **state)
{
    (void)state;
    fixture fx;
    load_path(BENCH "/histogram.cu", &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "histogram"), call_bench);
    unload(&fx);
    load_path(DATA "/hist_kernels.cu", &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "weighted"), call_bench);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "mod_hist"), call_bench);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* A CPU model of the byte path's arithmetic as the template writes it, for one launch:
 * the first min(grid, 1024) blocks; per thread (flat id t, x id tx) the head element hk_gx,
 * the tail element hk_tail + hk_gx and the vectors hk_gx, hk_gx + hk_sx, ...; each count
 * goes to replica word bin * 32 + t % 32, or to the global bins when out of range. Checked:
 * within a warp, the replica atomics of one step hit 32 different banks; the merge's
 * staggered reads hit 32 different banks per step; the result equals a direct count times
 * the threads along y and z, for weights that wrap 32 bits too. */
typedef struct {
    unsigned grid, bx, by;
    unsigned off;    /* the data's address modulo 16 */
    int bins;
} model_launch;

static void model_count(uint32_t *rep, uint32_t *global, int bins, int b, unsigned lane, uint32_t w)
{
    if (b >= 0 && b < bins)
        rep[(unsigned)b * RWH_LANES + lane] += w;
    else
        global[b] += w;   /* b in [bins, 256): the caller's array holds 256 */
}

static void model_run(const model_launch *l, const unsigned char *data, const uint32_t *w, long long n,
                      uint32_t *global)
{
    const long long len = n > 0 ? n : 0;
    long long head = (16 - l->off % 16) % 16;
    if (head > len)
        head = len;
    const long long nv = (len - head) >> 4, tail = head + nv * 16;
    const unsigned blocks = l->grid < 1024 ? l->grid : 1024, nthreads = l->bx * l->by;
    const long long sx = (long long)blocks * l->bx;
    uint32_t *rep = calloc((size_t)l->bins * RWH_LANES, sizeof *rep);
    assert_non_null(rep);
    for (unsigned blk = 0; blk < blocks; blk++) {
        memset(rep, 0, (size_t)l->bins * RWH_LANES * sizeof *rep);
        for (unsigned t = 0; t < nthreads; t++) {
            unsigned tx = t % l->bx, lane = t % RWH_LANES;
            long long gx = (long long)blk * l->bx + tx;
            if (gx < head)
                model_count(rep, global, l->bins, data[gx], lane, w[gx]);
            if (tail + gx < len)
                model_count(rep, global, l->bins, data[tail + gx], lane, w[tail + gx]);
            for (long long j = gx; j < nv; j += sx)
                for (int k = 0; k < 16; k++) {
                    long long e = head + j * 16 + k;
                    model_count(rep, global, l->bins, data[e], lane, w[e]);
                }
        }
        /* the banks of one step of a warp: the threads of warp wp count byte k of their
         * vectors at the same time; bank = word % 32 */
        for (unsigned wp = 0; wp * 32 < nthreads; wp++)
            for (int k = 0; k < 16; k++) {
                unsigned used = 0;
                for (unsigned t = wp * 32; t < wp * 32 + 32 && t < nthreads; t++) {
                    long long j = (long long)blk * l->bx + t % l->bx;
                    int b = j < nv ? data[head + j * 16 + k] : 0;
                    unsigned bank = (unsigned)(b * RWH_LANES + (int)(t % RWH_LANES)) % 32u;
                    assert_false(used & (1u << bank));
                    used |= 1u << bank;
                }
            }
        /* the merge: thread t sums bin t, t + nthreads, ...; step s of a warp reads word
         * b * 32 + (s + b) % 32 */
        for (unsigned b0 = 0; b0 < (unsigned)l->bins; b0 += nthreads)
            for (unsigned s = 0; s < RWH_LANES; s++) {
                unsigned used = 0;
                for (unsigned t = 0; t < 32 && t < nthreads && b0 + t < (unsigned)l->bins; t++) {
                    unsigned b = b0 + t, bank = (b * RWH_LANES + (s + b) % RWH_LANES) % 32u;
                    assert_false(used & (1u << bank));
                    used |= 1u << bank;
                }
            }
        for (int b = 0; b < l->bins; b++) {
            uint32_t s = 0;
            for (unsigned l2 = 0; l2 < RWH_LANES; l2++)
                s += rep[(unsigned)b * RWH_LANES + (l2 + (unsigned)b) % RWH_LANES];
            global[b] += s;
        }
    }
    free(rep);
}

static void test_replica_model(void **state)
{
    (void)state;
    static const model_launch launches[] = {
        {264, 1024, 1, 0, 256}, {396, 512, 1, 3, 256}, {1, 128, 1, 15, 256}, {7, 96, 1, 1, 200},
        {2000, 128, 1, 0, 256}, {40, 64, 2, 7, 64}, {5, 1000, 1, 9, 100}};
    static const long long sizes[] = {0, 1, 15, 17, 33, 4095, 100003};
    const size_t max_n = 100003 + 16;
    unsigned char *data = malloc(max_n);
    uint32_t *w = malloc(max_n * sizeof *w), *one = malloc(max_n * sizeof *one);
    assert_non_null(data);
    assert_non_null(w);
    assert_non_null(one);
    for (int dist = 0; dist < 2; dist++) {
        uint32_t x = 12345;
        for (size_t i = 0; i < max_n; i++) {
            x = x * 1664525u + 1013904223u;
            data[i] = dist == 0 ? (unsigned char)(x >> 24) : (unsigned char)(96 + ((x >> 24) & 7));
            w[i] = x ^ (x << 7);   /* weights that wrap 32 bits */
            one[i] = 1;
        }
        for (size_t li = 0; li < HK_ARRAY_LEN(launches); li++)
            for (size_t si = 0; si < HK_ARRAY_LEN(sizes); si++)
                for (int weighted = 0; weighted < 2; weighted++) {
                    const model_launch *l = &launches[li];
                    const unsigned char *d = data + l->off;
                    const uint32_t *wd = (weighted ? w : one) + l->off;
                    long long n = sizes[si];
                    uint32_t got[256] = {0}, want[256] = {0};
                    for (long long i = 0; i < n; i++)
                        want[d[i]] += wd[i] * l->by;
                    model_run(l, d, wd, n, got);
                    for (int b = 0; b < 256; b++)
                        if (got[b] != want[b])
                            fail_msg("launch %zu n %lld weighted %d: bin %d got %u want %u", li, n, weighted, b,
                                     got[b], want[b]);
                }
    }
    free(data);
    free(w);
    free(one);
}

/* Builds tests/data/rewrite_hist/check_main.cu (a GPU check against a CPU count: sizes with
 * odd tails, misaligned data, three distributions, many launch shapes) around the rewrite of
 * kname in path. nvcc missing: skipped. With HK_RWH_GPU_DIR set, the executable is written
 * there as <kname>.chk for a run on a GPU machine, beside the rewritten kernel it checks
 * (<kname>_rw.cu). Without it (no GPU will run them: CI), the check of kind 1 is built whole
 * as the representative (host compiler and link included) and the others with -cubin: nvcc's
 * front end still checks each whole program, host code included, and compiles its device
 * code; only the host compiler's pass and the link, the same for every kind, are left out
 * (3.5-4.4 CPU-s whole, issue 14: CI time). */
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
    assert_int_equal(rw_histogram_lane_replicas(fx.text, fx.len, fx.m, k, 0, &r), HK_OK);
    assert_true(r.applicable);
    char src[700], exe[1200], cmd[4000], out[16384];
    const char *dir = getenv("HK_RWH_GPU_DIR");
    snprintf(src, sizeof src, "%s/%s_rw.cu", dir && *dir ? dir : tmpdir, kname);
    rwf_write_file(src, r.text);
    rw_result_free(&r);
    unload(&fx);
    bool whole = (dir && *dir) || kind == 1;
    if (dir && *dir)
        snprintf(exe, sizeof exe, "%s/%s.chk", dir, kname);
    else
        snprintf(exe, sizeof exe, "%s/%s.chk%s", tmpdir, kname, whole ? "" : ".cubin");
    snprintf(cmd, sizeof cmd,
             "%s -arch=sm_90 -O3 -std=c++17%s -DHK_CHECK_KIND=%d '-DHK_KERNEL_FILE=\"%s\"' -o '%s' %s/check_main.cu 2>&1",
             NVCC, whole ? "" : " -cubin", kind, src, exe, DATA);
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
    build_check(DATA "/hist_kernels.cu", "weighted", 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench_histogram), cmocka_unit_test(test_scalar_paths),
        cmocka_unit_test(test_signed_bytes),    cmocka_unit_test(test_weighted_bytes),
        cmocka_unit_test(test_not_applicable),  cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_replica_model),   cmocka_unit_test(test_gpu_checks_build),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
