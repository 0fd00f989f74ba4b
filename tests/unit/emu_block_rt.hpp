/* The CPU side of the block emulator (emu_block.h): CUDA kernels compiled as host C++ by
 * g++ against the CUDA headers (vector types, __half, __nv_bfloat16), every block of a grid
 * run one after another, every thread of a block a fiber (ucontext), so that
 * __syncthreads() is a real barrier, __shared__ memory is the block's own (poisoned with
 * 0x7f bytes before each block), warp shuffles/votes exchange values among the 32 lanes of
 * a warp, and atomics are plain read-modify-writes (fibers are not preemptive). A barrier
 * that not every thread reaches (a thread exited, or waits at another barrier or another
 * warp operation) is reported with both lines and ends the program with status 3 instead
 * of hanging. Included by the program emu_block.h writes; not compiled on its own.
 *
 * Switching fibers: ucontext's swapcontext saves and restores the signal mask, a system
 * call each way, which was half the CPU of an emulation (a block of 64 threads with a few
 * barriers and shuffles switches thousands of times). A fiber is made once per thread
 * slot (makecontext) and kept for every later block; after its first start, the switches
 * are _setjmp/_longjmp, which leave the signal mask alone. Where the kernel keeps a shadow
 * stack (x86 CET), a jump between stacks would break it: there the switches stay
 * swapcontext, as they do with EMU_SWITCH=ucontext in the environment. _FORTIFY_SOURCE is
 * off here: its longjmp check refuses a jump to another stack. */
#undef _FORTIFY_SOURCE
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

/* The CUDA headers give these attributes meanings g++ ignores; here they are plain C++. */
#undef __global__
#undef __device__
#undef __host__
#undef __shared__
#undef __constant__
#undef __managed__
#undef __launch_bounds__
#undef __forceinline__
#undef __noinline__
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#define __forceinline__ inline
#define __noinline__
/* Every __shared__ variable is a static in one section: the block's shared memory is that
 * section (blocks run one at a time), which emu::run_block poisons before each block. */
#define __shared__ __attribute__((section("emu_shared"), aligned(16))) static
extern "C" __attribute__((visibility("hidden"))) char __start_emu_shared[], __stop_emu_shared[];
/* The section exists even where no kernel declares shared memory. */
__attribute__((section("emu_shared"), used)) static char emu_shared_anchor[16];

/* The built-in variables: set by the scheduler before it resumes a fiber (external
 * linkage, so the compiler reloads them after every call that may switch fibers). */
uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
#define warpSize 32

