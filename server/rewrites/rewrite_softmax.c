/* online_softmax (rewrite_pattern.h): a one-thread-per-row softmax, read by the row-wise
 * recognizer, becomes one warp per row with shuffle-combined max and sum. */
#include "rewrites/rewrite_pattern.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_recognize.h"
#include "rewrites/rewrite_lex.h"

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

/* The row's max (hk_m) and sum (hk_s) across the lanes of a warp, then broadcast from lane 0
 * to all of them; ind is the indentation of the emitted lines. */
#define PT_WARP_MAX(ind)                                                                     \
    ind "for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n" /* i18n: not for people */ \
    ind "    const float hk_o = __shfl_down_sync(hk_mask, hk_m, hk_off);\n"                   \
    ind "    if (hk_lane + hk_off < hk_width)\n"                                              \
    ind "        hk_m = fmaxf(hk_m, hk_o);\n"                                                 \
    ind "}\n"                                                                                 \
    ind "hk_m = __shfl_sync(hk_mask, hk_m, 0, 32);\n"

#define PT_WARP_SUM(ind)                                                                     \
    ind "for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n" /* i18n: not for people */ \
    ind "    const float hk_o = __shfl_down_sync(hk_mask, hk_s, hk_off);\n"                   \
    ind "    if (hk_lane + hk_off < hk_width)\n"                                              \
    ind "        hk_s += hk_o;\n"                                                             \
    ind "}\n"                                                                                 \
    ind "hk_s = __shfl_sync(hk_mask, hk_s, 0, 32);\n"

