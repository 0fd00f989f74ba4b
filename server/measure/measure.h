/* Compile, run and compare: the primitives the episode and `hkls verify-candidate` share, so
 * that a candidate is judged by exactly one pipeline. A candidate's text becomes a generated
 * benchmark program (harness.h), compiled with nvcc (ptxas -v resources kept); the program
 * runs in separate processes through the runner (limits, sandbox, stoppable), its outputs
 * are compared with the baseline's on identical inputs through the oracle, its time must
 * have its L2 flush and a small spread, and clear the physical floor (without one the
 * speedup is not credited), and a speedup over 10x is verified again on fresh seeds and
 * must reproduce. docs/referee.md says what each rule guarantees.
 * Blocking calls for the episode worker process; never for the LSP loop. One thread. */
#ifndef HK_ENGINE_MEASURE_H
#define HK_ENGINE_MEASURE_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compile/compile.h"
#include "measure/harness.h"
#include "measure/oracle.h"
#include "measure/ptxrace.h"
#include "spec/spec.h"
#include "runners/runner.h"

#define MEASURE_MAX_DETAILS 4096       /* longest reason text kept (compiler output etc.) */
#define MEASURE_SUSPICIOUS_SPEEDUP 10.0 /* default: speedups above it are re-measured, flagged */
#define MEASURE_MAX_PAIRS 64            /* interleaved verify pairs at most */
#define MEASURE_SPREAD_BOUND 0.10       /* default: a time's spread (IQR / median) at most */
#define MEASURE_MEDIAN_AGREE 0.03       /* a spread above the bound twice: the two medians within */
#define MEASURE_DRIFT_MAX 0.5           /* the drift rule: three processes' medians within */
#define MEASURE_REPRODUCE_TOLERANCE 0.25 /* default: how far (relative, either way) the >10x
                                          * second look's speedup may be from the first */

/* A compile runs the compiler on candidate text, which can make it a bomb: a template
 * recursion or a huge `#pragma unroll` (CPU, memory), an endless include such as /dev/zero
 * or a macro that expands to 2^24 tokens (memory, then a preprocessed file of GBs), a giant
 * initialised `__device__` array (an image of hundreds of MB). The biggest honest compiles
 * measured (session 30, nvcc 13.0 and Debian's hipcc 5.2, on the 2-core VM): the launchers'
 * runtime (hk_launcher_rt.cu, built in the same job as the first candidate of a compiler)
 * 12.4 s of CPU, 252 MB of RSS, 291 MB of address space, 222 KB written (hipcc: 8.9 s,
 * 165 MB, 318 MB, 284 KB); among the 65 suite and wild kernels' images the largest,
 * cs_reduce0, 9.3 s, 306 MB, 388 MB, 1.7 MB. A compile past a limit is a compile_error that
 * names the limit (docs/referee.md, "Compile limits"). */
#define MEASURE_COMPILE_CPU_S 120u                       /* per process, seconds */
#define MEASURE_COMPILE_FILE_MAX ((uint64_t)64 << 20)    /* per file written */
#define MEASURE_COMPILE_MEMORY_MAX ((uint64_t)4 << 30)   /* the whole compile (cgroup), else
                                                          * per process (address space) */

/* Why a candidate was rejected (MEASURE_OK: it was not). Names are stable: they are stored
 * as the version's reject reason and the cheat tests compare them. */
enum measure_reason {
    MEASURE_OK = 0,
    MEASURE_COMPILE_ERROR,    /* "compile_error" */
    MEASURE_WRONG_ANSWER,     /* "wrong_answer": outside tolerance, or NaN/Inf */
    MEASURE_CRASH,            /* "crash": killed by a signal, or an unknown exit status */
    MEASURE_CUDA_ERROR,       /* "cuda_error": a CUDA call or the launch failed */
    MEASURE_TIMEOUT,          /* "timeout": wall-clock limit reached, process group killed */
    MEASURE_UNWRITTEN_OUTPUT, /* "unwritten_output": poison left in an output */
    MEASURE_OUT_OF_BOUNDS,    /* "out_of_bounds": a guard zone was overwritten */
    MEASURE_INPUT_MODIFIED,   /* "input_modified" */
    MEASURE_BELOW_FLOOR,      /* "below_floor": faster than bytes/peak or FLOPs/peak allows */
    MEASURE_SPEC_MISMATCH,    /* "spec_mismatch": the program refused its arguments (exit 2) */
    MEASURE_NO_GPU,           /* "no_gpu" */
    MEASURE_HARNESS_ERROR,    /* "harness_error": internal/io error, unreadable output */
    MEASURE_RESOURCE_LIMIT,   /* "resource_limit": CPU, file size or memory limit hit */
    MEASURE_HOST_CODE,        /* "host_code": the candidate adds or changes host code, or
                               * preprocessor lines aimed at the harness (line quoted) */
    MEASURE_STRAY_WORK,       /* "stray_work": device work still running after a timed
                               * launch returned (other streams, child kernels) */
    MEASURE_UNSTABLE,         /* "unstable": the timing spread stayed above its bound
                               * after a re-measure */
    MEASURE_RACE,             /* "race": compute-sanitizer racecheck found a hazard, or the
                               * candidate's PTX loads a shared word another thread stored with
                               * no barrier between (measure_race_check, before any run) */
    MEASURE_UNINITIALIZED,    /* "uninitialized": compute-sanitizer initcheck found a read
                               * of uninitialized device memory */
    MEASURE_UNFLUSHED,        /* "unflushed": the L2 flush before timed launches could not
                               * be done or verified, so no time is credited */
    MEASURE_READS_CLOCK,      /* "reads_clock": the candidate's device code reads a clock,
                               * timer or performance counter the baseline's does not */
    MEASURE_LAUNCH_STATE,     /* "launch_state": a launch left a writable global of the
                               * candidate's image (a __device__ variable) changed, or one
                               * cannot be restored: state carried from launch to launch */
    MEASURE_LOCAL_STATE,      /* "local_state": the candidate's device code reaches local
                               * memory that the scrub before every launch does not cover
                               * (inline asm naming .local, the dynamic stack, recursion or a
                               * call through a pointer, a frame over 64 KiB) and the
                               * baseline's does not: judged from the PTX before any run */
    MEASURE_DEVICE_HEAP,      /* "device_heap": the candidate's device code allocates on the
                               * device heap (malloc, free, new, delete), which nothing resets
                               * between launches, and the baseline's does not: judged from
                               * the PTX before any run */
    MEASURE_INSENSITIVE,      /* "insensitive": a few input elements raised by known
                               * amounts, the candidate's outputs did not move as the
                               * baseline's did (it skips or samples work the baseline
                               * does: measure_sensitivity) */
};
/* The last reason (loops over every reason end here). */
#define MEASURE_REASON_LAST MEASURE_INSENSITIVE

