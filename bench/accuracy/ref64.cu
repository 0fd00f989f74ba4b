// The fp64-reference rule (docs/accuracy.md) on a GPU, on the suite's kernels: for each
// kernel and distribution, 5 seeds; the baseline, a second run of it (atomics sum in another
// order), the same source built with -use_fast_math, the engine's structural rewrite where
// there is one, and a cheat (25% of a sum, scaled by 4) are judged against the kernel's
// fp64 shadow (rewrites/promote.c). Prints each variant's pooled errors, the verdict of the
// rule (k = 4, floor 2^-20, RMS over the 5 seeds), how many single runs it would have
// rejected, and the old verdict (the spec's tolerance against the baseline).
// Built by bench/accuracy/build.sh; the shadows and rewrites come from the unit tests.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// ---- the variants ----
namespace base {
#include "../kernels/softmax.cu"
#include "../kernels/layernorm.cu"
#include "../kernels/rmsnorm.cu"
#include "../kernels/quick_gelu.cu"
#include "../kernels/reduce_sum.cu"
#include "../kernels/dot.cu"
#include "../kernels/sum_rows.cu"
#include "../kernels/gemv.cu"
#include "../kernels/rope.cu"
}
namespace fast { // fast.cu: the same sources under -use_fast_math
void launch_softmax(const float *, float *, int, int);
void launch_layernorm(const float *, const float *, const float *, float *, int, int, float);
void launch_rmsnorm(const float *, const float *, float *, int, int, float);
void launch_quick_gelu(const float *, float *, int);
void launch_reduce_sum(const float *, float *, int);
void launch_dot(const float *, const float *, float *, int);
void launch_sum_rows(const float *, float *, int, int);
void launch_gemv(const float *, const float *, float *, int, int);
void launch_rope_forward(const float *, float *, int, int, int, float);
}
namespace eng_softmax { // the engine's rewrites
#include HK_RW_SOFTMAX
}
namespace eng_layernorm {
#include HK_RW_LAYERNORM
}
namespace eng_rmsnorm {
#include HK_RW_RMSNORM
}
namespace eng_reduce_sum {
#include HK_RW_REDUCE_SUM
}
namespace eng_dot {
#include HK_RW_DOT
}
namespace eng_sum_rows {
#include HK_RW_SUM_ROWS
}
namespace eng_gemv {
#include HK_RW_GEMV
}
namespace shadow { // shadow.cu: the fp64 shadows and their launches
void softmax(const double *, double *, int, int);
void layernorm(const double *, const double *, const double *, double *, int, int, double);
void rmsnorm(const double *, const double *, double *, int, int, double);
void quick_gelu(const double *, double *, int);
void reduce_sum(const double *, double *, int);
void dot(const double *, const double *, double *, int);
void sum_rows(const double *, double *, int, int);
void gemv(const double *, const double *, double *, int, int);
void rope_forward(const double *, double *, int, int, int, double);
}

// The cheat: 25% of the elements, scaled by 4.
__global__ void cheat_sum(const float *in, float *out, int n)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i < n)
        atomicAdd(out, 4.0f * in[i]);
}
__global__ void cheat_dot(const float *a, const float *b, float *out, int n)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i < n)
        atomicAdd(out, 4.0f * a[i] * b[i]);
}

