#!/usr/bin/env python3
# channel_lanes' paper model (session 43, W17A; our own code, no kernel text): mmcv roi_pool and prroi_pool
# under their wild specs (uniform(0,1) rois, 7x7 bins, 256 channels, a 64x64 map). Per 32 outputs:
# the warp trips of the window loop (the widest lane's) and the 128-byte L1 lines a warp load touches,
# summed over the trips, for the kernel's order (pw innermost) and for channel_lanes (c innermost).
# Pure Python, about 30 s: python3 bench/wild/lanes_model.py
# Paper model of the ROI family's warps under the wild specs (bench/wild/specs), pure Python.
import math, random
random.seed(1)
PH = PW = 7; H = W = 64; C = 256; K = 2048

def roi_pool_bins(r):
    x1 = r[1] * W; y1 = r[2] * W; x2 = (r[3] + 1) * W; y2 = (r[4] + 1) * W
    rw, rh = x2 - x1, y2 - y1
    out = []
    for ph in range(PH):
        for pw in range(PW):
            if rw <= 0 or rh <= 0: out.append(0); continue
            bw, bh = rw / PW, rh / PH
            bx1 = min(max(math.floor(pw * bw + x1), 0), W); bx2 = min(max(math.ceil((pw + 1) * bw + x1), 0), W)
            by1 = min(max(math.floor(ph * bh + y1), 0), H); by2 = min(max(math.ceil((ph + 1) * bh + y1), 0), H)
            out.append(max(bx2 - bx1, 0) * max(by2 - by1, 0))
    return out

def prroi_bins(r):
    x1 = r[1] * W; y1 = r[2] * W; x2 = r[3] * W; y2 = r[4] * W
    rw, rh = max(x2 - x1, 0), max(y2 - y1, 0)
    bw, bh = rw / PW, rh / PH
    out = []
    for ph in range(PH):
        for pw in range(PW):
            if bw * bh == 0: out.append(0); continue
            bx1 = x1 + bw * pw; by1 = y1 + bh * ph
            out.append((math.ceil(bx1 + bw) - math.floor(bx1)) * (math.ceil(by1 + bh) - math.floor(by1)))
    return out

def model(name, binfn, nroi=256):
    rois = [[0] + [random.random() for _ in range(4)] for _ in range(nroi)]
    trips = []  # per output in index order (n, c, ph, pw) for C channels -- c does not change trips
    per_roi = [binfn(r) for r in rois]
    # original: warps of 32 consecutive indices over (n, c, ph, pw), pw fastest
    tot_orig = busy = 0
    idx_trips = lambda i: per_roi[i // (C * 49)][i % 49]
    n = nroi * C * 49
    for w0 in range(0, n, 32):
        t = [idx_trips(i) for i in range(w0, min(w0 + 32, n))]
        tot_orig += max(t); busy += sum(t)
    # channel_lanes: C = 256 = 8 warps per bin, every lane the bin's trips
    tot_lanes = sum(8 * t for roi in per_roi for t in roi)
    empty = sum(1 for roi in per_roi for t in roi if t == 0) / (49 * nroi)
    print(f"{name}: empty bins {empty:.0%}, mean trips per non-empty bin "
          f"{sum(t for roi in per_roi for t in roi) / max(1, sum(1 for roi in per_roi for t in roi if t)):.1f}; "
          f"warp-trips per 32 outputs: original {32 * tot_orig / n:.1f} (lanes busy {busy / (tot_orig * 32):.0%}), "
          f"channel_lanes {32 * tot_lanes / n:.1f} (100%): {tot_orig / tot_lanes:.2f}x fewer")

model("roi_pool", roi_pool_bins)
model("prroi_pool", prroi_bins)

# L1 wavefronts: distinct 128-byte lines per warp load instruction (one line = 32 floats of a
# row), summed over a warp's trips, per 32 outputs; the scan order is the kernel's (rows of
# the bin, then columns; prroi: the 4 corners of each cell, as 4 loads).
def windows_roi_pool(r):
    x1 = r[1] * W; y1 = r[2] * W; x2 = (r[3] + 1) * W; y2 = (r[4] + 1) * W
    rw, rh = x2 - x1, y2 - y1
    out = []
    for ph in range(PH):
        for pw in range(PW):
            bw, bh = rw / PW, rh / PH
            bx1 = min(max(math.floor(pw * bw + x1), 0), W); bx2 = min(max(math.ceil((pw + 1) * bw + x1), 0), W)
            by1 = min(max(math.floor(ph * bh + y1), 0), H); by2 = min(max(math.ceil((ph + 1) * bh + y1), 0), H)
            els = [(h, w) for h in range(by1, by2) for w in range(bx1, bx2)]
            out.append([[(h * W + w) // 32] for h, w in els])  # per trip: the lines of its loads
    return out

def windows_prroi(r):
    x1 = r[1] * W; y1 = r[2] * W; x2 = r[3] * W; y2 = r[4] * W
    rw, rh = max(x2 - x1, 0), max(y2 - y1, 0)
    bw, bh = rw / PW, rh / PH
    out = []
    for ph in range(PH):
        for pw in range(PW):
            if bw * bh == 0: out.append([]); continue
            bx1 = x1 + bw * pw; by1 = y1 + bh * ph
            cells = [(yy, xx) for xx in range(math.floor(bx1), math.ceil(bx1 + bw)) for yy in range(math.floor(by1), math.ceil(by1 + bh))]
            tr = []
            for (yy, xx) in cells:
                ls = []
                for (h, w) in ((yy, xx), (yy, xx + 1), (yy + 1, xx), (yy + 1, xx + 1)):
                    ls.append((h * W + w) // 32 if 0 <= h < H and 0 <= w < W else None)
                tr.append(ls)
            out.append(tr)
    return out

def wavefronts(name, winfn, nroi=96):
    rois = [[0] + [random.random() for _ in range(4)] for _ in range(nroi)]
    per_roi = [winfn(r) for r in rois]
    n = nroi * C * 49
    orig = 0
    for w0 in range(0, n, 32):
        lanes = []
        for i in range(w0, min(w0 + 32, n)):
            c = (i // 49) % C
            lanes.append((c, per_roi[i // (C * 49)][i % 49]))
        T = max(len(t) for _, t in lanes)
        for k in range(T):
            for j in range(max((len(t[0]) for _, t in lanes if t), default=1)):
                s = set()
                for c, t in lanes:
                    if k < len(t) and t[k][j] is not None:
                        s.add((c, t[k][j]))
                orig += len(s)
    new = 0
    for roi in per_roi:
        for t in roi:
            for trip in t:
                new += 8 * sum(32 for l in trip if l is not None)  # 32 planes per load, 8 warps per bin
    print(f"{name}: L1 wavefronts per 32 outputs: original {32 * orig / n:.0f}, channel_lanes {32 * new / n:.0f} "
          f"({new / max(orig, 1):.2f}x)")

wavefronts("roi_pool", windows_roi_pool)
wavefronts("prroi_pool", windows_prroi)
