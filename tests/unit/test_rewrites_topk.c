/* split_topk_scan (rewrite_topk.c): a per-query top-K scan by a strict-< cascade split over
 * P adjacent lanes and merged by (value, lower index) with shuffles. The text it emits and
 * the grid it asks for, nvcc -arch=sm_90 on each candidate, its refusals (knn's heap,
 * ball_query's counted break and the cascade's other ways to go wrong, each with its
 * line), and one batched emulation (emu_batch.h) comparing original and candidate bit for
 * bit, distances and indices: spread, tie-heavy, all-equal and NaN inputs; item counts
 * below P, off and on multiples of P; queries off a multiple of the block; two batches;
 * grids that make every thread serve two queries; a block size not a multiple of P (part
 * 0 alone); K = 1, 2, 3; mmcv's own three_nn; the HIP form. Broken merges must differ. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "rw_fixture.h"
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-topk");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* nearest3: mmcv's three_nn shape (a loop macro, a double state against a T value, the
 * pointers offset in locals, so that a thread may serve several queries); nearest1: an
 * argmin in a plain for header, float state, `best > d`; nearest2: two slots whose shift
 * is written value-first and index-last, a sentinel of 4.0f (items at or beyond it never
 * kept), long long indices. */
static const char kernels[] =
    "#define PER_THREAD(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "\n"
    "template <typename T>\n"
    "__global__ void nearest3(int b, int nq, int ni, const T *q, const T *items, T *dist, int *__restrict__ which)\n"
    "{\n"
    "    int bat = blockIdx.y;\n"
    "    PER_THREAD(t, nq) {\n"
    "        if (bat >= b) return;\n"
    "        const T *qq = q + (bat * nq + t) * 3;\n"
    "        const T *it = items + bat * ni * 3;\n"
    "        T qx = qq[0];\n"
    "        T qy = qq[1];\n"
    "        T qz = qq[2];\n"
    "        double d1 = 1e40, d2 = 1e40, d3 = 1e40;\n"
    "        int w1 = 0, w2 = 0, w3 = 0;\n"
    "        for (int j = 0; j < ni; ++j) {\n"
    "            T ix = it[j * 3 + 0];\n"
    "            T iy = it[j * 3 + 1];\n"
    "            T iz = it[j * 3 + 2];\n"
    "            T d = (qx - ix) * (qx - ix) + (qy - iy) * (qy - iy) + (qz - iz) * (qz - iz);\n"
    "            if (d < d1) {\n"
    "                d3 = d2; w3 = w2;\n"
    "                d2 = d1; w2 = w1;\n"
    "                d1 = d; w1 = j;\n"
    "            } else if (d < d2) {\n"
    "                d3 = d2; w3 = w2;\n"
    "                d2 = d; w2 = j;\n"
    "            } else if (d < d3) {\n"
    "                d3 = d; w3 = j;\n"
    "            }\n"
    "        }\n"
    "        T *od = dist + (bat * nq + t) * 3;\n"
    "        int *ow = which + (bat * nq + t) * 3;\n"
    "        od[0] = d1; od[1] = d2; od[2] = d3;\n"
    "        ow[0] = w1; ow[1] = w2; ow[2] = w3;\n"
    "    }\n"
    "}\n"
    "\n"
    "__global__ void nearest1(int nq, int ni, const float *q, const float *items, float *dist, int *which)\n"
    "{\n"
    "    for (int t = threadIdx.x + blockIdx.x * blockDim.x; t < nq; t += gridDim.x * blockDim.x) {\n"
    "        float qx = q[2 * t], qy = q[2 * t + 1];\n"
    "        float best = 1e30f;\n"
    "        int at = -1;\n"
    "        for (int j = 0; j < ni; j++) {\n"
    "            float dx = qx - items[2 * j], dy = qy - items[2 * j + 1];\n"
    "            float d = dx * dx + dy * dy;\n"
    "            if (best > d) {\n"
    "                best = d;\n"
    "                at = j;\n"
    "            }\n"
    "        }\n"
    "        dist[t] = best;\n"
    "        which[t] = at;\n"
    "    }\n"
    "}\n"
    "\n"
    "__global__ void nearest2(int nq, int ni, const float *q, const float *items, float *dist, long long *which)\n"
    "{\n"
    "    PER_THREAD(t, nq) {\n"
    "        float qx = q[t];\n"
    "        float b1 = 4.0f, b2 = 4.0f;\n"
    "        long long i1 = 7, i2 = 7;\n"
    "        for (int j = 1; j < ni; j += 1) {\n"
    "            float d = fabsf(qx - items[j]) * 2.0f;\n"
    "            if (d < b1) {\n"
    "                b2 = b1;\n"
    "                b1 = d;\n"
    "                i2 = i1;\n"
    "                i1 = j;\n"
    "            } else if (d < b2) {\n"
    "                b2 = d;\n"
    "                i2 = j;\n"
    "            }\n"
    "        }\n"
    "        dist[2 * t] = b1; dist[2 * t + 1] = b2;\n"
    "        which[2 * t] = i1; which[2 * t + 1] = i2;\n"
    "    }\n"
    "}\n";

static const char inst[] =
    "\ntemplate __global__ void nearest3<float>(int, int, int, const float *, const float *, float *, int *);\n";

static char *split_for(const char *src, const char *kname, int parts, unsigned *mult, bool hip)
{
    fixture fx;
    load_text(src, &fx);
    const rw_descriptor *d = rw_find("split_topk_scan");
    assert_non_null(d);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname), .hip = hip};
    int p[RW_MAX_PARAMS] = {parts};
    rw_result r;
    assert_int_equal(rw_apply(d, &ctx, p, &r, NULL), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    assert_false(r.keeps_launch);
    assert_int_equal(r.grid_divisor, 0);
    if (mult)
        *mult = r.grid_multiplier;
    char *t = strdup(r.text);
    assert_non_null(t);
    rw_result_free(&r);
    unload(&fx);
    return t;
}

static char *split(const char *src, const char *kname, int parts, unsigned *mult)
{
    return split_for(src, kname, parts, mult, false);
}

/* The text: the lanes' mapping, the strided items, the merge, part 0's stores; the grid
 * multiplier; each candidate compiles for sm_90; applied twice: refused. */
