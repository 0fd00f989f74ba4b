/* Kernels that count their elements from the launch (issue 13, session 51): no bounds check,
 * one element per thread of the spec's grid, the grid written with the spec's functions --
 * llm.c's layernorm normalization_kernel, `idx / C` and `idx % C` over a grid of
 * ceil_div(B * T * C, 256) blocks, a copy under min(ceil_div(n, block_x), cap), and Rodinia
 * nn's row-major block index `blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x)` under its own
 * bound over a capped grid (coarsen reads the translated grid for gridDim.x).
 *
 * coarsen's bound on its virtual blocks is the spec's grid in the kernel's parameters: the
 * spec's ceil_div, min and max are translated too (main refused: "uses ceil_div, which no
 * integer parameter of the kernel receives"). vectorize's element count is the spec's launch
 * in the kernel's parameters, so its grid-stride loop may run under any grid (main kept the
 * spec's grid, `hk_n = gridDim.x * blockDim.x`, and the search dropped the candidate).
 *
 * Each text compiles with nvcc (-arch=sm_90 -cubin) and, in the block emulator, leaves exactly
 * the original's memory: coarsen under the spec's grid divided by K (rounded up, grids no
 * multiple of K), vectorize under other grids and blocks (one block, three, blocks of 32);
 * broken copies (the bound or the count put back to the launch's) differ or crash; what
 * cannot be translated refuses with the construct and line, or keeps the spec's grid. */
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
    return rwf_setup("rewrites-launchcount");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char kernels[] =
    "__global__ void norm_rows(float *out, const float *inp, const float *mean, const float *rstd,\n" /* 1 */
    "                          const float *weight, const float *bias, int B, int T, int C)\n"
    "{\n"
    "    int idx = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int bt = idx / C;\n"                                                                          /* 5 */
    "    int c = idx % C;\n"
    "    float m = mean[bt];\n"
    "    float s = rstd[bt];\n"
    "    float n = s * (inp[idx] - m);\n"
    "    out[idx] = n * weight[c] + bias[c];\n"                                                        /* 10 */
    "}\n"
    "__global__ void scale_capped(float *y, const float *x, float a, int n, int cap)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    y[i] = a * x[i] + 1.0f;\n"                                                                    /* 15 */
    "}\n"
    "__global__ void hidden_count(float *y, const float *x, float a)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    y[i] = a * x[i];\n"                                                                           /* 20 */
    "}\n"
    "__global__ void dist_rows(const float *p, float *d, int n, float s)\n"
    "{\n"
    "    int g = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;\n"
    "    if (g < n)\n"
    "        d[g] = s * p[g];\n"                                                                      /* 26 */
    "}\n";

#define ARG_F(n, v) "{\"name\": \"" n "\", \"kind\": \"scalar\", \"dtype\": \"float\", \"value\": " v "}"
#define ARG_I(n, v) "{\"name\": \"" n "\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"" v "\"}"
#define ARG_B(n, k, c) "{\"name\": \"" n "\", \"kind\": \"" k "\", \"dtype\": \"float\", \"count\": \"" c "\"}"

/* B * T * C a multiple of 64 (no bounds check), the grid (B * T * C / 64 blocks) no multiple
 * of 4 or 8 at the second size. */
static const char norm_spec[] =
    "{\"name\": \"norm\", \"source\": \"k.cu\", \"kernel\": \"norm_rows\","
    " \"sizes\": [{\"B\": 4, \"T\": 8, \"C\": 96}, {\"B\": 7, \"T\": 3, \"C\": 64}],"
    " \"args\": [" ARG_B("out", "output", "B * T * C") ", " ARG_B("inp", "input", "B * T * C") ", "
    ARG_B("mean", "input", "B * T") ", " ARG_B("rstd", "input", "B * T") ", " ARG_B("weight", "input", "C") ", "
    ARG_B("bias", "input", "C") ", " ARG_I("B", "B") ", " ARG_I("T", "T") ", " ARG_I("C", "C") "],"
    " \"launch\": {\"grid\": \"ceil_div(B * T * C, 64)\", \"block\": 64}}";
/* the grid min(ceil_div(n, block_x), cap) blocks of the spec's 128: n and cap multiples of
 * 128 and 1 (the elements are the grid's threads: n / 128 or cap blocks' worth) */
