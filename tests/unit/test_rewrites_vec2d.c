/* vectorize_2d run, not only compiled (issue 13, session 49): 2-D elementwise kernels of
 * tests/data/rewrite_vec2d/vec2d.cu (layernorm's normalize pass with int, unsigned and size_t
 * indices, both in one declaration, an if-guard and early returns, a temporary for r * C + c before the bounds check
 * and inside the per-element code, the indices through a macro and a __device__ helper,
 * __ldg, an in-place update that reads its column, two outputs) against their 4-wide rewrite
 * in the block emulator (emu_block.h): ragged rows (C % 4 != 0: the scalar loop), pointers
 * one element off their vector alignment (all, or one: the scalar loop), three thread orders,
 * the rewrite on the grid divided by 4 along x and on a grid of 2 blocks along x (its loop
 * over the row's vectors covers any grid); every output bit for bit. Broken rewrites (the
 * last vector of each row dropped, a lane given its neighbour's column, the run-time aliasing
 * test dropped with an output passed as the input) must differ, so the checks cannot pass
 * vacuously. The near misses refuse with their construct and line; every text compiles for
 * sm_90. */
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
#include "emu_batch.h"

static char *src; /* tests/data/rewrite_vec2d/vec2d.cu */

static int setup(void **state)
{
    (void)state;
    src = rwf_data_file("rewrite_vec2d/vec2d.cu");
    return src ? rwf_setup("rewrites-vec2d") : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(src);
    return rwf_teardown();
}

/* C++ the drivers share. ln_case: layernorm's arguments (out, inp, mean, rstd, gamma, beta,
 * N, C) over shapes with C a multiple of 4 and not; off 0 every pointer aligned, 1 every
 * pointer one element off, 2 only gamma off. The original on 32 x 8 blocks covering the
 * matrix; the candidate on that grid divided by 4 along x (the search's), or (schedule 2)
 * 2 blocks along x. inplace_case: x updated in place with a per-column gamma. two_case:
 * two outputs and an input, distinct or (alias) the first output passed as the input. */
