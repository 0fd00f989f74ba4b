/* warp_reduce (rewrite_pattern.h): per-thread atomics or a shared-memory tree into one
 * location become grid-stride accumulation, warp shuffles and one atomic per block. */
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

enum pt_op { PT_SUM, PT_MAX, PT_MIN };

static const char *reduce_identity(enum pt_op op, const char *t)
{
    static const char *const tab[][3] = {
        /* type, max identity, min identity */
        {"float", "-__int_as_float(0x7f800000)", "__int_as_float(0x7f800000)"},
        {"double", "-__longlong_as_double(0x7ff0000000000000LL)", "__longlong_as_double(0x7ff0000000000000LL)"},
        {"int", "(-2147483647 - 1)", "2147483647"},
        {"unsigned int", "0u", "0xffffffffu"},
        {"long long", "(-9223372036854775807LL - 1)", "9223372036854775807LL"},
        {"unsigned long long", "0ull", "0xffffffffffffffffull"}}; /* i18n: not for people */
    if (op == PT_SUM)
        return "0";
    for (size_t i = 0; i < HK_ARRAY_LEN(tab); i++)
        if (strcmp(t, tab[i][0]) == 0)
            return tab[i][op == PT_MAX ? 1 : 2];
    return NULL;
}

/* The end of both block-reduction bodies: each warp's register sum through shuffles, one
 * shared slot per warp, the first warp combines them and one atomic per block. */
#define RD_BLOCK_TAIL \
    "    __shared__ $T hk_part[32];\n" \
    RD_SHFL("    ", "hk_width") \
    "    if (hk_lane == 0)\n" \
    "        hk_part[hk_warp] = hk_acc;\n" \
    "    __syncthreads();\n" \
    "    if (hk_warp == 0) {\n" \
    "        hk_acc = (hk_lane < hk_nwarps) ? hk_part[hk_lane] : $IDENT;\n" \
    RD_SHFL("        ", "hk_width") \
    "        if (hk_lane == 0)\n" \
    "            $ATOMIC($TARGET, hk_acc);\n" \
    "    }\n" \
    "}"

static const char tpl_reduce[] =
    "{\n"
    "    // hk rewrite: warp-shuffle reduction. Grid-stride accumulation in a register,\n" /* i18n: not for people */
    "    // __shfl_down_sync within each warp, one shared slot per warp, one atomic per block.\n"
    PT_MAX_BLOCKS
    "    $T hk_acc = $IDENT;\n"
    "$VEC"
    "    // several loads in flight per thread: the loop is latency-bound otherwise\n" /* i18n: not for people */
    "    #pragma unroll 4\n"
    "    $HEAD\n"
    "        $ACCUM\n"
    "    }\n"
    PT_THREADS
    PT_WARP
    RD_BLOCK_TAIL;

/* What a reduction kernel is made of, found by one of the two matchers below. */
typedef struct {
    enum pt_op op;
    const char *atomic;       /* "atomicAdd", ... */
    const an_param *target;   /* the accumulator's pointer parameter */
    char *target_text;        /* the atomic's first argument as written */
    char *expr;               /* the value one index contributes */
    char *cond;               /* a condition on that contribution, or NULL */
    const pt_index *ix;
} pt_reduce;

static void reduce_free(pt_reduce *r)
{
    hk_free(r->target_text);
    hk_free(r->expr);
    hk_free(r->cond);
}

static bool atomic_name(const rw_toks *ts, size_t k, pt_reduce *r)
{
    if (rwl_tok_is(ts, k, "atomicAdd"))
        r->op = PT_SUM;
    else if (rwl_tok_is(ts, k, "atomicMax"))
        r->op = PT_MAX;
    else if (rwl_tok_is(ts, k, "atomicMin"))
        r->op = PT_MIN;
    else
        return false;
    r->atomic = r->op == PT_SUM ? "atomicAdd" : r->op == PT_MAX ? "atomicMax" : "atomicMin";
    return true;
}

