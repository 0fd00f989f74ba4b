/* The structural rewrites that apply to session 29's holdout batch of wild kernels
 * (bench/wild, "batch": "holdout-s29": kernels the engine was not developed against),
 * emulated on the CPU against their originals (emu_block.h, in one emu_batch program): do
 * they compute what the original does? bench/wild/compile_rewrites.sh only shows that
 * they build. Each kernel runs at several small shapes of our own (ragged ones among
 * them), its inputs filled here, its outputs compared exactly (the rewrites move loads and
 * index arithmetic, never the floating-point order). Only where bench/wild/src is
 * extracted (the third-party text is read from there, never kept in the repository); a
 * kernel not extracted, or a machine without g++ and the CUDA headers, is skipped. Each
 * case's list is what `hkls rewrites` said applies to it (bench/results/
 * 2026-12-05-wild-holdout-cpu-s29.md), less the hints (launch bounds, __restrict__,
 * __ldg) and specialize_constants (a spec's values), and since session 30 what the
 * kernel model's fixes opened: masked im2col's coarsen (its walked pointer followed) and
 * kmeans' tiled_transpose (a coordinate walked by a loop), and since session 33 pathfinder's
 * load batching across its barriers. A rewrite that no longer applies
 * fails here: the list is then to be revised with the record. */
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
    return rwf_setup("rewrites-emu-holdout");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* mmcv RoIPool: rois of batch k % N over [0, 1) of the map scaled by W, so some bins fall
 * past the map's edge (empty: 0 and argmax -1); a grid of 3 x 64 threads strides over the
 * pooled outputs. */
static const char roi_pool_driver[] =
    "static const int shapes[][5] = {{1, 3, 9, 11, 4}, {2, 5, 16, 13, 7}, {2, 2, 6, 6, 3}};\n"
    "for (int z = 0; z < 6; z++) {\n"
    "    const int *s = shapes[z % 3];\n"
    "    const int N = s[0], C = s[1], H = s[2], W = s[3], K = s[4], n = K * C * 49;\n"
    "    emu::buf<float> in(N * C * H * W), rois(K * 5), a(n), b(n);\n"
    "    emu::buf<int> ia(n), ib(n);\n"
    "    in.fill(z + 1);\n"
    "    for (int k = 0; k < K; k++) {\n"
    "        rois[k * 5] = (float)(k % N);\n"
    "        for (int c = 1; c < 5; c++)\n"
    "            rois[k * 5 + c] = (float)((k * 7 + c * 3 + z) % 11) / 11.0f;\n"
    "    }\n"
    "    a.set(-3.0f); b.set(-3.0f); ia.set(-5); ib.set(-5);\n"
    "    emu::schedule = z % 3;\n"
    "    emu::launch(dim3(3), dim3(64), 0, [&] { orig::roi_pool_forward_cuda_kernel<float>(n, in, rois, a, ia, 7, 7, (float)W, C, H, W); });\n"
    "    emu::launch(dim3(3), dim3(64), 0, [&] { cand::roi_pool_forward_cuda_kernel<float>(n, in, rois, b, ib, 7, 7, (float)W, C, H, W); });\n"
    "    emu::expect(\"roi_pool output\", a, b);\n"
    "    emu::expect(\"roi_pool argmax\", ia, ib);\n"
    "}\n";

/* mmcv masked im2col: masked pixels anywhere in the map (the pads reach outside), square
 * kernels of 1 and 3, one thread per (channel, pixel) with a grid-stride loop. */
static const char masked_im2col_driver[] =
    "static const int shapes[][5] = {{3, 7, 9, 5, 3}, {2, 16, 16, 12, 3}, {4, 5, 6, 7, 1}};\n"
    "for (int z = 0; z < 6; z++) {\n"
    "    const int *s = shapes[z % 3];\n"
    "    const int C = s[0], H = s[1], W = s[2], M = s[3], ks = s[4], n = M * C;\n"
    "    emu::buf<float> im(C * H * W), a(C * ks * ks * M), b(C * ks * ks * M);\n"
    "    emu::buf<int64_t> mh(M), mw(M);\n"
    "    im.fill(z + 2);\n"
    "    mh.fill_mod(z + 3, H); mw.fill_mod(z + 4, W);\n"
    "    a.set(-7.0f); b.set(-7.0f);\n"
    "    emu::launch(dim3(2), dim3(32), 0, [&] { orig::MaskedIm2colForward<float>(n, im, H, W, ks, ks, ks / 2, ks / 2, mh, mw, M, a); });\n"
    "    emu::launch(dim3(2), dim3(32), 0, [&] { cand::MaskedIm2colForward<float>(n, im, H, W, ks, ks, ks / 2, ks / 2, mh, mw, M, b); });\n"
    "    emu::expect(\"masked_im2col\", a, b);\n"
    "}\n";

