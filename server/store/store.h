/* History of optimization episodes in SQLite: kernels, episodes, the version chain,
 * measurements, evidence, events and per-device peaks. The episode worker writes;
 * the LSP side and the CLI read. Schema and conventions: docs/store.md.
 *
 * Conventions for every function here:
 *  - returns HK_OK or a negative HK_E* code, results through out-parameters; on error the
 *    out-parameters are left empty (NULL / 0) and store_errmsg() says why;
 *    HK_EINVAL: bad argument or data the schema refuses (unknown parent, malformed JSON);
 *    HK_ENOENT: no such row; HK_EDB: any other SQLite failure (locked, I/O, corrupt);
 *    HK_ENOMEM: allocation failed. Nothing here asserts on data.
 *  - strings passed in are borrowed for the call; strings in returned rows are owned by the
 *    row (hk_malloc) and released by the row's free function; NULL means SQL NULL.
 *  - times are milliseconds since the Unix epoch (CLOCK_REALTIME).
 *  - JSON blobs are stored as TEXT and must be valid JSON (checked by the schema).
 *  - numbers that are unknown are NAN in rows and NULL in the database.
 *  - the store handle and out-parameters must not be NULL (programming errors, not data).
 *
 * Threads: a store handle is one SQLite connection. It may be used from any thread but
 * from ONE thread at a time (the caller serialises, e.g. one uv_work_t at a time on the
 * libuv pool); separate handles, in one process or several, may be used concurrently
 * (WAL mode: readers never block the writer). Writes belong in the episode worker, never
 * on the LSP loop thread (STYLE.md 9). */
#ifndef HK_STORE_STORE_H
#define HK_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Newest schema version this build knows (PRAGMA user_version after store_open). */
#define STORE_SCHEMA_VERSION 3

/* Keys of the device peaks JSON object (store_device_put) that the report reads. */
#define STORE_PEAK_DRAM_BYTES_PER_S "dram_bytes_per_s"
#define STORE_PEAK_FP32_FLOP_PER_S "fp32_flop_per_s"
#define STORE_PEAK_TENSOR_FLOP_PER_S "tensor_flop_per_s"

/* Hex SHA-256 plus NUL. */
#define STORE_HASH_HEX 65

typedef struct store store;

enum store_episode_status {
    STORE_EP_RUNNING,
    STORE_EP_COMPLETED,
    STORE_EP_STOPPED,     /* cancelled by the user; keeps what it found */
    STORE_EP_FAILED,
    STORE_EP_INTERRUPTED, /* its worker died without finishing (store_mark_interrupted) */
};
#define STORE_EP_MASK(st) (1u << (st))

enum store_version_status { STORE_V_CANDIDATE, STORE_V_VERIFIED, STORE_V_REJECTED };

enum store_measure_kind { STORE_M_BASELINE, STORE_M_CANDIDATE, STORE_M_VERIFY };

/* Static names ("running", "verified", "verify", ...); "?" for an out-of-range value. */
const char *store_episode_status_name(enum store_episode_status st);
const char *store_version_status_name(enum store_version_status st);
const char *store_measure_kind_name(enum store_measure_kind k);
/* The status as a user reads it (reports, history): a candidate that was never measured
 * (built where no GPU was) is "built, not measured"; otherwise the name. Static string. */
const char *store_version_status_label(enum store_version_status st, bool measured);
/* Parses a name back; HK_EINVAL when unknown. */
int store_episode_status_parse(const char *s, enum store_episode_status *out);

/* SHA-256 of text as lowercase hex into out (the content hash used for kernels and
 * versions). Never fails. */
void store_content_hash(const char *text, size_t len, char out[STORE_HASH_HEX]);

/* Current time in ms since the epoch. */
int64_t store_now_ms(void);

/* ---- opening, schema, transactions ---- */

/* Opens the database at path, creating it and its missing directories, sets WAL mode,
 * foreign keys and a 5 s busy timeout, and migrates to STORE_SCHEMA_VERSION. path
 * ":memory:" gives a private in-memory database (no WAL). *out: new handle (store_close).
 * HK_EUNSUPPORTED when the file's schema is newer than this build; HK_EIO when its
 * directory cannot be created; HK_EDB when it cannot be opened or is not a database
 * (store_open_ex says why). Does NOT mark interrupted episodes: the caller decides when
 * (the server at start, see store_mark_interrupted). */
