/* Command-form bench specs (docs/bench-spec-command.md): the user's own build and run
 * commands time a candidate. The workspace is copied to a private directory, the named
 * kernel's text is swapped in the copied source file, the build command runs there, and
 * the run command runs N times with the CUPTI injection library (tools/cupti/hk_cupti.c)
 * loaded through CUDA_INJECTION64_PATH. The program's exit status and its PASS/FAIL output
 * gate correctness; the time is the named kernel's device time from CUPTI activity records,
 * never the program's wall clock. Blocking calls for the episode worker process (children
 * go through the runner, stoppable); one thread. */
#ifndef HK_ENGINE_CMDFORM_H
#define HK_ENGINE_CMDFORM_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/measure.h"
#include "spec/spec.h"
#include "runners/runner.h"

#define CMDFORM_DEFAULT_RUNS 5
#define CMDFORM_MAX_RUNS 1000
#define CMDFORM_COPY_MAX_BYTES ((uint64_t)2 << 30) /* default cap on the copied workspace */
#define CMDFORM_COPY_MAX_FILES 200000               /* default cap on files copied */
#define CMDFORM_RECORDS_MAX_BYTES ((size_t)256 << 20) /* largest records file read */
#define CMDFORM_MAX_DETAILS 4096                      /* longest details text kept */
#define CMDFORM_LIB_NAME "libhk_cupti.so"

/* Outcome of one measurement. Names are stable (cmdform_status_name). */
enum cmdform_status {
    CMDFORM_OK = 0,
    CMDFORM_WORKSPACE_ERROR, /* "workspace_error": the copy failed or went over a cap, the
                              * source is outside the workdir or in a skipped directory */
    CMDFORM_SWAP_ERROR,      /* "swap_error": the kernel is not in the source or the candidate */
    CMDFORM_BUILD_ERROR,     /* "build_error": the build command failed (compiler lines kept) */
    CMDFORM_BUILD_TIMEOUT,   /* "build_timeout" */
    CMDFORM_RUN_FAILED,      /* "run_failed": the run command exited non-zero */
    CMDFORM_RUN_CRASHED,     /* "run_crashed": ended by a signal */
    CMDFORM_RUN_TIMEOUT,     /* "run_timeout" */
    CMDFORM_FAIL_OUTPUT,     /* "fail_output": fail_regex matched the output */
    CMDFORM_NO_PASS_OUTPUT,  /* "no_pass_output": pass_regex did not match */
    CMDFORM_RESOURCE_LIMIT,  /* "resource_limit": CPU, file size or memory limit hit */
    CMDFORM_NO_CUPTI,        /* "no_cupti": no injection library, it was never loaded (no GPU
                              * or no CUDA driver), or CUPTI refused to record */
    CMDFORM_NOT_LAUNCHED,    /* "not_launched": the named kernel never ran */
    CMDFORM_RECORDS_ERROR,   /* "records_error": records malformed, dropped or incomplete */
    CMDFORM_HOST_CODE,       /* "host_code": a whole-file candidate changes a line outside the
                              * kernel's definition (the first such line is quoted) */
};

/* Stable snake_case name (static, never NULL). */
const char *cmdform_status_name(enum cmdform_status st);
/* The episode's rejection reason for a status (build_error -> compile_error, run failures
 * and FAIL output -> wrong_answer, crashes -> crash, timeouts -> timeout, no_cupti ->
 * no_gpu, the rest -> harness_error). */
enum measure_reason cmdform_status_reason(enum cmdform_status st);

