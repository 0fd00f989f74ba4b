#!/usr/bin/env bash
# GPU check of the structural pattern rewrites (server/rewrites/rewrite_pattern.h): each
# rewritten suite kernel is judged against its bench spec by `hkls verify-candidate`
# (correct on the spec's sizes, seeds and distributions; timed interleaved with the
# baseline), and one table of verdicts, times and speedups is printed.
#
# Two steps, because the candidates are made by the unit test binary (dynamically linked
# with cmocka, libuv and tree-sitter, which the GPU machine lacks):
#   1. on the build machine:  tests/gpu/rewrite_pattern_check.sh --generate DIR
#      (runs HK_RWP_DUMP_DIR=DIR test_engine_rewrite_pattern; TEST_BIN names the binary,
#      default build-h17/tests/ then build/tests/; and test_engine_rewrite_rows, ROWS_BIN,
#      for the warp_rows candidates sum_rows, rmsnorm and gemv)
#   2. on the GPU machine:    HKLS=path/to/hkls tests/gpu/rewrite_pattern_check.sh DIR [KERNEL...]
# Without DIR the script generates into a temporary directory first (both steps on one
# machine). Variables: HKLS (default build-static/hkls, then build/hkls), CHECK (quick|full,
# default full), TIMEOUT (seconds per candidate, default 300), OUT (file for the table,
# default: stdout only). Exit: 0 every candidate accepted, 1 any rejected or failed,
# 2 bad setup, 3 no GPU (the table says so).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)

# The warp-per-row rewrite (rewrite_rows.h: sum_rows, rmsnorm, gemv) has its own test binary;
# ROWS_BIN names it (default build-h23/tests/ then build/tests/); without it only the
# pattern rewrites are generated.
find_rows_bin() {
  if [ -n "${ROWS_BIN:-}" ]; then echo "$ROWS_BIN"; return; fi
  for b in "$top/build-h23/tests/test_engine_rewrite_rows" "$top/build/tests/test_engine_rewrite_rows"; do
    [ -x "$b" ] && { echo "$b"; return; }
  done
  echo ""
}

find_test_bin() {
  if [ -n "${TEST_BIN:-}" ]; then echo "$TEST_BIN"; return; fi
  for b in "$top/build-h17/tests/test_engine_rewrite_pattern" "$top/build/tests/test_engine_rewrite_pattern"; do
    [ -x "$b" ] && { echo "$b"; return; }
  done
  echo ""
}

