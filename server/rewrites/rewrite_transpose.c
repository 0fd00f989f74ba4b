/* tiled_transpose (rewrite_pattern.h): out[x * H + y] = in[y * W + x] becomes a padded
 * shared-memory tile with coalesced reads and writes. */
#include "rewrites/rewrite_pattern.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_recognize.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"
#include "model/kclass.h"
#include "model/kmodel.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

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

/* ---- the model path: any spelling the kernel model reads as a transpose ---- */

#define TM_TERMS 16

/* A sum of terms of a map, in no particular order (a split part of a form). */
typedef struct {
    km_term t[TM_TERMS];
    uint32_t n;
} tm_part;

/* The same sum, in any order of terms. */
static bool part_same(const tm_part *a, const tm_part *b)
{
    if (a->n != b->n)
        return false;
    for (uint32_t i = 0; i < a->n; i++) {
        bool found = false;
        for (uint32_t j = 0; j < b->n && !found; j++)
            found = km_term_equal(&a->t[i], &b->t[j]);
        if (!found)
            return false;
    }
    return true;
}

static bool part_same_form(const tm_part *a, km_form f)
{
    tm_part b = {.n = 0};
    if (f.n > TM_TERMS)
        return false;
    for (uint32_t i = 0; i < f.n; i++)
        b.t[b.n++] = f.t[i];
    return part_same(a, &b);
}

/* f = rest + s * q: terms without atom s go to rest, terms with it once go to q with it
 * taken out. false when a term holds s more than once or a part overflows. */
static bool split_by(km_form f, uint32_t s, tm_part *rest, tm_part *q)
{
    rest->n = q->n = 0;
    for (uint32_t i = 0; i < f.n; i++) {
        km_term t = f.t[i], r = {.coef = t.coef, .n = 0};
        uint32_t seen = 0;
        for (uint32_t j = 0; j < t.n; j++) {
            if (t.atoms[j] == s)
                seen++;
            else
                r.atoms[r.n++] = t.atoms[j];
        }
        tm_part *p = seen ? q : rest;
        if (seen > 1 || p->n == TM_TERMS)
            return false;
        p->t[p->n++] = seen ? r : t;
    }
    return rest->n > 0 && q->n > 0;
}

/* The axis of a term `threadIdx.a` (coefficient 1) in p, or -1: a coordinate that the
 * threads of a block spread over one by one. */
static int thread_axis(const km_kernel *k, const tm_part *p)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    for (uint32_t i = 0; i < p->n; i++)
        if (p->t[i].coef == 1 && p->t[i].n == 1 && at[p->t[i].atoms[0]].kind == KM_ATOM_THREAD_IDX)
            return at[p->t[i].atoms[0]].axis;
    return -1;
}

static bool is_extent_atom(const km_atom *a)
{
    return (a->kind == KM_ATOM_PARAM || a->kind == KM_ATOM_CONST) && a->name;
}

/* Is form f exactly the extent named name? */
static bool is_extent(const km_kernel *k, km_form f, const char *name)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    return f.n == 1 && f.t[0].coef == 1 && f.t[0].n == 1 && is_extent_atom(&at[f.t[0].atoms[0]]) &&
           strcmp(at[f.t[0].atoms[0]].name, name) == 0;
}

/* A coordinate one thread walks by a loop (Rodinia's kmeans invert_mapping: one thread
 * per point, `for (i = 0; i < nfeatures; i++) out[pid + npoints * i] = in[pid * nfeatures
 * + i]`): p is the counter alone, of a loop from 0 by 1 while below the extent named
 * extent, so the loop visits the whole coordinate. Its id, 3 + the loop's index (apart
 * from the thread axes 0-2), or -1. */
