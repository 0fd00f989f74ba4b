/* channel_lanes run, not only compiled: a bin max with argmax over windows clipped to the map
 * (a grid-stride loop macro, an optional argmax output, empty bins), a bin mean behind a
 * `continue` for boxes without area (a plain `for` with a long long counter, a divisor
 * product in parentheses), and the wild suite's roi_pool and prroi_pool, against their
 * rewrites in the block emulator (emu_block.h) under three thread orders and several grids
 * and blocks, with n a multiple of the permuted extent (the permutation runs) and not (the
 * identity runs): every output must be bit-identical. A permutation that drops a coordinate
 * must differ. Kernels it must not take are refused with the construct and its line; the
 * wild texts compile with nvcc -arch=sm_90. */
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
    return rwf_setup("rewrites-lanes");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char helpers[] = EMU_PAIR;

static emu_batch batch;

/* one thread per (box, channel, bin row, bin column); a bin's window is clipped to the map,
 * so bins past the edge are empty (their max stays the start value, their argmax -1) */
static const char binmax[] =
    "#define EACH(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "__global__ void binmax(int n, const float *x, const float *box, float *y, int *arg, int bw, int bh, int ch,\n"
    "                       int hgt, int wid)\n"
    "{\n"
    "    EACH(i, n) {\n"
    "        int bx = i % bw;\n"
    "        int by = (i / bw) % bh;\n"
    "        int c = (i / bw / bh) % ch;\n"
    "        int r = i / bw / bh / ch;\n"
    "        float x0 = box[4 * r], y0 = box[4 * r + 1], sx = box[4 * r + 2], sy = box[4 * r + 3];\n"
    "        int xa = (int)floorf(x0 + bx * sx), xb = (int)ceilf(x0 + (bx + 1) * sx);\n"
    "        int ya = (int)floorf(y0 + by * sy), yb = (int)ceilf(y0 + (by + 1) * sy);\n"
    "        xa = min(max(xa, 0), wid);\n"
    "        xb = min(max(xb, 0), wid);\n"
    "        ya = min(max(ya, 0), hgt);\n"
    "        yb = min(max(yb, 0), hgt);\n"
    "        float best = -3.0e38f;\n"
    "        int where = -1;\n"
    "        for (int yy = ya; yy < yb; ++yy)\n"
    "            for (int xx = xa; xx < xb; ++xx) {\n"
    "                float v = x[(c * hgt + yy) * wid + xx];\n"
    "                if (v > best) {\n"
    "                    best = v;\n"
    "                    where = yy * wid + xx;\n"
    "                }\n"
    "            }\n"
    "        y[i] = best;\n"
    "        if (arg != NULL)\n"
    "            arg[i] = where;\n"
    "    }\n"
    "}\n";

/* 3 boxes (one past the right edge, one with a negative corner), channels 5 and 33 (a warp
 * spans two bins, or one), n the full extent, one box short of it (the identity), and a
 * partial last box (the identity); grids 1, 3, 40 of blocks 32 and 96. Values with ties. */
static const char binmax_drv[] =
    "for (int C : {5, 33})\n"
    "for (int cut : {0, 1, 2})\n"
    "for (int g : {1, 3, 40})\n"
    "for (int b : {32, 96}) {\n"
    "    const int K = 3, BW = 3, BH = 2, H = 7, W = 6;\n"
    "    const int full = K * C * BH * BW, n = cut == 0 ? full : cut == 1 ? full - C * BH * BW : full - 5;\n"
    "    emu::buf<float> x(C * H * W);\n"
    "    for (size_t k = 0; k < x.size(); k++) x[k] = (float)((k * 7) % 5) - 2.f;\n"
    "    emu::buf<float> box(K * 4);\n"
    "    const float bx[3][4] = {{0.5f, 0.25f, 1.5f, 2.f}, {3.2f, 1.1f, 2.5f, 3.1f}, {-1.5f, 2.f, 1.2f, 0.7f}};\n"
    "    for (int k = 0; k < K * 4; k++) box[k] = bx[k / 4][k % 4];\n"
    "    emu::buf<int> arg(full);\n"
    "    PAIR(float, \"binmax_y\", full, emu::launch(dim3(g), dim3(b), 0, [&] {\n"
    "        NS::binmax(n, x, box, out, arg, BW, BH, C, H, W); }));\n"
    "    emu::buf<float> y(full);\n"
    "    PAIR(int, \"binmax_arg\", full, emu::launch(dim3(g), dim3(b), 0, [&] {\n"
    "        NS::binmax(n, x, box, y, out, BW, BH, C, H, W); }));\n"
    "    PAIR(float, \"binmax_noarg\", full, emu::launch(dim3(g), dim3(b), 0, [&] {\n"
    "        NS::binmax(n, x, box, out, (int *)NULL, BW, BH, C, H, W); }));\n"
    "}\n";

/* one configuration, for the mutant (whose every differing launch prints: the whole
 * driver's log would overflow the batch's) */
static const char binmax_one_drv[] =
    "{\n"
    "    const int K = 3, C = 5, BW = 3, BH = 2, H = 7, W = 6, full = K * C * BH * BW;\n"
    "    emu::buf<float> x(C * H * W);\n"
    "    for (size_t k = 0; k < x.size(); k++) x[k] = (float)((k * 7) % 5) - 2.f;\n"
    "    emu::buf<float> box(K * 4);\n"
    "    const float bx[3][4] = {{0.5f, 0.25f, 1.5f, 2.f}, {3.2f, 1.1f, 2.5f, 3.1f}, {-1.5f, 2.f, 1.2f, 0.7f}};\n"
    "    for (int k = 0; k < K * 4; k++) box[k] = bx[k / 4][k % 4];\n"
    "    PAIR(float, \"binmax_y\", full, emu::launch(dim3(1), dim3(32), 0, [&] {\n"
    "        NS::binmax(full, x, box, out, (int *)NULL, BW, BH, C, H, W); }));\n"
    "}\n";

/* a bin mean: a float sum in the window's order, a count, `continue` for a box without area */
static const char binavg[] =
    "__global__ void binavg(long long n, const float *__restrict__ x, const float *__restrict__ box,\n"
    "                       float *__restrict__ y, int bw, int bh, int ch, int hgt, int wid)\n"
    "{\n"
    "    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int bx = i % bw;\n"
    "        int by = i / bw % bh;\n"
    "        int c = i / (bw * bh) % ch;\n"
    "        long long r = i / (bw * bh) / ch;\n"
    "        float x0 = box[3 * r], y0 = box[3 * r + 1], s = box[3 * r + 2];\n"
    "        if (s <= 0.0f) {\n"
    "            y[i] = 0.0f;\n"
    "            continue;\n"
    "        }\n"
    "        int xa = (int)(x0 + bx * s), xb = (int)(x0 + (bx + 1) * s) + 1;\n"
    "        int ya = (int)(y0 + by * s), yb = (int)(y0 + (by + 1) * s) + 1;\n"
    "        if (xb > wid) xb = wid;\n"
    "        if (yb > hgt) yb = hgt;\n"
    "        float sum = 0.0f;\n"
    "        int cnt = 0;\n"
    "        for (int yy = ya; yy < yb; yy++)\n"
    "            for (int xx = xa; xx < xb; xx++) {\n"
    "                sum += x[((long long)c * hgt + yy) * wid + xx] * 0.37f;\n"
    "                cnt++;\n"
    "            }\n"
    "        y[i] = cnt ? sum / (float)cnt : -1.0f;\n"
    "    }\n"
    "}\n";

static const char binavg_drv[] =
    "for (int C : {4, 40})\n"
    "for (int cut : {0, 3})\n"
    "for (int g : {1, 7}) {\n"
    "    const int K = 4, BW = 2, BH = 3, H = 6, W = 8;\n"
    "    const long long full = (long long)K * C * BH * BW, n = full - cut;\n"
    "    emu::buf<float> x(C * H * W);\n"
    "    x.fill(C + cut);\n"
    "    emu::buf<float> box(K * 3);\n"
    "    const float bx[4][3] = {{0.f, 0.f, 2.3f}, {1.5f, 2.f, 0.f}, {4.f, 1.f, 1.7f}, {6.5f, 4.5f, 3.f}};\n"
    "    for (int k = 0; k < K * 3; k++) box[k] = bx[k / 3][k % 3];\n"
    "    PAIR(float, \"binavg\", full, emu::launch(dim3(g), dim3(64), 0, [&] {\n"
    "        NS::binavg(n, x, box, out, BW, BH, C, H, W); }));\n"
    "}\n";

/* the wild kernels (bench/wild/src), smaller than their specs: 40 channels (a warp over one
 * bin and 8 of the next), rois over the map and past its edges, one empty */
static const char wild_roi_pool_drv[] =
    "for (int g : {1, 40})\n"
    "for (int cut : {0, 1}) {\n"
    "    const int C = 40, H = 7, W = 6, K = 3, PH = 2, PW = 3, full = K * C * PH * PW, n = full - cut;\n"
    "    emu::buf<float> im(C * H * W);\n"
    "    for (size_t k = 0; k < im.size(); k++) im[k] = (float)((k * 13) % 9) - 4.f;\n"
    "    emu::buf<float> rois(K * 5);\n"
    "    const float r[3][5] = {{0, 0.1f, 0.2f, 0.8f, 0.7f}, {0, 0.6f, 0.3f, 1.2f, 0.9f}, {0, 0.5f, 0.55f, 0.2f, 0.1f}};\n"
    "    for (int k = 0; k < K * 5; k++) rois[k] = r[k / 5][k % 5];\n"
    "    emu::buf<int> am(full);\n"
    "    PAIR(float, \"roi_pool\", full, emu::launch(dim3(g), dim3(64), 0, [&] {\n"
    "        NS::roi_pool_forward_cuda_kernel<float>(n, im, rois, out, am, PH, PW, (float)W, C, H, W); }));\n"
    "    emu::buf<float> y(full);\n"
    "    PAIR(int, \"roi_pool_argmax\", full, emu::launch(dim3(g), dim3(64), 0, [&] {\n"
    "        NS::roi_pool_forward_cuda_kernel<float>(n, im, rois, y, out, PH, PW, (float)W, C, H, W); }));\n"
    "}\n";

static const char wild_prroi_drv[] =
    "for (int g : {1, 40}) {\n"
    "    const int C = 40, H = 7, W = 6, K = 4, PH = 2, PW = 3, n = K * C * PH * PW;\n"
    "    emu::buf<float> im(C * H * W);\n"
    "    im.fill(g);\n"
    "    emu::buf<float> rois(K * 5);\n"
    "    const float r[4][5] = {{0, 0.1f, 0.2f, 0.8f, 0.7f}, {0, 0.6f, 0.3f, 0.2f, 0.9f},\n"
    "                           {0, 0.5f, 0.55f, 1.3f, 1.2f}, {0, 0.05f, 0.9f, 0.35f, 0.95f}};\n"
    "    for (int k = 0; k < K * 5; k++) rois[k] = r[k / 5][k % 5];\n"
    "    PAIR(float, \"prroi_pool\", n, emu::launch(dim3(g), dim3(64), 0, [&] {\n"
    "        NS::prroi_pool_forward_cuda_kernel<float>(n, im, rois, out, PH, PW, (float)W, C, H, W); }));\n"
    "}\n";

/* the permutation without its middle digit (position 2: the bin row; position 1: every digit
 * inside c): bins of a channel collapse onto one */
static const char drop_from[] = "hk_cl_q % (hk_cl_T)hk_cl_m * (hk_cl_T)hk_cl_i +";
static const char drop_to[] = "0 +";
/* both positions: next to the innermost coordinate (the default) and innermost */
static const int positions[][RW_MAX_PARAMS] = {{2}, {1}};

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *tag, *src, *kernel, *driver, *one;
    } cases[] = {
        {"binmax", binmax, "binmax", binmax_drv, binmax_one_drv},
        {"binavg", binavg, "binavg", binavg_drv, binavg_drv},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++)
        for (size_t p = 0; p < HK_ARRAY_LEN(positions); p++) {
            char *cand = emu_rewrite(cases[i].src, cases[i].kernel, "channel_lanes", positions[p]), tag[64];
            snprintf(tag, sizeof tag, "%s_p%d", cases[i].tag, positions[p][0]);
            emu_batch_add_pair(&batch, tag, cases[i].src, cand, helpers, cases[i].driver, EMU_OK);
            char *broken = emu_replaced(cand, drop_from, drop_to);
            snprintf(tag, sizeof tag, "%s_p%d_dropped", cases[i].tag, positions[p][0]);
            emu_batch_add_pair(&batch, tag, cases[i].src, broken, helpers, cases[i].one, EMU_DIFFERS);
            free(broken);
            free(cand);
        }
    static const struct {
        const char *id, *kernel, *drv;
    } wild[] = {
        {"mmcv_roi_pool_fwd", "roi_pool_forward_cuda_kernel", wild_roi_pool_drv},
        {"mmcv_prroi_pool_fwd", "prroi_pool_forward_cuda_kernel", wild_prroi_drv},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(wild); i++) {
        size_t n = 0;
        char *src = rwf_wild_text(wild[i].id, &n);
        if (!src)
            continue;
        for (size_t p = 0; p < HK_ARRAY_LEN(positions); p++) {
            char *cand = emu_rewrite(src, wild[i].kernel, "channel_lanes", positions[p]), tag[64];
            /* the header's include guards, defined by the original's copy, would hide the
             * rewrite's: opened unconditionally there */
            char *open = emu_replaced_all(cand, "#ifndef ", "#if 1 // ");
            snprintf(tag, sizeof tag, "%s_p%d", wild[i].id, positions[p][0]);
            emu_batch_add_pair(&batch, tag, src, open, helpers, wild[i].drv, EMU_OK);
            if (p == 0) {
                char *broken = emu_replaced(open, drop_from, drop_to);
                snprintf(tag, sizeof tag, "%s_dropped", wild[i].id);
                emu_batch_add_pair(&batch, tag, src, broken, helpers, wild[i].drv, EMU_DIFFERS);
                free(broken);
            }
            free(open);
            free(cand);
        }
        free(src);
    }
    emu_batch_run(&batch);
}

