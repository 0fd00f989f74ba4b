/* digit_order run, not only compiled (issue 13): a grid-stride loop over a flat index split
 * into digits by / and %, whose loads are contiguous in a digit other than the innermost
 * (tests/data/rewrite_digits/digits.cu, our own kernels: a neighbour-weighted feature sum
 * spelled with a loop macro and `i % (D*S) / S` and an early return, with a plain for and
 * temporaries, with a 64-bit counter and size_t digits; a bound passed as a count). The
 * rewrite reads the counter in another digit order and rebuilds the index the body sees, so
 * every output must be bit-identical to the original's in the block emulator (emu_block.h),
 * on one element per thread and on small grids where each thread runs many trips, under
 * three thread orders; a recomposition off by a digit must differ. The weighing and the
 * refusals (already best, an unknown radix, an atomic, a carried value, a break, the thread
 * index in the element) are checked with their constructs and lines. */
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

static char *src;   /* tests/data/rewrite_digits/digits.cu */

static int setup(void **state)
{
    (void)state;
    src = rwf_data_file("rewrite_digits/digits.cu");
    return src ? rwf_setup("rewrites-digits") : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(src);
    return rwf_teardown();
}

/* C++ the drivers share: sizes (B, C, P, J, W, Q), neighbours in [0, Q) or, with `outside`,
 * some past Q (skipped elements); the original on blocks of 64 covering every element once,
 * the rewrite on that launch (schedule FORWARD), on 3 blocks of 32 (REVERSE) and on 2 blocks
 * of 96 (SHUFFLED): several trips per thread, in the new order. one_trip: the rewrite on the
 * original's launch only (an early return is per element only there). */
static const char helpers[] =
    "struct sz { int B, C, P, J, W, Q; long n() const { return (long)B * C * P * J; } };\n"
    "#define BOTH(...) [&](sz z, auto f, auto w, auto q, auto o) { orig::__VA_ARGS__; }, \\\n"
    "                  [&](sz z, auto f, auto w, auto q, auto o) { cand::__VA_ARGS__; }\n"
    "template <class T, class F, class G>\n"
    "static void nbr_case(const char *what, F ko, G kc, std::initializer_list<sz> sizes, bool outside,\n"
    "                     bool one_trip)\n"
    "{\n"
    "    for (const sz &z : sizes)\n"
    "        for (int s = 0; s < (one_trip ? 1 : 3); s++) {\n"
    "            emu::schedule = s;\n"
    "            const long n = z.n();\n"
    "            const size_t nf = (size_t)z.B * z.W * z.C * (z.Q > z.P * z.J ? z.Q : z.P * z.J);\n"
    "            emu::buf<T> feat(nf), wgt((size_t)z.B * z.P * z.J * z.W), oo(n), oc(n);\n"
    "            emu::buf<int64_t> nbr((size_t)z.B * z.P * z.J);\n"
    "            feat.fill(1 + s);\n"
    "            wgt.fill(2 + s);\n"
    "            nbr.fill_mod(3 + s, outside ? z.Q + 2 : z.Q);\n"
    "            oo.fill(5);\n"
    "            oc.fill(5);\n"
    "            dim3 g((unsigned)((n + 63) / 64)), b(64);\n"
    "            emu::launch(g, b, 0, [&] { ko(z, feat.ptr(), wgt.ptr(), nbr.ptr(), oo.ptr()); });\n"
    "            dim3 cg = s == 1 ? dim3(3) : s == 2 ? dim3(2) : g, cb = s == 1 ? dim3(32) : s == 2 ? dim3(96) : b;\n"
    "            emu::launch(cg, cb, 0, [&] { kc(z, feat.ptr(), wgt.ptr(), nbr.ptr(), oc.ptr()); });\n"
    "            if (!emu::expect(what, oo, oc))\n"
    "                printf(\"  (%d %d %d %d %d %d schedule %d)\\n\", z.B, z.C, z.P, z.J, z.W, z.Q, s);\n"
    "        }\n"
    "}\n"
    "#define ARGS z.B, z.C, z.P, z.J, z.W, z.Q, f, w, q, o\n"
    "#define COUNT(total) total, z.C, z.P, z.J, z.W, f, o\n"
    "#define FUSED z.B, z.C, z.J, z.W, f, o\n";