static const char capped_spec[] =
    "{\"name\": \"capped\", \"source\": \"k.cu\", \"kernel\": \"scale_capped\","
    " \"sizes\": [{\"n\": 1280, \"cap\": 7}, {\"n\": 640, \"cap\": 9}],"
    " \"args\": [" ARG_B("y", "output", "n") ", " ARG_B("x", "input", "n") ", " ARG_F("a", "1.5") ", "
    ARG_I("n", "n") ", " ARG_I("cap", "cap") "],"
    " \"launch\": {\"grid\": \"min(ceil_div(n, block_x), cap)\", \"block\": 128}}";
/* the count is no parameter's: the kernel cannot know it */
static const char hidden_spec[] =
    "{\"name\": \"hidden\", \"source\": \"k.cu\", \"kernel\": \"hidden_count\","
    " \"sizes\": [{\"n\": 1280}, {\"n\": 640}],"
    " \"args\": [" ARG_B("y", "output", "n") ", " ARG_B("x", "input", "n") ", " ARG_F("a", "1.5") "],"
    " \"launch\": {\"grid\": \"ceil_div(n, 128)\", \"block\": 128}}";
/* Rodinia nn's row-major block index over a grid capped along x (at 3 blocks here, 65535
 * there): gridDim.x read under the kernel's own bound, the cap no multiple of K */
static const char rows_spec[] =
    "{\"name\": \"rows\", \"source\": \"k.cu\", \"kernel\": \"dist_rows\","
    " \"sizes\": [{\"n\": 1000}, {\"n\": 77}],"
    " \"args\": [" ARG_B("p", "input", "n") ", " ARG_B("d", "output", "n") ", " ARG_I("n", "n") ", " ARG_F("s", "3.0") "],"
    " \"launch\": {\"grid\": [\"min(ceil_div(n, block_x), 3)\", \"ceil_div(ceil_div(n, block_x), 3)\"], \"block\": 32}}";
/* a 2-D launch: its thread count is no single product along x */
static const char twod_spec[] =
    "{\"name\": \"twod\", \"source\": \"k.cu\", \"kernel\": \"scale_capped\","
    " \"sizes\": [{\"n\": 1280, \"cap\": 7}, {\"n\": 640, \"cap\": 9}],"
    " \"args\": [" ARG_B("y", "output", "n") ", " ARG_B("x", "input", "n") ", " ARG_F("a", "1.5") ", "
    ARG_I("n", "n") ", " ARG_I("cap", "cap") "],"
    " \"launch\": {\"grid\": [\"ceil_div(n, block_x)\", 2], \"block\": 128}}";

static spec *parse_spec(const char *text)
{
    spec *sp = NULL;
    spec_diags diags = {0};
    int rc = spec_parse(text, strlen(text), NULL, &sp, &diags);
    if (rc)
        for (size_t d = 0; d < diags.n; d++)
            print_message("spec: %s: %s\n", diags.items[d].path, diags.items[d].message);
    assert_int_equal(rc, HK_OK);
    spec_diags_free(&diags);
    return sp;
}

/* rewrite (at parameter p0, 0: its default) of kname under spec_text; *r keeps the result. */
static void rewrite_of(const char *rewrite, const char *kname, const char *spec_text, int p0, rw_result *r)
{
    fixture fx;
    load_text(kernels, &fx);
    spec *sp = parse_spec(spec_text);
    int params[RW_MAX_PARAMS] = {p0};
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname), .spec = sp};
    assert_int_equal(rw_apply_named(rewrite, &ctx, p0 ? params : NULL, r, NULL), HK_OK);
    spec_free(sp);
    unload(&fx);
}

static char *applied(const char *rewrite, const char *kname, const char *spec_text, int p0)
{
    rw_result r;
    rewrite_of(rewrite, kname, spec_text, p0, &r);
    if (!r.applicable)
        print_message("%s on %s: %s\n", rewrite, kname, r.description);
    assert_true(r.applicable);
    char *text = strdup(r.text);
    assert_non_null(text);
    rw_result_free(&r);
    return text;
}

/* coarsen applies to both at 2, 4 and 8 with the spec's grid as its bound, ceil_div and min
 * written out; the texts compile. */
