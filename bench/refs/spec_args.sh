#!/usr/bin/env bash
# Prints hk_refs's command-line arguments for one bench spec, one argument per line (so an
# expression with spaces stays one argument): the kernel's name, then `--bytes EXPR` when
# the spec has a bytes formula (`--flops EXPR` likewise), `--scalar NAME=VALUE` for each
# scalar argument whose value is a number, then NAME=VALUE for each size variable of the
# spec's FIRST size set, or of the set given with --size.
# Read it with `mapfile -t args < <(spec_args.sh SPEC)`.
#
#   bench/refs/spec_args.sh SPEC [--size NAME=VALUE[,NAME=VALUE...]]
#
# --size takes the size key an episode's report gives (versions[].time.size, e.g.
# "M=2048,N=2048,K=2048"); it must name exactly the spec's size variables.
# JSON is read with python3 (HK_REFS_PYTHON=path picks another; "none" forces the
# fallback); without python3 a sed reading handles specs written one field per line, as
# every spec of bench/kernels is. Exit 0, or 1 with the reason on stderr.
set -uo pipefail
spec=${1:-}
size_key=""
if [ $# -eq 3 ] && [ "$2" = --size ]; then size_key=$3
elif [ $# -ne 1 ]; then echo "usage: spec_args.sh SPEC [--size NAME=VALUE[,...]]" >&2; exit 1
fi
[ -r "$spec" ] || { echo "spec_args.sh: cannot read $spec" >&2; exit 1; }

py=${HK_REFS_PYTHON:-python3}
if [ "$py" != none ] && command -v "$py" >/dev/null 2>&1; then
  exec "$py" - "$spec" "$size_key" <<'PYEOF'
import json, sys
path, key = sys.argv[1], sys.argv[2]
try:
    d = json.load(open(path))
    kernel = d["kernel"]
    first = d["sizes"][0]
except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
    sys.exit("spec_args.sh: %s: not a harness-form spec with kernel and sizes (%s)" % (path, e))
sizes = [(k, v) for k, v in first.items()]
if key:
    given = []
    for part in key.split(","):
        n, _, v = part.partition("=")
        if not n or not v.strip().isdigit():
            sys.exit("spec_args.sh: --size %s: expected NAME=VALUE[,NAME=VALUE...]" % key)
        given.append((n.strip(), int(v)))
    if sorted(n for n, _ in given) != sorted(n for n, _ in sizes):
        sys.exit("spec_args.sh: --size %s does not name the spec's size variables (%s)"
                 % (key, ", ".join(n for n, _ in sizes)))
    sizes = given
print(kernel)
for field in ("bytes", "flops"):
    b = d.get(field)
    if isinstance(b, (int, float)) and not isinstance(b, bool):
        b = repr(b)
    if isinstance(b, str) and b.strip():
        print("--" + field)
        print(b)
for a in d.get("args", []):
    v = a.get("value") if isinstance(a, dict) else None
    if a.get("kind") == "scalar" and a.get("name") and isinstance(v, (int, float)) \
            and not isinstance(v, bool):
        print("--scalar")
        print("%s=%r" % (a["name"], v))
for n, v in sizes:
    if not isinstance(v, int) or isinstance(v, bool):
        sys.exit("spec_args.sh: %s: size %s is not an integer" % (path, n))
    print("%s=%d" % (n, v))
PYEOF
fi

# ---- fallback: sed over a spec written one field per line ----
kernel=$(sed -n 's/.*"kernel": *"\([^"]*\)".*/\1/p' "$spec" | head -1)
first=$(sed -n 's/.*"sizes": *\[ *{\([^}]*\)}.*/\1/p' "$spec" | head -1)
if [ -z "$kernel" ] || [ -z "$first" ]; then
  echo "spec_args.sh: $spec: no python3, and the sed reading found no kernel or sizes line" >&2
  exit 1
fi
sizes=$(printf '%s\n' "$first" | tr ',' '\n' | sed -n 's/^ *"\([A-Za-z_][A-Za-z_0-9]*\)": *\([0-9][0-9]*\) *$/\1=\2/p')
if [ "$(printf '%s\n' "$sizes" | grep -c .)" -ne "$(printf '%s\n' "$first" | tr ',' '\n' | grep -c .)" ]; then
  echo "spec_args.sh: $spec: cannot read the first size set {$first} without python3" >&2
  exit 1
fi
if [ -n "$size_key" ]; then
  want=$(printf '%s\n' "$sizes" | sed 's/=.*//' | sort | tr '\n' ' ')
  given=$(printf '%s\n' "$size_key" | tr ',' '\n' | sed 's/ //g')
  if ! printf '%s\n' "$given" | grep -qvE '^[A-Za-z_][A-Za-z_0-9]*=[0-9]+$' &&
     [ "$(printf '%s\n' "$given" | sed 's/=.*//' | sort | tr '\n' ' ')" = "$want" ]; then
    sizes=$given
  else
    echo "spec_args.sh: --size $size_key does not name the spec's size variables ($want)" >&2
    exit 1
  fi
fi
printf '%s\n' "$kernel"
for field in bytes flops; do
  f=$(sed -n "s/^ *\"$field\": *\"\\([^\"]*\\)\".*/\\1/p; s/^ *\"$field\": *\\([0-9][0-9.eE+-]*\\).*/\\1/p" "$spec" | head -1)
  [ -n "$f" ] && printf -- '--%s\n%s\n' "$field" "$f"
done
grep '"kind": *"scalar"' "$spec" |
  sed -n 's/.*"name": *"\([A-Za-z_][A-Za-z_0-9]*\)".*"value": *\(-\{0,1\}[0-9][0-9.eE+-]*\) *[,}].*/--scalar\n\1=\2/p'
printf '%s\n' "$sizes"
