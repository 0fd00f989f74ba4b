/* uniform_tiles (issue 13): the same all-pairs loop (one query per thread, every thread
 * walking the same reference points) written several ways -- an early return or a guarded
 * body, int or unsigned, a grid-stride loop or mmcv's CUDA_1D_KERNEL_LOOP macro, a moved
 * pointer or an inline index, a template, a data-dependent break (ball query) -- gets its
 * reads through __shared__ tiles; near-misses are refused with the construct and its line.
 * Every rewrite runs against its original in the block emulator (emu_block.h): bit for bit
 * the same distances and indices, ties included (integer coordinates), on blocks that are
 * not the tile's size, a reference set that ends in a partial tile and blocks with no query
 * in range; a tile loaded without its barrier must differ. */
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

#include "rw_fixture.h"
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-uniform-tiles");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* Two nearest of m 2-D points, an early return, int. */
static const char k_ret[] =
    "__global__ void nn_ret(const float *q, const float *ref, float *dist, int *idx, int n, int m)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    float qx = q[2 * i], qy = q[2 * i + 1];\n"
    "    float b1 = 1e30f, b2 = 1e30f;\n"
    "    int i1 = 0, i2 = 0;\n"
    "    for (int k = 0; k < m; k++) {\n"
    "        float dx = qx - ref[2 * k], dy = qy - ref[2 * k + 1];\n"
    "        float d = dx * dx + dy * dy;\n"
    "        if (d < b1) {\n"
    "            b2 = b1;\n"
    "            i2 = i1;\n"
    "            b1 = d;\n"
    "            i1 = k;\n"
    "        } else if (d < b2) {\n"
    "            b2 = d;\n"
    "            i2 = k;\n"
    "        }\n"
    "    }\n"
    "    dist[2 * i] = b1;\n"
    "    dist[2 * i + 1] = b2;\n"
    "    idx[2 * i] = i1;\n"
    "    idx[2 * i + 1] = i2;\n"
    "}\n";

/* The nearest of m 1-D points, a guarded body, unsigned, <= bound. */
static const char k_if[] =
    "__global__ void nn_if(const float *q, const float *ref, float *dist, int *idx, unsigned n, unsigned last)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        float qx = q[i];\n"
    "        float best = 3.0e38f;\n"
    "        unsigned bi = 0;\n"
    "        for (unsigned k = 0; k <= last; ++k) {\n"
    "            float d = fabsf(qx - ref[k]);\n"
    "            if (d < best) {\n"
    "                best = d;\n"
    "                bi = k;\n"
    "            }\n"
    "        }\n"
    "        dist[i] = best;\n"
    "        idx[i] = (int)bi;\n"
    "    }\n"
    "}\n";

/* A template, a grid-stride loop, batches along blockIdx.y, a local base pointer. */
static const char k_gs[] =
    "template <typename T>\n"
    "__global__ void nn_gs(int b, int n, int m, const T *unknown, const T *known, T *dist, int *idx)\n"
    "{\n"
    "    int bs = blockIdx.y;\n"
    "    for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += blockDim.x * gridDim.x) {\n"
    "        if (bs >= b)\n"
    "            return;\n"
    "        const T *kb = known + bs * m * 3;\n"
    "        T ux = unknown[(bs * n + p) * 3], uy = unknown[(bs * n + p) * 3 + 1];\n"
    "        T uz = unknown[(bs * n + p) * 3 + 2];\n"
    "        T best = (T)1e30;\n"
    "        int bi = -1;\n"
    "        for (int k = 0; k < m; ++k) {\n"
    "            T x = kb[k * 3 + 0];\n"
    "            T y = kb[k * 3 + 1];\n"
    "            T z = kb[k * 3 + 2];\n"
    "            T d = (ux - x) * (ux - x) + (uy - y) * (uy - y) + (uz - z) * (uz - z);\n"
    "            if (d < best) {\n"
    "                best = d;\n"
    "                bi = k;\n"
    "            }\n"
    "        }\n"
    "        dist[bs * n + p] = best;\n"
    "        idx[bs * n + p] = bi;\n"
    "    }\n"
    "}\n";

