/* Compiling CUDA/HIP sources for diagnostics and resource usage: building the
 * nvcc/hipcc command, parsing compiler output (errors, warnings, ptxas -v resources,
 * clang kernel-resource-usage remarks), occupancy limiters, and running the compiler
 * as a child process on a libuv loop. The loop never waits on a compile (STYLE.md 9).
 * Everything here runs on the caller's thread; the job functions on the loop thread. */
#ifndef HK_COMPILE_COMPILE_H
#define HK_COMPILE_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

enum cc_backend { CC_NVIDIA, CC_DCU };

/* "nvidia" / "dcu" (static). */
const char *cc_backend_name(enum cc_backend b);

/* The .hip rule, the one place it is written: a file named *.hip is HIP source (its
 * launches use the hip* runtime), built for the DCU backend when no target says
 * otherwise; every other file is CUDA for NVIDIA. path may be NULL (false). Pure. */
bool cc_path_is_hip(const char *path);

/* The backend a file is compiled for when no target is configured: CC_DCU for a .hip
 * file (cc_path_is_hip), else CC_NVIDIA. Pure. */
enum cc_backend cc_backend_of_path(const char *path);

/* The compiler a backend's diagnostics come from, as the user knows it: "nvcc" or
 * "hipcc" (static). */
const char *cc_compiler_label(enum cc_backend b);

/* Whether a target or backend name ("dcu", "dcu:gfx906", "amd:gfx90a", "gfx906", an
 * episode's backend column) names the DCU/AMD backend; NULL or an NVIDIA name: false.
 * Looser than cc_parse_target: it only reads the family. Pure. */
bool cc_target_is_dcu(const char *target);

/* Parses a target "nvidia:sm_90", "dcu:gfx906", or a bare arch "sm_90" / "gfx906"
 * (the backend follows from the prefix). An NVIDIA arch must be one nvcc knows
 * (cc_nvidia_arch_known): sm_999 is a bad argument here, not a compile error later.
 * *arch_out: new string (hk_free). HK_OK, HK_EINVAL (not a target; nothing allocated),
 * HK_ENOMEM. */
int cc_parse_target(const char *s, enum cc_backend *backend_out, char **arch_out);

/* Whether arch is a compute capability nvcc knows in CUDA 12.0 to 13.0 ("sm_50" ..
 * "sm_121"), with an optional "a" or "f" feature suffix from sm_90 on ("sm_90a",
 * "sm_100f"). The installed nvcc may know fewer (CUDA 13 starts at sm_75): that stays a
 * compile error. Pure. */
bool cc_nvidia_arch_known(const char *arch);

/* The archs cc_nvidia_arch_known accepts, as one line for messages (static). */
const char *cc_nvidia_archs_text(void);

/* How much of a source cc_source_is_text reads. */
#define CC_TEXT_PROBE_BYTES ((size_t)64 << 10)

/* Whether text[0..len) reads as source text: no NUL byte and valid UTF-8 (no overlong
 * forms, surrogates or code points past U+10FFFF) in its first CC_TEXT_PROBE_BYTES; a
 * sequence cut by that limit counts as valid. A binary file renamed to .cu fails and is
 * refused before a compiler prints pages of warnings about it. When it fails, *why (may
 * be NULL) is what was found ("a NUL byte", "invalid UTF-8", static) and *at (may be
 * NULL) its byte offset. Pure. */
bool cc_source_is_text(const char *text, size_t len, const char **why, size_t *at);

/* cc_source_is_text on the first CC_TEXT_PROBE_BYTES of the file at path, into *is_text
 * (and *why, *at as there). HK_OK, HK_ENOENT (no such file; errno kept), HK_EINVAL (a
 * directory), HK_EIO (cannot open or read it; errno kept), HK_ENOMEM. Blocks on the file. */
int cc_source_file_is_text(const char *path, bool *is_text, const char **why, size_t *at);

/* What to compile with. Strings are borrowed for the duration of the call that takes
 * the struct (cc_job_start copies what it keeps). */
