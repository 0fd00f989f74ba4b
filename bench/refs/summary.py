#!/usr/bin/env python3
"""The issue-5 table of tests/gpu/run.sh: each kernel's episode beside its references.

  summary.py --episodes EPISODES.jsonl --refs REFS.jsonl [--probe PROBE.json]

EPISODES.jsonl: one object per kernel run, written by run.sh from `hkls optimize --json`
and the episode's report: kernel, status, baseline_ms, best_ms, speedup (verified; null
when there is no best), flagged, produced_by, credit (the episode info's "credit": skill,
explained), size (the size key the times are for), bottleneck, peaks (the report's device
peaks). REFS.jsonl: hk_refs's lines (bench/refs/hk_refs.cu). PROBE.json: hk_device_probe's
output, for the roofline ridge. Prints the table and the four issue-5 lines with their
targets; docs/gpu-testing.md says what each column means. Exit 0, or 2 on unreadable input.
"""
import json
import math
import sys

COPY = "cudaMemcpy D2D"


def load_lines(path):
    """The JSON objects of a file, one a line; a line that is not one is skipped."""
    out = []
    with open(path) as f:
        for line in f:
            i = line.find("{")
            if i < 0:
                continue
            try:
                d = json.loads(line[i:])
            except ValueError:
                continue
            if isinstance(d, dict):
                out.append(d)
    return out


def number(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) \
        and v > 0 else None


def fmt(v, f):
    return f % v if v is not None else "-"


def ridge_of(probe, peaks):
    """FLOP per byte where the FP32 roof meets the bandwidth roof (the engine's bandwidth
    peak is the larger of the copy kernel and cudaMemcpy, server/measure/device.c)."""
    for src in (probe, peaks):
        if not isinstance(src, dict):
            continue
        fp = number(src.get("fp32_tflops"))
        bw = max(number(src.get("copy_kernel_gbs")) or 0, number(src.get("memcpy_d2d_gbs")) or 0)
        if fp and bw:
            return fp * 1e12 / (bw * 1e9)
    return None


def credit_text(c):
    if not isinstance(c, dict) or not c.get("skill"):
        return "-"
    ex = c.get("explained")
    return "%s %s" % (c["skill"], "credited" if ex is True else
                      "unexplained" if ex is False else "(no evidence)")


