/* The episode: one optimization of one kernel for one target with one engine, run as the
 * stages init > baseline > optimize > accuracy > verify > report. Ties together the spec,
 * the device probe, the builtin search, measure.c's referee, the store (every stage, event,
 * version and measurement is recorded as it happens) and the report. Meant to run in its
 * own worker process (`hkls optimize`, spawned by the editor's server with --events):
 * blocking, one thread, children killed by process group when it is stopped. */
#ifndef HK_ENGINE_EPISODE_H
#define HK_ENGINE_EPISODE_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "measure/cmdform.h"
#include "measure/device.h"
#include "measure/measure.h"
#include "store/store.h"

/* Called for every progress event, in order, on the episode's thread. The event is
 * borrowed for the call. Kinds ("event" member):
 *   {"event":"stage","stage":S,"percent":P,"message":M}           a stage begins
 *   {"event":"progress","stage":S,"percent":P,"message":M, ...}    within a stage; the
 *       optimize stage adds "candidate":k,"budget":N,"best_speedup":X
 *   {"event":"log","level":"info|warn|error","stage":S,"message":M}
 *   {"event":"version","number":N,"id":ID,"status":ST,"reason":R,"median_ms":T,
 *    "speedup":X,"produced_by":P, ...}                              a version was recorded
 *   {"event":"done","status":ST,"episode":ID,"error":E,"report":{json,md,html},
 *    "summary":{...}}                                               always last
 * Percentages only rise. */
typedef void (*ep_event_fn)(const json_t *event, void *data);

enum ep_gpu_mode {
    EP_GPU_DETECT = 0, /* nvidia-smi / /dev/nvidia0; DCU targets: /dev/kfd + KFD topology */
    EP_GPU_NONE,       /* behave as if no GPU were present (tests, and HK_NO_GPU=1) */
    EP_GPU_SIMULATED,  /* CI only: a simulated GPU. The device is ep_options.sim_device and
                        * every benchmark program runs through measure.wrapper (a simulator
                        * that speaks the program's protocol); the rest of the episode is real */
};

/* What to run. Strings borrowed for the call. */
typedef struct {
    const char *file;          /* the kernel's source file. Required. */
    const char *kernel;        /* kernel name. Required. */
    const char *spec_path;     /* bench spec, harness or command form. Required. A command-
                                * form spec times the program its own commands build and run
                                * (cmdform.h): candidates are the search's text rewrites only
                                * (launch-configuration and compiler-flag candidates do not
                                * apply and are skipped), compiled one at a time by the user's
                                * build command, and gated by the program's own PASS/FAIL */
    const char *target;        /* "nvidia", "nvidia:sm_90", "dcu" or "dcu:gfx906"; NULL:
                                * "nvidia" (arch from the GPU) */
    const char *engine;        /* NULL or "builtin" (the only engine here) */
    long budget;               /* candidates to evaluate; 0: 12 */
    double minutes;            /* wall-clock budget of the optimize stage; 0: 10 */
    uint64_t seed;             /* search seed */
    const char *name;          /* episode name; NULL: "<kernel> <arch>" */
    bool from_original;        /* start the search from the original, not the best version */
    bool untrusted;            /* the spec comes from a folder the user has not trusted (the
                                * editor's untrusted workspace, issue 12): a spec that runs
                                * commands of its own (command form) or passes compiler flags
                                * (compile_flags: -ccbin, -Xcompiler ...) is refused early */
    const char *db_path;       /* the history database. Required. */
    const char *out_dir;       /* reports; NULL: <db dir>/reports/<episode id> */
    const char *work_dir;      /* scratch; NULL: a new $TMPDIR/hk-episode-XXXXXX */
    bool keep_work;            /* keep the scratch directory (it is removed otherwise) */
    unsigned jobs;             /* parallel compiles; 0: online CPUs */
    int verify_pairs;          /* interleaved A/B pairs in verify; 0: 5 (at least 5) */
    enum ep_gpu_mode gpu;
    const device_info *sim_device; /* EP_GPU_SIMULATED: the device to pretend (borrowed) */
    measure_opts measure;      /* limits, isolation, timeouts, wrapper (spec/nvcc/arch/peaks/
                                * stop are filled by the episode) */
    const cmdform_options *cmdform; /* command-form specs: runs, injection library, copy caps
                                * (stop and isolation are filled by the episode); NULL:
                                * defaults. Borrowed for the call */
    const volatile sig_atomic_t *stop; /* raised by a signal handler: stop cleanly; may be NULL */
    ep_event_fn on_event;      /* may be NULL */
    void *event_data;
} ep_options;

