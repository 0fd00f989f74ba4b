/* split_item_loop (issue 13): a kernel of one block per item -- `for (i = blockIdx.x; i < N;
 * i += gridDim.x)` around loops strided over the threads -- written as others write it: a
 * template with a shared tile staged per trip of a tile loop and a result read, modified
 * and written across trips (mmcv's chamfer distance, gridDim.y in the stride), size_t
 * indices with a count summed across trips, two loops of one item with `c = c + S` and a
 * declaration before the item loop, the item loop through a macro (one for header, and
 * mmcv's CUDA_2D_KERNEL_BLOCK_LOOP shape of two). Each must apply, compile with nvcc and, in the block
 * emulator (emu_block.h), leave exactly the original's memory under the same launch, for
 * grids smaller than, equal to and larger than the item count, not multiples of it. The
 * (item, element) -> thread ownership of the split is checked on its own over many
 * launches. Kernels it must refuse name the construct and line. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_lex.h"
#include "spec/spec.h"

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
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-split");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char kernels[] =
    "#define TILE 64\n"
    "template <typename scalar_t>\n"
    "__global__ void near_tiles(int b, int n, const scalar_t *xyz, int m, const scalar_t *xyz2,\n"
    "                           scalar_t *result, int *result_i)\n"
    "{\n"
    "    __shared__ scalar_t buf[TILE];\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x) {\n"
    "        for (int k2 = 0; k2 < m; k2 += TILE) {\n"
    "            int end_k = min(m, k2 + TILE) - k2;\n"
    "            for (int j = threadIdx.x; j < end_k; j += blockDim.x)\n"
    "                buf[j] = xyz2[i * m + k2 + j];\n"
    "            __syncthreads();\n"
    "            for (int j = threadIdx.x; j < n; j += blockDim.x * gridDim.y) {\n"
    "                scalar_t x1 = xyz[i * n + j];\n"
    "                scalar_t best = 1e10;\n"
    "                int best_i = 0;\n"
    "                for (int k = 0; k < end_k; k++) {\n"
    "                    scalar_t d = (buf[k] - x1) * (buf[k] - x1);\n"
    "                    if (d < best) {\n"
    "                        best = d;\n"
    "                        best_i = k + k2;\n"
    "                    }\n"
    "                }\n"
    "                if (k2 == 0 || result[i * n + j] > best) {\n"
    "                    result[i * n + j] = best;\n"
    "                    result_i[i * n + j] = best_i;\n"
    "                }\n"
    "            }\n"
    "            __syncthreads();\n"
    "        }\n"
    "    }\n"
    "}\n"
    "__global__ void count_tiles(size_t b, size_t n, const int *a, size_t m, const int *c, int *out)\n"
    "{\n"
    "    __shared__ int tile[32];\n"
    "    for (size_t i = blockIdx.x; i < b; i += gridDim.x) {\n"
    "        for (size_t t = 0; t < m; t += 32) {\n"
    "            for (size_t j = threadIdx.x; j < 32; j += blockDim.x)\n"
    "                tile[j] = t + j < m ? c[i * m + t + j] : 0;\n"
    "            __syncthreads();\n"
    "            for (size_t j = threadIdx.x; j < n; j += blockDim.x) {\n"
    "                int s = 0;\n"
    "                for (int k = 0; k < 32; k++)\n"
    "                    s += tile[k] > a[i * n + j] ? 1 : 0;\n"
    "                out[i * n + j] += s;\n"
    "            }\n"
    "            __syncthreads();\n"
    "        }\n"
    "    }\n"
    "}\n"
    "#define ITEM_LOOP(i, n) for (int i = blockIdx.x; i < (n); i += gridDim.x)\n"
    "#define BLOCK_LOOP_2D(i, n, j, m) \\\n"
    "    for (size_t i = blockIdx.x; i < (n); i += gridDim.x) \\\n"
    "        for (size_t j = blockIdx.y; j < (m); j += gridDim.y)\n"
    "__global__ void scale_items(const float *x, float *y, int b, int n, float s)\n"
    "{\n"
    "    ITEM_LOOP(i, b) {\n"
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "            y[i * n + j] = s * x[i * n + j];\n"
    "    }\n"
    "}\n"
    "__global__ void scale_2d(const float *x, float *y, int b, int c, int n)\n"
    "{\n"
    "    BLOCK_LOOP_2D(i, b, ch, c) {\n"
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "            y[(i * c + ch) * n + j] = 2.0f * x[(i * c + ch) * n + j];\n"
    "    }\n"
    "}\n"
    "__global__ void two_rows(const float *x, float *y, float *z, int rows, int cols, float scale)\n"
    "{\n"
    "    const int half = cols / 2, pair[2] = {0, 1};\n"
    "    for (int r = blockIdx.x; r < rows; r += gridDim.x) {\n"
    "        for (int c = threadIdx.x; c < cols; c = c + blockDim.x)\n"
    "            y[r * cols + c] = scale * x[r * cols + c];\n"
    "        for (int c = threadIdx.x; c < half; c += blockDim.x) {\n"
    "            float lo = x[r * cols + 2 * c + pair[0]], hi = x[r * cols + 2 * c + pair[1]];\n"
    "            z[r * half + c] = lo > hi ? lo - hi : hi - lo;\n"
    "        }\n"
    "    }\n"
    "}\n";

static const char *const applying[] = {"near_tiles", "count_tiles", "two_rows", "scale_items", "scale_2d"};

static const char inst[] = "\ntemplate __global__ void near_tiles<float>(int, int, const float *, int, const float *, "
                           "float *, int *);\n";

/* One case per kernel: original and rewrite under the same launch. Shapes {items, n, m,
 * grid x, grid y}: fewer blocks than items (the split is the identity), as many, more and
 * not a multiple of the items (8 items on 20 blocks: 2 per item, 4 left over; 3 on 64: 21
 * per item, 1 left over), sizes of 0 and 1, tiles not full. */
