/* Spec inference (spec/infer.c): per-buffer counts the kernel model's index math gives on
 * kernels where they used to be the product of every size (issue 14: cuda-samples'
 * matrixMul, mmcv's chamfer distance and furthest point sampling), and the launch the
 * program runs among several in branches. Each cause is written two ways; each count is
 * checked at every size set against the largest element the kernel reaches there, worked
 * out here from what the kernel computes, so a count one short (an out-of-bounds read in
 * the baseline) or a guess fails. */
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

/* launch.block[d] (an array of numbers). */
static long long block_dim(json_t *root, size_t d)
{
    json_t *b = json_object_get(json_object_get(root, "launch"), "block");
    json_t *x = json_is_array(b) ? json_array_get(b, d) : d == 0 ? b : NULL;
    assert_non_null(x);
    return json_integer_value(x);
}

static const char *template_arg(json_t *root)
{
    json_t *t = json_array_get(json_object_get(root, "template_args"), 0);
    assert_non_null(t);
    return json_is_string(t) ? json_string_value(t) : NULL;
}

/* C = A * B in 32 x 32 tiles, no allocation in sight: B's count comes from the tile loop
 * (its trip ceil_div(wA, 32): matrixMul's a <= aBegin + wA - 1 stepping by the tile, or a
 * tile counter below (wA + 31) / 32) and the block index scaled by the template's BS,
 * which the launch pins to the block. Each count is one past the largest element the last
 * thread of the last block reads in the last tile, with the grid the launch gives
 * (wB / 32 x hA / 32). It used to be wA * wB * hA, guessed. */
static void tile_products_count_their_inputs(void **state)
{
    (void)state;
    const char *const kernels[] = { "tile_mm_pair", "tile_mm_counter" };
    for (size_t c = 0; c < HK_ARRAY_LEN(kernels); c++) {
        spec_inference inf;
        infer(DATA("tile_counts.cu"), kernels[c], &inf);
        if (inf.n_doubts)
            fail_msg("%s: %zu doubts, the first: %s", kernels[c], inf.n_doubts, inf.doubts[0]);
        assert_false(has_note(&inf, "guessed as"));
        assert_true(has_note(&inf, "count of B from the kernel model's index forms"));
        assert_string_equal(template_arg(inf.spec), "32");
        assert_int_equal(block_dim(inf.spec, 0), 32);
        assert_int_equal(block_dim(inf.spec, 1), 32);
        json_t *set;
        size_t i;
        json_array_foreach(json_object_get(inf.spec, "sizes"), i, set) {
            long long wA = size_of(set, "wA"), wB = size_of(set, "wB"), hA = size_of(set, "hA");
            long long gx = wB / 32, gy = hA / 32, tiles = (wA + 31) / 32;
            long long last_b = 32 * wB * (tiles - 1) + 31 * wB + 32 * (gx - 1) + 31;
            long long last_a = wA * (32 * (gy - 1) + 31) + 32 * (tiles - 1) + 31;
            long long last_c = wB * (32 * (gy - 1) + 31) + 32 * (gx - 1) + 31;
            assert_int_equal(eval_at(field(inf.spec, 0, "count"), set), last_c + 1);
            assert_int_equal(eval_at(field(inf.spec, 1, "count"), set), last_a + 1);
            assert_int_equal(eval_at(field(inf.spec, 2, "count"), set), last_b + 1);
            if (wA % 32 == 0)
                assert_int_equal(last_b + 1, wA * wB);
        }
        spec_inference_free(&inf);
    }
}

/* Launches of one kernel in branches on a launcher parameter: the spec takes the one in
 * the branch every call of the launcher takes (if/else with a local set once to 256: the
 * else's <256>; two ifs with the literal 512: the second's <512>), its template argument
 * and block with it; where the calls disagree (64 and 256) no branch is the program's and
 * the first launch stays. */
static void the_launch_in_the_branch_the_program_takes(void **state)
{
    (void)state;
    struct {
        const char *kernel, *targ, *note;
        long long block;
    } cases[] = {
        { "scale_if_else", "256", "passes block_size = 256", 256 },
        { "scale_two_ifs", "512", "passes threads = 512", 512 },
        { "scale_disagree", "64", NULL, 64 },
    };
    for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
        spec_inference inf;
        infer(DATA("branch_site.cu"), cases[c].kernel, &inf);
        if (inf.n_doubts)
            fail_msg("%s: %zu doubts, the first: %s", cases[c].kernel, inf.n_doubts, inf.doubts[0]);
        assert_string_equal(template_arg(inf.spec), cases[c].targ);
        assert_int_equal(block_dim(inf.spec, 0), cases[c].block);
        if (cases[c].note)
            assert_true(has_note(&inf, cases[c].note));
        else
            assert_false(has_note(&inf, "branch the program takes"));
        spec_inference_free(&inf);
    }
}

