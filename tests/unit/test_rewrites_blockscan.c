/* block_scan run, not only compiled (issue 13, session 49): per-block scans in shared memory
 * (tests/data/rewrite_blockscan/scan.cu, our own) and their warp-shuffle rewrites run in the
 * block emulator (emu_block.h) on the same ragged inputs under three thread orders:
 * Hillis-Steele over two buffers of int (extern, unsigned indices), of unsigned (a sized
 * array, int indices, exclusive through a shifted load) and of size_t; the up-sweep/down-sweep
 * of floats with the block's total written (NB 64 threads, two warps), of ints over extern
 * memory, one warp, made inclusive after the scan, and of ints spelled as
 * tests/data/styles/misc.cu spells them (the stride set before the loads, thread 0 unbraced). Integers must be bit-identical; the float
 * scan within a relative tolerance of its sum (the additions are reassociated: the episode's
 * fp64 shadow judges them, docs/accuracy.md). Hillis-Steele also runs under a block of 48
 * threads, which takes the original loop (the rewrite's run-time test), and must match; so
 * must fused_blocks (F 2, 4) stacked on each rewrite, as the search stacks it. Each
 * rewrite broken on purpose must differ: the in-warp scan cut short, a warp's lane 0 given its
 * own value in its exclusive prefix, the total read from warp 0, the odd element's prefix
 * taken from the wrong element. The near misses refuse with construct and line; a spec whose
 * block is not whole warps (or not the sweeps' N) refuses; every emitted text (the probes'
 * too) compiles with nvcc -arch=sm_90 -cubin. Without the rewrite (rw_find NULL, or it not
 * applying) every test here fails.
 * Session 50 (tests/data/rewrite_blockscan/scan_fn.cu): value scans in __device__ functions
 * (zeros and values, then Kogge-Stone passes): unrolled under a template length called in a
 * loop over windows (int exact, float), a segmented loop with cg barriers reached through a
 * second function (segments 256 down to 1; a block of 96 with segments of 32, and of 64, which
 * runs the original), a read-first loop over blockDim.x of long long with the neighbour's
 * element read after the call; a per-thread array and even/odd threads' arrays keep the
 * original (the run-time test). Each check of the test and each part of the segmented warp
 * scan broken must differ; nine near misses refuse with construct and line; the texts and
 * the probes rd_scan_devfn_ks/_seg compile for sm_90. */
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

static char *src; /* tests/data/rewrite_blockscan/scan.cu */
static char *fsrc; /* tests/data/rewrite_blockscan/scan_fn.cu: scans in __device__ functions */

static int setup(void **state)
{
    (void)state;
    src = rwf_data_file("rewrite_blockscan/scan.cu");
    fsrc = rwf_data_file("rewrite_blockscan/scan_fn.cu");
    return src && fsrc ? rwf_setup("rewrites-blockscan") : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(src);
    free(fsrc);
    return rwf_teardown();
}

/* PAIR(T, what, nout, rtol, scale, launch): launch (NS:: the namespace, out a buffer of nout T
 * set to a sentinel) on the original and the rewrite under the three thread orders; the
 * outputs must match (rtol 0: bit for bit). */
static const char helpers[] =
    "#define PAIR(T, what, nout, rtol, scale, ...)                                   \\\n"
    "    for (int s = 0; s < 3; s++) {                                               \\\n"
    "        emu::schedule = s;                                                      \\\n"
    "        emu::buf<T> o_out(nout), c_out(nout);                                   \\\n"
    "        o_out.set(T(7));                                                        \\\n"
    "        c_out.set(T(7));                                                        \\\n"
    "        { namespace NS = orig; auto &out = o_out; __VA_ARGS__; }                \\\n"
    "        { namespace NS = cand; auto &out = c_out; __VA_ARGS__; }                \\\n"
    "        if (!emu::expect(what, o_out, c_out, rtol, scale))                      \\\n"
    "            printf(\"  (schedule %d)\\n\", s);                                   \\\n"
    "    }\n";

static emu_batch batch;

/* The drivers, by kernel: ragged sizes (a partial last block), several blocks. */
static const char drv_hs_int[] =
    "for (unsigned b : {32u, 64u, 96u, 256u, 48u}) {\n"
    "    const unsigned n = 1000, g = (n + b - 1) / b;\n"
    "    emu::buf<int> x(n);\n"
    "    x.fill((int)b);\n"
    "    PAIR(int, \"hs_int\", n, 0, 0, emu::launch(dim3(g), dim3(b), 2 * b * sizeof(int), [&] { NS::hs_int(x, out, n); }));\n"
    "}\n";
