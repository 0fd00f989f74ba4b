/* i18n: the locale choice, the lookup, and the table itself (both languages for every
 * id, none empty, the same printf conversions in each language, valid UTF-8). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "core/hk.h"
#include "core/i18n.h"

static void pick_chinese_forms(void **state)
{
    static const char *const zh[] = {"zh", "zh_CN.UTF-8", "zh-CN", "zh-Hans", "zh-cn",
                                     "ZH_CN", "zh_CN.GB18030", "zh-Hans-CN", "zh_SG.UTF-8",
                                     "zh_CN.UTF-8@euro"};
    for (size_t i = 0; i < HK_ARRAY_LEN(zh); i++) {
        assert_int_equal(hk_i18n_parse(zh[i]), HK_LANG_ZH_CN);
        assert_int_equal(hk_i18n_pick(zh[i], NULL), HK_LANG_ZH_CN);
        assert_int_equal(hk_i18n_pick(NULL, zh[i]), HK_LANG_ZH_CN);
        assert_int_equal(hk_i18n_pick("", zh[i]), HK_LANG_ZH_CN);
    }
}

static void pick_everything_else_english(void **state)
{
    static const char *const en[] = {"en", "en_US.UTF-8", "C", "POSIX", "C.UTF-8", "",
                                     "de-DE", "ja", "zhx", "z", "zh-TW", "zh_TW.UTF-8",
                                     "zh-Hant", "zh-HK", "zh_MO", "chinese"};
    for (size_t i = 0; i < HK_ARRAY_LEN(en); i++) {
        assert_int_equal(hk_i18n_parse(en[i]), HK_LANG_EN);
        assert_int_equal(hk_i18n_pick(en[i], "zh_CN.UTF-8") == HK_LANG_EN, en[i][0] != '\0');
    }
    assert_int_equal(hk_i18n_parse(NULL), HK_LANG_EN);
    assert_int_equal(hk_i18n_pick(NULL, NULL), HK_LANG_EN);
}

/* The client's locale wins over the environment's, both ways. */
static void pick_client_before_environment(void **state)
{
    assert_int_equal(hk_i18n_pick("en", "zh_CN.UTF-8"), HK_LANG_EN);
    assert_int_equal(hk_i18n_pick("zh-CN", "en_US.UTF-8"), HK_LANG_ZH_CN);
    assert_int_equal(hk_i18n_pick(NULL, "en_US.UTF-8"), HK_LANG_EN);
}

/* POSIX order: LC_ALL, LC_MESSAGES, LANG; an empty one is skipped. */
static void environment_order(void **state)
{
    setenv("LANG", "en_US.UTF-8", 1);
    setenv("LC_MESSAGES", "zh_CN.UTF-8", 1);
    setenv("LC_ALL", "", 1);
    assert_string_equal(hk_i18n_env_locale(), "zh_CN.UTF-8");
    setenv("LC_ALL", "C", 1);
    assert_string_equal(hk_i18n_env_locale(), "C");
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    assert_string_equal(hk_i18n_env_locale(), "en_US.UTF-8");
    unsetenv("LANG");
    assert_null(hk_i18n_env_locale());
}

static void lookup_follows_current_language(void **state)
{
    assert_int_equal(hk_i18n_lang(), HK_LANG_EN); /* the default */
    assert_string_equal(hk_tr(HK_MSG_ACT_OPTIMIZE_NVIDIA), "Optimize for NVIDIA");
    hk_i18n_set(HK_LANG_ZH_CN);
    assert_string_equal(hk_tr(HK_MSG_ACT_OPTIMIZE_NVIDIA), "针对 NVIDIA 优化");
    char *s = hk_trf(HK_MSG_PROGRESS_DONE_BEST, 2.5, "");
    assert_non_null(s);
    assert_string_equal(s, "完成：最佳加速比 2.50x");
    hk_free(s);
    hk_i18n_set(HK_LANG_EN);
    s = hk_trf(HK_MSG_ACT_APPLY_SPEEDUP, 3, 1.234, hk_tr(HK_MSG_SIMULATED_WORD));
    assert_non_null(s);
    assert_string_equal(s, "Apply v3 (1.23x simulated)");
    hk_free(s);
    assert_string_equal(hk_tr_in(HK_LANG_ZH_CN, HK_MSG_LENS_REPORT), "报告");
    assert_string_equal(hk_tr((enum hk_msg)HK_MSG_COUNT), "");
    assert_string_equal(hk_lang_tag(HK_LANG_ZH_CN), "zh-CN");
    assert_string_equal(hk_lang_tag(HK_LANG_EN), "en");
}

/* The conversions of a printf format, flags and all ("%.2f", "%lld"), "%%" excluded,
 * written one after another into out. -1 on a conversion it cannot read. */
static int conversions(const char *f, char *out, size_t n)
{
    size_t k = 0;
    out[0] = '\0';
    for (const char *p = f; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        const char *q = p + 1;
        q += strspn(q, "-+ #0");
        q += strspn(q, "0123456789*");
        if (*q == '.') {
            q++;
            q += strspn(q, "0123456789*");
        }
        q += strspn(q, "hlLqjzt");
        if (!*q || !strchr("diouxXeEfFgGaAcspn", *q))
            return -1;
        size_t len = (size_t)(q - p) + 1;
        if (k + len + 2 > n)
            return -1;
        memcpy(out + k, p, len);
        k += len;
        out[k++] = ' ';
        out[k] = '\0';
        p = q;
    }
    return 0;
}

static bool valid_utf8(const unsigned char *s)
{
    while (*s) {
        int n = *s < 0x80 ? 0 : (*s & 0xe0) == 0xc0 ? 1 : (*s & 0xf0) == 0xe0 ? 2
                : (*s & 0xf8) == 0xf0 ? 3 : -1;
        if (n < 0 || (n == 1 && *s < 0xc2))
            return false;
        s++;
        for (int i = 0; i < n; i++, s++)
            if ((*s & 0xc0) != 0x80)
                return false;
    }
    return true;
}

static void table_is_complete_and_consistent(void **state)
{
    for (int id = 0; id < HK_MSG_COUNT; id++) {
        const char *name = hk_msg_name((enum hk_msg)id);
        const char *en = hk_msg_entry(HK_LANG_EN, (enum hk_msg)id);
        const char *zh = hk_msg_entry(HK_LANG_ZH_CN, (enum hk_msg)id);
        if (!*name || !en || !zh || !*en || !*zh)
            fail_msg("message %d (%s): missing or empty entry", id, name);
        char ce[256], cz[256];
        if (hk_msg_is_format((enum hk_msg)id)) {
            if (conversions(en, ce, sizeof ce) || conversions(zh, cz, sizeof cz))
                fail_msg("%s: unreadable printf conversion", name);
            if (strcmp(ce, cz))
                fail_msg("%s: conversions differ: en \"%s\", zh-CN \"%s\"", name, ce, cz);
            if (!ce[0])
                fail_msg("%s: a format without conversions (make it plain text, M)", name);
        } /* plain text ("% of roofline") is never read as a format */
        if (!valid_utf8((const unsigned char *)zh) || !valid_utf8((const unsigned char *)en))
            fail_msg("%s: not valid UTF-8", name);
        /* ids are stable names: unique */
        for (int j = 0; j < id; j++)
            if (!strcmp(name, hk_msg_name((enum hk_msg)j)))
                fail_msg("%s: two ids with one name", name);
    }
}

/* A thread's own language wins over the process's on that thread until it is put back
 * (spec inference writes its spec's notes in English this way); other threads keep the
 * process's. */
static void *tr_on_thread(void *arg)
{
    (void)arg;
    return (void *)hk_tr(HK_MSG_LENS_REPORT);
}

static void thread_language_overrides_the_process(void **state)
{
    (void)state;
    hk_i18n_set(HK_LANG_ZH_CN);
    int was = hk_i18n_thread_lang(HK_LANG_EN);
    assert_int_equal(was, -1);
    assert_int_equal(hk_i18n_lang(), HK_LANG_EN);
    assert_string_equal(hk_tr(HK_MSG_LENS_REPORT), "Report");
    pthread_t t;
    void *other = NULL;
    assert_int_equal(pthread_create(&t, NULL, tr_on_thread, NULL), 0);
    assert_int_equal(pthread_join(t, &other), 0);
    assert_string_equal((const char *)other, "报告"); /* the process's language there */
    assert_int_equal(hk_i18n_thread_lang(was), HK_LANG_EN);
    assert_string_equal(hk_tr(HK_MSG_LENS_REPORT), "报告");
    assert_int_equal(hk_i18n_lang(), HK_LANG_ZH_CN);
    hk_i18n_set(HK_LANG_EN);
}

/* The first n bytes of s in buf, as a bounded snprintf leaves them. */
static void cut(char *buf, const char *s, size_t n)
{
    memcpy(buf, s, n);
    buf[n] = '\0';
}

/* A cut Chinese sentence keeps whole characters only; whole text is kept as it is. */
static void utf8_trim_keeps_whole_characters(void **state)
{
    (void)state;
    char buf[32];
    cut(buf, "大小来自启动点", 15); /* 5 whole characters */
    hk_utf8_trim(buf);
    assert_string_equal(buf, "大小来自启");
    cut(buf, "ab大小来自", 7); /* "ab", 大 and 1 byte of 小 */
    hk_utf8_trim(buf);
    assert_string_equal(buf, "ab大");
    cut(buf, "ab大小来自", 10); /* 2 bytes of 来 */
    hk_utf8_trim(buf);
    assert_string_equal(buf, "ab大小");
    snprintf(buf, sizeof buf, "%s", "ab大小");
    hk_utf8_trim(buf);
    assert_string_equal(buf, "ab大小");
    snprintf(buf, sizeof buf, "%s", "plain");
    hk_utf8_trim(buf);
    assert_string_equal(buf, "plain");
    buf[0] = '\0';
    hk_utf8_trim(buf);
    assert_string_equal(buf, "");
}

/* The checker itself: it must see a difference the table could have. */
static void conversions_checker_sees_differences(void **state)
{
    char a[64], b[64];
    assert_int_equal(conversions("x %.2fx %s 100%%", a, sizeof a), 0);
    assert_string_equal(a, "%.2f %s ");
    assert_int_equal(conversions("%s %.2fx", b, sizeof b), 0);
    assert_string_not_equal(a, b);
    assert_int_equal(conversions("%lld", a, sizeof a), 0);
    assert_string_equal(a, "%lld ");
    assert_int_equal(conversions("bad %", a, sizeof a), -1);
    assert_false(valid_utf8((const unsigned char *)"\xe4\xb8"));
    assert_true(valid_utf8((const unsigned char *)"加速比"));
}

/* hk_tr_said (docs/i18n.md, "Stored in English, shown in the user's language"): a stored
 * English sentence said again in Chinese with the sentences it quotes, nothing for English
 * (shown byte for byte as stored), nothing for what no entry wrote (a Chinese sentence an
 * older hkls stored, words from outside the table), numbers only where a number was. */
