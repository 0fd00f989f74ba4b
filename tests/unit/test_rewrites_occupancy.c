/* occupancy_regs (session 52, issue 13): `__maxnreg__(R)` before the kernel's name, R the
 * registers a thread may take for 75% (40) or 100% (32) of an SM's resident threads. Its proof
 * is nvcc's own output: the PTX of the rewritten text is the original's line for line but for
 * the `.maxnreg R` directive (a probe kernel and, when bench/wild/src is extracted, mmcv's
 * roi_align, roi_align_rotated, deform_roi_pool, prroi_pool, border_align and roi_pool), and
 * ptxas -v then reports at most R registers. A CPU emulation of the rewritten source would
 * run the same C++ as the original's and prove nothing more; what could differ is nvcc's
 * code, and the PTX identity says it does not. The emitted text, the device's warps, the
 * refusals with their construct and line, and the launch-bounds axis refusing a capped
 * kernel (nvcc takes no __launch_bounds__ beside __maxnreg__) are checked on the CPU. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "rw_fixture.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-occupancy");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* A bin's bilinear samples per output in a grid-stride loop macro, as mmcv's roi_align. */
static const char probe[] =
    "#define LOOP_1D(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "template <typename T>\n"
    "__device__ T bilinear(const T *in, int h, int w, T y, T x)\n"
    "{\n"
    "    if (y < -1.0 || y > h || x < -1.0 || x > w) return 0;\n"
    "    if (y <= 0) y = 0;\n"
    "    if (x <= 0) x = 0;\n"
    "    int yl = (int)y, xl = (int)x, yh, xh;\n"
    "    if (yl >= h - 1) { yh = yl = h - 1; y = (T)yl; } else yh = yl + 1;\n"
    "    if (xl >= w - 1) { xh = xl = w - 1; x = (T)xl; } else xh = xl + 1;\n"
    "    T ly = y - yl, lx = x - xl, hy = 1. - ly, hx = 1. - lx;\n"
    "    return hy * hx * in[yl * w + xl] + hy * lx * in[yl * w + xh] + ly * hx * in[yh * w + xl] + ly * lx * in[yh * w + xh];\n"
    "}\n"
    "template <typename T>\n"
    "__global__ void bin_mean(const int n, const T *in, const T *rois, T *out, const int pooled, const int samples,\n"
    "                         const int channels, const int h, const int w)\n"
    "{\n"
    "    LOOP_1D(index, n) {\n"
    "        int pw = index % pooled, ph = (index / pooled) % pooled;\n"
    "        int c = (index / pooled / pooled) % channels, r = index / pooled / pooled / channels;\n"
    "        const T *roi = rois + r * 5;\n"
    "        int b = roi[0];\n"
    "        T x0 = roi[1] * w, y0 = roi[2] * h, bw = (roi[3] * w - x0) / pooled, bh = (roi[4] * h - y0) / pooled;\n"
    "        const T *plane = in + (b * channels + c) * h * w;\n"
    "        T acc = 0;\n"
    "        for (int iy = 0; iy < samples; iy++)\n"
    "            for (int ix = 0; ix < samples; ix++)\n"
    "                acc += bilinear(plane, h, w, y0 + ph * bh + (iy + .5f) * bh / samples,\n"
    "                                x0 + pw * bw + (ix + .5f) * bw / samples);\n"
    "        out[index] = acc / (samples * samples);\n"
    "    }\n"
    "}\n"
    "__global__ void __launch_bounds__(256, 2) bounded(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i] = x[i] * x[i];\n"
    "}\n"
    "__global__ void\n"
    "__attribute__((maxnreg(48))) capped(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i] = x[i] + 1.0f;\n"
    "}\n";

/* occupancy_regs on kernel kname of fx at occupancy pct (0: the default) and warps a SM
 * (0: unknown) into r. */
static void apply(const fixture *fx, const char *kname, int pct, int warps, bool hip, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = kernel(fx, kname),
                      .hip = hip, .warps_per_sm = warps};
    int params[RW_MAX_PARAMS] = {pct};
    rw_refusal why;
    assert_int_equal(rw_apply_named("occupancy_regs", &ctx, params, r, &why), HK_OK);
}

