/* JSON stays language-neutral (issue 14, docs/i18n.md "Stored in English, shown in the
 * user's language"): an episode run in zh-CN, on the CI's simulated GPU, with a version the
 * referee rejects, and one that fails for want of a GPU. What programs read (`optimize
 * --events` and `--json`, `history --json`, the report's JSON model, the store) holds no
 * Chinese, and is byte for byte what the same database gives in English; what a person
 * reads (`history`'s text, the Markdown report, the worker's lines on stderr) says the
 * stored English sentences in Chinese. The built hkls, real nvcc, real store. Skipped when
 * hkls or nvcc is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile/compile.h"
#include "core/buf.h"
#include "core/hk.h"

#define HKLS HK_BINARY_DIR "/hkls"
#define TINY HK_TEST_DATA "/episode/tiny.bench.json"

static bool usable(void)
{
    char *nvcc = NULL;
    bool ok = access(HKLS, X_OK) == 0 && cc_find_compiler(CC_NVIDIA, &nvcc) == HK_OK;
    hk_free(nvcc);
    return ok;
}

/* The file's bytes (new, NUL-terminated; "" when it cannot be read). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct hk_buf b;
    hk_buf_init(&b, 64u << 20);
    char chunk[8192];
    size_t n;
    while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        assert_int_equal(hk_buf_append(&b, chunk, n), HK_OK);
    if (f)
        fclose(f);
    char *s = hk_strndup(b.data ? b.data : "", b.len);
    hk_buf_free(&b);
    assert_non_null(s);
    return s;
}

/* Runs "cd dir && ENV hkls ARGS", stdout to dir/out, stderr to dir/out.err; the exit. */
static int hk(const char *dir, const char *env, const char *args, const char *out)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd %s && %s %s %s >%s/%s 2>%s/%s.err", dir, env, HKLS, args, dir,
             out, dir, out);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Whether the UTF-8 text s holds a Chinese character or full-width punctuation (CJK
 * symbols and punctuation, the unified ideographs and their extension A, compatibility
 * ideographs, full-width forms). */
static bool has_cjk(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned cp = *p;
        int more = cp < 0x80 ? 0 : (cp & 0xE0) == 0xC0 ? 1 : (cp & 0xF0) == 0xE0 ? 2 : 3;
        cp = more == 0 ? cp : more == 1 ? cp & 0x1F : more == 2 ? cp & 0x0F : cp & 0x07;
        p++;
        for (int i = 0; i < more && (*p & 0xC0) == 0x80; i++, p++)
            cp = cp << 6 | (*p & 0x3F);
        if ((cp >= 0x3000 && cp <= 0x303F) || (cp >= 0x3400 && cp <= 0x9FFF) ||
            (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFFEF))
            return true;
    }
    return false;
}

/* The number of strings (keys and values) in j holding CJK; the first one into first. */
static int cjk_strings(const json_t *j, char *first, size_t n)
{
    int k = 0;
    if (json_is_string(j)) {
        if (has_cjk(json_string_value(j))) {
            if (!*first)
                snprintf(first, n, "%s", json_string_value(j));
            k++;
        }
    } else if (json_is_object(j)) {
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)j, key, v) {
            if (has_cjk(key)) {
                if (!*first)
                    snprintf(first, n, "key %s", key);
                k++;
            }
            k += cjk_strings(v, first, n);
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v)
            k += cjk_strings(v, first, n);
    }
    return k;
}

/* Every JSON document of the file at path (one, or one per line) holds no CJK; the
 * number of documents. */
static int expect_neutral(const char *path, bool lines)
{
    char *text = slurp(path);
    int docs = 0;
    char first[512] = "";
    for (char *at = text; *at;) {
        char *end = lines ? strchr(at, '\n') : NULL;
        if (end)
            *end = '\0';
        json_error_t err;
        json_t *j = json_loads(at, JSON_DECODE_ANY, &err);
        if (!j)
            fail_msg("%s: not JSON (%s): %.200s", path, err.text, at);
        int k = cjk_strings(j, first, sizeof first);
        if (k)
            fail_msg("%s: %d strings in Chinese, the first: %s", path, k, first);
        json_decref(j);
        docs++;
        if (!end)
            break;
        at = end + 1;
    }
    hk_free(text);
    return docs;
}

