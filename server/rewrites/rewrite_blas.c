/* Library substitution (rewrite.h rw_blas_substitution): a naive SGEMM, strided batched
 * SGEMM or SGEMV that rwp_match_blas proved row-major, or whatever GEMM/GEMV the kernel
 * model's class proves (a shared-memory tiled GEMM seen through its tiles included),
 * becomes a host function calling cuBLAS (hipBLAS), which the benchmark program's
 * host-call mode and the file's own launch sites call instead of launching the kernel
 * (a template kernel's host function is a template too). The kernel itself stays, unused. */
#include "rewrites/rewrite.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_pattern.h"
#include "rewrites/rewrite_recognize.h"

#include "model/kclass.h"
#include "model/kmodel.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define BLAS_NAME "BLAS substitution"
/* the host block is a few dozen lines; parameters and expressions are capped by the
 * analysis and RWP_EXPR */
#define BLAS_BLOCK_MAX (64u * 1024u)
/* how a size taken from the launch starts (rwp_launch_extent): over the host function's
 * own hk_grid and hk_block, not over the kernel's parameters */
#define LAUNCH_EXTENT "(long long)hk_grid."

/* Is identifier name (len l) usable in the host function: a scalar parameter of f, or a
 * file-scope #define / constant (a tunable no function owns)? */
static bool host_visible(const an_model *m, const an_function *f, const char *name, size_t l)
{
    /* a template kernel's host function is a template with the same parameters */
    for (size_t i = 0; i < m->n_tunables; i++)
        if (m->tunables[i].kind == AN_TUNE_TEMPLATE && m->tunables[i].owner >= 0 &&
            (size_t)m->tunables[i].owner < m->n_funcs && &m->funcs[m->tunables[i].owner] == f &&
            strlen(m->tunables[i].name) == l && !memcmp(m->tunables[i].name, name, l))
            return true;
    for (size_t i = 0; i < f->n_params; i++)
        if (f->params[i].name && strlen(f->params[i].name) == l && !memcmp(f->params[i].name, name, l))
            return f->params[i].pointer_depth == 0;
    for (size_t i = 0; i < m->n_tunables; i++)
        if (m->tunables[i].owner < 0 && m->tunables[i].kind != AN_TUNE_TEMPLATE &&
            strlen(m->tunables[i].name) == l && !memcmp(m->tunables[i].name, name, l))
            return true;
    return false;
}

/* The first identifier of expression e the host function cannot evaluate, copied into bad;
 * false when there is none. Numbers (with suffixes like 2.0f) are skipped whole. */
static bool host_unusable(const an_model *m, const an_function *f, const char *e, char *bad, size_t size)
{
    for (const char *p = e; *p;) {
        if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
            while (isalnum((unsigned char)*p) || *p == '.')
                p++;
            continue;
        }
        if (!isalpha((unsigned char)*p) && *p != '_') {
            p++;
            continue;
        }
        const char *w = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        size_t l = (size_t)(p - w);
        if ((l == 6 && !memcmp(w, "sizeof", 6)) || host_visible(m, f, w, l))
            continue;
        snprintf(bad, size, "%.*s", (int)l, w);
        return true;
    }
    return false;
}

/* The last part of a possibly qualified name ("ns::k" -> "k"). */
static const char *last_part(const char *name)
{
    const char *c = strrchr(name, ':');
    return c ? c + 1 : name;
}

/* A launch's stream that is the legacy default stream the library call runs on. */
static bool default_stream(const char *s)
{
    if (!s)
        return true;
    char q[64];
    rwl_squeeze(s, q, sizeof q);
    return !strcmp(q, "0") || !strcmp(q, "NULL") || !strcmp(q, "nullptr") || !strcmp(q, "cudaStreamLegacy") ||
           !strcmp(q, "hipStreamLegacy");
}

/* The handle helper: one per process (the macro keeps a second substituted kernel in the
 * same file from defining it again), created on first use -- the benchmark's warm-up
 * launches pay for cublasCreate, not the timed ones -- and bound to the legacy default
 * stream, the one the benchmark's CUDA events time. */
static const char blas_handle_cuda[] =
    "#ifndef HK_BLAS_HANDLE\n" /* i18n: not for people */
    "#define HK_BLAS_HANDLE 1\n"
    "static cublasHandle_t hk_blas_handle(void)\n"
    "{\n"
    "    static cublasHandle_t hk_h = NULL;\n"
    "    static bool hk_failed = false;\n"
    "    if (!hk_h && !hk_failed) {\n"
    "        cublasStatus_t hk_st = cublasCreate(&hk_h);\n"
    "        if (hk_st == CUBLAS_STATUS_SUCCESS)\n"
    "            hk_st = cublasSetStream(hk_h, cudaStreamLegacy);\n"
    "        if (hk_st != CUBLAS_STATUS_SUCCESS) {\n"
    "            fprintf(stderr, \"hk: cuBLAS handle: status %d\\n\", (int)hk_st);\n"
    "            hk_failed = true;\n"
    "            hk_h = NULL;\n"
    "        }\n"
    "    }\n"
    "    return hk_h;\n"
    "}\n"
    "#endif\n";

static const char blas_handle_hip[] =
    "#ifndef HK_BLAS_HANDLE\n" /* i18n: not for people */
    "#define HK_BLAS_HANDLE 1\n"
    "static hipblasHandle_t hk_blas_handle(void)\n"
    "{\n"
    "    static hipblasHandle_t hk_h = NULL;\n"
    "    static bool hk_failed = false;\n"
    "    if (!hk_h && !hk_failed) {\n"
    "        hipblasStatus_t hk_st = hipblasCreate(&hk_h);\n"
    "        if (hk_st == HIPBLAS_STATUS_SUCCESS)\n"
    "            hk_st = hipblasSetStream(hk_h, 0);\n"
    "        if (hk_st != HIPBLAS_STATUS_SUCCESS) {\n"
    "            fprintf(stderr, \"hk: hipBLAS handle: status %d\\n\", (int)hk_st);\n"
    "            hk_failed = true;\n"
    "            hk_h = NULL;\n"
    "        }\n"
    "    }\n"
    "    return hk_h;\n"
    "}\n"
    "#endif\n";

/* The library's names: cu (CUDA) or hip. */
typedef struct {
    const char *handle_t, *status_t, *ok, *op_n, *op_t, *gemm, *gemm_batched, *gemv, *scal, *axpy, *lib;
} blas_names;

/* [hip][double] */
static const blas_names names[2][2] = {
    {{"cublasHandle_t", "cublasStatus_t", "CUBLAS_STATUS_SUCCESS", "CUBLAS_OP_N", "CUBLAS_OP_T", "cublasSgemm",
      "cublasSgemmStridedBatched", "cublasSgemv", "cublasSscal", "cublasSaxpy", "cuBLAS"},
     {"cublasHandle_t", "cublasStatus_t", "CUBLAS_STATUS_SUCCESS", "CUBLAS_OP_N", "CUBLAS_OP_T", "cublasDgemm",
      "cublasDgemmStridedBatched", "cublasDgemv", "cublasDscal", "cublasDaxpy", "cuBLAS"}},
    {{"hipblasHandle_t", "hipblasStatus_t", "HIPBLAS_STATUS_SUCCESS", "HIPBLAS_OP_N", "HIPBLAS_OP_T", "hipblasSgemm",
      "hipblasSgemmStridedBatched", "hipblasSgemv", "hipblasSscal", "hipblasSaxpy", "hipBLAS"},
     {"hipblasHandle_t", "hipblasStatus_t", "HIPBLAS_STATUS_SUCCESS", "HIPBLAS_OP_N", "HIPBLAS_OP_T", "hipblasDgemm",
      "hipblasDgemmStridedBatched", "hipblasDgemv", "hipblasDscal", "hipblasDaxpy", "hipBLAS"}},
};

const char *rw_blas_library_of(const char *text, char *routine, size_t n)
{
    const char *best = NULL, *lib = NULL;
    size_t best_len = 0;
    /* the product first: a GEMV's host function may scale y (scal) before it */
    for (int tier = 0; tier < 2 && !best; tier++)
    for (int h = 0; h < 2; h++)
        for (int d = 0; d < 2; d++) {
            const blas_names *nm = &names[h][d];
            const char *main_r[] = {nm->gemm_batched, nm->gemm, nm->gemv}, *helper[] = {nm->scal};
            const char *const *routines = tier ? helper : main_r;
            size_t nr = tier ? 1 : 3;
            for (size_t i = 0; i < nr; i++) {
                size_t l = strlen(routines[i]);
                for (const char *p = strstr(text, routines[i]); p; p = strstr(p + 1, routines[i])) {
                    const char *q = p + l;
                    while (*q == ' ' || *q == '\t' || *q == '\n')
                        q++;
                    bool starts = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
                    if (!starts || *q != '(')
                        continue;
                    if (!best || p < best) {
                        best = p;
                        best_len = l;
                        lib = nm->lib;
                    }
                    break;
                }
            }
        }
    if (routine && n)
        snprintf(routine, n, "%.*s", best ? (int)best_len : 0, best ? best : "");
    return lib;
}