static const char drv_hs_uexcl[] =
    "for (unsigned b : {32u, 64u, 160u, 256u, 48u}) {\n"
    "    const int n = 777; const unsigned g = (n + b - 1) / b;\n"
    "    emu::buf<unsigned> x(n);\n"
    "    x.fill_mod((int)b, 4000000000ll);\n"
    "    PAIR(unsigned, \"hs_uexcl\", n, 0, 0, emu::launch(dim3(g), dim3(b), 0, [&] { NS::hs_uexcl(x, out, n); }));\n"
    "}\n";
static const char drv_hs_size[] =
    "for (unsigned b : {32u, 128u, 48u}) {\n"
    "    const int n = 500; const unsigned g = (n + b - 1) / b;\n"
    "    emu::buf<unsigned char> x(n);\n"
    "    x.fill_mod((int)b, 256);\n"
    "    PAIR(size_t, \"hs_size\", n, 0, 0, emu::launch(dim3(g), dim3(b), 2 * b * sizeof(size_t), [&] { NS::hs_size(x, out, n); }));\n"
    "}\n";
static const char drv_bl_float[] =
    "for (int n : {1000, 128, 77}) {\n"
    "    const unsigned g = (n + 127) / 128;\n"
    "    emu::buf<float> x(n);\n"
    "    x.fill(n);\n"
    "    PAIR(float, \"bl_float\", n + g, 1e-5, 128.0, emu::launch(dim3(g), dim3(64), 0, [&] { NS::bl_float(x, out, (float *)out + n, n); }));\n"
    "}\n";
static const char drv_bl_int[] =
    "for (int n : {1000, 64, 33}) {\n"
    "    const unsigned g = (n + 63) / 64;\n"
    "    emu::buf<int> x(n);\n"
    "    x.fill(n);\n"
    "    PAIR(int, \"bl_int_incl\", n, 0, 0, emu::launch(dim3(g), dim3(32), 64 * sizeof(int), [&] { NS::bl_int_incl(x, out, n); }));\n"
    "}\n";

static const char drv_bl_int_plain[] =
    "for (int n : {1000, 128, 77}) {\n"
    "    const unsigned g = (n + 127) / 128;\n"
    "    emu::buf<int> x(n);\n"
    "    x.fill(n);\n"
    "    PAIR(int, \"bl_int_plain\", n, 0, 0, emu::launch(dim3(g), dim3(64), 0, [&] { NS::bl_int_plain(x, out, n); }));\n"
    "}\n";

/* session 50: Hillis-Steele in one buffer */
static const char drv_hs1_int[] =
    "for (unsigned b : {32u, 64u, 256u, 48u}) {\n"
    "    const int n = 1000; const unsigned g = (n + b - 1) / b;\n"
    "    emu::buf<int> x(n);\n"
    "    x.fill((int)b);\n"
    "    PAIR(int, \"hs1_int\", n + g, 0, 0, emu::launch(dim3(g), dim3(b), b * sizeof(int), [&] { NS::hs1_int(x, out, (int *)out + n, n); }));\n"
    "}\n";
static const char drv_hs1_tiles[] =
    "for (unsigned b : {32u, 128u, 256u, 48u}) {\n"
    "    const int n = 3000; const unsigned g = (n + 4 * b - 1) / (4 * b);\n"
    "    emu::buf<unsigned> x(n);\n"
    "    x.fill_mod((int)b, 4000000000ll);\n"
    "    PAIR(unsigned, \"hs1_tiles\", n, 0, 0, emu::launch(dim3(g), dim3(b), 0, [&] { NS::hs1_tiles(x, out, n); }));\n"
    "}\n";
static const char drv_hs1_float[] =
    "for (unsigned b : {64u, 256u}) {\n"
    "    const int n = 1000; const unsigned g = (n + b - 1) / b;\n"
    "    emu::buf<float> x(n);\n"
    "    x.fill((int)b);\n"
    "    PAIR(float, \"hs1_float\", n, 1e-5, 256.0, emu::launch(dim3(g), dim3(b), b * sizeof(float), [&] { NS::hs1_float(x, out, n); }));\n"
    "}\n";

/* review (session 50): in one buffer, the elements loaded by other threads, no barrier
 * before the loop (its first pass's leading barrier orders them) */
static const char drv_hs1_mirror[] =
    "for (unsigned b : {32u, 64u, 256u}) {\n"
    "    const int n = 1000; const unsigned g = (n + b - 1) / b;\n"
    "    emu::buf<int> x(n);\n"
    "    x.fill((int)b);\n"
    "    PAIR(int, \"hs1_mirror\", n, 0, 0, emu::launch(dim3(g), dim3(b), b * sizeof(int), [&] { NS::hs1_mirror(x, out, n); }));\n"
    "}\n";