static const char helpers[] =
    "static const int shapes[][5] = {{1, 37, 70, 1, 1}, {1, 37, 70, 5, 1}, {3, 100, 130, 1, 1}, {3, 100, 130, 8, 1},\n"
    "    {8, 45, 64, 3, 1}, {8, 45, 64, 20, 1}, {3, 300, 65, 64, 1}, {5, 1, 1, 7, 1}, {4, 0, 10, 9, 1},\n"
    "    {2, 50, 0, 6, 1}, {3, 100, 40, 7, 2}};\n"
    "#define N_SHAPES (int)(sizeof shapes / sizeof shapes[0])\n"
    "static void near_tiles_case(void)\n"
    "{\n"
    "    for (int z = 0; z < N_SHAPES; z++)\n"
    "        for (int bl = 0; bl < 2; bl++) {\n"
    "            emu::schedule = (z + bl) % 3;\n"
    "            const int b = shapes[z][0], n = shapes[z][1], m = shapes[z][2];\n"
    "            const dim3 g(shapes[z][3], shapes[z][4]), blk(bl ? 64 : 32);\n"
    "            emu::buf<float> xyz(b * n + 1), xyz2(b * m + 1), ro(b * n + 1), rc(b * n + 1);\n"
    "            emu::buf<int> io(b * n + 1), ic(b * n + 1);\n"
    "            xyz.fill(z + 1);\n"
    "            xyz2.fill(z + 2);\n"
    "            ro.set(-1.0f);\n"
    "            rc.set(-1.0f);\n"
    "            io.set(-1);\n"
    "            ic.set(-1);\n"
    "            emu::launch(g, blk, 0, [&] { orig::near_tiles<float>(b, n, xyz, m, xyz2, ro, io); });\n"
    "            emu::launch(g, blk, 0, [&] { cand::near_tiles<float>(b, n, xyz, m, xyz2, rc, ic); });\n"
    "            emu::expect(\"near_tiles result\", ro, rc);\n"
    "            emu::expect(\"near_tiles result_i\", io, ic);\n"
    "        }\n"
    "}\n"
    "static void count_tiles_case(void)\n"
    "{\n"
    "    for (int z = 0; z < N_SHAPES; z++)\n"
    "        for (int bl = 0; bl < 2; bl++) {\n"
    "            emu::schedule = (z + bl + 1) % 3;\n"
    "            const size_t b = shapes[z][0], n = shapes[z][1], m = shapes[z][2];\n"
    "            const dim3 g(shapes[z][3]), blk(bl ? 24 : 32);\n"
    "            emu::buf<int> a(b * n + 1), c(b * m + 1), oo(b * n + 1), oc(b * n + 1);\n"
    "            a.fill_mod(z + 1, 50);\n"
    "            c.fill_mod(z + 2, 50);\n"
    "            oo.set(3);\n"
    "            oc.set(3);\n"
    "            emu::launch(g, blk, 0, [&] { orig::count_tiles(b, n, a, m, c, oo); });\n"
    "            emu::launch(g, blk, 0, [&] { cand::count_tiles(b, n, a, m, c, oc); });\n"
    "            emu::expect(\"count_tiles out\", oo, oc);\n"
    "        }\n"
    "}\n"
    "static void two_rows_case(void)\n"
    "{\n"
    "    for (int z = 0; z < N_SHAPES; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int rows = shapes[z][0], cols = shapes[z][1], half = cols / 2;\n"
    "        const dim3 g(shapes[z][3]), blk(32);\n"
    "        emu::buf<float> x(rows * cols + 1), yo(rows * cols + 1), yc(rows * cols + 1), zo(rows * half + 1),\n"
    "            zc(rows * half + 1);\n"
    "        x.fill(z + 5);\n"
    "        yo.set(7.0f);\n"
    "        yc.set(7.0f);\n"
    "        zo.set(9.0f);\n"
    "        zc.set(9.0f);\n"
    "        emu::launch(g, blk, 0, [&] { orig::two_rows(x, yo, zo, rows, cols, 1.5f); });\n"
    "        emu::launch(g, blk, 0, [&] { cand::two_rows(x, yc, zc, rows, cols, 1.5f); });\n"
    "        emu::expect(\"two_rows y\", yo, yc);\n"
    "        emu::expect(\"two_rows z\", zo, zc);\n"
    "    }\n"
    "}\n"
    "static void scale_items_case(void)\n"
    "{\n"
    "    for (int z = 0; z < N_SHAPES; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int b = shapes[z][0], n = shapes[z][1];\n"
    "        emu::buf<float> x(b * n + 1), yo(b * n + 1), yc(b * n + 1);\n"
    "        x.fill(z + 6);\n"
    "        yo.set(7.0f);\n"
    "        yc.set(7.0f);\n"
    "        emu::launch(dim3(shapes[z][3]), dim3(32), 0, [&] { orig::scale_items(x, yo, b, n, 0.5f); });\n"
    "        emu::launch(dim3(shapes[z][3]), dim3(32), 0, [&] { cand::scale_items(x, yc, b, n, 0.5f); });\n"
    "        emu::expect(\"scale_items y\", yo, yc);\n"
    "    }\n"
    "}\n"
    "static void scale_2d_case(void)\n"
    "{\n"
    "    for (int z = 0; z < N_SHAPES; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int b = shapes[z][0], c = 3, n = shapes[z][1];\n"
    "        const dim3 g(shapes[z][3], 2);\n"
    "        emu::buf<float> x(b * c * n + 1), yo(b * c * n + 1), yc(b * c * n + 1);\n"
    "        x.fill(z + 7);\n"
    "        yo.set(7.0f);\n"
    "        yc.set(7.0f);\n"
    "        emu::launch(g, dim3(32), 0, [&] { orig::scale_2d(x, yo, b, c, n); });\n"
    "        emu::launch(g, dim3(32), 0, [&] { cand::scale_2d(x, yc, b, c, n); });\n"
    "        emu::expect(\"scale_2d y\", yo, yc);\n"
    "    }\n"
    "}\n";

