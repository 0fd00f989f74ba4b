/* interior_taps (issue 13, session 50): a tap loop that tests each tap's position against the
 * data's range gets an interior path without the test, taken when the test holds at the loop's
 * first and last trips with no wrap between them. Written as others write it -- sp_conv1d's
 * skipped taps (`if (start + j >= 0 && start + j < n)`, an unsigned thread index, a macro
 * length), sp_conv2d_ptr's `int ix = x + kx - half; if (ix < 0 || ix >= width) continue;` with a
 * run-time mask width, a `#pragma unroll` loop `for (int t = -R; t <= R; t += 1)` with the
 * bound on the left (`0 <= i + t && n > i + t`) -- each must apply and compile with nvcc, and
 * in the block emulator give the original's outputs bit for bit, on ragged sizes, with the
 * input flush against a guard page at either end (a read the original does not make crashes).
 * Two kernels whose test is true at both ends but false between them (an unsigned sum that
 * wraps; a signed one compared as unsigned) must take the original loop: without the wrap
 * checks (cut from the text) their outputs differ, and so do they with the proof replaced by
 * `true`. Near misses are refused with the construct and its line. */
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
    return rwf_setup("rewrites-taps");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* sp_conv1d's form: skipped taps, an unsigned thread index, the length a macro */
static const char k_conv1d[] =
    "#define MASK_LEN 7\n"
    "__global__ void tk(const float *signal, const float *mask, float *out, int n)\n"
    "{\n"
    "    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (tid < n) {\n"
    "        int start = (int)tid - MASK_LEN / 2;\n"
    "        float acc = 0.0f;\n"
    "        for (int j = 0; j < MASK_LEN; j++)\n"
    "            if (start + j >= 0 && start + j < n)\n"
    "                acc += signal[start + j] * mask[j];\n"
    "        out[tid] = acc;\n"
    "    }\n"
    "}\n";

/* sp_conv2d_ptr's form: a run-time mask width, `continue` for the taps outside, a local */
static const char k_conv2d[] =
    "__global__ void tk(const float *image, const float *kernel, float *output,\n"
    "                   int height, int width, int ksize)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (x >= width || y >= height)\n"
    "        return;\n"
    "    int half = ksize / 2;\n"
    "    float sum = 0.0f;\n"
    "    for (int ky = 0; ky < ksize; ++ky) {\n"
    "        int iy = y + ky - half;\n"
    "        if (iy < 0 || iy >= height)\n"
    "            continue;\n"
    "        for (int kx = 0; kx < ksize; ++kx) {\n"
    "            int ix = x + kx - half;\n"
    "            if (ix < 0 || ix >= width)\n"
    "                continue;\n"
    "            sum += image[iy * width + ix] * kernel[ky * ksize + kx];\n"
    "        }\n"
    "    }\n"
    "    output[y * width + x] = sum;\n"
    "}\n";

/* a pragma, `<=`, `+= 1`, the bounds on the left, a braced guard with an else, a statement
 * after the test, a long long bound */
static const char k_pragma[] =
    "#define R 2\n"
    "__global__ void tk(const double *in, double *out, long long n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        double s = 0.0, c = 0.0;\n"
    "#pragma unroll\n"
    "        for (int t = -R; t <= R; t += 1) {\n"
    "            const long long p = i + t;\n"
    "            if (0 <= p && n > p) {\n"
    "                s += in[p] * (t + 3);\n"
    "            } else {\n"
    "                c += 1.0;\n"
    "            }\n"
    "            c += 0.5;\n"
    "        }\n"
    "        out[i] = s - c;\n"
    "    }\n"
    "}\n";

/* sp_stencil1d_tmpl's form: a template radius, weights in __constant__, a grid-stride loop,
 * size_t indices, the ends clamped by two ifs that write the tap's local */
