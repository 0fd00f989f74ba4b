/* Bench specs: every spec under tests/data/specs loads; each kind of mistake is reported
 * with the exact field (JSON path) and line; defaults, tolerances, floors; the locator;
 * allocation failures never leak. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "core/hk.h"
#include "measure/harness.h"
#include "spec/spec.h"

static int parse(const char *text, spec **s, spec_diags *d)
{
    memset(d, 0, sizeof *d);
    return spec_parse(text, strlen(text), NULL, s, d);
}

static void dump(const spec_diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        char *m = spec_diag_format(&d->items[i], "t.json");
        fprintf(stderr, "  %s\n", m);
        hk_free(m);
    }
}

/* text must be rejected with an error at exactly (path, line) whose message has want. */
static void expect_error(const char *text, const char *path, int line, const char *want)
{
    spec *s = NULL;
    spec_diags d;
    int rc = parse(text, &s, &d);
    assert_int_equal(rc, HK_EPARSE);
    assert_null(s);
    bool found = false;
    for (size_t i = 0; i < d.n; i++) {
        spec_diag *x = &d.items[i];
        if (x->severity == SPEC_ERROR && strcmp(x->path, path) == 0 && x->line == line &&
            strstr(x->message, want))
            found = true;
    }
    if (!found) {
        dump(&d);
        fail_msg("no error at %s line %d with '%s'", path, line, want);
    }
    spec_diags_free(&d);
}

static spec *expect_ok(const char *text, spec_diags *d)
{
    spec *s = NULL;
    int rc = parse(text, &s, d);
    if (rc != HK_OK)
        dump(d);
    assert_int_equal(rc, HK_OK);
    assert_non_null(s);
    return s;
}

/* A valid base; the tests below break one thing at a time (line numbers matter). */
#define HEAD "{\n" \
    "  \"kernel\": \"saxpy\",\n"                                     /* 2 */ \
    "  \"source\": \"saxpy.cu\",\n"                                  /* 3 */ \
    "  \"sizes\": [{\"n\": 1000003}, {\"n\": 4096}],\n"              /* 4 */
#define ARGS \
    "  \"args\": [\n"                                                /* 5 */ \
    "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n" /* 6 */ \
    "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n" /* 7 */ \
    "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n" /* 8 */ \
    "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"}\n"  /* 9 */ \
    "  ],\n"                                                         /* 10 */
#define LAUNCH "  \"launch\": {\"grid\": \"ceil_div(n, block_x)\", \"block\": 256}\n" /* 11 */
#define TAIL "}\n"

static void valid_base(void **state)
{
    spec_diags d;
    spec *s = expect_ok(HEAD ARGS LAUNCH TAIL, &d);
    assert_int_equal(d.n, 0);
    assert_int_equal(s->form, SPEC_FORM_HARNESS);
    assert_string_equal(s->kernel, "saxpy");
    assert_string_equal(s->source_path, "./saxpy.cu");
    assert_int_equal(s->n_sizes, 2);
    assert_int_equal(s->n_size_names, 1);
    assert_int_equal(s->size_values[1], 4096);
    assert_int_equal(s->n_args, 4);
    assert_int_equal(s->args[3].kind, HK_ARG_INOUT);
    assert_int_equal(s->args[0].dtype, HK_DT_I32);
    assert_string_equal(s->args[2].name, "arg2");
    /* defaults: 5 seeds, 3 distributions, fp32 tolerance */
    assert_int_equal(s->n_seeds, 5);
    assert_int_equal(s->n_dists, 3);
    assert_int_equal(s->args[2].n_dists, 3);
    assert_int_equal(s->args[2].dists[1].kind, HK_DIST_NORMAL);
    assert_true(s->args[3].tol.rtol == 1e-4 && s->args[3].tol.atol == 1e-5 && s->args[3].tol.l2 == 1e-5);
    expr_value v;
    assert_int_equal(spec_eval(s, s->grid[0], 0, 132, &v, NULL, 0), HK_OK);
    assert_int_equal(v.i, 3907);
    spec_free(s);
    spec_diags_free(&d);
}

