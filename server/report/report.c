/* The report model: one JSON document per episode, gathered from the store (episode,
 * kernel, device peaks, stages, versions with their measurements, chain, evidence, diff).
 * The JSON report is this model; Markdown and HTML are renderings of it
 * (report_md.c, report_html.c), so the three never disagree. Also writes the files. */
#include "report/report.h"
#include "core/i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/hk.h"
#include "report/report_impl.h"

#define CHAIN_MAX 1000
#define DIFF_MAX_BYTES ((size_t)4 << 20)

/* ---- shared helpers (report_impl.h) ---- */

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 when invalid. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    unsigned cp = c & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

json_t *report__text(const char *s, size_t cap)
{
    if (!s)
        return json_null();
    size_t n = strlen(s);
    struct hk_buf b;
    hk_buf_init(&b, cap + 64);
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    int rc = HK_OK;
    while (rc == HK_OK && i < n) {
        size_t len = utf8_seq(p + i, n - i);
        size_t take = len ? len : 1;
        if (b.len + (len ? len : 3) > cap)
            break;
        rc = len ? hk_buf_append(&b, p + i, len)
                 : hk_buf_append(&b, "\xef\xbf\xbd", 3); /* U+FFFD; i18n: not for people */
        i += take;
    }
    if (rc == HK_OK && i < n) /* stored in English, said again where shown (report__said) */
        rc = hk_buf_printf(&b, hk_tr_in(HK_LANG_EN, HK_MSG_REP_TEXT_CUT), n - i);
    json_t *j = NULL;
    if (rc == HK_OK)
        j = json_stringn(b.data ? b.data : "", b.len);
    hk_buf_free(&b);
    return j;
}

const char *report__str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* Whether s ends in report__text's English tail " [... N more bytes cut]" (the table's
 * REP_TEXT_CUT, the text around its conversion): *head_len is the text before it, *cut
 * the number. */
static bool cut_tail(const char *s, size_t *head_len, size_t *cut)
{
    const char *mid = hk_tr_in(HK_LANG_EN, HK_MSG_REP_TEXT_CUT), *conv = strstr(mid, "%zu");
    if (!conv || conv == mid)
        return false;
    size_t mid_len = (size_t)(conv - mid);
    const char *suffix = conv + 3, *at = NULL;
    size_t len = strlen(s);
    for (const char *p = s; (p = memmem(p, len - (size_t)(p - s), mid, mid_len)); p++)
        at = p; /* the last one */
    if (!at)
        return false;
    const char *d = at + mid_len, *e = d;
    while (*e >= '0' && *e <= '9')
        e++;
    if (e == d || e - d > 19 || strcmp(e, suffix) != 0)
        return false;
    *head_len = (size_t)(at - s);
    *cut = (size_t)strtoull(d, NULL, 10);
    return true;
}

char *report__said(const json_t *obj, const char *key)
{
    const char *s = report__str(obj, key);
    enum hk_lang lang = hk_i18n_lang();
    size_t head_len, cut;
    /* a text cut at its cap (report__text): its head said, then the tail */
    if (s && lang != HK_LANG_EN && cut_tail(s, &head_len, &cut)) {
        char *head = hk_strndup(s, head_len);
        char *said = head ? hk_tr_said(lang, head) : NULL;
        char *tail = hk_trf(HK_MSG_REP_TEXT_CUT, cut);
        char *out = head && tail ? hk_asprintf("%s%s", said ? said : head, tail) : NULL;
        hk_free(said);
        hk_free(head);
        hk_free(tail);
        return out;
    }
    return hk_tr_said(lang, s);
}

bool report__floor_words(const json_t *info, char *buf, size_t n)
{
    const json_t *fl = json_object_get(info, "floor"), *nc = json_object_get(info, "not_credited");
    if (n)
        buf[0] = '\0';
    if (!json_is_object(fl) || json_is_true(json_object_get(fl, "available")))
        return false;
    const char *why = report__str(fl, "why");
    char *why_said = report__said(fl, "why"); /* the engine's, stored in English */
    int w = snprintf(buf, n, hk_tr(HK_MSG_REP_FLOOR_NONE),
                     why_said ? why_said : why ? why : hk_tr(HK_MSG_REP_UNKNOWN),
                     hk_tr(json_is_true(json_object_get(fl, "allow_no_floor"))
                               ? HK_MSG_REP_FLOOR_CREDITED : HK_MSG_REP_FLOOR_NOT_CREDITED));
    hk_free(why_said);
    if (json_is_object(nc) && w > 0 && (size_t)w < n)
        snprintf(buf + w, n - (size_t)w, hk_tr(HK_MSG_REP_FLOOR_UNCREDITED),
                 (long long)json_integer_value(json_object_get(nc, "versions")),
                 (long long)json_integer_value(json_object_get(nc, "best_version")),
                 json_number_value(json_object_get(nc, "best_speedup")));
    return true;
}

bool report__library_words(const json_t *info, char *buf, size_t n)
{
    const json_t *cr = json_object_get(info, "credit");
    const char *lib = report__str(cr, "library"), *routine = report__str(cr, "routine");
    if (n)
        buf[0] = '\0';
    if (!lib)
        return false;
    snprintf(buf, n, hk_tr(HK_MSG_REP_LIBRARY_WORDS), lib, routine && *routine ? routine : "?");
    return true;
}