/* The call the host function makes, whichever recognizer found it (the kernel model's
 * class, or the textual rwp_match_blas). Expressions are host-side C texts. */
typedef struct {
    enum rwp_blas_kind kind;
    bool dbl;                        /* double: the D routines */
    char a[RWP_EXPR], b[RWP_EXPR], c[RWP_EXPR]; /* A, B (GEMV: x), C (GEMV: y) */
    bool col_major;                  /* GEMM: C[i + j*ldc] */
    bool trans_a, trans_b;           /* GEMM: A[k,i], B[j,k] in C's layout; GEMV: trans_a
                                      * when A is read by rows (A[i*lda + j]) */
    char m[RWP_EXPR], n[RWP_EXPR], k[RWP_EXPR], batch[RWP_EXPR];
    char lda[RWP_EXPR], ldb[RWP_EXPR], ldc[RWP_EXPR]; /* GEMV: ldb, ldc are x's, y's steps */
    char stride_a[RWP_EXPR], stride_b[RWP_EXPR], stride_c[RWP_EXPR];
    char alpha[RWP_EXPR], beta[RWP_EXPR];
    char a2[RWP_EXPR], x2[RWP_EXPR], alpha2[RWP_EXPR]; /* GEMV with a second sum (km_class
                                      * in[2], in[3]; gesummv: y = alpha*A*x + alpha2*B*x +
                                      * beta*y): its matrix, vector and factor, a second call
                                      * adding alpha2*B*x2; a2 "" none */
    char ep_v[RWP_EXPR], ep_alpha[RWP_EXPR]; /* GEMV: an epilogue after the product,
                                      * y[i] += s * v[i] (or y[i] = y[i] + s * v[i]) at y's
                                      * own index: an axpy of v (step ldc) scaled by s after
                                      * the gemv; ep_v "" none */
    bool from_launch;                /* m or n is the launch's extent (rwp_launch_extent): the
                                      * host function takes the launch's grid and block */
    char tile[3][RWP_EXPR];          /* a tiled kernel seen through (km_class tiles_seen): the
                                      * block extent per axis its tiles need ("" none); the
                                      * host function refuses another block at run time */
} blas_call;

/* The GEMV call: A read by rows (row-major M x N) is the column-major N x M matrix A^T, so
 * y = op_T(A^T) x; read by columns it is column-major M x N already (op N). */
static int host_gemv(struct hk_buf *b, const blas_call *g, const blas_names *nm, bool hip)
{
    const char *ty = g->dbl ? "double" : "float";
    int rc = hk_buf_printf(b,
                           "    if (hk_m <= 0)\n" /* i18n: not for people */
                           "        return;                        // no row: the kernel writes nothing\n");
    if (!rc && !strcmp(g->ldc, "1"))
        rc = hk_buf_printf(b,
                           "    if (hk_n <= 0 && hk_beta == 0) {   // empty rows: y = 0 (scaling would keep a NaN)\n" /* i18n: not for people */
                           "        hk_st = %s(%s, 0, (size_t)hk_m * sizeof(%s), 0) == 0 ? %s : %s;\n"
                           "    } else ",
                           hip ? "hipMemsetAsync" : "cudaMemsetAsync", g->c, ty, nm->ok,
                           hip ? "HIPBLAS_STATUS_EXECUTION_FAILED" : "CUBLAS_STATUS_EXECUTION_FAILED");
    else if (!rc)
        rc = hk_buf_appends(b, "    ");
    if (!rc)
        rc = hk_buf_printf(b,
                           "if (hk_n <= 0) {            // empty rows: y = beta * y\n" /* i18n: not for people */
                           "        hk_st = %s(hk_h, (int)hk_m, &hk_beta, %s, (int)(%s));\n"
                           "    } else {\n",
                           nm->scal, g->c, g->ldc);
    if (!rc && g->trans_a)
        rc = hk_buf_printf(b,
                           "        // row-major A (M x N) is the column-major N x M matrix A^T: y = (A^T)^T x\n" /* i18n: not for people */
                           "        hk_st = %s(hk_h, %s, (int)hk_n, (int)hk_m, &hk_alpha, %s, (int)(%s), %s, (int)(%s),\n"
                           "                   &hk_beta, %s, (int)(%s));\n"
                           "    }\n",
                           nm->gemv, nm->op_t, g->a, g->lda, g->b, g->ldb, g->c, g->ldc);
    else if (!rc)
        rc = hk_buf_printf(b,
                           "        // A read by columns is the column-major M x N matrix itself\n" /* i18n: not for people */
                           "        hk_st = %s(hk_h, %s, (int)hk_m, (int)hk_n, &hk_alpha, %s, (int)(%s), %s, (int)(%s),\n"
                           "                   &hk_beta, %s, (int)(%s));\n"
                           "    }\n",
                           nm->gemv, nm->op_n, g->a, g->lda, g->b, g->ldb, g->c, g->ldc);
    /* the second sum: y += alpha2 * B x2, B read as A is and x2 as x (same indices) */
    if (!rc && g->a2[0])
        rc = hk_buf_printf(b,
                           "    if (hk_st == %s && hk_n > 0) {   // the second sum: y += alpha2 * %s %s\n" /* i18n: not for people */
                           "        const %s hk_one = (%s)1;\n"
                           "        hk_st = %s(hk_h, %s, (int)(%s), (int)(%s), &hk_alpha2, %s, (int)(%s), %s, (int)(%s),\n"
                           "                   &hk_one, %s, (int)(%s));\n"
                           "    }\n",
                           nm->ok, g->a2, g->x2, ty, ty, nm->gemv, g->trans_a ? nm->op_t : nm->op_n,
                           g->trans_a ? "hk_n" : "hk_m", g->trans_a ? "hk_m" : "hk_n", g->a2, g->lda, g->x2, g->ldb,
                           g->c, g->ldc);
    /* the epilogue: y += s * v after the product, as the kernel adds it to the finished y
     * (1 * v is exact, so s 1 adds v itself) */
    if (!rc && g->ep_v[0])
        rc = hk_buf_printf(b,
                           "    if (hk_st == %s) {   // the epilogue after the product: y += s * %s\n" /* i18n: not for people */
                           "        const %s hk_s = (%s)(%s);\n"
                           "        hk_st = %s(hk_h, (int)hk_m, &hk_s, %s, (int)(%s), %s, (int)(%s));\n"
                           "    }\n",
                           nm->ok, g->ep_v, ty, ty, g->ep_alpha, nm->axpy, g->ep_v, g->ldc, g->c, g->ldc);
    return rc;
}

/* The GEMM call. cuBLAS is column-major: a column-major C = op(A) op(B) is called as it
 * stands; a row-major C = A B is the column-major C^T = B^T A^T, so B comes first and m
 * and n swap (each operand's own transpose flag moves with it). */
static int host_gemm(struct hk_buf *b, const blas_call *g, const blas_names *nm)
{
    const char *first = g->col_major ? g->a : g->b, *second = g->col_major ? g->b : g->a;
    const char *ld1 = g->col_major ? g->lda : g->ldb, *ld2 = g->col_major ? g->ldb : g->lda;
    const char *s1 = g->col_major ? g->stride_a : g->stride_b, *s2 = g->col_major ? g->stride_b : g->stride_a;
    bool t1 = g->col_major ? g->trans_a : g->trans_b, t2 = g->col_major ? g->trans_b : g->trans_a;
    const char *rows = g->col_major ? "hk_m" : "hk_n", *cols = g->col_major ? "hk_n" : "hk_m";
    int rc = hk_buf_printf(b,
                           "    const long long hk_k = (long long)(%s);\n" /* i18n: not for people */
                           "    if (hk_m <= 0 || hk_n <= 0)\n"
                           "        return;                        // no output: the kernel writes nothing\n"
                           "    %s\n",
                           g->k,
                           g->col_major ? "// column-major C = op(A) * op(B): the operands as they stand" /* i18n: not for people */
                                        : "// row-major C = A * B is column-major C^T = B^T * A^T: B first, m and n " /* i18n: not for people */
                                          "swapped");
    if (!rc && g->kind == RWP_BLAS_GEMM)
        rc = hk_buf_printf(b,
                           "    hk_st = %s(hk_h, %s, %s, (int)%s, (int)%s, (int)(hk_k > 0 ? hk_k : 0), &hk_alpha,\n" /* i18n: not for people */
                           "                   %s, (int)(%s), %s, (int)(%s), &hk_beta, %s, (int)(%s));\n",
                           nm->gemm, t1 ? nm->op_t : nm->op_n, t2 ? nm->op_t : nm->op_n, rows, cols, first, ld1,
                           second, ld2, g->c, g->ldc);
    else if (!rc)
        rc = hk_buf_printf(b,
                           "    const long long hk_batch = (long long)(%s);\n" /* i18n: not for people */
                           "    if (hk_batch <= 0)\n"
                           "        return;\n"
                           "    hk_st = %s(hk_h, %s, %s, (int)%s, (int)%s, (int)(hk_k > 0 ? hk_k : 0),\n"
                           "                   &hk_alpha, %s, (int)(%s), (long long)(%s), %s, (int)(%s),\n"
                           "                   (long long)(%s), &hk_beta, %s, (int)(%s), (long long)(%s),\n"
                           "                   (int)hk_batch);\n",
                           g->batch, nm->gemm_batched, t1 ? nm->op_t : nm->op_n, t2 ? nm->op_t : nm->op_n, rows,
                           cols, first, ld1, s1, second, ld2, s2, g->c, g->ldc, g->stride_c);
    return rc;
}

