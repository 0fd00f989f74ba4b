/* split_block_item (issue 13): a kernel whose block is its item -- `c = blockIdx.x` and loops
 * strided over the block's threads over the item's elements (mmcv's SyncBN output kernel,
 * one block per channel) -- gets P blocks per item along y, block (c, y) running part y of
 * each loop and the item's other stores in blockIdx.y == 0 only. Kernels written as others
 * write them: sync_bn's four branches (norm and output, with or without weight) walking an
 * NCHW tensor by `(i / S) * C * S + c * S + i % S` with a running-statistics tail; two loops
 * of one item where the second reads what the first wrote (size_t indices); a thread loop
 * inside a loop over the batch with an early return. Each applies, compiles with nvcc and,
 * in the block emulator (emu_block.h), leaves bit for bit the original's memory, the
 * original under the spec's grid and the rewrite under that grid times P = 1, 2, 3, 5, 8
 * along y (a P that divides nothing, and parts that find no iteration); the rewrite with
 * its tail guard removed must differ (the running mean is updated P times). The wild
 * mmcv_sync_bn_output, where extracted, applies with P from its spec (6), compiles with
 * nvcc -arch=sm_90 and emulates equal at a small size; sync_bn_mean and _var (block
 * reductions) are refused at their barrier. Kernels it must refuse name the construct and
 * line. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
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
    return rwf_setup("rewrites-blocksplit");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char kernels[] =
    "template <typename T>\n"
    "__global__ void bn_out(const T *input, const float *mean, const float *var, float *running_mean,\n"
    "                       float *running_var, const float *weight, const float *bias, float *norm, float *std,\n"
    "                       T *output, int num, int channels, int spatial, float eps, float momentum)\n"
    "{\n"
    "    int tid = threadIdx.x;\n"
    "    int c = blockIdx.x;\n"
    "    float mean_value = mean[c];\n"
    "    float std_value = sqrt(var[c] + eps);\n"
    "    if (weight != nullptr) {\n"
    "        float weight_value = weight[c];\n"
    "        float bias_value = bias[c];\n"
    "        if (norm != nullptr) {\n"
    "            for (int i = tid; i < num * spatial; i += blockDim.x) {\n"
    "                int index = (i / spatial) * channels * spatial + c * spatial + i % spatial;\n"
    "                norm[index] = (input[index] - mean_value) / std_value;\n"
    "                output[index] = norm[index] * weight_value + bias_value;\n"
    "            }\n"
    "        } else {\n"
    "            for (int i = tid; i < num * spatial; i += blockDim.x) {\n"
    "                int index = (i / spatial) * channels * spatial + c * spatial + i % spatial;\n"
    "                output[index] = (input[index] - mean_value) / std_value * weight_value + bias_value;\n"
    "            }\n"
    "        }\n"
    "    } else {\n"
    "        if (norm != nullptr) {\n"
    "            for (int i = tid; i < num * spatial; i += blockDim.x) {\n"
    "                int index = (i / spatial) * channels * spatial + c * spatial + i % spatial;\n"
    "                output[index] = norm[index] = (input[index] - mean_value) / std_value;\n"
    "            }\n"
    "        } else {\n"
    "            for (int i = tid; i < num * spatial; i += blockDim.x) {\n"
    "                int index = (i / spatial) * channels * spatial + c * spatial + i % spatial;\n"
    "                output[index] = (input[index] - mean_value) / std_value;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "    if (tid == 0) {\n"
    "        if (std != nullptr) std[c] = std_value;\n"
    "        if (running_mean != nullptr) {\n"
    "            running_mean[c] = momentum * mean_value + (1 - momentum) * running_mean[c];\n"
    "            int count = num * spatial;\n"
    "            float var_unbias = count > 1 ? var[c] * count / (count - 1) : var[c];\n"
    "            running_var[c] = momentum * var_unbias + (1 - momentum) * running_var[c];\n"
    "        }\n"
    "    }\n"
    "}\n"
    "__global__ void two_passes(const float *x, float *y, float *z, size_t rows, size_t cols)\n"
    "{\n"
    "    const size_t r = blockIdx.x;\n"
    "    for (size_t j = threadIdx.x; j < cols; j += blockDim.x)\n"
    "        y[r * cols + j] = 2.0f * x[r * cols + j] + 1.0f;\n"
    "    for (size_t j = threadIdx.x; j < cols; j += blockDim.x)\n"
    "        z[r * cols + j] = y[r * cols + j] * y[r * cols + j];\n"
    "}\n"
    "__global__ void per_batch(const float *x, const float *scale, float *y, int n, int c, int s)\n"
    "{\n"
    "    int ch = blockIdx.x;\n"
    "    if (ch >= c)\n"
    "        return;\n"
    "    const float k = scale[ch];\n"
    "    for (int b = 0; b < n; b++) {\n"
    "        const float *row = x + (b * c + ch) * s;\n"
    "        for (int j = threadIdx.x; j < s; j += blockDim.x)\n"
    "            y[(b * c + ch) * s + j] = row[j] * k;\n"
    "    }\n"
    "}\n";

static const char inst[] =
    "\ntemplate __global__ void bn_out<float>(const float *, const float *, const float *, float *, float *,\n"
    "    const float *, const float *, float *, float *, float *, int, int, int, float, float);\n";

static const char *const applying[] = {"bn_out", "two_passes", "per_batch"};

/* Original under grid (C), rewrite under (C, P), P in PARTS; shapes {N, C, S, block}. */
static const char helpers[] =
    "static const int parts[] = {1, 2, 3, 5, 8};\n"
    "static const int shapes[][4] = {{2, 3, 37, 32}, {3, 5, 64, 32}, {1, 2, 200, 64}, {4, 1, 9, 32}, {2, 4, 0, 32},\n"
    "    {3, 2, 1, 64}};\n"
    "#define N_SHAPES (int)(sizeof shapes / sizeof shapes[0])\n"
    "static void bn_case(bool with_weight, bool with_norm)\n"
    "{\n"
    "    for (int z = 0; z < N_SHAPES; z++)\n"
    "        for (int P : parts) {\n"
    "            emu::schedule = (z + P) % 3;\n"
    "            const int N = shapes[z][0], C = shapes[z][1], S = shapes[z][2];\n"
    "            const int total = N * C * S + 1;\n"
    "            emu::buf<float> in(total), mean(C), var(C), w(C), b(C);\n"
    "            in.fill(z + 1);\n"
    "            mean.fill(z + 2);\n"
    "            var.fill_mod(z + 3, 5);\n"
    "            for (int i = 0; i < C; i++) var[i] = 0.5f + var[i] * var[i];\n"
    "            w.fill(z + 4);\n"
    "            b.fill(z + 5);\n"
    "            emu::buf<float> rm_o(C), rv_o(C), no_o(total), sd_o(C), out_o(total);\n"
    "            emu::buf<float> rm_c(C), rv_c(C), no_c(total), sd_c(C), out_c(total);\n"
    "            rm_o.fill(z + 6); rm_c.fill(z + 6); rv_o.fill(z + 7); rv_c.fill(z + 7);\n"
    "            no_o.set(-3.0f); no_c.set(-3.0f); out_o.set(-4.0f); out_c.set(-4.0f); sd_o.set(0); sd_c.set(0);\n"
    "            const float *wp = with_weight ? (const float *)w : nullptr;\n"
    "            const float *bp = with_weight ? (const float *)b : nullptr;\n"
    "            float *np_o = with_norm ? (float *)no_o : nullptr, *np_c = with_norm ? (float *)no_c : nullptr;\n"
    "            const dim3 blk(shapes[z][3]);\n"
    "            emu::launch(dim3(C), blk, 0, [&] {\n"
    "                orig::bn_out<float>(in, mean, var, rm_o, rv_o, wp, bp, np_o, sd_o, out_o, N, C, S,\n"
    "                                    1e-5f, 0.1f); });\n"
    "            emu::launch(dim3(C, P), blk, 0, [&] {\n"
    "                cand::bn_out<float>(in, mean, var, rm_c, rv_c, wp, bp, np_c, sd_c, out_c, N, C, S,\n"
    "                                    1e-5f, 0.1f); });\n"
    "            emu::expect(\"bn_out output\", out_o, out_c);\n"
    "            emu::expect(\"bn_out norm\", no_o, no_c);\n"
    "            emu::expect(\"bn_out std\", sd_o, sd_c);\n"
    "            emu::expect(\"bn_out running_mean\", rm_o, rm_c);\n"
    "            emu::expect(\"bn_out running_var\", rv_o, rv_c);\n"
    "        }\n"
    "}\n"
    "static void two_passes_case(void)\n"
    "{\n"
    "    for (int z = 0; z < N_SHAPES; z++)\n"
    "        for (int P : parts) {\n"
    "            emu::schedule = (z + P) % 3;\n"
    "            const size_t rows = shapes[z][1], cols = shapes[z][2] + shapes[z][0];\n"
    "            emu::buf<float> x(rows * cols + 1), yo(rows * cols + 1), yc(rows * cols + 1), zo(rows * cols + 1),\n"
    "                zc(rows * cols + 1);\n"
    "            x.fill(z + 8);\n"
    "            yo.set(1.0f); yc.set(1.0f); zo.set(2.0f); zc.set(2.0f);\n"
    "            emu::launch(dim3(rows), dim3(shapes[z][3]), 0, [&] { orig::two_passes(x, yo, zo, rows, cols); });\n"
    "            emu::launch(dim3(rows, P), dim3(shapes[z][3]), 0, [&] { cand::two_passes(x, yc, zc, rows, cols); });\n"
    "            emu::expect(\"two_passes y\", yo, yc);\n"
    "            emu::expect(\"two_passes z\", zo, zc);\n"
    "        }\n"
    "}\n"
    "static void per_batch_case(void)\n"
    "{\n"
    "    for (int z = 0; z < N_SHAPES; z++)\n"
    "        for (int P : parts) {\n"
    "            emu::schedule = (z + P) % 3;\n"
    "            const int N = shapes[z][0], C = shapes[z][1], S = shapes[z][2];\n"
    "            emu::buf<float> x(N * C * S + 1), k(C + 1), yo(N * C * S + 1), yc(N * C * S + 1);\n"
    "            x.fill(z + 9);\n"
    "            k.fill(z + 10);\n"
    "            yo.set(5.0f); yc.set(5.0f);\n"
    "            /* one block more than the channels: the early return */\n"
    "            emu::launch(dim3(C + 1), dim3(shapes[z][3]), 0, [&] { orig::per_batch(x, k, yo, N, C, S); });\n"
    "            emu::launch(dim3(C + 1, P), dim3(shapes[z][3]), 0, [&] { cand::per_batch(x, k, yc, N, C, S); });\n"
    "            emu::expect(\"per_batch y\", yo, yc);\n"
    "        }\n"
    "}\n";

