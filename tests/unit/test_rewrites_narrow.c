/* double_narrowing (issue 13): double locals that only hold float values are narrowed to
 * float, bit for bit the same. A three-nearest-neighbour search written as mmcv's three_nn
 * (the best distances in `double ... = 1e40`, +inf in float), a four-smallest tracker that
 * swaps through double temporaries (one name in three sibling blocks), a double shadowed by
 * a summed double of its own name in a nested block (only the outer is narrowed), a distance
 * itself in double compared as `best > d` with the best from 1e40, and a running maximum
 * and minimum from literals that float rounds down and up (-1e30, 1e30) must apply,
 * compile with nvcc and, in the block emulator (emu_block.h), give exactly the original's
 * outputs on data with ties, +inf, -inf, NaN, overflowing distances and values
 * at the rounded literals. The template form applies only when T is float (with T double,
 * `T qx = q[i]` is a double local given a double; with no argument, the distance's type is
 * unknown). What it must refuse (a double sum, a double passed to a function, a double
 * assigned a double product, its address taken, a comparison the rounded literal changes,
 * a store to a double buffer or a member, a macro that mentions it, two locals compared that
 * both may hold a rounded literal) names the construct and line; narrowing a comparison it
 * refuses by hand does differ. */
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
    return rwf_setup("rewrites-narrow");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char kernels[] =
    "__global__ void three_nearest(const float *queries, const float *points, float *best_d, int *best_i, int nq, int np)\n"
    "{\n"
    "    int q = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (q >= nq)\n"
    "        return;\n"
    "    const float px = queries[3 * q], py = queries[3 * q + 1], pz = queries[3 * q + 2];\n"
    "    double first = 1e40, second = 1e40, third = 1e40;\n"
    "    int a = 0, b = 0, c = 0;\n"
    "    for (int j = 0; j < np; ++j) {\n"
    "        float dx = px - points[3 * j];\n"
    "        float dy = py - points[3 * j + 1];\n"
    "        float dz = pz - points[3 * j + 2];\n"
    "        float d2 = dx * dx + dy * dy + dz * dz;\n"
    "        if (d2 < first) {\n"
    "            third = second;\n"
    "            c = b;\n"
    "            second = first;\n"
    "            b = a;\n"
    "            first = d2;\n"
    "            a = j;\n"
    "        } else if (d2 < second) {\n"
    "            third = second;\n"
    "            c = b;\n"
    "            second = d2;\n"
    "            b = j;\n"
    "        } else if (d2 < third) {\n"
    "            third = d2;\n"
    "            c = j;\n"
    "        }\n"
    "    }\n"
    "    best_d[3 * q] = first;\n"
    "    best_d[3 * q + 1] = second;\n"
    "    best_d[3 * q + 2] = third;\n"
    "    best_i[3 * q] = a;\n"
    "    best_i[3 * q + 1] = b;\n"
    "    best_i[3 * q + 2] = c;\n"
    "}\n"
    "__global__ void four_smallest(const float *x, float *out, int rows, int cols)\n"
    "{\n"
    "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (r >= rows)\n"
    "        return;\n"
    "    double m0 = 1.0e6, m1 = 1.0e6, m2 = 1.0e6, m3 = 1.0e6;\n"
    "    for (int k = 0; k < cols; k++) {\n"
    "        float v = x[r * cols + k];\n"
    "        if (v < m3) {\n"
    "            m3 = v;\n"
    "            if (m3 < m2) {\n"
    "                double t = m3;\n"
    "                m3 = m2;\n"
    "                m2 = t;\n"
    "            }\n"
    "            if (m2 < m1) {\n"
    "                double t = m2;\n"
    "                m2 = m1;\n"
    "                m1 = t;\n"
    "            }\n"
    "            if (m1 < m0) {\n"
    "                double t = m1;\n"
    "                m1 = m0;\n"
    "                m0 = t;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "    out[4 * r] = m0;\n"
    "    out[4 * r + 1] = m1;\n"
    "    out[4 * r + 2] = m2;\n"
    "    out[4 * r + 3] = m3;\n"
    "}\n"
    "__global__ void capped_max(const float *x, float *out, int n, int len)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    double hi = -1e30;\n"
    "    double lo = 1e30;\n"
    "    for (int k = 0; k < len; k++) {\n"
    "        const float v = x[i * len + k];\n"
    "        if (hi < v)\n"
    "            hi = v;\n"
    "        if (v < lo)\n"
    "            lo = v;\n"
    "    }\n"
    "    float h = hi;\n"
    "    out[2 * i] = h;\n"
    "    out[2 * i + 1] = (float)lo;\n"
    "}\n"
    "__global__ void shadowed(const float *x, float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    double best = 1e40;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        if (x[i * n + k] < best)\n"
    "            best = x[i * n + k];\n"
    "    {\n"
    "        double best = 0.0;\n"
    "        for (int k = 0; k < n; k++)\n"
    "            best += x[i * n + k];\n"
    "        out[2 * i + 1] = best;\n"
    "    }\n"
    "    out[2 * i] = best;\n"
    "}\n"
    "__global__ void double_distance(const float *x, const float *c, float *out, int *at, int n, int m)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    double best = 1e40;\n"
    "    int where = -1;\n"
    "    for (int k = 0; k < m; k++) {\n"
    "        const float diff = x[i] - c[k];\n"
    "        double d = diff * diff;\n"
    "        if (best > d) {\n"
    "            best = d;\n"
    "            where = k;\n"
    "        }\n"
    "    }\n"
    "    out[i] = best;\n"
    "    at[i] = where;\n"
    "}\n";

