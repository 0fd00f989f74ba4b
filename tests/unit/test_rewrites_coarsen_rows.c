/* coarsen along the slow axis (issue 13): 2-D and 3-D kernels whose blocks are indexed by
 * blockIdx.y -- a 7-point stencil with one block per (j, k) line and no bound on k
 * (Parboil's shape, its index in a macro or inline over unsigned temporaries), rows of a
 * 2-D grid under an if-guard or an early return over size_t, one block row per image row
 * with its border rows found through gridDim.y (with and without a bound of its own on the
 * row: gridDim.y reads the spec's grid either way), a row pointer moved by the kernel -- take K
 * virtual blocks along y under a spec whose grid has at least K rows at every size: the
 * grid's y divided by K, a virtual block past the spec's grid skipped by the spec's grid
 * written in the kernel's own parameters when no bound of the kernel's covers it. Each must
 * compile with nvcc and, in the block emulator, leave exactly the original's memory at
 * sizes not multiples of K; the ones it cannot do refuse with the construct and line. */
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
    return rwf_setup("rewrites-coarsen-rows");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char kernels[] =
    "#define AT(nx, ny, i, j, k) ((i) + (nx) * ((j) + (ny) * (k)))\n"
    "__global__ void lap_macro(float c0, float c1, const float *in, float *out, int nx, int ny, int nz)\n"
    "{\n"
    "    int i = threadIdx.x;\n"
    "    int j = blockIdx.x + 1;\n"
    "    int k = blockIdx.y + 1;\n"
    "    if (i > 0 && i < nx - 1)\n"
    "        out[AT(nx, ny, i, j, k)] = c1 * (in[AT(nx, ny, i, j, k + 1)] + in[AT(nx, ny, i, j, k - 1)] +\n"
    "                                         in[AT(nx, ny, i, j + 1, k)] + in[AT(nx, ny, i, j - 1, k)] +\n"
    "                                         in[AT(nx, ny, i + 1, j, k)] + in[AT(nx, ny, i - 1, j, k)]) -\n"
    "                                   c0 * in[AT(nx, ny, i, j, k)];\n"
    "}\n"
    "__global__ void lap_inline(float c0, float c1, const float *in, float *out, int nx, int ny, int nz)\n"
    "{\n"
    "    const unsigned int plane = (unsigned int)(nx * ny);\n"
    "    const unsigned int at = (blockIdx.y + 1u) * plane + (blockIdx.x + 1u) * nx + threadIdx.x;\n"
    "    if (threadIdx.x == 0 || threadIdx.x >= (unsigned int)nx - 1u)\n"
    "        return;\n"
    "    float s = in[at + plane];\n"
    "    s += in[at - plane];\n"
    "    s += in[at + nx];\n"
    "    s += in[at - nx];\n"
    "    s += in[at + 1];\n"
    "    s += in[at - 1];\n"
    "    out[at] = fmaf(c1, s, -c0 * in[at]);\n"
    "}\n"
    "__global__ void rows_if(const float *x, float *y, float a, int rows, int cols)\n"
    "{\n"
    "    int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (r < rows && c < cols)\n"
    "        y[r * cols + c] = a * x[r * cols + c] + y[r * cols + c];\n"
    "}\n"
    "__global__ void rows_return(const float *x, float *y, float a, size_t rows, size_t cols)\n"
    "{\n"
    "    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    size_t r = (size_t)threadIdx.y + (size_t)blockIdx.y * blockDim.y;\n"
    "    if (r >= rows || c >= cols)\n"
    "        return;\n"
    "    const size_t e = r * cols + c;\n"
    "    y[e] = a * x[e] + y[e];\n"
    "}\n"
    "__global__ void border_rows(const float *in, float *out, int rows, int cols)\n"
    "{\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int r = blockIdx.y;\n"
    "    int up = blockIdx.y == 0 ? r : r - 1;\n"
    "    int down = blockIdx.y == gridDim.y - 1 ? r : r + 1;\n"
    "    if (c < cols)\n"
    "        out[r * cols + c] = in[up * cols + c] - 2.0f * in[r * cols + c] + in[down * cols + c];\n"
    "}\n"
    "__global__ void border_guarded(const float *in, float *out, int rows, int cols)\n"
    "{\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int r = blockIdx.y;\n"
    "    if (r < rows && c < cols) {\n"
    "        int down = blockIdx.y + 1 == gridDim.y ? r : r + 1;\n"
    "        out[r * cols + c] = in[down * cols + c] - in[r * cols + c];\n"
    "    }\n"
    "}\n"
    "__global__ void row_moved(const float *in, float *out, int rows, int cols, float s)\n"
    "{\n"
    "    in += blockIdx.y * cols;\n"
    "    out += blockIdx.y * cols;\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (c < cols)\n"
    "        out[c] = s * in[c];\n"
    "}\n";