/* Appends one call's scalars and sizes (hk_alpha, hk_beta, hk_m, hk_n, hk_alpha2) to b. */
static int host_scalars(struct hk_buf *b, const blas_call *g, const blas_names *nm)
{
    const char *ty = g->dbl ? "double" : "float";
    int rc = hk_buf_printf(b,
                           "    const %s hk_alpha = (%s)(%s), hk_beta = (%s)(%s);\n" /* i18n: not for people */
                           "    const long long hk_m = (long long)(%s), hk_n = (long long)(%s);\n",
                           ty, ty, g->alpha, ty, g->beta, g->m, g->n);
    if (!rc && nm && g->a2[0])
        rc = hk_buf_printf(b, "    const %s hk_alpha2 = (%s)(%s);\n", ty, ty, g->alpha2);
    return rc;
}

/* Appends the call of a kernel's further output g (mvt's x2 beside x1) to b: its own
 * scalars and gemv in a block, made when the calls before it succeeded. The rows are the
 * first call's (class_call proved it), so the block's `return` on no row is never taken
 * after the first call's was not. */
static int host_more(struct hk_buf *b, const blas_call *g, const blas_names *nm, bool hip)
{
    struct hk_buf in;
    hk_buf_init(&in, BLAS_BLOCK_MAX);
    int rc = host_scalars(&in, g, nm);
    if (!rc)
        rc = host_gemv(&in, g, nm, hip);
    if (!rc)
        rc = hk_buf_printf(b, "    if (hk_st == %s) {   // the kernel's next output, %s: its own call\n", /* i18n: not for people */
                           nm->ok, g->c);
    /* the block's lines indented once more */
    for (size_t i = 0; !rc && i < in.len;) {
        size_t e = i;
        while (e < in.len && in.data[e] != '\n')
            e++;
        rc = hk_buf_printf(b, "    %.*s\n", (int)(e - i), in.data + i);
        i = e + 1;
    }
    if (!rc)
        rc = hk_buf_appends(b, "    }\n");
    hk_buf_free(&in);
    return rc;
}

/* Appends the host function for kernel f (its calls gs[0..ng), one per output) to b. */
static int host_function(struct hk_buf *b, const char *text, const an_function *f, const blas_call *gs, size_t ng,
                         int math, bool hip)
{
    const blas_call *g = &gs[0];
    const blas_names *nm = &names[hip][g->dbl];
    const char *k = f->name;
    uint32_t ps = f->params[0].span.start_byte, pe = f->params[f->n_params - 1].span.end_byte;
    int rc = hk_buf_appends(b, hip ? blas_handle_hip : blas_handle_cuda);
    if (!rc)
        rc = hk_buf_printf(b,
                           "// hk rewrite: blas_substitution -- %s computes what kernel %s computed; the\n" /* i18n: not for people */
                           "// benchmark program (HK_HOST_CALL_%s) and this file's launch sites call\n"
                           "// hk_host_%s with the kernel's arguments. The kernel above is kept, unused, as\n"
                           "// the reference the substitution was proved against.%s\n"
                           "#define HK_HOST_CALL_%s 1\n",
                           g->kind == RWP_BLAS_GEMV ? nm->gemv
                           : g->kind == RWP_BLAS_GEMM ? nm->gemm : nm->gemm_batched,
                           k, k, k,
                           g->from_launch ? "\n// The kernel bounds a size nowhere: its launch does, so the grid and " /* i18n: not for people */
                                            "block it\n// would have been launched with come first (grid x block "
                                            "threads, one element each)." : "",
                           k);
    /* the kernel bounds a size nowhere, its launch does: the host function is given the
     * launch (HK_HOST_CALL_GRID_: the benchmark program passes the grid and block it
     * evaluated from the spec, the launch sites their own) */
    if (!rc && g->from_launch)
        rc = hk_buf_printf(b, "#define HK_HOST_CALL_GRID_%s 1\n%s%s" /* i18n: not for people */
                              "static void hk_host_%s(dim3 hk_grid, dim3 hk_block, %.*s)\n",
                           k, f->template_params ? f->template_params : "", f->template_params ? "\n" : "", k,
                           (int)(pe - ps), text + ps);
    else if (!rc)
        rc = hk_buf_printf(b, "%s%sstatic void hk_host_%s(%.*s)\n", f->template_params ? f->template_params : "",
                           f->template_params ? "\n" : "", k, (int)(pe - ps), text + ps);
    if (!rc)
        rc = hk_buf_printf(b,
                           "{\n"
                           "    %s hk_h = hk_blas_handle();\n"
                           "    if (!hk_h)\n"
                           "        return;\n",
                           nm->handle_t);
    /* a tiled kernel computes the product only when its block is the tile: another block
     * leaves tiles part filled (or fills past them), which the library call cannot copy */
    for (int a = 0; !rc && g->from_launch && a < 3; a++)
        if (g->tile[a][0])
            rc = hk_buf_printf(b,
                               "    if (hk_block.%c != (unsigned)(%s)) {\n" /* i18n: not for people */
                               "        fprintf(stderr, \"hk: kernel %s's tiles need blockDim.%c == %%d, the launch has "
                               "%%u\\n\", (int)(%s), hk_block.%c);\n"
                               "        return;\n"
                               "    }\n",
                               "xyz"[a], g->tile[a], k, "xyz"[a], g->tile[a], "xyz"[a]);
    if (!rc && !hip)
        rc = hk_buf_printf(b, "    cublasSetMathMode(hk_h, %s);\n",
                           math ? "CUBLAS_TF32_TENSOR_OP_MATH" : "CUBLAS_DEFAULT_MATH");
    if (!rc)
        rc = host_scalars(b, g, nm);
    if (!rc)
        rc = hk_buf_printf(b, "    %s hk_st;\n", nm->status_t);
    if (!rc)
        rc = g->kind == RWP_BLAS_GEMV ? host_gemv(b, g, nm, hip) : host_gemm(b, g, nm);
    for (size_t i = 1; !rc && i < ng; i++)
        rc = host_more(b, &gs[i], nm, hip);
    if (!rc)
        rc = hk_buf_printf(b,
                           "    if (hk_st != %s)\n" /* i18n: not for people */
                           "        fprintf(stderr, \"hk: %s call for kernel %s failed: status %%d\\n\", (int)hk_st);\n"
                           "}\n",
                           nm->ok, nm->lib, k);
    return rc;
}

/* ---- the call from the kernel model's class (model/kclass.h) ---- */

/* A host expression being written: fixed size, so building one allocates nothing (an
 * allocation failure cannot pass for a refusal); too long a text is refused. */
typedef struct {
    char s[RWP_EXPR];
    size_t n;
} expr_text;

/* Did snprintf's w characters fit in n bytes? */
static bool fits(int w, size_t n)
{
    return w >= 0 && (size_t)w < n;
}

/* Appends formatted text; false when it does not fit. */
static bool __attribute__((format(printf, 2, 3))) et_add(expr_text *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(e->s + e->n, sizeof e->s - e->n, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= sizeof e->s - e->n)
        return false;
    e->n += (size_t)w;
    return true;
}

static bool host_form_to(const km_kernel *k, km_form f, expr_text *o, char *bad, size_t bn, int depth);

/* Appends the C text of one atom the host can evaluate (a scalar parameter, a named
 * constant, a literal, an integer division or remainder of such: a tile count) to o;
 * false, with the atom's text in bad, for any other. */
