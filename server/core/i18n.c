/* The message table and the language choice (docs/i18n.md). The Chinese follows what
 * CUDA/DCU engineers in China say: 核函数, 加速比, 基线, 带宽, 屋顶线模型; names that are
 * the product's own (bench spec, episode ids, NVIDIA, DCU) stay as they are. */
#include "core/i18n.h"

#include "core/hk.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hk_msg_entry {
    const char *name;
    const char *text[HK_LANG_COUNT];
};

#define M(id, en, zh) [HK_MSG_##id] = {#id, {en, zh}}

/* A gap in this table (an id with no row) reads as NULL: the unit test finds it. */
static const struct hk_msg_entry msgs[HK_MSG_COUNT] = {
    M(ACT_OPTIMIZE_NVIDIA, "Optimize for NVIDIA", "针对 NVIDIA 优化"),
    M(ACT_OPTIMIZE_DCU, "Optimize for DCU", "针对 DCU 优化"),
    M(ACT_OPTIMIZE_NVIDIA_WITH, "Optimize for NVIDIA with %s", "用 %s 针对 NVIDIA 优化"),
    M(ACT_CREATE_SPEC, "Create benchmark spec", "创建基准测试描述 (bench spec)"),
    M(ACT_SHOW_REPORT, "Show report", "查看报告"),
    M(ACT_APPLY_SPEEDUP, "Apply v%d (%.2fx%s)", "应用 v%d（加速比 %.2fx%s）"),
    M(ACT_APPLY, "Apply v%d%s", "应用 v%d%s"),
    M(LENS_OPTIMIZE_NVIDIA, "Optimize (NVIDIA)", "优化 (NVIDIA)"),
    M(LENS_OPTIMIZE_DCU, "Optimize (DCU)", "优化 (DCU)"),
    M(LENS_BEST_APPLY, "best %.2fx%s (v%d) - Apply", "最佳加速比 %.2fx%s (v%d) - 应用"),
    M(LENS_REPORT, "Report", "报告"),
    M(SIMULATED_WORD, " simulated", "，模拟"),
    M(SIMULATED_PAREN, " (simulated)", "（模拟）"),
    M(SIMULATED_GPU_PAREN, " (simulated GPU)", "（模拟 GPU）"),
    M(PROGRESS_TITLE, "Optimize %s (%s)", "优化核函数 %s (%s)"),
    M(PROGRESS_STARTING, "starting", "正在启动"),
    M(PROGRESS_STOPPING, "stopping", "正在停止"),
    M(PROGRESS_STOPPED, "stopped", "已停止"),
    M(PROGRESS_NO_GPU, "no GPU: stopping", "未找到 GPU：正在停止"),
    M(PROGRESS_DONE_BEST, "done: best %.2fx%s", "完成：最佳加速比 %.2fx%s"),
    M(PROGRESS_DONE_NONE, "done: no faster version found", "完成：未找到更快的版本"),
    M(PROGRESS_FAILED, "failed: %.480s", "失败：%.480s"),
    M(PROGRESS_SPEC_INFERRED, "spec inferred and saved to %s: %s",
      "已推断 bench spec 并保存到 %s：%s"),
    M(STAGE_INIT, "init", "初始化"),
    M(STAGE_SPEC, "spec", "bench spec"),
    M(STAGE_BASELINE, "baseline", "基线测量"),
    M(STAGE_OPTIMIZE, "optimize", "搜索优化"),
    M(STAGE_ACCURACY, "accuracy", "精度检查"),
    M(STAGE_VERIFY, "verify", "验证"),
    M(STAGE_REPORT, "report", "生成报告"),
    M(UNKNOWN_ERROR, "unknown error", "未知错误"),
    M(SHOW_OPTIMIZE_FAILED, "Optimize %s (%s) failed: %s", "优化核函数 %s (%s) 失败：%s"),
    M(DIAG_FAILED, "optimization failed: %.600s", "优化失败：%.600s"),
    M(DIAG_INTERRUPTED, "optimization was interrupted: %.600s", "优化被中断：%.600s"),
    M(DIAG_SEE_REPORT, "see the episode's report", "详见本次优化的报告"),
    M(DIAG_SIMULATED_PREFIX, "simulated GPU: ", "模拟 GPU："),
    M(DIAG_FASTER, "%.2fx faster version available", "有更快的版本可用，加速比 %.2fx"),
    M(DIAG_BANDWIDTH_SMALL, ", %.2g%% of peak bandwidth", "，达到峰值带宽的 %.2g%%"),
    M(DIAG_BANDWIDTH, ", %.0f%% of peak bandwidth", "，达到峰值带宽的 %.0f%%"),
    M(DIAG_ROOFLINE_SMALL, ", %.2g%% of the roofline bound", "，达到屋顶线模型上限的 %.2g%%"),
    M(DIAG_ROOFLINE, ", %.0f%% of the roofline bound", "，达到屋顶线模型上限的 %.0f%%"),
    M(DIAG_EPISODE, " (episode %lld)", "（优化任务 %lld）"),
    M(HOVER_OPTIMIZING, "Optimizing", "正在优化"),
    M(HOVER_SPEC_INFERRED, "Spec inferred", "已推断 bench spec"),
    M(HOVER_HISTORY, "Optimization history", "优化历史"),
    M(HOVER_HISTORY_SIMULATED, " (simulated GPU: not measured on hardware)",
      "（模拟 GPU：未在硬件上实测）"),
    M(HOVER_HISTORY_HEAD_MD,
      "\n| version | time | speedup | bandwidth | accuracy | engine | date |\n"
      "|---|---|---|---|---|---|---|\n",
      "\n| 版本 | 耗时 | 加速比 | 带宽 | 精度 | 引擎 | 日期 |\n"
      "|---|---|---|---|---|---|---|\n"),
    M(HOVER_HISTORY_HEAD_TEXT, "version  time  speedup  bandwidth  accuracy  engine  date\n",
      "版本  耗时  加速比  带宽  精度  引擎  日期\n"),
};

