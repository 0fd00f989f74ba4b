/* hk_harness.h: the runtime of the benchmark programs that Hyper Kernel generates from
 * a harness-form bench spec (server/measure/harness.c writes the rest). Header-only.
 *
 * The first part is plain C (C11 and C++): data types, exit codes, distributions and
 * the output-file layout, shared by the server (spec parser, oracle) and the program.
 * The second part is CUDA C++ (only under __CUDACC__, or __HIPCC__ for DCU / AMD targets
 * through hk_hip.h's CUDA-to-HIP names): seeded inputs, poisoned outputs,
 * guard zones around every buffer, the timing loop with L2 flushes, and main's modes.
 *
 * A generated program runs as:
 *   prog --mode run  --size K --seed S --dist D --out FILE
 *   prog --mode run  --size K --combos S:D[,S:D...] --out-dir DIR
 *        (every combination of that size in one process, each with its own inputs, poison,
 *        guard and unchanged-input checks, written to DIR/run-sK-dD-seedS.out: the name
 *        HK_RUN_OUT_NAME gives, which the server reads back)
 *        [--launch-state check]  (run mode with --module: a launch that leaves a writable
 *        global of the image changed fails the program; default "restore": restored and
 *        noted in the result line)
 *        [--prime-sizes K2[,K3...]]  (run mode: first one unchecked "priming" launch at
 *        each of those sizes, its buffers then freed, so that whatever the kernel leaves in
 *        device memory it owns is there when size K runs; see hk_prime)
 *   prog --mode time --size K --seed S --dist D --check-seed S2 --out FILE
 *        [--budget-ms MS] [--min-reps N] [--max-reps N] [--warmup N] [--target-spread F]
 *        [--ref-module CUBIN --ref-function NAME [--ref-launch GX,GY,GZ,BX,BY,BZ,SHMEM]
 *         [--widen I=W[,I=W...]]]
 *        [--checks N]
 *   prog --mode probe
 *   (all modes accept --block X[,Y[,Z]] to override the spec's block dims, and
 *   --module CUBIN --function NAME: the kernel to run, loaded with the driver API)
 *
 * Two kinds of program come from the generator. A *launcher* (the default) holds no line
 * of candidate text: the kernel is a device-only image (nvcc -cubin; for a DCU a hipcc
 * --genco code object) loaded at run time (--module, --function; cuModuleLoad or
 * hipModuleLoad), so a candidate cannot reach the timer, the inputs' generator or the
 * checks. A *program* #includes the source and calls the kernel directly: only the
 * engine's own library substitutions (a cuBLAS/hipBLAS host call it generated) use it.
 *
 * Every launch of a loaded image starts from the same device state: the image's writable
 * globals (__device__ variables, read from its ELF symbol table: hk_kglobals_each) are set
 * back to their bytes at load before each launch, outside the timed region; run mode
 * compares them after each launch, and with --launch-state check (the server's candidates)
 * a launch that leaves one changed fails the program (launch_state, HK_EXIT_LAUNCH_STATE).
 *
 * A spec's __constant__ inputs ("constants") are generated like inputs and copied into the
 * kernel's own variables: a launcher finds them in the loaded image (cuModuleGetGlobal or
 * hipModuleGetGlobal, by hk_constant_symbol's name), the reference image included; a
 * program has them by symbol.
 *
 * Time mode is checked timing: every timed launch gets freshly generated inputs (a seed
 * per launch, drawn from --seed, on the device, outside the timed region) and poisoned
 * outputs; after each launch the device is synchronized and work still running is
 * stray_work; randomly chosen launches, and always the last, are re-run on the same
 * inputs with the reference kernel (--ref-module: the baseline's image) and compared
 * element by element with the spec's tolerance (its atol widened by --widen's W for
 * argument I: where the baseline is itself that far from its fp64 shadow, the server's
 * oracle widens so too). The reference runs with the baseline's own
 * launch (--ref-launch, which the server read from the baseline's timing at this size):
 * a candidate's block and grid (a grid-stride loop over an SM-multiple grid, another
 * block size) would leave a kernel written for its own launch with elements unwritten or
 * out of bounds. Without --ref-launch it runs with the candidate's.
 * It prints exactly one JSON line on stdout (the result, or {"error":...}) and exits
 * with one of the HK_EXIT_* codes below. */
#ifndef HK_HARNESS_H
#define HK_HARNESS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Element types of spec arguments. The numbers are written into output files: never
 * renumber. */
enum hk_dtype {
    HK_DT_F32 = 1,
    HK_DT_F64 = 2,
    HK_DT_F16 = 3,
    HK_DT_BF16 = 4,
    HK_DT_I8 = 5,
    HK_DT_I16 = 6,
    HK_DT_I32 = 7,
    HK_DT_I64 = 8,
    HK_DT_U8 = 9,
    HK_DT_U16 = 10,
    HK_DT_U32 = 11,
    HK_DT_U64 = 12,
};

/* Bytes per element; 0 for an unknown code. */
static inline size_t hk_dtype_size(int dt)
{
    switch (dt) {
    case HK_DT_I8: case HK_DT_U8: return 1;
    case HK_DT_F16: case HK_DT_BF16: case HK_DT_I16: case HK_DT_U16: return 2;
    case HK_DT_F32: case HK_DT_I32: case HK_DT_U32: return 4;
    case HK_DT_F64: case HK_DT_I64: case HK_DT_U64: return 8;
    default: return 0;
    }
}

static inline int hk_dtype_is_float(int dt)
{
    return dt == HK_DT_F32 || dt == HK_DT_F64 || dt == HK_DT_F16 || dt == HK_DT_BF16;
}

static inline int hk_dtype_is_signed(int dt)
{
    return dt == HK_DT_I8 || dt == HK_DT_I16 || dt == HK_DT_I32 || dt == HK_DT_I64;
}

/* Canonical spec name of a dtype ("float", "half", "int32", ...); "?" when unknown. */
static inline const char *hk_dtype_name(int dt)
{
    switch (dt) {
    case HK_DT_F32: return "float";
    case HK_DT_F64: return "double";
    case HK_DT_F16: return "half";
    case HK_DT_BF16: return "bfloat16";
    case HK_DT_I8: return "int8";
    case HK_DT_I16: return "int16";
    case HK_DT_I32: return "int32";
    case HK_DT_I64: return "int64";
    case HK_DT_U8: return "uint8";
    case HK_DT_U16: return "uint16";
    case HK_DT_U32: return "uint32";
    case HK_DT_U64: return "uint64";
    default: return "?";
    }
}

/* Exit codes of a generated program. 124/137 are left to the runner (timeout/kill). */
enum hk_exit {
    HK_EXIT_OK = 0,
    HK_EXIT_INTERNAL = 1,       /* the harness itself failed (host memory, ...) */
    HK_EXIT_USAGE = 2,          /* bad command line, or the spec does not fit the kernel */
    HK_EXIT_CUDA = 3,           /* a CUDA call or the kernel launch failed (illegal address, ...) */
    HK_EXIT_UNWRITTEN = 4,      /* an output element kept its poison: the kernel skipped it */
    HK_EXIT_INPUT_MODIFIED = 5, /* an input buffer changed during the launch */
    HK_EXIT_OUT_OF_BOUNDS = 6,  /* a guard zone around a buffer was overwritten */
    HK_EXIT_IO = 7,             /* the output file could not be written */
    HK_EXIT_NO_GPU = 8,         /* no CUDA device (HIP build: no HIP device) */
    HK_EXIT_STRAY = 9,          /* device work still running after a timed launch returned */
    HK_EXIT_WRONG = 10,         /* a checked timed launch disagrees with the reference kernel */
    HK_EXIT_LAUNCH_STATE = 11,  /* --launch-state check: a launch left a writable global of the
                                 * image changed (HK_LAUNCH_STATE_FMT) */
};

/* The sentence of HK_EXIT_LAUNCH_STATE (English; the server's message table has the same
 * text as HK_MSG_MEAS_LAUNCH_STATE, so a stored one is said again in the user's language):
 * the variable, its size, the first and last differing byte, the bytes before the launch and
 * after it (hex, at most 16). */
#define HK_LAUNCH_UNRESTORED_FMT                                                                \
    "%zu writable global(s) of the kernel image (the first: %s) cannot be found in the loaded "  \
    "module, so the launcher cannot restore them before every launch"
/* A candidate whose local reach (the larger of its frame and the context's per-thread stack:
 * hk_lmem_scrub_size) is more than hk_lmem_scrub clears (HK_LMEM_MOST, the PTX scan's
 * KIMAGE_LOCAL_SCRUB_MOST): the reach's bytes, the most the scrub clears. */
#define HK_LMEM_MOST ((size_t)65536)
#define HK_LAUNCH_FRAME_FMT                                                                     \
    "the kernel's local frame and the context's stack reach %zu bytes per thread, more than "     \
    "the %zu the launcher clears before every launch: local memory beyond that keeps what one "  \
    "launch left for the next"

/* The frames of hk_lmem_scrub's kernels, in bytes per thread, smallest first (the scrub's cost
 * grows with its frame: 48.5 us at 256 B, 730.7 us at 4 KiB on the H100, session 36). */
#define HK_LMEM_SIZES 256, 512, 1024, 1536, 2048, 4096, 8192, 16384, 32768, 65536

/* How much of its local window hk_lmem_scrub zeroes per thread before a launch of a
 * candidate whose frame is `frame` bytes (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) in a context
 * whose per-thread stack is `stack` bytes (CU_LIMIT_STACK_SIZE): the smallest of HK_LMEM_SIZES
 * that holds the larger of the two, the thread's whole local window however it makes an
 * address in it (a local array indexed past its end, a generic pointer made from an integer:
 * docs/sanitizer.md). The stack is the thread's local memory and the frame lies inside it:
 * on the H100 (session 37) a word 1008 B below a 16 B frame carried over under the default
 * 1 KiB limit, 2048 B below faulted, and the driver raised the limit to the frame of each
 * scrub kernel it ran (1536, then 8192 B). So the answer is stable when the stack is read
 * again before each scrub: the scrub raises the limit to its own size at most, and the next
 * answer is the same size. 0 when the larger is more than HK_LMEM_MOST (the candidate's
 * checked process fails launch_state, HK_LAUNCH_FRAME_FMT). */
static inline size_t hk_lmem_scrub_size(size_t frame, size_t stack)
{
    static const size_t sizes[] = { HK_LMEM_SIZES };
    size_t reach = frame > stack ? frame : stack;
    if (reach > HK_LMEM_MOST)
        return 0;
    size_t k = 0;
    while (sizes[k] < reach)
        k++;
    return sizes[k];
}
#define HK_LAUNCH_STATE_FMT                                                                     \
    "the launch left __device__ variable %s (%zu bytes) changed: bytes %zu..%zu were %s before " \
    "the launch and %s after it; a kernel must leave its writable globals as it found them "   \
    "(the launcher restores them before every launch)"


/* Value distributions of input buffers. a, b: uniform(lo=a, hi=b), normal(mu=a,
 * sigma=b), int(lo=a, hi=b) inclusive, ones_sparse(p=a), zeros (accumulators only),
 * grid(lo=a, hi=b): k * q with q a power of two and k uniform over the integers that put
 * k * q inside [lo, hi] (hk_grid_params), values whose sums and products are exact in
 * float in any order while they stay under 2^24 quanta (the referee's exact-arithmetic
 * distribution, docs/accuracy.md). */
enum hk_dist_kind {
    HK_DIST_UNIFORM = 1,
    HK_DIST_NORMAL = 2,
    HK_DIST_INT = 3,
    HK_DIST_ONES_SPARSE = 4,
    HK_DIST_ZEROS = 5,
    HK_DIST_GRID = 6,
};

typedef struct {
    int kind; /* enum hk_dist_kind; 0 for "not an input" */
    double a, b;
} hk_dist;

#if defined(__CUDACC__) || defined(__HIPCC__)
#define HK_GRID_FN static inline __host__ __device__
#else
#define HK_GRID_FN static inline
#endif
/* grid(lo, hi)'s lattice: q = 2^floor(log2(hi - lo)), halved until at least two multiples
 * of q lie in [lo, hi]; the multiples are k * q for k in [*k0, *k0 + *nk - 1]. One function
 * for the host's fill and the device's generator, so both give the same values. lo < hi
 * (spec_dist_parse); anything else gives q = 1 and the one value floor(lo). */
HK_GRID_FN void hk_grid_params(double lo, double hi, double *q, double *k0, double *nk)
{
    int e = 0;
    *q = 1.0;
    *k0 = floor(lo);
    *nk = 1.0;
    if (!(hi > lo) || !(hi - lo < 1e300))
        return;
    frexp(hi - lo, &e); /* hi - lo = m * 2^e, m in [0.5, 1): floor(log2) = e - 1 */
    double s = ldexp(1.0, e - 1);
    for (int i = 0; i < 64 && floor(hi / s) - ceil(lo / s) < 1.0; i++)
        s *= 0.5;
    *q = s;
    *k0 = ceil(lo / s);
    *nk = floor(hi / s) - *k0 + 1.0;
}
/* The grid value of u in [0, 1) (hk_grid_params' lattice, k uniform over its nk
 * integers). */
HK_GRID_FN double hk_grid_value(double q, double k0, double nk, double u)
{
    double k = floor(nk * u);
    return (k0 + (k > nk - 1.0 ? nk - 1.0 : k)) * q;
}

/* The referee's sensitivity check (docs/accuracy.md "The sensitivity check"): run mode
 * with --perturb SEED:SCALE raises HK_PERTURB_N elements (the ladder; with SEED:SCALE:spread
 * the spread plan's HK_PERTURB_SPREAD, below) of every input and inout argument
 * that holds plain real data (a float dtype drawn from uniform() or normal():
 * hk_perturb_eligible; never integers, indices, sparse masks, zeros or grids) by known
 * amounts after they are filled. Positions and amounts follow from (SEED, argument index,
 * count, distribution, SCALE) alone (hk_perturb_plan), so the server, a test and a report
 * can replay them. Element j of the plan (j = 0 .. HK_PERTURB_N - 1) is raised by
 * SCALE * unit * 64^-j, unit the distribution's magnitude (uniform: max(|lo|, |hi|);
 * normal: |mu| + sigma), always upward (an input that must stay positive, a log's, stays
 * so). Amounts 64x apart: where the raised elements meet in one output (a sum), the
 * largest decides it, so a kernel that reads a share of its input and scales it by k
 * answers k times the largest (k in [1.2, 50]: off by 15% at least) or misses it (off by
 * 95% at least). Amounts 4x apart were matched by lopsided_sum's x4 in 1 of 9 seed sets
 * (reading the 2nd and 3rd, skipping the 1st: 4 (1/4 + 1/16) = 1.25 against 1.33); any
 * ratio r is matched so by a sampler with k = 1/r, and 1/64 of the input read misses the
 * fp64 rule by itself (docs/accuracy.md). Where they meet different outputs (rows,
 * elements), each is a test of its own once its change is significant. */
#define HK_PERTURB_N 4
/* The spread plan (SEED:SCALE:spread, session 52): HK_PERTURB_SPREAD elements, one drawn in
 * each of HK_PERTURB_SPREAD equal strata of the argument (so a contiguous skipped share of
 * 2/HK_PERTURB_SPREAD or more always holds one), each raised by SCALE * unit /
 * HK_PERTURB_SPREAD: together as much as the first plan's largest. Where they meet in one
 * sum, each is 1/HK_PERTURB_SPREAD (12.5%) of the change, above what the check's bound lets
 * a candidate miss (5% + 1/16 at most): a kernel that reads a share and adds the rest's
 * expected value (a mean it knows from the distribution, no scaling) misses each one in its
 * skipped share, which the first plan's largest alone catches with probability f only.
 * Equal amounts cannot tell a sampler scaling by k = m / (m - j) that skipped j of them: the
 * first plan, 64x apart, catches those. Positions from their own stream (another constant),
 * so the two plans are independent draws. */
#define HK_PERTURB_SPREAD 8
#define HK_PERTURB_MAX 8 /* the larger of the two */
enum hk_perturb_kind { HK_PERTURB_LADDER = 0, HK_PERTURB_SPREAD_PLAN = 1 };

static inline bool hk_perturb_eligible(int dtype, hk_dist d)
{
    bool real = dtype == HK_DT_F32 || dtype == HK_DT_F64 || dtype == HK_DT_F16 || dtype == HK_DT_BF16;
    return real && (d.kind == HK_DIST_UNIFORM || d.kind == HK_DIST_NORMAL);
}