static const char helpers[] =
    "#define BOTH(...) [&](auto o, auto x, auto m, auto sd, auto gm, auto bt, int N, int C) { orig::__VA_ARGS__; }, \\\n"
    "                  [&](auto o, auto x, auto m, auto sd, auto gm, auto bt, int N, int C) { cand::__VA_ARGS__; }\n"
    "static const int shapes[][2] = {{37, 1001}, {5, 768}, {9, 7}, {3, 4}, {2, 36}};\n"
    "static dim3 cand_grid(dim3 g, int s) { return s == 2 ? dim3(2, g.y) : dim3((g.x + 3) / 4, g.y); }\n"
    "template <class F, class G>\n"
    "static void ln_case(const char *what, F ko, G kc)\n"
    "{\n"
    "    for (auto &sh : shapes)\n"
    "        for (int off = 0; off < 3; off++)\n"
    "            for (int s = 0; s < 3; s++) {\n"
    "                emu::schedule = s;\n"
    "                int N = sh[0], C = sh[1];\n"
    "                size_t n = (size_t)N * C, a = off == 1, ag = off != 0;\n"
    "                emu::buf<float> x(n + 1), m(N + 1), sd(N + 1), gm(C + 1), bt(C + 1), oo(n + 1), oc(n + 1);\n"
    "                x.fill(s + 1); m.fill(s + 2); sd.fill(s + 3); gm.fill(s + 4); bt.fill(s + 5);\n"
    "                oo.fill(99); oc.fill(99);\n"
    "                dim3 b(32, 8), g((unsigned)(C + 31) / 32, (unsigned)(N + 7) / 8);\n"
    "                emu::launch(g, b, 0, [&] { ko(oo.ptr() + a, x.ptr() + a, m.ptr() + a, sd.ptr() + a, gm.ptr() + ag, bt.ptr() + a, N, C); });\n"
    "                emu::launch(cand_grid(g, s), b, 0, [&] { kc(oc.ptr() + a, x.ptr() + a, m.ptr() + a, sd.ptr() + a, gm.ptr() + ag, bt.ptr() + a, N, C); });\n"
    "                if (!emu::expect(what, oo, oc))\n"
    "                    printf(\"  (N %d C %d offset %d schedule %d)\\n\", N, C, off, s);\n"
    "            }\n"
    "}\n"
    "template <class F, class G>\n"
    "static void inplace_case(const char *what, F ko, G kc)\n"
    "{\n"
    "    for (auto &sh : shapes)\n"
    "        for (int off = 0; off < 2; off++)\n"
    "            for (int s = 0; s < 3; s++) {\n"
    "                emu::schedule = s;\n"
    "                int N = sh[0], C = sh[1];\n"
    "                size_t n = (size_t)N * C;\n"
    "                emu::buf<float> xo(n + 1), xc(n + 1), gm(C + 1);\n"
    "                xo.fill(s + 1); xc.fill(s + 1); gm.fill(s + 4);\n"
    "                dim3 b(32, 8), g((unsigned)(C + 31) / 32, (unsigned)(N + 7) / 8);\n"
    "                emu::launch(g, b, 0, [&] { ko(xo.ptr() + off, gm.ptr(), N, C); });\n"
    "                emu::launch(cand_grid(g, s), b, 0, [&] { kc(xc.ptr() + off, gm.ptr(), N, C); });\n"
    "                if (!emu::expect(what, xo, xc))\n"
    "                    printf(\"  (N %d C %d offset %d schedule %d)\\n\", N, C, off, s);\n"
    "            }\n"
    "}\n"
    "template <class F, class G>\n"
    "static void two_case(const char *what, F ko, G kc, bool alias)\n"
    "{\n"
    "    for (auto &sh : shapes)\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            int N = sh[0], C = sh[1];\n"
    "            size_t n = (size_t)N * C;\n"
    "            emu::buf<float> ao(n), ac(n), bo(n), bc(n), xo(n), xc(n);\n"
    "            ao.fill(1); ac.fill(1); bo.fill(2); bc.fill(2); xo.fill(3); xc.fill(3);\n"
    "            dim3 b(32, 8), g((unsigned)(C + 31) / 32, (unsigned)(N + 7) / 8);\n"
    "            emu::launch(g, b, 0, [&] { ko(ao.ptr(), bo.ptr(), alias ? ao.ptr() : xo.ptr(), N, C); });\n"
    "            emu::launch(cand_grid(g, s), b, 0, [&] { kc(ac.ptr(), bc.ptr(), alias ? ac.ptr() : xc.ptr(), N, C); });\n"
    "            if (!emu::expect(what, ao, ac) || !emu::expect(what, bo, bc))\n"
    "                printf(\"  (N %d C %d schedule %d alias %d)\\n\", N, C, s, (int)alias);\n"
    "        }\n"
    "}\n";

static emu_batch batch;
#define emulate(tag, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

static const char *const ln_kernels[] = {"ln_if", "ln_ret_unsigned", "ln_size_t", "ln_temp", "ln_macro", "ln_one_decl"};

