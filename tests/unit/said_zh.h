/* A stored English sentence (the referee's reasons, the worker's log) said again in zh-CN
 * (hk_tr_said, docs/i18n.md): for the tests of the places that write one. Include after
 * cmocka.h. */
#ifndef HK_TEST_SAID_ZH_H
#define HK_TEST_SAID_ZH_H

#include <stdbool.h>
#include <string.h>

#include "core/hk.h"
#include "core/i18n.h"

/* Whether s holds three English words in a row ("is not atomic"): a sentence a zh-CN user
 * would read in English. Names, numbers and code are not words. */
static inline bool said_english_run(const char *s)
{
    int run = 0;
    for (const char *p = s; *p;) {
        while (*p == ' ')
            p++;
        const char *w = p;
        while (*p && *p != ' ')
            p++;
        size_t n = (size_t)(p - w);
        bool word = n >= 2 && ((w[0] >= 'a' && w[0] <= 'z') || (w[0] >= 'A' && w[0] <= 'Z'));
        for (size_t i = 1; word && i < n; i++)
            word = w[i] >= 'a' && w[i] <= 'z';
        run = word ? run + 1 : 0;
        if (run >= 3)
            return true;
    }
    return false;
}

/* stored (English, as written) said in zh-CN: want exactly when given, else a sentence
 * holding part (when given); no English run unless quoted tool words allow one (no_run
 * false); nothing said for English (the English output is what was stored). */
static inline void said_zh_check(const char *stored, const char *want, const char *part,
                                 bool no_run)
{
    char *zh = hk_tr_said(HK_LANG_ZH_CN, stored);
    if (!zh || (no_run && said_english_run(zh)) || (want && strcmp(zh, want)) ||
        (part && !strstr(zh, part)))
        fail_msg("said %s\nas   %s\nnot  %s", stored, zh ? zh : "(nothing)",
                 want ? want : part ? part : "(no English run)");
    hk_free(zh);
    assert_null(hk_tr_said(HK_LANG_EN, stored));
}

#endif
