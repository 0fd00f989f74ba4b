/* split_grid_partials (rewrite_gsplit.c): a fixed grid of per-block partial reductions
 * over a grid-stride loop, run on S times the blocks. Emulated against the original (one
 * batched program, emu_batch.h): integer sums and maxima bit for bit, float sums within
 * tolerance, a SHOC-like width-2 `while` loop through a shared pointer local, n = 1000003,
 * S in {2, 3, 8, 32}, G in {1, 7, 64}, ten launches in a row with new data each time and
 * the blocks run forward, reversed and shuffled (the last ticket drawn by different parts);
 * a launch of the spec's own grid (S = 1) and one with spare blocks. Mutants that must fail:
 * no ticket reset, a combine of the last part's own partial only, no first-step offset. Refusals name their
 * construct; the emitted SHOC-like kernel compiles with nvcc -arch=sm_90. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "spec/spec.h"

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
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-emu-gsplit");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* Integer sum: a register accumulator over a plain grid-stride loop, a shared tree. */
static const char isum[] =
    "__global__ void isum(const int *in, int *out, int n)\n"
    "{\n"
    "    __shared__ int sh[64];\n"
    "    int acc = 0;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        acc += in[i];\n"
    "    sh[threadIdx.x] = acc;\n"
    "    __syncthreads();\n"
    "    for (int s = 32; s > 0; s >>= 1) {\n"
    "        if (s > threadIdx.x)\n"
    "            sh[threadIdx.x] += sh[threadIdx.x + s];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0)\n"
    "        out[blockIdx.x] = sh[0];\n"
    "}\n";

/* Integer max: the same shape with max. */
static const char imax[] =
    "__global__ void imax(const int *in, int *out, int n)\n"
    "{\n"
    "    __shared__ int sh[64];\n"
    "    int m = -2147483647;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        m = max(m, in[i]);\n"
    "    sh[threadIdx.x] = m;\n"
    "    __syncthreads();\n"
    "    for (int s = 32; s > 0; s >>= 1) {\n"
    "        if (s > threadIdx.x)\n"
    "            sh[threadIdx.x] = max(sh[threadIdx.x], sh[threadIdx.x + s]);\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0)\n"
    "        out[blockIdx.x] = sh[0];\n"
    "}\n";

/* Float sum of two elements per thread per step (a grid-stride loop of width 2, the
 * `while` form), summed in shared memory directly. */
static const char fsum2[] =
    "__global__ void fsum2(const float *g, float *o, unsigned int n)\n"
    "{\n"
    "    extern __shared__ float sdata[];\n"
    "    const unsigned int tid = threadIdx.x;\n"
    "    unsigned int i = blockIdx.x * (blockDim.x * 2) + tid;\n"
    "    const unsigned int gridSize = blockDim.x * 2 * gridDim.x;\n"
    "    sdata[tid] = 0.0f;\n"
    "    while (i < n) {\n"
    "        sdata[tid] += g[i] + (n > i + blockDim.x ? g[i + blockDim.x] : 0.0f);\n"
    "        i += gridSize;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "        if (tid < s)\n"
    "            sdata[tid] += sdata[tid + s];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (tid == 0)\n"
    "        o[blockIdx.x] = sdata[0];\n"
    "}\n";

/* SHOC's reduce<float, 256> (vetter/shoc, reduction_kernel.h) as written: a template, the
 * shared array reached through a pointer a class returns, a warp-synchronous volatile tail. */
static const char shoc[] =
    "template <class T> class SharedMem {\n"
    "  public:\n"
    "    __device__ inline T *getPointer() { extern __shared__ T s[]; return s; }\n"
    "};\n"
    "template <class T, int blockSize>\n"
    "__global__ void reduce(const T *__restrict__ g_idata, T *__restrict__ g_odata, const unsigned int n)\n"
    "{\n"
    "    const unsigned int tid = threadIdx.x;\n"
    "    unsigned int i = (blockIdx.x * (blockDim.x * 2)) + tid;\n"
    "    const unsigned int gridSize = blockDim.x * 2 * gridDim.x;\n"
    "    SharedMem<T> shared;\n"
    "    volatile T *sdata = shared.getPointer();\n"
    "    sdata[tid] = 0.0f;\n"
    "    while (i < n)\n"
    "    {\n"
    "        sdata[tid] += g_idata[i] + g_idata[i + blockSize];\n"
    "        i += gridSize;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }\n"
    "    if (blockSize >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }\n"
    "    if (tid < warpSize)\n"
    "    {\n"
    "        if (blockSize >= 64) sdata[tid] += sdata[tid + 32];\n"
    "        if (blockSize >= 32) sdata[tid] += sdata[tid + 16];\n"
    "        if (blockSize >= 16) sdata[tid] += sdata[tid + 8];\n"
    "        if (blockSize >= 8) sdata[tid] += sdata[tid + 4];\n"
    "        if (blockSize >= 4) sdata[tid] += sdata[tid + 2];\n"
    "        if (blockSize >= 2) sdata[tid] += sdata[tid + 1];\n"
    "    }\n"
    "    if (tid == 0)\n"
    "    {\n"
    "        g_odata[blockIdx.x] = sdata[0];\n"
    "    }\n"
    "}\n";

