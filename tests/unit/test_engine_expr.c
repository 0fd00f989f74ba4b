/* The spec expression language: parsing, evaluation, errors with columns, and the C the
 * harness gets -- compiled here with the system C compiler and checked against the
 * evaluator, so the harness computes exactly what validation saw. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/hk.h"
#include "spec/expr.h"

static const expr_var vars[] = {
    { "n", { .i = 1000003 } }, { "m", { .i = 7 } }, { "block_x", { .i = 256 } }, { "neg", { .i = -9 } },
};

static expr_value eval_ok(const char *text)
{
    expr *e = NULL;
    char err[200] = "";
    int rc = expr_parse(text, &e, err, sizeof err);
    if (rc != HK_OK)
        fail_msg("parse '%s': %s", text, err);
    expr_value v;
    rc = expr_eval(e, vars, HK_ARRAY_LEN(vars), &v, err, sizeof err);
    if (rc != HK_OK)
        fail_msg("eval '%s': %s", text, err);
    expr_free(e);
    return v;
}

static void int_eval(const char *text, long long want)
{
    expr_value v = eval_ok(text);
    if (v.is_float || v.i != want)
        fail_msg("'%s' = %s%lld, want %lld", text, v.is_float ? "(float) " : "", v.i, want);
}

static void evaluates(void **state)
{
    int_eval("2 + 3 * 4", 14);
    int_eval("(2 + 3) * 4", 20);
    int_eval("-3 + 5", 2);
    int_eval("10 - 4 - 3", 3);      /* left associative */
    int_eval("100 / 10 / 5", 2);
    int_eval("7 / 2", 3);           /* C integer division */
    int_eval("-7 / 2", -3);
    int_eval("-7 % 3", -1);
    int_eval("ceil_div(10, 3)", 4);
    int_eval("ceil_div(9, 3)", 3);
    int_eval("ceil_div(-7, 2)", -3);
    int_eval("ceil_div(n, block_x)", 3907);
    int_eval("min(n, m) + max(m, 3)", 14);
    int_eval("n * m - neg", 7000030);
    int_eval("  12*n  ", 12000036);
    expr_value v = eval_ok("7 / 2.0");
    assert_true(v.is_float);
    assert_true(v.f == 3.5);
    v = eval_ok("n * 0.5");
    assert_true(v.is_float && v.f == 500001.5);
    v = eval_ok("1e3 + m");
    assert_true(v.is_float && v.f == 1007.0);
    v = eval_ok("min(m, 2.5)");
    assert_true(v.is_float && v.f == 2.5);
}

static void parse_error(const char *text, const char *want)
{
    expr *e = NULL;
    char err[200] = "";
    int rc = expr_parse(text, &e, err, sizeof err);
    assert_int_not_equal(rc, HK_OK);
    assert_null(e);
    if (!strstr(err, want))
        fail_msg("'%s': error '%s' lacks '%s'", text, err, want);
}

static void syntax_errors(void **state)
{
    parse_error("n +", "column 4");
    parse_error("n ** 2", "column 4");
    parse_error("(n + 1", "expected ')'");
    parse_error("foo(1, 2)", "unknown function");
    parse_error("min(1)", "min takes two arguments");
    parse_error("ceil_div(1, 2, 3)", "ceil_div takes two arguments");
    parse_error("n m", "unexpected text");
    parse_error("", "expected a value");
    parse_error("1.2.3", "bad number");
    parse_error("99999999999999999999", "bad number");
    char deep[400];
    memset(deep, '(', 100);
    deep[100] = '1';
    memset(deep + 101, ')', 100);
    deep[201] = '\0';
    expr *e = NULL;
    assert_int_equal(expr_parse(deep, &e, NULL, 0), HK_ETOOBIG);
    /* many calls in a row are not "depth" */
    int_eval("min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+"
             "min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+"
             "min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+"
             "min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+"
             "min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+"
             "min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+"
             "min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+"
             "min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)+min(1,2)", 72);
}

static void eval_error(const char *text, const char *want)
{
    expr *e = NULL;
    char err[200] = "";
    assert_int_equal(expr_parse(text, &e, err, sizeof err), HK_OK);
    expr_value v;
    assert_int_equal(expr_eval(e, vars, HK_ARRAY_LEN(vars), &v, err, sizeof err), HK_EINVAL);
    if (!strstr(err, want))
        fail_msg("'%s': error '%s' lacks '%s'", text, err, want);
    expr_free(e);
}

static void eval_errors(void **state)
{
    eval_error("rows * 2", "unknown variable 'rows'");
    eval_error("n / (m - 7)", "division by zero");
    eval_error("ceil_div(n, 0)", "division by zero");
    eval_error("9223372036854775807 + 1", "overflow");
    eval_error("n * n * n * n", "overflow");
    eval_error("n % 2.0", "integer operands");
    eval_error("ceil_div(n, 2.5)", "integer operands");
    eval_error("1.0 / 0", "division by zero");
}

static int count_var(const char *name, void *ctx)
{
    (*(int *)ctx)++;
    return 0;
}

