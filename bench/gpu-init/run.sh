#!/usr/bin/env bash
# What starting a CUDA process costs on this GPU machine, with and without another process
# holding a context (an episode starts a dozen benchmark processes per candidate).
#   bench/gpu-init/run.sh [RUNS]      prints one line per process and a summary table
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=${1:-4}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "skipped: no GPU"
  exit 77
fi
tmp=$(mktemp -d)
trap 'kill "${holder:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
nvcc -O2 -o "$tmp/init" "$here/init.cu"
echo "persistence mode: $(nvidia-smi --query-gpu=persistence_mode --format=csv,noheader 2>/dev/null || echo unknown)"
wall() { local t0 t1; t0=$(date +%s%N); "$tmp/init" >"$tmp/line"; t1=$(date +%s%N); echo "$(( (t1 - t0) / 1000000 )) ms wall: $(cat "$tmp/line")"; }
cold=() warm=()
for i in $(seq "$runs"); do l=$(wall); echo "alone  $i: $l"; cold+=("${l%% ms*}"); done
"$tmp/init" --hold 600 >"$tmp/hold" &
holder=$!
for _ in $(seq 100); do grep -q holding "$tmp/hold" 2>/dev/null && break; sleep 0.1; done
for i in $(seq "$runs"); do l=$(wall); echo "held   $i: $l"; warm+=("${l%% ms*}"); done
kill "$holder" 2>/dev/null || true
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo
echo "| process start | median wall ms (of $runs) |"
echo "|---|---|"
echo "| alone | $(med "${cold[@]}") |"
echo "| another process holds a context | $(med "${warm[@]}") |"
