/* Tests of rw_grid_stride_2d (rewrites/rewrite_grid2d.h): the suite's matadd2d.cu and inline
 * kernels of the other shapes rewrite into a flattened grid-stride loop with the contiguous
 * index fastest, re-analyse cleanly and compile with the real nvcc -arch=sm_90 -cubin (also after
 * rw_launch_config gives them the SM-multiple 1-D launch the search uses); the rewritten
 * kernels run emulated on the CPU (g++, threads one after the other) under several grid and
 * block shapes and write exactly what the originals write; each refusal gives its reason; a
 * second application says "already"; allocation failures neither crash nor leak. Stencils
 * (the suite's stencil2d among them) get the register-window form: emulated on ragged,
 * misaligned, 1-row and 1-column grids, and through ptxas -v and the PTX (no stack, float4
 * loads, a float4 store per row); kernels it does not take keep the strips loop with the
 * reason. No nvcc or g++: those checks say so and are skipped. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_grid2d.h"
#include "runners/runner.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "nvcc_batch.h" /* after NVCC */
#include "cxx_batch.h"
#define BENCH HK_SOURCE_DIR "/bench/kernels"

static char tmpdir[512];

/* Every emulation of the run, queued by the tests as they go (cxx_batch.h) and built in one
 * g++ run by test_emulated_runs, the last test: each program still runs in a process of its
 * own and is named, with its output, when it does not print its count of checked launches. */
static cxx_batch emu_batch;
static int emu_state;   /* 0: not looked for g++ yet, 1: the batch takes programs, -1: no g++ */

