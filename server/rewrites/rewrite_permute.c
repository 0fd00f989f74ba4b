/* tiled_permute (issue 13): a one-thread-per-element permutation spelled on a flat index,
 * out[P(e)] = in[e] or out[e] = in[Q(e)] with e split into coordinates by / and % (llm.c's
 * permute_kernel, NCHW to NHWC, a batched transpose), becomes a padded shared-memory tile
 * read along the coordinate the input is contiguous in and written along the one the
 * output is contiguous in. The kernel's own P or Q, read through the kernel model, is
 * written back as C on the tile's elements, so the tiled body computes what the original
 * did for every e < N whatever the coordinates turn out to be at run time. */
#include "rewrites/rewrite_permute.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "model/kclass.h"
#include "model/kmodel.h"
#include "core/i18n.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

static const char name[] = "tiled permute";

#define PM_TERMS 8

/* One tiled coordinate of the flat index e: (e / stride) % extent, the extent made of
 * fused coordinates (i1*d2 + i2 over d1*d2 is one coordinate of extent d1*d2) or, for the
 * outermost, NULL: N / stride. Terms borrowed from the model or held here. */
typedef struct {
    km_form stride;
    km_term extent[PM_TERMS];  /* a product: extent[0] is a single term, or n_extent 0 */
    uint32_t n_extent;         /* 0: the outermost coordinate */
    km_term coef;              /* its coefficient in the permuted map (a single product) */
    uint32_t atoms[KM_DEGREE_MAX + 1]; /* the map's coordinate atoms it is made of */
    uint32_t n_atoms;
} pm_coord;

/* What the model path found. */
typedef struct {
    const char *in, *out;      /* buffers (borrowed from the model) */
    km_form g;                 /* the flat index: the global thread index along x */
    km_form n;                 /* its bound: e < n */
    km_form map;               /* the permuted side's index */
    bool read_permuted;        /* out[e] = in[Q(e)] rather than out[P(e)] = in[e] */
    pm_coord u, v;             /* u: e's stride-1 coordinate; v: the map's stride-1 one */
    uint32_t line;
} pm_match;

/* Is t the single product a * b (coefficients multiplied, atoms as a multiset)? */
static bool is_product(const km_term *t, const km_term *a, const km_term *b)
{
    if (t->coef != a->coef * b->coef || t->n != a->n + b->n)
        return false;
    uint32_t used[2 * KM_DEGREE_MAX] = {0};
    for (uint32_t i = 0; i < t->n; i++) {
        bool found = false;
        for (uint32_t j = 0; j < a->n + b->n && !found; j++) {
            uint32_t x = j < a->n ? a->atoms[j] : b->atoms[j - a->n];
            if (!used[j] && x == t->atoms[i])
                used[j] = found = true;
        }
        if (!found)
            return false;
    }
    return true;
}

/* f as one product term: true and *t, else false (sums, 0). */
static bool single_term(km_form f, km_term *t)
{
    if (f.n != 1)
        return false;
    *t = f.t[0];
    return true;
}

/* The coefficient of atom a in the map as one product. */
static bool coefficient(const km_kernel *k, km_form map, uint32_t a, km_term *out)
{
    km_term t[PM_TERMS];
    uint32_t n;
    if (!km_form_coefficient(k, map, a, t, PM_TERMS, &n) || n != 1)
        return false;
    *out = t[0];
    return true;
}

/* Grows c over the next coordinate up in e while the map keeps it contiguous with c: a
 * coordinate of stride c.stride * c.extent whose coefficient is c.coef * c.extent (i1 of
 * i1*d2 + i2, i2 = (e / S) % d2, i1 = e / (S*d2)). */
