/* tiled_gemm (rewrite_pattern.h): the naive GEMM loop (rwp_match_gemm_loop) becomes a
 * shared-memory tiled GEMM with register blocking. */
#include "rewrites/rewrite_pattern.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_recognize.h"
#include "rewrites/rewrite_lex.h"

#include "model/kclass.h"
#include "model/kmodel.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Fetches the k slice starting at K0 of the A and B tiles into registers hk_ra / hk_rb
 * (zero outside the matrices); consecutive threads read consecutive addresses: element
 * hk_e of a tile is at row $FAR, k $FAK of A's tile ($FAI the index of A's element hk_gr,
 * hk_gk), at k $FBK, column $FBC of B's ($FBI), each pair chosen by the operand's layout
 * (A[row * lda + k] or, transposed, A[k * lda + row]; B[k * ldb + col] or B[col * ldb + k]).
 * IND: the indentation of the generated lines. */
#define PT_GEMM_FETCH(IND, K0)                                                                       \
    IND "#pragma unroll\n"                                                           \
    IND "for (int hk_l = 0; hk_l < HK_LA; hk_l++) {\n"                               \
    IND "    const int hk_e = hk_tid + hk_l * HK_THREADS;\n"                         \
    IND "    const long long hk_gr = hk_row0 + $FAR, hk_gk = (" K0 ") + $FAK;\n" /* i18n: not for people */ \
    IND "    hk_ra[hk_l] = (hk_gr < hk_m && hk_gk < hk_k) ? $A[$FAI] : ($T)0;\n" \
    IND "}\n"                                                                        \
    IND "#pragma unroll\n"                                                           \
    IND "for (int hk_l = 0; hk_l < HK_LB; hk_l++) {\n"                               \
    IND "    const int hk_e = hk_tid + hk_l * HK_THREADS;\n"                         \
    IND "    const long long hk_gk = (" K0 ") + $FBK, hk_gc = hk_col0 + $FBC;\n" /* i18n: not for people */ \
    IND "    hk_rb[hk_l] = (hk_gk < hk_k && hk_gc < hk_n) ? $B[$FBI] : ($T)0;\n" \
    IND "}\n"

