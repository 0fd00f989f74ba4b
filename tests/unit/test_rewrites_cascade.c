/* cascade_guard run, not only compiled: our own sorted insertion cascades -- three nearest
 * 2-D points with ties, NaN and infinite points; a descriptor matcher's best and second best
 * (two bounds declared in adjacent statements from FLT_MAX, an unbraced last branch, a
 * grid-stride loop); four nearest by an integer distance into double bounds -- against their
 * rewrites in the block emulator (emu_block.h, one batched program), bit for bit under three
 * thread orders. A guard on the first bound instead of the last must differ. Where
 * bench/wild/src is extracted, mmcv's three_nn, rewritten alone, on uniform_tiles and on
 * uniform_tiles + double_narrowing (the search's leader), runs bit for bit too and compiles
 * with nvcc -arch=sm_90; the stacked text's PTX has the guard's one compare. Refusals name
 * the construct and line. */
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
    return rwf_setup("rewrites-cascade");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* PAIR(T, nd, ni, launch): launch (NS:: the namespace) on the original and the rewrite under
 * the three thread orders, dist (nd T) and idx (ni int) poisoned first, both left equal. */
static const char helpers[] =
    "#define PAIR(T, nd, ni, ...)                                                    \\\n"
    "    for (int s = 0; s < 3; s++) {                                               \\\n"
    "        emu::schedule = s;                                                      \\\n"
    "        emu::buf<T> o_d(nd), c_d(nd);                                           \\\n"
    "        emu::buf<int> o_i(ni), c_i(ni);                                         \\\n"
    "        o_d.set(T(-7)); c_d.set(T(-7)); o_i.set(-7); c_i.set(-7);               \\\n"
    "        { namespace NS = orig; auto &dist = o_d; auto &idx = o_i; __VA_ARGS__; } \\\n"
    "        { namespace NS = cand; auto &dist = c_d; auto &idx = c_i; __VA_ARGS__; } \\\n"
    "        bool ok_ = emu::expect(\"dist\", o_d, c_d);                               \\\n"
    "        ok_ = emu::expect(\"idx\", o_i, c_i) && ok_;                              \\\n"
    "        if (!ok_)                                                               \\\n"
    "            printf(\"  (schedule %d)\\n\", s);                                   \\\n"
    "    }\n";

static emu_batch batch;

/* the three nearest of n 2-D points for each of m queries, sorted in three scalars */
static const char three[] =
    "__global__ void three_near(int n, int m, const float *q, const float *ref, float *dist, int *idx)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= m)\n"
    "        return;\n"
    "    const float qx = q[2 * t], qy = q[2 * t + 1];\n"
    "    float b0 = 3.0e38f, b1 = 3.0e38f, b2 = 3.0e38f;\n"
    "    int i0 = -1, i1 = -1, i2 = -1;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        const float dx = ref[2 * i] - qx, dy = ref[2 * i + 1] - qy;\n"
    "        float d = dx * dx + dy * dy;\n"
    "        if (d < b0) {\n"
    "            b2 = b1;\n"
    "            i2 = i1;\n"
    "            b1 = b0;\n"
    "            i1 = i0;\n"
    "            b0 = d;\n"
    "            i0 = i;\n"
    "        } else if (d < b1) {\n"
    "            b2 = b1;\n"
    "            i2 = i1;\n"
    "            b1 = d;\n"
    "            i1 = i;\n"
    "        } else if (d < b2) {\n"
    "            b2 = d;\n"
    "            i2 = i;\n"
    "        }\n"
    "    }\n"
    "    dist[3 * t] = b0;\n"
    "    dist[3 * t + 1] = b1;\n"
    "    dist[3 * t + 2] = b2;\n"
    "    idx[3 * t] = i0;\n"
    "    idx[3 * t + 1] = i1;\n"
    "    idx[3 * t + 2] = i2;\n"
    "}\n";

/* integer coordinates 0..5: many equal distances; a NaN point, an infinite one, and a NaN
 * query */
