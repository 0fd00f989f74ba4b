/* shared_padding (server/rewrites/rewrite_smempad.c) on tests/data/rewrite_smempad/smempad.cu:
 * the emitted text of the work-efficient scan (1-D: every access s[e] at e + (e >> 5), the
 * size N + (N >> 5)) and of a tile read down its columns (2-D: one more column); the
 * refusals through the registry with their construct and line; and both rewrites run, not
 * only compiled: one emulated program (emu_block.h) runs each original and its rewrite on
 * partial and full blocks under three thread orders and compares the outputs bit for bit. A
 * broken padding (one access of the scan left at its old address) must differ. The two
 * rewritten kernels compile with nvcc -arch=sm_90 without a warning. */
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

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-smempad");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static void assert_has(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("missing `%s` in\n%s", want, text);
}

static void assert_lacks(const char *text, const char *unwanted)
{
    if (strstr(text, unwanted))
        fail_msg("unexpected `%s` in\n%s", unwanted, text);
}

static void scan_text(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_smempad/smempad.cu");
    char *t = emu_rewrite(src, "scan_sweeps", "shared_padding", NULL);
    assert_has(t, "__shared__ float temp[(2 * NB) + ((2 * NB) >> 5)];");
    assert_has(t, "temp[(2 * thid) + ((2 * thid) >> 5)] = (base + 2 * thid < n)");
    assert_has(t, "temp[(bi) + ((bi) >> 5)] += temp[(ai) + ((ai) >> 5)];");
    assert_has(t, "float t = temp[(ai) + ((ai) >> 5)];");
    assert_has(t, "temp[(2 * NB - 1) + ((2 * NB - 1) >> 5)] = 0;");
    assert_has(t, "out[base + 2 * thid + 1] = temp[(2 * thid + 1) + ((2 * thid + 1) >> 5)];");
    /* every access of temp padded: none left at its old index */
    assert_lacks(t, "temp[ai]");
    assert_lacks(t, "temp[bi]");
    assert_lacks(t, "temp[2 * thid]");
    /* the other kernels of the file as they were */
    assert_has(t, "__shared__ int tile[TILE][TILE];");
    free(t);
    t = emu_rewrite(src, "tile_columns", "shared_padding", NULL);
    assert_has(t, "__shared__ int tile[TILE][(TILE) + 1];");
    assert_has(t, "tile[threadIdx.y][threadIdx.x] = in[y * w + x];");
    assert_has(t, "out[y * h + x] = tile[threadIdx.x][threadIdx.y];");
    assert_has(t, "__shared__ float temp[2 * NB];");
    free(t);
    free(src);
}

typedef struct {
    const char *kernel, *construct;
    int line;
    const char *words; /* in the reason */
} refusal;

static void refusals(void **state)
{
    (void)state;
    static const refusal cases[] = {
        {"unit_stride", "__shared__ array", 63, "no access of a __shared__ array strides"},
        {"address_taken", "address", 73, "`&s[2 * threadIdx.x]`"},
        {"array_passed", "address", 85, "(`s`)"},
        {"dynamic_shared", "__shared__ array", 90, "dyn is extern or unsized"},
        {"side_effect", "index", 102, "`++`"},
        {"doubles", "__shared__ array", 107, "s holds double"},
        {"size_of", "sizeof", 118, "sizeof of s"},
        {"through_macro", "macro", 5, "mentions bad_macro_s"},
        /* m[threadIdx.x][threadIdx.y] only under threadIdx.x == 0: no stride across lanes */
        {"pinned_column", "__shared__ array", 133, "no access of a __shared__ array strides"},
    };
    char *src = rwf_data_file("rewrite_smempad/smempad.cu");
    fixture fx;
    load_text(src, &fx);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel)};
        rw_result r;
        rw_refusal why;
        assert_int_equal(rw_apply_named("shared_padding", &ctx, NULL, &r, &why), HK_OK);
        if (r.applicable)
            fail_msg("%s: applies", cases[i].kernel);
        if (strcmp(why.construct, cases[i].construct) != 0 || why.line != cases[i].line ||
            !strstr(why.reason, cases[i].words))
            fail_msg("%s: %s line %d: %s", cases[i].kernel, why.construct, why.line, why.reason);
        rw_result_free(&r);
    }
    unload(&fx);
    free(src);
}

/* Both kernels of the file, the original's and the rewrite's, on each size; outputs bit for
 * bit (rtol 0). The scan's blocks are NB = 128 threads over 256 elements. */
static const char driver[] =
    "static const int ns[] = {1, 200, 256, 1000, 1537};\n"
    "for (int z = 0; z < 5; z++)\n"
    "    for (int s = 0; s < 3; s++) {\n"
    "        const int n = ns[z];\n"
    "        emu::schedule = s;\n"
    "        emu::buf<float> in(n), o(n), c(n);\n"
    "        in.fill(z + 3 * s); o.set(7); c.set(7);\n"
    "        emu::launch(dim3((n + 255) / 256), dim3(128), 0, [&] { orig::scan_sweeps(in, o, n); });\n"
    "        emu::launch(dim3((n + 255) / 256), dim3(128), 0, [&] { cand::scan_sweeps(in, c, n); });\n"
    "        if (!emu::expect(\"scan_sweeps\", o, c, 0)) printf(\"  (n %d, schedule %d)\\n\", n, s);\n"
    "    }\n"
    "static const int wh[][2] = {{32, 32}, {45, 70}, {5, 3}};\n"
    "for (int z = 0; z < 3; z++) {\n"
    "    const int w = wh[z][0], h = wh[z][1];\n"
    "    emu::schedule = z;\n"
    "    emu::buf<int> in((size_t)w * h), o((size_t)w * h), c((size_t)w * h);\n"
    "    in.fill_mod(z, 1000); o.set(-1); c.set(-1);\n"
    "    dim3 grid((w + 31) / 32, (h + 31) / 32), block(32, 32);\n"
    "    emu::launch(grid, block, 0, [&] { orig::tile_columns(in, o, w, h); });\n"
    "    emu::launch(grid, block, 0, [&] { cand::tile_columns(in, c, w, h); });\n"
    "    if (!emu::expect(\"tile_columns\", o, c, 0)) printf(\"  (%d x %d)\\n\", w, h);\n"
    "}\n";

static void padded_kernels_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_smempad/smempad.cu");
    char *a = emu_rewrite(src, "scan_sweeps", "shared_padding", NULL);
    char *cand = emu_rewrite(a, "tile_columns", "shared_padding", NULL);
    rwf_nvcc_compiles_strict(cand, "smempad"); /* nvcc -arch=sm_90, no warning */
    emu_run_pair(tmpdir, "smempad", src, cand, NULL, driver, EMU_OK);
    /* broken: the down-sweep's read of temp[ai] left at its old address (the size and
     * every other access padded) */
    char *broken = emu_replaced(cand, "float t = temp[(ai) + ((ai) >> 5)];", "float t = temp[ai];");
    emu_run_pair(tmpdir, "smempad_broken", src, broken, NULL, driver, EMU_DIFFERS);
    free(broken);
    free(cand);
    free(a);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scan_text),
        cmocka_unit_test(refusals),
        cmocka_unit_test(padded_kernels_run),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
