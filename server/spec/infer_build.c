/* Spec inference, one skeleton (spec/infer.c is the entry): block, grid, sizes, counts,
 * kinds and doubts of one kernel put together into a spec for one grid mode. */
#include "spec/infer_int.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the skeleton ---- */

void sk_cover_free(sk_cover *c)
{
    for (int d = 0; d < 3; d++)
        hk_free(c->need[d]);
    hk_free(c->need_xy);
    memset(c, 0, sizeof *c);
}

void sk_free(skel *k)
{
    for (size_t i = 0; i < k->n_vars; i++)
        hk_free(k->vars[i]);
    for (size_t i = 0; i < k->n_map; i++) {
        hk_free(k->map_from[i]);
        hk_free(k->map_to[i]);
    }
    for (size_t i = 0; i < k->n_notes; i++)
        hk_free(k->notes[i]);
    for (size_t i = 0; i < k->n_doubts; i++)
        hk_free(k->doubts[i]);
    memset(k, 0, sizeof *k);
}

/* The launch's grid dimensions that are sizes alone (channels, not ceil_div(n, block_x),
 * which the search changes with the block) become what kc_grid_names stand for, so that an
 * unguarded blockIdx in a subscript is bounded by them (kc_block_term). A dimension the
 * launch leaves out is 1. */
static void sk_map_grid(skel *k, char **grid, size_t n_grid)
{
    for (size_t d = 0; d < 3; d++) {
        const char *g = d < n_grid ? grid[d] : "1";
        if (!g || !kf_only_sizes(k, g))
            continue;
        char *paren = hk_asprintf("(%s)", g);
        sk_map(k, kc_grid_names[d], paren);
        k->grid_known[d] = paren != NULL && !k->nomem;
        hk_free(paren);
    }
}

/* Whether spec text t is made of size variables and block_x/y/z (at the block's values
 * it must also evaluate with the sizes: kf_only_sizes on it with the block put in). */
static bool sk_sizes_or_block(skel *k, const char *t, const long long *block)
{
    static const char *const bn[3] = { "block_x", "block_y", "block_z" };
    struct hk_buf b;
    hk_buf_init(&b, SK_MAX_TEXT);
    bool ok = true;
    for (size_t i = 0, n = strlen(t); i < n && ok;) {
        size_t w = 0;
        for (size_t q = 0; q < 3 && !w; q++)
            if (sk_word_at(t, n, i, bn[q], 7))
                w = q + 1;
        ok = w ? hk_buf_printf(&b, "%lld", block[w - 1] ? block[w - 1] : 1) == HK_OK
               : hk_buf_append(&b, t + i, 1) == HK_OK;
        i += w ? 7 : 1;
    }
    ok = ok && b.data && kf_only_sizes(k, b.data);
    hk_buf_free(&b);
    return ok;
}

/* The launch's dynamic shared memory in spec terms: its text, through a launcher local
 * (`int smem = threads * sizeof(T)`), sizeof(tname) as tsize bytes, the launcher variable
 * that is the block's x (`dim3 block(threads, 1, 1)`) as block_x, and a conditional
 * (`threads <= 32 ? 2 * threads * sizeof(T) : threads * sizeof(T)`) as the larger of its
 * branches (more shared memory than the kernel uses is safe). New string or NULL. */
static char *sk_shmem(skel *k, const an_launch *site, long tsize, const char *tname)
{
    char *text = sk_is_identifier(site->shmem) ? sk_local_init(k, site->shmem) : NULL;
    const char *src = text ? text : site->shmem;
    size_t base_map = k->n_map;
    /* the block's x member when it is a launcher variable */
    char *braw = site->block ? (sk_is_identifier(site->block) ? sk_local_init(k, site->block) : NULL) : NULL;
    const char *bsrc = braw ? braw : site->block;
    char *parts[3] = { 0 };
    if (bsrc && sk_split_dims(bsrc, parts) >= 1 && parts[0] && sk_is_identifier(parts[0]) && !sk_mapped(k, parts[0]))
        sk_map(k, parts[0], "block_x");
    for (size_t d = 0; d < 3; d++)
        hk_free(parts[d]);
    hk_free(braw);
    char *res = NULL;
    /* a top-level c ? a : b: the larger of a and b */
    size_t n = strlen(src), q = 0, colon = 0;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        depth += (src[i] == '(') - (src[i] == ')');
        if (depth == 0 && src[i] == '?' && !q)
            q = i;
        else if (depth == 0 && src[i] == ':' && q && !colon)
            colon = i;
    }
    char *branch[2] = { NULL, NULL };
    if (q && colon > q) {
        branch[0] = hk_strndup(src + q + 1, colon - q - 1);
        branch[1] = hk_strdup(src + colon + 1);
    } else {
        branch[0] = hk_strdup(src);
    }
    char *tr[2] = { NULL, NULL };
    bool ok = branch[0] != NULL;
    for (int b = 0; b < 2 && ok && branch[b]; b++) {
        char *host = sk_host_text(k, branch[b], tsize, tname);
        tr[b] = host ? sk_translate(k, host, 0) : NULL;
        hk_free(host);
        ok = tr[b] != NULL;
    }
    if (ok)
        res = tr[1] ? hk_asprintf("max(%s, %s)", tr[0], tr[1]) : hk_strdup(tr[0]);
    for (int b = 0; b < 2; b++) {
        hk_free(branch[b]);
        hk_free(tr[b]);
    }
    while (k->n_map > base_map) {
        k->n_map--;
        hk_free(k->map_from[k->n_map]);
        hk_free(k->map_to[k->n_map]);
    }
    hk_free(text);
    return res;
}

/* The line of a shared access whose array is no local of a known size (extern
 * __shared__ T s[], or a SharedMemory<T>() helper's pointer): the bytes come from the
 * launch. 0 when every shared array has its declared size (or the kernel has no model). */
static int sk_dynamic_shared(const skel *k, const an_function *f)
{
    /* extern __shared__ in the body itself, whatever the model made of its uses */
    uint32_t bs = f->body_span.start_byte, be = f->body_span.end_byte <= k->len ? f->body_span.end_byte : (uint32_t)k->len;
    for (uint32_t i = bs; i + 6 < be; i++)
        if (sk_word_at(k->text, be, i, "extern", 6)) {
            uint32_t j = i + 6;
            for (;;) { /* extern volatile __shared__ float s[] */
                while (j < be && isspace((unsigned char)k->text[j]))
                    j++;
                if (sk_word_at(k->text, be, j, "volatile", 8))
                    j += 8;
                else if (sk_word_at(k->text, be, j, "const", 5))
                    j += 5;
                else
                    break;
            }
            if (sk_word_at(k->text, be, j, "__shared__", 10))
                return sk_line(k, i);
        }
    if (!k->km)
        return 0;
    size_t na = 0, nl = 0;
    const km_access *ac = km_accesses(k->km, &na);
    const km_local *ls = km_locals(k->km, &nl);
    for (size_t j = 0; j < nl; j++) /* an extern array in a __device__ helper it calls */
        if (ls[j].kind == KM_LOCAL_ARRAY && ls[j].space == KM_SPACE_SHARED && ls[j].form.n == 0)
            return (int)ls[j].line;
    for (size_t i = 0; i < na; i++) {
        if (ac[i].space != KM_SPACE_SHARED || !ac[i].buffer)
            continue;
        for (size_t j = 0; j < nl; j++)
            if (ls[j].name && !strcmp(ls[j].name, ac[i].buffer) &&
                ((ls[j].kind == KM_LOCAL_ARRAY && ls[j].form.n == 0) ||
                 (ls[j].kind == KM_LOCAL_POINTER && ls[j].base && !strcmp(ls[j].base, ls[j].name))))
                return (int)ac[i].line;
    }
    return 0;
}

/* Whether size variable name is subtracted in a grid dimension's text (`Size - t - 1`),
 * or in the blocks a bounds check needs: a '-' then name as a word. */
static bool sk_subtracted(const char *name, char *const *grid, size_t n_grid)
{
    size_t nl = strlen(name);
    for (size_t d = 0; d < n_grid; d++) {
        const char *g = grid[d];
        for (size_t i = 0, n = g ? strlen(g) : 0; i < n; i++) {
            if (g[i] != '-')
                continue;
            size_t j = i + 1;
            while (j < n && (g[j] == ' ' || g[j] == '('))
                j++;
            if (sk_word_at(g, n, j, name, nl))
                return true;
        }
    }
    return false;
}

/* Whether a grid dimension's text divides (ceil_div(n, block_x), n / 256): its blocks
 * cover the elements of what it divides, thread by thread. */
static bool sk_grid_divides(const char *g)
{
    return g && (strstr(g, "ceil_div") || strchr(g, '/'));
}

static long long sk_lcm(long long a, long long b)
{
    long long x = a, y = b;
    while (y) {
        long long r = x % y;
        x = y;
        y = r;
    }
    return a / x * b;
}

/* ---- timing sizes ---- */

/* The timed set (sizes[1]) must move well past the L2, or a kernel of a few microseconds
 * is timed, whose launches spread too widely to trust (the H200's mmcv gather_points at
 * 32 of each size: 8 us, spread 0.13). The L2 is an H100's or H200's; four times it keeps
 * the cache's share of the time small. */
#define SK_L2_BYTES (50LL << 20)
#define SK_TIMING_BYTES (4 * SK_L2_BYTES)
#define SK_BUFFER_CAP (2LL << 30)  /* one buffer: the harness allocates every one */
#define SK_TOTAL_CAP (8LL << 30)
#define SK_ELEMENT_CAP INT32_MAX   /* a subscript in int reaches every element below it */
#define SK_SHARED_CAP (48LL << 10) /* dynamic shared memory without the opt-in */
#define SK_LOOP_GROWTH 16          /* how far a size only per-thread loops run over may grow */
#define SK_TIMING_FLOOR (1LL << 20) /* known bytes below which a guess-capped timed set is a doubt */
/* The check set (sizes[0]) runs for every seed and distribution, and again in the fp64
 * shadow, for the baseline and each candidate: its buffers, guessed counts included, stay
 * within this in all (mmcv's furthest point sampling guessed 4 GB there and held the GPU
 * for minutes). */
#define SK_CHECK_BYTES (16LL << 20)
#define SK_CHECK_FLOOR 3 /* the least a size of the check set is halved to: more than one of each */

/* What the timed set must satisfy, all borrowed: the buffers' counts and element bytes,
 * the launch, and the checks inference makes at every set. */
typedef struct {
    const an_function *f;
    char *const *counts;     /* by parameter index; NULL for scalars */
    const bool *count_sure;  /* from the program or the index math, not a guess */
    const long *elem_bytes;  /* bytes of one element of counts[i] */
    const bool *single;      /* the pointer itself is one accumulator (count 1) */
    const bool *written;     /* an output or inout */
    const bool *loop_bound;  /* by size: a counted loop of the kernel runs to it */
    const bool *serial;      /* by size: a loop holding a block barrier runs to it
                              * (sk_serial_sizes); may be NULL */
    const int *gather;       /* reads per element of a buffer read only by a gather
                              * (kc_gather_reads), 0 for the others */
    const char *gather_elems;/* the elements a grid-stride loop visits (kc_stride_bound), or
                              * NULL: the grid's threads */
    char *const *grid;
    size_t n_grid;
    char *const *need;       /* the blocks the bounds checks need per axis (sk_cover), NULL each */
    const long long *block_val;
    const char *shmem;       /* dynamic shared bytes (spec text), or NULL */
    const sk_assert_cmp *asserts;
    size_t n_asserts;
    const char *one_pass_bound; /* kc_stride_bound when a count holds for one pass only */
    const kc_rows *rows;        /* a row-tiled kernel's rows, or NULL */
    /* parsed once by sk_grow_timing (owned there), evaluated at each candidate set
     * without allocating: a growth tries many */
    expr *count_x[HK_MAX_ARGS], *grid_x[3], *shmem_x, *elems_x;
    expr_var vars[SK_MAX_VARS + 3]; /* the sizes, then block_x/y/z */
    size_t n_vars;
    bool over_cap; /* set by sk_timing_fits: what failed was a count, a buffer or the total */
} sk_timing;

/* Whether the word var stands in text t (may be NULL). */
static bool sk_names(const char *t, const char *var)
{
    size_t n = t ? strlen(t) : 0, vl = strlen(var);
    for (size_t i = 0; i < n; i++)
        if (sk_word_at(t, n, i, var, vl))
            return true;
    return false;
}

/* Whether var divides in t (`/ var`, `/ (var`, `% var`): a class count that splits
 * output_size into rows, no stride. */
static bool sk_divides(const char *t, const char *var)
{
    size_t n = strlen(t), vl = strlen(var);
    for (size_t i = 0; i < n; i++) {
        if (t[i] != '/' && t[i] != '%')
            continue;
        size_t j = i + 1;
        while (j < n && (t[j] == ' ' || t[j] == '('))
            j++;
        if (sk_word_at(t, n, j, var, vl))
            return true;
    }
    return false;
}

/* set with the block's dimensions added as block_x/y/z (the grid's terms): new reference. */
static json_t *sk_with_block(const json_t *set, const long long *block_val)
{
    json_t *at = json_deep_copy(set);
    for (int d = 0; at && d < 3; d++)
        if (json_object_set_new(at, (const char *[]){ "block_x", "block_y", "block_z" }[d],
                                json_integer(block_val[d])) != 0) {
            json_decref(at);
            return NULL;
        }
    return at;
}

/* Whether every thread of the launch's grid passes the grid-stride loop of bound once at set. */
static bool sk_one_pass_at(const char *bound, const char *grid0, const long long *block_val, const json_t *set)
{
    json_t *at = sk_with_block(set, block_val);
    long long blocks = 0, need = 0;
    bool once = at && bound && grid0 && sk_eval_at(grid0, at, &blocks) && sk_eval_at(bound, at, &need) &&
                blocks * block_val[0] >= need;
    json_decref(at);
    return once;
}

/* How the rows of r sit at set: 0 side by side, 1 overlapping (or not evaluable), 2 with
 * unwritten elements between the stored rows. *width gets the columns' text (new). */
static int sk_rows_at(const kc_rows *r, const long long *block_val, const json_t *set, char **width)
{
    long long stride = 0, cols = 0;
    *width = r->bx ? hk_asprintf("ceil_div(%s, %lld) * %lld", r->stride, r->cx, r->cx)
                   : hk_asprintf("%lld", block_val[0]);
    if (!sk_eval_at(r->stride, set, &stride) || !*width || !sk_eval_at(*width, set, &cols) || cols > stride)
        return 1;
    return r->store && cols < stride ? 2 : 0;
}

/* The value of x at the sizes of t->vars: false when it does not evaluate. */
static bool sk_timing_eval(const sk_timing *t, const expr *x, long long *v)
{
    expr_value r;
    if (!x || expr_eval(x, t->vars, t->n_vars, &r, NULL, 0) != HK_OK || r.is_float)
        return false;
    *v = r.i;
    return true;
}

/* The bytes the sizes in t->vars give the buffers (*sure: those whose counts are not
 * guessed, *all: every one) and whether they may be timed: every count below
 * SK_ELEMENT_CAP and every buffer below SK_BUFFER_CAP, SK_TOTAL_CAP in all, the grid within
 * the device's limits and below 2^31 threads, the shared memory within SK_SHARED_CAP, the
 * asserts, a one-pass count and row tiles holding. *why names what does not (static
 * text); *guessed gets the parameter whose guessed count went past a cap, else -1. */
