// hk_refs: times "what a user would otherwise use" beside a suite kernel (issue 5, Targets):
// the cuBLAS or CUB call that computes the same thing, and for every kernel a device copy
// (cudaMemcpy D2D) moving the spec's `bytes` at that size, the roofline of memory-bound work.
//
//   hk_refs KERNEL [--bytes EXPR] [--flops EXPR] [--scalar NAME=VALUE]... [--reps N]
//           [--warmup N] NAME=VALUE...
//
// NAME=VALUE are the spec's size variables (bench/refs/spec_args.sh prints them from a spec,
// first size set by default); --bytes and --flops are the spec's formulas, evaluated here
// with the spec language (refs_expr.h) and printed on every line; --scalar passes a numeric
// scalar argument of the kernel (alpha, beta, a) so the library computes the same
// expression. Timing is the harness's: warm-up launches, then each rep with the L2 flushed
// (a 2 x L2 memset) and the device synchronized before it, one launch between CUDA events;
// the median of --reps (>= 20, default 30). Before timing, each library result is checked
// on sampled outputs against a host computation of the kernel's formula, so a mis-mapped
// call (layout, transposition) is an error rather than a wrong reference.
//
// Output, one JSON object per line on stdout:
//   {"kernel":K,"reference":"cublasSgemm","size":{...},"median_ms":..,"p10_ms":..,"p90_ms":..,
//    "min_ms":..,"reps":..,"flushed_l2":true,"check":"ok","bytes":..,"flops":..,"gbs":..}
//   (bytes, flops: the spec's formulas at this size, null when absent; gbs: bytes / median)
//   {"kernel":K,"reference":"none","size":{...},"note":"..."}   (no library equivalent)
//   {"kernel":K,"reference":R,"size":{...},"error":"..."}       (that measurement failed)
// Exit: 0 all measurements made, 1 some reference failed (its error line printed), 2 bad
// command line or no usable GPU (an error line too).
#include <cublas_v2.h>
#include <cub/cub.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "refs_expr.h"

// ---- errors: one measurement fails, the others go on ----

struct RefError {
    std::string msg;
};

static void fail(const std::string &m) { throw RefError{m}; }

#define CK(call)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess)                                                             \
            fail(std::string(#call) + ": " + cudaGetErrorString(e_));                      \
    } while (0)

#define CKB(call)                                                                          \
    do {                                                                                   \
        cublasStatus_t s_ = (call);                                                        \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                   \
            return s_;                                                                     \
    } while (0)

static std::string cublas_err(cublasStatus_t s)
{
    return std::string(cublasGetStatusName(s)) + " (" + cublasGetStatusString(s) + ")";
}

// ---- command line ----

struct Opts {
    std::string kernel, bytes_expr, flops_expr;
    std::vector<std::pair<std::string, long long>> sizes;
    std::vector<std::pair<std::string, double>> scalars;
    int reps = 30, warmup = 3;
};

static Opts g_opt;
static int g_failed = 0;

static std::string json_str(const std::string &s)
{
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += (char)c;
        } else if (c < 0x20) {
            char b[8];
            snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else {
            o += (char)c;
        }
    }
    return o + "\"";
}

static std::string size_json()
{
    std::string o = "{";
    for (size_t i = 0; i < g_opt.sizes.size(); i++) {
        char b[64];
        snprintf(b, sizeof b, ":%lld", g_opt.sizes[i].second);
        o += (i ? "," : "") + json_str(g_opt.sizes[i].first) + b;
    }
    return o + "}";
}

static std::string num(double v, int digits = 6)
{
    if (!std::isfinite(v))
        return "null";
    char b[64];
    snprintf(b, sizeof b, "%.*g", digits, v);
    return b;
}

static void line_error(const std::string &ref, const std::string &msg)
{
    printf("{\"kernel\":%s,\"reference\":%s,\"size\":%s,\"error\":%s}\n",
           json_str(g_opt.kernel).c_str(), json_str(ref).c_str(), size_json().c_str(),
           json_str(msg).c_str());
    fflush(stdout);
    g_failed = 1;
}

static long long size_var(const char *name)
{
    for (auto &s : g_opt.sizes)
        if (s.first == name)
            return s.second;
    fail(std::string("size variable '") + name + "' not given (the spec's sizes name it)");
    return 0;
}

static double scalar(const char *name, double dflt)
{
    for (auto &s : g_opt.scalars)
        if (s.first == name)
            return s.second;
    return dflt;
}