static void coarsen_translates_functions(void **state)
{
    (void)state;
    static const int ks[] = {4, 2, 8};
    for (size_t l = 0; l < HK_ARRAY_LEN(ks); l++) {
        rw_result r;
        rewrite_of("coarsen", "norm_rows", norm_spec, ks[l], &r);
        if (!r.applicable)
            print_message("norm_rows: %s\n", r.description);
        assert_true(r.applicable);
        assert_int_equal(r.grid_divisor, ks[l]);
        assert_int_equal(r.grid_axis, 0);
        const char *want =
            "const unsigned int hk_co_grid = (unsigned int)((((long long)(B)*(long long)(T)*(long long)(C)) / (64) + "
            "((((long long)(B)*(long long)(T)*(long long)(C)) % (64) != 0) && ((((long long)(B)*(long long)(T)*(long long)(C)) < 0) == ((64) < 0)))));";
        if (!strstr(r.text, want))
            print_message("no `%s` in\n%s\n", want, r.text);
        assert_non_null(strstr(r.text, want));
        if (l == 0)
            rwf_nvcc_compiles(r.text, "launchcount_coarsen_norm");
        rw_result_free(&r);
        rewrite_of("coarsen", "scale_capped", capped_spec, ks[l], &r);
        assert_true(r.applicable);
        const char *want_min = "((((long long)(n)) / ((long long)blockDim.x) + ";
        if (!strstr(r.text, want_min) || !strstr(r.text, " < ((long long)(cap)) ? "))
            print_message("no min(ceil_div(n, blockDim.x), cap) in\n%s\n", r.text);
        assert_non_null(strstr(r.text, want_min));
        assert_non_null(strstr(r.text, " < ((long long)(cap)) ? "));
        if (l == 0)
            rwf_nvcc_compiles(r.text, "launchcount_coarsen_capped");
        rw_result_free(&r);
        /* the row-major index reads the spec's grid, not the divided grid times K */
        rewrite_of("coarsen", "dist_rows", rows_spec, ks[l], &r);
        assert_true(r.applicable);
        if (!strstr(r.text, "blockDim.x * (hk_co_grid * blockIdx.y + hk_co_bx)"))
            print_message("dist_rows:\n%s\n", r.text);
        assert_non_null(strstr(r.text, "blockDim.x * (hk_co_grid * blockIdx.y + hk_co_bx)"));
        if (l == 0)
            rwf_nvcc_compiles(r.text, "launchcount_coarsen_rows");
        rw_result_free(&r);
    }
}

/* vectorize at 4 and 2: the count is the spec's launch in the kernel's parameters (the
 * spec's block for block_x, whatever block runs it), the grid is free (no keeps_grid). */
static void vectorize_counts_the_spec_launch(void **state)
{
    (void)state;
    static const int ws[] = {4, 2};
    for (size_t l = 0; l < HK_ARRAY_LEN(ws); l++) {
        rw_result r;
        rewrite_of("vectorize", "norm_rows", norm_spec, ws[l], &r);
        assert_true(r.applicable);
        assert_false(r.keeps_grid);
        const char *want = "const auto hk_n = (unsigned int)(((((long long)(B)*(long long)(T)*(long long)(C)) / (64) + ";
        if (!strstr(r.text, want) || strstr(r.text, "hk_n = gridDim.x * blockDim.x"))
            print_message("no `%s` in\n%s\n", want, r.text);
        assert_non_null(strstr(r.text, want));
        assert_null(strstr(r.text, "hk_n = gridDim.x * blockDim.x"));
        assert_non_null(strstr(r.description, "the spec's launch"));
        if (l == 0)
            rwf_nvcc_compiles(r.text, "launchcount_vec_norm");
        rw_result_free(&r);
        rewrite_of("vectorize", "scale_capped", capped_spec, ws[l], &r);
        assert_true(r.applicable);
        assert_false(r.keeps_grid);
        /* block_x is the spec's 128, not the launched blockDim.x */
        const char *want_cap = "const auto hk_n = (unsigned int)(((((((long long)(n)) / ((128)) + ";
        if (!strstr(r.text, want_cap) || !strstr(r.text, ") * (128));"))
            print_message("no `%s` in\n%s\n", want_cap, r.text);
        assert_non_null(strstr(r.text, want_cap));
        assert_non_null(strstr(r.text, ") * (128));"));
        if (l == 0)
            rwf_nvcc_compiles(r.text, "launchcount_vec_capped");
        rw_result_free(&r);
    }
}

/* What cannot be translated: coarsen refuses with the construct and line (a count no
 * parameter receives); vectorize still applies but keeps the spec's grid, as before (the
 * count no parameter's, a 2-D launch). */
