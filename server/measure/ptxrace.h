/* Shared-memory races read in a kernel image's PTX, without running it (the referee's `race`
 * image check, docs/referee.md "A candidate reads no other thread's unsynchronised word").
 *
 * A candidate can tell compute-sanitizer's racecheck apart from a plain run by relative speed
 * alone (tests/gpu/cheats/spin_sanitizer_evade.cu), and take a racy path only when it is not
 * watched; but the racy path is in the image whether it is taken or not. This scan finds, in
 * each function of a PTX text, a shared-memory load of a word that another thread of the
 * block stored on a path with no barrier in between:
 *
 *   st.shared [B + a*tid.x + c1] ... (no bar.sync / barrier / call) ... ld.shared [B + a*tid.x + c2]
 *
 * where B is the same shared symbol or the same block-uniform base, the tid coefficients are
 * the same, and some lane t that executes the load reads bytes that lane t+k (k != 0) wrote,
 * lane t+k being among the threads that execute the store. Registers are evaluated as affine
 * forms in %tid.x/y/z plus one block-uniform unknown; which threads reach an instruction is
 * followed as a set of tid.x values through the branches whose condition compares tid.x with
 * a constant. Anything the evaluation cannot resolve -- a register defined twice (a loop
 * variable), a thread-dependent value it cannot follow, a branch on one, an address from
 * memory -- gives no finding: a false race on an honest kernel would lose a user's result.
 * At a known block shape (ptxrace_scan_shape) blockDim is a constant and the loops whose
 * trips the constants decide are judged unrolled, so a tree loop's variable is one too.
 * Pure functions, any thread. */
#ifndef HK_MEASURE_PTXRACE_H
#define HK_MEASURE_PTXRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The first finding of a PTX text (in file order of the load), and what the scan read. Value
 * struct. */
typedef struct {
    bool found;
    bool barrier;         /* the finding is a barrier that data decides (docs/referee.md): then
                           * st_* is the barrier, ld_* the statement whose value decides it (a
                           * load, an atomic, a clock), k is 0 */
    long k;               /* lane t reads what lane t+k stored (tid.x units) */
    long ld_line, st_line; /* PTX lines (1-based) of the load and of the store */
    long ld_src, st_src;   /* their source lines from the PTX's .loc (0: none) */
    char src_file[96];     /* the load's source file (basename), from .file; "" when none */
    char func[96];         /* the function (as named in the PTX, cut to fit) */
    char ld_text[160], st_text[160]; /* the two PTX lines, blanks trimmed, cut to fit */
    /* what was read (the coverage the bench table records) */
    long functions;        /* function bodies scanned */
    long skipped;          /* of them, not judged (an indirect branch, or past a size cap) */
    long shared_loads, shared_stores;     /* shared-memory loads and stores seen */
    long resolved_loads, resolved_stores; /* of them, at an address the evaluation resolved */
    long data_loads;       /* integer loads of module data nothing writes, read as its
                            * initializer (a launch with module_data) */
} ptxrace_result;

/* Scan the PTX text (len bytes) for the first race as described above. Pure. HK_OK,
 * HK_ENOMEM. */
int ptxrace_scan(const char *text, size_t len, ptxrace_result *out);

/* The same for the PTX file at path, read one function body at a time (the data of a huge
 * initialised array lies outside every body and is not kept). HK_OK, HK_ENOENT, HK_EIO,
 * HK_ENOMEM. */
int ptxrace_file(const char *path, ptxrace_result *out);

/* The same judged at one block shape the kernel is launched with (shape[0..2]: blockDim.x, y,
 * z; NULL or a dim out of 1..1024: not known, as above): %ntid.x/y/z read as those constants,
 * tid.x stays below shape[0], integer arithmetic of constants is folded and a branch whose
 * predicate is then a constant goes one way; and each innermost loop holding a shared load
 * whose trips the constants decide (at most PR_UNROLL) is judged unrolled, its registers
 * renamed per trip, so `v[t + s]` in the trip after `v[t]` was stored is paired with the real
 * s of each trip (a tree loop that skips its barrier). A loop whose trips are not decided
 * gives nothing more. Pure. */
