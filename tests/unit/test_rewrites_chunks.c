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
#include "spec/spec.h"
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
#include "chunks_fixture.h" /* roi_align */

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

/* PAIR(T, what, nout, ...): emu_batch.h's EMU_PAIR */
static const char helpers[] = EMU_PAIR;

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


/* PAIR3: as PAIR, three outputs (roi_align's max and its argmax), each bit-identical. */
static const char helpers3[] =
    "#define PAIR3(what, nout, ...)                                                   \\\n"
    "    for (int s = 0; s < 3; s++) {                                                \\\n"
    "        emu::schedule = s;                                                       \\\n"
    "        emu::buf<float> o_a(nout), o_b(nout), o_c(nout);                         \\\n"
    "        emu::buf<float> c_a(nout), c_b(nout), c_c(nout);                         \\\n"
    "        o_a.set(-7.f); o_b.set(-7.f); o_c.set(-7.f);                             \\\n"
    "        c_a.set(-7.f); c_b.set(-7.f); c_c.set(-7.f);                             \\\n"
    "        { namespace NS = orig; auto &oa = o_a; auto &ob = o_b; auto &oc = o_c; __VA_ARGS__; } \\\n"
    "        { namespace NS = cand; auto &oa = c_a; auto &ob = c_b; auto &oc = c_c; __VA_ARGS__; } \\\n"
    "        bool ok = emu::expect(what, o_a, c_a);                                   \\\n"
    "        ok = emu::expect(what \" argmax_y\", o_b, c_b) && ok;                     \\\n"
    "        ok = emu::expect(what \" argmax_x\", o_c, c_c) && ok;                     \\\n"
    "        if (!ok)                                                                 \\\n"
    "            printf(\"  (schedule %d)\\n\", s);                                    \\\n"
    "    }\n";

/* N 1 and 2; C 3, 8 and 13 (C % C_K != 0: short chunks run the original body); a 7 x 9 map,
 * pooled 3 x 2, 4 rois from outside the map's corner to inside it (the borders and the
 * out-of-map samples of bilinear_interpolate), spatial scale 0.5 and 1; max and average
 * pooling, aligned or not, sampling ratio 2 or adaptive (0); grids of 1, 2 (nthreads 5
 * short) and 40 blocks of 32 */
static const char roi_drv[] =
    "for (int N : {1, 2})\n"
    "for (int C : {3, 8, 13})\n"
    "for (int mode : {0, 1})\n"
    "for (int al : {0, 1})\n"
    "for (int sr : {0, 2})\n"
    "for (int g : {1, 2, 40}) {\n"
    "    const int H = 7, W = 9, PH = 3, PW = 2, K = 4, full = K * C * PH * PW;\n"
    "    const int n = full - (g == 2 ? 5 : 0);\n"
    "    const float scale = (C % 2) ? 1.f : 0.5f;\n"
    "    emu::buf<float> in(N * C * H * W);\n"
    "    in.fill(C + mode);\n"
    "    emu::buf<float> rois(K * 5);\n"
    "    for (int k = 0; k < K; k++) {\n"
    "        rois[k * 5 + 0] = (float)(k % N);\n"
    "        rois[k * 5 + 1] = -1.75f + 2.5f * k;\n"
    "        rois[k * 5 + 2] = -0.5f + 1.25f * k;\n"
    "        rois[k * 5 + 3] = rois[k * 5 + 1] + 3.3f + 1.9f * (k % 3);\n"
    "        rois[k * 5 + 4] = rois[k * 5 + 2] + 4.1f + 2.3f * (k % 2);\n"
    "    }\n"
    "    PAIR3(\"roi_align\", full, emu::launch(dim3(g), dim3(32), 0, [&] {\n"
    "        NS::roi_align_forward_cuda_kernel<float>(n, in, rois, oa, ob, oc, PH, PW, scale, sr, mode,\n"
    "                                                 al != 0, C, H, W); }));\n"
    "}\n";