static void emits_cap(void **state)
{
    (void)state;
    fixture fx;
    load_text(probe, &fx);
    static const struct {
        int pct, warps;
        const char *head;
    } cases[] = {
        {0, 0, "__global__ void __attribute__((maxnreg(40))) bin_mean("},    /* 75% of 2048: 65536 / 1536 */
        {75, 64, "__global__ void __attribute__((maxnreg(40))) bin_mean("},
        {100, 64, "__global__ void __attribute__((maxnreg(32))) bin_mean("}, /* 65536 / 2048 */
        {75, 48, "__global__ void __attribute__((maxnreg(56))) bin_mean("},  /* sm_86: 1152 threads */
        {100, 48, "__global__ void __attribute__((maxnreg(40))) bin_mean("}, /* 1536 threads: 42, down to 40 */
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        rw_result r;
        apply(&fx, "bin_mean", cases[i].pct, cases[i].warps, false, &r);
        if (!r.applicable)
            fail_msg("case %zu: %s", i, r.description);
        assert_true(r.keeps_launch);
        if (!strstr(r.text, cases[i].head))
            fail_msg("case %zu: no `%s` in the text", i, cases[i].head);
        assert_non_null(strstr(r.description, "exact"));
        /* only the attribute was added: the rest is the original, byte for byte */
        const char *at = strstr(r.text, "__attribute__((maxnreg(");
        const char *end = strstr(at, ")))") + 4;
        assert_int_equal((size_t)(at - r.text) + strlen(end), fx.len);
        assert_memory_equal(r.text, fx.text, (size_t)(at - r.text));
        assert_string_equal(end, fx.text + (at - r.text));
        /* the text is read again as a kernel with the same parameters */
        fixture again;
        load_text(r.text, &again);
        size_t k = kernel(&again, "bin_mean");
        assert_int_equal(again.m->funcs[k].n_params, fx.m->funcs[kernel(&fx, "bin_mean")].n_params);
        unload(&again);
        rw_result_free(&r);
    }
    unload(&fx);
}

static void refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"bounded", "kernel head", 33, "__launch_bounds__"},
        {"capped", "kernel head", 39, "maxnreg"},
    };
    rwf_expect_refusals(probe, "occupancy_regs", cases, HK_ARRAY_LEN(cases));
    fixture fx;
    load_text(probe, &fx);
    rw_result r;
    apply(&fx, "bin_mean", 0, 0, true, &r);   /* an AMD/DCU build */
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, "nvcc's"));
    rw_result_free(&r);
    unload(&fx);
}

/* The search's launch-bounds axis on a capped text: nvcc rejects a kernel with both. */
static void launch_bounds_refuses_cap(void **state)
{
    (void)state;
    fixture fx;
    load_text(probe, &fx);
    rw_result r;
    apply(&fx, "bin_mean", 0, 0, false, &r);
    assert_true(r.applicable);
    fixture capped;
    load_text(r.text, &capped);
    rw_result lb;
    assert_int_equal(rw_launch_bounds(capped.text, capped.len, capped.m, kernel(&capped, "bin_mean"), 512, 2, &lb),
                     HK_OK);
    assert_false(lb.applicable);
    assert_non_null(strstr(lb.description, "__maxnreg__"));   /* the message names nvcc's spelling */
    rw_result_free(&lb);
    /* and the source's own: `capped` */
    assert_int_equal(rw_launch_bounds(capped.text, capped.len, capped.m, kernel(&capped, "capped"), 256, 0, &lb), HK_OK);
    assert_false(lb.applicable);
    rw_result_free(&lb);
    /* a kernel without a cap still gets its bound */
    assert_int_equal(rw_launch_bounds(fx.text, fx.len, fx.m, kernel(&fx, "bin_mean"), 512, 2, &lb), HK_OK);
    assert_true(lb.applicable);
    rw_result_free(&lb);
    unload(&capped);
    rw_result_free(&r);
    unload(&fx);
}

/* text with inst appended, written as NAME.cu in tmpdir; its PTX (nvcc -arch=sm_90 -ptx) with
 * the `.maxnreg` line dropped into *ptx (malloc'd), ptxas -v's registers of kname into *regs. */