/* A spec for kernel kname launched on G blocks of B threads (arguments in, out, n). */
static spec *mk_spec(const char *kname, long G, int B, const char *grid_expr, const char *targs)
{
    char text[1500], g[64];
    if (grid_expr)
        snprintf(g, sizeof g, "\"%s\"", grid_expr);
    else
        snprintf(g, sizeof g, "%ld", G);
    snprintf(text, sizeof text,
             "{\"name\": \"g\", \"source\": \"g.cu\", \"kernel\": \"%s\",%s"
             " \"sizes\": [{\"n\": 100000}, {\"n\": 4096}],"
             " \"args\": [{\"name\": \"in\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},"
             " {\"name\": \"out\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": %ld},"
             " {\"name\": \"n\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"}],"
             " \"launch\": {\"grid\": %s, \"block\": %d}}",
             kname, targs ? targs : "", G, g, B);
    spec *sp = NULL;
    spec_diags diags = {0};
    int rc = spec_parse(text, strlen(text), NULL, &sp, &diags);
    for (size_t d = 0; rc && d < diags.n; d++)
        print_message("spec: %s: %s\n", diags.items[d].path, diags.items[d].message);
    assert_int_equal(rc, HK_OK);
    spec_diags_free(&diags);
    return sp;
}

/* split_grid_partials of kname in src with S under a spec grid G: the result (applicable
 * or not) and its text or reason (malloc'd). */
static char *gsplit(const char *src, const char *kname, int S, long G, int B, const char *grid_expr,
                    bool with_spec, bool *applicable)
{
    fixture fx;
    load_text(src, &fx);
    spec *sp = with_spec ? mk_spec(kname, G, B, grid_expr, NULL) : NULL;
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname), .spec = sp};
    int params[RW_MAX_PARAMS] = {S};
    rw_result r;
    rw_refusal why;
    assert_int_equal(rw_apply_named("split_grid_partials", &ctx, params, &r, &why), HK_OK);
    *applicable = r.applicable;
    char *t = strdup(r.applicable ? r.text : r.description);
    assert_non_null(t);
    rw_result_free(&r);
    spec_free(sp);
    unload(&fx);
    return t;
}

static char *gsplit_ok(const char *src, const char *kname, int S, long G, int B)
{
    bool ok = false;
    char *t = gsplit(src, kname, S, G, B, NULL, true, &ok);
    if (!ok)
        print_message("split_grid_partials of %s: %s\n", kname, t);
    assert_true(ok);
    return t;
}

/* The driver of a case: L launches, each with new data, the candidate's blocks in the
 * order of launch l (forward, reversed, shuffled); orig on G blocks, cand on GRID. fn is
 * the kernel's name as called (template arguments included); its arguments are (in, out,
 * n). rtol 0: integers in [-500000, 500003), compared bit for bit; else floats within rtol
 * of n / G * 10 (a block's terms times the data's magnitude, 10). */
static char *driver(const char *type, const char *fn, long n, long G, long grid, int B, size_t smem, int L,
                    double rtol)
{
    char *d = hk_asprintf(
        "for (int l = 0; l < %d; l++) {\n"
        "    emu::buf<%s> in(%ld + 512), o(%ld), c(%ld);\n"
        "    if (%d) in.fill(l + 1); else in.fill_mod(l + 1, 1000003);\n"
        "    if (!%d) for (size_t q = 0; q < in.size(); q++) in[q] -= 500000;\n"
        "    c.set(77); o.set(77);\n"
        "    emu::block_order = emu::FORWARD;\n"
        "    emu::launch(dim3(%ld), dim3(%d), %zu, [&] { orig::%s(in, o, %ld); });\n"
        "    emu::block_order = l %% 3; emu::block_seed = (unsigned)l + 1u;\n"
        "    emu::launch(dim3(%ld), dim3(%d), %zu, [&] { cand::%s(in, c, %ld); });\n"
        "    emu::expect(\"launch\", o, c, %g, %g);\n"
        "}\n",
        L, type, n, G, G, rtol > 0, rtol > 0, G, B, smem, fn, n, grid, B, smem, fn, n, rtol,
        rtol > 0 ? (double)n / (double)G * 10.0 : 1.0);
    assert_non_null(d);
    return d;
}