static void fuse(const km_kernel *k, const pm_match *t, pm_coord *c, bool allow_outermost)
{
    for (int round = 0; round < KM_DEGREE_MAX && c->n_extent == 1 && c->n_atoms <= KM_DEGREE_MAX; round++) {
        km_term s, next_coef;
        if (!single_term(c->stride, &s))
            return;
        bool grown = false;
        for (uint32_t i = 0; i < t->map.n && !grown; i++)
            for (uint32_t j = 0; j < t->map.t[i].n && !grown; j++) {
                uint32_t a = t->map.t[i].atoms[j];
                km_form st, ex;
                km_term st1;
                if (!km_atom_coordinate(k, a, t->g, &st, &ex) || !single_term(st, &st1) ||
                    !is_product(&st1, &s, &c->extent[0]) || !coefficient(k, t->map, a, &next_coef) ||
                    !is_product(&next_coef, &c->coef, &c->extent[0]))
                    continue;
                if (ex.n == 0 && !allow_outermost)
                    return;
                if (ex.n == 0) {
                    c->n_extent = 0;   /* the outermost: the fused extent is N / stride */
                } else {
                    km_term e1;
                    if (!single_term(ex, &e1) || c->extent[0].n + e1.n > KM_DEGREE_MAX)
                        return;
                    km_term f = c->extent[0];
                    f.coef *= e1.coef;
                    for (uint32_t q = 0; q < e1.n; q++)
                        f.atoms[f.n++] = e1.atoms[q];
                    c->extent[0] = f;
                }
                c->atoms[c->n_atoms++] = a;
                grown = true;
            }
        if (!grown)
            return;
    }
}

/* The guards on the write: exactly e < N (N into t->n); NULL, or the reason in why. */
static const char *check_guards(const km_kernel *k, const km_access *w, pm_match *t, char *why, size_t n)
{
    size_t ng;
    const km_guard *gs = km_guards(k, &ng);
    bool bound = false;
    for (uint32_t i = 0; i < w->n_guards; i++) {
        const km_guard *gd = &gs[w->guards[i]];
        if (!bound && gd->op && strcmp(gd->op, "<") == 0 && km_form_equal(gd->lhs, t->g) &&
            !km_form_mentions_kind(k, gd->rhs, KM_ATOM_THREAD_IDX, -1) &&
            !km_form_mentions_kind(k, gd->rhs, KM_ATOM_BLOCK_IDX, -1)) {
            t->n = gd->rhs;
            bound = true;
            continue;
        }
        snprintf(why, n, EN(RW_PERM_OTHER_GUARD), gd->line);
        return why;
    }
    if (!bound) {
        snprintf(why, n, EN(RW_PERM_NO_BOUNDS), w->line);
        return why;
    }
    return NULL;
}

/* Every access besides the copy, loops, barriers and atomics: NULL when the kernel is the
 * copy alone, else the reason in why. */
static const char *check_rest(const km_kernel *k, const km_class *c, char *why, size_t n)
{
    size_t na, nl;
    const km_access *as = km_accesses(k, &na);
    const km_loop *ls = km_loops(k, &nl);
    if (nl) {
        snprintf(why, n, EN(RW_PERM_LOOP), ls[0].line);
        return why;
    }
    if (km_barriers(k)) {
        snprintf(why, n, EN(RW_PERM_SYNCTHREADS), c->line);
        return why;
    }
    unsigned writes = 0, reads = 0;
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &as[i];
        if (a->space != KM_SPACE_GLOBAL || a->atomic) {
            snprintf(why, n, a->atomic ? EN(RW_PERM_ATOMIC_BESIDES) : EN(RW_PERM_ACCESS_BESIDES), a->line,
                     a->buffer);
            return why;
        }
        bool is_out = strcmp(a->buffer, c->out) == 0;
        if (a->mode == KM_READ && !is_out && !km_form_equal(a->index, c->in_map)) {
            snprintf(why, n, EN(RW_PERM_READ_SECOND), a->line, a->buffer);
            return why;
        }
        if (a->mode != KM_READ && (!is_out || !km_form_equal(a->index, c->out_map))) {
            snprintf(why, n, EN(RW_PERM_WRITTEN_BESIDES), a->line, a->buffer);
            return why;
        }
        if (a->mode == KM_READ && is_out) {
            snprintf(why, n, EN(RW_PERM_OUTPUT_READ), a->line, a->buffer);
            return why;
        }
        reads += a->mode == KM_READ;
        writes += a->mode != KM_READ;
    }
    if (writes != 1 || reads != 1) {
        snprintf(why, n, EN(RW_PERM_NOT_ONE_EACH), c->line);
        return why;
    }
    return NULL;
}