int store_open(const char *path, store **out);

/* store_open with the reason for a failure written into err (err_len bytes, may be NULL
 * and 0), since there is no handle to ask store_errmsg, and migrating only up to
 * max_version (0: STORE_SCHEMA_VERSION). */
int store_open_ex(const char *path, int max_version, store **out, char *err, size_t err_len);

/* As store_open but migrates only up to max_version (1..STORE_SCHEMA_VERSION); for tests
 * and tools that need an old schema. */
int store_open_version(const char *path, int max_version, store **out);

/* Closes the handle; NULL is a no-op. Any open transaction is rolled back. */
void store_close(store *s);

/* Applies the migration steps from the current user_version up to target (0: newest),
 * each step in its own transaction with its user_version bump, so a failure leaves the
 * database at the last completed step. HK_EUNSUPPORTED when the database is newer than
 * target or target is unknown; HK_ESTATE inside an open transaction. */
int store_migrate(store *s, int target);

/* Schema version of the open database. */
int store_schema_version(store *s, int *out);

/* Busy timeout in ms for this handle (how long a write waits for another writer). */
int store_set_busy_timeout(store *s, int ms);

/* Last error text for this handle (borrowed; valid until the next call on it). */
const char *store_errmsg(const store *s);

/* Groups several writes into one atomic unit (BEGIN IMMEDIATE ... COMMIT). Calls made in
 * between join it. HK_ESTATE: begin while one is open, or commit/rollback with none.
 * A failed commit rolls back. Rollback never fails on a live handle. */
int store_tx_begin(store *s);
int store_tx_commit(store *s);
int store_tx_rollback(store *s);

/* ---- kernels ---- */

typedef struct {
    int64_t id;
    char *file;          /* path as the caller gave it (absolute, normalised by the caller) */
    char *name;          /* kernel function name */
    char *content_hash;  /* hash of the kernel's original text when last seen */
    int64_t created_ms;
} store_kernel;

void store_kernel_clear(store_kernel *k);
void store_kernels_free(store_kernel *ks, size_t n);

/* Finds or creates the kernel (file, name) and sets its content hash (when
 * content_hash is not NULL). *id_out: its id. */
int store_kernel_upsert(store *s, const char *file, const char *name, const char *content_hash,
                        int64_t *id_out);
/* HK_ENOENT when absent. */
int store_kernel_find(store *s, const char *file, const char *name, int64_t *id_out);
int store_kernel_get(store *s, int64_t id, store_kernel *out);
/* Kernels of file (NULL: all), ordered by file then name; at most 10000.
 * *out: new array (store_kernels_free), NULL when n is 0. */
int store_kernel_list(store *s, const char *file, store_kernel **out, size_t *n_out);

/* ---- episodes ---- */

/* What store_episode_create needs; strings borrowed. */
typedef struct {
    int64_t kernel_id;
    const char *name;        /* NULL or "": derived, "<kernel> <arch or target>" */
    const char *target;      /* as the user gave it, e.g. "nvidia:sm_90" */
    const char *backend;     /* "nvidia" | "dcu" */
    const char *arch;        /* "sm_90", "gfx906"; may be NULL */
    const char *engine;      /* "builtin", "openai:gpt-..." */
    const char *budget_json; /* may be NULL */
    int pid;                 /* worker process; 0: none recorded (treated as dead) */
} store_episode_new;

typedef struct {
    int64_t id;
    char *name;
    int64_t kernel_id;
    char *file;              /* the kernel's, for convenience */
    char *kernel;            /* the kernel's name */
    char *target, *backend, *arch, *engine;
    char *device;            /* GPU model the episode ran on; NULL until known */
    enum store_episode_status status;
    int64_t started_ms;
    int64_t ended_ms;        /* 0 while running */
    char *budget_json;
    char *info_json;         /* free-form facts: toolchain, isolation used, ... */
    int pid;
    char *report_json, *report_md, *report_html;  /* paths, NULL until written */
    char *error;             /* why it failed / was interrupted */
    int64_t best_version_id;     /* 0: none */
    int64_t baseline_version_id; /* 0: none */
} store_episode;

