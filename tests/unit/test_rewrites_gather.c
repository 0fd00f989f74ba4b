/* staged_gather run, not only compiled: a row gather of the gather_points shape (a loop macro,
 * parameters moved in the loop, a `return` in it, rows along blockIdx.y and z) and a two-tap
 * blend (a plain for loop, a row along blockIdx.y only) against their rewrites in the block
 * emulator (emu_block.h, one batched program: emu_batch.h) under three thread orders. The
 * original runs under its covering grid (one item per thread), the rewrite under the divided
 * grid the rewrite asks for, under the spec's and under one block per row: rows that fit the
 * 48 KB window and one that does not (13,000 floats), ragged item counts, gathers past the
 * row (into the next one), a grid with a row more than the kernel's guard admits (the copy is
 * made only where the kernel's own row guards hold), double elements: every output bit-identical. Without the
 * per-trip reset, or with the copy (its batched or its remainder loop) shifted by one, it must
 * differ. Kernels it must not take are refused with the construct and its line; the wild gather_points, group_points and
 * three_interpolate, rewritten under their specs, compile with nvcc -arch=sm_90 and (when
 * bench/wild/src is extracted) run bit-identical too. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "spec/spec.h"

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
    return rwf_setup("rewrites-gather");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* PAIR2(T, what, nout, OL, CL): the original launched by OL, the rewrite by CL (each a
 * statement using NS:: and `out`), under the three thread orders; outputs bit-identical. */
static const char helpers[] =
    "#define PAIR2(T, what, nout, OL, CL)                                            \\\n"
    "    for (int s = 0; s < 3; s++) {                                               \\\n"
    "        emu::schedule = s;                                                      \\\n"
    "        emu::buf<T> o_out(nout), c_out(nout);                                   \\\n"
    "        o_out.set(T(-7));                                                       \\\n"
    "        c_out.set(T(-7));                                                       \\\n"
    "        { namespace NS = orig; auto &out = o_out; OL; }                         \\\n"
    "        { namespace NS = cand; auto &out = c_out; CL; }                         \\\n"
    "        if (!emu::expect(what, o_out, c_out))                                   \\\n"
    "            printf(\"  (schedule %d)\\n\", s);                                   \\\n"
    "    }\n";

static emu_batch batch;

/* out[b, c, j] = src[b, c, sel[b, j]], the way gather_points spells it */
static const char pick[] =
    "#define ITEM_LOOP(i, n) \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "template <typename T>\n"
    "__global__ void pick_rows(int nb, int nc, int len, int cnt, const T *src,\n"
    "                          const int *__restrict__ sel, T *dst) {\n"
    "  int b = blockIdx.z;\n"
    "  int c = blockIdx.y;\n"
    "  ITEM_LOOP(j, cnt) {\n"
    "    if (b >= nb || c >= nc) return;\n"
    "    src += (b * nc + c) * len;\n"
    "    sel += b * cnt + j;\n"
    "    dst += (b * nc + c) * cnt + j;\n"
    "    dst[0] = src[sel[0]];\n"
    "  }\n"
    "}\n";

static const char pick_spec[] =
    "{\"kernel\": \"pick_rows\", \"source\": \"pick.cu\", \"template_args\": [\"float\"],\n"
    " \"sizes\": [{\"b\": 4, \"c\": 64, \"n\": 16384, \"m\": 8192}, {\"b\": 2, \"c\": 3, \"n\": 1000, \"m\": 301}],\n"
    " \"args\": [{\"name\": \"nb\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"b\"},\n"
    "          {\"name\": \"nc\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"c\"},\n"
    "          {\"name\": \"len\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
    "          {\"name\": \"cnt\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"m\"},\n"
    "          {\"name\": \"src\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"%s\"},\n"
    "          {\"name\": \"sel\", \"kind\": \"input\", \"dtype\": \"int32\", \"count\": \"b * m\", \"dist\": \"int(0,999)\"},\n"
    "          {\"name\": \"dst\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"b * c * m\"}],\n"
    " \"launch\": {\"grid\": [\"%s\", \"c\", \"b\"], \"block\": 256}}\n";

/* the original under its covering grid, the rewrite under grids gc of 1, the divided and the
 * spec's; T float and double; rows of 100 (fit), 13,000 (past the 12,288 floats of the
 * window), 50 with more items than elements; gathers in [0, 2 * len) reach the next row (the
 * buffer is one row longer) */
