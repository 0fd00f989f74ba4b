/* block_online_softmax run, not only compiled: the kernels of
 * tests/data/rewrite_block_softmax/softmax.cu (llm.c's kernel2 spelling with the exponentials
 * stored and read back; a spelling that recomputes them, an if-form maximum, a 64-bit row
 * offset and a reciprocal; one with both accumulators declared at the top, max() and exp(),
 * the exponentials stored through a row pointer and divided in place by `/=`; one that stores
 * the block's maximum for the caller, kept and compared bit for bit; one that stores its maximum
 * and sum into other buffers' rows, launched with those buffers of their own, as the input and
 * as the output: session 45) are rewritten into ONE candidate text and ONE emulated program
 * (emu_block.h) runs each against its original within a tolerance (the sum is reassociated:
 * |a - b| <= 2e-5 * max(|a|, |b|) + 1e-38, NaN where the original has NaN): ragged rows (1, 7,
 * 33, 100, 257, 1027 and 3000 columns), rows of a huge range (+-80), with -inf elements, with
 * a NaN, with a +inf, all equal, all -inf, all below -1e30 (soft_top_decls' maximum starts at
 * -1e30f: the original writes NaN there, and so must the rewrite), blocks of 32 to 1024 and
 * two that take the original body (96 threads: not a power of two, which the original's
 * halving trees need; a 2-D block), where the original body must give the same bits; three
 * thread orders. Broken copies (the rescaling of the running sum left out; the maximum started
 * at -inf, not the original's -1e30f) must differ. Refusals name the construct
 * and line; the candidate and llm.c's softmax_forward_kernel2 rewritten (where bench/wild/src
 * is extracted) compile with nvcc -arch=sm_90. */
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
    return rwf_setup("rewrites-block-softmax");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char *const kernels[] = {"soft_stored", "soft_recomputed", "soft_top_decls", "keeps_max", "keeps_firsts"};

/* C++ before main(): rows of several kinds, the comparison with a tolerance (exact where the
 * original body runs). */