/* Every spelling, the in-place update and the two outputs, bit for bit. */
static void vec2d_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    for (size_t i = 0; i < HK_ARRAY_LEN(ln_kernels); i++) {
        char *cand = emu_rewrite(src, ln_kernels[i], "vectorize_2d", NULL);
        char drv[256];
        snprintf(drv, sizeof drv, "ln_case(\"%s\", BOTH(%s(o, x, m, sd, gm, bt, N, C)));", ln_kernels[i], ln_kernels[i]);
        emulate(ln_kernels[i], cand, drv, EMU_OK);
        free(cand);
    }
    /* width 2: float2, the scalar loop for odd C */
    int p2[RW_MAX_PARAMS] = {2};
    char *cand = emu_rewrite(src, "ln_if", "vectorize_2d", p2);
    emulate("ln_if_w2", cand, "ln_case(\"ln_if_w2\", BOTH(ln_if(o, x, m, sd, gm, bt, N, C)));", EMU_OK);
    free(cand);
    /* rev49: reads in an if's or a ternary's condition, a per-element local written */
    cand = emu_rewrite(src, "ln_cond_ok", "vectorize_2d", NULL);
    emulate("ln_cond_ok", cand,
            "auto ko = [&](float *a, float *b, const float *x, int N, int C) { orig::ln_cond_ok(a, x, b, N, C); };\n"
            "auto kc = [&](float *a, float *b, const float *x, int N, int C) { cand::ln_cond_ok(a, x, b, N, C); };\n"
            "two_case(\"ln_cond_ok\", ko, kc, false);",
            EMU_OK);
    free(cand);
    /* rev49: the stores in their statements' order (o1 then o2), with o1 == o2 too */
    cand = emu_rewrite(src, "two_order", "vectorize_2d", NULL);
    emulate("two_order", cand,
            "auto ko = [&](float *a, float *b, const float *x, int N, int C) { orig::two_order(a, b, x, N, C); };\n"
            "auto kc = [&](float *a, float *b, const float *x, int N, int C) { cand::two_order(a, b, x, N, C); };\n"
            "two_case(\"two_order\", ko, kc, false);\n"
            "for (auto &sh : shapes)\n"
            "    for (int s = 0; s < 3; s++) {\n"
            "        emu::schedule = s;\n"
            "        int N = sh[0], C = sh[1];\n"
            "        size_t n = (size_t)N * C;\n"
            "        emu::buf<float> ao(n), ac(n), xo(n), xc(n);\n"
            "        ao.fill(1); ac.fill(1); xo.fill(3); xc.fill(3);\n"
            "        dim3 b(32, 8), g((unsigned)(C + 31) / 32, (unsigned)(N + 7) / 8);\n"
            "        emu::launch(g, b, 0, [&] { ko(ao.ptr(), ao.ptr(), xo.ptr(), N, C); });\n"
            "        emu::launch(cand_grid(g, s), b, 0, [&] { kc(ac.ptr(), ac.ptr(), xc.ptr(), N, C); });\n"
            "        if (!emu::expect(\"two_order_same_output\", ao, ac))\n"
            "            printf(\"  (N %d C %d schedule %d)\\n\", N, C, s);\n"
            "    }",
            EMU_OK);
    free(cand);
    cand = emu_rewrite(src, "scale_inplace", "vectorize_2d", NULL);
    emulate("scale_inplace", cand,
            "inplace_case(\"inplace\", [&](float *x, const float *g, int N, int C) { orig::scale_inplace(x, g, N, C); },\n"
            "             [&](float *x, const float *g, int N, int C) { cand::scale_inplace(x, g, N, C); });",
            EMU_OK);
    free(cand);
    cand = emu_rewrite(src, "two_out", "vectorize_2d", NULL);
    emulate("two_out", cand,
            "auto ko = [&](float *a, float *b, const float *x, int N, int C) { orig::two_out(a, b, x, N, C); };\n"
            "auto kc = [&](float *a, float *b, const float *x, int N, int C) { cand::two_out(a, b, x, N, C); };\n"
            "two_case(\"two_out\", ko, kc, false);\n"
            "two_case(\"two_out_alias\", ko, kc, true);",
            EMU_OK);
    free(cand);
    emu_batch_run(&batch);
}