static const char *const applying[] = {"three_nearest", "four_smallest", "capped_max", "shadowed", "double_distance"};

/* One case per kernel: the original and the narrowed kernel on the same data and launch. */
static const char helpers[] =
    "static const float F_INF = std::numeric_limits<float>::infinity();\n"
    "static const float F_NAN = std::numeric_limits<float>::quiet_NaN();\n"
    "static void three_nearest_case(void)\n"
    "{\n"
    "    static const int sizes[][2] = {{1, 0}, {5, 1}, {17, 2}, {33, 3}, {37, 64}, {70, 301}};\n"
    "    for (int z = 0; z < 6; z++) {\n"
    "        const int nq = sizes[z][0], np = sizes[z][1];\n"
    "        emu::buf<float> q(3 * nq), p(3 * (size_t)np + 3), dor(3 * nq), dca(3 * nq);\n"
    "        emu::buf<int> ior(3 * nq), ica(3 * nq);\n"
    "        q.fill(z + 1);\n"
    "        p.fill(z + 11);\n"
    "        for (int j = 4; j < np; j += 5)       /* ties: copies of an earlier point */\n"
    "            for (int c = 0; c < 3; c++)\n"
    "                p[3 * j + c] = p[3 * (j / 2) + c];\n"
    "        if (np > 7)\n"
    "            p[3 * 7] = F_INF;                 /* a distance of +inf */\n"
    "        if (np > 9)\n"
    "            p[3 * 9 + 1] = F_NAN;             /* a NaN distance: never taken */\n"
    "        if (np > 12)\n"
    "            p[3 * 12 + 2] = -F_INF;\n"
    "        if (nq > 3)\n"
    "            q[3 * 3] = F_NAN;                 /* a query all of whose distances are NaN */\n"
    "        if (nq > 4)\n"
    "            q[3 * 4 + 1] = 3e19f;             /* distances that overflow to +inf: ties at inf */\n"
    "        if (nq > 6)\n"
    "            q[3 * 6 + 2] = F_INF;\n"
    "        dor.set(-7.0f);\n"
    "        dca.set(-7.0f);\n"
    "        ior.set(-7);\n"
    "        ica.set(-7);\n"
    "        emu::schedule = z % 3;\n"
    "        const dim3 g((nq + 31) / 32), b(32);\n"
    "        emu::launch(g, b, 0, [&] { orig::three_nearest(q, p, dor, ior, nq, np); });\n"
    "        emu::launch(g, b, 0, [&] { cand::three_nearest(q, p, dca, ica, nq, np); });\n"
    "        emu::expect(\"three_nearest dist\", dor, dca);\n"
    "        emu::expect(\"three_nearest idx\", ior, ica);\n"
    "    }\n"
    "}\n"
    "static void four_smallest_case(void)\n"
    "{\n"
    "    static const int sizes[][2] = {{3, 0}, {4, 1}, {9, 3}, {20, 4}, {21, 9}, {40, 100}};\n"
    "    for (int z = 0; z < 6; z++) {\n"
    "        const int rows = sizes[z][0], cols = sizes[z][1];\n"
    "        emu::buf<float> x((size_t)rows * cols + 1), oo(4 * rows), oc(4 * rows);\n"
    "        x.fill_mod(z + 3, 7);                 /* small integers: many ties */\n"
    "        for (size_t i = 0; i + 1 < x.size(); i += 11)\n"
    "            x[i] = -F_INF;\n"
    "        for (size_t i = 5; i + 1 < x.size(); i += 13)\n"
    "            x[i] = F_NAN;\n"
    "        for (size_t i = 2; i + 1 < x.size(); i += 17)\n"
    "            x[i] = 2.5e6f;                    /* above the cap: never taken */\n"
    "        for (size_t i = 3; i + 1 < x.size(); i += 19)\n"
    "            x[i] = 1.0e6f;                    /* equal to the cap */\n"
    "        oo.set(-1.0f);\n"
    "        oc.set(-1.0f);\n"
    "        const dim3 g((rows + 15) / 16), b(16);\n"
    "        emu::launch(g, b, 0, [&] { orig::four_smallest(x, oo, rows, cols); });\n"
    "        emu::launch(g, b, 0, [&] { cand::four_smallest(x, oc, rows, cols); });\n"
    "        emu::expect(\"four_smallest\", oo, oc);\n"
    "    }\n"
    "}\n"
    "static void capped_max_case(void)\n"
    "{\n"
    "    const float edge[] = {1e30f, -1e30f, std::nextafter(1e30f, 0.0f), std::nextafter(-1e30f, 0.0f),\n"
    "                          std::nextafter(1e30f, F_INF), F_INF, -F_INF, F_NAN, 0.0f, -0.0f, 3.5f};\n"
    "    const int n = 24, len = 6;\n"
    "    emu::buf<float> x((size_t)n * len), oo(2 * n), oc(2 * n);\n"
    "    x.fill(5);\n"
    "    for (int i = 0; i < n; i++)              /* row i: edge values at several places */\n"
    "        for (int k = 0; k < len; k++)\n"
    "            if ((i + k) % 3 != 0)\n"
    "                x[(size_t)i * len + k] = edge[(i * 7 + k * 3) % 11];\n"
    "    for (int k = 0; k < len; k++)            /* rows of one edge value each */\n"
    "        for (int e = 0; e < 11 && e < n; e++)\n"
    "            x[(size_t)e * len + k] = edge[e];\n"
    "    emu::launch(dim3(1), dim3(n), 0, [&] { orig::capped_max(x, oo, n, len); });\n"
    "    emu::launch(dim3(1), dim3(n), 0, [&] { cand::capped_max(x, oc, n, len); });\n"
    "    emu::expect(\"capped_max\", oo, oc);\n"
    "    for (int len0 = 0; len0 < 2; len0++) {   /* nothing read: the literals themselves */\n"
    "        oo.set(1.0f);\n"
    "        oc.set(2.0f);\n"
    "        emu::launch(dim3(1), dim3(n), 0, [&] { orig::capped_max(x, oo, n, len0); });\n"
    "        emu::launch(dim3(1), dim3(n), 0, [&] { cand::capped_max(x, oc, n, len0); });\n"
    "        emu::expect(\"capped_max (short rows)\", oo, oc);\n"
    "    }\n"
    "}\n"
    "static void shadowed_case(void)\n"
    "{\n"
    "    const int n = 9, rows = 40;\n"
    "    emu::buf<float> x((size_t)n * rows), oo(2 * rows), oc(2 * rows);\n"
    "    x.fill(4);\n"
    "    x[5] = F_NAN;\n"
    "    x[n * 3 + 2] = F_INF;\n"
    "    x[n * 7 + 1] = 1e-30f;\n"
    "    emu::launch(dim3(2), dim3(rows / 2), 0, [&] { orig::shadowed(x, oo, n); });\n"
    "    emu::launch(dim3(2), dim3(rows / 2), 0, [&] { cand::shadowed(x, oc, n); });\n"
    "    emu::expect(\"shadowed\", oo, oc);\n"
    "}\n"
    "static void double_distance_case(void)\n"
    "{\n"
    "    const int n = 50, m = 23;\n"
    "    emu::buf<float> x(n), c(m), oo(n), oc(n);\n"
    "    emu::buf<int> ao(n), ac(n);\n"
    "    x.fill(8);\n"
    "    c.fill(9);\n"
    "    c[3] = c[11];                              /* a tie */\n"
    "    c[5] = F_NAN;\n"
    "    c[7] = F_INF;\n"
    "    x[2] = F_INF;                              /* every distance inf or NaN */\n"
    "    x[4] = F_NAN;\n"
    "    x[6] = 2e19f;                              /* distances that overflow to +inf */\n"
    "    emu::launch(dim3(2), dim3(32), 0, [&] { orig::double_distance(x, c, oo, ao, n, m); });\n"
    "    emu::launch(dim3(2), dim3(32), 0, [&] { cand::double_distance(x, c, oc, ac, n, m); });\n"
    "    emu::expect(\"double_distance\", oo, oc);\n"
    "    emu::expect(\"double_distance index\", ao, ac);\n"
    "}\n";