static const char tpl_gemm[] =
    "{\n" /* i18n: not for people */
    "    // hk rewrite: shared-memory tiled GEMM with register blocking. A block of HK_THREADS\n"
    "    // threads walks output tiles HK_BM x HK_BN (grid-stride); each thread computes\n"
    "    // HK_TM x HK_TN outputs from HK_BK-deep slices of A and B staged in shared memory\n"
    "    // (zero-padded at the edges). Other block sizes take the simple path at the end.\n"
    "    constexpr int HK_BM = $BM;\n"
    "    constexpr int HK_BN = $BN;\n"
    "    constexpr int HK_BK = $BK;\n"
    "    constexpr int HK_TM = HK_BM / 16;\n"
    "    constexpr int HK_TN = HK_BN / 16;\n"
    "    constexpr int HK_THREADS = (HK_BM / HK_TM) * (HK_BN / HK_TN);\n"
    "    constexpr int HK_LA = HK_BM * HK_BK / HK_THREADS;\n"
    "    constexpr int HK_LB = HK_BK * HK_BN / HK_THREADS;\n"
    "    // thread t owns rows t*TM/2 .. +TM/2-1 in each half of the tile (likewise columns):\n"
    "    // its shared reads are contiguous runs (vector loads), a quarter-warp's runs are\n"
    "    // adjacent (no bank conflicts), and its outputs are coalesced runs.\n"
    "#define TG_ROW_OF(t, i) ((t) * (HK_TM / 2) + (i) % (HK_TM / 2) + (i) / (HK_TM / 2) * (HK_BM / 2))\n"
    "#define TG_COL_OF(t, j) ((t) * (HK_TN / 2) + (j) % (HK_TN / 2) + (j) / (HK_TN / 2) * (HK_BN / 2))\n"
    PT_THREADS
    "    const long long hk_m = ($M), hk_n = ($N), hk_k = ($K);\n" /* i18n: not for people */
    "    const long long hk_block = blockIdx.x + (long long)gridDim.x * (blockIdx.y + (long long)gridDim.y * blockIdx.z);\n"
    "    const long long hk_blocks = (long long)gridDim.x * gridDim.y * gridDim.z;\n"
    "$ZDECL"
    "    if (hk_nthreads == HK_THREADS) {\n"
    "        // $V storage: rows of the tiles start 16-byte aligned, for vector reads\n"
    "        __shared__ $V hk_as_v[HK_BK * (HK_BM + 4) / $VW];\n"
    "        __shared__ $V hk_bs_v[HK_BK * (HK_BN + 4) / $VW];\n"
    "        $T (*hk_as)[HK_BM + 4] = reinterpret_cast<$T (*)[HK_BM + 4]>(hk_as_v);\n"
    "        $T (*hk_bs)[HK_BN + 4] = reinterpret_cast<$T (*)[HK_BN + 4]>(hk_bs_v);\n"
    "        const int hk_tx = hk_tid % (HK_BN / HK_TN), hk_ty = hk_tid / (HK_BN / HK_TN);\n"
    "        const long long hk_tiles_n = (hk_n + HK_BN - 1) / HK_BN;\n"
    "        const long long hk_tiles = hk_tiles_n * ((hk_m + HK_BM - 1) / HK_BM)$ZMUL;\n"
    "        for (long long hk_t = hk_block; hk_t < hk_tiles; hk_t += hk_blocks) {\n"
    "            const long long hk_row0 = (hk_t / hk_tiles_n$ZROWT) * HK_BM, hk_col0 = (hk_t % hk_tiles_n) * HK_BN;\n"
    "$ZSELT"
    "            $T hk_acc[HK_TM][HK_TN];\n"
    "            #pragma unroll\n"
    "            for (int hk_i = 0; hk_i < HK_TM; hk_i++) {\n"
    "                #pragma unroll\n"
    "                for (int hk_j = 0; hk_j < HK_TN; hk_j++)\n"
    "                    hk_acc[hk_i][hk_j] = ($T)0;\n"
    "            }\n"
    "            // the next k slice is fetched into registers while this one is computed\n"
    "            $T hk_ra[HK_LA], hk_rb[HK_LB];\n"
    PT_GEMM_FETCH("            ", "0")
    "            for (long long hk_k0 = 0; hk_k0 < hk_k; hk_k0 += HK_BK) {\n" /* i18n: not for people */
    "                #pragma unroll\n"
    "                for (int hk_l = 0; hk_l < HK_LA; hk_l++) {\n"
    "                    const int hk_e = hk_tid + hk_l * HK_THREADS;\n"
    "                    hk_as[$FAK][$FAR] = hk_ra[hk_l];\n"
    "                }\n"
    "                #pragma unroll\n"
    "                for (int hk_l = 0; hk_l < HK_LB; hk_l++) {\n"
    "                    const int hk_e = hk_tid + hk_l * HK_THREADS;\n"
    "                    hk_bs[$FBK][$FBC] = hk_rb[hk_l];\n"
    "                }\n"
    "                __syncthreads();\n"
    "                if (hk_k0 + HK_BK < hk_k) {\n"
    PT_GEMM_FETCH("                    ", "hk_k0 + HK_BK")
    "                }\n" /* i18n: not for people */
    "                #pragma unroll\n"
    "                for (int hk_kk = 0; hk_kk < HK_BK; hk_kk++) {\n"
    "                    $T hk_a[HK_TM], hk_b[HK_TN];\n"
    "$LOADS"
    "                    #pragma unroll\n"
    "                    for (int hk_i = 0; hk_i < HK_TM; hk_i++) {\n"
    "                        #pragma unroll\n"
    "                        for (int hk_j = 0; hk_j < HK_TN; hk_j++)\n"
    "                            hk_acc[hk_i][hk_j] += hk_a[hk_i] * hk_b[hk_j];\n"
    "                    }\n"
    "                }\n"
    "                __syncthreads();\n"
    "            }\n"
    "            #pragma unroll\n"
    "            for (int hk_i = 0; hk_i < HK_TM; hk_i++) {\n"
    "                #pragma unroll\n"
    "                for (int hk_j = 0; hk_j < HK_TN; hk_j++) {\n"
    "                    const long long hk_gr = hk_row0 + TG_ROW_OF(hk_ty, hk_i);\n"
    "                    const long long hk_gc = hk_col0 + TG_COL_OF(hk_tx, hk_j);\n"
    "                    if (hk_gr < hk_m && hk_gc < hk_n) {\n"
    "                        const $RT $ROW = ($RT)hk_gr;\n"
    "                        const $CT $COL = ($CT)hk_gc;\n"
    "                        $T $ACC = hk_acc[hk_i][hk_j];\n"
    "                        $EPILOGUE\n"
    "                    }\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "#undef TG_ROW_OF\n"
    "#undef TG_COL_OF\n"
    "    } else {\n"
    "        for (long long hk_e = hk_block * hk_nthreads + hk_tid; hk_e < hk_m * hk_n$ZMUL; hk_e += hk_blocks * hk_nthreads) {\n"
    "$ZSELS"
    "            const $RT $ROW = ($RT)(hk_e / hk_n$ZROWS);\n"
    "            const $CT $COL = ($CT)(hk_e % hk_n);\n"
    "            $T $ACC = ($T)0;\n"
    "            for (long long hk_kk = 0; hk_kk < hk_k; hk_kk++)\n"
    "                $ACC += $A[$FAS] * $B[$FBS];\n"
    "            $EPILOGUE\n"
    "        }\n"
    "    }\n"
    "}";

/* The stride in compact index c = `ROW * LD + K` (any order of the sum and the product):
 * copies LD into ld. false when c has another shape. */
static bool leading_dim(const char *c, const char *row, const char *k, char *ld, size_t size)
{
    size_t cl = strlen(c), rl = strlen(row), kl = strlen(k);
    char prod[PT_EXPR];
    if (cl > kl + 1 && c[cl - kl - 1] == '+' && strcmp(c + cl - kl, k) == 0)
        snprintf(prod, sizeof prod, "%.*s", (int)(cl - kl - 1), c);
    else if (cl > kl + 1 && strncmp(c, k, kl) == 0 && c[kl] == '+')
        snprintf(prod, sizeof prod, "%s", c + kl + 1);
    else
        return false;
    size_t pl = strlen(prod);
    if (pl > rl + 1 && strncmp(prod, row, rl) == 0 && prod[rl] == '*')
        snprintf(ld, size, "%s", prod + rl + 1);
    else if (pl > rl + 1 && prod[pl - rl - 1] == '*' && strcmp(prod + pl - rl, row) == 0)
        snprintf(ld, size, "%.*s", (int)(pl - rl - 1), prod);
    else
        return false;
    /* the stride must be a product-free operand: `a*b+c` split the wrong way gives garbage */
    for (const char *q = ld; *q; q++)
        if (*q == '+' || *q == '-' || *q == '?' || *q == ',' || *q == '*' || *q == '/')
            return false;
    return *ld != '\0';
}

