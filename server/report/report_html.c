/* The HTML report: one self-contained page from the report model (report.c) with inline
 * CSS and an inline SVG bar chart of the versions' times; no scripts, no external assets
 * (a Content-Security-Policy says so to the browser). Every string from the model is
 * HTML-escaped, so a hostile kernel name or compiler message stays text. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/hk.h"
#include "report/report.h"
#include "report/report_impl.h"

#define CELL_MAX 2000

int report_html_escape(struct hk_buf *out, const char *s)
{
    if (!s)
        return HK_OK;
    int rc = HK_OK;
    const char *run = s;
    for (const char *p = s; rc == HK_OK; p++) {
        const char *rep = NULL;
        switch (*p) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        case '\0': break;
        default: continue;
        }
        rc = hk_buf_append(out, run, (size_t)(p - run));
        if (!*p)
            break;
        rc = rc ? rc : hk_buf_appends(out, rep);
        run = p + 1;
    }
    return rc;
}

static double num_or_nan(const json_t *o, const char *key)
{
    double v;
    return report__num(o, key, &v) ? v : NAN;
}

static int h(struct hk_buf *out, const json_t *o, const char *key)
{
    const char *s = report__str(o, key);
    return s ? report_html_escape(out, s) : hk_buf_appends(out, "-");
}

/* h of a member stored in English, said in the report's language (report__said) */
static int h_said(struct hk_buf *out, const json_t *o, const char *key)
{
    char *said = report__said(o, key);
    int rc = said ? report_html_escape(out, said) : h(out, o, key);
    hk_free(said);
    return rc;
}

static int fact(struct hk_buf *out, const char *label, const char *value)
{
    int rc = hk_buf_printf(out, "<tr><th>%s</th><td>", label); /* i18n: not for people (HTML markup) */
    rc = rc ? rc : (value ? report_html_escape(out, value) : hk_buf_appends(out, "-"));
    return rc ? rc : hk_buf_appends(out, "</td></tr>\n");
}

