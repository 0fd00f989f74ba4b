/* The kernel model (server/model/): the same computation written several ways gives the
 * same model, and realistic naive kernels give the facts rewrites will match on. The
 * kernels are in tests/data/model/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/hk.h"
#include "model/kmodel.h"

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/model/%s", HK_TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return s;
}

static km_kernel *build(const char *text, size_t len, const char *kernel)
{
    km_kernel *k = NULL;
    char why[256];
    int rc = km_build(text, len, kernel, &k, why, sizeof(why));
    if (rc)
        fail_msg("km_build %s: %s (%s)", kernel, hk_strerror(rc), why);
    return k;
}

/* The dump without its first line (the kernel's name). */
static char *dump(const km_kernel *k, unsigned flags)
{
    struct hk_buf b;
    hk_buf_init(&b, 1 << 20);
    assert_int_equal(km_dump(k, flags, &b), HK_OK);
    char *nl = strchr(b.data, '\n');
    assert_non_null(nl);
    char *s = strdup(nl + 1);
    hk_buf_free(&b);
    return s;
}

static char *dump_of(const char *file, const char *kernel, unsigned flags)
{
    size_t len;
    char *text = slurp(file, &len);
    km_kernel *k = build(text, len, kernel);
    char *d = dump(k, flags);
    km_free(k);
    free(text);
    return d;
}

static void assert_same_dumps(const char *file, const char *a, const char *b, unsigned flags)
{
    char *da = dump_of(file, a, flags), *db = dump_of(file, b, flags);
    if (strcmp(da, db) != 0)
        fail_msg("%s and %s differ:\n--- %s\n%s--- %s\n%s", a, b, a, da, b, db);
    free(da);
    free(db);
}

static char *form_text(const km_kernel *k, km_form f)
{
    struct hk_buf b;
    hk_buf_init(&b, 1 << 16);
    assert_int_equal(km_form_print(k, f, &b), HK_OK);
    return hk_buf_steal(&b);
}

static void assert_form(const km_kernel *k, km_form f, const char *want)
{
    char *t = form_text(k, f);
    if (strcmp(t, want) != 0)
        fail_msg("form '%s', expected '%s'", t, want);
    hk_free(t);
}

/* The n-th access of buffer with that mode. */
static const km_access *access_of(const km_kernel *k, const char *buffer, enum km_mode mode,
                                  int nth)
{
    size_t n;
    const km_access *as = km_accesses(k, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(as[i].buffer, buffer) == 0 && as[i].mode == mode && nth-- == 0)
            return &as[i];
    fail_msg("no access %d of %s", nth, buffer);
    return NULL;
}

/* ---- the same computation, several spellings ------------------------------------ */

static void test_saxpy_spellings(void **state)
{
    (void)state;
    /* if block, early return (also in a block with comments), unsigned, size_t with fmaf
     * and `n > i`, inline index: one model, also in the full dump */
    static const char *const same[] = {"saxpy_return", "saxpy_return_commented", "saxpy_unsigned",
                                       "saxpy_size_t", "saxpy_inline"};
    for (size_t i = 0; i < HK_ARRAY_LEN(same); i++)
        assert_same_dumps("saxpy_variants.cu", "saxpy_if", same[i], 0);
    /* grid-stride loops (int and 64-bit with a stride temporary) map elements to
     * threads as the guarded form does */
    assert_same_dumps("saxpy_variants.cu", "saxpy_if", "saxpy_grid_stride", KM_DUMP_ELEMENTS);
    assert_same_dumps("saxpy_variants.cu", "saxpy_if", "saxpy_grid_stride_64", KM_DUMP_ELEMENTS);
    assert_same_dumps("saxpy_variants.cu", "saxpy_grid_stride", "saxpy_grid_stride_64", 0);
    /* ... but the full dump tells the loop apart */
    char *a = dump_of("saxpy_variants.cu", "saxpy_if", 0);
    char *b = dump_of("saxpy_variants.cu", "saxpy_grid_stride", 0);
    assert_string_not_equal(a, b);
    assert_non_null(strstr(b, "loop L0 grid-stride $G0 start=blockDim.x*blockIdx.x + threadIdx.x "
                              "step=blockDim.x*gridDim.x while < n"));
    free(a);
    free(b);
}

static void test_saxpy_fields(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("saxpy_variants.cu", &len);
    km_kernel *k = build(text, len, "saxpy_grid_stride_64");
    size_t n;
    const km_loop *l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(l[0].kind, KM_LOOP_GRID_STRIDE);
    assert_string_equal(l[0].var, "i");
    const km_access *y = km_output_map(k, "y");
    assert_non_null(y);
    assert_int_equal(y->mode, KM_RMW);
    assert_int_equal(y->op, KM_OP_SUM);
    assert_true(km_form_is_global_index(k, y->element, 0));
    assert_false(km_form_is_global_index(k, y->index, 0));   /* + $G0*stride */
    assert_int_equal(km_access_stride_tx(k, y, NULL), KM_STRIDE_CONTIGUOUS);
    assert_null(km_output_map(k, "x"));
    assert_false(km_is_reduction(k, NULL));
    const km_param *ps = km_params(k, &n);
    assert_int_equal(n, 4);
    assert_true(ps[2].pointer && ps[2].read && !ps[2].written);
    assert_true(ps[3].read && ps[3].written);
    km_free(k);
    free(text);
}

static void test_constants_macro_and_template(void **state)
{
    (void)state;
    assert_same_dumps("constants.cu", "rowsum_macro", "rowsum_template", 0);
    size_t len;
    char *text = slurp("constants.cu", &len);
    km_kernel *m = build(text, len, "rowsum_macro");
    km_kernel *t = build(text, len, "rowsum_template");
    size_t n;
    /* the macro's value is known, the template parameter's is not */
    const km_atom *as = km_atoms(m, &n);
    bool seen = false;
    for (size_t i = 0; i < n; i++)
        if (as[i].kind == KM_ATOM_CONST && strcmp(as[i].name, "TB") == 0) {
            assert_true(as[i].has_value);
            assert_int_equal(as[i].value, 128);
            seen = true;
        }
    assert_true(seen);
    as = km_atoms(t, &n);
    for (size_t i = 0; i < n; i++)
        if (as[i].kind == KM_ATOM_CONST)
            assert_false(as[i].has_value);
    /* the column loop: start threadIdx.x, step TB; the block-wide sum and the final one */
    const km_loop *l = km_loops(t, &n);
    assert_int_equal(n, 2);
    assert_form(t, l[0].start, "threadIdx.x");
    assert_form(t, l[0].step, "TB");
    enum km_op op;
    assert_true(km_is_reduction(t, &op));
    assert_int_equal(op, KM_OP_SUM);
    int64_t v;
    assert_true(km_form_value(m, l[1].trip, &v));
    assert_int_equal(v, 128);
    assert_false(km_form_value(t, l[1].trip, &v));
    km_free(m);
    km_free(t);
    free(text);
}

