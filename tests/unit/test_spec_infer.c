/* Spec inference (spec/infer.c) on kernels written the ways other people write them:
 * counts from cudaMalloc and from the subscripts, grids that cover every element the
 * bounds checks name, read-only pointers as inputs, launch-site sizes, pinned blocks,
 * many integer parameters, __constant__ tables as inputs, and the doubts that make a
 * caller refuse. Every inferred spec is parsed by the engine's parser at the path it names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "core/hk.h"
#include "core/i18n.h"
#include "spec/expr.h"
#include "spec/infer.h"
#include "spec/spec.h"

#define DATA(f) HK_TEST_DATA "/infer/" f

static const char *field(json_t *root, size_t arg, const char *key)
{
    json_t *v = json_object_get(json_array_get(json_object_get(root, "args"), arg), key);
    assert_non_null(v);
    return json_string_value(v);
}

static bool has_note(const spec_inference *inf, const char *part)
{
    for (size_t i = 0; i < inf->n_notes; i++)
        if (strstr(inf->notes[i], part))
            return true;
    return false;
}

/* Inferred for DATA(file) as if saved next to it; must parse there. */
static void infer(const char *file, const char *kernel, spec_inference *inf)
{
    char *spec_path = spec_default_path(file, kernel);
    char err[512];
    assert_int_equal(spec_infer(file, kernel, spec_path, inf, err, sizeof err), HK_OK);
    char *dump = json_dumps(inf->spec, 0);
    spec *s = NULL;
    spec_diags d = { 0 };
    if (spec_parse(dump, strlen(dump), spec_path, &s, &d) != HK_OK)
        fail_msg("%s does not parse: %s", kernel, d.n ? d.items[0].message : "?");
    assert_int_equal(s->n_inferred, inf->n_notes);
    spec_free(s);
    spec_diags_free(&d);
    hk_free(dump);
    hk_free(spec_path);
}

/* A naive SGEMM: a 2D grid from the launch, counts from cudaMalloc (one through a
 * vector's size), sizes from the program, A and B read only. */
static void gemm_from_host_code(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("gemm_host.cu"), "matmul", &inf);
    assert_int_equal(inf.n_doubts, 0);
    assert_string_equal(field(inf.spec, 0, "kind"), "input"); /* float *A, only read */
    assert_string_equal(field(inf.spec, 1, "kind"), "input");
    assert_string_equal(field(inf.spec, 2, "kind"), "output");
    assert_string_equal(field(inf.spec, 0, "count"), "(M*K)");
    assert_string_equal(field(inf.spec, 1, "count"), "K*N");
    assert_string_equal(field(inf.spec, 2, "count"), "M*N");
    json_t *g = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_int_equal(json_array_size(g), 2);
    assert_string_equal(json_string_value(json_array_get(g, 0)), "ceil_div(N, block_x)");
    assert_string_equal(json_string_value(json_array_get(g, 1)), "ceil_div(M, block_y)");
    json_t *s1 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
    assert_int_equal(json_integer_value(json_object_get(s1, "M")), 512);
    assert_int_equal(json_integer_value(json_object_get(s1, "K")), 256);
    assert_true(has_note(&inf, "count of C from its allocation at line 25"));
    assert_true(has_note(&inf, "sizes from the launch site at gemm_host.cu:28"));
    assert_non_null(json_object_get(inf.spec, "bytes"));
    spec_inference_free(&inf);
}

/* Seven integer parameters are fine; a pointer that is only read is an input; with no
 * launch site the grid comes from the bounds check. */
static void many_integer_parameters(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("many_ints.cu"), "crop", &inf);
    assert_int_equal(inf.n_doubts, 0);
    assert_string_equal(field(inf.spec, 0, "kind"), "input");
    assert_string_equal(field(inf.spec, 1, "count"), "n*oh*ow");
    assert_string_equal(json_string_value(json_object_get(json_object_get(inf.spec, "launch"), "grid")),
                        "ceil_div(n*oh*ow, block_x)");
    assert_true(has_note(&inf, "grid x from the bounds checks"));
    spec_inference_free(&inf);
}

/* The index math hard-codes 128 and has no bounds check: the block is pinned (the grid
 * does not scale with block_x) and the sizes stay multiples of it, without the ragged
 * warning. */
static void pinned_block_without_bounds_check(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("fixed_block.cu"), "scale", &inf);
    assert_int_equal(inf.n_doubts, 0);
    json_t *l = json_object_get(inf.spec, "launch");
    assert_int_equal(json_integer_value(json_object_get(l, "block")), 128);
    assert_null(strstr(json_string_value(json_object_get(l, "grid")), "block_x"));
    assert_true(json_is_true(json_object_get(inf.spec, "exact_sizes")));
    json_t *sizes = json_object_get(inf.spec, "sizes");
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(json_integer_value(json_object_get(json_array_get(sizes, i), "n")) % 128, 0);
    assert_true(has_note(&inf, "block pinned at 128"));
    spec_inference_free(&inf);
}

/* The spec's "constants" entry of name, or NULL. */
static json_t *constant(json_t *root, const char *name)
{
    json_t *list = json_object_get(root, "constants"), *c;
    size_t i;
    json_array_foreach(list, i, c)
        if (!strcmp(json_string_value(json_object_get(c, "name")), name))
            return c;
    return NULL;
}

static bool has_doubt(const spec_inference *inf, const char *part)
{
    for (size_t i = 0; i < inf->n_doubts; i++)
        if (strstr(inf->doubts[i], part))
            return true;
    return false;
}

/* A __constant__ table the program fills with cudaMemcpyToSymbol is an input the harness
 * fills: its element type and count come from the declaration, and nothing is doubted. */
static void a_constant_table_is_an_input(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("const_table.cu"), "poly", &inf);
    assert_int_equal(inf.n_doubts, 0);
    json_t *c = constant(inf.spec, "coeffs");
    assert_non_null(c);
    assert_string_equal(json_string_value(json_object_get(c, "dtype")), "float");
    assert_int_equal(json_integer_value(json_object_get(c, "count")), 16);
    assert_int_equal(json_array_size(json_object_get(inf.spec, "constants")), 1);
    assert_true(has_note(&inf, "__constant__ coeffs: 16 float from its declaration at line 2"));
    spec_inference_free(&inf);
}

/* A convolution mask read through a __device__ helper, sized by #defines: 25 floats. A
 * table initialised in its declaration is no input (the image carries its values), and a
 * declaration in a comment is none at all. */
static void a_convolution_mask_through_a_device_function(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("conv_mask.cu"), "conv2d", &inf);
    assert_false(has_doubt(&inf, "__constant__"));
    json_t *list = json_object_get(inf.spec, "constants");
    assert_int_equal(json_array_size(list), 1);
    json_t *c = constant(inf.spec, "d_mask");
    assert_non_null(c);
    assert_int_equal(json_integer_value(json_object_get(c, "count")), 25);
    assert_true(has_note(&inf, "the __constant__ table weights, initialised in its declaration at line 8"));
    assert_null(constant(inf.spec, "commented_out"));
    spec_inference_free(&inf);
}

/* A constant in a namespace is named as the spec's symbol lookup needs it (filt::taps); an
 * integer table, a static one in a namespace and a struct are doubts, never filled blindly. */
static void constants_the_harness_cannot_fill_are_doubts(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("const_kinds.cu"), "fir", &inf);
    assert_int_equal(inf.n_doubts, 0);
    assert_non_null(constant(inf.spec, "filt::taps"));
    spec_inference_free(&inf);
    infer(DATA("const_kinds.cu"), "shifted", &inf);
    assert_true(has_doubt(&inf, "integer __constant__ offsets (line 8)"));
    assert_true(has_doubt(&inf, "filt::hidden (line 6), declared static inside a namespace"));
    assert_true(has_doubt(&inf, "__constant__ p (line 10) of type params"));
    assert_null(json_object_get(inf.spec, "constants"));
    spec_inference_free(&inf);
}

/* The value of args[arg].count at n = nv and, when var2 is set, var2 = v2. */
static long long count_at(json_t *root, size_t arg, long long nv, const char *var2, long long v2)
{
    expr *e = NULL;
    expr_value v;
    expr_var vars[2] = { { .name = "n", .value = { .i = nv } }, { .name = var2, .value = { .i = v2 } } };
    assert_int_equal(expr_parse(field(root, arg, "count"), &e, NULL, 0), HK_OK);
    assert_int_equal(expr_eval(e, vars, var2 ? 2 : 1, &v, NULL, 0), HK_OK);
    expr_free(e);
    return v.i;
}

/* A pointer made from a parameter (out + n, &out[r * n], a + n) reaches elements its own
 * subscripts do not show: the count follows it through the kernel model, or is a doubt;
 * out[i] alone (n) would be sure and short. */
static void counts_follow_pointers_made_from_a_parameter(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("aliases.cu"), "two_halves", &inf);
    assert_int_equal(inf.n_doubts, 0);
    assert_int_equal(count_at(inf.spec, 1, 1000, NULL, 0), 2000);
    assert_true(has_note(&inf, "count of out from the kernel model's index forms in two_halves (the "
                               "pointer made from it at line 10 followed)"));
    spec_inference_free(&inf);
    infer(DATA("aliases.cu"), "upper_half_sum", &inf);
    assert_int_equal(inf.n_doubts, 0);
    assert_string_equal(field(inf.spec, 0, "kind"), "input");
    assert_int_equal(count_at(inf.spec, 0, 1000, NULL, 0), 2000);
    spec_inference_free(&inf);
    /* &out[r * n] is no read of out, and it is written through */
    infer(DATA("aliases.cu"), "row_fill", &inf);
    assert_int_equal(inf.n_doubts, 0);
    assert_string_equal(field(inf.spec, 1, "kind"), "output");
    assert_int_equal(count_at(inf.spec, 1, 100, "rows", 7), 700);
    spec_inference_free(&inf);
    /* flag ? even : odd: both may be written; how far is not known */
    infer(DATA("aliases.cu"), "pick", &inf);
    assert_string_equal(field(inf.spec, 1, "kind"), "output");
    assert_string_equal(field(inf.spec, 2, "kind"), "output");
    assert_true(has_doubt(&inf, "even is used through another pointer made from it at line 40"));
    assert_true(has_doubt(&inf, "odd is used through another pointer made from it at line 40"));
    spec_inference_free(&inf);
}

/* dim3 grid; grid.x = ...; grid.y = batch; is the launch's grid (a kernel without a bounds
 * check on blockIdx.y needs it), never a size variable named grid; s.n and s.batch passed
 * as arguments are those sizes in the launcher's grid and allocations; a member set in a
 * branch is not read as the launch's grid. */
static void grids_written_with_struct_members(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("grid_members.cu"), "batched", &inf);
    assert_int_equal(inf.n_doubts, 0);
    json_t *g = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_int_equal(json_array_size(g), 3);
    assert_string_equal(json_string_value(json_array_get(g, 0)), "ceil_div(n, block_x)");
    assert_string_equal(json_string_value(json_array_get(g, 1)), "batch");
    assert_int_equal(json_integer_value(json_array_get(g, 2)), 1);
    assert_null(json_object_get(json_array_get(json_object_get(inf.spec, "sizes"), 0), "grid"));
    assert_string_equal(field(inf.spec, 1, "count"), "n*batch");
    spec_inference_free(&inf);

    infer(DATA("grid_members.cu"), "batched_shape", &inf);
    assert_int_equal(inf.n_doubts, 0);
    g = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_string_equal(json_string_value(json_array_get(g, 0)), "ceil_div(n, block_x)");
    assert_string_equal(json_string_value(json_array_get(g, 1)), "batch");
    assert_string_equal(field(inf.spec, 1, "count"), "n*batch");
    assert_true(has_note(&inf, "batch passed as s.batch at grid_members.cu:38"));
    spec_inference_free(&inf);

    infer(DATA("grid_members.cu"), "batched_maybe", &inf);
    assert_true(has_doubt(&inf, "no launch site or bounds check says how many blocks batched_maybe needs"));
    spec_inference_free(&inf);
}

/* A 2D kernel whose launch grid cannot be read (a helper computes it) gets the grid its
 * bounds imply, covering every row and column, not a 1D grid over column 0. */
static void grid_from_bounds_when_the_launch_is_opaque(void **state)
{
    (void)state;
    char dir[] = "/tmp/hk-test-infer-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/k.cu", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("__global__ void add2d(const float *a, float *c, int rows, int cols)\n"
          "{\n"
          "    int x = threadIdx.x + blockIdx.x * blockDim.x;\n"
          "    int y = threadIdx.y + blockIdx.y * blockDim.y;\n"
          "    if (x >= cols || y >= rows) return;\n"
          "    c[y * cols + x] = 2.0f * a[y * cols + x];\n"
          "}\n"
          "dim3 grid_for(int r, int c);\n"
          "void go(const float *a, float *c, int rows, int cols)\n"
          "{ add2d<<<grid_for(rows, cols), dim3(32, 8)>>>(a, c, rows, cols); }\n", f);
    fclose(f);
    spec_inference inf;
    infer(path, "add2d", &inf);
    assert_int_equal(inf.n_doubts, 0);
    json_t *g = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_string_equal(json_string_value(json_array_get(g, 0)), "ceil_div(cols, block_x)");
    assert_string_equal(json_string_value(json_array_get(g, 1)), "ceil_div(rows, block_y)");
    assert_string_equal(field(inf.spec, 1, "count"), "(rows - 1)*cols+(cols - 1) + 1");
    spec_inference_free(&inf);
    /* saved once; a second save does not replace it */
    char *sp = spec_default_path(path, "add2d");
    infer(path, "add2d", &inf);
    assert_int_equal(spec_infer_save(&inf, sp, false), HK_OK);
    assert_int_equal(spec_infer_save(&inf, sp, false), HK_EIO);
    char *found = spec_find(path, "add2d");
    assert_string_equal(found, sp);
    hk_free(found);
    spec_inference_free(&inf);
    unlink(sp);
    hk_free(sp);
    unlink(path);
    rmdir(dir);
}