/* fact of a member stored in English, said in the report's language (report__said) */
static int fact_said(struct hk_buf *out, const char *label, const json_t *o, const char *key)
{
    char *said = report__said(o, key);
    int rc = fact(out, label, said ? said : report__str(o, key));
    hk_free(said);
    return rc;
}

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1em auto;" /* i18n: not for people (CSS) */
    "max-width:1240px;padding:0 1em;color:#1d2330;background:#fff}"
    "h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.8em;"
    "border-bottom:1px solid #dde1e8;padding-bottom:.2em}"
    "table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #dde1e8;"
    "padding:.25em .6em;text-align:left;vertical-align:top}th{background:#f4f6f9}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".headline{font-size:1.35em;margin:.6em 0}.good{color:#1e7d4a}.bad{color:#b03a2e}"
    ".status{display:inline-block;padding:0 .5em;border-radius:.6em;background:#eef1f5}"
    "pre{background:#f7f8fa;border:1px solid #dde1e8;padding:.6em;overflow-x:auto;"
    "font:12.5px/1.4 ui-monospace,Menlo,Consolas,monospace}"
    "pre.diff .add{background:#e3f6e8}pre.diff .del{background:#fbe6e4}"
    "pre.diff .hunk{color:#6b4fa0}pre.diff .file{font-weight:bold}"
    "code{font:12.5px ui-monospace,Menlo,Consolas,monospace}"
    ".details{max-width:520px;white-space:pre-wrap;word-break:break-word;font-size:12px}"
    "svg text{font:12px system-ui,sans-serif;fill:#1d2330}footer{margin-top:2em;color:#6a7280}"
    ".sub{color:#4a5262;margin:.1em 0 .4em}.bw{margin:.3em 0 .6em}.bw small{color:#4a5262}"
    ".top{display:flex;flex-wrap:wrap;gap:1.2em;align-items:flex-start}"
    "pre.diff{max-height:26em;overflow:auto}"
    "details{margin:1em 0}summary{cursor:pointer;font-weight:bold}"
    "table.raw{table-layout:fixed;width:100%}table.raw th{width:14em}"
    "table.raw code,td code{white-space:pre-wrap;word-break:break-all}";

/* "Skills tried": each skill that fit and whether its rewrite applied, with the construct
 * and line that stopped a refused one (the episode info's skills_tried). */
static int skills_tried_html(struct hk_buf *out, const json_t *info)
{
    const json_t *tried = json_object_get(info, "skills_tried");
    if (!json_array_size(tried))
        return HK_OK;
    int rc = hk_buf_printf(out, "<h2>%s</h2>\n<table><tr><th>%s</th><th>%s</th><th>%s</th>" /* i18n: not for people (HTML markup) */
                                "<th>%s</th></tr>\n",
                           hk_tr(HK_MSG_REP_SKILLS_TRIED), hk_tr(HK_MSG_REP_SKILL),
                           hk_tr(HK_MSG_REP_REWRITE), hk_tr(HK_MSG_REP_APPLIED),
                           hk_tr(HK_MSG_REP_WHAT_STOPPED));
    size_t i;
    const json_t *t;
    json_array_foreach(tried, i, t) {
        if (rc)
            break;
        bool applied = json_is_true(json_object_get(t, "applied"));
        rc = hk_buf_appends(out, "<tr><td>");
        rc = rc ? rc : h(out, t, "skill");
        rc = rc ? rc : hk_buf_appends(out, "</td><td>");
        rc = rc ? rc : h(out, t, "rewrite");
        rc = rc ? rc
                : (applied ? hk_buf_printf(out, "</td><td>%s</td><td></td></tr>\n",
                                           hk_tr(HK_MSG_REP_YES))
                           : hk_buf_printf(out, "</td><td>%s</td><td class=\"details\">", /* i18n: not for people (HTML markup) */
                                           hk_tr(HK_MSG_REP_NO)));
        if (!rc && !applied) {
            rc = h_said(out, t, "reason"); /* the rewrite's, stored in English */
            rc = rc ? rc : hk_buf_appends(out, "</td></tr>\n");
        }
    }
    return rc ? rc : hk_buf_appends(out, "</table>\n");
}

/* "Second rewrites not stacked on the leader" (the episode info's stacks_not_applied). */
static int stacks_html(struct hk_buf *out, const json_t *info)
{
    const json_t *why = json_object_get(info, "stacks_not_applied");
    if (!json_array_size(why))
        return HK_OK;
    int rc = hk_buf_printf(out, "<h2>%s</h2>\n<ul>\n", hk_tr(HK_MSG_REP_STACKS_NOT_APPLIED));
    size_t i;
    const json_t *t;
    json_array_foreach(why, i, t) {
        const char *s = json_string_value(t);
        char *said = hk_tr_said(hk_i18n_lang(), s); /* the search's, stored in English */
        rc = rc ? rc : hk_buf_appends(out, "<li class=\"details\">"); /* i18n: not for people (HTML markup) */
        rc = rc ? rc : report_html_escape(out, said ? said : s ? s : "-");
        hk_free(said);
        rc = rc ? rc : hk_buf_appends(out, "</li>\n");
    }
    return rc ? rc : hk_buf_appends(out, "</ul>\n");
}

/* Horizontal bars: one per measured version, median as the bar and p10..p90 as a
 * whisker, coloured by role and status. */
static int chart(struct hk_buf *out, const json_t *versions)
{
    size_t i, n = 0;
    const json_t *v;
    double scale = 0;
    json_array_foreach(versions, i, v)
    {
        const json_t *t = json_object_get(v, "time");
        double med = num_or_nan(t, "median_ms"), p90 = num_or_nan(t, "p90_ms");
        if (!isfinite(med))
            continue;
        n++;
        if (med > scale)
            scale = med;
        if (isfinite(p90) && p90 > scale)
            scale = p90;
    }
    if (n == 0 || scale <= 0)
        return hk_buf_printf(out, "<p>%s</p>\n", hk_tr(HK_MSG_REPH_NO_CHART));
    const double label_w = 60, bar_w = 380, text_w = 190, row_h = 24, top = 8;
    double width = label_w + bar_w + text_w, height = top * 2 + row_h * (double)n;
    int rc = hk_buf_printf(out,
                           "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"%.0f\"" /* i18n: not for people (HTML markup) */
                           " height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n<title>%s</title>\n",
                           width, height, width, height, hk_tr(HK_MSG_REPH_CHART_TITLE));
    size_t row = 0;
    json_array_foreach(versions, i, v)
    {
        if (rc)
            break;
        const json_t *t = json_object_get(v, "time");
        double med = num_or_nan(t, "median_ms");
        if (!isfinite(med))
            continue;
        double p10 = num_or_nan(t, "p10_ms"), p90 = num_or_nan(t, "p90_ms");
        double y = top + row_h * (double)row++;
        const char *status = report__str(v, "status");
        bool is_base = json_is_true(json_object_get(v, "is_baseline"));
        bool is_best = json_is_true(json_object_get(v, "is_best"));
        const char *fill = is_base                                   ? "#4a78c2"
                           : status && !strcmp(status, "verified")   ? "#2e9b5f"
                           : status && !strcmp(status, "rejected")   ? "#c0392b"
                                                                     : "#9aa1ab";
        double w = med / scale * bar_w;
        rc = hk_buf_printf(out, "<text x=\"4\" y=\"%.1f\">", y + 16);
        rc = rc ? rc : h(out, v, "label");
        rc = rc ? rc
                : hk_buf_printf(out,
                                "</text>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"" /* i18n: not for people (HTML markup) */
                                " fill=\"%s\"%s/>\n",
                                label_w, y + 4, w < 1 ? 1 : w, row_h - 8, fill,
                                is_best ? " stroke=\"#1d2330\" stroke-width=\"2\"" : "");
        if (!rc && isfinite(p10) && isfinite(p90) && p90 >= p10)
            rc = hk_buf_printf(out,
                               "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\""
                               " stroke=\"#1d2330\" stroke-width=\"1.5\"/>\n",
                               label_w + p10 / scale * bar_w, label_w + p90 / scale * bar_w,
                               y + row_h / 2, y + row_h / 2);
        char ms[32], sp[32];
        report__fmt_ms(ms, sizeof ms, med);
        report__fmt_ratio(sp, sizeof sp, num_or_nan(v, "speedup"));
        rc = rc ? rc
                : hk_buf_printf(out, "<text x=\"%.1f\" y=\"%.1f\">%s  %s%s</text>\n",
                                label_w + bar_w + 8, y + 16, ms, sp,
                                is_base   ? hk_tr(HK_MSG_REPH_CHART_BASELINE)
                                : is_best ? hk_tr(HK_MSG_REPH_CHART_BEST)
                                          : "");
    }
    return rc ? rc : hk_buf_appends(out, "</svg>\n");
}

static int perf_table(struct hk_buf *out, const json_t *base, const json_t *best)
{
    const json_t *vs[2] = {base, best};
    int rc = hk_buf_printf(out, "<table><tr><th></th><th>%s ", hk_tr(HK_MSG_REP_BASELINE));
    rc = rc ? rc : (json_is_object(base) ? h(out, base, "label") : hk_buf_appends(out, "-"));
    rc = rc ? rc : hk_buf_printf(out, "</th><th>%s ", hk_tr(HK_MSG_REP_BEST));
    rc = rc ? rc : (json_is_object(best) ? h(out, best, "label") : hk_buf_appends(out, "-"));
    rc = rc ? rc : hk_buf_appends(out, "</th></tr>\n");
    char cells[2][7][80];
    for (int i = 0; i < 2; i++) {
        const json_t *t = json_object_get(vs[i], "time");
        char a[32], b[32];
        report__fmt_ms(cells[i][0], 80, num_or_nan(t, "median_ms"));
        report__fmt_ms(a, sizeof a, num_or_nan(t, "p10_ms"));
        report__fmt_ms(b, sizeof b, num_or_nan(t, "p90_ms"));
        snprintf(cells[i][1], 80, "%s .. %s", a, b);
        report__fmt_pct(cells[i][2], 80, 100 * num_or_nan(t, "spread"));
        report__fmt_bytes_rate(cells[i][3], 80, num_or_nan(vs[i], "bytes_per_s"));
        report__fmt_flop_rate(cells[i][4], 80, num_or_nan(vs[i], "flop_per_s"));
        report__fmt_pct(cells[i][5], 80, num_or_nan(vs[i], "roofline_pct"));
        if (json_is_integer(json_object_get(t, "reps")))
            snprintf(cells[i][6], 80, "%lld",
                     (long long)json_integer_value(json_object_get(t, "reps")));
        else
            snprintf(cells[i][6], 80, "-");
    }
    for (int r = 0; rc == HK_OK && r < 7; r++)
        rc = hk_buf_printf(out, "<tr><th>%s</th><td class=\"num\">%s</td><td class=\"num\">%s" /* i18n: not for people (HTML markup) */
                                "</td></tr>\n",
                           hk_tr(report__perf_labels[r]), cells[0][r], cells[1][r]);
    return rc ? rc : hk_buf_appends(out, "</table>\n");
}

/* Key/value table of a JSON object (scalars as text, containers as compact JSON). */
static int kv_table(struct hk_buf *out, const json_t *obj, const char *prefix)
{
    int rc = HK_OK;
    struct hk_buf cell;
    hk_buf_init(&cell, CELL_MAX * 4);
    if (!json_is_object(obj)) {
        int r = report__scalar_text(&cell, obj, CELL_MAX);
        rc = r == HK_ETOOBIG ? HK_OK : r;
        rc = rc ? rc : hk_buf_appends(out, hk_tr(HK_MSG_REPH_RAW_VALUE_ROW));
        rc = rc ? rc : report_html_escape(out, cell.data ? cell.data : "");
        rc = rc ? rc : hk_buf_appends(out, "</code></td></tr>\n");
        hk_buf_free(&cell);
        return rc;
    }
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        if (rc)
            break;
        hk_buf_reset(&cell);
        int r = report__scalar_text(&cell, v, CELL_MAX);
        rc = r == HK_ETOOBIG ? HK_OK : r;
        rc = rc ? rc : hk_buf_printf(out, "<tr><th>%s", prefix);
        rc = rc ? rc : report_html_escape(out, k);
        rc = rc ? rc : hk_buf_appends(out, "</th><td><code>");
        rc = rc ? rc : report_html_escape(out, cell.data ? cell.data : "");
        rc = rc ? rc : hk_buf_appends(out, "</code></td></tr>\n");
    }
    hk_buf_free(&cell);
    return rc;
}

