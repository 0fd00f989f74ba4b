/* channel_chunks computes each element's floats as nvcc computes them in the original: the
 * float op chains (ptx_chains.h) of the rewritten kernel's PTX (nvcc -arch=sm_90 -ptx; each
 * test's texts compiled in few nvcc runs, each text's own PTX cut back out: nvcc_batch.h)
 * are all chains of the original's. On the H200 (session 28) the lockstep roi_align picked
 * another sample as the argmax of one output in 25 M: with bilinear_interpolate inlined into
 * the chunk, nvcc fused w1 * v1 into the fma and left w2 * v2 a product; in the original it
 * does the reverse. A planted candidate with that contraction written out is rejected.
 * The wild suite's channel_chunks kernels (bench/wild/src, when extracted): roi_align,
 * carafe and deform_im2col have no chain the original lacks; bbox_overlaps has (nvcc fuses
 * `b1_area + b2_area` in the original only: the ious differ by an ulp, a value no comparison
 * selects), printed. An element that selects by comparing floats it computes per element
 * with a product and a sum of its own is refused. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "spec/spec.h"
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
#include "chunks_fixture.h"
#include "ptx_chains.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-chunks-ptx");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* Queues text with `inst` appended (an explicit instantiation) for its PTX as TAG
 * (nvcc -arch=sm_90 -ptx; -O3 changes only host code, which -ptx does not compile): the
 * queue is compiled by compile_queued in few nvcc runs (nvcc_batch.h), each text's own PTX
 * cut back out of its batch's. */
static void queue_ptx(const char *text, const char *inst, const char *tag)
{
    size_t n = strlen(text) + strlen(inst) + 2;
    char *full = malloc(n);
    assert_non_null(full);
    snprintf(full, n, "%s\n%s", text, inst);
    nvb_add_ptx(tmpdir, tag, full, strlen(full), false, NULL, NULL);
    free(full);
}

/* Compiles the queued texts; fails naming a text that fails alone (nvcc's messages above). */
static void compile_queued(void)
{
    long failed = nvb_check_all(tmpdir);
    for (size_t i = 0; i < nvb_n_jobs; i++)
        if (nvb_jobs[i].failed)
            print_message("%s: nvcc -ptx failed\n", nvb_jobs[i].name);
    assert_int_equal(failed, 0);
}

/* The chains of kernel kname in the PTX of queued text tag (after compile_queued). */
static void chains_of(const char *tag, const char *kname, pxc_kernel *k)
{
    const char *p = nvb_ptx(tag);
    if (!p)
        fail_msg("%s: no PTX", tag);
    if (ptx_chains(p, kname, k))
        fail_msg("%s: no .entry %s in the PTX", tag, kname);
}

/* The chains of the queued text cand's kernel that the queued orig's lack (printed). */
static size_t extra_chains(const char *orig, const char *cand, const char *kname)
{
    pxc_kernel a, b;
    chains_of(orig, kname, &a);
    chains_of(cand, kname, &b);
    assert_true(a.n_chains > 0);
    print_message("%s: %zu chains in the original, %zu in the rewrite\n", cand, a.n_chains, b.n_chains);
    size_t n = ptx_chains_extra(&a, &b, stdout);
    ptx_chains_free(&a);
    ptx_chains_free(&b);
    return n;
}

static const char roi_inst[] = "static auto hk_inst = &roi_align_forward_cuda_kernel<float>;\n";

/* the contraction the H200 run's candidate had: w1 * v1 fused into the fma, w2 * v2 a product */
static const char plant_from[] = "T val = (w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4);";
static const char plant_to[] = "T val = (__fmaf_rn(w1, v1, __fmul_rn(w2, v2)) + w3 * v3 + w4 * v4);";

/* roi_align (the fixture) at C_K 4, 8 and 16: no chain the original lacks; the planted
 * contraction has one. The original, the three rewrites and the planted one: 5 texts, one
 * queue. */