static void untranslated_refuses_or_keeps(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    spec *sp = parse_spec(hidden_spec);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "hidden_count"), .spec = sp};
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("coarsen"), &ctx, NULL, &why), HK_OK);
    if (why.line != 20 || strcmp(why.construct, "access") ||
        !strstr(why.reason, "uses n, which no integer parameter of the kernel receives"))
        print_message("hidden_count: \"%s\" line %d: %s\n", why.construct, why.line, why.reason);
    assert_int_equal(why.line, 20);
    assert_string_equal(why.construct, "access");
    assert_non_null(strstr(why.reason, "uses n, which no integer parameter of the kernel receives"));
    spec_free(sp);
    unload(&fx);

    /* a grid whose translation outgrows the bound's text (each ceil_div writes its operands
     * three times): refused, never cut short */
    static const char deep_spec[] =
        "{\"name\": \"deep\", \"source\": \"k.cu\", \"kernel\": \"norm_rows\","
        " \"sizes\": [{\"B\": 4, \"T\": 8, \"C\": 96}, {\"B\": 7, \"T\": 3, \"C\": 64}],"
        " \"args\": [" ARG_B("out", "output", "B * T * C") ", " ARG_B("inp", "input", "B * T * C") ", "
        ARG_B("mean", "input", "B * T") ", " ARG_B("rstd", "input", "B * T") ", " ARG_B("weight", "input", "C") ", "
        ARG_B("bias", "input", "C") ", " ARG_I("B", "B") ", " ARG_I("T", "T") ", " ARG_I("C", "C") "],"
        " \"launch\": {\"grid\": \"ceil_div(ceil_div(ceil_div(ceil_div(B * T * C, 1), 1), 1), 64)\", \"block\": 64}}";
    load_text(kernels, &fx);
    sp = parse_spec(deep_spec);
    ctx = (rw_context){.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "norm_rows"), .spec = sp};
    assert_int_equal(rw_applies(rw_find("coarsen"), &ctx, NULL, &why), HK_OK);
    if (why.line != 7 || !strstr(why.reason, "more than the bound holds"))
        print_message("deep grid: \"%s\" line %d: %s\n", why.construct, why.line, why.reason);
    assert_int_equal(why.line, 7);
    assert_non_null(strstr(why.reason, "more than the bound holds"));
    spec_free(sp);
    unload(&fx);

    static const struct {
        const char *kernel, *spec;
    } kept[] = {{"hidden_count", hidden_spec}, {"scale_capped", twod_spec}};
    for (size_t i = 0; i < HK_ARRAY_LEN(kept); i++) {
        rw_result r;
        rewrite_of("vectorize", kept[i].kernel, kept[i].spec, 4, &r);
        assert_true(r.applicable);
        assert_true(r.keeps_grid);
        assert_non_null(strstr(r.text, "const auto hk_n = gridDim.x * blockDim.x;"));
        rw_result_free(&r);
    }
}

/* The originals under the spec's launch, the candidates under others; buffers sized to the
 * elements exactly (a write past them is a crash under the emulator's checks, a skipped one
 * a difference from the original's). */
static const char helpers[] =
    "static int K = 4;\n"
    "static int VEC = 0;\n"
    "static unsigned div_up(unsigned a, unsigned b) { return (a + b - 1) / b; }\n"
    "static void norm_case(void)\n"
    "{\n"
    "    static const int sz[][3] = {{7, 3, 64}, {4, 8, 96}, {1, 1, 64}, {5, 5, 192}};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int B = sz[z][0], T = sz[z][1], C = sz[z][2];\n"
    "        const size_t n = (size_t)B * T * C;\n"
    "        emu::buf<float> inp(n), mean((size_t)B * T), rstd((size_t)B * T), w(C), b(C), oo(n), oc(n);\n"
    "        inp.fill(z + 1);\n"
    "        mean.fill(z + 2);\n"
    "        rstd.fill(z + 3);\n"
    "        w.fill(z + 4);\n"
    "        b.fill(z + 5);\n"
    "        oo.set(-1.0f);\n"
    "        oc.set(-1.0f);\n"
    "        const unsigned g = div_up((unsigned)n, 64);\n"
    "        emu::launch(dim3(g), dim3(64), 0, [&] { orig::norm_rows(oo, inp, mean, rstd, w, b, B, T, C); });\n"
    "        /* coarsen: the grid divided by K; vectorize: one block, three, or blocks of 32 */\n"
    "        const dim3 gc = VEC ? dim3(VEC == 1 ? 1u : 3u) : dim3(div_up(g, K));\n"
    "        const dim3 bc = VEC == 3 ? dim3(32) : dim3(64);\n"
    "        emu::launch(gc, bc, 0, [&] { cand::norm_rows(oc, inp, mean, rstd, w, b, B, T, C); });\n"
    "        emu::expect(\"norm\", oo, oc);\n"
    "    }\n"
    "}\n"
    "static void capped_case(void)\n"
    "{\n"
    "    static const int sz[][2] = {{1280, 7}, {640, 9}, {128, 1}, {1152, 3}};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        emu::schedule = (z + 1) % 3;\n"
    "        const int n = sz[z][0], cap = sz[z][1];\n"
    "        unsigned g = div_up((unsigned)n, 128);\n"
    "        if (g > (unsigned)cap)\n"
    "            g = (unsigned)cap;\n"
    "        const size_t m = (size_t)g * 128;\n"
    "        emu::buf<float> x(m), yo(m), yc(m);\n"
    "        x.fill(z + 6);\n"
    "        yo.set(-3.0f);\n"
    "        yc.set(-3.0f);\n"
    "        emu::launch(dim3(g), dim3(128), 0, [&] { orig::scale_capped(yo, x, 1.5f, n, cap); });\n"
    "        const dim3 gc = VEC ? dim3(VEC == 1 ? 1u : 3u) : dim3(div_up(g, K));\n"
    "        const dim3 bc = VEC == 3 ? dim3(32) : dim3(128);\n"
    "        emu::launch(gc, bc, 0, [&] { cand::scale_capped(yc, x, 1.5f, n, cap); });\n"
    "        emu::expect(\"capped\", yo, yc);\n"
    "    }\n"
    "}\n"
    "static void rows_case(void)\n"
    "{\n"
    "    static const int sz[] = {1000, 77, 5, 300};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int n = sz[z];\n"
    "        const unsigned blocks = div_up((unsigned)n, 32), gx = blocks < 3 ? blocks : 3;\n"
    "        const dim3 g(gx, div_up(blocks, 3)), gc(div_up(gx, K), g.y);\n"
    "        emu::buf<float> p(n), dd(n), dc(n);\n"
    "        p.fill(z + 7);\n"
    "        dd.set(-4.0f);\n"
    "        dc.set(-4.0f);\n"
    "        emu::launch(g, dim3(32), 0, [&] { orig::dist_rows(p, dd, n, 3.0f); });\n"
    "        emu::launch(gc, dim3(32), 0, [&] { cand::dist_rows(p, dc, n, 3.0f); });\n"
    "        emu::expect(\"rows\", dd, dc);\n"
    "    }\n"
    "}\n";

