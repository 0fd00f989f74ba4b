/* A kernel parameter that is the block size (issue 13, session 42): llm.c passes the block
 * to its block-per-row kernels as `int block_size` and runs the shared tree from
 * `block_size / 2`. Where the bench spec passes that parameter equal to the launch's block
 * along x at every size set (rw_spec_block_x_param), the kernel model reads it as
 * blockDim.x (km_build_with) and block_reduce rewrites the tree as it does for blockDim.x,
 * a macro or a template block size; without a spec, with another value at some size set,
 * a 2-D block, or a kernel that assigns the parameter, it refuses and names the parameter
 * and the tree loop's line. The same second pass of a two-pass standard deviation written
 * six ways (the parameter, blockDim.x, a macro, a template parameter; `+=` and fmaf) gets the
 * same verdict, and so does a one-block mean-and-variance kernel in its parameter and
 * blockDim.x spellings. The parameter's rewrite runs in the block emulator (emu_block.h)
 * against the original on blocks of two to sixteen warps and ragged rows, and its warp
 * step cut short must differ. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "model/kmodel.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_pattern.h"
#include "rewrites/rewrite_recognize.h"
#include "spec/spec.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "rw_fixture.h"
#include "core/buf.h"
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    if (rwf_setup("rewrites-block-param"))
        return -1;
    char path[700];   /* the specs' source (its text does not matter to them) */
    snprintf(path, sizeof path, "%s/k.cu", tmpdir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("__global__ void k(float *p) { p[0] = 0.0f; }\n", f);
    return fclose(f) ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* The second pass of a two-pass standard deviation (llm.c's rstd_kernel), six ways. The
 * tree loop is on line 13 of every one. */
#define STD_HEAD(name, extra)                                                                 \
    "__global__ void " name "(float *rstd, const float *inp, const float *mean, int N, int C" \
    extra ")\n"                                                                                \
    "{\n"                                                                                      \
    "    extern __shared__ float shared[];\n"                                                  \
    "    int idx = blockIdx.x;\n"                                                              \
    "    int tid = threadIdx.x;\n"                                                             \
    "    const float *x = inp + idx * C;\n"                                                    \
    "    float m = mean[idx];\n"                                                               \
    "    float sum = 0.0f;\n"

#define STD_TAIL(half)                                                     \
    "    shared[tid] = sum;\n"                                             \
    "    __syncthreads();\n"                                               \
    "    for (int stride = " half "; stride >= 1; stride /= 2) {\n"        \
    "        __syncthreads();\n"                                           \
    "        if (tid < stride)\n"                                          \
    "            shared[tid] += shared[tid + stride];\n"                   \
    "    }\n"                                                              \
    "    if (tid == 0)\n"                                                  \
    "        rstd[idx] = 1.0f / sqrtf(shared[0] / C + 1e-5f);\n"           \
    "}\n"

#define STD_SUM(step) \
    "    for (int i = tid; i < C; i += " step ") {\n        float diff = x[i] - m;\n        sum += diff * diff;\n    }\n"
#define STD_FMA(step) \
    "    for (int i = tid; i < C; i += " step ")\n        sum = fmaf(x[i] - m, x[i] - m, sum);\n"

static const char std_param[] = STD_HEAD("std_param", ", int block_size") STD_SUM("block_size") STD_TAIL("block_size / 2");
static const char std_dim[] = STD_HEAD("std_dim", "") STD_SUM("blockDim.x") STD_TAIL("blockDim.x / 2");
static const char std_macro[] = "#define STD_BS 512\n" STD_HEAD("std_macro", "") STD_SUM("STD_BS") STD_TAIL("STD_BS / 2");
static const char std_tpl[] = "template <int BS>\n" STD_HEAD("std_tpl", "") STD_SUM("BS") STD_TAIL("BS / 2");
static const char std_param_fma[] = STD_HEAD("std_param_fma", ", int block_size") STD_FMA("block_size") STD_TAIL("block_size / 2");
static const char std_dim_fma[] = STD_HEAD("std_dim_fma", "") STD_FMA("blockDim.x") STD_TAIL("blockDim.x >> 1");
/* the parameter assigned in the kernel: no longer what the launch passed */
static const char std_assigned[] = STD_HEAD("std_assigned", ", int block_size")
    "    block_size = block_size > 256 ? 256 : block_size;\n" STD_SUM("block_size") STD_TAIL("block_size / 2");

/* Both passes in one block: the mean by one tree, then the variance by a second over the
 * same shared array (a one-block layernorm's statistics). */
#define ONE_BLOCK(name, extra, bs)                                                       \
    "__global__ void " name "(float *rstd, const float *inp, int N, int C" extra ")\n"  \
    "{\n"                                                                                \
    "    extern __shared__ float sh[];\n"                                                \
    "    int tid = threadIdx.x;\n"                                                       \
    "    const float *x = inp + blockIdx.x * C;\n"                                       \
    "    float s = 0.0f;\n"                                                              \
    "    for (int i = tid; i < C; i += " bs ")\n"                                        \
    "        s += x[i];\n"                                                               \
    "    sh[tid] = s;\n"                                                                 \
    "    __syncthreads();\n"                                                             \
    "    for (int h = " bs " / 2; h > 0; h >>= 1) {\n"                                   \
    "        if (tid < h)\n"                                                             \
    "            sh[tid] += sh[tid + h];\n"                                              \
    "        __syncthreads();\n"                                                         \
    "    }\n"                                                                            \
    "    float m = sh[0] / C;\n"                                                         \
    "    __syncthreads();\n"                                                             \
    "    float v = 0.0f;\n"                                                              \
    "    for (int i = tid; i < C; i += " bs ")\n"                                        \
    "        v += (x[i] - m) * (x[i] - m);\n"                                            \
    "    sh[tid] = v;\n"                                                                 \
    "    __syncthreads();\n"                                                             \
    "    for (int h = " bs " / 2; h > 0; h >>= 1) {\n"                                   \
    "        if (tid < h)\n"                                                             \
    "            sh[tid] += sh[tid + h];\n"                                              \
    "        __syncthreads();\n"                                                         \
    "    }\n"                                                                            \
    "    if (tid == 0)\n"                                                                \
    "        rstd[blockIdx.x] = rsqrtf(sh[0] / C + 1e-5f);\n"                            \
    "}\n"
static const char one_param[] = ONE_BLOCK("one_param", ", int block_size", "block_size");
static const char one_dim[] = ONE_BLOCK("one_dim", "", "blockDim.x");

/* A harness spec for kernel kname (source file name src in tmpdir): sizes (a JSON array
 * body), the block, and the value of the kernel's last scalar bs_name (NULL: no such
 * argument); one_block: the kernel has no mean argument. New spec, or the test fails. */
static spec *make_spec(const char *kname, const char *src, const char *sizes, const char *block,
                       const char *bs_name, const char *bs_value, bool one_block)
{
    char text[3000], path[700];
    snprintf(path, sizeof path, "%s/%s.bench.json", tmpdir, kname);
    char bs[300] = "";
    if (bs_name)
        snprintf(bs, sizeof bs, ",\n  {\"name\": \"%s\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": %s}",
                 bs_name, bs_value);
    snprintf(text, sizeof text,
             "{\"name\": \"%s\", \"kernel\": \"%s\", \"source\": \"%s\",\n"
             " \"sizes\": [%s],\n"
             " \"args\": [{\"name\": \"rstd\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"N\"},\n"
             "  {\"name\": \"inp\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"N * C\"},\n"
             "%s"
             "  {\"name\": \"N\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"N\"},\n"
             "  {\"name\": \"C\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"C\"}%s],\n"
             " \"launch\": {\"grid\": \"N\", \"block\": %s, \"shmem\": \"4096\"},\n"
             " \"tolerance\": {\"rtol\": 1e-4, \"atol\": 1e-5}}\n",
             kname, kname, src, sizes,
             one_block ? "" : "  {\"name\": \"mean\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"N\"},\n", bs,
             block);
    spec *sp = NULL;
    spec_diags d = {0};
    int rc = spec_parse(text, strlen(text), path, &sp, &d);
    for (size_t i = 0; i < d.n; i++)
        print_message("spec: %s\n", d.items[i].message);
    spec_diags_free(&d);
    assert_int_equal(rc, HK_OK);
    assert_non_null(sp);
    return sp;
}

/* block_reduce through the registry on kname in text with spec sp (may be NULL). */
static void block_reduce(const char *text, const char *kname, const spec *sp, rw_result *r)
{
    fixture fx;
    load_text(text, &fx);
    const rw_descriptor *d = rw_find("block_reduce");
    assert_non_null(d);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname), .spec = sp};
    assert_int_equal(rw_apply(d, &ctx, NULL, r, NULL), HK_OK);
    unload(&fx);
}

