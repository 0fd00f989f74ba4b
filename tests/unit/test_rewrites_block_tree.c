/* block_reduce's tree path (rw_block_tree, issue 13): one shared-memory block reduction
 * written several ways -- a halving tree with `tid < s`, an interleaved tree with
 * `tid % (2*s) == 0` or `& (2*s - 1)`, an interleaved tree through `index = 2*s*tid`,
 * `x = x + y` instead of `+=`, a macro block size with `/= 2`, a template T with a strided
 * per-channel loop feeding the tree and a mean written after it, a template T's dynamic
 * shared memory reached through a helper type, max through fmaxf, min on int through a
 * do-while -- each rewritten in place into warp shuffles that leave the block's result in
 * the same slot, with the code after the tree (what the block writes) unchanged; and the
 * refusals, each naming its line: another slot read after the tree (also inside a called
 * function), an unrolled last warp, an unguarded
 * (racing) update, a doubling loop whose guard picks no tree's pairs, an
 * early return before the tree, a 2-D block, a tree with no barrier, a loop quartering its
 * step; a register carry (`S[t] = acc = acc + S[t + s]`, or the update and the store
 * apart) whose thread 0 writes the register, and its refusals (the register used by every
 * thread after the tree, changed after its store, a level adding more, a slot not stored
 * from it). Pair trees (value,
 * index): an argmax through a __device__ combine in a furthest-point pick's spelling, an
 * argmin through inline selects, a guarded copy; refused: a combine that is no argmax (or
 * two sums), a read of a slot after its store, another slot read after the tree, no
 * barrier, a doubling or partial loop. Every emitted kernel compiles
 * with nvcc -arch=sm_90 -c when nvcc is there; test_rewrites_emu_tree.c runs rewrites in
 * the block emulator. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_pattern.h"

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
    return rwf_setup("rewrites-block-tree");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* rw_block_tree on kname: applicable; the tree (gone, a string of it in `tree`) replaced
 * by the shuffles; every string of keep still in the text (the epilogue); compiles. */
static void tree_applies(const char *src, const char *kname, const char *tree, const char *const *keep)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, kname), &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "__shfl_down_sync(hk_mask, hk_acc, hk_off)"));
    assert_non_null(strstr(r.text, "hk_part[hk_warp] = hk_acc;"));
    if (strstr(r.text, tree))
        print_message("%s: the tree `%s` is still there:\n%s\n", kname, tree, r.text);
    assert_null(strstr(r.text, tree));
    for (size_t i = 0; keep[i]; i++) {
        if (!strstr(r.text, keep[i]))
            print_message("%s: no `%s` in\n%s\n", kname, keep[i], r.text);
        assert_non_null(strstr(r.text, keep[i]));
    }
    /* the block's result stays in the tree's first slot */
    assert_non_null(strstr(r.description, "holds the block's result as before"));
    rwf_nvcc_compiles(r.text, kname);
    rw_result_free(&r);
    unload(&fx);
}

static void tree_refused(const char *src, const char *kname, const char *why)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, kname), &r), HK_OK);
    if (r.applicable || !strstr(r.description, why))
        print_message("%s: want refusal `%s`, got: %s\n", kname, why, r.description);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, why));
    rw_result_free(&r);
    unload(&fx);
}

static void halving_partials(void **state)
{
    (void)state;
    static const char src[] =
        "__global__ void part(const float *x, float *partial, unsigned n)\n"
        "{\n"
        "    __shared__ float acc[256];\n"
        "    unsigned t = threadIdx.x;\n"
        "    float v = 0.0f;\n"
        "    for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)\n"
        "        v += x[i];\n"
        "    acc[t] = v;\n"
        "    __syncthreads();\n"
        "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
        "        if (t < h)\n"
        "            acc[t] += acc[t + h];\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (t == 0)\n"
        "        partial[blockIdx.x] = acc[0];\n"
        "}\n";
    tree_applies(src, "part", "acc[t + h]", (const char *const[]){"partial[blockIdx.x] = acc[0];",
                                                                  "v += x[i];", "acc[0] = hk_acc;", NULL});
}

static void interleaved_modulo(void **state)
{
    (void)state;
    static const char src[] =
        "__global__ void inter(const double *a, double *out, int n)\n"
        "{\n"
        "    extern __shared__ double dyn[];\n"
        "    int me = threadIdx.x;\n"
        "    int g = blockIdx.x * blockDim.x + me;\n"
        "    dyn[me] = g < n ? a[g] : 0.0;\n"
        "    __syncthreads();\n"
        "    for (int step = 1; step < blockDim.x; step *= 2) {\n"
        "        if (me % (2 * step) == 0)\n"
        "            dyn[me] += dyn[me + step];\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (me == 0) out[blockIdx.x] = dyn[0];\n"
        "}\n";
    tree_applies(src, "inter", "dyn[me + step]", (const char *const[]){"out[blockIdx.x] = dyn[0];",
                                                                       "double hk_acc = dyn[hk_tid];", NULL});
}

static void interleaved_index(void **state)
{
    (void)state;
    static const char src[] =
        "__global__ void strided(const int *a, int *out, int n)\n"
        "{\n"
        "    __shared__ int s[512];\n"
        "    unsigned int tid = threadIdx.x;\n"
        "    unsigned int i = blockIdx.x * blockDim.x + tid;\n"
        "    s[tid] = 0;\n"
        "    if (i < n) s[tid] = a[i] * a[i];\n"
        "    __syncthreads();\n"
        "    for (unsigned int d = 1; d < blockDim.x; d <<= 1) {\n"
        "        unsigned int index = 2 * d * tid;\n"
        "        if (index < blockDim.x) {\n"
        "            s[index] = s[index] + s[index + d];\n"
        "        }\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (tid == 0) atomicAdd(out, s[0]);\n"
        "}\n";
    tree_applies(src, "strided", "s[index + d]", (const char *const[]){"atomicAdd(out, s[0]);", NULL});
}

static void macro_max(void **state)
{
    (void)state;
    static const char src[] =
        "#define BLOCK 128\n"
        "__global__ void bmax(const float *__restrict__ v, float *best, int n)\n"
        "{\n"
        "    __shared__ float sm[BLOCK];\n"
        "    const int lane = threadIdx.x;\n"
        "    const int e = blockIdx.x * BLOCK + lane;\n"
        "    float m = -1e30f;\n"
        "    if (e < n)\n"
        "        m = v[e];\n"
        "    sm[lane] = m;\n"
        "    __syncthreads();\n"
        "    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {\n"
        "        if (lane < stride) { sm[lane] = fmaxf(sm[lane], sm[lane + stride]); }\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (lane == 0)\n"
        "        best[blockIdx.x] = sm[0];\n"
        "}\n";
    tree_applies(src, "bmax", "sm[lane + stride]",
                 (const char *const[]){"best[blockIdx.x] = sm[0];", "hk_acc = (hk_o > hk_acc) ? hk_o : hk_acc",
                                       NULL});
}

static void template_channel_mean(void **state)
{
    (void)state;
    static const char src[] =
        "template <typename T>\n"
        "__global__ void chan_mean(const T *x, float *mu, int batch, int chans, int hw)\n"
        "{\n"
        "    __shared__ float part[1024];\n"
        "    const int ch = blockIdx.x;\n"
        "    part[threadIdx.x] = 0.f;\n"
        "    for (int j = threadIdx.x; j < batch * hw; j += blockDim.x) {\n"
        "        const int b = j / hw, p = j % hw;\n"
        "        part[threadIdx.x] += x[(b * chans + ch) * hw + p];\n"
        "    }\n"
        "    __syncthreads();\n"
        "    for (int k = blockDim.x >> 1; k > 0; k >>= 1) {\n"
        "        if (k > threadIdx.x)\n"
        "            part[threadIdx.x] += part[threadIdx.x + k];\n"
        "        __syncthreads();\n"
        "    }\n"
        "    const int count = batch * hw;\n"
        "    if (threadIdx.x == 0)\n"
        "        mu[ch] = part[0] / count;\n"
        "}\n";
    tree_applies(src, "chan_mean", "part[threadIdx.x + k]",
                 (const char *const[]){"mu[ch] = part[0] / count;", "part[threadIdx.x] += x[", NULL});
}