static const char pick_drv[] =
    "struct shp { int nb, nc, len, cnt, bs, range; };\n"
    "for (shp h : {shp{2, 3, 100, 37, 32, 100}, shp{1, 2, 13000, 700, 64, 13000}, shp{2, 2, 50, 301, 32, 100}})\n"
    "for (int gsel = 0; gsel < 3; gsel++) {\n"
    "    const int gx = (h.cnt + h.bs - 1) / h.bs;\n"
    "    const int gc = gsel == 0 ? 1 : gsel == 1 ? (gx + 15) / 16 : gx;\n"
    "    emu::buf<float> src((h.nb * h.nc + 1) * h.len);\n"
    "    src.fill(h.len + gsel);\n"
    "    emu::buf<int> sel(h.nb * h.cnt);\n"
    "    sel.fill_mod(h.cnt + gsel, h.range);\n"
    "    PAIR2(float, \"pick_rows\", h.nb * h.nc * h.cnt,\n"
    "          emu::launch(dim3(gx, h.nc + (gsel == 2), h.nb), dim3(h.bs), 0, [&] {\n"
    "              NS::pick_rows<float>(h.nb, h.nc, h.len, h.cnt, src, sel, out); }),\n"
    "          emu::launch(dim3(gc, h.nc + (gsel == 2), h.nb), dim3(h.bs), 0, [&] {\n"
    "              NS::pick_rows<float>(h.nb, h.nc, h.len, h.cnt, src, sel, out); }));\n"
    "    emu::buf<double> dsrc((h.nb * h.nc + 1) * h.len);\n"
    "    dsrc.fill(h.len + 7);\n"
    "    PAIR2(double, \"pick_rows<double>\", h.nb * h.nc * h.cnt,\n"
    "          emu::launch(dim3(gx, h.nc, h.nb), dim3(h.bs), 0, [&] {\n"
    "              NS::pick_rows<double>(h.nb, h.nc, h.len, h.cnt, dsrc, sel, out); }),\n"
    "          emu::launch(dim3(gc, h.nc, h.nb), dim3(h.bs), 0, [&] {\n"
    "              NS::pick_rows<double>(h.nb, h.nc, h.len, h.cnt, dsrc, sel, out); }));\n"
    "}\n";

/* one shape where a thread takes several items (the divided grid) */
static const char pick_one_drv[] =
    "{\n"
    "    const int nb = 1, nc = 2, len = 64, cnt = 100, bs = 32;\n"
    "    emu::buf<float> src(nb * nc * len);\n"
    "    src.fill(3);\n"
    "    emu::buf<int> sel(nb * cnt);\n"
    "    sel.fill_mod(5, len);\n"
    "    PAIR2(float, \"pick_rows\", nb * nc * cnt,\n"
    "          emu::launch(dim3(4, nc, nb), dim3(bs), 0, [&] { NS::pick_rows<float>(nb, nc, len, cnt, src, sel, out); }),\n"
    "          emu::launch(dim3(1, nc, nb), dim3(bs), 0, [&] { NS::pick_rows<float>(nb, nc, len, cnt, src, sel, out); }));\n"
    "}\n";

/* a plain for loop, two gathers per item into a row blockIdx.y picks, no moved pointer */
static const char blend[] =
    "__global__ void blend(int rows, int len, int cnt, const float *tab, const int *pos, const float *wt,\n"
    "                      float *res)\n"
    "{\n"
    "    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < cnt; j += blockDim.x * gridDim.x) {\n"
    "        int p0 = pos[2 * j], p1 = pos[2 * j + 1];\n"
    "        res[blockIdx.y * cnt + j] = wt[j] * tab[blockIdx.y * len + p0] + (1.0f - wt[j]) * tab[blockIdx.y * len + p1];\n"
    "    }\n"
    "}\n";