static void variables_and_types(void **state)
{
    expr *e = NULL;
    assert_int_equal(expr_parse("ceil_div(rows * cols, block_x) + rows", &e, NULL, 0), HK_OK);
    int n = 0;
    assert_int_equal(expr_foreach_var(e, count_var, &n), 0);
    assert_int_equal(n, 4);
    assert_true(expr_uses(e, "cols"));
    assert_false(expr_uses(e, "col"));
    assert_false(expr_is_float(e));
    assert_string_equal(expr_text(e), "ceil_div(rows * cols, block_x) + rows");
    expr_free(e);
    assert_int_equal(expr_from_number(2.0, 0, true, &e), HK_OK);
    assert_true(expr_is_float(e));
    assert_string_equal(expr_text(e), "2.0");
    expr_free(e);
    assert_int_equal(expr_from_number(0, -5, false, &e), HK_OK);
    assert_string_equal(expr_text(e), "-5");
    expr_free(e);
}

static char *emit(const char *text)
{
    expr *e = NULL;
    assert_int_equal(expr_parse(text, &e, NULL, 0), HK_OK);
    struct hk_buf b;
    hk_buf_init(&b, 1 << 16);
    assert_int_equal(expr_emit_c(e, "hk_v_", &b), HK_OK);
    expr_free(e);
    return hk_buf_steal(&b);
}

static void emits_c_text(void **state)
{
    char *s = emit("ceil_div(n, block_x) * 2");
    assert_string_equal(s, "(hk_ceil_div(hk_v_n, hk_v_block_x) * 2LL)");
    hk_free(s);
    s = emit("n * 0.5");
    assert_string_equal(s, "((double)hk_v_n * 0.5)");
    hk_free(s);
    s = emit("min(n, 2.5)");
    assert_string_equal(s, "fmin((double)hk_v_n, 2.5)");
    hk_free(s);
    s = emit("-(n + 1) / 3");
    assert_string_equal(s, "((-(hk_v_n + 1LL)) / 3LL)");
    hk_free(s);
}

/* The emitted C, compiled and run, agrees with expr_eval on every expression. */
static void emitted_c_matches_evaluator(void **state)
{
    if (system("cc --version >/dev/null 2>&1") != 0)
        skip();
    static const char *const exprs[] = {
        "2 + 3 * 4", "-7 / 2", "-7 % 3", "ceil_div(n, block_x)", "ceil_div(-7, 2)", "ceil_div(neg, 4)",
        "min(n, m) + max(m, 3)", "n * 0.5 + 1", "(n + 255) / 256", "max(n / 3.0, 2)",
        "n % m * 4 - neg", "12 * n + 1e3", "min(ceil_div(n, block_x), m * 8)",
    };
    char dir[] = "/tmp/hk_expr_test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char src[256], exe[256], out[256], cmd[2048];
    snprintf(src, sizeof src, "%s/e.c", dir);
    snprintf(exe, sizeof exe, "%s/e", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    fprintf(f, "#include <math.h>\n#include <stdio.h>\n#include \"hk_harness.h\"\nint main(void) {\n");
    for (size_t i = 0; i < HK_ARRAY_LEN(vars); i++)
        fprintf(f, "    const long long hk_v_%s = %lldLL;\n", vars[i].name, vars[i].value.i);
    for (size_t i = 0; i < HK_ARRAY_LEN(exprs); i++) {
        char *c = emit(exprs[i]);
        expr *e = NULL;
        assert_int_equal(expr_parse(exprs[i], &e, NULL, 0), HK_OK);
        if (expr_is_float(e))
            fprintf(f, "    printf(\"%%.17g\\n\", (double)(%s));\n", c);
        else
            fprintf(f, "    printf(\"%%lld\\n\", (long long)(%s));\n", c);
        expr_free(e);
        hk_free(c);
    }
    fprintf(f, "    (void)hk_v_m; (void)hk_v_n; (void)hk_v_block_x; (void)hk_v_neg;\n    return 0;\n}\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "cc -std=c11 -Wall -Werror -I%s/include -o %s %s -lm && %s > %s", HK_SOURCE_DIR,
             exe, src, exe, out);
    assert_int_equal(system(cmd), 0);
    f = fopen(out, "r");
    assert_non_null(f);
    for (size_t i = 0; i < HK_ARRAY_LEN(exprs); i++) {
        char line[128], want[128];
        assert_non_null(fgets(line, sizeof line, f));
        line[strcspn(line, "\n")] = '\0';
        expr_value v = eval_ok(exprs[i]);
        if (v.is_float)
            snprintf(want, sizeof want, "%.17g", v.f);
        else
            snprintf(want, sizeof want, "%lld", v.i);
        if (strcmp(line, want) != 0)
            fail_msg("'%s': C says %s, evaluator %s", exprs[i], line, want);
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void no_leaks_under_allocation_failure(void **state)
{
    long live = hk_alloc_live();
    for (long k = 1; k < 60; k++) {
        hk_alloc_fail_after(k);
        expr *e = NULL;
        int rc = expr_parse("min(ceil_div(rows * cols, block_x), sm_count * 8) + -n", &e, NULL, 0);
        hk_alloc_fail_after(0);
        assert_true(rc == HK_OK || rc == HK_ENOMEM);
        assert_true((rc == HK_OK) == (e != NULL));
        expr_free(e);
        assert_int_equal(hk_alloc_live(), live);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(evaluates),
        cmocka_unit_test(syntax_errors),
        cmocka_unit_test(eval_errors),
        cmocka_unit_test(variables_and_types),
        cmocka_unit_test(emits_c_text),
        cmocka_unit_test(emitted_c_matches_evaluator),
        cmocka_unit_test(no_leaks_under_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