static int setup(void **state)
{
    (void)state;
    const char *why;
    if (an_grammar_check(&why) != HK_OK)
        return -1;
    snprintf(tmpdir, sizeof tmpdir, "%s/test-rewrite-grid2d-XXXXXX", HK_BINARY_DIR);
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    if (nvb_n_jobs) { /* texts queued after test_launch_compiles, or it is not listed */
        fprintf(stderr, "error: %zu queued compile checks never ran\n", nvb_n_jobs);
        return -1;
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    cxx_batch_free(&emu_batch);
    return system(cmd) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------ helpers */

typedef struct {
    char *text;
    size_t len;
    an_model *m;
    size_t k;
} fixture;

static void load_text(const char *src, const char *kname, fixture *fx)
{
    fx->text = strdup(src);
    assert_non_null(fx->text);
    fx->len = strlen(src);
    assert_int_equal(an_analyze(fx->text, fx->len, &fx->m), HK_OK);
    assert_false(fx->m->has_errors);
    long k = an_model_find_kernel(fx->m, kname);
    if (k < 0)
        print_message("no kernel %s\n", kname);
    assert_true(k >= 0);
    fx->k = (size_t)k;
}

static void load_path(const char *path, const char *kname, fixture *fx)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        print_message("cannot open %s\n", path);
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    load_text(b, kname, fx);
    free(b);
}

static void unload(fixture *fx)
{
    an_model_free(fx->m);
    free(fx->text);
}

static void expect_text(const rw_result *r, const char *needle)
{
    if (!r->text || !strstr(r->text, needle))   /* fprintf: print_message truncates long texts */
        fprintf(stderr, "expected `%s` in:\n%s\n", needle, r->text ? r->text : "(no text)");
    assert_non_null(r->text);
    assert_non_null(strstr(r->text, needle));
}

static void expect_no_text(const rw_result *r, const char *needle)
{
    if (strstr(r->text, needle))
        print_message("did not expect `%s` in:\n%s\n", needle, r->text);
    assert_null(strstr(r->text, needle));
}

/* The rewrite applies, re-analyses cleanly and keeps the kernel. */
static void rewrite_ok(const fixture *fx, rw_result *r)
{
    int rc = rw_grid_stride_2d(fx->text, fx->len, fx->m, fx->k, r);
    if (rc != HK_OK || !r->applicable)
        print_message("rc %d: %s\n", rc, r->description ? r->description : "(none)");
    assert_int_equal(rc, HK_OK);
    assert_true(r->applicable);
    assert_non_null(r->description);
    assert_int_equal(strlen(r->text), r->len);
    an_model *m;
    assert_int_equal(an_analyze(r->text, r->len, &m), HK_OK);
    assert_false(m->has_errors);
    assert_true(an_model_find_kernel(m, fx->m->funcs[fx->k].name) >= 0);
    an_model_free(m);
}

/* Not applicable, with needle in the reason. */
static void refused(const char *src, const char *kname, const char *needle)
{
    fixture fx;
    load_text(src, kname, &fx);
    rw_result r;
    assert_int_equal(rw_grid_stride_2d(fx.text, fx.len, fx.m, fx.k, &r), HK_OK);
    if (r.applicable || !r.description || !strstr(r.description, needle))
        print_message("expected a refusal with `%s`, got: %s\n%s\n", needle,
                      r.description ? r.description : "(none)", r.text ? r.text : "");
    assert_false(r.applicable);
    assert_null(r.text);
    assert_non_null(strstr(r.description, needle));
    rw_result_free(&r);
    unload(&fx);
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* Runs cmd; its output (up to size bytes) in out; the exit status. */
static int run_cmd(const char *cmd, char *out, size_t size)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    return pclose(p);
}

/* Queues text's compile check with nvcc -arch=sm_90 -cubin (device code only), where a
 * warning fails it too (nvb_add_strict): test_launch_compiles, listed last, compiles the
 * queue in few nvcc runs and names a text that fails alone, with nvcc's output. */
static void nvcc_compiles(const char *text, const char *tag)
{
    if (access(NVCC, X_OK) != 0) {
        print_message("note: no nvcc at %s, compile check of %s skipped\n", NVCC, tag);
        return;
    }
    nvb_add_strict(tmpdir, tag, text, strlen(text));
}

/* The text of the kernel named kname in text (malloc'd). */
static char *kernel_text(const char *text, const char *kname)
{
    an_model *m;
    assert_int_equal(an_analyze(text, strlen(text), &m), HK_OK);
    long k = an_model_find_kernel(m, kname);
    assert_true(k >= 0);
    const an_span *sp = &m->funcs[k].span;
    char *t = strndup(text + sp->start_byte, sp->end_byte - sp->start_byte);
    assert_non_null(t);
    an_model_free(m);
    return t;
}

/* CPU emulation: the original and the rewritten kernel (each in its namespace) run every
 * thread of a launch one after the other; the original under a 2-D grid of 16x16 blocks that
 * covers the matrix whichever axis holds which index, the rewrite under launches smaller and
 * larger than the matrix, 1-D, 2-D and 3-D. call: the kernel call on in1, in2, out, rows,
 * cols (e.g. "k(in1, in2, out, rows, cols)"). Outputs must be equal bit for bit. */
static const char emu_head[] =
    "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <cstddef>\n#include <algorithm>\n"
    "struct dim3 { unsigned x, y, z; };\n"
    "static dim3 threadIdx, blockIdx, blockDim, gridDim;\n"
    "#define __global__\n#define __restrict__\n#define __device__\n"
    "struct float4 { float x, y, z, w; };\n";

static const char emu_main[] =
    "template <class K> static void launch(dim3 g, dim3 b, K k) {\n"
    "    gridDim = g; blockDim = b;\n"
    "    for (unsigned bz = 0; bz < g.z; bz++) for (unsigned by = 0; by < g.y; by++)\n"
    "    for (unsigned bx = 0; bx < g.x; bx++) for (unsigned tz = 0; tz < b.z; tz++)\n"
    "    for (unsigned ty = 0; ty < b.y; ty++) for (unsigned tx = 0; tx < b.x; tx++) {\n"
    "        blockIdx = {bx, by, bz}; threadIdx = {tx, ty, tz}; k();\n"
    "    }\n"
    "}\n"
    "int main() {\n"
    "    const int shapes[][2] = {{37, 53}, {64, 33}, {1, 70}, {45, 1}, {0, 9}};\n"
    "    const dim3 launches[][2] = {{{3, 1, 1}, {64, 1, 1}}, {{2, 3, 1}, {8, 4, 1}},\n"
    "        {{1, 1, 1}, {32, 1, 1}}, {{2, 2, 2}, {4, 4, 2}}, {{40, 40, 1}, {16, 16, 1}},\n"
    "        {{500, 1, 1}, {256, 1, 1}}};\n"
    "    int checked = 0;\n"
    "    for (const auto &sh : shapes) {\n"
    "        int rows = sh[0], cols = sh[1];\n"
    "        size_t n = (size_t)rows * cols + 1;\n"
    "        float *in1 = (float *)malloc(n * sizeof(float)), *in2 = (float *)malloc(n * sizeof(float));\n"
    "        float *ref = (float *)malloc(n * sizeof(float)), *out = (float *)malloc(n * sizeof(float));\n"
    "        for (size_t i = 0; i < n; i++) { in1[i] = (float)((i * 7919) % 1000) / 8.0f; in2[i] = (float)((i * 104729) % 777) / 4.0f; }\n"
    "        for (size_t i = 0; i < n; i++) ref[i] = -777.0f;\n"
    "        unsigned cover = (unsigned)(std::max(rows, cols) + 15) / 16;\n"
    "        { float *out = ref; launch({cover, cover, 1}, {16, 16, 1}, [&] { orig::CALL; }); }\n"
    "        for (const auto &l : launches) {\n"
    "            for (size_t i = 0; i < n; i++) out[i] = -777.0f;\n"
    "            launch(l[0], l[1], [&] { rw::CALL; });\n"
    "            if (memcmp(out, ref, n * sizeof(float)) != 0) {\n"
    "                for (size_t i = 0; i < n; i++) if (out[i] != ref[i]) {\n"
    "                    printf(\"MISMATCH %dx%d grid %u,%u,%u block %u,%u,%u at %zu: %g != %g\\n\", rows, cols,\n"
    "                           l[0].x, l[0].y, l[0].z, l[1].x, l[1].y, l[1].z, i, out[i], ref[i]);\n"
    "                    return 1;\n"
    "                }\n"
    "            }\n"
    "            checked++;\n"
    "        }\n"
    "        free(in1); free(in2); free(ref); free(out);\n"
    "    }\n"
    "    printf(\"EMU OK %d\\n\", checked);\n"
    "    return 0;\n"
    "}\n";

/* The stencils' emulation: ragged shapes, 1-row and 1-column grids, fast bounds that are
 * and are not multiples of 4, each with every array 16-byte aligned, in1 misaligned by one
 * float and out misaligned by one float (the float4 paths taken and not). */
static const char emu_stencil_main[] =
    "template <class K> static void launch(dim3 g, dim3 b, K k) {\n"
    "    gridDim = g; blockDim = b;\n"
    "    for (unsigned bz = 0; bz < g.z; bz++) for (unsigned by = 0; by < g.y; by++)\n"
    "    for (unsigned bx = 0; bx < g.x; bx++) for (unsigned tz = 0; tz < b.z; tz++)\n"
    "    for (unsigned ty = 0; ty < b.y; ty++) for (unsigned tx = 0; tx < b.x; tx++) {\n"
    "        blockIdx = {bx, by, bz}; threadIdx = {tx, ty, tz}; k();\n"
    "    }\n"
    "}\n"
    "int main() {\n"
    "    const int shapes[][2] = {{37, 53}, {64, 32}, {1, 70}, {1, 8}, {45, 1}, {0, 9}, {1, 1}, {2, 8},\n"
    "        {9, 4}, {30, 44}, {301, 503}};\n"
    "    const dim3 launches[][2] = {{{3, 1, 1}, {64, 1, 1}}, {{2, 3, 1}, {8, 4, 1}},\n"
    "        {{1, 1, 1}, {32, 1, 1}}, {{2, 2, 2}, {4, 4, 2}}, {{40, 40, 1}, {16, 16, 1}},\n"
    "        {{500, 1, 1}, {256, 1, 1}}};\n"
    "    int checked = 0;\n"
    "    for (const auto &sh : shapes) for (int mis = 0; mis < 3; mis++) {\n"
    "        int rows = sh[0], cols = sh[1];\n"
    "        size_t n = (size_t)rows * cols + 1;\n"
    "        float *b1 = (float *)malloc((n + 4) * sizeof(float)), *b2 = (float *)malloc((n + 4) * sizeof(float));\n"
    "        float *bref = (float *)malloc((n + 4) * sizeof(float)), *bout = (float *)malloc((n + 4) * sizeof(float));\n"
    "        float *in1 = b1 + (mis == 1), *in2 = b2, *ref = bref + (mis == 2), *out = bout + (mis == 2);\n"
    "        for (size_t i = 0; i < n; i++) { in1[i] = (float)((i * 7919) % 1000) / 8.0f; in2[i] = (float)((i * 104729) % 777) / 4.0f; }\n"
    "        for (size_t i = 0; i < n; i++) ref[i] = -777.0f + (float)(i % 5);\n"
    "        unsigned cover = (unsigned)(std::max(rows, cols) + 15) / 16;\n"
    "        { float *out = ref; launch({cover, cover, 1}, {16, 16, 1}, [&] { orig::CALL; }); }\n"
    "        for (const auto &l : launches) {\n"
    "            for (size_t i = 0; i < n; i++) out[i] = -777.0f + (float)(i % 5);\n"
    "            launch(l[0], l[1], [&] { rw::CALL; });\n"
    "            if (memcmp(out, ref, n * sizeof(float)) != 0) {\n"
    "                for (size_t i = 0; i < n; i++) if (out[i] != ref[i]) {\n"
    "                    printf(\"MISMATCH %dx%d misaligned %d grid %u,%u,%u block %u,%u,%u at %zu: %g != %g\\n\", rows,\n"
    "                           cols, mis, l[0].x, l[0].y, l[0].z, l[1].x, l[1].y, l[1].z, i, out[i], ref[i]);\n"
    "                    return 1;\n"
    "                }\n"
    "            }\n"
    "            checked++;\n"
    "        }\n"
    "        free(b1); free(b2); free(bref); free(bout);\n"
    "    }\n"
    "    printf(\"EMU OK %d\\n\", checked);\n"
    "    return 0;\n"
    "}\n";

/* Queues the emulation of kname's original against its rewrite (see emu_batch). */
static void emulate_with(const char *orig_text, const char *new_text, const char *kname, const char *call,
                         const char *tag, const char *main_text, const char *expect)
{
    if (emu_state == 0) {   /* g++, through the compile cache when the run has one */
        char cmd[600];
        snprintf(cmd, sizeof cmd, "'%s' --version >/dev/null 2>&1", TEST_CXX);
        emu_state = system(cmd) == 0 ? 1 : -1;
        if (emu_state == 1)
            cxx_batch_init(&emu_batch, tmpdir, "grid2d", TEST_CXX, "-std=c++17 -O1 -ffp-contract=off", emu_head);
    }
    if (emu_state < 0) {
        print_message("note: no g++, CPU emulation of %s skipped\n", tag);
        return;
    }
    char *ko = kernel_text(orig_text, kname), *kn = kernel_text(new_text, kname);
    size_t cap = strlen(ko) + strlen(kn) + strlen(main_text) + 512;
    char *src = malloc(cap);
    assert_non_null(src);
    snprintf(src, cap, "#define CALL %s\nnamespace orig {\n%s\n}\nnamespace rw {\n%s\n}\n%s", call, ko, kn,
             main_text);
    cxx_batch_add(&emu_batch, tag, src, expect, CXX_PASS);
    free(src);
    free(ko);
    free(kn);
}

static void emulate(const char *orig_text, const char *new_text, const char *kname, const char *call,
                    const char *tag)
{
    emulate_with(orig_text, new_text, kname, call, tag, emu_main, "EMU OK 30");
}

static void emulate_stencil(const char *orig_text, const char *new_text, const char *kname, const char *call,
                            const char *tag)
{
    emulate_with(orig_text, new_text, kname, call, tag, emu_stencil_main, "EMU OK 198");
}

/* ------------------------------------------------------------------ applicable */

/* r, kname's rewrite, under the search's launch for the grid2d skills (an SM-multiple 1-D
 * grid of 256-thread blocks) compiles; a second application says "already". */
static void sm_multiple_and_again(const rw_result *r, const char *kname)
{
    an_model *m2;
    assert_int_equal(an_analyze(r->text, r->len, &m2), HK_OK);
    rw_launch want = {.block = {256, 1, 1}, .sm_multiple = true, .grid_per_sm = 8};
    rw_result l;
    int rc = rw_launch_config(r->text, r->len, m2, kname, &want, false, &l, NULL);
    if (rc != HK_OK || !l.applicable)
        print_message("launch config: rc %d %s\n", rc, l.description ? l.description : "");
    assert_int_equal(rc, HK_OK);
    assert_true(l.applicable);
    assert_non_null(strstr(l.text, "hk_sm_count() * 8"));
    /* not strict: rw_launch_config leaves the launcher's `dim3 block(16, 16)` unused; queued
     * (nvcc_batch.h) and compiled with the others by test_launch_compiles */
    char tag[128];
    snprintf(tag, sizeof tag, "%s_sm_multiple", kname);
    nvb_add(tmpdir, tag, l.text, l.len);
    rw_result_free(&l);
    size_t k2 = (size_t)an_model_find_kernel(m2, kname);
    rw_result again;
    assert_int_equal(rw_grid_stride_2d(r->text, r->len, m2, k2, &again), HK_OK);
    assert_false(again.applicable);
    assert_non_null(strstr(again.description, "already"));
    rw_result_free(&again);
    an_model_free(m2);
}

static void test_matadd2d_bench(void **state)
{
    (void)state;
    fixture fx;
    load_path(BENCH "/matadd2d.cu", "matadd2d", &fx);
    rw_result r;
    rewrite_ok(&fx, &r);
    /* x gave r, but c is the contiguous index: c is the fast one now; every access is the
     * element r * cols + c, so the elements are walked flat, four at a time */
    expect_text(&r, "const long long hk_ns = (long long)rows, hk_nf = (long long)cols;");
    expect_text(&r, "const long long hk_n = hk_ns * hk_nf;");
    expect_text(&r, "const long long hk_n4 = ((reinterpret_cast<unsigned long long>(C) | "
                    "reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(B)) & 15) == 0 "
                    "? hk_n / 4 : 0;");
    expect_text(&r, "const float4 hk_q1 = reinterpret_cast<const float4 *>(A)[hk_v];");
    expect_text(&r, "const float4 hk_q2 = reinterpret_cast<const float4 *>(B)[hk_v];");
    expect_text(&r, "hk_w.w = alpha * hk_q1.w + beta * hk_q2.w;");
    expect_text(&r, "reinterpret_cast<float4 *>(C)[hk_v] = hk_w;");
    expect_text(&r, "for (long long hk_e = hk_n4 * 4 + hk_tid; hk_e < hk_n; hk_e += hk_nthreads)");
    expect_text(&r, "C[hk_e] = alpha * A[hk_e] + beta * B[hk_e];");
    expect_no_text(&r, "if (r < rows && c < cols)");
    expect_no_text(&r, "HK_STRIP");
    assert_non_null(strstr(r.description, "c (contiguous; was from the y axis) fastest"));
    assert_non_null(strstr(r.description, "float4 when aligned"));
    /* the launcher is untouched: the rewrite is correct under the old 2-D launch too */
    expect_text(&r, "dim3 block(16, 16);");
    nvcc_compiles(r.text, "matadd2d");
    emulate(fx.text, r.text, "matadd2d", "matadd2d(in1, in2, out, rows, cols, 1.5f, -0.25f)", "matadd2d");

    sm_multiple_and_again(&r, "matadd2d");
    rw_result_free(&r);
    unload(&fx);
}

/* x already gives the contiguous index (16x16 blocks): the loop keeps it fastest */
static const char k_xfast[] =
    "__global__ void scale2d(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)\n"
    "{\n"
    "    const unsigned c = threadIdx.x + blockIdx.x * blockDim.x;\n"
    "    const unsigned r = blockDim.y * blockIdx.y + threadIdx.y;\n"
    "    const float k = 2.0f;\n"
    "    if (c < cols && rows > r) {\n"
    "        // one element\n"
    "        out[r * cols + c] = k * in[r * cols + c] + 1.0f;\n"
    "    }\n"
    "}\n";

static void test_x_already_contiguous(void **state)
{
    (void)state;
    fixture fx;
    load_text(k_xfast, "scale2d", &fx);
    rw_result r;
    rewrite_ok(&fx, &r);
    expect_text(&r, "const float k = 2.0f;\n    // hk grid_stride_2d");
    expect_text(&r, "hk_ns = (long long)rows, hk_nf = (long long)cols;");
    /* elementwise on contiguous rows: flat, the destination only written */
    expect_text(&r, "hk_w.x = k * hk_q1.x + 1.0f;");
    expect_text(&r, "out[hk_e] = k * in[hk_e] + 1.0f;");
    expect_no_text(&r, "reinterpret_cast<const float4 *>(out)");
    assert_non_null(strstr(r.description, "c (contiguous; was from the x axis) fastest"));
    nvcc_compiles(r.text, "xfast");
    emulate(fx.text, r.text, "scale2d", "scale2d(in1, out, rows, cols)", "xfast");
    rw_result_free(&r);
    unload(&fx);
}

/* column-major data: r is contiguous, so r becomes the fast index */
static const char k_colmajor[] =
    "__global__ void colmaj(const float *a, float *o, int rows, int cols)\n"
    "{\n"
    "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (r >= rows || c >= cols)\n"
    "        return;\n"
    "    o[c * rows + r] = a[(size_t)c * rows + r] * 3.0f;\n"
    "}\n";

static void test_column_major_return_form(void **state)
{
    (void)state;
    fixture fx;
    load_text(k_colmajor, "colmaj", &fx);
    rw_result r;
    rewrite_ok(&fx, &r);
    expect_text(&r, "hk_ns = (long long)cols, hk_nf = (long long)rows;");
    expect_text(&r, "hk_w.z = hk_q1.z * 3.0f;");
    expect_text(&r, "o[hk_e] = a[hk_e] * 3.0f;");
    expect_no_text(&r, "return;");
    assert_non_null(strstr(r.description, "if (... >= ...) return"));
    nvcc_compiles(r.text, "colmaj");
    emulate(fx.text, r.text, "colmaj", "colmaj(in1, out, rows, cols)", "colmaj");
    rw_result_free(&r);
    unload(&fx);
}

/* two guards, size_t indices, a flattened offset (alias) and a row pointer, a per-element
 * declaration between the indices and the guard, a hoisted one, several statements */
static const char k_alias[] =
    "__global__ void bias_relu(const float *x, const float *bias, float *y, int rows, int cols)\n"
    "{\n"
    "    size_t col = (size_t)blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    const size_t at = row * cols + col;\n"
    "    const float lo = 0.0f;\n"
    "    if (row >= rows) return;\n"
    "    if (col >= cols) { return; }\n"
    "    const float *xr = x + row * cols;\n"
    "    float v = xr[col] + bias[col];\n"
    "    if (v < lo)\n"
    "        v = lo;\n"
    "    y[at] = v;\n"
    "}\n";

static void test_aliases_guards(void **state)
{
    (void)state;
    fixture fx;
    load_text(k_alias, "bias_relu", &fx);
    rw_result r;
    rewrite_ok(&fx, &r);
    expect_text(&r, "const float lo = 0.0f;\n    // hk grid_stride_2d");
    expect_text(&r, "hk_ns = (long long)rows, hk_nf = (long long)cols;");
    expect_text(&r, "const size_t row = (size_t)hk_s;");
    expect_text(&r, "const size_t col = (size_t)hk_f;");
    expect_text(&r, "                    const size_t at = row * cols + col;\n");
    expect_text(&r, "                    if (v < lo)\n                        v = lo;\n");
    nvcc_compiles(r.text, "alias");
    emulate(fx.text, r.text, "bias_relu", "bias_relu(in1, in2, out, rows, cols)", "alias");
    rw_result_free(&r);
    unload(&fx);
}

/* auto index, parenthesized comparisons, an interleaved (r * W + c) * 2 subscript */
static const char k_auto[] =
    "__global__ void pairs(const float *in, float *out, int rows, int cols)\n"
    "{\n"
    "    auto c = (blockIdx.y) * blockDim.y + threadIdx.y;\n"
    "    auto r = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if ((c < cols) && (r < rows)) {\n"
    "        out[r * cols + c] = in[(r * cols + c) * 2] - in[(r * cols + c) * 2 + 1];\n"
    "    }\n"
    "}\n";

/* in place: the destination is also read, so its float4 is loaded before the store */
static const char k_inplace[] =
    "__global__ void axpy2d(float *x, const float *y, int rows, int cols)\n"
    "{\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (r < rows && c < cols)\n"
    "        x[cols * r + c] = 2.0f * x[r * cols + c] - y[c + r * cols];\n"
    "}\n";

/* the row index used as a value: not elementwise in memory order, the general loop */
static const char k_rowvalue[] =
    "__global__ void addrow(const float *in, float *out, int rows, int cols)\n"
    "{\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (r < rows && c < cols)\n"
    "        out[r * cols + c] = in[r * cols + c] + (float)r;\n"
    "}\n";

static void test_flat_inplace_and_general(void **state)
{
    (void)state;
    fixture fx;
    load_text(k_inplace, "axpy2d", &fx);
    rw_result r;
    rewrite_ok(&fx, &r);
    expect_text(&r, "const float4 hk_q0 = reinterpret_cast<const float4 *>(x)[hk_v];");
    expect_text(&r, "const float4 hk_q1 = reinterpret_cast<const float4 *>(y)[hk_v];");
    expect_text(&r, "hk_w.y = 2.0f * hk_q0.y - hk_q1.y;");
    expect_text(&r, "x[hk_e] = 2.0f * x[hk_e] - y[hk_e];");
    nvcc_compiles(r.text, "inplace");
    emulate(fx.text, r.text, "axpy2d", "axpy2d(out, in1, rows, cols)", "inplace");
    rw_result_free(&r);
    unload(&fx);

    load_text(k_rowvalue, "addrow", &fx);
    rewrite_ok(&fx, &r);
    expect_text(&r, "for (long long hk_s = hk_s0; hk_s < hk_s1; hk_s++)");
    expect_no_text(&r, "float4");
    emulate(fx.text, r.text, "addrow", "addrow(in1, out, rows, cols)", "rowvalue");
    rw_result_free(&r);
    unload(&fx);
}

static void test_auto_interleaved(void **state)
{
    (void)state;
    fixture fx;
    load_text(k_auto, "pairs", &fx);
    rw_result r;
    rewrite_ok(&fx, &r);
    expect_text(&r, "const decltype((blockIdx.y) * blockDim.y + threadIdx.y) c = "
                    "(decltype((blockIdx.y) * blockDim.y + threadIdx.y))hk_f;");
    nvcc_compiles(r.text, "auto");
    emulate(fx.text, r.text, "pairs", "pairs(in1, out, rows, cols / 2)", "auto");
    rw_result_free(&r);
    unload(&fx);
}

/* The PTX check of nvcc_registers_float4: float4 loads, at least *arg float4 stores. */
static void float4_check(const char *name, const char *ptx, const void *arg)
{
    int min_v4_stores = *(const int *)arg;
    bool ld4 = strstr(ptx, "ld.global.v4.f32") || strstr(ptx, "ld.global.nc.v4.f32");
    int st4 = 0;
    for (const char *q = ptx; (q = strstr(q, "st.global.v4.f32")); q++)
        st4++;
    if (!ld4 || st4 < min_v4_stores)
        print_message("PTX of %s: float4 loads %d, float4 stores %d (want %d)\n", name, ld4, st4, min_v4_stores);
    assert_true(ld4);
    assert_true(st4 >= min_v4_stores);
}

/* nvcc -arch=sm_90 of text through ptxas -v: the text compiles without a warning
 * (nvcc_compiles' check, in the same run) and the kernel keeps its window in registers (no
 * stack frame, no spills); and its PTX (queued: test_launch_compiles compiles the PTX texts
 * in few nvcc runs, each text's own PTX cut back out of its batch's, nvcc_batch.h) loads
 * float4s and has at least min_v4_stores float4 stores (one per row of a unit: HK_ROWS). */
static void nvcc_registers_float4(const char *text, const char *tag, int min_v4_stores)
{
    if (access(NVCC, X_OK) != 0) {
        print_message("note: no nvcc at %s, register check of %s skipped\n", NVCC, tag);
        return;
    }
    char src[700], cmd[2200];
    static char out[65536];
    snprintf(src, sizeof src, "%s/%s_regs.cu", tmpdir, tag);
    assert_int_equal(write_file(src, text), 0);
    snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -cubin -std=c++17 -Xptxas -v -o %s/%s_regs.cubin %s 2>&1", NVCC, tmpdir, tag,
             src);
    int st = run_cmd(cmd, out, sizeof out);
    if (st != 0 || strstr(out, "warning") || !strstr(out, "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"))
        print_message("ptxas -v on %s:\n%s\n", tag, out);
    assert_int_equal(st, 0);
    assert_null(strstr(out, "warning"));   /* nvcc_compiles' check too: this is the text's compile check */
    assert_non_null(strstr(out, "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"));
    /* the wants live until test_launch_compiles */
    static int mins[16];
    static size_t n_mins;
    assert_true(n_mins < HK_ARRAY_LEN(mins));
    mins[n_mins] = min_v4_stores;
    char name[300];
    snprintf(name, sizeof name, "%s_ptx", tag);
    nvb_add_ptx(tmpdir, name, text, strlen(text), false, float4_check, &mins[n_mins++]);
}