static const char sizes2[] = "{\"N\": 64, \"C\": 768}, {\"N\": 7, \"C\": 771}";

/* The same computation six ways: all applicable, the tree replaced, the rest kept. */
static void test_same_verdict(void **state)
{
    (void)state;
    struct {
        const char *text, *name, *bs;
    } cases[] = {
        {std_param, "std_param", "block_size"}, {std_dim, "std_dim", NULL},
        {std_macro, "std_macro", NULL},         {std_tpl, "std_tpl", NULL},
        {std_param_fma, "std_param_fma", "block_size"}, {std_dim_fma, "std_dim_fma", NULL},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        spec *sp = make_spec(cases[i].name, "k.cu", sizes2, "512", cases[i].bs, "512", false);
        rw_result r;
        block_reduce(cases[i].text, cases[i].name, sp, &r);
        print_message("%s: %s\n", cases[i].name, r.applicable ? "applies" : r.description);
        assert_true(r.applicable);
        assert_non_null(strstr(r.text, "hk rewrite: block_reduce"));
        assert_null(strstr(r.text, "stride /= 2"));
        assert_non_null(strstr(r.text, "rstd[idx] = 1.0f / sqrtf(shared[0] / C + 1e-5f);"));
        rw_result_free(&r);
        spec_free(sp);
    }
    /* the parameter read as blockDim.x: the model's forms of the tree loop are
     * blockDim.x's (km_build_with), the same as the blockDim.x spelling's */
    const char *bx[] = {"block_size"};
    km_launch_facts facts = {.block_x_params = bx, .n_block_x_params = 1};
    km_kernel *kp = NULL, *kd = NULL;
    assert_int_equal(km_build_with(std_param, strlen(std_param), "std_param", &facts, &kp, NULL, 0), HK_OK);
    assert_int_equal(km_build(std_dim, strlen(std_dim), "std_dim", &kd, NULL, 0), HK_OK);
    size_t np, nd;
    const km_loop *lp = km_loops(kp, &np), *ld = km_loops(kd, &nd);
    assert_int_equal(np, nd);
    for (size_t l = 0; l < np; l++) {
        struct hk_buf a, b;
        hk_buf_init(&a, 4096);
        hk_buf_init(&b, 4096);
        assert_int_equal(km_form_print(kp, lp[l].start, &a), HK_OK);
        assert_int_equal(km_form_print(kp, lp[l].step, &a), HK_OK);
        assert_int_equal(km_form_print(kp, lp[l].bound, &a), HK_OK);
        assert_int_equal(km_form_print(kd, ld[l].start, &b), HK_OK);
        assert_int_equal(km_form_print(kd, ld[l].step, &b), HK_OK);
        assert_int_equal(km_form_print(kd, ld[l].bound, &b), HK_OK);
        print_message("loop %zu: %s | %s\n", l, a.data, b.data);
        assert_string_equal(a.data, b.data);
        assert_int_equal(lp[l].kind, ld[l].kind);
        hk_buf_free(&a);
        hk_buf_free(&b);
    }
    km_free(kp);
    km_free(kd);
    /* both passes in one block, two trees over one array: one verdict for both spellings
     * (session 43: both apply, each rewriting the two trees) */
    spec *sp = make_spec("one_param", "k.cu", sizes2, "512", "block_size", "512", true);
    spec *sd = make_spec("one_dim", "k.cu", sizes2, "512", NULL, NULL, true);
    rw_result rp, rd;
    block_reduce(one_param, "one_param", sp, &rp);
    block_reduce(one_dim, "one_dim", sd, &rd);
    print_message("one_param: %s\none_dim: %s\n", rp.applicable ? "applies" : rp.description,
                  rd.applicable ? "applies" : rd.description);
    assert_int_equal(rp.applicable, rd.applicable);
    assert_true(rp.applicable);
    assert_non_null(strstr(rp.text, "sh[0] = hk_acc;"));
    assert_string_equal(strstr(rp.description, "2 shared-memory trees"), strstr(rd.description, "2 shared-memory trees"));
    rw_result_free(&rp);
    rw_result_free(&rd);
    spec_free(sp);
    spec_free(sd);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Refused, naming the parameter and the tree loop's line (15) with the reason. */
static void refused(const char *text, const char *kname, const spec *sp, const char *want)
{
    rw_result r;
    block_reduce(text, kname, sp, &r);
    print_message("%s: %s\n", kname, r.applicable ? "applies" : r.description);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, "line 15: the tree loop runs over the kernel parameter block_size, not blockDim.x"));
    assert_non_null(strstr(r.description, want));
    rw_result_free(&r);
}

