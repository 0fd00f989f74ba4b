/* table_hoist (issue 13): an all-pairs loop over a table every thread reads alike, whose
 * steps compute math of the element only, on our own kernels (tests/data/rewrite/
 * table_hoist): the math inside two template helpers (helper.cu: first rotated box, a
 * grid-stride loop, batches on y, a block-uniform return, a break), inline in the loop
 * (inline.cu: cosf/sinf, an early return, no break), inline under an if body with a break
 * (break.cu: expf), and with the table read only inside the value (only.cu). Each rewrite must apply, hoist its values into tiles, and run bit for bit
 * like its original in the block emulator (emu_block.h) on ragged sizes, partial tiles and
 * three thread orders; a value loaded from the wrong column, or read before its barrier,
 * must differ. Near-misses are refused with the construct. Every emitted text compiles with
 * nvcc -arch=sm_90 (rwf_nvcc_queued). */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"

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
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-hoist");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static char *read_data(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, HK_TEST_DATA "/rewrite/table_hoist/%s", name);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    char *r = strdup(buf);
    assert_non_null(r);
    return r;
}

static int call_hoist(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    return rw_apply_named("table_hoist", &ctx, NULL, r, NULL);
}

/* The values are computed by the loader and read from tiles; the helpers are copied. */
static void spellings_apply(void **state)
{
    (void)state;
    char *src = read_data("helper.cu");
    char *t = emu_rewrite(src, "first_rotated_box", "table_hoist", NULL);
    assert_non_null(strstr(t, "T c = hk_c0, s = hk_c1;"));                  /* in rotate_into_hk */
    assert_non_null(strstr(t, "rotate_into_hk(px - cx, py - cy, angle, u, v, hk_c0, hk_c1);"));
    assert_non_null(strstr(t, "holds_hk(p, hk_ua, u, v, hk_tile5[hk_j], hk_tile6[hk_j])"));
    assert_non_null(strstr(t, "T c = cos(angle);\n            hk_c0 = c;"));            /* the loader's */
    assert_non_null(strstr(t, "T c = cos(angle), s = sin(angle);"));        /* the original stays */
    free(t);
    {   /* out of memory anywhere, both analyses included: HK_ENOMEM, nothing left */
        fixture fx;
        load_text(src, &fx);
        rwf_survives_alloc_failures(&fx, kernel(&fx, "first_rotated_box"), call_hoist);
        unload(&fx);
    }
    free(src);
    src = read_data("inline.cu");
    t = emu_rewrite(src, "count_above", "table_hoist", NULL);
    assert_non_null(strstr(t, "float ca = hk_tile"));
    assert_non_null(strstr(t, "float ca = cosf(a);\n            hk_c0 = ca;"));
    assert_null(strstr(t, "cosf(a), sa"));
    free(t);
    free(src);
    src = read_data("break.cu");
    t = emu_rewrite(src, "first_reached", "table_hoist", NULL);
    assert_non_null(strstr(t, "float lim = expf(w[k]) * 0.5f;\n            hk_c0 = lim;"));
    assert_non_null(strstr(t, "hk_done = true; break;"));
    free(t);
    free(src);
    /* no read of the table left in the step: the loop is still the one staged */
    src = read_data("only.cu");
    t = emu_rewrite(src, "first_reached", "table_hoist", NULL);
    assert_non_null(strstr(t, "float lim = hk_tile0[hk_j];"));
    free(t);
    free(src);
}

static void refused(const char *src, const char *kname, const char *needle)
{
    fixture fx;
    load_text(src, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname)};
    rw_result r;
    assert_int_equal(rw_apply_named("table_hoist", &ctx, NULL, &r, NULL), HK_OK);
    if (r.applicable || !strstr(r.description, needle))
        print_message("expected a refusal with \"%s\": %s\n", needle, r.description ? r.description : "(applies)");
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, needle));
    rw_result_free(&r);
    unload(&fx);
}