/* one shape for the mutant (its differences are many) */
static const char roi_one_drv[] =
    "{\n"
    "    const int N = 1, C = 8, H = 7, W = 9, PH = 3, PW = 2, K = 2, full = K * C * PH * PW;\n"
    "    emu::buf<float> in(N * C * H * W);\n"
    "    in.fill(3);\n"
    "    emu::buf<float> rois(K * 5);\n"
    "    for (int k = 0; k < K; k++) {\n"
    "        rois[k * 5 + 0] = 0.f;\n"
    "        rois[k * 5 + 1] = 0.5f + k;\n"
    "        rois[k * 5 + 2] = 0.25f + k;\n"
    "        rois[k * 5 + 3] = 5.5f;\n"
    "        rois[k * 5 + 4] = 4.75f;\n"
    "    }\n"
    "    PAIR3(\"roi_align\", full, emu::launch(dim3(1), dim3(32), 0, [&] {\n"
    "        NS::roi_align_forward_cuda_kernel<float>(full, in, rois, oa, ob, oc, PH, PW, 1.f, 2, 1, true, C, H, W); }));\n"
    "}\n";

/* The lockstep form's other paths: a call inlined as `v = f(...)` with a chain of
 * `if (c) return e;`, a `continue` under a c-free condition, a loop whose bound depends on
 * c (run whole per element) with a `break` inside it, a counter kept once (seen), two stores */
static const char mix[] =
    "__device__ float lerp_at(const float *p, int n, float t)\n"
    "{\n"
    "    if (t < 0) return p[0];\n"
    "    if (t >= n - 1) { return p[n - 1]; }\n"
    "    int i = (int)t;\n"
    "    float f = t - i;\n"
    "    return p[i] * (1.f - f) + p[i + 1] * f;\n"
    "}\n"
    "__global__ void mix(int total, const float *feat, const float *pos, float *out, float *cnt, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x * gridDim.x) {\n"
    "        int x = i % w;\n"
    "        int y = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float t = pos[(b * h + y) * w + x] * 3.f;\n"
    "        float acc = 0.f;\n"
    "        int seen = 0;\n"
    "        for (int k = 0; k < 4; k++) {\n"
    "            if (k == 2 && t < 1.f)\n"
    "                continue;\n"
    "            float v;\n"
    "            v = lerp_at(feat + (b * c + ch) * w, w, t + k - 1.5f);\n"
    "            acc += v;\n"
    "            for (int r = 0; r < ch % 3; r++) {\n"
    "                if (acc > 2.f)\n"
    "                    break;\n"
    "                acc = acc * 0.5f + r;\n"
    "            }\n"
    "            seen++;\n"
    "        }\n"
    "        out[i] = acc;\n"
    "        cnt[i] = (float)seen + ch;\n"
    "    }\n"
    "}\n";

static const char mix_drv[] =
    "for (int N : {1, 3})\n"
    "for (int C : {1, 5, 9})\n"
    "for (int g : {1, 3, 40}) {\n"
    "    const int H = 3, W = 7, full = N * C * H * W, n = full - (g == 3 ? 2 : 0);\n"
    "    emu::buf<float> f(N * C * W);\n"
    "    f.fill(C);\n"
    "    emu::buf<float> p(N * H * W);\n"
    "    p.fill(N + 1);\n"
    "    emu::buf<float> cnt_o(full), cnt_c(full);\n"
    "    cnt_o.set(-7.f);\n"
    "    cnt_c.set(-7.f);\n"
    "    PAIR(float, \"mix\", full, emu::launch(dim3(g), dim3(16), 0, [&] {\n"
    "        NS::mix(n, f, p, out, (&out == &o_out) ? (float *)cnt_o : (float *)cnt_c, W, H, C); }));\n"
    "    if (!emu::expect(\"mix cnt\", cnt_o, cnt_c)) printf(\"  (cnt)\\n\");\n"
    "}\n";