static void test_refusals(void **state)
{
    (void)state;
    /* no spec */
    refused(std_param, "std_param", NULL, "no harness spec says what the launch passes as block_size");
    /* another value */
    spec *sp = make_spec("std_param", "k.cu", sizes2, "512", "block_size", "256", false);
    refused(std_param, "std_param", sp, "the spec passes block_size = 256 with a block of 512 along x at size set 0");
    spec_free(sp);
    /* equal at the first size set only */
    sp = make_spec("std_param", "k.cu", "{\"N\": 64, \"C\": 768, \"B\": 512}, {\"N\": 7, \"C\": 771, \"B\": 256}",
                   "\"B\"", "block_size", "512", false);
    refused(std_param, "std_param", sp, "the spec passes block_size = 512 with a block of 256 along x at size set 1");
    spec_free(sp);
    /* a 2-D block */
    sp = make_spec("std_param", "k.cu", sizes2, "[512, 2]", "block_size", "512", false);
    refused(std_param, "std_param", sp, "the spec's block at size set 0 is 512x2x1, not 1-D");
    spec_free(sp);
    /* the kernel assigns it */
    sp = make_spec("std_assigned", "k.cu", sizes2, "512", "block_size", "512", false);
    rw_result r;
    block_reduce(std_assigned, "std_assigned", sp, &r);
    print_message("std_assigned: %s\n", r.applicable ? "applies" : r.description);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, "line 16: the tree loop runs over the kernel parameter block_size"));
    assert_non_null(strstr(r.description, "the kernel assigns block_size"));
    rw_result_free(&r);
    spec_free(sp);
    /* an expression of the sizes bound at every set: applies */
    sp = make_spec("std_param", "k.cu", "{\"N\": 64, \"C\": 768, \"B\": 512}, {\"N\": 7, \"C\": 771, \"B\": 128}",
                   "\"B\"", "block_size", "\"B\"", false);
    block_reduce(std_param, "std_param", sp, &r);
    assert_true(r.applicable);
    rw_result_free(&r);
    spec_free(sp);
    assert_int_equal(hk_alloc_live(), 0);
}

