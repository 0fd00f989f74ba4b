#!/usr/bin/env bash
# The false-positive sweep of the referee's static race scan (server/measure/ptxrace.h): every
# text below compiled to PTX the way the referee builds a candidate (nvcc -arch=sm_90 -O3
# -std=c++17 -lineinfo, plus a spec's compile_flags) and scanned by tools/ptxrace_scan.c.
#   wild      bench/wild/src/ID.cu (bench/wild/extract.sh), its baseline and the text of every
#             rewrite `hkls rewrites --json` says applies (`--emit NAME`), as compile_rewrites.sh
#   kernels   bench/kernels/*.cu
#   data      every .cu under tests/data (styles, the skills' kernels and their rewrites, ...):
#             a text nvcc does not compile alone is counted, not scanned
#   cheats    tests/gpu/cheats/*.cu (expected: a finding where the header says `race`)
#
#   tests/tools/ptxrace_sweep.sh [wild|kernels|data|cheats]...   (default: all four)
#
# Environment: HKLS (default ./build/hkls), SCAN (default ./build/tests/hk_ptxrace_scan),
# NVCC (default nvcc), PTX_TIMEOUT (seconds per nvcc, default 60), OUT (default a new temporary folder: the texts, PTX and scan lines).
# Prints one line per text with a finding and a count per group; exit 0 when no text
# outside cheats has a finding, 1 otherwise, 2 when something is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hkls=${HKLS:-$root/build/hkls}
scan=${SCAN:-$root/build/tests/hk_ptxrace_scan}
nvcc=${NVCC:-nvcc}
command -v jq >/dev/null || { echo "ptxrace_sweep.sh: needs jq" >&2; exit 2; }
[ -x "$scan" ] || { echo "ptxrace_sweep.sh: no scan tool at $scan (set SCAN)" >&2; exit 2; }
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/ptxrace-sweep.XXXXXX")}
mkdir -p "$out" || exit 2
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(wild kernels data cheats)
status=0

# ptx NAME SRC [flags...]: compile SRC to $out/NAME.ptx; 0 when it compiled
ptx() {
  local name=$1 src=$2; shift 2
  timeout -k 5 "${PTX_TIMEOUT:-60}" "$nvcc" -arch=sm_90 -ptx -O3 -std=c++17 -lineinfo -w "$@" \
    -o "$out/$name.ptx" "$src" > "$out/$name.nvcc.txt" 2>&1
}

# judge GROUP NAME: scan $out/NAME.ptx, count, print a finding
declare -A texts found notbuilt loads lres stores sres
judge() {
  local g=$1 name=$2 line
  line=$("$scan" "$out/$name.ptx")
  echo "$line" >> "$out/$g.scan.txt"
  texts[$g]=$(( ${texts[$g]:-0} + 1 ))
  # "... | loads R/S | stores R/S | ..."
  local l s
  l=$(sed -n 's/.*| loads \([0-9]*\)\/\([0-9]*\) .*/\1 \2/p' <<< "$line")
  s=$(sed -n 's/.*| stores \([0-9]*\)\/\([0-9]*\) .*/\1 \2/p' <<< "$line")
  lres[$g]=$(( ${lres[$g]:-0} + ${l%% *} )); loads[$g]=$(( ${loads[$g]:-0} + ${l##* } ))
  sres[$g]=$(( ${sres[$g]:-0} + ${s%% *} )); stores[$g]=$(( ${stores[$g]:-0} + ${s##* } ))
  case "$line" in
    *" | race | "*)
      found[$g]=$(( ${found[$g]:-0} + 1 ))
      echo "$g: ${line#"$out/"}"
      [ "$g" = cheats ] || status=1 ;;
  esac
}

for g in "${groups[@]}"; do
  case $g in
    wild)
      [ -x "$hkls" ] || { echo "ptxrace_sweep.sh: no hkls at $hkls (set HKLS)" >&2; exit 2; }
      w=$root/bench/wild
      [ -d "$w/src" ] || { echo "ptxrace_sweep.sh: $w/src is missing: run bench/wild/extract.sh" >&2; exit 2; }
      for spec in "$w"/specs/*.bench.json; do
        id=$(basename "$spec" .bench.json)
        kernel=$(jq -r '.kernel' "$spec")
        targs=$(jq -r '(.template_args // []) | map(tostring) | join(", ")' "$spec")
        mapfile -t flags < <(jq -r '(.compile_flags // [])[]' "$spec")
        j=$("$hkls" rewrites "$w/src/$id.cu" --kernel "$kernel" --spec "$spec" --json 2>/dev/null) || j='{"rewrites":[]}'
        for r in baseline $(jq -r '.rewrites[] | select(.applies and .name != "set_tunable") | .name' <<< "$j"); do
          f=$out/wild.$id.$r.cu
          if [ "$r" = baseline ]; then
            cp "$w/src/$id.cu" "$f"
          elif ! "$hkls" rewrites "$w/src/$id.cu" --kernel "$kernel" --spec "$spec" --emit "$r" > "$f" 2>/dev/null; then
            notbuilt[$g]=$(( ${notbuilt[$g]:-0} + 1 )); continue
          fi
          [ -n "$targs" ] && printf '\nstatic void *hk_compile_check_inst = (void *)&%s<%s>;\n' "$kernel" "$targs" >> "$f"
          if ptx "wild.$id.$r" "$f" "${flags[@]}"; then judge wild "wild.$id.$r"
          else notbuilt[$g]=$(( ${notbuilt[$g]:-0} + 1 )); fi
        done
      done ;;
    kernels)
      for f in "$root"/bench/kernels/*.cu; do
        n=kernels.$(basename "$f" .cu)
        sp=${f%.cu}.bench.json flags=()
        [ -f "$sp" ] && mapfile -t flags < <(jq -r '(.compile_flags // [])[]' "$sp")
        if ptx "$n" "$f" "${flags[@]}"; then judge kernels "$n"; else notbuilt[$g]=$(( ${notbuilt[$g]:-0} + 1 )); fi
      done ;;
    data)
      while IFS= read -r f; do
        n=data.$(echo "${f#"$root"/tests/data/}" | tr '/' '.')
        n=${n%.cu}
        if ptx "$n" "$f" -I "$(dirname "$f")"; then judge data "$n"; else notbuilt[$g]=$(( ${notbuilt[$g]:-0} + 1 )); fi
      done < <(find "$root/tests/data" -name '*.cu' | sort) ;;
    cheats)
      for f in "$root"/tests/gpu/cheats/*.cu; do
        n=cheats.$(basename "$f" .cu)
        case $n in cheats.compile_bomb_*) continue ;; esac # built to exhaust nvcc
        if ptx "$n" "$f"; then judge cheats "$n"; else notbuilt[$g]=$(( ${notbuilt[$g]:-0} + 1 )); fi
      done ;;
    *) echo "ptxrace_sweep.sh: unknown group $g" >&2; exit 2 ;;
  esac
done
echo
echo "| group | texts scanned | not compiled alone | findings | shared loads resolved | shared stores resolved |"
echo "|---|---|---|---|---|---|"
for g in "${groups[@]}"; do
  echo "| $g | ${texts[$g]:-0} | ${notbuilt[$g]:-0} | ${found[$g]:-0} | ${lres[$g]:-0}/${loads[$g]:-0} | ${sres[$g]:-0}/${stores[$g]:-0} |"
done
echo
echo "texts, PTX and scan lines: $out"
exit $status