static void int_min_do_while(void **state)
{
    (void)state;
    static const char src[] =
        "__global__ void imin(const int *keys, int *lo, int n)\n"
        "{\n"
        "    __shared__ int q[256];\n"
        "    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;\n"
        "    q[t] = i < n ? keys[i] : 2147483647;\n"
        "    __syncthreads();\n"
        "    int s = blockDim.x / 2;\n"
        "    do {\n"
        "        if (t < s)\n"
        "            q[t] = min(q[t], q[t + s]);\n"
        "        __syncthreads();\n"
        "        s >>= 1;\n"
        "    } while (s > 0);\n"
        "    if (t == 0)\n"
        "        lo[blockIdx.x] = q[0];\n"
        "}\n";
    tree_applies(src, "imin", "q[t + s]", (const char *const[]){"lo[blockIdx.x] = q[0];", NULL});
}

/* dynamic shared memory of a template type through a helper type, a sum of squares */
static void helper_shared_sumsq(void **state)
{
    (void)state;
    static const char src[] =
        "template <typename T> struct Scratch {\n"
        "    __device__ operator T *() { extern __shared__ unsigned char scratch_raw[]; return (T *)scratch_raw; }\n"
        "};\n"
        "template <typename T>\n"
        "__global__ void sumsq(const T *v, T *partial, unsigned n)\n"
        "{\n"
        "    T *red = Scratch<T>();\n"
        "    const unsigned me = threadIdx.x, at = blockIdx.x * blockDim.x + me;\n"
        "    const T x = at < n ? v[at] : T(0);\n"
        "    red[me] = x * x;\n"
        "    __syncthreads();\n"
        "    for (unsigned w = 1; w < blockDim.x; w *= 2) {\n"
        "        if ((me & (2 * w - 1)) == 0)\n"
        "            red[me] += red[me + w];\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (me == 0)\n"
        "        partial[blockIdx.x] = red[0];\n"
        "}\n"
        "template __global__ void sumsq<float>(const float *, float *, unsigned);\n";
    tree_applies(src, "sumsq", "red[me + w]", (const char *const[]){"partial[blockIdx.x] = red[0];",
                                                                   "T hk_acc = red[hk_tid];", NULL});
}

static void other_slot_read_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void two(const float *x, float *out)\n"
                 "{\n"
                 "    __shared__ float s[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    s[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
                 "        if (t < h) s[t] += s[t + h];\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) out[blockIdx.x] = s[0] + s[1];\n"
                 "}\n",
                 "two", "line 11: s is read after the tree at another place than s[0]");
}

static void called_function_refused(void **state)
{
    (void)state;
    tree_refused("__device__ float third(const float *p) { return p[3]; }\n"
                 "__global__ void cf(const float *x, float *out)\n"
                 "{\n"
                 "    __shared__ float s[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    s[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
                 "        if (t < h) s[t] += s[t + h];\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) out[blockIdx.x] = s[0] + third(s);\n"
                 "}\n",
                 "cf", "line 12: s is read after the tree at another place than s[0]");
}

/* rw_block_tree on a (value, index) tree: applicable, the loop (a string of it in `tree`)
 * gone, the transpose into the tree's order and the shuffles in its place, every string of
 * keep still there; compiles. */
static void pair_applies(const char *src, const char *kname, const char *tree, const char *what,
                         const char *const *keep)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, kname), &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    /* the transpose in the tree's own arrays: no padded copy (the shared memory it took
     * moved the wild FPS to a smaller L1) */
    assert_non_null(strstr(r.text, "[hk_tid ^ (hk_tid >> 5)] = hk_mv;"));
    assert_non_null(strstr(r.text, "[hk_at ^ (hk_at >> 5)];"));
    assert_null(strstr(r.text, "33u"));
    assert_non_null(strstr(r.text, "__shfl_down_sync(hk_mask, hk_i, hk_off)"));
    if (strstr(r.text, tree))
        print_message("%s: the tree `%s` is still there:\n%s\n", kname, tree, r.text);
    assert_null(strstr(r.text, tree));
    for (size_t i = 0; keep[i]; i++) {
        if (!strstr(r.text, keep[i]))
            print_message("%s: no `%s` in\n%s\n", kname, keep[i], r.text);
        assert_non_null(strstr(r.text, keep[i]));
    }
    assert_non_null(strstr(r.description, what));
    assert_non_null(strstr(r.description, "hold what the tree left there for every input"));
    rwf_nvcc_compiles(r.text, kname);
    rw_result_free(&r);
    unload(&fx);
}

/* the spelling of a furthest-point pick: a __device__ combine of the two arrays (values
 * read first, then both stored), a template block size, an unrolled loop from 1024 whose
 * levels beyond the block are skipped by `BS >= w`, the tree inside the loop over picks,
 * an early return on a parameter, the index read by every thread after the tree */
static const char pick_src[] =
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
    "            const float x = d[q] * (float)(1 + ((q + last) & 3));\n"
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
    "    }\n"
    "}\n"
    "template __global__ void pick<256>(int, int, const float *__restrict__, int *__restrict__);\n"
    "template __global__ void pick<1024>(int, int, const float *__restrict__, int *__restrict__);\n";

static void pair_device_function(void **state)
{
    (void)state;
    pair_applies(pick_src, "pick", "keep_larger(val, arg, me, me + half);", "argmax",
                 (const char *const[]){"last = arg[0];", "val[me] = top;", "hk_ni = ((hk_v < hk_ov) ? hk_oi : hk_i);",
                                       "hk_nv = max(", NULL});
    /* the #pragma unroll of the loop goes with it */
    fixture fx;
    load_text(pick_src, &fx);
    rw_result r;
    assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, "pick"), &r), HK_OK);
    assert_true(r.applicable);
    assert_null(strstr(r.text, "#pragma unroll"));
    rw_result_free(&r);
    unload(&fx);
}

/* argmin through inline selects of locals read first, the later index on ties (`<=`) */
static void pair_inline_select(void **state)
{
    (void)state;
    static const char src[] =
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
        "}\n";
    pair_applies(src, "nearest", "sv[t + s]", "argmin",
                 (const char *const[]){"where[blockIdx.x] = si[0];", "double hk_v = ", "long long hk_i = ", NULL});
}

/* a looped halving tree with the select as a condition on the values: both copied when
 * the upper slot is larger */
static void pair_guarded_copy(void **state)
{
    (void)state;
    pair_applies("__global__ void amax(const float *x, int *where)\n"
                 "{\n"
                 "    __shared__ float best[256];\n"
                 "    __shared__ int at[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    best[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    at[t] = blockIdx.x * blockDim.x + t;\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
                 "        if (t < h && best[t + h] > best[t]) {\n"
                 "            best[t] = best[t + h];\n"
                 "            at[t] = at[t + h];\n"
                 "        }\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) where[blockIdx.x] = at[0];\n"
                 "}\n",
                 "amax", "at[t + h]", "argmax", (const char *const[]){"where[blockIdx.x] = at[0];",
                                                                     "if (hk_v < hk_ov) hk_nv = hk_ov;", NULL});
}

