#!/usr/bin/env python3
"""Paper model of a stepped window (one output per thread, the max of pool + 1 bilinear samples
along one border of a box, the sample point stepped by x += x_stride, y += y_stride): what one
warp's loads touch as written and under window_lanes' stepped form at G lanes per output. Issue
13, session 44 (bench/results/2026-12-07-stepped-cpu-s44.md). Our own model, no kernel code:
the geometry of bench/wild/specs/mmcv_border_align_fwd.bench.json (B=2, C=256, 100x100 planes,
one box per position with corners uniform(0, W), pool_size 10, block (128, 4): a warp is 32
consecutive indices, i.e. 32 consecutive boxes of one plane, at one border = threadIdx.y).

Per output it counts load instructions (warp loads / outputs per warp) and 128-byte-line
wavefronts (the distinct lines one warp load touches, summed over the warp's loads: what the
L1 processes). The four taps of a sample are four loads, (y_low, x_low), (y_low, x_high),
(y_high, x_low), (y_high, x_high), after mmcv's clamping. Mappings:
  as written   32 outputs per warp, 11 samples each, one per load
  lanes G      32/G outputs per warp; the start sample by every lane (G lanes, one address);
               rounds of G trips, lane j taking trip r*G + j (fewer active in the last round)
Positions are float32, stepped sequentially as the kernel does.
Usage: python3 bench/wild/stepped_model.py [warps sampled per border, default 2000]"""
import math
import random
import struct
import sys

H = W = 100
POOL = 10
LINE = 128
random.seed(7)


def f32(v):
    return struct.unpack('f', struct.pack('f', v))[0]


def taps(y, x):
    """mmcv's bilinear_interpolate: the four addresses (element offsets) it loads, or []."""
    if y < -1.0 or y > H or x < -1.0 or x > W:
        return []
    y = max(y, 0.0)
    x = max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= H - 1:
        yl = yh = H - 1
    else:
        yh = yl + 1
    if xl >= W - 1:
        xl = xh = W - 1
    else:
        xh = xl + 1
    return [yl * W + xl, yl * W + xh, yh * W + xl, yh * W + xh]


def samples(box, border):
    """The pool + 1 sample points of one border, stepped in float32 as the kernel does."""
    x1, y1, x2, y2 = box
    bw, bh = f32(x2 - x1), f32(y2 - y1)
    x, y = (x1, y1) if border < 2 else (x2, y2)
    if border == 0:
        xs, ys = f32(bw / POOL), 0.0
    elif border == 1:
        xs, ys = 0.0, f32(bh / POOL)
    elif border == 2:
        xs, ys = -f32(bw / POOL), 0.0
    else:
        xs, ys = 0.0, -f32(bh / POOL)
    pts = [(y, x)]
    for _ in range(POOL):
        x, y = f32(x + xs), f32(y + ys)
        pts.append((y, x))
    return pts


def lines(addrs):
    return len({a * 4 // LINE for a in addrs})


def warp_as_written(pts32):
    loads = wf = 0
    for s in range(POOL + 1):
        for t in range(4):
            a = [tp[t] for tp in (taps(*p[s]) for p in pts32) if tp]
            loads += 1
            wf += lines(a)
    return loads, wf, 32


def warp_lanes(pts32, G):
    outs = pts32[:32 // G]
    loads = wf = 0
    for t in range(4):   # the start sample, every lane of an output at the same address
        a = [tp[t] for tp in (taps(*p[0]) for p in outs) if tp]
        loads += 1
        wf += lines(a)
    for r in range(math.ceil(POOL / G)):
        for t in range(4):
            a = []
            for p in outs:
                for j in range(G):
                    k = r * G + j
                    if k < POOL:
                        tp = taps(*p[k + 1])
                        if tp:
                            a.append(tp[t])
            loads += 1
            wf += lines(a)
    return loads, wf, len(outs)


def main():
    nw = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rows = {}
    for border in range(4):
        for _ in range(nw):
            boxes = [[random.uniform(0, W) for _ in range(4)] for _ in range(32)]
            pts = [samples(b, border) for b in boxes]
            for name, fn in [("as written", warp_as_written)] + [
                    ("lanes %d" % G, (lambda G: lambda p: warp_lanes(p, G))(G)) for G in (2, 4, 8, 16)]:
                l, w, o = fn(pts)
                key = (name, 'all')
                tot = rows.setdefault(key, [0, 0, 0])
                for r in (tot, rows.setdefault((name, 'horizontal' if border % 2 == 0 else 'vertical'), [0, 0, 0])):
                    r[0] += l
                    r[1] += w
                    r[2] += o
    print("| mapping | borders | load instructions / output | L1 line wavefronts / output | lines / load |")
    print("|---|---|---|---|---|")
    for name in ["as written"] + ["lanes %d" % G for G in (2, 4, 8, 16)]:
        for which in ("horizontal", "vertical", "all"):
            l, w, o = rows[(name, which)]
            print("| %s | %s | %.3f | %.1f | %.1f |" % (name, which, l / o, w / o, w / l))


if __name__ == "__main__":
    main()
