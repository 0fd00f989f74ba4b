/* The oracle: decides whether a candidate's outputs match the baseline's on the same
 * inputs (same size, seed and distribution), reading the output files the generated
 * harness writes (layout in hk_harness.h). Tolerance is per output, by dtype unless the
 * spec says otherwise; NaN or Inf never passes where the baseline is finite. Where the
 * kernel has an fp64 shadow (promote.h), both are also judged against its reference: the
 * candidate's error relative to the baseline's own (oracle_compare_ref64). Pure
 * functions, any thread. */
#ifndef HK_ENGINE_ORACLE_H
#define HK_ENGINE_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"

#define ORACLE_MAX_FILE (16ULL << 30) /* larger output files are refused */

typedef struct {
    uint32_t arg_index;
    int dtype;
    uint64_t count;
    const unsigned char *data; /* borrowed from the oracle_file's blob */
} oracle_output;

typedef struct {
    oracle_output *outputs;
    size_t n;
    unsigned char *blob; /* owned file contents */
} oracle_file;

typedef struct {
    bool pass;
    int arg_index;          /* output that failed first; for a pass, the worst one; -1 if none */
    long long first_bad;    /* first failing element of that output, -1 when none */
    size_t n_bad;           /* failing elements of that output */
    size_t n_nonfinite;     /* NaN/Inf where the baseline is finite, in that output */
    size_t n_widened;       /* elements, over all outputs, that passed only with the widening
                             * (oracle_compare_files_widened); 0 without it */
    bool l2_widened;        /* an output's relative L2 error passed only with it */
    double max_abs, max_rel, rel_l2; /* over all compared outputs */
    char reason[320];       /* one line: "ok ..." or why it failed */
} oracle_result;

/* Parses an output file held in memory; takes ownership of blob (hk_malloc'd, len
 * bytes) whatever the result. HK_OK, HK_EPARSE with a reason in err (bad magic,
 * version, dtype, truncated, trailing bytes), HK_ENOMEM. */
int oracle_parse(unsigned char *blob, size_t len, oracle_file *out, char *err, size_t errlen);

/* Reads and parses an output file. HK_OK, HK_ENOENT/HK_EIO (unreadable), HK_ETOOBIG,
 * HK_EPARSE, HK_ENOMEM; err gets a reason. */
int oracle_read(const char *path, oracle_file *out, char *err, size_t errlen);

void oracle_file_free(oracle_file *f);

/* Compares count elements of one output (dtype) with tolerance tol into r; fills every
 * field of r (arg_index -1; the caller sets it). Elements pass when
 * |c - b| <= atol + rtol * |b|; a baseline NaN needs a NaN, an Inf the same Inf; and
 * the relative L2 error ||c - b|| / ||b|| must be <= tol.l2 when tol.l2 > 0. */
void oracle_compare_buffer(int dtype, const void *base, const void *cand, size_t count,
                           spec_tolerance tol, oracle_result *r);

/* Compares every output of base with cand using the spec's per-argument tolerances
 * (s may be NULL: dtype defaults). Outputs must agree in number, argument, dtype and
 * count, else the candidate fails with that reason. Always HK_OK; the verdict is r->pass. */
int oracle_compare(const spec *s, const oracle_file *base, const oracle_file *cand, oracle_result *r);

/* oracle_compare on a distribution the referee added (spec.n_referee_dists): float outputs
 * must only agree in layout and have no NaN/Inf where the baseline is finite (their
 * accuracy is judged by the fp64 rule alone, oracle_ref64_judge); integer outputs keep the
 * spec's tolerance. Always HK_OK. */
int oracle_compare_precision(const spec *s, const oracle_file *base, const oracle_file *cand,
                             oracle_result *r);

/* Reads both files and compares. A baseline that cannot be read is an error
 * (HK_ENOENT/HK_EIO/HK_EPARSE, reason in r->reason); a candidate file that is missing or
 * malformed is a failed candidate (HK_OK, r->pass false). */
int oracle_compare_files(const spec *s, const char *baseline_path, const char *candidate_path,
                         oracle_result *r);

/* How far the comparison of one float output with the baseline widens: added to the
 * absolute tolerance, and to the relative L2 limit when the tolerance has one (both >= 0). */