/* the index of the smaller with the larger value: not an argmax */
static void pair_not_argmax_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void mix(const float *x, int *where)\n"
                 "{\n"
                 "    __shared__ float v[256];\n"
                 "    __shared__ int i[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    v[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    i[t] = t;\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
                 "        if (t < h) {\n"
                 "            float a = v[t], b = v[t + h];\n"
                 "            int ia = i[t], ib = i[t + h];\n"
                 "            v[t] = fmaxf(a, b);\n"
                 "            i[t] = b > a ? ia : ib;\n"
                 "        }\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) where[blockIdx.x] = i[0];\n"
                 "}\n",
                 "mix", "line 13: the tree's update of v and i is not an argmax or argmin");
    /* a sum beside an update that is no tree of its own array is no argmax either (two
     * sums at once are two trees: tuple_trees_apply) */
    tree_refused("__global__ void two(const float *x, float *out)\n"
                 "{\n"
                 "    __shared__ float a[256], b[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    a[t] = x[t];\n"
                 "    b[t] = x[t] * x[t];\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
                 "        if (t < h) { a[t] = a[t] + a[t + h]; b[t] = b[t] + a[t + h]; }\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) { out[0] = a[0]; out[1] = b[0]; }\n"
                 "}\n",
                 "two", "line 9: the tree loop (line 8) updates a other than by one store per level of a pair of arrays");
}

static char *replaced(const char *src, const char *from, const char *to);

/* Session 46: trees of several arrays in one loop, each array combined with itself alone.
 * rw_block_tree on kname: applicable, n warp-shuffle trees (`hk rewrite: block_reduce.` n
 * times) in place of the one loop, no string of `tree` left, every string of keep still
 * there (each array's slot 0 set, the code before and after the loop), `what` (the arrays
 * and the loop's line) in the description; compiles. */
static void tuple_applies(const char *src, const char *kname, int n, const char *what, const char *tree,
                          const char *const *keep)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, kname), &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    assert_true(r.keeps_launch);
    int got = 0;
    for (const char *p = strstr(r.text, "hk rewrite: block_reduce."); p; p = strstr(p + 1, "hk rewrite: block_reduce."))
        got++;
    assert_int_equal(got, n);
    if (strstr(r.text, tree))
        print_message("%s: the tree `%s` is still there:\n%s\n", kname, tree, r.text);
    assert_null(strstr(r.text, tree));
    for (size_t i = 0; keep[i]; i++) {
        if (!strstr(r.text, keep[i]))
            print_message("%s: no `%s` in\n%s\n", kname, keep[i], r.text);
        assert_non_null(strstr(r.text, keep[i]));
    }
    char want[200];
    snprintf(want, sizeof want, "%d shared-memory trees in one loop (%s)", n, what);
    if (!strstr(r.description, want))
        print_message("%s: no `%s` in %s\n", kname, want, r.description);
    assert_non_null(strstr(r.description, want));
    rwf_nvcc_compiles(r.text, kname);
    rw_result_free(&r);
    unload(&fx);
}

/* The kernel of two sums in one level of one loop (`x = x + y` in one braced if), as the
 * test above once refused it. */
static const char two_sums_src[] =
    "__global__ void two(const float *x, float *out)\n"
    "{\n"
    "    __shared__ float a[256], b[256];\n"
    "    unsigned t = threadIdx.x;\n"
    "    a[t] = x[t];\n"
    "    b[t] = x[t] * x[t];\n"
    "    __syncthreads();\n"
    "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
    "        if (t < h) { a[t] = a[t] + a[t + h]; b[t] = b[t] + b[t + h]; }\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0) { out[0] = a[0]; out[1] = b[0]; }\n"
    "}\n";

/* The same trees written four ways: a channel's sum and sum of squares added straight into
 * the shared slots, `+=` under one braced `if (tid < s)` (tuple_stats.cu: a template T);
 * a sum, a maximum and an integer minimum in an interleaved loop under `t % (2 * s) == 0`,
 * `x = x + y`, fmaxf and min, a macro block size (tuple_mixed.cu); two sums in one braced
 * if; two sums each under its own if, the loop running `h != 0`. */
static void tuple_trees_apply(void **state)
{
    (void)state;
    char *stats = rwf_data_file("rewrite_tree/tuple_stats.cu");
    tuple_applies(stats, "chan_stats", 2, "s1, s2; loop at line 22", "s1[tid + s]",
                  (const char *const[]){"s1[0] = hk_acc;", "s2[0] = hk_acc;", "        s2[tid] += v * v;\n",
                                        "var[c] = s2[0] / (n * hw) - m * m;", NULL});
    free(stats);
    char *mixed = rwf_data_file("rewrite_tree/tuple_mixed.cu");
    tuple_applies(mixed, "block_summary", 3, "ps, pm, pk; loop at line 20", "pm[t + s]",
                  (const char *const[]){"float hk_acc = ps[hk_tid];", "float hk_acc = pm[hk_tid];",
                                        "int hk_acc = pk[hk_tid];", "pk[0] = hk_acc;", "low[blockIdx.x] = pk[0];",
                                        NULL});
    free(mixed);
    tuple_applies(two_sums_src, "two", 2, "a, b; loop at line 8", "b[t + h]",
                  (const char *const[]){"a[0] = hk_acc;", "b[0] = hk_acc;", "out[1] = b[0];", NULL});
    tuple_applies("__global__ void split_ifs(const double *x, double *out, int n)\n"
                  "{\n"
                  "    extern __shared__ double dyn[];\n"
                  "    __shared__ double sq[512];\n"
                  "    const unsigned t = threadIdx.x;\n"
                  "    double u = 0.0, w = 0.0;\n"
                  "    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {\n"
                  "        u += x[i];\n"
                  "        w += x[i] * x[i];\n"
                  "    }\n"
                  "    dyn[t] = u;\n"
                  "    sq[t] = w;\n"
                  "    __syncthreads();\n"
                  "    for (unsigned h = blockDim.x >> 1; h != 0; h >>= 1) {\n"
                  "        if (t < h)\n"
                  "            dyn[t] += dyn[t + h];\n"
                  "        if (t < h)\n"
                  "            sq[t] += sq[t + h];\n"
                  "        __syncthreads();\n"
                  "    }\n"
                  "    if (t == 0) {\n"
                  "        out[2 * blockIdx.x] = dyn[0];\n"
                  "        out[2 * blockIdx.x + 1] = sq[0];\n"
                  "    }\n"
                  "}\n",
                  "split_ifs", 2, "dyn, sq; loop at line 14", "sq[t + h]",
                  (const char *const[]){"double hk_acc = dyn[hk_tid];", "sq[0] = hk_acc;",
                                        "out[2 * blockIdx.x + 1] = sq[0];", NULL});
}

/* What stops trees of several arrays in one loop, each with its line: a condition on the
 * data inside the loop (it ties the arrays together), an access of anything but the trees'
 * slots in the loop, another slot read after the loop, a slot stored at another index
 * before it, a loop without a barrier, and the key form (a pair tree's). */
static void tuple_refusals(void **state)
{
    (void)state;
    char *v = replaced(two_sums_src, "        if (t < h) { a[t] = a[t] + a[t + h]; b[t] = b[t] + b[t + h]; }\n",
                       "        if (t < h)\n"
                       "            if (a[t + h] != 0.0f) { a[t] = a[t] + a[t + h]; b[t] = b[t] + b[t + h]; }\n");
    tree_refused(v, "two", "line 10: the update of a in the tree loop (line 8) runs under a condition other than the "
                           "thread's part in the level");
    free(v);
    v = replaced(two_sums_src, "        __syncthreads();\n    }\n",
                 "        if (t == 0) out[2] += 1.0f;\n        __syncthreads();\n    }\n");
    tree_refused(v, "two", "line 10: the tree loop (line 8) of 2 arrays at once also accesses out other than at a slot it "
                           "combines");
    free(v);
    v = replaced(two_sums_src, "out[1] = b[0];", "out[1] = b[1];");
    tree_refused(v, "two", "line 12: b is read after the tree at another place than b[0]");
    free(v);
    v = replaced(two_sums_src, "    b[t] = x[t] * x[t];\n", "    b[(t + 1) % blockDim.x] = x[t] * x[t];\n");
    tree_refused(v, "two", "line 6: b is written at another index than threadIdx.x before the tree");
    free(v);
    v = replaced(two_sums_src, "        __syncthreads();\n    }\n", "    }\n");
    tree_refused(v, "two", "line 8: the tree loop has no barrier between its levels");
    free(v);
    fixture fx;
    load_text(two_sums_src, &fx);
    rw_result r;
    assert_int_equal(rw_block_tree_form(fx.text, fx.len, fx.m, kernel(&fx, "two"), true, &r), HK_OK);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, "the kernel's trees have one array each"));
    rw_result_free(&r);
    unload(&fx);
}