/* Stable snake_case name (static, never NULL). */
const char *measure_reason_name(enum measure_reason r);
/* Reason for a generated program's exit code (harness_exit_reason's mapping). */
enum measure_reason measure_reason_from_exit(int exit_code);

/* Clock reads (docs/referee.md, "A candidate reads no clock"): the kernel image cand_module
 * may not read a clock, timer or performance counter (the PTX special registers %clock*,
 * %globaltimer*, %pm*), nor carry a ptxas preprocessor line, that the baseline's image
 * base_module does not: with one, a kernel can tell timed, checked and sanitized launches
 * apart by their timing. Each image's PTX is MODULE.ptx, kept by its build (nvcc --keep).
 * *result: "pass", "fail" (*why: new text naming the register and the PTX line) or
 * "not_run" (*why: new text saying why: no image, no PTX beside it, a DCU code object).
 * cand_module NULL (a program, not a launcher's image): "not_run". base_module NULL or
 * without PTX: the baseline counts as reading nothing. HK_OK, HK_ENOMEM. */
int measure_clock_check(const char *base_module, const char *cand_module, const char **result,
                        char **why);

/* Local memory (docs/sanitizer.md, "uninitialized shared or local memory"): the kernel image
 * cand_module may not reach local memory that the launcher's scrub before every launch
 * (hk_lmem_scrub: the kernel's own frame, up to 64 KiB) does not cover, where the baseline's
 * image base_module does not: inline asm naming local memory (KIMAGE_LOCAL_ASM), the dynamic
 * stack (alloca ...), recursion or a call through a pointer, local depots over 64 KiB
 * (kimage.h's KIMAGE_LOCAL_BITS). A mark left there by one launch is found by the next, so
 * the timed launches could differ from the checked and sanitized ones. Read in MODULE.ptx,
 * like the clock check (a second pass over it). *result: "pass", "fail" (*why: new text
 * naming the finding and the PTX line) or "not_run" (*why: no image, no PTX, a DCU code
 * object, whose assembly is not read for this). HK_OK, HK_ENOMEM. */
int measure_local_check(const char *base_module, const char *cand_module, const char **result,
                        char **why);

/* The same for the device heap (KIMAGE_HEAP_BITS): a call of malloc, free, the aligned malloc
 * or device new/delete in cand_module that base_module lacks. Nothing resets the heap between
 * launches and malloc hands a freed block back as an earlier launch left it, so a kernel can
 * find its own mark there with no pointer kept in a global the launcher restores
 * (tests/gpu/cheats/heap_by_address.cu). Same results as measure_local_check (a DCU code
 * object: not_run). HK_OK, HK_ENOMEM. */
int measure_heap_check(const char *base_module, const char *cand_module, const char **result,
                       char **why);

/* Shared-memory races (docs/referee.md, "A candidate reads no other thread's unsynchronised
 * word"): the kernel image cand_module may not load a shared-memory word that another thread
 * of its block stored on a path with no barrier in between (ptxrace.h: read in MODULE.ptx,
 * without running it, so a kernel that senses compute-sanitizer and takes a racy path only
 * when it is not watched is judged on the path it has, taken or not), unless base_module's
 * PTX has such a read too: then "pass" with *why saying so (the user's own warp-synchronous
 * code; racecheck still judges the run). *result: "pass", "fail" (*why: the load and the
 * store, their PTX and source lines) or "not_run" (*why: no image, no PTX, a DCU code object).
 * HK_OK, HK_ENOMEM. */
int measure_race_check(const char *base_module, const char *cand_module, const char **result,
                       char **why);

/* The block shapes a kernel image is launched with, which the race check judges it at
 * (ptxrace_file_shape: blockDim a constant, tree loops unrolled). Value struct. */
enum { MEASURE_SHAPES = 8, MEASURE_ARGS = 32, MEASURE_FILLED = 16 };
typedef struct {
    long dim[MEASURE_SHAPES][3];
    /* each launch's scalar arguments (kernel parameter order, the spec's args evaluated at
     * its size set): an integer scalar whose value evaluates without the device (no sm_count)
     * is known; a buffer, a float or one past MEASURE_ARGS is not */
    int nargs;
    bool arg_known[MEASURE_SHAPES][MEASURE_ARGS];
    long long arg[MEASURE_SHAPES][MEASURE_ARGS];
    int n;
    bool unknown; /* a launch whose shape could not be evaluated: judged at no shape too */
    /* the launcher runs the image (a harness-form spec): it restores the image's writable
     * globals before every launch and writes no other variable of it than the spec's
     * constants, named in filled by their symbols (hk_constant_symbol); the race rule then
     * reads module data nothing writes as its initializer (ptxdata.h). false: a command form,
     * no spec, or more constants than kept */
    bool module_data;
    int nfilled;
    char filled[MEASURE_FILLED][128];
} measure_shapes;

/* The distinct launches (a shape and its scalar arguments): block (3 dims, a candidate's own
 * --block) when not NULL, else the spec's block, at each of the spec's size sets. Past
 * MEASURE_SHAPES, or a block that does not evaluate to 1..1024 per dim, unknown is set. Never
 * fails. */
void measure_launch_shapes(const spec *s, const long long *block, measure_shapes *out);

/* The module-data part of sh (module_data, filled) into the race scan's launch l (the same
 * for each of sh's launches): false when it does not fit. */
void measure_module_data(const measure_shapes *sh, ptxrace_launch *l);

