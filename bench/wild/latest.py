#!/usr/bin/env python3
"""The wild suite's table of the latest measurement per kernel, merged from recorded tables.

    bench/wild/latest.py RECORD.md... > table.md

Each RECORD is a recorded markdown file (bench/results/...) holding one or more tables whose
header has an `id` column and `baseline ms`, `best ms` and `speedup` columns (a run's
wild-table.md, or a session record's hand-made table of a call). Records are read in the
order given, so a later row for a kernel replaces an earlier one; the kernels come from
bench/wild/manifest.json (a kernel no record measured is listed as such). Nothing is
computed but the summary: the share improved by >= 1.05x, the geometric and arithmetic
means (a kernel without a verified speedup counts as 1.00x, as bench/wild/run.sh does), and
the mmcv subset beside the platform's published 78% of 60 ops and 4.75x mean.
"""
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def cells(line):
    return [c.strip() for c in line.strip().strip('|').split('|')]


def speedup_of(text):
    m = re.search(r'([0-9]+(?:\.[0-9]+)?)', text.replace('*', ''))
    return float(m.group(1)) if m else None


def read_tables(path, ids):
    """(id, row dict) for every row of every table in path whose first cell is a kernel id."""
    rows = []
    header = None
    with open(path, encoding='utf-8') as f:
        for line in f:
            if not line.lstrip().startswith('|'):
                header = None
                continue
            c = cells(line)
            if header is None:
                header = [h.lower() for h in c]
                continue
            if set(''.join(c)) <= set('-: '):
                continue
            if c[0] not in ids or 'speedup' not in header or 'baseline ms' not in header:
                continue
            row = {h: (c[i] if i < len(c) else '') for i, h in enumerate(header)}
            row['_from'] = os.path.relpath(path)
            rows.append((c[0], row))
    return rows


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    with open(os.path.join(HERE, 'manifest.json'), encoding='utf-8') as f:
        manifest = json.load(f)
    kernels = manifest['kernels'] if isinstance(manifest, dict) else manifest
    ids = [k['id'] for k in kernels]
    latest, klass = {}, {}
    for path in argv[1:]:
        if not os.path.exists(path):
            sys.stderr.write('latest.py: no such record: %s\n' % path)
            return 2
        for kid, row in read_tables(path, set(ids)):
            latest[kid] = row
            if row.get('class'):
                klass[kid] = row['class']
    print('| id | class | baseline ms | best ms | speedup | % of roofline (baseline -> best) | from |')
    print('|---|---|---|---|---|---|---|')
    sp = {}
    for kid in ids:
        row = latest.get(kid)
        if not row:
            print('| %s | - | - | - | not measured | - | - |' % kid)
            continue
        s = speedup_of(row['speedup'])
        sp[kid] = s if s else 1.0
        roof = next((v for h, v in row.items() if h.startswith('% of roofline')), '-')
        print('| %s | %s | %s | %s | %s | %s | %s |' % (kid, klass.get(kid, '-'), row['baseline ms'],
                                                  row['best ms'], row['speedup'], roof, row['_from']))
    print()

    def summary(name, keys):
        vals = [sp.get(k, 1.0) for k in keys]
        if not vals:
            return
        up = sum(1 for v in vals if v >= 1.05)
        geo = math.exp(sum(math.log(v) for v in vals) / len(vals))
        ari = sum(vals) / len(vals)
        extra = ' (the platform: 78% of 60 ops, mean 4.75x)' if name == 'mmcv' else ' (targets: 75%, 2.5x)'
        print('%s: %d kernels, %d improved >= 1.05x (%.0f%%), geometric mean %.2fx, arithmetic mean %.2fx%s'
              % (name, len(vals), up, 100.0 * up / len(vals), geo, ari, extra))

    summary('all', ids)
    summary('mmcv', [k for k in ids if k.startswith('mmcv_')])
    missing = [k for k in ids if k not in latest]
    if missing:
        print('not measured in these records: %s' % ', '.join(missing))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