typedef struct {
    double atol, l2;
} oracle_widen;

/* oracle_compare_buffer with the absolute tolerance widened by widen.atol and the L2 limit
 * (when tol has one) by widen.l2. Large buffers are compared on several threads, in fixed
 * blocks merged in order: the result does not depend on the thread count. */
void oracle_compare_buffer_widened(int dtype, const void *base, const void *cand, size_t count,
                                   spec_tolerance tol, oracle_widen widen, oracle_result *r);

/* oracle_compare_files with each float output's tolerance widened by widen[arg_index]
 * (HK_MAX_ARGS entries; NULL: none): where the baseline is itself that far from its fp64
 * shadow, a candidate as accurate as it may differ from it by as much (docs/accuracy.md,
 * "The widened tolerance"). r->n_widened counts the elements that needed it (and
 * r->l2_widened says whether an L2 limit did). */
int oracle_compare_files_widened(const spec *s, const char *baseline_path,
                                 const char *candidate_path, const oracle_widen *widen,
                                 oracle_result *r);

/* oracle_compare_files with oracle_compare_precision's rule. */
int oracle_compare_files_precision(const spec *s, const char *baseline_path,
                                   const char *candidate_path, oracle_result *r);

/* Element i of a buffer of dtype as a double (half and bfloat16 decoded exactly). */
double oracle_element(int dtype, const void *data, size_t i);

/* ---- the fp64-reference rule (docs/accuracy.md) ----
 * Baseline and candidate are both judged against a high-precision reference (the output
 * of the kernel's fp64 shadow, rewrites/promote.h, on the same inputs): the candidate's error
 * may be at most k times the baseline's own error plus a floor. Two errors, each relative
 * to the reference: the largest absolute error divided by max|ref| (a robust magnitude:
 * elementwise relative errors explode where the reference crosses zero), and the relative
 * L2 error ||x - ref|| / ||ref||. The spec's tolerance against the baseline stays a second,
 * independent rule: with a reference, a candidate must pass both. */

#define ORACLE_REF64_K 4.0 /* see oracle_default_rule */

typedef struct {
    double k;           /* the candidate's error may be k times the baseline's ... */
    double floor;       /* ... plus this (relative to the reference's magnitude) */
    spec_tolerance tol; /* the second rule: the spec's tolerance against the baseline */
} oracle_rule;

/* Defaults for an output of dtype: k = ORACLE_REF64_K; floor = 8 machine epsilons of the
 * dtype (fp32 2^-20 = 9.5e-7, fp64 2^-49 = 1.8e-15, fp16 2^-7, bf16 2^-4; 0 for integers);
 * tol = spec_default_tolerance(dtype). Why these: docs/accuracy.md. */
oracle_rule oracle_default_rule(int dtype);

/* Which rule decided a verdict. */
enum oracle_decider {
    ORACLE_BY_TOLERANCE = 1, /* the spec's tolerance against the baseline (no reference, or it
                              * rejected what the reference rule accepted) */
    ORACLE_BY_REF64,         /* the fp64 reference, error ratio (also every pass with a
                              * reference: both rules passed) */
    ORACLE_BY_EXACT,         /* integer output: equal to the baseline element for element */
    ORACLE_BY_NONFINITE,     /* NaN or Inf where the reference is finite */
};

/* "fp64 reference, error ratio", "tolerance vs baseline", "exact (integer output)",
 * "non-finite where the reference is finite"; static, never NULL. */
const char *oracle_decider_name(int decider);

/* The error of one output against the reference (value type). Several runs (seeds,
 * distributions) of the same output pool in oracle_ref64_judge. */
typedef struct {
    size_t n;                  /* elements compared: reference and output finite */
    size_t n_nonfinite;        /* output NaN/Inf where the reference is finite */
    long long first_nonfinite; /* -1 when none */
    size_t n_ref_nonfinite;    /* reference NaN/Inf: left to the tolerance rule */
    double ref_max;            /* max |ref| over compared elements */
    double max_abs;            /* max |x - ref| */
    long long worst;           /* index of max_abs, -1 when none */
    double sum_d2, sum_r2;     /* sum (x - ref)^2, sum ref^2 */
} oracle_ref64_err;