static void wrong_fields_name_path_and_line(void **state)
{
    /* unknown variable in a count */
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"float\",\n"
                 "     \"count\": \"m * 2\"},\n"
                 "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args[2].count", 9, "unknown variable 'm'");
    /* a typo in a field name */
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
                 "    {\"kind\": \"inout\", \"dtype\": \"float\", \"cout\": \"n\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args[3].cout", 9, "did you mean \"count\"");
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"flaot\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
                 "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args[1].dtype", 7, "unknown dtype");
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": 2.5},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
                 "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args[0].value", 6, "is a float; int32 is an integer type");
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
                 "    {\"kind\": \"output\", \"dtype\": \"float\", \"count\": \"n\",\n"
                 "     \"dist\": \"normal(0,1)\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args[3].dist", 10, "an output is poisoned");
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\", \"dist\": \"zeros\"},\n"
                 "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args[2].dist", 8, "only allowed for an inout accumulator");
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\", \"dist\": \"uniform(1,1)\"},\n"
                 "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args[2].dist", 8, "lo < hi");
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args", 5, "no output or inout");
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n - 1000003\"},\n"
                 "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args[2].count", 8, "with sizes[0] is 0");
    expect_error(HEAD ARGS "  \"launch\": {\"grid\": \"ceil_div(n, block_x)\",\n"
                 "             \"block\": 2048}\n" TAIL,
                 "launch.block", 12, "must be in [1, 1024]");
    expect_error(HEAD ARGS "  \"launch\": {\"grid\": [\"ceil_div(n, block_x)\",\n"
                 "                      \"rows\"], \"block\": [32, 8]}\n" TAIL,
                 "launch.grid[1]", 12, "unknown variable 'rows'");
    expect_error(HEAD ARGS "  \"launch\": {\"grid\": \"ceil_div(n, block_x)\", \"block\": [32, 64]}\n" TAIL,
                 "launch.block", 11, "2048 threads per block");
    expect_error(HEAD ARGS "  \"launch\": {\"grid\": \"ceil_div(n, block_x\", \"block\": 256}\n" TAIL,
                 "launch.grid", 11, "expected ')'");
    expect_error(HEAD ARGS "  \"launch\": {\"grid\": \"n\", \"block\": \"block_x\"}\n" TAIL,
                 "launch.block", 11, "may only be used in launch.grid");
    expect_error(HEAD ARGS "  \"launch\": {\"grid\": \"n\", \"block\": 256, \"shmem\": \"n * 4\"}\n" TAIL,
                 "launch.shmem", 11, "dynamic shared memory");
    expect_error(HEAD ARGS "  \"launch\": {\"block\": 256}\n" TAIL, "launch.grid", 11, "missing");
    expect_error(HEAD ARGS "  \"name\": \"x\"\n" TAIL, "launch", 1, "missing (required)");
}