def main(argv):
    args = {"--episodes": None, "--refs": None, "--probe": None}
    it = iter(argv)
    for a in it:
        if a not in args:
            sys.stderr.write("summary.py: unknown argument %s\n" % a)
            return 2
        args[a] = next(it, None)
    if not args["--episodes"] or not args["--refs"]:
        sys.stderr.write("usage: summary.py --episodes F --refs F [--probe F]\n")
        return 2
    try:
        eps = load_lines(args["--episodes"])
        refs = load_lines(args["--refs"])
    except OSError as e:
        sys.stderr.write("summary.py: %s\n" % e)
        return 2
    probe = None
    if args["--probe"]:
        try:
            pl = load_lines(args["--probe"])
            probe = pl[-1] if pl else None
        except OSError:
            probe = None

    by_kernel = {}
    for r in refs:
        by_kernel.setdefault(r.get("kernel"), []).append(r)

    rows, n, verified, speedups = [], 0, 0, []
    mem_total, mem_ok, mem_below, mem_unknown = 0, 0, [], []
    sgemm_line = None
    for e in eps:
        k = e.get("kernel") or "?"
        n += 1
        base, best = number(e.get("baseline_ms")), number(e.get("best_ms"))
        sp = number(e.get("speedup"))
        # the engine reports a best only once its speedup is verified (interleaved with the
        # baseline), also for an episode stopped by its time limit
        ok = best is not None and sp is not None and sp > 1.0
        if ok:
            verified += 1
        speedups.append(sp if ok else 1.0)
        ours = best if best is not None else base   # the version a user ends up with
        kr = by_kernel.get(k, [])
        copy = next((r for r in kr
                     if r.get("reference") == COPY and number(r.get("median_ms"))), None)
        libs = [r for r in kr if r.get("reference") != COPY]
        # "none" (hk_refs, torch_refs.py) only shows when nothing else measured the kernel
        real = [r for r in libs if r.get("reference") not in ("none", "torch: none")]
        libs = real or libs[:1]
        pct_copy = 100.0 * copy["median_ms"] / ours if copy and ours else None
        # the kernel's class from the spec's formulas against the device's ridge
        ridge = ridge_of(probe, e.get("peaks"))
        src = copy or next((r for r in kr if number(r.get("bytes"))), None)
        bytes_ = number(src.get("bytes")) if src else None
        flops = (src.get("flops") if src else None) or 0
        if bytes_ and ridge:
            memory_bound = (flops / bytes_) < ridge
        elif e.get("bottleneck") in ("memory-bound", "compute-bound"):
            memory_bound = e.get("bottleneck") == "memory-bound"
        else:
            memory_bound = None
        cls = {True: "mem", False: "comp", None: "?"}[memory_bound]
        if memory_bound:
            mem_total += 1
            if pct_copy is None:
                mem_unknown.append(k)
            elif pct_copy >= 85.0:
                mem_ok += 1
            else:
                mem_below.append("%s %.0f%%" % (k, pct_copy))
        first = True
        for lib in libs or [{"reference": "-"}]:
            rname = lib.get("reference", "-")
            rms = number(lib.get("median_ms"))
            if lib.get("error"):
                rname += " (error)"
            vs = rms / ours if rms and ours else None
            rows.append((k if first else "", fmt(base, "%.4f") if first else "",
                         fmt(best, "%.4f") if first else "",
                         fmt(sp if best else None, "%.2fx") if first else "",
                         credit_text(e.get("credit")) if first else "", rname, fmt(rms, "%.4f"),
                         fmt(vs, "%.2fx"), fmt(pct_copy, "%.1f%%") if first else "",
                         cls if first else "", (e.get("size") or "") if first else ""))
            first = False
            if k == "sgemm" and rname == "cublasSgemm" and rms and ours:
                sgemm_line = (100.0 * rms / ours, e.get("produced_by"), best is not None)
        if k == "sgemm" and sgemm_line is None:
            sgemm_line = (None, e.get("produced_by"), best is not None)

    print("kernel vs what a user would otherwise use (same GPU, same run; hk_refs, bench/refs):")
    hdr = ("kernel", "baseline ms", "best ms", "speedup", "skill", "reference", "ref ms",
           "vs ref", "% copy", "class", "size")
    w = (14, 12, 12, 9, 34, 36, 10, 8, 8, 5, 0)
    line = lambda r: " ".join(("%-*s" if i in (0, 4, 5, 9, 10) else "%*s") % (w[i], r[i])
                              for i in range(len(r))).rstrip()
    print(line(hdr))
    for r in rows:
        print(line(r))
    errs = [r for r in refs if r.get("error")]
    for r in errs:
        print("  reference error: %s %s: %s"
              % (r.get("kernel"), r.get("reference"), r.get("error")))
    print()
    print("issue 5 targets:")
    if n:
        pct = 100.0 * verified / n
        print("  verified speedup on %d of %d kernels (%.0f%%; target >= 80%%): %s"
              % (verified, n, pct, "met" if pct >= 80.0 else "NOT met"))
        g = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        print("  geometric-mean speedup %.2fx over the %d kernels, 1.00x for those without a "
              "verified speedup (target >= 2.5x): %s" % (g, n, "met" if g >= 2.5 else "NOT met"))
    else:
        print("  no kernel was run")
    if mem_total:
        verdict = "met" if mem_ok == mem_total else "NOT met" if mem_below else "not shown"
        print("  memory-bound kernels at >= 85%% of the measured copy bandwidth: %d of %d%s: %s"
              % (mem_ok, mem_total,
                 " (below: %s)" % ", ".join(mem_below) if mem_below else "", verdict))
        if mem_unknown:
            print("    no copy line for: %s" % ", ".join(mem_unknown))
    else:
        print("  memory-bound kernels at >= 85% of the measured copy bandwidth: none classified")
    if sgemm_line is None:
        print("  SGEMM at % of cuBLAS: sgemm was not run")
    elif sgemm_line[0] is None:
        print("  SGEMM at % of cuBLAS: no cublasSgemm time (see the reference errors)")
    else:
        p, by, has_best = sgemm_line
        print("  SGEMM at %.0f%% of cuBLAS (target >= 80%%; %s): %s"
              % (p, ("best version" + (" by " + by if by else "")) if has_best else "the baseline",
                 "met" if p >= 80.0 else "NOT met"))
    if probe is None:
        print("  (no probe: the memory/compute class comes from the report's peaks or the "
              "episode's bottleneck)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