/* mmcv's spelling: the loop macro, pointers moved in it, three best kept in double. */
static const char k_macro[] =
    "#define CUDA_1D_KERNEL_LOOP(i, n)                              \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); \\\n"
    "       i += blockDim.x * gridDim.x)\n"
    "template <typename T>\n"
    "__global__ void nn3(int b, int n, int m, const T *unknown, const T *known, T *dist2, int *__restrict__ idx)\n"
    "{\n"
    "    int bs_idx = blockIdx.y;\n"
    "    CUDA_1D_KERNEL_LOOP(pt_idx, n) {\n"
    "        if (bs_idx >= b) return;\n"
    "        unknown += bs_idx * n * 3 + pt_idx * 3;\n"
    "        known += bs_idx * m * 3;\n"
    "        dist2 += bs_idx * n * 3 + pt_idx * 3;\n"
    "        idx += bs_idx * n * 3 + pt_idx * 3;\n"
    "        T ux = unknown[0];\n"
    "        T uy = unknown[1];\n"
    "        T uz = unknown[2];\n"
    "        double best1 = 1e40, best2 = 1e40, best3 = 1e40;\n"
    "        int besti1 = 0, besti2 = 0, besti3 = 0;\n"
    "        for (int k = 0; k < m; ++k) {\n"
    "            T x = known[k * 3 + 0];\n"
    "            T y = known[k * 3 + 1];\n"
    "            T z = known[k * 3 + 2];\n"
    "            T d = (ux - x) * (ux - x) + (uy - y) * (uy - y) + (uz - z) * (uz - z);\n"
    "            if (d < best1) {\n"
    "                best3 = best2; besti3 = besti2; best2 = best1; besti2 = besti1; best1 = d; besti1 = k;\n"
    "            } else if (d < best2) {\n"
    "                best3 = best2; besti3 = besti2; best2 = d; besti2 = k;\n"
    "            } else if (d < best3) {\n"
    "                best3 = d; besti3 = k;\n"
    "            }\n"
    "        }\n"
    "        dist2[0] = best1; dist2[1] = best2; dist2[2] = best3;\n"
    "        idx[0] = besti1; idx[1] = besti2; idx[2] = besti3;\n"
    "    }\n"
    "}\n";

/* Ball query: the first ns points within a radius, the loop left when it has them. */
static const char k_ball[] =
    "__global__ void ball(int n, int m, float r2, int ns, const float *q, const float *pts, int *idx)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= m) return;\n"
    "    q += i * 2;\n"
    "    idx += i * ns;\n"
    "    float qx = q[0], qy = q[1];\n"
    "    int cnt = 0;\n"
    "    for (int k = 0; k < n; ++k) {\n"
    "        float dx = pts[k * 2] - qx, dy = pts[k * 2 + 1] - qy;\n"
    "        float d2 = dx * dx + dy * dy;\n"
    "        if (d2 < r2) {\n"
    "            if (cnt == 0)\n"
    "                for (int l = 0; l < ns; ++l)\n"
    "                    idx[l] = k;\n"
    "            idx[cnt] = k;\n"
    "            ++cnt;\n"
    "            if (cnt >= ns)\n"
    "                break;\n"
    "        }\n"
    "    }\n"
    "}\n";

/* Points as float3 structs, the query a struct local, the index unsigned int. */
static const char k_f3[] =
    "__global__ void nn_f3(const float3 *q, const float3 *ref, float *dist, int *idx, int n, int m)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    float3 p = q[i];\n"
    "    unsigned int bi = 0u;\n"
    "    unsigned int first = (unsigned int)ref[0].x;\n"
    "    float best = 1e30f;\n"
    "    for (int k = 0; k < m; k++) {\n"
    "        float3 r = ref[k];\n"
    "        float d = (p.x - r.x) * (p.x - r.x) + (p.y - r.y) * (p.y - r.y) + (p.z - r.z) * (p.z - r.z);\n"
    "        if (d < best) {\n"
    "            best = d;\n"
    "            bi = k;\n"
    "        }\n"
    "    }\n"
    "    dist[i] = best;\n"
    "    idx[i] = (int)(bi + first - first);\n"
    "}\n";

typedef struct {
    const char *src, *kernel;
} sample;

static const sample samples[] = {
    {k_ret, "nn_ret"}, {k_if, "nn_if"}, {k_gs, "nn_gs"}, {k_macro, "nn3"}, {k_ball, "ball"}, {k_f3, "nn_f3"},
};

/* The first of m boxes that holds each point, the box read inside a __device__ function
 * through `boxes + k * 5` (offsets 0-3 of 5, at its top, before its condition), batches on
 * y under a grid-stride loop, a break when found. */
static const char k_call[] =
    "__device__ inline int inside(const float *p, const float *box)\n"
    "{\n"
    "    float x0 = box[0], y0 = box[1];\n"
    "    float x1 = box[2], y1 = box[3];\n"
    "    if (p[0] < x0 || p[0] > x1)\n"
    "        return 0;\n"
    "    return p[1] >= y0 && p[1] <= y1;\n"
    "}\n"
    "__global__ void first_box(int b, int n, int m, const float *boxes, const float *pts, int *idx)\n"
    "{\n"
    "    int bs = blockIdx.y;\n"
    "    boxes += bs * m * 5;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        if (bs >= b)\n"
    "            return;\n"
    "        const float *p = pts + (bs * n + i) * 2;\n"
    "        int found = -1;\n"
    "        for (int k = 0; k < m; k++) {\n"
    "            int in = inside(p, boxes + k * 5);\n"
    "            if (in) {\n"
    "                found = k;\n"
    "                break;\n"
    "            }\n"
    "        }\n"
    "        idx[bs * n + i] = found;\n"
    "    }\n"
    "}\n";