/* Error of n elements of x (dtype) against ref into *out. HK_OK; HK_EINVAL when a pointer
 * is NULL with n > 0 or dtype is unknown. */
int oracle_ref64_error(const double *ref, const void *x, int dtype, size_t n, oracle_ref64_err *out);

/* The two relative errors of e: max_abs / max|ref| and ||x - ref|| / ||ref|| (a reference
 * of zeros: the absolute error, the RMS for L2). */
void oracle_ref64_rel(const oracle_ref64_err *e, double *rel_max, double *rel_l2);

typedef struct {
    bool pass;
    int decided_by;            /* enum oracle_decider */
    bool ref64_pass, tol_pass; /* each rule's own verdict (true when it did not run) */
    double base_max, base_l2;  /* the baseline's relative errors (RMS over pooled runs) */
    double cand_max, cand_l2;  /* the candidate's */
    double limit_max, limit_l2;/* k * base + floor */
    double ratio;              /* worst of cand / limit over the two errors: <= 1 passes */
    size_t n_nonfinite;        /* candidate NaN/Inf where the reference is finite */
    long long worst;           /* candidate's element farthest from the reference; -1 */
    oracle_result tol;         /* the tolerance rule's own result (when it ran) */
    char reason[480];          /* one line: "ok (...)" or why it failed, naming the rule */
} oracle_ref64_result;

/* The reference rule over runs pooled results (base[i] and cand[i] are run i of the same
 * output; runs >= 1): each relative error is the root mean square over the runs, so that
 * one run where the baseline happened to land close to the reference (a scalar output's
 * error is a single random draw) does not set the bar alone. Fills out's ref64 fields,
 * pass and reason; tol_pass is true, decided_by ORACLE_BY_REF64 or ORACLE_BY_NONFINITE.
 * Integer dtypes: the candidate must match the reference exactly. rule NULL: defaults. */
void oracle_ref64_judge(int dtype, const oracle_ref64_err *base, const oracle_ref64_err *cand,
                        size_t runs, const oracle_rule *rule, oracle_ref64_result *out);

/* Outputs of at least this many elements are judged one combination at a time as well
 * (oracle_ref64_judge_groups; a combination whose own output is smaller, a scalar
 * included, over fewer than ORACLE_GROUP_MIN_RUNS_SMALL runs, stays pooled only): their max and L2 errors are stable from run to run, so the
 * pool's smoothing is not needed there, and without it a candidate could not put its error
 * where the baseline is accurate and have it hidden by the baseline's error elsewhere. */
#define ORACLE_GROUP_MIN_ELEMENTS 1024

/* A combination whose own output is smaller than ORACLE_GROUP_MIN_ELEMENTS is judged on its
 * own only over at least this many runs (the seeds k = 4 assumes: an F(5,5) ratio over 16
 * about 0.4% of the time); over fewer (the quick set's one run a combination) its errors
 * are one noisy draw each, as a scalar's, and it stays pooled only (session 49's review:
 * with one run, an honest candidate's RMS error exceeds 4x the baseline's on such an output
 * far more often). */
#define ORACLE_GROUP_MIN_RUNS_SMALL 5

/* A scalar output's runs (one element each; others are left as they are) relative to the
 * root mean square of their group's references (group[i]: run i's combination; NULL: one
 * group) instead of each to its own: the reference magnitude (ref_max, sum_r2) of each is
 * set to the group's RMS |ref|, in base and, where finite, in cand. A sum with cancellation
 * (dot on zero-mean inputs) has a reference near 0 in some runs, and there both relative
 * errors are large: each run relative to itself, that one run set both RMS errors, the
 * candidate's and the baseline's, and an honest reordering was judged on one noisy draw
 * (2026-12-07-judge-cpu-s51.md). Within a combination the references have one scale. */
void oracle_ref64_scalar_scale(oracle_ref64_err *base, oracle_ref64_err *cand, const int *group, size_t runs);

/* oracle_ref64_judge over all runs (a scalar's rescaled by oracle_ref64_scalar_scale),
 * then, when that passes, over each group of runs on its own (group[i]: run
 * i's combination of size and distribution, so that a group holds that combination's
 * seeds): the pool's limit is set by the baseline's RMS error over every combination, and
 * where the baseline is far less accurate on some (a larger size, a wider distribution),
 * a candidate up to sqrt(runs / group's runs) x k times the baseline's error on the others
 * passed it. out: the pool's result, or the first group's that fails; *failed: that
 * group's id and *failed_runs its runs (-1 and 0 when none failed; either may be NULL).
 * HK_OK, HK_ENOMEM (out then holds the pool's result). */
