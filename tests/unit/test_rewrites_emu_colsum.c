/* coalesced_columns (issue 13) run, not only compiled: the three column sums of
 * tests/data/rewrite_colsum/colsum.cu (float `=`, bf16 into a float `+=` through a
 * temporary column and `col + C * i` over size_t rows with a fixed-size tree, half `= old +
 * sum` through a column pointer with unsigned counters) are rewritten into ONE candidate
 * text, and ONE emulated program (emu_block.h) runs each against its original: the
 * original on its own launch (one block per column, the power-of-two block its tree
 * needs), the candidate on ceil(C / 32) blocks of 256, 96 (a partial warp of slices), 1024
 * (32 slices) and 16 (fewer threads than columns), columns 1, 31, 33, 70 and 129 (partial
 * last blocks), rows 1 to 300, three thread orders; likewise block_tree's fixture of the class
 * (rewrite_tree/colsum_coarsened.cu: `total[c] = total[c] + S[0]`). A broken copy (the other slices' sums
 * left out) must differ. The candidate compiles with nvcc -arch=sm_90. The refusals (not a
 * plain sum, the block's other threads write, a spec whose grid is not one block per
 * column, columns the spec cannot give) are checked through the registry with their lines.
 * Session 36: the same kernels (and a double `+=`) at narrower strips and with rows split
 * over blocks (colsum_shapes_run, emulated), and the choice of both from a spec and 132 SMs
 * with the parameters' refusals (colsum_shapes_choice). */
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
    return rwf_setup("rewrites-emu-colsum");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char *const sums[] = {"col_sum_plain", "col_sum_bf16_acc", "col_sum_half", "col_sum_double_acc"};

/* The candidate's grid per kernel: the spec's grid (C) divided by 32 (32 columns a block). */
static const char grids_32[] =
    "#define GRID_PLAIN(C) (((C) + 31) / 32)\n#define GRID_BF16(C) (((C) + 31) / 32)\n"
    "#define GRID_HALF(C) (((C) + 31) / 32)\n#define GRID_DOUBLE(C) (((C) + 31) / 32)\n";

/* C++ before main() (after a GRID_* block): the sizes, the candidate's blocks, and one case
 * per kernel. */