/* The running test's emulated programs (emu_batch.h): queued by emulate(), built together
 * and checked, each on its own, by emu_batch_run at the test's end. */
static emu_batch batch;
#define emulate(tag, src, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* Each kernel applies and compiles with nvcc; the rewrite keeps the spec's launch. */
static void applies_and_compiles(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, applying[i])};
        rw_result r;
        assert_int_equal(rw_apply_named("split_item_loop", &ctx, NULL, &r, NULL), HK_OK);
        if (!r.applicable)
            print_message("%s: %s\n", applying[i], r.description);
        assert_true(r.applicable);
        assert_int_equal(r.grid_divisor, 0);
        assert_non_null(strstr(r.description, "blocks per item"));
        rwf_nvcc_compiles_with(&r, inst, "split", applying[i]);
        rw_result_free(&r);
    }
    unload(&fx);
}

/* The shapes: the parts computed once before the item loop, at its indentation; the item
 * loop over blockIdx.x / P by gridDim.x / P; the loops that write global memory start at
 * their part and step P times as far (gridDim.y kept in the stride, the index's own type
 * for the part's offset); the staging loop into shared memory unchanged. */
static void emitted_shape(void **state)
{
    (void)state;
    char *c = emu_rewrite(kernels, "near_tiles", "split_item_loop", NULL);
    assert_non_null(strstr(c, "\n    const unsigned int hk_sp_P = (long long)(b) > 0 && (long long)(b) < "
                              "(long long)gridDim.x\n        ? gridDim.x / (unsigned int)(b) : 1u;\n"
                              "    const unsigned int hk_sp_part = blockIdx.x % hk_sp_P;\n"
                              "    for (int i = (blockIdx.x / hk_sp_P); i < b; i += (gridDim.x / hk_sp_P)) {"));
    assert_non_null(strstr(c, "for (int j = (threadIdx.x) + (int)hk_sp_part * (blockDim.x * gridDim.y); j < n; "
                              "j += (blockDim.x * gridDim.y) * hk_sp_P) {"));
    assert_non_null(strstr(c, "for (int j = threadIdx.x; j < end_k; j += blockDim.x)\n"));
    free(c);
    c = emu_rewrite(kernels, "count_tiles", "split_item_loop", NULL);
    assert_non_null(strstr(c, "for (size_t j = (threadIdx.x) + (size_t)hk_sp_part * (blockDim.x); j < n; "
                              "j += (blockDim.x) * hk_sp_P) {"));
    assert_non_null(strstr(c, "for (size_t j = threadIdx.x; j < 32; j += blockDim.x)\n"));
    free(c);
    c = emu_rewrite(kernels, "two_rows", "split_item_loop", NULL);
    assert_non_null(strstr(c, "for (int c = (threadIdx.x) + (int)hk_sp_part * (blockDim.x); c < cols; "
                              "c = c + (blockDim.x) * hk_sp_P)"));
    assert_non_null(strstr(c, "for (int c = (threadIdx.x) + (int)hk_sp_part * (blockDim.x); c < half; "
                              "c += (blockDim.x) * hk_sp_P) {"));
    assert_non_null(strstr(c, "    const int half = cols / 2, pair[2] = {0, 1};\n    /* hk: blocks per item"));
    free(c);
    c = emu_rewrite(kernels, "scale_items", "split_item_loop", NULL);
    assert_null(strstr(c, "    ITEM_LOOP(i, b) {"));
    assert_non_null(strstr(c, "    for (int i = (blockIdx.x / hk_sp_P); i < (b); i += (gridDim.x / hk_sp_P)) {"));
    free(c);
    c = emu_rewrite(kernels, "scale_2d", "split_item_loop", NULL);
    assert_non_null(strstr(c, "for (size_t i = (blockIdx.x / hk_sp_P); i < (b); i += (gridDim.x / hk_sp_P)) "
                              "for (size_t ch = blockIdx.y; ch < (c); ch += gridDim.y) {"));
    free(c);
}