/* measure_race_check at the shapes each image is launched with (NULL or none: at no known
 * shape, as measure_race_check). A pass says which shapes were judged; a fail names the shape
 * that showed the race. HK_OK, HK_ENOMEM. */
int measure_race_check_shapes(const char *base_module, const measure_shapes *base_shapes,
                              const char *cand_module, const measure_shapes *cand_shapes,
                              const char **result, char **why);

/* The checks judged from the two images before anything runs, in the order they are made:
 * clock, local, heap, race (the four functions above). measure_evaluate and the episode's
 * verify-candidate both make them through measure_image_checks_judge, so a check is added
 * in one place. */
typedef struct {
    const char *check;          /* its name in a verdict's checks ("clock") */
    enum measure_reason reason; /* a candidate that fails it */
} measure_image_check;
enum { MEASURE_IMAGE_CHECKS = 4 };
extern const measure_image_check measure_image_checks[MEASURE_IMAGE_CHECKS];

/* All of them, each image read once (a PTX can be hundreds of MB): result[i] and why[i] as
 * the check's own function gives them (why[i] new text or NULL; on an error all NULL).
 * HK_OK, HK_ENOMEM. */
int measure_image_checks_judge(const char *base_module, const char *cand_module,
                               const char *result[MEASURE_IMAGE_CHECKS],
                               char *why[MEASURE_IMAGE_CHECKS]);

/* The same with the race check judged at each image's launch shapes
 * (measure_race_check_shapes; NULL: no known shape). */
int measure_image_checks_judge_shapes(const char *base_module, const measure_shapes *base_shapes,
                                      const char *cand_module, const measure_shapes *cand_shapes,
                                      const char *result[MEASURE_IMAGE_CHECKS],
                                      char *why[MEASURE_IMAGE_CHECKS]);

/* What every call needs. Value struct; pointers are borrowed for the duration of calls. */
typedef struct {
    const spec *spec;              /* harness form. Required. */
    const char *nvcc;              /* compiler path; NULL: "nvcc" on PATH (hipcc's path when
                                    * arch is a gfx one) */
    const char *arch;              /* "sm_90", or "gfx906" & co. for a DCU build (hipcc,
                                    * resource-usage remarks, CUDA-header shims in the build's
                                    * hip_compat/); NULL: "sm_90" */
    const char *include_dir;       /* hk_harness.h's directory; NULL: harness_include_dir() */
    double peak_bytes_per_s;       /* measured peaks for the floor; <= 0: unknown */
    double peak_flops;
    long long sm_count;            /* the device's, for spec expressions; <= 0: 132 */
    unsigned compile_timeout_ms;   /* 0: 180000 */
    /* Limits on every compile of candidate text (measure_build_runner_spec: the runner's
     * RLIMIT_CPU per process, RLIMIT_FSIZE per file, and its memory limit for the whole
     * compile: a memory cgroup, else RLIMIT_AS per process). 0: $HK_COMPILE_CPU_S,
     * $HK_COMPILE_FILE_MB, $HK_COMPILE_MEMORY_MB when set, else MEASURE_COMPILE_CPU_S,
     * MEASURE_COMPILE_FILE_MAX, MEASURE_COMPILE_MEMORY_MAX. */
    unsigned compile_cpu_seconds;
    uint64_t compile_file_max;
    uint64_t compile_memory_max;
    unsigned run_timeout_ms;       /* run mode, per combination: a process running n
                                    * combinations (--combos) is killed when no new output
                                    * file appears for this long (start-up included), and
                                    * after n times this in all; 0: 60000 */
    unsigned time_timeout_ms;      /* one time-mode process; 0: 120000 */
    double time_budget_ms;         /* the program's timing budget; 0: its default (1000) */
    uint64_t memory_max;           /* per program, bytes; 0: none */
    enum runner_isolation isolation; /* AUTO: the strongest available */
    double suspicious_speedup;     /* 0: MEASURE_SUSPICIOUS_SPEEDUP */
    /* The spread (IQR / median of the timed launches, the program's "spread") a time may
     * have. Above it the time is taken again in a fresh process; still above, a candidate is
     * rejected as "unstable" and a baseline fails (it cannot be timed reliably).
     * 0: MEASURE_SPREAD_BOUND */
    double spread_bound;
    /* The >10x second look reproduces the first speedup when the two are within this
     * fraction of each other (either way); 0: MEASURE_REPRODUCE_TOLERANCE */
    double reproduce_tolerance;
    /* Credit a speedup that no physical floor checked (peaks unknown because the device
     * probe failed or does not run on this GPU, or a spec without bytes/flops formulas).
     * false (the default): such a candidate is judged and timed, but measure_eval.credited
     * stays false and the episode does not report or apply it as a verified speedup.
     * `--allow-no-floor`, `episodes.allowNoFloor`. */
    bool allow_no_floor;
    /* argv prefix put before every benchmark program run (NULL-terminated), e.g. a tool
     * such as compute-sanitizer, or the simulated GPU of the CI tests; NULL: none */
    const char *const *wrapper;
    /* The combinations a candidate is checked on during the search: false (default) every
     * (size, seed, distribution); true: every (seed, distribution) at the smallest size and
     * every distribution with the first seed at the others (measure_combos_quick). The
     * accuracy stage re-checks the best on the same kind of set with new seeds (+1000). */
    bool quick_check;
    /* The candidate is the engine's own library substitution (trusted host code the engine
     * generated, e.g. a cuBLAS call): it is built as a program that #includes it. Never set
     * from anything a candidate's text says. */
    bool library_call;
    /* The baseline's fp64 shadow (promote.h), built as an image: measure_baseline_run runs
     * it on the baseline's combinations, and measure_evaluate then also judges every
     * output's error against it, relative to the baseline's own (oracle_ref64_judge, pooled
     * over the combinations). NULL: the spec's tolerance decides alone. */
    const struct measure_prog *ref64;
    /* Where that shadow's outputs are (set by measure_evaluate from the baseline); NULL:
     * none. */
    const char *ref64_dir;
    /* When *stop becomes non-zero (a signal handler sets it), running children are killed
     * (whole process groups) and the call returns HK_ECANCELED. May be NULL. */
    const volatile sig_atomic_t *stop;
    /* The program may touch the GPU (runner_spec.gpu keeps the device visible) but runs no
     * kernel worth keeping apart: it takes no GPU lock, so a long build (a command-form
     * build that queries the device) never stalls other episodes' timed runs. */
    bool untimed;
    /* Adds the seconds this options' runs spent waiting for the GPU lock (another episode's
     * program held the GPU): before a program starts, and a benchmark program's own wait to
     * time (measure_run_argv_held). An episode's search budget does not count them:
     * episodes run side by side (the editor's, a batch's JOBS) each get their budget of
     * their own work. Written by the thread running the measurement only. May be NULL. */
    double *lock_wait_s;
    /* The baseline's own error against its fp64 shadow (measure_widen): a float output's
     * absolute tolerance is widened by twice it wherever a candidate is compared with the
     * baseline. measure_evaluate sets it from its baseline; NULL: the spec's tolerance. */
    const struct measure_widen *widen;
} measure_opts;