/* `[if (COND)] atomicX(TARGET, EXPR);` guarded by a 1D bounds check. NULL or why not. */
static const char *match_atomic_reduce(const an_function *f, const rw_toks *ts, const pt_shape *s,
                                       pt_reduce *r)
{
    if (s->n_idx != 1 || s->idx[0].axis != 'x')
        return EN(RW_RED_NOT_1D);
    if (s->pre_b > s->pre_a)
        return EN(RW_RED_STMTS_BEFORE_CHECK);
    size_t a = s->body_a, e = s->body_b;
    if (rwl_tok_is(ts, a, "{") && rwl_match_close(ts, a) == e - 1) {
        a++;
        e--;
    }
    size_t ca = 0, cb = 0;
    if (rwl_tok_is(ts, a, "if") && rwl_tok_is(ts, a + 1, "(")) {
        size_t c = rwl_match_close(ts, a + 1);
        if (c >= e || rwl_stmt_end(ts, a, e) != e || rwl_tok_is(ts, rwl_stmt_end(ts, c + 1, e), "else"))
            return EN(RW_RED_GUARDED_NOT_ONE_ATOMIC);
        ca = a + 2;
        cb = c;
        a = c + 1;
        if (rwl_tok_is(ts, a, "{") && rwl_match_close(ts, a) == e - 1) {
            a++;
            e--;
        }
        if (rwp_has_side_effects(ts, ca, cb))
            return EN(RW_RED_COND_SIDE_EFFECTS);
    }
    if (!atomic_name(ts, a, r))
        return EN(RW_RED_NOT_ADD_MAX_MIN);
    size_t a0, b0, a1, b1, ka, kb;
    if (!rwp_call2(ts, a, e, &a0, &b0, &a1, &b1))
        return EN(RW_RED_NOT_CALL2);
    if (!(r->target = rwp_atomic_target(f, ts, a0, b0, &ka, &kb)))
        return EN(RW_RED_TARGET_NOT_PARAM);
    if (rwp_mentions(ts, a0, b0, s->idx[0].name))
        return EN(RW_RED_TARGET_INDEX);
    for (size_t k = a0; k < b0; k++)
        if (rwp_tok_ident(ts, k) && !rwp_param_named(f, ts, k) && !(k > 0 && rwl_tok_is(ts, k - 1, ".")))
            return EN(RW_RED_TARGET_LOCAL);
    if (rwp_has_side_effects(ts, a1, b1))
        return EN(RW_RED_VALUE_SIDE_EFFECTS);
    if (!(r->target_text = rwl_tok_text(ts, a0, b0)) || !(r->expr = rwl_tok_text(ts, a1, b1)) ||
        (cb > ca && !(r->cond = rwl_tok_text(ts, ca, cb))))
        return hk_strerror(HK_ENOMEM);
    r->ix = &s->idx[0];
    return NULL;
}

/* The shared-memory tree form:
 *     __shared__ T sdata[N];
 *     unsigned tid = threadIdx.x; int i = <1D index>;       (either order)
 *     sdata[tid] = (i < n) ? EXPR : 0;
 *     __syncthreads();
 *     for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
 *         if (tid < s) sdata[tid] += sdata[tid + s];
 *         __syncthreads();
 *     }
 *     if (tid == 0) atomicAdd(TARGET, sdata[0]);
 * It has no guard shape, so it is read statement by statement. NULL or why not. */
