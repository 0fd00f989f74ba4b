/* The skills knowledge base: units of optimization knowledge loaded from skills/
 * (one JSON file per skill, skills/<hardware>/<class>/<id>.json; format: docs/skills.md).
 * A skill says when it applies (hardware, bottleneck class, a tree-sitter query and an
 * optional regex on the kernel text, metric thresholds), what to do (guidance text for
 * LLM engines, a rewrite name and tunables for the builtin engine) and what evidence
 * should follow (a regex on SASS/ISA, a metric change).
 *
 * Conventions: fallible functions return HK_OK or a negative HK_E* code with results
 * through out-parameters (left empty on error). A loaded set is immutable: every const
 * function below may be called from several threads at once on the same set; the set
 * must outlive the skills and arrays borrowed from it. sk_order_by_record is the one
 * mutating call and needs exclusive access. */
#ifndef HK_SKILLS_SKILLS_H
#define HK_SKILLS_SKILLS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "rewrites/registry.h"
#include "store/store.h"

/* ---- closed vocabularies (the one place each list lives) ---- */

/* A skill's rewrite.name is the name of a descriptor in the rewrite registry
 * (rewrites/registry.h): the one list of rewrites. */

/* Metrics a skill may put thresholds on or name as evidence, with the range of values
 * that makes sense for each (thresholds outside it are refused). Where they come from is
 * in docs/skills.md. X(ENUM, "name", lowest, highest). */
#define SK_METRICS(X)                                        \
    X(DRAM_PCT_OF_PEAK, "dram_pct_of_peak", 0, 100)          \
    X(SM_PCT_OF_PEAK, "sm_pct_of_peak", 0, 100)              \
    X(ROOFLINE_PCT, "roofline_pct", 0, 100)                  \
    X(ARITHMETIC_INTENSITY, "arithmetic_intensity", 0, 1e6)  \
    X(ACHIEVED_OCCUPANCY, "achieved_occupancy", 0, 1)        \
    X(THEORETICAL_OCCUPANCY, "theoretical_occupancy", 0, 1)  \
    X(REGISTERS_PER_THREAD, "registers_per_thread", 0, 255)  \
    X(SPILL_BYTES, "spill_bytes", 0, 1e9)                    \
    X(SHARED_BYTES_PER_BLOCK, "shared_bytes_per_block", 0, 1e7) \
    X(BLOCK_SIZE, "block_size", 1, 1024)                     \
    X(WAVES, "waves", 0, 1e9)                                \
    X(GLOBAL_LOAD_EFFICIENCY_PCT, "global_load_efficiency_pct", 0, 100) \
    X(GLOBAL_STORE_EFFICIENCY_PCT, "global_store_efficiency_pct", 0, 100) \
    X(SHARED_BANK_CONFLICTS_PER_REQUEST, "shared_bank_conflicts_per_request", 0, 64) \
    X(L2_HIT_RATE_PCT, "l2_hit_rate_pct", 0, 100)

enum sk_metric {
#define SK_X_ENUM(e, s, lo, hi) SK_M_##e,
    SK_METRICS(SK_X_ENUM)
#undef SK_X_ENUM
    SK_M_COUNT
};

/* Bottleneck classes (roofline position), which are also the class directory names. */
enum sk_class { SK_MEMORY_BOUND, SK_COMPUTE_BOUND, SK_LATENCY_BOUND, SK_CLASS_COUNT };

/* Static names ("dram_pct_of_peak", "memory-bound"); "?" when out of range. */
const char *sk_metric_name(enum sk_metric m);
const char *sk_class_name(enum sk_class c);
/* Name back to value; HK_EINVAL when unknown (s may be NULL: HK_EINVAL). */
int sk_metric_parse(const char *s, enum sk_metric *out);
int sk_class_parse(const char *s, enum sk_class *out);

/* ---- skills ---- */

/* A metric threshold: the skill applies when min <= value <= max (NAN: no bound). An
 * unknown value passes, unless required (`"required": true`, session 52: a register cap
 * means nothing until the baseline's registers are known). */
typedef struct {
    enum sk_metric metric;
    double min, max;
    bool required;
} sk_threshold;

struct sk_compiled; /* private: the compiled query and regexes */

