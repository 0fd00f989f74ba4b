// window_lanes fixture (issue 13): one thread per output, each reducing over a window whose
// bounds it computes at run time. Our own kernels, written for the tests.
#include <cuda_runtime.h>
#include <float.h>

#define LOOP_OUTPUTS(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

// Box max pooling with its argmax, in a grid-stride loop: output (b, c, py, px) takes the
// maximum of bin (py, px) of box b over channel c; boxes hold integer corners (x1, y1, x2,
// y2) in a float array; an empty bin gives 0 and index -1; a box with a negative width is
// skipped (its outputs are left as they were).
__global__ void box_max_pool(const float *feat, const float *boxes, float *out, int *arg, int n_out,
                             int bins, int channels, int height, int width)
{
    for (int o = blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += blockDim.x * gridDim.x) {
        int px = o % bins;
        int py = (o / bins) % bins;
        int c = (o / bins / bins) % channels;
        int b = o / bins / bins / channels;
        float bx1 = boxes[b * 4], by1 = boxes[b * 4 + 1];
        float bw = boxes[b * 4 + 2] - bx1, bh = boxes[b * 4 + 3] - by1;
        if (bw < 0.f)
            continue;
        int x0 = min(max((int)floorf(bx1 + px * bw / bins), 0), width);
        int x1 = min(max((int)ceilf(bx1 + (px + 1) * bw / bins), 0), width);
        int y0 = min(max((int)floorf(by1 + py * bh / bins), 0), height);
        int y1 = min(max((int)ceilf(by1 + (py + 1) * bh / bins), 0), height);
        const float *plane = feat + (size_t)c * height * width;
        float best = (y1 <= y0 || x1 <= x0) ? 0.f : -FLT_MAX;
        int where = -1;
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) {
                float v = plane[y * width + x];
                if (v > best) {
                    best = v;
                    where = y * width + x;
                }
            }
        out[o] = best;
        arg[o] = where;
    }
}

// Adaptive average pooling, one output per thread behind an early return: the window of
// output (c, oy, ox) is rows [oy * H / OH, ceil((oy + 1) * H / OH)) and likewise columns.
__global__ void adaptive_avg(const float *in, float *out, int C, int H, int W, int OH, int OW)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= C * OH * OW)
        return;
    int ox = idx % OW, oy = (idx / OW) % OH, c = idx / (OW * OH);
    int ys = (oy * H) / OH, ye = ((oy + 1) * H + OH - 1) / OH;
    int xs = (ox * W) / OW, xe = ((ox + 1) * W + OW - 1) / OW;
    const float *p = in + (size_t)c * H * W;
    float acc = 0.0f;
    for (int r = ys; r < ye; r++) {
        for (int q = xs; q < xe; q++) {
            acc += p[r * W + q];
        }
    }
    out[idx] = acc / (float)((ye - ys) * (xe - xs));
}

// Segment minimum with its position and a count, over CSR offsets (1-D windows, empty
// segments allowed), the minimum spelled `best > v`, behind an if block; through a loop macro.
__global__ void segment_argmin(const int *offs, const double *val, double *mins, long long *pos,
                               unsigned *count, int n_seg)
{
    LOOP_OUTPUTS(s, n_seg) {
        double best = 1e300;
        long long at = -1;
        unsigned cnt = 0;
        for (int j = offs[s]; j < offs[s + 1]; j++) {
            const double v = val[j];
            if (best > v) {
                best = v;
                at = j;
            }
            cnt++;
        }
        mins[s] = best;
        pos[s] = at;
        count[s] = cnt;
    }
}

// ---- refused ----

// `>=` keeps the LAST of equal elements.
__global__ void last_max(const int *offs, const float *val, int *arg, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float m = -FLT_MAX;
    int a = -1;
    for (int j = offs[i]; j < offs[i + 1]; ++j)
        if (val[j] >= m) {
            m = val[j];
            a = j;
        }
    arg[i] = a;
}

