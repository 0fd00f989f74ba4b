/* Applying a loaded skill: does a kernel's text match its code condition (tree-sitter
 * query with predicates, regex), do measured metrics fall in its thresholds, and did
 * the evidence it promises appear. Read-only on the skill, so any thread. */
#include "skills/skills_impl.h"

#include <math.h>
#include <string.h>

#include "core/hk.h"

static const TSNode *capture_node(const TSQueryMatch *m, uint32_t capture)
{
    for (uint16_t i = 0; i < m->capture_count; i++)
        if (m->captures[i].index == capture)
            return &m->captures[i].node;
    return NULL;
}

/* Evaluates one predicate on a match. A predicate naming a capture the match does not
 * have (an optional part) does not hold for #eq?/#match? and holds for the negations. */
static int pred_holds(const struct sk_pred *p, const TSQueryMatch *m, const char *text,
                      bool *out)
{
    *out = false;
    const TSNode *n = capture_node(m, p->capture);
    if (!n) {
        *out = p->op == SK_PRED_NOT_EQ || p->op == SK_PRED_NOT_MATCH;
        return HK_OK;
    }
    uint32_t a = ts_node_start_byte(*n), b = ts_node_end_byte(*n);
    if (p->rhs_is_capture || p->op == SK_PRED_EQ || p->op == SK_PRED_NOT_EQ) {
        const char *rhs;
        size_t rlen;
        if (p->rhs_is_capture) {
            const TSNode *r = capture_node(m, p->rhs_capture);
            if (!r) {
                *out = p->op == SK_PRED_NOT_EQ;
                return HK_OK;
            }
            rhs = text + ts_node_start_byte(*r);
            rlen = ts_node_end_byte(*r) - ts_node_start_byte(*r);
        } else {
            rhs = p->str;
            rlen = strlen(p->str);
        }
        bool eq = rlen == b - a && memcmp(text + a, rhs, rlen) == 0;
        *out = p->op == SK_PRED_EQ ? eq : !eq;
        return HK_OK;
    }
    /* regexec needs a NUL-terminated subject. */
    char *sub = hk_strndup(text + a, b - a);
    if (!sub)
        return HK_ENOMEM;
    bool hit = regexec(&p->re, sub, 0, NULL, 0) == 0;
    hk_free(sub);
    *out = p->op == SK_PRED_MATCH ? hit : !hit;
    return HK_OK;
}

/* Parses t's copy: t->tree, or t->parse_rc when there is none. */
static void text_parse(struct sk_text *t)
{
    TSParser *parser = ts_parser_new();
    if (!parser || !ts_parser_set_language(parser, tree_sitter_cuda())) {
        t->parse_rc = parser ? HK_EUNSUPPORTED : HK_ENOMEM;
    } else {
        t->tree = ts_parser_parse_string(parser, NULL, t->copy, (uint32_t)t->len);
        t->parse_rc = t->tree ? HK_OK : HK_ENOMEM;
    }
    if (parser)
        ts_parser_delete(parser);
}

/* Fills t for text (no parse yet): HK_OK (t->early may say why it cannot be matched) or
 * HK_ENOMEM. */
static int text_init(struct sk_text *t, const char *text, size_t len)
{
    memset(t, 0, sizeof *t);
    if (!text)
        t->early = HK_EINVAL;
    else if (len > SK_MATCH_TEXT_MAX)
        t->early = HK_ETOOBIG;
    if (t->early)
        return HK_OK;
    /* the regexes need a NUL-terminated subject and text may be a slice */
    if (!(t->copy = hk_strndup(text, len)))
        return HK_ENOMEM;
    t->len = len;
    return HK_OK;
}

static void text_clear(struct sk_text *t)
{
    for (size_t i = 0; i < t->n_hits; i++)
        hk_free(t->hits[i].hit);
    hk_free(t->hits);
    if (t->tree)
        ts_tree_delete(t->tree);
    hk_free(t->copy);
    memset(t, 0, sizeof *t);
}