bool report__verify_words(const json_t *info, char *buf, size_t n)
{
    const json_t *vi = json_object_get(info, "verify"), *d;
    const json_t *dropped = json_object_get(vi, "dropped"), *ver = json_object_get(vi, "version");
    size_t i, w;
    if (n)
        buf[0] = '\0';
    if (!n || !json_array_size(dropped))
        return false;
    if (json_is_integer(ver))
        snprintf(buf, n, hk_tr(HK_MSG_REP_VERIFY_VERIFIED), (int)json_integer_value(ver));
    else
        snprintf(buf, n, "%s", hk_tr(HK_MSG_REP_VERIFY_NONE));
    json_array_foreach(dropped, i, d) {
        int v = (int)json_integer_value(json_object_get(d, "version"));
        const char *reason = report__str(d, "reason");
        w = strlen(buf);
        if (i && w + 2 < n)
            w += (size_t)snprintf(buf + w, n - w, ", ");
        if (reason && !strcmp(reason, "not_faster"))
            snprintf(buf + w, n - w, hk_tr(HK_MSG_REP_VERIFY_DROPPED_SLOWER), v,
                     json_number_value(json_object_get(d, "speedup")));
        else
            snprintf(buf + w, n - w, hk_tr(HK_MSG_REP_VERIFY_DROPPED_REJECTED), v,
                     reason ? reason : "?");
    }
    return true;
}

/* CUDA's version integers (1000 * major + 10 * minor) as "13.0". */
static void cuda_version(char *buf, size_t n, const json_t *v)
{
    long long x = json_integer_value(v);
    snprintf(buf, n, "%lld.%lld", x / 1000, x % 1000 / 10);
}

bool report__toolchain_words(const json_t *info, char *buf, size_t n)
{
    if (n)
        buf[0] = '\0';
    const char *cc = report__str(info, "nvcc"), *backend = report__str(info, "backend");
    if (!cc)
        return false;
    const json_t *dev = json_object_get(info, "device");
    const json_t *rt = json_object_get(dev, "runtime_version"),
                 *drv = json_object_get(dev, "driver_version");
    char r[32] = "", d[32] = "";
    if (json_integer_value(rt) > 0)
        cuda_version(r, sizeof r, rt);
    if (json_integer_value(drv) > 0)
        cuda_version(d, sizeof d, drv);
    bool dcu = backend && !strcmp(backend, "dcu");
    int w = snprintf(buf, n, "%s %s", dcu ? "hipcc" : "nvcc", cc);
    if (w > 0 && (size_t)w < n && !dcu && *r)
        w += snprintf(buf + w, n - (size_t)w, hk_tr(HK_MSG_REP_TOOLCHAIN_RUNTIME), r);
    if (w > 0 && (size_t)w < n && !dcu && *d)
        snprintf(buf + w, n - (size_t)w, hk_tr(HK_MSG_REP_TOOLCHAIN_DRIVER), d);
    return true;
}

/* The version the headline figure is about: the best, else the baseline. */
static const json_t *headline_version(const json_t *m)
{
    const json_t *best = json_object_get(m, "best");
    return json_is_object(best) ? best : json_object_get(m, "baseline");
}

bool report__bandwidth_words(const json_t *m, char *head, size_t hn, char *note, size_t nn)
{
    if (hn)
        head[0] = '\0';
    if (nn)
        note[0] = '\0';
    const json_t *v = headline_version(m);
    double bps, pct, peak = NAN;
    if (!json_is_object(v) || !report__num(v, "bytes_per_s", &bps))
        return false;
    if (!report__num(v, "bandwidth_pct_of_peak", &pct))
        pct = NAN;
    report__num(json_object_get(json_object_get(m, "device"), "peaks"),
                STORE_PEAK_DRAM_BYTES_PER_S, &peak);
    char rate[32], p[32], pk[32];
    report__fmt_bytes_rate(rate, sizeof rate, bps);
    report__fmt_pct(p, sizeof p, pct);
    report__fmt_bytes_rate(pk, sizeof pk, peak);
    const char *label = report__str(v, "label");
    if (isfinite(pct))
        snprintf(head, hn, hk_tr(HK_MSG_REP_BW_HEAD), label ? label : "-", rate, p, pk);
    else
        snprintf(head, hn, hk_tr(HK_MSG_REP_BW_HEAD_NO_PEAK), label ? label : "-", rate);
    snprintf(note, nn, "%s", hk_tr(HK_MSG_REP_BW_NOTE));
    return true;
}

bool report__num(const json_t *obj, const char *key, double *out)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_number(v))
        return false;
    *out = json_number_value(v);
    return true;
}

const enum hk_msg report__perf_labels[REPORT_PERF_ROWS] = {
    HK_MSG_REP_MEDIAN_TIME, HK_MSG_REP_P10_P90,    HK_MSG_REP_SPREAD,      HK_MSG_REP_BANDWIDTH,
    HK_MSG_REP_FLOP_RATE,   HK_MSG_REP_ROOFLINE_PCT, HK_MSG_REP_REPETITIONS,
};

void report__fmt_ms(char *buf, size_t n, double ms)
{
    if (!isfinite(ms))
        snprintf(buf, n, "-");
    else if (ms >= 1000)
        snprintf(buf, n, "%.3f s", ms / 1000);
    else if (ms >= 1)
        snprintf(buf, n, "%.3f ms", ms);
    else
        snprintf(buf, n, "%.2f us", ms * 1000);
}

void report__fmt_bytes_rate(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.1f GB/s", v / 1e9);
}

void report__fmt_flop_rate(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, "-");
    else if (v >= 1e12)
        snprintf(buf, n, "%.2f TFLOP/s", v / 1e12);
    else
        snprintf(buf, n, "%.1f GFLOP/s", v / 1e9);
}