/* An optional second output guarded by a null test, the idiom of mmcv's roi_pool (`if (argmax
 * != NULL) argmax[index] = max_idx;`): a window maximum with its position, the window's
 * radius loaded once per chunk; run with the position buffer and with NULL */
static const char optout[] =
    "__global__ void winmax(int total, const float *in, const int *rad, float *best, int *at, int w, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x * gridDim.x) {\n"
    "        int x = i % w;\n"
    "        int ch = i / w % c;\n"
    "        int b = i / w / c;\n"
    "        int r = rad[b * w + x];\n"
    "        int lo = x - r < 0 ? 0 : x - r;\n"
    "        int hi = x + r >= w ? w - 1 : x + r;\n"
    "        const float *row = in + (b * c + ch) * w;\n"
    "        float m = -1e30f;\n"
    "        int pos = -1;\n"
    "        for (int k = lo; k <= hi; k++) {\n"
    "            if (row[k] > m) {\n"
    "                m = row[k];\n"
    "                pos = k;\n"
    "            }\n"
    "        }\n"
    "        best[i] = m;\n"
    "        if (at != NULL) at[i] = pos;\n"
    "    }\n"
    "}\n";

static const char optout_drv[] =
    "for (int N : {1, 2})\n"
    "for (int C : {3, 8, 13})\n"
    "for (int g : {1, 2, 40}) {\n"
    "    const int W = 9, full = N * C * W, n = full - (g == 2 ? 5 : 0);\n"
    "    emu::buf<float> in(N * C * W);\n"
    "    in.fill(C + N);\n"
    "    emu::buf<int> rad(N * W);\n"
    "    for (int k = 0; k < N * W; k++) rad[k] = (k * 7 + C) % 4;\n"
    "    emu::buf<int> at_o(full), at_c(full);\n"
    "    at_o.set(-7);\n"
    "    at_c.set(-7);\n"
    "    PAIR(float, \"winmax\", full, emu::launch(dim3(g), dim3(32), 0, [&] {\n"
    "        NS::winmax(n, in, rad, out, (&out == &o_out) ? (int *)at_o : (int *)at_c, W, C); }));\n"
    "    if (!emu::expect(\"winmax at\", at_o, at_c)) printf(\"  (at)\\n\");\n"
    "    PAIR(float, \"winmax without at\", full, emu::launch(dim3(g), dim3(32), 0, [&] {\n"
    "        NS::winmax(n, in, rad, out, (int *)NULL, W, C); }));\n"
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
    /* the lockstep form: roi_align at each C_K, the mutant that gives every element c0's
     * channel caught; the mix kernel's other paths */
    for (size_t i = 0; i < HK_ARRAY_LEN(cks); i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "roi_align_ck%d", cks[i][0]);
        char *cand = emu_rewrite(roi_align, "roi_align_forward_cuda_kernel", "channel_chunks", cks[i]);
        /* the lockstep form, the interpolation kept as a call per element (argmax over floats) */
        assert_non_null(strstr(cand, "hk_cc_c0"));
        assert_non_null(strstr(cand, "val[hk_k] = bilinear_interpolate ( offset_input[hk_k] ,"));
        emu_batch_add_pair(&batch, tag, roi_align, cand, helpers3, roi_drv, EMU_OK);
        if (i == 0) {
            char *broken = emu_replaced(cand, "((int)(hk_cc_c0 + hk_k))", "((int)(hk_cc_c0))");
            emu_batch_add_pair(&batch, "roi_align_one_channel", roi_align, broken, helpers3, roi_one_drv, EMU_DIFFERS);
            free(broken);
        }
        free(cand);
    }
    for (size_t i = 0; i < HK_ARRAY_LEN(cks); i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "mix_ck%d", cks[i][0]);
        char *cand = emu_rewrite(mix, "mix", "channel_chunks", cks[i]);
        emu_batch_add_pair(&batch, tag, mix, cand, helpers, mix_drv, EMU_OK);
        free(cand);
        snprintf(tag, sizeof tag, "optout_ck%d", cks[i][0]);
        cand = emu_rewrite(optout, "winmax", "channel_chunks", cks[i]);
        assert_non_null(strstr(cand, "if ( at != NULL) {"));
        emu_batch_add_pair(&batch, tag, optout, cand, helpers, optout_drv, EMU_OK);
        if (i == 0) {
            /* the guarded store at the chunk's first element only: the others' positions stay unwritten */
            char *broken = emu_replaced(cand, "at [ (hk_cc_base + (hk_cc_c0 + hk_k) * hk_cc_sj) ] = pos[hk_k];",
                                        "if (hk_k == 0) at [ (hk_cc_base + (hk_cc_c0 + hk_k) * hk_cc_sj) ] = pos[hk_k];");
            emu_batch_add_pair(&batch, "optout_first_only", optout, broken, helpers, optout_drv, EMU_DIFFERS);
            free(broken);
        }
        free(cand);
    }
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