// ---- inputs ----
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
struct dist { int normal; double a, b; const char *text; };
static void fill(std::vector<float> &v, dist d, uint64_t seed)
{
    for (size_t i = 0; i < v.size(); i++) {
        double u1 = ((mix(seed * 0x100000001b3ull + 2 * i) >> 11) + 0.5) * 0x1p-53;
        if (!d.normal) { v[i] = (float)(d.a + (d.b - d.a) * u1); continue; }
        double u2 = ((mix(seed * 0x100000001b3ull + 2 * i + 1) >> 11) + 0.5) * 0x1p-53;
        v[i] = (float)(d.a + d.b * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
    }
}

struct dbuf { float *f = nullptr; double *d = nullptr; size_t n = 0; };
static dbuf upload(const std::vector<float> &h)
{
    dbuf b;
    b.n = h.size();
    std::vector<double> hd(h.begin(), h.end());
    CK(cudaMalloc(&b.f, b.n * 4));
    CK(cudaMalloc(&b.d, b.n * 8));
    CK(cudaMemcpy(b.f, h.data(), b.n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b.d, hd.data(), b.n * 8, cudaMemcpyHostToDevice));
    return b;
}
static void release(dbuf &b) { cudaFree(b.f); cudaFree(b.d); b = dbuf(); }

// ---- the rule ----
struct err { double rel_max, rel_l2; bool nonfinite; };
static err error_of(const std::vector<double> &ref, const std::vector<float> &x)
{
    double rmax = 0, dmax = 0, d2 = 0, r2 = 0;
    bool nf = false;
    for (size_t i = 0; i < ref.size(); i++) {
        if (!isfinite(ref[i])) continue;
        if (!isfinite(x[i])) { nf = true; continue; }
        double d = fabs((double)x[i] - ref[i]);
        rmax = fmax(rmax, fabs(ref[i]));
        dmax = fmax(dmax, d);
        d2 += d * d;
        r2 += ref[i] * ref[i];
    }
    return { rmax > 0 ? dmax / rmax : dmax, r2 > 0 ? sqrt(d2 / r2) : 0, nf };
}
static bool tol_pass(const std::vector<float> &b, const std::vector<float> &c, double rtol, double atol, double l2)
{
    double d2 = 0, b2 = 0;
    for (size_t i = 0; i < b.size(); i++) {
        double d = fabs((double)c[i] - b[i]);
        if (!(d <= atol + rtol * fabs(b[i]))) return false;
        d2 += d * d;
        b2 += (double)b[i] * b[i];
    }
    return !(l2 > 0 && sqrt(d2 / (b2 > 0 ? b2 : 1)) > l2);
}

static const double K = 4.0, FLOOR = 0x1p-20;
static const int SEEDS = 5;

// One kernel: run(variant, seed, dist) fills out (float) or ref (double).
struct kcase {
    const char *name;
    std::vector<dist> dists;
    double rtol, atol, l2;
    std::vector<std::string> variants; // "base" is first
    size_t n_out;
    void (*setup)(uint64_t seed, dist d); // uploads inputs
    void (*run)(const std::string &variant, float *out); // out: device, n_out floats
    void (*run_ref)(double *out);
    void (*teardown)();
};

static dbuf g_in[3];
static int R_ROWS, R_COLS, N_ELEMS, T_TOK, T_HEADS, T_DIM;

#define ROWS_CASE(NAME) \
    static void NAME##_setup(uint64_t seed, dist d) { \
        std::vector<float> h((size_t)R_ROWS * R_COLS); fill(h, d, seed); g_in[0] = upload(h); \
        std::vector<float> w(R_COLS); fill(w, dist{0, 0.5, 1.5, ""}, seed + 1000); g_in[1] = upload(w); \
        std::vector<float> bb(R_COLS); fill(bb, dist{0, -0.5, 0.5, ""}, seed + 2000); g_in[2] = upload(bb); }
ROWS_CASE(rows)
static void rows_teardown() { for (auto &b : g_in) release(b); }