/* Every candidate emulated against its original (one g++ run: emu_batch.h). */
static void emulated_equal(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static emu_batch batch;
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *kernel, *spec, *driver;
    } ks[] = {{"norm_rows", norm_spec, "norm_case();"}, {"scale_capped", capped_spec, "capped_case();"},
              {"dist_rows", rows_spec, "rows_case();"}};
    for (size_t i = 0; i < HK_ARRAY_LEN(ks); i++) {
        static const int kk[] = {4, 2, 8};
        for (size_t l = 0; l < HK_ARRAY_LEN(kk); l++) {
            char *cand = applied("coarsen", ks[i].kernel, ks[i].spec, kk[l]);
            char driver[200], tag[64];
            snprintf(driver, sizeof driver, "K = %d; %s", kk[l], ks[i].driver);
            snprintf(tag, sizeof tag, "co_%s_%d", ks[i].kernel, kk[l]);
            emu_batch_add_pair(&batch, tag, kernels, cand, helpers, driver, EMU_OK);
            free(cand);
        }
        static const int ws[] = {4, 2};
        for (size_t l = 0; l < HK_ARRAY_LEN(ws) && i < 2; l++) {   /* dist_rows has its bound: coarsen only */
            char *cand = applied("vectorize", ks[i].kernel, ks[i].spec, ws[l]);
            for (int v = 1; v <= 3; v++) {
                char driver[200], tag[64];
                snprintf(driver, sizeof driver, "VEC = %d; %s", v, ks[i].driver);
                snprintf(tag, sizeof tag, "vec_%s_%d_%d", ks[i].kernel, ws[l], v);
                emu_batch_add_pair(&batch, tag, kernels, cand, helpers, driver, EMU_OK);
            }
            free(cand);
        }
    }
    emu_batch_run(&batch);
}

/* The check can fail: the vectorized count put back to the launch's (under one block it
 * covers 64 of the elements), coarsen's bound put back to the divided grid's (the last
 * block's virtual blocks run past the elements): each differs or crashes. */