/* Kernels the lockstep form must refuse (read_chunks refuses each too: their last
 * statement is no `P[i] = acc;`): the reason names the lockstep form's construct and line. */
static const char lock_refused[] =
    "__device__ float get(const float *p, int k, float &w)\n"
    "{\n"
    "    w = p[k];\n"
    "    return w * 2.f;\n"
    "}\n"
    "__device__ float first_pos(const float *p, int n)\n"
    "{\n"
    "    for (int k = 0; k < n; k++)\n"
    "        if (p[k] > 0.f)\n"
    "            return p[k];\n"
    "    return 0.f;\n"
    "}\n"
    "__global__ void byref(int n, const float *x, const float *m, float *y, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = m[py * w + px];\n"
    "        float v = get(x + (b * c + ch) * w, px, s);\n"
    "        y[i] = v * 2.f;\n"
    "    }\n"
    "}\n"
    "__global__ void loopret(int n, const float *x, const float *m, float *y, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = m[py * w + px];\n"
    "        float v = first_pos(x + (b * c + ch) * w, w);\n"
    "        y[i] = v * s;\n"
    "    }\n"
    "}\n"
    "__global__ void contdep(int n, const float *x, const float *m, float *y, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = m[(b * h + py) * w + px];\n"
    "        if (ch > 1)\n"
    "            continue;\n"
    "        y[i] = x[(b * c + ch) * w + px] * s;\n"
    "    }\n"
    "}\n"
    "__global__ void readout(int n, const float *x, const float *m, float *y, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = m[py * w + px] + y[px];\n"
    "        y[i] = x[(b * c + ch) * w + px] * s;\n"
    "    }\n"
    "}\n"
    "__global__ void setparam(int n, const float *x, const float *m, float *y, int w, int h, int c, int k)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = m[py * w + px];\n"
    "        k = 3;\n"
    "        y[i] = x[(b * c + ch) * w + px] * s * k;\n"
    "    }\n"
    "}\n"
    "__global__ void early(int n, const float *x, const float *m, float *y, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = m[py * w + px];\n"
    "        if (s > 3.f)\n"
    "            break;\n"
    "        y[i] = x[(b * c + ch) * w + px] * s;\n"
    "    }\n"
    "}\n"
    "__global__ void through(int n, const float *x, const float *m, float *y, float *z, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = m[py * w + px];\n"
    "        float *q = z + i;\n"
    "        q[0] = s;\n"
    "        y[i] = x[(b * c + ch) * w + px] * s;\n"
    "    }\n"
    "}\n"
    "__global__ void noshare(int n, const float *x, float *y, float *z, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = x[((b * c + ch) * h + py) * w + px];\n"
    "        y[i] = s * 2.f;\n"
    "        z[i] = s;\n"
    "    }\n"
    "}\n"    "__global__ void nullread(int n, const float *x, const float *m, float *y, int *at, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = m[py * w + px];\n"
    "        y[i] = x[(b * c + ch) * w + px] * s;\n"
    "        if (at != NULL && at[i] < 0) at[i] = ch;\n"
    "    }\n"
    "}\n"
    "__device__ float tally(const float *p, int k)\n"
    "{\n"
    "    atomicAdd((float *)p, 1.f);\n"
    "    return p[k];\n"
    "}\n"
    "__device__ float twice(const float *p, int k)\n"
    "{\n"
    "    float v = tally(p, k);\n"
    "    return v * 2.f;\n"
    "}\n"
    "__global__ void deepwrite(int n, const float *x, const float *m, float *y, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = m[py * w + px];\n"
    "        float v = s;\n"
    "        v += twice(x + (b * c + ch) * w, px);\n"
    "        y[i] = v;\n"
    "    }\n"
    "}\n"