/* A float candidate is deterministic: the same data under two block orders gives the same
 * bits (the last part combines in s order, whichever part drew the last ticket). */
static char *driver_same_bits(const char *fn, long n, long grid, int B, size_t smem)
{
    char *d = hk_asprintf(
        "emu::buf<float> in(%ld + 512), a(%ld / %ld), c(%ld / %ld);\n"
        "in.fill(3);\n"
        "emu::block_order = emu::FORWARD;\n"
        "emu::launch(dim3(%ld), dim3(%d), %zu, [&] { cand::%s(in, a, %ld); });\n"
        "emu::block_order = emu::SHUFFLED; emu::block_seed = 99u;\n"
        "emu::launch(dim3(%ld), dim3(%d), %zu, [&] { cand::%s(in, c, %ld); });\n"
        "emu::expect(\"orders\", a, c, 0);\n",
        n, grid, (long)8, grid, (long)8, grid, B, smem, fn, n, grid, B, smem, fn, n);
    assert_non_null(d);
    return d;
}

static void emulated_against_the_original(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static emu_batch b;
    char *keep[40];
    size_t nk = 0;
#define KEEP(x) (keep[nk++] = (x))
    emu_batch_init(&b, tmpdir, "gsplit");

    /* integer sum: G 7 with S 3 (ten launches), G 1 with S 32, G 64 with S 2; the spec's own
     * grid (S = 1: the original) and spare blocks past G * S */
    char *is3 = KEEP(gsplit_ok(isum, "isum", 3, 7, 64));
    /* the last part sets its block's partials back to 0 with the ticket: a launch leaves the
     * scratch as the loader gave it (the referee rejects a candidate that does not:
     * launch_state) */
    assert_non_null(strstr(is3, "hk_gs_z[hk_gs_q] = {};"));
    assert_true(strstr(is3, "hk_gs_z[hk_gs_q] = {};") < strstr(is3, "hk_gs_ticket_isum[hk_gs_b] = 0u;"));
    emu_batch_add_pair(&b, "isum_G7_S3", isum, is3, NULL, KEEP(driver("int", "isum", 20011, 7, 21, 64, 0, 10, 0)),
                       EMU_OK);
    char *is32 = KEEP(gsplit_ok(isum, "isum", 32, 1, 64));
    emu_batch_add_pair(&b, "isum_G1_S32", isum, is32, NULL, KEEP(driver("int", "isum", 20011, 1, 32, 64, 0, 3, 0)),
                       EMU_OK);
    char *is2 = KEEP(gsplit_ok(isum, "isum", 2, 64, 64));
    emu_batch_add_pair(&b, "isum_G64_S2", isum, is2, NULL, KEEP(driver("int", "isum", 20011, 64, 128, 64, 0, 3, 0)),
                       EMU_OK);
    emu_batch_add_pair(&b, "isum_spec_grid", isum, is3, NULL, KEEP(driver("int", "isum", 20011, 7, 7, 64, 0, 2, 0)),
                       EMU_OK);
    emu_batch_add_pair(&b, "isum_spare_blocks", isum, is3, NULL,
                       KEEP(driver("int", "isum", 20011, 7, 26, 64, 0, 3, 0)), EMU_OK);
    /* integer max, G 64, S 8 */
    char *im = KEEP(gsplit_ok(imax, "imax", 8, 64, 64));
    emu_batch_add_pair(&b, "imax_G64_S8", imax, im, NULL, KEEP(driver("int", "imax", 20011, 64, 512, 64, 0, 3, 0)),
                       EMU_OK);
    /* float sum of width 2, n = 1000003 (no multiple of anything), G 64, S 8; the same
     * bits under two block orders */
    char *f8 = KEEP(gsplit_ok(fsum2, "fsum2", 8, 64, 128));
    emu_batch_add_pair(&b, "fsum2_G64_S8", fsum2, f8, NULL,
                       KEEP(driver("float", "fsum2", 1000003, 64, 512, 128, 128 * 4, 2, 1e-6)), EMU_OK);
    emu_batch_add_pair(&b, "fsum2_orders", fsum2, f8, NULL, KEEP(driver_same_bits("fsum2", 100003, 512, 128, 512)),
                       EMU_OK);
    /* SHOC's kernel, G 64, S 8 and S 3 */
    char *sh8 = KEEP(gsplit_ok(shoc, "reduce", 8, 64, 256));
    emu_batch_add_pair(&b, "shoc_G64_S8", shoc, sh8, NULL,
                       KEEP(driver("float", "reduce<float, 256>", 262144, 64, 512, 256, 1024, 3, 1e-6)), EMU_OK);
    char *sh3 = KEEP(gsplit_ok(shoc, "reduce", 3, 64, 256));
    emu_batch_add_pair(&b, "shoc_G64_S3", shoc, sh3, NULL,
                       KEEP(driver("float", "reduce<float, 256>", 262144, 64, 192, 256, 1024, 2, 1e-6)), EMU_OK);
    /* mutants: no ticket reset (the second launch's tickets never reach S - 1, the output
     * keeps its 77s); the last part combining only its own partial */
    char *noreset = KEEP(emu_replaced(is3, "hk_gs_ticket_isum[hk_gs_b] = 0u;", ""));
    emu_batch_add_pair(&b, "mutant_no_reset", isum, noreset, NULL,
                       KEEP(driver("int", "isum", 20011, 7, 21, 64, 0, 10, 0)), EMU_DIFFERS);
    char *own1 = KEEP(emu_replaced(is3, "auto hk_gs_acc = hk_gs_p[0];", "auto hk_gs_acc = hk_gs_p[hk_gs_s];"));
    char *own = KEEP(emu_replaced(own1, "hk_gs_acc = hk_gs_acc + hk_gs_v;", "(void)hk_gs_v;"));
    emu_batch_add_pair(&b, "mutant_own_part", isum, own, NULL, KEEP(driver("int", "isum", 20011, 7, 21, 64, 0, 3, 0)),
                       EMU_DIFFERS);
    /* every part starting at the block's first step: each element summed S times */
    char *nooff = KEEP(emu_replaced(sh8, "i += hk_gs_s * (gridSize);", ""));
    emu_batch_add_pair(&b, "mutant_no_offset", shoc, nooff, NULL,
                       KEEP(driver("float", "reduce<float, 256>", 262144, 64, 512, 256, 1024, 1, 1e-6)), EMU_DIFFERS);
    assert_int_equal(emu_batch_finish(&b), 0);
    for (size_t i = 0; i < nk; i++)
        free(keep[i]);
#undef KEEP
}