static inline uint64_t hk_perturb_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The plan of kind `kind` (enum hk_perturb_kind) for argument arg (count elements from
 * distribution d) under perturbation seed seed and scale: *n distinct positions in pos and
 * the amounts added (before the element type's rounding). Ladder: HK_PERTURB_N positions,
 * pos[0] gets the largest, amounts 64x apart; spread: HK_PERTURB_SPREAD positions in
 * ascending strata, equal amounts. *n is 0 when the argument is not eligible or holds fewer
 * elements than the plan's positions. */
static inline void hk_perturb_plan_kind(uint64_t seed, int arg, uint64_t count, int dtype, hk_dist d,
                                        double scale, int kind, uint64_t pos[HK_PERTURB_MAX],
                                        double amount[HK_PERTURB_MAX], int *n)
{
    *n = 0;
    int m = kind == HK_PERTURB_SPREAD_PLAN ? HK_PERTURB_SPREAD : HK_PERTURB_N;
    if (!hk_perturb_eligible(dtype, d) || count < (uint64_t)m || !(scale > 0.0))
        return;
    double unit = d.kind == HK_DIST_UNIFORM ? (fabs(d.a) > fabs(d.b) ? fabs(d.a) : fabs(d.b))
                                            : fabs(d.a) + fabs(d.b);
    if (!(unit > 0.0))
        unit = 1.0;
    uint64_t s = seed * 0x100000001B3ull + (uint64_t)arg * 0x9E3779B9ull + 0x5E45ull;
    if (kind == HK_PERTURB_SPREAD_PLAN) {
        s ^= 0x5B7EADull << 20;
        for (int j = 0; j < m; j++) {
            uint64_t lo = count / (uint64_t)m * (uint64_t)j + (count % (uint64_t)m) * (uint64_t)j / (uint64_t)m;
            uint64_t hi = count / (uint64_t)m * (uint64_t)(j + 1) +
                          (count % (uint64_t)m) * (uint64_t)(j + 1) / (uint64_t)m;
            pos[j] = lo + hk_perturb_next(&s) % (hi - lo);
            amount[j] = scale * unit / (double)m;
        }
        *n = m;
        return;
    }
    for (int j = 0; j < m;) {
        uint64_t p = hk_perturb_next(&s) % count;
        bool seen = false;
        for (int k = 0; k < j; k++)
            seen |= pos[k] == p;
        if (seen)
            continue;
        pos[j] = p;
        amount[j] = scale * unit * ldexp(1.0, -6 * j);
        j++;
    }
    *n = m;
}

/* The value a planned element of x takes under amount (session 52): at SCALE <= 1 (the
 * check's first amount) a uniform(lo, hi) input stays inside its declared range, raised by
 * at most half its distance to hi (never to hi itself, which the fill never makes: a
 * coordinate x * W cast to an index stays below W), so that where the response to in-range changes is significant (elementwise
 * and row kernels) the check never drives the baseline out of its domain (a float used as
 * an index or a coordinate, a fast path a candidate takes for the declared range); larger
 * amounts, tried only when the in-range response is within rounding (a sum over 2^24
 * elements), leave it. */
static inline double hk_perturb_value(double x, double amount, hk_dist d, double scale)
{
    if (d.kind == HK_DIST_UNIFORM && scale <= 1.0) {
        double hi = d.a > d.b ? d.a : d.b, room = 0.5 * (hi - x);
        return x + (amount < room ? amount : room > 0.0 ? room : 0.0);
    }
    return x + amount;
}

/* The ladder plan (session 51's, the one --perturb SEED:SCALE applies). */
static inline void hk_perturb_plan(uint64_t seed, int arg, uint64_t count, int dtype, hk_dist d,
                                   double scale, uint64_t pos[HK_PERTURB_N],
                                   double amount[HK_PERTURB_N], int *n)
{
    uint64_t p[HK_PERTURB_MAX];
    double a[HK_PERTURB_MAX];
    hk_perturb_plan_kind(seed, arg, count, dtype, d, scale, HK_PERTURB_LADDER, p, a, n);
    for (int j = 0; j < *n; j++) {
        pos[j] = p[j];
        amount[j] = a[j];
    }
}

/* Argument kinds, in spec order. */
enum hk_arg_kind { HK_ARG_SCALAR = 0, HK_ARG_INPUT = 1, HK_ARG_OUTPUT = 2, HK_ARG_INOUT = 3 };

/* Output file (little-endian, naturally aligned, no padding):
 *   header:  char magic[8] = HK_OUT_MAGIC; uint32 version = HK_OUT_VERSION; uint32 n_outputs
 *   then per output and inout argument, in argument order:
 *            uint32 arg_index; uint32 dtype; uint64 count; count * hk_dtype_size(dtype) bytes */
#define HK_OUT_MAGIC "HKOUT\0\0\1"
#define HK_OUT_VERSION 1u

/* Poison byte patterns written over outputs before a launch. 0xFF is NaN in every float
 * type; a second launch with 0x7F separates "never written" from "wrote that value". */
#define HK_POISON_A 0xFF
#define HK_POISON_B 0x7F
/* Guard zones: bytes before and after every buffer, filled with HK_CANARY, in every run.
 * Under compute-sanitizer (environment HK_TOOL_REGIONS=1, set by server/measure/sanitize.c)
 * the buffers are allocated the same way -- the same sizes in the same order, so the same
 * addresses a kernel can read from its pointers -- and each buffer's data is declared to the
 * tool as the allocation's only valid region (the NVTX memory API, which compute-sanitizer
 * reads by default since CUDA 12), so that memcheck reports an access to a guard zone as it
 * would one past an exact allocation; the harness's own guard checks are then skipped.
 * Until session 38 the tool's run allocated every buffer exactly instead: its pointers sat on
 * cudaMalloc's 2 MiB boundaries and every other run's 64 KiB past them, which told a kernel
 * whether a tool was watching (tests/gpu/cheats/sanitizer_by_address.cu). */
#define HK_REDZONE_BYTES 65536
#define HK_CANARY 0xA5
#define HK_MAX_ARGS 32
/* __constant__ inputs of one program (the spec's "constants"); their seeds follow the
 * arguments' (hk_arg_seed(seed, HK_MAX_ARGS + i)) */
#define HK_MAX_CONSTS 16
/* Combinations one --combos process takes at most, and its output file names. */
#define HK_MAX_COMBOS 4096
#define HK_RUN_OUT_NAME "run-s%d-d%d-seed%lld.out" /* size, dist, seed */
/* Sizes one --prime-sizes list names at most (a spec has at most 64 size sets). */
#define HK_MAX_PRIME_SIZES 64

/* The symbol of the __constant__ variable name (as a spec names it: "mask", "ns::mask") in
 * an nvcc image, into out (n bytes): the name itself at file scope (static ones too), the
 * mangled name in a namespace (_ZN2ns4maskE). A static variable inside a namespace gets a
 * name private to its file, which no spec can give. 0, or -1 when out is too small. */
static inline int hk_constant_symbol(const char *name, char *out, size_t n)
{
    size_t at = 0, len = strlen(name);
    if (!strstr(name, "::")) {
        if (len + 1 > n)
            return -1;
        memcpy(out, name, len + 1);
        return 0;
    }
    if (n < 4)
        return -1;
    memcpy(out, "_ZN", 3);
    at = 3;
    for (const char *p = name; *p;) {
        const char *end = strstr(p, "::");
        size_t part = end ? (size_t)(end - p) : strlen(p);
        int w = snprintf(out + at, n - at, "%zu%.*s", part, (int)part, p);
        if (w < 0 || (size_t)w >= n - at)
            return -1;
        at += (size_t)w;
        p = end ? end + 2 : p + part;
    }
    if (at + 2 > n)
        return -1;
    out[at++] = 'E';
    out[at] = '\0';
    return 0;
}

/* ---- the writable globals of a kernel image ----
 * A kernel can keep state from one launch to the next in its own writable __device__
 * variables (a count of finished blocks, a cache): then the launches a process times are a
 * different computation from the one that was checked. The launcher therefore sets every
 * writable global of the image back to the bytes it had right after the module was loaded,
 * before every launch it makes (hk_kmod_restore), and a candidate's run-mode process fails
 * one that leaves a global changed (--launch-state check, HK_EXIT_LAUNCH_STATE). The
 * globals come from the image's own ELF symbol table, so namespaced, templated and static
 * variables count however the source spelled them:
 *   cubin (nvcc -cubin, e_machine 190): STT_OBJECT symbols of the sections .nv.global
 *     (zero-initialised, NOBITS) and .nv.global.init (initialised); __constant__
 *     (.nv.constant*), __shared__ (.nv.shared.*) and the compiler's own banks are not there.
 *     A `__device__ const` variable is in .nv.global.init: its memory is writable through a
 *     cast, so it counts.
 *   AMDGPU code object (hipcc --genco: a clang offload bundle around it, or alone): the
 *     STT_OBJECT symbols of allocated, writable, non-executable sections (.data, .bss ...);
 *     LDS variables have no real section. HIP places __constant__ variables in .bss too:
 *     the launcher leaves the spec's constants alone by name (hk_constant_symbol).
 * Plain C, no allocation: the server's tests read the same images with the same code. */
#define HK_IMAGE_MAX_BYTES ((size_t)256 << 20) /* cap on an image read (as KIMAGE_MAX_BYTES) */

typedef struct {
    const char *name;        /* NUL-terminated, inside the image's string table (borrowed) */
    unsigned section;        /* section index */
    const char *section_name;/* borrowed, as name; "" when the image has no section names */
    uint64_t offset;         /* from the start of the section */
    uint64_t size;           /* bytes */
    int zero_init;           /* its section is NOBITS (.nv.global, .bss): all zeros at load */
} hk_kglobal;

static inline uint64_t hk_elf_rd(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The ELF inside image (len bytes): the image itself, or the first amdgcn entry of a clang
 * offload bundle ("__CLANG_OFFLOAD_BUNDLE__", a uint64 count, then per entry uint64 offset,
 * size, triple length and the triple). NULL when there is none or an offset is outside. */
static inline const unsigned char *hk_image_elf(const unsigned char *image, size_t len,
                                                size_t *elf_len)
{
    static const char magic[] = "__CLANG_OFFLOAD_BUNDLE__";
    size_t at = sizeof magic - 1;
    if (len < at || memcmp(image, magic, at) != 0) {
        *elf_len = len;
        return image;
    }
    if (len - at < 8)
        return NULL;
    uint64_t n = hk_elf_rd(image + at, 8);
    at += 8;
    for (uint64_t i = 0; i < n && i < 1024; i++) {
        if (len - at < 24)
            return NULL;
        uint64_t off = hk_elf_rd(image + at, 8), size = hk_elf_rd(image + at + 8, 8),
                 tlen = hk_elf_rd(image + at + 16, 8);
        at += 24;
        if (tlen > len - at)
            return NULL;
        bool amdgcn = false;
        for (uint64_t k = 0; k + 6 <= tlen && !amdgcn; k++)
            amdgcn = memcmp(image + at + k, "amdgcn", 6) == 0;
        at += (size_t)tlen;
        if (!amdgcn)
            continue;
        if (off > len || size > len - off || size == 0)
            return NULL;
        *elf_len = (size_t)size;
        return image + off;
    }
    return NULL;
}

/* The string at index i of a string table (tab, n bytes); NULL when it does not end there. */
static inline const char *hk_elf_str(const unsigned char *tab, uint64_t n, uint64_t i)
{
    if (i >= n)
        return NULL;
    const char *s = (const char *)tab + i;
    return memchr(s, '\0', (size_t)(n - i)) ? s : NULL;
}

/* Calls fn(ctx, &g) for every writable global of the kernel image (len bytes at image: a
 * cubin, an AMDGPU ELF or a bundle holding one), in symbol-table order; a nonzero return of
 * fn stops the walk and is returned. Symbols of size 0 are skipped. 0; -1 when the image is
 * not a 64-bit little-endian ELF with a symbol table (or a bundle without an amdgcn entry),
 * or an offset points outside it. Every offset is checked before it is read. */
static inline int hk_kglobals_each(const unsigned char *image, size_t len,
                                   int (*fn)(void *ctx, const hk_kglobal *g), void *ctx)
{
    size_t n = 0;
    const unsigned char *d = hk_image_elf(image, len, &n);
    if (!d || n < 64 || memcmp(d, "\x7f" "ELF", 4) != 0 || d[4] != 2 || d[5] != 1)
        return -1;
    uint64_t mach = hk_elf_rd(d + 0x12, 2), shoff = hk_elf_rd(d + 0x28, 8);
    uint64_t shentsize = hk_elf_rd(d + 0x3a, 2), shnum = hk_elf_rd(d + 0x3c, 2),
             shstrndx = hk_elf_rd(d + 0x3e, 2);
    if (shentsize < 64 || shoff > n || shnum * shentsize > n - shoff)
        return -1;
    const unsigned char *names = NULL;
    uint64_t names_len = 0;
    if (shstrndx < shnum) {
        const unsigned char *sh = d + shoff + shstrndx * shentsize;
        uint64_t off = hk_elf_rd(sh + 0x18, 8), size = hk_elf_rd(sh + 0x20, 8);
        if (off <= n && size <= n - off) {
            names = d + off;
            names_len = size;
        }
    }
    for (uint64_t i = 0; i < shnum; i++) {
        const unsigned char *sh = d + shoff + i * shentsize;
        if (hk_elf_rd(sh + 4, 4) != 2 /* SHT_SYMTAB */)
            continue;
        uint64_t off = hk_elf_rd(sh + 0x18, 8), size = hk_elf_rd(sh + 0x20, 8),
                 entsize = hk_elf_rd(sh + 0x38, 8), link = hk_elf_rd(sh + 0x28, 4);
        if (entsize < 24 || off > n || size > n - off || link >= shnum)
            return -1;
        const unsigned char *strh = d + shoff + link * shentsize;
        uint64_t stroff = hk_elf_rd(strh + 0x18, 8), strsize = hk_elf_rd(strh + 0x20, 8);
        if (stroff > n || strsize > n - stroff)
            return -1;
        for (uint64_t k = 0; k + entsize <= size; k += entsize) {
            const unsigned char *sym = d + off + k;
            uint64_t shndx = hk_elf_rd(sym + 6, 2), value = hk_elf_rd(sym + 8, 8),
                     ssize = hk_elf_rd(sym + 16, 8);
            if ((sym[4] & 0xf) != 1 /* STT_OBJECT */ || ssize == 0 || shndx == 0 ||
                shndx >= shnum || shndx >= 0xff00 /* SHN_LORESERVE: AMDGPU LDS, common */)
                continue;
            const unsigned char *ts = d + shoff + shndx * shentsize;
            uint64_t type = hk_elf_rd(ts + 4, 4), flags = hk_elf_rd(ts + 8, 8),
                     addr = hk_elf_rd(ts + 0x10, 8);
            const char *sname = names ? hk_elf_str(names, names_len, hk_elf_rd(ts, 4)) : NULL;
            bool writable;
            if (mach == 190 /* EM_CUDA */)
                writable = sname && (!strcmp(sname, ".nv.global") || !strcmp(sname, ".nv.global.init"));
            else /* SHF_WRITE and SHF_ALLOC, not SHF_EXECINSTR; PROGBITS or NOBITS */
                writable = (flags & 7) == 3 && (type == 1 || type == 8);
            if (!writable || value < addr)
                continue;
            const char *name = hk_elf_str(d + stroff, strsize, hk_elf_rd(sym, 4));
            if (!name || !*name)
                continue;
            hk_kglobal g = {name, (unsigned)shndx, sname ? sname : "", value - addr, ssize,
                            type == 8 /* SHT_NOBITS */};
            int r = fn(ctx, &g);
            if (r)
                return r;
        }
        return 0;
    }
    return -1;
}

/* One writable global as the launcher found it on the device, and the ranges it restores. */
typedef struct {
    hk_kglobal g;
    unsigned long long dptr;  /* its address (cuModuleGetGlobal / hipModuleGetGlobal) */
    size_t dev_size;          /* the size the driver gives for it */
    int resolved;             /* the driver found it by name */
    int excluded;             /* a spec constant, set by the launcher: never restored */
} hk_kglobal_at;

typedef struct {
    unsigned long long dptr;  /* where the range starts on the device */
    uint64_t bytes;
    size_t first, count;      /* its variable: g[first] after the sort (count is 1) */
} hk_krange;

static inline int hk_kglobal_order(const void *a, const void *b)
{
    const hk_kglobal_at *x = (const hk_kglobal_at *)a, *y = (const hk_kglobal_at *)b;
    if (x->g.section != y->g.section)
        return x->g.section < y->g.section ? -1 : 1;
    if (x->g.offset != y->g.offset)
        return x->g.offset < y->g.offset ? -1 : 1;
    return x->g.size < y->g.size ? -1 : x->g.size > y->g.size;
}

/* The device ranges to restore for the n globals g (sorted here by section and offset),
 * written to out (room for n); returns their count. Every variable the driver found is its
 * own range, of the smaller of its ELF and driver sizes: the driver gives each variable of
 * a loaded image an allocation of its own (cuPointerGetAttribute's RANGE_START/RANGE_SIZE
 * are the variable's own address and size, even where two variables sit at addresses the
 * ELF layout would make adjacent), and a copy that spans two of them fails with
 * cudaErrorInvalidValue (H100, CUDA 13.0: bench/results/2026-12-05-h100-session33/
 * call1-probe-globals.txt). Excluded variables get none. *unrestored: variables the driver
 * did not find by name, or whose size is 0 there. Pure. */
static inline size_t hk_kglobals_ranges(hk_kglobal_at *g, size_t n, hk_krange *out,
                                        size_t *unrestored)
{
    size_t nr = 0;
    *unrestored = 0;
    qsort(g, n, sizeof *g, hk_kglobal_order);
    for (size_t i = 0; i < n; i++) {
        if (g[i].excluded)
            continue;
        /* the smaller of the two sizes: never a byte past what the driver gave */
        uint64_t bytes = g[i].dev_size < g[i].g.size ? g[i].dev_size : g[i].g.size;
        if (!g[i].resolved || !bytes) {
            (*unrestored)++;
            continue;
        }
        hk_krange r = {g[i].dptr, bytes, i, 1};
        out[nr++] = r;
    }
    return nr;
}

/* ceil(a / b) for integers, as the spec evaluator computes it (b != 0). */
static inline long long hk_ceil_div(long long a, long long b)
{
    return a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
}
static inline long long hk_min(long long a, long long b) { return a < b ? a : b; }
static inline long long hk_max(long long a, long long b) { return a > b ? a : b; }

#if defined(HK_HARNESS_LAUNCHER) || defined(__CUDACC__) || defined(__HIPCC__)
/* ------------------------------------------------------------------------------------
 * The program's own part: the types a generated program's tables and setup() use, shared
 * by the runtime below and a launcher's own translation unit (plain C++, no CUDA).
 * ---------------------------------------------------------------------------------- */

/* A device buffer with guard zones (the runtime allocates it). */
typedef struct {
    const char *name;
    int kind, dtype;
    size_t count, bytes;
    unsigned char *base;   /* device: redzone | data | redzone */
    void *dev;             /* base + HK_REDZONE_BYTES */
    void *tool_heap;       /* under compute-sanitizer: the NVTX heap of base (else NULL) */
    unsigned char *host;   /* host: what was uploaded (inputs) or downloaded (outputs) */
} hk_buffer;

/* A kernel argument: the spec says pointer or value; the kernel's own parameter types
 * (deduced from its function pointer in a program) decide the exact C++ type passed. */
typedef struct {
    int is_ptr, is_float;
    void *ptr;
    size_t elem;  /* element size of the spec dtype, for pointers */
    long long i;
    double f;
    int index;
} hk_arg;

/* ---- the program: tables and two functions written by the generator ---- */

typedef struct {
    const char *name;
    int kind, dtype;
    double rtol, atol;    /* outputs/inouts: the spec's tolerance, for checked timed launches */
} hk_argdesc;

/* A __constant__ input (the spec's "constants"): the variable's name as declared. */
typedef struct {
    const char *name;
    int dtype;
} hk_constdesc;

typedef struct {
    int size_index;
    long long block[3];
    int block_set;        /* --block given: setup keeps block */
    int sm_count;
    long long grid[3];
    long long shmem;
    size_t count[HK_MAX_ARGS];   /* pointer args: elements */
    hk_arg args[HK_MAX_ARGS];    /* scalars filled by setup, pointers by the runtime */
    hk_buffer buf[HK_MAX_ARGS];
    unsigned char promoted[HK_MAX_ARGS]; /* --promote: a float argument given as double */
    size_t const_count[HK_MAX_CONSTS];   /* __constant__ inputs: elements (setup) */
} hk_state;

typedef struct {
    const char *kernel;
    int n_args;
    const hk_argdesc *args;
    int n_sizes, n_dists;
    const hk_dist *dists;                       /* [n_dists][n_args] */
    void (*setup)(hk_state *st);                /* counts, scalars, launch dims */
    void (*launch)(const hk_state *st);         /* one launch on the default stream; NULL in
                                                 * a launcher (the kernel comes from --module) */
    int n_consts;                               /* __constant__ inputs */
    const hk_constdesc *consts;
    const hk_dist *const_dists;                 /* [n_dists][n_consts] */
    void (*set_constant)(int i, const void *host, size_t bytes); /* a program's own symbol i;
                                                 * NULL in a launcher (set in the image) */
} hk_program;

/* Scalar argument values for the generated setup(). */
static inline hk_arg hk_int_arg(long long v)
{
    hk_arg a;
    memset(&a, 0, sizeof a);
    a.i = v;
    return a;
}
static inline hk_arg hk_float_arg(double v)
{
    hk_arg a;
    memset(&a, 0, sizeof a);
    a.is_float = 1;
    a.f = v;
    return a;
}

#endif

#if defined(HK_HARNESS_LAUNCHER)
/* ------------------------------------------------------------------------------------
 * A launcher's own translation unit (harness_generate without a candidate defines
 * HK_HARNESS_LAUNCHER): its tables, setup() and main only, compiled as plain C++ by the
 * host compiler. The runtime (the CUDA part below, hk_main included) is compiled once per
 * compiler, arch and header text from hk_launcher_rt.cu and linked in: it holds no line
 * of any spec or candidate, so every launcher of a machine shares it, and a new spec's
 * launcher costs a small C++ compile and a link instead of the whole runtime's build
 * (harness_launcher_rt_argv, measure.c's prepare_image).
 * ---------------------------------------------------------------------------------- */
#include <math.h> /* fmin, fmax of the spec's formulas */
int hk_launcher_main(int argc, char **argv, const hk_program *p);
#define hk_main hk_launcher_main
#elif defined(__CUDACC__) || defined(__HIPCC__)
/* ------------------------------------------------------------------------------------
 * CUDA part: compiled by nvcc as CUDA C++ into every generated benchmark program, or by
 * hipcc as HIP (DCU / AMD gfx9 targets) through the compatibility block below.
 * ---------------------------------------------------------------------------------- */
/* HIP (hipcc for a DCU / AMD GPU): the CUDA names mapped to HIP's, in hk_hip.h */
#if defined(__HIPCC__) && !defined(__CUDACC__)
#include "hk_hip.h"
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExtMem.h>
#endif

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <time.h>
#include <dlfcn.h>

#include "hk_gpulock.h"

#include <algorithm>
#include <limits>
#include <thread>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

/* ---- one-line JSON results and failures ---- */

static void hk_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Where the result line goes: the process's own stdout, which the server reads (the last
 * JSON line of it). hk_main first points fd 1 itself at stderr (hk_divert_stdout), so that a
 * kernel's device printf, which the CUDA driver writes to stdout, can never add a line to
 * the results: a forged {"median_ms":...} line followed by a fragment that spoils the real
 * line's start made the forged one the last JSON line the server read (session 29). */
static FILE *hk_out_stream;
static FILE *hk_res(void) { return hk_out_stream ? hk_out_stream : stdout; }
static void hk_divert_stdout(void)
{
    fflush(stdout);
    int fd = dup(1);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return; /* results stay on stdout, device printf with them */
    }
    if (dup2(2, 1) < 0) {
        fclose(f);
        return;
    }
    hk_out_stream = f;
}

