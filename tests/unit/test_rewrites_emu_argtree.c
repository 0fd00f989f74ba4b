/* block_reduce's pair trees (rw_block_tree on a (value, index) tree, issue 13) run, not
 * only compiled: three argmax/argmin trees -- a furthest-point pick's spelling (a
 * __device__ combine, a template block size, an unrolled loop from 1024, the tree inside
 * the loop over picks, each pick feeding the next; with a barrier after the index is read,
 * which mmcv's kernel lacks: there thread 0 may store the next pick's slot 0 before a slow
 * thread read this one, a race the emulator's shuffled order shows in the original and
 * the rewrite alike, which the rewrite neither adds nor removes), an argmin of doubles by inline selects
 * whose ties take the upper slot, a guarded copy whose ties keep the lower one -- rewritten
 * one after the other in one source, then run in the block emulator (emu_block.h) against
 * the original on inputs with few distinct values (most slots tie), for blocks of 32 to
 * 1024 threads under three thread orders: every index must be the tree's, exactly. The
 * same rewrite reduced in warp order instead of the tree's (each warp its own 32 slots,
 * as a plain shuffle reduction does) must differ: the check sees a wrong tie rule (with
 * these inputs it picks another index in each of the three kernels from 64 threads on;
 * at 32 the two orders are one). Each test's programs are built in one g++ run and each run
 * on its own (emu_batch.h). */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_pattern.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rw_fixture.h"
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-emu-argtree");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char src[] =
    "__device__ void keep_larger(float *val, int *arg, int lo, int hi) {\n"
    "    const float a = val[lo], b = val[hi];\n"
    "    const int ia = arg[lo], ib = arg[hi];\n"
    "    val[lo] = max(a, b);\n"
    "    arg[lo] = b > a ? ib : ia;\n"
    "}\n"
    "template <unsigned int BS>\n"
    "__global__ void pick(int n, int rounds, const float *__restrict__ d, int *__restrict__ chosen)\n"
    "{\n"
    "    if (rounds <= 0) return;\n"
    "    __shared__ float val[BS];\n"
    "    __shared__ int arg[BS];\n"
    "    const int me = threadIdx.x;\n"
    "    int last = 0;\n"
    "    for (int r = 0; r < rounds; r++) {\n"
    "        float top = -1.0f;\n"
    "        int at = 0;\n"
    "        for (int q = me; q < n; q += BS) {\n"
    "            const float x = d[(q + last) % n];\n"
    "            at = x > top ? q : at;\n"
    "            top = x > top ? x : top;\n"
    "        }\n"
    "        val[me] = top;\n"
    "        arg[me] = at;\n"
    "        __syncthreads();\n"
    "#pragma unroll\n"
    "        for (int w = 1024; w >= 2; w >>= 1) {\n"
    "            const int half = w / 2;\n"
    "            if (BS >= w && me < half) {\n"
    "                keep_larger(val, arg, me, me + half);\n"
    "            }\n"
    "            __syncthreads();\n"
    "        }\n"
    "        last = arg[0];\n"
    "        if (me == 0) chosen[r] = last;\n"
    "        __syncthreads();   /* every thread has read arg[0] before the next store */\n"
    "    }\n"
    "}\n"
    "/* the tree over raw values, NaN among them: max() drops a NaN operand (fmaxf), the index\n"
    " * stays the lower slot's unless the upper value is strictly greater (never for a NaN) */\n"
    "template <unsigned int BS>\n"
    "__global__ void pickraw(int n, int rounds, const float *__restrict__ d, int *__restrict__ chosen)\n"
    "{\n"
    "    __shared__ float rv[BS];\n"
    "    __shared__ int ri[BS];\n"
    "    const int me = threadIdx.x;\n"
    "    int last = 0;\n"
    "    for (int r = 0; r < rounds; r++) {\n"
    "        rv[me] = d[(me + last) % n];\n"
    "        ri[me] = (me + last) % n;\n"
    "        __syncthreads();\n"
    "#pragma unroll\n"
    "        for (int w = 1024; w >= 2; w >>= 1) {\n"
    "            const int half = w / 2;\n"
    "            if (BS >= w && me < half) {\n"
    "                keep_larger(rv, ri, me, me + half);\n"
    "            }\n"
    "            __syncthreads();\n"
    "        }\n"
    "        last = ri[0];\n"
    "        if (me == 0) {\n"
    "            chosen[2 * r] = last;\n"
    "            chosen[2 * r + 1] = __float_as_int(rv[0]);\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "}\n"
    "__global__ void nearest(const double *dist, long long *where, int n)\n"
    "{\n"
    "    extern __shared__ double sv[];\n"
    "    __shared__ long long si[1024];\n"
    "    unsigned t = threadIdx.x;\n"
    "    unsigned g = blockIdx.x * blockDim.x + t;\n"
    "    sv[t] = g < n ? dist[g] : 1e300;\n"
    "    si[t] = g;\n"
    "    __syncthreads();\n"
    "    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {\n"
    "        if (t < s) {\n"
    "            double a = sv[t], b = sv[t + s];\n"
    "            long long ia = si[t], ib = si[t + s];\n"
    "            sv[t] = b <= a ? b : a;\n"
    "            si[t] = b <= a ? ib : ia;\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0) where[blockIdx.x] = si[0];\n"
    "}\n"
    "__global__ void amax(const float *x, int *where, int n)\n"
    "{\n"
    "    __shared__ float best[256];\n"
    "    __shared__ int at[256];\n"
    "    unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;\n"
    "    best[t] = g < n ? x[g] : -1.0f;\n"
    "    at[t] = g;\n"
    "    __syncthreads();\n"
    "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
    "        if (t < h && best[t + h] > best[t]) {\n"
    "            best[t] = best[t + h];\n"
    "            at[t] = at[t + h];\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0) where[blockIdx.x] = at[0];\n"
    "}\n";

