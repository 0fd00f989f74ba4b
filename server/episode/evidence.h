/* Evidence for and against a version, read from the tools' own output: the SASS that
 * `cuobjdump --dump-sass` prints (summarised per kernel: load/store widths, shared and
 * local memory traffic, atomics, tensor instructions, FP32 arithmetic), the metrics
 * `ncu --csv` prints (DRAM and SM throughput %, achieved occupancy), and the roofline
 * position of a measured time against the device's measured peaks. Everything comes out
 * as flat JSON objects for the store's evidence rows and the report.
 * Pure functions on text and numbers, any thread; running the tools is the caller's job
 * (the argv builders here keep the command lines in one place). */
#ifndef HK_ENGINE_EVIDENCE_H
#define HK_ENGINE_EVIDENCE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define EVIDENCE_MAX_TEXT ((size_t)256 << 20) /* larger tool output is refused (HK_ETOOBIG) */
#define EVIDENCE_MAX_KERNELS 4096             /* functions kept from one SASS dump */

/* ---- SASS ---- */

/* Per-kernel instruction counts. Global loads and stores are split by access width in
 * bits (8/16-bit: .U8/.S8/.U16/.S16; 32: no width suffix; 64; 128); 256 counts the
 * .256 forms of newer architectures. Counts are static (instructions in the code, not
 * executed ones): evidence of what the compiler emitted, e.g. that a rewrite made the
 * loads 128 bits wide or removed local-memory spills. */
typedef struct {
    char *function;        /* as cuobjdump names it (usually mangled) */
    char *kernel;          /* demangled base name ("vector_add") when decodable, else function */
    char *arch;            /* "sm_90" from the enclosing "code for sm_90"; "" when absent */
    long total;            /* instructions, NOP padding excluded */
    long ldg[5], stg[5];   /* global, by width index: 0: 8/16 bits, 1: 32, 2: 64, 3: 128, 4: 256 */
    long ldg_constant;     /* global loads through the read-only path (.CONSTANT / LDG.E.*.CONSTANT) */
    long ldgsts;           /* asynchronous global->shared copies (cp.async: LDGSTS) */
    long tma;              /* tensor-memory-accelerator bulk copies (UBLKCP, UTMALDG, UTMASTG) */
    long lds, sts, ldsm;   /* shared memory loads, stores, matrix loads (LDSM) */
    long ldl, stl;         /* local memory: register spills and local arrays */
    long atom_global;      /* ATOM, ATOMG, RED (global/generic atomics and reductions) */
    long atom_shared;      /* ATOMS */
    long tensor;           /* HMMA, HGMMA, IMMA, IGMMA, DMMA, QGMMA, BMMA, ... (*MMA) */
    long ffma, fadd, fmul, mufu; /* FP32 fused multiply-add, add, multiply; special functions */
    long dfma, dadd, dmul; /* FP64 */
    long hfma2;            /* packed half FMA (HFMA2, HFMA2.MMA) */
    long bar;              /* BAR (e.g. __syncthreads) */
    long shfl;             /* warp shuffles */
    long branch;           /* BRA, BRX, JMP */
} evidence_sass;

typedef struct {
    evidence_sass *items;
    size_t n;
} evidence_sass_list;

/* Parses cuobjdump --dump-sass text (len bytes) into one entry per "Function : NAME"
 * section, in order. Text without any function is HK_EPARSE (not SASS: an error message
 * of the tool, an empty file). *out must start zeroed; free with evidence_sass_list_free
 * (also after an error). HK_OK, HK_EPARSE, HK_ETOOBIG (over EVIDENCE_MAX_TEXT or
 * EVIDENCE_MAX_KERNELS functions), HK_ENOMEM. */
int evidence_sass_parse(const char *text, size_t len, evidence_sass_list *out);

void evidence_sass_list_free(evidence_sass_list *l);

/* The first entry whose demangled base name or function name equals kernel (for arch,
 * when arch is not NULL), or NULL. Borrowed from l. */
const evidence_sass *evidence_sass_find(const evidence_sass_list *l, const char *kernel,
                                        const char *arch);

/* *out: new reference, a flat object of the counts ("ldg_128", "stl", "tensor", ...),
 * plus "kernel", "function", "arch", "global_load_bits_avg" (mean width of the global
 * loads; null without loads) and "local_memory" (ldl + stl > 0: spills or local arrays;
 * ptxas's evidence says which). HK_OK or HK_ENOMEM. */
int evidence_sass_json(const evidence_sass *s, json_t **out);

/* New argv (evidence_argv_free): CUOBJDUMP --dump-sass BINARY. cuobjdump NULL:
 * "cuobjdump". HK_OK, HK_EINVAL (binary NULL), HK_ENOMEM. */
int evidence_cuobjdump_argv(const char *cuobjdump, const char *binary, char ***argv);

/* ---- Nsight Compute ---- */