/* One operand's index c as the row-major read X[r * ld + k] (*t false) or, with allow_t,
 * its transpose X[k * ld + r] (*t true), r the row (A) or column (B) index and k the sum's. */
static bool operand_layout(const char *c, const char *r, const char *k, bool allow_t, char *ld, bool *t)
{
    *t = false;
    if (leading_dim(c, r, k, ld, PT_EXPR))
        return true;
    *t = allow_t && leading_dim(c, k, r, ld, PT_EXPR);
    return *t;
}

/* A and B of loop g with row index irow and column index icol: A read as
 * A[row * lda + k], B as B[k * ldb + col] (the product's operands in either order); with
 * allow_t also A as A[k * lda + row] (*tra) and B as B[col * ldb + k] (*trb), a transposed
 * operand (a rank-k update's A * A^T, an A^T * B). Fills pa, pb, their index texts ia, ib
 * (PT_EXPR each) and lda, ldb; NULL, or the reason when the reads have another shape. */
static const char *gemm_operands(const pt_gemm_loop *g, const pt_index *irow, const pt_index *icol, bool allow_t,
                                 const an_param **pa, const an_param **pb, char *ia, char *ib, char *lda,
                                 char *ldb, bool *tra, bool *trb)
{
    for (int order = 0; order < 2; order++) {
        /* B[...] * A[...]: the second order swaps the factors */
        *pa = order ? g->pb : g->pa;
        *pb = order ? g->pa : g->pb;
        snprintf(ia, PT_EXPR, "%s", order ? g->ib : g->ia);
        snprintf(ib, PT_EXPR, "%s", order ? g->ia : g->ib);
        if (!operand_layout(ia, irow->name, g->kv, allow_t, lda, tra))
            continue;
        /* B: B[k * ldb + col], i.e. the column index first in the transposed read */
        if (leading_dim(ib, g->kv, icol->name, ldb, PT_EXPR)) {
            *trb = false;
            return NULL;
        }
        if (allow_t && leading_dim(ib, icol->name, g->kv, ldb, PT_EXPR)) {
            *trb = true;
            return NULL;
        }
        if (order == 0 && !*tra)
            return EN(RW_GEMM_B_ROW);
    }
    return EN(RW_GEMM_A_ROW);
}

/* The shape of a kernel without a bounds check (the launch alone gives M and N): index
 * declarations `row` from .y and `col` from .x, then the body to the end. Its bounds are
 * the launch's own extents (gridDim.y * blockDim.y, gridDim.x * blockDim.x) when the
 * kernel model's class is a GEMM that bounds neither size and maps each index onto the
 * grid exactly (rwp_launch_extent); the tiled body then covers exactly the grid's
 * elements, M x N. *ok false with *why (a static text, or why_buf) otherwise. */
static int launch_shape(const char *text, size_t len, const an_function *f, const rw_toks *ts, pt_shape *s,
                        bool *ok, const char **why, char *why_buf, size_t wn)
{
    *ok = false;
    memset(s, 0, sizeof *s);
    size_t end = ts->n - 1, k = 1;
    s->end = end;
    while (k < end && s->n_idx < 2) {
        size_t e = rwl_stmt_end(ts, k, end), q = k;
        if (rwl_tok_is(ts, q, "const"))
            q++;
        size_t tstart = q;
        while (q < e && rwp_is_type_word(ts, q))
            q++;
        char c[PT_EXPR];
        if (q == tstart || q + 2 >= e || !rwp_tok_ident(ts, q) || !rwl_tok_is(ts, q + 1, "=") ||
            !rwl_tok_is(ts, e - 1, ";"))
            break;
        rwp_compact(ts, q + 2, e - 1, c, sizeof c);
        char axis = rwp_index_axis(c, false);
        if (!axis || rwp_shape_axis(s, axis))
            break;
        pt_index *ix = &s->idx[s->n_idx++];
        rwp_tok_copy(ts, q, ix->name, sizeof ix->name);
        char *ty = rwl_tok_text(ts, k, q);
        if (!ty)
            return HK_ENOMEM;
        snprintf(ix->type, sizeof ix->type, "%s", ty);
        hk_free(ty);
        ix->axis = axis;
        k = e;
    }
    if (s->n_idx != 2)
        return HK_OK;   /* not this shape: the caller keeps rwp_read_shape's reason */
    s->body_a = k;
    s->body_b = end;
    km_kernel *km = NULL;
    int rc = km_build(text, len, f->name, &km, NULL, 0);
    if (rc == HK_ENOMEM)
        return rc;
    km_class c;
    if (rc || km_classify(km, &c) || c.kind != KM_CLASS_GEMM || c.batched || c.shared_tiles || c.m.known || c.n.known) {
        km_free(km);   /* not a GEMM the launch alone sizes: rwp_read_shape's reason stands */
        return HK_OK;
    }
    /* two index declarations of distinct axes: one from .y, one from .x */
    pt_index *irow = s->idx[0].axis == 'y' ? &s->idx[0] : &s->idx[1], *icol = irow == s->idx ? &s->idx[1] : s->idx;
    if (!rwp_launch_extent(km, &c, &c.row_index, "M", "gridDim", "blockDim", irow->bound, sizeof irow->bound, why_buf,
                           wn) ||
        !rwp_launch_extent(km, &c, &c.col_index, "N", "gridDim", "blockDim", icol->bound, sizeof icol->bound, why_buf,
                           wn)) {
        *why = why_buf;
        km_free(km);
        return HK_OK;
    }
    if (c.row_axis != 1 || c.col_axis != 0) {
        *why = EN(RW_GEMM_NO_CHECK_AXES);
        km_free(km);
        return HK_OK;
    }
    km_free(km);
    *ok = true;
    return HK_OK;
}