;

static void lockstep_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *kernel, *words;
    } cases[] = {
        {"byref", "the lockstep form: call at line 21: `get` takes a parameter by reference"},
        /* twice is no reader: the function it calls writes memory (an atomic) */
        {"deepwrite", "the lockstep form: call at line 142: `twice(...)` is not a pure function"},
        /* (its m read depends on b too: the last coordinate, b, shares nothing either) */
        {"contdep", "the lockstep form: loop nest at line 46: `continue` under a condition that depends on `ch`"},
        {"readout", "the lockstep form: store at line 57: the kernel names `y` other than in `y[i] = ...;`"},
        {"setparam", "the lockstep form: write at line 69: the element writes the parameter `k`"},
        {"early", "the lockstep form: early exit at line 82: `break` out of the element's loop"},
        {"through", "the lockstep form: write at line 95: `=` writes other than a local"},
        {"noshare", "the lockstep form: load at line 106: every load of the element depends on `ch`"},
        /* a null test of an output is no use of it; a read of it beside that test still is */
        {"nullread", "the kernel names `at` other than in `at[i] = ...;`"},
    };
    fixture fx;
    load_text(lock_refused, &fx);
    int failures = 0;
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel)};
        rw_result r;
        assert_int_equal(rw_apply_named("channel_chunks", &ctx, NULL, &r, NULL), HK_OK);
        if (r.applicable || !strstr(r.description, cases[i].words)) {
            print_error("%s: wanted \"%s\", got %s\n", cases[i].kernel, cases[i].words,
                        r.applicable ? "applicable" : r.description);
            failures++;
        }
        rw_result_free(&r);
    }
    /* a function the inliner refuses (a loop with a `return` in it) that only reads memory is
     * kept as a call, per element: its argument depends on ch */
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "loopret")};
    rw_result r;
    assert_int_equal(rw_apply_named("channel_chunks", &ctx, NULL, &r, NULL), HK_OK);
    if (!r.applicable || !strstr(r.text, "v[hk_k] = first_pos ( x + ( b * c + ((int)(hk_cc_c0 + hk_k)) ) * w , w );")) {
        print_error("loopret: %s\n%.*s\n", r.applicable ? "no per-element call" : r.description, (int)r.len,
                    r.text ? r.text : "");
        failures++;
    }
    rw_result_free(&r);
    unload(&fx);
    assert_int_equal(failures, 0);
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

/* The wild suite's roi_align, in lockstep at each C_K, compiles for sm_90; its backward
 * kernel is refused (atomics). */