static emu_batch batch;

/* Each kernel applies and compiles with nvcc, multiplying the grid along y. */
static void applies_and_compiles(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, applying[i])};
        rw_result r;
        assert_int_equal(rw_apply_named("split_block_item", &ctx, NULL, &r, NULL), HK_OK);
        if (!r.applicable)
            print_message("%s: %s\n", applying[i], r.description);
        assert_true(r.applicable);
        /* no spec: 4 parts */
        assert_int_equal(r.grid_multiplier, 4);
        assert_int_equal(r.grid_axis, 1);
        assert_int_equal(r.grid_divisor, 0);
        assert_false(r.keeps_launch);
        rwf_nvcc_compiles_with(&r, inst, "blocksplit", applying[i]);
        rw_result_free(&r);
    }
    unload(&fx);
}

/* The shapes: each loop over the threads starts at its part and steps gridDim.y times as
 * far (the index's own type for the part's offset); the tail in blockIdx.y == 0 at its own
 * indentation; the rest as it was. A second application is refused (blockIdx.y). */
static const int alone[RW_MAX_PARAMS] = {0, 1};

static void emitted_shape(void **state)
{
    (void)state;
    char *c = emu_rewrite(kernels, "bn_out", "split_block_item", alone);
    assert_non_null(strstr(c, "            for (int i = (tid) + (int)blockIdx.y * (blockDim.x); i < num * spatial; "
                              "i += (blockDim.x) * gridDim.y) {\n"));
    const char *p = c;
    int loops = 0;
    while ((p = strstr(p, "i += (blockDim.x) * gridDim.y")))
        loops++, p++;
    assert_int_equal(loops, 4);
    assert_non_null(strstr(c, "    if (blockIdx.y == 0) { /* hk: the item's own stores, once (split_block_item) */\n"
                              "    if (tid == 0) {\n"));
    assert_non_null(strstr(c, "    float mean_value = mean[c];\n"));
    fixture fx;
    load_text(c, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "bn_out")};
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("split_block_item"), &ctx, NULL, &why), HK_OK);
    assert_non_null(strstr(why.reason, "blockIdx.y is used"));
    unload(&fx);
    free(c);
    c = emu_rewrite(kernels, "two_passes", "split_block_item", alone);
    assert_non_null(strstr(c, "for (size_t j = (threadIdx.x) + (size_t)blockIdx.y * (blockDim.x); j < cols; "
                              "j += (blockDim.x) * gridDim.y)\n"));
    assert_null(strstr(c, "if (blockIdx.y == 0)"));
    free(c);
    c = emu_rewrite(kernels, "per_batch", "split_block_item", alone);
    assert_non_null(strstr(c, "    if (ch >= c)\n        return;\n"));
    assert_non_null(strstr(c, "        for (int j = (threadIdx.x) + (int)blockIdx.y * (blockDim.x); j < s; "
                              "j += (blockDim.x) * gridDim.y)\n"));
    free(c);
    /* by default its loops' loads of 4 trips go first (load_batching on the split's text) */
    c = emu_rewrite(kernels, "bn_out", "split_block_item", NULL);
    assert_non_null(strstr(c, "for (int i = (tid) + (int)blockIdx.y * (blockDim.x); i < num * spatial;) {"));
    assert_non_null(strstr(c, "hk_lb_iv += (blockDim.x) * gridDim.y"));
    assert_non_null(strstr(c, "if (blockIdx.y == 0) {"));
    free(c);
}

