/* Private to server/skills: what the loader compiles once per skill (the tree-sitter
 * query with its predicates, the regexes) and the matcher uses. Not for other modules. */
#ifndef HK_SKILLS_SKILLS_IMPL_H
#define HK_SKILLS_SKILLS_IMPL_H

#include <regex.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "skills/skills.h"

/* Kernel text larger than this is not parsed for matching (a whole generated file of
 * tens of MB is not a kernel). */
#define SK_MATCH_TEXT_MAX (16u * 1024 * 1024)

/* The grammar compiled into the server (hk_grammar_lib). */
const TSLanguage *tree_sitter_cuda(void);

enum sk_pred_op { SK_PRED_EQ, SK_PRED_NOT_EQ, SK_PRED_MATCH, SK_PRED_NOT_MATCH };

/* One query predicate: capture OP (rhs capture | str | re). */
struct sk_pred {
    enum sk_pred_op op;
    uint32_t capture;
    bool rhs_is_capture;
    uint32_t rhs_capture;
    char *str;       /* owned; the literal (eq) or the regex source (match) */
    bool has_re;
    regex_t re;
};

/* A skill's query is a range of patterns [pattern_start, pattern_end) of one TSQuery that
 * the set owns: the loader compiles the queries of all skills as one (tree-sitter's
 * per-query analysis of this large grammar costs 15-80 ms, once instead of per skill).
 * A set loaded with sk_load_dir_lazy compiles a skill's query only when a kernel could
 * match it (sk_prepare, or sk_matches_source for one skill), under the set's lock. */
struct sk_compiled {
    const TSQuery *query;    /* borrowed from the set; NULL until compiled (lazy sets) */
    struct sk_set *owner;    /* the set that compiles and owns the query */
    char **roots;            /* the node type each top-level pattern starts at (owned) */
    size_t n_roots;
    bool roots_known;        /* every pattern's root is a plain node type */
    uint32_t pattern_start, pattern_end;
    struct sk_pred **preds;  /* per pattern of the range, n_preds[p - pattern_start] each */
    size_t *n_preds;
    bool has_pattern;
    regex_t pattern;         /* applies.pattern */
    bool has_sass;
    regex_t sass;            /* evidence.sass */
};

/* A kernel text parsed once for matching (sk_text_new). The answers sk_matches_source
 * gives without the tree are kept in the order it gives them: early (NULL text, too big)
 * before the skill's pattern, parse_rc (no grammar, no memory) after it. */
struct sk_text {
    char *copy;      /* NUL-terminated copy of the text, for the regexes */
    size_t len;
    int early;       /* HK_EINVAL or HK_ETOOBIG; HK_OK */
    int parse_rc;    /* HK_EUNSUPPORTED (no grammar) or HK_ENOMEM when tree is NULL */
    TSTree *tree;    /* NULL when early or parse_rc, or not parsed yet (sk_matches_source) */
    /* sk_text_new's texts: per compiled query run on the tree, which of its patterns
     * have a match whose predicates hold (one run of a set's query answers all its
     * skills); sk_matches_source's text of its own runs the skill's query alone */
    bool cache;
    struct sk_text_hits {
        const TSQuery *query;
        uint8_t *hit;    /* per pattern of query */
    } *hits;
    size_t n_hits;
};

/* For each of the n patterns of q (a query of sk's set), the compiled parts of a skill
 * whose pattern range holds it, or NULL (skills with the same query text share their
 * range and predicates): *out, hk_free. HK_OK or HK_ENOMEM. Takes the set's lock. */
int sk__query_owners(const sk_skill *sk, const TSQuery *q, uint32_t n,
                     const struct sk_compiled ***out);

/* Makes sure sk's query is compiled when the tree under root could match it: *needed false when it cannot (its pattern roots are absent from the tree), and
 * then the query may stay uncompiled. A set loaded eagerly has every query: *needed true.
 * HK_OK; HK_ENOMEM; HK_EINVAL when the query does not compile (a lazy set only). */
int sk__query_ready(const sk_skill *sk, TSNode root, bool *needed);

#endif