/* May statements [a, b) after the k loop run as the tiled kernel's epilogue, where only the
 * parameters, acc, the row and column indices and the file's constants are in scope? NULL
 * (with *writes set when they store to a pointer parameter), or the reason. Tokens inside
 * brackets are skipped when in_brackets is false (the scale factors of the memory form,
 * whose operands' indices name the k index). */
static const char *epilogue_check(const rw_toks *ts, size_t a, size_t b, const an_function *f, const an_model *m,
                                  const char *acc, const pt_index *irow, const pt_index *icol, const char *kv_name,
                                  bool in_brackets, bool *writes)
{
    int depth = 0;
    for (size_t j = a; j < b; j++) {
        if (!in_brackets && (rwl_tok_is(ts, j, "[") || rwl_tok_is(ts, j, "]"))) {
            depth += rwl_tok_is(ts, j, "[") ? 1 : -1;
            continue;
        }
        if (depth > 0)
            continue;
        if (rwl_tok_is(ts, j, "for") || rwl_tok_is(ts, j, "while") || rwl_tok_is(ts, j, "do") || rwl_tok_is(ts, j, "return") ||
            rwl_tok_is(ts, j, "goto") || rwl_tok_is(ts, j, "__syncthreads") || rwl_tok_is(ts, j, kv_name))
            return EN(RW_GEMM_AFTER_HOLDS);
        if (rwp_tok_ident(ts, j) && !(j > 0 && (rwl_tok_is(ts, j - 1, ".") || rwl_tok_is(ts, j - 1, "->"))) &&
            !rwl_tok_is(ts, j + 1, "(") && !rwp_param_named(f, ts, j) && !rwl_tok_is(ts, j, acc) &&
            !rwl_tok_is(ts, j, irow->name) && !rwl_tok_is(ts, j, icol->name) && !rwp_is_type_word(ts, j) &&
            !rwl_tok_is(ts, j, "const") && !rwl_tok_is(ts, j, "if") && !rwl_tok_is(ts, j, "else")) {
            bool tunable = false;
            for (size_t i = 0; i < m->n_tunables && !tunable; i++)
                tunable = rwl_tok_is(ts, j, m->tunables[i].name);
            if (!tunable)
                return EN(RW_GEMM_AFTER_LOCAL);
        }
        if (rwp_param_named(f, ts, j) && rwp_param_named(f, ts, j)->pointer_depth == 1 && rwl_tok_is(ts, j + 1, "["))
            *writes = true;
    }
    return NULL;
}

/* What the tiled template is rendered from. z: a batched GEMM's texts (all "" for one
 * matrix): hk_nb's declaration, the factor of the work counts, the row tile's and simple
 * path's row taken modulo one matrix, and the batch's pointers chosen per tile / element. */
typedef struct {
    const char *t;                      /* element and accumulator type */
    const pt_index *row, *col;          /* C's row and column index: name, type, bound */
    const char *kb;                     /* K */
    const char *a, *b;                  /* the operands' names (a batched GEMM's: per batch) */
    const char *lda, *ldb;
    bool tra, trb;
    const char *acc, *epi;              /* the sum's name, the statements after the k loop */
    struct {
        const char *decl, *mul, *rowt, *selt, *sels, *rows;
    } z;
} tiled_text;