// A store inside the window.
__global__ void window_store(const int *offs, float *val, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.f;
    for (int j = offs[i]; j < offs[i + 1]; ++j) {
        s += val[j];
        val[j] = 0.f;
    }
    out[i] = s;
}

// The window is the same for every thread: a fixed 3-tap sum.
__global__ void fixed_window(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.f;
    for (int t = 0; t < 3; ++t)
        s += in[3 * i + t];
    out[i] = s;
}

// A sum that starts from the output's old value: each lane would add it.
__global__ void sum_from_out(const int *offs, const float *val, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = out[i];
    for (int j = offs[i]; j < offs[i + 1]; ++j)
        s += val[j];
    out[i] = s;
}

// The scan stops at the first negative element.
__global__ void stop_early(const int *offs, const float *val, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.f;
    for (int j = offs[i]; j < offs[i + 1]; ++j) {
        if (val[j] < 0.f)
            break;
        s += val[j];
    }
    out[i] = s;
}

// A count used as a value inside the window (`c++` in a subscript): each lane's partial count.
__global__ void count_in_index(const int *offs, const float *val, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.f;
    int c = 0;
    for (int j = offs[i]; j < offs[i + 1]; ++j)
        s += val[offs[0] + c++];
    out[i] = s;
}

// ---- refused by window_warp only ----

// An outer name read before the output's own declaration of it: declared before the output's
// code, `base` would mean the inner one there.
__global__ void shadow_outer(const int *offs, const float *val, float *out, int n)
{
    int base = 1;
    LOOP_OUTPUTS(i, n) {
        int lo = offs[i] + base - 1;
        int base = offs[i + 1];
        float m = -1.f;
        for (int j = lo; j < base; j++)
            if (val[j] > m)
                m = val[j];
        out[i] = m;
    }
}

// The window inside an if block: the lanes whose condition fails would miss the broadcasts.
__global__ void nested_window(const int *offs, const float *val, float *out, int n)
{
    LOOP_OUTPUTS(i, n) {
        if (offs[i] < offs[i + 1]) {
            float m = -1.f;
            for (int j = offs[i]; j < offs[i + 1]; j++)
                if (val[j] > m)
                    m = val[j];
            out[i] = m;
        }
    }
}

// ---- window_warp: several names in one declaration ----

// A segment maximum scaled by a value read through a pointer: `s = 1 * *scale` between two
// declarators (the declaration becomes an assignment; its product keeps both `*`).
__global__ void scaled_segment_max(const int *offs, const int *scale, const float *val, float *out, int *arg,
                                   int n)
{
    LOOP_OUTPUTS(i, n) {
        int lo = offs[i], s = 1 * *scale, hi = offs[i + 1];
        float m = -1e30f;
        int a = -1;
        for (int j = lo; j < hi; j++)
            if (val[j] * s > m) {
                m = val[j] * s;
                a = j;
            }
        out[i] = m;
        arg[i] = a;
    }
}

// ---- through functions of the file (session 38) ----

// Readers: pointers to const, only their own locals written; lerp_at calls pick_clamped with
// and without template arguments and casts with its type parameter (`T(1)`).
template <typename T>
__device__ T pick_clamped(const T *p, int n, int k)
{
    int kk = k < 0 ? 0 : (k >= n ? n - 1 : k);
    return p[kk];
}

template <typename T>
__device__ T lerp_at(const T *p, int n, T x)
{
    int k = (int)floorf(x);
    T w = x - (T)k;
    T a = pick_clamped<T>(p, n, k);
    T b = pick_clamped(p, n, k + 1);
    return a * (T(1) - w) + b * w;
}