static const char k_clamp[] =
    "__constant__ float c_weights[9];\n"
    "template <int R>\n"
    "__global__ void tk(const float *__restrict__ src, float *__restrict__ dst, size_t n)\n"
    "{\n"
    "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {\n"
    "        float v = 0.0f;\n"
    "#pragma unroll\n"
    "        for (int r = -R; r <= R; ++r) {\n"
    "            long long j = (long long)i + r;\n"
    "            if (j < 0) j = 0;\n"
    "            if (j > (long long)n - 1) j = (long long)n - 1;\n"
    "            v += c_weights[r + R] * src[j];\n"
    "        }\n"
    "        dst[i] = v;\n"
    "    }\n"
    "}\n"
    "template __global__ void tk<4>(const float *__restrict__, float *__restrict__, size_t);\n";

/* an unsigned sum that wraps: true at j = 0 and j = 3, false at j = 1 when u = 2^32 - 2 and
 * lim = 2^32 - 1 */
static const char k_wrap[] =
    "__global__ void tk(const float *in, float *out, unsigned u, unsigned lim)\n"
    "{\n"
    "    float acc = 0.0f;\n"
    "    for (int j = 0; j < 4; j++)\n"
    "        if (u + j < lim)\n"
    "            acc += in[j];\n"
    "    out[threadIdx.x] = acc;\n"
    "}\n";

/* a signed sum compared as unsigned: -2 and 1 pass `< 2^32 - 1`, -1 does not */
static const char k_mixed[] =
    "__global__ void tk(const float *in, float *out, int i, unsigned n)\n"
    "{\n"
    "    float acc = 0.0f;\n"
    "    for (int j = 0; j < 4; ++j) {\n"
    "        if (i + j >= n)\n"
    "            continue;\n"
    "        acc += in[j];\n"
    "    }\n"
    "    out[threadIdx.x] = acc;\n"
    "}\n";

static char *applies(const char *src, const char *const *want)
{
    fixture fx;
    load_text(src, &fx);
    const rw_descriptor *d = rw_find("interior_taps");
    assert_non_null(d);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "tk")};
    rw_result r;
    assert_int_equal(rw_apply(d, &ctx, NULL, &r, NULL), HK_OK);
    if (!r.applicable)
        print_message("refused: %s\n", r.description);
    assert_true(r.applicable);
    assert_true(r.keeps_launch);
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

static void spellings_get_an_interior_path(void **state)
{
    (void)state;
    static const char *const w1[] = {
        "const bool hk_interior = (int)(0) < (MASK_LEN) &&",
        "(start + ((int)(0)) >= 0 && start + ((int)(0)) < n) &&",
        "(start + ((int)(MASK_LEN - 1)) >= 0 && start + ((int)(MASK_LEN - 1)) < n) &&",
        "(start + ((int)(0))) + 0 * (n) <= (start + ((int)(MASK_LEN - 1))) + 0 * (n);",
        "        for (int j = 0; j < MASK_LEN; j++)\n            acc += signal[start + j] * mask[j];\n        } else {",
        "line(s) 8", NULL};
    static const char *const w2[] = {
        "!(((int )(x + ((int)(0)) - half)) < 0 || ((int )(x + ((int)(0)) - half)) >= width) &&",
        "!(((int )(x + ((int)(ksize - 1)) - half)) < 0 ||",
        "/* the range test: passes on every trip */", "line(s) 14", NULL};
    static const char *const w3[] = {"const bool hk_interior = (int)(-R) <= (R) &&",
                                     "(0 <= ((long long )(i + ((int)(R)))) && n > ((long long )(i + ((int)(R)))))",
                                     "        #pragma unroll\n        for (int t = -R; t <= R; t += 1) {", NULL};
    static const char *const w4[] = {"(u + ((int)(0))) + 0 * (lim) <= (u + ((int)(4 - 1))) + 0 * (lim)", NULL};
    static const char *const w5[] = {"!(i + ((int)(0)) >= n) &&", NULL};
    static const char *const w6[] = {
        "const bool hk_interior = (int)(-R) <= (R) &&",
        "!(((long long )(( long long ) i + ((int)(-R)))) < 0) &&\n"
        "            !(((long long )(( long long ) i + ((int)(-R)))) > ( long long ) n - 1) &&\n"
        "            !(((long long )(( long long ) i + ((int)(R)))) < 0) &&",
        "            long long j = (long long)i + r;\n            /* the range test: passes on every trip */\n"
        "            v += c_weights[r + R] * src[j];", NULL};
    const char *src[] = {k_conv1d, k_conv2d, k_pragma, k_wrap, k_mixed, k_clamp};
    const char *const *want[] = {w1, w2, w3, w4, w5, w6};
    for (size_t i = 0; i < HK_ARRAY_LEN(src); i++) {
        char *t = applies(src[i], want[i]);
        char tag[32];
        snprintf(tag, sizeof tag, "taps_%zu", i);
        rwf_nvcc_compiles(t, tag);
        /* its own output: refused (the interior path is there) */
        fixture fx;
        load_text(t, &fx);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "tk")};
        rw_refusal why;
        assert_int_equal(rw_applies(rw_find("interior_taps"), &ctx, NULL, &why), HK_OK);
        assert_non_null(strstr(why.reason, "already has an interior path"));
        unload(&fx);
        free(t);
    }
}