namespace emu {

enum { POISON = 0x7f };   /* float 3.4e38, int 2139062143, half NaN: a read shows */
enum { RUNNING, AT_BARRIER, AT_WARP, DONE };
enum { OP_SYNC, OP_DOWN, OP_UP, OP_XOR, OP_IDX, OP_BALLOT, OP_ANY, OP_ALL, OP_SYNCWARP,
       OP_RED_ADD, OP_RED_MIN, OP_RED_MAX, OP_RED_AND, OP_RED_OR, OP_RED_XOR };
static const char *const op_names[] = {"__syncthreads", "__shfl_down_sync", "__shfl_up_sync",
                                       "__shfl_xor_sync", "__shfl_sync", "__ballot_sync",
                                       "__any_sync", "__all_sync", "__syncwarp",
                                       "__reduce_add_sync", "__reduce_min_sync",
                                       "__reduce_max_sync", "__reduce_and_sync",
                                       "__reduce_or_sync", "__reduce_xor_sync"};

struct fiber {
    ucontext_t ctx;                  /* its first start (and every switch without plain_jumps) */
    jmp_buf jb;                      /* where it waits, with plain_jumps */
    bool started;                    /* fiber_main has run on its stack */
    char *stack;
    uint3 tid;
    int state, op, line, arg, width;
    const char *file;                /* "orig", "cand": the source of line */
    unsigned mask;
    unsigned char in[16], out[16];  /* a lane's value and what its exchange gives back */
    size_t size;                     /* bytes of in/out used */
    int flag;                        /* __syncthreads_count/or/and, votes: the predicate */
};

/* The schedule: the order fibers run between two barriers. Forward, reverse, or a fixed
 * shuffle; a race the forward order hides shows under another. */
enum { FORWARD, REVERSE, SHUFFLED };
int schedule = FORWARD;
/* The order the blocks of a launch run in (FORWARD, REVERSE, or SHUFFLED: a fixed
 * permutation of the seed block_seed), one block after another: a kernel whose blocks
 * meet through global memory (a last-block ticket) must not depend on it. */
int block_order = FORWARD;
unsigned block_seed = 1u;
enum { STACK = 256 * 1024, MAX_THREADS = 1024, DYN_SMEM = 228 * 1024 };
alignas(16) unsigned char dyn_smem[DYN_SMEM];
static size_t dyn_size;
static fiber fibers[MAX_THREADS];
static int n_fibers, current;
static ucontext_t sched_ctx;
static jmp_buf sched_jb;
static std::function<void()> *kernel_body;
static int barrier_result;   /* __syncthreads_count/or/and's value for the released block */
int failures;                /* comparisons that failed (expect_*) */

[[noreturn]] static void divergent(const char *what)
{
    printf("EMU DIVERGENT in block (%u,%u,%u): %s\n", blockIdx.x, blockIdx.y, blockIdx.z, what);
    fflush(stdout);
    _Exit(3);
}

/* Fibers switch with _setjmp/_longjmp (see the head of this file) unless the process keeps
 * a shadow stack, or EMU_SWITCH=ucontext asks for swapcontext (a test compares the two). */
static bool plain_jumps_ok(void)
{
    const char *sw = getenv("EMU_SWITCH");
    if (sw && !strcmp(sw, "ucontext"))
        return false;
#if defined(__x86_64__) && defined(SYS_arch_prctl)
    unsigned long features = 0;
    /* ARCH_SHSTK_STATUS (Linux 6.6): bit 0, ARCH_SHSTK_SHSTK, is the shadow stack's */
    if (syscall(SYS_arch_prctl, 0x5005, &features) == 0 && (features & 1))
        return false;
#endif
    return true;
}
static const bool plain_jumps = plain_jumps_ok();

/* The running fiber hands over to the scheduler; returns when the scheduler resumes it. */
__attribute__((noinline)) static void to_scheduler(void)
{
    fiber &f = fibers[current];
    if (!plain_jumps)
        swapcontext(&f.ctx, &sched_ctx);
    else if (!_setjmp(f.jb))
        _longjmp(sched_jb, 1);
}

/* The scheduler resumes fiber current (its first time: fiber_main on its own stack);
 * returns when the fiber hands over again. */
__attribute__((noinline)) static void to_fiber(void)
{
    fiber &f = fibers[current];
    const bool first = !f.started;
    f.started = true;
    if (!plain_jumps)
        swapcontext(&sched_ctx, &f.ctx);
    else if (!_setjmp(sched_jb)) {
        if (first)
            setcontext(&f.ctx);
        _longjmp(f.jb, 1);
    }
}

/* A fiber runs the kernel body once per block it takes part in: after the body, it waits
 * (DONE) until a later block resumes it. */
static void fiber_main(void)
{
    for (;;) {
        (*kernel_body)();
        fibers[current].state = DONE;
        to_scheduler();
    }
}

/* The running fiber waits (state set by the caller) until the scheduler releases it. */
static void yield_to_scheduler(void)
{
    to_scheduler();
    threadIdx = fibers[current].tid;
}

static int sync_block(const char *file, int line, int op_flag, int pred)
{
    fiber &f = fibers[current];
    f.file = file;
    f.state = AT_BARRIER;
    f.op = OP_SYNC;
    f.line = line;
    f.flag = pred;
    f.arg = op_flag;
    yield_to_scheduler();
    return barrier_result;
}

/* Lane l's fiber index in its block's fiber table, or -1 when the warp has no such lane. */
static int lane_fiber(int warp, int lane)
{
    int i = warp * 32 + lane;
    return i < n_fibers ? i : -1;
}

static void describe(const fiber &f, char *buf, size_t n)
{
    if (f.state == DONE)
        snprintf(buf, n, "thread (%u,%u,%u) has exited", f.tid.x, f.tid.y, f.tid.z);
    else if (f.state == AT_BARRIER)
        snprintf(buf, n, "thread (%u,%u,%u) waits at %s:%d (__syncthreads)", f.tid.x, f.tid.y, f.tid.z,
                 f.file, f.line);
    else
        snprintf(buf, n, "thread (%u,%u,%u) waits at %s:%d (%s, mask %#x)", f.tid.x, f.tid.y, f.tid.z,
                 f.file, f.line, op_names[f.op], f.mask);
}

/* One warp operation whose lanes all arrived: computes every lane's out. */
static void exchange(int warp, unsigned mask)
{
    unsigned ballot = 0;
    bool all = true, any = false;
    for (int l = 0; l < 32; l++)
        if (mask >> l & 1) {
            const fiber &g = fibers[lane_fiber(warp, l)];
            if (g.flag)
                ballot |= 1u << l, any = true;
            else
                all = false;
        }
    for (int l = 0; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        fiber &f = fibers[lane_fiber(warp, l)];
        int w = f.width > 0 && f.width <= 32 ? f.width : 32;
        int base = l / w * w, src = l;
        switch (f.op) {
        case OP_DOWN: src = l % w + f.arg < w ? l + f.arg : l; break;
        case OP_UP: src = l % w - f.arg >= 0 ? l - f.arg : l; break;
        case OP_XOR: src = ((l % w) ^ f.arg) < w ? base + ((l % w) ^ f.arg) : l; break;
        case OP_IDX: src = base + ((f.arg % w) + w) % w; break;
        default: break;
        }
        if (f.op <= OP_IDX && f.op != OP_SYNC) {
            /* a source lane outside the mask gives an undefined value: poison */
            if (mask >> src & 1)
                memcpy(f.out, fibers[lane_fiber(warp, src)].in, f.size);
            else
                memset(f.out, POISON, f.size);
        } else if (f.op == OP_BALLOT) {
            memcpy(f.out, &ballot, sizeof ballot);
        } else if (f.op == OP_ANY || f.op == OP_ALL) {
            int v = f.op == OP_ANY ? any : all;
            memcpy(f.out, &v, sizeof v);
        } else if (f.op >= OP_RED_ADD) {
            unsigned acc = 0;
            bool first = true;
            for (int k = 0; k < 32; k++)
                if (mask >> k & 1) {
                    unsigned v;
                    memcpy(&v, fibers[lane_fiber(warp, k)].in, sizeof v);
                    bool sgn = f.arg;   /* signed min/max */
                    if (first)
                        acc = v, first = false;
                    else if (f.op == OP_RED_ADD)
                        acc += v;
                    else if (f.op == OP_RED_MIN)
                        acc = sgn ? (unsigned)std::min((int)acc, (int)v) : std::min(acc, v);
                    else if (f.op == OP_RED_MAX)
                        acc = sgn ? (unsigned)std::max((int)acc, (int)v) : std::max(acc, v);
                    else if (f.op == OP_RED_AND)
                        acc &= v;
                    else if (f.op == OP_RED_OR)
                        acc |= v;
                    else
                        acc ^= v;
                }
            memcpy(f.out, &acc, sizeof acc);
        }
    }
}

/* Releases every warp whose waiting lanes can go on: all lanes of its mask wait at the same
 * warp operation. A lane of the mask that exited, waits at __syncthreads or at another
 * operation is a divergence. Returns whether any fiber was released. */
static bool release_warps(void)
{
    bool released = false;
    for (int w = 0; w * 32 < n_fibers; w++) {
        for (int l = 0; l < 32; l++) {
            int i = lane_fiber(w, l);
            if (i < 0 || fibers[i].state != AT_WARP)
                continue;
            const fiber &f = fibers[i];
            char a[200], b[200], msg[500];
            for (int k = 0; k < 32; k++) {
                if (!(f.mask >> k & 1))
                    continue;
                int j = lane_fiber(w, k);
                if (j < 0) {
                    describe(f, a, sizeof a);
                    snprintf(msg, sizeof msg, "%s, and its mask names lane %d, which the block does not have", a, k);
                    divergent(msg);
                }
                const fiber &g = fibers[j];
                if (g.state != AT_WARP || g.line != f.line || strcmp(g.file, f.file) != 0 || g.op != f.op || g.mask != f.mask) {
                    describe(f, a, sizeof a);
                    describe(g, b, sizeof b);
                    snprintf(msg, sizeof msg, "%s, while %s", a, b);
                    divergent(msg);
                }
            }
            if (!(f.mask >> l & 1)) {
                describe(f, a, sizeof a);
                snprintf(msg, sizeof msg, "%s, a mask without its own lane %d", a, l);
                divergent(msg);
            }
            unsigned mask = f.mask;
            exchange(w, mask);
            for (int k = 0; k < 32; k++)
                if (mask >> k & 1)
                    fibers[lane_fiber(w, k)].state = RUNNING;
            released = true;
            break;
        }
    }
    return released;
}

/* All live fibers wait at one __syncthreads: release them (true). Nothing waits: false.
 * Anything else is a divergence. */
static bool release_block(void)
{
    int first = -1;
    for (int i = 0; i < n_fibers; i++)
        if (fibers[i].state == AT_BARRIER) {
            first = i;
            break;
        }
    if (first < 0)
        return false;
    const fiber &f = fibers[first];
    int count = 0;
    for (int i = 0; i < n_fibers; i++) {
        const fiber &g = fibers[i];
        if (g.state != AT_BARRIER || g.line != f.line || strcmp(g.file, f.file) != 0) {
            char a[200], b[200], msg[500];
            describe(f, a, sizeof a);
            describe(g, b, sizeof b);
            snprintf(msg, sizeof msg, "%s, while %s", a, b);
            divergent(msg);
        }
        count += g.flag != 0;
    }
    barrier_result = f.arg == 1 ? count : f.arg == 2 ? count > 0 : f.arg == 3 ? count == n_fibers : 0;
    for (int i = 0; i < n_fibers; i++)
        fibers[i].state = RUNNING;
    return true;
}

static unsigned shuffle_seed;

/* Runs block blockIdx of the launch: every fiber until it waits, then the barriers. */
static void run_block(void)
{
    memset(__start_emu_shared, POISON, (size_t)(__stop_emu_shared - __start_emu_shared));
    memset(dyn_smem, POISON, dyn_size);
    int i = 0;
    for (unsigned z = 0; z < blockDim.z; z++)
        for (unsigned y = 0; y < blockDim.y; y++)
            for (unsigned x = 0; x < blockDim.x; x++, i++) {
                fiber &f = fibers[i];
                if (!f.stack) {
                    f.stack = (char *)mmap(NULL, STACK, PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
                    if (f.stack == MAP_FAILED) {
                        puts("EMU ERROR: no memory for fiber stacks");
                        exit(4);
                    }
                    /* made once: the fiber then waits between blocks (fiber_main) */
                    getcontext(&f.ctx);
                    f.ctx.uc_stack.ss_sp = f.stack;
                    f.ctx.uc_stack.ss_size = STACK;
                    f.ctx.uc_link = NULL;
                    makecontext(&f.ctx, fiber_main, 0);
                    f.started = false;
                }
                f.tid = make_uint3(x, y, z);
                f.state = RUNNING;
            }
    n_fibers = i;
    std::vector<int> order((size_t)n_fibers);
    for (;;) {
        for (int k = 0; k < n_fibers; k++)
            order[(size_t)k] = schedule == REVERSE ? n_fibers - 1 - k : k;
        if (schedule == SHUFFLED)
            for (int k = n_fibers - 1; k > 0; k--) {
                shuffle_seed = shuffle_seed * 1103515245u + 12345u;
                std::swap(order[(size_t)k], order[(shuffle_seed >> 8) % (unsigned)(k + 1)]);
            }
        bool ran = false;
        for (int k = 0; k < n_fibers; k++) {
            current = order[(size_t)k];
            if (fibers[current].state != RUNNING)
                continue;
            ran = true;
            threadIdx = fibers[current].tid;
            to_fiber();
        }
        (void)ran;
        if (release_warps())
            continue;
        if (release_block())
            continue;
        bool all_done = true;
        for (int k = 0; k < n_fibers; k++)
            all_done = all_done && fibers[k].state == DONE;
        if (all_done)
            return;
        puts("EMU ERROR: no fiber can run and none waits at a barrier");
        exit(4);
    }
}

/* Launches body (a call of one kernel) on grid x block with dyn bytes of dynamic shared
 * memory: every block in order, each thread a fiber. */
template <class F> void launch(dim3 grid, dim3 block, size_t dyn, F body)
{
    if ((size_t)block.x * block.y * block.z > MAX_THREADS || dyn > DYN_SMEM) {
        printf("EMU ERROR: block %ux%ux%u / %zu bytes of dynamic shared memory too large\n",
               block.x, block.y, block.z, dyn);
        exit(4);
    }
    std::function<void()> fn = body;
    kernel_body = &fn;
    gridDim = grid;
    blockDim = block;
    dyn_size = dyn;
    shuffle_seed = 12345u;
    size_t nb = (size_t)grid.x * grid.y * grid.z;
    std::vector<size_t> order(nb);
    for (size_t q = 0; q < nb; q++)
        order[q] = block_order == REVERSE ? nb - 1 - q : q;
    if (block_order == SHUFFLED) {
        unsigned r = block_seed * 2654435761u + 1u;
        for (size_t q = nb; q > 1; q--) {
            r = r * 1664525u + 1013904223u;
            std::swap(order[q - 1], order[(r >> 8) % q]);
        }
    }
    for (size_t q = 0; q < nb; q++) {
        size_t o = order[q];
        blockIdx = make_uint3((unsigned)(o % grid.x), (unsigned)(o / grid.x % grid.y),
                              (unsigned)(o / ((size_t)grid.x * grid.y)));
        run_block();
    }
    kernel_body = NULL;
}

/* A warp operation of the running lane: deposits v, waits for the lanes of mask. */
template <class T> static T warp_op(const char *file, int line, int op, unsigned mask, T v, int arg, int width)
{
    static_assert(sizeof(T) <= 16, "warp exchange of more than 16 bytes");
    fiber &f = fibers[current];
    f.file = file;
    f.state = AT_WARP;
    f.op = op;
    f.line = line;
    f.mask = mask;
    f.arg = arg;
    f.width = width;
    f.size = sizeof(T);
    memcpy(f.in, &v, sizeof(T));
    yield_to_scheduler();
    T r;
    memcpy(&r, fibers[current].out, sizeof(T));
    return r;
}

static inline unsigned vote(const char *file, int line, int op, unsigned mask, int pred)
{
    fibers[current].flag = pred != 0;
    return warp_op<unsigned>(file, line, op, mask, 0u, 0, 32);
}

template <class T> static inline T reduce_op(const char *file, int line, int op, unsigned mask, T v)
{
    return warp_op<T>(file, line, op, mask, v, std::is_signed<T>::value, 32);
}

/* ---- test-side helpers: buffers with values that are not all alike, comparisons ---- */

/* A value of element i of seed s: spread, signed, not a multiple of a power of two. */
static inline float value(size_t i, int s)
{
    return (float)((i * 7919u + (size_t)s * 104729u) % 2003u) * 0.01f - 10.0f;
}

template <class T> struct buf {
    std::vector<T> v;
    explicit buf(size_t n) : v(n) {}
    operator T *() { return v.data(); }
    T *ptr() { return v.data(); }
    size_t size() const { return v.size(); }
    T &operator[](size_t i) { return v[i]; }
    /* Fills with seed s's values, converted to T (integers scaled by 37). */
    buf &fill(int s)
    {
        for (size_t i = 0; i < v.size(); i++) {
            if constexpr (std::is_integral<T>::value)
                v[i] = (T)((long long)value(i, s) * 37);
            else
                v[i] = (T)value(i, s);
        }
        return *this;
    }
    /* Fills with integers in [0, range). */
    buf &fill_mod(int s, long long range)
    {
        for (size_t i = 0; i < v.size(); i++)
            v[i] = (T)(long long)((i * 2654435761u + (size_t)s * 40503u) % (size_t)range);
        return *this;
    }
    buf &set(T x)
    {
        for (auto &e : v)
            e = x;
        return *this;
    }
};

template <class T> static double as_double(T x)
{
    if constexpr (std::is_same<T, __half>::value)
        return __half2float(x);
    else if constexpr (std::is_same<T, __nv_bfloat16>::value)
        return __bfloat162float(x);
    else
        return (double)x;
}

/* Every element of got equal to want (rtol 0: integers), or within rtol of it relative to
 * the larger of |want| and scale (floats: a sum of n terms of magnitude m may cancel to
 * near 0, so its scale is n * m); NaN never passes. Prints the first differences and
 * counts a failure. Returns whether all matched. */
template <class T>
bool expect(const char *what, const T *want, const T *got, size_t n, double rtol = 0, double scale = 1)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double a = as_double(want[i]), b = as_double(got[i]);
        bool ok = rtol == 0 ? memcmp(&want[i], &got[i], sizeof(T)) == 0 || a == b
                            : !std::isnan(b) && fabs(a - b) <= rtol * std::max(fabs(a), scale);
        if (!ok && bad++ < 5)
            printf("differs: %s[%zu]: want %.9g, got %.9g\n", what, i, a, b);
    }
    if (bad) {
        printf("differs: %s: %zu of %zu elements\n", what, bad, n);
        failures++;
    }
    return bad == 0;
}