static void emits_and_compiles(void **state)
{
    (void)state;
    static const char *const names[] = {"nearest3", "nearest1", "nearest2"};
    static const int ks[] = {3, 1, 2};
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
        for (int parts = 2; parts <= 32; parts *= 2) {
            unsigned mult = 0;
            char *t = split(kernels, names[i], parts, &mult);
            assert_int_equal(mult, (unsigned)parts);
            char want[200];
            snprintf(want, sizeof want, "hk_sp_t / %d < (long long)(", parts);
            assert_non_null(strstr(t, want));
            snprintf(want, sizeof want, "const int hk_sp_np = blockDim.x %% %d == 0 ? %d : 1;", parts, parts);
            assert_non_null(strstr(t, want));
            assert_non_null(strstr(t, "hk_sp_part < hk_sp_np && hk_sp_k < (long long)(ni); hk_sp_k += hk_sp_np)"));
            assert_non_null(strstr(t, "int j = (int)hk_sp_k;"));
            snprintf(want, sizeof want, "hk_sp_merge<%d>(hk_sp_v, hk_sp_i, hk_sp_mask, hk_sp_off, %d);", ks[i], parts);
            assert_non_null(strstr(t, want));
            if (parts < 32)
                snprintf(want, sizeof want, "((1u << %d) - 1u) << (hk_sp_lane & ~%du)", parts, parts - 1);
            else   /* a whole warp: no shift by 32 */
                snprintf(want, sizeof want, "0xffffffffu << (hk_sp_lane & ~31u)");
            assert_non_null(strstr(t, want));
            assert_null(strstr(t, "1u << 32"));
            assert_non_null(strstr(t, "if (hk_sp_part == 0) {"));
            if (i == 2) {
                assert_non_null(strstr(t, "long long hk_sp_i[2] = {i1, i2};"));
                assert_non_null(strstr(t, "(long long)(1) + hk_sp_part"));
            }
            if (parts == 4) {
                rw_result r = {.applicable = true, .text = t, .len = strlen(t)};
                rwf_nvcc_compiles_with(&r, i == 0 ? inst : "", "topk", names[i]);
                /* applied to its own result: refused, saying so */
                fixture fx;
                load_text(t, &fx);
                rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, names[i])};
                rw_result again;
                assert_int_equal(rw_apply(rw_find("split_topk_scan"), &ctx, NULL, &again, NULL), HK_OK);
                assert_false(again.applicable);
                assert_non_null(strstr(again.description, "already"));
                rw_result_free(&again);
                unload(&fx);
            }
            free(t);
        }
    /* parts outside 2, 4, 8 */
    fixture fx;
    load_text(kernels, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "nearest1")};
    /* HIP: a wavefront's shuffle of width P, no mask; CUDA: the query's lanes by mask */
    rw_context hctx = ctx;
    hctx.hip = true;
    rw_result h;
    assert_int_equal(rw_apply(rw_find("split_topk_scan"), &hctx, NULL, &h, NULL), HK_OK);
    assert_true(h.applicable);
    assert_non_null(strstr(h.text, "ov[s] = __shfl_xor(v[s], off, width);"));
    assert_null(strstr(h.text, "__shfl_xor_sync"));
    assert_non_null(strstr(h.description, "__shfl_xor of width P"));
    rw_result_free(&h);
    assert_int_equal(rw_apply(rw_find("split_topk_scan"), &ctx, NULL, &h, NULL), HK_OK);
    assert_non_null(strstr(h.text, "ov[s] = __shfl_xor_sync(mask, v[s], off, width);"));
    assert_int_equal(h.grid_multiplier, 4);   /* parts 4 by default */
    rw_result_free(&h);
    int p3[RW_MAX_PARAMS] = {3};
    rw_result r;
    assert_int_equal(rw_apply(rw_find("split_topk_scan"), &ctx, p3, &r, NULL), HK_EINVAL);
    rw_result_free(&r);
    unload(&fx);
}

/* Every allocation failure is HK_ENOMEM with nothing left behind, never a refusal, on the
 * loop macro's form and the written-out for header (the guarded form: guarded_forms). */
static int split_nearest3(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    int rc = rw_apply(rw_find("split_topk_scan"), &ctx, NULL, r, NULL);
    if (rc == HK_OK && !r->applicable) {
        /* an allocation failure taken for a refusal */
        print_message("refused under an allocation failure: %s\n", r->description);
        return HK_EINVAL;
    }
    return rc;
}

static void alloc_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "nearest3"), split_nearest3);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "nearest1"), split_nearest3);
    unload(&fx);
}