static const char helpers_cases[] =
    "static const int sizes[][2] = {{1, 1}, {7, 31}, {300, 33}, {45, 70}, {130, 129}};\n"
    "static const unsigned cblocks[] = {256, 96, 1024, 16};\n"
    "static int bad_cases = 0;\n"
    "/* quiet (a broken copy's run): count a differing case without printing it, so the log\n"
    " * keeps the verdict */\n"
    "static bool quiet = false;\n"
    "static double dv(float x) { return x; }\n"
    "static double dv(double x) { return x; }\n"
    "static double dv(__half x) { return __half2float(x); }\n"
    "template <class T> static void check(const char *what, emu::buf<T> &o, emu::buf<T> &c, double rtol, double scale)\n"
    "{\n"
    "    if (!quiet) { emu::expect(what, o, c, rtol, scale); return; }\n"
    "    for (size_t i = 0; i < o.size(); i++) {\n"
    "        double a = dv(o[i]), b = dv(c[i]);\n"
    "        if (std::isnan(b) || fabs(a - b) > rtol * std::max(fabs(a), scale)) { emu::failures++; return; }\n"
    "    }\n"
    "}\n"
    "/* float = sum: the original on blocks of 128, the candidate on ceil(C / 32) blocks */\n"
    "static void plain_case(bool broken)\n"
    "{\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int v = 0; v < 4; v++) {\n"
    "            const int R = sizes[z][0], C = sizes[z][1];\n"
    "            emu::schedule = (z + v) % 3;\n"
    "            emu::buf<float> in((size_t)R * C), o(C), c(C);\n"
    "            in.fill(z + v); o.set(7); c.set(7);\n"
    "            emu::launch(dim3(C), dim3(128), 128 * 4, [&] { orig::col_sum_plain(in, o, R, C); });\n"
    "            emu::launch(dim3(GRID_PLAIN(C)), dim3(cblocks[v]), cblocks[v] * 4, [&] { cand::col_sum_plain(in, c, R, C); });\n"
    "            int f = emu::failures;\n"
    "            check(\"col_sum_plain\", o, c, 1e-5, 10.0 * R);\n"
    "            if (emu::failures != f) { bad_cases++; if (!broken) printf(\"  (plain: %d x %d, block %u)\\n\", R, C, cblocks[v]); }\n"
    "        }\n"
    "}\n"
    "/* bf16 rows into a float += : the original on its tree's 256 threads */\n"
    "static void bf16_case(bool broken)\n"
    "{\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int v = 0; v < 4; v++) {\n"
    "            const int B = 1 + z % 2, T = (sizes[z][0] + B - 1) / B, C = sizes[z][1];\n"
    "            emu::schedule = (z + v + 1) % 3;\n"
    "            emu::buf<float> src((size_t)B * T * C), o(C), c(C);\n"
    "            src.fill(3 * z + v);\n"
    "            emu::buf<__nv_bfloat16> in(src.size());\n"
    "            for (size_t i = 0; i < in.size(); i++) in[i] = __float2bfloat16(src[i]);\n"
    "            o.fill(9); c.fill(9);\n"
    "            emu::launch(dim3(C), dim3(256), 0, [&] { orig::col_sum_bf16_acc(o, in, B, T, C); });\n"
    "            emu::launch(dim3(GRID_BF16(C)), dim3(cblocks[v]), 0, [&] { cand::col_sum_bf16_acc(c, in, B, T, C); });\n"
    "            int f = emu::failures;\n"
    "            check(\"col_sum_bf16_acc\", o, c, 1e-5, 10.0 * B * T);\n"
    "            if (emu::failures != f) { bad_cases++; if (!broken) printf(\"  (bf16: %d x %d, block %u)\\n\", B * T, C, cblocks[v]); }\n"
    "        }\n"
    "}\n"
    "/* half = old + sum through a column pointer: the original on blocks of 64 */\n"
    "static void half_case(bool broken)\n"
    "{\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int v = 0; v < 4; v++) {\n"
    "            const unsigned R = sizes[z][0], C = sizes[z][1];\n"
    "            emu::schedule = (z + v + 2) % 3;\n"
    "            emu::buf<float> src((size_t)R * C), init(C);\n"
    "            src.fill(z + 5 * v); init.fill(4);\n"
    "            emu::buf<__half> in(src.size()), o(C), c(C);\n"
    "            for (size_t i = 0; i < in.size(); i++) in[i] = __float2half(src[i] * 0.25f);\n"
    "            for (unsigned i = 0; i < C; i++) o[i] = c[i] = __float2half(init[i]);\n"
    "            emu::launch(dim3(C), dim3(64), 64 * 4, [&] { orig::col_sum_half(o, in, R, C); });\n"
    "            emu::launch(dim3(GRID_HALF(C)), dim3(cblocks[v]), cblocks[v] * 4, [&] { cand::col_sum_half(c, in, R, C); });\n"
    "            int f = emu::failures;\n"
    "            /* both round the same float total to half, which sums in another order: an ulp */\n"
    "            check(\"col_sum_half\", o, c, 2e-3, 2.5 * R);\n"
    "            if (emu::failures != f) { bad_cases++; if (!broken) printf(\"  (half: %u x %u, block %u)\\n\", R, C, cblocks[v]); }\n"
    "        }\n"
    "}\n"
    "/* double += over long long sizes: the original on its tree's 128 threads */\n"
    "static void double_case(bool broken)\n"
    "{\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int v = 0; v < 4; v++) {\n"
    "            const long long R = sizes[z][0], C = sizes[z][1];\n"
    "            emu::schedule = (z + 2 * v) % 3;\n"
    "            emu::buf<double> in((size_t)(R * C)), o(C), c(C);\n"
    "            in.fill(7 * z + v); o.fill(2); c.fill(2);\n"
    "            emu::launch(dim3(C), dim3(128), 0, [&] { orig::col_sum_double_acc(o, in, R, C); });\n"
    "            emu::launch(dim3(GRID_DOUBLE(C)), dim3(cblocks[v]), 0, [&] { cand::col_sum_double_acc(c, in, R, C); });\n"
    "            int f = emu::failures;\n"
    "            check(\"col_sum_double_acc\", o, c, 1e-12, 10.0 * R);\n"
    "            if (emu::failures != f) { bad_cases++; if (!broken) printf(\"  (double: %lld x %lld, block %u)\\n\", R, C, cblocks[v]); }\n"
    "        }\n"
    "}\n";