/* The `<=` kernel the rewrite refuses, against the same narrowed by hand. */
static const char helpers_mirrored[] =
    "static void mirrored_case(void)\n"
    "{\n"
    "    emu::buf<float> x(4), oo(1), oc(1);\n"
    "    emu::buf<int> ao(1), ac(1);\n"
    "    x.set(1e30f);                             /* the float 1e30 rounds to, above 1e30 */\n"
    "    emu::launch(dim3(1), dim3(1), 0, [&] { orig::mirrored(x, oo, ao, 4); });\n"
    "    emu::launch(dim3(1), dim3(1), 0, [&] { cand::mirrored(x, oc, ac, 4); });\n"
    "    emu::expect(\"mirrored value\", oo, oc);\n"
    "    emu::expect(\"mirrored index\", ao, ac);\n"
    "}\n";

/* The running test's emulated programs (emu_batch.h): queued by emulate(), built together
 * and checked, each on its own, by emu_batch_run at the test's end. */
static emu_batch batch;
#define emulate(tag, src, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* Each kernel applies and its text compiles. */
static void applies_and_compiles(void **state)
{
    (void)state;
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        char *cand = emu_rewrite(kernels, applying[i], "double_narrowing", NULL);
        char tag[64];
        snprintf(tag, sizeof tag, "narrow_%s", applying[i]);
        rwf_nvcc_compiles(cand, tag);
        free(cand);
    }
}