static void wrong_top_level_fields(void **state)
{
    expect_error("{\n  \"kernel\": \"saxpy\",\n  \"source\": \"saxpy.cu\",\n"
                 "  \"sizes\": [{\"n\": 1000003}],\n" ARGS LAUNCH TAIL,
                 "sizes", 4, "needs 2 to 64 size sets");
    expect_error("{\n  \"kernel\": \"saxpy\",\n  \"source\": \"saxpy.cu\",\n"
                 "  \"sizes\": [{\"n\": 1000003},\n             {\"m\": 4096}],\n" ARGS LAUNCH TAIL,
                 "sizes[1].m", 5, "not defined in sizes[0]");
    expect_error("{\n  \"kernel\": \"saxpy\",\n  \"source\": \"saxpy.cu\",\n"
                 "  \"sizes\": [{\"n\": 1000003}, {\"n\": -4}],\n" ARGS LAUNCH TAIL,
                 "sizes[1].n", 4, "expected an integer in [1, 2^40]");
    expect_error("{\n  \"kernel\": \"saxpy\",\n  \"source\": \"saxpy.cu\",\n"
                 "  \"sizes\": [{\"block_x\": 1000003}, {\"block_x\": 4}],\n" ARGS LAUNCH TAIL,
                 "sizes[0].block_x", 4, "reserved");
    expect_error(HEAD ARGS "  \"seeds\": [1, 2, 3],\n" LAUNCH TAIL, "seeds", 11, "5 to 1000");
    expect_error(HEAD ARGS "  \"seeds\": [1, 2, 3, 4,\n            3],\n" LAUNCH TAIL, "seeds[4]", 12,
                 "repeats seeds[2]");
    expect_error(HEAD ARGS "  \"distributions\": [\"uniform(-1,1)\"],\n" LAUNCH TAIL, "distributions", 11,
                 "needs 2 to 32");
    expect_error(HEAD ARGS "  \"distributions\": [\"uniform(-1,1)\",\n     \"gauss(0,1)\"],\n" LAUNCH TAIL,
                 "distributions[1]", 12, "unknown distribution");
    expect_error(HEAD ARGS "  \"tolerance\": {\"rtol\": -1},\n" LAUNCH TAIL, "tolerance.rtol", 11, ">= 0");
    expect_error(HEAD ARGS "  \"flops\": \"2 * q\",\n" LAUNCH TAIL, "flops", 11, "unknown variable 'q'");
    expect_error(HEAD ARGS "  \"template_args\": [\"int; system\"],\n" LAUNCH TAIL, "template_args[0]", 11,
                 "not a template argument");
    expect_error(HEAD ARGS "  \"compile_flags\": [\"O3\"],\n" LAUNCH TAIL, "compile_flags[0]", 11,
                 "starts with '-'");
    expect_error(HEAD ARGS "  \"lanch\": {},\n" LAUNCH TAIL, "lanch", 11, "did you mean \"launch\"");
    expect_error("{\n  \"source\": \"saxpy.cu\",\n  \"sizes\": [{\"n\": 1000003}, {\"n\": 4096}],\n"
                 ARGS LAUNCH TAIL, "kernel", 1, "missing (required)");
    expect_error("{\n  \"kernel\": \"sax py\",\n  \"source\": \"saxpy.cu\",\n"
                 "  \"sizes\": [{\"n\": 1000003}, {\"n\": 4096}],\n" ARGS LAUNCH TAIL,
                 "kernel", 2, "not a kernel name");
    expect_error(HEAD ARGS "  \"form\": \"script\",\n" LAUNCH TAIL, "form", 11, "expected \"harness\" or \"command\"");
    /* JSON syntax: jansson's line */
    expect_error("{\n  \"kernel\": \"saxpy\",\n  \"source\": \"saxpy.cu\"\n  \"sizes\": []\n}\n", "", 4,
                 "not valid JSON");
    expect_error("{\n  \"kernel\": \"a\",\n  \"kernel\": \"b\"\n}\n", "", 3, "duplicate");
    expect_error("[1, 2]", "", 1, "a bench spec is a JSON object");
}

/* "constants": the __constant__ arrays the harness fills like inputs. A good list parses
 * with its counts and distributions; a bad count, dtype, name or dist is refused at its
 * field and line, and so is more data than the device's 64 KiB constant bank. */