generate() {
  local dir=$1 bin
  bin=$(find_test_bin)
  if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "rewrite_pattern_check.sh: no test_engine_rewrite_pattern binary (build it, or set TEST_BIN)" >&2
    return 2
  fi
  mkdir -p "$dir" || return 2
  if ! HK_RWP_DUMP_DIR="$dir" "$bin" >"$dir/generate.log" 2>&1; then
    cat "$dir/generate.log" >&2
    echo "rewrite_pattern_check.sh: generating the candidates failed" >&2
    return 2
  fi
  rbin=$(find_rows_bin)
  if [ -n "$rbin" ] && [ -x "$rbin" ]; then
    if ! HK_RWP_DUMP_DIR="$dir" "$rbin" >"$dir/generate-rows.log" 2>&1; then
      cat "$dir/generate-rows.log" >&2
      echo "rewrite_pattern_check.sh: generating the warp_rows candidates failed" >&2
      return 2
    fi
  else
    echo "rewrite_pattern_check.sh: no test_engine_rewrite_rows binary: sum_rows/rmsnorm (warp_rows) not generated" >&2
  fi
  ls "$dir"/*.cu >/dev/null 2>&1 || { echo "rewrite_pattern_check.sh: no candidates in $dir" >&2; return 2; }
  echo "candidates in $dir:" >&2
  ls "$dir"/*.cu >&2
  return 0
}

if [ "${1:-}" = "--generate" ]; then
  [ -n "${2:-}" ] || { echo "usage: $0 --generate DIR" >&2; exit 2; }
  generate "$2"
  exit $?
fi

dir=${1:-}
if [ -n "$dir" ] && [ -d "$dir" ]; then
  shift
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/hk-rwp.XXXXXX")
  generate "$dir" || exit 2
fi
only=" $* "

hkls=${HKLS:-}
if [ -z "$hkls" ]; then
  for b in "$top/build-static/hkls" "$top/build/hkls" "$top/build-gpu/hkls"; do
    [ -x "$b" ] && { hkls=$b; break; }
  done
fi
[ -n "$hkls" ] && [ -x "$hkls" ] || { echo "rewrite_pattern_check.sh: no hkls (set HKLS)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "rewrite_pattern_check.sh: python3 is needed to read the verdicts" >&2; exit 2; }
check=${CHECK:-full}
per=${TIMEOUT:-300}
logs="$dir/logs"
mkdir -p "$logs"

table=$(mktemp "${TMPDIR:-/tmp}/hk-rwp-table.XXXXXX")
printf '%-12s %-10s %-9s %12s %12s %8s  %s\n' kernel rewrite verdict baseline_ms rewrite_ms speedup \
  "reason / details" >"$table"
status=0
n=0
for cand in "$dir"/*.cu; do
  base=$(basename "$cand" .cu)          # KERNEL.REWRITE
  kernel=${base%%.*}
  rewrite=${base#*.}
  if [ "$only" != "  " ] && [[ "$only" != *" $kernel "* ]]; then continue; fi
  spec="$top/bench/kernels/$kernel.bench.json"
  if [ ! -f "$spec" ]; then
    printf '%-12s %-10s %-9s %12s %12s %8s  %s\n' "$kernel" "$rewrite" no-spec - - - "$spec missing" >>"$table"
    status=1
    continue
  fi
  n=$((n + 1))
  echo "==> $kernel ($rewrite)" >&2
  json="$logs/$base.json"
  timeout "$per" "$hkls" verify-candidate --spec "$spec" --candidate "$cand" --check "$check" --json \
    >"$json" 2>"$logs/$base.log"
  rc=$?
  line=$(python3 - "$json" "$rc" <<'PY'
import json, sys
path, rc = sys.argv[1], int(sys.argv[2])
try:
    v = json.load(open(path))
except Exception:
    v = {}
def f(x):
    return "-" if not isinstance(x, (int, float)) else "%.4g" % x
if rc in (124, 137):
    print("timeout - - - killed after the per-candidate limit")
elif not v:
    print("error - - - exit %d, no verdict (see the log)" % rc)
else:
    verdict = "accepted" if v.get("accepted") else ("no-gpu" if v.get("reason") == "no_gpu" else "rejected")
    why = v.get("reason") or ""
    if v.get("details"):
        why += ": " + str(v["details"])[:120]
    if v.get("flagged"):
        why += " (flagged: over 10x)"
    print(verdict, f(v.get("baseline_ms")), f(v.get("median_ms")), f(v.get("speedup")), why or "-")
PY
)
  read -r verdict bms cms sp why <<<"$line"
  printf '%-12s %-10s %-9s %12s %12s %8s  %s\n' "$kernel" "$rewrite" "$verdict" "$bms" "$cms" "$sp" "$why" >>"$table"
  case $verdict in
    accepted) ;;
    no-gpu) [ $status -eq 0 ] && status=3 ;;
    *) status=1 ;;
  esac
done
[ $n -gt 0 ] || { echo "rewrite_pattern_check.sh: no candidate matched" >&2; status=2; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
{
  echo "# rewrite_pattern_check: $(date -u +%FT%TZ), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
       "GPU ${gpu:-none found}, hkls verify-candidate --check $check"
  cat "$table"
} | if [ -n "${OUT:-}" ]; then tee "$OUT"; else cat; fi
rm -f "$table"
exit $status
