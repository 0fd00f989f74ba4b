/* tiled_transpose read through the kernel model (issue 13): spellings of one transpose --
 * blockDim or tile macros, int or unsigned or size_t, index temporaries or inline, guarded
 * or not, a loop over rows -- all get the padded shared-memory tile with the extents and
 * buffers the kernel names; near-misses are refused with the construct and its line. One
 * emitted kernel compiles with nvcc -arch=sm_90 -cubin when nvcc is there (no GPU: not run). */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_pattern.h"

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

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-tiles");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* tiled_transpose of kernel kname in src: applicable, with every string of want in the
 * new text; the new text in *text (malloc'd) when text is not NULL. */
static void transpose_applies(const char *src, const char *kname, const char *const *want, char **text)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_tiled_transpose(fx.text, fx.len, fx.m, kernel(&fx, kname), 32, &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    for (size_t i = 0; want[i]; i++) {
        if (!strstr(r.text, want[i]))
            print_message("%s: no `%s` in\n%s\n", kname, want[i], r.text);
        assert_non_null(strstr(r.text, want[i]));
    }
    /* the original copy is gone: one body, the tiled one */
    assert_non_null(strstr(r.text, "__shared__"));
    assert_non_null(strstr(r.text, "[HK_TILE + 1]"));
    assert_non_null(strstr(r.text, "__syncthreads();"));
    if (text)
        *text = strdup(r.text);
    rw_result_free(&r);
    unload(&fx);
}

/* tiled_transpose of kernel kname in src: not applicable, the description holding why. */
static void transpose_refused(const char *src, const char *kname, const char *why)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_tiled_transpose(fx.text, fx.len, fx.m, kernel(&fx, kname), 32, &r), HK_OK);
    if (r.applicable || !strstr(r.description, why))
        print_message("%s: want refusal `%s`, got: %s\n", kname, why, r.description);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, why));
    rw_result_free(&r);
    unload(&fx);
}

/* in: width x ... rows of height; the tile the block reads is [x0, x0+T) x [y0, y0+T) */
static const char *const want_wh[] = {"const long long hk_w = (width), hk_h = (height);",
                                      "idata[(size_t)(hk_y0 + hk_e / HK_TILE) * hk_w",
                                      "odata[(size_t)(hk_x0 + hk_e / HK_TILE) * hk_h", NULL};

/* tile macros, separate in/out index variables, a loop over the rows of the tile, no guard */
static const char macro_loop[] =
    "#define TILE_W 32\n"
    "#define ROWS 8\n"
    "__global__ void tr(float *odata, float *idata, int width, int height)\n"
    "{\n"
    "    int xIndex = blockIdx.x * TILE_W + threadIdx.x;\n"
    "    int yIndex = blockIdx.y * TILE_W + threadIdx.y;\n"
    "    int index_in = xIndex + width * yIndex;\n"
    "    int index_out = yIndex + height * xIndex;\n"
    "    for (int i = 0; i < TILE_W; i += ROWS)\n"
    "        odata[index_out + i] = idata[index_in + i * width];\n"
    "}\n";

/* blockDim, unsigned, temporaries for the offsets, a guard in an if block */
static const char unsigned_temps[] =
    "__global__ void tr(const float *idata, float *odata, unsigned width, unsigned height)\n"
    "{\n"
    "    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    unsigned r = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (c < width && r < height) {\n"
    "        const size_t src = (size_t)r * width + c;\n"
    "        const size_t dst = (size_t)c * height + r;\n"
    "        const float v = idata[src];\n"
    "        odata[dst] = v;\n"
    "    }\n"
    "}\n";

/* inline indices, early return, a template element type */
static const char templated_early[] =
    "template <typename T>\n"
    "__global__ void tr(T *odata, const T *idata, int width, int height)\n"
    "{\n"
    "    if (blockIdx.x * blockDim.x + threadIdx.x >= width) return;\n"
    "    if (blockIdx.y * blockDim.y + threadIdx.y >= height) return;\n"
    "    odata[(blockIdx.x * blockDim.x + threadIdx.x) * height + blockIdx.y * blockDim.y + threadIdx.y] =\n"
    "        idata[(blockIdx.y * blockDim.y + threadIdx.y) * width + blockIdx.x * blockDim.x + threadIdx.x];\n"
    "}\n"
    "template __global__ void tr<float>(float *, const float *, int, int);\n";

/* a square matrix of a constexpr size, x along .y this time */
static const char square_constexpr[] =
    "constexpr int N = 1024;\n"
    "__global__ void tr(double *dst, const double *src)\n"
    "{\n"
    "    const int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    const int col = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    dst[row * N + col] = src[col * N + row];\n"
    "}\n";

static void macro_loop_applies(void **state)
{
    (void)state;
    transpose_applies(macro_loop, "tr", want_wh, NULL);
}

static void unsigned_temporaries_apply(void **state)
{
    (void)state;
    transpose_applies(unsigned_temps, "tr", want_wh, NULL);
}

static void templated_early_return_applies(void **state)
{
    (void)state;
    static const char *const want[] = {"__shared__ T hk_tile[HK_TILE][HK_TILE + 1];",
                                       "const long long hk_w = (width), hk_h = (height);", NULL};
    transpose_applies(templated_early, "tr", want, NULL);
}

static void square_constant_applies(void **state)
{
    (void)state;
    static const char *const want[] = {"__shared__ double hk_tile", "hk_w = (N), hk_h = (N);",
                                       "src[(size_t)", "dst[(size_t)", NULL};
    transpose_applies(square_constexpr, "tr", want, NULL);
}

