/* digit_order (issue 13): a flat index split into digits by / and % (a mixed-radix
 * decomposition, `b = i / (O*N*K); o = i % (O*N*K) / (N*K); n = i % (N*K) / K; k = i % K`,
 * usually inside a grid-stride loop such as mmcv's CUDA_1D_KERNEL_LOOP) whose innermost
 * digit is not the one its heavy accesses are contiguous in. Adjacent threads take adjacent
 * values of the innermost digit; when the loads inside the element's loops are contiguous in
 * another digit (mmcv's assign_score_withk: points[... + m*O + o] in an M-loop, adjacent
 * threads differing in k, a gather through knn_idx), every warp touches 32 sectors where 4
 * would do. The rewrite reads the digits off the kernel model (km_atom_coordinate: each is
 * (i / S) % E or i % E, the outermost i / S), weighs every global access by the 32-byte
 * sectors one warp touches when a digit is innermost, times the trips of the loops around it
 * (a strided store is a cost like any other), and when another digit costs less it makes
 * that digit the innermost: each trip's counter value t is read in the new digit order and
 * the element index i the body sees is put back together from those digits in the old
 * order (i = d0 + d1*S1 + ...). The body is not touched, so each element is computed by the
 * same statements on the same index as before: the same outputs, the same arithmetic in the
 * same order, bit-identical; only which thread and trip handle it changes, a bijection of
 * [0, n) whenever n is a multiple of the outermost digit's stride (checked at run time, with
 * every extent positive; otherwise the original order runs). The grid is unchanged. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_period.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"
#include "spec/spec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define DG_MAX 8            /* digits in one split */
#define DG_UNKNOWN_TRIPS 16 /* a loop whose trip count neither the model nor the spec gives */
#define DG_WARP 32
#define DG_SECTOR 32

/* One digit of the flat index: (g / stride) % extent; the outermost has no extent (n 0). */
typedef struct {
    long atom;             /* its coordinate atom, or -1 when nothing spells it */
    km_form stride, extent;
    km_form stride2;       /* the unnamed outermost's stride is stride * stride2 (n 0: 1) */
    double cost;           /* weighted sectors per warp with this digit innermost */
    const char *name;      /* a local holding exactly it, else NULL */
    uint32_t line;         /* that local's line, else 0 */
    bool rest;             /* the outermost that nothing names (never made innermost) */
} dg_digit;

typedef struct {
    const char *text;
    const rw_toks *ts;
    km_kernel *km;
    const struct spec *sp;
    km_form g;             /* the flat index (the global thread index along x) */
    dg_digit d[DG_MAX + 1];
    size_t n;              /* digits, innermost first; d[n-1] the outermost */
    dg_digit x[DG_MAX];    /* coordinates off the chain: several digits read at once
                            * (carafe's i / (H*W), deform's group index), for the weighing */
    size_t nx;
    char why[512];
} dg_scan;

/* ---- forms ---------------------------------------------------------------------- */

/* Is c the single product a * b (coefficients multiplied, atoms as a multiset)? */
static bool is_product(km_form c, km_form a, km_form b)
{
    if (a.n != 1 || b.n != 1 || c.n != 1)
        return false;
    const km_term *x = &a.t[0], *y = &b.t[0], *z = &c.t[0];
    if (z->coef != x->coef * y->coef || z->n != x->n + y->n)
        return false;
    bool used[KM_DEGREE_MAX] = {false};
    for (uint32_t pass = 0; pass < 2; pass++) {
        const km_term *s = pass ? y : x;
        for (uint32_t i = 0; i < s->n; i++) {
            uint32_t j = 0;
            while (j < z->n && (used[j] || z->atoms[j] != s->atoms[i]))
                j++;
            if (j == z->n)
                return false;
            used[j] = true;
        }
    }
    return true;
}

/* The value of f with the spec's first size set for scalar parameters and the model's
 * known constants; false when an atom has none. */
