# Two versions of bench/refs/spec_args.sh's sed fallback (HK_REFS_PYTHON=none) give the same
# exit status, stdout and stderr (the script's path in it aside): on every bench/kernels spec
# with size keys right, reordered, spaced, short, long, non-ASCII and malformed (C.UTF-8), and on
# synthetic specs (odd size sets, invalid UTF-8, numeric bytes, repeated fields, no kernel,
# not a spec) in C and C.UTF-8. Issue 14, session 34: the fallback's rewrite with fewer
# processes.
#
#   python3 bench/ci/spec_args_same.py OLD_SCRIPT NEW_SCRIPT [all|specs|synth]
#   e.g. git show main:bench/refs/spec_args.sh > /tmp/old.sh;
#        python3 bench/ci/spec_args_same.py /tmp/old.sh bench/refs/spec_args.sh
import glob, json, os, subprocess, sys, tempfile
old, new = sys.argv[1], sys.argv[2]
top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
specs = sorted(glob.glob(os.path.join(top, 'bench/kernels/*.bench.json')))
syn = tempfile.mkdtemp(prefix='spec_args_same.')
def w(name, body):
    p = os.path.join(syn, name); open(p, 'wb').write(body); return p
one = lambda sizes, extra=b'': b'{\n  "kernel": "k",\n' + extra + b'  "sizes": [' + sizes + b', {"N": 8}]\n}\n'
synth = [
  w('trail.json', one(b'{"N": 4,}')), w('space.json', one(b'{"N": 4, }')), w('lead.json', one(b'{, "N": 4}')),
  w('empty.json', one(b'{}')), w('bad8.json', one(b'{"N": 4,\xff}')), w('bad8b.json', one(b'{"N": 4, \xff\xfe}')),
  w('nonascii.json', one('{"\u00c9": 4}'.encode())), w('dup.json', one(b'{"N": 4, "N": 5}')),
  w('neg.json', one(b'{"N": -4}')), w('float.json', one(b'{"N": 4.5}')), w('two.json', one(b'{"M": 2 , "N":3}')),
  w('bytes_num.json', one(b'{"N": 4}', b'  "bytes": 1.5e3,\n  "flops": "2*N",\n')),
  w('bytes_both.json', one(b'{"N": 4}', b'  "bytes": "4*N", "bytes": 7,\n  "bytes": "9",\n')),
  w('kern2.json', b'{"kernel": "a", "kernel": "b",\n "kernel": "c",\n "sizes": [{"N": 1}]}\n'),
  w('nokern.json', b'{\n "sizes": [{"N": 1}]\n}\n'), w('nosize.json', b'{\n "kernel": "k"\n}\n'),
  w('scal.json', one(b'{"N": 4}', b'  "args": [\n   {"kind": "scalar", "name": "a", "value": -2.5},\n   {"kind": "scalar", "name": "b", "value": 3}\n  ],\n')),
  os.path.join(top, 'README.md'), '/nonexistent.json',
]
def keys_for(path):
    ks = ['', 'zz=3', ' ', 'N=4,', ',N=4', 'N=4,,M=2', 'N=4\n', 'N=4, ', '\u00c9=4', 'N=\xff', 'N=04', 'N=4;', 'N=-1', 'N = 4', 'N=4,N=4']
    try:
        d = json.load(open(path))
        for s in (d['sizes'][0], d['sizes'][-1]):
            items = list(s.items())
            ks.append(','.join('%s=%s' % kv for kv in items))
            ks.append(', '.join('%s = %s' % kv for kv in reversed(items)))
            ks.append(','.join('%s=%s' % kv for kv in items) + ',')
            ks.append('\n'.join('%s=%s' % kv for kv in items) + '\n\n')
            ks.append(','.join('%s=%s' % kv for kv in items[1:]))
            ks.append(','.join('%s=%s' % kv for kv in items + items[:1]))
            ks.append(','.join('%s=x' % k for k, _ in items))
    except Exception:
        pass
    return ks
n = bad = 0
sel = sys.argv[3] if len(sys.argv) > 3 else 'all'
for loc in ('C', 'C.UTF-8'):
    env = dict(os.environ, HK_REFS_PYTHON='none', LC_ALL=loc)
    paths = (specs if sel != 'synth' else []) + (synth if sel != 'specs' else [])
    if loc == 'C' and sel == 'specs':
        continue
    for path in paths:
        for k in keys_for(path):
            args = [path] + (['--size', k] if k != '' else [])
            a = subprocess.run(['bash', old] + args, env=env, capture_output=True)
            b = subprocess.run(['bash', new] + args, env=env, capture_output=True)
            a_err = a.stderr.replace(old.encode(), b'S'); b_err = b.stderr.replace(new.encode(), b'S')
            n += 1
            if (a.returncode, a.stdout, a_err) != (b.returncode, b.stdout, b_err):
                bad += 1
                print('DIFF', loc, path, repr(k), a.returncode, b.returncode, a.stdout[-80:], b.stdout[-80:], a_err[-120:], b_err[-120:])
print('%d cases, %d differ' % (n, bad))
for f in os.listdir(syn):
    os.unlink(os.path.join(syn, f))
os.rmdir(syn)
sys.exit(1 if bad else 0)