static int to_int(long long v, const char *what)
{
    if (v < 1 || v > 2147483647LL)
        fail(std::string(what) + " out of the library's int range");
    return (int)v;
}

// ---- device buffers and inputs ----

struct Dev {
    void *p = nullptr;
    size_t bytes = 0;
    Dev() = default;
    explicit Dev(size_t n) : bytes(n) { CK(cudaMalloc(&p, n ? n : 1)); }
    ~Dev() { if (p) cudaFree(p); }
    Dev(const Dev &) = delete;
    Dev &operator=(const Dev &) = delete;
    template <class T> T *as() const { return (T *)p; }
};

// Counter-based values, identical on host and device: splitmix64 of (seed, index), 24 bits
// as a float in [0, 1); 2u - 1 is exact in float, so host and device agree bit for bit.
__host__ __device__ static inline uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
__host__ __device__ static inline float unit01(uint32_t seed, uint64_t i)
{
    return (float)(mix64(((uint64_t)seed << 40) ^ i) >> 40) * (1.0f / 16777216.0f);
}
__host__ __device__ static inline float sym11(uint32_t seed, uint64_t i)
{
    return unit01(seed, i) * 2.0f - 1.0f;
}

enum Fill { FILL_SYM, FILL_POS, FILL_BYTE };

template <class T> __host__ __device__ static inline T value_of(Fill f, uint32_t seed, uint64_t i);
template <> __host__ __device__ inline float value_of<float>(Fill f, uint32_t seed, uint64_t i)
{
    return f == FILL_POS ? unit01(seed, i) : sym11(seed, i);
}
template <>
__host__ __device__ inline __nv_bfloat16 value_of<__nv_bfloat16>(Fill f, uint32_t seed, uint64_t i)
{
    return __float2bfloat16(f == FILL_POS ? unit01(seed, i) : sym11(seed, i));
}
template <>
__host__ __device__ inline unsigned char value_of<unsigned char>(Fill, uint32_t seed, uint64_t i)
{
    return (unsigned char)(mix64(((uint64_t)seed << 40) ^ i) >> 56);
}

template <class T> __global__ void fill_kernel(T *p, size_t n, Fill f, uint32_t seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = value_of<T>(f, seed, i);
}

template <class T> static void fill(const Dev &d, size_t n, Fill f, uint32_t seed)
{
    fill_kernel<T><<<1024, 256>>>(d.as<T>(), n, f, seed);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
}

template <class T> static T fetch(const Dev &d, size_t i)
{
    T v;
    CK(cudaMemcpy(&v, d.as<T>() + i, sizeof(T), cudaMemcpyDeviceToHost));
    return v;
}

// Sample index s of count: spread pseudo-randomly, the first and last always included.
static size_t sample(size_t s, size_t count)
{
    if (s == 0)
        return 0;
    if (s == 1)
        return count - 1;
    return (size_t)(mix64(0x5eedull + s) % count);
}
static const int SAMPLES = 48;

static void check_close(const char *what, size_t idx, double got, double want, double scale,
                        double rtol)
{
    if (!(std::fabs(got - want) <= rtol * scale + 1e-6)) {
        char b[256];
        snprintf(b, sizeof b,
                 "result check failed: %s[%zu] = %.7g, the kernel's formula gives %.7g "
                 "(tolerance %.1e of %.4g): the call does not compute what the kernel does",
                 what, idx, got, want, rtol, scale);
        fail(b);
    }
}

// ---- timing, as the harness (include/hk_harness.h hk_time) ----

struct Stats {
    double median, p10, p90, min;
    int reps;
    bool flushed;
};

static double quantile(const std::vector<double> &s, double q)
{
    double pos = q * (double)(s.size() - 1);
    size_t lo = (size_t)pos, hi = lo + 1 < s.size() ? lo + 1 : lo;
    return s[lo] + (s[hi] - s[lo]) * (pos - (double)lo);
}

static Dev *g_flush = nullptr; // 2 x L2, written before every rep

// op() launches the reference once and returns "" or a reason it failed.
template <class F> static Stats time_op(F op)
{
    for (int w = 0; w < g_opt.warmup; w++) {
        std::string e = op();
        if (!e.empty())
            fail(e);
    }
    CK(cudaDeviceSynchronize());
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    std::vector<double> ms;
    std::string err;
    for (int r = 0; r < g_opt.reps && err.empty(); r++) {
        if (g_flush)
            CK(cudaMemsetAsync(g_flush->p, r & 0xFF, g_flush->bytes));
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(t0));
        err = op();
        CK(cudaEventRecord(t1));
        CK(cudaEventSynchronize(t1));
        CK(cudaGetLastError());
        float t = 0;
        CK(cudaEventElapsedTime(&t, t0, t1));
        ms.push_back(t);
    }
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    if (!err.empty())
        fail(err);
    std::sort(ms.begin(), ms.end());
    return Stats{quantile(ms, 0.5), quantile(ms, 0.1), quantile(ms, 0.9), ms[0], (int)ms.size(),
                 g_flush != nullptr};
}

