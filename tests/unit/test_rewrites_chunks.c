/* channel_chunks run, not only compiled: mmcv's carafe forward (bench/wild/src's kernel, its
 * mask read through the channel's group only) against its rewrite at C_K 8, 4 and 16 in the
 * block emulator (emu_block.h, one batched program: emu_batch.h) under three thread orders,
 * grids of 1, 2 and 40 blocks, groups 1, 2 and 3 (group 2 of 6 channels: chunks that straddle
 * two mask groups take the per-element fallback), C not a multiple of C_K, nthreads short of
 * N*C*H*W: every output bit-identical. The rewrite without its group check must differ.
 * Kernels it must not take are refused with the construct and its line; the wild carafe,
 * rewritten, compiles with nvcc -arch=sm_90. A plain for-loop kernel without guards (the
 * skills' sample) runs bit-identical too. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"

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
    return rwf_setup("rewrites-chunks");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* PAIR(T, what, nout, ...): as test_rewrites_period.c's: the launch on the original and on the
 * rewrite under the three thread orders, the outputs bit-identical. */
static const char helpers[] =
    "#define PAIR(T, what, nout, ...)                                                \\\n"
    "    for (int s = 0; s < 3; s++) {                                               \\\n"
    "        emu::schedule = s;                                                      \\\n"
    "        emu::buf<T> o_out(nout), c_out(nout);                                   \\\n"
    "        o_out.set(T(-7));                                                       \\\n"
    "        c_out.set(T(-7));                                                       \\\n"
    "        { namespace NS = orig; auto &out = o_out; __VA_ARGS__; }                \\\n"
    "        { namespace NS = cand; auto &out = c_out; __VA_ARGS__; }                \\\n"
    "        if (!emu::expect(what, o_out, c_out))                                   \\\n"
    "            printf(\"  (schedule %d)\\n\", s);                                   \\\n"
    "    }\n";

static emu_batch batch;

/* mmcv's carafe_naive forward, as in bench/wild/src (the loop macro, Loc2Index, the kernel) */
static const char carafe[] =
    "#define CUDA_1D_KERNEL_LOOP(i, n)                              \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); \\\n"
    "       i += blockDim.x * gridDim.x)\n"
    "__device__ inline int Loc2Index(const int n, const int c, const int h,\n"
    "                                const int w, const int channel_num,\n"
    "                                const int height, const int width) {\n"
    "  int index = w + (h + (c + n * channel_num) * height) * width;\n"
    "  return index;\n"
    "}\n"
    "\n"
    "template <typename scalar_t>\n"
    "__global__ void carafe_naive_forward_cuda_kernel(\n"
    "    const int nthreads, const scalar_t *bottom_data,\n"
    "    const scalar_t *bottom_masks, scalar_t *top_data, const int kernel_size,\n"
    "    const int group_size, const int scale_factor, const int channels,\n"
    "    const int height, const int width) {\n"
    "  CUDA_1D_KERNEL_LOOP(index, nthreads) {\n"
    "    // (n, c, ph, pw) is an element in the bottom_data\n"
    "    int pw = index % width;\n"
    "    int ph = (index / width) % height;\n"
    "    int c = (index / width / height) % channels;\n"
    "    int n = index / width / height / channels;\n"
    "\n"
    "    int mask_channels = kernel_size * kernel_size * group_size;\n"
    "    int mask_group = c / (channels / group_size);\n"
    "\n"
    "    int down_pw = pw / scale_factor;\n"
    "    int down_ph = ph / scale_factor;\n"
    "    int down_width = width / scale_factor;\n"
    "    int down_height = height / scale_factor;\n"
    "    int start_w = down_pw - (kernel_size - 1) / 2;\n"
    "    int end_w = down_pw + (kernel_size - 1) / 2 + 1;\n"
    "    int start_h = down_ph - (kernel_size - 1) / 2;\n"
    "    int end_h = down_ph + (kernel_size - 1) / 2 + 1;\n"
    "\n"
    "    scalar_t output_val = 0;\n"
    "    for (int iy = start_h; iy < end_h; iy++) {\n"
    "      for (int ix = start_w; ix < end_w; ix++) {\n"
    "        if (iy < 0 || iy > down_height - 1 || ix < 0 || ix > down_width - 1) {\n"
    "          continue;\n"
    "        }\n"
    "        int mask_iy = iy - down_ph + (kernel_size - 1) / 2;\n"
    "        int mask_ix = ix - down_pw + (kernel_size - 1) / 2;\n"
    "        int mask_c =\n"
    "            (mask_group * kernel_size + mask_iy) * kernel_size + mask_ix;\n"
    "        int feat_index =\n"
    "            Loc2Index(n, c, iy, ix, channels, down_height, down_width);\n"
    "        int mask_index =\n"
    "            Loc2Index(n, mask_c, ph, pw, mask_channels, height, width);\n"
    "        output_val += bottom_data[feat_index] * bottom_masks[mask_index];\n"
    "      }\n"
    "    }\n"
    "    top_data[index] = output_val;\n"
    "  }\n"
    "}\n";

