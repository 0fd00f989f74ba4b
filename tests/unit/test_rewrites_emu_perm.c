/* tiled_permute run, not only compiled (issue 13, "measure, don't trust"): permutations
 * of a flat index split by / and % -- llm.c's 4-D permute, a batched transpose, a read-
 * permuted NCHW -> NHWC, unsigned and size_t indices, a template element type -- against
 * their rewrite in the block emulator (emu_block.h): sizes that are and are not multiples
 * of the tile, the rewrite on the original's launch, on blocks of 80 (the bounds-checked
 * path) and on a 3-block grid (grid-stride over tiles); every output must match exactly.
 * A dropped barrier must fail. Kernels it must not take are refused with the construct
 * and its line. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_permute.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
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
    return rwf_setup("rewrites-emu-perm");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* C++ the drivers share: sizes d[0..3] (a 3-D case leaves d[3] at 1), the original on
 * blocks of 256 over the N elements, the rewrite on that launch (schedule FORWARD), on
 * blocks of 80 (REVERSE) and on a grid of 3 blocks (SHUFFLED). */
static const char helpers[] =
    "struct dims { int d[4]; long n() const { return (long)d[0] * d[1] * d[2] * d[3]; } };\n"
    "#define BOTH(...) [&](auto a, auto b, dims z) { orig::__VA_ARGS__; }, \\\n"
    "                  [&](auto a, auto b, dims z) { cand::__VA_ARGS__; }\n"
    "template <class T, class F, class G>\n"
    "static void perm_case(const char *what, F ko, G kc, std::initializer_list<dims> sizes)\n"
    "{\n"
    "    for (const dims &z : sizes)\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            const long n = z.n();\n"
    "            emu::buf<T> in(n), oo(n), oc(n);\n"
    "            in.fill((int)n + s);\n"
    "            oo.fill(99);\n"
    "            oc.fill(99);\n"
    "            dim3 g((unsigned)((n + 255) / 256)), blk(256);\n"
    "            emu::launch(g, blk, 0, [&] { ko(in.ptr(), oo.ptr(), z); });\n"
    "            dim3 cg = s == 2 ? dim3(3) : g, cb = s == 1 ? dim3(80) : blk;\n"
    "            emu::launch(cg, cb, 0, [&] { kc(in.ptr(), oc.ptr(), z); });\n"
    "            if (!emu::expect(what, oo, oc))\n"
    "                printf(\"  (%d x %d x %d x %d schedule %d)\\n\", z.d[0], z.d[1], z.d[2], z.d[3], s);\n"
    "        }\n"
    "}\n"
    "#define D4 z.d[0], z.d[1], z.d[2], z.d[3]\n"
    "#define D3 z.d[0], z.d[1], z.d[2]\n";

/* The running test's emulated programs (emu_batch.h): queued by emulate(), built together
 * and checked, each on its own, by emu_batch_run at the test's end. */
static emu_batch batch;
#define emulate(tag, src, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* llm.c's permute_kernel, spelled as in dev/cuda/permute.cu: (d1, d2, d3, d4) ->
 * (d4, d3, d1, d2), reads coalesced, writes strided by d3*d1*d2. */
static const char llmc[] =
    "__global__ void permute_kernel(const float *matrix, float *out_matrix, int dim1, int dim2,\n"
    "                               int dim3, int dim4)\n"
    "{\n"
    "    int idx = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (idx < dim1 * dim2 * dim3 * dim4) {\n"
    "        int i1 = (idx / (dim2 * dim3 * dim4)) % dim1;\n"
    "        int i2 = (idx / (dim3 * dim4)) % dim2;\n"
    "        int i3 = (idx / dim4) % dim3;\n"
    "        int i4 = idx % dim4;\n"
    "        int permuted_idx = i4 * (dim3 * dim1 * dim2) + i3 * (dim1 * dim2) + i1 * dim2 + i2;\n"
    "        out_matrix[permuted_idx] = matrix[idx];\n"
    "    }\n"
    "}\n";

/* (b, m, n) -> (b, n, m) with unsigned indices and an early return */
static const char batched[] =
    "__global__ void btr(const int *in, int *out, unsigned batch, unsigned rows, unsigned cols)\n"
    "{\n"
    "    unsigned i = threadIdx.x + blockIdx.x * blockDim.x;\n"
    "    if (i >= batch * rows * cols)\n"
    "        return;\n"
    "    unsigned b = i / (rows * cols);\n"
    "    unsigned r = i / cols % rows;\n"
    "    unsigned c = i % cols;\n"
    "    out[b * rows * cols + c * rows + r] = in[i];\n"
    "}\n";

/* NCHW -> NHWC written per output element: out[idx] = in[Q(idx)], size_t indices */
static const char nhwc[] =
    "__global__ void to_nhwc(const double *__restrict__ x, double *__restrict__ y, int N, int C,\n"
    "                        int H, int W)\n"
    "{\n"
    "    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (idx < (size_t)N * C * H * W) {\n"
    "        const size_t c = idx % C;\n"
    "        const size_t w = (idx / C) % W;\n"
    "        const size_t h = (idx / ((size_t)C * W)) % H;\n"
    "        const size_t n = idx / ((size_t)C * W * H);\n"
    "        y[idx] = x[((n * C + c) * H + h) * W + w];\n"
    "    }\n"
    "}\n";

