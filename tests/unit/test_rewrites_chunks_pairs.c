/* channel_chunks' lockstep form on the shapes of mmcv's bbox_overlaps and deform_im2col
 * (issue 13, session 27), run in the block emulator (emu_block.h, one batched program:
 * emu_batch.h) against the originals under three thread orders, every output bit-identical:
 *   - a pair loop `r = i / nb; c = i % nb;` (the coordinates declared outermost first, two of
 *     them) in a branch of a uniform `if (aligned) {..} else {..}`, chunked along its last
 *     coordinate r (the first box: the second box's load and area run once per chunk), its
 *     boxes read by a call whose results are reference parameters (`box_at<T>(p, base, x1,
 *     ..)`, with an explicit specialisation for float that loads a float4: kept as a call);
 *   - an im2col whose element walks a store pointer (`T *dst = col + ..; *dst = v; dst +=
 *     stride;`) and reads its offsets through a group index `g = ch / cpg` (checked equal
 *     across the chunk, else the original body per element), chunked along its last
 *     coordinate (the channel); a sampling function inlined.
 * Mutants (c0's box for every element, the group check dropped) must differ; the wild
 * kernels themselves are emulated and compiled for sm_90 where bench/wild/src is extracted;
 * what the form must not take is refused with the construct and its line. */
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
    return rwf_setup("rewrites-chunks-pairs");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* PAIR(T, what, nout, ...): emu_batch.h's EMU_PAIR */
static const char helpers[] = EMU_PAIR;

static emu_batch batch;

/* A pair loop in bbox_overlaps' shape (written for this test, not mmcv's text). */
static const char pairs[] =
    "template <typename T>\n"
    "__device__ __forceinline__ void box_at(const T *boxes, const int base, T &x1, T &y1, T &x2, T &y2)\n"
    "{\n"
    "    x1 = boxes[base];\n"
    "    y1 = boxes[base + 1];\n"
    "    x2 = boxes[base + 2];\n"
    "    y2 = boxes[base + 3];\n"
    "}\n"
    "template <>\n"
    "__device__ __forceinline__ void box_at<float>(const float *boxes, const int base, float &x1, float &y1,\n"
    "                                              float &x2, float &y2)\n"
    "{\n"
    "    const float4 q = reinterpret_cast<const float4 *>(boxes + base)[0];\n"
    "    x1 = q.x;\n"
    "    y1 = q.y;\n"
    "    x2 = q.z;\n"
    "    y2 = q.w;\n"
    "}\n"
    "template <typename T>\n"
    "__global__ void iou_pairs(const T *a, const T *b, T *out, const int na, const int nb, const int mode,\n"
    "                          const bool aligned, const int offset)\n"
    "{\n"
    "    if (aligned) {\n"
    "        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < na; i += blockDim.x * gridDim.x) {\n"
    "            T ax1, ay1, ax2, ay2, bx1, by1, bx2, by2;\n"
    "            box_at<T>(a, i * 4, ax1, ay1, ax2, ay2);\n"
    "            box_at<T>(b, i * 4, bx1, by1, bx2, by2);\n"
    "            const T w = fmaxf(fminf(ax2, bx2) - fmaxf(ax1, bx1) + offset, 0.f);\n"
    "            const T h = fmaxf(fminf(ay2, by2) - fmaxf(ay1, by1) + offset, 0.f);\n"
    "            out[i] = w * h;\n"
    "        }\n"
    "    } else {\n"
    "        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < na * nb; i += blockDim.x * gridDim.x) {\n"
    "            const int r = i / nb;\n"
    "            const int c = i % nb;\n"
    "            T ax1, ay1, ax2, ay2;\n"
    "            box_at<T>(a, r << 2, ax1, ay1, ax2, ay2);\n"
    "            const T area_a = (ax2 - ax1 + offset) * (ay2 - ay1 + offset);\n"
    "            T bx1, by1, bx2, by2;\n"
    "            box_at<T>(b, c << 2, bx1, by1, bx2, by2);\n"
    "            const T area_b = (bx2 - bx1 + offset) * (by2 - by1 + offset);\n"
    "            const T w = fmaxf(fminf(ax2, bx2) - fmaxf(ax1, bx1) + offset, 0.f);\n"
    "            const T h = fmaxf(fminf(ay2, by2) - fmaxf(ay1, by1) + offset, 0.f);\n"
    "            const T inter = w * h;\n"
    "            const T base = fmaxf(mode == 0 ? area_a + area_b - inter : area_a, T(offset));\n"
    "            out[i] = inter / base;\n"
    "        }\n"
    "    }\n"
    "}\n";

