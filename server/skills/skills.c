/* The skills loader: walks skills/<hardware>/<class>/<id>.json, validates every field of
 * every file (collecting all problems, not just the first), compiles the tree-sitter
 * queries and regexes once, and answers lookups. Matching and evidence: skills_match.c. */
#include "skills/skills_impl.h"

#include "core/i18n.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

/* Caps on what grows from the skills directory (STYLE.md 8). */
#define SK_FILE_MAX (256 * 1024)
#define SK_SKILLS_MAX 4096
#define SK_ERRORS_MAX (64 * 1024)
#define SK_DIR_ENTRIES_MAX 8192
#define SK_ID_MAX 64
#define SK_TITLE_MAX 160
#define SK_GUIDANCE_MIN 80
#define SK_GUIDANCE_MAX 8000
#define SK_QUERY_MAX (16 * 1024)
#define SK_REGEX_MAX 1024
#define SK_HARDWARE_MAX 16
#define SK_PARAM_VALUES_MAX 64
#define SK_PARAMS_MAX 16

/* ---- names ---- */

static const struct {
    const char *name;
    double lo, hi;
} metric_info[] = {
#define SK_X_INFO(e, s, lo, hi) {s, lo, hi},
    SK_METRICS(SK_X_INFO)
#undef SK_X_INFO
};
_Static_assert(HK_ARRAY_LEN(metric_info) == SK_M_COUNT, "one entry per metric"); /* i18n: not for people */

static const char *const class_names[] = {"memory-bound", "compute-bound", "latency-bound"};
_Static_assert(HK_ARRAY_LEN(class_names) == SK_CLASS_COUNT, "one name per class"); /* i18n: not for people */

/* Hardware directories, in the order the set lists them (sm_90 first). family: the
 * prefix every arch pattern of a skill in that directory must start with; probes: the
 * arches the directory stands for (a skill must match at least one). */
static const struct {
    const char *dir;
    const char *family;
    const char *probes[3];
} hw_dirs[] = {
    {"nvidia-sm90", "sm_", {"sm_90", "sm_90a", NULL}},
    {"nvidia-sm80", "sm_", {"sm_80", "sm_86", NULL}},
    {"dcu-gfx9", "gfx9", {"gfx906", "gfx90a", NULL}},
};

const char *sk_metric_name(enum sk_metric m)
{
    return (unsigned)m < SK_M_COUNT ? metric_info[m].name : "?";
}

const char *sk_class_name(enum sk_class c)
{
    return (unsigned)c < SK_CLASS_COUNT ? class_names[c] : "?";
}

int sk_metric_parse(const char *s, enum sk_metric *out)
{
    for (int i = 0; s && i < SK_M_COUNT; i++)
        if (!strcmp(s, metric_info[i].name)) {
            *out = (enum sk_metric)i;
            return HK_OK;
        }
    return HK_EINVAL;
}

int sk_class_parse(const char *s, enum sk_class *out)
{
    for (int i = 0; s && i < SK_CLASS_COUNT; i++)
        if (!strcmp(s, class_names[i])) {
            *out = (enum sk_class)i;
            return HK_OK;
        }
    return HK_EINVAL;
}

static int hw_dir_index(const char *name)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(hw_dirs); i++)
        if (!strcmp(name, hw_dirs[i].dir))
            return (int)i;
    return -1;
}

/* ---- error collection: every problem, one line each, capped ---- */

struct sk_errs {
    struct hk_buf b;
    size_t count;    /* problems found */
    size_t dropped;  /* of those, not written for lack of room */
    bool oom;
};

/* One problem in the current language (the thread's: the episode worker's are English):
 * id is an HK_MSG_SK_* row, a format (F) with its arguments or plain text (M) without
 * (docs/i18n.md). */
static void errs_add_text(struct sk_errs *e, const char *file, const char *key, const char *msg);

static void errs_add(struct sk_errs *e, const char *file, const char *key, enum hk_msg id, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, id);
    hk_vtr_into(msg, sizeof msg, id, ap);
    va_end(ap);
    errs_add_text(e, file, key, msg);
}

static void errs_add_text(struct sk_errs *e, const char *file, const char *key, const char *msg)
{
    e->count++;
    size_t before = e->b.len;
    int rc = key && *key ? hk_buf_printf(&e->b, "%s: %s: %s\n", file, key, msg)
                         : hk_buf_printf(&e->b, "%s: %s\n", file, msg);
    if (rc == HK_ENOMEM)
        e->oom = true;
    if (rc) {
        /* The buffer keeps whole lines only. */
        e->b.len = before;
        if (e->b.data)
            e->b.data[before] = '\0';
        e->dropped++;
    }
}

/* Copies the collected problems into err, whole lines while they fit, then a count. */
static void errs_export(const struct sk_errs *e, char *err, size_t errlen)
{
    if (!err || !errlen)
        return;
    err[0] = '\0';
    const char *p = e->b.data ? e->b.data : "";
    size_t used = 0, shown = 0;
    char tail[96];
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        /* Room kept for the "N more" line. */
        if (used + len + sizeof tail >= errlen)
            break;
        memcpy(err + used, p, len);
        used += len;
        err[used] = '\0';
        shown++;
        p += len;
    }
    size_t more = e->count - shown;
    if (more) {
        if (more == 1)
            snprintf(tail, sizeof tail, "%s\n", hk_tr(HK_MSG_SK_MORE_PROBLEM));
        else
            snprintf(tail, sizeof tail, hk_tr(HK_MSG_SK_MORE_PROBLEMS), more);
        hk_utf8_trim(tail);
        if (more != 1 && strlen(tail) + 1 < sizeof tail)
            strcat(tail, "\n");
        if (used + strlen(tail) < errlen)
            memcpy(err + used, tail, strlen(tail) + 1);
        else if (!used)
            snprintf(err, errlen, hk_tr(HK_MSG_SK_PROBLEMS_NO_ROOM), e->count);
    }
    /* No trailing newline: callers print the text as one message. */
    size_t n = strlen(err);
    if (n && err[n - 1] == '\n')
        err[n - 1] = '\0';
}

/* ---- one skill ---- */

static void compiled_free(struct sk_compiled *c)
{
    if (!c)
        return;
    if (c->has_pattern)
        regfree(&c->pattern);
    if (c->has_sass)
        regfree(&c->sass);
    for (uint32_t i = 0; c->preds && i < c->pattern_end - c->pattern_start; i++) {
        for (size_t k = 0; k < c->n_preds[i]; k++) {
            struct sk_pred *pr = &c->preds[i][k];
            hk_free(pr->str);
            if (pr->has_re)
                regfree(&pr->re);
        }
        hk_free(c->preds[i]);
    }
    hk_free(c->preds);
    hk_free(c->n_preds);
    for (size_t i = 0; i < c->n_roots; i++)
        hk_free(c->roots[i]);
    hk_free(c->roots);
    hk_free(c);
}

static void skill_free(sk_skill *sk)
{
    if (!sk)
        return;
    hk_free(sk->id);
    hk_free(sk->path);
    hk_free(sk->hardware_dir);
    hk_free(sk->title);
    for (size_t i = 0; i < sk->n_hardware; i++)
        hk_free(sk->hardware[i]);
    hk_free(sk->hardware);
    hk_free(sk->query);
    hk_free(sk->pattern);
    hk_free(sk->metrics);
    hk_free(sk->guidance);
    json_decref(sk->params);
    hk_free(sk->evidence_sass);
    compiled_free(sk->compiled);
    hk_free(sk);
}

/* Context for validating one file. */
struct vctx {
    struct sk_errs *errs;
    const char *file;
    bool bad;   /* a problem was reported for this file */
    bool oom;
};

/* A problem of the skill at key: id as errs_add's. */
static void vbad(struct vctx *v, const char *key, enum hk_msg id, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, id);
    hk_vtr_into(msg, sizeof msg, id, ap);
    va_end(ap);
    errs_add_text(v->errs, v->file, key, msg);
    v->bad = true;
}

static char *vdup(struct vctx *v, const char *s)
{
    char *d = hk_strdup(s);
    if (!d)
        v->oom = true;
    return d;
}