/* The combination a --combos process is running (-1: none), named in its failure line so
 * the server knows which combination failed. */
static long long hk_cur_seed = -1;
static int hk_cur_dist = -1;
/* The size of the priming launch running now (-1: none): a failure there says so. */
static int hk_cur_prime = -1;

/* Prints {"error":KIND,"message":...,"exit":CODE[,"prime_size":K][,"seed":S,"dist":D]} on
 * stdout and exits with code; a failure while priming says "priming launch at size K: "
 * before the message. */
static void hk_fail(int code, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static void hk_fail(int code, const char *kind, const char *fmt, ...)
{
    char msg[1024];
    int at = hk_cur_prime >= 0 ? snprintf(msg, sizeof msg, "priming launch at size %d: ", hk_cur_prime) : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + at, sizeof msg - (size_t)at, fmt, ap);
    va_end(ap);
    fflush(hk_res());
    fprintf(hk_res(), "{\"error\":");
    hk_json_string(hk_res(), kind);
    fprintf(hk_res(), ",\"message\":");
    hk_json_string(hk_res(), msg);
    fprintf(hk_res(), ",\"exit\":%d", code);
    if (hk_cur_prime >= 0)
        fprintf(hk_res(), ",\"prime_size\":%d", hk_cur_prime);
    if (hk_cur_seed >= 0)
        fprintf(hk_res(), ",\"seed\":%lld,\"dist\":%d", hk_cur_seed, hk_cur_dist);
    fprintf(hk_res(), "}\n");
    fflush(hk_res());
    exit(code);
}

#define HK_CHECK(call)                                                                     \
    do {                                                                                   \
        cudaError_t hk_e_ = (call);                                                        \
        if (hk_e_ != cudaSuccess)                                                          \
            hk_fail(HK_EXIT_CUDA, "cuda", "%s: %s (%s) at %s:%d", #call,                   \
                    cudaGetErrorName(hk_e_), cudaGetErrorString(hk_e_), __FILE__, __LINE__); \
    } while (0)

static void *hk_host_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        hk_fail(HK_EXIT_INTERNAL, "host_memory", "cannot allocate %zu bytes of host memory", n);
    return p;
}

/* ---- seeded random inputs ----
 * Element i of a buffer is a pure function of (seed, i): the counter-based splitmix64
 * output hk_hash64(seed + (i + 1) * golden). Same seed, same bytes, in every process and
 * for every split of the buffer, so large buffers are filled by several threads at once
 * (input generation on the host must not dominate a run: 2^26 floats take well under
 * 0.3 s). */

/* The generator's pure functions run on the host (run mode) and on the device (time
 * mode's per-launch inputs): same bits either way. */
#define HK_HD __host__ __device__

static inline HK_HD uint64_t hk_hash64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* The sequential splitmix64 step: only used to derive per-buffer seeds. */
static inline uint64_t hk_mix(uint64_t *s)
{
    return hk_hash64(*s += 0x9E3779B97F4A7C15ull);
}
static inline HK_HD double hk_unit64(uint64_t h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }
static inline HK_HD uint64_t hk_elem_hash(uint64_t seed, uint64_t i)
{
    return hk_hash64(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
}

/* v converted to element type T: floats rounded to the type, integers truncated toward
 * zero and clamped to the type's range. */
template <typename T> static inline T hk_from_double(double v)
{
    if (std::is_floating_point<T>::value)
        return (T)v;
    double lo = (double)std::numeric_limits<T>::lowest(), hi = (double)std::numeric_limits<T>::max();
    if (!(v >= lo)) /* NaN too */
        return std::numeric_limits<T>::lowest();
    if (v >= hi)
        return std::numeric_limits<T>::max();
    return (T)v;
}
template <> inline __half hk_from_double<__half>(double v) { return __float2half((float)v); }
template <> inline __nv_bfloat16 hk_from_double<__nv_bfloat16>(double v) { return __float2bfloat16((float)v); }

/* A uniform in the open interval (0, 1). */
static inline HK_HD double hk_open_unit(uint64_t h) { return ((double)(h >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

/* The standard normal quantile at u in (0, 1): Acklam's rational approximation (relative
 * error about 1e-9). One hash per element and no transcendental in the central 95%, so a
 * normal buffer costs about what a uniform one does (Box-Muller's log and sincos per
 * element were 10x slower). */
static inline HK_HD double hk_normal_quantile(double u)
{
    const double a[6] = { -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00 };
    const double b[5] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01 };
    const double c[6] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00 };
    const double e[4] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00 };
    const double lo = 0.02425;
    if (u < lo || u > 1.0 - lo) {
        double q = sqrt(-2.0 * log(u < lo ? u : 1.0 - u));
        double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                   ((((e[0] * q + e[1]) * q + e[2]) * q + e[3]) * q + 1.0);
        return u < lo ? x : -x;
    }
    double q = u - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

/* Elements [lo, hi) of a buffer from distribution d. */
template <typename T>
static void hk_fill_range(T *p, size_t lo, size_t hi, hk_dist d, uint64_t seed)
{
    switch (d.kind) {
    case HK_DIST_UNIFORM:
        for (size_t i = lo; i < hi; i++)
            p[i] = hk_from_double<T>(d.a + (d.b - d.a) * hk_unit64(hk_elem_hash(seed, i)));
        break;
    case HK_DIST_NORMAL:
        for (size_t i = lo; i < hi; i++)
            p[i] = hk_from_double<T>(d.a + d.b * hk_normal_quantile(hk_open_unit(hk_elem_hash(seed, i))));
        break;
    case HK_DIST_INT:
        for (size_t i = lo; i < hi; i++) {
            double v = floor(d.a + (d.b - d.a + 1.0) * hk_unit64(hk_elem_hash(seed, i)));
            p[i] = hk_from_double<T>(v > d.b ? d.b : v);
        }
        break;
    case HK_DIST_ONES_SPARSE:
        for (size_t i = lo; i < hi; i++)
            p[i] = hk_from_double<T>(hk_unit64(hk_elem_hash(seed, i)) < d.a ? 1.0 : 0.0);
        break;
    case HK_DIST_GRID: {
        double q, k0, nk;
        hk_grid_params(d.a, d.b, &q, &k0, &nk);
        for (size_t i = lo; i < hi; i++)
            p[i] = hk_from_double<T>(hk_grid_value(q, k0, nk, hk_unit64(hk_elem_hash(seed, i))));
        break;
    }
    default:
        for (size_t i = lo; i < hi; i++)
            p[i] = hk_from_double<T>(0.0);
        break;
    }
}

/* Elements [lo, hi) of a buffer of dtype dt (hk_fill_range of its element type); false for
 * an unknown dtype. */
static bool hk_fill_chunk(void *p, size_t lo, size_t hi, int dt, hk_dist d, uint64_t seed)
{
    switch (dt) {
    case HK_DT_F32: hk_fill_range<float>((float *)p, lo, hi, d, seed); return true;
    case HK_DT_F64: hk_fill_range<double>((double *)p, lo, hi, d, seed); return true;
    case HK_DT_F16: hk_fill_range<__half>((__half *)p, lo, hi, d, seed); return true;
    case HK_DT_BF16: hk_fill_range<__nv_bfloat16>((__nv_bfloat16 *)p, lo, hi, d, seed); return true;
    case HK_DT_I8: hk_fill_range<int8_t>((int8_t *)p, lo, hi, d, seed); return true;
    case HK_DT_I16: hk_fill_range<int16_t>((int16_t *)p, lo, hi, d, seed); return true;
    case HK_DT_I32: hk_fill_range<int32_t>((int32_t *)p, lo, hi, d, seed); return true;
    case HK_DT_I64: hk_fill_range<int64_t>((int64_t *)p, lo, hi, d, seed); return true;
    case HK_DT_U8: hk_fill_range<uint8_t>((uint8_t *)p, lo, hi, d, seed); return true;
    case HK_DT_U16: hk_fill_range<uint16_t>((uint16_t *)p, lo, hi, d, seed); return true;
    case HK_DT_U32: hk_fill_range<uint32_t>((uint32_t *)p, lo, hi, d, seed); return true;
    case HK_DT_U64: hk_fill_range<uint64_t>((uint64_t *)p, lo, hi, d, seed); return true;
    }
    return false;
}

/* Fills [0, count) of dtype dt with up to hardware_concurrency threads; false for an
 * unknown dtype. The threads run hk_fill_chunk, which is not a template: one std::thread
 * constructor for every dtype (one per element type cost every program's compile, nvcc
 * -cubin included, about 0.8 s of CPU: bench/results/2026-12-05-ci-time-s30-helper.md). */
static bool hk_fill_threads(void *host, size_t count, int dt, hk_dist d, uint64_t seed)
{
    const size_t min_chunk = (size_t)1 << 20;
    unsigned n = std::thread::hardware_concurrency();
    n = n < 1 ? 1 : n > 32 ? 32 : n;
    if (count < 2 * min_chunk || n == 1)
        return hk_fill_chunk(host, 0, count, dt, d, seed);
    if (!hk_fill_chunk(host, 0, 0, dt, d, seed)) /* an empty range: the dtype's check alone */
        return false;
    size_t chunks = count / min_chunk < n ? count / min_chunk : n;
    size_t per = count / chunks + 1;
    std::vector<std::thread> th;
    for (size_t c = 1; c < chunks && c * per < count; c++) {
        size_t lo = c * per, hi = lo + per < count ? lo + per : count;
        try {
            th.emplace_back(hk_fill_chunk, host, lo, hi, dt, d, seed);
        } catch (...) { /* no thread: fill that chunk here */
            hk_fill_chunk(host, lo, hi, dt, d, seed);
        }
    }
    hk_fill_chunk(host, 0, per < count ? per : count, dt, d, seed);
    for (auto &t : th)
        t.join();
    return true;
}

/* Stores v into element i of a buffer of dtype dt (hk_from_double's rounding). */
static void hk_store(void *p, size_t i, int dt, double v)
{
    switch (dt) {
    case HK_DT_F32: ((float *)p)[i] = hk_from_double<float>(v); break;
    case HK_DT_F64: ((double *)p)[i] = v; break;
    case HK_DT_F16: ((__half *)p)[i] = hk_from_double<__half>(v); break;
    case HK_DT_BF16: ((__nv_bfloat16 *)p)[i] = hk_from_double<__nv_bfloat16>(v); break;
    case HK_DT_I8: ((int8_t *)p)[i] = hk_from_double<int8_t>(v); break;
    case HK_DT_I16: ((int16_t *)p)[i] = hk_from_double<int16_t>(v); break;
    case HK_DT_I32: ((int32_t *)p)[i] = hk_from_double<int32_t>(v); break;
    case HK_DT_I64: ((int64_t *)p)[i] = hk_from_double<int64_t>(v); break;
    case HK_DT_U8: ((uint8_t *)p)[i] = hk_from_double<uint8_t>(v); break;
    case HK_DT_U16: ((uint16_t *)p)[i] = hk_from_double<uint16_t>(v); break;
    case HK_DT_U32: ((uint32_t *)p)[i] = hk_from_double<uint32_t>(v); break;
    case HK_DT_U64: ((uint64_t *)p)[i] = hk_from_double<uint64_t>(v); break;
    }
}

/* Fills count elements on the host from distribution d. Unless d is zeros, the result
 * is never constant: a constant buffer hides indexing bugs, so one element is changed. */
static void hk_fill(void *host, size_t count, int dt, hk_dist d, uint64_t seed)
{
    if (!hk_fill_threads(host, count, dt, d, seed))
        return;
    size_t es = hk_dtype_size(dt);
    if (d.kind == HK_DIST_ZEROS || count < 2)
        return;
    const unsigned char *b = (const unsigned char *)host;
    for (size_t i = 1; i < count; i++)
        if (memcmp(b, b + i * es, es) != 0)
            return;
    hk_store(host, 0, dt, hk_dtype_is_float(dt) ? 1.5 : (d.a >= 1.0 ? d.a - 1.0 : d.a + 1.0));
    if (memcmp(b, b + es, es) == 0) /* e.g. clamped at a type bound: flip a low bit */
        ((unsigned char *)host)[0] ^= 1;
}

/* ---- the same distributions generated on the device (time mode: fresh inputs for every
 * timed launch, at memory speed, outside the timed region) ----
 * Element values follow hk_fill_range's formulas in double, converted like hk_store
 * (floats rounded, integers truncated and clamped). */

static __device__ double hk_dev_clamp(double v, double lo, double hi)
{
    if (!(v >= lo)) /* NaN too */
        return lo;
    return v >= hi ? hi : v;
}

static __global__ void hk_gen_kernel(void *p, size_t n, int dt, hk_dist d, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    double gq = 1.0, gk0 = 0.0, gnk = 1.0;
    if (d.kind == HK_DIST_GRID)
        hk_grid_params(d.a, d.b, &gq, &gk0, &gnk);
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint64_t h = hk_elem_hash(seed, i);
        double v;
        switch (d.kind) {
        case HK_DIST_UNIFORM: v = d.a + (d.b - d.a) * hk_unit64(h); break;
        case HK_DIST_NORMAL: v = d.a + d.b * hk_normal_quantile(hk_open_unit(h)); break;
        case HK_DIST_INT: v = floor(d.a + (d.b - d.a + 1.0) * hk_unit64(h)); v = v > d.b ? d.b : v; break;
        case HK_DIST_ONES_SPARSE: v = hk_unit64(h) < d.a ? 1.0 : 0.0; break;
        case HK_DIST_GRID: v = hk_grid_value(gq, gk0, gnk, hk_unit64(h)); break;
        default: v = 0.0; break;
        }
        switch (dt) {
        case HK_DT_F32: ((float *)p)[i] = (float)v; break;
        case HK_DT_F64: ((double *)p)[i] = v; break;
        case HK_DT_F16: ((__half *)p)[i] = __float2half((float)v); break;
        case HK_DT_BF16: ((__nv_bfloat16 *)p)[i] = __float2bfloat16((float)v); break;
        case HK_DT_I8: ((int8_t *)p)[i] = (int8_t)hk_dev_clamp(v, -128.0, 127.0); break;
        case HK_DT_I16: ((int16_t *)p)[i] = (int16_t)hk_dev_clamp(v, -32768.0, 32767.0); break;
        case HK_DT_I32: ((int32_t *)p)[i] = (int32_t)hk_dev_clamp(v, -2147483648.0, 2147483647.0); break;
        case HK_DT_I64: ((int64_t *)p)[i] = (int64_t)hk_dev_clamp(v, -9223372036854775808.0, 9223372036854774784.0); break;
        case HK_DT_U8: ((uint8_t *)p)[i] = (uint8_t)hk_dev_clamp(v, 0.0, 255.0); break;
        case HK_DT_U16: ((uint16_t *)p)[i] = (uint16_t)hk_dev_clamp(v, 0.0, 65535.0); break;
        case HK_DT_U32: ((uint32_t *)p)[i] = (uint32_t)hk_dev_clamp(v, 0.0, 4294967295.0); break;
        case HK_DT_U64: ((uint64_t *)p)[i] = (uint64_t)hk_dev_clamp(v, 0.0, 18446744073709549568.0); break;
        }
    }
}

/* Fills count elements of device buffer dev from d with seed (asynchronous, default stream). */
static void hk_fill_device(void *dev, size_t count, int dt, hk_dist d, uint64_t seed)
{
    if (!count)
        return;
    size_t blocks = (count + 255) / 256;
    hk_gen_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256>>>(dev, count, dt, d, seed);
}

/* ---- device buffers with guard zones ---- */

/* Whether this run is under compute-sanitizer (HK_TOOL_REGIONS=1): buffers are declared to
 * the tool, and the harness's own guard checks are left to memcheck. */
static bool hk_tool_regions(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("HK_TOOL_REGIONS");
        on = e && !strcmp(e, "1");
    }
    return on != 0;
}

/* The guard zone's size: the same in every run (the layout a kernel sees must not tell a
 * tool's run from a timed one). */
static size_t hk_guard_bytes(void)
{
    return (size_t)HK_REDZONE_BYTES;
}

#ifndef HK_HIP
static nvtxDomainHandle_t hk_tool_domain(void)
{
    static nvtxDomainHandle_t d = NULL;
    if (!d)
        d = nvtxDomainCreateA("hyperkernel");
    return d;
}
#endif

/* Under the tool: the whole allocation (guard zones included) is a sub-allocator heap whose
 * one region is the buffer's data, so an access to a guard zone is one to memory no region
 * covers (memcheck: an invalid access). Called after the canary is written (the harness's
 * own writes to the zones come before the tool knows them). Nothing outside the tool: NVTX
 * calls without an injected tool return at once, but none is made. */