/* N 1 and 2; C 3, 6 and 17 with every group that divides it (1, 2, 3); kernel 3 and 5; the
 * output 10 x 6 at scale 2; grids of 1, 2 (nthreads 5 short) and 40 blocks of 32 */
static const char carafe_drv[] =
    "for (int N : {1, 2})\n"
    "for (int C : {3, 6, 17})\n"
    "for (int G : {1, 2, 3})\n"
    "for (int ks : {3, 5})\n"
    "for (int g : {1, 2, 40}) {\n"
    "    if (C % G) continue;\n"
    "    const int H = 10, W = 6, S = 2, full = N * C * H * W;\n"
    "    const int n = full - (g == 2 ? 5 : 0);\n"
    "    emu::buf<float> bd(N * C * (H / S) * (W / S));\n"
    "    bd.fill(C + G);\n"
    "    emu::buf<float> bm(N * ks * ks * G * H * W);\n"
    "    bm.fill(ks + N);\n"
    "    PAIR(float, \"carafe\", full, emu::launch(dim3(g), dim3(32), 0, [&] {\n"
    "        NS::carafe_naive_forward_cuda_kernel<float>(n, bd, bm, out, ks, G, S, C, H, W); }));\n"
    "}\n";

/* one shape whose chunks straddle two mask groups (C 6, group 2: groups of 3 channels) */
static const char straddle_drv[] =
    "{\n"
    "    const int N = 1, C = 6, G = 2, ks = 3, H = 10, W = 6, S = 2, n = N * C * H * W;\n"
    "    emu::buf<float> bd(N * C * (H / S) * (W / S));\n"
    "    bd.fill(8);\n"
    "    emu::buf<float> bm(N * ks * ks * G * H * W);\n"
    "    bm.fill(4);\n"
    "    PAIR(float, \"carafe\", n, emu::launch(dim3(1), dim3(32), 0, [&] {\n"
    "        NS::carafe_naive_forward_cuda_kernel<float>(n, bd, bm, out, ks, G, S, C, H, W); }));\n"
    "}\n";

/* a plain for loop (tests/data/skills/kernels/channel_chunks.cu): no prologue, no guard; the
 * mask independent of c altogether; the chunked coordinate is c (index 2 of 4) */
static const char reassemble[] =
    "__global__ void reassemble(int nthreads, const float *feat, const float *mask, float *out, int k, int channels,\n"
    "                           int height, int width)\n"
    "{\n"
    "    for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < nthreads; index += blockDim.x * gridDim.x) {\n"
    "        int pw = index % width;\n"
    "        int ph = (index / width) % height;\n"
    "        int c = (index / width / height) % channels;\n"
    "        int n = index / width / height / channels;\n"
    "        float acc = 0;\n"
    "        for (int t = 0; t < k; t++) {\n"
    "            int m = ((n * k + t) * height + ph) * width + pw;\n"
    "            int f = ((n * channels + c) * height + ph) * width + (pw + t) % width;\n"
    "            acc += feat[f] * mask[m];\n"
    "        }\n"
    "        out[index] = acc;\n"
    "    }\n"
    "}\n";

static const char reassemble_drv[] =
    "for (int N : {1, 3})\n"
    "for (int C : {1, 5, 9})\n"
    "for (int g : {1, 3, 40}) {\n"
    "    const int H = 3, W = 7, K = 4, full = N * C * H * W, n = full - (g == 3 ? 2 : 0);\n"
    "    emu::buf<float> f(full);\n"
    "    f.fill(C);\n"
    "    emu::buf<float> m(N * K * H * W);\n"
    "    m.fill(N);\n"
    "    PAIR(float, \"reassemble\", full, emu::launch(dim3(g), dim3(16), 0, [&] {\n"
    "        NS::reassemble(n, f, m, out, K, C, H, W); }));\n"
    "}\n";

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const int cks[][RW_MAX_PARAMS] = {{8}, {4}, {16}}; /* a full parameter vector each */
    for (size_t i = 0; i < HK_ARRAY_LEN(cks); i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "carafe_ck%d", cks[i][0]);
        char *cand = emu_rewrite(carafe, "carafe_naive_forward_cuda_kernel", "channel_chunks", cks[i]);
        emu_batch_add_pair(&batch, tag, carafe, cand, helpers, carafe_drv, EMU_OK);
        if (i == 1) {
            /* without the group check, a chunk across two mask groups reads one group's mask */
            char *broken = emu_replaced(cand, "hk_cc_same = hk_cc_same && mask_group ==",
                                        "hk_cc_same = hk_cc_same || mask_group ==");
            emu_batch_add_pair(&batch, "carafe_unguarded", carafe, broken, helpers, straddle_drv, EMU_DIFFERS);
            free(broken);
        }
        free(cand);
    }
    static const int four[RW_MAX_PARAMS] = {4};
    char *rc = emu_rewrite(reassemble, "reassemble", "channel_chunks", four);
    emu_batch_add_pair(&batch, "reassemble_ck4", reassemble, rc, helpers, reassemble_drv, EMU_OK);
    free(rc);
    emu_batch_run(&batch);
}

