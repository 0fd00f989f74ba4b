/* Spec inference (spec/infer.c) on the patterns that session 29's holdout batch of wild
 * kernels (bench/wild, "batch": "holdout-s29") got wrong, each written from scratch in
 * data/infer/holdout_writes.cu:
 * - a result written only where a flag says, the flag a local assigned in a loop from a
 *   device function's answer (mmcv's points_in_boxes): an inout, not an output the
 *   harness would find partly unwritten (the spec was "sure" and its baseline would fail);
 * - a read-only pointer parameter that is moved (src += off, src++): an input, not an inout
 *   (cuda-samples' convolution rows); *dst++ = v still stores;
 * - threads that each cover several elements a block apart, the index math stepping
 *   blockIdx.x by a multiple of the launch's block inside a group ((bx * PARTS - SKIRT) *
 *   WIDTH): the launch's block, pinned, not the inner factor (it was pinned at PARTS, with
 *   a doubt), and the launcher's assert(w % (PARTS * WIDTH) == 0) kept by every size set;
 * - a parameter named in a comment as code would name it (`argmax = -1 causes ...`): no use
 *   (it was read as a move, or a read that made an output an inout);
 * - a gather index the kernel checks against a size before use (mmcv's assign_score_withk):
 *   the table it picks rows of has that many rows, the index that range;
 * - a __constant__ table of structs of like fields, filled tile by tile from a launcher's
 *   loop whose counter gives the tile's base (Parboil's mri-q): floats, and a small base. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "spec/expr.h"
#include "spec/infer.h"
#include "spec/spec.h"

#define DATA(f) HK_TEST_DATA "/infer/" f

#include "infer_fixture.h"

/* The kind of the pointer argument called name. */
static const char *kind_of(json_t *root, const char *name)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(root, "args"), i, a) {
        json_t *n = json_object_get(a, "name");
        if (n && !strcmp(json_string_value(n), name))
            return json_string_value(json_object_get(a, "kind"));
    }
    fail_msg("no argument %s", name);
    return NULL;
}

/* A write under a data-dependent flag: inout, with the note that says why; the control
 * kernel, which writes every element below npts whatever the data, stays an output. */
static void a_flag_from_a_device_call_makes_an_inout(void **state)
{
    (void)state;
    const char *const kernels[] = { "first_span_flag", "first_span_moved" };
    for (size_t c = 0; c < HK_ARRAY_LEN(kernels); c++) {
        spec_inference inf;
        infer(DATA("holdout_writes.cu"), kernels[c], &inf);
        if (strcmp(kind_of(inf.spec, "slot"), "inout"))
            fail_msg("%s: slot is %s, not inout", kernels[c], kind_of(inf.spec, "slot"));
        assert_true(has_note(&inf, "slot is written only where a local that the kernel model does not follow"));
        assert_string_equal(kind_of(inf.spec, "segs"), "input");
        assert_string_equal(kind_of(inf.spec, "pts"), "input");
        spec_inference_free(&inf);
    }
    spec_inference inf;
    infer(DATA("holdout_writes.cu"), "count_spans", &inf);
    assert_string_equal(kind_of(inf.spec, "slot"), "output");
    assert_false(has_note(&inf, "written only where"));
    spec_inference_free(&inf);
}

/* src += q and src++ move the pointer, no element is stored through it: an input (checked
 * unchanged after the launch); *dst++ = v stores. */
static void a_moved_read_only_pointer_is_an_input(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("holdout_writes.cu"), "copy_moved", &inf);
    assert_string_equal(kind_of(inf.spec, "src"), "input");
    assert_true(has_note(&inf, "src is never written"));
    assert_string_not_equal(kind_of(inf.spec, "dst"), "input");
    spec_inference_free(&inf);
}

/* Names in comments are no uses: out, written and never read, is an output (a comment's
 * `out[q] += in[q]` made it an inout), and idx_of, never moved (a comment's `idx_of = -1`
 * made it moved, its count lost), has n elements from its subscript. */
static void comments_are_no_uses(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("holdout_writes.cu"), "commented_uses", &inf);
    if (inf.n_doubts)
        fail_msg("%zu doubts, the first: %s", inf.n_doubts, inf.doubts[0]);
    assert_string_equal(kind_of(inf.spec, "out"), "output");
    assert_string_equal(kind_of(inf.spec, "idx_of"), "output");
    assert_false(has_note(&inf, "idx_of is moved"));
    json_t *set;
    size_t i;
    json_array_foreach(json_object_get(inf.spec, "sizes"), i, set)
        assert_int_equal(eval_at(field(inf.spec, 1, "count"), set), size_of(set, "npts"));
    spec_inference_free(&inf);
}

/* The launch's 32 x 2 block, pinned (the index math steps blockIdx.x by 128 = 4 x 32), no
 * doubt, and both size sets keep the launcher's asserts (w a multiple of 128, h of 2) though
 * the check on y makes them ragged otherwise; in and out then hold w * h elements each. */
