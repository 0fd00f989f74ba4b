/* Library substitution (rewrite.h rw_blas_substitution): a naive SGEMM, strided batched
 * SGEMM or SGEMV that rwp_match_blas proved row-major becomes a host function calling
 * cuBLAS (hipBLAS), which the benchmark program's host-call mode and the file's own
 * launch sites call instead of launching the kernel. The kernel itself stays, unused. */
#include "rewrites/rewrite.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_pattern.h"

#include "core/buf.h"
#include "core/hk.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define BLAS_NAME "BLAS substitution"
/* the host block is a few dozen lines; parameters and expressions are capped by the
 * analysis and RWP_EXPR */
#define BLAS_BLOCK_MAX (64u * 1024u)

/* Is identifier name (len l) usable in the host function: a scalar parameter of f, or a
 * file-scope #define / constant (a tunable no function owns)? */
static bool host_visible(const an_model *m, const an_function *f, const char *name, size_t l)
{
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
    "#ifndef HK_BLAS_HANDLE\n"
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
    "#ifndef HK_BLAS_HANDLE\n"
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
    const char *handle_t, *status_t, *ok, *op_n, *op_t, *gemm, *gemm_batched, *gemv, *scal, *lib;
} blas_names;

static const blas_names cuda_names = {"cublasHandle_t", "cublasStatus_t", "CUBLAS_STATUS_SUCCESS", "CUBLAS_OP_N",
                                      "CUBLAS_OP_T", "cublasSgemm", "cublasSgemmStridedBatched", "cublasSgemv",
                                      "cublasSscal", "cuBLAS"};
static const blas_names hip_names = {"hipblasHandle_t", "hipblasStatus_t", "HIPBLAS_STATUS_SUCCESS", "HIPBLAS_OP_N",
                                     "HIPBLAS_OP_T", "hipblasSgemm", "hipblasSgemmStridedBatched", "hipblasSgemv",
                                     "hipblasSscal", "hipBLAS"};