/* the guard bounds y by the read's stride, not by the write's: not a W x H transpose */
static void wrong_guard_refused(void **state)
{
    (void)state;
    transpose_refused("__global__ void tr(const float *in, float *out, int W, int H)\n"
                      "{\n"
                      "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                      "    if (x < W && y < W)\n"
                      "        out[x * H + y] = in[y * W + x];\n"
                      "}\n",
                      "tr", "line 5: the write is not out[x * H + y]");
}

/* rows twice the stride apart: a strided submatrix, not in[y * W + x] */
static void strided_rows_refused(void **state)
{
    (void)state;
    transpose_refused("__global__ void tr(const float *in, float *out, int w, int h)\n"
                      "{\n"
                      "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                      "    out[x * h + y] = in[2 * y * w + x];\n"
                      "}\n",
                      "tr", "line 5: the maps are not in[y * W + x]");
}

/* a second output: the tiled body would drop it */
static void second_write_refused(void **state)
{
    (void)state;
    transpose_refused("__global__ void tr(const float *in, float *out, int *seen, int w, int h)\n"
                      "{\n"
                      "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                      "    out[x * h + y] = in[y * w + x];\n"
                      "    seen[y * w + x] = 1;\n"
                      "}\n",
                      "tr", "line 6: seen is written besides");
}

/* one thread per input row walks the row's W elements by a loop on a 1-D grid (the shape
 * of Rodinia's kmeans invert_mapping); and one thread per column walking the rows */
static const char loop_rows[] =
    "__global__ void tr(float *in, float *out, int W, int H)\n"
    "{\n"
    "    int p = threadIdx.x + blockDim.x * blockIdx.x;\n"
    "    if (p < H) {\n"
    "        for (int f = 0; f < W; f++)\n"
    "            out[p + H * f] = in[p * W + f];\n"
    "    }\n"
    "}\n";

static void loop_coordinate_applies(void **state)
{
    (void)state;
    static const char *const want[] = {"hk_w = (W), hk_h = (H);", NULL};
    transpose_applies(loop_rows, "tr", want, NULL);
    static const char *const want_cols[] = {"hk_w = (w), hk_h = (h);", NULL};
    transpose_applies("__global__ void tr(const double *src, double *dst, unsigned w, unsigned h)\n"
                      "{\n"
                      "    const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "    if (col >= w) return;\n"
                      "    for (unsigned row = 0; row < h; ++row)\n"
                      "        dst[(size_t)col * h + row] = src[(size_t)row * w + col];\n"
                      "}\n",
                      "tr", want_cols, NULL);
}

/* a loop that may not visit its whole coordinate: from 1, or ended by a break */
static void partial_loop_refused(void **state)
{
    (void)state;
    transpose_refused("__global__ void tr(const float *in, float *out, int W, int H)\n"
                      "{\n"
                      "    int p = threadIdx.x + blockDim.x * blockIdx.x;\n"
                      "    if (p < H)\n"
                      "        for (int f = 1; f < W; f++)\n"
                      "            out[p + H * f] = in[p * W + f];\n"
                      "}\n",
                      "tr", "line 6: the maps are not in[y * W + x]");
    transpose_refused("__global__ void tr(const float *in, float *out, int W, int H)\n"
                      "{\n"
                      "    int p = threadIdx.x + blockDim.x * blockIdx.x;\n"
                      "    if (p < H)\n"
                      "        for (int f = 0; f < W; f++) {\n"
                      "            if (in[p * W] < 0.0f)\n"
                      "                break;\n"
                      "            out[p + H * f] = in[p * W + f];\n"
                      "        }\n"
                      "}\n",
                      "tr", "line 7: a `break` may end the loop");
}

/* the emitted kernel of the macro spelling is CUDA nvcc accepts */
static void macro_loop_compiles(void **state)
{
    (void)state;
    char *text;
    transpose_applies(macro_loop, "tr", want_wh, &text);
    if (access(NVCC, X_OK) != 0) {
        print_message("note: no nvcc at %s, compile check skipped\n", NVCC);
        free(text);
        skip();
    }
    char src[700], cmd[2000], out[8192];
    snprintf(src, sizeof src, "%s/macro_loop.cu", tmpdir);
    rwf_write_file(src, text);
    snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -cubin -std=c++17 -o %s/macro_loop.cubin %s 2>&1", NVCC, tmpdir, src);
    int st = run_cmd(cmd, out, sizeof out);
    if (st != 0)
        print_message("nvcc:\n%s\n---\n%s\n", out, text);
    free(text);
    assert_int_equal(st, 0);
}

static int tiled(const fixture *fx, size_t k, rw_result *r)
{
    return rw_tiled_transpose(fx->text, fx->len, fx->m, k, 32, r);
}

/* every allocation of the model path may fail: HK_ENOMEM, nothing left behind */
static void model_path_survives_alloc_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(macro_loop, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "tr"), tiled);
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(macro_loop_applies),
        cmocka_unit_test(unsigned_temporaries_apply),
        cmocka_unit_test(templated_early_return_applies),
        cmocka_unit_test(square_constant_applies),
        cmocka_unit_test(wrong_guard_refused),
        cmocka_unit_test(strided_rows_refused),
        cmocka_unit_test(second_write_refused),
        cmocka_unit_test(loop_coordinate_applies),
        cmocka_unit_test(partial_loop_refused),
        cmocka_unit_test(macro_loop_compiles),
        cmocka_unit_test(model_path_survives_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
