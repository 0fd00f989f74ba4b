/* km_classify (server/model/kclass.c): each class spelled several ways gives the same class
 * and parameters; near misses are refused with the construct and its line. The kernels are
 * in tests/data/model/class_*.cu. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/hk.h"
#include "model/kclass.h"
#include "model/kmodel.h"

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/model/%s", HK_TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return s;
}

/* The printed class of kernel in file (km_class_print), and the class itself. */
static char *classify(const char *file, const char *kernel, km_class *c)
{
    size_t len;
    char *text = slurp(file, &len);
    km_kernel *k = NULL;
    char why[256];
    int rc = km_build(text, len, kernel, &k, why, sizeof(why));
    if (rc)
        fail_msg("km_build %s: %s (%s)", kernel, hk_strerror(rc), why);
    assert_int_equal(km_classify(k, c), HK_OK);
    struct hk_buf b;
    hk_buf_init(&b, 1 << 16);
    assert_int_equal(km_class_print(k, c, &b), HK_OK);
    char *s = hk_buf_steal(&b);
    char *out = strdup(s);
    hk_free(s);
    km_free(k);
    free(text);
    /* the class's names point into the freed model: keep only what is copied */
    c->out = NULL;
    c->n_in = 0;
    c->elem_type = c->filter = NULL;
    return out;
}

static void expect(const char *file, const char *kernel, const char *want)
{
    km_class c;
    char *got = classify(file, kernel, &c);
    if (strcmp(got, want) != 0)
        fail_msg("%s:\n got  '%s'\n want '%s'", kernel, got, want);
    free(got);
}

/* Several spellings, one printed class. */
static void expect_same(const char *file, const char *const *kernels, size_t n, const char *want)
{
    for (size_t i = 0; i < n; i++)
        expect(file, kernels[i], want);
}

static void expect_near(const char *file, const char *kernel, enum km_class_kind near,
                        uint32_t line, const char *construct)
{
    km_class c;
    char *got = classify(file, kernel, &c);
    if (c.near != near || c.why_line != line || !strstr(c.why, construct))
        fail_msg("%s: near %s line %u '%s' (want %s, line %u, '%s')", kernel,
                 km_class_name(c.near), c.why_line, c.why, km_class_name(near), line,
                 construct);
    assert_int_not_equal(c.kind, near);
    free(got);
}

static void test_gemm(void **state)
{
    (void)state;
    static const char *const sgemm[] = {"sgemm_unsigned", "sgemm_size_t"};
    expect_same("class_gemm.cu", sgemm, 2,
                "gemm out=C in=A,B M=M N=N K=K lda=K ldb=N ldc=N row-major alpha beta "
                "row-axis=0");
    expect("class_gemm.cu", "gemm_kloop",
           "gemm out=c in=a,b M=NI N=NJ K=NK lda=NK ldb=NJ ldc=NJ row-major alpha beta += "
           "row-axis=1");
    expect("class_gemm.cu", "gemm_batched_nt",
           "gemm out=C in=A,B M=M N=N K=K lda=K ldb=K ldc=N row-major transB row-axis=1 "
           "batchA=K*M*blockIdx.z batchB=K*N*blockIdx.z batchC=M*N*blockIdx.z");
    expect("class_gemm.cu", "gemm_colmajor",
           "gemm out=C in=A,B M=m N=n K=k lda=lda ldb=ldb ldc=ldc col-major row-axis=0");
    km_class c;
    free(classify("class_gemm.cu", "gemm_batched_nt", &c));
    assert_int_equal(c.kind, KM_CLASS_GEMM);
    assert_true(c.batched && c.trans_b && !c.trans_a && !c.alpha && !c.beta);
    assert_int_equal(c.col_axis, 0);
}

/* Shared-memory tiled GEMMs: the class sees through the tiles to the global matrices; K
 * is the tile loop's trips times the tile; the launch's block must be the tile. */