/* na 37 boxes against nb 23 (or 37 aligned), overlapping, nested, disjoint and equal boxes of
 * positive size; both modes, offsets 0 and 1; grids of 1, 3 and 40 blocks of 32 (na * nb is
 * not a multiple of any chunk: the last chunks run the original body) */
static const char pairs_drv[] =
    "for (int mode : {0, 1})\n"
    "for (int al : {0, 1})\n"
    "for (int off : {0, 1})\n"
    "for (int g : {1, 3, 40}) {\n"
    "    const int na = 37, nb = al ? 37 : 23, nout = al ? na : na * nb;\n"
    "    emu::buf<float> A(na * 4), B(nb * 4);\n"
    "    for (int k = 0; k < na; k++) {\n"
    "        float x = (float)((k * 7) % 13) * 1.5f, y = (float)((k * 5) % 11) * 0.75f;\n"
    "        A[4 * k] = x; A[4 * k + 1] = y;\n"
    "        A[4 * k + 2] = x + (float)(k % 5) + 0.25f; A[4 * k + 3] = y + (float)(k % 3) * 2.5f + 0.5f;\n"
    "    }\n"
    "    for (int k = 0; k < nb; k++) {\n"
    "        float x = (float)((k * 3) % 17) * 1.25f, y = (float)((k * 11) % 7) * 1.1f;\n"
    "        B[4 * k] = x; B[4 * k + 1] = y;\n"
    "        B[4 * k + 2] = x + (float)(k % 4) * 1.7f + 0.1f; B[4 * k + 3] = y + (float)(k % 6) + 0.3f;\n"
    "    }\n"
    "    PAIR(float, \"iou\", nout, emu::launch(dim3(g), dim3(32), 0, [&] {\n"
    "        NS::iou_pairs<float>(A, B, out, na, nb, mode, al != 0, off); }));\n"
    "}\n";

/* An im2col in deform_im2col's shape (written for this test, not mmcv's text). */
static const char cols[] =
    "template <typename T>\n"
    "__device__ T sample_at(const T *img, const int w, const int h, T y, T x)\n"
    "{\n"
    "    if (y <= -1 || h <= y || x <= -1 || w <= x) {\n"
    "        return 0;\n"
    "    }\n"
    "    int y0 = floorf(y);\n"
    "    int x0 = floorf(x);\n"
    "    T ly = y - y0;\n"
    "    T lx = x - x0;\n"
    "    T v00 = 0;\n"
    "    if (y0 >= 0 && x0 >= 0) v00 = img[y0 * w + x0];\n"
    "    T v01 = 0;\n"
    "    if (y0 >= 0 && x0 + 1 <= w - 1) v01 = img[y0 * w + x0 + 1];\n"
    "    T v10 = 0;\n"
    "    if (y0 + 1 <= h - 1 && x0 >= 0) v10 = img[(y0 + 1) * w + x0];\n"
    "    T v11 = 0;\n"
    "    if (y0 + 1 <= h - 1 && x0 + 1 <= w - 1) v11 = img[(y0 + 1) * w + x0 + 1];\n"
    "    return (1 - ly) * (1 - lx) * v00 + (1 - ly) * lx * v01 + ly * (1 - lx) * v10 + ly * lx * v11;\n"
    "}\n"
    "template <typename T>\n"
    "__global__ void gather_cols(const int n, const T *im, const T *off, const int h, const int w, const int kh,\n"
    "                            const int kw, const int cpg, const int batch, const int channels, const int groups,\n"
    "                            T *col)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        const int x = i % w;\n"
    "        const int y = (i / w) % h;\n"
    "        const int bi = (i / w / h) % batch;\n"
    "        const int ch = (i / w / h) / batch;\n"
    "        const int g = ch / cpg;\n"
    "        T *dst = col + ((ch * kh * kw * batch + bi) * h + y) * w + x;\n"
    "        const T *src = im + (bi * channels + ch) * h * w;\n"
    "        const T *o = off + (bi * groups + g) * 2 * kh * kw * h * w;\n"
    "        for (int a = 0; a < kh; ++a) {\n"
    "            for (int t = 0; t < kw; ++t) {\n"
    "                const T dy = o[((2 * (a * kw + t)) * h + y) * w + x];\n"
    "                const T dx = o[((2 * (a * kw + t) + 1) * h + y) * w + x];\n"
    "                T v = static_cast<T>(0);\n"
    "                const T py = y - 1 + a + dy;\n"
    "                const T px = x - 1 + t + dx;\n"
    "                if (py > -1 && px > -1 && py < h && px < w)\n"
    "                    v = sample_at(src, w, h, py, px);\n"
    "                *dst = v;\n"
    "                dst += batch * h * w;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "}\n";