/* Blanks the report's "generated" time (when it was rendered, not what it says). */
static void blank_generated(char *json)
{
    char *at = strstr(json, "\"generated\": \"");
    if (!at)
        return;
    for (at += strlen("\"generated\": \""); *at && *at != '"'; at++)
        *at = 'X';
}

static void expect_in(const char *what, const char *text, const char *needle)
{
    if (!strstr(text, needle))
        fail_msg("%s: expected \"%s\" in:\n%s", what, needle, text);
}

static void expect_not_in(const char *what, const char *text, const char *needle)
{
    if (strstr(text, needle))
        fail_msg("%s: did not expect \"%s\" in:\n%s", what, needle, text);
}

static char dir[] = "/tmp/hk-test-json-neutral-XXXXXX";
static bool made;

/* Episode 1: five candidates on the simulated GPU, the one at block 128 answering wrongly
 * (tests/data/episode/fake_harness.c); episode 2: no GPU (HK_NO_GPU), so it fails. Both in
 * zh-CN, from the environment. Once, for every test below. */
static void run_episodes(void)
{
    if (made)
        return;
    assert_non_null(mkdtemp(dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp %s/bench/kernels/saxpy.cu %s/", HK_SOURCE_DIR, dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(hk(dir, "LC_ALL=zh_CN.UTF-8",
                        "optimize saxpy.cu --kernel saxpy --spec " TINY " --budget 5 --seed 3 "
                        "--jobs 2 --db h.db --events --simulate-gpu",
                        "ev1.jsonl"),
                     0);
    assert_int_equal(hk(dir, "LC_ALL=zh_CN.UTF-8 HK_NO_GPU=1",
                        "optimize saxpy.cu --kernel saxpy --spec " TINY " --budget 1 --jobs 2 "
                        "--db h.db --json",
                        "done2.json"),
                     3);
    made = true;
}

/* --events and --json: no Chinese, and the rejection and the error are there in English. */
static void test_events_and_summary(void **state)
{
    (void)state;
    if (!usable())
        skip();
    run_episodes();
    char path[512];
    snprintf(path, sizeof path, "%s/ev1.jsonl", dir);
    assert_true(expect_neutral(path, true) > 10);
    char *ev = slurp(path);
    /* the rejected version's event: its code, and the referee's sentence in English */
    expect_in("events", ev, "\"status\":\"rejected\"");
    expect_in("events", ev, "\"reason\":\"wrong_answer\"");
    expect_in("events", ev, "max abs error");
    hk_free(ev);
    snprintf(path, sizeof path, "%s/done2.json", dir);
    assert_int_equal(expect_neutral(path, false), 1);
    char *done = slurp(path);
    expect_in("--json", done, "no GPU found: GPU use is disabled (HK_NO_GPU or the caller)");
    expect_in("--json", done, "\"no_gpu\": true");
    hk_free(done);
    /* the worker's lines on stderr are for people: Chinese, the rejection's too */
    snprintf(path, sizeof path, "%s/done2.json.err", dir);
    char *err = slurp(path);
    expect_in("stderr", err, "未找到 GPU：GPU 已被禁用（HK_NO_GPU 或调用方）");
    expect_not_in("stderr", err, "no GPU found");
    hk_free(err);
}

/* history --json and the report's JSON model: no Chinese, and the very bytes an English
 * session gets from the same database. */
static void test_history_and_report_json(void **state)
{
    (void)state;
    if (!usable())
        skip();
    run_episodes();
    const char *cmds[][2] = {
        {"history saxpy.cu --db h.db --json", "hist"},
        {"report 1 --db h.db --format json", "rep1"},
        {"report 2 --db h.db --format json", "rep2"},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char zh[64], en[64], pz[512], pe[512];
        snprintf(zh, sizeof zh, "%s.zh.json", cmds[i][1]);
        snprintf(en, sizeof en, "%s.en.json", cmds[i][1]);
        assert_int_equal(hk(dir, "LC_ALL=zh_CN.UTF-8", cmds[i][0], zh), 0);
        assert_int_equal(hk(dir, "LC_ALL=C", cmds[i][0], en), 0);
        snprintf(pz, sizeof pz, "%s/%s", dir, zh);
        snprintf(pe, sizeof pe, "%s/%s", dir, en);
        assert_int_equal(expect_neutral(pz, false), 1);
        char *a = slurp(pz), *b = slurp(pe);
        blank_generated(a);
        blank_generated(b);
        bool same = !strcmp(a, b);
        if (!same) {
            hk_free(a);
            hk_free(b);
            fail_msg("%s: zh-CN and English JSON differ (%s, %s)", cmds[i][0], pz, pe);
        }
        if (i == 0)
            expect_in(cmds[i][0], a, "no GPU found: GPU use is disabled");
        if (i == 1)
            expect_in(cmds[i][0], a, "max abs error");
        hk_free(a);
        hk_free(b);
    }
    /* the report the worker wrote beside the database: its JSON is neutral too */
    char path[512];
    snprintf(path, sizeof path, "%s/reports/1/episode-1.json", dir);
    assert_int_equal(expect_neutral(path, false), 1);
}

