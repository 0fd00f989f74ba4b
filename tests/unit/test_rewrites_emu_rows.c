/* The row rewrites run, not only compiled (issue 13, "measure, don't trust"): one thread
 * per row become one warp per row (warp_rows, online_softmax, online_layernorm), each
 * kernel of tests/data/rewrite_rows and rewrite_pattern against its rewrite in the block
 * emulator (emu_block.h): ragged row counts and widths, several blocks, three thread
 * orders, the rewrite also on blocks of 80 (a partial warp) and a 3-block grid; every
 * output must match within a float tolerance. A broken shuffle must fail. (A file of its
 * own beside test_rewrites_emu.c: each emulated program compiles for a second or more.) */
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

#include "rw_fixture.h"
#include "emu_block.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-emu-rows");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* C++ the drivers share: a rows x cols matrix in a, outputs in b and r (rows x cols each,
 * pre-filled alike), the original on one thread per row (blocks of 64), the rewrite on
 * the original's launch (FORWARD), blocks of 80 (REVERSE) and a grid of 3 (SHUFFLED).
 * Tolerance rtol * max(|want|, scale): scale 1 for outputs of order 1 (a layernorm's
 * x - mean is 0 or 1e-7 by the order of the mean's sum), smaller for probabilities. */
static const char helpers[] =
    "#define BOTH(...) [&](auto a, auto b, auto r, long n) { orig::__VA_ARGS__; }, \\\n"
    "                  [&](auto a, auto b, auto r, long n) { cand::__VA_ARGS__; }\n"
    "#define ROWS int(n >> 16)\n"
    "#define COLS int(n & 65535)\n"
    "template <class T, class F, class G>\n"
    "static void rows_case(const char *what, F ko, G kc, double rtol, double scale = 1)\n"
    "{\n"
    "    static const int sizes[][2] = {{1, 1}, {5, 7}, {67, 64}, {40, 130}, {33, 3}};\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            const int rows = sizes[z][0], cols = sizes[z][1];\n"
    "            const size_t e = (size_t)rows * cols;\n"
    "            emu::buf<T> a(e), bo(e), bc(e), ro(e), rc(e);\n"
    "            a.fill(rows + cols + s);\n"
    "            bo.fill(5); bc.fill(5); ro.fill(6); rc.fill(6);\n"
    "            const long n = (long)rows * 65536 + cols;\n"
    "            dim3 g((rows + 63) / 64), blk(64);\n"
    "            emu::launch(g, blk, 0, [&] { ko(a.ptr(), bo.ptr(), ro.ptr(), n); });\n"
    "            dim3 cg = s == 2 ? dim3(3) : g, cb = s == 1 ? dim3(80) : blk;\n"
    "            emu::launch(cg, cb, 0, [&] { kc(a.ptr(), bc.ptr(), rc.ptr(), n); });\n"
    "            bool ok = emu::expect(what, bo, bc, rtol, scale);\n"
    "            ok = emu::expect(what, ro, rc, rtol, scale) && ok;\n"
    "            if (!ok)\n"
    "                printf(\"  (%d x %d schedule %d)\\n\", rows, cols, s);\n"
    "        }\n"
    "}\n";

/* Runs driver on src and cand (with this file's helpers); the emulation must give want. */
#define emulate(tag, src, cand, driver, want) emu_run_pair(tmpdir, tag, src, cand, helpers, driver, want)

/* warp_rows on the kernels of tests/data/rewrite_rows/rows_variants.cu */
static void warp_rows_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_rows/rows_variants.cu");
    static const struct {
        const char *kernel, *driver;
    } cases[] = {
        {"sum_block", "rows_case<double>(\"sum_block\", BOTH(sum_block(a, b, (unsigned)ROWS, (unsigned)COLS)), 1e-12);"},
        {"row_stats", "rows_case<float>(\"row_stats\", BOTH(row_stats(a, b, r, ROWS, COLS)), 0);"},
        {"scale_rows", "rows_case<float>(\"scale_rows\", BOTH(scale_rows(a, b, ROWS, COLS)), 1e-5);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(src, cases[i].kernel, "warp_rows", NULL);
        emulate(cases[i].kernel, src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    free(src);
}

/* online_softmax and online_layernorm on tests/data/rewrite_pattern/rows_variants.cu */
static void online_rows_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_pattern/rows_variants.cu");
    static const struct {
        const char *kernel, *rewrite, *driver;
    } cases[] = {
        {"softmax_direct", "online_softmax",
         "rows_case<float>(\"softmax_direct\", BOTH(softmax_direct(a, b, ROWS, COLS)), 1e-5, 1e-3);"},
        {"layernorm_plain", "online_layernorm",
         "rows_case<float>(\"layernorm_plain\", BOTH(layernorm_plain(a, b, ROWS, COLS)), 1e-4);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(src, cases[i].kernel, cases[i].rewrite, NULL);
        emulate(cases[i].kernel, src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    free(src);
}

/* The check can fail: the row sum's shuffles contributing nothing is caught. */
static void broken_row_shuffle_fails(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_rows/rows_variants.cu");
    char *cand = emu_rewrite(src, "sum_block", "warp_rows", NULL);
    char *broken = emu_replaced(cand, "__shfl_xor_sync(hk_mask, ", "0 * __shfl_xor_sync(hk_mask, ");
    emulate("broken_row_shuffle", src, broken,
            "rows_case<double>(\"sum_block\", BOTH(sum_block(a, b, (unsigned)ROWS, (unsigned)COLS)), 1e-12);",
            EMU_DIFFERS);
    free(broken);
    free(cand);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(warp_rows_run),
        cmocka_unit_test(online_rows_run),
        cmocka_unit_test(broken_row_shuffle_fails),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