/* The rewrite applies in the window form; the reason is in the description otherwise. */
static void expect_window(const rw_result *r)
{
    if (!strstr(r->description, "a stencil: units of 4 x HK_ROWS points"))
        print_message("not the window form: %s\n", r->description);
    assert_non_null(strstr(r->description, "a stencil: units of 4 x HK_ROWS points"));
    expect_text(r, "constexpr int HK_ROWS = 4;");
    expect_no_text(r, "HK_STRIP");
}

/* the suite's stencil2d: x is contiguous already; each thread takes units of 4 x 4 points
 * evaluated from register windows; units at the edges run the original code, whose
 * boundary `return;` ends one point (`continue;`) */
static void test_stencil_window_bench(void **state)
{
    (void)state;
    fixture fx;
    load_path(BENCH "/stencil2d.cu", "stencil2d", &fx);
    rw_result r;
    rewrite_ok(&fx, &r);
    expect_window(&r);
    expect_text(&r, "hk_ns = (long long)h, hk_nf = (long long)w;");
    expect_text(&r, "const bool hk_vec = hk_nf % 4 == 0 && ((reinterpret_cast<unsigned long long>(out) | "
                    "reinterpret_cast<unsigned long long>(in)) & 15) == 0;");
    /* units of 4 x HK_ROWS, the grid stride taken without a division per unit */
    expect_text(&r, "const long long hk_nfu = (hk_nf + 3) / 4, hk_nsu = (hk_ns + HK_ROWS - 1) / HK_ROWS;");
    expect_text(&r, "const long long hk_dq = hk_nthreads / hk_nfu, hk_dr = hk_nthreads % hk_nfu;");
    expect_text(&r, "long long hk_fu = hk_tid % hk_nfu, hk_su = hk_tid / hk_nfu;");
    expect_text(&r, "while (hk_su < hk_nsu) {");
    expect_text(&r, "const long long hk_f0 = hk_fu * 4, hk_s0 = hk_su * HK_ROWS;");
    expect_text(&r, "hk_fu += hk_dr;\n                hk_su += hk_dq;\n                if (hk_fu >= hk_nfu) {\n");
    /* the unit's windows inside the grid: rows y - 1 .. y + 1 and columns x - 1 .. x + 1 */
    expect_text(&r, "if (hk_s0 >= 1 && hk_s0 + HK_ROWS + 1 <= hk_ns && hk_f0 >= 1 && hk_f0 + 5 <= hk_nf) {");
    expect_text(&r, "float hk_a1[HK_ROWS + 2][6];");
    expect_text(&r, "const float *hk_p = in + (hk_s0 + hk_j - 1) * hk_nf + hk_f0;");
    expect_text(&r, "const float4 hk_q = *reinterpret_cast<const float4 *>(hk_p);");
    expect_text(&r, "hk_a1[hk_j][4] = hk_q.w;");
    expect_text(&r, "hk_a1[hk_j][1 - hk_c] = hk_p[-hk_c];");
    expect_text(&r, "hk_a1[hk_j][4 + hk_c] = hk_p[3 + hk_c];");
    /* each point from the registers, the indices bound to it */
    expect_text(&r, "const int y = (int)(hk_s0 + hk_r);");
    expect_text(&r, "const int x = (int)(hk_f0 + hk_c);");
    expect_text(&r, "/* i: read from the registers */\n");
    expect_text(&r, "{ hk_m0[hk_r][hk_c] = true; hk_o0[hk_r][hk_c] = hk_a1[hk_r + 1][hk_c + 1]; }\n"
                    "                                continue;\n");
    expect_text(&r, "{ hk_m0[hk_r][hk_c] = true; hk_o0[hk_r][hk_c] = 0.2f * (hk_a1[hk_r + 1][hk_c + 1] + "
                    "hk_a1[hk_r + 1][hk_c + 0] + hk_a1[hk_r + 1][hk_c + 2] + hk_a1[hk_r + 0][hk_c + 1] + "
                    "hk_a1[hk_r + 2][hk_c + 1]); }");
    /* stores 4 at a time when all 4 were written */
    expect_text(&r, "if (hk_vec && hk_m0[hk_r][0] && hk_m0[hk_r][1] && hk_m0[hk_r][2] && hk_m0[hk_r][3]) {");
    expect_text(&r, "reinterpret_cast<float4 *>(out)[((hk_s0 + hk_r) * hk_nf + hk_f0) / 4] = hk_w;");
    /* the edges: the original code per point */
    expect_text(&r, "for (long long hk_s = hk_s0; hk_s < hk_s0 + HK_ROWS && hk_s < hk_ns; hk_s++) {");
    expect_text(&r, "                                out[i] = in[i];\n                                continue;\n");
    expect_text(&r, "out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);");
    expect_no_text(&r, "return");
    expect_text(&r, "|ds| <= 1 and |df| <= 1");
    const char *dump_dir = getenv("HK_RWP_DUMP_DIR");   /* for bench/explore/variants.cu */
    if (dump_dir && *dump_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/stencil2d.grid_stride_2d.cu", dump_dir);
        assert_int_equal(write_file(path, r.text), 0);
    }
    nvcc_registers_float4(r.text, "stencil2d", 4);   /* also its strict compile check */
    emulate_stencil(fx.text, r.text, "stencil2d", "stencil2d(in1, out, rows, cols)", "stencil2d");

    sm_multiple_and_again(&r, "stencil2d");
    rw_result_free(&r);
    unload(&fx);
}