/* How an episode ended. Owns its strings and summary (ep_result_clear). */
typedef struct {
    int64_t episode_id;                 /* 0 when it failed before one was created */
    enum store_episode_status status;   /* COMPLETED, STOPPED or FAILED */
    bool no_gpu;                        /* failed because no GPU was found */
    char *error;                        /* why it failed or stopped, or NULL */
    char *report_json, *report_md, *report_html;
    json_t *summary;                    /* the "done" event (new reference held here) */
} ep_result;

void ep_result_clear(ep_result *r);

/* Runs a whole episode, speaking English on this thread (what it sends, stores and returns
 * is read by programs too; docs/i18n.md) except for the report's Markdown and HTML, which
 * are in the caller's language (hk_i18n_lang). HK_OK whenever an episode was created and
 * ended (completed, stopped or failed: see out->status); HK_EINVAL for bad options,
 * HK_ENOENT when the file or the kernel in it is missing, HK_EPARSE for a spec with errors
 * (each diagnostic was sent as a "log" event), HK_EDB when the database cannot be opened
 * -- in those cases no episode exists and out->error says why. out must be cleared with
 * ep_result_clear. */
int ep_run(const ep_options *o, ep_result *out);

/* The default database path: $HK_DB, else $XDG_DATA_HOME/hyperkernel/history.db, else
 * $HOME/.local/share/hyperkernel/history.db. New string. HK_OK, HK_ENOENT (no HOME). */
int ep_default_db_path(char **out);

/* Installs SIGINT/SIGTERM/SIGHUP handlers that raise a flag, ignores SIGPIPE, and returns
 * the flag (static storage) for ep_options.stop / measure_opts.stop. Main thread, once. */
const volatile sig_atomic_t *ep_stop_on_signals(void);

/* ---- one candidate against the baseline (hkls verify-candidate) ---- */

typedef struct {
    const char *spec_path;     /* Required; the baseline is the spec's source */
    const char *candidate;     /* candidate .cu file. Required. */
    const char *target;        /* as ep_options; NULL: arch from the GPU */
    const char *work_dir;      /* NULL: a new temporary directory, removed at the end */
    bool keep_work;
    bool sanitize;             /* compute-sanitizer on an accepted candidate whatever its
                                * speedup (otherwise only one claiming over 2x: sanitize.h) */
    enum ep_gpu_mode gpu;
    const device_info *sim_device; /* EP_GPU_SIMULATED (CI only): the device to pretend, with
                                * measure.wrapper the simulator; borrowed */
    int pairs;                 /* interleaved baseline/candidate pairs; 0: 5; at most
                                * MEASURE_MAX_PAIRS */
    measure_opts measure;      /* allow_no_floor, spread_bound, ... as the episode's */
    const volatile sig_atomic_t *stop;
    ep_event_fn on_event;      /* "log" and "progress" events; may be NULL */
    void *event_data;
} ep_verify_options;

/* Builds the spec's baseline and the candidate, judges the candidate through exactly the
 * episode's pipeline (measure_evaluate), then, when it is accepted, times baseline and
 * candidate interleaved (A B A B ..., o->pairs pairs, separate processes) as the episode's
 * verify stage does. *verdict: new reference, {"verdict": "faster" | "not_faster" |
 * "not_credited" | "rejected" | "not_measured", "accepted":bool (correct and every check
 * passed), "measured":bool, "faster":bool (the interleaved p10 of the pair ratios > 1),
 * "credited":bool, "reason":R, "details":D, "speedup":X, "flagged":B, "checks":[...],
 * "interleaved":{"pairs","speedup","p10","p90","baseline_ms","candidate_ms",
 * "baseline_samples","candidate_samples"}, ...}. HK_OK when a verdict was reached (compile
 * errors and no GPU included: "verdict" says), HK_ECHILD or HK_ENOGPU (the baseline failed:
 * built, run, timed reliably), HK_ECANCELED, HK_EPARSE (bad spec), HK_ENOENT (missing file),
 * HK_ENOMEM, HK_EIO. An accepted candidate claiming over 2x (or o->sanitize) also runs
 * under compute-sanitizer (sanitize.h: out_of_bounds, race, uninitialized; "memory_safety"
 * and "sanitizer" in the verdict). Its events and verdict are in English, as ep_run's. */
int ep_verify_candidate(const ep_verify_options *o, json_t **verdict);

#endif
