// A templated kernel compiled for the types the library ships, with no launch in this
// file: the explicit instantiation says which.
template <typename T, int TILE>
__global__ void clamp_tile(const T *in, T *out, int n, T lo, T hi)
{
    int i = blockIdx.x * TILE + threadIdx.x;
    if (i < n)
        out[i] = in[i] < lo ? lo : in[i] > hi ? hi : in[i];
}

template __global__ void clamp_tile<double, 64>(const double *, double *, int, double, double);