/* Issue 13: the tree loop is replaced whole, so anything in it besides the trees' updates,
 * the counter's step and barriers would be dropped: a count of the levels, the last partner
 * read into a register, a call that may write, a jump. Refused with the line and the name,
 * in the one-tree path and the several-arrays one (the reviewer's t1, t2 and t4 probes). */
static void loop_extras_refused(void **state)
{
    (void)state;
    static const char one[] =
        "__device__ void note(float *p, float v);\n"
        "__global__ void one(const float *x, float *out, int n)\n"
        "{\n"
        "    __shared__ float a[256];\n"
        "    int tid = threadIdx.x;\n"
        "    int i = blockIdx.x * blockDim.x + tid;\n"
        "    a[tid] = i < n ? x[i] : 0.0f;\n"
        "    __syncthreads();\n"
        "    int levels = 0;\n"
        "    float last = 0.0f;\n"
        "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
        "        if (tid < s) {\n"
        "            a[tid] += a[tid + s];\n"
        "        }\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (tid == 0)\n"
        "        out[blockIdx.x] = a[0] + levels + last;\n"
        "}\n";
    static const char *const one_cases[][3] = {
        {"        __syncthreads();\n    }\n", "        levels++;\n        __syncthreads();\n    }\n",
         "write at line 15: the tree loop (line 11) writes `levels`"},
        {"            a[tid] += a[tid + s];\n", "            a[tid] += a[tid + s];\n            last = a[tid + s];\n",
         "write at line 14: the tree loop (line 11) writes `last`"},
        {"        __syncthreads();\n    }\n", "        levels += 1;\n        __syncthreads();\n    }\n",
         "write at line 15: the tree loop (line 11) writes `levels`"},
        {"            a[tid] += a[tid + s];\n", "            a[tid] += a[tid + s];\n            note(&last, a[tid]);\n",
         "call at line 14: the tree loop (line 11) calls `note`"},
        {"        __syncthreads();\n    }\n", "        if (levels > 3) break;\n        __syncthreads();\n    }\n",
         "statement at line 15: the tree loop (line 11) holds `break`"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(one_cases); i++) {
        char *v = replaced(one, one_cases[i][0], one_cases[i][1]);
        tree_refused(v, "one", one_cases[i][2]);
        free(v);
    }
    /* the loop as it was applies */
    tree_applies(one, "one", "a[tid] += a[tid + s];",
                 (const char *const[]){"out[blockIdx.x] = a[0] + levels + last;", NULL});
    char *c = replaced(two_sums_src, "    unsigned t = threadIdx.x;\n", "    unsigned t = threadIdx.x, c = 0;\n");
    char *v = replaced(c, "        __syncthreads();\n    }\n", "        c++;\n        __syncthreads();\n    }\n");
    tree_refused(v, "two", "write at line 10: the tree loop (line 8) writes `c`");
    free(v);
    v = replaced(c, "        if (t < h) { a[t] = a[t] + a[t + h]; b[t] = b[t] + b[t + h]; }\n",
                 "        if (t < h) { a[t] = a[t] + a[t + h]; b[t] = b[t] + b[t + h]; c = b[t + h]; }\n");
    tree_refused(v, "two", "write at line 9: the tree loop (line 8) writes `c`");
    free(v);
    free(c);
    /* the (value, index) pair path too */
    static const char pair[] =
        "__global__ void amax(const float *x, float *out, int *idx, int n)\n"
        "{\n"
        "    __shared__ float v[256];\n"
        "    __shared__ int id[256];\n"
        "    int tid = threadIdx.x;\n"
        "    int i = blockIdx.x * blockDim.x + tid;\n"
        "    v[tid] = i < n ? x[i] : -1e30f;\n"
        "    id[tid] = i;\n"
        "    __syncthreads();\n"
        "    int levels = 0;\n"
        "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
        "        if (tid < s && v[tid + s] > v[tid]) {\n"
        "            v[tid] = v[tid + s];\n"
        "            id[tid] = id[tid + s];\n"
        "        }\n"
        "        levels++;\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (tid == 0) {\n"
        "        out[blockIdx.x] = v[0] + levels;\n"
        "        idx[blockIdx.x] = id[0];\n"
        "    }\n"
        "}\n";
    tree_refused(pair, "amax", "write at line 16: the tree loop (line 11) writes `levels`");
    v = replaced(pair, "        levels++;\n", "");
    fixture fx;
    load_text(v, &fx);
    rw_result r;
    assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, "amax"), &r), HK_OK);
    if (!r.applicable)
        print_message("amax: %s\n", r.description);
    assert_true(r.applicable);   /* without the count the pair tree applies */
    rw_result_free(&r);
    unload(&fx);
    free(v);
}

/* mmcv's SyncBN backward (bench/wild/src, when extracted: holdout-s46): per channel
 * grad_weight and grad_bias, two arrays summed in one halving loop: both trees rewritten,
 * the strided loop into the shared slots and the stores after the loop kept. */
static void wild_sync_bn_backward(void **state)
{
    (void)state;
    fixture fx;
    if (!rwf_load_wild("mmcv_sync_bn_backward_param", &fx))
        return;
    rw_result r;
    assert_int_equal(rw_block_tree(fx.text, fx.len, fx.m, kernel(&fx, "sync_bn_backward_param_cuda_kernel"), &r),
                     HK_OK);
    if (!r.applicable)
        print_message("%s\n", r.description);
    assert_true(r.applicable);
    /* the file's two overloads (T, then phalf) have the loop each: the first one rewritten */
    static const char loop2[] = "buffer2[tid] += buffer2[tid + s];";
    int before = 0, after = 0;
    for (const char *p = strstr(fx.text, loop2); p; p = strstr(p + 1, loop2))
        before++;
    for (const char *p = strstr(r.text, loop2); p; p = strstr(p + 1, loop2))
        after++;
    assert_int_equal(before, 2);
    assert_int_equal(after, 1);
    assert_true(strstr(r.text, "buffer2[0] = hk_acc;") < strstr(r.text, loop2));
    assert_non_null(strstr(r.text, "buffer2[tid] += grad_output[index];"));
    assert_non_null(strstr(r.text, "buffer1[0] = hk_acc;"));
    assert_non_null(strstr(r.text, "grad_bias[c] = buffer2[0];"));
    assert_non_null(strstr(r.description, "2 shared-memory trees in one loop (buffer1, buffer2;"));
    rw_result_free(&r);
    unload(&fx);
}

/* the index chosen from the slot the value store just overwrote: the combine sees its own
 * result, not the tree's two operands */
static void pair_read_after_store_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void late(const float *x, int *where)\n"
                 "{\n"
                 "    __shared__ float v[256];\n"
                 "    __shared__ int i[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    v[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    i[t] = t;\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
                 "        if (t < h) {\n"
                 "            const float a = v[t], b = v[t + h];\n"
                 "            const int ia = i[t], ib = i[t + h];\n"
                 "            v[t] = fmaxf(a, b);\n"
                 "            i[t] = b > v[t] ? ib : ia;\n"
                 "        }\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) where[blockIdx.x] = i[0];\n"
                 "}\n",
                 "late", "line 14: v is read after the tree's update stored a slot");
}

