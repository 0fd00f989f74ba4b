/* register_threshold run, not only compiled: a k-nearest scan with a max-heap in local
 * arrays (its own spelling: the root compared by every point, a sift through pointers with a
 * run-time k), and a two-bound band whose unbraced guard reads two elements and whose loop is
 * an if's body, against their rewrites in the block emulator (emu_block.h, one batched
 * program): distances and indices bit for bit, integer coordinates so that distances tie,
 * under three thread orders. A rewrite without its refresh must differ. Where
 * bench/wild/src is extracted, mmcv's knn, rewritten alone and stacked on uniform_tiles
 * (either order), runs bit for bit too and compiles with nvcc -arch=sm_90. Refusals name the
 * construct and line. */
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
    return rwf_setup("rewrites-thresh");
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

/* k nearest of n 2-D points for each of m queries: a max-heap of k in local arrays */
static const char heap[] =
    "__device__ void sift(float *v, int *id, int k)\n"
    "{\n"
    "    int p = 0;\n"
    "    for (;;) {\n"
    "        int c = 2 * p + 1;\n"
    "        if (c >= k)\n"
    "            break;\n"
    "        if (c + 1 < k && v[c + 1] > v[c])\n"
    "            c++;\n"
    "        if (v[p] >= v[c])\n"
    "            break;\n"
    "        float tv = v[p]; v[p] = v[c]; v[c] = tv;\n"
    "        int ti = id[p]; id[p] = id[c]; id[c] = ti;\n"
    "        p = c;\n"
    "    }\n"
    "}\n"
    "__global__ void nearest_k(int n, int m, int k, const float *q, const float *ref, float *dist, int *idx)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= m)\n"
    "        return;\n"
    "    float top[32];\n"
    "    int at[32];\n"
    "    for (int j = 0; j < k; j++) {\n"
    "        top[j] = 3.0e38f;\n"
    "        at[j] = -1;\n"
    "    }\n"
    "    const float qx = q[2 * t], qy = q[2 * t + 1];\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        const float dx = ref[2 * i] - qx, dy = ref[2 * i + 1] - qy;\n"
    "        const float d = dx * dx + dy * dy;\n"
    "        if (d < top[0]) {\n"
    "            top[0] = d;\n"
    "            at[0] = i;\n"
    "            sift(top, at, k);\n"
    "        }\n"
    "    }\n"
    "    for (int j = 0; j < k; j++) {\n"
    "        dist[t * k + j] = top[j];\n"
    "        idx[t * k + j] = at[j];\n"
    "    }\n"
    "}\n";

static const char heap_drv[] =
    "for (int n : {0, 1, 7, 300}) {\n"
    "    const int m = 100;\n"
    "    emu::buf<float> q(2 * m), ref(2 * n + 1);\n"
    "    q.fill_mod(3, 6); ref.fill_mod(4, 6);\n"
    "    for (int k : {1, 3, 8})\n"
    "        PAIR(float, m * k, m * k, emu::launch(dim3((m + 63) / 64), dim3(64), 0,\n"
    "             [&] { NS::nearest_k(n, m, k, q, ref, dist, idx); }));\n"
    "}\n";

/* a band of two bounds narrowed by the points inside it: an unbraced guard reading two
 * elements, a write at a run-time index in its branch, the loop the body of an if */
static const char band[] =
    "__global__ void band(int n, const float *x, float *dist, int *idx)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float lim[2];\n"
    "    lim[0] = x[t] - 2.0f;\n"
    "    lim[1] = x[t] + 2.0f;\n"
    "    int cnt = 0;\n"
    "    if (n > 0)\n"
    "        for (int i = 0; i < n; i++)\n"
    "            if (x[i] > lim[0] && x[i] < lim[1])\n"
    "                lim[(cnt++) & 1] = x[i] + ((cnt & 2) ? 0.25f : -0.25f);\n"
    "    dist[t] = lim[0] + lim[1];\n"
    "    idx[t] = cnt;\n"
    "}\n";

static const char band_drv[] =
    "for (int n : {0, 5, 64}) {\n"
    "    emu::buf<float> x(64);\n"
    "    x.fill_mod(5, 9);\n"
    "    PAIR(float, 64, 64, emu::launch(dim3(2), dim3(32), 0, [&] { NS::band(n, x, dist, idx); }));\n"
    "}\n";

static const char knn_drv[] =
    "const int b = 2, n = 300, m = 100;\n"
    "emu::buf<float> xyz(b * n * 3), nxyz(b * m * 3);\n"
    "xyz.fill_mod(15, 6); nxyz.fill_mod(16, 6);\n"
    "for (int ns : {1, 8, 16})\n"
    "    for (unsigned bl : {64u, 96u})\n"
    "        PAIR(float, b * m * ns, b * m * ns, emu::launch(dim3((m + bl - 1) / bl, b), dim3(bl), 0,\n"
    "             [&] { NS::knn_forward_cuda_kernel<float>(b, n, m, ns, xyz, nxyz, idx, dist); }));\n";