/* batches 1 and 2; 3, 8 and 12 channels in 1, 2 or 3 groups (4 channels a group: chunks of 8
 * straddle two groups and take the per-element fallback); offsets in [-2, 2] (samples off the
 * map, on its border, between pixels); a 5 x 6 map, 3 x 3 taps; grids of 1, 3 and 40 blocks of
 * 32, n one short of the elements on the grid of 3 */
static const char cols_drv[] =
    "for (int B : {1, 2})\n"
    "for (int C : {3, 8, 12})\n"
    "for (int G : {1, 2, 3})\n"
    "for (int g : {1, 3, 40}) {\n"
    "    if (C % G) continue;\n"
    "    const int H = 5, W = 6, K = 3, full = C * B * H * W, n = full - (g == 3 ? 1 : 0);\n"
    "    emu::buf<float> im(B * C * H * W);\n"
    "    im.fill(C + G);\n"
    "    emu::buf<float> of(B * G * 2 * K * K * H * W);\n"
    "    for (size_t k = 0; k < of.size(); k++) of[k] = (float)((k * 37) % 41) / 10.f - 2.f;\n"
    "    PAIR(float, \"cols\", C * K * K * B * H * W, emu::launch(dim3(g), dim3(32), 0, [&] {\n"
    "        NS::gather_cols<float>(n, im, of, H, W, K, K, C / G, B, C, G, out); }));\n"
    "}\n";

/* the wild kernels (bench/wild/src), smaller than their specs */
static const char wild_bbox_drv[] =
    "for (int mode : {0, 1})\n"
    "for (int al : {0, 1})\n"
    "for (int g : {1, 40}) {\n"
    "    const int na = 29, nb = al ? 29 : 19, nout = al ? na : na * nb;\n"
    "    emu::buf<float> A(na * 4), B(nb * 4);\n"
    "    for (int k = 0; k < na; k++) {\n"
    "        float x = (float)((k * 7) % 13) * 1.5f, y = (float)((k * 5) % 11) * 0.75f;\n"
    "        A[4 * k] = x; A[4 * k + 1] = y; A[4 * k + 2] = x + (float)(k % 5); A[4 * k + 3] = y + (float)(k % 3) * 2.5f;\n"
    "    }\n"
    "    for (int k = 0; k < nb; k++) {\n"
    "        float x = (float)((k * 3) % 17) * 1.25f, y = (float)((k * 11) % 7) * 1.1f;\n"
    "        B[4 * k] = x; B[4 * k + 1] = y; B[4 * k + 2] = x + (float)(k % 4) * 1.7f; B[4 * k + 3] = y + (float)(k % 6);\n"
    "    }\n"
    "    PAIR(float, \"bbox_overlaps\", nout, emu::launch(dim3(g), dim3(64), 0, [&] {\n"
    "        NS::bbox_overlaps_cuda_kernel<float>(A, B, out, na, nb, mode, al != 0, 1); }));\n"
    "}\n";

static const char wild_deform_drv[] =
    "for (int B : {1, 2})\n"
    "for (int G : {1, 2})\n"
    "for (int g : {1, 40}) {\n"
    "    const int C = 12, H = 7, W = 5, full = C * B * H * W;\n"
    "    emu::buf<float> im(B * C * H * W);\n"
    "    im.fill(B + G);\n"
    "    emu::buf<float> of(B * G * 18 * H * W);\n"
    "    for (size_t k = 0; k < of.size(); k++) of[k] = (float)((k * 29) % 43) / 10.f - 2.1f;\n"
    "    PAIR(float, \"deform_im2col\", C * 9 * B * H * W, emu::launch(dim3(g), dim3(64), 0, [&] {\n"
    "        NS::deformable_im2col_gpu_kernel<float>(full, im, of, H, W, 3, 3, 1, 1, 1, 1, 1, 1, C / G, B, C, G, H,\n"
    "                                                W, out); }));\n"
    "}\n";