static const char tpl_softmax[] =
    "{\n" /* i18n: not for people */
    "    // hk rewrite: one warp per row (rows grid-strided over the warps). A row that fits in\n"
    "    // HK_ROW_VEC float4 per lane is read once into registers: its max, its sum of exp and\n"
    "    // the output all come from there. A longer or unaligned row takes three passes (max,\n"
    "    // sum of exp, write); their re-reads of the row just read hit L2. Each pass has\n"
    "    // independent iterations, so loads and exps overlap (an online max/sum would chain\n"
    "    // every exp behind the previous one).\n"
    PT_THREADS
    PT_WARP
    "    constexpr int HK_ROW_VEC = 8;\n" /* i18n: not for people */
    "    const float hk_ninf = -__int_as_float(0x7f800000);\n"
    "    const long long hk_cols = ($COLS);\n"
    "    for (long long hk_row = (long long)blockIdx.x * hk_nwarps + hk_warp; hk_row < ($ROWS);\n"
    "         hk_row += (long long)gridDim.x * hk_nwarps) {\n"
    "        const float *hk_x = $IN + hk_row * hk_cols;\n"
    "        float *hk_y = $OUT + hk_row * hk_cols;\n"
    "        const bool hk_vec = (hk_cols & 3) == 0 &&\n"
    "            ((reinterpret_cast<unsigned long long>(hk_x) | reinterpret_cast<unsigned long long>(hk_y)) & 15) == 0;\n"
    "        float hk_m = hk_ninf, hk_s = 0.0f;\n"
    "        if (hk_vec && hk_cols / 4 <= (long long)hk_width * HK_ROW_VEC) {\n"
    "            float4 hk_r[HK_ROW_VEC];\n"
    "            #pragma unroll\n"
    "            for (int hk_k = 0; hk_k < HK_ROW_VEC; hk_k++) {\n"
    "                const long long hk_c = hk_lane + (long long)hk_k * hk_width;\n"
    "                if (hk_c < hk_cols / 4) {\n"
    "                    hk_r[hk_k] = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                    hk_m = fmaxf(hk_m, fmaxf(fmaxf(hk_r[hk_k].x, hk_r[hk_k].y), fmaxf(hk_r[hk_k].z, hk_r[hk_k].w)));\n"
    "                }\n"
    "            }\n"
    PT_WARP_MAX("            ")
    "            #pragma unroll\n" /* i18n: not for people */
    "            for (int hk_k = 0; hk_k < HK_ROW_VEC; hk_k++) {\n"
    "                if (hk_lane + (long long)hk_k * hk_width < hk_cols / 4) {\n"
    "                    hk_r[hk_k].x = $EXP(hk_r[hk_k].x - hk_m);\n"
    "                    hk_r[hk_k].y = $EXP(hk_r[hk_k].y - hk_m);\n"
    "                    hk_r[hk_k].z = $EXP(hk_r[hk_k].z - hk_m);\n"
    "                    hk_r[hk_k].w = $EXP(hk_r[hk_k].w - hk_m);\n"
    "                    hk_s += (hk_r[hk_k].x + hk_r[hk_k].y) + (hk_r[hk_k].z + hk_r[hk_k].w);\n"
    "                }\n"
    "            }\n"
    PT_WARP_SUM("            ")
    "            const float hk_inv = 1.0f / hk_s;\n" /* i18n: not for people */
    "            #pragma unroll\n"
    "            for (int hk_k = 0; hk_k < HK_ROW_VEC; hk_k++) {\n"
    "                const long long hk_c = hk_lane + (long long)hk_k * hk_width;\n"
    "                if (hk_c < hk_cols / 4) {\n"
    "                    float4 hk_q = hk_r[hk_k];\n"
    "                    hk_q.x *= hk_inv;\n"
    "                    hk_q.y *= hk_inv;\n"
    "                    hk_q.z *= hk_inv;\n"
    "                    hk_q.w *= hk_inv;\n"
    "                    reinterpret_cast<float4 *>(hk_y)[hk_c] = hk_q;\n"
    "                }\n"
    "            }\n"
    "            continue;\n"
    "        }\n"
    "        if (hk_vec) {\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                const float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                hk_m = fmaxf(hk_m, fmaxf(fmaxf(hk_q.x, hk_q.y), fmaxf(hk_q.z, hk_q.w)));\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_m = fmaxf(hk_m, hk_x[hk_c]);\n"
    "        }\n"
    PT_WARP_MAX("        ")
    "        if (hk_vec) {\n" /* i18n: not for people */
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                const float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                hk_s += ($EXP(hk_q.x - hk_m) + $EXP(hk_q.y - hk_m)) + ($EXP(hk_q.z - hk_m) + $EXP(hk_q.w - hk_m));\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_s += $EXP(hk_x[hk_c] - hk_m);\n"
    "        }\n"
    PT_WARP_SUM("        ")
    "        const float hk_inv = 1.0f / hk_s;\n" /* i18n: not for people */
    "        if (hk_vec) {\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                hk_q.x = $EXP(hk_q.x - hk_m) * hk_inv;\n"
    "                hk_q.y = $EXP(hk_q.y - hk_m) * hk_inv;\n"
    "                hk_q.z = $EXP(hk_q.z - hk_m) * hk_inv;\n"
    "                hk_q.w = $EXP(hk_q.w - hk_m) * hk_inv;\n"
    "                reinterpret_cast<float4 *>(hk_y)[hk_c] = hk_q;\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_y[hk_c] = $EXP(hk_x[hk_c] - hk_m) * hk_inv;\n"
    "        }\n"
    "    }\n"
    "}";

/* Is loop statement i a running maximum of m over the input row, `m = fmaxf(m, x[c])` or
 * any other spelling rwl_minmax_update reads (`if (x[c] > m) { m = x[c]; }`, ...)? The
 * template's fmaxf per lane equals the if and ?: forms here because m starts at -inf or
 * another number, never NaN (the caller's ninf list). */
static bool max_loop(const pt_rows *rw, size_t i)
{
    const rw_toks *ts = rw->ts;
    size_t a = rw->st[i].ba, b = rw->st[i].bb;
    if (rw->st[i].kind != 'l')
        return false;
    if (a < b && rwl_tok_is(ts, a, "{") && rwl_match_close(ts, a) == b - 1) {
        a++;
        b--;
    }
    rwl_minmax mm;
    if (a >= b || rwl_stmt_end(ts, a, b) != b || !rwl_minmax_update(ts, a, b, &mm) || !mm.max)
        return false;
    char acc[PT_EXPR], x[PT_EXPR];
    rwp_rows_canon(rw, i, mm.acc, mm.acc + 1, acc, sizeof acc);
    rwp_rows_canon(rw, i, mm.xa, mm.xb, x, sizeof x);
    return strcmp(acc, "m") == 0 && strcmp(x, "X") == 0;
}

