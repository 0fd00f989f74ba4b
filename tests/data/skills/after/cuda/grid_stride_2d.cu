// grid_stride_2d's flat form of kernels/grid_stride_2d.cu (every access is the element
// r * cols + c): one flat loop over the elements, float4 when every array is aligned.
__global__ void scale2d(const float *in, float *out, int rows, int cols, float a)
{
    {
        const long long hk_ns = (long long)rows, hk_nf = (long long)cols;
        const long long hk_tid =
            (((long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) *
                ((long long)blockDim.x * blockDim.y * blockDim.z) +
            ((long long)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
        const long long hk_nthreads =
            (long long)gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z;
        if (hk_ns > 0 && hk_nf > 0) {
            const long long hk_n = hk_ns * hk_nf;
            const long long hk_n4 = ((reinterpret_cast<unsigned long long>(out) | reinterpret_cast<unsigned long long>(in)) & 15) == 0 ? hk_n / 4 : 0;
            for (long long hk_v = hk_tid; hk_v < hk_n4; hk_v += hk_nthreads) {
                const float4 hk_q1 = reinterpret_cast<const float4 *>(in)[hk_v];
                float4 hk_w;
                hk_w.x = a * hk_q1.x;
                hk_w.y = a * hk_q1.y;
                hk_w.z = a * hk_q1.z;
                hk_w.w = a * hk_q1.w;
                reinterpret_cast<float4 *>(out)[hk_v] = hk_w;
            }
            for (long long hk_e = hk_n4 * 4 + hk_tid; hk_e < hk_n; hk_e += hk_nthreads)
                out[hk_e] = a * in[hk_e];
        }
    }
}