static const char driver[] =
    "plain_case(false); bf16_case(false); half_case(false); double_case(false);\n"
    "printf(\"%d cases differ\\n\", bad_cases);\n";

/* The broken copy: every case must differ somewhere; failures then are expected, so the
 * program reports success only when each kernel differed. */
static const char driver_broken[] =
    "quiet = true; plain_case(true); int p = bad_cases; bf16_case(true); int b = bad_cases - p; half_case(true);\n"
    "int h = bad_cases - p - b; double_case(true); int d = bad_cases - p - b - h;\n"
    "printf(\"broken: %d %d %d %d cases differ\\n\", p, b, h, d);\n"
    "emu::failures = p > 0 && b > 0 && h > 0 && d > 0 ? 0 : 1;\n";

/* helpers_cases after grids (malloc'd). */
static char *helpers_with(const char *grids)
{
    char *h = malloc(strlen(grids) + strlen(helpers_cases) + 1);
    assert_non_null(h);
    strcpy(h, grids);
    strcat(h, helpers_cases);
    return h;
}

/* The candidate: each kernel rewritten (params: per kernel of sums, {cols, splits}, NULL:
 * the defaults); broken: the slices after the first left out. */
static char *candidate_with(const char *src, const int (*params)[3], bool broken)
{
    char *cand = strdup(src);
    assert_non_null(cand);
    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
        char *next = emu_rewrite(cand, sums[i], "coalesced_columns", params ? params[i] : NULL);
        assert_non_null(strstr(next, "hk rewrite: coalesced columns"));
        free(cand);
        cand = next;
    }
    if (!broken)
        return cand;
    char *b = emu_replaced_all(cand, "hk_g = 1; hk_g < hk_groups;", "hk_g = 1; hk_g < 1u;");
    free(cand);
    return b;
}

static char *candidate(const char *src, bool broken)
{
    return candidate_with(src, NULL, broken);
}

/* block_tree's fixture of the same class (session 31: a column and a width through
 * temporaries, the barrier first in a `h >= 1; h /= 2` tree, `total[c] = total[c] + S[0]`). */
static const char helpers_acc[] =
    "static const int sizes[][2] = {{1, 1}, {7, 31}, {300, 33}, {45, 70}, {130, 129}};\n"
    "static const unsigned cblocks[] = {256, 96, 1024, 16};\n"
    "static int bad_cases = 0;\n";
static const char driver_acc[] =
    "for (int z = 0; z < 5; z++)\n"
    "    for (int v = 0; v < 4; v++) {\n"
    "        const int R = sizes[z][0], C = sizes[z][1];\n"
    "        emu::schedule = (z + v) % 3;\n"
    "        emu::buf<float> m((size_t)R * C), o(C), c(C);\n"
    "        m.fill(z + 2 * v); o.fill(1); c.fill(1);\n"
    "        emu::launch(dim3(C), dim3(32), 32 * 4, [&] { orig::colsum_acc(o, m, R, C); });\n"
    "        emu::launch(dim3((C + 31) / 32), dim3(cblocks[v]), 0, [&] { cand::colsum_acc(c, m, R, C); });\n"
    "        int f = emu::failures;\n"
    "        emu::expect(\"colsum_acc\", o, c, 1e-5, 10.0 * R);\n"
    "        if (emu::failures != f) { bad_cases++; printf(\"  (colsum_acc: %d x %d, block %u)\\n\", R, C, cblocks[v]); }\n"
    "    }\n";