int oracle_ref64_judge_groups(int dtype, const oracle_ref64_err *base, const oracle_ref64_err *cand,
                              const int *group, size_t runs, const oracle_rule *rule,
                              oracle_ref64_result *out, int *failed, size_t *failed_runs);

/* ---- the exact-arithmetic rule (docs/accuracy.md, "The exact distribution") ----
 * On grid() inputs (oracle_add_grid_dist) sums and products are exact in float in any
 * order until they pass 2^24 quanta, so the baseline's error against the fp64 shadow can
 * be nothing, and then any error of the candidate's is its own. */

/* Whether the baseline is exact in every one of runs (> 0): both relative errors within
 * rule->floor (rule NULL: defaults), all elements finite. False for integer dtypes. */
bool oracle_ref64_base_exact(int dtype, const oracle_ref64_err *base, size_t runs,
                             const oracle_rule *rule);

/* The rule for the referee's grid distribution. Each group of runs (group[i]: run i's
 * combination; NULL: one group) where the baseline is exact (oracle_ref64_base_exact) is
 * judged on its own, scalars and small outputs included, each of its runs by itself (no RMS
 * over the group's runs: exactness is not a noisy draw, and an RMS over n runs let a
 * candidate off in one of them pass at up to sqrt(n) times the limit; since session 51), by
 * the usual limit (k times that run's baseline error plus the floor: the floor alone where
 * the baseline is exact to the bit).
 * The other groups' runs are judged together by oracle_ref64_judge_groups
 * (the usual rule). out: the first failure (exact groups first), else the highest ratio;
 * its reason says which case decided (HK_MSG_ORACLE_GRID_*). *failed, *failed_runs as in
 * oracle_ref64_judge_groups; *exact_groups (may be NULL): the groups judged exact. HK_OK,
 * HK_ENOMEM. runs 0: a pass with nothing judged. */
int oracle_ref64_judge_exact(int dtype, const oracle_ref64_err *base, const oracle_ref64_err *cand,
                             const int *group, size_t runs, const oracle_rule *rule,
                             oracle_ref64_result *out, int *failed, size_t *failed_runs,
                             size_t *exact_groups);

/* One run of one output: judges base and cand (n elements of dtype) against ref with the
 * reference rule (oracle_ref64_judge, one run), and against each other with rule->tol
 * (oracle_compare_buffer). pass needs both; decided_by names the rule that rejected (the
 * reference rule when both did), ORACLE_BY_REF64 for a pass. ref NULL: the tolerance rule
 * alone (ORACLE_BY_TOLERANCE). Integer dtypes: cand must equal base (ORACLE_BY_EXACT).
 * rule NULL: oracle_default_rule(dtype). HK_OK; HK_EINVAL for NULL buffers with n > 0 or an
 * unknown dtype (out->reason says so). */
int oracle_compare_ref64(const double *ref, const void *base, const void *cand, int dtype, size_t n,
                         const oracle_rule *rule, oracle_ref64_result *out);

/* Does distribution d give values that are not all integers (uniform with lo < hi, normal
 * with sigma > 0)? int(lo,hi), ones_sparse and zeros give integers only, grid(lo,hi)
 * multiples of a power of two: any float summation order is then exact and the oracle
 * cannot see precision lost. */
bool oracle_dist_exercises_precision(const hk_dist *d);

/* For each float input of s (input or inout buffers of a floating dtype): does some
 * distribution of it exercise precision? exercised (may be NULL) gets s->n_args entries,
 * true for those that do and for arguments that are not float inputs. An accumulator whose
 * every distribution is zeros does not count. Returns how many float inputs do not; when
 * that is > 0 and warning is not NULL, writes one line naming them (else ""). Pure. */
size_t oracle_precision_check(const spec *s, bool *exercised, char *warning, size_t wlen);