/* Reports every key of obj (at key path prefix) that is not in allowed. */
static void check_keys(struct vctx *v, json_t *obj, const char *prefix,
                       const char *const *allowed)
{
    const char *k;
    json_t *val;
    json_object_foreach(obj, k, val) {
        bool ok = false;
        for (size_t i = 0; allowed[i]; i++)
            if (!strcmp(k, allowed[i]))
                ok = true;
        if (!ok) {
            char known[256] = "";
            for (size_t i = 0; allowed[i]; i++) {
                if (i)
                    strncat(known, ", ", sizeof known - strlen(known) - 1);
                strncat(known, allowed[i], sizeof known - strlen(known) - 1);
            }
            char key[300];
            snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", k);
            vbad(v, key, HK_MSG_SK_UNKNOWN_KEY, known);
        }
    }
}

/* The string at obj[name], or NULL with a problem reported (required) or silently
 * (optional and absent). */
static const char *get_str(struct vctx *v, json_t *obj, const char *name, const char *key,
                           bool required, size_t min_len, size_t max_len)
{
    json_t *j = json_object_get(obj, name);
    if (!j) {
        if (required)
            vbad(v, key, HK_MSG_SK_MISSING);
        return NULL;
    }
    if (!json_is_string(j)) {
        vbad(v, key, HK_MSG_SK_NOT_STRING);
        return NULL;
    }
    size_t len = json_string_length(j);
    const char *s = json_string_value(j);
    if (strlen(s) != len) {
        vbad(v, key, HK_MSG_SK_NUL_CHARACTER);
        return NULL;
    }
    if (len < min_len) {
        vbad(v, key, min_len == 1 ? HK_MSG_SK_EMPTY : HK_MSG_SK_TOO_SHORT,
             len, min_len);
        return NULL;
    }
    if (len > max_len) {
        vbad(v, key, HK_MSG_SK_TOO_LONG, len, max_len);
        return NULL;
    }
    return s;
}

/* POSIX extended regex compile with the reason in the report when it fails. */
static bool compile_regex(struct vctx *v, const char *key, const char *src, regex_t *re)
{
    int rc = regcomp(re, src, REG_EXTENDED | REG_NOSUB);
    if (rc) {
        char why[200];
        regerror(rc, re, why, sizeof why);
        regfree(re);
        vbad(v, key, HK_MSG_SK_BAD_REGEX, src, why);
        return false;
    }
    return true;
}

static bool valid_id(const char *s)
{
    if (!(*s >= 'a' && *s <= 'z') && !(*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' ||
              *s == '_' || *s == '.'))
            return false;
    return true;
}

/* An arch pattern: "sm_90", "sm_90a", "gfx906", "gfx90a", or a prefix with '*' at the
 * end ("sm_*", "sm_8*", "gfx9*"). */
static bool valid_arch_pattern(const char *s)
{
    const char *rest;
    if (!strncmp(s, "sm_", 3))
        rest = s + 3;
    else if (!strncmp(s, "gfx", 3))
        rest = s + 3;
    else
        return false;
    size_t n = strlen(rest);
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = rest[i];
        if (c == '*')
            return i == n - 1;
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')))
            return false;
    }
    /* A full name: at least two characters, starting with a digit. */
    return n >= 2 && rest[0] >= '0' && rest[0] <= '9';
}

static bool arch_pattern_matches(const char *pat, const char *arch)
{
    size_t n = strlen(pat);
    if (n && pat[n - 1] == '*')
        return !strncmp(pat, arch, n - 1);
    return !strcmp(pat, arch);
}

static void parse_hardware(struct vctx *v, sk_skill *sk, json_t *root, int hw_index)
{
    json_t *j = json_object_get(root, "hardware");
    if (!j) {
        vbad(v, "hardware", HK_MSG_SK_MISSING);
        return;
    }
    if (!json_is_array(j) || json_array_size(j) == 0 ||
        json_array_size(j) > SK_HARDWARE_MAX) {
        vbad(v, "hardware", HK_MSG_SK_HARDWARE_LIST, SK_HARDWARE_MAX);
        return;
    }
    sk->hardware = hk_calloc(json_array_size(j), sizeof *sk->hardware);
    if (!sk->hardware) {
        v->oom = true;
        return;
    }
    const char *family = hw_dirs[hw_index].family;
    bool probe_hit = false;
    size_t i;
    json_t *e;
    json_array_foreach(j, i, e) {
        char key[64];
        snprintf(key, sizeof key, "hardware[%zu]", i);
        if (!json_is_string(e) || !valid_arch_pattern(json_string_value(e))) {
            vbad(v, key, HK_MSG_SK_NOT_ARCH);
            continue;
        }
        const char *pat = json_string_value(e);
        /* The name, or the prefix before '*', must start with the directory's family:
         * "sm_*" belongs in an sm_ directory, "gfx*" does not belong in dcu-gfx9. */
        if (strncmp(pat, family, strlen(family)) != 0) {
            vbad(v, key, HK_MSG_SK_ARCH_WRONG_DIR,
                 pat, hw_dirs[hw_index].dir, family);
            continue;
        }
        for (size_t p = 0; hw_dirs[hw_index].probes[p]; p++)
            if (arch_pattern_matches(pat, hw_dirs[hw_index].probes[p]))
                probe_hit = true;
        sk->hardware[sk->n_hardware] = vdup(v, pat);
        if (sk->hardware[sk->n_hardware])
            sk->n_hardware++;
    }
    if (!v->bad && !probe_hit)
        vbad(v, "hardware", HK_MSG_SK_NO_ARCH_OF_DIR, hw_dirs[hw_index].probes[0]);
}

static void parse_threshold(struct vctx *v, sk_skill *sk, const char *name, json_t *t)
{
    char key[160];
    snprintf(key, sizeof key, "applies.metrics.%s", name);
    enum sk_metric m;
    if (sk_metric_parse(name, &m) != HK_OK) {
        char known[600] = "";
        for (int i = 0; i < SK_M_COUNT; i++) {
            if (i)
                strncat(known, ", ", sizeof known - strlen(known) - 1);
            strncat(known, metric_info[i].name, sizeof known - strlen(known) - 1);
        }
        vbad(v, key, HK_MSG_SK_UNKNOWN_METRIC_KEY, known);
        return;
    }
    if (!json_is_object(t)) {
        vbad(v, key, HK_MSG_SK_THRESHOLD_OBJECT);
        return;
    }
    static const char *const allowed[] = {"min", "max", "required", NULL};
    bool before = v->bad;
    v->bad = false;
    check_keys(v, t, key, allowed);
    double b[2] = {NAN, NAN};
    const char *names[2] = {"min", "max"};
    for (int i = 0; i < 2; i++) {
        json_t *n = json_object_get(t, names[i]);
        if (!n)
            continue;
        char k2[200];
        snprintf(k2, sizeof k2, "%s.%s", key, names[i]);
        if (!json_is_number(n)) {
            vbad(v, k2, HK_MSG_SK_NOT_NUMBER);
            continue;
        }
        double x = json_number_value(n);
        if (!(x >= metric_info[m].lo && x <= metric_info[m].hi)) {
            vbad(v, k2, HK_MSG_SK_OUT_OF_RANGE, x, metric_info[m].lo,
                 metric_info[m].hi);
            continue;
        }
        b[i] = x;
    }
    if (!json_object_get(t, "min") && !json_object_get(t, "max"))
        vbad(v, key, HK_MSG_SK_THRESHOLD_EMPTY);
    else if (!isnan(b[0]) && !isnan(b[1]) && b[0] > b[1])
        vbad(v, key, HK_MSG_SK_MIN_ABOVE_MAX, b[0], b[1]);
    json_t *req = json_object_get(t, "required");
    if (req && !json_is_boolean(req)) {
        char k2[200];
        snprintf(k2, sizeof k2, "%s.required", key);
        vbad(v, k2, HK_MSG_SK_NOT_BOOLEAN);
    }
    if (!v->bad) {
        sk_threshold *th = &sk->metrics[sk->n_metrics++];
        th->metric = m;
        th->min = b[0];
        th->max = b[1];
        th->required = req && json_is_true(req);
    }
    v->bad = v->bad || before;
}