/* Renders tpl_gemm for x into b with tiles tile_m x tile_n x tile_k. */
static int render_tiled(struct hk_buf *b, const tiled_text *x, int tile_m, int tile_n, int tile_k)
{
    int rc = HK_OK;
    /* shared reads: vector loads of TM/2 (TN/2) consecutive values when that run is a
     * multiple of the vector width, else one value at a time */
    bool dbl = strcmp(x->t, "double") == 0;
    int vw = dbl ? 2 : 4;
    const char *vt = dbl ? "double2" : "float4";
    struct hk_buf lb;
    hk_buf_init(&lb, 8192);
    static const char *const comp = "xyzw";
    for (int ab = 0; ab < 2 && rc == HK_OK; ab++) {
        int half = (ab == 0 ? tile_m : tile_n) / 16 / 2;
        const char *arr = ab == 0 ? "hk_as" : "hk_bs", *dst = ab == 0 ? "hk_a" : "hk_b";
        const char *t_ = ab == 0 ? "hk_ty" : "hk_tx", *tm = ab == 0 ? "HK_TM" : "HK_TN";
        const char *bmn = ab == 0 ? "HK_BM" : "HK_BN", *of = ab == 0 ? "TG_ROW_OF" : "TG_COL_OF";
        if (half % vw == 0) {
            rc = hk_buf_printf(&lb,
                               "                    #pragma unroll\n" /* i18n: not for people */
                               "                    for (int hk_h = 0; hk_h < 2; hk_h++) {\n"
                               "                        #pragma unroll\n"
                               "                        for (int hk_q = 0; hk_q < %s / 2; hk_q += %d) {\n"
                               "                            const %s hk_v = *reinterpret_cast<const %s *>(&%s[hk_kk][%s * (%s / 2) + hk_q + hk_h * (%s / 2)]);\n",
                               tm, vw, vt, vt, arr, t_, tm, bmn);
            for (int c4 = 0; c4 < vw && rc == HK_OK; c4++)
                rc = hk_buf_printf(&lb, "                            %s[hk_h * (%s / 2) + hk_q + %d] = hk_v.%c;\n",
                                   dst, tm, c4, comp[c4]);
            if (rc == HK_OK)
                rc = hk_buf_appends(&lb, "                        }\n"
                                         "                    }\n");
        } else {
            rc = hk_buf_printf(&lb,
                               "                    #pragma unroll\n" /* i18n: not for people */
                               "                    for (int hk_i = 0; hk_i < %s; hk_i++)\n"
                               "                        %s[hk_i] = %s[hk_kk][%s(%s, hk_i)];\n",
                               tm, dst, arr, of, t_);
        }
    }
    if (rc) {
        hk_buf_free(&lb);
        return rc;
    }
    char vws[8];
    snprintf(vws, sizeof vws, "%d", vw);
    char rt[PT_NAME], ct[PT_NAME], bm[16], bn[16], bk[16];
    snprintf(rt, sizeof rt, "%s", strncmp(x->row->type, "const ", 6) == 0 ? x->row->type + 6 : x->row->type);
    snprintf(ct, sizeof ct, "%s", strncmp(x->col->type, "const ", 6) == 0 ? x->col->type + 6 : x->col->type);
    snprintf(bm, sizeof bm, "%d", tile_m);
    snprintf(bn, sizeof bn, "%d", tile_n);
    snprintf(bk, sizeof bk, "%d", tile_k);
    /* the fetches: consecutive threads take consecutive addresses of each operand's rows
     * as stored (a transposed operand's tile is filled along k) */
    char fai[3 * PT_EXPR], fbi[3 * PT_EXPR], fas[3 * PT_EXPR], fbs[3 * PT_EXPR];
    snprintf(fai, sizeof fai, x->tra ? "(size_t)hk_gk * (%s) + hk_gr" : "(size_t)hk_gr * (%s) + hk_gk", x->lda);
    snprintf(fbi, sizeof fbi, x->trb ? "(size_t)hk_gc * (%s) + hk_gk" : "(size_t)hk_gk * (%s) + hk_gc", x->ldb);
    snprintf(fas, sizeof fas, x->tra ? "(size_t)hk_kk * (%s) + %s" : "(size_t)%s * (%s) + hk_kk",
             x->tra ? x->lda : x->row->name, x->tra ? x->row->name : x->lda);
    snprintf(fbs, sizeof fbs, x->trb ? "(size_t)%s * (%s) + hk_kk" : "(size_t)hk_kk * (%s) + %s",
             x->trb ? x->col->name : x->ldb, x->trb ? x->ldb : x->col->name);
    const char *kv[] = {"BM", bm, "BN", bn, "BK", bk, "T", x->t, "M", x->row->bound, "N", x->col->bound, "K", x->kb,
                        "A", x->a, "B", x->b, "RT", rt, "CT", ct,
                        "ROW", x->row->name, "COL", x->col->name, "ACC", x->acc, "EPILOGUE", x->epi, "V", vt,
                        "VW", vws, "LOADS", lb.data,
                        "FAR", x->tra ? "hk_e % HK_BM" : "hk_e / HK_BK", "FAK", x->tra ? "hk_e / HK_BM" : "hk_e % HK_BK",
                        "FBK", x->trb ? "hk_e % HK_BK" : "hk_e / HK_BN", "FBC", x->trb ? "hk_e / HK_BK" : "hk_e % HK_BN",
                        "FAI", fai, "FBI", fbi, "FAS", fas, "FBS", fbs,
                        "ZDECL", x->z.decl, "ZMUL", x->z.mul, "ZROWT", x->z.rowt, "ZSELT", x->z.selt,
                        "ZSELS", x->z.sels, "ZROWS", x->z.rows, NULL};
    rc = rwl_render(b, tpl_gemm, kv);
    hk_buf_free(&lb);
    return rc;
}

/* Does scalar text s (a batched GEMM's alpha or beta, from rwp_match_blas) name only what
 * the tiled body still has: the kernel's parameters, type words, tunables and calls? The
 * body is replaced, so a thread or block index (`(double)blockIdx.z * t`: the batch's own
 * factor) or a local there would read the new body's values, or none. Sets *bad. */
