/* Compiling CUDA/HIP sources for diagnostics and resource usage: building the
 * nvcc/hipcc command, parsing compiler output (errors, warnings, ptxas -v resources),
 * occupancy limiters, and running the compiler as a child process on a libuv loop.
 * The loop never waits on a compile (STYLE.md 9). */
#ifndef HK_COMPILE_COMPILE_H
#define HK_COMPILE_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

enum cc_backend { CC_NVIDIA, CC_DCU };

/* What to compile with. Strings are borrowed for the duration of the call that takes
 * the struct (cc_job_start copies what it keeps). */
typedef struct {
    enum cc_backend backend;
    const char *compiler;      /* NULL: "nvcc" / "hipcc" found on PATH or in CUDA_HOME/ROCM_PATH */
    const char *arch;          /* "sm_90", "gfx906"; NULL: sm_90 / gfx906 */
    const char *const *extra;  /* extra flags (-I, -D, -std=...), NULL-terminated, or NULL */
    const char *workdir;       /* directory to run in (the source file's), or NULL */
    unsigned timeout_ms;       /* 0: 60000 */
} cc_options;

enum cc_severity { CC_ERROR, CC_WARNING, CC_NOTE };

typedef struct {
    char *file;        /* as the compiler printed it */
    int line;          /* 1-based; 0 when unknown */
    int col;           /* 1-based; 0 when unknown */
    enum cc_severity severity;
    char *message;
} cc_diag;

typedef struct {
    char *kernel;          /* demangled name when the mangled one could be decoded, e.g. "saxpy" */
    char *mangled;         /* as ptxas printed it */
    char *arch;            /* "sm_90" */
    int registers;
    int spill_stores;      /* bytes */
    int spill_loads;       /* bytes */
    int stack;             /* stack frame bytes */
    int smem_static;       /* bytes */
    int cmem;              /* bytes of constant bank 0 */
} cc_resource;

typedef struct {
    int exit_code;         /* compiler exit status; -1 if it did not exit normally */
    bool timed_out;
    cc_diag *diags;
    size_t n_diags;
    cc_resource *res;
    size_t n_res;
    char *output;          /* captured stdout+stderr (capped at 1 MiB), NUL-terminated */
} cc_result;

void cc_result_free(cc_result *r);

/* Occupancy for one kernel on an architecture: resident blocks per SM and which
 * resource limits it. block_threads: threads per block (0: assume 256). */
typedef struct {
    int blocks_per_sm;
    int warps_per_sm;
    double occupancy;      /* active warps / max warps, 0..1 */
    const char *limiter;   /* "registers", "shared memory", "threads", "blocks" (static) */
} cc_occupancy;
/* HK_OK, or HK_EUNSUPPORTED for an unknown arch. */
int cc_occupancy_for(const char *arch, const cc_resource *r, int block_threads, int dyn_smem,
                     cc_occupancy *out);

/* New NULL-terminated argv (cc_argv_free) to compile src_path for diagnostics and
 * resource usage: nvcc -arch=ARCH -Xptxas -v -c -o /dev/null, or hipcc --offload-arch.
 * HK_OK, HK_ENOMEM. */
int cc_build_argv(const cc_options *o, const char *src_path, char ***argv_out);
void cc_argv_free(char **argv);

/* Parses compiler output into diags and res of *r (appending). HK_OK or HK_ENOMEM.
 * Unknown lines are ignored; it never fails on odd text. */
int cc_parse_output(enum cc_backend backend, const char *text, size_t len, cc_result *r);

/* An asynchronous compile of an in-memory text. The text is written to a private temp
 * file named like orig_name so diagnostics point to it; lines/files in results are
 * mapped back to orig_name. */
typedef struct cc_job cc_job;
/* Called exactly once on the loop thread: with the result (borrowed for the call) and
 * status HK_OK, or with res NULL and HK_ECANCELED / HK_EIO / HK_ENOENT (no compiler). */
typedef void (*cc_done_cb)(cc_job *job, int status, const cc_result *res, void *data);

/* Starts a compile; the job frees itself after cb returns. HK_OK, HK_ENOMEM, HK_EIO.
 * On failure cb is never called. */
int cc_job_start(uv_loop_t *loop, const cc_options *o, const char *orig_path,
                 const char *text, size_t len, cc_done_cb cb, void *data, cc_job **out);
/* Kills the compiler's process group; cb then runs with HK_ECANCELED. */
void cc_job_cancel(cc_job *job);

/* Finds the compiler for backend: new absolute path in *out, or HK_ENOENT. */
int cc_find_compiler(enum cc_backend backend, char **out);

#endif