/* When some float input of harness-form spec s has only integer-valued distributions
 * (oracle_precision_check), appends one distribution of the referee's own: for each such
 * input uniform(lo, hi) over the range its distributions cover (ones_sparse and zeros count
 * as 0..1 and 0), for every other argument with distributions one of its own (the first
 * that exercises precision, else its first). s->n_referee_dists becomes 1, the added
 * entry's text is "uniform(lo,hi)" of the first such input, and note (may be NULL) gets a
 * line saying what was added and why ("" when nothing was). Idempotent; command-form specs
 * are left alone. HK_OK, HK_ENOMEM (s unchanged but for larger arrays). */
int oracle_add_precision_dist(spec *s, char *note, size_t len);

/* For harness-form spec s with a real-valued float input (a uniform or normal distribution
 * among the spec's own), appends the referee's exact-arithmetic distribution: each such
 * input (and __constant__ table) grid(lo, hi) over the range its distributions cover
 * (normal: mu -+ 2 sigma), every other argument its first distribution. The entry's text
 * is "grid(lo,hi)" of the first such input, s->n_referee_dists grows by one, note (may be
 * NULL) gets a line saying so ("" when nothing was added). After oracle_add_precision_dist
 * where both run; idempotent; command-form specs and specs whose float inputs are all
 * integer-valued are left alone. HK_OK, HK_ENOMEM (s unchanged but for larger arrays). */
int oracle_add_grid_dist(spec *s, char *note, size_t len);

/* Whether s has the referee's grid distribution (oracle_add_grid_dist). */
bool oracle_spec_has_grid(const spec *s);


/* ---- the sensitivity check (docs/accuracy.md "The sensitivity check") ----
 * A kernel that reads every element of its inputs answers a change of a few of them; one
 * that skips or samples work (tests/gpu/cheats/reduce_sum_grid_aware.cu) misses each
 * change in what it skips. The baseline gives the expected response, so no output needs
 * to be declared linear: on inputs x and x' (x with a few elements of every real-valued
 * input raised: hk_harness.h's hk_perturb_plan_kind, the ladder; and x'', the spread plan),
 * the candidate's change c(x') - c(x) must match the baseline's b(x') - b(x) element by
 * element (and so for x''):
 *     |dc - db| <= frac |db| + n,   n = max(2 tau s, t(b(x)_i) + t(b(x')_i)),
 *     s = max(|b(x)_i|, |b(x')_i|, max_k |b(x)_k|), t(b) = atol + w + rtol |b| (the spec's,
 *     w the referee's widening of that output, oracle_sens_check's widen)
 * (tau: a rounding allowance per run relative to the output's magnitude, far above any
 * summation order's error and far below a skipped share's: oracle_sens_default_rule; the
 * two runs' tolerances: a candidate within the spec's tolerance on both runs is within n,
 * so the check never rejects what the tolerance rule accepts on x and x'). A
 * baseline change is significant where |db| > sig n; the check counts only when some
 * element's is, else the amount is raised (up to ORACLE_SENS_TRIES amounts, at most
 * ORACLE_SENS_MAX_SCALE) or the check is skipped with a note. Integer outputs are not
 * judged. */

/* The amounts, in units of each input's magnitude (hk_perturb_plan's SCALE): 1 first; then
 * 4x what the strongest change seen asks for to be significant (a power of two, 4x to
 * 2^16x the last; 64x when nothing moved), at most ORACLE_SENS_MAX_SCALE. A sum over 2^24
 * elements of uniform(0, 1) needs about 2^19: 1, 64, then 2^20 (its float accumulator stays
 * under 2^24, where it would stall: at 2^24 the index-order baseline's own response is
 * 30% off and an honest pairwise sum was rejected against it, in this check's emulation
 * before the amount was bounded). */
#define ORACLE_SENS_TRIES 5
#define ORACLE_SENS_MAX_SCALE 4194304.0 /* 2^22 */

typedef struct {
    double tau;  /* rounding allowance per run, relative to s */
    double frac; /* share of the baseline's change the candidate may miss */
    double sig;  /* significant: |db| > sig * 2 * tau * s */
    double jitter; /* added to n: ORACLE_SENS_JITTER x the largest difference between two
                    * runs of the baseline on x (float atomics in another order), 0: none */
} oracle_sens_rule;
/* How many times the baseline's own run-to-run difference n allows (session 52): the change
 * compares four runs, two of each side, and a candidate's own order differs as much. */
