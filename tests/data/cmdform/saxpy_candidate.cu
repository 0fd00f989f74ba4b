// A candidate for saxpy in project/saxpy.cu: grid-stride loop over float elements.
__global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];  // HK_CANDIDATE_MARK
}