static const char *query_error_name(TSQueryError e)
{
    switch (e) {
    case TSQueryErrorSyntax: return hk_tr(HK_MSG_SK_QUERY_SYNTAX);
    case TSQueryErrorNodeType: return hk_tr(HK_MSG_SK_QUERY_NODE_TYPE);
    case TSQueryErrorField: return hk_tr(HK_MSG_SK_QUERY_FIELD);
    case TSQueryErrorCapture: return hk_tr(HK_MSG_SK_QUERY_CAPTURE);
    case TSQueryErrorStructure: return hk_tr(HK_MSG_SK_QUERY_STRUCTURE);
    case TSQueryErrorLanguage: return hk_tr(HK_MSG_SK_QUERY_LANGUAGE);
    default: return hk_tr(HK_MSG_SK_QUERY_ERROR);
    }
}

/* Checks the query's predicates and compiles them for matching: only #eq?, #not-eq?,
 * #match?, #not-match? with a capture and a capture or string, since the matcher
 * (skills_match.c) evaluates exactly these. */
static void compile_predicates(struct vctx *v, struct sk_compiled *c, const TSQuery *q,
                               uint32_t start, uint32_t end)
{
    uint32_t n_patterns = end - start;
    c->preds = hk_calloc(n_patterns ? n_patterns : 1, sizeof *c->preds);
    c->n_preds = hk_calloc(n_patterns ? n_patterns : 1, sizeof *c->n_preds);
    if (!c->preds || !c->n_preds) {
        v->oom = true;
        hk_free(c->preds);
        hk_free(c->n_preds);
        c->preds = NULL;
        c->n_preds = NULL;
        return;
    }
    /* From here compiled_free walks the range. */
    c->query = q;
    c->pattern_start = start;
    c->pattern_end = end;
    for (uint32_t p = 0; p < n_patterns; p++) {
        uint32_t n_steps = 0;
        const TSQueryPredicateStep *steps =
            ts_query_predicates_for_pattern(q, start + p, &n_steps);
        /* Count predicates (each ends with a Done step) to size the array once. */
        size_t n_preds = 0;
        for (uint32_t i = 0; i < n_steps; i++)
            if (steps[i].type == TSQueryPredicateStepTypeDone)
                n_preds++;
        if (!n_preds)
            continue;
        c->preds[p] = hk_calloc(n_preds, sizeof **c->preds);
        if (!c->preds[p]) {
            v->oom = true;
            return;
        }
        uint32_t i = 0;
        while (i < n_steps) {
            uint32_t first = i;
            while (i < n_steps && steps[i].type != TSQueryPredicateStepTypeDone)
                i++;
            uint32_t len = i - first;
            i++; /* past Done */
            const TSQueryPredicateStep *s = steps + first;
            uint32_t nl = 0;
            const char *op = len && s[0].type == TSQueryPredicateStepTypeString
                                 ? ts_query_string_value_for_id(q, s[0].value_id, &nl)
                                 : "";
            struct sk_pred pr = {0};
            if (!strcmp(op, "eq?"))
                pr.op = SK_PRED_EQ;
            else if (!strcmp(op, "not-eq?"))
                pr.op = SK_PRED_NOT_EQ;
            else if (!strcmp(op, "match?"))
                pr.op = SK_PRED_MATCH;
            else if (!strcmp(op, "not-match?"))
                pr.op = SK_PRED_NOT_MATCH;
            else {
                vbad(v, "applies.query", HK_MSG_SK_PREDICATE_UNSUPPORTED, op);
                continue;
            }
            if (len != 3 || s[1].type != TSQueryPredicateStepTypeCapture) {
                vbad(v, "applies.query", HK_MSG_SK_PREDICATE_ARGS, op);
                continue;
            }
            pr.capture = s[1].value_id;
            if (s[2].type == TSQueryPredicateStepTypeCapture) {
                if (pr.op == SK_PRED_MATCH || pr.op == SK_PRED_NOT_MATCH) {
                    vbad(v, "applies.query", HK_MSG_SK_PREDICATE_REGEX, op);
                    continue;
                }
                pr.rhs_is_capture = true;
                pr.rhs_capture = s[2].value_id;
            } else {
                const char *str = ts_query_string_value_for_id(q, s[2].value_id, &nl);
                pr.str = hk_strndup(str, nl);
                if (!pr.str) {
                    v->oom = true;
                    return;
                }
                if (pr.op == SK_PRED_MATCH || pr.op == SK_PRED_NOT_MATCH) {
                    if (!compile_regex(v, "applies.query", pr.str, &pr.re)) {
                        hk_free(pr.str);
                        continue;
                    }
                    pr.has_re = true;
                }
            }
            c->preds[p][c->n_preds[p]++] = pr;
        }
    }
}