/* two read arrays, one reaching two rows and two columns (|ds| = |df| = 2), the other only
 * the element; restrict pointers; subscripts spelled (y - 2) * w + x and y * w + (x + 2) */
static const char k_reach2[] =
    "__global__ void lap4(const float *__restrict__ u, const float *__restrict__ k, float *__restrict__ o,\n"
    "                     int ny, int nx)\n"
    "{\n"
    "    int ix = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int iy = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (ix < nx && iy < ny) {\n"
    "        float v = k[iy * nx + ix] * u[iy * nx + ix];\n"
    "        if (iy >= 2 && iy < ny - 2)\n"
    "            v += u[(iy - 2) * nx + ix] - u[(iy + 2) * nx + ix];\n"
    "        if (ix >= 2 && ix + 2 < nx)\n"
    "            v += 0.5f * (u[iy * nx + ix - 2] + u[iy * nx + (ix + 2)]);\n"
    "        if (iy > 0)\n"
    "            v -= 0.125f * u[nx * (iy - 1) + ix];\n"
    "        o[iy * nx + ix] = v;\n"
    "    }\n"
    "}\n";

static void test_stencil_two_arrays_reach2(void **state)
{
    (void)state;
    fixture fx;
    load_text(k_reach2, "lap4", &fx);
    rw_result r;
    rewrite_ok(&fx, &r);
    expect_window(&r);
    expect_text(&r, "|ds| <= 2 and |df| <= 2");
    expect_text(&r, "if (hk_s0 >= 2 && hk_s0 + HK_ROWS + 2 <= hk_ns && hk_f0 >= 2 && hk_f0 + 6 <= hk_nf) {");
    /* k only at the element: a window of the unit itself; u two around it */
    expect_text(&r, "float hk_a0[HK_ROWS + 0][4];");
    expect_text(&r, "float hk_a1[HK_ROWS + 4][8];");
    expect_text(&r, "v += hk_a1[hk_r + 0][hk_c + 2] - hk_a1[hk_r + 4][hk_c + 2];");
    expect_text(&r, "v += 0.5f * (hk_a1[hk_r + 2][hk_c + 0] + hk_a1[hk_r + 2][hk_c + 4]);");
    expect_text(&r, "v -= 0.125f * hk_a1[hk_r + 1][hk_c + 2];");
    expect_text(&r, "{ hk_m2[hk_r][hk_c] = true; hk_o2[hk_r][hk_c] = v; }");
    nvcc_registers_float4(r.text, "reach2", 4);   /* also its strict compile check */
    emulate_stencil(fx.text, r.text, "lap4", "lap4(in1, in2, out, rows, cols)", "reach2");
    rw_result_free(&r);
    unload(&fx);
}