/* The ownership the rewrite relies on, over many launches: (item i, element j, block row y)
 * is handled by thread t of the original exactly as often as by thread t of the split --
 * every element once, by the same thread index, so a result that the thread reads,
 * modifies and writes across trips of a tile loop stays with it. Items more than blocks,
 * fewer, and blocks not a multiple of the items; strides with gridDim.y. */
#define OWN_MAX (16 * 70 * 2 * 8)
static void ownership_sets_equal(void **state)
{
    (void)state;
    static const unsigned items[] = {1, 3, 8, 13}, grids[] = {1, 2, 5, 8, 26, 40, 100}, blocks[] = {1, 4, 7},
                          rowsy[] = {1, 2}, counts[] = {0, 1, 29, 70};
    static unsigned char orig[OWN_MAX], split[OWN_MAX];
    size_t launches = 0, split_launches = 0;
    for (size_t a = 0; a < HK_ARRAY_LEN(items); a++)
        for (size_t g = 0; g < HK_ARRAY_LEN(grids); g++)
            for (size_t bl = 0; bl < HK_ARRAY_LEN(blocks); bl++)
                for (size_t y = 0; y < HK_ARRAY_LEN(rowsy); y++)
                    for (size_t c = 0; c < HK_ARRAY_LEN(counts); c++) {
                        const unsigned N = items[a], G = grids[g], B = blocks[bl], Y = rowsy[y], M = counts[c];
                        const unsigned S = B * Y;   /* j += blockDim.x * gridDim.y */
                        assert_true((size_t)N * M * Y * B <= OWN_MAX);
                        memset(orig, 0, sizeof orig);
                        memset(split, 0, sizeof split);
#define OWN(i, j, by, t) (((((size_t)(i) * M + (j)) * Y + (by)) * B) + (t))
                        for (unsigned bx = 0; bx < G; bx++)
                            for (unsigned by = 0; by < Y; by++)
                                for (unsigned t = 0; t < B; t++) {
                                    for (unsigned i = bx; i < N; i += G)
                                        for (unsigned j = t; j < M; j += S)
                                            orig[OWN(i, j, by, t)]++;
                                    /* the split, as emitted */
                                    const unsigned P = (long long)N > 0 && (long long)N < (long long)G ? G / N : 1u;
                                    const unsigned part = bx % P;
                                    for (unsigned i = bx / P; i < N; i += G / P)
                                        for (unsigned j = t + part * S; j < M; j += S * P)
                                            split[OWN(i, j, by, t)]++;
                                    split_launches += P > 1;
                                }
#undef OWN
                        if (memcmp(orig, split, (size_t)N * M * Y * B)) {
                            print_error("ownership differs: N %u grid %u block %u gridDim.y %u M %u\n", N, G, B,
                                        Y, M);
                            fail();
                        }
                        for (size_t q = 0; q < (size_t)N * M * Y * B; q++)
                            assert_true(orig[q] <= 1);
                        launches++;
                    }
    assert_true(launches > 500);
    assert_true(split_launches > 0);
}

