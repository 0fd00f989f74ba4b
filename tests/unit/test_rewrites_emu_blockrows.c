/* warp_rows' block per row (row_threads > 32, issue 13) run, not only compiled: every
 * kernel of tests/data/rewrite_rows/blockrows.cu (llm.c's softmax_forward_kernel1 as llm.c
 * writes it, four reductions after one loop, integer reductions with a thread-0 read-back)
 * is rewritten with another row_threads (64 ... 1024) into ONE candidate text, and ONE
 * emulated program (emu_block.h) runs every kernel against its original: ragged rows (1,
 * 7, 33, 1027 and 3000 columns: rows starting at every 16-byte residue, so the float4
 * loops' peeled columns, vectors and tails all run), blocks of 128, 80 (a partial last
 * warp), 1024 (32 warps: every slot) and 32 (one warp; the input then one float off the
 * output's residue: the scalar loops), grids of one block per row, 3 (rows grid-strided)
 * and 1, three thread orders. Two copies of a double sum are broken after the rewrite (the
 * barrier before the slots are read removed; the fold of the other warps' slots skipped)
 * and the same program checks that both differ from the original. The candidate also
 * compiles with nvcc -arch=sm_90. The refusals that read the spec and the device (rows at
 * least the resident warps; a column loop shorter than row_threads) are checked through
 * the registry. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_rows.h"
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
    return rwf_setup("rewrites-emu-blockrows");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* The line of rows_of_product's bounds check in blockrows.cu. */
#define PROD_GUARD_LINE 130

/* The kernels of blockrows.cu and the row_threads each is rewritten with. */
static const struct {
    const char *kernel;
    int row_threads;
} kernels[] = {
    {"soft_llmc", 256}, {"soft_moved", 128}, {"row_moments", 128}, {"int_rows", 1024}, {"sum_nobar", 64}, {"sum_ownwarp", 512},
};

/* C++ before main(): one case runner for all kernels (same signature) with a comparison
 * that counts instead of failing, so that a broken copy's difference can be required. */
static const char helpers[] =
    "static const int sizes[][2] = {{1, 1}, {5, 7}, {3, 1027}, {2, 3000}, {40, 130}, {9, 33}};\n"
    "static const unsigned blocks[] = {128, 80, 1024, 32};\n"
    "/* elements of got outside rtol * max(|want|, scale) of want (rtol 0: equal); NaN never passes */\n"
    "static size_t differ(const char *what, emu::buf<float> &want, emu::buf<float> &got, double rtol, double scale,\n"
    "                     bool quiet)\n"
    "{\n"
    "    size_t bad = 0;\n"
    "    for (size_t i = 0; i < want.size(); i++) {\n"
    "        double a = want[i], b = got[i];\n"
    "        bool ok = !std::isnan(a) && !std::isnan(b) && (a == b || fabs(a - b) <= rtol * std::max(fabs(a), scale));\n"
    "        if (!ok && bad++ < 3 && !quiet)\n"
    "            printf(\"differs: %s[%zu]: want %.9g, got %.9g\\n\", what, i, a, b);\n"
    "    }\n"
    "    return bad;\n"
    "}\n"
    "/* Every size, block and grid, three orders; the differences of both outputs (dst, stats),\n"
    "   summed. must_differ: a broken copy, whose difference is required somewhere. */\n"
    "template <class F, class G>\n"
    "static void block_case(const char *what, F ko, G kc, double rtol, double scale, bool must_differ = false)\n"
    "{\n"
    "    size_t total = 0;\n"
    "    for (int z = 0; z < 6; z++)\n"
    "        for (int v = 0; v < 4; v++) {\n"
    "            const int rows = sizes[z][0], cols = sizes[z][1], s = (z + v) % 3;\n"
    "            emu::schedule = s;\n"
    "            const size_t e = (size_t)rows * cols;\n"
    "            emu::buf<float> a0(e + 1), bo(e), bc(e), ro(rows), rc(rows);\n"
    "            a0.fill(rows + cols + v);\n"
    "            /* block 32: the input one float off the output's 16-byte residue (no float4) */\n"
    "            float *a = a0.ptr() + (v == 3);\n"
    "            bo.fill(5); bc.fill(5); ro.fill(6); rc.fill(6);\n"
    "            emu::launch(dim3((rows + 63) / 64), dim3(64), 0, [&] { ko(a, bo.ptr(), ro.ptr(), rows, cols); });\n"
    "            dim3 g = v == 1 ? dim3(3) : v == 2 ? dim3(1) : dim3(rows);\n"
    "            emu::launch(g, dim3(blocks[v]), 0, [&] { kc(a, bc.ptr(), rc.ptr(), rows, cols); });\n"
    "            size_t bad = differ(what, bo, bc, rtol, scale, must_differ) + differ(what, ro, rc, rtol, scale, must_differ);\n"
    "            if (bad && !must_differ)\n"
    "                printf(\"  (%s: %d x %d, block %u, grid %u, schedule %d)\\n\", what, rows, cols, blocks[v], g.x, s);\n"
    "            total += bad;\n"
    "        }\n"
    "    if (must_differ ? total == 0 : total != 0)\n"
    "        emu::failures++;\n"
    "    printf(\"%s: %zu elements differ%s\\n\", what, total, must_differ ? \" (a broken copy: must be > 0)\" : \"\");\n"
    "}\n"
    "#define BOTH(k) [&](float *a, float *b, float *r, int nr, int nc) { orig::k(a, b, r, nr, nc); }, \\\n"
    "                [&](float *a, float *b, float *r, int nr, int nc) { cand::k(a, b, r, nr, nc); }\n";