/* The running test's emulated programs, built as one (emu_batch.h) and checked at its end. */
static emu_batch batch;

static void colsum_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_colsum/colsum.cu");
    char *helpers = helpers_with(grids_32);
    char *cand = candidate(src, false);
    emu_batch_add_pair(&batch, "colsum", src, cand, helpers, driver, EMU_OK);
    free(cand);
    cand = candidate(src, true);
    emu_batch_add_pair(&batch, "colsum_broken", src, cand, helpers, driver_broken, EMU_OK);
    free(cand);
    free(helpers);
    free(src);
    src = rwf_data_file("rewrite_tree/colsum_coarsened.cu");
    cand = emu_rewrite(src, "colsum_acc", "coalesced_columns", NULL);
    assert_non_null(strstr(cand, "total[hk_col] = (float)((float)total[hk_col] + hk_total);"));
    emu_batch_add_pair(&batch, "colsum_acc", src, cand, helpers_acc, driver_acc, EMU_OK);
    free(cand);
    free(src);
    emu_batch_run(&batch);
}

/* Session 36's shapes per kernel of sums, {cols, splits}, and the grids they ask for:
 * strips at the sector widths with 2-4 splits (grids divided), and 16-32 splits on grids
 * multiplied by 2 and 4. */
static const int narrow[][3] = {{8, 1, 0}, {16, 4, 0}, {16, 1, 0}, {4, 2, 0}};
static const char grids_narrow[] =
    "#define GRID_PLAIN(C) (((C) + 7) / 8)\n#define GRID_BF16(C) (((C) + 3) / 4)\n"
    "#define GRID_HALF(C) (((C) + 15) / 16)\n#define GRID_DOUBLE(C) (((C) + 1) / 2)\n";
static const int split[][3] = {{16, 1, 0}, {16, 32, 0}, {32, 1, 0}, {4, 16, 0}};
static const char grids_split[] =
    "#define GRID_PLAIN(C) (((C) + 15) / 16)\n#define GRID_BF16(C) ((C) * 2)\n"
    "#define GRID_HALF(C) (((C) + 31) / 32)\n#define GRID_DOUBLE(C) ((C) * 4)\n";
/* The candidates (32 columns, and session 36's shapes) compile for the H100/H200: queued
 * (rw_fixture.h's rwf_nvcc_compiles: nvcc -arch=sm_90 -cubin, the three texts in one run,
 * each in a namespace of its own, each named when it fails alone), compiled by
 * rwf_nvcc_queued, the last test. */
static void colsum_nvcc(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_colsum/colsum.cu");
    static const int (*const shapes[])[3] = {NULL, narrow, split};   /* 32 columns, sector widths, splits */
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char *cand = candidate_with(src, shapes[i], false);
        char tag[32];
        snprintf(tag, sizeof tag, "colsum_cand%zu", i);
        rwf_nvcc_compiles(cand, tag);
        free(cand);
    }
    free(src);
}

/* What the emitted text keeps: the write form, the accumulator type, the sizes as the
 * kernel spells them, the divided grid; and what it says. */
