/* window_lanes (issue 13) run, not only compiled: the three window reductions of
 * tests/data/rewrite_window/window.cu (a box max pool with its argmax in a grid-stride loop,
 * an adaptive average pool behind an early return, a 1-D segment minimum with its position
 * and a count through a loop macro) are rewritten into ONE candidate text per lane count G
 * (8, 32, 4), and ONE emulated program (emu_block.h) runs each against its original: the
 * original on its own launch, the candidate on the grid multiplied by G with blocks of 128,
 * 96 and 36 (not a multiple of 8 or 32: lane 0 alone), three thread orders. The data are
 * full of ties (values from a handful of integers, -0 beside +0), NaN and -FLT_MAX elements
 * (never taken), empty windows (0 and -1; 1e300, -1 and 0), skipped boxes, and windows
 * wider than the G lanes. Max/min, positions and counts must match bit for bit; the mean
 * within a float reduction's tolerance. Broken copies must differ: the merge's tie rule
 * reversed (the later of equal elements), and no merge at all. The candidate compiles with
 * nvcc -arch=sm_90. The refusals (`>=`, a store in the window, a window the same for every
 * thread, a sum from a value not 0, a break, a count used inside an expression) are checked
 * through the registry with their lines. So is the device rule (window_device): with a spec
 * and a device, outputs that already fill the resident threads refuse the lanes (each lane
 * would repeat the code before the window on a full GPU): a lane count G applies only where the
 * outputs' G lanes fit the resident threads (n x G <= SMs x warps x 32); no device: applies.
 * Session 44: windows stepped by induction state (window_stepped_run, window_stepped_refusals,
 * window_wild_border: mmcv's border_align itself) and an inclusive bound (window_incl_run). */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "spec/spec.h"
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
#include "said_zh.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-emu-window");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char *const kernels[] = {"box_max_pool", "adaptive_avg", "segment_argmin", "segment_lerp_mean",
                                      "segment_lerp_max"};

/* C++ before main(): one case per kernel; G is the candidate's lane count. */
static const char helpers_fmt[] =
    "static const int G = %d;\n"
    "static const unsigned cblocks[] = {128, 96, 36};\n"
    "static int bad_box = 0, bad_avg = 0, bad_seg = 0, bad_lerp = 0;\n"
    "static void box_case()\n"
    "{\n"
    "    const int C = 3, H = 13, W = 11, bins = 3, B = 6;\n"
    "    /* x1, y1, x2, y2: inside; over the edges; empty; skipped (negative width); wide (bins\n"
    "     * of 8x9 > 32 lanes); thin */\n"
    "    const float bx[B][4] = {{1, 2, 7, 9}, {-3, -2, 15, 20}, {4, 4, 4, 9}, {6, 1, 2, 5}, {-20, -30, 60, 70}, {2, 3, 3, 12}};\n"
    "    const int n = B * C * bins * bins;\n"
    "    for (int v = 0; v < 3; v++)\n"
    "        for (int d = 0; d < 3; d++) {\n"
    "            emu::schedule = (v + d) %% 3;\n"
    "            emu::buf<float> feat((size_t)C * H * W), boxes(B * 4), o(n), c(n);\n"
    "            emu::buf<int> oa(n), ca(n);\n"
    "            feat.fill_mod(v + 3 * d, 4);\n"
    "            for (size_t i = 0; i < feat.size(); i++) {\n"
    "                if (i %% 17 == 5) feat[i] = NAN;\n"
    "                if (i %% 23 == 7) feat[i] = -FLT_MAX;\n"
    "                if (feat[i] == 0.f && i %% 2) feat[i] = -0.f;\n"
    "                if (d == 2) feat[i] = feat[i] - 10.f;   /* all negative: -FLT_MAX matters */\n"
    "            }\n"
    "            for (int b = 0; b < B; b++) for (int k = 0; k < 4; k++) boxes[b * 4 + k] = bx[b][k];\n"
    "            o.set(7); c.set(7); oa.set(5); ca.set(5);\n"
    "            emu::launch(dim3(1 + v), dim3(64), 0, [&] { orig::box_max_pool(feat, boxes, o, oa, n, bins, C, H, W); });\n"
    "            emu::launch(dim3((1 + v) * G), dim3(cblocks[d]), 0, [&] { cand::box_max_pool(feat, boxes, c, ca, n, bins, C, H, W); });\n"
    "            int f = emu::failures;\n"
    "            emu::expect(\"box_max_pool max\", o, c);\n"
    "            emu::expect(\"box_max_pool argmax\", oa, ca);\n"
    "            if (emu::failures != f) { bad_box++; printf(\"  (box: seed %%d, block %%u)\\n\", v, cblocks[d]); }\n"
    "        }\n"
    "}\n"
    "static void avg_case()\n"
    "{\n"
    "    const int sz[][5] = {{2, 11, 9, 4, 5}, {3, 10, 12, 1, 1}, {1, 7, 7, 7, 7}, {2, 9, 40, 2, 3}};\n"
    "    for (int z = 0; z < 4; z++)\n"
    "        for (int d = 0; d < 3; d++) {\n"
    "            const int C = sz[z][0], H = sz[z][1], W = sz[z][2], OH = sz[z][3], OW = sz[z][4], n = C * OH * OW;\n"
    "            emu::schedule = (z + d) %% 3;\n"
    "            emu::buf<float> in((size_t)C * H * W), o(n), c(n);\n"
    "            in.fill(z + 7 * d); o.set(3); c.set(3);\n"
    "            emu::launch(dim3((n + 63) / 64), dim3(64), 0, [&] { orig::adaptive_avg(in, o, C, H, W, OH, OW); });\n"
    "            emu::launch(dim3((n * G + cblocks[d] - 1) / cblocks[d]), dim3(cblocks[d]), 0, [&] { cand::adaptive_avg(in, c, C, H, W, OH, OW); });\n"
    "            int f = emu::failures;\n"
    "            emu::expect(\"adaptive_avg\", o, c, 1e-5, 4.0);\n"
    "            if (emu::failures != f) { bad_avg++; printf(\"  (avg: size %%d, block %%u)\\n\", z, cblocks[d]); }\n"
    "        }\n"
    "}\n"
    "static void seg_case()\n"
    "{\n"
    "    const int lens[] = {3, 0, 1, 70, 0, 0, 9, 33, 2, 64, 5, 0, 17};\n"
    "    const int ns = sizeof lens / sizeof lens[0];\n"
    "    for (int v = 0; v < 3; v++)\n"
    "        for (int d = 0; d < 3; d++) {\n"
    "            emu::schedule = (v + d + 1) %% 3;\n"
    "            emu::buf<int> offs(ns + 1);\n"
    "            offs[0] = 0;\n"
    "            for (int s = 0; s < ns; s++) offs[s + 1] = offs[s] + lens[s];\n"
    "            emu::buf<double> val(offs[ns] + 1), o(ns), c(ns);\n"
    "            val.fill_mod(2 * v + d, 3);\n"
    "            for (size_t i = 0; i < val.size(); i++) {\n"
    "                if (i %% 13 == 4) val[i] = NAN;\n"
    "                if (val[i] == 0.0 && i %% 3 == 1) val[i] = -0.0;\n"
    "            }\n"
    "            emu::buf<long long> op(ns), cp(ns);\n"
    "            emu::buf<unsigned> on(ns), cn(ns);\n"
    "            o.set(2); c.set(2); op.set(9); cp.set(9); on.set(4); cn.set(4);\n"
    "            emu::launch(dim3(1), dim3(64), 0, [&] { orig::segment_argmin(offs, val, o, op, on, ns); });\n"
    "            emu::launch(dim3(G), dim3(cblocks[d]), 0, [&] { cand::segment_argmin(offs, val, c, cp, cn, ns); });\n"
    "            int f = emu::failures;\n"
    "            emu::expect(\"segment_argmin min\", o, c);\n"
    "            emu::expect(\"segment_argmin pos\", op, cp);\n"
    "            emu::expect(\"segment_argmin count\", on, cn);\n"
    "            for (int s = 0; s < ns && emu::failures == f; s++)   /* -0 and +0 compare equal: the bits too */\n"
    "                if (std::signbit(o[s]) != std::signbit(c[s])) { emu::failures++; printf(\"  (seg %%d: the other zero)\\n\", s); }\n"
    "            if (emu::failures != f) { bad_seg++; printf(\"  (seg: seed %%d, block %%u)\\n\", v, cblocks[d]); }\n"
    "        }\n"
    "}\n"
    "/* the helpers' kernels: a mean of samples summed through lerp_at<float>, then divided; a\n"
    " * maximum of samples with its position (NaN samples, ties from a handful of integers) */\n"
    "static void lerp_case()\n"
    "{\n"
    "    const int lens[] = {3, 0, 1, 70, 0, 9, 33, 2, 64, 5, 17};\n"
    "    const int ns = sizeof lens / sizeof lens[0];\n"
    "    for (int v = 0; v < 3; v++)\n"
    "        for (int d = 0; d < 3; d++) {\n"
    "            emu::schedule = (v + 2 * d) %% 3;\n"
    "            emu::buf<int> offs(ns + 1), oa(ns), ca(ns);\n"
    "            offs[0] = 0;\n"
    "            for (int s = 0; s < ns; s++) offs[s + 1] = offs[s] + lens[s];\n"
    "            const int nv = offs[ns] + 1;\n"
    "            emu::buf<float> vm(nv), vx(nv), om(ns), cm(ns), ox(ns), cx(ns);\n"
    "            vm.fill(v + 5 * d);\n"
    "            vx.fill_mod(v + 2 * d, 4);\n"
    "            for (int i = 0; i < nv; i++) if (i %% 19 == 3) vx[i] = NAN;\n"
    "            om.set(2); cm.set(2); ox.set(2); cx.set(2); oa.set(9); ca.set(9);\n"
    "            emu::launch(dim3(1 + v), dim3(64), 0, [&] { orig::segment_lerp_mean(offs, vm, om, nv, ns); });\n"
    "            emu::launch(dim3(1 + v), dim3(64), 0, [&] { orig::segment_lerp_max(offs, vx, ox, oa, nv, ns); });\n"
    "            emu::launch(dim3((1 + v) * G), dim3(cblocks[d]), 0, [&] { cand::segment_lerp_mean(offs, vm, cm, nv, ns); });\n"
    "            emu::launch(dim3((1 + v) * G), dim3(cblocks[d]), 0, [&] { cand::segment_lerp_max(offs, vx, cx, ca, nv, ns); });\n"
    "            int f = emu::failures;\n"
    "            emu::expect(\"segment_lerp_mean\", om, cm, 1e-5, 4.0);\n"
    "            emu::expect(\"segment_lerp_max max\", ox, cx);\n"
    "            emu::expect(\"segment_lerp_max argmax\", oa, ca);\n"
    "            if (emu::failures != f) { bad_lerp++; printf(\"  (lerp: seed %%d, block %%u)\\n\", v, cblocks[d]); }\n"
    "        }\n"
    "}\n";