void report__fmt_ratio(char *buf, size_t n, double r)
{
    if (!isfinite(r))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.2fx", r);
}

void report__fmt_pct(char *buf, size_t n, double pct)
{
    if (!isfinite(pct))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.1f%%", pct);
}

void report__fmt_err(char *buf, size_t n, double e)
{
    if (!isfinite(e))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.2g", e);
}

void report__fmt_time(char *buf, size_t n, double epoch_ms)
{
    if (!isfinite(epoch_ms) || epoch_ms <= 0) {
        snprintf(buf, n, "-");
        return;
    }
    time_t t = (time_t)(epoch_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void report__fmt_duration(char *buf, size_t n, double ms)
{
    if (!isfinite(ms) || ms < 0)
        snprintf(buf, n, "-");
    else if (ms < 1000)
        snprintf(buf, n, "%.0f ms", ms);
    else if (ms < 60000)
        snprintf(buf, n, "%.1f s", ms / 1000);
    else
        snprintf(buf, n, "%d min %02d s", (int)(ms / 60000), (int)fmod(ms / 1000, 60));
}

/* json_dump_callback sink that remembers why it stopped (cap or memory). */
struct dump_ctx {
    struct hk_buf *b;
    int rc;
};

static int dump_cb(const char *p, size_t n, void *data)
{
    struct dump_ctx *c = data;
    int rc = hk_buf_append(c->b, p, n);
    if (rc) {
        c->rc = rc;
        return -1;
    }
    return 0;
}

/* Dumps v into out; HK_ETOOBIG at out's cap, HK_ENOMEM when jansson runs out. */
static int dump_json(const json_t *v, struct hk_buf *out, size_t flags)
{
    struct dump_ctx c = {out, HK_OK};
    if (json_dump_callback(v, dump_cb, &c, flags) != 0)
        return c.rc ? c.rc : HK_ENOMEM;
    return HK_OK;
}

int report__scalar_text(struct hk_buf *out, const json_t *v, size_t cap)
{
    switch (json_typeof(v)) {
    case JSON_STRING: return hk_buf_append(out, json_string_value(v), json_string_length(v));
    case JSON_INTEGER: return hk_buf_printf(out, "%lld", (long long)json_integer_value(v));
    case JSON_REAL: return hk_buf_printf(out, "%.6g", json_real_value(v));
    case JSON_TRUE: return hk_buf_appends(out, "true");
    case JSON_FALSE: return hk_buf_appends(out, "false");
    case JSON_NULL: return hk_buf_appends(out, "null");
    default: break;
    }
    struct hk_buf tmp;
    hk_buf_init(&tmp, cap);
    int rc = dump_json(v, &tmp, JSON_COMPACT);
    if (rc == HK_ETOOBIG && tmp.len) {
        rc = hk_buf_append(out, tmp.data, tmp.len);
        if (!rc)
            rc = hk_buf_appends(out, " ...");
    } else if (rc == HK_OK) {
        rc = hk_buf_append(out, tmp.data ? tmp.data : "", tmp.len);
    }
    hk_buf_free(&tmp);
    return rc;
}

/* ---- building the model ---- */

/* Sets key to a number, or null for NAN: the model never holds a non-finite number. */
static int set_num(json_t *o, const char *key, double v)
{
    return json_object_set_new(o, key, isfinite(v) ? json_real(v) : json_null()) ? HK_ENOMEM
                                                                                 : HK_OK;
}

static int set_int(json_t *o, const char *key, long long v)
{
    return json_object_set_new(o, key, json_integer(v)) ? HK_ENOMEM : HK_OK;
}

static int set_text(json_t *o, const char *key, const char *v, size_t cap)
{
    return json_object_set_new(o, key, report__text(v, cap)) ? HK_ENOMEM : HK_OK;
}

static int set_time(json_t *o, const char *key, int64_t ms)
{
    char t[40];
    report__fmt_time(t, sizeof t, (double)ms);
    return json_object_set_new(o, key, ms > 0 ? json_string(t) : json_null()) ? HK_ENOMEM
                                                                              : HK_OK;
}

/* A stored JSON blob as JSON (parsed; an unparsable one as its text). */
static int set_blob(json_t *o, const char *key, const char *text)
{
    json_t *v = NULL;
    if (text) {
        v = json_loads(text, JSON_DECODE_ANY, NULL);
        if (!v)
            v = report__text(text, REPORT_MAX_TEXT);
    } else {
        v = json_null();
    }
    return json_object_set_new(o, key, v) ? HK_ENOMEM : HK_OK;
}

struct peaks {
    double bw, fp32, tensor;  /* NAN when unknown */
};

static json_t *version_json(const store_history_row *r, const struct peaks *pk,
                            const store_episode *ep, const store_history_row *rows, size_t n)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    const store_version *v = &r->version;
    char label[32];
    snprintf(label, sizeof label, "v%d", v->number);
    int rc = set_int(o, "id", v->id);
    rc = rc ? rc : set_int(o, "number", v->number);
    rc = rc ? rc : (json_object_set_new(o, "label", json_string(label)) ? HK_ENOMEM : HK_OK);
    json_t *parent = json_null();
    for (size_t i = 0; i < n; i++)
        if (v->parent_id && rows[i].version.id == v->parent_id) {
            json_decref(parent);
            parent = json_integer(rows[i].version.number);
        }
    if (rc)
        json_decref(parent);
    else
        rc = json_object_set_new(o, "parent", parent) ? HK_ENOMEM : HK_OK;
    rc = rc ? rc : set_int(o, "parent_id", v->parent_id);
    rc = rc ? rc : set_int(o, "episode_id", v->episode_id);
    rc = rc ? rc
            : (json_object_set_new(o, "status",
                                   json_string(store_version_status_label(v->status, r->measured)))
                   ? HK_ENOMEM
                   : HK_OK);
    rc = rc ? rc
            : (json_object_set_new(o, "is_baseline", json_boolean(v->id == ep->baseline_version_id))
                   ? HK_ENOMEM
                   : HK_OK);
    rc = rc ? rc
            : (json_object_set_new(o, "is_best", json_boolean(v->id == ep->best_version_id))
                   ? HK_ENOMEM
                   : HK_OK);
    rc = rc ? rc : set_text(o, "produced_by", v->produced_by, 256);
    rc = rc ? rc : set_text(o, "content_hash", v->content_hash, 80);
    rc = rc ? rc : set_blob(o, "launch", v->launch_json);
    rc = rc ? rc : set_time(o, "created", v->created_ms);
    if (!rc && r->measured) {
        const store_measurement *m = &r->best;
        json_t *t = json_object();
        rc = t ? HK_OK : HK_ENOMEM;
        rc = rc ? rc : (json_object_set_new(o, "time", t) ? HK_ENOMEM : HK_OK);
        rc = rc ? rc : set_num(t, "median_ms", m->median_ms);
        rc = rc ? rc : set_num(t, "p10_ms", m->p10_ms);
        rc = rc ? rc : set_num(t, "p90_ms", m->p90_ms);
        rc = rc ? rc : set_num(t, "spread", m->spread);
        rc = rc ? rc : set_int(t, "reps", m->reps);
        rc = rc ? rc
                : (json_object_set_new(t, "kind", json_string(store_measure_kind_name(m->kind)))
                       ? HK_ENOMEM
                       : HK_OK);
        rc = rc ? rc : set_text(t, "size", m->size_key, 256);
        double bw_pct = NAN, fl_pct = NAN, roof = m->roofline_pct;
        if (isfinite(m->bytes_per_s) && isfinite(pk->bw) && pk->bw > 0)
            bw_pct = 100.0 * m->bytes_per_s / pk->bw;
        if (isfinite(m->flop_per_s) && isfinite(pk->fp32) && pk->fp32 > 0)
            fl_pct = 100.0 * m->flop_per_s / pk->fp32;
        /* The binding roof is the larger fraction (the harness's own figure wins). */
        if (!isfinite(roof))
            roof = isfinite(bw_pct) && (!isfinite(fl_pct) || bw_pct >= fl_pct) ? bw_pct : fl_pct;
        rc = rc ? rc : set_num(o, "bytes_per_s", m->bytes_per_s);
        rc = rc ? rc : set_num(o, "flop_per_s", m->flop_per_s);
        rc = rc ? rc : set_num(o, "bandwidth_pct_of_peak", bw_pct);
        rc = rc ? rc : set_num(o, "flop_pct_of_peak", fl_pct);
        rc = rc ? rc : set_num(o, "roofline_pct", roof);
    } else if (!rc) {
        rc = json_object_set_new(o, "time", json_null()) ? HK_ENOMEM : HK_OK;
    }
    rc = rc ? rc : set_num(o, "speedup", r->speedup);
    rc = rc ? rc : set_num(o, "speedup_lo", r->speedup_lo);
    rc = rc ? rc : set_num(o, "speedup_hi", r->speedup_hi);
    rc = rc ? rc : set_num(o, "max_abs_err", v->max_abs_err);
    rc = rc ? rc : set_num(o, "max_rel_err", v->max_rel_err);
    rc = rc ? rc : set_text(o, "reject_reason", v->reject_reason, 512);
    rc = rc ? rc : set_text(o, "reject_details", v->reject_details, REPORT_MAX_TEXT);
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int evidence_json(store *s, int64_t vid, int64_t eid, json_t **out)
{
    *out = NULL;
    store_evidence *ev = NULL;
    size_t n = 0;
    int rc = store_evidence_list(s, vid, eid, &ev, &n);
    if (rc == HK_OK && n == 0) /* the version's evidence from an earlier episode */
        rc = store_evidence_list(s, vid, 0, &ev, &n);
    if (rc)
        return rc;
    json_t *arr = json_array();
    rc = arr ? HK_OK : HK_ENOMEM;
    for (size_t i = 0; rc == HK_OK && i < n; i++) {
        json_t *o = json_object();
        if (!o || json_array_append_new(arr, o)) {
            rc = HK_ENOMEM;
            break;
        }
        rc = set_text(o, "kind", ev[i].kind, 64);
        rc = rc ? rc : set_blob(o, "data", ev[i].json);
        /* Episodes recorded before the rename called the SASS's local loads and stores
         * "spills", beside ptxas's real spill count: a baseline then read "spills false"
         * and "spills true". Show them under the name they have now. */
        json_t *d = json_object_get(o, "data"), *sp = json_object_get(d, "spills");
        if (!rc && ev[i].kind && !strcmp(ev[i].kind, "sass") && sp &&
            !json_object_get(d, "local_memory")) {
            json_incref(sp);
            json_object_del(d, "spills");
            rc = json_object_set_new(d, "local_memory", sp) ? HK_ENOMEM : HK_OK;
        }
    }
    store_evidences_free(ev, n);
    if (rc) {
        json_decref(arr);
        return rc;
    }
    *out = arr;
    return HK_OK;
}

static int diff_json(store *s, int64_t base_id, int64_t best_id, json_t *root)
{
    json_t *d = json_object();
    if (!d || json_object_set_new(root, "diff", d))
        return HK_ENOMEM;
    if (!base_id || !best_id || base_id == best_id)
        return json_object_set_new(d, "text", json_null()) ? HK_ENOMEM : HK_OK;
    store_version a = {0}, b = {0};
    struct hk_buf buf;
    hk_buf_init(&buf, DIFF_MAX_BYTES);
    int rc = store_version_get(s, base_id, &a);
    rc = rc ? rc : store_version_get(s, best_id, &b);
    if (rc)
        goto out;
    char la[48], lb[48];
    snprintf(la, sizeof la, "v%d (baseline)", a.number);
    snprintf(lb, sizeof lb, "v%d (best)", b.number);
    rc = set_text(d, "from", la, 64);
    rc = rc ? rc : set_text(d, "to", lb, 64);
    if (rc)
        goto out;
    rc = report_diff_unified(a.source, strlen(a.source), b.source, strlen(b.source), la, lb, 3,
                             &buf);
    if (rc == HK_ETOOBIG) {
        rc = json_object_set_new(d, "text", json_null()) ? HK_ENOMEM : HK_OK;
        rc = rc ? rc
                : set_text(d, "error", hk_tr_in(HK_LANG_EN, HK_MSG_REP_DIFF_TOO_LARGE), 128);
    } else if (rc == HK_OK) {
        rc = set_text(d, "text", buf.data ? buf.data : "", DIFF_MAX_BYTES);
    }
out:
    hk_buf_free(&buf);
    store_version_clear(&a);
    store_version_clear(&b);
    return rc;
}

/* Versions from the root to best, following parents (they may come from earlier
 * episodes). */
static int chain_json(store *s, int64_t best_id, const store_history_row *rows, size_t n,
                      json_t *root)
{
    json_t *arr = json_array();
    if (!arr || json_object_set_new(root, "chain", arr))
        return HK_ENOMEM;
    int64_t id = best_id;
    int rc = HK_OK;
    for (int steps = 0; id && steps < CHAIN_MAX && rc == HK_OK; steps++) {
        store_version v;
        rc = store_version_get(s, id, &v);
        if (rc)
            break;
        json_t *o = json_object();
        char label[32];
        snprintf(label, sizeof label, "v%d", v.number);
        if (!o || json_array_insert_new(arr, 0, o)) {
            rc = HK_ENOMEM;
        } else {
            rc = set_int(o, "id", v.id);
            rc = rc ? rc : set_text(o, "label", label, 32);
            rc = rc ? rc : set_text(o, "status", store_version_status_name(v.status), 32);
            rc = rc ? rc : set_text(o, "produced_by", v.produced_by, 256);
            double speedup = NAN;
            for (size_t i = 0; i < n; i++)
                if (rows[i].version.id == v.id)
                    speedup = rows[i].speedup;
            rc = rc ? rc : set_num(o, "speedup", speedup);
        }
        id = v.parent_id;
        store_version_clear(&v);
    }
    return rc;
}

int report_build(store *s, int64_t eid, json_t **out)
{
    *out = NULL;
    store_episode ep;
    store_history_row *rows = NULL;
    size_t n_rows = 0, n_stages = 0;
    store_stage *stages = NULL;
    store_device dev = {0};
    json_t *root = NULL, *peaks_j = NULL;
    struct peaks pk = {NAN, NAN, NAN};
    int rc = store_episode_get(s, eid, &ep);
    if (rc)
        return rc;
    rc = store_episode_versions(s, eid, &rows, &n_rows);
    rc = rc ? rc : store_episode_stages(s, eid, &stages, &n_stages);
    if (rc)
        goto out;
    bool has_dev = false;
    if (ep.device) {
        rc = store_device_get(s, ep.device, &dev);
        has_dev = rc == HK_OK;
        if (rc == HK_ENOENT)
            rc = HK_OK;
        if (rc)
            goto out;
    }
    if (has_dev) {
        peaks_j = json_loads(dev.peaks_json, 0, NULL);
        if (!report__num(peaks_j, STORE_PEAK_DRAM_BYTES_PER_S, &pk.bw))
            pk.bw = NAN;
        if (!report__num(peaks_j, STORE_PEAK_FP32_FLOP_PER_S, &pk.fp32))
            pk.fp32 = NAN;
        if (!report__num(peaks_j, STORE_PEAK_TENSOR_FLOP_PER_S, &pk.tensor))
            pk.tensor = NAN;
    }

    root = json_object();
    if (!root) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = set_text(root, "schema", "hyperkernel.report/1", 64);
    rc = rc ? rc : set_time(root, "generated", store_now_ms());
    if (rc)
        goto out;
    json_t *e = json_object(), *k = json_object(), *st = json_array(), *vs = json_array(),
           *rej = json_array(), *evd = json_object();
    /* set_new steals its value even when it fails (and refuses NULL), so attach all of
     * them before looking at the result: '|' not '||'. */
    if (json_object_set_new(root, "episode", e) | json_object_set_new(root, "kernel", k) |
        json_object_set_new(root, "stages", st) | json_object_set_new(root, "versions", vs) |
        json_object_set_new(root, "rejected", rej) | json_object_set_new(root, "evidence", evd)) {
        rc = HK_ENOMEM;
        goto out;
    }
    /* episode and kernel */
    rc = set_int(e, "id", ep.id);
    rc = rc ? rc : set_text(e, "name", ep.name, 512);
    rc = rc ? rc : set_text(e, "status", store_episode_status_name(ep.status), 32);
    rc = rc ? rc : set_text(e, "target", ep.target, 256);
    rc = rc ? rc : set_text(e, "backend", ep.backend, 64);
    rc = rc ? rc : set_text(e, "arch", ep.arch, 64);
    rc = rc ? rc : set_text(e, "engine", ep.engine, 256);
    if (!rc && json_object_set_new(e, "simulated", json_boolean(store_episode_simulated(&ep))))
        rc = HK_ENOMEM;
    rc = rc ? rc : set_time(e, "started", ep.started_ms);
    rc = rc ? rc : set_time(e, "ended", ep.ended_ms);
    rc = rc ? rc
            : set_num(e, "duration_ms",
                      ep.ended_ms ? (double)(ep.ended_ms - ep.started_ms) : NAN);
    rc = rc ? rc : set_text(e, "error", ep.error, REPORT_MAX_TEXT);
    rc = rc ? rc : set_blob(e, "budget", ep.budget_json);
    rc = rc ? rc : set_blob(e, "info", ep.info_json);
    rc = rc ? rc : set_int(k, "id", ep.kernel_id);
    rc = rc ? rc : set_text(k, "name", ep.kernel, 1024);
    rc = rc ? rc : set_text(k, "file", ep.file, 4096);

    /* device */
    if (!rc && has_dev) {
        json_t *d = json_object();
        rc = d && !json_object_set_new(root, "device", d) ? HK_OK : HK_ENOMEM;
        rc = rc ? rc : set_text(d, "name", dev.name, 256);
        rc = rc ? rc : set_text(d, "cc", dev.cc, 64);
        rc = rc ? rc : set_blob(d, "peaks", dev.peaks_json);
        rc = rc ? rc : set_time(d, "measured", dev.measured_ms);
    } else if (!rc) {
        json_t *d = ep.device ? json_pack("{s:s%, s:n}", "name", ep.device, strlen(ep.device),
                                          "peaks")
                              : json_null();
        if (!d) /* a device name jansson refuses (bad UTF-8): through the sanitiser */
            d = json_pack("{s:o, s:n}", "name", report__text(ep.device, 256), "peaks");
        rc = d && !json_object_set_new(root, "device", d) ? HK_OK : HK_ENOMEM;
    }

    /* stages */
    for (size_t i = 0; !rc && i < n_stages; i++) {
        json_t *o = json_object();
        if (!o || json_array_append_new(st, o)) {
            rc = HK_ENOMEM;
            break;
        }
        rc = set_text(o, "stage", stages[i].stage, 128);
        rc = rc ? rc : set_time(o, "start", stages[i].start_ms);
        rc = rc ? rc : set_num(o, "duration_ms", (double)(stages[i].end_ms - stages[i].start_ms));
        rc = rc ? rc : set_int(o, "events", (long long)stages[i].n_events);
        rc = rc ? rc : set_text(o, "last_message", stages[i].last_message, 1024);
    }

    /* versions, baseline, best, rejected */
    const store_history_row *base = NULL, *best = NULL;
    for (size_t i = 0; i < n_rows; i++) {
        if (rows[i].version.id == ep.baseline_version_id)
            base = &rows[i];
        if (rows[i].version.id == ep.best_version_id)
            best = &rows[i];
    }
    bool best_computed = false;
    if (!best) {
        /* No best recorded (stopped or failed early): the fastest verified version that
         * beats the baseline, so a stopped episode still shows what it found. */
        for (size_t i = 0; i < n_rows; i++) {
            const store_history_row *r = &rows[i];
            if (r != base && r->version.status == STORE_V_VERIFIED && isfinite(r->speedup) &&
                r->speedup > 1 && (!best || r->speedup >= best->speedup))
                best = r;
        }
        best_computed = best != NULL;
    }
    for (size_t i = 0; !rc && i < n_rows; i++) {
        json_t *o = version_json(&rows[i], &pk, &ep, rows, n_rows);
        if (!o || json_array_append_new(vs, o)) {
            rc = HK_ENOMEM;
            break;
        }
        if (&rows[i] == base && json_object_set(root, "baseline", o))
            rc = HK_ENOMEM;
        if (!rc && &rows[i] == best && json_object_set(root, "best", o))
            rc = HK_ENOMEM;
        if (!rc && rows[i].version.status == STORE_V_REJECTED && json_array_append(rej, o))
            rc = HK_ENOMEM;
    }
    if (!rc && !base && json_object_set_new(root, "baseline", json_null()))
        rc = HK_ENOMEM;
    if (!rc && !best && json_object_set_new(root, "best", json_null()))
        rc = HK_ENOMEM;
    rc = rc ? rc
            : (json_object_set_new(root, "best_is_inferred", json_boolean(best_computed))
                   ? HK_ENOMEM
                   : HK_OK);

    /* headline: speedup and accuracy of best against baseline */
    if (!rc && best && base && best != base) {
        json_t *sp = json_object();
        rc = sp && !json_object_set_new(root, "speedup", sp) ? HK_OK : HK_ENOMEM;
        rc = rc ? rc : set_num(sp, "value", best->speedup);
        rc = rc ? rc : set_num(sp, "lo", best->speedup_lo);
        rc = rc ? rc : set_num(sp, "hi", best->speedup_hi);
        json_t *ac = json_object();
        rc = rc ? rc : (ac && !json_object_set_new(root, "accuracy", ac) ? HK_OK : HK_ENOMEM);
        rc = rc ? rc : set_num(ac, "max_abs_err", best->version.max_abs_err);
        rc = rc ? rc : set_num(ac, "max_rel_err", best->version.max_rel_err);
    } else if (!rc) {
        if (json_object_set_new(root, "speedup", json_null()) ||
            json_object_set_new(root, "accuracy", json_null()))
            rc = HK_ENOMEM;
    }

    /* evidence of baseline and best */
    if (!rc) {
        json_t *eb = NULL, *ebest = NULL;
        if (base)
            rc = evidence_json(s, base->version.id, eid, &eb);
        if (!rc && best && best != base)
            rc = evidence_json(s, best->version.id, eid, &ebest);
        if (rc) {
            json_decref(eb);
            json_decref(ebest);
        } else {
            /* set_new steals even when it fails: no decref after these. */
            int r1 = json_object_set_new(evd, "baseline", eb ? eb : json_array());
            int r2 = json_object_set_new(evd, "best", ebest ? ebest : json_array());
            if (r1 || r2)
                rc = HK_ENOMEM;
        }
    }
    /* Without a best the chain is the baseline alone. */
    rc = rc ? rc
            : chain_json(s, best ? best->version.id : base ? base->version.id : 0, rows, n_rows,
                         root);
    rc = rc ? rc
            : diff_json(s, base ? base->version.id : 0, best ? best->version.id : 0, root);
out:
    json_decref(peaks_j);
    store_device_clear(&dev);
    store_stages_free(stages, n_stages);
    store_history_free(rows, n_rows);
    store_episode_clear(&ep);
    if (rc) {
        json_decref(root);
        return rc;
    }
    *out = root;
    return HK_OK;
}

/* ---- rendering entry points ---- */

int report_model_to_json(const json_t *model, struct hk_buf *out)
{
    if (!json_is_object(model))
        return HK_EINVAL;
    int rc = dump_json(model, out, JSON_INDENT(2) | JSON_ENSURE_ASCII);
    return rc ? rc : hk_buf_appends(out, "\n");
}

typedef int (*render_fn)(const json_t *, struct hk_buf *);

static int render(store *s, int64_t eid, struct hk_buf *out, render_fn fn)
{
    json_t *model = NULL;
    int rc = report_build(s, eid, &model);
    if (rc == HK_OK)
        rc = fn(model, out);
    json_decref(model);
    return rc;
}

int report_render_json(store *s, int64_t eid, struct hk_buf *out)
{
    return render(s, eid, out, report_model_to_json);
}

int report_render_markdown(store *s, int64_t eid, struct hk_buf *out)
{
    return render(s, eid, out, report_model_to_markdown);
}

int report_render_html(store *s, int64_t eid, struct hk_buf *out)
{
    return render(s, eid, out, report_model_to_html);
}

/* ---- files ---- */

void report_paths_clear(report_paths *p)
{
    if (!p)
        return;
    hk_free(p->json);
    hk_free(p->md);
    hk_free(p->html);
    p->json = p->md = p->html = NULL;
}

static int mkdir_p(const char *dir)
{
    char *d = hk_strdup(dir);
    if (!d)
        return HK_ENOMEM;
    int rc = HK_OK;
    for (char *p = d + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(d, 0755) != 0 && errno != EEXIST) {
                rc = HK_EIO;
                break;
            }
            *p = c;
            if (c == '\0')
                break;
        }
    }
    hk_free(d);
    return rc;
}