int sk_text_new(const char *text, size_t len, sk_text **out)
{
    *out = NULL;
    struct sk_text *t = hk_calloc(1, sizeof *t);
    if (!t)
        return HK_ENOMEM;
    int rc = text_init(t, text, len);
    if (rc) {
        hk_free(t);
        return rc;
    }
    if (!t->early)
        text_parse(t);
    t->cache = true;
    *out = t;
    return HK_OK;
}

void sk_text_free(sk_text *t)
{
    if (!t)
        return;
    text_clear(t);
    hk_free(t);
}

/* Whether the skill's applies.pattern holds on t (true when it has none). */
static bool pattern_holds(const struct sk_compiled *c, const struct sk_text *t)
{
    return !c->has_pattern || regexec(&c->pattern, t->copy, 0, NULL, 0) == 0;
}

/* Whether a match's predicates hold (those of pattern p of c's range). */
static int match_holds(const struct sk_compiled *c, uint32_t p, const TSQueryMatch *m,
                       const char *text, bool *all)
{
    *all = true;
    int rc = HK_OK;
    for (size_t i = 0; *all && rc == HK_OK && i < c->n_preds[p - c->pattern_start]; i++)
        rc = pred_holds(&c->preds[p - c->pattern_start][i], m, text, all);
    return rc;
}

/* Runs c's query on t's tree and stops at the first match of c's range whose predicates
 * hold (a text of sk_matches_source: one skill asked). */
static int run_one(const struct sk_compiled *c, const struct sk_text *t, bool *out)
{
    TSQueryCursor *cur = ts_query_cursor_new();
    if (!cur)
        return HK_ENOMEM;
    int rc = HK_OK;
    ts_query_cursor_exec(cur, c->query, ts_tree_root_node(t->tree));
    TSQueryMatch m;
    while (!*out && rc == HK_OK && ts_query_cursor_next_match(cur, &m)) {
        /* The query holds every skill's patterns; only this skill's range counts. */
        if (m.pattern_index < c->pattern_start || m.pattern_index >= c->pattern_end)
            continue;
        rc = match_holds(c, m.pattern_index, &m, t->copy, out);
    }
    ts_query_cursor_delete(cur);
    return rc;
}

/* The patterns of sk's query that have a match on t whose predicates hold: the query run
 * once on t's tree for all its skills, kept in t. */
static int query_hits(const sk_skill *sk, struct sk_text *t, const uint8_t **out)
{
    const TSQuery *q = sk->compiled->query;
    for (size_t i = 0; i < t->n_hits; i++)
        if (t->hits[i].query == q) {
            *out = t->hits[i].hit;
            return HK_OK;
        }
    uint32_t n = ts_query_pattern_count(q);
    const struct sk_compiled **own = NULL;
    uint8_t *hit = hk_calloc(n ? n : 1, 1);
    TSQueryCursor *cur = ts_query_cursor_new();
    struct sk_text_hits *grown = hk_realloc(t->hits, (t->n_hits + 1) * sizeof *grown);
    if (grown)
        t->hits = grown;
    int rc = hit && cur && grown ? sk__query_owners(sk, q, n, &own) : HK_ENOMEM;
    if (rc == HK_OK) {
        ts_query_cursor_exec(cur, q, ts_tree_root_node(t->tree));
        TSQueryMatch m;
        while (rc == HK_OK && ts_query_cursor_next_match(cur, &m)) {
            uint32_t p = m.pattern_index;
            if (p >= n || hit[p] || !own[p])
                continue;
            bool all = false;
            rc = match_holds(own[p], p, &m, t->copy, &all);
            hit[p] = all;
        }
    }
    if (cur)
        ts_query_cursor_delete(cur);
    hk_free(own);
    if (rc) {
        hk_free(hit);
        return rc;
    }
    t->hits[t->n_hits++] = (struct sk_text_hits){.query = q, .hit = hit};
    *out = hit;
    return HK_OK;
}

