#!/usr/bin/env bash
# Records compute-sanitizer's real output for the probe cases (probe.cu) on a GPU machine:
#   tests/data/sanitize/probe/record.sh OUTDIR
# Each run leaves OUTDIR/TOOL-CASE.txt (stdout and stderr) and a line in OUTDIR/index.tsv:
# tool, case, flags, exit status, seconds. The fixtures in tests/data/sanitize/ were cut
# from these files.
set -u
out=${1:?usage: record.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
"$cs" --version >"$out/version.txt" 2>&1
"$cs" --help >"$out/help.txt" 2>&1
nvcc -arch=sm_90 -O3 -lineinfo -o "$out/probe" "$here/probe.cu" >"$out/build.txt" 2>&1 || { cat "$out/build.txt"; exit 1; }
flags=(--error-exitcode 86 --check-exit-code no --report-api-errors no --print-limit 1)
run() { # name tool case [extra flags...]
  local name=$1 tool=$2 case=$3; shift 3
  local t0=$EPOCHREALTIME
  ( cd "$out" && timeout "${RUN_TIMEOUT:-90}" "$cs" --tool "$tool" "$@" ./probe "$case" ) >"$out/$name.txt" 2>&1
  local rc=$?
  printf '%s\t%s\t%s\t%s\t%s\n' "$tool" "$case" "$*" "$rc" \
    "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')" >>"$out/index.tsv"
}
: >"$out/index.tsv"
for c in clean oob_read_tail oob_read_tail_guard oob_write uninit_scratch read_output_first fail_exit3; do
  run "memcheck-$c" memcheck "$c" --leak-check no "${flags[@]}"
done
for c in clean race_init race_warp_tail race_same_value race_tree fail_exit3; do
  run "racecheck-$c" racecheck "$c" "${flags[@]}"
done
# (--racecheck-report hazard on race_warp_tail ran past 300 s on the H200: not used)
run racecheck-race_init-all racecheck race_init --error-exitcode 86 --check-exit-code no --report-api-errors no --racecheck-report all
for c in clean uninit_scratch read_output_first shared_uninit oob_read_tail fail_exit3; do
  run "initcheck-$c" initcheck "$c" "${flags[@]}"
done
# the defaults, for the exit-status question
run memcheck-fail_exit3-defaults memcheck fail_exit3
run memcheck-oob_write-defaults memcheck oob_write --error-exitcode 86
run memcheck-oob_read_tail-padding memcheck oob_read_tail --padding 64 "${flags[@]}"
run memcheck-unknown-flag memcheck clean --no-such-flag
# in practice, without the tool: are the racy reductions right?
for c in race_init race_warp_tail race_same_value race_tree; do
  ( cd "$out" && ./probe "$c" 50 ) >"$out/plain-$c.txt" 2>&1
done
cat "$out/index.tsv"