/* mmcv's roi_align_rotated: its sampling function is called with explicit template arguments
 * (`bilinear_interpolate<scalar_t>(...)`, inlined with T = scalar_t); 12 channels (a chunk of 8
 * runs short: the original body), 3 boxes rotated by 0, 0.4 and 2.5 radians, some off the map;
 * sampling 2 and adaptive, aligned or not, both senses */
static const char wild_rotated_drv[] =
    "for (int sr : {2, 0})\n"
    "for (int al : {0, 1})\n"
    "for (int cw : {0, 1})\n"
    "for (int g : {1, 40}) {\n"
    "    const int C = 12, H = 7, W = 6, K = 3, PH = 2, PW = 3, n = K * C * PH * PW;\n"
    "    emu::buf<float> im(C * H * W);\n"
    "    im.fill(sr + al + cw);\n"
    "    emu::buf<float> rois(K * 6);\n"
    "    const float r[3][6] = {{0, 0.4f, 0.5f, 0.5f, 0.4f, 0.f}, {0, 0.6f, 0.3f, 0.7f, 0.35f, 0.4f},\n"
    "                           {0, 0.9f, 1.1f, 0.3f, 0.8f, 2.5f}};\n"
    "    for (int k = 0; k < K * 6; k++) rois[k] = r[k / 6][k % 6];\n"
    "    PAIR(float, \"roi_align_rotated\", n, emu::launch(dim3(g), dim3(64), 0, [&] {\n"
    "        NS::roi_align_rotated_forward_cuda_kernel<float>(n, im, rois, (float)W, sr, al != 0, cw != 0, C, H, W,\n"
    "                                                         PH, PW, out); }));\n"
    "}\n";

/* mmcv's prroi_pool: `sum_out += PrRoIPoolingMatCalculation(...)`, a reader calling a reader
 * (PrRoIPoolingGetData), kept as a call per channel; its empty bins store 0 through the store
 * pointer and `continue`. 12 channels, 4 boxes (one with x2 < x1: every bin empty; one past the
 * map's edge), grids of 1 and 40 blocks */
static const char wild_prroi_drv[] =
    "for (int g : {1, 40}) {\n"
    "    const int C = 12, H = 7, W = 6, K = 4, PH = 2, PW = 3, n = K * C * PH * PW;\n"
    "    emu::buf<float> im(C * H * W);\n"
    "    im.fill(g);\n"
    "    emu::buf<float> rois(K * 5);\n"
    "    const float r[4][5] = {{0, 0.1f, 0.2f, 0.8f, 0.7f}, {0, 0.6f, 0.3f, 0.2f, 0.9f},\n"
    "                           {0, 0.5f, 0.55f, 1.3f, 1.2f}, {0, 0.05f, 0.9f, 0.35f, 0.95f}};\n"
    "    for (int k = 0; k < K * 5; k++) rois[k] = r[k / 5][k % 5];\n"
    "    PAIR(float, \"prroi_pool\", n, emu::launch(dim3(g), dim3(64), 0, [&] {\n"
    "        NS::prroi_pool_forward_cuda_kernel<float>(n, im, rois, out, PH, PW, (float)W, C, H, W); }));\n"
    "}\n";

/* one configuration of the rotated kernel, for its mutant (whose every differing launch
 * prints: the whole driver's log would overflow the batch's) */