/* Refusals, each with the construct and its line. */
static const char refused_src[] =
    "__device__ void sift(float *key, int *val, int k) { key[0] = key[k - 1]; val[0] = val[k - 1]; }\n" /* 1 */
    "#define LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "__global__ void heap(int n, int m, int k, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"                                                        /* 5 */
    "        float qx = q[t];\n"
    "        float key[16];\n"
    "        int val[16];\n"
    "        for (int s = 0; s < k; s++) { key[s] = 1e10f; val[s] = 0; }\n"
    "        for (int i = 0; i < m; i++) {\n"                                  /* 10 */
    "            float d = (qx - x[i]) * (qx - x[i]);\n"
    "            if (d < key[0]) {\n"
    "                key[0] = d;\n"
    "                val[0] = i;\n"
    "                sift(key, val, k);\n"                                     /* 15 */
    "            }\n"
    "        }\n"
    "        out[t] = val[0];\n"
    "    }\n"
    "}\n"                                                                      /* 20 */
    "__global__ void radius(int n, int m, int ns, float r2, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        int cnt = 0;\n"                                                   /* 25 */
    "        for (int i = 0; i < m; ++i) {\n"
    "            float d = (qx - x[i]) * (qx - x[i]);\n"
    "            if (d < r2) {\n"
    "                out[t * ns + cnt] = i;\n"
    "                ++cnt;\n"                                                 /* 30 */
    "                if (cnt >= ns) break;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "}\n"                                                                      /* 35 */
    "__global__ void lesseq(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float b = 1e30f;\n"                                               /* 40 */
    "        int w = 0;\n"
    "        for (int i = 0; i < m; ++i) {\n"
    "            float d = qx - x[i];\n"
    "            if (d <= b) { b = d; w = i; }\n"
    "        }\n"                                                              /* 45 */
    "        out[t] = w;\n"
    "    }\n"
    "}\n"
    "__global__ void noshift(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"                                                                      /* 50 */
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float b1 = 1e30f, b2 = 1e30f;\n"
    "        int w1 = 0, w2 = 0;\n"
    "        for (int i = 0; i < m; ++i) {\n"                                  /* 55 */
    "            float d = qx - x[i];\n"
    "            if (d < b1) { b1 = d; w1 = i; }\n"
    "            else if (d < b2) { b2 = d; w2 = i; }\n"
    "        }\n"
    "        out[2 * t] = w1; out[2 * t + 1] = w2;\n"                          /* 60 */
    "    }\n"
    "}\n"
    "__global__ void narrow(int n, int m, const double *x, const double *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"                                                       /* 65 */
    "        double qx = q[t];\n"
    "        float b = 1e30f;\n"
    "        int w = 0;\n"
    "        for (int i = 0; i < m; ++i) {\n"
    "            double d = qx - x[i];\n"                                      /* 70 */
    "            if (d < b) { b = d; w = i; }\n"
    "        }\n"
    "        out[t] = w;\n"
    "    }\n"
    "}\n"                                                                      /* 75 */
    "__global__ void sentinels(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float b1 = 1e30f, b2 = 1e20f;\n"                                  /* 80 */
    "        int w1 = 0, w2 = 0;\n"
    "        for (int i = 0; i < m; ++i) {\n"
    "            float d = qx - x[i];\n"
    "            if (d < b1) { b2 = b1; w2 = w1; b1 = d; w1 = i; }\n"
    "            else if (d < b2) { b2 = d; w2 = i; }\n"                       /* 85 */
    "        }\n"
    "        out[2 * t] = w1; out[2 * t + 1] = w2;\n"
    "    }\n"
    "}\n"
    "__global__ void relative(int n, int m, const float *x, const float *q, int *out)\n" /* 90 */
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float b = 1e30f;\n"
    "        int w = 0;\n"                                                     /* 95 */
    "        for (int i = 0; i < m; ++i) {\n"
    "            float d = qx - x[i] - b;\n"
    "            if (d < b) { b = d; w = i; }\n"
    "        }\n"
    "        out[t] = w;\n"                                                    /* 100 */
    "    }\n"
    "}\n"
    "__global__ void lane(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"                                                       /* 105 */
    "        float qx = q[t];\n"
    "        float b = 1e30f;\n"
    "        int w = 0;\n"
    "        for (int i = 0; i < m; ++i) {\n"
    "            float d = qx - x[i];\n"                                       /* 110 */
    "            if (d < b) { b = d; w = i; }\n"
    "        }\n"
    "        out[t] = w + threadIdx.x;\n"
    "    }\n"
    "}\n"                                                                      /* 115 */
    "__global__ void early(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        out[t] = -1;\n"                                                   /* 120 */
    "        float b = 1e30f;\n"
    "        int w = 0;\n"
    "        for (int i = 0; i < m; ++i) {\n"
    "            float d = qx - x[i];\n"
    "            if (d < b) { b = d; w = i; }\n"                               /* 125 */
    "        }\n"
    "        out[t] = w;\n"
    "    }\n"
    "}\n"
    "__global__ void single(int n, int m, const float *x, const float *q, int *out)\n" /* 130 */
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= n) return;\n"
    "    float qx = q[t];\n"
    "    float b = 1e30f;\n"                                                   /* 135 */
    "    int w = 0;\n"
    "    for (int i = 0; i < m; ++i) {\n"
    "        float d = qx - x[i];\n"
    "        if (d < b) { b = d; w = i; }\n"
    "    }\n"                                                                  /* 140 */
    "    out[t] = w;\n"
    "}\n"
    "__global__ void ubound(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float b = 1e30f;\n"
    "        int w = -1;\n"
    "        for (int i = t % 3 - 1; i < (unsigned)m; ++i) {\n"
    "            float d = qx - x[i];\n"
    "            if (d <= b) { b = d; w = i; }\n"
    "        }\n"
    "        out[t] = w;\n"
    "    }\n"
    "}\n"
    "__global__ void rising(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float lim[2];\n"
    "        lim[0] = 0.05f;\n"
    "        lim[1] = 0.0f;\n"
    "        int hits = 0;\n"
    "        for (int i = 0; i < m; i++) {\n"
    "            float d = (qx - x[i]) * (qx - x[i]);\n"
    "            if (d < lim[0]) { lim[0] = lim[0] * 2.0f + d; lim[1] += d; hits = hits * 31 + i; }\n"
    "        }\n"
    "        out[t] = hits + (int)(lim[1] * 64.0f);\n"
    "    }\n"
    "}\n";

/* The guarded form's own refusals (not compiled: `notify` is nowhere). */
static const char guard_refused_src[] =
    "__device__ void sift(float *key, int *val, int k) { key[0] = key[k - 1]; val[0] = val[k - 1]; }\n" /* 1 */
    "#define LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "__device__ void bump(float *key) { key[0] = 0.5f * key[0]; atomicExch(key + 1, 0.0f); }\n"
    "__global__ void finalelse(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float b = 1e30f;\n"
    "        int w = 0, far = 0;\n"
    "        for (int i = 0; i < m; ++i) {\n"
    "            float d = qx - x[i];\n"
    "            if (d < b) { b = d; w = i; }\n"
    "            else { far++; }\n"
    "        }\n"
    "        out[t] = w + far;\n"
    "    }\n"
    "}\n"
    "__global__ void rmw(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        for (int i = 0; i < m; ++i) {\n"
    "            float d = qx - x[i];\n"
    "            if (d < 0.5f) out[t] += 1;\n"
    "        }\n"
    "    }\n"
    "}\n"
    "__global__ void unknown(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float b = 1e30f;\n"
    "        for (int i = 0; i < m; ++i) {\n"
    "            float d = qx - x[i];\n"
    "            if (d < b) { b = d; notify(d); }\n"
    "        }\n"
    "        out[t] = (int)b;\n"
    "    }\n"
    "}\n"
    "__global__ void handed(int n, int m, int k, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float key[16];\n"
    "        for (int s = 0; s < k; s++) key[s] = 1e10f;\n"
    "        for (int i = 0; i < m; i++) {\n"
    "            float d = (qx - x[i]) * (qx - x[i]);\n"
    "            if (d < key[0]) { key[0] = d; sift(key, out, k); }\n"
    "        }\n"
    "    }\n"
    "}\n"
    "__global__ void counted(int n, int m, const float *x, const float *q, float *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float key[2] = {1e10f, 1e10f};\n"
    "        for (int i = 0; i < m; i++) {\n"
    "            float d = qx - x[i];\n"
    "            if (d < key[0]) bump(key);\n"
    "        }\n"
    "        out[t] = key[0];\n"
    "    }\n"
    "}\n"
    "__global__ void guardwrites(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        int seen = 0, w = 0;\n"
    "        for (int i = 0; i < m; i++) {\n"
    "            float d = qx - x[i];\n"
    "            if (d < 0.5f && ++seen > 2) w = i;\n"
    "        }\n"
    "        out[t] = w;\n"
    "    }\n"
    "}\n"
    "__global__ void guardmem(int n, int m, const float *x, const float *q, const float *lim, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        int w = 0;\n"
    "        for (int i = 0; i < m; i++) {\n"
    "            float d = qx - x[i];\n"
    "            if (d < lim[i]) w = i;\n"
    "        }\n"
    "        out[t] = w;\n"
    "    }\n"
    "}\n"
    "__global__ void readback(int n, int m, const float *x, const float *q, const int *w0, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float b = 1e30f;\n"
    "        int w = 0;\n"
    "        for (int i = 0; i < m; i++) {\n"
    "            float d = qx - x[i];\n"
    "            if (d < b) { b = d; w = w0[i]; }\n"
    "        }\n"
    "        out[t] = w;\n"
    "    }\n"
    "}\n"
    "#define HK_LIMV (lim[0])\n" /* 101 */
    "__global__ void valmacro(int n, int m, const float *x, const float *q, int *out)\n"
    "{\n"
    "    LOOP(t, n) {\n"
    "        float qx = q[t];\n"
    "        float lim[2];\n"
    "        lim[0] = 0.05f;\n"
    "        lim[1] = 0.0f;\n"
    "        int hits = 0;\n"
    "        for (int i = 0; i < m; i++) {\n"
    "            float d = (qx - x[i]) * (qx - x[i]) - HK_LIMV;\n" /* 111 */
    "            if (d < 0.0f) { lim[0] = lim[0] * 2.0f + d; lim[1] += d; hits = hits * 31 + i; }\n"
    "        }\n"
    "        out[t] = hits + (int)(lim[1] * 64.0f);\n"
    "    }\n"
    "}\n";