static const char driver[] =
    "box_case(); avg_case(); seg_case(); lerp_case();\n"
    "printf(\"%d %d %d %d cases differ\\n\", bad_box, bad_avg, bad_seg, bad_lerp);\n";

/* A broken copy: failures are expected; success only when the named kernels differed. */
static const char driver_broken_ties[] =
    "box_case(); seg_case();\n"
    "printf(\"broken ties: %d %d cases differ\\n\", bad_box, bad_seg);\n"
    "emu::failures = bad_box > 0 && bad_seg > 0 ? 0 : 1;\n";
static const char driver_broken_merge[] =
    "box_case(); avg_case(); seg_case(); lerp_case();\n"
    "printf(\"no merge: %d %d %d %d cases differ\\n\", bad_box, bad_avg, bad_seg, bad_lerp);\n"
    "emu::failures = bad_box > 0 && bad_avg > 0 && bad_seg > 0 && bad_lerp > 0 ? 0 : 1;\n";

static char *candidate(const char *src, int G)
{
    char *cand = strdup(src);
    assert_non_null(cand);
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        int params[RW_MAX_PARAMS] = {G};
        char *next = emu_rewrite(cand, kernels[i], "window_lanes", params);
        assert_non_null(strstr(next, "hk: window_lanes"));
        free(cand);
        cand = next;
    }
    return cand;
}

/* The running test's emulated programs, built as one (emu_batch.h) and checked at its end. */
static emu_batch batch;

static void window_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_window/window.cu");
    static const int lanes[] = {8, 32, 4};
    char helpers[sizeof helpers_fmt + 16], tag[32];
    for (size_t i = 0; i < sizeof lanes / sizeof lanes[0]; i++) {
        char *cand = candidate(src, lanes[i]);
        snprintf(helpers, sizeof helpers, helpers_fmt, lanes[i]);
        snprintf(tag, sizeof tag, "window%d", lanes[i]);
        emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, EMU_OK);
        free(cand);
    }
    /* the tie rule reversed: the later of equal elements wins the merge */
    char *cand = candidate(src, 8);
    char *broken = emu_replaced_all(cand, "hk_wg_op < hk_wg_p", "hk_wg_op > hk_wg_p");
    assert_true(strcmp(broken, cand) != 0);
    snprintf(helpers, sizeof helpers, helpers_fmt, 8);
    emu_batch_add_pair(&batch, "window_ties", src, broken, helpers, driver_broken_ties, EMU_OK);
    free(broken);
    /* no merge: each output keeps lane 0's part of its window */
    broken = emu_replaced_all(cand, "if (hk_wg_np > 1) {", "if (hk_wg_np > 1 && 0) {");
    emu_batch_add_pair(&batch, "window_nomerge", src, broken, helpers, driver_broken_merge, EMU_OK);
    free(broken);
    free(cand);
    free(src);
    emu_batch_run(&batch);
}

/* The candidate compiles for the H100/H200: queued (rw_fixture.h's rwf_nvcc_compiles: nvcc
 * -arch=sm_90 -cubin, in one run with window_warp_run's, each text in a namespace of its
 * own and named when it fails alone), compiled by rwf_nvcc_queued, the last test. */
static void window_nvcc(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_window/window.cu");
    char *cand = candidate(src, 16);
    rwf_nvcc_compiles(cand, "window_cand");
    free(cand);
    free(src);
}

/* What the emitted text keeps and says: the grid multiplied by G, the first index on ties,
 * lane 0 storing, the HIP spelling. */
static void window_text(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_window/window.cu");
    fixture fx;
    load_text(src, &fx);
    static const struct {
        const char *kernel, *has, *says;
    } want[] = {
        {"box_max_pool", "if (hk_wg_o0 > best || (!(best > hk_wg_o0) && hk_wg_op < hk_wg_p0))", "exactly"},
        {"adaptive_avg", "acc += __shfl_xor_sync(hk_wg_mask, acc, hk_wg_off, 16);", "reduction tolerance"},
        {"segment_argmin", "if (hk_wg_o0 < best || (!(best < hk_wg_o0) && hk_wg_op < hk_wg_p0))", "a sum with"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        for (int hip = 0; hip < 2; hip++) {
            rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, want[i].kernel),
                              .hip = hip};
            rw_result r;
            rw_refusal why;
            int params[RW_MAX_PARAMS] = {16};
            assert_int_equal(rw_apply_named("window_lanes", &ctx, params, &r, &why), HK_OK);
            if (!r.applicable)
                print_message("%s: %s\n", want[i].kernel, r.description);
            assert_true(r.applicable);
            if (!hip)
                assert_non_null(strstr(r.text, want[i].has));
            else
                assert_non_null(strstr(r.text, "__shfl_xor(hk_wg_p0, hk_wg_off, 16)") ||
                                strstr(r.text, "__shfl_xor(acc, hk_wg_off, 16)"));
            assert_non_null(strstr(r.text, "if (hk_wg_lane == 0) {"));
            assert_non_null(strstr(r.description, want[i].says));
            assert_int_equal(r.grid_multiplier, 16);
            assert_int_equal(r.grid_axis, 0);
            assert_int_equal(r.grid_divisor, 0);
            rw_result_free(&r);
        }
    }
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Refusals name the construct and its line. */
static void window_refusals(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_window/window.cu");
    fixture fx;
    load_text(src, &fx);
    static const struct {
        const char *kernel;
        int line;
        const char *words;
    } cases[] = {
        {"last_max", 98, "only a strict `<` or `>` keeps the first element"},
        {"window_store", 114, "through `val` in the window"},
        {"fixed_window", 126, "its bounds are the same for every thread"},
        {"sum_from_out", 137, "does not start from a literal 0"},
        {"stop_early", 152, "`break` in the window"},
        {"count_in_index", 167, "`c` is updated inside an expression"},
        /* a function of the file that calls one writing memory; a call with template arguments */
        {"helper_writes", 298, "`via_bump` in the window may write memory"},
        {"template_writes", 317, "`take` in the window may write memory"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel)};
        rw_refusal why;
        assert_int_equal(rw_applies(rw_find("window_lanes"), &ctx, NULL, &why), HK_OK);
        if (why.line != cases[i].line || !strstr(why.reason, cases[i].words))
            print_message("%s: line %d: %s\n", cases[i].kernel, why.line, why.reason);
        assert_int_equal(why.line, cases[i].line);
        assert_non_null(strstr(why.reason, cases[i].words));
    }
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