/* The emitted text: the chunk space, the shared mask load, the accumulators, the fallbacks. */
static void emitted_text(void **state)
{
    (void)state;
    static const int ck[RW_MAX_PARAMS] = {8};
    char *t = emu_rewrite(carafe, "carafe_naive_forward_cuda_kernel", "channel_chunks", ck);
    static const char *const want[] = {
        "hk: channel_chunks: a thread takes 8 elements that differ only in `c`",
        "const long long hk_cc_cb = hk_cc_ok ? (hk_cc_f2 + 7) / 8 : 0;",
        "const auto hk_cc_l0 = bottom_masks[mask_index];",
        "hk_cc_acc[hk_k] += bottom_data[feat_index] * hk_cc_l0;",
        "top_data[hk_cc_base + (hk_cc_c0 + hk_k) * hk_cc_sj] = hk_cc_acc[hk_k];",
        "hk_cc_same = hk_cc_same && mask_group ==",
        "} else {\n    CUDA_1D_KERNEL_LOOP(index, nthreads) {",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(t, want[i]))
            fail_msg("no `%s` in\n%s", want[i], t);
    /* the mask's subscript is computed outside the k loop, the feature's inside it */
    const char *l0 = strstr(t, "const auto hk_cc_l0"), *fi = strstr(l0, "int feat_index");
    const char *upd = strstr(l0, "hk_cc_acc[hk_k] +=");
    assert_non_null(fi);
    assert_non_null(upd);
    assert_true(fi < upd);
    const char *mi = strstr(fi, "int mask_index");
    assert_true(!mi || mi > upd);
    /* the grid divided by C_K */
    fixture fx;
    load_text(carafe, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "carafe_naive_forward_cuda_kernel")};
    rw_result r;
    assert_int_equal(rw_apply_named("channel_chunks", &ctx, ck, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_int_equal(r.grid_divisor, 8);
    assert_int_equal(r.grid_axis, 0);
    rw_result_free(&r);
    unload(&fx);
    /* a second application finds its own names */
    load_text(t, &fx);
    rw_context c2 = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "carafe_naive_forward_cuda_kernel")};
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("channel_chunks"), &c2, NULL, &why), HK_OK);
    assert_non_null(strstr(why.reason, "chunked already"));
    unload(&fx);
    free(t);
}