static const char *match_tree_reduce(const an_function *f, const rw_toks *ts, pt_shape *s,
                                     pt_reduce *r)
{
    if (f->n_shared != 1)
        return EN(RW_RED_NO_TREE);
    char sh[PT_NAME], tid[PT_NAME] = "", c[PT_EXPR];
    snprintf(sh, sizeof sh, "%s", f->shared[0].name);
    size_t end = ts->n - 1, k = 1;
    memset(s, 0, sizeof *s);
    bool loop = false, load = false, sync_after_load = false, final = false;
    while (k < end) {
        size_t e = rwl_stmt_end(ts, k, end);
        size_t q = k;
        if (rwl_tok_is(ts, q, "__shared__")) {
            k = e;
            continue;
        }
        if (rwl_tok_is(ts, q, "const"))
            q++;
        size_t tstart = q;
        while (q < e && rwp_is_type_word(ts, q))
            q++;
        if (!load && q > tstart && rwp_tok_ident(ts, q) && rwl_tok_is(ts, q + 1, "=") && rwl_tok_is(ts, e - 1, ";")) {
            rwp_compact(ts, q + 2, e - 1, c, sizeof c);
            if (strcmp(c, "threadIdx.x") == 0) {
                rwp_tok_copy(ts, q, tid, sizeof tid);
                k = e;
                continue;
            }
            if (rwp_index_axis(c, false) == 'x' && s->n_idx == 0) {
                pt_index *ix = &s->idx[s->n_idx++];
                rwp_tok_copy(ts, q, ix->name, sizeof ix->name);
                char *ty = rwl_tok_text(ts, k, q);
                if (!ty)
                    return hk_strerror(HK_ENOMEM);
                snprintf(ix->type, sizeof ix->type, "%s", ty);
                hk_free(ty);
                ix->axis = 'x';
                k = e;
                continue;
            }
            return EN(RW_RED_TREE_DECL);
        }
        if (!load) {
            /* sdata[tid] = (i < n) ? EXPR : 0; */
            if (!*tid || s->n_idx != 1 || !rwl_tok_is(ts, k, sh) || !rwl_tok_is(ts, k + 1, "[") ||
                !rwl_tok_is(ts, k + 2, tid) || !rwl_tok_is(ts, k + 3, "]") || !rwl_tok_is(ts, k + 4, "="))
                return EN(RW_RED_NOT_LOADED);
            size_t a = k + 5, b = e - 1;
            size_t qm = b, colon = b;
            int depth = 0;
            for (size_t j = a; j < b; j++) {
                if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "["))
                    depth++;
                else if (rwl_tok_is(ts, j, ")") || rwl_tok_is(ts, j, "]"))
                    depth--;
                else if (depth == 0 && rwl_tok_is(ts, j, "?") && qm == b)
                    qm = j;
                else if (depth == 0 && rwl_tok_is(ts, j, ":") && qm < b)
                    colon = j;
            }
            if (qm == b || colon == b || !rwp_guard_term(s, ts, a, qm, true) ||
                !(colon + 2 == b && (rwl_tok_is(ts, colon + 1, "0") || rwl_tok_is(ts, colon + 1, "0.0f") ||
                                     rwl_tok_is(ts, colon + 1, "0.0") || rwl_tok_is(ts, colon + 1, "0.f") ||
                                     rwl_tok_is(ts, colon + 1, "0u"))))
                return EN(RW_RED_NOT_LOADED);
            if (rwp_has_side_effects(ts, qm + 1, colon) || rwp_mentions(ts, qm + 1, colon, sh))
                return EN(RW_RED_LOADED_SIDE_EFFECTS);
            if (!(r->expr = rwl_tok_text(ts, qm + 1, colon)))
                return hk_strerror(HK_ENOMEM);
            load = true;
            k = e;
            continue;
        }
        if (rwl_tok_is(ts, k, "__syncthreads") && !loop) {
            sync_after_load = true;
            k = e;
            continue;
        }
        if (rwl_tok_is(ts, k, "for") && !loop && sync_after_load) {
            /* for (T s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sh[tid] += sh[tid + s];
             * __syncthreads(); } -- compared in compact form, the step variable named V */
            size_t v = k + 2;
            while (rwp_is_type_word(ts, v))
                v++;
            char var[PT_NAME], want[4 * PT_NAME + 256];
            rwp_tok_copy(ts, v, var, sizeof var);
            rwp_compact(ts, v, e, c, sizeof c);
            int w1 = snprintf(want, sizeof want,
                              "%s=blockDim.x/2;%s>0;%s>>=1){if(%s<%s)%s[%s]+=%s[%s+%s];__syncthreads();}",
                              var, var, var, tid, var, sh, tid, sh, tid, var);
            char want2[sizeof want];
            int w2 = snprintf(want2, sizeof want2,
                              "%s=blockDim.x/2;%s>0;%s>>=1){if(%s<%s){%s[%s]+=%s[%s+%s];}__syncthreads();}",
                              var, var, var, tid, var, sh, tid, sh, tid, var);
            if (!rwp_tok_ident(ts, v) || w1 >= (int)sizeof want || w2 >= (int)sizeof want2 ||
                (strcmp(c, want) != 0 && strcmp(c, want2) != 0))
                return EN(RW_RED_TREE_LOOP);
            loop = true;
            k = e;
            continue;
        }
        if (rwl_tok_is(ts, k, "if") && loop && !final) {
            /* if (tid == 0) atomicAdd(TARGET, sdata[0]); */
            rwp_compact(ts, k, k + 7, c, sizeof c);
            char want[2 * PT_NAME + 16];
            snprintf(want, sizeof want, "if(%s==0)", tid);
            size_t a = k + 6;
            if (rwl_tok_is(ts, a, "{"))
                a++;
            size_t stop = rwl_tok_is(ts, k + 6, "{") ? e - 1 : e;
            size_t a0, b0, a1, b1, ka, kb;
            char v[PT_EXPR], vw[PT_NAME + 8];
            if (strncmp(c, want, strlen(want)) != 0 || !atomic_name(ts, a, r) ||
                !rwp_call2(ts, a, stop, &a0, &b0, &a1, &b1))
                return EN(RW_RED_BLOCK_RESULT_WRITE);
            rwp_compact(ts, a1, b1, v, sizeof v);
            snprintf(vw, sizeof vw, "%s[0]", sh);
            if (r->op != PT_SUM || strcmp(v, vw) != 0 ||
                !(r->target = rwp_atomic_target(f, ts, a0, b0, &ka, &kb)) ||
                rwp_mentions(ts, a0, b0, s->idx[0].name) || rwp_mentions(ts, a0, b0, tid))
                return EN(RW_RED_BLOCK_RESULT);
            if (!(r->target_text = rwl_tok_text(ts, a0, b0)))
                return hk_strerror(HK_ENOMEM);
            final = true;
            k = e;
            continue;
        }
        return EN(RW_RED_OUTSIDE_TREE);
    }
    if (!final)
        return EN(RW_RED_NO_BLOCK_ATOMIC);
    r->ix = &s->idx[0];
    return NULL;
}

/* The float4 loop of a float sum whose contribution reads only `P[i]` (P float pointer
 * parameters, i the element index, e.g. `in[i]` or `a[i] * b[i]`): each thread loads 16 bytes
 * of every P per step, four contributions from the four components, while the scalar loop
 * after it (started at *first) takes the last n % 4 elements -- or all of them when some P
 * is not 16-byte aligned. Returns the lines (new string) and sets *first, or NULL with
 * *first NULL when the contribution reads anything else; *nomem on allocation failure. */
#define PT_VEC_ARRAYS 4