/* session 50: maximum and minimum over two buffers (integers) */
static const char drv_hs_max[] =
    "for (unsigned b : {32u, 64u, 256u, 48u}) {\n"
    "    const unsigned n = 1000, g = (n + b - 1) / b;\n"
    "    emu::buf<int> x(n);\n"
    "    x.fill((int)b);\n"
    "    PAIR(int, \"hs_max\", n, 0, 0, emu::launch(dim3(g), dim3(b), 2 * b * sizeof(int), [&] { NS::hs_max(x, out, n); }));\n"
    "}\n";
static const char drv_hs_umin[] =
    "for (unsigned b : {32u, 128u, 96u}) {\n"
    "    const unsigned n = 777, g = (n + b - 1) / b;\n"
    "    emu::buf<unsigned> x(n);\n"
    "    x.fill_mod((int)b, 4000000000ll);\n"
    "    PAIR(unsigned, \"hs_umin\", n, 0, 0, emu::launch(dim3(g), dim3(b), 2 * b * sizeof(unsigned), [&] { NS::hs_umin(x, out, n); }));\n"
    "}\n";

static const struct {
    const char *kernel, *driver;
} runs[] = {
    {"hs_int", drv_hs_int},     {"hs_uexcl", drv_hs_uexcl},   {"hs_size", drv_hs_size},
    {"bl_float", drv_bl_float}, {"bl_int_incl", drv_bl_int}, {"bl_int_plain", drv_bl_int_plain},
    {"hs1_int", drv_hs1_int},   {"hs1_tiles", drv_hs1_tiles}, {"hs1_float", drv_hs1_float},
    {"hs_max", drv_hs_max},     {"hs_umin", drv_hs_umin},     {"hs1_mirror", drv_hs1_mirror},
};

static void scan_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    for (size_t i = 0; i < HK_ARRAY_LEN(runs); i++) {
        char *cand = emu_rewrite(src, runs[i].kernel, "block_scan", NULL);
        emu_batch_add_pair(&batch, runs[i].kernel, src, cand, helpers, runs[i].driver, EMU_OK);
        /* fused_blocks stacked on it (the search's "A+B": F blocks one after another in a
         * block, each copy with its own hk_wsum), F 2 and 4, grids not multiples of F;
         * hs1_tiles loads nothing before its loop over tiles (fused_blocks refuses it) */
        for (int F = 2; F <= 4 && strcmp(runs[i].kernel, "hs1_tiles"); F += 2) {
            int p[RW_MAX_PARAMS] = {F};
            char *fused = emu_rewrite(cand, runs[i].kernel, "fused_blocks", p);
            char tag[96];
            snprintf(tag, sizeof tag, "%s_fused%d", runs[i].kernel, F);
            emu_batch_add_pair(&batch, tag, src, fused, helpers, runs[i].driver, EMU_OK);
            free(fused);
        }
        free(cand);
    }
    emu_batch_run(&batch);
}

