/* What the spec-inference tests share (test_spec_infer_counts, test_spec_infer_reach): an
 * inferred spec's args and notes, inference as if saved next to the file (the spec must
 * parse there), spec expressions evaluated at a size set. Include after cmocka.h. */
#ifndef HK_TESTS_INFER_FIXTURE_H
#define HK_TESTS_INFER_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/hk.h"
#include "spec/expr.h"
#include "spec/infer.h"
#include "spec/spec.h"

static json_t *arg(json_t *root, size_t i)
{
    json_t *a = json_array_get(json_object_get(root, "args"), i);
    assert_non_null(a);
    return a;
}

static const char *field(json_t *root, size_t i, const char *key)
{
    json_t *v = json_object_get(arg(root, i), key);
    return v ? json_string_value(v) : NULL;
}

static bool has_note(const spec_inference *inf, const char *part)
{
    for (size_t i = 0; i < inf->n_notes; i++)
        if (strstr(inf->notes[i], part))
            return true;
    return false;
}


/* Inferred for DATA(file) as if saved next to it; must parse there. */
static void infer(const char *file, const char *kernel, spec_inference *inf)
{
    char *spec_path = spec_default_path(file, kernel);
    char err[512];
    assert_int_equal(spec_infer(file, kernel, spec_path, inf, err, sizeof err), HK_OK);
    char *dump = json_dumps(inf->spec, 0);
    spec *s = NULL;
    spec_diags d = { 0 };
    if (spec_parse(dump, strlen(dump), spec_path, &s, &d) != HK_OK)
        fail_msg("%s does not parse: %s", kernel, d.n ? d.items[0].message : "?");
    spec_free(s);
    spec_diags_free(&d);
    hk_free(dump);
    hk_free(spec_path);
}

/* The value of spec expression text at size set (a JSON object of integers). */
static long long eval_at(const char *text, json_t *set)
{
    expr *e = NULL;
    expr_var vars[16];
    size_t n = 0;
    const char *name;
    json_t *v;
    json_object_foreach(set, name, v) {
        assert_true(n < 16);
        vars[n++] = (expr_var){ .name = name, .value = { .is_float = false, .i = json_integer_value(v) } };
    }
    expr_value x;
    char err[256] = "";
    assert_non_null(text);
    if (expr_parse(text, &e, err, sizeof err) != HK_OK || expr_eval(e, vars, n, &x, err, sizeof err) != HK_OK)
        fail_msg("%s: %s", text, err);
    expr_free(e);
    assert_false(x.is_float);
    return x.i;
}

static long long size_of(json_t *set, const char *name)
{
    json_t *v = json_object_get(set, name);
    assert_non_null(v);
    return json_integer_value(v);
}

#endif
