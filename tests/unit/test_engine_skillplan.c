/* Engine v2's plan: the shipped skills that fit a suite kernel become the search's
 * structural choices, the bottleneck class's skills first, each skill's first choice at
 * rank 0 and one parameter moved at a time after it; rewrites the search covers as
 * axes and ones the engine lacks stay out; metric thresholds and the hardware filter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "core/hk.h"
#include "search/skillplan.h"

static sk_set *skills;

static int setup(void **state)
{
    (void)state;
    char err[2048];
    return sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err) == HK_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sk_set_free(skills);
    return 0;
}

/* The definition of kernel name in bench/kernels/file, as the episode passes it. */
static char *kernel_text(const char *file, const char *name, size_t *len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/bench/kernels/%s", HK_SOURCE_DIR, file);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    assert_non_null(t);
    assert_int_equal(fread(t, 1, (size_t)n, f), (size_t)n);
    t[n] = '\0';
    fclose(f);
    an_model *m;
    assert_int_equal(an_analyze(t, (size_t)n, &m), HK_OK);
    long k = an_model_find_kernel(m, name);
    assert_true(k >= 0);
    an_span sp = m->funcs[k].span;
    char *out = malloc(sp.end_byte - sp.start_byte + 1);
    assert_non_null(out);
    memcpy(out, t + sp.start_byte, sp.end_byte - sp.start_byte);
    out[sp.end_byte - sp.start_byte] = '\0';
    *len = sp.end_byte - sp.start_byte;
    an_model_free(m);
    free(t);
    return out;
}

static long find(const skillplan *p, const char *rewrite, unsigned rank)
{
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->v[i].rewrite, rewrite) && p->v[i].rank == rank)
            return (long)i;
    return -1;
}

static void test_class(void **state)
{
    (void)state;
    assert_int_equal(skillplan_class(false, NAN), SK_CLASS_COUNT);
    assert_int_equal(skillplan_class(true, 50), SK_COMPUTE_BOUND);
    assert_int_equal(skillplan_class(false, 50), SK_MEMORY_BOUND);
    assert_int_equal(skillplan_class(false, 5), SK_LATENCY_BOUND);
    /* before any measurement, from the spec's formulas: saxpy's 2 FLOP per 12 bytes is
     * memory-bound on any GPU; a device-dependent intensity or none stays unknown */
    assert_int_equal(skillplan_static_class(2.0 / 12.0), SK_MEMORY_BOUND);
    assert_int_equal(skillplan_static_class(200.0), SK_COMPUTE_BOUND);
    assert_int_equal(skillplan_static_class(12.0), SK_CLASS_COUNT);
    assert_int_equal(skillplan_static_class(NAN), SK_CLASS_COUNT);
}

static void test_transpose_plan(void **state)
{
    (void)state;
    long live0 = hk_alloc_live();
    size_t len;
    char *t = kernel_text("transpose.cu", "transpose", &len);
    skillplan p;
    assert_int_equal(skillplan_build(skills, "sm_90", SK_MEMORY_BOUND, NULL, t, len, &p), HK_OK);
    long tt = find(&p, "tiled_transpose", 0);
    assert_true(tt >= 0);
    /* the skill's first choice: tile 32, block 256; then tile 64, then block 512 */
    assert_int_equal(p.v[tt].params[0], 32);
    assert_int_equal(p.v[tt].block_size, 256);
    long t64 = -1, b512 = -1;
    for (size_t i = 0; i < p.n; i++) {
        if (strcmp(p.v[i].rewrite, "tiled_transpose"))
            continue;
        if (p.v[i].params[0] == 64 && p.v[i].block_size == 256)
            t64 = (long)i;
        if (p.v[i].params[0] == 32 && p.v[i].block_size == 512)
            b512 = (long)i;
    }
    assert_true(t64 > tt && b512 > tt);
    assert_true(p.v[t64].rank >= 1 && p.v[b512].rank >= 1);
    /* no rewrite the search covers as an axis, no other hardware */
    for (size_t i = 0; i < p.n; i++) {
        assert_string_not_equal(p.v[i].rewrite, "restrict");
        assert_string_not_equal(p.v[i].rewrite, "launch_bounds");
        assert_string_not_equal(p.v[i].rewrite, "grid_stride");
        assert_non_null(strstr(p.v[i].skill, "sm90"));
    }
    /* the memory-bound class first: its first skill comes before any latency one */
    long first_latency = -1;
    for (size_t i = 0; i < p.n_used; i++)
        if (p.used[i]->cls != SK_MEMORY_BOUND && first_latency < 0)
            first_latency = (long)i;
    for (size_t i = 0; first_latency >= 0 && i < (size_t)first_latency; i++)
        assert_int_equal(p.used[i]->cls, SK_MEMORY_BOUND);
    skillplan_free(&p);
    free(t);
    assert_int_equal(hk_alloc_live(), live0);   /* the set loaded in setup stays */
}

