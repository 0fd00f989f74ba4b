// digit_order's fixtures (issue 13): a flat index split into digits by / and %, whose
// innermost digit is not the one the heavy accesses are contiguous in. Our own kernels: a
// neighbour-weighted feature sum in three spellings of one split (a CUDA_1D-style loop
// macro with `i % (D*S) / S` and an early return, a plain for with (i / S) % D through
// temporaries, a 64-bit counter with size_t digits), and kernels it must refuse.
#include <stdint.h>

#define GRID_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

// (b, c, p, j) with j innermost: feat[b][nbr[b][p][j]][w][c] read in a W-loop, contiguous
// in c; the output contiguous in j. Neighbours out of range end the thread (as mmcv does).
__global__ void nbr_macro(int B, int C, int P, int J, int W, int Q, const float *feat, const float *wgt,
                          const int64_t *nbr, float *out)
{
    const int count = B * C * P * J;   // (a product of three or more in the macro's call does not parse cleanly)
    GRID_LOOP(i, count) {
        const int b = (int)(i / (C * P * J));
        const int c = (int)(i % (C * P * J) / (P * J));
        const int p = (int)(i % (P * J) / J);
        const int j = (int)(i % J);
        const int q = (int)nbr[(b * P + p) * J + j];
        if (q >= Q || q < 0)
            return;
        float acc = out[((b * C + c) * P + p) * J + j];
        for (int w = 0; w < W; w++)
            acc += feat[((b * Q + q) * W + w) * C + c] * wgt[((b * P + p) * J + j) * W + w];
        out[((b * C + c) * P + p) * J + j] = acc;
    }
}

// the same split through temporaries and (i / S) % D, a plain grid-stride for, unsigned
// sizes read as int
__global__ void nbr_for(int B, int C, int P, int J, int W, int Q, const float *feat, const float *wgt,
                        const int64_t *nbr, float *out)
{
    const int n = B * C * P * J;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int pj = P * J;
        int j = i % J;
        int p = (i / J) % P;
        int c = (i / pj) % C;
        int b = i / (C * pj);
        int q = (int)nbr[b * pj + p * J + j];
        if (q >= Q || q < 0)
            continue;
        float acc = 0.0f;
        for (int w = 0; w < W; w++)
            acc = fmaf(feat[((b * Q + q) * W + w) * C + c], wgt[(b * pj + p * J + j) * W + w], acc);
        out[i] = acc;
    }
}

// a 64-bit counter, size_t digits
__global__ void nbr_wide(int B, int C, int P, int J, int W, int Q, const double *feat, const double *wgt,
                         const int64_t *nbr, double *out)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t)B * C * P * J;
         i += (int64_t)blockDim.x * gridDim.x) {
        size_t b = (size_t)(i / ((int64_t)C * P * J));
        size_t c = (size_t)(i % ((int64_t)C * P * J) / ((int64_t)P * J));
        size_t p = (size_t)(i % ((int64_t)P * J) / J);
        size_t j = (size_t)(i % J);
        int64_t q = nbr[(b * P + p) * J + j];
        if (q >= Q || q < 0)
            continue;
        double acc = 0.0;
        for (int w = 0; w < W; w++)
            acc += feat[((b * Q + (size_t)q) * W + w) * C + c] * wgt[((b * P + p) * J + j) * W + w];
        out[i] = acc;
    }
}

// already right: the read is contiguous in the innermost digit c
__global__ void nbr_good(int B, int C, int P, int W, const float *feat, float *out)
{
    const int count = B * P * C;
    GRID_LOOP(i, count) {
        const int c = i % C;
        const int p = (i / C) % P;
        const int b = i / (C * P);
        float acc = 0.0f;
        for (int w = 0; w < W; w++)
            acc += feat[((b * W + w) * P + p) * C + c];
        out[i] = acc;
    }
}

// a digit whose radix is a value read from memory
__global__ void nbr_radix(int n, const int *dims, const float *feat, float *out)
{
    GRID_LOOP(i, n) {
        const int k = i % dims[0];
        const int c = i / dims[0];
        out[i] = feat[k * 64 + c];
    }
}

// threads combine: an atomic into the output
__global__ void nbr_atomic(int C, int J, const float *feat, float *out)
{
    GRID_LOOP(i, C * J) {
        const int j = i % J;
        const int c = i / J;
        atomicAdd(&out[c], feat[j * C + c]);
    }
}

// one element's value reaches the next: a running sum carried across trips
__global__ void nbr_carried(int C, int J, const float *feat, float *out)
{
    float run = 0.0f;
    GRID_LOOP(i, C * J) {
        const int j = i % J;
        const int c = i / J;
        run += feat[j * C + c];
        out[i] = run;
    }
}

// the bound a count the caller passes (mmcv's nthreads): the new order is a bijection of
// [0, total) only when total is a multiple of J * P * C; otherwise the original order runs
__global__ void nbr_count(int total, int C, int P, int J, int W, const float *feat, float *out)
{
    GRID_LOOP(i, total) {
        const int j = i % J;
        const int p = (i / J) % P;
        const int c = (i / (J * P)) % C;
        const int b = i / (J * P * C);
        float acc = (float)b;
        for (int w = 0; w < W; w++)
            acc += feat[(((b * W + w) * J + j) * P + p) * C + c];
        out[i] = acc;
    }
}

// a break ends the thread's later elements
__global__ void nbr_break(int C, int J, int W, const float *feat, float *out)
{
    GRID_LOOP(i, C * J) {
        const int j = i % J;
        const int c = i / J;
        if (feat[c] < 0.0f)
            break;
        float acc = 0.0f;
        for (int w = 0; w < W; w++)
            acc += feat[(w * J + j) * C + c];
        out[i] = acc;
    }
}

// the element reads which thread runs it
__global__ void nbr_lane(int C, int J, int W, const float *feat, float *out)
{
    GRID_LOOP(i, C * J) {
        const int j = i % J;
        const int c = i / J;
        float acc = (float)(threadIdx.x & 31);
        for (int w = 0; w < W; w++)
            acc += feat[(w * J + j) * C + c];
        out[i] = acc;
    }
}

// the rows (b, c) also read fused, as the one coordinate i / J (off the digits' chain): the
// read is contiguous in c through it and strided in j (its spec: nbr_fused.bench.json)
__global__ void nbr_fused(int B, int C, int J, int W, const float *feat, float *out)
{
    const int count = B * C * J;
    GRID_LOOP(i, count) {
        const int j = i % J;
        const int row = i / J;
        const int c = row % C;
        const int b = i / (J * C);
        float acc = (float)c;
        for (int w = 0; w < W; w++)
            acc += feat[(w * J + j) * (B * C) + row];
        out[i] = acc + (float)b;
    }
}