template <class T> bool expect(const char *what, buf<T> &want, buf<T> &got, double rtol = 0, double scale = 1)
{
    if (want.size() != got.size()) {
        printf("differs: %s: sizes %zu and %zu\n", what, want.size(), got.size());
        failures++;
        return false;
    }
    return expect(what, want.ptr(), got.ptr(), want.size(), rtol, scale);
}

}  // namespace emu

/* ---- the device API, by the names kernels use ---- */

#define __syncthreads() ((void)emu::sync_block(__FILE__, __LINE__, 0, 0))
#define __syncthreads_count(p) emu::sync_block(__FILE__, __LINE__, 1, (p))
#define __syncthreads_or(p) emu::sync_block(__FILE__, __LINE__, 2, (p))
#define __syncthreads_and(p) emu::sync_block(__FILE__, __LINE__, 3, (p))
/* __isShared: the address lies in the block's shared memory (static or dynamic) */
static inline int emu_is_shared(const volatile void *p)
{
    const char *c = (const char *)p;
    return (c >= __start_emu_shared && c < __stop_emu_shared) ||
           (c >= (const char *)emu::dyn_smem && c < (const char *)emu::dyn_smem + emu::DYN_SMEM);
}
#define __isShared(p) emu_is_shared(p)
/* cooperative groups, the block only: a thread_block's sync is the block's barrier */
namespace cooperative_groups {
struct thread_block {
    void sync() const { __syncthreads(); }
};
static inline thread_block this_thread_block() { return thread_block(); }
static inline void sync(const thread_block &) { __syncthreads(); }
}  // namespace cooperative_groups
#define __syncwarp(...) ((void)emu::warp_op<int>(__FILE__, __LINE__, emu::OP_SYNCWARP, emu_mask_or_full(__VA_ARGS__), 0, 0, 32))
static inline unsigned emu_mask_or_full(unsigned m = 0xffffffffu) { return m; }
#define __shfl_down_sync(m, v, d, ...) emu::warp_op(__FILE__, __LINE__, emu::OP_DOWN, (m), (v), (int)(d), emu_width(__VA_ARGS__))
#define __shfl_up_sync(m, v, d, ...) emu::warp_op(__FILE__, __LINE__, emu::OP_UP, (m), (v), (int)(d), emu_width(__VA_ARGS__))
#define __shfl_xor_sync(m, v, d, ...) emu::warp_op(__FILE__, __LINE__, emu::OP_XOR, (m), (v), (int)(d), emu_width(__VA_ARGS__))
#define __shfl_sync(m, v, d, ...) emu::warp_op(__FILE__, __LINE__, emu::OP_IDX, (m), (v), (int)(d), emu_width(__VA_ARGS__))
#define __shfl_down(v, d, ...) __shfl_down_sync(0xffffffffu, v, d, __VA_ARGS__)
#define __shfl_up(v, d, ...) __shfl_up_sync(0xffffffffu, v, d, __VA_ARGS__)
#define __shfl_xor(v, d, ...) __shfl_xor_sync(0xffffffffu, v, d, __VA_ARGS__)
#define __shfl(v, d, ...) __shfl_sync(0xffffffffu, v, d, __VA_ARGS__)
static inline int emu_width(int w = 32) { return w; }
#define __ballot_sync(m, p) emu::vote(__FILE__, __LINE__, emu::OP_BALLOT, (m), (p))
#define __any_sync(m, p) ((int)emu::vote(__FILE__, __LINE__, emu::OP_ANY, (m), (p)))
#define __all_sync(m, p) ((int)emu::vote(__FILE__, __LINE__, emu::OP_ALL, (m), (p)))
#define __reduce_add_sync(m, v) emu::reduce_op(__FILE__, __LINE__, emu::OP_RED_ADD, (m), (v))
#define __reduce_min_sync(m, v) emu::reduce_op(__FILE__, __LINE__, emu::OP_RED_MIN, (m), (v))
#define __reduce_max_sync(m, v) emu::reduce_op(__FILE__, __LINE__, emu::OP_RED_MAX, (m), (v))
#define __reduce_and_sync(m, v) emu::reduce_op(__FILE__, __LINE__, emu::OP_RED_AND, (m), (v))
#define __reduce_or_sync(m, v) emu::reduce_op(__FILE__, __LINE__, emu::OP_RED_OR, (m), (v))
#define __reduce_xor_sync(m, v) emu::reduce_op(__FILE__, __LINE__, emu::OP_RED_XOR, (m), (v))
/* Every lane that has not exited: lanes run one at a time, so "converged" means alive. */
static inline unsigned __activemask(void)
{
    unsigned m = 0;
    int w = emu::current / 32;
    for (int l = 0; l < 32; l++) {
        int i = emu::lane_fiber(w, l);
        if (i >= 0 && emu::fibers[i].state != emu::DONE)
            m |= 1u << l;
    }
    return m;
}
static inline void __threadfence(void) {}
/* a kernel's own check (stencil_window's tiled form: `if (blockDim.y != 16) __trap();`)
 * ends the emulated program as it ends the launch */
