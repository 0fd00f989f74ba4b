/* CUDA/HIP source analysis on tree-sitter-cuda@0.20.4: kernels, device functions,
 * launchers, launch sites, parameters, shared memory, tunable constants.
 * One an_doc per open document; it owns the parser, the chunks and the model.
 * An an_doc is used by one thread at a time (the server parses it on the libuv pool and
 * reads its model on the loop in turn, lsp/textsync.c). Positions are (row, byte column) in UTF-8; converting to the
 * client's encoding is the documents module's job. A span covers [start, end) bytes.
 * Names are matched by spelling only (no scopes, no overloads, no preprocessing beyond
 * `#define NAME __global__`-style macros defined in the same file). */
#ifndef HK_ANALYSIS_ANALYSIS_H
#define HK_ANALYSIS_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t start_byte, end_byte;
    uint32_t start_row, start_col;  /* col: bytes from line start */
    uint32_t end_row, end_col;
} an_span;

enum an_func_kind {
    AN_KERNEL,      /* __global__ */
    AN_DEVICE_FUNC, /* __device__ or __host__ __device__ (not __global__) */
    AN_LAUNCHER,    /* host function containing at least one launch site; host functions
                     * without one are not in the model */
};

typedef struct {
    char *name;       /* may be "" for unnamed parameters */
    char *type;       /* full declared type text without the name, whitespace collapsed,
                       * e.g. "const float *__restrict__" */
    char *elem_type;  /* base type without qualifiers/pointers, e.g. "float" */
    int pointer_depth;/* 0 for values; each `*` and each `[]` counts one */
    bool is_const;    /* const applies to the pointee (or to the value) */
    bool is_restrict;
    an_span span;
} an_param;

enum an_launch_form {
    AN_LAUNCH_CHEVRON,   /* k<<<grid, block, shmem, stream>>>(args) */
    AN_LAUNCH_HIP,       /* hipLaunchKernelGGL(k, grid, block, shmem, stream, args...) */
    AN_LAUNCH_CUDA_API,  /* cudaLaunchKernel((void*)k, grid, block, args, shmem, stream) */
};

typedef struct {
    enum an_launch_form form;
    char *kernel;     /* callee name as written (template args stripped), e.g. "ns::k";
                       * HIP_KERNEL_NAME(...), casts and & are unwrapped */
    char *template_args; /* the callee's template arguments as written, e.g. "<256, float>",
                          * or NULL */
    char *grid;       /* expression text as written, e.g. "dim3(g)"; NULL when absent */
    char *block;
    char *shmem;
    char *stream;
    char **args;      /* argument expression texts; for AN_LAUNCH_CUDA_API the one `void **`
                       * argument array expression */
    size_t n_args;
    long caller;      /* index into an_model.funcs of the enclosing function, -1 at file scope */
    an_span span;     /* the whole launch expression */
} an_launch;

typedef struct {
    char *name;
    char *type;       /* element type */
    char *size_expr;  /* array dimensions text, e.g. "[TILE][TILE+1]"; "" for extern [] */
    bool is_extern;   /* extern __shared__ (dynamic) */
    an_span span;     /* the whole declaration statement */
} an_shared;

/* Tunables: `#define N <integer expression>`, `constexpr` integer constants (any scope,
 * also `static constexpr` members), `const` integer constants at file/namespace scope,
 * and integer template parameters of kernels, device functions and launchers.
 * An integer expression is built from integer literals, identifiers, sizeof and the
 * arithmetic/bit operators, with at least one literal or identifier. A tunable here is a
 * named constant, not yet a tuning knob: whether changing it keeps what the kernel computes
 * (a block size, a tile) or not (a radius, a problem size) is the engine's knob_prove. */
enum an_tunable_kind { AN_TUNE_DEFINE, AN_TUNE_CONSTEXPR, AN_TUNE_TEMPLATE };

typedef struct {
    enum an_tunable_kind kind;
    char *name;
    char *value;      /* value text for #define/constexpr (comments dropped, whitespace
                       * collapsed); default for template params, or NULL */
    long owner;       /* AN_TUNE_TEMPLATE: index of the function in an_model.funcs;
                       * AN_TUNE_CONSTEXPR declared inside a function: that function;
                       * else -1 */
    /* in_launch: the name appears in a grid/block/shmem expression of a launch, or in
     * __launch_bounds__, directly or through a local variable initialised from it
     * (`dim3 block(BLOCK)`), or through another tunable whose value mentions it.
     * in_array: the same for array sizes (shared-memory tiles, local arrays, array
     * parameters). Owned tunables only count uses inside their owner. */
    bool in_launch;
    bool in_array;
    an_span span;     /* the whole definition (#define line without its newline,
                       * declarator, template parameter) */
    an_span value_span; /* the value; empty (start == end) at the end of span when absent */
} an_tunable;

