/* Spec inference (spec/infer.c): the role of a pointer argument (input, output, inout) when
 * the kernel reaches it through another pointer, the two gaps of session 46's third
 * holdout (cuda-samples' boxfilter_y passes &id[x] to a __device__ function that only
 * reads it: it was an output, "sure"; SHOC's bottom_scan stores only through (vecT *)g_odata
 * kept in a local: it had no output, no valid spec). The kernels, in
 * data/infer/pointer_roles.cu, are written here from scratch:
 * - a pointer (or an element's address, or an offset) passed to a __device__ function of
 *   the file: its role there, read, written or both, through a second function too, through
 *   a local pointer made from it, and an element passed to a reference parameter;
 * - a pointer passed to a function whose body is not in the file: read and written (an
 *   inout), with a doubt that names the call, never "sure";
 * - a cast to float4: a store through it, through a local made from a cast (of an offset,
 *   of the parameter itself), and loads only;
 * - function-like macros of the file, one whose value is an element stored into. */
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

/* What the role doubts say (HK_MSG_INF_ROLE_CALL, HK_MSG_INF_ROLE_LOST). */
#define ROLE_CALL "whose body is not in this file"
#define ROLE_LOST "where inference does not follow it"

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

static bool has_doubt(const spec_inference *inf, const char *part)
{
    for (size_t i = 0; i < inf->n_doubts; i++)
        if (strstr(inf->doubts[i], part))
            return true;
    return false;
}

typedef struct {
    const char *kernel;
    const char *names[4], *kinds[4];
} roles_case;

/* Each kernel's pointers have the kinds listed, and no doubt says a role is unknown. */
static void check_roles(const roles_case *cases, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        spec_inference inf;
        infer(DATA("pointer_roles.cu"), cases[c].kernel, &inf);
        for (size_t a = 0; a < 4 && cases[c].names[a]; a++)
            if (strcmp(kind_of(inf.spec, cases[c].names[a]), cases[c].kinds[a]))
                fail_msg("%s: %s is %s, not %s", cases[c].kernel, cases[c].names[a],
                         kind_of(inf.spec, cases[c].names[a]), cases[c].kinds[a]);
            else if (!strcmp(cases[c].kinds[a], "input")) {
                char note[96];
                snprintf(note, sizeof note, "%s is never written: an input", cases[c].names[a]);
                assert_true(has_note(&inf, note));
            }
        if (has_doubt(&inf, ROLE_CALL) || has_doubt(&inf, ROLE_LOST))
            fail_msg("%s: a role doubt where every use is followed", cases[c].kernel);
        spec_inference_free(&inf);
    }
}

/* A pointer passed to a __device__ function of the file has the role it has there: read
 * only (src, through &src[c]: it was an output), written only (y, through y + 2 * i),
 * both (acc, through &acc[i]: it was an output), and two functions deep (a read through
 * load_via -> load_at, b written through store_scaled -> store_at: a was an output). */
static void a_helper_gives_its_role(void **state)
{
    (void)state;
    const roles_case cases[] = {
        { "helper_reads", { "src", "dst" }, { "input", "output" } },
        { "helper_writes", { "x", "y" }, { "input", "output" } },
        { "helper_updates", { "acc", "inc" }, { "inout", "input" } },
        { "helpers_nested", { "a", "b" }, { "input", "output" } },
    };
    check_roles(cases, HK_ARRAY_LEN(cases));
    /* the read column is counted through the helper's subscripts: rows * cols elements */
    spec_inference inf;
    infer(DATA("pointer_roles.cu"), "helper_reads", &inf);
    json_t *set;
    size_t i;
    json_array_foreach(json_object_get(inf.spec, "sizes"), i, set)
        assert_int_equal(eval_at(field(inf.spec, 0, "count"), set), size_of(set, "rows") * size_of(set, "cols"));
    spec_inference_free(&inf);
}

/* Through aliases: local pointers made from a parameter and passed on (mine written by
 * put_pair; theirs only read by load_at: it was an output), an element passed to a
 * reference parameter that is added to (sum: it was an input, its writes lost) and to one
 * only read (w); elements bound to local references (hist added to through one: it was an
 * input; outs only assigned through one: it was an input too). */
static void aliases_and_references_are_followed(void **state)
{
    (void)state;
    const roles_case cases[] = {
        { "helper_aliases", { "mine", "theirs", "sum", "w" }, { "output", "input", "inout", "input" } },
        { "element_refs", { "hist", "vals", "outs" }, { "inout", "input", "output" } },
    };
    check_roles(cases, HK_ARRAY_LEN(cases));
}

