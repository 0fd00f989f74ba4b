/* Tests of the engine v2 rewrites in rewrite_mem.c on fixture kernels (tests/data/rewrite_mem)
 * and on every kernel of the suite (bench/kernels): each applicable result re-analyses
 * cleanly, shows the expected structure and compiles with the real nvcc -arch=sm_90 (device
 * code; several texts per nvcc run, two runs at a time: nvcc_batch.h), and vectorized kernels also run emulated on
 * the CPU against the originals (g++ with the CUDA headers, threads one after the other);
 * PTX shows the wide and read-only loads; each refusal gives its reason; a second
 * application says "already"; allocation failures neither crash nor leak. No nvcc: the
 * compile checks say so and are skipped. With HK_REWRITE_MEM_OUT=DIR the suite test also
 * writes every rewritten suite kernel there (DIR/<kernel>__<rewrite>.cu), the candidates
 * tests/gpu/rewrite_mem_check.sh judges on a GPU. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_mem.h"
#include "rewrites/rewrite_table.h"
#include "runners/runner.h"

#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "nvcc_batch.h" /* after NVCC */
#include "cxx_batch.h"
#define SUITE HK_TEST_DATA "/../../bench/kernels"

#include "rw_fixture.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrite-mem");
}

static void free_batches(void);

static int teardown(void **state)
{
    (void)state;
    free_batches();
    return rwf_teardown();
}

/* ------------------------------------------------------------------ fixtures */

static void load(const char *name, fixture *fx)
{
    char path[700];
    snprintf(path, sizeof path, "%s/rewrite_mem/%s", HK_TEST_DATA, name);
    load_path(path, fx);
}

/* Re-analyses an applicable result: it parses cleanly and still defines kernel name. */
static void reanalyses(const rw_result *r, const char *name)
{
    assert_true(r->applicable);
    assert_non_null(r->text);
    assert_int_equal(strlen(r->text), r->len);
    an_model *m;
    assert_int_equal(an_analyze(r->text, r->len, &m), HK_OK);
    assert_false(m->has_errors);
    assert_true(an_model_find_kernel(m, name) >= 0);
    an_model_free(m);
}

/* The text of kernel name in r's re-analysed result (malloc'd). */
static char *kernel_text(const rw_result *r, const char *name)
{
    an_model *m;
    assert_int_equal(an_analyze(r->text, r->len, &m), HK_OK);
    long k = an_model_find_kernel(m, name);
    assert_true(k >= 0);
    const an_span *sp = &m->funcs[k].span;
    char *t = strndup(r->text + sp->start_byte, sp->end_byte - sp->start_byte);
    assert_non_null(t);
    an_model_free(m);
    return t;
}

static void expect_text(const rw_result *r, const char *needle)
{
    if (!r->text || !strstr(r->text, needle))
        print_message("expected `%s` in:\n%s\n", needle, r->text ? r->text : "(no text)");
    assert_non_null(r->text);
    assert_non_null(strstr(r->text, needle));
}

static void expect_reason(const rw_result *r, const char *needle)
{
    assert_false(r->applicable);
    assert_null(r->text);
    assert_non_null(r->description);
    if (!strstr(r->description, needle))
        print_message("expected `%s` in the reason: %s\n", needle, r->description);
    assert_non_null(strstr(r->description, needle));
}

/* The same rewrite on its own result: not applicable, "already". */
typedef int (*rewrite_fn)(const char *text, size_t len, const an_model *m, size_t k, int arg,
                          rw_result *out);

static int do_vectorize(const char *t, size_t l, const an_model *m, size_t k, int arg, rw_result *o)
{
    return rw_vectorize(t, l, m, k, arg, o);
}
static int do_readonly(const char *t, size_t l, const an_model *m, size_t k, int arg, rw_result *o)
{
    return rw_readonly_loads(t, l, m, k, arg != 0, o);
}
static int do_unroll(const char *t, size_t l, const an_model *m, size_t k, int arg, rw_result *o)
{
    return rw_unroll(t, l, m, k, arg, o);
}
static int do_fast_math(const char *t, size_t l, const an_model *m, size_t k, int arg, rw_result *o)
{
    (void)arg;
    return rw_fast_math(t, l, m, k, o);
}

static void twice_says_already(const rw_result *r, const char *name, rewrite_fn fn, int arg)
{
    an_model *m;
    assert_int_equal(an_analyze(r->text, r->len, &m), HK_OK);
    long k = an_model_find_kernel(m, name);
    assert_true(k >= 0);
    rw_result again;
    assert_int_equal(fn(r->text, r->len, m, (size_t)k, arg, &again), HK_OK);
    expect_reason(&again, "already");
    rw_result_free(&again);
    an_model_free(m);
}

/* ------------------------------------------------------------------ compiling */

/* A rewritten text to compile (nvcc_batch.h: device code only; every text must compile).
 * Every test's texts stay queued until compiled_all, the last test, compiles them all in
 * few nvcc runs (texts with the same #include lines share one, each in a namespace of its
 * own, each named when it fails alone): one nvcc run per test, which most of these tests'
 * two to six texts took, cost nvcc's parse of its own headers each time (issue 14). A name
 * is queued once: each text has its file, DIR/NAME.cu. */
static void add_job(const char *name, const char *text, size_t len)
{
    for (size_t i = 0; i < nvb_n_jobs; i++)
        if (!strcmp(nvb_jobs[i].name, name))
            fail_msg("compile check %s queued twice", name);
    nvb_add(tmpdir, name, text, len);
}

/* The last test: every queued text compiles (nvb_compile_all). */
static void compiled_all(void **state)
{
    (void)state;
    nvb_compile_all(tmpdir);
}

/* ------------------------------------------------------------------ vectorize */