/* column-major (r contiguous, from x), the return form, a declaration moved into the loop,
 * in place: x is read and written at the element, a compound assignment, an unbraced else */
static const char k_inplace_stencil[] =
    "__global__ void relax(float *x, const float *b, int rows, int cols)\n"
    "{\n"
    "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    const long at = (long)c * rows + r;\n"
    "    if (r >= rows || c >= cols)\n"
    "        return;\n"
    "    if (r > 0 && c + 1 < cols)\n"
    "        x[at] += 0.25f * (b[at - 1] + b[at + rows]);\n"
    "    else\n"
    "        x[at] = x[at] * 2.0f;\n"
    "}\n";

static void test_stencil_inplace_column_major(void **state)
{
    (void)state;
    fixture fx;
    load_text(k_inplace_stencil, "relax", &fx);
    rw_result r;
    rewrite_ok(&fx, &r);
    expect_window(&r);
    expect_text(&r, "hk_ns = (long long)cols, hk_nf = (long long)rows;");
    expect_text(&r, "const int c = (int)(hk_s0 + hk_r);");
    expect_text(&r, "const int r = (int)(hk_f0 + hk_c);");
    expect_text(&r, "/* at: read from the registers */\n");
    /* x: the staged values start from memory, read back from the stage */
    expect_text(&r, "hk_o0[hk_j][hk_c] = hk_a0[hk_j][hk_c];");
    expect_text(&r, "{ hk_m0[hk_r][hk_c] = true; hk_o0[hk_r][hk_c] += 0.25f * (hk_a1[hk_r + 1][hk_c + 0] + "
                    "hk_a1[hk_r + 2][hk_c + 1]); }");
    expect_text(&r, "{ hk_m0[hk_r][hk_c] = true; hk_o0[hk_r][hk_c] = hk_o0[hk_r][hk_c] * 2.0f; }");
    nvcc_registers_float4(r.text, "inplace_stencil", 4);   /* also its strict compile check */
    emulate_stencil(fx.text, r.text, "relax", "relax(out, in1, rows, cols)", "inplace_stencil");
    rw_result_free(&r);
    unload(&fx);
}