/* A transpose written through index variables: the tiled transpose skill's query (a
 * subscript `a * X + b` on one side and `b * Y + a` on the other) does not see it, the
 * rewrite's kernel model does. Without the kernel the skill stays out; with it the skill
 * fits and its choices are planned; a kernel its rewrite refuses gains nothing. */
static void test_fits_by_model(void **state)
{
    (void)state;
    long live0 = hk_alloc_live();
    static const char flip[] =
        "__global__ void flip(float *dst, const float *src, int w, int h)\n"
        "{\n"
        "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    int from = y * w + x;\n"
        "    int to = x * h + y;\n"
        "    if (x < w && y < h)\n"
        "        dst[to] = src[from];\n"
        "}\n";
    static const char copy[] =
        "__global__ void copy(float *dst, const float *src, int w, int h)\n"
        "{\n"
        "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    int at = y * w + x;\n"
        "    if (x < w && y < h)\n"
        "        dst[at] = src[at];\n"
        "}\n";
    const char *texts[2] = {flip, copy};
    const char *names[2] = {"flip", "copy"};
    for (int t = 0; t < 2; t++) {
        size_t len = strlen(texts[t]);
        an_model *m;
        assert_int_equal(an_analyze(texts[t], len, &m), HK_OK);
        long k = an_model_find_kernel(m, names[t]);
        assert_true(k >= 0);
        rw_context ctx = {.text = texts[t], .len = len, .m = m, .kernel = (size_t)k};
        skillplan by_text, by_model;
        assert_int_equal(skillplan_build(skills, "sm_90", SK_MEMORY_BOUND, NULL, texts[t], len,
                                         &by_text), HK_OK);
        assert_int_equal(skillplan_build_for(skills, "sm_90", SK_MEMORY_BOUND, NULL, texts[t],
                                             len, &ctx, &by_model), HK_OK);
        assert_true(find(&by_text, "tiled_transpose", 0) < 0);
        long tt = find(&by_model, "tiled_transpose", 0);
        if (t == 0) {
            assert_true(tt >= 0);
            assert_int_equal(by_model.v[tt].params[0], 32);
            /* an algorithm replacement: before every other rewrite */
            assert_int_equal(tt, 0);
            assert_string_equal(by_model.used[0]->id, "sm90-tiled-transpose-padded");
        } else {
            assert_true(tt < 0);
            assert_int_equal(by_model.n, by_text.n);
        }
        skillplan_free(&by_text);
        skillplan_free(&by_model);
        an_model_free(m);
    }
    assert_int_equal(hk_alloc_live(), live0);
}

/* llm.c's permute (a flat index split by / and %, out[P(idx)] = in[idx]): the permutation
 * class's rewrite is planned first, tile 32 (faster on the H200) then 16, so the default
 * budget of 4 candidates times it. */