// The spec's formula (bytes or flops) at this size; *have false when it was not given.
static double spec_formula(const std::string &expr, const char *what, bool *have)
{
    *have = false;
    if (expr.empty())
        return NAN;
    std::vector<const char *> names;
    std::vector<long long> vals;
    for (auto &s : g_opt.sizes) {
        names.push_back(s.first.c_str());
        vals.push_back(s.second);
    }
    double v = 0;
    char err[256];
    if (refs_expr_eval(expr.c_str(), names.data(), vals.data(), names.size(), &v, nullptr, err,
                       sizeof err))
        fail(std::string("--") + what + " '" + expr + "': " + err);
    if (!(v >= 0))
        fail(std::string("--") + what + " '" + expr + "' is negative at this size");
    *have = true;
    return v;
}

static double spec_bytes(bool *have)
{
    double v = spec_formula(g_opt.bytes_expr, "bytes", have);
    if (*have && !(v >= 1))
        fail("--bytes '" + g_opt.bytes_expr + "' is below 1 at this size");
    return v;
}

static void line_ok(const std::string &ref, const Stats &s, const char *check)
{
    bool have = false, have_fl = false;
    double bytes = NAN, flops = NAN;
    try {
        bytes = spec_bytes(&have);
    } catch (const RefError &) {
        have = false; // reported once, on the copy line
    }
    try {
        flops = spec_formula(g_opt.flops_expr, "flops", &have_fl);
    } catch (const RefError &e) {
        have_fl = false;
        fprintf(stderr, "hk_refs: %s\n", e.msg.c_str());
    }
    printf("{\"kernel\":%s,\"reference\":%s,\"size\":%s,\"median_ms\":%s,\"p10_ms\":%s,"
           "\"p90_ms\":%s,\"min_ms\":%s,\"reps\":%d,\"flushed_l2\":%s,\"check\":%s,"
           "\"bytes\":%s,\"flops\":%s,\"gbs\":%s}\n",
           json_str(g_opt.kernel).c_str(), json_str(ref).c_str(), size_json().c_str(),
           num(s.median).c_str(), num(s.p10).c_str(), num(s.p90).c_str(), num(s.min).c_str(),
           s.reps, s.flushed ? "true" : "false", json_str(check).c_str(),
           have ? num(bytes, 17).c_str() : "null", have_fl ? num(flops, 17).c_str() : "null",
           have && s.median > 0 ? num(bytes / (s.median * 1e-3) / 1e9).c_str() : "null");
    fflush(stdout);
}

// One measurement: run fn, print its error line when it throws.
template <class F> static void measure(const std::string &ref, F fn)
{
    try {
        fn();
    } catch (const RefError &e) {
        cudaGetLastError(); // clear a non-sticky error for the next measurement
        line_error(ref, e.msg);
    }
}

struct Blas {
    cublasHandle_t h = nullptr;
    Blas()
    {
        cublasStatus_t s = cublasCreate(&h);
        if (s != CUBLAS_STATUS_SUCCESS)
            fail("cublasCreate: " + cublas_err(s));
        s = cublasSetMathMode(h, CUBLAS_DEFAULT_MATH); // FP32 stays FP32 (no TF32 unless asked)
        if (s != CUBLAS_STATUS_SUCCESS)
            fail("cublasSetMathMode: " + cublas_err(s));
    }
    ~Blas() { if (h) cublasDestroy(h); }
};

// Wraps a cuBLAS call for time_op: "" on success, else the status.
template <class F> static std::string blas_op(const char *name, F f)
{
    cublasStatus_t s = f();
    return s == CUBLAS_STATUS_SUCCESS ? std::string() : std::string(name) + ": " + cublas_err(s);
}
template <class F> static std::string cuda_op(const char *name, F f)
{
    cudaError_t e = f();
    return e == cudaSuccess ? std::string() : std::string(name) + ": " + cudaGetErrorString(e);
}
static void must(const std::string &e)
{
    if (!e.empty())
        fail(e);
}

// ---- the references ----