#define ORACLE_SENS_JITTER 3.0

/* frac 0.02 (0.05 until session 52), sig 16; tau f32 2^-10, f64 2^-26, f16 2^-8,
 * bf16 2^-6; 0 for integers (not judged). */
oracle_sens_rule oracle_sens_default_rule(int dtype);

typedef struct {
    size_t n_significant; /* elements whose baseline change is significant */
    size_t n_nonfinite;   /* elements where b(x) is finite and b(x') is not */
    bool pass;            /* every element within its bound (c0, c1 given) */
    long long element;    /* the first element beyond its bound, -1 when none */
    double expected, got, bound; /* db, dc and the bound there */
    double worst;         /* largest |dc - db| / bound; 0 when none */
    double strongest;     /* largest |db| / (2 tau s): the change in units of the rounding */
} oracle_sens_result;

/* One output (count elements of dtype): the baseline's response b0 -> b1 and, when c0 and
 * c1 are given, the candidate's judged against it (rule NULL: the dtype's default; tol
 * NULL: no tolerance term, the rounding allowance alone). */
void oracle_sens_judge(int dtype, const void *b0, const void *b1, const void *c0, const void *c1,
                       size_t count, const oracle_sens_rule *rule, const spec_tolerance *tol,
                       oracle_sens_result *r);

enum oracle_sens_verdict {
    ORACLE_SENS_PASS = 1, /* the candidate's change matched the baseline's */
    ORACLE_SENS_FAIL,     /* insensitive: an element's change missed (arg_index, element) */
    ORACLE_SENS_SKIPPED,  /* not judged: note says why (no eligible input, a baseline
                           * response within noise at every amount, or not finite) */
};

/* One program run for the check: the baseline's (baseline true) or the candidate's, on x
 * (scale 0) or on x' at scale, raised by plan `kind` (hk_harness.h enum hk_perturb_kind: the
 * ladder, or the spread plan). HK_OK with *out filled (the caller frees it); a run that
 * failed returns ORACLE_SENS_RUN_FAILED with why (at most len bytes) in why; any other
 * value (HK_ECANCELED, HK_ENOMEM) ends the check with it. */
#define ORACLE_SENS_RUN_FAILED 1
typedef int (*oracle_sens_run_fn)(void *ctx, bool baseline, double scale, int kind, oracle_file *out,
                                  char *why, size_t len);

typedef struct {
    enum oracle_sens_verdict verdict;
    double scale;       /* the amount used, 0 when skipped; tried: the largest tried */
    double tried;
    int runs;           /* program runs made */
    int arg_index;      /* the output judged last (the failing one), -1 none */
    int kind;           /* FAIL: the plan whose change was missed (enum hk_perturb_kind) */
    long long element;  /* FAIL: the element */
    double expected, got, bound, worst; /* FAIL: db, dc, bound; worst ratio over outputs */
    double worst_kind[2]; /* worst ratio of each plan (enum hk_perturb_kind) */
    size_t n_significant; /* elements judged against a significant change */
    char note[400];     /* SKIPPED: why; FAIL by a failed run: the run's words */
} oracle_sens_outcome;

/* The check: the baseline on x, on x' (the ladder plan) from the smallest amount up until
 * its change is significant somewhere (a non-finite change, or none at the largest amount,
 * skips), and on x'' (the spread plan, hk_perturb_plan_kind) at that amount; then the
 * candidate on x, x' and x'', each change judged output by output with the spec's tolerance
 * of each (s NULL: the dtype's default, spec_default_tolerance) and its absolute part
 * widened by widen[arg].atol where the referee's comparison widens it (measure_widen_at at
 * the check's size and distribution; widen NULL: none), so that a candidate the widened
 * tolerance rule accepts on every run is never rejected here; n also holds
 * ORACLE_SENS_JITTER x the largest difference between two baseline runs on x, per output.
 * 2 + (1 to ORACLE_SENS_TRIES) + 1 baseline runs and 3 candidate runs. HK_OK (see out->verdict) or
 * the run callback's error. */
int oracle_sens_check(const spec *s, const oracle_widen *widen, oracle_sens_run_fn run, void *ctx,
                      oracle_sens_outcome *out);

#endif