static void refusals_say_why(void **state)
{
    (void)state;
    spec_inference inf;
    char err[512];
    assert_int_equal(spec_infer(DATA("gemm_host.cu"), "nope", "/tmp/x.bench.json", &inf, err, sizeof err),
                     HK_ENOENT);
    assert_non_null(strstr(err, "no kernel 'nope'"));
    assert_int_equal(spec_infer(DATA("missing.cu"), "k", "/tmp/x.bench.json", &inf, err, sizeof err),
                     HK_ENOENT);
}

/* A relative -I and the spec's own directory reach the compiler as absolute paths. */
static void include_dirs_are_anchored(void **state)
{
    (void)state;
    const char *text = "{\"kernel\":\"k\",\"source\":\"gemm_host.cu\",\"compile_flags\":[\"-Iinc\"],"
                       "\"sizes\":[{\"n\":1000},{\"n\":4096}],"
                       "\"args\":[{\"kind\":\"output\",\"dtype\":\"float\",\"count\":\"n\"}],"
                       "\"launch\":{\"grid\":\"ceil_div(n, block_x)\",\"block\":256}}";
    spec *s = NULL;
    spec_diags d = { 0 };
    assert_int_equal(spec_parse(text, strlen(text), DATA("k.bench.json"), &s, &d), HK_OK);
    assert_int_equal(s->compile_flags[0][0], '-');
    assert_int_equal(s->compile_flags[0][2], '/');
    assert_non_null(strstr(s->compile_flags[0], "/tests/data/infer/inc"));
    assert_true(s->n_include_dirs >= 1);
    assert_int_equal(s->include_dirs[0][0], '/');
    spec_free(s);
    spec_diags_free(&d);
}

static void no_doubts(const spec_inference *inf)
{
    if (inf->n_doubts)
        fail_msg("%zu doubts, the first: %s", inf->n_doubts, inf->doubts[0]);
}

/* A header from the project's include/ folder: the spec takes the include folders of the
 * kernel's own entry in the build's compile_commands.json (build/ above the kernel's
 * folder; a "command" string with quotes; a missing folder dropped, a repeated one kept
 * once; the entry of the file beside it not used), written relative to the spec. */
static void include_dirs_from_compile_commands(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("ccdb_project/src/scale_kernel.cu"), "ccdb_scale", &inf);
    assert_int_equal(inf.n_doubts, 0);
    json_t *dirs = json_object_get(inf.spec, "include_dirs");
    assert_int_equal(json_array_size(dirs), 1);
    assert_string_equal(json_string_value(json_array_get(dirs, 0)), "../include");
    assert_true(has_note(&inf, "include folders from the build's "));
    assert_true(has_note(&inf, "ccdb_project/build/compile_commands.json: ../include"));
    /* the engine's parser anchors them: the harness build gets -I<project>/include */
    char *spec_path = spec_default_path(DATA("ccdb_project/src/scale_kernel.cu"), "ccdb_scale");
    char *dump = json_dumps(inf.spec, 0);
    spec *s = NULL;
    spec_diags d = { 0 };
    assert_int_equal(spec_parse(dump, strlen(dump), spec_path, &s, &d), HK_OK);
    char want[PATH_MAX];
    assert_non_null(realpath(DATA("ccdb_project/include"), want));
    bool found = false;
    for (size_t i = 0; i < s->n_include_dirs; i++) {
        char got[PATH_MAX];
        found |= realpath(s->include_dirs[i], got) && !strcmp(got, want);
    }
    assert_true(found);
    spec_free(s);
    spec_diags_free(&d);
    hk_free(dump);
    spec_inference_free(&inf);

    /* a folder that is not there, or not a list, is an error naming the field */
    const char *bad[] = { "[\"no-such-folder\"]", "\"../include\"", "[3]" };
    const char *where[] = { "include_dirs[0]", "include_dirs", "include_dirs[0]" };
    for (size_t i = 0; i < 3; i++) {
        char *text = hk_asprintf("{\"kernel\":\"ccdb_scale\",\"source\":\"scale_kernel.cu\","
                                 "\"include_dirs\":%s,\"sizes\":[{\"n\":1024}],"
                                 "\"args\":[{\"name\":\"n\",\"kind\":\"scalar\",\"dtype\":\"i32\",\"value\":\"n\"},"
                                 "{\"name\":\"x\",\"kind\":\"input\",\"dtype\":\"f32\",\"count\":\"n\"},"
                                 "{\"name\":\"y\",\"kind\":\"output\",\"dtype\":\"f32\",\"count\":\"n\"}],"
                                 "\"launch\":{\"grid\":\"ceil_div(n, block_x)\",\"block\":256}}", bad[i]);
        assert_non_null(text);
        s = NULL;
        spec_diags dd = { 0 };
        assert_int_not_equal(spec_parse(text, strlen(text), spec_path, &s, &dd), HK_OK);
        bool named = false;
        for (size_t k = 0; k < dd.n; k++)
            named |= !strcmp(dd.items[k].path, where[i]);
        if (!named)
            fail_msg("%s: no error at %s (first: %s: %s)", bad[i], where[i], dd.n ? dd.items[0].path : "-",
                     dd.n ? dd.items[0].message : "-");
        spec_free(s);
        spec_diags_free(&dd);
        hk_free(text);
    }
    hk_free(spec_path);

    /* no database above the kernel: no include_dirs */
    infer(DATA("axpy_temps.cu"), "axpy_copy", &inf);
    assert_null(json_object_get(inf.spec, "include_dirs"));
    assert_false(has_note(&inf, "include folders"));
    spec_inference_free(&inf);
}

/* The value of a spec expression with the size variables set (names[i] = values[i]). */
static long long eval(const char *text, const char *const *names, const long long *values, size_t n)
{
    expr *e = NULL;
    expr_var vars[8];
    expr_value v;
    char err[256] = "";
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
        vars[i] = (expr_var){ .name = names[i], .value = { .is_float = false, .i = values[i] } };
    if (expr_parse(text, &e, err, sizeof err) != HK_OK || expr_eval(e, vars, n, &v, err, sizeof err) != HK_OK)
        fail_msg("%s: %s", text, err);
    expr_free(e);
    assert_false(v.is_float);
    return v.i;
}

/* Subscripts through temporaries (C[idx] with idx = row * N + col, A[a_at] in the k loop):
 * the kernel model's forms give the counts the textual scan cannot, and its GEMM class
 * gives 2*M*N*K flops; each says so in the notes. */
static void counts_and_flops_through_temporaries(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("gemm_temps.cu"), "sgemm_idx", &inf);
    no_doubts(&inf);
    const char *names[] = { "M", "N", "K" };
    const long long v[] = { 1000, 1003, 67 };
    assert_int_equal(eval(field(inf.spec, 0, "count"), names, v, 3), 1000 * 67);
    assert_int_equal(eval(field(inf.spec, 1, "count"), names, v, 3), 67 * 1003);
    assert_int_equal(eval(field(inf.spec, 2, "count"), names, v, 3), 1000 * 1003);
    assert_true(has_note(&inf, "count of C from the kernel model's index forms in sgemm_idx"));
    assert_true(has_note(&inf, "count of A from the kernel model's index forms"));
    json_t *fl = json_object_get(inf.spec, "flops");
    assert_non_null(fl);
    assert_int_equal(eval(json_string_value(fl), names, v, 3), 2LL * 1000 * 1003 * 67);
    assert_true(has_note(&inf, "flops: 2 per multiply-add of the gemm the kernel model recognises"));
    assert_non_null(json_object_get(inf.spec, "bytes"));
    spec_inference_free(&inf);
}

/* A GEMV with a second matrix (gesummv, y = alpha*A*x + beta*B*x in one loop): two
 * multiply-adds per matrix element, 4*M*N flops (the class was a convolution before: none). */
static void flops_of_a_two_matrix_gemv(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("gemv_two_sums.cu"), "gesummv", &inf);
    const char *names[] = { "n" };
    const long long v[] = { 1001 };
    json_t *fl = json_object_get(inf.spec, "flops");
    assert_non_null(fl);
    assert_int_equal(eval(json_string_value(fl), names, v, 1), 4LL * 1001 * 1001);
    assert_true(has_note(&inf, "flops: 2 per multiply-add of the gemv the kernel model recognises"));
    spec_inference_free(&inf);
}

/* The bounds check on a copy of the global index gives the grid when the launch's is a
 * host call; the elementwise class gives flops per element (a*x + y: 2). */
static void grid_and_flops_from_a_copied_index(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("axpy_temps.cu"), "axpy_copy", &inf);
    no_doubts(&inf);
    const char *g = json_string_value(json_object_get(json_object_get(inf.spec, "launch"), "grid"));
    assert_non_null(g);
    assert_non_null(strstr(g, "ceil_div("));
    const char *names[] = { "n", "block_x" };
    const long long v[] = { 1000003, 128 };
    assert_int_equal(eval(g, names, v, 2), (1000003 + 127) / 128);
    assert_true(has_note(&inf, "grid x from the bounds checks of the index math"));
    /* the guard counts as a bounds check: a ragged size set exercises it */
    assert_true(has_note(&inf, "sizes invented: one set not a multiple of the block"));
    assert_int_equal(eval(field(inf.spec, 2, "count"), names, v, 2), 1000003);
    assert_int_equal(eval(field(inf.spec, 3, "count"), names, v, 2), 1000003);
    assert_string_equal(field(inf.spec, 2, "kind"), "input");
    assert_string_equal(field(inf.spec, 3, "kind"), "inout");
    json_t *fl = json_object_get(inf.spec, "flops");
    assert_non_null(fl);
    assert_int_equal(eval(json_string_value(fl), names, v, 2), 2LL * 1000003);
    assert_true(has_note(&inf, "flops: 2 per element of y"));
    spec_inference_free(&inf);
}

/* A grid-stride kernel with several int parameters and no launch site: the grid covers
 * the loop's bound (nthreads), not the product of every size variable, whether the loop
 * is written out or through mmcv's CUDA_1D_KERNEL_LOOP; the buffers hold nthreads. Two
 * such loops on two branches: the grid covers the larger bound. */
static void grid_from_a_grid_stride_loop(void **state)
{
    (void)state;
    static const char *const kernels[] = { "scale_written", "scale_macro" };
    const char *names[] = { "nthreads", "channels", "height", "width", "block_x" };
    const long long v[] = { 100003, 300, 500, 700, 256 };
    for (size_t i = 0; i < 2; i++) {
        spec_inference inf;
        infer(DATA("grid_stride_ints.cu"), kernels[i], &inf);
        no_doubts(&inf);
        const char *g = json_string_value(json_object_get(json_object_get(inf.spec, "launch"), "grid"));
        assert_non_null(g);
        if (eval(g, names, v, 5) != (100003 + 255) / 256)
            fail_msg("%s: grid %s", kernels[i], g);
        assert_int_equal(eval(field(inf.spec, 1, "count"), names, v, 5), 100003);
        assert_int_equal(eval(field(inf.spec, 2, "count"), names, v, 5), 100003);
        assert_string_equal(field(inf.spec, 1, "kind"), "input");
        assert_string_equal(field(inf.spec, 2, "kind"), "output");
        spec_inference_free(&inf);
    }
    /* loops over n and n * m on two branches: a grid for the larger */
    spec_inference inf;
    infer(DATA("grid_stride_ints.cu"), "copy_branches", &inf);
    no_doubts(&inf);
    const char *g = json_string_value(json_object_get(json_object_get(inf.spec, "launch"), "grid"));
    const char *nm[] = { "n", "m", "block_x" };
    const long long nv[] = { 1000, 300, 256 };
    assert_int_equal(eval(g, nm, nv, 3), (1000 * 300 + 255) / 256);
    assert_int_equal(eval(field(inf.spec, 3, "count"), nm, nv, 3), 1000 * 300);
    assert_true(has_note(&inf, "the bound of the grid-stride loop"));
    spec_inference_free(&inf);
}

/* A kernel header without a launch: the launch in a sibling folder's .cu gives the template
 * argument, the grid and the counts; an overload of another shape launched there first is
 * not taken for it. */
static void launch_site_in_a_sibling_file(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("sibling/shift.cuh"), "shift", &inf);
    no_doubts(&inf);
    json_t *ta = json_object_get(inf.spec, "template_args");
    assert_string_equal(json_string_value(json_array_get(ta, 0)), "double");
    assert_string_equal(field(inf.spec, 0, "dtype"), "double");
    assert_string_equal(field(inf.spec, 1, "count"), "n");
    assert_true(has_note(&inf, "template argument T = double from the launch site at host/run.cu:13"));
    assert_true(has_note(&inf, "count of out from its allocation at host/run.cu:12"));
    spec_inference_free(&inf);
}

/* out += r; out[0] = s: the subscript says one element, the kernel writes rows of them.
 * The move, once and unconditional, is put into the subscripts: rows elements, never 1.
 * A move under a condition, a second move, or one in an ordinary loop leave the count a
 * doubt. */