/* a template element type: (d1, d2, d3) -> (d3, d1, d2) */
static const char templ[] =
    "template <typename T>\n"
    "__global__ void rot3(const T *src, T *dst, int d1, int d2, int d3)\n"
    "{\n"
    "    const int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (e < d1 * d2 * d3) {\n"
    "        const int i1 = e / (d2 * d3), i2 = e / d3 % d2, i3 = e % d3;\n"
    "        dst[i3 * d1 * d2 + i1 * d2 + i2] = src[e];\n"
    "    }\n"
    "}\n"
    "template __global__ void rot3<float>(const float *, float *, int, int, int);\n"
    "template __global__ void rot3<__half>(const __half *, __half *, int, int, int);\n";

/* sizes: multiples of 16, not, the spec's second set scaled down, degenerate ones */
#define SIZES4 "{{{2, 16, 3, 16}}, {{3, 5, 7, 9}}, {{2, 3, 4, 40}}, {{4, 6, 5, 32}}, {{1, 1, 1, 1}}, {{1, 33, 1, 17}}}"
#define SIZES3 "{{{2, 16, 32, 1}}, {{3, 17, 20, 1}}, {{1, 1, 70, 1}}, {{5, 40, 3, 1}}}"

static void permutations_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const int tile16[RW_MAX_PARAMS] = {16, 0, 0}, tile32[RW_MAX_PARAMS] = {32, 0, 0};
    static const struct {
        const char *tag, *src, *kernel, *driver;
        const int *tile;
    } cases[] = {
        {"llmc16", llmc, "permute_kernel",
         "perm_case<float>(\"llmc16\", BOTH(permute_kernel(a, b, D4)), " SIZES4 ");", tile16},
        {"llmc32", llmc, "permute_kernel",
         "perm_case<float>(\"llmc32\", BOTH(permute_kernel(a, b, D4)), " SIZES4 ");", tile32},
        {"batched", batched, "btr",
         "perm_case<int>(\"batched\", BOTH(btr(a, b, (unsigned)z.d[0], (unsigned)z.d[1], (unsigned)z.d[2])), " SIZES3 ");",
         tile16},
        {"nhwc", nhwc, "to_nhwc", "perm_case<double>(\"nhwc\", BOTH(to_nhwc(a, b, D4)), " SIZES4 ");", tile16},
        {"rot3_float", templ, "rot3", "perm_case<float>(\"rot3\", BOTH(rot3<float>(a, b, D3)), " SIZES3 ");", tile32},
        {"rot3_half", templ, "rot3", "perm_case<__half>(\"rot3h\", BOTH(rot3<__half>(a, b, D3)), " SIZES3 ");",
         tile16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(cases[i].src, cases[i].kernel, "tiled_permute", cases[i].tile);
        emulate(cases[i].tag, cases[i].src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* The map evaluated per element (what a tile does when its other coordinates are not
 * aligned with u and v at run time) computes the same as the once-per-tile form. */
static void permute_generic_map_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const int tile16[RW_MAX_PARAMS] = {16, 0, 0};
    static const struct {
        const char *tag, *src, *kernel, *driver;
    } cases[] = {
        {"llmc_generic", llmc, "permute_kernel",
         "perm_case<float>(\"llmc_generic\", BOTH(permute_kernel(a, b, D4)), " SIZES4 ");"},
        {"nhwc_generic", nhwc, "to_nhwc", "perm_case<double>(\"nhwc_generic\", BOTH(to_nhwc(a, b, D4)), " SIZES4 ");"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(cases[i].src, cases[i].kernel, "tiled_permute", tile16);
        char *generic = emu_replaced(cand, "const bool hk_linear = ", "const bool hk_linear = false && ");
        emulate(cases[i].tag, cases[i].src, generic, cases[i].driver, EMU_OK);
        free(generic);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* The tile's barrier dropped: threads read tile elements other threads have not written;
 * the once-per-tile map shifted: elements land elsewhere. */
static void permute_without_barrier_fails(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(llmc, "permute_kernel", "tiled_permute", NULL);
    char *broken = emu_replaced(cand, "__syncthreads();", ";");
    emulate("perm_no_barrier", llmc, broken,
            "perm_case<float>(\"llmc\", BOTH(permute_kernel(a, b, D4)), {{{2, 16, 3, 16}}});", EMU_DIFFERS);
    free(broken);
    /* the once-per-tile map off by one element: it is the path the tiles take */
    free(cand);
    static const int tile16[RW_MAX_PARAMS] = {16, 0, 0};
    cand = emu_rewrite(llmc, "permute_kernel", "tiled_permute", tile16);   /* whole tiles: the fast path */
    broken = emu_replaced(cand, "hk_linear ? hk_f0 + (", "hk_linear ? 1 + hk_f0 + (");
    emulate("perm_linear_off", llmc, broken,
            "perm_case<float>(\"llmc\", BOTH(permute_kernel(a, b, D4)), {{{2, 16, 3, 16}}});", EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

/* What the rewrite reads off the model: the tiled coordinates and the fused group. */
static void permute_text(void **state)
{
    (void)state;
    fixture fx;
    load_text(llmc, &fx);
    rw_result r;
    assert_int_equal(rw_tiled_permute(fx.text, fx.len, fx.m, kernel(&fx, "permute_kernel"), 16, &r), HK_OK);
    if (!r.applicable)
        print_message("%s\n", r.description);
    assert_true(r.applicable);
    /* u = idx % dim4; v = idx / (dim3*dim4) over d1*d2 (i1*d2 + i2 fused: the outermost) */
    assert_non_null(strstr(r.text, "const long long hk_a = (dim4), hk_s = ((long long)dim3*dim4);"));
    assert_non_null(strstr(r.text, "const long long hk_d = (long long)((unsigned int)hk_n / (unsigned int)hk_s);"));
    assert_non_null(strstr(r.text, "__shared__ float hk_tile[HK_TILE][HK_TILE + 1];"));
    assert_null(strstr(r.text, "permuted_idx"));
    rw_result_free(&r);
    assert_int_equal(rw_tiled_permute(fx.text, fx.len, fx.m, kernel(&fx, "permute_kernel"), 24, &r), HK_EINVAL);
    rw_result_free(&r);
    unload(&fx);

    load_text(nhwc, &fx);
    assert_int_equal(rw_tiled_permute(fx.text, fx.len, fx.m, kernel(&fx, "to_nhwc"), 16, &r), HK_OK);
    assert_true(r.applicable);
    /* u = idx % C (the output's contiguous one), v = w fused with h: (idx / C) % (H*W) */
    assert_non_null(strstr(r.description, "(read permuted)"));
    assert_non_null(strstr(r.text, "hk_a = (C), hk_s = (C);"));
    assert_non_null(strstr(r.text, "const long long hk_d = ((long long)W*H);"));
    rw_result_free(&r);
    unload(&fx);
}

static void permute_refused_case(const char *src, const char *kname, const char *why, int line)
{
    fixture fx;
    load_text(src, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname)};
    rw_result r;
    rw_refusal w;
    assert_int_equal(rw_apply_named("tiled_permute", &ctx, NULL, &r, &w), HK_OK);
    if (r.applicable || !strstr(w.reason, why) || w.line != line)
        print_message("%s: want `%s` at line %d, got line %d: %s\n", kname, why, line, w.line, w.reason);
    assert_false(r.applicable);
    assert_non_null(strstr(w.reason, why));
    assert_int_equal(w.line, line);
    rw_result_free(&r);
    unload(&fx);
}

static void permute_refusals(void **state)
{
    (void)state;
    /* a plain copy: elementwise, not a permutation */
    permute_refused_case("__global__ void cp(const float *a, float *b, int n)\n"
                         "{\n"
                         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "    if (i < n)\n"
                         "        b[i] = a[i];\n"
                         "}\n",
                         "cp", "not a permutation", 3);
    /* (a, b, c) -> (b, a, c): the innermost stays innermost, both sides contiguous */
    permute_refused_case("__global__ void sw(const float *x, float *y, int A, int B, int C)\n"
                         "{\n"
                         "    int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "    if (e < A * B * C) {\n"
                         "        int a = e / (B * C), b = e / C % B, c = e % C;\n"
                         "        y[(b * A + a) * C + c] = x[e];\n"
                         "    }\n"
                         "}\n",
                         "sw", "keeps stride 1", 6);
    /* a shift (tin_shift-like): the read moves along t, no coordinate has stride 1 there */
    permute_refused_case("__global__ void sc(const float *x, float *y, int n, int T, int C)\n"
                         "{\n"
                         "    int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "    if (e < n) {\n"
                         "        int t = e / C % T, c = e % C;\n"
                         "        y[e] = x[(e / (C * T)) * C * T + c * T + (t + 1) % T];\n"
                         "    }\n"
                         "}\n",
                         "sc", "no coordinate of the flat index has stride 1", 6);
    /* a second guard on the write */
    permute_refused_case("__global__ void g2(const float *x, float *y, int A, int B, int lim)\n"
                         "{\n"
                         "    int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "    if (e < A * B) {\n"
                         "        int a = e / B, b = e % B;\n"
                         "        if (a < lim)\n"
                         "            y[b * A + a] = x[e];\n"
                         "    }\n"
                         "}\n",
                         "g2", "a guard other than the bound", 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(permute_text),
        cmocka_unit_test(permute_refusals),
        cmocka_unit_test(permutations_run),
        cmocka_unit_test(permute_generic_map_runs),
        cmocka_unit_test(permute_without_barrier_fails),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