static void roi_align_chains(void **state)
{
    (void)state;
    if (access(NVCC, X_OK) != 0)
        skip();
    static const int cks[][RW_MAX_PARAMS] = {{8}, {4}, {16}};
    nvb_reset(); /* nothing a failed test left */
    queue_ptx(roi_align, roi_inst, "roi_align_orig");
    for (size_t i = 0; i < HK_ARRAY_LEN(cks); i++) {
        char *cand = emu_rewrite(roi_align, "roi_align_forward_cuda_kernel", "channel_chunks", cks[i]);
        assert_non_null(strstr(cand, "= bilinear_interpolate ("));
        char tag[64];
        snprintf(tag, sizeof tag, "roi_align_ck%d", cks[i][0]);
        queue_ptx(cand, roi_inst, tag);
        if (i == 0) {
            char *bad = emu_replaced(cand, plant_from, plant_to);
            queue_ptx(bad, roi_inst, "roi_align_planted");
            free(bad);
        }
        free(cand);
    }
    compile_queued();
    for (size_t i = 0; i < HK_ARRAY_LEN(cks); i++) {
        char tag[64];
        snprintf(tag, sizeof tag, "roi_align_ck%d", cks[i][0]);
        size_t n = extra_chains("roi_align_orig", tag, "roi_align_forward_cuda_kernel");
        if (n)
            fail_msg("%s: %zu float chains the original does not compute", tag, n);
    }
    assert_true(extra_chains("roi_align_orig", "roi_align_planted", "roi_align_forward_cuda_kernel") > 0);
    nvb_reset();
}

/* The wild suite's channel_chunks kernels at chunk 0 on an H200 (what the search proposes). */
static void wild_chains(void **state)
{
    (void)state;
    if (access(NVCC, X_OK) != 0)
        skip();
    static const struct {
        const char *id, *kernel;
        bool exact;
    } cases[] = {
        {"mmcv_roi_align_fwd", "roi_align_forward_cuda_kernel", true},
        {"mmcv_roi_pool_fwd", "roi_pool_forward_cuda_kernel", true},
        {"mmcv_carafe_naive_fwd", "carafe_naive_forward_cuda_kernel", true},
        {"mmcv_deform_im2col", "deformable_im2col_gpu_kernel", true},
        {"mmcv_bbox_overlaps", "bbox_overlaps_cuda_kernel", false},
        {"mmcv_roi_align_rotated_fwd", "roi_align_rotated_forward_cuda_kernel", false},
        {"mmcv_prroi_pool_fwd", "prroi_pool_forward_cuda_kernel", false},
    };
    bool queued[HK_ARRAY_LEN(cases)] = {false};
    nvb_reset(); /* nothing a failed test left */
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        fixture fx;
        spec *sp;
        rw_result r;
        if (!chunks_on_wild(cases[i].id, cases[i].kernel, 132, 64, &fx, &sp, &r))
            break; /* no wild sources: nothing queued */
        if (!r.applicable)
            fail_msg("%s: %s", cases[i].id, r.description);
        char inst[300], tag[200];
        snprintf(inst, sizeof inst, "static auto hk_inst = &%s<float>;\n", cases[i].kernel);
        snprintf(tag, sizeof tag, "%s_orig", cases[i].id);
        queue_ptx(fx.text, inst, tag);
        snprintf(tag, sizeof tag, "%s_cand", cases[i].id);
        queue_ptx(r.text, inst, tag);
        queued[i] = true;
        rw_result_free(&r);
        spec_free(sp);
        unload(&fx);
    }
    compile_queued();
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        if (!queued[i])
            continue;
        char orig[200], cand[200];
        snprintf(orig, sizeof orig, "%s_orig", cases[i].id);
        snprintf(cand, sizeof cand, "%s_cand", cases[i].id);
        size_t n = extra_chains(orig, cand, cases[i].kernel);
        if (cases[i].exact && n)
            fail_msg("%s: %zu float chains the original does not compute", cases[i].id, n);
        if (!cases[i].exact)
            print_message("%s: %zu chains differ (no float selection: an ulp in a value)\n", cases[i].id, n);
    }
    nvb_reset();
}