static bool eval_form(const dg_scan *s, km_form f, long long *v)
{
    size_t na;
    const km_atom *at = km_atoms(s->km, &na);
    long long sum = 0;
    for (uint32_t i = 0; i < f.n; i++) {
        long long p = f.t[i].coef;
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &at[f.t[i].atoms[j]];
            long long x;
            if (a->kind == KM_ATOM_CONST && a->has_value) {
                x = a->value;
            } else if (a->kind == KM_ATOM_PARAM && s->sp) {
                bool found = false;
                for (size_t q = 0; q < s->sp->n_args && !found; q++) {
                    const spec_arg *sa = &s->sp->args[q];
                    if (!sa->value || !sa->name || strcmp(sa->name, a->name) != 0)
                        continue;
                    expr_value ev;
                    if (spec_eval(s->sp, sa->value, 0, 132, &ev, NULL, 0) != HK_OK || ev.is_float)
                        return false;
                    x = ev.i;
                    found = true;
                }
                if (!found)
                    return false;
            } else {
                return false;
            }
            if (x != 0 && (p > (1LL << 40) / (x < 0 ? -x : x) || p < -(1LL << 40) / (x < 0 ? -x : x)))
                return false;
            p *= x;
        }
        sum += p;
    }
    *v = sum;
    return true;
}

/* Only scalar parameters and named constants (what C can say before the loop)? */
static bool sizes_only(const dg_scan *s, km_form f)
{
    size_t na;
    const km_atom *at = km_atoms(s->km, &na);
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            enum km_atom_kind k = at[f.t[i].atoms[j]].kind;
            if (k != KM_ATOM_PARAM && k != KM_ATOM_CONST)
                return false;
        }
    return true;
}

/* Adds the coordinates of g that f holds (inside reads and operations too) to s. g is the
 * flat index of the thread's first element (accesses' element forms), or, with own, the
 * counter's whole form (start + step * $G: locals' forms inside the loop), whose digits are
 * added without an atom (the weighing reads the accesses' own) unless the same stride and
 * extent is there already. */
static void collect_in(dg_scan *s, km_form f, km_form g, bool own, int depth)
{
    size_t na;
    const km_atom *at = km_atoms(s->km, &na);
    if (depth > 8)
        return;
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            uint32_t id = f.t[i].atoms[j];
            km_form st, ex;
            if (km_atom_coordinate(s->km, id, g, &st, &ex)) {
                bool seen = false;
                for (size_t q = 0; q < s->n && !seen; q++)
                    seen = own ? km_form_equal(s->d[q].stride, st) && km_form_equal(s->d[q].extent, ex)
                               : s->d[q].atom == (long)id;
                if (!seen && s->n < DG_MAX)
                    s->d[s->n++] = (dg_digit){.atom = own ? -1 : (long)id, .stride = st, .extent = ex};
                continue;
            }
            if (at[id].kind == KM_ATOM_OPAQUE || at[id].kind == KM_ATOM_READ)
                for (uint32_t q = 0; q < at[id].n_args; q++)
                    collect_in(s, at[id].args[q], g, own, depth + 1);
        }
}

/* The coordinates found put in one chain, innermost first: stride 1, then each stride the
 * product of the one before and its extent, up to the outermost (no extent, or none spelled:
 * then g / the last stride, which nothing names). false with why when they do not make one. */
static bool chain(dg_scan *s, uint32_t line)
{
    dg_digit found[DG_MAX];
    size_t nf = s->n;
    memcpy(found, s->d, nf * sizeof *found);
    bool taken[DG_MAX] = {false};
    s->n = 0;
    static const km_term one = {.coef = 1, .n = 0};
    km_form stride = {.t = &one, .n = 1};
    for (;;) {
        size_t at = nf;
        for (size_t q = 0; q < nf; q++) {
            if (taken[q] || !km_form_equal(found[q].stride, stride))
                continue;
            /* one extent per stride: the narrowest that continues the chain (a fused digit
             * `g % (N*K)` beside `g % K` is the same split read coarser) */
            if (at == nf || (found[at].extent.n == 0 && found[q].extent.n != 0))
                at = q;
        }
        if (at == nf) {
            if (s->n == 0) {
                snprintf(s->why, sizeof s->why, EN(RW_DG_NO_UNIT), line);
                return false;
            }
            snprintf(s->why, sizeof s->why, EN(RW_DG_NOT_ONE_SPLIT), line);
            return false;
        }
        taken[at] = true;
        s->d[s->n++] = found[at];
        if (found[at].extent.n == 0)
            break;
        if (!sizes_only(s, found[at].extent) || found[at].extent.n != 1 || stride.n != 1) {
            if (found[at].name)
                snprintf(s->why, sizeof s->why, EN(RW_DG_RADIX_NAMED), found[at].line, found[at].name);
            else
                snprintf(s->why, sizeof s->why, EN(RW_DG_RADIX), line);
            return false;
        }
        if (s->n > DG_MAX - 1) {
            snprintf(s->why, sizeof s->why, EN(RW_DG_TOO_MANY), line, DG_MAX);
            return false;
        }
        /* the next stride: stride * extent, as the model writes it (a coordinate that has it) */
        km_form next = {0};
        for (size_t q = 0; q < nf && !next.n; q++)
            if (!taken[q] && is_product(found[q].stride, stride, found[at].extent))
                next = found[q].stride;
        if (!next.n) {   /* nothing names the rest: g / (stride * extent), the outermost */
            s->d[s->n++] = (dg_digit){.atom = -1, .stride = stride, .stride2 = found[at].extent, .rest = true};
            break;
        }
        stride = next;
    }
    /* the other coordinates read several digits at once (i / (H*W) beside (i / W) % H and
     * (i / (H*W)) % C): harmless for the remapping (the body's index is rebuilt whole); the
     * weighing reads them as the digits they span (dg_fused) */
    s->nx = 0;
    for (size_t q = 0; q < nf; q++)
        if (!taken[q] && found[q].atom >= 0)
            s->x[s->nx++] = found[q];
    if (s->n < 2) {
        snprintf(s->why, sizeof s->why, EN(RW_DG_NOT_SPLIT), line);
        return false;
    }
    return true;
}