static const char emu_helpers[] =
    "#define PAIR(T, what, nout, rtol, scale, ...)                                   \\\n"
    "    for (int s = 0; s < 3; s++) {                                               \\\n"
    "        emu::schedule = s;                                                      \\\n"
    "        emu::buf<T> o_out(nout), c_out(nout);                                   \\\n"
    "        o_out.set(T(0));                                                        \\\n"
    "        c_out.set(T(0));                                                        \\\n"
    "        { namespace NS = orig; auto &out = o_out; __VA_ARGS__; }                \\\n"
    "        { namespace NS = cand; auto &out = c_out; __VA_ARGS__; }                \\\n"
    "        if (!emu::expect(what, o_out, c_out, rtol, scale))                      \\\n"
    "            printf(\"  (schedule %d)\\n\", s);                                   \\\n"
    "    }\n";

/* The parameter's rewrite against the original, launched as the harness launches it: the
 * block and the argument equal. */
static void test_emulated(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static emu_batch batch;
    emu_batch_init(&batch, tmpdir, "bparam");
    static const char drv[] =
        "for (unsigned b : {64u, 256u, 512u})\n"
        "    for (int C : {1, 300, 771}) {\n"
        "        const int N = 5;\n"
        "        emu::buf<float> x(N * C), mean(N);\n"
        "        x.fill(C + (int)b);\n"
        "        mean.fill(3);\n"
        "        PAIR(float, \"rstd\", N, 1e-5, 1.0, emu::launch(dim3(N), dim3(b), b * sizeof(float), [&] { NS::std_param(out, x, mean, N, C, (int)b); }));\n"
        "    }\n";
    for (int broken = 0; broken < 2; broken++) {
        spec *sp = make_spec("std_param", "k.cu", sizes2, "512", "block_size", "512", false);
        rw_result r;
        block_reduce(std_param, "std_param", sp, &r);
        assert_true(r.applicable);
        char *cand = strdup(r.text);
        assert_non_null(cand);
        if (broken) {   /* the warp step one short: the check must see it */
            char *at = strstr(cand, "hk_off = 16;");
            assert_non_null(at);
            memcpy(at, "hk_off = 8; ", 12);
        }
        emu_batch_add_pair(&batch, broken ? "bparam_broken" : "bparam", std_param, cand, emu_helpers, drv,
                           broken ? EMU_DIFFERS : EMU_OK);
        free(cand);
        rw_result_free(&r);
        spec_free(sp);
    }
    emu_batch_run(&batch);
}