/* Reports a query that tree-sitter refused, with line and column. */
static void report_query_error(struct vctx *v, const char *q, uint32_t off, TSQueryError et)
{
    uint32_t line = 1, col = 1;
    size_t len = strlen(q);
    for (uint32_t i = 0; i < off && i < len; i++) {
        if (q[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (off < len)
        vbad(v, "applies.query", HK_MSG_SK_QUERY_AT,
             query_error_name(et), line, col, off, q + off);
    else
        vbad(v, "applies.query", HK_MSG_SK_QUERY_AT_END,
             query_error_name(et), line, col);
}

static void free_preds(struct sk_compiled *c)
{
    for (uint32_t i = 0; c->preds && i < c->pattern_end - c->pattern_start; i++) {
        for (size_t k = 0; k < c->n_preds[i]; k++) {
            hk_free(c->preds[i][k].str);
            if (c->preds[i][k].has_re)
                regfree(&c->preds[i][k].re);
        }
        hk_free(c->preds[i]);
    }
    hk_free(c->preds);
    hk_free(c->n_preds);
    c->preds = NULL;
    c->n_preds = NULL;
    c->query = NULL;
    c->pattern_start = c->pattern_end = 0;
}

/* Offset of the first byte of q that is not blank or in a ';' comment. */
static size_t first_token(const char *q, size_t from, size_t to)
{
    size_t i = from;
    while (i < to) {
        if (q[i] == ';') {
            while (i < to && q[i] != '\n')
                i++;
        } else if (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r') {
            i++;
        } else {
            break;
        }
    }
    return i;
}

/* Compiles one skill's query by itself (the slow path: only when the combined compile
 * failed, or to report the query's problems in a file that has others). On success the
 * query is checked for predicates too; *out (may be NULL: check only, then deleted) gets
 * the query with the skill's compiled predicates pointing into it. */
static void compile_query_alone(struct vctx *v, sk_skill *sk, TSQuery **out)
{
    if (out)
        *out = NULL;
    const char *q = sk->query;
    uint32_t off = 0;
    TSQueryError et = TSQueryErrorNone;
    TSQuery *tq = ts_query_new(tree_sitter_cuda(), q, (uint32_t)strlen(q), &off, &et);
    if (!tq) {
        report_query_error(v, q, off, et);
        return;
    }
    uint32_t n = ts_query_pattern_count(tq);
    if (n == 0) {
        vbad(v, "applies.query", HK_MSG_SK_NO_PATTERN);
        ts_query_delete(tq);
        return;
    }
    if (ts_query_start_byte_for_pattern(tq, 0) != first_token(q, 0, strlen(q)))
        vbad(v, "applies.query", HK_MSG_SK_PATTERN_FIRST);
    struct sk_compiled tmp = {0};
    compile_predicates(v, out ? sk->compiled : &tmp, tq, 0, n);
    if (out) {
        *out = tq;
        return;
    }
    free_preds(&tmp);
    ts_query_delete(tq);
}

/* Index after the group (or alternation) opening at q[i], '(' or '['; 0 when it does not
 * close. Strings and ';' comments are skipped. */
static size_t group_end(const char *q, size_t i, size_t n)
{
    int depth = 0;
    while (i < n) {
        char ch = q[i];
        if (ch == '"') {
            for (i++; i < n && q[i] != '"'; i++)
                if (q[i] == '\\')
                    i++;
            if (i >= n)
                return 0;
        } else if (ch == ';') {
            while (i < n && q[i] != '\n')
                i++;
            continue;
        } else if (ch == '(' || ch == '[') {
            depth++;
        } else if (ch == ')' || ch == ']') {
            if (--depth == 0)
                return i + 1;
        }
        i++;
    }
    return 0;
}

static bool is_blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* Skips blanks, ';' comments and captures ("@name") from i. */
static size_t skip_captures(const char *q, size_t i, size_t n)
{
    for (;;) {
        i = first_token(q, i, n);
        if (i >= n || q[i] != '@')
            return i;
        for (i++; i < n && !is_blank(q[i]) && q[i] != '(' && q[i] != ')' && q[i] != '['; i++)
            ;
    }
}

/* The node type the pattern q[a, b) (one parenthesized group) can only match at, into
 * *name (new string); NULL when that is not certain: "(name ...)" matches only a node of
 * type name, and "((name ...) @c (#pred ...))" (one pattern with its predicates) too.
 * Anything else is not read: a wildcard "(_", a hidden or supertype name ("(_x", "(a/b"),
 * siblings, an alternation, a string, a quantifier. HK_OK or HK_ENOMEM. */
static int pattern_root(const char *q, size_t a, size_t b, char **name)
{
    *name = NULL;
    size_t i = a + 1;
    if (i < b && q[i] == '(') {
        size_t e = group_end(q, i, b);
        if (!e || q[i + 1] == '#')
            return HK_OK;
        /* after the one pattern: captures and predicates only, and no quantifier */
        for (size_t j = skip_captures(q, e, b); j < b - 1; j = skip_captures(q, j, b)) {
            size_t pe = q[j] == '(' && q[j + 1] == '#' ? group_end(q, j, b) : 0;
            if (!pe)
                return HK_OK;
            j = pe;
        }
        return pattern_root(q, i, e, name);
    }
    size_t s = i;
    while (i < b && ((q[i] >= 'a' && q[i] <= 'z') || (q[i] >= 'A' && q[i] <= 'Z') ||
                     (q[i] >= '0' && q[i] <= '9') || q[i] == '_'))
        i++;
    if (i == s || q[s] == '_' || !(is_blank(q[i]) || q[i] == ')'))
        return HK_OK;
    *name = hk_strndup(q + s, i - s);
    return *name ? HK_OK : HK_ENOMEM;
}

/* The node types the top-level patterns of the skill's query start at (c->roots), for a
 * lazy set's check that a kernel could match it at all (sk__query_ready); roots_known
 * stays false when one pattern's root is not certain (pattern_root): that skill's query is
 * compiled for every kernel. The text is checked by tree-sitter when it compiles. */
static void query_roots(struct vctx *v, struct sk_compiled *c, const char *q)
{
    size_t n = strlen(q), i = 0;
    bool known = true;
    while (known && (i = first_token(q, i, n)) < n) {
        if (q[i] != '(') {
            known = false;
            break;
        }
        size_t e = group_end(q, i, n);
        if (!e) {
            known = false;
            break;
        }
        if (q[i + 1] == '#') { /* a predicate, of the pattern before it */
            i = e;
            continue;
        }
        char *name = NULL;
        if (pattern_root(q, i, e, &name) != HK_OK) {
            v->oom = true;
            return;
        }
        if (!name) {
            known = false;
            break;
        }
        char **p = hk_realloc(c->roots, (c->n_roots + 1) * sizeof *p);
        if (!p) {
            hk_free(name);
            v->oom = true;
            return;
        }
        c->roots = p;
        c->roots[c->n_roots++] = name;
        i = skip_captures(q, e, n);
        if (i < n && (q[i] == '?' || q[i] == '*' || q[i] == '+'))
            known = false;
    }
    c->roots_known = known && c->n_roots > 0;
}

static void parse_applies(struct vctx *v, sk_skill *sk, json_t *root)
{
    json_t *a = json_object_get(root, "applies");
    if (!a) {
        vbad(v, "applies", HK_MSG_SK_MISSING);
        return;
    }
    if (!json_is_object(a)) {
        vbad(v, "applies", HK_MSG_SK_APPLIES_OBJECT);
        return;
    }
    static const char *const allowed[] = {"query", "pattern", "metrics", NULL};
    check_keys(v, a, "applies", allowed);

    /* Compiled later, with every other skill's query at once (compile_queries). */
    const char *q = get_str(v, a, "query", "applies.query", true, 1, SK_QUERY_MAX);
    if (q && (sk->query = vdup(v, q)) != NULL)
        query_roots(v, sk->compiled, sk->query);
    const char *pat = get_str(v, a, "pattern", "applies.pattern", false, 1, SK_REGEX_MAX);
    if (pat && compile_regex(v, "applies.pattern", pat, &sk->compiled->pattern)) {
        sk->compiled->has_pattern = true;
        sk->pattern = vdup(v, pat);
    }
    json_t *m = json_object_get(a, "metrics");
    if (m) {
        if (!json_is_object(m)) {
            vbad(v, "applies.metrics", HK_MSG_SK_METRICS_OBJECT);
        } else if (json_object_size(m)) {
            sk->metrics = hk_calloc(json_object_size(m), sizeof *sk->metrics);
            if (!sk->metrics) {
                v->oom = true;
                return;
            }
            const char *k;
            json_t *t;
            json_object_foreach(m, k, t)
                parse_threshold(v, sk, k, t);
        }
    }
}

static bool valid_param_name(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

static void parse_rewrite(struct vctx *v, sk_skill *sk, json_t *root)
{
    json_t *r = json_object_get(root, "rewrite");
    if (!r) {
        vbad(v, "rewrite", HK_MSG_SK_MISSING);
        return;
    }
    if (!json_is_object(r)) {
        vbad(v, "rewrite", HK_MSG_SK_REWRITE_OBJECT);
        return;
    }
    static const char *const allowed[] = {"name", "params", NULL};
    check_keys(v, r, "rewrite", allowed);
    const char *name = get_str(v, r, "name", "rewrite.name", true, 1, 64);
    if (name && !(sk->rewrite = rw_find(name))) {
        char known[600] = "";
        for (size_t i = 0; i < rw_registry_count(); i++) {
            if (i)
                strncat(known, ", ", sizeof known - strlen(known) - 1);
            strncat(known, rw_registry_at(i)->name, sizeof known - strlen(known) - 1);
        }
        vbad(v, "rewrite.name", HK_MSG_SK_UNKNOWN_REWRITE, name, known);
    }
    json_t *p = json_object_get(r, "params");
    if (!p) {
        sk->params = json_object();
        if (!sk->params)
            v->oom = true;
        return;
    }
    if (!json_is_object(p) || json_object_size(p) > SK_PARAMS_MAX) {
        vbad(v, "rewrite.params", HK_MSG_SK_PARAMS_OBJECT, SK_PARAMS_MAX);
        return;
    }
    const char *k;
    json_t *vals;
    json_object_foreach(p, k, vals) {
        char key[200];
        snprintf(key, sizeof key, "rewrite.params.%s", k);
        if (!valid_param_name(k)) {
            vbad(v, key, HK_MSG_SK_TUNABLE_NAME);
            continue;
        }
        if (!json_is_array(vals) || json_array_size(vals) == 0 ||
            json_array_size(vals) > SK_PARAM_VALUES_MAX) {
            vbad(v, key, HK_MSG_SK_VALUES_LIST, SK_PARAM_VALUES_MAX);
            continue;
        }
        bool nums = json_is_number(json_array_get(vals, 0));
        size_t i;
        json_t *e;
        json_array_foreach(vals, i, e) {
            if (nums ? !json_is_number(e) : !json_is_string(e)) {
                vbad(v, key, HK_MSG_SK_VALUES_MIXED, i);
                break;
            }
            bool dup = false;
            for (size_t j = 0; j < i; j++)
                if (json_equal(e, json_array_get(vals, j)))
                    dup = true;
            if (dup) {
                vbad(v, key, HK_MSG_SK_VALUE_TWICE, i);
                break;
            }
        }
    }
    /* launch_pairs [1] pairs block_size with blocks_per_sm entry by entry (skillplan.c) */
    json_t *lp = json_object_get(p, "launch_pairs");
    if (lp && json_is_array(lp)) {
        json_t *on = json_array_get(lp, 0);
        size_t nb = json_array_size(json_object_get(p, "block_size"));
        size_t ng = json_array_size(json_object_get(p, "blocks_per_sm"));
        if (json_array_size(lp) != 1 || !json_is_integer(on) ||
            (json_integer_value(on) != 0 && json_integer_value(on) != 1))
            vbad(v, "rewrite.params.launch_pairs", HK_MSG_SK_LAUNCH_PAIRS);
        else if (json_integer_value(on) == 1 && (nb < 2 || nb != ng))
            vbad(v, "rewrite.params.launch_pairs", HK_MSG_SK_LAUNCH_PAIRS_COUNT, nb, ng);
    }
    sk->params = json_incref(p);
}

static void parse_evidence(struct vctx *v, sk_skill *sk, json_t *root)
{
    json_t *e = json_object_get(root, "evidence");
    if (!e) {
        vbad(v, "evidence", HK_MSG_SK_MISSING);
        return;
    }
    if (!json_is_object(e)) {
        vbad(v, "evidence", HK_MSG_SK_EVIDENCE_OBJECT);
        return;
    }
    static const char *const allowed[] = {"sass", "metric", NULL};
    check_keys(v, e, "evidence", allowed);
    if (!json_object_get(e, "sass") && !json_object_get(e, "metric"))
        vbad(v, "evidence", HK_MSG_SK_EVIDENCE_EMPTY);
    const char *sass = get_str(v, e, "sass", "evidence.sass", false, 1, SK_REGEX_MAX);
    if (sass && compile_regex(v, "evidence.sass", sass, &sk->compiled->sass)) {
        sk->compiled->has_sass = true;
        sk->evidence_sass = vdup(v, sass);
    }
    json_t *m = json_object_get(e, "metric");
    if (!m)
        return;
    if (!json_is_object(m)) {
        vbad(v, "evidence.metric", HK_MSG_SK_EVIDENCE_METRIC_OBJECT);
        return;
    }
    static const char *const mallowed[] = {"name", "change", NULL};
    check_keys(v, m, "evidence.metric", mallowed);
    const char *name = get_str(v, m, "name", "evidence.metric.name", true, 1, 64);
    const char *change = get_str(v, m, "change", "evidence.metric.change", true, 1, 16);
    bool ok = true;
    if (name && sk_metric_parse(name, &sk->evidence_metric) != HK_OK) {
        vbad(v, "evidence.metric.name", HK_MSG_SK_UNKNOWN_METRIC, name);
        ok = false;
    }
    if (change && strcmp(change, "increase") && strcmp(change, "decrease")) {
        vbad(v, "evidence.metric.change", HK_MSG_SK_CHANGE_WORD);
        ok = false;
    }
    if (ok && name && change) {
        sk->has_evidence_metric = true;
        sk->evidence_change = !strcmp(change, "increase") ? 1 : -1;
    }
}

/* Several sentences: at least two sentence ends ('.', '!' or '?' before a space or the
 * end), so that guidance is prose an LLM prompt can use, not a label. */
static size_t count_sentences(const char *s)
{
    size_t n = 0;
    for (const char *p = s; *p; p++)
        if ((*p == '.' || *p == '!' || *p == '?') &&
            (p[1] == '\0' || p[1] == ' ' || p[1] == '\n'))
            n++;
    return n;
}

static int read_file_capped(const char *path, char **out, size_t *len_out, size_t *size_out)
{
    *out = NULL;
    *len_out = 0;
    *size_out = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return HK_EIO;
    int rc = HK_OK;
    struct stat stt;
    char *buf = NULL;
    if (fstat(fileno(f), &stt) != 0) {
        rc = HK_EIO;
        goto out;
    }
    *size_out = (size_t)stt.st_size;
    if (stt.st_size > SK_FILE_MAX) {
        rc = HK_ETOOBIG;
        goto out;
    }
    buf = hk_malloc((size_t)stt.st_size + 1);
    if (!buf) {
        rc = HK_ENOMEM;
        goto out;
    }
    size_t n = fread(buf, 1, (size_t)stt.st_size, f);
    if (ferror(f)) {
        rc = HK_EIO;
        goto out;
    }
    buf[n] = '\0';
    *out = buf;
    *len_out = n;
    buf = NULL;
out:
    hk_free(buf);
    fclose(f);
    return rc;
}

/* Loads and validates one file. *out: the skill, or NULL when the file has problems
 * (reported into errs). HK_OK (even for a bad file), HK_ENOMEM, or HK_ETOOBIG. */
static int load_skill(const char *path, const char *id_from_name, int hw_index,
                      enum sk_class dir_class, struct sk_errs *errs, sk_skill **out)
{
    *out = NULL;
    struct vctx v = {.errs = errs, .file = path};
    char *text = NULL;
    size_t len = 0, size = 0;
    json_t *root = NULL;
    sk_skill *sk = NULL;
    int rc = read_file_capped(path, &text, &len, &size);
    if (rc == HK_ETOOBIG) {
        errs_add(errs, path, NULL, HK_MSG_SK_FILE_TOO_BIG, size,
                 SK_FILE_MAX / 1024);
        goto out;
    }
    if (rc == HK_EIO) {
        errs_add(errs, path, NULL, HK_MSG_SK_CANNOT_READ, strerror(errno));
        rc = HK_OK;
        goto out;
    }
    if (rc)
        goto out;
    json_error_t je;
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        errs_add(errs, path, NULL, HK_MSG_SK_BAD_JSON, je.line, je.column,
                 je.text);
        goto out;
    }
    if (!json_is_object(root)) {
        errs_add(errs, path, NULL, HK_MSG_SK_NOT_OBJECT);
        goto out;
    }
    sk = hk_calloc(1, sizeof *sk);
    if (!sk || !(sk->compiled = hk_calloc(1, sizeof *sk->compiled))) {
        rc = HK_ENOMEM;
        goto out;
    }
    sk->path = vdup(&v, path);
    sk->hardware_dir = vdup(&v, hw_dirs[hw_index].dir);
    static const char *const allowed[] = {"id", "title", "hardware", "class", "applies",
                                          "guidance", "rewrite", "evidence", NULL};
    check_keys(&v, root, "", allowed);

    const char *id = get_str(&v, root, "id", "id", true, 1, SK_ID_MAX);
    if (id && !valid_id(id))
        vbad(&v, "id", HK_MSG_SK_BAD_ID, id);
    else if (id && strcmp(id, id_from_name))
        vbad(&v, "id", HK_MSG_SK_ID_NOT_FILE, id, id_from_name);
    else if (id)
        sk->id = vdup(&v, id);

    const char *title = get_str(&v, root, "title", "title", true, 1, SK_TITLE_MAX);
    if (title)
        sk->title = vdup(&v, title);

    parse_hardware(&v, sk, root, hw_index);

    const char *cls = get_str(&v, root, "class", "class", true, 1, 32);
    if (cls) {
        if (sk_class_parse(cls, &sk->cls) != HK_OK)
            vbad(&v, "class", HK_MSG_SK_UNKNOWN_CLASS, cls);
        else if (sk->cls != dir_class)
            vbad(&v, "class", HK_MSG_SK_CLASS_WRONG_DIR, cls,
                 class_names[dir_class]);
    }

    parse_applies(&v, sk, root);

    const char *g = get_str(&v, root, "guidance", "guidance", true, SK_GUIDANCE_MIN,
                            SK_GUIDANCE_MAX);
    if (g && count_sentences(g) < 2)
        vbad(&v, "guidance", HK_MSG_SK_GUIDANCE_SHORT);
    else if (g)
        sk->guidance = vdup(&v, g);

    parse_rewrite(&v, sk, root);
    parse_evidence(&v, sk, root);

    /* A file with other problems is dropped before the combined compile: check its query
     * alone so that its problems are reported too. */
    if (v.bad && sk->query && !v.oom)
        compile_query_alone(&v, sk, NULL);
    if (v.oom) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (!v.bad) {
        *out = sk;
        sk = NULL;
    }
out:
    skill_free(sk);
    json_decref(root);
    hk_free(text);
    return rc;
}

/* ---- walking the tree ---- */

struct sk_set {
    sk_skill **skills;
    size_t n, cap;
    TSQuery **queries;   /* owned; the skills' compiled queries point into these */
    size_t n_queries, cap_queries;
    bool lazy;           /* sk_load_dir_lazy: queries compiled when a kernel needs them */
    pthread_mutex_t mu;  /* a lazy set's compiles (queries, the skills' compiled parts) */
};

static int set_own_query(sk_set *set, TSQuery *q)
{
    if (set->n_queries == set->cap_queries) {
        size_t ncap = set->cap_queries ? set->cap_queries * 2 : 4;
        TSQuery **p = hk_realloc(set->queries, ncap * sizeof *p);
        if (!p)
            return HK_ENOMEM;
        set->queries = p;
        set->cap_queries = ncap;
    }
    set->queries[set->n_queries++] = q;
    return HK_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of dir's entries, dot files left out. *out: new array of new strings. */
static int list_dir(const char *dir, char ***out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOMEM ? HK_ENOMEM : HK_ENOENT;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = HK_OK;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (n >= SK_DIR_ENTRIES_MAX) {
            rc = HK_ETOOBIG;
            goto out;
        }
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **p = hk_realloc(names, ncap * sizeof *names);
            if (!p) {
                rc = HK_ENOMEM;
                goto out;
            }
            names = p;
            cap = ncap;
        }
        if (!(names[n] = hk_strdup(de->d_name))) {
            rc = HK_ENOMEM;
            goto out;
        }
        n++;
    }
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
out:
    closedir(d);
    if (rc) {
        for (size_t i = 0; i < n; i++)
            hk_free(names[i]);
        hk_free(names);
        return rc;
    }
    *out = names;
    *n_out = n;
    return HK_OK;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hk_free(names[i]);
    hk_free(names);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int set_add(sk_set *set, sk_skill *sk)
{
    if (set->n == set->cap) {
        size_t ncap = set->cap ? set->cap * 2 : 32;
        sk_skill **p = hk_realloc(set->skills, ncap * sizeof *p);
        if (!p)
            return HK_ENOMEM;
        set->skills = p;
        set->cap = ncap;
    }
    set->skills[set->n++] = sk;
    sk->compiled->owner = set;
    return HK_OK;
}

static int load_class_dir(sk_set *set, const char *path, int hw_index, enum sk_class cls,
                          struct sk_errs *errs)
{
    char **names = NULL;
    size_t n = 0;
    char *file = NULL;
    int rc = list_dir(path, &names, &n);
    if (rc == HK_ENOENT) {
        errs_add(errs, path, NULL, HK_MSG_SK_DIR_UNREADABLE, strerror(errno));
        return HK_OK;
    }
    if (rc == HK_ETOOBIG) {
        errs_add(errs, path, NULL, HK_MSG_SK_TOO_MANY_ENTRIES, SK_DIR_ENTRIES_MAX);
        return HK_OK;
    }
    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++) {
        hk_free(file);
        if (!(file = hk_asprintf("%s/%s", path, names[i]))) {
            rc = HK_ENOMEM;
            goto out;
        }
        if (is_dir(file)) {
            errs_add(errs, file, NULL, HK_MSG_SK_UNEXPECTED_DIR);
            continue;
        }
        if (!ends_with(names[i], ".json"))
            continue;
        if (set->n >= SK_SKILLS_MAX) {
            errs_add(errs, file, NULL, HK_MSG_SK_TOO_MANY_SKILLS, SK_SKILLS_MAX);
            rc = HK_ETOOBIG;
            goto out;
        }
        names[i][strlen(names[i]) - 5] = '\0';
        sk_skill *sk = NULL;
        rc = load_skill(file, names[i], hw_index, cls, errs, &sk);
        if (rc == HK_ETOOBIG)
            rc = HK_OK; /* reported; the other files are still checked */
        if (rc)
            goto out;
        if (sk && (rc = set_add(set, sk)) != HK_OK) {
            skill_free(sk);
            goto out;
        }
    }
out:
    hk_free(file);
    free_names(names, n);
    return rc;
}

/* Set order: hardware directory as listed in hw_dirs (sm_90 first), class, id. */
static int hw_rank(const sk_skill *sk)
{
    int i = hw_dir_index(sk->hardware_dir);
    return i < 0 ? INT_MAX : i;
}

static int cmp_load_order(const void *a, const void *b)
{
    const sk_skill *x = *(sk_skill *const *)a, *y = *(sk_skill *const *)b;
    int hx = hw_rank(x), hy = hw_rank(y);
    if (hx != hy)
        return hx < hy ? -1 : 1;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    return strcmp(x->id, y->id);
}

/* Compiles the queries of the n skills as ONE tree-sitter query the set owns (identical
 * texts once), then gives each skill its range of patterns and compiles its predicates.
 * tree-sitter's analysis of a new query costs 10-30 ms with this grammar, and then about
 * 6 ms a pattern (its walk of the parse table from every state where the pattern's node
 * can start), so 45 queries of 66 patterns take about 0.45 s together instead of 1.1 s.
 * When the combined text does not compile, each skill's query is compiled alone to say
 * which file is wrong. */
static int compile_queries(sk_set *set, sk_skill *const *skills, size_t n,
                           struct sk_errs *errs)
{
    if (!n)
        return HK_OK;
    int rc = HK_OK;
    size_t *uidx = hk_calloc(n, sizeof *uidx);        /* skill -> unique text */
    const char **texts = hk_calloc(n, sizeof *texts); /* unique texts (borrowed) */
    uint32_t *seg = hk_calloc(n + 1, sizeof *seg);     /* unique text -> byte offset */
    uint32_t *ustart = hk_calloc(n, sizeof *ustart), *uend = hk_calloc(n, sizeof *uend);
    struct hk_buf all;
    hk_buf_init(&all, (size_t)UINT32_MAX / 2);
    TSQuery *q = NULL;
    if (!uidx || !texts || !seg || !ustart || !uend) {
        rc = HK_ENOMEM;
        goto out;
    }
    size_t nu = 0;
    for (size_t i = 0; i < n; i++) {
        size_t u = 0;
        while (u < nu && strcmp(texts[u], skills[i]->query))
            u++;
        if (u == nu) {
            texts[nu++] = skills[i]->query;
            seg[u] = (uint32_t)all.len;
            /* The newline ends a trailing ';' comment before the next text starts. */
            if ((rc = hk_buf_appends(&all, texts[u])) || (rc = hk_buf_append(&all, "\n", 1)))
                goto out;
        }
        uidx[i] = u;
    }
    seg[nu] = (uint32_t)all.len;
    uint32_t off = 0;
    TSQueryError et = TSQueryErrorNone;
    q = ts_query_new(tree_sitter_cuda(), all.data, (uint32_t)all.len, &off, &et);
    if (q) {
        TSQuery *owned = q;
        if ((rc = set_own_query(set, q)))
            goto out;
        q = NULL;
        for (size_t u = 0; u < nu; u++) {
            ustart[u] = UINT32_MAX;
            uend[u] = 0;
        }
        uint32_t np = ts_query_pattern_count(owned);
        size_t u = 0;
        for (uint32_t p = 0; p < np; p++) {
            uint32_t at = ts_query_start_byte_for_pattern(owned, p);
            while (u + 1 < nu && at >= seg[u + 1])
                u++;
            if (ustart[u] == UINT32_MAX)
                ustart[u] = p;
            uend[u] = p + 1;
        }
        for (size_t i = 0; i < n; i++) {
            sk_skill *sk = skills[i];
            struct vctx v = {.errs = errs, .file = sk->path};
            size_t k = uidx[i];
            if (ustart[k] == UINT32_MAX) {
                vbad(&v, "applies.query", HK_MSG_SK_NO_PATTERN);
                continue;
            }
            /* A text starting with a predicate would lend it to the previous text's
             * last pattern in the combined query. */
            if (ts_query_start_byte_for_pattern(owned, ustart[k]) !=
                first_token(all.data, seg[k], seg[k + 1])) {
                vbad(&v, "applies.query", HK_MSG_SK_PATTERN_FIRST);
                continue;
            }
            compile_predicates(&v, sk->compiled, owned, ustart[k], uend[k]);
            if (v.oom) {
                rc = HK_ENOMEM;
                goto out;
            }
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            sk_skill *sk = skills[i];
            struct vctx v = {.errs = errs, .file = sk->path};
            TSQuery *one = NULL;
            compile_query_alone(&v, sk, &one);
            if (one && (rc = set_own_query(set, one)) != HK_OK) {
                free_preds(sk->compiled);
                ts_query_delete(one);
                goto out;
            }
            if (v.oom) {
                rc = HK_ENOMEM;
                goto out;
            }
        }
    }
out:
    if (q)
        ts_query_delete(q);
    hk_buf_free(&all);
    hk_free(uidx);
    hk_free(texts);
    hk_free(seg);
    hk_free(ustart);
    hk_free(uend);
    return rc;
}

void sk_set_free(sk_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++)
        skill_free(set->skills[i]);
    hk_free(set->skills);
    for (size_t i = 0; i < set->n_queries; i++)
        ts_query_delete(set->queries[i]);
    hk_free(set->queries);
    pthread_mutex_destroy(&set->mu);
    hk_free(set);
}

static int load_dir(const char *dir, bool lazy, sk_set **out, char *err, size_t errlen)
{
    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    struct sk_errs errs = {0};
    hk_buf_init(&errs.b, SK_ERRORS_MAX);
    sk_set *set = NULL;
    char **hw = NULL, **cl = NULL;
    size_t n_hw = 0, n_cl = 0;
    char *hw_path = NULL, *cl_path = NULL;
    int rc = HK_OK;
    if (!dir || !is_dir(dir)) {
        if (err && errlen)
            snprintf(err, errlen, hk_tr(HK_MSG_SK_NOT_SKILLS_DIR), dir ? dir : "(null)");
        return HK_ENOENT;
    }
    set = hk_calloc(1, sizeof *set);
    if (!set) {
        rc = HK_ENOMEM;
        goto out;
    }
    pthread_mutex_init(&set->mu, NULL);
    set->lazy = lazy;
    rc = list_dir(dir, &hw, &n_hw);
    if (rc == HK_ENOENT) {
        if (err && errlen)
            snprintf(err, errlen, hk_tr(HK_MSG_SK_SET_DIR_UNREADABLE), dir, strerror(errno));
        goto out;
    }
    if (rc == HK_ETOOBIG)
        errs_add(&errs, dir, NULL, HK_MSG_SK_TOO_MANY_ENTRIES, SK_DIR_ENTRIES_MAX);
    if (rc)
        goto out;
    for (size_t i = 0; i < n_hw; i++) {
        hk_free(hw_path);
        if (!(hw_path = hk_asprintf("%s/%s", dir, hw[i]))) {
            rc = HK_ENOMEM;
            goto out;
        }
        if (!is_dir(hw_path)) {
            if (ends_with(hw[i], ".json"))
                errs_add(&errs, hw_path, NULL, HK_MSG_SK_MISPLACED);
            continue; /* README.md and the like */
        }
        int hwi = hw_dir_index(hw[i]);
        if (hwi < 0) {
            errs_add(&errs, hw_path, NULL, HK_MSG_SK_UNKNOWN_HW_DIR);
            continue;
        }
        free_names(cl, n_cl);
        cl = NULL;
        n_cl = 0;
        rc = list_dir(hw_path, &cl, &n_cl);
        if (rc == HK_ENOENT || rc == HK_ETOOBIG) {
            errs_add(&errs, hw_path, NULL, HK_MSG_SK_CANNOT_LIST);
            rc = HK_OK;
            continue;
        }
        if (rc)
            goto out;
        for (size_t k = 0; k < n_cl; k++) {
            hk_free(cl_path);
            if (!(cl_path = hk_asprintf("%s/%s", hw_path, cl[k]))) {
                rc = HK_ENOMEM;
                goto out;
            }
            if (!is_dir(cl_path)) {
                if (ends_with(cl[k], ".json"))
                    errs_add(&errs, cl_path, NULL, HK_MSG_SK_MISPLACED);
                continue;
            }
            enum sk_class cls;
            if (sk_class_parse(cl[k], &cls) != HK_OK) {
                errs_add(&errs, cl_path, NULL, HK_MSG_SK_UNKNOWN_CLASS_DIR);
                continue;
            }
            rc = load_class_dir(set, cl_path, hwi, cls, &errs);
            if (rc == HK_ETOOBIG)
                break;
            if (rc)
                goto out;
        }
        if (rc == HK_ETOOBIG)
            break;
    }
    /* A lazy set compiles later, unless the load fails anyway: then its report is the
     * eager load's, query problems included. */
    if (rc == HK_OK && (!lazy || errs.count || errs.oom) &&
        (rc = compile_queries(set, set->skills, set->n, &errs)) != HK_OK)
        goto out;
    /* Ids are unique across hardware directories: the record and sk_get key on them. */
    for (size_t i = 0; i < set->n; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(set->skills[i]->id, set->skills[j]->id)) {
                errs_add(&errs, set->skills[i]->path, "id", HK_MSG_SK_DUPLICATE_ID,
                         set->skills[i]->id, set->skills[j]->path);
                break;
            }
    if (errs.oom) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (!errs.count && set->n == 0)
        errs_add(&errs, dir, NULL, HK_MSG_SK_NONE_FOUND);
    if (errs.count) {
        if (rc == HK_OK)
            rc = HK_EINVAL;
        goto out;
    }
    qsort(set->skills, set->n, sizeof *set->skills, cmp_load_order);
    *out = set;
    set = NULL;
out:
    if (rc && rc != HK_ENOENT)
        errs_export(&errs, err, errlen);
    if (rc == HK_ENOMEM && err && errlen && !err[0])
        snprintf(err, errlen, "%s", hk_tr(HK_MSG_SK_OOM));
    hk_buf_free(&errs.b);
    free_names(hw, n_hw);
    free_names(cl, n_cl);
    hk_free(hw_path);
    hk_free(cl_path);
    sk_set_free(set);
    return rc;
}

int sk_load_dir(const char *dir, sk_set **out, char *err, size_t errlen)
{
    return load_dir(dir, false, out, err, errlen);
}

int sk_load_dir_lazy(const char *dir, sk_set **out, char *err, size_t errlen)
{
    return load_dir(dir, true, out, err, errlen);
}

/* Whether a named node of the tree under root has one of the n types. */
static bool tree_has_type(TSNode root, char *const *types, size_t n)
{
    TSTreeCursor cur = ts_tree_cursor_new(root);
    bool found = false;
    for (;;) {
        TSNode node = ts_tree_cursor_current_node(&cur);
        if (ts_node_is_named(node)) {
            const char *t = ts_node_type(node);
            for (size_t i = 0; i < n && !found; i++)
                found = !strcmp(t, types[i]);
            if (found)
                break;
        }
        if (ts_tree_cursor_goto_first_child(&cur))
            continue;
        while (!ts_tree_cursor_goto_next_sibling(&cur))
            if (!ts_tree_cursor_goto_parent(&cur))
                goto done;
    }
done:
    ts_tree_cursor_delete(&cur);
    return found;
}

/* Whether the tree under root could match the skill's query: a query whose patterns'
 * roots are known matches only where one of those node types is in the tree. */
static bool could_match(const struct sk_compiled *c, TSNode root)
{
    return !c->roots_known || tree_has_type(root, c->roots, c->n_roots);
}

/* Compiles the queries of those of the n skills still without one, as one query. Caller
 * holds set->mu. HK_OK; HK_ENOMEM; HK_EINVAL with err (errlen, may be NULL/0) saying
 * which file's query is wrong. */
static int compile_missing(sk_set *set, sk_skill **skills, size_t n, char *err, size_t errlen)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!skills[i]->compiled->query)
            skills[m++] = skills[i];
    if (!m)
        return HK_OK;
    struct sk_errs errs = {0};
    hk_buf_init(&errs.b, SK_ERRORS_MAX);
    int rc = compile_queries(set, skills, m, &errs);
    if (rc == HK_OK && errs.oom)
        rc = HK_ENOMEM;
    if (rc == HK_OK && errs.count)
        rc = HK_EINVAL;
    if (rc)
        errs_export(&errs, err, errlen);
    hk_buf_free(&errs.b);
    return rc;
}

