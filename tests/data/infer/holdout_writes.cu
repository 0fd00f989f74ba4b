// Spec inference on patterns from session 29's holdout batch of wild kernels (bench/wild,
// batch holdout-s29), each written here from scratch: which writes leave elements
// unwritten, which pointer moves are no stores, and the block of a kernel whose threads
// each cover several elements a block apart. Read by tests/unit/test_spec_infer_holdout.c.
#include <assert.h>

__device__ inline int in_span(const float *x, const float *span)
{
    return x[0] >= span[0] && x[0] < span[1];
}

// A flag assigned in a loop from a device function's answer, then tested: which elements
// of slot get written depends on the data (the flag is a local the model does not follow).
__global__ void first_span_flag(int nseg, int npts, const float *segs, const float *pts, int *slot)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= npts)
        return;
    int hit = 0;
    for (int s = 0; s < nseg; s++) {
        hit = in_span(pts + q, segs + 2 * s);
        if (hit) {
            slot[q] = s;
            break;
        }
    }
}

// The same flag, the pointers moved to the row first (a batch in grid y).
__global__ void first_span_moved(int rows, int nseg, int npts, const float *segs, const float *pts,
                                 int *slot)
{
    int r = blockIdx.y;
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= npts || r >= rows)
        return;
    segs += r * nseg * 2;
    pts += r * npts + q;
    slot += r * npts + q;
    int hit = 0;
    for (int s = 0; s < nseg; s++) {
        hit = in_span(pts, segs + 2 * s);
        if (hit) {
            slot[0] = s;
            break;
        }
    }
}

// Control: every thread below npts writes its element, whatever the data.
__global__ void count_spans(int nseg, int npts, const float *segs, const float *pts, int *slot)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= npts)
        return;
    int n = 0;
    for (int s = 0; s < nseg; s++)
        n += in_span(pts + q, segs + 2 * s);
    slot[q] = n;
}

// A read-only pointer that is moved (src += ..., src++) is still an input; *dst++ = v
// stores.
__global__ void copy_moved(float *dst, float *src, int n)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n)
        return;
    src += q;
    dst += q;
    float v = src[0];
    src++;
    *dst++ = 2.0f * v;
}

// Comments that name the parameters as code would (mmcv's "argmax = -1 causes ...", llm.c's
// "position in out[idx,:]"): no use of them.
__global__ void commented_uses(float *out, float *idx_of, const float *in, int n)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n)
        return;
    // out[q] += in[q] would read it first; idx_of = -1 would mark a miss
    /* idx_of += q; */
    out[q] = 2.0f * in[q];
    idx_of[q] = in[q] > 0.0f ? 1.0f : 0.0f;
}

// Each thread of a WIDTH-wide block covers PARTS elements WIDTH apart, and the index math
// steps blockIdx.x by PARTS * WIDTH inside a group: the block is the launch's WIDTH, the
// grid w / (PARTS * WIDTH) with no bounds check on x, so the launcher asserts the
// divisibility (the check on y makes the sets ragged but for the asserted multiples).
#define WIDTH 32
#define ROWS 2
#define PARTS 4
#define SKIRT 1
__global__ void parts_scale(float *out, float *in, int w, int h)
{
    const int x = (blockIdx.x * PARTS - SKIRT) * WIDTH + threadIdx.x;
    const int y = blockIdx.y * ROWS + threadIdx.y;
    if (y >= h)
        return;
    in += y * w + x;
    out += y * w + x;
    for (int p = SKIRT; p < SKIRT + PARTS; p++)
        out[p * WIDTH] = 3.0f * in[p * WIDTH];
}

void run_all(int rows, int nseg, int npts, const float *segs, const float *pts, int *slot, float *a,
             float *b, int w, int h)
{
    first_span_flag<<<(npts + 255) / 256, 256>>>(nseg, npts, segs, pts, slot);
    dim3 batch((npts + 255) / 256, rows);
    first_span_moved<<<batch, 256>>>(rows, nseg, npts, segs, pts, slot);
    count_spans<<<(npts + 255) / 256, 256>>>(nseg, npts, segs, pts, slot);
    copy_moved<<<(npts + 127) / 128, 128>>>(a, b, npts);
    commented_uses<<<(npts + 127) / 128, 128>>>(a, b, pts, npts);
    assert(w % (PARTS * WIDTH) == 0);
    assert(h % ROWS == 0);
    dim3 grid(w / (PARTS * WIDTH), h / ROWS);
    dim3 block(WIDTH, ROWS);
    parts_scale<<<grid, block>>>(a, b, w, h);
}
