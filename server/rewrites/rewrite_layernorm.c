/* online_layernorm (rewrite_pattern.h): a one-thread-per-row layernorm becomes one warp
 * per row with shuffle sums for the mean and the centred variance. */
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

/* Matches canonical text s against pattern p where %G and %B each match one "@name" (a
 * per-column vector); the names go to g and b (without the @). */
static bool match_affine(const char *s, const char *p, char *g, char *b, size_t size)
{
    while (*p) {
        if (p[0] == '%' && (p[1] == 'G' || p[1] == 'B')) {
            if (*s != '@')
                return false;
            const char *e = ++s;
            while (isalnum((unsigned char)*e) || *e == '_')
                e++;
            char *dst = p[1] == 'G' ? g : b;
            snprintf(dst, size, "%.*s", (int)(e - s), s);
            s = e;
            p += 2;
            continue;
        }
        if (*s != *p)
            return false;
        s++;
        p++;
    }
    return *s == '\0';
}

static const char tpl_layernorm[] =
    "{\n" /* i18n: not for people */
    "    // hk rewrite: one warp per row (rows grid-strided over the warps): shuffle sums for\n"
    "    // the mean, then for the centred variance (the same two-pass arithmetic), then the\n"
    "    // write pass; float4 when the row length is a multiple of 4 and rows are aligned.\n"
    PT_THREADS
    PT_WARP
    "    const long long hk_cols = ($COLS);\n" /* i18n: not for people */
    "    for (long long hk_row = (long long)blockIdx.x * hk_nwarps + hk_warp; hk_row < ($ROWS);\n"
    "         hk_row += (long long)gridDim.x * hk_nwarps) {\n"
    "        const float *hk_x = $IN + hk_row * hk_cols;\n"
    "        float *hk_y = $OUT + hk_row * hk_cols;\n"
    "        const bool hk_vec = (hk_cols & 3) == 0 &&\n"
    "            ((reinterpret_cast<unsigned long long>(hk_x) | reinterpret_cast<unsigned long long>(hk_y)$ALIGN) & 15) == 0;\n"
    "        float hk_sum = 0.0f;\n"
    "        if (hk_vec) {\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                const float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                hk_sum += hk_q.x + hk_q.y + hk_q.z + hk_q.w;\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_sum += hk_x[hk_c];\n"
    "        }\n"
    "        for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"
    "            const float hk_o = __shfl_down_sync(hk_mask, hk_sum, hk_off);\n"
    "            if (hk_lane + hk_off < hk_width)\n"
    "                hk_sum += hk_o;\n"
    "        }\n"
    "        const float hk_mean = __shfl_sync(hk_mask, hk_sum, 0, 32) / (float)hk_cols;\n"
    "        float hk_sq = 0.0f;\n"
    "        if (hk_vec) {\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                const float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                hk_sq += (hk_q.x - hk_mean) * (hk_q.x - hk_mean) + (hk_q.y - hk_mean) * (hk_q.y - hk_mean) +\n"
    "                         (hk_q.z - hk_mean) * (hk_q.z - hk_mean) + (hk_q.w - hk_mean) * (hk_q.w - hk_mean);\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_sq += (hk_x[hk_c] - hk_mean) * (hk_x[hk_c] - hk_mean);\n"
    "        }\n"
    "        for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"
    "            const float hk_o = __shfl_down_sync(hk_mask, hk_sq, hk_off);\n"
    "            if (hk_lane + hk_off < hk_width)\n"
    "                hk_sq += hk_o;\n"
    "        }\n"
    "        const float hk_var = __shfl_sync(hk_mask, hk_sq, 0, 32) / (float)hk_cols;\n"
    "        const float hk_rstd = $RSTD;\n"
    "        if (hk_vec) {\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "$VLOADS"
    "                hk_q.x = $VX;\n"
    "                hk_q.y = $VY;\n"
    "                hk_q.z = $VZ;\n"
    "                hk_q.w = $VW;\n"
    "                reinterpret_cast<float4 *>(hk_y)[hk_c] = hk_q;\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_y[hk_c] = $SCALAR;\n"
    "        }\n"
    "    }\n"
    "}";