/* u and v of t from its map: NULL, or the reason in why. */
static const char *find_coords(const km_kernel *k, pm_match *t, char *why, size_t n)
{
    bool have_u = false, have_v = false;
    for (uint32_t i = 0; i < t->map.n; i++)
        for (uint32_t j = 0; j < t->map.t[i].n; j++) {
            uint32_t a = t->map.t[i].atoms[j];
            km_form st, ex;
            if (!km_atom_coordinate(k, a, t->g, &st, &ex))
                continue;
            km_term co, s1;
            if (!coefficient(k, t->map, a, &co)) {
                snprintf(why, n, EN(RW_PERM_COORD_TWICE), t->line);
                return why;
            }
            bool unit_e = single_term(st, &s1) && s1.n == 0 && s1.coef == 1;
            bool unit_map = co.n == 0 && co.coef == 1;
            pm_coord *c = NULL;
            if (unit_e && !have_u) {
                c = &t->u;
                have_u = true;
            } else if (unit_map && !unit_e && !have_v) {
                c = &t->v;
                have_v = true;
            }
            if (!c)
                continue;
            c->stride = st;
            c->atoms[0] = a;
            c->n_atoms = 1;
            c->coef = co;
            c->n_extent = 0;
            if (ex.n) {
                if (!single_term(ex, &c->extent[0])) {
                    snprintf(why, n, EN(RW_PERM_EXTENT_SUM),
                             t->line);
                    return why;
                }
                c->n_extent = 1;
            }
            if (unit_e && unit_map) {
                snprintf(why, n, EN(RW_PERM_INNER_CONTIGUOUS), t->line);
                return why;
            }
        }
    if (!have_u) {
        snprintf(why, n, EN(RW_PERM_NO_INNER), t->line);
        return why;
    }
    if (!have_v) {
        snprintf(why, n, EN(RW_PERM_NO_STRIDE1), t->line);
        return why;
    }
    if (t->u.n_extent == 0) {
        snprintf(why, n, EN(RW_PERM_NO_EXTENT), t->line);
        return why;
    }
    fuse(k, t, &t->u, false);   /* u's extent is A itself: it stays a product */
    fuse(k, t, &t->v, true);
    return NULL;
}

/* The model's reading of kernel f into t: HK_OK with why[0] == '\0', or with the reason in
 * why; HK_ENOMEM. *k is kept for printing (km_free by the caller). */
static int model_permute(const char *text, size_t len, const an_function *f, km_kernel **kp,
                         pm_match *t, char *why, size_t n)
{
    km_class c;
    why[0] = '\0';
    int rc = rw_model_classify(text, len, f->name, kp, &c, why, n);
    km_kernel *k = *kp;
    if (rc || !k)
        return rc;
    if (c.kind != KM_CLASS_PERMUTATION) {
        if (c.near == KM_CLASS_PERMUTATION)
            snprintf(why, n, "line %u: %s", c.why_line, c.why);
        else
            snprintf(why, n, EN(RW_PERM_MODEL_CLASS), km_class_name(c.kind));
        return HK_OK;
    }
    memset(t, 0, sizeof *t);
    t->in = c.in[0];
    t->out = c.out;
    t->line = c.line;
    if (c.shared_tiles) {
        snprintf(why, n, EN(RW_PERM_ALREADY_TILED), c.line);
        return HK_OK;
    }
    if (!t->in || !t->out || strcmp(t->in, t->out) == 0) {
        snprintf(why, n, EN(RW_PERM_NOT_COPY), c.line);
        return HK_OK;
    }
    if (km_form_mentions_kind(k, c.in_map, KM_ATOM_READ, -1) || km_form_mentions_kind(k, c.out_map, KM_ATOM_READ, -1)) {
        snprintf(why, n, EN(RW_PERM_GATHER), c.line);
        return HK_OK;
    }
    if (check_rest(k, &c, why, n))
        return HK_OK;
    bool in_flat = km_form_is_global_index(k, c.in_map, 0), out_flat = km_form_is_global_index(k, c.out_map, 0);
    if (!in_flat && !out_flat) {
        snprintf(why, n, EN(RW_PERM_NOT_FLAT), c.line);
        return HK_OK;
    }
    t->read_permuted = out_flat;
    t->g = out_flat ? c.out_map : c.in_map;
    t->map = out_flat ? c.in_map : c.out_map;
    size_t na;
    const km_access *as = km_accesses(k, &na);
    const km_access *w = km_output_map(k, t->out);
    if (!w || check_guards(k, w, t, why, n))
        return HK_OK;
    (void)as;
    find_coords(k, t, why, n);
    return HK_OK;
}