static void pair_other_slot_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void second(const float *x, int *where)\n"
                 "{\n"
                 "    __shared__ float best[256];\n"
                 "    __shared__ int at[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    best[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    at[t] = t;\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
                 "        if (t < h && best[t + h] > best[t]) {\n"
                 "            best[t] = best[t + h];\n"
                 "            at[t] = at[t + h];\n"
                 "        }\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) { where[2 * blockIdx.x] = at[0]; where[2 * blockIdx.x + 1] = at[1]; }\n"
                 "}\n",
                 "second", "line 16: at is read after the tree at another place than at[0]");
}

static void pair_no_barrier_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void nb(const float *x, int *where)\n"
                 "{\n"
                 "    __shared__ float best[32];\n"
                 "    __shared__ int at[32];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    best[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    at[t] = t;\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1)\n"
                 "        if (t < h && best[t + h] > best[t]) { best[t] = best[t + h]; at[t] = at[t + h]; }\n"
                 "    if (t == 0) where[blockIdx.x] = at[0];\n"
                 "}\n",
                 "nb", "line 9: the tree loop has no barrier");
}

/* a doubling pair tree combines in another order: refused (not the halving tree), and a
 * halving loop that skips the block's first level is not the whole tree */
static void pair_other_orders_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void up(const float *x, int *where)\n"
                 "{\n"
                 "    __shared__ float best[256];\n"
                 "    __shared__ int at[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    best[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    at[t] = t;\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = 1; h < blockDim.x; h *= 2) {\n"
                 "        if (t % (2 * h) == 0 && best[t + h] > best[t]) { best[t] = best[t + h]; at[t] = at[t + h]; }\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) where[blockIdx.x] = at[0];\n"
                 "}\n",
                 "up", "line 9: the tree loop (with its guards) is not the halving tree");
    tree_refused("__global__ void part(const float *x, int *where)\n"
                 "{\n"
                 "    __shared__ float best[256];\n"
                 "    __shared__ int at[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    best[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    at[t] = t;\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 4; h > 0; h >>= 1) {\n"
                 "        if (t < h && best[t + h] > best[t]) { best[t] = best[t + h]; at[t] = at[t + h]; }\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) where[blockIdx.x] = at[0];\n"
                 "}\n",
                 "part", "line 9: the tree loop (with its guards) is not the halving tree");
}

static void unrolled_last_warp_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void unr(const float *x, float *out)\n"
                 "{\n"
                 "    __shared__ float s[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    s[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 32; h >>= 1) {\n"
                 "        if (t < h) s[t] += s[t + h];\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t < 32) {\n"
                 "        volatile float *w = s;\n"
                 "        w[t] += w[t + 32]; w[t] += w[t + 16]; w[t] += w[t + 8];\n"
                 "        w[t] += w[t + 4]; w[t] += w[t + 2]; w[t] += w[t + 1];\n"
                 "    }\n"
                 "    if (t == 0) out[blockIdx.x] = s[0];\n"
                 "}\n",
                 "unr", "line 7: the tree loop stops before one element");
}

/* session 31 (llm.c's matmul_backward_bias_kernel1 has this form): each thread sums its
 * rows in a register, stores it at its slot, and the tree runs `h >= 1; h /= 2` with its
 * barrier first in the body; `h >= 2` stops with two partial sums left, `h >= 0` never
 * ends: both refused. */
static void coarsened_ge_one(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_tree/colsum_coarsened.cu");
    tree_applies(src, "colsum_acc", "lane_sum[t + h]",
                 (const char *const[]){"run += m[r * cols + c];", "lane_sum[t] = run;",
                                       "total[c] = total[c] + lane_sum[0];", "lane_sum[0] = hk_acc;", NULL});
    char *at = strstr(src, "h >= 1;");
    assert_non_null(at);
    at[5] = '2';
    tree_refused(src, "colsum_acc", "line 18: the tree loop stops before one element");
    at[5] = '0';
    tree_refused(src, "colsum_acc", "line 18: the tree loop does not run from blockDim.x / 2 down to 1");
    free(src);
}

/* src with its one occurrence of from replaced by to (a new string). */
static char *replaced(const char *src, const char *from, const char *to)
{
    const char *at = strstr(src, from);
    assert_non_null(at);
    assert_null(strstr(at + 1, from));
    size_t a = (size_t)(at - src), fl = strlen(from), tl = strlen(to), sl = strlen(src);
    char *o = malloc(sl - fl + tl + 1);
    assert_non_null(o);
    memcpy(o, src, a);
    memcpy(o + a, to, tl);
    memcpy(o + a + tl, at + fl, sl - a - fl + 1);
    return o;
}

/* session 37 (cuda-samples' reduce3 onwards spell the tree so): a register carry, stored
 * to the thread's slot before the tree and updated with the slot s away at every level
 * (`slot[t] = carry = carry + slot[t + h]` in one statement, or `best = fmaxf(best, m[t +
 * k]); m[t] = best;` in two), thread 0 writing the register after the tree. The tree is
 * rewritten and thread 0's register ends as the block's result, as it did. */
static void carry_chained(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_tree/carry_chained.cu");
    tree_applies(src, "pairsum_carry", "slot[t + h]",
                 (const char *const[]){"carry += in[g + blockDim.x];", "slot[t] = carry;",
                                       "partial[blockIdx.x] = carry;", "slot[0] = hk_acc;",
                                       "carry = hk_acc;   // the tree's register carry", NULL});
    free(src);
}

static void carry_split(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_tree/carry_split.cu");
    tree_applies(src, "rowmax_carry", "m[t + k]",
                 (const char *const[]){"best = fmaxf(best, x[row * cols + c]);", "m[t] = best;",
                                       "rowmax[row] = best * scale;", "hk_acc = (hk_o > hk_acc) ? hk_o : hk_acc",
                                       "best = hk_acc;   // the tree's register carry", NULL});
    free(src);
}

/* What a carry's spelling may not do, each refused at its line: every thread using the
 * register after the tree (the others held partial sums), the register changed between its
 * store and the tree, a level that adds something besides the slot s away, a slot that
 * was not the register's store before the tree. */
static void carry_refusals(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_tree/carry_chained.cu");
    char *v = replaced(src, "    if (t == 0)\n        partial[blockIdx.x] = carry;",
                       "    partial[blockIdx.x * blockDim.x + t] = carry;");
    tree_refused(v, "pairsum_carry", "line 23: the tree's register carry carry is used after the tree other than "
                                     "in a store by thread 0");
    free(v);
    v = replaced(src, "    slot[t] = carry;\n", "    slot[t] = carry;\n    carry *= 2;\n");
    tree_refused(v, "pairsum_carry", "line 17: the register carry carry is updated outside the tree after its "
                                     "store to slot[threadIdx.x] (line 16)");
    free(v);
    v = replaced(src, "carry + slot[t + h];", "carry + slot[t + h] + 1.0f;");
    tree_refused(v, "pairsum_carry", "line 20: the tree's register carry carry is not updated as carry op "
                                     "slot[w + h]");
    free(v);
    v = replaced(src, "    slot[t] = carry;\n", "    slot[t] = 0.0f;\n");
    tree_refused(v, "pairsum_carry", "the last store of slot before the tree (line 18) is not "
                                     "slot[threadIdx.x] = carry");
    free(v);
    free(src);
}

/* Session 47 (cuda-samples' scalarProd's form, a block per row): the tree inside a loop
 * over rows that every thread of a block runs alike (`r = blockIdx.x; r < rows; r +=
 * gridDim.x`); each iteration stores every thread's slot, runs the tree and has thread 0
 * write the row's result. The tree is rewritten in place inside the loop; the row loop,
 * the per-thread partials and the store are kept. */