static void colsum_text(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_colsum/colsum.cu");
    fixture fx;
    load_text(src, &fx);
    static const struct {
        const char *kernel, *store, *rows, *cols;
    } want[] = {
        {"col_sum_plain", "out[hk_col] = (float)(hk_total);", "(long long)(R)", "(long long)(C)"},
        {"col_sum_bf16_acc", "out[hk_col] = (float)((float)out[hk_col] + hk_total);", "(long long)(B*T)", "(long long)(C)"},
        {"col_sum_half", "out[hk_col] = (__half)((float)out[hk_col] + hk_total);", "(long long)(rows)",
         "(long long)(cols)"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, want[i].kernel)};
        rw_result r;
        rw_refusal why;
        assert_int_equal(rw_apply_named("coalesced_columns", &ctx, NULL, &r, &why), HK_OK);
        if (!r.applicable)
            print_message("%s: %s\n", want[i].kernel, r.description);
        assert_true(r.applicable);
        assert_non_null(strstr(r.text, want[i].store));
        assert_non_null(strstr(r.text, want[i].rows));
        assert_non_null(strstr(r.text, want[i].cols));
        assert_non_null(strstr(r.text, "__shared__ float hk_part[1024];"));
        assert_int_equal(r.grid_divisor, 32);
        assert_int_equal(r.grid_axis, 0);
        assert_false(r.keeps_launch);
        assert_non_null(strstr(r.description, "order of the additions changes"));
        assert_non_null(strstr(r.description, "exact only under one block per column"));   /* no spec */
        rw_result_free(&r);
    }
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Refusals name the construct's line: a mean, a maximum, the block's other threads writing;
 * and with a spec, a grid that is not one block per column. */