static void test_vectorize_float_int(void **state)
{
    fixture fx;
    load("elementwise.cu", &fx);
    rw_result r;

    /* if (i < n) { ... }, y read and written, x read */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "axpy_if"), 4, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "axpy_if");
    expect_text(&r, "const float4 hk_x = reinterpret_cast<const float4 *>(x)[hk_v];");
    expect_text(&r, "float4 hk_y = reinterpret_cast<const float4 *>(y)[hk_v];");
    expect_text(&r, "hk_y.w = a * xi + hk_y.w;");
    expect_text(&r, "float xi = hk_x.z;");
    expect_text(&r, "reinterpret_cast<float4 *>(y)[hk_v] = hk_y;");
    expect_text(&r, "reinterpret_cast<unsigned long long>(x) % 16 == 0");
    expect_text(&r, "const auto hk_nv = hk_n / 4;");
    /* the tail, and the whole range scalar when unaligned: both grid-stride */
    expect_text(&r, "for (int i = hk_nv * 4 + hk_start; i < hk_n; i += hk_stride)");
    expect_text(&r, "} else {\n            for (int i = hk_start; i < hk_n; i += hk_stride)");
    expect_text(&r, "const int hk_stride = gridDim.x * blockDim.x;");
    char *kt = kernel_text(&r, "axpy_if");
    assert_null(strstr(kt, "if (i < n)"));   /* the bounds check became the loops' conditions */
    assert_non_null(strstr(kt, "gridDim.x"));
    free(kt);
    add_job("vec_axpy4", r.text, r.len);
    twice_says_already(&r, "axpy_if", do_vectorize, 4);
    rw_result_free(&r);

    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "axpy_if"), 2, &r), HK_OK);
    expect_text(&r, "reinterpret_cast<const float2 *>(x)[hk_v]");
    expect_text(&r, "% 8 == 0");
    assert_null(strstr(r.text, "hk_y.z"));
    add_job("vec_axpy2", r.text, r.len);
    rw_result_free(&r);

    /* early return, size_t index used as a value, a declaration hoisted above the loop;
     * out is only stored (no load of it) */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "ramp_early"), 4, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "ramp_early");
    expect_text(&r, "const size_t i = hk_v * 4 + 3;");
    expect_text(&r, "const size_t hk_stride = (size_t)gridDim.x * blockDim.x;");
    expect_text(&r, "const float step = 0.5f * s;\n    // hk vectorize");
    expect_text(&r, "            float4 hk_out;\n");
    expect_text(&r, "hk_out.y = hk_in.y * s + step * (float)i;");
    kt = kernel_text(&r, "ramp_early");
    assert_null(strstr(kt, "return"));
    free(kt);
    assert_non_null(strstr(r.description, "if (i >= n) return form"));
    add_job("vec_ramp4", r.text, r.len);
    rw_result_free(&r);

    /* an existing grid-stride loop */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "copy_gs"), 4, &r), HK_OK);
    reanalyses(&r, "copy_gs");
    assert_non_null(strstr(r.description, "grid-stride loop form"));
    expect_text(&r, "hk_dst.x = hk_src.x;");
    add_job("vec_copy_gs4", r.text, r.len);
    rw_result_free(&r);

    /* a conditional store: out is loaded first so unwritten lanes keep their values */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "clamp_store"), 4, &r), HK_OK);
    expect_text(&r, "float4 hk_out = reinterpret_cast<const float4 *>(out)[hk_v];");
    expect_text(&r, "if (hk_x.z > 0.0f)");
    add_job("vec_clamp4", r.text, r.len);
    rw_result_free(&r);

    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "int_add"), 4, &r), HK_OK);
    expect_text(&r, "const int4 hk_a = reinterpret_cast<const int4 *>(a)[hk_v];");
    add_job("vec_int4", r.text, r.len);
    rw_result_free(&r);

    /* bad arguments are errors */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "int_add"), 3, &r), HK_EINVAL);
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, 999, 4, &r), HK_EINVAL);
    long launcher = -1;
    for (size_t i = 0; i < fx.m->n_funcs; i++)
        if (fx.m->funcs[i].kind != AN_KERNEL)
            launcher = (long)i;
    assert_true(launcher >= 0);
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, (size_t)launcher, 4, &r), HK_EINVAL);
    assert_int_equal(rw_vectorize(NULL, fx.len, fx.m, 0, 4, &r), HK_EINVAL);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_vectorize_half_bf16(void **state)
{
    fixture fx;
    load("elementwise.cu", &fx);
    rw_result r;
    size_t h = kernel(&fx, "half_add"), b = kernel(&fx, "bf16_scale");

    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, h, 2, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "half_add");
    expect_text(&r, "const __half2 hk_a = reinterpret_cast<const __half2 *>(a)[hk_v];");
    expect_text(&r, "hk_c.y = __hadd(hk_a.y, hk_b.y);");
    expect_text(&r, "reinterpret_cast<unsigned long long>(c) % 4 == 0");
    add_job("vec_half2", r.text, r.len);
    twice_says_already(&r, "half_add", do_vectorize, 2);
    rw_result_free(&r);

    /* 8 halves travel in a uint4 (16 bytes), lanes through an element pointer */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, h, 8, &r), HK_OK);
    reanalyses(&r, "half_add");
    expect_text(&r, "const uint4 hk_a = reinterpret_cast<const uint4 *>(a)[hk_v];");
    expect_text(&r, "const __half *hk_a_e = reinterpret_cast<const __half *>(&hk_a);");
    expect_text(&r, "__half *hk_c_e = reinterpret_cast<__half *>(&hk_c);");
    expect_text(&r, "hk_c_e[7] = __hadd(hk_a_e[7], hk_b_e[7]);");
    expect_text(&r, "% 16 == 0");
    expect_text(&r, "for (int i = hk_nv * 8 + hk_start;");
    add_job("vec_half8", r.text, r.len);
    rw_result_free(&r);

    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, h, 4, &r), HK_OK);
    expect_text(&r, "reinterpret_cast<const uint2 *>(b)[hk_v]");
    add_job("vec_half4", r.text, r.len);
    rw_result_free(&r);

    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, b, 2, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "bf16_scale");
    expect_text(&r, "const __nv_bfloat162 hk_x = reinterpret_cast<const __nv_bfloat162 *>(x)[hk_v];");
    expect_text(&r, "hk_y.x = __float2bfloat16(__bfloat162float(hk_x.x) * s);");
    add_job("vec_bf16x2", r.text, r.len);
    rw_result_free(&r);

    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, b, 8, &r), HK_OK);
    expect_text(&r, "__nv_bfloat16 *hk_y_e = reinterpret_cast<__nv_bfloat16 *>(&hk_y);");
    add_job("vec_bf16x8", r.text, r.len);
    rw_result_free(&r);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_vectorize_refusals(void **state)
{
    fixture fx;
    load("vec_not_applicable.cu", &fx);
    static const struct {
        const char *kernel;
        int width;
        const char *reason;
    } no[] = {
        {"neighbour", 4, "pointer y is used other than as y[i] or y[s * i + k] (another index, a "
                         "dereference or the pointer itself) and is written"},
        {"gemv_rows", 4, "pointer A is read at another index inside a loop of the per-element code"},
        {"reduce", 4, "atomic"},
        {"carried", 4, "updates acc, declared outside it"},
        {"two_d", 4, "no `int i = blockIdx.x * blockDim.x + threadIdx.x;`"},
        {"skips", 4, "continue"},
        {"templ", 2, "element type T"},
        {"dbl", 4, "double has no 4-wide vector type"},
        {"reads_only", 4, "writes no pointer parameter"},
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        rw_result r;
        assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, no[i].kernel), no[i].width, &r),
                         HK_OK);
        print_message("%s\n", r.description);
        expect_reason(&r, no[i].reason);
        rw_result_free(&r);
    }
    /* x[i] read after y[i] is written: applies, an in-place call (x == y) takes the
     * scalar loop (test_rewrites_emu_vec runs both calls) */
    rw_result ra;
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "maybe_alias"), 4, &ra), HK_OK);
    assert_true(ra.applicable);
    expect_text(&ra, "(const void *)y != (const void *)x");
    rw_result_free(&ra);
    /* float has no 8-wide type, and double does at width 2 */
    fixture fe;
    load("elementwise.cu", &fe);
    rw_result r;
    assert_int_equal(rw_vectorize(fe.text, fe.len, fe.m, kernel(&fe, "axpy_if"), 8, &r), HK_OK);
    expect_reason(&r, "float has no 8-wide vector type");
    rw_result_free(&r);
    unload(&fe);
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "dbl"), 2, &r), HK_OK);
    expect_text(&r, "double2");
    add_job("vec_double2", r.text, r.len);
    rw_result_free(&r);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* ------------------------------------------------------------------ read-only loads */