int sk_prepare_text(const sk_set *cset, const sk_skill *const *skills, size_t n,
                    const sk_text *t, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    sk_set *set = (sk_set *)cset;  /* the compiled parts change under the lock only */
    if (!set || !set->lazy || !n)
        return HK_OK;
    if (!t || t->early)
        return HK_OK;  /* sk_matches_source refuses such a text before its query */
    if (!t->tree)      /* no grammar: no skill matches, none compiles */
        return t->parse_rc == HK_EUNSUPPORTED ? HK_OK : t->parse_rc;
    sk_skill **need = hk_calloc(n, sizeof *need);
    if (!need)
        return HK_ENOMEM;
    TSNode root = ts_tree_root_node(t->tree);
    pthread_mutex_lock(&set->mu);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const struct sk_compiled *c = skills[i]->compiled;
        if (c->owner != set || c->query)
            continue;
        /* sk_matches_source's order: the pattern first, then the query */
        if (c->has_pattern && regexec(&c->pattern, t->copy, 0, NULL, 0) != 0)
            continue;
        if (could_match(c, root))
            need[m++] = (sk_skill *)skills[i];
    }
    int rc = compile_missing(set, need, m, err, errlen);
    pthread_mutex_unlock(&set->mu);
    hk_free(need);
    return rc;
}