static void test_permute_plan(void **state)
{
    (void)state;
    long live0 = hk_alloc_live();
    static const char perm[] =
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
    size_t len = strlen(perm);
    an_model *m;
    assert_int_equal(an_analyze(perm, len, &m), HK_OK);
    long k = an_model_find_kernel(m, "permute_kernel");
    assert_true(k >= 0);
    rw_context ctx = {.text = perm, .len = len, .m = m, .kernel = (size_t)k};
    static const enum sk_class classes[] = {SK_MEMORY_BOUND, SK_LATENCY_BOUND, SK_CLASS_COUNT};
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
        skillplan p;
        assert_int_equal(skillplan_build_for(skills, "sm_90", classes[c], NULL, perm, len, &ctx, &p), HK_OK);
        /* the first planned candidates that apply (the search drops the others unmeasured) */
        size_t seen = 0;
        long first = -1, second = -1;
        for (size_t i = 0; i < p.n && seen < 4; i++) {
            const rw_descriptor *d = rw_find(p.v[i].rewrite);
            assert_non_null(d);
            rw_refusal why;
            assert_int_equal(rw_applies(d, &ctx, p.v[i].params, &why), HK_OK);
            if (why.reason[0])
                continue;
            if (seen == 0)
                first = (long)i;
            if (seen == 1)
                second = (long)i;
            seen++;
        }
        assert_true(first >= 0 && second >= 0);
        if (strcmp(p.v[first].rewrite, "tiled_permute") != 0)
            fail_msg("class %d: %s comes before tiled_permute", (int)classes[c], p.v[first].rewrite);
        assert_int_equal(p.v[first].params[0], 32);
        assert_string_equal(p.v[second].rewrite, "tiled_permute");
        assert_int_equal(p.v[second].params[0], 16);
        skillplan_free(&p);
    }
    an_model_free(m);
    assert_int_equal(hk_alloc_live(), live0);
}

/* A structural skill of the kernel's class whose query misses a kernel written in a macro
 * loop (mmcv's CUDA_1D_KERNEL_LOOP hides threadIdx.x from the vectorize skill's pattern)
 * still fits when its rewrite applies to the kernel model; without the kernel it stays
 * out, and so does it for a kernel of another class. */
/* A rewrite that keeps the kernel's own launch (block_reduce's tree path) runs one program
 * at every block size and blocks per SM: its launch-only choices are not planned, so its
 * choices that change the program (the key form, key=1) come second, at rank 1, among a
 * small budget's early proposals (mmcv's FPS had it at rank 5, behind four launch-only
 * choices, and a budget of 4 never reached it). A rewrite that sets the launch (its
 * atomics path: a grid-stride loop under the skill's grid) keeps all its choices. */
static const char pair_tree[] =
    "__device__ void keep_larger(float *val, int *arg, int lo, int hi) {\n"
    "    const float a = val[lo], b = val[hi];\n"
    "    const int ia = arg[lo], ib = arg[hi];\n"
    "    val[lo] = max(a, b);\n"
    "    arg[lo] = b > a ? ib : ia;\n"
    "}\n"
    "__global__ void pick(int n, int rounds, const float *__restrict__ d, int *__restrict__ chosen)\n"
    "{\n"
    "    __shared__ float val[1024];\n"
    "    __shared__ int arg[1024];\n"
    "    const int me = threadIdx.x;\n"
    "    int last = 0;\n"
    "    for (int r = 0; r < rounds; r++) {\n"
    "        float top = -1.0f;\n"
    "        int at = 0;\n"
    "        for (int q = me; q < n; q += blockDim.x) {\n"
    "            const float x = d[q] * (float)(1 + ((q + last) & 3));\n"
    "            at = x > top ? q : at;\n"
    "            top = x > top ? x : top;\n"
    "        }\n"
    "        val[me] = top;\n"
    "        arg[me] = at;\n"
    "        __syncthreads();\n"
    "        for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "            if (me < s)\n"
    "                keep_larger(val, arg, me, me + s);\n"
    "            __syncthreads();\n"
    "        }\n"
    "        last = arg[0];\n"
    "        if (me == 0) chosen[r] = last;\n"
    "    }\n"
    "}\n";