/* Appends the host function for kernel f (matched as g) to b. */
static int host_function(struct hk_buf *b, const char *text, const an_function *f, const rwp_blas *g, int math,
                         bool hip)
{
    const blas_names *nm = hip ? &hip_names : &cuda_names;
    const char *k = f->name;
    uint32_t ps = f->params[0].span.start_byte, pe = f->params[f->n_params - 1].span.end_byte;
    int rc = hk_buf_appends(b, hip ? blas_handle_hip : blas_handle_cuda);
    if (!rc)
        rc = hk_buf_printf(b,
                           "// hk rewrite: blas_substitution -- %s computes what kernel %s computed; the\n"
                           "// benchmark program (HK_HOST_CALL_%s) and this file's launch sites call\n"
                           "// hk_host_%s with the kernel's arguments. The kernel above is kept, unused, as\n"
                           "// the reference the substitution was proved against.\n"
                           "#define HK_HOST_CALL_%s 1\n"
                           "static void hk_host_%s(%.*s)\n"
                           "{\n"
                           "    %s hk_h = hk_blas_handle();\n"
                           "    if (!hk_h)\n"
                           "        return;\n",
                           g->kind == RWP_BLAS_GEMV ? nm->gemv
                           : g->kind == RWP_BLAS_GEMM ? nm->gemm : nm->gemm_batched,
                           k, k, k, k, k, (int)(pe - ps), text + ps, nm->handle_t);
    if (!rc && !hip)
        rc = hk_buf_printf(b, "    cublasSetMathMode(hk_h, %s);\n",
                           math ? "CUBLAS_TF32_TENSOR_OP_MATH" : "CUBLAS_DEFAULT_MATH");
    if (!rc)
        rc = hk_buf_printf(b,
                           "    const float hk_alpha = (float)(%s), hk_beta = (float)(%s);\n"
                           "    const long long hk_m = (long long)(%s), hk_n = (long long)(%s);\n"
                           "    %s hk_st;\n",
                           g->alpha, g->beta, g->m, g->n, nm->status_t);
    if (rc)
        return rc;
    if (g->kind == RWP_BLAS_GEMV) {
        /* row-major A (M x N, lda) is column-major A^T (N x M): y = op_T(A^T) x */
        rc = hk_buf_printf(b,
                           "    if (hk_m <= 0)\n"
                           "        return;                        // no row: the kernel writes nothing\n"
                           "    if (hk_n <= 0 && hk_beta == 0.0f) { // empty rows: y = 0 (scaling would keep a NaN)\n"
                           "        hk_st = %s(%s, 0, (size_t)hk_m * sizeof(float), 0) == 0 ? %s : %s;\n"
                           "    } else if (hk_n <= 0) {            // empty rows: y = beta * y\n"
                           "        hk_st = %s(hk_h, (int)hk_m, &hk_beta, %s, 1);\n"
                           "    } else {\n"
                           "        // row-major A (M x N) is the column-major N x M matrix A^T: y = (A^T)^T x\n"
                           "        hk_st = %s(hk_h, %s, (int)hk_n, (int)hk_m, &hk_alpha, %s, (int)(%s), %s, 1,\n"
                           "                   &hk_beta, %s, 1);\n"
                           "    }\n",
                           hip ? "hipMemsetAsync" : "cudaMemsetAsync", g->c->name, nm->ok,
                           hip ? "HIPBLAS_STATUS_EXECUTION_FAILED" : "CUBLAS_STATUS_EXECUTION_FAILED",
                           nm->scal, g->c->name, nm->gemv, nm->op_t, g->a->name, g->lda, g->b->name, g->c->name);
    } else {
        rc = hk_buf_printf(b,
                           "    const long long hk_k = (long long)(%s);\n"
                           "    if (hk_m <= 0 || hk_n <= 0)\n"
                           "        return;                        // no output: the kernel writes nothing\n"
                           "    // row-major C = A * B is column-major C^T = B^T * A^T: B first, m and n swapped\n",
                           g->k);
        if (!rc && g->kind == RWP_BLAS_GEMM)
            rc = hk_buf_printf(b,
                               "    hk_st = %s(hk_h, %s, %s, (int)hk_n, (int)hk_m, (int)(hk_k > 0 ? hk_k : 0), &hk_alpha,\n"
                               "                   %s, (int)(%s), %s, (int)(%s), &hk_beta, %s, (int)(%s));\n",
                               nm->gemm, nm->op_n, nm->op_n, g->b->name, g->ldb, g->a->name, g->lda, g->c->name,
                               g->ldc);
        else if (!rc)
            rc = hk_buf_printf(b,
                               "    const long long hk_batch = (long long)(%s);\n"
                               "    if (hk_batch <= 0)\n"
                               "        return;\n"
                               "    hk_st = %s(hk_h, %s, %s, (int)hk_n, (int)hk_m, (int)(hk_k > 0 ? hk_k : 0),\n"
                               "                   &hk_alpha, %s, (int)(%s), (long long)(%s), %s, (int)(%s),\n"
                               "                   (long long)(%s), &hk_beta, %s, (int)(%s), (long long)(%s),\n"
                               "                   (int)hk_batch);\n",
                               g->batch, nm->gemm_batched, nm->op_n, nm->op_n, g->b->name, g->ldb, g->stride_b,
                               g->a->name, g->lda, g->stride_a, g->c->name, g->ldc, g->stride_c);
    }
    if (!rc)
        rc = hk_buf_printf(b,
                           "    if (hk_st != %s)\n"
                           "        fprintf(stderr, \"hk: %s call for kernel %s failed: status %%d\\n\", (int)hk_st);\n"
                           "}\n",
                           nm->ok, nm->lib, k);
    return rc;
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
    rwp_blas g;
    char why[2048], bad[128];
    const char *reason = NULL;
    rw_edits es = {0};
    struct hk_buf b;
    hk_buf_init(&b, BLAS_BLOCK_MAX);
    if (hip && math == 1) {
        reason = "TF32 math is a cuBLAS mode; the hipBLAS substitution is FP32 only";
        goto na;
    }
    if (f->template_params) {
        reason = "a template kernel (the host function would need its template arguments)";
        goto na;
    }
    if ((rc = rwp_match_blas(text, len, m, kernel, &g, why, sizeof why)))
        goto out;
    if (why[0]) {
        reason = why;
        goto na;
    }
    if (strcmp(g.type, "float") != 0) {
        snprintf(why, sizeof why, "element type %s: only float (S%s) is substituted", g.type,
                 g.kind == RWP_BLAS_GEMV ? "GEMV" : "GEMM");
        reason = why;
        goto na;
    }
    {
        const char *exprs[][2] = {{"M", g.m}, {"N", g.n}, {"K", g.k}, {"batch", g.batch}, {"lda", g.lda},
                                  {"ldb", g.ldb}, {"ldc", g.ldc}, {"A's batch stride", g.stride_a},
                                  {"B's batch stride", g.stride_b}, {"C's batch stride", g.stride_c},
                                  {"alpha", g.alpha}, {"beta", g.beta}};
        for (size_t i = 0; i < HK_ARRAY_LEN(exprs); i++)
            if (host_unusable(m, f, exprs[i][1], bad, sizeof bad)) {
                snprintf(why, sizeof why, "%s (%s) uses %s, which is neither a scalar parameter nor a file-scope "
                         "constant, so the host call cannot compute it", exprs[i][0], exprs[i][1], bad);
                reason = why;
                goto na;
            }
    }
    char mac[160];
    snprintf(mac, sizeof mac, "HK_HOST_CALL_%s", f->name);
    if (strstr(text, mac)) {
        reason = "the file already substitutes this kernel (it defines HK_HOST_CALL_ for it)";
        goto na;
    }
    /* the launch sites: hk_host_k(args) replaces k<<<grid, block>>>(args) */
    size_t n_sites = 0;
    for (size_t i = 0; i < m->n_launches; i++) {
        const an_launch *l = &m->launches[i];
        if (!l->kernel || strcmp(last_part(l->kernel), f->name) != 0)
            continue;
        if (l->form == AN_LAUNCH_CUDA_API) {
            reason = "a launch through cudaLaunchKernel (its argument array cannot become a call)";
            goto na;
        }
        if (l->template_args || l->n_args != f->n_params) {
            reason = "a launch site passes template arguments or a different number of arguments";
            goto na;
        }
        if (!default_stream(l->stream)) {
            snprintf(why, sizeof why, "a launch site runs on stream %s; the library call runs on the legacy "
                     "default stream", l->stream);
            reason = why;
            goto na;
        }
        if (l->span.start_byte < f->span.end_byte) {
            reason = "a launch site comes before the kernel's definition, where the host function is not "
                     "declared yet";
            goto na;
        }
        struct hk_buf call;
        hk_buf_init(&call, BLAS_BLOCK_MAX);
        rc = hk_buf_printf(&call, "hk_host_%s(", f->name);
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
    if ((rc = hk_buf_appends(&b, "\n\n")) || (rc = host_function(&b, text, f, &g, math, hip)))
        goto out;
    if ((rc = rwl_edits_add_owned(&es, f->span.end_byte, f->span.end_byte, hk_buf_steal(&b))))
        goto out;
    const char *call = g.kind == RWP_BLAS_GEMV ? (hip ? hip_names.gemv : cuda_names.gemv)
                       : g.kind == RWP_BLAS_GEMM ? (hip ? hip_names.gemm : cuda_names.gemm)
                                                 : (hip ? hip_names.gemm_batched : cuda_names.gemm_batched);
    char *desc = hk_asprintf("kernel %s: %s (%s math) on %s (%s), %s; hk_host_%s called by %zu launch site%s and by "
                             "the benchmark program (HK_HOST_CALL_%s); the kernel is kept unused; link with %s",
                             f->name, call, hip ? "FP32" : math ? "TF32 tensor-core" : "FP32",
                             g.a->name, g.b->name,
                             g.kind == RWP_BLAS_GEMV ? "row-major A as op T" : "row-major C^T = B^T A^T",
                             f->name, n_sites, n_sites == 1 ? "" : "s", f->name, hip ? "-lhipblas" : "-lcublas");
    rc = rwl_finish(text, len, m, f->name, &es, desc, r);
    goto out;
na:
    rc = rwl_not_applicable(r, hk_asprintf(BLAS_NAME " not applicable to kernel %s: %s", f->name, reason));
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
    .summary = "a naive SGEMM/SGEMV becomes a cuBLAS/hipBLAS call (math: 0 FP32, 1 TF32)",
    .params = blas_substitution_params,
    .n_params = HK_ARRAY_LEN(blas_substitution_params),
    .flags = RW_ALGORITHM | RW_LIBRARY_CALL,
    .emit = emit_blas_substitution,
};