static const char blend_spec[] =
    "{\"kernel\": \"blend\", \"source\": \"blend.cu\",\n"
    " \"sizes\": [{\"r\": 64, \"n\": 4096, \"m\": 20000}, {\"r\": 3, \"n\": 77, \"m\": 1001}],\n"
    " \"args\": [{\"name\": \"rows\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"r\"},\n"
    "          {\"name\": \"len\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
    "          {\"name\": \"cnt\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"m\"},\n"
    "          {\"name\": \"tab\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"r * n\"},\n"
    "          {\"name\": \"pos\", \"kind\": \"input\", \"dtype\": \"int32\", \"count\": \"2 * m\", \"dist\": \"int(0,76)\"},\n"
    "          {\"name\": \"wt\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"m\"},\n"
    "          {\"name\": \"res\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"r * m\"}],\n"
    " \"launch\": {\"grid\": [\"%s\", \"r\"], \"block\": 128}}\n";

static const char blend_drv[] =
    "for (int len : {77, 20000})\n"
    "for (int gc : {1, 2, 8}) {\n"
    "    const int rows = 3, cnt = 1001, bs = 128;\n"
    "    emu::buf<float> tab(rows * len);\n"
    "    tab.fill(len);\n"
    "    emu::buf<int> pos(2 * cnt);\n"
    "    pos.fill_mod(gc, len);\n"
    "    emu::buf<float> wt(cnt);\n"
    "    wt.fill(11);\n"
    "    PAIR2(float, \"blend\", rows * cnt,\n"
    "          emu::launch(dim3(8, rows), dim3(bs), 0, [&] { NS::blend(rows, len, cnt, tab, pos, wt, out); }),\n"
    "          emu::launch(dim3(gc, rows), dim3(bs), 0, [&] { NS::blend(rows, len, cnt, tab, pos, wt, out); }));\n"
    "}\n";

/* A spec for text (spec_fmt with its %s filled by a and b) in tmpdir, parsed. */
static spec *make_spec(const char *fmt, const char *a, const char *b, const char *src_name, const char *src)
{
    char path[700], sp[700];
    snprintf(path, sizeof path, "%s/%s", tmpdir, src_name);
    rwf_write_file(path, src);
    char *json = hk_asprintf(fmt, a, b);
    assert_non_null(json);
    snprintf(sp, sizeof sp, "%s/%s.json", tmpdir, src_name);
    rwf_write_file(sp, json);
    free(json);
    spec *s = NULL;
    spec_diags d = {0};
    int rc = spec_load(sp, &s, &d);
    for (size_t i = 0; i < d.n; i++)
        print_message("spec: %s: %s\n", d.items[i].path, d.items[i].message);
    spec_diags_free(&d);
    assert_int_equal(rc, HK_OK);
    return s;
}

/* The rewrite of kname in src under spec sp: HK_OK and r filled (applicable or not). */
static void apply_with(const char *src, const char *kname, const spec *sp, rw_result *r)
{
    fixture fx;
    load_text(src, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname), .spec = sp};
    assert_int_equal(rw_apply_named("staged_gather", &ctx, NULL, r, NULL), HK_OK);
    unload(&fx);
}

static char *rewrite_with(const char *src, const char *kname, const spec *sp)
{
    rw_result r;
    apply_with(src, kname, sp, &r);
    if (!r.applicable)
        fail_msg("staged_gather of %s: %s", kname, r.description);
    char *t = strdup(r.text);
    assert_non_null(t);
    rw_result_free(&r);
    return t;
}

/* The wild kernels' shapes, small, run as the spec launches them (the original) and under the
 * divided grid (the rewrite); only where bench/wild/src is extracted. */
static const char wild_gather_drv[] =
    "for (int gsel = 0; gsel < 2; gsel++) {\n"
    "    const int b = 2, c = 3, n = 13001, m = 1001, bs = 128, gx = (m + bs - 1) / bs;\n"
    "    emu::buf<float> pts(b * c * n);\n"
    "    pts.fill(9);\n"
    "    emu::buf<int> idx(b * m);\n"
    "    idx.fill_mod(4, n);\n"
    "    PAIR2(float, \"gather_points\", b * c * m,\n"
    "          emu::launch(dim3(gx, c, b), dim3(bs), 0, [&] { NS::gather_points_forward_cuda_kernel<float>(b, c, n, m, pts, idx, out); }),\n"
    "          emu::launch(dim3(gsel ? (gx + 15) / 16 : gx, c, b), dim3(bs), 0, [&] { NS::gather_points_forward_cuda_kernel<float>(b, c, n, m, pts, idx, out); }));\n"
    "}\n";