static const char three_drv[] =
    "for (int n : {0, 1, 2, 3, 7, 300}) {\n"
    "    const int m = 100;\n"
    "    emu::buf<float> q(2 * m), ref(2 * n + 2);\n"
    "    q.fill_mod(3, 6); ref.fill_mod(4, 6);\n"
    "    if (n > 5) { ref[5] = NAN; ref[8] = INFINITY; }\n"
    "    q[7] = NAN;\n"
    "    PAIR(float, 3 * m, 3 * m, emu::launch(dim3((m + 63) / 64), dim3(64), 0,\n"
    "         [&] { NS::three_near(n, m, q, ref, dist, idx); }));\n"
    "}\n";

/* a descriptor matcher: the best and second best of n 4-D descriptors, grid-stride */
static const char ratio[] =
    "__global__ void ratio_match(int n, int m, const float *qd, const float *rd, float *dist, int *idx)\n"
    "{\n"
    "    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < m; t += blockDim.x * gridDim.x) {\n"
    "        float best = FLT_MAX;\n"
    "        float second = FLT_MAX;\n"
    "        int at = -1;\n"
    "        for (int i = 0; i < n; i++) {\n"
    "            float d = 0.0f;\n"
    "            for (int c = 0; c < 4; c++) {\n"
    "                const float e = qd[4 * t + c] - rd[4 * i + c];\n"
    "                d += e * e;\n"
    "            }\n"
    "            if (d < best) {\n"
    "                second = best;\n"
    "                best = d;\n"
    "                at = i;\n"
    "            } else if (d < second)\n"
    "                second = d;\n"
    "        }\n"
    "        idx[t] = best < 0.64f * second ? at : -1;\n"
    "        dist[2 * t] = best;\n"
    "        dist[2 * t + 1] = second;\n"
    "    }\n"
    "}\n";

static const char ratio_drv[] =
    "for (int n : {0, 1, 5, 200}) {\n"
    "    const int m = 150;\n"
    "    emu::buf<float> qd(4 * m), rd(4 * n + 4);\n"
    "    qd.fill_mod(7, 4); rd.fill_mod(8, 4);\n"
    "    for (unsigned g : {1u, 3u})\n"
    "        PAIR(float, 2 * m, m, emu::launch(dim3(g), dim3(32), 0,\n"
    "             [&] { NS::ratio_match(n, m, qd, rd, dist, idx); }));\n"
    "}\n";

/* four nearest by an integer distance, kept in double bounds */
static const char four[] =
    "__global__ void four_near(int n, const int *x, double *dist, int *idx)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    double a = 1e300, b = 1e300, c = 1e300, e = 1e300;\n"
    "    int ia = 0, ib = 0, ic = 0, ie = 0;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        int d = abs(x[i] - x[t]) + (i & 1);\n"
    "        if (d < a) { e = c; ie = ic; c = b; ic = ib; b = a; ib = ia; a = d; ia = i; }\n"
    "        else if (d < b) { e = c; ie = ic; c = b; ic = ib; b = d; ib = i; }\n"
    "        else if (d < c) { e = c; ie = ic; c = d; ic = i; }\n"
    "        else if (d < e) { e = d; ie = i; }\n"
    "    }\n"
    "    dist[4 * t] = a; dist[4 * t + 1] = b; dist[4 * t + 2] = c; dist[4 * t + 3] = e;\n"
    "    idx[4 * t] = ia; idx[4 * t + 1] = ib; idx[4 * t + 2] = ic; idx[4 * t + 3] = ie;\n"
    "}\n";

static const char four_drv[] =
    "for (int n : {0, 3, 64, 257}) {\n"
    "    emu::buf<int> x(n + 64);\n"
    "    x.fill_mod(9, 11);\n"
    "    PAIR(double, 4 * 64, 4 * 64, emu::launch(dim3(2), dim3(32), 0,\n"
    "         [&] { NS::four_near(n, x, dist, idx); }));\n"
    "}\n";

/* mmcv's three_nn: b batches on y, n queries, m known points, integer coordinates (ties) */
static const char tnn_drv[] =
    "const int b = 2, n = 300, m = 100;\n"
    "emu::buf<float> unk(b * n * 3), kn(b * m * 3);\n"
    "unk.fill_mod(15, 6); kn.fill_mod(16, 6);\n"
    "kn[7] = NAN; unk[4] = NAN;\n"
    "for (int mm : {0, 1, 3, 100})\n"
    "    for (unsigned bl : {64u, 96u})\n"
    "        PAIR(float, b * n * 3, b * n * 3, emu::launch(dim3((n + bl - 1) / bl, b), dim3(bl), 0,\n"
    "             [&] { NS::three_nn_forward_cuda_kernel<float>(b, n, mm, unk, kn, dist, idx); }));\n";

