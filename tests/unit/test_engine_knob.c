/* Knob proof tests: a constant that decides what the kernel computes (a stencil's radius, a
 * problem size) is refused with the use that shows it; a block size, a tile with its loop
 * and an unroll factor are proven; a search never makes an axis of a refused one. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "measure/cmdform.h"
#include "search/knob.h"
#include "search/search.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text;
    size_t len;
    an_model *m;
} fixture;

static void load(const char *dir, const char *name, fixture *fx)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s/%s", HK_TEST_DATA, dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    fx->text = malloc((size_t)n + 1);
    assert_non_null(fx->text);
    assert_int_equal(fread(fx->text, 1, (size_t)n, f), (size_t)n);
    fx->text[n] = '\0';
    fx->len = (size_t)n;
    fclose(f);
    assert_int_equal(an_analyze(fx->text, fx->len, &fx->m), HK_OK);
    assert_false(fx->m->has_errors);
}

static void from_text(const char *text, fixture *fx)
{
    fx->text = strdup(text);
    fx->len = strlen(text);
    assert_int_equal(an_analyze(fx->text, fx->len, &fx->m), HK_OK);
}

static void unload(fixture *fx)
{
    an_model_free(fx->m);
    free(fx->text);
}

static size_t tunable(const fixture *fx, const char *name)
{
    for (size_t i = 0; i < fx->m->n_tunables; i++)
        if (!strcmp(fx->m->tunables[i].name, name))
            return i;
    fail_msg("no tunable %s", name);
    return 0;
}

/* Proves name for kernel and checks the verdict; a refusal's reason must hold words. */
static void expect(const fixture *fx, const char *kernel, const char *name, bool linked,
                   bool proven, const char *words, unsigned line)
{
    long k = an_model_find_kernel(fx->m, kernel);
    assert_true(k >= 0);
    knob_proof p;
    long live = hk_alloc_live();
    assert_int_equal(knob_prove(fx->text, fx->len, fx->m, (size_t)k, tunable(fx, name), linked, &p),
                     HK_OK);
    print_message("%s: %s: %s\n", name, p.proven ? "proven" : "refused", p.why);
    if (p.proven != proven || (words && !strstr(p.why, words)) || (line && p.line != line))
        fail_msg("%s: proven %d, line %u, why: %s", name, p.proven, p.line, p.why);
    knob_proof_clear(&p);
    assert_int_equal(hk_alloc_live(), live);
}

static void test_stencil(void **state)
{
    (void)state;
    fixture fx;
    load("knob", "stencil1d.cu", &fx);
    /* the stencil's sum runs from -RADIUS to RADIUS: the most telling use is named */
    expect(&fx, "stencil_1d", "RADIUS", false, false, "used in the bound of a loop that reads temp[]", 22);
    /* the launch's block, the tile's size and blockDim's stand-in in the halo's index */
    expect(&fx, "stencil_1d", "BLOCK_SIZE", false, true, "the block size", 0);
    /* the problem size: the host's check loop and the grid */
    expect(&fx, "stencil_1d", "N", false, false, "host code", 0);
    unload(&fx);
}

static void test_gemm_tile(void **state)
{
    (void)state;
    fixture fx;
    load("knob", "gemm_tiled.cu", &fx);
    expect(&fx, "sgemm_tiled", "TILE", false, true, "a tile size", 0);
    unload(&fx);
    /* the same tiles without a launch in the file: the strip loop and its tile loop alone
     * prove it a tile (blockIdx * TILE is then no stand-in for blockDim: refused) */
    const char *no_launch =
        "#define TILE 16\n"
        "__global__ void dot_tiles(const float *a, const float *b, float *out, int n)\n"
        "{\n"
        "    __shared__ float ta[TILE];\n"
        "    float acc = 0.0f;\n"
        "    for (int t = 0; t < n; t += TILE) {\n"
        "        if (threadIdx.x == 0)\n"
        "            for (int k = 0; k < TILE; k++)\n"
        "                ta[k] = a[t + k] * b[t + k];\n"
        "        __syncthreads();\n"
        "        for (int k = 0; k < TILE; k++)\n"
        "            acc += ta[k];\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (threadIdx.x == 0)\n"
        "        out[blockIdx.x] = acc;\n"
        "}\n";
    from_text(no_launch, &fx);
    expect(&fx, "dot_tiles", "TILE", false, true, "a tile size", 0);
    unload(&fx);
}

