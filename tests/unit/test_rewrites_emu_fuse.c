/* fused_blocks (rewrite_fuse.c) run, not only compiled: kernels whose blocks load a few
 * words per thread and then work behind barriers -- a per-block partial sum through a
 * shared tree (the skills' sample), a grid-stride partial whose sum starts before the first
 * read of blockIdx.x (the copies start at its declaration), an integer tile count on a 2-D
 * grid into an atomic with dynamic shared memory, a tree through cooperative groups' calls
 * (a stand-in namespace: the emulator blanks #include lines) with a shared pointer from a
 * plain struct and a register carry (cuda-samples' reduce3 shape), a row per block whose
 * strided loop's trips do not depend on the block (jammed: one loop, each block's body in
 * it) -- and their rewrites at 2, 4
 * and 8 blocks run in the block emulator (emu_block.h) on grids that are and are not
 * multiples of F, under three thread orders: every output, and the sentinel past the last
 * one, bit for bit. Two broken rewrites must differ: every copy loading the leader's block
 * (the clamped index replaced by blockIdx.x), and the rest of a block past the grid run
 * anyway (its guard dropped: a store past the outputs). Stacked on block_reduce's output (a
 * nested `__shared__` per copy), on integer-valued data, it matches too. Session 45: a store
 * into dynamic shared memory whose value loads from pointer parameters (cuda-samples'
 * reduce0, `sdata[tid] = (i < n) ? g_idata[i] : 0;`; an extern array whose value reads the
 * block index itself; a template kernel's reinterpret_cast pointer with two loads and `T(0)` in
 * the value; loads through local pointers computed from a parameter, `&row[t]`) is
 * loaded for every copy ahead of the rests: emulated at F 2/4/8 and
 * stacked on block_reduce; block b+1 storing block b's value, or loading at the leader's
 * index, differs. Refusals with their line: an early
 * return, a parameter or a block-free local written after the split, a spin loop after the first store, an impure call before it, a nested __shared__,
 * nothing read of blockIdx.x before the first store, a macro reading blockIdx; and the
 * device rule (a grid whose working blocks no longer fill the GPU). The emitted texts
 * compile with nvcc. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "spec/spec.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
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
    return rwf_setup("rewrites-emu-fuse");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static emu_batch batch;

static const char k_partials[] =
    "__global__ void block_partials(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float s[256];\n"
    "    int t = threadIdx.x;\n"
    "    int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;\n"
    "    float v = 0.0f;\n"
    "    if (i < n)\n"
    "        v = in[i];\n"
    "    if (n > i + blockDim.x)\n"
    "        v += in[i + blockDim.x];\n"
    "    s[t] = v;\n"
    "    __syncthreads();\n"
    "    for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
    "        if (t < k)\n"
    "            s[t] += s[t + k];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0)\n"
    "        out[blockIdx.x] = s[0];\n"
    "}\n";

/* the sum v is declared before blockIdx.x is read: the copies start at its declaration */
static const char k_stride[] =
    "__global__ void stride_part(const float *x, float *partial, unsigned n)\n"
    "{\n"
    "    __shared__ float acc[128];\n"
    "    unsigned t = threadIdx.x;\n"
    "    float v = 0.0f;\n"
    "    for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)\n"
    "        v = v * 0.5f + x[i];\n"
    "    acc[t] = v;\n"
    "    __syncthreads();\n"
    "    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {\n"
    "        if (t < h)\n"
    "            acc[t] += acc[t + h];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0)\n"
    "        partial[blockIdx.x] = acc[0] + (float)blockIdx.y;\n"
    "}\n";

/* a 2-D grid: blockIdx.y kept, dynamic shared memory, an atomic per block and a store */
static const char k_tiles[] =
    "__global__ void tile_count(const int *a, int *total, int *per_tile, int w, int h)\n"
    "{\n"
    "    extern __shared__ int cnt[];\n"
    "    const int tx = threadIdx.x;\n"
    "    const int col = blockIdx.x * blockDim.x + tx;\n"
    "    const int row = blockIdx.y;\n"
    "    const int v = (col < w && row < h) ? a[row * w + col] : 0;\n"
    "    const int odd = v & 1;\n"
    "    cnt[tx] = odd;\n"
    "    __syncthreads();\n"
    "    for (int k = 1; k < blockDim.x; k *= 2) {\n"
    "        const int o = tx >= k ? cnt[tx - k] : 0;\n"
    "        __syncthreads();\n"
    "        cnt[tx] += o;\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (tx == blockDim.x - 1) {\n"
    "        atomicAdd(total, cnt[tx]);\n"
    "        per_tile[row * gridDim.x + blockIdx.x] = cnt[tx] * 1000 + (int)blockIdx.x;\n"
    "    }\n"
    "}\n";

/* cuda-samples' reduce3 shape: a cooperative-groups handle, a shared pointer from a plain
 * struct's conversion, unsigned indices, a register carry through the tree */