/* The specs: sizes whose grid along y is no multiple of 4 or 8 (the kernels' own bounds
 * or the translated grid must cut the last virtual blocks). */
#define ARG_F(n, v) "{\"name\": \"" n "\", \"kind\": \"scalar\", \"dtype\": \"float\", \"value\": " v "}"
#define ARG_I(n, v) "{\"name\": \"" n "\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"" v "\"}"
#define ARG_B(n, k, c) "{\"name\": \"" n "\", \"kind\": \"" k "\", \"dtype\": \"float\", \"count\": \"" c "\"}"
static const char lap_spec[] =
    "{\"name\": \"lap\", \"source\": \"k.cu\", \"kernel\": \"lap_macro\","
    " \"sizes\": [{\"nx\": 64, \"ny\": 66, \"nz\": 67}, {\"nx\": 33, \"ny\": 9, \"nz\": 21}],"
    " \"args\": [" ARG_F("c0", "0.5") ", " ARG_F("c1", "0.25") ", " ARG_B("in", "input", "nx * ny * nz") ", "
    ARG_B("out", "inout", "nx * ny * nz") ", " ARG_I("nx", "nx") ", " ARG_I("ny", "ny") ", " ARG_I("nz", "nz") "],"
    " \"launch\": {\"grid\": [\"ny - 2\", \"nz - 2\"], \"block\": \"nx\"}}";
static const char rows_spec[] =
    "{\"name\": \"rows\", \"source\": \"k.cu\", \"kernel\": \"rows_if\","
    " \"sizes\": [{\"rows\": 1001, \"cols\": 300}, {\"rows\": 77, \"cols\": 5}],"
    " \"args\": [" ARG_B("x", "input", "rows * cols") ", " ARG_B("y", "inout", "rows * cols") ", " ARG_F("a", "1.5")
    ", " ARG_I("rows", "rows") ", " ARG_I("cols", "cols") "],"
    " \"launch\": {\"grid\": [\"ceil_div(cols, block_x)\", \"ceil_div(rows, block_y)\"], \"block\": [32, 2]}}";
static const char border_spec[] =
    "{\"name\": \"border\", \"source\": \"k.cu\", \"kernel\": \"border_rows\","
    " \"sizes\": [{\"rows\": 1001, \"cols\": 300}, {\"rows\": 77, \"cols\": 5}],"
    " \"args\": [" ARG_B("in", "input", "rows * cols") ", " ARG_B("out", "output", "rows * cols") ", "
    ARG_I("rows", "rows") ", " ARG_I("cols", "cols") "],"
    " \"launch\": {\"grid\": [\"ceil_div(cols, block_x)\", \"rows\"], \"block\": 64}}";
static const char guarded_spec[] =
    "{\"name\": \"guarded\", \"source\": \"k.cu\", \"kernel\": \"border_guarded\","
    " \"sizes\": [{\"rows\": 1001, \"cols\": 300}, {\"rows\": 77, \"cols\": 5}],"
    " \"args\": [" ARG_B("in", "input", "rows * cols") ", " ARG_B("out", "output", "rows * cols") ", "
    ARG_I("rows", "rows") ", " ARG_I("cols", "cols") "],"
    " \"launch\": {\"grid\": [\"ceil_div(cols, block_x)\", \"rows\"], \"block\": 64}}";