static void test_gemm_tiled(void **state)
{
    (void)state;
    expect("class_gemm_tiled.cu", "tiled_template",
           "gemm out=C in=A,B M=? N=? K=BS*ceildiv(wA, BS) lda=wA ldb=wB ldc=wB row-major shared-tiles "
           "row-axis=1 tile.x=BS tile.y=BS");
    expect("class_gemm_tiled.cu", "tiled_macro",
           "gemm out=C in=A,B M=? N=? K=(K / TILE)*TILE lda=K ldb=N ldc=N row-major alpha beta shared-tiles "
           "row-axis=1 tile.x=TILE tile.y=TILE");
    static const char *const square[] = {"tiled_flat", "tiled_square"};
    expect_same("class_gemm_tiled.cu", square, 2,
                "gemm out=C in=A,B M=? N=? K=(n / TILE)*TILE lda=n ldb=n ldc=n row-major shared-tiles "
                "row-axis=1 tile.x=TILE tile.y=TILE");
    km_class c;
    free(classify("class_gemm_tiled.cu", "tiled_macro", &c));
    assert_true(c.shared_tiles);
    assert_true(c.tiles_seen);
    assert_false(c.tile_block[2].known);
}

static void test_gemm_tiled_near_misses(void **state)
{
    (void)state;
    expect_near("class_gemm_tiled.cu", "tiled_skip", KM_CLASS_GEMM, 73,
                "moves A by 2*TILE per tile, not by the TILE its tile spans");
    expect_near("class_gemm_tiled.cu", "tiled_wrong_index", KM_CLASS_GEMM, 97,
                "tb[$L1*TILE + threadIdx.y] in the k loop is not the tile's element");
    expect_near("class_gemm_tiled.cu", "tiled_half", KM_CLASS_GEMM, 115,
                "does not run over the whole tile ta");
    expect_near("class_gemm_tiled.cu", "tiled_late_fill", KM_CLASS_GEMM, 154,
                "the tile ta is filled (line 154) after the k loop (line 151) reads it");
}

static void test_gemm_near_misses(void **state)
{
    (void)state;
    expect_near("class_gemm.cu", "gemm_bad_index", KM_CLASS_GEMM, 81, "not affine in the k loop");
    expect_near("class_gemm.cu", "gemm_bad_epilogue", KM_CLASS_GEMM, 95, "$acc0*$acc0");
}

static void test_gemv(void **state)
{
    (void)state;
    expect("class_gemm.cu", "gemv_rows_ptr",
           "gemv out=y in=A,x M=rows N=cols lda=cols incx=1 incy=1 by-rows row-axis=0");
    expect("class_gemm.cu", "gemv_rows_ab",
           "gemv out=y in=A,x M=rows N=cols lda=cols incx=1 incy=1 by-rows alpha beta "
           "row-axis=0");
    expect("class_gemm.cu", "gemv_cols",
           "gemv out=y in=A,x M=cols N=rows lda=cols incx=1 incy=1 by-columns row-axis=0");
    /* two sums in one loop (gesummv's A x and B x, or A x and B z): a GEMV whose third and
     * fourth inputs are the second sum's matrix and vector, not a convolution with x as its
     * filter */
    expect("class_gemm.cu", "gemv_two_sums",
           "gemv out=y in=A,x,B,x M=n N=n lda=n incx=1 incy=1 by-rows alpha row-axis=0");
    expect("class_gemm.cu", "gemv_two_sums_cols",
           "gemv out=y in=A,x,B,x M=cols N=rows lda=cols incx=1 incy=1 by-columns alpha beta += row-axis=0");
    expect("class_gemm.cu", "gemv_two_vectors",
           "gemv out=y in=A,x,B,z M=n N=n lda=n incx=1 incy=1 by-rows alpha row-axis=0");
    /* the second sum's reads must be at the first's indices */
    expect_near("class_gemm.cu", "gemv_two_layouts", KM_CLASS_GEMV, 193, "$acc1");
}

