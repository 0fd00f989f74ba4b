/* unroll_jam_scan (rewrite_scan.c): neighbour searches in the shape of mmcv's three_nn,
 * knn and ball_query (a grid-stride loop over queries, the pointers advanced in it, a scan
 * over all items of the batch), written here for the test: the text each gets, its
 * refusals, nvcc -arch=sm_90 on each candidate, and one batched emulation (emu_batch.h)
 * comparing original and candidate bit for bit on tie-heavy, all-equal and NaN inputs, item
 * counts below, at and off multiples of U, queries off a multiple of the block, two
 * batches, and ball_query's count reached in the first items and never. Two broken
 * candidates (an item skipped, the break not ending the scan) must differ. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_scan.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "rw_fixture.h"
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-scan");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* The three searches. nearest3: the 3 nearest items by a strict-< cascade (double state
 * against a T distance); nearest_k: the k nearest through a max-heap whose root is
 * replaced and sifted down; radius: the first nsample items within a shell, the output
 * filled with the first one, ending the scan once nsample are found. */
static const char kernels[] =
    "#define PER_THREAD(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "\n"
    "template <typename T>\n"
    "__global__ void nearest3(int b, int nq, int ni, const T *q, const T *items, T *dist, int *__restrict__ which)\n"
    "{\n"
    "    int bat = blockIdx.y;\n"
    "    PER_THREAD(t, nq) {\n"
    "        if (bat >= b) return;\n"
    "        q += bat * nq * 3 + t * 3;\n"
    "        items += bat * ni * 3;\n"
    "        dist += bat * nq * 3 + t * 3;\n"
    "        which += bat * nq * 3 + t * 3;\n"
    "        T qx = q[0];\n"
    "        T qy = q[1];\n"
    "        T qz = q[2];\n"
    "        double d1 = 1e40, d2 = 1e40, d3 = 1e40;\n"
    "        int w1 = 0, w2 = 0, w3 = 0;\n"
    "        for (int j = 0; j < ni; ++j) {\n"
    "            T ix = items[j * 3 + 0];\n"
    "            T iy = items[j * 3 + 1];\n"
    "            T iz = items[j * 3 + 2];\n"
    "            T d = (qx - ix) * (qx - ix) + (qy - iy) * (qy - iy) + (qz - iz) * (qz - iz);\n"
    "            if (d < d1) {\n"
    "                d3 = d2; w3 = w2;\n"
    "                d2 = d1; w2 = w1;\n"
    "                d1 = d; w1 = j;\n"
    "            } else if (d < d2) {\n"
    "                d3 = d2; w3 = w2;\n"
    "                d2 = d; w2 = j;\n"
    "            } else if (d < d3) {\n"
    "                d3 = d; w3 = j;\n"
    "            }\n"
    "        }\n"
    "        dist[0] = d1; dist[1] = d2; dist[2] = d3;\n"
    "        which[0] = w1; which[1] = w2; which[2] = w3;\n"
    "    }\n"
    "}\n"
    "\n"
    "__device__ void sift_down(float *key, int *val, int k)\n"
    "{\n"
    "    int r = 0, c = 1;\n"
    "    while (c < k) {\n"
    "        if (c + 1 < k && key[c + 1] > key[c]) c++;\n"
    "        if (key[r] > key[c]) return;\n"
    "        float tk = key[r]; key[r] = key[c]; key[c] = tk;\n"
    "        int tv = val[r]; val[r] = val[c]; val[c] = tv;\n"
    "        r = c;\n"
    "        c = 2 * r + 1;\n"
    "    }\n"
    "}\n"
    "\n"
    "template <typename T>\n"
    "__global__ void nearest_k(int b, int ni, int nq, int k, const T *items, const T *q, int *__restrict__ out_i, T *out_d)\n"
    "{\n"
    "    int bat = blockIdx.y;\n"
    "    PER_THREAD(t, nq) {\n"
    "        if (bat >= b) return;\n"
    "        q += bat * nq * 3 + t * 3;\n"
    "        items += bat * ni * 3;\n"
    "        out_i += bat * nq * k + t * k;\n"
    "        out_d += bat * nq * k + t * k;\n"
    "        T qx = q[0];\n"
    "        T qy = q[1];\n"
    "        T qz = q[2];\n"
    "        float key[16];\n"
    "        int val[16];\n"
    "        for (int s = 0; s < k; s++) {\n"
    "            key[s] = 1e10;\n"
    "            val[s] = 0;\n"
    "        }\n"
    "        for (int j = 0; j < ni; j++) {\n"
    "            T ix = items[j * 3 + 0];\n"
    "            T iy = items[j * 3 + 1];\n"
    "            T iz = items[j * 3 + 2];\n"
    "            T d = (qx - ix) * (qx - ix) + (qy - iy) * (qy - iy) + (qz - iz) * (qz - iz);\n"
    "            if (d < key[0]) {\n"
    "                key[0] = d;\n"
    "                val[0] = j;\n"
    "                sift_down(key, val, k);\n"
    "            }\n"
    "        }\n"
    "        for (int s = k - 1; s > 0; s--) {\n"
    "            float tk = key[0]; key[0] = key[s]; key[s] = tk;\n"
    "            int tv = val[0]; val[0] = val[s]; val[s] = tv;\n"
    "            sift_down(key, val, s);\n"
    "        }\n"
    "        for (int s = 0; s < k; s++) {\n"
    "            out_i[s] = val[s];\n"
    "            out_d[s] = key[s];\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "template <typename T>\n"
    "__global__ void radius(int b, int ni, int nq, float rmin, float rmax, int nsample, const T *q, const T *items, int *out)\n"
    "{\n"
    "    int bat = blockIdx.y;\n"
    "    PER_THREAD(t, nq) {\n"
    "        if (bat >= b) return;\n"
    "        q += bat * nq * 3 + t * 3;\n"
    "        items += bat * ni * 3;\n"
    "        out += bat * nq * nsample + t * nsample;\n"
    "        float hi2 = rmax * rmax;\n"
    "        float lo2 = rmin * rmin;\n"
    "        T qx = q[0];\n"
    "        T qy = q[1];\n"
    "        T qz = q[2];\n"
    "        int found = 0;\n"
    "        for (int j = 0; j < ni; ++j) {\n"
    "            T ix = items[j * 3 + 0];\n"
    "            T iy = items[j * 3 + 1];\n"
    "            T iz = items[j * 3 + 2];\n"
    "            T d = (qx - ix) * (qx - ix) + (qy - iy) * (qy - iy) + (qz - iz) * (qz - iz);\n"
    "            if (d == 0 || (d >= lo2 && d < hi2)) {\n"
    "                if (found == 0) {\n"
    "                    for (int l = 0; l < nsample; ++l) out[l] = j;\n"
    "                }\n"
    "                out[found] = j;\n"
    "                ++found;\n"
    "                if (found >= nsample) break;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "}\n";

/* Two values in one statement, a break under a prefix increment, a store of another
 * element type than the items (the skills' sample kernel's spelling). */
static const char capped_src[] =
    "__global__ void capped(const float *query, const float *ref, int *hits, int *count, int n, int m, float r, int cap)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    float qx = query[2 * i], qy = query[2 * i + 1];\n"
    "    float r2 = r * r;\n"
    "    int c = 0;\n"
    "    for (int k = 0; k < m; k++) {\n"
    "        float dx = qx - ref[2 * k], dy = qy - ref[2 * k + 1];\n"
    "        float d = dx * dx + dy * dy;\n"
    "        if (d < r2) {\n"
    "            hits[i * cap + c] = k;\n"
    "            if (++c == cap)\n"
    "                break;\n"
    "        }\n"
    "    }\n"
    "    count[i] = c;\n"
    "}\n";

static const char capped_driver[] =
    "const int n = 70;\n"
    "for (int mode = 0; mode < 4; mode++)\n"
    "    for (float r : {0.5f, 1.5f, 100.0f})\n"
    "        for (int cap : {1, 4})\n"
    "            for (int m : nis) {\n"
    "                emu::buf<float> q(2 * n), rf(2 * m);\n"
    "                pts(q, mode, 7 + m); pts(rf, mode, 8 + m);\n"
    "                emu::buf<int> oh(n * cap), ch(n * cap), oc(n), cc(n);\n"
    "                oh.set(-3); ch.set(-3); oc.set(-3); cc.set(-3);\n"
    "                emu::launch(dim3((n + 63) / 64), dim3(64), 0, [&] { orig::capped(q, rf, oh, oc, n, m, r, cap); });\n"
    "                emu::launch(dim3((n + 63) / 64), dim3(64), 0, [&] { cand::capped(q, rf, ch, cc, n, m, r, cap); });\n"
    "                if (!emu::expect(\"capped hits\", oh, ch) | !emu::expect(\"capped count\", oc, cc))\n"
    "                    printf(\"  (mode %d, r %g, cap %d, items %d)\\n\", mode, r, cap, m);\n"
    "            }\n";