/* a stencil the window form does not take: |df| = 3. The strips form, whose boundary
 * `return;` ends one element (`continue;`), with the reason in the description. */
static const char k_reach3[] =
    "__global__ void wide(const float *in, float *out, int h, int w)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (x >= w || y >= h)\n"
    "        return;\n"
    "    size_t i = (size_t)y * w + x;\n"
    "    if (x < 3 || x + 3 >= w) {\n"
    "        out[i] = in[i];\n"
    "        return;\n"
    "    }\n"
    "    out[i] = 0.5f * (in[i - 3] + in[i + 3]);\n"
    "}\n";

static void test_stencil_return_becomes_continue(void **state)
{
    (void)state;
    fixture fx;
    load_text(k_reach3, "wide", &fx);
    rw_result r;
    rewrite_ok(&fx, &r);
    expect_text(&r, "hk_ns = (long long)h, hk_nf = (long long)w;");
    expect_text(&r, "const int y = (int)hk_s;");
    expect_text(&r, "const int x = (int)hk_f;");
    expect_text(&r, "                        out[i] = in[i];\n                        continue;\n");
    /* strips of rows walked in order by each thread (the neighbour rows stay in L1) */
    expect_text(&r, "constexpr long long HK_STRIP = 16;");
    expect_text(&r, "const long long hk_f = hk_u % hk_nf, hk_s0 = hk_u / hk_nf * HK_STRIP;");
    expect_no_text(&r, "return");
    expect_no_text(&r, "HK_ROWS");
    assert_non_null(strstr(r.description, "(no register windows: `in[i - 3]` is not an element"));
    nvcc_compiles(r.text, "wide");
    emulate(fx.text, r.text, "wide", "wide(in1, out, rows, cols)", "wide");
    rw_result_free(&r);
    unload(&fx);
}