/* Options. Value struct, borrowed pointers; zero means "default". */
typedef struct {
    unsigned runs;                  /* run command executions timed; 0: CMDFORM_DEFAULT_RUNS */
    const char *cupti_lib;          /* libhk_cupti.so; NULL: the spec's cupti_injection, then
                                     * cmdform_cupti_find() */
    const char *tmp_dir;            /* where the private copy goes; NULL: $TMPDIR, else /tmp */
    uint64_t copy_max_bytes;        /* 0: CMDFORM_COPY_MAX_BYTES */
    size_t copy_max_files;          /* 0: CMDFORM_COPY_MAX_FILES */
    /* fnmatch patterns of directory and file names not copied (NULL-terminated); NULL: the
     * defaults (".git", ".hg", ".svn", "build", "build-*", "build_*", "cmake-build-*",
     * "__pycache__", ".cache") */
    const char *const *skip;
    unsigned timeout_ms;            /* build plus one run; 0: the spec's timeout_s */
    bool candidate_is_file;         /* the candidate is the whole new text of the source file
                                     * (default: a kernel definition that replaces the kernel's) */
    bool keep_workspace;            /* keep the copy (result.workspace names it) */
    enum runner_isolation isolation;/* AUTO: the strongest available */
    uint64_t memory_max;            /* per command, bytes; 0: none */
    size_t output_max;              /* per stream of a command; 0: 1 MiB */
    /* When *stop becomes non-zero, the running command's process group is killed and the
     * call returns HK_ECANCELED. May be NULL. */
    const volatile sig_atomic_t *stop;
    /* Adds the seconds the timed commands waited for the GPU lock (measure_opts.lock_wait_s);
     * may be NULL. */
    double *lock_wait_s;
} cmdform_options;

/* Kernel records of one run, for the named kernel. */
typedef struct {
    double kernel_ms;       /* sum of the named kernel's durations over every launch */
    unsigned launches;      /* how many launches that is */
    unsigned processes;     /* processes that loaded the injection library */
    unsigned other_kernels; /* launches of other kernels (not timed) */
    long wall_ms;           /* the run command's wall clock: reported, never used as the time */
} cmdform_run;

/* The outcome of cmdform_measure. Owns its strings and arrays (cmdform_result_clear). */
typedef struct {
    enum cmdform_status status;
    char *details;                /* status != OK: why, in words (compiler lines, output) */
    char *workspace;              /* the copy, when kept (keep_workspace, cmdform_ws_keep), else
                                   * NULL. Its parent directory also holds cupti/ (the library's
                                   * copy and the records run_N.jsonl); removing the parent
                                   * (measure_rmtree) is the caller's job */
    cmdform_run *runs;            /* n_runs entries: the runs that completed and passed */
    size_t n_runs;
    measure_timing timing;        /* over runs' kernel_ms: median, p10, p90, min, IQR/median
                                   * spread, reps = n_runs; flushed_l2 false (the program's
                                   * own behaviour), size 0 */
    double max_ms;
    char **kernel_names;          /* distinct record names matched (mangled as CUPTI gives) */
    size_t n_kernel_names;
    long copy_ms, build_ms;       /* wall clock of the copy and the build */
    uint64_t copied_bytes;
    size_t copied_files;
    const char *isolation_words;  /* static: what isolation the runner used */
} cmdform_result;

void cmdform_result_clear(cmdform_result *r);

/* Measures a command-form spec s (s->form == SPEC_FORM_COMMAND). kernel_text (len bytes)
 * is the candidate: a definition of s->kernel that replaces the source file's (or the whole
 * file text with o->candidate_is_file); NULL measures the baseline (the file as it is).
 * The user's workspace is never written. HK_OK when an outcome was reached (out->status,
 * details); HK_EINVAL (not a command-form spec, bad options), HK_ECANCELED, HK_ENOMEM.
 * *out is always initialized (cmdform_result_clear). */
int cmdform_measure(const spec *s, const char *kernel_text, size_t len, const cmdform_options *o,
                    cmdform_result *out);

/* ---- the same in steps: build once, run many times (interleaving) ---- */

/* A built private copy of the workspace for one candidate. Opaque. */
typedef struct cmdform_ws cmdform_ws;

