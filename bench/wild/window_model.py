#!/usr/bin/env python3
"""Paper model of a windowed gather (one output per thread, a max over a data-dependent 2-D
bin of a NCHW map): what one warp does under four thread-to-work mappings. Issue 13, session 36
(bench/results/2026-12-06-roi-cpu-s36.md). Our own model, no kernel code: the bins are the
RoIPool arithmetic (7x7 bins of a box, floor/ceil, clipped to the map) on the sizes and data of
bench/wild/specs/mmcv_roi_pool_fwd.bench.json (N=2, C=256, H=W=64, K=2048 boxes from
uniform(0,1), spatial_scale = W, block 512).

Per warp of 32 threads it counts: load iterations (the warp's trips), 128-byte-line wavefronts
(distinct lines one warp load touches, summed over the trips: what the L1 processes), useful
elements, and lanes busy (useful / (32 x trips)). Mappings:
  pw innermost   the kernel as written (output index n, c, ph, pw, pw fastest)
  c innermost    digit_order with the channel as the innermost digit: the warp's 32 outputs
                 share one bin (uniform trips), each lane in its own channel plane
  lanes G        window_lanes: 32/G outputs per warp, G lanes each (k = lane, lane + G, ...)
  warp-flattened the 32 outputs' windows concatenated and read by the 32 lanes in turn
                 (k = lane, lane + 32, ...), the rewrite this record proposes
Usage: python3 bench/wild/window_model.py [warps sampled, default 3000]"""
import math
import random
import sys

N, C, H, W, K, P = 2, 256, 64, 64, 2048, 7
SCALE = float(W)
LINE = 128
random.seed(1)
BOXES = [[random.random() for _ in range(5)] for _ in range(K)]


def bin_of(n, ph, pw):
    """The bin [y0, y1) x [x0, x1) of output (n, ., ph, pw), or None for a malformed box."""
    r = BOXES[n]
    x1, y1 = r[1] * SCALE, r[2] * SCALE
    x2, y2 = (r[3] + 1) * SCALE, (r[4] + 1) * SCALE
    if x2 - x1 <= 0 or y2 - y1 <= 0:
        return None
    bw, bh = (x2 - x1) / P, (y2 - y1) / P
    clip = lambda v, hi: min(max(v, 0), hi)
    return (clip(math.floor(ph * bh + y1), H), clip(math.ceil((ph + 1) * bh + y1), H),
            clip(math.floor(pw * bw + x1), W), clip(math.ceil((pw + 1) * bw + x1), W))


def elements(n, c, ph, pw):
    """Element offsets (floats) of the output's window, in scan order (row-major)."""
    b = bin_of(n, ph, pw)
    if not b:
        return []
    base = c * H * W   # every box reads image 0 (the spec's data)
    return [base + h * W + w for h in range(b[0], b[1]) for w in range(b[2], b[3])]


def decode(order, idx):
    d = {}
    for name, extent in order:
        if extent is None:
            d[name] = idx
        else:
            d[name], idx = idx % extent, idx // extent
    return d


ORIG = [('pw', P), ('ph', P), ('c', C), ('n', None)]
CIN = [('c', C), ('pw', P), ('ph', P), ('n', None)]
NOUT = K * C * P * P


def window_of(order, i):
    d = decode(order, i)
    return elements(d['n'], d['c'], d['ph'], d['pw'])


def warp(streams):
    """streams: per lane, the offsets it reads in order. (trips, wavefronts, useful)."""
    trips = max((len(s) for s in streams), default=0)
    waves = useful = 0
    for t in range(trips):
        addrs = [s[t] for s in streams if t < len(s)]
        useful += len(addrs)
        waves += len({a * 4 // LINE for a in addrs})
    return trips, waves, useful


def one_per_thread(order, w0):
    return warp([window_of(order, w0 + l) for l in range(32)])


def lanes(G, w0):
    streams = []
    for o in range(32 // G):
        e = window_of(ORIG, w0 + o)
        streams += [e[l::G] for l in range(G)]
    return warp(streams)


def flattened(w0):
    e = [a for o in range(32) for a in window_of(ORIG, w0 + o)]
    return warp([e[l::32] for l in range(32)])


def main():
    nw = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    rows = [('pw innermost (as written)', lambda w: one_per_thread(ORIG, w), 32),
            ('c innermost (digit_order)', lambda w: one_per_thread(CIN, w), 32),
            ('window_lanes G=8', lambda w: lanes(8, w), 4),
            ('warp-flattened', flattened, 32)]
    print('| mapping | trips per 32 outputs | wavefronts per 32 outputs | useful elements per 32 outputs | lanes busy | wavefronts per element |')
    print('|---|---|---|---|---|---|')
    for name, f, per_warp in rows:
        t = v = u = 0
        for _ in range(nw):
            w0 = random.randrange(NOUT // per_warp) * per_warp
            a, b, c = f(w0)
            t, v, u = t + a, v + b, u + c
        scale = 32 / per_warp / nw
        print(f'| {name} | {t * scale:.1f} | {v * scale:.1f} | {u * scale:.1f} | {u / (32 * t):.0%} | {v / u:.3f} |')


if __name__ == '__main__':
    main()
