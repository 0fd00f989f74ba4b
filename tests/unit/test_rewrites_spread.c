/* spread_lanes run, not only compiled (issue 13, session 48): one thread per row with an
 * inner loop of independent iterations (tests/data/rewrite_spread/spread.cu, our own:
 * covariance's triangle with its mirror, correlation's with the unit diagonal before the
 * loop and size_t offsets, pairwise distances over the whole row with a local array and a
 * `continue`). The rewrite spreads the loop over G lanes (grid x G, lane = global thread % G):
 * each iteration runs once, in its own order, so every output must be bit-identical to the
 * original's in the block emulator (emu_block.h), on ragged sizes, at G 2, 3, 8 and 32 and
 * blocks of 32, 64 and 96, under three thread orders. A lane step one long (iterations
 * skipped) and the diagonal stored by no lane must differ. The refusals (a
 * carried scalar, a statement after the loop, a diagonal store the loop meets, a store
 * without the loop's index, the output read, a break, the launch read in the loop, an impure
 * call, two outputs, a store through a local pointer, and the loop's index, the thread's index
 * or the bound shadowed in the loop) are checked with construct and line. */
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

static char *src; /* tests/data/rewrite_spread/spread.cu */

static int setup(void **state)
{
    (void)state;
    src = rwf_data_file("rewrite_spread/spread.cu");
    return src ? rwf_setup("rewrites-spread") : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(src);
    return rwf_teardown();
}

/* C++ the drivers share: for each (m, n) and each block, the original on ceil(m / block)
 * blocks and the candidate on G times that many (its lanes), the output prefilled with the
 * same poison in both (elements no thread writes must stay equal too). T the element type. */
static const char helpers[] =
    "struct sz { int m, n; };\n"
    "#define BOTH(...) [&](sz z, auto d, auto o) { orig::__VA_ARGS__; }, \\\n"
    "                  [&](sz z, auto d, auto o) { cand::__VA_ARGS__; }\n"
    "template <class T, class F, class G>\n"
    "static void row_case(const char *what, F ko, G kc, unsigned lanes, std::initializer_list<sz> sizes, int in_per_m)\n"
    "{\n"
    "    static const unsigned blocks[3] = {32, 64, 96};\n"
    "    for (const sz &z : sizes)\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            unsigned B = blocks[s];\n"
    "            emu::buf<T> d((size_t)z.n * z.m * in_per_m + 1), oo((size_t)z.m * z.m), oc((size_t)z.m * z.m);\n"
    "            d.fill(11 + s);\n"
    "            oo.fill(5); oc.fill(5);\n"
    "            unsigned g = (unsigned)((z.m + B - 1) / B);\n"
    "            emu::launch(dim3(g), dim3(B), 0, [&] { ko(z, d.ptr(), oo.ptr()); });\n"
    "            emu::launch(dim3(g * lanes), dim3(B), 0, [&] { kc(z, d.ptr(), oc.ptr()); });\n"
    "            if (!emu::expect(what, oo, oc))\n"
    "                printf(\"  (m %d n %d block %u lanes %u schedule %d)\\n\", z.m, z.n, B, lanes, s);\n"
    "        }\n"
    "}\n";

static emu_batch batch;
#define emulate(tag, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* ragged: under a warp, one, past a block, a prime past two blocks */
#define SIZES "{{37, 5}, {1, 3}, {70, 1}, {131, 4}}"

static void drive(const char *kname, const char *cand, int lanes, const char *tag, int want)
{
    char driver[512];
    if (!strcmp(kname, "covar"))
        snprintf(driver, sizeof driver, "row_case<double>(\"%s\", BOTH(covar(z.m, z.n, d, o)), %d, " SIZES ", 1);",
                 tag, lanes);
    else if (!strcmp(kname, "corr"))
        snprintf(driver, sizeof driver, "row_case<float>(\"%s\", BOTH(corr(z.m, z.n, d, o)), %d, " SIZES ", 1);",
                 tag, lanes);
    else
        snprintf(driver, sizeof driver, "row_case<float>(\"%s\", BOTH(pdist(z.m, z.n, d, o)), %d, " SIZES ", 1);",
                 tag, lanes);
    emulate(tag, cand, driver, want);
}

