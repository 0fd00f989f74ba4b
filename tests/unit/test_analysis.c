/* Unit tests of the CUDA/HIP analysis on fixtures (tests/data/analysis): what each
 * kernel, launch, parameter, shared array and tunable looks like, structural
 * invariants of every model, robustness on hostile input and injected ENOMEM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "core/hk.h"

/* ------------------------------------------------------------------ helpers */

static char *read_fixture(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/analysis/%s", HK_TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* (row, byte column) of a byte offset */
static void point_of(const char *text, uint32_t byte, uint32_t *row, uint32_t *col)
{
    uint32_t r = 0, c = 0;
    for (uint32_t i = 0; i < byte; i++) {
        if (text[i] == '\n') {
            r++;
            c = 0;
        } else {
            c++;
        }
    }
    *row = r;
    *col = c;
}

static void check_span(const char *text, size_t len, an_span s)
{
    assert_true(s.start_byte <= s.end_byte);
    assert_true(s.end_byte <= len);
    uint32_t r, c;
    point_of(text, s.start_byte, &r, &c);
    assert_int_equal(s.start_row, r);
    assert_int_equal(s.start_col, c);
    point_of(text, s.end_byte, &r, &c);
    assert_int_equal(s.end_row, r);
    assert_int_equal(s.end_col, c);
}

static bool span_in(an_span inner, an_span outer)
{
    return outer.start_byte <= inner.start_byte && inner.end_byte <= outer.end_byte;
}

/* Invariants every model must satisfy, whatever the input. */
static void check_model(const char *text, size_t len, const an_model *m)
{
    for (size_t i = 0; i < m->n_funcs; i++) {
        const an_function *f = &m->funcs[i];
        assert_non_null(f->name);
        assert_non_null(f->signature);
        check_span(text, len, f->span);
        check_span(text, len, f->name_span);
        check_span(text, len, f->body_span);
        assert_true(span_in(f->name_span, f->span));
        assert_true(span_in(f->body_span, f->span));
        if (i > 0)
            assert_true(m->funcs[i - 1].span.start_byte <= f->span.start_byte);
        for (size_t k = 0; k < f->n_params; k++) {
            assert_non_null(f->params[k].name);
            assert_non_null(f->params[k].type);
            assert_non_null(f->params[k].elem_type);
            assert_true(f->params[k].pointer_depth >= 0);
            check_span(text, len, f->params[k].span);
        }
        for (size_t k = 0; k < f->n_shared; k++) {
            assert_non_null(f->shared[k].name);
            assert_non_null(f->shared[k].type);
            assert_non_null(f->shared[k].size_expr);
            check_span(text, len, f->shared[k].span);
            assert_true(span_in(f->shared[k].span, f->span));
        }
        if (f->kind == AN_LAUNCHER)
            assert_true(f->n_launches > 0);
        for (size_t k = 0; k < f->n_launches; k++) {
            assert_true(f->launches[k] < m->n_launches);
            assert_int_equal(m->launches[f->launches[k]].caller, (long)i);
        }
    }
    for (size_t i = 0; i < m->n_launches; i++) {
        const an_launch *l = &m->launches[i];
        assert_non_null(l->kernel);
        check_span(text, len, l->span);
        assert_true(l->caller >= -1 && l->caller < (long)m->n_funcs);
        if (l->caller >= 0) {
            const an_function *f = &m->funcs[l->caller];
            assert_true(span_in(l->span, f->span));
            size_t found = 0;
            for (size_t k = 0; k < f->n_launches; k++)
                found += f->launches[k] == i;
            assert_int_equal(found, 1);
        }
        for (size_t k = 0; k < l->n_args; k++)
            assert_non_null(l->args[k]);
        if (i > 0)
            assert_true(m->launches[i - 1].span.start_byte <= l->span.start_byte);
    }
    for (size_t i = 0; i < m->n_tunables; i++) {
        const an_tunable *t = &m->tunables[i];
        assert_non_null(t->name);
        check_span(text, len, t->span);
        check_span(text, len, t->value_span);
        assert_true(t->owner >= -1 && t->owner < (long)m->n_funcs);
        if (t->kind == AN_TUNE_TEMPLATE)
            assert_true(t->owner >= 0);
        if (t->kind != AN_TUNE_TEMPLATE)
            assert_non_null(t->value);
    }
}

static const an_model *g_model;
static char *g_text;
static size_t g_len;

static void load(const char *name)
{
    an_model *m = NULL;
    g_text = read_fixture(name, &g_len);
    assert_int_equal(an_analyze(g_text, g_len, &m), HK_OK);
    check_model(g_text, g_len, m);
    g_model = m;
}

static void unload(void)
{
    an_model_free((an_model *)g_model);
    g_model = NULL;
    free(g_text);
    g_text = NULL;
    assert_int_equal(hk_alloc_live(), 0);
}

static const an_function *func(const char *name)
{
    for (size_t i = 0; i < g_model->n_funcs; i++)
        if (!strcmp(g_model->funcs[i].name, name))
            return &g_model->funcs[i];
    fail_msg("no function %s", name);
    return NULL;
}

static long func_index(const char *name)
{
    return (long)(func(name) - g_model->funcs);
}

static bool has_func(const char *name)
{
    for (size_t i = 0; i < g_model->n_funcs; i++)
        if (!strcmp(g_model->funcs[i].name, name))
            return true;
    return false;
}

/* The tunable named name owned by owner (-1 for file scope). */
static const an_tunable *tunable(const char *name, long owner)
{
    for (size_t i = 0; i < g_model->n_tunables; i++)
        if (!strcmp(g_model->tunables[i].name, name) && g_model->tunables[i].owner == owner)
            return &g_model->tunables[i];
    fail_msg("no tunable %s (owner %ld)", name, owner);
    return NULL;
}

static bool has_tunable(const char *name)
{
    for (size_t i = 0; i < g_model->n_tunables; i++)
        if (!strcmp(g_model->tunables[i].name, name))
            return true;
    return false;
}

static void assert_span_text(an_span s, const char *want)
{
    size_t n = strlen(want);
    assert_int_equal(s.end_byte - s.start_byte, n);
    assert_memory_equal(g_text + s.start_byte, want, n);
}

static const an_param *param(const an_function *f, size_t i)
{
    assert_true(i < f->n_params);
    return &f->params[i];
}

/* ------------------------------------------------------------------ fixtures */

static void test_grammar_check(void **state)
{
    (void)state;
    const char *why = NULL;
    assert_int_equal(an_grammar_check(&why), HK_OK);
    assert_non_null(why);
}

static void test_saxpy(void **state)
{
    (void)state;
    load("saxpy.cu");
    assert_false(g_model->has_errors);
    assert_int_equal(g_model->n_funcs, 2);   /* main has no launch: not a launcher */
    assert_false(has_func("main"));
    const an_function *k = func("saxpy");
    assert_int_equal(k->kind, AN_KERNEL);
    assert_null(k->template_params);
    assert_null(k->launch_bounds);
    assert_string_equal(k->signature, "__global__ void saxpy(int n, float a, const float "
                                      "*__restrict__ x, float *__restrict__ y)");
    assert_span_text(k->name_span, "saxpy");
    assert_int_equal(g_text[k->body_span.start_byte], '{');
    assert_int_equal(g_text[k->body_span.end_byte - 1], '}');
    assert_int_equal(k->n_params, 4);
    assert_string_equal(param(k, 0)->name, "n");
    assert_string_equal(param(k, 0)->type, "int");
    assert_int_equal(param(k, 0)->pointer_depth, 0);
    const an_param *x = param(k, 2);
    assert_string_equal(x->name, "x");
    assert_string_equal(x->type, "const float *__restrict__");
    assert_string_equal(x->elem_type, "float");
    assert_int_equal(x->pointer_depth, 1);
    assert_true(x->is_const);
    assert_true(x->is_restrict);
    const an_param *y = param(k, 3);
    assert_false(y->is_const);
    assert_true(y->is_restrict);
    assert_span_text(y->span, "float *__restrict__ y");

    const an_function *l = func("run_saxpy");
    assert_int_equal(l->kind, AN_LAUNCHER);
    assert_int_equal(l->n_launches, 1);
    const an_launch *ln = &g_model->launches[l->launches[0]];
    assert_int_equal(ln->form, AN_LAUNCH_CHEVRON);
    assert_string_equal(ln->kernel, "saxpy");
    assert_null(ln->template_args);
    assert_string_equal(ln->grid, "grid");
    assert_string_equal(ln->block, "BLOCK_SIZE");
    assert_string_equal(ln->shmem, "0");
    assert_string_equal(ln->stream, "stream");
    assert_int_equal(ln->n_args, 4);
    assert_string_equal(ln->args[2], "d_x");
    assert_int_equal(ln->caller, func_index("run_saxpy"));
    assert_span_text(ln->span, "saxpy<<<grid, BLOCK_SIZE, 0, stream>>>(n, a, d_x, d_y)");

    const an_tunable *t = tunable("BLOCK_SIZE", -1);
    assert_int_equal(t->kind, AN_TUNE_DEFINE);
    assert_string_equal(t->value, "256");
    assert_true(t->in_launch);
    assert_false(t->in_array);
    assert_span_text(t->value_span, "256");
    assert_span_text(t->span, "#define BLOCK_SIZE 256");

    /* queries */
    assert_int_equal(an_model_find_kernel(g_model, "saxpy"), func_index("saxpy"));
    assert_int_equal(an_model_find_kernel(g_model, "run_saxpy"), -1);
    assert_int_equal(an_model_find_kernel(g_model, "nope"), -1);
    assert_int_equal(an_model_function_at(g_model, k->body_span.start_byte + 3),
                     func_index("saxpy"));
    assert_int_equal(an_model_function_at(g_model, 0), -1);
    assert_int_equal(an_model_function_at(g_model, k->span.end_byte), -1);
    assert_int_equal(an_model_launch_at(g_model, ln->span.start_byte + 2), 0);
    assert_int_equal(an_model_launch_at(g_model, k->span.start_byte), -1);
    unload();
}

static void test_transpose(void **state)
{
    (void)state;
    load("transpose.cu");
    const an_function *k = func("transpose");
    assert_int_equal(k->n_shared, 1);
    assert_string_equal(k->shared[0].name, "tile");
    assert_string_equal(k->shared[0].type, "float");
    assert_string_equal(k->shared[0].size_expr, "[TILE][TILE + 1]");
    assert_false(k->shared[0].is_extern);
    assert_span_text(k->shared[0].span, "__shared__ float tile[TILE][TILE + 1];");
    assert_true(param(k, 1)->is_const);
    assert_false(param(k, 0)->is_const);

    const an_tunable *tile = tunable("TILE", -1);
    assert_int_equal(tile->kind, AN_TUNE_CONSTEXPR);
    assert_string_equal(tile->value, "32");
    assert_true(tile->in_launch);   /* dim3 block(TILE, ROWS) */
    assert_true(tile->in_array);    /* tile[TILE][TILE + 1] */
    assert_span_text(tile->value_span, "32");
    /* ROWS reaches the launch through `dim3 block(TILE, ROWS)`, which tree-sitter reads
     * as a function declaration */
    const an_tunable *rows = tunable("ROWS", -1);
    assert_true(rows->in_launch);
    assert_false(rows->in_array);
    const an_tunable *unused = tunable("UNUSED_CONST", -1);
    assert_false(unused->in_launch);
    assert_false(unused->in_array);
    const an_launch *ln = &g_model->launches[0];
    assert_string_equal(ln->grid, "grid");
    assert_string_equal(ln->block, "block");
    assert_null(ln->shmem);
    assert_null(ln->stream);
    unload();
}

static void test_templates(void **state)
{
    (void)state;
    load("templates.cu");
    assert_false(g_model->has_errors);
    const an_function *ws = func("warp_sum");
    assert_int_equal(ws->kind, AN_DEVICE_FUNC);
    assert_string_equal(ws->template_params, "template <typename T>");
    assert_int_equal(func("clampf")->kind, AN_DEVICE_FUNC);   /* __host__ __device__ */

    const an_function *k = func("scale_kernel");
    long ki = func_index("scale_kernel");
    assert_int_equal(k->kind, AN_KERNEL);
    assert_string_equal(k->template_params, "template <int BLOCK, int ITEMS = 4, typename T>");
    assert_string_equal(k->launch_bounds, "BLOCK, 2");
    assert_true(strncmp(g_text + k->span.start_byte, "template <int BLOCK", 19) == 0);
    assert_span_text(k->name_span, "scale_kernel");
    assert_string_equal(param(k, 0)->elem_type, "T");
    assert_true(param(k, 0)->is_restrict);

    const an_tunable *b = tunable("BLOCK", ki);
    assert_int_equal(b->kind, AN_TUNE_TEMPLATE);
    assert_null(b->value);
    assert_true(b->in_launch);      /* __launch_bounds__(BLOCK, 2) */
    assert_false(b->in_array);
    assert_int_equal(b->value_span.start_byte, b->value_span.end_byte);
    const an_tunable *items = tunable("ITEMS", ki);
    assert_string_equal(items->value, "4");
    assert_span_text(items->value_span, "4");
    assert_true(items->in_array);   /* T regs[ITEMS] */
    assert_false(items->in_launch);

    long li = func_index("launch_scale");
    const an_function *l = func("launch_scale");
    assert_int_equal(l->kind, AN_LAUNCHER);
    assert_string_equal(l->template_params, "template <int BLOCK>");
    const an_tunable *lb = tunable("BLOCK", li);
    assert_true(lb->in_launch);
    const an_launch *ln = &g_model->launches[l->launches[0]];
    assert_string_equal(ln->kernel, "scale_kernel");
    assert_string_equal(ln->template_args, "<BLOCK, 4, float>");
    assert_string_equal(ln->grid, "grid");
    assert_string_equal(ln->stream, "st");
    assert_int_equal(an_model_find_kernel(g_model, "scale_kernel"), ki);
    unload();
}

static void test_reduction_cuda_launch_kernel(void **state)
{
    (void)state;
    load("reduction.cu");
    const an_function *k = func("reduce_sum");
    assert_int_equal(k->n_shared, 2);
    assert_string_equal(k->shared[0].name, "sdata");
    assert_true(k->shared[0].is_extern);
    assert_string_equal(k->shared[0].size_expr, "");
    assert_string_equal(k->shared[1].name, "warp_part");
    assert_string_equal(k->shared[1].size_expr, "[WARPS]");
    assert_string_equal(param(k, 2)->elem_type, "unsigned int");

    assert_int_equal(g_model->n_launches, 1);
    const an_launch *ln = &g_model->launches[0];
    assert_int_equal(ln->form, AN_LAUNCH_CUDA_API);
    assert_string_equal(ln->kernel, "reduce_sum");
    assert_string_equal(ln->grid, "dim3(blocks)");
    assert_string_equal(ln->block, "dim3(THREADS)");
    assert_string_equal(ln->shmem, "smem");
    assert_string_equal(ln->stream, "stream");
    assert_int_equal(ln->n_args, 1);
    assert_string_equal(ln->args[0], "args");
    assert_int_equal(ln->caller, func_index("host_reduce"));

    const an_tunable *th = tunable("THREADS", -1);
    assert_true(th->in_launch);
    assert_true(th->in_array);      /* through WARPS = (THREADS / 32) */
    const an_tunable *w = tunable("WARPS", -1);
    assert_string_equal(w->value, "(THREADS / 32)");
    assert_true(w->in_array);
    assert_false(w->in_launch);
    assert_false(has_tunable("EPS"));   /* a float is not an integer tunable */
    unload();
}

static void test_hip(void **state)
{
    (void)state;
    load("vadd.hip");
    assert_false(g_model->has_errors);
    assert_int_equal(func("vadd")->kind, AN_KERNEL);
    assert_int_equal(g_model->n_launches, 2);
    const an_launch *a = &g_model->launches[0], *b = &g_model->launches[1];
    assert_int_equal(a->form, AN_LAUNCH_HIP);
    assert_string_equal(a->kernel, "vadd");
    assert_string_equal(a->grid, "dim3((n + HIP_BLOCK - 1) / HIP_BLOCK)");
    assert_string_equal(a->block, "dim3(HIP_BLOCK)");
    assert_string_equal(a->shmem, "0");
    assert_string_equal(a->stream, "stream");
    assert_int_equal(a->n_args, 4);
    assert_string_equal(a->args[3], "n");
    assert_string_equal(b->kernel, "vscale");
    assert_string_equal(b->template_args, "<float, 4>");
    assert_int_equal(b->n_args, 3);
    assert_string_equal(b->args[1], "2.0f");
    assert_true(tunable("HIP_BLOCK", -1)->in_launch);
    const an_tunable *u = tunable("UNROLL", func_index("vscale"));
    assert_false(u->in_launch);
    assert_false(u->in_array);
    unload();
}

static void test_chinese(void **state)
{
    (void)state;
    load("chinese.cu");
    assert_false(g_model->has_errors);
    const an_function *d = func("\xe5\x9b\xa0\xe5\xad\x90");   /* 因子 */
    assert_int_equal(d->kind, AN_DEVICE_FUNC);
    const an_function *k = func("row_scale");
    /* columns are bytes: "__global__ void " is 16 bytes */
    assert_int_equal(k->name_span.start_col, 16);
    const an_function *l = func("\xe5\x90\xaf\xe5\x8a\xa8");   /* 启动 */
    assert_int_equal(l->kind, AN_LAUNCHER);
    assert_span_text(l->name_span, "\xe5\x90\xaf\xe5\x8a\xa8");
    const an_tunable *rb = tunable("ROW_BLOCK", -1);
    assert_string_equal(rb->value, "128");      /* the trailing comment is not the value */
    assert_span_text(rb->value_span, "128");
    assert_true(rb->in_launch);
    unload();
}

static void test_broken(void **state)
{
    (void)state;
    load("broken.cu");
    assert_true(g_model->has_errors);
    const an_function *g = func("good_before");
    assert_false(g->recovered);
    assert_int_equal(g->n_params, 2);
    const an_function *h = func("half_typed");
    assert_true(h->recovered);
    assert_int_equal(h->kind, AN_KERNEL);
    assert_int_equal(h->n_params, 1);
    assert_int_equal(h->n_shared, 1);
    assert_string_equal(h->shared[0].size_expr, "[64]");
    assert_true(func("after_error")->recovered);
    const an_function *l = func("launch");
    assert_int_equal(l->kind, AN_LAUNCHER);
    assert_int_equal(l->n_launches, 1);
    assert_string_equal(g_model->launches[l->launches[0]].kernel, "good_before");
    const an_function *u = func("unterminated");
    assert_true(u->recovered);
    assert_int_equal(u->kind, AN_KERNEL);
    assert_true(tunable("BS", -1)->in_launch);
    unload();
}

static void test_macros_namespaces(void **state)
{
    (void)state;
    load("macros.cu");
    const an_function *e = func("k_extern");
    assert_int_equal(e->kind, AN_KERNEL);
    assert_string_equal(e->launch_bounds, "NT");
    const an_function *m = func("k_macro");   /* KERNEL is #define'd to __global__ */
    assert_int_equal(m->kind, AN_KERNEL);
    assert_true(param(m, 0)->is_restrict);
    assert_int_equal(param(m, 1)->pointer_depth, 2);
    assert_true(param(m, 1)->is_const);
    assert_string_equal(param(m, 1)->type, "const double *const *");
    assert_int_equal(func("twice")->kind, AN_DEVICE_FUNC);   /* HD */
    assert_int_equal(func("go")->kind, AN_LAUNCHER);         /* a method */
    assert_int_equal(func("get")->kind, AN_DEVICE_FUNC);
    assert_int_equal(func("special")->kind, AN_KERNEL);      /* inside #ifdef */
    assert_false(has_func("host_only"));
    assert_false(has_tunable("KERNEL"));
    assert_true(tunable("NT", -1)->in_launch);
    unload();
}

static void test_inline_snippets(void **state)
{
    (void)state;
    static const char src[] =
        "#define A 4\n"
        "#define B (A * 2)\n"
        "#define C (B + 1)\n"
        "constexpr int D = 7, E = 8;\n"
        "constexpr auto F = 1u << 4;\n"
        "__global__ void k(float *p) { __shared__ float s[C]; float r[E]; int q[2] = {0}; }\n"
        "__device__ void kd(float (*m)[D]) {}\n"
        "void l(float *p) {\n"
        "  size_t sm = F * sizeof(float);\n"
        "  auto f = [&]() { k<<<1, 32, sm>>>(p); };\n"
        "  f();\n"
        "}\n"
        "void notalauncher(void) { constexpr int LOCAL = 3; }\n";
    an_model *m;
    g_text = (char *)src;
    g_len = sizeof(src) - 1;
    assert_int_equal(an_analyze(src, g_len, &m), HK_OK);
    g_model = m;
    check_model(src, g_len, m);
    assert_true(tunable("A", -1)->in_array);   /* through B and C */
    assert_true(tunable("B", -1)->in_array);
    assert_true(tunable("C", -1)->in_array);
    assert_true(tunable("D", -1)->in_array);   /* an array parameter */
    assert_true(tunable("E", -1)->in_array);   /* a local array */
    assert_true(tunable("F", -1)->in_launch);  /* through sm, inside a lambda */
    assert_false(tunable("F", -1)->in_array);
    assert_false(has_tunable("LOCAL"));        /* its function is not in the model */
    const an_function *l = func("l");
    assert_int_equal(l->kind, AN_LAUNCHER);
    assert_int_equal(g_model->launches[0].caller, func_index("l"));
    assert_int_equal(func("kd")->params[0].pointer_depth, 2);
    assert_string_equal(func("kd")->params[0].type, "float (*)[D]");
    an_model_free(m);
    g_model = NULL;
    g_text = NULL;
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_launch_forms(void **state)
{
    (void)state;
    static const char src[] =
        "namespace nn { template <typename T, int B> __global__ void kk(T *p) {} }\n"
        "__global__ void coop(float *p) {}\n"
        "void go(float *p, cudaStream_t s, void **a) {\n"
        "  nn::kk<float, 128><<<dim3(4, 4), 128, 64 * sizeof(float), s>>>(p);\n"
        "  cudaLaunchCooperativeKernel((void *)&coop, 8, 256, a, 0, s);\n"
        "  hipLaunchKernel(reinterpret_cast<const void *>(coop), 1, 2, a, 3, s);\n"
        "  hipLaunchKernelGGL(HIP_KERNEL_NAME(nn::kk<float, 64>), 1, 64, 0, s, p);\n"
        "  cudaLaunchKernel(coop);\n"
        "  not_a_launch(coop, 1, 2);\n"
        "}\n";
    an_model *m;
    g_text = (char *)src;
    g_len = sizeof(src) - 1;
    assert_int_equal(an_analyze(src, g_len, &m), HK_OK);
    g_model = m;
    check_model(src, g_len, m);
    assert_false(m->has_errors);
    assert_int_equal(m->n_launches, 5);
    const an_launch *l = m->launches;
    assert_int_equal(l[0].form, AN_LAUNCH_CHEVRON);
    assert_string_equal(l[0].kernel, "nn::kk");
    assert_string_equal(l[0].template_args, "<float, 128>");
    assert_string_equal(l[0].grid, "dim3(4, 4)");
    assert_string_equal(l[0].shmem, "64 * sizeof(float)");
    assert_int_equal(l[1].form, AN_LAUNCH_CUDA_API);
    assert_string_equal(l[1].kernel, "coop");
    assert_string_equal(l[1].grid, "8");
    assert_string_equal(l[1].block, "256");
    assert_string_equal(l[1].args[0], "a");
    assert_string_equal(l[2].kernel, "coop");
    assert_string_equal(l[2].shmem, "3");
    assert_int_equal(l[3].form, AN_LAUNCH_HIP);
    assert_string_equal(l[3].kernel, "nn::kk");
    assert_string_equal(l[3].template_args, "<float, 64>");
    assert_int_equal(l[3].n_args, 1);
    /* a call missing its configuration still counts as a launch, with NULLs */
    assert_string_equal(l[4].kernel, "coop");
    assert_null(l[4].grid);
    assert_int_equal(l[4].n_args, 0);
    long kk = an_model_find_kernel(m, "kk");
    assert_true(kk >= 0);
    assert_int_equal(an_model_find_kernel(m, l[0].kernel), kk);   /* "nn::kk" */
    assert_int_equal(an_model_find_kernel(m, "other::kk"), kk);
    assert_int_equal(an_model_find_kernel(m, "nn::"), -1);
    assert_int_equal(an_model_find_kernel(m, "go"), -1);          /* a launcher */
    an_model_free(m);
    g_model = NULL;
    g_text = NULL;
    assert_int_equal(hk_alloc_live(), 0);
}

/* ------------------------------------------------------------------ robustness */

static void analyze_checked(const char *text, size_t len)
{
    an_model *m = NULL;
    int rc = an_analyze(text, len, &m);
    assert_int_equal(rc, HK_OK);
    check_model(text, len, m);
    an_model_free(m);
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_hostile_input(void **state)
{
    (void)state;
    analyze_checked("", 0);
    analyze_checked(NULL, 0);
    analyze_checked("__global__", 10);
    analyze_checked("__global__ void", 15);
    analyze_checked("<<<>>>", 6);
    analyze_checked("k<<<", 4);
    analyze_checked("hipLaunchKernelGGL()", 20);
    analyze_checked("cudaLaunchKernel(", 17);
    analyze_checked("template <", 10);
    analyze_checked("#define", 7);
    analyze_checked("#define X \\", 11);
    /* NUL bytes inside a kernel */
    static const char nul[] = "__global__ void k(float *x)\0 { x[0] = 1; }\n__global__ void k2(\0) {}";
    analyze_checked(nul, sizeof(nul) - 1);
    /* invalid UTF-8 */
    static const char bad[] = "__global__ void \xff\xfe(float *x) { /* \xc3 */ }\n";
    analyze_checked(bad, sizeof(bad) - 1);

    /* one huge line: a 256 KB expression in a launch */
    size_t n = 1 << 18;
    char *big = malloc(n + 64);
    assert_non_null(big);
    size_t o = (size_t)sprintf(big, "void f(){k<<<");
    while (o < n)
        o += (size_t)sprintf(big + o, "a+");
    o += (size_t)sprintf(big + o, "1,1>>>(x);}");
    {
        an_model *m;
        assert_int_equal(an_analyze(big, o, &m), HK_OK);
        check_model(big, o, m);
        assert_int_equal(m->n_launches, 1);
        assert_true(strlen(m->launches[0].grid) <= 4096 + 3);   /* capped */
        assert_string_equal(m->launches[0].grid + strlen(m->launches[0].grid) - 3, "...");
        an_model_free(m);
    }
    /* deep nesting: parentheses and blocks */
    size_t depth = 20000;
    o = (size_t)sprintf(big, "__global__ void k(int *x){ x[0] = ");
    for (size_t i = 0; i < depth; i++)
        big[o++] = '(';
    big[o++] = '1';
    for (size_t i = 0; i < depth; i++)
        big[o++] = ')';
    o += (size_t)sprintf(big + o, "; }");
    analyze_checked(big, o);
    o = (size_t)sprintf(big, "void f(){");
    for (size_t i = 0; i < depth; i++)
        big[o++] = '{';
    o += (size_t)sprintf(big + o, "k<<<1,1>>>();");
    analyze_checked(big, o);
    free(big);

    /* random bytes and random CUDA-ish tokens, seeded */
    static const char *const tok[] = {"__global__", "void", "k", "(", ")", "{", "}", "<<<",
                                      ">>>", ",", ";", "__shared__", "float", "[", "]", "*",
                                      "#define N 4\n", "template", "<", ">", "int", "\n",
                                      "hipLaunchKernelGGL", "\"", "/*", "*/", "//", "const",
                                      "__restrict__", "=", "1", "extern", "\xe4\xb8\xad"};
    unsigned seed = 12345;
    char buf[2048];
    for (int iter = 0; iter < 400; iter++) {
        size_t len = 0;
        while (len < sizeof(buf) - 32) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = (seed >> 16) & 0x7fff;
            if (iter % 4 == 0) {
                buf[len++] = (char)(r & 0xff);
            } else {
                const char *t = tok[r % HK_ARRAY_LEN(tok)];
                size_t tl = strlen(t);
                memcpy(buf + len, t, tl);
                len += tl;
                buf[len++] = ' ';
            }
            if ((r & 63) == 0)
                break;
        }
        analyze_checked(buf, len);
    }
}

static void test_doc_api_errors(void **state)
{
    (void)state;
    an_doc *d;
    assert_int_equal(an_doc_new(&d), HK_OK);
    an_doc_set_parse_timeout(d, 0);   /* slow under valgrind/sanitizers */
    /* edits before any parse are accepted and make the next parse a full one */
    assert_int_equal(an_doc_edit(d, 0, 0, 1, 0, 0, 0, 0, 0, 1), HK_OK);
    assert_int_equal(an_doc_edit(d, 5, 4, 6, 0, 5, 0, 4, 0, 6), HK_EINVAL);
    assert_int_equal(an_doc_edit(d, 5, 6, 4, 0, 5, 0, 6, 0, 4), HK_EINVAL);
    assert_int_equal(an_doc_edit(d, 5, 6, 6, 2, 5, 1, 6, 2, 6), HK_EINVAL);
    assert_int_equal(an_doc_model(d)->n_funcs, 0);
    assert_int_equal(an_doc_chunks(d, NULL, 0), 0);
    assert_int_equal(an_doc_parse(d, "x", AN_TEXT_MAX_BYTES + 1), HK_ETOOBIG);
    static const char src[] = "__global__ void k(int n) {}\n";
    assert_int_equal(an_doc_parse(d, src, sizeof(src) - 1), HK_OK);
    assert_int_equal(an_doc_model(d)->n_funcs, 1);
    /* a refused parse keeps the model */
    assert_int_equal(an_doc_parse(d, "x", AN_TEXT_MAX_BYTES + 1), HK_ETOOBIG);
    assert_int_equal(an_doc_model(d)->n_funcs, 1);
    /* a parse over the time limit keeps the model; the edit stays pending */
    {
        size_t n = 0, cap = 200 * sizeof(src);
        char *many = malloc(cap);
        assert_non_null(many);
        for (int i = 0; i < 199; i++) {
            memcpy(many + n, src, sizeof(src) - 1);
            n += sizeof(src) - 1;
        }
        assert_int_equal(an_doc_edit(d, 0, 0, (uint32_t)(n - (sizeof(src) - 1)), 0, 0, 0, 0,
                                     198, 0), HK_OK);
        an_doc_set_parse_timeout(d, 1);
        assert_int_equal(an_doc_parse(d, many, n), HK_ETIMEDOUT);
        assert_int_equal(an_doc_model(d)->n_funcs, 1);
        an_doc_set_parse_timeout(d, 0);
        assert_int_equal(an_doc_parse(d, many, n), HK_OK);
        assert_int_equal(an_doc_model(d)->n_funcs, 199);
        an_doc_stats st;
        an_doc_get_stats(d, &st);
        assert_true(st.incremental);
        free(many);
    }
    char *tree = an_tree_string(src, sizeof(src) - 1);
    assert_non_null(tree);
    assert_non_null(strstr(tree, "function_definition"));
    hk_free(tree);
    an_doc_free(d);
    an_doc_free(NULL);
    an_model_free(NULL);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Every allocation failing in turn: HK_ENOMEM or HK_OK, never a crash or a leak; after
 * a failed parse the document recovers on the next one. */
static void test_enomem(void **state)
{
    (void)state;
    size_t len;
    char *text = read_fixture("templates.cu", &len);
    int oks = 0, fails = 0;
    for (long n = 1; n < 400; n++) {
        an_model *m = NULL;
        hk_alloc_fail_after(n);
        int rc = an_analyze(text, len, &m);
        hk_alloc_fail_after(0);
        if (rc == HK_OK) {
            oks++;
            check_model(text, len, m);
            an_model_free(m);
        } else {
            assert_int_equal(rc, HK_ENOMEM);
            assert_null(m);
            fails++;
        }
        assert_int_equal(hk_alloc_live(), 0);
    }
    assert_true(fails > 10);
    assert_true(oks > 0);

    /* incremental parse under ENOMEM, then recovery */
    an_model *fresh;
    assert_int_equal(an_analyze(text, len, &fresh), HK_OK);
    for (long n = 1; n < 60; n++) {
        an_doc *d;
        assert_int_equal(an_doc_new(&d), HK_OK);
        an_doc_set_parse_timeout(d, 0);   /* slow under valgrind/sanitizers */
        assert_int_equal(an_doc_parse(d, text, len), HK_OK);
        /* a no-op edit at the start makes the next parse incremental */
        assert_int_equal(an_doc_edit(d, 0, 1, 1, 0, 0, 0, 1, 0, 1), HK_OK);
        hk_alloc_fail_after(n);
        int rc = an_doc_parse(d, text, len);
        hk_alloc_fail_after(0);
        assert_true(rc == HK_OK || rc == HK_ENOMEM);
        if (rc == HK_ENOMEM)
            assert_int_equal(an_doc_model(d)->n_funcs, 0);
        assert_int_equal(an_doc_parse(d, text, len), HK_OK);
        assert_int_equal(an_doc_model(d)->n_funcs, fresh->n_funcs);
        assert_int_equal(an_doc_model(d)->n_tunables, fresh->n_tunables);
        an_doc_free(d);
    }
    an_model_free(fresh);
    free(text);
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar_check),
        cmocka_unit_test(test_saxpy),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_templates),
        cmocka_unit_test(test_reduction_cuda_launch_kernel),
        cmocka_unit_test(test_hip),
        cmocka_unit_test(test_chinese),
        cmocka_unit_test(test_broken),
        cmocka_unit_test(test_macros_namespaces),
        cmocka_unit_test(test_inline_snippets),
        cmocka_unit_test(test_launch_forms),
        cmocka_unit_test(test_hostile_input),
        cmocka_unit_test(test_doc_api_errors),
        cmocka_unit_test(test_enomem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