static bool host_atom(const km_kernel *k, const km_atom *a, expr_text *o, char *bad, size_t bn, int depth)
{
    if (a->kind == KM_ATOM_PARAM || a->kind == KM_ATOM_CONST || a->kind == KM_ATOM_LITERAL)
        return et_add(o, "%s", a->kind == KM_ATOM_LITERAL ? a->text : a->name);
    if (a->kind == KM_ATOM_OPAQUE && a->n_args == 2 && depth < 8 && (!strcmp(a->op, "/") || !strcmp(a->op, "%")))
        return et_add(o, "((") && host_form_to(k, a->args[0], o, bad, bn, depth + 1) && et_add(o, ") %s (", a->op) &&
               host_form_to(k, a->args[1], o, bad, bn, depth + 1) && et_add(o, "))");
    if (a->kind == KM_ATOM_OPAQUE && a->n_args == 2 && depth < 8 && !strcmp(a->op, "ceildiv"))
        return et_add(o, "(((") && host_form_to(k, a->args[0], o, bad, bn, depth + 1) && et_add(o, ") + (") &&
               host_form_to(k, a->args[1], o, bad, bn, depth + 1) && et_add(o, ") - 1) / (") &&
               host_form_to(k, a->args[1], o, bad, bn, depth + 1) && et_add(o, "))");
    snprintf(bad, bn, "%s", a->text);
    return false;
}

/* One term coef*atoms as C text, with its sign in front unless first. */
static bool host_term(const km_kernel *k, const km_term *t, bool first, expr_text *o, char *bad, size_t bn,
                      int depth)
{
    size_t na;
    const km_atom *atoms = km_atoms(k, &na);
    long long c = t->coef;
    bool any = false, ok = first ? (c >= 0 || et_add(o, "-")) : et_add(o, "%s", c < 0 ? " - " : " + ");
    if (ok && c != 1 && c != -1) {
        ok = et_add(o, "%lld", c < 0 ? -c : c);
        any = true;
    }
    for (uint32_t j = 0; j < t->n && ok; j++) {
        ok = (!any || et_add(o, "*")) && host_atom(k, &atoms[t->atoms[j]], o, bad, bn, depth);
        any = true;
    }
    return ok && (any || et_add(o, "1"));
}

/* A whole form as C text in out ("0" when empty); false with the first atom the host
 * cannot evaluate (or the overflow) in bad. */
static bool host_form_to(const km_kernel *k, km_form f, expr_text *o, char *bad, size_t bn, int depth)
{
    bool ok = true;
    for (uint32_t i = 0; i < f.n && ok; i++)
        ok = host_term(k, &f.t[i], i == 0, o, bad, bn, depth);
    return ok && (f.n || et_add(o, "0"));
}

static bool host_form(const km_kernel *k, km_form f, char *out, size_t n, char *bad, size_t bn)
{
    expr_text o = {.n = 0};
    bool ok = host_form_to(k, f, &o, bad, bn, 0);
    if (ok)
        snprintf(out, n, "%s", o.s);
    else if (!bad[0])
        snprintf(bad, bn, EN(RW_BLAS_EXPR_TOO_LONG), sizeof o.s);
    return ok;
}

/* The scalar factors of a product term (reads and the accumulator left out) as C text
 * into o; false when a factor is neither a read nor host-evaluable. */
static bool scalar_factor(const km_kernel *k, const km_term *t, expr_text *o, char *bad, size_t bn)
{
    size_t na;
    const km_atom *atoms = km_atoms(k, &na);
    km_term s = {.coef = t->coef, .n = 0};
    for (uint32_t j = 0; j < t->n; j++) {
        enum km_atom_kind kd = atoms[t->atoms[j]].kind;
        if (kd != KM_ATOM_READ && kd != KM_ATOM_ACC)
            s.atoms[s.n++] = t->atoms[j];
    }
    return host_term(k, &s, true, o, bad, bn, 0);
}

/* Is a C[same] = 0 store (the empty form is 0) before an update? */
static bool zero_store(const km_access *a)
{
    return a->mode == KM_WRITE && !a->atomic && a->value.n == 0;
}

/* Is a C[same] *= s, or C[same] = 0, before the update w (C += ... in the k loop): the beta
 * of a GEMM or GEMV that scales C first (or zeroes it: beta 0) and accumulates into it
 * after (PolyBench's spelling, and `y[i] = 0; for (...) y[i] += A[...] * x[...];`)? */
static bool prescale(const km_access *a, const km_access *w)
{
    return ((a->mode == KM_RMW && a->op == KM_OP_PRODUCT && !a->atomic) || zero_store(a)) && w->mode == KM_RMW &&
           w->op == KM_OP_SUM && w->n_loops > a->n_loops && a->line < w->line &&
           km_form_equal(a->index, w->index);
}

/* Is term t s * V[index] with V a buffer other than out, read once, and s scalars (no
 * other read, no sum)? *v the read's atom. */
static bool scaled_read(const km_kernel *k, const km_term *t, const char *out, km_form index, const km_atom **v)
{
    size_t na;
    const km_atom *atoms = km_atoms(k, &na);
    *v = NULL;
    for (uint32_t j = 0; j < t->n; j++) {
        const km_atom *a = &atoms[t->atoms[j]];
        if (a->kind == KM_ATOM_READ) {
            if (*v || a->n_args != 1 || !strcmp(a->name, out) || !km_form_equal(a->args[0], index))
                return false;
            *v = a;
        } else if (a->kind == KM_ATOM_ACC) {
            return false;
        }
    }
    return *v != NULL;
}

/* Is e, a write of C after its product's write w, an epilogue y[i] += s * v[i] (or
 * y[i] = y[i] + s * v[i]) the library computes as an axpy after the call: at w's element,
 * in the loops around the product (outside the sum's loop: once per element), v a buffer
 * other than C read at C's own index? The factor s is checked by epilogue_of. */
static bool epilogue(const km_kernel *k, const km_access *w, const km_access *e)
{
    size_t na;
    const km_atom *atoms = km_atoms(k, &na), *v;
    if (e->atomic || e->line <= w->line || !km_form_equal(e->index, w->index))
        return false;
    /* w inside the sum's loop (C += a*A*B) is one loop deeper than the element's loops */
    bool in_loop = w->mode == KM_RMW && w->op == KM_OP_SUM;
    for (uint32_t i = 0; i < w->element_value.n && in_loop; i++)
        for (uint32_t j = 0; j < w->element_value.t[i].n; j++)
            in_loop = in_loop && atoms[w->element_value.t[i].atoms[j]].kind != KM_ATOM_ACC;
    if (e->n_loops + (in_loop ? 1u : 0u) != w->n_loops)
        return false;
    for (uint32_t l = 0; l < e->n_loops; l++)
        if (e->loops[l] != w->loops[l])
            return false;
    if (e->mode == KM_RMW && e->op == KM_OP_SUM)
        return e->element_value.n == 1 && scaled_read(k, &e->element_value.t[0], w->buffer, w->index, &v);
    if (e->mode != KM_WRITE || e->element_value.n != 2)
        return false;
    for (uint32_t i = 0; i < 2; i++) {
        const km_term *old = &e->element_value.t[i], *add = &e->element_value.t[1 - i];
        const km_atom *o = old->n == 1 ? &atoms[old->atoms[0]] : NULL;
        if (o && old->coef == 1 && o->kind == KM_ATOM_READ && !strcmp(o->name, w->buffer) &&
            km_form_equal(o->args[0], w->index) && scaled_read(k, add, w->buffer, w->index, &v))
            return true;
    }
    return false;
}

/* Is buffer name one of outs[0..n)? */
static bool among(const char *name, const char *const *outs, size_t n)
{
    for (size_t i = 0; i < n && name; i++)
        if (outs[i] && !strcmp(outs[i], name))
            return true;
    return false;
}

/* The one global write of the class's output that holds its product (and *scale, a
 * C *= beta before it, *ep, an epilogue after it (epilogue), or NULL): another write of C,
 * or a write of a buffer that is not one of outs[0..n_outs) (the kernel's products'
 * outputs, each called for on its own), is work the library calls would not do. */
static const km_access *single_write(const km_kernel *k, const km_class *c, const char *const *outs, size_t n_outs,
                                     const km_access **scale, const km_access **ep, char *why, size_t wn)
{
    size_t n;
    const km_access *as = km_accesses(k, &n), *w = NULL;
    *scale = *ep = NULL;
    for (size_t i = 0; i < n; i++) {
        if (as[i].mode == KM_READ || as[i].space != KM_SPACE_GLOBAL)
            continue;
        if (strcmp(as[i].buffer, c->out) != 0) {
            if (!as[i].atomic && among(as[i].buffer, outs, n_outs))
                continue;
            snprintf(why, wn, EN(RW_BLAS_ALSO_WRITES), as[i].line,
                     as[i].buffer);
            return NULL;
        }
        if (w && !*scale && !*ep && prescale(w, &as[i])) {
            *scale = w;
        } else if (w && !*ep && epilogue(k, w, &as[i])) {
            *ep = &as[i];
            continue;
        } else if (w) {
            snprintf(why, wn, EN(RW_BLAS_WRITTEN_TWICE), as[i].line, c->out, *ep ? (*ep)->line : w->line);
            return NULL;
        }
        w = &as[i];
    }
    if (!w)
        snprintf(why, wn, EN(RW_BLAS_NO_GLOBAL_WRITE));
    return w;
}