static const char moved_spec[] =
    "{\"name\": \"moved\", \"source\": \"k.cu\", \"kernel\": \"row_moved\","
    " \"sizes\": [{\"rows\": 1001, \"cols\": 300}, {\"rows\": 77, \"cols\": 5}],"
    " \"args\": [" ARG_B("in", "input", "rows * cols") ", " ARG_B("out", "output", "rows * cols") ", "
    ARG_I("rows", "rows") ", " ARG_I("cols", "cols") ", " ARG_F("s", "3.0") "],"
    " \"launch\": {\"grid\": [\"ceil_div(cols, block_x)\", \"rows\"], \"block\": 64}}";

typedef struct {
    const char *kernel;
    const char *spec;
    const char *shape;   /* a line the rewrite must emit */
} row_case;

static const row_case cases[] = {
    {"lap_macro", lap_spec, "const unsigned int hk_co_grid = (unsigned int)((long long)(nz)-2);"},
    {"lap_inline", lap_spec, "if (blockIdx.y * 4u + 3u < hk_co_grid) {"},
    {"rows_if", rows_spec, "int r = hk_co_by * blockDim.y + threadIdx.y;"},
    {"rows_return", rows_spec, "if (r >= rows || c >= cols)\n        continue;"},
    {"border_rows", border_spec, "int down = hk_co_by == hk_co_grid - 1 ? r : r + 1;"},
    {"row_moved", moved_spec, "in = hk_co_entry_in;"},
    {"border_guarded", guarded_spec, "int down = hk_co_by + 1 == hk_co_grid ? r : r + 1;"},
};

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

/* The rewrite of c's kernel at K elements (0: the default) under its spec: applicable. */
static char *rewrite_rows(const row_case *c, int K, rw_result *keep)
{
    fixture fx;
    load_text(kernels, &fx);
    spec *sp = parse_spec(c->spec);
    int params[RW_MAX_PARAMS] = {K};
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, c->kernel), .spec = sp};
    rw_result r;
    assert_int_equal(rw_apply_named("coarsen", &ctx, params, &r, NULL), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", c->kernel, r.description);
    assert_true(r.applicable);
    char *text = strdup(r.text);
    assert_non_null(text);
    if (keep)
        *keep = r;
    else
        rw_result_free(&r);
    spec_free(sp);
    unload(&fx);
    return text;
}

/* Each applies at 4, 2 and 8 along y (the grid's y divided by K), with the shape it needs,
 * and compiles. */
static void applies_along_y(void **state)
{
    (void)state;
    static const int ks[] = {0, 2, 8};
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++)
        for (size_t l = 0; l < HK_ARRAY_LEN(ks); l++) {
            rw_result r;
            char *text = rewrite_rows(&cases[i], ks[l], &r);
            assert_int_equal(r.grid_divisor, ks[l] ? ks[l] : 4);
            assert_int_equal(r.grid_axis, 1);
            if (l == 0) {
                if (!strstr(text, cases[i].shape))
                    print_message("%s: no `%s` in\n%s\n", cases[i].kernel, cases[i].shape, text);
                assert_non_null(strstr(text, cases[i].shape));
                char tag[64];
                snprintf(tag, sizeof tag, "coarsen_rows_%s", cases[i].kernel);
                rwf_nvcc_compiles(text, tag);
            }
            rw_result_free(&r);
            free(text);
        }
}

/* Without a spec (or with one whose grid has fewer than K rows), the rows stay and the
 * blocks along x are the virtual ones, as before. */