/* mmcv points_in_boxes (part): boxes of positive sizes around [-1, 1), points in it, the
 * result's -1 kept where no box holds a point. The kernel moves its pointers inside its
 * grid-stride loop (they add up from a second pass on), so the grid covers every point in
 * one pass, as mmcv's launch does. */
static const char points_in_boxes_driver[] =
    "static const int shapes[][3] = {{2, 5, 300}, {1, 9, 77}, {3, 1, 130}};\n"
    "for (int z = 0; z < 6; z++) {\n"
    "    const int *s = shapes[z % 3];\n"
    "    const int B = s[0], NB = s[1], P = s[2];\n"
    "    emu::buf<float> boxes(B * NB * 7), pts(B * P * 3);\n"
    "    emu::buf<int> a(B * P), b(B * P);\n"
    "    boxes.fill(z + 5); pts.fill(z + 6);\n"
    "    for (int i = 0; i < B * NB; i++)\n"
    "        for (int c = 0; c < 7; c++)\n"
    "            boxes[i * 7 + c] = c >= 3 && c < 6 ? 0.4f + fabsf(boxes[i * 7 + c]) / 10.0f : boxes[i * 7 + c] / 10.0f;\n"
    "    for (int i = 0; i < B * P * 3; i++)\n"
    "        pts[i] = pts[i] / 10.0f;\n"
    "    a.set(-1); b.set(-1);\n"
    "    dim3 grid((P + 63) / 64, B);\n"
    "    emu::launch(grid, dim3(64), 0, [&] { orig::points_in_boxes_part_forward_cuda_kernel<float>(B, NB, P, boxes, pts, a); });\n"
    "    emu::launch(grid, dim3(64), 0, [&] { cand::points_in_boxes_part_forward_cuda_kernel<float>(B, NB, P, boxes, pts, b); });\n"
    "    emu::expect(\"points_in_boxes\", a, b);\n"
    "}\n";

/* mmcv assign_score_withk: neighbour indices in range, the output an accumulator that
 * starts from data (both runs from the same), a grid-stride loop over B * O * N1 * K. */
static const char assign_score_driver[] =
    "static const int shapes[][6] = {{1, 5, 4, 3, 2, 3}, {2, 7, 6, 2, 4, 5}, {1, 3, 3, 4, 3, 2}};\n"
    "for (int z = 0; z < 6; z++) {\n"
    "    const int *s = shapes[z % 3];\n"
    "    const int B = s[0], N0 = s[1], N1 = s[2], M = s[3], K = s[4], O = s[5];\n"
    "    emu::buf<float> points(B * N0 * M * O), centers(B * N0 * M * O), scores(B * N1 * K * M);\n"
    "    emu::buf<float> a(B * O * N1 * K), b(B * O * N1 * K);\n"
    "    emu::buf<int64_t> knn(B * N1 * K);\n"
    "    points.fill(z + 1); centers.fill(z + 2); scores.fill(z + 3);\n"
    "    knn.fill_mod(z + 4, N0);\n"
    "    a.fill(z + 5); b.fill(z + 5);\n"
    "    emu::launch(dim3(2), dim3(32), 0, [&] { orig::assign_score_withk_forward_cuda_kernel<float>(B, N0, N1, M, K, O, 0, points, centers, scores, knn, a); });\n"
    "    emu::launch(dim3(2), dim3(32), 0, [&] { cand::assign_score_withk_forward_cuda_kernel<float>(B, N0, N1, M, K, O, 0, points, centers, scores, knn, b); });\n"
    "    emu::expect(\"assign_score_withk\", a, b);\n"
    "}\n";

/* cuda-samples vectorAdd: lengths that are and are not multiples of 4 and of the block. */
static const char vector_add_driver[] =
    "static const int lengths[] = {1000, 1027, 64, 3, 130};\n"
    "for (int z = 0; z < 5; z++) {\n"
    "    const int n = lengths[z];\n"
    "    emu::buf<float> x(n), y(n), a(n), b(n);\n"
    "    x.fill(z + 1); y.fill(z + 2); a.set(-1.0f); b.set(-1.0f);\n"
    "    emu::launch(dim3((n + 63) / 64), dim3(64), 0, [&] { orig::vectorAdd(x, y, a, n); });\n"
    "    emu::launch(dim3((n + 63) / 64), dim3(64), 0, [&] { cand::vectorAdd(x, y, b, n); });\n"
    "    emu::expect(\"vectorAdd\", a, b);\n"
    "}\n";