static const char tpl_permute[] =
    "{\n" /* i18n: not for people */
    "    // hk rewrite: tiled permutation. The flat index e < N splits into the tiled\n"
    "    // coordinates u = e % A (contiguous in $USIDE) and v = (e / S) % D (contiguous in\n"
    "    // $VSIDE) and the rest; each block walks HK_TILE x HK_TILE tiles of (u, v)\n"
    "    // (grid-stride), reads one coalesced along its input's contiguous coordinate into the\n"
    "    // padded tile, then writes it coalesced along its output's. The kernel's own index\n"
    "    // maps on 32-bit indices (a 64-bit division costs several times a 32-bit one). Any\n"
    "    // launch: where N does not split that way at run time, or passes 2^31, every\n"
    "    // element is copied as before.\n"
    "#define TP_OUT_INDEX(hk_e) $PE\n"
    "#define TP_IN_INDEX(hk_e) $QE\n"
    "    constexpr int HK_TILE = $TILE;\n"
    "    constexpr unsigned int HK_TPB = 256;\n"
    "    __shared__ $T hk_tile[HK_TILE][HK_TILE + 1];\n"
    PT_THREADS
    "    const long long hk_n = $N;\n" /* i18n: not for people */
    "    const long long hk_blocks = (long long)gridDim.x * gridDim.y * gridDim.z;\n"
    "    const long long hk_block = blockIdx.x + (long long)gridDim.x * (blockIdx.y + (long long)gridDim.y * blockIdx.z);\n"
    "    // the split e = ((hi * D + v) * S / A + mid) * A + u, checked in 32 bits (a 64-bit\n"
    "    // division is a long subroutine that every thread would run)\n"
    "    const long long hk_a = $A, hk_s = $S;\n"
    "    bool hk_tiled = hk_n > 0 && hk_n <= 0x7fffffffLL && hk_blocks <= 0x7fffffffLL && hk_a > 0 &&\n"
    "                    hk_s > 0 && hk_a <= hk_n && hk_s <= hk_n;\n"
    "    unsigned int hk_ia = 0, hk_is = 0, hk_id = 0;\n"
    "    if (hk_tiled) {\n"
    "        hk_ia = (unsigned int)hk_a;\n"
    "        hk_is = (unsigned int)hk_s;\n"
    "        const long long hk_d = $D;\n"
    "        hk_tiled = hk_d > 0 && hk_s * hk_d <= hk_n;\n"
    "        hk_id = hk_tiled ? (unsigned int)hk_d : 0u;\n"
    "        hk_tiled = hk_tiled && hk_is % hk_ia == 0 && (unsigned int)hk_n % (hk_is * hk_id) == 0;\n"
    "    }\n"
    "    if (!hk_tiled) {\n"
    "        for (long long hk_e = hk_block * hk_nthreads + hk_tid; hk_e < hk_n; hk_e += hk_blocks * hk_nthreads)\n"
    "            $OUT[TP_OUT_INDEX(hk_e)] = $IN[TP_IN_INDEX(hk_e)];\n"
    "    } else {\n"
    "        const unsigned int hk_m = hk_is / hk_ia;\n"
    "        const unsigned int hk_tu = (hk_ia + HK_TILE - 1) / HK_TILE, hk_tv = (hk_id + HK_TILE - 1) / HK_TILE;\n"
    "        const unsigned int hk_tiles = hk_tu * hk_tv * hk_m * ((unsigned int)hk_n / (hk_is * hk_id));\n"
    "        // the permuted map's other coordinates (e / sk) % dk (dk 0: the outermost) move with\n"
    "        // neither u nor v when they lie above u and above or below v: then inside a tile the\n"
    "        // map moves by hk_fu per step of u and 1 per step of v, and is evaluated once per tile\n"
    "        auto hk_aligned = [&](long long hk_sk, long long hk_dk) -> bool {\n"
    "            if (hk_sk > hk_n)\n"
    "                return true;\n"
    "            if (hk_sk <= 0 || (unsigned int)hk_sk % hk_ia != 0)\n"
    "                return false;\n"
    "            return (unsigned int)hk_sk % (hk_is * hk_id) == 0 ||\n"
    "                   (hk_dk > 0 && hk_sk * hk_dk <= hk_n && hk_is % (unsigned int)(hk_sk * hk_dk) == 0);\n"
    "        };\n"
    "        const bool hk_linear = $LIN;\n"
    "        (void)hk_aligned;\n"
    "        const unsigned int hk_fu = $FU;\n"
    "        for (unsigned int hk_t = (unsigned int)hk_block; hk_t < hk_tiles; hk_t += (unsigned int)hk_blocks) {\n"
    "            const unsigned int hk_q = hk_t / hk_tu, hk_rest = hk_q / hk_tv, hk_hi = hk_rest / hk_m;\n"
    "            const unsigned int hk_u0 = (hk_t - hk_q * hk_tu) * HK_TILE, hk_v0 = (hk_q - hk_rest * hk_tv) * HK_TILE;\n"
    "            const unsigned int hk_base = hk_hi * (hk_is * hk_id) + (hk_rest - hk_hi * hk_m) * hk_ia;\n"
    "            const unsigned int hk_e0 = hk_base + hk_v0 * hk_is + hk_u0;\n"
    "            const unsigned int hk_f0 = hk_linear ? (unsigned int)($F0) : 0u;\n"
    "            // a whole tile read by blocks of HK_TPB threads: no bounds checks and a fixed\n"
    "            // trip count, so the unrolled loops issue all their loads (stores) at once\n"
    "            const bool hk_fast = hk_u0 + HK_TILE <= hk_ia && hk_v0 + HK_TILE <= hk_id &&\n"
    "                                 hk_nthreads == HK_TPB && (HK_TILE * HK_TILE) % HK_TPB == 0;\n"
    "            if (hk_fast) {\n"
    "                #pragma unroll\n"
    "                for (unsigned int hk_k = 0; hk_k < HK_TILE * HK_TILE / HK_TPB; hk_k++) {\n"
    "                    const unsigned int hk_r = (hk_tid + hk_k * HK_TPB) / HK_TILE, hk_c = (hk_tid + hk_k * HK_TPB) % HK_TILE;\n"
    "                    const unsigned int hk_e = hk_base + (hk_v0 + $LV) * hk_is + hk_u0 + $LU;\n"
    "                    hk_tile[hk_r][hk_c] = $IN[$LOADIDX];\n"
    "                }\n"
    "            } else {\n"
    "                for (unsigned int hk_k = hk_tid; hk_k < HK_TILE * HK_TILE; hk_k += hk_nthreads) {\n"
    "                    const unsigned int hk_r = hk_k / HK_TILE, hk_c = hk_k % HK_TILE;\n"
    "                    if (hk_u0 + $LU < hk_ia && hk_v0 + $LV < hk_id) {\n"
    "                        const unsigned int hk_e = hk_base + (hk_v0 + $LV) * hk_is + hk_u0 + $LU;\n"
    "                        hk_tile[hk_r][hk_c] = $IN[$LOADIDX];\n"
    "                    }\n"
    "                }\n"
    "            }\n"
    "            __syncthreads();\n"
    "            if (hk_fast) {\n"
    "                #pragma unroll\n"
    "                for (unsigned int hk_k = 0; hk_k < HK_TILE * HK_TILE / HK_TPB; hk_k++) {\n"
    "                    const unsigned int hk_r = (hk_tid + hk_k * HK_TPB) / HK_TILE, hk_c = (hk_tid + hk_k * HK_TPB) % HK_TILE;\n"
    "                    const unsigned int hk_e = hk_base + (hk_v0 + $SV) * hk_is + hk_u0 + $SU;\n"
    "                    $OUT[$STOREIDX] = hk_tile[hk_c][hk_r];\n"
    "                }\n"
    "            } else {\n"
    "                for (unsigned int hk_k = hk_tid; hk_k < HK_TILE * HK_TILE; hk_k += hk_nthreads) {\n"
    "                    const unsigned int hk_r = hk_k / HK_TILE, hk_c = hk_k % HK_TILE;\n"
    "                    if (hk_u0 + $SU < hk_ia && hk_v0 + $SV < hk_id) {\n"
    "                        const unsigned int hk_e = hk_base + (hk_v0 + $SV) * hk_is + hk_u0 + $SU;\n"
    "                        $OUT[$STOREIDX] = hk_tile[hk_c][hk_r];\n"
    "                    }\n"
    "                }\n"
    "            }\n"
    "            __syncthreads();\n"
    "        }\n"
    "    }\n"
    "#undef TP_OUT_INDEX\n"
    "#undef TP_IN_INDEX\n"
    "}";

