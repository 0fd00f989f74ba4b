/* block_reduce's tree path (rw_block_tree) run, not only compiled: four shared-memory
 * tree reductions -- a per-block partial sum over a grid-stride loop, an interleaved
 * integer tree over dynamic shared memory into one atomic, a per-channel max of a template
 * T scaled after the tree, and (session 31) a column sum coarsened in a register whose
 * tree runs `h >= 1` with its barrier first -- and their rewrites run in the block
 * emulator (emu_block.h) on the same inputs, on blocks of one to eight warps under three
 * thread orders; every output must match (integers and maxima exactly, float sums within
 * a relative tolerance). A rewrite with its warp step cut short must differ, and so must
 * the column sum's rewrite against its tree stopped at `h >= 2`, so the check cannot pass
 * vacuously. Session 37: two trees through a register carry that thread 0 writes after
 * the tree (a chained sum, a max with the update and the store apart); the chained one
 * cut short, or with thread 0's register left unset, must differ. Session 43: kernels of two
 * trees in one block (a row norm's mean then variance over one buffer, an integer max then
 * sum over two, llm.c's softmax_forward_kernel2 from bench/wild/src), also with
 * fused_blocks (F 2, 4) stacked on the rewrite, each tree cut short differing, and a second
 * tree whose slot 1 is not stored again differing (what block_reduce refuses). Session 47:
 * a tree inside a loop over rows (a row sum, a row max read by every thread), fewer blocks
 * than rows; cut short, or both texts adding to the slot instead of storing it again, it
 * differs. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_pattern.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rw_fixture.h"
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-emu-tree");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* C++ shared by the drivers: PAIR(T, what, nout, rtol, scale, launch) runs launch (a
 * statement using NS:: for the namespace and out for a buffer of nout T, zeroed) on the
 * original and on the rewrite under the three thread orders; every output must match. */
static const char emu_helpers[] =
    "#define PAIR(T, what, nout, rtol, scale, ...)                                   \\\n"
    "    for (int s = 0; s < 3; s++) {                                               \\\n"
    "        emu::schedule = s;                                                      \\\n"
    "        emu::buf<T> o_out(nout), c_out(nout);                                   \\\n"
    "        o_out.set(T(0));                                                        \\\n"
    "        c_out.set(T(0));                                                        \\\n"
    "        { namespace NS = orig; auto &out = o_out; __VA_ARGS__; }                \\\n"
    "        { namespace NS = cand; auto &out = c_out; __VA_ARGS__; }                \\\n"
    "        if (!emu::expect(what, o_out, c_out, rtol, scale))                      \\\n"
    "            printf(\"  (schedule %d)\\n\", s);                                   \\\n"
    "    }\n";

/* The emulated programs of the test (emu_batch.h): queued by emulate_tree, built in one g++
 * run and checked, each case in its own process and named when it does not give its want,
 * at the test's end. */
static emu_batch batch;

static void emulate_tree(const char *tag, const char *src, const char *kname, const char *driver, bool broken)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, kname), &r), HK_OK);
    assert_true(r.applicable);
    char *cand = strdup(r.text);
    assert_non_null(cand);
    if (broken) {   /* the warp step one short: the check must see it */
        char *at = strstr(cand, "hk_off = 16;");
        assert_non_null(at);
        memcpy(at, "hk_off = 8; ", 12);
    }
    emu_batch_add_pair(&batch, tag, src, cand, emu_helpers, driver, broken ? EMU_DIFFERS : EMU_OK);
    free(cand);
    rw_result_free(&r);
    unload(&fx);
}

/* text with the n-th (from 1) occurrence of from replaced by to (same length or not). */
static char *nth_replaced(const char *text, const char *from, int n, const char *to)
{
    const char *at = strstr(text, from);
    for (int i = 1; at && i < n; i++)
        at = strstr(at + 1, from);
    assert_non_null(at);
    size_t a = (size_t)(at - text), lf = strlen(from), lt = strlen(to), len = strlen(text);
    char *out = malloc(len - lf + lt + 1);
    assert_non_null(out);
    memcpy(out, text, a);
    memcpy(out + a, to, lt);
    memcpy(out + a + lt, at + lf, len - a - lf + 1);
    return out;
}

