// table_hoist's own test kernel: the first of m rotated 2-D boxes (cx, cy, w, h, angle) that
// holds each point, the box's rotation computed inside two __device__ helpers; batches on y
// with a block-uniform early return, a grid-stride loop, a break when found.
template <typename T>
__device__ void rotate_into(T dx, T dy, T angle, T &u, T &v)
{
    T c = cos(angle), s = sin(angle);
    u = dx * c + dy * s;
    v = dy * c - dx * s;
}

template <typename T>
__device__ int holds(const T *p, const T *box, T &u, T &v)
{
    T px = p[0], py = p[1];
    T cx = box[0], cy = box[1], w = box[2], h = box[3], angle = box[4];
    if (px < cx - w - h || px > cx + w + h)
        return 0;
    rotate_into(px - cx, py - cy, angle, u, v);
    return u > -w && u < w && v > -h && v < h;
}

template <typename T>
__global__ void first_rotated_box(int b, int n, int m, const T *boxes, const T *pts, int *idx)
{
    int bs = blockIdx.y;
    boxes += bs * m * 5;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        if (bs >= b)
            return;
        const T *p = pts + (bs * n + i) * 2;
        T u = 0, v = 0;
        int found = -1;
        for (int k = 0; k < m; k++) {
            int in = holds(p, boxes + k * 5, u, v);
            if (in) {
                found = k;
                break;
            }
        }
        idx[bs * n + i] = found;
    }
}