static int loop_axis(const km_kernel *k, const tm_part *p, const char *extent)
{
    size_t na, nl;
    const km_atom *at = km_atoms(k, &na);
    const km_loop *ls = km_loops(k, &nl);
    if (p->n != 1 || p->t[0].coef != 1 || p->t[0].n != 1)
        return -1;
    const km_atom *a = &at[p->t[0].atoms[0]];
    if (a->kind != KM_ATOM_LOOP || a->loop < 0 || (size_t)a->loop >= nl)
        return -1;
    const km_loop *lp = &ls[a->loop];
    int64_t st;
    km_form zero = {0};
    if (lp->kind != KM_LOOP_AFFINE || lp->grid_width || !lp->cmp || strcmp(lp->cmp, "<") != 0 ||
        !km_form_equal(lp->start, zero) || !km_form_value(k, lp->step, &st) || st != 1 ||
        !is_extent(k, lp->bound, extent))
        return -1;
    return 3 + (int)a->loop;
}

/* What the model path found: in[y * W + x] -> out[x * H + y]. */
typedef struct {
    char in[128], out[128];  /* buffer names */
    char w[128], h[128];     /* the extents' source names (parameters or constants) */
    tm_part x, y;            /* the coordinates */
    bool looped;             /* one of them is a loop's counter (loop_axis) */
    uint32_t line;
} tm_match;


/* Tries every pair of extent atoms (W in the read, H in the write) for
 * in = x + W * y and out = y + H * x. */
static bool find_extents(const km_kernel *k, const km_class *c, tm_match *t)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    for (uint32_t i = 0; i < c->in_map.n; i++)
        for (uint32_t j = 0; j < c->in_map.t[i].n; j++) {
            uint32_t w = c->in_map.t[i].atoms[j];
            tm_part x, y, y2, x2;
            if (!is_extent_atom(&at[w]) || !split_by(c->in_map, w, &x, &y))
                continue;
            for (uint32_t p = 0; p < c->out_map.n; p++)
                for (uint32_t q = 0; q < c->out_map.t[p].n; q++) {
                    uint32_t h = c->out_map.t[p].atoms[q];
                    if (!is_extent_atom(&at[h]) || !split_by(c->out_map, h, &y2, &x2) ||
                        !part_same(&x, &x2) || !part_same(&y, &y2))
                        continue;
                    /* each coordinate along a thread axis or walked whole by a loop, at
                     * least one along the threads */
                    int ax = thread_axis(k, &x), ay = thread_axis(k, &y);
                    if (ax < 0 && ay >= 0)
                        ax = loop_axis(k, &x, at[w].name);
                    else if (ay < 0 && ax >= 0)
                        ay = loop_axis(k, &y, at[h].name);
                    if (ax < 0 || ay < 0 || ax == ay)
                        continue;
                    if (!rwp_copy_fits(t->w, sizeof t->w, at[w].name) ||
                        !rwp_copy_fits(t->h, sizeof t->h, at[h].name))
                        continue;
                    t->x = x;
                    t->y = y;
                    t->looped = ax > 2 || ay > 2;
                    return true;
                }
        }
    return false;
}

/* The writes besides the copy and the guards in force on it: NULL when the new body does
 * what the old one did, else the reason (in why) with its line. */
static const char *check_rest(const km_kernel *k, const km_class *c, const tm_match *t, char *why, size_t n)
{
    size_t na, ng;
    const km_access *as = km_accesses(k, &na);
    const km_guard *gs = km_guards(k, &ng);
    const km_access *w = NULL;
    for (size_t i = 0; i < na; i++) {
        if (as[i].mode == KM_READ || as[i].space != KM_SPACE_GLOBAL)
            continue;
        if (strcmp(as[i].buffer, c->out) != 0 || as[i].atomic || !km_form_equal(as[i].element, c->out_map)) {
            snprintf(why, n, EN(RW_TR_WRITTEN_BESIDES), as[i].line,
                     as[i].buffer, c->out);
            return why;
        }
        w = &as[i];
    }
    for (uint32_t g = 0; w && g < w->n_guards; g++) {
        const km_guard *gd = &gs[w->guards[g]];
        bool ok = gd->op && strcmp(gd->op, "<") == 0 &&
                  ((part_same_form(&t->x, gd->lhs) && is_extent(k, gd->rhs, t->w)) ||
                   (part_same_form(&t->y, gd->lhs) && is_extent(k, gd->rhs, t->h)));
        if (!ok) {
            snprintf(why, n, EN(RW_TR_GUARD_ELSE), gd->line, t->w, t->h);
            return why;
        }
    }
    return NULL;
}