/* Session 43: a kernel of several trees. rw_block_tree's text for kname in src, emulated
 * against src (want EMU_OK), so is fused_blocks at F 2 and 4 on that text, and with each tree's in-warp shuffle cut short (the n-th
 * tree's first `hk_off = 16;`, two per tree) against src (want EMU_DIFFERS). */
static void emulate_trees(const char *tag, const char *src, const char *kname, const char *driver, int ntrees)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, kname), &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    emu_batch_add_pair(&batch, tag, src, r.text, emu_helpers, driver, EMU_OK);
    /* fused_blocks stacked on it (the search's stack: F blocks' rows one after another in a
     * block, each copy with its trees' hk_part), F 2 and 4, grids not multiples of F */
    for (int F = 2; F <= 4; F += 2) {
        int p[RW_MAX_PARAMS] = {F};
        char *fused = emu_rewrite(r.text, kname, "fused_blocks", p);
        char ftag[96];
        snprintf(ftag, sizeof ftag, "%s_fused%d", tag, F);
        emu_batch_add_pair(&batch, ftag, src, fused, emu_helpers, driver, EMU_OK);
        free(fused);
    }
    for (int t = 0; t < ntrees; t++) {
        char *cut = nth_replaced(r.text, "hk_off = 16;", 2 * t + 1, "hk_off = 8;");
        char ctag[96];
        snprintf(ctag, sizeof ctag, "%s_tree%d_short", tag, t + 1);
        emu_batch_add_pair(&batch, ctag, src, cut, emu_helpers, driver, EMU_DIFFERS);
        free(cut);
    }
    rw_result_free(&r);
    unload(&fx);
}

/* The text of the function named name in text (from the line of its `__global__` to its
 * closing brace, braces counted), or NULL. */
static char *function_text(const char *text, const char *name)
{
    const char *at = strstr(text, name);
    while (at && at[strlen(name)] != '(')
        at = strstr(at + 1, name);
    if (!at)
        return NULL;
    const char *a = at;
    while (a > text && a[-1] != '\n')
        a--;
    const char *b = strchr(at, '{');
    int depth = 0;
    for (; b && *b; b++) {
        depth += *b == '{';
        depth -= *b == '}';
        if (*b == '}' && depth == 0)
            break;
    }
    if (!b || !*b)
        return NULL;
    return strndup(a, (size_t)(b - a + 1));
}

static const char emu_part[] =
    "__global__ void part(const float *x, float *partial, unsigned n)\n"
    "{\n"
    "    __shared__ float acc[256];\n"
    "    unsigned t = threadIdx.x;\n"
    "    float v = 0.0f;\n"
    "    for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)\n"
    "        v += x[i];\n"
    "    acc[t] = v;\n"
    "    __syncthreads();\n"
    "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
    "        if (t < h)\n"
    "            acc[t] += acc[t + h];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0)\n"
    "        partial[blockIdx.x] = acc[0];\n"
    "}\n";

/* session 47: a tree inside a loop over rows (a block per row, rows grid-strided over the
 * blocks), thread 0 writing the row's sum; and a row max read by every thread, with a
 * barrier before the next row's stores */
static const char emu_rows[] =
    "__global__ void rowsum(const float *x, float *out, int rows, int cols)\n"
    "{\n"
    "    __shared__ float s[256];\n"
    "    unsigned t = threadIdx.x;\n"
    "    for (int r = blockIdx.x; r < rows; r += gridDim.x) {\n"
    "        float v = 0.0f;\n"
    "        for (int c = t; c < cols; c += blockDim.x)\n"
    "            v += x[r * cols + c];\n"
    "        s[t] = v;\n"
    "        __syncthreads();\n"
    "        for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
    "            if (t < h)\n"
    "                s[t] += s[t + h];\n"
    "            __syncthreads();\n"
    "        }\n"
    "        if (t == 0)\n"
    "            out[r] = s[0];\n"
    "    }\n"
    "}\n";