static const char rows_src[] =
    "__global__ void rowsum(const float *x, float *out, int rows, int cols)\n"
    "{\n"
    "    __shared__ float s[256];\n"
    "    unsigned t = threadIdx.x;\n"
    "    for (int r = blockIdx.x; r < rows; r += gridDim.x) {\n"
    "        float v = 0.0f;\n"
    "        for (int c = t; c < cols; c += blockDim.x)\n"
    "            v += x[r * cols + c];\n"
    "        s[t] = v;\n"
    "        __syncthreads();\n"
    "        for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
    "            if (t < h)\n"
    "                s[t] += s[t + h];\n"
    "            __syncthreads();\n"
    "        }\n"
    "        if (t == 0)\n"
    "            out[r] = s[0];\n"
    "    }\n"
    "}\n";

/* every thread reads the row's result (a broadcast), then a barrier before the next row
 * overwrites the slots */
static const char rows_bcast_src[] =
    "__global__ void rownorm(const float *x, float *y, int rows, int cols)\n"
    "{\n"
    "    __shared__ float s[256];\n"
    "    const unsigned t = threadIdx.x;\n"
    "    for (int r = blockIdx.x; r < rows; r += gridDim.x) {\n"
    "        float v = 0.0f;\n"
    "        for (int c = t; c < cols; c += blockDim.x)\n"
    "            v = fmaxf(v, x[r * cols + c]);\n"
    "        s[t] = v;\n"
    "        __syncthreads();\n"
    "        for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
    "            if (t < h)\n"
    "                s[t] = fmaxf(s[t], s[t + h]);\n"
    "            __syncthreads();\n"
    "        }\n"
    "        float m = s[0];\n"
    "        for (int c = t; c < cols; c += blockDim.x)\n"
    "            y[r * cols + c] = x[r * cols + c] / m;\n"
    "        __syncthreads();\n"
    "    }\n"
    "}\n";

static void rows_loop(void **state)
{
    (void)state;
    tree_applies(rows_src, "rowsum", "s[t + h]",
                 (const char *const[]){"for (int r = blockIdx.x; r < rows; r += gridDim.x) {",
                                       "v += x[r * cols + c];", "s[t] = v;", "out[r] = s[0];", "s[0] = hk_acc;",
                                       NULL});
    tree_applies(rows_bcast_src, "rownorm", "s[t + h]",
                 (const char *const[]){"float m = s[0];", "y[r * cols + c] = x[r * cols + c] / m;", NULL});
}

/* What the row loop may not do, each refused at its line: the slots stored once before the
 * loop (the next row's tree would combine what this one left), every thread reading the
 * result with no barrier before the next row's stores, a loop the block's threads run
 * differently, a thread leaving the row early, a register carry across rows, another slot
 * read before the row's stores; and scalarProd's own tree over more slots than threads
 * (each thread combining several), named. */
static void rows_loop_refused(void **state)
{
    (void)state;
    char *v = replaced(rows_src, "        s[t] = v;\n", "        s[t] += v;\n");
    tree_refused(v, "rowsum", "line 11: the tree loop's slots are not stored again by every thread in the loop at "
                              "line 5 before the tree");
    free(v);
    v = replaced(rows_bcast_src, "            y[r * cols + c] = x[r * cols + c] / m;\n        __syncthreads();\n",
                 "            y[r * cols + c] = x[r * cols + c] / m;\n");
    tree_refused(v, "rownorm", "line 16: s[0] is read by threads other than thread 0 after the tree with no barrier "
                               "before the next iteration of the loop at line 5 stores the slots again");
    free(v);
    v = replaced(rows_src, "for (int r = blockIdx.x; r < rows; r += gridDim.x)",
                 "for (int r = blockIdx.x + t; r < rows; r += gridDim.x)");
    tree_refused(v, "rowsum", "line 11: the tree loop is inside a loop (line 5) that the threads of a block do not "
                              "run alike");
    free(v);
    v = replaced(rows_src, "        float v = 0.0f;\n", "        float v = 0.0f;\n        if (x[r * cols + t] < 0.0f) continue;\n");
    tree_refused(v, "rowsum", "line 7: a condition (an early return or an if) before the tree at line 12");
    free(v);
    /* a jump the block takes alike is refused too: the text check does not read conditions */
    v = replaced(rows_src, "        float v = 0.0f;\n", "        float v = 0.0f;\n        if (r == cols) break;\n");
    tree_refused(v, "rowsum", "line 7: `break` in the loop at line 5 around the tree");
    free(v);
    /* the slots' store skipped in some iterations, by a condition the block shares (an if on
     * a size or on the block, a switch's case, a `&&`): the next row's tree would combine the
     * last one's partial results, which the rewrite does not leave (the review of fcc29149) */
    static const char *const skipped[] = {
        "        if (cols > 4) s[t] = v;\n", "        if (blockIdx.x % 2 == 0) s[t] = v;\n",
        "        switch (r & 1) { case 0: s[t] = v; break; default: break; }\n",
        "        (void)(cols > 4 && (s[t] = v) > 0.0f);\n"};
    for (size_t i = 0; i < sizeof skipped / sizeof *skipped; i++) {
        v = replaced(rows_src, "        s[t] = v;\n", skipped[i]);
        tree_refused(v, "rowsum", "line 11: the tree loop's slots are not stored again by every thread in the loop at "
                                  "line 5 before the tree");
        free(v);
    }
    v = replaced(rows_src, "        float v = 0.0f;\n", "        float v = s[5];\n");
    tree_refused(v, "rowsum", "line 6: s is read in the loop at line 5 before the tree's slots are stored again");
    free(v);
    tree_refused("__global__ void acc_n(const float *a, const float *b, float *c, int vecs, int n)\n"
                 "{\n"
                 "    __shared__ float acc[1024];\n"
                 "    for (int v = blockIdx.x; v < vecs; v += gridDim.x) {\n"
                 "        for (int i = threadIdx.x; i < 1024; i += blockDim.x) {\n"
                 "            float sum = 0;\n"
                 "            for (int p = v * n + i; p < v * n + n; p += 1024)\n"
                 "                sum += a[p] * b[p];\n"
                 "            acc[i] = sum;\n"
                 "        }\n"
                 "        for (int h = 1024 / 2; h > 0; h >>= 1) {\n"
                 "            __syncthreads();\n"
                 "            for (int i = threadIdx.x; i < h; i += blockDim.x)\n"
                 "                acc[i] += acc[h + i];\n"
                 "        }\n"
                 "        __syncthreads();\n"
                 "        if (threadIdx.x == 0)\n"
                 "            c[v] = acc[0];\n"
                 "    }\n"
                 "}\n",
                 "acc_n", "line 14: the tree combines its slots in a loop (line 13): a tree over more slots than "
                          "threads");
}

static void unguarded_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void race(const float *x, float *out)\n"
                 "{\n"
                 "    __shared__ float s[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    s[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
                 "        s[t] += s[t + h];\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) out[blockIdx.x] = s[0];\n"
                 "}\n",
                 "race", "line 8: the tree's update has no guard");
}

/* a doubling loop whose guard does not pick the pairs of a tree (`t < h`): S[0] is not the
 * block's sum there, so it is not rewritten */
static void doubling_wrong_guard_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void wrong(const float *x, float *out)\n"
                 "{\n"
                 "    __shared__ float s[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    s[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = 1; h < blockDim.x; h *= 2) {\n"
                 "        if (t < h) s[t] += s[t + h];\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) out[blockIdx.x] = s[0];\n"
                 "}\n",
                 "wrong", "line 8: the tree's update has no guard that picks the combining threads");
}