static const char k_cg[] =
    "namespace cg {\n" /* cooperative groups' two calls (the emulator blanks #include lines) */
    "struct thread_block {};\n"
    "__device__ inline thread_block this_thread_block() { return thread_block(); }\n"
    "__device__ inline void sync(thread_block) { __syncthreads(); }\n"
    "}\n"
    "template <class T> struct SharedMem {\n"
    "    __device__ inline operator T *()\n"
    "    {\n"
    "        extern __shared__ int hk_smem_test[];\n"
    "        return (T *)hk_smem_test;\n"
    "    }\n"
    "};\n"
    "template <class T> __global__ void red3(T *g_idata, T *g_odata, unsigned int n)\n"
    "{\n"
    "    cg::thread_block cta = cg::this_thread_block();\n"
    "    T *sdata = SharedMem<T>();\n"
    "    unsigned int tid = threadIdx.x;\n"
    "    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;\n"
    "    T mySum = (i < n) ? g_idata[i] : 0;\n"
    "    if (n > i + blockDim.x)\n"
    "        mySum += g_idata[i + blockDim.x];\n"
    "    sdata[tid] = mySum;\n"
    "    cg::sync(cta);\n"
    "    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "        if (tid < s) {\n"
    "            sdata[tid] = mySum = mySum + sdata[tid + s];\n"
    "        }\n"
    "        cg::sync(cta);\n"
    "    }\n"
    "    if (tid == 0)\n"
    "        g_odata[blockIdx.x] = mySum;\n"
    "}\n"
    "template __global__ void red3<float>(float *, float *, unsigned int);\n";

/* cuda-samples' reduce0 shape (session 45): each thread's one load is the value of its store
 * into dynamic shared memory through the plain struct's pointer, `sdata[tid] = (i < n) ?
 * g_idata[i] : 0;`, then the interleaved tree with the modulo: the value is loaded for every
 * copy ahead of the copies' rests (hoisted_store) */
static const char k_r0[] =
    "namespace cg {\n"
    "struct thread_block {};\n"
    "__device__ inline thread_block this_thread_block() { return thread_block(); }\n"
    "__device__ inline void sync(thread_block) { __syncthreads(); }\n"
    "}\n"
    "template <class T> struct SharedMem {\n"
    "    __device__ inline operator T *()\n"
    "    {\n"
    "        extern __shared__ int hk_smem_test[];\n"
    "        return (T *)hk_smem_test;\n"
    "    }\n"
    "};\n"
    "template <class T> __global__ void red0(T *g_idata, T *g_odata, unsigned int n)\n"
    "{\n"
    "    cg::thread_block cta = cg::this_thread_block();\n"
    "    T *sdata = SharedMem<T>();\n"
    "    unsigned int tid = threadIdx.x;\n"
    "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    sdata[tid] = (i < n) ? g_idata[i] : 0;\n"
    "    cg::sync(cta);\n"
    "    for (unsigned int s = 1; s < blockDim.x; s *= 2) {\n"
    "        if ((tid % (2 * s)) == 0) {\n"
    "            sdata[tid] += sdata[tid + s];\n"
    "        }\n"
    "        cg::sync(cta);\n"
    "    }\n"
    "    if (tid == 0)\n"
    "        g_odata[blockIdx.x] = sdata[0];\n"
    "}\n"
    "template __global__ void red0<float>(float *, float *, unsigned int);\n";

/* a template kernel's shared pointer by reinterpret_cast of an extern byte array, a
 * stored value of two loads (reduce3's first add, in the store) with a functional cast `T(0)` */
static const char k_rb[] =
    "template <typename T>\n"
    "__global__ void rb(const T *__restrict__ in, T *out, int n)\n"
    "{\n"
    "    extern __shared__ unsigned char smem[];\n"
    "    T *sdata = reinterpret_cast<T *>(smem);\n"
    "    int tid = threadIdx.x;\n"
    "    int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;\n"
    "    sdata[tid] = (n > i + blockDim.x) ? in[i] + in[i + blockDim.x] : (n > i ? in[i] : T(0));\n"
    "    __syncthreads();\n"
    "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "        if (tid < s)\n"
    "            sdata[tid] += sdata[tid + s];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (tid == 0)\n"
    "        out[blockIdx.x] = sdata[0];\n"
    "}\n"
    "template __global__ void rb<float>(const float *__restrict__, float *, int);\n";

/* the stored value loads through local pointers computed from a parameter in the copied part
 * (`row = in + blockIdx.x * cols`, `el = &row[t]`): global memory too, one per copy */
static const char k_rowp[] =
    "__global__ void rowsum(const float *in, float *out, int cols)\n"
    "{\n"
    "    extern __shared__ float sh[];\n"
    "    const int t = threadIdx.x;\n"
    "    const float *row = in + blockIdx.x * cols;\n"
    "    const float *el = &row[t];\n"
    "    sh[t] = cols > t ? el[0] * row[0] : 0.0f;\n"
    "    __syncthreads();\n"
    "    for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
    "        if (t < k)\n"
    "            sh[t] += sh[t + k];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0)\n"
    "        out[blockIdx.x] = sh[0];\n"
    "}\n";

/* an extern __shared__ array stored first with a value that reads the block index itself (the
 * split is that store: nothing else is copied), read back at another thread's element */
static const char k_dyn[] =
    "__global__ void dyn_rev(const float *a, float *o, int n)\n"
    "{\n"
    "    extern __shared__ float dyn[];\n"
    "    dyn[threadIdx.x] = n > blockIdx.x * blockDim.x + threadIdx.x ? __ldg(&a[blockIdx.x * blockDim.x + threadIdx.x]) * 0.5f : -1.0f;\n"
    "    __syncthreads();\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        o[i] = dyn[blockDim.x - 1 - threadIdx.x] + (float)blockIdx.x;\n"
    "}\n";

/* a row per block, a strided loop whose trips do not depend on the block: one loop for the
 * fused blocks (jammed), each block's body in turn per trip */
static const char k_rows[] =
    "__global__ void row_var(float *r, const float *inp, const float *mean, int C)\n"
    "{\n"
    "    extern __shared__ float sh[];\n"
    "    int row = blockIdx.x;\n"
    "    int t = threadIdx.x;\n"
    "    const float *x = inp + row * C;\n"
    "    float m = mean[row];\n"
    "    float acc = 0.0f;\n"
    "    #pragma unroll 2\n"
    "    for (int i = t; i < C; i += blockDim.x) {\n"
    "        float d = x[i] - m;\n"
    "        acc += d * d;\n"
    "    }\n"
    "    sh[t] = acc;\n"
    "    __syncthreads();\n"
    "    for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
    "        if (t < k)\n"
    "            sh[t] += sh[t + k];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0)\n"
    "        r[row] = sh[0] / C;\n"
    "}\n";

/* a tile staged in two phases behind a barrier (rodinia srad's shape): the copied part runs
 * to the last global load, through the top-level barrier (passed once by the copies) and a
 * read of another thread's element of the first tile; each copy stages its own tiles */
static const char k_stage[] =
    "#define TS 8\n"
    "__global__ void stage2(const float *J, float *C, int cols)\n"
    "{\n"
    "    __shared__ float north[TS][TS];\n"
    "    __shared__ float tile[TS][TS];\n"
    "    __shared__ float res[TS][TS];\n"
    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
    "    int bx = blockIdx.x, by = blockIdx.y;\n"
    "    int row = by * TS + ty, col = bx * TS + tx;\n"
    "    north[ty][tx] = J[(row > 0 ? row - 1 : 0) * cols + col];\n"
    "    if (bx == gridDim.x - 1)\n"
    "        north[ty][tx] += 1.0f;\n"
    "    __syncthreads();\n"
    "    float nb = north[(ty + 1) % TS][tx];\n"
    "    tile[ty][tx] = J[row * cols + col] * 0.5f + nb;\n"
    "    __syncthreads();\n"
    "    float v = tile[ty][(tx + 1) % TS] - tile[ty][tx];\n"
    "    res[ty][tx] = v * v;\n"
    "    __syncthreads();\n"
    "    C[row * cols + col] = res[(ty + 3) % TS][tx] + (float)bx;\n"
    "}\n";

/* cuda-samples' convolutionRows shape along y (only blockIdx.y read: the fused axis is y):
 * the parameters stepped to the block's row (each copy gets its own), the tile staged by an
 * unrolled loop (jammed) and a guarded halo, one barrier, the outputs from the tile */
static const char k_rowsy[] =
    "#define RX 8\n"
    "#define STEPS 4\n"
    "__global__ void rows_y(float *dst, const float *src, int w, int pitch)\n"
    "{\n"
    "    __shared__ float s_data[2][STEPS * RX + 2];\n"
    "    const int base = blockIdx.y * 2 + threadIdx.y;\n"
    "    src += base * pitch;\n"
    "    dst += base * pitch;\n"
    "#pragma unroll\n"
    "    for (int i = 0; i < STEPS; i++)\n"
    "        s_data[threadIdx.y][1 + threadIdx.x + i * RX] = src[threadIdx.x + i * RX];\n"
    "    if (threadIdx.x == 0) {\n"
    "        s_data[threadIdx.y][0] = 0.0f;\n"
    "        s_data[threadIdx.y][STEPS * RX + 1] = src[w - 1] + (float)blockIdx.y;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (int i = 0; i < STEPS; i++) {\n"
    "        int x = 1 + threadIdx.x + i * RX;\n"
    "        dst[x - 1] = s_data[threadIdx.y][x - 1] + 2.0f * s_data[threadIdx.y][x] + s_data[threadIdx.y][x + 1];\n"
    "    }\n"
    "}\n";

/* a pointer to the tile taken before blockIdx is read: the split moves back to it, so that
 * each copy's pointer names its own tile */
static const char k_tptr[] =
    "__global__ void tptr(const float *a, float *o)\n"
    "{\n"
    "    __shared__ float tile[64];\n"
    "    float *p = tile + threadIdx.x;\n"
    "    int i = blockIdx.x * 64 + threadIdx.x;\n"
    "    tile[threadIdx.x] = a[i];\n"
    "    __syncthreads();\n"
    "    o[i] = tile[63 - threadIdx.x] + 2.0f * p[0];\n"
    "}\n";

/* a block-free local written after the first barrier: each copy gets its own */
static const char k_tloc[] =
    "__global__ void tloc(const float *a, float *o)\n"
    "{\n"
    "    int t = threadIdx.x;\n"
    "    float v = a[blockIdx.x * 64 + t];\n"
    "    __syncthreads();\n"
    "    t += 1;\n"
    "    o[blockIdx.x * 64 + t - 1] = v;\n"
    "}\n";

/* Drivers: grids of G blocks (some not multiples of F), outputs G + 8 with a sentinel past
 * the last (EMU_PAIR sets -7 everywhere and compares bit for bit). */
/* session 52: functional casts to arithmetic types in the copied part (Rodinia cfd's
 * `step_factors[i] / float(RK + 1 - j)`): conversions, no call that may write memory */
static const char k_cast[] =
    "__global__ void cast_scale(const float *in, float *out, int k, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int j = i < n ? i : n - 1;\n"
    "    float f = in[j] / float(k + 1);\n"
    "    float g = float(double(in[j]) * 0.5) + float(bool(j & 1));\n"
    "    if (i < n)\n"
    "        out[i] = f * 3.0f + g;\n"
    "}\n";
static const char d_cast[] =
    "for (int G : {1, 3, 8, 13}) for (int B : {32, 64}) {\n"
    "    const int n = G * B - 7;\n"
    "    emu::buf<float> in(G * B); in.fill(G + B);\n"
    "    PAIR(float, \"cast\", G * B + 8, emu::launch(dim3(G), dim3(B), 0, [&] { NS::cast_scale(in, out, G, n); }));\n"
    "}\n";
static const char d_partials[] =
    "for (int G : {1, 3, 8, 13}) for (int B : {64, 128}) {\n"
    "    const int n = G * 2 * B - 5;\n"
    "    emu::buf<float> in(G * 2 * B); in.fill(G + B);\n"
    "    PAIR(float, \"partials\", G + 8, emu::launch(dim3(G), dim3(B), 0, [&] { NS::block_partials(in, out, n); }));\n"
    "}\n";
static const char d_stride[] =
    "for (int G : {2, 5, 9}) for (unsigned n : {1000u, 77u}) {\n"
    "    emu::buf<float> x(n); x.fill((int)n + G);\n"
    "    PAIR(float, \"stride\", 2 * G + 8, emu::launch(dim3(G, 2), dim3(128), 0, [&] { NS::stride_part(x, out, n); }));\n"
    "}\n";
static const char d_tiles[] =
    "for (int G : {1, 6, 7}) {\n"
    "    const int w = G * 32 - 3, h = 3;\n"
    "    emu::buf<int> a(w * h); a.fill_mod(G, 1000);\n"
    "    emu::buf<int> tot(1);\n"
    "    PAIR(int, \"tiles\", G * h + 8, tot.set(0); emu::launch(dim3(G, h), dim3(32), 32 * sizeof(int), [&] { NS::tile_count(a, tot, out, w, h); }); out[G * h + 7] = tot[0]);\n"
    "}\n";
/* session 46: a cooperative-groups handle declared after the block index (in the part the
 * rewrite copies per block, as cuda-samples' FDTD3d declares it): each copy its own */
static const char k_cgafter[] =
    "namespace cg {\n" /* cooperative groups' two calls (the emulator blanks #include lines) */
    "struct thread_block {};\n"
    "__device__ inline thread_block this_thread_block() { return thread_block(); }\n"
    "__device__ inline void sync(thread_block) { __syncthreads(); }\n"
    "}\n"
    "__global__ void cg_after(const float *x, float *y, int n)\n"
    "{\n"
    "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    cg::thread_block cta = cg::this_thread_block();\n"
    "    __shared__ float s[128];\n"
    "    s[threadIdx.x] = i < n ? x[i] : 0.0f;\n"
    "    cg::sync(cta);\n"
    "    if (i < n)\n"
    "        y[i] = s[threadIdx.x] + s[(threadIdx.x + 1) % blockDim.x];\n"
    "}\n";

static const char d_cgafter[] =
    "for (int G : {1, 4, 11}) {\n"
    "    const int n = G * 128 - 17;\n"
    "    emu::buf<float> x(G * 128); x.fill(G);\n"
    "    PAIR(float, \"cgafter\", G * 128 + 8, emu::launch(dim3(G), dim3(128), 0, [&] { NS::cg_after(x, out, n); }));\n"
    "}\n";

static const char d_cg[] =
    "for (int G : {1, 4, 11}) {\n"
    "    const unsigned n = G * 256 - 17;\n"
    "    emu::buf<float> in(G * 256); in.fill(G);\n"
    "    PAIR(float, \"cg\", G + 8, emu::launch(dim3(G), dim3(128), 128 * sizeof(float), [&] { NS::red3<float>(in, out, n); }));\n"
    "}\n";

static const char d_rows[] =
    "for (int G : {1, 5, 9}) for (int C : {37, 300}) {\n"
    "    emu::buf<float> inp(G * C); inp.fill(G + C);\n"
    "    emu::buf<float> mean(G); mean.fill(G);\n"
    "    PAIR(float, \"rows\", G + 8, emu::launch(dim3(G), dim3(64), 64 * sizeof(float), [&] { NS::row_var(out, inp, mean, C); }));\n"
    "}\n";

static const char d_stage[] =
    "for (int G : {1, 3, 5}) for (int H : {1, 2}) {\n"
    "    const int cols = G * 8;\n"
    "    emu::buf<float> J(cols * H * 8); J.fill(G * 7 + H);\n"
    "    PAIR(float, \"stage\", cols * H * 8 + 8, emu::launch(dim3(G, H), dim3(8, 8), 0, [&] { NS::stage2(J, out, cols); }));\n"
    "}\n";
static const char d_rowsy[] =
    "for (int G : {1, 3, 6}) for (int pitch : {32, 35}) {\n"
    "    emu::buf<float> src(2 * G * pitch); src.fill(G + pitch);\n"
    "    PAIR(float, \"rowsy\", 2 * G * pitch + 8, emu::launch(dim3(1, G), dim3(8, 2), 0, [&] { NS::rows_y(out, src, 32, pitch); }));\n"
    "}\n";
static const char d_tptr[] =
    "for (int G : {1, 3, 7}) {\n"
    "    emu::buf<float> a(G * 64); a.fill(G + 1);\n"
    "    PAIR(float, \"tptr\", G * 64 + 8, emu::launch(dim3(G), dim3(64), 0, [&] { NS::tptr(a, out); }));\n"
    "}\n";
static const char d_tloc[] =
    "for (int G : {1, 3, 7}) {\n"
    "    emu::buf<float> a(G * 64); a.fill(G);\n"
    "    PAIR(float, \"tloc\", G * 64 + 8, emu::launch(dim3(G), dim3(64), 0, [&] { NS::tloc(a, out); }));\n"
    "}\n";

static const char d_r0[] =
    "for (int G : {1, 4, 11}) for (int B : {64, 128}) {\n"
    "    const unsigned n = G * B - 17;\n"
    "    emu::buf<float> in(G * B); in.fill(G + B);\n"
    "    PAIR(float, \"r0\", G + 8, emu::launch(dim3(G), dim3(B), B * sizeof(float), [&] { NS::red0<float>(in, out, n); }));\n"
    "}\n";
static const char d_rb[] =
    "for (int G : {1, 3, 8}) for (int B : {64, 128}) {\n"
    "    const int n = G * 2 * B - 5;\n"
    "    emu::buf<float> in(G * 2 * B); in.fill(G * 3 + B);\n"
    "    PAIR(float, \"rb\", G + 8, emu::launch(dim3(G), dim3(B), B * sizeof(float), [&] { NS::rb<float>(in, out, n); }));\n"
    "}\n";
static const char d_rowp[] =
    "for (int G : {1, 3, 7}) for (int cols : {37, 64}) {\n"
    "    emu::buf<float> in(G * cols); in.fill(G + cols);\n"
    "    PAIR(float, \"rowp\", G + 8, emu::launch(dim3(G), dim3(64), 64 * sizeof(float), [&] { NS::rowsum(in, out, cols); }));\n"
    "}\n";
static const char d_dyn[] =
    "for (int G : {1, 3, 7}) {\n"
    "    const int n = G * 64 - 9;\n"
    "    emu::buf<float> a(G * 64); a.fill(G + 2);\n"
    "    PAIR(float, \"dyn\", G * 64 + 8, emu::launch(dim3(G), dim3(64), 64 * sizeof(float), [&] { NS::dyn_rev(a, out, n); }));\n"
    "}\n";

static void add_case(const char *tag, const char *src, const char *kname, int F, const char *driver)
{
    int p[RW_MAX_PARAMS] = {F};
    char *cand = emu_rewrite(src, kname, "fused_blocks", p);
    char t[96];
    snprintf(t, sizeof t, "%s_f%d", tag, F);
    emu_batch_add_pair(&batch, t, src, cand, EMU_PAIR, driver, EMU_OK);
    rwf_nvcc_compiles(cand, t);
    free(cand);
}

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, "fuse");
    static const int fs[] = {2, 4, 8};
    for (size_t i = 0; i < 3; i++) {
        add_case("partials", k_partials, "block_partials", fs[i], d_partials);
        add_case("stride", k_stride, "stride_part", fs[i], d_stride);
        add_case("tiles", k_tiles, "tile_count", fs[i], d_tiles);
        add_case("cg", k_cg, "red3", fs[i], d_cg);
        add_case("cgafter", k_cgafter, "cg_after", fs[i], d_cgafter);
        add_case("rows", k_rows, "row_var", fs[i], d_rows);
        add_case("stage", k_stage, "stage2", fs[i], d_stage);
        add_case("rowsy", k_rowsy, "rows_y", fs[i], d_rowsy);
        add_case("tloc", k_tloc, "tloc", fs[i], d_tloc);
        add_case("tptr", k_tptr, "tptr", fs[i], d_tptr);
        add_case("r0", k_r0, "red0", fs[i], d_r0);
        add_case("dyn", k_dyn, "dyn_rev", fs[i], d_dyn);
        add_case("rb", k_rb, "rb", fs[i], d_rb);
        add_case("rowp", k_rowp, "rowsum", fs[i], d_rowp);
        add_case("cast", k_cast, "cast_scale", fs[i], d_cast);
    }
    /* broken on purpose, the casts' kernel: block b+1's rest using block b's scale */
    {
        int p2[RW_MAX_PARAMS] = {2};
        char *c2 = emu_rewrite(k_cast, "cast_scale", "fused_blocks", p2);
        assert_non_null(strstr(c2, "float f_hk1 = in[j_hk1] / float(k + 1);"));
        char *mixed = emu_replaced_all(c2, "out[i_hk1] = f_hk1 * 3.0f + g_hk1;", "out[i_hk1] = f * 3.0f + g_hk1;");
        assert_true(strcmp(mixed, c2) != 0);
        emu_batch_add_pair(&batch, "broken_cast_scale", k_cast, mixed, EMU_PAIR, d_cast, EMU_DIFFERS);
        free(mixed);
        free(c2);
    }
    /* broken on purpose, the hoisted store: block b+1 stores block b's value, and block b+1's
     * value loaded at the leader's index */
    {
        int p2[RW_MAX_PARAMS] = {2};
        char *r0 = emu_rewrite(k_r0, "red0", "fused_blocks", p2);
        assert_non_null(strstr(r0, "sdata[tid] = hk_fb_s1;"));
        char *swapped = emu_replaced_all(r0, "sdata[tid] = hk_fb_s1;", "sdata[tid] = hk_fb_s0;");
        emu_batch_add_pair(&batch, "broken_hoist_value", k_r0, swapped, EMU_PAIR, d_r0, EMU_DIFFERS);
        static const char own[] = "auto hk_fb_s1 = (i_hk1 < n) ? g_idata[i_hk1] : 0;";
        assert_non_null(strstr(r0, own));
        char *lead = emu_replaced_all(r0, own, "auto hk_fb_s1 = (i < n) ? g_idata[i] : 0;");
        emu_batch_add_pair(&batch, "broken_hoist_index", k_r0, lead, EMU_PAIR, d_r0, EMU_DIFFERS);
        free(lead);
        free(swapped);
        free(r0);
        /* stacked on block_reduce (reduce0's modulo tree as shuffles), integer-valued data */
        char *tree = emu_rewrite(k_r0, "red0", "block_reduce", NULL);
        int p4[RW_MAX_PARAMS] = {4};
        char *st = emu_rewrite(tree, "red0", "fused_blocks", p4);
        assert_non_null(strstr(st, "hk_part"));
        assert_non_null(strstr(st, "sdata[tid] = hk_fb_s3;"));
        emu_batch_add_pair(&batch, "stacked_r0_f4", k_r0, st, EMU_PAIR,
                           "for (int G : {1, 4, 11}) for (int B : {64, 128, 256}) {\n"
                           "    const unsigned n = G * B - 17;\n"
                           "    emu::buf<float> in(G * B); in.fill_mod(G + B, 9);\n"
                           "    PAIR(float, \"r0s\", G + 8, emu::launch(dim3(G), dim3(B), B * sizeof(float), [&] { NS::red0<float>(in, out, n); }));\n"
                           "}\n",
                           EMU_OK);
        rwf_nvcc_compiles(st, "stacked_r0_f4");
        free(st);
        free(tree);
    }
    /* broken on purpose, the tiles: the copied part's barrier dropped (the read of another
     * thread's element of the first tile moved before it), and block b+1's rest reading block
     * b's tile */
    {
        int p2[RW_MAX_PARAMS] = {2};
        char *st = emu_rewrite(k_stage, "stage2", "fused_blocks", p2);
        static const char bar[] = "    __syncthreads();\n    float nb = north[(ty + 1) % TS][tx];";
        assert_non_null(strstr(st, bar));
        char *nobar = emu_replaced_all(st, bar, "    float nb = north[(ty + 1) % TS][tx];");
        emu_batch_add_pair(&batch, "broken_barrier", k_stage, nobar, EMU_PAIR, d_stage, EMU_DIFFERS);
        static const char own[] = "float v = tile_hk1[ty][(tx + 1) % TS] - tile_hk1[ty][tx];";
        assert_non_null(strstr(st, own));
        char *wrong = emu_replaced_all(st, own, "float v = tile[ty][(tx + 1) % TS] - tile[ty][tx];");
        emu_batch_add_pair(&batch, "broken_tile", k_stage, wrong, EMU_PAIR, d_stage, EMU_DIFFERS);
        free(wrong);
        free(nobar);
        free(st);
        /* the pointer to the tile taken before the split, left naming block b's tile in block
         * b+1's rest (the text before the split moved back to it) */
        char *tp = emu_rewrite(k_tptr, "tptr", "fused_blocks", p2);
        assert_non_null(strstr(tp, "float *p_hk1 = tile_hk1 + threadIdx.x;"));
        char *shared_p = emu_replaced_all(tp, "2.0f * p_hk1[0]", "2.0f * p[0]");
        assert_true(strcmp(shared_p, tp) != 0);
        emu_batch_add_pair(&batch, "broken_tile_pointer", k_tptr, shared_p, EMU_PAIR, d_tptr, EMU_DIFFERS);
        free(shared_p);
        free(tp);
    }
    /* broken on purpose: each copy loads the leader's block; a block past the grid runs */
    int p[RW_MAX_PARAMS] = {4};
    char *cand = emu_rewrite(k_partials, "block_partials", "fused_blocks", p);
    char *leader = emu_replaced_all(cand, "min(blockIdx.x + 1u, gridDim.x - 1u)", "blockIdx.x");
    assert_true(strcmp(leader, cand) != 0);
    emu_batch_add_pair(&batch, "broken_leader", k_partials, leader, EMU_PAIR, d_partials, EMU_DIFFERS);
    char *past = emu_replaced_all(cand, "if (blockIdx.x + 3u < gridDim.x)", "if (true)");
    assert_true(strcmp(past, cand) != 0);
    emu_batch_add_pair(&batch, "broken_past", k_partials, past, EMU_PAIR, d_partials, EMU_DIFFERS);
    /* stacked on block_reduce (its warp-shuffle tree holds a nested `__shared__ T
     * hk_part[32]`, one per copy): integer-valued floats, so the reassociated sums are exact */
    char *tree = emu_rewrite(k_partials, "block_partials", "block_reduce", NULL);
    char *stacked = emu_rewrite(tree, "block_partials", "fused_blocks", p);
    assert_non_null(strstr(stacked, "hk_part"));
    emu_batch_add_pair(&batch, "stacked_f4", k_partials, stacked, EMU_PAIR,
                       "for (int G : {1, 3, 8, 13}) for (int B : {64, 128}) {\n"
                       "    const int n = G * 2 * B - 5;\n"
                       "    emu::buf<float> in(G * 2 * B); in.fill_mod(G + B, 9);\n"
                       "    PAIR(float, \"stacked\", G + 8, emu::launch(dim3(G), dim3(B), 0, [&] { NS::block_partials(in, out, n); }));\n"
                       "}\n",
                       EMU_OK);
    rwf_nvcc_compiles(stacked, "stacked_f4");
    assert_int_equal(emu_batch_finish(&batch), 0);
    free(stacked);
    free(tree);
    free(past);
    free(leader);
    free(cand);
}