static void constants_are_validated(void **state)
{
    (void)state;
    spec_diags d;
    spec *s = expect_ok(HEAD ARGS "  \"constants\": [{\"name\": \"mask\", \"dtype\": \"float\", \"count\": 25},\n"
                        "    {\"name\": \"ns::lut\", \"dtype\": \"half\", \"count\": \"n % 7 + 1\", "
                        "\"dist\": \"normal(0,2)\"}],\n" LAUNCH TAIL, &d);
    assert_int_equal(s->n_consts, 2);
    assert_string_equal(s->consts[0].name, "mask");
    assert_int_equal(s->consts[0].dtype, HK_DT_F32);
    assert_int_equal(s->consts[0].n_dists, s->n_dists);
    assert_int_equal(s->consts[0].dists[1].kind, HK_DIST_NORMAL); /* the spec's distributions */
    assert_string_equal(s->consts[1].name, "ns::lut");
    assert_int_equal(s->consts[1].dists[0].kind, HK_DIST_NORMAL);
    expr_value v;
    assert_int_equal(spec_eval(s, s->consts[1].count, 0, 132, &v, NULL, 0), HK_OK);
    assert_int_equal(v.i, 1000003 % 7 + 1);
    spec_free(s);
    spec_diags_free(&d);

#define CONST_LINE(x) "  \"constants\": [" x "],\n" /* line 11 */
    expect_error(HEAD ARGS CONST_LINE("{\"name\": \"mask\", \"dtype\": \"float\", \"count\": 0}") LAUNCH TAIL,
                 "constants[0].count", 11, "must be in [1, 16384]");
    expect_error(HEAD ARGS CONST_LINE("{\"name\": \"mask\", \"dtype\": \"double\", \"count\": 8193}") LAUNCH TAIL,
                 "constants[0].count", 11, "at most 64 KiB");
    expect_error(HEAD ARGS CONST_LINE("{\"name\": \"mask\", \"dtype\": \"float\", \"count\": \"n\"}") LAUNCH TAIL,
                 "constants[0].count", 11, "with sizes[0] is 1e+06");
    expect_error(HEAD ARGS CONST_LINE("{\"name\": \"mask\", \"dtype\": \"float\", \"count\": \"m\"}") LAUNCH TAIL,
                 "constants[0].count", 11, "unknown variable 'm'");
    expect_error(HEAD ARGS CONST_LINE("{\"name\": \"mask\", \"dtype\": \"float\"}") LAUNCH TAIL,
                 "constants[0].count", 11, "missing (required)");
    expect_error(HEAD ARGS CONST_LINE("{\"name\": \"mask\", \"dtype\": \"float3\", \"count\": 4}") LAUNCH TAIL,
                 "constants[0].dtype", 11, "unknown dtype");
    expect_error(HEAD ARGS CONST_LINE("{\"dtype\": \"float\", \"count\": 4}") LAUNCH TAIL,
                 "constants[0].name", 11, "missing (required)");
    expect_error(HEAD ARGS CONST_LINE("{\"name\": \"mask[0]\", \"dtype\": \"float\", \"count\": 4}") LAUNCH TAIL,
                 "constants[0].name", 11, "not the name of a __constant__ variable");
    expect_error(HEAD ARGS CONST_LINE("{\"name\": \"m\", \"dtype\": \"float\", \"count\": 4}, "
                                      "{\"name\": \"m\", \"dtype\": \"int\", \"count\": 4}") LAUNCH TAIL,
                 "constants[1].name", 11, "already constants[0]");
    expect_error(HEAD ARGS CONST_LINE("{\"name\": \"m\", \"dtype\": \"float\", \"count\": 4, \"dist\": \"zeros\"}")
                 LAUNCH TAIL, "constants[0].dist", 11, "zeros is only allowed");
    expect_error(HEAD ARGS CONST_LINE("{\"name\": \"m\", \"dtype\": \"float\", \"count\": 4, \"kind\": \"input\"}")
                 LAUNCH TAIL, "constants[0].kind", 11, "unknown field");
    expect_error(HEAD ARGS CONST_LINE("{\"name\": \"a\", \"dtype\": \"float\", \"count\": 10000}, "
                                      "{\"name\": \"b\", \"dtype\": \"float\", \"count\": 10000}") LAUNCH TAIL,
                 "constants", 11, "80000 bytes of __constant__ data");
    expect_error(HEAD ARGS "  \"constants\": {\"name\": \"m\"},\n" LAUNCH TAIL, "constants", 11,
                 "expected an array");
#undef CONST_LINE
}

static void warns_when_every_size_is_a_multiple(void **state)
{
    static const char text[] = "{\n  \"kernel\": \"k\", \"source\": \"k.cu\",\n"
                               "  \"sizes\": [{\"n\": 1024}, {\"n\": 4096}],\n"
                               "  \"args\": [{\"kind\": \"output\", \"dtype\": \"float\", \"count\": \"n\"}],\n"
                               "  \"launch\": {\"grid\": \"ceil_div(n, block_x)\", \"block\": 256}\n}\n";
    spec_diags d;
    spec *s = expect_ok(text, &d);
    assert_int_equal(d.n, 1);
    assert_int_equal(d.items[0].severity, SPEC_WARNING);
    assert_string_equal(d.items[0].path, "sizes");
    assert_int_equal(d.items[0].line, 3);
    assert_non_null(strstr(d.items[0].message, "non-multiple of the block size"));
    spec_free(s);
    spec_diags_free(&d);
    /* 1000 is not a multiple of 256: no warning */
    char other[sizeof text + 8];
    snprintf(other, sizeof other, "%s", text);
    memcpy(strstr(other, "1024"), "1000", 4);
    s = expect_ok(other, &d);
    assert_int_equal(d.n, 0);
    spec_free(s);
    spec_diags_free(&d);
}