static void test_transpose_histogram(void **state)
{
    (void)state;
    km_class c;
    free(classify("class_misc.cu", "transpose_tiles", &c));
    assert_int_equal(c.kind, KM_CLASS_TRANSPOSE);
    free(classify("class_misc.cu", "transpose_plain", &c));
    assert_int_equal(c.kind, KM_CLASS_TRANSPOSE);
    expect_near("class_misc.cu", "copy_2d", KM_CLASS_TRANSPOSE, 32, "same stride");
    expect("class_misc.cu", "hist_template", "histogram out=bins in=in bins=NBINS");
    expect("class_misc.cu", "hist_param", "histogram out=bins in=in bins=nbins");
    expect("class_misc.cu", "hist_weighted", "histogram out=bins in=idx bins=? weighted");
    /* session 48: the bin's own range when nothing else says the count: a uint8_t read
     * (256), a mask of low bits (64); a signed char says nothing (on main all three `bins=?`) */
    expect("class_misc.cu", "hist_bytes_gs", "histogram out=bins in=px bins=256");
    expect("class_misc.cu", "hist_mask64", "histogram out=bins in=keys bins=64");
    expect("class_misc.cu", "hist_schar", "histogram out=bins in=data bins=?");
    /* and a clamp to the last bin, `min(max(b, 0), nbins - 1)` (main: `bins=?`) */
    expect("class_misc.cu", "hist_clamp", "histogram out=hist in=x bins=nbins");
    expect_near("class_misc.cu", "hist_racy", KM_CLASS_HISTOGRAM, 65, "not atomic");
}

static void test_reductions(void **state)
{
    (void)state;
    expect("class_misc.cu", "row_sum", "reduction out=out in=in op=sum axis=row how=loop passes=1");
    expect("class_misc.cu", "col_max",
           "reduction out=out in=in op=max axis=column how=loop passes=1");
    /* session 48: a max or min kept by a comparison (`if (v > m) m = v;`, `if (m >= x) { m = x; }`),
     * the max started from the row's first element over the columns from 1; on main both were
     * class none (near elementwise). Storing another value than the compared one is no max. */
    expect("class_misc.cu", "row_max_if", "reduction out=rowmax in=mat op=max axis=row how=loop passes=1");
    expect("class_misc.cu", "col_min_if", "reduction out=out in=in op=min axis=column how=loop passes=1");
    km_class nm;
    free(classify("class_misc.cu", "if_not_max", &nm));
    assert_int_equal(nm.kind, KM_CLASS_NONE);
    expect("class_misc.cu", "row_std_two_pass",
           "reduction out=out in=x op=std axis=row how=loop passes=2");
    expect("class_misc.cu", "global_sum_atomic",
           "reduction out=out in=in op=sum axis=global how=atomic passes=1");
    expect("class_misc.cu", "block_tree_sum",
           "reduction out=out in=in op=sum axis=global how=tree passes=1");
    /* the tree's array is dynamic shared memory reached through a helper type */
    expect("class_misc.cu", "helper_tree_max",
           "reduction out=blockmax in=v op=max axis=global how=tree passes=1");
    /* a per-thread loop of a few terms into the thread's own output, whose inputs are
     * gathered (table[idx[i] * M + m]) or shared by several outputs (wt[o * C + c] for
     * every (b, p)): a map with an inner loop, neither a reduction nor a convolution
     * (PAConv's score assignment in mmcv); written with an if, a grid-stride loop and
     * fmaf, unsigned indices split by / and % */
    expect_near("class_misc.cu", "gather_dot", KM_CLASS_REDUCTION, 384, "table[...] is gathered");
    expect_near("class_misc.cu", "gather_dot_gs", KM_CLASS_REDUCTION, 397, "table[...] is gathered");
    expect_near("class_misc.cu", "mix_channels", KM_CLASS_REDUCTION, 413, "is shared by outputs");
    km_class c;
    free(classify("class_misc.cu", "gather_dot_gs", &c));
    assert_int_equal(c.kind, KM_CLASS_NONE);
    /* each output owns its run of the input, also through a split index: still one */
    expect("class_misc.cu", "batched_row_sum", "reduction out=out in=in op=sum axis=row how=loop passes=1");
    /* products of two shared tiles summed over k: a matrix product, not a reduction (the
     * class sees through the tiles: test_gemm_tiled) */
    expect("class_misc.cu", "tile_product_flat",
           "gemm out=R in=P,Q M=? N=? K=TL*ceildiv(wp, TL) lda=wp ldb=wq ldc=wq row-major shared-tiles row-axis=1 "
           "tile.x=TL tile.y=TL");
}