static const char helpers[] =
    "static const int colss[] = {1, 7, 33, 100, 257, 1027, 3000};\n"
    "static const unsigned blocks[] = {32, 64, 128, 256, 512, 1024, 96};\n"
    "static float row_value(int kind, size_t r, size_t c, int cols)\n"
    "{\n"
    "    const float ninf = -INFINITY;\n"
    "    float v = emu::value(r * 4099 + c, kind);\n"
    "    switch (kind) {\n"
    "    case 0: return v;                                    /* -10 .. 10 */\n"
    "    case 1: return v * 8.0f;                             /* -80 .. 80: exps under/overflow apart */\n"
    "    case 2: return (c % 3 == 0) ? ninf : v;              /* -inf elements (the first one too) */\n"
    "    case 3: return c == (size_t)cols / 2 && r == 1 ? NAN : v; /* a NaN in row 1 */\n"
    "    case 4: return c == (size_t)cols - 1 && r == 2 ? INFINITY : v; /* a +inf in row 2 */\n"
    "    case 5: return 0.75f;                                /* all equal */\n"
    "    case 6: return r == 0 ? ninf : v;                    /* row 0 all -inf */\n"
    "    default: return r == 0 ? -1e32f - v * 1e30f : (c % 2 ? -1e32f : v); /* row 0 all below -1e30 */\n"
    "    }\n"
    "}\n"
    "static size_t close_to(const char *what, emu::buf<float> &want, emu::buf<float> &got, bool exact, bool quiet)\n"
    "{\n"
    "    size_t bad = 0;\n"
    "    for (size_t i = 0; i < want.size(); i++) {\n"
    "        float a = want[i], b = got[i];\n"
    "        bool ok = std::isnan(a) ? std::isnan(b)\n"
    "                  : exact ? memcmp(&a, &b, sizeof a) == 0\n"
    "                  : !std::isnan(b) && fabsf(a - b) <= 2e-5f * std::max(fabsf(a), fabsf(b)) + 1e-38f;\n"
    "        if (!ok && bad++ < 3 && !quiet)\n"
    "            printf(\"differs: %s[%zu]: want %.9g, got %.9g\\n\", what, i, a, b);\n"
    "    }\n"
    "    return bad;\n"
    "}\n"
    "/* keeps_max's stored maxima, one a row: the same bits (the maximum is exact) */\n"
    "static float g_maxo[3], g_maxc[3];\n"
    "static size_t (*extra)(bool) = nullptr;\n"
    "static size_t max_check(bool quiet)\n"
    "{\n"
    "    size_t bad = 0;\n"
    "    for (int r = 0; r < 3; r++) {\n"
    "        if (memcmp(&g_maxo[r], &g_maxc[r], sizeof(float)) != 0 && bad++ < 3 && !quiet)\n"
    "            printf(\"differs: maxes[%d]: want %.9g, got %.9g\\n\", r, g_maxo[r], g_maxc[r]);\n"
    "        g_maxo[r] = g_maxc[r] = 5.0f;\n"
    "    }\n"
    "    return bad;\n"
    "}\n"
    "template <class F, class G>\n"
    "static void soft_case(const char *what, F ko, G kc, bool must_differ = false)\n"
    "{\n"
    "    size_t total = 0;\n"
    "    for (int z = 0; z < 7; z++)\n"
    "        for (int kind = 0; kind < 8; kind++)\n"
    "            for (int v = 0; v < 8; v++) {\n"
    "                if (v >= 3 && v < 7 && (kind + z) % 3)\n"
    "                    continue; /* the wide blocks on a third of the cases */\n"
    "                const int rows = 3, cols = colss[z], s = (z + v + kind) % 3;\n"
    "                emu::schedule = s;\n"
    "                const size_t e = (size_t)rows * cols;\n"
    "                emu::buf<float> in(e), bo(e), bc(e);\n"
    "                for (int r = 0; r < rows; r++)\n"
    "                    for (int c = 0; c < cols; c++)\n"
    "                        in[(size_t)r * cols + c] = row_value(kind, r, c, cols);\n"
    "                bo.set(5); bc.set(5);\n"
    "                const dim3 blk = v == 7 ? dim3(32, 2) : dim3(blocks[v]);\n"
    "                const bool original = v >= 6; /* 96 threads, a 2-D block: the original body */\n"
    "                const size_t dyn = blk.x * blk.y * sizeof(float);\n"
    "                emu::launch(dim3(rows), blk, dyn, [&] { ko(bo.ptr(), in.ptr(), rows, cols); });\n"
    "                emu::launch(dim3(rows), blk, dyn, [&] { kc(bc.ptr(), in.ptr(), rows, cols); });\n"
    "                size_t bad = close_to(what, bo, bc, original, must_differ);\n"
    "                /* session 45 (issue 13): the input a pointer into the output's row (out + block):\n"
    "                   the rows overlap, the original body runs (the same bits) */\n"
    "                if (v < 6 && cols > (int)blocks[v]) {\n"
    "                    const size_t sh = blocks[v];\n"
    "                    emu::buf<float> wo(e + sh), wc(e + sh);\n"
    "                    for (size_t i = 0; i < e + sh; i++)\n"
    "                        wo[i] = wc[i] = i < sh ? 5.0f : in[i - sh];\n"
    "                    emu::launch(dim3(rows), blk, dyn, [&] { ko(wo.ptr(), wo.ptr() + sh, rows, cols); });\n"
    "                    emu::launch(dim3(rows), blk, dyn, [&] { kc(wc.ptr(), wc.ptr() + sh, rows, cols); });\n"
    "                    bad += close_to(what, wo, wc, true, must_differ);\n"
    "                }\n"
    "                if (extra)\n"
    "                    bad += extra(must_differ);\n"
    "                if (bad && !must_differ)\n"
    "                    printf(\"  (%s: %d x %d, kind %d, block %u x %u, schedule %d)\\n\", what, rows, cols, kind, blk.x,\n"
    "                           blk.y, s);\n"
    "                total += bad;\n"
    "            }\n"
    "    if (must_differ ? total == 0 : total != 0)\n"
    "        emu::failures++;\n"
    "    printf(\"%s: %zu elements differ%s\\n\", what, total, must_differ ? \" (a broken copy: must be > 0)\" : \"\");\n"
    "}\n"
    "/* session 45: keeps_firsts' kept stores into buffers of their own (mode 0), the input (1) or\n"
    "   the output (2), a pointer into the input's row (3: inp + 1) or the output's (4: out + cols / 2):\n"
    "   the stored element in the block's rows, the candidate runs the original body (the same bits) */\n"
    "template <class F, class G>\n"
    "static void kept_case(const char *what, F ko, G kc, bool must_differ = false)\n"
    "{\n"
    "    size_t total = 0;\n"
    "    for (int z = 0; z < 7; z++)\n"
    "        for (int v = 0; v < 4; v++)\n"
    "            for (int mode = 0; mode < 5; mode++) {\n"
    "                const int rows = 3, cols = colss[z];\n"
    "                emu::schedule = (z + v + mode) % 3;\n"
    "                const size_t e = (size_t)rows * cols, fsh = mode == 3 && cols > 1 ? 1 : 0, lsh = mode == 4 ? cols / 2 : 0;\n"
    "                emu::buf<float> ino(e), inc(e), bo(e), bc(e), fo(e), fc(e), lo(e), lc(e);\n"
    "                for (size_t i = 0; i < e; i++)\n"
    "                    ino[i] = inc[i] = row_value(0, i / cols, i % cols, cols);\n"
    "                bo.set(5); bc.set(5); fo.set(5); fc.set(5); lo.set(5); lc.set(5);\n"
    "                float *f_o = mode == 1 || mode == 3 ? ino.ptr() + fsh : fo.ptr(), *f_c = mode == 1 || mode == 3 ? inc.ptr() + fsh : fc.ptr();\n"
    "                float *l_o = mode == 2 || mode == 4 ? bo.ptr() + lsh : lo.ptr(), *l_c = mode == 2 || mode == 4 ? bc.ptr() + lsh : lc.ptr();\n"
    "                emu::launch(dim3(rows), dim3(blocks[v]), 0, [&] { ko(bo.ptr(), ino.ptr(), f_o, l_o, cols); });\n"
    "                emu::launch(dim3(rows), dim3(blocks[v]), 0, [&] { kc(bc.ptr(), inc.ptr(), f_c, l_c, cols); });\n"
    "                const bool exact = mode != 0;\n"
    "                size_t bad = close_to(what, bo, bc, exact, must_differ) + close_to(what, ino, inc, true, must_differ) +\n"
    "                             close_to(what, fo, fc, true, must_differ) + close_to(what, lo, lc, exact, must_differ);\n"
    "                if (bad && !must_differ)\n"
    "                    printf(\"  (%s: %d x %d, block %u, %s)\\n\", what, rows, cols, blocks[v],\n"
    "                           mode == 1 ? \"firsts == inp\" : mode == 2 ? \"lasts == out\" : mode == 3 ? \"firsts == inp + 1\" :\n"
    "                           mode == 4 ? \"lasts == out + cols / 2\" : \"buffers of their own\");\n"
    "                total += bad;\n"
    "            }\n"
    "    if (must_differ ? total == 0 : total != 0)\n"
    "        emu::failures++;\n"
    "    printf(\"%s: %zu elements differ%s\\n\", what, total, must_differ ? \" (a broken copy: must be > 0)\" : \"\");\n"
    "}\n"
    "#define FIRSTS(ns) [&](float *o, float *i, float *f, float *l, int c) { ns::keeps_firsts(o, i, f, l, c); }\n"
    "#define STORED(ns) [&](float *o, float *i, int n, int c) { ns::soft_stored(o, i, n, c); }\n"
    "#define RECOMP(ns) [&](float *o, float *i, int n, int c) { (void)n; ns::soft_recomputed(o, i, c); }\n"
    "#define TOP(ns) [&](float *o, float *i, int n, int c) { (void)n; ns::soft_top_decls(o, i, c); }\n"
    "#define KEEPS(ns, m) [&](float *o, float *i, int n, int c) { (void)n; ns::keeps_max(o, i, m, c); }\n";