static int call_split(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    return rw_apply_named("split_item_loop", &ctx, NULL, r, NULL);
}

/* Out of memory anywhere: HK_ENOMEM and nothing left allocated. */
static void survives_allocation_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "near_tiles"), call_split);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "two_rows"), call_split);
    unload(&fx);
}

static const char refused[] =
    "__device__ int item_base(void) { return blockIdx.x; }\n"                                        /* 1 */
    "__global__ void before(const float *x, float *y, int b, int n)\n"
    "{\n"
    "    float old = atomicAdd(&y[0], 1.0f);\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x)\n"                                        /* 5 */
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "            y[i * n + j] = x[i * n + j];\n"
    "}\n"
    "__global__ void carried(const float *x, float *y, int b, int n)\n"
    "{\n"                                                                                            /* 10 */
    "    for (int i = blockIdx.x; i < b; i += gridDim.x) {\n"
    "        float acc = 0.0f;\n"
    "        for (int j = threadIdx.x; j < n; j += blockDim.x) {\n"
    "            acc += x[i * n + j];\n"
    "            y[i * n + j] = acc;\n"                                                             /* 15 */
    "        }\n"
    "    }\n"
    "}\n"
    "__global__ void shared_write(const float *x, float *y, int b, int n)\n"
    "{\n"                                                                                            /* 20 */
    "    __shared__ float t[256];\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x)\n"
    "        for (int j = threadIdx.x; j < n; j += blockDim.x) {\n"
    "            t[threadIdx.x] = x[i * n + j];\n"
    "            y[i * n + j] = t[threadIdx.x];\n"                                                  /* 25 */
    "        }\n"
    "}\n"
    "__global__ void atomic_in(const float *x, float *y, int b, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x)\n"                                        /* 30 */
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "            atomicAdd(&y[i * n + j], x[i * n + j]);\n"
    "}\n"
    "__global__ void barrier_in(const float *x, float *y, int b, int n)\n"
    "{\n"                                                                                            /* 35 */
    "    for (int i = blockIdx.x; i < b; i += gridDim.x)\n"
    "        for (int j = threadIdx.x; j < n; j += blockDim.x) {\n"
    "            y[i * n + j] = x[i * n + j];\n"
    "            __syncthreads();\n"
    "        }\n"                                                                                   /* 40 */
    "}\n"
    "__global__ void store_outside(const float *x, float *y, float *flag, int b, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x) {\n"
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"                                 /* 45 */
    "            y[i * n + j] = x[i * n + j];\n"
    "        if (threadIdx.x == 0)\n"
    "            flag[i] = 1.0f;\n"
    "    }\n"
    "}\n"                                                                                            /* 50 */
    "__global__ void after(const float *x, float *y, int b, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x)\n"
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "            y[i * n + j] = x[i * n + j];\n"                                                    /* 55 */
    "    y[0] = 1.0f;\n"
    "}\n"
    "__global__ void block_elsewhere(const float *x, float *y, int b, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x)\n"                                        /* 60 */
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "            y[i * n + j] = x[i * n + j] + (float)blockIdx.x;\n"
    "}\n"
    "__global__ void grid_stride(const float *x, float *y, int n)\n"
    "{\n"                                                                                            /* 65 */
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i] = x[i];\n"
    "}\n"
    "__global__ void same_element(const float *x, float *y, int b, int n)\n"
    "{\n"                                                                                            /* 70 */
    "    for (int i = blockIdx.x; i < b; i += gridDim.x)\n"
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "            y[i] = x[i * n + j];\n"
    "}\n"
    "__global__ void neighbour(float *y, int b, int n)\n"                                          /* 75 */
    "{\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x)\n"
    "        for (int j = threadIdx.x; j < n - 1; j += blockDim.x)\n"
    "            y[i * n + j] = y[i * n + j + 1];\n"
    "}\n"                                                                                            /* 80 */
    "__global__ void returns(const float *x, float *y, int b, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x) {\n"
    "        if (x[i] < 0.0f)\n"
    "            return;\n"                                                                         /* 85 */
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "            y[i * n + j] = x[i * n + j];\n"
    "    }\n"
    "}\n"
    "__global__ void stages_only(const float *x, float *y, int b, int n)\n"                       /* 90 */
    "{\n"
    "    __shared__ float t[256];\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x)\n"
    "        for (int j = threadIdx.x; j < n && j < 256; j += blockDim.x)\n"
    "            t[j] = x[i * n + j];\n"                                                            /* 95 */
    "}\n"
    "__global__ void helper(const float *x, float *y, int b, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x)\n"
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"                                 /* 100 */
    "            y[i * n + j] = x[i * n + j] + (float)item_base();\n"
    "}\n"
    "__global__ void nested_items(const float *x, float *y, int b, int n)\n"
    "{\n"
    "    for (int w = 0; w < 2; w++)\n"                                                            /* 105 */
    "        for (int i = blockIdx.x; i < b; i += gridDim.x)\n"
    "            for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "                y[(w * b + i) * n + j] = x[i * n + j];\n"
    "}\n"
    "__global__ void local_carried(const float *x, float *y, int b, int n)\n"             /* 110 */
    "{\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x) {\n"
    "        float last[2] = {0.0f, 0.0f};\n"
    "        for (int j = threadIdx.x; j < n; j += blockDim.x) {\n"
    "            y[i * n + j] = x[i * n + j] - last[j & 1];\n"                             /* 115 */
    "            last[j & 1] = x[i * n + j];\n"
    "        }\n"
    "    }\n"
    "}\n"
    "__global__ void read_first(const float *x, float *y, int b, int n)\n"               /* 120 */
    "{\n"
    "    const float y0 = y[0];\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x)\n"
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "            y[i * n + j] = x[i * n + j] + y0;\n"                                      /* 125 */
    "}\n"
    "__global__ void carried_else(const float *x, float *y, int b, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x; i < b; i += gridDim.x) {\n"
    "        float last = 0.0f;\n"                                                          /* 130 */
    "        for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "            if (x[i * n + j] > 0.0f) y[i * n + j] = last;\n"
    "            else last = x[i * n + j];\n"
    "    }\n"
    "}\n";                                                                                   /* 135 */