static void hk_tool_register(hk_buffer *b)
{
    b->tool_heap = NULL;
#ifndef HK_HIP
    if (!hk_tool_regions())
        return;
    HK_CHECK(cudaDeviceSynchronize()); /* the canary's memset done before the tool knows the heap */
    nvtxMemVirtualRangeDesc_t whole = {b->bytes + 2 * hk_guard_bytes(), b->base};
    nvtxMemHeapDesc_t hd;
    memset(&hd, 0, sizeof hd);
    hd.extCompatID = NVTX_EXT_COMPATID_MEM;
    hd.structSize = sizeof hd;
    hd.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
    hd.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    hd.typeSpecificDescSize = sizeof whole;
    hd.typeSpecificDesc = &whole;
    nvtxMemHeapHandle_t heap = nvtxMemHeapRegister(hk_tool_domain(), &hd);
    b->tool_heap = (void *)heap;
    if (!b->bytes)
        return;
    nvtxMemVirtualRangeDesc_t data = {b->bytes, b->dev};
    nvtxMemRegionsRegisterBatch_t rb;
    memset(&rb, 0, sizeof rb);
    rb.extCompatID = NVTX_EXT_COMPATID_MEM;
    rb.structSize = sizeof rb;
    rb.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    rb.heap = heap;
    rb.regionCount = 1;
    rb.regionDescElementSize = sizeof data;
    rb.regionDescElements = &data;
    nvtxMemRegionsRegister(hk_tool_domain(), &rb);
#endif
}

/* Before the allocation is freed: the tool forgets the heap. */
static void hk_tool_unregister(hk_buffer *b)
{
#ifndef HK_HIP
    if (b->tool_heap)
        nvtxMemHeapUnregister(hk_tool_domain(), (nvtxMemHeapHandle_t)b->tool_heap);
#endif
    b->tool_heap = NULL;
}

static void hk_buffer_alloc(hk_buffer *b)
{
    size_t g = hk_guard_bytes();
    b->bytes = b->count * hk_dtype_size(b->dtype);
    HK_CHECK(cudaMalloc((void **)&b->base, b->bytes + 2 * g));
    b->dev = b->base + g;
    b->host = (unsigned char *)hk_host_alloc(b->bytes);
    HK_CHECK(cudaMemset(b->base, HK_CANARY, b->bytes + 2 * g));
    hk_tool_register(b);
}

/* Offset (from the data start; negative before it) of the first overwritten guard byte,
 * or 0 with *hit false. Re-arms the guard zones. */
static long long hk_redzone_check(const hk_buffer *b, bool *hit)
{
    static unsigned char zone[2][HK_REDZONE_BYTES];
    *hit = false;
    if (hk_tool_regions())
        return 0; /* under compute-sanitizer: memcheck sees every access to a zone */
    HK_CHECK(cudaMemcpy(zone[0], b->base, HK_REDZONE_BYTES, cudaMemcpyDeviceToHost));
    HK_CHECK(cudaMemcpy(zone[1], b->base + HK_REDZONE_BYTES + b->bytes, HK_REDZONE_BYTES,
                        cudaMemcpyDeviceToHost));
    *hit = false;
    long long where = 0;
    for (long long i = HK_REDZONE_BYTES - 1; i >= 0 && !*hit; i--)
        if (zone[0][i] != HK_CANARY) {
            *hit = true;
            where = i - HK_REDZONE_BYTES;
        }
    for (long long i = 0; i < HK_REDZONE_BYTES && !*hit; i++)
        if (zone[1][i] != HK_CANARY) {
            *hit = true;
            where = (long long)b->bytes + i;
        }
    HK_CHECK(cudaMemset(b->base, HK_CANARY, HK_REDZONE_BYTES));
    HK_CHECK(cudaMemset(b->base + HK_REDZONE_BYTES + b->bytes, HK_CANARY, HK_REDZONE_BYTES));
    return where;
}

/* ---- kernel arguments: the spec says pointer or value; the kernel's own parameter
 * types (deduced from its function pointer) decide the exact C++ type passed ---- */

template <typename T> struct hk_is_elem {
    typedef typename std::remove_cv<T>::type U;
    static const bool value = std::is_arithmetic<U>::value || std::is_same<U, __half>::value ||
                              std::is_same<U, __nv_bfloat16>::value;
};

template <typename T> struct hk_conv {
    static T get(const hk_arg &a)
    {
        if (a.is_ptr)
            hk_fail(HK_EXIT_USAGE, "spec_mismatch",
                    "argument %d is a buffer in the spec but a value in the kernel", a.index);
        return a.is_float ? (T)a.f : (T)a.i;
    }
};
template <typename T> struct hk_conv<T *> {
    static T *get(const hk_arg &a)
    {
        if (!a.is_ptr)
            hk_fail(HK_EXIT_USAGE, "spec_mismatch",
                    "argument %d is a scalar in the spec but a pointer in the kernel", a.index);
        if (hk_is_elem<T>::value && sizeof(typename std::conditional<std::is_void<T>::value, char, T>::type) != a.elem)
            hk_fail(HK_EXIT_USAGE, "spec_mismatch",
                    "argument %d: the spec's dtype is %zu bytes, the kernel's element type %zu",
                    a.index, a.elem, sizeof(typename std::conditional<std::is_void<T>::value, char, T>::type));
        return (T *)a.ptr;
    }
};

template <typename... P, typename... A>
static void hk_launch_kernel(void (*k)(P...), dim3 grid, dim3 block, size_t shmem, const A &...a)
{
    static_assert(sizeof...(P) == sizeof...(A),
                  "the bench spec's args do not match the kernel's parameter count");
    k<<<grid, block, shmem>>>(hk_conv<P>::get(a)...);
}

/* Host-call mode: a candidate that replaced its kernel by a library call (HK_HOST_CALL_<kernel>,
 * see the generated hk_launch) gets the same arguments, converted the same way, in a plain
 * call; the library enqueues its work on the default stream the timing events use. */
template <typename... P, typename... A>
static void hk_call_host(void (*f)(P...), const A &...a)
{
    static_assert(sizeof...(P) == sizeof...(A),
                  "the bench spec's args do not match the host function's parameter count");
    f(hk_conv<P>::get(a)...);
}

/* The same for a host function that also takes the launch (HK_HOST_CALL_GRID_<kernel>):
 * a kernel whose size only its grid gives (no guard, no loop bound) is replaced by a call
 * whose size is that grid times the block, both given here by the program. */
template <typename... P, typename... A>
static void hk_call_host_launch(void (*f)(dim3, dim3, P...), dim3 grid, dim3 block, const A &...a)
{
    static_assert(sizeof...(P) == sizeof...(A),
                  "the bench spec's args do not match the host function's parameter count");
    f(grid, block, hk_conv<P>::get(a)...);
}


typedef struct {
    const char *mode, *out, *combos, *out_dir, *prime_sizes;
    const char *module, *function, *ref_module, *ref_function;
    int launch_state_check;    /* --launch-state check (run mode): a launch that leaves a
                                * writable global of the image changed fails the process */
    int size, dist, warmup, min_reps, max_reps, checks, shmem_scale;
    long long ref_launch[7];   /* grid x,y,z, block x,y,z, dynamic shared bytes */
    int ref_launch_set;
    double widen[HK_MAX_ARGS]; /* --widen: added to each output's atol in the checked launches */
    int widen_set;
    unsigned long long promote;
    long long seed, check_seed;
    double budget_ms, target_spread;
    long long block[3];
    int block_set;
} hk_opts;

/* --perturb SEED:SCALE[:spread] (run mode, one combination): the sensitivity check's plan
 * (hk_perturb_plan_kind: the ladder, or the spread plan with ":spread") applied to every
 * eligible input after its fill (hk_perturb_apply); seed < 0: none. */
static long long hk_perturb_seed = -1;
static double hk_perturb_scale = 1.0;
static int hk_perturb_kind = HK_PERTURB_LADDER;
static size_t hk_perturbed; /* elements changed, for the result line */

static long long hk_opt_int(const char *flag, const char *v, long long lo, long long hi)
{
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || x < lo || x > hi)
        hk_fail(HK_EXIT_USAGE, "usage", "%s %s: expected an integer in [%lld, %lld]", flag, v, lo, hi);
    return x;
}

/* The --combos list (parsed before the device is touched, so a bad list is a usage
 * error even without a GPU). */
static std::vector<std::pair<long long, int> > &hk_combo_list(void)
{
    static std::vector<std::pair<long long, int> > list;
    return list;
}

static void hk_parse_combos(const char *text, const hk_program *p)
{
    std::vector<std::pair<long long, int> > &list = hk_combo_list();
    list.clear();
    for (const char *c = text; *c;) {
        char *end = NULL;
        long long seed = strtoll(c, &end, 10);
        if (end == c || *end != ':' || seed < 0)
            hk_fail(HK_EXIT_USAGE, "usage", "--combos %s: expected SEED:DIST[,SEED:DIST...]", text);
        c = end + 1;
        long dist = strtol(c, &end, 10);
        if (end == c || (*end && *end != ',') || dist < 0 || dist >= p->n_dists)
            hk_fail(HK_EXIT_USAGE, "usage",
                    "--combos %s: expected SEED:DIST[,SEED:DIST...] with DIST in [0, %d]", text,
                    p->n_dists - 1);
        if (list.size() >= HK_MAX_COMBOS)
            hk_fail(HK_EXIT_USAGE, "usage", "--combos: more than %d combinations", HK_MAX_COMBOS);
        list.push_back(std::make_pair(seed, (int)dist));
        c = *end ? end + 1 : end;
    }
    if (list.empty())
        hk_fail(HK_EXIT_USAGE, "usage", "--combos: empty list");
}

/* The --prime-sizes list: size indices of the spec, parsed before the device is touched
 * like --combos. */
static std::vector<int> &hk_prime_list(void)
{
    static std::vector<int> list;
    return list;
}

static void hk_parse_prime_sizes(const char *text, const hk_program *p)
{
    std::vector<int> &list = hk_prime_list();
    list.clear();
    for (const char *c = text; *c;) {
        char *end = NULL;
        long k = strtol(c, &end, 10);
        if (end == c || (*end && *end != ',') || k < 0 || k >= p->n_sizes)
            hk_fail(HK_EXIT_USAGE, "usage", "--prime-sizes %s: expected K[,K...] with K in [0, %d]",
                    text, p->n_sizes - 1);
        if (list.size() >= HK_MAX_PRIME_SIZES)
            hk_fail(HK_EXIT_USAGE, "usage", "--prime-sizes: more than %d sizes", HK_MAX_PRIME_SIZES);
        list.push_back((int)k);
        c = *end ? end + 1 : end;
    }
    if (list.empty())
        hk_fail(HK_EXIT_USAGE, "usage", "--prime-sizes: empty list");
}

static void hk_parse_opts(int argc, char **argv, const hk_program *p, hk_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mode = "run";
    o->seed = 1;
    o->check_seed = -1;
    o->warmup = 3;
    o->min_reps = 10;
    o->max_reps = 500;
    o->budget_ms = 1000;
    o->target_spread = 0.02;
    o->checks = 6;
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        if (i + 1 >= argc)
            hk_fail(HK_EXIT_USAGE, "usage", "%s: missing value (or unknown flag)", f);
        const char *v = argv[++i];
        if (!strcmp(f, "--mode")) o->mode = v;
        else if (!strcmp(f, "--size")) o->size = (int)hk_opt_int(f, v, 0, p->n_sizes - 1);
        else if (!strcmp(f, "--seed")) o->seed = hk_opt_int(f, v, 0, INT64_MAX);
        else if (!strcmp(f, "--check-seed")) o->check_seed = hk_opt_int(f, v, 0, INT64_MAX);
        else if (!strcmp(f, "--dist")) o->dist = (int)hk_opt_int(f, v, 0, p->n_dists - 1);
        else if (!strcmp(f, "--out")) o->out = v;
        else if (!strcmp(f, "--combos")) o->combos = v;
        else if (!strcmp(f, "--out-dir")) o->out_dir = v;
        else if (!strcmp(f, "--prime-sizes")) o->prime_sizes = v;
        else if (!strcmp(f, "--launch-state")) {
            if (strcmp(v, "check") != 0 && strcmp(v, "restore") != 0)
                hk_fail(HK_EXIT_USAGE, "usage", "--launch-state %s: expected check or restore", v);
            o->launch_state_check = !strcmp(v, "check");
        }
        else if (!strcmp(f, "--module")) o->module = v;
        else if (!strcmp(f, "--function")) o->function = v;
        else if (!strcmp(f, "--ref-module")) o->ref_module = v;
        else if (!strcmp(f, "--ref-function")) o->ref_function = v;
        else if (!strcmp(f, "--ref-launch")) {
            long long *d = o->ref_launch;
            int n = sscanf(v, "%lld,%lld,%lld,%lld,%lld,%lld,%lld", &d[0], &d[1], &d[2], &d[3],
                           &d[4], &d[5], &d[6]);
            bool ok = n == 7 && d[6] >= 0 && d[3] * d[4] * d[5] <= 1024;
            for (int k = 0; ok && k < 6; k++)
                ok = d[k] >= 1 && d[k] <= INT32_MAX && (k == 0 || k >= 3 || d[k] <= 65535);
            if (!ok)
                hk_fail(HK_EXIT_USAGE, "usage", "--ref-launch %s: expected GX,GY,GZ,BX,BY,BZ,SHMEM "
                        "(a valid launch)", v);
            o->ref_launch_set = 1;
        }
        else if (!strcmp(f, "--widen")) {
            /* I=W[,I=W...]: argument index, absolute widening (finite, >= 0) */
            for (const char *c = v; *c;) {
                char *end = NULL;
                long i = strtol(c, &end, 10);
                double w = 0;
                bool ok = end != c && *end == '=' && i >= 0 && i < HK_MAX_ARGS;
                if (ok) {
                    c = end + 1;
                    w = strtod(c, &end);
                    ok = end != c && isfinite(w) && w >= 0 && (*end == ',' || !*end);
                }
                if (!ok)
                    hk_fail(HK_EXIT_USAGE, "usage", "--widen %s: expected I=W[,I=W...] (an "
                            "argument index below %d, a finite widening >= 0)", v, HK_MAX_ARGS);
                o->widen[i] = w;
                c = *end ? end + 1 : end;
            }
            o->widen_set = 1;
        }
        else if (!strcmp(f, "--perturb")) {
            char *end = NULL;
            long long ps = strtoll(v, &end, 10);
            double sc = end && *end == ':' ? strtod(end + 1, &end) : -1.0;
            int kind = HK_PERTURB_LADDER;
            if (end && !strcmp(end, ":spread")) {
                kind = HK_PERTURB_SPREAD_PLAN;
                end += strlen(end);
            }
            if (ps < 0 || !end || *end || !(sc > 0.0) || !(sc < 1e30))
                hk_fail(HK_EXIT_USAGE, "usage", "--perturb %s: expected SEED:SCALE[:spread] (SEED >= 0, SCALE > 0)", v);
            hk_perturb_seed = ps;
            hk_perturb_scale = sc;
            hk_perturb_kind = kind;
        }
        else if (!strcmp(f, "--checks")) o->checks = (int)hk_opt_int(f, v, 0, 1000);
        else if (!strcmp(f, "--promote")) o->promote = (unsigned long long)hk_opt_int(f, v, 0, INT64_MAX);
        else if (!strcmp(f, "--shmem-scale")) o->shmem_scale = (int)hk_opt_int(f, v, 1, 8);
        else if (!strcmp(f, "--warmup")) o->warmup = (int)hk_opt_int(f, v, 0, 1000);
        else if (!strcmp(f, "--min-reps")) o->min_reps = (int)hk_opt_int(f, v, 1, 100000);
        else if (!strcmp(f, "--max-reps")) o->max_reps = (int)hk_opt_int(f, v, 1, 100000);
        else if (!strcmp(f, "--budget-ms")) o->budget_ms = (double)hk_opt_int(f, v, 1, 3600000);
        else if (!strcmp(f, "--target-spread")) o->target_spread = atof(v);
        else if (!strcmp(f, "--block")) {
            long long d[3] = { 1, 1, 1 };
            int n = sscanf(v, "%lld,%lld,%lld", &d[0], &d[1], &d[2]);
            if (n < 1 || d[0] < 1 || d[1] < 1 || d[2] < 1 || d[0] * d[1] * d[2] > 1024)
                hk_fail(HK_EXIT_USAGE, "usage", "--block %s: expected X[,Y[,Z]], at most 1024 threads", v);
            memcpy(o->block, d, sizeof d);
            o->block_set = 1;
        } else hk_fail(HK_EXIT_USAGE, "usage", "unknown flag %s", f);
    }
    if (strcmp(o->mode, "run") && strcmp(o->mode, "time") && strcmp(o->mode, "probe"))
        hk_fail(HK_EXIT_USAGE, "usage", "--mode %s: expected run, time or probe", o->mode);
    if (o->combos && strcmp(o->mode, "run") != 0)
        hk_fail(HK_EXIT_USAGE, "usage", "--combos is for --mode run");
    if (hk_perturb_seed >= 0 && (strcmp(o->mode, "run") || o->combos || o->promote))
        hk_fail(HK_EXIT_USAGE, "usage", "--perturb is for --mode run with one combination (no --combos, no --promote)");
    if (o->combos)
        hk_parse_combos(o->combos, p);
    if (o->prime_sizes && strcmp(o->mode, "run") != 0)
        hk_fail(HK_EXIT_USAGE, "usage", "--prime-sizes is for --mode run");
    if (o->prime_sizes)
        hk_parse_prime_sizes(o->prime_sizes, p);
    if (o->launch_state_check && (strcmp(o->mode, "run") != 0 || !o->module))
        hk_fail(HK_EXIT_USAGE, "usage", "--launch-state check is for --mode run with --module");
    if (!o->module != !o->function || !o->ref_module != !o->ref_function)
        hk_fail(HK_EXIT_USAGE, "usage", "--module and --function (--ref-module and --ref-function) go together");
    if (!p->launch && !o->module && strcmp(o->mode, "probe") != 0)
        hk_fail(HK_EXIT_USAGE, "usage", "this launcher runs a kernel image: give --module and --function");
    if (o->ref_module && strcmp(o->mode, "time") != 0)
        hk_fail(HK_EXIT_USAGE, "usage", "--ref-module is for --mode time");
    if (o->ref_launch_set && !o->ref_module)
        hk_fail(HK_EXIT_USAGE, "usage", "--ref-launch goes with --ref-module");
    if (o->widen_set && !o->ref_module)
        hk_fail(HK_EXIT_USAGE, "usage", "--widen goes with --ref-module");
    if (o->promote && (strcmp(o->mode, "run") != 0 || !o->module))
        hk_fail(HK_EXIT_USAGE, "usage", "--promote is for --mode run with --module (an fp64 shadow)");
    if (o->min_reps > o->max_reps)
        o->max_reps = o->min_reps;
    if (o->check_seed < 0)
        o->check_seed = o->seed + 1000003;
}