/* A reduction summed into the output's own global element (`mean[j] = 0; for (...)
 * mean[j] += x[..]; mean[j] /= n;`, the std pass's `std[j] = sqrtf(std[j] / n)`, two loops
 * of row statistics) is the reduction its local-accumulator spelling is: the same class,
 * op, axis and passes (class_global_acc.cu). A local finished after its loop
 * (`m = m / cols;`) is a mean as `mean[r] = m / cols` would be. */
static void test_global_accumulators(void **state)
{
    (void)state;
    static const char *const mean[] = {"col_mean_local", "col_mean_global"};
    expect_same("class_global_acc.cu", mean, 2,
                "reduction out=mean in=data op=mean axis=column how=loop passes=1");
    static const char *const sd[] = {"col_std_local", "col_std_global"};
    expect_same("class_global_acc.cu", sd, 2,
                "reduction out=std in=data,mean op=std axis=column how=loop passes=1");
    static const char *const stats[] = {"row_stats_local", "row_stats_global"};
    expect_same("class_global_acc.cu", stats, 2,
                "reduction out=mean in=x op=mean axis=row how=loop passes=2");
    /* the square root of the output's own sum is no norm: nothing else is normalised */
    km_class c;
    free(classify("class_global_acc.cu", "col_std_global", &c));
    assert_int_equal(c.near, KM_CLASS_NONE);
    /* every column summing the same weights: a map with an inner loop, in a register or in
     * the element alike */
    expect_near("class_global_acc.cu", "col_shared_global", KM_CLASS_REDUCTION, 92, "is shared by outputs");
}

static void test_windows(void **state)
{
    (void)state;
    expect("class_misc.cu", "stencil_3pt", "stencil out=out in=in dims=1 radius=1 offsets=-1,0,1");
    expect("class_misc.cu", "heat_2d",
           "stencil out=v in=u dims=2 radius=1 offsets=0,-1,1,-nx,nx");
    expect("class_misc.cu", "stencil_shared",
           "stencil out=out in=in dims=1 radius=2 offsets=-2,-1,0,1,2");
    expect("class_misc.cu", "conv_1d", "convolution out=out in=in,w dims=1 radius=0 offsets=");
    expect("class_misc.cu", "conv_2d", "convolution out=out in=img,f dims=2 radius=0 offsets=");
    expect("class_misc.cu", "maxpool_2d",
           "pooling out=out in=in op=max dims=2 radius=1 offsets=0,1,W,W + 1");
    /* the max kept by an if, with its argmax (RoIPool's spelling): pooling over two window
     * loops; over one loop a row's minimum is no window */
    expect("class_misc.cu", "maxpool_argmax", "pooling out=out in=in op=max dims=2 radius=0 offsets=");
    km_class c;
    free(classify("class_misc.cu", "row_argmin", &c));
    assert_int_equal(c.kind, KM_CLASS_NONE);
    /* session 47: a weighted stencil (coefficients times a pair of neighbours per tap, in a
     * loop of a small constant bound) is a stencil, not a reduction: over a shared tile and
     * over global memory; a constant bound over a data-sized row stays a reduction */
    expect("class_misc.cu", "stencil_coef_tile",
           "stencil out=out in=in dims=1 radius=3 offsets=1,2,3,-1,-2,-3");
    expect("class_misc.cu", "stencil_coef_global",
           "stencil out=out in=in dims=1 radius=3 offsets=1,2,3,-1,-2,-3");
    expect("class_misc.cu", "rowsum_const", "reduction out=out in=x op=sum axis=row how=loop passes=1");
    /* the taps added into the output element (a global accumulator): no reduction either
     * (no window class reads a global element's taps yet: none) */
    free(classify("class_misc.cu", "taps_into_output", &c));
    assert_int_not_equal(c.kind, KM_CLASS_REDUCTION);
    /* session 47: the planes of a structure of arrays (`v[i + K * n]`, n a size no thread
     * coordinate is strided by) are other arrays, not neighbours: Rodinia CFD's time step is
     * elementwise; a stencil within each plane keeps its in-plane offsets only; a row
     * stride the thread moves along (heat_2d's nx) stays a neighbour's offset */
    expect("class_misc.cu", "soa_step", "elementwise out=v in=old_v,flux streams=2+1 type=float");
    expect("class_misc.cu", "soa_blur", "stencil out=out in=in dims=1 radius=1 offsets=-1,0,1");
    expect("class_misc.cu", "heat_2d", "stencil out=v in=u dims=2 radius=1 offsets=0,-1,1,-nx,nx");
    /* ... and so does a row stride the output walks by a loop (a column pass) */
    expect("class_misc.cu", "col_blur", "stencil out=out in=in dims=2 radius=1 offsets=-w,0,w");
}

