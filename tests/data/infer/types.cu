// A bool flag (one byte at the call), a pointer to a struct of like fields (a vector of
// them) and pointers to structs the harness cannot fill: mixed fields, an array field.
struct pt {
    float x, y;
};
typedef struct {
    float w;
    int id;
} tagged;
struct hist { float bins[4]; };

__global__ void norm(const float *in, float *out, int n, bool squared)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = squared ? in[i] * in[i] : fabsf(in[i]);
}

__global__ void norm_pts(const pt *p, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = p[i].x * p[i].x + p[i].y * p[i].y;
}

__global__ void weigh(const tagged *t, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = t[i].w * (float)t[i].id;
}

__global__ void first_bin(const hist *h, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = h[i].bins[0];
}