static void refusals(void **state)
{
    (void)state;
    /* heap, radius, lesseq, noshift, narrow and sentinels are no cascades (a heap a callee
     * sifts, a count with a break, ties to the later item, a branch that does not shift, a
     * double value kept in a float, two sentinels): the guarded form takes them
     * (guarded_forms, emulated) */
    static const rwf_refusal cases[] = {
        /* the value reads the state */
        {"relative", "value declaration", 97, "reads `b`, which the loop body writes"},
        /* the thread index elsewhere */
        {"lane", "thread index", 113, "`threadIdx` outside the query loop's header"},
        /* a store before the scan: P lanes would each do it */
        {"early", "store", 120, "P lanes would each do it"},
        /* one query per thread, no grid-stride loop */
        {"single", "query loop", 137, "not a grid-stride loop over x"},
    };
    rwf_expect_refusals(refused_src, "split_topk_scan", cases, HK_ARRAY_LEN(cases));
    static const rwf_refusal guard_cases[] = {
        /* a final else: every item updates */
        {"finalelse", "else", 13, "a final else"},
        /* a read-modify-write of memory: each lane would add */
        {"rmw", "update", 24, "`out` is read and stored by the update"},
        /* a call the file does not define */
        {"unknown", "call", 35, "`notify`, which the file does not define"},
        /* a kernel pointer handed to a callee */
        {"handed", "call", 48, "hands `out` (memory outside the thread's own arrays) to `sift`"},
        /* a callee with an atomic: each lane would add */
        {"counted", "call", 59, "`bump`, called by the update, holds `atomicExch`"},
        /* a guard that writes: asked again for every item ahead */
        {"guardwrites", "guard", 71, "the guard writes (`++`)"},
        /* a guard that reads global memory */
        {"guardmem", "guard", 83, "the guard reads memory (`lim`)"},
        /* a memory read in the update: the lanes are not in step */
        {"readback", "update", 96, "the update reads memory through `w0`"},
        /* session 46: the value reads the state through a macro (applied at 18e2dd8a: each
         * lane's value would have been computed against the state at its group's start) */
        {"valmacro", "value declaration", 111, "`d` reads `HK_LIMV`, a macro of the file"},
    };
    rwf_expect_refusals(guard_refused_src, "split_topk_scan", guard_cases, HK_ARRAY_LEN(guard_cases));
}

/* C++ for the drivers: inputs by mode (0 spread, 1 integer grid 0..3: ties everywhere, 2
 * all equal, 3 the grid with NaN coordinates). */
#define HELPERS_COMMON                                                                 \
    "static void pts(emu::buf<float> &p, int mode, int seed)\n"                         \
    "{\n"                                                                               \
    "    if (mode == 0) p.fill(seed);\n"                                                \
    "    else if (mode == 2) p.set(1.0f);\n"                                            \
    "    else p.fill_mod(seed, 4);\n"                                                   \
    "    if (mode == 3)\n"                                                              \
    "        for (size_t i = (size_t)seed % 5; i < p.size(); i += 7) p[i] = NAN;\n"     \
    "}\n"                                                                               \
    "static const int nis[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 17, 40};\n"

static const char helpers_common[] = HELPERS_COMMON;

/* Each kernel on every input; blocks of 64 (P lanes per query) and 36 (not a multiple of
 * 8: part 0 alone at P = 8; groups of 4 across the warp boundary at 32), grids that cover
 * the queries once and (orig) half of them (every thread two queries), the candidate's
 * grid always P times the original's along x. $P is the candidate's parts. */