static const char inst[] =
    "\ntemplate __global__ void nearest3<float>(int, int, int, const float *, const float *, float *, int *);\n"
    "template __global__ void nearest_k<float>(int, int, int, int, const float *, const float *, int *, float *);\n"
    "template __global__ void radius<float>(int, int, int, float, float, int, const float *, const float *, int *);\n";

/* A sample loop whose value is a reader function's (session 40, after mmcv's roi_align and
 * deform_roi_pool: `T val = bilinear_interpolate(offset_input, ...)` per sample, then the
 * running max with its position): the reader takes its pointer as const and the rest by value,
 * writes only its own locals and by-value parameters (`if (x <= 0) x = 0;`) and returns early
 * outside the image, so calling it for U samples first reads the same memory and gives the
 * same values. */
static const char reader_src[] =
    "__device__ float lerp_at(const float *row, int w, float x)\n"
    "{\n"
    "    if (!(x >= -1.0f && x <= w))\n"
    "        return 0;\n"
    "    if (x <= 0)\n"
    "        x = 0;\n"
    "    int lo = (int)x;\n"
    "    if (lo >= w - 1)\n"
    "        lo = w - 1;\n"
    "    int hi = lo + 1 < w ? lo + 1 : w - 1;\n"
    "    float t = x - lo;\n"
    "    return (1.0f - t) * row[lo] + t * row[hi];\n"
    "}\n"
    "__global__ void sample_max(const float *img, const float *start, float *best, float *where, int n, int w,\n"
    "                           int samples, float step)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    const float *row = img + i * w;\n"
    "    float m = -1e30f, at = -1.0f;\n"
    "    for (int k = 0; k < samples; k++) {\n"
    "        const float x = start[i] + (k + 0.5f) * step;\n"
    "        float v = lerp_at(row, w, x);\n"
    "        if (v > m) {\n"
    "            m = v;\n"
    "            at = x;\n"
    "        }\n"
    "    }\n"
    "    best[i] = m;\n"
    "    where[i] = at;\n"
    "}\n";

static const char reader_driver[] =
    "const int n = 70, w = 9;\n"
    "bool stop = false;   /* the first configuration that differs is enough */\n"
    "for (int mode = 0; mode < 4 && !stop; mode++)\n"
    "    for (int samples : {1, 2, 3, 4, 5, 9})\n"
    "        for (float step : {0.75f, 2.5f}) {\n"
    "            if (stop)\n"
    "                break;\n"
    "            emu::buf<float> img(n * w), st(n);\n"
    "            pts(img, mode, 9 + samples); pts(st, mode, 10 + samples);\n"
    "            for (int i = 0; i < n; i++) st[i] = st[i] - 2.0f;\n"
    "            emu::buf<float> ob(n), cb(n), ow(n), cw(n);\n"
    "            ob.set(-3); cb.set(-3); ow.set(-3); cw.set(-3);\n"
    "            emu::launch(dim3((n + 63) / 64), dim3(64), 0, [&] { orig::sample_max(img, st, ob, ow, n, w, samples, step); });\n"
    "            emu::launch(dim3((n + 63) / 64), dim3(64), 0, [&] { cand::sample_max(img, st, cb, cw, n, w, samples, step); });\n"
    "            if (!emu::expect(\"sample best\", ob, cb) | !emu::expect(\"sample where\", ow, cw)) {\n"
    "                printf(\"  (mode %d, samples %d, step %g)\\n\", mode, samples, step);\n"
    "                stop = true;\n"
    "            }\n"
    "        }\n";

/* Sample loops with recurrences (session 41, after mmcv's border_align: `pool_size + 1`
 * bilinear samples along a box edge, `for (int i = 1; i <= pool_size; i++) { x += x_stride;
 * y += y_stride; val = bilinear_interpolate(...); if (val > maxval) ... }`): an inclusive bound,
 * the coordinates a recurrence stepped by loop-invariant strides, the value assigned to a
 * variable declared before the loop. walk_down and walk_down_gt count down (`>=`, `>`), with a
 * `*=` recurrence and updates that read the recurrences (each item's coordinate and weight). */
static const char rec_src[] =
    "__device__ float lerp2(const float *img, int h, int w, float y, float x)\n"
    "{\n"
    "    if (!(y >= -1.0f && y <= h && x >= -1.0f && x <= w))   /* NaN too */\n"
    "        return 0;\n"
    "    if (y <= 0)\n"
    "        y = 0;\n"
    "    if (x <= 0)\n"
    "        x = 0;\n"
    "    int y0 = (int)y, x0 = (int)x, y1, x1;\n"
    "    if (y0 >= h - 1) {\n"
    "        y1 = y0 = h - 1;\n"
    "        y = (float)y0;\n"
    "    } else\n"
    "        y1 = y0 + 1;\n"
    "    if (x0 >= w - 1) {\n"
    "        x1 = x0 = w - 1;\n"
    "        x = (float)x0;\n"
    "    } else\n"
    "        x1 = x0 + 1;\n"
    "    float ly = y - y0, lx = x - x0, hy = 1.0f - ly, hx = 1.0f - lx;\n"
    "    return hy * hx * img[y0 * w + x0] + hy * lx * img[y0 * w + x1] + ly * hx * img[y1 * w + x0] +\n"
    "           ly * lx * img[y1 * w + x1];\n"
    "}\n"
    "__device__ float lerp_at(const float *row, int w, float x)\n"
    "{\n"
    "    if (!(x >= -1.0f && x <= w))\n"
    "        return 0;\n"
    "    if (x <= 0)\n"
    "        x = 0;\n"
    "    int lo = (int)x;\n"
    "    if (lo >= w - 1)\n"
    "        lo = w - 1;\n"
    "    int hi = lo + 1 < w ? lo + 1 : w - 1;\n"
    "    float t = x - lo;\n"
    "    return (1.0f - t) * row[lo] + t * row[hi];\n"
    "}\n"
    "__device__ inline int in_span(const float *x, const float *span)\n"
    "{\n"
    "    return x[0] >= span[0] && x[0] < span[1];\n"
    "}\n"
    "__global__ void first_hit(const float *segs, const float *pts, int *slot, int *last, int nseg, int npts)\n"
    "{\n"
    "    int q = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (q >= npts)\n"
    "        return;\n"
    "    int hit = -1;\n"
    "    for (int s = 0; s < nseg; s++) {\n"
    "        hit = in_span(pts + q, segs + 2 * s);\n"
    "        if (hit) {\n"
    "            slot[q] = s;\n"
    "            break;\n"
    "        }\n"
    "    }\n"
    "    last[q] = hit;\n"
    "}\n"
    "__global__ void border_max(const float *img, const float *boxes, float *out, int *arg, int n, int h, int w,\n"
    "                           int pool)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    const float *b = boxes + 4 * i;\n"
    "    float x, y, xs, ys, val, m;\n"
    "    int at;\n"
    "    x = b[0];\n"
    "    y = b[1];\n"
    "    val = -5.0f;\n"
    "    xs = (b[2] - b[0]) / pool;\n"
    "    ys = (b[3] - b[1]) / pool;\n"
    "    m = lerp2(img, h, w, y, x);\n"
    "    at = 0;\n"
    "    for (int k = 1; k <= pool; k++) {\n"
    "        x += xs;\n"
    "        y += ys;\n"
    "        val = lerp2(img, h, w, y, x);\n"
    "        if (val > m) {\n"
    "            m = val;\n"
    "            at = k;\n"
    "        }\n"
    "    }\n"
    "    out[i] = m + val;\n"
    "    arg[i] = at;\n"
    "}\n"
    "__global__ void walk_down(const float *img, const float *start, float *out, float *where, int n, int w, int top,\n"
    "                          float step, float decay)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    const float *row = img + i * w;\n"
    "    float x = start[i], wgt = 1.0f, acc = 0.0f, best = -1e30f, bx = -7.0f;\n"
    "    for (int k = top; k >= 0; --k) {\n"
    "        x -= step;\n"
    "        wgt *= decay;\n"
    "        float v = lerp_at(row, w, x);\n"
    "        acc += wgt * v;\n"
    "        if (v > best) {\n"
    "            best = v;\n"
    "            bx = x + k;\n"
    "        }\n"
    "    }\n"
    "    out[i] = acc + best + x + wgt;\n"
    "    where[i] = bx;\n"
    "}\n"
    "__global__ void walk_down_gt(const float *img, const float *start, float *out, float *where, int n, int w,\n"
    "                             int top, float step, float decay)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    const float *row = img + i * w;\n"
    "    float x = start[i], wgt = 1.0f, acc = 0.0f, best = -1e30f, bx = -7.0f;\n"
    "    for (int k = top; k > -1; k--) {\n"
    "        x -= step;\n"
    "        wgt *= decay;\n"
    "        float v = lerp_at(row, w, x);\n"
    "        acc += wgt * v;\n"
    "        if (v > best) {\n"
    "            best = v;\n"
    "            bx = x + k;\n"
    "        }\n"
    "    }\n"
    "    out[i] = acc + best + x + wgt;\n"
    "    where[i] = bx;\n"
    "}\n";