static void test_scan_norm_softmax(void **state)
{
    (void)state;
    expect("class_misc.cu", "scan_rows", "scan out=out in=in axis=none how=serial passes=0");
    /* up-sweep and down-sweep whose stride `offset` the loops double and halve beside their
     * counters: a tree scan (it was a transpose: the down-sweep's s[ai] = s[bi] read as a
     * tile filled from memory) */
    expect("class_misc.cu", "scan_sweeps", "scan out=out in=in axis=none how=tree passes=0");
    {
        size_t len, n;
        char *text = slurp("class_misc.cu", &len);
        km_kernel *k = NULL;
        assert_int_equal(km_build(text, len, "scan_sweeps", &k, NULL, 0), HK_OK);
        const km_local *ls = km_locals(k, &n);
        uint64_t steps = 0;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(ls[i].name, "offset"))
                steps |= ls[i].geometric_in;
        assert_int_equal(steps, 3); /* loops 0 (<<= 1) and 1 (/= 2) */
        for (size_t i = 0; i < n; i++)
            if (!strcmp(ls[i].name, "at") || !strcmp(ls[i].name, "s"))
                assert_int_equal(ls[i].geometric_in, 0);
        km_free(k);
        free(text);
    }
    expect("class_misc.cu", "rmsnorm", "norm out=y in=w,x rms axis=row how=loop passes=1");
    km_class c;
    free(classify("class_misc.cu", "layernorm_two_pass", &c));
    assert_int_equal(c.kind, KM_CLASS_NORM);
    static const char *const sm[] = {"softmax_fmax", "softmax_if_max"};
    expect_same("class_misc.cu", sm, 2, "softmax out=out in=in axis=row how=loop passes=2");
    expect_near("class_misc.cu", "softmax_unsafe", KM_CLASS_SOFTMAX, 306, "no row maximum");
    /* the maximum from an earlier kernel, read per row (a softmax in two kernels) */
    expect("class_misc.cu", "softmax_given_max", "softmax out=y in=x,row_max axis=row how=loop passes=2");
    expect_near("class_misc.cu", "softmax_shift_moves", KM_CLASS_SOFTMAX, 489, "no row maximum");
}

static void test_elementwise(void **state)
{
    (void)state;
    expect("class_misc.cu", "sgd_momentum",
           "elementwise out=m in=g,m streams=2+2 type=float");
    expect("class_misc.cu", "adam_half",
           "elementwise out=m in=g,m,v streams=3+3 type=float");
}

