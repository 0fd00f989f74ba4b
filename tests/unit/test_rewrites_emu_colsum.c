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
 * column, columns the spec cannot give) are checked through the registry with their lines. */
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

static const char *const sums[] = {"col_sum_plain", "col_sum_bf16_acc", "col_sum_half"};

/* C++ before main(): the sizes, the candidate's blocks, and one case per kernel. */
static const char helpers[] =
    "static const int sizes[][2] = {{1, 1}, {7, 31}, {300, 33}, {45, 70}, {130, 129}};\n"
    "static const unsigned cblocks[] = {256, 96, 1024, 16};\n"
    "static int bad_cases = 0;\n"
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
    "            emu::launch(dim3((C + 31) / 32), dim3(cblocks[v]), cblocks[v] * 4, [&] { cand::col_sum_plain(in, c, R, C); });\n"
    "            int f = emu::failures;\n"
    "            emu::expect(\"col_sum_plain\", o, c, 1e-5, 10.0 * R);\n"
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
    "            emu::launch(dim3((C + 31) / 32), dim3(cblocks[v]), 0, [&] { cand::col_sum_bf16_acc(c, in, B, T, C); });\n"
    "            int f = emu::failures;\n"
    "            emu::expect(\"col_sum_bf16_acc\", o, c, 1e-5, 10.0 * B * T);\n"
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
    "            emu::launch(dim3((C + 31) / 32), dim3(cblocks[v]), cblocks[v] * 4, [&] { cand::col_sum_half(c, in, R, C); });\n"
    "            int f = emu::failures;\n"
    "            /* both round the same float total to half, which sums in another order: an ulp */\n"
    "            emu::expect(\"col_sum_half\", o, c, 2e-3, 2.5 * R);\n"
    "            if (emu::failures != f) { bad_cases++; if (!broken) printf(\"  (half: %u x %u, block %u)\\n\", R, C, cblocks[v]); }\n"
    "        }\n"
    "}\n";

static const char driver[] =
    "plain_case(false); bf16_case(false); half_case(false);\n"
    "printf(\"%d cases differ\\n\", bad_cases);\n";

/* The broken copy: every case must differ somewhere; failures then are expected, so the
 * program reports success only when each kernel differed. */
static const char driver_broken[] =
    "plain_case(true); int p = bad_cases; bf16_case(true); int b = bad_cases - p; half_case(true);\n"
    "int h = bad_cases - p - b;\n"
    "printf(\"broken: %d %d %d cases differ\\n\", p, b, h);\n"
    "emu::failures = p > 0 && b > 0 && h > 0 ? 0 : 1;\n";

/* The candidate: each kernel rewritten; broken: the slices after the first left out. */
static char *candidate(const char *src, bool broken)
{
    char *cand = strdup(src);
    assert_non_null(cand);
    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
        char *next = emu_rewrite(cand, sums[i], "coalesced_columns", NULL);
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

static void colsum_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_colsum/colsum.cu");
    char *cand = candidate(src, false);
    emu_run_pair(tmpdir, "colsum", src, cand, helpers, driver, EMU_OK);
    free(cand);
    cand = candidate(src, true);
    emu_run_pair(tmpdir, "colsum_broken", src, cand, helpers, driver_broken, EMU_OK);
    free(cand);
    free(src);
    src = rwf_data_file("rewrite_tree/colsum_coarsened.cu");
    cand = emu_rewrite(src, "colsum_acc", "coalesced_columns", NULL);
    assert_non_null(strstr(cand, "total[hk_col] = (float)((float)total[hk_col] + hk_total);"));
    emu_run_pair(tmpdir, "colsum_acc", src, cand, helpers_acc, driver_acc, EMU_OK);
    free(cand);
    free(src);
}

/* The candidate compiles for the H100/H200. */
static void colsum_nvcc(void **state)
{
    (void)state;
    if (access("/usr/local/cuda/bin/nvcc", X_OK) != 0) {
        print_message("skipped: no nvcc\n");
        skip();
    }
    char *src = rwf_data_file("rewrite_colsum/colsum.cu");
    char *cand = candidate(src, false);
    char path[700], cmd[2000];
    snprintf(path, sizeof path, "%s/colsum_cand.cu", tmpdir);
    rwf_write_file(path, cand);
    snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 -c '%s' -o '%s/colsum_cand.o' 2>&1", NVCC, path, tmpdir);
    assert_int_equal(system(cmd), 0);
    free(cand);
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
            assert_int_equal(r.grid_divisor, 32);
            assert_null(strstr(r.description, "exact only under"));
            rw_result_free(&r);
        }
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
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