static void said_zh(const char *stored, const char *want);

/* The device rule: G lanes per output pay only where they fit the resident threads. The
 * output count is the grid-stride loop's bound at the spec's first size (box_max_pool's
 * n_out, segment_argmin's n_seg through its loop macro), or the spec's launch for the guard
 * form (adaptive_avg); the device's resident threads are SMs x warps per SM x 32. */
static void window_device(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_window/window.cu");
    fixture fx;
    load_text(src, &fx);
    static const char box_fmt[] =
        "{\"kernel\": \"box_max_pool\", \"source\": \"window.cu\", \"sizes\": [{\"NOUT\": %lld}, {\"NOUT\": 1001}],"
        " \"args\": [{\"name\": \"feat\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"4096\"},"
        " {\"name\": \"boxes\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"64\"},"
        " {\"name\": \"out\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"NOUT\"},"
        " {\"name\": \"arg\", \"kind\": \"output\", \"dtype\": \"int\", \"count\": \"NOUT\"},"
        " {\"name\": \"n_out\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"NOUT\"},"
        " {\"name\": \"bins\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": 4},"
        " {\"name\": \"channels\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": 4},"
        " {\"name\": \"height\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": 32},"
        " {\"name\": \"width\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": 32}],"
        " \"launch\": {\"grid\": \"min(ceil_div(NOUT, block_x), 4096)\", \"block\": 256}}";
    static const char seg_fmt[] =
        "{\"kernel\": \"segment_argmin\", \"source\": \"window.cu\", \"sizes\": [{\"S\": %lld}, {\"S\": 1001}],"
        " \"args\": [{\"name\": \"offs\", \"kind\": \"input\", \"dtype\": \"int\", \"count\": \"S + 1\"},"
        " {\"name\": \"val\", \"kind\": \"input\", \"dtype\": \"double\", \"count\": \"64\"},"
        " {\"name\": \"mins\", \"kind\": \"output\", \"dtype\": \"double\", \"count\": \"S\"},"
        " {\"name\": \"pos\", \"kind\": \"output\", \"dtype\": \"int64\", \"count\": \"S\"},"
        " {\"name\": \"count\", \"kind\": \"output\", \"dtype\": \"uint32\", \"count\": \"S\"},"
        " {\"name\": \"n_seg\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"S\"}],"
        " \"launch\": {\"grid\": \"sm_count * 4\", \"block\": 128}}";
    static const char avg_fmt[] =
        "{\"kernel\": \"adaptive_avg\", \"source\": \"window.cu\", \"sizes\": [{\"C\": %lld}, {\"C\": 3}],"
        " \"args\": [{\"name\": \"in\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"C * 64 * 64\"},"
        " {\"name\": \"out\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"C * 49\"},"
        " {\"name\": \"C\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"C\"},"
        " {\"name\": \"H\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": 64},"
        " {\"name\": \"W\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": 64},"
        " {\"name\": \"OH\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": 7},"
        " {\"name\": \"OW\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": 7}],"
        " \"launch\": {\"grid\": \"ceil_div(C * 49, block_x)\", \"block\": 128}}";
    static const struct {
        const char *fmt, *kernel;
        long long size;
        int sms, warps;
        int gmax;             /* the largest G that applies (0: none) */
        int line;             /* the refusal's line for the others */
        const char *words;    /* in the refusal for G = 32 */
    } cases[] = {
        /* 132 x 64 x 32 = 270336 resident threads (an H100/H200) */
        {box_fmt, "box_max_pool", 8448, 132, 64, 32, 15, NULL},   /* 8448 x 32 = 270336: one wave */
        {box_fmt, "box_max_pool", 8449, 132, 64, 16, 15, "`n_out` gives 8449 outputs"},
        {box_fmt, "box_max_pool", 67584, 132, 64, 4, 15, "32 lanes each make 2162688 threads"},
        {box_fmt, "box_max_pool", 67585, 132, 64, 0, 15, "= 270336 resident threads"},
        {box_fmt, "box_max_pool", 25690112, 132, 64, 0, 15, "gives 25690112 outputs"},
        {box_fmt, "box_max_pool", 2048, 16, 64, 16, 15, "16 SMs x 64 warps x 32 = 32768"},   /* a smaller GPU */
        {seg_fmt, "segment_argmin", 16896, 132, 64, 16, 69, "`n_seg` gives 16896 outputs"},
        {seg_fmt, "segment_argmin", 1000000, 132, 64, 0, 69, "`n_seg` gives 1000000 outputs"},
        /* the guard form: the spec's launch, ceil(C * 49 / 128) blocks of 128 */
        {avg_fmt, "adaptive_avg", 689, 132, 64, 8, 48, "the spec's launch (one output per thread) gives 33792"},
        {avg_fmt, "adaptive_avg", 8192, 132, 64, 0, 48, "gives 401408 outputs"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[4096];
        snprintf(text, sizeof text, cases[i].fmt, cases[i].size);
        spec *sp = NULL;
        spec_diags dg = {0};
        int prc = spec_parse(text, strlen(text), NULL, &sp, &dg);
        if (prc != HK_OK)
            for (size_t d = 0; d < dg.n; d++)
                print_message("case %zu: spec: %s: %s\n", i, dg.items[d].path, dg.items[d].message);
        spec_diags_free(&dg);
        assert_int_equal(prc, HK_OK);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel),
                          .spec = sp, .sm_count = cases[i].sms, .warps_per_sm = cases[i].warps};
        for (int G = 4; G <= 32; G *= 2) {
            int p[RW_MAX_PARAMS] = {G};
            rw_refusal why;
            assert_int_equal(rw_applies(rw_find("window_lanes"), &ctx, p, &why), HK_OK);
            int line = G <= cases[i].gmax ? 0 : cases[i].line;
            bool words = G == 32 && cases[i].words;
            if (why.line != line || (words && !strstr(why.reason, cases[i].words)))
                print_message("case %zu (G %d): line %d: %s\n", i, G, why.line, why.reason);
            assert_int_equal(why.line, line);
            if (line)
                assert_string_equal(why.construct, "output count");
            if (words)
                assert_non_null(strstr(why.reason, cases[i].words));
            if (line)
                said_zh(why.reason, NULL);   /* its bound, or the spec's launch (adaptive_avg) */
        }
        /* window_warp keeps the launch: it applies while the outputs fit one wave of the
         * device's resident threads (the grid-stride kernels; adaptive_avg is the guard form) */
        rw_refusal why;
        if (cases[i].fmt != avg_fmt) {
            long long resident = (long long)cases[i].sms * cases[i].warps * 32;
            int line = cases[i].size <= resident ? 0 : cases[i].line;
            assert_int_equal(rw_applies(rw_find("window_warp"), &ctx, NULL, &why), HK_OK);
            if (why.line != line)
                print_message("case %zu (window_warp): line %d: %s\n", i, why.line, why.reason);
            assert_int_equal(why.line, line);
            if (line) {
                assert_string_equal(why.construct, "output count");
                assert_non_null(strstr(why.reason, "resident threads: past one wave"));
                said_zh(why.reason, NULL);
            }
        }
        /* no device: nothing known, applies */
        ctx.sm_count = ctx.warps_per_sm = 0;
        assert_int_equal(rw_applies(rw_find("window_lanes"), &ctx, NULL, &why), HK_OK);
        assert_int_equal(why.line, 0);
        if (cases[i].fmt != avg_fmt) {
            assert_int_equal(rw_applies(rw_find("window_warp"), &ctx, NULL, &why), HK_OK);
            assert_int_equal(why.line, 0);
        }
        spec_free(sp);
    }
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

/* stored (English, as the rewrite wrote it) said in zh-CN: a Chinese sentence holding want
 * (when given) and no English one; nothing said for English */