static const char wild_rotated_one_drv[] =
    "{\n"
    "    const int C = 12, H = 7, W = 6, K = 1, PH = 2, PW = 3, n = K * C * PH * PW;\n"
    "    emu::buf<float> im(C * H * W);\n"
    "    im.fill(3);\n"
    "    emu::buf<float> rois(K * 6);\n"
    "    const float r[6] = {0, 0.6f, 0.3f, 0.7f, 0.35f, 0.4f};\n"
    "    for (int k = 0; k < K * 6; k++) rois[k] = r[k];\n"
    "    PAIR(float, \"roi_align_rotated\", n, emu::launch(dim3(1), dim3(64), 0, [&] {\n"
    "        NS::roi_align_rotated_forward_cuda_kernel<float>(n, im, rois, (float)W, 2, true, false, C, H, W,\n"
    "                                                         PH, PW, out); }));\n"
    "}\n";

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const int cks[][RW_MAX_PARAMS] = {{8}, {4}, {16}}; /* a full parameter vector each */
    for (size_t i = 0; i < HK_ARRAY_LEN(cks); i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "pairs_ck%d", cks[i][0]);
        char *cand = emu_rewrite(pairs, "iou_pairs", "channel_chunks", cks[i]);
        assert_non_null(strstr(cand, "hk_cc_same") ? NULL : cand); /* no group index here */
        emu_batch_add_pair(&batch, tag, pairs, cand, helpers, pairs_drv, EMU_OK);
        if (i == 0) {
            /* every element given the chunk's first box */
            char *broken = emu_replaced(cand, "((int)(hk_cc_c0 + hk_k))", "((int)(hk_cc_c0))");
            emu_batch_add_pair(&batch, "pairs_first_box", pairs, broken, helpers, pairs_drv, EMU_DIFFERS);
            free(broken);
        }
        free(cand);
        snprintf(tag, sizeof tag, "cols_ck%d", cks[i][0]);
        cand = emu_rewrite(cols, "gather_cols", "channel_chunks", cks[i]);
        assert_non_null(strstr(cand, "hk_cc_same = hk_cc_same && ("));
        emu_batch_add_pair(&batch, tag, cols, cand, helpers, cols_drv, EMU_OK);
        if (i == 0) {
            /* without the group check a chunk across two groups reads one group's offsets */
            char *broken = emu_replaced(cand, "hk_cc_same = hk_cc_same && (", "hk_cc_same = true || (");
            emu_batch_add_pair(&batch, "cols_unguarded", cols, broken, helpers, cols_drv, EMU_DIFFERS);
            free(broken);
        }
        free(cand);
    }
    static const struct {
        const char *id, *kernel, *drv;
    } wild[] = {
        {"mmcv_bbox_overlaps", "bbox_overlaps_cuda_kernel", wild_bbox_drv},
        {"mmcv_deform_im2col", "deformable_im2col_gpu_kernel", wild_deform_drv},
        {"mmcv_roi_align_rotated_fwd", "roi_align_rotated_forward_cuda_kernel", wild_rotated_drv},
        {"mmcv_prroi_pool_fwd", "prroi_pool_forward_cuda_kernel", wild_prroi_drv},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(wild); i++) {
        size_t n = 0;
        char *src = rwf_wild_text(wild[i].id, &n);
        if (!src)
            continue;
        char *cand = emu_rewrite(src, wild[i].kernel, "channel_chunks", cks[0]);
        /* the header's include guards, defined by the original's copy, would hide the
         * rewrite's (the inlined common helper's too, which holds roi_align_rotated's
         * sampling function): opened unconditionally there */
        assert_non_null(strstr(cand, "#ifndef "));
        char *open = emu_replaced_all(cand, "#ifndef ", "#if 1 // ");
        emu_batch_add_pair(&batch, wild[i].id, src, open, helpers, wild[i].drv, EMU_OK);
        /* every channel of a chunk reading the first one's plane must differ */
        static const char *const first_plane[][4] = {
            {"mmcv_roi_align_rotated_fwd", "hk_in1_v1[hk_k] = hk_in1_input[hk_k]", "hk_in1_v1[hk_k] = hk_in1_input[0]",
             wild_rotated_one_drv},
            {"mmcv_prroi_pool_fwd", "PrRoIPoolingMatCalculation ( this_data[hk_k]",
             "PrRoIPoolingMatCalculation ( this_data[0]", wild_prroi_drv},
        };
        for (size_t j = 0; j < HK_ARRAY_LEN(first_plane); j++)
            if (strcmp(wild[i].id, first_plane[j][0]) == 0) {
                char *broken = emu_replaced(open, first_plane[j][1], first_plane[j][2]), tag[64];
                snprintf(tag, sizeof tag, "%s_first_plane", wild[i].id);
                emu_batch_add_pair(&batch, tag, src, broken, helpers, first_plane[j][3], EMU_DIFFERS);
                free(broken);
            }
        free(open);
        free(cand);
        if (strcmp(wild[i].id, "mmcv_deform_im2col") == 0) {
            /* coarsen too: it applies since the kernel model follows data_col_ptr, the pointer
             * the kernel walks through its two window loops */
            cand = emu_rewrite(src, wild[i].kernel, "coarsen", NULL);
            open = emu_replaced(cand, "#ifndef ", "#if 1 // ");
            emu_batch_add_pair(&batch, "mmcv_deform_im2col_coarsen", src, open, helpers, wild[i].drv, EMU_OK);
            free(open);
            free(cand);
        }
        free(src);
    }
    emu_batch_run(&batch);
}