static const rwf_refusal refusals[] = {
    {"before", "statement", 4, "code before the loop over the items"},
    {"carried", "statement", 14, "carries a value"},
    {"shared_write", "shared memory", 24, "every part of the item needs whole"},
    {"atomic_in", "atomic", 32, "several blocks"},
    {"barrier_in", "__syncthreads", 39, "barrier"},
    {"store_outside", "store", 48, "would repeat it"},
    {"after", "statement", 56, "code after the loop over the items"},
    {"block_elsewhere", "block coordinates", 62, "blockIdx.x is used outside"},
    {"grid_stride", "kernel body", 66, "no loop over the items by block"},
    {"same_element", "store", 73, "does not move with the loop's index"},
    {"neighbour", "access", 79, "other than the one written"},
    {"returns", "return", 85, "ends the thread's later items"},
    {"stages_only", "loop", 93, "nothing to share between blocks"},
    {"helper", "call", 101, "item_base reads blockIdx"},
    {"nested_items", "loop", 105, "the first loop is not over the items by block"},
    {"local_carried", "local array", 116, "carries values from one iteration to the next"},
    {"read_first", "access", 122, "other than the one written"},
    /* `else last = ...` reads like `T name` at a statement's start; else is no type */
    {"carried_else", "statement", 133, "last is declared outside the loop to split"},
};

/* Each refuses through the registry with its construct and line. */
static void refusals_name_construct_and_line(void **state)
{
    (void)state;
    rwf_expect_refusals(refused, "split_item_loop", refusals, HK_ARRAY_LEN(refusals));
}

/* The declaration test that split (a name written in the loop: declared there, or carried)
 * and coarsen (a return's condition) share, on the spellings each meets. */