int rw_online_layernorm(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    static const char *const name = "online layernorm";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    pt_shape s;
    pt_rows rw;
    struct hk_buf b;
    char *rstd = NULL, *align = NULL, *vloads = NULL, *scalar = NULL, *vc[4] = {NULL, NULL, NULL, NULL};
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL;
    if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG)
            rc = rwp_not_applicable(out, name, f, EN(RW_LN_BODY_LARGE));
        goto out;
    }
    if ((why = rwp_read_shape(&ts, &s)))
        goto na;
    memset(&rw, 0, sizeof rw);
    rw.f = f;
    rw.ts = &ts;
    if ((why = rwp_read_rows(&rw, &s)))
        goto na;
    static const char *const zero[] = {"0.0f", "0.f", "0", "0.0", NULL};
    static const char *const lsum[] = {"a+=X;", "a=a+X;", NULL};
    static const char *const mdiv[] = {"a/=N;", "a=a/N;", "a*=1.0f/N;", "a=a*(1.0f/N);", NULL};
    static const char *const lvar[] = {"v+=(X-a)*(X-a);", "v=v+(X-a)*(X-a);", NULL};
    static const char *const vdiv[] = {"v/=N;", "v=v/N;", "v*=1.0f/N;", "v=v*(1.0f/N);", NULL};
    static const char *const affine[] = {"(X-a)*r*%G+%B", "%G*(X-a)*r+%B", "(X-a)*%G*r+%B",
                                         "((X-a)*r)*%G+%B", "%G*((X-a)*r)+%B", "%B+(X-a)*r*%G",
                                         "(X-a)*r*%G", "%G*(X-a)*r", "(X-a)*r+%B", "(X-a)*r", NULL};
    size_t i = 0;
    char c[PT_EXPR], st[PT_EXPR];
    while (i < rw.n_st && rw.st[i].kind == 'p')
        i++;
    if (i >= rw.n_st || !rwp_rows_decl(&rw, i, "a", c, sizeof c) || !rwp_one_of(c, zero)) {
        why = EN(RW_LN_NO_MEAN_SUM);
        goto na;
    }
    i++;
    if (i >= rw.n_st || rw.st[i].kind != 'l' || (rwp_rows_stmt(&rw, i, st, sizeof st), !rwp_one_of(st, lsum))) {
        why = EN(RW_LN_FIRST_LOOP);
        goto na;
    }
    i++;
    if (i >= rw.n_st || rw.st[i].kind != 'u' || (rwp_rows_stmt(&rw, i, st, sizeof st), !rwp_one_of(st, mdiv))) {
        why = EN(RW_LN_MEAN_DIV);
        goto na;
    }
    i++;
    if (i >= rw.n_st || !rwp_rows_decl(&rw, i, "v", c, sizeof c) || !rwp_one_of(c, zero)) {
        why = EN(RW_LN_NO_VAR_SUM);
        goto na;
    }
    i++;
    if (i >= rw.n_st || rw.st[i].kind != 'l' || (rwp_rows_stmt(&rw, i, st, sizeof st), !rwp_one_of(st, lvar))) {
        why = EN(RW_LN_SECOND_LOOP);
        goto na;
    }
    i++;
    if (i >= rw.n_st || rw.st[i].kind != 'u' || (rwp_rows_stmt(&rw, i, st, sizeof st), !rwp_one_of(st, vdiv))) {
        why = EN(RW_LN_VAR_DIV);
        goto na;
    }
    i++;
    /* float inv = 1.0f / sqrtf(var + EPS); or rsqrtf(var + EPS), EPS a scalar parameter or
     * a literal */
    if (i >= rw.n_st || !rwp_rows_decl(&rw, i, "r", c, sizeof c)) {
        why = EN(RW_LN_NO_INV);
        goto na;
    }
    {
        const char *inner = NULL;
        bool rs = false;
        if (strncmp(c, "1.0f/sqrtf(v+", 13) == 0)
            inner = c + 13;
        else if (strncmp(c, "rsqrtf(v+", 9) == 0)
            inner = c + 9, rs = true;
        size_t il = inner ? strlen(inner) : 0;
        char eps[PT_NAME] = "";
        if (il >= 2 && inner[il - 1] == ')')
            snprintf(eps, sizeof eps, "%.*s", (int)(il - 1), inner);
        const an_param *pe = *eps ? rwp_param_by_name(f, eps) : NULL;
        bool literal = *eps && (isdigit((unsigned char)eps[0]) || eps[0] == '.');
        for (const char *q = eps; literal && *q; q++)
            literal = isalnum((unsigned char)*q) || *q == '.' || *q == '-' || *q == '+';
        if (!inner || !((pe && pe->pointer_depth == 0) || literal)) {
            why = EN(RW_LN_INV_FORM);
            goto na;
        }
        rstd = rs ? hk_asprintf("rsqrtf(hk_var + (%s))", eps) : hk_asprintf("1.0f / sqrtf(hk_var + (%s))", eps);
        if (!rstd)
            goto nomem;
    }
    i++;
    if (i + 1 != rw.n_st || rw.st[i].kind != 'l') {
        why = EN(RW_LN_LAST_NOT_WRITE);
        goto na;
    }
    rwp_rows_stmt(&rw, i, st, sizeof st);
    char g[PT_NAME] = "", be[PT_NAME] = "";
    size_t sl = strlen(st);
    bool ok = sl > 3 && strncmp(st, "Y=", 2) == 0 && st[sl - 1] == ';';
    if (ok) {
        st[sl - 1] = '\0';
        ok = false;
        for (size_t q = 0; affine[q] && !ok; q++) {
            g[0] = be[0] = '\0';
            ok = match_affine(st + 2, affine[q], g, be, sizeof g);
        }
    }
    const an_param *pg = *g ? rwp_param_by_name(f, g) : NULL, *pb = *be ? rwp_param_by_name(f, be) : NULL;
    if (!ok || (*g && !pg) || (*be && !pb) || (pg && pg == pb) || pg == rw.in || pg == rw.out ||
        pb == rw.in || pb == rw.out) {
        why = EN(RW_LN_WRITE_FORM);
        goto na;
    }
    char t[PT_EXPR];
    if ((pg && (rwp_pointee_type(pg, t, sizeof t), strcmp(t, "float") != 0)) ||
        (pb && (rwp_pointee_type(pb, t, sizeof t), strcmp(t, "float") != 0))) {
        why = EN(RW_LN_GAMMA_TYPE);
        goto na;
    }
    static const char comp[4] = {'x', 'y', 'z', 'w'};
    align = hk_asprintf("%s%s%s%s%s%s", pg ? " | reinterpret_cast<unsigned long long>(" : "", pg ? pg->name : "", /* i18n: not for people */
                        pg ? ")" : "", pb ? " | reinterpret_cast<unsigned long long>(" : "", pb ? pb->name : "", /* i18n: not for people */
                        pb ? ")" : "");
    vloads = hk_asprintf("%s%s%s%s%s%s", pg ? "                const float4 hk_g = reinterpret_cast<const float4 *>(" : "",
                         pg ? pg->name : "", pg ? ")[hk_c];\n" : "",
                         pb ? "                const float4 hk_b = reinterpret_cast<const float4 *>(" : "",
                         pb ? pb->name : "", pb ? ")[hk_c];\n" : "");
    scalar = hk_asprintf("(hk_x[hk_c] - hk_mean) * hk_rstd%s%s%s%s%s%s", pg ? " * " : "", pg ? pg->name : "",
                         pg ? "[hk_c]" : "", pb ? " + " : "", pb ? pb->name : "", pb ? "[hk_c]" : "");
    for (int q = 0; q < 4; q++)
        vc[q] = hk_asprintf("(hk_q.%c - hk_mean) * hk_rstd%s%c%s%c", comp[q], pg ? " * hk_g." : "",
                            pg ? comp[q] : ' ', pb ? " + hk_b." : "", pb ? comp[q] : ' ');
    if (!align || !vloads || !scalar || !vc[0] || !vc[1] || !vc[2] || !vc[3])
        goto nomem;
    const char *kv[] = {"COLS", rw.cols, "ROWS", rw.row->bound, "IN", rw.in->name, "OUT", rw.out->name,
                        "ALIGN", align, "RSTD", rstd, "VLOADS", vloads, "VX", vc[0], "VY", vc[1],
                        "VZ", vc[2], "VW", vc[3], "SCALAR", scalar, NULL};
    if ((rc = rwl_render(&b, tpl_layernorm, kv)))
        goto out;
    char *desc = hk_asprintf(EN(RW_LN_DESC),
                             f->name, rw.in->name, rw.out->name, pg ? ", gamma " : "", pg ? pg->name : "",
                             pb ? ", beta " : "", pb ? pb->name : "");
    rc = rwp_replace_body(text, len, m, f, b.data, desc, out);
    goto out;
nomem:
    rc = HK_ENOMEM;
    goto out;
na:
    rc = rwp_not_applicable(out, name, f, why);
out:
    hk_free(rstd);
    hk_free(align);
    hk_free(vloads);
    hk_free(scalar);
    for (int q = 0; q < 4; q++)
        hk_free(vc[q]);
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static int emit_online_layernorm(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_online_layernorm(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_online_layernorm_desc = {
    .name = "online_layernorm",
    .summary = "a thread-per-row layernorm becomes a warp per row", /* i18n: not for people (no listing reads it) */
    .flags = RW_ALGORITHM,
    .emit = emit_online_layernorm,
};