static void a_moved_pointer_counts_with_its_move(void **state)
{
    (void)state;
    static const char *const names[] = { "rows", "cols", "n", "shift" };
    static const long long values[] = { 37, 11, 0, 0 };
    spec_inference inf;
    infer(DATA("moved_pointer.cu"), "row_sum", &inf);
    no_doubts(&inf);
    assert_true(has_note(&inf, "count of out from the kernel model's index forms in row_sum (its move "
                               "at line 9 put in)"));
    assert_int_equal(eval(field(inf.spec, 0, "count"), names, values, 2), 37 * 11);
    assert_int_equal(eval(field(inf.spec, 1, "count"), names, values, 2), 37);
    spec_inference_free(&inf);
    static const char *const doubtful[] = { "maybe_shift", "twice", "walk_rows" };
    for (size_t i = 0; i < HK_ARRAY_LEN(doubtful); i++) {
        infer(DATA("moved_pointer.cu"), doubtful[i], &inf);
        assert_true(has_note(&inf, "out is moved at line"));
        assert_true(has_doubt(&inf, "how many elements out has"));
        spec_inference_free(&inf);
    }
}

/* Point-cloud kernels (a batch per blockIdx.y, a grid-stride loop, every pointer moved to
 * the thread's slice): counts from the moves, and a gather through a moved pointer whose
 * index is the lowest digit of the moved subscript gets its range. With a launch grid
 * that lets a thread loop again the moves add up: a doubt. */
static void moves_in_a_grid_stride_loop(void **state)
{
    (void)state;
    static const char *const names[] = { "batch", "queries", "refs" };
    static const long long values[] = { 3, 50, 70 };
    spec_inference inf;
    infer(DATA("moved_batch.cu"), "closest", &inf);
    no_doubts(&inf);
    assert_int_equal(eval(field(inf.spec, 3, "count"), names, values, 3), 3 * 50 * 3);
    assert_int_equal(eval(field(inf.spec, 4, "count"), names, values, 3), 3 * 70 * 3);
    assert_int_equal(eval(field(inf.spec, 5, "count"), names, values, 3), 3 * 50);
    assert_int_equal(eval(field(inf.spec, 6, "count"), names, values, 3), 3 * 50);
    assert_string_equal(field(inf.spec, 5, "kind"), "output");
    spec_inference_free(&inf);

    static const char *const pn[] = { "batch", "chans", "points", "picks" };
    static const long long pv[] = { 2, 5, 40, 9 };
    infer(DATA("moved_batch.cu"), "pick_features", &inf);
    no_doubts(&inf);
    /* feats's count is the rows the gather reads with pick below points (it used to be
     * guessed as the product of every size, which held points at 16 in the timed set):
     * points grows with the rest, and pick stays below it at each size set */
    assert_true(has_note(&inf, "values of pick in [0, points - 1]"));
    assert_string_equal(field(inf.spec, 5, "dist"), "int(0, points - 1)");
    assert_int_equal(eval(field(inf.spec, 4, "count"), pn, pv, 4), 2 * 5 * 40);
    assert_int_equal(eval(field(inf.spec, 5, "count"), pn, pv, 4), 2 * 9);
    assert_int_equal(eval(field(inf.spec, 6, "count"), pn, pv, 4), 2 * 5 * 9);
    spec_inference_free(&inf);

    /* a launch that fixes the grid: the count read off one pass holds at sizes where its
     * threads reach every point (64 x 256 here), and is a doubt where they do not */
    infer(DATA("moved_batch.cu"), "closest_fixed", &inf);
    assert_true(has_note(&inf, "grid from the launch site"));
    assert_true(has_note(&inf, "count of best from the kernel model's index forms in closest_fixed (its move "
                               "at line 62 put in, one pass of the grid-stride loop each)"));
    no_doubts(&inf);
    json_t *set;
    size_t si;
    json_array_foreach(json_object_get(inf.spec, "sizes"), si, set)
        assert_true(json_integer_value(json_object_get(set, "queries")) <= 64 * 256);
    spec_inference_free(&inf);
    infer(DATA("moved_batch.cu"), "closest_tiny", &inf);
    assert_true(has_doubt(&inf, "best is moved in every pass of the grid-stride loop at line 72, and at sizes[0] "
                                "the launch's grid runs fewer threads than its bound"));
    spec_inference_free(&inf);
}

/* Allocation sizes in a local of the launcher (`size_t volume = ...; cudaMalloc(&d,
 * volume)`) are read through it; a local set twice is not. */
static void allocation_sizes_through_a_local(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("size_local.cu"), "column_step", &inf);
    no_doubts(&inf);
    assert_string_equal(field(inf.spec, 0, "count"), "w*h");
    assert_string_equal(field(inf.spec, 2, "count"), "w*h*d");
    assert_true(has_note(&inf, "count of dst from its allocation at line 18"));
    spec_inference_free(&inf);
    infer(DATA("size_local.cu"), "scale", &inf);
    assert_false(has_note(&inf, "count of v from its allocation"));
    spec_inference_free(&inf);
}

/* No bounds check: the thread index is below the threads launched, grid times block. A
 * 1D kernel with no size at all then needs no launch to be sure (its counts follow any
 * grid); a 2D one whose y grid nothing gives stays a doubt, and so does one whose guard
 * the count cannot read (threads past it write nothing). */
static void counts_follow_the_threads_launched(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("threads.cu"), "blend", &inf);
    no_doubts(&inf);
    assert_true(has_note(&inf, "grid guessed over n: blend has no bounds check, and every count follows"));
    json_t *g = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_string_equal(json_string_value(g), "ceil_div(n, block_x)");
    static const char *const names[] = { "n" };
    static const long long v1[] = { 4096 }, v2[] = { 4000 };
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(eval(field(inf.spec, i, "count"), names, v1, 1), 4096);
        assert_int_equal(eval(field(inf.spec, i, "count"), names, v2, 1), 4096); /* 16 blocks */
    }
    spec_inference_free(&inf);
    infer(DATA("threads.cu"), "plane", &inf);
    assert_true(has_doubt(&inf, "no launch site or bounds check says how many blocks plane needs"));
    spec_inference_free(&inf);
    /* a guard whose bound divides sizes (rows * (width / 2)) is read: out is the pairs
     * written, 2 * rows * (width / 2) elements, an odd width's last column left out */
    infer(DATA("threads.cu"), "swap_pairs", &inf);
    no_doubts(&inf);
    static const char *const pn[] = { "rows", "width" };
    static const long long pv1[] = { 3, 8 }, pv2[] = { 3, 9 };
    assert_int_equal(eval(field(inf.spec, 1, "count"), pn, pv1, 2), 24);
    assert_int_equal(eval(field(inf.spec, 1, "count"), pn, pv2, 2), 24);
    assert_int_equal(eval(field(inf.spec, 0, "count"), pn, pv2, 2), 24);
    spec_inference_free(&inf);
    /* bounds-checked (i < n) with blockIdx.x * tile: the guess is no grid the counts follow */
    infer(DATA("odd_stride.cu"), "copy_tiles", &inf);
    assert_true(has_doubt(&inf, "no launch site or bounds check says how many blocks copy_tiles needs"));
    spec_inference_free(&inf);
    /* a launch grid in sizes: n / 256 blocks of 256 are n elements */
    infer(DATA("size_local.cu"), "scale", &inf);
    no_doubts(&inf);
    static const char *const sn[] = { "n" };
    static const long long sv[] = { 8192 };
    assert_int_equal(eval(field(inf.spec, 0, "count"), sn, sv, 1), 8192);
    spec_inference_free(&inf);
}

/* cuda-samples' scan: a shared array subscripted with a scalar parameter (s[pos + size])
 * stays inside only for the values the program passes: with invented sizes, a doubt. */
static void shared_subscript_by_an_invented_size(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("threads.cu"), "segment_scan", &inf);
    assert_true(has_doubt(&inf, "the shared-memory subscript at line"));
    spec_inference_free(&inf);
}

/* A Gaussian elimination step: its bounds n - 1 - k and n - k need a small k (invented as
 * 1 and 3, so the grid stays positive), and its launcher rounds up with a remainder test,
 * `(n / tile) + (!(n % tile ? 0 : 1))`, read as ceil_div. */
static void offsets_and_round_up_spelled_with_a_remainder(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("elimination.cu"), "eliminate", &inf);
    no_doubts(&inf);
    assert_true(has_note(&inf, "grid from the launch site at elimination.cu:24"));
    json_t *g = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    static const char *const names[] = { "n" };
    static const long long v[] = { 1001 };
    assert_int_equal(eval(json_string_value(json_array_get(g, 0)), names, v, 1), 251);
    json_t *s0 = json_array_get(json_object_get(inf.spec, "sizes"), 0);
    assert_int_equal(json_integer_value(json_object_get(s0, "k")), 1);
    spec_inference_free(&inf);
    infer(DATA("elimination.cu"), "eliminate_alone", &inf);
    no_doubts(&inf);
    g = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_string_equal(json_string_value(json_array_get(g, 0)), "ceil_div((-k+n-1), block_x)");
    s0 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
    assert_int_equal(json_integer_value(json_object_get(s0, "k")), 3);
    spec_inference_free(&inf);
}

/* reduce0<T> launched inside `template <class T> void sums(...)`, explicitly instantiated
 * for int and float: T is float. Its shared scratch is extern (through a __device__
 * helper): the launch's size is the spec's shmem, through a launcher local, with the block's
 * variable as block_x and a conditional as its larger branch; a kernel with no launch to
 * say it is a doubt, never a spec without shmem. */
static void launcher_template_and_dynamic_shared_memory(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("launcher_template.cu"), "block_sums", &inf);
    assert_true(has_note(&inf, "template argument T = float: the launch at launcher_template.cu:26 passes T, "
                               "a type parameter of its launcher sums"));
    assert_string_equal(json_string_value(json_array_get(json_object_get(inf.spec, "template_args"), 0)), "float");
    /* threads * sizeof(T), threads the block's x: block_x * 4 bytes */
    no_doubts(&inf);
    assert_string_equal(json_string_value(json_object_get(json_object_get(inf.spec, "launch"), "shmem")),
                        "block_x*4");
    spec_inference_free(&inf);
    infer(DATA("launcher_template.cu"), "block_sums_branch", &inf);
    no_doubts(&inf);
    assert_string_equal(json_string_value(json_object_get(json_object_get(inf.spec, "launch"), "shmem")),
                        "max(2*block_x*4, block_x*4)");
    spec_inference_free(&inf);
    infer(DATA("launcher_template.cu"), "block_sums_fixed", &inf);
    assert_false(has_doubt(&inf, "dynamic shared memory"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(inf.spec, "launch"), "shmem")), 1024);
    spec_inference_free(&inf);
    infer(DATA("launcher_template.cu"), "volatile_scratch", &inf);
    assert_true(has_doubt(&inf, "volatile_scratch uses dynamic shared memory (line 57) and no launch gives its size"));
    spec_inference_free(&inf);
    /* the launcher instantiated by calls that name the type (the double one spaced out)
     * rather than explicitly: the float call is the one that counts */
    infer(DATA("launcher_template.cu"), "block_sums_called", &inf);
    no_doubts(&inf);
    assert_true(has_note(&inf, "template argument T = float: the launch at launcher_template.cu:106 passes T, "
                               "a type parameter of its launcher run_called, which line 125 instantiates"));
    assert_string_equal(json_string_value(json_array_get(json_object_get(inf.spec, "template_args"), 0)), "float");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(inf.spec, "launch"), "shmem")), 512);
    spec_inference_free(&inf);
    /* called for double alone: no float instantiation, so T is not known */
    infer(DATA("launcher_template.cu"), "block_sums_double", &inf);
    assert_true(has_doubt(&inf, "in is of type T, which the generated harness does not know"));
    spec_inference_free(&inf);
}

/* Block-stride loops (for (c = threadIdx.x; c < cols; c += STEP)): the variable is below
 * the bound inside the body, so a row of cols per block counts rows * cols. A kernel
 * templated on its block and launched in `case 512:` of a switch on the block runs with
 * 512 threads. */
static void block_stride_loops_and_a_switch_on_the_block(void **state)
{
    (void)state;
    static const char *const names[] = { "cols", "rows" };
    static const long long v[] = { 300, 7 };
    spec_inference inf;
    infer(DATA("block_loops.cu"), "scale_rows", &inf);
    no_doubts(&inf);
    assert_int_equal(eval(field(inf.spec, 0, "count"), names, v, 2), 2100);
    assert_int_equal(eval(field(inf.spec, 1, "count"), names, v, 2), 2100);
    spec_inference_free(&inf);
    infer(DATA("block_loops.cu"), "row_max", &inf);
    no_doubts(&inf);
    assert_true(has_note(&inf, "block 512: the launch at block_loops.cu:38 is under `case 512:`"));
    /* `unsigned int threads`: the parameter is threads, not int */
    assert_true(has_note(&inf, "template argument threads = 512 from the launch site"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(inf.spec, "launch"), "block")), 512);
    assert_int_equal(eval(field(inf.spec, 0, "count"), names, v, 2), 2100);
    assert_int_equal(eval(field(inf.spec, 1, "count"), names, v, 2), 7);
    spec_inference_free(&inf);
}

/* A label read from a buffer and compared with a remainder by the class count (`l == e %
 * classes`) is a class: its gather class_w[l] gets int(0, classes - 1) inputs. Without
 * such a comparison the gather stays a doubt. */
static void a_label_compared_with_a_class_index(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("class_label.cu"), "weighted_hits", &inf);
    no_doubts(&inf);
    /* class_w has classes elements, the labels' range (it used to be guessed as total *
     * classes, which held classes at 16 in the timed set); the labels stay below classes
     * at each size set */
    assert_true(has_note(&inf, "values of label in [0, classes - 1]: the kernel compares them with a remainder"));
    assert_true(has_note(&inf, "count of class_w from the kernel model's index forms"));
    assert_false(has_note(&inf, "guessed"));
    assert_string_equal(field(inf.spec, 2, "dist"), "int(0, classes - 1)");
    static const char *const cn[] = { "total", "classes" };
    static const long long cv[] = { 600, 7 };
    assert_int_equal(eval(field(inf.spec, 3, "count"), cn, cv, 2), 7);
    spec_inference_free(&inf);
    infer(DATA("class_label.cu"), "weighted_any", &inf);
    assert_true(has_doubt(&inf, "the subscript at line 21 is a value read from a buffer"));
    spec_inference_free(&inf);
}

