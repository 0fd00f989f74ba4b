#!/usr/bin/env python3
"""acct_san.py FILE [T0 T1]: over every cgwrap.sh tree (one ctest test) started in [T0,T1]: the
programs that would be sanitized in the ASan build (hkls, test_*, fuzz_*, hk_device_probe),
exec'd (not AFORK) vs forked only, and per-test counts of exec'd ones."""
import struct, sys, collections, re
def comp(c): return (c & 0x1fff) << (3 * (c >> 13))
recs = []
data = open(sys.argv[1], 'rb').read()
t0 = float(sys.argv[2]) if len(sys.argv) > 2 else 0; t1 = float(sys.argv[3]) if len(sys.argv) > 3 else 1e18
for i in range(0, len(data) - 63, 64):
    f = struct.unpack('<BBHIIIIIIf8H16s', data[i:i+64])
    recs.append(dict(pid=f[6], ppid=f[7], b=f[8], e=f[8] + f[9], fork=f[0] & 1,
                     cpu=(comp(f[10]) + comp(f[11])) / 100, comm=f[18].split(b'\0')[0].decode(errors='replace')))
kids = collections.defaultdict(list)
for r in recs: kids[r['ppid']].append(r)
san = re.compile(r'^(hkls|test_|fuzz_|hk_device)')
tot_exec = tot_fork = 0; per = []
for r in recs:
    if r['comm'] != 'cgwrap.sh' or not (t0 <= r['b'] <= t1): continue
    st = [r]; seen = set(); ex = fk = 0; first = None
    while st:
        pr = st.pop()
        for c in kids.get(pr['pid'], []):
            if c['pid'] in seen or c['b'] < pr['b'] - 1 or c['b'] > pr['e'] + 1: continue
            seen.add(c['pid']); st.append(c)
            if pr is r and c['comm'] not in ('cgwrap.sh', 'sleep', 'date', 'awk', 'getconf', 'rmdir', 'mkdir', 'tr') and first is None: first = c['comm']
            if san.search(c['comm']):
                if c['fork']: fk += 1
                else: ex += 1
    if ex or fk: per.append((ex, fk, first))
    tot_exec += ex; tot_fork += fk
print(f"tests {len(per)}, sanitized-program execs {tot_exec}, forks of them {tot_fork}")
for ex, fk, n in sorted(per, key=lambda x: -x[0])[:15]: print(f"{ex:6d} {fk:6d}  {n}")