int rw_online_softmax(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    static const char *const name = "online softmax";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    pt_shape s;
    pt_rows rw;
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL, *expf_name = "expf";
    if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG)
            rc = rwp_not_applicable(out, name, f, EN(RW_SM_BODY_LARGE));
        goto out;
    }
    if ((why = rwp_read_shape(&ts, &s)))
        goto na;
    memset(&rw, 0, sizeof rw);
    rw.f = f;
    rw.ts = &ts;
    if ((why = rwp_read_rows(&rw, &s)))
        goto na;
    /* float m = <-inf>; loop max; float s = 0; loop sum; [float inv = 1 / s;] loop write */
    static const char *const ninf[] = {"-INFINITY", "-FLT_MAX", "-1e30f", "-1e38f", "-3.402823466e+38f",
                                       "-HUGE_VALF", "-__int_as_float(0x7f800000)", NULL};
    static const char *const zero[] = {"0.0f", "0.f", "0", "0.0", NULL};
    static const char *const lsum[] = {"s+=expf(X-m);", "s+=__expf(X-m);", "s+=exp(X-m);", "s=s+expf(X-m);",
                                       "s=s+__expf(X-m);", "s=s+exp(X-m);", NULL};
    static const char *const lout[] = {"Y=expf(X-m)/s;", "Y=__expf(X-m)/s;", "Y=exp(X-m)/s;",
                                       "Y=expf(X-m)*i;", "Y=__expf(X-m)*i;", "Y=exp(X-m)*i;",
                                       "Y=expf(X-m)*(1.0f/s);", NULL};
    static const char *const linv[] = {"1.0f/s", "1.f/s", "1/s", NULL};
    size_t i = 0;
    char c[PT_EXPR];
    while (i < rw.n_st && rw.st[i].kind == 'p')
        i++;
    if (i >= rw.n_st || !rwp_rows_decl(&rw, i, "m", c, sizeof c) || !rwp_one_of(c, ninf)) {
        why = EN(RW_SM_NO_MAX);
        goto na;
    }
    i++;
    char st[PT_EXPR];
    if (i >= rw.n_st || !max_loop(&rw, i)) {
        why = EN(RW_SM_FIRST_LOOP);
        goto na;
    }
    i++;
    if (i >= rw.n_st || !rwp_rows_decl(&rw, i, "s", c, sizeof c) || !rwp_one_of(c, zero)) {
        why = EN(RW_SM_NO_SUM);
        goto na;
    }
    i++;
    if (i >= rw.n_st || rw.st[i].kind != 'l' || (rwp_rows_stmt(&rw, i, st, sizeof st), !rwp_one_of(st, lsum))) {
        why = EN(RW_SM_SECOND_LOOP);
        goto na;
    }
    if (strstr(st, "__expf"))
        expf_name = "__expf";
    i++;
    if (i < rw.n_st && rw.st[i].kind == 'd') {
        if (!rwp_rows_decl(&rw, i, "i", c, sizeof c) || !rwp_one_of(c, linv)) {
            why = EN(RW_SM_DECL);
            goto na;
        }
        i++;
    }
    if (i + 1 != rw.n_st || rw.st[i].kind != 'l' || (rwp_rows_stmt(&rw, i, st, sizeof st), !rwp_one_of(st, lout))) {
        why = EN(RW_SM_LAST_NOT_WRITE);
        goto na;
    }
    const char *kv[] = {"COLS", rw.cols, "ROWS", rw.row->bound, "IN", rw.in->name, "OUT", rw.out->name,
                        "EXP", expf_name, NULL};
    if ((rc = rwl_render(&b, tpl_softmax, kv)))
        goto out;
    char *desc = hk_asprintf(EN(RW_SM_DESC),
                             f->name, rw.in->name, rw.out->name, expf_name);
    rc = rwp_replace_body(text, len, m, f, b.data, desc, out);
    goto out;
na:
    rc = rwp_not_applicable(out, name, f, why);
out:
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static int emit_online_softmax(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_online_softmax(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_online_softmax_desc = {
    .name = "online_softmax",
    .summary = "a thread-per-row softmax becomes a warp per row", /* i18n: not for people */
    .flags = RW_ALGORITHM,
    .emit = emit_online_softmax,
};