/* The emitted text: the extent checked, the counter renamed in the macro's call, the index
 * bound to the permuted trip; the description names the coordinate and the divergent loop. */
static void emitted_text(void **state)
{
    (void)state;
    fixture fx;
    load_text(binmax, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "binmax")};
    rw_result r;
    assert_int_equal(rw_apply_named("channel_lanes", &ctx, NULL, &r, NULL), HK_OK);
    if (!r.applicable)
        fail_msg("binmax: %s", r.description);
    static const char *const want[] = {
        "hk: channel_lanes: trip t runs the index whose `bx` is t % (bw), whose `c` is t / (bw) % (ch)",
        "hk_cl_s *= (long long)(bw);",
        "hk_cl_s *= (long long)(bh);",
        "hk_cl_c *= (long long)(ch);",
        "hk_cl_i *= (long long)(bw);",
        "hk_cl_s % hk_cl_i == 0 && (long long)(n) > 0 && (long long)(n) % (hk_cl_s * hk_cl_c) == 0;",
        "EACH(hk_cl_t, n) {",
        "auto i = hk_cl_t;",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(r.text, want[i]))
            fail_msg("no `%s` in\n%s", want[i], r.text);
    if (!strstr(r.description, "innermost coordinate `bx` = t % bw, whose `c` = t / bw % ch") ||
        !strstr(r.description, "loop bounds at line 19"))
        fail_msg("description: %s", r.description);
    rw_result_free(&r);
    /* position 1: c innermost, the loop on the window's columns counts too */
    static const int one[RW_MAX_PARAMS] = {1};
    assert_int_equal(rw_apply_named("channel_lanes", &ctx, one, &r, NULL), HK_OK);
    if (!r.applicable || !strstr(r.description, "coordinate `c` = t % ch") || !strstr(r.description, "loop bounds at line 19") ||
        strstr(r.text, "hk_cl_i *="))
        fail_msg("position 1: %s", r.description);
    /* a second application finds its own names */
    fixture f2;
    load_text(r.text, &f2);
    rw_context c2 = {.text = f2.text, .len = f2.len, .m = f2.m, .kernel = kernel(&f2, "binmax")};
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("channel_lanes"), &c2, NULL, &why), HK_OK);
    assert_non_null(strstr(why.reason, "across the lanes already"));
    unload(&f2);
    rw_result_free(&r);
    unload(&fx);
}

