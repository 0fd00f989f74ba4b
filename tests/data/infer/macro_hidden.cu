// Spec inference test data (test_spec_infer_roles.c): writes that a macro hides. Written
// for this test.

// ST is defined twice: which definition the build sees is not known here
#ifdef HK_NO_STORE
#define ST(p, i, v) ((void)0)
#else
#define ST(p, i, v) ((p)[i] = (v))
#endif

__global__ void macro_twice(const float *x, float *y, float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        ST(y, i, x[i]);
        z[i] = x[i];
    }
}

// a macro that names the kernel's pointer (and a helper's) without taking it as a parameter
#define STORE_Y(v) y[i] = (v)
#define STORE_P p[i] = v

__device__ void put(float *p, int i, float v)
{
    STORE_P;
}

__global__ void macro_names(const float *x, float *y, float *w, float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        STORE_Y(x[i]);
        put(w, i, x[i]);
        z[i] = x[i];
    }
}

// an element passed to a function whose body is not in the file and that may take it by
// reference (cuda::std::swap, cuda::atomic_ref's constructor): y is stored into there;
// expf takes its argument by value
__global__ void element_by_ref(const float *x, float *y, float *v, float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = x[i];
        cuda::std::swap(y[i], t);
        z[i] = expf(v[i]) + t;
    }
}

// a macro whose value is an element of y, assigned where it is used
#define OUT_AT(j) y[j]

__global__ void macro_value(const float *x, float *y, float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        OUT_AT(i) = x[i];
        z[i] = x[i];
    }
}

// a helper whose parameter is a pointer to const but which casts the const away and stores
__device__ void put_const(const float *p, int i, float v)
{
    ((float *)p)[i] = v;
}

__global__ void const_cast_helper(const float *x, float *y, float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        put_const(y, i, x[i]);
        z[i] = x[i];
    }
}