/* Rodinia kmeans invert_mapping: point-major to feature-major, ragged point counts. */
static const char kmeans_invert_driver[] =
    "static const int shapes[][2] = {{100, 7}, {257, 3}, {64, 34}};\n"
    "for (int z = 0; z < 3; z++) {\n"
    "    const int np = shapes[z][0], nf = shapes[z][1];\n"
    "    emu::buf<float> in(np * nf), a(np * nf), b(np * nf);\n"
    "    in.fill(z + 3); a.set(-2.0f); b.set(-2.0f);\n"
    "    emu::launch(dim3((np + 63) / 64), dim3(64), 0, [&] { orig::invert_mapping(in, a, np, nf); });\n"
    "    emu::launch(dim3((np + 63) / 64), dim3(64), 0, [&] { cand::invert_mapping(in, b, np, nf); });\n"
    "    emu::expect(\"invert_mapping\", a, b);\n"
    "}\n";

/* Rodinia pathfinder's dynproc_kernel: one launch of `iteration` steps over ragged column
 * counts, the pyramid's border equal to the steps (as its host code launches it), walls and
 * the source row from 0-9 like its driver; a block of BLOCK_SIZE (256) threads, the grid of
 * small blocks of 256 - 2 * steps columns. Steps of 1, 5 and 20 (the spec's), startStep 0
 * and 2 (rows past the first). */
static const char pathfinder_driver[] =
    "static const int shapes[][3] = {{300, 1, 0}, {1000, 5, 2}, {5001, 20, 0}, {217, 20, 3}};\n"
    "for (int z = 0; z < 4; z++) {\n"
    "    const int cols = shapes[z][0], it = shapes[z][1], start = shapes[z][2];\n"
    "    const int rows = start + it + 1, small = 256 - 2 * it;\n"
    "    emu::buf<int> wall((rows - 1) * cols), src(cols), a(cols), b(cols);\n"
    "    wall.fill_mod(z + 1, 10); src.fill_mod(z + 7, 10); a.set(-1); b.set(-1);\n"
    "    emu::launch(dim3((cols + small - 1) / small), dim3(256), 0,\n"
    "                [&] { orig::dynproc_kernel(it, wall, src, a, cols, rows, start, it); });\n"
    "    emu::launch(dim3((cols + small - 1) / small), dim3(256), 0,\n"
    "                [&] { cand::dynproc_kernel(it, wall, src, b, cols, rows, start, it); });\n"
    "    emu::expect(\"dynproc_kernel\", a, b);\n"
    "}\n";

/* The registry's rewrite name of kernel kname in wild source id at its defaults, as the
 * episode applies it (a wild file's model may hold parse errors the search takes as they
 * are, so not emu_rewrite, which wants none): it must apply; the new text (malloc'd). */
static char *holdout_rewrite(const char *id, const char *kname, const char *rewrite)
{
    fixture fx;
    assert_true(rwf_load_wild(id, &fx));
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname)};
    rw_result r;
    rw_refusal why;
    assert_int_equal(rw_apply_named(rewrite, &ctx, NULL, &r, &why), HK_OK);
    if (!r.applicable)
        print_message("%s of %s in %s: %s\n", rewrite, kname, id, r.description);
    assert_true(r.applicable);
    char *text = strdup(r.text);
    assert_non_null(text);
    rw_result_free(&r);
    unload(&fx);
    return text;
}

/* text (malloc'd copy) with assert defined first where it uses one: the emulator blanks
 * #include lines, <assert.h> with them (mmcv's assign_score_withk asserts in a template). */
static char *with_assert(const char *text)
{
    static const char def[] = "#define assert(c) ((c) ? (void)0 : __builtin_trap())\n";
    bool uses = strstr(text, "assert(") != NULL;
    size_t n = strlen(text) + (uses ? sizeof def : 1);
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%s%s", uses ? def : "", text);
    return out;
}

/* The batch keeps its programs' texts and logs until the next emu_batch_init. */
static emu_batch batch;