/* ---- warp_row_tree: the block per row as one warp per row ---- */

/* The rewrite name on kname with spec sp (may be NULL), template arguments targs (may be
 * NULL) and params (may be NULL). */
static void apply_named(const char *text, const char *kname, const spec *sp, const char *rw, const char *const *targs,
                        const int *params, rw_result *r)
{
    fixture fx;
    load_text(text, &fx);
    const rw_descriptor *d = rw_find(rw);
    assert_non_null(d);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname), .spec = sp,
                      .template_args = targs, .n_template_args = targs ? 1 : 0};
    assert_int_equal(rw_apply(d, &ctx, params, r, NULL), HK_OK);
    unload(&fx);
}

/* A block-stride loop read by the thread elsewhere, a barrier of its own, two trees. */
static const char std_tid_read[] = STD_HEAD("std_tid_read", ", int block_size")
    "    if (tid < C) sum = x[tid] - x[tid];\n" STD_SUM("block_size") STD_TAIL("block_size / 2");
static const char std_cut[] = STD_HEAD("std_cut", "") STD_SUM("blockDim.x")
    "    if (tid < 32) shared[tid] = sum;\n    __syncthreads();\n"
    "    for (int stride = blockDim.x / 2; stride >= 1; stride /= 2) {\n        __syncthreads();\n"
    "        if (tid < stride)\n            shared[tid] += shared[tid + stride];\n    }\n"
    "    if (tid == 0)\n        rstd[idx] = shared[0];\n}\n";