static void said_again_where_shown(void **state)
{
    (void)state;
    /* a rejection four sentences deep, as the referee stores it */
    static const char *const stored =
        "re-check after the timing loop (size 1, seed 42): output 'y': wrong answer: 1 of "
        "4099 elements out of tolerance (first at 7: 2.4348197 vs baseline 1.43481982); max "
        "abs err 1, max rel err 0.697, rel L2 0.00737 (rtol 0.0001, atol 1e-05 + widening "
        "4.16e-07) (max abs error 1, max rel error 0.697)";
    char *zh = hk_tr_said(HK_LANG_ZH_CN, stored);
    assert_non_null(zh);
    assert_string_equal(zh, "计时循环之后的复查（规模 1，随机种子 42）：输出 'y'：结果错误：1 个元素"
                            "超出容差（共 4099 个；第一个在 7：2.4348197，基线为 1.43481982）；最大"
                            "绝对误差 1，最大相对误差 0.697，相对 L2 误差 0.00737（rtol 0.0001，atol "
                            "1e-05 + 放宽 4.16e-07）（最大绝对误差 1，最大相对误差 0.697）");
    hk_free(zh);
    assert_null(hk_tr_said(HK_LANG_EN, stored));
    /* the no-GPU error an episode stores, and the worker's end the editor records */
    zh = hk_tr_said(HK_LANG_ZH_CN, hk_tr_in(HK_LANG_EN, HK_MSG_EP_NO_GPU_FOUND));
    assert_non_null(zh);
    assert_string_equal(zh, hk_tr_in(HK_LANG_ZH_CN, HK_MSG_EP_NO_GPU_FOUND));
    hk_free(zh);
    zh = hk_tr_said(HK_LANG_ZH_CN, "the worker exited with status 3: boom");
    assert_non_null(zh);
    assert_string_equal(zh, "优化进程以状态 3 退出: boom");
    hk_free(zh);
    /* measure.c's last literal sentences (session 33), stored English, said again */
    zh = hk_tr_said(HK_LANG_ZH_CN, "exit status 0 without a result line: no output 'y'");
    assert_non_null(zh);
    assert_string_equal(zh, "退出状态为 0，但没有输出结果行：no output 'y'");
    hk_free(zh);
    zh = hk_tr_said(HK_LANG_ZH_CN, "could not start /tmp/x/run: no such file");
    assert_non_null(zh);
    assert_string_equal(zh, "无法启动 /tmp/x/run：no such file");
    hk_free(zh);
    zh = hk_tr_said(HK_LANG_ZH_CN, hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_WHY_ONE_SIZE));
    assert_non_null(zh);
    assert_string_equal(zh, hk_tr_in(HK_LANG_ZH_CN, HK_MSG_MEAS_WHY_ONE_SIZE));
    hk_free(zh);
    /* Chinese already stored, and words no entry wrote: shown as they are */
    assert_null(hk_tr_said(HK_LANG_ZH_CN, hk_tr_in(HK_LANG_ZH_CN, HK_MSG_EP_NO_GPU_FOUND)));
    assert_null(hk_tr_said(HK_LANG_ZH_CN, "completed"));
    assert_null(hk_tr_said(HK_LANG_ZH_CN, NULL));
    /* "v%d: %s" is no reading of a line whose "v" is followed by no number */
    assert_null(hk_tr_said(HK_LANG_ZH_CN, "v: memory safety: not checked (simulated GPU)"));
}

static void said_case(const char *stored, const char *want)
{
    char *zh = hk_tr_said(HK_LANG_ZH_CN, stored);
    if (!zh || strcmp(zh, want))
        fail_msg("said %s\nas   %s\nnot  %s", stored, zh ? zh : "(nothing)", want);
    hk_free(zh);
    assert_null(hk_tr_said(HK_LANG_EN, stored));
}

/* What session 30 added to the stored sentences a face says again (docs/i18n.md): a store
 * or report failure's prefix (SQLite's own words stay), a signal's name where strsignal's
 * was, the oracle's notes on a pass and the fp64 rule's sentences, the sanitizer's notes
 * (the episode's log line and report row for its best, "v1: ...") */
static void said_again_session30(void **state)
{
    (void)state;
    said_case("store: database is locked", "存储：database is locked");
    said_case("report: I/O error", "报告：I/O error");
    assert_string_equal(hk_signal_words(SIGSEGV), "Segmentation fault");
    assert_string_equal(hk_signal_words(SIGKILL), "Killed");
    said_case("killed by signal 11 (Segmentation fault): boom",
              "被信号 11（段错误）终止: boom");
    said_case("ok: 2 outputs within tolerance; max abs err 0, max rel err 0, rel L2 0",
              "通过：2 个输出在容差之内；最大绝对误差 0，最大相对误差 0，相对 L2 误差 0");
    said_case("ok: 1 output within tolerance; max abs err 1e-07, max rel err 2e-07, rel L2 3e-08; "
              "3 elements and an L2 error within the tolerance widened by the baseline's own error",
              "通过：1 个输出在容差之内；最大绝对误差 1e-07，最大相对误差 2e-07，相对 L2 误差 3e-08"
              "；3 个元素及一个 L2 误差在按基线自身误差放宽的容差之内");
    said_case("fp64 reference, error ratio: max error 0.5 vs the baseline's 0.001 (k=4, floor "
              "1e-06): 500x the baseline's own error, RMS over 2 runs (worst element 17)",
              "fp64 参考结果，误差比：最大误差 0.5，基线为 0.001（k=4，下限 1e-06）：是基线自身误差的 "
              "500 倍，2 次运行的均方根（最差的元素 17）");
    said_case("v1: memory safety: not checked (simulated GPU)",
              "v1：内存安全：未检查（模拟 GPU）");
    said_case("v2: not checked (simulated GPU)", "v2：未检查（模拟 GPU）");
    /* a version event's line: codes stay, the frame is said (it took 5-12 ms of CPU and
     * ran out of budget, unsaid, while the entry was "v%d %s%s%s (%s)") */
    said_case("v4 rejected: wrong_answer (builtin: block 128x1x1)",
              "v4 rejected：wrong_answer（builtin: block 128x1x1）");
    said_case("v2 queued (builtin: block 128x1x1)", "v2 queued（builtin: block 128x1x1）");
    said_case("no SASS to look for the evidence in (cuobjdump missing or failed)",
              "没有可查找证据的 SASS（缺少 cuobjdump 或其运行失败）");
    said_case(hk_tr_in(HK_LANG_EN, HK_MSG_EP_CORRECT_HARNESS),
              hk_tr_in(HK_LANG_ZH_CN, HK_MSG_EP_CORRECT_HARNESS));
    said_case("memory safety: checked by compute-sanitizer (memcheck, racecheck, initcheck: no "
              "findings; run mode at size 2 (4096 elements in the largest buffer), seed 42)",
              "内存安全：已由 compute-sanitizer 检查（memcheck、racecheck、initcheck：没有发现问题；"
              "运行模式，规模 2（最大的缓冲区有 4096 个元素），随机种子 42）");
    said_case("memory safety: not fully checked (memcheck no findings; racecheck not checked: "
              "timed out after 600 s without a finding; initcheck no findings; run mode at size "
              "2, seed 42)",
              "内存安全：未完全检查（memcheck 没有发现问题；racecheck 未检查：600 s 后超时，没有发现"
              "问题；initcheck 没有发现问题；运行模式，规模 2，随机种子 42）");
    /* the credit rule's note (a check that could not complete), its tool's note inside */
    said_case("memory safety could not be checked (compute-sanitizer racecheck: timed out after 1 s "
              "without a finding): a speedup over 2x is credited only once the tools have checked it, "
              "and this candidate claims 2.09x; measured, not credited",
              "内存安全未能检查完（compute-sanitizer racecheck：1 s 后超时，没有发现问题）：超过 2x 的加速比"
              "须经工具检查后才计入，该候选声称 2.09x；已测量，未计入");
}

/* Session 31 (issue 14): the command form's sentences, why the physical floor is missing
 * and why a speedup is not credited, hkls check's own diagnostics. Each stored sentence is
 * written exactly as the code writes it (the English entry is the code's old literal, so
 * stored English is unchanged) and said again in Chinese, with what it quotes. */
static void said_again_session31(void **state)
{
    (void)state;
    /* the English is byte for byte what the code wrote before the table held it */
    assert_string_equal(hk_tr_in(HK_LANG_EN, HK_MSG_CREDIT_NO_FLOOR),
                        "no physical floor (%s): the speedup is measured but not credited; "
                        "--allow-no-floor (episodes.allowNoFloor) credits it");
    assert_string_equal(hk_tr_in(HK_LANG_EN, HK_MSG_CF_RUN_EXIT_PRINTED),
                        "the run command exited with status %d and printed \"%s\"; its output:%s");
    /* the command form (measure/cmdform.c) */
    said_case("run 2: the run command hit the memory limit; its output: (no output)",
              "第 2 次运行：运行命令达到内存限制；其输出：（无输出）");
    said_case("the run command exited with status 3 and printed \"FAIL: 2 mismatches\"; its "
              "output:\nstdout:\nFAIL: 2 mismatches",
              "运行命令以状态 3 退出，并输出了 \"FAIL: 2 mismatches\"；其输出：\nstdout:\nFAIL: 2 mismatches");
    said_case("the program was killed by signal 11 (Segmentation fault; the shell's status 139); "
              "its output:\nstderr:\nboom",
              "程序被信号 11（段错误；shell 的退出状态 139）终止；其输出：\nstderr:\nboom");
    said_case("kernel scale was not launched (the program launched 2 other kernels: fill, sum)",
              "核函数 scale 没有被启动（程序启动了 2 个其他核函数：fill, sum）");
    said_case("the candidate has no definition of the kernel scale (1 other kernel found; it has "
              "syntax errors)",
              "候选版本中没有核函数 scale 的定义（找到 1 个其他核函数；其中有语法错误）");
    said_case("the candidate changes line 12, outside the definition of scale (in the command form "
              "only the kernel may change): `#define N 64`",
              "候选版本修改了第 12 行，它在 scale 的定义之外（command 形式中只允许修改核函数）：`#define N 64`");
    said_case("no CUPTI records were written (/w/records.jsonl): the injection library was not "
              "loaded (no GPU or CUDA driver, CUPTI missing, or the program never called CUDA)",
              "没有写出 CUPTI 记录（/w/records.jsonl）：注入库未被加载（没有 GPU 或 CUDA 驱动、缺少 "
              "CUPTI，或程序从未调用 CUDA）");
    said_case("cannot copy the workspace: the workspace has more than 20000 files (at /w/data)",
              "无法复制工作区：工作区的文件超过 20000 个（在 /w/data 处）");
    /* the physical floor and the credit (measure.c, episode.c): the floor's why inside */
    said_case("no physical floor (the device's peaks are unknown (the device probe failed, or it "
              "does not run on this GPU)): the speedup is measured but not credited; "
              "--allow-no-floor (episodes.allowNoFloor) credits it",
              "没有物理下限（设备的峰值未知（设备探测失败，或它没有在这块 GPU 上运行））：加速比已测量，"
              "但未计入；--allow-no-floor（episodes.allowNoFloor）可计入它");
    said_case("no physical floor (a command-form spec has no bytes or flops formula): the speedup "
              "is credited because no-floor credit was allowed (--allow-no-floor)",
              "没有物理下限（command 形式的 bench spec 没有 bytes 或 flops 公式）：因为允许无下限计入"
              "（--allow-no-floor），加速比已计入");
    said_case("the spec has a bytes formula but the peak bandwidth is unknown",
              "bench spec 有 bytes 公式，但峰值带宽未知");
    said_case("behind the leader (1.5 ms against its 1.25 ms): timed, its timed launches "
              "re-checked against the baseline's kernel, the full correctness set not run",
              "落后于当前领先版本（1.5 ms，领先版本 1.25 ms）：已计时，其计时的各次启动已对照基线核函数"
              "复查，未运行完整的正确性检查集");
    /* hkls check's own diagnostics */
    said_case("the compiler failed (exit 2): nvcc fatal   : Unknown option '-foo'",
              "编译器失败（退出码 2）：nvcc fatal   : Unknown option '-foo'");
    said_case("the compiler timed out and was killed", "编译器超时，已被终止");
    said_case("/src/blob.cu is not a text file (invalid UTF-8 at byte 51)",
              "/src/blob.cu 不是文本文件（无效的 UTF-8，位于第 51 字节）");
}