static void compile(const char *name, const char *text, const char *inst, const char *kname, char **ptx, int *regs)
{
    char path[700], cmd[2400], out[65536];
    snprintf(path, sizeof path, "%s/%s.cu", tmpdir, name);
    size_t n = strlen(text) + strlen(inst) + 2;
    char *full = malloc(n);
    assert_non_null(full);
    snprintf(full, n, "%s\n%s", text, inst);
    rwf_write_file(path, full);
    free(full);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s -arch=sm_90 -w -ptx -o %s.ptx %s.cu 2>&1 && grep -v '^\\.maxnreg ' %s.ptx > %s.ptx.cut",
             tmpdir, NVCC, name, name, name, name);
    if (run_cmd(cmd, out, sizeof out) != 0)
        fail_msg("%s: nvcc -ptx failed: %s", name, out);
    snprintf(path, sizeof path, "%s/%s.ptx.cut", tmpdir, name);
    *ptx = rwf_read_file(path, NULL);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s -arch=sm_90 -w -cubin -Xptxas -v -o %s.cubin %s.cu 2>&1", tmpdir, NVCC,
             name, name);
    if (run_cmd(cmd, out, sizeof out) != 0)
        fail_msg("%s: nvcc -cubin failed: %s", name, out);
    /* "Compiling entry function '_Z..KNAME..' ... Used N registers" */
    *regs = -1;
    for (const char *p = strstr(out, "Compiling entry function"); p && *regs < 0;
         p = strstr(p + 1, "Compiling entry function")) {
        const char *eol = strchr(p, '\n');
        const char *k = strstr(p, kname);
        if (!k || (eol && k > eol))
            continue;
        const char *u = strstr(p, "Used ");
        if (u)
            *regs = atoi(u + 5);
    }
    assert_true(*regs > 0);
}

/* The PTX of the rewrite is the original's but for `.maxnreg`; ptxas keeps under the cap. */
static void check_ptx(const char *name, const fixture *fx, const char *kname, const char *inst)
{
    static const int pcts[] = {75, 100}, caps[] = {40, 32};
    char *orig;
    int oregs;
    char tag[200];
    snprintf(tag, sizeof tag, "%s-orig", name);
    compile(tag, fx->text, inst, kname, &orig, &oregs);
    for (size_t i = 0; i < HK_ARRAY_LEN(pcts); i++) {
        rw_result r;
        apply(fx, kname, pcts[i], 64, false, &r);
        if (!r.applicable)
            fail_msg("%s: %s", name, r.description);
        char *ptx;
        int regs;
        snprintf(tag, sizeof tag, "%s-%d", name, pcts[i]);
        compile(tag, r.text, inst, kname, &ptx, &regs);
        if (strcmp(ptx, orig) != 0)
            fail_msg("%s at %d%%: the PTX differs from the original's beyond .maxnreg", name, pcts[i]);
        print_message("%s: %d registers, at %d%% %d (cap %d)\n", name, oregs, pcts[i], regs, caps[i]);
        assert_true(regs <= caps[i]);
        free(ptx);
        rw_result_free(&r);
    }
    free(orig);
}

static void ptx_identical(void **state)
{
    (void)state;
    if (access("/usr/local/cuda/bin/nvcc", X_OK) != 0) {
        print_message("note: no nvcc, skipped\n");
        skip();
    }
    fixture fx;
    load_text(probe, &fx);
    check_ptx("probe", &fx, "bin_mean", "template __global__ void bin_mean<float>(int, const float *, const float *, float *, int, int, int, int, int);\n");
    unload(&fx);
    static const struct {
        const char *id, *kernel;
    } wild[] = {
        {"mmcv_roi_align_fwd", "roi_align_forward_cuda_kernel"},
        {"mmcv_roi_align_rotated_fwd", "roi_align_rotated_forward_cuda_kernel"},
        {"mmcv_deform_roi_pool_fwd", "deform_roi_pool_forward_cuda_kernel"},
        {"mmcv_prroi_pool_fwd", "prroi_pool_forward_cuda_kernel"},
        {"mmcv_border_align_fwd", "border_align_forward_cuda_kernel"},
        {"mmcv_roi_pool_fwd", "roi_pool_forward_cuda_kernel"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(wild); i++) {
        if (!rwf_load_wild(wild[i].id, &fx))
            continue;
        char inst[300];
        snprintf(inst, sizeof inst, "static void *hk_occ_inst = (void *)&%s<float>;\n", wild[i].kernel);
        check_ptx(wild[i].id, &fx, wild[i].kernel, inst);
        unload(&fx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emits_cap),
        cmocka_unit_test(refusals),
        cmocka_unit_test(launch_bounds_refuses_cap),
        cmocka_unit_test(ptx_identical),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