/* Probabilities within 1e-5 relative at a scale of 1e-4; sums of up to 3000 values in
 * [-10, 10) reassociated: 1e-5 of a scale of 1e3 for the moments; integers exact. */
static const char driver[] =
    "block_case(\"soft_llmc\", BOTH(soft_llmc), 1e-5, 1e-4);\n"
    "block_case(\"soft_moved\", BOTH(soft_moved), 1e-5, 1e-4);\n"
    "block_case(\"row_moments\", BOTH(row_moments), 1e-5, 1e3);\n"
    "block_case(\"int_rows\", BOTH(int_rows), 0, 1);\n"
    "block_case(\"sum_nobar\", BOTH(sum_nobar), 1e-9, 1e3, true);\n"
    "block_case(\"sum_ownwarp\", BOTH(sum_ownwarp), 1e-9, 1e3, true);\n";

/* text (malloc'd) with the first `from` after the first `after` replaced by to. */
static char *replaced_after(const char *text, const char *after, const char *from, const char *to)
{
    const char *a = strstr(text, after);
    assert_non_null(a);
    const char *p = strstr(a, from);
    assert_non_null(p);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *t = malloc(n);
    assert_non_null(t);
    snprintf(t, n, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
    return t;
}

/* The whole candidate: every kernel rewritten with its row_threads, then the two copies broken. */
static char *candidate(const char *src, bool broken)
{
    char *cand = strdup(src);
    assert_non_null(cand);
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        int params[RW_MAX_PARAMS] = {kernels[i].row_threads};
        char *next = emu_rewrite(cand, kernels[i].kernel, "warp_rows", params);
        assert_non_null(strstr(next, "one block per row"));
        free(cand);
        cand = next;
    }
    if (!broken)
        return cand;
    char *b1 = replaced_after(cand, "void sum_nobar", "        __syncthreads();\n        s = ", "        s = ");
    char *b2 = replaced_after(b1, "void sum_ownwarp", "hk_w < hk_nw", "hk_w < 1u");
    free(cand);
    free(b1);
    return b2;
}

static void block_rows_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_rows/blockrows.cu");
    char *cand = candidate(src, true);
    emu_run_pair(tmpdir, "blockrows", src, cand, helpers, driver, EMU_OK);
    free(cand);
    free(src);
}

/* The candidate (unbroken) compiles for the H200. */
static void block_rows_nvcc(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_rows/blockrows.cu");
    char *cand = candidate(src, false);
    /* queued (rw_fixture.h: nvcc -arch=sm_90 -cubin, device code only, the front end still
     * checking the host code), compiled by rwf_nvcc_queued, the last test */
    rwf_nvcc_compiles(cand, "blockrows_cand");
    free(cand);
    free(src);
}