static void broken_differs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static const struct {
        const char *rewrite, *kernel, *spec, *from, *to, *driver;
        int p0;
    } br[] = {
        {"vectorize", "norm_rows", norm_spec, "const auto hk_n = (unsigned int)(",
         "const auto hk_n = gridDim.x * blockDim.x + 0 * (", "VEC = 1; norm_case();", 4},
        {"vectorize", "scale_capped", capped_spec, "const auto hk_n = (unsigned int)(",
         "const auto hk_n = gridDim.x * blockDim.x + 0 * (", "VEC = 3; capped_case();", 4},
        {"coarsen", "norm_rows", norm_spec, "const unsigned int hk_co_grid = (unsigned int)(",
         "const unsigned int hk_co_grid = gridDim.x * 4u + 0 * (", "K = 4; norm_case();", 4},
        /* the row-major index over the divided grid's own count: rows overlap */
        {"coarsen", "dist_rows", rows_spec, "blockDim.x * (hk_co_grid * blockIdx.y",
         "blockDim.x * (gridDim.x * blockIdx.y", "K = 4; rows_case();", 4},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(br); i++) {
        char *cand = applied(br[i].rewrite, br[i].kernel, br[i].spec, br[i].p0);
        assert_non_null(strstr(cand, br[i].from));
        char *broken = emu_replaced_all(cand, br[i].from, br[i].to);
        char tag[64];
        snprintf(tag, sizeof tag, "broken_%zu", i);
        emu_program p = {.dir = tmpdir, .tag = tag, .orig = kernels, .orig_len = strlen(kernels),
                         .cand = broken, .cand_len = strlen(broken), .helpers = helpers, .driver = br[i].driver};
        static char log[16384];
        int got = emu_run(&p, log, sizeof log);
        if (got != EMU_DIFFERS && got != EMU_CRASHED)
            print_message("broken %zu: %d %.300s\n", i, got, log);
        assert_true(got == EMU_DIFFERS || got == EMU_CRASHED);
        free(broken);
        free(cand);
    }
}

/* Review (rev2, s51): texts that computed another count than the spec's.
 * - a number with a leading zero: expr.c (and the harness) read `064` as 64, C as octal 52:
 *   the bound and the count were ceil_div(n, 52) blocks, past the buffers;
 * - `- -64`: the tokens written back to back gave `--`, which C reads as a decrement (the
 *   text does not compile);
 * - a size no 32-bit parameter holds: the spec's n = 2^31 passed as an int arrives as -2^31,
 *   and min(ceil_div(n - 2147482368, 128), cap) in the kernel's parameters was
 *   -33554422 blocks, not 7: the count 1280 ran past the 896 elements. */
#define NORM_SPEC_GRID(g)                                                                                       \
    "{\"name\": \"norm\", \"source\": \"k.cu\", \"kernel\": \"norm_rows\","                                     \
    " \"sizes\": [{\"B\": 4, \"T\": 8, \"C\": 96}, {\"B\": 7, \"T\": 3, \"C\": 64}],"                           \
    " \"args\": [" ARG_B("out", "output", "B * T * C") ", " ARG_B("inp", "input", "B * T * C") ", "            \
    ARG_B("mean", "input", "B * T") ", " ARG_B("rstd", "input", "B * T") ", " ARG_B("weight", "input", "C") ", " \
    ARG_B("bias", "input", "C") ", " ARG_I("B", "B") ", " ARG_I("T", "T") ", " ARG_I("C", "C") "],"             \
    " \"launch\": {\"grid\": \"" g "\", \"block\": 64}}"
static const char octal_spec[] = NORM_SPEC_GRID("ceil_div(B * T * C, 064)");
static const char minus_spec[] = NORM_SPEC_GRID("ceil_div(B * T * C - -64, 64) - 1");
static const char wide_spec[] =
    "{\"name\": \"wide\", \"source\": \"k.cu\", \"kernel\": \"scale_capped\","
    " \"sizes\": [{\"n\": 2147483648, \"cap\": 7}, {\"n\": 2147483000, \"cap\": 7}],"
    " \"args\": [" ARG_B("y", "output", "cap * 128") ", " ARG_B("x", "input", "cap * 128") ", " ARG_F("a", "1.5") ", "
    ARG_I("n", "n") ", " ARG_I("cap", "cap") "],"
    " \"launch\": {\"grid\": \"min(ceil_div(n - 2147482368, 128), cap)\", \"block\": 128}}";
static const char wide_helpers[] =
    "static void wide_case(void)\n"
    "{\n"
    "    const int n = (int)2147483648LL, cap = 7;   /* what the kernel receives */\n"
    "    emu::buf<float> x(896), yo(896), yc(896);\n"
    "    x.fill(3);\n"
    "    yo.set(-3.0f);\n"
    "    yc.set(-3.0f);\n"
    "    emu::launch(dim3(7), dim3(128), 0, [&] { orig::scale_capped(yo, x, 1.5f, n, cap); });\n"
    "    emu::launch(dim3(VEC ? 7 : 2), dim3(128), 0, [&] { cand::scale_capped(yc, x, 1.5f, n, cap); });\n"
    "    emu::expect(\"wide\", yo, yc);\n"
    "}\n";