/* Eighteen integer parameters become eighteen size variables: the spec holds them all. */
static void more_than_sixteen_size_variables(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("many_sizes.cu"), "weigh", &inf);
    no_doubts(&inf);
    assert_int_equal(json_object_size(json_array_get(json_object_get(inf.spec, "sizes"), 0)), 18);
    assert_string_equal(field(inf.spec, 0, "count"), "n");
    spec_inference_free(&inf);
}

/* No launch site anywhere: the explicit instantiation gives the template arguments (a type
 * and the tile the index math multiplies by), so nothing is guessed. */
static void template_arguments_from_an_explicit_instantiation(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("instantiated.cu"), "clamp_tile", &inf);
    no_doubts(&inf);
    json_t *ta = json_object_get(inf.spec, "template_args");
    assert_string_equal(json_string_value(json_array_get(ta, 0)), "double");
    assert_string_equal(json_string_value(json_array_get(ta, 1)), "64");
    assert_string_equal(field(inf.spec, 1, "dtype"), "double");
    assert_true(has_note(&inf, "template argument T = double from the explicit instantiation at "
                               "instantiated.cu:11"));
    /* blockIdx.x * TILE: the block is pinned at the instantiated TILE, not searched */
    json_t *l = json_object_get(inf.spec, "launch");
    assert_int_equal(json_integer_value(json_object_get(l, "block")), 64);
    assert_string_equal(json_string_value(json_object_get(l, "grid")), "ceil_div(n, 64)");
    spec_inference_free(&inf);
}

/* blockIdx.x * tile + threadIdx.x with tile a runtime value: the bounds check i < n does not
 * say how many blocks cover n, so the grid is a doubt, never ceil_div(n, block_x). */
static void a_block_scaled_by_a_runtime_value_is_a_doubt(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("odd_stride.cu"), "copy_tiles", &inf);
    bool doubt = false;
    for (size_t i = 0; i < inf.n_doubts; i++)
        doubt |= strstr(inf.doubts[i], "scales blockIdx.x by neither blockDim.x nor a constant") != NULL;
    assert_true(doubt);
    spec_inference_free(&inf);
}

/* A bool is passed as one byte with the value false, not as a float; a pointer to a struct
 * of like fields is that many of them per element; any other struct pointer is a doubt
 * (its elements are not floats), never a float buffer taken as sure. */
static void bool_flags_and_unknown_types(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("types.cu"), "norm", &inf);
    no_doubts(&inf);
    assert_string_equal(field(inf.spec, 3, "dtype"), "uint8");
    assert_string_equal(field(inf.spec, 3, "value"), "0");
    assert_int_equal(json_object_size(json_array_get(json_object_get(inf.spec, "sizes"), 0)), 1);
    spec_inference_free(&inf);
    infer(DATA("types.cu"), "norm_pts", &inf);
    no_doubts(&inf);
    assert_string_equal(field(inf.spec, 0, "dtype"), "float");
    assert_string_equal(field(inf.spec, 0, "kind"), "input");
    assert_int_equal(count_at(inf.spec, 0, 1000, NULL, 0), 2000);
    assert_true(has_note(&inf, "p points to pt, a struct of like fields: passed as float2"));
    spec_inference_free(&inf);
    infer(DATA("types.cu"), "weigh", &inf);
    assert_true(has_doubt(&inf, "t is of type tagged, which the generated harness does not know"));
    spec_inference_free(&inf);
    infer(DATA("types.cu"), "first_bin", &inf);
    assert_true(has_doubt(&inf, "h is of type hist, which the generated harness does not know"));
    spec_inference_free(&inf);
}

/* Typedefs and using-aliases are followed, through #if/#elif/#else as a build without -D
 * flags sees them (an include guard's #ifndef included). */
static void element_types_through_typedefs(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("typedefs.cu"), "scale_real", &inf);
    no_doubts(&inf);
    assert_string_equal(field(inf.spec, 0, "dtype"), "double");
    assert_string_equal(field(inf.spec, 1, "dtype"), "double");
    assert_string_equal(field(inf.spec, 2, "dtype"), "uint32");
    spec_inference_free(&inf);
}

/* A launch inside AT_DISPATCH_FLOATING_TYPES_AND_HALF passes scalar_t: float is one of the
 * types the macro instantiates, so the spec is sure with float. The same scalar_t outside a
 * dispatch macro is a template parameter nothing resolves: a doubt. */
static void scalar_t_from_a_dispatch_macro(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("dispatch/scale_kernel.cuh"), "scale_forward_kernel", &inf);
    no_doubts(&inf);
    json_t *ta = json_object_get(inf.spec, "template_args");
    assert_string_equal(json_string_value(json_array_get(ta, 0)), "float");
    assert_string_equal(field(inf.spec, 2, "dtype"), "float");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(inf.spec, "launch"), "block")), 512);
    assert_true(has_note(&inf, "inside AT_DISPATCH_FLOATING_TYPES_AND_HALF at pytorch/scale_cuda.cu:7"));
    spec_inference_free(&inf);
    infer(DATA("dispatch/scale_kernel.cuh"), "scale_backward_kernel", &inf);
    assert_true(inf.n_doubts > 0);
    assert_non_null(strstr(inf.doubts[0], "of type scalar_t"));
    spec_inference_free(&inf);
}

/* table[idx[i]] through a local: random inputs are no valid indices, a doubt. Bins in
 * __shared__ memory indexed by data are the kernel's own business, no such doubt. */
static void a_subscript_read_from_a_buffer_is_a_doubt(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("gather.cu"), "lookup", &inf);
    assert_true(has_doubt(&inf, "the subscript at line 7 is a value read from a buffer"));
    spec_inference_free(&inf);
    infer(DATA("gather.cu"), "bin_counts", &inf);
    assert_false(has_doubt(&inf, "value read from a buffer"));
    spec_inference_free(&inf);
    /* through a pointer the token moved: the model's index form carries the read, which
     * picks rows of a table nothing sizes (table_rows_picked_by_an_index_buffer) */
    infer(DATA("gather.cu"), "embed", &inf);
    no_doubts(&inf);
    assert_true(has_note(&inf, "count of emb 65536 * d: a table whose rows the values of another buffer pick"));
    spec_inference_free(&inf);
}

/* A gather whose subscript bounds the value read (table[b * n + idx[i]]: the lowest digit
 * of a number in base n) is no doubt: idx gets integers in [0, n - 1] at each size set
 * (the spec's per-size bound), once every subscript it feeds is shown inside its buffer. An offset
 * digit, a value that picks the row, or a second buffer too short for that range stay
 * doubts. */
static void a_gather_bounded_by_its_subscript(void **state)
{
    (void)state;
    spec_inference inf;
    const char *const bounded[] = { "pick", "pick_weighted" };
    const size_t idx_arg[] = { 1, 2 };
    for (size_t c = 0; c < HK_ARRAY_LEN(bounded); c++) {
        infer(DATA("gather_digit.cu"), bounded[c], &inf);
        no_doubts(&inf);
        json_t *set;
        size_t i;
        json_array_foreach(json_object_get(inf.spec, "sizes"), i, set)
            assert_true(json_integer_value(json_object_get(set, "n")) >= 2);
        assert_string_equal(field(inf.spec, idx_arg[c], "dist"), "int(0, n - 1)");
        assert_true(has_note(&inf, "values of idx in [0, n - 1]"));
        spec_inference_free(&inf);
    }
    const char *const unbounded[] = { "pick_next", "pick_row", "pick_scaled" };
    for (size_t c = 0; c < HK_ARRAY_LEN(unbounded); c++) {
        infer(DATA("gather_digit.cu"), unbounded[c], &inf);
        assert_true(has_doubt(&inf, "is a value read from a buffer"));
        assert_null(json_object_get(json_array_get(json_object_get(inf.spec, "args"), 1), "dist"));
        assert_null(json_object_get(json_array_get(json_object_get(inf.spec, "args"), 2), "dist"));
        spec_inference_free(&inf);
    }
}

/* A grid-stride loop along x inside planes of blockIdx.y that a bounds check sizes, the
 * loop written by a macro the textual scan does not read: grid x covers the loop's bound
 * one thread per element (it used to be one block), grid y the planes. */
static void grid_stride_along_x_beside_planes(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("stride_planes.cu"), "scale_rows", &inf);
    no_doubts(&inf);
    json_t *grid = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_int_equal(json_array_size(grid), 2);
    const char *names[] = { "batch", "len", "block_x" };
    const long long v[] = { 7, 100003, 16 };
    assert_int_equal(eval(json_string_value(json_array_get(grid, 0)), names, v, 3), (100003 + 15) / 16);
    assert_int_equal(eval(json_string_value(json_array_get(grid, 1)), names, v, 3), 7);
    assert_true(has_note(&inf, "grid x over (len): the bound of the grid-stride loop at line 9"));
    spec_inference_free(&inf);
}

/* A subscript split by / and % (out[(b * C + c) * R * W + r * W + q] with r = e / W,
 * q = e % W, or a transposed e % W * R + e / W) is bounded term by term: x % d below d,
 * x / d at most (largest x) / d. The count is the tensor's, no guess. */
static void counts_through_divisions_and_remainders(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("stride_planes.cu"), "copy_tiles", &inf);
    no_doubts(&inf);
    const char *names[] = { "batch", "channels", "rows", "cols" };
    const long long v[] = { 3, 5, 7, 11 }, w[] = { 2, 3, 1000, 13 };
    assert_int_equal(eval(field(inf.spec, 1, "count"), names, v, 4), 3 * 5 * 7 * 11);
    assert_int_equal(eval(field(inf.spec, 1, "count"), names, w, 4), 2 * 3 * 1000 * 13);
    assert_true(has_note(&inf, "count of out from the kernel model's index forms"));
    spec_inference_free(&inf);
    infer(DATA("stride_planes.cu"), "transpose_flat", &inf);
    no_doubts(&inf);
    assert_int_equal(eval(field(inf.spec, 1, "count"), names + 2, v + 2, 2), 7 * 11);
    assert_int_equal(eval(field(inf.spec, 1, "count"), names + 2, w + 2, 2), 1000 * 13);
    spec_inference_free(&inf);
}

/* The largest index put in a subscript that does not grow with it (out[n - 1 - i],
 * out[i % 8]) is not its largest element: no count from that text (it used to be 1, and
 * (n - 1) % 8 + 1). The model bounds the remainder (8); the reversal, and a remainder by
 * a negative number, are doubts. */
static void no_count_from_a_subscript_that_does_not_grow(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("nonmonotone.cu"), "reverse", &inf);
    assert_true(has_doubt(&inf, "how many elements out has is not in the index math"));
    spec_inference_free(&inf);
    infer(DATA("nonmonotone.cu"), "fold8", &inf);
    no_doubts(&inf);
    const char *names[] = { "n" };
    const long long n = 1000003;
    assert_int_equal(eval(field(inf.spec, 1, "count"), names, &n, 1), 8);
    spec_inference_free(&inf);
    /* i % -8: no d - 1 bound from a negative d (it made a count of -8, an invalid spec) */
    infer(DATA("nonmonotone.cu"), "fold_negative", &inf);
    assert_true(has_doubt(&inf, "how many elements out has is not in the index math"));
    spec_inference_free(&inf);
}

/* sums[blockIdx.x] written by thread 0 of each block, no guard on blockIdx.x: the launch's
 * grid (rows blocks) bounds it, so sums has rows elements. A grid written with the block
 * (ceil_div(rows * cols, block_x)) bounds nothing: a doubt as before. */
static void an_unguarded_block_index_is_below_the_launch_grid(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("block_rows.cu"), "row_sums", &inf);
    no_doubts(&inf);
    const char *names[] = { "rows", "cols" };
    const long long v[] = { 300, 4096 };
    assert_int_equal(eval(field(inf.spec, 1, "count"), names, v, 2), 300);
    assert_true(has_note(&inf, "count of sums from the kernel model's index forms"));
    spec_inference_free(&inf);
    infer(DATA("block_rows.cu"), "row_sums_spread", &inf);
    assert_true(has_doubt(&inf, "how many elements sums has is not in the index math"));
    spec_inference_free(&inf);
}

/* A file-scope buffer allocated by an init function gets that allocation's (constant)
 * count; the block (WARPS * (1U << LOG2_WARP)) is read through #defines and a shift; a
 * block fixed at compile time that cannot be read is a doubt, not a silent 256 (the kernel
 * strides its shared table by it). */
static void host_facts_from_the_whole_launch_file(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("global_alloc.cu"), "partial", &inf);
    no_doubts(&inf);
    assert_int_equal(eval(field(inf.spec, 0, "count"), NULL, NULL, 0), 64 * 256);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(inf.spec, "launch"), "block")), 128);
    assert_true(has_note(&inf, "count of parts from its allocation at line 16"));
    spec_inference_free(&inf);
    infer(DATA("global_alloc.cu"), "partial_odd", &inf);
    assert_true(has_doubt(&inf, "the block ODD_BLOCK of the launch at global_alloc.cu:48 could not be read"));
    spec_inference_free(&inf);
}

/* 2-D kernels without a bounds check or a launch (Rodinia's srad and backprop write so):
 * each thread writes row (C * blockIdx.y + threadIdx.y) of a matrix at a size's stride.
 * The columns are the stride (tiles of blockIdx.x side by side) or one block; the rows go
 * to the one size the kernel never reads, and every count follows that grid. A kernel
 * that reads every size, whose columns pass its stride (two threads per element) or whose
 * output rows are one block wide at a wider stride (elements no thread writes), or one
 * with a count from the program's allocation, keeps its doubt. `#define SIDE 16 // ...` is 16: the comment is no part of the value. */
