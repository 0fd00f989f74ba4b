/* Memory safety (issue 12): compute-sanitizer's memcheck, racecheck and initcheck on a
 * candidate's benchmark program, each one run-mode process (one input combination at the
 * spec's smallest size), and a verdict from the tool's exit status and its first finding.
 * The parser and the judging of one tool's run are pure functions on the tool's text (unit
 * tested on recorded output, tests/data/sanitize/); sanitize_candidate runs the tools
 * through measure.c's runner (GPU lock, sandbox, limits, stop). Blocking, one thread: the
 * episode worker and `hkls verify-candidate`. docs/sanitizer.md says what each tool can and
 * cannot see in our harness. */
#ifndef HK_ENGINE_SANITIZE_H
#define HK_ENGINE_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "measure/measure.h"

/* --error-exitcode: the tool exits with it when it found something, and with the program's
 * own status otherwise (--check-exit-code no), so "found" and "the program failed" differ.
 * No generated program exits 86 (hk_harness.h uses 0-8). */
#define SANITIZE_EXIT_FOUND 86
/* A candidate claiming more than this speedup is sanitized when it is judged, not only when
 * it becomes the best. */
#define SANITIZE_CLAIM_SPEEDUP 2.0
/* One tool's run, wall clock. The tools run 10-100x slower than the program; a run past it
 * is "not checked", not a rejection. $HK_SANITIZE_TIMEOUT_S overrides. */
#define SANITIZE_TIMEOUT_MS (300u * 1000u)
/* One tool's run at the timed size (sanitize_opts.timed), wall clock: a single launch at the
 * size the speedup is measured at, where a kernel that is safe only at small sizes races
 * (tests/gpu/cheats/size_race.cu). $HK_SANITIZE_TIMED_S overrides. A run past it is
 * incomplete (no credit over 2x), like any tool's timeout. */
#define SANITIZE_TIMED_TIMEOUT_MS (300u * 1000u)
/* Above this many elements in the largest buffer the note says the run was large. */
#define SANITIZE_LARGE_ELEMENTS (1ll << 22)
#define SANITIZE_TEXT_MAX 1024
/* Environment given to the program under the tool: the harness allocates its buffers as in
 * every other run (guard zones included: the same addresses, so a kernel cannot tell the
 * tool's run from a timed one by its pointers) and declares each buffer's data to the tool as
 * its allocation's only valid region (NVTX memory API), so memcheck sees the real bounds
 * (docs/sanitizer.md). Before session 38 it was HK_GUARD_ZONES=0: exact allocations. */
#define SANITIZE_GUARD_ENV "HK_TOOL_REGIONS=1"

enum sanitize_tool {
    SANITIZE_MEMCHECK = 0,
    SANITIZE_RACECHECK,
    SANITIZE_INITCHECK,
    SANITIZE_N_TOOLS
};

/* "memcheck", "racecheck", "initcheck" (static). */
const char *sanitize_tool_name(enum sanitize_tool t);
/* What a finding of tool t rejects with: out_of_bounds, race, uninitialized. */
enum measure_reason sanitize_tool_reason(enum sanitize_tool t);
/* The tool's options, put between compute-sanitizer and the program (static,
 * NULL-terminated). */
const char *const *sanitize_tool_flags(enum sanitize_tool t);

/* ---- the tool's text (pure) ---- */

/* What one run's output says. Plain value; strings are NUL-terminated, cut to fit. */
typedef struct {
    int errors;                      /* from the summary line ("ERROR SUMMARY: N errors";
                                      * racecheck: its errors plus warnings); -1: no summary
                                      * (the run was cut short) */
    bool found;                      /* a finding was printed */
    bool warning;                    /* it is the tool's "Warning:" (racecheck) */
    char finding[SANITIZE_TEXT_MAX]; /* the first finding on one line: its header, then its
                                      * detail lines ("at KERNEL+PC in FILE:LINE", "by thread
                                      * ...", "Access to ... is out of bounds", "and Read
                                      * access at ...") joined by "; "; backtraces left out */
    char location[256];              /* FILE:LINE of its first "at" line; "" when absent */
    int shown;                       /* findings printed (each "Error:"/"Warning:" report) */
    char sites[SANITIZE_TEXT_MAX];   /* every FILE:LINE any printed finding names (headers and
                                      * detail lines, backtraces left out), one per line,
                                      * each once */
    bool sites_cut;                  /* sites could not hold them all */
    char tool_error[SANITIZE_TEXT_MAX]; /* the tool's own failure ("Error: Target application
                                      * terminated ...", "unrecognised option ...", "Internal
                                      * Sanitizer Error ..."); "" when none */
} sanitize_report;

