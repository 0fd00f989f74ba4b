/* stencil_tile_1d (issue 13): 1-D stencils written several ways (a RADIUS macro, literal,
 * __constant__ and pointer weights, int, unsigned and size_t indices, a guard `i + R < n`,
 * two tap loops) get a shared tile with halo; the block emulator runs the original and the
 * rewritten kernels on ragged sizes (n below 2R+1, n not a multiple of the block) and block
 * sizes 4 to 128, under all three thread orders, with the input placed flush against a
 * guard page at either end (a read the original does not make crashes the run); every
 * output bit must match. Near-misses are refused with the construct and its line, and every
 * emitted text compiles with nvcc -arch=sm_90. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"

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
    return rwf_setup("rewrites-stencil1d");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* session 48's probe sp_stencil1d_radius: macro radius, literal weights, int */
static const char k_radius[] =
    "#define RADIUS 3\n"
    "__global__ void st(const float *in, float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= RADIUS && i < n - RADIUS) {\n"
    "        float result = 0.0f;\n"
    "        for (int off = -RADIUS; off <= RADIUS; off++)\n"
    "            result += in[i + off] * (1.0f / (1 + (off < 0 ? -off : off)));\n"
    "        out[i] = result;\n"
    "    }\n"
    "}\n";

/* issue 13's RADIUS 7, __constant__ weights, unsigned index, size_t n, `i + R < n`, double */
static const char k_const7[] =
    "#define RADIUS 7\n"
    "__constant__ double c_w[2 * RADIUS + 1];\n"
    "__global__ void st(const double *__restrict__ in, double *__restrict__ out, size_t n)\n"
    "{\n"
    "    unsigned i = threadIdx.x + blockIdx.x * blockDim.x;\n"
    "    if (RADIUS <= i && i + RADIUS < n) {\n"
    "        double acc = 0;\n"
    "        for (int r = -RADIUS; r <= RADIUS; ++r)\n"
    "            acc += c_w[r + RADIUS] * in[r + i];\n"
    "        out[i] = acc;\n"
    "    }\n"
    "}\n";

/* pointer weights, size_t index, literal radius 2, a single-statement if */
static const char k_ptr2[] =
    "__global__ void st(const float *in, const float *w, float *out, int n)\n"
    "{\n"
    "    size_t i = blockDim.x * blockIdx.x + threadIdx.x;\n"
    "    if (i > 1 && i + 2 < n)\n"
    "        {\n"
    "            float s = 0.f;\n"
    "            for (int k = -2; k <= 2; k += 1) s += w[k + 2] * in[i + k];\n"
    "            out[i] = s;\n"
    "        }\n"
    "}\n";

/* two tap loops (radius 4 then 1) into two outputs, long long index, the upper bound a product */
static const char k_two[] =
    "__global__ void st(const float *in, float *lo, float *hi, int n, int m)\n"
    "{\n"
    "    long long i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= 4 && i < (long long)n * m - 4) {\n"
    "        float a = 0.f, b = 0.f;\n"
    "        for (int v = -4; v <= 4; v++)\n"
    "            a = fmaxf(a, in[i + v]);\n"
    "        for (int v = -1; v <= 1; v++)\n"
    "            b += in[i + v] * 0.5f;\n"
    "        lo[i] = a;\n"
    "        hi[i] = b - a;\n"
    "    }\n"
    "}\n";

static char *applies(const char *src, const char *const *want)
{
    fixture fx;
    load_text(src, &fx);
    const rw_descriptor *d = rw_find("stencil_tile_1d");
    assert_non_null(d);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "st")};
    rw_result r;
    assert_int_equal(rw_apply(d, &ctx, NULL, &r, NULL), HK_OK);
    if (!r.applicable)
        print_message("refused: %s\n", r.description);
    assert_true(r.applicable);
    for (size_t i = 0; want && want[i]; i++) {
        if (!strstr(r.text, want[i]) && !strstr(r.description, want[i]))
            print_message("no `%s` in\n%s\n%s\n", want[i], r.description, r.text);
        assert_true(strstr(r.text, want[i]) || strstr(r.description, want[i]));
    }
    char *t = strdup(r.text);
    rw_result_free(&r);
    unload(&fx);
    return t;
}

