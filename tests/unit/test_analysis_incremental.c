/* Incremental analysis: after seeded random edits, the model rebuilt from reused items
 * and re-parsed chunks must equal a full parse from scratch of the same text, and every
 * few steps a fresh document's model and chunk boundaries, broken code included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "core/hk.h"

static char *read_fixture(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/analysis/%s", HK_TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

#include "analysis_edits.h"

static void run_random_edits(const char *base, size_t base_len, unsigned seed, int steps,
                             int edits_per_step)
{
    struct text t = {malloc(base_len + 1), base_len, base_len + 1, 0};
    assert_non_null(t.p);
    memcpy(t.p, base, base_len);
    t.p[base_len] = '\0';
    an_doc *inc, *full;
    assert_int_equal(an_doc_new(&inc), HK_OK);
    an_doc_set_parse_timeout(inc, 0);   /* slow under valgrind/sanitizers */
    assert_int_equal(an_doc_new(&full), HK_OK);
    an_doc_set_parse_timeout(full, 0);   /* slow under valgrind/sanitizers */
    an_doc_set_reuse(full, false);
    assert_int_equal(an_doc_parse(inc, t.p, t.len), HK_OK);
    assert_int_equal(an_doc_parse(full, t.p, t.len), HK_OK);
    an_doc *docs[2] = {inc, full};
    const unsigned seed0 = seed;
    int fresh_checked = 0, incremental = 0;
    size_t reused = 0, items = 0;
    char why[256];
    for (int step = 0; step < steps; step++) {
        int ne = 1 + (int)(rnd(&seed) % (unsigned)edits_per_step);
        for (int e = 0; e < ne; e++)
            random_edit(&t, &seed, docs, 2);
        assert_int_equal(an_doc_parse(inc, t.p, t.len), HK_OK);
        assert_int_equal(an_doc_parse(full, t.p, t.len), HK_OK);
        an_doc_stats st;
        an_doc_get_stats(inc, &st);
        incremental += st.incremental;   /* not when a qualifier macro changed */
        reused += st.items_reused;
        items += st.items;
        if (!model_eq(an_doc_model(inc), an_doc_model(full), why, sizeof(why)))
            fail_msg("seed %u step %d: reused model differs from full rebuild: %s", seed0, step,
                     why);
        if (step % 5 == 0) {
            /* a fresh document: the model is a function of the text (no chunk here is
             * large enough to keep a tree), broken code included */
            an_doc *fresh;
            assert_int_equal(an_doc_new(&fresh), HK_OK);
            an_doc_set_parse_timeout(fresh, 0);   /* slow under valgrind/sanitizers */
            assert_int_equal(an_doc_parse(fresh, t.p, t.len), HK_OK);
            if (!model_eq(an_doc_model(inc), an_doc_model(fresh), why, sizeof(why)))
                fail_msg("seed %u step %d: incremental model differs from fresh: %s", seed0,
                         step, why);
            uint32_t ca[4096], cb[4096];
            size_t na = an_doc_chunks(inc, ca, 4096), nb = an_doc_chunks(fresh, cb, 4096);
            if (na != nb || memcmp(ca, cb, (na < 4096 ? na : 4096) * sizeof(ca[0])))
                fail_msg("seed %u step %d: chunks differ from a fresh parse's (%zu vs %zu)",
                         seed0, step, na, nb);
            fresh_checked++;
            an_doc_free(fresh);
        }
    }
    print_message("seed %u: %d steps, %zu of %zu items reused, %d fresh comparisons\n",
                  seed0, steps, reused, items, fresh_checked);
    assert_true(fresh_checked > 0);
    assert_true(reused > 0);
    assert_true(incremental > steps / 2);
    an_doc_free(inc);
    an_doc_free(full);
    free(t.p);
    assert_int_equal(hk_alloc_live(), 0);
}

static char *all_fixtures(size_t *len)
{
    static const char *const names[] = {"saxpy.cu", "transpose.cu", "templates.cu",
                                        "reduction.cu", "vadd.hip", "chinese.cu",
                                        "macros.cu", "broken.cu"};
    size_t total = 0;
    char *out = NULL;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        size_t n;
        char *f = read_fixture(names[i], &n);
        out = realloc(out, total + n + 2);
        assert_non_null(out);
        memcpy(out + total, f, n);
        total += n;
        out[total++] = '\n';
        free(f);
    }
    out[total] = '\0';
    *len = total;
    return out;
}

static void test_random_edits_fixtures(void **state)
{
    (void)state;
    size_t len;
    char *base = all_fixtures(&len);
    for (unsigned seed = 1; seed <= 6; seed++)
        run_random_edits(base, len, seed, 30, 3);
    free(base);
}

static void test_random_edits_single_char(void **state)
{
    (void)state;
    size_t len;
    char *base = all_fixtures(&len);
    /* typing: one edit per parse */
    run_random_edits(base, len, 99, 100, 1);
    free(base);
}

/* A one-character edit inside one kernel of many re-extracts only that item, and
 * spans of later items shift correctly (checked against a full rebuild). */