/* The checks bite: each broken rewrite differs somewhere. */
static void vec2d_broken_fail(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(src, "ln_if", "vectorize_2d", NULL);
    char *broken = emu_replaced(cand, "hk_v < hk_v2_cn / 4;", "hk_v < hk_v2_cn / 4 - 1;");
    emulate("short_row", broken, "ln_case(\"short_row\", BOTH(ln_if(o, x, m, sd, gm, bt, N, C)));", EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(src, "scale_inplace", "vectorize_2d", NULL);
    broken = emu_replaced(cand, "(hk_v * 4 + 1)", "(hk_v * 4 + 0)");
    emulate("lane_column", broken,
            "inplace_case(\"lane_column\", [&](float *x, const float *g, int N, int C) { orig::scale_inplace(x, g, N, C); },\n"
            "             [&](float *x, const float *g, int N, int C) { cand::scale_inplace(x, g, N, C); });",
            EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(src, "two_out", "vectorize_2d", NULL);
    broken = emu_replaced(cand, "(const void *)o1 != (const void *)inp", "true");
    emulate("no_alias_test", broken,
            "auto ko = [&](float *a, float *b, const float *x, int N, int C) { orig::two_out(a, b, x, N, C); };\n"
            "auto kc = [&](float *a, float *b, const float *x, int N, int C) { cand::two_out(a, b, x, N, C); };\n"
            "two_case(\"no_alias_test\", ko, kc, true);",
            EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

/* The emitted text of each spelling: vectors for the row's and the column's pointers, the
 * row's uniform reads left per lane, the lane's own column declared in its index type, the
 * grid divided by 4 along x; width 2 gives float2; the rewrite of its own output refuses. */
static void vec2d_text(void **state)
{
    (void)state;
    fixture fx;
    load_text(src, &fx);
    static const struct {
        const char *kernel, *want[3];
    } cases[] = {
        {"ln_if", {"const float4 hk_ld_inp = reinterpret_cast<const float4 *>(inp + hk_v2_row)[hk_v];",
                   "float n = (hk_ld_inp.y - mean[r]) * rstd[r];", "hk_st_out.w = n * hk_ld_gamma.w + hk_ld_beta.w;"}},
        {"ln_ret_unsigned", {"const unsigned c = (unsigned)(hk_v * 4 + 2);", "if (r < (N)) {",
                             "float n = (inp[C * r + c] - mean[r]) * rstd[r];"}},
        {"ln_size_t", {"const size_t c = (size_t)(hk_v * 4 + 3);", "const long long hk_v2_cn = (long long)(C);",
                       "hk_st_out.z = n * hk_ld_gamma.z + hk_ld_beta.z;"}},
        {"ln_temp", {"const int idx = r * C + c;", "hk_st_out.x = (hk_ld_inp.x - m) * s * hk_ld_gamma.x + hk_ld_beta.x;",
                     "out[idx] = (inp[idx] - m) * s * __ldg(&gamma[c]) + __ldg(&beta[c]);"}},
        {"ln_macro", {"int e = c + C * r;", "float n = (hk_ld_inp.w - mean[r]) * rstd[r];", "if (r < (N)) {"}},
        {"ln_one_decl", {"const int c = (int)(hk_v * 4 + 1);",
                         "hk_st_out.y = (hk_ld_inp.y - mean[r]) * rstd[r] * hk_ld_gamma.y + hk_ld_beta.y;",
                         "reinterpret_cast<float4 *>(out + hk_v2_row)[hk_v] = hk_st_out;"}},
        {"scale_inplace", {"const float4 hk_ld_x = reinterpret_cast<const float4 *>(x + hk_v2_row)[hk_v];",
                           "hk_st_x.y = hk_ld_x.y * hk_ld_gamma.y + (float)(c % 7) - 0.5f * (float)r;",
                           "reinterpret_cast<float4 *>(x + hk_v2_row)[hk_v] = hk_st_x;"}},
        {"two_out", {"(const void *)o1 != (const void *)inp) {", "hk_st_o2.x = hk_ld_inp.x * 3.0f + 1.0f;",
                     "hk_st_o1.w = 2.0f;"}},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel)};
        rw_result r;
        rw_refusal w;
        assert_int_equal(rw_apply_named("vectorize_2d", &ctx, NULL, &r, &w), HK_OK);
        if (!r.applicable)
            print_message("%s: %s\n", cases[i].kernel, w.reason);
        assert_true(r.applicable);
        assert_int_equal(r.grid_divisor, 4);
        assert_int_equal(r.grid_axis, 0);
        for (int k = 0; k < 3; k++) {
            if (!strstr(r.text, cases[i].want[k]))
                print_message("%s: want `%s` in\n%s\n", cases[i].kernel, cases[i].want[k], r.text);
            assert_non_null(strstr(r.text, cases[i].want[k]));
        }
        /* its own output: already vectorized */
        fixture again;
        load_text(r.text, &again);
        rw_context c2 = {.text = again.text, .len = again.len, .m = again.m, .kernel = kernel(&again, cases[i].kernel)};
        rw_result r2;
        assert_int_equal(rw_apply_named("vectorize_2d", &c2, NULL, &r2, &w), HK_OK);
        assert_false(r2.applicable);
        assert_non_null(strstr(r2.description, "already"));
        rw_result_free(&r2);
        unload(&again);
        rw_result_free(&r);
    }
    /* width 2 */
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "ln_if")};
    rw_result r;
    int p2[RW_MAX_PARAMS] = {2};
    assert_int_equal(rw_apply_named("vectorize_2d", &ctx, p2, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_int_equal(r.grid_divisor, 2);
    assert_non_null(strstr(r.text, "const float2 hk_ld_gamma = reinterpret_cast<const float2 *>(gamma)[hk_v];"));
    assert_non_null(strstr(r.text, "hk_v2_cn % 2 == 0"));
    rw_result_free(&r);
    unload(&fx);
}

/* Every allocation failure is HK_ENOMEM and leaks nothing, and the first run that succeeds
 * gives the same verdict as without failures: an allocation that fails while the kernel is
 * read (two_out's aliasing term) is no refusal. */
static void vec2d_alloc_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(src, &fx);
    static const struct {
        const char *kernel;
        bool applies;
    } cases[] = {{"two_out", true}, {"ln_temp", true}, {"nm_stencil", false}};
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel)};
        long live = hk_alloc_live();
        bool done = false;
        for (long n = 1; n < 100000 && !done; n++) {
            rw_result r;
            hk_alloc_fail_after(n);
            int rc = rw_apply_named("vectorize_2d", &ctx, NULL, &r, NULL);
            hk_alloc_fail_after(0);
            if (rc == HK_OK) {
                if (r.applicable != cases[i].applies)
                    print_message("%s: failing allocation %ld gave: %s\n", cases[i].kernel, n, r.description);
                assert_int_equal(r.applicable, cases[i].applies);
                done = true;
            } else {
                assert_int_equal(rc, HK_ENOMEM);
            }
            rw_result_free(&r);
            assert_int_equal(hk_alloc_live(), live);
        }
        assert_true(done);
    }
    unload(&fx);
}