static void said_zh(const char *stored, const char *want)
{
    char *zh = hk_tr_said(HK_LANG_ZH_CN, stored);
    if (!zh || said_english_run(zh) || (want && strcmp(zh, want)))
        fail_msg("said %s\nas   %s\nnot  %s", stored, zh ? zh : "(nothing)", want ? want : "(no English run)");
    hk_free(zh);
    assert_null(hk_tr_said(HK_LANG_EN, stored));
}

/* Session 39 (rewrite_window.c in the message table): what window_lanes and window_warp
 * store in English -- their descriptions (the states' list, a compare-select alone or with a
 * sum, the loop and the guard form, the HIP merge), their refusals on this file's kernels
 * and the device rule's (its bound and the spec's launch) -- said again in zh-CN. */
static void window_said_zh(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_window/window.cu");
    fixture fx;
    load_text(src, &fx);
    static const char *const lanes_ok[] = {"box_max_pool", "adaptive_avg", "segment_argmin"};
    for (size_t i = 0; i < sizeof lanes_ok / sizeof lanes_ok[0]; i++)
        for (int hip = 0; hip < 2; hip++) {
            rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, lanes_ok[i]),
                              .hip = hip};
            rw_result r;
            rw_refusal why;
            int params[RW_MAX_PARAMS] = {16};
            assert_int_equal(rw_apply_named("window_lanes", &ctx, params, &r, &why), HK_OK);
            assert_true(r.applicable);
            said_zh(r.description, NULL);
            rw_result_free(&r);
            if (hip)
                continue;
            assert_int_equal(rw_apply_named("window_warp", &ctx, params, &r, &why), HK_OK);
            said_zh(r.description, NULL);   /* adaptive_avg: the guard form, refused */
            rw_result_free(&r);
        }
    /* whole sentences: a description with two states, refusals whose construct is one
     * common word (said whole: a plain entry "sum" would say a variable so named) */
    static const struct {
        const char *kernel, *rewrite, *zh;
    } exact[] = {
        {"segment_argmin", "window_lanes",
         "核函数 segment_argmin：第 69 行循环的每个输出分得 8 个相邻 lane；1 维窗口（第 73 行，边界按线程计算）按扫描顺序拆分给这些 lane，它们的状态 `best`（最小值，相等时取最先出现者）、`cnt`（求和） 用 __shfl_xor_sync 合并：比较选择的结果完全一致（元素、索引、相等值、NaN、空窗口）；求和的加法顺序被重排（适用归约容差）；窗口之后的代码由 lane 0 执行。启动时网格沿 x 乘以 8"},
        {"last_max", "window_lanes",
         "window_lanes 不适用于核函数 last_max：比较（第 98 行）：`>=` 与 `m` 比较：只有严格的 `<` 或 `>` 会在相等的元素中保留第一个，合并才能复现这一点"},
        {"sum_from_out", "window_warp",
         "window_warp 不适用于核函数 sum_from_out：求和（第 137 行）：`s` 的初值不是字面量 0：每个 lane 都会加上这个初值"},
        {"nested_window", "window_warp",
         "window_warp 不适用于核函数 nested_window：窗口循环（第 195 行）：不是输出循环自身循环体中的语句（位于嵌套的语句块内）：线程束的每个 lane 都必须到达窗口"},
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, exact[i].kernel)};
        rw_result r;
        rw_refusal why;
        int params[RW_MAX_PARAMS] = {8};
        assert_int_equal(rw_apply_named(exact[i].rewrite, &ctx, params, &r, &why), HK_OK);
        said_zh(r.description, exact[i].zh);
        rw_result_free(&r);
    }
    static const char *const refused[] = {"last_max", "window_store", "fixed_window", "sum_from_out", "stop_early",
                                          "count_in_index", "helper_writes", "template_writes", "shadow_outer",
                                          "nested_window", "adaptive_avg"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        for (int w = 0; w < 2; w++) {
            rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, refused[i])};
            rw_result r;
            rw_refusal why;
            int params[RW_MAX_PARAMS] = {8};
            assert_int_equal(rw_apply_named(w ? "window_warp" : "window_lanes", &ctx, params, &r, &why), HK_OK);
            if (!r.applicable)
                said_zh(r.description, NULL);
            rw_result_free(&r);
        }
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

/* window_warp (the same kernels, the grid and block kept): box_max_pool (skipped boxes: the
 * `continue` before the window; 162 outputs, not a multiple of 32) and segment_argmin (13
 * segments in one warp) against their originals on blocks of 128, 96 and 36 (36: not whole
 * warps, the original code runs), three thread orders, bit for bit; and scaled_segment_max
 * (35 segments over two warps, a declaration of three names whose middle one's value is
 * `1 * *scale`: turned into an assignment it must keep both `*`) on blocks of 64, 32 and 40. Broken copies must
 * differ: the merge's tie rule reversed, and the owner not adopting the merged state. */
static const char warp_helpers[] =
    "static int bad_scaled = 0;\n"
    "static void scaled_case()\n"
    "{\n"
    "    const int lens[] = {5, 0, 40, 1, 33, 0, 7, 64, 2, 3, 0, 11, 9, 1, 70, 4, 6, 0, 31, 32, 2, 5, 8, 0, 13, 3, 1, 2, 44, 0, 6, 9, 17, 5, 3};\n"
    "    const int ns = sizeof lens / sizeof lens[0];\n"
    "    const unsigned blocks[] = {64, 32, 40};\n"
    "    for (int v = 0; v < 3; v++) {\n"
    "        emu::schedule = v;\n"
    "        emu::buf<int> offs(ns + 1), scale(1);\n"
    "        offs[0] = 0;\n"
    "        for (int s = 0; s < ns; s++) offs[s + 1] = offs[s] + lens[s];\n"
    "        scale[0] = v == 1 ? -2 : 3;\n"
    "        emu::buf<float> val(offs[ns] + 1), o(ns), c(ns);\n"
    "        val.fill_mod(v, 5);\n"
    "        emu::buf<int> oa(ns), ca(ns);\n"
    "        o.set(1); c.set(1); oa.set(2); ca.set(2);\n"
    "        emu::launch(dim3(1), dim3(64), 0, [&] { orig::scaled_segment_max(offs, scale, val, o, oa, ns); });\n"
    "        emu::launch(dim3(1), dim3(blocks[v]), 0, [&] { cand::scaled_segment_max(offs, scale, val, c, ca, ns); });\n"
    "        int f = emu::failures;\n"
    "        emu::expect(\"scaled_segment_max max\", o, c);\n"
    "        emu::expect(\"scaled_segment_max argmax\", oa, ca);\n"
    "        if (emu::failures != f) { bad_scaled++; printf(\"  (scaled: seed %d)\\n\", v); }\n"
    "    }\n"
    "}\n";
static const char warp_driver[] =
    "box_case(); seg_case(); scaled_case(); lerp_case();\n"
    "printf(\"window_warp: %d %d %d %d cases differ\\n\", bad_box, bad_seg, bad_scaled, bad_lerp);\n";
static const char warp_driver_broken[] =
    "box_case(); seg_case();\n"
    "printf(\"broken: %d %d cases differ\\n\", bad_box, bad_seg);\n"
    "emu::failures = bad_box > 0 && bad_seg > 0 ? 0 : 1;\n";

static char *warp_candidate(const char *src)
{
    char *cand = strdup(src);
    assert_non_null(cand);
    static const char *const ks[] = {"box_max_pool", "segment_argmin", "scaled_segment_max", "segment_lerp_mean",
                                     "segment_lerp_max"};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        int params[RW_MAX_PARAMS] = {0};
        char *next = emu_rewrite(cand, ks[i], "window_warp", params);
        assert_non_null(strstr(next, "hk: window_warp"));
        free(cand);
        cand = next;
    }
    return cand;
}

static void window_warp_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_window/window.cu");
    char helpers[sizeof helpers_fmt + sizeof warp_helpers + 16];
    snprintf(helpers, sizeof helpers, helpers_fmt, 1);
    strcat(helpers, warp_helpers);
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = warp_candidate(src);
    emu_batch_add_pair(&batch, "window_warp", src, cand, helpers, warp_driver, EMU_OK);
    char *broken = emu_replaced_all(cand, "hk_ww_xp < hk_ww_p", "hk_ww_xp > hk_ww_p");
    assert_true(strcmp(broken, cand) != 0);
    emu_batch_add_pair(&batch, "window_warp_ties", src, broken, helpers, warp_driver_broken, EMU_OK);
    free(broken);
    broken = emu_replaced_all(cand, "if (hk_ww_lane == hk_ww_o) {", "if (hk_ww_lane == hk_ww_o && 0) {");
    assert_true(strcmp(broken, cand) != 0);
    emu_batch_add_pair(&batch, "window_warp_adopt", src, broken, helpers, warp_driver_broken, EMU_OK);
    free(broken);
    /* the candidate compiles for the H100/H200 (queued: rwf_nvcc_queued) */
    rwf_nvcc_compiles(cand, "window_warp_cand");
    free(cand);
    free(src);
    emu_batch_run(&batch);
}