/* What the text says: the split moved to the sum's declaration; reduce3's block-free
 * handles kept once. */
static void emitted_shape(void **state)
{
    (void)state;
    int p[RW_MAX_PARAMS] = {2};
    char *t = emu_rewrite(k_stride, "stride_part", "fused_blocks", p);
    assert_non_null(strstr(t, "float v_hk1 = 0.0f;"));
    assert_non_null(strstr(t, "for (unsigned i_hk1 = hk_fb_v1 * blockDim.x + t;"));
    assert_non_null(strstr(t, "partial[(blockIdx.x + 1u)] = acc[0] + (float)blockIdx.y;"));
    assert_null(strstr(t, "t_hk1"));
    free(t);
    /* the row loop's trips do not depend on the block: one loop, the copies' bodies in it,
     * the counter shared; the grid-stride loop's do (its start reads blockIdx.x): not jammed */
    t = emu_rewrite(k_rows, "row_var", "fused_blocks", p);
    assert_non_null(strstr(t, "for (int i = t; i < C; i += blockDim.x) {"));
    assert_null(strstr(t, "i_hk1"));
    assert_non_null(strstr(t, "float d_hk1 = x_hk1[i] - m_hk1;"));
    assert_non_null(strstr(t, "acc_hk1 += d_hk1 * d_hk1;"));
    free(t);
    t = emu_rewrite(k_stride, "stride_part", "fused_blocks", p);
    assert_null(strstr(t, "one loop for the blocks"));
    free(t);
    t = emu_rewrite(k_cg, "red3", "fused_blocks", p);
    static const char once[] = "cg::thread_block cta = cg::this_thread_block();";
    const char *a = strstr(t, once);
    assert_non_null(a);
    assert_null(strstr(a + strlen(once), "this_thread_block()"));
    assert_null(strstr(t, "cta_hk1"));
    assert_non_null(strstr(t, "T mySum_hk1 = (i_hk1 < n) ? g_idata[i_hk1] : 0;"));
    assert_null(strstr(t, "hk_fb_s"));
    free(t);
    /* reduce0: the stored value loaded per block ahead of the rests, the store heading each */
    t = emu_rewrite(k_r0, "red0", "fused_blocks", p);
    assert_non_null(strstr(t, "auto hk_fb_s0 = (i < n) ? g_idata[i] : 0;\n    auto hk_fb_s1 = (i_hk1 < n) ? g_idata[i_hk1] : 0;"));
    const char *r = strstr(t, "if (blockIdx.x + 1u < gridDim.x) {");
    assert_non_null(r);
    assert_non_null(strstr(r, "sdata[tid] = hk_fb_s1;"));
    const char *s0 = strstr(t, "sdata[tid] = hk_fb_s0;");
    assert_true(s0 != NULL && s0 < r);
    assert_null(strstr(t, "sdata_hk1"));
    free(t);
    t = emu_rewrite(k_rb, "rb", "fused_blocks", p);
    assert_non_null(strstr(t, "auto hk_fb_s1 = (n > i_hk1 + blockDim.x) ? in[i_hk1] + in[i_hk1 + blockDim.x] : (n > i_hk1 ? in[i_hk1] : T(0));"));
    assert_non_null(strstr(t, "T *sdata = reinterpret_cast<T *>(smem);"));
    free(t);
    t = emu_rewrite(k_rowp, "rowsum", "fused_blocks", p);
    assert_non_null(strstr(t, "auto hk_fb_s1 = cols > t ? el_hk1[0] * row_hk1[0] : 0.0f;"));
    free(t);
    t = emu_rewrite(k_dyn, "dyn_rev", "fused_blocks", p);
    assert_non_null(strstr(t, "auto hk_fb_s1 = n > hk_fb_v1 * blockDim.x + threadIdx.x ? __ldg(&a_hk1[hk_fb_v1 * blockDim.x + threadIdx.x]) * 0.5f : -1.0f;"));
    free(t);
}

