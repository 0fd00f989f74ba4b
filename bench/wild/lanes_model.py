#!/usr/bin/env python3
# channel_lanes' paper model (session 43, W17A; our own code, no kernel text): mmcv's roi_pool and
# prroi_pool under their wild specs (rois uniform(0,1), 7x7 bins, 256 channels, a 64x64 map,
# spatial_scale 64). For a digit order of the flat index (innermost first) it walks the warps of
# 32 consecutive trips and counts, per 32 outputs: the warp trips of the window loop (its widest
# lane), the lanes busy, and the 128-byte L1 lines each warp load touches (one wavefront per line
# and channel plane), summed over the trips. Orders: as written (pw, ph, c, n), channel_lanes
# position 2 (pw, c, ph, n) and position 1 (c, pw, ph, n). Pure Python, a few minutes:
#   python3 bench/wild/lanes_model.py [ROIS]
import math, random, sys

PH = PW = 7
H = W = 64
C = 256


def roi_pool_windows(r):
    """Per bin: its trips, each the list of 128-byte lines of its loads (one load: the pixel)."""
    x1, y1 = r[0] * W, r[1] * W
    x2, y2 = (r[2] + 1) * W, (r[3] + 1) * W   # roi_pool adds 1 before scaling
    bw, bh = (x2 - x1) / PW, (y2 - y1) / PH
    out = []
    for ph in range(PH):
        for pw in range(PW):
            xa = min(max(math.floor(pw * bw + x1), 0), W)
            xb = min(max(math.ceil((pw + 1) * bw + x1), 0), W)
            ya = min(max(math.floor(ph * bh + y1), 0), H)
            yb = min(max(math.ceil((ph + 1) * bh + y1), 0), H)
            out.append([[(h * W + w) // 32] for h in range(ya, yb) for w in range(xa, xb)])
    return out


def prroi_windows(r):
    """Per bin: its cells, each the lines of its 4 corner loads (None: outside the map)."""
    x1, y1, x2, y2 = (v * W for v in r)
    bw, bh = max(x2 - x1, 0) / PW, max(y2 - y1, 0) / PH
    out = []
    for ph in range(PH):
        for pw in range(PW):
            if bw * bh == 0:
                out.append([])
                continue
            bx, by = x1 + bw * pw, y1 + bh * ph
            cells = []
            for xx in range(math.floor(bx), math.ceil(bx + bw)):
                for yy in range(math.floor(by), math.ceil(by + bh)):
                    cells.append([(h * W + w) // 32 if 0 <= h < H and 0 <= w < W else None
                                  for h, w in ((yy, xx), (yy, xx + 1), (yy + 1, xx), (yy + 1, xx + 1))])
            out.append(cells)
    return out


def model(name, windows, order, nroi, seed):
    rnd = random.Random(seed)
    rois = [[rnd.random() for _ in range(4)] for _ in range(nroi)]
    per = [windows(r) for r in rois]
    ext = {"pw": PW, "ph": PH, "c": C, "n": nroi}
    n = nroi * C * PH * PW
    trips = busy = wf = 0
    for w0 in range(0, n, 32):
        lanes = []
        for t in range(w0, min(w0 + 32, n)):
            d = {}
            for k in order:
                d[k] = t % ext[k]
                t //= ext[k]
            lanes.append((d["c"], per[d["n"]][d["ph"] * PW + d["pw"]]))
        T = max(len(x) for _, x in lanes)
        trips += T
        busy += sum(len(x) for _, x in lanes)
        loads = max((len(x[0]) for _, x in lanes if x), default=0)
        for k in range(T):
            for j in range(loads):
                wf += len({(c, x[k][j]) for c, x in lanes if k < len(x) and x[k][j] is not None})
    print(f"| {name} | {', '.join(order)} | {32 * trips / n:.1f} | {busy / max(trips * 32, 1):.0%} | {32 * wf / n:.0f} |")


if __name__ == "__main__":
    nroi = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    print(f"{nroi} rois per kernel, per 32 outputs:\n")
    print("| kernel | digit order (innermost first) | warp trips | lanes busy | 128-B L1 wavefronts |")
    print("|---|---|---|---|---|")
    for name, win in (("roi_pool", roi_pool_windows), ("prroi_pool", prroi_windows)):
        for order in (["pw", "ph", "c", "n"], ["pw", "c", "ph", "n"], ["c", "pw", "ph", "n"]):
            model(name, win, order, nroi, 7)