static void wild_roi_align(void **state)
{
    (void)state;
    fixture fx;
    if (!rwf_load_wild("mmcv_roi_align_fwd", &fx))
        return;
    static const int cks[][RW_MAX_PARAMS] = {{8}, {4}, {16}};
    for (size_t i = 0; i < HK_ARRAY_LEN(cks); i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "roi_align_forward_cuda_kernel")};
        rw_result r;
        assert_int_equal(rw_apply_named("channel_chunks", &ctx, cks[i], &r, NULL), HK_OK);
        if (!r.applicable)
            fail_msg("C_K %d: %s", cks[i][0], r.description);
        assert_non_null(strstr(r.description, "in lockstep"));
        assert_int_equal(r.grid_divisor, cks[i][0]);
        char name[64];
        snprintf(name, sizeof name, "roi_align_ck%d", cks[i][0]);
        rwf_nvcc_compiles_with(&r,
                               "template __global__ void roi_align_forward_cuda_kernel<float>(const int, const float *, "
                               "const float *, float *, float *, float *, const int, const int, const float, const int, "
                               "const int, const bool, const int, const int, const int);\n",
                               "chunks", name);
        /* the spec's block of 512 threads must still launch: at most 128 registers a thread
         * (the per-element guards the lockstep form leaves out cost 165 at C_K 4) */
        if (access(NVCC, X_OK) == 0) {
            char cmd[2400], out[8192];
            snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -O3 -cubin -std=c++17 -Xptxas -v -o %s/chunks_%s.r.cubin %s/chunks_%s.cu 2>&1",
                     NVCC, tmpdir, name, tmpdir, name);
            assert_int_equal(run_cmd(cmd, out, sizeof out), 0);
            const char *u = strstr(out, "Used ");
            assert_non_null(u);
            int regs = atoi(u + 5);
            print_message("roi_align C_K %d: %d registers\n", cks[i][0], regs);
            assert_true(regs > 0 && regs <= 128);
            assert_null(strstr(out, "bytes spill stores") && !strstr(out, " 0 bytes spill stores") ? out : NULL);
        }
        rw_result_free(&r);
    }
    rw_context cb = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "roi_align_backward_cuda_kernel")};
    rw_result rb;
    assert_int_equal(rw_apply_named("channel_chunks", &cb, NULL, &rb, NULL), HK_OK);
    assert_false(rb.applicable);
    assert_non_null(strstr(rb.description, "atomicAdd"));
    rw_result_free(&rb);
    unload(&fx);
}

/* chunk 0: the rewrite picks C_K from the element's per-element registers, the spec's block
 * and outputs and the device's threads (chunk_choice): 8 for the wild roi_align (no C_K keeps
 * half the SM's threads; 8 fits the 512-thread block's 128 registers) and carafe (8 keeps two
 * blocks of 512); 4 on a device with so many threads that larger chunks would not fill it. */
static void chosen_chunk(void **state)
{
    (void)state;
    static const struct {
        const char *id, *kernel;
        int sm, warps, want;
        const char *words;
    } cases[] = {
        {"mmcv_roi_align_fwd", "roi_align_forward_cuda_kernel", 132, 64, 8,
         "chunk 8 chosen: 10 per-element registers, about 120 a thread at C_K 8, fits the block's register limit of 512 threads; the chunks fill the GPU"},
        {"mmcv_carafe_naive_fwd", "carafe_naive_forward_cuda_kernel", 132, 64, 8,
         "chunk 8 chosen: 3 per-element registers, about 64 a thread at C_K 8, keeps half the SM's threads of 512 threads"},
        {"mmcv_roi_align_fwd", "roi_align_forward_cuda_kernel", 2000, 64, 4, "chunk 4 chosen"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        fixture fx;
        spec *sp;
        rw_result r;
        if (!chunks_on_wild(cases[i].id, cases[i].kernel, cases[i].sm, cases[i].warps, &fx, &sp, &r))
            return;
        assert_true(r.applicable);
        assert_int_equal(r.grid_divisor, cases[i].want);
        if (!strstr(r.description, cases[i].words))
            fail_msg("%s: no \"%s\" in %s", cases[i].id, cases[i].words, r.description);
        rw_result_free(&r);
        spec_free(sp);
        unload(&fx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emitted_text),
        cmocka_unit_test(refusals),
        cmocka_unit_test(lockstep_refusals),
        cmocka_unit_test(wild_kernels),
        cmocka_unit_test(wild_roi_align),
        cmocka_unit_test(chosen_chunk),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
