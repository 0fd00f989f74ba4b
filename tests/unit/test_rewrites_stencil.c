/* stencil_window read through the kernel model (issue 13): one 2-D and one 3-D stencil,
 * each written several ways (index temporaries or inline, a macro for the 3-D index, int,
 * unsigned or size_t, __ldg, float or double, borders copied, guards as an if block or an
 * early return), all get the same register window; near-misses are refused with the
 * construct and its line; every emitted kernel compiles with nvcc -arch=sm_90 -c, and the
 * original and the rewritten kernels run in the block emulator (small ragged sizes, the
 * original grid and the grid divided by K) leave every output bit for bit equal. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "measure/hostcode.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_stencil.h"

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
    return rwf_setup("rewrites-stencil");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* ---- the spellings ---- */

/* 2-D 5-point Jacobi with copied borders, early return, index temporaries, int */
static const char k_jacobi_ret[] =
    "__global__ void jac(const float *src, float *dst, int rows, int cols)\n"
    "{\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (c >= cols || r >= rows)\n"
    "        return;\n"
    "    size_t at = (size_t)r * cols + c;\n"
    "    if (r == 0 || c == 0 || r == rows - 1 || c == cols - 1) {\n"
    "        dst[at] = src[at];\n"
    "        return;\n"
    "    }\n"
    "    dst[at] = 0.25f * (src[at - 1] + src[at + 1] + src[at - cols] + src[at + cols]);\n"
    "}\n";

/* the same interior, inline indices, an if block, unsigned, __ldg, no border copy */
static const char k_jacobi_if[] =
    "__global__ void jac(const float *__restrict__ src, float *__restrict__ dst, unsigned rows, unsigned cols)\n"
    "{\n"
    "    unsigned c = threadIdx.x + blockDim.x * blockIdx.x;\n"
    "    unsigned r = threadIdx.y + blockDim.y * blockIdx.y;\n"
    "    if (c > 0 && r > 0 && c < cols - 1 && r < rows - 1) {\n"
    "        dst[r * cols + c] = 0.25f * (__ldg(&src[r * cols + c - 1]) + __ldg(&src[r * cols + c + 1])\n"
    "                          + __ldg(&src[(r - 1) * cols + c]) + __ldg(&src[(r + 1) * cols + c]));\n"
    "    }\n"
    "}\n";

/* 3-D 7-point, a macro for the index, size_t, double, z from the thread's coordinate */
static const char k_heat3d[] =
    "#define IX(i, j, k) ((i) + (size_t)(nx) * ((j) + (size_t)(ny) * (k)))\n"
    "__global__ void heat(const double *t0, double *t1, int nx, int ny, int nz, double a)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int j = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    int k = blockIdx.z * blockDim.z + threadIdx.z;\n"
    "    if (i > 0 && j > 0 && k > 0 && i < nx - 1 && j < ny - 1 && k < nz - 1)\n"
    "        t1[IX(i, j, k)] = t0[IX(i, j, k)] + a * (t0[IX(i - 1, j, k)] + t0[IX(i + 1, j, k)]\n"
    "            + t0[IX(i, j - 1, k)] + t0[IX(i, j + 1, k)] + t0[IX(i, j, k - 1)] + t0[IX(i, j, k + 1)]\n"
    "            - 6.0 * t0[IX(i, j, k)]);\n"
    "}\n";

/* 3-D written flat: i + j*nx + k*nx*ny, one block per (y, z) line (blockIdx only) */
static const char k_flat3d[] =
    "__global__ void lap(const float *in, float *out, int nx, int ny, int nz)\n"
    "{\n"
    "    int i = threadIdx.x + blockIdx.x * blockDim.x;\n"
    "    int j = blockIdx.y;\n"
    "    int k = blockIdx.z;\n"
    "    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1 || k < 1 || k >= nz - 1)\n"
    "        return;\n"
    "    int c = i + j * nx + k * nx * ny;\n"
    "    out[c] = in[c - nx * ny] + in[c + nx * ny] + in[c - nx] + in[c + nx] + in[c - 1] + in[c + 1] - 6.0f * in[c];\n"
    "}\n";

