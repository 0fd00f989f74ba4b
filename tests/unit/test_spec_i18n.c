/* The bench spec's validation speaks the user's language (issue 14, docs/i18n.md): the
 * same broken spec gives Chinese diagnostics in zh-CN (spec_parse's own, a distribution's,
 * an expression's, and the fragments they quote) and, in English, the very sentences it
 * gave before the message table (byte for byte); the paths (JSON keys) never change, and
 * a message cut at its buffer keeps whole UTF-8 characters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "core/i18n.h"
#include "spec/expr.h"
#include "spec/infer.h"
#include "spec/spec.h"

#define DATA(f) HK_TEST_DATA "/infer/" f

/* line 2: a typo (kernal); line 4: an unknown distribution; line 7: a float dist for an
 * int buffer (a warning); line 8: an expression that does not parse; line 10: a scalar
 * with a count; no "kernel". */
static const char broken[] =
    "{\n"
    "  \"kernal\": \"saxpy\",\n"
    "  \"source\": \"saxpy.cu\",\n"
    "  \"sizes\": [{\"n\": 1000003}, {\"n\": 4096}], \"distributions\": [\"gauss(0,1)\", \"normal(0,1)\"],\n"
    "  \"args\": [\n"
    "    {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
    "    {\"kind\": \"input\", \"dtype\": \"int\", \"count\": \"n\", \"dist\": \"uniform(0,1)\"},\n"
    "    {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n +* 2\"},\n"
    "    {\"kind\": \"output\", \"dtype\": \"float\", \"count\": \"n\"},\n"
    "    {\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\", \"count\": 4}\n"
    "  ],\n"
    "  \"launch\": {\"grid\": \"ceil_div(n, block_x)\", \"block\": 256}\n"
    "}\n";

/* What the English build said before the table (copied from a run at 48d347a). */
static const char *const english[] = {
    "t.json:1: error: kernel: missing (required)",
    "t.json:2: error: kernal: unknown field (did you mean \"kernel\"?)",
    "t.json:4: error: distributions[0]: unknown distribution 'gauss(0,1)' (uniform(lo,hi), "
    "normal(mu,sigma), int(lo,hi), ones_sparse(p), zeros, grid(lo,hi))",
    "t.json:7: warning: args[1].dist: integer int32 values are truncated from a narrow float "
    "distribution; most elements will be equal: use int(lo,hi)",
    "t.json:8: error: args[2].count: bad expression \"n +* 2\": column 4: expected a number, a "
    "variable or '(' (at '* 2')",
    "t.json:10: error: args[4].count: a scalar has no count (did you mean kind \"input\"?)",
};

static char *render(const spec_diags *d)
{
    size_t cap = 1, len = 0;
    for (size_t i = 0; i < d->n; i++)
        cap += strlen(d->items[i].message) + strlen(d->items[i].path) + 64;
    char *out = hk_malloc(cap);
    assert_non_null(out);
    out[0] = '\0';
    for (size_t i = 0; i < d->n; i++) {
        char *line = spec_diag_format(&d->items[i], "t.json");
        assert_non_null(line);
        len += (size_t)snprintf(out + len, cap - len, "%s\n", line);
        hk_free(line);
    }
    return out;
}

static char *parse_in(enum hk_lang lang, const char *text)
{
    hk_i18n_set(lang);
    spec *s = NULL;
    spec_diags d = {0};
    assert_int_equal(spec_parse(text, strlen(text), NULL, &s, &d), HK_EPARSE);
    assert_null(s);
    char *out = render(&d);
    spec_diags_free(&d);
    hk_i18n_set(HK_LANG_EN);
    return out;
}

static bool valid_utf8(const unsigned char *s)
{
    while (*s) {
        int n = *s < 0x80 ? 0 : (*s & 0xE0) == 0xC0 ? 1 : (*s & 0xF0) == 0xE0 ? 2 : (*s & 0xF8) == 0xF0 ? 3 : -1;
        if (n < 0)
            return false;
        s++;
        for (int i = 0; i < n; i++, s++)
            if ((*s & 0xC0) != 0x80)
                return false;
    }
    return true;
}

static void english_unchanged(void **state)
{
    char *out = parse_in(HK_LANG_EN, broken);
    for (size_t i = 0; i < HK_ARRAY_LEN(english); i++)
        if (!strstr(out, english[i]))
            fail_msg("missing English line '%s' in:\n%s", english[i], out);
    hk_free(out);
}