static void holdout_rewrites_emulate_equal(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static const struct {
        const char *id, *kernel, *driver;
        const char *rewrites[4];
    } cases[] = {
        {"mmcv_roi_pool_fwd", "roi_pool_forward_cuda_kernel", roi_pool_driver, {"coarsen", "fast_divmod"}},
        {"mmcv_masked_im2col", "MaskedIm2colForward", masked_im2col_driver, {"fast_divmod", "coarsen"}},
        {"mmcv_points_in_boxes_part", "points_in_boxes_part_forward_cuda_kernel", points_in_boxes_driver,
         {"coarsen"}},
        {"mmcv_assign_score_withk_fwd", "assign_score_withk_forward_cuda_kernel", assign_score_driver,
         {"load_batching", "fast_divmod"}},
        {"cs_vector_add", "vectorAdd", vector_add_driver, {"grid_stride", "vectorize", "coarsen"}},
        {"rodinia_kmeans_invert", "invert_mapping", kmeans_invert_driver, {"load_batching", "coarsen", "tiled_transpose"}},
        /* since session 33: its DP loop's loads batched across the block barriers */
        {"rodinia_pathfinder", "dynproc_kernel", pathfinder_driver, {"load_batching", "barrier_load_batching"}},
    };
    emu_batch_init(&batch, tmpdir, "holdout");
    char *keep[64];
    size_t n_keep = 0, added = 0;
    char tags[32][96];
    for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
        char *src = rwf_wild_text(cases[c].id, NULL);
        if (!src)
            continue;
        /* both texts go into one program: the original's include guards renamed, so the
         * candidate's are not already defined */
        char *g1 = emu_replaced_all(src, "_CUDA_KERNEL_CUH", "_CUDA_KERNEL_CUH_ORIG");
        char *g2 = emu_replaced_all(g1, "COMMON_CUDA_HELPER", "COMMON_CUDA_HELPER_ORIG");
        char *orig = with_assert(g2);
        free(g2);
        free(g1);
        keep[n_keep++] = orig;
        for (size_t r = 0; r < HK_ARRAY_LEN(cases[c].rewrites) && cases[c].rewrites[r]; r++) {
            char *text = holdout_rewrite(cases[c].id, cases[c].kernel, cases[c].rewrites[r]);
            char *cand = with_assert(text);
            free(text);
            keep[n_keep++] = cand;
            assert_true(added < HK_ARRAY_LEN(tags));
            snprintf(tags[added], sizeof tags[added], "%s_%s", cases[c].id, cases[c].rewrites[r]);
            emu_program p = {.dir = tmpdir, .tag = tags[added], .orig = orig, .orig_len = strlen(orig),
                             .cand = cand, .cand_len = strlen(cand), .helpers = NULL,
                             .driver = cases[c].driver};
            emu_batch_add(&batch, &p, EMU_OK);
            added++;
        }
        free(src);
    }
    if (added)
        emu_batch_run(&batch);
    else
        print_message("note: no holdout kernel is extracted here (bench/wild/extract.sh): nothing emulated\n");
    for (size_t i = 0; i < n_keep; i++)
        free(keep[i]);
}

/* The emulation sees a wrong candidate: vectorAdd's sum turned into a difference,
 * RoIPool's argmax kept one column off, and pathfinder's batched steps reading the first
 * step's wall, each fail (EMU_DIFFERS), so the drivers above compare what the kernels
 * write. */
static void a_broken_candidate_differs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    /* the three in one program (emu_batch.h), each case run alone and named when it does
     * not differ */
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_wild_text("cs_vector_add", NULL);
    if (src) {
        char *bad = emu_replaced(src, "A[i] + B[i]", "A[i] - B[i]");
        emu_batch_add_pair(&batch, "holdout_vector_add_broken", src, bad, NULL, vector_add_driver, EMU_DIFFERS);
        free(bad);
        free(src);
    }
    src = rwf_wild_text("mmcv_roi_pool_fwd", NULL);
    if (src) {
        char *g1 = emu_replaced_all(src, "_CUDA_KERNEL_CUH", "_CUDA_KERNEL_CUH_ORIG");
        char *orig = emu_replaced_all(g1, "COMMON_CUDA_HELPER", "COMMON_CUDA_HELPER_ORIG");
        char *bad = emu_replaced(src, "max_idx = offset;", "max_idx = offset + 1;");
        emu_batch_add_pair(&batch, "holdout_roi_pool_broken", orig, bad, NULL, roi_pool_driver, EMU_DIFFERS);
        free(bad);
        free(orig);
        free(g1);
        free(src);
    }
    /* pathfinder's batched steps all adding the first step's wall */
    src = rwf_wild_text("rodinia_pathfinder", NULL);
    if (src) {
        char *text = holdout_rewrite("rodinia_pathfinder", "dynproc_kernel", "barrier_load_batching");
        char *bad = emu_replaced(text, "shortest + hk_lb_ld0[hk_lb_k]", "shortest + hk_lb_ld0[0]");
        emu_batch_add_pair(&batch, "holdout_pathfinder_broken", src, bad, NULL, pathfinder_driver, EMU_DIFFERS);
        free(bad);
        free(text);
        free(src);
    }
    if (batch.n)
        emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(holdout_rewrites_emulate_equal),
        cmocka_unit_test(a_broken_candidate_differs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