/* A grid whose translation outgrows the operands' own buffers (16384 characters: seven
 * nested ceil_div): a refusal, as a bound over 2048 is, not an error of the rewrite. */
static const char deeper_spec[] = NORM_SPEC_GRID(
    "ceil_div(ceil_div(ceil_div(ceil_div(ceil_div(ceil_div(ceil_div(B * T * C, 1), 1), 1), 1), 1), 1), 64)");

static void review_deep_grid_refuses(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    spec *sp = parse_spec(deeper_spec);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "norm_rows"), .spec = sp};
    rw_refusal why;
    int rc = rw_applies(rw_find("coarsen"), &ctx, NULL, &why);
    if (rc != HK_OK || !strstr(why.reason, "more than the bound holds"))
        print_message("deeper grid: rc %d \"%s\" line %d: %s\n", rc, why.construct, why.line, why.reason);
    assert_int_equal(rc, HK_OK);
    assert_non_null(strstr(why.reason, "more than the bound holds"));
    rw_result r;
    int four[RW_MAX_PARAMS] = {4};
    assert_int_equal(rw_apply_named("coarsen", &ctx, four, &r, NULL), HK_OK);
    assert_false(r.applicable);
    rw_result_free(&r);
    assert_int_equal(rw_apply_named("vectorize", &ctx, four, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_true(r.keeps_grid);
    rw_result_free(&r);
    spec_free(sp);
    unload(&fx);
}

/* The file launches norm_rows at two sites: the spec's (ceil_div(B * T * C, 64) blocks of 64)
 * and one row per block (B * T blocks of C threads). The spec's count in the kernel's
 * parameters holds at the first only: under the second, with B * T * C no multiple of 64, it
 * counts past the elements. Both rewrites keep to the launch's own grid there. */
static const char host_sites[] =
    "/* host */\n"
    "void run(float *out, const float *inp, const float *mean, const float *rstd, const float *w,\n"
    "         const float *b, int B, int T, int C)\n"
    "{\n"
    "    norm_rows<<<(B * T * C + 63) / 64, 64>>>(out, inp, mean, rstd, w, b, B, T, C);\n"
    "    norm_rows<<<B * T, C>>>(out, inp, mean, rstd, w, b, B, T, C);\n"
    "}\n";
static const char rows_helpers[] =
    "static void rows_launch_case(void)\n"
    "{\n"
    "    const int B = 7, T = 3, C = 96;\n"
    "    const size_t n = (size_t)B * T * C;   /* 2016: no multiple of 64 */\n"
    "    emu::buf<float> inp(n), mean((size_t)B * T), rstd((size_t)B * T), w(C), b(C), oo(n), oc(n);\n"
    "    inp.fill(1);\n"
    "    mean.fill(2);\n"
    "    rstd.fill(3);\n"
    "    w.fill(4);\n"
    "    b.fill(5);\n"
    "    oo.set(-1.0f);\n"
    "    oc.set(-1.0f);\n"
    "    emu::launch(dim3(B * T), dim3(C), 0, [&] { orig::norm_rows(oo, inp, mean, rstd, w, b, B, T, C); });\n"
    "    emu::launch(dim3(B * T), dim3(C), 0, [&] { cand::norm_rows(oc, inp, mean, rstd, w, b, B, T, C); });\n"
    "    emu::expect(\"rows launch\", oo, oc);\n"
    "}\n";

static void review_other_launch_sites(void **state)
{
    (void)state;
    size_t tn = strlen(kernels) + strlen(host_sites) + 1;
    char *text = malloc(tn);
    assert_non_null(text);
    snprintf(text, tn, "%s%s", kernels, host_sites);
    fixture fx;
    load_text(text, &fx);
    spec *sp = parse_spec(norm_spec);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "norm_rows"), .spec = sp};
    rw_result r;
    int four[RW_MAX_PARAMS] = {4};
    assert_int_equal(rw_apply_named("vectorize", &ctx, four, &r, NULL), HK_OK);
    assert_true(r.applicable);
    if (!r.keeps_grid)
        print_message("two sites, vectorize:\n%s\n", r.text);
    assert_true(r.keeps_grid);
    char *cand = strdup(r.text);
    assert_non_null(cand);
    rw_result_free(&r);
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("coarsen"), &ctx, four, &why), HK_OK);
    if (!strstr(why.reason, "launches the kernel at lines 32 and 33"))
        print_message("two sites, coarsen: \"%s\" line %d: %s\n", why.construct, why.line, why.reason);
    assert_non_null(strstr(why.reason, "launches the kernel at lines 32 and 33"));
    spec_free(sp);
    unload(&fx);
    free(text);

    SKIP_WITHOUT_EMULATOR();
    char *host = strstr(cand, "/* host */");   /* the kernels only */
    assert_non_null(host);
    *host = '\0';
    size_t hn = strlen(helpers) + strlen(rows_helpers) + 1;
    char *h = malloc(hn);
    assert_non_null(h);
    snprintf(h, hn, "%s%s", helpers, rows_helpers);
    emu_program p = {.dir = tmpdir, .tag = "rev2_sites", .orig = kernels, .orig_len = strlen(kernels),
                     .cand = cand, .cand_len = strlen(cand), .helpers = h, .driver = "rows_launch_case();"};
    static char log[16384];
    int got = emu_run(&p, log, sizeof log);
    if (got != EMU_OK)
        print_message("two sites, emulated: %d %.600s\n", got, log);
    assert_int_equal(got, EMU_OK);
    free(h);
    free(cand);
}

