#!/usr/bin/env python3
"""acct_comm.py FILE T0 T1: CPU by command over every cgwrap.sh tree (one ctest test, bench/ci/phases.sh)
started in [T0,T1] (epoch s). FILE: BSD process accounting (acct_v3 records, 64 bytes), switched on
as root with python3 -c "import ctypes; ctypes.CDLL(None).acct(b'FILE')" and off with acct(None).
A process is counted under a test when its chain of parents (pid, ppid, start times: pids are
reused) leads to that test's cgwrap.sh; processes reparented before they exit (the sandboxed
runs) are missed: the cgroup figure of PASS.tests counts them."""
import struct, sys, collections
def comp(c): return (c & 0x1fff) << (3 * (c >> 13))
recs = []
data = open(sys.argv[1], 'rb').read()
t0, t1 = float(sys.argv[2]), float(sys.argv[3])
for i in range(0, len(data) - 63, 64):
    f = struct.unpack('<BBHIIIIIIf8H16s', data[i:i+64])
    recs.append((f[6], f[7], f[8], f[8] + f[9], (comp(f[10]) + comp(f[11])) / 100, f[18].split(b'\0')[0].decode(errors='replace'), comp(f[11]) / 100))
kids = collections.defaultdict(list)
for r in recs: kids[r[1]].append(r)
by = collections.defaultdict(lambda: [0, 0.0, 0.0]); seen = set()
for r in recs:
    if r[5] != 'cgwrap.sh' or not (t0 <= r[2] <= t1): continue
    st = [r]
    while st:
        pr = st.pop()
        for c in kids.get(pr[0], []):
            if c[0] in seen or c[2] < pr[2] - 1 or c[2] > pr[3] + 1: continue
            seen.add(c[0]); st.append(c); b = by[c[5]]; b[0] += 1; b[1] += c[4]; b[2] += c[6]
tot = sum(b[1] for b in by.values())
print(f"{tot:.1f} CPU-s in the tests' process trees (reaped through them)")
for k, b in sorted(by.items(), key=lambda kv: -kv[1][1])[:30]:
    print(f"{b[1]:8.1f} (sys {b[2]:6.1f}) {b[0]:6d}  {k}")