static void colsum_refusals(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_colsum/colsum.cu");
    fixture fx;
    load_text(src, &fx);
    static const struct {
        const char *kernel;
        int line;
        const char *words;
    } cases[] = {
        {"col_mean", 84, "not a plain sum"},
        {"col_max", 91, "a max, not a plain sum"},
        {"col_sum_skewed_tree", 136, "the tree reads part other than at threadIdx.x + s"},
        {"col_sum_all_write", 113, "a store to partials beside the column's total: the block's other threads write"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel)};
        rw_refusal why;
        assert_int_equal(rw_applies(rw_find("coalesced_columns"), &ctx, NULL, &why), HK_OK);
        if (why.line != cases[i].line || !strstr(why.reason, cases[i].words))
            print_message("%s: line %d: %s\n", cases[i].kernel, why.line, why.reason);
        assert_int_equal(why.line, cases[i].line);
        assert_non_null(strstr(why.reason, cases[i].words));
    }
    /* the spec's launch: one block per column at every size set applies; half as many
     * blocks, a 2-D block, or columns passed as a float (no integer column count) refuse at the store's line */
    static const char spec_fmt[] =
        "{\"kernel\": \"col_sum_plain\", \"source\": \"colsum.cu\", \"sizes\": [{\"R\": 8192, \"C\": 3072},"
        " {\"R\": 771, \"C\": 257}],"
        " \"args\": [{\"name\": \"in\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"R * C\"},"
        " {\"name\": \"out\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"C\"},"
        " {\"name\": \"R\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"R\"},"
        " {\"name\": \"C\", \"kind\": \"scalar\", \"dtype\": %s, \"value\": \"C\"}],"
        " \"launch\": {\"grid\": \"%s\", \"block\": %s, \"shmem\": \"block_x * 4\"}}";
    static const struct {
        const char *ctype, *grid, *block;
        int line;
        const char *words;
    } sc[] = {
        {"\"int\"", "C", "512", 0, NULL},
        {"\"int\"", "ceil_div(C, 2)", "512", 24, "not one block per column at size set 1"},
        {"\"int\"", "C", "[256, 2]", 24, "block 256x2x1"},
        {"\"float\"", "C", "512", 24, "the columns (`C`) cannot be read from the spec's arguments"},
    };
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, spec_fmt, sc[i].ctype, sc[i].grid, sc[i].block);
        spec *sp = NULL;
        spec_diags dg = {0};
        int prc = spec_parse(text, strlen(text), NULL, &sp, &dg);
        spec_diags_free(&dg);
        if (prc != HK_OK) {   /* a spec that does not parse is no case: the text above is wrong */
            print_message("spec %zu does not parse\n", i);
            fail();
        }
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "col_sum_plain"), .spec = sp};
        rw_refusal why;
        assert_int_equal(rw_applies(rw_find("coalesced_columns"), &ctx, NULL, &why), HK_OK);
        if (why.line != sc[i].line || (sc[i].words && !strstr(why.reason, sc[i].words)))
            print_message("spec case %zu: line %d: %s\n", i, why.line, why.reason);
        assert_int_equal(why.line, sc[i].line);
        if (sc[i].words)
            assert_non_null(strstr(why.reason, sc[i].words));
        if (!sc[i].line) {
            rw_result r;
            assert_int_equal(rw_apply_named("coalesced_columns", &ctx, NULL, &r, NULL), HK_OK);
            assert_true(r.applicable);
            /* 3072 floats at the first size set, 132 SMs assumed: 8 columns per block (384
             * strips fill a wave of 264 blocks of 1024; 32 would give 96) */
            assert_int_equal(r.grid_divisor, 8);
            assert_non_null(strstr(r.description, "8 columns per block (chosen; sector width 8)"));
            assert_null(strstr(r.description, "exact only under"));
            rw_result_free(&r);
        }
        spec_free(sp);
    }
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Session 36: narrower strips and rows split over blocks, emulated. The same four kernels
 * (float `=`, bf16 into a float `+=`, half `= old + sum`, double `+=`) rewritten with explicit
 * {cols, splits} per kernel, each candidate launched on the grid its result asks for: strips
 * at their sector width (8 floats, 16 bf16/halves, 4 doubles) and, where the store
 * accumulates, 2 to 32 row splits per strip added atomically (grids divided by 2, 4 or 8, or
 * multiplied by 2 or 4). Columns 1 (fewer than a strip), 31, 33, 70, 129 (ragged last strips),
 * rows 1 to 300 (a split of no rows), blocks 256, 96, 1024 and 16. A copy whose split blocks
 * cover too few rows (each split's range ending early) must differ on both split kernels. */
static const char driver_split_broken[] =
    "quiet = true; bf16_case(true); int b = bad_cases; double_case(true); int d = bad_cases - b;\n"
    "printf(\"broken split: %d %d cases differ\\n\", b, d);\n"
    "emu::failures = b > 0 && d > 0 ? 0 : 1;\n";

static void colsum_shapes_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_colsum/colsum.cu");
    /* the results ask for the grids the drivers launch */
    fixture fx;
    load_text(src, &fx);
    static const unsigned want_div[2][4] = {{8, 4, 16, 2}, {16, 0, 32, 0}}, want_mul[2][4] = {{0}, {0, 2, 0, 4}};
    for (int v = 0; v < 2; v++)
        for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
            rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, sums[i])};
            rw_result r;
            assert_int_equal(rw_apply_named("coalesced_columns", &ctx, v ? split[i] : narrow[i], &r, NULL), HK_OK);
            if (!r.applicable)
                print_message("%s: %s\n", sums[i], r.description);
            assert_true(r.applicable);
            assert_int_equal(r.grid_divisor, want_div[v][i]);
            assert_int_equal(r.grid_multiplier, want_mul[v][i]);
            assert_int_equal(strstr(r.text, "atomicAdd(&") != NULL, (v ? split[i][1] : narrow[i][1]) > 1);
            rw_result_free(&r);
        }
    unload(&fx);
    emu_batch_init(&batch, tmpdir, __func__);
    char *helpers = helpers_with(grids_narrow);
    char *cand = candidate_with(src, narrow, false);
    emu_batch_add_pair(&batch, "colsum_narrow", src, cand, helpers, driver, EMU_OK);
    free(cand);
    cand = candidate_with(src, narrow, true);
    emu_batch_add_pair(&batch, "colsum_narrow_broken", src, cand, helpers, driver_broken, EMU_OK);
    free(cand);
    free(helpers);
    helpers = helpers_with(grids_split);
    cand = candidate_with(src, split, false);
    emu_batch_add_pair(&batch, "colsum_split", src, cand, helpers, driver, EMU_OK);
    /* (the emulator runs blocks one after another: a non-atomic add would not show) */
    char *broken = emu_replaced_all(cand, "hk_r1 = hk_rows * (hk_split + 1) / hk_nsplit",
                                    "hk_r1 = hk_rows * (hk_split + 1) / (hk_nsplit + 1)");
    emu_batch_add_pair(&batch, "colsum_split_broken", src, broken, helpers, driver_split_broken, EMU_OK);
    free(broken);
    free(cand);
    free(helpers);
    free(src);
    emu_batch_run(&batch);
}