/* one block of threads per (y, z) line, z from blockIdx.y alone, no bound on z (the grid
 * is exactly the interior) */
static const char k_lines_unbounded[] =
    "#define AT(x, y, z) ((x) + nx * ((y) + ny * (z)))\n"
    "__global__ void relax(float w0, float w1, float *u, float *v, int nx, int ny, int nz)\n"
    "{\n"
    "    int x = threadIdx.x;\n"
    "    int y = blockIdx.x + 1;\n"
    "    int z = blockIdx.y + 1;\n"
    "    if (x > 0 && x < nx - 1)\n"
    "        v[AT(x, y, z)] = w1 * (u[AT(x, y, z - 1)] + u[AT(x, y, z + 1)] + u[AT(x, y - 1, z)]\n"
    "            + u[AT(x, y + 1, z)] + u[AT(x - 1, y, z)] + u[AT(x + 1, y, z)]) - w0 * u[AT(x, y, z)];\n"
    "}\n";

/* ---- near-misses ---- */

static const char k_1d[] =
    "__global__ void s1(const float *in, float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i > 0 && i < n - 1)\n"
    "        out[i] = in[i - 1] + in[i] + in[i + 1];\n"
    "}\n";

static const char k_unbounded[] =
    "__global__ void nb(const float *in, float *out, int w)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int y = blockIdx.y * blockDim.y + threadIdx.y + 1;\n"
    "    if (x > 0 && x < w - 1)\n"
    "        out[y * w + x] = in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] + in[(y + 1) * w + x];\n"
    "}\n";

static const char k_tid_alone[] =
    "__global__ void ta(const float *in, float *out, int w, int h)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1)\n"
    "        return;\n"
    "    float s = threadIdx.y == 0 ? 2.0f : 1.0f;\n"
    "    out[y * w + x] = s * (in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] + in[(y + 1) * w + x]);\n"
    "}\n";

static const char k_macro_builtin[] =
    "#define ROW (blockIdx.y * blockDim.y + threadIdx.y)\n"
    "__global__ void mb(const float *in, float *out, int w, int h)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int y = ROW;\n"
    "    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1)\n"
    "        return;\n"
    "    out[y * w + x] = in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] + in[(y + 1) * w + x];\n"
    "}\n";

static const char k_tiled[] =
    "__global__ void tl(const float *in, float *out, int w, int h)\n"
    "{\n"
    "    __shared__ float t[18][18];\n"
    "    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;\n"
    "    if (x < w && y < h) t[threadIdx.y + 1][threadIdx.x + 1] = in[y * w + x];\n"
    "    __syncthreads();\n"
    "    if (x > 0 && y > 0 && x < w - 1 && y < h - 1)\n"
    "        out[y * w + x] = t[threadIdx.y][threadIdx.x + 1] + t[threadIdx.y + 2][threadIdx.x + 1]\n"
    "                       + t[threadIdx.y + 1][threadIdx.x] + t[threadIdx.y + 1][threadIdx.x + 2];\n"
    "}\n";

static const char k_elementwise[] =
    "__global__ void add2(const float *a, const float *b, float *c, int w, int h)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (x < w && y < h) c[y * w + x] = a[y * w + x] + b[y * w + x];\n"
    "}\n";

/* stencil_window of kname in src with K k: applicable, every string of want in the text
 * and the description; returns the new text (malloc'd). */
/* The rewritten text (malloc'd) of kernel kname at K = k, which must apply; every string of
 * want (NULL-terminated, may be NULL) must be in its text or description. *axis gets the
 * axis the rewrite asks the grid to be divided along and *div the divisor (0: the spec's
 * grid), when not NULL. */
/* 2-D 3 x 3 convolution written with loops over its filter, the radius a #define: the loops
 * are unrolled first, then windowed */