int sk_prepare(const sk_set *set, const sk_skill *const *skills, size_t n, const char *text,
               size_t len, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!set || !set->lazy || !n)
        return HK_OK;  /* an eager set's queries are compiled: no parse */
    sk_text *t = NULL;
    int rc = sk_text_new(text, len, &t);
    if (rc == HK_OK)
        rc = sk_prepare_text(set, skills, n, t, err, errlen);
    sk_text_free(t);
    return rc;
}

int sk__query_owners(const sk_skill *sk, const TSQuery *q, uint32_t n,
                     const struct sk_compiled ***out)
{
    *out = NULL;
    const struct sk_compiled **own = hk_calloc(n ? n : 1, sizeof *own);
    if (!own)
        return HK_ENOMEM;
    sk_set *set = sk->compiled->owner;
    if (!set) {
        const struct sk_compiled *c = sk->compiled;
        for (uint32_t p = c->pattern_start; p < c->pattern_end && p < n; p++)
            own[p] = c;
    } else {
        pthread_mutex_lock(&set->mu);  /* a lazy set's compiles set other skills' queries */
        for (size_t i = 0; i < set->n; i++) {
            const struct sk_compiled *c = set->skills[i]->compiled;
            if (c->query != q)
                continue;
            for (uint32_t p = c->pattern_start; p < c->pattern_end && p < n; p++)
                if (!own[p])
                    own[p] = c;
        }
        pthread_mutex_unlock(&set->mu);
    }
    *out = own;
    return HK_OK;
}

