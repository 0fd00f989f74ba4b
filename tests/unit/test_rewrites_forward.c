/* store_forward run, not only compiled: the kernels of tests/data/rewrite_forward/forward.cu
 * (a softmax in llm.c's kernel2 spelling, a row centred, stored, re-read and scaled in place
 * with a compound store, a stored product re-read from memory beside an input kept in
 * registers, an input rewritten after the store and a local changed before the read, which
 * leave only the register form) are rewritten into ONE candidate text and ONE emulated program (emu_block.h)
 * runs each against its original, bit for bit: ragged rows (1, 7, 33, 100, 257, 1027 and
 * 3000 columns), blocks of 32 to 256 (so the row fits cap * blockDim.x and the register form
 * runs, or does not and the recomputed form runs), three thread orders, and the two cases
 * that take the original body (a 2-D block; the output passed as the input, in place; the
 * output passed as a bias read beside the rows or through a local copy: session 45); and
 * stacked on block_reduce's text against that text. Two
 * broken copies (the register form reading another element; the recomputed form recomputing
 * with the other tree's result) must differ. Refusals name the construct and line; the
 * candidate and llm.c's softmax_forward_kernel2 rewritten at every cap (where bench/wild/src
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
    return rwf_setup("rewrites-forward");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char *const kernels[] = {"soft_rows", "center_rows", "scaled_rows", "input_moves"};

/* C++ before main(): one runner for all three kernels (out, in, aux, rows, cols), the
 * comparison counting differences so that a broken copy's can be required. */
static const char helpers[] =
    "static const int colss[] = {1, 7, 33, 100, 257, 1027, 3000};\n"
    "static const unsigned blocks[] = {32, 64, 128, 256};\n"
    "static size_t differ(const char *what, emu::buf<float> &want, emu::buf<float> &got, bool quiet)\n"
    "{\n"
    "    size_t bad = 0;\n"
    "    for (size_t i = 0; i < want.size(); i++) {\n"
    "        float a = want[i], b = got[i];\n"
    "        bool ok = !std::isnan(a) && !std::isnan(b) && memcmp(&a, &b, sizeof a) == 0;\n"
    "        if (!ok && bad++ < 3 && !quiet)\n"
    "            printf(\"differs: %s[%zu]: want %.9g, got %.9g\\n\", what, i, a, b);\n"
    "    }\n"
    "    return bad;\n"
    "}\n"
    "/* mode 0: a 1-D block; 1: a 2-D block (x 32, y 2: the original body); 2: in place (the\n"
    "   input is the output: the original body) */\n"
    "template <class F, class G>\n"
    "static void row_case(const char *what, F ko, G kc, bool aux_per_col, bool must_differ = false)\n"
    "{\n"
    "    size_t total = 0;\n"
    "    for (int z = 0; z < 7; z++)\n"
    "        for (int v = 0; v < 4; v++)\n"
    "            for (int mode = 0; mode < 3; mode++) {\n"
    "                if (mode && v)\n"
    "                    continue;\n"
    "                const int rows = 3, cols = colss[z], s = (z + v + mode) % 3;\n"
    "                emu::schedule = s;\n"
    "                const size_t e = (size_t)rows * cols;\n"
    "                /* each run its own copy of the input (input_moves writes it) */\n"
    "                emu::buf<float> ino(e), inc(e), aux(aux_per_col ? cols : rows), bo(e), bc(e);\n"
    "                ino.fill(cols + v); inc.fill(cols + v);\n"
    "                aux.fill(7 + cols);\n"
    "                bo.fill(5); bc.fill(5);\n"
    "                if (mode == 2) {\n"
    "                    for (size_t i = 0; i < e; i++)\n"
    "                        bo[i] = bc[i] = ino[i];\n"
    "                }\n"
    "                const dim3 blk = mode == 1 ? dim3(32, 2) : dim3(blocks[v]);\n"
    "                const size_t dyn = blk.x * sizeof(float);\n"
    "                float *src_o = mode == 2 ? bo.ptr() : ino.ptr(), *src_c = mode == 2 ? bc.ptr() : inc.ptr();\n"
    "                emu::launch(dim3(rows), blk, dyn, [&] { ko(bo.ptr(), src_o, aux.ptr(), rows, cols); });\n"
    "                emu::launch(dim3(rows), blk, dyn, [&] { kc(bc.ptr(), src_c, aux.ptr(), rows, cols); });\n"
    "                size_t bad = differ(what, bo, bc, must_differ) + differ(what, ino, inc, must_differ);\n"
    "                if (bad && !must_differ)\n"
    "                    printf(\"  (%s: %d x %d, block %u x %u, mode %d, schedule %d)\\n\", what, rows, cols, blk.x, blk.y,\n"
    "                           mode, s);\n"
    "                total += bad;\n"
    "            }\n"
    "    if (must_differ ? total == 0 : total != 0)\n"
    "        emu::failures++;\n"
    "    printf(\"%s: %zu elements differ%s\\n\", what, total, must_differ ? \" (a broken copy: must be > 0)\" : \"\");\n"
    "}\n"
    "#define SOFT(ns) [&](float *o, float *i, const float *a, int n, int c) { (void)a; ns::soft_rows(o, i, n, c); }\n"
    "#define CENTER(ns) [&](float *o, float *i, const float *a, int n, int c) { (void)n; ns::center_rows(o, i, a, c); }\n"
    "#define SCALED(ns) [&](float *o, float *i, const float *a, int n, int c) { (void)n; ns::scaled_rows(o, i, a, c); }\n"
    "#define MOVES(ns) [&](float *o, float *i, const float *a, int n, int c) { (void)a; (void)n; ns::input_moves(o, i, c); }\n";