static const char k_conv_loops[] =
    "#define RAD 1\n"
    "__global__ void conv(const float *in, float *out, int nx, int rows)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (x < RAD || y < RAD || x >= nx - RAD || y >= rows - RAD)\n"
    "        return;\n"
    "    float s = 0.0f;\n"
    "#pragma unroll\n"
    "    for (int i = -RAD; i <= RAD; i++) {\n"
    "#pragma unroll\n"
    "        for (int j = -RAD; j <= RAD; j++)\n"
    "            s += in[(y + i) * nx + x + j] * (1.0f + 0.5f * i - 0.25f * j);\n"
    "    }\n"
    "    out[y * nx + x] = s;\n"
    "}\n";

/* Session 48 (spatial): a 5 x 5 filter, loops over -R..R with R a #define 2: 25 copies of
 * the body, unrolled as i and then the five copies of the j loop (each of which had
 * multiplied the count by 5, so that the third was refused and the window never built) */
static const char k_conv5[] =
    "#define R 2\n"
    "__global__ void conv5(const float *in, float *out, int nx, int rows)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (x < R || y < R || x >= nx - R || y >= rows - R)\n"
    "        return;\n"
    "    float s = 0.0f;\n"
    "    for (int i = -R; i <= R; i++)\n"
    "        for (int j = -R; j <= R; j++)\n"
    "            s += in[(y + i) * nx + x + j] * (0.5f + 0.125f * i * j);\n"
    "    out[y * nx + x] = s;\n"
    "}\n";

/* Session 48 (spatial): loops from the window's corner, its offset `MASK_DIM / 2` (a
 * #define of a #define: an operation on named constants the offsets must fold to 1),
 * zero padding by guards inside the loops, the mask a pointer */
static const char k_conv_corner[] =
    "#define MASK_DIM 3\n"
    "#define MASK_OFFSET (MASK_DIM / 2)\n"
    "__global__ void convc(const float *img, const float *mask, float *out, int nx, int rows)\n"
    "{\n"
    "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int r0 = row - MASK_OFFSET;\n"
    "    int c0 = col - MASK_OFFSET;\n"
    "    float t = 0;\n"
    "    for (int i = 0; i < MASK_DIM; i++)\n"
    "        for (int j = 0; j < MASK_DIM; j++)\n"
    "            if (r0 + i >= 0 && r0 + i < rows && c0 + j >= 0 && c0 + j < nx)\n"
    "                t += img[(r0 + i) * nx + (c0 + j)] * mask[i * MASK_DIM + j];\n"
    "    if (row < rows && col < nx)\n"
    "        out[row * nx + col] = t;\n"
    "}\n";

/* Session 48 (spatial): the textbook spelling, the block's size a macro on both axes
 * (`blockIdx.y * TILE_H + threadIdx.y`, no blockDim): the window with blockIdx.y -> blockIdx.y
 * * K, exact for blocks of TILE_H rows (checked at run time: __trap otherwise) */
static const char k_tiled_index[] =
    "#define TILE_W 8\n"
    "#define TILE_H 4\n"
    "__global__ void heat_t(const float *T, float *Tn, int nx, int ny)\n"
    "{\n"
    "    int i = blockIdx.y * TILE_H + threadIdx.y;\n"
    "    int j = blockIdx.x * TILE_W + threadIdx.x;\n"
    "    if (i >= 1 && i < ny - 1 && j >= 1 && j < nx - 1)\n"
    "        Tn[i * nx + j] = T[i * nx + j] + 0.1f * (T[(i + 1) * nx + j] + T[(i - 1) * nx + j]\n"
    "                         + T[i * nx + j + 1] + T[i * nx + j - 1] - 4.0f * T[i * nx + j]);\n"
    "}\n";

/* the tile a literal, threadIdx.y used alone as well (a shared row index would be; here a
 * weight): refused, the block's rows are not only the global index */
