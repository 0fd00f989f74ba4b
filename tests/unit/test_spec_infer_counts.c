/* Spec inference (spec/infer.c): buffer counts the index math gives where the textual scan
 * and the host code give none, instead of the product of every size. A gather's table
 * (points[b * n + idx[i]]) is counted from the range inference chooses for the values read
 * (0 <= idx < n, which the harness keeps: idx gets int(0, n - 1)), and a weight table from
 * the range of the class labels that pick its rows; each count is checked
 * against the largest element the kernel reads with those values, so a count one short
 * (an out-of-bounds read in the baseline) fails the test. */
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

static bool has_doubt(const spec_inference *inf, const char *part)
{
    for (size_t i = 0; i < inf->n_doubts; i++)
        if (strstr(inf->doubts[i], part))
            return true;
    return false;
}

/* The hi of dist "int(0, HI)" at size set `set`: HI may be an expression of the sizes
 * (the index range per size set) or a number. */
static long long int_hi_at(const char *dist, json_t *set)
{
    assert_non_null(dist);
    size_t n = strlen(dist);
    assert_true(n > 7 && !strncmp(dist, "int(0,", 6) && dist[n - 1] == ')');
    char hi[128];
    snprintf(hi, sizeof hi, "%.*s", (int)(n - 7), dist + 6);
    return eval_at(hi, set);
}

/* gather_moved (mmcv's gather_points: pointers moved to the thread's row, then
 * out[0] = points[idx[0]]) and gather_plain (table[b * n + idx[..]]): the table's count is
 * b * c * n (b * n), exactly the rows the kernel reads with idx below n, where it used to
 * be the product of every size; with every count known, bytes follow. idx's values stay
 * at most n - 1 at every set, so the last row's last element read is inside the count and
 * a count one short would not hold it. */
static void a_gather_counts_its_table_from_the_index_range(void **state)
{
    (void)state;
    spec_inference inf;
    struct {
        const char *kernel, *note;
        size_t table, idx;
        bool planes;
    } cases[] = {
        { "gather_moved", "count of points from the kernel model's index forms in gather_moved (its move", 4, 5, true },
        { "gather_plain", "count of table from the kernel model's index forms in gather_plain", 0, 1, false },
    };
    for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
        infer(DATA("gather_counts.cu"), cases[c].kernel, &inf);
        if (inf.n_doubts)
            fail_msg("%s: %zu doubts, the first: %s", cases[c].kernel, inf.n_doubts, inf.doubts[0]);
        assert_true(has_note(&inf, cases[c].note));
        assert_false(has_note(&inf, "guessed as"));
        assert_non_null(json_object_get(inf.spec, "bytes"));
        json_t *set;
        size_t i;
        json_array_foreach(json_object_get(inf.spec, "sizes"), i, set) {
            long long b = size_of(set, "b"), n = size_of(set, "n"), planes = cases[c].planes ? size_of(set, "c") : 1;
            long long count = eval_at(field(inf.spec, cases[c].table, "count"), set);
            long long hi = int_hi_at(field(inf.spec, cases[c].idx, "dist"), set);
            /* the harness's largest index is n - 1 at every set (the whole table is
             * read, not the first rows of the smallest set's n), and the last row then
             * reads its element hi: inside the count */
            assert_int_equal(hi, n - 1);
            assert_true((b * planes - 1) * n + hi < count);
            assert_int_equal(count, b * planes * n);
        }
        spec_inference_free(&inf);
    }
}

/* A class label: weight[t] where the kernel compares t with index % classes
 * (label_compared, mmcv's sigmoid_focal_loss), or where t is also the lowest digit of
 * another subscript (label_shared, softmax_focal_loss's prob[r * classes + t]). The label
 * buffer is filled below classes at each set, so weight has classes elements
 * and the largest label the harness draws is inside them; with every count known, bytes
 * follow. */