void store_episode_clear(store_episode *e);
/* true when the episode ran on the simulated GPU (the test double of the CI tests): its
 * info_json says gpu.how "simulated", or its device is the simulator's ("Simulated GPU").
 * Its numbers are not measurements: everything that shows them says "simulated". Pure. */
bool store_episode_simulated(const store_episode *e);
/* The device name the simulator records (server/cli/optimize.c). */
#define STORE_SIMULATED_DEVICE "Simulated GPU"
void store_episodes_free(store_episode *es, size_t n);

/* New episode in status running, started now. HK_EINVAL: unknown kernel. */
int store_episode_create(store *s, const store_episode_new *in, int64_t *id_out);
/* Ends a running episode: status (not RUNNING), ended now, error text (may be NULL).
 * Guarded so that two enders (the worker finishing, the server cancelling) do not
 * overwrite each other: HK_ESTATE when the episode is no longer running; HK_ENOENT when
 * absent; HK_EINVAL for status RUNNING. */
int store_episode_finish(store *s, int64_t id, enum store_episode_status status,
                         const char *error);
/* Unguarded status update (any status, e.g. back to running when a worker resumes):
 * sets status and error (may be NULL); ended is set to now for an end status and cleared
 * for RUNNING. HK_ENOENT when absent. */
int store_episode_set_status(store *s, int64_t id, enum store_episode_status status,
                             const char *error);
/* Field setters; HK_ENOENT when the episode is absent. A version id must belong to the
 * episode's kernel (HK_EINVAL otherwise); 0 clears it. */
int store_episode_set_baseline(store *s, int64_t id, int64_t version_id);
int store_episode_set_best(store *s, int64_t id, int64_t version_id);
int store_episode_set_device(store *s, int64_t id, const char *device);
int store_episode_set_info(store *s, int64_t id, const char *info_json);
int store_episode_set_pid(store *s, int64_t id, int pid);
/* Report paths (each may be NULL to leave that one unchanged). */
int store_episode_set_reports(store *s, int64_t id, const char *json_path, const char *md_path,
                              const char *html_path);

int store_episode_get(store *s, int64_t id, store_episode *out);

typedef struct {
    unsigned status_mask;  /* STORE_EP_MASK(...) bits; 0: any status */
    const char *file;      /* NULL: any */
    const char *kernel;    /* kernel name; NULL: any */
    int64_t kernel_id;     /* 0: any */
    size_t limit;          /* 0: 100; at most 10000 */
} store_episode_filter;

/* Episodes matching f (NULL: all), newest first. *out: new array (store_episodes_free). */
int store_episode_list(store *s, const store_episode_filter *f, store_episode **out,
                       size_t *n_out);

/* Marks every running episode whose worker is gone (pid 0, no such process, or the pid
 * now belongs to a process started later) as interrupted, ended now: the one test of a
 * dead worker. Run by the server at start and by every CLI entry that reads the history
 * (history, report, apply). *n_marked (may be NULL): how many. */
int store_mark_interrupted(store *s, size_t *n_marked);

/* ---- versions: the chain ---- */

typedef struct {
    int64_t episode_id;       /* episode that produced it */
    int64_t parent_id;        /* 0: a root (the baseline) */
    const char *source;       /* full kernel text (or file text) of this version */
    const char *launch_json;  /* launch configuration and compile flags; may be NULL */
    enum store_version_status status;
    const char *produced_by;  /* engine/skill, e.g. "builtin:launch_bounds"; may be NULL */
} store_version_new;

typedef struct {
    int64_t id;
    int64_t episode_id;
    int64_t kernel_id;
    int64_t parent_id;        /* 0: none */
    int number;               /* within the kernel: v0 is the first baseline, then v1, v2 ... */
    char *source;             /* NULL in history rows (store_version_get has it) */
    char *launch_json;
    char *content_hash;
    enum store_version_status status;
    char *reject_reason;      /* short: "compile error", "wrong answer", "timeout", ... */
    char *reject_details;     /* compiler output, max abs/rel error, ... */
    char *produced_by;
    double max_abs_err;       /* accuracy against the baseline's outputs; NAN: unknown */
    double max_rel_err;
    int64_t created_ms;
} store_version;

void store_version_clear(store_version *v);