/* The plan's block_reduce choices for kernel name of text (whole file): how many, each
 * rank checked to be its position, and the rank of the one that sets the key form (-1: none). */
static size_t reduce_choices(const char *text, const char *name, int *key1)
{
    size_t len = strlen(text);
    an_model *m;
    assert_int_equal(an_analyze(text, len, &m), HK_OK);
    long k = an_model_find_kernel(m, name);
    assert_true(k >= 0);
    rw_context ctx = {.text = text, .len = len, .m = m, .kernel = (size_t)k};
    const an_span *sp = &m->funcs[k].span;
    skillplan p;
    assert_int_equal(skillplan_build_for(skills, "sm_90", SK_MEMORY_BOUND, NULL, text + sp->start_byte,
                                         sp->end_byte - sp->start_byte, &ctx, &p), HK_OK);
    size_t n = 0;
    *key1 = -1;
    for (size_t i = 0; i < p.n; i++) {
        if (strcmp(p.v[i].rewrite, "block_reduce"))
            continue;
        assert_int_equal(p.v[i].rank, n);
        const rw_descriptor *d = rw_find("block_reduce");
        int slot = rw_param_index(d, "key");
        assert_true(slot >= 0);
        if (p.v[i].params[slot] == 1)
            *key1 = (int)p.v[i].rank;
        n++;
    }
    skillplan_free(&p);
    an_model_free(m);
    return n;
}

static void test_kept_launch_choices(void **state)
{
    (void)state;
    long live0 = hk_alloc_live();
    int key1;
    /* a pair tree: the first choice, then the key form; nothing else */
    assert_int_equal(reduce_choices(pair_tree, "pick", &key1), 2);
    assert_int_equal(key1, 1);
    /* a one-array tree keeps the launch too; its key form is refused later, by the search */
    char path[700];
    snprintf(path, sizeof path, "%s/rewrite_pattern/reduce_variants.cu", HK_TEST_DATA);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_int_equal(reduce_choices(text, "tree_partial", &key1), 2);
    assert_int_equal(key1, 1);
    /* the atomics path writes its own launch (a grid-stride loop on the skill's grid):
     * every block size and blocks per SM is another program, all six choices stay */
    assert_int_equal(reduce_choices(text, "sum_squares", &key1), 6);
    assert_int_equal(key1, 5);
    assert_int_equal(hk_alloc_live(), live0);
}

static void test_structural_fits_by_model(void **state)
{
    (void)state;
    long live0 = hk_alloc_live();
    static const char loss[] =
        "#define LOOP_1D(i, n) \\\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
        "__global__ void loss(const int n, const float *x, float *y, const float a)\n"
        "{\n"
        "    LOOP_1D(k, n) {\n"
        "        float p = 1.0f / (1.0f + expf(-x[k]));\n"
        "        y[k] = a * p * logf(p);\n"
        "    }\n"
        "}\n";
    size_t len = strlen(loss);
    an_model *m;
    assert_int_equal(an_analyze(loss, len, &m), HK_OK);
    long k = an_model_find_kernel(m, "loss");
    assert_true(k >= 0);
    rw_context ctx = {.text = loss, .len = len, .m = m, .kernel = (size_t)k};
    /* the episode matches the kernel's own text, not the file's macros */
    const char *body = strstr(loss, "__global__");
    size_t blen = len - (size_t)(body - loss);
    skillplan by_text, by_model, other;
    assert_int_equal(skillplan_build(skills, "sm_90", SK_MEMORY_BOUND, NULL, body, blen,
                                     &by_text), HK_OK);
    assert_int_equal(skillplan_build_for(skills, "sm_90", SK_MEMORY_BOUND, NULL, body, blen, &ctx,
                                         &by_model), HK_OK);
    /* another class's structural skill is not asked of the model: a latency-bound kernel
     * keeps its budget for its own class (vectorize is a memory-bound skill) */
    assert_int_equal(skillplan_build_for(skills, "sm_90", SK_LATENCY_BOUND, NULL, body, blen, &ctx,
                                         &other), HK_OK);
    for (size_t i = 0; i < other.n; i++)
        assert_string_not_equal(other.v[i].rewrite, "vectorize");
    skillplan_free(&other);
    bool text_has = false, model_has = false;
    for (size_t i = 0; i < by_text.n; i++)
        text_has |= !strcmp(by_text.v[i].rewrite, "vectorize");
    for (size_t i = 0; i < by_model.n; i++)
        model_has |= !strcmp(by_model.v[i].rewrite, "vectorize");
    assert_false(text_has);
    assert_true(model_has);
    skillplan_free(&by_text);
    skillplan_free(&by_model);
    an_model_free(m);
    assert_int_equal(hk_alloc_live(), live0);
}

