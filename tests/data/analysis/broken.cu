// Code being typed: a missing semicolon, an unclosed parameter list, and an
// unterminated kernel at the end. The analysis must still find what it can.
#define BS 128

__global__ void good_before(float *x, int n)
{
    int i = blockIdx.x * BS + threadIdx.x;
    if (i < n) x[i] = 0.0f
}

__global__ void half_typed(int n {
  int i = threadIdx.x
  __shared__ float s[64];
}

__global__ void after_error(float *x) { x[0] = 1; }

void launch(float *x, int n)
{
    good_before<<<(n + BS - 1) / BS, BS>>>(x, n);
}

__global__ void unterminated(float *y) {
    for (int i = 0; i < 4; i++) {
        y[i] = 0;