// A segment mean of interpolated samples: summed through a helper, then `s /= count`.
__global__ void segment_lerp_mean(const int *offs, const float *val, float *out, int n_val, int n)
{
    LOOP_OUTPUTS(i, n) {
        int lo = offs[i], hi = offs[i + 1];
        float s = 0.f;
        for (int j = lo; j < hi; j++) {
            float v = lerp_at<float>(val, n_val, j + 0.25f);
            s += v;
        }
        s /= (float)max(hi - lo, 1);
        out[i] = s;
    }
}

// A segment maximum of interpolated samples with its position.
__global__ void segment_lerp_max(const int *offs, const float *val, float *out, int *arg, int n_val, int n)
{
    LOOP_OUTPUTS(i, n) {
        int lo = offs[i], hi = offs[i + 1];
        float m = -FLT_MAX;
        int a = -1;
        for (int j = lo; j < hi; j++) {
            float v = lerp_at(val, n_val, j * 0.5f);
            if (v > m) {
                m = v;
                a = j;
            }
        }
        out[i] = m;
        arg[i] = a;
    }
}

// ---- refused: functions that write ----

// via_bump takes a pointer to const but calls bump, which writes through it.
__device__ float bump(float *p, int k)
{
    p[k] += 1.f;
    return p[k];
}

__device__ float via_bump(const float *p, int k)
{
    return bump((float *)p, k);
}

__global__ void helper_writes(const int *offs, const float *val, float *out, int n)
{
    LOOP_OUTPUTS(i, n) {
        float s = 0.f;
        for (int j = offs[i]; j < offs[i + 1]; j++)
            s += via_bump(val, j);
        out[i] = s;
    }
}

// A call with template arguments to a function that writes (`take<float>(...)`).
template <typename T>
__device__ T take(T *p, int k)
{
    T v = p[k];
    p[k] = T(0);
    return v;
}

__global__ void template_writes(const int *offs, float *val, float *out, int n)
{
    LOOP_OUTPUTS(i, n) {
        float s = 0.f;
        for (int j = offs[i]; j < offs[i + 1]; j++)
            s += take<float>(val, j);
        out[i] = s;
    }
}

// Session 44: windows stepped by induction state (border_align's shape, our own code). Output
// (index, edge) with edge = threadIdx.y takes the maximum of pool + 1 samples along one edge of
// box `index`, walking from a corner by a step that depends on the edge (negative for two of
// them), with its argmax; the sample reader takes the nearest texel (0 off the map), so steps of
// a half texel tie. C89 declarations: val is declared before the window, a trip's temporary.
template <typename T>
__device__ T edge_texel(const T *plane, const int h, const int w, T y, T x)
{
    if (y < (T)0 || x < (T)0 || y >= (T)h || x >= (T)w)
        return (T)0;
    return plane[(int)y * w + (int)x];
}

template <typename T>
__global__ void edge_max(const T *planes, const T *boxes, T *out, int *arg, const int n, const int h, const int w,
                         const int pool)
{
    LOOP_OUTPUTS(index, n) {
        int edge, maxidx;
        const T *plane;
        T *dst, x, y, xs, ys, span, val, maxval;
        edge = threadIdx.y;
        plane = planes + (edge * n + index) * h * w;
        dst = out + index * 4 + edge;
        x = boxes[index * 4 + edge / 2 * 2];
        y = boxes[index * 4 + edge / 2 * 2 + 1];
        switch (edge) {
        case 0:
            span = (boxes[index * 4 + 2] - boxes[index * 4]) / pool;
            xs = span;
            ys = 0;
            break;
        case 1:
            span = (boxes[index * 4 + 3] - boxes[index * 4 + 1]) / pool;
            xs = 0;
            ys = span;
            break;
        case 2:
            span = (boxes[index * 4 + 2] - boxes[index * 4]) / pool;
            xs = -span;
            ys = 0;
            break;
        default:
            span = (boxes[index * 4 + 3] - boxes[index * 4 + 1]) / pool;
            xs = 0;
            ys = -span;
            break;
        }
        maxval = edge_texel(plane, h, w, y, x);
        maxidx = 0;
        for (int i = 1; i <= pool; i++) {
            x += xs;
            y += ys;
            val = edge_texel(plane, h, w, y, x);
            if (val > maxval) {
                maxval = val;
                maxidx = i;
            }
        }
        *dst = maxval;
        arg[index * 4 + edge] = maxidx;
    }
}