/* The metrics asked for, comma-separated, for --metrics. */
#define EVIDENCE_NCU_METRICS                                                                    \
    "dram__throughput.avg.pct_of_peak_sustained_elapsed,"                                      \
    "sm__throughput.avg.pct_of_peak_sustained_elapsed,"                                        \
    "sm__warps_active.avg.pct_of_peak_sustained_active,"                                       \
    "gpu__time_duration.sum"

/* The metrics of one kernel, averaged over the profiled launches of it. NAN: absent. */
typedef struct {
    char *kernel;              /* "Kernel Name" as ncu printed it (first matching launch) */
    int launches;              /* profiled launches that were averaged */
    double dram_pct;           /* DRAM throughput, % of peak sustained */
    double sm_pct;             /* SM (compute) throughput, % of peak sustained */
    double occupancy_pct;      /* achieved occupancy: active warps, % of the SM's maximum */
    double duration_ms;        /* gpu__time_duration, in ms */
} evidence_ncu;

/* Parses `ncu --csv --metrics ...` output (the "ID","Process ID",...,"Metric Value" table,
 * possibly mixed with ==PROF== lines and the program's own output). Recognises the raw
 * metric names above and the section names of `--section` output ("DRAM Throughput",
 * "Compute (SM) Throughput", "Achieved Occupancy", "Duration"). kernel (may be NULL: the
 * first profiled kernel) selects the launches by base name ("vector_add" matches
 * "vector_add(const float *, ...)" and "void vector_add<256>(...)"). Values with
 * thousands separators are accepted; "n/a" is absent. *out must start zeroed
 * (evidence_ncu_clear). HK_OK; HK_ENOENT when the table has no launch of kernel;
 * HK_EPARSE when there is no table (e.g. "==ERROR== ... permission" output: the first
 * ==ERROR== line is then in *why, a new string, else *why NULL; why may be NULL);
 * HK_ETOOBIG, HK_ENOMEM. */
int evidence_ncu_parse(const char *text, size_t len, const char *kernel, evidence_ncu *out,
                       char **why);

void evidence_ncu_clear(evidence_ncu *n);

/* *out: new reference, {"kernel","launches","dram_throughput_pct","sm_throughput_pct",
 * "achieved_occupancy_pct","duration_ms"} with null for absent numbers. HK_OK/HK_ENOMEM. */
int evidence_ncu_json(const evidence_ncu *n, json_t **out);

/* New argv (evidence_argv_free): NCU --clock-control none --csv --metrics
 * EVIDENCE_NCU_METRICS [--kernel-name KERNEL] --launch-count LAUNCHES, then prog_argv
 * (NULL-terminated, at least the program). KERNEL is matched by ncu against the function
 * name without parameters or template arguments (its default --kernel-name-base). ncu
 * NULL: "ncu"; kernel NULL: no filter; launches <= 0: 1. HK_OK, HK_EINVAL, HK_ENOMEM. */
int evidence_ncu_argv(const char *ncu, const char *kernel, int launches,
                      const char *const *prog_argv, char ***argv);

void evidence_argv_free(char **argv);

/* ---- roofline ---- */

/* Where one launch sits against the device's measured peaks. NAN: not computable. */
typedef struct {
    double bytes, flops;             /* per launch, from the spec's formulas (NAN: absent) */
    double time_ms;                  /* median time of one launch */
    double bytes_per_s, flop_per_s;  /* achieved */
    double peak_bytes_per_s, peak_flop_per_s;
    double pct_of_peak_bandwidth;    /* achieved bytes/s over the peak, in % */
    double pct_of_peak_flops;
    double intensity;                /* FLOP per byte */
    double ridge;                    /* peak FLOP/s over peak bytes/s: the intensity where the
                                      * bound changes from memory to compute */
    bool compute_bound;              /* intensity >= ridge (false when FLOPs are unknown) */
    double attainable_flop_per_s;    /* min(peak FLOP/s, intensity * peak bytes/s) */
    double pct_of_bound;             /* floor time / measured time, in %: how close the launch
                                      * is to the roof that limits it (100 = on it) */
    double floor_ms;                 /* max(bytes / peak bytes/s, FLOPs / peak FLOP/s) */
} evidence_roofline;

/* Computes the position. time_ms must be > 0 and finite, and at least one of bytes and
 * flops (with its peak) usable; a NAN or <= 0 peak or formula is skipped. HK_OK or
 * HK_EINVAL (nothing computable; *out filled with NANs). */
int evidence_roofline_compute(double bytes, double flops, double time_ms,
                              double peak_bytes_per_s, double peak_flop_per_s,
                              evidence_roofline *out);

/* *out: new reference, a flat object of the fields above ("bound": "memory" | "compute",
 * NAN as null). HK_OK or HK_ENOMEM. */
int evidence_roofline_json(const evidence_roofline *r, json_t **out);

#endif