static void refused(const char *src, const char *kname, const char *want_construct, int want_line)
{
    fixture fx;
    load_text(src, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname)};
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("fused_blocks"), &ctx, NULL, &why), HK_OK);
    if (!why.line || strcmp(why.construct, want_construct) || why.line != want_line)
        fail_msg("%s: want %s at line %d, got '%s' (%s, %d)", kname, want_construct, want_line, why.reason,
                 why.construct, why.line);
    unload(&fx);
}

static void refusals(void **state)
{
    (void)state;
    refused("__global__ void k(const float *a, float *o, int n)\n"
            "{\n"
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (i >= n)\n"
            "        return;\n"
            "    o[i] = a[i];\n"
            "}\n",
            "k", "return", 5);
    refused("__global__ void k(const float *a, float *o, int *flag)\n"
            "{\n"
            "    float v = a[blockIdx.x * blockDim.x + threadIdx.x];\n"
            "    o[blockIdx.x] = v;\n"
            "    if (blockIdx.x > 0)\n"
            "        while (atomicAdd(flag, 0) < (int)blockIdx.x) { }\n"
            "}\n",
            "k", "loop", 6);
    refused("__device__ float bump(float *p) { *p += 1.0f; return *p; }\n"
            "__global__ void k(const float *a, float *o, float *c)\n"
            "{\n"
            "    float v = a[blockIdx.x * blockDim.x + threadIdx.x] + bump(c);\n"
            "    __syncthreads();\n"
            "    o[blockIdx.x * blockDim.x + threadIdx.x] = v;\n"
            "}\n",
            "k", "call", 4);
    refused("__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    float v = a[blockIdx.x * blockDim.x + threadIdx.x];\n"
            "    __syncthreads();\n"
            "    {\n"
            "        __shared__ float s[2048];\n"
            "        s[threadIdx.x % 32] = v;\n"
            "        o[blockIdx.x] = s[0];\n"
            "    }\n"
            "}\n",
            "k", "__shared__ array", 6);
    refused("__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    __shared__ float s[64];\n"
            "    s[threadIdx.x] = a[threadIdx.x];\n"
            "    __syncthreads();\n"
            "    o[blockIdx.x] = s[0];\n"
            "}\n",
            "k", "statement", 6);
    /* a block-free reference written after the split: no copy of its own can be made */
    refused("__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    float tmp = 0.0f;\n"
            "    float &acc = tmp;\n"
            "    float v = a[blockIdx.x * 64 + threadIdx.x];\n"
            "    __syncthreads();\n"
            "    acc += v;\n"
            "    o[blockIdx.x * 64 + threadIdx.x] = acc;\n"
            "}\n",
            "k", "local", 7);
    /* a reference declared in the copied part: the copies would alias one local */
    refused("__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    float acc = 0.0f;\n"
            "    int i = blockIdx.x * 64 + threadIdx.x;\n"
            "    float &r = acc;\n"
            "    r += a[i];\n"
            "    __syncthreads();\n"
            "    o[i] = acc;\n"
            "}\n",
            "k", "reference", 5);
    /* a tile of dynamic shared memory (sized by the launch, which fused_blocks keeps) ends
     * the copied part; its value is loaded ahead (k_dyn, k_r0) only when it loads from
     * pointer parameters (or local pointers computed from them and never written) alone,
     * writes nothing and reads no shared memory: a value through a local pointer written
     * later, an update (`+=`: it reads the tile), a value reading the tile, a store to global
     * memory first (no shared tile: an elementwise kernel's) -- nothing loads before */
    refused("__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    extern __shared__ float dyn[];\n"
            "    const float *p = a + 1;\n"
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    dyn[threadIdx.x] = p[i];\n"
            "    __syncthreads();\n"
            "    p += 2;\n"
            "    o[i] = dyn[blockDim.x - 1 - threadIdx.x] + p[0];\n"
            "}\n",
            "k", "statement", 5);
    refused("__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    extern __shared__ float dyn[];\n"
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    dyn[threadIdx.x] += a[i];\n"
            "    __syncthreads();\n"
            "    o[i] = dyn[blockDim.x - 1 - threadIdx.x];\n"
            "}\n",
            "k", "statement", 4);
    refused("__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    extern __shared__ float dyn[];\n"
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    dyn[threadIdx.x] = a[i] + dyn[0];\n"
            "    __syncthreads();\n"
            "    o[i] = dyn[blockDim.x - 1 - threadIdx.x];\n"
            "}\n",
            "k", "statement", 4);
    refused("__global__ void k(const float *a, float *o, float *c)\n"
            "{\n"
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    o[i] = a[i];\n"
            "    __syncthreads();\n"
            "    c[i] = o[i ^ 1];\n"
            "}\n",
            "k", "statement", 3);
    /* session 46 (issue 13): a block-free local reached other than by its name -- a pointer
     * to it, a member written, a call taking it by reference, a reference read after its
     * local is copied, a lambda capturing it -- and a for loop spinning on an atomic (each
     * applied at 18e2dd8a; the copies shared the local: block b + 1 wrote v0 + v1) */
    refused("__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    float tmp = 0.0f;\n"
            "    float *pa = &tmp;\n"
            "    float v = a[blockIdx.x * 64 + threadIdx.x];\n"
            "    __syncthreads();\n"
            "    *pa += v;\n"
            "    o[blockIdx.x * 64 + threadIdx.x] = tmp;\n"
            "}\n",
            "k", "local", 4);
    refused("struct acc_t { float s; };\n"
            "__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    acc_t st = {0.0f};\n"
            "    float v = a[blockIdx.x * 64 + threadIdx.x];\n"
            "    __syncthreads();\n"
            "    st.s += v;\n"
            "    o[blockIdx.x * 64 + threadIdx.x] = st.s;\n"
            "}\n",
            "k", "local", 7);
    refused("__device__ void inc(float &x, float v) { x += v; }\n"
            "__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    float tmp = 0.0f;\n"
            "    float v = a[blockIdx.x * 64 + threadIdx.x];\n"
            "    __syncthreads();\n"
            "    inc(tmp, v);\n"
            "    o[blockIdx.x * 64 + threadIdx.x] = tmp;\n"
            "}\n",
            "k", "local", 7);
    refused("__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    float tmp = 0.0f;\n"
            "    float &r = tmp;\n"
            "    float v = a[blockIdx.x * 64 + threadIdx.x];\n"
            "    __syncthreads();\n"
            "    tmp += v;\n"
            "    o[blockIdx.x * 64 + threadIdx.x] = r;\n"
            "}\n",
            "k", "local", 8);
    refused("__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    float tmp = 0.0f;\n"
            "    auto add = [&](float x) { tmp += x; };\n"
            "    float v = a[blockIdx.x * 64 + threadIdx.x];\n"
            "    __syncthreads();\n"
            "    add(v);\n"
            "    o[blockIdx.x * 64 + threadIdx.x] = tmp;\n"
            "}\n",
            "k", "local", 4);
    refused("__global__ void k(const float *a, float *o, int *flag)\n"
            "{\n"
            "    float v = a[blockIdx.x * 64 + threadIdx.x];\n"
            "    __syncthreads();\n"
            "    for (; atomicAdd(flag, 0) < (int)gridDim.x - (int)blockIdx.x - 1;) {\n"
            "    }\n"
            "    o[blockIdx.x * 64 + threadIdx.x] = v;\n"
            "    __syncthreads();\n"
            "    if (threadIdx.x == 0)\n"
            "        atomicAdd(flag, 1);\n"
            "}\n",
            "k", "loop", 5);
    /* a macro writing a block-free local after the split (applied at 18e2dd8a) */
    refused("#define ACC tmp += v\n"
            "__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    float tmp = 0.0f;\n"
            "    float v = a[blockIdx.x * 64 + threadIdx.x];\n"
            "    __syncthreads();\n"
            "    ACC;\n"
            "    o[blockIdx.x * 64 + threadIdx.x] = tmp;\n"
            "}\n",
            "k", "macro", 7);
    /* a return spelled by a macro: it would end the whole fused batch (applied at 18e2dd8a) */
    refused("#define BAIL(i, n) if ((i) >= (n)) return\n"
            "__global__ void k(const float *a, float *o, int n)\n"
            "{\n"
            "    int i = blockIdx.x * 64 + threadIdx.x;\n"
            "    float v = a[i];\n"
            "    __syncthreads();\n"
            "    BAIL(i, n);\n"
            "    o[i] = v;\n"
            "}\n",
            "k", "return", 7);
    refused("#define ROW (blockIdx.x * 64)\n"
            "__global__ void k(const float *a, float *o)\n"
            "{\n"
            "    float v = a[ROW + threadIdx.x];\n"
            "    __syncthreads();\n"
            "    o[ROW + threadIdx.x] = v;\n"
            "}\n",
            "k", "macro", 4);
}