/* ---- near-misses ---- */

static const char k_refusals[] =
    "#define M 5\n"
    "__global__ void flim(const float *in, float *out, float lim)\n"                     /* 2 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++)\n"
    "        if (j < lim) acc += in[j];\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void jw(const float *in, float *out, int n)\n"                           /* 9 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++) {\n"
    "        if (j < n) acc += in[j];\n"
    "        j += 1;\n"
    "    }\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void sw(const float *in, float *out, int n)\n"                           /* 18 */
    "{\n"
    "    float acc = 0.f;\n"
    "    int s = 0;\n"
    "    for (int j = 0; j < M; j++) {\n"
    "        if (s + j < n) acc += in[j];\n"
    "        s++;\n"
    "    }\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void bar(const float *in, float *out, int n)\n"                          /* 28 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++) {\n"
    "        if (j < n) acc += in[j];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void memb(const float *in, const int *lim, float *out)\n"                /* 37 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++)\n"
    "        if (j < lim[0]) acc += in[j];\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void scaled(const float *in, float *out, int n)\n"                       /* 44 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++)\n"
    "        if (2 * j < n) acc += in[j];\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void neq(const float *in, float *out, int n)\n"                          /* 51 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++)\n"
    "        if (j != n) acc += in[j];\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void notest(const float *in, float *out, int n)\n"                       /* 58 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < n; j++)\n"
    "        acc += in[j];\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void down(const float *in, float *out, int n)\n"                         /* 65 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = M; j > 0; j--)\n"
    "        if (j < n) acc += in[j];\n"
    "    out[0] = acc;\n"
    "}\n"
    "template <class T, T K>\n"
    "__global__ void tmpl(const float *in, float *out, int n)\n"                         /* 73 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < n; j++)\n"
    "        if (j + K < n) acc += in[j];\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void clamp(const float *src, float *dst, int n)\n"                       /* 80 */
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float v = 0.f;\n"
    "    for (int r = -2; r <= 2; ++r) {\n"
    "        int j = i + r; j |= 0;\n"
    "        if (j < 0) j = 0;\n"
    "        if (j > n - 1) j = n - 1;\n"
    "        v += src[j];\n"
    "    }\n"
    "    dst[i] = v;\n"
    "}\n"
    "__global__ void shar(const float *in, float *out, int n)\n"                         /* 92 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++) {\n"
    "        __shared__ float t[M];\n"
    "        if (j < n) acc += in[j];\n"
    "    }\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void noloop(const float *in, float *out, int n)\n"                       /* 101 */
    "{\n"
    "    int i = threadIdx.x; if (i < n) out[i] = in[i];\n"
    "}\n"
    "__global__ void twoj(const float *in, float *out, int n)\n"                         /* 105 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++)\n"
    "        if (j + j < n) acc += in[j];\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void shfl(const float *in, float *out, int n)\n"                         /* 112 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++) {\n"
    "        if (j < n) acc += in[j];\n"
    "        acc += __shfl_down_sync(0xffffffffu, acc, 1);\n"
    "    }\n"
    "    out[0] = acc;\n"
    "}\n"
    "__device__ void bump(int &x) { x += 1; }\n"                                        /* 121 */
    "__global__ void refp(const float *in, float *out, int n, int s)\n"
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++) {\n"
    "        if (s + j < n) acc += in[j];\n"
    "        bump(s);\n"
    "    }\n"
    "    out[0] = acc;\n"
    "}\n"
    "#define SET0(v) ((v) = 0)\n"                                                         /* 131 */
    "__global__ void mset(const float *in, float *out, int n, int s)\n"
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++) {\n"
    "        if (s + j < n) acc += in[j];\n"
    "        SET0(s);\n"
    "    }\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void brk(const float *in, float *out, int n, int s)\n"                   /* 141 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++) {\n"
    "        if (s + j < n) acc += in[j];\n"
    "        if (acc > 4.f) break;\n"
    "    }\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void skipfirst(const float *in, float *out, int n, int s)\n"             /* 150 */
    "{\n"
    "    float acc = 0.f;\n"
    "    for (int j = 0; j < M; j++) {\n"
    "        switch (j) { case 3: continue; default: break; }\n"
    "        if (s + j < n) acc += in[j];\n"
    "    }\n"
    "    out[0] = acc;\n"
    "}\n";

static void near_misses_are_refused(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"flim", "name", 6, "`lim` is not declared an integer"},
        {"jw", "name", 14, "`j` is written inside the loop"},
        {"sw", "name", 24, "`s` is written inside the loop"},
        {"bar", "loop", 33, "`__syncthreads` in the loop"},
        {"memb", "condition", 41, "the test is not comparisons"},
        {"scaled", "condition", 48, "the test is not comparisons"},
        {"neq", "condition", 55, "the test is not comparisons"},
        {"notest", "loop", 61, "its body has no range test"},
        {"down", "loop", 68, "its header is not"},
        {"tmpl", "name", 77, "`K` is not declared an integer"},
        {"clamp", "name", 85, "`j` is written inside the loop"},
        {"shar", "loop", 96, "`__shared__` in the loop"},
        {"noloop", "statement", 103, "no for loop in its body"},
        {"twoj", "condition", 109, "the test is not comparisons"},
        {"shfl", "loop", 117, "`__shfl` in the loop"},
        {"refp", "call", 127, "`bump` in the loop may write"},
        {"mset", "call", 137, "`SET0` in the loop may write"},
        {"brk", "loop", 146, "`break` in the loop: a trip that leaves early"},
        {"skipfirst", "loop", 154, "`continue` in the loop: a trip that leaves early (or skips the tests)"},
    };
    rwf_expect_refusals(k_refusals, "interior_taps", cases, HK_ARRAY_LEN(cases));
}