static bool sk_timing_fits(sk_timing *t, long long *sure, long long *all, const char **why, int *guessed)
{
    *sure = *all = 0;
    *why = NULL;
    *guessed = -1;
    t->over_cap = false;
    /* the grid's threads first: a gathered buffer moves what they read of it */
    long long threads = t->block_val[0] * t->block_val[1] * t->block_val[2], v = 0;
    bool ok = true;
    for (size_t d = 0; ok && d < t->n_grid; d++) {
        ok = sk_timing_eval(t, t->grid_x[d], &v) && v >= 1 && v <= (d ? 65535 : INT32_MAX);
        threads = ok && threads <= INT32_MAX ? threads * v : threads;
        ok = ok && threads <= INT32_MAX;
    }
    long long total = 0; /* every buffer allocated whole: the memory caps */
    for (size_t i = 0; i < t->f->n_params && i < HK_MAX_ARGS; i++) {
        if (!t->counts[i] || t->f->params[i].pointer_depth == 0 || t->single[i])
            continue;
        long long c = 0;
        if (!sk_timing_eval(t, t->count_x[i], &c) || c < 0) {
            *why = hk_tr(HK_MSG_INF_FRAG_NO_EVAL);
            return false;
        }
        long long b = c <= SK_ELEMENT_CAP ? c * (t->elem_bytes[i] > 0 ? t->elem_bytes[i] : 1) : 0;
        bool gathered = t->gather && t->gather[i] > 0;
        if (c > SK_ELEMENT_CAP || b > SK_BUFFER_CAP) {
            *why = hk_tr(c > SK_ELEMENT_CAP ? HK_MSG_INFX_FRAG_COUNT_PAST_INT : HK_MSG_INFX_FRAG_BUFFER_PAST_2G);
            /* a gathered count, like a guess, may give up its other sizes (sk_make_room) */
            *guessed = t->count_sure[i] && !gathered ? -1 : (int)i;
            t->over_cap = true;
            return false;
        }
        total += b;
        /* a gather moves the elements the grid's threads pick, at most the buffer */
        long long elems = threads;
        if (gathered && t->elems_x && !sk_timing_eval(t, t->elems_x, &elems))
            elems = c;
        long long picked = ok && gathered && elems * t->gather[i] < c ? elems * t->gather[i] : c;
        b = picked * (t->elem_bytes[i] > 0 ? t->elem_bytes[i] : 1);
        *all += b;
        if (t->count_sure[i])
            *sure += b;
    }
    if (total > SK_TOTAL_CAP) {
        *why = hk_tr(HK_MSG_INF_FRAG_PAST_8G);
        t->over_cap = true;
        return false;
    }
    if (!ok) {
        *why = hk_tr(HK_MSG_INF_FRAG_PAST_DEVICE);
        return false;
    }
    if (t->shmem && (!sk_timing_eval(t, t->shmem_x, &v) || v > SK_SHARED_CAP)) {
        *why = hk_tr(HK_MSG_INF_FRAG_PAST_48K);
        return false;
    }
    if (!t->n_asserts && !t->one_pass_bound && !t->rows)
        return true;
    /* the rarer checks read a JSON set */
    json_t *set = json_object();
    for (size_t n = 0; set && n + 3 < t->n_vars; n++)
        if (json_object_set_new(set, t->vars[n].name, json_integer(t->vars[n].value.i)) != 0) {
            json_decref(set);
            set = NULL;
        }
    ok = set != NULL;
    if (!ok)
        *why = hk_tr(HK_MSG_INF_FRAG_NO_MEMORY);
    for (size_t c = 0; ok && c < t->n_asserts; c++)
        if (sk_assert_holds(&t->asserts[c], set) == 0) {
            ok = false;
            *why = hk_tr(HK_MSG_INF_FRAG_ASSERT);
        }
    if (ok && t->one_pass_bound && !sk_one_pass_at(t->one_pass_bound, t->grid[0], t->block_val, set)) {
        ok = false;
        *why = hk_tr(HK_MSG_INF_FRAG_ONE_PASS);
    }
    char *width = NULL;
    if (ok && t->rows && sk_rows_at(t->rows, t->block_val, set, &width) != 0) {
        ok = false;
        *why = hk_tr(HK_MSG_INF_FRAG_ROWS_SIDE);
    }
    hk_free(width);
    json_decref(set);
    return ok;
}

/* Rows one block wide (kc_row_tiles without blockIdx.x): a size that only sets their stride
 * S, invented large, leaves the kernel a sliver of each row (Rodinia's backprop adjust
 * writes 16 columns of rows hid + 1 apart; at hid 4096 it moved 2 MB in 9 us, too short to
 * time, where its program has hid 16). Such a size is set, in both sets, to the least
 * value that keeps S at least the block's width: the rows then lie side by side, and the
 * rows launched (rows_size) are what grows the work, and fixed[v] keeps it there. */
static void sk_dense_rows(skel *k, const kc_rows *rows, const char *rows_size, char *const *grid, size_t n_grid,
                          const long long *block_val, json_t *s0, json_t *s1, bool *fixed)
{
    for (size_t v = 0; v < k->n_vars; v++) {
        const char *name = k->vars[v];
        bool gridded = !strcmp(name, rows_size);
        for (size_t d = 0; d < n_grid && !gridded; d++)
            gridded = sk_names(grid[d], name);
        if (gridded || !sk_names(rows->stride, name))
            continue;
        json_t *sets[2] = { s0, s1 };
        long long least[2] = { 0, 0 };
        for (int i = 0; i < 2; i++) {
            long long was = json_integer_value(json_object_get(sets[i], name)), stride = 0;
            for (long long x = 1; x < was && !least[i]; x++) {
                if (json_object_set_new(sets[i], name, json_integer(x)) != 0) {
                    k->nomem = true;
                    return;
                }
                if (sk_eval_at(rows->stride, sets[i], &stride) && stride >= block_val[0])
                    least[i] = x;
            }
            if (json_object_set_new(sets[i], name, json_integer(least[i] ? least[i] : was)) != 0)
                k->nomem = true;
        }
        fixed[v] = least[0] || least[1];
        if (fixed[v])
            sk_note(k, HK_MSG_INF_SIZE_STRIDE, name,
                    least[1] ? least[1] : least[0], rows->stride, block_val[0], rows_size);
    }
}

/* Sizes a fixed array holds: a loop whose counter subscripts a local or __shared__ array
 * runs to a bound made of a scalar parameter (mmcv's knn: float best_dist[100] filled for
 * i < nsample). The program keeps that parameter within the array; only the invented
 * value is known to stay there, so those sizes keep it (keep[v] set). scal: the launch
 * value of each parameter in spec terms. */
/* Whether atom is a factor of a term of f itself (not inside a read's subscript: a
 * histogram's s_hist[data[i]] does not walk s_hist with i). */
static bool sk_form_term_has(km_form f, uint32_t atom)
{
    for (uint32_t t = 0; t < f.n; t++)
        for (uint32_t a = 0; a < f.t[t].n; a++)
            if (f.t[t].atoms[a] == atom)
                return true;
    return false;
}

/* Marks (out[v]) the sizes that loop lp's bound names: the scalar parameters in its bound
 * whose launch value (scal) names them. */
static void sk_bound_names(const skel *k, const an_function *f, const km_loop *lp, char *const *scal, bool *out)
{
    size_t nt = 0;
    const km_atom *at = km_atoms(k->km, &nt);
    for (size_t a = 0; a < nt; a++) {
        if (at[a].kind != KM_ATOM_PARAM || !at[a].name || !km_form_mentions(k->km, lp->bound, (uint32_t)a))
            continue;
        for (size_t p = 0; p < f->n_params && p < HK_MAX_ARGS; p++)
            if (scal[p] && !strcmp(f->params[p].name, at[a].name))
                for (size_t v = 0; v < k->n_vars; v++)
                    out[v] |= sk_names(scal[p], k->vars[v]);
    }
}

/* Sizes a counted loop of the kernel runs to (bound[v] set): a loop whose bound is made of
 * a scalar parameter whose launch value (scal) names them. */
static void sk_loop_bound_sizes(const skel *k, const an_function *f, char *const *scal, bool *bound)
{
    if (!k->km)
        return;
    size_t nl = 0;
    const km_loop *lp = km_loops(k->km, &nl);
    for (size_t l = 0; l < nl; l++)
        sk_bound_names(k, f, &lp[l], scal, bound);
}

/* Whether the loop of the kernel's text that starts on line (1-based) holds a block
 * barrier in its body: each of its trips is then a step the whole block takes in turn. */
static bool sk_loop_has_barrier(const skel *k, const an_function *f, uint32_t line)
{
    size_t bs = f->body_span.start_byte, be = f->body_span.end_byte <= k->len ? f->body_span.end_byte : k->len;
    const char *t = k->text;
    size_t at = bs;
    for (uint32_t l = (uint32_t)sk_line(k, bs); at < be && l < line; at++)
        l += t[at] == '\n';
    /* the first for/while on that line, its header, then its body */
    size_t kw = SIZE_MAX;
    for (size_t i = at; i < be && t[i] != '\n' && kw == SIZE_MAX; i++)
        if (sk_word_at(t, be, i, "for", 3) || sk_word_at(t, be, i, "while", 5))
            kw = i;
    if (kw == SIZE_MAX)
        return false;
    size_t i = kw;
    while (i < be && t[i] != '(')
        i++;
    for (int d = 0; i < be; i++) {
        d += (t[i] == '(') - (t[i] == ')');
        if (d == 0)
            break;
    }
    size_t body = i + 1;
    while (body < be && isspace((unsigned char)t[body]))
        body++;
    size_t end = body;
    if (body < be && t[body] == '{') {
        for (int d = 0; end < be; end++) {
            d += (t[end] == '{') - (t[end] == '}');
            if (d == 0)
                break;
        }
    } else {
        while (end < be && t[end] != ';')
            end++;
    }
    for (size_t q = body; q + 13 <= end; q++)
        if (sk_word_at(t, end, q, "__syncthreads", 13))
            return true;
    return false;
}

/* Sizes a loop holding a block barrier runs to (serial[v] set): furthest point sampling's
 * `for (j = 1; j < m; j++)`, each pick a block-wide argmax between barriers. A block takes
 * their trips one after another, whatever the grid: they are each block's serial work,
 * not elements the timed set must spread. */
static void sk_serial_sizes(const skel *k, const an_function *f, char *const *scal, bool *serial)
{
    if (!k->km)
        return;
    size_t nl = 0;
    const km_loop *lp = km_loops(k->km, &nl);
    for (size_t l = 0; l < nl; l++) {
        /* not a loop over blocks (`i = blockIdx.x; i < b; i += gridDim.x`): its trips are
         * spread over the grid */
        if (lp[l].kind != KM_LOOP_AFFINE || km_form_mentions_kind(k->km, lp[l].step, KM_ATOM_GRID_DIM, -1) ||
            km_form_mentions_kind(k->km, lp[l].start, KM_ATOM_BLOCK_IDX, -1) ||
            !sk_loop_has_barrier(k, f, lp[l].line))
            continue;
        sk_bound_names(k, f, &lp[l], scal, serial);
    }
}

static void sk_array_loop_sizes(const skel *k, const an_function *f, char *const *scal, bool *keep)
{
    if (!k->km)
        return;
    size_t na = 0, nl = 0, nt = 0;
    const km_access *ac = km_accesses(k->km, &na);
    const km_loop *lp = km_loops(k->km, &nl);
    const km_atom *at = km_atoms(k->km, &nt);
    for (size_t i = 0; i < na; i++) {
        long long lo = 0, hi = 0, extent = 0;
        if ((ac[i].space != KM_SPACE_LOCAL && ac[i].space != KM_SPACE_SHARED) ||
            kc_shared_inside(k->km, &ac[i], &lo, &hi, &extent)) /* a tile loop's min(m, k + T) - k */
            continue;
        for (uint32_t j = 0; j < ac[i].n_loops; j++) {
            uint32_t l = ac[i].loops[j];
            if (l >= nl || !sk_form_term_has(ac[i].index, lp[l].counter))
                continue;
            for (size_t a = 0; a < nt; a++) {
                if (at[a].kind != KM_ATOM_PARAM || !at[a].name || !km_form_mentions(k->km, lp[l].bound, (uint32_t)a))
                    continue;
                for (size_t p = 0; p < f->n_params && p < HK_MAX_ARGS; p++)
                    if (scal[p] && !strcmp(f->params[p].name, at[a].name))
                        for (size_t v = 0; v < k->n_vars; v++)
                            keep[v] |= sk_names(scal[p], k->vars[v]);
            }
        }
    }
}

#define SK_SHRINK_FLOOR 16 /* the least a size halved to make room goes to */

/* The value of size v in t. */
#define SK_VAL(t, v) ((t)->vars[v].value.i)

/* A guessed count (the product of every size) stopped a size of the grid from growing:
 * halves, while that does not fit, the sizes of that count that neither the grid launches
 * over nor an output's count holds (an all-classes loop's num_classes, the points a gather
 * picks from: free_var[u]), down to SK_SHRINK_FLOOR, while the known buffers move no less
 * than moved. The guess is an upper bound the kernel need not reach; the grid's threads
 * are what it is timed on. True when the sizes (the grown ones among them) then fit; else
 * they are as they were. */
static bool sk_make_room(skel *k, sk_timing *t, const bool *free_var, const long long *unit, bool *shrunk,
                         int guessed, long long moved, bool use_sure)
{
    long long before[SK_MAX_VARS];
    for (size_t u = 0; u < k->n_vars; u++)
        before[u] = SK_VAL(t, u);
    long long sure = 0, all = 0;
    const char *why = NULL;
    int blocker = guessed;
    bool fits = false, halved = true;
    while (!fits && halved && blocker >= 0) {
        halved = false;
        for (size_t u = 0; u < k->n_vars && !halved; u++) {
            long long cur = SK_VAL(t, u);
            if (!free_var[u] || cur / 2 < SK_SHRINK_FLOOR || (unit[u] > 1 && (cur / 2) % unit[u]) ||
                !sk_names(t->counts[blocker], k->vars[u]))
                continue;
            SK_VAL(t, u) = cur / 2;
            halved = true;
        }
        fits = sk_timing_fits(t, &sure, &all, &why, &blocker);
    }
    if (fits && (use_sure ? sure : all) >= moved) {
        for (size_t u = 0; u < k->n_vars; u++)
            shrunk[u] |= SK_VAL(t, u) < before[u];
        return true;
    }
    for (size_t u = 0; u < k->n_vars; u++)
        SK_VAL(t, u) = before[u];
    return false;
}

/* Loads set's sizes (and the block) into t->vars and parses the counts, the grid and the
 * shared memory once: a growth or a shrink tries many sets. False when one does not parse;
 * sk_timing_close frees them either way. */
static bool sk_timing_open(const skel *k, sk_timing *t, const json_t *set)
{
    static const char *const bn[3] = { "block_x", "block_y", "block_z" };
    memset(t->count_x, 0, sizeof t->count_x);
    memset(t->grid_x, 0, sizeof t->grid_x);
    t->shmem_x = NULL;
    t->n_vars = 0;
    for (size_t v = 0; v < k->n_vars; v++)
        t->vars[t->n_vars++] = (expr_var){ .name = k->vars[v],
                                           .value = { .i = json_integer_value(json_object_get(set, k->vars[v])) } };
    for (int d = 0; d < 3; d++)
        t->vars[t->n_vars++] = (expr_var){ .name = bn[d], .value = { .i = t->block_val[d] } };
    bool parsed = true;
    for (size_t i = 0; i < t->f->n_params && i < HK_MAX_ARGS; i++)
        parsed &= !t->counts[i] || t->f->params[i].pointer_depth == 0 ||
                  expr_parse(t->counts[i], &t->count_x[i], NULL, 0) == HK_OK;
    for (size_t d = 0; d < t->n_grid; d++)
        parsed &= t->grid[d] && expr_parse(t->grid[d], &t->grid_x[d], NULL, 0) == HK_OK;
    parsed &= !t->shmem || expr_parse(t->shmem, &t->shmem_x, NULL, 0) == HK_OK;
    t->elems_x = NULL;
    parsed &= !t->gather_elems || expr_parse(t->gather_elems, &t->elems_x, NULL, 0) == HK_OK;
    return parsed;
}