static void chinese_diagnostics(void **state)
{
    char *out = parse_in(HK_LANG_ZH_CN, broken);
    static const char *const want[] = {
        /* spec.c's own sentences; the path (a JSON key) stays */
        "kernel: 缺少此项（必填）",
        "t.json:2: error: kernal: 未知字段（是否想写 \"kernel\"？）",
        /* a distribution's error */
        "distributions[0]: 未知的分布 'gauss(0,1)'（uniform(lo,hi)、normal(mu,sigma)",
        /* a warning quoting the dtype's name */
        "args[1].dist: 整数 int32 的值由区间很窄的浮点分布截断而来",
        /* the expression parser's, inside spec.c's */
        "args[2].count: 表达式 \"n +* 2\" 有误：第 4 列：应为数字、变量或 '('（位于 '* 2'）",
        "args[4].count: 标量没有 count（是否想写 kind \"input\"？）",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(out, want[i]))
            fail_msg("missing '%s' in:\n%s", want[i], out);
    /* no English sentence left in what the user reads */
    assert_null(strstr(out, "missing (required)"));
    assert_null(strstr(out, "unknown field"));
    assert_true(valid_utf8((const unsigned char *)out));
    hk_free(out);
}

/* The fragments a sentence quotes: a JSON type's name, "what must be in range". */
static void chinese_fragments(void **state)
{
    char *out = parse_in(HK_LANG_ZH_CN,
                         "{\"kernel\": \"k\", \"source\": \"k.cu\", \"sizes\": {\"n\": 1},"
                         " \"seeds\": [1, 1, 2]}");
    assert_non_null(strstr(out, "sizes: 应为规模组的数组，实际为对象"));
    assert_non_null(strstr(out, "seeds: 应为 5 到 1000 个整数随机种子的数组（太少：正确性检查需要多组输入）"));
    hk_free(out);
    out = parse_in(HK_LANG_ZH_CN,
                   "{\"kernel\": \"k\", \"source\": \"k.cu\", \"sizes\": [{\"n\": 1000003}, {\"n\": 64}],"
                   " \"args\": [{\"kind\": \"output\", \"dtype\": \"float\", \"count\": \"n\"}],"
                   " \"launch\": {\"grid\": \"n\", \"block\": \"n / 2.0\"}}");
    assert_non_null(strstr(out, "launch.block: \"n / 2.0\" 是浮点表达式；线程块维度必须是整数"));
    hk_free(out);
    out = parse_in(HK_LANG_EN,
                   "{\"kernel\": \"k\", \"source\": \"k.cu\", \"sizes\": [{\"n\": 1000003}, {\"n\": 64}],"
                   " \"args\": [{\"kind\": \"output\", \"dtype\": \"float\", \"count\": \"n\"}],"
                   " \"launch\": {\"grid\": \"n\", \"block\": \"n / 2.0\"}}");
    assert_non_null(strstr(out, "launch.block: \"n / 2.0\" is a float expression; a block dimension "
                                "must be an integer"));
    hk_free(out);
}

/* A distribution's and an expression's errors on their own (the inference and the
 * harness call them outside spec_parse), and one cut at a small buffer. */
static void errors_outside_the_parser(void **state)
{
    char err[200];
    hk_dist d;
    hk_i18n_set(HK_LANG_ZH_CN);
    assert_int_equal(spec_dist_parse("int(1)", &d, err, sizeof err), HK_EINVAL);
    assert_string_equal(err, "'int(1)'：int 需要 2 个参数");
    expr *e = NULL;
    assert_int_equal(expr_parse("min(n)", &e, err, sizeof err), HK_EPARSE);
    assert_non_null(strstr(err, "min 需要两个参数：应为 ','"));
    /* 3-byte characters cut at every length: never half a character */
    for (size_t len = 1; len < 40; len++) {
        char small[40];
        assert_int_equal(spec_dist_parse("zeros(1)", &d, small, len), HK_EINVAL);
        assert_true(valid_utf8((const unsigned char *)small));
        assert_true(strlen(small) < len);
    }
    hk_i18n_set(HK_LANG_EN);
    assert_int_equal(spec_dist_parse("int(1)", &d, err, sizeof err), HK_EINVAL);
    assert_string_equal(err, "'int(1)': int takes 2 arguments");
    assert_int_equal(spec_dist_parse("ones_sparse()", &d, err, sizeof err), HK_EINVAL);
    assert_string_equal(err, "'ones_sparse()': ones_sparse takes 1 argument");
    assert_int_equal(expr_parse("min(n)", &e, err, sizeof err), HK_EPARSE);
    assert_string_equal(err, "column 6: min takes two arguments: expected ',' (at ')')");
}