static char *reduce_vec_loop(const an_function *f, const pt_reduce *r, const char *ty, const char **first,
                             bool *nomem)
{
    *first = NULL;
    *nomem = false;
    if (r->op != PT_SUM || r->cond || strcmp(ty, "float") != 0)
        return NULL;
    rw_toks ts = {0};
    struct hk_buf comp[4];
    char *loads = NULL, *align = NULL, *res = NULL;
    const an_param *arr[PT_VEC_ARRAYS];
    size_t n_arr = 0;
    bool ok = false;
    for (int c = 0; c < 4; c++)
        hk_buf_init(&comp[c], PT_EXPR);
    int rc = rwl_lex(r->expr, 0, (uint32_t)strlen(r->expr), &ts);
    if (rc) {
        *nomem = rc == HK_ENOMEM;
        goto out;
    }
    static const char lane[4] = {'x', 'y', 'z', 'w'};
    uint32_t prev = 0;
    for (size_t k = 0; k < ts.n; k++) {
        const an_param *p = rwp_param_named(f, &ts, k);
        bool load = p && p->pointer_depth == 1 && rwl_tok_is(&ts, k + 1, "[") &&
                    rwl_tok_is(&ts, k + 2, r->ix->name) && rwl_tok_is(&ts, k + 3, "]") &&
                    !(k > 0 && (rwl_tok_is(&ts, k - 1, ".") || rwl_tok_is(&ts, k - 1, "->")));
        if (!load) {
            if (rwl_tok_is(&ts, k, r->ix->name))
                goto out;   /* the index used other than as P[i] */
            continue;
        }
        char t[PT_EXPR];
        rwp_pointee_type(p, t, sizeof t);
        if (strcmp(t, "float") != 0)
            goto out;
        size_t a = 0;
        while (a < n_arr && arr[a] != p)
            a++;
        if (a == n_arr) {
            if (n_arr == PT_VEC_ARRAYS)
                goto out;
            arr[n_arr++] = p;
        }
        for (int c = 0; c < 4; c++) {
            char q[32];
            snprintf(q, sizeof q, "hk_q%zu.%c", a, lane[c]);
            if ((rc = hk_buf_append(&comp[c], r->expr + prev, ts.t[k].start - prev)) ||
                (rc = hk_buf_append(&comp[c], q, strlen(q))))
                goto fail;   /* HK_ETOOBIG: a contribution too long to repeat four times */
        }
        prev = ts.t[k + 3].end;
        k += 3;
    }
    if (n_arr == 0)
        goto out;
    for (int c = 0; c < 4; c++)
        if ((rc = hk_buf_append(&comp[c], r->expr + prev, strlen(r->expr) - prev)))
            goto fail;
    for (size_t a = 0; a < n_arr; a++) {
        char *l = hk_asprintf("%s        const float4 hk_q%zu = reinterpret_cast<const float4 *>(%s)[hk_v];\n",
                              loads ? loads : "", a, arr[a]->name);
        char *g = hk_asprintf("%s%sreinterpret_cast<unsigned long long>(%s)", /* i18n: not for people */
                              align ? align : "",
                              align ? " | " : "", arr[a]->name);
        hk_free(loads);
        hk_free(align);
        loads = l;
        align = g;
        if (!l || !g)
            goto oom;
    }
    res = hk_asprintf("    // 16-byte loads when every array is 16-byte aligned; the loop below takes the rest\n" /* i18n: not for people */
                      "    const long long hk_n4 = ((%s) & 15) == 0 && (long long)(%s) > 0 ? (long long)(%s) / 4 : 0;\n"
                      "    #pragma unroll 4\n"
                      "    for (long long hk_v = (long long)blockIdx.x * blockDim.x + threadIdx.x; hk_v < hk_n4;\n"
                      "         hk_v += (long long)hk_blocks * blockDim.x) {\n"
                      "%s"
                      "        hk_acc += (float)(%s) + (float)(%s) + (float)(%s) + (float)(%s);\n"
                      "    }\n",
                      align, r->ix->bound, r->ix->bound, loads, comp[0].data, comp[1].data, comp[2].data,
                      comp[3].data);
    if (!res)
        goto oom;
    *first = "hk_n4 * 4";
    ok = true;
    goto out;
fail:
    if (rc != HK_ENOMEM)
        goto out;
oom:
    *nomem = true;
out:
    if (!ok) {
        hk_free(res);
        res = NULL;
    }
    hk_free(loads);
    hk_free(align);
    for (int c = 0; c < 4; c++)
        hk_buf_free(&comp[c]);
    rwl_toks_free(&ts);
    return res;
}

/* ---- the model path: a global atomic reduction in any spelling, the body kept ---- */

/* The kernel's own code runs unchanged inside a lambda (its early returns end only the
 * lambda, so every thread reaches the shuffles after it), its one atomic replaced by an
 * update of the register hk_acc, which starts at the identity for threads that skip it. */
static const char tpl_reduce_body[] =
    "{\n"
    "    // hk rewrite: warp-shuffle reduction. The kernel's own code adds into a register\n" /* i18n: not for people */
    "    // instead of calling $ATOMIC; every thread then reaches the __shfl_down_sync warp\n"
    "    // reduction, one shared slot per warp, one $ATOMIC per block.\n"
    "    $T hk_acc = $IDENT;\n"
    "    [&]() {\n"
    "$BODY\n"
    "    }();\n"
    PT_THREADS
    PT_WARP
    RD_BLOCK_TAIL;