/* A tile of xyz2 staged through shared memory, the last one short: the staging loop runs
 * below 2 * (min(m, k2 + 512) - k2) (chamfer's end_k) or 2 * min(512, m - k2), so j + 2 * k2
 * stays below 2 * m and xyz2 has 2 * b * m elements exactly, not the tile-rounded
 * 1024 * ceil_div(m, 512) per batch, nor the guess b * n * m. The check set's m (131) is
 * not a multiple of the tile. */
static void a_staging_loop_bounded_by_a_min_counts_its_tile(void **state)
{
    (void)state;
    const char *const kernels[] = { "stage_end", "stage_left" };
    for (size_t c = 0; c < HK_ARRAY_LEN(kernels); c++) {
        spec_inference inf;
        infer(DATA("stage_min.cu"), kernels[c], &inf);
        assert_false(has_note(&inf, "guessed as"));
        assert_true(has_note(&inf, "count of xyz2 from the kernel model's index forms"));
        json_t *set;
        size_t i;
        bool ragged = false;
        json_array_foreach(json_object_get(inf.spec, "sizes"), i, set) {
            long long b = size_of(set, "batch"), n = size_of(set, "n"), m = size_of(set, "m");
            ragged |= m % 512 != 0;
            assert_int_equal(eval_at(field(inf.spec, 4, "count"), set), 2 * b * m);
            assert_int_equal(eval_at(field(inf.spec, 2, "count"), set), 2 * b * n);
            assert_int_equal(eval_at(field(inf.spec, 5, "count"), set), b * n);
        }
        assert_true(ragged);
        spec_inference_free(&inf);
    }
}

/* Furthest point sampling reads the point it picked, dataset[old * 3], old read back from
 * the shared array of the block's argmax: every value stored there is 0 or a point index
 * k < n (or a copy of one of its elements), so old < n and dataset has b * n * 3 elements,
 * with moved pointers or with the batch's offset in the subscripts. The m picks are each
 * block's serial steps (a loop holding barriers): the timed set grows the points, not them
 * (m stays as invented, below n; with m in the outputs' group it had grown to 10240 picks
 * of 5120 points). A shared array that also takes a value loaded from memory bounds
 * nothing: that count stays a guess, and says so. */
static void a_pick_read_back_from_shared_memory_is_below_n(void **state)
{
    (void)state;
    const char *const kernels[] = { "pick_local", "pick_offsets" };
    const char *const locals[] = { "old stays below n", "last stays below n" };
    for (size_t c = 0; c < HK_ARRAY_LEN(kernels); c++) {
        spec_inference inf;
        infer(DATA("pick_shared.cu"), kernels[c], &inf);
        if (inf.n_doubts)
            fail_msg("%s: %zu doubts, the first: %s", kernels[c], inf.n_doubts, inf.doubts[0]);
        assert_false(has_note(&inf, "guessed as"));
        assert_true(has_note(&inf, locals[c]));
        json_t *set;
        size_t i;
        json_array_foreach(json_object_get(inf.spec, "sizes"), i, set) {
            long long b = size_of(set, "b"), n = size_of(set, "n");
            assert_int_equal(eval_at(field(inf.spec, 3, "count"), set), 3 * b * n);
            assert_int_equal(eval_at(field(inf.spec, 4, "count"), set), b * n);
        }
        json_t *s0 = json_array_get(json_object_get(inf.spec, "sizes"), 0);
        json_t *s1 = json_array_get(json_object_get(inf.spec, "sizes"), 1);
        assert_true(size_of(s1, "n") > size_of(s0, "n"));
        assert_true(size_of(s1, "m") < size_of(s1, "n"));
        assert_false(has_note(&inf, "m 1024 -> "));
        spec_inference_free(&inf);
    }
    spec_inference inf;
    infer(DATA("pick_shared.cu"), "pick_loaded", &inf);
    assert_true(has_note(&inf, "count of dataset guessed as"));
    assert_false(has_note(&inf, "stays below"));
    spec_inference_free(&inf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tile_products_count_their_inputs),
        cmocka_unit_test(the_launch_in_the_branch_the_program_takes),
        cmocka_unit_test(a_staging_loop_bounded_by_a_min_counts_its_tile),
        cmocka_unit_test(a_pick_read_back_from_shared_memory_is_below_n),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