/* The product into one named output (km_classify_product): mvt's x2 beside x1, a GEMV
 * by columns where km_classify names the first, by rows; a buffer no product writes is no
 * class. */
static void test_product_by_output(void **state)
{
    (void)state;
    static const char mvt[] =
        "__global__ void mvt(int n, const float *A, const float *y1, const float *y2, float *x1, float *x2)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) {\n"
        "        float s1 = 0.0f, s2 = 0.0f;\n"
        "        for (int j = 0; j < n; j++) {\n"
        "            s1 += A[i * n + j] * y1[j];\n"
        "            s2 += A[j * n + i] * y2[j];\n"
        "        }\n"
        "        x1[i] += s1;\n"
        "        x2[i] += s2;\n"
        "    }\n"
        "}\n";
    static const struct {
        const char *out, *want;
    } cases[] = {
        {NULL, "gemv out=x1 in=A,y1 M=n N=n lda=n incx=1 incy=1 by-rows beta += row-axis=0"},
        {"x2", "gemv out=x2 in=A,y2 M=n N=n lda=n incx=1 incy=1 by-columns beta += row-axis=0"},
        {"x1", "gemv out=x1 in=A,y1 M=n N=n lda=n incx=1 incy=1 by-rows beta += row-axis=0"},
        {"y1", "none"},
    };
    km_kernel *k = NULL;
    assert_int_equal(km_build(mvt, strlen(mvt), "mvt", &k, NULL, 0), HK_OK);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        km_class c;
        assert_int_equal(cases[i].out ? km_classify_product(k, cases[i].out, &c) : km_classify(k, &c), HK_OK);
        struct hk_buf b;
        hk_buf_init(&b, 1 << 16);
        assert_int_equal(km_class_print(k, &c, &b), HK_OK);
        if (strncmp(b.data, cases[i].want, strlen(cases[i].want)) != 0)
            fail_msg("%s:\n got  '%s'\n want '%s'", cases[i].out ? cases[i].out : "km_classify", b.data,
                     cases[i].want);
        hk_buf_free(&b);
    }
    km_class c;
    assert_int_equal(km_classify_product(NULL, "x2", &c), HK_EINVAL);
    assert_int_equal(km_classify_product(k, NULL, &c), HK_EINVAL);
    km_free(k);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    km_class c;
    assert_int_equal(km_classify(NULL, &c), HK_EINVAL);
    assert_string_equal(km_class_name(KM_CLASS_GEMM), "gemm");
    assert_string_equal(km_reduce_name(KM_REDUCE_VARIANCE), "variance");
}

/* while loops, index splits and __device__ helpers (spellings.cu) classify as the
 * for loops, flat indices and inline bodies they spell */
static void test_spellings(void **state)
{
    (void)state;
    static const char *const scale[] = {"scale_for", "scale_while"};
    expect_same("spellings.cu", scale, 2, "elementwise out=y in=x streams=1+1 type=float");
    static const char *const rows[] = {"rowsum_for", "rowsum_while"};
    expect_same("spellings.cu", rows, 2,
                "reduction out=out in=a op=sum axis=row how=loop passes=1");
    static const char *const nchw[] = {"nchw_flat", "nchw_split", "nchw_chain"};
    expect_same("spellings.cu", nchw, 3, "elementwise out=y in=x streams=1+1 type=float");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_gemm_near_misses),
        cmocka_unit_test(test_gemm_tiled),
        cmocka_unit_test(test_gemm_tiled_near_misses),
        cmocka_unit_test(test_gemv),
        cmocka_unit_test(test_transpose_histogram),
        cmocka_unit_test(test_reductions),
        cmocka_unit_test(test_global_accumulators),
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_scan_norm_softmax),
        cmocka_unit_test(test_elementwise),
        cmocka_unit_test(test_spellings),
        cmocka_unit_test(test_product_by_output),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