/* the header's include guard, defined by the original's copy, would hide the rewrite's */
static char *unguarded(const char *text)
{
    return emu_replaced(text, "#ifndef ", "#if 1 // ");
}

/* text with rewrite applied to kernel kname, template arguments {"float"} */
static char *rewrite_f(const char *text, const char *kname, const char *rewrite)
{
    fixture fx;
    load_text(text, &fx);
    static const char *const targs[] = {"float"};
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname),
                      .template_args = targs, .n_template_args = 1};
    rw_result r;
    assert_int_equal(rw_apply_named(rewrite, &ctx, NULL, &r, NULL), HK_OK);
    if (!r.applicable)
        print_message("%s of %s: %s\n", rewrite, kname, r.description);
    assert_true(r.applicable);
    char *out = strdup(r.text);
    assert_non_null(out);
    rw_result_free(&r);
    unload(&fx);
    return out;
}

static char *rewrite_chain(const char *text, const char *kname, const char *const *names, size_t n)
{
    char *t = strdup(text);
    assert_non_null(t);
    for (size_t i = 0; i < n; i++) {
        char *u = rewrite_f(t, kname, names[i]);
        free(t);
        t = u;
    }
    return t;
}

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *c1 = emu_rewrite(three, "three_near", "cascade_guard", NULL);
    emu_batch_add_pair(&batch, "three", three, c1, helpers, three_drv, EMU_OK);
    /* guarded by the first bound: a point between b0 and b2 no longer goes in */
    char *broken = emu_replaced(c1, "if (d < b2) { /* hk", "if (d < b0) { /* hk");
    emu_batch_add_pair(&batch, "three_first_bound", three, broken, helpers, three_drv, EMU_DIFFERS);
    char *c2 = emu_rewrite(ratio, "ratio_match", "cascade_guard", NULL);
    emu_batch_add_pair(&batch, "ratio", ratio, c2, helpers, ratio_drv, EMU_OK);
    char *c3 = emu_rewrite(four, "four_near", "cascade_guard", NULL);
    emu_batch_add_pair(&batch, "four", four, c3, helpers, four_drv, EMU_OK);
    char *broken4 = emu_replaced(c3, "if (d < e) { /* hk", "if (d < c) { /* hk");
    emu_batch_add_pair(&batch, "four_third_bound", four, broken4, helpers, four_drv, EMU_DIFFERS);
    char *src = rwf_wild_text("mmcv_three_nn_fwd", NULL);
    char *w[5] = {0};
    if (src) {
        static const char *const alone[] = {"cascade_guard"};
        static const char *const tiles[] = {"uniform_tiles", "cascade_guard"};
        static const char *const lead[] = {"uniform_tiles", "double_narrowing", "cascade_guard"};
        static const char *const first[] = {"cascade_guard", "uniform_tiles"};
        const char *k = "three_nn_forward_cuda_kernel";
        char *t = rewrite_chain(src, k, alone, 1);
        w[0] = unguarded(t);
        free(t);
        emu_batch_add_pair(&batch, "wild_three_nn", src, w[0], helpers, tnn_drv, EMU_OK);
        t = rewrite_chain(src, k, tiles, 2);
        w[1] = unguarded(t);
        free(t);
        emu_batch_add_pair(&batch, "wild_three_nn_tiles_guard", src, w[1], helpers, tnn_drv, EMU_OK);
        t = rewrite_chain(src, k, lead, 3);
        w[2] = unguarded(t);
        free(t);
        emu_batch_add_pair(&batch, "wild_three_nn_tiles_narrow_guard", src, w[2], helpers, tnn_drv, EMU_OK);
        t = rewrite_chain(src, k, first, 2);
        w[3] = unguarded(t);
        free(t);
        emu_batch_add_pair(&batch, "wild_three_nn_guard_tiles", src, w[3], helpers, tnn_drv, EMU_OK);
        w[4] = emu_replaced(w[0], "if (d < best3) { /* hk", "if (d < best1) { /* hk");
        emu_batch_add_pair(&batch, "wild_three_nn_first_bound", src, w[4], helpers, tnn_drv, EMU_DIFFERS);
    }
    emu_batch_run(&batch);
    free(c1);
    free(broken);
    free(c2);
    free(c3);
    free(broken4);
    for (size_t i = 0; i < HK_ARRAY_LEN(w); i++)
        free(w[i]);
    free(src);
}