typedef struct {
    enum cc_backend backend;
    const char *compiler;      /* NULL: "nvcc" / "hipcc" found by cc_find_compiler */
    const char *arch;          /* "sm_90", "gfx906"; NULL: sm_90 / gfx906 */
    const char *const *extra;  /* extra flags (-I, -D, -std=...), NULL-terminated, or NULL */
    const char *workdir;       /* directory to run in (the source file's), or NULL */
    unsigned timeout_ms;       /* 0: 60000 */
} cc_options;

enum cc_severity { CC_ERROR, CC_WARNING, CC_NOTE };

typedef struct {
    char *file;        /* as the compiler printed it (a job maps its temp copy back to
                        * orig_path); NULL when the message names no file (driver or
                        * ptxas messages) */
    int line;          /* 1-based; 0 when unknown */
    int col;           /* 1-based; 0 when unknown */
    enum cc_severity severity;
    char *message;     /* one line; nvcc's "#177-D" style number is kept in it */
    char *kernel;      /* the bare identifier of the kernel a ptxas message is about
                        * ("reduce" for reduce<256>), for an_model_find_kernel, so the
                        * message can sit on the kernel's definition; or NULL */
} cc_diag;

typedef struct {
    char *kernel;          /* demangled name when the mangled one could be decoded, e.g. "saxpy",
                            * "reduce<256>", "hk::fill"; else a copy of mangled */
    char *base_name;       /* the unqualified identifier without template arguments, the name
                            * as written in the source ("reduce", "fill"): match it against
                            * an_model_find_kernel */
    char *mangled;         /* as ptxas / clang printed it */
    char *arch;            /* "sm_90", "gfx906" */
    int line;              /* DCU: the line clang's remark points at (the kernel body's
                            * opening brace); else 0 */
    int registers;         /* NVIDIA: registers per thread; DCU: VGPRs */
    int spill_stores;      /* bytes; NVIDIA only (DCU: see vgpr_spills) */
    int spill_loads;       /* bytes; NVIDIA only */
    int stack;             /* NVIDIA: stack frame bytes; DCU: ScratchSize bytes per lane */
    int smem_static;       /* bytes of static shared memory (DCU: LDS bytes per block) */
    int cmem;              /* bytes of constant bank 0 (ptxas prints it for some archs only) */
    int barriers;          /* NVIDIA: named barriers used (0 when not printed) */
    int sgprs;             /* DCU: scalar registers; 0 on NVIDIA */
    int agprs;             /* DCU: accumulation registers (gfx90a+); 0 otherwise */
    int vgpr_spills;       /* DCU: VGPRs spilled (a count, not bytes) */
    int sgpr_spills;       /* DCU: SGPRs spilled */
    int waves_per_simd;    /* DCU: the compiler's own occupancy estimate; 0 when unknown */
} cc_resource;

/* True when the kernel spills (NVIDIA spill bytes, or DCU spilled registers). */
bool cc_resource_spills(const cc_resource *r);

typedef struct {
    int exit_code;         /* compiler exit status; -1 if it did not exit normally */
    bool timed_out;
    cc_diag *diags;
    size_t n_diags;
    cc_resource *res;
    size_t n_res;
    char *output;          /* captured stdout then stderr (each capped at 1 MiB),
                            * NUL-terminated; NULL when empty or from cc_parse_output */
} cc_result;

/* Frees what r owns and zeroes it; r itself is the caller's. NULL-safe. */
void cc_result_free(cc_result *r);

/* Per-architecture limits behind the occupancy computation (docs/doctor.md gives the
 * sources). Values are static. */
typedef struct {
    const char *arch;          /* "sm_90", "gfx906" */
    enum cc_backend backend;
    int warp_size;             /* 32, or 64 (wavefront) */
    int max_threads_per_block;
    int max_warps_per_sm;      /* DCU: waves per CU */
    int max_blocks_per_sm;     /* DCU: workgroups per CU when a workgroup has > 1 wave */
    int regs_per_sm;           /* NVIDIA: 32-bit registers per SM; DCU: VGPRs per SIMD lane */
    int reg_alloc_unit;        /* NVIDIA: registers per warp allocation; DCU: VGPR granule */
    int max_regs_per_thread;
    int smem_per_sm;           /* bytes, largest carveout (DCU: LDS per CU) */
    int smem_per_block;        /* bytes, opt-in maximum */
    int smem_alloc_unit;       /* bytes */
    int smem_reserved;         /* bytes the driver reserves per block */
    int barrier_factor;        /* NVIDIA: barriers available = factor * block limit (sm_90+;
                                * 0: barriers do not limit) */
    int simds;                 /* DCU: SIMDs per CU; NVIDIA: SM sub-partitions */
    int max_waves_per_simd;    /* DCU only */
    int sgprs_per_simd;        /* DCU only */
    bool unified_agprs;        /* DCU: VGPRs and AGPRs share one file (gfx90a) */
} cc_arch_limits;