/* Is guard g `index < bound` for the global thread index along axis (a row or column
 * of C) and the class's extent of it? */
static bool bounds_axis(const km_kernel *k, const km_guard *g, int axis, const km_cform *bound)
{
    return axis >= 0 && bound->known && !strcmp(g->op, "<") && km_form_is_global_index(k, g->lhs, axis) &&
           km_form_equal(g->rhs, km_cform_view(bound));
}

/* Every guard in force at C's write must be a row's or column's `index < M` / `< N`: any
 * other condition (i > 0, i + 1 < M, a flag) skips part of C, which the library call
 * would overwrite. */
static bool guards_cover(const km_kernel *k, const km_class *c, const km_access *w, char *why, size_t wn)
{
    size_t ng;
    const km_guard *gs = km_guards(k, &ng);
    for (uint32_t i = 0; i < w->n_guards; i++) {
        const km_guard *g = &gs[w->guards[i]];
        if (bounds_axis(k, g, c->row_axis, &c->m) ||
            (c->kind == KM_CLASS_GEMM && bounds_axis(k, g, c->col_axis, &c->n)))
            continue;
        snprintf(why, wn, EN(RW_BLAS_GUARD), g->line, g->op, c->out, w->line, c->out);
        return false;
    }
    return true;
}

/* Does accumulator acc's (one-term) operand read buffer name? */
static bool acc_reads(const km_kernel *k, const km_accumulator *acc, const char *name)
{
    size_t na;
    const km_atom *atoms = km_atoms(k, &na);
    for (uint32_t i = 0; i < acc->element_operand.n; i++)
        for (uint32_t j = 0; j < acc->element_operand.t[i].n; j++) {
            const km_atom *a = &atoms[acc->element_operand.t[i].atoms[j]];
            if (a->kind == KM_ATOM_READ && !strcmp(a->name, name))
                return true;
        }
    return false;
}

/* The factor of one sum acc into out: al (the write's scalars of acc's terms) times the
 * scalars of acc's operand (sum += s*A*B); false when the sum does not start at 0 (why)
 * or a factor is not host-evaluable (bad). */
static bool sum_alpha(const km_kernel *k, const km_accumulator *acc, const expr_text *al, char *out, size_t on,
                      char *bad, size_t bn, char *why, size_t wn)
{
    if (acc && acc->init.n) {
        snprintf(why, wn, EN(RW_BLAS_SUM_START), acc->line, acc->name ? acc->name : "?");
        bad[0] = '\0';
        return false;
    }
    if (acc && acc->element_operand.n == 1) {
        /* sum += s*A*B: s scales the sum as alpha does */
        expr_text f = {.n = 0};
        if (!scalar_factor(k, &acc->element_operand.t[0], &f, bad, bn))
            return false;
        if (strcmp(f.s, "1"))
            return fits(snprintf(out, on, "(%s)*(%.*s)", f.s, (int)(on / 2), al->n ? al->s : "0"), on);
    }
    snprintf(out, on, "%s", al->n ? al->s : "0");
    return true;
}

/* alpha and beta from C's write: value = a*acc + b*C[same] (acc: the k-loop sum, whose
 * operand may carry scalars too), or C[...] += a*A*B inside the k loop (beta 1). in: a
 * GEMV's four inputs (km_class in[], n_in 4: a second sum) or NULL: the terms of the sum
 * that reads in[2] and in[3] (the other one, where both sums read the same) give
 * g->alpha2. */
static bool scalars_of(const km_kernel *k, const km_access *w, const km_access *scale, const char *const *in,
                       blas_call *g, char *why, size_t wn)
{
    size_t na, nacc;
    const km_atom *atoms = km_atoms(k, &na);
    const km_accumulator *accs = km_accumulators(k, &nacc);
    expr_text al = {.n = 0}, be = {.n = 0}, al2 = {.n = 0};
    char bad[160] = "";
    bool ok = true, rmw_sum = w->mode == KM_RMW && w->op == KM_OP_SUM;
    const km_accumulator *acc = NULL, *acc2 = NULL;
    for (uint32_t i = 0; i < w->element_value.n && ok; i++) {
        const km_term *t = &w->element_value.t[i];
        const km_atom *accat = NULL, *oldc = NULL;
        for (uint32_t j = 0; j < t->n; j++) {
            const km_atom *a = &atoms[t->atoms[j]];
            if (a->kind == KM_ATOM_ACC)
                accat = a;
            else if (a->kind == KM_ATOM_READ && !strcmp(a->name, w->buffer) && km_form_equal(a->args[0], w->index))
                oldc = a;
        }
        const km_accumulator *ax = accat && accat->loop >= 0 && (size_t)accat->loop < nacc ? &accs[accat->loop] : NULL;
        bool is1 = ax && acc_reads(k, ax, in ? in[0] : "") && acc_reads(k, ax, in ? in[1] : "");
        bool is2 = ax && in && acc_reads(k, ax, in[2]) && acc_reads(k, ax, in[3]);
        if (ax && !oldc && is2 && (!is1 || (acc && acc != ax))) {
            acc2 = ax;
            ok = et_add(&al2, "%s", al2.n ? " + " : "") && scalar_factor(k, t, &al2, bad, sizeof bad);
        } else if (accat && accat->loop >= 0 && (size_t)accat->loop < nacc && !oldc) {
            acc = &accs[accat->loop];
            ok = et_add(&al, "%s", al.n ? " + " : "") && scalar_factor(k, t, &al, bad, sizeof bad);
        } else if (oldc && !accat) {
            ok = et_add(&be, "%s", be.n ? " + " : "") && scalar_factor(k, t, &be, bad, sizeof bad);
        } else if (!accat && !oldc && rmw_sum && w->element_value.n == 1) {
            ok = scalar_factor(k, t, &al, bad, sizeof bad);   /* C += a*A*B in the loop */
        } else {
            snprintf(bad, sizeof bad, EN(RW_BLAS_TERM), w->buffer);
            ok = false;
        }
    }
    if (ok)
        ok = sum_alpha(k, acc, &al, g->alpha, sizeof g->alpha, bad, sizeof bad, why, wn);
    if (ok && in) {
        /* the class proved both sums; each its own factor (a missing one is refused) */
        ok = acc && acc2 && sum_alpha(k, acc2, &al2, g->alpha2, sizeof g->alpha2, bad, sizeof bad, why, wn);
        if (!ok && !why[0] && !bad[0])
            snprintf(bad, sizeof bad, "%s", in[2]);
    }
    if (ok && scale && zero_store(scale)) {
        /* C = 0; C += ...: the old C does not enter */
        ok = be.n == 0;
        if (ok)
            snprintf(g->beta, sizeof g->beta, "0");
        else
            snprintf(bad, sizeof bad, EN(RW_BLAS_SCALING), w->buffer, scale->line);
    } else if (ok && scale) {
        /* C *= s; C += ...: the old C enters scaled by s */
        ok = be.n == 0 && scale->element_value.n == 1 &&
             scalar_factor(k, &scale->element_value.t[0], &be, bad, sizeof bad);
        if (ok)
            snprintf(g->beta, sizeof g->beta, "%s", be.s);
        else if (!bad[0])
            snprintf(bad, sizeof bad, EN(RW_BLAS_SCALING), w->buffer, scale->line);
    } else if (ok) {
        if (rmw_sum && be.n)
            ok = fits(snprintf(g->beta, sizeof g->beta, "1 + %.*s", (int)(sizeof g->beta - 8), be.s), sizeof g->beta);
        else
            snprintf(g->beta, sizeof g->beta, "%s", rmw_sum ? "1" : be.n ? be.s : "0");
    }
    if (!ok && !bad[0] && !why[0])
        snprintf(bad, sizeof bad, EN(RW_BLAS_ALPHA_TOO_LONG), RWP_EXPR);
    if (!ok && bad[0])
        snprintf(why, wn, EN(RW_BLAS_VALUE_HOLDS), w->line, w->buffer, bad);
    return ok;
}

/* The epilogue e (single_write's *ep) into g: its vector and factor, the factor being
 * host-evaluable; false (why) otherwise. */