/* The emitted text: the last coordinate's chunk space, the chunked side's values per element,
 * the other side's once, the out-call kept as a call, the store pointer per element. */
static void emitted_text(void **state)
{
    (void)state;
    static const int eight[RW_MAX_PARAMS] = {8};
    fixture fx;
    load_text(pairs, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "iou_pairs")};
    rw_result r;
    assert_int_equal(rw_apply_named("channel_chunks", &ctx, eight, &r, NULL), HK_OK);
    if (!r.applicable)
        fail_msg("pairs: %s", r.description);
    assert_int_equal(r.grid_divisor, 8);
    static const char *const want[] = {
        "differ only in `r` (c0 .. c0+7) in lockstep",
        "const long long hk_cc_cb = hk_cc_ok ? (((long long)hk_cc_n + hk_cc_plane - 1) / hk_cc_plane + 7) / 8 : 0;",
        "const long long hk_cc_total = hk_cc_ok ? hk_cc_plane * hk_cc_cb : 0;",
        "if (hk_cc_kn == hk_k && hk_i < (long long)hk_cc_n)",
        " box_at < T > ( a , ((int)(hk_cc_c0 + hk_k)) << 2 , ax1[hk_k] , ay1[hk_k] , ax2[hk_k] , ay2[hk_k] );",
        "\n box_at < T > ( b , c << 2 , bx1 , by1 , bx2 , by2 );",
        "const T area_b = ( bx2 - bx1 + offset ) * ( by2 - by1 + offset );",
        /* the aligned loop is kept */
        "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < na; i += blockDim.x * gridDim.x) {",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(r.text, want[i]) && !strstr(r.description, want[i]))
            fail_msg("pairs: no \"%s\" in\n%.*s", want[i], (int)r.len, r.text);
    rw_result_free(&r);
    unload(&fx);

    load_text(cols, &fx);
    rw_context cc = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "gather_cols")};
    assert_int_equal(rw_apply_named("channel_chunks", &cc, eight, &r, NULL), HK_OK);
    if (!r.applicable)
        fail_msg("cols: %s", r.description);
    static const char *const want2[] = {
        "differ only in `ch` (c0 .. c0+7) in lockstep",
        "hk_cc_same = hk_cc_same && ( ((int)(hk_cc_c0 + hk_k)) / cpg) == ( ((int)(hk_cc_c0)) / cpg);",
        "const int g = ((int)(hk_cc_c0)) / cpg;",
        "T * dst[8];",
        " * dst[hk_k] = v[hk_k]; }",
        " dst[hk_k] += batch * h * w; }",
        "const T * o = off + ( bi * groups + g ) * 2 * kh * kw * h * w;",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want2); i++)
        if (!strstr(r.text, want2[i]) && !strstr(r.description, want2[i]))
            fail_msg("cols: no \"%s\" in\n%.*s", want2[i], (int)r.len, r.text);
    rw_result_free(&r);
    unload(&fx);
}