/* Parses compute-sanitizer's text (stdout and stderr together, the program's lines mixed
 * in; lines of the default "=========" prefix; NULL is empty). Never fails. */
void sanitize_parse(const char *text, sanitize_report *out);

enum sanitize_status {
    SANITIZE_NOT_RUN = 0, /* not run: an earlier tool rejected, or timed out */
    SANITIZE_CLEAN,       /* ran to its end without a finding */
    SANITIZE_FOUND,       /* a finding (also one printed before a timeout): rejected */
    SANITIZE_FAILED,      /* the program failed under the tool without a finding, for a reason
                           * of its own (cuda_error, crash, unwritten_output, out_of_bounds of
                           * the guard zones, ...): rejected with that reason -- a candidate
                           * must not escape the check by failing only when instrumented */
    SANITIZE_NOT_CHECKED, /* the tool could not check: its own error, a resource limit, the
                           * program refusing to start (no_gpu, spec_mismatch, harness_error) */
    SANITIZE_TIMED_OUT,   /* past the timeout without a finding: not checked */
    SANITIZE_INHERITED,   /* a finding the original kernel has too, on source lines it has
                           * word for word (sanitize_opts.baseline): not the candidate's
                           * doing, so not a rejection; the note quotes it */
};

/* One tool's outcome. Plain value. */
typedef struct {
    enum sanitize_tool tool;
    enum sanitize_status status;
    enum measure_reason reason;   /* FOUND and FAILED: the rejection's reason; else MEASURE_OK */
    char text[SANITIZE_TEXT_MAX + 128]; /* FOUND: the finding; else why, in words; "" CLEAN */
    long wall_ms;
    /* FOUND: every source line the printed findings name (sanitize_report.sites), and
     * whether they are all the tool found (the print limit not reached, the summary's count
     * printed, sites not cut): a finding can be judged the original's only then */
    char sites[SANITIZE_TEXT_MAX];
    int shown;
    bool all_seen;
    bool net_only; /* run in the network-only sandbox: the tool could not launch its target
                    * inside the namespace sandbox (sanitize_run_tool) */
    long errors;   /* the tool's own count (its summary line, sanitize_report.errors); -1 none */
    bool by_signature; /* INHERITED by memcheck's signatures (sanitize_sigs_within), not by
                        * the lines the findings name */
    /* TIMED_OUT or NOT_CHECKED for a cause of the candidate's own run under the tool: its
     * time limit, a CPU or memory limit, the program's own timeout or resource limit, a
     * signal that ended the tool. Not: the tool missing, failing by itself or unable to
     * start the program (no_gpu, spec_mismatch, harness_error), which no kernel causes. */
    bool incomplete;
    bool cut;      /* the run was stopped at its time limit (TIMED_OUT, or FOUND with what it
                    * printed before): it did not run to its end */
} sanitize_tool_result;

/* Pure: the outcome of one tool's run from how it ended (exit_code -1 with term_signal for
 * a signal; timed_out: killed at timeout_ms) and its text (may be NULL). The rules, in
 * order: a printed finding (unless the summary counts none) is FOUND; exit 86 without one
 * is FOUND with the tool's first lines; a timeout is TIMED_OUT; exit 0 is CLEAN; the tool's
 * own error, exit 255, a signal, or a program exit meaning "could not start" is
 * NOT_CHECKED; any other exit is FAILED with the program's reason (its JSON message kept). */
void sanitize_judge(enum sanitize_tool tool, int exit_code, int term_signal, bool timed_out,
                    unsigned timeout_ms, const char *text, sanitize_tool_result *out);

/* ---- memcheck's findings by signature (pure) ---- */

