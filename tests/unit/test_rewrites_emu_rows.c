/* The row rewrites run, not only compiled (issue 13, "measure, don't trust"): one thread
 * per row become one warp per row (warp_rows, online_softmax, online_layernorm), each
 * kernel of tests/data/rewrite_rows and rewrite_pattern against its rewrite in the block
 * emulator (emu_block.h): ragged row counts and widths, several blocks, three thread
 * orders, the rewrite also on blocks of 80 (a partial warp) and a 3-block grid; every
 * output must match within a float tolerance. A broken shuffle must fail. (A file of its
 * own beside test_rewrites_emu.c: each emulated program compiles for a second or more.
 * Each test builds its programs together, emu_batch.h: one g++ run per test, each case
 * still run, checked and named on its own.) */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_rows.h"

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
#include "runners/runner.h"
#include "emu_block.h"
#include "emu_batch.h"
#include "nvcc_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-emu-rows");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* C++ the drivers share: a rows x cols matrix in a, outputs in b and r (rows x cols each,
 * pre-filled alike), the original on one thread per row (blocks of 64), the rewrite on
 * the original's launch (FORWARD), blocks of 80 (REVERSE) and a grid of 3 (SHUFFLED).
 * Tolerance rtol * max(|want|, scale): scale 1 for outputs of order 1 (a layernorm's
 * x - mean is 0 or 1e-7 by the order of the mean's sum), smaller for probabilities. */
static const char helpers[] =
    "#define BOTH(...) [&](auto a, auto b, auto r, long n) { orig::__VA_ARGS__; }, \\\n"
    "                  [&](auto a, auto b, auto r, long n) { cand::__VA_ARGS__; }\n"
    "#define ROWS int(n >> 16)\n"
    "#define COLS int(n & 65535)\n"
    "template <class T, class F, class G>\n"
    "static void rows_case(const char *what, F ko, G kc, double rtol, double scale = 1)\n"
    "{\n"
    "    static const int sizes[][2] = {{1, 1}, {5, 7}, {67, 64}, {40, 130}, {33, 3}};\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            const int rows = sizes[z][0], cols = sizes[z][1];\n"
    "            const size_t e = (size_t)rows * cols;\n"
    "            emu::buf<T> a(e), bo(e), bc(e), ro(e), rc(e);\n"
    "            a.fill(rows + cols + s);\n"
    "            bo.fill(5); bc.fill(5); ro.fill(6); rc.fill(6);\n"
    "            const long n = (long)rows * 65536 + cols;\n"
    "            dim3 g((rows + 63) / 64), blk(64);\n"
    "            emu::launch(g, blk, 0, [&] { ko(a.ptr(), bo.ptr(), ro.ptr(), n); });\n"
    "            dim3 cg = s == 2 ? dim3(3) : g, cb = s == 1 ? dim3(80) : blk;\n"
    "            emu::launch(cg, cb, 0, [&] { kc(a.ptr(), bc.ptr(), rc.ptr(), n); });\n"
    "            bool ok = emu::expect(what, bo, bc, rtol, scale);\n"
    "            ok = emu::expect(what, ro, rc, rtol, scale) && ok;\n"
    "            if (!ok)\n"
    "                printf(\"  (%d x %d schedule %d)\\n\", rows, cols, s);\n"
    "        }\n"
    "}\n";

/* The running test's emulated programs (emu_batch.h): queued by emulate() and the like,
 * built together and checked by emu_batch_run at the test's end. */
static emu_batch batch;

/* Queues driver on src and cand (with this file's helpers); the emulation must give want. */
#define emulate(tag, src, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* warp_rows on the kernels of tests/data/rewrite_rows/rows_variants.cu */
static void warp_rows_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_rows/rows_variants.cu");
    static const struct {
        const char *kernel, *driver;
    } cases[] = {
        {"sum_block", "rows_case<double>(\"sum_block\", BOTH(sum_block(a, b, (unsigned)ROWS, (unsigned)COLS)), 1e-12);"},
        {"row_stats", "rows_case<float>(\"row_stats\", BOTH(row_stats(a, b, r, ROWS, COLS)), 0);"},
        {"scale_rows", "rows_case<float>(\"scale_rows\", BOTH(scale_rows(a, b, ROWS, COLS)), 1e-5);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(src, cases[i].kernel, "warp_rows", NULL);
        emulate(cases[i].kernel, src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    free(src);
    emu_batch_run(&batch);
}

/* online_softmax and online_layernorm on tests/data/rewrite_pattern/rows_variants.cu */
static void online_rows_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_pattern/rows_variants.cu");
    static const struct {
        const char *kernel, *rewrite, *driver;
    } cases[] = {
        {"softmax_direct", "online_softmax",
         "rows_case<float>(\"softmax_direct\", BOTH(softmax_direct(a, b, ROWS, COLS)), 1e-5, 1e-3);"},
        {"softmax_guarded", "online_softmax",
         "rows_case<float>(\"softmax_guarded\", BOTH(softmax_guarded(a, b, ROWS, COLS)), 1e-5, 1e-3);"},
        {"layernorm_plain", "online_layernorm",
         "rows_case<float>(\"layernorm_plain\", BOTH(layernorm_plain(a, b, ROWS, COLS)), 1e-4);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(src, cases[i].kernel, cases[i].rewrite, NULL);
        emulate(cases[i].kernel, src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    free(src);
    emu_batch_run(&batch);
}

/* The check can fail: the row sum's shuffles contributing nothing is caught. */
static void broken_row_shuffle_fails(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_rows/rows_variants.cu");
    char *cand = emu_rewrite(src, "sum_block", "warp_rows", NULL);
    char *broken = emu_replaced(cand, "__shfl_xor_sync(hk_mask, ", "0 * __shfl_xor_sync(hk_mask, ");
    emulate("broken_row_shuffle", src, broken,
            "rows_case<double>(\"sum_block\", BOTH(sum_block(a, b, (unsigned)ROWS, (unsigned)COLS)), 1e-12);",
            EMU_DIFFERS);
    free(broken);
    free(cand);
    free(src);
    emu_batch_run(&batch);
}

/* Precision of warp_rows on a naive layernorm (issue 13: on the H200, llm.c's
 * layernorm_forward_kernel1 rewritten by warp_rows was rejected by the spec's tolerance
 * against the baseline, rtol = atol = 1e-4, on its uniform(0,100) inputs). The rewrite only
 * reorders the sums; it must stay as close to an fp64 evaluation of the kernel's own
 * two-pass formula as the original is, by the referee's fp64 rule (docs/accuracy.md:
 * error at the output's scale and relative L2, each at most 4x the original's plus 2^-20,
 * pooled over runs). Inputs in [0, 100) (mean 50, spread 29: the spec's distribution) and
 * in [1000, 1100) (a mean large against the spread, where a one-pass variance cancels).
 * It also prints how many elements the spec's tolerance against the original refuses. */
static const char norm_helpers[] =
    "static void norm_fp64(const float *a, const float *g, const float *h, double *y, double *mu,\n"
    "                      double *isd, int rows, int cols)\n"
    "{\n"
    "    for (int r = 0; r < rows; r++) {\n"
    "        const float *v = a + (size_t)r * cols;\n"
    "        double t = 0, d2 = 0;\n"
    "        for (int j = 0; j < cols; j++) t += v[j];\n"
    "        mu[r] = t / cols;\n"
    "        for (int j = 0; j < cols; j++) d2 += (v[j] - mu[r]) * (v[j] - mu[r]);\n"
    "        isd[r] = 1.0 / sqrt(d2 / cols + 1e-5);\n"
    "        for (int j = 0; j < cols; j++)\n"
    "            y[(size_t)r * cols + j] = (v[j] - mu[r]) * isd[r] * g[j] + h[j];\n"
    "    }\n"
    "}\n"
    "struct pooled { double base_max = 0, base_l2 = 0, cand_max = 0, cand_l2 = 0; size_t tol_bad = 0; int runs = 0; };\n"
    "/* Adds one run's errors of base and cand against ref (squared, for the RMS). */\n"
    "static void pool(pooled &p, const float *b, const float *c, const std::vector<double> &ref)\n"
    "{\n"
    "    double rmax = 0, db = 0, dc = 0, sb = 0, sc = 0, sr = 0;\n"
    "    for (size_t i = 0; i < ref.size(); i++) {\n"
    "        rmax = std::max(rmax, fabs(ref[i]));\n"
    "        db = std::max(db, fabs(b[i] - ref[i]));\n"
    "        dc = std::max(dc, fabs(c[i] - ref[i]));\n"
    "        sb += (b[i] - ref[i]) * (b[i] - ref[i]);\n"
    "        sc += (c[i] - ref[i]) * (c[i] - ref[i]);\n"
    "        sr += ref[i] * ref[i];\n"
    "        p.tol_bad += fabs((double)c[i] - b[i]) > 1e-4 + 1e-4 * fabs((double)b[i]);\n"
    "    }\n"
    "    p.base_max += (db / rmax) * (db / rmax);\n"
    "    p.cand_max += (dc / rmax) * (dc / rmax);\n"
    "    p.base_l2 += sb / sr;\n"
    "    p.cand_l2 += sc / sr;\n"
    "    p.runs++;\n"
    "}\n"
    "/* The fp64 rule on the pooled errors: a failure counts in emu::failures. */\n"
    "static void judge(const char *what, const pooled &p)\n"
    "{\n"
    "    const double k = 4, floor = 0x1p-20;\n"
    "    double bm = sqrt(p.base_max / p.runs), bl = sqrt(p.base_l2 / p.runs);\n"
    "    double cm = sqrt(p.cand_max / p.runs), cl = sqrt(p.cand_l2 / p.runs);\n"
    "    double ratio = std::max(cm / (k * bm + floor), cl / (k * bl + floor));\n"
    "    printf(\"%s: error vs fp64 at scale %.3g (original %.3g), rel L2 %.3g (original %.3g): \"\n"
    "           \"%.3f of the limit; %zu elements outside rtol = atol = 1e-4 of the original\\n\",\n"
    "           what, cm, bm, cl, bl, ratio, p.tol_bad);\n"
    "    if (!(ratio <= 1))\n"
    "        emu::failures++;\n"
    "}\n"
    "/* orig::norm_two_pass as the baseline against kc (a candidate of the same signature),\n"
    "   both against norm_fp64, over three inputs in [offset, offset + 100); candidates on\n"
    "   256-thread blocks. */\n"
    "template <class F> static void norm_case(F kc, float offset)\n"
    "{\n"
    "    const int rows = 96, cols = 777;\n"
    "    const size_t e = (size_t)rows * cols;\n"
    "    pooled py, pm, ps;\n"
    "    for (int s = 0; s < 3; s++) {\n"
    "        emu::buf<float> a(e), g(cols), h(cols), yb(e), yc(e), mb(rows), mc(rows), sb(rows), sc(rows);\n"
    "        for (size_t i = 0; i < e; i++) a[i] = (emu::value(i, s) + 10.0f) * 5.0f + offset;\n"
    "        for (int j = 0; j < cols; j++) {\n"
    "            g[j] = (emu::value(j, s + 7) + 10.0f) * 5.0f;\n"
    "            h[j] = (emu::value(j, s + 11) + 10.0f) * 5.0f;\n"
    "        }\n"
    "        std::vector<double> y(e), mu(rows), isd(rows);\n"
    "        norm_fp64(a, g, h, y.data(), mu.data(), isd.data(), rows, cols);\n"
    "        emu::launch(dim3((rows + 63) / 64), dim3(64), 0,\n"
    "                    [&] { orig::norm_two_pass(yb, mb, sb, a, g, h, rows, cols); });\n"
    "        emu::launch(dim3(5), dim3(256), 0, [&] { kc(yc.ptr(), mc.ptr(), sc.ptr(), a.ptr(), g.ptr(), h.ptr(), rows, cols); });\n"
    "        pool(py, yb, yc, y);\n"
    "        pool(pm, mb, mc, mu);\n"
    "        pool(ps, sb, sc, isd);\n"
    "    }\n"
    "    printf(\"inputs in [%g, %g):\\n\", offset, offset + 100);\n"
    "    judge(\"  y\", py);\n"
    "    judge(\"  row_mean\", pm);\n"
    "    judge(\"  row_inv_sd\", ps);\n"
    "}\n";

#define NORM_CAND(k, offset) "norm_case([&](float *y, float *m, float *s, const float *a, const float *g, " \
                             "const float *h, int r, int c) { cand::" k "(y, m, s, a, g, h, r, c); }, " offset ");"

/* The two-pass kernel's warp_rows rewrite is as accurate as the original (only the sums'
 * order changes; the rewrite keeps the kernel's own variance formula). */
static void warp_rows_layernorm_precision(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_rows/layernorm_rows.cu");
    char *cand = emu_rewrite(src, "norm_two_pass", "warp_rows", NULL);
    emu_batch_add_pair(&batch, "layernorm_two_pass", src, cand, norm_helpers,
                 NORM_CAND("norm_two_pass", "0") NORM_CAND("norm_two_pass", "1000"), EMU_OK);
    free(cand);
    free(src);
    emu_batch_run(&batch);
}

/* The check can fail: a candidate that computes the variance in one pass, E[x^2] - E[x]^2
 * (norm_one_pass through warp_rows), is refused against the two-pass original on inputs
 * whose mean is large against their spread. (On [0, 100) it passes: E[x^2] is only 4 times
 * the variance there, so little cancels.) */
static void one_pass_variance_fails(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_rows/layernorm_rows.cu");
    char *cand = emu_rewrite(src, "norm_one_pass", "warp_rows", NULL);
    emu_batch_add_pair(&batch, "layernorm_one_pass", src, cand, norm_helpers,
                 NORM_CAND("norm_one_pass", "1000"), EMU_DIFFERS);
    free(cand);
    free(src);
    emu_batch_run(&batch);
}

/* PolyBench-style row kernels sum into memory: `tmp[i] += A[i * cols + j] * x[j]` inside
 * the column loop (tmp[i] starts at its buffer's value, 5 here). warp_rows gives each such
 * loop a register accumulator added to tmp[i] once after it, then a warp per row. */
static const char acc_rows[] =
    "__global__ void mv_acc(const float *A, float *tmp, const float *x, int rows, int cols)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < rows) {\n"
    "        for (int j = 0; j < cols; j++)\n"
    "            tmp[i] += A[i * cols + j] * x[j];\n"
    "    }\n"
    "}\n"
    "__global__ void mv_two(const float *A, float *tmp, float *sq, int rows, int cols)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= rows)\n"
    "        return;\n"
    "    for (int j = 0; j < cols; j++) {\n"
    "        const float v = A[i * cols + j];\n"
    "        tmp[i] -= j % 3 == 0 ? 2.0f * v : v;\n"
    "        sq[i] += v * v;\n"
    "    }\n"
    "}\n"
    /* PolyBench's spelling: the counter declared before its loop (with a name that stays) */
    "__global__ void mv_polyb(const float *A, float *tmp, const float *x, int rows, int cols)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int j, unused;\n"
    "    if (i < rows) {\n"
    "        for (j = 0; j < cols; j++) {\n"
    "            tmp[i] += A[i * cols + j] * x[j];\n"
    "        }\n"
    "    }\n"
    "}\n"
    /* refused: the counter's value is used after its loop */
    "__global__ void mv_after(const float *A, float *tmp, const float *x, int rows, int cols)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int j;\n"
    "    if (i < rows) {\n"
    "        for (j = 0; j < cols; j++)\n"
    "            tmp[i] += A[i * cols + j] * x[j];\n"
    "        tmp[i] += (float)j;\n"
    "    }\n"
    "}\n"
    /* refused: `int` before j would declare a new k in the loop's init */
    "__global__ void mv_comma(const float *A, float *tmp, const float *x, int rows, int cols)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int j;\n"
    "    float k;\n"
    "    if (i < rows) {\n"
    "        for (j = 0, k = 0.5f; j < cols; j++)\n"
    "            tmp[i] += A[i * cols + j] * x[j];\n"
    "    }\n"
    "}\n"
    /* tmp read back after its loop (gesummv's y = alpha * tmp + beta * y): lane 0 alone,
     * after its flush */
    "__global__ void mv_reread(const float *A, float *tmp, float *y, int rows, int cols)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < rows) {\n"
    "        for (int j = 0; j < cols; j++)\n"
    "            tmp[i] += A[i * cols + j];\n"
    "        y[i] = 2.0f * tmp[i] + y[i];\n"
    "    }\n"
    "}\n"
    /* refused: every lane would read tmp[i] (a declaration), maybe before lane 0 flushed it */
    "__global__ void mv_all_lanes(const float *A, float *tmp, float *y, int rows, int cols)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < rows) {\n"
    "        for (int j = 0; j < cols; j++)\n"
    "            tmp[i] += A[i * cols + j];\n"
    "        float u = tmp[i];\n"
    "        y[i] = u;\n"
    "    }\n"
    "}\n"
    /* refused: tmp[i + 1] is the next row's, another warp's */
    "__global__ void mv_neighbour(const float *A, float *tmp, float *y, int rows, int cols)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < rows - 1) {\n"
    "        for (int j = 0; j < cols; j++)\n"
    "            tmp[i] += A[i * cols + j];\n"
    "        y[i] = tmp[i] - tmp[i + 1];\n"
    "    }\n"
    "}\n"
    /* refused: the same text `tmp[k]` names another element once k changes */
    "__global__ void mv_moved(const float *A, float *tmp, float *y, int rows, int cols)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < rows) {\n"
    "        int k = i;\n"
    "        for (int j = 0; j < cols; j++)\n"
    "            tmp[k] += A[i * cols + j];\n"
    "        k = rows - 1 - i;\n"
    "        y[i] = tmp[k];\n"
    "    }\n"
    "}\n"
    /* refused: y[i], stored by lane 0, is read by every lane in the next column loop */
    "__global__ void mv_loop_reread(const float *A, float *tmp, float *y, int rows, int cols)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < rows) {\n"
    "        float s = 0.0f;\n"
    "        for (int j = 0; j < cols; j++)\n"
    "            s += A[i * cols + j];\n"
    "        y[i] = s;\n"
    "        for (int j = 0; j < cols; j++)\n"
    "            tmp[i * cols + j] = A[i * cols + j] * y[i];\n"
    "    }\n"
    "}\n"
    /* refused: a thread per column already reads coalesced (PolyBench's atax second kernel) */
    "__global__ void col_acc(const float *A, float *y, int rows, int cols)\n"
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < cols) {\n"
    "        for (int i = 0; i < rows; i++)\n"
    "            y[j] += A[i * cols + j];\n"
    "    }\n"
    "}\n";

static void accumulating_rows_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *kernel, *driver;
    } cases[] = {
        {"mv_acc", "rows_case<float>(\"mv_acc\", BOTH(mv_acc(a, b, r, ROWS, COLS)), 1e-5);"},
        /* a sum that cancels (terms of both signs): reassociated float sums differ by more */
        {"mv_two", "rows_case<float>(\"mv_two\", BOTH(mv_two(a, b, r, ROWS, COLS)), 1e-4);"},
        {"mv_polyb", "rows_case<float>(\"mv_polyb\", BOTH(mv_polyb(a, b, r, ROWS, COLS)), 1e-5);"},
        /* 2 * tmp + y: a sum of terms up to 10 that cancels, doubled (error at scale 10) */
        {"mv_reread", "rows_case<float>(\"mv_reread\", BOTH(mv_reread(a, b, r, ROWS, COLS)), 1e-5, 10);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(acc_rows, cases[i].kernel, "warp_rows", NULL);
        assert_non_null(strstr(cand, "hk_acc0 = 0;"));
        assert_non_null(strstr(cand, "__shfl_xor_sync"));
        if (!strcmp(cases[i].kernel, "mv_polyb")) {   /* j moved into its loops, unused kept */
            assert_non_null(strstr(cand, "int unused;"));
            assert_non_null(strstr(cand, "for (int j = (int)hk_lane;"));
        }
        emulate(cases[i].kernel, acc_rows, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    /* the check can fail: the sum replacing tmp[i] instead of adding to it loses the 5 */
    char *cand = emu_rewrite(acc_rows, "mv_acc", "warp_rows", NULL);
    char *broken = emu_replaced(cand, "+= hk_acc0;", "= hk_acc0;");
    emulate("broken_acc", acc_rows, broken,
            "rows_case<float>(\"mv_acc\", BOTH(mv_acc(a, b, r, ROWS, COLS)), 1e-5);", EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

/* Softmax and row max/min written one thread per row (issue 13: llm.c's
 * softmax_forward_kernel1 and its kin), tests/data/rewrite_rows/softmax_rows.cu. The
 * inputs also hold NaN and -inf (special, below), and the comparison takes NaN as equal to
 * NaN: the rewrite must give NaN exactly where the original does. Sizes add a ragged row of
 * 1027 columns (neither a multiple of 4 nor of 32, past the float4 loop's unroll). */
static const char soft_extra[] =
    "/* special: 0 plain; 1 NaN in some columns (not the first); 2 -inf in some columns, row\n"
    "   1 all -inf; 3 NaN in the first column of odd rows; 4 +-3e7 in every third column (+\n"
    "   in the first half, - in the second) and 1 elsewhere, a sum exact in double only */\n"
    "static void special_fill(emu::buf<float> &a, int rows, int cols, int special, int s)\n"
    "{\n"
    "    for (int r = 0; r < rows; r++)\n"
    "        for (int c = 0; c < cols; c++) {\n"
    "            float &v = a[(size_t)r * cols + c];\n"
    "            if (special == 1 && c && (r * 7 + c * 3 + s) % 11 == 5) v = NAN;\n"
    "            if (special == 2 && ((r * 5 + c + s) % 9 == 2 || r == 1)) v = -INFINITY;\n"
    "            if (special == 3 && r % 2 == 1 && c == 0) v = NAN;\n"
    "            if (special == 4) v = c % 3 == 0 ? (c < cols / 2 ? 3e7f : -3e7f) : 1.0f;\n"
    "        }\n"
    "}\n"
    "/* NaN where want is NaN, else equal or within rtol * max(|want|, scale) */\n"
    "static bool same_or_nan(const char *what, emu::buf<float> &want, emu::buf<float> &got, double rtol,\n"
    "                        double scale)\n"
    "{\n"
    "    size_t bad = 0;\n"
    "    for (size_t i = 0; i < want.size(); i++) {\n"
    "        double a = want[i], b = got[i];\n"
    "        bool ok = std::isnan(a) ? std::isnan(b)\n"
    "                                : !std::isnan(b) && (a == b || fabs(a - b) <= rtol * std::max(fabs(a), scale));\n"
    "        if (!ok && bad++ < 5)\n"
    "            printf(\"differs: %s[%zu]: want %.9g, got %.9g\\n\", what, i, a, b);\n"
    "    }\n"
    "    if (bad) {\n"
    "        printf(\"differs: %s: %zu of %zu elements\\n\", what, bad, want.size());\n"
    "        emu::failures++;\n"
    "    }\n"
    "    return bad == 0;\n"
    "}\n"
    "static const int soft_sizes[][2] = {{1, 1}, {5, 7}, {67, 64}, {40, 130}, {33, 3}, {9, 1027}};\n"
    "/* rows_case with special inputs: the original on blocks of 64, the rewrite on the same\n"
    "   launch, blocks of 80 and a grid of 3; the input starts shift floats into its buffer\n"
    "   (shift 1: input rows and output rows aligned differently) */\n"
    "template <class F, class G>\n"
    "static void soft_case(const char *what, F ko, G kc, int special, double rtol, double scale = 1, int shift = 0)\n"
    "{\n"
    "    for (int z = 0; z < 6; z++)\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            const int rows = soft_sizes[z][0], cols = soft_sizes[z][1];\n"
    "            const size_t e = (size_t)rows * cols;\n"
    "            emu::buf<float> a(e + 1), bo(e), bc(e), ro(e), rc(e);\n"
    "            a.fill(rows + cols + s);\n"
    "            special_fill(a, rows, cols, special, s);\n"
    "            bo.fill(5); bc.fill(5); ro.fill(6); rc.fill(6);\n"
    "            dim3 g((rows + 63) / 64), blk(64);\n"
    "            emu::launch(g, blk, 0, [&] { ko(a.ptr() + shift, bo.ptr(), ro.ptr(), rows, cols); });\n"
    "            dim3 cg = s == 2 ? dim3(3) : g, cb = s == 1 ? dim3(80) : blk;\n"
    "            emu::launch(cg, cb, 0, [&] { kc(a.ptr() + shift, bc.ptr(), rc.ptr(), rows, cols); });\n"
    "            bool ok = same_or_nan(what, bo, bc, rtol, scale);\n"
    "            ok = same_or_nan(what, ro, rc, rtol, scale) && ok;\n"
    "            if (!ok)\n"
    "                printf(\"  (%d x %d schedule %d special %d)\\n\", rows, cols, s, special);\n"
    "        }\n"
    "}\n"
    "#define SOFT(k) [&](float *a, float *b, float *r, int nr, int nc) { orig::k(a, b, r, nr, nc); }, \\\n"
    "                [&](float *a, float *b, float *r, int nr, int nc) { cand::k(a, b, r, nr, nc); }\n"
    "/* row_range: four per-row outputs, exact (a maximum and a minimum do not round) */\n"
    "static void range_case(int special)\n"
    "{\n"
    "    for (int z = 0; z < 6; z++)\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            const int rows = soft_sizes[z][0], cols = soft_sizes[z][1];\n"
    "            emu::buf<float> a((size_t)rows * cols), o0(rows), o1(rows), o2(rows), o3(rows), c0(rows),\n"
    "                c1(rows), c2(rows), c3(rows);\n"
    "            a.fill(rows + cols + s);\n"
    "            special_fill(a, rows, cols, special, s);\n"
    "            dim3 g((rows + 63) / 64), blk(64);\n"
    "            emu::launch(g, blk, 0, [&] { orig::row_range(a, o0, o1, o2, o3, rows, cols); });\n"
    "            dim3 cg = s == 2 ? dim3(3) : g, cb = s == 1 ? dim3(80) : blk;\n"
    "            emu::launch(cg, cb, 0, [&] { cand::row_range(a, c0, c1, c2, c3, rows, cols); });\n"
    "            bool ok = same_or_nan(\"lo\", o0, c0, 0, 1);\n"
    "            ok = same_or_nan(\"lo2\", o1, c1, 0, 1) && ok;\n"
    "            ok = same_or_nan(\"hi\", o2, c2, 0, 1) && ok;\n"
    "            ok = same_or_nan(\"hi2\", o3, c3, 0, 1) && ok;\n"
    "            if (!ok)\n"
    "                printf(\"  (%d x %d schedule %d special %d)\\n\", rows, cols, s, special);\n"
    "        }\n"
    "}\n";

/* Runs driver on src and cand with helpers and soft_extra; the emulation must give want. */
static void soft_emulate(const char *tag, const char *src, const char *cand, const char *driver, int want)
{
    size_t n = strlen(helpers) + strlen(soft_extra) + 1;
    char *h = malloc(n);
    assert_non_null(h);
    snprintf(h, n, "%s%s", helpers, soft_extra);
    emu_batch_add_pair(&batch, tag, src, cand, h, driver, want);
    free(h);
}

/* text (malloc'd) with every occurrence of from replaced by to (at least one). */
static char *replaced_all(const char *text, const char *from, const char *to)
{
    char *t = emu_replaced(text, from, to);
    while (strstr(t, from)) {
        char *u = emu_replaced(t, from, to);
        free(t);
        t = u;
    }
    return t;
}

static void softmax_rows_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_rows/softmax_rows.cu");
    static const struct {
        const char *kernel, *driver;
    } cases[] = {
        /* probabilities: relative 1e-5 at a scale of 1e-3 (as online_softmax's case) */
        {"soft_guarded", "for (int sp = 0; sp < 4; sp++) soft_case(\"soft_guarded\", SOFT(soft_guarded), sp, 1e-5, 1e-3);\n"
                         "soft_case(\"soft_guarded\", SOFT(soft_guarded), 0, 1e-5, 1e-3, 1);"},
        {"soft_select", "for (int sp = 0; sp < 4; sp++) soft_case(\"soft_select\", SOFT(soft_select), sp, 1e-5, 1e-3);"},
        {"soft_less", "for (int sp = 0; sp < 4; sp++) soft_case(\"soft_less\", SOFT(soft_less), sp, 1e-5, 1e-3);"},
        {"row_range", "for (int sp = 0; sp < 4; sp++) range_case(sp);"},
        {"max_from_first", "for (int sp = 0; sp < 4; sp++) soft_case(\"max_from_first\", SOFT(max_from_first), sp, 0);"},
        /* session 48: loops from column 1 and 2, a max/min started from the row's first
         * element (NaN there in special 3, in later columns in special 1) */
        {"max_from_col1", "for (int sp = 0; sp < 4; sp++) soft_case(\"max_from_col1\", SOFT(max_from_col1), sp, 0);"},
        /* session 48: accumulators of a template type T (float here): a sum and an if max */
        {"tmpl_mean_max", "for (int sp = 0; sp < 4; sp++) soft_case(\"tmpl_mean_max\", SOFT(tmpl_mean_max), sp, 1e-5);"},
        {"min_sum_from_col2",
         "for (int sp = 0; sp < 4; sp++) soft_case(\"min_sum_from_col2\", "
         "[&](float *a, float *b, float *r, int nr, int nc) { orig::min_sum_from_col2(a, b, r, (unsigned)nr, (unsigned)nc); }, "
         "[&](float *a, float *b, float *r, int nr, int nc) { cand::min_sum_from_col2(a, b, r, (unsigned)nr, (unsigned)nc); }, "
         "sp, 1e-4);"},
        /* the stored row re-read in a later loop: one float4 condition for both loops, also
         * when the input is aligned differently from the output (shift 1) */
        {"store_then_update", "for (int sh = 0; sh < 2; sh++) soft_case(\"store_then_update\", SOFT(store_then_update), 0, 0, 1, sh);"},
        {"update_shorter", "for (int sh = 0; sh < 2; sh++) soft_case(\"update_shorter\", SOFT(update_shorter), 0, 0, 1, sh);"},
        {"int_double", "for (int sp = 0; sp < 4; sp++) soft_case(\"int_double\", SOFT(int_double), sp, 0);"},
        /* integers below 2^53: exact in double in any order */
        {"double_sum", "soft_case(\"double_sum\", SOFT(double_sum), 4, 0); soft_case(\"double_sum\", SOFT(double_sum), 0, 1e-6);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(src, cases[i].kernel, "warp_rows", NULL);
        assert_non_null(strstr(cand, "hk rewrite (warp_rows)"));
        nvb_add(tmpdir, cases[i].kernel, cand, strlen(cand));
        soft_emulate(cases[i].kernel, src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    free(src);
    nvb_compile_all(tmpdir);
    emu_batch_run(&batch);
}

/* The checks can fail: a maximum combined as a sum; the double sum's partials passed
 * through float; the guarded maximum turned into fmaxf in each lane (a NaN start value is
 * then dropped instead of kept, which only the combine may do); two loops over a stored row
 * choosing float4 each by its own streams (the first scalar for the misaligned input, the
 * second float4: a lane updates columns other lanes store); a loop from column 2 whose lanes
 * start at column 3. */
static void softmax_rows_broken(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_rows/softmax_rows.cu");
    char *cand = emu_rewrite(src, "soft_guarded", "warp_rows", NULL);
    char *broken = emu_replaced(cand, "hi = fmaxf(hi, hk_o);", "hi += hk_o;");
    soft_emulate("broken_max_as_sum", src, broken, "soft_case(\"soft_guarded\", SOFT(soft_guarded), 0, 1e-5, 1e-3);",
                 EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(src, "double_sum", "warp_rows", NULL);
    broken = emu_replaced(cand, "const decltype(s) hk_o", "const float hk_o");
    soft_emulate("broken_float_combine", src, broken, "soft_case(\"double_sum\", SOFT(double_sum), 4, 0);",
                 EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(src, "store_then_update", "warp_rows", NULL);
    broken = emu_replaced(cand,
                          "const bool hk_vec2 = ((reinterpret_cast<unsigned long long>(y) | "
                          "reinterpret_cast<unsigned long long>(x) | ",
                          "const bool hk_vec2 = ((");
    soft_emulate("broken_own_condition", src, broken,
                 "soft_case(\"store_then_update\", SOFT(store_then_update), 0, 0, 1, 1);", EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(src, "max_from_first", "warp_rows", NULL);
    broken = replaced_all(cand, "if (v >= m)", "m = fmaxf(m, v); if (false)");
    soft_emulate("broken_nan_start", src, broken, "soft_case(\"max_from_first\", SOFT(max_from_first), 3, 0);",
                 EMU_DIFFERS);
    free(broken);
    free(cand);
    /* session 48: lanes that start one column late leave column 2 out of the sum */
    cand = emu_rewrite(src, "min_sum_from_col2", "warp_rows", NULL);
    broken = emu_replaced(cand, "(unsigned)hk_lane + 2;", "(unsigned)hk_lane + 3;");
    soft_emulate("broken_late_start", src, broken,
                 "soft_case(\"min_sum_from_col2\", "
                 "[&](float *a, float *b, float *r, int nr, int nc) { orig::min_sum_from_col2(a, b, r, (unsigned)nr, (unsigned)nc); }, "
                 "[&](float *a, float *b, float *r, int nr, int nc) { cand::min_sum_from_col2(a, b, r, (unsigned)nr, (unsigned)nc); }, "
                 "0, 1e-4);",
                 EMU_DIFFERS);
    free(broken);
    free(cand);
    free(src);
    emu_batch_run(&batch);
}

static int warp_rows_call(const fixture *fx, size_t k, rw_result *r)
{
    return rw_warp_rows(fx->text, fx->len, fx->m, k, r);
}

/* What stays refused, with its reason; and the new path leaks nothing when memory runs out. */
static void accumulating_rows_refused(void **state)
{
    (void)state;
    static const struct {
        const char *kernel, *why;
    } cases[] = {
        {"mv_all_lanes", "summed in a register: `tmp[i]`, stored by lane 0 at line 64, is accessed at line 65 "
                         "by a row-level statement, which every lane runs"},
        {"mv_neighbour", "`tmp[i]`, stored by lane 0 at line 74, is accessed at another index `i+1` at line 75"},
        {"mv_moved", "`tmp[k]`, stored by lane 0 at line 84, is read back at line 86 through an index naming "
                     "`k`, which the row body changes at line 85"},
        {"mv_loop_reread", "`y[i]`, stored by lane 0 at line 96, is accessed at line 98 by a column loop"},
        {"col_acc", "already coalesced across the threads (A at line"},
        {"mv_after", "a loop does not declare its column variable"},
        {"mv_comma", "a loop does not declare its column variable"},
    };
    fixture fx;
    load_text(acc_rows, &fx);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rw_result r;
        assert_int_equal(rw_warp_rows(fx.text, fx.len, fx.m, kernel(&fx, cases[i].kernel), &r), HK_OK);
        if (r.applicable || !strstr(r.description, cases[i].why))
            print_message("%s: want `%s`, got: %s\n", cases[i].kernel, cases[i].why, r.description);
        assert_false(r.applicable);
        assert_non_null(strstr(r.description, cases[i].why));
        rw_result_free(&r);
    }
    rwf_survives_alloc_failures(&fx, kernel(&fx, "mv_two"), warp_rows_call);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "col_acc"), warp_rows_call);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "mv_polyb"), warp_rows_call);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "mv_reread"), warp_rows_call);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "mv_loop_reread"), warp_rows_call);
    unload(&fx);
}

/* PolyBench-style GEMV that uses the row sums after the loop (issue 13): gesummv, one
 * thread per row, with both sums in memory and read back by the statement after the loop;
 * the same with the sums in registers; and a gemv whose output is scaled by lane 0 before
 * its loop adds to it. After warp_rows, lane 0 flushes each sum and only then runs the
 * statement after the loop. */
static const char gesummv_rows[] =
    "__global__ void gesummv_mem(const float *A, const float *B, const float *x, float *tmp, float *y,\n"
    "                            float alpha, float beta, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        int j;\n"
    "        for (j = 0; j < n; j++) {\n"
    "            tmp[i] += A[i * n + j] * x[j];\n"
    "            y[i] += B[i * n + j] * x[j];\n"
    "        }\n"
    "        y[i] = alpha * tmp[i] + beta * y[i];\n"
    "    }\n"
    "}\n"
    "__global__ void gesummv_reg(const float *A, const float *B, const float *x, float *tmp, float *y,\n"
    "                            float alpha, float beta, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    float t = 0.0f, s = 0.0f;\n"
    "    for (int j = 0; j < n; j++) {\n"
    "        t += A[i * n + j] * x[j];\n"
    "        s += B[i * n + j] * x[j];\n"
    "    }\n"
    "    tmp[i] = t;\n"
    "    y[i] = alpha * t + beta * s;\n"
    "}\n"
    "__global__ void gemv_scaled(const float *A, const float *B, const float *x, float *tmp, float *y,\n"
    "                            float alpha, float beta, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        y[i] = beta * y[i];\n"
    "        for (int j = 0; j < n; j++)\n"
    "            y[i] += alpha * A[i * n + j] * x[j];\n"
    "        tmp[i] = y[i] + B[i * n + i];\n"
    "    }\n"
    "}\n";

/* The driver's C++: n x n matrices, ragged n; tmp and y zeroed (outputs) or starting non-zero
 * (inouts), three launches in a row on the same buffers, compared after each. Small
 * integers with alpha 2, beta -1 keep every sum exact in float, so the comparison is bit
 * for bit whatever the order of the sums; values in [-10, 10) with alpha 1.5, beta -0.75
 * compare within a float tolerance. The original on 64-thread blocks, the rewrite on the
 * same launch (FORWARD), blocks of 80 (REVERSE) and a grid of 3 (SHUFFLED). */
static const char gesummv_helpers[] =
    "#define GEMV(k) [&](float *A, float *B, float *x, float *t, float *y, float al, float be, int n) { orig::k(A, B, x, t, y, al, be, n); }, \\\n"
    "                [&](float *A, float *B, float *x, float *t, float *y, float al, float be, int n) { cand::k(A, B, x, t, y, al, be, n); }\n"
    "template <class F, class G> static void gemv_case(const char *what, F ko, G kc)\n"
    "{\n"
    "    static const int sizes[] = {1, 5, 33, 67, 130};\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int s = 0; s < 3; s++)\n"
    "            for (int exact = 0; exact < 2; exact++)\n"
    "                for (int inout = 0; inout < 2; inout++) {\n"
    "                    emu::schedule = s;\n"
    "                    const int n = sizes[z];\n"
    "                    const float al = exact ? 2.0f : 1.5f, be = exact ? -1.0f : -0.75f;\n"
    "                    emu::buf<float> A((size_t)n * n), B((size_t)n * n), x(n), to(n), tc(n), yo(n), yc(n);\n"
    "                    if (exact) {\n"
    "                        A.fill_mod(n + s, 7); B.fill_mod(n + s + 3, 5); x.fill_mod(s + 11, 9);\n"
    "                    } else {\n"
    "                        A.fill(n + s); B.fill(n + s + 3); x.fill(s + 11);\n"
    "                    }\n"
    "                    if (inout) {\n"
    "                        to.fill_mod(5 + s, 13); tc.fill_mod(5 + s, 13); yo.fill_mod(8 + s, 11); yc.fill_mod(8 + s, 11);\n"
    "                    } else {\n"
    "                        to.set(0); tc.set(0); yo.set(0); yc.set(0);\n"
    "                    }\n"
    "                    const double rtol = exact ? 0 : 1e-5, scale = exact ? 1 : 300.0 * n;\n"
    "                    for (int l = 0; l < 3; l++) {\n"
    "                        dim3 g((n + 63) / 64), blk(64);\n"
    "                        emu::launch(g, blk, 0, [&] { ko(A, B, x, to, yo, al, be, n); });\n"
    "                        dim3 cg = s == 2 ? dim3(3) : g, cb = s == 1 ? dim3(80) : blk;\n"
    "                        emu::launch(cg, cb, 0, [&] { kc(A, B, x, tc, yc, al, be, n); });\n"
    "                        bool ok = emu::expect(what, to, tc, rtol, scale);\n"
    "                        ok = emu::expect(what, yo, yc, rtol, scale) && ok;\n"
    "                        if (!ok) {   /* the first case that differs is enough */\n"
    "                            printf(\"  (n %d schedule %d %s %s launch %d)\\n\", n, s, exact ? \"exact\" : \"float\",\n"
    "                                   inout ? \"inout\" : \"zeroed\", l);\n"
    "                            return;\n"
    "                        }\n"
    "                    }\n"
    "                }\n"
    "}\n";

#define GEMV_DRIVER(k) "gemv_case(\"" k "\", GEMV(" k "));"

static void gesummv_rows_run(void **state)
{
    (void)state;
    static const char *const kernels[] = {"gesummv_mem", "gesummv_reg", "gemv_scaled"};
    emu_batch_init(&batch, tmpdir, __func__);
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        char *cand = emu_rewrite(gesummv_rows, kernels[i], "warp_rows", NULL);
        assert_non_null(strstr(cand, "__shfl_xor_sync"));
        nvb_add(tmpdir, kernels[i], cand, strlen(cand));
        if (emu_available()) {
            char driver[256];
            snprintf(driver, sizeof driver, GEMV_DRIVER("%s"), kernels[i], kernels[i]);
            emu_batch_add_pair(&batch, kernels[i], gesummv_rows, cand, gesummv_helpers, driver, EMU_OK);
        }
        free(cand);
    }
    nvb_compile_all(tmpdir);
    if (emu_available())
        emu_batch_run(&batch);
}

/* The checks can fail: gesummv's statement after the loop run by every lane (a lane reads
 * tmp[i] before lane 0 flushed it, or applies beta to y[i] a second time), and run by lane 0
 * before its flushes. */
static void gesummv_broken_fails(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char post[] = "y[i] = alpha * tmp[i] + beta * y[i];";
    char *cand = emu_rewrite(gesummv_rows, "gesummv_mem", "warp_rows", NULL);
    char *every = emu_replaced(cand, "if (hk_lane == 0u) {\n            y[i] = alpha", "{\n            y[i] = alpha");
    emu_batch_add_pair(&batch, "gesummv_every_lane", gesummv_rows, every, gesummv_helpers, GEMV_DRIVER("gesummv_mem"),
                 EMU_DIFFERS);
    char *dropped = emu_replaced(cand, post, ";");
    char *early = emu_replaced(dropped, "tmp[i] += hk_acc0;", "y[i] = alpha * tmp[i] + beta * y[i]; tmp[i] += hk_acc0;");
    emu_batch_add_pair(&batch, "gesummv_before_flush", gesummv_rows, early, gesummv_helpers, GEMV_DRIVER("gesummv_mem"),
                 EMU_DIFFERS);
    free(early);
    free(dropped);
    free(every);
    free(cand);
    emu_batch_run(&batch);
}

/* register_accumulators on its own: a thread per column (whose loads already coalesce) sums
 * into y[j] in a register, added once after its loop; y starts at 5, so dropping its old
 * value is caught. Same launch for both (the rewrite keeps the kernel's indexing). */
#define COL_DRIVER(kernel, tag)                                                                  \
    "for (int s = 0; s < 3; s++) {\n"                                                             \
    "    emu::schedule = s;\n"                                                                    \
    "    const int rows = 37 + 11 * s, cols = 70 + 5 * s;\n"                                      \
    "    emu::buf<float> a((size_t)rows * cols), x(rows), yo(cols), yc(cols);\n"                  \
    "    a.fill(3 + s); x.fill(7 + s); yo.fill(5); yc.fill(5);\n"                                 \
    "    dim3 g((cols + 31) / 32), b(32);\n"                                                      \
    "    emu::launch(g, b, 0, [&] { orig::" kernel "(rows, cols, a.ptr(), x.ptr(), yo.ptr()); });\n" \
    "    emu::launch(g, b, 0, [&] { cand::" kernel "(rows, cols, a.ptr(), x.ptr(), yc.ptr()); });\n" \
    "    emu::expect(\"" tag "\", yo, yc, 1e-5, 1);\n"                                            \
    "}\n"

static const char col_kernels[] =
    "__global__ void col_mv(int rows, int cols, const float *A, const float *x, float *y)\n"
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < cols)\n"
    "        for (int i = 0; i < rows; i++)\n"
    "            y[j] += A[i * cols + j] * x[i];\n"
    "}\n"
    "__global__ void col_mean(int rows, int cols, const float *A, const float *x, float *y)\n"
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j >= cols)\n"
    "        return;\n"
    "    y[j] = 0.0f;\n"
    "    for (int i = 0; i < rows; i++) {\n"
    "        if (x[i] > 0.0f)\n"
    "            y[j] -= A[i * cols + j];\n"
    "    }\n"
    "    y[j] /= (float)rows;\n"
    "}\n";

/* A row kernel written with a typedef'd element type and row pointers (llm.c's encoder:
 * `floatX *out_bt = out + ...;`): warp_rows reads the declarations and matches the
 * original. (An accumulator of a typedef'd type is still refused: the shuffle's type is
 * not known.) */
static const char typedef_rows[] =
    "typedef float real_t;\n"
    "__global__ void enc(const float *a, float *b, float *r, int rows, int cols)\n"
    "{\n"
    "    int idx = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (idx < rows) {\n"
    "        real_t *out_row = b + idx * cols;\n"
    "        const real_t *in_row = a + idx * cols;\n"
    "        float s = 0;\n"
    "        for (int c = 0; c < cols; c++) {\n"
    "            out_row[c] = in_row[c] * 2.0f + 1.0f;\n"
    "            s += in_row[c];\n"
    "        }\n"
    "        r[idx] = s;\n"
    "    }\n"
    "}\n";

static void typedef_rows_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(typedef_rows, "enc", "warp_rows", NULL);
    assert_non_null(strstr(cand, "__shfl_xor_sync"));
    assert_non_null(strstr(cand, "real_t *out_row = b + idx * cols;"));
    emulate("enc", typedef_rows, cand, "rows_case<float>(\"enc\", BOTH(enc(a, b, r, ROWS, COLS)), 1e-4);",
            EMU_OK);
    free(cand);
    emu_batch_run(&batch);
}