/* With a spec and a device: 65536 blocks of 256 fused by 4 fill 132 SMs (1056 resident);
 * 2000 blocks fused by 4 (500) do not. */
static void device_rule(void **state)
{
    (void)state;
    static const char spec_json[] =
        "{\"name\": \"bp\", \"kernel\": \"block_partials\", \"source\": \"bp.cu\",\n"
        " \"sizes\": [{\"n\": %d}, {\"n\": 1000}],\n"
        " \"args\": [{\"name\": \"in\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
        "          {\"name\": \"out\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"ceil_div(n, 512)\"},\n"
        "          {\"name\": \"n\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"}],\n"
        " \"launch\": {\"grid\": \"ceil_div(n, 512)\", \"block\": 256}}";
    static const int ns[] = {65536 * 512, 2000 * 512};
    for (int c = 0; c < 2; c++) {
        char js[1024];
        snprintf(js, sizeof js, spec_json, ns[c]);
        spec *sp = NULL;
        spec_diags dg = {0};
        int prc = spec_parse(js, strlen(js), NULL, &sp, &dg);
        for (size_t d = 0; prc != HK_OK && d < dg.n; d++)
            print_message("spec: %s: %s\n", dg.items[d].path, dg.items[d].message);
        spec_diags_free(&dg);
        assert_int_equal(prc, HK_OK);
        fixture fx;
        load_text(k_partials, &fx);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "block_partials"),
                          .spec = sp, .sm_count = 132, .warps_per_sm = 64};
        rw_refusal why;
        int p[RW_MAX_PARAMS] = {4};
        assert_int_equal(rw_applies(rw_find("fused_blocks"), &ctx, p, &why), HK_OK);
        if (c == 0) {
            assert_int_equal(why.line, 0);
        } else {
            assert_string_equal(why.construct, "grid");
            assert_non_null(strstr(why.reason, "2000 blocks fused by 4 leave 500 working blocks, fewer than the 1056"));
        }
        unload(&fx);
        spec_free(sp);
    }
}