/* Broken on purpose, each must differ from the original. */
static void scan_broken_fail(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *tag, *kernel, *driver, *from, *to;
    } cases[] = {
        /* the in-warp scan one step short: lanes 16..31 miss lanes 0..15 */
        {"hs_short", "hs_int", drv_hs_int, "hk_d < 32u", "hk_d < 16u"},
        {"hs_size_short", "hs_size", drv_hs_size, "hk_d < 32u", "hk_d < 16u"},
        /* the warps' prefix not added */
        {"hs_no_prefix", "hs_uexcl", drv_hs_uexcl, "hk_x = hk_p + hk_x;", "hk_x = hk_x;"},
        /* lane 0 of warp 1 adds its own inclusive value to the prefix */
        {"bl_lane0", "bl_float", drv_bl_float, "hk_e = hk_lane == 0 ? hk_p : hk_p + hk_e;", "hk_e = hk_p + hk_e;"},
        /* the block's total taken from warp 0 */
        {"bl_total", "bl_float", drv_bl_float, "hk_wsum[hk_nwarps - 1]", "hk_wsum[0]"},
        /* the odd element's prefix from the wrong element */
        {"bl_odd", "bl_int_incl", drv_bl_int, "hk_e + hk_a0;", "hk_e + hk_a1;"},
        /* in one buffer: no barrier after the store (thread 0 reads the last element) */
        {"hs1_barrier", "hs1_int", drv_hs1_int, "h1sum[t] = hk_x;\n        __syncthreads();", "h1sum[t] = hk_x;"},
        /* in one buffer: the warps' prefix not added (tiles: the carry too) */
        {"hs1_prefix", "hs1_tiles", drv_hs1_tiles, "hk_x = hk_p + hk_x;", "hk_x = hk_x;"},
        /* a maximum: the warps' prefix not taken; a minimum: the in-warp step a sum */
        {"hs_max_prefix", "hs_max", drv_hs_max, "hk_x = max(hk_p, hk_x);", "hk_x = hk_x;"},
        {"hs_umin_sum", "hs_umin", drv_hs_umin, "hk_x = min(hk_y, hk_x);", "hk_x = hk_y + hk_x;"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        char *cand = emu_rewrite(src, cases[i].kernel, "block_scan", NULL);
        char *broken = emu_replaced(cand, cases[i].from, cases[i].to);
        emu_batch_add_pair(&batch, cases[i].tag, src, broken, helpers, cases[i].driver, EMU_DIFFERS);
        free(broken);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* What the emitted text says and keeps. */
static void scan_text(void **state)
{
    (void)state;
    fixture fx;
    load_text(src, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "hs_int")};
    rw_result r;
    rw_refusal w;
    assert_int_equal(rw_apply_named("block_scan", &ctx, NULL, &r, &w), HK_OK);
    assert_true(r.applicable);
    assert_true(r.keeps_launch);
    assert_non_null(strstr(r.description, "integers bit-exact"));
    assert_non_null(strstr(r.text, "if (__syncthreads_count(blockDim.y == 1 && blockDim.z == 1 && (blockDim.x & 31u) == 0) == "
                                    "(int)blockDim.x) {"));
    assert_non_null(strstr(r.text, "(int)__shfl_up_sync(0xffffffffu, (int)hk_x, hk_d, 32);"));
    assert_non_null(strstr(r.text, "sh[pout * blockDim.x + t] = hk_x;"));
    assert_non_null(strstr(r.text, "} else for (unsigned off = 1; off < blockDim.x; off <<= 1) {"));
    rw_result_free(&r);
    ctx.kernel = kernel(&fx, "hs_size");
    assert_int_equal(rw_apply_named("block_scan", &ctx, NULL, &r, &w), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "(size_t)__shfl_up_sync(0xffffffffu, (unsigned long long)hk_x, hk_d, 32);"));
    rw_result_free(&r);
    ctx.kernel = kernel(&fx, "bl_float");
    assert_int_equal(rw_apply_named("block_scan", &ctx, NULL, &r, &w), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.description, "fp64 shadow"));
    assert_non_null(strstr(r.text, "if (__syncthreads_count(blockDim.y == 1 && blockDim.z == 1 && blockDim.x == 64u) == "
                                    "(int)blockDim.x) {"));
    assert_non_null(strstr(r.text, "tmp[127] = hk_wsum[hk_nwarps - 1];"));
    assert_non_null(strstr(r.text, "block_sums[blockIdx.x] = tmp[2 * NB - 1];"));
    assert_null(strstr(r.text, " - hk_")); /* no subtraction: the exclusive value is shifted */
    rw_result_free(&r);
    ctx.kernel = kernel(&fx, "hs1_tiles");
    assert_int_equal(rw_apply_named("block_scan", &ctx, NULL, &r, &w), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.description, "in-place Hillis-Steele"));
    assert_non_null(strstr(r.text, "unsigned hk_x = tile[t];"));
    /* the whole block votes (session 50): a thread that returned before the scan does not,
     * so a partial block keeps the original instead of full-mask shuffles with lanes gone */
    assert_non_null(strstr(r.text, "if (__syncthreads_count(blockDim.y == 1 && blockDim.z == 1 && (blockDim.x & 31u) == 0) == "
                                    "(int)blockDim.x) {"));
    assert_non_null(strstr(r.text, "tile[t] = hk_x;\n        __syncthreads();\n    } else for (unsigned off = 1;"));
    rw_result_free(&r);
    ctx.kernel = kernel(&fx, "hs_umin");
    assert_int_equal(rw_apply_named("block_scan", &ctx, NULL, &r, &w), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.description, "Hillis-Steele minimum"));
    assert_non_null(strstr(r.text, "hk_x = min(hk_y, hk_x);"));
    assert_non_null(strstr(r.text, "hk_w = min(hk_y, hk_w);"));
    assert_non_null(strstr(r.text, "hk_x = min(hk_p, hk_x);"));
    rw_result_free(&r);
    unload(&fx);
}