static void sk_timing_close(sk_timing *t)
{
    for (size_t i = 0; i < HK_MAX_ARGS; i++) {
        expr_free(t->count_x[i]);
        t->count_x[i] = NULL;
    }
    for (int d = 0; d < 3; d++) {
        expr_free(t->grid_x[d]);
        t->grid_x[d] = NULL;
    }
    expr_free(t->shmem_x);
    expr_free(t->elems_x);
    t->elems_x = NULL;
    t->shmem_x = NULL;
}

/* The blocks the grid launches at the sizes of t; 0 when it does not evaluate. */
static long long sk_timing_blocks(const sk_timing *t)
{
    long long n = 1, v = 0;
    for (size_t d = 0; d < t->n_grid; d++) {
        if (!sk_timing_eval(t, t->grid_x[d], &v) || v < 1)
            return 0;
        n = n <= LLONG_MAX / v ? n * v : LLONG_MAX;
    }
    return n;
}

/* Size v of t halved as a set of its kind allows: a multiple of unit[v] (the block, for a
 * size a grid without bounds checks divides), odd in a ragged set (a multiple of no block),
 * no less than floor. One rising function of the value, so that sizes halved together keep
 * their order (a leading dimension its extent). 0 when it cannot shrink. */
static long long sk_halved(long long cur, long long unit, bool ragged, long long floor)
{
    long long next = ragged && unit <= 1 ? (cur / 2) | 1 : unit > 1 ? cur / 2 / unit * unit : cur / 2;
    return next < cur && next >= floor && next >= unit ? next : 0;
}

/* Whether the launch at the sizes of t is one to check on: within the device's limits,
 * the asserts, rows and one-pass conditions (sk_timing_fits, the memory caps aside: a
 * shrink on its way under them) and at least least_blocks blocks (two, or one where the
 * sizes as invented launch one: sk_shrink_check grows them after). */
static bool sk_shrink_valid(sk_timing *t, long long least_blocks, bool *fits, long long *all)
{
    long long sure = 0;
    const char *why = NULL;
    int guessed = -1;
    *fits = sk_timing_fits(t, &sure, all, &why, &guessed);
    return (*fits || t->over_cap) && sk_timing_blocks(t) >= least_blocks;
}

/* The halvings of one step (next[v], 0 for a size that stays): every size not frozen that
 * can halve, except where that would take it below a size that stays, was no larger and
 * is related to it (9 halved to 5 beside a 7 at its floor): the order between sizes that
 * one count holds stays, a leading dimension's over the extent it strides among them.
 * related: n_sizes x n_sizes. False when none halves. */
static bool sk_shrink_step(const long long *was, size_t n_sizes, const bool *frozen, const bool *related,
                           const long long *unit, bool ragged, long long floor, long long *next)
{
    for (size_t v = 0; v < n_sizes; v++)
        next[v] = frozen[v] ? 0 : sk_halved(was[v], unit[v], ragged, floor);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t v = 0; v < n_sizes; v++)
            for (size_t u = 0; u < n_sizes && next[v]; u++)
                if (!next[u] && related[v * n_sizes + u] && was[u] <= was[v] && next[v] < was[u]) {
                    next[v] = 0;
                    changed = true;
                }
    }
    bool any = false;
    for (size_t v = 0; v < n_sizes; v++)
        any |= next[v] != 0;
    return any;
}

/* Halves the sizes of t that may shrink (can[v]), together (sk_shrink_step) and to floor
 * at least, while the buffers (guessed counts included) take more than budget bytes in all
 * or past the memory caps; a size whose halving alone breaks the launch (sk_shrink_valid:
 * an assert's lower bound, a single block) stays from then on. t is open
 * (sk_timing_open). True when the sizes then fit within budget; *all gets the bytes at
 * them. */
static bool sk_timing_shrink(sk_timing *t, size_t n_sizes, const bool *can, const long long *unit, bool ragged,
                             long long floor, long long budget, long long *all)
{
    bool frozen[SK_MAX_VARS], related[SK_MAX_VARS * SK_MAX_VARS] = { 0 };
    for (size_t v = 0; v < n_sizes; v++)
        frozen[v] = !can[v];
    /* a count that is known relates its sizes; a guess (the product of every size) none */
    for (size_t i = 0; i < t->f->n_params && i < HK_MAX_ARGS; i++)
        for (size_t v = 0; t->counts[i] && t->count_sure[i] && v < n_sizes; v++)
            for (size_t u = 0; u < n_sizes && sk_names(t->counts[i], t->vars[v].name); u++)
                related[v * n_sizes + u] |= sk_names(t->counts[i], t->vars[u].name);
    bool fits = false;
    long long least = sk_timing_blocks(t) >= 2 ? 2 : 1;
    sk_shrink_valid(t, least, &fits, all);
    for (int step = 0; step < 64 && !(fits && *all <= budget); step++) {
        long long was[SK_MAX_VARS], next[SK_MAX_VARS];
        for (size_t v = 0; v < n_sizes; v++)
            was[v] = SK_VAL(t, v);
        if (!sk_shrink_step(was, n_sizes, frozen, related, unit, ragged, floor, next))
            break;
        for (size_t v = 0; v < n_sizes; v++)
            SK_VAL(t, v) = next[v] ? next[v] : was[v];
        if (sk_shrink_valid(t, least, &fits, all))
            continue;
        /* one of them broke it: try each alone, and keep those that break it */
        bool froze = false;
        for (size_t v = 0; v < n_sizes; v++)
            SK_VAL(t, v) = was[v];
        for (size_t v = 0; v < n_sizes; v++) {
            if (!next[v])
                continue;
            SK_VAL(t, v) = next[v];
            if (!sk_shrink_valid(t, least, &fits, all))
                froze = frozen[v] = true;
            SK_VAL(t, v) = was[v];
        }
        if (!froze) /* only together: stop here */
            break;
        sk_shrink_valid(t, least, &fits, all);
    }
    sk_shrink_valid(t, least, &fits, all);
    return fits && *all <= budget;
}

/* Whether var stands in the count of a buffer read only by a gather. */
static bool sk_in_gather(const sk_timing *t, const char *var)
{
    for (size_t i = 0; t->gather && i < t->f->n_params && i < HK_MAX_ARGS; i++)
        if (t->gather[i] > 0 && t->counts[i] && sk_names(t->counts[i], var))
            return true;
    return false;
}

/* Grows the invented sizes of the timed set (a JSON object of integers, changed in place)
 * until the buffers whose counts are known (every buffer when none is) move
 * SK_TIMING_BYTES, within sk_timing_fits. The sizes an output's count holds together (C's
 * m + n * ldc) grow together, by one rising function of their values: their order, and so
 * a leading dimension's hold over the extent it strides (ldc >= m), stays as invented,
 * and no two threads come to write one element. Groups with a size the grid launches over
 * grow first, in turn; a size that only per-thread loops run over (an all-pairs kernel's
 * second set: its time goes with the grid times it) grows only when those are spent, and
 * at most SK_LOOP_GROWTH times, unless no size sets the grid. cap[i]: -1 keeps size i (an
 * offset, a head dimension, an array's loop bound), 0 lets it grow freely, else its most
 * (an assert's bound); unit: what every size stays a multiple of (1 for any). Notes what
 * grew and why, or why it stopped short. k->nomem on ENOMEM. */
static void sk_grow_timing(skel *k, sk_timing *t, json_t *set, const long long *cap, const long long *unit,
                           bool ragged)
{
    long long sure = 0, all = 0, moved = 0;
    const char *why = NULL;
    int guessed = -1;
    bool use_sure = false;
    struct hk_buf grew;
    hk_buf_init(&grew, SK_MAX_TEXT);
    if (k->n_vars == 0 || k->n_vars > SK_MAX_VARS)
        return;
    long long invented[SK_MAX_VARS];
    bool parsed = sk_timing_open(k, t, set);
    for (size_t v = 0; v < k->n_vars; v++)
        invented[v] = SK_VAL(t, v);
    if (parsed && !sk_timing_fits(t, &sure, &all, &why, &guessed) && t->over_cap) {
        /* the sizes as invented are past a cap (a guessed product of every size): halved
         * until they fit, then grown from there */
        bool can[SK_MAX_VARS];
        for (size_t v = 0; v < k->n_vars; v++)
            can[v] = cap[v] >= 0;
        if (sk_timing_shrink(t, k->n_vars, can, unit, ragged, SK_SHRINK_FLOOR, LLONG_MAX, &all)) {
            for (size_t v = 0; v < k->n_vars; v++)
                if (SK_VAL(t, v) != invented[v])
                    hk_buf_printf(&grew, hk_tr(HK_MSG_INF_FRAG_WAS_NOW), grew.len ? hk_tr(HK_MSG_INF_FRAG_SEP) : "", k->vars[v], invented[v],
                                  SK_VAL(t, v));
            sk_note(k, HK_MSG_INF_TIMING_HALVED, why,
                    grew.data ? grew.data : "");
            hk_buf_free(&grew);
            hk_buf_init(&grew, SK_MAX_TEXT);
        } else {
            for (size_t v = 0; v < k->n_vars; v++)
                SK_VAL(t, v) = invented[v];
        }
    }
    if (!parsed || !sk_timing_fits(t, &sure, &all, &why, &guessed))
        goto out;
    use_sure = sure > 0;
    moved = use_sure ? sure : all;
    if (moved <= 0 || moved >= SK_TIMING_BYTES)
        goto out;
    int cls[SK_MAX_VARS];    /* 0: sizes the grid, 1: per-thread loops only, -1: kept */
    size_t grp[SK_MAX_VARS]; /* the first size of its group */
    bool in_output[SK_MAX_VARS] = { 0 }, free_var[SK_MAX_VARS] = { 0 }, strides[SK_MAX_VARS] = { 0 };
    long long start[SK_MAX_VARS];
    bool any_grid = false;
    for (size_t v = 0; v < k->n_vars; v++) {
        const char *name = k->vars[v];
        start[v] = SK_VAL(t, v);
        bool counted = false, gridded = false;
        /* a buffer read only by a gather moves what the grid picks of it: a size of its
         * count alone gives the timing no work (mmcv's focal loss: num_classes grown to
         * 10240 for one element read per row), it may only give way (sk_make_room) */
        for (size_t i = 0; i < t->f->n_params && i < HK_MAX_ARGS && !counted; i++)
            counted = t->counts[i] && t->f->params[i].pointer_depth > 0 && !t->single[i] &&
                      !(t->gather && t->gather[i] > 0) && (t->count_sure[i] || !use_sure) &&
                      sk_names(t->counts[i], name);
        for (size_t d = 0; d < t->n_grid && !gridded; d++)
            gridded = sk_names(t->grid[d], name);
        for (size_t d = 0; d < 3 && !gridded; d++)
            gridded = sk_names(t->need[d], name);
        cls[v] = cap[v] < 0 || start[v] < 1 || !counted ? -1 : gridded ? 0 : 1;
        any_grid |= cls[v] == 0;
        grp[v] = v;
    }
    for (size_t i = 0; i < t->f->n_params && i < HK_MAX_ARGS; i++) {
        if (!t->counts[i] || !t->written[i] || t->single[i])
            continue;
        size_t first = SIZE_MAX;
        for (size_t v = 0; v < k->n_vars; v++) {
            /* a block's serial steps (FPS's picks) that an output also counts (its m
             * indices per batch) grow with the outputs' group no more than with the grid:
             * each one costs the block a round of barriers, not bytes */
            if (!sk_names(t->counts[i], k->vars[v]) || (t->serial && t->serial[v]))
                continue;
            in_output[v] = true;
            if (cls[v] < 0)
                continue;
            if (first == SIZE_MAX) {
                first = grp[v];
                continue;
            }
            size_t old = grp[v]; /* merge v's group into first's */
            for (size_t u = 0; u < k->n_vars; u++)
                if (grp[u] == old)
                    grp[u] = first;
        }
    }
    /* a size of an input's count that neither the grid launches over nor a loop runs to
     * only strides it (sgemm's lda beside m in m + (k - 1) * lda + 1): it follows the
     * group of a launched size it is counted with, as a leading dimension its extent */
    for (size_t i = 0; i < t->f->n_params && i < HK_MAX_ARGS; i++) {
        if (!t->counts[i] || t->written[i] || t->single[i] || t->f->params[i].pointer_depth == 0 ||
            !t->count_sure[i] || /* a guess (the product of every size) relates nothing */
            (t->gather && t->gather[i] > 0)) /* nor a gather: its rows are not read whole */
            continue;
        size_t anchor = SIZE_MAX;
        for (size_t v = 0; v < k->n_vars && anchor == SIZE_MAX; v++)
            if (cls[v] == 0 && sk_names(t->counts[i], k->vars[v]))
                anchor = grp[v];
        for (size_t v = 0; v < k->n_vars && anchor != SIZE_MAX; v++)
            if (cls[v] == 1 && !t->loop_bound[v] && !in_output[v] && grp[v] == v &&
                sk_names(t->counts[i], k->vars[v]) && !sk_divides(t->counts[i], k->vars[v])) {
                grp[v] = anchor;
                strides[v] = true;
            }
    }
    int gcls[SK_MAX_VARS]; /* a group's class: 0 when one of it sizes the grid */
    for (size_t v = 0; v < k->n_vars; v++)
        gcls[v] = -1;
    for (size_t v = 0; v < k->n_vars; v++)
        if (cls[v] >= 0 && (gcls[grp[v]] < 0 || cls[v] < gcls[grp[v]]))
            gcls[grp[v]] = cls[v];
    for (size_t v = 0; v < k->n_vars; v++)
        /* a size a counted loop runs to is each thread's work (matrixMul's wA: halved to 16
         * for a guessed B it timed a GEMM of K = 16), not only a factor of the guess */
        free_var[v] = cap[v] >= 0 && cls[v] != 0 && !in_output[v] && !t->loop_bound[v];
    const char *stop_why = NULL, *stop_var = NULL;
    int stop_guess = -1; /* the parameter whose guessed count stopped the growth */
    bool shrunk[SK_MAX_VARS] = { 0 };
    for (int c = 0; c < 2 && moved < SK_TIMING_BYTES; c++) {
        bool frozen[SK_MAX_VARS] = { 0 };
        for (bool progress = true; progress && moved < SK_TIMING_BYTES;) {
            progress = false;
            for (size_t g = 0; g < k->n_vars && moved < SK_TIMING_BYTES; g++) {
                if (grp[g] != g || gcls[g] != c || frozen[g])
                    continue;
                long long was[SK_MAX_VARS];
                for (size_t v = 0; v < k->n_vars; v++)
                    was[v] = SK_VAL(t, v);
                /* by the least of 5/4 and 3/2 that reaches the target (a group of four
                 * sizes doubled moves 16x: far past it), else by 2, 3/2 or 5/4, the most
                 * that fits; one function of the value for every size of the group, rising
                 * with it: an order between them holds */
                static const long long num[5] = { 5, 3, 2, 3, 5 }, den[5] = { 4, 2, 1, 2, 4 };
                bool grown = false;
                for (int s = 0; s < 5 && !grown; s++) {
                    bool can = true;
                    for (size_t v = 0; v < k->n_vars && can; v++) {
                        if (grp[v] != g || cls[v] < 0)
                            continue;
                        long long most = cap[v] > 0 ? cap[v] : LLONG_MAX, u = unit[v] > 1 ? unit[v] : 1;
                        if (c == 1 && any_grid && start[v] * SK_LOOP_GROWTH < most)
                            most = start[v] * SK_LOOP_GROWTH;
                        long long next = (was[v] * num[s] / den[s] + u - 1) / u * u;
                        can = !shrunk[v] && next > was[v] && next <= most;
                        SK_VAL(t, v) = next;
                    }
                    grown = can && (sk_timing_fits(t, &sure, &all, &why, &guessed) ||
                                    (c == 0 && guessed >= 0 &&
                                     sk_make_room(k, t, free_var, unit, shrunk, guessed, moved, use_sure)));
                    if (grown && s < 2) { /* only when it reaches the target */
                        sk_timing_fits(t, &sure, &all, &why, &guessed);
                        grown = (use_sure ? sure : all) >= SK_TIMING_BYTES;
                        can = false; /* not what stopped the growth */
                    }
                    if (!grown) {
                        for (size_t v = 0; v < k->n_vars; v++)
                            SK_VAL(t, v) = was[v];
                        if (can) {
                            stop_why = why;
                            stop_var = k->vars[g];
                            stop_guess = guessed;
                        }
                    }
                }
                if (!grown) {
                    frozen[g] = true;
                    continue;
                }
                sk_timing_fits(t, &sure, &all, &why, &guessed);
                moved = use_sure ? sure : all;
                progress = true;
            }
        }
    }
    for (size_t v = 0; v < k->n_vars; v++) {
        long long now = SK_VAL(t, v);
        if (now != invented[v] && json_object_set_new(set, k->vars[v], json_integer(now)) != 0)
            k->nomem = true;
        if (now == start[v])
            continue;
        hk_buf_printf(&grew, hk_tr(HK_MSG_INF_FRAG_GREW), grew.len ? hk_tr(HK_MSG_INF_FRAG_SEP) : "", k->vars[v], start[v], now,
                      now < start[v] && sk_in_gather(t, k->vars[v])
                                      ? hk_tr(HK_MSG_INF_FRAG_GATHER_CAPPED)
                      : now < start[v]  ? hk_tr(HK_MSG_INF_FRAG_GUESS_CAPPED)
                      : cls[v] == 0   ? hk_tr(HK_MSG_INF_FRAG_GRID_OVER)
                      : in_output[v] ? hk_tr(HK_MSG_INF_FRAG_OUTPUT_GRID)
                      : strides[v]   ? hk_tr(HK_MSG_INF_FRAG_STRIDES)
                                      : hk_tr(HK_MSG_INF_FRAG_PER_THREAD_LOOPS));
    }
    const char *whose = use_sure ? hk_tr(HK_MSG_INF_FRAG_SURE_BUFFERS) : hk_tr(HK_MSG_INF_FRAG_BUFFERS);
    if (grew.len && moved >= SK_TIMING_BYTES)
        sk_note(k, HK_MSG_INF_TIMING_GROWN_PAST,
                whose, (double)moved / 1e6, grew.data);
    else if (grew.len)
        sk_note(k, HK_MSG_INF_TIMING_GROWN_SHORT, whose, (double)moved / 1e6, stop_var ? stop_var : hk_tr(HK_MSG_INF_FRAG_NO_SIZE_LEFT),
                stop_var ? hk_tr(HK_MSG_INF_FRAG_STOPPED_BY) : "", stop_var && stop_why ? stop_why : "", grew.data);
    else if (moved < SK_TIMING_BYTES)
        sk_note(k, HK_MSG_INF_TIMING_SHORT,
                (double)moved / 1e6, stop_var ? stop_var : hk_tr(HK_MSG_INF_FRAG_NO_SIZE_CAN), stop_var ? hk_tr(HK_MSG_INF_FRAG_STOPPED_BY) : "",
                stop_var && stop_why ? stop_why : "");
    /* a guess that leaves the known buffers next to nothing leaves nothing to time (mmcv's
     * carafe: the product of seven sizes held its 21 outputs, a kernel of one block) */
    if (use_sure && moved < SK_TIMING_FLOOR && stop_guess >= 0 && (size_t)stop_guess < t->f->n_params &&
        !t->count_sure[stop_guess])
        sk_doubt(k, HK_MSG_INF_TIMED_NOTHING,
                 (double)moved / 1e6, t->f->params[stop_guess].name);
out:
    /* a halving that fit, when the growth went no further */
    for (size_t v = 0; v < k->n_vars && parsed; v++)
        if (SK_VAL(t, v) != invented[v] && json_object_set_new(set, k->vars[v], json_integer(SK_VAL(t, v))) != 0)
            k->nomem = true;
    sk_timing_close(t);
    hk_buf_free(&grew);
}