/* Every j of [0, M) once, by the same thread index, over the parts of any P: the partition
 * the proof rests on, checked apart from any kernel. */
static void ownership_partition(void **state)
{
    (void)state;
    static unsigned char seen[4096];
    size_t runs = 0;
    for (unsigned B = 1; B <= 9; B += 2)
        for (unsigned P = 1; P <= 9; P++)
            for (unsigned M = 0; M < 4096 / 1; M = M * 3 + 1) {
                memset(seen, 0, sizeof seen);
                for (unsigned y = 0; y < P; y++)
                    for (unsigned t = 0; t < B; t++)
                        for (unsigned j = t + y * B; j < M; j += B * P) {
                            assert_int_equal(j % B, t);   /* the original's owner */
                            seen[j]++;
                        }
                for (unsigned j = 0; j < M; j++)
                    assert_int_equal(seen[j], 1);
                runs++;
            }
    assert_true(runs > 200);
}

static int call_split(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    return rw_apply_named("split_block_item", &ctx, NULL, r, NULL);
}

/* Out of memory anywhere: HK_ENOMEM and nothing left allocated. */
static void survives_allocation_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "bn_out"), call_split);
    unload(&fx);
}

/* Bit for bit in the emulator, at every P; the tail guard removed must show. */
static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *bn = emu_rewrite(kernels, "bn_out", "split_block_item", NULL);
    char *bn1 = emu_rewrite(kernels, "bn_out", "split_block_item", alone);
    char *two = emu_rewrite(kernels, "two_passes", "split_block_item", NULL);
    char *pb = emu_rewrite(kernels, "per_batch", "split_block_item", NULL);
    emu_batch_add_pair(&batch, "bn_wn", kernels, bn, helpers, "bn_case(true, true);", EMU_OK);
    emu_batch_add_pair(&batch, "bn_w", kernels, bn, helpers, "bn_case(true, false);", EMU_OK);
    emu_batch_add_pair(&batch, "bn_n", kernels, bn, helpers, "bn_case(false, true);", EMU_OK);
    emu_batch_add_pair(&batch, "bn", kernels, bn, helpers, "bn_case(false, false);", EMU_OK);
    emu_batch_add_pair(&batch, "bn_alone_wn", kernels, bn1, helpers, "bn_case(true, true);", EMU_OK);
    emu_batch_add_pair(&batch, "bn_alone", kernels, bn1, helpers, "bn_case(false, false);", EMU_OK);
    emu_batch_add_pair(&batch, "two_passes", kernels, two, helpers, "two_passes_case();", EMU_OK);
    emu_batch_add_pair(&batch, "per_batch", kernels, pb, helpers, "per_batch_case();", EMU_OK);
    char *unguarded = emu_replaced(bn, "if (blockIdx.y == 0) {", "if (true) {");
    emu_batch_add_pair(&batch, "bn_unguarded", kernels, unguarded, helpers, "bn_case(true, true);", EMU_DIFFERS);
    emu_batch_run(&batch);
    free(bn);
    free(bn1);
    free(two);
    free(pb);
    free(unguarded);
}