/* One skill. All fields are owned by the set and read-only for callers. */
typedef struct {
    char *id;               /* file name without .json, unique in the set */
    char *path;             /* file it came from */
    char *hardware_dir;     /* "nvidia-sm90", "nvidia-sm80", "dcu-gfx9" */
    char *title;
    char **hardware;        /* arch patterns: "sm_90", "gfx90a", "sm_*", "gfx9*" */
    size_t n_hardware;
    enum sk_class cls;
    char *query;            /* tree-sitter query source over tree-sitter-cuda */
    char *pattern;          /* POSIX extended regex on the kernel text; NULL: none */
    sk_threshold *metrics;  /* may be NULL when n_metrics is 0 */
    size_t n_metrics;
    char *guidance;
    const rw_descriptor *rewrite; /* the registry's descriptor (static, never NULL) */
    json_t *params;         /* borrowed: object name -> non-empty array of values to try,
                               in order (numbers, or strings); never NULL (may be empty) */
    char *evidence_sass;    /* POSIX extended regex on SASS / AMD ISA; NULL: none */
    bool has_evidence_metric;
    enum sk_metric evidence_metric;
    int evidence_change;    /* +1 increase, -1 decrease (when has_evidence_metric) */
    struct sk_compiled *compiled;
} sk_skill;

typedef struct sk_set sk_set;

/* Loads every skill under dir (dir/<hardware>/<class>/<id>.json; other files that do not
 * end in .json are ignored) and validates each completely. On success *out is a new set
 * (sk_set_free). On failure *out is NULL and err (errlen bytes, may be NULL/0) holds every
 * problem found, one per line as "FILE: KEY: problem" (truncated with a count when it
 * does not fit). HK_ENOENT: dir missing or unreadable; HK_EINVAL: at least one bad skill
 * (a file over 256 KiB is one) or misplaced file, or no skill at all; HK_ETOOBIG: over
 * 4096 skills; HK_ENOMEM. Any thread; no shared state. Takes about 0.3 s for the
 * shipped skills (tree-sitter's query analysis), so a server loads them off its loop. */
int sk_load_dir(const char *dir, sk_set **out, char *err, size_t errlen);

/* sk_load_dir without compiling the skills' tree-sitter queries: each is compiled when a
 * kernel could match it (sk_prepare for the skills a plan asks, else sk_matches_source for
 * one), once, under the set's lock, so any thread may match. tree-sitter's analysis costs
 * ~6 ms a pattern: a plan on one kernel compiles the patterns of the skills whose
 * applies.pattern holds and whose patterns' root node types occur in its tree (saxpy: 29
 * of 66), not all. Every other check is sk_load_dir's, and a load that fails reports the
 * same problems, query problems included. A query that does not compile but is never
 * needed is not found (`hkls skills` checks them all); one that is needed makes
 * sk_prepare or sk_matches_source answer HK_EINVAL. */
int sk_load_dir_lazy(const char *dir, sk_set **out, char *err, size_t errlen);

/* For a lazy set (else a no-op, HK_OK): compiles, as one query, the queries of those of
 * the n skills (of this set) that could match text (len bytes): applies.pattern holds
 * and the tree holds a node of one of their patterns' root types. sk_matches_source gives
 * the same answers with or without it; it only compiles them together (one analysis, not
 * one per skill). HK_OK; HK_ENOMEM; HK_EINVAL with err (errlen, may be NULL/0) naming the
 * files whose queries do not compile. Any thread. */
int sk_prepare(const sk_set *set, const sk_skill *const *skills, size_t n, const char *text,
               size_t len, char *err, size_t errlen);

/* Frees the set and every skill in it; NULL is a no-op. */
void sk_set_free(sk_set *set);

/* Number of skills, and the i-th in the set's current order (borrowed; NULL when out
 * of range). The order is hardware dir, class, id after loading, and the record order
 * after sk_order_by_record. */
size_t sk_set_count(const sk_set *set);
const sk_skill *sk_set_at(const sk_set *set, size_t i);

/* The skill with this id (borrowed), or NULL. */
const sk_skill *sk_get(const sk_set *set, const char *id);

/* True when one of the skill's hardware patterns matches arch ("sm_90", "gfx906"): an
 * exact name, or a prefix ending in '*'. */
bool sk_hardware_matches(const sk_skill *sk, const char *arch);

/* The skills for arch (NULL: any) and class (SK_CLASS_COUNT: any), in the set's order
 * (the record order after sk_order_by_record). *out: new array of borrowed pointers
 * (hk_free), NULL when *n_out is 0. HK_OK or HK_ENOMEM. */
int sk_for(const sk_set *set, const char *arch, enum sk_class cls, const sk_skill ***out,
           size_t *n_out);

/* Reorders the set by record (stats from store_skill_stats, n rows; NULL/0: none), so
 * sk_for gives the best-recorded skills first:
 *   1. skills that helped at least once, by help rate (helped / tried), then by mean
 *      speedup when they helped, then by tries (more evidence first);
 *   2. skills never tried (an untried skill deserves one try before a failed one);
 *   3. skills tried that never helped, fewest tries first.
 * In 2 and 3, skills whose rewrite is only a compiler hint (readonly_loads, restrict,
 * launch_bounds, set_tunable) come after the structural ones. Ties keep the load order
 * (stable). Stats rows for unknown ids are ignored.
 * HK_OK or HK_ENOMEM (set unchanged). Needs exclusive access to the set. */