static void test_readonly_loads(void **state)
{
    fixture fx;
    load("readonly.cu", &fx);
    rw_result r;
    assert_int_equal(rw_readonly_loads(fx.text, fx.len, fx.m, kernel(&fx, "gather"), false, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "gather");
    expect_text(&r, "out[i] = __ldg(&table[__ldg(&idx[i])]) * 2.0f;");
    assert_non_null(strstr(r.description, "table (1), idx (1)"));
    assert_non_null(strstr(r.description, "skipped: out (written"));
    add_job("ldg_gather", r.text, r.len);
    twice_says_already(&r, "gather", do_readonly, 0);
    rw_result_free(&r);

    assert_int_equal(rw_readonly_loads(fx.text, fx.len, fx.m, kernel(&fx, "scale_by"), false, &r), HK_OK);
    expect_text(&r, "out[i] = out[i] * __ldg(s);");
    add_job("ldg_deref", r.text, r.len);
    rw_result_free(&r);

    /* refusals: the only pointer is written; the read-only one aliases a written one at
     * the launch; a HIP target */
    assert_int_equal(rw_readonly_loads(fx.text, fx.len, fx.m, kernel(&fx, "in_place"), false, &r), HK_OK);
    expect_reason(&r, "x (written");
    rw_result_free(&r);
    assert_int_equal(rw_readonly_loads(fx.text, fx.len, fx.m, kernel(&fx, "shift"), false, &r), HK_OK);
    print_message("%s\n", r.description);
    expect_reason(&r, "a launch passes it as b too");
    rw_result_free(&r);
    assert_int_equal(rw_readonly_loads(fx.text, fx.len, fx.m, kernel(&fx, "gather"), true, &r), HK_OK);
    expect_reason(&r, "AMD/DCU");
    rw_result_free(&r);
    assert_int_equal(rw_readonly_loads(fx.text, fx.len, fx.m, 999, false, &r), HK_EINVAL);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Issue 13: a pointer moved in place (`src += y * pitch;`, `src++;`) and only read is
 * read-only: its loads go through __ldg, the moves stay; one stored through after its move
 * (dst), passed whole to a call (sink) or moved by an offset read through itself (self)
 * is skipped as written. The wild suite's convolutionSeparable kernels (d_Src and d_Dst
 * moved in place) take the rewrite and compile. */
static void test_readonly_loads_moved(void **state)
{
    (void)state;
    static const char src[] =
        "__device__ void sink(float *p) { p[0] = 0.0f; }\n"
        "__global__ void rows(float *dst, float *src, float *pass, float *self, int pitch)\n"
        "{\n"
        "    const int y = blockIdx.x;\n"
        "    src += y * pitch;\n"
        "    src++;\n"
        "    dst = dst + y * pitch;\n"
        "    pass += y;\n"
        "    self += (int)self[0];\n"
        "    for (int x = threadIdx.x; x < pitch; x += blockDim.x)\n"
        "        dst[x] = 2.0f * src[x] + *self;\n"
        "    sink(pass);\n"
        "}\n";
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_readonly_loads(fx.text, fx.len, fx.m, kernel(&fx, "rows"), false, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "rows");
    expect_text(&r, "dst[x] = 2.0f * __ldg(&src[x]) + *self;");
    expect_text(&r, "    src += y * pitch;\n    src++;\n");
    assert_non_null(strstr(r.description, "src (1)"));
    assert_non_null(strstr(r.description, "dst (written"));
    assert_non_null(strstr(r.description, "pass (written"));
    assert_non_null(strstr(r.description, "self (written"));
    add_job("ldg_moved", r.text, r.len);
    rw_result_free(&r);
    unload(&fx);

    /* a moved pointer stored through a parenthesised or prefix-incremented dereference is
     * written: no __ldg on it (review s51 rev3: `(__ldg(p)) += ...`, `++__ldg(p)` did not compile) */
    static const char bump[] =
        "__global__ void bump(float *p, float *q, int n)\n"
        "{\n"
        "    p += blockIdx.x * n;\n"
        "    (*p) += q[threadIdx.x];\n"
        "    ++*p;\n"
        "}\n";
    load_text(bump, &fx);
    assert_int_equal(rw_readonly_loads(fx.text, fx.len, fx.m, kernel(&fx, "bump"), false, &r), HK_OK);
    print_message("%s\n", r.description);
    assert_true(r.applicable);
    expect_text(&r, "    (*p) += __ldg(&q[threadIdx.x]);\n    ++*p;\n");
    assert_non_null(strstr(r.description, "p (written"));
    add_job("ldg_bump", r.text, r.len);
    rw_result_free(&r);
    unload(&fx);

    static const struct {
        const char *id, *kernel;
    } ks[] = {{"cs_conv_rows", "convolutionRowsKernel"}, {"cs_conv_cols", "convolutionColumnsKernel"}};
    for (size_t i = 0; i < HK_ARRAY_LEN(ks); i++) {
        if (!rwf_load_wild(ks[i].id, &fx))
            continue;
        assert_int_equal(rw_readonly_loads(fx.text, fx.len, fx.m, kernel(&fx, ks[i].kernel), false, &r), HK_OK);
        if (!r.applicable)
            fail_msg("%s: %s", ks[i].id, r.description);
        print_message("%s\n", r.description);
        expect_text(&r, "= __ldg(&d_Src[");
        expect_text(&r, "d_Src += ");
        assert_non_null(strstr(r.description, "skipped: d_Dst (written"));
        char tag[64];
        snprintf(tag, sizeof tag, "ldg_%s", ks[i].id);
        add_job(tag, r.text, r.len);
        rw_result_free(&r);
        unload(&fx);
    }
    assert_int_equal(hk_alloc_live(), 0);
}

/* ------------------------------------------------------------------ unroll */

static void test_unroll(void **state)
{
    fixture fx;
    load("unroll.cu", &fx);
    rw_result r;
    assert_int_equal(rw_unroll(fx.text, fx.len, fx.m, kernel(&fx, "dot_rows"), 4, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "dot_rows");
    expect_text(&r, "    #pragma unroll 4\n    for (int c = 0; c < cols; c++)");
    add_job("unroll_dot4", r.text, r.len);
    twice_says_already(&r, "dot_rows", do_unroll, 4);
    twice_says_already(&r, "dot_rows", do_unroll, 8);
    rw_result_free(&r);
    /* cols is not a constant: no full unrolling */
    assert_int_equal(rw_unroll(fx.text, fx.len, fx.m, kernel(&fx, "dot_rows"), 0, &r), HK_OK);
    expect_reason(&r, "constant trip count");
    rw_result_free(&r);

    /* nested: only the inner loop, whose trip count is the #define */
    assert_int_equal(rw_unroll(fx.text, fx.len, fx.m, kernel(&fx, "fir"), 0, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "fir");
    expect_text(&r, "        #pragma unroll\n        for (int t = 0; t < TAPS; ++t)");
    assert_null(strstr(r.text, "#pragma unroll\n    for (int i"));
    add_job("unroll_fir_full", r.text, r.len);
    rw_result_free(&r);

    /* template parameter and constexpr bounds; the lone loop of an if gets braces */
    assert_int_equal(rw_unroll(fx.text, fx.len, fx.m, kernel(&fx, "box"), 0, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "box");
    assert_non_null(strstr(r.description, "lines 37, 38"));
    expect_text(&r, "if (n > 0) {\n    #pragma unroll\n    for (int j = 0; j < R; j++) s -= x[i + j];\n    }");
    add_job("unroll_box_full", r.text, r.len);
    rw_result_free(&r);

    assert_int_equal(rw_unroll(fx.text, fx.len, fx.m, kernel(&fx, "pragma_already"), 4, &r), HK_OK);
    expect_reason(&r, "already");
    rw_result_free(&r);
    assert_int_equal(rw_unroll(fx.text, fx.len, fx.m, kernel(&fx, "no_loop"), 4, &r), HK_OK);
    expect_reason(&r, "no for-loop");
    rw_result_free(&r);
    assert_int_equal(rw_unroll(fx.text, fx.len, fx.m, kernel(&fx, "no_loop"), 1, &r), HK_EINVAL);
    assert_int_equal(rw_unroll(fx.text, fx.len, fx.m, kernel(&fx, "no_loop"), 65, &r), HK_EINVAL);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* ------------------------------------------------------------------ fast math */

static void test_fast_math(void **state)
{
    fixture fx;
    load("fastmath.cu", &fx);
    rw_result r;
    assert_int_equal(rw_fast_math(fx.text, fx.len, fx.m, kernel(&fx, "sigmoid"), &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "sigmoid");
    expect_text(&r, "y[i] = __fdividef(1.0f, (1.0f + __expf(-x[i]))) + act(x[i]);");
    /* the device helper is not the kernel's to change */
    expect_text(&r, "return expf(v) / (1.0f + expf(v));");
    assert_non_null(strstr(r.description, "expf -> __expf (1), / -> __fdividef (1)"));
    add_job("fm_sigmoid", r.text, r.len);
    twice_says_already(&r, "sigmoid", do_fast_math, 0);
    rw_result_free(&r);

    assert_int_equal(rw_fast_math(fx.text, fx.len, fx.m, kernel(&fx, "waves"), &r), HK_OK);
    print_message("%s\n", r.description);
    expect_text(&r, "__sincosf(v, &s, &c);");
    expect_text(&r, "__sinf(v) * __cosf(v) + __powf(fabsf(v), p) + __logf(1.0f + v * v)");
    assert_non_null(strstr(r.description, "sincosf -> __sincosf (1)"));
    add_job("fm_waves", r.text, r.len);
    rw_result_free(&r);

    /* a chain, a nested division, an integer division in a cast, an integer variable */
    assert_int_equal(rw_fast_math(fx.text, fx.len, fx.m, kernel(&fx, "divisions"), &r), HK_OK);
    print_message("%s\n", r.description);
    expect_text(&r, "__fdividef(a * d, (a + 2.0f))");
    expect_text(&r, "__fdividef(a, (__fdividef(d, (1.0f + a * a))))");
    expect_text(&r, "(float)(i / 3)");
    expect_text(&r, "int half = n / 2;");
    assert_non_null(strstr(r.description, "/ -> __fdividef (3)"));
    add_job("fm_divisions", r.text, r.len);
    rw_result_free(&r);

    /* the C++ overloads: on floats the intrinsics, on doubles left */
    assert_int_equal(rw_fast_math(fx.text, fx.len, fx.m, kernel(&fx, "overloads"), &r), HK_OK);
    print_message("%s\n", r.description);
    expect_text(&r, "y[i] = __sinf(v) * __cosf(t) + __expf(-v) + __powf(v, t) + (float)cos(w[i]) + "
                    "(float)sin(w[i] * 2.0) + __logf(v * 2);");
    assert_non_null(strstr(r.description, "sin(float) -> __sinf (1)"));
    assert_non_null(strstr(r.description, "2 calls of exp, log, sin, ... on another or unknown type left"));
    add_job("fm_overloads", r.text, r.len);
    rw_result_free(&r);

    /* double math and divisions only */
    assert_int_equal(rw_fast_math(fx.text, fx.len, fx.m, kernel(&fx, "doubles"), &r), HK_OK);
    expect_reason(&r, "no expf");
    rw_result_free(&r);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* ------------------------------------------------------------------ emulated runs */

/* No GPU here, so the vectorized kernels run on the CPU: the original and the rewritten
 * kernel (their texts only, in two namespaces) are compiled as host C++ against the CUDA
 * headers (float4, __half, __nv_bfloat16 work on the host), with blockIdx/threadIdx as
 * globals, every thread of the grid run one after the other (an elementwise kernel has no
 * synchronization, so any order is a valid schedule). The rewritten kernel runs with the
 * original's grid and with a small grid (the grid-stride loop must cover the rest); the
 * pointers are aligned and then one element off (the scalar fallback); every buffer,
 * guard elements included, must end bit for bit as the original leaves it. */
static const char emu_prelude[] =
    "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
    "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "static uint3 threadIdx, blockIdx;\nstatic dim3 blockDim, gridDim;\n"
    "static float emu_val(size_t i, int s) { return (float)((i * 7919u + s * 104729u) % 2003u) * 0.01f - 10.0f; }\n"
    "static void fill(float *p, size_t n, int s) { for (size_t i = 0; i < n; i++) p[i] = emu_val(i, s); }\n"
    "static void fill(double *p, size_t n, int s) { for (size_t i = 0; i < n; i++) p[i] = emu_val(i, s); }\n"
    "static void fill(int *p, size_t n, int s) { for (size_t i = 0; i < n; i++) p[i] = (int)emu_val(i, s) * 37; }\n"
    "static void fill(unsigned *p, size_t n, int s) { for (size_t i = 0; i < n; i++) p[i] = (unsigned)(i * 2654435761u + s); }\n"
    "static void fill(__half *p, size_t n, int s) { for (size_t i = 0; i < n; i++) p[i] = __float2half(emu_val(i, s)); }\n"
    "static void fill(__nv_bfloat16 *p, size_t n, int s) { for (size_t i = 0; i < n; i++) p[i] = __float2bfloat16(emu_val(i, s)); }\n"
    "template <class F> static void emu_launch(unsigned grid, unsigned block, F f)\n"
    "{\n    gridDim = dim3(grid, 1, 1); blockDim = dim3(block, 1, 1);\n"
    "    for (unsigned b = 0; b < grid; b++)\n        for (unsigned t = 0; t < block; t++) {\n"
    "            blockIdx = make_uint3(b, 0, 0); threadIdx = make_uint3(t, 0, 0); f();\n        }\n}\n";

static bool is_int_type(const char *t)
{
    static const char *const ints[] = {"int", "long", "size_t", "unsigned", "unsigned int",
                                       "long long", "int64_t", "uint32_t", "int32_t",
                                       "unsigned long", "uint64_t", "const int", "const long",
                                       "const size_t"};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (strcmp(t, ints[i]) == 0)
            return true;
    return false;
}

/* The running test's emulations after emu_prelude (cxx_batch.h): queued by emulate_strided,
 * built in one g++ run and checked at the test's end, each in its own process and named when
 * it does not give its want; rope_batch: the same for emulate_rope's, after emu_sync_prelude. */
static cxx_batch vec_batch, rope_batch;

static void open_vec_batch(const char *name)
{
    cxx_batch_init(&vec_batch, tmpdir, name, TEST_CXX,
                   "-std=c++17 -O1 -ffp-contract=off -w -I/usr/local/cuda/include", emu_prelude);
}

/* Queues the emulation of kernel name, original fx against r, in vec_batch: want CXX_PASS
 * when every buffer must match, CXX_DIFFERS when the program must find a difference. Each
 * index owns per_index elements of every array (p[s * i + k]: s). */
static void emulate_strided(const fixture *fx, const rw_result *r, const char *name, const char *tag,
                            int per_index, int want)
{
    an_model *cm;
    assert_int_equal(an_analyze(r->text, r->len, &cm), HK_OK);
    const an_function *of = &fx->m->funcs[kernel(fx, name)];
    const an_function *cf = &cm->funcs[an_model_find_kernel(cm, name)];
    char *prog = NULL;
    size_t prog_len = 0;
    FILE *f = open_memstream(&prog, &prog_len);
    assert_non_null(f);
    fprintf(f, "namespace orig {\n%.*s\n}\nnamespace cand {\n%.*s\n}\n",
            (int)(of->span.end_byte - of->span.start_byte), fx->text + of->span.start_byte,
            (int)(cf->span.end_byte - cf->span.start_byte), r->text + cf->span.start_byte);
    fprintf(f, "int main(void)\n{\n    static const size_t sizes[] = {0, 1, 7, 8, 9, 33, 64, 1001};\n"
               "    int bad = 0;\n"
               "    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)\n"
               "    for (int off = 0; off < 2; off++)\n"
               "    for (int small = 0; small < 2; small++) {\n"
               "        const size_t n = sizes[si], total = n * %d + 40;\n"
               "        const unsigned block = 32, grid = n ? (unsigned)((n + block - 1) / block) : 1;\n",
            per_index);
    for (size_t p = 0; p < of->n_params; p++) {
        const an_param *pp = &of->params[p];
        if (pp->pointer_depth == 1)
            fprintf(f, "        %s *o%zu = (%s *)calloc(total, sizeof(%s)), *c%zu = (%s *)calloc(total, sizeof(%s));\n"
                       "        fill(o%zu, total, %zu); memcpy(c%zu, o%zu, total * sizeof(%s));\n",
                    pp->elem_type, p, pp->elem_type, pp->elem_type, p, pp->elem_type, pp->elem_type, p, p,
                    p, p, pp->elem_type);
    }
    for (int side = 0; side < 2; side++) {
        fprintf(f, "        emu_launch(%s, block, [&] { %s::%s(", side ? "small ? 3u : grid" : "grid",
                side ? "cand" : "orig", name);
        for (size_t p = 0; p < of->n_params; p++) {
            const an_param *pp = &of->params[p];
            if (p)
                fputs(", ", f);
            if (pp->pointer_depth == 1)
                fprintf(f, "%c%zu + off", side ? 'c' : 'o', p);
            else if (is_int_type(pp->type))
                fprintf(f, "(%s)n", pp->type);
            else
                fprintf(f, "(%s)1.25f", pp->type);
        }
        fputs("); });\n", f);
    }
    for (size_t p = 0; p < of->n_params; p++)
        if (of->params[p].pointer_depth == 1)
            fprintf(f, "        if (memcmp(o%zu, c%zu, total * sizeof(*o%zu)) != 0) {\n"
                       "            printf(\"differs: %s at n=%%zu off=%%d small=%%d\\n\", n, off, small);\n"
                       "            bad = 1;\n        }\n        free(o%zu); free(c%zu);\n",
                    p, p, p, of->params[p].name, p, p);
    fputs("    }\n    puts(bad ? \"FAIL\" : \"OK\");\n    return bad;\n}\n", f);
    assert_int_equal(fclose(f), 0);
    an_model_free(cm);
    cxx_batch_add(&vec_batch, tag, prog, "OK", want);
    free(prog);
}

static void free_batches(void)
{
    cxx_batch_free(&vec_batch);
    cxx_batch_free(&rope_batch);
}

static void emulate(const fixture *fx, const rw_result *r, const char *name, const char *tag, int want)
{
    emulate_strided(fx, r, name, tag, 1, want);
}

static void test_vectorize_emulated(void **state)
{
    if (access("/usr/local/cuda/include/cuda_fp16.h", R_OK) != 0 || system("g++ --version >/dev/null 2>&1") != 0) {
        print_message("skipped: no CUDA headers or no g++\n");
        skip();
    }
    open_vec_batch("vectorize");
    static const struct {
        const char *file, *kernel;
        int widths[3];
    } cases[] = {
        {"rewrite_mem/elementwise.cu", "axpy_if", {2, 4, 0}},
        {"rewrite_mem/elementwise.cu", "ramp_early", {4, 0, 0}},
        {"rewrite_mem/elementwise.cu", "copy_gs", {4, 0, 0}},
        {"rewrite_mem/elementwise.cu", "half_add", {2, 4, 8}},
        {"rewrite_mem/elementwise.cu", "bf16_scale", {2, 8, 0}},
        {"rewrite_mem/elementwise.cu", "int_add", {4, 0, 0}},
        {"rewrite_mem/elementwise.cu", "clamp_store", {4, 0, 0}},
        {"../../bench/kernels/quick_gelu.cu", "quick_gelu", {4, 0, 0}},
        {"../../bench/kernels/relu_inplace.cu", "relu_inplace", {4, 0, 0}},
        {"../../bench/kernels/half_scale_bias.cu", "half_scale_bias", {8, 0, 0}},
        {"../../bench/kernels/bf16_axpy.cu", "bf16_axpy", {2, 0, 0}},
        {"../../bench/kernels/saxpy.cu", "saxpy", {4, 0, 0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[900];
        snprintf(path, sizeof path, "%s/%s", HK_TEST_DATA, cases[c].file);
        fixture fx;
        load_path(path, &fx);
        for (int w = 0; w < 3 && cases[c].widths[w]; w++) {
            rw_result r;
            assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, cases[c].kernel),
                                          cases[c].widths[w], &r), HK_OK);
            assert_true(r.applicable);
            char tag[128];
            snprintf(tag, sizeof tag, "%s_w%d", cases[c].kernel, cases[c].widths[w]);
            emulate(&fx, &r, cases[c].kernel, tag, CXX_PASS);
            rw_result_free(&r);
        }
        unload(&fx);
    }
    /* the check can fail: a wrong tail (one element short) is caught */
    fixture fx;
    load("elementwise.cu", &fx);
    rw_result r;
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "int_add"), 4, &r), HK_OK);
    char *tail = strstr(r.text, "i < hk_n; i += hk_stride)");
    assert_non_null(tail);
    memcpy(tail, "i+1<hk_n;", 9);   /* same length: `i < hk_n;` -> `i+1<hk_n;` */
    an_model *bm;
    assert_int_equal(an_analyze(r.text, r.len, &bm), HK_OK);
    an_model_free(bm);
    print_message("(a deliberately broken tail follows: its differences are expected)\n");
    emulate(&fx, &r, "int_add", "broken_tail", CXX_DIFFERS);
    rw_result_free(&r);
    unload(&fx);
    cxx_batch_run(&vec_batch);
    assert_int_equal(hk_alloc_live(), 0);
}

/* ------------------------------------------------------------------ strided elements */

static void export_candidate(const char *kernel_name, const char *tag, const rw_result *r);

/* rope_forward made a grid-stride loop (rw_grid_stride) and given its invariant table
 * (rw_invariant_table), as the search composes them under a skill's blocks per SM: the text
 * rw_vectorize then meets, with the table's fill and __syncthreads() before the loop. */
static void rope_table_text(const fixture *fx, rw_result *out)
{
    rw_result gs;
    assert_int_equal(rw_grid_stride(fx->text, fx->len, fx->m, kernel(fx, "rope_forward"), &gs), HK_OK);
    assert_true(gs.applicable);
    an_model *gm;
    assert_int_equal(an_analyze(gs.text, gs.len, &gm), HK_OK);
    assert_int_equal(rw_invariant_table(gs.text, gs.len, gm, (size_t)an_model_find_kernel(gm, "rope_forward"),
                                        1024, out), HK_OK);
    assert_true(out->applicable);
    an_model_free(gm);
    rw_result_free(&gs);
}

/* Vectorizes kernel name of text (analysed here) at width into out. */
static void vectorize_text(const char *text, size_t len, const char *name, int width, rw_result *out)
{
    an_model *m;
    assert_int_equal(an_analyze(text, len, &m), HK_OK);
    long k = an_model_find_kernel(m, name);
    assert_true(k >= 0);
    assert_int_equal(rw_vectorize(text, len, m, (size_t)k, width, out), HK_OK);
    an_model_free(m);
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void test_vectorize_strided(void **state)
{
    (void)state;
    fixture fx;
    load("strided.cu", &fx);
    rw_result r;

    /* 2 * i + k directly: two indices per float4, x loaded, out only stored */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "swap_pairs"), 4, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "swap_pairs");
    expect_text(&r, "const float4 hk_x = reinterpret_cast<const float4 *>(x)[hk_v];");
    expect_text(&r, "            float4 hk_out;\n");
    expect_text(&r, "float a = hk_x.z, b = hk_x.w;");
    expect_text(&r, "hk_out.z = b;");
    expect_text(&r, "hk_out.w = a;");
    expect_text(&r, "reinterpret_cast<float4 *>(out)[hk_v] = hk_out;");
    expect_text(&r, "const auto hk_nv = hk_n / 2;");
    expect_text(&r, "for (int i = hk_nv * 2 + hk_start; i < hk_n; i += hk_stride)");
    assert_null(strstr(r.text, "const int i = hk_v"));   /* i only in the subscripts */
    assert_non_null(strstr(r.description, "2 indices of 2 elements per vector"));
    add_job("vec_swap_pairs4", r.text, r.len);
    twice_says_already(&r, "swap_pairs", do_vectorize, 4);
    rw_result_free(&r);
    /* width 2: one index per float2 */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "swap_pairs"), 2, &r), HK_OK);
    expect_text(&r, "const float2 hk_x = reinterpret_cast<const float2 *>(x)[hk_v];");
    expect_text(&r, "hk_out.y = a;");
    assert_null(strstr(r.text, "hk_out.z"));
    add_job("vec_swap_pairs2", r.text, r.len);
    rw_result_free(&r);

    /* an alias with casts and parentheses, 4 elements per index, read and written in place */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "quad_scale"), 4, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "quad_scale");
    expect_text(&r, "float4 hk_y = reinterpret_cast<const float4 *>(y)[hk_v];");
    expect_text(&r, "hk_y.z = hk_y.z - s;");
    expect_text(&r, "hk_y.w = hk_y.w * (float)q;");
    expect_text(&r, "const long q = hk_v * 1 + 0;");
    /* the alias is left out of the lane (only the subscripts used it), kept in both
     * scalar loops */
    assert_int_equal(count_of(r.text, "const long base = (long)q * 4;"), 2);
    add_job("vec_quad4", r.text, r.len);
    rw_result_free(&r);
    /* and 8 floats: no such vector; width 2 holds no whole index */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "quad_scale"), 2, &r), HK_OK);
    expect_reason(&r, "width 2 is not a multiple of the 4 elements of each index");
    rw_result_free(&r);

    /* halves in a uint4 carrier: components up to 7 */
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "half_cmul"), 8, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "half_cmul");
    expect_text(&r, "const uint4 hk_a = reinterpret_cast<const uint4 *>(a)[hk_v];");
    expect_text(&r, "hk_c_e[7] = __float2half(ar * bi + ai * br);");
    expect_text(&r, "float ar = __half2float(hk_a_e[6]), ai = __half2float(hk_a_e[7]);");
    assert_null(strstr(r.text, "const int i = hk_v"));   /* i only in the alias, left out */
    assert_int_equal(count_of(r.text, "const int e = 2 * i;"), 2);
    assert_non_null(strstr(r.description, "4 indices of 2 elements per vector"));
    add_job("vec_half_cmul8", r.text, r.len);
    rw_result_free(&r);
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "half_cmul"), 2, &r), HK_OK);
    expect_text(&r, "const __half2 hk_b = reinterpret_cast<const __half2 *>(b)[hk_v];");
    add_job("vec_half_cmul2", r.text, r.len);
    rw_result_free(&r);

    /* refusals, each with its reason */
    static const struct {
        const char *kernel;
        int width;
        const char *reason;
    } no[] = {
        {"mixed_strides", 4, "different strides (elements per index): y 1, x 2"},
        {"past_pair", 4, "x[2 * i + 2] reaches past the 2 elements of its index"},
        {"twice_written", 4, "out[2 * i + 0] is written more than once per index"},
        {"half_written", 4, "out[2 * i + 1] is never written per index"},
        {"cond_written", 4, "out[2 * i + 1] is written inside a nested statement or under a condition"},
        {"even_reads", 4, "x reads only some of the 2 elements of each index"},
        {"triples", 4, "out[3 * i + 0] steps 3 elements per index"},
        {"moving_alias", 4, "pointer out is used other than as out[i] or out[s * i + k]"},
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, no[i].kernel), no[i].width, &r),
                         HK_OK);
        print_message("%s\n", r.description);
        expect_reason(&r, no[i].reason);
        rw_result_free(&r);
    }
    unload(&fx);

    /* rope_forward as written (early return, an alias e = pair * 2) and after the grid-stride
     * and table rewrites (a prologue before the loop) */
    load_path(SUITE "/rope.cu", &fx);
    assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "rope_forward"), 4, &r), HK_OK);
    print_message("%s\n", r.description);
    reanalyses(&r, "rope_forward");
    expect_text(&r, "const float4 hk_x = reinterpret_cast<const float4 *>(x)[hk_v];");
    expect_text(&r, "float4 hk_out;\n");
    expect_text(&r, "const long pair = hk_v * 2 + 1;");
    expect_text(&r, "float x0 = hk_x.z, x1 = hk_x.w;");
    expect_text(&r, "hk_out.w = x0 * s + x1 * c;");
    expect_text(&r, "reinterpret_cast<float4 *>(out)[hk_v] = hk_out;");
    assert_int_equal(count_of(r.text, "long e = pair * 2;"), 2);   /* the scalar loops only */
    add_job("vec_rope4", r.text, r.len);
    rw_result_free(&r);

    rw_result tab;
    rope_table_text(&fx, &tab);
    vectorize_text(tab.text, tab.len, "rope_forward", 4, &r);
    print_message("%s\n", r.description);
    reanalyses(&r, "rope_forward");
    const char *sync = strstr(r.text, "__syncthreads();");
    const char *vec = strstr(r.text, "// hk vectorize");
    assert_true(sync && vec && sync < vec);
    expect_text(&r, "__shared__ float hk_tab[HK_TABLE];");
    expect_text(&r, "const auto hk_n = pairs;");
    expect_text(&r, "? hk_tab[j] :");
    expect_text(&r, "float x0 = hk_x.x, x1 = hk_x.y;");
    expect_text(&r, "reinterpret_cast<float4 *>(out)[hk_v] = hk_out;");
    assert_non_null(strstr(r.description, "after a prologue kept before it"));
    add_job("vec_rope_table4", r.text, r.len);
    export_candidate("rope_forward", "table_vec4", &r);
    twice_says_already(&r, "rope_forward", do_vectorize, 4);
    rw_result_free(&r);
    rw_result_free(&tab);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* The emulation for kernels that synchronize (invariant_table's fill): each block's threads
 * run as host threads meeting at __syncthreads() (a barrier), __shared__ arrays are static
 * (blocks run one after another: the same blockDim.x threads run every block of a launch in
 * turn, meeting at one more barrier after each block), threadIdx and blockIdx are per
 * thread. */
static const char emu_sync_prelude[] =
    "#include <cuda_runtime.h>\n#include <math.h>\n#include <pthread.h>\n#include <stdio.h>\n"
    "#include <stdlib.h>\n#include <string.h>\n#include <thread>\n#include <vector>\n"
    "#undef __shared__\n#define __shared__ static\n"
    "static thread_local uint3 threadIdx, blockIdx;\nstatic dim3 blockDim, gridDim;\n"
    "static pthread_barrier_t emu_bar;\n#define __syncthreads() pthread_barrier_wait(&emu_bar)\n"
    "static float emu_val(size_t i, int s) { return (float)((i * 7919u + s * 104729u) % 2003u) * 0.01f - 10.0f; }\n"
    "template <class F> static void emu_launch(unsigned grid, unsigned block, F f)\n"
    "{\n    gridDim = dim3(grid, 1, 1); blockDim = dim3(block, 1, 1);\n"
    "    pthread_barrier_init(&emu_bar, NULL, block);\n"
    "    std::vector<std::thread> ts;\n"
    "    for (unsigned t = 0; t < block; t++)\n"
    "        ts.emplace_back([&f, grid, t] {\n"
    "            for (unsigned b = 0; b < grid; b++) {\n"
    "                blockIdx = make_uint3(b, 0, 0); threadIdx = make_uint3(t, 0, 0); f();\n"
    "                pthread_barrier_wait(&emu_bar);   /* block b is done before b + 1 starts */\n"
    "            }\n        });\n"
    "    for (auto &th : ts) th.join();\n    pthread_barrier_destroy(&emu_bar);\n}\n";

/* Queues in rope_batch the run of rope_forward of fx (the original) and of r's text under the
 * synchronizing emulation on odd pair counts (a table too small for one shape), the spec's
 * grid and small grids, aligned and misaligned pointers: want CXX_PASS when x and out must
 * end bit for bit equal, CXX_DIFFERS when the program must find a difference. */
static void emulate_rope(const fixture *fx, const rw_result *r, const char *tag, int want)
{
    an_model *cm;
    assert_int_equal(an_analyze(r->text, r->len, &cm), HK_OK);
    const an_function *of = &fx->m->funcs[kernel(fx, "rope_forward")];
    const an_function *cf = &cm->funcs[an_model_find_kernel(cm, "rope_forward")];
    char *prog = NULL;
    size_t prog_len = 0;
    FILE *f = open_memstream(&prog, &prog_len);
    assert_non_null(f);
    fprintf(f, "namespace orig {\n%.*s\n}\nnamespace cand {\n%.*s\n}\n",
            (int)(of->span.end_byte - of->span.start_byte), fx->text + of->span.start_byte,
            (int)(cf->span.end_byte - cf->span.start_byte), r->text + cf->span.start_byte);
    an_model_free(cm);
    fputs("int main(void)\n{\n"
          "    /* tokens, heads, dim: 0, 1, 45, 105, 6, 640 and 1100 pairs (half = 1100 > the table) */\n"
          "    static const int shapes[][3] = {{0, 1, 2}, {1, 1, 2}, {3, 5, 6}, {7, 3, 10}, {2, 3, 2}, {5, 4, 64}, {1, 1, 2200}};\n"
          "    int bad = 0;\n"
          "    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)\n"
          "    for (int off = 0; off < 2; off++)\n"
          "    for (int g = 0; g < 3; g++) {\n"
          "        const int T = shapes[si][0], H = shapes[si][1], D = shapes[si][2];\n"
          "        const size_t pairs = (size_t)T * H * (D / 2), total = 2 * pairs + 40;\n"
          "        const unsigned block = 32, full = pairs ? (unsigned)((pairs + block - 1) / block) : 1;\n"
          "        const unsigned grid = g == 0 ? full : g == 1 ? 3u : 1u;\n"
          "        float *xo = (float *)calloc(total, 4), *xc = (float *)calloc(total, 4);\n"
          "        float *oo = (float *)calloc(total, 4), *oc = (float *)calloc(total, 4);\n"
          "        for (size_t i = 0; i < total; i++) { xo[i] = xc[i] = emu_val(i, 3); oo[i] = oc[i] = emu_val(i, 4); }\n"
          "        emu_launch(full, block, [&] { orig::rope_forward(xo + off, oo + off, T, H, D, 10000.0f); });\n"
          "        emu_launch(grid, block, [&] { cand::rope_forward(xc + off, oc + off, T, H, D, 10000.0f); });\n"
          "        if (memcmp(xo, xc, total * 4) || memcmp(oo, oc, total * 4)) {\n"
          "            printf(\"differs: %d x %d x %d, off %d, grid %u\\n\", T, H, D, off, grid);\n"
          "            bad = 1;\n        }\n"
          "        free(xo); free(xc); free(oo); free(oc);\n    }\n"
          "    puts(bad ? \"FAIL\" : \"OK\");\n    return bad;\n}\n", f);
    assert_int_equal(fclose(f), 0);
    cxx_batch_add(&rope_batch, tag, prog, "OK", want);
    free(prog);
}

static void test_vectorize_strided_emulated(void **state)
{
    (void)state;
    if (access("/usr/local/cuda/include/cuda_fp16.h", R_OK) != 0 || system("g++ --version >/dev/null 2>&1") != 0) {
        print_message("skipped: no CUDA headers or no g++\n");
        skip();
    }
    open_vec_batch("strided");
    cxx_batch_init(&rope_batch, tmpdir, "rope", TEST_CXX,
                   "-std=c++17 -O1 -ffp-contract=off -w -pthread -I/usr/local/cuda/include", emu_sync_prelude);
    static const struct {
        const char *kernel;
        int per_index, widths[3];
    } cases[] = {
        {"swap_pairs", 2, {2, 4, 0}},
        {"quad_scale", 4, {4, 0, 0}},
        {"half_cmul", 2, {2, 4, 8}},
    };
    fixture fx;
    load("strided.cu", &fx);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int w = 0; w < 3 && cases[c].widths[w]; w++) {
            rw_result r;
            assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, cases[c].kernel),
                                          cases[c].widths[w], &r), HK_OK);
            assert_true(r.applicable);
            char tag[128];
            snprintf(tag, sizeof tag, "%s_w%d", cases[c].kernel, cases[c].widths[w]);
            emulate_strided(&fx, &r, cases[c].kernel, tag, cases[c].per_index, CXX_PASS);
            rw_result_free(&r);
        }
    unload(&fx);

    load_path(SUITE "/rope.cu", &fx);
    rw_result r, tab;
    for (int w = 2; w <= 4; w += 2) {
        assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "rope_forward"), w, &r), HK_OK);
        print_message("%s\n", r.description);
        assert_true(r.applicable);
        emulate_rope(&fx, &r, w == 2 ? "rope_w2" : "rope_w4", CXX_PASS);
        rw_result_free(&r);
    }
    rope_table_text(&fx, &tab);
    emulate_rope(&fx, &tab, "rope_table", CXX_PASS);   /* the table alone, for reference */
    vectorize_text(tab.text, tab.len, "rope_forward", 4, &r);
    assert_true(r.applicable);
    emulate_rope(&fx, &r, "rope_table_w4", CXX_PASS);
    /* the check can fail: lanes swapped in the store are caught */
    char *st = strstr(r.text, "hk_out.z = x0 * c - x1 * s;");
    assert_non_null(st);
    memcpy(st, "hk_out.y", 8);
    print_message("(a deliberately broken lane follows: its differences are expected)\n");
    emulate_rope(&fx, &r, "rope_broken", CXX_DIFFERS);
    rw_result_free(&r);
    rw_result_free(&tab);
    unload(&fx);
    cxx_batch_run(&vec_batch);
    cxx_batch_run(&rope_batch);
    assert_int_equal(hk_alloc_live(), 0);
}