/* What the emitted text holds: the declarations in float, the literals cast (1e40 is +inf
 * in float), nothing else changed; the description says it is exact. */
static void emitted_shape(void **state)
{
    (void)state;
    char *c = emu_rewrite(kernels, "three_nearest", "double_narrowing", NULL);
    assert_non_null(strstr(c, "    float first = (float)1e40, second = (float)1e40, third = (float)1e40;\n"));
    assert_null(strstr(c, "double first"));
    assert_non_null(strstr(c, "        if (d2 < first) {\n"));
    assert_non_null(strstr(c, "    best_d[3 * q] = first;\n"));
    free(c);
    c = emu_rewrite(kernels, "four_smallest", "double_narrowing", NULL);
    assert_non_null(strstr(c, "float m0 = (float)1.0e6, m1 = (float)1.0e6, m2 = (float)1.0e6, m3 = (float)1.0e6;"));
    assert_non_null(strstr(c, "                float t = m2;\n"));
    assert_null(strstr(c, "double t"));
    free(c);
    c = emu_rewrite(kernels, "shadowed", "double_narrowing", NULL);
    assert_non_null(strstr(c, "    float best = (float)1e40;\n"));
    assert_non_null(strstr(c, "        double best = 0.0;\n"));
    free(c);
    c = emu_rewrite(kernels, "double_distance", "double_narrowing", NULL);
    assert_non_null(strstr(c, "        float d = diff * diff;\n"));
    assert_non_null(strstr(c, "    float best = (float)1e40;\n    int where = -1;\n"));
    free(c);
    c = emu_rewrite(kernels, "capped_max", "double_narrowing", NULL);
    assert_non_null(strstr(c, "    float hi = -(float)1e30;\n"));
    assert_non_null(strstr(c, "    float lo = (float)1e30;\n"));
    free(c);

    fixture fx;
    load_text(kernels, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "three_nearest")};
    rw_result r;
    assert_int_equal(rw_apply_named("double_narrowing", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.description, "`first` (line 7), `second` (line 7), `third` (line 7)"));
    assert_non_null(strstr(r.description, "bit for bit"));
    assert_true(r.keeps_launch);
    rw_result_free(&r);
    unload(&fx);
}