static void test_gemm_and_gfx(void **state)
{
    (void)state;
    long live0 = hk_alloc_live();
    size_t len;
    char *t = kernel_text("sgemm.cu", "sgemm", &len);
    skillplan p;
    assert_int_equal(skillplan_build(skills, "sm_90", SK_COMPUTE_BOUND, NULL, t, len, &p), HK_OK);
    long g = find(&p, "tiled_gemm", 0);
    assert_true(g >= 0);
    assert_int_equal(p.v[g].params[0], 128);
    assert_int_equal(p.v[g].params[1], 128);
    assert_int_equal(p.v[g].params[2], 8);
    size_t gemm_choices = 0;
    for (size_t i = 0; i < p.n; i++)
        gemm_choices += !strcmp(p.v[i].rewrite, "tiled_gemm");
    assert_true(gemm_choices > 1 && gemm_choices <= SKILLPLAN_CHOICES);
    /* the library first (it is the roof a GEMM is measured against), then the tiled GEMM
     * for when the library is not wanted */
    assert_string_equal(p.used[0]->id, "sm90-cublas-gemm");
    assert_string_equal(p.used[1]->id, "sm90-tiled-gemm-smem");
    skillplan_free(&p);
    /* a DCU arch gets the gfx9 skills only */
    assert_int_equal(skillplan_build(skills, "gfx906", SK_CLASS_COUNT, NULL, t, len, &p), HK_OK);
    for (size_t i = 0; i < p.n_used; i++)
        assert_true(sk_hardware_matches(p.used[i], "gfx906"));
    skillplan_free(&p);
    free(t);
    assert_int_equal(hk_alloc_live(), live0);   /* the set loaded in setup stays */
}

/* A skill with a metric threshold drops out when the baseline's metric is past it. */
static void test_metrics_filter(void **state)
{
    (void)state;
    long live0 = hk_alloc_live();
    size_t len;
    char *t = kernel_text("vector_add.cu", "vector_add", &len);
    skillplan all, some;
    assert_int_equal(skillplan_build(skills, "sm_90", SK_MEMORY_BOUND, NULL, t, len, &all), HK_OK);
    assert_true(all.n_used >= 1);
    /* a kernel already at its roof: skills that want headroom step aside */
    sk_metrics mt;
    sk_metrics_init(&mt);
    for (int i = 0; i < SK_M_COUNT; i++)
        mt.v[i] = NAN;
    mt.v[SK_M_ROOFLINE_PCT] = 99;
    mt.v[SK_M_DRAM_PCT_OF_PEAK] = 99;
    assert_int_equal(skillplan_build(skills, "sm_90", SK_MEMORY_BOUND, &mt, t, len, &some), HK_OK);
    bool thresholded = false;
    for (size_t i = 0; i < all.n_used; i++)
        for (size_t k = 0; k < all.used[i]->n_metrics; k++)
            thresholded |= all.used[i]->metrics[k].metric == SK_M_DRAM_PCT_OF_PEAK ||
                           all.used[i]->metrics[k].metric == SK_M_ROOFLINE_PCT;
    if (thresholded)
        assert_true(some.n_used < all.n_used);
    else
        print_message("no shipped skill for vector_add thresholds its bandwidth\n");
    skillplan_free(&all);
    skillplan_free(&some);
    free(t);
    assert_int_equal(hk_alloc_live(), live0);   /* the set loaded in setup stays */
}