static const char emu_rownorm[] =
    "__global__ void rownorm(const float *x, float *y, int rows, int cols)\n"
    "{\n"
    "    __shared__ float s[256];\n"
    "    const unsigned t = threadIdx.x;\n"
    "    for (int r = blockIdx.x; r < rows; r += gridDim.x) {\n"
    "        float v = -1e30f;\n"
    "        for (int c = t; c < cols; c += blockDim.x)\n"
    "            v = fmaxf(v, x[r * cols + c]);\n"
    "        s[t] = v;\n"
    "        __syncthreads();\n"
    "        for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
    "            if (t < h)\n"
    "                s[t] = fmaxf(s[t], s[t + h]);\n"
    "            __syncthreads();\n"
    "        }\n"
    "        float m = s[0];\n"
    "        for (int c = t; c < cols; c += blockDim.x)\n"
    "            y[r * cols + c] = x[r * cols + c] - m;\n"
    "        __syncthreads();\n"
    "    }\n"
    "}\n";

static const char emu_inter[] =
    "__global__ void inter(const int *a, int *out, int n)\n"
    "{\n"
    "    extern __shared__ int dyn[];\n"
    "    int me = threadIdx.x;\n"
    "    int g = blockIdx.x * blockDim.x + me;\n"
    "    dyn[me] = g < n ? a[g] : 0;\n"
    "    __syncthreads();\n"
    "    for (int step = 1; step < blockDim.x; step *= 2) {\n"
    "        int index = 2 * step * me;\n"
    "        if (index < blockDim.x)\n"
    "            dyn[index] = dyn[index] + dyn[index + step];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (me == 0) atomicAdd(out, dyn[0]);\n"
    "}\n";