static const char templated[] =
    "template <typename T>\n"
    "__global__ void nearest_t(const T *q, const T *p, T *dist, int *idx, int n, int m)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    T qx = q[i];\n"
    "    double best = 1e40;\n"
    "    int at = 0;\n"
    "    for (int k = 0; k < m; ++k) {\n"
    "        T d = (qx - p[k]) * (qx - p[k]);\n"
    "        if (d < best) {\n"
    "            best = d;\n"
    "            at = k;\n"
    "        }\n"
    "    }\n"
    "    dist[i] = best;\n"
    "    idx[i] = at;\n"
    "}\n";

/* The template form: T's argument decides (the search's, else the spec's): float applies,
 * double and no argument refuse at the comparison with the distance. */
static void template_argument_decides(void **state)
{
    (void)state;
    fixture fx;
    load_text(templated, &fx);
    const rw_descriptor *d = rw_find("double_narrowing");
    assert_non_null(d);
    static const char *const as_float[] = {"float"}, *const as_double[] = {"double"};
    const char *const *args[] = {as_float, as_double, NULL};
    for (size_t i = 0; i < 3; i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "nearest_t"),
                          .template_args = args[i], .n_template_args = args[i] ? 1 : 0};
        rw_result r;
        rw_refusal why;
        assert_int_equal(rw_apply(d, &ctx, NULL, &r, &why), HK_OK);
        assert_true(r.applicable == (i == 0));
        if (i == 0) {
            assert_non_null(strstr(r.text, "    float best = (float)1e40;\n"));
            assert_non_null(strstr(r.text, "    T qx = q[i];\n"));
        } else if (i == 1) {   /* T double: qx is a double local given a double */
            assert_int_equal(why.line, 7);
            assert_string_equal(why.construct, "assignment");
        } else {               /* T unknown: the distance may be anything */
            assert_int_equal(why.line, 12);
            assert_string_equal(why.construct, "comparison");
        }
        rw_result_free(&r);
    }
    unload(&fx);
}

static int call_narrow(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    return rw_apply_named("double_narrowing", &ctx, NULL, r, NULL);
}

/* Out of memory anywhere: HK_ENOMEM and nothing left allocated. */
static void survives_allocation_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "three_nearest"), call_narrow);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "four_smallest"), call_narrow);
    unload(&fx);
}