/* What is not the same for every thread, or would make the loader do what the step does not. */
static void near_misses_refused(void **state)
{
    (void)state;
    char *src = read_data("inline.cu");
    /* the angle read per thread: nothing to compute once */
    char *per_thread = emu_replaced(src, "float ca = cosf(a), sa = sinf(a);", "float ca = cosf(a + x), sa = sinf(a);");
    char *t = emu_rewrite(per_thread, "count_above", "table_hoist", NULL);   /* sinf(a) still hoists */
    assert_null(strstr(t, "cosf(a + x);\n            hk_c"));
    free(t);
    /* a division: an integer one could trap where the step would not run */
    char *div = emu_replaced(src, "float ca = cosf(a), sa = sinf(a);", "float ca = cosf(a) / off, sa = 1.0f / off;");
    refused(div, "count_above", "no step computes a math function");
    /* the table written by the kernel */
    char *written = emu_replaced(src, "    count[i] = c;", "    count[i] = c;\n    ((float *)rot)[i] = 0.0f;");
    refused(written, "count_above", "no step computes a math function");
    /* the angle changed in the step */
    char *changed = emu_replaced(src, "float ca = cosf(a), sa = sinf(a);", "a += x;\n        float ca = cosf(a), sa = sinf(a);");
    refused(changed, "count_above", "no step computes a math function");
    /* the table moved inside the loop: the loader would read it where the step does not */
    char *moved = emu_replaced(src, "        float ca = cosf(a), sa = sinf(a);\n",
                               "        float ca = cosf(a), sa = sinf(a);\n        rot += 0;\n");
    refused(moved, "count_above", "no step computes a math function");
    free(moved);
    free(per_thread);
    free(div);
    free(written);
    free(changed);
    free(src);
    src = read_data("helper.cu");
    /* the helper's template parameter not the kernel's */
    char *other = emu_replaced_all(src, "template <typename T>\n__device__ void rotate_into(T dx, T dy, T angle, T &u, T &v)",
                                   "template <typename U>\n__device__ void rotate_into(U dx, U dy, U angle, U &u, U &v)");
    char *o2 = emu_replaced(other, "    T c = cos(angle), s = sin(angle);", "    U c = cos(angle), s = sin(angle);");
    refused(o2, "first_rotated_box", "template parameter U");
    /* uniform_tiles' refusal, at the user's line (the hoisted text has the helpers' copies
     * inserted before the kernel) */
    char *bar = emu_replaced(src, "    int bs = blockIdx.y;\n", "    int bs = blockIdx.y;\n    __syncthreads();\n");
    refused(bar, "first_rotated_box", "barrier at line 27:");
    free(bar);
    free(other);
    free(o2);
    free(src);
}

static const char emu_helpers[] =
    "#define PAIR(ni, ...)                                                            \\\n"
    "    for (int s = 0; s < 3; s++) {                                               \\\n"
    "        emu::schedule = s;                                                      \\\n"
    "        emu::buf<int> o_i(ni), c_i(ni);                                         \\\n"
    "        o_i.set(-7); c_i.set(-7);                                               \\\n"
    "        { namespace NS = orig; auto &idx = o_i; __VA_ARGS__; }                  \\\n"
    "        { namespace NS = cand; auto &idx = c_i; __VA_ARGS__; }                  \\\n"
    "        if (!emu::expect(\"idx\", o_i, c_i))                                       \\\n"
    "            printf(\"  (schedule %d)\\n\", s);                                   \\\n"
    "    }\n";

static emu_batch batch;

