/* Core: the allocation seam, capped buffers, error strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "core/buf.h"
#include "core/hk.h"

static void buf_respects_cap(void **state)
{
    struct hk_buf b;
    hk_buf_init(&b, 8);
    assert_int_equal(hk_buf_appends(&b, "12345"), HK_OK);
    assert_int_equal(hk_buf_appends(&b, "6789"), HK_ETOOBIG);
    assert_int_equal(b.len, 5);
    assert_string_equal(b.data, "12345");
    assert_int_equal(hk_buf_printf(&b, "%d", 678), HK_OK);
    assert_string_equal(b.data, "12345678");
    hk_buf_consume(&b, 3);
    assert_string_equal(b.data, "45678");
    hk_buf_free(&b);
}

static void alloc_failure_injection(void **state)
{
    long live = hk_alloc_live();
    hk_alloc_fail_after(2);
    char *a = hk_strdup("a");
    char *b = hk_strdup("b");
    assert_non_null(a);
    assert_null(b);
    hk_alloc_fail_after(0);
    hk_free(a);
    assert_int_equal(hk_alloc_live(), live);
}

/* hk_strndup copies exactly n bytes, NULs included, and an empty copy of no text (the
 * compile job's and the connection's copies of an empty body) is an empty string. */
static void strndup_exact_and_empty(void **state)
{
    (void)state;
    char *a = hk_strndup("ab\0cd", 5);
    assert_non_null(a);
    assert_memory_equal(a, "ab\0cd", 6);
    char *e = hk_strndup(NULL, 0);
    assert_non_null(e);
    assert_string_equal(e, "");
    hk_free(a);
    hk_free(e);
}

static void error_strings(void **state)
{
    assert_string_equal(hk_strerror(HK_ENOMEM), "out of memory");
    assert_string_equal(hk_strerror(12345), "unknown error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buf_respects_cap),
        cmocka_unit_test(alloc_failure_injection),
        cmocka_unit_test(strndup_exact_and_empty),
        cmocka_unit_test(error_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
