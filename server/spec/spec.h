/* Bench specs: how to run a kernel for measurement (docs/bench-spec.md). Parses and
 * validates the JSON file (harness form or command form) into a spec, with every
 * problem reported as a diagnostic naming the field (a JSON path such as
 * "args[2].count") and its line; writes harness-form skeletons from the analysis of a
 * kernel. Pure functions on values, any thread. */
#ifndef HK_ENGINE_SPEC_H
#define HK_ENGINE_SPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "analysis/analysis.h"
#include "spec/expr.h"
#include "hk_harness.h"

#define SPEC_MAX_BYTES (1u << 20) /* largest spec file accepted */
#define SPEC_MAX_SIZES 64
#define SPEC_MAX_SIZE_VARS 1024 /* size variables per set: a cap on input, not a table size */
#define SPEC_MAX_SEEDS 1000
#define SPEC_MAX_DISTS 32
#define SPEC_MAX_DIAGS 200
#define SPEC_MIN_SEEDS 5
#define SPEC_MIN_SIZES 2
#define SPEC_MIN_DISTS 2
#define SPEC_MAX_CONSTANTS HK_MAX_CONSTS /* __constant__ inputs of one spec */
#define SPEC_CONSTANT_BYTES 65536        /* the device's __constant__ bank, all of them together */

enum spec_form { SPEC_FORM_HARNESS, SPEC_FORM_COMMAND };

typedef struct {
    double rtol, atol, l2; /* element passes when |c-b| <= atol + rtol*|b|; and ||c-b||/||b|| <= l2 */
} spec_tolerance;

typedef struct {
    char *name;               /* from the spec, or "argN" */
    enum hk_arg_kind kind;
    int dtype;                /* enum hk_dtype */
    expr *count;              /* buffers: element count; NULL for scalars */
    expr *value;              /* scalars: value; NULL for buffers */
    hk_dist *dists;           /* inputs/inouts: n_dists entries, one per spec distribution index */
    size_t n_dists;           /* 0 for scalars and outputs */
    expr *dist_lo, *dist_hi;  /* a "dist" string's bounds written as expressions of the size
                               * variables ("int(0, n - 1)"), evaluated per size set by the
                               * harness for every distribution index; NULL where a bound is a
                               * number. dists[] then hold the first size set's values */
    spec_tolerance tol;       /* outputs/inouts: defaults by dtype, then spec, then arg overrides */
} spec_arg;

typedef struct spec {
    enum spec_form form;
    char *name;               /* optional display name; NULL when absent */
    char *kernel;
    char *source;             /* as written in the spec */
    char *source_path;        /* resolved against the spec's directory */
    char *dir;                /* the spec's directory, absolute when the spec file exists
                               * ("." when parsed from text) */
    char **template_args;     /* e.g. {"256", "float"} for kernel<256, float> */
    size_t n_template_args;
    char **compile_flags;     /* extra nvcc flags, e.g. "-std=c++17"; a relative -I is made
                               * absolute against the spec's directory */
    size_t n_compile_flags;
    char **include_dirs;      /* harness form: the spec's and the source's directories,
                               * absolute, passed as -I (the candidate is compiled from a
                               * copy elsewhere, so its "local.h" must be found there),
                               * then the spec's "include_dirs", anchored likewise */
    size_t n_include_dirs;
    char **inferred;          /* "inferred": what spec inference guessed, and from where
                               * (for reports and hovers); NULL when absent */
    size_t n_inferred;
    bool exact_sizes;         /* "exact_sizes": the kernel has no bounds check, so no ragged
                               * size set is wanted (no warning about one) */

    /* harness form */
    char **size_names;        /* variables every size set defines */
    size_t n_size_names;
    long long *size_values;   /* [n_sizes][n_size_names] */
    size_t n_sizes;
    spec_arg *args;           /* in kernel parameter order */
    size_t n_args;
    /* "constants": file-scope __constant__ variables the kernel reads, filled like inputs
     * (kind HK_ARG_INPUT; name as declared, count, dists) and copied into the symbol of
     * every kernel image that runs, baseline and candidate alike */
    spec_arg *consts;
    size_t n_consts;
    expr *grid[3];            /* missing dims are the literal 1 */
    expr *block[3];
    expr *shmem;              /* NULL: 0 */
    expr *flops, *bytes;      /* NULL when absent */
    long long *seeds;
    size_t n_seeds;
    hk_dist *dists;           /* the spec's distributions (for float inputs) */
    char **dist_texts;        /* as written, for reports */
    size_t n_dists;
    /* The last n_referee_dists entries of dists (and of every argument's dists) were added
     * by the referee, not written in the spec: a real-valued distribution for float inputs
     * whose every distribution is integer-valued (oracle_add_precision_dist), then the
     * exact-arithmetic grid() distribution for real-valued float inputs
     * (oracle_add_grid_dist; its entry's kind is HK_DIST_GRID). On those the fp64 rule
     * alone judges float outputs (docs/accuracy.md); 0 for a spec as written, at most 2. */
    size_t n_referee_dists;

    /* command form */
    char *build, *run, *workdir, *pass_regex, *fail_regex;
    double timeout_s;
    char *cupti_injection;    /* CUPTI injection library; filled by the engine (spec_set_cupti) */
} spec;