static int evidence_html(struct hk_buf *out, const char *title, const json_t *arr)
{
    if (json_array_size(arr) == 0)
        return HK_OK;
    int rc = hk_buf_printf(out, "<h3>%s</h3>\n", title);
    size_t i;
    const json_t *ev;
    json_array_foreach(arr, i, ev)
    {
        if (rc)
            break;
        rc = hk_buf_appends(out, "<table><tr><th colspan=\"2\">"); /* i18n: not for people (HTML markup) */
        rc = rc ? rc : h(out, ev, "kind");
        rc = rc ? rc : hk_buf_appends(out, "</th></tr>\n");
        rc = rc ? rc : kv_table(out, json_object_get(ev, "data"), "");
        rc = rc ? rc : hk_buf_appends(out, "</table>\n");
    }
    return rc;
}

/* The diff as lines classed by their first character; the newlines stay in the text so
 * that copying the block gives the diff back. */
static int diff_html(struct hk_buf *out, const char *text)
{
    int rc = hk_buf_appends(out, "<pre class=\"diff\">"); /* i18n: not for people (HTML markup) */
    const char *p = text;
    int line_no = 0;
    while (rc == HK_OK && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *cls = line_no++ < 2 && (*p == '+' || *p == '-') ? "file"
                          : *p == '+'                                ? "add"
                          : *p == '-'                                ? "del"
                          : *p == '@'                                ? "hunk"
                                                                     : "ctx";
        char *line = hk_strndup(p, len);
        if (!line)
            return HK_ENOMEM;
        rc = hk_buf_printf(out, "<span class=\"%s\">", cls);
        rc = rc ? rc : report_html_escape(out, line);
        rc = rc ? rc : hk_buf_appends(out, "</span>\n");
        hk_free(line);
        p += len + (nl ? 1 : 0);
    }
    return rc ? rc : hk_buf_appends(out, "</pre>\n");
}