/* ---- emulated runs ---- */

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
    "        a[i] = (T)((long long)((i * 7919u) % 101u) - 50) * (T)0.3;\n"
    "    return a;\n"
    "}\n";

static const char drv_conv1d[] =
    "    static const int ns[] = {1, 2, 3, 5, 6, 7, 8, 13, 100, 257};\n"
    "    static const int bs[] = {4, 32, 128};\n"
    "    static const float mask[7] = {0.5f, -1.25f, 2.0f, 0.75f, 3.0f, -0.375f, 1.5f};\n"
    "    for (int s = 0; s < (int)(sizeof ns / sizeof ns[0]); s++)\n"
    "    for (int bi = 0; bi < (int)(sizeof bs / sizeof bs[0]); bi++)\n"
    "    for (int side = 0; side < 2; side++) {\n"
    "        int n = ns[s];\n"
    "        float *in = hk_guarded<float>((size_t)n, side);\n"
    "        char what[64];\n"
    "        snprintf(what, sizeof what, \"n %d block %d side %d\", n, bs[bi], side);\n"
    "        dim3 b(bs[bi]), g((n + bs[bi] - 1) / bs[bi] + 1);\n"
    "        PAIR(float, what, n, emu::launch(g, b, 0, [&] { NS::tk(in, mask, out.ptr(), n); }));\n"
    "    }\n";