/* row_threads 32 is the warp form, byte for byte; values outside the set are refused. */
static void row_threads_param(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_rows/blockrows.cu");
    fixture fx;
    load_text(src, &fx);
    size_t k = kernel(&fx, "soft_llmc");
    rw_result a, b;
    assert_int_equal(rw_warp_rows(fx.text, fx.len, fx.m, k, &a), HK_OK);
    assert_int_equal(rw_block_rows(fx.text, fx.len, fx.m, k, 32, &b), HK_OK);
    assert_true(a.applicable && b.applicable);
    assert_string_equal(a.text, b.text);
    rw_result_free(&b);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = k};
    int p32[RW_MAX_PARAMS] = {32}, p0[RW_MAX_PARAMS] = {0}, p96[RW_MAX_PARAMS] = {96};
    assert_int_equal(rw_apply_named("warp_rows", &ctx, p32, &b, NULL), HK_OK);
    assert_string_equal(a.text, b.text);
    rw_result_free(&b);
    assert_int_equal(rw_apply_named("warp_rows", &ctx, p0, &b, NULL), HK_OK);   /* default: 32 */
    assert_string_equal(a.text, b.text);
    rw_result_free(&b);
    rw_result_free(&a);
    assert_int_equal(rw_apply_named("warp_rows", &ctx, p96, &b, NULL), HK_EINVAL);
    rw_result_free(&b);
    assert_int_equal(rw_block_rows(fx.text, fx.len, fx.m, k, 48, &b), HK_EINVAL);
    /* the block form: one shared slot row per reduction of the loop with the most */
    assert_int_equal(rw_block_rows(fx.text, fx.len, fx.m, kernel(&fx, "row_moments"), 256, &b), HK_OK);
    assert_true(b.applicable);
    assert_non_null(strstr(b.text, "__shared__ unsigned long long hk_slot[4][32];"));
    assert_non_null(strstr(b.description, "4 block reductions"));
    rw_result_free(&b);
    /* llm.c's store then divide in place: the block form keeps the exponential in a
     * register and the divide recomputes it (the warp form keeps the store); where the
     * maximum moves between them the store stays */
    assert_int_equal(rw_block_rows(fx.text, fx.len, fx.m, k, 256, &b), HK_OK);
    assert_true(b.applicable);
    assert_non_null(strstr(b.text, "const float hk_elided = (float)(expf(inp_row[j] - maxval));"));
    assert_non_null(strstr(b.text, "out_row[j] = ((float)(expf(inp_row[j] - maxval))) / ((float)sum);"));
    assert_null(strstr(b.text, "out_row[j] = expf("));
    /* the float4 loops peel up to the first base's 16-byte boundary (the emulator's CPU loads
     * any address, so the alignment itself is checked here, on the text): the bases need
     * the same residue, hk_pre is the columns to the boundary, the vectors start there */
    assert_non_null(strstr(b.text, "const unsigned long long hk_r1 = reinterpret_cast<unsigned long long>(inp_row);"));
    assert_non_null(strstr(b.text, "int hk_pre = (int)(((16ull - (hk_r1 & 15ull)) & 15ull) >> 2);"));
    assert_non_null(strstr(b.text, "reinterpret_cast<const float4 *>((inp_row) + hk_pre)[hk_c4]"));
    assert_non_null(strstr(b.text, "((reinterpret_cast<unsigned long long>(out_row) ^ hk_r3) & 15ull)"));
    assert_non_null(strstr(b.text, "reinterpret_cast<float4 *>((out_row) + hk_pre)[hk_c4] = hk_s0;"));
    assert_non_null(strstr(b.description, "`out_row[j]`, stored in the column loop at line 23 and updated in place "
                                          "in the one at line 27"));
    rw_result_free(&b);
    assert_int_equal(rw_warp_rows(fx.text, fx.len, fx.m, k, &b), HK_OK);
    assert_null(strstr(b.text, "hk_elided"));
    rw_result_free(&b);
    assert_int_equal(rw_block_rows(fx.text, fx.len, fx.m, kernel(&fx, "soft_moved"), 128, &b), HK_OK);
    assert_true(b.applicable);
    assert_null(strstr(b.text, "hk_elided"));
    assert_non_null(strstr(b.text, "y[k] = expf(x[k] - m);"));
    rw_result_free(&b);
    /* the descriptor's block: row_threads above 32 is the launch's block, 32 any */
    const rw_descriptor *d = rw_find("warp_rows");
    assert_non_null(d);
    assert_non_null(d->launch_block);
    int p512[RW_MAX_PARAMS] = {512};
    assert_int_equal(d->launch_block(p512), 512);
    assert_int_equal(d->launch_block(p32), 0);
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

/* With a spec and a device, the block form refuses few-columns and many-rows kernels with
 * the construct and its line, and applies to few long rows (llm.c's softmax sizes). */