/* Trip counts 0..9 (border_max: pool 0..9, items 1..pool; walk_down: top -1..8, items top..0),
 * boxes and starts inside and around the 9 x 9 image, and on all four input modes. */
static const char rec_driver[] =
    "const int n = 70, h = 9, w = 9;\n"
    "bool stop = false;   /* the first configuration that differs is enough */\n"
    "for (int mode = 0; mode < 4 && !stop; mode++)\n"
    "    for (int trips = 0; trips <= 9 && !stop; trips++) {\n"
    "        emu::buf<float> img(h * w * n), bx(4 * n), st(n);\n"
    "        pts(img, mode, 40 + trips); pts(bx, mode, 41 + trips); pts(st, mode, 42 + trips);\n"
    "        for (int i = 0; i < 4 * n; i++) bx[i] = bx[i] * 0.9f + 3.0f;\n"
    "        for (int i = 0; i < n; i++) st[i] = st[i] + 6.0f;\n"
    "        emu::buf<float> om(n), cm(n);\n"
    "        emu::buf<int> oa(n), ca(n);\n"
    "        om.set(-3); cm.set(-3); oa.set(-3); ca.set(-3);\n"
    "        emu::launch(dim3(2), dim3(64), 0, [&] { orig::border_max(img, bx, om, oa, n, h, w, trips); });\n"
    "        emu::launch(dim3(2), dim3(64), 0, [&] { cand::border_max(img, bx, cm, ca, n, h, w, trips); });\n"
    "        if (!emu::expect(\"border max\", om, cm) | !emu::expect(\"border argmax\", oa, ca)) {\n"
    "            printf(\"  (mode %d, pool %d)\\n\", mode, trips);\n"
    "            stop = true;\n"
    "        }\n"
    "        {   /* first_hit: the assigned flag, a break at the first hit (the count reached early,\n"
    "             * late, never), the flag's last value after the loop */\n"
    "            emu::buf<float> sg(2 * trips + 1), pt(n);\n"
    "            pts(sg, mode, 43 + trips); pts(pt, mode, 44 + trips);\n"
    "            emu::buf<int> os(n), cs(n), ol(n), cl(n);\n"
    "            os.set(-3); cs.set(-3); ol.set(-3); cl.set(-3);\n"
    "            emu::launch(dim3(2), dim3(64), 0, [&] { orig::first_hit(sg, pt, os, ol, trips, n); });\n"
    "            emu::launch(dim3(2), dim3(64), 0, [&] { cand::first_hit(sg, pt, cs, cl, trips, n); });\n"
    "            if (!emu::expect(\"first_hit slot\", os, cs) | !emu::expect(\"first_hit last\", ol, cl)) {\n"
    "                printf(\"  (mode %d, segments %d)\\n\", mode, trips);\n"
    "                stop = true;\n"
    "            }\n"
    "        }\n"
    "        for (float step : {0.75f, 1.3f}) {\n"
    "            emu::buf<float> oo(n), co(n), ow(n), cw(n), og(n), cg(n), ox(n), cx(n);\n"
    "            oo.set(-3); co.set(-3); ow.set(-3); cw.set(-3); og.set(-3); cg.set(-3); ox.set(-3); cx.set(-3);\n"
    "            emu::launch(dim3(2), dim3(64), 0, [&] { orig::walk_down(img, st, oo, ow, n, w, trips - 1, step, 0.9f); });\n"
    "            emu::launch(dim3(2), dim3(64), 0, [&] { cand::walk_down(img, st, co, cw, n, w, trips - 1, step, 0.9f); });\n"
    "            emu::launch(dim3(2), dim3(64), 0, [&] { orig::walk_down_gt(img, st, og, ox, n, w, trips - 1, step, 0.7f); });\n"
    "            emu::launch(dim3(2), dim3(64), 0, [&] { cand::walk_down_gt(img, st, cg, cx, n, w, trips - 1, step, 0.7f); });\n"
    "            if (!emu::expect(\"walk_down out\", oo, co) | !emu::expect(\"walk_down where\", ow, cw) |\n"
    "                !emu::expect(\"walk_down_gt out\", og, cg) | !emu::expect(\"walk_down_gt where\", ox, cx)) {\n"
    "                printf(\"  (mode %d, items %d, step %g)\\n\", mode, trips, step);\n"
    "                stop = true;\n"
    "            }\n"
    "        }\n"
    "    }\n";

static char *jammed(const char *src, const char *kname, int u)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_unroll_jam_scan(fx.text, fx.len, fx.m, kernel(&fx, kname), u, &r), HK_OK);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    assert_true(r.keeps_launch);
    char *t = strdup(r.text);
    assert_non_null(t);
    rw_result_free(&r);
    unload(&fx);
    return t;
}

/* Each of names jammed at U in turn, one text. */
static char *jammed_all(const char *src, const char *const *names, size_t n, int u)
{
    char *t = strdup(src);
    assert_non_null(t);
    for (size_t i = 0; i < n; i++) {
        char *next = jammed(t, names[i], u);
        free(t);
        t = next;
    }
    return t;
}

static const char *const rec_names[] = {"border_max", "walk_down", "walk_down_gt", "first_hit"};

/* The text: U values, the updates with the original names, the remainder loop, the break
 * made to end the scan; and each candidate compiles for sm_90. */
static void emits_and_compiles(void **state)
{
    (void)state;
    static const char *const names[] = {"nearest3", "nearest_k", "radius"};
    fixture fx;
    load_text(kernels, &fx);
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++) {
        rw_result r;
        assert_int_equal(rw_unroll_jam_scan(fx.text, fx.len, fx.m, kernel(&fx, names[i]), 4, &r), HK_OK);
        assert_true(r.applicable);
        assert_non_null(strstr(r.text, "hk_uj < (ni) && (ni) - hk_uj >= 4; hk_uj += 4)"));
        assert_non_null(strstr(r.text, "hk_uj < (ni) && (ni) - hk_uj >= 2; hk_uj += 2)"));   /* the pairs left */
        assert_non_null(strstr(r.text, "T hk_uj3_d = (qx - hk_uj3_ix) * (qx - hk_uj3_ix)"));
        assert_non_null(strstr(r.text, "T hk_uj0_ix = items[hk_uj_k0 * 3 + 0];"));
        assert_non_null(strstr(r.text, "int j = hk_uj_k2;"));
        assert_non_null(strstr(r.text, "T d = hk_uj2_d;"));
        assert_null(strstr(r.text, "T ix = hk_uj"));   /* only what the updates read */
        assert_non_null(strstr(r.text, "= hk_uj; j < (ni); ++j)"));
        assert_non_null(strstr(r.description, "4 items' values"));
        bool brk = !strcmp(names[i], "radius");
        assert_true((strstr(r.text, "{ hk_uj_stop = true; break; }") != NULL) == brk);
        assert_true((strstr(r.text, "if (!hk_uj_stop)") != NULL) == brk);
        /* the init loop of nearest_k (a store first) is not the one taken */
        if (!strcmp(names[i], "nearest_k"))
            assert_non_null(strstr(r.text, "key[s] = 1e10;"));
        rwf_nvcc_compiles_with(&r, inst, "scan", names[i]);
        rw_result_free(&r);
    }
    /* U = 8 and 2: as many value sets */
    rw_result r;
    assert_int_equal(rw_unroll_jam_scan(fx.text, fx.len, fx.m, kernel(&fx, "nearest3"), 8, &r), HK_OK);
    assert_non_null(strstr(r.text, "hk_uj7_d"));
    rw_result_free(&r);
    assert_int_equal(rw_unroll_jam_scan(fx.text, fx.len, fx.m, kernel(&fx, "radius"), 2, &r), HK_OK);
    assert_non_null(strstr(r.text, "hk_uj1_d"));
    assert_null(strstr(r.text, "hk_uj2_d"));
    rw_result_free(&r);
    assert_int_equal(rw_unroll_jam_scan(fx.text, fx.len, fx.m, kernel(&fx, "radius"), 3, &r), HK_EINVAL);
    unload(&fx);
}

static void has(const char *text, const char *want)
{
    if (!strstr(text, want))
        print_message("want `%s` in:\n%s\n", want, text);
    assert_non_null(strstr(text, want));
}

/* Session 41: the inclusive bound, the counting down, the recurrences stepped in order before
 * each item's values, the assigned value given to its variable in the updates, the updates'
 * recurrences their item's; nvcc compiles each. */