static const char helpers_fmt[] =
    "static const int P = %d;\n"
    "static void nearest3_case(int mode)\n"
    "{\n"
    "    const int b = 2, nq = 70;\n"
    "    for (int blk : {64, 36})\n"
    "        for (int gx : {(nq + blk - 1) / blk, 1})\n"
    "            for (int ni : nis) {\n"
    "                emu::buf<float> q(b * nq * 3), it(b * ni * 3);\n"
    "                pts(q, mode, 1 + ni); pts(it, mode, 2 + ni);\n"
    "                emu::buf<float> od(b * nq * 3), cd(b * nq * 3);\n"
    "                emu::buf<int> oi(b * nq * 3), ci(b * nq * 3);\n"
    "                od.set(-1.0f); cd.set(-1.0f); oi.set(-1); ci.set(-1);\n"
    "                emu::launch(dim3(gx, b), dim3(blk), 0, [&] { orig::nearest3<float>(b, nq, ni, q, it, od, oi); });\n"
    "                emu::launch(dim3(gx * P, b), dim3(blk), 0, [&] { cand::nearest3<float>(b, nq, ni, q, it, cd, ci); });\n"
    "                if (!emu::expect(\"nearest3 dist\", od, cd) | !emu::expect(\"nearest3 idx\", oi, ci))\n"
    "                    return (void)printf(\"  (mode %%d, block %%d, grid %%d, items %%d)\\n\", mode, blk, gx, ni);\n"
    "            }\n"
    "}\n"
    "static void nearest1_case(int mode)\n"
    "{\n"
    "    const int nq = 70;\n"
    "    for (int blk : {64, 36})\n"
    "        for (int gx : {(nq + blk - 1) / blk, 1})\n"
    "            for (int ni : nis) {\n"
    "                emu::buf<float> q(nq * 2), it(ni * 2);\n"
    "                pts(q, mode, 3 + ni); pts(it, mode, 4 + ni);\n"
    "                emu::buf<float> od(nq), cd(nq);\n"
    "                emu::buf<int> oi(nq), ci(nq);\n"
    "                od.set(-1.0f); cd.set(-1.0f); oi.set(-5); ci.set(-5);\n"
    "                emu::launch(dim3(gx), dim3(blk), 0, [&] { orig::nearest1(nq, ni, q, it, od, oi); });\n"
    "                emu::launch(dim3(gx * P), dim3(blk), 0, [&] { cand::nearest1(nq, ni, q, it, cd, ci); });\n"
    "                if (!emu::expect(\"nearest1 dist\", od, cd) | !emu::expect(\"nearest1 idx\", oi, ci))\n"
    "                    return (void)printf(\"  (mode %%d, block %%d, grid %%d, items %%d)\\n\", mode, blk, gx, ni);\n"
    "            }\n"
    "}\n"
    "static void nearest2_case(int mode)\n"
    "{\n"
    "    const int nq = 70;\n"
    "    for (int blk : {64, 36})\n"
    "        for (int gx : {(nq + blk - 1) / blk, 1})\n"
    "            for (int ni : nis) {\n"
    "                emu::buf<float> q(nq), it(ni);\n"
    "                pts(q, mode, 5 + ni); pts(it, mode, 6 + ni);\n"
    "                emu::buf<float> od(nq * 2), cd(nq * 2);\n"
    "                emu::buf<long long> oi(nq * 2), ci(nq * 2);\n"
    "                od.set(-1.0f); cd.set(-1.0f); oi.set(-5); ci.set(-5);\n"
    "                emu::launch(dim3(gx), dim3(blk), 0, [&] { orig::nearest2(nq, ni, q, it, od, oi); });\n"
    "                emu::launch(dim3(gx * P), dim3(blk), 0, [&] { cand::nearest2(nq, ni, q, it, cd, ci); });\n"
    "                if (!emu::expect(\"nearest2 dist\", od, cd) | !emu::expect(\"nearest2 idx\", oi, ci))\n"
    "                    return (void)printf(\"  (mode %%d, block %%d, grid %%d, items %%d)\\n\", mode, blk, gx, ni);\n"
    "            }\n"
    "}\n";

static const char all_modes[] = "for (int mode = 0; mode < 4; mode++) %s_case(mode);\n";

/* mmcv's three_nn as extracted: its pointers advance in the loop (each trip of a thread
 * adds to them), so a thread serves one query: grid.x * block >= n, as mmcv launches it. */
static const char three_nn_driver_fmt[] =
    "const int b = 2, n = 70, P = %d;\n"
    "for (int mode = 0; mode < 4; mode++)\n"
    "    for (int blk : {64, 36})\n"
    "        for (int m : {1, 2, 3, 5, 41}) {\n"
    "            emu::buf<float> u(b * n * 3), k(b * m * 3);\n"
    "            pts(u, mode, 11 + m); pts(k, mode, 12 + m);\n"
    "            emu::buf<float> od(b * n * 3), cd(b * n * 3);\n"
    "            emu::buf<int> oi(b * n * 3), ci(b * n * 3);\n"
    "            od.set(-1.0f); cd.set(-1.0f); oi.set(-1); ci.set(-1);\n"
    "            const int gx = (n + blk - 1) / blk;\n"
    "            emu::launch(dim3(gx, b), dim3(blk), 0, [&] { orig::three_nn_forward_cuda_kernel<float>(b, n, m, u, k, od, oi); });\n"
    "            emu::launch(dim3(gx * P, b), dim3(blk), 0, [&] { cand::three_nn_forward_cuda_kernel<float>(b, n, m, u, k, cd, ci); });\n"
    "            if (!emu::expect(\"three_nn dist\", od, cd) | !emu::expect(\"three_nn idx\", oi, ci))\n"
    "                printf(\"  (mode %%d, block %%d, m %%d)\\n\", mode, blk, m);\n"
    "        }\n";