static const char wild_group_drv[] =
    "{\n"
    "    const int b = 2, c = 3, n = 500, np = 101, ns = 8, bs = 128, gx = (np * ns + bs - 1) / bs;\n"
    "    emu::buf<float> pts(b * c * n);\n"
    "    pts.fill(5);\n"
    "    emu::buf<int> idx(b * np * ns);\n"
    "    idx.fill_mod(6, n);\n"
    "    PAIR2(float, \"group_points\", b * c * np * ns,\n"
    "          emu::launch(dim3(gx, c, b), dim3(bs), 0, [&] { NS::group_points_forward_cuda_kernel<float>(b, c, n, np, ns, pts, idx, out); }),\n"
    "          emu::launch(dim3((gx + 15) / 16, c, b), dim3(bs), 0, [&] { NS::group_points_forward_cuda_kernel<float>(b, c, n, np, ns, pts, idx, out); }));\n"
    "}\n";

static const char wild_three_drv[] =
    "{\n"
    "    const int b = 2, c = 3, m = 409, n = 1001, bs = 128, gx = (n + bs - 1) / bs;\n"
    "    emu::buf<float> pts(b * c * m);\n"
    "    pts.fill(2);\n"
    "    emu::buf<int> idx(b * n * 3);\n"
    "    idx.fill_mod(8, m);\n"
    "    emu::buf<float> w(b * n * 3);\n"
    "    w.fill(3);\n"
    "    PAIR2(float, \"three_interpolate\", b * c * n,\n"
    "          emu::launch(dim3(gx, c, b), dim3(bs), 0, [&] { NS::three_interpolate_forward_cuda_kernel<float>(b, c, m, n, pts, idx, w, out); }),\n"
    "          emu::launch(dim3((gx + 15) / 16, c, b), dim3(bs), 0, [&] { NS::three_interpolate_forward_cuda_kernel<float>(b, c, m, n, pts, idx, w, out); }));\n"
    "}\n";

typedef struct {
    const char *id, *kernel, *drv;
    const char *guard;   /* the header's include guard: both copies in one program need it gone */
} wild_case;

static const wild_case wild[] = {
    {"mmcv_gather_points_fwd", "gather_points_forward_cuda_kernel", wild_gather_drv,
     "#define GATHER_POINTS_CUDA_KERNEL_CUH\n"},
    {"mmcv_group_points_fwd", "group_points_forward_cuda_kernel", wild_group_drv, "#define GROUP_POINTS_CUDA_KERNEL_CUH\n"},
    {"mmcv_three_interpolate_fwd", "three_interpolate_forward_cuda_kernel", wild_three_drv,
     "#define THREE_INTERPOLATE_CUDA_KERNEL_CUH\n"},
};

static spec *wild_spec(const char *id)
{
    char path[700];
    snprintf(path, sizeof path, HK_TEST_DATA "/../../bench/wild/specs/%s.bench.json", id);
    spec *s = NULL;
    spec_diags d = {0};
    int rc = spec_load(path, &s, &d);
    spec_diags_free(&d);
    assert_int_equal(rc, HK_OK);
    return s;
}

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    spec *ps = make_spec(pick_spec, "b * c * n", "ceil_div(m, block_x)", "pick.cu", pick);
    char *cand = rewrite_with(pick, "pick_rows", ps);
    emu_batch_add_pair(&batch, "pick_rows", pick, cand, helpers, pick_drv, EMU_OK);
    /* without the reset, a thread's second item starts from its first item's row */
    char *noreset = emu_replaced(cand, "src = hk_sg_entry_src;", "");
    emu_batch_add_pair(&batch, "pick_noreset", pick, noreset, helpers, pick_one_drv, EMU_DIFFERS);
    free(noreset);
    char *shifted = emu_replaced(cand, "hk_sg_s[hk_sg_t] = hk_sg_w[hk_sg_t];", "hk_sg_s[hk_sg_t] = hk_sg_w[hk_sg_t + 1];");
    emu_batch_add_pair(&batch, "pick_shifted", pick, shifted, helpers, pick_one_drv, EMU_DIFFERS);
    free(shifted);
    /* the batched copy (8 loads a thread at once) shifted: rows of 13,000 take that path */
    char *bshift = emu_replaced(cand, "hk_sg_v[hk_sg_u] = hk_sg_w[hk_sg_t + hk_sg_u * hk_sg_step];",
                                "hk_sg_v[hk_sg_u] = hk_sg_w[hk_sg_t + hk_sg_u * hk_sg_step + 1];");
    emu_batch_add_pair(&batch, "pick_batch_shifted", pick, bshift, helpers, pick_drv, EMU_DIFFERS);
    free(bshift);
    free(cand);
    spec_free(ps);
    spec *bs = make_spec(blend_spec, "ceil_div(m, block_x)", "", "blend.cu", blend);
    char *bc = rewrite_with(blend, "blend", bs);
    emu_batch_add_pair(&batch, "blend", blend, bc, helpers, blend_drv, EMU_OK);
    free(bc);
    spec_free(bs);
    for (size_t i = 0; i < HK_ARRAY_LEN(wild); i++) {
        fixture fx;
        if (!rwf_load_wild(wild[i].id, &fx))
            continue;
        spec *ws = wild_spec(wild[i].id);
        char *wc = rewrite_with(fx.text, wild[i].kernel, ws);
        char *o2 = emu_replaced(fx.text, wild[i].guard, "\n"), *c2 = emu_replaced(wc, wild[i].guard, "\n");
        emu_batch_add_pair(&batch, wild[i].id, o2, c2, helpers, wild[i].drv, EMU_OK);
        free(o2);
        free(c2);
        free(wc);
        spec_free(ws);
        unload(&fx);
    }
    emu_batch_run(&batch);
}