static void command_form(void **state)
{
    static const char ok[] = "{\n  \"form\": \"command\",\n  \"kernel\": \"rope_forward\",\n"
                             "  \"source\": \"src/rope.cu\",\n  \"build\": \"make -j8 bench\",\n"
                             "  \"run\": \"./bench --iters 20\",\n  \"pass_regex\": \"^PASS\",\n"
                             "  \"fail_regex\": \"FAIL|mismatch\",\n  \"timeout_s\": 120\n}\n";
    spec_diags d;
    spec *s = expect_ok(ok, &d);
    assert_int_equal(s->form, SPEC_FORM_COMMAND);
    assert_string_equal(s->run, "./bench --iters 20");
    assert_string_equal(s->build, "make -j8 bench");
    assert_string_equal(s->workdir, ".");
    assert_true(s->timeout_s == 120);
    assert_null(s->cupti_injection);
    assert_int_equal(spec_set_cupti(s, "/opt/hk/libhk_cupti.so"), HK_OK);
    assert_string_equal(s->cupti_injection, "/opt/hk/libhk_cupti.so");
    spec_free(s);
    spec_diags_free(&d);
    /* form inferred from "run" */
    s = expect_ok("{\"kernel\": \"k\", \"source\": \"k.cu\", \"run\": \"./a\"}", &d);
    assert_int_equal(s->form, SPEC_FORM_COMMAND);
    assert_true(s->timeout_s == 600);
    spec_free(s);
    spec_diags_free(&d);
    expect_error("{\n  \"kernel\": \"k\",\n  \"source\": \"k.cu\",\n  \"run\": \"./a\",\n"
                 "  \"fail_regex\": \"(unclosed\"\n}\n", "fail_regex", 5, "bad POSIX extended regex");
    expect_error("{\n  \"form\": \"command\",\n  \"kernel\": \"k\",\n  \"source\": \"k.cu\"\n}\n", "run", 1,
                 "missing (required)");
    expect_error("{\n  \"kernel\": \"k\",\n  \"source\": \"k.cu\",\n  \"run\": \"./a\",\n"
                 "  \"sizes\": []\n}\n", "sizes", 5, "unknown field");
    expect_error("{\n  \"kernel\": \"k\",\n  \"source\": \"k.cu\",\n  \"run\": \"./a\",\n"
                 "  \"timeout_s\": 0\n}\n", "timeout_s", 5, "seconds");
}

static void locator(void **state)
{
    static const char t[] = "{\n \"a\": {\"x\": 1,\n  \"y\": [10,\n   {\"z\": \"}]\\\"{\"},\n   {\"w\": 3}]},\n"
                            " \"b\": [],\n \"c\": \"last\"\n}";
    int line = 0;
    assert_int_equal(spec_locate(t, strlen(t), "a.y[2].w", &line), HK_OK);
    assert_int_equal(line, 5);
    assert_int_equal(spec_locate(t, strlen(t), "a.y[1].z", &line), HK_OK);
    assert_int_equal(line, 4);
    assert_int_equal(spec_locate(t, strlen(t), "c", &line), HK_OK);
    assert_int_equal(line, 7);
    assert_int_equal(spec_locate(t, strlen(t), "a.y[7]", &line), HK_OK); /* missing: the array */
    assert_int_equal(line, 3);
    assert_int_equal(spec_locate(t, strlen(t), "b[0]", &line), HK_OK);
    assert_int_equal(line, 6);
    assert_int_equal(spec_locate(t, strlen(t), "nope.deeper", &line), HK_OK);
    assert_int_equal(line, 1);
    assert_int_equal(spec_locate(t, strlen(t), "", &line), HK_OK);
    assert_int_equal(line, 1);
    assert_int_equal(spec_locate(t, strlen(t), "a[x]", &line), HK_EPARSE);
    /* truncated text never crashes */
    for (size_t n = 0; n < strlen(t); n++)
        assert_int_equal(spec_locate(t, n, "a.y[2].w", &line), HK_OK);
}

