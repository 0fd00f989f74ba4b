/* Skeleton specs (hkls spec) from the analysis of real kernels: each one validates, and
 * the inferred kinds, counts, launch and sizes are the ones a CUDA engineer would write
 * for the suite's kernels (or the documented guesses where the code cannot tell). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "core/hk.h"
#include "spec/spec.h"

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = hk_malloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

/* Skeleton for kernel in path (source written as given); validated with the spec parser
 * as if the spec sat next to the test data. Returns the JSON (caller decrefs). */
static json_t *skeleton_of(const char *path, const char *kernel, const char *source)
{
    size_t len;
    char *text = read_file(path, &len);
    an_model *m = NULL;
    assert_int_equal(an_analyze(text, len, &m), HK_OK);
    long k = an_model_find_kernel(m, kernel);
    assert_true(k >= 0);
    json_t *root = NULL;
    assert_int_equal(spec_skeleton(m, k, text, len, source, &root), HK_OK);
    char *dump = json_dumps(root, JSON_INDENT(2));
    spec_diags d = { 0 };
    spec *s = NULL;
    int rc = spec_parse(dump, strlen(dump), HK_SOURCE_DIR "/x.bench.json", &s, &d);
    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "%s: %d: %s: %s\n", kernel, d.items[i].line, d.items[i].path, d.items[i].message);
    if (rc != HK_OK)
        fail_msg("skeleton of %s does not validate:\n%s", kernel, dump);
    assert_int_equal(d.n, 0); /* not even a warning: one size set is ragged */
    spec_free(s);
    spec_diags_free(&d);
    hk_free(dump);
    an_model_free(m);
    hk_free(text);
    return root;
}

static const char *arg_field(json_t *root, size_t i, const char *field)
{
    json_t *v = json_object_get(json_array_get(json_object_get(root, "args"), i), field);
    assert_non_null(v);
    return json_string_value(v);
}

static const char *grid_dim(json_t *root, size_t d)
{
    json_t *g = json_object_get(json_object_get(root, "launch"), "grid");
    return json_string_value(json_is_array(g) ? json_array_get(g, d) : g);
}

#define BENCH(k) HK_SOURCE_DIR "/bench/kernels/" k ".cu"

static void elementwise(void **state)
{
    json_t *r = skeleton_of(BENCH("saxpy"), "saxpy", "bench/kernels/saxpy.cu");
    assert_string_equal(arg_field(r, 0, "kind"), "scalar");
    assert_string_equal(arg_field(r, 0, "value"), "n");
    assert_string_equal(arg_field(r, 2, "kind"), "input");
    assert_string_equal(arg_field(r, 3, "kind"), "inout"); /* y[i] = a * x[i] + y[i] reads y */
    assert_string_equal(arg_field(r, 3, "count"), "n");
    assert_string_equal(grid_dim(r, 0), "ceil_div(n, block_x)");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "launch"), "block")), 256);
    json_t *s0 = json_array_get(json_object_get(r, "sizes"), 0);
    assert_int_equal(json_integer_value(json_object_get(s0, "n")), 1000003);
    assert_int_equal(json_array_size(json_object_get(r, "seeds")), 5);
    json_decref(r);
    r = skeleton_of(BENCH("vector_add"), "vector_add", "bench/kernels/vector_add.cu");
    assert_string_equal(arg_field(r, 2, "kind"), "output"); /* c[i] = ... only written */
    json_decref(r);
}

static void accumulators(void **state)
{
    json_t *r = skeleton_of(BENCH("reduce_sum"), "reduce_sum", "bench/kernels/reduce_sum.cu");
    assert_string_equal(arg_field(r, 1, "kind"), "inout");
    assert_string_equal(arg_field(r, 1, "count"), "1");
    assert_string_equal(arg_field(r, 1, "dist"), "zeros");
    json_decref(r);
    r = skeleton_of(BENCH("histogram"), "histogram", "bench/kernels/histogram.cu");
    assert_string_equal(arg_field(r, 0, "dtype"), "uint8");
    assert_string_equal(arg_field(r, 1, "dtype"), "uint32");
    assert_string_equal(arg_field(r, 1, "kind"), "inout");
    assert_string_equal(arg_field(r, 1, "dist"), "zeros");
    json_decref(r);
}