static const char emu_chmax[] =
    "template <typename T>\n"
    "__global__ void chmax(const T *x, float *mx, int batch, int chans, int hw)\n"
    "{\n"
    "    __shared__ float part[1024];\n"
    "    const int ch = blockIdx.x;\n"
    "    part[threadIdx.x] = -1e30f;\n"
    "    for (int j = threadIdx.x; j < batch * hw; j += blockDim.x)\n"
    "        part[threadIdx.x] = fmaxf(part[threadIdx.x], x[(j / hw * chans + ch) * hw + j % hw]);\n"
    "    __syncthreads();\n"
    "    for (int k = blockDim.x >> 1; k > 0; k >>= 1) {\n"
    "        if (k > threadIdx.x)\n"
    "            part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + k]);\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0)\n"
    "        mx[ch] = part[0] * 0.5f;\n"
    "}\n";

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, "tree");
    /* per-block partial sums over a grid-stride loop: blocks of 32, 64 and 256 */
    static const char part_drv[] =
        "for (unsigned b : {32u, 64u, 256u}) {\n"
        "    const unsigned n = 3000, g = 5;\n"
        "    emu::buf<float> x(n);\n"
        "    x.fill((int)b);\n"
        "    PAIR(float, \"part\", g, 1e-5, 10.0 * n, emu::launch(dim3(g), dim3(b), 0, [&] { NS::part(x, out, n); }));\n"
        "}\n";
    emulate_tree("tree_part", emu_part, "part", part_drv, false);
    emulate_tree("tree_part_broken", emu_part, "part", part_drv, true);
    /* session 47: trees inside a loop over rows, blocks of one to eight warps, fewer blocks
     * than rows (each block runs several rows: the slots reused) and more; ragged rows (the
     * original's halving tree needs a power-of-two block, as every such tree). The
     * warp step cut short must differ; so must the rewrite and the original both changed to
     * add the row's partial to the slot (`s[t] += v`, the slot not stored again: what
     * block_reduce refuses), the rewrite's slots left other than the original's. */
    static const char rows_drv[] =
        "for (unsigned b : {32u, 64u, 256u})\n"
        "    for (unsigned g : {1u, 3u, 40u}) {\n"
        "        const int rows = 17, cols = 301;\n"
        "        emu::buf<float> x(rows * cols);\n"
        "        x.fill((int)(b + g));\n"
        "        PAIR(float, \"rowsum\", rows, 1e-5, 10.0 * cols, emu::launch(dim3(g), dim3(b), 0, [&] { NS::rowsum(x, out, rows, cols); }));\n"
        "    }\n";
    emulate_tree("tree_rows", emu_rows, "rowsum", rows_drv, false);
    emulate_tree("tree_rows_broken", emu_rows, "rowsum", rows_drv, true);
    {
        fixture fx;
        load_text(emu_rows, &fx);
        rw_result r;
        assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, "rowsum"), &r), HK_OK);
        assert_true(r.applicable);
        /* both from zeroed slots, so the leftovers are finite */
        char *o0 = nth_replaced(emu_rows, "s[t] = v;", 1, "s[t] += v;");
        char *c0 = nth_replaced(r.text, "s[t] = v;", 1, "s[t] += v;");
        char *o = nth_replaced(o0, "    for (int r = blockIdx.x;", 1, "    s[t] = 0.0f;\n    for (int r = blockIdx.x;");
        char *c = nth_replaced(c0, "    for (int r = blockIdx.x;", 1, "    s[t] = 0.0f;\n    for (int r = blockIdx.x;");
        free(o0);
        free(c0);
        emu_batch_add_pair(&batch, "tree_rows_not_restored", o, c, emu_helpers, rows_drv, EMU_DIFFERS);
        free(o);
        free(c);
        rw_result_free(&r);
        unload(&fx);
    }
    static const char rownorm_drv[] =
        "for (unsigned b : {32u, 128u, 256u})\n"
        "    for (unsigned g : {1u, 4u}) {\n"
        "        const int rows = 9, cols = 200;\n"
        "        emu::buf<float> x(rows * cols);\n"
        "        x.fill((int)(b + g));\n"
        "        PAIR(float, \"rownorm\", rows * cols, 0, 0, emu::launch(dim3(g), dim3(b), 0, [&] { NS::rownorm(x, out, rows, cols); }));\n"
        "    }\n";
    emulate_tree("tree_rownorm", emu_rownorm, "rownorm", rownorm_drv, false);
    emulate_tree("tree_rownorm_broken", emu_rownorm, "rownorm", rownorm_drv, true);
    /* an interleaved tree over dynamic shared memory into one atomic, integers: exact */
    static const char inter_drv[] =
        "for (unsigned b : {64u, 128u}) {\n"
        "    const int n = 1000;\n"
        "    emu::buf<int> a(n);\n"
        "    a.fill_mod((int)b, 1000);\n"
        "    const unsigned g = (n + b - 1) / b;\n"
        "    PAIR(int, \"inter\", 1, 0, 0, emu::launch(dim3(g), dim3(b), b * sizeof(int), [&] { NS::inter(a, out, n); }));\n"
        "}\n";
    emulate_tree("tree_inter", emu_inter, "inter", inter_drv, false);
    /* a per-channel max of a template T, scaled after the tree: exact */
    static const char chmax_drv[] =
        "const int batch = 3, chans = 4, hw = 50;\n"
        "emu::buf<float> x(batch * chans * hw);\n"
        "x.fill(9);\n"
        "for (unsigned b : {32u, 128u})\n"
        "    PAIR(float, \"chmax\", chans, 0, 0, emu::launch(dim3(chans), dim3(b), 0, [&] { NS::chmax<float>(x, out, batch, chans, hw); }));\n";
    emulate_tree("tree_chmax", emu_chmax, "chmax", chmax_drv, false);
    /* session 31: a column sum whose threads first sum their rows in a register, the tree
     * halving `h >= 1` with its barrier first in the body, thread 0 adding to the output
     * (tests/data/rewrite_tree/colsum_coarsened.cu); ragged row counts, blocks of one to
     * eight warps, the output filled before (it is read and written) */
    static const char colsum_drv[] =
        "for (unsigned b : {32u, 64u, 256u})\n"
        "    for (int rows : {1, 37, 300, 1031}) {\n"
        "        const int cols = 5;\n"
        "        emu::buf<float> m(rows * cols);\n"
        "        m.fill(rows + (int)b);\n"
        "        PAIR(float, \"colsum\", cols, 1e-5, 10.0 * rows, out.fill(3); emu::launch(dim3(cols), dim3(b), b * sizeof(float), [&] { NS::colsum_acc(out, m, rows, cols); }));\n"
        "    }\n";
    char *colsum = rwf_data_file("rewrite_tree/colsum_coarsened.cu");
    emulate_tree("tree_colsum", colsum, "colsum_acc", colsum_drv, false);
    emulate_tree("tree_colsum_broken", colsum, "colsum_acc", colsum_drv, true);
    /* the loop's bound matters: the same rewrite against the tree stopped at `h >= 2`
     * (two partial sums left, S[0] holding only one) must differ: what refuses `>= 2` */
    {
        fixture fx;
        load_text(colsum, &fx);
        rw_result r;
        assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, "colsum_acc"), &r), HK_OK);
        assert_true(r.applicable);
        char *early = strdup(colsum);
        assert_non_null(early);
        char *at = strstr(early, "h >= 1;");
        assert_non_null(at);
        at[5] = '2';
        emu_batch_add_pair(&batch, "tree_colsum_stops_at_2", early, r.text, emu_helpers, colsum_drv, EMU_DIFFERS);
        free(early);
        rw_result_free(&r);
        unload(&fx);
    }
    free(colsum);
    /* session 37: trees through a register carry, the register written by thread 0 after
     * the tree (tests/data/rewrite_tree/carry_chained.cu: a sum of two inputs per thread,
     * chained `slot[t] = carry = carry + slot[t + h]`; carry_split.cu: a row max, the update
     * and the store apart); ragged sizes, blocks of one to eight warps. The rewrite must
     * leave thread 0's register as the tree did: cut short, or without the register's
     * assignment (the partials would be each block's thread 0 pair only), it differs. */
    static const char carry_drv[] =
        "for (unsigned b : {32u, 64u, 256u})\n"
        "    for (unsigned n : {1u, 700u, 5000u}) {\n"
        "        emu::buf<float> in(n);\n"
        "        in.fill((int)(n + b));\n"
        "        const unsigned g = (n + 2 * b - 1) / (2 * b);\n"
        "        PAIR(float, \"pairsum\", g, 1e-5, 10.0 * n, emu::launch(dim3(g), dim3(b), b * sizeof(float), [&] { NS::pairsum_carry<float>(in, out, n); }));\n"
        "    }\n";
    char *carry = rwf_data_file("rewrite_tree/carry_chained.cu");
    emulate_tree("tree_carry", carry, "pairsum_carry", carry_drv, false);
    emulate_tree("tree_carry_broken", carry, "pairsum_carry", carry_drv, true);
    {
        fixture fx;
        load_text(carry, &fx);
        rw_result r;
        assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, "pairsum_carry"), &r), HK_OK);
        assert_true(r.applicable);
        char *noset = strdup(r.text);
        assert_non_null(noset);
        char *at = strstr(noset, "carry = hk_acc;");
        assert_non_null(at);
        memcpy(at, "(void)hk_acc;  ", 15);
        emu_batch_add_pair(&batch, "tree_carry_unset", carry, noset, emu_helpers, carry_drv, EMU_DIFFERS);
        free(noset);
        rw_result_free(&r);
        unload(&fx);
    }
    free(carry);
    static const char rowmax_drv[] =
        "for (unsigned b : {32u, 128u, 512u})\n"
        "    for (int cols : {1, 45, 1000}) {\n"
        "        const int rows = 3;\n"
        "        emu::buf<float> x(rows * cols);\n"
        "        x.fill(cols + (int)b);\n"
        "        PAIR(float, \"rowmax\", rows, 0, 0, emu::launch(dim3(rows), dim3(b), 0, [&] { NS::rowmax_carry(x, out, cols, 0.5f); }));\n"
        "    }\n";
    char *rowmax = rwf_data_file("rewrite_tree/carry_split.cu");
    emulate_tree("tree_carry_split", rowmax, "rowmax_carry", rowmax_drv, false);
    free(rowmax);
    /* session 43: two trees in one block. A row normalization (mean, then the variance
     * around it, over one dynamic buffer; tests/data/rewrite_tree/two_trees_norm.cu):
     * blocks of one to eight warps, ragged rows, y and the per-row (mean, rstd) compared
     * within 1e-4 (the sums' order changes). Each tree cut short must differ. */
    static const char norm_drv[] =
        "for (unsigned b : {32u, 64u, 256u})\n"
        "    for (int cols : {1, 37, 300, 1031}) {\n"
        "        const int rows = 3;\n"
        "        emu::buf<float> x(rows * cols);\n"
        "        x.fill(cols + (int)b);\n"
        "        PAIR(float, \"row_norm\", rows * cols + 2 * rows, 1e-4, 1.0, emu::launch(dim3(rows), dim3(b), b * sizeof(float), [&] { NS::row_norm(x, &out[0], &out[rows * cols], cols, 1e-5f); }));\n"
        "    }\n";
    char *norm = rwf_data_file("rewrite_tree/two_trees_norm.cu");
    emulate_trees("trees_norm", norm, "row_norm", norm_drv, 2);
    /* why the second tree's slots must all be stored again (block_reduce refuses it): with
     * thread 1's store skipped, the original's tree reads slot 1's partial sum of the first
     * tree, the rewrite's its thread's own first value; the rewrite of the kernel with the
     * store, given the same skip, must differ from that original */
    {
        fixture fx;
        load_text(norm, &fx);
        rw_result r;
        assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, "row_norm"), &r), HK_OK);
        assert_true(r.applicable);
        static const char store[] = "    red[tid] = q;\n", skip[] = "    if (tid != 1)\n        red[tid] = q;\n";
        char *orig = nth_replaced(norm, store, 1, skip);
        char *cand = nth_replaced(r.text, store, 1, skip);
        emu_batch_add_pair(&batch, "trees_norm_slot_not_stored", orig, cand, emu_helpers, norm_drv, EMU_DIFFERS);
        free(orig);
        free(cand);
        rw_result_free(&r);
        unload(&fx);
    }
    free(norm);
    /* a row's maximum (halving) then the sum of the distances below it (interleaved), two
     * static buffers of the macro block size, integers: exact */
    static const char gap_drv[] =
        "for (int cols : {1, 45, 300, 1000}) {\n"
        "    const int rows = 4;\n"
        "    emu::buf<int> v(rows * cols);\n"
        "    v.fill_mod(cols, 100000);\n"
        "    PAIR(int, \"row_gap\", rows, 0, 0, emu::launch(dim3(rows), dim3(256), 0, [&] { NS::row_gap(v, out, cols); }));\n"
        "}\n";
    char *gap = rwf_data_file("rewrite_tree/two_trees_int.cu");
    emulate_trees("trees_gap", gap, "row_gap", gap_drv, 2);
    free(gap);
    /* llm.c's softmax_forward_kernel2 itself (bench/wild/src, when extracted: the kernel's
     * text alone): the row's max, expf written, the written row's sum, the division; blocks
     * of one to sixteen warps, ragged rows, within 1e-5 of the original. Softmax is the same
     * for any offset that keeps expf finite, so the max tree cut short differs only where it
     * misses a logit more than 88 above the rest (llm.c's own check multiplies outliers by
     * 20): one in lane 20 of warp 0, which the in-warp shuffle cut at 8 leaves out */
    char *wild = rwf_wild_text("llmc_softmax2", NULL);
    if (wild) {
        char *fn = function_text(wild, "softmax_forward_kernel2");
        assert_non_null(fn);
        char *src = malloc(strlen(fn) + 64);
        assert_non_null(src);
        sprintf(src, "#include <math.h>\n%s\n", fn);
        static const char sm_drv[] =
            "for (unsigned b : {32u, 128u, 512u})\n"
            "    for (int C : {1, 45, 1000}) {\n"
            "        const int N = 3;\n"
            "        emu::buf<float> inp(N * C);\n"
            "        inp.fill(C + (int)b);\n"
            "        if (C > 20)   /* a large logit in lane 20 of warp 0: the max must see it */\n"
            "            for (int r = 0; r < N; r++) inp[r * C + 20] = 200.0f * (float)(r + 1);\n"
            "        PAIR(float, \"softmax2\", N * C, 1e-5, 0.0, emu::launch(dim3(N), dim3(b), b * sizeof(float), [&] { NS::softmax_forward_kernel2(out, inp, N, C); }));\n"
            "    }\n";
        emulate_trees("trees_llmc_softmax2", src, "softmax_forward_kernel2", sm_drv, 2);
        free(src);
        free(fn);
        free(wild);
    }
    /* session 46: trees of several arrays in one loop, each array combined with itself
     * alone. A channel's sum and sum of squares (tests/data/rewrite_tree/tuple_stats.cu: the
     * strided loop adds into the shared slots, one halving loop for both; the mean and
     * variance written): blocks of one to eight warps, ragged channels, within 1e-4. A sum,
     * a maximum and an integer minimum in one interleaved loop (tuple_mixed.cu, a block of
     * 128): ragged sizes, the sums within 1e-5, the maximum and minimum exact. Each tree cut
     * short must differ (emulate_trees: also with fused_blocks stacked). */
    static const char stats_drv[] =
        "for (unsigned b : {32u, 64u, 256u})\n"
        "    for (int hw : {1, 37, 300}) {\n"
        "        const int n = 3, cn = 4;\n"
        "        emu::buf<float> x(n * cn * hw);\n"
        "        x.fill(hw + (int)b);\n"
        "        PAIR(float, \"chan_stats\", 2 * cn, 1e-4, 1.0, emu::launch(dim3(cn), dim3(b), 0, [&] { NS::chan_stats<float>(x, &out[0], &out[cn], n, cn, hw); }));\n"
        "    }\n";
    char *stats = rwf_data_file("rewrite_tree/tuple_stats.cu");
    emulate_trees("tuple_stats", stats, "chan_stats", stats_drv, 2);
    free(stats);
    static const char mixed_drv[] =
        "for (int n : {1, 100, 128, 1000}) {\n"
        "    const unsigned g = (n + 127) / 128;\n"
        "    emu::buf<float> v(n);\n"
        "    emu::buf<int> k(n);\n"
        "    emu::buf<int> low_o(g), low_c(g);\n"
        "    v.fill(n);\n"
        "    k.fill_mod(n + 7, 100000);\n"
        "    PAIR(float, \"block_summary\", 2 * g, 1e-5, 10.0 * n, emu::launch(dim3(g), dim3(128), 0, [&] { NS::block_summary(v, k, &out[0], &out[g], (&out == &o_out ? low_o : low_c), n); }));\n"
        "    if (!emu::expect(\"block_summary low\", low_o, low_c, 0, 0)) printf(\"  (n %d)\\n\", n);\n"
        "}\n";
    char *mixed = rwf_data_file("rewrite_tree/tuple_mixed.cu");
    emulate_trees("tuple_mixed", mixed, "block_summary", mixed_drv, 3);
    free(mixed);
    emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emulated_runs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