/* ---- the weighing ---------------------------------------------------------------- */

static int elem_bytes(const char *t)
{
    if (!t)
        return 4;
    if (strstr(t, "double") || strstr(t, "int64") || strstr(t, "long") || strstr(t, "size_t") ||
        strstr(t, "float2"))
        return 8;
    if (strstr(t, "half") || strstr(t, "bfloat16") || strstr(t, "short"))
        return 2;
    if (strstr(t, "char") || strstr(t, "bool") || strstr(t, "int8"))
        return 1;
    if (strstr(t, "float4") || strstr(t, "int4"))
        return 16;
    return 4;
}

static bool is_digit(const dg_scan *s, uint32_t id)
{
    for (size_t j = 0; j < s->n; j++)
        if (s->d[j].atom == (long)id)
            return true;
    for (size_t j = 0; j < s->nx; j++)
        if (s->x[j].atom == (long)id)
            return true;
    return false;
}

static bool fused_coefficient(const dg_scan *s, const dg_digit *x, size_t j, long long *c);

/* Does h move with digit j: does it name that digit, or the flat index itself (threadIdx.x
 * outside the digits), at any depth? Other digits' own operands are not looked into. */
static bool depends(const dg_scan *s, km_form h, size_t j, uint32_t tx, int depth)
{
    size_t na;
    const km_atom *at = km_atoms(s->km, &na);
    if (depth > 8)
        return true;
    for (uint32_t i = 0; i < h.n; i++)
        for (uint32_t q = 0; q < h.t[i].n; q++) {
            uint32_t id = h.t[i].atoms[q];
            if (id == tx || (s->d[j].atom >= 0 && id == (uint32_t)s->d[j].atom))
                return true;
            for (size_t u = 0; u < s->nx; u++) {
                long long per;
                if (s->x[u].atom == (long)id && !(fused_coefficient(s, &s->x[u], j, &per) && per == 0))
                    return true;
            }
            if (is_digit(s, id))
                continue;
            for (uint32_t r = 0; r < at[id].n_args; r++)
                if (depends(s, at[id].args[r], j, tx, depth + 1))
                    return true;
        }
    return false;
}

static bool eval_stride(const dg_scan *s, const dg_digit *d, long long *v)
{
    long long a, b = 1;
    if (!eval_form(s, d->stride, &a) || (d->stride2.n && !eval_form(s, d->stride2, &b)))
        return false;
    *v = a * b;
    return true;
}

/* How an off-chain coordinate x = (g / Sx) % Ex (Ex absent: g / Sx) moves with digit j,
 * numerically (the spec's sizes): digit j at stride Sj with extent Ej lies wholly inside x
 * when Sx <= Sj and Sj*Ej <= Sx*Ex and Sx divides Sj: x then moves by Sj / Sx per step of the
 * digit (*c); wholly outside: 0; otherwise (the group index c / X of deform, sizes unknown)
 * false: not known. */