/* Halves the invented sizes of the check set (sizes[0], changed in place) that may shrink
 * (can[v]) until its buffers, guessed counts included, take SK_CHECK_BYTES at most
 * (sk_timing_shrink), and notes what it did. k->nomem on ENOMEM. */
static void sk_shrink_check(skel *k, sk_timing *t, json_t *set, const bool *can, const long long *unit, bool ragged)
{
    if (k->n_vars == 0 || k->n_vars > SK_MAX_VARS)
        return;
    struct hk_buf said;
    hk_buf_init(&said, SK_MAX_TEXT);
    long long was[SK_MAX_VARS], all = 0;
    bool parsed = sk_timing_open(k, t, set);
    for (size_t v = 0; v < k->n_vars; v++)
        was[v] = SK_VAL(t, v);
    bool fits = parsed && sk_timing_shrink(t, k->n_vars, can, unit, ragged, SK_CHECK_FLOOR, SK_CHECK_BYTES, &all);
    /* one block checks nothing between blocks (a candidate's wrong blockIdx offset passes):
     * the sizes the grid names grow together until it launches two, within the budget */
    long long small[SK_MAX_VARS];
    for (size_t v = 0; v < k->n_vars; v++)
        small[v] = SK_VAL(t, v);
    bool one_block = fits && sk_timing_blocks(t) < 2, any = true;
    for (int step = 0; one_block && any && step < 24; step++) {
        long long before[SK_MAX_VARS];
        any = false;
        for (size_t v = 0; v < k->n_vars; v++) {
            before[v] = SK_VAL(t, v);
            bool gridded = false;
            for (size_t d = 0; d < t->n_grid && !gridded; d++)
                gridded = sk_names(t->grid[d], k->vars[v]);
            if (can[v] && gridded && SK_VAL(t, v) <= INT32_MAX) {
                /* by half again, odd, in a ragged set; doubled (a multiple of its block) otherwise */
                long long x = SK_VAL(t, v), odd = (3 * x / 2) | 1;
                SK_VAL(t, v) = ragged ? (odd > x + 2 ? odd : x + 2) : 2 * x;
                any = true;
            }
        }
        long long sure = 0;
        const char *why = NULL;
        int guessed = -1;
        any = any && sk_timing_fits(t, &sure, &all, &why, &guessed) && all <= SK_CHECK_BYTES;
        if (!any) /* past the budget: the step before */
            for (size_t v = 0; v < k->n_vars; v++)
                SK_VAL(t, v) = before[v];
        one_block = sk_timing_blocks(t) < 2;
    }
    if (one_block) /* two blocks were not reached within the budget: the smaller set */
        for (size_t v = 0; v < k->n_vars; v++)
            SK_VAL(t, v) = small[v];
    sk_shrink_valid(t, 1, &fits, &all);
    fits = fits && all <= SK_CHECK_BYTES;
    for (size_t v = 0; v < k->n_vars && parsed; v++) {
        if (SK_VAL(t, v) == was[v])
            continue;
        if (json_object_set_new(set, k->vars[v], json_integer(SK_VAL(t, v))) != 0)
            k->nomem = true;
        hk_buf_printf(&said, hk_tr(HK_MSG_INF_FRAG_WAS_NOW), said.len ? hk_tr(HK_MSG_INF_FRAG_SEP) : "", k->vars[v], was[v], SK_VAL(t, v));
    }
    bool grown = false, halved = false;
    for (size_t v = 0; v < k->n_vars && parsed; v++) {
        grown |= SK_VAL(t, v) > was[v];
        halved |= SK_VAL(t, v) < was[v];
    }
    if (parsed && said.len && grown)
        sk_note(k, HK_MSG_INF_CHECK_GROWN,
                halved ? hk_tr(HK_MSG_INF_FRAG_HALVED_AND) : "", (double)all / 1e6, said.data);
    else if (parsed && said.len)
        sk_note(k, HK_MSG_INF_CHECK_HALVED, (double)all / 1e6,
                fits ? hk_tr(HK_MSG_INF_FRAG_WITHIN) : hk_tr(HK_MSG_INF_FRAG_SHORT),
                said.data);
    else if (parsed && !fits && t->over_cap)
        sk_note(k, HK_MSG_INF_CHECK_CAPS);
    else if (parsed && !fits)
        sk_note(k, HK_MSG_INF_CHECK_PAST, (double)all / 1e6);
    if (parsed && one_block)
        sk_note(k, HK_MSG_INF_CHECK_ONE_BLOCK);
    sk_timing_close(t);
    hk_buf_free(&said);
}

/* The threads the spec launches along each axis, grid[d] (block_x... put in as the block's
 * numbers) times block[d], mapped from kc_thread_names[d] where that is sizes alone. */
static void sk_map_threads(skel *k, char *const *grid, size_t n_grid, const long long *block, size_t n_block)
{
    static const char *const bnames[3] = { "block_x", "block_y", "block_z" };
    for (size_t d = 0; d < 3; d++) {
        const char *g = d < n_grid && grid[d] ? grid[d] : "1";
        long long bv = d < n_block ? block[d] : 1;
        struct hk_buf b;
        hk_buf_init(&b, SK_MAX_TEXT);
        bool ok = hk_buf_appends(&b, "((") == HK_OK;
        for (size_t i = 0, n = strlen(g); i < n && ok;) {
            size_t w = 0;
            for (size_t q = 0; q < 3 && !w; q++)
                if (sk_word_at(g, n, i, bnames[q], 7))
                    w = q + 1;
            if (w) {
                ok = hk_buf_printf(&b, "%lld", w - 1 < n_block ? block[w - 1] : 1) == HK_OK;
                i += 7;
            } else {
                ok = hk_buf_append(&b, g + i, 1) == HK_OK;
                i++;
            }
        }
        ok = ok && hk_buf_printf(&b, ") * %lld)", bv) == HK_OK && b.data;
        if (ok && kf_only_sizes(k, b.data)) {
            sk_map(k, kc_thread_names[d], b.data);
            k->threads_known[d] = !k->nomem;
        }
        hk_buf_free(&b);
    }
}