/* ---- device-only kernels: an image loaded with the driver API ----
 * One launcher source for both vendors, over a thin layer (hk_drv_*) of the module calls:
 *   CUDA: the driver API. The launcher links no driver library: libcuda is opened at run
 *         time (a machine without the driver gets "no_gpu", not a loader error), and the
 *         runtime API's primary context, made current by hk_init_device, is the one the
 *         module is loaded into. Images: nvcc -cubin.
 *   HIP:  the HIP runtime's module API (hipModuleLoad, hipModuleGetFunction,
 *         hipModuleLaunchKernel, hipModuleGetGlobal), in the libamdhip64 hipcc links the
 *         launcher with; images: code objects of hipcc --genco. HIP has no parameter-size
 *         query: scalars are passed at the spec dtype's width (as a CUDA driver before 12.4
 *         does here), and the runtime places each argument at the offset the code object's
 *         metadata gives. */

/* The writable globals of a loaded image (hk_kglobals_each) as this process restores them
 * before every launch: the ranges, and per range a device and a host copy of its bytes as
 * the loader left them. */
typedef struct {
    std::vector<unsigned char> image;              /* the image file: the names point into it */
    std::vector<hk_kglobal_at> vars;               /* sorted by hk_kglobals_ranges */
    std::vector<hk_krange> ranges;
    std::vector<void *> pristine;                  /* per range, on the device */
    std::vector<std::vector<unsigned char> > host; /* per range, the same bytes */
    size_t bytes, unrestored;
    std::vector<unsigned char> now;                /* hk_kmod_state_check's download */
} hk_kstate;

typedef struct {
    void *module, *function;           /* CUmodule, CUfunction (hipModule_t, hipFunction_t) */
    const char *path, *name;
    size_t n_params;                   /* from cuFuncGetParamInfo; 0: unknown */
    size_t param_size[HK_MAX_ARGS];
    size_t local_bytes;                /* the kernel's local frame per thread (0: none or unknown) */
    hk_kstate *state;                  /* hk_kmod_globals; NULL before (nothing restored) */
} hk_kmod;

#ifdef HK_HIP
#define HK_DRV_LAUNCH_NAME "hipModuleLaunchKernel"
static const char *hk_cu_err(int e) { return hipGetErrorName((hipError_t)e); }
static void hk_cu_open(void) {}
static int hk_drv_load(void **m, const char *path)
{
    hipModule_t mod = NULL;
    int e = (int)hipModuleLoad(&mod, path);
    *m = (void *)mod;
    return e;
}
static int hk_drv_getfn(void **f, void *m, const char *name)
{
    hipFunction_t fn = NULL;
    int e = (int)hipModuleGetFunction(&fn, (hipModule_t)m, name);
    *f = (void *)fn;
    return e;
}
static int hk_drv_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                         unsigned bz, unsigned shmem, void **params)
{
    return (int)hipModuleLaunchKernel((hipFunction_t)f, gx, gy, gz, bx, by, bz, shmem, NULL, params,
                                      NULL);
}
/* no parameter-size query in HIP: 0 parameters known */
static int hk_drv_paraminfo(void *, size_t, size_t *, size_t *) { return -1; }
static size_t hk_drv_local_bytes(void *f)
{
    int v = 0;
    if (hipFuncGetAttribute(&v, HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, (hipFunction_t)f) != hipSuccess)
        return 0;
    return v > 0 ? (size_t)v : 0;
}
/* AMD: a kernel may use all of the LDS (64 KB on gfx9) without an opt-in */
static void hk_drv_max_shmem(void *, int) {}
static int hk_drv_getglobal(unsigned long long *dptr, size_t *size, void *m, const char *sym)
{
    hipDeviceptr_t p = 0;
    int e = (int)hipModuleGetGlobal(&p, size, (hipModule_t)m, sym);
    *dptr = (unsigned long long)(uintptr_t)p;
    return e;
}
#else
#define HK_DRV_LAUNCH_NAME "cuLaunchKernel"
typedef int (*hk_cu_load_t)(void **, const char *);
typedef int (*hk_cu_getfn_t)(void **, void *, const char *);
typedef int (*hk_cu_launch_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, void *, void **, void **);
typedef int (*hk_cu_paraminfo_t)(void *, size_t, size_t *, size_t *);
typedef int (*hk_cu_setattr_t)(void *, int, int);
typedef int (*hk_cu_errname_t)(int, const char **);
typedef int (*hk_cu_getglobal_t)(unsigned long long *, size_t *, void *, const char *);
typedef int (*hk_cu_getattr_t)(int *, int, void *);
static struct {
    void *lib;
    hk_cu_load_t load;
    hk_cu_getfn_t getfn;
    hk_cu_launch_t launch;
    hk_cu_paraminfo_t paraminfo;   /* CUDA 12.4+ drivers; NULL before */
    hk_cu_setattr_t setattr;
    hk_cu_errname_t errname;
    hk_cu_getglobal_t getglobal;
    hk_cu_getattr_t getattr;
} hk_cu;

static const char *hk_cu_err(int e)
{
    const char *n = NULL;
    if (hk_cu.errname && hk_cu.errname(e, &n) == 0 && n)
        return n;
    return "CUDA driver error";
}

static void hk_cu_open(void)
{
    if (hk_cu.lib)
        return;
    hk_cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!hk_cu.lib)
        hk_fail(HK_EXIT_NO_GPU, "no_gpu", "the CUDA driver library (libcuda.so.1) cannot be opened: %s",
                dlerror());
    hk_cu.load = (hk_cu_load_t)dlsym(hk_cu.lib, "cuModuleLoad");
    hk_cu.getfn = (hk_cu_getfn_t)dlsym(hk_cu.lib, "cuModuleGetFunction");
    hk_cu.launch = (hk_cu_launch_t)dlsym(hk_cu.lib, "cuLaunchKernel");
    hk_cu.paraminfo = (hk_cu_paraminfo_t)dlsym(hk_cu.lib, "cuFuncGetParamInfo");
    hk_cu.setattr = (hk_cu_setattr_t)dlsym(hk_cu.lib, "cuFuncSetAttribute");
    hk_cu.errname = (hk_cu_errname_t)dlsym(hk_cu.lib, "cuGetErrorName");
    hk_cu.getglobal = (hk_cu_getglobal_t)dlsym(hk_cu.lib, "cuModuleGetGlobal_v2");
    hk_cu.getattr = (hk_cu_getattr_t)dlsym(hk_cu.lib, "cuFuncGetAttribute");
    if (!hk_cu.load || !hk_cu.getfn || !hk_cu.launch)
        hk_fail(HK_EXIT_CUDA, "cuda", "the CUDA driver library lacks cuModuleLoad/cuLaunchKernel");
}
static int hk_drv_load(void **m, const char *path) { return hk_cu.load(m, path); }
static int hk_drv_getfn(void **f, void *m, const char *name) { return hk_cu.getfn(f, m, name); }
static int hk_drv_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                         unsigned bz, unsigned shmem, void **params)
{
    return hk_cu.launch(f, gx, gy, gz, bx, by, bz, shmem, NULL, params, NULL);
}
static int hk_drv_paraminfo(void *f, size_t i, size_t *off, size_t *size)
{
    return hk_cu.paraminfo ? hk_cu.paraminfo(f, i, off, size) : -1;
}
static size_t hk_drv_local_bytes(void *f)
{
    int v = 0;
    if (!hk_cu.getattr || hk_cu.getattr(&v, 3 /* CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES */, f) != 0)
        return 0;
    return v > 0 ? (size_t)v : 0;
}
static void hk_drv_max_shmem(void *f, int bytes)
{
    if (hk_cu.setattr)
        (void)hk_cu.setattr(f, 8 /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */, bytes);
}
static int hk_drv_getglobal(unsigned long long *dptr, size_t *size, void *m, const char *sym)
{
    if (!hk_cu.getglobal)
        hk_fail(HK_EXIT_CUDA, "cuda", "the CUDA driver library lacks cuModuleGetGlobal_v2");
    return hk_cu.getglobal(dptr, size, m, sym);
}
#endif

/* Loads path and finds name in it (after hk_init_device). */
static void hk_kmod_load(hk_kmod *m, const char *path, const char *name)
{
    hk_cu_open();
    m->path = path;
    m->name = name;
    int e = hk_drv_load(&m->module, path);
    if (e)
        hk_fail(HK_EXIT_CUDA, "cuda", "cannot load the kernel image %s: %s (%d)", path, hk_cu_err(e), e);
    if ((e = hk_drv_getfn(&m->function, m->module, name)))
        hk_fail(HK_EXIT_USAGE, "spec_mismatch", "the kernel image %s has no kernel %s: %s", path,
                name, hk_cu_err(e));
    m->local_bytes = hk_drv_local_bytes(m->function);
    m->n_params = 0;
    for (size_t i = 0; i < HK_MAX_ARGS; i++) {
        size_t off = 0, size = 0;
        if (hk_drv_paraminfo(m->function, i, &off, &size) != 0)
            break;
        m->param_size[m->n_params++] = size;
    }
}

/* The address and size of the __constant__ variable name (as declared: "mask", "ns::mask")
 * in m's image, by the symbol hk_constant_symbol names. Fails the program (spec_mismatch)
 * when the image has no such symbol. */
static void hk_kmod_global(const hk_kmod *m, const char *name, unsigned long long *dptr, size_t *size)
{
    char sym[512];
    if (hk_constant_symbol(name, sym, sizeof sym) != 0)
        hk_fail(HK_EXIT_USAGE, "spec_mismatch", "__constant__ %s: the name is too long", name);
    int e = hk_drv_getglobal(dptr, size, m->module, sym);
    if (e)
        hk_fail(HK_EXIT_USAGE, "spec_mismatch", "the kernel image %s has no __constant__ %s (symbol "
                "%s): %s; the spec's constants name a variable its kernel does not read", m->path,
                name, sym, hk_cu_err(e));
}

static int hk_kglobal_push(void *ctx, const hk_kglobal *g)
{
    hk_kglobal_at a;
    memset(&a, 0, sizeof a);
    a.g = *g;
    ((std::vector<hk_kglobal_at> *)ctx)->push_back(a);
    return 0;
}

/* Reads the writable globals of m's image (its ELF symbol table, hk_kglobals_each), finds
 * each in the loaded module by its symbol, and keeps a device and a host copy of the bytes
 * the loader gave them (right after the load, before any launch): zeros for a variable of
 * a NOBITS section (.nv.global, .bss), which nothing has written yet (reading it back would
 * be an uninitialized read to compute-sanitizer's initcheck, and the launcher's own at
 * that: session 32's reduce_sum_retire), a read-back for an initialised one (the loader
 * wrote it, relocations applied). Each variable is then written once from those host bytes,
 * so the tools see it initialised. The spec's __constant__ inputs are left out (a HIP image
 * places them in .bss): the harness fills them itself. An image without writable globals
 * costs nothing later. Fails the program (spec_mismatch) when the image cannot be read as
 * ELF. */
static void hk_kmod_globals(hk_kmod *m, const hk_program *p)
{
    hk_kstate *ks = new hk_kstate();
    ks->bytes = ks->unrestored = 0;
    m->state = ks;
    FILE *f = fopen(m->path, "rb");
    if (!f)
        hk_fail(HK_EXIT_USAGE, "spec_mismatch", "cannot read the kernel image %s", m->path);
    unsigned char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && ks->image.size() <= HK_IMAGE_MAX_BYTES)
        ks->image.insert(ks->image.end(), chunk, chunk + n);
    fclose(f);
    if (ks->image.size() > HK_IMAGE_MAX_BYTES ||
        hk_kglobals_each(ks->image.data(), ks->image.size(), hk_kglobal_push, &ks->vars) != 0)
        hk_fail(HK_EXIT_USAGE, "spec_mismatch", "the kernel image %s has no ELF symbol table "
                "the launcher can read (its writable globals cannot be restored)", m->path);
    if (ks->vars.empty())
        return;
    for (size_t i = 0; i < ks->vars.size(); i++) {
        hk_kglobal_at *v = &ks->vars[i];
        for (int c = 0; c < p->n_consts && c < HK_MAX_CONSTS; c++) {
            char sym[512];
            if (hk_constant_symbol(p->consts[c].name, sym, sizeof sym) == 0 && !strcmp(sym, v->g.name))
                v->excluded = 1;
        }
        if (hk_drv_getglobal(&v->dptr, &v->dev_size, m->module, v->g.name) == 0)
            v->resolved = 1;
        else
            (void)cudaGetLastError(); /* a symbol the driver does not know: not an error here */
    }
    ks->ranges.resize(ks->vars.size());
    size_t nr = hk_kglobals_ranges(ks->vars.data(), ks->vars.size(), ks->ranges.data(),
                                   &ks->unrestored);
    ks->ranges.resize(nr);
    ks->pristine.resize(nr);
    ks->host.resize(nr);
    for (size_t r = 0; r < nr; r++) {
        size_t b = (size_t)ks->ranges[r].bytes;
        void *var = (void *)(uintptr_t)ks->ranges[r].dptr;
        ks->bytes += b;
        ks->host[r].assign(b, 0);
        if (!ks->vars[ks->ranges[r].first].g.zero_init)
            HK_CHECK(cudaMemcpy(ks->host[r].data(), var, b, cudaMemcpyDeviceToHost));
        HK_CHECK(cudaMemcpy(var, ks->host[r].data(), b, cudaMemcpyHostToDevice));
        HK_CHECK(cudaMalloc(&ks->pristine[r], b));
        HK_CHECK(cudaMemcpy(ks->pristine[r], ks->host[r].data(), b, cudaMemcpyHostToDevice));
    }
}

/* Sets every writable global of m's image back to its bytes at load: device-to-device
 * copies enqueued on the default stream (the one launches and the timing events use), so
 * they are done before the next launch starts. Nothing at all for an image without them. */
static void hk_kmod_restore(const hk_kmod *m)
{
    if (!m->state)
        return;
    const hk_kstate *ks = m->state;
    for (size_t r = 0; r < ks->ranges.size(); r++)
        HK_CHECK(cudaMemcpyAsync((void *)(uintptr_t)ks->ranges[r].dptr, ks->pristine[r],
                                 (size_t)ks->ranges[r].bytes, cudaMemcpyDeviceToDevice, 0));
}

static void hk_hex(const unsigned char *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    out[2 * n] = '\0';
}

/* The first run-mode sentence about a global a launch left changed (not --launch-state
 * check: the baseline's processes), for the result line. */
static std::string hk_state_changed;

/* After a launch (device synchronized): whether m's writable globals still hold their bytes
 * at load. A change fails the program (launch_state, HK_LAUNCH_STATE_FMT: the variable, the
 * bytes before and after) when fail, else the first one is kept in hk_state_changed. */
static void hk_kmod_state_check(const hk_kmod *m, bool fail)
{
    if (!m->state || (!fail && !hk_state_changed.empty())) /* noted once is enough */
        return;
    hk_kstate *ks = m->state;
    for (size_t r = 0; r < ks->ranges.size(); r++) {
        const hk_krange *rg = &ks->ranges[r];
        size_t b = (size_t)rg->bytes;
        ks->now.resize(b);
        HK_CHECK(cudaMemcpy(ks->now.data(), (void *)(uintptr_t)rg->dptr, b, cudaMemcpyDeviceToHost));
        const unsigned char *was = ks->host[r].data(), *is = ks->now.data();
        if (!memcmp(was, is, b))
            continue;
        size_t lo = 0, hi = b;
        while (was[lo] == is[lo])
            lo++;
        while (hi > lo && was[hi - 1] == is[hi - 1])
            hi--;
        /* a range is one variable (hk_kglobals_ranges) */
        const char *name = ks->vars[rg->first].g.name;
        size_t vsize = b, vlo = lo;
        size_t shown = hi - lo < 16 ? hi - lo : 16;
        char before[33], after[33];
        hk_hex(was + lo, shown, before);
        hk_hex(is + lo, shown, after);
        if (fail)
            hk_fail(HK_EXIT_LAUNCH_STATE, "launch_state", HK_LAUNCH_STATE_FMT, name, vsize, vlo,
                    vlo + (hi - lo) - 1, before, after);
        if (hk_state_changed.empty()) {
            char msg[1024];
            snprintf(msg, sizeof msg, HK_LAUNCH_STATE_FMT, name, vsize, vlo, vlo + (hi - lo) - 1,
                     before, after);
            hk_state_changed = msg;
        }
        return;
    }
}

/* Copies bytes of host into the __constant__ variable name of m's image. */
static void hk_kmod_set_constant(const hk_kmod *m, const char *name, const void *host, size_t bytes)
{
    unsigned long long dptr = 0;
    size_t size = 0;
    hk_kmod_global(m, name, &dptr, &size);
    if (bytes > size)
        hk_fail(HK_EXIT_USAGE, "spec_mismatch", "the spec fills %zu bytes of __constant__ %s; the "
                "kernel image %s declares %zu", bytes, name, m->path, size);
    /* the image is loaded in the runtime's primary context: its address is a device address
     * the runtime copies to */
    HK_CHECK(cudaMemcpy((void *)(uintptr_t)dptr, host, bytes, cudaMemcpyHostToDevice));
}

/* One launch of m's kernel with st's launch dims and arguments (pointers as st->args hold
 * them now). Each scalar is passed at the width the kernel declares (its parameter size),
 * as the spec's dtype says: a float spec value as float/double/half, an integer as an
 * integer of that width. */
/* One launch of m with st's arguments, at grid g, block b and dynamic shared bytes shmem. */
static void hk_kmod_launch_at(const hk_kmod *m, const hk_program *p, const hk_state *st,
                              const long long *g, const long long *b, long long shmem)
{
    if (m->n_params && m->n_params != (size_t)p->n_args)
        hk_fail(HK_EXIT_USAGE, "spec_mismatch", "the kernel %s has %zu parameters, the spec %d",
                m->name, m->n_params, p->n_args);
    union {
        void *ptr;
        float f;
        double d;
        __half h;
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
    } store[HK_MAX_ARGS];
    void *params[HK_MAX_ARGS];
    for (int i = 0; i < p->n_args; i++) {
        const hk_arg *a = &st->args[i];
        size_t size = m->n_params ? m->param_size[i]
                      : a->is_ptr ? sizeof(void *)
                      : st->promoted[i] ? sizeof(double)
                                        : hk_dtype_size(p->args[i].dtype);
        memset(&store[i], 0, sizeof store[i]);
        params[i] = &store[i];
        if (a->is_ptr) {
            if (size != sizeof(void *))
                hk_fail(HK_EXIT_USAGE, "spec_mismatch",
                        "argument %d is a buffer in the spec but a %zu-byte value in the kernel", i, size);
            store[i].ptr = a->ptr;
        } else if (a->is_float) {
            if (size == 4) store[i].f = (float)a->f;
            else if (size == 8) store[i].d = a->f;
            else if (size == 2) store[i].h = __float2half((float)a->f);
            else hk_fail(HK_EXIT_USAGE, "spec_mismatch", "argument %d: a %zu-byte floating-point value", i, size);
        } else {
            if (size == 1) store[i].i8 = (int8_t)a->i;
            else if (size == 2) store[i].i16 = (int16_t)a->i;
            else if (size == 4) store[i].i32 = (int32_t)a->i;
            else if (size == 8) store[i].i64 = (int64_t)a->i;
            else hk_fail(HK_EXIT_USAGE, "spec_mismatch",
                         "argument %d: a %zu-byte parameter (a struct?) the spec cannot fill", i, size);
        }
    }
    if (shmem > 48 * 1024)
        hk_drv_max_shmem(m->function, (int)shmem);
    int e = hk_drv_launch(m->function, (unsigned)g[0], (unsigned)g[1], (unsigned)g[2],
                          (unsigned)b[0], (unsigned)b[1], (unsigned)b[2], (unsigned)shmem, params);
    if (e)
        hk_fail(HK_EXIT_CUDA, "cuda", HK_DRV_LAUNCH_NAME "(%s): %s (%d)", m->name, hk_cu_err(e), e);
}