/* rodinia's srad (srad_cuda_1: five tiles in three phases behind two barriers, five outputs),
 * hotspot (calculate_temp: two tiles under an IN_RANGE guard, then an iteration loop with
 * barriers) and backprop's layerforward (bpnn_layerforward_CUDA: a grid along y, a tile
 * staged in two phases) from bench/wild/src where extracted, rewritten at F 2 and 4 and
 * emulated against themselves bit for bit; srad's rest of block b+1 reading block b's centre
 * tile must differ. */
static void wild_kernels_emulated(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, "fuse_wild");
    static const struct {
        const char *id, *kernel, *driver;
    } wild[] = {
        {"rodinia_srad1", "srad_cuda_1",
         "for (int gx : {1, 3, 5}) for (int gy : {1, 2}) {\n"
         "    const int cols = 16 * gx, rows = 16 * gy, n = rows * cols;\n"
         "    emu::buf<float> J(n + 2 * cols);\n"
         "    for (int i = 0; i < n + 2 * cols; i++) J[i] = 1.0f + (float)((i * 7) % 17) * 0.1f;\n"
         "    PAIR(float, \"srad\", 5 * n + 8, emu::launch(dim3(gx, gy), dim3(16, 16), 0, [&] {\n"
         "        NS::srad_cuda_1(&out[0], &out[n], &out[2 * n], &out[3 * n], &J[cols], &out[4 * n], cols, rows, 0.05f); }));\n"
         "}\n"},
        {"rodinia_hotspot", "calculate_temp",
         "for (int c : {30, 40}) for (int r : {20, 45}) {\n"
         "    emu::buf<float> pw(r * c), ts(r * c);\n"
         "    for (int i = 0; i < r * c; i++) { pw[i] = (float)(i % 10) * 0.0001f; ts[i] = 323.0f + (float)((i * 3) % 20); }\n"
         "    const int gx = (c + 11) / 12, gy = (r + 11) / 12;\n"
         "    PAIR(float, \"hotspot\", r * c + 8, emu::launch(dim3(gx, gy), dim3(16, 16), 0, [&] {\n"
         "        NS::calculate_temp(2, pw, ts, out, c, r, 2, 2, 1.66893e-09f, 10.0f, 10.0f, 1310720.0f, 1.45833e-07f, 0.001f); }));\n"
         "}\n"},
        {"rodinia_backprop_layerforward", "bpnn_layerforward_CUDA",
         "for (int G : {1, 3, 5}) {\n"
         "    const int in = 16 * G, nw = (in + 1) * 17;\n"
         "    emu::buf<float> inp(in + 1), oh(17);\n"
         "    for (int i = 0; i <= in; i++) inp[i] = 0.5f + (float)(i % 7) * 0.125f;\n"
         "    oh.fill(3);\n"
         "    PAIR(float, \"layerforward\", nw + in + 8, for (int i = 0; i < nw; i++) out[i] = (float)(i % 13) * 0.25f;\n"
         "         emu::launch(dim3(1, G), dim3(16, 16), 0, [&] { NS::bpnn_layerforward_CUDA(inp, oh, &out[0], &out[nw], in, 16); }));\n"
         "}\n"},
    };
    size_t added = 0;
    for (size_t i = 0; i < HK_ARRAY_LEN(wild); i++) {
        char *src = rwf_wild_text(wild[i].id, NULL);
        if (!src)
            continue;
        for (int F = 2; F <= 4; F += 2) {
            int p[RW_MAX_PARAMS] = {F};
            char *fused = emu_rewrite(src, wild[i].kernel, "fused_blocks", p);
            /* an include guard, defined by the original's copy, would hide the rewrite's */
            char *cand = emu_replaced_all(fused, "#ifndef ", "#if 1 // ");
            free(fused);
            char tag[96];
            snprintf(tag, sizeof tag, "%s_f%d", wild[i].id, F);
            emu_batch_add_pair(&batch, tag, src, cand, EMU_PAIR, wild[i].driver, EMU_OK);
            added++;
            if (F == 2 && !strcmp(wild[i].id, "rodinia_srad1")) {
                static const char own[] = "jc_hk1 = temp_hk1[ty_hk1][tx_hk1];";
                assert_non_null(strstr(cand, own));
                char *wrong = emu_replaced_all(cand, own, "jc_hk1 = temp[ty_hk1][tx_hk1];");
                emu_batch_add_pair(&batch, "srad_wrong_tile", src, wrong, EMU_PAIR, wild[i].driver, EMU_DIFFERS);
                free(wrong);
            }
            free(cand);
        }
        free(src);
    }
    if (added)
        assert_int_equal(emu_batch_finish(&batch), 0);
}