typedef struct {
    enum an_func_kind kind;
    char *name;
    char *signature;       /* one line, whitespace collapsed, without the body */
    char *template_params; /* e.g. "template <int BLOCK, typename T>" or NULL */
    char *launch_bounds;   /* argument text of __launch_bounds__(...) or NULL */
    an_param *params;
    size_t n_params;
    an_shared *shared;     /* __shared__ declarations inside the body */
    size_t n_shared;
    size_t *launches;      /* indices into an_model.launches made from this function */
    size_t n_launches;
    bool recovered;        /* found inside an ERROR node (broken code): params and body
                            * are best effort */
    an_span span;          /* whole definition, template prefix included */
    an_span name_span;
    an_span body_span;     /* the compound statement (empty when none was found) */
    uint64_t gen;          /* extraction id, unique in the process and never 0: a function
                            * that an incremental rebuild reused keeps it, and then only its
                            * byte offsets and rows moved (same text, same columns); a
                            * re-extracted one gets a new, larger id. Lets callers cache what
                            * they derive from a function across edits. */
} an_function;

typedef struct {
    an_function *funcs;   /* in source order */
    size_t n_funcs;
    an_launch *launches;
    size_t n_launches;
    an_tunable *tunables;
    size_t n_tunables;
    bool has_errors;      /* the tree has ERROR/MISSING nodes */
} an_model;

typedef struct an_doc an_doc;

/* Checks the grammar's ABI against the runtime. HK_OK, or HK_EUNSUPPORTED with a
 * human sentence in *why (static string). Call once at start, before any other an_
 * call: it also fills the module's symbol tables (later calls only read them). */
int an_grammar_check(const char **why);

/* New empty document analysis in *out. HK_OK, HK_ENOMEM, or HK_EUNSUPPORTED when the
 * grammar cannot be loaded. */
int an_doc_new(an_doc **out);
/* NULL is a no-op. */
void an_doc_free(an_doc *d);

/* Records an edit before the next an_doc_parse, so the parse redoes only the chunks it
 * touched. Byte offsets and (row, byte column) points, as in TSInputEdit, in the order the
 * edits were applied to the text. HK_OK (also when nothing was parsed yet: the next
 * parse is then a full one); HK_EINVAL when an end lies before the start. */
int an_doc_edit(an_doc *d, uint32_t start_byte, uint32_t old_end_byte, uint32_t new_end_byte,
                uint32_t start_row, uint32_t start_col, uint32_t old_end_row, uint32_t old_end_col,
                uint32_t new_end_row, uint32_t new_end_col);

/* (Re)parses text (len bytes, need not be NUL-terminated, may hold NUL bytes) and
 * rebuilds the model. The text is parsed in chunks of top-level items (1-4 KB; where
 * they split depends on the text alone), each its own tree-sitter parse, a large text's
 * on several threads. Incremental when edits were recorded since the last parse: only
 * the chunks around the edits are parsed again, and only top-level items that changed
 * are re-extracted. Without recorded edits the text is parsed from scratch. The model is
 * a function of the text: the same as a fresh document's, whatever edits led there,
 * except where a chunk too large to split (over 64 KB between two top-level boundaries,
 * e.g. a file-long namespace) was reparsed incrementally and holds syntax errors, where
 * tree-sitter's error recovery may differ. HK_OK; HK_ETOOBIG when len >
 * AN_TEXT_MAX_BYTES, HK_ETIMEDOUT (see an_doc_set_parse_timeout), HK_EPARSE (parser
 * refused) -- these keep the previous model and the recorded edits;
 * HK_ENOMEM: the model is empty until the next successful parse. */
#define AN_TEXT_MAX_BYTES ((size_t)64 << 20)
int an_doc_parse(an_doc *d, const char *text, size_t len);

/* Time limit of one an_doc_parse in microseconds (0: none; default AN_PARSE_TIMEOUT_US).
 * A parse over it returns HK_ETIMEDOUT and keeps the previous model; recorded edits stay
 * pending, so the next parse is still incremental. Broken code makes tree-sitter's
 * error recovery slow, and a pool thread must not spin on it. The server parses on the
 * libuv pool (never on the loop), so the limit is wall time a loaded machine may stretch:
 * a 742 KB file took over 2 s under AddressSanitizer on the 2-core CI machine and was
 * left without a model; 10 s still stops a pathological parse. */