static const char refused[] =
    "__global__ void same_trips(const float *x, float *y, int n, int w, int ch)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int c = (i / w) % ch;\n"
    "        float s = 0.0f;\n"
    "        for (int k = 0; k < 4; k++)\n"
    "            s += x[(c * w + px) * 4 + k];\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void c_bound(const float *x, float *y, int n, int w, int ch)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int c = (i / w) % ch;\n"
    "        int len = c + px;\n"
    "        float s = 0.0f;\n"
    "        for (int k = 0; k < len; k++)\n"
    "            s += x[k];\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void c_exit(const float *x, float *y, int n, int w, int ch)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int c = (i / w) % ch;\n"
    "        if (c == 3)\n"
    "            continue;\n"
    "        float s = 0.0f;\n"
    "        for (int k = 0; k < px; k++)\n"
    "            s += x[c * w + k];\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void tid(const float *x, float *y, int n, int w, int ch)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int c = (i / w) % ch;\n"
    "        float s = 0.0f;\n"
    "        for (int k = 0; k < px; k++)\n"
    "            s += x[c * w + k] + threadIdx.x;\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void atom(const float *x, float *y, int n, int w, int ch)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int c = (i / w) % ch;\n"
    "        for (int k = 0; k < px; k++)\n"
    "            atomicAdd(y + c, x[k]);\n"
    "    }\n"
    "}\n"
    "__global__ void carried(const float *x, float *y, int n, int w, int ch)\n"
    "{\n"
    "    float s = 0.0f;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int c = (i / w) % ch;\n"
    "        for (int k = 0; k < px; k++)\n"
    "            s += x[c * w + k];\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void ret(const float *x, float *y, int n, int w, int ch)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int c = (i / w) % ch;\n"
    "        if (x[c] < 0.0f)\n"
    "            return;\n"
    "        for (int k = 0; k < px; k++)\n"
    "            y[i] = x[k];\n"
    "    }\n"
    "}\n"
    "__device__ void put(float *p, float v) { *p = v; }\n"
    "__global__ void writer(const float *x, float *y, int n, int w, int ch)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int c = (i / w) % ch;\n"
    "        for (int k = 0; k < px; k++)\n"
    "            put(y + i, x[c * w + k]);\n"
    "    }\n"
    "}\n"
    "__global__ void shifted(const float *x, float *y, int n, int w, int ch, int k)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int c = (i / w) % ch;\n"
    "        int lo = px - k / 2, hi = px + k / 2 + 1;\n"
    "        float s = 0.0f;\n"
    "        for (int t = lo; t < hi; t++)\n"
    "            s += x[c * w + t];\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void flat(const float *x, float *y, int n, int w)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int r = i / w;\n"
    "        float s = 0.0f;\n"
    "        for (int k = 0; k < px; k++)\n"
    "            s += x[r * w + k];\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void noinner(const float *x, float *y, int n, int w, int h, int ch)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int py = (i / w) % h;\n"
    "        int c = (i / w / h) % ch;\n"
    "        float s = 0.0f;\n"
    "        for (int k = 0; k < py; k++)\n"
    "            s += x[c * w + k];\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void outer_array(const float *x, float *y, int n, int w, int h, int ch)\n"
    "{\n"
    "    float prev[2] = {0.0f, 0.0f};\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = (i / w) % h;\n"
    "        int c = (i / w / h) % ch;\n"
    "        float s = prev[0];\n"
    "        for (int k = 0; k < py; k++)\n"
    "            s += x[c * w + k + px];\n"
    "        prev[0] = s;\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n"
    "struct acc { float v; };\n"
    "__global__ void outer_member(const float *x, float *y, int n, int w, int h, int ch)\n"
    "{\n"
    "    acc a;\n"
    "    a.v = 0.0f;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int px = i % w;\n"
    "        int py = (i / w) % h;\n"
    "        int c = (i / w / h) % ch;\n"
    "        for (int k = 0; k < py; k++)\n"
    "            a.v += x[c * w + k + px];\n"
    "        y[i] = a.v;\n"
    "    }\n"
    "}\n";