/* mmcv's carafe_naive forward (bench/wild/src, skipped where not extracted): its window calls
 * Loc2Index, a function of the file that only computes (a reader), and skips taps off the map
 * with `continue`; since session 38 window_lanes and window_warp take it. Rewritten with
 * window_lanes at G 8 and 4 (grid multiplied, blocks of 128, 96 and 36) and with window_warp
 * (the grid kept), and run against the original over channels 3, 6 and 17 (mask groups 1 and
 * 3), kernels 3 and 5, three thread orders: the sums within a float reduction's tolerance; with
 * lane 0's part of each window alone (no merge) it must differ. */
static const char carafe_helpers_fmt[] =
    "static const int G = %d;\n"
    "static const unsigned cblocks[] = {128, 96, 36};\n"
    "static int bad_carafe = 0;\n";
static const char carafe_driver[] =
    "for (int C : {3, 6, 17})\n"
    "for (int ks : {3, 5})\n"
    "for (int d = 0; d < 3; d++) {\n"
    "    const int N = 2, GR = C % 3 == 0 ? 3 : 1, H = 10, W = 6, S = 2, n = N * C * H * W;\n"
    "    emu::schedule = (C + d) % 3;\n"
    "    emu::buf<float> bd(N * C * (H / S) * (W / S)), bm(N * ks * ks * GR * H * W), o(n), c(n);\n"
    "    bd.fill(C + ks); bm.fill(ks + d); o.set(3); c.set(3);\n"
    "    emu::launch(dim3(2), dim3(32), 0, [&] { orig::carafe_naive_forward_cuda_kernel<float>(n, bd, bm, o, ks, GR, S, C, H, W); });\n"
    "    emu::launch(dim3(2 * G), dim3(cblocks[d]), 0, [&] { cand::carafe_naive_forward_cuda_kernel<float>(n, bd, bm, c, ks, GR, S, C, H, W); });\n"
    "    int f = emu::failures;\n"
    "    emu::expect(\"carafe\", o, c, 1e-5, 4.0);\n"
    "    if (emu::failures != f) { bad_carafe++; printf(\"  (carafe: C %d, ks %d, block %u)\\n\", C, ks, cblocks[d]); }\n"
    "}\n"
    "printf(\"carafe: %d cases differ\\n\", bad_carafe);\n";
static const char carafe_driver_broken[] =
    "{\n"
    "    const int C = 6, ks = 5, N = 1, GR = 3, H = 10, W = 6, S = 2, n = N * C * H * W;\n"
    "    emu::buf<float> bd(N * C * (H / S) * (W / S)), bm(N * ks * ks * GR * H * W), o(n), c(n);\n"
    "    bd.fill(7); bm.fill(2); o.set(3); c.set(3);\n"
    "    emu::launch(dim3(2), dim3(32), 0, [&] { orig::carafe_naive_forward_cuda_kernel<float>(n, bd, bm, o, ks, GR, S, C, H, W); });\n"
    "    emu::launch(dim3(2 * G), dim3(128), 0, [&] { cand::carafe_naive_forward_cuda_kernel<float>(n, bd, bm, c, ks, GR, S, C, H, W); });\n"
    "    emu::expect(\"carafe\", o, c, 1e-5, 4.0);\n"
    "    emu::failures = emu::failures ? 0 : 1;\n"
    "}\n";

static void window_wild_carafe(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    size_t n = 0;
    char *src = rwf_wild_text("mmcv_carafe_naive_fwd", &n);
    if (!src)
        skip();
    char helpers[sizeof carafe_helpers_fmt + 16], tag[40];
    static const int lanes[] = {8, 4, 0};
    for (size_t i = 0; i < sizeof lanes / sizeof lanes[0]; i++) {
        int params[RW_MAX_PARAMS] = {lanes[i]};
        const char *rw = lanes[i] ? "window_lanes" : "window_warp";
        char *cand = emu_rewrite(src, "carafe_naive_forward_cuda_kernel", rw, params);
        assert_non_null(strstr(cand, lanes[i] ? "hk: window_lanes" : "hk: window_warp"));
        /* the header's include guards, defined by the original's copy, would hide the rewrite's */
        char *open = emu_replaced_all(cand, "#ifndef ", "#if 1 // ");
        snprintf(helpers, sizeof helpers, carafe_helpers_fmt, lanes[i] ? lanes[i] : 1);
        snprintf(tag, sizeof tag, "carafe_%s%d", rw, lanes[i]);
        emu_run_pair(tmpdir, tag, src, open, helpers, carafe_driver, EMU_OK);
        if (lanes[i] == 8) {
            char *broken = emu_replaced_all(open, "if (hk_wg_np > 1) {", "if (hk_wg_np > 1 && 0) {");
            assert_true(strcmp(broken, open) != 0);
            emu_run_pair(tmpdir, "carafe_nomerge", src, broken, helpers, carafe_driver_broken, EMU_OK);
            free(broken);
        }
        free(open);
        free(cand);
    }
    free(src);
}

/* What window_warp refuses, with the construct and line: the guard form, a window inside a
 * nested block, an outer name read before the output's declaration of it (hoisting would
 * change its meaning), HIP's 64-lane wavefronts; and the recognizer's refusals it shares. */
static void window_warp_refusals(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_window/window.cu");
    fixture fx;
    load_text(src, &fx);
    static const struct {
        const char *kernel;
        bool hip;
        int line;
        const char *words;
    } cases[] = {
        {"adaptive_avg", false, 48, "not a grid-stride loop over outputs"},
        {"box_max_pool", true, 0, "32-lane warps"},
        {"last_max", false, 98, "only a strict `<` or `>` keeps the first element"},
        {"window_store", false, 114, "through `val` in the window"},
        {"shadow_outer", false, 180, "`base` is used before its declaration"},
        {"nested_window", false, 195, "not a statement of the output loop's own body"},
        {"box_max_pool", false, 0, NULL},
        {"segment_argmin", false, 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel),
                          .hip = cases[i].hip};
        rw_refusal why;
        assert_int_equal(rw_applies(rw_find("window_warp"), &ctx, NULL, &why), HK_OK);
        bool applies = why.line == 0 && why.reason[0] == '\0';
        if ((cases[i].words != NULL) == applies || (cases[i].line && why.line != cases[i].line) ||
            (cases[i].words && !strstr(why.reason, cases[i].words)))
            print_message("%s: line %d: %s\n", cases[i].kernel, why.line, why.reason);
        assert_true((cases[i].words != NULL) != applies);
        if (cases[i].line)
            assert_int_equal(why.line, cases[i].line);
        if (cases[i].words)
            assert_non_null(strstr(why.reason, cases[i].words));
    }
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Session 44: windows stepped by induction state. edge_max (border_align's shape: threadIdx.y
 * the edge, a switch giving each edge its step, two of them negative, `i <= pool`, val a trip's
 * temporary declared before the window, nearest-texel samples: half-texel steps tie, NaN texels
 * never taken) and line_sum (the guard form, steps trailing the read, x read after the window)
 * rewritten with window_lanes at G 2, 4, 8 and 32 and run against their originals: blocks
 * (32, 4), (24, 4) and (12, 4) (12: lane 0 alone at G 8 and 32), three thread orders, pools of
 * 10, 3, 1 and 0 (an empty window); the max and argmax bit for bit, the sum within a float
 * reduction's tolerance. Broken: every lane keeping the round's first trip's steps must differ. */