static void scan_refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"hs_cond", "loop", 186, "`&&` at line 189"},
        {"hs_reads_pin", "read", 218, "`sh[pin * blockDim.x + t]`"},
        {"hs_alias", "expression", 225, "sh is used other than by a subscript"},
        {"hs_reversed", "loop", 253, "not a local set once to threadIdx.x"},
        {"hs_short", "__shared__ array", 269, "hs holds short"},
        {"bl_one", "statement", 307, "`tmp[2 * NB - 1] = 1.0f;`"},
        {"bl_sizes", "loop", 334, "the down-sweep runs to 4 * NB"},
        {"bl_offset_after", "variable", 370, "offset, the sweeps' stride"},
        {"hs_looped", "loop", 406, "runs inside this loop"},
        {"hs_in_call", "call", 444, "part is handed to scan_in()"},
        {"hs_flag_reset", "statement", 467, "pout, the scan's buffer flag, is written after the scan"},
        {"bl_stride_mid", "statement", 492, "(`offset = NB;`)"},
        {"bl_stride_cond", "variable", 557, "offset, the sweeps' stride"},
        /* rev49: the original truncates each partial sum the down-sweep moves */
        {"bl_temp_int", "declaration", 616, "the down-sweep's temporary a is int, not float"},
        /* session 50: the in-place passes' temporary an int over floats */
        {"hs1_trunc", "declaration", 706, "the passes' temporary v is int, not float"},
        /* session 50: a maximum of floats */
        {"hs_fmax", "loop", 748, "take max of float"},
    };
    rwf_expect_refusals(src, "block_scan", cases, sizeof cases / sizeof cases[0]);
    /* a max the file defines (a macro here) is not known to be CUDA's: refused (a line down) */
    static const char def[] = "#define max(a, b) ((a) < (b) ? (a) : (b))\n";
    char *defined = malloc(strlen(def) + strlen(src) + 1);
    assert_non_null(defined);
    strcpy(defined, def);
    strcat(defined, src);
    static const rwf_refusal own[] = {{"hs_max", "loop", 165, "take max of int"}};
    rwf_expect_refusals(defined, "block_scan", own, 1);
    free(defined);
}

/* A spec's block that is not whole warps (Hillis-Steele), or not the sweeps' N: refused. */
static void scan_spec_block(void **state)
{
    (void)state;
    fixture fx;
    load_text(src, &fx);
    static const struct {
        const char *kernel, *block;
        bool applies;
    } cases[] = {
        {"hs_int", "256", true},   {"hs_int", "48", false},   {"hs_int", "[64, 2, 1]", false},
        {"bl_float", "64", true}, {"bl_float", "128", false},
    };
    char srcpath[700];
    snprintf(srcpath, sizeof srcpath, "%s/scan.cu", tmpdir);
    rwf_write_file(srcpath, src);
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        char text[1200], path[700];
        snprintf(path, sizeof path, "%s/scan.bench.json", tmpdir);
        snprintf(text, sizeof text,
                 "{\"name\": \"%s\", \"kernel\": \"%s\", \"source\": \"scan.cu\",\n"
                 " \"sizes\": [{\"n\": 4096}, {\"n\": 100003}],\n"
                 " \"args\": [{\"name\": \"in\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
                 "  {\"name\": \"out\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"n\"},\n"
                 "  {\"name\": \"n\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"}],\n"
                 " \"launch\": {\"grid\": \"64\", \"block\": %s, \"shmem\": 4096}}\n",
                 cases[i].kernel, cases[i].kernel, cases[i].block);
        spec *sp = NULL;
        spec_diags d = {0};
        int rc = spec_parse(text, strlen(text), path, &sp, &d);
        for (size_t j = 0; j < d.n; j++)
            print_message("spec: %s\n", d.items[j].message);
        spec_diags_free(&d);
        assert_int_equal(rc, HK_OK);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel), .spec = sp};
        rw_refusal why;
        assert_int_equal(rw_applies(rw_find("block_scan"), &ctx, NULL, &why), HK_OK);
        if (cases[i].applies)
            assert_int_equal(why.line, 0);
        else {
            assert_string_equal(why.construct, "loop");
            assert_non_null(strstr(why.reason, "the spec's block is"));
        }
        spec_free(sp);
    }
    unload(&fx);
}

