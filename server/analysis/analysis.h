/* CUDA/HIP source analysis on tree-sitter-cuda@0.20.4: kernels, device functions,
 * launchers, launch sites, parameters, shared memory, tunable constants.
 * One an_doc per open document; it owns the parser, the tree and the model.
 * Loop thread only. Positions are (row, byte column) in UTF-8; converting to the
 * client's encoding is the documents module's job. */
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
    AN_DEVICE_FUNC, /* __device__ (not __global__) */
    AN_LAUNCHER,    /* host function containing at least one launch site */
};

typedef struct {
    char *name;       /* may be "" for unnamed parameters */
    char *type;       /* full declared type text, e.g. "const float *__restrict__" */
    char *elem_type;  /* base type without qualifiers/pointers, e.g. "float" */
    int pointer_depth;/* 0 for values */
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
    char *kernel;     /* callee name as written (template args stripped) */
    char *grid;       /* expression text; NULL when absent */
    char *block;
    char *shmem;
    char *stream;
    char **args;      /* argument expression texts */
    size_t n_args;
    long caller;      /* index into an_model.funcs of the enclosing function, -1 at file scope */
    an_span span;     /* the whole launch expression */
} an_launch;

typedef struct {
    char *name;
    char *type;       /* element type */
    char *size_expr;  /* array dimensions text, e.g. "[TILE][TILE+1]"; "" for extern [] */
    bool is_extern;   /* extern __shared__ (dynamic) */
    an_span span;
} an_shared;

enum an_tunable_kind { AN_TUNE_DEFINE, AN_TUNE_CONSTEXPR, AN_TUNE_TEMPLATE };

typedef struct {
    enum an_tunable_kind kind;
    char *name;
    char *value;      /* literal text for #define/constexpr; default for template params, or NULL */
    long owner;       /* AN_TUNE_TEMPLATE: index of the function in an_model.funcs; else -1 */
    bool in_launch;   /* used in a launch configuration */
    bool in_array;    /* used in an array size (e.g. a shared-memory tile) */
    an_span span;     /* the definition (value span for #define/constexpr) */
    an_span value_span;
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
    an_span span;          /* whole definition, template prefix included */
    an_span name_span;
    an_span body_span;     /* the compound statement */
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
 * human sentence in *why (static string). Call once at start. */
int an_grammar_check(const char **why);

/* New empty document analysis in *out. HK_OK or HK_ENOMEM. */
int an_doc_new(an_doc **out);
void an_doc_free(an_doc *d);

/* Records an edit before the next an_doc_parse, so the parse is incremental.
 * Byte offsets and (row, byte column) points, as in TSInputEdit. */
int an_doc_edit(an_doc *d, uint32_t start_byte, uint32_t old_end_byte, uint32_t new_end_byte,
                uint32_t start_row, uint32_t start_col, uint32_t old_end_row, uint32_t old_end_col,
                uint32_t new_end_row, uint32_t new_end_col);

/* (Re)parses text (len bytes, need not be NUL-terminated) and rebuilds the model.
 * Incremental when edits were recorded since the last parse. HK_OK, HK_ENOMEM,
 * HK_EPARSE (parser refused; the previous model is kept). */
int an_doc_parse(an_doc *d, const char *text, size_t len);

/* The current model (borrowed; valid until the next parse or free). Never NULL. */
const an_model *an_doc_model(const an_doc *d);

/* Index of the innermost function whose span contains byte offset, or -1. */
long an_model_function_at(const an_model *m, uint32_t byte);
/* Index of the launch whose span contains byte offset, or -1. */
long an_model_launch_at(const an_model *m, uint32_t byte);
/* Index of the kernel named name, or -1. */
long an_model_find_kernel(const an_model *m, const char *name);

/* One-shot analysis of a whole text into a new model (an_model_free). */
int an_analyze(const char *text, size_t len, an_model **out);
void an_model_free(an_model *m);

#endif