/* Casts of a product's first factor: sizes in 64 bits; the maps in hk_e's own type (the
 * macros' argument: 32 bits on the tiled path, 64 on the per-element one). */
#define WIDE "(long long)"
#define OWN "(decltype(hk_e))"

/* Appends form f as C (e written hk_e) to a fresh string in *out (hk_free). */
static int form_c(const km_kernel *k, km_form f, km_form g, const char *cast, char **out)
{
    struct hk_buf b;
    hk_buf_init(&b, PT_EXPR);
    int rc = hk_buf_appends(&b, "(");
    if (!rc)
        rc = km_form_print_c(k, f, g, "hk_e", cast, &b);
    if (!rc)
        rc = hk_buf_appends(&b, ")");
    if (rc) {
        hk_buf_free(&b);
        return rc;
    }
    *out = hk_buf_steal(&b);
    return *out ? HK_OK : HK_ENOMEM;
}

static bool in_group(const pm_coord *c, uint32_t a)
{
    for (uint32_t i = 0; i < c->n_atoms; i++)
        if (c->atoms[i] == a)
            return true;
    return false;
}

/* The run-time condition (C, into *out) under which the permuted map is linear in u and v
 * inside a tile: every term one coordinate of e times sizes, and every coordinate besides
 * u's and v's own hk_aligned; "false" when the map is not such a sum. */