// A sum along a line whose steps trail the body (`x = x - dx` after the read), the guard form.
__global__ void line_sum(const float *plane, const float *starts, float *out, const int n, const int h, const int w,
                         const int taps, const float dx, const float dy)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= n)
        return;
    float x = starts[2 * o], y = starts[2 * o + 1];
    float s = 0.f;
    for (int t = 0; t < taps; t++) {
        s += edge_texel(plane, h, w, y, x);
        x = x - dx;
        y += dy;
    }
    out[o] = s + x;
}

// Refused: a carried product (w *= decay is read by the next trip's sum).
__global__ void carried_product(const float *plane, const int *len, float *out, const int n, const int w,
                                const float decay)
{
    LOOP_OUTPUTS(o, n) {
        float s = 0.f, wt = 1.f, x = 0.f;
        for (int t = 0; t < len[o]; t++) {
            x += 1.5f;
            wt *= decay;
            s += edge_texel(plane, 1, w, 0.f, x) * wt;
        }
        out[o] = s;
    }
}

// Refused: a step that changes in the loop (xs doubles every trip).
__global__ void growing_step(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, xs = 0.5f, best = -1.f;
        for (int t = 0; t < taps; t++) {
            x += xs;
            xs += xs;
            float v = edge_texel(plane, 1, w, 0.f, x);
            if (v > best)
                best = v;
        }
        out[o] = best;
    }
}

// Refused: a step between the body's other statements.
__global__ void step_between(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, y = 0.f, best = -1.f;
        for (int t = 0; t < taps; t++) {
            x += 0.5f;
            float v = edge_texel(plane, 2, w, y, x);
            y += 0.25f;
            if (v > best)
                best = v;
        }
        out[o] = best;
    }
}

// A window with an inclusive bound (`j <= last`, per thread: a segment's last element), the
// maximum with its position; an empty segment has last < first.
__global__ void segment_max_incl(const int *offs, const float *val, float *best_out, int *at_out, const int n)
{
    LOOP_OUTPUTS(s, n) {
        const int first = offs[s], last = offs[s + 1] - 1;
        float best = -1.f;
        int at = -1;
        for (int j = first; j <= last; j++) {
            if (val[j] > best) {
                best = val[j];
                at = j;
            }
        }
        best_out[s] = best;
        at_out[s] = at;
    }
}

// Refused (session 44 review): a `continue` inside a switch continues the window's loop, so
// the trailing step is skipped on those trips.
__global__ void switch_continue(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x);
            switch (t & 1) {
            case 1:
                continue;
            default:
                break;
            }
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}

// Refused (session 44 review): the bound reads the stepped name, which the original re-reads
// every trip.
__global__ void bound_steps(const float *plane, float *out, const int n, const int w)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        for (int t = 0; t < x; t++) {
            x -= 0.5f;
            float v = edge_texel(plane, 1, w, 0.f, x);
            if (v > best)
                best = v;
        }
        out[o] = best;
    }
}

// Refused (session 45): the stepped name is one variable of the whole grid (static), which
// every lane of every output would step for every trip.
__global__ void static_steps(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        static float x;
        float best = -1.f;
        x = o;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}

// Refused (session 45): the stepped name is read through a pointer too, which the lane's copy
// does not follow (it would see the round's last step).
__global__ void pointed_steps(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        const float *at = &x;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, *at + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}

// Refused (session 45): a reference bound to the stepped name.
__global__ void ref_steps(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        const float &ahead = x;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, ahead + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}