/* ------------------------------------------------------------------ PTX evidence */

/* What one text's PTX must hold and lack (substrings): a check of nvb_add_ptx, run by
 * compiled_all on the text's own PTX. */
typedef struct {
    const char *absent[2], *present[3];
} ptx_want;

static void ptx_check(const char *name, const char *ptx, const void *arg)
{
    const ptx_want *w = arg;
    for (size_t i = 0; i < 2 && w->absent[i]; i++) {
        if (strstr(ptx, w->absent[i]))
            print_message("%s: `%s` in its PTX, expected none\n", name, w->absent[i]);
        assert_null(strstr(ptx, w->absent[i]));
    }
    for (size_t i = 0; i < 3 && w->present[i]; i++) {
        if (!strstr(ptx, w->present[i]))
            print_message("%s: no `%s` in its PTX\n", name, w->present[i]);
        assert_non_null(strstr(ptx, w->present[i]));
    }
}

/* Queues text's compile to PTX as NAME (nvcc -arch=sm_90 -ptx; -O3 changes only the host
 * code, which -ptx does not compile), checked by compiled_all against want. */
static void add_ptx_job(const char *name, const char *text, size_t len, const ptx_want *want)
{
    for (size_t i = 0; i < nvb_n_jobs; i++)
        if (!strcmp(nvb_jobs[i].name, name))
            fail_msg("compile check %s queued twice", name);
    nvb_add_ptx(tmpdir, name, text, len, false, ptx_check, want);
}