/* Every emitted text compiles for sm_90, the probes' too (queued; rwf_nvcc_queued compiles). */
static void scan_nvcc(void **state)
{
    (void)state;
    for (size_t i = 0; i < HK_ARRAY_LEN(runs); i++) {
        char *cand = emu_rewrite(src, runs[i].kernel, "block_scan", NULL);
        char tag[64];
        snprintf(tag, sizeof tag, "scan_%s", runs[i].kernel);
        rwf_nvcc_compiles(cand, tag);
        free(cand);
    }
    /* our styles kernel (tests/data/styles/misc.cu), the spelling bl_int_plain emulates */
    char *misc = rwf_data_file("styles/misc.cu");
    char *mc = emu_rewrite(misc, "scan_bank_conflicts", "block_scan", NULL);
    rwf_nvcc_compiles(mc, "styles_scan_bank_conflicts");
    free(mc);
    free(misc);
    static const char *const probes[] = {"rd_scan_hs", "rd_scan_blelloch"};
    for (size_t i = 0; i < HK_ARRAY_LEN(probes); i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "probes/%s.cu", probes[i]);
        char *p = rwf_data_file(rel);
        char *cand = emu_rewrite(p, probes[i], "block_scan", NULL);
        rwf_nvcc_compiles(cand, probes[i]);
        free(cand);
        free(p);
    }
}


/* ---- value scans in __device__ functions (session 50, scan_fn.cu) ---- */

/* fn_windows: ks_exclusive's unrolled passes (template T, BS), called in a loop over windows;
 * int exact, float within 1e-5 of the window's scale */
static const char drv_fn_windows[] =
    "{\n"
    "    const int n = 3001;\n"
    "    emu::buf<int> x(n);\n"
    "    x.fill(3);\n"
    "    PAIR(int, \"fn_windows<int,128>\", n, 0, 0, emu::launch(dim3(5), dim3(128), 2 * 128 * sizeof(int), [&] { NS::fn_windows<int, 128>(x, out, n); }));\n"
    "    PAIR(int, \"fn_windows<int,256>\", n, 0, 0, emu::launch(dim3(3), dim3(256), 2 * 256 * sizeof(int), [&] { NS::fn_windows<int, 256>(x, out, n); }));\n"
    "    PAIR(int, \"fn_windows<int,32>\", n, 0, 0, emu::launch(dim3(7), dim3(32), 2 * 32 * sizeof(int), [&] { NS::fn_windows<int, 32>(x, out, n); }));\n"
    "    emu::buf<float> xf(n);\n"
    "    xf.fill(4);\n"
    "    PAIR(float, \"fn_windows<float,128>\", n, 1e-5, 3001.0, emu::launch(dim3(5), dim3(128), 2 * 128 * sizeof(float), [&] { NS::fn_windows<float, 128>(xf, out, n); }));\n"
    "}\n";
/* fn_segments: seg_inclusive's loop with cg barriers through seg_exclusive; segments of 256
 * down to 1 threads; a block of 96 with segments of 32 (three warps), and of 64 (not
 * dividing 96: the original passes) */
static const char drv_fn_segments[] =
    "{\n"
    "    const unsigned n = 1000;\n"
    "    emu::buf<unsigned> x(n);\n"
    "    x.fill_mod(9, 4000000000ll);\n"
    "    const unsigned lb[][2] = {{256, 256}, {64, 256}, {32, 256}, {8, 256}, {2, 256}, {1, 256}, {32, 96}, {64, 96}};\n"
    "    for (auto &c : lb) {\n"
    "        const unsigned len = c[0], b = c[1], g = (n + b - 1) / b;\n"
    "        PAIR(unsigned, \"fn_segments\", n, 0, 0, emu::launch(dim3(g), dim3(b), 0, [&] { NS::fn_segments(x, out, len, n); }));\n"
    "    }\n"
    "}\n";
/* fn_ll: ll_scan's read-first loop over blockDim.x, the neighbour's element read after the
 * call; blocks of 32, 64 and 256, and 96 (not a power of two: the original passes) */
static const char drv_fn_ll[] =
    "typedef long long ll_t; /* T(7) in PAIR */\n"
    "for (unsigned b : {32u, 64u, 256u, 96u}) {\n"
    "    const int n = 1000; const unsigned g = (n + b - 1) / b;\n"
    "    emu::buf<int> x(n);\n"
    "    x.fill((int)b);\n"
    "    PAIR(ll_t, \"fn_ll\", n, 0, 0, emu::launch(dim3(g), dim3(b), 2 * b * sizeof(long long), [&] { NS::fn_ll(x, out, n); }));\n"
    "}\n";
/* fn_local: ll_scan over each thread's own array; fn_split: even and odd threads' arrays */
static const char drv_fn_local[] =
    "{\n"
    "    typedef long long ll_t;\n"
    "    const int n = 300;\n"
    "    emu::buf<int> x(n);\n"
    "    x.fill(11);\n"
    "    PAIR(ll_t, \"fn_local\", n, 0, 0, emu::launch(dim3(5), dim3(64), 0, [&] { NS::fn_local(x, out, n); }));\n"
    "}\n";