/* The versions table and the chain from baseline to best. */
static int versions_html(struct hk_buf *out, const json_t *m)
{
    static const enum hk_msg cols[] = {
        HK_MSG_REP_VERSION,   HK_MSG_REP_PARENT,       HK_MSG_REP_STATUS,
        HK_MSG_REP_MEDIAN,    HK_MSG_REP_P10_P90,      HK_MSG_REP_SPEEDUP_SPREAD,
        HK_MSG_REP_BANDWIDTH, HK_MSG_REP_FLOP_RATE,    HK_MSG_REP_ROOFLINE_PCT,
        HK_MSG_REP_MAX_ABS_ERR, HK_MSG_REP_MAX_REL_ERR, HK_MSG_REP_PRODUCED_BY,
    };
    int rc = hk_buf_appends(out, "<table><tr>");
    for (size_t c = 0; rc == HK_OK && c < HK_ARRAY_LEN(cols); c++)
        rc = hk_buf_printf(out, "<th>%s</th>", hk_tr(cols[c]));
    rc = rc ? rc : hk_buf_appends(out, "</tr>\n");
    size_t i;
    const json_t *v;
    char a[64];
    json_array_foreach(json_object_get(m, "versions"), i, v)
    {
        if (rc)
            break;
        const json_t *t = json_object_get(v, "time");
        json_t *par = json_object_get(v, "parent");
        char med[32], range[80], spd[160], bw[32], fl[32], roof[32], ea[32], er[32], x[32], y[32];
        report__fmt_ms(med, sizeof med, num_or_nan(t, "median_ms"));
        report__fmt_ms(x, sizeof x, num_or_nan(t, "p10_ms"));
        report__fmt_ms(y, sizeof y, num_or_nan(t, "p90_ms"));
        snprintf(range, sizeof range, "%s .. %s", x, y);
        report__fmt_ratio(a, sizeof a, num_or_nan(v, "speedup"));
        report__fmt_ratio(x, sizeof x, num_or_nan(v, "speedup_lo"));
        report__fmt_ratio(y, sizeof y, num_or_nan(v, "speedup_hi"));
        snprintf(spd, sizeof spd, "%s (%s .. %s)", a, x, y);
        report__fmt_bytes_rate(bw, sizeof bw, num_or_nan(v, "bytes_per_s"));
        report__fmt_flop_rate(fl, sizeof fl, num_or_nan(v, "flop_per_s"));
        report__fmt_pct(roof, sizeof roof, num_or_nan(v, "roofline_pct"));
        report__fmt_err(ea, sizeof ea, num_or_nan(v, "max_abs_err"));
        report__fmt_err(er, sizeof er, num_or_nan(v, "max_rel_err"));
        rc = hk_buf_appends(out, "<tr><td>");
        rc = rc ? rc : h(out, v, "label");
        if (!rc && json_is_true(json_object_get(v, "is_baseline")))
            rc = hk_buf_appends(out, hk_tr(HK_MSG_REP_TAG_BASELINE));
        if (!rc && json_is_true(json_object_get(v, "is_best")))
            rc = hk_buf_appends(out, hk_tr(HK_MSG_REPH_TAG_BEST));
        rc = rc ? rc
                : (json_is_integer(par) ? hk_buf_printf(out, "</td><td>v%lld</td><td>",
                                                        (long long)json_integer_value(par))
                                        : hk_buf_appends(out, "</td><td>-</td><td>"));
        rc = rc ? rc : h(out, v, "status");
        rc = rc ? rc
                : hk_buf_printf(out,
                                "</td><td class=\"num\">%s</td><td class=\"num\">%s</td>" /* i18n: not for people */
                                "<td class=\"num\">%s</td><td class=\"num\">%s</td>"
                                "<td class=\"num\">%s</td><td class=\"num\">%s</td>"
                                "<td class=\"num\">%s</td><td class=\"num\">%s</td><td>",
                                med, range, spd, bw, fl, roof, ea, er);
        rc = rc ? rc : h(out, v, "produced_by");
        rc = rc ? rc : hk_buf_appends(out, "</td></tr>\n");
    }
    rc = rc ? rc : hk_buf_printf(out, "</table>\n<p>%s", hk_tr(HK_MSG_REP_CHAIN_TO_BEST));
    json_array_foreach(json_object_get(m, "chain"), i, v)
    {
        if (rc)
            break;
        rc = i ? hk_buf_appends(out, " &rarr; ") : HK_OK;
        rc = rc ? rc : h(out, v, "label");
    }
    if (!rc && json_array_size(json_object_get(m, "chain")) == 0)
        rc = hk_buf_appends(out, "-");
    return rc ? rc : hk_buf_appends(out, "</p>\n");
}