static const char driver[] =
    "row_case(\"soft_rows\", SOFT(orig), SOFT(cand), false);\n"
    "row_case(\"center_rows\", CENTER(orig), CENTER(cand), false);\n"
    "row_case(\"scaled_rows\", SCALED(orig), SCALED(cand), true);\n"
    "row_case(\"input_moves\", MOVES(orig), MOVES(cand), false);\n";

/* The candidate: every kernel rewritten (cap 8). */
static char *candidate(const char *src, int cap)
{
    char *cand = strdup(src);
    assert_non_null(cand);
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        int params[RW_MAX_PARAMS] = {cap};
        char *next = emu_rewrite(cand, kernels[i], "store_forward", params);
        assert_non_null(strstr(next, "hk rewrite: store_forward"));
        free(cand);
        cand = next;
    }
    return cand;
}

static void forward_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_forward/forward.cu");
    char *cand = candidate(src, 8);
    emu_run_pair(tmpdir, "forward", src, cand, helpers, driver, EMU_OK);
    free(cand);
    free(src);
}

/* Stacked on block_reduce (the search's stack when block_reduce leads): store_forward on
 * block_reduce's text computes what block_reduce's text computes, bit for bit (the trees, now
 * warp shuffles, are the same code in both). */
static void forward_stacked_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_forward/forward.cu");
    char *br1 = emu_rewrite(src, "soft_rows", "block_reduce", NULL);
    char *br = emu_rewrite(br1, "center_rows", "block_reduce", NULL);
    assert_non_null(strstr(br, "__shfl_down_sync"));
    int params[RW_MAX_PARAMS] = {8};
    char *sf1 = emu_rewrite(br, "soft_rows", "store_forward", params);
    char *sf = emu_rewrite(sf1, "center_rows", "store_forward", params);
    static const char drv[] = "row_case(\"soft_rows on block_reduce\", SOFT(orig), SOFT(cand), false);\n"
                              "row_case(\"center_rows on block_reduce\", CENTER(orig), CENTER(cand), false);\n";
    emu_run_pair(tmpdir, "forward_stacked", br, sf, helpers, drv, EMU_OK);
    free(sf);
    free(sf1);
    free(br);
    free(br1);
    free(src);
}

/* Broken copies must differ: the register form's divide reads slot 0 for every element;
 * the recomputed form's sum pass subtracts the sum's tree result instead of the maximum. */
static void forward_broken(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_data_file("rewrite_forward/forward.cu");
    char *cand = candidate(src, 8);
    char *b1 = emu_replaced(cand, "out[row * C + i] = hk_fw1[hk_c] / total;", "out[row * C + i] = hk_fw1[0] / total;");
    static const char drv1[] = "row_case(\"soft_rows slot 0\", SOFT(orig), SOFT(cand), false, true);\n";
    emu_run_pair(tmpdir, "forward_b1", src, b1, helpers, drv1, EMU_OK);
    char *b2 = emu_replaced(cand, "out[row * C + i] = ((float)(expf ( (inp + (row * C))[i] - off ))) / total;",
                            "out[row * C + i] = ((float)(expf ( (inp + (row * C))[i] - total ))) / total;");
    static const char drv2[] = "row_case(\"soft_rows other offset\", SOFT(orig), SOFT(cand), false, true);\n";
    emu_run_pair(tmpdir, "forward_b2", src, b2, helpers, drv2, EMU_OK);
    free(b1);
    free(b2);
    free(cand);
    free(src);
}