static void review_literals_and_ranges(void **state)
{
    (void)state;
    /* the literal as the spec reads it, the two minus signs apart */
    rw_result r;
    rewrite_of("vectorize", "norm_rows", octal_spec, 4, &r);
    assert_true(r.applicable);
    if (strstr(r.text, "064") || !strstr(r.text, "/ (64)"))
        print_message("octal:\n%s\n", r.text);
    assert_null(strstr(r.text, "064"));
    assert_non_null(strstr(r.text, "/ (64)"));
    rw_result_free(&r);
    rewrite_of("coarsen", "norm_rows", minus_spec, 4, &r);
    assert_true(r.applicable);
    if (strstr(r.text, "--"))
        print_message("minus:\n%s\n", r.text);
    assert_null(strstr(r.text, "--"));
    rw_result_free(&r);
    /* n = 2^31 does not fit the int n: coarsen refuses, vectorize keeps the spec's grid */
    fixture fx;
    load_text(kernels, &fx);
    spec *sp = parse_spec(wide_spec);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "scale_capped"), .spec = sp};
    rw_refusal why;
    int two[RW_MAX_PARAMS] = {2};
    assert_int_equal(rw_applies(rw_find("coarsen"), &ctx, two, &why), HK_OK);
    if (!strstr(why.reason, "2147483648 (size set 0) parameter n cannot hold"))
        print_message("wide: \"%s\" line %d: %s\n", why.construct, why.line, why.reason);
    assert_non_null(strstr(why.reason, "2147483648 (size set 0) parameter n cannot hold"));
    spec_free(sp);
    unload(&fx);
    rewrite_of("vectorize", "scale_capped", wide_spec, 4, &r);
    assert_true(r.applicable);
    if (!r.keeps_grid)
        print_message("wide vectorize:\n%s\n", r.text);
    assert_true(r.keeps_grid);
    assert_non_null(strstr(r.text, "const auto hk_n = gridDim.x * blockDim.x;"));
    rw_result_free(&r);

    SKIP_WITHOUT_EMULATOR();
    static emu_batch batch;
    emu_batch_init(&batch, tmpdir, __func__);
    size_t hn = strlen(helpers) + strlen(wide_helpers) + 1;
    char *h = malloc(hn);
    assert_non_null(h);
    snprintf(h, hn, "%s%s", helpers, wide_helpers);
    static const struct {
        const char *rewrite, *spec, *kernel, *driver;
    } cs[] = {
        {"coarsen", octal_spec, "norm_rows", "K = 4; norm_case();"},
        {"vectorize", octal_spec, "norm_rows", "VEC = 1; norm_case();"},
        {"coarsen", minus_spec, "norm_rows", "K = 4; norm_case();"},
        {"vectorize", minus_spec, "norm_rows", "VEC = 3; norm_case();"},
        {"vectorize", wide_spec, "scale_capped", "VEC = 1; wide_case();"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cs); i++) {
        char *cand = applied(cs[i].rewrite, cs[i].kernel, cs[i].spec, 4);
        char tag[64];
        snprintf(tag, sizeof tag, "rev2_%zu", i);
        emu_batch_add_pair(&batch, tag, kernels, cand, h, cs[i].driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(coarsen_translates_functions),
        cmocka_unit_test(vectorize_counts_the_spec_launch),
        cmocka_unit_test(untranslated_refuses_or_keeps),
        cmocka_unit_test(emulated_equal),
        cmocka_unit_test(broken_differs),
        cmocka_unit_test(review_literals_and_ranges),
        cmocka_unit_test(review_deep_grid_refuses),
        cmocka_unit_test(review_other_launch_sites),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