/* The episode's facts: what ran where, with which tools, and under which checks. */
static int facts_html(struct hk_buf *out, const json_t *m)
{
    const json_t *ep = json_object_get(m, "episode"), *k = json_object_get(m, "kernel"),
                 *dev = json_object_get(m, "device"), *info = json_object_get(ep, "info");
    char a[64], words[1024];
    int rc = hk_buf_printf(out, "<h2>%s</h2>\n<table>\n", hk_tr(HK_MSG_REP_EPISODE));
    rc = rc ? rc : fact(out, hk_tr(HK_MSG_REP_KERNEL), report__str(k, "name"));
    rc = rc ? rc : fact(out, hk_tr(HK_MSG_REP_FILE), report__str(k, "file"));
    rc = rc ? rc : fact(out, hk_tr(HK_MSG_REP_STATUS), report__str(ep, "status"));
    rc = rc ? rc : fact(out, hk_tr(HK_MSG_REP_TARGET), report__str(ep, "target"));
    rc = rc ? rc : fact(out, hk_tr(HK_MSG_REP_ARCH), report__str(ep, "arch"));
    rc = rc ? rc : fact(out, hk_tr(HK_MSG_REP_DEVICE), report__str(dev, "name"));
    if (!rc && report__toolchain_words(info, words, sizeof words))
        rc = fact(out, hk_tr(HK_MSG_REP_TOOLCHAIN), words);
    rc = rc ? rc : fact(out, hk_tr(HK_MSG_REP_ENGINE), report__str(ep, "engine"));
    rc = rc ? rc : fact(out, hk_tr(HK_MSG_REP_STARTED), report__str(ep, "started"));
    rc = rc ? rc : fact(out, hk_tr(HK_MSG_REP_ENDED), report__str(ep, "ended"));
    report__fmt_duration(a, sizeof a, num_or_nan(ep, "duration_ms"));
    rc = rc ? rc : fact(out, hk_tr(HK_MSG_REP_DURATION), a);
    if (!rc && report__str(info, "bottleneck"))
        rc = fact(out, hk_tr(HK_MSG_REP_BOTTLENECK), report__str(info, "bottleneck"));
    if (!rc && report__str(info, "isolation"))
        rc = fact_said(out, hk_tr(HK_MSG_REP_ISOLATION), info, "isolation");
    if (!rc && report__str(info, "correctness"))
        rc = fact_said(out, hk_tr(HK_MSG_REP_CORRECTNESS), info, "correctness");
    if (!rc && report__str(info, "spec_inferred")) /* spec inference (docs/bench-spec.md) */
        rc = fact(out, hk_tr(HK_MSG_HOVER_SPEC_INFERRED), report__str(info, "spec_inferred"));
    if (!rc && report__floor_words(info, words, sizeof words))
        rc = fact(out, hk_tr(HK_MSG_REP_PHYSICAL_FLOOR), words);
    if (!rc && report__library_words(info, words, sizeof words))
        rc = fact(out, hk_tr(HK_MSG_REP_LIBRARY), words);
    if (!rc && report__str(info, "memory_safety")) /* compute-sanitizer (docs/sanitizer.md) */
        rc = fact_said(out, hk_tr(HK_MSG_REP_MEMORY_SAFETY), info, "memory_safety");
    if (!rc && report__str(info, "sensitivity")) /* the sensitivity check (docs/accuracy.md) */
        rc = fact_said(out, hk_tr(HK_MSG_REP_SENSITIVITY), info, "sensitivity");
    if (!rc && report__verify_words(info, words, sizeof words))
        rc = fact(out, hk_tr(HK_MSG_REP_VERIFY), words);
    return rc ? rc : hk_buf_appends(out, "</table>\n");
}