static void recurrences_emitted(void **state)
{
    (void)state;
    fixture fx;
    load_text(rec_src, &fx);
    rw_result r;
    assert_int_equal(rw_unroll_jam_scan(fx.text, fx.len, fx.m, kernel(&fx, "border_max"), 4, &r), HK_OK);
    assert_true(r.applicable);
    has(r.text, "for (; hk_uj <= (pool) && (pool) - hk_uj >= 3; hk_uj += 4) {");
    has(r.text, "for (; hk_uj <= (pool) && (pool) - hk_uj >= 1; hk_uj += 2) {");
    has(r.text, "            x += xs;\n            y += ys;\n"
                "            decltype(val) hk_uj1_val = lerp2(img, h, w, y, x);\n"
                "            const int hk_uj_k2 = hk_uj + 2;\n            x += xs;\n");
    has(r.text, "                int k = hk_uj_k3;\n                val = hk_uj3_val;\n");
    has(r.text, "for (int k = hk_uj; k <= (pool); ++k) {");
    assert_null(strstr(r.text, "hk_uj0_x"));   /* the updates read no recurrence: nothing kept */
    has(r.description, "2 recurrences (from `x`)");
    rwf_nvcc_compiles_with(&r, "", "scan_rec", "border_max");
    rw_result_free(&r);
    static const char *const down[] = {"walk_down", "walk_down_gt"};
    for (size_t i = 0; i < 2; i++) {
        bool ge = i == 0;
        assert_int_equal(rw_unroll_jam_scan(fx.text, fx.len, fx.m, kernel(&fx, down[i]), 4, &r), HK_OK);
        assert_true(r.applicable);
        has(r.text, ge ? "for (; hk_uj >= (0) && hk_uj - (0) >= 3; hk_uj -= 4) {"
                       : "for (; hk_uj > (-1) && hk_uj - (-1) >= 4; hk_uj -= 4) {");
        has(r.text, ge ? "for (; hk_uj >= (0) && hk_uj - (0) >= 1; hk_uj -= 2) {"
                       : "for (; hk_uj > (-1) && hk_uj - (-1) >= 2; hk_uj -= 2) {");
        has(r.text, "const int hk_uj_k3 = hk_uj - 3;");
        has(r.text, "x -= step;\n            wgt *= decay;\n            float hk_uj2_v = lerp_at(row, w, x);\n"
                    "            const decltype(x) hk_uj2_x = x;\n            const decltype(wgt) hk_uj2_wgt = wgt;\n");
        has(r.text, "                const decltype(hk_uj2_x) x = hk_uj2_x;\n"
                    "                const decltype(hk_uj2_wgt) wgt = hk_uj2_wgt;\n                float v = hk_uj2_v;\n");
        has(r.text, ge ? "for (int k = hk_uj; k >= (0); --k) {" : "for (int k = hk_uj; k > (-1); --k) {");
        rwf_nvcc_compiles_with(&r, "", "scan_rec", down[i]);
        rw_result_free(&r);
    }
    unload(&fx);
}

static void refused(const char *src, const char *kname, const char *construct, int line, const char *what)
{
    fixture fx;
    load_text(src, &fx);
    rw_result r;
    assert_int_equal(rw_unroll_jam_scan(fx.text, fx.len, fx.m, kernel(&fx, kname), 4, &r), HK_OK);
    assert_false(r.applicable);
    char want[128];
    snprintf(want, sizeof want, "%s at line %d", construct, line);
    if (!strstr(r.description, want) || (what && !strstr(r.description, what)))
        print_message("%s: want `%s` and `%s` in: %s\n", kname, want, what ? what : "", r.description);
    assert_non_null(strstr(r.description, want));
    if (what)
        assert_non_null(strstr(r.description, what));
    rw_result_free(&r);
    unload(&fx);
}