static const char drv_fn_split[] =
    "typedef long long ll_t;\n"
    "for (unsigned b : {64u, 256u}) {\n"
    "    const int n = 700; const unsigned g = (n + b - 1) / b;\n"
    "    emu::buf<int> x(n);\n"
    "    x.fill(12);\n"
    "    PAIR(ll_t, \"fn_split\", n, 0, 0, emu::launch(dim3(g), dim3(b), 0, [&] { NS::fn_split(x, out, n); }));\n"
    "}\n";

static const struct {
    const char *kernel, *driver;
} fn_runs[] = {
    {"fn_windows", drv_fn_windows}, {"fn_segments", drv_fn_segments}, {"fn_ll", drv_fn_ll},
    {"fn_local", drv_fn_local},     {"fn_split", drv_fn_split},
};

static void fn_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    for (size_t i = 0; i < HK_ARRAY_LEN(fn_runs); i++) {
        char *cand = emu_rewrite(fsrc, fn_runs[i].kernel, "block_scan", NULL);
        emu_batch_add_pair(&batch, fn_runs[i].kernel, fsrc, cand, helpers, fn_runs[i].driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* Each check of the run-time test, and each part of the segmented warp scan, taken out or
 * broken: the program must differ. */
static void fn_broken_fail(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *tag, *kernel, *driver, *from, *to, *from2, *to2;
    } cases[] = {
        /* not the same pointer for every thread: even and odd threads' arrays scanned as one */
        {"fn_split_ptr", "fn_split", drv_fn_split, "hk_sp == (const volatile void *)s &&", "", NULL, NULL},
        /* each thread's own array (in the emulator the pointers differ too: both checks out) */
        {"fn_local_shared", "fn_local", drv_fn_local, "__isShared((const void *)s) &&", "",
         "hk_sp == (const volatile void *)s &&", ""},
        /* segments shorter than a warp scanned across them */
        {"fn_seg_lane", "fn_segments", drv_fn_segments, "(hk_lane & (hk_L - 1u)) >= hk_d", "hk_lane >= hk_d", NULL,
         NULL},
        /* a warp adding the totals of the segment below it */
        {"fn_seg_warp", "fn_segments", drv_fn_segments, "(hk_warp & (hk_wps - 1u)) != 0u", "hk_warp != 0u", NULL,
         NULL},
        /* the warps' totals scanned across segments */
        {"fn_seg_wsum", "fn_segments", drv_fn_segments, "(hk_lane & (hk_wps - 1u)) >= hk_d", "hk_lane >= hk_d", NULL,
         NULL},
        /* the array not left as the passes leave it (fn_ll reads its neighbour's element) */
        {"fn_ll_store", "fn_ll", drv_fn_ll, "s[i] = hk_x;", "", NULL, NULL},
        /* no barrier after the store: the neighbour's element read before it is written */
        {"fn_ll_barrier", "fn_ll", drv_fn_ll, "s[i] = hk_x;\n            __syncthreads();", "s[i] = hk_x;", NULL,
         NULL},
        /* the in-warp scan a step short (template T, no casts) */
        {"fn_windows_shfl", "fn_windows", drv_fn_windows, "hk_d < 32u; hk_d <<= 1) {\n                const T hk_y = __shfl_up_sync(0xffffffffu, hk_x",
         "hk_d < 16u; hk_d <<= 1) {\n                const T hk_y = __shfl_up_sync(0xffffffffu, hk_x", NULL, NULL},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        char *cand = emu_rewrite(fsrc, cases[i].kernel, "block_scan", NULL);
        char *broken = emu_replaced(cand, cases[i].from, cases[i].to);
        if (cases[i].from2) {
            char *b2 = emu_replaced(broken, cases[i].from2, cases[i].to2);
            free(broken);
            broken = b2;
        }
        emu_batch_add_pair(&batch, cases[i].tag, fsrc, broken, helpers, cases[i].driver, EMU_DIFFERS);
        free(broken);
        free(cand);
    }
    emu_batch_run(&batch);
}

static void fn_text(void **state)
{
    (void)state;
    fixture fx;
    load_text(fsrc, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "fn_windows")};
    rw_result r;
    rw_refusal w;
    assert_int_equal(rw_apply_named("block_scan", &ctx, NULL, &r, &w), HK_OK);
    assert_true(r.applicable);
    assert_true(r.keeps_launch);
    assert_non_null(strstr(r.description, "ks_exclusive()"));
    assert_non_null(strstr(r.description, "fp64 shadow")); /* a template T: not known exact */
    /* the whole block decides at once; the unrolled passes' range (bare up to 16, last 128) */
    assert_non_null(strstr(r.text, "__syncthreads_count(blockDim.y == 1 && blockDim.z == 1"));
    assert_non_null(strstr(r.text, "hk_sl == (long long)(BS)) == (int)blockDim.x) {"));
    assert_non_null(strstr(r.text, "blockDim.x == (unsigned int)(BS) && (BS) > 16 && (BS) <= 256"));
    assert_non_null(strstr(r.text, "__isShared((const void *)s) && hk_sp == (const volatile void *)s"));
    assert_non_null(strstr(r.text, "const T hk_y = __shfl_up_sync(0xffffffffu, hk_x, hk_d, 32);"));
    /* what follows the passes is kept: the exclusive value read from the array */
    assert_non_null(strstr(r.text, "return s[idx - 1];"));
    assert_non_null(strstr(r.text, "} else {\n            t = s[idx - 1];"));
    rw_result_free(&r);
    ctx.kernel = kernel(&fx, "fn_segments");
    assert_int_equal(rw_apply_named("block_scan", &ctx, NULL, &r, &w), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.description, "seg_inclusive()"));
    assert_non_null(strstr(r.description, "integers bit-exact"));
    assert_non_null(strstr(r.text, "blockDim.x % (unsigned int)(len) == 0"));
    assert_non_null(strstr(r.text, "(unsigned)__shfl_up_sync(0xffffffffu, (unsigned int)hk_x, hk_d, 32)"));
    rw_result_free(&r);
    ctx.kernel = kernel(&fx, "fn_ll");
    assert_int_equal(rw_apply_named("block_scan", &ctx, NULL, &r, &w), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "(long long)__shfl_up_sync(0xffffffffu, (long long)hk_x, hk_d, 32)"));
    rw_result_free(&r);
    /* for AMD/DCU: refused (the test's __isShared is read for CUDA only) */
    ctx.hip = true;
    assert_int_equal(rw_apply_named("block_scan", &ctx, NULL, &r, &w), HK_OK);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, "for CUDA only"));
    rw_result_free(&r);
    unload(&fx);
}