/* Writes data to path through a temporary file in the same directory and a rename, so a
 * reader never sees half a report. */
static int write_atomic(const char *path, const char *data, size_t len)
{
    char *tmp = hk_asprintf("%s.tmp.%d", path, (int)getpid());
    if (!tmp)
        return HK_ENOMEM;
    int rc = HK_OK;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        rc = HK_EIO;
        goto out;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            rc = HK_EIO;
            break;
        }
        off += (size_t)w;
    }
    if (close(fd) != 0 && rc == HK_OK)
        rc = HK_EIO;
    if (rc == HK_OK && rename(tmp, path) != 0)
        rc = HK_EIO;
    if (rc)
        unlink(tmp);
out:
    hk_free(tmp);
    return rc;
}

int report_write(store *s, int64_t eid, const char *dir, unsigned formats, report_paths *paths_out)
{
    if (paths_out)
        memset(paths_out, 0, sizeof *paths_out);
    if (!dir || !*dir)
        return HK_EINVAL;
    if (formats == 0)
        formats = REPORT_ALL;
    json_t *model = NULL;
    report_paths p = {0};
    struct hk_buf buf;
    hk_buf_init(&buf, REPORT_MAX_BYTES);
    char *absdir = NULL;
    int rc = report_build(s, eid, &model);
    if (rc)
        goto out;
    rc = mkdir_p(dir);
    if (rc)
        goto out;
    absdir = realpath(dir, NULL); /* libc's allocation: freed with free() */
    if (!absdir) {
        rc = HK_EIO;
        goto out;
    }
    static const struct {
        unsigned bit;
        const char *ext;
        render_fn fn;
    } kinds[] = {{REPORT_JSON, "json", report_model_to_json},
                 {REPORT_MD, "md", report_model_to_markdown},
                 {REPORT_HTML, "html", report_model_to_html}};
    /* Render everything first: a render error writes nothing. */
    char *rendered[3] = {NULL, NULL, NULL};
    size_t lens[3] = {0, 0, 0};
    for (size_t i = 0; rc == HK_OK && i < HK_ARRAY_LEN(kinds); i++) {
        if (!(formats & kinds[i].bit))
            continue;
        hk_buf_reset(&buf);
        rc = kinds[i].fn(model, &buf);
        lens[i] = buf.len;
        rendered[i] = hk_buf_steal(&buf);
        hk_buf_init(&buf, REPORT_MAX_BYTES);
    }
    char **dst[] = {&p.json, &p.md, &p.html};
    for (size_t i = 0; rc == HK_OK && i < HK_ARRAY_LEN(kinds); i++) {
        if (!(formats & kinds[i].bit))
            continue;
        *dst[i] = hk_asprintf("%s/episode-%lld.%s", absdir, (long long)eid, kinds[i].ext);
        if (!*dst[i])
            rc = HK_ENOMEM;
        else
            rc = write_atomic(*dst[i], rendered[i] ? rendered[i] : "", lens[i]);
    }
    for (size_t i = 0; i < 3; i++)
        hk_free(rendered[i]);
    if (rc == HK_OK)
        rc = store_episode_set_reports(s, eid, p.json, p.md, p.html);
out:
    free(absdir);
    hk_buf_free(&buf);
    json_decref(model);
    if (rc || !paths_out)
        report_paths_clear(&p);
    else
        *paths_out = p;
    return rc;
}