/* Copy, swap and build: cmdform_measure without the runs. *out is initialized. HK_OK with
 * out->status CMDFORM_OK and *ws a built copy (cmdform_ws_free), or HK_OK with another
 * status (details say why; *ws NULL; with o->keep_workspace, out->workspace keeps the failed
 * copy); HK_EINVAL, HK_ECANCELED, HK_ENOMEM (*ws NULL). s and o's pointers are borrowed
 * until cmdform_ws_free. */
int cmdform_prepare(const spec *s, const char *kernel_text, size_t len, const cmdform_options *o,
                    cmdform_ws **ws, cmdform_result *out);

/* Runs the run command once more in ws and appends the run to out (the result of the
 * prepare call): out->runs, n_runs, kernel_names and the timing over every run so far. A
 * run that fails sets out->status and details ("run N: ..."), and further calls are
 * HK_EINVAL. HK_OK, HK_EINVAL, HK_ECANCELED, HK_ENOMEM. */
int cmdform_run_once(cmdform_ws *ws, cmdform_result *out);

/* The copy's directory (borrowed; valid until cmdform_ws_free). */
const char *cmdform_ws_dir(const cmdform_ws *ws);

/* Keeps the copy on disk after cmdform_ws_free; *dir: new string naming it (hk_free; its
 * parent holds cupti/, see cmdform_result.workspace). false on ENOMEM. */
bool cmdform_ws_keep(cmdform_ws *ws, char **dir);

/* Removes the copy (unless kept) and frees ws; NULL is a no-op. */
void cmdform_ws_free(cmdform_ws *ws);

/* New reference: the result as JSON {"status", "reason" (cmdform_status_reason's name),
 * "details", "timer": "cupti", "runs": [{"kernel_ms", "launches", "processes",
 * "other_kernels", "wall_ms"}], "kernel_names", "median_ms", "p10_ms", "p90_ms", "min_ms",
 * "max_ms", "spread" (null when not measured), "build_ms", "copy_ms", "copied_bytes",
 * "copied_files", "isolation"}; NULL on ENOMEM. */
json_t *cmdform_result_json(const cmdform_result *r);

/* ---- the steps, for callers and tests ---- */

/* Copies the tree at src_dir into dst_dir (created; must not exist yet): regular files
 * with their mode and times, symlinks as links, directories; other file types and names
 * matching o's skip patterns are left out. HK_OK; HK_ETOOBIG over a cap, HK_EIO,
 * HK_ENOENT (src_dir missing), HK_EINVAL (dst inside src), HK_ENOMEM -- with a sentence in
 * *why (new string, hk_free; may be NULL on ENOMEM) on failure. *bytes and *files (either
 * may be NULL) count what was copied. o may be NULL (defaults). */
int cmdform_copy_tree(const char *src_dir, const char *dst_dir, const cmdform_options *o,
                      uint64_t *bytes, size_t *files, char **why);

/* True when the file or directory name matches o's skip patterns (or the defaults). */
bool cmdform_skipped(const cmdform_options *o, const char *name);

/* Swaps the definition of kernel in text (len bytes) for the candidate's: the candidate
 * (clen bytes) is analysed and its definition of kernel (template prefix included) replaces
 * the source's first definition with a body. Both are found with the analysis module.
 * *out: new text (hk_free), *out_len its length. HK_OK; HK_ENOENT (kernel not defined in
 * text or candidate, sentence in *why), HK_ETOOBIG, HK_ENOMEM. */
int cmdform_swap_kernel(const char *text, size_t len, const char *kernel, const char *cand,
                        size_t clen, char **out, size_t *out_len, char **why);

/* Checks that cand (clen bytes, a whole file) differs from base (blen bytes, the file it
 * replaces) only inside the definition of kernel: the analysis model's span of the first
 * definition with a body in each (template prefix and __launch_bounds__ included). Every
 * byte before and after it must be the same, because a constant outside the kernel (a
 * radius, a size) can change what the program computes and what its own check expects.
 * HK_OK with *line 0 and *why NULL when only the definition differs; HK_OK with *line the
 * first changed line outside it (1-based, in the candidate; in base when the candidate
 * lost that line) and *why a sentence quoting it (new string, hk_free); HK_ENOENT when
 * either text lacks the definition (*why says which); HK_ENOMEM. */