/* kernels the window form does not take: the strips form, the reason in the description */
static void strips_because(const char *body, const char *params, const char *needle)
{
    char src[2048];
    snprintf(src, sizeof src,
             "__global__ void st(%s, int h, int w)\n{\n"
             "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
             "    if (x >= w || y >= h)\n        return;\n"
             "    size_t i = (size_t)y * w + x;\n"
             "%s}\n", params, body);
    fixture fx;
    load_text(src, "st", &fx);
    rw_result r;
    rewrite_ok(&fx, &r);
    expect_text(&r, "HK_STRIP");
    if (!strstr(r.description, needle))
        print_message("expected `%s` in: %s\n", needle, r.description);
    assert_non_null(strstr(r.description, "(no register windows: "));
    assert_non_null(strstr(r.description, needle));
    rw_result_free(&r);
    unload(&fx);
}

static void test_stencil_not_windowed(void **state)
{
    (void)state;
    const char *io = "const float *in, float *out";
    strips_because("    if (x > 0) out[i] = in[i - 1];\n    out[i + 1] = 0.0f;\n", io,
                   "`out[i + 1]` writes a neighbour of the element");
    strips_because("    if (x > 0) out[i] = out[i - 1] + in[i];\n", io,
                   "out is written and read at a neighbour");
    strips_because("    if (x > 0 && m[i]) out[i] = in[i - 1];\n", "const float *in, float *out, const int *m",
                   "m is used other than as a float element");
    strips_because("    float t;\n    if (x > 0) t = out[i] = in[i - 1];\n", io, "is written inside an expression");
    strips_because("    if (x > 0) out[i] = in[i - 1] + in[2 * i];\n", io,
                   "`in[2 * i]` is not an element (s + ds) * W + (f + df)");
    strips_because("    if (y > 0) out[i] = in[i - w] * in[i - 3 * w];\n", io, "`in[i - 3 * w]` is not an element");
    strips_because("    out[i] = in[i] * 2.0f + (float)x;\n", io, "no read of a neighbour element (not a stencil)");
    strips_because("    const float *row = in + (size_t)y * w;\n    if (x > 0) out[i] = row[x - 1];\n", io,
                   "a pointer or reference row is computed from the indices");
    strips_because("    if (x > 0) out[i] = in[i - 1] + in[i + x];\n", io, "`in[i + x]` is not an element");
    strips_because("    if (x > 0) out[i] = in[i - 1] * hk_scale;\n", "const float *in, float *out, float hk_scale",
                   "a name of the rewrite's own kind (hk_scale)");
}

/* ------------------------------------------------------------------ refusals */