static void pair(const char *tag, const char *src, const char *kname, const int *params, const char *driver,
                 const char *from, const char *to)
{
    char *cand = emu_rewrite(src, kname, "table_hoist", params);
    if (from) {
        char *b = emu_replaced(cand, from, to);
        free(cand);
        cand = b;
    }
    emu_batch_add_pair(&batch, tag, src, cand, emu_helpers, driver, from ? EMU_DIFFERS : EMU_OK);
    free(cand);
}

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *helper = read_data("helper.cu"), *inl = read_data("inline.cu"), *brk = read_data("break.cu");
    /* 333 points (ragged), 300 boxes (a partial last tile of 256; 128: two full tiles and a
     * partial one), a grid of 2 along x (several grid-stride trips), one batch more than b */
    static const char helper_drv[] =
        "const int b = 2, n = 333, m = 300;\n"
        "emu::buf<float> boxes(b * m * 5), pts(b * n * 2);\n"
        "boxes.fill_mod(13, 9); pts.fill_mod(14, 9);\n"
        "for (int j = 0; j < b * m; j++) { boxes[j * 5 + 2] = 0.5f + boxes[j * 5 + 2] * 0.2f;\n"
        "    boxes[j * 5 + 3] = 0.5f + boxes[j * 5 + 3] * 0.2f; }\n"
        "for (unsigned bl : {64u, 96u})\n"
        "    PAIR(b * n, emu::launch(dim3(2, b + 1), dim3(bl), 0,\n"
        "         [&] { NS::first_rotated_box<float>(b, n, m, boxes, pts, idx); }));\n";
    pair("hoist_helper", helper, "first_rotated_box", NULL, helper_drv, NULL, NULL);
    pair("hoist_helper_t128", helper, "first_rotated_box", (const int[]){128, 1, 0}, helper_drv, NULL, NULL);
    pair("hoist_helper_swapped", helper, "first_rotated_box", NULL, helper_drv, "hk_c0 = c;", "hk_c0 = 0.5f;");
    pair("hoist_helper_nobarrier", helper, "first_rotated_box", (const int[]){128, 2, 0}, helper_drv,
         "      __syncthreads();\n", "\n");
    static const char inline_drv[] =
        "const int n = 300, m = 700;\n"
        "emu::buf<float> rot(2 * m), pts(2 * n);\n"
        "rot.fill_mod(1, 16); pts.fill_mod(2, 16);\n"
        "for (unsigned bl : {80u, 96u})\n"
        "    PAIR(n, emu::launch(dim3((n + bl - 1) / bl + 1), dim3(bl), 0,\n"
        "         [&] { NS::count_above(n, m, rot, pts, idx); }));\n";
    pair("hoist_inline", inl, "count_above", NULL, inline_drv, NULL, NULL);
    pair("hoist_inline_t128", inl, "count_above", (const int[]){128, 2, 0}, inline_drv, NULL, NULL);
    pair("hoist_inline_swapped", inl, "count_above", NULL, inline_drv, "hk_c0 = ca;", "hk_c0 = 0.5f;");
    static const char break_drv[] =
        "const int n = 200, m = 520;\n"
        "emu::buf<float> w(m), cap(m), val(n);\n"
        "w.fill_mod(3, 5); cap.fill_mod(4, 50); val.fill_mod(5, 40);\n"
        "for (unsigned bl : {64u, 96u})\n"
        "    PAIR(n, emu::launch(dim3((n + bl - 1) / bl), dim3(bl), 0,\n"
        "         [&] { NS::first_reached(n, m, w, cap, val, idx); }));\n";
    pair("hoist_break", brk, "first_reached", NULL, break_drv, NULL, NULL);
    pair("hoist_break_t128", brk, "first_reached", (const int[]){128, 4, 0}, break_drv, NULL, NULL);
    pair("hoist_break_wrong", brk, "first_reached", NULL, break_drv, "hk_c0 = lim;", "hk_c0 = 1e30f;");
    char *only = read_data("only.cu");
    static const char only_drv[] =
        "const int n = 200, m = 300;\n"
        "emu::buf<float> w(m), val(n);\n"
        "w.fill_mod(3, 5); val.fill_mod(5, 40);\n"
        "for (unsigned bl : {64u, 96u})\n"
        "    PAIR(n, emu::launch(dim3((n + bl - 1) / bl), dim3(bl), 0,\n"
        "         [&] { NS::first_reached(n, m, w, val, idx); }));\n";
    pair("hoist_only", only, "first_reached", (const int[]){128, 4, 0}, only_drv, NULL, NULL);
    pair("hoist_only_nobarrier", only, "first_reached", (const int[]){128, 4, 0}, only_drv,
         "      __syncthreads();\n", "\n");
    free(only);
    emu_batch_run(&batch);
    free(helper);
    free(inl);
    free(brk);
}

