/* tiled_transpose (rewrite_pattern.h): out[x * H + y] = in[y * W + x] becomes a padded
 * shared-memory tile with coalesced reads and writes. */
#include "rewrites/rewrite_pattern.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_recognize.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compact text of a bound, parenthesized when it is not one token (so `r*(w+1)+c`
 * compares right). */
static void bound_compact(const rw_toks *ts, const pt_index *ix, char *out, size_t size)
{
    char c[PT_EXPR];
    rwp_compact(ts, ix->bound_a, ix->bound_b, c, sizeof c);
    /* a truncated bound only fails to match */
    if (snprintf(out, size, ix->bound_b - ix->bound_a == 1 ? "%s" : "(%s)", c) >= (int)size)
        out[0] = '\0';
}

static const char tpl_transpose[] =
    "{\n"
    "    // hk rewrite: shared-memory tiled transpose. Each block walks output tiles\n"
    "    // (grid-stride); all its threads copy a tile in (coalesced rows of the input),\n"
    "    // then out of the padded tile (coalesced rows of the output).\n"
    "    constexpr int HK_TILE = $TILE;\n"
    "    constexpr unsigned int HK_TPB = 256;\n"
    "    __shared__ $T hk_tile[HK_TILE][HK_TILE + 1];\n"
    PT_THREADS
    "    const long long hk_w = ($W), hk_h = ($H);\n"
    "    const long long hk_tiles_x = (hk_w + HK_TILE - 1) / HK_TILE;\n"
    "    const long long hk_tiles = hk_tiles_x * ((hk_h + HK_TILE - 1) / HK_TILE);\n"
    "    const long long hk_blocks = (long long)gridDim.x * gridDim.y * gridDim.z;\n"
    "    for (long long hk_t = blockIdx.x + (long long)gridDim.x * (blockIdx.y + (long long)gridDim.y * blockIdx.z);\n"
    "         hk_t < hk_tiles; hk_t += hk_blocks) {\n"
    "        const long long hk_x0 = (hk_t % hk_tiles_x) * HK_TILE, hk_y0 = (hk_t / hk_tiles_x) * HK_TILE;\n"
    "        // a tile inside the matrix, read by blocks of HK_TPB threads: no bounds checks and a\n"
    "        // fixed trip count, so the unrolled loops issue all their loads (stores) at once\n"
    "        const bool hk_fast = hk_x0 + HK_TILE <= hk_w && hk_y0 + HK_TILE <= hk_h &&\n"
    "                             hk_nthreads == HK_TPB && (HK_TILE * HK_TILE) % HK_TPB == 0;\n"
    "        if (hk_fast) {\n"
    "            #pragma unroll\n"
    "            for (int hk_k = 0; hk_k < HK_TILE * HK_TILE / HK_TPB; hk_k++) {\n"
    "                const unsigned int hk_e = hk_tid + hk_k * HK_TPB;\n"
    "                hk_tile[hk_e / HK_TILE][hk_e % HK_TILE] =\n"
    "                    $IN[(size_t)(hk_y0 + hk_e / HK_TILE) * hk_w + hk_x0 + hk_e % HK_TILE];\n"
    "            }\n"
    "        } else {\n"
    "            for (unsigned int hk_e = hk_tid; hk_e < HK_TILE * HK_TILE; hk_e += hk_nthreads) {\n"
    "                const int hk_ty = hk_e / HK_TILE, hk_tx = hk_e % HK_TILE;\n"
    "                const long long hk_x = hk_x0 + hk_tx, hk_y = hk_y0 + hk_ty;\n"
    "                if (hk_x < hk_w && hk_y < hk_h)\n"
    "                    hk_tile[hk_ty][hk_tx] = $IN[(size_t)hk_y * hk_w + hk_x];\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();\n"
    "        if (hk_fast) {\n"
    "            #pragma unroll\n"
    "            for (int hk_k = 0; hk_k < HK_TILE * HK_TILE / HK_TPB; hk_k++) {\n"
    "                const unsigned int hk_e = hk_tid + hk_k * HK_TPB;\n"
    "                $OUT[(size_t)(hk_x0 + hk_e / HK_TILE) * hk_h + hk_y0 + hk_e % HK_TILE] =\n"
    "                    hk_tile[hk_e % HK_TILE][hk_e / HK_TILE];\n"
    "            }\n"
    "        } else {\n"
    "            for (unsigned int hk_e = hk_tid; hk_e < HK_TILE * HK_TILE; hk_e += hk_nthreads) {\n"
    "                const int hk_ty = hk_e / HK_TILE, hk_tx = hk_e % HK_TILE;\n"
    "                const long long hk_x = hk_x0 + hk_ty, hk_y = hk_y0 + hk_tx;\n"
    "                if (hk_x < hk_w && hk_y < hk_h)\n"
    "                    $OUT[(size_t)hk_x * hk_h + hk_y] = hk_tile[hk_tx][hk_ty];\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "}";