/* A kernel model with a spec and a device: rw_applies / rw_apply_named at F. */
static void with_spec(const char *src, const char *kname, const char *js, int F, rw_refusal *why, char **text)
{
    spec *sp = NULL;
    spec_diags dg = {0};
    int prc = spec_parse(js, strlen(js), NULL, &sp, &dg);
    for (size_t d = 0; prc != HK_OK && d < dg.n; d++)
        print_message("spec: %s: %s\n", dg.items[d].path, dg.items[d].message);
    spec_diags_free(&dg);
    assert_int_equal(prc, HK_OK);
    fixture fx;
    load_text(src, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname), .spec = sp,
                      .sm_count = 132, .warps_per_sm = 64};
    int p[RW_MAX_PARAMS] = {F};
    assert_int_equal(rw_applies(rw_find("fused_blocks"), &ctx, p, why), HK_OK);
    if (text) {
        rw_result r;
        rw_refusal w2;
        assert_int_equal(rw_apply_named("fused_blocks", &ctx, p, &r, &w2), HK_OK);
        assert_true(r.applicable);
        *text = strdup(r.text);
        rw_result_free(&r);
    }
    unload(&fx);
    spec_free(sp);
}

/* The axis: both block indices read, the spec's grid longer along y: fused along y. The
 * tiles' shared memory: 24 KB per block fused by 2 lets an SM hold 4 working blocks instead
 * of 8 (2 x 4 blocks' loads in flight, as 8 were: no gain), by 4 it is over 48 KB. Loads
 * in flight already at 64 KB per SM: refused. */