static void emitted_text(void **state)
{
    (void)state;
    char *t = emu_rewrite(three, "three_near", "cascade_guard", NULL);
    static const char *const want[] = {
        "        if (d < b2) { /* hk rewrite: cascade_guard: the bounds stay sorted",
        "*/\n        if (d < b0) {\n            b2 = b1;",
        "            b2 = d;\n            i2 = i;\n        }\n        }\n    }\n    dist[3 * t] = b0;",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(t, want[i]))
            fail_msg("no `%s` in\n%s", want[i], t);
    /* the declarations and the rest of the loop are the original's */
    assert_non_null(strstr(t, "float b0 = 3.0e38f, b1 = 3.0e38f, b2 = 3.0e38f;"));
    free(t);
    /* two bounds, an unbraced last branch: the guard closes after it */
    t = emu_rewrite(ratio, "ratio_match", "cascade_guard", NULL);
    static const char *const want2[] = {
        "            if (d < second) { /* hk rewrite: cascade_guard",
        "            } else if (d < second)\n                second = d;\n            }\n        }",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want2); i++)
        if (!strstr(t, want2[i]))
            fail_msg("no `%s` in\n%s", want2[i], t);
    free(t);
    /* the description names the bounds */
    fixture fx;
    load_text(four, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "four_near")};
    rw_result r;
    assert_int_equal(rw_apply_named("cascade_guard", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_true(r.keeps_launch);
    if (!strstr(r.description, "1 cascade(s) of 4 sorted bounds (line 8: `if (d < a) ... else if (... < e)`)"))
        fail_msg("description: %s", r.description);
    rw_result_free(&r);
    unload(&fx);
}

static const char refused[] =
    "__global__ void plain_else(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e30f, b1 = 1e30f;\n"
    "    int k = 0;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b1 = b0; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "        else { k++; }\n"
    "    }\n"
    "    o[0] = b0 + b1 + k;\n"
    "}\n"
    "__global__ void order(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e30f, b1 = 1e30f, b2 = 1e30f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b1 = b0; b2 = b1; b0 = d; }\n"
    "        else if (d < b1) { b2 = b1; b1 = d; }\n"
    "        else if (d < b2) { b2 = d; }\n"
    "    }\n"
    "    o[0] = b0 + b1 + b2;\n"
    "}\n"
    "__global__ void unequal(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e30f, b1 = 1e20f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b1 = b0; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "    }\n"
    "    o[0] = b0 + b1;\n"
    "}\n"
    "__global__ void rewritten(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e30f, b1 = 1e30f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b1 = b0; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "        b1 *= 0.5f;\n"
    "    }\n"
    "    o[0] = b0 + b1;\n"
    "}\n"
    "__global__ void leaves(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e30f, b1 = 1e30f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b1 = b0; if (d < 0.0f) break; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "    }\n"
    "    o[0] = b0 + b1;\n"
    "}\n"
    "__global__ void integers(int n, const int *x, int *o)\n"
    "{\n"
    "    int b0 = 1 << 30, b1 = 1 << 30;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        int d = x[i];\n"
    "        if (d < b0) { b1 = b0; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "    }\n"
    "    o[0] = b0 + b1;\n"
    "}\n"
    "__global__ void value_set(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e30f, b1 = 1e30f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b1 = b0; d = d * 2.0f; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "    }\n"
    "    o[0] = b0 + b1;\n"
    "}\n"
    "__global__ void apart(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e30f;\n"
    "    int k = 0;\n"
    "    float b1 = 1e30f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b1 = b0; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "    }\n"
    "    o[0] = b0 + b1 + k;\n"
    "}\n"
    "__device__ void clamp_ref(float &v) { v = 0.0f; }\n"
    "__global__ void handed(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e30f, b1 = 1e30f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b1 = b0; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "        clamp_ref(b1);\n"
    "    }\n"
    "    o[0] = b0 + b1;\n"
    "}\n"
    "__global__ void single(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e30f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b0 = d; }\n"
    "    }\n"
    "    o[0] = b0;\n"
    "}\n"
    "__global__ void loaded(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = x[0], b1 = x[0];\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b1 = b0; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "    }\n"
    "    o[0] = b0 + b1;\n"
    "}\n"
    "__global__ void mixed(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e39;\n"
    "    double b1 = 1e39;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b1 = b0; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "    }\n"
    "    o[0] = b0 + b1;\n"
    "}\n"
    "__global__ void by_ref(int n, float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e30f, b1 = 1e30f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float &d = x[i];\n"
    "        if (d < b0) { b1 = b0; x[i] = 9.0f; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "    }\n"
    "    o[0] = b0 + b1;\n"
    "}\n";