/* ---- JSON for the editor's lists ---- */

static int set_id(json_t *o, const char *key, int64_t id)
{
    return json_object_set_new(o, key, id ? json_integer(id) : json_null()) ? HK_ENOMEM : HK_OK;
}

json_t *report_episode_summary(const store_episode *e)
{
    json_t *o = json_object(), *r = json_object();
    if (!o || !r || json_object_set_new(o, "reports", r)) {
        json_decref(o);
        return NULL;
    }
    int rc = set_int(o, "id", e->id);
    rc = rc ? rc : set_text(o, "name", e->name, 512);
    rc = rc ? rc : set_text(o, "status", store_episode_status_name(e->status), 32);
    rc = rc ? rc : set_text(o, "kernel", e->kernel, 1024);
    rc = rc ? rc : set_text(o, "file", e->file, 4096);
    rc = rc ? rc : set_text(o, "target", e->target, 256);
    rc = rc ? rc : set_text(o, "backend", e->backend, 64);
    rc = rc ? rc : set_text(o, "arch", e->arch, 64);
    rc = rc ? rc : set_text(o, "engine", e->engine, 256);
    rc = rc ? rc : set_text(o, "device", e->device, 256);
    if (!rc && json_object_set_new(o, "simulated", json_boolean(store_episode_simulated(e))))
        rc = HK_ENOMEM;
    rc = rc ? rc : set_time(o, "started", e->started_ms);
    rc = rc ? rc : set_time(o, "ended", e->ended_ms);
    rc = rc ? rc
            : set_num(o, "duration_ms",
                      e->ended_ms ? (double)(e->ended_ms - e->started_ms) : NAN);
    rc = rc ? rc : set_text(o, "error", e->error, REPORT_MAX_TEXT);
    rc = rc ? rc : set_id(o, "best_version_id", e->best_version_id);
    rc = rc ? rc : set_id(o, "baseline_version_id", e->baseline_version_id);
    rc = rc ? rc : set_text(r, "json", e->report_json, 4096);
    rc = rc ? rc : set_text(r, "md", e->report_md, 4096);
    rc = rc ? rc : set_text(r, "html", e->report_html, 4096);
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *report_history_json(const store_history_row *rows, size_t n)
{
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    int rc = HK_OK;
    for (size_t i = 0; rc == HK_OK && i < n; i++) {
        const store_history_row *r = &rows[i];
        const store_version *v = &r->version;
        const store_measurement *m = r->measured ? &r->best : NULL;
        json_t *o = json_object();
        if (!o || json_array_append_new(arr, o)) {
            rc = HK_ENOMEM;
            break;
        }
        char label[32];
        snprintf(label, sizeof label, "v%d", v->number);
        rc = set_int(o, "id", v->id);
        rc = rc ? rc : set_int(o, "number", v->number);
        rc = rc ? rc : set_text(o, "label", label, 32);
        rc = rc ? rc : set_id(o, "parent_id", v->parent_id);
        rc = rc ? rc : set_int(o, "episode_id", v->episode_id);
        rc = rc ? rc : set_text(o, "status", store_version_status_name(v->status), 32);
        rc = rc ? rc : set_text(o, "produced_by", v->produced_by, 256);
        rc = rc ? rc : set_time(o, "created", v->created_ms);
        rc = rc ? rc : set_num(o, "median_ms", m ? m->median_ms : NAN);
        rc = rc ? rc : set_num(o, "p10_ms", m ? m->p10_ms : NAN);
        rc = rc ? rc : set_num(o, "p90_ms", m ? m->p90_ms : NAN);
        rc = rc ? rc : set_num(o, "spread", m ? m->spread : NAN);
        rc = rc ? rc : set_text(o, "kind", m ? store_measure_kind_name(m->kind) : NULL, 32);
        rc = rc ? rc : set_num(o, "speedup", r->speedup);
        rc = rc ? rc : set_num(o, "speedup_lo", r->speedup_lo);
        rc = rc ? rc : set_num(o, "speedup_hi", r->speedup_hi);
        rc = rc ? rc : set_num(o, "bytes_per_s", m ? m->bytes_per_s : NAN);
        rc = rc ? rc : set_num(o, "flop_per_s", m ? m->flop_per_s : NAN);
        rc = rc ? rc : set_num(o, "roofline_pct", m ? m->roofline_pct : NAN);
        rc = rc ? rc : set_num(o, "max_abs_err", v->max_abs_err);
        rc = rc ? rc : set_num(o, "max_rel_err", v->max_rel_err);
        rc = rc ? rc : set_text(o, "reject_reason", v->reject_reason, 512);
    }
    if (rc) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}