int sk_order_by_record(sk_set *set, const store_skill_stat *stats, size_t n);

/* ---- applying a skill ---- */

/* Whether the kernel text (the kernel's function, or a whole file) matches the skill's
 * code condition: its tree-sitter query has at least one match whose predicates hold
 * (#eq?, #not-eq?, #match?, #not-match?), and its pattern, when present, matches the
 * text. HK_OK with *out set; HK_ENOMEM; HK_EINVAL when text is NULL; HK_ETOOBIG over
 * 16 MiB of text; HK_EUNSUPPORTED when the grammar cannot be loaded; HK_EINVAL too when a
 * lazy set's query, compiled here (sk_load_dir_lazy), does not compile. Any thread. */
int sk_matches_source(const sk_skill *sk, const char *text, size_t len, bool *out);

/* A kernel's text parsed once, for matching it against many skills: sk_matches_source
 * parses its text again for every skill it is asked about; a caller asking many skills
 * about one text (a plan, a check of every skill) parses it here once and asks
 * sk_matches_text and sk_prepare_text, which give sk_matches_source's and sk_prepare's
 * answers, errors included. */
typedef struct sk_text sk_text;

/* Copies text (len bytes; the caller's may go) and parses it. HK_OK with *out
 * (sk_text_free) also for a text that cannot be matched (NULL, over 16 MiB, no grammar):
 * sk_matches_text answers for it what sk_matches_source would. HK_ENOMEM (*out NULL). A
 * sk_text is read by one thread at a time (tree-sitter's trees are not shared across
 * threads); the skills may be any set's. */
int sk_text_new(const char *text, size_t len, sk_text **out);

/* Frees t; NULL is a no-op. */
void sk_text_free(sk_text *t);

/* sk_matches_source(sk, the text, its length, out) on t's one parse. A set's query is run
 * on t once for all its skills: t keeps which of its patterns matched (so t is written,
 * and the sets of the skills asked outlive t). */
int sk_matches_text(const sk_skill *sk, sk_text *t, bool *out);

/* sk_prepare(set, skills, n, the text, its length, err, errlen) on t's one parse. */
int sk_prepare_text(const sk_set *set, const sk_skill *const *skills, size_t n,
                    const sk_text *t, char *err, size_t errlen);

/* Metric values indexed by enum sk_metric; NAN for a value not known. */
typedef struct {
    double v[SK_M_COUNT];
} sk_metrics;

/* Sets every value to NAN. */
void sk_metrics_init(sk_metrics *m);

/* Whether the metric thresholds hold. A threshold on a value not known (NAN) does not
 * rule the skill out: the code condition and the class already point at it. */
bool sk_matches_metrics(const sk_skill *sk, const sk_metrics *m);

/* Evidence that the skill's change took effect. *out is true when
 *  - the skill has an evidence.sass regex and more lines of sass_after (the candidate's
 *    SASS or AMD ISA) match it than lines of sass_before (the baseline's; NULL: not
 *    available, counted as none), or
 *  - the skill has an evidence.metric and after's value moved in the stated direction
 *    from before's by more than 2% of before (both must be known; before/after may be
 *    NULL: not available).
 * Counting lines, not presence, matters: an accurate expf already has a MUFU.EX2, so only
 * a change in the count says the rewrite did something. *what (may be NULL) gets a static
 * "sass" or "metric" for what was found, NULL when nothing. HK_OK; HK_ENOMEM; HK_EINVAL
 * when the skill has no evidence at all (cannot happen for a loaded skill). Any thread. */
int sk_evidence_found(const sk_skill *sk, const char *sass_before, const char *sass_after,
                      const sk_metrics *before, const sk_metrics *after, bool *out,
                      const char **what);

/* Lines of text (SASS / ISA) matching the skill's evidence.sass regex (0 when the skill
 * has none or text is NULL; a line over 1023 bytes is matched on its first 1023).
 * Always HK_OK. */
int sk_evidence_sass_count(const sk_skill *sk, const char *text, size_t *count);

/* ---- where the skills live ---- */

/* The skills directory to use: $HK_SKILLS_DIR when set, else <dir of this executable>/
 * ../share/hyperkernel/skills when it exists, else the source tree's skills/
 * (HK_SOURCE_DIR). *out: new string (hk_free). HK_OK or HK_ENOMEM. */
int sk_default_dir(char **out);

#endif