/* a macro naming a bound: what it does with it is not read (the whole file is searched) */
static const char refused_macro[] =
    "#define WORST b1\n"
    "__global__ void macro_(int n, const float *x, float *o)\n"
    "{\n"
    "    float b0 = 1e30f, b1 = 1e30f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        float d = x[i];\n"
    "        if (d < b0) { b1 = b0; b0 = d; }\n"
    "        else if (d < b1) { b1 = d; }\n"
    "    }\n"
    "    o[0] = b0 + WORST;\n"
    "}\n";

static void refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"plain_else", "else", 9, "not `else if (D < B)`"},
        {"order", "branch", 18, "does not move the later bounds down"},
        {"unequal", "bound", 26, "same constant"},
        {"rewritten", "bound", 41, "written, referenced or handed"},
        {"leaves", "jump", 50, "break leaves the branch"},
        {"integers", "bound", 57, "not float or double"},
        {"value_set", "branch", 70, "compared value `d` is written"},
        {"apart", "bound", 79, "declared in statements apart"},
        {"handed", "bound", 95, "written, referenced or handed"},
        {"single", "kernel body", 100, "no cascade"},
        {"loaded", "bound", 110, "same constant"},
        {"mixed", "bound", 121, "another type than the first bound"},
        {"by_ref", "value", 133, "is a reference or its address is taken"},
    };
    rwf_expect_refusals(refused, "cascade_guard", cases, HK_ARRAY_LEN(cases));
    static const rwf_refusal macro_case[] = {{"macro_", "macro", 8, "a macro (line 1) mentions `b1`"}};
    rwf_expect_refusals(refused_macro, "cascade_guard", macro_case, 1);
}

/* The wild three_nn alone and on the search's leader compiles for sm_90, and the leader's
 * PTX holds the guard's one compare (setp.geu: "not below best3") (queued). */
static void wild_three_nn_compiles(void **state)
{
    (void)state;
    char *src = rwf_wild_text("mmcv_three_nn_fwd", NULL);
    if (!src)
        return;
    static const char inst[] =
        "\ntemplate __global__ void three_nn_forward_cuda_kernel<float>(int, int, int, const float *, const float *, "
        "float *, int *);\n";
    static const char *const alone[] = {"cascade_guard"};
    static const char *const lead[] = {"uniform_tiles", "double_narrowing", "cascade_guard"};
    const char *k = "three_nn_forward_cuda_kernel";
    char *t[2] = {rewrite_chain(src, k, alone, 1), rewrite_chain(src, k, lead, 3)};
    static const rwf_ptx_want want = {.has = {"setp.geu.f32", "ld.shared.v4.f32"}, .lacks = {"cvt.f64.f32", "setp.lt.f64"}};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(t[i]) + sizeof inst;
        char *full = malloc(n);
        assert_non_null(full);
        snprintf(full, n, "%s%s", t[i], inst);
        if (i == 0)
            rwf_nvcc_compiles(full, "guard_wild_three_nn");
        else
            rwf_nvcc_ptx(full, "tiles_narrow_guard_wild_three_nn", rwf_ptx_has_lacks, &want);
        free(full);
        free(t[i]);
    }
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emitted_text),
        cmocka_unit_test(refusals),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(wild_three_nn_compiles),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