/* What the lockstep form must not take in these shapes: the construct and its line. */
static const char refused[] =
    "__device__ void put(float *dst, const float v, float &o)\n"
    "{\n"
    "    dst[0] = v;\n"
    "    o = v;\n"
    "}\n"
    "__device__ void lane(const float *p, int k, float &o)\n"
    "{\n"
    "    o = p[k + threadIdx.x];\n"
    "}\n"
    "__device__ float last_seen;\n"
    "__device__ void note(const float *p, int k, float &o)\n"
    "{\n"
    "    o = p[k];\n"
    "    last_seen = o;\n"
    "}\n"
    "template <typename T>\n"
    "__device__ T pick(const T *p, int k)\n"
    "{\n"
    "    return p[k];\n"
    "}\n"
    "__global__ void readback(int n, const float *x, float *y, int w, int h, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = i / w % h;\n"
    "        int ch = i / w / h % c;\n"
    "        int b = i / w / h / c;\n"
    "        float s = x[(b * h + py) * w + px];\n"
    "        float *p = y + ((b * c + ch) * h + py) * w + px;\n"
    "        *p = s;\n"
    "        float t = p[0];\n"
    "    }\n"
    "}\n"
    "__global__ void flat(int n, const float *x, float *y, int nb)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        const int r = i / nb;\n"
    "        const int c = i % nb;\n"
    "        float s = x[c] * r;\n"
    "        float *p = y + c;\n"
    "        *p = s;\n"
    "    }\n"
    "}\n"
    "__global__ void writes(int n, const float *x, float *y, float *z, int nb)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        const int r = i / nb;\n"
    "        const int c = i % nb;\n"
    "        float o;\n"
    "        put(z, x[c], o);\n"
    "        y[i] = o * r;\n"
    "    }\n"
    "}\n"
    "__global__ void thread(int n, const float *x, float *y, int nb)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        const int r = i / nb;\n"
    "        const int c = i % nb;\n"
    "        float o;\n"
    "        lane(x, c, o);\n"
    "        y[i] = o * r;\n"
    "    }\n"
    "}\n"
    "__global__ void tcall(int n, const float *x, float *y, int nb)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        const int r = i / nb;\n"
    "        const int c = i % nb;\n"
    "        float o = 2.0f * pick<float>(x, c);\n"
    "        y[i] = o * r;\n"
    "    }\n"
    "}\n"
    "__global__ void perthread(int n, const float *x, float *y, int nb)\n"
    "{\n"
    "    if (threadIdx.x % 2 == 0) {\n"
    "        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "            const int r = i / nb;\n"
    "            const int c = i % nb;\n"
    "            y[i] = x[c] * r;\n"
    "        }\n"
    "    } else {\n"
    "        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "            const int r = i / nb;\n"
    "            const int c = i % nb;\n"
    "            y[i] = x[c] + r;\n"
    "        }\n"
    "    }\n"
    "}\n"
    "__global__ void global(int n, const float *x, float *y, int nb)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        const int r = i / nb;\n"
    "        const int c = i % nb;\n"
    "        float o;\n"
    "        note(x, c, o);\n"
    "        y[i] = o * r;\n"
    "    }\n"
    "}\n"
    "__global__ void after(int n, const float *x, float *y, int nb, int k)\n"
    "{\n"
    "    if (k) {\n"
    "        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "            const int r = i / nb;\n"
    "            const int c = i % nb;\n"
    "            y[i] = x[c] * r;\n"
    "        }\n"
    "        y[0] = 1.f;\n"
    "    }\n"
    "}\n"
    "__global__ void tstar(int n, const float *x, float *y, int nb)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        const int r = i / nb;\n"
    "        const int c = i % nb;\n"
    "        float o = pick<float *>(x, c);\n"
    "        y[i] = o * r;\n"
    "    }\n"
    "}\n"
    "template <typename T>\n"
    "__device__ T seen(T v)\n"
    "{\n"
    "    last_seen = v;\n"
    "    return v;\n"
    "}\n"
    "__device__ void noted(const float *p, int k, float &o)\n"
    "{\n"
    "    o = seen<float>(p[k]);\n"
    "}\n"
    "__global__ void tnote(int n, const float *x, float *y, int nb)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        const int r = i / nb;\n"
    "        const int c = i % nb;\n"
    "        float o;\n"
    "        noted(x, c, o);\n"
    "        y[i] = o * r;\n"
    "    }\n"
    "}\n";