static void data_specs_load(void **state)
{
    static const char *const files[] = { "saxpy", "transpose", "reduce_sum", "half_scale",
                                         "tiled_template", "vector_add", "layernorm", "histogram" };
    for (size_t i = 0; i < HK_ARRAY_LEN(files); i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/specs/%s.bench.json", HK_TEST_DATA, files[i]);
        spec_diags d = { 0 };
        spec *s = NULL;
        int rc = spec_load(path, &s, &d);
        if (rc != HK_OK) {
            dump(&d);
            fail_msg("%s: %s", files[i], hk_strerror(rc));
        }
        spec_free(s);
        spec_diags_free(&d);
    }
    /* a spec whose source is missing names the field */
    spec_diags d = { 0 };
    spec *s = NULL;
    assert_int_equal(spec_load(HK_TEST_DATA "/specs/does-not-exist.json", &s, &d), HK_ENOENT);
    assert_int_equal(d.n_errors, 1);
    spec_diags_free(&d);
}

/* A spec named by a relative path (`hkls optimize --spec specs/x.bench.json`): its folder,
 * source and work directory are anchored at parse time, because the sandboxed build and
 * run (bwrap or the namespace sandbox) do not share this process's working directory
 * (issue 14: a command-form spec given as a relative path failed under bubblewrap). */
static void relative_spec_paths_are_anchored(void **state)
{
    char cwd[PATH_MAX], data[PATH_MAX], want[PATH_MAX + 64];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_non_null(realpath(HK_TEST_DATA, data));
    assert_int_equal(chdir(data), 0);
    spec_diags d = { 0 };
    spec *s = NULL;
    int rc = spec_load("cmdform/saxpy.bench.json", &s, &d);
    assert_int_equal(chdir("/"), 0); /* elsewhere: every path must still lead there */
    if (rc != HK_OK) {
        dump(&d);
        fail_msg("cmdform/saxpy.bench.json: %s", hk_strerror(rc));
    }
    assert_int_equal(s->form, SPEC_FORM_COMMAND);
    snprintf(want, sizeof want, "%s/cmdform", data);
    assert_string_equal(s->dir, want);
    snprintf(want, sizeof want, "%s/cmdform/project", data);
    assert_string_equal(s->workdir, want);
    snprintf(want, sizeof want, "%s/cmdform/project/saxpy.cu", data);
    assert_string_equal(s->source_path, want);
    assert_int_equal(access(s->source_path, R_OK), 0);
    spec_free(s);
    spec_diags_free(&d);

    /* the harness form too: its include directories are the spec's and the source's */
    assert_int_equal(chdir(data), 0);
    s = NULL;
    rc = spec_load("./specs/saxpy.bench.json", &s, &d);
    assert_int_equal(chdir("/"), 0);
    if (rc != HK_OK) {
        dump(&d);
        fail_msg("specs/saxpy.bench.json: %s", hk_strerror(rc));
    }
    snprintf(want, sizeof want, "%s/specs", data);
    assert_string_equal(s->dir, want);
    assert_true(s->n_include_dirs >= 1);
    for (size_t i = 0; i < s->n_include_dirs; i++)
        assert_int_equal(s->include_dirs[i][0], '/');
    assert_int_equal(s->source_path[0], '/');
    assert_int_equal(access(s->source_path, R_OK), 0);
    spec_free(s);
    spec_diags_free(&d);
    assert_int_equal(chdir(cwd), 0);
}