static void declared_here_spellings(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        const char *name; /* its first occurrence is asked about */
        bool declared;
    } cases[] = {
        {"{ float acc = 0.0f; }", "acc", true},
        {"{ unsigned char c = 0; }", "c", true},
        {"{ static float s[4]; }", "s", true},
        {"{ const float **pp = q; }", "pp", true},
        {"{ int const k = 1; }", "k", true},
        {"{ scalar_t v = x[i]; }", "v", true},
        {"{ const scalar_t *row = x + i; }", "row", true},
        {"{ for (Index j = 0; j < n; j++) y[j] = 0; }", "j", true},
        {"{ float lo = a[0], hi = a[1]; }", "hi", true},
        {"{ T lo = f(a, b), hi = g(c); }", "hi", true},
        {"{ if (c) y = 1; else acc = 2; }", "acc", false},
        {"{ if (c) return; return acc; }", "acc", false},
        {"{ y = f(a * b); }", "b", false},
        {"{ y = bs * c; }", "c", false},
        {"{ y = (float)x; }", "x", false},
        {"{ y = a, b = 2; }", "b", false},
        {"{ return lo, hi; }", "hi", false},
        {"{ acc += 1; }", "acc", false},
        /* session 46: a qualified or templated type (cooperative groups' handles) */
        {"{ cg::thread_block cta = cg::this_thread_block(); }", "cta", true},
        {"{ cooperative_groups::grid_group g = cooperative_groups::this_grid(); }", "g", true},
        {"{ cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block); }", "warp", true},
        {"{ ns::Pair<float, int> p; }", "p", true},
        {"{ std::size_t count = 0; }", "count", true},
        {"{ x = ns::v; }", "v", false},
        {"{ y = a < b > c; }", "c", false},
        {"{ y = f(a) > c; }", "c", false},
        {"{ if (a > b) c = 1; }", "c", false},
        {"{ return ns::k; }", "k", false},
        /* issue 13: comparisons in a for condition read as template arguments */
        {"{ for (int i = t; i < m && x[b * m + i] > lim; i += n) c++; }", "lim", false},
        {"{ for (int i = t; i < m && x > lim; i++) c++; }", "lim", false},
        {"{ for (int i = t; i < m || (y) > lim; i++) c++; }", "lim", false},
        {"{ while (i < m + 1 > lim) c++; }", "lim", false},
        {"{ ns::Pair<const float *, int> p; }", "p", true},
        {"{ ns::Box<ns::Pair<float, int>, 4> bx; }", "bx", true},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        rw_toks ts = {0};
        assert_int_equal(rwl_lex(cases[i].body, 0, (uint32_t)strlen(cases[i].body), &ts), HK_OK);
        size_t d = 0;
        while (d < ts.n && !rwl_tok_is_ident(&ts, d, cases[i].name))
            d++;
        assert_true(d < ts.n);
        if (rwl_declared_here(&ts, d) != cases[i].declared)
            fail_msg("%s: %s %s", cases[i].body, cases[i].name, cases[i].declared ? "not read as declared" :
                                                                                      "read as declared");
        rwl_toks_free(&ts);
    }
}

/* With a bench spec: a launch of more blocks than items (mmcv's GET_BLOCKS: min(ceil(b *
 * n / 512), 4096)) applies and says how many blocks each item gets; a launch of one block
 * per item at every size set refuses: no block is idle. */
static void spec_launch_decides(void **state)
{
    (void)state;
    static const char *const grids[] = {"min(ceil_div(b * n, block_x), 4096)", "b"};
    fixture fx;
    load_text(kernels, &fx);
    for (size_t i = 0; i < HK_ARRAY_LEN(grids); i++) {
        char text[1200];
        snprintf(text, sizeof text,
                 "{\"name\": \"s\", \"source\": \"s.cu\", \"kernel\": \"scale_items\","
                 " \"sizes\": [{\"b\": 8, \"n\": 16384}, {\"b\": 3, \"n\": 3001}],"
                 " \"args\": [{\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"b * n\"},"
                 " {\"name\": \"y\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"b * n\"},"
                 " {\"name\": \"b\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"b\"},"
                 " {\"name\": \"n\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},"
                 " {\"name\": \"s\", \"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 0.5}],"
                 " \"launch\": {\"grid\": \"%s\", \"block\": 512}}",
                 grids[i]);
        spec *sp = NULL;
        spec_diags diags = {0};
        int rc = spec_parse(text, strlen(text), NULL, &sp, &diags);
        for (size_t d = 0; rc && d < diags.n; d++)
            print_message("spec: %s: %s\n", diags.items[d].path, diags.items[d].message);
        assert_int_equal(rc, HK_OK);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "scale_items"), .spec = sp};
        rw_result r;
        assert_int_equal(rw_apply_named("split_item_loop", &ctx, NULL, &r, NULL), HK_OK);
        if (i == 0) {
            assert_true(r.applicable);
            assert_non_null(strstr(r.description, "256 blocks for 8 items at size set 1, 32 blocks per item"));
        } else {
            assert_false(r.applicable);
            assert_non_null(strstr(r.description, "no block is idle"));
        }
        rw_result_free(&r);
        spec_diags_free(&diags);
        spec_free(sp);
    }
    unload(&fx);
}