/* true when o->stop is set and raised. */
bool measure_stopped(const measure_opts *o);

/* The file whose flock keeps the GPU programs (runner_spec.gpu, measure_opts.untimed
 * unset) of every hkls process from running a kernel while another one times:
 * $HK_GPU_LOCK, else /tmp/hyperkernel-gpu-UID-DEV.lock (DEV the GPU a benchmark program
 * runs on: the first entry of CUDA_VISIBLE_DEVICES, else of HIP_VISIBLE_DEVICES, "0" when
 * unset or empty); its turnstile is the same path with
 * HK_GPULOCK_TURN_SUFFIX (include/hk_gpulock.h). HK_ENOENT when HK_GPU_LOCK=off (no lock). */
int measure_gpu_lock_path(char *buf, size_t n);

/* How a GPU run holds that lock. */
enum measure_gpu_hold {
    /* alone for its whole life: a tool that times or profiles the whole program (a
     * command-form spec's runs under CUPTI, Nsight Compute) */
    MEASURE_GPU_EXCLUSIVE,
    /* shared: runs kernels but times nothing, so it runs beside other shared holders and
     * never beside an exclusive one (compute-sanitizer's runs) */
    MEASURE_GPU_SHARED,
    /* shared, and handed to the program (HK_GPULOCK_ENV), which holds it exclusively
     * around its timed loop alone: the benchmark program (hk_harness.h) */
    MEASURE_GPU_HANDED,
};

/* Runs one argv through the runner, polling o->stop: the one place where this module
 * starts children. A GPU run (rs->gpu) first takes the GPU lock as `how` says, waiting
 * in turn (o->stop ends the wait; o->lock_wait_s counts it, and a HANDED program's own
 * wait, which neither its timeout nor r->wall_ms count). HK_OK when it ran (see r),
 * HK_ECANCELED (children killed), or the runner's error. *r must be freed with
 * runner_result_free. */
int measure_run_argv_held(const measure_opts *o, const runner_spec *rs,
                          enum measure_gpu_hold how, runner_result *r);
/* measure_run_argv_held with MEASURE_GPU_EXCLUSIVE. */
int measure_run_argv(const measure_opts *o, const runner_spec *rs, runner_result *r);

/* ---- building a candidate ---- */

/* The files of one candidate in its own directory. Owns every string (measure_build_free).
 * Builds are device-only: the candidate becomes dir/kernel.cubin (module.cu: the
 * candidate #included, nvcc -cubin) or for a DCU dir/kernel.co (hipcc --genco, hk_hip.h
 * first), run by a launcher generated from the spec alone and shared by every candidate of
 * that spec (launcher_root/HASH/bench, built once by the first build script that finds it
 * missing; for a DCU with hipcc, loading the code object with hipModuleLoad). The engine's
 * own library substitution (measure_opts.library_call) is a program that #includes the
 * candidate. */
typedef struct {
    char *dir;      /* the candidate's directory */
    char *src;      /* dir/kernel.cu: the candidate's text */
    char *prog;     /* the generated launcher's source (shared, bench.cpp), or dir/bench.cu: the program */
    char *exe;      /* the launcher (shared), or dir/bench: the program */
    char *module;   /* dir/kernel.cubin (dir/kernel.co for a DCU): the candidate's device-only
                     * image; NULL: a program */
    char *function; /* after a successful finish: the image's entry for the spec's kernel,
                     * also written to MODULE.fn for measure_run_program */
    char **argv;    /* the build command line (harness_argv_free): nvcc, or for an image
                     * /bin/sh dir/build.sh (launcher if missing, then nvcc -cubin or hipcc --genco) */
    char *name;     /* what compiler messages call the candidate ("kernel.cu" is replaced
                     * by it), e.g. the user's file name; NULL: kernel.cu. Set by the caller
                     * after prepare (hk_strdup; freed with the build) */
    /* The compile's sandbox (measure_build_runner_spec), NULL-terminated: writable, the
     * candidate's directory, the launchers' cache (the launcher and its runtime are built
     * in the same job) and $HK_COMPILE_WRITABLE's folders; readable, the folders under /tmp
     * the compile reads (the harness headers, the spec's include folders, the compiler's
     * folder, PATH's entries), which the sandbox's private /tmp would hide. */
    char **sandbox_rw, **sandbox_ro;
} measure_build;

void measure_build_free(measure_build *b);

/* Creates dir (and parents), writes the candidate text and the generated program and
 * prepares the nvcc argv with -Xptxas -v (resources) plus flags (NULL-terminated extra
 * nvcc flags such as "--use_fast_math", may be NULL). HK_OK, HK_EIO, HK_EINVAL, HK_ENOMEM. */
int measure_build_prepare(const measure_opts *o, const char *dir, const char *text, size_t len,
                          const char *const *flags, measure_build *b);

/* The runner spec compiling b (borrowing b's strings): compile timeout, output cap, cwd,
 * and the compile limits (CPU, file size, memory: measure_opts.compile_*). */
void measure_build_runner_spec(const measure_opts *o, const measure_build *b, runner_spec *rs);

