// Probe kernels for recording compute-sanitizer's real output (tests/data/sanitize/*.txt):
// one process per case, `probe CASE`, built with nvcc -lineinfo like the benchmark programs.
// record.sh runs every case under memcheck, racecheck and initcheck on a GPU machine.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                            \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            printf("{\"error\":\"cuda\",\"message\":\"%s: %s\"}\n", #x, cudaGetErrorString(e_)); \
            exit(3);                                                                     \
        }                                                                                \
    } while (0)

static const int N = 1000003;

__global__ void vadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// float4 loads over ceil(n/4) vectors: the last vector reads past the end, writes stay in
__global__ void saxpy_tail(int n, float a, const float *x, float *y)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * v >= n)
        return;
    float4 xv = reinterpret_cast<const float4 *>(x)[v];
    float4 yv = reinterpret_cast<const float4 *>(y)[v];
    float xs[4] = {xv.x, xv.y, xv.z, xv.w}, ys[4] = {yv.x, yv.y, yv.z, yv.w};
    for (int k = 0; k < 4; k++)
        if (4 * v + k < n)
            y[4 * v + k] = a * xs[k] + ys[k];
}

__global__ void write_past(float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        y[i] = 1.0f;
}

// no barrier between the first store and the tree's first read (other warps' elements)
__global__ void race_init(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? in[i] : 0.0f;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}

// block tree with barriers down to 64, then a warp-synchronous tail on volatile shared
// memory without __syncwarp (the pre-Volta idiom)
__global__ void race_warp_tail(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t < 32) {
        volatile float *v = buf;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}

// every thread stores the same value to one shared word; thread 0 reads it, no barrier
__global__ void race_same_value(const float *in, float *out, int n)
{
    __shared__ int flag;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    flag = 1;
    if (i < n)
        atomicAdd(out, in[i] * (float)flag);
}

// tree without any barrier (tests/gpu/cheats/race.cu)
__global__ void race_tree(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? in[i] : 0.0f;
    for (int s = blockDim.x / 2; s > 0; s >>= 1)
        if (t < s)
            buf[t] += buf[t + s];
    if (t == 0)
        atomicAdd(out, buf[0]);
}

// reads a scratch buffer nobody wrote
__global__ void read_scratch(const float *in, const float *scratch, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] + 0.0f * scratch[i];
}

// reads its (poisoned) output before writing it
__global__ void read_output_first(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float old = out[i];
        out[i] = in[i] + (old == old ? 0.0f : 0.0f);
    }
}

// reads shared memory nobody wrote
__global__ void read_shared_uninit(const float *in, float *out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (t == 0)
        s[0] = 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = in[i] + 0.0f * s[(t + 1) & 255];
}

static float *dev_alloc(size_t count, size_t guard_bytes, float **base_out)
{
    unsigned char *base = NULL;
    CK(cudaMalloc((void **)&base, count * sizeof(float) + 2 * guard_bytes));
    CK(cudaMemset(base, 0xA5, count * sizeof(float) + 2 * guard_bytes));
    *base_out = (float *)base;
    return (float *)(base + guard_bytes);
}

static float *upload(const std::vector<float> &h, size_t guard, float **base)
{
    float *d = dev_alloc(h.size(), guard, base);
    CK(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

static int reduce_case(const char *name, void (*k)(const float *, float *, int), int reps)
{
    std::vector<float> h(N);
    double ref = 0;
    for (int i = 0; i < N; i++) {
        h[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
        ref += h[i];
    }
    float *base, *obase;
    float *in = upload(h, 0, &base);
    float *out = dev_alloc(1, 0, &obase);
    int bad = 0;
    double worst = 0;
    for (int r = 0; r < reps; r++) {
        CK(cudaMemset(out, 0, sizeof(float)));
        k<<<(N + 255) / 256, 256>>>(in, out, N);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        float got;
        CK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
        double rel = fabs(got - ref) / ref;
        if (rel > worst)
            worst = rel;
        bad += rel > 1e-3;
    }
    printf("{\"ok\":true,\"case\":\"%s\",\"reps\":%d,\"wrong\":%d,\"worst_rel\":%.3g}\n", name, reps,
           bad, worst);
    return 0;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "clean";
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    std::vector<float> a(N), b(N);
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 1.0f;
    }
    float *ba, *bb, *bc;
    if (!strcmp(c, "clean") || !strcmp(c, "fail_exit3")) {
        float *da = upload(a, 0, &ba), *db = upload(b, 0, &bb), *dc = dev_alloc(N, 0, &bc);
        vadd<<<(N + 255) / 256, 256>>>(da, db, dc, N);
        CK(cudaDeviceSynchronize());
        if (!strcmp(c, "fail_exit3")) {
            printf("{\"error\":\"cuda\",\"message\":\"pretend failure\"}\n");
            return 3;
        }
    } else if (!strcmp(c, "oob_read_tail") || !strcmp(c, "oob_read_tail_guard")) {
        size_t guard = strstr(c, "guard") ? 65536 : 0;
        float *dx = upload(a, guard, &ba), *dy = upload(b, guard, &bb);
        int vecs = (N + 3) / 4;
        saxpy_tail<<<(vecs + 255) / 256, 256>>>(N, 2.0f, dx, dy);
        CK(cudaDeviceSynchronize());
    } else if (!strcmp(c, "oob_write")) {
        float *dy = dev_alloc(N, 0, &bb);
        write_past<<<(N + 256) / 256, 256>>>(dy, N);
        CK(cudaDeviceSynchronize());
    } else if (!strcmp(c, "race_init")) {
        return reduce_case(c, race_init, reps);
    } else if (!strcmp(c, "race_warp_tail")) {
        return reduce_case(c, race_warp_tail, reps);
    } else if (!strcmp(c, "race_same_value")) {
        return reduce_case(c, race_same_value, reps);
    } else if (!strcmp(c, "race_tree")) {
        return reduce_case(c, race_tree, reps);
    } else if (!strcmp(c, "uninit_scratch")) {
        float *da = upload(a, 0, &ba), *dc = dev_alloc(N, 0, &bc), *scratch = NULL;
        CK(cudaMalloc((void **)&scratch, N * sizeof(float)));
        read_scratch<<<(N + 255) / 256, 256>>>(da, scratch, dc, N);
        CK(cudaDeviceSynchronize());
    } else if (!strcmp(c, "read_output_first")) {
        float *da = upload(a, 0, &ba), *dc = dev_alloc(N, 0, &bc);
        CK(cudaMemset(dc, 0xFF, N * sizeof(float)));
        read_output_first<<<(N + 255) / 256, 256>>>(da, dc, N);
        CK(cudaDeviceSynchronize());
    } else if (!strcmp(c, "shared_uninit")) {
        float *da = upload(a, 0, &ba), *dc = dev_alloc(N, 0, &bc);
        read_shared_uninit<<<(N + 255) / 256, 256>>>(da, dc, N);
        CK(cudaDeviceSynchronize());
    } else {
        printf("{\"error\":\"usage\",\"message\":\"unknown case %s\"}\n", c);
        return 2;
    }
    printf("{\"ok\":true,\"case\":\"%s\"}\n", c);
    return 0;
}