#undef M

static enum hk_lang current = HK_LANG_EN;

const char *hk_lang_tag(enum hk_lang lang)
{
    return lang == HK_LANG_ZH_CN ? "zh-CN" : "en";
}

/* Case-insensitive: does the subtag at s (up to '-', '_', '.', '@' or the end) equal w? */
static bool subtag_is(const char *s, size_t n, const char *w)
{
    if (strlen(w) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)s[i]) != w[i])
            return false;
    return true;
}

enum hk_lang hk_i18n_parse(const char *locale)
{
    if (!locale)
        return HK_LANG_EN;
    const char *p = locale;
    size_t n = strcspn(p, "-_.@");
    if (!subtag_is(p, n, "zh"))
        return HK_LANG_EN;
    /* the subtags after the language, up to the codeset or modifier */
    p += n;
    while (*p == '-' || *p == '_') {
        p++;
        n = strcspn(p, "-_.@");
        if (subtag_is(p, n, "hant") || subtag_is(p, n, "tw") || subtag_is(p, n, "hk") ||
            subtag_is(p, n, "mo"))
            return HK_LANG_EN;
        p += n;
    }
    return HK_LANG_ZH_CN;
}

enum hk_lang hk_i18n_pick(const char *lsp_locale, const char *env_lang)
{
    if (lsp_locale && *lsp_locale)
        return hk_i18n_parse(lsp_locale);
    return hk_i18n_parse(env_lang);
}

const char *hk_i18n_env_locale(void)
{
    static const char *const vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < HK_ARRAY_LEN(vars); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return v;
    }
    return NULL;
}

void hk_i18n_set(enum hk_lang lang)
{
    current = lang == HK_LANG_ZH_CN ? HK_LANG_ZH_CN : HK_LANG_EN;
}

enum hk_lang hk_i18n_lang(void)
{
    return current;
}

const char *hk_tr_in(enum hk_lang lang, enum hk_msg id)
{
    if ((unsigned)id >= HK_MSG_COUNT || (unsigned)lang >= HK_LANG_COUNT)
        return "";
    const char *t = msgs[id].text[lang];
    /* NEVER in a tested build: every row has both languages */
    if (!t || !*t)
        t = msgs[id].text[HK_LANG_EN];
    return t ? t : "";
}

const char *hk_tr(enum hk_msg id)
{
    return hk_tr_in(current, id);
}

const char *hk_msg_entry(enum hk_lang lang, enum hk_msg id)
{
    if ((unsigned)id >= HK_MSG_COUNT || (unsigned)lang >= HK_LANG_COUNT)
        return NULL;
    return msgs[id].text[lang];
}

const char *hk_msg_name(enum hk_msg id)
{
    if ((unsigned)id >= HK_MSG_COUNT || !msgs[id].name)
        return "";
    return msgs[id].name;
}

char *hk_vtrf(enum hk_msg id, va_list ap)
{
    const char *fmt = hk_tr(id);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *s = hk_malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *hk_trf(enum hk_msg id, ...)
{
    va_list ap;
    va_start(ap, id);
    char *s = hk_vtrf(id, ap);
    va_end(ap);
    return s;
}