/* the row through a macro: a rewrite of the body's tokens would leave it the block's */
static const char std_macro_row[] = "#define ROW_OF_BLOCK blockIdx.x\n" STD_HEAD("std_macro_row", "")
    "    const float *y = inp + ROW_OF_BLOCK * C;\n" STD_SUM("blockDim.x") STD_TAIL("blockDim.x / 2");

/* a count of the thread's own elements, read by thread 0 after the tree */
static const char std_count[] = STD_HEAD("std_count", "")
    "    int cnt = 0;\n"
    "    for (int i = tid; i < C; i += blockDim.x) {\n        float diff = x[i] - m;\n        sum += diff * diff;\n        cnt++;\n    }\n"
    STD_TAIL("blockDim.x / 2");

/* thread 0's own share read after the tree */
static const char std_share[] = STD_HEAD("std_share", "") STD_SUM("blockDim.x")
    "    shared[tid] = sum;\n    __syncthreads();\n"
    "    for (int stride = blockDim.x / 2; stride >= 1; stride /= 2) {\n        __syncthreads();\n"
    "        if (tid < stride)\n            shared[tid] += shared[tid + stride];\n    }\n"
    "    if (tid == 0)\n        rstd[idx] = shared[0] - sum;\n}\n";

/* a max tree over a stored sum: the block's largest partial sum, which depends on the block */
static const char std_maxtree[] = STD_HEAD("std_maxtree", "") STD_SUM("blockDim.x")
    "    shared[tid] = sum;\n    __syncthreads();\n"
    "    for (int stride = blockDim.x / 2; stride >= 1; stride /= 2) {\n        __syncthreads();\n"
    "        if (tid < stride)\n            shared[tid] = fmaxf(shared[tid], shared[tid + stride]);\n    }\n"
    "    if (tid == 0)\n        rstd[idx] = shared[0];\n}\n";

/* warp_row_tree refused on text at sp (NULL: no spec), its reason holding want; sp freed. */
static void wrt_refused(const char *text, const char *kname, spec *sp, const char *want)
{
    rw_result r;
    apply_named(text, kname, sp, "warp_row_tree", NULL, NULL, &r);
    print_message("%s: %s\n", kname, r.applicable ? "applies" : r.description);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, want));
    rw_result_free(&r);
    spec_free(sp);
}