static void test_problem_size(void **state)
{
    (void)state;
    fixture fx;
    load("knob", "problem_size.cu", &fx);
    expect(&fx, "scale", "N", false, false, "used in the condition of if", 10);
    expect(&fx, "scale", "THREADS", false, true, "launch", 0);
    unload(&fx);
}

static void test_forms(void **state)
{
    (void)state;
    fixture fx;
    /* an unroll pragma and a coarsening loop over X * U + u */
    from_text("#define U 4\n"
              "__global__ void k(const float *x, float *y, int n)\n"
              "{\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "#pragma unroll U\n"
              "    for (int u = 0; u < U; u++)\n"
              "        if (n > i * U + u)\n"
              "            y[i * U + u] = 2.0f * x[i * U + u];\n"
              "}\n"
              "void run(const float *x, float *y, int n)\n"
              "{\n"
              "    k<<<(n + 256 * U - 1) / (256 * U), 256>>>(x, y, n);\n"
              "}\n", &fx);
    expect(&fx, "k", "U", false, true, "an unroll factor", 0);
    unload(&fx);
    /* the same loop when no launch scales the grid by U: fewer elements per thread would
     * leave some unwritten, more would be covered twice */
    from_text("#define U 4\n"
              "__global__ void k(const float *x, float *y, int n)\n"
              "{\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    for (int u = 0; u < U; u++)\n"
              "        if (n > i * U + u)\n"
              "            y[i * U + u] = 2.0f * x[i * U + u];\n"
              "}\n", &fx);
    expect(&fx, "k", "U", false, false, "no launch in the file sizes its grid by it", 6);
    unload(&fx);
    /* a value: the result is scaled by it */
    from_text("#define SCALE 4\n"
              "__global__ void k(const float *x, float *y, int n)\n"
              "{\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    if (n > i)\n"
              "        y[i] = x[i] * SCALE;\n"
              "}\n", &fx);
    expect(&fx, "k", "SCALE", false, false, "used in the value stored to y", 6);
    unload(&fx);
    /* a block size linked by the caller; a value use still refuses it */
    from_text("#define B 256\n"
              "__global__ void k(float *y)\n"
              "{\n"
              "    __shared__ float s[B];\n"
              "    s[threadIdx.x] = y[blockIdx.x * B + threadIdx.x];\n"
              "    __syncthreads();\n"
              "    for (int h = B / 2; h > 0; h >>= 1) {\n"
              "        if (h > threadIdx.x)\n"
              "            s[threadIdx.x] += s[threadIdx.x + h];\n"
              "        __syncthreads();\n"
              "    }\n"
              "    if (threadIdx.x == 0)\n"
              "        y[blockIdx.x] = s[0] / B;\n"
              "}\n", &fx);
    expect(&fx, "k", "B", true, false, "used in the value stored to y", 13);
    unload(&fx);
    /* a register array of the factor, read at a fixed index: not a pure unroll */
    from_text("constexpr int UNROLL = 4;\n"
              "__global__ void k(const float *x, float *y)\n"
              "{\n"
              "    float acc[UNROLL];\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    for (int u = 0; u < UNROLL; u++)\n"
              "        acc[u] = x[i * UNROLL + u];\n"
              "    y[i] = acc[0] + acc[1] + acc[2] + acc[3];\n"
              "}\n", &fx);
    expect(&fx, "k", "UNROLL", false, false, "sizes the array acc[]", 8);
    unload(&fx);
}

static bool refused_has(const search *s, const char *words)
{
    size_t n = 0;
    const char *const *r = search_refused_tunables(s, &n);
    for (size_t i = 0; i < n; i++) {
        print_message("refused: %s\n", r[i]);
        if (strstr(r[i], words))
            return true;
    }
    return false;
}