static const char driver[] = "soft_case(\"soft_stored\", STORED(orig), STORED(cand));\n"
                             "soft_case(\"soft_recomputed\", RECOMP(orig), RECOMP(cand));\n"
                             "soft_case(\"soft_top_decls\", TOP(orig), TOP(cand));\n"
                             "extra = max_check;\n"
                             "soft_case(\"keeps_max\", KEEPS(orig, g_maxo), KEEPS(cand, g_maxc));\n"
                             "extra = nullptr;\n"
                             "kept_case(\"keeps_firsts\", FIRSTS(orig), FIRSTS(cand));\n";

static char *candidate(const char *src)
{
    char *cand = strdup(src);
    assert_non_null(cand);
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        char *next = emu_rewrite(cand, kernels[i], "block_online_softmax", NULL);
        assert_non_null(strstr(next, "hk rewrite: block_online_softmax"));
        free(cand);
        cand = next;
    }
    return cand;
}

static void block_softmax_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_block_softmax/softmax.cu");
    char *cand = candidate(src);
    emu_run_pair(tmpdir, "block_softmax", src, cand, helpers, driver, EMU_OK);
    free(cand);
    free(src);
}

/* Broken copies must differ: the running sum not rescaled when the maximum grows; the running
 * maximum started at -inf where the original starts at -1e30f. */
