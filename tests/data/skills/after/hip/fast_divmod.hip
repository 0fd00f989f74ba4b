// After fast_divmod on gfx9: the sizes' magic numbers set up once per thread (v_rcp_f64),
// each / and % a v_mul_hi_u32, an add and a shift.
#include <hip/hip_runtime.h>
/* fast_divmod: magic numbers of a 32-bit divisor (Granlund-Montgomery, round-up method),
 * computed once; each division is then a high multiply, an add and a shift, exact for
 * every dividend (a divisor of 0 is undefined in C, and gives some value here too). */
struct hk_fdiv {
    unsigned m;   /* floor(2^32 (2^s - a) / a) + 1 */
    unsigned s;   /* ceil(log2 a) */
    unsigned a;   /* the divisor's magnitude */
    int neg;      /* -1 when a signed divisor is negative, else 0 */
};
__device__ __forceinline__ hk_fdiv hk_fdiv_make_u(unsigned d)
{
    hk_fdiv f;
    unsigned a = d ? d : 1u;
    unsigned s = 32u - (unsigned)__clz((int)(a - 1u));
    unsigned long long r = (1ull << s) - a;
    unsigned long long q = (unsigned long long)((double)r * 4294967296.0 / (double)a);
    if (q * a > (r << 32))
        q--;
    else if ((q + 1u) * a <= (r << 32))
        q++;
    f.m = (unsigned)(q + 1u);
    f.s = s;
    f.a = d;
    f.neg = 0;
    return f;
}
__device__ __forceinline__ hk_fdiv hk_fdiv_make_s(int d)
{
    hk_fdiv f = hk_fdiv_make_u(d < 0 ? 0u - (unsigned)d : (unsigned)d);
    f.neg = d < 0 ? -1 : 0;
    return f;
}
/* n / d and n % d for n >= 0 */
__device__ __forceinline__ int hk_fdiv_q_nn(int n, hk_fdiv f)
{
    int q = (int)((__umulhi((unsigned)n, f.m) + (unsigned)n) >> f.s);
    return (q ^ f.neg) - f.neg;
}
__device__ __forceinline__ int hk_fdiv_r_nn(int n, hk_fdiv f)
{
    unsigned q = (__umulhi((unsigned)n, f.m) + (unsigned)n) >> f.s;
    return (int)((unsigned)n - q * f.a);
}
/* n / d and n % d for any int n: C truncates, so the magnitudes divide */
__device__ __forceinline__ int hk_fdiv_q_s(int n, hk_fdiv f)
{
    unsigned sn = n < 0 ? ~0u : 0u;
    unsigned a = ((unsigned)n ^ sn) - sn;
    unsigned q = (__umulhi(a, f.m) + a) >> f.s;
    unsigned x = sn ^ (unsigned)f.neg;
    return (int)((q ^ x) - x);
}
__device__ __forceinline__ int hk_fdiv_r_s(int n, hk_fdiv f)
{
    unsigned sn = n < 0 ? ~0u : 0u;
    unsigned a = ((unsigned)n ^ sn) - sn;
    unsigned r = a - ((__umulhi(a, f.m) + a) >> f.s) * f.a;
    return (int)((r ^ sn) - sn);
}
/* n / d and n % d in unsigned arithmetic: the sum needs 33 bits */
__device__ __forceinline__ unsigned hk_fdiv_q_u(unsigned n, hk_fdiv f)
{
    return (unsigned)(((unsigned long long)__umulhi(n, f.m) + n) >> f.s);
}
__device__ __forceinline__ unsigned hk_fdiv_r_u(unsigned n, hk_fdiv f)
{
    return n - hk_fdiv_q_u(n, f) * f.a;
}

__global__ void nchw_gather(const float *in, const int *rows, float *out, int n, int c, int h, int w)
{
    const hk_fdiv hk_fd0 = hk_fdiv_make_s(w);
    const hk_fdiv hk_fd1 = hk_fdiv_make_s(h);
    const hk_fdiv hk_fd2 = hk_fdiv_make_s(c);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n * c * h * w; i += blockDim.x * gridDim.x) {
        int x = hk_fdiv_r_nn(i, hk_fd0);
        int y = hk_fdiv_r_s((hk_fdiv_q_nn(i, hk_fd0)), hk_fd1);
        int ch = hk_fdiv_r_s((hk_fdiv_q_s(hk_fdiv_q_nn(i, hk_fd0), hk_fd1)), hk_fd2);
        int b = hk_fdiv_q_s(hk_fdiv_q_s(hk_fdiv_q_nn(i, hk_fd0), hk_fd1), hk_fd2);
        out[i] = in[((rows[b] * c + ch) * h + y) * w + x];
    }
}