static const char k_tiled_alone[] =
    "__global__ void ta2(const float *T, float *Tn, int nx, int ny)\n"
    "{\n"
    "    int i = blockIdx.y * 16 + threadIdx.y;\n"
    "    int j = blockIdx.x * 32 + threadIdx.x;\n"
    "    if (i >= 1 && i < ny - 1 && j < nx)\n"
    "        Tn[i * nx + j] = T[(i + 1) * nx + j] + T[(i - 1) * nx + j] + T[i * nx + j] * threadIdx.y;\n"
    "}\n";

/* Session 48 (spatial): the arrays as arrays of rows of a #define width (`A[i - 1][j]`): the
 * model linearises them with the declared extent, the window's type is the element's */
static const char k_rows2d[] =
    "#define W 16\n"
    "__global__ void j2(const float A[][W], float B[][W], int rows)\n"
    "{\n"
    "    int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= 1 && i < rows - 1 && j >= 1 && j < W - 1)\n"
    "        B[i][j] = 0.2f * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i - 1][j] + A[i + 1][j]);\n"
    "}\n";

/* the same with the radius a parameter: nothing to unroll */
static const char k_conv_param[] =
    "__global__ void convp(const float *in, float *out, int nx, int rows, int rad)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (x < rad || y < rad || x >= nx - rad || y >= rows - rad)\n"
    "        return;\n"
    "    float s = 0.0f;\n"
    "    for (int i = -rad; i <= rad; i++)\n"
    "        for (int j = -rad; j <= rad; j++)\n"
    "            s += in[(y + i) * nx + x + j];\n"
    "    out[y * nx + x] = s;\n"
    "}\n";

/* max pooling whose windows start where a table says (RoIPool's bins): pooling, but no
 * fixed neighbourhood */
static const char k_data_window[] =
    "__global__ void dw(const float *in, const int *start, float *out, int W, int OW, int OH)\n"
    "{\n"
    "    int ox = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int oy = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (ox >= OW || oy >= OH)\n"
    "        return;\n"
    "    int s = start[oy * OW + ox];\n"
    "    float m = -1e30f;\n"
    "    for (int dy = 0; dy < 3; dy++)\n"
    "        for (int dx = 0; dx < 3; dx++)\n"
    "            m = fmaxf(m, in[s + dy * W + dx]);\n"
    "    out[oy * OW + ox] = m;\n"
    "}\n";

static char *applies_launch(const char *src, const char *kname, int k, const char *const *want,
                            unsigned *axis, unsigned *div)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_stencil_window(fx.text, fx.len, fx.m, kernel(&fx, kname), k, &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    for (size_t i = 0; want && want[i]; i++) {
        if (!strstr(r.text, want[i]) && !strstr(r.description, want[i]))
            print_message("%s: no `%s` in\n%s\n%s\n", kname, want[i], r.description, r.text);
        assert_true(strstr(r.text, want[i]) || strstr(r.description, want[i]));
    }
    char *t = strdup(r.text);
    if (axis)
        *axis = r.grid_axis;
    if (div)
        *div = r.grid_divisor;
    rw_result_free(&r);
    unload(&fx);
    return t;
}

static char *applies(const char *src, const char *kname, int k, const char *const *want)
{
    return applies_launch(src, kname, k, want, NULL, NULL);
}

static void refused(const char *src, const char *kname, const char *why)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_stencil_window(fx.text, fx.len, fx.m, kernel(&fx, kname), 8, &r), HK_OK);
    if (r.applicable || !strstr(r.description, why))
        print_message("%s: want refusal `%s`, got: %s\n", kname, why,
                      r.applicable ? r.text : r.description);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, why));
    rw_result_free(&r);
    unload(&fx);
}