static bool epilogue_of(const km_kernel *k, const km_access *w, const km_access *e, blas_call *g, char *why,
                        size_t wn)
{
    size_t na;
    const km_atom *atoms = km_atoms(k, &na), *v = NULL;
    const km_term *add = &e->element_value.t[0];
    if (e->mode == KM_WRITE) {
        const km_atom *o = &atoms[e->element_value.t[0].atoms[0]];
        bool first_old = e->element_value.t[0].n == 1 && o->kind == KM_ATOM_READ && !strcmp(o->name, w->buffer);
        add = &e->element_value.t[first_old ? 1 : 0];
    }
    expr_text f = {.n = 0};
    char bad[160] = "";
    if (!scaled_read(k, add, w->buffer, w->index, &v) || !scalar_factor(k, add, &f, bad, sizeof bad)) {
        snprintf(why, wn, EN(RW_BLAS_VALUE_HOLDS), e->line, e->buffer, bad[0] ? bad : "?");
        return false;
    }
    snprintf(g->ep_v, sizeof g->ep_v, "%s", v->name);
    snprintf(g->ep_alpha, sizeof g->ep_alpha, "%s", f.s);
    return true;
}

/* The element type of parameter name without const ("float"), or NULL. */
static const char *elem_type(const km_kernel *k, const char *name)
{
    size_t n;
    const km_param *ps = km_params(k, &n);
    for (size_t i = 0; i < n; i++)
        if (ps[i].pointer && ps[i].elem_type && !strcmp(ps[i].name, name))
            return strncmp(ps[i].elem_type, "const ", 6) ? ps[i].elem_type : ps[i].elem_type + 6;
    return NULL;
}

/* The class's sizes and leading dimensions as host texts. */
static bool class_sizes(const km_kernel *k, const km_class *c, blas_call *g, char *why, size_t wn)
{
    struct {
        const char *what;
        const km_cform *f;
        char *out;
    } forms[] = {{"M", &c->m, g->m}, {"N", &c->n, g->n}, {"K", &c->k, g->k}, {"lda", &c->lda, g->lda},
                 {c->kind == KM_CLASS_GEMV ? "x's step" : "ldb", &c->ldb, g->ldb},
                 {c->kind == KM_CLASS_GEMV ? "y's step" : "ldc", &c->ldc, g->ldc}};
    for (size_t i = 0; i < HK_ARRAY_LEN(forms); i++) {
        char bad[160] = "";
        if (c->kind == KM_CLASS_GEMV && forms[i].f == &c->k) {
            snprintf(g->k, sizeof g->k, "0");
            continue;
        }
        bool row = forms[i].f == &c->m, col = forms[i].f == &c->n && c->kind == KM_CLASS_GEMM;
        if (!forms[i].f->known && (row || col)) {
            if (!rwp_launch_extent(k, c, row ? &c->row_index : &c->col_index, forms[i].what, "hk_grid", "hk_block",
                                   forms[i].out, RWP_EXPR, why, wn))
                return false;
            g->from_launch = true;
            continue;
        }
        if (!forms[i].f->known) {
            snprintf(why, wn, EN(RW_BLAS_SIZE_UNKNOWN), c->line, forms[i].what);
            return false;
        }
        if (!host_form(k, km_cform_view(forms[i].f), forms[i].out, RWP_EXPR, bad, sizeof bad)) {
            snprintf(why, wn, EN(RW_BLAS_USES_UNEVALUABLE), c->line, forms[i].what, bad);
            return false;
        }
    }
    if (g->from_launch && c->kind == KM_CLASS_GEMM && c->row_axis == c->col_axis) {
        /* one thread axis for both: threads walk a diagonal band, not the M x N matrix */
        snprintf(why, wn, EN(RW_BLAS_SAME_AXIS), c->line, c->out, "xyz"[c->row_axis < 0 ? 0 : c->row_axis]);
        return false;
    }
    return true;
}

/* The class's buffers and element type; false (why) when they are not three distinct
 * global pointer parameters of one type, float or double. */
static bool class_buffers(const km_kernel *k, const km_class *c, blas_call *g, char *why, size_t wn)
{
    bool two = c->kind == KM_CLASS_GEMV && c->n_in == 4;   /* a second sum: in[2] x in[3] */
    if ((c->shared_tiles && !c->tiles_seen) || (c->n_in != 2 && !two)) {
        snprintf(why, wn, EN(RW_BLAS_SHARED_TILES), c->line);
        return false;
    }
    const char *tc = elem_type(k, c->out), *ta = elem_type(k, c->in[0]), *tb = elem_type(k, c->in[1]);
    if (!tc || !ta || !tb) {
        snprintf(why, wn, EN(RW_BLAS_OPERAND_NOT_PARAM), c->line);
        return false;
    }
    if (strcmp(tc, ta) || strcmp(tc, tb) || (strcmp(tc, "float") && strcmp(tc, "double"))) {
        snprintf(why, wn, EN(RW_BLAS_ELEM_TYPES),
                 c->line, ta, tb, tc);
        return false;
    }
    if (!strcmp(c->out, c->in[0]) || !strcmp(c->out, c->in[1])) {
        snprintf(why, wn, EN(RW_BLAS_READ_AND_WRITTEN), c->line, c->out);
        return false;
    }
    if (two) {
        const char *t2 = elem_type(k, c->in[2]), *t3 = elem_type(k, c->in[3]);
        if (!t2 || !t3) {
            snprintf(why, wn, EN(RW_BLAS_OPERAND_NOT_PARAM), c->line);
            return false;
        }
        if (strcmp(tc, t2) || strcmp(tc, t3)) {
            snprintf(why, wn, EN(RW_BLAS_ELEM_TYPES), c->line, t2, t3, tc);
            return false;
        }
        snprintf(g->a2, sizeof g->a2, "%s", c->in[2]);
        snprintf(g->x2, sizeof g->x2, "%s", c->in[3]);
    }
    g->dbl = !strcmp(tc, "double");
    snprintf(g->a, sizeof g->a, "%s", c->in[0]);
    snprintf(g->b, sizeof g->b, "%s", c->in[1]);
    snprintf(g->c, sizeof g->c, "%s", c->out);
    return true;
}

/* Is every sum that enters C's write w (GEMM or GEMV) added to once per iteration of its
 * loop, under no condition but those in force at w? The class reads a sum from its first
 * update's operand alone: a second update (t += A x; t += B x), or one under an `if`
 * inside the loop (if (j < n / 2) t += B x), is a sum the library call would compute as
 * another (session 48's second sum, and the first sum of a GEMV or GEMM alike). A tiled
 * GEMM's global reads fill its tiles outside the sum's loop and are not looked at. false
 * (why) otherwise. */
static bool sums_whole(const km_kernel *k, const km_class *c, const km_access *w, char *why, size_t wn)
{
    size_t na, nacc, nac;
    const km_atom *atoms = km_atoms(k, &na);
    const km_accumulator *accs = km_accumulators(k, &nacc);
    const km_access *as = km_accesses(k, &nac);
    for (uint32_t i = 0; i < w->element_value.n; i++)
        for (uint32_t j = 0; j < w->element_value.t[i].n; j++) {
            const km_atom *a = &atoms[w->element_value.t[i].atoms[j]];
            if (a->kind != KM_ATOM_ACC || a->loop < 0 || (size_t)a->loop >= nacc)
                continue;
            const km_accumulator *acc = &accs[a->loop];
            if (acc->n_updates != 1) {
                snprintf(why, wn, EN(RW_BLAS_SUM_UPDATES), acc->line, acc->name ? acc->name : "?",
                         acc->n_updates);
                return false;
            }
            /* the reads of the class's inputs inside the sum's loop: no guard beyond w's */
            for (size_t r = 0; r < nac; r++) {
                const km_access *rd = &as[r];
                bool input = false, inside = false;
                for (uint32_t q = 0; q < c->n_in && q < 4; q++)
                    input = input || (c->in[q] && !strcmp(rd->buffer, c->in[q]));
                for (uint32_t l = 0; l < rd->n_loops; l++)
                    inside = inside || (long)rd->loops[l] == acc->loop;
                if (rd->mode != KM_READ || !input || !inside)
                    continue;
                for (uint32_t g = 0; g < rd->n_guards; g++) {
                    bool at_w = false;
                    for (uint32_t h = 0; h < w->n_guards; h++)
                        at_w = at_w || w->guards[h] == rd->guards[g];
                    if (!at_w) {
                        snprintf(why, wn, EN(RW_BLAS_SUM_GUARDED), rd->line, rd->buffer,
                                 acc->name ? acc->name : "?");
                        return false;
                    }
                }
            }
        }
    return true;
}

/* The kernel's products' outputs: at most BLAS_CALLS_MAX buffers a GEMV kernel writes,
 * one library call each (mvt: x1 = A y1 and x2 = A^T y2 in one loop) */
#define BLAS_CALLS_MAX 4

/* Fills g from class c of model k (the product into c->out; outs[0..n_outs) all the
 * kernel's products' outputs) when it is a GEMM or GEMV the library computes; false with
 * the construct and line in why otherwise. */
