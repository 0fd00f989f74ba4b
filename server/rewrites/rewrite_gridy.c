/* grid_y_lanes (issue 13): a kernel whose grid's y index picks a channel (or any index its
 * heavy accesses are contiguous in) while adjacent threads along x take elements whose data
 * lie far apart: mmcv's point-cloud pools launch (voxels / block, channels, boxes) and read
 * `features[point * C + blockIdx.y]` through a per-voxel point list, so the 32 threads of a
 * warp load 32 lines where, with the channel on adjacent threads, the list would be one
 * broadcast and the features one 128-byte line. The rewrite gives every thread the
 * coordinates of another original thread: f = ((blockIdx.y * gridDim.x + blockIdx.x) *
 * blockDim.x + threadIdx.x) is read with y innermost, y' = f % gridDim.y and x' = f /
 * gridDim.y (x' = blockIdx'.x * blockDim.x + threadIdx'.x), and the body runs unchanged
 * under local `blockIdx` and `threadIdx` that shadow the builtins with those coordinates.
 * (x, y) -> f -> (x', y') is a bijection of each z plane's threads, so every original
 * thread's work is done exactly once, by the same statements on the same coordinates
 * (loop macros included: they read the shadowing locals): the outputs are bit-identical, on
 * any grid and block. Only which hardware thread, and so which warp, runs it changes, which
 * is why threads must not communicate (shared memory, barriers, warp operations, atomics,
 * fences and grid groups: refused) and functions the kernel calls must not read the builtins themselves (nor may the
 * kernel read them through HIP's hipThreadIdx_x and the like, which are calls). The same text
 * serves HIP, whose blockIdx and threadIdx are objects a local shadows as well.
 * Whether it pays is read off the kernel model: each global access weighs 16 per loop
 * around it other than a grid-stride loop; one contiguous in blockIdx.y (coefficient 1)
 * and not in threadIdx.x counts for, one contiguous in threadIdx.x and not in blockIdx.y
 * against; it applies when the sum is positive. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define GY_LOOP_WEIGHT 16

/* A unit coefficient of atom a in f: a term `+-1 * a` and no other term naming a. */
static bool unit_in(const km_form f, uint32_t a)
{
    bool unit = false;
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++)
            if (f.t[i].atoms[j] == a) {
                if (f.t[i].n != 1 || (f.t[i].coef != 1 && f.t[i].coef != -1) || unit)
                    return false;
                unit = true;
            }
    return unit;
}

static bool prefix_is(const char *c, size_t l, const char *p)
{
    size_t n = strlen(p);
    return l >= n && !memcmp(c, p, n);
}

/* What ties threads together, or reads the builtins where the shadowing locals cannot
 * reach (a called function's own body): false with why. */
static bool independent_threads(const char *text, size_t len, const an_model *m, const an_function *f,
                                const rw_toks *ts, size_t *n_by, char *why, size_t nwhy)
{
    *n_by = 0;
    for (size_t q = 0; q < ts->n; q++) {
        if (ts->t[q].kind != T_IDENT)
            continue;
        const char *c = text + ts->t[q].start;
        size_t l = ts->t[q].end - ts->t[q].start;
        if (prefix_is(c, l, "__syncthreads") || (l == 10 && !memcmp(c, "__syncwarp", 10)))
            return rwl_refuse(why, nwhy, ts, text, q, "barrier", EN(RW_GY_SHARE),
                              (int)l, c);
        if (prefix_is(c, l, "atomic"))
            return rwl_refuse(why, nwhy, ts, text, q, "atomic", EN(RW_GY_COMBINE), (int)l, c);
        if (l == 10 && !memcmp(c, "__shared__", 10))
            return rwl_refuse(why, nwhy, ts, text, q, "__shared__", "%s", EN(RW_DG_SHARED));
        if (prefix_is(c, l, "__shfl") || prefix_is(c, l, "__ballot") || prefix_is(c, l, "__any_sync") ||
            prefix_is(c, l, "__all_sync") || prefix_is(c, l, "__reduce_") || prefix_is(c, l, "__match_") ||
            prefix_is(c, l, "__activemask") || (l == 3 && !memcmp(c, "asm", 3)) ||
            prefix_is(c, l, "cooperative_groups") || prefix_is(c, l, "this_thread_block") ||
            prefix_is(c, l, "tiled_partition") || prefix_is(c, l, "coalesced_threads"))
            return rwl_refuse(why, nwhy, ts, text, q, EN(RW_C_WARP_OPERATION), EN(RW_GY_LANES), (int)l, c);
        if (prefix_is(c, l, "__threadfence") || prefix_is(c, l, "this_grid") || prefix_is(c, l, "grid_group") ||
            prefix_is(c, l, "this_multi_grid") || prefix_is(c, l, "thread_block"))
            return rwl_refuse(why, nwhy, ts, text, q, EN(RW_C_FENCE), EN(RW_GY_FENCE), (int)l, c);
        /* HIP's hipThreadIdx_x and the like are calls (__ockl_get_local_id), not the
         * blockIdx/threadIdx objects a local shadows */
        if (prefix_is(c, l, "hipThreadIdx_") || prefix_is(c, l, "hipBlockIdx_") || prefix_is(c, l, "__ockl_get_") ||
            prefix_is(c, l, "__builtin_amdgcn_workitem_id") || prefix_is(c, l, "__builtin_amdgcn_workgroup_id") ||
            prefix_is(c, l, "__nvvm_read_ptx_sreg"))
            return rwl_refuse(why, nwhy, ts, text, q, "thread index", EN(RW_GY_CALL_COORDS), (int)l, c);
        if (l == 8 && !memcmp(c, "blockIdx", 8) && q + 2 < ts->n && rwl_tok_is(ts, q + 1, ".") &&
            rwl_tok_is_ident(ts, q + 2, "y"))
            (*n_by)++;
        const an_function *callee = rwl_callee(m, f, ts, q);
        if (callee && callee->body_span.end_byte > callee->body_span.start_byte && callee->body_span.end_byte <= len) {
            const char *b = text + callee->body_span.start_byte;
            size_t bl = callee->body_span.end_byte - callee->body_span.start_byte;
            static const char *const words[] = {"threadIdx", "blockIdx", "__syncthreads", "__shfl", "atomic",
                                                "__shared__", "__syncwarp", "laneid", "%tid", "%ctaid"};
            for (size_t w = 0; w < HK_ARRAY_LEN(words); w++)
                if (memmem(b, bl, words[w], strlen(words[w])))
                    return rwl_refuse(why, nwhy, ts, text, q, "call", EN(RW_GY_CALLEE_READS), (int)l, c, words[w]);
        }
    }
    return true;
}