static const char refused[] =
    "__global__ void reduce(const float *x, float *out, int n)\n"                                  /* 1 */
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int c = blockIdx.x;\n"
    "    float s = 0.0f;\n"                                                                       /* 5 */
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        s += x[c * n + i];\n"
    "    buf[threadIdx.x] = s;\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) out[c] = buf[0];\n"                                                /* 10 */
    "}\n"
    "__global__ void carried(const float *x, float *y, int n)\n"
    "{\n"
    "    int c = blockIdx.x;\n"
    "    float acc = 0.0f;\n"                                                                     /* 15 */
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        acc += x[c * n + i];\n"
    "        y[c * n + i] = acc;\n"
    "    }\n"
    "}\n"                                                                                         /* 20 */
    "__global__ void same_element(const float *x, float *y, int n)\n"
    "{\n"
    "    int c = blockIdx.x;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        y[c] = x[c * n + i];\n"                                                              /* 25 */
    "}\n"
    "__global__ void neighbour(float *y, int n)\n"
    "{\n"
    "    int c = blockIdx.x;\n"
    "    for (int i = threadIdx.x; i < n - 1; i += blockDim.x)\n"                                 /* 30 */
    "        y[c * n + i] = y[c * n + i + 1];\n"
    "}\n"
    "__global__ void uses_y(const float *x, float *y, int n)\n"
    "{\n"
    "    int c = blockIdx.x + gridDim.x * blockIdx.y;\n"                                          /* 35 */
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        y[c * n + i] = x[c * n + i];\n"
    "}\n"
    "__global__ void reads_tail(const float *x, float *y, float *flag, int n)\n"
    "{\n"                                                                                         /* 40 */
    "    int c = blockIdx.x;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        y[c * n + i] = x[c * n + i] * flag[c];\n"
    "    if (threadIdx.x == 0)\n"
    "        flag[c] = 0.0f;\n"                                                                   /* 45 */
    "}\n"
    "__global__ void tail_reads(const float *x, float *y, float *last, int n)\n"
    "{\n"
    "    int c = blockIdx.x;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"                                     /* 50 */
    "        y[c * n + i] = x[c * n + i];\n"
    "    if (threadIdx.x == 0)\n"
    "        last[c] = y[c * n + n - 1];\n"
    "}\n"
    "__global__ void store_inside(const float *x, float *y, float *flag, int n)\n"               /* 55 */
    "{\n"
    "    int c = blockIdx.x;\n"
    "    if (n > 0) {\n"
    "        for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "            y[c * n + i] = x[c * n + i];\n"                                                  /* 60 */
    "        flag[c] = 1.0f;\n"
    "    }\n"
    "}\n"
    "__global__ void returns(const float *x, float *y, int n)\n"
    "{\n"                                                                                         /* 65 */
    "    int c = blockIdx.x;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        if (x[c * n + i] < 0.0f)\n"
    "            return;\n"
    "        y[c * n + i] = x[c * n + i];\n"                                                      /* 70 */
    "    }\n"
    "}\n"
    "__global__ void no_store(const float *x, float *out, int n)\n"
    "{\n"
    "    int c = blockIdx.x;\n"                                                                   /* 75 */
    "    float m = 0.0f;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        float v = x[c * n + i];\n"
    "        if (v > 0.0f) out[c * n + i] = v;\n"
    "    }\n"                                                                                     /* 80 */
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        m = fmaxf(m, x[c * n + i]);\n"
    "    out[c * n] = m;\n"
    "}\n"
    "__global__ void tail_local(const float *x, float *y, float *s, int n)\n"                   /* 85 */
    "{\n"
    "    int c = blockIdx.x;\n"
    "    float k = 1.0f;\n"
    "    if (threadIdx.x == 0) { s[c] = 2.0f; k = 2.0f; }\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"                                     /* 90 */
    "        y[c * n + i] = x[c * n + i] * k;\n"
    "}\n"
    "__global__ void early_tail(const float *x, float *y, float *s, int n)\n"
    "{\n"
    "    int c = blockIdx.x;\n"                                                                   /* 95 */
    "    if (threadIdx.x == 0) { s[c] = 1.0f; return; }\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        y[c * n + i] = x[c * n + i];\n"
    "}\n"
    "__global__ void grid_stride(const float *x, float *y, int n)\n"                             /* 100 */
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i] = x[i];\n"
    "}\n"
    "__global__ void folded(const float *x, float *y, int n, int s)\n"                          /* 105 */
    "{\n"
    "    int c = blockIdx.x;\n"
    "    for (int i = threadIdx.x; i < n * s; i += blockDim.x)\n"
    "        y[c * s + i % s] = x[c * n * s + i];\n"
    "}\n";                                                                                      /* 110 */

