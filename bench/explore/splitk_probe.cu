// Probe for the next GPU run (not run yet: no device was free on 2026-12-03): atax's
// second kernel, thread per column, against its split_k_columns form at 8 slices, the body
// as `hkls rewrites --emit split_k_columns` wrote it (kernel renamed atax2_sk), under an
// SM-multiple grid, ceil(n / 32) blocks and 512-thread blocks. Best of 20 event timings;
// checks the results against each other. nvcc -arch=sm_90 -O3 -o probe splitk_probe.cu
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
__global__ void atax2(int m, int n, const float *A, const float *x, float *y)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) {
        float s = 0;
        for (int i = 0; i < m; i++)
            s += A[i * n + j] * x[i];
        y[j] = s;
    }
}
__global__ void atax2_sk(int m, int n, const float *A, const float *x, float *y)
{
    // hk rewrite (split_k_columns): 8 row slices per column. A block of T threads
    // takes T / 8 columns; slice r sums rows start + r, start + r + 8, ... of
    // its column, the partials meet in shared memory and the thread of slice 0
    // finishes the column. Column groups are grid-strided over the blocks.
    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned int hk_slices = hk_nthreads >= 8u ? 8u : hk_nthreads;
    const unsigned int hk_cols = hk_nthreads / hk_slices;
    const unsigned int hk_col = hk_tid % hk_cols, hk_slice = hk_tid / hk_cols;
    const unsigned long long hk_blocks = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    __shared__ float hk_part[1024];
    for (unsigned long long hk_group = blockIdx.x + (unsigned long long)gridDim.x *
             (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);; hk_group += hk_blocks) {
        int j = (int)(hk_group * hk_cols + hk_col);
        {   // past the bound with the group's first column: so are all later groups
            int j = (int)(hk_group * hk_cols);
            if (!((j < n)))
                break;
        }
        const bool hk_in = hk_slice < hk_slices && (j < n);
        float hk_acc = 0;
        if (hk_in) {
            for (int i = (0) + hk_slice; i < m; i += hk_slices)
            hk_acc += A[i * n + j] * x[i];
        }
        if (hk_slice < hk_slices)
            hk_part[hk_tid] = hk_acc;
        __syncthreads();
        if (hk_slice == 0 && hk_in) {
            float hk_sum = hk_part[hk_col];
            for (unsigned int hk_q = 1; hk_q < hk_slices; hk_q++)
                hk_sum += hk_part[hk_q * hk_cols + hk_col];
            float s = 0;
            s += hk_sum;
            y[j] = s;
        }
        __syncthreads();   // the partials are read before the next group writes them
    }
}
int main()
{
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int sizes[][2] = {{4096, 4096}, {8192, 2048}, {16384, 1024}, {2048, 8192}};
    for (auto &sz : sizes) {
        int m = sz[0], n = sz[1];
        std::vector<float> hA((size_t)m * n), hx(m);
        for (size_t i = 0; i < hA.size(); i++) hA[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
        for (int i = 0; i < m; i++) hx[i] = (float)(i % 17) / 17.0f;
        float *A, *x, *y0, *y1;
        cudaMalloc(&A, hA.size() * 4); cudaMalloc(&x, m * 4); cudaMalloc(&y0, n * 4); cudaMalloc(&y1, n * 4);
        cudaMemcpy(A, hA.data(), hA.size() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(x, hx.data(), m * 4, cudaMemcpyHostToDevice);
        cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
        auto timeit = [&](auto launch) {
            launch(); cudaDeviceSynchronize();
            float best = 1e9f;
            for (int r = 0; r < 20; r++) {
                cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
                float ms; cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms;
            }
            return best;
        };
        float t0 = timeit([&] { atax2<<<(n + 255) / 256, 256>>>(m, n, A, x, y0); });
        float t1 = timeit([&] { atax2_sk<<<sms * 8, 256>>>(m, n, A, x, y1); });
        float t2 = timeit([&] { atax2_sk<<<(n + 31) / 32, 256>>>(m, n, A, x, y1); });
        float t3 = timeit([&] { atax2_sk<<<sms * 4, 512>>>(m, n, A, x, y1); });
        std::vector<float> r0(n), r1(n);
        cudaMemcpy(r0.data(), y0, n * 4, cudaMemcpyDeviceToHost);
        cudaMemcpy(r1.data(), y1, n * 4, cudaMemcpyDeviceToHost);
        double maxd = 0, maxv = 0;
        for (int j = 0; j < n; j++) { maxd = fmax(maxd, fabs(r0[j] - r1[j])); maxv = fmax(maxv, fabs(r0[j])); }
        double gb = ((double)m * n + m + n) * 4 / 1e9;
        printf("m %5d n %5d  orig %.4f ms (%.0f GB/s)  sk 8/SM x256 %.4f ms (%.0f GB/s, %.2fx)  ceil(n/32) x256 %.4f ms (%.2fx)  4/SM x512 %.4f ms (%.2fx)  max|diff| %.3g of max %.3g  %s\n",
               m, n, t0, gb / t0 * 1e3, t1, gb / t1 * 1e3, t0 / t1, t2, t0 / t2, t3, t0 / t3, maxd, maxv,
               cudaGetErrorString(cudaGetLastError()));
        cudaFree(A); cudaFree(x); cudaFree(y0); cudaFree(y1);
    }
    return 0;
}