/* Above the fold of a 1280x900 window: the verdict, the one bandwidth figure, the result
 * table beside the versions chart, then the diff. The facts, stages and raw evidence
 * follow; the raw key/value blocks are folded (<details>). */
int report_model_to_html(const json_t *m, struct hk_buf *out)
{
    const json_t *ep = json_object_get(m, "episode"), *k = json_object_get(m, "kernel");
    if (!json_is_object(ep) || !json_is_object(k))
        return HK_EINVAL;
    const json_t *dev = json_object_get(m, "device"), *base = json_object_get(m, "baseline"),
                 *best = json_object_get(m, "best"), *info = json_object_get(ep, "info"),
                 *versions = json_object_get(m, "versions");
    char a[64], b[64], c[64];
    int rc = hk_buf_printf(out, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n", /* i18n: not for people (HTML markup) */
                           hk_lang_tag(hk_i18n_lang()));
    rc = rc ? rc
            : hk_buf_appends(out, "<meta charset=\"utf-8\">\n" /* i18n: not for people (HTML markup) */
                                 "<meta http-equiv=\"Content-Security-Policy\" content=\""
                                 "default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
                                 "<meta name=\"viewport\" content=\"width=device-width\">\n"
                                 "<title>");
    bool sim = json_is_true(json_object_get(ep, "simulated"));
    rc = rc ? rc
            : hk_buf_printf(out, "%s%s%s", hk_tr(HK_MSG_REP_TITLE),
                            sim ? hk_tr(HK_MSG_SIMULATED_GPU_PAREN) : "", hk_tr(HK_MSG_REP_SEP));
    rc = rc ? rc : h(out, ep, "name");
    rc = rc ? rc : hk_buf_printf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
    rc = rc ? rc : h(out, ep, "name");
    if (sim)
        rc = rc ? rc
                : hk_buf_printf(out, " <span class=\"status\">%s</span>", /* i18n: not for people (HTML markup) */
                                hk_tr(HK_MSG_REP_SIMULATED_TAG));
    rc = rc ? rc : hk_buf_appends(out, " <span class=\"status\">"); /* i18n: not for people (HTML markup) */
    rc = rc ? rc : h(out, ep, "status");
    rc = rc ? rc : hk_buf_appends(out, "</span></h1>\n<p class=\"sub\">");
    rc = rc ? rc : h(out, k, "file");
    rc = rc ? rc : hk_buf_appends(out, " &middot; ");
    rc = rc ? rc : h(out, ep, "arch");
    rc = rc ? rc : hk_buf_appends(out, hk_tr(HK_MSG_REP_ON));
    rc = rc ? rc : h(out, dev, "name");
    rc = rc ? rc : hk_buf_printf(out, " &middot; %s ", hk_tr(HK_MSG_REP_ENGINE_WORD));
    rc = rc ? rc : h(out, ep, "engine");
    report__fmt_duration(a, sizeof a, num_or_nan(ep, "duration_ms"));
    rc = rc ? rc : hk_buf_printf(out, " &middot; %s</p>\n", a);
    if (sim)
        rc = rc ? rc
                : hk_buf_printf(out, "<p><strong>%s</strong></p>\n",
                                hk_tr(HK_MSG_REP_SIM_BANNER_HTML));
    if (!rc && report__str(ep, "error")) {
        rc = hk_buf_printf(out, "<p class=\"bad\"><b>%s</b> ", hk_tr(HK_MSG_REP_ERROR));
        rc = rc ? rc : h_said(out, ep, "error");
        rc = rc ? rc : hk_buf_appends(out, "</p>\n");
    }

    const json_t *sp = json_object_get(m, "speedup");
    if (!rc && json_is_object(sp)) {
        double val = num_or_nan(sp, "value");
        report__fmt_ratio(a, sizeof a, val);
        report__fmt_ratio(b, sizeof b, num_or_nan(sp, "lo"));
        report__fmt_ratio(c, sizeof c, num_or_nan(sp, "hi"));
        rc = hk_buf_printf(out, "<p class=\"headline\"><b class=\"%s\">%s</b> %s%s <small>(", /* i18n: not for people (HTML markup) */
                           isfinite(val) && val > 1 ? "good" : "bad", a,
                           hk_tr(HK_MSG_REP_SPEEDUP_WORD), sim ? hk_tr(HK_MSG_SIMULATED_PAREN) : "");
        rc = rc ? rc : hk_buf_printf(out, hk_tr(HK_MSG_REP_SPREAD_FROM), b, c);
        const json_t *acc = json_object_get(m, "accuracy");
        if (!rc && json_is_object(acc)) {
            report__fmt_err(a, sizeof a, num_or_nan(acc, "max_abs_err"));
            report__fmt_err(b, sizeof b, num_or_nan(acc, "max_rel_err"));
            rc = hk_buf_printf(out, hk_tr(HK_MSG_REP_ACCURACY_HTML), a, b);
        }
        rc = rc ? rc : hk_buf_appends(out, "</small></p>\n");
    } else if (!rc) {
        rc = hk_buf_printf(out, "<p class=\"headline\">%s</p>\n", hk_tr(HK_MSG_REP_NO_FASTER));
    }
    if (!rc && json_is_true(json_object_get(m, "best_is_inferred")))
        rc = hk_buf_printf(out, "<p>%s</p>\n", hk_tr(HK_MSG_REP_BEST_INFERRED));
    char bw_head[256], bw_note[1024];
    if (!rc && report__bandwidth_words(m, bw_head, sizeof bw_head, bw_note, sizeof bw_note)) {
        rc = hk_buf_appends(out, "<p class=\"bw\"><b>");
        rc = rc ? rc : report_html_escape(out, bw_head);
        rc = rc ? rc : hk_buf_appends(out, "</b><br><small>");
        rc = rc ? rc : report_html_escape(out, bw_note);
        rc = rc ? rc : hk_buf_appends(out, "</small></p>\n");
    }
    rc = rc ? rc : hk_buf_appends(out, "<div class=\"top\"><div>"); /* i18n: not for people (HTML markup) */
    rc = rc ? rc : perf_table(out, base, best);
    rc = rc ? rc : hk_buf_appends(out, "</div><div>");
    rc = rc ? rc : chart(out, versions);
    rc = rc ? rc : hk_buf_appends(out, "</div></div>\n");

    /* Diff: what the user came for, right under the numbers */
    const json_t *diff = json_object_get(m, "diff");
    const char *text = report__str(diff, "text");
    if (!rc && text) {
        rc = hk_buf_printf(out, "<h2>%s ", hk_tr(HK_MSG_REP_DIFF));
        rc = rc ? rc : h(out, diff, "from");
        rc = rc ? rc : hk_buf_appends(out, " &rarr; ");
        rc = rc ? rc : h(out, diff, "to");
        rc = rc ? rc : hk_buf_appends(out, "</h2>\n");
        rc = rc ? rc : diff_html(out, text);
    } else if (!rc && report__str(diff, "error")) {
        rc = hk_buf_printf(out, "<h2>%s</h2>\n<p>", hk_tr(HK_MSG_REP_DIFF));
        rc = rc ? rc : h_said(out, diff, "error");
        rc = rc ? rc : hk_buf_appends(out, "</p>\n");
    }

    rc = rc ? rc : hk_buf_printf(out, "<h2>%s</h2>\n", hk_tr(HK_MSG_REP_VERSIONS));
    rc = rc ? rc : versions_html(out, m);
    rc = rc ? rc : facts_html(out, m);
    rc = rc ? rc : skills_tried_html(out, info);
    rc = rc ? rc : stacks_html(out, info);

    /* Stages */
    size_t i;
    const json_t *v;
    rc = rc ? rc
            : hk_buf_printf(out, "<h2>%s</h2>\n<table><tr><th>%s</th><th>%s</th><th>%s</th>" /* i18n: not for people (HTML markup) */
                                 "<th>%s</th><th>%s</th></tr>\n",
                            hk_tr(HK_MSG_REP_STAGES), hk_tr(HK_MSG_REP_STAGE),
                            hk_tr(HK_MSG_REP_STARTED), hk_tr(HK_MSG_REP_DURATION),
                            hk_tr(HK_MSG_REP_EVENTS), hk_tr(HK_MSG_REP_LAST_MESSAGE));
    const json_t *s;
    json_array_foreach(json_object_get(m, "stages"), i, s)
    {
        if (rc)
            break;
        report__fmt_duration(a, sizeof a, num_or_nan(s, "duration_ms"));
        rc = hk_buf_appends(out, "<tr><td>");
        rc = rc ? rc : h(out, s, "stage");
        rc = rc ? rc : hk_buf_appends(out, "</td><td>");
        rc = rc ? rc : h(out, s, "start");
        rc = rc ? rc
                : hk_buf_printf(out, "</td><td class=\"num\">%s</td><td class=\"num\">%lld</td><td>", /* i18n: not for people (HTML markup) */
                                a, (long long)json_integer_value(json_object_get(s, "events")));
        rc = rc ? rc : h_said(out, s, "last_message");
        rc = rc ? rc : hk_buf_appends(out, "</td></tr>\n");
    }
    rc = rc ? rc : hk_buf_appends(out, "</table>\n");

    /* Rejected */
    const json_t *rej = json_object_get(m, "rejected");
    if (!rc && json_array_size(rej)) {
        rc = hk_buf_printf(out, "<h2>%s</h2>\n<table><tr><th>%s</th><th>%s</th><th>%s</th>" /* i18n: not for people (HTML markup) */
                                "<th>%s</th></tr>\n",
                           hk_tr(HK_MSG_REP_REJECTED), hk_tr(HK_MSG_REP_VERSION),
                           hk_tr(HK_MSG_REP_REASON), hk_tr(HK_MSG_REP_DETAILS),
                           hk_tr(HK_MSG_REP_PRODUCED_BY));
        json_array_foreach(rej, i, v)
        {
            if (rc)
                break;
            rc = hk_buf_appends(out, "<tr><td>");
            rc = rc ? rc : h(out, v, "label");
            rc = rc ? rc : hk_buf_appends(out, "</td><td>");
            rc = rc ? rc : h(out, v, "reject_reason");
            rc = rc ? rc : hk_buf_appends(out, "</td><td class=\"details\">"); /* i18n: not for people (HTML markup) */
            rc = rc ? rc : h_said(out, v, "reject_details");
            rc = rc ? rc : hk_buf_appends(out, "</td><td>");
            rc = rc ? rc : h(out, v, "produced_by");
            rc = rc ? rc : hk_buf_appends(out, "</td></tr>\n");
        }
        rc = rc ? rc : hk_buf_appends(out, "</table>\n");
    }

    /* Raw evidence and settings: folded, for whoever wants to check a figure */
    const json_t *evd = json_object_get(m, "evidence");
    if (!rc && (json_array_size(json_object_get(evd, "baseline")) ||
                json_array_size(json_object_get(evd, "best")))) {
        rc = hk_buf_printf(out, "<details><summary>%s</summary>\n",
                           hk_tr(HK_MSG_REP_EVIDENCE_SUMMARY));
        rc = rc ? rc : evidence_html(out, hk_tr(HK_MSG_REP_BASELINE), json_object_get(evd, "baseline"));
        rc = rc ? rc : evidence_html(out, hk_tr(HK_MSG_REP_BEST), json_object_get(evd, "best"));
        rc = rc ? rc : hk_buf_appends(out, "</details>\n");
    }
    const json_t *budget = json_object_get(ep, "budget");
    if (!rc && (json_is_object(budget) || json_is_object(info))) {
        rc = hk_buf_printf(out, "<details><summary>%s</summary>\n<table class=\"raw\">\n", /* i18n: not for people (HTML markup) */
                           hk_tr(HK_MSG_REP_SETTINGS_SUMMARY));
        if (!rc && json_is_object(budget))
            rc = kv_table(out, budget, "budget.");
        if (!rc && json_is_object(info))
            rc = kv_table(out, info, "");
        rc = rc ? rc : hk_buf_appends(out, "</table>\n</details>\n");
    }
    rc = rc ? rc : hk_buf_printf(out, "<footer>%s", hk_tr(HK_MSG_REP_GENERATED));
    rc = rc ? rc : h(out, m, "generated");
    return rc ? rc : hk_buf_appends(out, ".</footer>\n</body>\n</html>\n");
}