static int call_tiles(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    return rw_apply_named("uniform_tiles", &ctx, NULL, r, NULL);
}

/* The call's reads are brought into the kernel's text (a local array of the offsets the
 * function reads), then staged; a function that reads its box after a condition, or whose
 * argument is not the pointer plus the counter's product, is refused with the call. */
static void reads_inside_a_call(void **state)
{
    (void)state;
    char *t = emu_rewrite(k_call, "first_box", "uniform_tiles", NULL);
    assert_non_null(strstr(t, "float hk_ua[4]; hk_ua[0] = hk_tile0[hk_j]; hk_ua[1] = hk_tile1[hk_j]; "
                              "hk_ua[2] = hk_tile2[hk_j]; hk_ua[3] = hk_tile3[hk_j];"));
    assert_non_null(strstr(t, "hk_tile3[hk_l] = boxes[(k * 5) + 3];"));
    assert_null(strstr(t, "hk_tile4"));   /* offset 4 is never read */
    assert_non_null(strstr(t, "int in = inside(p, hk_ua);"));
    free(t);
    {   /* out of memory anywhere, the second analysis included: HK_ENOMEM, nothing left */
        fixture fx;
        load_text(k_call, &fx);
        rwf_survives_alloc_failures(&fx, kernel(&fx, "first_box"), call_tiles);
        unload(&fx);
    }
    static const char *const later[] = {
        /* the box read after a condition: not every call reads it */
        "    float x0 = box[0], y0 = box[1];\n    float x1 = box[2], y1 = box[3];\n",
        /* the argument moved with the counter by a sum: not one product */
    };
    char *cond = emu_replaced(k_call, later[0], "    if (p[0] < 0.0f) return 0;\n"
                                                "    float x0 = box[0], y0 = box[1];\n    float x1 = box[2], y1 = box[3];\n");
    char *sum = emu_replaced(k_call, "boxes + k * 5", "boxes + k * 5 + 1");
    char *written = emu_replaced(k_call, "    float x0 = box[0], y0 = box[1];\n",
                                 "    float x0 = box[0], y0 = box[1];\n    ((float *)box)[4] = 0.0f;\n");
    /* the call under a ?: (not made on every trip) */
    char *maybe = emu_replaced(k_call, "int in = inside(p, boxes + k * 5);",
                               "int in = p[0] > 100.0f ? 0 : inside(p, boxes + k * 5);");
    const char *const srcs[] = {cond, sum, written, maybe};
    for (size_t i = 0; i < HK_ARRAY_LEN(srcs); i++) {
        fixture fx;
        load_text(srcs[i], &fx);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "first_box")};
        rw_result r;
        assert_int_equal(rw_apply_named("uniform_tiles", &ctx, NULL, &r, NULL), HK_OK);
        if (r.applicable || !strstr(r.description, "inside the call `inside(...)`"))
            print_message("case %zu: %s\n", i, r.description);
        assert_false(r.applicable);
        assert_non_null(strstr(r.description, "inside the call `inside(...)`"));
        rw_result_free(&r);
        unload(&fx);
    }
    free(cond);
    free(sum);
    free(written);
    free(maybe);
}