static void fn_refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"r_max", "statement", 162, "`=` at line 165"},
        {"r_temp", "declaration", 186, "the passes' temporary t is int, not float"},
        {"r_after", "variable", 213, "temporary t is read after them in last_read()"},
        {"r_len", "statement", 235, "len, the scan's segment length in len_written()"},
        {"r_racy", "statement", 253, "racy() lays out a scan's zeros and values"},
        {"r_short", "statement", 269, "s holds short"},
        {"r_nobar", "statement", 297, "no_bar() lays out a scan's zeros and values"},
        {"r_else", "statement", 317, "`else` at line 322"},
        {"r_hostdev", "call", 358, "handed to hd_scan()"},
    };
    rwf_expect_refusals(fsrc, "block_scan", cases, sizeof cases / sizeof cases[0]);
}

/* The texts compile for sm_90 with the templates instantiated; the probes' too. */
static void fn_nvcc(void **state)
{
    (void)state;
    static const char inst[] = "\ntemplate __global__ void fn_windows<int, 128>(const int *, int *, int);\n"
                               "template __global__ void fn_windows<float, 256>(const float *, float *, int);\n"
                               "template __global__ void fn_windows<double, 64>(const double *, double *, int);\n";
    for (size_t i = 0; i < HK_ARRAY_LEN(fn_runs); i++) {
        char *cand = emu_rewrite(fsrc, fn_runs[i].kernel, "block_scan", NULL);
        char *full = malloc(strlen(cand) + sizeof inst);
        assert_non_null(full);
        strcpy(full, cand);
        strcat(full, inst);
        char tag[64];
        snprintf(tag, sizeof tag, "scanfn_%s", fn_runs[i].kernel);
        rwf_nvcc_compiles(full, tag);
        free(full);
        free(cand);
    }
    static const char *const probes[] = {"rd_scan_devfn_ks", "rd_scan_devfn_seg"};
    for (size_t i = 0; i < HK_ARRAY_LEN(probes); i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "probes/%s.cu", probes[i]);
        char *p = rwf_data_file(rel);
        char *cand = emu_rewrite(p, probes[i], "block_scan", NULL);
        rwf_nvcc_compiles(cand, probes[i]);
        free(cand);
        free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scan_text),
        cmocka_unit_test(scan_refusals),
        cmocka_unit_test(scan_spec_block),
        cmocka_unit_test(scan_run),
        cmocka_unit_test(scan_broken_fail),
        cmocka_unit_test(scan_nvcc),
        cmocka_unit_test(fn_text),
        cmocka_unit_test(fn_refusals),
        cmocka_unit_test(fn_run),
        cmocka_unit_test(fn_broken_fail),
        cmocka_unit_test(fn_nvcc),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