/* What each form does, in the text and the description. */
static void forward_text(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_forward/forward.cu");
    fixture fx;
    load_text(src, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "soft_rows")};
    rw_result r;
    assert_int_equal(rw_apply_named("store_forward", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    /* registers (default cap 4): the input loaded once, the exponential kept, one store */
    assert_non_null(strstr(r.text, "    bool hk_sf_reg = hk_sf_own && (long long)(C) <= 4LL * (long long)blockDim.x;"));
    assert_non_null(strstr(r.text, "hk_fw0[hk_c] = (inp + (row * C))[i];"));
    assert_non_null(strstr(r.text, "hk_fw1[hk_c] = (float)(expf(hk_fw0[hk_c] - off));"));
    assert_non_null(strstr(r.text, "sum += hk_fw1[hk_c];"));
    /* recomputed: the exponential's store dropped, re-evaluated from the input where read */
    assert_non_null(strstr(r.text, "// hk: the row loop of line 25 dropped"));
    assert_non_null(strstr(r.text, "sum += ((float)(expf ( (inp + (row * C))[i] - off )));"));
    /* in place, overlapping or 2-D: the original (the input through x, re-pointed later) */
    assert_non_null(strstr(r.text, "((const char *)(out + (row * C) + (C)) <= (const char *)(inp + (row * C)) ||"));
    assert_non_null(strstr(r.description, "made 4 row reads and 2 row writes an element"));
    assert_non_null(strstr(r.description, "in registers (1 reads, 1 writes)"));
    assert_non_null(strstr(r.description, "recomputed from the unwritten inputs (3 reads, 1 writes; 1 stores"));
    assert_true(r.keeps_launch);
    rw_result_free(&r);
    /* a stored product is read back from memory; only the input goes to registers */
    ctx.kernel = kernel(&fx, "scaled_rows");
    assert_int_equal(rw_apply_named("store_forward", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "yr[k] = hk_fw1[hk_c] * w[k];"));
    assert_non_null(strstr(r.text, "yr[k] = yr[k] + hk_fw1[hk_c];"));
    assert_null(strstr(r.text, "} else if (hk_sf_own) {"));
    assert_non_null(strstr(r.description, "else the original body"));
    rw_result_free(&r);
    /* the input rewritten after the store and a local changed before the read: registers
     * only (the store dropped there), no recomputed form; in place: the original */
    ctx.kernel = kernel(&fx, "input_moves");
    assert_int_equal(rw_apply_named("store_forward", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "hk_fw0[hk_c] = (float)(xr[i] - g);"));
    assert_non_null(strstr(r.text, "yr[i] = hk_fw0[hk_c] / tot + g;"));
    assert_non_null(strstr(r.text, "hk_sf_own = hk_sf_own &&\n        ((const char *)(out + "));
    assert_null(strstr(r.text, "} else if (hk_sf_own) {"));
    rw_result_free(&r);
    /* session 45 (issue 13): the rows are tested as ranges before the first row loop (a pointer
     * into the output's row, `inp = out + 32`, passes a test of equality), where the offset's
     * local is declared */
    ctx.kernel = kernel(&fx, "center_rows");
    assert_int_equal(rw_apply_named("store_forward", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "    const float mu = mean[blockIdx.x];\n"
                                   "    // the rows the block touches, each written one apart from every other buffer's\n"
                                   "    hk_sf_own = hk_sf_own &&\n"
                                   "        ((const char *)(y + (base) + (C)) <= (const char *)(x + (base)) ||\n"
                                   "         (const char *)(x + (base) + (C)) <= (const char *)(y + (base)));\n"
                                   "    hk_sf_reg = hk_sf_reg && hk_sf_own;\n"));
    assert_null(strstr(r.text, "(const void *)"));
    rw_result_free(&r);
    unload(&fx);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

static int forward_default(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    return rw_apply_named("store_forward", &ctx, NULL, r, NULL);
}

/* Every allocation failure ends in HK_ENOMEM with nothing leaked. */
static void forward_alloc_failures(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_forward/forward.cu");
    fixture fx;
    load_text(src, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "soft_rows"), forward_default);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "center_rows"), forward_default);
    unload(&fx);
    free(src);
}