static void emulated(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static emu_batch batch;
    emu_batch_init(&batch, tmpdir, "topk");
    static const char *const names[] = {"nearest3", "nearest1", "nearest2"};
    static const int ps[] = {2, 4, 8, 16, 32};
    enum { NP = HK_ARRAY_LEN(ps) };
    char *cands[3 * NP] = {0}, helpers[NP][sizeof helpers_common + sizeof helpers_fmt + 16];
    char drivers[3][128], tags[3 * NP][64];
    for (size_t l = 0; l < NP; l++)
    {
        int w = snprintf(helpers[l], sizeof helpers[l], "%s", helpers_common);
        snprintf(helpers[l] + w, sizeof helpers[l] - (size_t)w, helpers_fmt, ps[l]);
    }
    for (size_t i = 0; i < 3; i++) {
        snprintf(drivers[i], sizeof drivers[i], all_modes, names[i]);
        for (size_t l = 0; l < NP; l++) {
            cands[i * NP + l] = split(kernels, names[i], ps[l], NULL);
            snprintf(tags[i * NP + l], sizeof tags[0], "topk_%s_p%d", names[i], ps[l]);
            emu_batch_add_pair(&batch, tags[i * NP + l], kernels, cands[i * NP + l], helpers[l], drivers[i], EMU_OK);
        }
    }
    /* mmcv's own three_nn (bench/wild/src, where extracted), P = 2, 4, 8, 16, 32 */
    char *wild_src = NULL, *wild_cand[NP] = {0}, wild_drv[NP][sizeof three_nn_driver_fmt + 16], wild_tag[NP][64];
    if ((wild_src = rwf_wild_text("mmcv_three_nn_fwd", NULL))) {
        for (size_t l = 0; l < NP; l++) {
            char *cand = split(wild_src, "three_nn_forward_cuda_kernel", ps[l], NULL);
            /* the header's include guard, defined by the original's copy, would hide the
             * rewrite's: opened unconditionally there */
            wild_cand[l] = emu_replaced(cand, "#ifndef ", "#if 1 // ");
            free(cand);
            snprintf(wild_drv[l], sizeof wild_drv[l], three_nn_driver_fmt, ps[l]);
            snprintf(wild_tag[l], sizeof wild_tag[l], "topk_mmcv_three_nn_p%d", ps[l]);
            emu_batch_add_pair(&batch, wild_tag[l], wild_src, wild_cand[l], helpers_common, wild_drv[l], EMU_OK);
        }
    }
    /* the HIP form (__shfl_xor of width P, no mask: the emulator's full-warp exchange, so
     * every lane of every warp stays to the merge: 64 queries x P lanes on blocks of 64) */
    char *hip = split_for(kernels, "nearest3", 4, NULL, true);
    assert_non_null(strstr(hip, "__shfl_xor(v[s], off, width)"));
    static const char hip_driver[] =
        "const int b = 2, nq = 64, P = 4;\n"
        "for (int mode = 0; mode < 4; mode++)\n"
        "    for (int ni : nis) {\n"
        "        emu::buf<float> q(b * nq * 3), it(b * ni * 3);\n"
        "        pts(q, mode, 21 + ni); pts(it, mode, 22 + ni);\n"
        "        emu::buf<float> od(b * nq * 3), cd(b * nq * 3);\n"
        "        emu::buf<int> oi(b * nq * 3), ci(b * nq * 3);\n"
        "        od.set(-1.0f); cd.set(-1.0f); oi.set(-1); ci.set(-1);\n"
        "        emu::launch(dim3(1, b), dim3(64), 0, [&] { orig::nearest3<float>(b, nq, ni, q, it, od, oi); });\n"
        "        emu::launch(dim3(P, b), dim3(64), 0, [&] { cand::nearest3<float>(b, nq, ni, q, it, cd, ci); });\n"
        "        if (!emu::expect(\"hip nearest3 dist\", od, cd) | !emu::expect(\"hip nearest3 idx\", oi, ci)) {\n"
        "            printf(\"  (mode %d, items %d)\\n\", mode, ni);\n"
        "            break;\n"
        "        }\n"
        "    }\n";
    emu_batch_add_pair(&batch, "topk_nearest3_hip_p4", kernels, hip, helpers_common, hip_driver, EMU_OK);
    /* and at 32 (the gfx9 skill's largest: width 32 within the wavefront) */
    char *hip32 = split_for(kernels, "nearest3", 32, NULL, true);
    assert_non_null(strstr(hip32, "hk_sp_merge<3>(hk_sp_v, hk_sp_i, hk_sp_mask, hk_sp_off, 32);"));
    char *hip32_driver = emu_replaced(hip_driver, "P = 4;", "P = 32;");
    assert_string_not_equal(hip32_driver, hip_driver);
    emu_batch_add_pair(&batch, "topk_nearest3_hip_p32", kernels, hip32, helpers_common, hip32_driver, EMU_OK);
    /* broken: ties between parts to the higher index; the last merge level left out; every
     * lane of a query storing (a part's own list, not the merged one, where part 0 is late) */
    char *tie = emu_replaced(cands[1], "oi[t] < ix[s]", "oi[t] > ix[s]");
    emu_batch_add_pair(&batch, "topk_broken_tie", kernels, tie, helpers[1], drivers[0], EMU_DIFFERS);
    char *half = emu_replaced(cands[2], "hk_sp_off < 8;", "hk_sp_off < 4;");
    emu_batch_add_pair(&batch, "topk_broken_level", kernels, half, helpers[2], drivers[0], EMU_DIFFERS);
    /* a whole warp a query (P = 32): the merge's last level (lanes 16 apart) left out */
    char *half32 = emu_replaced(cands[4], "hk_sp_off < 32;", "hk_sp_off < 16;");
    emu_batch_add_pair(&batch, "topk_broken_level32", kernels, half32, helpers[4], drivers[0], EMU_DIFFERS);
    char *nomerge = emu_replaced(cands[1], "if (hk_sp_np > 1) {", "if (hk_sp_np > 99) {");
    emu_batch_add_pair(&batch, "topk_broken_nomerge", kernels, nomerge, helpers[1], drivers[0], EMU_DIFFERS);
    emu_batch_run(&batch);
    free(hip);
    free(hip32);
    free(hip32_driver);
    free(tie);
    free(half);
    free(nomerge);
    free(wild_src);
    free(half32);
    for (size_t l = 0; l < NP; l++)
        free(wild_cand[l]);
    for (size_t i = 0; i < HK_ARRAY_LEN(cands); i++)
        free(cands[i]);
}

/* The guarded form (no cascade: knn's heap, ball_query's counted break, `<=`, a branch
 * that does not shift, a double value in a float state, two sentinels): its text, the
 * grid it asks for, nvcc on one candidate, and the batched emulation against the original
 * bit for bit on spread, tie-heavy, all-equal and NaN inputs, 1..40 items, blocks of 64,
 * 36 (part 0 alone at P = 8) and 48 (a second warp of 16 lanes: one query at P = 16, part 0
 * alone at P = 32), grids that give every thread two queries; mmcv's own
 * knn and ball_query (where bench/wild/src is extracted). Broken candidates must differ:
 * the guard not asked again for the lane after an update, the values taken from the
 * group's first lane, a break that does not stop the other lanes. */
/* ubound: a start of -1 for every third query against an unsigned bound: `-1 < (unsigned)m`
 * is false, so the original scans nothing there (the items' range test is the original's,
 * in the counter's type) */
/* rising: a guard's threshold the update raises (`lim[0]`, a local array at a literal index,
 * kept in a register by the guarded form): a copy not read again after an update misses
 * items */
static const char *const guarded_names[] = {"heap", "radius", "lesseq", "noshift", "narrow", "sentinels", "ubound",
                                            "rising"};

static const char guarded_helpers_fmt[] =
    "static const int P = %d;\n"
    "static void guarded_case(int mode)\n"
    "{\n"
    "    const int n = 70;\n"
    "    for (int blk : {64, 36, 48})\n"
    "        for (int gx : {(n + blk - 1) / blk, 1})\n"
    "            for (int m : nis) {\n"
    "                emu::buf<float> q(n), x(m);\n"
    "                pts(q, mode, 31 + m); pts(x, mode, 32 + m);\n"
    "                emu::buf<double> qd(n), xd(m);\n"
    "                for (int i = 0; i < n; i++) qd[i] = (double)q[i] / 3.0;\n"
    "                for (int i = 0; i < m; i++) xd[i] = (double)x[i] / 3.0;\n"
    "                emu::buf<int> o(n * 4 + 48), c(n * 4 + 48);   /* room for a broken count */\n"
    "#define HK_PAIR(name, ...) \\\n"
    "                o.set(-3); c.set(-3); \\\n"
    "                emu::launch(dim3(gx), dim3(blk), 0, [&] { orig::name(__VA_ARGS__, o); }); \\\n"
    "                emu::launch(dim3(gx * P), dim3(blk), 0, [&] { cand::name(__VA_ARGS__, c); }); \\\n"
    "                if (!emu::expect(#name, o, c)) \\\n"
    "                    return (void)printf(\"  (mode %%d, block %%d, grid %%d, items %%d)\\n\", mode, blk, gx, m);\n"
    "                HK_PAIR(heap, n, m, 5, x, q)\n"
    "                HK_PAIR(radius, n, m, 4, 0.25f, x, q)\n"
    "                HK_PAIR(lesseq, n, m, x, q)\n"
    "                HK_PAIR(noshift, n, m, x, q)\n"
    "                HK_PAIR(narrow, n, m, xd, qd)\n"
    "                HK_PAIR(sentinels, n, m, x, q)\n"
    "                HK_PAIR(ubound, n, m, x, q)\n"
    "                HK_PAIR(rising, n, m, x, q)\n"
    "#undef HK_PAIR\n"
    "            }\n"
    "}\n";