/* The outcome of a compile. Owns details and cc (measure_compile_clear). */
typedef struct {
    bool ok;                 /* the program was built */
    char *details;           /* not ok: the first compiler error lines (or why it failed) */
    cc_result cc;            /* parsed diagnostics and ptxas resources */
    long wall_ms;
} measure_compile;

void measure_compile_clear(measure_compile *c);

/* Reads a finished compile's runner result into *out (ptxas -v parsed with
 * cc_parse_output). HK_OK (also for compile errors: out->ok false), HK_ENOMEM. */
int measure_build_finish(const measure_opts *o, const measure_build *b, const runner_result *r,
                         measure_compile *out);

/* prepare's build, compiled now (blocking, stoppable). HK_OK, HK_ECANCELED, HK_ENOMEM. */
int measure_build_compile(const measure_opts *o, const measure_build *b, measure_compile *out);

/* New reference: the ptxas resources of the kernel named kernel (base name) as evidence
 * JSON {"kernel", "registers", "spill_stores", "spill_loads", "stack", "smem_static",
 * "cmem", "arch"}; NULL when the compile reported none for it or on ENOMEM. */
json_t *measure_resources_json(const measure_compile *c, const char *kernel);

/* The entry name kept beside a built image (MODULE.fn). *out: new string. HK_OK,
 * HK_ENOENT (no such file), HK_EPARSE (empty or too long), HK_ENOMEM. */
int measure_read_entry(const char *module, char **out);

/* ---- running the program ---- */

/* A built program and how to launch it. Borrowed strings. */
typedef struct measure_prog {
    const char *exe;              /* the launcher, or the generated program */
    const long long *block;       /* 3 block dims overriding the spec's (--block), or NULL */
    const char *module;           /* the kernel image a launcher runs (its entry in
                                   * MODULE.fn); NULL: exe is a program */
    const char *ref_module;       /* time mode: the reference kernel's image (the baseline)
                                   * that checked timed launches are compared with; NULL:
                                   * only unwritten outputs are checked in the loop */
    unsigned long long promote;   /* an fp64 shadow (promote.h): its double arguments and */
    int shmem_scale;              /* dynamic shared memory scale (run mode); 0: none */
} measure_prog;

/* One input combination. */
typedef struct {
    int size, dist;
    long long seed;
} measure_combo;

/* Every (size, seed + seed_offset, dist) of the spec, sizes outermost (smallest first as
 * written), then distributions, then seeds. *out: new array (hk_free). HK_OK, HK_ENOMEM,
 * HK_EINVAL (a spec without sizes, seeds or distributions). */
int measure_combos(const spec *s, long long seed_offset, measure_combo **out, size_t *n_out);

/* The quick set: every (seed + seed_offset, dist) at the smallest size (fewest buffer
 * elements), then every dist with the first seed at each other size -- the large sizes,
 * whose runs cost seconds each, once per distribution. Same returns as measure_combos. */
int measure_combos_quick(const spec *s, long long seed_offset, measure_combo **out,
                         size_t *n_out);

/* The outcome of one process of the generated program. Owns details and json. */
typedef struct {
    enum measure_reason reason;  /* MEASURE_OK: exit 0 with a JSON result line */
    char *details;               /* why not, in words (the program's error message, signal) */
    json_t *json;                /* its JSON line (new reference held here), or NULL */
    long wall_ms;
    const char *isolation_words; /* static: what isolation the runner used */
} measure_run;

void measure_run_clear(measure_run *r);

/* Runs p->exe as hr describes (hr->block is replaced by p->block) in cwd with the run or time timeout (by hr->mode), the memory
 * limit and isolation of o, and maps the result. HK_OK when the outcome is known (look at
 * out->reason), HK_ECANCELED, HK_ENOMEM, HK_EIO. */
int measure_run_program(const measure_opts *o, const measure_prog *p, const char *cwd,
                        const harness_run *hr, measure_run *out);

/* ---- verdicts ---- */

/* What happened on a distribution the referee added (docs/accuracy.md). */
enum measure_precision {
    MEASURE_PRECISION_NONE = 0,   /* no such distribution among the combinations checked */
    MEASURE_PRECISION_PASS,       /* every float output within the fp64 rule's limit */
    MEASURE_PRECISION_FAIL,       /* an output beyond it: the verdict is wrong_answer */
    MEASURE_PRECISION_NOT_JUDGED, /* no fp64 reference covered it: only NaN/Inf where the
                                   * baseline is finite, the harness's own checks and
                                   * integer outputs were judged there */
};

/* Correctness verdict. Owns details (measure_verdict_clear). */
typedef struct {
    enum measure_reason reason;
    char *details;
    double max_abs_err, max_rel_err;  /* worst over the comparisons made; NAN: none made */
    measure_combo where;              /* the failing combination (reason != OK) */
    size_t n_checked;                 /* combinations that passed */
    long max_wall_ms;                 /* slowest program process seen (to size timeouts) */
    long max_combo_wall_ms;           /* run mode: the slowest process's wall clock per
                                       * combination it ran (to size run_timeout_ms) */
    struct measure_ref64_pool *ref64; /* errors against the fp64 reference, pooled over the
                                       * combinations compared (owned; measure_check judges) */
    /* The referee-added distribution (spec.n_referee_dists), judged by the fp64 rule alone
     * over its own pool: what measure_check found there. */
    enum measure_precision precision;
    size_t precision_runs;            /* its combinations compared */
    double precision_ratio;           /* worst error ratio over its float outputs; NAN: none */
    size_t n_widened;                 /* elements that passed only with the widened tolerance
                                       * (measure_widen), over the comparisons made */
    /* The image's writable globals, which the launcher restores before every launch (the
     * most a run-mode process reported; 0: none, or a program without an image), and the
     * first change a launch left in them where that did not fail the process (a baseline's
     * run: the launcher's sentence, new string; NULL: none). */
    long launch_globals;
    char *launch_changed;
} measure_verdict;