static const char stepped_helpers_fmt[] =
    "static const int G = %d;\n"
    "static int bad_edge = 0, bad_line = 0;\n"
    "static void edge_case()\n"
    "{\n"
    "    const unsigned bxs[] = {32, 24, 12};\n"
    "    const int pools[] = {10, 3, 1, 0};\n"
    "    const int n = 37, h = 9, w = 11;\n"
    "    for (int v = 0; v < 4; v++)\n"
    "        for (int d = 0; d < 3; d++) {\n"
    "            emu::schedule = (v + d) %% 3;\n"
    "            emu::buf<float> planes((size_t)4 * n * h * w), boxes(n * 4), o(n * 4), c(n * 4);\n"
    "            emu::buf<int> oa(n * 4), ca(n * 4);\n"
    "            planes.fill_mod(v + 3 * d, 3);\n"
    "            for (size_t i = 0; i < planes.size(); i++) if (i %% 29 == 3) planes[i] = NAN;\n"
    "            for (int b = 0; b < n; b++) {   /* corners on half texels, some off the map */\n"
    "                boxes[b * 4] = (float)((b * 7 + v) %% 24) * 0.5f - 1.f;\n"
    "                boxes[b * 4 + 1] = (float)((b * 5 + d) %% 20) * 0.5f - 0.5f;\n"
    "                boxes[b * 4 + 2] = (float)((b * 3 + 2 * v) %% 26) * 0.5f;\n"
    "                boxes[b * 4 + 3] = (float)((b * 11 + d) %% 22) * 0.5f;\n"
    "            }\n"
    "            o.set(7); c.set(7); oa.set(5); ca.set(5);\n"
    "            emu::launch(dim3(2), dim3(16, 4), 0, [&] { orig::edge_max<float>(planes, boxes, o, oa, n, h, w, pools[v]); });\n"
    "            emu::launch(dim3(2 * G), dim3(bxs[d], 4), 0, [&] { cand::edge_max<float>(planes, boxes, c, ca, n, h, w, pools[v]); });\n"
    "            int f = emu::failures;\n"
    "            emu::expect(\"edge_max max\", o, c);\n"
    "            emu::expect(\"edge_max argmax\", oa, ca);\n"
    "            if (emu::failures != f) { bad_edge++; printf(\"  (edge: pool %%d, block %%u)\\n\", pools[v], bxs[d]); }\n"
    "        }\n"
    "}\n"
    "static void line_case()\n"
    "{\n"
    "    const unsigned bxs[] = {128, 96, 36};\n"
    "    const int taps[] = {9, 2, 0};\n"
    "    const int n = 150, h = 6, w = 40;\n"
    "    for (int v = 0; v < 3; v++)\n"
    "        for (int d = 0; d < 3; d++) {\n"
    "            emu::schedule = (v + 2 * d) %% 3;\n"
    "            emu::buf<float> plane(h * w), starts(2 * n), o(n), c(n);\n"
    "            plane.fill(v + d);\n"
    "            starts.fill_mod(d, 30);\n"
    "            o.set(3); c.set(3);\n"
    "            emu::launch(dim3((n + 63) / 64), dim3(64), 0, [&] { orig::line_sum(plane, starts, o, n, h, w, taps[v], 0.75f, 0.3f); });\n"
    "            emu::launch(dim3((n * G + bxs[d] - 1) / bxs[d]), dim3(bxs[d]), 0, [&] { cand::line_sum(plane, starts, c, n, h, w, taps[v], 0.75f, 0.3f); });\n"
    "            int f = emu::failures;\n"
    "            emu::expect(\"line_sum\", o, c, 1e-5, 64.0);\n"
    "            if (emu::failures != f) { bad_line++; printf(\"  (line: taps %%d, block %%u)\\n\", taps[v], bxs[d]); }\n"
    "        }\n"
    "}\n";
static const char stepped_driver[] =
    "edge_case(); line_case();\n"
    "printf(\"stepped: %d %d cases differ\\n\", bad_edge, bad_line);\n";
static const char stepped_driver_broken[] =
    "edge_case();\n"
    "printf(\"broken steps: %d cases differ\\n\", bad_edge);\n"
    "emu::failures = bad_edge > 0 ? 0 : 1;\n";

static char *stepped_candidate(const char *src, int G)
{
    char *cand = strdup(src);
    assert_non_null(cand);
    static const char *const ks[] = {"edge_max", "line_sum"};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        int params[RW_MAX_PARAMS] = {G};
        char *next = emu_rewrite(cand, ks[i], "window_lanes", params);
        assert_non_null(strstr(next, "every lane runs every trip's steps in order"));
        free(cand);
        cand = next;
    }
    return cand;
}

static void window_stepped_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_window/window.cu");
    static const int lanes[] = {2, 4, 8, 32};
    char helpers[sizeof stepped_helpers_fmt + 16], tag[32];
    for (size_t i = 0; i < sizeof lanes / sizeof lanes[0]; i++) {
        char *cand = stepped_candidate(src, lanes[i]);
        snprintf(helpers, sizeof helpers, stepped_helpers_fmt, lanes[i]);
        snprintf(tag, sizeof tag, "stepped%d", lanes[i]);
        emu_batch_add_pair(&batch, tag, src, cand, helpers, stepped_driver, EMU_OK);
        if (lanes[i] == 4) {
            /* every lane keeping the round's first trip's steps: the wrong samples */
            char *broken = emu_replaced_all(cand, "if (hk_wg_j == hk_wg_lane) {", "if (hk_wg_j == 0) {");
            assert_true(strcmp(broken, cand) != 0);
            emu_batch_add_pair(&batch, "stepped_broken", src, broken, helpers, stepped_driver_broken, EMU_OK);
            free(broken);
            rwf_nvcc_compiles(cand, "window_stepped_cand");
        }
        free(cand);
    }
    free(src);
    emu_batch_run(&batch);
}

/* What a stepped window refuses, with the construct and line: a carried product, a step that
 * changes in the loop, a step between the body's statements, a stepped name that is static or
 * has another name (`&x`, a reference in any spelling), or is declared twice; window_warp refuses the stepped
 * edge_max; under a spec, a block along x that is not a multiple of G (lane 0 alone) and a
 * window with fewer trips than lanes. */