/* The near misses, each with the construct and line that stop it. */
static void vec2d_refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"nm_stencil", "read", 98, "`inp` is read at another element than the row's own"},
        {"nm_next_row", "read", 106, "`inp` is read at another element than the row's own"},
        {"nm_column_store", "store", 114, "the store to `out` is not at the row's element r * C + c"},
        {"nm_transpose", "store", 122, "the store to `out` is not at the row's element r * C + c"},
        {"nm_ld", "read", 130, "a stencil, a gather or another row length"},
        {"nm_atomic", "atomic", 138, "`atomicAdd` in the per-element code"},
        {"nm_sync", "statement", 146, "`__shared__` in the per-element code"},
        {"nm_loop", "loop", 159, "a loop in the per-element code"},
        {"nm_one_bound", "bounds check", 169, "bounds only one of the two indices"},
        {"nm_flat", "kernel body", 174, "not a 2-D kernel"},
        {"nm_cond_store", "store", 186, "under a condition"},
        {"nm_decl_xdep", "declaration", 203, "several names declared in one statement"},
        /* rev49: reads under a condition would be made for every lane (bias NULL when
         * has_bias is 0, extra of K rows); an outer name written per element would be
         * written again by every lane */
        {"nm_cond_read", "read", 215, "`bias` is read under a condition"},
        {"nm_and_read", "read", 224, "`extra` is read under a condition"},
        {"nm_if_read", "read", 235, "`extra` is read under a condition"},
        {"nm_outer_acc", "statement", 247, "`acc` is declared outside the per-element code and written in it"},
        {"nm_outer_param", "statement", 258, "`s` is declared outside the per-element code and written in it"},
        {"nm_row_col", "read", 283, "`inp` is read both at the row's element"},
        {"nm_tx_temp", "declaration", 306, "`odd` before the bounds check reads the thread's x coordinate"},
        {"nm_grid_temp", "declaration", 315, "`threads` before the bounds check reads the thread's x coordinate"},
        {"nm_macro_tx", "declaration", 325, "`lane` before the bounds check reads the thread's x coordinate"},
        {"nm_ref_bump", "statement", 338, "`acc` is declared outside the per-element code and written in it"},
    };
    rwf_expect_refusals(src, "vectorize_2d", cases, sizeof cases / sizeof cases[0]);
}

/* Every emitted text compiles for sm_90 (queued; rwf_nvcc_queued compiles them). */
static void vec2d_nvcc(void **state)
{
    (void)state;
    static const char *const kernels[] = {"ln_if", "ln_ret_unsigned", "ln_size_t", "ln_temp", "ln_macro",
                                          "ln_one_decl", "scale_inplace", "two_out", "ln_cond_ok", "two_order"};
    for (size_t i = 0; i < HK_ARRAY_LEN(kernels); i++) {
        char *cand = emu_rewrite(src, kernels[i], "vectorize_2d", NULL);
        char tag[64];
        snprintf(tag, sizeof tag, "vec2d_%s", kernels[i]);
        rwf_nvcc_compiles(cand, tag);
        free(cand);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vec2d_text),
        cmocka_unit_test(vec2d_refusals),
        cmocka_unit_test(vec2d_alloc_failures),
        cmocka_unit_test(vec2d_run),
        cmocka_unit_test(vec2d_broken_fail),
        cmocka_unit_test(vec2d_nvcc),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