static const char refused[] =
    "#define CUDA_1D_KERNEL_LOOP(i, n)                              \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); \\\n"
    "       i += blockDim.x * gridDim.x)\n"
    "template <typename scalar_t>\n"
    "__global__ void carafe_naive_backward_cuda_kernel(\n"
    "    const int nthreads, const scalar_t *top_diff, const scalar_t *bottom_data,\n"
    "    const scalar_t *bottom_masks, scalar_t *bottom_diff, scalar_t *mask_diff,\n"
    "    const int kernel_size, const int group_size, const int scale_factor,\n"
    "    const int channels, const int height, const int width) {\n"
    "  CUDA_1D_KERNEL_LOOP(index, nthreads) {\n"
    "    // (n, c, ph, pw) is an element in the bottom_data\n"
    "    int pw = index % width;\n"
    "    int ph = (index / width) % height;\n"
    "    int c = (index / width / height) % channels;\n"
    "    int n = index / width / height / channels;\n"
    "\n"
    "    int mask_channels = kernel_size * kernel_size * group_size;\n"
    "    int mask_group = c / (channels / group_size);\n"
    "\n"
    "    int down_pw = pw / scale_factor;\n"
    "    int down_ph = ph / scale_factor;\n"
    "    int down_width = width / scale_factor;\n"
    "    int down_height = height / scale_factor;\n"
    "    int start_w = down_pw - (kernel_size - 1) / 2;\n"
    "    int end_w = down_pw + (kernel_size - 1) / 2 + 1;\n"
    "    int start_h = down_ph - (kernel_size - 1) / 2;\n"
    "    int end_h = down_ph + (kernel_size - 1) / 2 + 1;\n"
    "\n"
    "    for (int iy = start_h; iy < end_h; iy++) {\n"
    "      for (int ix = start_w; ix < end_w; ix++) {\n"
    "        if (iy < 0 || iy > down_height - 1 || ix < 0 || ix > down_width - 1) {\n"
    "          continue;\n"
    "        }\n"
    "        int mask_iy = iy - down_ph + (kernel_size - 1) / 2;\n"
    "        int mask_ix = ix - down_pw + (kernel_size - 1) / 2;\n"
    "        int mask_c =\n"
    "            (mask_group * kernel_size + mask_iy) * kernel_size + mask_ix;\n"
    "        int feat_index =\n"
    "            Loc2Index(n, c, iy, ix, channels, down_height, down_width);\n"
    "        int mask_index =\n"
    "            Loc2Index(n, mask_c, ph, pw, mask_channels, height, width);\n"
    "        atomicAdd(bottom_diff + feat_index,\n"
    "                  bottom_masks[mask_index] * top_diff[index]);\n"
    "        atomicAdd(mask_diff + mask_index,\n"
    "                  bottom_data[feat_index] * top_diff[index]);\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n"
    "__global__ void allc(int n, const float *x, float *y, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = 0;\n"
    "        for (int k = 0; k < 3; k++) {\n"
    "            s += x[((b * c + ch) * h + py) * w + px] * x[((b * c + ch) * h + py) * w + k];\n"
    "        }\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void bound(int n, const float *x, const float *m, float *y, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = 0;\n"
    "        for (int k = 0; k < ch; k++) {\n"
    "            s += x[((b * c + ch) * h + py) * w + px] * m[k * h + py];\n"
    "        }\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void aliased(int n, const float *x, const float *m, float *y, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = 0;\n"
    "        for (int k = 0; k < 3; k++) {\n"
    "            s += x[((b * c + ch) * h + py) * w + px] * m[k * w + px];\n"
    "        }\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "void launch(float *buf, const float *x, int n) { aliased<<<1, 64>>>(n, x, buf, buf, 4, 4, 4); }\n"
    "#define FLAT (i + 0)\n"
    "__global__ void hidden(int n, const float *x, const float *m, float *y, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = 0;\n"
    "        for (int k = 0; k < 3; k++) {\n"
    "            s += x[FLAT] * m[k * w + px];\n"
    "        }\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n";

static void refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"carafe_naive_backward_cuda_kernel", "atomic", 42, "`atomicAdd` in the element"},
        {"allc", "load", 59, "nothing for the chunk to share"},
        {"bound", "loop nest", 72, "the loop's bounds depend on `ch`"},
        {"aliased", "store", 89, "passes `buf` as both y and m"},
        {"hidden", "macro", 103, "`FLAT` is a macro of the file"},
    };
    rwf_expect_refusals(refused, "channel_chunks", cases, HK_ARRAY_LEN(cases));
}

/* The wild suite's carafe, rewritten at each C_K, compiles for sm_90 (skipped when
 * bench/wild/src is not extracted); its backward kernel is refused (atomics). */
static void wild_kernels(void **state)
{
    (void)state;
    fixture fx;
    if (!rwf_load_wild("mmcv_carafe_naive_fwd", &fx))
        return;
    static const int cks[][RW_MAX_PARAMS] = {{8}, {4}, {16}}; /* a full parameter vector each */
    for (size_t i = 0; i < HK_ARRAY_LEN(cks); i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "carafe_naive_forward_cuda_kernel")};
        rw_result r;
        assert_int_equal(rw_apply_named("channel_chunks", &ctx, cks[i], &r, NULL), HK_OK);
        if (!r.applicable)
            fail_msg("C_K %d: %s", cks[i], r.description);
        char name[64];
        snprintf(name, sizeof name, "carafe_ck%d", cks[i][0]);
        if (i == 0)
            rwf_nvcc_compiles_with(&r,
                                   "template __global__ void carafe_naive_forward_cuda_kernel<float>(const int, const "
                                   "float *, const float *, float *, const int, const int, const int, const int, "
                                   "const int, const int);\n",
                                   "chunks", name);
        rw_result_free(&r);
    }
    rw_context cb = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "carafe_naive_backward_cuda_kernel")};
    rw_result rb;
    assert_int_equal(rw_apply_named("channel_chunks", &cb, NULL, &rb, NULL), HK_OK);
    assert_false(rb.applicable);
    assert_non_null(strstr(rb.description, "atomicAdd"));
    rw_result_free(&rb);
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emitted_text),
        cmocka_unit_test(refusals),
        cmocka_unit_test(wild_kernels),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