/* C++ before main(): PAIR as in test_rewrites_emu_tree.c (T, what, nout, rtol, scale,
 * launch), and the pick at one template block size. */
static const char helpers[] =
    "typedef long long i64;\n"
    "#define PAIR(T, what, nout, rtol, scale, ...)                                   \\\n"
    "    for (int s = 0; s < 3; s++) {                                               \\\n"
    "        emu::schedule = s;                                                      \\\n"
    "        emu::buf<T> o_out(nout), c_out(nout);                                   \\\n"
    "        o_out.set(T(0));                                                        \\\n"
    "        c_out.set(T(0));                                                        \\\n"
    "        { namespace NS = orig; auto &out = o_out; __VA_ARGS__; }                \\\n"
    "        { namespace NS = cand; auto &out = c_out; __VA_ARGS__; }                \\\n"
    "        if (!emu::expect(what, o_out, c_out, rtol, scale))                      \\\n"
    "            printf(\"  (schedule %d, block %u)\\n\", s, (unsigned)bs);            \\\n"
    "    }\n"
    "/* values 0 .. k-1 by a hash of the place (not periodic in it, as i % k would be, whose\n"
    " * ties the warp order and the tree's may resolve alike): most slots tie */\n"
    "template <class T> static void few(emu::buf<T> &b, int seed, unsigned k)\n"
    "{\n"
    "    for (size_t i = 0; i < b.size(); i++)\n"
    "        b[i] = (T)((((unsigned)i + (unsigned)seed * 977u) * 2654435761u >> 16) % k);\n"
    "}\n"
    "template <unsigned int BS> static void run_pick(int seed)\n"
    "{\n"
    "    const unsigned bs = BS;\n"
    "    const int n = (int)BS + (int)BS / 2 + 3, rounds = 3;\n"
    "    emu::buf<float> d(n);\n"
    "    few(d, seed, 8);   /* about one slot in eight holds the maximum */\n"
    "    PAIR(int, \"pick\", rounds, 0, 0, emu::launch(dim3(1), dim3(BS), 0, [&] { NS::pick<BS>(n, rounds, d, out); }));\n"
    "}\n"
    "/* pickraw at one template block size, 4 rounds (each round's start is the last pick):\n"
    " * NaN in about one slot in four with ties among the rest; NaN everywhere but a few tied\n"
    " * slots; all NaN; all equal */\n"
    "template <unsigned int BS> static void run_raw(int seed)\n"
    "{\n"
    "    const unsigned bs = BS;\n"
    "    const int n = (int)BS * 2 + 5, rounds = 4;\n"
    "    const float nan = __int_as_float(0x7fc00000);\n"
    "    emu::buf<float> d(n);\n"
    "    for (int form = 0; form < 4; form++) {\n"
    "        few(d, seed + form, 8);\n"
    "        for (int i = 0; i < n; i++) {\n"
    "            const unsigned h = ((unsigned)i * 40503u + (unsigned)seed * 131u) >> 3;\n"
    "            if ((form == 0 && h % 4u == 0) || (form == 1 && d[i] < 6.0f) || form == 2)\n"
    "                d[i] = nan;\n"
    "            if (form == 3)\n"
    "                d[i] = 2.5f;\n"
    "        }\n"
    "        PAIR(int, \"pickraw\", 2 * rounds, 0, 0,\n"
    "             emu::launch(dim3(1), dim3(BS), 0, [&] { NS::pickraw<BS>(n, rounds, d, out); }));\n"
    "    }\n"
    "}\n"
    "/* signed values with ties, -0.0 and +0.0 among them (equal under >: they tie by slot) */\n"
    "static void signed_few(emu::buf<float> &b, int seed)\n"
    "{\n"
    "    static const float v[5] = {-1.5f, -0.0f, 0.0f, -3.0f, -0.25f};\n"
    "    for (size_t i = 0; i < b.size(); i++)\n"
    "        b[i] = v[(((unsigned)i + (unsigned)seed * 977u) * 2654435761u >> 16) % 5u];\n"
    "}\n";