enum spec_severity { SPEC_ERROR, SPEC_WARNING };

typedef struct {
    enum spec_severity severity;
    char *path;               /* JSON path of the field, e.g. "args[2].count"; "" for the file */
    int line;                 /* 1-based line in the spec text; 0 when unknown */
    char *message;
} spec_diag;

typedef struct {
    spec_diag *items;
    size_t n;
    size_t n_errors;
} spec_diags;

/* Parses and validates len bytes of spec JSON. spec_path (may be NULL) names the file in
 * messages and anchors relative paths (source, workdir). Appends every problem to diags
 * (caller frees with spec_diags_free; diags must start zeroed). On success (no errors;
 * warnings allowed) *out is a new spec (spec_free). Returns HK_OK, HK_EPARSE when any
 * error was found (*out NULL), HK_ETOOBIG over SPEC_MAX_BYTES, HK_ENOMEM. */
int spec_parse(const char *text, size_t len, const char *spec_path, spec **out, spec_diags *diags);

/* Reads the file at path and spec_parse()s it. HK_ENOENT/HK_EIO when unreadable (with a
 * diagnostic), else as spec_parse. */
int spec_load(const char *path, spec **out, spec_diags *diags);

void spec_free(spec *s);
void spec_diags_free(spec_diags *d);

/* New string "FILE:LINE: error: PATH: MESSAGE" (hk_free), or NULL on ENOMEM. file may
 * be NULL. */
char *spec_diag_format(const spec_diag *d, const char *file);

/* Line (1-based) of the value at a JSON path ("args[2].count", "sizes[1]", "" for the
 * root) in JSON text. When the path does not exist, the line of the deepest part that
 * does. HK_OK, or HK_EPARSE for a malformed path. Never fails on odd text. */
int spec_locate(const char *text, size_t len, const char *path, int *line);

/* Default tolerance for a dtype: fp32 rtol 1e-4, atol 1e-5, l2 1e-5; fp64 tighter;
 * fp16/bf16 looser; integers exact (all zero). */
spec_tolerance spec_default_tolerance(int dtype);

/* Whether distribution d of s was added by the referee (spec.n_referee_dists). */
bool spec_dist_is_referee(const spec *s, size_t d);

/* Whether distribution d of s is the referee's grid() distribution (oracle_add_grid_dist). */
bool spec_dist_is_grid(const spec *s, size_t d);

/* Parses a dtype name ("float", "fp32", "half", "int", "uint8_t", ...). HK_OK or HK_EINVAL. */
int spec_dtype_parse(const char *name, int *dtype);

/* Parses a distribution: "uniform(lo,hi)", "normal(mu,sigma)", "int(lo,hi)",
 * "ones_sparse(p)", "zeros", "grid(lo,hi)" (hk_harness.h). HK_OK, or HK_EINVAL with a
 * reason in err. */
int spec_dist_parse(const char *text, hk_dist *out, char *err, size_t errlen);

/* The variables of size set k (names borrowed from s) plus block_x/y/z and sm_count,
 * for expr_eval. vars must hold s->n_size_names + 4 entries; returns how many were set.
 * block: the three block dims (NULL: evaluated from the spec); sm_count: the device's. */
size_t spec_size_vars(const spec *s, size_t k, const long long *block, long long sm_count,
                      expr_var *vars);

/* Evaluates a count/value/flops/bytes expression for size set k (block from the spec,
 * sm_count as given). HK_OK, HK_EINVAL (reason in err). */
int spec_eval(const spec *s, const expr *e, size_t k, long long sm_count, expr_value *out,
              char *err, size_t errlen);

/* Physical floor of one launch at size set k: max(bytes / peak_bytes_per_s,
 * flops / peak_flops) in milliseconds; a peak <= 0 or an absent formula is skipped.
 * *has_floor false when neither formula applies. HK_OK or HK_EINVAL. */
int spec_floor_ms(const spec *s, size_t k, double peak_bytes_per_s, double peak_flops,
                  double *floor_ms, bool *has_floor);

/* Sets the CUPTI injection library path of a command-form spec. HK_OK, HK_ENOMEM. */
int spec_set_cupti(spec *s, const char *path);

/* Writes a harness-form skeleton (a new JSON object, *out, "new reference") for the
 * kernel at index kernel of model m, analysed from text (len bytes; used to resolve
 * launcher locals such as `dim3 grid(...)` and to see which pointers the body reads):
 * args from the signature (const pointer -> input; other pointers -> output, or inout
 * when the body reads them, or an inout accumulator starting at zeros when they are
 * the target of an atomic), scalars as values over size variables taken from the
 * launch site's arguments and grid, the launch's grid and block rewritten in spec terms
 * (ceil_div(n, block_x) for the usual (n + 255) / 256), default sizes (one not a
 * multiple of the block), seeds, distributions. source is written as "source".
 * The result always passes spec_parse (when the launch site's grid does not fit the
 * guessed sizes, a plain 1D launch is used). HK_OK, HK_EINVAL (index is not a kernel),
 * HK_EUNSUPPORTED (the kernel has no parameters, more than HK_MAX_ARGS, or no writable
 * pointer: nothing a harness could compare), HK_ENOMEM. */
int spec_skeleton(const an_model *m, long kernel, const char *text, size_t len, const char *source,
                  json_t **out);

#endif