static void window_stepped_refusals(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_window/window.cu");
    fixture fx;
    load_text(src, &fx);
    static const struct {
        const char *kernel, *rewrite;
        int line;
        const char *words;
    } cases[] = {
        {"carried_product", "window_lanes", 411, "`wt` carries a value from one trip to the next"},
        {"growing_step", "window_lanes", 424, "`x` steps by a value that changes in the loop (it reads `xs`)"},
        {"step_between", "window_lanes", 442, "the step of `y` comes between the body's other statements"},
        {"edge_max", "window_warp", 373, "`x` steps from trip to trip"},
        /* session 44 review: a continue in a switch (it continues the loop), a bound reading a step */
        {"switch_continue", "window_lanes", 479, "would skip the trailing step of `x`"},
        {"bound_steps", "window_lanes", 497, "`x` carries a value from one trip to the next"},
        /* session 45: a stepped name that is not the thread's own or has another name (a
         * reference parameter's call and shared memory were refused already) */
        {"static_steps", "window_lanes", 512, "the stepped `x` is declared `static`"},
        {"pointed_steps", "window_lanes", 531, "the stepped `x` has another name"},
        {"ref_steps", "window_lanes", 547, "the stepped `x` has another name"},
        /* `const float *at = address_of(x)`: since session 46 the pointer's declaration refuses
         * first (it was the call before the window that may write) */
        {"passed_steps", "window_lanes", 566, "the stepped `x` initializes `at`, whose type is not a plain value"},
        {"shared_steps", "window_lanes", 581, "`__shared__`: a barrier"},
        {"ref_stepped", "window_lanes", 600, "the stepped `x` has another name"},
        /* session 45 review: a reference bound by braces, parentheses or a conditional; the
         * stepped name declared twice (the inner one a reference, static, plain) or a parameter */
        {"ref_brace", "window_lanes", 617, "the stepped `x` has another name"},
        {"ref_paren", "window_lanes", 631, "the stepped `x` has another name"},
        {"ref_cond", "window_lanes", 645, "the stepped `x` has another name"},
        {"ref_shadow", "window_lanes", 663, "the stepped `x` has another name"},
        {"static_shadow", "window_lanes", 677, "the stepped `x` is declared `static`"},
        {"plain_shadow", "window_lanes", 693, "the stepped `x` is declared more than once in the kernel"},
        {"param_shadow", "window_lanes", 706, "the stepped `x` is declared more than once in the kernel"},
        /* session 46: a reference through a type alias (bound to x, or x itself), a structure's
         * reference member, a template type (each applied at 18e2dd8a) */
        {"alias_ref", "window_lanes", 729, "the stepped `x` initializes `ahead`, whose type is not a plain value"},
        {"alias_stepped", "window_lanes", 743, "the stepped `x` has another name"},
        {"member_ref", "window_lanes", 757, "the stepped `x` initializes `box`, whose type is not a plain value"},
        {"template_ref", "window_lanes", 772, "the stepped `x` initializes `ahead`, whose type is not a plain value"},
        /* session 46: macros -- one binding a reference to x, one stepping x in a window
         * whose bounds are the thread's (both applied at 18e2dd8a) */
        {"macro_ref", "window_lanes", 792, "the stepped `x` is named in the text of the macro `HK_AHEAD_DECL`"},
        {"macro_step", "window_lanes", 810, "`HK_STEP_X`, a macro of the file whose text assigns or jumps, is used in the window"},
        /* a continue before the trailing step, spelled by a macro (applied at 18e2dd8a; the
         * same continue written out is refused) */
        {"macro_jump", "window_lanes", 825, "`HK_SKIP_TRIP`, a macro of the file whose text assigns or jumps"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel)};
        rw_refusal why;
        assert_int_equal(rw_applies(rw_find(cases[i].rewrite), &ctx, NULL, &why), HK_OK);
        if (why.line != cases[i].line || !strstr(why.reason, cases[i].words))
            print_message("%s: line %d: %s\n", cases[i].kernel, why.line, why.reason);
        assert_int_equal(why.line, cases[i].line);
        assert_non_null(strstr(why.reason, cases[i].words));
        rw_result r;
        int params[RW_MAX_PARAMS] = {8};
        assert_int_equal(rw_apply_named(cases[i].rewrite, &ctx, params, &r, &why), HK_OK);
        assert_false(r.applicable);
        said_zh(r.description, NULL);
        rw_result_free(&r);
    }
    /* what the stepped form says, in English and in zh-CN, on CUDA and HIP */
    for (int hip = 0; hip < 2; hip++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "edge_max"), .hip = hip};
        rw_result r;
        rw_refusal why;
        int params[RW_MAX_PARAMS] = {4};
        assert_int_equal(rw_apply_named("window_lanes", &ctx, params, &r, &why), HK_OK);
        assert_true(r.applicable);
        assert_non_null(strstr(r.description, "whose trips step `x`, `y`"));
        assert_non_null(strstr(r.text, hip ? "__shfl_xor(maxval, hk_wg_off, 4)" : "__shfl_xor_sync(hk_wg_mask, maxval"));
        assert_int_equal(r.grid_multiplier, 4);
        said_zh(r.description, NULL);
        rw_result_free(&r);
    }
    /* the one-wave rule counts the launch's y and z: segment_argmin's 2000 segments fit 270336
     * resident threads at G 8, not once a grid of 4 x 8 along y and z repeats them (window_warp,
     * one thread per output, still fits: 64000; at 16 x 16 neither does) */
    {
        static const char seg_yz[] =
            "{\"kernel\": \"segment_argmin\", \"source\": \"window.cu\", \"sizes\": [{\"S\": 2000}, {\"S\": 1001}],"
            " \"args\": [{\"name\": \"offs\", \"kind\": \"input\", \"dtype\": \"int\", \"count\": \"S + 1\"},"
            " {\"name\": \"val\", \"kind\": \"input\", \"dtype\": \"double\", \"count\": \"64\"},"
            " {\"name\": \"mins\", \"kind\": \"output\", \"dtype\": \"double\", \"count\": \"S\"},"
            " {\"name\": \"pos\", \"kind\": \"output\", \"dtype\": \"int64\", \"count\": \"S\"},"
            " {\"name\": \"count\", \"kind\": \"output\", \"dtype\": \"uint32\", \"count\": \"S\"},"
            " {\"name\": \"n_seg\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"S\"}],"
            " \"launch\": {\"grid\": [\"sm_count * 4\", %d, %d], \"block\": 128}}";
        static const struct {
            int gy, gz;
            const char *words, *warp_words;   /* window_lanes' and window_warp's refusals (NULL: applies) */
        } yz[] = {
            {1, 1, NULL, NULL},
            {4, 8, "the spec's launch gives 64000 outputs at its first size (2000 along x, times its 32 threads along y and z)",
             NULL},
            {16, 16, "gives 512000 outputs", "the spec's launch gives 512000 outputs at its first size (2000 along x, times its "
                                            "256 threads along y and z), more than the device's 132 SMs"},
        };
        for (size_t i = 0; i < sizeof yz / sizeof yz[0]; i++) {
            char text[2048];
            snprintf(text, sizeof text, seg_yz, yz[i].gy, yz[i].gz);
            spec *sp = NULL;
            spec_diags dg = {0};
            int prc = spec_parse(text, strlen(text), NULL, &sp, &dg);
            for (size_t d = 0; prc != HK_OK && d < dg.n; d++)
                print_message("yz %zu: spec: %s: %s\n", i, dg.items[d].path, dg.items[d].message);
            spec_diags_free(&dg);
            assert_int_equal(prc, HK_OK);
            rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "segment_argmin"),
                              .spec = sp, .sm_count = 132, .warps_per_sm = 64};
            for (int w = 0; w < 2; w++) {
                rw_refusal why;
                int p[RW_MAX_PARAMS] = {8};
                assert_int_equal(rw_applies(rw_find(w ? "window_warp" : "window_lanes"), &ctx, p, &why), HK_OK);
                bool applies = why.line == 0 && why.reason[0] == '\0';
                const char *words = w ? yz[i].warp_words : yz[i].words;
                if (applies != (words == NULL) || (words && !strstr(why.reason, words)))
                    print_message("yz %zu (%s): line %d: %s\n", i, w ? "warp" : "lanes", why.line, why.reason);
                assert_int_equal(applies, words == NULL);
                if (words) {
                    assert_non_null(strstr(why.reason, words));
                    said_zh(why.reason, NULL);
                }
            }
            spec_free(sp);
        }
    }
    /* under a spec: block (BX, 4), pool P; 37 outputs; no device (the one-wave rule does not
     * weigh a stepped window) */
    static const char fmt[] =
        "{\"kernel\": \"edge_max\", \"source\": \"window.cu\", \"template_args\": [\"float\"], \"sizes\": [{\"N\": 37}, {\"N\": 13}],"
        " \"args\": [{\"name\": \"planes\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"4 * N * 99\"},"
        " {\"name\": \"boxes\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"4 * N\"},"
        " {\"name\": \"out\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"4 * N\"},"
        " {\"name\": \"arg\", \"kind\": \"output\", \"dtype\": \"int\", \"count\": \"4 * N\"},"
        " {\"name\": \"n\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"N\"},"
        " {\"name\": \"h\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": 9},"
        " {\"name\": \"w\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": 11},"
        " {\"name\": \"pool\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": %d}],"
        " \"launch\": {\"grid\": \"4096\", \"block\": [%d, 4]}}";
    static const struct {
        int pool, bx, G;
        const char *words;   /* NULL: applies */
    } sc[] = {
        {10, 128, 8, NULL},
        {10, 128, 16, "the window has 10 trips at the spec's first size, fewer than the 16 lanes"},
        {10, 12, 8, "the spec's block has 12 threads along x, not a multiple of 8"},
        {10, 12, 4, NULL},
        {10, 12, 2, NULL},
        {1, 128, 2, "the window has 1 trips"},
    };
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, fmt, sc[i].pool, sc[i].bx);
        spec *sp = NULL;
        spec_diags dg = {0};
        int prc = spec_parse(text, strlen(text), NULL, &sp, &dg);
        for (size_t d = 0; prc != HK_OK && d < dg.n; d++)
            print_message("case %zu: spec: %s: %s\n", i, dg.items[d].path, dg.items[d].message);
        assert_int_equal(prc, HK_OK);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "edge_max"), .spec = sp,
                          .sm_count = 132, .warps_per_sm = 64};
        rw_result r;
        rw_refusal why;
        int params[RW_MAX_PARAMS] = {sc[i].G};
        assert_int_equal(rw_apply_named("window_lanes", &ctx, params, &r, &why), HK_OK);
        if (r.applicable != (sc[i].words == NULL) || (sc[i].words && !strstr(r.description, sc[i].words)))
            print_message("case %zu: %s\n", i, r.description);
        assert_int_equal(r.applicable, sc[i].words == NULL);
        if (sc[i].words)
            said_zh(r.description, NULL);
        else
            assert_int_equal(r.grid_multiplier, sc[i].G);
        rw_result_free(&r);
        spec_free(sp);
        spec_diags_free(&dg);
    }
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