/* The search takes BLOCK_SIZE as an axis (linked to the block) and says why RADIUS is not
 * one; in the command form it sets neither (both are defined outside the kernel), and no
 * candidate changes a line outside the kernel's definition. */
static void test_search_axes(void **state)
{
    (void)state;
    fixture fx;
    load("knob", "stencil1d.cu", &fx);
    size_t k = (size_t)an_model_find_kernel(fx.m, "stencil_1d");
    search_launch l = {.block = {256, 1, 1}, .block_free = true, .sm_count = 132};
    search_budget b = {.max_candidates = 40};
    search *s;
    assert_int_equal(search_new(fx.text, fx.len, fx.m, k, &l, 1, &b, &s), HK_OK);
    char *axes = search_describe_axes(s);
    print_message("axes: %s\n", axes);
    assert_non_null(strstr(axes, "BLOCK_SIZE = block size"));
    assert_null(strstr(axes, "RADIUS"));
    hk_free(axes);
    assert_true(refused_has(s, "RADIUS not searched: used in the bound of a loop that reads temp[] (line 22)"));
    const search_candidate *c;
    bool moved = false;
    while (search_next(s, &c) == HK_OK) {
        assert_non_null(strstr(c->text, "#define RADIUS 3\n"));
        moved |= strstr(c->text, "#define BLOCK_SIZE 256\n") == NULL;
        assert_int_equal(search_report(s, c->id, SEARCH_OK, 1.0 + c->id * 0.01), HK_OK);
    }
    assert_true(moved);
    search_free(s);

    /* the command form */
    search_launch cl = {.block = {1, 1, 1}, .exact_tolerance = true, .kernel_only = true};
    assert_int_equal(search_new(fx.text, fx.len, fx.m, k, &cl, 1, &b, &s), HK_OK);
    axes = search_describe_axes(s);
    print_message("axes: %s\n", axes);
    assert_null(strstr(axes, "BLOCK_SIZE"));
    hk_free(axes);
    assert_true(refused_has(s, "BLOCK_SIZE not searched: defined outside the kernel, and only the "
                               "kernel's definition may change (line 7)"));
    assert_true(refused_has(s, "RADIUS not searched: defined outside the kernel"));
    size_t n = 0;
    while (search_next(s, &c) == HK_OK) {
        unsigned line = 1;
        char *why = NULL;
        assert_int_equal(cmdform_check_outside_kernel(fx.text, fx.len, c->text, c->len, "stencil_1d",
                                                      &line, &why), HK_OK);
        if (line)
            fail_msg("%s: %s", c->description, why);
        n++;
        assert_int_equal(search_report(s, c->id, SEARCH_OK, 1.0 + c->id * 0.01), HK_OK);
    }
    assert_true(n > 1);
    search_free(s);
    unload(&fx);

    /* a constexpr inside the kernel is the kernel's own: the command form may set it when
     * it is proven (a shared tile of the block's size here) */
    from_text("__global__ void k(float *y)\n"
              "{\n"
              "    constexpr int T = 4;\n"
              "#pragma unroll T\n"
              "    for (int i = threadIdx.x; i < 1024; i += blockDim.x)\n"
              "        y[i] = 2.0f * y[i];\n"
              "}\n", &fx);
    assert_int_equal(search_new(fx.text, fx.len, fx.m, 0, &cl, 1, &b, &s), HK_OK);
    axes = search_describe_axes(s);
    print_message("axes: %s\n", axes);
    assert_non_null(strstr(axes, "T (now 4)"));
    hk_free(axes);
    search_free(s);
    unload(&fx);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    fixture fx;
    load("knob", "problem_size.cu", &fx);
    knob_proof p;
    assert_int_equal(knob_prove(fx.text, fx.len, fx.m, 99, 0, false, &p), HK_EINVAL);
    assert_int_equal(knob_prove(fx.text, fx.len, fx.m, 0, 99, false, &p), HK_EINVAL);
    unload(&fx);
}

int main(void)
{
    const char *why;
    if (an_grammar_check(&why) != HK_OK) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stencil),
        cmocka_unit_test(test_gemm_tile),
        cmocka_unit_test(test_problem_size),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_search_axes),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