static void rows_of_a_matrix_without_launch_or_bounds(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("row_tiles.cu"), "smooth_tiles", &inf);
    no_doubts(&inf);
    json_t *l = json_object_get(inf.spec, "launch");
    json_t *g = json_object_get(l, "grid"), *b = json_object_get(l, "block");
    assert_int_equal(json_array_size(g), 2);
    assert_int_equal(json_integer_value(json_array_get(b, 0)), 16);
    assert_int_equal(json_integer_value(json_array_get(b, 1)), 16);
    const char *names[] = { "width", "height" };
    const long long v[] = { 64, 48 };
    assert_int_equal(eval(json_string_value(json_array_get(g, 0)), names, v, 2), 4);
    assert_int_equal(eval(json_string_value(json_array_get(g, 1)), names, v, 2), 3);
    assert_int_equal(eval(field(inf.spec, 0, "count"), names, v, 2), 64 * 48);
    assert_int_equal(eval(field(inf.spec, 1, "count"), names, v, 2), 64 * 48); /* its last row too */
    assert_true(has_note(&inf, "never reads height"));
    spec_inference_free(&inf);

    infer(DATA("row_tiles.cu"), "nudge_band", &inf);
    no_doubts(&inf);
    l = json_object_get(inf.spec, "launch");
    g = json_object_get(l, "grid");
    b = json_object_get(l, "block");
    assert_int_equal(json_integer_value(json_array_get(b, 1)), 8);
    const char *names2[] = { "stride", "count" };
    const long long w[] = { 40, 24 };
    assert_int_equal(json_integer_value(json_array_get(g, 0)), 1); /* one block wide */
    assert_int_equal(eval(json_string_value(json_array_get(g, 1)), names2, w, 2), 3);
    /* rows 1 to 24 of stride 41, columns 1 to 16 */
    assert_int_equal(eval(field(inf.spec, 0, "count"), names2, w, 2), 41 * 24 + 16 + 1);
    assert_int_equal(eval(field(inf.spec, 1, "count"), names2, w, 2), 17);
    /* stride only spaces rows 16 wide: invented large it left the kernel a sliver of each
     * row (Rodinia's backprop adjust: 2 MB in 9 us on the H200); at 15 the rows lie side by
     * side in both sets, and the rows launched (count) grow the timed set */
    json_t *sets = json_object_get(inf.spec, "sizes");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(sets, 0), "stride")), 15);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(sets, 1), "stride")), 15);
    assert_true(json_integer_value(json_object_get(json_array_get(sets, 1), "count")) > 8192);
    assert_true(has_note(&inf, "size stride 15: it only sets the stride (stride+1) of rows 16 wide"));
    spec_inference_free(&inf);

    infer(DATA("row_tiles.cu"), "scale_known_height", &inf);
    assert_true(has_doubt(&inf, "no launch site or bounds check says how many blocks"));
    spec_inference_free(&inf);

    infer(DATA("row_tiles.cu"), "narrow_rows", &inf);
    assert_true(has_doubt(&inf, "rows may overlap"));
    spec_inference_free(&inf);
    /* an output one block wide at a wider stride: the elements between rows are not its */
    infer(DATA("row_tiles.cu"), "sparse_rows", &inf);
    assert_true(has_doubt(&inf, "the elements between them are never written"));
    spec_inference_free(&inf);
    /* a count from the program's allocation (64 rows) need not hold the rows guessed */
    infer(DATA("row_tiles_host.cu"), "fill_rows", &inf);
    assert_true(has_doubt(&inf, "guessed a 2D grid"));
    spec_inference_free(&inf);
    /* a dim3 parameter of the launcher is no grid the spec can write (it was read as a 1-D
     * grid of `grid_in` blocks, a size of its own, and the spec was sure) */
    infer(DATA("row_tiles_host.cu"), "fill_rows_given", &inf);
    assert_true(has_doubt(&inf, "guessed a 2D grid"));
    assert_null(json_object_get(json_array_get(json_object_get(inf.spec, "sizes"), 0), "grid_in"));
    spec_inference_free(&inf);
}

/* text evaluated at a = av and b = bv. */
static long long eval_at(const char *text, const char *a, long long av, const char *b, long long bv)
{
    expr *e = NULL;
    expr_value v;
    expr_var vars[2] = { { .name = a, .value = { .i = av } }, { .name = b, .value = { .i = bv } } };
    assert_int_equal(expr_parse(text, &e, NULL, 0), HK_OK);
    assert_int_equal(expr_eval(e, vars, 2, &v, NULL, 0), HK_OK);
    expr_free(e);
    return v.i;
}

/* Launch sizes written with the device's limits (cudaDeviceProp members every current GPU
 * shares) and function-like macros (a ?: minimum, a round-up division): the block is read
 * and the grid, split over y past the device's x limit, follows it; points read through a
 * local pointer stay an input, three floats an element. The same members of a struct of
 * the program's are not the device's: that grid is not read. */
static void device_limits_and_function_like_macros(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("device_limits.cu"), "radius", &inf);
    no_doubts(&inf);
    json_t *launch = json_object_get(inf.spec, "launch");
    assert_int_equal(json_integer_value(json_object_get(launch, "block")), 192);
    json_t *g = json_object_get(launch, "grid");
    assert_int_equal(json_array_size(g), 2);
    const char *gx = json_string_value(json_array_get(g, 0)), *gy = json_string_value(json_array_get(g, 1));
    assert_int_equal(eval_at(gx, "count", 1000, "block_x", 192), 6);
    assert_int_equal(eval_at(gy, "count", 1000, "block_x", 192), 1);
    assert_int_equal(eval_at(gx, "count", 1000, "block_x", 64), 16); /* follows the block */
    assert_string_equal(field(inf.spec, 0, "kind"), "input");
    assert_string_equal(field(inf.spec, 0, "dtype"), "float");
    assert_int_equal(count_at(inf.spec, 0, 0, "count", 1000), 3000);
    assert_true(has_note(&inf, "pts points to point3, a struct of like fields: passed as float3"));
    spec_inference_free(&inf);
    infer(DATA("device_limits.cu"), "flatten", &inf);
    assert_string_not_equal(field(inf.spec, 0, "kind"), "input");
    spec_inference_free(&inf);
    /* its launch is not read, but its flat 2-D index is bounded (flat_grid.cu): one row of
     * blocks over count covers it */
    infer(DATA("device_limits.cu"), "radius_cfg", &inf);
    no_doubts(&inf);
    g = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_string_equal(json_string_value(json_array_get(g, 0)), "ceil_div((count), block_x)");
    assert_int_equal(json_integer_value(json_array_get(g, 1)), 1);
    assert_true(has_note(&inf, "the flat index of a 2-D grid is bounded by (count)"));
    spec_inference_free(&inf);
}

/* The launcher's asserts: a scalar it bounds by a constant is invented no larger, so a
 * shared subscript it moves stays inside the array the program sized for the bound; with
 * no such bound the subscript is a doubt, and sizes that break an assert's lower bound are
 * one too. */
static void sizes_within_the_launchers_asserts(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("asserts.cu"), "lag_through_shared", &inf);
    no_doubts(&inf);
    json_t *sets = json_object_get(inf.spec, "sizes");
    for (size_t i = 0; i < 2; i++) {
        json_t *set = json_array_get(sets, i);
        long long lag = json_integer_value(json_object_get(set, "lag"));
        assert_true(lag >= 1 && lag <= 128);
        assert_int_equal(json_integer_value(json_object_get(set, "count")) % 128, 0);
    }
    assert_true(has_note(&inf, "size lag at most 128: the largest the assert at asserts.cu:38 allows"));
    spec_inference_free(&inf);
    infer(DATA("asserts.cu"), "lag_unbounded", &inf);
    assert_true(has_doubt(&inf, "the shared-memory subscript at line 23 depends on a scalar parameter"));
    spec_inference_free(&inf);
    infer(DATA("asserts.cu"), "halve", &inf);
    assert_true(has_doubt(&inf, "sizes[0] break the assert at asserts.cu:50 (big >= 67108864)"));
    spec_inference_free(&inf);
}

/* A launcher that picks its kernel through a function pointer (p = &k; p<<<g, b>>>): the
 * launch is the site of the kernel the pointer is set to, and of no other kernel. */
static void a_launch_through_a_function_pointer(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("pointer_launch.cu"), "copy_rows", &inf);
    no_doubts(&inf);
    assert_true(has_note(&inf, "grid from the launch site at pointer_launch.cu:32"));
    assert_true(has_note(&inf, "count of out from its allocation at line 23"));
    json_t *g = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_int_equal(json_array_size(g), 2);
    spec_inference_free(&inf);
    infer(DATA("pointer_launch.cu"), "flip_rows", &inf);
    assert_false(has_note(&inf, "launch site"));
    assert_true(inf.n_doubts > 0);
    spec_inference_free(&inf);
}

/* The same launch in a launcher tree-sitter loses (`if (grid.x < 1 ...)` read as template
 * arguments: the launch comes back at file scope): the function is the brace that encloses
 * the launch, so the pointer, the grid and the block (`dim3 grid(...), threads(...)` under a
 * comment line) are read as in a valid one. The tiles' loop (i < 32 or i <= 31, step 8)
 * ends at 24: the counts are exactly width * height, not 7 rows more. */
static void a_launch_in_a_launcher_the_grammar_loses(void **state)
{
    (void)state;
    static const char *const names[] = { "width", "height" };
    static const long long v[] = { 1024, 512 };
    static const char *const kernels[] = { "tiles_lt", "tiles_le" };
    for (size_t i = 0; i < 2; i++) {
        spec_inference inf;
        infer(DATA("lost_launcher.cu"), kernels[i], &inf);
        no_doubts(&inf);
        assert_true(has_note(&inf, "grid from the launch site at lost_launcher.cu:42"));
        assert_true(has_note(&inf, "block from the launch site at lost_launcher.cu:42"));
        json_t *l = json_object_get(inf.spec, "launch");
        assert_int_equal(json_array_size(json_object_get(l, "grid")), 2);
        assert_int_equal(json_integer_value(json_array_get(json_object_get(l, "block"), 1)), 8);
        assert_int_equal(eval(field(inf.spec, 0, "count"), names, v, 2), 1024 * 512);
        assert_int_equal(eval(field(inf.spec, 1, "count"), names, v, 2), 1024 * 512);
        spec_inference_free(&inf);
    }
}

/* A launch whose block grows with the sizes (nx - 1 threads, through a dim3 local or in
 * the launch itself): the kernel indexes a row with threadIdx.x alone, and a spec cannot
 * launch such a block yet, so the fixed guess is a doubt, never a sure spec. */
static void a_block_that_grows_with_the_sizes_is_a_doubt(void **state)
{
    (void)state;
    static const char *const kernels[] = { "row_step", "row_step_direct" };
    static const char *const lines[] = { "sized_block.cu:27 grows with the sizes (nx-1)",
                                         "sized_block.cu:28 grows with the sizes (nx-1)" };
    for (size_t i = 0; i < 2; i++) {
        spec_inference inf;
        infer(DATA("sized_block.cu"), kernels[i], &inf);
        assert_true(has_doubt(&inf, lines[i]));
        spec_inference_free(&inf);
    }
}

/* An output whose writes stop short of its count (a stencil that skips the boundary: the
 * model's reach of out is n - 1 of its n elements) is an inout, the unwritten elements
 * keeping their contents; one whose writes reach every element stays an output (a reach
 * one short of its count would make it an inout and fail here). */
static void an_output_its_writes_do_not_cover_is_an_inout(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("interior_write.cu"), "interior", &inf);
    assert_string_equal(field(inf.spec, 0, "kind"), "input");
    assert_string_equal(field(inf.spec, 1, "kind"), "inout");
    assert_true(has_note(&inf, "out: its writes reach"));
    assert_int_equal(inf.n_doubts, 0);
    spec_inference_free(&inf);
    infer(DATA("interior_write.cu"), "every", &inf);
    assert_string_equal(field(inf.spec, 1, "kind"), "output");
    assert_false(has_note(&inf, "its writes reach"));
    spec_inference_free(&inf);
}

/* A hit counter (cnt = 0; ...; out[i * ns + cnt] = k; ++cnt; if (cnt >= ns) break;, or hits++
 * and `== ns` in braces) stays below ns where it subscripts: out has rows * ns elements. A
 * use after the loop gets no bound. Writes that values read from memory decide (a hit, a
 * mask, a comparison) make an inout; a select that writes every element, an output. */
static void a_hit_counter_and_writes_the_data_decides(void **state)
{
    (void)state;
    static const char *const names[] = { "rows", "ns" };
    static const long long v[] = { 67, 131 };
    static const char *const hits[] = { "near_hits", "near_hits_eq" };
    spec_inference inf;
    for (size_t i = 0; i < 2; i++) {
        infer(DATA("hit_counter.cu"), hits[i], &inf);
        no_doubts(&inf);
        assert_int_equal(eval(field(inf.spec, 1, "count"), names, v, 2), 67 * 131);
        assert_string_equal(field(inf.spec, 1, "kind"), "inout");
        spec_inference_free(&inf);
    }
    infer(DATA("hit_counter.cu"), "near_hits_after", &inf);
    assert_true(has_doubt(&inf, "how many elements out has is not in the index math"));
    spec_inference_free(&inf);
    infer(DATA("hit_counter.cu"), "masked_copy", &inf);
    no_doubts(&inf);
    assert_string_equal(field(inf.spec, 2, "kind"), "inout");
    assert_true(has_note(&inf, "out is written only where values read from memory decide (line 63)"));
    spec_inference_free(&inf);
    infer(DATA("hit_counter.cu"), "positive_copy", &inf);
    no_doubts(&inf);
    assert_string_equal(field(inf.spec, 1, "kind"), "inout");
    spec_inference_free(&inf);
    infer(DATA("hit_counter.cu"), "select_copy", &inf);
    no_doubts(&inf);
    assert_string_equal(field(inf.spec, 2, "kind"), "output");
    spec_inference_free(&inf);
    /* min_radius 0, max_radius 1.5: a range points can fall in */
    infer(DATA("hit_counter.cu"), "in_shell", &inf);
    no_doubts(&inf);
    json_t *args = json_object_get(inf.spec, "args");
    assert_true(json_real_value(json_object_get(json_array_get(args, 3), "value")) == 0.0);
    assert_true(json_real_value(json_object_get(json_array_get(args, 4), "value")) == 1.5);
    spec_inference_free(&inf);
}