static bool product_call(const km_kernel *k, const km_class *cp, const char *const *outs, size_t n_outs,
                         blas_call *g, char *why, size_t wn)
{
    km_class c = *cp;
    memset(g, 0, sizeof *g);
    g->kind = c.kind == KM_CLASS_GEMV ? RWP_BLAS_GEMV : RWP_BLAS_GEMM;
    if (c.batched) {
        snprintf(why, wn, EN(RW_BLAS_BATCHED), c.line,
                 km_class_name(c.kind));
        return false;
    }
    const km_access *w, *scale, *ep;
    if (!class_buffers(k, &c, g, why, wn) || !class_sizes(k, &c, g, why, wn) ||
        !(w = single_write(k, &c, outs, n_outs, &scale, &ep, why, wn)) || !guards_cover(k, &c, w, why, wn) ||
        (scale && !guards_cover(k, &c, scale, why, wn)) || (ep && !guards_cover(k, &c, ep, why, wn)) ||
        !scalars_of(k, w, scale, c.n_in == 4 ? c.in : NULL, g, why, wn) || !sums_whole(k, &c, w, why, wn) ||
        (ep && !epilogue_of(k, w, ep, g, why, wn)))
        return false;
    if (ep && c.kind != KM_CLASS_GEMV) {
        /* a GEMM's C is a matrix with its leading dimension: no one axpy adds v to it */
        snprintf(why, wn, EN(RW_BLAS_WRITTEN_TWICE), ep->line, c.out, w->line);
        return false;
    }
    if (ep) {
        const char *tv = elem_type(k, g->ep_v), *tc = elem_type(k, c.out);
        if (!tv || !tc || strcmp(tv, tc)) {
            snprintf(why, wn, EN(RW_BLAS_ELEM_TYPES), ep->line, tv ? tv : "?", tc ? tc : "?", tc ? tc : "?");
            return false;
        }
    }
    for (int a = 0; a < 3 && c.tiles_seen; a++) {
        char bad[160] = "";
        if (c.tile_block[a].known &&
            !host_form(k, km_cform_view(&c.tile_block[a]), g->tile[a], RWP_EXPR, bad, sizeof bad)) {
            snprintf(why, wn, EN(RW_BLAS_TILE_EXTENT),
                     c.line, "xyz"[a], bad);
            return false;
        }
    }
    if (c.tiles_seen && !g->from_launch) {
        /* the block check needs the launch: a tiled kernel whose sizes it bounds itself */
        snprintf(why, wn, EN(RW_BLAS_TILED_BOUNDED),
                 c.line);
        return false;
    }
    g->col_major = c.col_major;
    g->trans_a = c.kind == KM_CLASS_GEMV ? !c.by_columns : c.trans_a;
    g->trans_b = c.trans_b;
    snprintf(g->batch, sizeof g->batch, "1");
    return true;
}

/* The line of the first write of buffer name, 0 when none. */
static uint32_t write_line(const km_kernel *k, const char *name)
{
    size_t n;
    const km_access *as = km_accesses(k, &n);
    for (size_t i = 0; i < n; i++)
        if (as[i].mode != KM_READ && !strcmp(as[i].buffer, name))
            return as[i].line;
    return 0;
}

/* Does call g read buffer name (an operand, the second sum's, the epilogue's vector)? */
static bool call_reads(const blas_call *g, const char *name)
{
    return !strcmp(g->a, name) || !strcmp(g->b, name) || (g->a2[0] && !strcmp(g->a2, name)) ||
           (g->x2[0] && !strcmp(g->x2, name)) || (g->ep_v[0] && !strcmp(g->ep_v, name));
}

/* Fills gs[0..*ng) from the class of model k when it is a GEMM, or GEMVs (one per output
 * buffer, each its own product: mvt), the library computes; false with the construct and
 * line in why otherwise (why empty: not such a class). The calls run one after the other
 * where the kernel's threads compute the products together: no call may read another's
 * output, and every GEMV runs over the first one's rows (the kernel's threads). */
static bool class_call(const km_kernel *k, blas_call *gs, size_t *ng, char *why, size_t wn)
{
    km_class c;
    why[0] = '\0';
    *ng = 0;
    if (km_classify(k, &c))
        return false;
    if (c.kind != KM_CLASS_GEMM && c.kind != KM_CLASS_GEMV) {
        if (c.near == KM_CLASS_GEMM || c.near == KM_CLASS_GEMV)
            snprintf(why, wn, EN(RW_BLAS_NOT_QUITE), c.why_line, km_class_name(c.near), c.why);
        return false;
    }
    /* the outputs: the class's first, then each other buffer written (a GEMV's only) */
    const char *outs[BLAS_CALLS_MAX] = {c.out};
    size_t n_outs = 1, na;
    const km_access *as = km_accesses(k, &na);
    for (size_t i = 0; i < na && c.kind == KM_CLASS_GEMV; i++) {
        if (as[i].mode == KM_READ || as[i].space != KM_SPACE_GLOBAL || as[i].atomic ||
            among(as[i].buffer, outs, n_outs))
            continue;
        if (n_outs == BLAS_CALLS_MAX)
            break;   /* single_write names it */
        outs[n_outs++] = as[i].buffer;
    }
    if (!product_call(k, &c, outs, n_outs, &gs[0], why, wn))
        return false;
    for (size_t o = 1; o < n_outs; o++) {
        km_class c2;
        if (km_classify_product(k, outs[o], &c2))
            return false;
        if (c2.kind != KM_CLASS_GEMV) {
            snprintf(why, wn, EN(RW_BLAS_ALSO_WRITES), write_line(k, outs[o]), outs[o]);
            return false;
        }
        if (!product_call(k, &c2, outs, n_outs, &gs[o], why, wn))
            return false;
        if (strcmp(gs[o].m, gs[0].m) || gs[o].from_launch != gs[0].from_launch || gs[o].dbl != gs[0].dbl) {
            snprintf(why, wn, EN(RW_BLAS_ROWS_DIFFER), c2.line, outs[o], gs[o].m, outs[0], gs[0].m);
            return false;
        }
    }
    for (size_t i = 0; i < n_outs; i++)
        for (size_t j = 0; j < n_outs; j++)
            if (i != j && call_reads(&gs[i], outs[j])) {
                snprintf(why, wn, EN(RW_BLAS_OUTPUT_READ), write_line(k, outs[j]), outs[j], outs[i],
                         write_line(k, outs[i]));
                return false;
            }
    *ng = n_outs;
    return true;
}

/* The call from the textual matcher's view (row-major, no transposes). */
static void call_from_match(const rwp_blas *p, blas_call *g)
{
    memset(g, 0, sizeof *g);
    g->kind = p->kind;
    g->dbl = !strcmp(p->type, "double");
    snprintf(g->a, sizeof g->a, "%s", p->a->name);
    snprintf(g->b, sizeof g->b, "%s", p->b->name);
    snprintf(g->c, sizeof g->c, "%s", p->c->name);
    g->trans_a = p->kind == RWP_BLAS_GEMV;
    snprintf(g->m, sizeof g->m, "%s", p->m);
    snprintf(g->n, sizeof g->n, "%s", p->n);
    snprintf(g->k, sizeof g->k, "%s", p->kind == RWP_BLAS_GEMV ? "0" : p->k);
    snprintf(g->batch, sizeof g->batch, "%s", p->batch[0] ? p->batch : "1");
    snprintf(g->lda, sizeof g->lda, "%s", p->lda);
    snprintf(g->ldb, sizeof g->ldb, "%s", p->kind == RWP_BLAS_GEMV ? "1" : p->ldb);
    snprintf(g->ldc, sizeof g->ldc, "%s", p->kind == RWP_BLAS_GEMV ? "1" : p->ldc);
    snprintf(g->stride_a, sizeof g->stride_a, "%s", p->stride_a[0] ? p->stride_a : "0");
    snprintf(g->stride_b, sizeof g->stride_b, "%s", p->stride_b[0] ? p->stride_b : "0");
    snprintf(g->stride_c, sizeof g->stride_c, "%s", p->stride_c[0] ? p->stride_c : "0");
    snprintf(g->alpha, sizeof g->alpha, "%s", p->alpha);
    snprintf(g->beta, sizeof g->beta, "%s", p->beta);
}