void measure_verdict_init(measure_verdict *v);
void measure_verdict_clear(measure_verdict *v);
/* Sets reason and a formatted details text (replacing earlier ones). HK_OK/HK_ENOMEM. */
int measure_verdict_set(measure_verdict *v, enum measure_reason reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Path of the output file of combination c (run mode) or of size k's time-mode re-check,
 * inside dir. New string (hk_free) or NULL on ENOMEM. */
char *measure_run_out_path(const char *dir, const measure_combo *c);
char *measure_time_out_path(const char *dir, int size);

/* Compares a candidate's output file with the reference's through the oracle (per-dtype
 * tolerance from the spec; NaN/Inf never pass), folding the errors into v. A mismatch
 * sets v->reason to MEASURE_WRONG_ANSWER with the max abs/rel error and the first bad
 * index; an unreadable or malformed candidate file is MEASURE_HARNESS_ERROR. HK_OK when
 * the comparison was made; HK_EIO when the reference cannot be read; HK_ENOMEM. */
int measure_compare_files(const measure_opts *o, const char *ref_path, const char *cand_path,
                          measure_verdict *v);

/* Baseline: runs every combination in run mode, keeping each output in ref_dir. The
 * baseline itself failing is reported in v (the episode cannot go on). HK_OK,
 * HK_ECANCELED, HK_ENOMEM, HK_EIO. */
int measure_reference(const measure_opts *o, const measure_prog *p, const char *ref_dir,
                      const measure_combo *combos, size_t n, measure_verdict *v);

/* Candidate: runs every combination in run mode in dir and compares each output with
 * ref_dir's, stopping at the first failure (v says which and why). Outputs are deleted
 * after their comparison. Same returns as measure_reference. */
int measure_check(const measure_opts *o, const measure_prog *p, const char *dir, const char *ref_dir,
                  const measure_combo *combos, size_t n, measure_verdict *v);

/* The distributions the sensitivity check of seed runs on: every one of the spec's
 * distributions where an input or inout holds plain real data (hk_perturb_eligible; the
 * referee's added real-valued one where the spec's are integer-valued only; never the
 * grid), in order, into dists; where more than MEASURE_SENS_MAX_DISTS are eligible,
 * MEASURE_SENS_MAX_DISTS consecutive ones (cyclically) from one the seed picks (splitmix64
 * of it, modulo their number). Returns how many; 0 when none, or s is not harness-form.
 * Until session 52 one distribution, picked by the seed, was checked: a sampler honest on j
 * of m eligible distributions escaped with probability j/m (tests/unit/test_engine_oracle_sens.c
 * dist_aware_sampler). */
#define MEASURE_SENS_MAX_DISTS 4
size_t measure_sens_dists(const spec *s, long long seed, int dists[MEASURE_SENS_MAX_DISTS]);

/* The sensitivity check (oracle_sens_check, docs/accuracy.md "The sensitivity check") of
 * candidate cp against baseline bp at size (the timed size), inputs from seed (a fresh
 * one) on each of measure_sens_dists(spec, seed), distribution d's plans drawn from
 * perturbation seed seed + d (so a report replays them), the bound's tolerance widened as
 * o->widen widens the comparison at (size, d); stops at the first failure. Program files
 * in dir (deleted after). An insensitive candidate sets v to MEASURE_INSENSITIVE with the
 * element, the expected and the got change; *note (new string, never NULL on HK_OK) says
 * what was found: passed (on which distributions; those not checked and why), not checked
 * and why (a command-form spec, no eligible input, a baseline response within rounding or
 * not finite: never a rejection), or the failure. *runs: program processes run. HK_OK,
 * HK_ECANCELED, HK_ENOMEM. */
int measure_sensitivity(const measure_opts *o, const measure_prog *bp, const measure_prog *cp,
                        const char *dir, int size, long long seed, char **note, int *runs,
                        measure_verdict *v);

/* Timing of one time-mode process. Owns raw. */
typedef struct {
    double median_ms, p10_ms, p90_ms, min_ms, spread;
    int reps;
    bool flushed_l2;
    int size;
    char *raw;      /* the program's JSON line (compact), or NULL */
    double drift;   /* 0, or (largest - smallest) / smallest of three processes' medians when
                     * the time was accepted by the drift rule (measure_time_stable) */
} measure_timing;

void measure_timing_clear(measure_timing *t);

/* Times exe at size (seed, dist), then the program re-checks correctness with check_seed
 * and writes that output to dir's time-mode file. ref_dir NULL: this is the baseline (the
 * file stays as the reference for that size); else it is compared with ref_dir's and a
 * mismatch is the verdict. A result that is not a positive time, or without a spread, is
 * MEASURE_HARNESS_ERROR; one whose L2 flush was not done (flushed_l2 not true) is
 * MEASURE_UNFLUSHED: no time is credited (t keeps the numbers for the details). One
 * process: the spread bound is the caller's (measure_time_stable). Same returns as
 * measure_reference. */
int measure_time(const measure_opts *o, const measure_prog *p, const char *dir, const char *ref_dir,
                 int size, long long seed, int dist, long long check_seed, measure_timing *t,
                 measure_verdict *v);

/* measure_time, and when the spread is above o->spread_bound once more in a fresh
 * process: still above with medians that differ by more than MEASURE_MEDIAN_AGREE, v is
 * MEASURE_UNSTABLE with both spreads, both medians and the bound -- unless allow_drift:
 * then a third process, and when the three medians lie within MEASURE_DRIFT_MAX of each
 * other (largest / smallest - 1) the middle one is kept, t->drift says how far apart they were, and the check's
 * result is "pass" with "medians", "drift" and a note (a kernel whose time moves from one
 * process to the next, llm.c's cross-entropy gather over an 823 MB buffer: its TLB misses
 * follow the physical page layout). The caller credits a speedup only beyond that drift
 * (measure_evaluate). Allowed for a baseline, and for a candidate only against a baseline
 * that needed it: a candidate on a stable baseline that drifts stays unstable. Each
 * process's spread check is appended to checks (may be NULL) as
 * {"check":"spread","role":role,"size","spread","bound","result":"pass"|"remeasure"|"fail"};
 * a pass after two spreads above the bound adds "median_drift" (the two medians' relative
 * difference, at most MEASURE_MEDIAN_AGREE) and a "note".
 * Same returns as measure_time. */
int measure_time_stable(const measure_opts *o, const measure_prog *p, const char *dir,
                        const char *ref_dir, int size, long long seed, int dist,
                        long long check_seed, const char *role, bool allow_drift,
                        json_t *checks, measure_timing *t, measure_verdict *v);

/* Why no physical floor applies to o's spec and peaks, in words (static), or NULL when one
 * does: no bytes/flops formula, unknown peaks, or formulas without their peak. */
const char *measure_floor_missing(const measure_opts *o);

/* Physical floor of size k from the spec's bytes/flops and o's peaks: *below true when
 * median_ms is under it. *floor_ms NAN and *below false when no floor applies. HK_OK,
 * HK_EINVAL. */
int measure_floor_check(const measure_opts *o, int size, double median_ms, double *floor_ms,
                        bool *below);

/* Achieved rates of one launch of size k taking ms: bytes/s and FLOP/s from the spec's
 * formulas (NAN when absent), and % of the roofline bound
 * (min(peak_bw * intensity, peak_flops) when both peaks and formulas are known; else the
 * percentage of whichever peak applies; NAN when none). */
void measure_rates(const measure_opts *o, int size, double ms, double *bytes_per_s,
                   double *flop_per_s, double *roofline_pct);

/* ---- speedup with its spread ---- */

typedef struct {
    double speedup;    /* median(a) / median(b) */
    double lo, hi;     /* p10 .. p90 of the per-pair ratios a[i] / b[i] */
    double mid;        /* their median */
    double a_median, b_median;
    size_t n;
} measure_speedup;

/* Pure: from n >= 1 paired times (a: baseline, b: candidate; all > 0). HK_OK, HK_EINVAL. */
int measure_speedup_compute(const double *a, const double *b, size_t n, measure_speedup *out);

/* The least speedup that counts as a gain: a candidate timed beside the baseline within 2% of
 * it is within the run's noise. The search measures against it (SEARCH_NOISE_SPEEDUP), and so
 * does the interleaved "faster" of verify-candidate: on the H100 the baseline's own kernel
 * plus one device printf (tests/gpu/cheats/printf_forge.cu) timed 29.4477 against 29.4489 ms
 * with every pair ratio in 1.00001..1.00014, a p10 above 1 at a 1.00004x "speedup". */
#define MEASURE_NOISE_SPEEDUP 1.02

/* Whether sp shows a candidate faster than its baseline: the p10 of the pair ratios above 1
 * (faster in at least nine pairs of ten) and the median of the pair ratios (not the median
 * times' ratio, which pairs 1% apart can put at 1.05) at or above MEASURE_NOISE_SPEEDUP. */
bool measure_speedup_faster(const measure_speedup *sp);

/* Quantile q in [0, 1] of n sorted values (linear interpolation, the harness's rule). */
double measure_quantile(const double *sorted, size_t n, double q);

/* Interleaved timing for the verify stage: A B A B ... pairs times, each a separate
 * process at size (seed, dist, check_seed); B's re-check outputs are compared with
 * ref_dir's like measure_time (A is the baseline: no comparison, its file refreshed only
 * in dir_a). a_ms, b_ms: caller arrays of pairs entries, filled with the medians. Stops at
 * the first failure of either side (verdict va/vb). Same returns as measure_reference. */
int measure_interleave(const measure_opts *o, const measure_prog *pa, const char *dir_a,
                       const measure_prog *pb, const char *dir_b, const char *ref_dir, int size,
                       long long seed, int dist, long long check_seed, size_t pairs,
                       double *a_ms, double *b_ms, measure_verdict *va, measure_verdict *vb);

/* ---- the whole pipeline for one candidate ---- */

/* The widened tolerance (docs/accuracy.md): where the baseline is itself far from its fp64
 * shadow (a naive float sum, a long dependent chain), a candidate as accurate as it, or
 * more, differs from it by up to twice that, and the spec's tolerance against the baseline
 * would refuse it. For each (size, distribution of the spec, float output) of the checked
 * combinations: the largest |baseline - fp64| over its seeds (and the relative L2 error),
 * at most the spec's own room at the output's scale (max(atol, rtol max|ref|); its L2
 * limit) and MEASURE_WIDEN_CAP of the reference's largest magnitude: the widening at most
 * doubles what the tolerance lets through. The fp64 rule still judges the candidate's own error
 * on those combinations (oracle_ref64_judge); the widening only stops the comparison with
 * the baseline from refusing what that rule found as accurate. */
#define MEASURE_WIDEN_CAP 0.01
typedef struct measure_widen {
    size_t n_sizes, n_dists;
    /* the baseline's own error (largest absolute, relative L2) at
     * [(size * n_dists + dist) * HK_MAX_ARGS + arg]; NULL: none measured */
    oracle_widen *err;
} measure_widen;

/* How much output arg's comparison widens at (size, dist): twice the baseline's own error
 * there; zeros outside the table or without one. */
oracle_widen measure_widen_at(const measure_widen *w, int size, int dist, unsigned arg);

/* The widening of every output at (size, dist) into out[HK_MAX_ARGS]; false when all are
 * 0 (nothing to widen). */
bool measure_widen_fill(const measure_widen *w, int size, int dist, oracle_widen *out);

/* What the baseline gave: its reference outputs and timing. Owns ref_dir and the arrays. */
typedef struct {
    char *ref_dir;
    measure_combo *combos;          /* the combinations checked (search seeds) */
    size_t n_combos;
    int primary_size;               /* the size the speedup is measured at: the baseline's
                                     * slowest */
    long long time_seed, check_seed;
    int time_dist;
    measure_timing *times;          /* per size (spec->n_sizes) */
    size_t n_times;
    char *ref64_dir;                /* the fp64 shadow's outputs for combos; NULL: none */
    char *ref64_note;               /* why there is no fp64 reference, when o->ref64 was
                                     * given; NULL otherwise */
    long long seed_offset;          /* added to every spec seed: drawn fresh per baseline
                                     * run (measure_fresh_seed), so no input is known before
                                     * the run; recorded so that a run can be replayed */
    json_t *checks;                 /* the primary time's checks (measure_eval.checks' form);
                                     * new reference held here, or NULL */
    measure_widen widen;            /* the baseline's own fp64 error (with ref64_dir) */
} measure_baseline;

void measure_baseline_clear(measure_baseline *b);

/* A fresh seed offset in [1, 2^40): $HK_SEED when set (a replay of a recorded run), else
 * from the kernel's random source. Never fails: falls back to the clock. */
long long measure_fresh_seed(void);

/* Runs the baseline program exe: reference outputs for every combination (the quick set
 * with o->quick_check) into ref_dir,
 * then time mode at every size (keeping the re-check outputs as references); the primary
 * size's time must have its L2 flush and stay within o->spread_bound after at most one
 * re-measure. v says whether the baseline itself works (the episode stops when it does
 * not: MEASURE_UNFLUSHED, MEASURE_UNSTABLE and the rest). HK_OK, HK_ECANCELED, HK_ENOMEM,
 * HK_EIO. */
int measure_baseline_run(const measure_opts *o, const measure_prog *p, const char *ref_dir,
                         measure_baseline *out, measure_verdict *v);

/* A candidate's full evaluation. Owns what its members own (measure_eval_clear). */
typedef struct {
    measure_verdict verdict;        /* correctness, timing and sanity together */
    measure_timing timing;          /* at the primary size (the re-measure when flagged) */
    double floor_ms;                /* NAN: no floor */
    double speedup;                 /* baseline median / candidate median; NAN when not timed */
    bool flagged;                   /* speedup over the suspicious limit (re-measured) */
    char *flag_note;                /* what the second look found, or NULL */
    /* The speedup counts as verified: the verdict is OK and a physical floor checked the
     * time (or o->allow_no_floor). false with credit_note saying why when no floor applied;
     * false without a note when the verdict is not OK. */
    bool credited;
    char *credit_note;
    /* measure_evaluate_ranked only: timed, but not faster than the leader it was given, so
     * the full correctness set did not run (credit_note says so, credited is false): the
     * time ranks it in a search, and it never becomes a version anyone applies. */
    bool behind;
    /* Every rule that decided, in order (new reference held here; never NULL after
     * measure_evaluate unless out of memory): objects {"check": "correctness" |
     * "stale_state" | "timing" | "spread" | "l2_flush" | "floor" | "second_look", "result":
     * "pass" | "fail" | "remeasure" | "missing" | "not_run" | ..., and that rule's numbers}. */
    json_t *checks;
} measure_eval;

void measure_eval_clear(measure_eval *e);

/* Correctness on every baseline combination, then timing at the primary size with the
 * post-loop re-check (L2 flush verified, spread within o->spread_bound after at most one
 * re-measure), then the floor check (a missing floor leaves the speedup uncredited unless
 * o->allow_no_floor), then short timed runs at the other sizes, then for a speedup over
 * the suspicious limit the second look: an independent correctness check on every size
 * and distribution with fresh seeds, and baseline and candidate timed again in fresh
 * processes on fresh inputs and re-check seeds; a failure there or a speedup that does not
 * reproduce within o->reproduce_tolerance rejects the candidate ("unstable" for the
 * speedup). The candidate's second time is kept, the flag stays. HK_OK when a verdict was
 * reached (see out->verdict.reason), HK_ECANCELED, HK_ENOMEM, HK_EIO. */
int measure_evaluate(const measure_opts *o, const measure_baseline *base,
                     const measure_prog *base_prog, const measure_prog *p, const char *dir,
                     measure_eval *out);

/* A candidate whose median is at least this times the leader's is behind it (timing noise
 * between two processes is a few percent: a near tie still gets the full check). */
#define MEASURE_LEAD_MARGIN 1.05

/* measure_evaluate for a search that keeps the fastest: the primary size is timed first
 * (with its post-loop re-check against the baseline's kernel, the L2 flush and the
 * spread); a candidate at or above lead_ms * MEASURE_LEAD_MARGIN is left there as behind
 * (out->behind, out->speedup set, not credited: it cannot become the best, and the
 * correctness set, the other sizes and the second look would only cost the GPU minutes
 * the search needs). One that could lead gets every check measure_evaluate runs. lead_ms
 * not positive and finite: measure_evaluate itself. */
int measure_evaluate_ranked(const measure_opts *o, const measure_baseline *base,
                            const measure_prog *base_prog, const measure_prog *p,
                            const char *dir, double lead_ms, measure_eval *out);

/* Takes the credit away from an evaluated candidate for a rule outside measure_evaluate
 * (rule: the check's name, e.g. "memory_safety"; why: the note, copied): credited becomes
 * false, credit_note says why, and the checks end with {"check": "credit", "result":
 * "not_credited", "by": rule, "why": why}. The verdict is untouched: the candidate is
 * correct and timed, its speedup is not vouched for. HK_OK, HK_ENOMEM. */
int measure_eval_uncredit(measure_eval *e, const char *rule, const char *why);

/* New reference: a verdict/eval as JSON (reason, details, errors, timing, floor, flag,
 * credited and credit_note, checks). */
json_t *measure_eval_json(const measure_eval *e);

/* ---- where output files go ---- */

/* Bytes of one output file of spec s at size k (header plus every output and inout
 * argument). HK_OK, HK_EINVAL (a count that does not evaluate). */
int measure_output_bytes(const spec *s, int size, uint64_t *out);

/* The directory under which output files (references and candidates' outputs, up to GBs
 * per run) should be written: the first of $HK_SCRATCH_DIR, $XDG_RUNTIME_DIR and /dev/shm
 * that is a writable directory with room for need bytes plus a quarter (statvfs), else
 * fallback. Memory-backed file systems make writing, reading back and comparing outputs
 * cost a memcpy instead of disk I/O. *out: new string (hk_free). HK_OK, HK_ENOMEM. */
int measure_scratch_parent(uint64_t need, const char *fallback, char **out);

/* Removes a directory tree (files and subdirectories; symlinks are not followed).
 * HK_OK (also when absent), HK_EIO. */
int measure_rmtree(const char *dir);
/* mkdir -p. HK_OK, HK_EIO. */
int measure_mkdirs(const char *dir);

#endif