// Refused: the stepped name passed to a function that takes it by reference (and returns its
// address): no reader call, refused as a call before the window that may write.
__device__ const float *address_of(const float &x) { return &x; }

__global__ void passed_steps(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        const float *at = address_of(x);
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, *at + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}

// Refused: a __shared__ stepped name (any shared memory: check_kernel's refusal comes first).
__global__ void shared_steps(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        __shared__ float x;
        float best = -1.f;
        x = o;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}

// Refused (session 45): the stepped name is a reference to another variable, which the body
// reads under its own name.
__global__ void ref_stepped(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x0 = o, best = -1.f;
        float &x = x0;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, x0 + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}

// Refused (session 45 review): references bound to the stepped name in the other spellings
// of an initializer (braces, parentheses, a conditional naming it).
__global__ void ref_brace(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        const float &ahead{x};
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, ahead + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}
__global__ void ref_paren(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        const float &ahead(x);
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, ahead + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}
__global__ void ref_cond(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, y = 0.f, best = -1.f;
        const float &ahead = n > 0 ? x : y;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, ahead + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}

// Refused (session 45 review): the stepped name declared twice, the inner declaration a
// reference, static, or a plain variable shadowing an unused outer one or a parameter.
__global__ void ref_shadow(const float *plane, float *out, const int n, const int w, const int taps)
{
    float x = 0.f;
    LOOP_OUTPUTS(o, n) {
        float x0 = o, best = -1.f;
        float &x = x0;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, x0 + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}
__global__ void static_shadow(const float *plane, float *out, const int n, const int w, const int taps)
{
    float x = 0.f;
    LOOP_OUTPUTS(o, n) {
        static float x;
        float best = -1.f;
        x = o;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}
__global__ void plain_shadow(const float *plane, float *out, const int n, const int w, const int taps)
{
    float x = 0.f;
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}
__global__ void param_shadow(const float *plane, float *out, const int n, const int w, const int taps, float x)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}

// Refused (session 46): other names the reference checks did not see -- a reference through a
// type alias, bound to the stepped name or declaring it; a structure holding a reference to
// it; a template type that may be instantiated as a reference (each applied at 18e2dd8a).
using hk_cref = const float &;
using hk_ref = float &;
struct hk_ref_box {
    const float &r;
};
__global__ void alias_ref(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        hk_cref ahead = x;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, ahead + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}
__global__ void alias_stepped(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x0 = o, best = -1.f;
        hk_ref x = x0;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, x0 + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}
__global__ void member_ref(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        hk_ref_box box{x};
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, box.r + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}
template <typename R>
__global__ void template_ref(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        R ahead = x;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, ahead + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}

// Refused (session 46): macros the scans of names do not read -- one binding a reference to
// the stepped name, one stepping a name in a window whose bounds are the thread's (each
// applied at 18e2dd8a; in the second the lanes each stepped x on their own trips only).
#define HK_AHEAD_DECL const float &ahead = x
#define HK_STEP_X x += 0.5f
__global__ void macro_ref(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        HK_AHEAD_DECL;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x) + edge_texel(plane, 1, w, 0.f, ahead + 1.f);
            if (v > best)
                best = v;
            x += 0.5f;
        }
        out[o] = best;
    }
}
__global__ void macro_step(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        for (int t = 0; t < o % taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x);
            if (v > best)
                best = v;
            HK_STEP_X;
        }
        out[o] = best;
    }
}
#define HK_SKIP_TRIP continue
__global__ void macro_jump(const float *plane, float *out, const int n, const int w, const int taps)
{
    LOOP_OUTPUTS(o, n) {
        float x = o, best = -1.f;
        for (int t = 0; t < taps; t++) {
            float v = edge_texel(plane, 1, w, 0.f, x);
            if (v > best)
                best = v;
            if (v < 0.5f)
                HK_SKIP_TRIP;
            x += 0.5f;
        }
        out[o] = best;
    }
}