/* An index buffer whose values pick rows of a table (tab[ids[i] * width + c], c < width)
 * that nothing sizes: the table gets 65536 rows, the indices int(0, 65535), and every read
 * is checked inside at both size sets. Reading past the row picked, or a table the
 * program allocates itself, leaves the gather a doubt. */
static void table_rows_picked_by_an_index_buffer(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("table_rows.cu"), "lookup", &inf);
    no_doubts(&inf);
    assert_string_equal(field(inf.spec, 1, "dist"), "int(0, 65535)");
    assert_string_equal(field(inf.spec, 2, "count"), "65536 * width");
    assert_true(has_note(&inf, "values of ids in [0, 65535]: they pick rows of a table of 65536 rows"));
    spec_inference_free(&inf);
    const char *const doubtful[] = { "lookup_spill", "lookup_owned" };
    for (size_t c = 0; c < HK_ARRAY_LEN(doubtful); c++) {
        infer(DATA("table_rows.cu"), doubtful[c], &inf);
        assert_true(has_doubt(&inf, "is a value read from a buffer"));
        assert_null(json_object_get(json_array_get(json_object_get(inf.spec, "args"), 1), "dist"));
        spec_inference_free(&inf);
    }
}

/* A tile of points staged through shared memory, the last one cut at m: the remainder
 * loop's subscript (from end & ~3 to end, end = min(m, k + TILE) - k) mentions m yet stays
 * in [0, TILE - 1] for every m, so it is no doubt; tile[m - k - 1] can leave the array and
 * stays one. */
static void shared_subscripts_bounded_by_a_cut_tile(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("tile_stage.cu"), "nearest", &inf);
    no_doubts(&inf);
    assert_true(has_note(&inf, "the shared-memory subscript at line 23 stays in [0, 255] for every value of the "
                               "sizes: inside tile's 256 elements"));
    spec_inference_free(&inf);
    infer(DATA("tile_stage.cu"), "nearest_tail", &inf);
    assert_true(has_doubt(&inf, "the shared-memory subscript at line 42 depends on a scalar parameter"));
    spec_inference_free(&inf);
}

/* A grid capped by a helper of straight integer code (want = ceil_div(n, threads),
 * min(want, 1024)) is read as the helper computes it, following the block; a kernel that
 * moves its pointers in a grid-stride loop is counted off one pass at sizes where the
 * capped grid reaches every element. */
static void a_grid_capped_by_a_helper_function(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("capped_grid.cu"), "offset_rows", &inf);
    no_doubts(&inf);
    json_t *launch = json_object_get(inf.spec, "launch");
    json_t *g = json_object_get(launch, "grid");
    assert_int_equal(json_integer_value(json_object_get(launch, "block")), 128);
    assert_string_equal(json_string_value(json_array_get(g, 0)), "min(ceil_div(width, block_x), 1024)");
    assert_string_equal(json_string_value(json_array_get(g, 1)), "rows");
    assert_int_equal(eval_at(field(inf.spec, 2, "count"), "rows", 3, "width", 10), 30);
    assert_int_equal(eval_at(field(inf.spec, 3, "count"), "rows", 3, "width", 10), 30);
    assert_true(has_note(&inf, "one pass of the grid-stride loop each"));
    spec_inference_free(&inf);
}

/* The value of spec text at size set `set` of root: the set's sizes bound. */
static long long eval_set(json_t *root, size_t set, const char *text)
{
    json_t *sizes = json_array_get(json_object_get(root, "sizes"), set);
    const char *names[8];
    long long values[8];
    size_t n = 0;
    const char *key;
    json_t *v;
    json_object_foreach(sizes, key, v) {
        assert_true(n < 8);
        names[n] = key;
        values[n++] = json_integer_value(v);
    }
    return eval(text, names, values, n);
}

/* Bytes of the buffers at size set `set`, and the largest count (*most_count) and buffer
 * (*most_bytes) among them. */
static long long buffer_bytes(json_t *root, size_t set, long long *most_count, long long *most_bytes)
{
    long long all = 0;
    *most_count = *most_bytes = 0;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(root, "args"), i, a) {
        if (!strcmp(json_string_value(json_object_get(a, "kind")), "scalar"))
            continue;
        int dt = HK_DT_F32;
        assert_int_equal(spec_dtype_parse(json_string_value(json_object_get(a, "dtype")), &dt), HK_OK);
        long long c = eval_set(root, set, json_string_value(json_object_get(a, "count")));
        long long b = c * (long long)hk_dtype_size(dt);
        all += b;
        *most_count = c > *most_count ? c : *most_count;
        *most_bytes = b > *most_bytes ? b : *most_bytes;
    }
    return all;
}

#define TIMING_TARGET (200LL << 20) /* 4x the 50 MB L2 of an H100 or H200 */

/* Four and five sizes invented at 32 each made 8 us kernels on the H200, too short to time:
 * the timed set (sizes[1]) grows until its buffers move 4x the L2, the sizes launched over
 * together (their ratios kept), the small checked set as it was, a size that no count
 * holds (a loop each thread repeats) as invented. */
static void timing_sizes_past_the_l2(void **state)
{
    (void)state;
    static const char *const kernels[] = { "scale4", "smooth5" };
    for (size_t n = 0; n < 2; n++) {
        spec_inference inf;
        infer(DATA("timing_sizes.cu"), kernels[n], &inf);
        no_doubts(&inf);
        long long count = 0, bytes = 0;
        long long small = buffer_bytes(inf.spec, 0, &count, &bytes);
        long long timed = buffer_bytes(inf.spec, 1, &count, &bytes);
        assert_true(small < (1LL << 20));
        assert_true(timed >= TIMING_TARGET);
        assert_true(timed <= 16 * TIMING_TARGET); /* grown by steps below 2x a size */
        assert_true(bytes <= (2LL << 30));
        assert_true(has_note(&inf, "timing sizes (sizes[1]) grown until the buffers whose counts are known move"));
        assert_true(has_note(&inf, "b 32 -> ") || has_note(&inf, "n 32 -> "));
        json_t *s0 = json_array_get(json_object_get(inf.spec, "sizes"), 0);
        json_t *s1 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
        assert_int_equal(json_integer_value(json_object_get(s0, "c")), 15);
        long long c1 = json_integer_value(json_object_get(s1, "c"));
        assert_int_equal(json_integer_value(json_object_get(s1, "h")), c1);
        assert_int_equal(json_integer_value(json_object_get(s1, "w")), c1);
        if (n == 1)
            assert_int_equal(json_integer_value(json_object_get(s1, "iters")), 32);
        spec_inference_free(&inf);
    }
}

/* A guessed count (the product of every size: table's, which the kernel moves and reads
 * as far as a buffer says) caps the
 * growth: every count below 2^31 elements (an int subscript reaches each), every buffer
 * within 2 GiB; the size only the guess holds is halved to make room, and the note says
 * what stopped the rest. */
static void timing_sizes_capped_by_int_and_memory(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("timing_sizes.cu"), "prefix", &inf);
    no_doubts(&inf);
    assert_true(has_note(&inf, "count of table guessed as rows * cols * points * picks"));
    long long count = 0, bytes = 0;
    long long before = buffer_bytes(inf.spec, 0, &count, &bytes);
    buffer_bytes(inf.spec, 1, &count, &bytes);
    assert_true(count <= 2147483647LL);
    assert_true(bytes <= (2LL << 30));
    assert_true(bytes > (1LL << 30)); /* grown to near the cap */
    assert_true(before < bytes);
    assert_true(has_note(&inf, "points 32 -> 16 (it only sizes a guessed count, which capped the others)"));
    assert_true(has_note(&inf, "stopped by a buffer past 2 GiB"));
    /* the output's sizes grew together */
    json_t *s1 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
    long long rows = json_integer_value(json_object_get(s1, "rows"));
    assert_true(rows > 32);
    assert_int_equal(json_integer_value(json_object_get(s1, "cols")), rows);
    assert_int_equal(json_integer_value(json_object_get(s1, "picks")), rows);
    spec_inference_free(&inf);
    /* the gather pick (table[c * points + idx[p]]) has its count from idx's range: nothing
     * is guessed, points grows with the rest, and idx stays below its smallest value */
    infer(DATA("timing_sizes.cu"), "pick", &inf);
    no_doubts(&inf);
    assert_false(has_note(&inf, "guessed"));
    s1 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
    assert_int_equal(json_integer_value(json_object_get(s1, "points")),
                     json_integer_value(json_object_get(s1, "rows")));
    assert_string_equal(field(inf.spec, 1, "dist"), "int(0, points - 1)");
    spec_inference_free(&inf);
}

/* An all-pairs kernel's time goes with the threads times the loop: only the threads'
 * size grows (n), the reference points (m, which only the loop runs over) stay as
 * invented; so does a GEMM's k, while its leading dimensions follow m and n; a loop over a
 * size that fills a local array of 64 keeps that size too. */
static void timing_sizes_all_pairs_and_local_arrays(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("timing_sizes.cu"), "nearest", &inf);
    no_doubts(&inf);
    json_t *s1 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
    assert_int_equal(json_integer_value(json_object_get(s1, "m")), 4096);
    assert_true(json_integer_value(json_object_get(s1, "n")) > 2048);
    long long count = 0, bytes = 0;
    assert_true(buffer_bytes(inf.spec, 1, &count, &bytes) >= TIMING_TARGET);
    assert_true(has_note(&inf, "n 2048 -> "));
    assert_false(has_note(&inf, "m 4096 -> "));
    spec_inference_free(&inf);

    /* a GEMM's leading dimensions follow the extents they stride (lda with m: rows of A
     * would overlap under a larger m), its k loop stays as invented */
    infer(DATA("timing_sizes.cu"), "gemm_nt", &inf);
    no_doubts(&inf);
    s1 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
    long long m = json_integer_value(json_object_get(s1, "m"));
    assert_true(m > 32);
    assert_int_equal(json_integer_value(json_object_get(s1, "lda")), m);
    assert_int_equal(json_integer_value(json_object_get(s1, "ldb")), m);
    assert_int_equal(json_integer_value(json_object_get(s1, "ldc")), m);
    assert_int_equal(json_integer_value(json_object_get(s1, "k")), 32);
    assert_true(has_note(&inf, "lda 32 -> "));
    assert_true(has_note(&inf, "(it strides an input beside a size of the grid)"));
    assert_true(buffer_bytes(inf.spec, 1, &count, &bytes) >= TIMING_TARGET);
    spec_inference_free(&inf);

    infer(DATA("timing_sizes.cu"), "topk", &inf);
    no_doubts(&inf);
    s1 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
    assert_int_equal(json_integer_value(json_object_get(s1, "k")), 32);
    assert_true(buffer_bytes(inf.spec, 1, &count, &bytes) >= TIMING_TARGET);
    spec_inference_free(&inf);
}

/* mmcv's tin_shift: a flat index split by / and % (every part below its modulus), a value
 * read from memory moving t, the move skipped unless 0 <= t < t_size. The guards keep the
 * subscript inside output whatever the value (no doubt), the counts are the tensors'
 * (batch * t_size * channels * hw), and nthreads, output.numel() in the launcher, is
 * output's count. A guard on one side only, or none, leaves the value read a doubt. The
 * window of carafe: guards and loops whose bounds divide sizes (height / scale). */