static void register_accumulators_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(col_kernels, "col_mv", "register_accumulators", NULL);
    assert_non_null(strstr(cand, "float hk_acc0 = 0;"));
    assert_non_null(strstr(cand, "y[j] += hk_acc0;"));
    emulate("col_mv", col_kernels, cand, COL_DRIVER("col_mv", "col_mv"), EMU_OK);
    char *broken = emu_replaced(cand, "y[j] += hk_acc0;", "y[j] = hk_acc0;");
    emulate("broken_col_mv", col_kernels, broken, COL_DRIVER("col_mv", "col_mv"), EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(col_kernels, "col_mean", "register_accumulators", NULL);
    emulate("col_mean", col_kernels, cand, COL_DRIVER("col_mean", "col_mean"), EMU_OK);
    free(cand);
    emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(warp_rows_run),
        cmocka_unit_test(online_rows_run),
        cmocka_unit_test(broken_row_shuffle_fails),
        cmocka_unit_test(warp_rows_layernorm_precision),
        cmocka_unit_test(one_pass_variance_fails),
        cmocka_unit_test(accumulating_rows_run),
        cmocka_unit_test(accumulating_rows_refused),
        cmocka_unit_test(gesummv_rows_run),
        cmocka_unit_test(gesummv_broken_fails),
        cmocka_unit_test(register_accumulators_run),
        cmocka_unit_test(typedef_rows_run),
        cmocka_unit_test(softmax_rows_run),
        cmocka_unit_test(softmax_rows_broken),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
