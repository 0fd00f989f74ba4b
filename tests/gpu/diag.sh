#!/usr/bin/env bash
# Where one episode's minutes go on the GPU machine (issue 12's episode-time rule): the cost
# of starting a CUDA process (bench/gpu-init/run.sh), then one wild-suite episode run alone
# with HK_LOG_LEVEL=debug, whose log is summed per kind of benchmark process.
#   HKLS=... tests/gpu/diag.sh [WILD_ID]      (default llmc_gelu_bf16)
# Environment: OUT (where diag-summary.txt and diag-episode.log go), DIAG_ARGS (default
# "--budget 3 --minutes 0.5"), DIAG_TIMEOUT (default 240 s).
# Exit: 77 without a GPU ("skipped: no GPU").
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "skipped: no GPU"
  exit 77
fi
id=${1:-llmc_gelu_bf16}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
hkls=${HKLS:-$top/build/hkls}
init=$("$top/bench/gpu-init/run.sh" 3 2>&1)
spec=$top/bench/wild/specs/$id.bench.json
kernel=$(sed -n 's/^ *"kernel": *"\([^"]*\)".*/\1/p' "$spec" | head -n 1)
read -r -a args <<<"${DIAG_ARGS:---budget 3 --minutes 0.5}"
work=$(mktemp -d)
t0=$(date +%s)
(cd "$top/bench/wild" && HK_LOG_LEVEL=debug timeout -k 10 "${DIAG_TIMEOUT:-240}" "$hkls" optimize "src/$id.cu" \
    --kernel "$kernel" --spec "specs/$id.bench.json" --db "$work/h.db" --out "$work/r" "${args[@]}") \
    >"$work/episode.json" 2>"$out/diag-episode.log"
rc=$?
echo "episode $id: exit $rc after $(( $(date +%s) - t0 )) s" >"$out/diag-summary.txt"
python3 - "$out/diag-episode.log" >>"$out/diag-summary.txt" <<'PY'
import json, re, sys, collections
rows = collections.OrderedDict()
stage = "?"
pat = re.compile(r"measure: (\S+) (\S+), size (-?\d+), (\d+) combination\(s\)(?:, compared as it ran)?: (\d+) ms, the program's phases (.*)$")
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"\[(baseline|optimize|accuracy|verify|report|setup)\]", line)
    if m:
        stage = m.group(1)
    m = pat.search(line)
    if not m:
        continue
    mode, wall = m.group(2), int(m.group(5))
    try:
        ph = json.loads(m.group(6))
    except ValueError:
        ph = None
    r = rows.setdefault((stage, mode), {"n": 0, "wall": 0, "ph": collections.Counter()})
    r["n"] += 1
    r["wall"] += wall
    for k, v in (ph or {}).items():
        r["ph"][k] += v
print("| stage | mode | processes | wall ms | program phases ms (summed) |")
print("|---|---|---|---|---|")
for (st, mode), r in rows.items():
    ph = ", ".join("%s %.0f" % kv for kv in r["ph"].items())
    print("| %s | %s | %d | %d | %s |" % (st, mode, r["n"], r["wall"], ph or "-"))
PY
printf '\n%s\n' "$init" >>"$out/diag-summary.txt"
cat "$out/diag-summary.txt"