static void spellings_get_one_window(void **state)
{
    (void)state;
    /* 2-D: rows r-1 .. r+1, in-row offsets -1, 0, +1: K + 2 rows x 3 columns */
    static const char *const w2[] = {"hk_win_src[10][3]", "radius 1", "along y", "(threadIdx.y * 8 + hk_k)",
                                     "(blockDim.y * 8)", NULL};
    char *a = applies(k_jacobi_ret, "jac", 8, w2);
    assert_non_null(strstr(a, "goto hk_stencil_next;"));
    rwf_nvcc_compiles(a, "sw_jacobi_ret");
    char *b = applies(k_jacobi_if, "jac", 8, w2);
    assert_null(strstr(b, "hk_stencil_next"));
    rwf_nvcc_compiles(b, "sw_jacobi_if");
    /* 3-D: planes k-1 .. k+1; in-plane offsets 0, +-1, +-nx: 5 columns */
    static const char *const w3[] = {"hk_win_t0[6][5]", "along z", "(threadIdx.z * 4 + hk_k)", "double hk_win_t0",
                                     NULL};
    char *c = applies(k_heat3d, "heat", 4, w3);
    rwf_nvcc_compiles(c, "sw_heat3d");
    static const char *const wf[] = {"hk_win_in[18][5]", "along z", "(blockIdx.z * 16 + hk_k)", NULL};
    char *d = applies(k_flat3d, "lap", 16, wf);
    rwf_nvcc_compiles(d, "sw_flat3d");
    /* no bound on the slow coordinate: the launched grid bounds it */
    static const char *const wu[] = {"if ((blockIdx.y * blockDim.y + threadIdx.y) * 8 + hk_k >= gridDim.y * blockDim.y)",
                                     "keep the spec's grid", NULL};
    char *e = applies(k_unbounded, "nb", 8, wu);
    rwf_nvcc_compiles(e, "sw_unbounded");
    static const char *const wl[] = {"if (blockIdx.y * 8 + hk_k >= gridDim.y)", "(blockIdx.y * 8 + hk_k)",
                                     "along y", "keep the spec's grid", NULL};
    char *g = applies(k_lines_unbounded, "relax", 8, wl);
    rwf_nvcc_compiles(g, "sw_lines_unbounded");
    /* filter loops with a constant trip: unrolled, then a window of 3 x 3 */
    static const char *const wc[] = {"hk_win_in[10][3]", "filter loops unrolled first: i (3), j (3)",
                                     "hk: the loop over i = -1..1, unrolled", NULL};
    char *h = applies(k_conv_loops, "conv", 8, wc);
    /* the loops' own `#pragma unroll` lines go with them (before a block nvcc warns) */
    for (const char *u = strstr(h, "/* hk: the loop over "); u; u = strstr(u + 1, "/* hk: the loop over ")) {
        const char *q = u;
        while (q > h && (q[-1] == ' ' || q[-1] == '\n' || q[-1] == '{'))
            q--;
        assert_false(q - h >= 14 && !strncmp(q - 14, "#pragma unroll", 14));
    }
    rwf_nvcc_compiles(h, "sw_conv_loops");
    /* 5 x 5: rows y-2 .. y+2 over K outputs, five columns, every j loop unrolled */
    static const char *const w5[] = {"hk_win_in[12][5]", "radius 2", "filter loops unrolled first: i (5), j (5) ",
                                     NULL};
    char *i5 = applies(k_conv5, "conv5", 8, w5);
    assert_null(strstr(i5, "for (int j"));
    rwf_nvcc_compiles(i5, "sw_conv5");
    /* from the corner, MASK_DIM / 2 folded: rows -1 .. +1 */
    static const char *const wcc[] = {"hk_win_img[6][3]", "radius 1", NULL};
    char *cc = applies(k_conv_corner, "convc", 4, wcc);
    rwf_nvcc_compiles(cc, "sw_conv_corner");
    /* blockIdx.y * TILE_H + threadIdx.y: blockIdx.y -> blockIdx.y * K, a check of the block */
    static const char *const wt[] = {"hk_win_T[10][3]", "int i = (blockIdx.y * 8) * TILE_H + (threadIdx.y * 8 + hk_k);",
                                     "if (blockDim.y != 4) {", "threadIdx.y: blocks of 4 along y\n        __trap();\n    }", NULL};
    char *ti = applies(k_tiled_index, "heat_t", 8, wt);
    rwf_nvcc_compiles(ti, "sw_tiled_index");
    /* the referee's host-code scan passes it: no conditional directive the kernel lacks (an
     * `#if defined(__HIPCC__)` there rejected every tiled window as host_code on the H100) */
    hostcode_finding hf;
    assert_int_equal(hostcode_check(k_tiled_index, strlen(k_tiled_index), ti, strlen(ti), &hf), HK_OK);
    if (hf.found)
        print_message("host_code: line %u: %s: %s\n", hf.line, hf.why, hf.quote);
    assert_false(hf.found);
    hostcode_finding_clear(&hf);
    {   /* for HIP: its device abort(), chosen by the target, not by the preprocessor */
        fixture fx;
        load_text(k_tiled_index, &fx);
        rw_result r;
        assert_int_equal(rw_stencil_window_for(fx.text, fx.len, fx.m, kernel(&fx, "heat_t"), 8, true, &r), HK_OK);
        assert_true(r.applicable);
        assert_non_null(strstr(r.text, "threadIdx.y: blocks of 4 along y\n        abort();\n    }"));
        assert_null(strstr(r.text, "__trap"));
        assert_null(strstr(r.text, "#if"));
        assert_int_equal(hostcode_check(fx.text, fx.len, r.text, strlen(r.text), &hf), HK_OK);
        assert_false(hf.found);
        hostcode_finding_clear(&hf);
        rw_result_free(&r);
        unload(&fx);
    }
    /* A[i][j] of `const float A[][W]`: rows i-1 .. i+1, a float window */
    static const char *const wr[] = {"float hk_win_A[10][3]", "= A[i - 1][j])", NULL};
    char *r2 = applies(k_rows2d, "j2", 8, wr);
    rwf_nvcc_compiles(r2, "sw_rows2d");
    free(i5);
    free(cc);
    free(ti);
    free(r2);
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
    free(g);
    free(h);
    assert_int_equal(hk_alloc_live(), 0);
}