static void spellings_apply(void **state)
{
    (void)state;
    for (size_t i = 0; i < HK_ARRAY_LEN(samples); i++) {
        fixture fx;
        load_text(samples[i].src, &fx);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, samples[i].kernel)};
        rw_result r;
        rw_refusal why;
        assert_int_equal(rw_apply_named("uniform_tiles", &ctx, NULL, &r, &why), HK_OK);
        if (!r.applicable)
            print_message("%s: %s\n", samples[i].kernel, r.description);
        assert_true(r.applicable);
        assert_non_null(strstr(r.text, "__shared__"));
        assert_non_null(strstr(r.text, "hk_tile0[hk_l] = "));
        assert_non_null(strstr(r.text, "__syncthreads_or(hk_on && !hk_done)"));
        assert_non_null(strstr(r.text, "hk_r0[hk_u] = hk_tile0[hk_g + hk_u];"));
        /* the staged reads are gone from the compute loop: each is loaded once, in the tile */
        assert_non_null(strstr(r.description, "__shared__ tiles of 256"));
        rw_result_free(&r);
        unload(&fx);
    }
    /* the 2-D one stages both coordinates; the 3-D ones three; the break is flagged */
    char *t = emu_rewrite(k_ret, "nn_ret", "uniform_tiles", NULL);
    assert_non_null(strstr(t, "hk_tile1[hk_l] = ref[2 * k + 1];"));
    assert_null(strstr(t, "hk_tile2"));
    assert_non_null(strstr(t, "if (hk_on && (i >= n)) hk_on = false;"));
    free(t);
    t = emu_rewrite(k_ball, "ball", "uniform_tiles", NULL);
    assert_non_null(strstr(t, "{ hk_done = true; break; }"));
    /* the query's loads run only for a thread in range */
    assert_non_null(strstr(t, "float qx = hk_on ? (q[0]) : float(), qy = hk_on ? (q[1]) : float();"));
    free(t);
    t = emu_rewrite(k_f3, "nn_f3", "uniform_tiles", NULL);
    assert_non_null(strstr(t, "float3 p = hk_on ? (q[i]) : float3();"));
    assert_non_null(strstr(t, "unsigned int first = hk_on ? ((unsigned int)ref[0].x) : (unsigned int)0;"));
    assert_non_null(strstr(t, "alignas(16) __shared__ float3 hk_tile0[256];"));
    free(t);
    t = emu_rewrite(k_macro, "nn3", "uniform_tiles", (const int[]){128, 1, 0});
    assert_non_null(strstr(t, "hk_base = (blockIdx.x * blockDim.x + threadIdx.x) - threadIdx.x"));
    assert_non_null(strstr(t, "alignas(16) __shared__ T hk_tile2[128];"));
    assert_null(strstr(t, "#pragma unroll"));   /* unroll 1: one loop, no copy of the body */
    assert_null(strstr(t, "CUDA_1D_KERNEL_LOOP(pt_idx"));
    free(t);
}

typedef struct {
    const char *name, *src, *kernel;
    const char *construct;
    int line;
    const char *words;
} refusal;