static int scalar_keeps(const char *s, const an_function *f, const an_model *m, bool *bad)
{
    rw_toks ts = {0};
    *bad = false;
    int rc = rwl_lex(s, 0, (uint32_t)strlen(s), &ts);
    for (size_t j = 0; !rc && j < ts.n && !*bad; j++) {
        if (!rwp_tok_ident(&ts, j) || (j > 0 && (rwl_tok_is(&ts, j - 1, ".") || rwl_tok_is(&ts, j - 1, "->"))) ||
            rwl_tok_is(&ts, j + 1, "(") || rwp_param_named(f, &ts, j) || rwp_is_type_word(&ts, j) ||
            rwl_tok_is(&ts, j, "const"))
            continue;
        bool tunable = false;
        for (size_t i = 0; i < m->n_tunables && !tunable; i++)
            tunable = rwl_tok_is(&ts, j, m->tunables[i].name);
        *bad = !tunable;
    }
    rwl_toks_free(&ts);
    return rc;
}

/* tiled_gemm of a batched GEMM (rwp_match_blas's RWP_BLAS_GEMM_BATCHED: the batch index
 * from blockIdx.z bounded by the guard, each matrix a batch stride apart, one store
 * C[row * ldc + col] = alpha * sum [+ beta * C[same]]): the tiles of every batch's C are one
 * grid-stride range (batch slowest), each tile reading its batch's A and B through
 * pointers moved by the strides; the store is rebuilt from the BLAS view (the kernel's
 * own statements after the loop are that store and nothing else). */
static int tiled_batched(const char *text, size_t len, const an_model *m, const an_function *f, const rwp_blas *p,
                         int tile_m, int tile_n, int tile_k, rw_result *out)
{
    bool bad_a = false, bad_b = false;
    int krc = scalar_keeps(p->alpha, f, m, &bad_a);
    if (!krc)
        krc = scalar_keeps(p->beta, f, m, &bad_b);
    if (krc)
        return krc;
    if (bad_a || bad_b)
        return rwp_not_applicable(out, "tiled GEMM", f, EN(RW_GEMM_AFTER_LOCAL));
    pt_index row = {.name = "hk_row", .type = "long long", .axis = 'y'};
    pt_index col = {.name = "hk_col", .type = "long long", .axis = 'x'};
    snprintf(row.bound, sizeof row.bound, "%s", p->m);
    snprintf(col.bound, sizeof col.bound, "%s", p->n);
    const char *t = p->type;
    bool alpha1 = !strcmp(p->alpha, "1"), beta0 = !strcmp(p->beta, "0");
    char *epi = hk_asprintf("hk_zc[(size_t)hk_row * (%s) + hk_col] = %s%s%s%s%s%s%s%s;", p->ldc, /* i18n: not for people */
                            alpha1 ? "" : "(", alpha1 ? "" : p->alpha, alpha1 ? "" : ") * ", "hk_sum",
                            beta0 ? "" : " + (", beta0 ? "" : p->beta,
                            beta0 ? "" : ") * hk_zc[(size_t)hk_row * (", beta0 ? "" : p->ldc);
    /* a stride that is a product of names and numbers multiplies hk_z factor by factor, in
     * long long as the kernel's (size_t)b * M * K does; any other stays one operand */
    const char *st[3] = {p->stride_a, p->stride_b, p->stride_c};
    char sx[3][RWP_EXPR + 8];
    for (int i = 0; i < 3; i++) {
        bool product = st[i][0] != '\0';
        for (const char *q = st[i]; *q && product; q++)
            product = isalnum((unsigned char)*q) || *q == '_' || *q == '*';
        snprintf(sx[i], sizeof sx[i], product ? "%s" : "(long long)(%s)", st[i]);
    }
    char *ptrs = hk_asprintf("            const %s *const hk_za = %s + hk_z * %s;\n" /* i18n: not for people */
                             "            const %s *const hk_zb = %s + hk_z * %s;\n"
                             "            %s *const hk_zc = %s + hk_z * %s;\n",
                             t, p->a->name, sx[0], t, p->b->name, sx[1], t, p->c->name, sx[2]);
    /* the count is 0 unless M and N are positive: the work counts multiply it by M * N,
     * whose sign a negative M and N would turn (the guard then holds for no thread) */
    char *decl = hk_asprintf("    const long long hk_nb = hk_m > 0 && hk_n > 0 ? (long long)(%s) : 0;   // the batch count\n", /* i18n: not for people */
                             p->batch);
    char *selt = ptrs ? hk_asprintf("            const long long hk_z = hk_t / (hk_tiles_n * ((hk_m + HK_BM - 1) / HK_BM));\n%s", /* i18n: not for people */
                                    ptrs) : NULL;
    char *sels = ptrs ? hk_asprintf("            const long long hk_z = hk_e / (hk_m * hk_n);\n%s", ptrs) : NULL; /* i18n: not for people */
    char *epi2 = NULL;
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    int rc = HK_ENOMEM;
    if (!epi || !ptrs || !decl || !selt || !sels)
        goto out;
    if (!beta0 && !(epi2 = hk_asprintf("%.*s) + hk_col];", (int)(strlen(epi) - 1), epi)))
        goto out;
    tiled_text tx = {.t = t, .row = &row, .col = &col, .kb = p->k, .a = "hk_za", .b = "hk_zb", .lda = p->lda,
                     .ldb = p->ldb, .acc = "hk_sum", .epi = epi2 ? epi2 : epi,
                     .z = {decl, " * hk_nb", " % ((hk_m + HK_BM - 1) / HK_BM)", selt, sels, " % hk_m"}};
    if ((rc = render_tiled(&b, &tx, tile_m, tile_n, tile_k)))
        goto out;
    char *desc = hk_asprintf(EN(RW_GEMM_DESC_BATCHED), f->name, t, p->a->name, p->b->name, p->batch, tile_m, tile_n,
                             tile_k, tile_m / 16, tile_n / 16, p->c->name);
    rc = rwp_replace_body(text, len, m, f, b.data, desc, out);
out:
    hk_free(epi);
    hk_free(epi2);
    hk_free(ptrs);
    hk_free(decl);
    hk_free(selt);
    hk_free(sels);
    hk_buf_free(&b);
    return rc;
}