/* Session 32: the compile step's own sentences (measure.c: its limits, a compiler that
 * printed nothing, the kernel image), stored in English byte for byte as the literals
 * were, said again in Chinese; the editor's diagnostic for a compile it cannot place. */
static void said_again_session32(void **state)
{
    (void)state;
    assert_string_equal(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CC_MEMORY_LIMIT_NONE),
                        "the compiler ran out of memory under its limit (%llu MiB asked for; "
                        "none could be set here; HK_COMPILE_MEMORY_MB sets it)");
    said_case("the compiler was stopped at its CPU time limit (120 s per process; "
              "HK_COMPILE_CPU_S sets it)",
              "编译器达到 CPU 时间限制被终止（每个进程 120 秒；由 HK_COMPILE_CPU_S 设置）");
    said_case("the compiler was stopped at its file size limit (256 MiB per file written; "
              "HK_COMPILE_FILE_MB sets it)",
              "编译器达到文件大小限制被终止（每个写出的文件 256 MiB；由 HK_COMPILE_FILE_MB 设置）");
    said_case("the compiler ran out of memory under its limit (4096 MiB of address space per "
              "process; HK_COMPILE_MEMORY_MB sets it)",
              "编译器在内存限制内耗尽了内存（每个进程 4096 MiB 地址空间；由 HK_COMPILE_MEMORY_MB 设置）");
    said_case("the compiler ran out of memory under its limit (4096 MiB for the whole compile; "
              "HK_COMPILE_MEMORY_MB sets it)",
              "编译器在内存限制内耗尽了内存（整个编译共 4096 MiB；由 HK_COMPILE_MEMORY_MB 设置）");
    said_case("the compiler exited with status 1 and printed nothing",
              "编译器以状态 1 退出，没有任何输出");
    said_case("the compiler took longer than 60000 ms and was killed",
              "编译器耗时超过 60000 ms，已被终止");
    said_case("could not start the compiler: no such file",
              "无法启动编译器：no such file");
    said_case("no kernel entry in the image", "镜像中没有核函数入口");
    /* the clock check's why (measure_clock_check), in a check and a rejection */
    said_case("the candidate's device code reads the global timer (%globaltimer, PTX line 12: "
              "mov.u64 %rd1, %globaltimer;), which the baseline's does not: a kernel that reads "
              "a clock can tell timed, checked and sanitized launches apart",
              "候选版本的设备代码读取了全局计时器（globaltimer）（%globaltimer，PTX 第 12 行：mov.u64 "
              "%rd1, %globaltimer;），而基线的没有：读取时钟的核函数能区分计时、检查和 sanitizer 下的启动");
    said_case("no PTX beside the image (/tmp/k.cubin.ptx)", "镜像旁边没有 PTX（/tmp/k.cubin.ptx）");
    /* the local-memory check's why (measure_local_check) */
    said_case("the candidate's inline asm reaches local memory (.local, PTX line 42: ld.local.u32 "
              "%r8, [512];), which the baseline's does not: local memory outside the kernel's "
              "frame is not cleared before a launch, so a kernel can leave a mark there in one "
              "launch and find it in the next, and behave differently in the timed launches than "
              "in the checked and sanitized ones first",
              "候选版本的内联汇编访问了局部内存（.local，PTX 第 42 行：ld.local.u32 %r8, [512];），"
              "而基线的没有：核函数栈帧以外的局部内存在启动前不会被清零，核函数可以在一次启动中留下标记、"
              "在下一次启动中读到，从而在计时的启动中与先前检查和 sanitizer 下的启动表现不同");
    said_case("a DCU code object: its assembly is not read for local memory",
              "DCU 代码对象：未检查其汇编中的局部内存访问");
    /* the report model's diff error, said in the Markdown and HTML reports */
    said_case("the diff is too large to show (over the report's caps)",
              "差异太大，无法显示（超过报告的上限）");
    assert_string_equal(hk_tr_in(HK_LANG_EN, HK_MSG_LSP_ERR_BAD_STATUS),
                        "unknown status \"%.60s\" (running, completed, stopped, failed, "
                        "interrupted)");
    assert_string_equal(hk_tr_in(HK_LANG_EN, HK_MSG_REP_CHAIN_TO_BEST),
                        "Chain from baseline to best: ");
    /* the editor's diagnostic, made in the session's language on the pool */
    char *d = hk_asprintf(hk_tr_in(HK_LANG_ZH_CN, HK_MSG_LSP_COMPILER_EXITED), "nvcc", 2,
                          hk_tr_in(HK_LANG_ZH_CN, HK_MSG_LSP_COMPILER_NO_OUTPUT));
    assert_string_equal(d, "nvcc 以状态 2 退出：（无输出）");
    hk_free(d);
}

/* Session 34: the search's and the rewrites' sentences, stored in English (the episode
 * info's skills_tried and stacks_not_applied, hkls rewrites --json) and said where shown:
 * a refusal with its construct and line, a tunable's why through a local, a tunable not
 * searched, a second rewrite not stacked, a description with a plural of its own entry. */
static void said_again_session34(void **state)
{
    (void)state;
    said_case("statement at line 4: it is not a 2D kernel (indices from .x and .y)",
              "语句（第 4 行）：它不是二维核函数（索引来自 .x 和 .y）");
    said_case("grid-stride loop at line 12: no pow or powf call in its body",
              "网格跨步循环（第 12 行）：函数体中没有 pow 或 powf 调用");
    said_case("through TILE: used in a subscript of a[] (line 7)",
              "经由 TILE：用于 a[] 的下标（第 7 行）");
    said_case("TILE not searched: through T: used in the bound of a loop (line 7)",
              "TILE 未被搜索：经由 T：用于循环的边界（第 7 行）");
    said_case("vectorize not stacked on tiled_transpose: its output changes the launch",
              "vectorize 未叠加在 tiled_transpose 之上：它的输出改变了启动配置");
    said_case("a template parameter is set at the launch sites, and only the kernel's definition "
              "may change (line 9)",
              "模板参数在启动处设定，而只有核函数的定义可以修改（第 9 行）");
    said_case("kernel k: 1 pow/powf call with a run-time exponent (the first at line 5) multiplied "
              "out for exponents 0-4, and the literal ones routed the same way",
              "核函数 k：1 个指数在运行时才确定的 pow/powf 调用（第一个在第 5 行）在指数为 0-4 "
              "时展开为乘法，指数为字面量的调用也改走同一路径");
}


/* Session 35: hk_tr_said, hk_tr_note and hk_tr_back look entries up through an index made
 * once from the table (the editor's loop says each episode event with them). The index
 * must give the plain scan's answer on every line: each entry's text in both languages as
 * it is, each format filled with numbers and words, and with another entry's English
 * sentence in its %s (a nested reading), and lines no entry matches. */

/* The format f with each conversion replaced: numbers by "7" ("1.5" for the floating
 * ones), %s by word, %c by 'c'. New string (hk_free). */
static char *fill_format(const char *f, const char *word)
{
    size_t cap = strlen(f) * 2 + 64 + strlen(f) * strlen(word);
    char *out = hk_malloc(cap), *o = out;
    assert_non_null(out);
    while (*f) {
        if (f[0] == '%' && f[1] == '%') {
            *o++ = '%';
            f += 2;
            continue;
        }
        if (f[0] != '%') {
            *o++ = *f++;
            continue;
        }
        size_t i = 1;
        while (f[i] && !strchr("diouxXeEfgGcsp", f[i]))
            i++;
        assert_true(f[i]);
        const char *x = f[i] == 's' ? word : f[i] == 'c' ? "c" : strchr("eEfgG", f[i]) ? "1.5" : "7";
        size_t n = strlen(x);
        memcpy(o, x, n);
        o += n;
        f += i + 1;
    }
    *o = '\0';
    return out;
}

