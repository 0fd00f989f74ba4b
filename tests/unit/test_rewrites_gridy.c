/* grid_y_lanes run, not only compiled (issue 13): kernels whose grid's y index picks a channel
 * of point features laid out (points, channels) while x takes cells with lists of points
 * (tests/data/rewrite_gridy/gridy.cu, our own: a loop macro over cells with a max and its
 * argmax, and a guarded one-cell-per-thread mean with the channel in an unsigned temporary).
 * The rewrite gives each thread another original thread's coordinates through locals that
 * shadow blockIdx and threadIdx, so every output must be bit-identical to the original's in
 * the block emulator (emu_block.h), on the original's launch and on other grids and blocks,
 * under three thread orders; a mapping that skips coordinates must differ. The refusals
 * (x already contiguous, shared memory, a callee reading the builtins, HIP's coordinate calls,
 * no blockIdx.y)
 * are checked with their constructs and lines. */
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

static char *src; /* tests/data/rewrite_gridy/gridy.cu */

static int setup(void **state)
{
    (void)state;
    src = rwf_data_file("rewrite_gridy/gridy.cu");
    return src ? rwf_setup("rewrites-gridy") : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(src);
    return rwf_teardown();
}

/* C++ the drivers share: sizes (cells, channels, slots, points); lists hold a count then
 * point numbers, every entry in [0, min(slots, points)): counts below slots, points below
 * points. The original on blocks of 64 covering every cell once along x and a block row per
 * channel; the rewrite on that launch (schedule FORWARD), on 3 x C blocks of 32 (REVERSE) and
 * 2 x C blocks of 96 (SHUFFLED). cover: the candidate's grid must cover every cell (a kernel
 * without a grid-stride loop). */
static const char helpers[] =
    "struct sz { int cells, C, slots, P; };\n"
    "#define BOTH(...) [&](sz z, auto f, auto l, auto o, auto a) { orig::__VA_ARGS__; }, \\\n"
    "                  [&](sz z, auto f, auto l, auto o, auto a) { cand::__VA_ARGS__; }\n"
    "template <class F, class G>\n"
    "static void cell_case(const char *what, F ko, G kc, std::initializer_list<sz> sizes, bool cover)\n"
    "{\n"
    "    for (const sz &z : sizes)\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            emu::buf<float> feat((size_t)z.P * z.C), oo((size_t)z.cells * z.C), oc((size_t)z.cells * z.C);\n"
    "            emu::buf<int> lists((size_t)z.cells * z.slots), ao((size_t)z.cells * z.C), ac((size_t)z.cells * z.C);\n"
    "            feat.fill(1 + s);\n"
    "            lists.fill_mod(3 + s, z.slots < z.P ? z.slots : z.P);\n"
    "            oo.fill(5); oc.fill(5); ao.fill(7); ac.fill(7);\n"
    "            dim3 g((unsigned)((z.cells + 63) / 64), (unsigned)z.C), b(64);\n"
    "            emu::launch(g, b, 0, [&] { ko(z, feat.ptr(), lists.ptr(), oo.ptr(), ao.ptr()); });\n"
    "            unsigned c32 = cover ? (unsigned)((z.cells + 31) / 32) : 3, c96 = cover ? (unsigned)((z.cells + 95) / 96) : 2;\n"
    "            dim3 cg = s == 1 ? dim3(c32, z.C) : s == 2 ? dim3(c96, z.C) : g, cb = s == 1 ? dim3(32) : s == 2 ? dim3(96) : b;\n"
    "            emu::launch(cg, cb, 0, [&] { kc(z, feat.ptr(), lists.ptr(), oc.ptr(), ac.ptr()); });\n"
    "            bool ok = emu::expect(what, oo, oc) && emu::expect(what, ao, ac);\n"
    "            if (!ok)\n"
    "                printf(\"  (%d %d %d %d schedule %d)\\n\", z.cells, z.C, z.slots, z.P, s);\n"
    "        }\n"
    "}\n";

static emu_batch batch;
#define emulate(tag, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* ragged sizes, one channel, channels past a warp, one cell */
#define SIZES "{{70, 5, 6, 9}, {33, 1, 4, 3}, {100, 40, 8, 50}, {1, 3, 2, 2}}"
#define MAX_ARGS "cell_max(z.cells, z.C, z.slots, f, l, o, a)"
#define MEAN_ARGS "cell_mean(z.cells, z.C, z.slots, f, l, o)"

static void gridy_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(src, "cell_max", "grid_y_lanes", NULL);
    emulate("max", cand, "cell_case(\"max\", BOTH(" MAX_ARGS "), " SIZES ", false);", EMU_OK);
    free(cand);
    cand = emu_rewrite(src, "cell_mean", "grid_y_lanes", NULL);
    emulate("mean", cand, "cell_case(\"mean\", BOTH(" MEAN_ARGS "), " SIZES ", true);", EMU_OK);
    free(cand);
    emu_batch_run(&batch);
}

/* the block of x' halved: cells computed twice and never. (Dropping the division by gridDim.y
 * from threadIdx'.x alone is no test: f -> (f / (C * blockDim), f % blockDim, f % C) is a
 * bijection too when C and the block are coprime.) */
