/* Engine v2's strategy input: the skills that fit one kernel, turned into the structural
 * rewrites the search tries (search_struct), best first -- rewrites that replace a matched
 * algorithm (transpose, reductions, histogram, softmax, layernorm, GEMM) before the
 * others, and within each the skills of the kernel's bottleneck class (its roofline
 * position) in their record order, then the other classes' -- each skill expanded into
 * choices of its parameters. */
#ifndef HK_ENGINE_SKILLPLAN_H
#define HK_ENGINE_SKILLPLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "rewrites/registry.h"
#include "search/search.h"
#include "skills/skills.h"

/* Most parameter choices taken from one skill: its first choice (every parameter at
 * its first value), then one parameter at a time moved to its other values (a skill with
 * `launch_pairs: [1]` moves block_size and blocks_per_sm together, pair by pair, first). */
#define SKILLPLAN_CHOICES 6

typedef struct {
    search_struct *v;      /* strings borrowed from the skill set (which must outlive it) */
    size_t n;
    const sk_skill **used; /* the skills that gave at least one choice, in order */
    size_t n_used;
} skillplan;

/* The class of a kernel from its roofline position (evidence_roofline fields):
 * compute-bound when its intensity is past the ridge; otherwise memory-bound, or
 * latency-bound when it reaches under 20% of its roof (neither bandwidth nor compute
 * limits it). pct_of_bound NAN (no peaks, no timing): SK_CLASS_COUNT (unknown). */
enum sk_class skillplan_class(bool compute_bound, double pct_of_bound);

/* The class the spec's formulas alone imply, before anything is measured: FLOP per byte
 * below SKILLPLAN_RIDGE_LOW is memory-bound and above SKILLPLAN_RIDGE_HIGH compute-bound on
 * every GPU the engine targets (their FP32 ridge points lie between the two: about 10
 * FLOP/byte for an A100, 14 for an H100/H200, 17 for a V100, 19 for an MI100); between them
 * it depends on the device, and NAN (no formulas) is unknown: SK_CLASS_COUNT. A kernel's
 * latency-bound shape shows only in a measurement, so it is never returned. */
#define SKILLPLAN_RIDGE_LOW 2.0
#define SKILLPLAN_RIDGE_HIGH 40.0
enum sk_class skillplan_static_class(double flop_per_byte);

/* The plan for kernel_text (the kernel's own source: its definition) on arch: skills
 * whose hardware matches, whose code condition matches the text and whose metric
 * thresholds hold for mt (NULL: none known); algorithm replacements first, and within
 * them and the rest class cls first (SK_CLASS_COUNT: no class first). Rewrites the search already covers as axes (launch_bounds, restrict,
 * set_tunable, grid_stride) and ones the engine lacks (blas_substitution) are left out.
 * A lazy set (sk_load_dir_lazy) compiles the queries the plan needs first, together
 * (skillplan_prepare). HK_OK (out may be empty), HK_ENOMEM, or HK_EINVAL when a lazy set's
 * needed query does not compile. */
/* For a lazy set (sk_load_dir_lazy): compiles, as one query, the queries of the skills
 * for arch that a plan on kernel_text would ask and that could match it (sk_prepare); a
 * no-op for an eager set. skillplan_build_for does it itself; a caller that wants the
 * error apart (err, errlen: the files whose queries do not compile) calls it first.
 * HK_OK, HK_ENOMEM, HK_EINVAL. Any thread. */
int skillplan_prepare(const sk_set *set, const char *arch, const char *kernel_text, size_t len,
                      char *err, size_t errlen);

int skillplan_build(const sk_set *set, const char *arch, enum sk_class cls, const sk_metrics *mt,
                    const char *kernel_text, size_t len, skillplan *out);

/* skillplan_build for the kernel of ctx (its whole text, model and kernel index; the spec
 * when known): an algorithm replacement's skill whose code condition does not match the
 * text still fits when its rewrite applies to the kernel at the skill's first choice (the
 * kernel model recognizes index variables, macros and helper types no query names). ctx
 * NULL: skillplan_build. HK_OK, HK_ENOMEM, or HK_EINVAL (a lazy set's query). */
int skillplan_build_for(const sk_set *set, const char *arch, enum sk_class cls,
                        const sk_metrics *mt, const char *kernel_text, size_t len,
                        const rw_context *ctx, skillplan *out);

void skillplan_free(skillplan *p);

#endif