int rw_tiled_transpose(const char *text, size_t len, const an_model *m, size_t kernel, int tile,
                       rw_result *out)
{
    static const char *const name = "tiled transpose";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (tile < 8 || tile > 64 || tile % 8)
        return HK_EINVAL;
    rw_toks ts = {0};
    pt_shape s;
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL;
    if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG) {
            rc = rwp_not_applicable(out, name, f, "the body is far larger than a transpose");
        }
        goto out;
    }
    if ((why = rwp_read_shape(&ts, &s)))
        goto na;
    const pt_index *ix = rwp_shape_axis(&s, 'x'), *iy = rwp_shape_axis(&s, 'y');
    if (s.n_idx != 2 || !ix || !iy) {
        why = "it is not a 2D kernel (indices from .x and .y)";
        goto na;
    }
    if (s.pre_b > s.pre_a) {
        why = "statements besides the index declarations come before the bounds check";
        goto na;
    }
    /* the guarded body: exactly `OUT[E1] = IN[E2];` */
    size_t a = s.body_a, e = s.body_b;
    const an_param *po = rwp_param_named(f, &ts, a), *pi = NULL;
    size_t c1 = rwl_tok_is(&ts, a + 1, "[") ? rwl_match_close(&ts, a + 1) : ts.n;
    if (po && c1 < e && rwl_tok_is(&ts, c1 + 1, "="))
        pi = rwp_param_named(f, &ts, c1 + 2);
    size_t c2 = pi && rwl_tok_is(&ts, c1 + 3, "[") ? rwl_match_close(&ts, c1 + 3) : ts.n;
    if (!po || !pi || c2 + 2 != e || !rwl_tok_is(&ts, c2 + 1, ";") || po == pi ||
        po->pointer_depth != 1 || pi->pointer_depth != 1) {
        why = "the guarded statement is not one copy `out[...] = in[...];` between two pointer parameters";
        goto na;
    }
    char e1[PT_EXPR], e2[PT_EXPR], wc[PT_EXPR], hc[PT_EXPR];
    rwp_compact(&ts, a + 2, c1, e1, sizeof e1);
    rwp_compact(&ts, c1 + 4, c2, e2, sizeof e2);
    bound_compact(&ts, ix, wc, sizeof wc);
    bound_compact(&ts, iy, hc, sizeof hc);
    if (!rwp_is_rowmajor(e2, iy->name, wc, ix->name)) {
        why = "the read is not in[y * W + x] (y and x the .y and .x indices, W the bound of x)";
        goto na;
    }
    if (!rwp_is_rowmajor(e1, ix->name, hc, iy->name)) {
        why = strcmp(e1, e2) == 0 ? "it is a copy, not a transpose"
                                  : "the write is not out[x * H + y] (H the bound of y)";
        goto na;
    }
    char ti[PT_EXPR], to[PT_EXPR], tile_s[16];
    rwp_pointee_type(pi, ti, sizeof ti);
    rwp_pointee_type(po, to, sizeof to);
    if (strcmp(ti, to) != 0 || !*ti) {
        why = "the input and output element types differ";
        goto na;
    }
    snprintf(tile_s, sizeof tile_s, "%d", tile);
    const char *kv[] = {"TILE", tile_s, "T", ti, "W", ix->bound, "H", iy->bound, "IN", pi->name,
                        "OUT", po->name, NULL};
    if ((rc = rwl_render(&b, tpl_transpose, kv)))
        goto out;
    char *desc = hk_asprintf("kernel %s: shared-memory tiled transpose %s -> %s, tile [%d][%d + 1] "
                             "(HK_TILE), grid-stride over tiles, any block shape",
                             f->name, pi->name, po->name, tile, tile);
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
static const rw_param tiled_transpose_params[] = {
    {.name = "tile", .type = RW_PARAM_INT, .min = 8, .max = 64, .def = 32},
};

static int emit_tiled_transpose(const rw_context *c, const int *p, rw_result *out)
{
    return rw_tiled_transpose(c->text, c->len, c->m, c->kernel, p[0], out);
}

const rw_descriptor rw_tiled_transpose_desc = {
    .name = "tiled_transpose",
    .summary = "a transpose through a padded shared-memory tile",
    .params = tiled_transpose_params,
    .n_params = HK_ARRAY_LEN(tiled_transpose_params),
    .flags = RW_ALGORITHM,
    .emit = emit_tiled_transpose,
};