/* the header's include guard, defined by the original's copy, would hide the rewrite's */
static char *unguarded(const char *text)
{
    return emu_replaced(text, "#ifndef ", "#if 1 // ");
}

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *c1 = emu_rewrite(heap, "nearest_k", "register_threshold", NULL);
    emu_batch_add_pair(&batch, "heap", heap, c1, helpers, heap_drv, EMU_OK);
    /* without the refresh the copy keeps the first root: every later point goes in */
    char *broken = emu_replaced(c1, "  hk_thr_top_0 = top[0];", "");
    emu_batch_add_pair(&batch, "heap_no_refresh", heap, broken, helpers, heap_drv, EMU_DIFFERS);
    char *c2 = emu_rewrite(band, "band", "register_threshold", NULL);
    emu_batch_add_pair(&batch, "band", band, c2, helpers, band_drv, EMU_OK);
    char *src = rwf_wild_text("mmcv_knn_fwd", NULL);
    char *w[4] = {0};
    if (src) {
        char *t = emu_rewrite(src, "knn_forward_cuda_kernel", "register_threshold", NULL);
        w[0] = unguarded(t);
        free(t);
        emu_batch_add_pair(&batch, "wild_knn", src, w[0], helpers, knn_drv, EMU_OK);
        /* stacked on uniform_tiles (the search's "A+B") and the other way round */
        char *u = emu_rewrite(src, "knn_forward_cuda_kernel", "uniform_tiles", NULL);
        t = emu_rewrite(u, "knn_forward_cuda_kernel", "register_threshold", NULL);
        w[1] = unguarded(t);
        free(t);
        emu_batch_add_pair(&batch, "wild_knn_tiles_thr", src, w[1], helpers, knn_drv, EMU_OK);
        char *r = emu_rewrite(src, "knn_forward_cuda_kernel", "register_threshold", NULL);
        t = emu_rewrite(r, "knn_forward_cuda_kernel", "uniform_tiles", NULL);
        w[2] = unguarded(t);
        free(t);
        emu_batch_add_pair(&batch, "wild_knn_thr_tiles", src, w[2], helpers, knn_drv, EMU_OK);
        w[3] = emu_replaced(w[1], "  hk_thr_best_dist_0 = best_dist[0];", "");
        emu_batch_add_pair(&batch, "wild_knn_tiles_thr_no_refresh", src, w[3], helpers, knn_drv, EMU_DIFFERS);
        free(u);
        free(r);
    }
    emu_batch_run(&batch);
    free(c1);
    free(broken);
    free(c2);
    for (size_t i = 0; i < HK_ARRAY_LEN(w); i++)
        free(w[i]);
    free(src);
}

static void emitted_text(void **state)
{
    (void)state;
    char *t = emu_rewrite(heap, "nearest_k", "register_threshold", NULL);
    static const char *const want[] = {
        "float hk_thr_top_0 = top[0];\n    for (int i = 0; i < n; i++) {",
        "if (d < hk_thr_top_0) {",
        "sift(top, at, k);\n            hk_thr_top_0 = top[0];\n        }",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(t, want[i]))
            fail_msg("no `%s` in\n%s", want[i], t);
    /* the loop that fills the heap is not the guarded one: unchanged */
    assert_non_null(strstr(t, "top[j] = 3.0e38f;"));
    free(t);
    /* two elements, an unbraced branch, the loop wrapped with its copies */
    t = emu_rewrite(band, "band", "register_threshold", NULL);
    static const char *const want2[] = {
        "if (n > 0)\n        { /* hk rewrite: register_threshold",
        "float hk_thr_lim_0 = lim[0]; float hk_thr_lim_1 = lim[1];",
        "if (x[i] > hk_thr_lim_0 && x[i] < hk_thr_lim_1)",
        "{ lim[(cnt++) & 1] = x[i] + ((cnt & 2) ? 0.25f : -0.25f); hk_thr_lim_0 = lim[0]; hk_thr_lim_1 = lim[1]; } }",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want2); i++)
        if (!strstr(t, want2[i]))
            fail_msg("no `%s` in\n%s", want2[i], t);
    free(t);
}