static void two_dimensional_from_dim3_locals(void **state)
{
    json_t *r = skeleton_of(BENCH("transpose"), "transpose", "bench/kernels/transpose.cu");
    assert_string_equal(grid_dim(r, 0), "ceil_div(cols, block_x)");
    assert_string_equal(grid_dim(r, 1), "ceil_div(rows, block_y)");
    json_t *b = json_object_get(json_object_get(r, "launch"), "block");
    assert_int_equal(json_array_size(b), 2);
    assert_int_equal(json_integer_value(json_array_get(b, 1)), 16);
    /* from the subscript out[x * rows + y] with x < cols, y < rows: rows * cols */
    assert_string_equal(arg_field(r, 1, "count"), "(cols - 1)*rows+(rows - 1) + 1");
    /* rows and cols differ in both sets, so a swapped index shows */
    json_t *s0 = json_array_get(json_object_get(r, "sizes"), 0);
    assert_int_not_equal(json_integer_value(json_object_get(s0, "rows")),
                         json_integer_value(json_object_get(s0, "cols")));
    json_decref(r);
    r = skeleton_of(BENCH("sgemm"), "sgemm", "bench/kernels/sgemm.cu");
    assert_string_equal(grid_dim(r, 0), "ceil_div(N, block_x)");
    assert_string_equal(grid_dim(r, 1), "ceil_div(M, block_y)");
    assert_string_equal(arg_field(r, 7, "kind"), "inout"); /* beta * C[...] reads C */
    json_decref(r);
}

static void launcher_locals_and_float_scalars(void **state)
{
    json_t *r = skeleton_of(BENCH("rope"), "rope_forward", "bench/kernels/rope.cu");
    /* pairs = tokens * heads * (dim / 2) in the launcher, substituted */
    assert_string_equal(grid_dim(r, 0), "ceil_div((tokens*heads*(dim/2)), block_x)");
    json_t *base = json_object_get(json_array_get(json_object_get(r, "args"), 5), "value");
    assert_true(json_is_real(base) && json_real_value(base) == 10000.0);
    json_t *s0 = json_array_get(json_object_get(r, "sizes"), 0);
    assert_int_equal(json_integer_value(json_object_get(s0, "dim")), 64); /* even: pairs */
    json_decref(r);
    r = skeleton_of(BENCH("layernorm"), "layernorm", "bench/kernels/layernorm.cu");
    json_t *eps = json_object_get(json_array_get(json_object_get(r, "args"), 6), "value");
    assert_true(json_real_value(eps) == 1e-5);
    json_decref(r);
}

static void templates_half_and_no_launch(void **state)
{
    json_t *r = skeleton_of(HK_TEST_DATA "/specs/tiled_template.cu", "row_sum", "tests/data/specs/tiled_template.cu");
    json_t *ta = json_object_get(r, "template_args");
    assert_int_equal(json_array_size(ta), 2);
    assert_string_equal(json_string_value(json_array_get(ta, 1)), "float");
    assert_string_equal(arg_field(r, 0, "dtype"), "float"); /* const T * with T = float */
    /* no launch site: a 1D grid over the size variables */
    assert_string_equal(grid_dim(r, 0), "ceil_div(rows * cols, block_x)");
    json_decref(r);
    r = skeleton_of(HK_TEST_DATA "/specs/half_scale.cu", "half_scale", "tests/data/specs/half_scale.cu");
    assert_string_equal(arg_field(r, 0, "dtype"), "half");
    assert_string_equal(arg_field(r, 2, "dtype"), "half");
    assert_string_equal(arg_field(r, 4, "dtype"), "int64");
    json_decref(r);
}