static void x_without_spec(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "rows_if")};
    rw_result r;
    assert_int_equal(rw_apply_named("coarsen", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_int_equal(r.grid_axis, 0);
    assert_non_null(strstr(r.text, "hk_co_bx"));
    rw_result_free(&r);
    static const char few_rows[] =
        "{\"name\": \"rows\", \"source\": \"k.cu\", \"kernel\": \"rows_if\","
        " \"sizes\": [{\"rows\": 1001, \"cols\": 300}, {\"rows\": 3, \"cols\": 5000}],"
        " \"args\": [" ARG_B("x", "input", "rows * cols") ", " ARG_B("y", "inout", "rows * cols") ", "
        ARG_F("a", "1.5") ", " ARG_I("rows", "rows") ", " ARG_I("cols", "cols") "],"
        " \"launch\": {\"grid\": [\"ceil_div(cols, block_x)\", \"ceil_div(rows, block_y)\"], \"block\": [32, 2]}}";
    spec *sp = parse_spec(few_rows);
    ctx.spec = sp;
    assert_int_equal(rw_apply_named("coarsen", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_int_equal(r.grid_axis, 0);
    rw_result_free(&r);
    spec_free(sp);
    unload(&fx);
}

static const char refused_src[] =
    "__global__ void hidden_rows(const float *x, float *y)\n"                          /* 1 */
    "{\n"
    "    int r = blockIdx.y;\n"
    "    y[r * 64 + threadIdx.x] = 2.0f * x[r * 64 + threadIdx.x];\n"
    "}\n"                                                                               /* 5 */
    "__global__ void written_bound(const float *x, float *y, int rows)\n"
    "{\n"
    "    rows = rows - 1;\n"
    "    int r = blockIdx.y;\n"
    "    y[r * 64 + threadIdx.x] = 2.0f * x[r * 64 + threadIdx.x] + (float)rows;\n"  /* 10 */
    "}\n"
    "__global__ void below(float *y, int rows)\n"
    "{\n"
    "    int r = blockIdx.y;\n"
    "    y[r * 64 + threadIdx.x] = y[(r + 1) * 64 + threadIdx.x];\n"                /* 15 */
    "}\n"
    "__global__ void float_rows(const float *x, float *y, float rows)\n"
    "{\n"
    "    int r = blockIdx.y;\n"
    "    y[r * 64 + threadIdx.x] = x[r * 64 + threadIdx.x] * rows;\n"               /* 20 */
    "}\n";

/* A grid along y that the kernel cannot see (its size is no parameter's, or only a float
 * one's), a parameter that carries it but is written, a row that reads the next row's
 * elements it may write. */
static void refusals_name_construct_and_line(void **state)
{
    (void)state;
    static const struct {
        const char *kernel, *construct, *words;
        int line;
    } want[] = {
        {"hidden_rows", "access", "no integer parameter of the kernel receives", 4},
        {"written_bound", "access", "which the kernel writes", 10},
        {"below", "access", "other than the one written", 15},
        {"float_rows", "access", "no integer parameter of the kernel receives", 20},
    };
    static const char spec_fmt[] =
        "{\"name\": \"r\", \"source\": \"k.cu\", \"kernel\": \"%s\", \"sizes\": [{\"rows\": 1001}, {\"rows\": 77}],"
        " \"args\": [%s],"
        " \"launch\": {\"grid\": [1, \"rows\"], \"block\": 64}}";
    static const char *const args[] = {
        ARG_B("x", "input", "rows * 64") ", " ARG_B("y", "output", "rows * 64"),
        ARG_B("x", "input", "rows * 64") ", " ARG_B("y", "output", "rows * 64") ", " ARG_I("rows", "rows"),
        ARG_B("y", "inout", "rows * 64 + 64") ", " ARG_I("rows", "rows"),
        ARG_B("x", "input", "rows * 64") ", " ARG_B("y", "output", "rows * 64") ", "
        "{\"name\": \"rows\", \"kind\": \"scalar\", \"dtype\": \"float\", \"value\": \"rows\"}",
    };
    fixture fx;
    load_text(refused_src, &fx);
    const rw_descriptor *d = rw_find("coarsen");
    assert_non_null(d);
    int failures = 0;
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++) {
        char text[2048];
        snprintf(text, sizeof text, spec_fmt, want[i].kernel, args[i]);
        spec *sp = parse_spec(text);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, want[i].kernel),
                          .spec = sp};
        rw_refusal why;
        assert_int_equal(rw_applies(d, &ctx, NULL, &why), HK_OK);
        if (why.line != want[i].line || strcmp(why.construct, want[i].construct) || !strstr(why.reason, want[i].words)) {
            print_error("%s: wanted %s at line %d (\"%s\"), got \"%s\" line %d: %s\n", want[i].kernel,
                        want[i].construct, want[i].line, want[i].words, why.construct, why.line, why.reason);
            failures++;
        }
        spec_free(sp);
    }
    unload(&fx);
    assert_int_equal(failures, 0);
}