static void test_refusals(void **state)
{
    (void)state;
    refused("__global__ void tr(const float *A, float *B, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols)\n"
            "        B[c * rows + r] = A[r * cols + c];\n}\n",
            "tr", "mixed contiguity");
    refused("__global__ void s(float *A, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols) {\n"
            "        A[r * cols + c] *= 2.0f;\n        __syncthreads();\n    }\n}\n",
            "s", "synchronizes");
    refused("__global__ void one(float *a, int n)\n{\n"
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (i < n) a[i] = 0.0f;\n}\n",
            "one", "not a 2-D kernel");
    refused("__global__ void none(float *a, int n)\n{\n    a[0] = 1.0f;\n}\n", "none", "not a 2-D kernel");
    refused("__global__ void xx(float *a, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = threadIdx.x + blockIdx.x * blockDim.x;\n"
            "    if (r < rows && c < cols) a[r * cols + c] = 0.0f;\n}\n",
            "xx", "both indices come from the x axis");
    refused("__global__ void at(float *a, float *sum, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols) atomicAdd(sum, a[r * cols + c]);\n}\n",
            "at", "atomic");
    refused("__global__ void prod(float *a, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols) a[r * c] = 0.0f;\n}\n",
            "prod", "cannot tell which index is contiguous");
    refused("__global__ void ind(float *a, const int *map, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols) a[map[r] * cols + c] = 0.0f;\n}\n",
            "ind", "cannot tell which index is contiguous");
    refused("__global__ void tri(float *a, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < r) a[r * cols + c] = 0.0f;\n}\n",
            "tri", "bound depends on an index");
    refused("__global__ void acc(float *a, float *o, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    float s = 0.0f;\n"
            "    if (r < rows && c < cols) { s += a[r * cols + c]; o[r * cols + c] = s; }\n}\n",
            "acc", "updates s");
    refused("__global__ void ret(float *a, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols) { if (a[r * cols + c] < 0.0f) goto done; a[r * cols + c] = 1.0f;\n"
            "    done:\n        ;\n    }\n}\n",
            "ret", "goto");
    refused("__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K)\n{\n"
            "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (row < M && col < N) {\n        float acc = 0.0f;\n"
            "        for (int k = 0; k < K; k++)\n            acc += A[row * K + k] * B[k * N + col];\n"
            "        C[row * N + col] = acc;\n    }\n}\n",
            "mm", "loops");
    refused("__global__ void tid(float *a, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols) a[r * cols + c] = threadIdx.x;\n}\n",
            "tid", "threadIdx");
    refused("__global__ void sh(float *a, int rows, int cols)\n{\n"
            "    __shared__ float t[256];\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols) a[r * cols + c] = 0.0f;\n}\n",
            "sh", "shared memory");
    refused("__global__ void after(float *a, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols) a[r * cols + c] = 0.0f;\n    a[0] = 1.0f;\n}\n",
            "after", "statements follow the bounds check");
    refused("__global__ void els(float *a, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols) a[r * cols + c] = 0.0f; else a[0] = 1.0f;\n}\n",
            "els", "else branch");
    refused("__global__ void half(float *a, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows) a[r * cols + c] = 0.0f;\n}\n",
            "half", "does not bound both indices");
    refused("__global__ void rowonly(float *a, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols) a[r] = a[c];\n}\n",
            "rowonly", "no memory access combines both indices");
    refused("__global__ void mem(float *a, const int *dims)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < dims[0] && c < dims[1]) a[r * dims[1] + c] = 0.0f;\n}\n",
            "mem", "reads memory");
    refused("__global__ void chg(float *a, int rows, int cols)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    if (r < rows && c < cols) { c += 1; a[r * cols + c] = 0.0f; }\n}\n",
            "chg", "changes an index");
    refused("__global__ void z3(float *a, int n)\n{\n"
            "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    int d = blockIdx.z * blockDim.z + threadIdx.z;\n"
            "    if (r < n && c < n && d < n) a[(d * n + r) * n + c] = 0.0f;\n}\n",
            "z3", "z index");
}

/* bad arguments */
static void test_bad_arguments(void **state)
{
    (void)state;
    fixture fx;
    load_text("__device__ float h(float x) { return x; }\n" "__global__ void k(float *a) { a[0] = h(1.0f); }\n",
              "k", &fx);
    rw_result r;
    assert_int_equal(rw_grid_stride_2d(fx.text, fx.len, fx.m, fx.m->n_funcs, &r), HK_EINVAL);
    assert_int_equal(rw_grid_stride_2d(NULL, fx.len, fx.m, fx.k, &r), HK_EINVAL);
    for (size_t i = 0; i < fx.m->n_funcs; i++)
        if (fx.m->funcs[i].kind != AN_KERNEL)
            assert_int_equal(rw_grid_stride_2d(fx.text, fx.len, fx.m, i, &r), HK_EINVAL);
    unload(&fx);
}

/* every allocation failing in turn: an error or a result, never a crash or a leak */
static void test_alloc_failures(void **state)
{
    (void)state;
    const char *const srcs[] = {k_xfast, k_alias, k_colmajor, k_reach2, k_inplace_stencil};
    const char *const names[] = {"scale2d", "bias_relu", "colmaj", "lap4", "relax"};
    for (size_t s = 0; s < 5; s++) {
        fixture fx;
        load_text(srcs[s], names[s], &fx);
        long base = hk_alloc_live();
        bool completed = false;
        for (long n = 1; n < 5000 && !completed; n++) {
            rw_result r;
            hk_alloc_fail_after(n);
            int rc = rw_grid_stride_2d(fx.text, fx.len, fx.m, fx.k, &r);
            hk_alloc_fail_after(0);
            if (rc == HK_OK) {
                assert_true(r.applicable);
                completed = true;
            } else {
                assert_true(rc == HK_ENOMEM || rc == HK_EPARSE);
            }
            rw_result_free(&r);
            assert_int_equal(hk_alloc_live(), base);
        }
        assert_true(completed);
        unload(&fx);
    }
}

/* The texts the tests above queued compile: their rewrites (nvcc_compiles: no warning
 * either) and the SM-multiple launches (sm_multiple_and_again); a few nvcc runs for all of
 * them (nvcc_batch.h), each text that fails named. */
static void test_launch_compiles(void **state)
{
    (void)state;
    if (nvb_n_jobs == 0) {
        print_message("no test queued a compile check\n");
        return;
    }
    nvb_compile_all(tmpdir);
}

/* The emulations the tests above queued, built in one program and each run (see emu_batch). */
static void test_emulated_runs(void **state)
{
    (void)state;
    if (emu_state < 0) {
        print_message("note: no g++, CPU emulations skipped\n");
        skip();
    }
    if (emu_state == 0) {
        print_message("no test queued an emulation\n");
        return;
    }
    emu_state = 0;   /* a later emulation opens a new batch */
    assert_true(emu_batch.n > 0);
    cxx_batch_run(&emu_batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matadd2d_bench),
        cmocka_unit_test(test_x_already_contiguous),
        cmocka_unit_test(test_column_major_return_form),
        cmocka_unit_test(test_aliases_guards),
        cmocka_unit_test(test_auto_interleaved),
        cmocka_unit_test(test_stencil_window_bench),
        cmocka_unit_test(test_stencil_two_arrays_reach2),
        cmocka_unit_test(test_stencil_inplace_column_major),
        cmocka_unit_test(test_stencil_return_becomes_continue),
        cmocka_unit_test(test_stencil_not_windowed),
        cmocka_unit_test(test_flat_inplace_and_general),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_alloc_failures),
        /* last: what the tests above queued */
        cmocka_unit_test(test_launch_compiles),
        cmocka_unit_test(test_emulated_runs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