/* mmcv's knn and ball_query as extracted: one query per thread (their pointers advance in
 * the query loop), two batches on y. */
static const char knn_driver_fmt[] =
    "const int b = 2, m = 70, P = %d;\n"
    "for (int mode = 0; mode < 4; mode++)\n"
    "    for (int blk : {64, 36, 48})\n"
    "        for (int n : {1, 3, 5, 17, 41})\n"
    "            for (int ns : {1, 5, 8}) {\n"
    "                emu::buf<float> xyz(b * n * 3), nx(b * m * 3);\n"
    "                pts(xyz, mode, 41 + n); pts(nx, mode, 42 + n);\n"
    "                emu::buf<float> od(b * m * ns), cd(b * m * ns);\n"
    "                emu::buf<int> oi(b * m * ns), ci(b * m * ns);\n"
    "                od.set(-1.0f); cd.set(-1.0f); oi.set(-1); ci.set(-1);\n"
    "                const int gx = (m + blk - 1) / blk;\n"
    "                emu::launch(dim3(gx, b), dim3(blk), 0, [&] { orig::knn_forward_cuda_kernel<float>(b, n, m, ns, xyz, nx, oi, od); });\n"
    "                emu::launch(dim3(gx * P, b), dim3(blk), 0, [&] { cand::knn_forward_cuda_kernel<float>(b, n, m, ns, xyz, nx, ci, cd); });\n"
    "                if (!emu::expect(\"knn dist\", od, cd) | !emu::expect(\"knn idx\", oi, ci))\n"
    "                    printf(\"  (mode %%d, block %%d, n %%d, k %%d)\\n\", mode, blk, n, ns);\n"
    "            }\n";

static const char ball_driver_fmt[] =
    "const int b = 2, m = 70, P = %d;\n"
    "for (int mode = 0; mode < 4; mode++)\n"
    "    for (int blk : {64, 36, 48})\n"
    "        for (int n : {1, 3, 5, 17, 41})\n"
    "            for (int ns : {1, 4, 9}) {\n"
    "                emu::buf<float> xyz(b * n * 3), nx(b * m * 3);\n"
    "                pts(xyz, mode, 51 + n); pts(nx, mode, 52 + n);\n"
    "                emu::buf<int> oi(b * m * ns), ci(b * m * ns);\n"
    "                oi.set(0); ci.set(0);\n"
    "                const int gx = (m + blk - 1) / blk;\n"
    "                const float lo = mode == 0 ? 0.0f : 1.0f, hi = mode == 0 ? 0.6f : 2.5f;\n"
    "                emu::launch(dim3(gx, b), dim3(blk), 0, [&] { orig::ball_query_forward_cuda_kernel<float>(b, n, m, lo, hi, ns, nx, xyz, oi); });\n"
    "                emu::launch(dim3(gx * P, b), dim3(blk), 0, [&] { cand::ball_query_forward_cuda_kernel<float>(b, n, m, lo, hi, ns, nx, xyz, ci); });\n"
    "                if (!emu::expect(\"ball_query idx\", oi, ci))\n"
    "                    printf(\"  (mode %%d, block %%d, n %%d, nsample %%d)\\n\", mode, blk, n, ns);\n"
    "            }\n";