/* A pointer passed to a function whose body is not in the file: its role is not known. It
 * is an inout (read and written, whatever the callee does) and the spec has a doubt that
 * names the pointer and the function: one-click optimize refuses it. It was an output,
 * with no doubt about it. */
static void an_unseen_helper_is_a_doubt(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("pointer_roles.cu"), "helper_unseen", &inf);
    assert_string_equal(kind_of(inf.spec, "buf"), "inout");
    assert_string_equal(kind_of(inf.spec, "out"), "output");
    assert_true(has_doubt(&inf, "buf is passed at line"));
    assert_true(has_doubt(&inf, "elsewhere_touch, " ROLE_CALL));
    spec_inference_free(&inf);
}

/* Casts: a store through ((float4 *)out)[i]; stores through float4 *o = (float4 *)(lo +
 * off) and V *h = (V *)hi (hi had no store, no output: it was an input); loads only, through
 * ((float4 *)wide)[i] and a local reinterpret_cast (wide was an output). */
static void stores_through_casts_are_followed(void **state)
{
    (void)state;
    const roles_case cases[] = {
        { "cast_store", { "src", "out" }, { "input", "output" } },
        { "cast_local", { "src", "lo", "hi" }, { "input", "output", "output" } },
        { "cast_reads", { "wide", "sums" }, { "input", "output" } },
    };
    check_roles(cases, HK_ARRAY_LEN(cases));
}

/* Function-like macros of the file are followed like helpers: PUT_AT(dst, ...) stores,
 * GET_AT(src, i) loads (src was an output), and AS_VEC4(wout[4 * i]) = ..., a macro whose
 * value is the element seen as a float4, stores into wout (it was an input). */
static void macros_are_followed(void **state)
{
    (void)state;
    const roles_case cases[] = {
        { "macro_roles", { "src", "dst", "win", "wout" }, { "input", "output", "input", "output" } },
    };
    check_roles(cases, HK_ARRAY_LEN(cases));
}

/* Writes a macro hides (session 47's review of the s47-spec merge): y stored by ST, a macro
 * defined twice (#ifdef branches: the first did nothing, y was an input with no doubt) is an
 * inout with a doubt; y stored by STORE_Y, a macro naming y without taking it as a
 * parameter, and w stored in put() by STORE_P naming put's parameter, are outputs (both
 * were inputs, "sure"); then elements passed to swap, a macro's value assigned, and a
 * helper casting its pointer-to-const parameter's const away. */
static void macros_hiding_writes(void **state)
{
    (void)state;
    spec_inference inf;
    infer(DATA("macro_hidden.cu"), "macro_twice", &inf);
    assert_string_equal(kind_of(inf.spec, "y"), "inout");
    assert_true(has_doubt(&inf, "y is passed at line"));
    spec_inference_free(&inf);
    infer(DATA("macro_hidden.cu"), "macro_names", &inf);
    assert_string_equal(kind_of(inf.spec, "y"), "output");
    assert_string_equal(kind_of(inf.spec, "w"), "output");
    assert_string_equal(kind_of(inf.spec, "x"), "input");
    spec_inference_free(&inf);
    /* an element passed to swap (not in the file) was taken as passed by value: y an input,
     * sure; now an inout with a doubt naming swap. expf's argument stays a read (v input). */
    infer(DATA("macro_hidden.cu"), "element_by_ref", &inf);
    assert_string_equal(kind_of(inf.spec, "y"), "inout");
    assert_true(has_doubt(&inf, "swap, " ROLE_CALL));
    assert_string_equal(kind_of(inf.spec, "v"), "input");
    spec_inference_free(&inf);
    /* OUT_AT(i) = v, OUT_AT's value y[j]: y was an input, sure; now stored (an inout: the
     * macro's text also reads as a read) */
    infer(DATA("macro_hidden.cu"), "macro_value", &inf);
    assert_string_equal(kind_of(inf.spec, "y"), "inout");
    spec_inference_free(&inf);
    /* put_const(const float *p) stores through ((float *)p)[i]: y was an input, sure */
    infer(DATA("macro_hidden.cu"), "const_cast_helper", &inf);
    assert_string_equal(kind_of(inf.spec, "y"), "output");
    spec_inference_free(&inf);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_helper_gives_its_role),
        cmocka_unit_test(aliases_and_references_are_followed),
        cmocka_unit_test(an_unseen_helper_is_a_doubt),
        cmocka_unit_test(stores_through_casts_are_followed),
        cmocka_unit_test(macros_are_followed),
        cmocka_unit_test(macros_hiding_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