static void axis_and_smem(void **state)
{
    (void)state;
    static const char stage_spec[] =
        "{\"name\": \"st\", \"kernel\": \"stage2\", \"source\": \"st.cu\",\n"
        " \"sizes\": [{\"c\": 64, \"r\": 65536}, {\"c\": 44, \"r\": 100}],\n"
        " \"args\": [{\"name\": \"J\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"c * r\"},\n"
        "          {\"name\": \"C\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"c * r\"},\n"
        "          {\"name\": \"cols\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"c\"}],\n"
        " \"launch\": {\"grid\": [\"c / 8\", \"r / 8\"], \"block\": [8, 8]}}";
    rw_refusal why;
    char *t = NULL;
    with_spec(k_stage, "stage2", stage_spec, 4, &why, &t);
    assert_int_equal(why.line, 0);
    assert_non_null(strstr(t, "if (blockIdx.y % 4u != 0u)"));
    assert_non_null(strstr(t, "int bx_hk1 = blockIdx.x, by_hk1 = hk_fb_v1;"));
    assert_non_null(strstr(t, "if (blockIdx.y + 3u < gridDim.y) {"));
    free(t);
    static const char big[] =
        "__global__ void big_tile(const float *a, float *o)\n"
        "{\n"
        "    __shared__ float tile[24][256];\n"
        "    int t = threadIdx.x;\n"
        "    for (int k = 0; k < 24; k++)\n"
        "        tile[k][t] = a[(blockIdx.x * 24 + k) * 256 + t];\n"
        "    __syncthreads();\n"
        "    float s = 0.0f;\n"
        "    for (int k = 0; k < 24; k++)\n"
        "        s += tile[23 - k][(t + k) % 256];\n"
        "    o[blockIdx.x * 256 + t] = s;\n"
        "}\n";
    static const char big_spec[] =
        "{\"name\": \"bt\", \"kernel\": \"big_tile\", \"source\": \"bt.cu\",\n"
        " \"sizes\": [{\"g\": 65536}, {\"g\": 1001}],\n"
        " \"args\": [{\"name\": \"a\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"g * 6144\"},\n"
        "          {\"name\": \"o\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"g * 256\"}],\n"
        " \"launch\": {\"grid\": \"g\", \"block\": 256}}";
    with_spec(big, "big_tile", big_spec, 2, &why, NULL);
    assert_string_equal(why.construct, "__shared__ array");
    assert_int_equal(why.line, 3);
    assert_non_null(strstr(why.reason, "an SM holds 4 working blocks instead of 8"));
    with_spec(big, "big_tile", big_spec, 4, &why, NULL);
    assert_non_null(strstr(why.reason, "take 98304 bytes of shared memory per block, over the 49152"));
    /* loads in flight already: 32 blocks of 64 threads per SM, 10 loads each before the
     * barrier (the unrolled staging loop's trips: cuda-samples' convolutionRows) is 80 KB per
     * SM; 4 loads each, 32 KB, is not */
    static const char conv[] =
        "#define STEPS %d\n"
        "__global__ void conv(float *dst, const float *src)\n"
        "{\n"
        "    __shared__ float t[64 * STEPS];\n"
        "    const float *p = src + blockIdx.x * 64 * STEPS;\n"
        "#pragma unroll\n"
        "    for (int i = 0; i < STEPS; i++)\n"
        "        t[threadIdx.x + i * 64] = p[threadIdx.x + i * 64];\n"
        "    __syncthreads();\n"
        "    dst[blockIdx.x * 64 + threadIdx.x] = t[(threadIdx.x * 7) %% (64 * STEPS)];\n"
        "}\n";
    static const char conv_spec[] =
        "{\"name\": \"cv\", \"kernel\": \"conv\", \"source\": \"cv.cu\",\n"
        " \"sizes\": [{\"g\": 65536}, {\"g\": 1001}],\n"
        " \"args\": [{\"name\": \"dst\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"g * 64\"},\n"
        "          {\"name\": \"src\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"g * 640\"}],\n"
        " \"launch\": {\"grid\": \"g\", \"block\": 64}}";
    char src[1024];
    snprintf(src, sizeof src, conv, 10);
    with_spec(src, "conv", conv_spec, 2, &why, NULL);
    assert_string_equal(why.construct, "statement");
    assert_int_equal(why.line, 5);
    assert_non_null(strstr(why.reason, "32 resident blocks of 64 threads, 10 global loads each before a barrier: 80 KB"));
    snprintf(src, sizeof src, conv, 4);
    with_spec(src, "conv", conv_spec, 2, &why, NULL);
    assert_int_equal(why.line, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(emitted_shape),
        cmocka_unit_test(refusals),
        cmocka_unit_test(device_rule),
        cmocka_unit_test(axis_and_smem),
        cmocka_unit_test(wild_kernels_emulated),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