static const rwf_refusal refusals[] = {
    {"reduce", "__syncthreads", 9, "barrier"},
    {"carried", "statement", 17, "carries a value"},
    {"same_element", "store", 25, "does not move with the loop's index"},
    {"neighbour", "access", 31, "other than the one written"},
    {"uses_y", "block coordinates", 35, "blockIdx.y is used"},
    {"reads_tail", "access", 43, "runs in part 0 only"},
    /* y, written by the loop, read by thread 0 after it: another thread's, another part's element */
    {"tail_reads", "access", 53, "other than the one written"},
    {"store_inside", "store", 61, "inside a statement that holds one"},
    {"returns", "return", 69, "ends the thread's later iterations"},
    {"no_store", "loop", 81, "writes no global memory"},
    {"tail_local", "statement", 89, "k is declared outside the per-item statement"},
    {"early_tail", "return", 96, "runs in part 0 only"},
    {"grid_stride", "grid-stride loop", 102, "spread over the blocks already"},
    /* i % s alone: the loop's elements fold onto s of them */
    {"folded", "store", 109, "does not move with the loop's index"},
};

/* Each refuses through the registry with its construct and line. */
static void refuses_with_construct_and_line(void **state)
{
    (void)state;
    rwf_expect_refusals(refused, "split_block_item", refusals, HK_ARRAY_LEN(refusals));
}