/* The emitted text: the window, the copy, the resets, the loads; the grid divided. */
static void emitted_text(void **state)
{
    (void)state;
    spec *ps = make_spec(pick_spec, "b * c * n", "ceil_div(m, block_x)", "pick.cu", pick);
    rw_result r;
    apply_with(pick, "pick_rows", ps, &r);
    assert_true(r.applicable);
    static const char *const want[] = {
        "__shared__ unsigned long long hk_sg_raw[((16384ull * sizeof(T) < 49144ull) ? 16384ull * sizeof(T) : "
        "49144ull) / 8 + 1];",
        "const bool hk_sg_row = ((long long)(nb) > (long long)blockIdx.z) && ((long long)(nc) > (long long)blockIdx.y);",
        "const T *const hk_sg_w = src + (hk_sg_row ? ((long long)blockIdx.y * (long long)(len) + (long long)blockIdx.z * "
        "(long long)(len) * (long long)(nc)) : 0);",
        "const long long hk_sg_len = hk_sg_row ? (long long)((long long)(len)) : 0;",
        "hk_sg_v[hk_sg_u] = hk_sg_w[hk_sg_t + hk_sg_u * hk_sg_step];",
        "hk_sg_s[hk_sg_t] = hk_sg_w[hk_sg_t];\n    }\n    __syncthreads();",
        "  /* hk: the values every trip starts from (staged_gather) */\n  decltype(src) const hk_sg_entry_src = src;\n",
        "  decltype(dst) const hk_sg_entry_dst = dst;\n  ITEM_LOOP(j, cnt) {",
        "src = hk_sg_entry_src;",
        "if (b >= nb || c >= nc) continue;",
        "dst[0] = hk_sg_load(hk_sg_s, hk_sg_w, hk_sg_n, &src[sel[0]]);",
        "return d < n ? s[d] : *p;",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(r.text, want[i]))
            fail_msg("no `%s` in\n%s", want[i], r.text);
    /* the spec's grid.x is 32 at its largest set: 16 items per thread */
    assert_int_equal(r.grid_divisor, 16);
    assert_int_equal(r.grid_axis, 0);
    /* items 8: the spec's 32 blocks along x become 4 */
    {
        fixture f8;
        load_text(pick, &f8);
        rw_context c8 = {.text = f8.text, .len = f8.len, .m = f8.m, .kernel = kernel(&f8, "pick_rows"), .spec = ps};
        static const int eight[RW_MAX_PARAMS] = {8};
        rw_result r8;
        assert_int_equal(rw_apply_named("staged_gather", &c8, eight, &r8, NULL), HK_OK);
        assert_true(r8.applicable);
        assert_int_equal(r8.grid_divisor, 8);
        rw_result_free(&r8);
        unload(&f8);
    }
    /* a second application finds its own names */
    fixture fx;
    load_text(r.text, &fx);
    rw_context c2 = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "pick_rows"), .spec = ps};
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("staged_gather"), &c2, NULL, &why), HK_OK);
    assert_non_null(strstr(why.reason, "stages its rows already"));
    unload(&fx);
    rw_result_free(&r);
    /* a grid of 4 blocks along x at the largest set (blend moves no pointer and does not
     * return: several items per thread in the spec's launch are fine): divided by 4 */
    spec *small = make_spec(blend_spec, "4", "", "blend.cu", blend);
    apply_with(blend, "blend", small, &r);
    assert_true(r.applicable);
    assert_int_equal(r.grid_divisor, 4);
    rw_result_free(&r);
    spec_free(small);
    spec_free(ps);
}