static void refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"same_trips", "loop", 5, "no loop's trip count depends on a coordinate between the innermost `px` and `c`"},
        {"c_bound", "loop", 19, "reads `len`, which depends on the coordinate `c`"},
        {"c_exit", "early exit", 30, "`continue` under a condition on the coordinate `c`"},
        {"tid", "thread index", 44, "`threadIdx` in the loop"},
        {"atom", "atomic", 54, "`atomicAdd` in the loop"},
        {"carried", "write", 64, "`s` is declared outside the loop"},
        {"ret", "early exit", 74, "`return` in the loop"},
        {"writer", "call", 86, "`put(...)` is not a pure function or a reader function"},
        {"shifted", "loop", 93, "no loop's trip count depends on a coordinate between the innermost `px` and `c`"},
        {"flat", "counter", 104, "no coordinate `(i / S) % C`"},
        {"noinner", "counter", 115, "no innermost coordinate `i % F` declared in the body"},
        {"outer_array", "memory", 130, "`prev` is declared outside the loop and used in it as an array"},
        {"outer_member", "memory", 147, "`a` is declared outside the loop and used in it as an array, pointer or aggregate"},
    };
    rwf_expect_refusals(refused, "channel_lanes", cases, HK_ARRAY_LEN(cases));
    /* position 1: the same trips across a warp of px lanes is refused too; noinner applies */
    fixture fx;
    load_text(refused, &fx);
    static const int one[RW_MAX_PARAMS] = {1};
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "same_trips")};
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("channel_lanes"), &ctx, one, &why), HK_OK);
    if (why.line != 5 || !strstr(why.reason, "no loop's trip count depends on a coordinate finer than `c`"))
        fail_msg("same_trips at position 1: line %d: %s", why.line, why.reason);
    ctx.kernel = kernel(&fx, "noinner");
    assert_int_equal(rw_applies(rw_find("channel_lanes"), &ctx, one, &why), HK_OK);
    if (why.line)
        fail_msg("noinner at position 1: line %d: %s", why.line, why.reason);
    unload(&fx);
}