static void near_misses_refused(void **state)
{
    (void)state;
    static const refusal cases[] = {
        {"barrier",
         "__global__ void k(const float *q, const float *r, float *o, int n, int m)\n"
         "{\n"
         "    __shared__ float s[64];\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    s[threadIdx.x] = 0.f;\n"
         "    __syncthreads();\n"
         "    float b = 0.f;\n"
         "    for (int k = 0; k < m; k++) b += q[i] * r[k];\n"
         "    o[i] = b + s[0];\n"
         "}\n",
         "k", "barrier", 6, "already synchronizes"},
        {"per-thread trip",
         "__global__ void k(const float *r, const int *cnt, float *o, int n)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i >= n) return;\n"
         "    float b = 0.f;\n"
         "    for (int k = 0; k < cnt[i]; k++)\n"
         "        b = fmaxf(b, r[k]);\n"
         "    o[i] = b;\n"
         "}\n",
         "k", "loop", 6, "varies per thread"},
        {"staged array written",
         "__global__ void k(float *r, float *o, int n, int m)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i >= n) return;\n"
         "    float b = 0.f;\n"
         "    for (int k = 0; k < m; k++) {\n"
         "        b = fmaxf(b, r[k]);\n"
         "        r[k] = b;\n"
         "    }\n"
         "    o[i] = b;\n"
         "}\n",
         "k", "loop", 6, "written by the kernel"},
        {"reads through a call",
         "__device__ float score(const float *p, const float *box)\n"
         "{\n"
         "    return (p[0] - box[0]) * (p[0] - box[0]) + (p[1] - box[1]) * box[2];\n"
         "}\n"
         "__global__ void k(const float *pts, const float *boxes, float *o, int n, int m)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i >= n) return;\n"
         "    float b = 0.f;\n"
         "    for (int k = 0; k < m; k++)\n"
         "        b = fmaxf(b, score(pts + 2 * i, boxes + k * 3));\n"
         "    o[i] = b;\n"
         "}\n",
         "k", "loop", 10, "inside the call `score(...)` (line 11)"},
        /* the thread's own grid-stride loop is not the reason given: the counted loop's is */
        {"grid-stride query loop",
         "__global__ void k(const float *r, const int *cnt, float *o, int n)\n"
         "{\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
         "        float b = 0.f;\n"
         "        for (int k = 0; k < cnt[i]; k++)\n"
         "            b = fmaxf(b, r[k]);\n"
         "        o[i] = b;\n"
         "    }\n"
         "}\n",
         "k", "loop", 5, "varies per thread"},
        {"return in the loop",
         "__global__ void k(const float *r, float *o, int n, int m)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i >= n) return;\n"
         "    for (int k = 0; k < m; k++) {\n"
         "        if (r[k] > o[i]) {\n"
         "            o[i] = r[k];\n"
         "            return;\n"
         "        }\n"
         "    }\n"
         "}\n",
         "k", "return", 8, "leaves the kernel"},
        {"conditional read",
         "__global__ void k(const float *r, const int *mask, float *o, int n, int m)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i >= n) return;\n"
         "    float b = 0.f;\n"
         "    for (int k = 0; k < m; k++) {\n"
         "        if (mask[i] > k)\n"
         "            b += r[k];\n"
         "    }\n"
         "    o[i] = b;\n"
         "}\n",
         "k", "loop", 6, "only under a condition"},
        {"2-D threads",
         "__global__ void k(const float *r, float *o, int n, int m)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    int j = threadIdx.y;\n"
         "    float b = 0.f;\n"
         "    for (int k = 0; k < m; k++) b += r[k];\n"
         "    o[i * 4 + j] = b;\n"
         "}\n",
         "k", "thread index", 4, "threadIdx.y"},
        {"per-thread return in a grid-stride loop",
         "__global__ void k(const float *q, const float *r, float *o, int n, int m)\n"
         "{\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
         "        if (q[i] < 0.f) return;\n"
         "        float b = 0.f;\n"
         "        for (int k = 0; k < m; k++) b = fmaxf(b, q[i] * r[k]);\n"
         "        o[i] = b;\n"
         "    }\n"
         "}\n",
         "k", "return", 4, "leaves the grid-stride loop"},
        {"return before a guarded body",
         "__global__ void k(const float *q, const float *r, float *o, int n, int m)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (threadIdx.x == 7) return;\n"
         "    if (i < n) {\n"
         "        float b = 0.f;\n"
         "        for (int k = 0; k < m; k++) b = fmaxf(b, q[i] * r[k]);\n"
         "        o[i] = b;\n"
         "    }\n"
         "}\n",
         "k", "return", 4, "before the loop"},
        {"bound set by some threads",
         "__global__ void k(const float *q, const float *r, float *o, int n, int m)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    int lim = m;\n"
         "    if (i >= n) return;\n"
         "    lim = lim - 1;\n"
         "    float b = 0.f;\n"
         "    for (int k = 0; k < lim; k++) b = fmaxf(b, q[i] * r[k]);\n"
         "    o[i] = b;\n"
         "}\n",
         "k", "loop", 8, "thread"},
        {"per-thread index into the reference set",
         "__global__ void k(const float *r, float *o, int n, int m)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i >= n) return;\n"
         "    float b = 0.f;\n"
         "    for (int k = 0; k < m; k++) b += r[i * m + k];\n"
         "    o[i] = b;\n"
         "}\n",
         "k", "loop", 6, "same for every thread"},
    };
    for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
        fixture fx;
        load_text(cases[c].src, &fx);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[c].kernel)};
        rw_result r;
        rw_refusal why;
        assert_int_equal(rw_apply_named("uniform_tiles", &ctx, NULL, &r, &why), HK_OK);
        print_message("%s: %s\n", cases[c].name, r.description);
        assert_false(r.applicable);
        assert_string_equal(why.construct, cases[c].construct);
        assert_int_equal(why.line, cases[c].line);
        assert_non_null(strstr(why.reason, cases[c].words));
        rw_result_free(&r);
        unload(&fx);
    }
}

/* C++ shared by the drivers: PAIR(T, nd, ni, launch) runs launch (NS:: the namespace, dist
 * a buffer of nd T, idx one of ni int, both poisoned) on the original and the rewrite under
 * the three thread orders; both outputs must match exactly. */
static const char emu_helpers[] =
    "#define PAIR(T, nd, ni, ...)                                                    \\\n"
    "    for (int s = 0; s < 3; s++) {                                               \\\n"
    "        emu::schedule = s;                                                      \\\n"
    "        emu::buf<T> o_d(nd), c_d(nd);                                           \\\n"
    "        emu::buf<int> o_i(ni), c_i(ni);                                         \\\n"
    "        o_d.set(T(-7)); c_d.set(T(-7)); o_i.set(-7); c_i.set(-7);               \\\n"
    "        { namespace NS = orig; auto &dist = o_d; auto &idx = o_i; __VA_ARGS__; } \\\n"
    "        { namespace NS = cand; auto &dist = c_d; auto &idx = c_i; __VA_ARGS__; } \\\n"
    "        bool ok_ = emu::expect(\"dist\", o_d, c_d);                               \\\n"
    "        ok_ = emu::expect(\"idx\", o_i, c_i) && ok_;                              \\\n"
    "        if (!ok_)                                                               \\\n"
    "            printf(\"  (schedule %d)\\n\", s);                                   \\\n"
    "    }\n";