static const char refused[] =
    "#define ITEM_LOOP(i, n) \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "__global__ void rowcopy(int len, int cnt, const float *src, float *dst) {\n"
    "  ITEM_LOOP(j, cnt) {\n"
    "    dst[blockIdx.y * cnt + j] = src[blockIdx.y * len + j];\n"
    "  }\n"
    "}\n"
    "__global__ void lanes(int len, int cnt, const float *src, const int *sel, float *dst) {\n"
    "  ITEM_LOOP(j, cnt) {\n"
    "    dst[blockIdx.y * cnt + j] = src[blockIdx.y * len + sel[j]] + threadIdx.x;\n"
    "  }\n"
    "}\n"
    "__global__ void scatter(int len, int cnt, const float *src, const int *sel, float *dst) {\n"
    "  ITEM_LOOP(j, cnt) {\n"
    "    atomicAdd(dst + blockIdx.y * len + sel[j], src[blockIdx.y * len + sel[j]]);\n"
    "  }\n"
    "}\n"
    "__global__ void stops(int len, int cnt, const float *src, const int *sel, float *dst) {\n"
    "  ITEM_LOOP(j, cnt) {\n"
    "    if (sel[j] < 0) break;\n"
    "    dst[blockIdx.y * cnt + j] = src[blockIdx.y * len + sel[j]];\n"
    "  }\n"
    "}\n"
    "__global__ void flat(int cnt, const float *src, const int *sel, float *dst) {\n"
    "  ITEM_LOOP(j, cnt) {\n"
    "    dst[j] = src[sel[j]];\n"
    "  }\n"
    "}\n"
    "__global__ void carry(int len, int cnt, const float *src, const int *sel, float *dst) {\n"
    "  float last = 0;\n"
    "  ITEM_LOOP(j, cnt) {\n"
    "    last = src[blockIdx.y * len + sel[j]];\n"
    "    dst[blockIdx.y * cnt + j] = last;\n"
    "  }\n"
    "}\n"
    "__global__ void nospec(int len, int cnt, const float *src, const int *sel, float *dst) {\n"
    "  ITEM_LOOP(j, cnt) {\n"
    "    dst[blockIdx.y * cnt + j] = src[blockIdx.y * len + sel[j]];\n"
    "  }\n"
    "}\n"
    "__global__ void aliased(int len, int cnt, const float *src, const int *sel, float *dst) {\n"
    "  ITEM_LOOP(j, cnt) {\n"
    "    dst[blockIdx.y * cnt + j] = src[blockIdx.y * len + sel[j]];\n"
    "  }\n"
    "}\n"
    "void launch(float *buf, const int *sel, int n) { aliased<<<dim3(1, 4), 64>>>(n, n, buf, sel, buf); }\n"
    "#define TID (threadIdx.x + 0)\n"
    "__global__ void hidden(int len, int cnt, const float *src, const int *sel, float *dst) {\n"
    "  ITEM_LOOP(j, cnt) {\n"
    "    dst[blockIdx.y * cnt + j] = src[blockIdx.y * len + sel[j]] + TID;\n"
    "  }\n"
    "}\n"
    "__device__ int lane_of(int j);\n"
    "__global__ void opaque(int len, int cnt, const float *src, const int *sel, float *dst) {\n"
    "  int l = lane_of(0);\n"
    "  ITEM_LOOP(j, cnt) {\n"
    "    dst[blockIdx.y * cnt + j] = src[blockIdx.y * len + sel[j]] + l;\n"
    "  }\n"
    "}\n";

static void refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"rowcopy", "gather", 5, "not a gather into a row"},
        {"lanes", "thread index", 10, "`threadIdx` in the loop"},
        {"scatter", "atomic", 15, "`atomicAdd` in the loop"},
        {"stops", "early exit", 20, "`break` leaves the loop"},
        {"flat", "gather", 26, "does not depend on blockIdx.y or blockIdx.z"},
        {"carry", "write", 32, "`last` is declared outside the loop"},
        {"nospec", "spec", 38, "no harness-form bench spec"},
        {"aliased", "store", 43, "passes `buf` as both dst and src"},
        {"hidden", "macro", 50, "`TID` in the loop is a macro of the file"},
        {"opaque", "call", 55, "`lane_of(...)` before the loop"},
    };
    rwf_expect_refusals(refused, "staged_gather", cases, HK_ARRAY_LEN(cases));
    /* what the spec says: too few gathers per row, a buffer shorter than its rows, a launch
     * with several items per thread while the body moves its pointers */
    static const struct {
        const char *count, *grid, *words;
    } sp[] = {
        {"b * c * n - 1", "ceil_div(m, block_x)", "leaves its"},
        {"b * c * n", "1", "a thread runs several trips"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(sp); i++) {
        spec *s = make_spec(pick_spec, sp[i].count, sp[i].grid, "pick.cu", pick);
        rw_result r;
        apply_with(pick, "pick_rows", s, &r);
        assert_false(r.applicable);
        if (!strstr(r.description, sp[i].words) || !strstr(r.description, "spec at line 13"))
            fail_msg("wanted \"%s\" (spec at line 13): %s", sp[i].words, r.description);
        rw_result_free(&r);
        spec_free(s);
    }
    char *sparse = strdup(blend_spec);
    assert_non_null(sparse);
    char *m = strstr(sparse, "\"m\": 20000");
    assert_non_null(m);
    memcpy(m, "\"m\":   100", 10);
    spec *s = make_spec(sparse, "ceil_div(m, block_x)", "", "blend.cu", blend);
    free(sparse);
    rw_result r;
    apply_with(blend, "blend", s, &r);
    assert_false(r.applicable);
    if (!strstr(r.description, "fewer than one per 8 elements"))
        fail_msg("%s", r.description);
    rw_result_free(&r);
    spec_free(s);
}