static void block_softmax_broken(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_block_softmax/softmax.cu");
    char *cand = candidate(src);
    char *b1 = emu_replaced(cand, "hk_s *= expf(hk_m - hk_c);", "hk_s *= 1.0f;");
    static const char drv1[] = "soft_case(\"soft_stored not rescaled\", STORED(orig), STORED(cand), true);\n";
    emu_run_pair(tmpdir, "block_softmax_b1", src, b1, helpers, drv1, EMU_OK);
    /* the running maximum from -inf instead of the original's -1e30f: a row all below -1e30
     * then gets a softmax where the original writes NaN */
    char *b2 = emu_replaced_all(cand, "hk_m = (-1e30f)", "hk_m = (hk_ninf)");
    assert_true(strcmp(b2, cand) != 0);
    static const char drv2[] = "soft_case(\"soft_top_decls from -inf\", TOP(orig), TOP(cand), true);\n";
    emu_run_pair(tmpdir, "block_softmax_b2", src, b2, helpers, drv2, EMU_OK);
    free(b2);
    free(b1);
    free(cand);
    free(src);
}

/* What the text and the description say. */
static void block_softmax_text(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_block_softmax/softmax.cu");
    fixture fx;
    load_text(src, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "soft_stored")};
    rw_result r;
    assert_int_equal(rw_apply_named("block_online_softmax", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "hk_x[hk_u] = hk_j < (long long)(C) ? inp[(row * C) + hk_j] : hk_ninf;"));
    assert_non_null(strstr(r.text, "out[(row * C) + i] = expf(inp[(row * C) + i] - hk_m) / hk_s;"));
    assert_non_null(strstr(r.text, "(blockDim.x & (blockDim.x - 1u)) == 0"));
    assert_non_null(strstr(r.description, "(4 row reads and 2 row writes an element)"));
    assert_non_null(strstr(r.description, "2 row reads and 1 row write"));
    assert_true(r.keeps_launch);
    rw_result_free(&r);
    ctx.kernel = kernel(&fx, "soft_recomputed");
    assert_int_equal(rw_apply_named("block_online_softmax", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "const float hk_inv = 1.0f / hk_s;"));
    assert_non_null(strstr(r.text, "y[(base) + j] = __expf(x[(base) + j] - hk_m) * hk_inv;"));
    assert_non_null(strstr(r.description, "(3 row reads and 1 row writes an element)"));
    assert_null(strstr(r.text, "a store kept for the caller writes"));
    rw_result_free(&r);
    /* session 45 (issue 13): the input and the output rows apart or one buffer */
    ctx.kernel = kernel(&fx, "soft_stored");
    assert_int_equal(rw_apply_named("block_online_softmax", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "(blockDim.x & (blockDim.x - 1u)) == 0 &&\n"
                                   "        // the input and the output one buffer or rows apart (overlapping: the original)\n"
                                   "        ((const void *)inp == (const void *)out ||\n"
                                   "         (const char *)(inp + (C)) <= (const char *)out || (const char *)(out + (C)) <= (const char *)inp)) {"));
    rw_result_free(&r);
    /* session 45: a kept store's element in the block's rows (its buffer passed as a row
     * buffer, or a pointer into one: issue 13) takes the original body */
    ctx.kernel = kernel(&fx, "keeps_firsts");
    assert_int_equal(rw_apply_named("block_online_softmax", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "(const char *)(out + (C)) <= (const char *)inp) &&\n"
                                   "        // no element a store kept for the caller writes lies in the block's rows (the original)\n"
                                   "        ((const char *)(&firsts[blockIdx.x * C] + 1) <= (const char *)(inp + (blockIdx.x * C)) ||\n"
                                   "            (const char *)(inp + (blockIdx.x * C) + (C)) <= (const char *)&firsts[blockIdx.x * C])\n"
                                   "        && ((const char *)(&firsts[blockIdx.x * C] + 1) <= (const char *)(out + (blockIdx.x * C)) ||\n"));
    assert_non_null(strstr(r.text, "        && ((const char *)(&lasts[blockIdx.x * C] + 1) <= (const char *)(out + (blockIdx.x * C)) ||\n"
                                   "            (const char *)(out + (blockIdx.x * C) + (C)) <= (const char *)&lasts[blockIdx.x * C])) {"));
    rw_result_free(&r);
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