/* The originals under their grid, the rewrites under the grid's y divided by K (rounded
 * up), at sizes whose rows are no multiple of K. */
static const char helpers[] =
    "static int K = 4;\n"
    "static unsigned div_up(unsigned a, unsigned b) { return (a + b - 1) / b; }\n"
    "static void lap_case(int which)\n"
    "{\n"
    "    static const int sz[][3] = {{6, 5, 3}, {9, 4, 7}, {17, 6, 13}, {33, 3, 8}};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int nx = sz[z][0], ny = sz[z][1], nz = sz[z][2];\n"
    "        const size_t n = (size_t)nx * ny * nz;\n"
    "        emu::buf<float> in(n), oo(n), oc(n);\n"
    "        in.fill(z + 1);\n"
    "        oo.set(-1.0f);\n"
    "        oc.set(-1.0f);\n"
    "        const dim3 g(ny - 2, nz - 2), gc(ny - 2, div_up(nz - 2, K));\n"
    "        if (which == 0) {\n"
    "            emu::launch(g, dim3(nx), 0, [&] { orig::lap_macro(0.5f, 0.25f, in, oo, nx, ny, nz); });\n"
    "            emu::launch(gc, dim3(nx), 0, [&] { cand::lap_macro(0.5f, 0.25f, in, oc, nx, ny, nz); });\n"
    "        } else {\n"
    "            emu::launch(g, dim3(nx), 0, [&] { orig::lap_inline(0.5f, 0.25f, in, oo, nx, ny, nz); });\n"
    "            emu::launch(gc, dim3(nx), 0, [&] { cand::lap_inline(0.5f, 0.25f, in, oc, nx, ny, nz); });\n"
    "        }\n"
    "        emu::expect(\"lap\", oo, oc);\n"
    "    }\n"
    "}\n"
    "static void rows_case(int which)\n"
    "{\n"
    "    static const int sz[][2] = {{1, 1}, {5, 3}, {13, 40}, {37, 70}};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        emu::schedule = (z + which) % 3;\n"
    "        const int rows = sz[z][0], cols = sz[z][1];\n"
    "        const dim3 b(32, 2), g(div_up(cols, 32), div_up(rows, 2)), gc(g.x, div_up(g.y, K));\n"
    "        emu::buf<float> x((size_t)rows * cols), yo((size_t)rows * cols), yc((size_t)rows * cols);\n"
    "        x.fill(z + 2);\n"
    "        yo.fill(z + 3);\n"
    "        yc.fill(z + 3);\n"
    "        if (which == 0) {\n"
    "            emu::launch(g, b, 0, [&] { orig::rows_if(x, yo, 1.5f, rows, cols); });\n"
    "            emu::launch(gc, b, 0, [&] { cand::rows_if(x, yc, 1.5f, rows, cols); });\n"
    "        } else {\n"
    "            emu::launch(g, b, 0, [&] { orig::rows_return(x, yo, 1.5f, (size_t)rows, (size_t)cols); });\n"
    "            emu::launch(gc, b, 0, [&] { cand::rows_return(x, yc, 1.5f, (size_t)rows, (size_t)cols); });\n"
    "        }\n"
    "        emu::expect(\"rows\", yo, yc);\n"
    "    }\n"
    "}\n"
    "static void border_case(int which)\n"
    "{\n"
    "    static const int sz[][2] = {{1, 1}, {2, 65}, {7, 40}, {13, 3}};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        emu::schedule = (z + which) % 3;\n"
    "        const int rows = sz[z][0], cols = sz[z][1];\n"
    "        const dim3 g(div_up(cols, 64), rows), gc(g.x, div_up(rows, K));\n"
    "        emu::buf<float> in((size_t)rows * cols), oo((size_t)rows * cols), oc((size_t)rows * cols);\n"
    "        in.fill(z + 4);\n"
    "        oo.set(-2.0f);\n"
    "        oc.set(-2.0f);\n"
    "        if (which == 0) {\n"
    "            emu::launch(g, dim3(64), 0, [&] { orig::border_rows(in, oo, rows, cols); });\n"
    "            emu::launch(gc, dim3(64), 0, [&] { cand::border_rows(in, oc, rows, cols); });\n"
    "        } else if (which == 1) {\n"
    "            emu::launch(g, dim3(64), 0, [&] { orig::row_moved(in, oo, rows, cols, 3.0f); });\n"
    "            emu::launch(gc, dim3(64), 0, [&] { cand::row_moved(in, oc, rows, cols, 3.0f); });\n"
    "        } else {\n"
    "            emu::launch(g, dim3(64), 0, [&] { orig::border_guarded(in, oo, rows, cols); });\n"
    "            emu::launch(gc, dim3(64), 0, [&] { cand::border_guarded(in, oc, rows, cols); });\n"
    "        }\n"
    "        emu::expect(\"border\", oo, oc);\n"
    "    }\n"
    "}\n";

