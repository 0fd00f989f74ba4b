// A flat index split into digits (b, o, n, k), k innermost, while the loads inside the
// element's loop are contiguous in o and reach k only through a gather (idx[... + k]):
// digit_order makes o the innermost digit.
__global__ void gather_sum(int B, int O, int N, int K, int M, const float *pts, const int *idx, float *out)
{
    const int total = B * O * N * K;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x * gridDim.x) {
        const int b = i / (O * N * K);
        const int o = i % (O * N * K) / (N * K);
        const int n = i % (N * K) / K;
        const int k = i % K;
        const int q = idx[(b * N + n) * K + k];
        float acc = 0.0f;
        for (int m = 0; m < M; m++)
            acc += pts[((b * N + q) * M + m) * O + o];
        out[i] = acc;
    }
}