/* The limits for arch (borrowed static), or NULL when the arch is not in the table. */
const cc_arch_limits *cc_arch_find(const char *arch);
/* The table itself (static), n_out entries. */
const cc_arch_limits *cc_arch_table(size_t *n_out);

/* Occupancy for one kernel on an architecture: resident blocks per SM and which
 * resource limits it. block_threads: threads per block (0: assume 256). */
typedef struct {
    int blocks_per_sm;
    int warps_per_sm;
    double occupancy;      /* active warps / max warps, 0..1 */
    const char *limiter;   /* "threads", "blocks", "registers", "shared memory", "barriers",
                            * "sgprs" (static); when several bind, the first in that order
                            * (so "threads"/"blocks" mean the hardware maximum is reached) */
    int block_threads;     /* the block size used */
} cc_occupancy;
/* HK_OK, HK_EUNSUPPORTED for an unknown arch, HK_EINVAL for block_threads or dyn_smem
 * out of range (blocks_per_sm 0 with the limiter set is HK_OK: the launch cannot fit). */
int cc_occupancy_for(const char *arch, const cc_resource *r, int block_threads, int dyn_smem,
                     cc_occupancy *out);

/* New NULL-terminated argv (cc_argv_free) to compile src_path for diagnostics and
 * resource usage: nvcc -arch=ARCH -Xptxas -v -c -o /dev/null [extra] -x cu SRC, or
 * hipcc --offload-arch=ARCH -c -o /dev/null -Rpass-analysis=kernel-resource-usage
 * [extra] -x hip SRC. o->compiler NULL gives "nvcc"/"hipcc" (found on PATH by the
 * spawn). HK_OK, HK_ENOMEM, HK_EINVAL (an arch starting with '-'). */
int cc_build_argv(const cc_options *o, const char *src_path, char ***argv_out);
void cc_argv_free(char **argv);

/* true when arg may be given to the compiler driver of backend: it reaches a shell
 * unchanged in meaning. nvcc runs its steps with sh -c, putting each argument in "..."
 * but leaving backquotes alone (so -I`cmd` runs cmd); hipcc, a Perl script, joins its
 * arguments into shell command lines. Refused: control characters and
 * ` $ " ' \ ; & | < > ( ) * ? ! { } [ ], and for hipcc also spaces. Pure. */
bool cc_arg_shell_safe(enum cc_backend backend, const char *arg);

/* Parses compiler output into diags and res of *r (appending). HK_OK or HK_ENOMEM.
 * Unknown lines are ignored; it never fails on odd text. Identical diagnostics (hipcc
 * prints host and device passes) are kept once. */
int cc_parse_output(enum cc_backend backend, const char *text, size_t len, cc_result *r);

/* Decodes an Itanium-mangled function name enough for display: *qualified gets
 * "ns::name<args>" and *base the bare identifier. Names that are not mangled
 * (extern "C") come back unchanged. New strings (hk_free); either out may be NULL.
 * HK_OK, HK_EPARSE (not decodable: nothing allocated), HK_ENOMEM. */
int cc_demangle(const char *mangled, char **qualified, char **base);

/* An asynchronous compile of an in-memory text. The text is copied, and the copy written
 * on the libuv pool to a private temp dir (also the compiler's TMPDIR, removed
 * afterwards) under orig_path's basename; the compiler is spawned on the loop once it is
 * written. The original file's directory is added with -I so relative includes work;
 * lines/files in results are mapped back to orig_path. */