/* The naive kernels of the suite each get the structural rewrite made for them. */
static void test_suite_kernels(void **state)
{
    (void)state;
    static const struct {
        const char *file, *kernel, *rewrite;
    } want[] = {
        {"transpose.cu", "transpose", "tiled_transpose"},
        {"reduce_sum.cu", "reduce_sum", "block_reduce"},
        {"histogram.cu", "histogram", "privatized_histogram"},
        {"softmax.cu", "softmax", "online_softmax"},
        {"layernorm.cu", "layernorm", "online_layernorm"},
        {"sgemm.cu", "sgemm", "tiled_gemm"},
        {"vector_add.cu", "vector_add", "vectorize"},
        {"saxpy.cu", "saxpy", "vectorize"},
        /* elementwise bodies that store a computed value, not a loaded one (x[i] = v > 0 ?
         * v : 0, out[i] = v / (1 + expf(..))): the vectorize skill must fit them too */
        {"relu_inplace.cu", "relu_inplace", "vectorize"},
        {"quick_gelu.cu", "quick_gelu", "vectorize"},
        {"half_scale_bias.cu", "half_scale_bias", "vectorize"},
        {"bf16_axpy.cu", "bf16_axpy", "vectorize"},
        /* 2-D elementwise: one grid-stride loop, the contiguous index fastest */
        {"matadd2d.cu", "matadd2d", "grid_stride_2d"},
        {"stencil2d.cu", "stencil2d", "grid_stride_2d"},
    };
    long live0 = hk_alloc_live();
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        size_t len;
        char *t = kernel_text(want[w].file, want[w].kernel, &len);
        skillplan p;
        assert_int_equal(skillplan_build(skills, "sm_90", SK_CLASS_COUNT, NULL, t, len, &p),
                         HK_OK);
        char got[1024] = "";
        for (size_t i = 0; i < p.n_used; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), " %s", p.used[i]->id);
        print_message("%s:%s\n", want[w].kernel, got);
        if (find(&p, want[w].rewrite, 0) < 0)
            fail_msg("%s: no %s among the skills that fit:%s", want[w].kernel, want[w].rewrite,
                     got);
        skillplan_free(&p);
        /* a matched algorithm comes first whatever the class: a naive softmax is classed
         * latency-bound, and its unroll choices must not be timed before the rewrite.
         * stencil_window's query (a read at an offset index) also fits a transpose's
         * out[c * rows + r]; its rewrite refuses there before anything is compiled */
        static const enum sk_class classes[] = {SK_LATENCY_BOUND, SK_MEMORY_BOUND,
                                                SK_COMPUTE_BOUND};
        for (size_t c = 0; w < 6 && c < sizeof classes / sizeof classes[0]; c++) {
            assert_int_equal(skillplan_build(skills, "sm_90", classes[c], NULL, t, len, &p),
                             HK_OK);
            assert_true(p.n > 0);
            static const char *const algorithms[] = {"tiled_transpose", "warp_reduce",
                                                     "block_reduce", "privatized_histogram",
                                                     "online_softmax", "online_layernorm",
                                                     "tiled_gemm", "blas_substitution",
                                                     "histogram_lane_replicas", "invariant_table",
                                                     "stencil_window"};
            bool first = false;
            for (size_t a = 0; a < sizeof algorithms / sizeof algorithms[0]; a++)
                first |= !strcmp(p.v[0].rewrite, algorithms[a]);
            if (!first)
                fail_msg("%s, class %d: %s comes before the algorithm rewrite", want[w].kernel,
                         (int)classes[c], p.v[0].rewrite);
            skillplan_free(&p);
        }
        free(t);
    }
    assert_int_equal(hk_alloc_live(), live0);
}