static void guarded_forms(void **state)
{
    (void)state;
    static const int ps[] = {2, 4, 8, 16, 32};
    enum { NP = HK_ARRAY_LEN(ps) };
    /* the text: ballot, shuffle of the values the update reads, the break for all lanes */
    for (size_t i = 0; i < HK_ARRAY_LEN(guarded_names); i++) {
        unsigned mult = 0;
        char *t = split(refused_src, guarded_names[i], 4, &mult);
        assert_int_equal(mult, 4);
        assert_non_null(strstr(t, "guarded form"));
        assert_non_null(strstr(t, "__ballot_sync(hk_sp_gm, hk_sp_in && hk_sp_part >= hk_sp_from && ("));
        assert_non_null(strstr(t, "= __shfl_sync(hk_sp_gm, d, (int)(hk_sp_base + hk_sp_j));"));
        assert_null(strstr(t, "hk_sp_merge"));
        if (i == 1)
            assert_non_null(strstr(t, "if (cnt >= ns) { hk_sp_stop = true; break; }"));
        if (i == 7)
            assert_non_null(strstr(t, "auto hk_sp_r0 = lim[0];"));
        else if (i == 0) {
            /* the guard's `key[0]` in a register, read where the scan starts and after every
             * update; the update's own guard reads the array as written */
            assert_non_null(strstr(t, "auto hk_sp_r0 = key[0];"));
            assert_non_null(strstr(t, "&& ((d < hk_sp_r0))) >> hk_sp_base"));
            assert_non_null(strstr(t, "} while (0);\n                hk_sp_r0 = key[0];\n"));
            assert_non_null(strstr(t, "if (d < key[0]) {"));
        } else
            assert_null(strstr(t, "hk_sp_r0"));
        if (i == 0) {
            rw_result r = {.applicable = true, .text = t, .len = strlen(t)};
            rwf_nvcc_compiles_with(&r, "", "topk_guarded", "heap");
        }
        free(t);
    }
    /* HIP: the guarded form is CUDA's; the cascade's reason is the one given */
    fixture fx;
    load_text(refused_src, &fx);
    rw_context hctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "heap"), .hip = true};
    rw_result h;
    assert_int_equal(rw_apply(rw_find("split_topk_scan"), &hctx, NULL, &h, NULL), HK_OK);
    assert_false(h.applicable);
    assert_non_null(strstr(h.description, "`sift(...)` updates the state"));
    rw_result_free(&h);
    /* every allocation failure is HK_ENOMEM, never a refusal: a callee followed (its body
     * and the file lexed), a break */
    rwf_survives_alloc_failures(&fx, kernel(&fx, "heap"), split_nearest3);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "radius"), split_nearest3);
    unload(&fx);
    SKIP_WITHOUT_EMULATOR();
    static emu_batch batch;
    emu_batch_init(&batch, tmpdir, "topk_guarded");
    static const char driver[] = "for (int mode = 0; mode < 4; mode++) guarded_case(mode);\n";
    char helpers[NP][sizeof helpers_common + sizeof guarded_helpers_fmt + 16], tags[NP][64];
    char *cands[NP] = {0};
    for (size_t l = 0; l < NP; l++) {
        int w = snprintf(helpers[l], sizeof helpers[l], "%s", helpers_common);
        snprintf(helpers[l] + w, sizeof helpers[l] - (size_t)w, guarded_helpers_fmt, ps[l]);
        /* one candidate text with every kernel split: each kernel's own rewrite applied in turn */
        char *t = strdup(refused_src);
        assert_non_null(t);
        for (size_t i = 0; i < HK_ARRAY_LEN(guarded_names); i++) {
            char *u = split(t, guarded_names[i], ps[l], NULL);
            free(t);
            t = u;
        }
        cands[l] = t;
        snprintf(tags[l], sizeof tags[l], "topk_guarded_p%d", ps[l]);
        emu_batch_add_pair(&batch, tags[l], refused_src, cands[l], helpers[l], driver, EMU_OK);
    }
    /* mmcv's knn and ball_query, P = 2, 4, 8, 16, 32 */
    static const char *const wild_ids[] = {"mmcv_knn_fwd", "mmcv_ball_query_fwd"};
    static const char *const wild_kernels[] = {"knn_forward_cuda_kernel", "ball_query_forward_cuda_kernel"};
    static const char *const wild_drivers[] = {knn_driver_fmt, ball_driver_fmt};
    char *wild_src[2] = {0}, *wild_cand[2][NP] = {{0}}, wild_drv[2][NP][sizeof knn_driver_fmt + 64], wild_tag[2][NP][64];
    for (size_t w = 0; w < 2; w++) {
        if (!(wild_src[w] = rwf_wild_text(wild_ids[w], NULL)))
            continue;
        for (size_t l = 0; l < NP; l++) {
            char *cand = split(wild_src[w], wild_kernels[w], ps[l], NULL);
            assert_non_null(strstr(cand, "guarded form"));
            wild_cand[w][l] = emu_replaced(cand, "#ifndef ", "#if 1 // ");
            free(cand);
            snprintf(wild_drv[w][l], sizeof wild_drv[w][l], wild_drivers[w], ps[l]);
            snprintf(wild_tag[w][l], sizeof wild_tag[w][l], "topk_guarded_%s_p%d", wild_ids[w], ps[l]);
            emu_batch_add_pair(&batch, wild_tag[w][l], wild_src[w], wild_cand[w][l], helpers_common, wild_drv[w][l],
                               EMU_OK);
        }
    }
    /* broken: the lane after an update skipped; every update on the group's first lane's
     * values; a break that stops only the scan's own lane group loop, not the replay */
    char *skip = emu_replaced_all(cands[1], "hk_sp_from = hk_sp_j + 1;", "hk_sp_from = hk_sp_j + 2;");
    emu_batch_add_pair(&batch, "topk_guarded_broken_skip", refused_src, skip, helpers[1], driver, EMU_DIFFERS);
    /* the guard's cached `lim[0]` not read again after an update (rising raises it): a stale
     * threshold misses items */
    char *stale = emu_replaced_all(cands[1], "                hk_sp_r0 = lim[0];\n", "");
    assert_string_not_equal(stale, cands[1]);
    emu_batch_add_pair(&batch, "topk_guarded_broken_stale", refused_src, stale, helpers[1], driver, EMU_DIFFERS);
    /* a whole warp a query (P = 32): the same skip must differ there too */
    char *skip32 = emu_replaced_all(cands[4], "hk_sp_from = hk_sp_j + 1;", "hk_sp_from = hk_sp_j + 2;");
    emu_batch_add_pair(&batch, "topk_guarded_broken_skip32", refused_src, skip32, helpers[4], driver, EMU_DIFFERS);
    /* and the lanes' mask of a group of 32 cut to 16 (what `(1u << 32) - 1u` would risk): lanes
     * 16..31 wait at a ballot their group never joins */
    char *mask16 = emu_replaced_all(cands[4], "0xffffffffu", "0xffffu");
    assert_string_not_equal(mask16, cands[4]);
    emu_batch_add_pair(&batch, "topk_guarded_broken_mask32", refused_src, mask16, helpers[4], driver, EMU_DIVERGENT);
    char *first = emu_replaced_all(cands[1], "(int)(hk_sp_base + hk_sp_j)", "(int)(hk_sp_base)");
    emu_batch_add_pair(&batch, "topk_guarded_broken_first", refused_src, first, helpers[1], driver, EMU_DIFFERS);
    char *nostop = emu_replaced(cands[2], "{ hk_sp_stop = true; break; }", "{ break; }");
    emu_batch_add_pair(&batch, "topk_guarded_broken_stop", refused_src, nostop, helpers[2], driver, EMU_DIFFERS);
    /* the range test in 64 bits instead of the counter's type: ubound's queries that start at
     * -1 scan items the original never does */
    char *wide1 = emu_replaced_all(cands[1], "(int)hk_sp_g < ((unsigned)m)", "hk_sp_g < (long long)((unsigned)m)");
    char *wide = emu_replaced_all(wide1, "(int)hk_sp_kk < ((unsigned)m)", "hk_sp_kk < (long long)((unsigned)m)");
    assert_string_not_equal(wide, cands[1]);
    emu_batch_add_pair(&batch, "topk_guarded_broken_range", refused_src, wide, helpers[1], driver, EMU_DIFFERS);
    emu_batch_run(&batch);
    free(wide1);
    free(wide);
    free(skip);
    free(first);
    free(nostop);
    for (size_t w = 0; w < 2; w++) {
        free(wild_src[w]);
        for (size_t l = 0; l < NP; l++)
            free(wild_cand[w][l]);
    }
    for (size_t l = 0; l < NP; l++)
        free(cands[l]);
    free(skip32);
    free(stale);
    free(mask16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emits_and_compiles),
        cmocka_unit_test(alloc_failures),
        cmocka_unit_test(refusals),
        cmocka_unit_test(emulated),
        cmocka_unit_test(guarded_forms),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
