/* Markdown rendering of the report model (report.c). Every piece of text from the model is
 * escaped: kernel names, messages and compiler output are user- or tool-controlled and
 * must not turn into markup, links or broken tables. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/hk.h"
#include "report/report.h"
#include "report/report_impl.h"

#define CELL_MAX 600

/* Escaped inline text: backslash before the Markdown punctuation that can start markup
 * mid-line (emphasis, code, links, HTML, entities, table cells), line breaks as spaces, cut
 * at max bytes (0: no cut). Text never starts a line here, so list and heading markers
 * need no escape. */
static int md_text(struct hk_buf *out, const char *s, size_t max)
{
    if (!s)
        return hk_buf_appends(out, "-");
    int rc = HK_OK;
    size_t n = strlen(s);
    bool cut = max && n > max;
    if (cut) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--; /* never split a UTF-8 sequence */
    }
    for (size_t i = 0; rc == HK_OK && i < n; i++) {
        char c = s[i];
        if (c == '\n' || c == '\r' || c == '\t')
            rc = hk_buf_append(out, " ", 1);
        else if (strchr("\\`*_{}[]<>#!|&~", c))
            rc = hk_buf_printf(out, "\\%c", c);
        else
            rc = hk_buf_append(out, &c, 1);
    }
    if (rc == HK_OK && cut)
        rc = hk_buf_appends(out, " ...");
    return rc;
}

static int md_key(struct hk_buf *out, const json_t *obj, const char *key, size_t max)
{
    return md_text(out, report__str(obj, key), max);
}

/* md_key of a member stored in English, said in the report's language (report__said) */
static int md_said(struct hk_buf *out, const json_t *obj, const char *key, size_t max)
{
    char *said = report__said(obj, key);
    int rc = said ? md_text(out, said, max) : md_key(out, obj, key, max);
    hk_free(said);
    return rc;
}

/* "Skills tried": each skill that fit and whether its rewrite applied; a refusal names the
 * construct that stopped it and its line (the episode info's skills_tried). Nothing when
 * the episode recorded none. */
static int skills_tried_md(struct hk_buf *out, const json_t *info)
{
    const json_t *tried = json_object_get(info, "skills_tried");
    if (!json_array_size(tried))
        return HK_OK;
    int rc = hk_buf_printf(out, "\n## %s\n\n| %s | %s | %s | %s |\n|---|---|---|---|\n",
                           hk_tr(HK_MSG_REP_SKILLS_TRIED), hk_tr(HK_MSG_REP_SKILL),
                           hk_tr(HK_MSG_REP_REWRITE), hk_tr(HK_MSG_REP_APPLIED),
                           hk_tr(HK_MSG_REP_WHAT_STOPPED));
    size_t i;
    const json_t *t;
    json_array_foreach(tried, i, t) {
        if (rc)
            break;
        bool applied = json_is_true(json_object_get(t, "applied"));
        rc = hk_buf_appends(out, "| ");
        rc = rc ? rc : md_key(out, t, "skill", 128);
        rc = rc ? rc : hk_buf_appends(out, " | ");
        rc = rc ? rc : md_key(out, t, "rewrite", 64);
        rc = rc ? rc
                : (applied ? hk_buf_printf(out, " | %s | |\n", hk_tr(HK_MSG_REP_YES))
                           : hk_buf_printf(out, " | %s | ", hk_tr(HK_MSG_REP_NO)));
        if (!rc && !applied) {
            rc = md_said(out, t, "reason", 400); /* the rewrite's, stored in English */
            rc = rc ? rc : hk_buf_appends(out, " |\n");
        }
    }
    return rc;
}

/* "Second rewrites not stacked on the leader": one line each, the rewrite, the leader and
 * the construct and line (of the leader's text) that stopped it (the episode info's
 * stacks_not_applied). Nothing when the episode recorded none. */
static int stacks_md(struct hk_buf *out, const json_t *info)
{
    const json_t *why = json_object_get(info, "stacks_not_applied");
    if (!json_array_size(why))
        return HK_OK;
    int rc = hk_buf_printf(out, "\n## %s\n\n", hk_tr(HK_MSG_REP_STACKS_NOT_APPLIED));
    size_t i;
    const json_t *t;
    json_array_foreach(why, i, t) {
        rc = rc ? rc : hk_buf_appends(out, "- ");
        char *said = hk_tr_said(hk_i18n_lang(), json_string_value(t)); /* stored in English */
        rc = rc ? rc : md_text(out, said ? said : json_string_value(t), 600);
        hk_free(said);
        rc = rc ? rc : hk_buf_appends(out, "\n");
    }
    return rc;
}