// sgemm: C = alpha A B + beta C, row-major M x K times K x N. Row-major is column-major
// transposed, so cuBLAS computes C^T = B^T A^T: (N x K)(K x M) with the operands swapped.
static void ref_sgemm()
{
    for (int tf32 = 0; tf32 < 2; tf32++) {
        const char *name = tf32 ? "cublasGemmEx TF32" : "cublasSgemm";
        measure(name, [&] {
            int M = to_int(size_var("M"), "M"), N = to_int(size_var("N"), "N"),
                K = to_int(size_var("K"), "K");
            float alpha = (float)scalar("alpha", 1.0), beta = (float)scalar("beta", 0.0);
            Dev A((size_t)M * K * 4), B((size_t)K * N * 4), C((size_t)M * N * 4);
            fill<float>(A, (size_t)M * K, FILL_SYM, 1);
            fill<float>(B, (size_t)K * N, FILL_SYM, 2);
            fill<float>(C, (size_t)M * N, FILL_SYM, 3);
            Blas bl;
            auto op = [&] {
                return blas_op(name, [&] {
                    if (tf32)
                        return cublasGemmEx(bl.h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha,
                                            B.p, CUDA_R_32F, N, A.p, CUDA_R_32F, K, &beta, C.p,
                                            CUDA_R_32F, N, CUBLAS_COMPUTE_32F_FAST_TF32,
                                            CUBLAS_GEMM_DEFAULT);
                    return cublasSgemm(bl.h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha,
                                       B.as<float>(), N, A.as<float>(), K, &beta, C.as<float>(),
                                       N);
                });
            };
            must(op());
            CK(cudaDeviceSynchronize());
            for (int s = 0; s < SAMPLES; s++) {
                size_t idx = sample(s, (size_t)M * N), i = idx / N, j = idx % N;
                double acc = 0, mag = 0;
                for (int k = 0; k < K; k++) {
                    double p = (double)sym11(1, i * K + k) * sym11(2, (size_t)k * N + j);
                    acc += p;
                    mag += std::fabs(p);
                }
                double c0 = sym11(3, idx);
                check_close("C", idx, fetch<float>(C, idx), alpha * acc + beta * c0,
                            std::fabs(alpha) * mag + std::fabs(beta * c0), tf32 ? 5e-3 : 1e-4);
            }
            line_ok(name, time_op(op), "ok");
        });
    }
}

