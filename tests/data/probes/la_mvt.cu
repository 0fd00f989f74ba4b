// Probe: mvt's two products in one kernel, x1 += A y1 and x2 += A^T y2, one thread per i,
// both sums kept in registers and added to the old x1[i], x2[i]. Float, int indices.
__global__ void la_mvt(int n, const float *A, const float *y1, const float *y2, float *x1, float *x2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s1 = 0.0f, s2 = 0.0f;
        for (int j = 0; j < n; j++) {
            s1 += A[i * n + j] * y1[j];
            s2 += A[j * n + i] * y2[j];
        }
        x1[i] += s1;
        x2[i] += s2;
    }
}