static int window_call(const fixture *fx, size_t k, rw_result *r)
{
    return rw_stencil_window(fx->text, fx->len, fx->m, k, 4, r);
}

/* The unrolling path runs out of memory cleanly at every allocation. */
static void unrolled_path_survives_alloc_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(k_conv_loops, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "conv"), window_call);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

static void near_misses_are_refused(void **state)
{
    (void)state;
    refused(k_1d, "s1", "line 5: the output moves with x only");
    refused(k_tid_alone, "ta", "other than as");
    refused(k_macro_builtin, "mb", "line 5: ROW spells a thread or block index");
    /* a tile in __shared__ memory: the model reads the tile, not a window of the input */
    refused(k_tiled, "tl", "not a stencil");
    refused(k_elementwise, "add2", "reads it as elementwise");
    /* filter loops over a parameter's range: nothing to unroll, and the model reads the
     * loop sum as a reduction */
    refused(k_conv_param, "convp", "reads it as reduction");
    refused(k_data_window, "dw", "line 11: the window of in is placed by values read from memory");
    refused(k_tiled_alone, "ta2", "line 6: the access of Tn uses threadIdx.y");
    assert_int_equal(hk_alloc_live(), 0);
}

/* The driver names the construct and line for one refusal. */
static void registry_refusal_has_line(void **state)
{
    (void)state;
    const rw_descriptor *d = rw_find("stencil_window");
    assert_non_null(d);
    fixture fx;
    load_text(k_1d, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "s1")};
    rw_refusal why;
    int p[RW_MAX_PARAMS] = {4, 0, 0};
    assert_int_equal(rw_applies(d, &ctx, p, &why), HK_OK);
    assert_int_equal(why.line, 5);
    p[0] = 3;   /* not one of 2, 4, 8, 16 */
    assert_int_equal(rw_applies(d, &ctx, p, &why), HK_EINVAL);
    unload(&fx);
}