static emu_batch batch;
#define emulate(tag, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* ragged sizes, a digit of extent 1, J and C past a warp, a one-element case */
#define SIZES "{{2, 5, 3, 7, 4, 6}, {1, 33, 2, 20, 3, 9}, {3, 1, 4, 5, 2, 4}, {2, 40, 1, 3, 2, 5}, {1, 1, 1, 1, 1, 1}}"

/* nbr_fused with its spec (tests/data/rewrite_digits/nbr_fused.bench.json) or without: the
 * rewrite's result; refused, its description is the refusal's reason. */
static rw_result fused_result(bool with_spec)
{
    fixture fx;
    load_text(src, &fx);
    spec *sp = NULL;
    spec_diags d = {0};
    if (with_spec) {
        char path[900];
        snprintf(path, sizeof path, "%s/rewrite_digits/nbr_fused.bench.json", HK_TEST_DATA);
        assert_int_equal(spec_load(path, &sp, &d), HK_OK);
    }
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "nbr_fused"), .spec = sp};
    rw_result r;
    rw_refusal w;
    assert_int_equal(rw_apply_named("digit_order", &ctx, NULL, &r, &w), HK_OK);
    if (!r.applicable && with_spec)
        print_message("nbr_fused: %s\n", w.reason);
    if (!r.applicable) {
        hk_free(r.description);
        r.description = hk_strdup(w.reason);
        assert_non_null(r.description);
    }
    spec_diags_free(&d);
    spec_free(sp);
    unload(&fx);
    return r;
}

static char *fused_candidate(void)
{
    rw_result r = fused_result(true);
    assert_true(r.applicable);
    char *t = malloc(r.len + 1);
    assert_non_null(t);
    memcpy(t, r.text, r.len);
    t[r.len] = 0;
    rw_result_free(&r);
    return t;
}

/* A coordinate off the chain (row = i / J, the rows b and c fused) read as the digits it spans,
 * at the spec's sizes (B 2, C 64, J 20, W 8): j 8 x 32 (feat strided by B*C) + 4 (out), c
 * 8 x 4 (feat through row) + 32 (out strided by J), b 8 x 32 + 32. c is a digit only a local
 * holds (it reaches the index through row alone). Without the spec the sizes are unknown,
 * row's span with them, and the innermost digit stays. */
static void fused_text(void **state)
{
    (void)state;
    rw_result r = fused_result(true);
    assert_true(r.applicable);
    if (!strstr(r.description, "`((i) % (J))` 260 (innermost now), `(i / (J)) % (C)` 64, `i / (C*J)` 288"))
        print_message("%s\n", r.description);
    assert_non_null(strstr(r.description, "`((i) % (J))` 260 (innermost now), `(i / (J)) % (C)` 64, `i / (C*J)` 288"));
    assert_non_null(strstr(r.description, "(i / (J)) % (C) innermost"));
    rw_result_free(&r);
    r = fused_result(false);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, "already the best"));
    rw_result_free(&r);
}