static void early_return_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void er(const float *x, float *out, unsigned n)\n"
                 "{\n"
                 "    __shared__ float s[256];\n"
                 "    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;\n"
                 "    if (i >= n)\n"
                 "        return;\n"
                 "    s[t] = x[i];\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
                 "        if (t < h) s[t] += s[t + h];\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) out[blockIdx.x] = s[0];\n"
                 "}\n",
                 "er", "line 5: a condition (an early return or an if) before the tree at line 9");
}

static void block_2d_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void b2(const float *x, float *out)\n"
                 "{\n"
                 "    __shared__ float s[16][16];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    s[threadIdx.y][t] = x[blockIdx.x * 256 + threadIdx.y * 16 + t];\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = 8; h > 0; h >>= 1) {\n"
                 "        if (t < h) s[threadIdx.y][t] += s[threadIdx.y][t + h];\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) out[blockIdx.x * 16 + threadIdx.y] = s[threadIdx.y][0];\n"
                 "}\n",
                 "b2", "threadIdx.y");
}

/* a loop that quarters its step is geometric to the model, but its levels are no tree's */
static void quartering_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void q4(const float *x, float *out)\n"
                 "{\n"
                 "    __shared__ float s[256];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    s[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 2) {\n"
                 "        if (t < h) s[t] += s[t + h];\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0) out[blockIdx.x] = s[0];\n"
                 "}\n",
                 "q4", "line 7: the tree loop does not halve its variable once per level");
}

static void no_barrier_refused(void **state)
{
    (void)state;
    tree_refused("__global__ void nb(const float *x, float *out)\n"
                 "{\n"
                 "    __shared__ float s[32];\n"
                 "    unsigned t = threadIdx.x;\n"
                 "    s[t] = x[blockIdx.x * blockDim.x + t];\n"
                 "    __syncthreads();\n"
                 "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1)\n"
                 "        if (t < h) s[t] += s[t + h];\n"
                 "    if (t == 0) out[blockIdx.x] = s[0];\n"
                 "}\n",
                 "nb", "line 7: the tree loop has no barrier");
}

/* through the registry: block_reduce takes the tree path when warp_reduce refuses (a
 * per-block partial is not one atomic), and its refusal names the tree's construct */
static void registry_block_reduce(void **state)
{
    (void)state;
    fixture fx;
    load_text("__global__ void p(const float *x, float *part)\n"
              "{\n"
              "    __shared__ float s[256];\n"
              "    unsigned t = threadIdx.x;\n"
              "    s[t] = x[blockIdx.x * blockDim.x + t];\n"
              "    __syncthreads();\n"
              "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
              "        if (t < h) s[t] += s[t + h];\n"
              "        __syncthreads();\n"
              "    }\n"
              "    if (t == 0) part[blockIdx.x] = s[0];\n"
              "}\n",
              &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "p")};
    rw_result r;
    rw_refusal why;
    assert_int_equal(rw_apply_named("block_reduce", &ctx, NULL, &r, &why), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "part[blockIdx.x] = s[0];"));
    rw_result_free(&r);
    unload(&fx);
}

/* mmcv's furthest point sampling (bench/wild/src, when extracted): the per-pick argmax tree
 * through __update (max of the values, the upper index only when its value is strictly
 * greater) at the template block size. Both forms apply to the first kernel only; the loop
 * over picks then holds 5 barriers (the one after the stores, 4 in the exact form: its
 * transpose is made in dists/dists_i themselves, one barrier for 8.4 KB of shared memory)
 * or 3 (2 in the key form) instead of 2 + the tree's one per level; the second kernel (the
 * with-distances variant, a tree of its own) is left; nvcc sm_90 builds the text with the
 * template instantiated at every block size mmcv's switch launches (64 .. 1024). */
static void wild_fps(void **state)
{
    (void)state;
    fixture fx;
    if (!rwf_load_wild("mmcv_furthest_point_sample", &fx))
        return;
    static const char tree[] = "__update(dists, dists_i, tid, tid + tid_thres);";
    static const char inst[] =
        "template __global__ void furthest_point_sampling_forward_cuda_kernel<64>(int, int, int, const float *, float *, int *);\n"
        "template __global__ void furthest_point_sampling_forward_cuda_kernel<128>(int, int, int, const float *, float *, int *);\n"
        "template __global__ void furthest_point_sampling_forward_cuda_kernel<256>(int, int, int, const float *, float *, int *);\n"
        "template __global__ void furthest_point_sampling_forward_cuda_kernel<512>(int, int, int, const float *, float *, int *);\n"
        "template __global__ void furthest_point_sampling_forward_cuda_kernel<1024>(int, int, int, const float *, float *, int *);\n";
    for (int key = 0; key < 2; key++) {
        rw_result r;
        assert_int_equal(rw_block_tree_form(fx.text, fx.len, fx.m,
                                            kernel(&fx, "furthest_point_sampling_forward_cuda_kernel"), key, &r),
                         HK_OK);
        if (!r.applicable)
            fail_msg("key %d: %s", key, r.description);
        /* the first kernel's tree is gone, the second's is there */
        const char *first = strstr(r.text, "furthest_point_sampling_forward_cuda_kernel(");
        const char *second = strstr(r.text, "furthest_point_sampling_with_dist_forward_cuda_kernel(");
        assert_non_null(first);
        assert_non_null(second);
        assert_true(first < second);
        const char *t = strstr(r.text, tree);
        assert_true(t && t > second && !strstr(t + 1, tree));
        assert_non_null(strstr(r.description, key ? "2 barriers" : "4 barriers"));
        /* barriers in the loop over picks of the first kernel */
        const char *picks = strstr(first, "for (int j = 1; j < m; j++)");
        assert_true(picks && picks < second);
        int nb = 0;
        for (const char *b = strstr(picks, "__syncthreads()"); b && b < second; b = strstr(b + 1, "__syncthreads()"))
            nb++;
        assert_int_equal(nb, key ? 3 : 5);
        assert_non_null(strstr(first, key ? "__shfl_xor_sync" : "__shfl_down_sync"));
        rwf_nvcc_compiles_with(&r, inst, key ? "fps_key" : "fps_exact", "mmcv_furthest_point_sample");
        rw_result_free(&r);
    }
    unload(&fx);
}

/* Session 43: several trees in one block. rw_block_tree on kname: applicable, n trees
 * replaced (`hk rewrite: block_reduce.` n times, no string of `tree` left), the lines of
 * the loops in the description, every string of keep still there; compiles. */