static void refusals(void **state)
{
    (void)state;
    static const struct {
        const char *kernel, *words;
    } cases[] = {
        {"readback", "store at line 31: the store pointer `p` is used other than in `*p = v;` and `p += e;`"},
        {"flat", "the lockstep form: store at line 39: the store pointer `p` does not depend on `r`"},
        {"writes", "the lockstep form: call at line 50: `put(...)` takes a pointer to memory it may write"},
        {"thread", "the lockstep form: call at line 60: `lane(...)` writes other than its reference parameters, or "
                   "depends on the thread"},
        {"tcall", "the lockstep form: call at line 69: `pick<...>(...)`: a call with template arguments inside an "
                  "expression"},
        {"tstar", "the lockstep form: call at line 115: `pick<...>(...)`: its template arguments are not plain type "
                  "names"},
        {"perthread", "grid-stride loop at line 75: the grid-stride loop of line 76 is not a statement of the body's "
                      "top level"},
        {"global", "the lockstep form: call at line 95: `note(...)` writes other than its reference parameters"},
        {"after", "statement at line 107: a statement after the loop"},
        /* an output helper whose body calls a function with template arguments that writes a
         * global: seen<float>(..) is a call (session 39: the output helpers' scan saw only
         * `f(` as one, and took this helper as writing its reference parameter alone) */
        {"tnote", "the lockstep form: call at line 135: `noted(...)` writes other than its reference parameters"},
    };
    fixture fx;
    load_text(refused, &fx);
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
    unload(&fx);
    assert_int_equal(failures, 0);
}

/* The wild bbox_overlaps and deform_im2col, rewritten at each C_K and at the rewrite's own
 * choice under their specs, compile for sm_90; the chosen chunk keeps the spec's block of 512
 * threads launchable (at most 128 registers, no spills). */
static void wild_kernels(void **state)
{
    (void)state;
    static const struct {
        const char *id, *kernel, *inst, *coord;
        int chosen;
    } cases[] = {
        {"mmcv_bbox_overlaps", "bbox_overlaps_cuda_kernel",
         "template __global__ void bbox_overlaps_cuda_kernel<float>(const float *, const float *, float *, const int, "
         "const int, const int, const bool, const int);\n",
         "`b1`", 16},
        {"mmcv_deform_im2col", "deformable_im2col_gpu_kernel",
         "template __global__ void deformable_im2col_gpu_kernel<float>(const int, const float *, const float *, "
         "const int, const int, const int, const int, const int, const int, const int, const int, const int, "
         "const int, const int, const int, const int, const int, const int, const int, float *);\n",
         "`c_im`", 8},
    };
    static const int cks[][RW_MAX_PARAMS] = {{0}, {8}, {4}, {16}};
    for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
        fixture fx;
        if (!rwf_load_wild(cases[c].id, &fx))
            return;
        char path[700];
        snprintf(path, sizeof path, HK_TEST_DATA "/../../bench/wild/specs/%s.bench.json", cases[c].id);
        spec *sp = NULL;
        spec_diags dg = {0};
        assert_int_equal(spec_load(path, &sp, &dg), HK_OK);
        spec_diags_free(&dg);
        for (size_t i = 0; i < HK_ARRAY_LEN(cks); i++) {
            rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[c].kernel),
                              .spec = sp, .sm_count = 132, .warps_per_sm = 64};
            rw_result r;
            assert_int_equal(rw_apply_named("channel_chunks", &ctx, cks[i], &r, NULL), HK_OK);
            if (!r.applicable)
                fail_msg("%s C_K %d: %s", cases[c].id, cks[i][0], r.description);
            assert_non_null(strstr(r.description, "in lockstep"));
            assert_non_null(strstr(r.description, cases[c].coord));
            int want = cks[i][0] ? cks[i][0] : cases[c].chosen;
            assert_int_equal(r.grid_divisor, want);
            char name[96];
            snprintf(name, sizeof name, "%s_ck%d", cases[c].id, cks[i][0]);
            rwf_nvcc_compiles_with(&r, cases[c].inst, "chunkpairs", name);
            if (i == 0 && access(NVCC, X_OK) == 0) {
                char cmd[2400], out[8192];
                snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -O3 -cubin -std=c++17 -Xptxas -v -o %s/chunkpairs_%s.r.cubin "
                                          "%s/chunkpairs_%s.cu 2>&1",
                         NVCC, tmpdir, name, tmpdir, name);
                assert_int_equal(run_cmd(cmd, out, sizeof out), 0);
                const char *u = strstr(out, "Used ");
                assert_non_null(u);
                int regs = atoi(u + 5);
                print_message("%s chosen C_K %d: %d registers\n", cases[c].id, want, regs);
                assert_true(regs > 0 && regs <= 128);
                assert_null(strstr(out, "bytes spill stores") && !strstr(out, " 0 bytes spill stores") ? out : NULL);
            }
            rw_result_free(&r);
        }
        spec_free(sp);
        unload(&fx);
    }
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