typedef struct cc_job cc_job;
/* Called exactly once on the loop thread: with the result (borrowed for the call) and
 * status HK_OK (also for compile errors and timeouts: see res->exit_code, timed_out),
 * or with res NULL and HK_ECANCELED / HK_EIO / HK_ENOENT (no compiler). The job is
 * freed after cb returns: do not touch it from then on. */
typedef void (*cc_done_cb)(cc_job *job, int status, const cc_result *res, void *data);

/* Starts a compile; the job frees itself after cb returns. text is copied (the caller
 * may change it at once). HK_OK, HK_ENOMEM, HK_EIO (no temp dir, or a loop that takes no
 * more work), HK_ETOOBIG (text over 16 MiB), HK_EINVAL. On failure cb is never called.
 * What fails later, always on a later loop iteration, comes to cb: a missing compiler
 * (HK_ENOENT), the copy not written or the compiler not spawned (HK_EIO, HK_ENOMEM).
 * Loop thread. *out (may be NULL) is valid until cb returns. */
int cc_job_start(uv_loop_t *loop, const cc_options *o, const char *orig_path,
                 const char *text, size_t len, cc_done_cb cb, void *data, cc_job **out);
/* Work on the pool with a compile's parsed result (borrowed for the call) and the very
 * text compiled (*text: len bytes, NUL after them; the job's, which post may take for
 * itself, setting *text to NULL, else freed after it): called once the output is parsed,
 * on a pool thread, before cb on the loop, and only for a result cb will get with HK_OK
 * (not for a failure, nor for a cancel seen before the parse: a cancel that comes while
 * post runs still reaches cb as HK_ECANCELED, so post must leave what it makes where cb,
 * or the freeing of data, finds it). It may touch nothing the loop touches meanwhile:
 * data is the job's, the loop's state is not. So that a big result costs the caller's
 * loop nothing, cb then gets a result that keeps only exit_code and timed_out (the
 * diagnostics, resources and output were freed on the pool after post). */
typedef void (*cc_post_fn)(const cc_result *res, char **text, size_t len, void *data);
/* cc_job_start with post (NULL: none), and without the copy: text is the caller's copy
 * (hk_malloc'd, len bytes and a NUL after them), stolen, freed on failure too. A caller
 * that keeps a spare buffer whose pages are touched makes its copy there and takes it back
 * in post: a 742 KB copy into fresh pages costs 180 page faults, 2.5-4.5 ms of the loop on
 * the development VM, where the copy itself costs 0.2 ms. */
int cc_job_start_post(uv_loop_t *loop, const cc_options *o, const char *orig_path, char *text,
                      size_t len, cc_post_fn post, cc_done_cb cb, void *data, cc_job **out);
/* Kills the compiler's process group (or, while the copy is still being written, spawns
 * none); cb then runs with HK_ECANCELED on a later iteration. Only before cb has run; a
 * second call, or one from inside cb, does nothing. */
void cc_job_cancel(cc_job *job);
/* The process id of the running compiler (its process group id), or 0. For tests. */
int cc_job_pid(const cc_job *job);
/* For exit paths that will not run the loop again (shutdown, fatal errors): SIGKILLs
 * every running compile's process group and removes the temp dirs, synchronously, those
 * of the jobs whose copy is still being written too (they spawn nothing). The jobs still
 * report HK_ECANCELED if the loop does run later; a job whose compiler had already ended
 * is being parsed on the pool, removes its dir there and reports its result. A copy
 * being written at this very moment may outlive the call until the loop runs. Loop
 * thread. */
void cc_job_kill_all(void);

/* Finds the compiler for backend: new absolute path in *out, or HK_ENOENT. Looks at
 * PATH, then CUDA_HOME, CUDA_PATH, /usr/local/cuda/bin (nvcc) or ROCM_PATH,
 * /opt/rocm/bin, /opt/dtk/bin (hipcc). HK_ENOMEM. */
int cc_find_compiler(enum cc_backend backend, char **out);
/* Finds a tool by name on PATH and then in the directories above for backend
 * (e.g. "ptxas", "cuobjdump", "hipconfig"). Same results as cc_find_compiler. */
int cc_find_tool(enum cc_backend backend, const char *name, char **out);

#endif
