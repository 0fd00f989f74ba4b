#!/usr/bin/env bash
# GPU check of the engine v2 rewrites of rewrite_mem.c (vectorize, __ldg, unroll, fast math):
# each rewritten suite kernel is judged by `hkls verify-candidate` against its bench spec
# (bench/kernels/<kernel>.bench.json): the oracle's verdict (outputs against the baseline's
# on every checked input, poison, guards, inputs unchanged) and the interleaved timing give
# one row per candidate; the table comes last on stdout (also OUT/rewrite_mem.txt).
#
#   tests/gpu/rewrite_mem_check.sh [CANDIDATE_DIR]
#
# CANDIDATE_DIR holds the rewritten kernels as <kernel>__<rewrite>.cu. The unit test writes
# them (it needs cmocka and nvcc, so run it on the build machine and carry the directory):
#   HK_REWRITE_MEM_OUT=$PWD/rewrite-mem-candidates build-XXX/tests/test_engine_rewrite_mem
# Without CANDIDATE_DIR the script runs that test itself from TEST_BIN (default: the first
# build*/tests/test_engine_rewrite_mem) into a temporary directory.
#
# Environment:
#   HKLS=PATH        the hkls binary (default: build-static/hkls, build-gpu/hkls, build/hkls)
#   KERNELS="a b"    only these kernels (default: all candidates)
#   REWRITES="a b"   only these rewrites: vec2 vec4 vec8 ldg unroll4 unroll_full fastmath
#                    vec4_fastmath restrict_vec4 restrict_vec8 (default: all)
#   CHECK=quick|full the verify-candidate check set (default quick: one process per size)
#   RUN_TIMEOUT=S    wall-clock limit of one verify-candidate (default 180)
#   DEADLINE_S=S     start no candidate that could end after S seconds (default: none)
#   OUT=DIR          keep the table, and the JSON verdicts and logs as rewrite_mem-logs.tar.gz
# The spec's grid is used as written (one thread per element): a vectorized kernel then has
# width-1 of every width threads idle, so its speedup here is a lower bound of what the
# engine gets with an SM-multiple grid (search.h, SEARCH_GRID_SM_MULTIPLE).
# Exit: 0 when every verdict came back (accepted or rejected: a rejected fast-math candidate
# is a finding, not a failure), 1 when some run failed to give one (no verdict, timeout, the
# baseline failed), 2 on bad usage or no hkls; "skipped: no GPU" and 0 without a GPU.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
case "${1:-}" in -h|--help) sed -n '2,33p' "$0"; exit 0 ;; esac

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "skipped: no GPU"
  exit 0
fi
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
say() { printf '==> %s\n' "$*" >&2; }

hkls=${HKLS:-}
if [ -z "$hkls" ]; then
  for b in build-static build-gpu build; do
    [ -x "$top/$b/hkls" ] && { hkls="$top/$b/hkls"; break; }
  done
fi
if [ -z "$hkls" ] || [ ! -x "$hkls" ]; then
  echo "rewrite_mem_check.sh: no hkls binary (set HKLS=path)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/hk-rewrite-mem.XXXXXX")
logs="$work/logs"
mkdir -p "$logs"
cands=${1:-}
if [ -z "$cands" ]; then
  test_bin=${TEST_BIN:-$(ls "$top"/build*/tests/test_engine_rewrite_mem 2>/dev/null | head -1)}
  if [ -z "$test_bin" ] || [ ! -x "$test_bin" ]; then
    echo "rewrite_mem_check.sh: no CANDIDATE_DIR and no test_engine_rewrite_mem to make one" \
         "(build it, or pass the directory its HK_REWRITE_MEM_OUT run wrote)" >&2
    exit 2
  fi
  cands="$work/candidates"
  say "writing the candidates with $test_bin"
  HK_REWRITE_MEM_OUT="$cands" "$test_bin" >"$logs/unit-test.log" 2>&1 ||
    say "the unit test failed (see logs/unit-test.log); judging what it wrote"