/* The running test's emulated programs (emu_batch.h): queued by emulate() and the like,
 * built together and checked, each on its own, by emu_batch_run at the test's end. */
static emu_batch batch;

static void emulate(const char *tag, const char *src, const char *kname, const int *params, const char *driver,
                    bool broken)
{
    char *cand = emu_rewrite(src, kname, "uniform_tiles", params);
    if (broken) {   /* the tile read before every thread stored its part */
        char *b = emu_replaced(cand, "      __syncthreads();\n", "\n");
        free(cand);
        cand = b;
    }
    emu_batch_add_pair(&batch, tag, src, cand, emu_helpers, driver, broken ? EMU_DIFFERS : EMU_OK);
    free(cand);
}

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    /* integer coordinates in a small range: many ties, which must resolve as before; a
     * reference set of 700 (partial last tile), blocks of 80 and 96 (not the tile), one
     * more block than the queries need (no thread in range) */
    static const char ret_drv[] =
        "const int n = 300, m = 700;\n"
        "emu::buf<float> q(2 * n), ref(2 * m);\n"
        "q.fill_mod(1, 16); ref.fill_mod(2, 16);\n"
        "for (unsigned bl : {80u, 96u})\n"
        "    PAIR(float, 2 * n, 2 * n, emu::launch(dim3((n + bl - 1) / bl + 1), dim3(bl), 0,\n"
        "         [&] { NS::nn_ret(q, ref, dist, idx, n, m); }));\n";
    emulate("tiles_ret", k_ret, "nn_ret", NULL, ret_drv, false);
    emulate("tiles_ret_t128", k_ret, "nn_ret", (const int[]){128, 2, 0}, ret_drv, false);
    emulate("tiles_ret_broken", k_ret, "nn_ret", (const int[]){128, 2, 0}, ret_drv, true);
    static const char if_drv[] =
        "const unsigned n = 200, last = 512;\n"
        "emu::buf<float> q(n), ref(last + 1);\n"
        "q.fill_mod(3, 50); ref.fill_mod(4, 50);\n"
        "for (unsigned bl : {64u, 96u})\n"
        "    PAIR(float, n, n, emu::launch(dim3((n + bl - 1) / bl), dim3(bl), 0,\n"
        "         [&] { NS::nn_if(q, ref, dist, idx, n, last); }));\n";
    emulate("tiles_if", k_if, "nn_if", NULL, if_drv, false);
    emulate("tiles_if_t128", k_if, "nn_if", (const int[]){128, 8, 0}, if_drv, false);
    /* a grid smaller than the queries: several grid-stride iterations; batches on y, one
     * more than b (returns) */
    static const char gs_drv[] =
        "const int b = 2, n = 333, m = 300;\n"
        "emu::buf<float> u(b * n * 3), k(b * m * 3);\n"
        "u.fill_mod(5, 8); k.fill_mod(6, 8);\n"
        "for (unsigned bl : {64u, 96u})\n"
        "    PAIR(float, b * n, b * n, emu::launch(dim3(2, b + 1), dim3(bl), 0,\n"
        "         [&] { NS::nn_gs<float>(b, n, m, u, k, dist, idx); }));\n";
    emulate("tiles_gs", k_gs, "nn_gs", (const int[]){128, 4, 0}, gs_drv, false);
    static const char f3_drv[] =
        "const int n = 200, m = 600;\n"
        "emu::buf<float> q(3 * n), ref(3 * m);\n"
        "q.fill_mod(11, 10); ref.fill_mod(12, 10);\n"
        "for (unsigned bl : {64u, 96u})\n"
        "    PAIR(float, n, n, emu::launch(dim3((n + bl - 1) / bl + 1), dim3(bl), 0,\n"
        "         [&] { NS::nn_f3((const float3 *)(float *)q, (const float3 *)(float *)ref, dist, idx, n, m); }));\n";
    emulate("tiles_f3", k_f3, "nn_f3", NULL, f3_drv, false);
    /* mmcv's spelling: one grid-stride iteration per thread (mmcv's own launch) */
    static const char macro_drv[] =
        "const int b = 2, n = 150, m = 300;\n"
        "emu::buf<float> u(b * n * 3), k(b * m * 3);\n"
        "u.fill_mod(7, 6); k.fill_mod(8, 6);\n"
        "for (unsigned bl : {64u, 96u})\n"
        "    PAIR(float, b * n * 3, b * n * 3, emu::launch(dim3((n + bl - 1) / bl, b), dim3(bl), 0,\n"
        "         [&] { NS::nn3<float>(b, n, m, u, k, dist, idx); }));\n";
    emulate("tiles_macro", k_macro, "nn3", NULL, macro_drv, false);
    emulate("tiles_macro_t128", k_macro, "nn3", (const int[]){128, 1, 0}, macro_drv, false);
    /* ball query: queries that fill up early, late and never (the break and its flag) */
    static const char ball_drv[] =
        "const int n = 600, m = 130, ns = 5;\n"
        "emu::buf<float> q(m * 2), pts(n * 2);\n"
        "q.fill_mod(9, 40); pts.fill_mod(10, 40);\n"
        "for (unsigned bl : {64u, 96u})\n"
        "    PAIR(float, 1, m * ns, emu::launch(dim3((m + bl - 1) / bl), dim3(bl), 0,\n"
        "         [&] { NS::ball(n, m, 6.0f, ns, q, pts, idx); }));\n";
    emulate("tiles_ball", k_ball, "ball", (const int[]){128, 4, 0}, ball_drv, false);
    emulate("tiles_ball_t256", k_ball, "ball", NULL, ball_drv, false);
    /* the box read inside a call: 333 points (ragged), 300 boxes (a partial last tile),
     * a grid of 2 along x (several grid-stride iterations), one more batch than b */
    static const char call_drv[] =
        "const int b = 2, n = 333, m = 300;\n"
        "emu::buf<float> boxes(b * m * 5), pts(b * n * 2);\n"
        "boxes.fill_mod(13, 9); pts.fill_mod(14, 9);\n"
        "for (unsigned bl : {64u, 96u})\n"
        "    PAIR(float, 1, b * n, emu::launch(dim3(2, b + 1), dim3(bl), 0,\n"
        "         [&] { NS::first_box(b, n, m, boxes, pts, idx); }));\n";
    emulate("tiles_call", k_call, "first_box", NULL, call_drv, false);
    emulate("tiles_call_t128", k_call, "first_box", (const int[]){128, 1, 0}, call_drv, false);
    emulate("tiles_call_broken", k_call, "first_box", (const int[]){128, 2, 0}, call_drv, true);
    {   /* one offset staged from the wrong element */
        char *cand = emu_rewrite(k_call, "first_box", "uniform_tiles", NULL);
        char *b = emu_replaced(cand, "boxes[(k * 5) + 2]", "boxes[(k * 5) + 1]");
        emu_batch_add_pair(&batch, "tiles_call_offset", k_call, b, emu_helpers, call_drv, EMU_DIFFERS);
        free(b);
        free(cand);
    }
    emu_batch_run(&batch);
}