static void gridy_broken_fail(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(src, "cell_mean", "grid_y_lanes", NULL);
    char *broken = emu_replaced(cand, "(unsigned)(hk_gy_f / gridDim.y / blockDim.x)", "(unsigned)(hk_gy_f / gridDim.y / blockDim.x / 2u)");
    emulate("broken", broken, "cell_case(\"broken\", BOTH(" MEAN_ARGS "), {{70, 5, 6, 9}}, true);", EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

/* The weighing said in the description; the body kept, the builtins shadowed. */
static void gridy_text(void **state)
{
    (void)state;
    fixture fx;
    load_text(src, &fx);
    static const char *const kernels[] = {"cell_max", "cell_mean"};
    for (size_t i = 0; i < 2; i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kernels[i])};
        rw_result r;
        rw_refusal w;
        assert_int_equal(rw_apply_named("grid_y_lanes", &ctx, NULL, &r, &w), HK_OK);
        if (!r.applicable)
            print_message("%s: %s\n", kernels[i], w.reason);
        assert_true(r.applicable);
        /* the feature read in the point loop (16) and the stores (1 each) */
        assert_non_null(strstr(r.description, i == 0 ? "18 contiguous in blockIdx.y only, 0 in threadIdx.x only"
                                                     : "17 contiguous in blockIdx.y only, 0 in threadIdx.x only"));
        assert_non_null(strstr(r.text, "const uint3 blockIdx = hk_gy_b;"));
        assert_non_null(strstr(r.text, "float v = feat[list[k] * channels + ch];"));
        rw_result_free(&r);
        /* the same text for HIP builds (blockIdx and threadIdx are objects there too) */
        ctx.hip = true;
        assert_int_equal(rw_apply_named("grid_y_lanes", &ctx, NULL, &r, &w), HK_OK);
        assert_true(r.applicable);
        assert_non_null(strstr(r.text, "const uint3 threadIdx = hk_gy_t;"));
        rw_result_free(&r);
    }
    unload(&fx);
}

/* HIP's coordinate macros are calls the shadowing locals do not reach (line 4); a kernel
 * without blockIdx.y has nothing to move (its body at line 2). */
static const char k_hip[] =
    "__global__ void hip_cells(int cells, int channels, const float *feat, float *out)\n"
    "{\n"
    "    int c = blockIdx.y;\n"
    "    int cell = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;\n"
    "    if (cell < cells)\n"
    "        out[cell * channels + c] = feat[cell * channels + c];\n"
    "}\n";

/* a fence: the threads hand each other values through memory (line 5) */
static const char k_fence[] =
    "__global__ void fenced(int cells, int channels, const float *feat, float *out, volatile int *flag)\n"
    "{\n"
    "    int cell = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    out[cell * channels + blockIdx.y] = feat[cell * channels + blockIdx.y];\n"
    "    __threadfence();\n"
    "    if (cell == 0) *flag = 1;\n"
    "}\n";

static const char k_no_y[] =
    "__global__ void flat(int n, const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = x[i * 4];\n"
    "}\n";

static void refused_with(const char *text, const char *kname, bool hip, const char *construct, int line,
                         const char *words)
{
    fixture fx;
    load_text(text, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname), .hip = hip};
    rw_result r;
    rw_refusal w;
    assert_int_equal(rw_apply_named("grid_y_lanes", &ctx, NULL, &r, &w), HK_OK);
    if (r.applicable || !strstr(w.construct, construct) || w.line != line || !strstr(w.reason, words))
        print_message("%s: %s (%s, line %d)\n", kname, w.reason, w.construct, w.line);
    assert_false(r.applicable);
    assert_string_equal(w.construct, construct);
    assert_int_equal(w.line, line);
    assert_non_null(strstr(w.reason, words));
    rw_result_free(&r);
    unload(&fx);
}

static void gridy_refusals(void **state)
{
    (void)state;
    refused_with(k_hip, "hip_cells", true, "thread index", 4, "`hipBlockIdx_x` reads the thread's coordinates through a call");
    refused_with(k_no_y, "flat", false, "kernel body", 2, "does not read blockIdx.y");
    refused_with(k_fence, "fenced", false, "fence", 5, "`__threadfence`: threads hand each other values");
    static const rwf_refusal cases[] = {
        {"plane_scale", "access", 44, "adjacent threads already read adjacent elements"},
        {"cell_shared", "__shared__", 50, "shared memory"},
        {"cell_lane", "call", 65, "`my_lane` reads `threadIdx`"},
    };
    rwf_expect_refusals(src, "grid_y_lanes", cases, sizeof cases / sizeof cases[0]);
}

/* The emitted kernels compile for sm_90 (queued; rwf_nvcc_queued compiles them). */
static void gridy_nvcc(void **state)
{
    (void)state;
    static const char *const kernels[] = {"cell_max", "cell_mean"};
    for (size_t i = 0; i < 2; i++) {
        char *cand = emu_rewrite(src, kernels[i], "grid_y_lanes", NULL);
        char tag[64];
        snprintf(tag, sizeof tag, "gridy_%s", kernels[i]);
        rwf_nvcc_compiles(cand, tag);
        free(cand);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gridy_text),
        cmocka_unit_test(gridy_refusals),
        cmocka_unit_test(gridy_run),
        cmocka_unit_test(gridy_broken_fail),
        cmocka_unit_test(gridy_nvcc),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