int sk__query_ready(const sk_skill *sk, TSNode root, bool *needed)
{
    struct sk_compiled *c = sk->compiled;
    sk_set *set = c->owner;
    *needed = true;
    if (!set || !set->lazy)
        return HK_OK;
    int rc = HK_OK;
    pthread_mutex_lock(&set->mu);
    if (!c->query) {
        if (!could_match(c, root)) {
            *needed = false;
        } else {
            sk_skill *one = (sk_skill *)sk;
            rc = compile_missing(set, &one, 1, NULL, 0);
        }
    }
    pthread_mutex_unlock(&set->mu);
    return rc;
}

/* ---- lookups ---- */

size_t sk_set_count(const sk_set *set)
{
    return set ? set->n : 0;
}

const sk_skill *sk_set_at(const sk_set *set, size_t i)
{
    return set && i < set->n ? set->skills[i] : NULL;
}

const sk_skill *sk_get(const sk_set *set, const char *id)
{
    for (size_t i = 0; set && id && i < set->n; i++)
        if (!strcmp(set->skills[i]->id, id))
            return set->skills[i];
    return NULL;
}

bool sk_hardware_matches(const sk_skill *sk, const char *arch)
{
    for (size_t i = 0; arch && i < sk->n_hardware; i++)
        if (arch_pattern_matches(sk->hardware[i], arch))
            return true;
    return false;
}

