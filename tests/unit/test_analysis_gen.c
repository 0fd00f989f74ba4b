/* Identities the analysis gives callers for caching: an_function.gen survives an
 * incremental rebuild that reused the function and changes when it was re-extracted,
 * an_doc_model_id changes with every parse, and the an_doc_set_user attachment is
 * freed exactly once (on replacement or with the document). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "core/hk.h"

static const char *const TEXT =
    "__global__ void a(float *p) { p[0] = 1.0f; }\n"
    "\n"
    "__global__ void b(float *p) { p[0] = 2.0f; }\n"
    "\n"
    "__device__ float c(float x) { return x; }\n";

static long find(const an_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_funcs; i++)
        if (!strcmp(m->funcs[i].name, name))
            return (long)i;
    return -1;
}

static void test_gen_kept_by_reuse(void **st)
{
    (void)st;
    an_doc *d;
    assert_int_equal(an_doc_new(&d), HK_OK);
    assert_int_equal(an_doc_model_id(d), 0);
    size_t len = strlen(TEXT);
    assert_int_equal(an_doc_parse(d, TEXT, len), HK_OK);
    uint64_t id1 = an_doc_model_id(d);
    assert_true(id1 != 0);
    const an_model *m = an_doc_model(d);
    assert_int_equal(m->n_funcs, 3);
    uint64_t ga = m->funcs[find(m, "a")].gen, gb = m->funcs[find(m, "b")].gen,
             gc = m->funcs[find(m, "c")].gen;
    assert_true(ga && gb && gc && ga != gb && gb != gc && ga != gc);

    /* "2.0f" -> "22.0f" inside b: b is re-extracted, a and c are reused (c shifted) */
    char text2[256];
    const char *at = strstr(TEXT, "2.0f");
    size_t off = (size_t)(at - TEXT);
    memcpy(text2, TEXT, off);
    text2[off] = '2';
    strcpy(text2 + off + 1, at);
    uint32_t col = (uint32_t)(off - (size_t)(strstr(TEXT, "__global__ void b") - TEXT));
    assert_int_equal(an_doc_edit(d, (uint32_t)off, (uint32_t)off, (uint32_t)off + 1, 2, col, 2,
                                 col, 2, col + 1),
                     HK_OK);
    assert_int_equal(an_doc_parse(d, text2, strlen(text2)), HK_OK);
    uint64_t id2 = an_doc_model_id(d);
    assert_true(id2 != 0 && id2 != id1);
    m = an_doc_model(d);
    assert_int_equal(m->n_funcs, 3);
    assert_int_equal(m->funcs[find(m, "a")].gen, ga);
    assert_int_equal(m->funcs[find(m, "c")].gen, gc);
    uint64_t gb2 = m->funcs[find(m, "b")].gen;
    assert_true(gb2 != gb && gb2 > ga && gb2 > gb && gb2 > gc);
    /* the reused c moved by one byte, on the same row and column */
    const an_function *fc = &m->funcs[find(m, "c")];
    assert_int_equal(fc->span.start_byte, (uint32_t)(strstr(text2, "__device__") - text2));
    assert_int_equal(fc->span.start_row, 4);

    /* a full parse (no recorded edits) extracts everything again */
    assert_int_equal(an_doc_parse(d, text2, strlen(text2)), HK_OK);
    assert_true(an_doc_model_id(d) != id2);
    m = an_doc_model(d);
    assert_true(m->funcs[find(m, "a")].gen != ga);
    an_doc_free(d);
}

static int g_freed;
static void count_free(void *p)
{
    g_freed++;
    hk_free(p);
}

static void test_user_attachment(void **st)
{
    (void)st;
    long before = hk_alloc_live();
    an_doc *d;
    assert_int_equal(an_doc_new(&d), HK_OK);
    assert_null(an_doc_user(d));
    g_freed = 0;
    void *p1 = hk_malloc(16), *p2 = hk_malloc(16);
    an_doc_set_user(d, p1, count_free);
    assert_ptr_equal(an_doc_user(d), p1);
    an_doc_set_user(d, p1, count_free); /* the same pointer again: not freed */
    assert_int_equal(g_freed, 0);
    an_doc_set_user(d, p2, count_free); /* replaced: the old one is freed */
    assert_int_equal(g_freed, 1);
    assert_ptr_equal(an_doc_user(d), p2);
    assert_int_equal(an_doc_parse(d, TEXT, strlen(TEXT)), HK_OK);
    assert_ptr_equal(an_doc_user(d), p2); /* a parse leaves it alone */
    an_doc_free(d);                       /* and the document frees it */
    assert_int_equal(g_freed, 2);
    assert_int_equal(hk_alloc_live(), before);
}

int main(void)
{
    const char *why;
    if (an_grammar_check(&why) != HK_OK) {
        fprintf(stderr, "grammar: %s\n", why);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gen_kept_by_reuse),
        cmocka_unit_test(test_user_attachment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