int sk_build(const an_model *m, long kernel, skel *k, const char *source, int grid_mode,
             sk_cover *cover, json_t **out)
{
    *out = NULL;
    const an_function *f = &m->funcs[kernel];
    const char *text = k->text;
    size_t len = k->len;
    if (!k->site_m) {
        k->site_m = m;
        k->site_text = text;
        k->site_len = len;
    }
    const an_model *sm = k->site_m;
    const an_launch *site = sk_find_site(sm, k->site_text, k->site_len, f->name, f->n_params);
    if (site && k->site_text && sk_site_body(sm, k->site_text, k->site_len, site, &k->body_start)) {
        k->body_end = site->span.start_byte < k->site_len ? site->span.start_byte : (uint32_t)k->site_len;
    }
    int site_line = site ? (int)site->span.start_row + 1 : 0;
    const char *file = k->site_file ? k->site_file : k->file ? k->file : source;
    sk_branch branch;
    if (site && sk_site_branch(sm, k->site_text, k->site_len, site, &branch)) {
        /* the launch in the branch the program takes: its parameter is that constant there
         * (the block dim3(block_size, block_size) reads as 32 x 32) */
        char v[32];
        snprintf(v, sizeof v, "%lld", branch.value);
        sk_map(k, branch.param, v);
        sk_note(k, HK_MSG_INF_BRANCH_RUNS, file,
                site_line, branch.taken ? hk_tr(HK_MSG_INF_FRAG_BRANCH_TAKEN) : hk_tr(HK_MSG_INF_FRAG_BRANCH_NONE),
                branch.launcher, branch.calls, branch.param, branch.value);
        if (!branch.taken)
            sk_doubt(k, HK_MSG_INF_BRANCH_NONE, f->name, branch.param, branch.value, branch.launcher);
    }
    int rc = HK_OK;
    json_t *root = NULL;
    kfacts kf = { 0 };
    char *block[3] = { 0 }, *grid[3] = { 0 }, *scal[HK_MAX_ARGS] = { 0 }, *counts[HK_MAX_ARGS] = { 0 };
    char *tparams[16] = { 0 }, *tactual[16] = { 0 }, *targs[16] = { 0 };
    char *gather_bound = NULL; /* the elements a grid-stride loop visits, for gathers */
    size_t n_block = 0, n_grid = 0, n_tp = 0, n_ta = 0;
    long long block_val[3] = { 1, 1, 1 };
    bool count_sure[HK_MAX_ARGS] = { 0 };
    bool count_host[HK_MAX_ARGS] = { 0 }; /* from the host's allocation, not from the grid */
    int derived_line[HK_MAX_ARGS] = { 0 }; /* a pointer made from it the count cannot follow */
    long elem_bytes[HK_MAX_ARGS] = { 0 };  /* bytes of one element of counts[i] */
    long long program[SK_MAX_VARS];
    bool have_program[SK_MAX_VARS] = { 0 };
    kc_rows rows = { 0 };   /* the rows a 2-D kernel writes, when their grid is guessed */
    char *rows_size = NULL; /* the size they go to */

    /* template arguments: the launch site's, else defaults (types float, values 128) */
    char *site_targs[16] = { 0 };
    size_t n_site_targs = site && site->template_args
                              ? sk_split_targs(site->template_args, site_targs, HK_ARRAY_LEN(site_targs))
                              : 0;
    char targ_from[PATH_MAX + 48];
    snprintf(targ_from, sizeof targ_from, hk_tr(HK_MSG_INF_FRAG_FROM_SITE), file, site_line);
    if (!n_site_targs && f->template_params) {
        size_t at = 0;
        bool own = true;
        char *inst = sk_instantiation(text, len, f->name, &at);
        if (!inst && k->site_text != text) {
            own = false;
            inst = sk_instantiation(k->site_text, k->site_len, f->name, &at);
        }
        if (inst) {
            n_site_targs = sk_split_targs(inst, site_targs, HK_ARRAY_LEN(site_targs));
            snprintf(targ_from, sizeof targ_from, hk_tr(HK_MSG_INF_FRAG_FROM_INST),
                     own ? (k->file ? k->file : source) : file, own ? sk_line(k, at) : sk_site_line(k, at));
        }
        hk_free(inst);
    }
    if (f->template_params) {
        char *decl[16] = { 0 };
        size_t nd = sk_split_targs(f->template_params, decl, HK_ARRAY_LEN(decl));
        for (size_t i = 0; i < nd && n_ta < HK_ARRAY_LEN(targs); i++) {
            char *eq = decl[i] ? strchr(decl[i], '=') : NULL;
            char kw[32] = "", nm[64] = "";
            if (decl[i]) {
                sscanf(decl[i], "%31s", kw);
                sk_tparam_name(decl[i], nm, sizeof nm);
            }
            bool type = !strcmp(kw, "typename") || !strcmp(kw, "class");
            const char *given = i < n_site_targs ? site_targs[i] : NULL;
            const char *dispatch = type && given && site && !strcmp(given, "scalar_t")
                                       ? sk_dispatch_macro(k, site->span.start_byte)
                                       : NULL;
            int launcher_line = 0;
            const char *launcher = type && given && site && !dispatch
                                       ? sk_launcher_float(k, site, given, &launcher_line)
                                       : NULL;
            if (dispatch || launcher)
                given = "float";
            const char *val = given;
            if (!val && eq) {
                char *v = eq + 1;
                while (isspace((unsigned char)*v))
                    v++;
                val = v;
            }
            if (!val)
                val = type ? "float" : "128";
            char *tr = type ? NULL : sk_translate(k, val, 0);
            expr *e = NULL;
            expr_value v;
            if (tr && expr_parse(tr, &e, NULL, 0) == HK_OK && expr_eval(e, NULL, 0, &v, NULL, 0) == HK_OK &&
                !v.is_float)
                targs[n_ta] = hk_asprintf("%lld", v.i);
            else
                targs[n_ta] = hk_strdup(val);
            expr_free(e);
            hk_free(tr);
            if (!given)
                sk_doubt(k, HK_MSG_INF_TARG_GUESSED, nm[0] ? nm : "?",
                         f->name, targs[n_ta] ? targs[n_ta] : "?");
            else if (dispatch)
                sk_note(k, HK_MSG_INF_TARG_SCALAR_T, nm[0] ? nm : "?", nm[0] ? nm : "?",
                        dispatch, file, site_line);
            else if (launcher)
                sk_note(k, HK_MSG_INF_TARG_LAUNCHER, nm[0] ? nm : "?", file, site_line,
                        i < n_site_targs ? site_targs[i] : "?", launcher, launcher_line);
            else
                sk_note(k, HK_MSG_INF_TARG_FROM, nm[0] ? nm : "?", given, targ_from);
            if (type && nm[0] && n_tp < HK_ARRAY_LEN(tparams)) {
                tparams[n_tp] = hk_strdup(nm);
                tactual[n_tp++] = hk_strdup(targs[n_ta] ? targs[n_ta] : "float");
            } else if (!type && nm[0] && targs[n_ta]) {
                sk_map(k, nm, targs[n_ta]); /* BLOCK in the index math is this value */
            }
            n_ta++;
        }
        for (size_t i = 0; i < nd; i++)
            hk_free(decl[i]);
    }
    for (size_t i = 0; i < n_site_targs; i++)
        hk_free(site_targs[i]);

    /* integer arguments at the launch that are plain launcher variables stay variables */
    for (size_t i = 0; site && i < f->n_params && i < site->n_args && k->n_keep < SK_MAX_VARS; i++) {
        const an_param *p = &f->params[i];
        int dt;
        if (p->pointer_depth == 0 && spec_dtype_parse(p->elem_type, &dt) == HK_OK && !hk_dtype_is_float(dt) &&
            sk_is_identifier(site->args[i]) && !sk_tunable_value(k, site->args[i]) &&
            !sk_product_local(k, site, site->args[i]))
            k->keep[k->n_keep++] = site->args[i];
    }

    /* block: from the launch when it translates to constants, else 256 (16x16 for 2D) */
    bool site_block_unread = false, site_block_sized = false;
    char sized_block[128] = "";
    if (site && site->block) {
        char *t = sk_translate(k, site->block, 0);
        char *raw = t ? NULL : sk_local_init(k, site->block);
        const char *dims_src = t ? t : raw ? raw : site->block;
        char *parts[3] = { 0 };
        size_t np = sk_split_dims(dims_src, parts);
        for (size_t d = 0; d < np; d++) {
            char *pt = sk_translate(k, parts[d], 0);
            expr *e = NULL;
            expr_value v;
            if (pt && expr_parse(pt, &e, NULL, 0) == HK_OK && expr_eval(e, NULL, 0, &v, NULL, 0) == HK_OK &&
                !v.is_float && v.i >= 1 && v.i <= 1024) {
                block_val[d] = v.i;
                n_block = d + 1;
            } else {
                /* a block sized by the problem (Parboil's stencil: nx - 1 threads, one per
                 * element of a row): the kernel relies on it (sk_sized_block) */
                if (pt && !site_block_sized && sk_sized_block(k, pt)) {
                    site_block_sized = true;
                    snprintf(sized_block, sizeof sized_block, "%s", pt);
                }
                n_block = 0;
                np = 0;
            }
            expr_free(e);
            hk_free(pt);
        }
        for (size_t d = 0; d < 3; d++)
            hk_free(parts[d]);
        /* a block the program fixes at compile time (a #define, a constexpr) that did not
         * translate; a runtime one (a launcher's block_size) the kernel cannot assume */
        site_block_unread = n_block == 0 && sk_mentions_tunable(k, raw ? raw : site->block);
        hk_free(t);
        hk_free(raw);
        long long case_val = 0;
        if (n_block)
            sk_note(k, HK_MSG_INF_BLOCK_SITE, file, site_line);
        else if (sk_switch_case(k, site, &case_val)) {
            /* switch (n_threads) { case 1024: k<1024><<<b, n_threads>>> ...: the launch
             * runs with that value (a kernel templated on its block needs it) */
            block_val[0] = case_val;
            block_val[1] = block_val[2] = 1;
            n_block = 1;
            site_block_unread = false;
            sk_note(k, HK_MSG_INF_BLOCK_CASE,
                    case_val, file, site_line, case_val, site->block);
        } else if ((n_block = sk_if_block(k, site, block_val)) > 0) {
            /* if (block_size == 16) k<16><<<grid, threads>>>: likewise */
            site_block_unread = false;
            sk_note(k, HK_MSG_INF_BLOCK_IF, block_val[0], n_block > 1 ? block_val[1] : 1,
                    n_block > 2 ? block_val[2] : 1, file, site_line, site->block);
        }
    }
    /* an integer argument passed as a member (s.n, p->batch) is that parameter wherever the
     * launcher writes it (grid, allocations) */
    for (size_t i = 0; site && i < f->n_params && i < site->n_args; i++) {
        const an_param *p = &f->params[i];
        int dt;
        char chain[256];
        size_t cl = 0;
        for (const char *c = site->args[i]; *c && cl + 1 < sizeof chain; c++)
            if (!isspace((unsigned char)*c))
                chain[cl++] = *c;
        chain[cl] = '\0';
        bool member = (strchr(chain, '.') || strstr(chain, "->")) &&
                      strspn(chain, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.->") == cl &&
                      !isdigit((unsigned char)chain[0]);
        if (member && p->pointer_depth == 0 && p->name[0] && sk_is_identifier(p->name) &&
            spec_dtype_parse(p->elem_type, &dt) == HK_OK && !hk_dtype_is_float(dt)) {
            sk_map(k, chain, p->name);
            sk_note(k, HK_MSG_INF_PASSED_AS_SIZE, p->name,
                    site->args[i], file, site_line, p->name);
        }
    }
    /* scalars: values from the launch arguments; integer ones define size variables */
    for (size_t i = 0; i < f->n_params; i++) {
        const an_param *p = &f->params[i];
        if (p->pointer_depth > 0)
            continue;
        int dt = HK_DT_F32;
        char scalar_type[96];
        sk_resolve_type(k, p->elem_type, scalar_type, sizeof scalar_type);
        bool is_int = spec_dtype_parse(scalar_type, &dt) == HK_OK && !hk_dtype_is_float(dt);
        const char *arg = site && i < site->n_args ? site->args[i] : NULL;
        if (!strcmp(p->elem_type, "bool")) {
            /* a flag, never a size: true only when the launch says so. False is the common
             * default of such flags (mmcv's aligned=False, whose branch writes every output) */
            bool on = arg && (!strcmp(arg, "true") || !strcmp(arg, "1"));
            scal[i] = hk_strdup(on ? "1" : "0");
            if (!arg)
                sk_note(k, HK_MSG_INF_FLAG_FALSE, p->name[0] ? p->name : "?");
            continue;
        }
        char *t = arg ? sk_translate(k, arg, 0) : NULL;
        if (is_int) {
            if (!t && p->name[0] && sk_is_identifier(p->name))
                t = hk_strdup(p->name);
            if (t) {
                sk_collect(k, t);
                scal[i] = t;
            }
        } else {
            expr *e = NULL;
            expr_value v;
            if (t && expr_parse(t, &e, NULL, 0) == HK_OK && expr_eval(e, NULL, 0, &v, NULL, 0) == HK_OK)
                scal[i] = hk_asprintf("%.9g", expr_value_double(v));
            expr_free(e);
            hk_free(t);
        }
    }
    /* the program's own values of the size variables (int n = 1 << 20 is not one) */
    for (size_t i = 0; i < k->n_vars; i++) {
        size_t saved = k->n_keep;
        k->n_keep = 0;
        char *t = sk_translate(k, k->vars[i], 0);
        k->n_keep = saved;
        expr *e = NULL;
        expr_value v;
        if (t && strcmp(t, k->vars[i]) != 0 && expr_parse(t, &e, NULL, 0) == HK_OK &&
            expr_eval(e, NULL, 0, &v, NULL, 0) == HK_OK && !v.is_float && v.i >= 0 && v.i <= (1LL << 31)) {
            program[i] = v.i;
            have_program[i] = true;
        }
        expr_free(e);
        hk_free(t);
    }
    /* A size variable the program sets to 0 (a tile's base on the first pass of the
     * launcher's loop: `for (q = 0; ...) { base = q * TILE; k<<<...>>>(n, base, ...); }`) is
     * an offset, no size: invented like one (the powers of two of the sizes put it past the
     * kernel's `base < n`, which left the kernel no work to check), small, 1 and 3, as an
     * offset taken off a bound is below; it stays a variable, so no candidate can take it
     * for a constant. */
    bool zero_offset[SK_MAX_VARS] = { 0 };
    for (size_t i = 0; i < k->n_vars; i++)
        if (have_program[i] && program[i] == 0) {
            zero_offset[i] = true;
            have_program[i] = false;
            sk_note(k, HK_MSG_INF_SIZE_FIRST_ZERO, k->vars[i], file, site_line);
        }
    /* kernel parameters read in the body are their launch values */
    for (size_t i = 0; i < f->n_params; i++)
        if (scal[i] && f->params[i].name[0] && f->params[i].pointer_depth == 0)
            sk_map(k, f->params[i].name, scal[i]);

    size_t n_block_read = n_block; /* the launch's block, when it could be read */
    /* the index math: dimensions used, bounds, grid-stride, a block size it hard-codes */
    kf_scan(k, f, &kf);
    if (!kf.grid_stride && k->km) { /* a grid-stride loop written by a macro the text hides */
        size_t nl = 0;
        const km_loop *l = km_loops(k->km, &nl);
        for (size_t i = 0; i < nl; i++)
            kf.grid_stride |= l[i].kind == KM_LOOP_GRID_STRIDE;
    }
    /* gridDim in the text is no grid-stride loop by itself (a flat 2-D index, a last
     * block's test, a comment): with the model at hand only its loops that step by the
     * grid let any grid cover the bounds, and every other grid is checked against them */
    cover->grid_stride = kf.grid_stride && kc_grid_steps(k);
    long long pinned = 0;
    if (kf.fixed_block && n_block && block_val[0] > 0 && block_val[0] < kf.fixed_block &&
        kf.fixed_block % block_val[0] == 0) {
        /* the launch's block divides what the index math steps blockIdx.x by: each thread
         * covers several elements that far apart (a loop over i * block), so the block the
         * program launches is the one the kernel is written for */
        pinned = block_val[0];
        sk_note(k, HK_MSG_INF_BLOCK_PINNED_MULTIPLE, pinned, file, site_line, kf.fixed_block,
                kf.fixed_block / pinned);
    } else if (kf.fixed_block) {
        pinned = kf.fixed_block;
        sk_note(k, HK_MSG_INF_BLOCK_PINNED, pinned, kf.fixed_why, kf.fixed_line);
    } else if (f->launch_bounds) {
        char *lb = hk_strdup(f->launch_bounds);
        if (lb)
            lb[strcspn(lb, ",")] = '\0';
        char *tr = lb ? sk_translate(k, lb, 0) : NULL;
        expr *e = NULL;
        expr_value v;
        if (tr && expr_parse(tr, &e, NULL, 0) == HK_OK && expr_eval(e, NULL, 0, &v, NULL, 0) == HK_OK &&
            !v.is_float && v.i >= 1 && v.i <= 1024) {
            long long threads = block_val[0] * block_val[1] * block_val[2];
            if (!n_block || threads > v.i) {
                n_block = 1;
                block_val[0] = v.i;
                block_val[1] = block_val[2] = 1;
            }
            pinned = -1; /* the block is fixed as launched */
            sk_note(k, HK_MSG_INF_BLOCK_LAUNCH_BOUNDS, f->launch_bounds);
        }
        expr_free(e);
        hk_free(tr);
        hk_free(lb);
    }
    if (pinned > 0 && (!n_block || block_val[0] != pinned)) {
        if (n_block && block_val[0] != pinned)
            sk_doubt(k, HK_MSG_INF_BLOCK_MISMATCH,
                     file, site_line, block_val[0], pinned);
        n_block = n_block ? n_block : 1;
        block_val[0] = pinned;
    }
    if (n_block == 0 && site_block_sized)
        sk_doubt(k, HK_MSG_INF_BLOCK_GROWS, file, site_line, sized_block,
                 kf.uses_dim[1] ? "16 x 16" : "256");
    else if (n_block == 0 && site_block_unread)
        /* the program launches one block size, which the kernel may assume (a shared table
         * per warp, a loop over a fixed count): another one is not a guess to run on */
        sk_doubt(k, HK_MSG_INF_BLOCK_UNREAD, site->block, file,
                 site_line, kf.uses_dim[1] ? "16 x 16" : "256");
    if (n_block == 0) {
        bool two = kf.uses_dim[1];
        n_block = two ? 2 : 1;
        block_val[0] = two ? 16 : 256;
        block_val[1] = two ? 16 : 1;
    }

    static const char *const bvars[3] = { "block_x", "block_y", "block_z" };
    char bvar_lit[3][24];
    const char *bvar[3];
    for (int d = 0; d < 3; d++) {
        snprintf(bvar_lit[d], sizeof bvar_lit[d], "%lld", block_val[d]);
        bvar[d] = pinned ? bvar_lit[d] : bvars[d];
    }

    /* what each grid dimension must cover, from the bounds checks */
    char *derived[3] = { 0 };
    int odd_line[3] = { 0 };
    for (size_t n = 0; n < kf.n_idx; n++)
        if (kf.idx[n].odd_stride && kf.idx[n].dim >= 0 && !odd_line[kf.idx[n].dim])
            odd_line[kf.idx[n].dim] = kf.idx[n].line;
    for (int d = 0; d < 3; d++) {
        if (!kf.uses_dim[d] || odd_line[d])
            continue;
        bool seen = false;
        for (size_t n = 0; n < kf.n_idx && !derived[d]; n++) {
            kf_index *x = &kf.idx[n];
            if (x->dim != d)
                continue;
            seen = true;
            char *b = kf_bound_spec(k, x);
            if (b && kf_only_sizes(k, b)) {
                derived[d] = x->kind == IX_THREAD ? hk_asprintf("ceil_div(%s, %s)", b, bvar[d]) : hk_strdup(b);
                cover->need[d] = x->kind == IX_THREAD ? hk_asprintf("ceil_div(%s, %lld)", b, block_val[d])
                                                      : hk_strdup(b);
                if (grid_mode == GRID_BOUNDS)
                    sk_note(k, HK_MSG_INF_GRID_BOUND_ON, "xyz"[d], x->name, x->bound_line);
            }
            hk_free(b);
        }
        int gline = 0;
        char *mb = !derived[d] ? kc_axis_bound(k, d, &gline) : NULL;
        if (mb) {
            kf.bounds_checked = true; /* a guard the textual scan did not see */
            derived[d] = hk_asprintf("ceil_div(%s, %s)", mb, bvar[d]);
            cover->need[d] = hk_asprintf("ceil_div(%s, %lld)", mb, block_val[d]);
            if (grid_mode == GRID_BOUNDS)
                sk_note(k, HK_MSG_INF_GRID_BOUND_GLOBAL, "xyz"[d], gline);
            hk_free(mb);
        }
        (void)seen;
        if (!cover->need[d] && !kf.grid_stride)
            cover->unknown[d] = true;
    }
    /* the flat index of a 2-D grid, blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) +
     * threadIdx.x < B: grid x times grid y must reach ceil_div(B, block_x), in whatever
     * shape the launch splits them; the bounds' own grid is one row of them (y = 1) */
    if (!cover->grid_stride && !cover->need[0] && !cover->need[1]) {
        int fline = 0;
        char *fb = kc_flat_bound(k, &fline);
        if (fb) {
            cover->need_xy = hk_asprintf("ceil_div(%s, %lld)", fb, block_val[0]);
            if (!derived[0] && !derived[1] && !odd_line[0] && !odd_line[1]) {
                derived[0] = hk_asprintf("ceil_div(%s, %s)", fb, bvar[0]);
                derived[1] = hk_strdup("1");
                kf.bounds_checked = true;
                if (grid_mode == GRID_BOUNDS)
                    sk_note(k, HK_MSG_INF_GRID_FLAT,
                            derived[0] ? derived[0] : "?", fline);
            }
            sk_note(k, HK_MSG_INF_GRID_FLAT_BOUND, fb, fline, fb,
                    block_val[0]);
            hk_free(fb);
        }
    }
    {
        const char *gbuf = NULL;
        uint32_t gline = cover->need_xy ? 0 : kc_grid_dim_write(k, f, &gbuf);
        if (gline)
            sk_doubt(k, HK_MSG_INF_GRID_GRIDDIM, gbuf, gline);
    }

    /* grid: the launch's (in spec terms), or the one the bounds imply */
    if (grid_mode == GRID_SITE && site && site->grid) {
        /* the launcher variable or constant that is the block (threads =
         * min(prop.maxThreadsPerBlock, 256), THREADS_PER_BLOCK) stands for it in the grid:
         * ceil_div(n, threads) follows a block the search changes */
        size_t base_map = k->n_map;
        if (n_block_read == 1 && site->block && sk_is_identifier(site->block) && !sk_mapped(k, site->block))
            sk_map(k, site->block, bvar[0]);
        /* the members of a dim3 block (threads.x, threads.y) */
        for (size_t d = 0; d < n_block_read && site->block && sk_is_identifier(site->block); d++) {
            char *member = hk_asprintf("%s.%c", site->block, "xyz"[d]);
            if (member && !sk_mapped(k, member))
                sk_map(k, member, bvar[d]);
            hk_free(member);
        }
        /* and the x of a dim3 block (dim3 threads(THREADS_PER_BLOCK)) */
        char *braw = n_block_read >= 1 && site->block && sk_is_identifier(site->block) ? sk_local_init(k, site->block)
                                                                                       : NULL;
        char *bparts[3] = { 0 };
        size_t nbp = braw && !strncmp(braw, "dim3(", 5) ? sk_split_dims(braw, bparts) : 0;
        bool one_d = nbp >= 1 && bparts[0] && n_block_read == 1; /* the x alone: y's own name is not block_x */
        for (size_t d = 1; one_d && d < nbp; d++)
            one_d = bparts[d] && strspn(bparts[d], " 1") == strlen(bparts[d]);
        if (one_d) {
            char bx[SK_MAX_TEXT + 1];
            if (sk_bare(bparts[0], strlen(bparts[0]), bx, sizeof bx) && sk_is_identifier(bx) && !sk_mapped(k, bx))
                sk_map(k, bx, bvar[0]);
        }
        for (int d = 0; d < 3; d++)
            hk_free(bparts[d]);
        hk_free(braw);
        char *raw = sk_local_init(k, site->grid);
        char *parts[3] = { 0 };
        size_t np = sk_split_dims(raw && !strncmp(raw, "dim3(", 5) ? raw : site->grid, parts);
        bool ok = np > 0;
        for (size_t d = 0; d < np; d++) {
            grid[d] = sk_translate(k, parts[d], 0);
            ok &= grid[d] != NULL;
        }
        while (k->n_map > base_map) {
            k->n_map--;
            hk_free(k->map_from[k->n_map]);
            hk_free(k->map_to[k->n_map]);
        }
        for (size_t d = 0; ok && d < np; d++)
            sk_collect(k, grid[d]); /* a launcher name in the grid is a size too */
        n_grid = ok ? np : 0;
        for (size_t d = 0; d < 3; d++)
            hk_free(parts[d]);
        hk_free(raw);
        if (!ok)
            for (size_t d = 0; d < 3; d++) {
                hk_free(grid[d]);
                grid[d] = NULL;
            }
        for (size_t d = 0; d < n_grid; d++) {
            char *cd = sk_ceil_div(grid[d], block_val[d], bvar[d]);
            if (cd) {
                hk_free(grid[d]);
                grid[d] = cd;
            }
        }
        if (n_grid)
            sk_note(k, HK_MSG_INF_GRID_SITE, file, site_line);
    }
    bool site_grid = n_grid > 0;
    if (site_grid)
        sk_map_grid(k, grid, n_grid);
    if (grid_mode == GRID_BOUNDS || (grid_mode == GRID_SITE && n_grid == 0)) {
        size_t nd = 0;
        for (int d = 0; d < 3; d++)
            if (derived[d] || kf.uses_dim[d])
                nd = (size_t)d + 1;
        bool ok = nd > 0;
        for (size_t d = 0; d < nd && ok; d++)
            ok = derived[d] || !kf.uses_dim[d];
        if (ok) {
            for (size_t d = 0; d < nd; d++)
                grid[d] = derived[d] ? hk_strdup(derived[d]) : hk_strdup("1");
            n_grid = nd;
            if (grid_mode == GRID_SITE)
                for (size_t d = 0; d < nd; d++)
                    if (derived[d] && strcmp(derived[d], "1") != 0) /* y of a flat index: 1 */
                        sk_note(k, HK_MSG_INF_GRID_BOUNDS_MATH, "xyz"[d]);
        }
    }
    int stride_line = 0;
    bool guessed_grid = false;
    char *stride_bound = NULL;
    bool stride_grid = false; /* the grid is a grid-stride loop's bound: one iteration each */
    const char *one_pass = NULL; /* a pointer counted as if each thread passed once (below) */
    if (!site_grid && n_grid > 1 && kf.grid_stride && grid[0] && !strcmp(grid[0], "1") &&
        (stride_bound = kc_stride_bound(k, &stride_line))) {
        /* a grid-stride loop along x beside bounds-checked y and z (planes of blockIdx.y,
         * .z): one thread per element of its bound, as for a 1D grid, not one block */
        hk_free(grid[0]);
        grid[0] = hk_asprintf("ceil_div(%s, %s)", stride_bound, bvar[0]);
        sk_note(k, HK_MSG_INF_GRID_X_STRIDE, stride_bound,
                stride_line);
        stride_grid = true;
        hk_free(stride_bound);
        stride_bound = NULL;
    }
    /* A 2-D kernel without bounds checks that writes rows of a matrix (kc_row_tiles): the
     * columns are its row stride, the rows one size the kernel never reads (the grid's to
     * choose); the counts then follow the grid, or the guess stays a doubt (below). */
    if (n_grid == 0 && !site_grid && kf.uses_dim[1] && !kf.uses_dim[2] && !kf.bounds_checked &&
        !kc_has_grid_stride(k) && pinned >= 0 && kc_row_tiles(k, f, &rows) &&
        (!pinned || (rows.bx && rows.cx == pinned)) &&
        (!n_block_read || (block_val[1] == rows.cy && (!rows.bx || block_val[0] == rows.cx)))) {
        uint32_t fs = f->body_span.start_byte, fe = f->body_span.end_byte <= len ? f->body_span.end_byte
                                                                                  : (uint32_t)len;
        int found = 0;
        for (size_t i = 0; i < f->n_params; i++) {
            const an_param *p = &f->params[i];
            int dt;
            size_t nl = strlen(p->name);
            bool unread = p->pointer_depth == 0 && nl && spec_dtype_parse(p->elem_type, &dt) == HK_OK &&
                          !hk_dtype_is_float(dt) && scal[i] && !strcmp(scal[i], p->name);
            for (size_t at = fs; unread && at < fe; at++)
                unread = !sk_word_at(text, fe, at, p->name, nl);
            for (size_t at = 0, sl = strlen(rows.stride); unread && at < sl; at++)
                unread = !sk_word_at(rows.stride, sl, at, p->name, nl);
            if (unread && found++ == 0)
                rows_size = hk_strdup(p->name);
        }
        if (found != 1) {
            hk_free(rows_size);
            rows_size = NULL;
        }
    }
    if (rows_size) {
        block_val[0] = rows.bx ? rows.cx : n_block ? block_val[0] : 16;
        block_val[1] = rows.cy;
        block_val[2] = 1;
        n_block = 2;
        grid[0] = rows.bx ? hk_asprintf("ceil_div(%s, %lld)", rows.stride, rows.cx) : hk_strdup("1");
        grid[1] = hk_asprintf("ceil_div(%s, %lld)", rows_size, rows.cy);
        n_grid = 2;
        sk_map_grid(k, grid, n_grid);
        sk_note(k, HK_MSG_INF_GRID_ROWS, grid[0] ? grid[0] : "?",
                grid[1] ? grid[1] : "?", block_val[0], block_val[1], f->name, rows.stride, rows.cy,
                rows.bx ? hk_tr(HK_MSG_INF_FRAG_TILES) : hk_tr(HK_MSG_INF_FRAG_ONE_BLOCK), rows_size);
    }
    for (int d = 0; d < 3; d++)
        hk_free(derived[d]);
    if (k->n_vars == 0)
        sk_add_var(k, "n");

    /* buffer counts: the host's allocation, else the index math, else a guess */
    char product[512] = "";
    for (size_t i = 0; i < k->n_vars && strlen(product) < 400; i++) {
        strcat(product, i ? " * " : "");
        strncat(product, k->vars[i], 60);
    }
    if (n_grid == 0 && kf.grid_stride && !kf.uses_dim[1] && !kf.uses_dim[2] &&
        (stride_bound = kc_stride_bound(k, &stride_line))) {
        /* a grid-stride loop covers its bound with any grid: one thread per element */
        n_grid = 1;
        grid[0] = hk_asprintf("ceil_div(%s, %s)", stride_bound, bvar[0]);
        sk_note(k, HK_MSG_INF_GRID_STRIDE, stride_bound,
                stride_line);
        stride_grid = true;
    }
    hk_free(stride_bound);
    if (n_grid == 0) {
        n_grid = 1;
        grid[0] = hk_asprintf("ceil_div(%s, %s)", k->n_vars == 1 ? k->vars[0] : product, bvar[0]);
        if (n_block > 1 && !pinned) {
            n_block = 1;
            block_val[0] = 256;
        }
        if (kf.uses_dim[1] || kf.uses_dim[2] || (kf.uses_dim[0] && !kf.grid_stride && !cover->need[0]))
            guessed_grid = true; /* a doubt, unless the counts follow the grid (below) */
    }
    for (int d = 0; d < 3 && !site_grid && !kf.grid_stride && !rows_size; d++)
        if (odd_line[d])
            sk_doubt(k, HK_MSG_INF_GRID_ODD_SCALE, odd_line[d], "xyz"[d], "xyz"[d]);
    for (size_t d = 0; d < n_block; d++)
        block[d] = hk_asprintf("%lld", block_val[d]);
    for (size_t d = 0; d < n_block; d++)
        k->block_known[d] = block_val[d];
    for (size_t d = n_block; d < 3; d++)
        k->block_known[d] = 1;
    sk_map_threads(k, grid, n_grid, block_val, n_block);
    const an_function *fn = f;
    uint32_t bs = fn->body_span.start_byte, be = fn->body_span.end_byte <= len ? fn->body_span.end_byte : (uint32_t)len;
    for (size_t i = 0; i < f->n_params && i < HK_MAX_ARGS; i++) {
        const an_param *p = &f->params[i];
        if (p->pointer_depth == 0)
            continue;
        int width = 1;
        const char *elem = p->elem_type;
        for (size_t t = 0; t < n_tp; t++)
            if (!strcmp(tparams[t], elem) && tactual[t])
                elem = tactual[t];
        char elem_buf[96];
        sk_resolve_pointee(k, elem, elem_buf, sizeof elem_buf);
        elem = elem_buf;
        long esize = sk_type_size(elem);
        const char *dt = sk_dtype(elem, NULL, 0, &width);
        int dtc = HK_DT_F32;
        spec_dtype_parse(dt, &dtc);
        long dsize = (long)hk_dtype_size(dtc);
        elem_bytes[i] = dsize;
        int line = 0;
        const char *arg = site && i < site->n_args ? site->args[i] : NULL;
        char *c = sk_count_from_host(k, arg, esize ? esize : dsize * width, elem, &line);
        size_t moved = sk_pointer_moved(text, bs, be, p->name);
        size_t made_at = sk_pointer_derived(text, bs, be, p->name);
        if (c) {
            count_host[i] = true;
            if (k->site_file)
                sk_note(k, HK_MSG_INF_COUNT_ALLOC_AT, p->name, k->site_file, line);
            else
                sk_note(k, HK_MSG_INF_COUNT_ALLOC_LINE, p->name, line);
        } else if (kc_recast_line(k->km, p->name)) {
            /* read through a pointer to wider elements (float4 over float): no subscript
             * of the model or the text counts its elements */
            derived_line[i] = (int)kc_recast_line(k->km, p->name);
        } else if (moved && kc_moved_once(k, p->name, stride_grid) && kc_accesses_resolved(k->km, f) &&
                   (c = kc_count(k, p->name)) != NULL) {
            sk_note(k, HK_MSG_INF_COUNT_MOVED, p->name, f->name, sk_line(k, moved));
        } else if (moved && site_grid && !stride_grid && kf.grid_stride && kc_moved_once(k, p->name, true) &&
                   kc_accesses_resolved(k->km, f) && (c = kc_count(k, p->name)) != NULL) {
            /* the launch's grid (mmcv's GET_BLOCKS, capped at 4096 blocks): the move adds up
             * when a thread loops again, so the count holds only at sizes where every
             * thread makes one pass; checked once the sizes are chosen */
            one_pass = p->name;
            sk_note(k, HK_MSG_INF_COUNT_MOVED_PASS, p->name, f->name, sk_line(k, moved));
        } else if (moved) {
            sk_note(k, HK_MSG_INF_MOVED_NO_COUNT, p->name, sk_line(k, moved));
        } else if (made_at) {
            /* its own subscripts miss what the pointer made from it reaches: only the
             * model, when it followed every such pointer, gives the count */
            if (kc_accesses_resolved(k->km, f) && (c = kc_count(k, p->name)) != NULL)
                sk_note(k, HK_MSG_INF_COUNT_DERIVED, p->name, f->name, sk_line(k, made_at));
            else
                derived_line[i] = sk_line(k, made_at);
        } else if ((c = kf_count_from_index(k, f, &kf, p->name)) != NULL) {
            sk_note(k, HK_MSG_INF_COUNT_SUBSCRIPTS, p->name, f->name);
        } else if ((c = kc_count(k, p->name)) != NULL) {
            sk_note(k, HK_MSG_INF_COUNT_TEMPS,
                    p->name, f->name);
        }
        if (c) {
            count_sure[i] = true;
            if (width > 1) {
                char *w = hk_asprintf("(%s) * %d", c, width);
                hk_free(c);
                c = w;
            }
        } else {
            c = width > 1 ? hk_asprintf("%s * %d", product, width) : hk_strdup(product);
        }
        (void)bs;
        (void)be;
        counts[i] = c;
    }
    sk_numel_sizes(k, f, site, scal, counts, count_sure, grid, n_grid, program, have_program);
    if (k->nomem)
        goto nomem;
    if (guessed_grid) {
        /* A 1D kernel without bounds checks runs on any grid: when the model bounds every
         * buffer by the threads launched (out[gid] with gid below them), the counts follow
         * the guess and nothing is left unsized. Otherwise the guess is a doubt. */
        bool follows = !kf.uses_dim[1] && !kf.uses_dim[2] && k->threads_known[0] && !kf.bounds_checked &&
                       !odd_line[0];
        for (size_t i = 0; i < f->n_params && i < HK_MAX_ARGS && follows; i++)
            follows = f->params[i].pointer_depth == 0 || count_sure[i];
        if (follows)
            sk_note(k, HK_MSG_INF_GRID_GUESSED_FOLLOW, k->n_vars == 1 ? k->vars[0] : product, f->name);
        else
            sk_doubt(k, HK_MSG_INF_GRID_GUESSED_1D,
                     f->name, k->n_vars == 1 ? k->vars[0] : product);
    }
    if (rows_size) {
        /* the rows are the grid's to choose only when every buffer is counted from it (an
         * allocation of the program's need not hold the rows guessed) */
        bool follows = true;
        for (size_t i = 0; i < f->n_params && i < HK_MAX_ARGS && follows; i++)
            follows = f->params[i].pointer_depth == 0 || (count_sure[i] && !count_host[i]);
        if (!follows)
            sk_doubt(k, HK_MSG_INF_GRID_GUESSED_2D, f->name, grid[0] ? grid[0] : "?", grid[1] ? grid[1] : "?");
    }

    bool ok = true;
    root = json_object();
    json_t *args = json_array(), *sizes = json_array(), *launch = json_object();
    json_t *s0 = json_object(), *s1 = json_object();
    if (!root || !args || !sizes || !launch || !s0 || !s1) {
        json_decref(args);
        json_decref(sizes);
        json_decref(launch);
        json_decref(s0);
        json_decref(s1);
        goto nomem;
    }
    /* A kernel with bounds checks gets a ragged first set (not a multiple of any block
     * size); one without keeps to powers of two, and a size a grid dimension divides into
     * blocks (ceil_div(n, block_x)) to multiples of that block (unit[i]): its threads are
     * then its elements. A grid of one block per item (b) asks nothing of b. The program's
     * own sizes, where the launcher sets them, are the second set. Distinct values per
     * variable so swapped dimensions show. */
    static const long long first[3][3] = { { 1000003 }, { 1000, 1003 }, { 67, 99, 131 } };
    static const long long second[3][3] = { { 16777216 }, { 2048, 4096 }, { 128, 256, 512 } };
    /* gridDim without a grid-stride loop (srad's last row of blocks) leaves the sizes whole */
    bool ragged = kf.bounds_checked || (kf.grid_stride && !rows_size);
    long long unit[SK_MAX_VARS];
    for (size_t i = 0; i < k->n_vars; i++) {
        unit[i] = 1;
        for (size_t d = 0; d < n_grid && !ragged; d++)
            if (block_val[d] > 1 && sk_grid_divides(grid[d]) && sk_names(grid[d], k->vars[i]))
                unit[i] = sk_lcm(unit[i], block_val[d]);
    }
    bool all_program = k->n_vars > 0;
    for (size_t i = 0; i < k->n_vars; i++)
        all_program &= have_program[i];
    /* The launcher's asserts: a size it bounds by a constant (assert(len <= MAX_LEN)) is
     * invented no larger: the program is written for every value up to it (a shared array
     * sized for the largest). Every assert that reads sizes alone is checked at both sets
     * below, the lower bounds too. */
    sk_assert_cmp asserts[SK_MAX_ASSERTS];
    size_t n_asserts = site && k->site_text ? sk_launcher_asserts(k, asserts, SK_MAX_ASSERTS) : 0;
    long long bounded[SK_MAX_VARS];
    int bounded_line[SK_MAX_VARS] = { 0 };
    for (size_t i = 0; i < k->n_vars; i++) {
        bounded[i] = -1;
        for (size_t c = 0; c < n_asserts; c++) {
            long long hi = sk_assert_upper(&asserts[c], k->vars[i]);
            if (hi > 0 && (bounded[i] < 0 || hi < bounded[i])) {
                bounded[i] = hi;
                bounded_line[i] = asserts[c].line;
            }
        }
    }
    /* a size the launcher asserts is a multiple of a constant (assert(w % 128 == 0): the
     * grid divides it without a remainder) stays one in both sets, ragged or not */
    bool multiple[SK_MAX_VARS] = { 0 };
    for (size_t i = 0; i < k->n_vars; i++)
        for (size_t c = 0; c < n_asserts; c++) {
            long long mult = sk_assert_multiple(&asserts[c], k->vars[i]);
            if (mult > 1 && sk_lcm(unit[i], mult) <= (1LL << 20)) {
                unit[i] = sk_lcm(unit[i], mult);
                multiple[i] = true;
            }
        }
    for (size_t i = 0; i < k->n_vars; i++) {
        long long a = 13 + 2 * (long long)i, b = 32;
        if (k->n_vars <= 3) {
            a = first[k->n_vars - 1][i];
            b = second[k->n_vars - 1][i];
        }
        if (k->n_vars > 1 && (zero_offset[i] || sk_subtracted(k->vars[i], grid, n_grid) ||
                              sk_subtracted(k->vars[i], cover->need, 3))) {
            /* an offset taken off a bound (Rodinia's Fan2: gid < Size - 1 - t): small,
             * so the bound stays positive at every set */
            a = 1;
            b = 3;
        } else if (k->n_vars > 1 && sk_dim_like(k->vars[i])) {
            a = 64;
            b = 128;
        }
        if (!ragged) {
            a = b;
            b = 2 * b;
        }
        if (!ragged || multiple[i]) {
            if (a % unit[i])
                a = (a / unit[i] + 1) * unit[i];
            if (b % unit[i])
                b = (b / unit[i] + 1) * unit[i];
        }
        if (all_program && have_program[i]) {
            if (ragged)
                b = program[i];
            else {
                a = program[i];
                b = 2 * program[i];
            }
        } else if (bounded[i] > 0 && (a > bounded[i] || b > bounded[i])) {
            a = a < bounded[i] ? a : bounded[i];
            b = b < bounded[i] ? b : bounded[i];
            sk_note(k, HK_MSG_INF_SIZE_ASSERT_MAX, k->vars[i], bounded[i],
                    file, bounded_line[i]);
        }
        ok &= json_object_set_new(s0, k->vars[i], json_integer(a)) == 0;
        ok &= json_object_set_new(s1, k->vars[i], json_integer(b)) == 0;
    }
    bool stride_only[SK_MAX_VARS] = { 0 };
    if (rows_size && !rows.bx && !rows.store && !all_program && ok) /* an output stored so stays a doubt */
        sk_dense_rows(k, &rows, rows_size, grid, n_grid, block_val, s0, s1, stride_only);
    /* the dynamic shared memory the launch gives (spec text), checked once the sizes grow */
    int dyn_line = sk_dynamic_shared(k, f);
    long tsize = n_tp ? sk_type_size(tactual[0]) : 0;
    char *sh = dyn_line && site && site->shmem ? sk_shmem(k, site, tsize, n_tp ? tparams[0] : "") : NULL;
    char *pass_bound = NULL;
    int pass_line = 0;
    if (one_pass)
        pass_bound = kc_stride_bound(k, &pass_line);
    if (ok) {
        long long cap[SK_MAX_VARS];
        bool can[SK_MAX_VARS];
        bool single[HK_MAX_ARGS] = { 0 }, written[HK_MAX_ARGS] = { 0 }, in_array[SK_MAX_VARS] = { 0 };
        bool loop_bound[SK_MAX_VARS] = { 0 }, serial[SK_MAX_VARS] = { 0 };
        int gather[HK_MAX_ARGS] = { 0 };
        int gb_line = 0;
        gather_bound = kc_stride_bound(k, &gb_line);
        sk_array_loop_sizes(k, f, scal, in_array);
        sk_loop_bound_sizes(k, f, scal, loop_bound);
        sk_serial_sizes(k, f, scal, serial);
        for (size_t i = 0; i < k->n_vars; i++) {
            /* kept as invented where the loop above made it small on purpose */
            bool kept = k->n_vars > 1 && (zero_offset[i] || sk_subtracted(k->vars[i], grid, n_grid) ||
                                          sk_subtracted(k->vars[i], cover->need, 3) || sk_dim_like(k->vars[i]));
            cap[i] = kept || in_array[i] || stride_only[i] ? -1 : bounded[i] > 0 ? bounded[i] : 0;
            /* the check set may go lower than invented, but not an offset or a row stride
             * set to its least (a head dimension or an array's loop bound halved is safe) */
            can[i] = !stride_only[i] && !(k->n_vars > 1 && (zero_offset[i] || sk_subtracted(k->vars[i], grid, n_grid) ||
                                                            sk_subtracted(k->vars[i], cover->need, 3)));
        }
        for (size_t i = 0; i < f->n_params && i < HK_MAX_ARGS; i++) {
            const an_param *p = &f->params[i];
            sk_role role = { .use = -1 };
            if (p->pointer_depth > 0 && !p->is_const)
                sk_pointer_role(k, bs, be, p->name, &role);
            int use = role.use;
            single[i] = use == 3;
            written[i] = use >= 2 || (use >= 0 && role.written);
            bool strided = false;
            gather[i] = written[i] || single[i] ? 0 : kc_gather_reads(k->km, p->name, &strided);
            if (strided && !gather_bound) /* the loop visits elements no sized bound says */
                gather[i] = 0;
        }
        sk_timing t = { .f = f, .counts = counts, .count_sure = count_sure, .elem_bytes = elem_bytes,
                        .single = single, .written = written, .loop_bound = loop_bound, .serial = serial,
                        .gather = gather, .gather_elems = gather_bound, .grid = grid, .n_grid = n_grid,
                        .need = cover->need, .block_val = block_val,
                        .shmem = sh && sk_sizes_or_block(k, sh, block_val) ? sh : NULL,
                        .asserts = asserts, .n_asserts = n_asserts,
                        .one_pass_bound = pass_bound, .rows = rows_size ? &rows : NULL };
        if (!all_program)
            sk_grow_timing(k, &t, s1, cap, unit, ragged);
        t.gather = NULL; /* the check set's budget is what it allocates */
        if (!all_program || ragged) /* sizes[0] invented */
            sk_shrink_check(k, &t, s0, can, unit, ragged);
    }
    if (!all_program && k->km) {
        /* a shared array has the extent the kernel declares; a subscript of it that a
         * scalar parameter moves (cuda-samples' scan: pos + size) stays inside only for
         * the values the program passes, which invented sizes need not be */
        size_t na = 0;
        const km_access *ac = km_accesses(k->km, &na);
        long long lo = 0, hi = 0, extent = 0;
        for (size_t i = 0; i < na; i++)
            if (ac[i].space == KM_SPACE_SHARED && km_form_mentions_kind(k->km, ac[i].index, KM_ATOM_PARAM, -1) &&
                !kc_params_bounded(k, f, ac[i].index, scal, bounded, 0)) {
                if (kc_shared_inside(k->km, &ac[i], &lo, &hi, &extent)) {
                    sk_note(k, HK_MSG_INF_SHARED_IN_RANGE, ac[i].line, lo, hi, ac[i].buffer, extent);
                    continue;
                }
                sk_doubt(k, HK_MSG_INF_SHARED_SCALAR,
                         ac[i].line);
                break;
            }
    }
    for (size_t c = 0; c < n_asserts; c++) {
        for (int set = 0; set < 2; set++)
            if (sk_assert_holds(&asserts[c], set ? s1 : s0) == 0) {
                sk_doubt(k, HK_MSG_INF_SIZES_BREAK_ASSERT, set, file, asserts[c].line, asserts[c].lhs, asserts[c].op, asserts[c].rhs);
                break;
            }
        hk_free(asserts[c].lhs);
        hk_free(asserts[c].rhs);
    }
    if (all_program)
        sk_note(k, HK_MSG_INF_SIZES_SITE, file, site_line);
    else
        sk_note(k, HK_MSG_INF_SIZES_INVENTED, ragged ? hk_tr(HK_MSG_INF_FRAG_RAGGED) : hk_tr(HK_MSG_INF_FRAG_POW2));
    if (!ragged) {
        struct hk_buf mult;
        hk_buf_init(&mult, SK_MAX_TEXT);
        for (size_t i = 0; i < k->n_vars; i++)
            if (unit[i] > 1)
                hk_buf_printf(&mult, hk_tr(HK_MSG_INF_FRAG_MULTIPLE_OF), mult.len ? hk_tr(HK_MSG_INF_FRAG_SEP) : "", k->vars[i], unit[i]);
        if (mult.len)
            sk_note(k, HK_MSG_INF_NO_BOUNDS_MULTIPLE, f->name, mult.data);
        else
            sk_note(k, HK_MSG_INF_NO_BOUNDS_NONE, f->name);
        hk_buf_free(&mult);
    }
    for (int set = 0; rows_size && set < 2; set++) {
        /* rows S apart hold the columns written only when those are at most S: else two
         * threads write one element */
        char *width = NULL;
        int at = sk_rows_at(&rows, block_val, set ? s1 : s0, &width);
        if (at == 1) {
            sk_doubt(k, HK_MSG_INF_ROWS_OVERLAP,
                     f->name, rows.stride, width ? width : "?", set);
            set = 2;
        } else if (at == 2) {
            /* an output's elements between the rows would stay unwritten */
            sk_doubt(k, HK_MSG_INF_ROWS_GAPS, f->name, rows.stride, width ? width : "?", set);
            set = 2;
        }
        hk_free(width);
    }
    if (one_pass) {
        /* one pass each: the threads the launch's grid runs along x reach the grid-stride
         * loop's bound at every size set */
        for (int set = 0; set < 2; set++)
            if (!sk_one_pass_at(pass_bound, grid[0], block_val, set ? s1 : s0)) {
                sk_doubt(k, HK_MSG_INF_PASS_FEWER, one_pass, pass_line, set, pass_bound ? pass_bound : "?");
                break;
            }
    }
    hk_free(pass_bound);
    ok &= json_array_append_new(sizes, s0) == 0;
    ok &= json_array_append_new(sizes, s1) == 0;

    size_t gather = sk_gather(text, bs, be, f);
    uint32_t gather_line = gather ? (uint32_t)sk_line(k, gather) : kc_gather_line(k->km, f);
    long long index_limit[HK_MAX_ARGS] = { 0 };
    const json_t *const size_sets[2] = { s0, s1 };
    int kg_line = 0;
    bool index_compared[HK_MAX_ARGS] = { 0 }, index_checked[HK_MAX_ARGS] = { 0 };
    char *rows_count[HK_MAX_ARGS], *limit_text[HK_MAX_ARGS] = { 0 };
    /* the largest value of each index input: "R - 1" at each size set, or a number */
    char index_top[HK_MAX_ARGS][96] = { { 0 } };
    if (gather_line && kg_gathers(k, f, bs, be, counts, size_sets, 2, gather ? (int)gather_line : 0,
                                  index_limit, &kg_line, index_compared, index_checked, count_host, rows_count,
                                  limit_text)) {
        for (size_t i = 0; i < f->n_params && i < HK_MAX_ARGS; i++) {
            if (limit_text[i] && strlen(limit_text[i]) + 5 < sizeof index_top[i])
                snprintf(index_top[i], sizeof index_top[i], "%s - 1", limit_text[i]);
            else if (index_limit[i])
                snprintf(index_top[i], sizeof index_top[i], "%lld", index_limit[i] - 1);
            hk_free(limit_text[i]);
        }
        for (size_t i = 0; i < f->n_params && i < HK_MAX_ARGS; i++)
            if (rows_count[i]) {
                hk_free(counts[i]);
                counts[i] = rows_count[i];
                count_sure[i] = true;
                sk_note(k, index_checked[i] ? HK_MSG_INF_COUNT_TABLE_CHECKED : HK_MSG_INF_COUNT_TABLE,
                        f->params[i].name, counts[i], kg_line);
            }
        for (size_t i = 0; i < f->n_params && i < HK_MAX_ARGS; i++)
            if (index_limit[i] && index_checked[i])
                sk_note(k, HK_MSG_INF_VALUES_CHECKED, f->params[i].name, index_top[i], kg_line);
            else if (index_limit[i] && index_limit[i] == KG_TABLE_ROWS && !index_compared[i])
                sk_note(k, HK_MSG_INF_VALUES_ROWS,
                        f->params[i].name, index_top[i], KG_TABLE_ROWS, kg_line);
            else if (index_limit[i] && index_compared[i])
                sk_note(k, HK_MSG_INF_VALUES_CLASS, f->params[i].name, index_top[i], kg_line);
            else if (index_limit[i])
                sk_note(k, HK_MSG_INF_VALUES_DIGIT, f->params[i].name, index_top[i], kg_line);
    } else if (gather_line) {
        for (size_t i = 0; i < HK_MAX_ARGS; i++)
            index_limit[i] = 0;
        uint32_t guarded = kc_gathers_guarded(k, f, counts, count_sure);
        if (guarded)
            sk_note(k, HK_MSG_INF_GATHER_GUARDED, guarded);
        else
            sk_doubt(k, HK_MSG_INF_GATHER_INVALID, gather_line);
    }
    /* __constant__ data the program sets with cudaMemcpyToSymbol: inputs the harness fills */
    json_t *constants = sk_constants(k, f);
    if (!constants)
        k->nomem = true;

    bool any_output = false;
    char bytes[8 * SK_MAX_TEXT] = ""; /* every count may take SK_MAX_TEXT (srad's J_cuda, a max() of eight reads) */
    char clipped[512] = ""; /* buffers left out of bytes (kc_window_reads) */
    char gathered[512] = ""; /* buffers counted by what the grid picks (kc_gather_reads) */
    /* the threads the launch starts, as text in the sizes (empty when the grid names the block) */
    char threads_text[4 * SK_MAX_TEXT] = "";
    {
        bool plain = n_grid > 0;
        size_t tl = 0;
        for (size_t d = 0; d < n_grid && plain; d++) {
            plain = grid[d] != NULL && tl + 32 < sizeof threads_text;
            if (plain)
                threads_text[tl++] = '(';
            /* the grid's text with the block's dimensions put in (bytes sees the sizes only) */
            for (size_t j = 0, n = plain ? strlen(grid[d]) : 0; plain && j < n;) {
                int dim = -1;
                for (int b = 0; b < 3 && dim < 0; b++)
                    if (sk_word_at(grid[d], n, j, (const char *[]){ "block_x", "block_y", "block_z" }[b], 7))
                        dim = b;
                if (tl + 32 >= sizeof threads_text) {
                    plain = false;
                } else if (dim >= 0) {
                    tl += (size_t)snprintf(threads_text + tl, sizeof threads_text - tl, "%lld", block_val[dim]);
                    j += 7;
                } else {
                    threads_text[tl++] = grid[d][j++];
                    threads_text[tl] = 0;
                }
            }
            if (plain && tl + 8 < sizeof threads_text)
                tl += (size_t)snprintf(threads_text + tl, sizeof threads_text - tl, ") * ");
            else
                plain = false;
        }
        if (plain)
            snprintf(threads_text + tl, sizeof threads_text - tl, "%lld", block_val[0] * block_val[1] * block_val[2]);
        else
            threads_text[0] = 0;
    }
    bool bytes_ok = true;
    for (size_t i = 0; i < f->n_params; i++) {
        const an_param *p = &f->params[i];
        json_t *a = json_object();
        if (!a) {
            ok = false;
            break;
        }
        ok &= json_object_set_new(a, "name", json_string(p->name[0] ? p->name : "arg")) == 0;
        int width = 1;
        const char *elem = p->elem_type;
        for (size_t t = 0; t < n_tp; t++)
            if (!strcmp(tparams[t], elem) && tactual[t])
                elem = tactual[t];
        char elem_buf[96];
        sk_resolve_type(k, elem, elem_buf, sizeof elem_buf);
        if (p->pointer_depth > 0 && !sk_dtype_known(elem_buf)) {
            char plain[96];
            snprintf(plain, sizeof plain, "%s", elem_buf);
            sk_resolve_pointee(k, elem, elem_buf, sizeof elem_buf);
            if (sk_dtype_known(elem_buf))
                sk_note(k, HK_MSG_INF_STRUCT_AS, p->name, plain, elem_buf);
        }
        elem = elem_buf;
        const char *dt = sk_dtype(elem, NULL, 0, &width);
        if (!sk_dtype_known(elem))
            sk_doubt(k, HK_MSG_INF_TYPE_UNKNOWN,
                     p->name[0] ? p->name : "?", elem);
        if (p->pointer_depth > 0) {
            sk_role role = { .use = -1 };
            if (!p->is_const)
                sk_pointer_role(k, bs, be, p->name, &role);
            int use = role.use;
            bool written = !p->is_const && (use >= 2 || role.written);
            /* a use the walk cannot follow: read and written, and nothing says so for sure */
            if (role.lost_at && role.call[0])
                sk_doubt(k, HK_MSG_INF_ROLE_CALL, p->name, sk_line(k, role.lost_at), role.call);
            else if (role.lost_at)
                sk_doubt(k, HK_MSG_INF_ROLE_LOST, p->name, sk_line(k, role.lost_at));
            bool data_local = false;
            int data_line = use == 0 && written ? kc_data_guarded_writes(k->km, p->name, &data_local) : 0;
            int window_line = use == 0 && written && !data_line ? kc_window_writes(k->km, p->name) : 0;
            const char *kind = use < 0 || !written ? "input" : use == 0 && !data_line && !window_line ? "output" : "inout";
            /* an output whose writes cannot reach its last elements under the spec's launch
             * (a stencil that skips the boundary): those keep their contents, an inout */
            if (!strcmp(kind, "output") && counts[i] && k->km && kc_accesses_resolved(k->km, f) &&
                !kc_recast_line(k->km, p->name) && !sk_pointer_moved(text, bs, be, p->name) &&
                !sk_pointer_derived(text, bs, be, p->name)) {
                /* the model counts the elements as accessed: wider ones (float2) span width each */
                char *r = kc_write_reach(k, p->name);
                char *reach = r && width > 1 ? hk_asprintf("(%s) * %d", r, width) : r;
                if (reach != r)
                    hk_free(r);
                long long w0 = 0, w1 = 0, n0 = 0, n1 = 0;
                if (reach && sk_eval_at(reach, s0, &w0) && sk_eval_at(counts[i], s0, &n0) &&
                    sk_eval_at(reach, s1, &w1) && sk_eval_at(counts[i], s1, &n1) && (w0 < n0 || w1 < n1)) {
                    kind = "inout";
                    sk_note(k, HK_MSG_INF_INOUT_PARTIAL, p->name, reach, counts[i],
                            w0, n0);
                }
                hk_free(reach);
            }
            if (window_line)
                sk_note(k, HK_MSG_INF_INOUT_WINDOWS, p->name, window_line);
            if (use >= 0 && !written)
                sk_note(k, HK_MSG_INF_INPUT, p->name);
            if (data_line)
                sk_note(k, data_local ? HK_MSG_INF_INOUT_LOCAL : HK_MSG_INF_INOUT_DATA, p->name, data_line);
            any_output |= strcmp(kind, "input") != 0;
            ok &= json_object_set_new(a, "kind", json_string(kind)) == 0;
            ok &= json_object_set_new(a, "dtype", json_string(dt)) == 0;
            const char *cnt = use == 3 ? "1" : counts[i];
            /* what a guess costs at each set: the sizes keep it within the check set's
             * budget and the per-buffer cap (sk_shrink_check, sk_timing_fits) */
            char cost[96] = "";
            long long c0 = 0, c1 = 0;
            if (use != 3 && !count_sure[i] && cnt && sk_eval_at(cnt, s0, &c0) && sk_eval_at(cnt, s1, &c1))
                snprintf(cost, sizeof cost, hk_tr(HK_MSG_INFX_FRAG_COST),
                         (double)c0 * (double)elem_bytes[i] / 1e6, (double)c1 * (double)elem_bytes[i] / 1e6);
            if (use != 3 && !count_sure[i] && derived_line[i])
                /* an input too: a guess short of what the other pointer reads would read
                 * past the buffer */
                sk_doubt(k, HK_MSG_INF_COUNT_VIA_POINTER, p->name, derived_line[i],
                         cnt ? cnt : "?", cost);
            else if (use != 3 && !count_sure[i] && strcmp(kind, "input") != 0)
                sk_doubt(k, HK_MSG_INF_COUNT_UNKNOWN,
                         p->name, cnt ? cnt : "?", cost);
            else if (use != 3 && !count_sure[i])
                sk_note(k, HK_MSG_INF_COUNT_GUESSED, p->name, cnt ? cnt : "?", cost);
            ok &= json_object_set_new(a, "count", json_string(cnt ? cnt : "1")) == 0;
            if (use >= 2)
                ok &= json_object_set_new(a, "dist", json_string("zeros")) == 0;
            else if (i < HK_MAX_ARGS && index_limit[i] && index_top[i][0]) {
                char d[128];
                snprintf(d, sizeof d, "int(0, %s)", index_top[i]);
                ok &= json_object_set_new(a, "dist", json_string(d)) == 0;
            }
            int dtc = HK_DT_F32;
            spec_dtype_parse(dt, &dtc);
            size_t bl = strlen(bytes);
            int clip_line = use == 3 ? 0 : kc_window_reads(k->km, p->name);
            bool strided = false;
            int gather_reads = use == 3 || strcmp(kind, "input") != 0 ? 0 : kc_gather_reads(k->km, p->name, &strided);
            const char *picked_by = !strided ? threads_text : gather_bound ? gather_bound : "";
            if (!count_sure[i] && use != 3)
                bytes_ok = false;
            else if (clip_line) {
                /* left out: the count spans it, but the kernel may touch a small part */
                size_t cl = strlen(clipped);
                snprintf(clipped + cl, sizeof clipped - cl, hk_tr(HK_MSG_INF_FRAG_AT_LINE), cl ? hk_tr(HK_MSG_INF_FRAG_SEP) : "", p->name, clip_line);
            } else if (gather_reads > 0 && picked_by[0]) {
                /* read only by a gather: what the grid's threads pick of it, at most its count */
                if ((size_t)snprintf(bytes + bl, sizeof bytes - bl, "%s%d * min(%s, %d * %s)", bl ? " + " : "",
                                     (int)hk_dtype_size(dtc), cnt ? cnt : "1", gather_reads, picked_by) >=
                    sizeof bytes - bl)
                    bytes_ok = false;
                size_t gl = strlen(gathered);
                snprintf(gathered + gl, sizeof gathered - gl, hk_tr(HK_MSG_INF_FRAG_PER_THREAD), gl ? hk_tr(HK_MSG_INF_FRAG_SEP) : "", p->name,
                         gather_reads);
            } else if ((size_t)snprintf(bytes + bl, sizeof bytes - bl, "%s%d * (%s)", bl ? " + " : "",
                                      (int)hk_dtype_size(dtc) * (!strcmp(kind, "inout") ? 2 : 1),
                                      cnt ? cnt : "1") >= sizeof bytes - bl)
                bytes_ok = false; /* cut short, it would be no expression (long counts: srad's) */
        } else {
            ok &= json_object_set_new(a, "kind", json_string("scalar")) == 0;
            int dtc = HK_DT_F32;
            spec_dtype_parse(dt, &dtc);
            ok &= json_object_set_new(a, "dtype", json_string(dt)) == 0;
            if (scal[i] && !hk_dtype_is_float(dtc))
                ok &= json_object_set_new(a, "value", json_string(scal[i])) == 0;
            else if (!hk_dtype_is_float(dtc))
                ok &= json_object_set_new(a, "value", json_integer(1)) == 0;
            else
                ok &= json_object_set_new(a, "value", json_real(scal[i] ? atof(scal[i]) : sk_float_default(p->name))) == 0;
            if (!scal[i])
                sk_note(k, HK_MSG_INF_VALUE_INVENTED, p->name[0] ? p->name : "?");
        }
        ok &= json_array_append_new(args, a) == 0;
    }
    if (!any_output)
        sk_doubt(k, HK_MSG_INF_NO_WRITES, f->name);

    ok &= json_object_set_new(root, "name", json_string(f->name)) == 0;
    ok &= json_object_set_new(root, "description",
                        json_string(hk_tr_in(HK_LANG_EN, HK_MSG_SPECX_INFERRED_DESCRIPTION))) == 0;
    ok &= json_object_set_new(root, "kernel", json_string(f->name)) == 0;
    ok &= json_object_set_new(root, "source", json_string(source)) == 0;
    if (n_ta) {
        json_t *ta = json_array();
        for (size_t i = 0; ta && i < n_ta; i++)
            ok &= json_array_append_new(ta, json_string(targs[i] ? targs[i] : "128")) == 0;
        ok &= json_object_set_new(root, "template_args", ta) == 0;
    }
    ok &= json_object_set_new(root, "sizes", sizes) == 0;
    ok &= json_object_set_new(root, "args", args) == 0;
    if (json_array_size(constants))
        ok &= json_object_set_new(root, "constants", json_incref(constants)) == 0;
    json_decref(constants);
    constants = NULL;
    ok &= json_object_set_new(launch, "grid", sk_dims_json(grid, n_grid)) == 0;
    ok &= json_object_set_new(launch, "block", sk_dims_json(block, n_block)) == 0;
    if (dyn_line) {
        /* extern __shared__ (or a SharedMemory<T>() helper) has the bytes the launch
         * gives: without them every shared access is out of bounds */
        expr *x = NULL;
        expr_value v;
        bool constant = sh && expr_parse(sh, &x, NULL, 0) == HK_OK && expr_eval(x, NULL, 0, &v, NULL, 0) == HK_OK &&
                        !v.is_float && v.i > 0;
        expr_free(x);
        if (constant || (sh && sk_sizes_or_block(k, sh, block_val))) {
            ok &= json_object_set_new(launch, "shmem", constant ? json_integer(v.i) : json_string(sh)) == 0;
            sk_note(k, HK_MSG_INF_DYN_SHARED_SITE, file, site_line);
        } else {
            sk_doubt(k, HK_MSG_INF_DYN_SHARED_UNKNOWN,
                     f->name, dyn_line, site && site->shmem ? hk_tr(HK_MSG_INF_FRAG_SHMEM_UNREAD) : hk_tr(HK_MSG_INF_FRAG_SHMEM_NONE));
        }
    }
    hk_free(sh);
    ok &= json_object_set_new(root, "launch", launch) == 0;
    if (bytes_ok && bytes[0]) {
        ok &= json_object_set_new(root, "bytes", json_string(bytes)) == 0;
        if (clipped[0])
            sk_note(k, HK_MSG_INF_BYTES_FLOOR,
                    clipped);
        else
            sk_note(k, HK_MSG_INF_BYTES_ONCE);
        if (gathered[0])
            sk_note(k, HK_MSG_INF_BYTES_GATHER, gathered);
    } else if (bytes_ok && clipped[0]) {
        sk_note(k, HK_MSG_INF_BYTES_NONE, clipped);
    }
    char *flops = kc_flops(k, f, counts, count_sure);
    if (flops)
        ok &= json_object_set_new(root, "flops", json_string(flops)) == 0;
    hk_free(flops);
    if (!ragged)
        ok &= json_object_set_new(root, "exact_sizes", json_true()) == 0;
    json_t *seeds = json_array();
    for (int i = 1; seeds && i <= SPEC_MIN_SEEDS; i++)
        ok &= json_array_append_new(seeds, json_integer(i)) == 0;
    ok &= json_object_set_new(root, "seeds", seeds) == 0;
    json_t *dists = json_array();
    ok &= json_array_append_new(dists, json_string("uniform(-1,1)")) == 0;
    ok &= json_array_append_new(dists, json_string("normal(0,1)")) == 0;
    ok &= json_array_append_new(dists, json_string("uniform(0,100)")) == 0;
    ok &= json_object_set_new(root, "distributions", dists) == 0;
    /* A failed setter frees the value it was given (NULL included): ok tracks them all. */
    if (!ok || k->nomem)
        goto nomem;
    *out = root;
    root = NULL;
    goto out;
nomem:
    rc = HK_ENOMEM;
out:
    hk_free(gather_bound);
    json_decref(root);
    kf_free(&kf);
    hk_free(rows.stride);
    hk_free(rows_size);
    for (size_t i = 0; i < 3; i++) {
        hk_free(block[i]);
        hk_free(grid[i]);
    }
    for (size_t i = 0; i < HK_MAX_ARGS; i++) {
        hk_free(scal[i]);
        hk_free(counts[i]);
    }
    for (size_t i = 0; i < HK_ARRAY_LEN(tparams); i++) {
        hk_free(tparams[i]);
        hk_free(tactual[i]);
        hk_free(targs[i]);
    }
    return rc;
}