static const char temporaries[] =
    "__global__ void tmp(const float *in, float *out, int n, int total)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int row = i / n;\n"
    "    int col = i % n;\n"
    "    if (i < total) {\n"
    "        float v = in[col * n + row];\n"
    "        out[row * n + col] = v * 2.0f;\n"
    "    }\n"
    "}\n"
    "__global__ void inl(const float *in, float *out, int n, int total)\n"
    "{\n"
    "    if ((int)(threadIdx.x + blockIdx.x * blockDim.x) < total)\n"
    "        out[(blockIdx.x * blockDim.x + threadIdx.x) / n * n +\n"
    "            (blockIdx.x * blockDim.x + threadIdx.x) % n] =\n"
    "            2 * in[((blockIdx.x * blockDim.x + threadIdx.x) % n) * n +\n"
    "                   (blockIdx.x * blockDim.x + threadIdx.x) / n];\n"
    "}\n";

static void test_temporary_and_inline(void **state)
{
    (void)state;
    km_kernel *a = build(temporaries, sizeof(temporaries) - 1, "tmp");
    km_kernel *b = build(temporaries, sizeof(temporaries) - 1, "inl");
    char *da = dump(a, 0), *db = dump(b, 0);
    assert_string_equal(da, db);
    /* row*n + col with row = i / n, col = i % n is i again; the transposed read keeps
     * its / and % as opaque terms with their operands */
    const km_access *o = km_output_map(a, "out");
    assert_form(a, o->index, "blockDim.x*blockIdx.x + threadIdx.x");
    assert_int_equal(km_access_stride_tx(a, o, NULL), KM_STRIDE_CONTIGUOUS);
    const km_access *in = access_of(a, "in", KM_READ, 0);
    assert_form(a, in->index, "((blockDim.x*blockIdx.x + threadIdx.x) % n)*n + "
                              "((blockDim.x*blockIdx.x + threadIdx.x) / n)");
    assert_int_equal(km_access_stride_tx(a, in, NULL), KM_STRIDE_UNKNOWN);
    size_t n;
    const km_local *ls = km_locals(a, &n);
    assert_int_equal(n, 4);
    assert_string_equal(ls[0].name, "i");
    assert_true(km_form_is_global_index(a, ls[0].form, 0));
    free(da);
    free(db);
    km_free(a);
    km_free(b);
}

/* ---- realistic kernels ----------------------------------------------------------- */

/* How an access moves with its loop: a window or a row walked along (unit), a column
 * walked down (other, also `i * (n + 1)`, i*n + i), or not at all. */
static void test_loop_step(void **state)
{
    (void)state;
    static const char text[] =
        "__global__ void k(const float *x, const float *A, const float *w, float *y, int n, int m)\n"
        "{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (j < n) {\n"
        "        float s = 0;\n"
        "        for (int i = 0; i < m; i++)\n"
        "            s += x[j + i] * A[i * (n + 1) + j] * w[0];\n"
        "        y[j] = s;\n"
        "    }\n"
        "}\n";
    km_kernel *k = build(text, sizeof text - 1, "k");
    assert_int_equal(km_access_loop_step(k, access_of(k, "x", KM_READ, 0)), KM_STEP_UNIT);
    assert_int_equal(km_access_loop_step(k, access_of(k, "A", KM_READ, 0)), KM_STEP_OTHER);
    assert_int_equal(km_access_loop_step(k, access_of(k, "w", KM_READ, 0)), KM_STEP_NONE);
    assert_int_equal(km_access_loop_step(k, km_output_map(k, "y")), KM_STEP_NONE);
    km_free(k);
}

/* cuda-samples' histogram loop: its start and stride through a function-like macro of the
 * file (`UMUL(a, b)`, `UMAD(a, b, c)`), through __umul24 / __mul24, and written with `*`: one
 * model, its loop a grid-stride one. __umul24 of an operand that may not fit 24 bits (a
 * parameter) stays a call. */