static void hk_kmod_launch(const hk_kmod *m, const hk_program *p, const hk_state *st)
{
    hk_kmod_launch_at(m, p, st, st->grid, st->block, st->shmem);
}

/* The kernel of this run: the loaded module's (a launcher), else the program's own. */
static hk_kmod hk_main_kmod, hk_ref_kmod;
/* --ref-launch: the baseline's grid, block and dynamic shared bytes for the reference
 * kernel; unset: the candidate's (st's) */
static long long hk_ref_launch[7];
static int hk_ref_launch_set;
/* --widen: the server's widened tolerance (the baseline's own fp64 error, twice) per
 * argument, added to the spec's atol where checked launches are compared */
static double hk_widen[HK_MAX_ARGS];

static void hk_do_launch(const hk_program *p, const hk_state *st)
{
    if (hk_main_kmod.function)
        hk_kmod_launch(&hk_main_kmod, p, st);
    else
        p->launch(st);
}

static int hk_device_attr(cudaDeviceAttr a)
{
    int v = 0;
    HK_CHECK(cudaDeviceGetAttribute(&v, a, 0));
    return v;
}

/* ---- shared memory between launches ----
 * Neither the hardware nor the driver clears __shared__ memory between the kernels of a
 * context, so a block can leave a marker at its end and find it, uninitialized, at the start
 * of a block of a later launch on the same SM: a launch count kept where no global reaches,
 * with which a kernel could take one path in the processes that are checked (one launch
 * under compute-sanitizer) and another in the launches that are timed. So before every
 * launch of a candidate the program writes zeros over the shared memory of every SM: a
 * kernel with the largest dynamic shared allocation a block may take, two blocks per SM
 * (one fits at a time, so each SM takes one in the first wave; the scheduler does not
 * promise it, which is why the probe tests/gpu/smem_probe.cu looks). Outside the timing
 * events, like the restore of the globals; zeros, so every launch sees what the first one
 * of a fresh context sees, whatever ran before. Local memory is not covered. */
static __global__ void hk_smem_scrub_kernel(unsigned words)
{
    extern __shared__ unsigned hk_scrub_words[];
    for (unsigned k = threadIdx.x; k < words; k += blockDim.x)
        hk_scrub_words[k] = 0u;
}

static int hk_scrub_bytes = -1, hk_scrub_blocks;

static void hk_smem_scrub(void)
{
    if (hk_scrub_bytes < 0) {
        int sms = 0, most = 0;
        HK_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        HK_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlock, 0));
#ifndef HK_HIP
        int optin = 0;
        if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess &&
            optin > most &&
            cudaFuncSetAttribute(hk_smem_scrub_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 optin) == cudaSuccess)
            most = optin;
        (void)cudaGetLastError(); /* a device without the opt-in keeps the default size */
#endif
        hk_scrub_bytes = most & ~3;
        hk_scrub_blocks = 2 * (sms > 0 ? sms : 1);
    }
    if (hk_scrub_bytes <= 0)
        return;
    hk_smem_scrub_kernel<<<hk_scrub_blocks, 256, (size_t)hk_scrub_bytes>>>((unsigned)hk_scrub_bytes / 4u);
    HK_CHECK(cudaGetLastError());
}

/* ---- local memory between launches ----
 * A thread's local memory (its frame: arrays, spills; below it the stack) is not cleared
 * between launches either: tests/gpu/local_probe.cu found every word of a 256 B and a 4 KiB
 * frame that one launch left in the next launch of the same kernel (H100, session 35), a
 * channel as good as shared memory for a launch count. Frames start at the same place for
 * every kernel, so a kernel whose frame is at least as large, run on every warp slot of
 * every SM (the most resident threads per SM, twice over), writes zeros over every frame a
 * candidate can have left. Run before every launch of a candidate (hk_lmem_on, set when its
 * image is loaded), frameless ones included, beside the shared-memory scrub; sized by
 * hk_lmem_scrub_size: the larger of the candidate's frame (hk_lmem_bytes, from
 * hk_kmod.local_bytes) and the context's per-thread stack (CU_LIMIT_STACK_SIZE, read before
 * each scrub: the driver raises it to the largest frame it has run, the scrub's own
 * included), the thread's whole local window. A frame alone was the size until session 36,
 * which left the rest of the window -- reached by a local array indexed past its end or a
 * generic pointer made from an integer, neither of which the PTX names as anything but a
 * load (tests/gpu/cheats/local_past_end.cu, local_from_int.cu) -- keeping one launch's words
 * for the next; the scrub does not depend on how an address is made. A reach over
 * HK_LMEM_MOST is scrubbed over its first 64 KiB, and the candidate's checked process fails
 * launch_state (HK_LAUNCH_FRAME_FMT). What even that does not bound -- the dynamic stack
 * (alloca), recursion, calls through a pointer, inline asm addressing .local itself -- the
 * referee refuses from the PTX before any run (measure_local_check, local_state). */
template <unsigned WORDS> static __global__ void hk_lmem_scrub_kernel(void)
{
    volatile unsigned frame[WORDS];
#pragma unroll 1 /* an indexed array stays in local memory */
    for (unsigned k = 0; k < WORDS; k++)
        frame[k] = 0u;
}

static size_t hk_lmem_bytes;       /* the candidate's frame per thread */
static size_t hk_lmem_stack_bytes; /* the context's per-thread stack at the last look */
static bool hk_lmem_on;            /* a candidate's image is loaded: scrub before its launches */
static size_t hk_lmem_zeroed;      /* bytes per thread the last scrub wrote over */
static unsigned hk_lmem_blocks;

/* The context's per-thread stack (CU_LIMIT_STACK_SIZE; HIP's hipLimitStackSize, 0). */
static size_t hk_lmem_stack(void)
{
    size_t stack = 0;
#ifdef HK_HIP
    /* Not every HIP has hipLimitStackSize (ROCm 5's headers stop at the printf FIFO and the
     * heap, and its hipDeviceGetLimit answers the heap only): there, ROCm's default stack,
     * 1 KiB, which nothing in a candidate can change (no host code). */
    if (hipDeviceGetLimit(&stack, (hipLimit_t)0) != hipSuccess || !stack) {
        (void)cudaGetLastError(); /* the unsupported limit is not the scrub's error */
        stack = 1024;
    }
#else
    HK_CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
#endif
    return stack;
}

static void hk_lmem_scrub(void)
{
    if (!hk_lmem_on)
        return;
    if (!hk_lmem_blocks) {
        int sms = 0, most = 0;
        HK_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        HK_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
        hk_lmem_blocks = 2u * (unsigned)(sms > 0 ? sms : 1) * (unsigned)(most > 256 ? most / 256 : 1);
    }
    hk_lmem_stack_bytes = hk_lmem_stack();
    size_t bytes = hk_lmem_scrub_size(hk_lmem_bytes, hk_lmem_stack_bytes);
    if (!bytes) /* past the most: its checked process fails launch_state */
        bytes = HK_LMEM_MOST;
    hk_lmem_zeroed = bytes;
    switch (bytes) { /* HK_LMEM_SIZES */
    case 256: hk_lmem_scrub_kernel<64><<<hk_lmem_blocks, 256>>>(); break;
    case 512: hk_lmem_scrub_kernel<128><<<hk_lmem_blocks, 256>>>(); break;
    case 1024: hk_lmem_scrub_kernel<256><<<hk_lmem_blocks, 256>>>(); break;
    case 1536: hk_lmem_scrub_kernel<384><<<hk_lmem_blocks, 256>>>(); break;
    case 2048: hk_lmem_scrub_kernel<512><<<hk_lmem_blocks, 256>>>(); break;
    case 4096: hk_lmem_scrub_kernel<1024><<<hk_lmem_blocks, 256>>>(); break;
    case 8192: hk_lmem_scrub_kernel<2048><<<hk_lmem_blocks, 256>>>(); break;
    case 16384: hk_lmem_scrub_kernel<4096><<<hk_lmem_blocks, 256>>>(); break;
    case 32768: hk_lmem_scrub_kernel<8192><<<hk_lmem_blocks, 256>>>(); break;
    default: hk_lmem_scrub_kernel<HK_LMEM_MOST / 4><<<hk_lmem_blocks, 256>>>(); break;
    }
    HK_CHECK(cudaGetLastError());
}

static void hk_init_device(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
#ifdef HK_HIP
    if (e != cudaSuccess || n == 0)
        hk_fail(HK_EXIT_NO_GPU, "no_gpu", "no HIP device (DCU/AMD GPU) (%s)", cudaGetErrorString(e));
#else
    if (e != cudaSuccess || n == 0)
        hk_fail(HK_EXIT_NO_GPU, "no_gpu", "no CUDA device (%s)", cudaGetErrorString(e));
#endif
    HK_CHECK(cudaSetDevice(0));
    HK_CHECK(cudaFree(0)); /* the primary context, current for the module loads (hk_drv_load) */
}

static void hk_probe(void)
{
    hk_init_device();
    cudaDeviceProp prop;
    HK_CHECK(cudaGetDeviceProperties(&prop, 0));
    int major = hk_device_attr(cudaDevAttrComputeCapabilityMajor);
    int minor = hk_device_attr(cudaDevAttrComputeCapabilityMinor);
    fprintf(hk_res(), "{\"name\":");
    hk_json_string(hk_res(), prop.name);
#ifdef HK_HIP
    /* The arch is the code-object target ("gfx906" of "gfx906:sramecc+:xnack-"), what
     * --offload-arch takes; the compute capability HIP reports is only nominal. */
    char arch[64];
    snprintf(arch, sizeof arch, "%s", prop.gcnArchName);
    arch[strcspn(arch, ":")] = '\0';
    fprintf(hk_res(), ",\"sm_count\":%d,\"l2_bytes\":%d,\"cc\":\"%d.%d\",\"arch\":",
           hk_device_attr(cudaDevAttrMultiProcessorCount), hk_device_attr(cudaDevAttrL2CacheSize),
           major, minor);
    hk_json_string(hk_res(), arch);
    fprintf(hk_res(), ",\"warp_size\":%d,\"global_mem_bytes\":%zu}\n", hk_device_attr(cudaDevAttrWarpSize),
           prop.totalGlobalMem);
#else
    fprintf(hk_res(), ",\"sm_count\":%d,\"l2_bytes\":%d,\"cc\":\"%d.%d\",\"arch\":\"sm_%d%d\","
           "\"global_mem_bytes\":%zu}\n",
           hk_device_attr(cudaDevAttrMultiProcessorCount), hk_device_attr(cudaDevAttrL2CacheSize),
           major, minor, major, minor, prop.totalGlobalMem);
#endif
}

/* Seed of argument i's values in the combination seed (run mode's derivation). */
static uint64_t hk_arg_seed(long long seed, int i)
{
    uint64_t s = (uint64_t)seed * 0x100000001B3ull + (uint64_t)i * 0x9E3779B9ull + 0x5EEDull;
    return hk_mix(&s);
}

/* The spec's __constant__ inputs for (seed, dist), generated on the host like inputs (seeds
 * after the arguments'), then copied into the symbol of every kernel this process runs: the
 * loaded image's and the reference image's (a launcher), or the program's own. Baseline and
 * candidate processes copy the same bytes for the same seed, so the oracle compares
 * kernels that read the same table. */
static void hk_fill_constants(const hk_program *p, const hk_state *st, long long seed, int dist)
{
    for (int i = 0; i < p->n_consts && i < HK_MAX_CONSTS; i++) {
        const hk_constdesc *c = &p->consts[i];
        size_t count = st->const_count[i], bytes = count * hk_dtype_size(c->dtype);
        std::vector<unsigned char> host(bytes ? bytes : 1);
        hk_fill(host.data(), count, c->dtype, p->const_dists[dist * p->n_consts + i],
                hk_arg_seed(seed, HK_MAX_ARGS + i));
        if (hk_main_kmod.function)
            hk_kmod_set_constant(&hk_main_kmod, c->name, host.data(), bytes);
        else if (p->set_constant)
            p->set_constant(i, host.data(), bytes);
        if (hk_ref_kmod.function)
            hk_kmod_set_constant(&hk_ref_kmod, c->name, host.data(), bytes);
    }
}

static double hk_load(const unsigned char *b, size_t e, int dt);

/* Argument arg's plan applied to its host values (count elements of dtype dt, drawn from
 * d): each planned element raised by its amount, rounded to the element type. */
static void hk_perturb_apply(void *host, size_t count, int dt, hk_dist d, int arg)
{
    uint64_t pos[HK_PERTURB_MAX];
    double amount[HK_PERTURB_MAX];
    int n = 0;
    if (hk_perturb_seed < 0)
        return;
    hk_perturb_plan_kind((uint64_t)hk_perturb_seed, arg, count, dt, d, hk_perturb_scale, hk_perturb_kind,
                         pos, amount, &n);
    for (int j = 0; j < n; j++) {
        hk_store(host, (size_t)pos[j], dt,
                 hk_perturb_value(hk_load((const unsigned char *)host, (size_t)pos[j], dt), amount[j], d,
                                  hk_perturb_scale));
        hk_perturbed++;
    }
}

/* Fills inputs and inouts from (seed, dist), poisons outputs with HK_POISON_A; fills the
 * __constant__ inputs. */
static void hk_prepare(const hk_program *p, hk_state *st, long long seed, int dist)
{
    hk_fill_constants(p, st, seed, dist);
    for (int i = 0; i < p->n_args; i++) {
        hk_buffer *b = &st->buf[i];
        if (p->args[i].kind == HK_ARG_SCALAR)
            continue;
        if (p->args[i].kind == HK_ARG_OUTPUT) {
            HK_CHECK(cudaMemset(b->dev, HK_POISON_A, b->bytes));
            continue;
        }
        if (st->promoted[i]) { /* the float inputs the baseline gets, widened exactly */
            std::vector<float> f(b->count ? b->count : 1);
            hk_fill(f.data(), b->count, HK_DT_F32, p->dists[dist * p->n_args + i], hk_arg_seed(seed, i));
            for (size_t k = 0; k < b->count; k++)
                ((double *)b->host)[k] = (double)f[k];
        } else {
            hk_fill(b->host, b->count, b->dtype, p->dists[dist * p->n_args + i], hk_arg_seed(seed, i));
            hk_perturb_apply(b->host, b->count, b->dtype, p->dists[dist * p->n_args + i], i);
        }
        HK_CHECK(cudaMemcpy(b->dev, b->host, b->bytes, cudaMemcpyHostToDevice));
    }
}

/* Run mode compares the image's writable globals after every launch (1: the first change
 * is noted in the result line; 2: --launch-state check, it fails the program); time mode
 * does not (0): its launches are restored all the same. */
static int hk_state_compare;

/* One launch, every SM's shared memory and the local window zeroed and its globals restored
 * first, device synchronized; then (run mode) its globals compared with their bytes at load. */
static void hk_launch_checked(const hk_program *p, const hk_state *st)
{
    hk_smem_scrub();
    hk_lmem_scrub();
    hk_kmod_restore(&hk_main_kmod);
    hk_do_launch(p, st);
    HK_CHECK(cudaGetLastError());
    HK_CHECK(cudaDeviceSynchronize());
    if (hk_state_compare)
        hk_kmod_state_check(&hk_main_kmod, hk_state_compare == 2);
}

static bool hk_all_bytes(const unsigned char *e, size_t n, unsigned char v)
{
    for (size_t k = 0; k < n; k++)
        if (e[k] != v)
            return false;
    return true;
}

/* Whether any element of es bytes in b (count elements) is entirely the byte v: word
 * compares, so a GB-sized output is scanned at memory speed. */
static bool hk_any_element_all(const unsigned char *b, size_t count, size_t es, unsigned char v)
{
    uint64_t pat;
    memset(&pat, v, sizeof pat);
    switch (es) {
    case 1: return memchr(b, v, count) != NULL;
    case 2: { uint16_t w, q = (uint16_t)pat; for (size_t e = 0; e < count; e++) { memcpy(&w, b + 2 * e, 2); if (w == q) return true; } return false; }
    case 4: { uint32_t w, q = (uint32_t)pat; for (size_t e = 0; e < count; e++) { memcpy(&w, b + 4 * e, 4); if (w == q) return true; } return false; }
    case 8: { uint64_t w; for (size_t e = 0; e < count; e++) { memcpy(&w, b + 8 * e, 8); if (w == pat) return true; } return false; }
    }
    for (size_t e = 0; e < count; e++)
        if (hk_all_bytes(b + e * es, es, v))
            return true;
    return false;
}