static void spellings_get_a_tile(void **state)
{
    (void)state;
    static const char *const w1[] = {"__shared__ float hk_t1_tile[1024 + 2 * 3]",
                                     "hk_t1_tile[(int)threadIdx.x + 3 + off] : in[i + off])", "|v| <= 3", NULL};
    static const char *const w7[] = {"__shared__ double hk_t1_tile[1024 + 2 * 7]",
                                     "hk_t1_tile[(int)threadIdx.x + 7 + r] : in[r + i])", NULL};
    static const char *const w2[] = {"hk_t1_tile[(int)threadIdx.x + 2 + k] : in[i + k])", NULL};
    static const char *const w4[] = {"hk_t1_tile[(int)threadIdx.x + 4 + v] : in[i + v])", "|v| <= 4", NULL};
    const char *src[] = {k_radius, k_const7, k_ptr2, k_two};
    const char *const *want[] = {w1, w7, w2, w4};
    for (size_t i = 0; i < HK_ARRAY_LEN(src); i++) {
        char *t = applies(src[i], want[i]);
        char tag[32];
        snprintf(tag, sizeof tag, "t1_%zu", i);
        rwf_nvcc_compiles(t, tag);
        free(t);
    }
}

/* ---- near-misses ---- */

static const char k_refusals[] =
    "#define R 3\n"
    "__constant__ float c_weights[9];\n"
    /* grid-stride, clamped reads (sp_stencil1d_tmpl's form) */
    "__global__ void gs(const float *src, float *dst, int n)\n"                          /* 3 */
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {\n"
    "        float v = 0.0f;\n"
    "        for (int r = -R; r <= R; ++r) {\n"
    "            int j = i + r; if (j < 0) j = 0; if (j > n - 1) j = n - 1;\n"
    "            v += c_weights[r + R] * src[j];\n"
    "        }\n"
    "        dst[i] = v;\n"
    "    }\n"
    "}\n"
    /* the lower bound below the radius: i - 3 reads before the array */
    "__global__ void lowb(const float *in, float *out, int n)\n"                         /* 14 */
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= 1 && i < n - R) {\n"
    "        float s = 0.f;\n"
    "        for (int o = -R; o <= R; o++) s += in[i + o];\n"
    "        out[i] = s;\n"
    "    }\n"
    "}\n"
    /* a tap read under ?: (zero padding): not every tap is read */
    "__global__ void pad(const float *in, float *out, int n)\n"                          /* 23 */
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= R && i < n) {\n"
    "        float s = 0.f;\n"
    "        for (int o = -R; o <= R; o++) s += (i + o < n ? in[i + o] : 0.f);\n"
    "        out[i] = s;\n"
    "    }\n"
    "}\n"
    /* memory written before the window loop */
    "__global__ void early(const float *in, float *out, int n)\n"                        /* 32 */
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= R && i < n - R) {\n"
    "        out[i] = 0.f;\n"
    "        for (int o = -R; o <= R; o++) out[i] += in[i + o];\n"
    "    }\n"
    "}\n"
    /* a return before the window loop: the tile would read what the thread never does */
    "__global__ void ret(const float *in, const int *mask, float *out, int n)\n"         /* 40 */
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= R && i < n - R) {\n"
    "        if (!mask[i]) return;\n"
    "        float s = 0.f;\n"
    "        for (int o = -R; o <= R; o++) s += in[i + o];\n"
    "        out[i] = s;\n"
    "    }\n"
    "}\n"
    /* a guard that reads memory */
    "__global__ void memg(const float *in, const int *lim, float *out, int n)\n"         /* 50 */
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= R && i < lim[0]) {\n"
    "        float s = 0.f;\n"
    "        for (int o = -R; o <= R; o++) s += in[i + o];\n"
    "        out[i] = s;\n"
    "    }\n"
    "}\n"
    /* a short index wraps within the grid: not monotone */
    "__global__ void shortix(const float *in, float *out, int n)\n"                      /* 59 */
    "{\n"
    "    short i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= R && i < n - R) {\n"
    "        float s = 0.f;\n"
    "        for (int o = -R; o <= R; o++) s += in[i + o];\n"
    "        out[i] = s;\n"
    "    }\n"
    "}\n"
    /* the input written by the kernel */
    "__global__ void inplace(float *in, int n)\n"                                        /* 68 */
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= R && i < n - R) {\n"
    "        float s = 0.f;\n"
    "        for (int o = -R; o <= R; o++) s += in[i + o];\n"
    "        in[i] = s;\n"
    "    }\n"
    "}\n"
    /* sp_conv1d's form: the window starts at a temporary, taps outside the signal skipped */
    "__global__ void conv(const float *signal, const float *mask, float *out, int n)\n"  /* 77 */
    "{\n"
    "    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (tid < n) {\n"
    "        int start = (int)tid - 3;\n"
    "        float acc = 0.0f;\n"
    "        for (int j = 0; j < 7; j++)\n"
    "            if (start + j >= 0 && start + j < n)\n"
    "                acc += signal[start + j] * mask[j];\n"
    "        out[tid] = acc;\n"
    "    }\n"
    "}\n"
    /* the index shadowed inside the window loop's body */
    "__global__ void shadow(const float *in, float *out, int n)\n"                      /* 89 */
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= R && i < n - R) {\n"
    "        float s = 0.f;\n"
    "        for (int o = -R; o <= R; o++) { int i = 2 * R; s += in[i + o]; }\n"
    "        out[i] = s;\n"
    "    }\n"
    "}\n"
    /* a macro that hides a return before the window loop */
    "#define LEAVE_IF_ODD if (i & 1) return\n"                                          /* 98 */
    "__global__ void hidden(const float *in, float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= R && i < n - R) {\n"
    "        LEAVE_IF_ODD;\n"
    "        float s = 0.f;\n"
    "        for (int o = -R; o <= R; o++) s += in[i + o];\n"
    "        out[i] = s;\n"
    "    }\n"
    "}\n"
    /* a bound that is a macro of the index */
    "#define UPPER (n - R + (i & 1))\n"                                                 /* 109 */
    "__global__ void mguard(const float *in, float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= R && i < UPPER) {\n"
    "        float s = 0.f;\n"
    "        for (int o = -R; o <= R; o++) s += in[i + o];\n"
    "        out[i] = s;\n"
    "    }\n"
    "}\n";

static void near_misses_are_refused(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"gs", "statement", 5, "one declaration of the thread's x index"},
        {"lowb", "guard", 17, "no smaller than the radius (3)"},
        {"pad", "read", 28, "in is read other than as in[i + v]"},
        {"early", "write", 36, "before the last window loop ends"},
        {"ret", "if", 44, "before the last window loop ends"},
        {"memg", "guard", 53, "bounds free of it"},
        {"shortix", "statement", 61, "one declaration of the thread's x index"},
        {"inplace", "read", 74, "in is read other than as in[i + v]"},
        {"conv", "loop", 83, "no input read as IN[i + v]"},
        {"shadow", "index", 94, "one declaration of the thread's x index"},
        {"hidden", "if", 103, "before the last window loop ends"},
        {"mguard", "guard", 113, "bounds free of it"},
    };
    rwf_expect_refusals(k_refusals, "stencil_tile_1d", cases, HK_ARRAY_LEN(cases));
}