static const char driver[] =
    "run_pick<32>(1); run_pick<64>(2); run_pick<128>(3); run_pick<256>(4); run_pick<512>(5); run_pick<1024>(6);\n"
    "run_raw<64>(7); run_raw<128>(8); run_raw<256>(9); run_raw<512>(10); run_raw<1024>(11);\n"
    "for (unsigned bs : {32u, 64u, 128u, 256u, 512u, 1024u}) {\n"
    "    const unsigned g = 3;\n"
    "    const int n = (int)(g * bs) - 5;\n"
    "    emu::buf<double> dist(n);\n"
    "    few(dist, (int)bs, 3);\n"
    "    PAIR(i64, \"nearest\", g, 0, 0, emu::launch(dim3(g), dim3(bs), bs * sizeof(double), [&] { NS::nearest(dist, out, n); }));\n"
    "}\n"
    "for (unsigned bs : {32u, 64u, 128u, 256u}) {\n"
    "    const unsigned g = 4;\n"
    "    const int n = (int)(g * bs);\n"
    "    emu::buf<float> x(n);\n"
    "    few(x, (int)bs + 1, 3);\n"
    "    PAIR(int, \"amax\", g, 0, 0, emu::launch(dim3(g), dim3(bs), 0, [&] { NS::amax(x, out, n); }));\n"
    "}\n";

/* the key form's driver: the pick (ties in every round, n not a multiple of the block and
 * n < the block), the argmax of signed values with -0.0 and +0.0 tying with each other */
