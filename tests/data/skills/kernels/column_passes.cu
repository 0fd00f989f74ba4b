// one thread per column, the column's mean by a first loop, its variance by a second
__global__ void colvar(const float *data, float *var, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float mu = 0.0f;
    for (int i = 0; i < n; i++)
        mu += data[i * m + j];
    mu /= n;
    float v = 0.0f;
    for (int i = 0; i < n; i++)
        v += (data[i * m + j] - mu) * (data[i * m + j] - mu);
    var[j] = v / n;
}