static const char refused[] =
    "__global__ void no_loop(const float *x, float *o)\n"
    "{\n"
    "    float a[4];\n"
    "    a[0] = x[0];\n"
    "    if (x[1] < a[0])\n"
    "        a[0] = x[1];\n"
    "    o[0] = a[0];\n"
    "}\n"
    "__global__ void outside(int n, const float *x, float *o)\n"
    "{\n"
    "    float a[4];\n"
    "    a[0] = 1.0f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        if (x[i] < a[0])\n"
    "            a[0] = x[i];\n"
    "        a[0] *= 1.5f;\n"
    "    }\n"
    "    o[0] = a[0];\n"
    "}\n"
    "__global__ void skips(int n, const float *x, float *o)\n"
    "{\n"
    "    float a[4];\n"
    "    a[0] = 1.0f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        if (x[i] < a[0]) {\n"
    "            a[0] = x[i];\n"
    "            continue;\n"
    "        }\n"
    "    }\n"
    "    o[0] = a[0];\n"
    "}\n"
    "__global__ void running(int n, const float *x, float *o)\n"
    "{\n"
    "    float a[4];\n"
    "    a[0] = 1.0f;\n"
    "    for (int i = 0; i < n; i++)\n"
    "        if (x[i] < a[i & 3])\n"
    "            a[i & 3] = x[i];\n"
    "    o[0] = a[0];\n"
    "}\n"
    "__global__ void past(int n, const float *x, float *o)\n"
    "{\n"
    "    float a[4];\n"
    "    a[0] = 1.0f;\n"
    "    for (int i = 0; i < n; i++)\n"
    "        if (x[i] < a[4])\n"
    "            a[0] = x[i];\n"
    "    o[0] = a[0];\n"
    "}\n"
    "__global__ void shared_(int n, const float *x, float *o)\n"
    "{\n"
    "    __shared__ float a[4];\n"
    "    a[0] = 1.0f;\n"
    "    for (int i = 0; i < n; i++)\n"
    "        if (x[i] < a[0])\n"
    "            a[0] = x[i];\n"
    "    o[0] = a[0];\n"
    "}\n"
    "__device__ float *keep;\n"
    "__device__ void stash(float *p) { keep = p; }\n"
    "__device__ void poke(void) { keep[0] = 0.0f; }\n"
    "__global__ void escapes(int n, const float *x, float *o)\n"
    "{\n"
    "    float a[4];\n"
    "    a[0] = 1.0f;\n"
    "    stash(a);\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        if (x[i] < a[0])\n"
    "            a[0] = x[i];\n"
    "        poke();\n"
    "    }\n"
    "    o[0] = a[0];\n"
    "}\n"
    "__global__ void writes(int n, const float *x, float *o)\n"
    "{\n"
    "    float a[4];\n"
    "    a[0] = 1.0f;\n"
    "    for (int i = 0; i < n; i++)\n"
    "        if (x[i] < (a[0] += 1.0f))\n"
    "            a[0] = x[i];\n"
    "    o[0] = a[0];\n"
    "}\n";

static void refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"no_loop", "guard", 5, "in no loop"},
        {"outside", "array use", 16, "outside a guard's condition"},
        {"skips", "jump", 27, "continue leaves the branch"},
        {"running", "guard condition", 37, "literal index"},
        {"past", "guard condition", 46, "not within the array's literal size"},
        {"shared_", "array declaration", 52, "not a plain per-thread local array"},
        {"escapes", "call", 70, "could write through it"},
        {"writes", "guard condition", 79, "writes or calls"},
    };
    rwf_expect_refusals(refused, "register_threshold", cases, HK_ARRAY_LEN(cases));
}

/* The wild knn alone and stacked on uniform_tiles compiles for sm_90 (queued). */
static void wild_knn_compiles(void **state)
{
    (void)state;
    fixture fx;
    if (!rwf_load_wild("mmcv_knn_fwd", &fx))
        return;
    static const char inst[] =
        "\ntemplate __global__ void knn_forward_cuda_kernel<float>(int, int, int, int, const float *, const float *, "
        "int *, float *);\n";
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "knn_forward_cuda_kernel")};
    rw_result r, u, st;
    assert_int_equal(rw_apply_named("register_threshold", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_true(r.keeps_launch);
    assert_non_null(strstr(r.description, "best_dist[0], compared by 1 guard(s)"));
    rwf_nvcc_compiles_with(&r, inst, "thr", "wild_knn");
    assert_int_equal(rw_apply_named("uniform_tiles", &ctx, NULL, &u, NULL), HK_OK);
    assert_true(u.applicable);
    fixture f2;
    load_text(u.text, &f2);
    rw_context c2 = {.text = f2.text, .len = f2.len, .m = f2.m, .kernel = kernel(&f2, "knn_forward_cuda_kernel")};
    assert_int_equal(rw_apply_named("register_threshold", &c2, NULL, &st, NULL), HK_OK);
    assert_true(st.applicable);
    /* both guards of the tiled scan (full tile, last tile) read the copy */
    assert_non_null(strstr(st.description, "compared by 2 guard(s)"));
    rwf_nvcc_compiles_with(&st, inst, "tiles_thr", "wild_knn");
    rw_result_free(&r);
    rw_result_free(&u);
    rw_result_free(&st);
    unload(&f2);
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emitted_text),
        cmocka_unit_test(refusals),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(wild_knn_compiles),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