static void threads_covering_parts_keep_the_launch_block(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("holdout_writes.cu"), "parts_scale", &inf);
    if (inf.n_doubts)
        fail_msg("%zu doubts, the first: %s", inf.n_doubts, inf.doubts[0]);
    assert_true(has_note(&inf, "block pinned at 32, as the launch"));
    assert_false(has_note(&inf, "block pinned at 4:"));
    json_t *block = json_object_get(json_object_get(inf.spec, "launch"), "block");
    assert_int_equal(json_integer_value(json_array_get(block, 0)), 32);
    assert_int_equal(json_integer_value(json_array_get(block, 1)), 2);
    assert_string_equal(kind_of(inf.spec, "in"), "input");
    assert_string_equal(kind_of(inf.spec, "out"), "output");
    json_t *set;
    size_t i;
    json_array_foreach(json_object_get(inf.spec, "sizes"), i, set) {
        long long w = size_of(set, "w"), h = size_of(set, "h");
        assert_int_equal(w % 128, 0);
        assert_int_equal(h % 2, 0);
        assert_int_equal(eval_at(field(inf.spec, 0, "count"), set), w * h);
        assert_int_equal(eval_at(field(inf.spec, 1, "count"), set), w * h);
    }
    spec_inference_free(&inf);
}

/* A tile of struct waves in __constant__ memory and the tile's base from the launcher's loop
 * (Parboil mri-q's kValues and QGridBase): the table is filled as 3 x 512 floats (it was a
 * doubt: a type the harness does not know), and base, 0 on the program's first pass, is an
 * offset invented small and different per set (invented as a size, 256 against 128 waves,
 * it skipped the kernel's loop: a "sure" spec whose check compares untouched outputs).
 * Locals x and y read from buffers taint no index: threadIdx.x's member x is not the local
 * x (it was a gather doubt). */
static void a_tile_loop_runs_its_first_tile(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("holdout_tiles.cu"), "add_waves", &inf);
    if (inf.n_doubts)
        fail_msg("%zu doubts, the first: %s", inf.n_doubts, inf.doubts[0]);
    json_t *c = json_array_get(json_object_get(inf.spec, "constants"), 0);
    assert_non_null(c);
    assert_string_equal(json_string_value(json_object_get(c, "name")), "waves");
    assert_string_equal(json_string_value(json_object_get(c, "dtype")), "float");
    assert_int_equal(json_integer_value(json_object_get(c, "count")), 3 * 512);
    assert_true(has_note(&inf, "__constant__ waves holds wave, a struct of like fields"));
    assert_string_equal(field(inf.spec, 1, "value"), "first");
    assert_true(has_note(&inf, "first is 0 at the program's first launch"));
    json_t *set;
    size_t i;
    long long firsts[2] = { 0, 0 };
    json_array_foreach(json_object_get(inf.spec, "sizes"), i, set) {
        long long first = size_of(set, "first"), nwaves = size_of(set, "nwaves");
        /* small, below the waves: the kernel's loop runs (nwaves - first of a tile) */
        assert_in_range(first, 1, 8);
        assert_true(nwaves - first >= 64);
        assert_int_equal(size_of(set, "npoints") % 128, 0);
        if (i < 2)
            firsts[i] = first;
    }
    assert_int_not_equal(firsts[0], firsts[1]); /* a variable, no constant to bake in */
    spec_inference_free(&inf);
}

/* A gather whose index the kernel checks against a size before using it (`if (r < 0 || r >=
 * nrows) { // ...  continue; }`): the table has nrows rows and the index input
 * int(0, nrows - 1) at each size set, so every thread does the work (it was 65536 rows and
 * int(0, 65535): nearly every thread skipped); the comment in the exit's block keeps it an
 * exit (the kernel model lost the guard before). */
static void a_checked_index_sizes_its_table(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("holdout_gather.cu"), "pick_rows", &inf);
    if (inf.n_doubts)
        fail_msg("%zu doubts, the first: %s", inf.n_doubts, inf.doubts[0]);
    assert_true(has_note(&inf, "as many rows as the kernel's check of those values lets through"));
    assert_true(has_note(&inf, "values of which in [0, "));
    json_t *set;
    size_t i;
    json_array_foreach(json_object_get(inf.spec, "sizes"), i, set) {
        long long nrows = size_of(set, "nrows"), width = size_of(set, "width");
        assert_int_equal(eval_at(field(inf.spec, 3, "count"), set), nrows * width);
    }
    assert_string_equal(field(inf.spec, 4, "dist"), "int(0, nrows - 1)");
    assert_true(has_note(&inf, "values of which in [0, nrows - 1]"));
    spec_inference_free(&inf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_flag_from_a_device_call_makes_an_inout),
        cmocka_unit_test(a_moved_read_only_pointer_is_an_input),
        cmocka_unit_test(comments_are_no_uses),
        cmocka_unit_test(threads_covering_parts_keep_the_launch_block),
        cmocka_unit_test(a_tile_loop_runs_its_first_tile),
        cmocka_unit_test(a_checked_index_sizes_its_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