static void test_warp_row_tree(void **state)
{
    (void)state;
    struct {
        const char *text, *name, *bs;
    } cases[] = {
        {std_param, "std_param", "block_size"}, {std_dim, "std_dim", NULL},
        {std_macro, "std_macro", NULL},         {std_tpl, "std_tpl", NULL},
        {std_param_fma, "std_param_fma", "block_size"}, {std_dim_fma, "std_dim_fma", NULL},
    };
    const char *targs[] = {"512"};
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        spec *sp = make_spec(cases[i].name, "k.cu", sizes2, "512", cases[i].bs, "512", false);
        rw_result r;
        apply_named(cases[i].text, cases[i].name, sp, "warp_row_tree", targs, NULL, &r);
        print_message("%s: %s\n", cases[i].name, r.description);
        assert_true(r.applicable);
        assert_int_equal(r.grid_divisor, 16);   /* 512 / 32 rows per block, N the grid */
        assert_false(r.keeps_launch);
        assert_non_null(strstr(r.text, "hk_row < (unsigned int)(N)"));
        assert_true(strstr(r.text, "i += 32)") || strstr(r.text, "i += 32u)"));   /* the parameter, or blockDim.x */
        assert_non_null(strstr(r.text, "__shfl_xor_sync"));
        assert_null(strstr(r.text, "__syncthreads"));
        assert_non_null(strstr(r.text, "rstd[idx] = 1.0f / sqrtf(hk_v / C + 1e-5f);"));
        rw_result_free(&r);
        /* keep_launch=1: the kernel's own launch, rows bounded by gridDim.x */
        const int keep[RW_MAX_PARAMS] = {1};
        apply_named(cases[i].text, cases[i].name, sp, "warp_row_tree", targs, keep, &r);
        assert_true(r.applicable);
        assert_true(r.keeps_launch);
        assert_int_equal(r.grid_divisor, 0);
        assert_non_null(strstr(r.text, "hk_row < (unsigned int)(gridDim.x)"));
        rw_result_free(&r);
        spec_free(sp);
    }
    /* the macro is the block size only where the spec's block is it: at 256 its loop is no
     * block-stride loop, and the thread read in its start is named */
    rw_result r;
    spec *sp;
    wrt_refused(std_macro, "std_macro",
                make_spec("std_macro", "k.cu", sizes2, "256", NULL, NULL, false),
                "line 10: tid is read where one warp per row would change its value");
    /* refusals, each naming the construct and line */
    apply_named(std_dim, "std_dim", NULL, "warp_row_tree", NULL, NULL, &r);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, "the spec's block along x is not a multiple of 32"));
    rw_result_free(&r);
    wrt_refused(std_dim, "std_dim",
                make_spec("std_dim", "k.cu", sizes2, "496", NULL, NULL, false),
                "not a multiple of 32");
    wrt_refused(std_tid_read, "std_tid_read",
                make_spec("std_tid_read", "k.cu", sizes2, "512", "block_size", "512", false),
                "line 9: tid is read where one warp per row would change its value");
    wrt_refused(std_cut, "std_cut",
                make_spec("std_cut", "k.cu", sizes2, "512", NULL, NULL, false),
                "");
    wrt_refused(std_macro_row, "std_macro_row",
                make_spec("std_macro_row", "k.cu", sizes2, "512", NULL, NULL, false),
                "line 10: ROW_OF_BLOCK reads the launch");
    wrt_refused(std_count, "std_count",
                make_spec("std_count", "k.cu", sizes2, "512", NULL, NULL, false),
                "line 13: the block-stride loop writes cnt");
    wrt_refused(std_share, "std_share",
                make_spec("std_share", "k.cu", sizes2, "512", NULL, NULL, false),
                "line 21: sum is read where one warp per row would change its value");
    wrt_refused(std_maxtree, "std_maxtree",
                make_spec("std_maxtree", "k.cu", sizes2, "512", NULL, NULL, false),
                "line 18: the tree over shared combines other than by a sum");
    /* both passes in one block: the same verdict in both spellings (session 43: block_reduce
     * rewrites both trees; warp_row_tree reads one block-stride loop and one tree) */
    sp = make_spec("one_param", "k.cu", sizes2, "512", "block_size", "512", true);
    spec *sd = make_spec("one_dim", "k.cu", sizes2, "512", NULL, NULL, true);
    rw_result rd;
    apply_named(one_param, "one_param", sp, "warp_row_tree", NULL, NULL, &r);
    apply_named(one_dim, "one_dim", sd, "warp_row_tree", NULL, NULL, &rd);
    print_message("one_param: %s\none_dim: %s\n", r.description, rd.description);
    assert_false(r.applicable);
    assert_false(rd.applicable);
    assert_non_null(strstr(r.description, "line 11: not the order of a block-per-row reduction over sh"));
    assert_string_equal(strstr(r.description, "line"), strstr(rd.description, "line"));
    rw_result_free(&r);
    rw_result_free(&rd);
    spec_free(sp);
    spec_free(sd);
    assert_int_equal(hk_alloc_live(), 0);
}

/* warp_row_tree run against the original: the divided grid (rows bounded by N), the
 * kernel's own launch, a grid one block short (the rows loop covers it), ragged rows; its
 * shuffle cut short and its rows bounded one short must differ. */