int sk_for(const sk_set *set, const char *arch, enum sk_class cls, const sk_skill ***out,
           size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++) {
        const sk_skill *sk = set->skills[i];
        if ((cls == SK_CLASS_COUNT || sk->cls == cls) && (!arch || sk_hardware_matches(sk, arch)))
            n++;
    }
    if (!n)
        return HK_OK;
    const sk_skill **arr = hk_calloc(n, sizeof *arr);
    if (!arr)
        return HK_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < set->n; i++) {
        const sk_skill *sk = set->skills[i];
        if ((cls == SK_CLASS_COUNT || sk->cls == cls) && (!arch || sk_hardware_matches(sk, arch)))
            arr[k++] = sk;
    }
    *out = arr;
    *n_out = n;
    return HK_OK;
}

/* ---- ordering by record ---- */

struct ranked {
    sk_skill *sk;
    size_t pos;        /* current position: the stable tie-break */
    int tier;          /* 0 helped, 1 untried, 2 tried and never helped */
    bool hint;         /* a compiler hint, not a change of the code's structure */
    double rate, mean;
    int64_t tried;
};

static int cmp_stat_id(const void *a, const void *b)
{
    const store_skill_stat *x = *(const store_skill_stat *const *)a;
    const store_skill_stat *y = *(const store_skill_stat *const *)b;
    return strcmp(x->skill_id ? x->skill_id : "", y->skill_id ? y->skill_id : "");
}

/* Rewrites that only give the compiler a hint (read-only loads, __restrict__, launch
 * bounds, a tunable's value): they rarely change a memory-bound kernel's access pattern,
 * so among skills without a record of help the structural ones are tried first (on the
 * H200, read-only loads timed before float4 used up half_scale_bias's whole search). */
static bool hint_rewrite(const rw_descriptor *r)
{
    return r && (r->flags & RW_HINT);
}

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->tier != y->tier)
        return x->tier < y->tier ? -1 : 1;
    if (x->tier != 0 && x->hint != y->hint)
        return x->hint ? 1 : -1;
    if (x->tier == 0) {
        if (x->rate != y->rate)
            return x->rate > y->rate ? -1 : 1;
        if (x->mean != y->mean)
            return x->mean > y->mean ? -1 : 1;
        if (x->tried != y->tried)
            return x->tried > y->tried ? -1 : 1;
    } else if (x->tier == 2 && x->tried != y->tried) {
        return x->tried < y->tried ? -1 : 1;
    }
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int sk_order_by_record(sk_set *set, const store_skill_stat *stats, size_t n)
{
    if (!set || set->n == 0)
        return HK_OK;
    int rc = HK_OK;
    const store_skill_stat **index = NULL;
    struct ranked *r = hk_calloc(set->n, sizeof *r);
    if (!r)
        return HK_ENOMEM;
    if (n) {
        index = hk_calloc(n, sizeof *index);
        if (!index) {
            rc = HK_ENOMEM;
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            index[i] = &stats[i];
        qsort(index, n, sizeof *index, cmp_stat_id);
    }
    for (size_t i = 0; i < set->n; i++) {
        struct ranked *x = &r[i];
        x->sk = set->skills[i];
        x->pos = i;
        x->tier = 1;
        x->hint = hint_rewrite(x->sk->rewrite);
        if (!n)
            continue;
        store_skill_stat key = {.skill_id = x->sk->id};
        const store_skill_stat *kp = &key;
        const store_skill_stat **hit = bsearch(&kp, index, n, sizeof *index, cmp_stat_id);
        if (!hit || (*hit)->tried <= 0)
            continue;
        const store_skill_stat *st = *hit;
        x->tried = st->tried;
        if (st->helped > 0) {
            x->tier = 0;
            x->rate = (double)st->helped / (double)st->tried;
            /* A helped record always has a mean; guard a NAN so the order stays total. */
            x->mean = isfinite(st->mean_speedup) ? st->mean_speedup : 1.0;
        } else {
            x->tier = 2;
        }
    }
    qsort(r, set->n, sizeof *r, cmp_ranked);
    for (size_t i = 0; i < set->n; i++)
        set->skills[i] = r[i].sk;
out:
    hk_free(index);
    hk_free(r);
    return rc;
}

/* ---- where the skills live ---- */

int sk_default_dir(char **out)
{
    *out = NULL;
    const char *env = getenv("HK_SKILLS_DIR");
    if (env && *env) {
        *out = hk_strdup(env);
        return *out ? HK_OK : HK_ENOMEM;
    }
    return hk_data_dir("skills", "skills", out);
}