/* Milliseconds since t0 (CLOCK_MONOTONIC). */
static double hk_ms_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) * 1e3 + (double)(now.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Where a run's wall time goes (reported as "phase_ms"): the engine's stages after the
 * search are mostly these processes, so this is what tells which part to make cheaper. */
static struct {
    double init, prime, alloc, prepare, lock, loop, recheck;
    /* run mode with --combos, summed over the combinations: inputs generated and copied
     * (fill), the checked launch and its checks (check), the output file (write) */
    double fill, check, write;
} hk_phase;

/* One checked launch after hk_prepare: guard zones, unchanged inputs, every output
 * element written; then the outputs and inouts go to out_path (NULL: not written). */
static void hk_check_run(const hk_program *p, hk_state *st, const char *out_path)
{
    hk_launch_checked(p, st);
    for (int i = 0; i < p->n_args; i++) {
        if (p->args[i].kind == HK_ARG_SCALAR)
            continue;
        bool hit;
        long long where = hk_redzone_check(&st->buf[i], &hit);
        if (hit)
            hk_fail(HK_EXIT_OUT_OF_BOUNDS, "out_of_bounds",
                    "write outside buffer '%s' (%zu bytes): byte offset %lld", p->args[i].name,
                    st->buf[i].bytes, where);
    }
    std::vector<unsigned char> tmp;
    for (int i = 0; i < p->n_args; i++) {
        hk_buffer *b = &st->buf[i];
        if (p->args[i].kind != HK_ARG_INPUT)
            continue;
        tmp.resize(b->bytes);
        HK_CHECK(cudaMemcpy(tmp.data(), b->dev, b->bytes, cudaMemcpyDeviceToHost));
        if (b->bytes == 0 || memcmp(tmp.data(), b->host, b->bytes) == 0)
            continue; /* the common case, at memory speed */
        for (size_t k = 0; k < b->bytes; k++)
            if (tmp[k] != b->host[k])
                hk_fail(HK_EXIT_INPUT_MODIFIED, "input_modified",
                        "input '%s' changed during the launch: element %zu", p->args[i].name,
                        k / hk_dtype_size(b->dtype));
    }
    /* Outputs keep their inputs' host copies intact: inouts download into a side copy. */
    std::vector<std::vector<unsigned char> > got(p->n_args);
    bool suspect = false;
    for (int i = 0; i < p->n_args; i++) {
        hk_buffer *b = &st->buf[i];
        int k = p->args[i].kind;
        if (k != HK_ARG_OUTPUT && k != HK_ARG_INOUT)
            continue;
        got[i].resize(b->bytes);
        HK_CHECK(cudaMemcpy(got[i].data(), b->dev, b->bytes, cudaMemcpyDeviceToHost));
        if (k == HK_ARG_OUTPUT && !suspect)
            suspect = hk_any_element_all(got[i].data(), b->count, hk_dtype_size(b->dtype), HK_POISON_A);
    }
    if (suspect) {
        /* Some element still reads as poison A: it was never written, or the kernel wrote
         * that very value. Run again (inouts restored) over poison B: an element that
         * reads as the poison both times was never written. */
        for (int i = 0; i < p->n_args; i++) {
            hk_buffer *b = &st->buf[i];
            if (p->args[i].kind == HK_ARG_OUTPUT)
                HK_CHECK(cudaMemset(b->dev, HK_POISON_B, b->bytes));
            else if (p->args[i].kind == HK_ARG_INOUT)
                HK_CHECK(cudaMemcpy(b->dev, b->host, b->bytes, cudaMemcpyHostToDevice));
        }
        hk_launch_checked(p, st);
        for (int i = 0; i < p->n_args; i++) {
            hk_buffer *b = &st->buf[i];
            if (p->args[i].kind != HK_ARG_OUTPUT)
                continue;
            size_t es = hk_dtype_size(b->dtype), first = 0, n = 0;
            tmp.resize(b->bytes);
            HK_CHECK(cudaMemcpy(tmp.data(), b->dev, b->bytes, cudaMemcpyDeviceToHost));
            for (size_t e = 0; e < b->count; e++)
                if (hk_all_bytes(&got[i][e * es], es, HK_POISON_A) &&
                    hk_all_bytes(&tmp[e * es], es, HK_POISON_B) && n++ == 0)
                    first = e;
            if (n)
                hk_fail(HK_EXIT_UNWRITTEN, "unwritten_output",
                        "output '%s': %zu of %zu elements never written (first: %zu)",
                        p->args[i].name, n, b->count, first);
        }
    }
    if (!out_path)
        return;
    struct timespec tw;
    clock_gettime(CLOCK_MONOTONIC, &tw);
    /* Written under a temporary name and renamed: the file appears whole, so the server
     * may compare it while the next combination runs. */
    std::vector<char> part(strlen(out_path) + 8);
    snprintf(part.data(), part.size(), "%s.part", out_path);
    FILE *f = fopen(part.data(), "wb");
    if (!f)
        hk_fail(HK_EXIT_IO, "io", "cannot write %s", out_path);
    uint32_t n_out = 0;
    for (int i = 0; i < p->n_args; i++)
        n_out += p->args[i].kind == HK_ARG_OUTPUT || p->args[i].kind == HK_ARG_INOUT;
    uint32_t version = HK_OUT_VERSION;
    bool ok = fwrite(HK_OUT_MAGIC, 1, 8, f) == 8 && fwrite(&version, 4, 1, f) == 1 &&
              fwrite(&n_out, 4, 1, f) == 1;
    for (int i = 0; ok && i < p->n_args; i++) {
        if (p->args[i].kind != HK_ARG_OUTPUT && p->args[i].kind != HK_ARG_INOUT)
            continue;
        uint32_t idx = (uint32_t)i, dt = (uint32_t)st->buf[i].dtype;
        uint64_t count = st->buf[i].count;
        ok = fwrite(&idx, 4, 1, f) == 1 && fwrite(&dt, 4, 1, f) == 1 &&
             fwrite(&count, 8, 1, f) == 1 &&
             (st->buf[i].bytes == 0 || fwrite(got[i].data(), st->buf[i].bytes, 1, f) == 1);
    }
    if (fclose(f) != 0 || !ok || rename(part.data(), out_path) != 0)
        hk_fail(HK_EXIT_IO, "io", "cannot write %s", out_path);
    hk_phase.write += hk_ms_since(&tw);
}


/* The GPU lock the server handed over (hk_gpulock.h): held shared for the whole process,
 * exclusive around the timed loop alone (warm-up and timed launches), so that other
 * programs' initialization, allocation and checks overlap this one's but no kernel of
 * theirs runs while it times. Without a handed lock (a program run by hand, an older
 * server, HK_GPU_LOCK=off) it times unlocked. Returns whether it holds it exclusively;
 * adds the wait to hk_phase.lock. */
static bool hk_gpu_exclusive_begin(void)
{
    hk_gpulock l;
    if (!hk_gpulock_from_env(&l))
        return false;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    bool held = hk_gpulock_upgrade(&l) == 0;
    hk_phase.lock += hk_ms_since(&t);
    return held;
}

static void hk_gpu_exclusive_end(bool held)
{
    hk_gpulock l;
    if (held && hk_gpulock_from_env(&l))
        (void)hk_gpulock_downgrade(&l); /* for the re-check, beside other readers */
}

static double hk_quantile(const std::vector<double> &sorted, double q)
{
    double pos = q * (double)(sorted.size() - 1);
    size_t lo = (size_t)pos;
    size_t hi = lo + 1 < sorted.size() ? lo + 1 : lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - (double)lo);
}

/* Whether a timed launch of t ms whose synchronize afterwards took long (a long tail: host
 * noise, or work that escaped the events) is still a sample, given the samples kept so far
 * (ms, any order). Dropping a launch must never flatter the candidate, or a kernel that could
 * make a tail (device printf is written by the host at a synchronize) would choose which
 * launches count: one at or above the median of those kept is kept (dropping it could only
 * lower the median); one below it is dropped (the honest case: a fast launch, a host thread
 * descheduled after it), and so is one before any sample. */
static bool hk_tail_keeps(const std::vector<double> &ms, double t)
{
    if (ms.empty())
        return false;
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    return t >= hk_quantile(sorted, 0.5);
}

/* Inputs and inouts of launch seed ls generated on the device into the buffers st->args
 * points at now; outputs poisoned. Asynchronous. */
static void hk_fresh_inputs(const hk_program *p, const hk_state *st, long long ls, int dist,
                            bool poison)
{
    for (int i = 0; i < p->n_args; i++) {
        int k = p->args[i].kind;
        if (k == HK_ARG_SCALAR)
            continue;
        const hk_buffer *b = &st->buf[i];
        if (k == HK_ARG_OUTPUT) {
            if (poison)
                HK_CHECK(cudaMemsetAsync(st->args[i].ptr, HK_POISON_A, b->bytes));
            continue;
        }
        hk_fill_device(st->args[i].ptr, b->count, b->dtype, p->dists[dist * p->n_args + i],
                       hk_arg_seed(ls, i));
    }
    HK_CHECK(cudaGetLastError());
}

/* Element e of a buffer of dtype dt as a double (integers exactly up to 2^53). */
static double hk_load(const unsigned char *b, size_t e, int dt)
{
    switch (dt) {
    case HK_DT_F32: { float v; memcpy(&v, b + 4 * e, 4); return v; }
    case HK_DT_F64: { double v; memcpy(&v, b + 8 * e, 8); return v; }
    case HK_DT_F16: { __half v; memcpy(&v, b + 2 * e, 2); return __half2float(v); }
    case HK_DT_BF16: { __nv_bfloat16 v; memcpy(&v, b + 2 * e, 2); return __bfloat162float(v); }
    case HK_DT_I8: return (double)(int8_t)b[e];
    case HK_DT_U8: return (double)b[e];
    case HK_DT_I16: { int16_t v; memcpy(&v, b + 2 * e, 2); return v; }
    case HK_DT_U16: { uint16_t v; memcpy(&v, b + 2 * e, 2); return v; }
    case HK_DT_I32: { int32_t v; memcpy(&v, b + 4 * e, 4); return v; }
    case HK_DT_U32: { uint32_t v; memcpy(&v, b + 4 * e, 4); return v; }
    case HK_DT_I64: { int64_t v; memcpy(&v, b + 8 * e, 8); return (double)v; }
    case HK_DT_U64: { uint64_t v; memcpy(&v, b + 8 * e, 8); return (double)v; }
    }
    return 0;
}

/* Scratch buffers of a checked launch: the reference kernel's copies of every buffer
 * argument (inputs regenerated from the launch's seed, so the reference reads pristine
 * values even when the candidate wrote its inputs). */
typedef struct {
    void *dev[HK_MAX_ARGS];    /* base + hk_guard_bytes(), as the candidate's buffers */
    unsigned char *base[HK_MAX_ARGS];
    unsigned long long *first; /* hk_device_mismatch's answer; all ones between checks */
    std::vector<unsigned char> got, want;
} hk_refbufs;

/* Byte k of a and b differ: *first becomes at most k. 16-byte words where both are aligned. */
static __global__ void hk_cmp_kernel(const unsigned char *a, const unsigned char *b, size_t n,
                                     unsigned long long *first)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool aligned = (uintptr_t)a % 16 == 0 && (uintptr_t)b % 16 == 0;
    size_t words = aligned ? n / 16 : 0;
    for (size_t w = tid; w < words; w += stride) {
        uint4 x = ((const uint4 *)a)[w], y = ((const uint4 *)b)[w];
        if (x.x == y.x && x.y == y.y && x.z == y.z && x.w == y.w)
            continue;
        size_t k = 16 * w;
        while (a[k] == b[k])
            k++;
        atomicMin(first, (unsigned long long)k);
    }
    for (size_t k = 16 * words + tid; k < n; k += stride)
        if (a[k] != b[k])
            atomicMin(first, (unsigned long long)k);
}

/* The first byte at which device buffers a and b (n bytes each) differ, or n when they are
 * equal; synchronous. The timed checks compare on the device: copying an 823 MB input to
 * the host twice took about 0.2 s per checked launch (llm.c's cross-entropy), which left
 * the GPU idle between timed launches and the loop's budget with ten of them. *first goes
 * back to all ones, so a kernel that found it could not count the checks made. */
static size_t hk_device_mismatch(const void *a, const void *b, size_t n, unsigned long long *first)
{
    if (!n)
        return 0;
    size_t blocks = ((n + 15) / 16 + 255) / 256;
    hk_cmp_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256>>>(
        (const unsigned char *)a, (const unsigned char *)b, n, first);
    HK_CHECK(cudaGetLastError());
    unsigned long long k = 0;
    HK_CHECK(cudaMemcpy(&k, first, sizeof k, cudaMemcpyDeviceToHost));
    HK_CHECK(cudaMemset(first, 0xFF, sizeof *first));
    return k < n ? (size_t)k : n;
}

/* Checks the launch just timed (seed ls): inputs unchanged, every output written, and,
 * with a reference kernel, outputs within the spec's tolerance of the reference's on the
 * same inputs. Fails the program with the launch number in the message. */
static void hk_check_timed(const hk_program *p, hk_state *st, hk_refbufs *rb, long long ls,
                           int dist, int launch)
{
    HK_CHECK(cudaDeviceSynchronize());
    /* the reference's inputs: regenerated, then compared with what the candidate left */
    hk_arg saved[HK_MAX_ARGS];
    memcpy(saved, st->args, sizeof saved);
    for (int i = 0; i < p->n_args; i++)
        if (p->args[i].kind != HK_ARG_SCALAR)
            st->args[i].ptr = rb->dev[i];
    hk_fresh_inputs(p, st, ls, dist, false);
    HK_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < p->n_args; i++) {
        const hk_buffer *b = &st->buf[i];
        if (p->args[i].kind != HK_ARG_INPUT || !b->bytes)
            continue;
        size_t k = hk_device_mismatch(saved[i].ptr, rb->dev[i], b->bytes, rb->first);
        if (k < b->bytes)
            hk_fail(HK_EXIT_INPUT_MODIFIED, "input_modified",
                    "input '%s' changed during timed launch %d: element %zu", p->args[i].name,
                    launch, k / hk_dtype_size(b->dtype));
    }
    if (hk_ref_kmod.function) {
        hk_kmod_restore(&hk_ref_kmod);
        if (hk_ref_launch_set)
            hk_kmod_launch_at(&hk_ref_kmod, p, st, hk_ref_launch, hk_ref_launch + 3,
                              hk_ref_launch[6]);
        else
            hk_kmod_launch(&hk_ref_kmod, p, st);
        HK_CHECK(cudaGetLastError());
        HK_CHECK(cudaDeviceSynchronize());
    }
    memcpy(st->args, saved, sizeof saved);
    for (int i = 0; i < p->n_args; i++) {
        const hk_buffer *b = &st->buf[i];
        int k = p->args[i].kind;
        if ((k != HK_ARG_OUTPUT && k != HK_ARG_INOUT) || !b->bytes)
            continue;
        size_t es = hk_dtype_size(b->dtype);
        /* bit-identical to the reference's outputs passes, as the comparison below would:
         * nothing to copy */
        if (hk_ref_kmod.function && hk_device_mismatch(st->args[i].ptr, rb->dev[i], b->bytes,
                                                       rb->first) == b->bytes)
            continue;
        rb->got.resize(b->bytes);
        HK_CHECK(cudaMemcpy(rb->got.data(), st->args[i].ptr, b->bytes, cudaMemcpyDeviceToHost));
        if (k == HK_ARG_OUTPUT && !hk_ref_kmod.function) {
            /* no reference: only "was every element written" (poison A is NaN in every
             * float type; for integers it is -1 / the maximum, rare enough to name) */
            for (size_t e = 0; hk_dtype_is_float(b->dtype) && e < b->count; e++)
                if (hk_all_bytes(&rb->got[e * es], es, HK_POISON_A))
                    hk_fail(HK_EXIT_UNWRITTEN, "unwritten_output",
                            "output '%s': element %zu not written in timed launch %d",
                            p->args[i].name, e, launch);
            continue;
        }
        if (!hk_ref_kmod.function)
            continue;
        rb->want.resize(b->bytes);
        HK_CHECK(cudaMemcpy(rb->want.data(), rb->dev[i], b->bytes, cudaMemcpyDeviceToHost));
        if (memcmp(rb->got.data(), rb->want.data(), b->bytes) == 0)
            continue;
        double rtol = p->args[i].rtol, atol = p->args[i].atol + hk_widen[i];
        for (size_t e = 0; e < b->count; e++) {
            double c = hk_load(rb->got.data(), e, b->dtype), r = hk_load(rb->want.data(), e, b->dtype);
            bool ok;
            if (isnan(r))
                ok = isnan(c);
            else if (isinf(r))
                ok = c == r;
            else
                ok = isfinite(c) && fabs(c - r) <= atol + rtol * fabs(r);
            if (!ok) {
                if (k == HK_ARG_OUTPUT && hk_all_bytes(&rb->got[e * es], es, HK_POISON_A))
                    hk_fail(HK_EXIT_UNWRITTEN, "unwritten_output",
                            "output '%s': element %zu not written in timed launch %d",
                            p->args[i].name, e, launch);
                hk_fail(HK_EXIT_WRONG, "wrong_answer",
                        "timed launch %d: '%s'[%zu] = %.9g, the reference kernel gives %.9g on the "
                        "same inputs (rtol %g, atol %g)", launch, p->args[i].name, e, c, r, rtol, atol);
            }
        }
    }
    /* A check leaves no trace a later launch could read: the reference's copies (its
     * regenerated inputs and its outputs, in device memory of this context) go back to the
     * canary they were allocated with, so a kernel that finds them cannot count the checks
     * made so far and skip its work once the --checks budget looks spent. */
    size_t guard = hk_guard_bytes();
    for (int i = 0; i < p->n_args; i++)
        if (rb->base[i])
            HK_CHECK(cudaMemset(rb->base[i], HK_CANARY, st->buf[i].bytes + 2 * guard));
    HK_CHECK(cudaDeviceSynchronize());
}

/* Checked timing. Warm-up, then timed launches until the spread (IQR / median) is at most
 * the target after min_reps, or the loop's wall-clock budget or max_reps is reached. Each
 * timed launch: inputs generated fresh on the device from a seed of its own (so no launch
 * sees inputs an earlier one saw: a cache keyed on inputs never hits), outputs poisoned,
 * globals restored, shared memory and local windows zeroed (hk_smem_scrub, hk_lmem_scrub), L2
 * flushed, device synchronized, then the launch between two events; then a device synchronize that must return at once
 * (work still running is stray_work). Launches chosen at random (about one in four, at
 * most --checks, never predictable by the kernel: the choice comes from the process's own
 * entropy, not from the seeds whose values the kernel reads), and always the last, are
 * checked. Then the correctness re-check with check_seed, written to --out. */
/* Timed launches whose synchronize afterwards took long (host noise, see hk_time) that are
 * dropped before the next one is stray_work. */
#define HK_STRAY_TAILS_FORGIVEN 2