static bool fused_coefficient(const dg_scan *s, const dg_digit *x, size_t j, long long *c)
{
    const dg_digit *d = &s->d[j];
    long long sx, ex = 0, sj, ej = 0;
    if (!eval_form(s, x->stride, &sx) || sx <= 0 || (x->extent.n && (!eval_form(s, x->extent, &ex) || ex <= 0)) ||
        !eval_stride(s, d, &sj) || sj <= 0 || (d->extent.n && (!eval_form(s, d->extent, &ej) || ej <= 0)))
        return false;
    bool top = !d->extent.n;   /* the outermost digit: up to the bound */
    if (x->extent.n && sj >= sx * ex) {
        *c = 0;   /* above x */
        return true;
    }
    if (!top && sj * ej <= sx) {
        *c = 0;   /* below x */
        return true;
    }
    if (sj < sx || sj % sx != 0 || (x->extent.n && (top || sj * ej > sx * ex)))
        return false;
    /* x's edges must be digits' edges, or it splits a digit (a group index c / X) */
    bool lo = false, hi = !x->extent.n;
    for (size_t l = 0; l < s->n; l++) {
        long long sl;
        if (eval_stride(s, &s->d[l], &sl)) {
            lo = lo || sl == sx;
            hi = hi || sl == sx * ex;
        }
    }
    if (!lo || !hi)
        return false;
    *c = sj / sx;
    return true;
}

/* Sectors one warp touches when digit j is innermost: 1 when the index does not move with
 * the digit (a broadcast), |c| x bytes (at most 32) for a known coefficient c, 32 when it is
 * not known, when the digit reaches the index through a read or an operation (a gather:
 * points[kn * M * O + ...] with kn = knn_idx[... + k]), or is multiplied by something
 * else that is not a size. */
static double sectors(const dg_scan *s, km_form idx, size_t j, int bytes, uint32_t tx)
{
    const dg_digit *d = &s->d[j];
    size_t na;
    const km_atom *at = km_atoms(s->km, &na);
    /* gathers: a term's non-digit atom whose operands move with the digit */
    for (uint32_t i = 0; i < idx.n; i++)
        for (uint32_t q = 0; q < idx.t[i].n; q++) {
            uint32_t id = idx.t[i].atoms[q];
            if (id == tx || is_digit(s, id))
                continue;
            for (uint32_t r = 0; r < at[id].n_args; r++)
                if (depends(s, at[id].args[r], j, tx, 0))
                    return DG_WARP;
        }
    long long c = 0;
    km_term t[16];
    uint32_t nt;
    /* the flat index itself: threadIdx.x's coefficient cg stands for cg * stride_j */
    if (!km_form_coefficient(s->km, idx, tx, t, 16, &nt))
        return DG_WARP;
    if (nt) {
        long long sv;
        if (nt != 1 || t[0].n != 0 || !eval_stride(s, d, &sv))
            return DG_WARP;
        c += t[0].coef * sv;
    }
    if (d->atom >= 0) {
        if (!km_form_coefficient(s->km, idx, (uint32_t)d->atom, t, 16, &nt))
            return DG_WARP;
        long long cv;
        if (nt && !eval_form(s, (km_form){.t = t, .n = nt}, &cv))
            return DG_WARP;
        if (nt)
            c += cv;
    }
    for (size_t q = 0; q < s->nx; q++) {
        if (!km_form_coefficient(s->km, idx, (uint32_t)s->x[q].atom, t, 16, &nt))
            return DG_WARP;
        if (!nt)
            continue;
        long long cv, per;
        if (!eval_form(s, (km_form){.t = t, .n = nt}, &cv) || !fused_coefficient(s, &s->x[q], j, &per))
            return DG_WARP;
        c += cv * per;
    }
    if (c == 0)
        return 1;
    long long span = (c < 0 ? -c : c) * bytes;
    return span >= DG_SECTOR ? DG_WARP : (double)span * DG_WARP / DG_SECTOR;
}

/* The trips of loop l per element (the spec's sizes put in), or DG_UNKNOWN_TRIPS. */
static double trips(const dg_scan *s, const km_loop *l)
{
    long long v;
    if (l->has_trip && eval_form(s, l->trip, &v) && v > 0)
        return (double)v;
    if (l->kind == KM_LOOP_AFFINE && l->step.n == 1 && l->step.t[0].n == 0 && l->step.t[0].coef > 0) {
        long long a, b;
        if (eval_form(s, l->start, &a) && eval_form(s, l->bound, &b) && b > a)
            return (double)((b - a + l->step.t[0].coef - 1) / l->step.t[0].coef);
    }
    return DG_UNKNOWN_TRIPS;
}