static void forward_refusals(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_forward/forward.cu");
    static const rwf_refusal cases[] = {
        {"next_elem", "row access", 93, "not its element P[OFF + i]"},
        {"atomic_row", "call", 103, "not a pure math function"},
        {"leaves_early", "early exit", 113, "never be overwritten"},
        {"short_loop", "block-strided loop", 124, "start, bound or step differs"},
        {"read_after", "row buffer", 138, "used outside their element accesses"},
        {"guarded", "loop body", 148, "holds `if`"},
        {"var_moves", "loop variable", 196, "written in its body"},
        {"warp_offset", "row access", 206, "the same for the whole block"},
        {"hides_param", "declaration", 218, "hides a local or parameter"},
        /* session 44 review: a bound read from memory, a product stored through a name */
        {"deref_bound", "kernel body", 225, "no two block-strided row loops"},
        {"named_product", "block-strided loop", 240, "no later read of a stored element to forward"},
        /* session 45: a pointer to pointers may reach a row buffer */
        {"bias_table", "pointer parameter", 280, "`bias` is a pointer to pointers"},
        {"bias_member", "parameter", 294, "`a` is passed by value and the body reads its members"},
        {"bias_launched", "kernel body", 300, "a launch in the file passes one pointer as two of the row buffers"},
        /* session 45 (issue 13): read beside the rows, the test cannot bound them (launched with
         * bias = out + 32 they read a dropped store) */
        {"bias_rows", "pointer parameter", 259, "`bias` is used beside the row accesses"},
        {"bias_copy", "pointer parameter", 266, "`bias` is used beside the row accesses"},
        {"bias_member_x", "parameter", 324, "`a` is passed by value and the body reads its members"},
        {"bias_arrow", "parameter", 334, "`a` points to structures or pointers whose members or elements"},
        {"bias_global", "global", 345, "`g_bias` is a pointer or array of the file"},
        {"bias_tparam", "parameter", 356, "`bias` has a template's type parameter for its type"},
        {"bias_elem_member", "parameter", 366, "`a` points to structures or pointers whose members or elements"},
        {"bias_tptr", "parameter", 377, "`b` points to structures or pointers whose members or elements"},
        /* session 45 final read: the file's pointer in other spellings */
        {"bias_global_deref", "global", 388, "`g_bias` is a pointer or array of the file"},
        {"bias_global_paren", "global", 394, "`g_bias` is a pointer or array of the file"},
        {"bias_global_ldg", "global", 407, "`g_bias` is a pointer or array of the file"},
        /* session 46 (issue 13): memory no test of the pointer parameters names, reached
         * between the first row loop and the end of the last (each applied at 18e2dd8a) */
        {"bias_getter", "local pointer", 422, "`b`, a local pointer or reference that is no row pointer"},
        {"bias_reader", "call", 434, "`bias_at` is called between the first row loop and the end of the last"},
        {"bias_qualified", "global", 449, "`g_bias2` is a pointer or array of the file"},
        {"bias_address", "local pointer", 461, "`b`, a local pointer or reference that is no row pointer"},
        {"bias_cast", "memory access", 471, "through an expression that is not a name"},
        {"bias_macro", "macro", 483, "`HK_FIRST_BIAS`, a macro of the file whose text reads memory"},
        {"exit_macro", "macro", 495, "`HK_LEAVE`, a macro of the file whose text"},
    };
    rwf_expect_refusals(src, "store_forward", cases, sizeof cases / sizeof cases[0]);
    free(src);
}

/* The candidate compiles for sm_90; so does llm.c's kernel2 rewritten, where extracted. */
static void forward_nvcc(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_forward/forward.cu");
    char *cand = candidate(src, 16);
    rwf_nvcc_compiles(cand, "forward_cand");
    free(cand);
    free(src);
    fixture fx;
    if (!rwf_load_wild("llmc_softmax2", &fx))
        return;
    for (int cap = 1; cap <= 32; cap *= 2) {
        int params[RW_MAX_PARAMS] = {cap};
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "softmax_forward_kernel2")};
        rw_result r;
        assert_int_equal(rw_apply_named("store_forward", &ctx, params, &r, NULL), HK_OK);
        assert_true(r.applicable);
        char tag[64];
        snprintf(tag, sizeof tag, "forward_softmax2_%d", cap);
        rwf_nvcc_compiles(r.text, tag);
        rw_result_free(&r);
    }
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forward_text),
        cmocka_unit_test(forward_refusals),
        cmocka_unit_test(forward_alloc_failures),
        cmocka_unit_test(forward_nvcc),
        cmocka_unit_test(forward_run),
        cmocka_unit_test(forward_broken),
        cmocka_unit_test(forward_stacked_run),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