/* ---- emulated runs ---- */

/* The input: n elements flush against a PROT_NONE page at its end (side 1) or its start
 * (side 0), so that a read of in[-1] or in[n] that the original does not make crashes. */
static const char guard_helpers[] =
    "#include <sys/mman.h>\n"
    "template <class T> static T *hk_guarded(size_t n, int side)\n"
    "{\n"
    "    size_t pg = (size_t)sysconf(_SC_PAGESIZE), bytes = n * sizeof(T), span = (bytes + pg - 1) / pg * pg;\n"
    "    char *p = (char *)mmap(0, span + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n"
    "    mprotect(p, pg, PROT_NONE);\n"
    "    mprotect(p + pg + span, pg, PROT_NONE);\n"
    "    T *a = (T *)(side ? p + pg + span - bytes : p + pg);\n"
    "    for (size_t i = 0; i < n; i++)\n"
    "        a[i] = (T)((long long)((i * 7919u) % 101u) - 50) * (T)0.25;\n"
    "    return a;\n"
    "}\n";

static emu_batch batch;

/* pre: statements before the launches (constant memory); call: the kernel's call with in,
 * out_ (and out2_) and n */
static void emulate(const char *orig, const char *cand, const char *type, const char *pre,
                    const char *call, const char *tag)
{
    char *driver = hk_asprintf(
        "    static const int ns[] = {1, 2, 5, 7, 8, 13, 15, 16, 31, 100, 257};\n"
        "    static const int bs[] = {4, 5, 32, 48, 128};\n"
        "    %s\n"
        "    for (int s = 0; s < (int)(sizeof ns / sizeof ns[0]); s++)\n"
        "    for (int bi = 0; bi < (int)(sizeof bs / sizeof bs[0]); bi++)\n"
        "    for (int side = 0; side < 2; side++) {\n"
        "        int n = ns[s];\n"
        "        %s *in = hk_guarded<%s>((size_t)n, side);\n"
        "        emu::buf<%s> o(n), c(n), o2(n), c2(n);\n"
        "        o.set((%s)-7.25); c.set((%s)-7.25); o2.set((%s)-7.25); c2.set((%s)-7.25);\n"
        "        dim3 b(bs[bi]), g((n + bs[bi] - 1) / bs[bi] + 1);\n"
        "        emu::launch(g, b, 0, [&] { %s *out_ = o.ptr(), *out2_ = o2.ptr(); (void)out2_; orig::%s; });\n"
        "        emu::launch(g, b, 0, [&] { %s *out_ = c.ptr(), *out2_ = c2.ptr(); (void)out2_; cand::%s; });\n"
        "        char what[64];\n"
        "        snprintf(what, sizeof what, \"n %%d block %%d side %%d\", n, bs[bi], side);\n"
        "        emu::expect(what, o, c);\n"
        "        emu::expect(what, o2, c2);\n"
        "    }\n",
        pre, type, type, type, type, type, type, type, type, call, type, call);
    assert_non_null(driver);
    emu_batch_add_pair(&batch, tag, orig, cand, guard_helpers, driver, EMU_OK);
    hk_free(driver);
}

