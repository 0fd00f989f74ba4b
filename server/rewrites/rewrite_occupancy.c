/* occupancy_regs (session 52, issue 13: mmcv's ROI family): `__maxnreg__(R)` on the kernel, R
 * the registers a thread may take so that an SM's 64K registers hold `occupancy` percent of
 * its resident threads. mmcv's roi_align, roi_align_rotated and deform_roi_pool take 45-46
 * registers under their 512-thread blocks: two blocks an SM, 32 of 64 warps, for a kernel whose
 * time is its bilinear gathers' latency (latency-bound, 5-28% of the roofline on the H100).
 * At 40 registers three blocks fit (48 warps), at 32 four (64); ptxas -v (sm_90, CPU) gives
 * them 40 with no spill.
 *
 * Written `__attribute__((maxnreg(R)))`, what nvcc's `__maxnreg__(R)` macro expands to (the
 * kernel model's grammar reads the attribute; the macro's call in a declarator does not parse).
 *
 * Why `__maxnreg__` and not `__launch_bounds__(threads, blocks)`: the launch bound changes
 * what NVVM emits (its PTX for roi_align differs in 1244 lines: unrolling and register
 * heuristics read it), and it fails any launch with more threads than it names, so it must
 * know the block. `__maxnreg__` (nvcc 12.4 and later) is a directive to ptxas only: the PTX
 * is the original's line for line but for `.maxnreg R` (checked with nvcc 13.0 on five wild
 * kernels, test_rewrites_occupancy), whatever block the kernel is launched with.
 *
 * Why it is exact: the PTX, which fixes every operation, its operands and its rounding, is
 * the original's; ptxas allocates the same instructions to fewer registers, storing to and
 * reloading from local memory (spills) what does not fit: a value spilled is reloaded as it
 * was stored. The one thing ptxas decides from the PTX beside registers, contracting a
 * `mul.f32` and a dependent `add.f32` into an fma, it decides on the instructions, which are
 * the original's. What it costs: spills (ptxas -v says how many; the referee times it).
 *
 * Refused: an AMD/DCU build (no such attribute), a kernel that has `__launch_bounds__` (nvcc
 * takes one of the two, and the bound's own register limit is the author's) or `__maxnreg__`
 * already, a device whose resident threads leave no cap between 16 and 255 registers. The
 * search's launch-bounds axis (rw_launch_bounds) refuses a kernel with `__maxnreg__` in turn. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdio.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define OR_SM_REGISTERS 65536   /* sm_70 .. sm_90: registers an SM has */
#define OR_SM_WARPS 64          /* resident warps an SM holds when the device is not known */

/* The register cap for occupancy pct of warps resident warps: 64K registers over the
 * threads, rounded down to ptxas' allocation unit of 8 a thread. */
static int occupancy_cap(int pct, int warps)
{
    if (warps <= 0)
        warps = OR_SM_WARPS;
    long threads = (long)warps * 32 * pct / 100;
    if (threads <= 0)
        return 0;
    return (int)(OR_SM_REGISTERS / threads) / 8 * 8;
}

/* The token index of `name (` in the kernel's head (before its body), or ts->n. */
static size_t head_attr(const rw_toks *ts, const char *name)
{
    for (size_t i = 0; i + 1 < ts->n; i++)
        if (rwl_tok_is_ident(ts, i, name) && rwl_tok_is(ts, i + 1, "("))
            return i;
    return ts->n;
}

static int occupancy_regs(const rw_context *ctx, int pct, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    if (ctx->hip)
        return rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "occupancy_regs", f->name,
                                                   EN(RW_OR_HIP)));
    rw_toks ts = {0};
    rw_edits es = {0};
    char *why = NULL;
    if ((rc = rwl_lex(ctx->text, f->span.start_byte, f->body_span.start_byte, &ts)))
        goto out;
    /* `__maxnreg__(R)` is nvcc's macro for `__attribute__((maxnreg(R)))` (crt/host_defines.h) */
    static const char *const attrs[] = {"__launch_bounds__", "__maxnreg__", "maxnreg"};
    for (size_t a = 0; a < HK_ARRAY_LEN(attrs) && !why; a++) {
        size_t at = head_attr(&ts, attrs[a]);
        if (at < ts.n)
            why = hk_asprintf(EN(RW_OR_HAS_ATTR), rwl_line_at(ctx->text, ts.t[at].start), attrs[a]);
    }
    int cap = occupancy_cap(pct, ctx->warps_per_sm);
    if (!why && (cap < 16 || cap > 255))
        why = hk_asprintf(EN(RW_OR_NO_CAP), rwl_line_at(ctx->text, f->name_span.start_byte), pct,
                          ctx->warps_per_sm > 0 ? ctx->warps_per_sm : OR_SM_WARPS, cap);
    if (why) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "occupancy_regs", f->name, why));
        goto out;
    }
    /* `__global__ void __attribute__((maxnreg(R))) name(...)`: right before the name, where
     * rw_launch_bounds puts its bound. The attribute is what nvcc's `__maxnreg__(R)` expands
     * to (crt/host_defines.h); written out, the kernel model's grammar reads it as an
     * attribute, where `__maxnreg__(R)` does not parse */
    char *ins = hk_asprintf("__attribute__((maxnreg(%d))) ", cap); /* i18n: not for people */
    if ((rc = rwl_edits_add_owned(&es, f->name_span.start_byte, f->name_span.start_byte, ins)))
        goto out;
    int resident = (ctx->warps_per_sm > 0 ? ctx->warps_per_sm : OR_SM_WARPS) * 32;
    int held = OR_SM_REGISTERS / cap / 32 * 32;
    rc = rwl_finish(ctx->text, ctx->len, ctx->m, f->name, &es,
                    hk_asprintf(EN(RW_OR_DESC), cap, f->name, held < resident ? held : resident, resident),
                    out);
    /* the block and grid are untouched and nothing reads them anew: it runs under whatever
     * launch the text it was given runs (RW_STACKS) */
    if (rc == HK_OK && out->applicable)
        out->keeps_launch = true;
out:
    hk_free(why);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static const rw_param occupancy_regs_params[] = {
    {.name = "occupancy", .type = RW_PARAM_ENUM, .values = {75, 100}, .n_values = 2, .def = 75},
};

static int emit_occupancy_regs(const rw_context *c, const int *p, rw_result *out)
{
    return occupancy_regs(c, p[0], out);
}

const rw_descriptor rw_occupancy_regs_desc = {
    .name = "occupancy_regs",
    .summary = "__maxnreg__(R) on the kernel: at most R registers a thread, so that the SM holds the " /* i18n: not for people (no listing reads it) */
               "given share of its resident threads; the PTX is the original's (exact), ptxas may spill",
    .params = occupancy_regs_params,
    .n_params = HK_ARRAY_LEN(occupancy_regs_params),
    /* it stacks (RW_STACKS): a register budget for whatever text it is given, so the search
     * puts it on the leaders' texts (specialize_constants' unrolled sample loop at 46
     * registers on roi_align: two 512-thread blocks an SM; at 40, three), and only there
     * (RW_STACK_ONLY): alone it moves no instruction, and fast_divmod alone already runs
     * roi_align at 40 registers */
    .flags = RW_STACKS | RW_STACK_ONLY,
    .emit = emit_occupancy_regs,
};