static void guarded_shifts_and_divided_sizes(void **state)
{
    (void)state;
    spec_inference inf;
    static const char *const names[] = { "batch", "channels", "t_size", "hw", "groups", "group_channel" };
    static const long long v1[] = { 8, 256, 8, 3136, 4, 64 }, v2[] = { 3, 64, 5, 777, 2, 32 };
    const char *const ways[] = { "shift_continue", "shift_if_block" };
    for (size_t w = 0; w < HK_ARRAY_LEN(ways); w++) {
        infer(DATA("shift_guard.cu"), ways[w], &inf);
        no_doubts(&inf);
        assert_true(has_note(&inf, "guards keep it inside its buffer whatever the value"));
        assert_true(has_note(&inf, "output_size is output.numel() in the launcher"));
        assert_string_equal(field(inf.spec, 3, "kind"), "inout"); /* written where the data says */
        for (size_t a = 0; a < 4; a++) {
            const char *key = a == 0 ? "value" : "count";
            long long want1 = a == 2 ? 8 * 4 : 8LL * 256 * 8 * 3136, want2 = a == 2 ? 3 * 2 : 3LL * 64 * 5 * 777;
            assert_int_equal(eval(field(inf.spec, a, key), names, v1, 6), want1);
            assert_int_equal(eval(field(inf.spec, a, key), names, v2, 6), want2);
        }
        json_t *s0 = json_array_get(json_object_get(inf.spec, "sizes"), 0);
        assert_null(json_object_get(s0, "output_size")); /* no size of its own any more */
        spec_inference_free(&inf);
    }
    infer(DATA("shift_guard.cu"), "shift_upper_only", &inf);
    assert_true(has_doubt(&inf, "is a value read from a buffer"));
    spec_inference_free(&inf);
    spec_inference refused;
    char err[512] = "";
    char *path = spec_default_path(DATA("shift_guard.cu"), "shift_unguarded");
    int rc = spec_infer(DATA("shift_guard.cu"), "shift_unguarded", path, &refused, err, sizeof err);
    if (rc == HK_OK) {
        assert_true(has_doubt(&refused, "is a value read from a buffer"));
        spec_inference_free(&refused);
    } else {
        assert_non_null(strstr(err, "is a value read from a buffer"));
    }
    hk_free(path);

    infer(DATA("shift_guard.cu"), "window_up2", &inf);
    no_doubts(&inf);
    static const char *const wn[] = { "nthreads", "k", "scale", "channels", "height", "width" };
    static const long long w1[] = { 2 * 16 * 64 * 48, 5, 2, 16, 64, 48 }, w2[] = { 3 * 5 * 50 * 38, 3, 2, 5, 50, 38 };
    assert_true(eval(field(inf.spec, 1, "count"), wn, w1, 6) >= 2 * 16 * 32 * 24);
    assert_true(eval(field(inf.spec, 1, "count"), wn, w2, 6) >= 3 * 5 * 25 * 19);
    /* above by less than two rows of the input: the window's reach, not a guess */
    assert_true(eval(field(inf.spec, 1, "count"), wn, w1, 6) <= 2 * 16 * 32 * 24 + 2 * 24 + 2);
    assert_int_equal(eval(field(inf.spec, 2, "count"), wn, w1, 6), 2 * 16 * 64 * 48);
    spec_inference_free(&inf);
}

/* mmcv's psamask: windows clipped by min/max where each pixel sits scatter into a buffer.
 * The loop's variable is below each operand of the min, the pixel's row taken to the left
 * (hidx + h < h_feature + half_h_mask): counts equal the tensors', written with
 * temporaries or inline. What the windows reach together is not known: an inout.
 * nthreads, num * h_feature * w_feature in the launcher, is that product. A window whose
 * end is read from memory leaves buffer_data without a count. */
static void windows_clipped_where_the_thread_is(void **state)
{
    (void)state;
    spec_inference inf;
    static const char *const names[] = { "num", "h_feature", "w_feature", "h_mask", "w_mask", "half_h_mask",
                                         "half_w_mask" };
    static const long long v1[] = { 8, 32, 32, 63, 63, 31, 31 }, v2[] = { 2, 24, 20, 47, 39, 23, 19 };
    const char *const ways[] = { "collect", "collect_inline" };
    for (size_t w = 0; w < HK_ARRAY_LEN(ways); w++) {
        infer(DATA("window_scatter.cu"), ways[w], &inf);
        no_doubts(&inf);
        assert_string_equal(field(inf.spec, 0, "value"), "(num*h_feature*w_feature)");
        assert_string_equal(field(inf.spec, 7, "kind"), "input");
        assert_string_equal(field(inf.spec, 8, "kind"), "inout");
        assert_true(has_note(&inf, "buffer_data is written in windows clipped where each thread is"));
        assert_int_equal(eval(field(inf.spec, 7, "count"), names, v1, 7), 8LL * 63 * 63 * 32 * 32);
        assert_int_equal(eval(field(inf.spec, 7, "count"), names, v2, 7), 2LL * 47 * 39 * 24 * 20);
        assert_int_equal(eval(field(inf.spec, 8, "count"), names, v1, 7), 8LL * 32 * 32 * 32 * 32);
        assert_int_equal(eval(field(inf.spec, 8, "count"), names, v2, 7), 2LL * 24 * 20 * 24 * 20);
        spec_inference_free(&inf);
    }
    spec_inference refused;
    char err[512] = "";
    char *path = spec_default_path(DATA("window_scatter.cu"), "collect_read_end");
    int rc = spec_infer(DATA("window_scatter.cu"), "collect_read_end", path, &refused, err, sizeof err);
    if (rc == HK_OK) {
        assert_true(has_doubt(&refused, "how many elements buffer_data has is not in the index math"));
        spec_inference_free(&refused);
    } else {
        assert_non_null(strstr(err, "how many elements buffer_data has is not in the index math"));
    }
    hk_free(path);
}

#define CHECK_BUDGET (16LL << 20) /* the check set's buffers in all (SK_CHECK_BYTES) */

/* The check set (sizes[0]) runs for every seed and distribution and in an fp64 shadow:
 * mmcv's furthest point sampling had b = n = m = 1024 in both sets (every size rounded to
 * its block of 1024, though its grid is one block per batch) and a guessed count of 4 GB.
 * Now the sizes are halved until every buffer, guesses included, fits 16 MiB, b is no
 * multiple of the block, the two sets differ, and the timed set keeps every buffer within
 * 2 GiB; the guess says what it costs. Session 27: farthest's points is counted now (its
 * pick, read back from shared memory, stays below n: b * n * 3), so the guess is
 * farthest_seeded's, whose first pick is loaded from memory. */
static void the_check_set_is_cheap(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("check_sizes.cu"), "farthest", &inf);
    assert_false(has_note(&inf, "guessed as"));
    assert_true(has_note(&inf, "old stays below n"));
    {
        static const char *const fnames[] = { "b", "n", "m" };
        static const long long fv[] = { 5, 7, 11 };
        /* it reads x alone (points[k * 3]): the last batch's last point's x is the last */
        assert_int_equal(eval(field(inf.spec, 3, "count"), fnames, fv, 3), 3 * 7 * (5 - 1) + 3 * (7 - 1) + 1);
    }
    spec_inference_free(&inf);
    infer(DATA("check_sizes.cu"), "farthest_seeded", &inf);
    long long count = 0, bytes = 0;
    assert_true(buffer_bytes(inf.spec, 0, &count, &bytes) <= CHECK_BUDGET);
    buffer_bytes(inf.spec, 1, &count, &bytes);
    assert_true(bytes <= (2LL << 30));
    assert_true(has_note(&inf, "check sizes (sizes[0]) halved until the buffers take"));
    assert_true(has_note(&inf, "count of points guessed as b * n * m, "));
    assert_true(has_note(&inf, "MB at sizes[0] and "));
    assert_true(has_note(&inf, "no size the grid divides into blocks"));
    json_t *s0 = json_array_get(json_object_get(inf.spec, "sizes"), 0);
    json_t *s1 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
    long long b0 = json_integer_value(json_object_get(s0, "b"));
    assert_true(b0 >= 2 && b0 < 1024);
    assert_true(json_integer_value(json_object_get(s1, "b")) > b0);
    /* the order the invented sizes had (b < n < m) holds */
    assert_true(json_integer_value(json_object_get(s0, "n")) > b0);
    assert_true(json_integer_value(json_object_get(s0, "m")) > json_integer_value(json_object_get(s0, "n")));
    spec_inference_free(&inf);

    /* a kernel with no guess and a small set is left as it was */
    infer(DATA("timing_sizes.cu"), "scale4", &inf);
    assert_false(has_note(&inf, "check sizes (sizes[0])"));
    spec_inference_free(&inf);
}

/* Seven sizes and a guess of their product: as invented the timed set's guess is past 2^31
 * elements and the check set's past 2 GiB. The timed set is halved until every buffer
 * fits; the check set (one block of 256 as invented: 13 x 15 threads) is halved to 16 MiB
 * and then grows the sizes its grid names until it launches two blocks. The timed set the
 * guess leaves moves almost nothing: a doubt (mmcv's carafe). */
static void sizes_past_the_caps_as_invented(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("check_sizes.cu"), "seven", &inf);
    long long count = 0, bytes = 0;
    assert_true(buffer_bytes(inf.spec, 0, &count, &bytes) <= CHECK_BUDGET);
    buffer_bytes(inf.spec, 1, &count, &bytes);
    assert_true(count <= 2147483647LL && bytes <= (2LL << 30));
    assert_true(has_note(&inf, "timing sizes (sizes[1]) halved until every buffer fits"));
    assert_true(has_note(&inf, "check sizes (sizes[0]) halved and grown until the launch has two blocks"));
    json_t *s0 = json_array_get(json_object_get(inf.spec, "sizes"), 0);
    long long b = json_integer_value(json_object_get(s0, "b")), c = json_integer_value(json_object_get(s0, "c"));
    assert_true(b * c > 256);
    assert_true(json_integer_value(json_object_get(s0, "h")) >= 3);
    /* the guess holds the timed set to a few hundred outputs: nothing to time, a doubt */
    assert_true(has_doubt(&inf, "the timed set (sizes[1]) moves 0.00 MB in the buffers whose counts are known: "
                                "the guessed count of src"));
    spec_inference_free(&inf);

    /* a guess that leaves megabytes to time is no doubt of that kind */
    infer(DATA("check_sizes.cu"), "farthest", &inf);
    assert_false(has_doubt(&inf, "leaves nothing to time"));
    spec_inference_free(&inf);
}

/* One block checks nothing between blocks: four sizes invented small (13 x 15 pairs, one
 * block of 512) grow, those the grid names, until the launch has two; the sizes the grid
 * does not name stay. */
static void the_check_set_launches_two_blocks(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("check_sizes.cu"), "pair_sums", &inf);
    no_doubts(&inf);
    json_t *s0 = json_array_get(json_object_get(inf.spec, "sizes"), 0);
    long long na = json_integer_value(json_object_get(s0, "na")), nb = json_integer_value(json_object_get(s0, "nb"));
    assert_true(na * nb > 512);
    assert_true(na % 2 == 1 && nb % 2 == 1); /* still no multiple of the block */
    assert_int_equal(json_integer_value(json_object_get(s0, "mode")), 17);
    assert_true(has_note(&inf, "check sizes (sizes[0]) grown until the launch has two blocks"));
    spec_inference_free(&inf);
}

/* A launch under `if (block_size == 16)` with `dim3 threads(block_size, block_size)` runs
 * with a 16 x 16 block; its grid of a dim3 parameter's members (dims_a.y) makes that
 * member a size, and a dim3 of the body (dims_c) is what it is declared with. In the
 * else-branch the condition says nothing: the block stays unread and a doubt. */
static void a_block_under_an_if_and_dim3_parameters(void **state)
{
    (void)state;
    static const char *const names[] = { "wa", "dims_a_y" };
    static const long long v[] = { 64, 48 };
    spec_inference inf;
    infer(DATA("check_sizes.cu"), "tile_copy", &inf);
    no_doubts(&inf);
    assert_true(has_note(&inf, "block 16 x 16 x 1: the launch at check_sizes.cu:75 is under an `if`"));
    assert_true(has_note(&inf, "dims_a.y, a member of the launcher's dim3 parameter dims_a, reads as dims_a_y"));
    json_t *grid = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_int_equal(json_array_size(grid), 2);
    assert_int_equal(eval(json_string_value(json_array_get(grid, 1)), names, v, 2), 3);
    assert_int_equal(eval(field(inf.spec, 0, "count"), names, v, 2), 64 * 48);
    assert_int_equal(eval(field(inf.spec, 1, "count"), names, v, 2), 64 * 48);
    spec_inference_free(&inf);

    infer(DATA("check_sizes.cu"), "tile_scale", &inf);
    assert_false(has_note(&inf, "is under an `if`"));
    assert_true(has_doubt(&inf, "no launch site or bounds check says how many blocks tile_scale needs"));
    spec_inference_free(&inf);

    /* matrixMul's shape: c and a from their allocations (dims_c's members as declared), b
     * from the index math (session 27: the tile loop's trip ceil_div(wa, 16) and the block
     * index scaled by BS, pinned to the block; it was a guess); wa, which the tile loop
     * runs to, keeps the timed set's K (a GEMM of K = 16 when it was halved to make room
     * for the guess) */
    static const char *const mul_names[] = { "wa", "wb", "dims_a_y" };
    static const long long mul_v[] = { 32, 64, 48 };
    infer(DATA("check_sizes.cu"), "tile_mul", &inf);
    no_doubts(&inf);
    assert_int_equal(eval(field(inf.spec, 0, "count"), mul_names, mul_v, 3), 64 * 48);
    assert_int_equal(eval(field(inf.spec, 1, "count"), mul_names, mul_v, 3), 32 * 48);
    assert_int_equal(eval(field(inf.spec, 2, "count"), mul_names, mul_v, 3), 32 * 64);
    assert_true(has_note(&inf, "count of b from the kernel model's index forms in tile_mul"));
    json_t *s0 = json_array_get(json_object_get(inf.spec, "sizes"), 0);
    json_t *s1 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
    assert_true(json_integer_value(json_object_get(s1, "wa")) >= json_integer_value(json_object_get(s0, "wa")));
    assert_false(has_note(&inf, "wa 256 -> 16"));
    spec_inference_free(&inf);
}

/* gridDim in the index math is no grid-stride loop (issue 14, Rodinia's nn): the flat
 * index of a 2-D grid, blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x,
 * covers its bound when grid x times grid y reaches its blocks, in whatever shape. A
 * launch that does is kept; one that launches half of them (the program's own bug) is
 * replaced by the bounds' grid, one row of blocks; a write numbered by gridDim that no
 * bounds check sizes is a doubt. Before, gridDim anywhere in the body skipped the check,
 * and all three were sure, dist_short on half its outputs. */