/* The machine-level evidence each rewrite promises: 16-byte loads and stores after
 * vectorizing (also for 8 halves in a uint4), the non-coherent read-only path after __ldg.
 * Each text, the original and the rewrite, is compiled to PTX once, in compiled_all's queue
 * (nvcc_batch.h: in few nvcc runs, each text's own PTX cut back out of its batch's), and
 * checked there for every instruction it must hold or lack. */
static void test_ptx_evidence(void **state)
{
    if (access(NVCC, X_OK) != 0) {
        print_message("skipped: no nvcc at %s\n", NVCC);
        skip();
    }
    static const struct {
        const char *file, *kernel, *rewrite;
        int arg;
        const char *before_absent[2], *after_present[2];
    } cases[] = {
        {"vector_add.cu", "vector_add", "vec", 4, {"ld.global.v4.f32", "st.global.v4.f32"},
         {"ld.global.v4.f32", "st.global.v4.f32"}},
        {"half_scale_bias.cu", "half_scale_bias", "vec", 8, {"ld.global.v4.u32", "st.global.v4.u32"},
         {"ld.global.v4.u32", "st.global.v4.u32"}},
        {"bf16_axpy.cu", "bf16_axpy", "vec", 8, {"ld.global.v4.u32"}, {"ld.global.v4.u32"}},
        {"saxpy.cu", "saxpy", "ldg", 0, {"ld.global.nc"}, {"ld.global.nc.f32"}},
        /* 2 pairs */
        {"rope.cu", "rope_forward", "vec", 4, {"ld.global.v4.f32", "st.global.v4.f32"},
         {"ld.global.v4.f32", "st.global.v4.f32"}},
    };
    /* what each text is checked for lives until compiled_all: before, after per case */
    static ptx_want wants[2 * HK_ARRAY_LEN(cases)];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[900];
        snprintf(path, sizeof path, "%s/%s", SUITE, cases[c].file);
        fixture fx;
        load_path(path, &fx);
        size_t k = kernel(&fx, cases[c].kernel);
        rw_result r;
        int rc = !strcmp(cases[c].rewrite, "vec") ? rw_vectorize(fx.text, fx.len, fx.m, k, cases[c].arg, &r)
                                                 : rw_readonly_loads(fx.text, fx.len, fx.m, k, false, &r);
        assert_int_equal(rc, HK_OK);
        assert_true(r.applicable);
        ptx_want *before = &wants[2 * c], *after = &wants[2 * c + 1];
        memset(before, 0, sizeof *before);
        memset(after, 0, sizeof *after);
        for (size_t i = 0; i < 2; i++) {
            before->absent[i] = cases[c].before_absent[i];
            after->present[i] = cases[c].after_present[i];
        }
        char tag[64];
        snprintf(tag, sizeof tag, "ptx_before_%zu", c);
        add_ptx_job(tag, fx.text, fx.len, before);
        snprintf(tag, sizeof tag, "ptx_after_%zu", c);
        add_ptx_job(tag, r.text, r.len, after);
        rw_result_free(&r);
        unload(&fx);
    }
    /* rope_forward after the grid-stride and table rewrites, vectorized: the table in
     * shared memory and the pairs as 16-byte loads and stores */
    static const ptx_want rope_table = {.present = {"ld.global.v4.f32", "st.global.v4.f32", "ld.shared.f32"}};
    fixture fx;
    load_path(SUITE "/rope.cu", &fx);
    rw_result tab, r;
    rope_table_text(&fx, &tab);
    vectorize_text(tab.text, tab.len, "rope_forward", 4, &r);
    assert_true(r.applicable);
    add_ptx_job("ptx_rope_table_vec4", r.text, r.len, &rope_table);
    rw_result_free(&r);
    rw_result_free(&tab);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* ------------------------------------------------------------------ allocation failures */

