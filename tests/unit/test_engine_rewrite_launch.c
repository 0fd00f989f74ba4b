/* Tests of rw_launch_config (rewrite_launch.c): the launch sites of a kernel are edited to
 * the grid mode and block a version was measured with -- chevron, hipLaunchKernelGGL and
 * cudaLaunchKernel forms, dim3 blocks, the old block's literals in the grid, a #define used
 * only by the launch -- and refused with the launch's line when that is not safe. Applying
 * to the result again changes nothing (no second helper). Every rewritten CUDA text is
 * compiled with nvcc -cubin -arch=sm_90 (skipped with a note when nvcc is absent): each test
 * queues its texts, and test_compiles, the last test, checks them all in few nvcc runs
 * (nvcc_batch.h; a text that fails alone fails it, named); allocation failures neither crash
 * nor leak. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "rewrites/rewrite.h"
#include "runners/runner.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "nvcc_batch.h" /* after NVCC */

static char tmpdir[512];
static int n_compiled;

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/test-rewrite-launch-XXXXXX", HK_BINARY_DIR);
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    if (nvb_n_jobs) { /* texts queued after test_compiles, or test_compiles not listed last */
        fprintf(stderr, "error: %zu queued compile checks never ran\n", nvb_n_jobs);
        return -1;
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------ helpers */

typedef struct {
    rw_result r;
    rw_launch_report rep;
    int rc;
} outcome;

static void run_on(const char *text, const char *kernel, const rw_launch *want, bool hip,
                   outcome *o)
{
    an_model *m = NULL;
    assert_int_equal(an_analyze(text, strlen(text), &m), HK_OK);
    assert_false(m->has_errors);
    o->rc = rw_launch_config(text, strlen(text), m, kernel, want, hip, &o->r, &o->rep);
    an_model_free(m);
}

static void done(outcome *o)
{
    rw_result_free(&o->r);
    rw_launch_report_free(&o->rep);
}

/* 1-based line of the first occurrence of needle in text. */
static int line_of(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    assert_non_null(p);
    int line = 1;
    for (const char *q = text; q < p; q++)
        line += *q == '\n';
    return line;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Applying want to the result again changes nothing and adds no second helper. */
static void idempotent(const char *text, const char *kernel, const rw_launch *want, bool hip)
{
    outcome o = {0};
    run_on(text, kernel, want, hip, &o);
    assert_int_equal(o.rc, HK_OK);
    if (!o.r.applicable)
        print_message("second application refused: %s\n", o.r.description);
    assert_true(o.r.applicable);
    assert_int_equal(o.rep.n_edits, 0);
    assert_false(o.rep.helper_inserted);
    assert_string_equal(o.r.text, text);
    assert_true(count(o.r.text, "static int hk_sm_count(void)") <= 1);
    done(&o);
}

/* The edits in rep, applied to text front to back, give r->text; each edit's after-lines
 * are in the result. */
static void edits_rebuild(const char *text, const outcome *o)
{
    size_t cap = strlen(text) + 1;
    for (size_t i = 0; i < o->rep.n_edits; i++)
        cap += strlen(o->rep.edits[i].text);
    char *b = malloc(cap);
    assert_non_null(b);
    size_t n = 0, from = 0;
    for (size_t i = 0; i < o->rep.n_edits; i++) {
        const rw_launch_edit *e = &o->rep.edits[i];
        assert_true(e->start >= from && e->end >= e->start);
        memcpy(b + n, text + from, e->start - from);
        n += e->start - from;
        memcpy(b + n, e->text, strlen(e->text));
        n += strlen(e->text);
        from = e->end;
        assert_non_null(strstr(o->r.text, e->after));
        assert_non_null(strstr(e->after, e->text[0] == '\n' ? e->text + 1 : e->text) ||
                        strstr(e->text, e->after));
    }
    memcpy(b + n, text + from, strlen(text) - from);
    n += strlen(text) - from;
    b[n] = '\0';
    assert_string_equal(b, o->r.text);
    free(b);
}

/* Queues text's compile check (nvcc -arch=sm_90 -cubin, as DIR/NAME.cu): test_compiles,
 * the last test, compiles the queue; skipped (with a note) without nvcc. */
static void compiles(const char *name, const char *text)
{
    if (access(NVCC, X_OK) != 0) {
        print_message("note: no nvcc at %s: compile check of %s skipped\n", NVCC, name);
        return;
    }
    nvb_add(tmpdir, name, text, strlen(text));
}

static const char saxpy[] =
    "#include <cuda_runtime.h>\n"
    "\n"
    "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n"
    "\n"
    "// Runs saxpy on device arrays.\n"
    "void run_saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);\n"
    "}\n";

/* ------------------------------------------------------------------ tests */

static void test_sm_multiple_chevron(void **state)
{
    rw_launch w = {.block = {256, 1, 1}, .sm_multiple = true, .grid_per_sm = 8};
    outcome o = {0};
    run_on(saxpy, "saxpy", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    assert_true(o.r.applicable);
    print_message("%s\n", o.r.description);
    assert_non_null(strstr(o.r.text, "saxpy<<<hk_sm_count() * 8, 256>>>(n, a, x, y);"));
    assert_int_equal(count(o.r.text, "static int hk_sm_count(void)"), 1);
    assert_non_null(strstr(o.r.text, "cudaDevAttrMultiProcessorCount"));
    assert_null(strstr(o.r.text, "hipDevice"));
    /* the helper goes above the launcher and its comment, after the kernel */
    const char *helper = strstr(o.r.text, "/* Added by hkls apply");
    assert_non_null(helper);
    assert_true(helper < strstr(o.r.text, "// Runs saxpy"));
    assert_true(helper > strstr(o.r.text, "__global__"));
    assert_true(o.rep.helper_inserted);
    assert_int_equal(o.rep.n_sites, 1);
    assert_int_equal(o.rep.n_sites_edited, 1);
    assert_int_equal(o.rep.n_edits, 2);
    assert_int_equal(o.rep.edits[1].line, 12);
    /* lines named are the new text's: the launch moved down by the helper's lines */
    char want_line[64];
    int launch_line = line_of(o.r.text, "saxpy<<<");
    assert_true(launch_line > 12);
    snprintf(want_line, sizeof want_line, "launch of saxpy at line %d:", launch_line);
    assert_non_null(strstr(o.r.description, want_line));
    assert_non_null(strstr(o.r.description, "added hk_sm_count() at line 9"));
    edits_rebuild(saxpy, &o);
    compiles("sm_multiple_chevron", o.r.text);
    idempotent(o.r.text, "saxpy", &w, false);
    /* another blocks-per-SM value changes the grid only */
    rw_launch w4 = w;
    w4.grid_per_sm = 4;
    outcome o2 = {0};
    run_on(o.r.text, "saxpy", &w4, false, &o2);
    assert_true(o2.r.applicable);
    assert_int_equal(o2.rep.n_edits, 1);
    assert_false(o2.rep.helper_inserted);
    assert_non_null(strstr(o2.r.text, "saxpy<<<hk_sm_count() * 4, 256>>>"));
    done(&o2);
    /* a spec-grid version applied over it: the SM grid cannot be undone here */
    rw_launch spec = {.block = {256, 1, 1}};
    run_on(o.r.text, "saxpy", &spec, false, &o2);
    assert_int_equal(o2.rc, HK_OK);
    assert_false(o2.r.applicable);
    snprintf(want_line, sizeof want_line, "line %d", launch_line);
    assert_non_null(strstr(o2.r.description, want_line));
    assert_non_null(strstr(o2.r.description, "spec's grid"));
    done(&o2);
    done(&o);
}

static void test_block_literals(void **state)
{
    rw_launch w = {.block = {128, 1, 1}};
    outcome o = {0};
    run_on(saxpy, "saxpy", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    assert_true(o.r.applicable);
    print_message("%s\n", o.r.description);
    assert_non_null(strstr(o.r.text, "saxpy<<<(n + 127) / 128, 128>>>(n, a, x, y);"));
    assert_null(strstr(o.r.text, "hk_sm_count"));
    assert_non_null(strstr(o.r.description, "line 12"));
    assert_non_null(strstr(o.r.description, "block 256 -> 128"));
    assert_int_equal(o.rep.n_edits, 3);
    edits_rebuild(saxpy, &o);
    compiles("block_literals", o.r.text);
    idempotent(o.r.text, "saxpy", &w, false);
    done(&o);
    /* block change and SM grid together */
    rw_launch both = {.block = {512, 1, 1}, .sm_multiple = true, .grid_per_sm = 2};
    run_on(saxpy, "saxpy", &both, false, &o);
    assert_true(o.r.applicable);
    assert_non_null(strstr(o.r.text, "saxpy<<<hk_sm_count() * 2, 512>>>"));
    compiles("block_and_sm", o.r.text);
    idempotent(o.r.text, "saxpy", &both, false);
    done(&o);
}

static void test_nothing_to_change(void **state)
{
    rw_launch w = {.block = {256, 1, 1}};
    outcome o = {0};
    run_on(saxpy, "saxpy", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    assert_true(o.r.applicable);
    assert_int_equal(o.rep.n_edits, 0);
    assert_int_equal(o.rep.n_sites, 1);
    assert_false(o.rep.advice);
    assert_string_equal(o.r.text, saxpy);
    assert_non_null(strstr(o.r.description, "already"));
    done(&o);
    /* nothing known about the launch at all (e.g. a command-form version) */
    rw_launch none = {0};
    run_on(saxpy, "saxpy", &none, false, &o);
    assert_true(o.r.applicable);
    assert_int_equal(o.rep.n_edits, 0);
    done(&o);
}

static const char dim3_src[] =
    "#include <cuda_runtime.h>\n"
    "__global__ void scale2d(float *p, int w, int h)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (x < w && y < h)\n"
    "        p[y * w + x] *= 2.0f;\n"
    "}\n"
    "void run(float *p, int w, int h)\n"
    "{\n"
    "    scale2d<<<dim3((w + 31) / 32, (h + 7) / 8), dim3(32, 8)>>>(p, w, h);\n"
    "}\n";

static void test_dim3(void **state)
{
    rw_launch w = {.block = {16, 16, 1}};
    outcome o = {0};
    run_on(dim3_src, "scale2d", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    assert_true(o.r.applicable);
    assert_non_null(strstr(o.r.text, "scale2d<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>"));
    edits_rebuild(dim3_src, &o);
    compiles("dim3", o.r.text);
    idempotent(o.r.text, "scale2d", &w, false);
    /* from (16, 16) to (32, 8): 16 and 15 would stand for both dimensions */
    rw_launch back = {.block = {32, 8, 1}};
    outcome o2 = {0};
    run_on(o.r.text, "scale2d", &back, false, &o2);
    assert_int_equal(o2.rc, HK_OK);
    assert_false(o2.r.applicable);
    print_message("%s\n", o2.r.description);
    assert_non_null(strstr(o2.r.description, "line 10"));
    assert_non_null(strstr(o2.r.description, "unambiguously"));
    done(&o2);
    done(&o);
    /* a local dim3 block variable is read; same block: nothing to do */
    static const char local[] =
        "#include <cuda_runtime.h>\n"
        "__global__ void k(float *p) { p[threadIdx.x] = 0; }\n"
        "void run(float *p, int n)\n"
        "{\n"
        "    dim3 block(32, 8);\n"
        "    dim3 grid((n + block.x - 1) / block.x, 4);\n"
        "    k<<<grid, block>>>(p);\n"
        "}\n";
    rw_launch same = {.block = {32, 8, 1}};
    run_on(local, "k", &same, false, &o);
    assert_true(o.r.applicable);
    assert_int_equal(o.rep.n_edits, 0);
    assert_false(o.rep.advice);
    done(&o);
    /* a different block through that variable: the grid is computed from it */
    run_on(local, "k", &w, false, &o);
    assert_false(o.r.applicable);
    assert_non_null(strstr(o.r.description, "line 7"));
    assert_non_null(strstr(o.r.description, "computed from block"));
    done(&o);
    /* the transpose pattern: literals in a grid variable only this launch uses */
    static const char tr[] =
        "#include <cuda_runtime.h>\n"
        "__global__ void transpose(const float *in, float *out, int rows, int cols)\n"
        "{\n"
        "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if (r < rows && c < cols)\n"
        "        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];\n"
        "}\n"
        "void launch_transpose(const float *in, float *out, int rows, int cols)\n"
        "{\n"
        "    dim3 block(16, 16);\n"
        "    dim3 grid((cols + 15) / 16, (rows + 15) / 16);\n"
        "    transpose<<<grid, block>>>(in, out, rows, cols);\n"
        "}\n";
    rw_launch big = {.block = {32, 32, 1}};
    run_on(tr, "transpose", &big, false, &o);
    assert_int_equal(o.rc, HK_OK);
    if (!o.r.applicable)
        print_message("%s\n", o.r.description);
    assert_true(o.r.applicable);
    assert_non_null(strstr(o.r.text, "    dim3 grid((cols + 31) / 32, (rows + 31) / 32);\n"));
    assert_non_null(strstr(o.r.text, "transpose<<<grid, dim3(32, 32)>>>(in, out, rows, cols);"));
    edits_rebuild(tr, &o);
    compiles("transpose_grid_variable", o.r.text);
    done(&o);
    /* (16, 16) -> (32, 8): 16 stands for both dimensions */
    rw_launch flat = {.block = {32, 8, 1}};
    run_on(tr, "transpose", &flat, false, &o);
    assert_false(o.r.applicable);
    assert_non_null(strstr(o.r.description, "unambiguously"));
    done(&o);
    /* the SM grid: the variables stay, unused */
    rw_launch sm = {.block = {32, 8, 1}, .sm_multiple = true, .grid_per_sm = 4};
    run_on(tr, "transpose", &sm, false, &o);
    assert_true(o.r.applicable);
    assert_non_null(strstr(o.r.text, "transpose<<<hk_sm_count() * 4, dim3(32, 8)>>>(in, out, rows, cols);"));
    compiles("transpose_sm", o.r.text);
    idempotent(o.r.text, "transpose", &sm, false);
    done(&o);
}

/* A divided grid (stencil_window): the grid's component along the axis becomes
 * ((c) + K - 1) / K, inline or in a local only this launch uses; a grid with no such
 * component stays; a grid it cannot read, or one divided by another K, is refused. */
static const char stencil_src[] =
    "#include <cuda_runtime.h>\n"
    "__global__ void st(const float *in, float *out, int w, int h)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (x > 0 && y > 0 && x < w - 1 && y < h - 1)\n"
    "        out[y * w + x] = in[(y - 1) * w + x] + in[(y + 1) * w + x];\n"
    "}\n"
    "void run(const float *in, float *out, int w, int h)\n"
    "{\n"
    "    st<<<dim3((w + 31) / 32, (h + 7) / 8), dim3(32, 8)>>>(in, out, w, h);\n"
    "}\n"
    "void run_local(const float *in, float *out, int w, int h)\n"
    "{\n"
    "    dim3 grid((w + 31) / 32, (h + 7) / 8);\n"
    "    st<<<grid, dim3(32, 8)>>>(in, out, w, h);\n"
    "}\n";

static void test_divided_grid(void **state)
{
    (void)state;
    rw_launch w = {.grid_divisor = 4, .grid_axis = 1};
    outcome o = {0};
    run_on(stencil_src, "st", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    if (!o.r.applicable)
        print_message("%s\n", o.r.description);
    assert_true(o.r.applicable);
    assert_int_equal(o.rep.n_sites_edited, 2);
    assert_non_null(strstr(o.r.text, "st<<<dim3((w + 31) / 32, (((h + 7) / 8) + 4 - 1) / 4), "
                                     "dim3(32, 8)>>>"));
    assert_non_null(strstr(o.r.text, "dim3 grid((w + 31) / 32, (((h + 7) / 8) + 4 - 1) / 4);"));
    assert_non_null(strstr(o.r.description, "divided by 4 along y"));
    edits_rebuild(stencil_src, &o);
    compiles("divided", o.r.text);
    idempotent(o.r.text, "st", &w, false);
    /* the divided text under the spec's grid, or another K: refused, not divided twice */
    rw_launch spec = {0}, k8 = {.grid_divisor = 8, .grid_axis = 1};
    outcome o2 = {0};
    run_on(o.r.text, "st", &spec, false, &o2);
    assert_false(o2.r.applicable);
    assert_non_null(strstr(o2.r.description, "divided by 4 along y"));
    done(&o2);
    run_on(o.r.text, "st", &k8, false, &o2);
    assert_false(o2.r.applicable);
    done(&o2);
    done(&o);
    /* with a new block: the block literals follow inside the divided component */
    rw_launch wb = {.block = {32, 4, 1}, .base_block = {32, 8, 1}, .grid_divisor = 2,
                    .grid_axis = 1};
    run_on(stencil_src, "st", &wb, false, &o);
    if (!o.r.applicable)
        print_message("%s\n", o.r.description);
    assert_true(o.r.applicable);
    assert_non_null(strstr(o.r.text, "(((h + 3) / 4) + 2 - 1) / 2"));
    edits_rebuild(stencil_src, &o);
    compiles("divided_block", o.r.text);
    done(&o);
    /* along z of a 2-D grid: 1 along z, nothing to change */
    rw_launch wz = {.grid_divisor = 4, .grid_axis = 2};
    run_on(stencil_src, "st", &wz, false, &o);
    assert_true(o.r.applicable);
    assert_int_equal(o.rep.n_edits, 0);
    done(&o);
    /* a grid passed in (a dim3 parameter): refused with the reason */
    static const char param[] =
        "#include <cuda_runtime.h>\n"
        "__global__ void st(float *p) { p[blockIdx.y * blockDim.y + threadIdx.y] = 0; }\n"
        "void run(float *p, dim3 g)\n"
        "{\n"
        "    st<<<g, dim3(32, 8)>>>(p);\n"
        "}\n";
    run_on(param, "st", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    assert_false(o.r.applicable);
    assert_non_null(strstr(o.r.description, "line 5"));
    assert_non_null(strstr(o.r.description, "divide it by hand"));
    done(&o);
    /* no launch site: how to launch it */
    static const char nosite[] =
        "__global__ void st(float *p) { p[blockIdx.y * blockDim.y + threadIdx.y] = 0; }\n";
    run_on(nosite, "st", &w, false, &o);
    assert_true(o.r.applicable);
    assert_true(o.rep.advice);
    assert_non_null(strstr(o.r.description, "divided by 4 along y"));
    done(&o);
    /* out of range */
    rw_launch bad = {.grid_divisor = 1, .grid_axis = 1}, bad2 = {.grid_divisor = 4, .grid_axis = 3};
    run_on(stencil_src, "st", &bad, false, &o);
    assert_int_equal(o.rc, HK_EINVAL);
    done(&o);
    run_on(stencil_src, "st", &bad2, false, &o);
    assert_int_equal(o.rc, HK_EINVAL);
    done(&o);
}

/* A multiplied grid (split_topk_scan: P lanes per query): `((c) * K)` along the axis, at
 * the site and in a local dim3; refused twice, along an axis the grid does not write, and
 * for a grid passed in. */
static void test_multiplied_grid(void **state)
{
    (void)state;
    rw_launch w = {.grid_multiplier = 4, .grid_axis = 0};
    outcome o = {0};
    run_on(stencil_src, "st", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    if (!o.r.applicable)
        print_message("%s\n", o.r.description);
    assert_true(o.r.applicable);
    assert_int_equal(o.rep.n_sites_edited, 2);
    assert_non_null(strstr(o.r.text, "st<<<dim3((((w + 31) / 32) * 4), (h + 7) / 8), dim3(32, 8)>>>"));
    assert_non_null(strstr(o.r.text, "dim3 grid((((w + 31) / 32) * 4), (h + 7) / 8);"));
    assert_non_null(strstr(o.r.description, "multiplied by 4 along x"));
    edits_rebuild(stencil_src, &o);
    compiles("multiplied", o.r.text);
    idempotent(o.r.text, "st", &w, false);
    /* the multiplied text under the spec's grid, another K, or a divisor: refused */
    rw_launch spec = {0}, k2 = {.grid_multiplier = 2, .grid_axis = 0}, d4 = {.grid_divisor = 4, .grid_axis = 0};
    outcome o2 = {0};
    run_on(o.r.text, "st", &spec, false, &o2);
    assert_false(o2.r.applicable);
    assert_non_null(strstr(o2.r.description, "multiplied by 4 along x"));
    done(&o2);
    run_on(o.r.text, "st", &k2, false, &o2);
    assert_false(o2.r.applicable);
    done(&o2);
    run_on(o.r.text, "st", &d4, false, &o2);
    assert_false(o2.r.applicable);
    done(&o2);
    done(&o);
    /* along z of a 2-D grid: no component to multiply, refused (1 * K is not 1) */
    rw_launch wz = {.grid_multiplier = 4, .grid_axis = 2};
    run_on(stencil_src, "st", &wz, false, &o);
    assert_false(o.r.applicable);
    assert_non_null(strstr(o.r.description, "no z component"));
    done(&o);
    /* no launch site: how to launch it */
    static const char nosite[] =
        "__global__ void st(float *p) { p[blockIdx.y * blockDim.y + threadIdx.y] = 0; }\n";
    run_on(nosite, "st", &w, false, &o);
    assert_true(o.r.applicable);
    assert_true(o.rep.advice);
    assert_non_null(strstr(o.r.description, "multiplied by 4 along x"));
    done(&o);
    /* out of range, or with a divisor */
    rw_launch bad = {.grid_multiplier = 1, .grid_axis = 0}, bad2 = {.grid_multiplier = 4, .grid_axis = 3},
              both = {.grid_multiplier = 4, .grid_divisor = 2, .grid_axis = 0};
    run_on(stencil_src, "st", &bad, false, &o);
    assert_int_equal(o.rc, HK_EINVAL);
    done(&o);
    run_on(stencil_src, "st", &bad2, false, &o);
    assert_int_equal(o.rc, HK_EINVAL);
    done(&o);
    run_on(stencil_src, "st", &both, false, &o);
    assert_int_equal(o.rc, HK_EINVAL);
    done(&o);
}

static const char hip_src[] =
    "#include <hip/hip_runtime.h>\n"
    "__global__ void add1(float *p, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
    "        p[i] += 1.0f;\n"
    "}\n"
    "void run(float *p, int n, hipStream_t s)\n"
    "{\n"
    "    hipLaunchKernelGGL(add1, dim3((n + 255) / 256), dim3(256), 0, s, p, n);\n"
    "}\n";

static void test_hip(void **state)
{
    rw_launch w = {.block = {256, 1, 1}, .sm_multiple = true, .grid_per_sm = 4};
    outcome o = {0};
    run_on(hip_src, "add1", &w, false, &o); /* the hipLaunchKernelGGL site makes it HIP */
    assert_int_equal(o.rc, HK_OK);
    assert_true(o.r.applicable);
    assert_non_null(strstr(o.r.text, "hipLaunchKernelGGL(add1, dim3(hk_sm_count() * 4), dim3(256), 0, s, p, n);"));
    assert_non_null(strstr(o.r.text, "hipDeviceGetAttribute(&n, hipDeviceAttributeMultiProcessorCount, dev)"));
    assert_non_null(strstr(o.r.text, "hipGetDevice(&dev)"));
    assert_null(strstr(o.r.text, "cudaGetDevice"));
    edits_rebuild(hip_src, &o);
    idempotent(o.r.text, "add1", &w, false);
    done(&o);
    rw_launch b = {.block = {64, 1, 1}};
    run_on(hip_src, "add1", &b, true, &o);
    assert_true(o.r.applicable);
    assert_non_null(strstr(o.r.text, "hipLaunchKernelGGL(add1, dim3((n + 63) / 64), dim3(64), 0, s, p, n);"));
    done(&o);
}

static const char api_src[] =
    "#include <cuda_runtime.h>\n"
    "__global__ void fill(float *p, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        p[i] = 1.0f;\n"
    "}\n"
    "cudaError_t run(float *p, int n, cudaStream_t s)\n"
    "{\n"
    "    void *args[] = {&p, &n};\n"
    "    return cudaLaunchKernel((void *)fill, dim3((n + 255) / 256), dim3(256), args, 0, s);\n"
    "}\n";

static void test_cuda_launch_kernel(void **state)
{
    rw_launch w = {.block = {512, 1, 1}};
    outcome o = {0};
    run_on(api_src, "fill", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    assert_true(o.r.applicable);
    assert_non_null(strstr(o.r.text, "cudaLaunchKernel((void *)fill, dim3((n + 511) / 512), dim3(512), args, 0, s);"));
    edits_rebuild(api_src, &o);
    compiles("cuda_launch_kernel", o.r.text);
    idempotent(o.r.text, "fill", &w, false);
    done(&o);
    rw_launch sm = {.block = {256, 1, 1}, .sm_multiple = true, .grid_per_sm = 16};
    run_on(api_src, "fill", &sm, false, &o);
    assert_true(o.r.applicable);
    assert_non_null(strstr(o.r.text, "cudaLaunchKernel((void *)fill, dim3(hk_sm_count() * 16), dim3(256), args, 0, s);"));
    compiles("cuda_launch_kernel_sm", o.r.text);
    done(&o);
}

static const char define_src[] =
    "#include <cuda_runtime.h>\n"
    "#define BLOCK 256\n"
    "__global__ void neg(float *p, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        p[i] = -p[i];\n"
    "}\n"
    "namespace app {\n"
    "/* Negates p on the GPU. */\n"
    "void run(float *p, int n)\n"
    "{\n"
    "    neg<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(p, n);\n"
    "}\n"
    "void run_twice(float *p, int n)\n"
    "{\n"
    "    neg<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(p, n);\n"
    "    neg<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(p, n);\n"
    "}\n"
    "} // namespace app\n";

static void test_define(void **state)
{
    rw_launch w = {.block = {128, 1, 1}};
    outcome o = {0};
    run_on(define_src, "neg", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    assert_true(o.r.applicable);
    print_message("%s\n", o.r.description);
    assert_non_null(strstr(o.r.text, "#define BLOCK 128\n"));
    assert_int_equal(count(o.r.text, "neg<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(p, n);"), 3);
    assert_int_equal(o.rep.n_edits, 1);
    assert_int_equal(o.rep.n_sites, 3);
    assert_non_null(strstr(o.r.description, "BLOCK 256 -> 128 (line 2)"));
    edits_rebuild(define_src, &o);
    compiles("define", o.r.text);
    idempotent(o.r.text, "neg", &w, false);
    done(&o);
    /* the SM grid inside a namespace: the helper goes before the namespace, once */
    rw_launch sm = {.block = {256, 1, 1}, .sm_multiple = true, .grid_per_sm = 8};
    run_on(define_src, "neg", &sm, false, &o);
    assert_true(o.r.applicable);
    assert_int_equal(count(o.r.text, "neg<<<hk_sm_count() * 8, BLOCK>>>(p, n);"), 3);
    assert_int_equal(count(o.r.text, "static int hk_sm_count(void)"), 1);
    assert_true(strstr(o.r.text, "static int hk_sm_count") < strstr(o.r.text, "namespace app"));
    assert_int_equal(o.rep.n_sites_edited, 3);
    compiles("define_sm", o.r.text);
    idempotent(o.r.text, "neg", &sm, false);
    done(&o);
    /* a name used elsewhere too is not changed */
    char *used = malloc(sizeof define_src + 64);
    assert_non_null(used);
    strcpy(used, define_src);
    char *body = strstr(used, "    int i =");
    memmove(body + 31, body, strlen(body) + 1);
    memcpy(body, "    __shared__ float s[BLOCK];\n", 31);
    run_on(used, "neg", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    assert_false(o.r.applicable);
    print_message("%s\n", o.r.description);
    assert_non_null(strstr(o.r.description, "BLOCK, which is also used at line 5"));
    assert_non_null(strstr(o.r.description, "line 14"));
    done(&o);
    free(used);
}

static void test_refusals(void **state)
{
    outcome o = {0};
    rw_launch w = {.block = {128, 1, 1}};
    /* the grid comes from a local only this launch uses: its literals follow */
    static const char local[] =
        "__global__ void k(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] = 0; }\n"
        "void run(float *p, int n)\n"
        "{\n"
        "    int blocks = (n + 255) / 256;\n"
        "    k<<<blocks, 256>>>(p, n);\n"
        "}\n";
    run_on(local, "k", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    assert_true(o.r.applicable);
    assert_non_null(strstr(o.r.text, "    int blocks = (n + 127) / 128;\n    k<<<blocks, 128>>>(p, n);"));
    compiles("grid_local", o.r.text);
    done(&o);
    /* ... used once more: the grid is not this launch's alone */
    static const char twice[] =
        "#include <cstdio>\n"
        "__global__ void k(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] = 0; }\n"
        "void run(float *p, int n)\n"
        "{\n"
        "    int blocks = (n + 255) / 256;\n"
        "    printf(\"%d blocks\\n\", blocks);\n"
        "    k<<<blocks, 256>>>(p, n);\n"
        "}\n";
    run_on(twice, "k", &w, false, &o);
    assert_false(o.r.applicable);
    assert_non_null(strstr(o.r.description, "line 7"));
    done(&o);
    /* the grid is computed elsewhere from the old block */
    static const char elsewhere[] =
        "__global__ void k(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] = 0; }\n"
        "void run(float *p, int n, int blocks)\n"
        "{\n"
        "    k<<<blocks, 256>>>(p, n);\n"
        "}\n";
    run_on(elsewhere, "k", &w, false, &o);
    assert_int_equal(o.rc, HK_OK);
    assert_false(o.r.applicable);
    print_message("%s\n", o.r.description);
    assert_non_null(strstr(o.r.description, "line 4"));
    assert_non_null(strstr(o.r.description, "computed elsewhere"));
    assert_null(o.r.text);
    done(&o);
    /* the grid follows a local block variable */
    static const char var[] =
        "__global__ void k(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] = 0; }\n"
        "void run(float *p, int n)\n"
        "{\n"
        "    const int threads = 256;\n"
        "    k<<<(n + threads - 1) / threads, threads>>>(p, n);\n"
        "}\n";
    run_on(var, "k", &w, false, &o);
    assert_false(o.r.applicable);
    assert_non_null(strstr(o.r.description, "computed from threads"));
    done(&o);
    /* same block through the variable, SM grid: fine */
    rw_launch sm = {.block = {256, 1, 1}, .sm_multiple = true, .grid_per_sm = 3};
    run_on(var, "k", &sm, false, &o);
    assert_true(o.r.applicable);
    assert_non_null(strstr(o.r.text, "k<<<hk_sm_count() * 3, threads>>>(p, n);"));
    compiles("var_sm", o.r.text);
    done(&o);
    /* dynamic shared memory sized for the old block */
    static const char shm[] =
        "__global__ void k(float *p, int n) { extern __shared__ float s[]; s[threadIdx.x] = 0; }\n"
        "void run(float *p, int n)\n"
        "{\n"
        "    k<<<(n + 255) / 256, 256, 256 * sizeof(float)>>>(p, n);\n"
        "}\n";
    run_on(shm, "k", &w, false, &o);
    assert_false(o.r.applicable);
    assert_non_null(strstr(o.r.description, "shared memory size `256 * sizeof(float)`"));
    done(&o);
    /* the block passed on to the kernel as well */
    static const char passed[] =
        "__global__ void k(float *p, int n, int b) { p[threadIdx.x] = b; }\n"
        "void run(float *p, int n)\n"
        "{\n"
        "    int b = 256;\n"
        "    k<<<(n + 255) / 256, b>>>(p, n, b);\n"
        "}\n";
    run_on(passed, "k", &w, false, &o);
    assert_false(o.r.applicable);
    assert_non_null(strstr(o.r.description, "passes b"));
    done(&o);
    /* a block the rewrite cannot read: advice, no edit */
    static const char param[] =
        "__global__ void k(float *p, int n) { p[threadIdx.x] = 0; }\n"
        "void run(float *p, int n, int threads)\n"
        "{\n"
        "    k<<<(n + threads - 1) / threads, threads>>>(p, n);\n"
        "}\n";
    run_on(param, "k", &w, false, &o);
    assert_true(o.r.applicable);
    assert_true(o.rep.advice);
    assert_int_equal(o.rep.n_edits, 0);
    assert_non_null(strstr(o.r.description, "line 4"));
    assert_non_null(strstr(o.r.description, "not a constant"));
    done(&o);
    /* ... unless the caller knows the file's block: then a change is refused */
    rw_launch based = {.block = {128, 1, 1}, .base_block = {256, 1, 1}};
    run_on(param, "k", &based, false, &o);
    assert_false(o.r.applicable);
    done(&o);
    rw_launch same = {.block = {256, 1, 1}, .base_block = {256, 1, 1}};
    run_on(param, "k", &same, false, &o);
    assert_true(o.r.applicable);
    assert_false(o.rep.advice);
    assert_int_equal(o.rep.n_edits, 0);
    done(&o);
}

static void test_no_site(void **state)
{
    static const char only[] =
        "__global__ void k(float *p, int n)\n"
        "{\n"
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
        "        p[i] = 0;\n"
        "}\n";
    rw_launch sm = {.block = {128, 1, 1}, .sm_multiple = true, .grid_per_sm = 8};
    outcome o = {0};
    run_on(only, "k", &sm, false, &o);
    assert_int_equal(o.rc, HK_OK);
    assert_true(o.r.applicable);
    assert_int_equal(o.rep.n_sites, 0);
    assert_int_equal(o.rep.n_edits, 0);
    assert_true(o.rep.advice);
    print_message("%s\n", o.r.description);
    assert_non_null(strstr(o.r.description, "no launch site of k in this file: launch it with block 128"));
    assert_non_null(strstr(o.r.description, "SM count x 8"));
    assert_false(strstr(o.r.text, "hk_sm_count"));
    done(&o);
    rw_launch same = {.block = {128, 1, 1}, .base_block = {128, 1, 1}};
    run_on(only, "k", &same, false, &o);
    assert_false(o.rep.advice);
    done(&o);
    /* bad arguments */
    an_model *m = NULL;
    assert_int_equal(an_analyze(only, strlen(only), &m), HK_OK);
    rw_result r;
    rw_launch bad = {.block = {2048, 1, 1}};
    assert_int_equal(rw_launch_config(only, strlen(only), m, "k", &bad, false, &r, NULL), HK_EINVAL);
    rw_launch bad2 = {.sm_multiple = true};
    assert_int_equal(rw_launch_config(only, strlen(only), m, "k", &bad2, false, &r, NULL), HK_EINVAL);
    assert_int_equal(rw_launch_config(only, strlen(only), m, NULL, &sm, false, &r, NULL), HK_EINVAL);
    an_model_free(m);
}

/* Issue 14: what rw_launch_config writes is shown where it is made (hkls apply, the
 * editor's Apply), so it speaks the thread's language: the description's list (a site's
 * edits, the helper), a refusal, the no-site advice and the launch JSON's errors in zh-CN
 * whole, the separators the table's; English as the tests above read it. */
static void test_chinese(void **state)
{
    (void)state;
    static const char text[] =
        "#define BS 256\n"
        "__global__ void k(float *a, int n) { a[0] = 0; }\n"
        "void run(float *a, int n) {\n"
        "  k<<<(n + 255) / 256, 256>>>(a, n);\n"
        "}\n";
    static const char shared[] =
        "#define BS 256\n"
        "__global__ void k(float *a, int n) { a[0] = 0; }\n"
        "void run(float *a, int n) {\n"
        "  k<<<(n + BS - 1) / BS, BS>>>(a, n);\n"
        "  k<<<1, BS>>>(a, BS);\n"
        "}\n";
    static const char only[] = "__global__ void k(float *a, int n) { a[0] = 0; }\n";
    rw_launch sm = {.block = {128, 1, 1}, .sm_multiple = true, .grid_per_sm = 4};
    rw_launch smaller = {.block = {128, 1, 1}, .base_block = {256, 1, 1}};
    rw_launch div = {.block = {128, 1, 1}, .base_block = {256, 1, 1}, .grid_divisor = 2, .grid_axis = 0};
    hk_i18n_set(HK_LANG_ZH_CN);
    outcome a = {0}, b = {0}, c = {0};
    run_on(text, "k", &sm, false, &a);
    run_on(shared, "k", &smaller, false, &b);
    run_on(only, "k", &div, false, &c);
    json_t *bad = json_pack("{s:[i], s:s, s:i, s:s}", "block", 128, "grid_mode", "divided", "grid_divisor", 99,
                            "grid_axis", "x");
    rw_launch w;
    char err[200];
    int jrc = rw_launch_from_json(bad, NULL, &w, err, sizeof err);
    json_decref(bad);
    hk_i18n_set(HK_LANG_EN);
    assert_int_equal(a.rc, HK_OK);
    assert_true(a.r.applicable);
    assert_string_equal(a.r.description,
                        "k 的启动（第 20 行）：网格 `(n + 255) / 256` -> `hk_sm_count() * 4`，线程块 256 -> 128；"
                        "在第 3 行添加了 hk_sm_count()");
    assert_false(b.r.applicable);
    assert_string_equal(b.r.description, "k 的启动（第 4 行）：其线程块为 BS，而它在第 5 行也被使用：请手动设置线程块");
    assert_true(c.r.applicable);
    assert_string_equal(c.r.description, "本文件中没有 k 的启动：请用以下配置启动它：线程块 128，"
                                         "bench spec 的网格除以 2（沿 x 方向，向上取整）");
    assert_int_equal(jrc, HK_EINVAL);
    assert_string_equal(err, "启动配置：划分的网格需要 grid_divisor 在 2..64 之内，且 grid_axis 为 x、y 或 z");
    done(&a);
    done(&b);
    done(&c);
    run_on(shared, "k", &smaller, false, &b);
    assert_string_equal(b.r.description, "launch of k at line 4: its block is BS, which is also used at line 5: set the "
                                         "block by hand");
    done(&b);
}

static void test_two_launchers(void **state)
{
    static const char two[] =
        "#include <cuda_runtime.h>\n"
        "__global__ void k(float *p, int n)\n"
        "{\n"
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
        "        p[i] = 0;\n"
        "}\n"
        "template <typename T>\n"
        "void first(T *p, int n)\n"
        "{\n"
        "    k<<<(n + 255) / 256, 256, 0, 0>>>(p, n);\n"
        "}\n"
        "void second(float *p, int n, cudaStream_t s)\n"
        "{\n"
        "    if (n > 0)\n"
        "        k<<<(n + 255) / 256, 256, 0, s>>>(p, n);\n"
        "}\n"
        "template void first<float>(float *, int);\n";
    rw_launch sm = {.block = {256, 1, 1}, .sm_multiple = true, .grid_per_sm = 6};
    outcome o = {0};
    run_on(two, "k", &sm, false, &o);
    assert_true(o.r.applicable);
    assert_int_equal(o.rep.n_sites, 2);
    assert_int_equal(o.rep.n_sites_edited, 2);
    assert_int_equal(count(o.r.text, "static int hk_sm_count(void)"), 1);
    assert_true(strstr(o.r.text, "static int hk_sm_count") < strstr(o.r.text, "template <typename T>"));
    assert_non_null(strstr(o.r.text, "k<<<hk_sm_count() * 6, 256, 0, s>>>(p, n);"));
    edits_rebuild(two, &o);
    compiles("two_launchers", o.r.text);
    idempotent(o.r.text, "k", &sm, false);
    done(&o);
}

static void test_from_json(void **state)
{
    char err[200];
    rw_launch w;
    json_t *l = json_loads("{\"block\":[128,1,1],\"grid_mode\":\"sm_multiple\",\"grid_per_sm\":8,"
                           "\"flags\":[]}", 0, NULL);
    json_t *b = json_loads("{\"block\":[256,1,1],\"flags\":[]}", 0, NULL);
    assert_int_equal(rw_launch_from_json(l, b, &w, err, sizeof err), HK_OK);
    assert_int_equal(w.block[0], 128);
    assert_int_equal(w.block[1], 1);
    assert_int_equal(w.base_block[0], 256);
    assert_true(w.sm_multiple);
    assert_int_equal(w.grid_per_sm, 8);
    json_decref(l);
    json_decref(b);
    /* the baseline's block null: unknown */
    l = json_loads("{\"block\":[32,8],\"grid_mode\":\"spec\"}", 0, NULL);
    b = json_loads("{\"block\":null,\"flags\":[]}", 0, NULL);
    assert_int_equal(rw_launch_from_json(l, b, &w, err, sizeof err), HK_OK);
    assert_int_equal(w.block[0], 32);
    assert_int_equal(w.block[1], 8);
    assert_int_equal(w.block[2], 1);
    assert_int_equal(w.base_block[0], 0);
    assert_false(w.sm_multiple);
    json_decref(l);
    json_decref(b);
    /* command form: the user's launch */
    l = json_loads("{\"block\":[128,1,1],\"grid_mode\":\"sm_multiple\",\"grid_per_sm\":8,"
                   "\"form\":\"command\"}", 0, NULL);
    assert_int_equal(rw_launch_from_json(l, NULL, &w, err, sizeof err), HK_OK);
    assert_int_equal(w.block[0], 0);
    assert_false(w.sm_multiple);
    json_decref(l);
    assert_int_equal(rw_launch_from_json(NULL, NULL, &w, err, sizeof err), HK_OK);
    assert_int_equal(w.block[0], 0);
    /* a divided grid (stencil_window) */
    l = json_loads("{\"block\":[32,8,1],\"grid_mode\":\"divided\",\"grid_divisor\":4,"
                   "\"grid_axis\":\"z\"}", 0, NULL);
    assert_int_equal(rw_launch_from_json(l, NULL, &w, err, sizeof err), HK_OK);
    assert_int_equal(w.grid_divisor, 4);
    assert_int_equal(w.grid_axis, 2);
    assert_false(w.sm_multiple);
    json_decref(l);
    /* a multiplied grid (split_topk_scan) */
    l = json_loads("{\"block\":[512,1,1],\"grid_mode\":\"multiplied\",\"grid_multiplier\":4,"
                   "\"grid_axis\":\"x\"}", 0, NULL);
    assert_int_equal(rw_launch_from_json(l, NULL, &w, err, sizeof err), HK_OK);
    assert_int_equal(w.grid_multiplier, 4);
    assert_int_equal(w.grid_divisor, 0);
    assert_int_equal(w.grid_axis, 0);
    json_decref(l);
    static const char *const bad[] = {
        "{\"grid_mode\":\"multiplied\",\"grid_multiplier\":1,\"grid_axis\":\"x\"}",
        "{\"grid_mode\":\"multiplied\",\"grid_multiplier\":4}",
        "{\"block\":[0,1,1]}", "{\"block\":[2048]}", "{\"block\":[1,1,1,1]}",
        "{\"block\":[\"x\"]}", "{\"grid_mode\":\"sm_multiple\"}",
        "{\"grid_mode\":\"sm_multiple\",\"grid_per_sm\":0}", "{\"grid_mode\":\"weird\"}",
        "{\"grid_mode\":\"divided\",\"grid_divisor\":1,\"grid_axis\":\"y\"}",
        "{\"grid_mode\":\"divided\",\"grid_divisor\":4,\"grid_axis\":\"w\"}",
        "{\"grid_mode\":\"divided\",\"grid_divisor\":4}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        l = json_loads(bad[i], 0, NULL);
        assert_non_null(l);
        err[0] = '\0';
        assert_int_equal(rw_launch_from_json(l, NULL, &w, err, sizeof err), HK_EINVAL);
        assert_true(strlen(err) > 0);
        json_decref(l);
    }
}

/* Every suite kernel (bench/kernels): the SM grid and a halved 1-D block are written or
 * refused with a reason, never broken; what is written re-applies as a no-op and compiles
 * (queued for test_compiles). */
static void test_suite_kernels(void **state)
{
    const char *suite = HK_TEST_DATA "/../../bench/kernels";
    int written = 0, refused = 0;
    char find[700];
    snprintf(find, sizeof find, "ls '%s'/*.cu", suite);
    FILE *p = popen(find, "r");
    assert_non_null(p);
    char path[700];
    while (fgets(path, sizeof path, p)) {
        path[strcspn(path, "\n")] = '\0';
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        char *text = NULL;
        size_t tl = 0;
        FILE *ms = open_memstream(&text, &tl);
        int ch;
        while ((ch = fgetc(f)) != EOF)
            fputc(ch, ms);
        fclose(ms);
        fclose(f);
        an_model *m = NULL;
        assert_int_equal(an_analyze(text, tl, &m), HK_OK);
        for (size_t k = 0; k < m->n_funcs; k++) {
            if (m->funcs[k].kind != AN_KERNEL)
                continue;
            const char *name = m->funcs[k].name;
            rw_launch wants[2] = {{.sm_multiple = true, .grid_per_sm = 8}, {.block = {0, 1, 1}}};
            /* the halved block of the first site, when it is a literal */
            for (size_t l = 0; l < m->n_launches; l++)
                if (!strcmp(m->launches[l].kernel, name) && m->launches[l].block &&
                    atoi(m->launches[l].block) > 1) {
                    wants[1].block[0] = (unsigned)atoi(m->launches[l].block) / 2;
                    break;
                }
            for (int wi = 0; wi < 2; wi++) {
                if (!wants[wi].block[0] && !wants[wi].sm_multiple)
                    continue;
                outcome o = {0};
                o.rc = rw_launch_config(text, tl, m, name, &wants[wi], false, &o.r, &o.rep);
                assert_int_equal(o.rc, HK_OK);
                assert_non_null(o.r.description);
                if (!o.r.applicable) {
                    refused++;
                    print_message("%s: %s\n", name, o.r.description);
                } else if (o.rep.n_edits) {
                    written++;
                    edits_rebuild(text, &o);
                    idempotent(o.r.text, name, &wants[wi], false);
                    char tag[200];
                    snprintf(tag, sizeof tag, "suite_%s_%d", name, wi);
                    nvb_add(tmpdir, tag, o.r.text, strlen(o.r.text));
                }
                done(&o);
            }
        }
        an_model_free(m);
        free(text);
    }
    pclose(p);
    print_message("suite: %d launch rewrites written, %d refused\n", written, refused);
    assert_true(written >= 20);
}

/* Every text the tests above queued compiles (nvb_compile_all): listed last. */
static void test_compiles(void **state)
{
    n_compiled = (int)nvb_n_jobs;
    nvb_compile_all(tmpdir);
}

static void test_alloc_failure(void **state)
{
    rw_launch sm = {.block = {128, 1, 1}, .sm_multiple = true, .grid_per_sm = 8};
    an_model *m = NULL;
    assert_int_equal(an_analyze(define_src, strlen(define_src), &m), HK_OK);
    long live = hk_alloc_live();
    bool ok = false;
    for (long n = 1; n < 5000 && !ok; n++) {
        rw_result r;
        rw_launch_report rep;
        hk_alloc_fail_after(n);
        int rc = rw_launch_config(define_src, strlen(define_src), m, "neg", &sm, false, &r, &rep);
        hk_alloc_fail_after(0);
        assert_true(rc == HK_OK || rc == HK_ENOMEM);
        if (rc == HK_OK) {
            ok = r.applicable && rep.n_edits > 0;
            rw_result_free(&r);
            rw_launch_report_free(&rep);
        }
        assert_int_equal(hk_alloc_live(), live);
    }
    assert_true(ok);
    an_model_free(m);
}

int main(void)
{
    hk_alloc_init_json();
    const char *why = NULL;
    if (an_grammar_check(&why) != HK_OK) {
        fprintf(stderr, "grammar: %s\n", why);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sm_multiple_chevron), cmocka_unit_test(test_block_literals),
        cmocka_unit_test(test_divided_grid),
        cmocka_unit_test(test_multiplied_grid),
        cmocka_unit_test(test_nothing_to_change),   cmocka_unit_test(test_dim3),
        cmocka_unit_test(test_hip),                 cmocka_unit_test(test_cuda_launch_kernel),
        cmocka_unit_test(test_define),              cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_no_site),             cmocka_unit_test(test_two_launchers),
        cmocka_unit_test(test_from_json),           cmocka_unit_test(test_suite_kernels),
        cmocka_unit_test(test_alloc_failure),       cmocka_unit_test(test_compiles),
        cmocka_unit_test(test_chinese),
    };
    int rc = cmocka_run_group_tests(tests, setup, teardown);
    printf("%d rewritten texts compiled with nvcc\n", n_compiled);
    return rc;
}