static void refuses_non_kernels(void **state)
{
    size_t len;
    char *text = read_file(BENCH("saxpy"), &len);
    an_model *m = NULL;
    assert_int_equal(an_analyze(text, len, &m), HK_OK);
    json_t *root = NULL;
    long launcher = -1;
    for (size_t i = 0; i < m->n_funcs; i++)
        if (m->funcs[i].kind != AN_KERNEL)
            launcher = (long)i;
    assert_true(launcher >= 0);
    assert_int_equal(spec_skeleton(m, launcher, text, len, "s.cu", &root), HK_EINVAL);
    assert_int_equal(spec_skeleton(m, 99, text, len, "s.cu", &root), HK_EINVAL);
    assert_null(root);
    an_model_free(m);
    hk_free(text);
}

static json_t *skeleton_of_text(const char *text, const char *kernel, int want_rc)
{
    an_model *m = NULL;
    assert_int_equal(an_analyze(text, strlen(text), &m), HK_OK);
    long k = an_model_find_kernel(m, kernel);
    assert_true(k >= 0);
    json_t *root = NULL;
    assert_int_equal(spec_skeleton(m, k, text, strlen(text), "k.cu", &root), want_rc);
    an_model_free(m);
    return root;
}

/* A launch grid that makes no sense for the guessed sizes (n / chunks is 0 when chunks
 * is guessed larger than n) falls back to a 1D launch over the kernel's own sizes. */
static void falls_back_when_the_site_grid_does_not_fit(void **state)
{
    json_t *r = skeleton_of_text("__global__ void k(const float *a, float *b, int n)\n"
                                 "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i]; }\n"
                                 "void go(const float *a, float *b, int n, int chunks)\n"
                                 "{ k<<<n / chunks, 256>>>(a, b, n); }\n",
                                 "k", HK_OK);
    assert_string_equal(grid_dim(r, 0), "ceil_div(n, block_x)");
    json_t *s0 = json_array_get(json_object_get(r, "sizes"), 0);
    assert_null(json_object_get(s0, "chunks"));
    json_decref(r);
}

/* Nothing to compare: no writable pointer, or no parameters at all. */
static void refuses_kernels_without_outputs(void **state)
{
    assert_null(skeleton_of_text("__global__ void k(const float *a, int n) { }\n", "k", HK_EUNSUPPORTED));
    assert_null(skeleton_of_text("__global__ void k() { }\n", "k", HK_EUNSUPPORTED));
}

static void no_leaks_under_allocation_failure(void **state)
{
    size_t len;
    char *text = read_file(BENCH("sgemm"), &len);
    an_model *m = NULL;
    assert_int_equal(an_analyze(text, len, &m), HK_OK);
    long k = an_model_find_kernel(m, "sgemm");
    long live = hk_alloc_live();
    bool ok = false;
    for (long n = 1; n < 2000 && !ok; n++) {
        json_t *root = NULL;
        hk_alloc_fail_after(n);
        int rc = spec_skeleton(m, k, text, len, "s.cu", &root);
        hk_alloc_fail_after(0);
        assert_true(rc == HK_OK || rc == HK_ENOMEM);
        ok = rc == HK_OK;
        json_decref(root);
        assert_int_equal(hk_alloc_live(), live);
    }
    assert_true(ok);
    an_model_free(m);
    hk_free(text);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(elementwise),
        cmocka_unit_test(accumulators),
        cmocka_unit_test(two_dimensional_from_dim3_locals),
        cmocka_unit_test(launcher_locals_and_float_scalars),
        cmocka_unit_test(templates_half_and_no_launch),
        cmocka_unit_test(refuses_non_kernels),
        cmocka_unit_test(falls_back_when_the_site_grid_does_not_fit),
        cmocka_unit_test(refuses_kernels_without_outputs),
        cmocka_unit_test(no_leaks_under_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
