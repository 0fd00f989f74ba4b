// __constant__ variables the harness can and cannot fill: one in a namespace (its symbol is
// the mangled name), an integer table (offsets: random integers would read out of bounds),
// a static one inside a namespace (its symbol is private to the file) and a struct.
namespace filt {
__constant__ float taps[8];
static __constant__ float hidden[2];
}
__constant__ int offsets[4];
struct params { float scale, bias; };
__constant__ params p;

__global__ void fir(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = 0.0f;
        for (int k = 0; k < 8; k++)
            s += filt::taps[k] * x[i];
        y[i] = s;
    }
}

__global__ void shifted(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] * filt::hidden[0] + (float)offsets[i & 3] + p.bias;
}

void run(const float *x, float *y, int n)
{
    fir<<<(n + 255) / 256, 256>>>(x, y, n);
    shifted<<<(n + 255) / 256, 256>>>(x, y, n);
}