static void softmax_run(const std::string &v, float *out)
{
    if (v == "base" || v == "base rerun") base::launch_softmax(g_in[0].f, out, R_ROWS, R_COLS);
    else if (v == "fast-math") fast::launch_softmax(g_in[0].f, out, R_ROWS, R_COLS);
    else eng_softmax::launch_softmax(g_in[0].f, out, R_ROWS, R_COLS);
}
static void softmax_ref(double *out) { shadow::softmax(g_in[0].d, out, R_ROWS, R_COLS); }
static void layernorm_run(const std::string &v, float *out)
{
    if (v == "base" || v == "base rerun") base::launch_layernorm(g_in[0].f, g_in[1].f, g_in[2].f, out, R_ROWS, R_COLS, 1e-5f);
    else if (v == "fast-math") fast::launch_layernorm(g_in[0].f, g_in[1].f, g_in[2].f, out, R_ROWS, R_COLS, 1e-5f);
    else eng_layernorm::launch_layernorm(g_in[0].f, g_in[1].f, g_in[2].f, out, R_ROWS, R_COLS, 1e-5f);
}
static void layernorm_ref(double *out) { shadow::layernorm(g_in[0].d, g_in[1].d, g_in[2].d, out, R_ROWS, R_COLS, (double)1e-5f); }
static void rmsnorm_run(const std::string &v, float *out)
{
    if (v == "base" || v == "base rerun") base::launch_rmsnorm(g_in[0].f, g_in[1].f, out, R_ROWS, R_COLS, 1e-6f);
    else if (v == "fast-math") fast::launch_rmsnorm(g_in[0].f, g_in[1].f, out, R_ROWS, R_COLS, 1e-6f);
    else eng_rmsnorm::launch_rmsnorm(g_in[0].f, g_in[1].f, out, R_ROWS, R_COLS, 1e-6f);
}
static void rmsnorm_ref(double *out) { shadow::rmsnorm(g_in[0].d, g_in[1].d, out, R_ROWS, R_COLS, (double)1e-6f); }
static void sum_rows_run(const std::string &v, float *out)
{
    if (v == "base" || v == "base rerun") base::launch_sum_rows(g_in[0].f, out, R_ROWS, R_COLS);
    else if (v == "fast-math") fast::launch_sum_rows(g_in[0].f, out, R_ROWS, R_COLS);
    else eng_sum_rows::launch_sum_rows(g_in[0].f, out, R_ROWS, R_COLS);
}
static void sum_rows_ref(double *out) { shadow::sum_rows(g_in[0].d, out, R_ROWS, R_COLS); }
// gemv: A is rows x cols, x is cols (g_in[1], uniform(0.5,1.5): replaced by the dist below)
static void gemv_setup(uint64_t seed, dist d)
{
    std::vector<float> h((size_t)R_ROWS * R_COLS); fill(h, d, seed); g_in[0] = upload(h);
    std::vector<float> x(R_COLS); fill(x, d, seed + 1000); g_in[1] = upload(x);
}
static void gemv_run(const std::string &v, float *out)
{
    if (v == "base" || v == "base rerun") base::launch_gemv(g_in[0].f, g_in[1].f, out, R_ROWS, R_COLS);
    else if (v == "fast-math") fast::launch_gemv(g_in[0].f, g_in[1].f, out, R_ROWS, R_COLS);
    else eng_gemv::launch_gemv(g_in[0].f, g_in[1].f, out, R_ROWS, R_COLS);
}
static void gemv_ref(double *out) { shadow::gemv(g_in[0].d, g_in[1].d, out, R_ROWS, R_COLS); }

static void flat_setup(uint64_t seed, dist d)
{
    std::vector<float> h(N_ELEMS); fill(h, d, seed); g_in[0] = upload(h);
    std::vector<float> h2(N_ELEMS); fill(h2, d, seed + 1000); g_in[1] = upload(h2);
}
static void gelu_run(const std::string &v, float *out)
{
    if (v == "fast-math") fast::launch_quick_gelu(g_in[0].f, out, N_ELEMS);
    else base::launch_quick_gelu(g_in[0].f, out, N_ELEMS);
}
static void gelu_ref(double *out) { shadow::quick_gelu(g_in[0].d, out, N_ELEMS); }
static void sum_run(const std::string &v, float *out)
{
    CK(cudaMemset(out, 0, 4));
    if (v == "base" || v == "base rerun") base::launch_reduce_sum(g_in[0].f, out, N_ELEMS);
    else if (v == "fast-math") fast::launch_reduce_sum(g_in[0].f, out, N_ELEMS);
    else if (v == "cheat 25%") cheat_sum<<<(N_ELEMS / 4 + 255) / 256, 256>>>(g_in[0].f, out, N_ELEMS);
    else eng_reduce_sum::launch_reduce_sum(g_in[0].f, out, N_ELEMS);
}
static void sum_ref(double *out) { CK(cudaMemset(out, 0, 8)); shadow::reduce_sum(g_in[0].d, out, N_ELEMS); }
static void dot_run(const std::string &v, float *out)
{
    CK(cudaMemset(out, 0, 4));
    if (v == "base" || v == "base rerun") base::launch_dot(g_in[0].f, g_in[1].f, out, N_ELEMS);
    else if (v == "fast-math") fast::launch_dot(g_in[0].f, g_in[1].f, out, N_ELEMS);
    else if (v == "cheat 25%") cheat_dot<<<(N_ELEMS / 4 + 255) / 256, 256>>>(g_in[0].f, g_in[1].f, out, N_ELEMS);
    else eng_dot::launch_dot(g_in[0].f, g_in[1].f, out, N_ELEMS);
}
static void dot_ref(double *out) { CK(cudaMemset(out, 0, 8)); shadow::dot(g_in[0].d, g_in[1].d, out, N_ELEMS); }
static void rope_setup(uint64_t seed, dist d)
{
    std::vector<float> h((size_t)T_TOK * T_HEADS * T_DIM); fill(h, d, seed); g_in[0] = upload(h);
}
static void rope_run(const std::string &v, float *out)
{
    if (v == "fast-math") fast::launch_rope_forward(g_in[0].f, out, T_TOK, T_HEADS, T_DIM, 10000.0f);
    else base::launch_rope_forward(g_in[0].f, out, T_TOK, T_HEADS, T_DIM, 10000.0f);
}
static void rope_ref(double *out) { shadow::rope_forward(g_in[0].d, out, T_TOK, T_HEADS, T_DIM, 10000.0); }
static void flat_teardown() { for (auto &b : g_in) release(b); }