static int block_softmax_default(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    return rw_apply_named("block_online_softmax", &ctx, NULL, r, NULL);
}

/* Every allocation failure ends in HK_ENOMEM with nothing leaked. */
static void block_softmax_alloc_failures(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_block_softmax/softmax.cu");
    fixture fx;
    load_text(src, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "soft_stored"), block_softmax_default);
    unload(&fx);
    free(src);
}

static void block_softmax_refusals(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_block_softmax/softmax.cu");
    static const rwf_refusal cases[] = {
        {"odd_tree", "block tree", 124, "not a halving shared-memory tree"},
        {"next_elem", "row access", 176, "not this thread's element"},
        {"warp_step", "row loop", 185, "not a block-strided row loop"},
        {"two_offsets", "row access", 257, "one OFF without the thread index"},
        {"rows_by_y", "row access", 268, "of the block's row"},
        {"reads_exps", "statement", 302, "another use of the stored exponentials"},
        /* session 44 review: a value-changing cast, a looser operator in OFF, OFF from memory */
        {"int_cast", "row loop", 314, "keeping a running maximum"},
        {"loose_off", "row access", 348, "not this thread's element"},
        {"mem_off", "row access", 381, "not this thread's element"},
        /* session 45 (issue 13): the range test stands before the body's declarations */
        {"keeps_local", "statement", 467, "`r`, a local, is named by a store kept for the caller"},
        /* session 46 (issue 13): an int tree array, a char tree variable, an unsigned char
         * thread index (each applied at 18e2dd8a) */
        {"int_tree", "block tree", 497, "the tree's shared array is not of float elements"},
        {"char_tree", "block tree", 537, "a loop variable of a type that cannot count"},
        {"char_tid", "row loop", 573, "not a block-strided row loop"},
        /* session 46: a row offset through a macro that reads threadIdx.x (applied at 18e2dd8a) */
        {"macro_off", "statement", 611, "a statement the block-per-row softmax does not hold here"},
    };
    rwf_expect_refusals(src, "block_online_softmax", cases, sizeof cases / sizeof cases[0]);
    free(src);
}

/* The candidate compiles for sm_90; so does llm.c's kernel2 rewritten, where extracted. */
static void block_softmax_nvcc(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_block_softmax/softmax.cu");
    char *cand = candidate(src);
    rwf_nvcc_compiles(cand, "block_softmax_cand");
    free(cand);
    free(src);
    fixture fx;
    if (!rwf_load_wild("llmc_softmax2", &fx))
        return;
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "softmax_forward_kernel2")};
    rw_result r;
    assert_int_equal(rw_apply_named("block_online_softmax", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    rwf_nvcc_compiles(r.text, "block_softmax_softmax2");
    rw_result_free(&r);
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(block_softmax_text),
        cmocka_unit_test(block_softmax_refusals),
        cmocka_unit_test(block_softmax_alloc_failures),
        cmocka_unit_test(block_softmax_nvcc),
        cmocka_unit_test(block_softmax_run),
        cmocka_unit_test(block_softmax_broken),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