/* An original kernel that reads out of bounds more often than the judged run prints (Rodinia's
 * srad1: ~49 K reads of the row above the first and below the last, session 26) cannot have its
 * findings credited line by line: the unprinted ones are unseen. So memcheck's findings are
 * also compared by what each access is, in terms no thread mapping changes and no candidate
 * can claim without making that very access: its kind ("Invalid __global__ read"), its size,
 * the size of the allocation it falls near and its offset from that allocation's start (the
 * access's address less the allocation's, both printed in one report, so the address space's
 * placement drops out). The original's findings and the candidate's are multisets of these;
 * the candidate's are the original's when every one was printed (the tool's ERROR SUMMARY
 * counts as many as it printed, none "were not printed", each one signed) on both sides and
 * each signature occurs in the candidate at most as often as in the original. A candidate
 * with an access of its own, the same access more often, or more findings than the original
 * is rejected; an unseen finding is never credited. Two allocations of one size are not told
 * apart (the harness allocates the spec's buffers; the report names no buffer). */
#define SANITIZE_SIG_MAX_FINDINGS 262144L /* the judged run's print limit at most */
#define SANITIZE_SIG_KINDS 16
#define SANITIZE_SIG_KIND_MAX 48

typedef struct {
    unsigned kind;                 /* index into sanitize_sigs.kinds */
    unsigned size;                 /* bytes accessed */
    unsigned long long alloc_size; /* the nearest allocation's size in bytes */
    long long offset;              /* the access's address less the allocation's */
    long count;                    /* how many findings have it; 0: an empty slot */
} sanitize_sig;

/* One memcheck run's findings as a multiset of signatures, and its counts. Fed line by line
 * (sanitize_sigs_line) so that a run printing 10^5 findings is never held as text.
 * sanitize_sigs_init, then sanitize_sigs_free. */
typedef struct sanitize_sigs {
    long printed;    /* finding reports printed */
    long errors;     /* the ERROR SUMMARY's count; -1: no summary line (the run was cut) */
    long unprinted;  /* "ERROR SUMMARY: N errors were not printed"; 0 when absent */
    long unsigned_n; /* printed findings without a signature (no "Access to" address, no
                      * nearest allocation, not a __global__ access, too many kinds) */
    bool overflow;   /* more than SANITIZE_SIG_MAX_FINDINGS printed: not all kept */
    char kinds[SANITIZE_SIG_KINDS][SANITIZE_SIG_KIND_MAX];
    unsigned n_kinds;
    sanitize_sig *slots; /* open addressing, cap a power of two */
    size_t cap, n;       /* slots, and distinct signatures in them */
    char first[SANITIZE_TEXT_MAX]; /* the first finding on one line (header; details) */
    /* the report being read */
    bool open, has_addr, has_base, has_size;
    char cur_kind[SANITIZE_SIG_KIND_MAX];
    unsigned cur_size;
    unsigned long long addr, base, alloc_size;
} sanitize_sigs;

void sanitize_sigs_init(sanitize_sigs *s);
void sanitize_sigs_free(sanitize_sigs *s);
/* One line of the tool's text (len bytes, no newline; lines without the "=========" prefix
 * are the program's and are skipped). HK_OK, HK_ENOMEM. */
int sanitize_sigs_line(sanitize_sigs *s, const char *line, size_t len);
/* Closes the report being read (after the last line). HK_OK, HK_ENOMEM. */
int sanitize_sigs_end(sanitize_sigs *s);
/* The whole text, line by line, then sanitize_sigs_end; s is initialised here. */
int sanitize_sigs_parse(const char *text, sanitize_sigs *s);
/* Whether every finding the tool counted was printed and signed: a summary, as many printed
 * as it counts, none "not printed", none without a signature, no overflow. */
bool sanitize_sigs_complete(const sanitize_sigs *s);
/* Whether cand's findings are base's: both complete, cand counts no more than base, and each
 * of cand's signatures occurs in base at least as often. false with why (may be NULL) saying
 * what is not, e.g. "a 4-byte Invalid __global__ read 4 bytes before an allocation of
 * 4000012 bytes, which the original kernel does not make". */