static void test_umul24_and_macros(void **state)
{
    (void)state;
    static const char text[] =
        "#define UMUL(a, b) ((a) * (b))\n"
        "#define UMAD(a, b, c) (UMUL((a), (b)) + (c))\n"
        "#define XMUL(a, b) __umul24((a), (b))\n"
        "__device__ void add(unsigned *h, unsigned d) { atomicAdd(h + (d & 0xFFU), 1); }\n"
        "__global__ void k_star(unsigned *out, const unsigned *in, unsigned n)\n"
        "{\n"
        "    __shared__ unsigned h[256];\n"
        "    for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += blockDim.x * gridDim.x) {\n"
        "        unsigned d = in[p];\n"
        "        add(h, d);\n"
        "    }\n"
        "    out[blockIdx.x] = h[threadIdx.x];\n"
        "}\n"
        "__global__ void k_macro(unsigned *out, const unsigned *in, unsigned n)\n"
        "{\n"
        "    __shared__ unsigned h[256];\n"
        "    for (unsigned p = UMAD(blockIdx.x, blockDim.x, threadIdx.x); p < n; p += UMUL(blockDim.x, gridDim.x)) {\n"
        "        unsigned d = in[p];\n"
        "        add(h, d);\n"
        "    }\n"
        "    out[blockIdx.x] = h[threadIdx.x];\n"
        "}\n"
        "__global__ void k_umul24(unsigned *out, const unsigned *in, unsigned n)\n"
        "{\n"
        "    __shared__ unsigned h[256];\n"
        "    for (unsigned p = __umul24(blockIdx.x, blockDim.x) + threadIdx.x; p < n; p += XMUL(blockDim.x, gridDim.x)) {\n"
        "        unsigned d = in[p];\n"
        "        add(h, d);\n"
        "    }\n"
        "    out[blockIdx.x] = h[threadIdx.x];\n"
        "}\n"
        "__global__ void k_mul24(unsigned *out, const unsigned *in, unsigned n)\n"
        "{\n"
        "    __shared__ unsigned h[256];\n"
        "    for (unsigned p = __mul24(blockDim.x, blockIdx.x) + threadIdx.x; p < n; p += __mul24(gridDim.x, blockDim.x)) {\n"
        "        unsigned d = in[p];\n"
        "        add(h, d);\n"
        "    }\n"
        "    out[blockIdx.x] = h[threadIdx.x];\n"
        "}\n"
        "__global__ void k_wide(unsigned *out, const unsigned *in, unsigned n, unsigned s)\n"
        "{\n"
        "    for (unsigned p = threadIdx.x; p < n; p += __umul24(s, blockDim.x))\n"
        "        out[p] = in[p];\n"
        "}\n";
    static const char *const kernels[] = {"k_macro", "k_umul24", "k_mul24"};
    km_kernel *k0 = build(text, sizeof text - 1, "k_star");
    char *d0 = dump(k0, 0);
    assert_non_null(strstr(d0, "grid-stride $G0 start=blockDim.x*blockIdx.x + threadIdx.x step=blockDim.x*gridDim.x"));
    for (size_t i = 0; i < HK_ARRAY_LEN(kernels); i++) {
        km_kernel *k = build(text, sizeof text - 1, kernels[i]);
        char *d = dump(k, 0);
        if (strcmp(d0, d) != 0)
            fail_msg("k_star and %s differ:\n--- k_star\n%s--- %s\n%s", kernels[i], d0, kernels[i], d);
        free(d);
        km_free(k);
    }
    free(d0);
    km_free(k0);
    /* a parameter may not fit 24 bits: the step stays the call, the loop is not a block-stride one */
    km_kernel *k = build(text, sizeof text - 1, "k_wide");
    size_t n = 0;
    const km_loop *lp = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_int_not_equal(lp[0].kind, KM_LOOP_BLOCK_STRIDE);
    assert_form(k, lp[0].step, "__umul24(s, blockDim.x)");
    km_free(k);
}

/* A loop that stores through one pointer and loads through another (a shift or scatter
 * copy), spelled as a plain loop and as a grid-stride macro body; not a loop that only
 * loads (its store after the loop), nor a store and a load of one buffer, nor a loop over
 * a __shared__ array. */
static void test_store_beside_load(void **state)
{
    (void)state;
    static const char copy[] =
        "__global__ void k(const float *in, float *out, int t, int hw)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    for (int s = 0; s < t; s++)\n"
        "        out[s * hw + i] = in[(t - 1 - s) * hw + i];\n"
        "}\n";
    km_kernel *k = build(copy, sizeof copy - 1, "k");
    const km_access *w = NULL, *r = NULL;
    assert_true(km_loop_store_beside_load(k, &w, &r));
    assert_string_equal(w->buffer, "out");
    assert_string_equal(r->buffer, "in");
    km_free(k);

    static const char gs[] =
        "#define LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); \\\n"
        "                          i += blockDim.x * gridDim.x)\n"
        "__global__ void k(int n, const float *a, float *b) { LOOP(i, n) { b[i] = 2 * a[i]; } }\n";
    k = build(gs, sizeof gs - 1, "k");
    assert_true(km_loop_store_beside_load(k, NULL, NULL));
    km_free(k);

    static const char reads_only[] =
        "__global__ void k(const float *x, float *y, int n, int m)\n"
        "{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    float s = 0;\n"
        "    for (int i = 0; i < m; i++)\n"
        "        s += x[i * n + j];\n"
        "    y[j] = s;\n"
        "}\n";
    k = build(reads_only, sizeof reads_only - 1, "k");
    assert_false(km_loop_store_beside_load(k, NULL, NULL));
    km_free(k);

    static const char same[] =
        "__global__ void k(float *y, int m)\n"
        "{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    for (int i = 1; i < m; i++)\n"
        "        y[i * 32 + j] = y[(i - 1) * 32 + j] * 0.5f;\n"
        "}\n";
    k = build(same, sizeof same - 1, "k");
    assert_false(km_loop_store_beside_load(k, NULL, NULL));
    km_free(k);

    static const char shared[] =
        "__global__ void k(const float *x, float *y, int m)\n"
        "{\n"
        "    __shared__ float t[256];\n"
        "    for (int i = 0; i < m; i++)\n"
        "        t[threadIdx.x] = x[i * 256 + threadIdx.x];\n"
        "    y[threadIdx.x] = t[threadIdx.x];\n"
        "}\n";
    k = build(shared, sizeof shared - 1, "k");
    assert_false(km_loop_store_beside_load(k, NULL, NULL));
    km_free(k);
}

