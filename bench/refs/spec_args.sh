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
# (few processes: the test of every spec runs it 60 times; the size set and the --size key
# are read with bash's own string operations, as `tr ',' '\n' | sed` and `sort` read them)
kernel=$(sed -n '/.*"kernel": *"\([^"]*\)".*/{s//\1/p;q;}' "$spec")
first=$(sed -n '/.*"sizes": *\[ *{\([^}]*\)}.*/{s//\1/p;q;}' "$spec")
if [ -z "$kernel" ] || [ -z "$first" ]; then
  echo "spec_args.sh: $spec: no python3, and the sed reading found no kernel or sizes line" >&2
  exit 1
fi
# the first size set's NAME=VALUE, one per comma-separated part; every non-empty part must be one
size_re='^ *"([A-Za-z_][A-Za-z_0-9]*)": *([0-9][0-9]*) *$'
sizes= n_parts=0 n_sizes=0 rest=$first
while :; do
  part=${rest%%,*}
  [[ $part == *?* ]] && n_parts=$((n_parts + 1))
  if [[ $part =~ $size_re ]]; then
    sizes+=${sizes:+$'\n'}${BASH_REMATCH[1]}=${BASH_REMATCH[2]}
    n_sizes=$((n_sizes + 1))
  fi
  [[ $rest == *,* ]] || break
  rest=${rest#*,}
done
if [ "$n_sizes" -ne "$n_parts" ]; then
  echo "spec_args.sh: $spec: cannot read the first size set {$first} without python3" >&2
  exit 1
fi
if [ -n "$size_key" ]; then
  # the key's parts (commas and newlines), spaces removed, the empty ones at the end dropped
  given=() ok=1
  rest=${size_key//,/$'\n'}
  while :; do
    part=${rest%%$'\n'*}
    given+=("${part// /}")
    [[ $rest == *$'\n'* ]] || break
    rest=${rest#*$'\n'}
  done
  while [ ${#given[@]} -gt 1 ] && [ -z "${given[${#given[@]}-1]}" ]; do unset 'given[${#given[@]}-1]'; done
  key_re='^[A-Za-z_][A-Za-z_0-9]*=[0-9]+$'
  for part in "${given[@]}"; do [[ $part =~ $key_re ]] || ok=; done
  # the same names as the set's, as many times each (what comparing them sorted says)
  if [ -n "$ok" ]; then
    names=()
    while IFS= read -r part; do names+=("${part%%=*}"); done <<<"$sizes"
    [ ${#names[@]} -eq ${#given[@]} ] || ok=
    for part in "${given[@]}"; do
      [ -n "$ok" ] || break
      ok=
      for j in "${!names[@]}"; do
        if [ "${names[$j]}" = "${part%%=*}" ]; then unset 'names[$j]'; ok=1; break; fi
      done
    done
  fi
  if [ -n "$ok" ]; then
    sizes=$(printf '%s\n' "${given[@]}")
  else
    want=$(printf '%s\n' "$sizes" | sed 's/=.*//' | sort | tr '\n' ' ')
    echo "spec_args.sh: --size $size_key does not name the spec's size variables ($want)" >&2
    exit 1
  fi
fi
printf '%s\n' "$kernel"
for field in bytes flops; do
  f=$(sed -n -e "s/^ *\"$field\": *\"\\([^\"]*\\)\".*/\\1/p" -e 't q' \
             -e "s/^ *\"$field\": *\\([0-9][0-9.eE+-]*\\).*/\\1/p" -e 't q' -e d -e ':q' -e q "$spec")
  [ -n "$f" ] && printf -- '--%s\n%s\n' "$field" "$f"
done
grep '"kind": *"scalar"' "$spec" |
  sed -n 's/.*"name": *"\([A-Za-z_][A-Za-z_0-9]*\)".*"value": *\(-\{0,1\}[0-9][0-9.eE+-]*\) *[,}].*/--scalar\n\1=\2/p'
printf '%s\n' "$sizes"