/* The text of rewrite name on fx's kernel kname under sp (new; NULL when it does not apply). */
static char *applied(const fixture *fx, const char *kname, const spec *sp, const char *name, bool *keeps)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = kernel(fx, kname),
                      .spec = sp, .sm_count = 132, .warps_per_sm = 64};
    rw_result r;
    assert_int_equal(rw_apply_named(name, &ctx, NULL, &r, NULL), HK_OK);
    char *t = r.applicable ? strdup(r.text) : NULL;
    if (keeps)
        *keeps = r.keeps_launch;
    rw_result_free(&r);
    return t;
}

/* first's text, then specialize_constants on it re-modelled as the search's stack does
 * (session 49: specialize_constants stacks, keeping the launch); new, or NULL. */
static char *stacked_on(const fixture *fx, const char *kname, const spec *sp, const char *first)
{
    char *a = applied(fx, kname, sp, first, NULL);
    if (!a)
        return NULL;
    fixture fa;
    load_text(a, &fa);
    free(a);
    bool keeps = false;
    char *t = applied(&fa, kname, sp, "specialize_constants", &keeps);
    if (t)
        assert_true(keeps);
    unload(&fa);
    return t;
}

/* Whether chain c is one of k's (sorted, distinct). */
static bool has_chain(const pxc_kernel *k, const char *c)
{
    return bsearch(&c, k->chains, k->n_chains, sizeof *k->chains, pxc_cmp) != NULL;
}

/* The stacked candidates session 49 adds on the wild ROI kernels (fast_divmod +
 * specialize_constants, channel_chunks at chunk 0 + specialize_constants): nvcc computes no
 * float chain in the stack that neither the original nor one of its two rewrites alone
 * computes. (specialize_constants alone is not chain-identical to the original: its
 * unrolled sample loop multiplies the constants 0.5 and 1.5 into the positions and divides
 * the average by 4 as a product by 0.25, powers of two and exact products the chains do not
 * equate; fast_divmod's magic numbers take a double division. Both rewrites alone were
 * measured and accepted by the referee; this checks only what stacking adds.) */
static void wild_stacked_chains(void **state)
{
    (void)state;
    if (access(NVCC, X_OK) != 0)
        skip();
    static const struct {
        const char *id, *kernel, *first;
    } cases[] = {
        {"mmcv_roi_align_fwd", "roi_align_forward_cuda_kernel", "fast_divmod"},
        {"mmcv_roi_align_fwd", "roi_align_forward_cuda_kernel", "channel_chunks"},
        {"mmcv_deform_roi_pool_fwd", "deform_roi_pool_forward_cuda_kernel", "fast_divmod"},
        {"mmcv_roi_align_rotated_fwd", "roi_align_rotated_forward_cuda_kernel", "fast_divmod"},
        {"mmcv_roi_pool_fwd", "roi_pool_forward_cuda_kernel", "fast_divmod"},
        {"mmcv_prroi_pool_fwd", "prroi_pool_forward_cuda_kernel", "fast_divmod"},
    };
    static const char *const part[] = {"orig", "first", "sc", "stack"};
    bool queued[HK_ARRAY_LEN(cases)] = {false};
    nvb_reset();
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        fixture fx;
        if (!rwf_load_wild(cases[i].id, &fx))
            break; /* no wild sources: nothing queued */
        char path[700];
        snprintf(path, sizeof path, HK_TEST_DATA "/../../bench/wild/specs/%s.bench.json", cases[i].id);
        spec_diags dg = {0};
        spec *sp = NULL;
        assert_int_equal(spec_load(path, &sp, &dg), HK_OK);
        spec_diags_free(&dg);
        char *t[4] = {strdup(fx.text), applied(&fx, cases[i].kernel, sp, cases[i].first, NULL),
                      applied(&fx, cases[i].kernel, sp, "specialize_constants", NULL),
                      stacked_on(&fx, cases[i].kernel, sp, cases[i].first)};
        for (size_t j = 0; j < 4; j++)
            if (!t[j])
                fail_msg("%s: %s (%s) does not apply", cases[i].id, part[j], cases[i].first);
        assert_non_null(strstr(t[3], "specialize_constants: the values the launches pass"));
        char inst[300];
        snprintf(inst, sizeof inst, "static auto hk_inst = &%s<float>;\n", cases[i].kernel);
        for (size_t j = 0; j < 4; j++) {
            char tag[200];
            snprintf(tag, sizeof tag, "st%zu_%s", i, part[j]);
            queue_ptx(t[j], inst, tag);
            free(t[j]);
        }
        queued[i] = true;
        spec_free(sp);
        unload(&fx);
    }
    compile_queued();
    size_t bad = 0;
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        if (!queued[i])
            continue;
        pxc_kernel k[4];
        for (size_t j = 0; j < 4; j++) {
            char tag[200];
            snprintf(tag, sizeof tag, "st%zu_%s", i, part[j]);
            chains_of(tag, cases[i].kernel, &k[j]);
        }
        size_t n = 0;
        for (size_t c = 0; c < k[3].n_chains; c++)
            if (!has_chain(&k[0], k[3].chains[c]) && !has_chain(&k[1], k[3].chains[c]) &&
                !has_chain(&k[2], k[3].chains[c])) {
                print_error("%s %s + specialize_constants: a chain of neither part: %s\n", cases[i].id,
                            cases[i].first, k[3].chains[c]);
                n++;
            }
        print_message("%s %s + specialize_constants: %zu chains, %zu of neither part\n", cases[i].id,
                      cases[i].first, k[3].n_chains, n);
        bad += n;
        for (size_t j = 0; j < 4; j++)
            ptx_chains_free(&k[j]);
    }
    assert_int_equal(bad, 0);
    nvb_reset();
}