static const char driver_key[] =
    "run_pick<32>(1); run_pick<64>(2); run_pick<128>(3); run_pick<256>(4); run_pick<512>(5); run_pick<1024>(6);\n"
    "for (unsigned bs : {32u, 64u, 128u, 256u}) {\n"
    "    const unsigned g = 4;\n"
    "    const int n = (int)(g * bs) - 7;\n"
    "    emu::buf<float> x(n);\n"
    "    signed_few(x, (int)bs + 1);\n"
    "    PAIR(int, \"amax\", g, 0, 0, emu::launch(dim3(g), dim3(bs), 0, [&] { NS::amax(x, out, n); }));\n"
    "    few(x, (int)bs + 2, 3);\n"
    "    PAIR(int, \"amax\", g, 0, 0, emu::launch(dim3(g), dim3(bs), 0, [&] { NS::amax(x, out, n); }));\n"
    "    x.set(-0.0f);   /* all equal: the tree's tie rule alone decides */\n"
    "    PAIR(int, \"amax\", g, 0, 0, emu::launch(dim3(g), dim3(bs), 0, [&] { NS::amax(x, out, n); }));\n"
    "}\n";

static bool key_form;

/* text with kname's tree rewritten (must apply); malloc'd. */
static char *rewrite_one(const char *text, const char *kname)
{
    fixture fx;
    load_text(text, &fx);
    rw_result r;
    assert_int_equal(rw_block_tree_form(fx.text, fx.len, fx.m, kernel(&fx, kname), key_form, &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    char *t = strdup(r.text);
    assert_non_null(t);
    rw_result_free(&r);
    unload(&fx);
    return t;
}

/* every from in text replaced by to (the same length or shorter); the count. */
static int replace_all(char *text, const char *from, const char *to)
{
    int n = 0;
    size_t fl = strlen(from), tl = strlen(to);
    assert_true(tl <= fl);
    for (char *at = strstr(text, from); at; at = strstr(at + tl, from), n++) {
        memcpy(at, to, tl);
        memmove(at + tl, at + fl, strlen(at + fl) + 1);
    }
    return n;
}

/* The running test's emulated programs, built in one g++ run and each run and checked on
 * its own by emu_batch_run at the test's end (emu_batch.h). */
static emu_batch batch;

static void emulated_pairs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *a = rewrite_one(src, "pick");
    char *b = rewrite_one(a, "nearest");
    char *c = rewrite_one(b, "amax");
    char *cand = rewrite_one(c, "pickraw");
    free(a);
    free(b);
    free(c);
    emu_program p = {.dir = tmpdir, .tag = "argtree", .orig = src, .orig_len = strlen(src), .cand = cand,
                     .cand_len = strlen(cand), .helpers = helpers, .driver = driver};
    emu_batch_add(&batch, &p, EMU_OK);
    /* warp order instead of the tree's: each warp reduces its own 32 slots first */
    assert_int_equal(replace_all(cand, "hk_warp + hk_nwarps * hk_lane", "hk_lane + 32u * hk_warp"), 4);
    emu_program w = p;
    w.tag = "argtree_warp_order";
    w.cand_len = strlen(cand);
    emu_batch_add(&batch, &w, EMU_DIFFERS);
    free(cand);
    emu_batch_run(&batch);
}

/* block_reduce's key form (key = 1): the pick and the guarded-copy argmax (both ties to
 * the lower slot) as one max of (value order << 32 | ~brev(slot)), bit-exact indices
 * against the trees on tie-heavy inputs (8 or 3 distinct values, signed values with +0/-0,
 * all equal; n not a multiple of the block); the double argmin is refused (64-bit values). The
 * rank reversed (brev instead of ~brev: ties to the largest bit-reversed slot) must differ,
 * and so must the plain slot as rank (ties to the smallest slot, not the tree's rule). */
static void emulated_key(void **state)
{
    (void)state;
    key_form = true;
    {
        fixture fx;
        load_text(src, &fx);
        rw_result r;
        assert_int_equal(rw_block_tree_form(fx.text, fx.len, fx.m, kernel(&fx, "nearest"), true, &r), HK_OK);
        assert_false(r.applicable);
        assert_non_null(strstr(r.description, "32-bit values"));
        rw_result_free(&r);
        unload(&fx);
    }
    {   /* a tree of one array: key = 1 would be key = 0's program again */
        static const char one[] =
            "__global__ void total(const float *x, float *part, int n)\n"
            "{\n"
            "    __shared__ float s[256];\n"
            "    unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;\n"
            "    s[t] = g < n ? x[g] : 0.0f;\n"
            "    __syncthreads();\n"
            "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
            "        if (t < h) s[t] += s[t + h];\n"
            "        __syncthreads();\n"
            "    }\n"
            "    if (t == 0) part[blockIdx.x] = s[0];\n"
            "}\n";
        fixture fx;
        load_text(one, &fx);
        rw_result r;
        assert_int_equal(rw_block_tree_form(fx.text, fx.len, fx.m, kernel(&fx, "total"), true, &r), HK_OK);
        assert_false(r.applicable);
        assert_non_null(strstr(r.description, "pair tree"));
        rw_result_free(&r);
        assert_int_equal(rw_block_tree_form(fx.text, fx.len, fx.m, kernel(&fx, "total"), false, &r), HK_OK);
        assert_true(r.applicable);
        rw_result_free(&r);
        unload(&fx);
    }
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *a = rewrite_one(src, "pick");
    char *cand = rewrite_one(a, "amax");
    key_form = false;
    free(a);
    assert_non_null(strstr(cand, "__shfl_xor_sync"));
    assert_null(strstr(cand, "hk_mv"));   /* no transpose */
    emu_program p = {.dir = tmpdir, .tag = "argkey", .orig = src, .orig_len = strlen(src), .cand = cand,
                     .cand_len = strlen(cand), .helpers = helpers, .driver = driver_key};
    emu_batch_add(&batch, &p, EMU_OK);
    char *rev = strdup(cand), *lin = strdup(cand);
    assert_non_null(rev);
    assert_non_null(lin);
    assert_int_equal(replace_all(rev, "(~__brev(hk_tid))", "(__brev(hk_tid))"), 2);
    assert_int_equal(replace_all(rev, "__brev(~(unsigned int)hk_k)", "__brev((unsigned int)hk_k)"), 2);
    emu_program w = p;
    w.tag = "argkey_reversed";
    w.cand = rev;
    w.cand_len = strlen(rev);
    emu_batch_add(&batch, &w, EMU_DIFFERS);
    assert_int_equal(replace_all(lin, "(~__brev(hk_tid))", "(~(hk_tid))"), 2);
    assert_int_equal(replace_all(lin, "__brev(~(unsigned int)hk_k)", "(~(unsigned int)hk_k)"), 2);
    w.tag = "argkey_slot_order";
    w.cand = lin;
    w.cand_len = strlen(lin);
    emu_batch_add(&batch, &w, EMU_DIFFERS);
    free(rev);
    free(lin);
    free(cand);
    /* NaN: the key form orders it by its bits (a positive NaN above every value) where the
     * tree never lets it win a slot; on pickraw's NaN inputs the two must differ (and the
     * exact form's agreement in emulated_pairs is not for want of NaN reaching the merge) */
    key_form = true;
    char *raw = rewrite_one(src, "pickraw");
    key_form = false;
    assert_non_null(strstr(raw, "__shfl_xor_sync"));
    emu_program q = {.dir = tmpdir, .tag = "argkey_nan", .orig = src, .orig_len = strlen(src), .cand = raw,
                     .cand_len = strlen(raw), .helpers = helpers,
                     .driver = "run_raw<64>(7); run_raw<256>(9); run_raw<1024>(11);\n"};
    emu_batch_add(&batch, &q, EMU_DIFFERS);
    free(raw);
    emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emulated_pairs),
        cmocka_unit_test(emulated_key),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