static void tolerances_and_distributions(void **state)
{
    spec_diags d = { 0 };
    spec *s = NULL;
    assert_int_equal(spec_load(HK_TEST_DATA "/specs/reduce_sum.bench.json", &s, &d), HK_OK);
    assert_true(s->args[1].tol.rtol == 1e-3 && s->args[1].tol.l2 == 1e-3);
    assert_int_equal(s->args[1].dists[0].kind, HK_DIST_ZEROS);
    assert_int_equal(s->args[0].dists[1].kind, HK_DIST_NORMAL);
    assert_true(s->args[0].dists[1].a == 1 && s->args[0].dists[1].b == 0.25);
    spec_free(s);
    spec_diags_free(&d);
    assert_int_equal(spec_load(HK_TEST_DATA "/specs/tiled_template.bench.json", &s, &d), HK_OK);
    /* top-level rtol over the fp64 defaults; atol, l2 stay fp64's */
    assert_true(s->args[1].tol.rtol == 1e-9 && s->args[1].tol.atol == 1e-12 && s->args[1].tol.l2 == 1e-12);
    assert_int_equal(s->n_template_args, 2);
    assert_string_equal(s->template_args[0], "128");
    assert_string_equal(s->template_args[1], "double");
    spec_free(s);
    spec_diags_free(&d);
    assert_int_equal(spec_load(HK_TEST_DATA "/specs/histogram.bench.json", &s, &d), HK_OK);
    /* uint8 input without a dist: the whole byte range, for every distribution index */
    assert_int_equal(s->args[0].dists[0].kind, HK_DIST_INT);
    assert_true(s->args[0].dists[1].a == 0 && s->args[0].dists[1].b == 255);
    spec_free(s);
    spec_diags_free(&d);

    spec_tolerance t = spec_default_tolerance(HK_DT_BF16);
    assert_true(t.rtol > spec_default_tolerance(HK_DT_F32).rtol);
    t = spec_default_tolerance(HK_DT_I32);
    assert_true(t.rtol == 0 && t.atol == 0 && t.l2 == 0);
    int dt;
    assert_int_equal(spec_dtype_parse("__nv_bfloat16", &dt), HK_OK);
    assert_int_equal(dt, HK_DT_BF16);
    assert_int_equal(spec_dtype_parse("unsigned char", &dt), HK_OK);
    assert_int_equal(dt, HK_DT_U8);
    assert_int_equal(spec_dtype_parse("float4", &dt), HK_EINVAL);
    hk_dist x;
    char err[200];
    assert_int_equal(spec_dist_parse("ones_sparse(0.1)", &x, err, sizeof err), HK_OK);
    assert_true(x.kind == HK_DIST_ONES_SPARSE && x.a == 0.1);
    assert_int_equal(spec_dist_parse("int(0, 10)", &x, err, sizeof err), HK_OK);
    assert_int_equal(spec_dist_parse("normal(0)", &x, err, sizeof err), HK_EINVAL);
    assert_non_null(strstr(err, "takes 2 arguments"));
    assert_int_equal(spec_dist_parse("int(0.5, 3)", &x, err, sizeof err), HK_EINVAL);
    assert_int_equal(spec_dist_parse("ones_sparse(1.5)", &x, err, sizeof err), HK_EINVAL);
}

/* A distribution whose bounds are written in size variables ("int(0, n - 1)": an index
 * buffer into n elements at every size set) is evaluated per size set: parsed, checked at
 * every set, the first set's values kept for reports, and the generated harness assigns
 * each set's bounds in its setup. */