static void block_fit_refusals(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_rows/blockrows.cu");
    fixture fx;
    load_text(src, &fx);
    size_t k = kernel(&fx, "soft_llmc");
    static const char spec_fmt[] =
        "{\"kernel\": \"soft_llmc\", \"source\": \"blockrows.cu\", \"sizes\": [{\"N\": %d, \"C\": %d}, {\"N\": 7, \"C\": 9}],"
        " \"args\": [{\"name\": \"inp\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"N * C\"},"
        " {\"name\": \"out\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"N * C\"},"
        " {\"name\": \"unused\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"N\"},"
        " {\"name\": \"N\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"N\"},"
        " {\"name\": \"C\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"C\"}],"
        " \"launch\": {\"grid\": \"ceil_div(N, block_x)\", \"block\": 128}}";
    static const struct {
        int rows, cols, row_threads;
        int line;             /* 0: applies */
        const char *words;
    } cases[] = {
        {2048, 50257, 512, 0, NULL},
        {2048, 50257, 1024, 0, NULL},
        {32768, 768, 256, 12, "8448 resident warps"},   /* many rows: the warp form fills the GPU */
        {8448, 50257, 256, 12, "bounds check"},
        {8447, 50257, 256, 0, NULL},
        {2048, 768, 1024, 17, "fewer than the 1024 threads"},   /* a short row idles threads */
        {2048, 768, 512, 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, spec_fmt, cases[i].rows, cases[i].cols);
        spec *sp = NULL;
        spec_diags dg = {0};
        assert_int_equal(spec_parse(text, strlen(text), NULL, &sp, &dg), HK_OK);
        spec_diags_free(&dg);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = k, .spec = sp, .sm_count = 132,
                          .warps_per_sm = 64};
        int p[RW_MAX_PARAMS] = {cases[i].row_threads};
        rw_refusal why;
        assert_int_equal(rw_applies(rw_find("warp_rows"), &ctx, p, &why), HK_OK);
        if (cases[i].line != why.line || (cases[i].words && !strstr(why.reason, cases[i].words)))
            print_message("case %zu: line %d: %s\n", i, why.line, why.reason);
        assert_int_equal(why.line, cases[i].line);
        if (cases[i].words)
            assert_non_null(strstr(why.reason, cases[i].words));
        /* the warp form ignores the device */
        int p32[RW_MAX_PARAMS] = {32};
        assert_int_equal(rw_applies(rw_find("warp_rows"), &ctx, p32, &why), HK_OK);
        assert_int_equal(why.line, 0);
        /* without the device only the columns can refuse */
        ctx.sm_count = ctx.warps_per_sm = 0;
        assert_int_equal(rw_applies(rw_find("warp_rows"), &ctx, p, &why), HK_OK);
        assert_int_equal(why.line, cases[i].line == 17 ? 17 : 0);
        spec_free(sp);
    }
    /* a bound declared before the check, `int N = B * T;`, is evaluated with the spec's B, T */
    static const char prod_fmt[] =
        "{\"kernel\": \"rows_of_product\", \"source\": \"blockrows.cu\", \"sizes\": [{\"B\": %d, \"T\": 256, \"C\": 50000},"
        " {\"B\": 1, \"T\": 7, \"C\": 9}],"
        " \"args\": [{\"name\": \"src\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"B * T * C\"},"
        " {\"name\": \"stats\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"B * T\"},"
        " {\"name\": \"B\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"B\"},"
        " {\"name\": \"T\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"T\"},"
        " {\"name\": \"ncols\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"C\"}],"
        " \"launch\": {\"grid\": \"ceil_div(B * T, block_x)\", \"block\": 128}}";
    for (int B = 8; B <= 64; B *= 8) {
        char text[2048];
        snprintf(text, sizeof text, prod_fmt, B);
        spec *sp = NULL;
        spec_diags dg = {0};
        assert_int_equal(spec_parse(text, strlen(text), NULL, &sp, &dg), HK_OK);
        spec_diags_free(&dg);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "rows_of_product"),
                          .spec = sp, .sm_count = 132, .warps_per_sm = 64};
        int p[RW_MAX_PARAMS] = {512};
        rw_refusal why;
        assert_int_equal(rw_applies(rw_find("warp_rows"), &ctx, p, &why), HK_OK);
        if (B == 8) {   /* 2048 rows */
            assert_int_equal(why.line, 0);
        } else {        /* 16384 rows */
            assert_int_equal(why.line, PROD_GUARD_LINE);
            assert_non_null(strstr(why.reason, "16384 rows"));
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
        cmocka_unit_test(row_threads_param),
        cmocka_unit_test(block_fit_refusals),
        cmocka_unit_test(block_rows_nvcc),
        cmocka_unit_test(block_rows_run),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