static void test_warp_row_tree_emulated(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static emu_batch batch;
    emu_batch_init(&batch, tmpdir, "wrt");
    static const char drv_fmt[] =
        "for (unsigned b : {64u, 256u, 512u})\n"
        "    for (int C : {1, 300, 771})\n"
        "        for (int s = 0; s < 3; s++) {\n"
        "            const int N = 37;\n"
        "            const unsigned rpb = b / 32, g = %s;\n"
        "            emu::schedule = s;\n"
        "            emu::buf<float> x(N * C), mean(N), o(N), c(N);\n"
        "            x.fill(C + (int)b);\n"
        "            mean.fill(3);\n"
        "            o.set(-7.0f);\n"
        "            c.set(-7.0f);\n"
        "            emu::launch(dim3(N), dim3(b), b * sizeof(float), [&] { orig::std_param(o, x, mean, N, C, (int)b); });\n"
        "            emu::launch(dim3(g), dim3(b), 0, [&] { cand::std_param(c, x, mean, N, C, (int)b); });\n"
        "            if (!emu::expect(\"rstd\", o, c, 1e-5, 1.0))\n"
        "                printf(\"  (b %%u, C %%d, schedule %%d)\\n\", b, C, s);\n"
        "        }\n";
    char divided[1400], kept[1400], short_grid[1400];
    snprintf(divided, sizeof divided, drv_fmt, "(N + rpb - 1) / rpb");
    snprintf(kept, sizeof kept, drv_fmt, "N");
    snprintf(short_grid, sizeof short_grid, drv_fmt, "N / rpb");
    spec *sp = make_spec("std_param", "k.cu", sizes2, "512", "block_size", "512", false);
    rw_result r, rk;
    apply_named(std_param, "std_param", sp, "warp_row_tree", NULL, NULL, &r);
    const int keep[RW_MAX_PARAMS] = {1};
    apply_named(std_param, "std_param", sp, "warp_row_tree", NULL, keep, &rk);
    assert_true(r.applicable);
    assert_true(rk.applicable);
    emu_batch_add_pair(&batch, "wrt_divided", std_param, r.text, "", divided, EMU_OK);
    emu_batch_add_pair(&batch, "wrt_kept", std_param, rk.text, "", kept, EMU_OK);
    char *fewer = strdup(r.text);   /* the rows bounded one short: the last row unwritten */
    assert_non_null(fewer);
    char *rb = strstr(fewer, "(unsigned int)(N)");
    assert_non_null(rb);
    memcpy(rb + 14, "N-1", 3);   /* (unsigned int)N-1 */
    emu_batch_add_pair(&batch, "wrt_rows_short", std_param, fewer, "", divided, EMU_DIFFERS);
    free(fewer);
    /* the grid one block short is still covered: the rows loop strides over the grid */
    emu_batch_add_pair(&batch, "wrt_short_grid", std_param, r.text, "", short_grid, EMU_OK);
    char *cut = strdup(r.text);
    assert_non_null(cut);
    char *at = strstr(cut, "hk_off = 16;");
    assert_non_null(at);
    memcpy(at, "hk_off = 8; ", 12);
    emu_batch_add_pair(&batch, "wrt_cut", std_param, cut, "", divided, EMU_DIFFERS);
    free(cut);
    rwf_nvcc_compiles(r.text, "wrt_std_param");
    rwf_nvcc_compiles(rk.text, "wrt_std_param_kept");
    rw_result_free(&r);
    rw_result_free(&rk);
    spec_free(sp);
    emu_batch_run(&batch);
}

/* Every applying text compiles for sm_90. */
static void test_nvcc_texts(void **state)
{
    (void)state;
    const char *texts[] = {std_param, std_param_fma};
    const char *names[] = {"std_param", "std_param_fma"};
    for (size_t i = 0; i < 2; i++) {
        spec *sp = make_spec(names[i], "k.cu", sizes2, "512", "block_size", "512", false);
        rw_result r;
        block_reduce(texts[i], names[i], sp, &r);
        assert_true(r.applicable);
        rwf_nvcc_compiles(r.text, names[i]);
        rw_result_free(&r);
        spec_free(sp);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_verdict),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_emulated),
        cmocka_unit_test(test_nvcc_texts),
        cmocka_unit_test(test_warp_row_tree),
        cmocka_unit_test(test_warp_row_tree_emulated),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