static void test_alloc_failure(void **state)
{
    fixture fx;
    load("elementwise.cu", &fx);
    fixture fm;
    load("fastmath.cu", &fm);
    fixture fu;
    load("unroll.cu", &fu);
    fixture fr;
    load("readonly.cu", &fr);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        long base = hk_alloc_live();   /* the fixtures' models */
        for (int which = 0; which < 5; which++) {
            for (long n = 1; n < 5000; n++) {
                rw_result a;
                hk_alloc_fail_after(n);
                int rc;
                switch (which) {
                case 0: rc = rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "ramp_early"), 4, &a); break;
                case 1: rc = rw_vectorize(fx.text, fx.len, fx.m, kernel(&fx, "half_add"), 8, &a); break;
                case 2: rc = rw_fast_math(fm.text, fm.len, fm.m, kernel(&fm, "divisions"), &a); break;
                case 3: rc = rw_unroll(fu.text, fu.len, fu.m, kernel(&fu, "box"), 0, &a); break;
                default: rc = rw_readonly_loads(fr.text, fr.len, fr.m, kernel(&fr, "gather"), false, &a); break;
                }
                hk_alloc_fail_after(0);
                bool done = rc == HK_OK && a.applicable;
                if (rc != HK_OK && rc != HK_ENOMEM && rc != HK_EPARSE)
                    _exit(2);
                rw_result_free(&a);
                if (hk_alloc_live() != base)
                    _exit(3);   /* a leak on some failure path */
                if (done)
                    break;
            }
        }
        _exit(0);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (WIFSIGNALED(st))
        print_message("allocation-failure run crashed (signal %d)\n", WTERMSIG(st));
    assert_false(WIFSIGNALED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    unload(&fx);
    unload(&fm);
    unload(&fu);
    unload(&fr);
    assert_int_equal(hk_alloc_live(), 0);
}