/* The histogram's lane replicas pair their launch lists (launch_pairs): block 1024 x 2 per
 * SM first, then 512 x 3, the two best on the H200, before any other choice of the skill;
 * gfx9 lists one blocks_per_sm, so its block sizes move alone. */
static void test_histogram_launch_pairs(void **state)
{
    (void)state;
    long live0 = hk_alloc_live();
    size_t len;
    char *t = kernel_text("histogram.cu", "histogram", &len);
    static const struct {
        const char *arch;
        unsigned b0, g0, b1, g1;
    } want[] = {{"sm_90", 1024, 2, 512, 3}, {"sm_80", 1024, 2, 512, 3}, {"gfx906", 256, 2, 512, 2}};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        skillplan p;
        assert_int_equal(skillplan_build(skills, want[w].arch, SK_MEMORY_BOUND, NULL, t, len, &p), HK_OK);
        long r0 = find(&p, "histogram_lane_replicas", 0), r1 = find(&p, "histogram_lane_replicas", 1);
        assert_true(r0 >= 0 && r1 > r0);
        print_message("%s: %s %u x %u, then %u x %u\n", want[w].arch, p.v[r0].skill, p.v[r0].block_size,
                      p.v[r0].blocks_per_sm, p.v[r1].block_size, p.v[r1].blocks_per_sm);
        assert_int_equal(p.v[r0].block_size, want[w].b0);
        assert_int_equal(p.v[r0].blocks_per_sm, want[w].g0);
        assert_int_equal(p.v[r1].block_size, want[w].b1);
        assert_int_equal(p.v[r1].blocks_per_sm, want[w].g1);
        assert_int_equal(p.v[r0].params[0], 0);   /* bins: inferred */
        /* two pairs, no mixed launch (1024 x 3 or 512 x 2) on NVIDIA */
        size_t n = 0;
        for (size_t i = 0; i < p.n; i++)
            n += !strcmp(p.v[i].rewrite, "histogram_lane_replicas");
        assert_int_equal(n, 2);
        skillplan_free(&p);
    }
    free(t);
    assert_int_equal(hk_alloc_live(), live0);
}

/* The register-accumulator skill fits a loop that sums into memory, written with and
 * without braces, on every architecture that has it, and not a loop that sums into a local. */
static void test_register_accumulator_fits(void **state)
{
    (void)state;
    long live0 = hk_alloc_live();
    static const char *const fit[] = {
        "__global__ void atax2(int nx, int ny, const float *A, float *y, const float *t)\n"
        "{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (j < ny)\n"
        "        for (int i = 0; i < nx; i++)\n"
        "            y[j] += A[i * ny + j] * t[i];\n"
        "}\n",
        "__global__ void mean(int m, int n, float *mean, const float *d)\n"
        "{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (j < m) {\n"
        "        mean[j] = 0.0f;\n"
        "        for (int i = 0; i < n; i++) {\n"
        "            mean[j] -= d[i * m + j];\n"
        "        }\n"
        "    }\n"
        "}\n",
    };
    static const char local_sum[] =
        "__global__ void colsum(int nx, int ny, const float *A, float *y)\n"
        "{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    float s = 0.0f;\n"
        "    for (int i = 0; i < nx && j < ny; i++)\n"
        "        s += A[i * ny + j];\n"
        "    if (j < ny) y[j] = s;\n"
        "}\n";
    static const char *const arches[] = {"sm_90", "sm_80", "gfx906"};
    for (size_t a = 0; a < HK_ARRAY_LEN(arches); a++) {
        for (size_t t = 0; t <= HK_ARRAY_LEN(fit); t++) {
            const char *text = t < HK_ARRAY_LEN(fit) ? fit[t] : local_sum;
            skillplan p;
            assert_int_equal(skillplan_build(skills, arches[a], SK_MEMORY_BOUND, NULL, text, strlen(text), &p),
                             HK_OK);
            long at = find(&p, "register_accumulators", 0);
            if ((at >= 0) != (t < HK_ARRAY_LEN(fit)))
                print_message("%s, text %zu: register_accumulators %s\n", arches[a], t,
                              at >= 0 ? "planned" : "not planned");
            assert_true((at >= 0) == (t < HK_ARRAY_LEN(fit)));
            skillplan_free(&p);
        }
    }
    assert_int_equal(hk_alloc_live(), live0);
}