/* The model's reading of kernel f: HK_OK with t filled and why[0] == '\0', or with the
 * reason in why; HK_ENOMEM. */
static int model_transpose(const char *text, size_t len, const an_function *f, tm_match *t,
                           bool *classed, char *why, size_t n)
{
    km_kernel *k = NULL;
    km_class c;
    *classed = false;
    int rc = rw_model_classify(text, len, f->name, &k, &c, why, n);
    if (rc || !k)
        return rc;
    if (c.kind != KM_CLASS_TRANSPOSE) {
        if (c.near == KM_CLASS_TRANSPOSE)
            snprintf(why, n, "line %u: %s", c.why_line, c.why);
        else
            snprintf(why, n, EN(RW_TR_MODEL_READS), km_class_name(c.kind));
        goto out;
    }
    *classed = true;
    if (c.shared_tiles) {
        snprintf(why, n, EN(RW_TR_ALREADY_SHARED), c.line);
        goto out;
    }
    memset(t, 0, sizeof *t);
    if (!c.in[0] || !c.out || !rwp_copy_fits(t->in, sizeof t->in, c.in[0]) ||
        !rwp_copy_fits(t->out, sizeof t->out, c.out)) {
        snprintf(why, n, EN(RW_TR_NAMES_TOO_LONG), c.line);
        goto out;
    }
    t->line = c.line;
    if (!find_extents(k, &c, t)) {
        snprintf(why, n, EN(RW_TR_MAPS), c.line);
        goto out;
    }
    if (!check_rest(k, &c, t, why, n) && t->looped) {
        /* the loop must visit its whole coordinate: the model does not see a `break` (an
         * early `continue` or `return` is a guard, which check_rest has read) */
        rw_toks ts = {0};
        if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)) == HK_OK) {
            for (size_t i = 0; i < ts.n; i++)
                if (rwl_tok_is(&ts, i, "break") || rwl_tok_is(&ts, i, "goto")) {
                    snprintf(why, n, EN(RW_TR_MAY_END),
                             rwl_line_at(text, ts.t[i].start), rwl_tok_is(&ts, i, "break") ? "break" : "goto");
                    break;
                }
        } else if (rc == HK_ETOOBIG) {
            snprintf(why, n, EN(RW_TR_BODY_LARGE_AT), c.line);
            rc = HK_OK;
        }
        rwl_toks_free(&ts);
    }
out:
    km_free(k);
    return rc;
}

static const char tpl_transpose[] =
    "{\n" /* i18n: not for people */
    "    // hk rewrite: shared-memory tiled transpose. Each block walks output tiles\n"
    "    // (grid-stride); all its threads copy a tile in (coalesced rows of the input),\n"
    "    // then out of the padded tile (coalesced rows of the output).\n"
    "    constexpr int HK_TILE = $TILE;\n"
    "    constexpr unsigned int HK_TPB = 256;\n"
    "    __shared__ $T hk_tile[HK_TILE][HK_TILE + 1];\n"
    PT_THREADS
    "    const long long hk_w = ($W), hk_h = ($H);\n" /* i18n: not for people */
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

/* The tiled body for in (pi) -> out (po), in[y * W + x] with W x H elements, into b,
 * then the kernel with it in out. */