static void test_sgemm(void **state)
{
    (void)state;
    /* += with unsigned and an if block, fmaf with int, a macro index and an early return */
    assert_same_dumps("kernels.cu", "sgemm_naive", "sgemm_fmaf", 0);
    size_t len;
    char *text = slurp("kernels.cu", &len);
    km_kernel *k = build(text, len, "sgemm_naive");
    size_t n;
    const km_accumulator *ac = km_accumulators(k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(ac[0].op, KM_OP_SUM);
    assert_form(k, ac[0].init, "0");
    const km_loop *l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(ac[0].loop, 0);
    assert_form(k, l[0].trip, "K");
    /* A[x*K + i]: x is the thread's row, so threads are K apart; B[i*N + y] is one
     * element for all threads of a row of the block */
    const km_access *a = access_of(k, "A", KM_READ, 0), *b = access_of(k, "B", KM_READ, 0);
    assert_int_equal(km_access_stride_tx(k, a, NULL), KM_STRIDE_STRIDED);
    assert_int_equal(km_access_stride_tx(k, b, NULL), KM_STRIDE_BROADCAST);
    assert_false(km_access_invariant_in(k, a, 0));
    /* the epilogue: C = alpha*acc + beta*C, one read-modify-write */
    const km_access *c = km_output_map(k, "C");
    assert_int_equal(c->mode, KM_RMW);
    assert_int_equal(c->op, KM_OP_OTHER);
    assert_form(k, c->value, "$acc0*alpha + C[N*blockDim.x*blockIdx.x + N*threadIdx.x + "
                             "blockDim.y*blockIdx.y + threadIdx.y]*beta");
    assert_int_equal(c->n_guards, 2);
    size_t ng;
    const km_guard *g = km_guards(k, &ng);
    assert_int_equal(ng, 2);
    assert_form(k, g[0].lhs, "blockDim.x*blockIdx.x + threadIdx.x");
    assert_string_equal(g[0].op, "<");
    assert_form(k, g[0].rhs, "M");
    enum km_op op;
    assert_true(km_is_reduction(k, &op));
    assert_int_equal(op, KM_OP_SUM);
    km_free(k);
    free(text);
}

static void test_gemv_rows(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("kernels.cu", &len);
    km_kernel *k = build(text, len, "gemv_rows");
    /* the row pointer a = A + r*cols is followed: a[c] is A[r*cols + c] */
    const km_access *a = access_of(k, "A", KM_READ, 0);
    assert_form(k, a->index, "$L0 + blockDim.x*blockIdx.x*cols + cols*threadIdx.x");
    int64_t s = -1;
    assert_int_equal(km_access_stride_tx(k, a, &s), KM_STRIDE_STRIDED);
    assert_int_equal(s, 0);   /* symbolic: cols */
    const km_access *x = access_of(k, "x", KM_READ, 0);
    assert_int_equal(km_access_stride_tx(k, x, NULL), KM_STRIDE_BROADCAST);
    const km_access *y = km_output_map(k, "y");
    assert_int_equal(y->mode, KM_WRITE);
    assert_true(km_form_is_global_index(k, y->element, 0));
    assert_form(k, y->value, "$acc0");
    size_t n;
    const km_local *ls = km_locals(k, &n);
    bool ptr = false;
    for (size_t i = 0; i < n; i++)
        if (ls[i].kind == KM_LOCAL_POINTER) {
            assert_string_equal(ls[i].name, "a");
            assert_string_equal(ls[i].base, "A");
            ptr = true;
        }
    assert_true(ptr);
    km_free(k);
    free(text);
}

static void test_transpose(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("kernels.cu", &len);
    km_kernel *k = build(text, len, "transpose_naive");
    size_t n;
    const km_loop *l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_form(k, l[0].step, "BLOCK_ROWS");
    int64_t v;
    assert_true(km_form_value(k, l[0].start, &v));
    assert_int_equal(v, 0);
    const km_access *in = access_of(k, "idata", KM_READ, 0);
    const km_access *out = km_output_map(k, "odata");
    assert_int_equal(km_access_stride_tx(k, in, NULL), KM_STRIDE_CONTIGUOUS);
    assert_int_equal(km_access_stride_tx(k, out, NULL), KM_STRIDE_STRIDED);   /* height */
    /* read and write swap the roles of x and y: the write is the read's transpose */
    assert_true(km_form_mentions_kind(k, out->index, KM_ATOM_THREAD_IDX, 1));
    assert_form(k, out->index, "$L0*BLOCK_ROWS + TILE_DIM*blockIdx.x*height + "
                               "TILE_DIM*blockIdx.y + height*threadIdx.x + threadIdx.y");
    km_free(k);
    free(text);
}

static void test_bincount(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("kernels.cu", &len);
    km_kernel *k = build(text, len, "bincount");
    size_t n;
    const km_loop *l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(l[0].kind, KM_LOOP_GRID_STRIDE);
    const km_access *bins = km_output_map(k, "bins");
    assert_true(bins->atomic);
    assert_int_equal(bins->op, KM_OP_SUM);
    assert_form(k, bins->value, "1");
    assert_form(k, bins->element, "(in[blockDim.x*blockIdx.x + threadIdx.x] % NBINS)");
    assert_int_equal(km_access_stride_tx(k, bins, NULL), KM_STRIDE_UNKNOWN);
    enum km_op op;
    assert_true(km_is_reduction(k, &op));
    assert_int_equal(op, KM_OP_SUM);
    km_free(k);
    free(text);
}

/* A grid-stride loop of width W (SHOC's reduce: two elements per thread per step) is read
 * as an affine loop with grid_width W, never as KM_LOOP_GRID_STRIDE; a plain grid-stride
 * loop keeps its kind and width 0; a step of W * blockDim * gridDim whose start is not the
 * block's W * blockDim slice gets no width. */
static void test_grid_width(void **state)
{
    (void)state;
    static const char src[] =
        "__global__ void shoc(const float *g, float *o, unsigned n)\n"
        "{\n"
        "    const unsigned tid = threadIdx.x;\n"
        "    unsigned i = (blockIdx.x * (blockDim.x * 2)) + tid;\n"
        "    const unsigned gridSize = blockDim.x * 2 * gridDim.x;\n"
        "    float s = 0.0f;\n"
        "    while (i < n) {\n"
        "        s += g[i] + g[i + 256];\n"
        "        i += gridSize;\n"
        "    }\n"
        "    if (tid == 0) o[blockIdx.x] = s;\n"
        "}\n"
        "__global__ void four(const int *g, int *o, int n)\n"
        "{\n"
        "    int s = 0;\n"
        "    for (int i = 4 * blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 4 * gridDim.x * blockDim.x)\n"
        "        s += g[i];\n"
        "    o[blockIdx.x * blockDim.x + threadIdx.x] = s;\n"
        "}\n"
        "__global__ void plain(const int *g, int *o, int n)\n"
        "{\n"
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
        "        o[i] = g[i];\n"
        "}\n"
        "__global__ void skewed(const int *g, int *o, int n)\n"
        "{\n"
        "    int s = 0;\n"
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 2 * gridDim.x * blockDim.x)\n"
        "        s += g[i];\n"
        "    o[blockIdx.x * blockDim.x + threadIdx.x] = s;\n"
        "}\n";
    static const struct { const char *k; enum km_loop_kind kind; uint32_t w; } want[] = {
        {"shoc", KM_LOOP_AFFINE, 2}, {"four", KM_LOOP_AFFINE, 4},
        {"plain", KM_LOOP_GRID_STRIDE, 0}, {"skewed", KM_LOOP_AFFINE, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        km_kernel *k = build(src, sizeof src - 1, want[i].k);
        size_t n;
        const km_loop *l = km_loops(k, &n);
        assert_int_equal(n, 1);
        assert_int_equal(l[0].kind, want[i].kind);
        assert_int_equal(l[0].grid_width, want[i].w);
        assert_int_equal(l[0].grid_axis, want[i].w ? 0 : -1);
        km_free(k);
    }
}

/* Session 48 (spatial): a loop bound or an offset spelled with `/` or `%` of named
 * constants (`MASK_DIM / 2` of a #define 5: 2, C's truncation; `-7 / 2` is -3) has a value;
 * a division by a parameter, or by a constant 0, has none. */
static void test_value_of_constant_division(void **state)
{
    (void)state;
    static const char src[] =
        "#define MASK_DIM 5\n"
        "#define HALF (MASK_DIM / 2)\n"
        "#define NEG (-7)\n"
        "#define ZERO 0\n"
        "__global__ void k(const float *in, float *out, int n)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    float s = 0;\n"
        "    for (int a = 0; a < HALF; a++) s += in[i + a];\n"
        "    for (int b = 0; b < MASK_DIM % 3 + NEG / 2 + 5; b++) s += in[i + b];\n"
        "    for (int c = 0; c < MASK_DIM / n; c++) s += in[i + c];\n"
        "    for (int d = 0; d < MASK_DIM / ZERO; d++) s += in[i + d];\n"
        "    out[i] = s;\n"
        "}\n";
    km_kernel *k = build(src, sizeof src - 1, "k");
    size_t n;
    const km_loop *l = km_loops(k, &n);
    assert_int_equal(n, 4);
    int64_t v;
    assert_true(km_form_value(k, l[0].trip, &v));
    assert_int_equal(v, 2);
    assert_true(km_form_value(k, l[1].trip, &v));
    assert_int_equal(v, 2 + -3 + 5);
    assert_false(km_form_value(k, l[2].bound, &v));
    assert_false(km_form_value(k, l[3].bound, &v));
    km_free(k);
}

/* Session 48 (spatial): parameters declared as arrays of arrays are linearised with their
 * extents: A[i - 1][j] of `float A[N][M]` is (i - 1) * M + j, C[i][j] of `float (*C)[M]`
 * likewise; an array of pointers (`float *P[4]`) keeps its row opaque. */
static void test_array_of_arrays_params(void **state)
{
    (void)state;
    static const char src[] =
        "#define N 64\n"
        "#define M 32\n"
        "__global__ void k(float A[N][M], float (*C)[M], float *P[4], float *out)\n"
        "{\n"
        "    int i = threadIdx.y, j = threadIdx.x;\n"
        "    out[i * M + j] = A[i - 1][j] + C[i][j + 1] + P[i][j];\n"
        "}\n";
    km_kernel *k = build(src, sizeof src - 1, "k");
    const km_access *a = access_of(k, "A", KM_READ, 0);
    assert_form(k, a->index, "-M + M*threadIdx.y + threadIdx.x");
    const km_access *c = access_of(k, "C", KM_READ, 0);
    assert_form(k, c->index, "M*threadIdx.y + threadIdx.x + 1");
    const km_access *p = access_of(k, "P", KM_READ, 0);
    assert_true(km_form_mentions_kind(k, p->index, KM_ATOM_OPAQUE, -1));
    km_free(k);
}

static void test_stencil(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("kernels.cu", &len);
    km_kernel *k = build(text, len, "stencil_1d");
    assert_int_equal(km_barriers(k), 1);
    size_t n;
    const km_loop *l = km_loops(k, &n);
    assert_int_equal(n, 1);
    int64_t v;
    assert_true(km_form_value(k, l[0].trip, &v));
    assert_int_equal(v, 7);   /* -RADIUS..RADIUS */
    const km_access *t = access_of(k, "temp", KM_READ, 0);
    assert_int_equal(t->space, KM_SPACE_SHARED);
    assert_form(k, t->index, "$L0 + threadIdx.x");
    /* the halo loads run under threadIdx.x < RADIUS */
    const km_access *halo = access_of(k, "temp", KM_WRITE, 1);
    assert_int_equal(halo->n_guards, 1);
    const km_accumulator *ac = km_accumulators(k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(ac[0].op, KM_OP_SUM);
    const km_local *ls = km_locals(k, &n);
    assert_string_equal(ls[0].name, "temp");
    assert_int_equal(ls[0].kind, KM_LOCAL_ARRAY);
    assert_form(k, ls[0].form, "BLOCK + 2*RADIUS");
    km_free(k);
    free(text);
}

static void test_softmax(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("kernels.cu", &len);
    km_kernel *k = build(text, len, "softmax_rows");
    size_t n;
    const km_accumulator *ac = km_accumulators(k, &n);
    assert_int_equal(n, 2);
    assert_int_equal(ac[0].op, KM_OP_MAX);   /* m = fmaxf(m, x[j]) */
    assert_int_equal(ac[1].op, KM_OP_SUM);
    assert_int_equal(ac[0].loop, 0);
    assert_int_equal(ac[1].loop, 1);
    /* each thread writes a whole row: the output varies in the third loop */
    const km_access *y = km_output_map(k, "output");
    assert_int_equal(y->n_loops, 1);
    assert_int_equal(y->loops[0], 2);
    assert_false(km_access_invariant_in(k, y, 2));
    km_free(k);
    free(text);
}

static void test_layernorm(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("kernels.cu", &len);
    km_kernel *k = build(text, len, "layernorm_one_pass");
    size_t n;
    const km_accumulator *ac = km_accumulators(k, &n);
    assert_int_equal(n, 2);   /* sum and sum of squares in one loop */
    assert_int_equal(ac[0].loop, ac[1].loop);
    assert_int_equal(ac[0].op, KM_OP_SUM);
    assert_int_equal(ac[1].op, KM_OP_SUM);
    char *o0 = form_text(k, ac[0].operand), *o1 = form_text(k, ac[1].operand);
    char sq[1024];
    snprintf(sq, sizeof(sq), "%s*%s", o0, o0);
    assert_string_equal(o1, sq);
    hk_free(o0);
    hk_free(o1);
    /* gamma[i] is the same for every thread */
    assert_int_equal(km_access_stride_tx(k, access_of(k, "gamma", KM_READ, 0), NULL),
                     KM_STRIDE_BROADCAST);
    km_free(k);
    free(text);
}

static void test_block_sum(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("kernels.cu", &len);
    km_kernel *k = build(text, len, "block_sum");
    size_t n;
    const km_loop *l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(l[0].kind, KM_LOOP_GEOMETRIC);
    const km_access *r = access_of(k, "sdata", KM_RMW, 0);
    assert_int_equal(r->op, KM_OP_SUM);
    assert_true(km_access_invariant_in(k, r, 0));   /* sdata[tid] across the halvings */
    const km_access *o = km_output_map(k, "out");
    assert_true(o->atomic);
    assert_form(k, o->index, "0");
    assert_int_equal(km_barriers(k), 2);
    km_free(k);
    free(text);
}

/* ---- loops written through statement macros ---------------------------------------- */

static void test_loop_macros(void **state)
{
    (void)state;
    /* CUDA_1D_KERNEL_LOOP(index, nthreads) { ... } is the grid-stride loop written out,
     * in both of tree-sitter's readings of the call and its braces */
    assert_same_dumps("loop_macros.cu", "double_written", "double_macro", 0);
    assert_same_dumps("loop_macros.cu", "double_written", "double_macro_call", 0);
    size_t len, n;
    char *text = slurp("loop_macros.cu", &len);
    km_kernel *k = build(text, len, "double_macro");
    const km_loop *l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(l[0].kind, KM_LOOP_GRID_STRIDE);
    assert_string_equal(l[0].var, "index");
    assert_string_equal(l[0].cmp, "<");
    assert_form(k, l[0].bound, "nthreads");
    assert_int_equal(l[0].line, 26);   /* the call's line; the body keeps its own */
    const km_access *o = km_output_map(k, "out");
    assert_int_equal(o->line, 27);
    assert_int_equal(o->n_loops, 1);
    assert_true(km_form_is_global_index(k, o->element, 0));
    assert_int_equal(access_of(k, "in", KM_READ, 0)->line, 27);
    km_free(k);

    /* CUDA_2D_KERNEL_LOOP opens two grid-stride loops, and the body's accumulator is
     * local to them */
    assert_same_dumps("loop_macros.cu", "sum_2d_written", "sum_2d_macro", 0);
    k = build(text, len, "sum_2d_macro");
    l = km_loops(k, &n);
    assert_int_equal(n, 3);
    assert_int_equal(l[0].kind, KM_LOOP_GRID_STRIDE);
    assert_int_equal(l[1].kind, KM_LOOP_GRID_STRIDE);
    assert_int_equal(l[1].parent, 0);
    assert_form(k, l[1].bound, "m");
    assert_int_equal(l[2].kind, KM_LOOP_AFFINE);
    assert_int_equal(l[2].line, 56);
    enum km_op op;
    assert_true(km_is_reduction(k, &op));
    assert_int_equal(op, KM_OP_SUM);
    o = km_output_map(k, "out");
    assert_int_equal(o->line, 58);
    assert_int_equal(o->n_loops, 2);
    km_free(k);

    /* a statement macro whose value is not a for changes nothing: its braces are a block */
    assert_same_dumps("loop_macros.cu", "block_plain", "block_do_macro", 0);
    k = build(text, len, "block_do_macro");
    km_loops(k, &n);
    assert_int_equal(n, 0);
    assert_int_equal(km_output_map(k, "out")->line, 79);
    km_free(k);

    /* a pointer parameter the kernel moves gets an unknown offset, the reads of in none */
    k = build(text, len, "moved_param");
    o = km_output_map(k, "out");
    assert_true(km_form_mentions_kind(k, o->index, KM_ATOM_VAR, -1));
    assert_false(km_form_mentions_kind(k, access_of(k, "in", KM_READ, 0)->index, KM_ATOM_VAR, -1));
    km_free(k);
    free(text);
}

/* ---- index splits, while and do loops, __device__ helpers (spellings.cu) ---------- */

static void test_index_splits(void **state)
{
    (void)state;
    /* n = i / (C*H*W), c = i / (H*W) % C ..., x[((n*C + c)*H + h)*W + w] is x[i]; so is
     * the chain i / W / H % C of mmcv */
    assert_same_dumps("spellings.cu", "nchw_flat", "nchw_split", 0);
    assert_same_dumps("spellings.cu", "nchw_flat", "nchw_chain", 0);
    /* i1 = (idx / (d2*d3*d4)) % d1 under idx < d1*d2*d3*d4 is idx / (d2*d3*d4) */
    assert_same_dumps("spellings.cu", "permute_flat", "permute_mod_all", 0);
    /* a digit i % (D*S) / S is (i / S) % D and (i % (D*S)) % S is i % S (digit_order),
     * through temporaries, casts, 64-bit and unsigned indices and a grid-stride loop */
    assert_same_dumps("spellings.cu", "digits_div_mod", "digits_mod_div", 0);
    assert_same_dumps("spellings.cu", "digits_div_mod", "digits_temps", 0);
    assert_same_dumps("spellings.cu", "digits_div_mod", "digits_int64_loop", KM_DUMP_ELEMENTS);
    size_t len;
    char *text = slurp("spellings.cu", &len);
    km_kernel *k = build(text, len, "nchw_split");
    const km_access *x = access_of(k, "x", KM_READ, 0);
    assert_true(km_form_is_global_index(k, x->index, 0));
    assert_int_equal(km_access_stride_tx(k, x, NULL), KM_STRIDE_CONTIGUOUS);
    km_free(k);
    /* a permutation keeps its coordinates, and i / W / H is i / (H*W) */
    k = build(text, len, "nchw_to_nhwc");
    const km_access *y = km_output_map(k, "y");
    assert_form(k, y->index, "(((blockDim.x*blockIdx.x + threadIdx.x) / (H*W)) % C) + "
                             "(((blockDim.x*blockIdx.x + threadIdx.x) / W) % H)*C*W + "
                             "((blockDim.x*blockIdx.x + threadIdx.x) % W)*C + "
                             "((blockDim.x*blockIdx.x + threadIdx.x) / (C*H*W))*C*H*W");
    km_free(k);
    /* each of o, n, k is a coordinate of the flat index with its stride and extent */
    k = build(text, len, "digits_mod_div");
    const km_access *p = access_of(k, "pts", KM_READ, 0);
    km_form g = km_output_map(k, "out")->index;
    assert_true(km_form_is_global_index(k, g, 0));
    assert_form(k, p->index, "(((blockDim.x*blockIdx.x + threadIdx.x) / (K*N)) % O) + "
                             "(((blockDim.x*blockIdx.x + threadIdx.x) / K) % N)*K*O + "
                             "((blockDim.x*blockIdx.x + threadIdx.x) % K)*O + "
                             "((blockDim.x*blockIdx.x + threadIdx.x) / (K*N*O))*K*N*O");
    size_t coords = 0, outer = 0;
    for (uint32_t t = 0; t < p->index.n; t++)
        for (uint32_t a = 0; a < p->index.t[t].n; a++) {
            km_form st, ex;
            if (km_atom_coordinate(k, p->index.t[t].atoms[a], g, &st, &ex)) {
                coords++;
                outer += ex.n == 0;
            }
        }
    assert_int_equal(coords, 4);
    assert_int_equal(outer, 1);
    km_free(k);
    free(text);
}

static void test_while_and_do(void **state)
{
    (void)state;
    /* a grid-stride loop written as a while, and as a do behind an early return */
    assert_same_dumps("spellings.cu", "scale_for", "scale_while", 0);
    assert_same_dumps("spellings.cu", "scale_for_checked", "scale_do", 0);
    assert_same_dumps("spellings.cu", "rowsum_for", "rowsum_while", 0);
    size_t len, n;
    char *text = slurp("spellings.cu", &len);
    km_kernel *k = build(text, len, "scale_do");
    const km_loop *l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(l[0].kind, KM_LOOP_GRID_STRIDE);
    assert_string_equal(l[0].var, "i");
    assert_form(k, l[0].step, "blockDim.x*gridDim.x");
    assert_true(km_form_is_global_index(k, km_output_map(k, "y")->element, 0));
    km_free(k);
    k = build(text, len, "rowsum_while");
    l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(l[0].kind, KM_LOOP_AFFINE);
    assert_form(k, l[0].trip, "K");
    enum km_op op;
    assert_true(km_is_reduction(k, &op));
    assert_int_equal(op, KM_OP_SUM);
    km_free(k);
    /* the step is not the last statement: not a counted loop */
    k = build(text, len, "scan_while_other");
    l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(l[0].kind, KM_LOOP_OTHER);
    assert_true(km_form_mentions_kind(k, km_output_map(k, "out")->index, KM_ATOM_VAR, -1));
    km_free(k);
    /* pointers (a local and a parameter) stepped by while loops are moved */
    k = build(text, len, "zero_walk");
    const km_access *as = km_accesses(k, &n);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++)
        assert_true(km_form_mentions_kind(k, as[i].index, KM_ATOM_VAR, -1));
    km_free(k);
    free(text);
}

/* for (int a = a0, b = b0; a < n; a += s, b += t): b is b0 + t per iteration of a's loop;
 * companions the condition compares or the body moves are not followed. */
static void test_companion_loop_vars(void **state)
{
    (void)state;
    size_t len, n;
    char *text = slurp("loops_companion.cu", &len);
    km_kernel *k = build(text, len, "walk_pair");
    const km_loop *l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(l[0].kind, KM_LOOP_AFFINE);
    assert_string_equal(l[0].var, "a");
    assert_form(k, l[0].trip, "ceildiv(n, 4)");
    assert_form(k, access_of(k, "x", KM_READ, 0)->index, "4*$L0");
    assert_form(k, access_of(k, "y", KM_WRITE, 0)->index, "2*$L0");
    km_free(k);
    k = build(text, len, "two_pointer");
    l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_false(l[0].has_trip);
    km_free(k);
    k = build(text, len, "body_moves");
    l = km_loops(k, &n);
    assert_int_equal(n, 1);
    assert_false(l[0].has_trip);
    assert_false(km_form_mentions_kind(k, access_of(k, "y", KM_WRITE, 0)->index, KM_ATOM_LOOP, -1));
    km_free(k);
    free(text);
}

/* Induction variables (induction.cu): a pointer or an index stepped by loop-invariant
 * amounts through loops models as the loop counters' subscript of the same computation;
 * a step the walk cannot count on each iteration leaves the offset unknown. */
static void test_induction_variables(void **state)
{
    (void)state;
    assert_same_dumps("induction.cu", "im2col_index", "im2col_pointer", 0);
    assert_same_dumps("induction.cu", "im2col_index", "im2col_rows", 0);
    assert_same_dumps("induction.cu", "im2col_index", "im2col_offset", 0);
    assert_same_dumps("induction.cu", "rowsum_index", "rowsum_pointer", 0);
    size_t len;
    char *text = slurp("induction.cu", &len);
    km_kernel *k = build(text, len, "past_loop");
    assert_form(k, access_of(k, "y", KM_WRITE, 0)->index, "$L0*n + blockDim.x*blockIdx.x + threadIdx.x");
    assert_form(k, access_of(k, "y", KM_WRITE, 1)->index, "K*n + blockDim.x*blockIdx.x + threadIdx.x");
    km_free(k);
    static const char *const unknown[] = {"step_conditional", "step_varies", "step_break"};
    for (size_t i = 0; i < HK_ARRAY_LEN(unknown); i++) {
        k = build(text, len, unknown[i]);
        if (!km_form_mentions_kind(k, access_of(k, "y", KM_WRITE, 0)->index, KM_ATOM_VAR, -1))
            fail_msg("%s: the walked pointer's offset should be unknown", unknown[i]);
        km_free(k);
    }
    free(text);
}

static void test_device_helpers(void **state)
{
    (void)state;
    /* pair_sum(in + loc2index(...), W, y, x) reads in at the offset plus its own index;
     * store() writes out; loc2index's value is its polynomial: all as if written inline,
     * and a template call spelled with its argument list too */
    assert_same_dumps("spellings.cu", "helpers_inline", "helpers_called", 0);
    assert_same_dumps("spellings.cu", "helpers_inline", "helpers_template", 0);
    size_t len, n;
    char *text = slurp("spellings.cu", &len);
    km_kernel *k = build(text, len, "helpers_called");
    const km_access *in = access_of(k, "in", KM_READ, 1);
    assert_form(k, in->index, "H*W*blockIdx.y + blockDim.x*blockIdx.x + threadIdx.x + 1");
    assert_int_equal(in->n_guards, 1);   /* the caller's early return */
    assert_int_equal(in->line, 156);     /* the call's line, not the helper's */
    const km_access *out = km_output_map(k, "out");
    assert_int_equal(out->mode, KM_WRITE);
    assert_form(k, out->index, "C*H*W*blockIdx.z + H*W*blockIdx.y + blockDim.x*blockIdx.x + "
                               "threadIdx.x");
    const km_param *ps = km_params(k, &n);
    assert_true(ps[0].read && !ps[0].written);
    assert_true(ps[1].written);
    km_free(k);

    k = build(text, len, "helpers_guarded");
    /* at_or_zero's early exit guards its read (y and x both ways), and its value, which
     * is 0 on that exit, stays the call */
    const km_access *a = access_of(k, "in", KM_READ, 0);
    assert_int_equal(a->n_guards, 4);
    char *t = form_text(k, a->index);   /* x clamped in a branch: (c ? w - 2 : x) */
    assert_non_null(strstr(t, " ? (W - 2) : ((blockDim.x*blockIdx.x + threadIdx.x) % W))"));
    hk_free(t);
    out = km_output_map(k, "out");
    char *v = form_text(k, out->value);
    assert_non_null(strstr(v, "at_or_zero("));
    hk_free(v);
    /* corners() writes lo and hi through references: out[lo], out[hi] are unknown */
    assert_true(km_form_mentions_kind(k, access_of(k, "out", KM_READ, 0)->index, KM_ATOM_VAR, -1));
    assert_true(km_form_mentions_kind(k, access_of(k, "out", KM_READ, 1)->index, KM_ATOM_VAR, -1));
    /* forever() calls itself: walked once, the inner call left opaque */
    const km_access *as = km_accesses(k, &n);
    size_t zero = 0;
    for (size_t i = 0; i < n; i++)
        zero += strcmp(as[i].buffer, "in") == 0 && as[i].index.n == 0;
    assert_int_equal(zero, 1);
    km_free(k);
    free(text);
}

/* ---- failures ---------------------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    km_kernel *k = (km_kernel *)1;
    char why[128];
    assert_int_equal(km_build(temporaries, sizeof(temporaries) - 1, "nope", &k, why, sizeof(why)),
                     HK_ENOENT);
    assert_null(k);
    assert_string_equal(why, "no kernel named nope");
    static const char host[] = "void h(int *p) { p[0] = 1; }\n";
    assert_int_equal(km_build(host, sizeof(host) - 1, "h", &k, NULL, 0), HK_ENOENT);
    km_free(NULL);
}

/* Every allocation of a build fails in turn: ENOMEM, nothing leaks, until it succeeds. */
static void build_out_of_memory(const char *file, const char *kernel)
{
    size_t len;
    char *text = slurp(file, &len);
    long live = hk_alloc_live();
    bool done = false;
    for (long n = 1; n < 5000 && !done; n += n < 100 ? 1 : 37) {
        km_kernel *k = NULL;
        hk_alloc_fail_after(n);
        int rc = km_build(text, len, kernel, &k, NULL, 0);
        hk_alloc_fail_after(0);
        if (rc == HK_OK) {
            done = true;
            km_free(k);
        } else {
            assert_int_equal(rc, HK_ENOMEM);
            assert_null(k);
        }
        assert_int_equal(hk_alloc_live(), live);
    }
    assert_true(done);
    free(text);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    build_out_of_memory("kernels.cu", "softmax_rows");
    build_out_of_memory("loop_macros.cu", "sum_2d_macro");   /* the snippet trees too */
    build_out_of_memory("spellings.cu", "helpers_guarded");  /* inside __device__ calls */
}

/* A cast of a parameter to a pointer of wider elements (issue 14, mmcv's load_bbox<float>:
 * `reinterpret_cast<const float4 *>(bbox + base)[0]`): its subscripts count float4s, so
 * the model lists no access through it (before, `reinterpret_cast<const float4 *>(a)[i]`
 * was listed as a[i], a quarter of what it reads) and records the cast's line; a cast to
 * elements of the same size (int, unsigned over float) is followed as before. */
static const char recasts[] =
    "__global__ void wide(const float *a, float *o, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        float4 w = reinterpret_cast<const float4 *>(a)[i];\n"
    "        float4 v = *((const float4 *)(a + 4 * i));\n"
    "        o[i] = w.x + v.w;\n"
    "    }\n"
    "}\n"
    "__global__ void same(const float *a, float *o, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        o[i] = ((const int *)a)[i] + reinterpret_cast<const unsigned int *>(a)[i + 1];\n"
    "}\n";

static void test_wider_casts(void **state)
{
    (void)state;
    km_kernel *k = build(recasts, sizeof(recasts) - 1, "wide");
    size_t n = 0;
    const km_access *as = km_accesses(k, &n);
    for (size_t i = 0; i < n; i++)
        assert_string_not_equal(as[i].buffer, "a");
    const km_param *ps = km_params(k, &n);
    assert_int_equal(n, 3);
    assert_int_equal(ps[0].recast_at, 5);
    assert_int_equal(ps[1].recast_at, 0);
    km_free(k);
    k = build(recasts, sizeof(recasts) - 1, "same");
    assert_form(k, access_of(k, "a", KM_READ, 0)->index, "blockDim.x*blockIdx.x + threadIdx.x");
    assert_form(k, access_of(k, "a", KM_READ, 1)->index, "blockDim.x*blockIdx.x + threadIdx.x + 1");
    ps = km_params(k, &n);
    assert_int_equal(ps[0].recast_at, 0);
    km_free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saxpy_spellings),
        cmocka_unit_test(test_saxpy_fields),
        cmocka_unit_test(test_constants_macro_and_template),
        cmocka_unit_test(test_value_of_constant_division),
        cmocka_unit_test(test_array_of_arrays_params),
        cmocka_unit_test(test_temporary_and_inline),
        cmocka_unit_test(test_sgemm),
        cmocka_unit_test(test_loop_step),
        cmocka_unit_test(test_grid_width),
        cmocka_unit_test(test_umul24_and_macros),
        cmocka_unit_test(test_store_beside_load),
        cmocka_unit_test(test_gemv_rows),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_bincount),
        cmocka_unit_test(test_stencil),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_layernorm),
        cmocka_unit_test(test_block_sum),
        cmocka_unit_test(test_loop_macros),
        cmocka_unit_test(test_index_splits),
        cmocka_unit_test(test_while_and_do),
        cmocka_unit_test(test_companion_loop_vars),
        cmocka_unit_test(test_induction_variables),
        cmocka_unit_test(test_device_helpers),
        cmocka_unit_test(test_wider_casts),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