#define AN_PARSE_TIMEOUT_US 10000000u
void an_doc_set_parse_timeout(an_doc *d, uint64_t micros);

/* Threads a full parse of a large text may use, the caller's included (default: the
 * machine's cores, at most 4; 0 means 1). The model does not depend on it. */
void an_doc_set_threads(an_doc *d, unsigned threads);

/* Testing: with chunking off the text is parsed whole, as one chunk, and every parse
 * is a full one (what the chunked model must equal on error-free code). On by default. */
void an_doc_set_chunked(an_doc *d, bool chunked);

/* Testing and benchmarking: with reuse off every parse is a full one, from scratch.
 * On by default. */
void an_doc_set_reuse(an_doc *d, bool reuse);

/* What the last successful an_doc_parse did (value type). */
typedef struct {
    bool incremental;       /* only the chunks around recorded edits were parsed */
    size_t items;           /* top-level items in the model */
    size_t items_reused;    /* of which reused without re-extraction */
    size_t chunks;          /* chunks the text is in now */
    size_t chunks_parsed;   /* tree-sitter parses run (a piece joined with the next after
                             * errors counts twice) */
    uint64_t bytes_parsed;  /* text those parses covered */
    size_t trees_kept;      /* chunks too large to split, whose trees are kept */
    size_t trees_reused;    /* parses that started from a kept tree (tree-sitter's
                             * incremental reparse): an unsplittable chunk's, or one the
                             * edit before made */
    uint64_t parse_ns;      /* splitting and tree-sitter parsing (wall clock); in a
                             * full parse also the extraction, done by the threads that
                             * parse */
    uint64_t model_ns;      /* model rebuild (extraction + assembly), trees freed */
} an_doc_stats;
void an_doc_get_stats(const an_doc *d, an_doc_stats *out);

/* Identity of the current model: changes at every successful an_doc_parse and when a
 * failed one (HK_ENOMEM) empties the model; unique in the process, never 0; 0 before
 * the first parse. Equal ids mean the same model. */
uint64_t an_doc_model_id(const an_doc *d);

/* One pointer a caller may attach to the document (e.g. a cache of what it renders
 * from the model), owned by the document from then on: an_doc_free, or a later
 * an_doc_set_user with a different pointer, calls free_fn(p) (free_fn may be NULL:
 * nothing is freed). On the thread that owns the document at the time. */
void an_doc_set_user(an_doc *d, void *p, void (*free_fn)(void *p));
/* The attached pointer (borrowed) or NULL. */
void *an_doc_user(const an_doc *d);

/* Rows of the text of the last successful parse (its '\n' bytes: a position's row is the
 * count of them before it), 0 before the first. With its line count, tells a caller
 * whether the text has lone '\r' line ends (lines other than rows). */
uint32_t an_doc_rows(const an_doc *d);

/* Where the chunks start (byte offsets, ascending; the first is 0): up to cap of them
 * into starts; returns how many there are (0 before the first parse). Tests. */
size_t an_doc_chunks(const an_doc *d, uint32_t *starts, size_t cap);

/* The tree of text parsed whole, in one piece, as an S-expression (new string,
 * hk_free), or NULL on ENOMEM, when the parser refuses or len > AN_TEXT_MAX_BYTES.
 * Debugging and tests; any thread. */
char *an_tree_string(const char *text, size_t len);

/* The current model (borrowed; valid until the next successful parse or free; a
 * refused parse leaves it as it was). Never NULL. Between an_doc_edit and the next
 * parse its spans refer to the text before the edits. */
const an_model *an_doc_model(const an_doc *d);

/* Lookups below are O(n) at worst and never fail; m must not be NULL. */
/* Index of the innermost function whose span contains byte offset, or -1. */
long an_model_function_at(const an_model *m, uint32_t byte);
/* Index of the launch whose span contains byte offset, or -1. */
long an_model_launch_at(const an_model *m, uint32_t byte);
/* Index of the first kernel named name (template arguments stripped), or -1. A
 * qualified name (as launches may spell it, "ns::k") falls back to its last part. */
long an_model_find_kernel(const an_model *m, const char *name);

/* One-shot analysis of a whole text into a new model in *out (an_model_free), without
 * a parse time limit. HK_OK, HK_ENOMEM, HK_ETOOBIG, HK_EPARSE. Any thread once
 * an_grammar_check has run (no state is shared besides read-only tables). */
int an_analyze(const char *text, size_t len, an_model **out);
/* Frees a model from an_analyze (never one from an_doc_model). NULL is a no-op. */
void an_model_free(an_model *m);

#endif
