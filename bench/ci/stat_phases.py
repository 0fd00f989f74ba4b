#!/usr/bin/env python3
"""The whole machine's CPU over a clean clone's .ci/run, phase by phase (issue 14).

    python3 bench/ci/stat_phases.py STAT CLONE [START]

STAT: a trace of /proc/stat's first line, one a second, each prefixed with the time
(`while sleep 1; do echo "$(date +%s) $(head -1 /proc/stat)"; done > STAT`, started
before .ci/run). CLONE: the clone's folder (its build/ and build-asan/ give the phases'
ends, from file times). START: when .ci/run started (seconds since the epoch; default the
trace's first line).

Phases: demo and the plain build (to the plain pass's first compile cache entry,
build/hk-test-cache), the plain pass (to build/Testing/Temporary/LastTest.log's last
write), the ASan build's tail (to build-asan/hk-build.log's last write), the ASan pass (to
build-asan's LastTest.log). For each: wall, the CPU used (user, nice: the ASan build ./hk
runs at nice 19 behind the plain pass, system) and the idle core-seconds, in seconds of
one core. This counts every process on the machine, the sandboxed ones that
/usr/bin/time leaves out (bench/results/2026-12-05-ci-time-s34.md, section 1) and anything
else running: a figure from an idle machine is the run's.
"""
import os
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    stat, clone = sys.argv[1], sys.argv[2]
    rows = []
    with open(stat) as f:
        for line in f:
            p = line.split()
            if len(p) >= 10 and p[1] == "cpu":
                rows.append((int(p[0]), [int(x) for x in p[2:10]]))
    if len(rows) < 2:
        sys.exit(f"{stat}: fewer than two samples")
    start = int(sys.argv[3]) if len(sys.argv) > 3 else rows[0][0]
    tck = os.sysconf("SC_CLK_TCK")

    def mtime(rel):
        try:
            return int(os.stat(os.path.join(clone, rel)).st_mtime)
        except OSError:
            return None

    ends = [("demo and the plain build", mtime("build/hk-test-cache")),
            ("plain pass", mtime("build/Testing/Temporary/LastTest.log")),
            ("ASan build's tail", mtime("build-asan/hk-build.log")),
            ("ASan pass", mtime("build-asan/Testing/Temporary/LastTest.log"))]
    t0 = start
    print(f"{'phase':28} {'wall':>6} {'user':>7} {'nice':>6} {'sys':>6} {'cpu':>7} {'idle':>6}  (core-seconds)")
    total = [0] * 8
    for name, t1 in ends:
        if t1 is None or t1 <= t0:
            print(f"{name:28} (no end time)")
            continue
        d = [0] * 8
        for (ta, va), (tb, vb) in zip(rows, rows[1:]):
            if t0 < tb <= t1:
                for i in range(8):
                    d[i] += vb[i] - va[i]
        for i in range(8):
            total[i] += d[i]
        s = [x / tck for x in d]
        # user nice system idle iowait irq softirq steal
        cpu = s[0] + s[1] + s[2] + s[5] + s[6]
        print(f"{name:28} {t1 - t0:6d} {s[0]:7.0f} {s[1]:6.0f} {s[2]:6.0f} {cpu:7.0f} {s[3] + s[4]:6.0f}"
              + (f"  steal {s[7]:.0f}" if s[7] else ""))
        t0 = t1
    s = [x / tck for x in total]
    print(f"{'whole run':28} {t0 - start:6d} {s[0]:7.0f} {s[1]:6.0f} {s[2]:6.0f} "
          f"{s[0] + s[1] + s[2] + s[5] + s[6]:7.0f} {s[3] + s[4]:6.0f}")


if __name__ == "__main__":
    main()