/* What the rewrite refuses, each naming its construct. */
static void refusals(void **state)
{
    (void)state;
    static const struct { const char *what, *src, *k, *reason; } cases[] = {
        {"a result per thread",
         "__global__ void k(const int *in, int *out, int n)\n{\n    int acc = 0;\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
         "        acc += in[i];\n    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;\n}\n",
         "k", "not written at blockIdx.x"},
        {"a break",
         "__global__ void k(const int *in, int *out, int n)\n{\n    __shared__ int sh[64];\n    int acc = 0;\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
         "        if (in[i] < 0) break;\n        acc += in[i];\n    }\n    sh[threadIdx.x] = acc;\n"
         "    __syncthreads();\n    if (threadIdx.x == 0) out[blockIdx.x] = sh[0] + sh[1];\n}\n",
         "k", "trip depends on more than its bounds"},
        {"a global atomic",
         "__global__ void k(const int *in, int *out, int n)\n{\n    int acc = 0;\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
         "        acc += in[i];\n    atomicAdd(&out[0], acc);\n}\n",
         "k", "already combines"},
        {"a sum that starts at 1",
         "__global__ void k(const int *in, int *out, int n)\n{\n    __shared__ int sh[64];\n    int acc = 1;\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
         "        acc += in[i];\n    sh[threadIdx.x] = acc;\n    __syncthreads();\n"
         "    if (threadIdx.x == 0) out[blockIdx.x] = sh[0];\n}\n",
         "k", "starts at 0"},
        {"a value that is not the sum",
         "__global__ void k(const float *in, float *out, int n)\n{\n    __shared__ float sh[64];\n"
         "    sh[threadIdx.x] = 0.0f;\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
         "        sh[threadIdx.x] += in[i];\n    __syncthreads();\n"
         "    if (threadIdx.x == 0) out[blockIdx.x] = sqrtf(sh[0]);\n}\n",
         "k", "not the block's combined state alone"},
        {"a subtraction",
         "__global__ void k(const int *in, int *out, int n)\n{\n    __shared__ int sh[64];\n    int acc = 0;\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
         "        acc = in[i] - acc;\n    sh[threadIdx.x] = acc;\n    __syncthreads();\n"
         "    if (threadIdx.x == 0) out[blockIdx.x] = sh[0];\n}\n",
         "k", "+, max, min"},
        {"data added to the accumulator after the loop",
         "__global__ void k(const int *in, int *out, int n)\n{\n    __shared__ int sh[64];\n    int acc = 0;\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
         "        acc += in[i];\n    acc += in[0];\n    sh[threadIdx.x] = acc;\n    __syncthreads();\n"
         "    if (threadIdx.x == 0) out[blockIdx.x] = sh[0];\n}\n",
         "k", "written other than by its sum combine"},
        {"data added to the slot after the loop",
         "__global__ void k(const float *in, float *out, int n)\n{\n    __shared__ float sh[64];\n"
         "    sh[threadIdx.x] = 0.0f;\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
         "        sh[threadIdx.x] += in[i];\n    __syncthreads();\n    sh[threadIdx.x] += in[0];\n"
         "    __syncthreads();\n    if (threadIdx.x == 0) out[blockIdx.x] = sh[0];\n}\n",
         "k", "written other than by its sum combine"},
        {"data added to the shuffled accumulator",
         "__global__ void k(const int *in, int *out, int n)\n{\n    int acc = 0;\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
         "        acc += in[i];\n    acc += __shfl_down_sync(0xffffffffu, in[0], 1);\n"
         "    if (threadIdx.x == 0) out[blockIdx.x] = acc;\n}\n",
         "k", "combined after the loop only with itself"},
        {"no grid-stride loop",
         "__global__ void k(const int *in, int *out, int n)\n{\n    __shared__ int sh[64];\n"
         "    sh[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];\n    __syncthreads();\n"
         "    if (threadIdx.x == 0) out[blockIdx.x] = sh[0];\n}\n",
         "k", "no grid-stride loop"},
        {"a return",
         "__global__ void k(const int *in, int *out, int n)\n{\n    __shared__ int sh[64];\n    int acc = 0;\n"
         "    if (n == 0) return;\n"
         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
         "        acc += in[i];\n    sh[threadIdx.x] = acc;\n    __syncthreads();\n"
         "    if (threadIdx.x == 0) out[blockIdx.x] = sh[0];\n}\n",
         "k", "return"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        bool ok = true;
        char *t = gsplit(cases[i].src, cases[i].k, 8, 64, 64, NULL, true, &ok);
        if (ok || !strstr(t, cases[i].reason))
            print_message("%s: %s\n", cases[i].what, ok ? "applies" : t);
        assert_false(ok);
        assert_non_null(strstr(t, cases[i].reason));
        free(t);
    }
    /* no spec, or a grid that is not a compile-time constant */
    bool ok = true;
    char *t = gsplit(isum, "isum", 8, 64, 64, NULL, false, &ok);
    assert_false(ok);
    assert_non_null(strstr(t, "no spec launch"));
    free(t);
    t = gsplit(isum, "isum", 8, 64, 64, "ceil_div(n, block_x)", true, &ok);
    assert_false(ok);
    assert_non_null(strstr(t, "changes with the sizes"));
    free(t);
    t = gsplit(isum, "isum", 8, 64, 64, "sm_count * 4", true, &ok);
    assert_false(ok);
    assert_non_null(strstr(t, "SM count"));
    free(t);
}

/* The candidate on SHOC's kernel compiles with nvcc for sm_90, with S = 8 and S = 32. */
static void shoc_candidate_compiles(void **state)
{
    (void)state;
    static const int ss[] = {8, 32};
    for (size_t i = 0; i < HK_ARRAY_LEN(ss); i++) {
        char *t = gsplit_ok(shoc, "reduce", ss[i], 64, 256);
        rw_result r = {.applicable = true, .text = t, .len = strlen(t)};
        char name[32];
        snprintf(name, sizeof name, "shoc_S%d", ss[i]);
        rwf_nvcc_compiles_with(&r, "template __global__ void reduce<float, 256>(const float *__restrict__, "
                                   "float *__restrict__, const unsigned int);\n",
                               "gsplit", name);
        free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emulated_against_the_original),
        cmocka_unit_test(refusals),
        cmocka_unit_test(shoc_candidate_compiles),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