static void weigh(dg_scan *s, size_t gs_loop, uint32_t tx)
{
    size_t na, nl, np;
    const km_access *ac = km_accesses(s->km, &na);
    const km_loop *lo = km_loops(s->km, &nl);
    const km_param *pa = km_params(s->km, &np);
    for (size_t j = 0; j < s->n; j++)
        s->d[j].cost = 0;
    for (size_t a = 0; a < na; a++) {
        if (ac[a].space != KM_SPACE_GLOBAL)
            continue;
        double w = ac[a].mode == KM_RMW ? 2 : 1;
        for (uint32_t q = 0; q < ac[a].n_loops; q++)
            if (ac[a].loops[q] != gs_loop)
                w *= trips(s, &lo[ac[a].loops[q]]);
        const char *et = NULL;
        for (size_t p = 0; p < np; p++)
            if (!strcmp(pa[p].name, ac[a].buffer))
                et = pa[p].elem_type;
        int bytes = elem_bytes(et);
        for (size_t j = 0; j < s->n; j++)
            s->d[j].cost += w * sectors(s, ac[a].element, j, bytes, tx);
    }
}

/* ---- the rewrite ----------------------------------------------------------------- */

static bool is_builtin(const char *c, size_t l)
{
    static const char *const names[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "hipThreadIdx_x",
                                        "hipBlockIdx_x", "hipBlockDim_x", "hipGridDim_x", "__lane_id", "laneId"};
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
        if (strlen(names[i]) == l && !memcmp(c, names[i], l))
            return true;
    return false;
}

/* What ties threads or elements together anywhere in the kernel body: false with why. */
static bool no_communication(dg_scan *s, size_t a, size_t b, const rwpt_loop *lo, const char *counter)
{
    const rw_toks *ts = s->ts;
    const char *text = s->text;
    for (size_t q = a; q < b; q++) {
        if (ts->t[q].kind != T_IDENT)
            continue;
        const char *c = text + ts->t[q].start;
        size_t l = ts->t[q].end - ts->t[q].start;
        if ((l >= 13 && !memcmp(c, "__syncthreads", 13)) || (l == 10 && !memcmp(c, "__syncwarp", 10)))
            return rwl_refuse(s->why, sizeof s->why, ts, text, q, "barrier",
                              EN(RW_DG_SHARE), (int)l, c);
        if (l >= 6 && !memcmp(c, "atomic", 6))
            return rwl_refuse(s->why, sizeof s->why, ts, text, q, "atomic",
                              EN(RW_DG_COMBINE), (int)l, c);
        if (l == 10 && !memcmp(c, "__shared__", 10))
            return rwl_refuse(s->why, sizeof s->why, ts, text, q, "__shared__", "%s",
                              EN(RW_DG_SHARED));
        if ((l >= 6 && !memcmp(c, "__shfl", 6)) || (l >= 8 && !memcmp(c, "__ballot", 8)) ||
            (l >= 10 && (!memcmp(c, "__any_sync", 10) || !memcmp(c, "__all_sync", 10))) ||
            (l >= 14 && !memcmp(c, "__reduce_", 9)) || (l >= 11 && !memcmp(c, "__match_", 8)) ||
            (l == 3 && !memcmp(c, "asm", 3)) || (l == 4 && !memcmp(c, "goto", 4)))
            return rwl_refuse(s->why, sizeof s->why, ts, text, q, EN(RW_C_WARP_OPERATION), EN(RW_DG_LANES), (int)l, c);
        if (q < lo->ba || q >= lo->bb)
            continue;
        /* inside the element */
        if (is_builtin(c, l))
            return rwl_refuse(s->why, sizeof s->why, ts, text, q, "thread index",
                              EN(RW_DG_BUILTIN),
                              (int)l, c);
        if (l == 5 && !memcmp(c, "break", 5) && !rwl_in_nested(ts, lo->ba, lo->bb, q, true))
            return rwl_refuse(s->why, sizeof s->why, ts, text, q, "break", "%s",
                              EN(RW_DG_BREAK));
        if (strlen(counter) == l && !memcmp(c, counter, l) && rwl_scalar_written(ts, q))
            return rwl_refuse(s->why, sizeof s->why, ts, text, q, EN(RW_C_LOOP_COUNTER),
                              EN(RW_DG_WRITES_COUNTER), counter);
        if (rwl_scalar_written(ts, q) && !(q + 1 < ts->n && rwl_tok_is(ts, q + 1, "["))) {
            /* a scalar written in the element must be the element's own */
            bool own = false;
            for (size_t d = lo->ba; d < lo->bb && !own; d++)
                own = ts->t[d].kind == T_IDENT && rwl_same_tok(ts, d, q) && rwl_declared_here(ts, d);
            if (!own)
                return rwl_refuse(s->why, sizeof s->why, ts, text, q, EN(RW_C_CARRIED_VALUE),
                                  EN(RW_DG_CARRIED), (int)l, c);
        }
    }
    return true;
}