/* An argmax over floats computed per element by a product and a sum: refused with the
 * reason; the same element without the argmax is taken. */
static const char argmax_own[] =
    "__global__ void pick(int total, const float *f, const float *wt, float *best, float *at, int w, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x * gridDim.x) {\n"
    "        int x = i % w;\n"
    "        int ch = i / w % c;\n"
    "        int b = i / w / c;\n"
    "        float m = -1e30f, pos = -1.f;\n"
    "        for (int k = 0; k < 4; k++) {\n"
    "            float s = wt[b * 4 + k];\n"
    "            float v = f[((b * c + ch) * 4 + k) * w + x] * s + s * 0.5f;\n"
    "            if (v > m) {\n"
    "                m = v;\n"
    "                pos = k;\n"
    "            }\n"
    "        }\n"
    "        best[i] = m;\n"
    "        at[i] = pos;\n"
    "    }\n"
    "}\n";

static const char max_own[] =
    "__global__ void pick(int total, const float *f, const float *wt, float *best, int w, int c)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x * gridDim.x) {\n"
    "        int x = i % w;\n"
    "        int ch = i / w % c;\n"
    "        int b = i / w / c;\n"
    "        float m = -1e30f;\n"
    "        for (int k = 0; k < 4; k++) {\n"
    "            float s = wt[b * 4 + k];\n"
    "            float v = f[((b * c + ch) * 4 + k) * w + x] * s + s * 0.5f;\n"
    "            if (v > m) {\n"
    "                m = v;\n"
    "            }\n"
    "        }\n"
    "        best[i] = m;\n"
    "    }\n"
    "}\n";

static void float_selection(void **state)
{
    (void)state;
    fixture fx;
    load_text(argmax_own, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "pick")};
    rw_result r;
    static const int ck[RW_MAX_PARAMS] = {8};
    assert_int_equal(rw_apply_named("channel_chunks", &ctx, ck, &r, NULL), HK_OK);
    assert_false(r.applicable);
    if (!strstr(r.description, "selects `pos` by comparing floats"))
        fail_msg("%s", r.description);
    rw_result_free(&r);
    unload(&fx);
    load_text(max_own, &fx);
    rw_context c2 = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "pick")};
    assert_int_equal(rw_apply_named("channel_chunks", &c2, ck, &r, NULL), HK_OK);
    if (!r.applicable)
        fail_msg("%s", r.description);
    rw_result_free(&r);
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(float_selection),
        cmocka_unit_test(roi_align_chains),
        cmocka_unit_test(wild_chains),
        cmocka_unit_test(wild_stacked_chains),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