/* Refusals, each with the construct and its line. */
static void refusals(void **state)
{
    (void)state;
    /* the value reads the state (a running minimum): item k's value depends on the updates of
     * the items before it (line 6) */
    refused("__global__ void rel(const float *x, float *y, int n)\n"
            "{\n"
            "    float best = 1e30f;\n"
            "    int at = 0;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        float d = x[k] - best;\n"
            "        if (d < 0.0f) { best = x[k]; at = k; }\n"
            "    }\n"
            "    y[threadIdx.x] = best + at;\n"
            "}\n",
            "rel", "value declaration", 6, "reads `best`, which the loop body writes (line 7)");
    /* session 46: the same read through a macro of the file (applied at 18e2dd8a) */
    refused("#define HK_BEST best\n"
            "__global__ void relm(const float *x, float *y, int n)\n"
            "{\n"
            "    float best = 1e30f;\n"
            "    int at = 0;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        float d = x[k] - HK_BEST;\n"
            "        if (d < 0.0f) { best = x[k]; at = k; }\n"
            "    }\n"
            "    y[threadIdx.x] = best + at;\n"
            "}\n",
            "relm", "value declaration", 7, "reads `HK_BEST`, a macro of the file");
    /* session 46: a break spelled by a macro: the jammed loop's break would leave it alone and
     * the pair and remainder loops would scan on, counting the hit again (applied at 18e2dd8a) */
    refused("#define HK_STOP break\n"
            "__global__ void hitm(const float *x, int *y, int n, float lim)\n"
            "{\n"
            "    int at = -1, hits = 0;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        float v = x[k];\n"
            "        if (v > lim) { hits++; at = k; HK_STOP; }\n"
            "    }\n"
            "    y[threadIdx.x] = at + hits;\n"
            "}\n",
            "hitm", "macro", 7, "`HK_STOP`, a macro of the file whose text holds `break`");
    /* the value reads memory the update stores to, same element type, no restrict (line 5) */
    refused("__global__ void alias(const float *x, float *y, int n)\n"
            "{\n"
            "    int c = 0;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        float v = x[k];\n"
            "        if (v > 0.0f) { y[c] = v; ++c; }\n"
            "    }\n"
            "}\n",
            "alias", "value declaration", 5, "store through `y` (line 6) may reach");
    /* a call that may write, in the value (line 6) */
    refused("__device__ float take(float *s) { return *s; }\n"
            "__global__ void call(float *x, float *y, int n)\n"
            "{\n"
            "    float m = 0.0f;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        float v = take(x + k);\n"
            "        if (v > m) m = v;\n"
            "    }\n"
            "    y[0] = m;\n"
            "}\n",
            "call", "value declaration", 6, "calls `take`");
    /* a continue of the item loop (line 6) */
    refused("__global__ void cont(const float *x, float *y, int n)\n"
            "{\n"
            "    float m = 0.0f;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        float v = x[k];\n"
            "        if (v < 0.0f) continue;\n"
            "        m += v;\n"
            "    }\n"
            "    y[0] = m;\n"
            "}\n",
            "cont", "continue", 6, NULL);
    /* a barrier in the item loop (line 6) */
    refused("__global__ void bar(const float *x, float *y, int n)\n"
            "{\n"
            "    __shared__ float s[32];\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        float v = x[k];\n"
            "        __syncthreads();\n"
            "        s[threadIdx.x % 32] = v;\n"
            "    }\n"
            "    y[threadIdx.x] = s[0];\n"
            "}\n",
            "bar", "barrier", 6, NULL);
    /* items two at a time (line 3) */
    refused("__global__ void step2(const float *x, float *y, int n)\n"
            "{\n"
            "    for (int k = 0; k < n; k += 2) {\n"
            "        float v = x[k];\n"
            "        y[k] = v;\n"
            "    }\n"
            "}\n",
            "step2", "loop step", 3, NULL);
    /* the bound changes in the body (line 6) */
    refused("__global__ void shrink(const float *x, float *y, int n)\n"
            "{\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        float v = x[k];\n"
            "        y[k] = v;\n"
            "        if (v < 0.0f) n = k;\n"
            "    }\n"
            "}\n",
            "shrink", "loop bound", 6, NULL);
    /* a second name declared with the counter (line 3): the remainder loop would lose it */
    refused("__global__ void two(const float *x, float *y, int n)\n"
            "{\n"
            "    for (int k = 0, e = n - 1; k < n; ++k) {\n"
            "        float v = x[e - k];\n"
            "        y[k] = v;\n"
            "    }\n"
            "}\n",
            "two", "for loop", 3, "more than the counter");
    /* a bound that reads the counter (line 3) */
    refused("__global__ void half(const float *x, float *y, int n)\n"
            "{\n"
            "    for (int k = 0; k < n - k; ++k) {\n"
            "        float v = x[k];\n"
            "        y[k] = v;\n"
            "    }\n"
            "}\n",
            "half", "loop bound", 3, "reads the counter");
    /* a loop of fewer items than U, counted in the source (line 5): only its remainder would run */
    refused("__global__ void unrolled(const float *x, float *y)\n"
            "{\n"
            "    float m = 0.0f;\n"
            "#pragma unroll\n"
            "    for (int k = 0; k < 3; ++k) {\n"
            "        float v = x[k];\n"
            "        if (v > m) m = v;\n"
            "    }\n"
            "    y[0] = m;\n"
            "}\n",
            "unrolled", "loop bound", 5, "3 items, fewer than the 4 jammed");
    /* a reader function's value whose memory a store of the loop may reach (line 6: `y[k]`) */
    refused("__device__ float peek(const float *p, int k) { return p[k] * 2.0f; }\n"
            "__global__ void readback(float *y, int n)\n"
            "{\n"
            "    float m = 0.0f;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        float v = peek(y, k);\n"
            "        if (v > m) m = v;\n"
            "        y[k] = m;\n"
            "    }\n"
            "}\n",
            "readback", "value declaration", 6, "`y`");
    /* a reader function given no pointer (line 6): index arithmetic, no load in flight */
    refused("__device__ int flat(int r, int c, int w) { return r * w + c; }\n"
            "__global__ void idx_only(float *y, const float *x, int n, int w)\n"
            "{\n"
            "    float m = 0.0f;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        int at = flat(k, 1, w);\n"
            "        if (x[at] > m) m = x[at];\n"
            "    }\n"
            "    y[0] = m;\n"
            "}\n",
            "idx_only", "value declaration", 6, "read no memory");
    /* values that read no memory and call nothing (line 5): no load for the jam to put in flight */
    refused("__global__ void arith(float *y, int n, float h)\n"
            "{\n"
            "    float m = 0.0f;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        float v = (k + 0.5f) * h;\n"
            "        if (v > m) m = v;\n"
            "    }\n"
            "    y[0] = m;\n"
            "}\n",
            "arith", "value declaration", 5, "read no memory and call nothing");
    /* session 41. A recurrence whose step reads the state (line 5: `m`, which the updates write) */
    refused("__global__ void rs(const float *x, float *y, int n, float s)\n"
            "{\n"
            "    float p = 0.0f, m = 0.0f;\n"
            "    for (int k = 0; k <= n; ++k) {\n"
            "        p += s * m;\n"
            "        float v = x[(int)p];\n"
            "        if (v > m) m = v;\n"
            "    }\n"
            "    y[0] = m;\n"
            "}\n",
            "rs", "recurrence", 5, "the step of `p` reads `m`");
    /* ... the counter (line 5): x_k is no recurrence of loop-invariant steps */
    refused("__global__ void rc(const float *x, float *y, int n, float s)\n"
            "{\n"
            "    float p = 0.0f, m = 0.0f;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        p += s * k;\n"
            "        float v = x[(int)p];\n"
            "        if (v > m) m = v;\n"
            "    }\n"
            "    y[0] = m;\n"
            "}\n",
            "rc", "recurrence", 5, "reads `k`");
    /* ... memory (line 5): a sum of loads is no recurrence but an update, so no value comes first */
    refused("__global__ void rm(const float *x, float *y, int n)\n"
            "{\n"
            "    float p = 0.0f;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        p += x[k];\n"
            "        y[k] = p;\n"
            "    }\n"
            "}\n",
            "rm", "loop body", 5, "value declarations");
    /* a recurrence with a break of the item loop (line 5) */
    refused("__global__ void rb(const float *x, float *y, int n, float s)\n"
            "{\n"
            "    float p = 0.0f, m = 0.0f;\n"
            "    for (int k = 1; k <= n; ++k) {\n"
            "        p += s;\n"
            "        float v = x[(int)p];\n"
            "        if (v > 3.0f) break;\n"
            "        m += v;\n"
            "    }\n"
            "    y[0] = m + p;\n"
            "}\n",
            "rb", "recurrence", 5, "a break of the item loop with the recurrence `p`");
    /* a recurrence the updates also write (line 5; again at line 7) */
    refused("__global__ void r2(const float *x, float *y, int n, float s)\n"
            "{\n"
            "    float p = 0.0f, m = 0.0f;\n"
            "    for (int k = 1; k <= n; ++k) {\n"
            "        p += s;\n"
            "        float v = x[(int)p];\n"
            "        if (v > m) { m = v; p = 0.0f; }\n"
            "    }\n"
            "    y[0] = m;\n"
            "}\n",
            "r2", "recurrence", 5, "`p` is written again at line 7");
    /* an assigned value read before the item assigns it (line 6: `u` reads `val`, assigned at line 7) */
    refused("__global__ void early(const float *x, float *y, int n)\n"
            "{\n"
            "    float val = 0.0f, m = 0.0f;\n"
            "    int at = 0;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        float u = val * 2.0f;\n"
            "        val = x[k];\n"
            "        if (val > m + u) { m = val; at = k; }\n"
            "    }\n"
            "    y[0] = m + at;\n"
            "}\n",
            "early", "value declaration", 6, "reads `val` before the item assigns it (line 7)");
    /* a value assigned to a variable of the device, not of the kernel (line 6) */
    refused("__device__ float g;\n"
            "__global__ void glob(const float *x, float *y, int n)\n"
            "{\n"
            "    float m = 0.0f;\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        g = x[k];\n"
            "        if (g > m) m = g;\n"
            "    }\n"
            "    y[0] = m;\n"
            "}\n",
            "glob", "value assignment", 6, "`g` is not a variable of the kernel");
    /* a bound of another comparison (line 3) */
    refused("__global__ void ne(const float *x, float *y, int n)\n"
            "{\n"
            "    for (int k = 0; k != n; ++k) {\n"
            "        float v = x[k];\n"
            "        y[k] = v;\n"
            "    }\n"
            "}\n",
            "ne", "loop condition", 3, "not `k < N`, `k <= N`, `k > N` or `k >= N`");
    /* counting down with an increment (line 3) */
    refused("__global__ void updown(const float *x, float *y, int n)\n"
            "{\n"
            "    for (int k = n; k > 0; ++k) {\n"
            "        float v = x[k];\n"
            "        y[k] = v;\n"
            "    }\n"
            "}\n",
            "updown", "loop step", 3, "not `--k`");
    /* an unbraced body is read (one statement: no value before an update; line 5) */
    refused("__global__ void one(const float *x, float *y, int n)\n"
            "{\n"
            "    float m = 0.0f;\n"
            "    for (int k = 0; k < n; ++k)\n"
            "        if (x[k] > m) m = x[k];\n"
            "    y[0] = m;\n"
            "}\n",
            "one", "loop body", 5, "value declarations");
    /* a loop with no value first: the body's first statement (line 4) */
    refused("__global__ void fill(float *y, int n)\n"
            "{\n"
            "    for (int k = 0; k < n; ++k) {\n"
            "        y[k] = 0.0f;\n"
            "    }\n"
            "}\n",
            "fill", "loop body", 4, "value declarations");
}

/* C++ for the drivers: inputs by mode (0 spread, 1 integer grid 0..3: ties everywhere, 2
 * all equal, 3 the grid with NaN coordinates), and one comparison per kernel, with the
 * query count off a multiple of the 64-thread block, two batches. */
#define HELPERS_COMMON                                                                 \
    "static void pts(emu::buf<float> &p, int mode, int seed)\n"                         \
    "{\n"                                                                               \
    "    if (mode == 0) p.fill(seed);\n"                                                \
    "    else if (mode == 2) p.set(1.0f);\n"                                            \
    "    else p.fill_mod(seed, 4);\n"                                                   \
    "    if (mode == 3)\n"                                                              \
    "        for (size_t i = (size_t)seed % 5; i < p.size(); i += 7) p[i] = NAN;\n"     \
    "}\n"                                                                               \
    "static const int nis[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 17, 40};\n"

static const char helpers_common[] = HELPERS_COMMON;