static void a_class_label_counts_its_weights(void **state)
{
    (void)state;
    spec_inference inf;
    const char *const kernels[] = { "label_compared", "label_shared" };
    for (size_t c = 0; c < HK_ARRAY_LEN(kernels); c++) {
        infer(DATA("gather_counts.cu"), kernels[c], &inf);
        if (inf.n_doubts)
            fail_msg("%s: %zu doubts, the first: %s", kernels[c], inf.n_doubts, inf.doubts[0]);
        assert_true(has_note(&inf, "count of weight from the kernel model's index forms"));
        assert_false(has_note(&inf, "guessed as"));
        assert_non_null(json_object_get(inf.spec, "bytes"));
        json_t *set;
        size_t i;
        json_array_foreach(json_object_get(inf.spec, "sizes"), i, set) {
            long long n = size_of(set, "n"), count = eval_at(field(inf.spec, 2, "count"), set);
            long long hi = int_hi_at(field(inf.spec, 1, "dist"), set);
            assert_int_equal(hi, n - 1);
            assert_true(hi < count);
            assert_int_equal(count, n);
        }
        spec_inference_free(&inf);
    }
}

/* A read one element past the index (table[b * n + idx[..] + 1]) or an index from a float
 * the kernel converts says nothing of the range: no dist, the table's count stays the
 * guess it was and the gather a doubt. */
static void no_count_without_an_index_range(void **state)
{
    (void)state;
    spec_inference inf;
    const char *const kernels[] = { "gather_offset", "gather_float_index" };
    for (size_t c = 0; c < HK_ARRAY_LEN(kernels); c++) {
        infer(DATA("gather_counts.cu"), kernels[c], &inf);
        assert_true(has_note(&inf, "count of table guessed as"));
        assert_true(has_doubt(&inf, "is a value read from a buffer"));
        assert_null(field(inf.spec, 1, "dist"));
        assert_null(json_object_get(inf.spec, "bytes"));
        spec_inference_free(&inf);
    }
    /* a label that picks a weight and nothing else has no range */
    infer(DATA("gather_counts.cu"), "label_alone", &inf);
    assert_true(has_note(&inf, "count of weight guessed as"));
    assert_true(has_doubt(&inf, "is a value read from a buffer"));
    assert_null(field(inf.spec, 1, "dist"));
    assert_null(json_object_get(inf.spec, "bytes"));
    spec_inference_free(&inf);
}

/* Four inputs each read at four places (a 2x2 box): each count is a max() of four
 * reaches, some 450 characters, and the bytes (every buffer once) some 1900: they used to
 * be dropped past 1024 characters (rodinia srad's J_cuda, a max() of eight reads, left srad
 * with no bytes). The bytes are the sum of the counts, and each count holds the box's last
 * element read by the last thread. */
static void long_counts_keep_their_bytes(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("long_counts.cu"), "box", &inf);
    if (inf.n_doubts)
        fail_msg("%zu doubts, the first: %s", inf.n_doubts, inf.doubts[0]);
    const char *bytes = json_string_value(json_object_get(inf.spec, "bytes"));
    assert_non_null(bytes);
    assert_true(strlen(bytes) > 1024);
    json_t *set;
    size_t i;
    json_array_foreach(json_object_get(inf.spec, "sizes"), i, set) {
        long long cols = size_of(set, "cols"), rows = size_of(set, "rows"), sum = 0;
        long long last = (cols + 1) * (rows - 1) + cols - 1 + cols + 2; /* a[at + cols + 2] */
        for (size_t b = 0; b < 4; b++) {
            long long count = eval_at(field(inf.spec, b, "count"), set);
            assert_int_equal(count, last + 1);
            sum += 4 * count;
        }
        sum += 4 * eval_at(field(inf.spec, 4, "count"), set);
        assert_int_equal(eval_at(bytes, set), sum);
    }
    spec_inference_free(&inf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_gather_counts_its_table_from_the_index_range),
        cmocka_unit_test(a_class_label_counts_its_weights),
        cmocka_unit_test(no_count_without_an_index_range),
        cmocka_unit_test(long_counts_keep_their_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