/* A fenced block that no backtick run in text can close early: the fence is one
 * backtick longer than the longest run inside (at least three). */
static int md_fence(struct hk_buf *out, const char *lang, const char *text)
{
    size_t run = 0, longest = 0;
    for (const char *p = text; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t fl = longest + 1 > 3 ? longest + 1 : 3;
    int rc = HK_OK;
    for (size_t i = 0; rc == HK_OK && i < fl; i++)
        rc = hk_buf_append(out, "`", 1);
    size_t len = strlen(text);
    rc = rc ? rc : hk_buf_printf(out, "%s\n", lang);
    rc = rc ? rc : hk_buf_append(out, text, len);
    if (rc == HK_OK && len && text[len - 1] != '\n')
        rc = hk_buf_append(out, "\n", 1);
    for (size_t i = 0; rc == HK_OK && i < fl; i++)
        rc = hk_buf_append(out, "`", 1);
    return rc ? rc : hk_buf_appends(out, "\n\n");
}

static double num_or_nan(const json_t *o, const char *key)
{
    double v;
    return report__num(o, key, &v) ? v : NAN;
}

static int row2(struct hk_buf *out, const char *label, const char *value_md)
{
    return hk_buf_printf(out, "| %s | %s |\n", label, value_md);
}

/* One "| label | escaped text |" row. */
static int row_text(struct hk_buf *out, const char *label, const char *text)
{
    int rc = hk_buf_printf(out, "| %s | ", label);
    rc = rc ? rc : md_text(out, text, CELL_MAX);
    return rc ? rc : hk_buf_appends(out, " |\n");
}

/* row_text of a member stored in English, said in the report's language (report__said) */
static int row_said(struct hk_buf *out, const char *label, const json_t *obj, const char *key)
{
    char *said = report__said(obj, key);
    int rc = row_text(out, label, said ? said : report__str(obj, key));
    hk_free(said);
    return rc;
}

static int version_label(struct hk_buf *out, const json_t *v)
{
    if (!v || json_is_null(v))
        return hk_buf_appends(out, "-");
    return md_key(out, v, "label", 32);
}

static int perf_rows(struct hk_buf *out, const json_t *base, const json_t *best)
{
    const json_t *vs[2] = {base, best};
    char cells[2][7][80];
    for (int i = 0; i < 2; i++) {
        const json_t *t = json_object_get(vs[i], "time");
        report__fmt_ms(cells[i][0], 80, num_or_nan(t, "median_ms"));
        char a[32], b[32];
        report__fmt_ms(a, sizeof a, num_or_nan(t, "p10_ms"));
        report__fmt_ms(b, sizeof b, num_or_nan(t, "p90_ms"));
        snprintf(cells[i][1], 80, "%s .. %s", a, b);
        report__fmt_pct(cells[i][2], 80, 100 * num_or_nan(t, "spread"));
        report__fmt_bytes_rate(cells[i][3], 80, num_or_nan(vs[i], "bytes_per_s"));
        report__fmt_flop_rate(cells[i][4], 80, num_or_nan(vs[i], "flop_per_s"));
        report__fmt_pct(cells[i][5], 80, num_or_nan(vs[i], "roofline_pct"));
        snprintf(cells[i][6], 80, "%lld", (long long)json_integer_value(json_object_get(t, "reps")));
    }
    int rc = HK_OK;
    for (int r = 0; rc == HK_OK && r < 7; r++)
        rc = hk_buf_printf(out, "| %s | %s | %s |\n", hk_tr(report__perf_labels[r]),
                           cells[0][r], cells[1][r]);
    return rc;
}

static int evidence_md(struct hk_buf *out, const char *title, const json_t *arr)
{
    if (json_array_size(arr) == 0)
        return HK_OK;
    int rc = hk_buf_printf(out, "### %s\n\n", title);
    size_t i;
    const json_t *ev;
    json_array_foreach(arr, i, ev)
    {
        if (rc)
            break;
        rc = hk_buf_appends(out, "**");
        rc = rc ? rc : md_key(out, ev, "kind", 64);
        rc = rc ? rc
                : hk_buf_printf(out, "**\n\n| %s | %s |\n|---|---|\n", hk_tr(HK_MSG_REP_FIELD),
                                hk_tr(HK_MSG_REP_VALUE));
        const json_t *data = json_object_get(ev, "data");
        struct hk_buf cell;
        hk_buf_init(&cell, CELL_MAX * 4);
        if (json_is_object(data)) {
            const char *k;
            const json_t *v;
            json_object_foreach((json_t *)data, k, v)
            {
                if (rc)
                    break;
                hk_buf_reset(&cell);
                int r = report__scalar_text(&cell, v, CELL_MAX);
                if (r && r != HK_ETOOBIG)
                    rc = r;
                rc = rc ? rc : hk_buf_appends(out, "| ");
                rc = rc ? rc : md_text(out, k, 128);
                rc = rc ? rc : hk_buf_appends(out, " | ");
                rc = rc ? rc : md_text(out, cell.data ? cell.data : "", CELL_MAX);
                rc = rc ? rc : hk_buf_appends(out, " |\n");
            }
        } else {
            int r = report__scalar_text(&cell, data, CELL_MAX);
            if (r && r != HK_ETOOBIG)
                rc = r;
            rc = rc ? rc : hk_buf_appends(out, "| value | ");
            rc = rc ? rc : md_text(out, cell.data ? cell.data : "", CELL_MAX);
            rc = rc ? rc : hk_buf_appends(out, " |\n");
        }
        hk_buf_free(&cell);
        rc = rc ? rc : hk_buf_appends(out, "\n");
    }
    return rc;
}

int report_model_to_markdown(const json_t *m, struct hk_buf *out)
{
    const json_t *ep = json_object_get(m, "episode"), *k = json_object_get(m, "kernel");
    if (!json_is_object(ep) || !json_is_object(k))
        return HK_EINVAL;
    const json_t *dev = json_object_get(m, "device"), *base = json_object_get(m, "baseline"),
                 *best = json_object_get(m, "best"), *info = json_object_get(ep, "info");
    char a[64], b[64], c[64];
    bool sim = json_is_true(json_object_get(ep, "simulated"));
    int rc = hk_buf_printf(out, "# %s%s%s", hk_tr(HK_MSG_REP_TITLE),
                           sim ? hk_tr(HK_MSG_SIMULATED_GPU_PAREN) : "", hk_tr(HK_MSG_REP_SEP));
    rc = rc ? rc : md_key(out, ep, "name", 256);
    if (sim)
        rc = rc ? rc : hk_buf_printf(out, "\n\n**%s**", hk_tr(HK_MSG_REP_SIM_BANNER));
    if (!rc && report__str(ep, "error")) {
        rc = hk_buf_printf(out, "\n\n**%s** ", hk_tr(HK_MSG_REP_ERROR));
        rc = rc ? rc : md_said(out, ep, "error", REPORT_MAX_TEXT);
    }
    rc = rc ? rc : hk_buf_appends(out, "\n");

    /* Result */
    rc = rc ? rc
            : hk_buf_printf(out, "\n## %s%s\n\n| | %s (", hk_tr(HK_MSG_REP_RESULT),
                            sim ? hk_tr(HK_MSG_SIMULATED_PAREN) : "", hk_tr(HK_MSG_REP_BASELINE));
    rc = rc ? rc : version_label(out, base);
    rc = rc ? rc : hk_buf_printf(out, ") | %s (", hk_tr(HK_MSG_REP_BEST));
    rc = rc ? rc : version_label(out, best);
    rc = rc ? rc : hk_buf_appends(out, ") |\n|---|---|---|\n");
    rc = rc ? rc : perf_rows(out, base, best);
    const json_t *sp = json_object_get(m, "speedup");
    if (!rc && json_is_object(sp)) {
        report__fmt_ratio(a, sizeof a, num_or_nan(sp, "value"));
        report__fmt_ratio(b, sizeof b, num_or_nan(sp, "lo"));
        report__fmt_ratio(c, sizeof c, num_or_nan(sp, "hi"));
        rc = hk_buf_printf(out, "\n**%s%s%s** (", hk_tr(HK_MSG_REP_SPEEDUP), hk_tr(HK_MSG_REP_SEP),
                           a);
        rc = rc ? rc : hk_buf_printf(out, hk_tr(HK_MSG_REP_SPREAD_FROM), b, c);
        rc = rc ? rc : hk_buf_appends(out, ")\n");
    } else if (!rc) {
        rc = hk_buf_printf(out, "\n**%s**\n", hk_tr(HK_MSG_REP_NO_FASTER));
    }
    const json_t *acc = json_object_get(m, "accuracy");
    if (!rc && json_is_object(acc)) {
        report__fmt_err(a, sizeof a, num_or_nan(acc, "max_abs_err"));
        report__fmt_err(b, sizeof b, num_or_nan(acc, "max_rel_err"));
        rc = hk_buf_appends(out, "\n");
        rc = rc ? rc : hk_buf_printf(out, hk_tr(HK_MSG_REP_ACCURACY), a, b);
        rc = rc ? rc : hk_buf_appends(out, "\n");
    }
    char bw_head[256], bw_note[1024];
    if (!rc && report__bandwidth_words(m, bw_head, sizeof bw_head, bw_note, sizeof bw_note)) {
        rc = hk_buf_appends(out, "\n**");
        rc = rc ? rc : md_text(out, bw_head, 0);
        rc = rc ? rc : hk_buf_appends(out, "**\n\n");
        rc = rc ? rc : md_text(out, bw_note, 0);
        rc = rc ? rc : hk_buf_appends(out, "\n");
    }
    /* engine v2: the bottleneck class, the skills tried, and whether the gain is explained */
    if (!rc && report__str(info, "bottleneck")) {
        rc = hk_buf_printf(out, "\n%s", hk_tr(HK_MSG_REP_BOTTLENECK_LINE));
        rc = rc ? rc : md_key(out, info, "bottleneck", 64);
        const json_t *sk = json_object_get(info, "skills");
        size_t si;
        const json_t *name;
        rc = rc ? rc : hk_buf_appends(out, hk_tr(HK_MSG_REP_SKILLS_FIT));
        json_array_foreach(sk, si, name) {
            if (rc || !json_is_string(name))
                break;
            rc = hk_buf_printf(out, "%s `%s`", si ? "," : "", json_string_value(name));
        }
        if (!rc && !json_array_size(sk))
            rc = hk_buf_appends(out, hk_tr(HK_MSG_REP_NONE));
        rc = rc ? rc : hk_buf_appends(out, "\n");
    }
    const json_t *cr = json_object_get(info, "credit");
    if (!rc && json_is_object(cr)) {
        const json_t *ex = json_object_get(cr, "explained");
        rc = hk_buf_appends(out, "\n");
        if (json_is_true(ex))
            rc = rc ? rc : hk_buf_appends(out, hk_tr(HK_MSG_REP_CREDITED));
        else
            rc = rc ? rc : hk_buf_appends(out, hk_tr(HK_MSG_REP_UNEXPLAINED));
        rc = rc ? rc : md_key(out, cr, "skill", 128);
        if (report__str(cr, "library")) /* no SASS to count: the library's kernels */
            rc = rc ? rc : hk_buf_printf(out, hk_tr(HK_MSG_REP_CREDIT_LIBRARY),
                                         report__str(cr, "library"),
                                         report__str(cr, "routine") ? report__str(cr, "routine") : "?",
                                         hk_tr(json_is_true(ex) ? HK_MSG_REP_SHOWS
                                                                : HK_MSG_REP_DOES_NOT_SHOW));
        else if (json_is_true(ex) || json_is_false(ex))
            rc = rc ? rc
                    : hk_buf_printf(out, hk_tr(HK_MSG_REP_CREDIT_EVIDENCE),
                                    report__str(cr, "evidence") ? report__str(cr, "evidence")
                                                                 : hk_tr(HK_MSG_REP_A_METRIC),
                                    hk_tr(json_is_true(ex) ? HK_MSG_REP_SHOWS
                                                           : HK_MSG_REP_DOES_NOT_SHOW),
                                    (long long)json_integer_value(json_object_get(cr, "lines_after")),
                                    (long long)json_integer_value(json_object_get(cr, "lines_before")));
        else if (!rc) { /* the engine's why, stored in English */
            char *why = report__said(cr, "why");
            rc = hk_buf_printf(out, "`: %s\n", why ? why : report__str(cr, "why") ? report__str(cr, "why") : "");
            hk_free(why);
        }
    }
    if (!rc && json_is_true(json_object_get(m, "best_is_inferred")))
        rc = hk_buf_printf(out, "\n(%s)\n", hk_tr(HK_MSG_REP_BEST_INFERRED));

    /* Versions and chain */
    size_t i;
    rc = rc ? rc
            : hk_buf_printf(out, "\n## %s\n\n| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n"
                                 "|---|---|---|---|---|---|---|---|---|---|\n",
                            hk_tr(HK_MSG_REP_VERSIONS), hk_tr(HK_MSG_REP_VERSION),
                            hk_tr(HK_MSG_REP_PARENT), hk_tr(HK_MSG_REP_STATUS),
                            hk_tr(HK_MSG_REP_MEDIAN), hk_tr(HK_MSG_REP_SPEEDUP_SPREAD),
                            hk_tr(HK_MSG_REP_BANDWIDTH), hk_tr(HK_MSG_REP_ROOFLINE_PCT),
                            hk_tr(HK_MSG_REP_MAX_ABS_ERR), hk_tr(HK_MSG_REP_MAX_REL_ERR),
                            hk_tr(HK_MSG_REP_PRODUCED_BY));
    const json_t *v;
    json_array_foreach(json_object_get(m, "versions"), i, v)
    {
        if (rc)
            break;
        const json_t *t = json_object_get(v, "time");
        json_t *par = json_object_get(v, "parent");
        char med[32], spd[160], bw[32], roof[32], ea[32], er[32], x[32], y[32];
        report__fmt_ms(med, sizeof med, num_or_nan(t, "median_ms"));
        report__fmt_ratio(x, sizeof x, num_or_nan(v, "speedup_lo"));
        report__fmt_ratio(y, sizeof y, num_or_nan(v, "speedup_hi"));
        report__fmt_ratio(a, sizeof a, num_or_nan(v, "speedup"));
        snprintf(spd, sizeof spd, "%s (%s .. %s)", a, x, y);
        report__fmt_bytes_rate(bw, sizeof bw, num_or_nan(v, "bytes_per_s"));
        report__fmt_pct(roof, sizeof roof, num_or_nan(v, "roofline_pct"));
        report__fmt_err(ea, sizeof ea, num_or_nan(v, "max_abs_err"));
        report__fmt_err(er, sizeof er, num_or_nan(v, "max_rel_err"));
        rc = hk_buf_appends(out, "| ");
        rc = rc ? rc : md_key(out, v, "label", 32);
        if (!rc && json_is_true(json_object_get(v, "is_baseline")))
            rc = hk_buf_appends(out, hk_tr(HK_MSG_REP_TAG_BASELINE));
        if (!rc && json_is_true(json_object_get(v, "is_best")))
            rc = hk_buf_appends(out, hk_tr(HK_MSG_REP_TAG_BEST));
        rc = rc ? rc
                : (json_is_integer(par)
                       ? hk_buf_printf(out, " | v%lld | ", (long long)json_integer_value(par))
                       : hk_buf_appends(out, " | - | "));
        rc = rc ? rc : md_key(out, v, "status", 32);
        rc = rc ? rc
                : hk_buf_printf(out, " | %s | %s | %s | %s | %s | %s | ", med, spd, bw, roof, ea,
                                er);
        rc = rc ? rc : md_key(out, v, "produced_by", 128);
        rc = rc ? rc : hk_buf_appends(out, " |\n");
    }
    rc = rc ? rc : hk_buf_printf(out, "\n%s", hk_tr(HK_MSG_REP_CHAIN));
    json_array_foreach(json_object_get(m, "chain"), i, v)
    {
        if (rc)
            break;
        rc = i ? hk_buf_appends(out, " -> ") : HK_OK;
        rc = rc ? rc : md_key(out, v, "label", 32);
    }
    rc = rc ? rc : hk_buf_appends(out, "\n");

    /* Diff */
    const json_t *diff = json_object_get(m, "diff");
    const char *text = report__str(diff, "text");
    if (!rc && text) {
        rc = hk_buf_printf(out, "\n## %s ", hk_tr(HK_MSG_REP_DIFF));
        rc = rc ? rc : md_key(out, diff, "from", 64);
        rc = rc ? rc : hk_buf_appends(out, hk_tr(HK_MSG_REP_TO));
        rc = rc ? rc : md_key(out, diff, "to", 64);
        rc = rc ? rc : hk_buf_appends(out, "\n\n");
        rc = rc ? rc : md_fence(out, "diff", text);
    } else if (!rc && report__str(diff, "error")) {
        rc = hk_buf_printf(out, "\n## %s\n\n", hk_tr(HK_MSG_REP_DIFF));
        rc = rc ? rc : md_said(out, diff, "error", 256);
        rc = rc ? rc : hk_buf_appends(out, "\n");
    }

    rc = rc ? rc : hk_buf_printf(out, "\n## %s\n\n| | |\n|---|---|\n", hk_tr(HK_MSG_REP_EPISODE));
    rc = rc ? rc : row_text(out, hk_tr(HK_MSG_REP_KERNEL), report__str(k, "name"));
    rc = rc ? rc : row_text(out, hk_tr(HK_MSG_REP_FILE), report__str(k, "file"));
    rc = rc ? rc : row_text(out, hk_tr(HK_MSG_REP_TARGET), report__str(ep, "target"));
    rc = rc ? rc : row_text(out, hk_tr(HK_MSG_REP_ARCH), report__str(ep, "arch"));
    rc = rc ? rc : row_text(out, hk_tr(HK_MSG_REP_DEVICE), report__str(dev, "name"));
    char tool[1024];
    if (!rc && report__toolchain_words(info, tool, sizeof tool))
        rc = row_text(out, hk_tr(HK_MSG_REP_TOOLCHAIN), tool);
    rc = rc ? rc : row_text(out, hk_tr(HK_MSG_REP_ENGINE), report__str(ep, "engine"));
    rc = rc ? rc : row_text(out, hk_tr(HK_MSG_REP_STATUS), report__str(ep, "status"));
    rc = rc ? rc : row_text(out, hk_tr(HK_MSG_REP_STARTED), report__str(ep, "started"));
    rc = rc ? rc : row_text(out, hk_tr(HK_MSG_REP_ENDED), report__str(ep, "ended"));
    report__fmt_duration(a, sizeof a, num_or_nan(ep, "duration_ms"));
    rc = rc ? rc : row2(out, hk_tr(HK_MSG_REP_DURATION), a);
    if (!rc && report__str(info, "isolation"))
        rc = row_said(out, hk_tr(HK_MSG_REP_ISOLATION), info, "isolation");
    if (!rc && report__str(info, "correctness"))
        rc = row_said(out, hk_tr(HK_MSG_REP_CORRECTNESS), info, "correctness");
    if (!rc && report__str(info, "spec_inferred")) /* spec inference (docs/bench-spec.md) */
        rc = row_text(out, hk_tr(HK_MSG_HOVER_SPEC_INFERRED), report__str(info, "spec_inferred"));
    char floor_words[512];
    if (!rc && report__floor_words(info, floor_words, sizeof floor_words))
        rc = row_text(out, hk_tr(HK_MSG_REP_PHYSICAL_FLOOR), floor_words);
    if (!rc && report__library_words(info, floor_words, sizeof floor_words))
        rc = row_text(out, hk_tr(HK_MSG_REP_LIBRARY), floor_words);
    if (!rc && report__str(info, "memory_safety")) /* compute-sanitizer (docs/sanitizer.md) */
        rc = row_said(out, hk_tr(HK_MSG_REP_MEMORY_SAFETY), info, "memory_safety");
    if (!rc && report__str(info, "sensitivity")) /* the sensitivity check (docs/accuracy.md) */
        rc = row_said(out, hk_tr(HK_MSG_REP_SENSITIVITY), info, "sensitivity");
    char verify_words[1024];
    if (!rc && report__verify_words(info, verify_words, sizeof verify_words))
        rc = row_text(out, hk_tr(HK_MSG_REP_VERIFY), verify_words);
    rc = rc ? rc : skills_tried_md(out, info);
    rc = rc ? rc : stacks_md(out, info);

    /* Stages */
    const json_t *stages = json_object_get(m, "stages");
    rc = rc ? rc
            : hk_buf_printf(out, "\n## %s\n\n| %s | %s | %s | %s | %s |\n|---|---|---|---|---|\n",
                            hk_tr(HK_MSG_REP_STAGES), hk_tr(HK_MSG_REP_STAGE),
                            hk_tr(HK_MSG_REP_STARTED), hk_tr(HK_MSG_REP_DURATION),
                            hk_tr(HK_MSG_REP_EVENTS), hk_tr(HK_MSG_REP_LAST_MESSAGE));
    const json_t *s;
    json_array_foreach(stages, i, s)
    {
        if (rc)
            break;
        report__fmt_duration(a, sizeof a, num_or_nan(s, "duration_ms"));
        rc = hk_buf_appends(out, "| ");
        rc = rc ? rc : md_key(out, s, "stage", 64);
        rc = rc ? rc : hk_buf_appends(out, " | ");
        rc = rc ? rc : md_key(out, s, "start", 64);
        rc = rc ? rc
                : hk_buf_printf(out, " | %s | %lld | ", a,
                                (long long)json_integer_value(json_object_get(s, "events")));
        rc = rc ? rc : md_said(out, s, "last_message", 300);
        rc = rc ? rc : hk_buf_appends(out, " |\n");
    }

    /* Rejected */
    const json_t *rej = json_object_get(m, "rejected");
    if (!rc && json_array_size(rej)) {
        rc = hk_buf_printf(out, "\n## %s\n\n| %s | %s | %s | %s |\n|---|---|---|---|\n",
                           hk_tr(HK_MSG_REP_REJECTED), hk_tr(HK_MSG_REP_VERSION),
                           hk_tr(HK_MSG_REP_REASON), hk_tr(HK_MSG_REP_DETAILS),
                           hk_tr(HK_MSG_REP_PRODUCED_BY));
        json_array_foreach(rej, i, v)
        {
            if (rc)
                break;
            rc = hk_buf_appends(out, "| ");
            rc = rc ? rc : md_key(out, v, "label", 32);
            rc = rc ? rc : hk_buf_appends(out, " | ");
            rc = rc ? rc : md_key(out, v, "reject_reason", 200);
            rc = rc ? rc : hk_buf_appends(out, " | ");
            rc = rc ? rc : md_said(out, v, "reject_details", CELL_MAX);
            rc = rc ? rc : hk_buf_appends(out, " | ");
            rc = rc ? rc : md_key(out, v, "produced_by", 128);
            rc = rc ? rc : hk_buf_appends(out, " |\n");
        }
    }

    /* Evidence */
    const json_t *evd = json_object_get(m, "evidence");
    if (!rc && (json_array_size(json_object_get(evd, "baseline")) ||
                json_array_size(json_object_get(evd, "best"))))
    {
        rc = hk_buf_printf(out, "\n<details><summary>%s</summary>\n\n",
                           hk_tr(HK_MSG_REP_EVIDENCE_SUMMARY));
        rc = rc ? rc : evidence_md(out, hk_tr(HK_MSG_REP_BASELINE), json_object_get(evd, "baseline"));
        rc = rc ? rc : evidence_md(out, hk_tr(HK_MSG_REP_BEST), json_object_get(evd, "best"));
        rc = rc ? rc : hk_buf_appends(out, "</details>\n");
    }

    /* Episode facts the engine recorded */
    if (!rc && (json_is_object(info) || json_is_object(json_object_get(ep, "budget")))) {
        rc = hk_buf_printf(out, "\n<details><summary>%s</summary>\n\n| %s | %s |\n|---|---|\n",
                           hk_tr(HK_MSG_REP_SETTINGS_SUMMARY), hk_tr(HK_MSG_REP_FIELD),
                           hk_tr(HK_MSG_REP_VALUE));
        const json_t *objs[2] = {json_object_get(ep, "budget"), info};
        const char *pfx[2] = {"budget.", ""};
        for (int o = 0; rc == HK_OK && o < 2; o++) {
            if (!json_is_object(objs[o]))
                continue;
            const char *key;
            const json_t *val;
            json_object_foreach((json_t *)objs[o], key, val)
            {
                if (rc)
                    break;
                struct hk_buf cell;
                hk_buf_init(&cell, CELL_MAX * 4);
                int r = report__scalar_text(&cell, val, CELL_MAX);
                if (r && r != HK_ETOOBIG)
                    rc = r;
                rc = rc ? rc : hk_buf_printf(out, "| %s", pfx[o]);
                rc = rc ? rc : md_text(out, key, 128);
                rc = rc ? rc : hk_buf_appends(out, " | ");
                rc = rc ? rc : md_text(out, cell.data ? cell.data : "", CELL_MAX);
                rc = rc ? rc : hk_buf_appends(out, " |\n");
                hk_buf_free(&cell);
            }
        }
        rc = rc ? rc : hk_buf_appends(out, "\n</details>\n");
    }
    rc = rc ? rc : hk_buf_printf(out, "\n%s", hk_tr(HK_MSG_REP_GENERATED));
    rc = rc ? rc : md_key(out, m, "generated", 64);
    return rc ? rc : hk_buf_appends(out, ".\n");
}