/* The choice with a spec and a device: the widest strip whose strips fill a wave of
 * 1024-thread blocks (132 SMs x 2048 threads: 264), at least the input's sector width, then
 * row splits where the store accumulates into an atomically addable type; and the refusals
 * of parameters outside those bounds. */
static void colsum_shapes_choice(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_colsum/colsum.cu");
    fixture fx;
    load_text(src, &fx);
    static const struct {
        const char *kernel, *args;
        long long C;
        int cols, splits;          /* the parameters */
        unsigned div, mul;         /* the result's grid */
        const char *words;         /* in the description, or the refusal when refused */
        bool refused;
    } cases[] = {
        /* float `=`: 3072 columns, 32 -> 16 -> 8 (384 strips >= 264); no splits for `=` */
        {"col_sum_plain",
         "[{\"name\": \"in\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"R * C\"},"
         " {\"name\": \"out\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"C\"},"
         " {\"name\": \"R\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"R\"},"
         " {\"name\": \"C\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"C\"}]",
         3072, 0, 0, 8, 0, "8 columns per block (chosen; sector width 8), strips: 384", false},
        /* 771 columns: the sector width (97 strips) and the store cannot split */
        {"col_sum_plain", NULL, 771, 0, 0, 8, 0, "rows not split: the store is `=`", false},
        {"col_sum_plain", NULL, 3072, 4, 0, 0, 0, "4 columns per block is narrower than a 32-byte sector", true},
        {"col_sum_plain", NULL, 3072, 0, 2, 0, 0, "rows split over 2 blocks per strip: the store is `=`", true},
        {"col_sum_plain", NULL, 3072, 32, 1, 32, 0, "32 columns per block (the parameter", false},
        /* bf16 into float `+=`: 32 columns (96 strips), 4 splits (384 blocks) before narrower strips */
        {"col_sum_bf16_acc",
         "[{\"name\": \"out\", \"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"C\"},"
         " {\"name\": \"in\", \"kind\": \"input\", \"dtype\": \"bfloat16\", \"count\": \"R * C\"},"
         " {\"name\": \"B\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"8\"},"
         " {\"name\": \"T\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"R / 8\"},"
         " {\"name\": \"C\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"C\"}]",
         3072, 0, 0, 8, 0, "rows split over 4 blocks per strip", false},
        {"col_sum_bf16_acc", NULL, 3072, 8, 0, 0, 0, "narrower than a 32-byte sector of in's elements (16 columns)",
         true},
        {"col_sum_bf16_acc", NULL, 3072, 16, 1, 16, 0, "16 columns per block (the parameter", false},
        /* fewer columns: 25 strips of 32, 16 splits (386 blocks) */
        {"col_sum_bf16_acc", NULL, 771, 0, 0, 2, 0, "rows split over 16 blocks per strip", false},
        /* half `= old + sum` into half: 16 columns, no splits (16-bit rounding) */
        {"col_sum_half",
         "[{\"name\": \"out\", \"kind\": \"inout\", \"dtype\": \"half\", \"count\": \"C\"},"
         " {\"name\": \"in\", \"kind\": \"input\", \"dtype\": \"half\", \"count\": \"R * C\"},"
         " {\"name\": \"rows\", \"kind\": \"scalar\", \"dtype\": \"uint32\", \"value\": \"R\"},"
         " {\"name\": \"cols\", \"kind\": \"scalar\", \"dtype\": \"uint32\", \"value\": \"C\"}]",
         3072, 0, 0, 16, 0, "rows not split: the output's type is not one atomicAdd adds", false},
        {"col_sum_half", NULL, 3072, 0, 4, 0, 0, "a 16-bit float would be rounded once per split", true},
        /* double `+=`: 32 wide at 771 columns (25 strips), 16 splits (386 blocks) */
        {"col_sum_double_acc",
         "[{\"name\": \"out\", \"kind\": \"inout\", \"dtype\": \"double\", \"count\": \"C\"},"
         " {\"name\": \"in\", \"kind\": \"input\", \"dtype\": \"double\", \"count\": \"R * C\"},"
         " {\"name\": \"R\", \"kind\": \"scalar\", \"dtype\": \"int64\", \"value\": \"R\"},"
         " {\"name\": \"C\", \"kind\": \"scalar\", \"dtype\": \"int64\", \"value\": \"C\"}]",
         771, 0, 0, 2, 0, "32 columns per block (chosen; sector width 4), strips: 25", false},
        {"col_sum_double_acc", NULL, 3072, 0, 0, 8, 0, "32 columns per block (chosen; sector width 4), strips: 96",
         false},
        /* 16 columns asked for: 2 splits reach the wave (384 blocks) */
        {"col_sum_double_acc", NULL, 3072, 16, 0, 8, 0, "rows split over 2 blocks per strip", false},
        /* one column (fewer than a strip): no width or split up to the rows' limit adds a block
         * (the grid is one column divided by W / S): the sector width, no splits */
        {"col_sum_double_acc", NULL, 1, 0, 0, 4, 0, "strips: 1 of the spec's 1 columns, blocks: 1", false},
        /* splits asked for: 8 per strip of 4 doubles, the grid multiplied by 2 */
        {"col_sum_double_acc", NULL, 1, 0, 8, 0, 2, "rows split over 8 blocks per strip", false},
    };
    const char *args = NULL;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].args)
            args = cases[i].args;
        char text[4096];
        snprintf(text, sizeof text,
                 "{\"kernel\": \"%s\", \"source\": \"colsum.cu\", \"sizes\": [{\"R\": 8192, \"C\": %lld}, {\"R\": 300, \"C\": 70}],"
                 " \"args\": %s, \"launch\": {\"grid\": \"C\", \"block\": 256}}",
                 cases[i].kernel, cases[i].C, args);
        spec *sp = NULL;
        spec_diags dg = {0};
        int prc = spec_parse(text, strlen(text), NULL, &sp, &dg);
        if (prc != HK_OK) {
            print_message("spec %zu does not parse: %s\n", i, dg.n ? dg.items[0].message : "");
            spec_diags_free(&dg);
            fail();
        }
        spec_diags_free(&dg);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel),
                          .spec = sp, .sm_count = 132, .warps_per_sm = 64};
        int params[3] = {cases[i].cols, cases[i].splits, 0};
        rw_result r;
        rw_refusal why;
        assert_int_equal(rw_apply_named("coalesced_columns", &ctx, params, &r, &why), HK_OK);
        if (r.applicable == cases[i].refused || !strstr(r.description, cases[i].words))
            print_message("case %zu (%s): %s\n", i, cases[i].kernel, r.description);
        assert_int_equal(r.applicable, !cases[i].refused);
        assert_non_null(strstr(r.description, cases[i].words));
        if (r.applicable) {
            assert_int_equal(r.grid_divisor, cases[i].div);
            assert_int_equal(r.grid_multiplier, cases[i].mul);
            assert_int_equal(r.grid_axis, 0);
            assert_int_equal(strstr(r.text, "atomicAdd(&") != NULL, strstr(r.description, "rows split") != NULL);
        } else {
            assert_int_equal(why.line, cases[i].kernel[8] == 'b' ? 46 : cases[i].kernel[8] == 'h' ? 66 : 24);
        }
        rw_result_free(&r);
        spec_free(sp);
    }
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(colsum_text),
        cmocka_unit_test(colsum_refusals),
        cmocka_unit_test(colsum_nvcc),
        cmocka_unit_test(colsum_run),
        cmocka_unit_test(colsum_shapes_choice),
        cmocka_unit_test(colsum_shapes_run),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