static inline void __trap(void) { abort(); }
static inline void __threadfence_block(void) {}

/* Atomics: a read-modify-write is atomic between fibers, which switch only at barriers. */
#define EMU_ATOMIC2(name, T, expr) \
    static inline T name(T *p, T v) { T old = *p; *p = (expr); return old; }
#define EMU_ATOMIC_ALL(T)                                     \
    EMU_ATOMIC2(atomicAdd, T, old + v)                        \
    EMU_ATOMIC2(atomicSub, T, old - v)                        \
    EMU_ATOMIC2(atomicExch, T, v)                             \
    EMU_ATOMIC2(atomicMax, T, old < v ? v : old)              \
    EMU_ATOMIC2(atomicMin, T, v < old ? v : old)              \
    EMU_ATOMIC2(atomicAnd, T, old & v)                        \
    EMU_ATOMIC2(atomicOr, T, old | v)                         \
    EMU_ATOMIC2(atomicXor, T, old ^ v)                        \
    static inline T atomicCAS(T *p, T cmp, T v) { T old = *p; if (old == cmp) *p = v; return old; }
EMU_ATOMIC_ALL(int)
EMU_ATOMIC_ALL(unsigned int)
EMU_ATOMIC_ALL(unsigned long long)
EMU_ATOMIC_ALL(long long)
EMU_ATOMIC2(atomicAdd, float, old + v)
EMU_ATOMIC2(atomicAdd, double, old + v)
EMU_ATOMIC2(atomicExch, float, v)
EMU_ATOMIC2(atomicMax, float, old < v ? v : old)
EMU_ATOMIC2(atomicMin, float, v < old ? v : old)
EMU_ATOMIC2(atomicAdd, __half, __hadd(old, v))
EMU_ATOMIC2(atomicAdd, __half2, __hadd2(old, v))
EMU_ATOMIC2(atomicAdd, __nv_bfloat16, __hadd(old, v))
EMU_ATOMIC2(atomicAdd, __nv_bfloat162, __hadd2(old, v))
static inline unsigned short atomicCAS(unsigned short *p, unsigned short cmp, unsigned short v)
{
    unsigned short old = *p;
    if (old == cmp)
        *p = v;
    return old;
}
static inline unsigned atomicInc(unsigned *p, unsigned v) { unsigned o = *p; *p = o >= v ? 0 : o + 1; return o; }
static inline unsigned atomicDec(unsigned *p, unsigned v) { unsigned o = *p; *p = (o == 0 || o > v) ? v : o - 1; return o; }
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd

/* Loads and stores with cache hints are loads and stores. */
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline T __ldcg(const T *p) { return *p; }
template <class T> static inline T __ldca(const T *p) { return *p; }
template <class T> static inline T __ldcs(const T *p) { return *p; }
template <class T> static inline T __ldlu(const T *p) { return *p; }
template <class T> static inline T __ldcv(const T *p) { return *p; }
template <class T> static inline void __stcs(T *p, T v) { *p = v; }
template <class T> static inline void __stcg(T *p, T v) { *p = v; }
template <class T> static inline void __stwb(T *p, T v) { *p = v; }
template <class T> static inline void __stwt(T *p, T v) { *p = v; }

/* Device math the host headers leave out (the rest comes from <math.h> and cuda_fp16.h). */
/* glibc declares __expf, __logf ... but does not export them: the fast intrinsics are the
 * plain functions here. */
#define __expf(x) expf(x)
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __exp10f(x) exp10f(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
#define __powf(x, y) powf(x, y)
#define __sincosf(x, s, c) sincosf(x, s, c)
static inline float __fdividef(float a, float b) { return a / b; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline int __float_as_int(float x) { int i; memcpy(&i, &x, 4); return i; }
static inline unsigned __float_as_uint(float x) { unsigned i; memcpy(&i, &x, 4); return i; }
static inline float __int_as_float(int i) { float x; memcpy(&x, &i, 4); return x; }
static inline float __uint_as_float(unsigned i) { float x; memcpy(&x, &i, 4); return x; }
static inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
static inline int __float2int_rz(float x) { return (int)x; }
static inline int __float2int_rd(float x) { return (int)floorf(x); }
static inline int __float2int_ru(float x) { return (int)ceilf(x); }
static inline unsigned __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
static inline float __ll2float_rn(long long x) { return (float)x; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++)
        r |= (x >> i & 1u) << (31 - i);
    return r;
}
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline int __mul24(int a, int b) { return a * b; }
/* min/max over mixed integer types, as CUDA's overloads take them. */
template <class A, class B> static inline typename std::common_type<A, B>::type max(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)a < (C)b ? (C)b : (C)a;
}
template <class A, class B> static inline typename std::common_type<A, B>::type min(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)b < (C)a ? (C)b : (C)a;
}
/* max/min of two floats or two doubles as CUDA's (fmaxf, fminf, fmax, fmin): a NaN operand
 * gives the other one (NaN only when both are); otherwise the ordered choice above, so
 * signed zeros are left as the templates leave them. Without these, max(NaN, x) was NaN
 * and max(x, NaN) x, which no GPU computes. */
template <class F> static inline F emu_fmax(F a, F b) { return a != a ? b : b != b ? a : (a < b ? b : a); }
template <class F> static inline F emu_fmin(F a, F b) { return a != a ? b : b != b ? a : (b < a ? b : a); }
static inline float max(float a, float b) { return emu_fmax(a, b); }
static inline float min(float a, float b) { return emu_fmin(a, b); }
static inline double max(double a, double b) { return emu_fmax(a, b); }
static inline double min(double a, double b) { return emu_fmin(a, b); }