/* Every own kernel's text compiles with nvcc -arch=sm_90 (the template one instantiated for
 * float), at both tiles (compiled together by rwf_nvcc_queued, the test binary's last test). */
static void texts_compile(void **state)
{
    (void)state;
    static const struct {
        const char *file, *kernel, *inst;
    } k[] = {
        {"helper.cu", "first_rotated_box",
         "\ntemplate __global__ void first_rotated_box<float>(int, int, int, const float *, const float *, int *);\n"},
        {"inline.cu", "count_above", ""},
        {"break.cu", "first_reached", ""},
        {"only.cu", "first_reached", ""},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(k); i++)
        for (int tile = 128; tile <= 256; tile *= 2) {
            char *src = read_data(k[i].file);
            char *t = emu_rewrite(src, k[i].kernel, "table_hoist", (const int[]){tile, 4, 0});
            size_t n = strlen(t) + strlen(k[i].inst) + 1;
            char *full = malloc(n), tag[64];
            assert_non_null(full);
            snprintf(full, n, "%s%s", t, k[i].inst);
            snprintf(tag, sizeof tag, "hoist_%.*s_%d", (int)(strlen(k[i].file) - 3), k[i].file, tile);
            rwf_nvcc_compiles(full, tag);
            free(full);
            free(t);
            free(src);
        }
}

/* mmcv's own points_in_boxes_part (bench/wild/src, where extracted; not part of the
 * repository), rewritten and emulated against itself: the box read in check_pt_in_box3d,
 * cos/sin of its angle two helpers down, the break, the block-uniform return of the extra
 * batch; a missing barrier differs. */
static void wild_kernel_emulated(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    char *src = rwf_wild_text("mmcv_points_in_boxes_part", NULL);
    if (!src)
        skip();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char drv[] =
        "const int b = 2, n = 333, m = 300;\n"
        "emu::buf<float> boxes(b * m * 7), pts(b * n * 3);\n"
        "boxes.fill_mod(13, 4); pts.fill_mod(14, 4);\n"
        "for (unsigned bl : {64u, 96u})\n"
        "    PAIR(b * n, emu::launch(dim3((n + bl - 1) / bl, b + 1), dim3(bl), 0,\n"
        "         [&] { NS::points_in_boxes_part_forward_cuda_kernel<float>(b, m, n, boxes, pts, idx); }));\n";
    char *cand = emu_rewrite(src, "points_in_boxes_part_forward_cuda_kernel", "table_hoist", NULL);
    assert_non_null(strstr(cand, "T cosa = hk_c0, sina = hk_c1;"));
    /* the header's include guard, defined by the original's copy, would hide the rewrite's */
    char *open = emu_replaced(cand, "#ifndef ", "#if 1 // ");
    emu_batch_add_pair(&batch, "mmcv_points_in_boxes_part", src, open, emu_helpers, drv, EMU_OK);
    char *broken = emu_replaced(open, "      __syncthreads();\n", "\n");
    emu_batch_add_pair(&batch, "mmcv_points_in_boxes_part_broken", src, broken, emu_helpers, drv, EMU_DIFFERS);
    emu_batch_run(&batch);
    free(broken);
    free(open);
    free(cand);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spellings_apply),
        cmocka_unit_test(near_misses_refused),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(wild_kernel_emulated),
        cmocka_unit_test(texts_compile),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