/* ------------------------------------------------------------------ the suite */

typedef struct {
    const char *tag;
    rewrite_fn fn;
    int arg;
} suite_rewrite;

static const suite_rewrite suite_rewrites[] = {
    {"vec2", do_vectorize, 2},   {"vec4", do_vectorize, 4},   {"vec8", do_vectorize, 8},
    {"ldg", do_readonly, 0},     {"unroll4", do_unroll, 4},   {"unroll_full", do_unroll, 0},
    {"fastmath", do_fast_math, 0},
};

/* Writes a candidate for the GPU check when HK_REWRITE_MEM_OUT names a directory. */
static void export_candidate(const char *kernel_name, const char *tag, const rw_result *r)
{
    const char *dir = getenv("HK_REWRITE_MEM_OUT");
    if (!dir || !*dir)
        return;
    mkdir(dir, 0755);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s__%s.cu", dir, kernel_name, tag);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(r->text, 1, r->len, f), r->len);
    fclose(f);
}

static bool applied(char (*names)[64], size_t n, const char *kernel_name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], kernel_name) == 0)
            return true;
    return false;
}

static void test_suite_kernels(void **state)
{
    DIR *d = opendir(SUITE);
    if (!d) {
        print_message("skipped: no kernel suite at %s\n", SUITE);
        skip();
    }
    char files[64][256];
    size_t n_files = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n_files < 64) {
        size_t l = strlen(de->d_name);
        if (l > 3 && strcmp(de->d_name + l - 3, ".cu") == 0)
            snprintf(files[n_files++], sizeof files[0], "%s", de->d_name);
    }
    closedir(d);
    qsort(files, n_files, sizeof files[0], (int (*)(const void *, const void *))strcmp);
    assert_true(n_files >= 15);
    /* which kernels each rewrite applied to */
    static char done[HK_ARRAY_LEN(suite_rewrites)][64][64];
    size_t n_done[HK_ARRAY_LEN(suite_rewrites)] = {0};
    for (size_t i = 0; i < n_files; i++) {
        char path[900];
        snprintf(path, sizeof path, "%s/%.255s", SUITE, files[i]);
        fixture fx;
        load_path(path, &fx);
        for (size_t k = 0; k < fx.m->n_funcs; k++) {
            const an_function *f = &fx.m->funcs[k];
            if (f->kind != AN_KERNEL)
                continue;
            for (size_t w = 0; w < HK_ARRAY_LEN(suite_rewrites); w++) {
                const suite_rewrite *sr = &suite_rewrites[w];
                rw_result r;
                assert_int_equal(sr->fn(fx.text, fx.len, fx.m, k, sr->arg, &r), HK_OK);
                assert_non_null(r.description);
                assert_true(strlen(r.description) > 20);
                print_message("%-16s %-12s %s\n", f->name, sr->tag, r.description);
                if (r.applicable) {
                    reanalyses(&r, f->name);
                    char name[300];
                    snprintf(name, sizeof name, "%s__%s", f->name, sr->tag);
                    add_job(name, r.text, r.len);
                    export_candidate(f->name, sr->tag, &r);
                    assert_true(n_done[w] < 64);
                    snprintf(done[w][n_done[w]++], 64, "%s", f->name);
                } else {
                    assert_null(r.text);
                }
                rw_result_free(&r);
            }
            /* vectorized, then fast math on the lanes: the composition compiles too */
            rw_result v, fm;
            assert_int_equal(rw_vectorize(fx.text, fx.len, fx.m, k, 4, &v), HK_OK);
            if (v.applicable) {
                an_model *vm;
                assert_int_equal(an_analyze(v.text, v.len, &vm), HK_OK);
                assert_int_equal(rw_fast_math(v.text, v.len, vm, (size_t)an_model_find_kernel(vm, f->name), &fm),
                                 HK_OK);
                if (fm.applicable) {
                    char name[300];
                    snprintf(name, sizeof name, "%s__vec4_fastmath", f->name);
                    add_job(name, fm.text, fm.len);
                    export_candidate(f->name, "vec4_fastmath", &fm);
                }
                rw_result_free(&fm);
                an_model_free(vm);
            }
            rw_result_free(&v);
            /* __restrict__ and const first (rewrite.h), then vectorized: the vector loads
             * of the read-only pointers may then take the non-coherent path */
            rw_result rs;
            assert_int_equal(rw_restrict(fx.text, fx.len, fx.m, k, true, &rs), HK_OK);
            for (int width = 4; rs.applicable && width <= 8; width *= 2) {
                an_model *rm;
                assert_int_equal(an_analyze(rs.text, rs.len, &rm), HK_OK);
                assert_int_equal(rw_vectorize(rs.text, rs.len, rm, (size_t)an_model_find_kernel(rm, f->name),
                                              width, &v), HK_OK);
                if (v.applicable) {
                    char name[300], tag[32];
                    snprintf(tag, sizeof tag, "restrict_vec%d", width);
                    snprintf(name, sizeof name, "%s__%s", f->name, tag);
                    add_job(name, v.text, v.len);
                    export_candidate(f->name, tag, &v);
                }
                rw_result_free(&v);
                an_model_free(rm);
            }
            rw_result_free(&rs);
        }
        unload(&fx);
    }
    /* where each rewrite must apply in the suite */
    static const char *const vec4_expected[] = {"vector_add", "saxpy", "quick_gelu", "relu_inplace",
                                                "half_scale_bias", "bf16_axpy"};
    for (size_t i = 0; i < HK_ARRAY_LEN(vec4_expected); i++)
        assert_true(applied(done[1], n_done[1], vec4_expected[i]));
    assert_true(applied(done[0], n_done[0], "half_scale_bias"));   /* __half2 */
    assert_true(applied(done[0], n_done[0], "bf16_axpy"));         /* __nv_bfloat162 */
    assert_true(applied(done[2], n_done[2], "half_scale_bias"));   /* 8 x half in a uint4 */
    assert_false(applied(done[1], n_done[1], "reduce_sum"));
    assert_false(applied(done[1], n_done[1], "sum_rows"));
    assert_true(applied(done[3], n_done[3], "stencil2d"));
    assert_false(applied(done[3], n_done[3], "relu_inplace"));
    assert_true(applied(done[4], n_done[4], "sum_rows"));
    assert_true(applied(done[4], n_done[4], "softmax"));
    assert_true(applied(done[6], n_done[6], "quick_gelu"));
    assert_true(applied(done[6], n_done[6], "softmax"));
    assert_false(applied(done[6], n_done[6], "saxpy"));
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectorize_float_int), cmocka_unit_test(test_vectorize_half_bf16),
        cmocka_unit_test(test_vectorize_refusals),  cmocka_unit_test(test_readonly_loads),
        cmocka_unit_test(test_readonly_loads_moved),
        cmocka_unit_test(test_unroll),              cmocka_unit_test(test_fast_math),
        cmocka_unit_test(test_vectorize_emulated),  cmocka_unit_test(test_ptx_evidence),
        cmocka_unit_test(test_vectorize_strided),   cmocka_unit_test(test_vectorize_strided_emulated),
        cmocka_unit_test(test_alloc_failure),
        cmocka_unit_test(test_suite_kernels),
        cmocka_unit_test(compiled_all), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