static void flat_index_of_a_2d_grid(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("flat_grid.cu"), "dist", &inf);
    assert_int_equal(inf.n_doubts, 0);
    json_t *g = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_int_equal(json_array_size(g), 2);
    assert_non_null(strstr(json_string_value(json_array_get(g, 1)), "65535"));
    assert_true(has_note(&inf, "grid from the launch site at flat_grid.cu:43"));
    assert_true(has_note(&inf, "grid x times grid y must launch ceil_div((n), 256) blocks"));
    spec_inference_free(&inf);

    infer(DATA("flat_grid.cu"), "dist_short", &inf);
    assert_int_equal(inf.n_doubts, 0);
    g = json_object_get(json_object_get(inf.spec, "launch"), "grid");
    assert_int_equal(json_array_size(g), 2);
    assert_string_equal(json_string_value(json_array_get(g, 0)), "ceil_div((n), block_x)");
    assert_int_equal(json_integer_value(json_array_get(g, 1)), 1);
    assert_false(has_note(&inf, "grid from the launch site"));
    /* the blocks it launches cover every element of d at every size set */
    char *spec_path = spec_default_path(DATA("flat_grid.cu"), "dist_short");
    char *dump = json_dumps(inf.spec, 0);
    spec *sp = NULL;
    spec_diags d = { 0 };
    assert_int_equal(spec_parse(dump, strlen(dump), spec_path, &sp, &d), HK_OK);
    for (size_t k = 0; k < sp->n_sizes; k++) {
        expr_value gx, gy;
        assert_int_equal(spec_eval(sp, sp->grid[0], k, 132, &gx, NULL, 0), HK_OK);
        assert_int_equal(spec_eval(sp, sp->grid[1], k, 132, &gy, NULL, 0), HK_OK);
        long long n = json_integer_value(json_object_get(json_array_get(json_object_get(inf.spec, "sizes"), k), "n"));
        assert_true(gx.i * gy.i * 256 >= n);
    }
    spec_free(sp);
    spec_diags_free(&d);
    hk_free(dump);
    hk_free(spec_path);
    spec_inference_free(&inf);

    infer(DATA("flat_grid.cu"), "block_sums", &inf);
    bool said = false;
    for (size_t i = 0; i < inf.n_doubts; i++)
        said |= strstr(inf.doubts[i], "write to sums at line 28 computes its element with gridDim") != NULL;
    assert_true(said);
    spec_inference_free(&inf);
}

/* Honest bytes (issue 14, mmcv's carafe claimed 150% of its roofline): a buffer every
 * access of which sits in a window a guard on the loop's counter clips is left out of
 * bytes (its count spans elements the kernel may skip), so bytes is a floor; a guard on a
 * value read in the loop skips no element and leaves the buffer in. Before, bytes summed
 * every count: 4 * (feat) + 4 * (w) + 4 * (n). */
static void bytes_leave_out_clipped_windows(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("window_bytes.cu"), "upsample", &inf);
    assert_string_equal(json_string_value(json_object_get(inf.spec, "bytes")), "4 * (n)");
    assert_true(has_note(&inf, "but feat (line 15), w (line 15), accessed in loops whose iterations a guard"));
    spec_inference_free(&inf);
    infer(DATA("window_bytes.cu"), "row_max", &inf);
    const char *b = json_string_value(json_object_get(inf.spec, "bytes"));
    assert_non_null(b);
    assert_non_null(strstr(b, "4 * ((rows - 1)*cols+(cols - 1) + 1)"));
    assert_true(has_note(&inf, "bytes: every buffer moved once (inouts twice)"));
    spec_inference_free(&inf);
    /* a guard on data: some data reach every flag[], which stays in (an inout, twice) */
    infer(DATA("window_bytes.cu"), "hits", &inf);
    assert_string_equal(json_string_value(json_object_get(inf.spec, "bytes")),
                        "4 * ((n - 1)*m+(m - 1) + 1) + 8 * ((n - 1)*m+(m - 1) + 1)");
    spec_inference_free(&inf);
}

/* A buffer read through a pointer to wider elements (float4 over float) gets no count from
 * the index math: a doubt, not the a[i] the model used to list (count n, a quarter of what
 * the kernel reads: a sure spec reading past its buffer). */
static void wider_cast_reads_are_not_counted(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("recast.cu"), "widen", &inf);
    assert_true(has_doubt(&inf, "a is used through another pointer made from it at line 8"));
    spec_inference_free(&inf);
}

/* A buffer read only by a gather (probs[i * classes + label[i]], w[label[i]]: one element
 * per thread, at a subscript holding a loaded value) moves what the grid's threads pick of
 * it, not its count: its size classes is no work to grow (it used to grow with n, 4096 ->
 * 10240 in mmcv's focal loss, for a launch of 5120 threads), it gives way to the grid's n
 * under the element cap, and bytes counts min(count, threads) of it. */
static void a_gathered_buffer_moves_what_the_grid_picks(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("gather_rows.cu"), "pick_loss", &inf);
    json_t *s1 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
    long long n = json_integer_value(json_object_get(s1, "n"));
    long long classes = json_integer_value(json_object_get(s1, "classes"));
    assert_true(n >= 132LL * 2048); /* enough threads to fill an H200 */
    assert_true(classes < 4096 && classes >= 16); /* shrunk within the floor, never grown */
    assert_true(n * classes <= (1LL << 31));
    assert_true(has_note(&inf, "n 2048 -> "));
    assert_true(has_note(&inf, "classes 4096 -> ") &&
                has_note(&inf, "(it only sizes a count the grid gathers from, which capped the others)"));
    assert_true(has_note(&inf, "bytes: probs (1 per thread), w (1 per thread) read only by a gather"));
    const char *bytes = json_string_value(json_object_get(inf.spec, "bytes"));
    assert_non_null(bytes);
    /* per thread: probs 4, label 8, w 4 (at most classes elements), out 4 */
    long long moved = eval_set(inf.spec, 1, bytes);
    /* the grid-stride loop visits n elements, one pick of each buffer per element */
    assert_int_equal(moved, 4 * n + 8 * n + 4 * (classes < n ? classes : n) + 4 * n);
    assert_non_null(strstr(bytes, "min("));
    assert_true(moved >= TIMING_TARGET);
    /* the whole buffers are far more than the traffic: what bytes no longer claims */
    long long most_count = 0, most_bytes = 0;
    assert_true(buffer_bytes(inf.spec, 1, &most_count, &most_bytes) > 4 * moved);
    /* the check set keeps its sizes: no gather there changes what it allocates */
    json_t *s0 = json_array_get(json_object_get(inf.spec, "sizes"), 0);
    assert_true(json_integer_value(json_object_get(s0, "classes")) > 16);
    spec_inference_free(&inf);
}

/* Whether s is valid UTF-8 (a note cut at its buffer's end keeps whole characters). */
static bool utf8_ok(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
        if (n < 0)
            return false;
        p++;
        for (int i = 0; i < n; i++, p++)
            if ((*p & 0xC0) != 0x80)
                return false;
    }
    return true;
}

/* In Chinese (docs/i18n.md) the notes and doubts are the table's Chinese sentences and
 * only the words change: as many notes and doubts as in English, and the same spec, whose
 * "inferred" list stays English (its JSON never changes with the language). */
static void notes_and_doubts_in_chinese(void **state)
{
    (void)state;
    static const struct {
        const char *file, *kernel;
    } cases[] = { { "gemm_host.cu", "matmul" }, { "const_kinds.cu", "shifted" } };
    spec_inference en[2], zh[2];
    char path[2][256];
    for (int i = 0; i < 2; i++) {
        snprintf(path[i], sizeof path[i], "%s/infer/%s", HK_TEST_DATA, cases[i].file);
        hk_i18n_set(HK_LANG_EN);
        infer(path[i], cases[i].kernel, &en[i]);
        hk_i18n_set(HK_LANG_ZH_CN);
        infer(path[i], cases[i].kernel, &zh[i]);
        hk_i18n_set(HK_LANG_EN);
        assert_int_equal(zh[i].n_notes, en[i].n_notes);
        assert_int_equal(zh[i].n_doubts, en[i].n_doubts);
        char *a = json_dumps(en[i].spec, JSON_SORT_KEYS), *b = json_dumps(zh[i].spec, JSON_SORT_KEYS);
        assert_string_equal(a, b);
        hk_free(a);
        hk_free(b);
        json_t *listed = json_object_get(zh[i].spec, "inferred");
        assert_int_equal(json_array_size(listed), en[i].n_notes);
        for (size_t n = 0; n < zh[i].n_notes; n++) {
            assert_true(utf8_ok(zh[i].notes[n]));
            assert_string_equal(json_string_value(json_array_get(listed, n)), en[i].notes[n]);
            assert_string_not_equal(zh[i].notes[n], en[i].notes[n]);
        }
        for (size_t n = 0; n < zh[i].n_doubts; n++) {
            assert_true(utf8_ok(zh[i].doubts[n]));
            assert_string_not_equal(zh[i].doubts[n], en[i].doubts[n]);
        }
    }
    assert_true(has_note(&en[0], "count of C from its allocation at line 25"));
    assert_true(has_note(&zh[0], "C 的元素个数来自第 25 行的分配"));
    assert_true(has_note(&zh[0], "大小来自 gemm_host.cu:28 处的启动点"));
    assert_true(has_doubt(&en[1], "integer __constant__ offsets (line 8)"));
    assert_true(has_doubt(&zh[1], "读取整数 __constant__ offsets（第 8 行）"));
    assert_true(has_doubt(&zh[1], "请使用命令形式的 spec"));
    for (int i = 0; i < 2; i++) {
        spec_inference_free(&en[i]);
        spec_inference_free(&zh[i]);
    }
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemm_from_host_code),
        cmocka_unit_test(many_integer_parameters),
        cmocka_unit_test(pinned_block_without_bounds_check),
        cmocka_unit_test(a_constant_table_is_an_input),
        cmocka_unit_test(a_convolution_mask_through_a_device_function),
        cmocka_unit_test(constants_the_harness_cannot_fill_are_doubts),
        cmocka_unit_test(counts_follow_pointers_made_from_a_parameter),
        cmocka_unit_test(grids_written_with_struct_members),
        cmocka_unit_test(grid_from_bounds_when_the_launch_is_opaque),
        cmocka_unit_test(refusals_say_why),
        cmocka_unit_test(include_dirs_are_anchored),
        cmocka_unit_test(include_dirs_from_compile_commands),
        cmocka_unit_test(counts_and_flops_through_temporaries),
        cmocka_unit_test(grid_and_flops_from_a_copied_index),
        cmocka_unit_test(flops_of_a_two_matrix_gemv),
        cmocka_unit_test(grid_from_a_grid_stride_loop),
        cmocka_unit_test(launch_site_in_a_sibling_file),
        cmocka_unit_test(a_moved_pointer_counts_with_its_move),
        cmocka_unit_test(moves_in_a_grid_stride_loop),
        cmocka_unit_test(allocation_sizes_through_a_local),
        cmocka_unit_test(counts_follow_the_threads_launched),
        cmocka_unit_test(shared_subscript_by_an_invented_size),
        cmocka_unit_test(offsets_and_round_up_spelled_with_a_remainder),
        cmocka_unit_test(launcher_template_and_dynamic_shared_memory),
        cmocka_unit_test(block_stride_loops_and_a_switch_on_the_block),
        cmocka_unit_test(a_label_compared_with_a_class_index),
        cmocka_unit_test(more_than_sixteen_size_variables),
        cmocka_unit_test(template_arguments_from_an_explicit_instantiation),
        cmocka_unit_test(a_block_scaled_by_a_runtime_value_is_a_doubt),
        cmocka_unit_test(bool_flags_and_unknown_types),
        cmocka_unit_test(element_types_through_typedefs),
        cmocka_unit_test(scalar_t_from_a_dispatch_macro),
        cmocka_unit_test(a_subscript_read_from_a_buffer_is_a_doubt),
        cmocka_unit_test(host_facts_from_the_whole_launch_file),
        cmocka_unit_test(a_gather_bounded_by_its_subscript),
        cmocka_unit_test(a_gathered_buffer_moves_what_the_grid_picks),
        cmocka_unit_test(grid_stride_along_x_beside_planes),
        cmocka_unit_test(counts_through_divisions_and_remainders),
        cmocka_unit_test(no_count_from_a_subscript_that_does_not_grow),
        cmocka_unit_test(an_unguarded_block_index_is_below_the_launch_grid),
        cmocka_unit_test(rows_of_a_matrix_without_launch_or_bounds),
        cmocka_unit_test(device_limits_and_function_like_macros),
        cmocka_unit_test(sizes_within_the_launchers_asserts),
        cmocka_unit_test(a_launch_through_a_function_pointer),
        cmocka_unit_test(a_launch_in_a_launcher_the_grammar_loses),
        cmocka_unit_test(a_block_that_grows_with_the_sizes_is_a_doubt),
        cmocka_unit_test(an_output_its_writes_do_not_cover_is_an_inout),
        cmocka_unit_test(a_hit_counter_and_writes_the_data_decides),
        cmocka_unit_test(table_rows_picked_by_an_index_buffer),
        cmocka_unit_test(shared_subscripts_bounded_by_a_cut_tile),
        cmocka_unit_test(a_grid_capped_by_a_helper_function),
        cmocka_unit_test(timing_sizes_past_the_l2),
        cmocka_unit_test(timing_sizes_capped_by_int_and_memory),
        cmocka_unit_test(timing_sizes_all_pairs_and_local_arrays),
        cmocka_unit_test(guarded_shifts_and_divided_sizes),
        cmocka_unit_test(windows_clipped_where_the_thread_is),
        cmocka_unit_test(the_check_set_is_cheap),
        cmocka_unit_test(the_check_set_launches_two_blocks),
        cmocka_unit_test(sizes_past_the_caps_as_invented),
        cmocka_unit_test(a_block_under_an_if_and_dim3_parameters),
        cmocka_unit_test(flat_index_of_a_2d_grid),
        cmocka_unit_test(bytes_leave_out_clipped_windows),
        cmocka_unit_test(wider_cast_reads_are_not_counted),
        cmocka_unit_test(notes_and_doubts_in_chinese),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