/* mmcv's border_align forward itself (bench/wild/src, skipped where not extracted): the stepped
 * window (x += x_stride, y += y_stride; `i <= pool_size`; threadIdx.y the border) rewritten with
 * window_lanes at G 2, 4 and 8, run against the original (grid multiplied, blocks (32|24|12, 4)),
 * pools 10 and 3, boxes from a handful of half-pixel corners (bilinear samples tie), NaN texels:
 * the max and argmax bit for bit; every lane sampling at its round's first trip must differ. */
static const char border_helpers_fmt[] =
    "static const int G = %d;\n"
    "static int bad_border = 0;\n";
static const char border_driver[] =
    "const unsigned bxs[] = {32, 24, 12};\n"
    "const int pools[] = {10, 3};\n"
    "for (int v = 0; v < 2; v++)\n"
    "for (int d = 0; d < 3; d++) {\n"
    "    const int B = 1, C = 3, H = 7, W = 9, n = B * C * H * W;\n"
    "    emu::schedule = (v + d) % 3;\n"
    "    emu::buf<float> in((size_t)B * 4 * C * H * W), boxes(B * H * W * 4), o(n * 4), c(n * 4);\n"
    "    emu::buf<int> oa(n * 4), ca(n * 4);\n"
    "    in.fill_mod(v + 2 * d, 4);\n"
    "    for (size_t i = 0; i < in.size(); i++) if (i % 31 == 6) in[i] = NAN;\n"
    "    for (int b = 0; b < B * H * W; b++) {\n"
    "        boxes[b * 4] = (float)((b * 7 + v) % 18) * 0.5f;\n"
    "        boxes[b * 4 + 1] = (float)((b * 5 + d) % 14) * 0.5f;\n"
    "        boxes[b * 4 + 2] = (float)((b * 3 + 1) % 18) * 0.5f;\n"
    "        boxes[b * 4 + 3] = (float)((b * 11 + v) % 14) * 0.5f;\n"
    "    }\n"
    "    o.set(7); c.set(7); oa.set(5); ca.set(5);\n"
    "    emu::launch(dim3(2), dim3(16, 4), 0, [&] { orig::border_align_forward_cuda_kernel<float>(n, in, boxes, o, oa, C, H * W, H, W, pools[v]); });\n"
    "    emu::launch(dim3(2 * G), dim3(bxs[d], 4), 0, [&] { cand::border_align_forward_cuda_kernel<float>(n, in, boxes, c, ca, C, H * W, H, W, pools[v]); });\n"
    "    int f = emu::failures;\n"
    "    emu::expect(\"border max\", o, c);\n"
    "    emu::expect(\"border argmax\", oa, ca);\n"
    "    if (emu::failures != f) { bad_border++; printf(\"  (border: pool %d, block %u)\\n\", pools[v], bxs[d]); }\n"
    "}\n"
    "printf(\"border_align: %d cases differ\\n\", bad_border);\n";

static void window_wild_border(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    size_t n = 0;
    char *src = rwf_wild_text("mmcv_border_align_fwd", &n);
    if (!src)
        skip();
    char helpers[sizeof border_helpers_fmt + 16], tag[40];
    static const int lanes[] = {2, 4, 8};
    for (size_t i = 0; i < sizeof lanes / sizeof lanes[0]; i++) {
        int params[RW_MAX_PARAMS] = {lanes[i]};
        char *cand = emu_rewrite(src, "border_align_forward_cuda_kernel", "window_lanes", params);
        assert_non_null(strstr(cand, "every lane runs every trip's steps in order"));
        char *open = emu_replaced_all(cand, "#ifndef ", "#if 1 // ");
        snprintf(helpers, sizeof helpers, border_helpers_fmt, lanes[i]);
        snprintf(tag, sizeof tag, "border_lanes%d", lanes[i]);
        emu_run_pair(tmpdir, tag, src, open, helpers, border_driver, EMU_OK);
        if (lanes[i] == 4) {   /* every lane sampling at the round's first trip: must differ */
            char *broken = emu_replaced_all(open, "if (hk_wg_j == hk_wg_lane) {", "if (hk_wg_j == 0) {");
            char *drv = emu_replaced_all(border_driver, "printf(\"border_align: %d cases differ\\n\", bad_border);",
                                         "emu::failures = bad_border > 0 ? 0 : 1;");
            assert_true(strcmp(broken, open) != 0 && strcmp(drv, border_driver) != 0);
            emu_run_pair(tmpdir, "border_broken", src, broken, helpers, drv, EMU_OK);
            free(drv);
            free(broken);
        }
        free(open);
        free(cand);
    }
    free(src);
}

/* An inclusive window bound (`j <= last`, session 44): segment_max_incl under window_lanes at G 4
 * and 8 (blocks 128, 96, 36) and window_warp (blocks 64, 32, 40), against the original; segments
 * empty (last < first), of one element, and wider than 32 lanes; ties and NaN; bit for bit. */
static const char incl_helpers_fmt[] =
    "static const int G = %d;\n"
    "static int bad_incl = 0;\n";
static const char incl_driver[] =
    "const int lens[] = {3, 0, 1, 70, 0, 9, 33, 2, 64, 5, 17, 0, 40};\n"
    "const int ns = sizeof lens / sizeof lens[0];\n"
    "const unsigned bl[] = {128, 96, 36}, bw[] = {64, 32, 40};\n"
    "for (int v = 0; v < 3; v++) {\n"
    "    emu::schedule = v;\n"
    "    emu::buf<int> offs(ns + 1), oa(ns), ca(ns);\n"
    "    offs[0] = 0;\n"
    "    for (int q = 0; q < ns; q++) offs[q + 1] = offs[q] + lens[q];\n"
    "    emu::buf<float> val(offs[ns] + 1), o(ns), c(ns);\n"
    "    val.fill_mod(v, 4);\n"
    "    for (size_t i = 0; i < val.size(); i++) if (i % 11 == 2) val[i] = NAN;\n"
    "    o.set(2); c.set(2); oa.set(9); ca.set(9);\n"
    "    emu::launch(dim3(1), dim3(64), 0, [&] { orig::segment_max_incl(offs, val, o, oa, ns); });\n"
    "    emu::launch(dim3(G > 1 ? G : 1), dim3(G > 1 ? bl[v] : bw[v]), 0, [&] { cand::segment_max_incl(offs, val, c, ca, ns); });\n"
    "    int f = emu::failures;\n"
    "    emu::expect(\"segment_max_incl max\", o, c);\n"
    "    emu::expect(\"segment_max_incl at\", oa, ca);\n"
    "    if (emu::failures != f) { bad_incl++; printf(\"  (incl: seed %d)\\n\", v); }\n"
    "}\n"
    "printf(\"incl: %d cases differ\\n\", bad_incl);\n";

static void window_incl_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_window/window.cu");
    static const int lanes[] = {4, 8, 0};   /* 0: window_warp */
    char helpers[sizeof incl_helpers_fmt + 16], tag[32];
    for (size_t i = 0; i < sizeof lanes / sizeof lanes[0]; i++) {
        int params[RW_MAX_PARAMS] = {lanes[i]};
        char *cand = emu_rewrite(src, "segment_max_incl", lanes[i] ? "window_lanes" : "window_warp", params);
        assert_non_null(strstr(cand, "(long long)(last) + 1 - hk_w"));
        snprintf(helpers, sizeof helpers, incl_helpers_fmt, lanes[i] ? lanes[i] : 1);
        snprintf(tag, sizeof tag, "incl%d", lanes[i]);
        emu_batch_add_pair(&batch, tag, src, cand, helpers, incl_driver, EMU_OK);
        free(cand);
    }
    free(src);
    emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_text),
        cmocka_unit_test(window_refusals),
        cmocka_unit_test(window_device),
        cmocka_unit_test(window_nvcc),
        cmocka_unit_test(window_run),
        cmocka_unit_test(window_warp_refusals),
        cmocka_unit_test(window_said_zh),
        cmocka_unit_test(window_warp_run),
        cmocka_unit_test(window_wild_carafe),
        cmocka_unit_test(window_stepped_run),
        cmocka_unit_test(window_stepped_refusals),
        cmocka_unit_test(window_wild_border),
        cmocka_unit_test(window_incl_run),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