static void trees_apply(const char *src, size_t len, const an_model *m, size_t k, const char *kname, int n,
                        const char *lines, const char *tree, const char *const *keep)
{
    rw_result r;
    assert_int_equal(rw_block_tree(src, len, m, k, &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    assert_true(r.keeps_launch);
    int got = 0;
    for (const char *p = strstr(r.text, "hk rewrite: block_reduce."); p; p = strstr(p + 1, "hk rewrite: block_reduce."))
        got++;
    assert_int_equal(got, n);
    if (strstr(r.text, tree))
        print_message("%s: the tree `%s` is still there:\n%s\n", kname, tree, r.text);
    assert_null(strstr(r.text, tree));
    for (size_t i = 0; keep[i]; i++) {
        if (!strstr(r.text, keep[i]))
            print_message("%s: no `%s` in\n%s\n", kname, keep[i], r.text);
        assert_non_null(strstr(r.text, keep[i]));
    }
    char want[160];
    snprintf(want, sizeof want, "%d shared-memory trees in one block (loops at lines %s)", n, lines);
    if (!strstr(r.description, want))
        print_message("%s: no `%s` in %s\n", kname, want, r.description);
    assert_non_null(strstr(r.description, want));
    rwf_nvcc_compiles(r.text, kname);
    rw_result_free(&r);
}

/* A row normalization (the mean, then the variance around it, over one buffer) and a row's
 * maximum then a sum below it (two buffers, integers, the second tree interleaved, a macro
 * block size): both trees of each rewritten, the barrier and the code between them kept. */
static void two_trees(void **state)
{
    (void)state;
    static const char *const files[] = {"rewrite_tree/two_trees_norm.cu", "rewrite_tree/two_trees_int.cu"};
    static const char *const kernels[] = {"row_norm", "row_gap"};
    static const char *const lines[] = {"16, 30", "18, 29"};
    static const char *const trees[] = {"red[tid + h]", "tot[t + s]"};
    static const char *const keep_norm[] = {"    const float mean = red[0] / cols;\n    __syncthreads();\n",
                                            "    red[tid] = q;\n    __syncthreads();\n",
                                            "const float rstd = 1.0f / sqrtf(red[0] / cols + eps);",
                                            "red[0] = hk_acc;", NULL};
    static const char *const keep_int[] = {"const int top = big[0];", "tot[t] = acc;", "big[0] = hk_acc;",
                                           "tot[0] = hk_acc;", "out[blockIdx.x] = tot[0] * 2 + top;", NULL};
    const char *const *keeps[] = {keep_norm, keep_int};
    for (size_t i = 0; i < 2; i++) {
        char *src = rwf_data_file(files[i]);
        fixture fx;
        load_text(src, &fx);
        trees_apply(fx.text, fx.len, fx.m, kernel(&fx, kernels[i]), kernels[i], 2, lines[i], trees[i], keeps[i]);
        unload(&fx);
        free(src);
    }
}

/* What stops a kernel of two trees, each with its line: another slot read between the
 * trees, a slot not stored again by every thread before the second tree over the same
 * buffer (a guard on the thread, or no store), a store at another slot, a register carry. */
static void two_trees_refused(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_tree/two_trees_norm.cu");
    char *v = replaced(src, "const float mean = red[0] / cols;", "const float mean = (red[0] + 0.0f * red[1]) / cols;");
    tree_refused(v, "row_norm", "line 21: red is read after the tree at another place than red[0]");
    free(v);
    v = replaced(src, "    red[tid] = q;\n", "    if (tid < cols)\n        red[tid] = q;\n");
    tree_refused(v, "row_norm", "line 31: not every thread stores red[threadIdx.x] again before this tree, after the "
                                "previous tree of red at line 16");
    free(v);
    v = replaced(src, "    red[tid] = q;\n", "");
    tree_refused(v, "row_norm", "line 29: not every thread stores red[threadIdx.x] again before this tree");
    free(v);
    v = replaced(src, "    red[tid] = q;\n", "    red[(tid + 1) % blockDim.x] = q;\n");
    tree_refused(v, "row_norm", "line 28: red is written at another index than threadIdx.x before the tree");
    free(v);
    free(src);
    /* a register carry's tree (thread 0 writes the register) beside a second tree */
    char *carry = rwf_data_file("rewrite_tree/carry_chained.cu");
    v = replaced(carry, "        partial[blockIdx.x] = carry;\n",
                 "        partial[blockIdx.x] = carry;\n"
                 "    __syncthreads();\n"
                 "    slot[t] = (g < n) ? in[g] * in[g] : 0;\n"
                 "    __syncthreads();\n"
                 "    for (unsigned int h = blockDim.x / 2; h > 0; h >>= 1) {\n"
                 "        if (t < h)\n"
                 "            slot[t] += slot[t + h];\n"
                 "        __syncthreads();\n"
                 "    }\n"
                 "    if (t == 0)\n"
                 "        partial[gridDim.x + blockIdx.x] = slot[0];\n");
    tree_refused(v, "pairsum_carry", "line 20: the tree's register carry carry in a kernel of 2 trees");
    free(v);
    free(carry);
}

/* llm.c's softmax_forward_kernel2 (bench/wild/src, when extracted): a block per row, the
 * row's maximum by a fmaxf tree, expf(x - max) written, then the written row's sum by a
 * second tree over the same dynamic shared buffer: both trees rewritten (the file has no
 * other `shared[tid + stride]`), the barriers and the code between them kept; nvcc sm_90
 * builds the text. */
static void wild_softmax2(void **state)
{
    (void)state;
    fixture fx;
    if (!rwf_load_wild("llmc_softmax2", &fx))
        return;
    static const char *const keep[] = {"    shared[tid] = maxval;\n", "    float offset = shared[0];\n",
                                       "    shared[tid] = sumval;\n", "    float sum = shared[0];\n",
                                       "out[idx * C + i] = x[i] / sum;", NULL};
    size_t k = kernel(&fx, "softmax_forward_kernel2");
    trees_apply(fx.text, fx.len, fx.m, k, "llmc_softmax2", 2, "526, 547", "shared[tid + stride]", keep);
    unload(&fx);
}

static int tree(const fixture *fx, size_t k, rw_result *r)
{
    return rw_block_tree(fx->text, fx->len, fx->m, k, r);
}

static void survives_alloc_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text("__global__ void p(const float *x, float *part)\n"
              "{\n"
              "    __shared__ float s[256];\n"
              "    unsigned t = threadIdx.x;\n"
              "    s[t] = x[blockIdx.x * blockDim.x + t];\n"
              "    __syncthreads();\n"
              "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
              "        if (t < h) s[t] += s[t + h];\n"
              "        __syncthreads();\n"
              "    }\n"
              "    if (t == 0) part[blockIdx.x] = s[0];\n"
              "}\n",
              &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "p"), tree);
    unload(&fx);
}

/* session 43: the path of several trees, under every allocation failure */
static void trees_survive_alloc_failures(void **state)
{
    (void)state;
    char *src = rwf_data_file("rewrite_tree/two_trees_norm.cu");
    fixture fx;
    load_text(src, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "row_norm"), tree);
    unload(&fx);
    free(src);
}

static void pair_survives_alloc_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(pick_src, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "pick"), tree);
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(halving_partials),
        cmocka_unit_test(interleaved_modulo),
        cmocka_unit_test(interleaved_index),
        cmocka_unit_test(macro_max),
        cmocka_unit_test(template_channel_mean),
        cmocka_unit_test(int_min_do_while),
        cmocka_unit_test(helper_shared_sumsq),
        cmocka_unit_test(other_slot_read_refused),
        cmocka_unit_test(called_function_refused),
        cmocka_unit_test(pair_device_function),
        cmocka_unit_test(pair_inline_select),
        cmocka_unit_test(pair_guarded_copy),
        cmocka_unit_test(pair_not_argmax_refused),
        cmocka_unit_test(tuple_trees_apply),
        cmocka_unit_test(tuple_refusals),
        cmocka_unit_test(loop_extras_refused),
        cmocka_unit_test(wild_sync_bn_backward),
        cmocka_unit_test(pair_read_after_store_refused),
        cmocka_unit_test(pair_other_slot_refused),
        cmocka_unit_test(pair_no_barrier_refused),
        cmocka_unit_test(pair_other_orders_refused),
        cmocka_unit_test(unrolled_last_warp_refused),
        cmocka_unit_test(coarsened_ge_one),
        cmocka_unit_test(two_trees),
        cmocka_unit_test(two_trees_refused),
        cmocka_unit_test(wild_softmax2),
        cmocka_unit_test(carry_chained),
        cmocka_unit_test(carry_split),
        cmocka_unit_test(carry_refusals),
        cmocka_unit_test(rows_loop),
        cmocka_unit_test(rows_loop_refused),
        cmocka_unit_test(unguarded_refused),
        cmocka_unit_test(doubling_wrong_guard_refused),
        cmocka_unit_test(early_return_refused),
        cmocka_unit_test(block_2d_refused),
        cmocka_unit_test(no_barrier_refused),
        cmocka_unit_test(quartering_refused),
        cmocka_unit_test(registry_block_reduce),
        cmocka_unit_test(wild_fps),
        cmocka_unit_test(survives_alloc_failures),
        cmocka_unit_test(pair_survives_alloc_failures),
        cmocka_unit_test(trees_survive_alloc_failures),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