static bool same_answer(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Each of hk_tr_said, hk_tr_note (zh-CN) and hk_tr_back (English, the inference notes'
 * range) on line, through the index and by the scan: the same. Returns whether hk_tr_said
 * said it. */
static bool index_agrees(const char *line)
{
    char *got[3][2];
    for (int ix = 0; ix < 2; ix++) {
        hk_i18n_back_index(ix == 1);
        got[0][ix] = hk_tr_said(HK_LANG_ZH_CN, line);
        got[1][ix] = hk_tr_note(HK_LANG_ZH_CN, line);
        got[2][ix] = hk_tr_back(HK_LANG_EN, line, HK_MSG_INF_INCLUDE_DIRS,
                                HK_MSG_INF_FRAG_MULTIPLIES);
    }
    hk_i18n_back_index(true);
    bool said = got[0][1] != NULL;
    for (int k = 0; k < 3; k++) {
        if (!same_answer(got[k][0], got[k][1]))
            fail_msg("%s: the index and the scan differ on\n  %s\nscan:  %s\nindex: %s",
                     k == 0 ? "hk_tr_said" : k == 1 ? "hk_tr_note" : "hk_tr_back", line,
                     got[k][0] ? got[k][0] : "(nothing)", got[k][1] ? got[k][1] : "(nothing)");
        hk_free(got[k][0]);
        hk_free(got[k][1]);
    }
    return said;
}

static void index_answers_as_the_scan(void **state)
{
    (void)state;
    int lines = 0, said = 0, plain = -1;
    for (int id = 0; id < HK_MSG_COUNT; id++) {
        for (int l = 0; l < HK_LANG_COUNT; l++) {
            const char *t = hk_msg_entry((enum hk_lang)l, (enum hk_msg)id);
            said += index_agrees(t);
            lines++;
            if (!hk_msg_is_format((enum hk_msg)id))
                continue;
            /* a format filled, with a word and with the last plain entry's sentence */
            const char *nested = plain >= 0 ? hk_msg_entry((enum hk_lang)l, (enum hk_msg)plain) : "x";
            for (int k = 0; k < 2; k++) {
                char *line = fill_format(t, k ? nested : "abc");
                said += index_agrees(line);
                lines++;
                hk_free(line);
            }
        }
        if (!hk_msg_is_format((enum hk_msg)id))
            plain = id;
    }
    static const char *const none[] = {
        "", "x", "%s", "%%", "zzzz no entry reads like this at all", "  leading spaces",
        "some sentence no entry matches at all (line 3)", "\xe4\xb8\xad\xe6\x96\x87",
        "a: b: c: d: e: f: g: h (line 1) (line 2)", "v1 v2 v3; ; , , ; ;",
        /* sentences nested deeper than the budget lets it read (BACK_BUDGET runs out
         * half way: the same tries spent, the same part said) */
        "v1 rejected: wrong_answer: size 0: wrong answer: a: b: c: d: e: f: g: h: i: j: k: "
        "l: m: n: o: p (line 1) (line 2) (line 3)",
        "through A: through B: through C: through D: through E: through F: through G: "
        "through H: used in the bound of a loop (line 7)",
        "A not searched: B not searched: C not searched: D not searched: E not searched: "
        "F not searched: G not searched: used in the bound of a loop (line 7)",
        "statement at line 4: statement at line 5: statement at line 6: statement at line 7: "
        "statement at line 8: statement at line 9: it is not a 2D kernel (indices from .x "
        "and .y)",
    };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        index_agrees(none[i]);
    /* not a vacuous comparison: most sentences are said */
    assert_true(said > lines / 5);
    /* and one that nests three entries, through the index */
    said_case("TILE not searched: through T: used in the bound of a loop (line 7)",
              "TILE 未被搜索：经由 T：用于循环的边界（第 7 行）");
}

/* What session 35 added (the section "rewrites, session 35"): channel_chunks' and
 * warp_rows' refusals, with the construct and the wrapper, a rows refusal about what lane 0
 * stored, a warp_rows description with its float4 clause, one of channel_chunks' chunk
 * choices (one sentence per way chosen), vectorize's, unroll's, BLAS substitution's, fast
 * math's, tiled_permute's, online_softmax's and stencil_window's refusals */
static void said_again_session35(void **state)
{
    (void)state;
    said_case("channel_chunks not applicable to kernel k: coordinate at line 5: `x` is not a coordinate "
              "`i / A % B` of the counter",
              "channel_chunks 不适用于核函数 k：坐标（第 5 行）：`x` 不是计数器的坐标 `i / A % B`");
    said_case("call at line 7: `f(...)` passes 2 arguments to 3 parameters (defaults are not read)",
              "函数调用（第 7 行）：`f(...)` 把 2 个实参传给 3 个形参（不读取默认参数）");
    said_case("warp_rows (row_threads 128) not applicable to kernel k: it uses shared memory",
              "warp_rows（row_threads 128）不适用于核函数 k：它使用了共享内存");
    said_case("warp_rows not applicable to kernel k: `y[i]`, stored by lane 0 at line 9, is used at line 12 "
              "other than by subscript",
              "warp_rows 不适用于核函数 k：`y[i]`（由 lane 0 在第 9 行写入）在第 12 行以下标以外的方式被使用");
    said_case("kernel k: one warp per row `r` instead of one thread (rows grid-strided over the warps), 1 column "
              "loop over the lanes, 2 warp reductions by __shfl_xor_sync, 1 lane-0 store; float4 loads/stores "
              "in 1 of 1 column loop (16-byte aligned rows, scalar tail and fallback)",
              "核函数 k：每行 `r` 改由一个 warp 处理，而不是一个线程（各行以网格跨步方式分配给各 warp），1 个列循环"
              "由 warp 的各 lane 分担，2 次用 __shfl_xor_sync 的 warp 归约，1 处写入由 lane 0 完成；1 / 1 个列循环"
              "使用 float4 读写（行按 16 字节对齐，尾部与回退用标量）");
    said_case("chunk 8 chosen: 12 per-element registers, about 128 a thread at C_K 8, keeps half the SM's "
              "threads of 256 threads; the chunks fill the GPU",
              "选择分块 8：每个元素占 12 个寄存器，每线程约 128 个（C_K 为 8 时），在每线程块 256 个线程下仍能"
              "保持 SM 一半的驻留线程；分块后仍能占满 GPU");
    /* vectorize's refusal for a pointer read at another index, one sentence per reason */
    said_case("vectorize not applicable to kernel k: statement at line 4: pointer x is used other than as x[i] or "
              "x[s * i + k] (another index, a dereference or the pointer itself) and is written, so its elements "
              "are not the thread's own: only a pointer the kernel never writes is read per element at another "
              "index",
              "vectorize 不适用于核函数 k：语句（第 4 行）：指针 x 除了作为 x[i] 或 x[s * i + k] 之外还有其他用法"
              "（另一个索引、解引用或指针本身），并且它被写入，因此它的元素不归本线程所有：只有核函数从不写入的指针"
              "才能在另一个索引处逐元素读取");
    said_case("unroll not applicable to kernel k: no innermost for-loop with a constant trip count for full "
              "unrolling (line 3, 7)",
              "unroll 不适用于核函数 k：没有迭代次数为常量、可完全展开的最内层 for 循环（第 3, 7 行）");
    said_case("BLAS substitution not applicable to kernel k: line 5: element types float, double, float: only "
              "float or double throughout is substituted",
              "BLAS substitution 不适用于核函数 k：第 5 行：元素类型为 float、double、float：只替换全部为 float "
              "或全部为 double 的情况");
    said_case("fast math not applicable to kernel k: no expf, logf, sinf, cosf, tanf, powf, sincosf, exp10f, "
              "log2f, log10f call (nor exp, log, sin, ... on float arguments) or float division in its body "
              "(divisions of integers, doubles or unknown types are left)",
              "fast math 不适用于核函数 k：函数体中没有 expf、logf、sinf、cosf、tanf、powf、sincosf、exp10f、"
              "log2f、log10f 调用（也没有参数为 float 的 exp、log、sin 等调用），也没有 float 除法（整数、double "
              "或未知类型的除法保持不变）");
    /* what hkls rewrites shows: the locator's construct and line, then the reason alone */
    said_case("parameter list at line 3: no expf, logf, sinf, cosf, tanf, powf, sincosf, exp10f, log2f, log10f "
              "call (nor exp, log, sin, ... on float arguments) or float division in its body",
              "参数列表（第 3 行）：函数体中没有 expf、logf、sinf、cosf、tanf、powf、sincosf、exp10f、log2f、"
              "log10f 调用（也没有参数为 float 的 exp、log、sin 等调用），也没有 float 除法");
    said_case("tiled_permute not applicable to kernel k: line 4: an atomic on out besides the permuted copy",
              "tiled_permute 不适用于核函数 k：第 4 行：除了排列复制之外还有对 out 的原子操作");
    said_case("online_softmax not applicable to kernel k: the first column loop is not a maximum "
              "`m = fmaxf(m, x[c])`",
              "online_softmax 不适用于核函数 k：第一个列循环不是求最大值 `m = fmaxf(m, x[c])`");
    said_case("stencil_window not applicable to kernel k: line 12: a __shared__ array (tile): the kernel "
              "already tiles through shared memory",
              "stencil_window 不适用于核函数 k：第 12 行：有 __shared__ 数组（tile）：核函数已经通过共享内存分块");
}

/* Session 36: a line hk_tr_said read wrongly, and the kernel model's sentences. Read-only
 * loads' "already" refusal with a skipped list, as hkls rewrites shows it: the list item's
 * entry ("%s%s (written or passed on)") has more literal text than the line's own entry
 * ("%s at line %d: %s") and ends as the line does, so it took the whole line for an item
 * whose name was the rest of it (said mostly English, the budget spent on its splits). An
 * item's separator is "", ", " or "; " and its name an identifier (back_item_piece). */
static void said_again_session36(void **state)
{
    (void)state;
    said_case("statement at line 3: read-only loads: kernel k already loads its read-only pointers through "
              "__ldg; skipped: b (written or passed on)",
              "语句（第 3 行）：read-only loads：核函数 k 已经通过 __ldg 读取其只读指针；跳过：b（被写入或被传出）");
    said_case("statement at line 3: read-only loads: kernel k already loads its read-only pointers through "
              "__ldg; skipped: b (written or passed on), c (a launch passes it as b too, which is written)",
              "语句（第 3 行）：read-only loads：核函数 k 已经通过 __ldg 读取其只读指针；跳过：b（被写入或被传出）"
              "，c（某处启动也把它作为 b 传入，而后者会被写入）");
    /* an item alone is still read as one */
    said_case("b (written or passed on)", "b（被写入或被传出）");
    /* the kernel model: a class summary's near miss, hkls rewrites' closest class, a
     * rewrite's refusal quoting the reason */
    said_case("near gemm: line 7: the k loop (line 9) steps by more than 1",
              "接近 gemm：第 7 行：k 循环（第 9 行）的步长大于 1");
    said_case("softmax (line 306): the sum of exponentials (line 306) has no row maximum subtracted",
              "softmax（第 306 行）：指数和（第 306 行）没有减去行最大值");
    said_case("near reduction: line 384: out[...] combines s over the loop at line 382 but no input is split "
              "among the outputs (table[...] is gathered through a value read from memory): a map with an inner "
              "loop, not a reduction",
              "接近 reduction：第 384 行：out[...] 合并 s（循环在第 382 行），但没有输入被划分到各个输出"
              "（table[...] 通过从内存读取的值间接访问）：这是带内层循环的映射，不是归约");
    said_case("near gemm: line 12: the tile As is not filled once per iteration of the loop around the k loop "
              "(line 15): its load is guarded (ragged tiles are not seen through)",
              "接近 gemm：第 12 行：分块 As 不是在 k 循环（第 15 行）外层循环的每次迭代中填充一次：它的读取带有条件"
              "保护（无法看穿不完整的分块）");
    said_case("no kernel model: no kernel named foo", "没有核函数模型：没有名为 foo 的核函数");
    /* warp_reduce (rewrite_reduce.c): its reason then the model's, joined by "; " (a list
     * of whole sentences: the tail read as the separator and a sentence) */
    said_case("warp reduce not applicable to kernel k: the guarded statement is not atomicAdd/atomicMax/atomicMin; "
              "the kernel model classes it elementwise, not a reduction",
              "warp reduce 不适用于核函数 k：受保护的语句不是 atomicAdd/atomicMax/atomicMin；核函数模型把它归为 "
              "elementwise，而不是归约");
    said_case("warp reduce not applicable to kernel k: line 4: a row reduction by a loop: only a global one by "
              "per-thread atomics into one location becomes a register",
              "warp reduce 不适用于核函数 k：第 4 行：row 归约，方式为循环：只有每个线程以原子操作归约到同一位置的"
              "全局归约才能改为寄存器");
    /* privatized_histogram (rewrite_privhist.c) and the shared matchers it and the others
     * quote (rewrite_recognize.c: bounds check, histogram, rows, GEMM/GEMV) */
    said_case("privatized histogram not applicable to kernel k: line 7: the bin count is not known (a constant, a "
              "template parameter or a parameter)",
              "privatized histogram 不适用于核函数 k：第 7 行：桶的数量未知（应为常量、模板参数或参数）");
    said_case("kernel k: privatized histogram of bins, 256 shared unsigned int counters per block (HK_BINS, a guess: "
              "other bins go to global memory), one atomic per bin per block, grid-stride over i",
              "核函数 k：bins 的私有化直方图，每个线程块 256 个共享内存中的 unsigned int 计数器（HK_BINS，为猜测值：其余的"
              "桶写入全局内存），每个线程块对每个桶做一次原子操作，对 i 做网格跨步循环");
    said_case("bounds check at line 5: the guarded statement is not one atomicAdd(&hist[bin], value)",
              "边界检查（第 5 行）：受保护的语句不是单个 atomicAdd(&hist[bin], value)");
    said_case("statement at line 3: the indices are not a GEMM's (row from .y, column from .x, batch from .z) or a "
              "GEMV's (row from .x)",
              "语句（第 3 行）：索引既不是 GEMM 的（行来自 .y，列来自 .x，批次来自 .z），也不是 GEMV 的（行来自 .x）");
    /* periodic_trips (rewrite_period.c), whose grid-stride loop reader channel_chunks and
     * staged_gather quote too */
    said_case("grid-stride loop at line 4: no grid-stride loop at the kernel body's top level (the kernel model "
              "reads none)",
              "网格跨步循环（第 4 行）：核函数体的顶层没有网格跨步循环（核函数模型也没有识别出）");
    said_case("periodic_trips not applicable to kernel k: counter at line 6: the counter `i` is used other than as "
              "`i % A` or `i / A % B`: that value grows with the counter, the trips do not repeat",
              "periodic_trips 不适用于核函数 k：计数器（第 6 行）：计数器 `i` 除了 `i % A` 或 `i / A % B` 之外还有其他"
              "用法：该值随计数器增长，各次迭代不会重复");
    said_case("divisor at line 5: the divisor `w` is written in the kernel",
              "除数（第 5 行）：除数 `w` 在核函数中被写入");
    /* tiled_gemm (rewrite_gemm.c) */
    said_case("statement at line 3: it is not a 2D kernel (row from .y, column from .x)",
              "语句（第 3 行）：它不是二维核函数（行来自 .y，列来自 .x）");
    /* register_carry (rewrite_carry.c) */
    said_case("kernel body at line 2: no block-strided loop `for (T k = threadIdx.x; k < N; k += S)` inside an "
              "outer loop",
              "核函数体（第 2 行）：外层循环中没有线程块跨步循环 `for (T k = threadIdx.x; k < N; k += S)`");
    said_case("block-strided loop at line 6: no loop around it: each element is moved once, nothing to carry",
              "线程块跨步循环（第 6 行）：外面没有循环：每个元素只搬移一次，没有可跨迭代保留的值");
    said_case("loop at line 9: the last column loop does not write an element of a pointer parameter",
              "循环（第 9 行）：最后一个列循环没有写入指针参数的元素");
    said_case("kernel k: float reduction (shared-memory tree) -> grid-stride register accumulation (float4 loads "
              "when aligned), __shfl_down_sync warp reduction, one shared slot per warp, one atomicAdd per block",
              "核函数 k：float 归约（共享内存树形归约）-> 以网格跨步方式在寄存器中累加（对齐时用 float4 读取），用 "
              "__shfl_down_sync 做 warp 归约，每个 warp 一个共享内存槽，每个线程块一次 atomicAdd");
}

/* Session 37 (rewrite_splitk.c, rewrite_split.c, rewrite_gsplit.c, rewrite_topk.c): what
 * hkls rewrites' rows do not show (descriptions, with the notes a description carries as a
 * list tail; a refusal built from a variant per word), said again from the English stored */
static void said_again_session37(void **state)
{
    (void)state;
    /* split_k_columns (rewrite_splitk.c) */
    said_case("split_k_columns not applicable to kernel rowsum: loop at line 5: its loads are strided across the threads (`A` at line 6), none contiguous: a thread per row, which warp_rows serves",
              "split_k_columns 不适用于核函数 rowsum：循环（第 5 行）：其加载在线程间是跨步的（`A`，第 6 行），没有连续访问：这是每个线程处理一行，应由 warp_rows 处理");
    said_case("kernel colsum: split-K over the rows, 8 slices per column `j` summed into `y[j]` (a block of T threads takes T / 8 columns, 32 at 256 threads; the partial sums are added in __shared__ memory, in slice order, and one thread per column runs the statements before and after the loop once). The sum is reassociated (each slice in the original order, then the slices), which changes float rounding. Any block and grid: column groups are grid-strided, so it gains under a grid of ceil(columns / 32) blocks or more",
              "核函数 colsum：沿行方向做 split-K，每列分为 8 个切片，列 `j` 求和到 `y[j]`（T 个线程的线程块处理 T / 8 列，32 列对应 256 个线程；部分和在 __shared__ 共享内存中按切片顺序相加，每列由一个线程把循环之前和之后的语句各执行一次）。求和被重新结合（每个切片内保持原顺序，再按切片相加），会改变浮点舍入。任意线程块与网格均可：列组以网格跨步方式分配，因此在 ceil(columns / 32) 个或更多线程块的网格下才有收益");
    /* split_item_loop, split_block_item (rewrite_split.c): the notes after the description said as a list tail */
    said_case("kernel rows: the loop over the items (line 3) takes gridDim.x / N blocks per item when the grid has more blocks than items, and each of them one part of the loops strided over the threads (lines 4, 7): the idle blocks share the items' work; the spec's launch: 1024 blocks for 64 items at size set 1, 16 blocks per item",
              "核函数 rows：当网格中的线程块多于数据项时，遍历数据项的循环（第 3 行）为每个数据项分配 gridDim.x / N 个线程块，每个线程块执行各个按线程跨步的循环（第 4, 7 行）的一部分：空闲的线程块分担数据项的工作；bench spec 的启动配置：1024 个线程块对应 64 个数据项（尺寸组 1），每个数据项 16 个线程块");
    said_case("kernel rows: each block's item gets 4 blocks along y; block (x, y) runs part y of the loop strided over the threads (line 5), the item's other stores in blockIdx.y == 0 only: the idle block slots share the items' work; the spec's launch at size set 1: 64 blocks where 264 fit, 4 parts per item (256 blocks, 97% of the last wave used). Launch with the grid multiplied by 4 along y; then its loops' loads of 4 trips issued together (load_batching)",
              "核函数 rows：每个线程块的数据项沿 y 方向分配 4 个线程块；线程块 (x, y) 执行按线程跨步的循环（第 5 行）的第 y 部分，数据项的其他存储只在 blockIdx.y == 0 中执行：空闲的线程块槽位分担数据项的工作；尺寸组 1 下 bench spec 的启动配置：64 个线程块，而 GPU 可容纳 264 个；每个数据项 4 个部分（256 个线程块，最后一波使用了 97%）。启动时网格沿 y 方向乘以 4；随后其循环中 4 次迭代的加载被一起发出（load_batching）");
    said_case("split_block_item not applicable to kernel rows: access at line 9: x reads x, which the per-item statement at line 12 writes; that statement runs in part 0 only",
              "split_block_item 不适用于核函数 rows：访问（第 9 行）：x 读取 x，而第 12 行的逐数据项语句写入它；该语句只在第 0 部分执行");
    said_case("loop at line 6: the thread loop's condition is not `i < bound`",
              "循环（第 6 行）：遍历线程的循环的条件不是 `i < bound`");
    /* split_grid_partials (rewrite_gsplit.c) */
    said_case("store at line 7: the value stored is not a sum accumulator that starts at 0, combined after the loop only with itself across the warp",
              "写入（第 7 行）：存储的值不是从 0 开始的 sum 累加器，或在循环之后不只是在线程束内与自身合并");
    said_case("kernel total: each of the spec's 264 blocks becomes S = 4 (launch 1056 blocks): part s takes every S-th step of the grid-stride loop (line 5) and writes a scratch partial; the last part of each block (an atomic ticket) combines the S partials in s order with the loop's sum and writes out[b] (a float sum is reordered: the spec's tolerance judges); fewer than 528 blocks run the original. The partials and tickets are one set per kernel name: launches of this kernel (any template instance) must not overlap on different streams",
              "核函数 total：bench spec 的 264 个线程块各变为 S = 4 个（启动 1056 个线程块）：第 s 部分执行网格跨步循环（第 5 行）中每隔 S 步的一步，并写入一个临时部分结果；每个线程块最后完成的部分（通过原子计数票据判断）用循环的 sum 按 s 的顺序合并这 S 个部分结果，并写入 out[b]（浮点求和的顺序被改变：由 bench spec 的容差来判定）；线程块少于 528 个时运行原始版本。部分结果和票据按核函数名各有一份：该核函数（任何模板实例）的多次启动不能在不同的流上重叠执行");
    said_case("loop at line 4: the grid-stride loop does not combine into per-thread state by one of +, max, min (no combine)",
              "循环（第 4 行）：网格跨步循环没有用 +、max、min 之一合并到每线程的状态（没有合并）");
    /* split_topk_scan (rewrite_topk.c) */
    said_case("call at line 5: `foo` before the item loop may write memory: P lanes would each do it",
              "函数调用（第 5 行）：数据项循环之前的 `foo` 可能写入内存：P 个通道都会各执行一次");
    said_case("kernel knn: each query of the loop at line 3 gets 4 adjacent lanes; the item loop of line 6 is split over them (items k = start + part + 4 j) and their top-3 lists (`b0`, `i0`, ...) are merged by (value, lower index) with __shfl_xor_sync: the sequential result exactly, ties and NaN included; part 0 runs what follows the loop. Launch with the grid multiplied by 4 along x",
              "核函数 knn：第 3 行循环的每个查询分配 4 个相邻通道；第 6 行的数据项循环在它们之间拆分（数据项 k = start + part + 4 j），各通道的 top-3 列表（`b0`、`i0`、...）用 __shfl_xor_sync 按 (value, 较小的 index) 合并：结果与顺序执行完全一致，包括相等值和 NaN；循环之后的语句由第 0 部分执行。启动时网格沿 x 方向乘以 4");
    said_case("statement before the query loop at line 2: only declarations and `if (...) return;` may come before it",
              "查询循环之前的语句（第 2 行）：它之前只允许有声明和 `if (...) return;`");
}

/* Session 38 (rewrite_grid2d.c, rewrite_tiles.c, rewrite_colsum.c, rewrite_coarsen.c,
 * rewrite_ilp.c, rewrite_block_tree.c, rewrite_gather.c, rewrite.c): what hkls rewrites' rows do not show (the
 * descriptions, one sentence per form; a refusal built from a variant per word), said again
 * from the English stored */
static void said_again_session38(void **state)
{
    (void)state;
    /* grid_stride_2d (rewrite_grid2d.c): the flat form, and the strips with why the register windows
     * could not be used said inside */
    said_case("kernel add2d: one grid-stride loop over R x C elements with c (contiguous; was from the x axis) fastest, r slowest (if (... < ... && ...) form); elementwise on contiguous rows: one flat loop, float4 when aligned",
              "核函数 add2d：用一个网格跨步循环遍历 R x C 个元素，c 变化最快（连续；原来来自 x 轴），r 变化最慢（if (... < ... && ...) 形式）；连续行上的逐元素计算：一个展平的循环，对齐时使用 float4");
    said_case("kernel sten: one grid-stride loop over R x C elements with c (contiguous; was from the x axis) fastest, r slowest (if (... >= ...) return form); strips of HK_STRIP (no register windows: `a[r * C + c + 2]` is not an element (s + ds) * W + (f + df) with |ds|, |df| <= 1)",
              "核函数 sten：用一个网格跨步循环遍历 R x C 个元素，c 变化最快（连续；原来来自 x 轴），r 变化最慢（if (... >= ...) return 形式）；按 HK_STRIP 分条（不使用寄存器窗口：`a[r * C + c + 2]` 不是形如 (s + ds) * W + (f + df) 且 |ds|、|df| <= 1 的元素）");
    /* uniform_tiles (rewrite_tiles.c): the barrier flag's form with the loop's break; the call-copy note */
    said_case("kernel nn: the loop at line 7 reads 2 arrays through __shared__ tiles of 256 (loaded once per block, coalesced; full tiles unrolled by 4; the grid-stride loop's iterations made the block's; its break skips the remaining tiles; exact: the same updates in the same order)",
              "核函数 nn：第 7 行的循环通过 __shared__ 分块读取 2 个数组，分块大小为 256（每个线程块加载一次，合并访存；完整分块展开 4 次；网格跨步循环的迭代改为由整个线程块一起推进；其 break 跳过剩余的分块；结果精确：更新相同，顺序相同）");
    said_case("kernel nn: the loop at line 7 reads 1 array through __shared__ tiles of 256 (loaded once per block, coalesced; full tiles unrolled by 4; early returns kept as a flag; exact: the same updates in the same order); the reads of the call at line 12 first copied into a local array hk_ua (the same elements, read before the call that reads each of them)",
              "核函数 nn：第 7 行的循环通过 __shared__ 分块读取 1 个数组，分块大小为 256（每个线程块加载一次，合并访存；完整分块展开 4 次；提前返回保留为标志变量；结果精确：更新相同，顺序相同）；第 12 行调用中的读取先复制到局部数组 hk_ua 中（相同的元素，在读取它们的调用之前读取）");
    /* coalesced_columns (rewrite_colsum.c): rows split, not split (why), no spec */
    said_case("kernel cs: coalesced columns: a block sums 32 adjacent columns of in (rows `rows`, row stride `cols`), threadIdx.x % 32 along the columns and threadIdx.x / 32 splitting the rows, the slices' float partial sums added in shared memory, one store per column (`+=`, as the original's at line 14); 32 columns per block (chosen; sector width 8), strips: 2 of the spec's 64 columns, blocks: 16 for a wave of 264 blocks of 1024 (132 SMs); rows split over 8 blocks per strip, their partial totals added by atomicAdd (the order of the additions changes from launch to launch); the spec's grid divided by 4 along x; the order of the additions changes (a reduction's tolerance applies)",
              "核函数 cs：合并访存的列求和：一个线程块负责 32 个相邻列（属于 in）的求和（行数 `rows`，行跨度 `cols`），threadIdx.x % 32 沿列方向，threadIdx.x / 32 拆分行，各行切片的 float 部分和在共享内存中相加，每列一次存储（`+=`，与原始代码第 14 行相同）；每个线程块 32 列（自动选择；扇区宽度 8），条带：2 个（bench spec 共 64 列），线程块：16 个，对应一个波次 264 个 1024 线程的线程块（132 个 SM）；每个条带的行拆分到 8 个线程块上，各部分总和用 atomicAdd 相加（每次启动的相加顺序都可能不同）；bench spec 的网格沿 x 方向除以 4；相加顺序改变（采用归约的容差）");
    said_case("kernel cs: coalesced columns: a block sums 16 adjacent columns of in (rows `rows`, row stride `cols`), threadIdx.x % 16 along the columns and threadIdx.x / 16 splitting the rows, the slices' float partial sums added in shared memory, one store per column (`=`, as the original's at line 14); 16 columns per block (the parameter; sector width 8), strips: 4 of the spec's 64 columns, blocks: 4 for a wave of 264 blocks of 1024 (132 SMs, assumed); rows not split: the store is `=`: a partial total would overwrite the others; the spec's grid divided by 16 along x; the order of the additions changes (a reduction's tolerance applies)",
              "核函数 cs：合并访存的列求和：一个线程块负责 16 个相邻列（属于 in）的求和（行数 `rows`，行跨度 `cols`），threadIdx.x % 16 沿列方向，threadIdx.x / 16 拆分行，各行切片的 float 部分和在共享内存中相加，每列一次存储（`=`，与原始代码第 14 行相同）；每个线程块 16 列（由参数给定；扇区宽度 8），条带：4 个（bench spec 共 64 列），线程块：4 个，对应一个波次 264 个 1024 线程的线程块（假定 132 个 SM）；行未拆分：存储是 `=`：一个部分总和会覆盖其他部分总和；bench spec 的网格沿 x 方向除以 16；相加顺序改变（采用归约的容差）");
    said_case("kernel cs: coalesced columns: a block sums 32 adjacent columns of in (rows `rows`, row stride `cols`), threadIdx.x % 32 along the columns and threadIdx.x / 32 splitting the rows, the slices' float partial sums added in shared memory, one store per column (`=`, as the original's at line 14); 32 columns per block (no spec's columns to choose from; sector width 8); the spec's grid divided by 32 along x; the order of the additions changes (a reduction's tolerance applies); exact only under one block per column (grid = the row stride)",
              "核函数 cs：合并访存的列求和：一个线程块负责 32 个相邻列（属于 in）的求和（行数 `rows`，行跨度 `cols`），threadIdx.x % 32 沿列方向，threadIdx.x / 32 拆分行，各行切片的 float 部分和在共享内存中相加，每列一次存储（`=`，与原始代码第 14 行相同）；每个线程块 32 列（没有 bench spec 的列数可供选择；扇区宽度 8）；bench spec 的网格沿 x 方向除以 32；相加顺序改变（采用归约的容差）；仅在每列一个线程块（网格 = 行跨度）时与原版一致");
    /* coarsen (rewrite_coarsen.c): its loops' lines as a list; the copies' return flags; the virtual
     * blocks' note; a refusal with its reads/writes variant */
    said_case("kernel k: the loops strided over the grid (line 4, line 9) handle 4 elements per trip in one unrolled loop, each under its own bounds check; the grid divided by K along x",
              "核函数 k：按网格跨步的各循环（第 4 行，第 9 行）每次迭代在一个展开的循环中处理 4 个元素，每个元素各自做边界检查；网格沿 x 方向除以 K");
    said_case("kernel k: the loop strided over the grid (line 4) handles 4 elements per trip in one unrolled loop, each under its own bounds check; the grid divided by K along x; a return that differs between elements ends its copy's later trips (a flag per copy: each copy is one of the original's threads): exact because K divides the spec's grid at every size, and only under the spec's grid",
              "核函数 k：按网格跨步的循环（第 4 行）每次迭代在一个展开的循环中处理 4 个元素，每个元素各自做边界检查；网格沿 x 方向除以 K；因元素而异的 return 会结束其副本后续的迭代（每个副本一个标志：每个副本对应原始代码的一个线程）：因为 K 在每组规模下都整除 bench spec 的网格，结果精确，且仅在 bench spec 的网格下精确");
    said_case("kernel k: each block runs 4 blocks of the original grid (blockIdx.y * 4 + c) in one unrolled loop, a return leaving only its own element; the grid divided by 4 along y; no bounds check: the virtual blocks at or past the spec's grid along y (ny) are skipped, exact under the spec's grid only",
              "核函数 k：每个线程块在一个展开的循环中运行原始网格的 4 个线程块（blockIdx.y * 4 + c），return 只结束它自己的那个元素；网格除以 4（沿 y 方向）；没有边界检查：沿 y 方向达到或超出 bench spec 网格（ny）的虚拟线程块被跳过，仅在 bench spec 的网格下精确");
    said_case("coarsen not applicable to kernel k: access at line 7: x reads an element of x other than the one written at line 8: one element may depend on another's, and coarsening reorders them",
              "coarsen 不适用于核函数 k：访问（第 7 行）：x 读取了 x 中第 8 行所写元素以外的元素：一个元素可能依赖另一个元素，而线程粗化会改变它们的顺序");
    /* the "not applicable" wrapper around "CONSTRUCT at line N: REASON" with a plain REASON:
     * read with the kernel name "k: warp intrinsic at line 5" until session 38 (back_score) */
    said_case("coarsen not applicable to kernel k: warp intrinsic at line 5: a warp intrinsic exchanges values between lanes, which hold other elements once each thread handles K",
              "coarsen 不适用于核函数 k：线程束内建函数（第 5 行）：线程束内建函数在各 lane 之间交换数据，而每个线程处理 K 个元素后，各 lane 持有的是别的元素");
    said_case("split_topk_scan not applicable to kernel knn: update at line 5: not a braced block",
              "split_topk_scan 不适用于核函数 knn：更新（第 5 行）：不是花括号语句块");
    /* ilp_accumulators (rewrite_ilp.c): two accumulators */
    said_case("kernel dot: the sum into `sum` (line 4), `s2` (line 9) split into 4 independent partial sums, 4 elements per trip and a remainder loop, combined once after the loop (reassociates the sum: float rounding changes; the launch is the kernel's own)",
              "核函数 dot：对 `sum`（第 4 行）、`s2`（第 9 行） 的求和拆分为 4 个独立的部分和，每次迭代处理 4 个元素并带一个余数循环，在循环之后合并一次（求和被重新结合：浮点舍入会改变；启动配置沿用核函数自己的）");
    /* block_reduce (rewrite_block_tree.c): the tree with thread 0's carry; the key form with the named
     * size; the pair form; a refusal with its read/written variant */
    said_case("kernel red: shared-memory tree sum of s (float, loop at line 9) -> warp shuffles, one shared slot per warp; s[0] holds the block's result as before (and thread 0's register carry acc), the code before and after the tree is unchanged (same outputs, same per-block partials, same launch); the order of the combination changes (a float sum may differ in its last bits); assumes a power-of-two 1-D block as the tree does",
              "核函数 red：共享内存上对 s 的求和归约树（float，循环在第 9 行）-> 线程束洗牌，每个线程束一个共享内存槽；s[0] 与之前一样保存线程块的结果（以及 0 号线程的寄存器携带值 acc），归约树之前和之后的代码不变（输出相同、每个线程块的部分结果相同、启动配置相同）；合并顺序改变（float 求和的最后几位可能不同）；与原归约树一样假定一维线程块大小为 2 的幂");
    said_case("kernel am: shared-memory argmax tree of (v, ix) (float, int; loop at line 11) -> one max of a 64-bit key (the value's order << 32 | the slot's tie rank in the halving tree: the largest bit-reversed slot wins among equal values, as in the tree), xor shuffles and one shared stage, 2 barriers instead of one per level and no transpose; v[0] and ix[0] take the winning slot's pair (the tree's for every input without NaN, but for the sign of a zero in v[0] when +0 and -0 tie; NaN is ordered by its bits, above +inf when positive); assumes a power-of-two 1-D block of at most 1024 threads equal to the tree's named size",
              "核函数 am：共享内存上的 argmax 归约树，作用于 (v, ix)（float，int；循环在第 11 行）-> 对一个 64 位键取一次最大值（值的序 << 32 | 该槽位在折半树中的平局序号：相等值中位反转序号最大的槽位胜出，与原归约树相同），异或洗牌加一级共享内存，用 2 次同步屏障代替每层一次，且无需转置；v[0] 和 ix[0] 取胜出槽位的值对（对任何不含 NaN 的输入都与原归约树相同，只是 +0 与 -0 相等时 v[0] 中零的符号可能不同；NaN 按其位模式排序，正 NaN 排在 +inf 之上）；假定一维线程块大小为 2 的幂且最多 1024 个线程，且等于归约树中具名的大小");
    said_case("kernel am: shared-memory argmin tree of (v, ix) (float, int; loop at line 11) -> warp shuffles in the tree's own order of combination (warp a takes slots a, a + W, a + 2W, ...: transposed in v and ix themselves, 2 x 32 shared slots added), 4 barriers instead of one per level; v[0] and ix[0] hold what the tree left there for every input (equal values: the lower slot's index, as in the tree), the code before and after the tree is unchanged; assumes a power-of-two 1-D block of at most 1024 threads",
              "核函数 am：共享内存上的 argmin 归约树，作用于 (v, ix)（float，int；循环在第 11 行）-> 按归约树自身的合并顺序做线程束洗牌（线程束 a 取槽位 a、a + W、a + 2W、...：在 v 和 ix 内部转置，另加 2 x 32 个共享内存槽），用 4 次同步屏障代替每层一次；对任何输入，v[0] 和 ix[0] 都保存原归约树留在那里的值（相等值时取较低槽位的索引，与原归约树相同），归约树之前和之后的代码不变；假定一维线程块大小为 2 的幂且最多 1024 个线程");
    said_case("line 14: s is read after the tree at another place than s[0]: the other slots hold the tree's intermediate sums",
              "第 14 行：s 在归约树之后于 s[0] 以外的位置被读取：其他槽位保存的是归约树的中间和");
    /* staged_gather (rewrite_gather.c): the description; a refusal per place (before the loop) */
    said_case("kernel gk: the 2 read(s) of `tab` in the grid-stride loop at line 4 gather into the row blockIdx.y/z pick (extent up to 4096 elements, 512 gathers per row): up to 49152 bytes of the row staged in shared memory once per block, gathers there served from it (exact); the grid divided by 4 along x (up to 16 items per thread, fewer blocks per row)",
              "核函数 gk：网格跨步循环中的 2 次 `tab` 读取（第 4 行的循环）间接落在 blockIdx.y/z 选定的行中（行范围最多 4096 个元素，每行 512 次间接读取）：每个线程块把该行最多 49152 字节一次性暂存到共享内存中，落在其中的间接读取由共享内存提供（结果精确）；网格沿 x 方向除以 4（每个线程最多 16 个数据项，每行的线程块更少）");
    said_case("thread index at line 3: `threadIdx` before the loop: an item's work would depend on the thread that runs it under the divided grid",
              "线程索引（第 3 行）：循环之前的 `threadIdx`：网格被划分后，数据项的计算会依赖于执行它的线程");
    /* rewrite.c (launch_bounds, restrict, tunables, grid_stride): a template parameter's
     * description per default and plural, its refusal with the reason said inside */
    said_case("set template parameter BS of reduce = 256 (default and 2 uses)",
              "设置模板参数 BS（属于 reduce）= 256（默认值和 2 处使用）");
    said_case("template parameter BS of reduce: its launches give it a non-literal argument",
              "模板参数 BS（属于 reduce）：它的启动给它传入的不是字面量参数");
    said_case("kernel k: add __restrict__ to a, b; const to a",
              "核函数 k：为 a, b 添加 __restrict__；为 a 添加 const");
}


/* Session 39 (promote.c, rewrite_batch.c, rewrite_launch.c, ...): the sentences said
 * again from the English stored, where no hkls rewrites row shows them */
static void said_again_session39(void **state)
{
    (void)state;
    /* promote.c: the fp64 shadow's refusals, one sentence per construct kind (was a kind's
     * words pasted in), and inside the worker's accuracy line */
    said_case("float vector type 'float4' (line 1) in 'k': double vectors change alignment and load widths",
              "浮点向量类型 'float4'（第 1 行，位于 'k'）：双精度向量会改变对齐方式和加载宽度");
    said_case("texture 'tex1Dfetch' (line 2) in 'k': it has no faithful double form here",
              "纹理 'tex1Dfetch'（第 2 行，位于 'k'）：它在这里没有等价的双精度形式");
    said_case("template argument 1 of 'k' is half: half precision has no faithful double form",
              "模板实参 1（属于 'k'）为 half：半精度没有等价的双精度形式");
    said_case("file-scope declaration with float 'g' (line 1), used in 'k' (line 3): it stays float in the shadow",
              "含 float 的文件作用域声明 'g'（第 1 行，在 'k' 中使用，第 3 行）：它在影子版本中仍是 float");
    said_case("launch of kernel 'j' from device code in 'k' (line 3): dynamic parallelism is not promoted",
              "从设备代码启动核函数 'j'（位于 'k'，第 3 行）：动态并行不会提升为 fp64");
    said_case("accuracy: no fp64 reference (macro 'SQ' (line 1), used in 'k' (line 3), holds float code ('1.5f'): it is not promoted): the spec's tolerance decides alone",
              "精度：没有 fp64 参考（宏 'SQ'（第 1 行，在 'k' 中使用，第 3 行）含有 float 代码（'1.5f'）：它不会被提升）：仅由 bench spec 的容差判定");
    /* load_batching (rewrite_batch.c): the description with two loops (an item per loop, one
     * sentence per number of loads), a refusal with the "nothing ahead" tail, in the wrapper */
    said_case("kernel two_loops: the loop at line 3 (1 load), line 7 (2 loads) issues the loads of 4 trips together, then runs the 4 bodies in their own order (same elements, same order per thread: bit-identical; the launch is the kernel's own)",
              "核函数 two_loops：第 3 行（1 次加载），第 7 行（2 次加载）的循环把 4 次迭代的加载一起发出，再按原顺序运行这 4 个循环体（元素相同，每个线程的顺序相同：结果逐位一致；启动配置沿用核函数自己的）");
    said_case("load_batching not applicable to kernel cond_load: write at line 16: `b` is written in the loop (so no load of a read-only buffer can be issued ahead)",
              "load_batching 不适用于核函数 cond_load：写操作（第 16 行）：`b` 在循环中被写入（因此没有对只读缓冲区的加载可以提前发出）");
    /* unroll_jam_scan (rewrite_scan.c): the description with a break (was a clause pasted in) */
    said_case("kernel knn1: the item loop of line 6 computes 4 items' values (1 declarations, from `d`) before running their updates in order, a break ending the scan at its item; the remaining items run in the original loop (exact: same expressions, same update order)",
              "核函数 knn1：第 6 行的数据项循环先计算 4 个数据项的值（1 个声明，从 `d` 开始），再按顺序执行它们的更新，break 在它所在的数据项处结束扫描；剩余的数据项在原循环中执行（结果精确：表达式相同，更新顺序相同）");
    /* double_narrowing (rewrite_narrow.c): the description per number with rewrite_ilp.c's
     * two-item list; a refusal per rounding direction (was a word pasted in) */
    said_case("kernel nn2: the double locals `best` (line 3), `second` (line 4) narrowed to float (they only hold float values and literals whose float rounding keeps every comparison, and are only compared, copied and stored to float: exact, bit for bit)",
              "核函数 nn2：double 局部变量 `best`（第 3 行）、`second`（第 4 行）窄化为 float（它们只保存 float 值和在 float 中舍入后不改变任何比较结果的字面量，且只被比较、复制和存储到 float：结果精确，逐位一致）");
    said_case("double_narrowing not applicable to kernel nn3: comparison at line 28: `best` may hold a literal that float rounds up, and this comparison differs for the float equal to the rounded literal",
              "double_narrowing 不适用于核函数 nn3：比较（第 28 行）：`best` 可能保存一个在 float 中向上舍入的字面量，而对于等于舍入后字面量的 float，这个比较的结果不同");
    /* invariant_table (rewrite_table.c): the description */
    said_case("kernel phase: `w`, a pure function of `j = ... % K`, is computed once per block into a __shared__ table of up to 64 entries (HK_TABLE) and read back by index; the same expression and types (bit-identical), computed directly when j is outside [0, K) or K exceeds the table",
              "核函数 phase：`w` 是 `j = ... % K` 的纯函数，每个线程块把它计算一次，存入最多 64 项的 __shared__ 表（HK_TABLE），再按索引读回；表达式和类型不变（结果逐位一致），当 j 不在 [0, K) 内或 K 超出表的大小时直接计算");
    /* digit_order (rewrite_digits.c): the description with its weighing (a list entry per
     * number of digits), the refusal that quotes it */
    said_case("kernel nbr_for: the flat index `i` of the grid-stride loop at line 37 is read with digit ((((i) / (J*P))) % (C)) innermost (32-byte sectors per warp, weighted by loop trips: `((i) % (J))` 1036 (innermost now), `((((i) / (J))) % (P))` 1088, `((((i) / (J*P))) % (C))` 113, `((i) / (C*J*P))` 1088): each element is computed by the same statements on the same index, bit-identical, on the same grid (the original order runs when the bound is not a multiple of the outermost digit's stride)",
              "核函数 nbr_for：网格跨步循环的展平索引 `i`（第 37 行的循环）改为以数位 ((((i) / (J*P))) % (C)) 为最内层读取（每个线程束访问的 32 字节扇区数，按循环迭代次数加权：`((i) % (J))` 1036（当前最内层），`((((i) / (J))) % (P))` 1088，`((((i) / (J*P))) % (C))` 113，`((i) / (C*J*P))` 1088）：每个元素由相同的语句在相同的索引上计算，结果逐位一致，网格不变（当边界不是最外层数位跨度的整数倍时按原顺序运行）");
    said_case("digit_order not applicable to kernel nbr_good: grid-stride loop at line 77: its innermost digit is already the best (32-byte sectors per warp, weighted by loop trips: `((i) % (C))` 68 (innermost now), `((((i) / (C))) % (P))` 544, `((i) / (C*P))` 544)",
              "digit_order 不适用于核函数 nbr_good：网格跨步循环（第 77 行）：其最内层数位已经是最佳的（每个线程束访问的 32 字节扇区数，按循环迭代次数加权：`((i) % (C))` 68（当前最内层），`((((i) / (C))) % (P))` 544，`((i) / (C*P))` 544）");
    /* register_threshold (rewrite_thresh.c): the description around its elements */
    said_case("kernel knn3: best[0], [1], compared by 1 guard(s) of the loop at line 4, kept in a register (a copy refreshed at the end of each guard's branch, the only place the loop writes best) instead of re-read from local memory every trip (exact)",
              "核函数 knn3：best[0], [1] 被 1 个守卫条件（属于第 4 行的循环）比较，改为保存在寄存器中（副本在每个守卫条件分支的末尾刷新，这是循环唯一写入 best 的地方），不再每次迭代都从本地内存重新读取（结果精确）");
    /* merge_barriers (rewrite_barriers.c): the description per number, with the first
     * removed barrier's sides (was a clause pasted in); the refusal's tail, in the wrapper */
    said_case("kernel stages: 2 of 3 __syncthreads() removed (lines 8, 10) (the first between n_row and w_col): the accesses on either side of each touch different shared memory and write no other memory, so the stages' loads go out together",
              "核函数 stages：2 个 __syncthreads()（共 3 个）被移除（第 8, 10 行）（第一个位于 n_row 与 w_col 之间）：每个同步屏障两侧的访问涉及不同的共享内存，且不写入其他内存，因此各阶段的加载可以一起发出");
    said_case("merge_barriers not applicable to kernel needed: barrier at line 20: __shared__ `s` is written on one side and accessed on the other (and every other barrier is needed too)",
              "merge_barriers 不适用于核函数 needed：同步屏障（第 20 行）：__shared__ `s` 在一侧被写入，在另一侧被访问（其他每个同步屏障也都是必需的）");
    /* table_hoist (rewrite_hoist.c): the description per number and helpers (was a plural
     * and a clause pasted in), uniform_tiles' description said inside */
    said_case("kernel count_above: the loop at line 10 reads 4 arrays through __shared__ tiles of 256 (loaded once per block, coalesced; full tiles unrolled by 4; early returns kept as a flag; exact: the same updates in the same order); 2 values that every thread computed alike per element (a math function of the element and of values the same for every thread) computed once per block and element by its loader into __shared__ tiles",
              "核函数 count_above：第 10 行的循环通过 __shared__ 分块读取 4 个数组，分块大小为 256（每个线程块加载一次，合并访存；完整分块展开 4 次；提前返回保留为标志变量；结果精确：更新相同，顺序相同）；原本每个线程对每个元素都以相同方式计算的 2 个值（元素以及对所有线程都相同的值的数学函数），改为由加载代码对每个线程块、每个元素只计算一次，存入 __shared__ 分块");
    /* histogram_lane_replicas (rewrite_hist.c): the description per origin of the bin count
     * and per load form (were words pasted in); its wrapper's name is a phrase of the table */
    said_case("kernel histogram: histogram of bins with 32 lane replicas of 256 bins in shared memory (HK_LANES, HK_BINS, inferred; 32768 bytes of unsigned int), shared atomics without bank conflicts, 16-byte uint4 loads of the bytes, one global atomic per non-zero bin per block",
              "核函数 histogram：bins 的直方图在共享内存中有 32 个 lane 副本，每个副本 256 个桶（HK_LANES、HK_BINS，桶数为推断所得；32768 字节，unsigned int 类型），共享内存原子操作没有 bank 冲突，按 16 字节的 uint4 加载字节数据，每个线程块对每个非零桶只做一次全局原子操作");
    said_case("histogram lane replicas not applicable to kernel k: the counter type float is not unsigned int, int or unsigned long long (integer sums are exact in any order; float sums would round differently)",
              "直方图 lane 副本 不适用于核函数 k：计数器类型 float 不是 unsigned int、int 或 unsigned long long（整数求和以任何顺序都是精确的；浮点求和的舍入会不同）");
}

/* Whether s holds three English words in a row (letters only, two or more each, one space
 * apart: "is not atomic"): a sentence a zh-CN user would read in English. */
static bool three_english_words(const char *s)
{
    int run = 0;
    const char *p = s;
    while (*p) {
        const char *w = p;
        while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
            p++;
        bool word = p - w >= 2 && (*p == ' ' || *p == '\0');
        run = word ? run + 1 : 0;
        if (run >= 3)
            return true;
        if (p == w || !word)
            while (*p && *p != ' ')
                p++;
        while (*p == ' ')
            p++;
    }
    return false;
}

/* Session 40 (i18n10): the episode worker's stored sentences, the memory limit's words,
 * hk_strerror's, the framer's, the JSON-RPC layer's and the editor server's, spec
 * inference's refusals and fragments, the CLI's lines: Chinese in zh-CN, and hk_strerror
 * English whatever the language (it is quoted in stored sentences and JSON). */
static void said_again_session40(void **state)
{
    (void)state;
    for (int id = HK_MSG_INFX_NO_EVAL_GRID_XY; id <= HK_MSG_OPTX_BASELINE_FAILED; id++) {
        const char *zh = hk_tr_in(HK_LANG_ZH_CN, (enum hk_msg)id);
        if (three_english_words(zh))
            fail_msg("entry %d in English: %s", id, zh);
    }
    assert_true(three_english_words("the fp64 shadow does not build"));
    assert_false(three_english_words("a buffer past 2 GiB"));
    assert_false(three_english_words("v%d：未检查（compute-sanitizer 未运行）"));
    /* the worker's sentences, as it stores them, said again */
    said_case("v3: not checked (compute-sanitizer did not run)", "v3：未检查（compute-sanitizer 未运行）");
    said_case("v2: not checked (command-form spec: the user's program does not run under compute-sanitizer)",
              "v2：未检查（命令形式的 spec：用户的程序不在 compute-sanitizer 下运行）");
    said_case("start: best verified version of earlier episodes", "起点：以往优化任务中经过验证的最佳版本");
    said_case("a 41.20x speedup (over 20x) did not reproduce on the second look: 1.05x in fresh copies (baseline 2.5 ms, candidate 2.38 ms), outside +-25% of the first",
              "41.20x 的加速比（超过 20x）在复查时未能重现：在新副本中为 1.05x（基线 2.5 ms，候选版本 2.38 ms），超出首次结果的 +-25%");
    said_case("cannot write the benchmark program: out of memory", "无法写入基准测试程序：内存不足");
    said_case("the fp64 shadow gave no reference", "fp64 影子版本没有给出参考结果");
    said_case("none: no writable memory cgroup, and RLIMIT_AS would break the CUDA driver",
              "无：没有可写的内存 cgroup，而 RLIMIT_AS 会破坏 CUDA 驱动");
    said_case("the tree-sitter runtime refused the tree-sitter-cuda grammar",
              "tree-sitter 运行时拒绝了 tree-sitter-cuda 语法");
    /* a spec note quoting a fragment of the block, read back as the inference told it */
    char *zh = hk_tr_note(HK_LANG_ZH_CN, "count of out guessed as n, 4.0 MB at sizes[0] and 64 MB at sizes[1]");
    assert_non_null(zh);
    assert_string_equal(zh, "out 的元素个数推测为 n，sizes[0] 处 4.0 MB，sizes[1] 处 64 MB");
    hk_free(zh);
    /* hk_strerror stays English in zh-CN; hk_strerror_tr speaks it */
    hk_i18n_set(HK_LANG_ZH_CN);
    assert_string_equal(hk_strerror(HK_ENOMEM), "out of memory");
    assert_string_equal(hk_strerror(HK_ESTALE), "changed since the work began");
    assert_string_equal(hk_strerror(12345), "unknown error");
    assert_string_equal(hk_strerror_tr(HK_ENOMEM), "内存不足");
    assert_string_equal(hk_strerror_tr(HK_ECHILD), "子进程失败");
    assert_string_equal(hk_tr(HK_MSG_RPC_PARAMS_TYPE), "\"params\" 必须是对象或数组");
    hk_i18n_set(HK_LANG_EN);
    assert_string_equal(hk_strerror_tr(HK_ENOMEM), "out of memory");
    assert_string_equal(hk_strerror_tr(HK_ENOGPU), "no GPU found");
    assert_string_equal(hk_tr(HK_MSG_TR_MALFORMED_HEADER), "malformed header line (expected 'Name: value')");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pick_chinese_forms),
        cmocka_unit_test(pick_everything_else_english),
        cmocka_unit_test(pick_client_before_environment),
        cmocka_unit_test(environment_order),
        cmocka_unit_test(lookup_follows_current_language),
        cmocka_unit_test(table_is_complete_and_consistent),
        cmocka_unit_test(conversions_checker_sees_differences),
        cmocka_unit_test(utf8_trim_keeps_whole_characters),
        cmocka_unit_test(thread_language_overrides_the_process),
        cmocka_unit_test(said_again_where_shown),
        cmocka_unit_test(said_again_session30),
        cmocka_unit_test(said_again_session31),
        cmocka_unit_test(said_again_session32),
        cmocka_unit_test(said_again_session34),
        cmocka_unit_test(index_answers_as_the_scan),
        cmocka_unit_test(said_again_session35),
        cmocka_unit_test(said_again_session36),
        cmocka_unit_test(said_again_session37),
        cmocka_unit_test(said_again_session38),
        cmocka_unit_test(said_again_session39),
        cmocka_unit_test(said_again_session40),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