static void size_bound_distributions(void **state)
{
    (void)state;
    spec_diags d = { 0 };
    spec *s = expect_ok(HEAD "  \"args\": [\n"
                        "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                        "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                        "    {\"kind\": \"input\", \"dtype\": \"int\", \"count\": \"n\", \"dist\": \"int(0, min(n, 5000) - 1)\"},\n"
                        "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\", \"dist\": \"uniform(-1, 1)\"}\n"
                        "  ],\n" LAUNCH TAIL, &d);
    const spec_arg *a = &s->args[2];
    assert_null(a->dist_lo);
    assert_non_null(a->dist_hi);
    assert_string_equal(expr_text(a->dist_hi), "min(n, 5000) - 1");
    assert_int_equal(a->dists[0].kind, HK_DIST_INT);
    assert_true(a->dists[0].a == 0 && a->dists[0].b == 4999); /* size set 0: n = 1000003 */
    assert_true(a->dists[1].b == 4999);
    assert_null(s->args[3].dist_lo); /* numbers stay numbers */
    assert_null(s->args[3].dist_hi);
    char *text = NULL;
    assert_int_equal(harness_generate(s, "/abs/cand.cu", &text), HK_OK);
    assert_non_null(strstr(text, "static hk_dist hk_dists[3][4]"));
    assert_non_null(strstr(text, "hk_dists[d][2].b = (double)("));
    assert_null(strstr(text, "hk_dists[d][2].a ="));
    assert_null(strstr(text, "hk_dists[d][3]"));
    hk_free(text);
    spec_free(s);
    spec_diags_free(&d);
    /* a distribution without bounds is not an expression form: "zeros()" as "zeros" */
    s = expect_ok(HEAD "  \"args\": [\n"
                  "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                  "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                  "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
                  "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\", \"dist\": \"zeros()\"}\n"
                  "  ],\n" LAUNCH TAIL, &d);
    assert_int_equal(s->args[3].dists[0].kind, HK_DIST_ZEROS);
    spec_free(s);
    spec_diags_free(&d);
    /* every size set is checked: n - 4100 is below 0 at the second set (n = 4096) */
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"int\", \"count\": \"n\", \"dist\": \"int(0, n - 4100)\"},\n"
                 "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args[2].dist", 8, "at size set 1");
    /* only size variables: a launch variable or an unknown name is refused */
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"int\", \"count\": \"n\", \"dist\": \"int(0, m - 1)\"},\n"
                 "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args[2].dist", 8, "'m'");
    expect_error(HEAD "  \"args\": [\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                 "    {\"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 2.5},\n"
                 "    {\"kind\": \"input\", \"dtype\": \"int\", \"count\": \"n\", \"dist\": \"int(0, block_x)\"},\n"
                 "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"}\n"
                 "  ],\n" LAUNCH TAIL,
                 "args[2].dist", 8, "block_x");
}

static void physical_floor(void **state)
{
    spec_diags d = { 0 };
    spec *s = NULL;
    assert_int_equal(spec_load(HK_TEST_DATA "/specs/saxpy.bench.json", &s, &d), HK_OK);
    double ms;
    bool has;
    assert_int_equal(spec_floor_ms(s, 1, 3e12, 60e12, &ms, &has), HK_OK);
    assert_true(has);
    assert_true(fabs(ms - 12.0 * 16777216 / 3e12 * 1e3) < 1e-12);
    assert_int_equal(spec_floor_ms(s, 1, 0, 0, &ms, &has), HK_OK);
    assert_false(has);
    /* the FLOP floor wins when the peak rate is low enough */
    assert_int_equal(spec_floor_ms(s, 0, 3e12, 1e9, &ms, &has), HK_OK);
    assert_true(fabs(ms - 2.0 * 1000003 / 1e9 * 1e3) < 1e-9);
    spec_free(s);
    spec_diags_free(&d);
}

static void no_leaks_under_allocation_failure(void **state)
{
    static const char text[] = HEAD ARGS "  \"tolerance\": {\"rtol\": 1e-3},\n"
                               "  \"distributions\": [\"uniform(-1,1)\", \"int(0,9)\"],\n" LAUNCH TAIL;
    long live = hk_alloc_live();
    bool saw_ok = false;
    for (long k = 1; k < 400 && !saw_ok; k++) {
        hk_alloc_fail_after(k);
        spec *s = NULL;
        spec_diags d = { 0 };
        int rc = spec_parse(text, strlen(text), NULL, &s, &d);
        hk_alloc_fail_after(0);
        assert_true(rc == HK_OK || rc == HK_ENOMEM || rc == HK_EPARSE);
        saw_ok = rc == HK_OK;
        spec_free(s);
        spec_diags_free(&d);
        assert_int_equal(hk_alloc_live(), live);
    }
    assert_true(saw_ok);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_base),
        cmocka_unit_test(wrong_fields_name_path_and_line),
        cmocka_unit_test(wrong_top_level_fields),
        cmocka_unit_test(warns_when_every_size_is_a_multiple),
        cmocka_unit_test(constants_are_validated),
        cmocka_unit_test(command_form),
        cmocka_unit_test(locator),
        cmocka_unit_test(data_specs_load),
        cmocka_unit_test(relative_spec_paths_are_anchored),
        cmocka_unit_test(tolerances_and_distributions),
        cmocka_unit_test(size_bound_distributions),
        cmocka_unit_test(physical_floor),
        cmocka_unit_test(no_leaks_under_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