// batched_gemm: C[b] = A[b] B[b], row-major, matrices back to back.
static void ref_batched_gemm()
{
    const char *name = "cublasSgemmStridedBatched";
    measure(name, [&] {
        int nb = to_int(size_var("batch"), "batch"), M = to_int(size_var("M"), "M"),
            N = to_int(size_var("N"), "N"), K = to_int(size_var("K"), "K");
        size_t sa = (size_t)M * K, sb = (size_t)K * N, sc = (size_t)M * N;
        Dev A(sa * nb * 4), B(sb * nb * 4), C(sc * nb * 4);
        fill<float>(A, sa * nb, FILL_SYM, 1);
        fill<float>(B, sb * nb, FILL_SYM, 2);
        Blas bl;
        float one = 1, zero = 0;
        auto op = [&] {
            return blas_op(name, [&] {
                return cublasSgemmStridedBatched(bl.h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one,
                                                 B.as<float>(), N, (long long)sb, A.as<float>(),
                                                 K, (long long)sa, &zero, C.as<float>(), N,
                                                 (long long)sc, nb);
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        for (int s = 0; s < SAMPLES; s++) {
            size_t idx = sample(s, sc * nb), b = idx / sc, i = idx % sc / N, j = idx % N;
            double acc = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double p = (double)sym11(1, b * sa + i * K + k) *
                           sym11(2, b * sb + (size_t)k * N + j);
                acc += p;
                mag += std::fabs(p);
            }
            check_close("C", idx, fetch<float>(C, idx), acc, mag, 1e-4);
        }
        line_ok(name, time_op(op), "ok");
    });
}

// gemv: y = A x with A row-major M x N, i.e. column-major N x M transposed.
static void ref_gemv()
{
    const char *name = "cublasSgemv";
    measure(name, [&] {
        int M = to_int(size_var("M"), "M"), N = to_int(size_var("N"), "N");
        Dev A((size_t)M * N * 4), x((size_t)N * 4), y((size_t)M * 4);
        fill<float>(A, (size_t)M * N, FILL_SYM, 1);
        fill<float>(x, N, FILL_SYM, 2);
        Blas bl;
        float one = 1, zero = 0;
        auto op = [&] {
            return blas_op(name, [&] {
                return cublasSgemv(bl.h, CUBLAS_OP_T, N, M, &one, A.as<float>(), N, x.as<float>(),
                                   1, &zero, y.as<float>(), 1);
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        for (int s = 0; s < SAMPLES; s++) {
            size_t i = sample(s, M);
            double acc = 0, mag = 0;
            for (int j = 0; j < N; j++) {
                double p = (double)sym11(1, i * N + j) * sym11(2, j);
                acc += p;
                mag += std::fabs(p);
            }
            check_close("y", i, fetch<float>(y, i), acc, mag, 1e-4);
        }
        line_ok(name, time_op(op), "ok");
    });
}

// sum_rows as a GEMV with a vector of ones: the cuBLAS way to sum rows.
static void ref_sum_rows_gemv()
{
    const char *name = "cublasSgemv (ones)";
    measure(name, [&] {
        int rows = to_int(size_var("rows"), "rows"), cols = to_int(size_var("cols"), "cols");
        Dev A((size_t)rows * cols * 4), ones((size_t)cols * 4), y((size_t)rows * 4);
        fill<float>(A, (size_t)rows * cols, FILL_SYM, 1);
        std::vector<float> h(cols, 1.0f);
        CK(cudaMemcpy(ones.p, h.data(), (size_t)cols * 4, cudaMemcpyHostToDevice));
        Blas bl;
        float one = 1, zero = 0;
        auto op = [&] {
            return blas_op(name, [&] {
                return cublasSgemv(bl.h, CUBLAS_OP_T, cols, rows, &one, A.as<float>(), cols,
                                   ones.as<float>(), 1, &zero, y.as<float>(), 1);
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        for (int s = 0; s < SAMPLES; s++) {
            size_t r = sample(s, rows);
            double acc = 0, mag = 0;
            for (int c = 0; c < cols; c++) {
                acc += sym11(1, r * cols + c);
                mag += std::fabs(sym11(1, r * cols + c));
            }
            check_close("out", r, fetch<float>(y, r), acc, mag, 1e-4);
        }
        line_ok(name, time_op(op), "ok");
    });
}

// sum_rows: one segment per row.
static void ref_sum_rows_cub()
{
    const char *name = "cub::DeviceSegmentedReduce::Sum";
    measure(name, [&] {
        long long rows = size_var("rows"), cols = size_var("cols");
        (void)to_int(rows, "rows");
        Dev in((size_t)rows * cols * 4), out((size_t)rows * 4), off((size_t)(rows + 1) * 8);
        fill<float>(in, (size_t)rows * cols, FILL_SYM, 1);
        std::vector<long long> h((size_t)rows + 1);
        for (long long r = 0; r <= rows; r++)
            h[(size_t)r] = r * cols;
        CK(cudaMemcpy(off.p, h.data(), h.size() * 8, cudaMemcpyHostToDevice));
        const long long *beg = off.as<long long>(), *end = off.as<long long>() + 1;
        size_t tmp_bytes = 0;
        CK(cub::DeviceSegmentedReduce::Sum(nullptr, tmp_bytes, in.as<float>(), out.as<float>(),
                                           (int)rows, beg, end));
        Dev tmp(tmp_bytes);
        auto op = [&] {
            return cuda_op(name, [&] {
                return cub::DeviceSegmentedReduce::Sum(tmp.p, tmp_bytes, in.as<float>(),
                                                       out.as<float>(), (int)rows, beg, end);
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        for (int s = 0; s < SAMPLES; s++) {
            size_t r = sample(s, (size_t)rows);
            double acc = 0, mag = 0;
            for (long long c = 0; c < cols; c++) {
                acc += sym11(1, r * cols + c);
                mag += std::fabs(sym11(1, r * cols + c));
            }
            check_close("out", r, fetch<float>(out, r), acc, mag, 1e-4);
        }
        line_ok(name, time_op(op), "ok");
    });
}

// dot: the result stays on the device (pointer mode device), so the call is asynchronous
// like the kernel it stands for.
static void ref_dot()
{
    const char *name = "cublasSdot";
    measure(name, [&] {
        int n = to_int(size_var("n"), "n");
        Dev a((size_t)n * 4), b((size_t)n * 4), out(4);
        fill<float>(a, n, FILL_POS, 1);
        fill<float>(b, n, FILL_POS, 2);
        Blas bl;
        cublasStatus_t st = cublasSetPointerMode(bl.h, CUBLAS_POINTER_MODE_DEVICE);
        if (st != CUBLAS_STATUS_SUCCESS)
            fail("cublasSetPointerMode: " + cublas_err(st));
        auto op = [&] {
            return blas_op(name, [&] {
                return cublasSdot(bl.h, n, a.as<float>(), 1, b.as<float>(), 1, out.as<float>());
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        double acc = 0;
        for (size_t i = 0; i < (size_t)n; i++)
            acc += (double)unit01(1, i) * unit01(2, i);
        check_close("out", 0, fetch<float>(out, 0), acc, acc, 1e-4);
        line_ok(name, time_op(op), "ok");
    });
}

// saxpy: y = a x + y (y changes every rep, as the kernel's inout does between its reps
// before the harness restores it; the time does not depend on the values).
static void ref_saxpy()
{
    const char *name = "cublasSaxpy";
    measure(name, [&] {
        int n = to_int(size_var("n"), "n");
        float alpha = (float)scalar("a", 2.5);
        Dev x((size_t)n * 4), y((size_t)n * 4);
        fill<float>(x, n, FILL_SYM, 1);
        fill<float>(y, n, FILL_SYM, 2);
        Blas bl;
        auto op = [&] {
            return blas_op(name, [&] {
                return cublasSaxpy(bl.h, n, &alpha, x.as<float>(), 1, y.as<float>(), 1);
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        for (int s = 0; s < SAMPLES; s++) {
            size_t i = sample(s, n);
            double want = (double)alpha * sym11(1, i) + sym11(2, i);
            check_close("y", i, fetch<float>(y, i), want,
                        std::fabs(alpha * sym11(1, i)) + std::fabs(sym11(2, i)), 1e-6);
        }
        line_ok(name, time_op(op), "ok");
    });
}

// bf16_axpy: cublasAxpyEx on bfloat16 vectors with float scale and arithmetic.
static void ref_bf16_axpy()
{
    const char *name = "cublasAxpyEx bf16";
    measure(name, [&] {
        int n = to_int(size_var("n"), "n");
        float alpha = (float)scalar("a", 1.5);
        Dev x((size_t)n * 2), y((size_t)n * 2);
        fill<__nv_bfloat16>(x, n, FILL_SYM, 1);
        fill<__nv_bfloat16>(y, n, FILL_SYM, 2);
        Blas bl;
        auto op = [&] {
            return blas_op(name, [&] {
                return cublasAxpyEx(bl.h, n, &alpha, CUDA_R_32F, x.p, CUDA_R_16BF, 1, y.p,
                                    CUDA_R_16BF, 1, CUDA_R_32F);
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        for (int s = 0; s < SAMPLES; s++) {
            size_t i = sample(s, n);
            double xv = __bfloat162float(value_of<__nv_bfloat16>(FILL_SYM, 1, i));
            double yv = __bfloat162float(value_of<__nv_bfloat16>(FILL_SYM, 2, i));
            double want = alpha * xv + yv;
            check_close("y", i, __bfloat162float(fetch<__nv_bfloat16>(y, i)), want,
                        std::fabs(alpha * xv) + std::fabs(yv), 1e-2);
        }
        line_ok(name, time_op(op), "ok");
    });
}

// reduce_sum: the sum of n floats into one.
static void ref_reduce_sum()
{
    const char *name = "cub::DeviceReduce::Sum";
    measure(name, [&] {
        int n = to_int(size_var("n"), "n");
        Dev in((size_t)n * 4), out(4);
        fill<float>(in, n, FILL_POS, 1);
        size_t tmp_bytes = 0;
        CK(cub::DeviceReduce::Sum(nullptr, tmp_bytes, in.as<float>(), out.as<float>(), n));
        Dev tmp(tmp_bytes);
        auto op = [&] {
            return cuda_op(name, [&] {
                return cub::DeviceReduce::Sum(tmp.p, tmp_bytes, in.as<float>(), out.as<float>(), n);
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        double acc = 0;
        for (size_t i = 0; i < (size_t)n; i++)
            acc += unit01(1, i);
        check_close("out", 0, fetch<float>(out, 0), acc, acc, 1e-4);
        line_ok(name, time_op(op), "ok");
    });
}

// transpose: out (cols x rows, row-major) = in^T. Column-major, in is a cols x rows matrix
// with ld cols and out a rows x cols one with ld rows: out = op_T(in), beta = 0.
static void ref_transpose()
{
    const char *name = "cublasSgeam (transpose)";
    measure(name, [&] {
        int rows = to_int(size_var("rows"), "rows"), cols = to_int(size_var("cols"), "cols");
        size_t n = (size_t)rows * cols;
        Dev in(n * 4), out(n * 4);
        fill<float>(in, n, FILL_SYM, 1);
        Blas bl;
        float one = 1, zero = 0;
        auto op = [&] {
            return blas_op(name, [&] {
                return cublasSgeam(bl.h, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in.as<float>(),
                                   cols, &zero, out.as<float>(), rows, out.as<float>(), rows);
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        for (int s = 0; s < SAMPLES; s++) {
            size_t idx = sample(s, n), r = idx / cols, c = idx % cols;
            check_close("out", c * rows + r, fetch<float>(out, c * rows + r), sym11(1, idx), 0, 0);
        }
        line_ok(name, time_op(op), "ok");
    });
}

// vector_add and matadd2d: C = alpha A + beta B elementwise (a vector is an n x 1 matrix;
// a row-major rows x cols matrix is a column-major cols x rows one).
static void ref_geam_add(long long m, long long nc, float alpha, float beta)
{
    const char *name = "cublasSgeam (add)";
    measure(name, [&] {
        int mm = to_int(m, "rows"), nn = to_int(nc, "cols");
        size_t n = (size_t)mm * nn;
        Dev A(n * 4), B(n * 4), C(n * 4);
        fill<float>(A, n, FILL_SYM, 1);
        fill<float>(B, n, FILL_SYM, 2);
        Blas bl;
        auto op = [&] {
            return blas_op(name, [&] {
                return cublasSgeam(bl.h, CUBLAS_OP_N, CUBLAS_OP_N, mm, nn, &alpha, A.as<float>(),
                                   mm, &beta, B.as<float>(), mm, C.as<float>(), mm);
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        for (int s = 0; s < SAMPLES; s++) {
            size_t i = sample(s, n);
            double a = sym11(1, i), b = sym11(2, i);
            check_close("C", i, fetch<float>(C, i), alpha * a + beta * b,
                        std::fabs(alpha * a) + std::fabs(beta * b), 1e-6);
        }
        line_ok(name, time_op(op), "ok");
    });
}

// histogram: 256 even bins over bytes [0, 256).
static void ref_histogram()
{
    const char *name = "cub::DeviceHistogram::HistogramEven";
    measure(name, [&] {
        int n = to_int(size_var("n"), "n");
        Dev data((size_t)n), bins(256 * 4);
        fill<unsigned char>(data, n, FILL_BYTE, 1);
        size_t tmp_bytes = 0;
        CK(cub::DeviceHistogram::HistogramEven(nullptr, tmp_bytes, data.as<unsigned char>(),
                                               bins.as<unsigned int>(), 257, 0, 256, n));
        Dev tmp(tmp_bytes);
        auto op = [&] {
            return cuda_op(name, [&] {
                return cub::DeviceHistogram::HistogramEven(tmp.p, tmp_bytes,
                                                           data.as<unsigned char>(),
                                                           bins.as<unsigned int>(), 257, 0, 256, n);
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        std::vector<unsigned int> want(256, 0), got(256);
        for (size_t i = 0; i < (size_t)n; i++)
            want[value_of<unsigned char>(FILL_BYTE, 1, i)]++;
        CK(cudaMemcpy(got.data(), bins.p, 256 * 4, cudaMemcpyDeviceToHost));
        for (int b = 0; b < 256; b++)
            check_close("bins", b, got[b], want[b], 0, 0);
        line_ok(name, time_op(op), "ok");
    });
}

// For every kernel: a D2D copy of half the spec's bytes, so the copy moves (reads plus
// writes) exactly the bytes the kernel's formula says it must move.
static void ref_copy()
{
    const char *name = "cudaMemcpy D2D";
    measure(name, [&] {
        bool have = false;
        double bytes = spec_bytes(&have);
        if (!have)
            fail("no --bytes formula: the spec has no `bytes`, so there is no copy to compare "
                 "with");
        size_t half = (size_t)std::ceil(bytes / 2);
        Dev src(half), dst(half);
        CK(cudaMemset(src.p, 0x3c, half));
        auto op = [&] {
            return cuda_op(name, [&] {
                return cudaMemcpyAsync(dst.p, src.p, half, cudaMemcpyDeviceToDevice);
            });
        };
        must(op());
        CK(cudaDeviceSynchronize());
        line_ok(name, time_op(op), "n/a");
    });
}

static void none(const char *why)
{
    printf("{\"kernel\":%s,\"reference\":\"none\",\"size\":%s,\"note\":%s}\n",
           json_str(g_opt.kernel).c_str(), size_json().c_str(), json_str(why).c_str());
    fflush(stdout);
}

// ---- main ----

static int usage(const std::string &msg)
{
    fprintf(stderr,
            "hk_refs: %s\n"
            "usage: hk_refs KERNEL [--bytes EXPR] [--flops EXPR] [--scalar NAME=VALUE]...\n"
            "               [--reps N (>= 20)] [--warmup N] NAME=VALUE...\n",
            msg.c_str());
    line_error("-", std::string("usage: ") + msg);
    return 2;
}

static bool parse_assign(const char *a, std::string *name, std::string *val)
{
    const char *eq = strchr(a, '=');
    if (!eq || eq == a || !eq[1])
        return false;
    *name = std::string(a, eq);
    *val = eq + 1;
    for (char c : *name)
        if (!(isalnum((unsigned char)c) || c == '_'))
            return false;
    return !isdigit((unsigned char)(*name)[0]);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-')
        return usage("the first argument is the kernel's name");
    g_opt.kernel = argv[1];
    for (int i = 2; i < argc; i++) {
        std::string a = argv[i], name, val;
        bool takes_value = a == "--bytes" || a == "--flops" || a == "--scalar" || a == "--reps" ||
                           a == "--warmup";
        if (takes_value && i + 1 >= argc)
            return usage(a + " needs a value");
        if (a == "--bytes") {
            g_opt.bytes_expr = argv[++i];
        } else if (a == "--flops") {
            g_opt.flops_expr = argv[++i];
        } else if (a == "--reps" || a == "--warmup") {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < (a == "--reps" ? 20 : 0) || v > 1000)
                return usage(a + " must be an integer in [" + (a == "--reps" ? "20" : "0") +
                             ", 1000]");
            (a == "--reps" ? g_opt.reps : g_opt.warmup) = (int)v;
        } else if (a == "--scalar") {
            char *end;
            if (!parse_assign(argv[++i], &name, &val))
                return usage(std::string("--scalar ") + argv[i] + ": expected NAME=NUMBER");
            double v = strtod(val.c_str(), &end);
            if (*end || !std::isfinite(v))
                return usage(std::string("--scalar ") + argv[i] + ": not a number");
            g_opt.scalars.push_back({name, v});
        } else if (parse_assign(a.c_str(), &name, &val)) {
            char *end;
            errno = 0;
            long long v = strtoll(val.c_str(), &end, 10);
            if (*end || errno || v < 1 || v > (1LL << 40))
                return usage(a + ": a size must be an integer in [1, 2^40]");
            g_opt.sizes.push_back({name, v});
        } else {
            return usage("unknown argument '" + a + "'");
        }
    }
    if (g_opt.sizes.empty())
        return usage("no size given (NAME=VALUE, the spec's size variables)");

    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev < 1) {
        line_error("-", std::string("no usable GPU: ") +
                            (e != cudaSuccess ? cudaGetErrorString(e) : "no device"));
        return 2;
    }
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
    try {
        if (l2 > 0)
            g_flush = new Dev(2 * (size_t)l2);
    } catch (const RefError &) {
        cudaGetLastError();
        g_flush = nullptr; // timing goes on unflushed, and each line says so
    }

    const std::string &k = g_opt.kernel;
    if (k == "sgemm") {
        ref_sgemm();
    } else if (k == "batched_gemm") {
        ref_batched_gemm();
    } else if (k == "gemv") {
        ref_gemv();
    } else if (k == "dot") {
        ref_dot();
    } else if (k == "saxpy") {
        ref_saxpy();
    } else if (k == "bf16_axpy") {
        ref_bf16_axpy();
    } else if (k == "reduce_sum") {
        ref_reduce_sum();
    } else if (k == "sum_rows") {
        ref_sum_rows_cub();
        ref_sum_rows_gemv();
    } else if (k == "transpose") {
        ref_transpose();
    } else if (k == "vector_add") {
        measure("cublasSgeam (add)", [] { ref_geam_add(size_var("n"), 1, 1.0f, 1.0f); });
    } else if (k == "matadd2d") {
        measure("cublasSgeam (add)", [] {
            ref_geam_add(size_var("cols"), size_var("rows"), (float)scalar("alpha", 1.0),
                         (float)scalar("beta", 1.0));
        });
    } else if (k == "histogram") {
        ref_histogram();
    } else {
        none("no library call computes this kernel; the copy line is its memory roofline");
    }
    ref_copy();
    delete g_flush;
    return g_failed;
}