/* What a person reads says the stored English in their language: history's text and the
 * Markdown report in zh-CN, the English sentences as they are in English. */
static void test_human_outputs(void **state)
{
    (void)state;
    if (!usable())
        skip();
    run_episodes();
    char path[512];
    assert_int_equal(hk(dir, "LC_ALL=zh_CN.UTF-8", "history saxpy.cu --db h.db", "hist.zh.txt"), 0);
    snprintf(path, sizeof path, "%s/hist.zh.txt", dir);
    char *t = slurp(path);
    expect_in("history", t, "未找到 GPU：GPU 已被禁用（HK_NO_GPU 或调用方）");
    expect_not_in("history", t, "no GPU found");
    hk_free(t);
    assert_int_equal(hk(dir, "LC_ALL=C", "history saxpy.cu --db h.db", "hist.en.txt"), 0);
    snprintf(path, sizeof path, "%s/hist.en.txt", dir);
    t = slurp(path);
    expect_in("history (en)", t, "no GPU found: GPU use is disabled (HK_NO_GPU or the caller)");
    hk_free(t);

    /* the rejected version's details in the Markdown report: the referee's sentence and
     * the oracle's comparison inside it */
    assert_int_equal(hk(dir, "LC_ALL=zh_CN.UTF-8", "report 1 --db h.db --format md", "rep1.zh.md"),
                     0);
    snprintf(path, sizeof path, "%s/rep1.zh.md", dir);
    t = slurp(path);
    expect_in("report md", t, "wrong\\_answer");
    expect_in("report md", t, "最大绝对误差");
    expect_in("report md", t, "结果错误：");
    expect_not_in("report md", t, "max abs error");
    expect_not_in("report md", t, "wrong answer:");
    /* the best's memory-safety row, stored "vN: not checked (simulated GPU)" (session 30;
     * the settings fold further down lists the stored fields as they are) */
    expect_in("report md", t, "| 内存安全 | v");
    expect_in("report md", t, "：未检查（模拟 GPU） |");
    expect_not_in("report md", t, "| 内存安全 | v1: not");
    expect_not_in("report md", t, "| 内存安全 | v2: not");
    expect_not_in("report md", t, "| 内存安全 | v3: not");
    /* the isolation and correctness rows: the engine's words, stored in English */
    expect_in("report md", t, "| 正确性 | 由测试框架检查：");
    expect_not_in("report md", t, "| 隔离方式 | bwrap sandbox");
    expect_not_in("report md", t, "| 隔离方式 | namespace sandbox");
    expect_not_in("report md", t, "| 隔离方式 | network namespace");
    expect_not_in("report md", t, "| 隔离方式 | none: plain");
    hk_free(t);
    assert_int_equal(hk(dir, "LC_ALL=C", "report 1 --db h.db --format md", "rep1.en.md"), 0);
    snprintf(path, sizeof path, "%s/rep1.en.md", dir);
    t = slurp(path);
    expect_in("report md (en)", t, "max abs error");
    expect_in("report md (en)", t, "wrong answer: ");
    expect_in("report md (en)", t, "not checked (simulated GPU)");
    hk_free(t);
    /* the failed episode's error, in the report the worker wrote in zh-CN */
    snprintf(path, sizeof path, "%s/reports/2/episode-2.md", dir);
    t = slurp(path);
    expect_in("episode-2.md", t, "未找到 GPU：GPU 已被禁用");
    hk_free(t);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    assert_int_equal(system(path), 0);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_and_summary),
        cmocka_unit_test(test_history_and_report_json),
        cmocka_unit_test(test_human_outputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