static void digits_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *tag, *kernel, *driver;
    } cases[] = {
        {"macro", "nbr_macro", "nbr_case<float>(\"macro\", BOTH(nbr_macro(ARGS)), " SIZES ", false, false);"},
        /* an early return on an element out of range: per element with one trip per thread */
        {"macro_return", "nbr_macro",
         "nbr_case<float>(\"macro_return\", BOTH(nbr_macro(ARGS)), " SIZES ", true, true);"},
        {"for", "nbr_for", "nbr_case<float>(\"for\", BOTH(nbr_for(ARGS)), " SIZES ", true, false);"},
        {"wide", "nbr_wide", "nbr_case<double>(\"wide\", BOTH(nbr_wide(ARGS)), " SIZES ", true, false);"},
        /* the bound a count: a multiple of the digits (the new order) and not (the original's) */
        {"count", "nbr_count",
         "nbr_case<float>(\"count\", BOTH(nbr_count(COUNT((int)z.n()))), " SIZES ", false, false);\n"
         "nbr_case<float>(\"count_short\", BOTH(nbr_count(COUNT((int)z.n() - 1))), " SIZES ", false, false);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(src, cases[i].kernel, "digit_order", NULL);
        emulate(cases[i].tag, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    /* the fused rows: chosen only with the spec's sizes (fused_text) */
    char *cand = fused_candidate();
    emulate("fused", cand, "nbr_case<float>(\"fused\", BOTH(nbr_fused(FUSED)), " SIZES ", false, false);", EMU_OK);
    free(cand);
    emu_batch_run(&batch);
}

/* The index put back together without its innermost digit: elements computed twice and
 * never; and the count's fallback forced off on a bound that is no multiple: elements
 * past the bound. Both must differ. */
static void digits_broken_fail(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(src, "nbr_for", "digit_order", NULL);
    char *broken = emu_replaced(cand, "hk_dg_i = hk_dg_d0 + ", "hk_dg_i = 0 * hk_dg_d0 + ");
    emulate("swapped", broken, "nbr_case<float>(\"swapped\", BOTH(nbr_for(ARGS)), {{2, 5, 3, 7, 4, 6}}, false, false);",
            EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(src, "nbr_count", "digit_order", NULL);
    broken = emu_replaced(cand, "hk_dg_n % hk_dg_s3 == 0", "true");
    emulate("no_fallback", broken,
            "nbr_case<float>(\"no_fallback\", BOTH(nbr_count(COUNT((int)z.n() - 5))), {{2, 5, 3, 7, 4, 6}}, false, false);",
            EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

/* The weighing: which digit becomes the innermost, and the sectors said in the description. */
static void digits_text(void **state)
{
    (void)state;
    static const struct {
        const char *kernel, *chosen;
    } cases[] = {
        {"nbr_macro", "((((i) / (J*P))) % (C)) innermost"},
        {"nbr_for", "((((i) / (J*P))) % (C)) innermost"},
        {"nbr_wide", "((((i) / (J*P))) % (C)) innermost"},
        {"nbr_count", "((((i) / (J*P))) % (C)) innermost"},
    };
    fixture fx;
    load_text(src, &fx);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel)};
        rw_result r;
        rw_refusal w;
        assert_int_equal(rw_apply_named("digit_order", &ctx, NULL, &r, &w), HK_OK);
        if (!r.applicable || !strstr(r.description, cases[i].chosen))
            print_message("%s: %s\n", cases[i].kernel, r.description);
        assert_true(r.applicable);
        assert_non_null(strstr(r.description, cases[i].chosen));
        assert_non_null(strstr(r.description, "(innermost now)"));
        assert_non_null(strstr(r.text, "const decltype(hk_dg_t) i = hk_dg_i;"));
        rw_result_free(&r);
    }
    /* nbr_macro without a spec: W's loop counts 16 trips; j 8 + 4 + 4 + 16 * (32 + 32), c 1 +
     * 32 + 32 + 16 * (4 + 1) */
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "nbr_macro")};
    rw_result r;
    rw_refusal w;
    assert_int_equal(rw_apply_named("digit_order", &ctx, NULL, &r, &w), HK_OK);
    assert_non_null(strstr(r.description, "`((i) % (J))` 1040 (innermost now)"));
    assert_non_null(strstr(r.description, "` 145"));
    rw_result_free(&r);
    unload(&fx);
}

static void digits_refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"nbr_good", "grid-stride loop", 77, "already the best"},
        {"nbr_radix", "grid-stride loop", 91, "radix"},
        {"nbr_atomic", "atomic", 104, "atomicAdd"},
        {"nbr_carried", "carried value", 115, "`run`"},
        {"nbr_break", "break", 143, "later elements"},
        {"nbr_lane", "thread index", 157, "threadIdx"},
    };
    rwf_expect_refusals(src, "digit_order", cases, sizeof cases / sizeof cases[0]);
}

/* The emitted kernels compile for sm_90 (queued; rwf_nvcc_queued compiles them). */
static void digits_nvcc(void **state)
{
    (void)state;
    static const char *const kernels[] = {"nbr_macro", "nbr_for", "nbr_wide", "nbr_count"};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        char *cand = emu_rewrite(src, kernels[i], "digit_order", NULL);
        char tag[64];
        snprintf(tag, sizeof tag, "digits_%s", kernels[i]);
        rwf_nvcc_compiles(cand, tag);
        free(cand);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(digits_text),
        cmocka_unit_test(fused_text),
        cmocka_unit_test(digits_refusals),
        cmocka_unit_test(digits_run),
        cmocka_unit_test(digits_broken_fail),
        cmocka_unit_test(digits_nvcc),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