/* The wild suite: roi_pool and prroi_pool taken (their texts compile for sm_90); the other
 * kernels of the ROI family refused, each with its reason (the same trips across a warp, or
 * the thread index read). Skipped where bench/wild/src is not extracted. */
static void wild_kernels(void **state)
{
    (void)state;
    static const struct {
        const char *id, *kernel;
        const char *words; /* NULL: applies */
        const char *inst;
    } ks[] = {
        {"mmcv_roi_pool_fwd", "roi_pool_forward_cuda_kernel", NULL,
         "template __global__ void roi_pool_forward_cuda_kernel<float>(const int, const float *, const float *, "
         "float *, int *, const int, const int, const float, const int, const int, const int);\n"},
        {"mmcv_prroi_pool_fwd", "prroi_pool_forward_cuda_kernel", NULL,
         "template __global__ void prroi_pool_forward_cuda_kernel<float>(const int, const float *, const float *, "
         "float *, const int, const int, const float, const int, const int, const int);\n"},
        {"mmcv_roi_align_fwd", "roi_align_forward_cuda_kernel", "no loop's trip count depends on a coordinate", NULL},
        {"mmcv_roi_align_rotated_fwd", "roi_align_rotated_forward_cuda_kernel",
         "no loop's trip count depends on a coordinate", NULL},
        {"mmcv_deform_roi_pool_fwd", "deform_roi_pool_forward_cuda_kernel",
         "no loop's trip count depends on a coordinate", NULL},
        {"mmcv_border_align_fwd", "border_align_forward_cuda_kernel", "`threadIdx` in the loop", NULL},
        /* its window shifts with the bin, its length is the kernel size */
        {"mmcv_carafe_naive_fwd", "carafe_naive_forward_cuda_kernel", "no loop's trip count depends on a coordinate",
         NULL},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(ks); i++) {
        fixture fx;
        if (!rwf_load_wild(ks[i].id, &fx))
            continue;
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, ks[i].kernel)};
        rw_result r;
        assert_int_equal(rw_apply_named("channel_lanes", &ctx, NULL, &r, NULL), HK_OK);
        if (r.applicable != !ks[i].words || (ks[i].words && !strstr(r.description, ks[i].words)))
            fail_msg("%s: applicable %d: %s", ks[i].id, r.applicable, r.description);
        if (r.applicable) {
            assert_non_null(strstr(r.text, "CUDA_1D_KERNEL_LOOP(hk_cl_t, nthreads)"));
            rwf_nvcc_compiles_with(&r, ks[i].inst, "lanes", ks[i].id);
        }
        rw_result_free(&r);
        unload(&fx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emitted_text),
        cmocka_unit_test(refusals),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(wild_kernels),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