/* Adds a version to the episode's kernel. Its number is the next free one for the
 * kernel (so the first version of a kernel, its baseline, is v0). The parent, when
 * given, must belong to the same kernel. The content hash is computed from source.
 * HK_EINVAL: unknown episode or parent, parent of another kernel, NULL source. */
int store_version_add(store *s, const store_version_new *in, int64_t *id_out);
/* Status change; reason/details may be NULL (cleared when status is not REJECTED). */
int store_version_set_status(store *s, int64_t id, enum store_version_status status,
                             const char *reason, const char *details);
/* Accuracy against the baseline (NAN for unknown). */
int store_version_set_accuracy(store *s, int64_t id, double max_abs_err, double max_rel_err);
int store_version_get(store *s, int64_t id, store_version *out);
/* Newest version of the kernel whose source has this hash (the candidate cache across
 * episodes). HK_ENOENT when none. */
int store_version_find_by_hash(store *s, int64_t kernel_id, const char *content_hash,
                               int64_t *id_out);

/* ---- measurements ---- */

typedef struct {
    int64_t id;
    int64_t version_id;
    int64_t episode_id;       /* the episode that took it (a version may be re-measured) */
    enum store_measure_kind kind;
    double median_ms;         /* required, > 0 */
    double p10_ms, p90_ms;    /* NAN: unknown */
    double spread;            /* (p90 - p10) / median; NAN: computed from p10/p90 on add */
    int reps;
    double bytes_per_s, flop_per_s, roofline_pct;  /* NAN: unknown */
    char *size_key;           /* problem size the numbers are for, e.g. "n=16777216" */
    char *raw_json;           /* all samples / harness output */
    int64_t created_ms;
} store_measurement;

void store_measurement_clear(store_measurement *m);
void store_measurements_free(store_measurement *ms, size_t n);

/* Adds m (its id, created_ms are ignored; the strings are borrowed). HK_EINVAL: median
 * not a positive finite number, unknown version or episode. */
int store_measurement_add(store *s, const store_measurement *m, int64_t *id_out);
/* Measurements of a version, taken in episode_id (0: any), oldest first. */
int store_measurement_list(store *s, int64_t version_id, int64_t episode_id,
                           store_measurement **out, size_t *n_out);

/* ---- evidence and events ---- */

typedef struct {
    int64_t id;
    int64_t version_id;
    int64_t episode_id;
    char *kind;               /* "ptxas" | "sass" | "ncu" | "roofline" | other */
    char *json;
    int64_t created_ms;
} store_evidence;

void store_evidences_free(store_evidence *es, size_t n);
int store_evidence_add(store *s, int64_t version_id, int64_t episode_id, const char *kind,
                       const char *json, int64_t *id_out);
/* Evidence of a version (episode_id 0: any episode), oldest first. */
int store_evidence_list(store *s, int64_t version_id, int64_t episode_id, store_evidence **out,
                        size_t *n_out);

typedef struct {
    int64_t id;
    int64_t episode_id;
    int64_t time_ms;
    char *stage;              /* "init", "baseline", "optimize", "accuracy", "verify", "report" */
    char *message;
    char *json;               /* may be NULL */
} store_event;

void store_events_free(store_event *es, size_t n);
/* json may be NULL. *id_out may be NULL. */
int store_event_add(store *s, int64_t episode_id, const char *stage, const char *message,
                    const char *json, int64_t *id_out);
/* Events with id > after_id, oldest first, at most limit (0: 1000; cap 100000). */
int store_event_list(store *s, int64_t episode_id, int64_t after_id, size_t limit,
                     store_event **out, size_t *n_out);

/* Stage timings derived from events: a stage spans from its first event to the first
 * event of the next stage, the last one to the episode's end (or its own last event
 * while running). One entry per run of consecutive events of a stage, in order: a stage
 * that comes back after another gets a second entry. */
typedef struct {
    char *stage;
    int64_t start_ms, end_ms;
    size_t n_events;
    char *last_message;
} store_stage;

void store_stages_free(store_stage *st, size_t n);
int store_episode_stages(store *s, int64_t episode_id, store_stage **out, size_t *n_out);

/* ---- history and performance ---- */

