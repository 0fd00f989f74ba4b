// An elementwise kernel vectorize cannot take: an array of structures read per element,
// an index bound after another use of it. One 8-byte load and one 4-byte store per thread.
struct point { float lat, lng; };
__global__ void distance(const point *p, float *d, int n, float lat, float lng)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const point *q = p + i;
    if (i < n)
        d[i] = sqrtf((lat - q->lat) * (lat - q->lat) + (lng - q->lng) * (lng - q->lng));
}