static void hk_time(const hk_program *p, hk_state *st, const hk_opts *o)
{
    struct timespec tp;
    clock_gettime(CLOCK_MONOTONIC, &tp);
    hk_refbufs rb;
    memset(rb.dev, 0, sizeof rb.dev);
    memset(rb.base, 0, sizeof rb.base);
    HK_CHECK(cudaMalloc((void **)&rb.first, sizeof *rb.first));
    HK_CHECK(cudaMemset(rb.first, 0xFF, sizeof *rb.first));
    /* the reference kernel runs on these: with the guard zones the candidate's buffers
     * have, so an original that reads a little outside its buffers (Rodinia SRAD's halo
     * rows at index - cols) runs here as it did in the baseline's own runs */
    size_t rb_guard = hk_guard_bytes();
    for (int i = 0; i < p->n_args; i++)
        if (p->args[i].kind != HK_ARG_SCALAR) {
            HK_CHECK(cudaMalloc((void **)&rb.base[i], st->buf[i].bytes + 2 * rb_guard ? st->buf[i].bytes + 2 * rb_guard : 1));
            HK_CHECK(cudaMemset(rb.base[i], HK_CANARY, st->buf[i].bytes + 2 * rb_guard));
            rb.dev[i] = rb.base[i] + rb_guard;
        }
    uint64_t seq = (uint64_t)o->seed ^ 0xC0FFEE1234567ull;
    long long first = (long long)(hk_mix(&seq) >> 2);
    /* __constant__ inputs stay for the whole loop (the candidate's and the reference's) */
    hk_fill_constants(p, st, first, o->dist);
    hk_fresh_inputs(p, st, first, o->dist, true);
    HK_CHECK(cudaDeviceSynchronize());
    hk_phase.prepare = hk_ms_since(&tp);
    bool exclusive = hk_gpu_exclusive_begin();
    for (int w = 0; w < o->warmup; w++)
        hk_launch_checked(p, st);
    size_t l2 = (size_t)hk_device_attr(cudaDevAttrL2CacheSize);
    void *flush = NULL;
    size_t flush_bytes = 2 * l2;
    bool flushed = flush_bytes > 0 && cudaMalloc(&flush, flush_bytes) == cudaSuccess;
    if (!flushed)
        (void)cudaGetLastError(); /* clear the failed allocation: the result says unflushed */
    cudaEvent_t start, stop;
    HK_CHECK(cudaEventCreate(&start));
    HK_CHECK(cudaEventCreate(&stop));
    std::vector<double> ms, sorted;
    double spread = 0, max_tail_ms = 0;
    int checked = 0, long_tails = 0;
    long long ls = first;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* Which launches are checked comes from entropy of this process alone, never from the
     * chain the launch seeds come from: a kernel that recovered its launch's seed from its
     * inputs (a double input of uniform(0,1) carries 53 bits of the hash, and the hash and
     * the seed derivation invert) would know every later state of that chain, and with it
     * which launches are checked. */
    uint64_t pick = 0;
    if (getentropy(&pick, sizeof pick) != 0) {
        struct timespec te;
        clock_gettime(CLOCK_REALTIME, &te);
        pick = (uint64_t)te.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 32 ^
               (uint64_t)te.tv_sec;
    }
    for (int r = 0; r < o->max_reps; r++) {
        ls = (long long)(hk_mix(&seq) >> 2);
        (void)hk_mix(&seq); /* the seed chain advances as before */
        bool check = checked < o->checks && (hk_mix(&pick) & 3) == 0;
        hk_fresh_inputs(p, st, ls, o->dist, true);
        /* the image's writable globals as loaded (no copy at all without them), before the
         * flush and outside the events: the launch starts as the checked ones did */
        hk_kmod_restore(&hk_main_kmod);
        hk_smem_scrub(); /* and zeros over every SM's shared memory */
        hk_lmem_scrub(); /* and over all of its local window it could have left */
        if (flushed)
            HK_CHECK(cudaMemsetAsync(flush, r & 0xFF, flush_bytes));
        HK_CHECK(cudaDeviceSynchronize());
        HK_CHECK(cudaEventRecord(start));
        hk_do_launch(p, st);
        HK_CHECK(cudaEventRecord(stop));
        HK_CHECK(cudaEventSynchronize(stop));
        HK_CHECK(cudaGetLastError());
        /* The launch's stream is done; anything the device still runs was started by the
         * kernel and escaped the events. */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        HK_CHECK(cudaDeviceSynchronize());
        double tail = hk_ms_since(&ts);
        float t = 0;
        HK_CHECK(cudaEventElapsedTime(&t, start, stop));
        if (tail > max_tail_ms)
            max_tail_ms = tail;
        /* The tail is host wall-clock time, so a host thread descheduled around the
         * synchronize (an H100 with four episodes compiling beside it: 4 ms after a 0.01 ms
         * launch, an honest 2x candidate rejected) reads as device work. A long tail drops
         * that launch's time when it is below the median of the samples kept (hk_tail_keeps:
         * a slow launch is kept, so a tail never removes one) and the loop goes on; a third
         * one is stray_work. Work that escapes the events thus never lowers the median, and
         * a kernel that leaves work running on every launch still fails. */
        if (tail > 1.0 + 2.0 * t) {
            if (++long_tails > HK_STRAY_TAILS_FORGIVEN)
                hk_fail(HK_EXIT_STRAY, "stray_work",
                        "timed launch %d: the launch took %.4f ms by its events, but the device "
                        "was busy for %.4f ms more (%d timed launches so far with a long tail; "
                        "%d forgiven as host noise, the times of those below the median dropped)",
                        r, t, tail, long_tails, HK_STRAY_TAILS_FORGIVEN);
            if (hk_tail_keeps(ms, t))
                ms.push_back(t);
        } else
            ms.push_back(t);
        if (check) {
            hk_check_timed(p, st, &rb, ls, o->dist, r);
            checked++;
        }
        if (ms.empty())
            continue; /* the only launches so far had long tails: no sample yet */
        sorted = ms;
        std::sort(sorted.begin(), sorted.end());
        double med = hk_quantile(sorted, 0.5);
        spread = med > 0 ? (hk_quantile(sorted, 0.75) - hk_quantile(sorted, 0.25)) / med : 0;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double wall_ms = (double)(now.tv_sec - t0.tv_sec) * 1e3 + (double)(now.tv_nsec - t0.tv_nsec) / 1e6;
        if ((int)ms.size() >= o->min_reps && (spread <= o->target_spread || wall_ms >= o->budget_ms)) {
            if (!check) { /* the last launch is always checked */
                hk_check_timed(p, st, &rb, ls, o->dist, r);
                checked++;
            }
            break;
        }
        if (r + 1 == o->max_reps && !check) {
            hk_check_timed(p, st, &rb, ls, o->dist, r);
            checked++;
        }
    }
    hk_gpu_exclusive_end(exclusive);
    if (ms.empty())
        hk_fail(HK_EXIT_STRAY, "stray_work", "no timed launch returned without the device busy "
                "after it (%d long tails)", long_tails);
    HK_CHECK(cudaEventDestroy(start));
    HK_CHECK(cudaEventDestroy(stop));
    if (flush)
        HK_CHECK(cudaFree(flush));
    for (int i = 0; i < p->n_args; i++)
        if (rb.base[i])
            HK_CHECK(cudaFree(rb.base[i]));
    HK_CHECK(cudaFree(rb.first));
    for (int i = 0; i < p->n_args; i++) {
        bool hit;
        long long where = p->args[i].kind == HK_ARG_SCALAR ? 0 : hk_redzone_check(&st->buf[i], &hit);
        if (p->args[i].kind != HK_ARG_SCALAR && hit)
            hk_fail(HK_EXIT_OUT_OF_BOUNDS, "out_of_bounds",
                    "write outside buffer '%s' during the timing loop: byte offset %lld",
                    p->args[i].name, where);
    }
    hk_phase.loop = hk_ms_since(&t0);
    /* Fresh inputs after the loop, checked against the baseline's file by the server. */
    clock_gettime(CLOCK_MONOTONIC, &tp);
    hk_prepare(p, st, o->check_seed, o->dist);
    hk_check_run(p, st, o->out);
    hk_phase.recheck = hk_ms_since(&tp);
    fprintf(hk_res(), "{\"median_ms\":%.6g,\"p10\":%.6g,\"p90\":%.6g,\"min\":%.6g,\"reps\":%zu,"
           "\"spread\":%.6g,\"flushed_l2\":%s,\"l2_bytes\":%zu,\"check_seed\":%lld,"
           "\"seed\":%lld,\"inputs\":\"fresh per launch\",\"checked_launches\":%d,"
           "\"reference_kernel\":%s,\"max_tail_ms\":%.4f,\"long_tails\":%d,\"globals_restored\":%zu,\"module\":%s,"
           "\"block\":[%lld,%lld,%lld],\"grid\":[%lld,%lld,%lld],\"shmem\":%lld,"
           "\"phase_ms\":{\"init\":%.1f,\"alloc\":%.1f,\"prepare\":%.1f,\"lock\":%.1f,"
           "\"loop\":%.1f,\"recheck\":%.1f}}\n",
           hk_quantile(sorted, 0.5), hk_quantile(sorted, 0.1), hk_quantile(sorted, 0.9),
           sorted[0], sorted.size(), spread, flushed ? "true" : "false", l2, o->check_seed,
           o->seed, checked, hk_ref_kmod.function ? "true" : "false", max_tail_ms, long_tails,
           hk_main_kmod.state ? hk_main_kmod.state->vars.size() : (size_t)0,
           hk_main_kmod.function ? "true" : "false",
           st->block[0], st->block[1], st->block[2], st->grid[0], st->grid[1], st->grid[2],
           st->shmem, hk_phase.init, hk_phase.alloc, hk_phase.prepare, hk_phase.lock,
           hk_phase.loop, hk_phase.recheck);
}

/* Sets *st up for size index size: the spec's counts, scalars and launch dims (with the
 * --block and --shmem-scale overrides), checked; then every buffer allocated with its guard
 * zones. hk_free_size undoes the allocations. */
static void hk_setup_size(const hk_program *p, hk_state *st, const hk_opts *o, int size)
{
    memset(st, 0, sizeof *st);
    st->size_index = size;
    st->block_set = o->block_set;
    memcpy(st->block, o->block, sizeof st->block);
    st->sm_count = hk_device_attr(cudaDevAttrMultiProcessorCount);
    st->shmem = 0;
    p->setup(st);
    for (int i = 0; i < p->n_args && i < 64; i++) /* scalars: the shadow takes doubles */
        st->promoted[i] = (o->promote >> i & 1) && p->args[i].dtype == HK_DT_F32;
    if (o->shmem_scale > 1)
        st->shmem *= o->shmem_scale;
    for (int d = 0; d < 3; d++)
        if (st->grid[d] < 1 || st->block[d] < 1 || (d > 0 && st->grid[d] > 65535) || st->grid[d] > INT32_MAX)
            hk_fail(HK_EXIT_USAGE, "launch", "bad launch: grid (%lld,%lld,%lld) block (%lld,%lld,%lld)",
                    st->grid[0], st->grid[1], st->grid[2], st->block[0], st->block[1], st->block[2]);
    if (st->block[0] * st->block[1] * st->block[2] > 1024 || st->shmem < 0)
        hk_fail(HK_EXIT_USAGE, "launch", "bad launch: block (%lld,%lld,%lld) shmem %lld",
                st->block[0], st->block[1], st->block[2], st->shmem);
    for (int i = 0; i < p->n_args; i++) {
        st->args[i].index = i;
        if (p->args[i].kind == HK_ARG_SCALAR)
            continue;
        hk_buffer *b = &st->buf[i];
        b->name = p->args[i].name;
        b->kind = p->args[i].kind;
        b->dtype = st->promoted[i] ? HK_DT_F64 : p->args[i].dtype;
        b->count = st->count[i];
        hk_buffer_alloc(b);
        st->args[i].is_ptr = 1;
        st->args[i].ptr = b->dev;
        st->args[i].elem = hk_dtype_size(b->dtype);
    }
}

static void hk_free_size(const hk_program *p, hk_state *st)
{
    for (int i = 0; i < p->n_args; i++) {
        hk_buffer *b = &st->buf[i];
        if (p->args[i].kind == HK_ARG_SCALAR || !b->base)
            continue;
        hk_tool_unregister(b);
        HK_CHECK(cudaFree(b->base));
        free(b->host);
        b->base = NULL;
        b->host = NULL;
        b->dev = NULL;
    }
}

/* Stale-state priming (--prime-sizes, the server passes it for candidates): before the size
 * this process checks is set up, one launch at each listed size on inputs of their own
 * (seeds drawn from seed, which no combination uses), device synchronized, guard zones
 * checked, buffers freed. Its outputs are not checked (that size's own process does that);
 * its point is what it leaves behind in memory the kernel owns (__device__ scratch,
 * counters, a cache): a kernel whose answer at this size depends on what an earlier launch
 * left there then fails this size's checks. The module loader zeroes __device__ variables,
 * so without this a scratch array read past what the launch wrote reads zeros, and
 * compute-sanitizer's initcheck counts those bytes as initialized. Stale state from a launch
 * of the same size is not provoked: that launch writes the same slots. */
static void hk_prime(const hk_program *p, hk_state *st, const hk_opts *o, long long seed, int dist)
{
    const std::vector<int> &sizes = hk_prime_list();
    uint64_t s = (uint64_t)seed ^ 0x9121AE0F57A1Eull;
    for (size_t k = 0; k < sizes.size(); k++) {
        hk_cur_prime = sizes[k];
        hk_setup_size(p, st, o, sizes[k]);
        long long ls = (long long)(hk_mix(&s) >> 2);
        hk_fill_constants(p, st, ls, dist);
        hk_fresh_inputs(p, st, ls, dist, true);
        hk_launch_checked(p, st);
        for (int i = 0; i < p->n_args; i++) {
            bool hit = false;
            long long where = p->args[i].kind == HK_ARG_SCALAR ? 0 : hk_redzone_check(&st->buf[i], &hit);
            if (hit)
                hk_fail(HK_EXIT_OUT_OF_BOUNDS, "out_of_bounds",
                        "write outside buffer '%s' (%zu bytes): byte offset %lld", p->args[i].name,
                        st->buf[i].bytes, where);
        }
        hk_free_size(p, st);
    }
    hk_cur_prime = -1;
}

/* The result line's "launch_state" member (then a comma), for an image: its writable globals
 * (variables, bytes, copies per launch, those not found in the module) and, in run mode
 * without --launch-state check, the first change a launch left (restored before the next). */
static void hk_print_launch_state(void)
{
    const hk_kstate *ks = hk_main_kmod.state;
    if (!ks)
        return;
    fprintf(hk_res(), "\"launch_state\":{\"globals\":%zu,\"bytes\":%zu,\"ranges\":%zu,"
            "\"unrestored\":%zu", ks->vars.size(), ks->bytes, ks->ranges.size(), ks->unrestored);
    if (!hk_state_changed.empty()) {
        fprintf(hk_res(), ",\"changed\":");
        hk_json_string(hk_res(), hk_state_changed.c_str());
    }
    fprintf(hk_res(), "},");
}

static int hk_main(int argc, char **argv, const hk_program *p)
{
    hk_divert_stdout(); /* before any CUDA call: no device printf reaches the results */
    hk_opts o;
    hk_parse_opts(argc, argv, p, &o);
    if (!strcmp(o.mode, "probe")) {
        hk_probe();
        return HK_EXIT_OK;
    }
    struct timespec t_main;
    clock_gettime(CLOCK_MONOTONIC, &t_main);
    hk_init_device();
    if (o.module) {
        hk_kmod_load(&hk_main_kmod, o.module, o.function);
        /* its frame and the stack below it are scrubbed before each launch */
        hk_lmem_bytes = hk_main_kmod.local_bytes;
        hk_lmem_stack_bytes = hk_lmem_stack();
        hk_lmem_on = true;
        if (o.launch_state_check && !hk_lmem_scrub_size(hk_lmem_bytes, hk_lmem_stack_bytes))
            hk_fail(HK_EXIT_LAUNCH_STATE, "launch_state", HK_LAUNCH_FRAME_FMT, /* past 64 KiB */
                    hk_lmem_bytes > hk_lmem_stack_bytes ? hk_lmem_bytes : hk_lmem_stack_bytes,
                    HK_LMEM_MOST);
        hk_kmod_globals(&hk_main_kmod, p);
        const hk_kstate *ks = hk_main_kmod.state;
        if (o.launch_state_check && ks->unrestored) {
            const char *first = "";
            for (size_t i = 0; i < ks->vars.size() && !*first; i++)
                if (!ks->vars[i].resolved && !ks->vars[i].excluded)
                    first = ks->vars[i].g.name;
            hk_fail(HK_EXIT_LAUNCH_STATE, "launch_state", HK_LAUNCH_UNRESTORED_FMT, ks->unrestored,
                    first);
        }
    }
    if (o.ref_module) {
        hk_kmod_load(&hk_ref_kmod, o.ref_module, o.ref_function);
        hk_kmod_globals(&hk_ref_kmod, p);
    }
    if (!strcmp(o.mode, "run"))
        hk_state_compare = o.launch_state_check ? 2 : 1;
    if (o.ref_launch_set) {
        memcpy(hk_ref_launch, o.ref_launch, sizeof hk_ref_launch);
        hk_ref_launch_set = 1;
    }
    memcpy(hk_widen, o.widen, sizeof hk_widen);
    hk_phase.init = hk_ms_since(&t_main);
    static hk_state st;
    if (o.prime_sizes) { /* the first combination's seed and distribution, or --seed's */
        const std::vector<std::pair<long long, int> > &list = hk_combo_list();
        hk_prime(p, &st, &o, list.empty() ? o.seed : list[0].first,
                 list.empty() ? o.dist : list[0].second);
        hk_phase.prime = hk_ms_since(&t_main) - hk_phase.init;
    }
    hk_setup_size(p, &st, &o, o.size);
    hk_phase.alloc = hk_ms_since(&t_main) - hk_phase.init - hk_phase.prime;
    if (!strcmp(o.mode, "run") && o.combos) {
        /* Every combination of this size in one process: the CUDA context, the buffers and
         * the launch setup are paid once; each combination still gets fresh inputs,
         * poisoned outputs, re-armed guard zones and its own checks and file. */
        const std::vector<std::pair<long long, int> > &list = hk_combo_list();
        std::vector<char> path(o.out_dir ? strlen(o.out_dir) + 96 : 1);
        for (size_t k = 0; k < list.size(); k++) {
            hk_cur_seed = list[k].first;
            hk_cur_dist = list[k].second;
            if (o.out_dir) {
                int n = snprintf(path.data(), path.size(), "%s/", o.out_dir);
                snprintf(path.data() + n, path.size() - (size_t)n, HK_RUN_OUT_NAME, o.size,
                         hk_cur_dist, hk_cur_seed);
            }
            struct timespec tc;
            clock_gettime(CLOCK_MONOTONIC, &tc);
            hk_prepare(p, &st, hk_cur_seed, hk_cur_dist);
            hk_phase.fill += hk_ms_since(&tc);
            clock_gettime(CLOCK_MONOTONIC, &tc);
            hk_check_run(p, &st, o.out_dir ? path.data() : NULL);
            hk_phase.check += hk_ms_since(&tc);
        }
        hk_phase.check -= hk_phase.write;
        hk_cur_seed = -1;
        hk_cur_dist = -1;
        fprintf(hk_res(), "{\"ok\":true,\"mode\":\"run\",\"size\":%d,\"combos\":%zu,\"primed\":%zu,",
               o.size, list.size(), hk_prime_list().size());
        hk_print_launch_state();
        fprintf(hk_res(), "\"block\":[%lld,%lld,%lld],\"grid\":[%lld,%lld,%lld],"
               "\"phase_ms\":{\"init\":%.1f,\"prime\":%.1f,\"alloc\":%.1f,\"fill\":%.1f,"
               "\"check\":%.1f,\"write\":%.1f,\"total\":%.1f}}\n",
               st.block[0], st.block[1],
               st.block[2], st.grid[0], st.grid[1], st.grid[2], hk_phase.init, hk_phase.prime,
               hk_phase.alloc, hk_phase.fill, hk_phase.check, hk_phase.write,
               hk_ms_since(&t_main));
    } else if (!strcmp(o.mode, "run")) {
        hk_prepare(p, &st, o.seed, o.dist);
        hk_check_run(p, &st, o.out);
        fprintf(hk_res(), "{\"ok\":true,\"mode\":\"run\",\"size\":%d,\"seed\":%lld,\"dist\":%d,",
               o.size, o.seed, o.dist);
        if (hk_perturb_seed >= 0)
            fprintf(hk_res(), "\"perturb\":{\"seed\":%lld,\"scale\":%.17g,\"plan\":\"%s\",\"elements\":%zu},",
                    hk_perturb_seed, hk_perturb_scale,
                    hk_perturb_kind == HK_PERTURB_SPREAD_PLAN ? "spread" : "ladder", hk_perturbed);
        hk_print_launch_state();
        fprintf(hk_res(), "\"block\":[%lld,%lld,%lld],\"grid\":[%lld,%lld,%lld]}\n",
               st.block[0], st.block[1], st.block[2], st.grid[0],
               st.grid[1], st.grid[2]);
    } else {
        hk_time(p, &st, &o);
    }
    return HK_EXIT_OK;
}

#endif /* HK_HARNESS_LAUNCHER, __CUDACC__ || __HIPCC__ */
#endif /* HK_HARNESS_H */