int ptxrace_scan_shape(const char *text, size_t len, const long *shape, ptxrace_result *out);
int ptxrace_file_shape(const char *path, const long *shape, ptxrace_result *out);

/* The same with the shape applied to the kernel launched alone: the .entry named entry (as in
 * the PTX); every other function (another entry, a device function) is judged at no shape.
 * entry NULL: the shape applies to every .entry. */
int ptxrace_scan_entry_shape(const char *text, size_t len, const long *shape, const char *entry,
                             ptxrace_result *out);
int ptxrace_file_entry_shape(const char *path, const long *shape, const char *entry,
                             ptxrace_result *out);

/* One launch of the kernel: its block shape and the values of its scalar parameters (the
 * spec's args at a size set). Value struct. */
enum { PTXRACE_ARGS = 32, PTXRACE_FILLED = 16 };
typedef struct {
    long shape[3];             /* blockDim; a dim out of 1..1024: not known */
    int nargs;                 /* parameters described, in the kernel's order (0: none) */
    bool known[PTXRACE_ARGS];  /* parameter k is an integer scalar whose value is arg[k] */
    int64_t arg[PTXRACE_ARGS];
    /* the launcher restores the image's writable globals before every launch and writes no
     * other variable of it than the nfilled named in filled (the spec's constants, by the
     * symbol hk_constant_symbol gives): then a module variable that no statement can write
     * reads as its PTX initializer (ptxdata.h). false: module data is not known. */
    bool module_data;
    int nfilled;
    char filled[PTXRACE_FILLED][128];
} ptxrace_launch;

/* The same judged at a launch (NULL: no shape, no argument): as ptxrace_scan_entry_shape at
 * its shape, and in the launched entry an `ld.param` of a parameter whose value is known reads
 * as that number (its type's width), so a branch or a loop bound on a scalar argument is
 * decided as one on blockDim is; with module_data, in every function an integer `ld.global` /
 * `ld.const` of a module variable nothing writes reads as its initializer (ptxdata.h), and so
 * does one whose only writers are plain stores of the launched entry none of which can run at
 * this launch (the entry judged first at the launch: ptxdata_stored, docs/referee.md "Stores
 * no launch runs"), or, where those that can run write the whole word with a few constants,
 * holds its initializer or one of them, judged at each when every such store is behind a branch
 * on data ("Stores of a few values"); where they write one constant and one of them runs in
 * every block's tid.x = 0 on every way to a barrier of the whole block that every thread
 * executes once, as it does each barrier before it (REF10: any such barrier, not only the
 * first), a load past that barrier in the entry reads that constant alone ("A store every block
 * makes before its barrier"). An int converted from an .f32 whose value classes (IEEE
 * operations followed from immediates) are within +0, -0 and NaN is 0 at any launch ("A float
 * of a few classes"). A barrier of the whole block (bar.sync / barrier.sync with no count,
 * bar.red) that a sensed value decides -- guarded by it, or control-dependent on a branch on
 * it over the edges the launch leaves; sensed: a clock / timer / %smid-like register, a loop
 * polling memory (an exit on a volatile / strong load or an atomic of the loop), a load of
 * memory a sensed value was stored to, a load of a word a thread of another tid.x stores in the
 * same barrier interval (one block-uniform address: a raced word), a device function's sensed
 * return value or store (judged before its caller), and what is computed from those -- and
 * (REF12) a warp barrier (bar.warp.sync) with shared stores before it and shared loads after
 * it, decided the same way, are findings too
 * (found and barrier set, st_* the barrier, ld_* what decides it; docs/referee.md "A barrier
 * that data decides"), when no pair read is found in the text. Pure. */
int ptxrace_scan_launch(const char *text, size_t len, const ptxrace_launch *l, const char *entry,
                        ptxrace_result *out);
int ptxrace_file_launch(const char *path, const ptxrace_launch *l, const char *entry,
                        ptxrace_result *out);

#endif