/* Every applying kernel emulated against its original under the same launches. */
static void emulated_equal(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        char *cand = emu_rewrite(kernels, applying[i], "split_item_loop", NULL);
        char driver[200];
        snprintf(driver, sizeof driver, "%s_case();", applying[i]);
        emulate(applying[i], kernels, cand, driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* mmcv's chamfer distance itself, where bench/wild/src is extracted: the rewrite of the
 * real text emulated against it (a tile of 512 points, two tiles and a partial one; 3
 * items on 1, 3, 8 and 20 blocks of 512, and blocks of 96). */
static const char chamfer_driver[] =
    "static const int grids[] = {1, 3, 8, 20};\n"
    "for (int z = 0; z < 8; z++) {\n"
    "    emu::schedule = z % 3;\n"
    "    const int b = 3, n = z < 4 ? 700 : 37, m = z < 4 ? 1100 : 512;\n"
    "    const dim3 g(grids[z % 4]), blk(z < 4 ? 512 : 96);\n"
    "    emu::buf<float> xyz(b * n * 2), xyz2(b * m * 2), ro(b * n), rc(b * n);\n"
    "    emu::buf<int> io(b * n), ic(b * n);\n"
    "    xyz.fill(z + 1);\n"
    "    xyz2.fill(z + 2);\n"
    "    ro.set(-1.0f);\n"
    "    rc.set(-1.0f);\n"
    "    io.set(-1);\n"
    "    ic.set(-1);\n"
    "    emu::launch(g, blk, 0, [&] { orig::chamfer_distance_forward_cuda_kernel<float>(b, n, xyz, m, xyz2, ro, io); });\n"
    "    emu::launch(g, blk, 0, [&] { cand::chamfer_distance_forward_cuda_kernel<float>(b, n, xyz, m, xyz2, rc, ic); });\n"
    "    emu::expect(\"chamfer result\", ro, rc);\n"
    "    emu::expect(\"chamfer result_i\", io, ic);\n"
    "}\n";

static void wild_chamfer_emulated(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    /* queued in broken_differs' batch (emu_batch.h), which that test, next, builds and
     * checks: one g++ run for both, the case still run alone and named when it differs */
    emu_batch_init(&batch, tmpdir, "chamfer_broken_differs");
    char *src = rwf_wild_text("mmcv_chamfer_distance_fwd", NULL);
    if (!src)
        return;
    char *rw = emu_rewrite(src, "chamfer_distance_forward_cuda_kernel", "split_item_loop", NULL);
    /* both texts go in one program: the header's include guard would hide the second */
    char *cand = emu_replaced(rw, "#ifndef CHAMFER_DISTANCE_CUDA_KERNEL_CUH", "#ifndef HK_TEST_CANDIDATE_TEXT");
    free(rw);
    emu_program p = {.dir = tmpdir, .tag = "chamfer", .orig = src, .orig_len = strlen(src), .cand = cand,
                     .cand_len = strlen(cand), .helpers = NULL, .driver = chamfer_driver};
    emu_batch_add(&batch, &p, EMU_OK);
    free(cand);
    free(src);
}

/* The check can fail: parts that overlap (a count summed twice), a block that starts at
 * its own index instead of its item's, must each differ. */
static void broken_differs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    if (!batch.open)   /* wild_chamfer_emulated's, holding its case, or a new one */
        emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(kernels, "count_tiles", "split_item_loop", NULL);
    char *broken = emu_replaced(cand, "j += (blockDim.x) * hk_sp_P", "j += (blockDim.x)");
    emulate("broken_overlap", kernels, broken, "count_tiles_case();", EMU_DIFFERS);
    free(broken);
    broken = emu_replaced(cand, "i = (blockIdx.x / hk_sp_P)", "i = blockIdx.x");
    emulate("broken_items", kernels, broken, "count_tiles_case();", EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(applies_and_compiles),
        cmocka_unit_test(emitted_shape),
        cmocka_unit_test(ownership_sets_equal),
        cmocka_unit_test(survives_allocation_failures),
        cmocka_unit_test(refusals_name_construct_and_line),
        cmocka_unit_test(declared_here_spellings),
        cmocka_unit_test(spec_launch_decides),
        cmocka_unit_test(emulated_equal),
        cmocka_unit_test(wild_chamfer_emulated),
        cmocka_unit_test(broken_differs),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