int rw_tiled_gemm(const char *text, size_t len, const an_model *m, size_t kernel, int tile_m, int tile_n,
                  int tile_k, rw_result *out)
{
    static const char *const name = "tiled GEMM";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if ((tile_m != 32 && tile_m != 64 && tile_m != 128) || (tile_n != 32 && tile_n != 64 && tile_n != 128) ||
        (tile_k != 8 && tile_k != 16 && tile_k != 32))
        return HK_EINVAL;
    rw_toks ts = {0};
    pt_shape s;
    struct hk_buf b;
    char *epi = NULL;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL;
    char why_buf[1024];
    bool from_launch = false;
    if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG)
            rc = rwp_not_applicable(out, name, f, EN(RW_REC_MM_BODY_TOO_BIG));
        goto out;
    }
    /* a batched GEMM (`int b = blockIdx.z;`, matrices a batch stride apart): the BLAS
     * view proves it (one store C = alpha*sum + beta*C, row-major, unit strides) */
    rwp_blas bp;
    char bwhy[512];
    if ((rc = rwp_match_blas(text, len, m, kernel, &bp, bwhy, sizeof bwhy)))
        goto out;
    if (!bwhy[0] && bp.kind == RWP_BLAS_GEMM_BATCHED) {
        rc = tiled_batched(text, len, m, f, &bp, tile_m, tile_n, tile_k, out);
        goto out;
    }
    if ((why = rwp_read_shape(&ts, &s))) {
        /* no bounds check: the launch's threads may be C's elements */
        if ((rc = launch_shape(text, len, f, &ts, &s, &from_launch, &why, why_buf, sizeof why_buf)))
            goto out;
        if (!from_launch)
            goto na;
        why = NULL;
    }
    const pt_index *icol = rwp_shape_axis(&s, 'x'), *irow = rwp_shape_axis(&s, 'y');
    if (s.n_idx != 2 || !icol || !irow) {
        why = EN(RW_GEMM_NOT_2D);
        goto na;
    }
    if (s.pre_b > s.pre_a) {
        why = EN(RW_GEMM_STMTS_BEFORE_CHECK);
        goto na;
    }
    pt_gemm_loop g;
    pt_gemm_mem mm;
    bool in_memory = false;
    if ((why = rwp_match_gemm_loop(f, &ts, s.body_a, s.body_b, NULL, 0, true, &g))) {
        if (strcmp(why, hk_strerror(HK_ENOMEM)) == 0)
            goto nomem;
        /* no accumulator: the k loop may sum into C's element itself, after a beta scaling
         * (`C[I] *= beta; for (...) C[I] += alpha * A[..] * B[..];`): the same product, its
         * sum then kept in a register and added once (reassociated, as any tiling is) */
        const char *mwhy = rwp_match_gemm_mem_loop(f, &ts, s.body_a, s.body_b, &g, &mm);
        if (mwhy) {
            /* the reason of the form the body starts like: a loop, or a scaling `*=` */
            bool scales = false;
            for (size_t j = s.body_a, e1 = rwl_stmt_end(&ts, s.body_a, s.body_b); j < e1 && !scales; j++)
                scales = rwl_tok_is(&ts, j, "*=");
            if (scales || rwl_tok_is(&ts, s.body_a, "for"))
                why = mwhy;
            goto na;
        }
        in_memory = true;
        why = NULL;
    }
    const an_param *pa, *pb;
    const char *t = g.t, *acc = in_memory ? "hk_ksum" : g.acc, *kv_name = g.kv;
    size_t e = g.end;
    char ia[PT_EXPR], ib[PT_EXPR], lda[PT_EXPR], ldb[PT_EXPR], ta[PT_EXPR], tb[PT_EXPR];
    /* rows from .y and columns from .x, or the reverse (x indexing rows, as many naive
     * SGEMMs write it): the tiled body walks the tiles over the whole grid, so only which
     * index is C's row matters. A kernel the launch sizes keeps rows from .y, its bounds
     * being the launch's extents along those axes (launch_shape). */
    /* untransposed operands first (either index as the row), then transposed ones */
    bool tra = false, trb = false;
    const char *why0 = NULL;
    for (int allow_t = 0; allow_t < 2; allow_t++) {
        if (!(why = gemm_operands(&g, irow, icol, allow_t, &pa, &pb, ia, ib, lda, ldb, &tra, &trb)))
            break;
        if (!why0)
            why0 = why;
        if (from_launch ||
            gemm_operands(&g, icol, irow, allow_t, &pa, &pb, ia, ib, lda, ldb, &tra, &trb))
            continue;
        const pt_index *swap = irow;
        irow = icol;
        icol = swap;
        why = NULL;
        break;
    }
    if (why) {
        why = why0;
        goto na;
    }
    rwp_pointee_type(pa, ta, sizeof ta);
    rwp_pointee_type(pb, tb, sizeof tb);
    if (strcmp(ta, t) != 0 || strcmp(tb, t) != 0) {
        why = EN(RW_GEMM_TYPES);
        goto na;
    }
    /* the epilogue: the statements after the loop, kept verbatim */
    size_t ea = e, eb = s.body_b;
    if (ea >= eb && !in_memory) {
        why = EN(RW_GEMM_NOTHING_WRITTEN);
        goto na;
    }
    bool writes = false;
    if ((why = epilogue_check(&ts, ea, eb, f, m, acc, irow, icol, kv_name, true, &writes)))
        goto na;
    if (in_memory) {
        /* the memory form's epilogue: its scaling, then C[I] += scale * sum, then the rest */
        if ((why = epilogue_check(&ts, mm.pre_a, mm.pre_b, f, m, acc, irow, icol, kv_name, true, &writes)) ||
            (why = epilogue_check(&ts, mm.lhs_a, mm.lhs_b, f, m, acc, irow, icol, kv_name, true, &writes)) ||
            (why = epilogue_check(&ts, mm.lhs_b + 1, g.end, f, m, acc, irow, icol, kv_name, false, &writes)))
            goto na;
        char *pre = mm.pre_b > mm.pre_a ? rwl_tok_text(&ts, mm.pre_a, mm.pre_b) : NULL;
        char *lhs = rwl_tok_text(&ts, mm.lhs_a, mm.lhs_b);
        char *rest = ea < eb ? rwl_tok_text(&ts, ea, eb) : NULL;
        if (lhs && (mm.pre_b == mm.pre_a || pre) && (ea == eb || rest))
            epi = hk_asprintf("%s%s%s += %s%s%s;%s%s", pre ? pre : "", pre ? " " : "", lhs,
                              mm.scale, mm.scale[0] ? " * " : "", acc, rest ? " " : "",
                              rest ? rest : "");
        hk_free(pre);
        hk_free(lhs);
        hk_free(rest);
        if (!epi)
            goto nomem;
    } else if (g.scale[0]) {
        /* the scaled form (`acc += alpha * A[..] * B[..]`): the tiles sum the products, and
         * the sum is scaled once before the epilogue (reassociated, as in the memory form) */
        char *rest = rwl_tok_text(&ts, ea, eb);
        if (rest)
            epi = hk_asprintf("%s = %s * %s; %s", acc, g.scale, acc, rest);
        hk_free(rest);
        if (!epi)
            goto nomem;
    } else if (!(epi = rwl_tok_text(&ts, ea, eb))) {
        goto nomem;
    }
    if (!writes) {
        why = EN(RW_GEMM_AFTER_NO_PARAM);
        goto na;
    }
    tiled_text tx = {.t = t, .row = irow, .col = icol, .kb = g.kb, .a = pa->name, .b = pb->name, .lda = lda,
                     .ldb = ldb, .tra = tra, .trb = trb, .acc = acc, .epi = epi, .z = {"", "", "", "", "", ""}};
    if ((rc = render_tiled(&b, &tx, tile_m, tile_n, tile_k)))
        goto out;
    /* with the launch's sizes (no bounds check) and without: one sentence each */
    char *desc = hk_asprintf(from_launch ? EN(RW_GEMM_DESC_LAUNCH) : EN(RW_GEMM_DESC),
                             f->name, t, pa->name, pb->name, tile_m, tile_n, tile_k, tile_m / 16, tile_n / 16);
    rc = rwp_replace_body(text, len, m, f, b.data, desc, out);
    /* its sizes are the launch's: another grid (an SM multiple) would be another matrix */
    if (!rc && out->applicable)
        out->keeps_grid = from_launch;
    goto out;
nomem:
    rc = HK_ENOMEM;
    goto out;
na:
    rc = rwp_not_applicable(out, name, f, why);
out:
    hk_free(epi);
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static const rw_param tiled_gemm_params[] = {
    {.name = "tile_m", .type = RW_PARAM_ENUM, .values = {32, 64, 128}, .n_values = 3, .def = 64},
    {.name = "tile_n", .type = RW_PARAM_ENUM, .values = {32, 64, 128}, .n_values = 3, .def = 64},
    {.name = "tile_k", .type = RW_PARAM_ENUM, .values = {8, 16, 32}, .n_values = 3, .def = 8},
};

static int emit_tiled_gemm(const rw_context *c, const int *p, rw_result *out)
{
    return rw_tiled_gemm(c->text, c->len, c->m, c->kernel, p[0], p[1], p[2], out);
}

const rw_descriptor rw_tiled_gemm_desc = {
    .name = "tiled_gemm",
    .summary = "a naive GEMM becomes shared-memory tiles with register blocking", /* i18n: not for people */
    .params = tiled_gemm_params,
    .n_params = HK_ARRAY_LEN(tiled_gemm_params),
    .flags = RW_ALGORITHM,
    .emit = emit_tiled_gemm,
};