static const char drv_conv2d[] =
    "    static const int hs[] = {1, 3, 7, 9, 20};\n"
    "    static const int ws[] = {1, 5, 7, 13, 33};\n"
    "    static const int ks[] = {0, 1, 3, 5, 7, 8};\n"
    "    float kern[64];\n"
    "    for (int k = 0; k < 64; k++) kern[k] = 0.125f * (float)((k * 37) % 17) - 1.0f;\n"
    "    for (int hi = 0; hi < 5; hi++)\n"
    "    for (int wi = 0; wi < 5; wi++)\n"
    "    for (int ki = 0; ki < 6; ki++)\n"
    "    for (int side = 0; side < 2; side++) {\n"
    "        int h = hs[hi], w = ws[wi], ks_ = ks[ki];\n"
    "        float *in = hk_guarded<float>((size_t)h * w, side);\n"
    "        char what[80];\n"
    "        snprintf(what, sizeof what, \"%dx%d ksize %d side %d\", h, w, ks_, side);\n"
    "        dim3 b(8, 4), g((w + 7) / 8 + 1, (h + 3) / 4);\n"
    "        PAIR(float, what, h * w, emu::launch(g, b, 0, [&] { NS::tk(in, kern, out.ptr(), h, w, ks_); }));\n"
    "    }\n";

static const char drv_pragma[] =
    "    static const int ns[] = {1, 2, 3, 4, 5, 9, 64};\n"
    "    for (int s = 0; s < (int)(sizeof ns / sizeof ns[0]); s++)\n"
    "    for (int side = 0; side < 2; side++) {\n"
    "        int n = ns[s];\n"
    "        double *in = hk_guarded<double>((size_t)n, side);\n"
    "        char what[64];\n"
    "        snprintf(what, sizeof what, \"n %d side %d\", n, side);\n"
    "        dim3 b(32), g((n + 31) / 32);\n"
    "        PAIR(double, what, n, emu::launch(g, b, 0, [&] { NS::tk(in, out.ptr(), (long long)n); }));\n"
    "    }\n";

static const char drv_clamp[] =
    "    static const int ns[] = {1, 2, 3, 5, 8, 9, 10, 17, 100, 257};\n"
    "    for (int k = 0; k < 9; k++) { orig::c_weights[k] = 0.25f * (float)(k + 1) - 1.0f; cand::c_weights[k] = orig::c_weights[k]; }\n"
    "    for (int s = 0; s < (int)(sizeof ns / sizeof ns[0]); s++)\n"
    "    for (int gi = 0; gi < 2; gi++)\n"
    "    for (int side = 0; side < 2; side++) {\n"
    "        int n = ns[s];\n"
    "        float *in = hk_guarded<float>((size_t)n, side);\n"
    "        char what[64];\n"
    "        snprintf(what, sizeof what, \"n %d grid %d side %d\", n, gi, side);\n"
    "        dim3 b(32), g(gi ? 1 : (n + 31) / 32);\n"
    "        PAIR(float, what, n, emu::launch(g, b, 0, [&] { NS::tk<4>(in, out.ptr(), (size_t)n); }));\n"
    "    }\n";

/* u = 2^32 - 2, lim = 2^32 - 1: the test passes at j = 0 and j = 3 and fails at j = 1; the
 * other values do not wrap */
static const char drv_wrap[] =
    "    static const float in[4] = {1.0f, 10.0f, 100.0f, 1000.0f};\n"
    "    static const unsigned us[] = {4294967294u, 0u, 5u, 4294967290u};\n"
    "    static const unsigned ls[] = {4294967295u, 3u, 100u, 4294967295u};\n"
    "    for (int k = 0; k < 4; k++) {\n"
    "        char what[64];\n"
    "        snprintf(what, sizeof what, \"u %u lim %u\", us[k], ls[k]);\n"
    "        PAIR(float, what, 1, emu::launch(dim3(1), dim3(1), 0, [&] { NS::tk(in, out.ptr(), us[k], ls[k]); }));\n"
    "    }\n";