bool sanitize_sigs_within(const sanitize_sigs *base, const sanitize_sigs *cand, char *why,
                          size_t why_len);

/* ---- which candidates (pure) ---- */

/* Whether a candidate gets the tools: always when it is to become the accepted best
 * (best) or when asked (forced: --sanitize), and when it claims more than
 * SANITIZE_CLAIM_SPEEDUP; never twice for one program (already). */
bool sanitize_wanted(bool best, bool forced, double claimed_speedup, bool already);

/* ---- running the tools ---- */

/* --print-limit of a candidate judged against the original's findings (sanitize_opts
 * .baseline): every finding it prints must be the original's, and one at this limit means
 * some were not printed, so none is judged the original's. Every other run prints 1. */
#define SANITIZE_JUDGE_PRINT_LIMIT 64

typedef struct {
    const char *tool;      /* compute-sanitizer's path; NULL: sanitize_find_tool() */
    unsigned timeout_ms;   /* per tool; 0: $HK_SANITIZE_TIMEOUT_S, else SANITIZE_TIMEOUT_MS */
    const char *unchecked; /* when set, nothing runs: the note is "not checked (<this>)"
                            * (e.g. "simulated GPU", "DCU target: compute-sanitizer is
                            * NVIDIA-only") */
    /* The original kernel's own findings. SHOC's reduce ends in a warp-synchronous tree
     * without __syncwarp, which racecheck reports; every rewrite of its first loop kept
     * that tail and was rejected for it on the H200. With baseline (the baseline program's
     * result, every tool run: all_tools) and both texts, a tool's finding in the candidate
     * is INHERITED, not a rejection, when the same tool found something in the baseline
     * and every source line the finding names ("in FILE:LINE") reads, trimmed, as some
     * line of the baseline's text. NULL: every finding rejects. */
    const struct sanitize_result *baseline;
    const char *base_text, *cand_text;
    size_t base_len, cand_len;
    bool all_tools;        /* every tool runs, also after a finding (for the baseline) */
    /* For the baseline: when memcheck finds something, it runs once more printing all its
     * findings (print limit: its count + 1, at most SANITIZE_SIG_MAX_FINDINGS) into a log
     * file, read into sanitize_result.sigs. A candidate judged against a baseline with sigs
     * (sanitize_opts.baseline) runs memcheck the same way, and its findings are INHERITED
     * when sanitize_sigs_within(baseline's, its own) holds, or by the line rule above. */
    bool signatures;
    /* The pass at the timed size: one run-mode launch at size (the baseline's primary size,
     * measure_baseline.primary_size; no timing loop) instead of the smallest size, each tool
     * under $HK_SANITIZE_TIMED_S (else SANITIZE_TIMED_TIMEOUT_MS; timeout_ms still wins).
     * A rejection's details say the size ("compute-sanitizer racecheck at the timed size 1:
     * ..."). false: the smallest size, as before. */
    bool timed;
    int size;
} sanitize_opts;

enum sanitize_outcome {
    SANITIZE_PASSED = 0,   /* every tool ran to its end without a finding */
    SANITIZE_REJECTED,     /* reason and details say why */
    SANITIZE_UNCHECKED,    /* not (fully) checked: the note says which tool and why */
};

/* The outcome for one candidate. Owns details and note (sanitize_result_clear). */
typedef struct sanitize_result {
    enum sanitize_outcome outcome;
    enum measure_reason reason;  /* REJECTED: out_of_bounds, race, uninitialized, or the
                                  * program's own (FAILED); else MEASURE_OK */
    char *details;               /* REJECTED: "compute-sanitizer racecheck: Error: Race
                                  * reported between ..."; else NULL */
    char *note;                  /* always (after HK_OK): one line for the report,
                                  * "memory safety: ..." */
    sanitize_tool_result tools[SANITIZE_N_TOOLS];
    int size, dist;              /* the combination run (size index, distribution) */
    long long seed;
    long long elements;          /* elements in the largest buffer at that size; -1 unknown */
    char tool_path[512];         /* the compute-sanitizer used; "" when none */
    sanitize_sigs *sigs;         /* memcheck's findings by signature (sanitize_opts.signatures,
                                  * or a candidate judged by them); NULL when not collected */
    bool incomplete;             /* UNCHECKED because a tool's check could not complete for a
                                  * cause of the candidate's own run (tools[].incomplete) */
    bool timed;                  /* this is the pass at the timed size (sanitize_opts.timed) */
    struct sanitize_result *at_timed; /* the pass at the timed size that followed this one
                                  * (sanitize_result_add_timed), owned; NULL: none ran */
} sanitize_result;