/* The wild mmcv_sync_bn_output under its spec: P from the launch (256 blocks of 512 where
 * 528 fit: 6 parts, 1536 blocks, 97% of the last wave), nvcc -arch=sm_90, and the emulator
 * at a small size; the mean and variance kernels (block reductions) refused at the barrier;
 * a spec whose grid fills the GPU refused. */
static void wild_sync_bn(void **state)
{
    (void)state;
    char path[700];
    snprintf(path, sizeof path, HK_TEST_DATA "/../../bench/wild/specs/mmcv_sync_bn_output.bench.json");
    fixture fx;
    if (!rwf_load_wild("mmcv_sync_bn_output", &fx))
        return;
    spec *sp = NULL;
    spec_diags d;
    memset(&d, 0, sizeof d);
    assert_int_equal(spec_load(path, &sp, &d), HK_OK);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m,
                      .kernel = kernel(&fx, "sync_bn_forward_output_cuda_kernel"), .spec = sp,
                      .sm_count = 132, .warps_per_sm = 64};
    rw_result r;
    assert_int_equal(rw_apply_named("split_block_item", &ctx, NULL, &r, NULL), HK_OK);
    if (!r.applicable)
        fail_msg("mmcv_sync_bn_output: %s", r.description);
    assert_int_equal(r.grid_multiplier, 6);
    assert_int_equal(r.grid_axis, 1);
    assert_non_null(strstr(r.description, "256 blocks where 528 fit, 6 parts per item"));
    rwf_nvcc_compiles_with(&r, "\ntemplate __global__ void sync_bn_forward_output_cuda_kernel<float>(const float *, "
                               "const float *, const float *, float *, float *, const float *, const float *, float *, "
                               "float *, float *, int, int, int, float, float, int);\n",
                           "blocksplit", "wild_sync_bn");
    /* waves 4: at least 4 x 528 / 256 = 9 parts, then the fullest last wave up to 17 */
    int p4[RW_MAX_PARAMS] = {4};
    rw_result r4;
    assert_int_equal(rw_apply_named("split_block_item", &ctx, p4, &r4, NULL), HK_OK);
    assert_true(r4.applicable);
    assert_int_equal(r4.grid_multiplier, 10);
    rw_result_free(&r4);
    /* a device whose 9 SMs hold 36 blocks of 512: both size sets (256 and 37 channels) fill it */
    rw_context full = ctx;
    full.sm_count = 9;
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("split_block_item"), &full, NULL, &why), HK_OK);
    assert_non_null(strstr(why.reason, "fills the GPU"));
    if (emu_available()) {
        emu_batch_init(&batch, tmpdir, __func__);
        static const char drv[] =
            "for (int P : {1, 3, 6}) {\n"
            "    const int N = 2, C = 3, S = 45;\n"
            "    emu::buf<float> in(N * C * S), mean(C), var(C), w(C), b(C), rm_o(C), rv_o(C), no_o(N * C * S),\n"
            "        sd_o(C), out_o(N * C * S), rm_c(C), rv_c(C), no_c(N * C * S), sd_c(C), out_c(N * C * S);\n"
            "    in.fill(1); mean.fill(2); var.fill_mod(3, 4); w.fill(4); b.fill(5);\n"
            "    for (int i = 0; i < C; i++) var[i] = 1.0f + var[i];\n"
            "    rm_o.fill(6); rm_c.fill(6); rv_o.fill(7); rv_c.fill(7);\n"
            "    emu::launch(dim3(C), dim3(64), 0, [&] {\n"
            "        orig::sync_bn_forward_output_cuda_kernel<float>(in, mean, var,\n"
            "        rm_o, rv_o, w, b, no_o, sd_o, out_o, N, C, S, 1e-5f, 0.1f, 1); });\n"
            "    emu::launch(dim3(C, P), dim3(64), 0, [&] {\n"
            "        cand::sync_bn_forward_output_cuda_kernel<float>(in, mean, var,\n"
            "        rm_c, rv_c, w, b, no_c, sd_c, out_c, N, C, S, 1e-5f, 0.1f, 1); });\n"
            "    emu::expect(\"output\", out_o, out_c);\n"
            "    emu::expect(\"norm\", no_o, no_c);\n"
            "    emu::expect(\"std\", sd_o, sd_c);\n"
            "    emu::expect(\"running_mean\", rm_o, rm_c);\n"
            "    emu::expect(\"running_var\", rv_o, rv_c);\n"
            "}\n";
        /* the header's include guard would leave the second copy (cand's) empty */
        char *o = emu_replaced(fx.text, "#ifndef SYNCBN_CUDA_KERNEL_CUH", "#if 1");
        char *c = emu_replaced(r.text, "#ifndef SYNCBN_CUDA_KERNEL_CUH", "#if 1");
        emu_batch_add_pair(&batch, "wild_sync_bn", o, c, NULL, drv, EMU_OK);
        emu_batch_run(&batch);
        free(o);
        free(c);
    }
    rw_result_free(&r);
    spec_free(sp);
    spec_diags_free(&d);
    unload(&fx);
    static const char *const reductions[][2] = {{"mmcv_sync_bn_mean", "sync_bn_forward_mean_cuda_kernel"},
                                                 {"mmcv_sync_bn_var", "sync_bn_forward_var_cuda_kernel"}};
    for (size_t i = 0; i < HK_ARRAY_LEN(reductions); i++) {
        if (!rwf_load_wild(reductions[i][0], &fx))
            continue;
        rw_context c2 = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, reductions[i][1])};
        assert_int_equal(rw_applies(rw_find("split_block_item"), &c2, NULL, &why), HK_OK);
        if (!strstr(why.reason, "barrier"))
            fail_msg("%s: %s", reductions[i][0], why.reason);
        unload(&fx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(applies_and_compiles),
        cmocka_unit_test(emitted_shape),
        cmocka_unit_test(ownership_partition),
        cmocka_unit_test(survives_allocation_failures),
        cmocka_unit_test(refuses_with_construct_and_line),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(wild_sync_bn),
        cmocka_unit_test(rwf_nvcc_queued),   /* last: the compile checks queued above */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