/* The model path: builds the kernel's model and reads the call from its class. */
static int model_call(const char *text, size_t len, const an_function *f, blas_call *g, size_t *ng, bool *ok,
                      char *why, size_t wn)
{
    km_kernel *k = NULL;
    *ok = false;
    *ng = 0;
    why[0] = '\0';
    int rc = km_build(text, len, f->name, &k, NULL, 0);
    if (rc == HK_ENOMEM)
        return rc;
    if (!rc)
        *ok = class_call(k, g, ng, why, wn);
    km_free(k);
    if (*ok) {
        /* the model reads a loop as counted from its header: a break, continue or goto in
         * the body ends or skips part of a sum the library would compute whole */
        rw_toks ts = {0};
        if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
            rwl_toks_free(&ts);
            *ok = false;
            return rc == HK_ENOMEM ? rc : HK_OK;
        }
        for (size_t i = 0; i < ts.n && *ok; i++)
            if (rwl_tok_is_ident(&ts, i, "break") || rwl_tok_is_ident(&ts, i, "continue") ||
                rwl_tok_is_ident(&ts, i, "goto")) {
                uint32_t line = 1;
                for (uint32_t q = 0; q < ts.t[i].start && q < len; q++)
                    line += text[q] == '\n';
                snprintf(why, wn, EN(RW_BLAS_JUMP), line, (int)(ts.t[i].end - ts.t[i].start), text + ts.t[i].start);
                *ok = false;
            }
        rwl_toks_free(&ts);
    }
    return HK_OK;
}

int rw_blas_substitution(const char *text, size_t len, const an_model *m, size_t kernel, int math, bool hip,
                         rw_result *r)
{
    memset(r, 0, sizeof *r);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (math != 0 && math != 1)
        return HK_EINVAL;
    blas_call gs[BLAS_CALLS_MAX], *g = &gs[0];
    size_t ng = 1;
    rwp_blas p;
    char why[2048], mwhy[512], bad[128];
    const char *reason = NULL;
    rw_edits es = {0};
    struct hk_buf b;
    bool by_class;
    hk_buf_init(&b, BLAS_BLOCK_MAX);
    if (hip && math == 1) {
        reason = EN(RW_BLAS_TF32_HIP);
        goto na;
    }
    /* the kernel model's class first; the textual matcher for what the class leaves out
     * (a batched GEMM's count); the class's reason when both refuse and it saw a GEMM */
    if ((rc = model_call(text, len, f, gs, &ng, &by_class, mwhy, sizeof mwhy)))
        goto out;
    if (!by_class) {
        if ((rc = rwp_match_blas(text, len, m, kernel, &p, why, sizeof why)))
            goto out;
        if (why[0]) {
            reason = mwhy[0] ? mwhy : why;
            goto na;
        }
        call_from_match(&p, g);
        ng = 1;
    }
    if (g->dbl && math == 1) {
        reason = EN(RW_BLAS_TF32_DOUBLE);
        goto na;
    }
    for (size_t c = 0; c < ng; c++) {
        const blas_call *gc = &gs[c];
        const char *exprs[][2] = {{"M", gc->m}, {"N", gc->n}, {"K", gc->k}, {"batch", gc->batch}, {"lda", gc->lda},
                                  {"ldb", gc->ldb}, {"ldc", gc->ldc}, {"A's batch stride", gc->stride_a},
                                  {"B's batch stride", gc->stride_b}, {"C's batch stride", gc->stride_c},
                                  {"alpha", gc->alpha}, {"beta", gc->beta},
                                  {"alpha2", gc->alpha2}, {"the epilogue's s", gc->ep_alpha}};
        for (size_t i = 0; i < HK_ARRAY_LEN(exprs); i++)
            if (!(gc->from_launch && i < 2 && !strncmp(exprs[i][1], LAUNCH_EXTENT, strlen(LAUNCH_EXTENT))) &&
                host_unusable(m, f, exprs[i][1], bad, sizeof bad)) {
                snprintf(why, sizeof why, EN(RW_BLAS_HOST_CANNOT), exprs[i][0], exprs[i][1], bad);
                reason = why;
                goto na;
            }
    }
    char mac[160];
    snprintf(mac, sizeof mac, "HK_HOST_CALL_%s", f->name);
    if (strstr(text, mac)) {
        reason = EN(RW_BLAS_ALREADY);
        goto na;
    }
    /* the launch sites: hk_host_k(args) replaces k<<<grid, block>>>(args) */
    size_t n_sites = 0;
    for (size_t i = 0; i < m->n_launches; i++) {
        const an_launch *l = &m->launches[i];
        if (!l->kernel || strcmp(last_part(l->kernel), f->name) != 0)
            continue;
        if (l->form == AN_LAUNCH_CUDA_API) {
            reason = EN(RW_BLAS_LAUNCH_KERNEL);
            goto na;
        }
        if (g->from_launch && (!l->grid || !l->block)) {
            reason = EN(RW_BLAS_NO_GRID);
            goto na;
        }
        if (l->n_args != f->n_params || !l->template_args != !f->template_params) {
            reason = EN(RW_BLAS_ARG_COUNT);
            goto na;
        }
        if (!default_stream(l->stream)) {
            snprintf(why, sizeof why, EN(RW_BLAS_STREAM), l->stream);
            reason = why;
            goto na;
        }
        if (l->span.start_byte < f->span.end_byte) {
            reason = EN(RW_BLAS_BEFORE_DEF);
            goto na;
        }
        struct hk_buf call;
        hk_buf_init(&call, BLAS_BLOCK_MAX);
        rc = hk_buf_printf(&call, "hk_host_%s%s(", f->name, l->template_args ? l->template_args : "");
        if (!rc && g->from_launch)
            rc = hk_buf_printf(&call, "dim3(%s), dim3(%s)%s", l->grid, l->block, l->n_args ? ", " : "");
        for (size_t a = 0; a < l->n_args && !rc; a++)
            rc = hk_buf_printf(&call, "%s%s", a ? ", " : "", l->args[a]);
        if (!rc)
            rc = hk_buf_appends(&call, ")");
        if (!rc)
            rc = rwl_edits_add_owned(&es, l->span.start_byte, l->span.end_byte, hk_buf_steal(&call));
        hk_buf_free(&call);
        if (rc)
            goto out;
        n_sites++;
    }
    /* the header at the top (outside any namespace the kernel may be in), the host
     * function right after the kernel */
    if ((rc = rwl_edits_add(&es, 0, 0,
                            hip ? "#include <stdio.h>\n#include <hipblas/hipblas.h>\n"
                                : "#include <stdio.h>\n#include <cublas_v2.h>\n")))
        goto out;
    if ((rc = hk_buf_appends(&b, "\n\n")) || (rc = host_function(&b, text, f, gs, ng, math, hip)))
        goto out;
    if ((rc = rwl_edits_add_owned(&es, f->span.end_byte, f->span.end_byte, hk_buf_steal(&b))))
        goto out;
    const blas_names *nm = &names[hip][g->dbl];
    const char *call = g->kind == RWP_BLAS_GEMV ? nm->gemv : g->kind == RWP_BLAS_GEMM ? nm->gemm : nm->gemm_batched;
    const char *layout = g->kind == RWP_BLAS_GEMV ? (g->trans_a ? "row-major A as op T" : "column-major A as op N")
                         : g->col_major ? "column-major C = op(A) op(B)" : "row-major C^T = op(B)^T op(A)^T";
    /* one sentence per plural of the launch sites, with or without the class and the launch's sizes */
    static const enum hk_msg dm[2][2][2] = {
        {{HK_MSG_RW_BLAS_DESC_1, HK_MSG_RW_BLAS_DESC_1_G}, {HK_MSG_RW_BLAS_DESC_1_C, HK_MSG_RW_BLAS_DESC_1_CG}},
        {{HK_MSG_RW_BLAS_DESC_S, HK_MSG_RW_BLAS_DESC_S_G}, {HK_MSG_RW_BLAS_DESC_S_C, HK_MSG_RW_BLAS_DESC_S_CG}},
    };
    char *desc = hk_asprintf(hk_tr_in(HK_LANG_EN, dm[n_sites != 1][by_class != 0][g->from_launch != 0]),
                             f->name, call, hip ? "FP32" : g->dbl ? "FP64" : math ? "TF32 tensor-core" : "FP32",
                             g->a, g->b, layout, f->name, n_sites, f->name, hip ? "-lhipblas" : "-lcublas");
    rc = rwl_finish(text, len, m, f->name, &es, desc, r);
    goto out;
na:
    rc = rwl_not_applicable(r, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), BLAS_NAME, f->name, reason));
out:
    rwl_edits_free(&es);
    hk_buf_free(&b);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static const rw_param blas_substitution_params[] = {
    {.name = "math", .type = RW_PARAM_ENUM, .values = {0, 1}, .n_values = 2, .def = 0},
};

static int emit_blas_substitution(const rw_context *c, const int *p, rw_result *out)
{
    return rw_blas_substitution(c->text, c->len, c->m, c->kernel, p[0], c->hip, out);
}

const rw_descriptor rw_blas_substitution_desc = {
    .name = "blas_substitution",
    .summary = "a naive SGEMM/SGEMV becomes a cuBLAS/hipBLAS call (math: 0 FP32, 1 TF32)", /* i18n: not for people */
    .params = blas_substitution_params,
    .n_params = HK_ARRAY_LEN(blas_substitution_params),
    .flags = RW_ALGORITHM | RW_LIBRARY_CALL,
    .emit = emit_blas_substitution,
};

