// A kernel that no pattern skill should claim: writes a constant, no loads, no loops.
__global__ void fill(float *y, float v)
{
    y[threadIdx.x] = v;
}