static void spread_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char *const kernels[] = {"covar", "corr", "pdist"};
    static const int lanes[] = {2, 3, 8, 32};
    for (size_t k = 0; k < 3; k++)
        for (size_t g = 0; g < 4; g++) {
            int p[RW_MAX_PARAMS] = {lanes[g]}; /* rw_params_resolve reads RW_MAX_PARAMS */
            char *cand = emu_rewrite(src, kernels[k], "spread_lanes", p);
            char tag[64];
            snprintf(tag, sizeof tag, "%s_g%d", kernels[k], lanes[g]);
            drive(kernels[k], cand, lanes[g], tag, EMU_OK);
            free(cand);
        }
    emu_batch_run(&batch);
}

/* broken on purpose: the lane step one long (lane l skips the iterations l + 8k + k of the
 * others: some never run), and the diagonal stored by no lane (lane 8 of 8). (A step one
 * short is no test: every iteration still runs, some twice, storing the same values.) */
static void spread_broken_fail(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    int p[RW_MAX_PARAMS] = {8};
    char *cand = emu_rewrite(src, "covar", "spread_lanes", p);
    char *broken = emu_replaced(cand, "j2 += 8", "j2 += 9");
    drive("covar", broken, 8, "step", EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(src, "corr", "spread_lanes", p);
    broken = emu_replaced(cand, "hk_sp_lane == 0u", "hk_sp_lane == 8u");
    drive("corr", broken, 8, "diag", EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

static void spread_text(void **state)
{
    (void)state;
    fixture fx;
    load_text(src, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "corr")};
    rw_result r;
    rw_refusal w;
    assert_int_equal(rw_apply_named("spread_lanes", &ctx, NULL, &r, &w), HK_OK);
    assert_true(r.applicable);
    assert_int_equal(r.grid_multiplier, 8);
    assert_int_equal(r.grid_axis, 0);
    assert_non_null(strstr(r.text, "if (hk_sp_lane == 0u) { corr[(size_t)j1 * m + j1] = 1.0f; }"));
    assert_non_null(strstr(r.text, "for (int j2 = (j1 + 1) + (int)hk_sp_lane; j2 < m; j2 += 8)"));
    assert_non_null(strstr(r.text, "acc += data[(size_t)i * m + j1] * data[(size_t)i * m + j2];"));
    rw_result_free(&r);
    unload(&fx);
}

static void spread_refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"carried", "carried value", 61, "`run` is written in the loop but declared outside its body"},
        {"after", "statement", 76, "a statement after the loop"},
        {"diag_met", "statement", 84, "the loop must start past IDX"},
        {"row_sum", "store", 95, "not shown disjoint"},
        {"reads_out", "output", 105, "`out` is written by the kernel and read"},
        {"breaks", "jump", 116, "`break` in the loop"},
        {"lane_read", "thread index", 127, "`threadIdx` outside the thread's index statement"},
        {"calls", "call", 139, "`noted` is not a pure math function"},
        {"two_outputs", "store", 150, "not shown disjoint"},
        {"row_pointer", "store", 161, "not shown disjoint"},
        /* a name of the proof shadowed in the loop: the element would not be the pair */
        {"sh_j", "loop index", 172, "`j2` is written in the loop"},
        {"sh_i", "thread index", 178, "`j1` is written in the loop"},
        {"sh_m", "guard", 189, "N a name the kernel never writes"},
    };
    rwf_expect_refusals(src, "spread_lanes", cases, sizeof cases / sizeof cases[0]);
}

/* The emitted kernels compile for sm_90 (queued; rwf_nvcc_queued compiles them). */
static void spread_nvcc(void **state)
{
    (void)state;
    static const char *const kernels[] = {"covar", "corr", "pdist"};
    for (size_t i = 0; i < 3; i++) {
        char *cand = emu_rewrite(src, kernels[i], "spread_lanes", NULL);
        char tag[64];
        snprintf(tag, sizeof tag, "spread_%s", kernels[i]);
        rwf_nvcc_compiles(cand, tag);
        free(cand);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spread_text),
        cmocka_unit_test(spread_refusals),
        cmocka_unit_test(spread_run),
        cmocka_unit_test(spread_broken_fail),
        cmocka_unit_test(spread_nvcc),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