static const char *const drivers[] = {"lap_case(0);", "lap_case(1);", "rows_case(0);", "rows_case(1);",
                                      "border_case(0);", "border_case(1);", "border_case(2);"};

/* Every case at 4, 2 and 8, emulated against its original (one g++ run: emu_batch.h). */
static void emulated_equal(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static emu_batch batch;
    emu_batch_init(&batch, tmpdir, __func__);
    static const int ks[] = {4, 2, 8};
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++)
        for (size_t l = 0; l < HK_ARRAY_LEN(ks); l++) {
            char *cand = rewrite_rows(&cases[i], ks[l], NULL);
            char driver[200], tag[64];
            snprintf(driver, sizeof driver, "K = %d; %s", ks[l], drivers[i]);
            snprintf(tag, sizeof tag, "rows_%s_%d", cases[i].kernel, ks[l]);
            emu_batch_add_pair(&batch, tag, kernels, cand, helpers, driver, EMU_OK);
            free(cand);
        }
    emu_batch_run(&batch);
}

/* The check can fail: the last block's virtual blocks not cut at the spec's grid (they
 * write the rows past it), gridDim.y read as the divided grid's, a moved pointer not reset:
 * each must differ or crash. */
static void broken_differs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static const struct {
        size_t c;
        const char *from, *to, *driver;
    } br[] = {
        {0, "if (hk_co_by >= hk_co_grid)\n            break;", ";", "lap_case(0);"},
        {4, "int down = hk_co_by == hk_co_grid - 1", "int down = hk_co_by == gridDim.y * 4u - 1", "border_case(0);"},
        {5, "in = hk_co_entry_in;", ";", "border_case(1);"},
        {6, "int down = hk_co_by + 1 == hk_co_grid", "int down = hk_co_by + 1 == gridDim.y * 4u", "border_case(2);"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(br); i++) {
        char *cand = rewrite_rows(&cases[br[i].c], 0, NULL);
        /* every copy: the full blocks' and the last block's */
        char *broken = emu_replaced(cand, br[i].from, br[i].to);
        while (strstr(broken, br[i].from)) {
            char *again = emu_replaced(broken, br[i].from, br[i].to);
            free(broken);
            broken = again;
        }
        char tag[64];
        snprintf(tag, sizeof tag, "rows_broken_%zu", i);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(applies_along_y),
        cmocka_unit_test(x_without_spec),
        cmocka_unit_test(refusals_name_construct_and_line),
        cmocka_unit_test(emulated_equal),
        cmocka_unit_test(broken_differs),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