/* ---- emulated runs ---- */

/* The original and the rewritten kernel run in the block emulator (emu_block.h): the
 * original with the grid that covers the domain, the rewritten one with that grid and,
 * when the kernel bounds its slow coordinate (axis 1 y, 2 z; 0: it does not), with the grid
 * divided by K along that axis; every element of the output (poisoned first) must match bit
 * for bit. Sizes are ragged against the blocks. call names the output out_. Queued in the
 * running test's batch (emu_batch.h): built in one g++ run at the test's end, each case run
 * in its own process and named when it does not give its want. */
static emu_batch batch;

static void emulate_want(const char *orig, const char *cand, const char *call, const char *type,
                         const char *launch, int axis, int k, const char *tag, int want)
{
    char *driver = hk_asprintf(
        "    static const int sz[][3] = {{13, 11, 7}, {9, 17, 10}, {33, 5, 19}, {3, 3, 3}};\n"
        "    for (int s = 0; s < 4; s++) {\n"
        "        int nx = sz[s][0], ny = sz[s][1], nz = sz[s][2];\n"
        "        size_t n = (size_t)nx * ny * nz;\n"
        "        emu::buf<%s> in(n);\n"
        "        in.fill(s + 1);\n"
        "        %s\n"
        "        for (int shrink = 0; shrink < 2; shrink++) {\n"
        "            if (shrink && %d == 0)\n"
        "                continue;\n"
        "            emu::buf<%s> o(n), c(n);\n"
        "            o.set((%s)-7.25);\n"
        "            c.set((%s)-7.25);\n"
        "            emu::launch(g, b, 0, [&] { %s *out_ = o.ptr(); orig::%s; });\n"
        "            dim3 gc = g;\n"
        "            if (shrink && %d == 1)\n"
        "                gc.y = (g.y + %d - 1) / %d;\n"
        "            if (shrink && %d == 2)\n"
        "                gc.z = (g.z + %d - 1) / %d;\n"
        "            emu::launch(gc, b, 0, [&] { %s *out_ = c.ptr(); cand::%s; });\n"
        "            char what[64];\n"
        "            snprintf(what, sizeof what, \"size %%d shrink %%d\", s, shrink);\n"
        "            emu::expect(what, o, c);\n"
        "        }\n"
        "    }\n",
        type, launch, axis, type, type, type, type, call, axis, k, k, axis, k, k, type, call);
    assert_non_null(driver);
    emu_batch_add_pair(&batch, tag, orig, cand, NULL, driver, want);
    hk_free(driver);
}

static void emulate(const char *orig, const char *cand, const char *call, const char *type,
                    const char *launch, int axis, int k, const char *tag)
{
    emulate_want(orig, cand, call, type, launch, axis, k, tag, EMU_OK);
}