static void test_reuse_is_local(void **state)
{
    (void)state;
    char *src = NULL;
    size_t len = 0, cap = 0;
    for (int k = 0; k < 200; k++) {
        char buf[512];
        int n = snprintf(buf, sizeof(buf),
                         "#define B%d %d\n"
                         "__global__ void k%d(float *p, int n) {\n"
                         "    __shared__ float s[B%d];\n"
                         "    int i = blockIdx.x * B%d + threadIdx.x; // \xe4\xb8\xad\n"
                         "    if (i < n) p[i] = s[threadIdx.x];\n"
                         "}\n"
                         "void l%d(float *p, int n) { k%d<<<(n + B%d - 1) / B%d, B%d>>>(p, n); }\n\n",
                         k, 32 << (k % 4), k, k, k, k, k, k, k, k);
        if (len + (size_t)n + 1 > cap) {
            cap = (len + (size_t)n + 1) * 2;
            src = realloc(src, cap);
            assert_non_null(src);
        }
        memcpy(src + len, buf, (size_t)n);
        len += (size_t)n;
    }
    an_doc *d, *f;
    assert_int_equal(an_doc_new(&d), HK_OK);
    an_doc_set_parse_timeout(d, 0);   /* slow under valgrind/sanitizers */
    assert_int_equal(an_doc_new(&f), HK_OK);
    an_doc_set_parse_timeout(f, 0);   /* slow under valgrind/sanitizers */
    an_doc_set_reuse(f, false);
    assert_int_equal(an_doc_parse(d, src, len), HK_OK);
    assert_int_equal(an_doc_parse(f, src, len), HK_OK);
    assert_int_equal(an_doc_model(d)->n_funcs, 400);
    /* insert a line in the body of k10: every later item shifts by one row */
    char *at = strstr(src, "__global__ void k10(");
    assert_non_null(at);
    at = strchr(at, '\n') + 1;
    size_t pos = (size_t)(at - src);
    static const char ins[] = "    float extra[4];\n";
    size_t il = sizeof(ins) - 1;
    src = realloc(src, len + il + 1);
    assert_non_null(src);
    memmove(src + pos + il, src + pos, len - pos);
    memcpy(src + pos, ins, il);
    len += il;
    uint32_t row = 0;
    for (size_t i = 0; i < pos; i++)
        row += src[i] == '\n';
    an_doc *docs[2] = {d, f};
    for (int i = 0; i < 2; i++)
        assert_int_equal(an_doc_edit(docs[i], (uint32_t)pos, (uint32_t)pos, (uint32_t)(pos + il),
                                     row, 0, row, 0, row + 1, 0), HK_OK);
    assert_int_equal(an_doc_parse(d, src, len), HK_OK);
    assert_int_equal(an_doc_parse(f, src, len), HK_OK);
    an_doc_stats st;
    an_doc_get_stats(d, &st);
    print_message("items %zu reused %zu chunks %zu parsed %zu (%llu bytes)\n", st.items,
                  st.items_reused, st.chunks, st.chunks_parsed,
                  (unsigned long long)st.bytes_parsed);
    assert_true(st.incremental);
    assert_true(st.items >= 600);
    assert_true(st.items_reused >= st.items - 2);
    char why[256];
    if (!model_eq(an_doc_model(d), an_doc_model(f), why, sizeof(why)))
        fail_msg("%s", why);
    const an_model *m = an_doc_model(d);
    long k11 = an_model_find_kernel(m, "k11");
    assert_true(k11 > 0);
    /* 8 rows per block, the kernel on the second, one row inserted above */
    assert_int_equal(m->funcs[k11].span.start_row, 8 * 11 + 1 + 1);
    an_doc_free(d);
    an_doc_free(f);
    free(src);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Redefining a qualifier macro changes how every function reads: all items are redone. */
static void test_macro_change_rebuilds_all(void **state)
{
    (void)state;
    static const char a[] = "#define KERNEL __device__\nKERNEL void k(float *p) {}\n";
    static const char b[] = "#define KERNEL __global__\nKERNEL void k(float *p) {}\n";
    an_doc *d;
    assert_int_equal(an_doc_new(&d), HK_OK);
    an_doc_set_parse_timeout(d, 0);   /* slow under valgrind/sanitizers */
    assert_int_equal(an_doc_parse(d, a, sizeof(a) - 1), HK_OK);
    assert_int_equal(an_doc_model(d)->funcs[0].kind, AN_DEVICE_FUNC);
    /* "__device__" -> "__global__" at bytes 17..25 on row 0 */
    assert_int_equal(an_doc_edit(d, 17, 23, 23, 0, 17, 0, 23, 0, 23), HK_OK);
    assert_int_equal(an_doc_parse(d, b, sizeof(b) - 1), HK_OK);
    assert_int_equal(an_doc_model(d)->n_funcs, 1);
    assert_int_equal(an_doc_model(d)->funcs[0].kind, AN_KERNEL);
    an_doc_stats st;
    an_doc_get_stats(d, &st);
    assert_int_equal(st.items_reused, 0);
    an_doc_free(d);
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse_is_local),
        cmocka_unit_test(test_macro_change_rebuilds_all),
        cmocka_unit_test(test_random_edits_fixtures),
        cmocka_unit_test(test_random_edits_single_char),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