void sanitize_result_clear(sanitize_result *r);

/* Whether the pass at the timed size should follow r, the smallest size's: the tools ran
 * (a tool was found, nothing "unchecked" by option), r did not reject, no tool's run was
 * cut by the candidate's own doing (r->incomplete: the timed size is slower still), and
 * timed_size differs from r's size. Pure. */
bool sanitize_timed_wanted(const sanitize_result *r, int timed_size);

/* Folds the timed size's pass into r (the smallest size's), taking what *timed owns
 * (*timed is zeroed): a rejection there is r's rejection (reason, details), a check that
 * could not complete there makes r UNCHECKED (and incomplete when it was the candidate's
 * doing), and r's note is written again to say both sizes. r->at_timed keeps the pass.
 * HK_OK, HK_ENOMEM. */
int sanitize_result_add_timed(sanitize_result *r, sanitize_result *timed);

/* ---- the credit of a claim the tools could not check (pure) ----
 * A kernel can make itself slow, or heavy, only under the tool (spinning on a value only the
 * tool's allocator leaves, or simply on the tool's size) so that the check runs past its
 * limit; "not checked" must then not leave it an unchecked win. The rule: a candidate whose
 * check could not complete (sanitize_result.incomplete) is not credited a speedup over
 * SANITIZE_CLAIM_SPEEDUP, the claim that made the check required (docs/sanitizer.md, "When a
 * check cannot complete"). A slower one keeps its place, with the note saying what was not
 * checked. The tool missing or unable to start (incomplete false) is the machine's doing and
 * the same for every candidate: the note says so, the credit stands. */

/* Whether r leaves a claim of claimed_speedup creditable. */
bool sanitize_credit_allowed(const sanitize_result *r, double claimed_speedup);

/* When sanitize_credit_allowed is false: why, in words for the report (the tool and what
 * stopped it, the claim and the rule). New string; NULL on ENOMEM. */
char *sanitize_credit_note(const sanitize_result *r, double claimed_speedup);

/* compute-sanitizer's path: $HK_COMPUTE_SANITIZER when set ("off": HK_ENOENT, why says it
 * was turned off), else the CUDA toolkit's (cc_find_tool: PATH, CUDA_HOME, CUDA_PATH,
 * /usr/local/cuda/bin, then <toolkit>/compute-sanitizer/). *out: new string. why (may be
 * NULL) gets the reason on HK_ENOENT, e.g. "compute-sanitizer not found". HK_OK, HK_ENOENT,
 * HK_ENOMEM. */
int sanitize_find_tool(char **out, char *why, size_t why_len);

/* Runs memcheck, then racecheck, then initcheck on p's program (o->spec's smallest size, or
 * so->size with so->timed; its first distribution, seed = the first seed + 2000, run mode,
 * one launch, no output file), each
 * under so's timeout, stopping at the first rejection or timeout; p->block is kept. The
 * program runs in its own directory, with o's isolation and wrapper (the tool goes before
 * the wrapper) and SANITIZE_GUARD_ENV. No tool, or so->unchecked: UNCHECKED without
 * running anything. HK_OK when out says what happened; HK_ECANCELED (stopped), HK_ENOMEM,
 * HK_EINVAL (no spec or no program). */
int sanitize_candidate(const measure_opts *o, const sanitize_opts *so, const measure_prog *p,
                       sanitize_result *out);

/* New reference: r as evidence JSON {"outcome", "reason", "note", "size", "seed", "dist",
 * "elements", "tool", "tools": [{"tool", "status", "text", "wall_ms"}], and "timed": the
 * timed size's pass in the same form when one ran}; NULL on ENOMEM. */
json_t *sanitize_result_json(const sanitize_result *r);

#endif