static const char refused[] =
    "__device__ float halve(double v) { return (float)(v * 0.5); }\n"
    "__global__ void sum_d(const float *x, float *out, int n)\n"
    "{\n"
    "    double acc = 0.0;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        acc += x[k];\n"
    "    out[0] = acc;\n"
    "}\n"
    "__global__ void passes(const float *x, float *out, int n)\n"
    "{\n"
    "    double best = 1e40;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        if (x[k] < best)\n"
    "            best = x[k];\n"
    "    out[0] = halve(best);\n"
    "}\n"
    "__global__ void product(const float *x, float *out, int n)\n"
    "{\n"
    "    double best = 1e40;\n"
    "    for (int k = 0; k + 1 < n; k++) {\n"
    "        double p = x[k] * 2.0;\n"
    "        if (p < best)\n"
    "            best = p;\n"
    "    }\n"
    "    out[0] = best;\n"
    "}\n"
    "__global__ void address(const float *x, float *out, int n)\n"
    "{\n"
    "    double best = 1e40;\n"
    "    double *where = &best;\n"
    "    out[0] = *where + x[0];\n"
    "}\n"
    "__global__ void mirrored(const float *x, float *out, int *at, int n)\n"
    "{\n"
    "    double lo = 1e30;\n"
    "    int where = -1;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        if (x[k] <= lo) {\n"
    "            lo = x[k];\n"
    "            where = k;\n"
    "        }\n"
    "    out[0] = lo;\n"
    "    at[0] = where;\n"
    "}\n"
    "__global__ void to_double(const float *x, double *out, int n)\n"
    "{\n"
    "    double best = 1e40;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        if (x[k] < best)\n"
    "            best = x[k];\n"
    "    out[0] = best;\n"
    "}\n"
    "__global__ void no_double(const float *x, float *out, int n)\n"
    "{\n"
    "    out[0] = x[0];\n"
    "}\n"
    "__global__ void equal_test(const float *x, int *at, int n)\n"
    "{\n"
    "    double best = 1e40;\n"
    "    int where = -1;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        if (best == x[k])\n"
    "            where = k;\n"
    "    at[0] = where;\n"
    "}\n"
    "#define KEEP_LOWER(v) kept = fminf(kept, (v))\n"
    "__global__ void macro_use(const float *x, float *out, int n)\n"
    "{\n"
    "    double kept = 1e40;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        KEEP_LOWER(x[k]);\n"
    "    out[0] = kept;\n"
    "}\n"
    "struct pair_out { float lo, hi; };\n"
    "__global__ void member_store(const float *x, pair_out *out, int n)\n"
    "{\n"
    "    double lo = 1e40;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        if (x[k] < lo)\n"
    "            lo = x[k];\n"
    "    out[0].lo = lo;\n"
    "}\n"
    "__global__ void two_literals(const float *x, int *at, int n)\n"
    "{\n"
    "    double lo = 1e30, hi = -1e30;\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        if (x[k] < lo)\n"
    "            lo = x[k];\n"
    "        if (hi < x[k])\n"
    "            hi = x[k];\n"
    "    }\n"
    "    at[0] = hi < lo;\n"
    "}\n";

static const rwf_refusal refusals[] = {
    {"sum_d", "arithmetic", 6, "`acc` is updated in place (`+=`)"},
    {"passes", "call", 15, "passed to `halve(...)`"},
    {"product", "assignment", 21, "`x[k] * 2.0`, which is not a float value"},
    {"address", "address", 30, "address of `best`"},
    {"mirrored", "comparison", 38, "rounds up"},
    {"to_double", "store", 51, "not a float buffer"},
    {"no_double", "double local", 54, "no double scalar local"},
    {"equal_test", "comparison", 62, "rounds up"},
    {"macro_use", "macro", 69, "a macro (line 66) mentions `kept`"},
    {"member_store", "store", 81, "stored to `lo`"},
    {"two_literals", "comparison", 92, "both may hold a literal"},
};

/* Each refuses through the registry with its construct and line, and the driver says the
 * same. */
static void refusals_name_construct_and_line(void **state)
{
    (void)state;
    rwf_expect_refusals(refused, "double_narrowing", refusals, HK_ARRAY_LEN(refusals));
}

/* Every applying kernel emulated against its original: bit for bit. */
static void emulated_equal(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        char *cand = emu_rewrite(kernels, applying[i], "double_narrowing", NULL);
        char driver[200];
        snprintf(driver, sizeof driver, "%s_case();", applying[i]);
        emulate(applying[i], kernels, cand, driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* The check can fail, and the refusals matter: the literal left as 0 instead of +inf, and
 * the `<=` comparison the rewrite refuses narrowed by hand, both differ. */
static void broken_differs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(kernels, "three_nearest", "double_narrowing", NULL);
    char *broken = emu_replaced(cand, "third = (float)1e40", "third = 0.0f");
    emulate("broken_literal", kernels, broken, "three_nearest_case();", EMU_DIFFERS);
    free(broken);
    free(cand);
    broken = emu_replaced(refused, "    double lo = 1e30;\n", "    float lo = (float)1e30;\n");
    emu_batch_add_pair(&batch, "hand_narrowed", refused, broken, helpers_mirrored, "mirrored_case();", EMU_DIFFERS);
    free(broken);
    emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(applies_and_compiles),
        cmocka_unit_test(emitted_shape),
        cmocka_unit_test(template_argument_decides),
        cmocka_unit_test(survives_allocation_failures),
        cmocka_unit_test(refusals_name_construct_and_line),
        cmocka_unit_test(emulated_equal),
        cmocka_unit_test(broken_differs),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