/* The split-K skill fits a thread-per-column sum (guarded block, a grid-stride loop) on
 * every architecture that has it, and not a thread-per-row one (its early return). */
static void test_split_k_fits(void **state)
{
    (void)state;
    long live0 = hk_alloc_live();
    static const char *const fit[] = {
        "__global__ void bicg1(int nx, int ny, const float *A, const float *r, float *s)\n"
        "{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (j < ny) {\n"
        "        s[j] = 0.0f;\n"
        "        for (int i = 0; i < nx; i++)\n"
        "            s[j] += r[i] * A[i * ny + j];\n"
        "    }\n"
        "}\n",
        "__global__ void colsum(int m, int n, const float *A, float *y)\n"
        "{\n"
        "    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += blockDim.x * gridDim.x) {\n"
        "        float s = 0.0f;\n"
        "        for (int i = 0; i < m; i++)\n"
        "            s = s + A[i * n + j];\n"
        "        y[j] = s;\n"
        "    }\n"
        "}\n",
    };
    static const char rows[] =
        "__global__ void sum_rows(const float *in, float *out, int rows, int cols)\n"
        "{\n"
        "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (r >= rows)\n"
        "        return;\n"
        "    float s = 0.0f;\n"
        "    for (int c = 0; c < cols; c++)\n"
        "        s += in[(long)r * cols + c];\n"
        "    out[r] = s;\n"
        "}\n";
    static const char *const arches[] = {"sm_90", "sm_80", "gfx906"};
    for (size_t a = 0; a < HK_ARRAY_LEN(arches); a++) {
        for (size_t t = 0; t <= HK_ARRAY_LEN(fit); t++) {
            const char *text = t < HK_ARRAY_LEN(fit) ? fit[t] : rows;
            skillplan p;
            assert_int_equal(skillplan_build(skills, arches[a], SK_MEMORY_BOUND, NULL, text, strlen(text), &p),
                             HK_OK);
            long at = find(&p, "split_k_columns", 0);
            if ((at >= 0) != (t < HK_ARRAY_LEN(fit)))
                print_message("%s, text %zu: split_k_columns %s\n", arches[a], t,
                              at >= 0 ? "planned" : "not planned");
            assert_true((at >= 0) == (t < HK_ARRAY_LEN(fit)));
            skillplan_free(&p);
        }
    }
    assert_int_equal(hk_alloc_live(), live0);
}

int main(void)
{
    const char *why;
    if (an_grammar_check(&why) != HK_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_class),
        cmocka_unit_test(test_transpose_plan),
        cmocka_unit_test(test_fits_by_model),
        cmocka_unit_test(test_permute_plan),
        cmocka_unit_test(test_structural_fits_by_model),
        cmocka_unit_test(test_register_accumulator_fits),
        cmocka_unit_test(test_split_k_fits),
        cmocka_unit_test(test_gemm_and_gfx),
        cmocka_unit_test(test_metrics_filter),
        cmocka_unit_test(test_suite_kernels),
        cmocka_unit_test(test_histogram_launch_pairs),
        cmocka_unit_test(test_kept_launch_choices),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