/* A saved spec's "inferred" notes stay English (its JSON never changes with the language);
 * the hover says them again in the session's language with hk_tr_back. Inference run in
 * zh-CN gives both: the Chinese notes it tells the user and the English ones it saves, in
 * the same order; each English note read back must be the very Chinese note. */
static void inferred_notes_said_again(void **state)
{
    static const struct { const char *file, *kernel; } k[] = {
        {DATA("aliases.cu"), "pick"},           {DATA("aliases.cu"), "row_fill"},
        {DATA("asserts.cu"), "halve"},          {DATA("asserts.cu"), "lag_through_shared"},
        {DATA("axpy_temps.cu"), "axpy_copy"},   {DATA("block_loops.cu"), "row_max"},
        {DATA("block_rows.cu"), "row_sums"},    {DATA("capped_grid.cu"), "offset_rows"},
        {DATA("check_sizes.cu"), "farthest"},   {DATA("check_sizes.cu"), "tile_mul"},
        {DATA("class_label.cu"), "weighted_any"}, {DATA("const_kinds.cu"), "fir"},
        {DATA("const_table.cu"), "poly"},       {DATA("conv_mask.cu"), "conv2d"},
        {DATA("device_limits.cu"), "radius"},   {DATA("elimination.cu"), "eliminate"},
        {DATA("fixed_block.cu"), "scale"},      {DATA("flat_grid.cu"), "dist"},
        {DATA("gather.cu"), "embed"},           {DATA("gather_rows.cu"), "pick_loss"},
        {DATA("gemm_host.cu"), "matmul"},
    };
    size_t notes = 0, chinese = 0;
    for (size_t i = 0; i < HK_ARRAY_LEN(k); i++) {
        char *spec_path = spec_default_path(k[i].file, k[i].kernel);
        char err[512];
        spec_inference inf = {0};
        hk_i18n_set(HK_LANG_ZH_CN);
        int rc = spec_infer(k[i].file, k[i].kernel, spec_path, &inf, err, sizeof err);
        hk_i18n_set(HK_LANG_EN);
        if (rc != HK_OK)
            fail_msg("%s: %s", k[i].kernel, err);
        json_t *saved = json_object_get(inf.spec, "inferred");
        assert_int_equal(json_array_size(saved), inf.n_notes);
        for (size_t j = 0; j < inf.n_notes; j++) {
            const char *en = json_string_value(json_array_get(saved, j));
            /* as the hover does: the INF_* entries and session 40's INFX_* fragments */
            char *zh = hk_tr_note(HK_LANG_ZH_CN, en);
            if (!zh || strcmp(zh, inf.notes[j]) != 0)
                fail_msg("%s: '%s' read back as '%s', said '%s'", k[i].kernel, en,
                         zh ? zh : "(none)", inf.notes[j]);
            chinese += strcmp(zh, en) != 0;
            hk_free(zh);
            /* in English it is the note itself */
            char *again = hk_tr_back(HK_LANG_EN, en, HK_MSG_INF_INCLUDE_DIRS,
                                     HK_MSG_INF_FRAG_MULTIPLIES);
            assert_non_null(again);
            assert_string_equal(again, en);
            hk_free(again);
            notes++;
        }
        spec_inference_free(&inf);
        hk_free(spec_path);
    }
    assert_true(notes >= 20);
    assert_int_equal(chinese, notes);
    /* what no entry says is left to be shown as it is */
    assert_null(hk_tr_back(HK_LANG_ZH_CN, "a note from an older hkls", HK_MSG_INF_INCLUDE_DIRS,
                           HK_MSG_INF_FRAG_MULTIPLIES));
    assert_null(hk_tr_note(HK_LANG_ZH_CN, "a note from an older hkls"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(english_unchanged),
        cmocka_unit_test(chinese_diagnostics),
        cmocka_unit_test(chinese_fragments),
        cmocka_unit_test(errors_outside_the_parser),
        cmocka_unit_test(inferred_notes_said_again),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
