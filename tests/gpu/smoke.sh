#!/usr/bin/env bash
# A short GPU check of the referee, for a call with little device time: each suite kernel
# named is verified against itself (the control: must be accepted near 1.00x), and each
# cheat named must be rejected for the reason its first line states. Runs them in parallel
# (the GPU lock in hkls serializes the GPU programs; compiles overlap). Prints a table last.
#   HKLS=carry/hkls tests/gpu/smoke.sh "vector_add reduce_sum" "cached_result:vector_add"
# Exit 0 when every control was accepted and every cheat rejected for its reason.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
hkls=${HKLS:-$top/build/hkls}
out=${OUT:-$(mktemp -d)}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "skipped: no GPU"; exit 0
fi
export PATH="/usr/local/cuda/bin:$PATH" HK_INCLUDE_DIR=${HK_INCLUDE_DIR:-$top/include}
pids=() names=()
for k in $1; do
  (timeout "${TIMEOUT:-170}" "$hkls" verify-candidate --spec "$top/bench/kernels/$k.bench.json" \
     --candidate "$top/bench/kernels/$k.cu" >"$out/control-$k.log" 2>&1; echo $? >"$out/control-$k.rc") &
  pids+=($!); names+=("control-$k")
done
for pair in ${2:-}; do
  c=${pair%%:*} k=${pair#*:}
  (timeout "${TIMEOUT:-170}" "$hkls" verify-candidate --spec "$top/bench/kernels/$k.bench.json" \
     --candidate "$top/tests/gpu/cheats/$c.cu" >"$out/cheat-$c.log" 2>&1; echo $? >"$out/cheat-$c.rc") &
  pids+=($!); names+=("cheat-$c")
done
wait "${pids[@]}"
fail=0
printf '%-28s %-6s %-s\n' run exit verdict
for n in "${names[@]}"; do
  rc=$(cat "$out/$n.rc" 2>/dev/null || echo '?')
  verdict=$(grep -E '^(accepted|rejected|not measured|the baseline)' "$out/$n.log" | head -1)
  if [[ $n == control-* ]]; then
    [ "$rc" = 0 ] || fail=1
  else
    want=$(head -1 "$top/tests/gpu/cheats/${n#cheat-}.cu" | sed -n 's#^// expect: *##p')
    [[ "$verdict" =~ rejected:\ ($want) ]] || fail=1
    verdict="$verdict (want $want)"
  fi
  printf '%-28s %-6s %-s\n' "$n" "$rc" "$verdict"
done
exit $fail