static void emulated_runs_match(void **state)
{
    (void)state;
    if (!emu_available()) {
        print_message("note: no g++ or CUDA headers, emulated runs skipped\n");
        return;
    }
    emu_batch_init(&batch, tmpdir, "stencil1d");
    struct { const char *src, *type, *pre, *call; } runs[] = {
        {k_radius, "float", "", "st(in, out_, n)"},
        {k_const7, "double",
         "for (int k = 0; k < 15; k++) { orig::c_w[k] = 0.125 * (k + 1); cand::c_w[k] = 0.125 * (k + 1); }",
         "st(in, out_, (size_t)n)"},
        {k_ptr2, "float", "static const float w5[5] = {0.5f, -1.25f, 2.0f, 0.75f, 3.0f};", "st(in, w5, out_, n)"},
        {k_two, "float", "", "st(in, out_, out2_, n, 1)"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(runs); i++) {
        char *t = applies(runs[i].src, NULL);
        char tag[32];
        snprintf(tag, sizeof tag, "t1_%zu", i);
        emulate(runs[i].src, t, runs[i].type, runs[i].pre, runs[i].call, tag);
        free(t);
    }
    emu_batch_run(&batch);
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spellings_get_a_tile),
        cmocka_unit_test(near_misses_are_refused),
        cmocka_unit_test(emulated_runs_match),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