fi
if [ ! -d "$cands" ] || ! ls "$cands"/*__*.cu >/dev/null 2>&1; then
  echo "rewrite_mem_check.sh: no <kernel>__<rewrite>.cu candidates in $cands" >&2
  exit 2
fi
check=${CHECK:-quick}
run_timeout=${RUN_TIMEOUT:-180}
deadline=${DEADLINE_S:-0}
t_start=$(date +%s)
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
commit=${HK_COMMIT:-$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)}
say "GPU: $gpu_name; commit $commit; hkls $hkls; candidates in $cands; --check $check"

want() {   # want WORD LIST: LIST empty or holds WORD
  [ -z "$2" ] && return 0
  case " $2 " in *" $1 "*) return 0 ;; esac
  return 1
}

spec_of() {   # the suite spec whose "kernel" is $1
  grep -l "\"kernel\": *\"$1\"" "$top"/bench/kernels/*.bench.json 2>/dev/null | head -1
}

table="$work/rewrite_mem.txt"
{
  echo "GPU: $gpu_name   commit: $commit   $(date -u '+%Y-%m-%d %H:%M') UTC"
  echo "command: CHECK=$check tests/gpu/rewrite_mem_check.sh (hkls verify-candidate per candidate)"
  echo
  printf '%-16s %-14s %12s %12s %9s  %s\n' kernel rewrite "baseline ms" "cand. ms" speedup verdict
} >"$table"

# most promising first, so a DEADLINE_S cut loses the least
order="restrict_vec4 restrict_vec8 vec4 vec8 vec4_fastmath fastmath vec2 unroll4 unroll_full ldg"
files=()
for rw in $order; do
  for f in "$cands"/*__"$rw".cu; do [ -e "$f" ] && files+=("$f"); done
done
for f in "$cands"/*__*.cu; do
  want "$(basename "$f" .cu | sed 's/^.*__//')" "$order" || files+=("$f")
done

failures=0
slowest=0
for f in "${files[@]}"; do
  base=$(basename "$f" .cu)
  kernel=${base%%__*}
  rewrite=${base#*__}
  want "$kernel" "${KERNELS:-}" || continue
  want "$rewrite" "${REWRITES:-}" || continue
  spec=$(spec_of "$kernel")
  if [ -z "$spec" ]; then
    printf '%-16s %-14s %12s %12s %9s  %s\n' "$kernel" "$rewrite" - - - "no spec" >>"$table"
    continue
  fi
  now=$(date +%s)
  if [ "$deadline" != 0 ] && [ $((now - t_start + (slowest > 0 ? slowest : run_timeout))) -gt "$deadline" ]; then
    printf '%-16s %-14s %12s %12s %9s  %s\n' "$kernel" "$rewrite" - - - "skipped (deadline)" >>"$table"
    continue
  fi
  say "$kernel $rewrite"
  json="$logs/$base.json"
  t0=$(date +%s)
  timeout -k 10 "$run_timeout" "$hkls" verify-candidate --spec "$spec" --candidate "$f" \
    --check "$check" --json >"$json" 2>"$logs/$base.log"
  rc=$?
  took=$(( $(date +%s) - t0 ))
  [ "$took" -gt "$slowest" ] && slowest=$took
  row=$(python3 - "$json" "$rc" <<'EOF'
import json, sys
path, rc = sys.argv[1], int(sys.argv[2])
def ms(v):
    return "%.4f" % v if isinstance(v, (int, float)) else "-"
try:
    v = json.load(open(path))
except Exception:
    v = None
if not isinstance(v, dict):
    why = {124: "timeout", 137: "timeout", 3: "no GPU", 4: "baseline failed"}.get(rc, "no verdict (exit %d)" % rc)
    print("- - - NOVERDICT " + why)
    sys.exit(0)
acc = v.get("accepted") is True
sp = v.get("speedup")
verdict = "accepted" if acc else "rejected: %s" % (v.get("reason") or "?")
if acc and v.get("flagged"):
    verdict += " (flagged >10x)"
il = v.get("interleaved")
if acc and isinstance(il, dict):
    verdict += ", interleaved %.2fx (p10 %.2fx, %s)" % (il.get("speedup", 0), il.get("p10", 0),
                                                      v.get("verdict", "?"))
print("%s %s %s %s %s" % (ms(v.get("baseline_ms")), ms(v.get("median_ms")),
      ("%.2fx" % sp) if isinstance(sp, (int, float)) else "-", "OK", verdict))
EOF
)
  read -r b_ms c_ms spd state verdict <<<"$row"
  [ "$state" = NOVERDICT ] && failures=$((failures + 1))
  printf '%-16s %-14s %12s %12s %9s  %s\n' "$kernel" "$rewrite" "$b_ms" "$c_ms" "$spd" "$verdict" >>"$table"
done
echo >>"$table"
echo "total wall time: $(( $(date +%s) - t_start )) s" >>"$table"

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$table" "$OUT/rewrite_mem.txt"
  tar -C "$work" -czf "$OUT/rewrite_mem-logs.tar.gz" logs
fi
cat "$table"
[ "$failures" -eq 0 ]