static int linear_c(const km_kernel *k, const pm_match *t, char **out)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    struct hk_buf b;
    hk_buf_init(&b, PT_EXPR * 4);
    int rc = hk_buf_appends(&b, "true");
    bool linear = true;
    for (uint32_t i = 0; rc == HK_OK && linear && i < t->map.n; i++) {
        uint32_t coords = 0;
        for (uint32_t j = 0; rc == HK_OK && linear && j < t->map.t[i].n; j++) {
            uint32_t a = t->map.t[i].atoms[j];
            km_form st, ex;
            if (!km_atom_coordinate(k, a, t->g, &st, &ex)) {
                linear = at[a].kind == KM_ATOM_PARAM || at[a].kind == KM_ATOM_CONST;
                continue;
            }
            coords++;
            if (in_group(&t->u, a) || in_group(&t->v, a))
                continue;
            char *sc = NULL, *dc = NULL;
            rc = form_c(k, st, t->g, WIDE, &sc);
            if (!rc && ex.n)
                rc = form_c(k, ex, t->g, WIDE, &dc);
            if (!rc)
                rc = hk_buf_printf(&b, " && hk_aligned(%s, %s)", sc, dc ? dc : "0");
            hk_free(sc);
            hk_free(dc);
        }
        linear = linear && coords <= 1;
    }
    if (rc == HK_EUNSUPPORTED || rc == HK_ETOOBIG) {
        rc = HK_OK;
        linear = false;
    }
    if (rc) {
        hk_buf_free(&b);
        return rc;
    }
    if (!linear) {
        hk_buf_free(&b);
        *out = hk_strdup("false");
    } else {
        *out = hk_buf_steal(&b);
    }
    return *out ? HK_OK : HK_ENOMEM;
}