static int digit_order(const rw_context *ctx, rw_result *out)
{
    const char *text = ctx->text;
    size_t len = ctx->len;
    *out = (rw_result){0};
    const an_function *f;
    int rc = rwl_check_kernel(text, len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    km_kernel *km = NULL;
    rw_edits es = {0};
    struct hk_buf nb, cb;
    hk_buf_init(&nb, RW_TEXT_MAX);
    hk_buf_init(&cb, 4096);
    dg_scan *s = calloc(1, sizeof *s);
    if (!s) {
        rc = HK_ENOMEM;
        goto out;
    }
    s->text = text, s->ts = &ts, s->sp = ctx->spec;
    if ((rc = rwl_open_body(text, len, f, true, &ts, &km, s->why, sizeof s->why)))
        goto out;
    s->km = km;
    if (s->why[0])
        goto refused;
    rwpt_loop lo;
    if (!rwpt_grid_loop_in(text, len, f, ctx->m, &ts, km, 0, false, &lo, s->why, sizeof s->why))
        goto refused;
    uint32_t line = (uint32_t)rwl_line_at(text, ts.t[lo.st].start);
    if (lo.ba == 0 || lo.bb >= ts.n || !rwl_tok_is(&ts, lo.ba - 1, "{") || !rwl_tok_is(&ts, lo.bb, "}")) {
        snprintf(s->why, sizeof s->why, EN(RW_DG_NOT_BRACED), line);
        goto refused;
    }
    char counter[128];
    snprintf(counter, sizeof counter, "%.*s", (int)(ts.t[lo.v].end - ts.t[lo.v].start), text + ts.t[lo.v].start);
    /* the model's loop: its start is the flat index of the thread's first element */
    size_t nl, gs = SIZE_MAX;
    const km_loop *kl = km_loops(km, &nl);
    for (size_t q = 0; q < nl && gs == SIZE_MAX; q++)
        if (kl[q].kind == KM_LOOP_GRID_STRIDE && kl[q].parent < 0 && kl[q].var && !strcmp(kl[q].var, counter))
            gs = q;
    if (gs == SIZE_MAX || !km_form_is_global_index(km, kl[gs].start, 0)) {
        snprintf(s->why, sizeof s->why, EN(RW_DG_NOT_GLOBAL), line);
        goto refused;
    }
    s->g = kl[gs].start;
    if (!no_communication(s, 0, ts.n, &lo, counter))
        goto refused;
    /* the digits, wherever the model meets them: accesses and the locals that hold them */
    size_t na, nloc;
    const km_access *ac = km_accesses(km, &na);
    const km_local *loc = km_locals(km, &nloc);
    for (size_t a = 0; a < na; a++)
        collect_in(s, ac[a].element, s->g, false, 0);
    /* a digit only locals hold (roi_align's pw reaches its reads through float math): the
     * locals' forms count the loop's trips, so they are read against the counter's own form */
    km_form whole = {0};
    for (size_t q = 0; q < nloc; q++)
        if (loc[q].kind == KM_LOCAL_LOOP_VAR && !strcmp(loc[q].name, counter) && km_form_mentions(km, loc[q].form, kl[gs].counter))
            whole = loc[q].form;
    for (size_t q = 0; q < nloc; q++)
        if (loc[q].kind == KM_LOCAL_VALUE) {
            collect_in(s, loc[q].form, s->g, false, 0);
            if (whole.n)
                collect_in(s, loc[q].form, whole, true, 0);
        }
    for (size_t j = 0; j < s->n; j++)
        for (size_t q = 0; q < nloc && !s->d[j].name; q++)
            if (s->d[j].atom >= 0 && loc[q].kind == KM_LOCAL_VALUE && loc[q].form.n == 1 &&
                loc[q].form.t[0].n == 1 && loc[q].form.t[0].coef == 1 &&
                loc[q].form.t[0].atoms[0] == (uint32_t)s->d[j].atom)
                s->d[j].name = loc[q].name, s->d[j].line = loc[q].line;
    if (!chain(s, line))
        goto refused;
    uint32_t tx;
    if (!km_builtin_atom(km, KM_ATOM_THREAD_IDX, 0, &tx)) {
        snprintf(s->why, sizeof s->why, EN(RW_DG_NO_TX), line);
        goto refused;
    }
    weigh(s, gs, tx);
    /* candidates: digits something names, of more than one value at the spec's first size (an
     * extent of 1, or an outermost digit whose bound is its stride, is no order at all) */
    size_t best = 0;
    for (size_t j = 1; j < s->n; j++) {
        long long e, sv, nv;
        if (s->d[j].rest)
            continue;
        if (s->d[j].extent.n ? eval_form(s, s->d[j].extent, &e) && e < 2
                             : eval_form(s, kl[gs].bound, &nv) && eval_stride(s, &s->d[j], &sv) && sv > 0 && nv / sv < 2)
            continue;
        if (s->d[j].cost < s->d[best].cost)
            best = j;
    }
    /* the weighing, in words: "k 537 (innermost now), o 138, n 1049, rest 1089" */
    char names[DG_MAX + 1][160];
    for (size_t j = 0; j < s->n; j++) {
        struct hk_buf e;
        hk_buf_init(&e, 4096);
        if (s->d[j].atom >= 0 && km_form_print_c(km, (km_form){.t = &(km_term){.coef = 1, .n = 1,
                                                                .atoms = {(uint32_t)s->d[j].atom}}, .n = 1},
                                                 s->g, counter, NULL, &e) == HK_OK)
            snprintf(names[j], sizeof names[j], "%s", e.data);
        else {
            /* a digit only locals name, or the unnamed rest: from its stride and extent */
            struct hk_buf st, ex;
            hk_buf_init(&st, 2048);
            hk_buf_init(&ex, 2048);
            bool one = s->d[j].stride.n == 1 && s->d[j].stride.t[0].n == 0 && s->d[j].stride.t[0].coef == 1;
            bool ok = km_form_print_c(km, s->d[j].stride, s->g, counter, NULL, &st) == HK_OK &&
                      (!s->d[j].stride2.n || (hk_buf_appends(&st, "*") == HK_OK &&
                                              km_form_print_c(km, s->d[j].stride2, s->g, counter, NULL, &st) == HK_OK)) &&
                      (!s->d[j].extent.n || km_form_print_c(km, s->d[j].extent, s->g, counter, NULL, &ex) == HK_OK);
            if (!ok)
                snprintf(names[j], sizeof names[j], EN(RW_DG_A_DIGIT), counter);
            else if (!s->d[j].extent.n)
                snprintf(names[j], sizeof names[j], "%.32s / (%.50s)", counter, st.data);
            else if (one)
                snprintf(names[j], sizeof names[j], "%.32s %% (%.50s)", counter, ex.data);
            else
                snprintf(names[j], sizeof names[j], "(%.32s / (%.50s)) %% (%.50s)", counter, st.data, ex.data);
            hk_buf_free(&st);
            hk_buf_free(&ex);
        }
        hk_buf_free(&e);
        if ((rc = hk_buf_appends(&cb, j ? ", " : "")) ||
            (rc = hk_buf_printf(&cb, j == 0 ? EN(RW_DG_WEIGHT_NOW) : "`%s` %.0f", names[j], s->d[j].cost)))
            goto out;
    }
    if (best == 0) {
        snprintf(s->why, sizeof s->why, EN(RW_DG_ALREADY_BEST), line, cb.data);
        goto refused;
    }
    /* the emitted element: the counter's value read in the new digit order */
    char bound[512];
    if (lo.bnd_b <= lo.bnd_a || ts.t[lo.bnd_b - 1].end - ts.t[lo.bnd_a].start >= sizeof bound) {
        snprintf(s->why, sizeof s->why, EN(RW_DG_BOUND_LONG), line);
        goto refused;
    }
    snprintf(bound, sizeof bound, "%.*s", (int)(ts.t[lo.bnd_b - 1].end - ts.t[lo.bnd_a].start),
             text + ts.t[lo.bnd_a].start);
    const char *T = "decltype(hk_dg_t)";
    if ((rc = hk_buf_printf(&nb, " /* hk digit_order: %s innermost */ auto hk_dg_t = %s; " /* i18n: not for people */
                            "%s hk_dg_i = hk_dg_t;\n    {", names[best], counter, T)))
        goto out;
    /* extents (the outermost: n / its stride) and strides, all of the counter's type */
    for (size_t j = 0; j + 1 < s->n; j++) {
        struct hk_buf e;
        hk_buf_init(&e, 4096);
        rc = km_form_print_c(km, s->d[j].extent, s->g, counter, NULL, &e);
        if (rc == HK_OK)
            rc = hk_buf_printf(&nb, "\n        const %s hk_dg_e%zu = (%s)(%s);", T, j, T, e.data);
        hk_buf_free(&e);
        if (rc == HK_EUNSUPPORTED) {
            snprintf(s->why, sizeof s->why, EN(RW_DG_RADIX_SHORT), line);
            goto refused;
        }
        if (rc)
            goto out;
    }
    if ((rc = hk_buf_printf(&nb, "\n        const %s hk_dg_s0 = 1;", T)))
        goto out;
    for (size_t j = 1; j < s->n; j++)
        if ((rc = hk_buf_printf(&nb, "\n        const %s hk_dg_s%zu = hk_dg_s%zu * hk_dg_e%zu;", T, j, j - 1, j - 1)))
            goto out;
    size_t top = s->n - 1;
    if ((rc = hk_buf_printf(&nb, "\n        const %s hk_dg_n = (%s)(%s);\n        if (", T, T, bound)))
        goto out;
    for (size_t j = 0; j < top; j++)
        if ((rc = hk_buf_printf(&nb, "hk_dg_e%zu > 0 && ", j)))
            goto out;
    if ((rc = hk_buf_printf(&nb, "hk_dg_n %% hk_dg_s%zu == 0) {\n            const %s hk_dg_e%zu = hk_dg_n / hk_dg_s%zu;\n"
                            "            %s hk_dg_r = hk_dg_t;", top, T, top, top, T)))
        goto out;
    /* new order: best, then the others inner to outer; the last takes what is left */
    size_t order[DG_MAX + 1], no = 0;
    order[no++] = best;
    for (size_t j = 0; j < s->n; j++)
        if (j != best)
            order[no++] = j;
    for (size_t q = 0; q < no; q++) {
        size_t j = order[q];
        if (q + 1 < no)
            rc = hk_buf_printf(&nb, "\n            const %s hk_dg_d%zu = hk_dg_r %% hk_dg_e%zu;\n            hk_dg_r /= hk_dg_e%zu;",
                               T, j, j, j);
        else
            rc = hk_buf_printf(&nb, "\n            const %s hk_dg_d%zu = hk_dg_r;", T, j);
        if (rc)
            goto out;
    }
    if ((rc = hk_buf_appends(&nb, "\n            (void)hk_dg_e")) ||
        (rc = hk_buf_printf(&nb, "%zu;\n            hk_dg_i = hk_dg_d0", top)))
        goto out;
    for (size_t j = 1; j < s->n; j++)
        if ((rc = hk_buf_printf(&nb, " + hk_dg_d%zu * hk_dg_s%zu", j, j)))
            goto out;
    if ((rc = hk_buf_printf(&nb, ";\n        }\n    }\n    {\n    const %s %s = hk_dg_i;", T, counter)))
        goto out;
    if ((rc = rwl_edits_add(&es, ts.t[lo.ba - 1].end, ts.t[lo.ba - 1].end, nb.data)) ||
        (rc = rwl_edits_add(&es, ts.t[lo.bb].start, ts.t[lo.bb].start, "}\n    ")))
        goto out;
    const char *bname = names[best];
    bool has_return = false;
    for (size_t q = lo.ba; q < lo.bb && !has_return; q++)
        has_return = rwl_tok_is_ident(&ts, q, "return");
    /* with the `return` note or without: one sentence each */
    char *d = hk_asprintf(has_return ? EN(RW_DG_DESC_RETURN) : EN(RW_DG_DESC), f->name, counter, line, bname,
                          cb.data);
    rc = rwl_finish(text, len, ctx->m, f->name, &es, d, out);
    if (rc == HK_OK && out->applicable)
        out->keeps_launch = false;
    goto out;
refused:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "digit_order", f->name,
                                             s->why[0] ? s->why : EN(RW_NO_REASON)));
out:
    hk_buf_free(&nb);
    hk_buf_free(&cb);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    km_free(km);
    free(s);
    return rc;
}

static int emit_digit_order(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return digit_order(c, out);
}

const rw_descriptor rw_digit_order_desc = {
    .name = "digit_order",
    .summary = "a flat index's digits reordered so that the one its heavy accesses are contiguous in is innermost", /* i18n: not for people (no listing reads it) */
    .flags = RW_ALGORITHM,
    .emit = emit_digit_order,
};