static char *apply_float(const char *text, const char *kname, const char *name);

/* mmcv's own three_nn, knn and ball_query (bench/wild/src, where extracted), rewritten and
 * emulated against themselves: knn's heap of local arrays in __device__ functions, ball
 * query's break, three_nn's double best distances, all under their CUDA_1D_KERNEL_LOOP. */
static void wild_kernels_emulated(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    if (!batch.open)   /* composes_with_narrowing's, holding its case, or a new one */
        emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *id, *kernel, *driver;
    } wild[] = {
        {"mmcv_three_nn_fwd", "three_nn_forward_cuda_kernel",
         "const int b = 2, n = 150, m = 300;\n"
         "emu::buf<float> u(b * n * 3), k(b * m * 3);\n"
         "u.fill_mod(13, 7); k.fill_mod(14, 7);\n"
         "for (unsigned bl : {64u, 96u})\n"
         "    PAIR(float, b * n * 3, b * n * 3, emu::launch(dim3((n + bl - 1) / bl, b), dim3(bl), 0,\n"
         "         [&] { NS::three_nn_forward_cuda_kernel<float>(b, n, m, u, k, dist, idx); }));\n"},
        {"mmcv_knn_fwd", "knn_forward_cuda_kernel",
         "const int b = 2, n = 300, m = 100, ns = 8;\n"
         "emu::buf<float> xyz(b * n * 3), nxyz(b * m * 3);\n"
         "xyz.fill_mod(15, 6); nxyz.fill_mod(16, 6);\n"
         "for (unsigned bl : {64u, 96u})\n"
         "    PAIR(float, b * m * ns, b * m * ns, emu::launch(dim3((m + bl - 1) / bl, b), dim3(bl), 0,\n"
         "         [&] { NS::knn_forward_cuda_kernel<float>(b, n, m, ns, xyz, nxyz, idx, dist); }));\n"},
        {"mmcv_ball_query_fwd", "ball_query_forward_cuda_kernel",
         "const int b = 2, n = 400, m = 100, ns = 6;\n"
         "emu::buf<float> nxyz(b * m * 3), xyz(b * n * 3);\n"
         "nxyz.fill_mod(17, 8); xyz.fill_mod(18, 8);\n"
         "for (unsigned bl : {64u, 96u})\n"
         "    PAIR(float, 1, b * m * ns, emu::launch(dim3((m + bl - 1) / bl, b), dim3(bl), 0,\n"
         "         [&] { NS::ball_query_forward_cuda_kernel<float>(b, n, m, 0.0f, 2.5f, ns, nxyz, xyz, idx); }));\n"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(wild); i++) {
        char *src = rwf_wild_text(wild[i].id, NULL);
        if (!src)
            continue;
        char *cand = emu_rewrite(src, wild[i].kernel, "uniform_tiles", NULL);
        /* the header's include guard, defined by the original's copy, would hide the
         * rewrite's: opened unconditionally there */
        char *guard = strstr(cand, "#ifndef ");
        assert_non_null(guard);
        char *open = emu_replaced(cand, "#ifndef ", "#if 1 // ");
        emu_batch_add_pair(&batch, wild[i].id, src, open, emu_helpers, wild[i].driver, EMU_OK);
        /* and the check is not vacuous there: the tile read before it is stored differs */
        char *broken = emu_replaced(open, "      __syncthreads();\n", "\n");
        char tag[80];
        snprintf(tag, sizeof tag, "%s_broken", wild[i].id);
        emu_batch_add_pair(&batch, tag, src, broken, emu_helpers, wild[i].driver, EMU_DIFFERS);
        free(broken);
        if (!strcmp(wild[i].id, "mmcv_three_nn_fwd")) {
            /* the search's stack "uniform_tiles + double_narrowing" (RW_STACKS since session
             * 27): the tiled text with float best distances, still bit for bit */
            char *n = apply_float(cand, wild[i].kernel, "double_narrowing");
            assert_non_null(strstr(n, "hk_tile0"));
            assert_null(strstr(n, "double best1"));
            char *nopen = emu_replaced(n, "#ifndef ", "#if 1 // ");
            emu_batch_add_pair(&batch, "mmcv_three_nn_fwd_tiles_narrowing", src, nopen, emu_helpers, wild[i].driver,
                               EMU_OK);
            free(nopen);
            free(n);
        }
        free(open);
        free(cand);
        free(src);
    }
    emu_batch_run(&batch);
}