/* The extent of c as C: the product, or N / stride for the outermost. */
static int extent_c(const km_kernel *k, const pm_coord *c, km_form g, char **out)
{
    if (c->n_extent == 0) {
        *out = hk_strdup("(long long)((unsigned int)hk_n / (unsigned int)hk_s)"); /* i18n: not for people */
        return *out ? HK_OK : HK_ENOMEM;
    }
    return form_c(k, (km_form){.t = c->extent, .n = 1}, g, WIDE, out);
}

int rw_tiled_permute(const char *text, size_t len, const an_model *m, size_t kernel, int tile,
                     rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (tile != 16 && tile != 32)
        return HK_EINVAL;
    km_kernel *k = NULL;
    pm_match t;
    char why[1024];
    char *pe = NULL, *qe = NULL, *ne = NULL, *ae = NULL, *se = NULL, *de = NULL, *lin = NULL, *fu = NULL;
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    rc = model_permute(text, len, f, &k, &t, why, sizeof why);
    if (rc)
        goto out;
    if (!k || why[0]) {
        rc = rwp_not_applicable(out, name, f, why[0] ? why : EN(RW_PERM_NO_MODEL));
        goto out;
    }
    const an_param *pi = rwp_param_by_name(f, t.in), *po = rwp_param_by_name(f, t.out);
    if (!pi || !po || pi->pointer_depth != 1 || po->pointer_depth != 1) {
        snprintf(why, sizeof why, EN(RW_TR_NOT_POINTERS), t.line, t.in, t.out);
        rc = rwp_not_applicable(out, name, f, why);
        goto out;
    }
    char ti[PT_EXPR], to[PT_EXPR];
    rwp_pointee_type(pi, ti, sizeof ti);
    rwp_pointee_type(po, to, sizeof to);
    if (strcmp(ti, to) != 0 || !*ti) {
        snprintf(why, sizeof why, EN(RW_PERM_TYPES_DIFFER), t.line, ti, to);
        rc = rwp_not_applicable(out, name, f, why);
        goto out;
    }
    /* the kernel's own index maps, as C on hk_e */
    km_form gmap = t.g;
    if ((rc = form_c(k, t.read_permuted ? gmap : t.map, t.g, OWN, &pe)) ||
        (rc = form_c(k, t.read_permuted ? t.map : gmap, t.g, OWN, &qe)) ||
        (rc = form_c(k, t.n, t.g, WIDE, &ne)) ||
        (rc = form_c(k, (km_form){.t = t.u.extent, .n = 1}, t.g, WIDE, &ae)) ||
        (rc = form_c(k, t.v.stride, t.g, WIDE, &se)) || (rc = extent_c(k, &t.v, t.g, &de))) {
        if (rc == HK_EUNSUPPORTED || rc == HK_ETOOBIG) {
            snprintf(why, sizeof why, EN(RW_PERM_INDEX_USES), t.line);
            rc = rwp_not_applicable(out, name, f, why);
        }
        goto out;
    }
    if ((rc = linear_c(k, &t, &lin)) ||
        (rc = form_c(k, (km_form){.t = &t.u.coef, .n = 1}, t.g, "(unsigned int)", &fu))) {
        if (rc != HK_EUNSUPPORTED && rc != HK_ETOOBIG)
            goto out;
        hk_free(lin);
        hk_free(fu);
        lin = hk_strdup("false");
        fu = hk_strdup("0u");
        rc = (lin && fu) ? HK_OK : HK_ENOMEM;
        if (rc)
            goto out;
    }
    char tile_s[16];
    snprintf(tile_s, sizeof tile_s, "%d", tile);
    const char *in_side = t.read_permuted ? "the output" : "the input";
    const char *out_side = t.read_permuted ? "the input" : "the output";
    /* load phase: tx along the input's contiguous coordinate; store phase: the output's */
    const char *lu = t.read_permuted ? "hk_r" : "hk_c", *lv = t.read_permuted ? "hk_c" : "hk_r";
    const char *su = t.read_permuted ? "hk_c" : "hk_r", *sv = t.read_permuted ? "hk_r" : "hk_c";
    /* the permuted side's index inside a tile: once per tile where hk_linear holds */
    char lin_idx[160];
    snprintf(lin_idx, sizeof lin_idx, "(hk_linear ? hk_f0 + (%s) * hk_fu + (%s) : %s)",
             t.read_permuted ? lu : su, t.read_permuted ? lv : sv,
             t.read_permuted ? "TP_IN_INDEX(hk_e)" : "TP_OUT_INDEX(hk_e)");
    const char *load_idx = t.read_permuted ? lin_idx : "TP_IN_INDEX(hk_e)";
    const char *store_idx = t.read_permuted ? "TP_OUT_INDEX(hk_e)" : lin_idx;
    const char *f0 = t.read_permuted ? "TP_IN_INDEX(hk_e0)" : "TP_OUT_INDEX(hk_e0)";
    const char *kv[] = {"TILE", tile_s, "T", ti, "N", ne, "A", ae, "S", se, "D", de, "IN", pi->name,
                        "OUT", po->name, "PE", pe, "QE", qe, "LU", lu, "LV", lv, "SU", su, "SV", sv,
                        "USIDE", in_side, "VSIDE", out_side, "LIN", lin, "FU", fu, "F0", f0,
                        "LOADIDX", load_idx, "STOREIDX", store_idx, NULL};
    if ((rc = rwl_render(&b, tpl_permute, kv)))
        goto out;
    char *desc = hk_asprintf(t.read_permuted ? EN(RW_PERM_DESC_READ_PERMUTED) : EN(RW_PERM_DESC), f->name, pi->name,
                             po->name, tile, tile, ae, de, se);
    rc = rwp_replace_body(text, len, m, f, b.data, desc, out);
out:
    hk_free(pe);
    hk_free(qe);
    hk_free(ne);
    hk_free(ae);
    hk_free(se);
    hk_free(de);
    hk_free(lin);
    hk_free(fu);
    hk_buf_free(&b);
    km_free(k);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */
static const rw_param tiled_permute_params[] = {
    {.name = "tile", .type = RW_PARAM_ENUM, .values = {16, 32}, .n_values = 2, .def = 32},
};

static int emit_tiled_permute(const rw_context *c, const int *p, rw_result *out)
{
    return rw_tiled_permute(c->text, c->len, c->m, c->kernel, p[0], out);
}

const rw_descriptor rw_tiled_permute_desc = {
    .name = "tiled_permute",
    .summary = "a permutation of a flat index split by / and % through a padded shared-memory tile", /* i18n: not for people */
    .params = tiled_permute_params,
    .n_params = HK_ARRAY_LEN(tiled_permute_params),
    .flags = RW_ALGORITHM | RW_TILE_LOOP,
    .emit = emit_tiled_permute,
};
