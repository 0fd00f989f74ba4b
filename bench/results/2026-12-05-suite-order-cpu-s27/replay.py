#!/usr/bin/env python3
"""Replays sessions 23-25's own-suite episodes on the CPU: each kernel's proposals with
`hkls rewrites --proposals N`, every candidate reported at the time the H200 measured for the
same description (1/speedup; unmeasured ones at 1), and whether the recorded best is proposed."""
import json, glob, subprocess, sys, os
hkls, root, budget = sys.argv[1], sys.argv[2], int(sys.argv[3])
logs = sys.argv[4]
recs = {}
for f in sorted(glob.glob(logs + '/*/suite/reports/*/episode-*.json')):
    d = json.load(open(f))
    k = d['kernel']['name']
    r = recs.setdefault(k, {'cls': d['episode']['info'].get('bottleneck'), 'times': {}, 'best': None, 'bestx': 0})
    for v in d['versions']:
        pb = v.get('produced_by', '')
        if not pb.startswith('builtin: '):
            continue
        desc = pb[len('builtin: '):]
        sp = v.get('speedup') or 0
        if sp > 0:
            r['times'][desc] = max(r['times'].get(desc, 0), sp)
        if v.get('is_best') and sp > r['bestx']:
            r['best'], r['bestx'] = desc, sp
spec_of = {'rope_forward': 'rope'}
for k in sorted(recs):
    r = recs[k]
    base = spec_of.get(k, k)
    args = [hkls, 'rewrites', f'{root}/bench/kernels/{base}.cu', '--kernel', k, '--spec',
            f'{root}/bench/kernels/{base}.bench.json', '--proposals', str(budget), '--class',
            r['cls'] or 'unknown', '--device', '132,64']
    for desc, sp in sorted(r['times'].items(), key=lambda x: -len(x[0])):
        args += ['--time', f'{desc}={1.0/sp:.6g}']
    out = subprocess.run(args, capture_output=True, text=True)
    lines = [l for l in out.stdout.splitlines() if l.startswith('  ')]
    props = [l.split(': ', 1)[1].rsplit('  [', 1)[0] for l in lines]
    pos = next((i + 1 for i, p in enumerate(props) if p == r['best']), None)
    print(f"== {k} ({r['cls']}): recorded best {r['best']} {r['bestx']:.2f}x -> {'proposed %d of %d' % (pos, budget) if pos else 'NOT PROPOSED'}")
    for l in lines:
        print(l)
    if out.returncode:
        print('  rc', out.returncode, out.stderr.strip()[:300])