/* name applied to text (kernel kname, template arguments float): the new text (malloc'd). */
static char *apply_float(const char *text, const char *kname, const char *name)
{
    static const char *const targs[] = {"float"};
    fixture fx;
    load_text(text, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname),
                      .template_args = targs, .n_template_args = 1};
    rw_result r;
    assert_int_equal(rw_apply_named(name, &ctx, NULL, &r, NULL), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", name, r.description);
    assert_true(r.applicable);
    char *out = strdup(r.text);
    assert_non_null(out);
    rw_result_free(&r);
    unload(&fx);
    return out;
}

/* three_nn's two rewrites touch different code (the loads; the double locals): either
 * order gives the same text, and it still computes the original's results bit for bit. */
static void composes_with_narrowing(void **state)
{
    (void)state;
    char *t = apply_float(k_macro, "nn3", "uniform_tiles");
    char *tn = apply_float(t, "nn3", "double_narrowing");
    char *n = apply_float(k_macro, "nn3", "double_narrowing");
    char *nt = apply_float(n, "nn3", "uniform_tiles");
    assert_string_equal(tn, nt);
    assert_non_null(strstr(tn, "float best1 = (float)1e40"));
    assert_non_null(strstr(tn, "hk_tile0"));
    if (emu_available()) {
        static const char drv[] =
            "const int b = 2, n = 150, m = 300;\n"
            "emu::buf<float> u(b * n * 3), k(b * m * 3);\n"
            "u.fill_mod(7, 6); k.fill_mod(8, 6);\n"
            "PAIR(float, b * n * 3, b * n * 3, emu::launch(dim3((n + 95) / 96, b), dim3(96), 0,\n"
            "     [&] { NS::nn3<float>(b, n, m, u, k, dist, idx); }));\n";
        /* queued in wild_kernels_emulated's batch, which that test, next, builds and checks:
         * one g++ run for both (emu_batch.h; the case still runs alone, named when it differs) */
        emu_batch_init(&batch, tmpdir, "narrowed_and_wild");
        emu_batch_add_pair(&batch, "tiles_narrowed", k_macro, tn, emu_helpers, drv, EMU_OK);
    }
    free(t);
    free(tn);
    free(n);
    free(nt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spellings_apply),
        cmocka_unit_test(near_misses_refused),
        cmocka_unit_test(reads_inside_a_call),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(composes_with_narrowing),
        cmocka_unit_test(wild_kernels_emulated),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
