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

int sk_matches_source(const sk_skill *sk, const char *text, size_t len, bool *out)
{
    *out = false;
    if (!sk || !text)
        return HK_EINVAL;
    if (len > SK_MATCH_TEXT_MAX)
        return HK_ETOOBIG;
    const struct sk_compiled *c = sk->compiled;
    int rc = HK_OK;
    char *copy = NULL;
    TSParser *parser = NULL;
    TSTree *tree = NULL;
    TSQueryCursor *cur = NULL;
    if (c->has_pattern) {
        /* The regex needs a NUL-terminated subject and text may be a slice. */
        copy = hk_strndup(text, len);
        if (!copy) {
            rc = HK_ENOMEM;
            goto out;
        }
        if (regexec(&c->pattern, copy, 0, NULL, 0) != 0)
            goto out;
    }
    parser = ts_parser_new();
    if (!parser || !ts_parser_set_language(parser, tree_sitter_cuda())) {
        rc = parser ? HK_EUNSUPPORTED : HK_ENOMEM;
        goto out;
    }
    tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)len);
    cur = ts_query_cursor_new();
    if (!tree || !cur) {
        rc = HK_ENOMEM;
        goto out;
    }
    /* a lazy set compiles the query here when no sk_prepare did; a tree with none of
     * its patterns' root node types cannot match (needed false), as the query finds */
    bool needed = true;
    if ((rc = sk__query_ready(sk, ts_tree_root_node(tree), &needed)) != HK_OK || !needed)
        goto out;
    ts_query_cursor_exec(cur, c->query, ts_tree_root_node(tree));
    TSQueryMatch m;
    while (!*out && ts_query_cursor_next_match(cur, &m)) {
        /* The query holds every skill's patterns; only this skill's range counts. */
        if (m.pattern_index < c->pattern_start || m.pattern_index >= c->pattern_end)
            continue;
        uint32_t p = m.pattern_index - c->pattern_start;
        bool all = true;
        for (size_t i = 0; all && i < c->n_preds[p]; i++) {
            rc = pred_holds(&c->preds[p][i], &m, text, &all);
            if (rc)
                goto out;
        }
        *out = all;
    }
out:
    if (cur)
        ts_query_cursor_delete(cur);
    if (tree)
        ts_tree_delete(tree);
    if (parser)
        ts_parser_delete(parser);
    hk_free(copy);
    if (rc)
        *out = false;
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