static int render(const char *text, size_t len, const an_model *m, const an_function *f, int tile,
                  const an_param *pi, const an_param *po, const char *w, const char *h, struct hk_buf *b,
                  rw_result *out)
{
    char ti[PT_EXPR], to[PT_EXPR], tile_s[16];
    rwp_pointee_type(pi, ti, sizeof ti);
    rwp_pointee_type(po, to, sizeof to);
    if (strcmp(ti, to) != 0 || !*ti)
        return rwp_not_applicable(out, "tiled transpose", f, EN(RW_TR_TYPES_DIFFER));
    snprintf(tile_s, sizeof tile_s, "%d", tile);
    const char *kv[] = {"TILE", tile_s, "T", ti, "W", w, "H", h, "IN", pi->name, "OUT", po->name, NULL};
    int rc = rwl_render(b, tpl_transpose, kv);
    if (rc)
        return rc;
    char *desc = hk_asprintf(EN(RW_TR_DESC),
                             f->name, pi->name, po->name, h, w, tile, tile);
    return rwp_replace_body(text, len, m, f, b->data, desc, out);
}

/* When the textual shape (why: its refusal) does not match: the kernel model's reading.
 * Its reason replaces why once the model calls the kernel a transpose. */
static int model_path(const char *text, size_t len, const an_model *m, const an_function *f, int tile,
                      const char *why, struct hk_buf *b, rw_result *out)
{
    tm_match t;
    bool classed;
    char mwhy[1024];
    int rc = model_transpose(text, len, f, &t, &classed, mwhy, sizeof mwhy);
    if (rc)
        return rc;
    if (mwhy[0])
        return rwp_not_applicable(out, "tiled transpose", f, classed ? mwhy : why);
    const an_param *pi = rwp_param_by_name(f, t.in), *po = rwp_param_by_name(f, t.out);
    if (!pi || !po || pi == po || pi->pointer_depth != 1 || po->pointer_depth != 1) {
        snprintf(mwhy, sizeof mwhy, EN(RW_TR_NOT_POINTERS), t.line, t.in, t.out);
        return rwp_not_applicable(out, "tiled transpose", f, mwhy);
    }
    return render(text, len, m, f, tile, pi, po, t.w, t.h, b, out);
}

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
            rc = rwp_not_applicable(out, name, f, EN(RW_TR_BODY_LARGE));
        }
        goto out;
    }
    if ((why = rwp_read_shape(&ts, &s)))
        goto na;
    const pt_index *ix = rwp_shape_axis(&s, 'x'), *iy = rwp_shape_axis(&s, 'y');
    if (s.n_idx != 2 || !ix || !iy) {
        why = EN(RW_TR_NOT_2D);
        goto na;
    }
    if (s.pre_b > s.pre_a) {
        why = EN(RW_TR_STMTS_BEFORE_CHECK);
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
        why = EN(RW_TR_NOT_ONE_COPY);
        goto na;
    }
    char e1[PT_EXPR], e2[PT_EXPR], wc[PT_EXPR], hc[PT_EXPR];
    rwp_compact(&ts, a + 2, c1, e1, sizeof e1);
    rwp_compact(&ts, c1 + 4, c2, e2, sizeof e2);
    bound_compact(&ts, ix, wc, sizeof wc);
    bound_compact(&ts, iy, hc, sizeof hc);
    if (!rwp_is_rowmajor(e2, iy->name, wc, ix->name)) {
        why = EN(RW_TR_READ_NOT);
        goto na;
    }
    if (!rwp_is_rowmajor(e1, ix->name, hc, iy->name)) {
        why = strcmp(e1, e2) == 0 ? EN(RW_TR_COPY)
                                  : EN(RW_TR_WRITE_NOT);
        goto na;
    }
    rc = render(text, len, m, f, tile, pi, po, ix->bound, iy->bound, &b, out);
    goto out;
na:
    rc = model_path(text, len, m, f, tile, why, &b, out);
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
    .summary = "a transpose through a padded shared-memory tile", /* i18n: not for people (no listing reads it) */
    .params = tiled_transpose_params,
    .n_params = HK_ARRAY_LEN(tiled_transpose_params),
    .flags = RW_ALGORITHM, /* not RW_TILE_LOOP: its skills give the grid (8 blocks/SM), and
                            * the 4 waves were never measured against that */
    .emit = emit_tiled_transpose,
};

