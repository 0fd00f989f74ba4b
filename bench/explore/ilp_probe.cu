// ilp_probe: times one wild reduction kernel on the GPU as extracted and as ilp_accumulators
// leaves it (bench/wild/src/<id>.cu and the `hkls rewrites --emit ilp_accumulators` text),
// at the wild spec's largest size and launch, and compares its outputs with a reference
// run's. Built by ilp_probe.sh: -DKFILE="path" -DKIND=0 (SyncBN mean), 1 (SyncBN var),
// 2 (SHOC reduce<float, 256>). Usage: ilp_probe OUT.bin [REF.bin]
#include KFILE
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); return 2; } } while (0)

int main(int argc, char **argv)
{
    const int N = 32, C = 256, S = 4096;        // the SyncBN specs' first size
    const unsigned n = 1u << 25;                 // SHOC's
    size_t elems = KIND == 2 ? n + 256 : (size_t)N * C * S;
    size_t outs = KIND == 2 ? 64 : C;
    std::vector<float> h(elems), m(C);
    for (size_t i = 0; i < elems; i++)
        h[i] = (float)((i * 7919u + 17u) % 2003u) * 0.001f - 1.0f;
    for (int c = 0; c < C; c++)
        m[c] = (float)(c % 7) * 0.01f;
    float *in, *mean, *out;
    CHECK(cudaMalloc(&in, elems * sizeof(float)));
    CHECK(cudaMalloc(&mean, C * sizeof(float)));
    CHECK(cudaMalloc(&out, outs * sizeof(float)));
    CHECK(cudaMemcpy(in, h.data(), elems * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(mean, m.data(), C * sizeof(float), cudaMemcpyHostToDevice));
    auto run = [&] {
#if KIND == 0
        sync_bn_forward_mean_cuda_kernel<float><<<C, 512>>>(in, out, N, C, S);
#elif KIND == 1
        sync_bn_forward_var_cuda_kernel<float><<<C, 512>>>(in, mean, out, N, C, S);
#else
        reduce<float, 256><<<64, 256, 1024>>>(in, out, n);
#endif
    };
    for (int i = 0; i < 3; i++)
        run();
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> ms;
    for (int r = 0; r < 30; r++) {
        cudaEventRecord(a);
        run();
        cudaEventRecord(b);
        CHECK(cudaEventSynchronize(b));
        float t;
        cudaEventElapsedTime(&t, a, b);
        ms.push_back(t);
    }
    CHECK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    double med = ms[ms.size() / 2], bytes = 4.0 * (KIND == 2 ? n : elems);
    std::vector<float> o(outs);
    CHECK(cudaMemcpy(o.data(), out, outs * sizeof(float), cudaMemcpyDeviceToHost));
    FILE *f = fopen(argv[1], "wb");
    if (f) {
        fwrite(o.data(), sizeof(float), outs, f);
        fclose(f);
    }
    double worst = 0;
    if (argc > 2 && (f = fopen(argv[2], "rb"))) {
        std::vector<float> ref(outs);
        if (fread(ref.data(), sizeof(float), outs, f) == outs)
            for (size_t i = 0; i < outs; i++)
                worst = std::max(worst, fabs((double)o[i] - ref[i]) / std::max(fabs((double)ref[i]), 1e-3));
        fclose(f);
    }
    printf("median %.4f ms  min %.4f ms  %.0f GB/s  out[0] %.7g  max rel diff vs ref %.3g\n", med, ms[0],
           bytes / med / 1e6, o[0], worst);
    return 0;
}