static int grid_y_lanes(const rw_context *ctx, rw_result *out)
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
    char why[640] = "";
    if ((rc = rwl_open_body(text, len, f, true, &ts, &km, why, sizeof why)))
        goto out;
    if (why[0])
        goto refused;
    uint32_t line = (uint32_t)rwl_line_at(text, f->body_span.start_byte);
    if (!ts.n || !rwl_tok_is(&ts, 0, "{") || !rwl_tok_is(&ts, ts.n - 1, "}")) {
        snprintf(why, sizeof why, EN(RW_GY_NOT_BRACED), line);
        goto refused;
    }
    size_t n_by;
    if (!independent_threads(text, len, ctx->m, f, &ts, &n_by, why, sizeof why))
        goto refused;
    uint32_t by, tx;
    if (!n_by || !km_builtin_atom(km, KM_ATOM_BLOCK_IDX, 1, &by)) {
        snprintf(why, sizeof why, EN(RW_GY_NO_Y), line);
        goto refused;
    }
    if (!km_builtin_atom(km, KM_ATOM_THREAD_IDX, 0, &tx)) {
        snprintf(why, sizeof why, EN(RW_GY_NO_TX), line);
        goto refused;
    }
    /* the weighing */
    size_t na, nl;
    const km_access *ac = km_accesses(km, &na);
    const km_loop *kl = km_loops(km, &nl);
    long y_gain = 0, x_loss = 0;
    uint32_t x_line = 0;
    for (size_t a = 0; a < na; a++) {
        if (ac[a].space != KM_SPACE_GLOBAL)
            continue;
        long w = 1;
        for (uint32_t q = 0; q < ac[a].n_loops; q++)
            if (ac[a].loops[q] < nl && kl[ac[a].loops[q]].kind != KM_LOOP_GRID_STRIDE && w < 1L << 20)
                w *= GY_LOOP_WEIGHT;
        km_form e = ac[a].has_entry_element ? ac[a].entry_element : ac[a].element;
        bool yu = unit_in(e, by), xu = unit_in(e, tx);
        if (yu && !xu)
            y_gain += w;
        else if (xu && !yu) {
            x_loss += w;
            if (!x_line)
                x_line = ac[a].line;
        }
    }
    if (y_gain <= x_loss) {
        if (x_line)
            snprintf(why, sizeof why, EN(RW_GY_ALREADY), x_line, y_gain, x_loss);
        else
            snprintf(why, sizeof why, EN(RW_GY_NO_Y_ACCESS), line);
        goto refused;
    }
    static const char head[] =
        "\n    { /* hk grid_y_lanes: blockIdx.y on adjacent threads; each original thread's coordinates, once */\n" /* i18n: not for people */
        "    const unsigned long long hk_gy_f =\n"
        "        ((unsigned long long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;\n"
        "    const uint3 hk_gy_b = make_uint3((unsigned)(hk_gy_f / gridDim.y / blockDim.x),\n"
        "                                     (unsigned)(hk_gy_f % gridDim.y), blockIdx.z);\n"
        "    const uint3 hk_gy_t = make_uint3((unsigned)(hk_gy_f / gridDim.y % blockDim.x), threadIdx.y, threadIdx.z);\n"
        "    const uint3 blockIdx = hk_gy_b;\n"
        "    const uint3 threadIdx = hk_gy_t;\n"
        "    (void)blockIdx;\n"
        "    (void)threadIdx;\n";
    if ((rc = rwl_edits_add(&es, ts.t[0].end, ts.t[0].end, head)) ||
        (rc = rwl_edits_add(&es, ts.t[ts.n - 1].start, ts.t[ts.n - 1].start, "}\n")))
        goto out;
    char *d = hk_asprintf(EN(RW_GY_DESC),
                          f->name, y_gain, x_loss);
    rc = rwl_finish(text, len, ctx->m, f->name, &es, d, out);
    goto out;
refused:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "grid_y_lanes", f->name,
                                             why[0] ? why : EN(RW_NO_REASON)));
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    km_free(km);
    return rc;
}

static int emit_grid_y_lanes(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return grid_y_lanes(c, out);
}

const rw_descriptor rw_grid_y_lanes_desc = {
    .name = "grid_y_lanes",
    .summary = "the grid's y index put on adjacent threads when the heavy accesses are contiguous in it", /* i18n: not for people (no listing reads it) */
    .flags = RW_ALGORITHM,
    .emit = emit_grid_y_lanes,
};