/* The wild suite's three gathers, rewritten under their own specs, compile for sm_90
 * (skipped when bench/wild/src is not extracted); gather_points' backward kernel (atomics)
 * is refused. */
static void wild_kernels(void **state)
{
    (void)state;
    static const char *const inst[] = {
        "template __global__ void gather_points_forward_cuda_kernel<float>(int, int, int, int, const float *, const "
        "int *, float *);\n",
        "template __global__ void group_points_forward_cuda_kernel<float>(int, int, int, int, int, const float *, "
        "const int *, float *);\n",
        "template __global__ void three_interpolate_forward_cuda_kernel<float>(int, int, int, int, const float *, "
        "const int *, const float *, float *);\n",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(wild); i++) {
        fixture fx;
        if (!rwf_load_wild(wild[i].id, &fx))
            return;
        spec *ws = wild_spec(wild[i].id);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, wild[i].kernel), .spec = ws};
        rw_result r;
        assert_int_equal(rw_apply_named("staged_gather", &ctx, NULL, &r, NULL), HK_OK);
        if (!r.applicable)
            fail_msg("%s: %s", wild[i].id, r.description);
        assert_int_equal(r.grid_divisor, 16);
        rwf_nvcc_compiles_with(&r, inst[i], "gather", wild[i].id);
        rw_result_free(&r);
        if (i == 0) {
            rw_context cb = {.text = fx.text, .len = fx.len, .m = fx.m,
                             .kernel = kernel(&fx, "gather_points_backward_cuda_kernel"), .spec = ws};
            assert_int_equal(rw_apply_named("staged_gather", &cb, NULL, &r, NULL), HK_OK);
            assert_false(r.applicable);
            assert_non_null(strstr(r.description, "atomicAdd"));
            rw_result_free(&r);
        }
        spec_free(ws);
        unload(&fx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emitted_text),
        cmocka_unit_test(refusals),
        cmocka_unit_test(wild_kernels),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(rwf_nvcc_queued),   /* last: the compile checks queued above */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