static void emulated_runs_match(void **state)
{
    (void)state;
    if (!emu_available()) {
        print_message("note: no g++ or CUDA headers, emulated runs skipped\n");
        return;
    }
    emu_batch_init(&batch, tmpdir, "stencil");
#define GRID3 "dim3 b(8, 4, 2), g((nx + 7) / 8, (ny + 3) / 4, (nz + 1) / 2);"
#define GRID2 "dim3 b(8, 4, 1), g((nx + 7) / 8, (ny * nz + 3) / 4, 1);"
#define LINES "dim3 b(8, 1, 1), g((nx + 7) / 8, ny, nz);"
#define NB "dim3 b(8, 4, 1), g((nx + 7) / 8, (ny * nz - 2) / 4, 1);"
    struct { const char *src, *name, *call, *type, *launch; int axis, k; } runs[] = {
        {k_jacobi_ret, "jac", "jac(in, out_, ny * nz, nx)", "float", GRID2, 1, 4},
        {k_jacobi_if, "jac", "jac(in, out_, (unsigned)(ny * nz), (unsigned)nx)", "float", GRID2, 1, 8},
        {k_heat3d, "heat", "heat(in, out_, nx, ny, nz, 0.1)", "double", GRID3, 2, 4},
        {k_flat3d, "lap", "lap(in, out_, nx, ny, nz)", "float", LINES, 2, 2},
        /* no bound on the slow coordinate: only the launched grid, never shrunk */
        {k_unbounded, "nb", "nb(in, out_, nx)", "float", NB, 0, 4},
        {k_lines_unbounded, "relax", "relax(0.5f, 0.1f, in, out_, nx, ny, nz)", "float",
         "dim3 b(nx, 1, 1), g(ny - 2, nz - 2, 1);", 0, 4},
        {k_conv_loops, "conv", "conv(in, out_, nx, ny * nz)", "float", GRID2, 1, 4},
        {k_conv5, "conv5", "conv5(in, out_, nx, ny * nz)", "float", GRID2, 1, 4},
        {k_conv_corner, "convc", "convc(in, in, out_, nx, ny * nz)", "float", GRID2, 1, 8},
        {k_tiled_index, "heat_t", "heat_t(in, out_, nx, ny * nz)", "float", GRID2, 1, 4},
        {k_rows2d, "j2", "j2((const float (*)[16])in.ptr(), (float (*)[16])out_, (int)std::min(n / 16, (size_t)ny * nz))",
         "float", GRID2, 1, 4},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(runs); i++) {
        /* the grid the rewrite asks for (rw_result.grid_divisor/grid_axis: what the search
         * launches the candidate with) is the one emulated */
        unsigned axis = 9, div = 9;
        char *t = applies_launch(runs[i].src, runs[i].name, runs[i].k, NULL, &axis, &div);
        assert_int_equal(div, runs[i].axis ? (unsigned)runs[i].k : 0);
        if (div)
            assert_int_equal(axis, runs[i].axis);
        char tag[32];
        snprintf(tag, sizeof tag, "sw_%zu", i);
        emulate(runs[i].src, t, runs[i].call, runs[i].type, runs[i].launch, div ? (int)axis : 0,
                runs[i].k, tag);
        free(t);
    }
    /* the tiled spelling under a block of 2 rows instead of TILE_H 4: the candidate's check
     * ends the launch (the original, with its rows at blockIdx.y * 4 + 0..1, leaves gaps) */
    char *t = applies_launch(k_tiled_index, "heat_t", 4, NULL, NULL, NULL);
    emulate_want(k_tiled_index, t, "heat_t(in, out_, nx, ny * nz)", "float",
                 "dim3 b(8, 2, 1), g((nx + 7) / 8, (ny * nz + 3) / 4, 1);", 1, 4, "sw_tiled_block2", EMU_CRASHED);
    free(t);
    emu_batch_run(&batch);
    assert_int_equal(hk_alloc_live(), 0);
}

/* The project's own suite: bench/kernels/stencil2d.cu gets the window. */
static void own_suite_stencil2d(void **state)
{
    (void)state;
    fixture fx;
    load_path(HK_SOURCE_DIR "/bench/kernels/stencil2d.cu", &fx);
    rw_result r;
    assert_int_equal(rw_stencil_window(fx.text, fx.len, fx.m, kernel(&fx, "stencil2d"), 8, &r), HK_OK);
    if (!r.applicable)
        print_message("%s\n", r.description);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "hk_win_in[10][3]"));
    rwf_nvcc_compiles(r.text, "sw_stencil2d");
    rw_result_free(&r);
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spellings_get_one_window),
        cmocka_unit_test(near_misses_are_refused),
        cmocka_unit_test(registry_refusal_has_line),
        cmocka_unit_test(emulated_runs_match),
        cmocka_unit_test(own_suite_stencil2d),
        cmocka_unit_test(unrolled_path_survives_alloc_failures),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