/* i = -2, n = 2^32 - 1: (unsigned)(i + j) >= n at j = 1 only */
static const char drv_mixed[] =
    "    static const float in[4] = {1.0f, 10.0f, 100.0f, 1000.0f};\n"
    "    static const int is[] = {-2, 0, 1, -7};\n"
    "    static const unsigned ns[] = {4294967295u, 3u, 100u, 4294967295u};\n"
    "    for (int k = 0; k < 4; k++) {\n"
    "        char what[64];\n"
    "        snprintf(what, sizeof what, \"i %d n %u\", is[k], ns[k]);\n"
    "        PAIR(float, what, 1, emu::launch(dim3(1), dim3(1), 0, [&] { NS::tk(in, out.ptr(), is[k], ns[k]); }));\n"
    "    }\n";

/* The text with the wrap checks cut: every line holding `+ 0 * (` removed, and the `&&` that
 * ended the line before them made the end of the declaration. */
static char *without_wrap_checks(const char *t)
{
    size_t n = strlen(t);
    char *o = malloc(n + 1);
    assert_non_null(o);
    size_t w = 0;
    const char *p = t;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) + 1 : strlen(p);
        char line[512];
        size_t c = l < sizeof line - 1 ? l : sizeof line - 1;
        memcpy(line, p, c);
        line[c] = 0;
        if (strstr(line, "+ 0 * (")) {
            /* end the previous line's declaration: its trailing " &&\n" becomes ";\n" */
            if (w >= 4 && !memcmp(o + w - 4, " &&\n", 4)) {
                w -= 4;
                memcpy(o + w, ";\n", 2);
                w += 2;
            }
        } else {
            memcpy(o + w, p, l);
            w += l;
        }
        p += l;
    }
    o[w] = 0;
    return o;
}

static void emulated_runs_match(void **state)
{
    (void)state;
    if (!emu_available()) {
        print_message("note: no g++ or CUDA headers, emulated runs skipped\n");
        return;
    }
    static emu_batch b; /* zeroed: emu_batch_init frees the cases a batch already holds */
    emu_batch_init(&b, tmpdir, "taps");
    struct { const char *src, *drv; } runs[] = {
        {k_conv1d, drv_conv1d}, {k_conv2d, drv_conv2d}, {k_pragma, drv_pragma},
        {k_wrap, drv_wrap}, {k_mixed, drv_mixed}, {k_clamp, drv_clamp},
    };
    char *helpers = hk_asprintf("%s%s", guard_helpers, EMU_PAIR);
    assert_non_null(helpers);
    for (size_t i = 0; i < HK_ARRAY_LEN(runs); i++) {
        char *t = applies(runs[i].src, NULL);
        char tag[32];
        snprintf(tag, sizeof tag, "taps_%zu", i);
        emu_batch_add_pair(&b, tag, runs[i].src, t, helpers, runs[i].drv, EMU_OK);
        /* broken: the interior path taken without the proof */
        char *always = emu_replaced(t, "const bool hk_interior = ", "const bool hk_interior = true || ");
        snprintf(tag, sizeof tag, "taps_%zu_always", i);
        /* the convolutions read outside their data there: the guard page stops them */
        emu_batch_add_pair(&b, tag, runs[i].src, always, helpers, runs[i].drv, i < 3 || i == 5 ? EMU_CRASHED : EMU_DIFFERS);
        free(always);
        if (i == 3 || i == 4) {
            /* broken: the wrap checks cut, the ends' tests kept */
            char *nowrap = without_wrap_checks(t);
            assert_null(strstr(nowrap, "+ 0 * ("));
            snprintf(tag, sizeof tag, "taps_%zu_nowrap", i);
            emu_batch_add_pair(&b, tag, runs[i].src, nowrap, helpers, runs[i].drv, EMU_DIFFERS);
            free(nowrap);
        }
        free(t);
    }
    hk_free(helpers);
    emu_batch_run(&b);
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spellings_get_an_interior_path),
        cmocka_unit_test(near_misses_are_refused),
        cmocka_unit_test(emulated_runs_match),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