static const char helpers[] = HELPERS_COMMON
    "static void nearest3_case(int mode)\n"
    "{\n"
    "    const int b = 2, nq = 70;\n"
    "    for (int ni : nis) {\n"
    "        emu::buf<float> q(b * nq * 3), it(b * ni * 3);\n"
    "        pts(q, mode, 1 + ni); pts(it, mode, 2 + ni);\n"
    "        emu::buf<float> od(b * nq * 3), cd(b * nq * 3);\n"
    "        emu::buf<int> oi(b * nq * 3), ci(b * nq * 3);\n"
    "        od.set(-1.0f); cd.set(-1.0f); oi.set(-1); ci.set(-1);\n"
    "        dim3 g((nq + 63) / 64, b), blk(64);\n"
    "        emu::launch(g, blk, 0, [&] { orig::nearest3<float>(b, nq, ni, q, it, od, oi); });\n"
    "        emu::launch(g, blk, 0, [&] { cand::nearest3<float>(b, nq, ni, q, it, cd, ci); });\n"
    "        if (!emu::expect(\"nearest3 dist\", od, cd) | !emu::expect(\"nearest3 idx\", oi, ci))\n"
    "            printf(\"  (mode %d, items %d)\\n\", mode, ni);\n"
    "    }\n"
    "}\n"
    "static void nearest_k_case(int mode)\n"
    "{\n"
    "    const int b = 2, nq = 70;\n"
    "    for (int k : {1, 2, 5})\n"
    "        for (int ni : nis) {\n"
    "            emu::buf<float> q(b * nq * 3), it(b * ni * 3);\n"
    "            pts(q, mode, 3 + ni); pts(it, mode, 4 + ni);\n"
    "            emu::buf<float> od(b * nq * k), cd(b * nq * k);\n"
    "            emu::buf<int> oi(b * nq * k), ci(b * nq * k);\n"
    "            od.set(-1.0f); cd.set(-1.0f); oi.set(-1); ci.set(-1);\n"
    "            dim3 g((nq + 63) / 64, b), blk(64);\n"
    "            emu::launch(g, blk, 0, [&] { orig::nearest_k<float>(b, ni, nq, k, it, q, oi, od); });\n"
    "            emu::launch(g, blk, 0, [&] { cand::nearest_k<float>(b, ni, nq, k, it, q, ci, cd); });\n"
    "            if (!emu::expect(\"nearest_k dist\", od, cd) | !emu::expect(\"nearest_k idx\", oi, ci))\n"
    "                printf(\"  (mode %d, k %d, items %d)\\n\", mode, k, ni);\n"
    "        }\n"
    "}\n"
    "/* the shell: everything (the count reached in the first items), [0.9, 1.5) on the grid\n"
    " * (some), nothing but exact duplicates (d == 0; often never reached) */\n"
    "static void radius_case(int mode)\n"
    "{\n"
    "    const int b = 2, nq = 70;\n"
    "    const float shells[][2] = {{0.0f, 1e6f}, {0.9f, 1.5f}, {0.5f, 0.6f}};\n"
    "    for (auto &sh : shells)\n"
    "        for (int ns : {1, 3, 6})\n"
    "            for (int ni : nis) {\n"
    "                emu::buf<float> q(b * nq * 3), it(b * ni * 3);\n"
    "                pts(q, mode, 5 + ni); pts(it, mode, 6 + ni);\n"
    "                emu::buf<int> o(b * nq * ns), c(b * nq * ns);\n"
    "                o.set(-7); c.set(-7);\n"
    "                dim3 g((nq + 63) / 64, b), blk(64);\n"
    "                emu::launch(g, blk, 0, [&] { orig::radius<float>(b, ni, nq, sh[0], sh[1], ns, q, it, o); });\n"
    "                emu::launch(g, blk, 0, [&] { cand::radius<float>(b, ni, nq, sh[0], sh[1], ns, q, it, c); });\n"
    "                if (!emu::expect(\"radius idx\", o, c))\n"
    "                    printf(\"  (mode %d, shell %g..%g, nsample %d, items %d)\\n\", mode, sh[0], sh[1], ns, ni);\n"
    "            }\n"
    "}\n";

static const char all_modes[] = "for (int mode = 0; mode < 4; mode++) %s_case(mode);\n";

/* Every kernel at U = 4 on every input; U = 2 and 8 on the tie-heavy and NaN inputs; two
 * broken candidates that must differ. One batch, one g++ run. */