/* A version with the measurement that represents it and its speedup. For a version of
 * episode E the measurements used are those taken in E: the fastest "verify" one, else
 * the fastest of any kind; the baseline is E's baseline version measured the same way,
 * at the same size_key when it was measured at that size.
 * speedup = base median / median; its spread [lo, hi] = base p10 / p90 .. base p90 / p10.
 * NAN where a number is missing. */
typedef struct {
    store_version version;    /* source is NULL */
    bool measured;
    store_measurement best;   /* valid when measured */
    bool has_base;
    store_measurement base;   /* the baseline's, valid when has_base */
    double speedup, speedup_lo, speedup_hi;
} store_history_row;

void store_history_free(store_history_row *rows, size_t n);

/* Every version of the kernel, by number. */
int store_kernel_history(store *s, int64_t kernel_id, store_history_row **out, size_t *n_out);
/* The versions an episode produced, plus those it used from earlier episodes (its
 * baseline, its best, any it measured, e.g. the version it started from), by number,
 * each with the measurements taken in that episode. HK_ENOENT: no such episode. */
int store_episode_versions(store *s, int64_t episode_id, store_history_row **out, size_t *n_out);

/* The verified version of the kernel with the highest speedup > 1 (ties: newest),
 * restricted to episodes for arch when arch is not NULL, so that a new episode starts
 * from it. *out: the full version, source included. HK_ENOENT: none better than its
 * baseline. */
int store_kernel_best_verified(store *s, int64_t kernel_id, const char *arch,
                               store_version *out);

/* ---- devices: measured peaks cache ---- */

typedef struct {
    char *name;               /* "NVIDIA H200" */
    char *cc;                 /* "9.0" or "gfx906" */
    char *peaks_json;         /* keys STORE_PEAK_* (bytes/s, FLOP/s) */
    int64_t measured_ms;
} store_device;

void store_device_clear(store_device *d);
/* Inserts or replaces the device's peaks, measured now. */
int store_device_put(store *s, const char *name, const char *cc, const char *peaks_json);
/* HK_ENOENT when never measured. */
int store_device_get(store *s, const char *name, store_device *out);

/* ---- skills' record (skill_stats.c; used by server/skills to order skills) ---- */

/* Records one try of a skill on a kernel (name, and the content hash of its text; NULL
 * hash: "") on an arch ("sm_90", "gfx906"): tried + 1, and when helped (the caller saw a
 * verified speedup > 1 with the skill's expected evidence) helped + 1 and speedup added
 * to the mean; best_speedup keeps the largest finite speedup seen, helped or not (NAN:
 * not measured). last time = now. HK_EINVAL: skill_id, kernel or hardware NULL or empty,
 * or helped with a speedup that is not a finite number > 1. */
int store_skill_record(store *s, const char *skill_id, const char *kernel,
                       const char *kernel_hash, const char *hardware, bool helped,
                       double speedup);

/* One (skill, kernel, hash, arch) record. */
typedef struct {
    char *skill_id, *kernel, *kernel_hash, *hardware;
    int64_t tried, helped;
    double best_speedup;     /* NAN: never measured */
    double mean_speedup;     /* mean speedup over the tries that helped; NAN: none helped */
    int64_t last_ms;
} store_skill_result;

void store_skill_results_free(store_skill_result *r, size_t n);

/* Records of skill_id (NULL: all) on hardware (NULL: all), by skill id, best speedup
 * first, at most 10000. *out: new array (store_skill_results_free), NULL when n is 0. */
int store_skill_results(store *s, const char *skill_id, const char *hardware,
                        store_skill_result **out, size_t *n_out);

/* A skill's record summed over kernels. */
typedef struct {
    char *skill_id;
    int64_t tried, helped;
    int64_t kernels;         /* distinct (kernel, hash) it was tried on */
    int64_t kernels_helped;  /* of those, where it helped at least once */
    double best_speedup;     /* NAN: never measured */
    double mean_speedup;     /* over all tries that helped; NAN: none helped */
    int64_t last_ms;
} store_skill_stat;

void store_skill_stats_free(store_skill_stat *st, size_t n);

/* One row per skill with a record on hardware (NULL: every arch together), by skill id,
 * at most 10000. *out: new array (store_skill_stats_free), NULL when n is 0. */
int store_skill_stats(store *s, const char *hardware, store_skill_stat **out, size_t *n_out);

#endif