int cmdform_check_outside_kernel(const char *base, size_t blen, const char *cand, size_t clen,
                                 const char *kernel, unsigned *line, char **why);

/* Reads a records file written by libhk_cupti.so (JSON lines) and totals the launches of
 * kernel (matched by its unqualified name without template arguments, from the demangled
 * record name; extern "C" names as they are) into *run (wall_ms untouched). names (may be
 * NULL) collects distinct matched record names (new strings, appended; *n_names updated;
 * caller frees each and the array with hk_free). On a problem the status says which
 * (CMDFORM_NO_CUPTI: no file, no init line, or a CUPTI error line; CMDFORM_RECORDS_ERROR:
 * malformed line, dropped records, a process without its exit line, end before start;
 * CMDFORM_NOT_LAUNCHED) with a sentence in *why (new string, hk_free). HK_OK with
 * *status set; HK_ENOMEM. */
int cmdform_records_read(const char *path, const char *kernel, cmdform_run *run, char ***names,
                         size_t *n_names, enum cmdform_status *status, char **why);

/* cmdform_records_read, and every line must carry "nonce": nonce (the value the run put in
 * the injection library's environment as HK_CUPTI_NONCE, which the library removes before
 * the program's own code can read it again): a line without it is CMDFORM_RECORDS_ERROR
 * ("forged or replayed"). nonce NULL: no such check. */
int cmdform_records_read_nonce(const char *path, const char *kernel, const char *nonce,
                               cmdform_run *run, char ***names, size_t *n_names,
                               enum cmdform_status *status, char **why);

/* Correctness gate of one run's result r against s's regexes: exit status 0, no signal,
 * no timeout, pass_regex matched (when given) and fail_regex not matched, over stdout and
 * stderr (POSIX extended, ^ and $ at line ends). *status CMDFORM_OK or the failure with a
 * sentence in *why (new string, hk_free) quoting the output. HK_OK, HK_EINVAL (a regex
 * that does not compile), HK_ENOMEM. */
int cmdform_gate(const spec *s, const runner_result *r, enum cmdform_status *status, char **why);

/* The first lines worth showing from a failed build's output: from the first line that
 * says "error" (else the start), at most max_lines lines. New string (hk_free) or NULL on
 * ENOMEM. */
char *cmdform_first_lines(const char *text, size_t len, unsigned max_lines);

/* ---- the injection library ---- */

/* Where libhk_cupti.so is: $HK_CUPTI_LIB, then next to the running executable, then
 * ../lib from it. *out: new string (hk_free). HK_OK, HK_ENOENT, HK_ENOMEM. */
int cmdform_cupti_find(char **out);

/* The injection library's source in this tree (static string: HK_SOURCE_DIR/tools/cupti/
 * hk_cupti.c). */
const char *cmdform_cupti_source(void);

/* Compiles the injection library from src (NULL: cmdform_cupti_source()) into out_path
 * with the C compiler cc (NULL: $CC, else "cc") against CUPTI under cuda_home (NULL:
 * $CUDA_HOME, else /usr/local/cuda): -shared -fPIC -fvisibility=hidden, linked with
 * -lcupti (rpath to CUPTI's directory). Blocking, timeout_ms (0: 120000). HK_OK;
 * HK_ENOENT (no cupti.h or libcupti under cuda_home), HK_ECHILD (the compile failed: *log
 * holds its output), HK_ETIMEDOUT, HK_ENOMEM. *log (may be NULL): new string (hk_free). */
int cmdform_cupti_build(const char *src, const char *out_path, const char *cc, const char *cuda_home,
                        unsigned timeout_ms, char **log);

#endif