static void emulated(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static emu_batch batch;
    emu_batch_init(&batch, tmpdir, "scan");
    static const char *const names[] = {"nearest3", "nearest_k", "radius"};
    char *cands[3 * 3] = {0};
    char drivers[3][128], tags[3 * 3][64];
    static const int us[] = {4, 2, 8};
    for (size_t i = 0; i < 3; i++) {
        snprintf(drivers[i], sizeof drivers[i], all_modes, names[i]);
        for (size_t l = 0; l < 3; l++) {
            cands[i * 3 + l] = jammed(kernels, names[i], us[l]);
            snprintf(tags[i * 3 + l], sizeof tags[0], "scan_%s_u%d", names[i], us[l]);
            emu_batch_add_pair(&batch, tags[i * 3 + l], kernels, cands[i * 3 + l], helpers, drivers[i], EMU_OK);
        }
    }
    char *capped4 = jammed(capped_src, "capped", 4), *capped8 = jammed(capped_src, "capped", 8);
    assert_non_null(strstr(capped4, "float hk_uj2_dy = qy - ref[2 * hk_uj_k2 + 1];"));
    emu_batch_add_pair(&batch, "scan_capped_u4", capped_src, capped4, helpers_common, capped_driver, EMU_OK);
    emu_batch_add_pair(&batch, "scan_capped_u8", capped_src, capped8, helpers_common, capped_driver, EMU_OK);
    /* mmcv's own three_nn, knn and ball_query (bench/wild/src, where extracted) */
    static const struct {
        const char *id, *kernel, *driver;
    } wild[] = {
        {"mmcv_three_nn_fwd", "three_nn_forward_cuda_kernel",
         "const int b = 2, n = 70;\n"
         "for (int mode = 0; mode < 4; mode++)\n"
         "    for (int m : {3, 5, 41}) {\n"
         "        emu::buf<float> u(b * n * 3), k(b * m * 3);\n"
         "        pts(u, mode, 11 + m); pts(k, mode, 12 + m);\n"
         "        emu::buf<float> od(b * n * 3), cd(b * n * 3);\n"
         "        emu::buf<int> oi(b * n * 3), ci(b * n * 3);\n"
         "        od.set(-1.0f); cd.set(-1.0f); oi.set(-1); ci.set(-1);\n"
         "        emu::launch(dim3(2, b), dim3(64), 0, [&] { orig::three_nn_forward_cuda_kernel<float>(b, n, m, u, k, od, oi); });\n"
         "        emu::launch(dim3(2, b), dim3(64), 0, [&] { cand::three_nn_forward_cuda_kernel<float>(b, n, m, u, k, cd, ci); });\n"
         "        if (!emu::expect(\"three_nn dist\", od, cd) | !emu::expect(\"three_nn idx\", oi, ci))\n"
         "            printf(\"  (mode %d, m %d)\\n\", mode, m);\n"
         "    }\n"},
        {"mmcv_knn_fwd", "knn_forward_cuda_kernel",
         "const int b = 2, m = 70;\n"
         "for (int mode = 0; mode < 4; mode++)\n"
         "    for (int ns : {2, 5})\n"
         "        for (int n : {3, 5, 41}) {\n"
         "            emu::buf<float> xyz(b * n * 3), nx(b * m * 3);\n"
         "            pts(xyz, mode, 13 + n); pts(nx, mode, 14 + n);\n"
         "            emu::buf<float> od(b * m * ns), cd(b * m * ns);\n"
         "            emu::buf<int> oi(b * m * ns), ci(b * m * ns);\n"
         "            od.set(-1.0f); cd.set(-1.0f); oi.set(-1); ci.set(-1);\n"
         "            emu::launch(dim3(2, b), dim3(64), 0, [&] { orig::knn_forward_cuda_kernel<float>(b, n, m, ns, xyz, nx, oi, od); });\n"
         "            emu::launch(dim3(2, b), dim3(64), 0, [&] { cand::knn_forward_cuda_kernel<float>(b, n, m, ns, xyz, nx, ci, cd); });\n"
         "            if (!emu::expect(\"knn dist\", od, cd) | !emu::expect(\"knn idx\", oi, ci))\n"
         "                printf(\"  (mode %d, nsample %d, n %d)\\n\", mode, ns, n);\n"
         "        }\n"},
        {"mmcv_ball_query_fwd", "ball_query_forward_cuda_kernel",
         "const int b = 2, m = 70;\n"
         "for (int mode = 0; mode < 4; mode++)\n"
         "    for (float rmax : {0.5f, 1.5f, 1e6f})\n"
         "        for (int ns : {1, 6})\n"
         "            for (int n : {3, 5, 41}) {\n"
         "                emu::buf<float> nx(b * m * 3), xyz(b * n * 3);\n"
         "                pts(nx, mode, 15 + n); pts(xyz, mode, 16 + n);\n"
         "                emu::buf<int> o(b * m * ns), c(b * m * ns);\n"
         "                o.set(0); c.set(0);\n"
         "                emu::launch(dim3(2, b), dim3(64), 0, [&] { orig::ball_query_forward_cuda_kernel<float>(b, n, m, 0.0f, rmax, ns, nx, xyz, o); });\n"
         "                emu::launch(dim3(2, b), dim3(64), 0, [&] { cand::ball_query_forward_cuda_kernel<float>(b, n, m, 0.0f, rmax, ns, nx, xyz, c); });\n"
         "                if (!emu::expect(\"ball_query idx\", o, c))\n"
         "                    printf(\"  (mode %d, rmax %g, nsample %d, n %d)\\n\", mode, rmax, ns, n);\n"
         "            }\n"},
        /* its full block's `#pragma unroll` 4-loop is the one jammed (m of 512 and more) */
        {"mmcv_chamfer_distance_fwd", "chamfer_distance_forward_cuda_kernel",
         "const int b = 2, n = 70;\n"
         "for (int mode = 0; mode < 4; mode++)\n"
         "    for (int m : {5, 600, 1100}) {\n"
         "        emu::buf<float> x(b * n * 2), x2(b * m * 2);\n"
         "        pts(x, mode, 31 + m); pts(x2, mode, 32 + m);\n"
         "        emu::buf<float> od(b * n), cd(b * n);\n"
         "        emu::buf<int> oi(b * n), ci(b * n);\n"
         "        od.set(-1.0f); cd.set(-1.0f); oi.set(-1); ci.set(-1);\n"
         "        emu::launch(dim3(2), dim3(64), 0, [&] { orig::chamfer_distance_forward_cuda_kernel<float>(b, n, x, m, x2, od, oi); });\n"
         "        emu::launch(dim3(2), dim3(64), 0, [&] { cand::chamfer_distance_forward_cuda_kernel<float>(b, n, x, m, x2, cd, ci); });\n"
         "        if (!emu::expect(\"chamfer dist\", od, cd) | !emu::expect(\"chamfer idx\", oi, ci))\n"
         "            printf(\"  (mode %d, m %d)\\n\", mode, m);\n"
         "    }\n"},
        /* session 41: its sample loop (`i <= pool_size`, `x += x_stride`, `val = ...`); the
         * boxes never NaN (mmcv's bilinear_interpolate would index with (int)NaN), the features
         * NaN in mode 3; pool_size 0 (no sample after the first) to 9 */
        {"mmcv_border_align_fwd", "border_align_forward_cuda_kernel",
         "const int C = 3, H = 7, W = 7, bs = H * W, nt = C * bs;\n"
         "for (int mode = 0; mode < 4; mode++)\n"
         "    for (int pool : {0, 1, 2, 3, 4, 5, 7, 9}) {\n"
         "        emu::buf<float> in(4 * C * H * W), bx(bs * 4);\n"
         "        pts(in, mode, 51 + pool); pts(bx, mode == 3 ? 1 : mode, 52 + pool);\n"
         "        for (int i = 0; i < bs * 4; i++) bx[i] = mode == 0 ? (bx[i] + 10.0f) * 0.35f : bx[i] * 1.5f;\n"
         "        emu::buf<float> oo(nt * 4), co(nt * 4);\n"
         "        emu::buf<int> oa(nt * 4), ca(nt * 4);\n"
         "        oo.set(-1.0f); co.set(-1.0f); oa.set(-1); ca.set(-1);\n"
         "        emu::launch(dim3((nt + 127) / 128), dim3(128, 4), 0, [&] { orig::border_align_forward_cuda_kernel<float>(nt, in, bx, oo, oa, C, bs, H, W, pool); });\n"
         "        emu::launch(dim3((nt + 127) / 128), dim3(128, 4), 0, [&] { cand::border_align_forward_cuda_kernel<float>(nt, in, bx, co, ca, C, bs, H, W, pool); });\n"
         "        if (!emu::expect(\"border_align out\", oo, co) | !emu::expect(\"border_align argmax\", oa, ca))\n"
         "            printf(\"  (mode %d, pool %d)\\n\", mode, pool);\n"
         "    }\n"},
    };
    char *wild_src[HK_ARRAY_LEN(wild)] = {0}, *wild_cand[HK_ARRAY_LEN(wild)] = {0};
    char *border_late = NULL;
    for (size_t i = 0; i < HK_ARRAY_LEN(wild); i++) {
        if (!(wild_src[i] = rwf_wild_text(wild[i].id, NULL)))
            continue;
        char *cand = jammed(wild_src[i], wild[i].kernel, 4);
        if (!strcmp(wild[i].id, "mmcv_chamfer_distance_fwd"))
            assert_non_null(strstr(cand, "hk_uj3_x2 = buf[(k + hk_uj_k3) * 2] - x1;"));
        if (!strcmp(wild[i].id, "mmcv_border_align_fwd"))
            has(cand, "decltype(val) hk_uj3_val = bilinear_interpolate(offset_input, height, width, y, x, index);");
        /* the header's include guard, defined by the original's copy, would hide the
         * rewrite's: opened unconditionally there */
        wild_cand[i] = emu_replaced(cand, "#ifndef ", "#if 1 // ");
        free(cand);
        if (!strcmp(wild[i].id, "mmcv_border_align_fwd")) {
            /* and its helpers' guard (the pytorch shim's, not the TRT branch's), which the
             * original's copy defined too */
            cand = wild_cand[i];
            wild_cand[i] = emu_replaced(cand, "#include <float.h>\n#ifndef COMMON_CUDA_HELPER",
                                        "#include <float.h>\n#if 1 // COMMON_CUDA_HELPER");
            free(cand);
        }
        emu_batch_add_pair(&batch, wild[i].id, wild_src[i], wild_cand[i], helpers_common, wild[i].driver, EMU_OK);
        if (!strcmp(wild[i].id, "mmcv_border_align_fwd")) {
            /* broken: the second sample of each four at the first one's coordinate */
            border_late = emu_replaced(wild_cand[i],
                                       "            x += x_stride;\n            y += y_stride;\n"
                                       "            decltype(val) hk_uj1_val = bilinear_interpolate(offset_input, height, "
                                       "width, y, x, index);\n",
                                       "            decltype(val) hk_uj1_val = bilinear_interpolate(offset_input, height, "
                                       "width, y, x, index);\n"
                                       "            x += x_stride;\n            y += y_stride;\n");
            emu_batch_add_pair(&batch, "mmcv_border_align_fwd_broken_late", wild_src[i], border_late,
                               helpers_common, wild[i].driver, EMU_DIFFERS);
        }
    }
    /* the same three stacked on uniform_tiles (the search's "A + B", search.c stack_on): the
     * jam of the full tile's loop, whose values read the registers the tile filled. Item
     * counts of no full tile, one exactly, and full tiles with a partial one after them;
     * every thread order of the block emulator (the tile's barriers) */
    static const struct {
        const char *id, *kernel, *driver;
    } stacked[] = {
        {"mmcv_three_nn_fwd", "three_nn_forward_cuda_kernel",
         "const int b = 2, n = 70;\n"
         "for (int mode = 0; mode < 4; mode++)\n"
         "    for (int m : {41, 256, 600}) {\n"
         "        emu::schedule = (mode + m) % 3;\n"
         "        emu::buf<float> u(b * n * 3), k(b * m * 3);\n"
         "        pts(u, mode, 21 + m); pts(k, mode, 22 + m);\n"
         "        emu::buf<float> od(b * n * 3), cd(b * n * 3);\n"
         "        emu::buf<int> oi(b * n * 3), ci(b * n * 3);\n"
         "        od.set(-1.0f); cd.set(-1.0f); oi.set(-1); ci.set(-1);\n"
         "        emu::launch(dim3(2, b), dim3(64), 0, [&] { orig::three_nn_forward_cuda_kernel<float>(b, n, m, u, k, od, oi); });\n"
         "        emu::launch(dim3(2, b), dim3(64), 0, [&] { cand::three_nn_forward_cuda_kernel<float>(b, n, m, u, k, cd, ci); });\n"
         "        if (!emu::expect(\"three_nn dist\", od, cd) | !emu::expect(\"three_nn idx\", oi, ci))\n"
         "            printf(\"  (mode %d, m %d)\\n\", mode, m);\n"
         "    }\n"},
        {"mmcv_knn_fwd", "knn_forward_cuda_kernel",
         "const int b = 2, m = 70;\n"
         "for (int mode = 0; mode < 4; mode++)\n"
         "    for (int ns : {1, 5})\n"
         "        for (int n : {41, 256, 600}) {\n"
         "            emu::schedule = (mode + n + ns) % 3;\n"
         "            emu::buf<float> xyz(b * n * 3), nx(b * m * 3);\n"
         "            pts(xyz, mode, 23 + n); pts(nx, mode, 24 + n);\n"
         "            emu::buf<float> od(b * m * ns), cd(b * m * ns);\n"
         "            emu::buf<int> oi(b * m * ns), ci(b * m * ns);\n"
         "            od.set(-1.0f); cd.set(-1.0f); oi.set(-1); ci.set(-1);\n"
         "            emu::launch(dim3(2, b), dim3(64), 0, [&] { orig::knn_forward_cuda_kernel<float>(b, n, m, ns, xyz, nx, oi, od); });\n"
         "            emu::launch(dim3(2, b), dim3(64), 0, [&] { cand::knn_forward_cuda_kernel<float>(b, n, m, ns, xyz, nx, ci, cd); });\n"
         "            if (!emu::expect(\"knn dist\", od, cd) | !emu::expect(\"knn idx\", oi, ci))\n"
         "                printf(\"  (mode %d, nsample %d, n %d)\\n\", mode, ns, n);\n"
         "        }\n"},
        {"mmcv_ball_query_fwd", "ball_query_forward_cuda_kernel",
         "const int b = 2, m = 70;\n"
         "for (int mode = 0; mode < 4; mode++)\n"
         "    for (float rmax : {0.5f, 1.5f, 1e6f})\n"
         "        for (int ns : {1, 6, 300})\n"
         "            for (int n : {41, 256, 600}) {\n"
         "                emu::schedule = (mode + n + ns) % 3;\n"
         "                emu::buf<float> nx(b * m * 3), xyz(b * n * 3);\n"
         "                pts(nx, mode, 25 + n); pts(xyz, mode, 26 + n);\n"
         "                emu::buf<int> o(b * m * ns), c(b * m * ns);\n"
         "                o.set(0); c.set(0);\n"
         "                emu::launch(dim3(2, b), dim3(64), 0, [&] { orig::ball_query_forward_cuda_kernel<float>(b, n, m, 0.0f, rmax, ns, nx, xyz, o); });\n"
         "                emu::launch(dim3(2, b), dim3(64), 0, [&] { cand::ball_query_forward_cuda_kernel<float>(b, n, m, 0.0f, rmax, ns, nx, xyz, c); });\n"
         "                if (!emu::expect(\"ball_query idx\", o, c))\n"
         "                    printf(\"  (mode %d, rmax %g, nsample %d, n %d)\\n\", mode, rmax, ns, n);\n"
         "            }\n"},
    };
    /* this test's three searches stacked likewise (the wild sources may not be extracted),
     * with item counts of no, one and two full tiles of 256 */
    char *stacked_helpers = emu_replaced(helpers, "{1, 2, 3, 4, 5, 7, 8, 9, 15, 17, 40}", "{5, 256, 600}");
    char *own_stacked[3] = {0};
    for (size_t i = 0; i < 3; i++) {
        char *tiles = emu_rewrite(kernels, names[i], "uniform_tiles", NULL);
        own_stacked[i] = emu_rewrite(tiles, names[i], "unroll_jam_scan", NULL);
        free(tiles);
        assert_non_null(strstr(own_stacked[i], "= hk_r0[hk_uj_k3];"));
        /* the tile's literal bound: no pair loop, whose run-time index would put hk_r0 in
         * local memory */
        assert_null(strstr(own_stacked[i], "hk_uj >= 2; hk_uj += 2"));
        char tag[64];
        snprintf(tag, sizeof tag, "stacked_%s", names[i]);
        emu_batch_add_pair(&batch, tag, kernels, own_stacked[i], stacked_helpers, drivers[i], EMU_OK);
    }
    /* the full tiles are reached: a jam there that skips an item differs */
    char *own_broken = emu_replaced(own_stacked[0], "hk_uj_k1 = hk_uj + 1;", "hk_uj_k1 = hk_uj + 2;");
    emu_batch_add_pair(&batch, "stacked_nearest3_broken", kernels, own_broken, stacked_helpers, drivers[0],
                       EMU_DIFFERS);
    char *stacked_cand[HK_ARRAY_LEN(wild)] = {0}, *stacked_broken = NULL;
    for (size_t i = 0; i < HK_ARRAY_LEN(stacked); i++) {
        if (!wild_src[i])
            continue;
        char *tiles = emu_rewrite(wild_src[i], stacked[i].kernel, "uniform_tiles", NULL);
        char *both = emu_rewrite(tiles, stacked[i].kernel, "unroll_jam_scan", NULL);
        /* the full tile's loop is the one jammed: its values read the tile's registers */
        assert_non_null(strstr(both, "= hk_r0[hk_uj_k3];"));
        assert_non_null(strstr(both, "#pragma unroll\n"));
        stacked_cand[i] = emu_replaced(both, "#ifndef ", "#if 1 // ");
        free(both);
        free(tiles);
        char tag[80];
        snprintf(tag, sizeof tag, "stacked_%s", stacked[i].id);
        emu_batch_add_pair(&batch, tag, wild_src[i], stacked_cand[i], helpers_common, stacked[i].driver, EMU_OK);
        /* and the full tiles are reached: a jam that skips an item there differs */
        if (!stacked_broken) {
            stacked_broken = emu_replaced(stacked_cand[i], "hk_uj_k1 = hk_uj + 1;", "hk_uj_k1 = hk_uj + 2;");
            snprintf(tag, sizeof tag, "stacked_%s_broken", stacked[i].id);
            emu_batch_add_pair(&batch, tag, wild_src[i], stacked_broken, helpers_common, stacked[i].driver,
                               EMU_DIFFERS);
        }
    }
    /* broken: item 1 of each jam is item 2 again (one item never seen) */
    char *skip = emu_replaced(cands[0], "hk_uj_k1 = hk_uj + 1;", "hk_uj_k1 = hk_uj + 2;");
    emu_batch_add_pair(&batch, "scan_broken_skip", kernels, skip, helpers, drivers[0], EMU_DIFFERS);
    /* broken: the break ends the jammed loop but not the scan (the remainder runs on) */
    char *nostop = emu_replaced(cands[2 * 3], "if (!hk_uj_stop)", "if (true)");
    emu_batch_add_pair(&batch, "scan_broken_stop", kernels, nostop, helpers, drivers[2], EMU_DIFFERS);
    /* broken: the pairs jammed after the main loop (session 40) run on after a break */
    char *pairstop = emu_replaced(cands[2 * 3 + 2], "for (; !hk_uj_stop && ", "for (; ");
    emu_batch_add_pair(&batch, "scan_broken_pair_stop", kernels, pairstop, helpers, drivers[2], EMU_DIFFERS);
    /* a reader function's value (session 40), at U = 2 and 4; broken: the second sample reads
     * the first one's position */
    char *rd2 = jammed(reader_src, "sample_max", 2), *rd4 = jammed(reader_src, "sample_max", 4);
    assert_non_null(strstr(rd4, "float hk_uj3_v = lerp_at(row, w, hk_uj3_x);"));
    emu_batch_add_pair(&batch, "scan_reader_u2", reader_src, rd2, helpers_common, reader_driver, EMU_OK);
    emu_batch_add_pair(&batch, "scan_reader_u4", reader_src, rd4, helpers_common, reader_driver, EMU_OK);
    char *rd_broken = emu_replaced(rd2, "float hk_uj1_v = lerp_at(row, w, hk_uj1_x);",
                                   "float hk_uj1_v = lerp_at(row, w, hk_uj0_x);");
    emu_batch_add_pair(&batch, "scan_reader_broken", reader_src, rd_broken, helpers_common, reader_driver,
                       EMU_DIFFERS);
    /* session 41: recurrences, inclusive and downward bounds, assigned values (with a break in
     * first_hit), at U = 2, 4 and 8; broken: the second sample computed at the first one's
     * coordinate (its steps after its value), the coordinate computed as start + k * stride
     * (rounded otherwise), the second item's update given the first item's flag */
    char *rec[3];
    for (size_t l = 0; l < 3; l++) {
        rec[l] = jammed_all(rec_src, rec_names, HK_ARRAY_LEN(rec_names), us[l]);
        char tag[32];
        snprintf(tag, sizeof tag, "scan_rec_u%d", us[l]);
        emu_batch_add_pair(&batch, tag, rec_src, rec[l], helpers_common, rec_driver, EMU_OK);
    }
    char *rec_late = emu_replaced(rec[1],
                                  "            x += xs;\n            y += ys;\n"
                                  "            decltype(val) hk_uj1_val = lerp2(img, h, w, y, x);\n",
                                  "            decltype(val) hk_uj1_val = lerp2(img, h, w, y, x);\n"
                                  "            x += xs;\n            y += ys;\n");
    emu_batch_add_pair(&batch, "scan_rec_broken_late", rec_src, rec_late, helpers_common, rec_driver, EMU_DIFFERS);
    char *rec_mul = emu_replaced(rec[0], "            x += xs;\n            y += ys;\n            decltype(val) hk_uj2_val",
                                 "            x = b[0] + hk_uj_k2 * xs;\n            y = b[1] + hk_uj_k2 * ys;\n"
                                 "            decltype(val) hk_uj2_val");
    emu_batch_add_pair(&batch, "scan_rec_broken_mul", rec_src, rec_mul, helpers_common, rec_driver, EMU_DIFFERS);
    /* broken: the second item's update sees the first item's flag */
    char *rec_flag = emu_replaced(rec[1], "hit = hk_uj1_hit;", "hit = hk_uj0_hit;");
    emu_batch_add_pair(&batch, "scan_rec_broken_flag", rec_src, rec_flag, helpers_common, rec_driver, EMU_DIFFERS);
    emu_batch_run(&batch);
    free(rec_flag);
    for (size_t l = 0; l < 3; l++)
        free(rec[l]);
    free(rec_late);
    free(border_late);
    free(rec_mul);
    free(rd2);
    free(rd4);
    free(rd_broken);
    free(pairstop);
    free(skip);
    free(nostop);
    free(capped4);
    free(capped8);
    for (size_t i = 0; i < HK_ARRAY_LEN(wild_src); i++) {
        free(wild_src[i]);
        free(wild_cand[i]);
        free(stacked_cand[i]);
    }
    free(stacked_broken);
    free(stacked_helpers);
    free(own_broken);
    for (size_t i = 0; i < 3; i++)
        free(own_stacked[i]);
    for (size_t i = 0; i < HK_ARRAY_LEN(cands); i++)
        free(cands[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emits_and_compiles),
        cmocka_unit_test(refusals),
        cmocka_unit_test(recurrences_emitted),
        cmocka_unit_test(emulated),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