/* An atomic of any kind (atomicAdd, atomicCAS, atomicAdd_block, ...) at token k. */
static bool is_any_atomic(const rw_toks *ts, size_t k)
{
    const rw_tok *t = &ts->t[k];
    return t->kind == T_IDENT && t->end - t->start > 6 && strncmp(ts->text + t->start, "atomic", 6) == 0 &&
           rwl_tok_is(ts, k + 1, "(");
}

/* Is the identifier name written anywhere in the body: declared (after a type word, so
 * `int k(5)` too), assigned, or stepped with ++/--? */
static bool written(const rw_toks *ts, const char *name)
{
    for (size_t k = 0; k < ts->n; k++) {
        if (!rwl_tok_is_ident(ts, k, name) || (k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->"))))
            continue;
        if (rwl_tok_is_assign_op(ts, k + 1) || rwl_tok_is(ts, k + 1, "++") || rwl_tok_is(ts, k + 1, "--") ||
            (k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--") || ts->t[k - 1].kind == T_IDENT)))
            return true;
    }
    return false;
}

/* What the model path found: the one atomic statement [stmt_a, stmt_b) of the body tokens. */
typedef struct {
    pt_reduce r;
    size_t stmt_a, stmt_b;
    uint32_t line;
} rm_match;

/* A statistic the model reads as a sum at its root (KM_OP_SUM): a mean, a variance, a
 * standard deviation or a sum of squares. By atomics, what the atomic adds is each thread's
 * term (its square, its share `/ n`, its root: the kernel's own code, which the model path
 * keeps), so the combine is the atomic's sum. */
static bool sum_family(enum km_reduce r)
{
    return r == KM_REDUCE_SUM || r == KM_REDUCE_MEAN || r == KM_REDUCE_VARIANCE || r == KM_REDUCE_STD ||
           r == KM_REDUCE_SUMSQ;
}

/* The class must be a global atomic sum (or a statistic summed, sum_family), max or min:
 * NULL, or the reason in why. */
static const char *class_fits(const km_class *c, char *why, size_t n)
{
    if (c->kind != KM_CLASS_REDUCTION) {
        if (c->kind == KM_CLASS_NONE && c->near == KM_CLASS_REDUCTION && c->why[0])
            snprintf(why, n, "line %u: %s", c->why_line, c->why);
        else
            snprintf(why, n, EN(RW_RED_MODEL_CLASSES), km_class_name(c->kind));
        return why;
    }
    if (c->how != KM_HOW_ATOMIC || c->axis != KM_AXIS_GLOBAL) {
        /* by enum km_how; the method is an entry of its own, said inside the sentence */
        static const enum hk_msg how[] = {HK_MSG_RW_RED_HOW_NONE, HK_MSG_RW_RED_HOW_LOOP,
                                          HK_MSG_RW_RED_HOW_ATOMICS, HK_MSG_RW_RED_HOW_TREE,
                                          HK_MSG_RW_RED_HOW_SERIAL};
        snprintf(why, n, EN(RW_RED_BY_HOW), c->line, km_axis_name(c->axis),
                 hk_tr_in(HK_LANG_EN, (size_t)c->how < HK_ARRAY_LEN(how) ? how[c->how] : HK_MSG_RW_RED_HOW_OTHER));
        return why;
    }
    if (c->reduce != KM_REDUCE_SUM && c->reduce != KM_REDUCE_MAX && c->reduce != KM_REDUCE_MIN &&
        !sum_family(c->reduce)) {
        snprintf(why, n, EN(RW_RED_OP), c->line, km_reduce_name(c->reduce));
        return why;
    }
    return NULL;
}

/* The body's one atomic, a statement of its own into a fixed location. NULL or why. */
static const char *find_atomic(const char *text, const an_function *f, const rw_toks *ts, rm_match *mt,
                               char *why, size_t n)
{
    size_t at = ts->n;
    for (size_t k = 0; k < ts->n; k++) {
        if (!is_any_atomic(ts, k))
            continue;
        if (at != ts->n) {
            snprintf(why, n, EN(RW_RED_SECOND_ATOMIC),
                     rwl_line_at(text, ts->t[k].start));
            return why;
        }
        at = k;
    }
    if (at == ts->n)
        return EN(RW_RED_NO_ATOMIC);
    uint32_t line = rwl_line_at(text, ts->t[at].start);
    mt->line = line;
    if (!atomic_name(ts, at, &mt->r)) {
        snprintf(why, n, EN(RW_RED_ATOMIC_KIND), line);
        return why;
    }
    size_t close = rwl_match_close(ts, at + 1);
    /* a statement start: after `;`, a brace, `else` or the `)` of if/for/while (not a cast) */
    bool cast = at >= 3 && rwl_tok_is(ts, at - 1, ")") && rwl_tok_is(ts, at - 2, "void") && rwl_tok_is(ts, at - 3, "(");
    bool own = at == 0 || (!cast && (rwl_tok_is(ts, at - 1, ";") || rwl_tok_is(ts, at - 1, "{") ||
                                      rwl_tok_is(ts, at - 1, "}") || rwl_tok_is(ts, at - 1, ")") ||
                                      rwl_tok_is(ts, at - 1, "else")));
    if (close >= ts->n || !rwl_tok_is(ts, close + 1, ";") || !own) {
        snprintf(why, n, EN(RW_RED_ATOMIC_NOT_STMT), line);
        return why;
    }
    size_t a0, b0, a1, b1, ka, kb;
    if (!rwp_call2(ts, at, close + 2, &a0, &b0, &a1, &b1)) {
        snprintf(why, n, EN(RW_RED_ATOMIC_NOT_CALL2), line);
        return why;
    }
    if (!(mt->r.target = rwp_atomic_target(f, ts, a0, b0, &ka, &kb))) {
        snprintf(why, n, EN(RW_RED_ATOMIC_TARGET_NOT_PARAM), line);
        return why;
    }
    for (size_t k = a0; k < b0; k++) {
        if (ts->t[k].kind != T_IDENT || (k > 0 && rwl_tok_is(ts, k - 1, ".")))
            continue;
        char id[PT_NAME];
        rwp_tok_copy(ts, k, id, sizeof id);
        if (!rwp_param_named(f, ts, k) || written(ts, id)) {
            snprintf(why, n, EN(RW_RED_ATOMIC_TARGET_VARIES), line, id);
            return why;
        }
    }
    for (size_t k = 0; k < ts->n; k++)
        if ((k < a0 || k >= b0) && rwl_tok_is_ident(ts, k, mt->r.target->name)) {
            snprintf(why, n, EN(RW_RED_TARGET_USED),
                     rwl_line_at(text, ts->t[k].start), mt->r.target->name);
            return why;
        }
    if (!(mt->r.target_text = rwl_tok_text(ts, a0, b0)) || !(mt->r.expr = rwl_tok_text(ts, a1, b1)))
        return hk_strerror(HK_ENOMEM);
    mt->stmt_a = at;
    mt->stmt_b = close + 2;
    return NULL;
}

/* The model's reading of f and the atomic to replace: HK_OK with why[0] == '\0' when it
 * fits, else the reason in why; *classed when the model calls it a global atomic
 * reduction (the reason is then the model's alone, else the text matcher's comes first). */
static int model_reduce(const char *text, size_t len, const an_function *f, const rw_toks *ts, rm_match *mt,
                        bool *classed, char *why, size_t n)
{
    km_kernel *k = NULL;
    km_class c;
    *classed = false;
    int rc = rw_model_classify(text, len, f->name, &k, &c, why, n);
    if (rc || !k)
        return rc;
    if (class_fits(&c, why, n))
        goto out;
    *classed = true;
    const char *w = find_atomic(text, f, ts, mt, why, n);
    if (w == NULL)
        goto out;
    if (strcmp(w, hk_strerror(HK_ENOMEM)) == 0)
        rc = HK_ENOMEM;
    else if (w != why)
        snprintf(why, n, "%s", w);
    if (!rc && mt->r.op != (sum_family(c.reduce) ? PT_SUM : c.reduce == KM_REDUCE_MAX ? PT_MAX : PT_MIN))
        snprintf(why, n, EN(RW_RED_NOT_MODELS_OP), mt->line, km_reduce_name(c.reduce));
out:
    km_free(k);
    return rc;
}

/* The body with the atomic statement replaced by a register update (new string). */
static char *body_with_register(const char *text, const an_function *f, const rw_toks *ts, const rm_match *mt,
                                const char *ty)
{
    const pt_reduce *r = &mt->r;
    char *upd = r->op == PT_SUM
                    ? hk_asprintf("{ hk_acc += (%s)(%s); }", ty, r->expr)
                    : hk_asprintf("{ const %s hk_v = (%s)(%s); if (hk_v %s hk_acc) hk_acc = hk_v; }", ty, ty,
                                  r->expr, r->op == PT_MAX ? ">" : "<");
    if (!upd)
        return NULL;
    uint32_t a = f->body_span.start_byte, s = ts->t[mt->stmt_a].start, e = ts->t[mt->stmt_b - 1].end;
    char *body = hk_asprintf("%.*s%s%.*s", (int)(s - a), text + a, upd, (int)(f->body_span.end_byte - e), text + e);
    hk_free(upd);
    return body;
}

/* Is t a type parameter of f's template (`typename T` or `class T`)? */
static bool type_param(const an_function *f, const char *t)
{
    const char *p = f->template_params;
    size_t n = strlen(t);
    if (!p || n == 0)
        return false;
    for (const char *q = strstr(p, t); q; q = strstr(q + 1, t)) {
        bool alone = (q == p || !(isalnum((unsigned char)q[-1]) || q[-1] == '_')) &&
                     !(isalnum((unsigned char)q[n]) || q[n] == '_');
        if (alone && q - p >= 6 && (strncmp(q - 6, "class ", 6) == 0 || (q - p >= 9 && strncmp(q - 9, "typename ", 9) == 0)))
            return true;
    }
    return false;
}

/* When the text matchers refused (why): the model path. */
static int model_path(const char *text, size_t len, const an_model *m, const an_function *f, const char *why,
                      rw_result *out)
{
    static const char *const name = "warp reduce";
    rw_toks ts = {0};
    rm_match mt;
    memset(&mt, 0, sizeof mt);
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    char mwhy[512], *body = NULL, *combine = NULL;
    bool classed;
    int rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts);
    if (rc) {
        if (rc == HK_ETOOBIG)
            rc = rwp_not_applicable(out, name, f, why);
        goto out;
    }
    if ((rc = model_reduce(text, len, f, &ts, &mt, &classed, mwhy, sizeof mwhy)))
        goto out;
    if (mwhy[0] && !classed) {
        /* not a global atomic reduction: the text matcher's reason, then the model's */
        char both[800];
        snprintf(both, sizeof both, "%s; %s", why, mwhy);
        rc = rwp_not_applicable(out, name, f, both);
        goto out;
    }
    if (mwhy[0]) {
        rc = rwp_not_applicable(out, name, f, mwhy);
        goto out;
    }
    char t[PT_EXPR];
    rwp_pointee_type(mt.r.target, t, sizeof t);
    const char *ty = rwp_scalar_type(t), *ident = ty ? reduce_identity(mt.r.op, ty) : NULL;
    bool tparam = !ty && type_param(f, t);
    if (tparam && mt.r.op == PT_SUM) {
        ty = t;   /* a template parameter: T(0) is its sum identity */
        ident = "0";
    }
    if (!ty || !ident) {
        snprintf(mwhy, sizeof mwhy, mt.r.op == PT_SUM ? EN(RW_RED_NO_IDENTITY_T) : EN(RW_RED_NO_IDENTITY),
                 mt.line, t, mt.r.op == PT_SUM ? "sum" : mt.r.op == PT_MAX ? "max" : "min");
        rc = rwp_not_applicable(out, name, f, mwhy);
        goto out;
    }
    char identv[PT_EXPR + 16];
    snprintf(identv, sizeof identv, "(%s)%s", ty, ident);
    combine = mt.r.op == PT_SUM ? hk_strdup("hk_acc += hk_o")
                                : hk_asprintf("hk_acc = (hk_o %s hk_acc) ? hk_o : hk_acc", mt.r.op == PT_MAX ? ">" : "<");
    if (!combine || !(body = body_with_register(text, f, &ts, &mt, ty))) {
        rc = HK_ENOMEM;
        goto out;
    }
    const char *kv[] = {"T", ty, "IDENT", identv, "BODY", body, "COMBINE", combine, "ATOMIC", mt.r.atomic,
                        "TARGET", mt.r.target_text, NULL};
    if ((rc = rwl_render(&b, tpl_reduce_body, kv)))
        goto out;
    char *desc = hk_asprintf(EN(RW_RED_DESC_MODEL),
                             f->name, ty, mt.r.op == PT_SUM ? "sum" : mt.r.op == PT_MAX ? "max" : "min", mt.line,
                             mt.r.atomic);
    rc = rwp_replace_body(text, len, m, f, b.data, desc, out);
out:
    reduce_free(&mt.r);
    hk_free(body);
    hk_free(combine);
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    return rc;
}

/* The model path where the kernel's body handles one element per thread: on the kernel put
 * on a grid-stride loop first (rwp_over_any_grid), or refused when it cannot loop. The
 * model's own refusals come first, with the lines of the kernel as written. */
static int model_path_any_grid(const char *text, size_t len, const an_model *m, size_t kernel,
                               const char *why, rw_result *out)
{
    const an_function *f = &m->funcs[kernel];
    int rc = model_path(text, len, m, f, why, out);
    if (rc || !out->applicable)
        return rc;
    rw_result gs;
    an_model *gm = NULL;
    size_t gk;
    char gwhy[768];
    if ((rc = rwp_over_any_grid(text, len, m, kernel, &gs, &gm, &gk, gwhy, sizeof gwhy)) ||
        (!gs.applicable && !gwhy[0]))
        goto out;   /* strides already: out stands */
    rw_result_free(out);
    if (!gs.applicable) {
        rc = rwp_not_applicable(out, "warp reduce", f, gwhy);
        goto out;
    }
    if ((rc = model_path(gs.text, gs.len, gm, &gm->funcs[gk], why, out)) == HK_OK)
        rc = rwp_note_grid_stride(out);
out:
    if (rc == HK_ENOMEM)
        rw_result_free(out);
    rw_result_free(&gs);
    an_model_free(gm);
    return rc;
}

int rw_warp_reduce(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    static const char *const name = "warp reduce";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    pt_shape s;
    pt_reduce r = {0};
    struct hk_buf b;
    char *head = NULL, *accum = NULL, *combine = NULL, *vec = NULL;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL;
    bool tree = false;
    if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG)
            rc = rwp_not_applicable(out, name, f, EN(RW_RED_BODY_TOO_BIG));
        goto out;
    }
    if ((why = rwp_read_shape(&ts, &s))) {
        const char *shape_why = why;
        reduce_free(&r);
        memset(&r, 0, sizeof r);
        why = match_tree_reduce(f, &ts, &s, &r);
        if (why && f->n_shared == 0)
            why = shape_why;
        tree = !why;
    } else {
        why = match_atomic_reduce(f, &ts, &s, &r);
    }
    if (why)
        goto na;
    char t[PT_EXPR];
    rwp_pointee_type(r.target, t, sizeof t);
    const char *ty = rwp_scalar_type(t), *ident = ty ? reduce_identity(r.op, ty) : NULL;
    if (!ty || !ident) {
        why = EN(RW_RED_ACC_TYPE);
        goto na;
    }
    const char *first = NULL;
    bool vec_nomem = false;
    vec = reduce_vec_loop(f, &r, ty, &first, &vec_nomem);
    if (vec_nomem || !(head = rwp_grid_stride_head(r.ix, "hk_blocks", first)))
        goto nomem;
    if (r.op == PT_SUM) {
        accum = hk_asprintf("%s%s%shk_acc += (%s)(%s);", r.cond ? "if (" : "", r.cond ? r.cond : "",
                            r.cond ? ") " : "", ty, r.expr);
        combine = hk_strdup("hk_acc += hk_o");
    } else {
        const char *cmp = r.op == PT_MAX ? ">" : "<";
        accum = hk_asprintf("%s%s%s{ const %s hk_v = (%s)(%s); if (hk_v %s hk_acc) hk_acc = hk_v; }",
                            r.cond ? "if (" : "", r.cond ? r.cond : "", r.cond ? ") " : "", ty, ty,
                            r.expr, cmp);
        combine = hk_asprintf("hk_acc = (hk_o %s hk_acc) ? hk_o : hk_acc", cmp);
    }
    if (!accum || !combine)
        goto nomem;
    const char *kv[] = {"MAXBLOCKS", "1024", "T", ty, "IDENT", ident, "VEC", vec ? vec : "", "HEAD", head,
                        "ACCUM", accum, "COMBINE", combine, "ATOMIC", r.atomic, "TARGET", r.target_text, NULL};
    if ((rc = rwl_render(&b, tpl_reduce, kv)))
        goto out;
    /* one sentence per form (tree or atomics) and with or without the float4 loop */
    char *desc = hk_asprintf(tree ? (vec ? EN(RW_RED_DESC_TREE_VEC) : EN(RW_RED_DESC_TREE))
                                  : (vec ? EN(RW_RED_DESC_ATOMICS_VEC) : EN(RW_RED_DESC_ATOMICS)),
                             f->name, ty, r.atomic);
    rc = rwp_replace_body(text, len, m, f, b.data, desc, out);
    goto out;
nomem:
    rc = HK_ENOMEM;
    goto out;
na:
    rc = model_path_any_grid(text, len, m, kernel, why, out);
out:
    reduce_free(&r);
    hk_free(vec);
    hk_free(head);
    hk_free(accum);
    hk_free(combine);
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static int emit_warp_reduce(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_warp_reduce(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_warp_reduce_desc = {
    .name = "warp_reduce",
    .summary = "a reduction into one location: warp shuffles, one atomic per block", /* i18n: not for people */
    .flags = RW_ALGORITHM,
    .emit = emit_warp_reduce,
};

/* A tree into one atomic becomes warp_reduce's grid-stride form; any other shared-memory
 * tree (a per-block partial, a mean, ...) is replaced in place (rewrite_block_tree.c).
 * The refusal is the tree's when the kernel has one, else warp_reduce's. */
static int emit_block_reduce(const rw_context *c, const int *p, rw_result *out)
{
    /* key = 1 is the pair trees' form only (rw_block_tree_form refuses any other kernel):
     * elsewhere it would be key = 0's program again */
    int rc = p[0] ? (memset(out, 0, sizeof *out), HK_OK) : rw_warp_reduce(c->text, c->len, c->m, c->kernel, out);
    if (rc || out->applicable)
        return rc;
    rw_result tree;
    if ((rc = rw_block_tree_spec(c->text, c->len, c->m, c->kernel, p[0] != 0, c->spec, &tree))) {
        rw_result_free(&tree);
        return rc;
    }
    if (!p[0] && !tree.applicable && strstr(tree.description, RW_NO_TREE)) {
        rw_result_free(&tree);   /* no tree at all: warp_reduce's reason says more */
        return HK_OK;
    }
    rw_result_free(out);
    *out = tree;
    return HK_OK;
}

/* key: a (value, index) tree as one max of a 64-bit key (rewrite_block_tree.c) */
static const rw_param block_reduce_params[] = {
    {.name = "key", .type = RW_PARAM_BOOL, .def = 0, .optional = true},
};

const rw_descriptor rw_block_reduce_desc = {
    .name = "block_reduce",
    .params = block_reduce_params,
    .n_params = HK_ARRAY_LEN(block_reduce_params),
    .summary = "a shared-memory tree reduction: warp shuffles, one shared slot per warp, same block result", /* i18n: not for people */
    .flags = RW_ALGORITHM,
    .emit = emit_block_reduce,
};