int sk_matches_text(const sk_skill *sk, sk_text *t, bool *out)
{
    *out = false;
    if (!sk || !t)
        return HK_EINVAL;
    if (t->early)
        return t->early;
    const struct sk_compiled *c = sk->compiled;
    /* the pattern first: a text it refuses is not this skill's, grammar or not */
    if (!pattern_holds(c, t))
        return HK_OK;
    if (!t->tree)
        return t->parse_rc;
    /* a lazy set compiles the query here when no sk_prepare did; a tree with none of
     * its patterns' root node types cannot match (needed false), as the query finds */
    bool needed = true;
    int rc = sk__query_ready(sk, ts_tree_root_node(t->tree), &needed);
    if (rc != HK_OK || !needed)
        return rc;
    if (!t->cache) {
        rc = run_one(c, t, out);
    } else {
        const uint8_t *hit = NULL;
        rc = query_hits(sk, t, &hit);
        for (uint32_t p = c->pattern_start; rc == HK_OK && !*out && p < c->pattern_end; p++)
            *out = hit[p];
    }
    if (rc)
        *out = false;
    return rc;
}

int sk_matches_source(const sk_skill *sk, const char *text, size_t len, bool *out)
{
    *out = false;
    if (!sk)
        return HK_EINVAL;
    /* sk_matches_text on a text of its own, parsed only when the skill's pattern holds */
    struct sk_text t;
    int rc = text_init(&t, text, len);
    if (rc == HK_OK && !t.early && pattern_holds(sk->compiled, &t))
        text_parse(&t);
    if (rc == HK_OK)
        rc = sk_matches_text(sk, &t, out);
    text_clear(&t);
    return rc;
}

void sk_metrics_init(sk_metrics *m)
{
    for (int i = 0; i < SK_M_COUNT; i++)
        m->v[i] = NAN;
}

bool sk_matches_metrics(const sk_skill *sk, const sk_metrics *m)
{
    for (size_t i = 0; i < sk->n_metrics; i++) {
        const sk_threshold *t = &sk->metrics[i];
        double x = m ? m->v[t->metric] : NAN;
        if (isnan(x) && t->required)
            return false;
        if (isnan(x))
            continue;
        if ((!isnan(t->min) && x < t->min) || (!isnan(t->max) && x > t->max))
            return false;
    }
    return true;
}

/* A move smaller than this share of the old value is noise, not evidence. */
#define SK_EVIDENCE_MIN_CHANGE 0.02

int sk_evidence_sass_count(const sk_skill *sk, const char *text, size_t *count)
{
    *count = 0;
    if (!sk->compiled->has_sass || !text)
        return HK_OK;
    char line[1024];
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        /* SASS lines are short; a longer one is cut, which only loses its tail. */
        size_t n = len < sizeof line - 1 ? len : sizeof line - 1;
        memcpy(line, p, n);
        line[n] = '\0';
        if (regexec(&sk->compiled->sass, line, 0, NULL, 0) == 0)
            (*count)++;
        p += len;
        if (*p == '\n')
            p++;
    }
    return HK_OK;
}

int sk_evidence_found(const sk_skill *sk, const char *sass_before, const char *sass_after,
                      const sk_metrics *before, const sk_metrics *after, bool *out,
                      const char **what)
{
    *out = false;
    if (what)
        *what = NULL;
    if (!sk->compiled->has_sass && !sk->has_evidence_metric)
        return HK_EINVAL;
    if (sk->compiled->has_sass && sass_after) {
        size_t nb = 0, na = 0;
        sk_evidence_sass_count(sk, sass_before, &nb);
        sk_evidence_sass_count(sk, sass_after, &na);
        if (na > nb) {
            *out = true;
            if (what)
                *what = "sass";
            return HK_OK;
        }
    }
    if (sk->has_evidence_metric && before && after) {
        double a = before->v[sk->evidence_metric], b = after->v[sk->evidence_metric];
        if (isfinite(a) && isfinite(b)) {
            double margin = fabs(a) * SK_EVIDENCE_MIN_CHANGE;
            bool moved = sk->evidence_change > 0 ? b > a + margin : b < a - margin;
            if (moved) {
                *out = true;
                if (what)
                    *what = "metric";
            }
        }
    }
    return HK_OK;
}