static void run_case(const kcase &k)
{
    printf("\n%s (%zu outputs; old rule rtol %g atol %g l2 %g)\n", k.name, k.n_out, k.rtol, k.atol, k.l2);
    printf("  %-16s %-16s %10s %10s %9s %-7s %-12s %-8s\n", "distribution", "variant", "max err",
           "L2 err", "ratio", "pooled", "single runs", "old rule");
    float *d_out; double *d_ref;
    CK(cudaMalloc(&d_out, k.n_out * 4));
    CK(cudaMalloc(&d_ref, k.n_out * 8));
    std::vector<float> hout(k.n_out), hbase(k.n_out);
    std::vector<double> href(k.n_out);
    for (const dist &d : k.dists) {
        size_t nv = k.variants.size();
        std::vector<double> sm(nv, 0), sl(nv, 0);
        std::vector<int> single_rej(nv, 0), old_fail(nv, 0), nonfinite(nv, 0);
        std::vector<err> per(nv);
        for (int s = 1; s <= SEEDS; s++) {
            k.setup((uint64_t)s, d);
            k.run_ref(d_ref);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(href.data(), d_ref, k.n_out * 8, cudaMemcpyDeviceToHost));
            for (size_t v = 0; v < nv; v++) {
                k.run(k.variants[v], d_out);
                CK(cudaGetLastError());
                CK(cudaDeviceSynchronize());
                CK(cudaMemcpy(hout.data(), d_out, k.n_out * 4, cudaMemcpyDeviceToHost));
                if (v == 0) hbase = hout;
                per[v] = error_of(href, hout);
                sm[v] += per[v].rel_max * per[v].rel_max;
                sl[v] += per[v].rel_l2 * per[v].rel_l2;
                nonfinite[v] += per[v].nonfinite;
                if (v > 0) {
                    bool ok = !per[v].nonfinite && per[v].rel_max <= K * per[0].rel_max + FLOOR &&
                              per[v].rel_l2 <= K * per[0].rel_l2 + FLOOR;
                    single_rej[v] += !ok;
                    old_fail[v] += !tol_pass(hbase, hout, k.rtol, k.atol, k.l2);
                }
            }
            k.teardown();
        }
        double bm = sqrt(sm[0] / SEEDS), bl = sqrt(sl[0] / SEEDS);
        for (size_t v = 0; v < nv; v++) {
            double cm = sqrt(sm[v] / SEEDS), cl = sqrt(sl[v] / SEEDS);
            double ratio = fmax(cm / (K * bm + FLOOR), cl / (K * bl + FLOOR));
            char singles[32] = "", old[32] = "";
            if (v > 0) {
                snprintf(singles, sizeof singles, "%d/%d rejected", single_rej[v], SEEDS);
                snprintf(old, sizeof old, old_fail[v] ? "%d/%d fail" : "pass", old_fail[v], SEEDS);
            }
            printf("  %-16s %-16s %10.3g %10.3g %9.3g %-7s %-12s %-8s\n", d.text, k.variants[v].c_str(),
                   cm, cl, v ? ratio : 0.0, v ? (ratio <= 1 && !nonfinite[v] ? "pass" : "REJECT") : "-",
                   singles, old);
        }
    }
    cudaFree(d_out);
    cudaFree(d_ref);
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : nullptr;
    std::vector<dist> rowd = {{0, -1, 1, "uniform(-1,1)"}, {1, 0, 1, "normal(0,1)"}, {0, -8, 8, "uniform(-8,8)"}};
    std::vector<dist> lnd = {{0, -1, 1, "uniform(-1,1)"}, {1, 0, 1, "normal(0,1)"}, {0, 0, 1000, "uniform(0,1000)"}};
    std::vector<dist> sumd = {{0, 0, 1, "uniform(0,1)"}, {1, 1, 0.25, "normal(1,0.25)"}, {0, -1, 1, "uniform(-1,1)"}};
    std::vector<dist> gelud = {{0, -1, 1, "uniform(-1,1)"}, {1, 0, 1, "normal(0,1)"}, {0, -20, 20, "uniform(-20,20)"}};
    std::vector<std::string> rowv = {"base", "fast-math", "engine rewrite"};
    std::vector<kcase> cases = {
        {"softmax", rowd, 1e-4, 1e-7, 1e-5, rowv, 0, rows_setup, softmax_run, softmax_ref, rows_teardown},
        {"layernorm", lnd, 1e-4, 1e-4, 1e-4, rowv, 0, rows_setup, layernorm_run, layernorm_ref, rows_teardown},
        {"rmsnorm", rowd, 1e-4, 1e-5, 1e-5, rowv, 0, rows_setup, rmsnorm_run, rmsnorm_ref, rows_teardown},
        {"sum_rows", rowd, 1e-3, 1e-2, 1e-3, rowv, 0, rows_setup, sum_rows_run, sum_rows_ref, rows_teardown},
        {"gemv", rowd, 1e-4, 1e-3, 1e-5, rowv, 0, gemv_setup, gemv_run, gemv_ref, flat_teardown},
        {"quick_gelu", gelud, 1e-4, 1e-5, 1e-5, {"base", "fast-math"}, 0, flat_setup, gelu_run, gelu_ref, flat_teardown},
        {"reduce_sum", sumd, 1e-3, 1e-2, 1e-3, {"base", "base rerun", "engine rewrite", "cheat 25%"}, 1,
         flat_setup, sum_run, sum_ref, flat_teardown},
        {"dot", sumd, 1e-3, 1e-2, 1e-3, {"base", "base rerun", "engine rewrite", "cheat 25%"}, 1,
         flat_setup, dot_run, dot_ref, flat_teardown},
        {"rope_forward", rowd, 1e-3, 1e-3, 1e-3, {"base", "fast-math"}, 0, rope_setup, rope_run, rope_ref, flat_teardown},
    };
    for (kcase &k : cases) {
        if (only && !strstr(only, k.name)) continue;
        bool rows = k.setup == rows_setup || k.setup == gemv_setup;
        if (rows) {
            R_ROWS = k.setup == gemv_setup ? 16384 : !strcmp(k.name, "sum_rows") ? 8192 : 65536;
            R_COLS = k.setup == gemv_setup ? 4096 : !strcmp(k.name, "sum_rows") ? 8192 : 1024;
            k.n_out = k.setup == gemv_setup || !strcmp(k.name, "sum_rows") ? (size_t)R_ROWS : (size_t)R_ROWS * R_COLS;
        } else if (k.setup == rope_setup) {
            T_TOK = 4096, T_HEADS = 32, T_DIM = 128;
            k.n_out = (size_t)T_TOK * T_HEADS * T_DIM;
        } else {
            N_ELEMS = !strcmp(k.name, "quick_gelu") ? 1 << 24 : 1 << 24;
            if (k.n_out != 1) k.n_out = N_ELEMS;
        }
        run_case(k);
    }
    return 0;
}
