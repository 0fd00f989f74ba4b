#!/usr/bin/env bash
# The cheats that need no GPU to be judged (tests/gpu/cheats): every cheat whose first line
# expects "host_code" goes through `hkls verify-candidate` with HK_NO_GPU=1 and must come
# back rejected as host_code -- the referee refuses candidate text that adds or changes
# host code or preprocessor lines before it compiles anything, so no GPU (and no run) is
# involved. Cheats that expect "compile_error" are judged the same way (the referee's own
# nvcc flags refuse them), and so are those that expect "reads_clock", "local_state" or "device_heap"
# (judged from the two images' PTX right after they build, before a GPU is looked for), and so
# are the "race" cheats whose header has a line `// judged from the PTX: race` (a shared-memory
# race in the image, taken or not: measure_race_check, session 39). Every other cheat is judged by running it and is listed as
# "skipped (needs a GPU)"; tests/gpu/run.sh runs them all on a GPU machine.
#
#   tests/gpu/cheats_cpu.sh [CHEAT.cu...]      (default: every tests/gpu/cheats/*.cu)
#
# Environment: HKLS=PATH the hkls binary (default: build/hkls of this tree);
#              CHEAT_TIMEOUT=S wall-clock limit of one verify-candidate (default 120);
#              CHEAT_TARGET=T  verify for --target T (e.g. dcu:gfx906: the host-code rule is
#                              the same for a HIP build; the host_code cheats are judged,
#                              and the reads_clock and device_heap ones that build with hipcc
#                              (the clock and ockl's heap calls are read in the code
#                              object's assembly); the compile_error ones are nvcc's and are
#                              skipped);
#              BOMB_CPU_S, BOMB_MEMORY_MB: the compile limits the compile bombs
#                              (compile_bomb_*.cu) are judged under (HK_COMPILE_CPU_S,
#                              HK_COMPILE_MEMORY_MB; default 3 s and 768 MiB), so that each
#                              stops within seconds, not at the referee's defaults (120 s,
#                              4 GiB); every other cheat compiles under the defaults. 3 s
#                              per process is three times the whole of a small kernel's
#                              nvcc -cubin here (about 1 s in all its processes), and a bomb
#                              needs minutes: each is still stopped by the limit, and the
#                              three cost ~9 CPU-s a run in place of ~23 at 8 s (issue 14:
#                              CI time, bench/results/2026-12-05-ci-time-s33.md).
# Prints "cheat | expected | got | ok" per cheat and a count. Exit 0 when every cheat that
# can be judged without a GPU got an expected reason, 1 otherwise, 2 without hkls.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
hkls=${HKLS:-$top/build/hkls}
timeout_s=${CHEAT_TIMEOUT:-120}
if [ ! -x "$hkls" ]; then
  echo "cheats_cpu.sh: no hkls at $hkls (set HKLS)" >&2
  exit 2
fi
# The toolkit's folder only when no nvcc is on PATH: under ./hk test the suite's compile
# cache (tests/tools/nvcc_cache.c) is the nvcc found first, and must stay first.
if ! command -v nvcc >/dev/null 2>&1 && [ -d /usr/local/cuda/bin ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
have_nvcc=0
command -v nvcc >/dev/null 2>&1 && have_nvcc=1
target_args=()
[ -z "${CHEAT_TARGET:-}" ] || target_args=(--target "$CHEAT_TARGET")

cheats=("$@")
[ ${#cheats[@]} -gt 0 ] || cheats=("$here"/cheats/*.cu)
work=$(mktemp -d "${TMPDIR:-/tmp}/hk-cheats-cpu.XXXXXX")
trap 'rm -rf "$work"' EXIT

failed=0 judged=0 passed=0 skipped=0
rows=()
row() { rows+=("$(printf '%-26s | %-30s | %-24s | %s' "$1" "$2" "$3" "$4")"); }

for c in "${cheats[@]}"; do
  name=$(basename "$c")
  expect=$(sed -n '1s#^// expect: *\([a-z_|]*\).*#\1#p' "$c")
  ck=$(sed -n '2s#^// kernel: *\([A-Za-z_0-9:]*\).*#\1#p' "$c")
  [ -n "$ck" ] || ck=$(sed -n 's/^__global__ void \([A-Za-z_0-9]*\)(.*/\1/p' "$c" | head -1)
  alts="|$expect|"
  # a race the referee reads in the PTX (measure_race_check) is judged here too
  ptx_race=0
  grep -q '^// judged from the PTX: race' "$c" && ptx_race=1
  # a cheat written for a DCU alone (AMDGPU inline asm: `// target: dcu` on line 3) is judged
  # with a dcu target only (session 52)
  if sed -n '3p' "$c" | grep -q '^// target: dcu' && case "${CHEAT_TARGET:-}" in dcu*) false ;; *) true ;; esac; then
    row "$name" "$expect" "-" "not run (DCU's; target ${CHEAT_TARGET:-cuda})"
    continue
  fi
  if [ -z "$expect" ]; then
    row "$name" "-" "no '// expect:' line" FAIL
    failed=1
    continue
  fi
  case "$alts" in
    *"|host_code|"*) ;;
    *"|race|"*)
      if [ "$ptx_race" = 0 ]; then
        row "$name" "$expect" "-" "skipped (needs a GPU)"
        skipped=$((skipped + 1))
        continue
      fi
      if [ -n "${CHEAT_TARGET:-}" ]; then
        row "$name" "$expect" "-" "not run (PTX's; target $CHEAT_TARGET)"
        continue
      fi
      if [ "$have_nvcc" = 0 ]; then
        row "$name" "$expect" "-" "not run (no nvcc here)"
        continue
      fi ;;
    *"|compile_error|"*|*"|reads_clock|"*|*"|local_state|"*|*"|device_heap|"*)
      # a DCU target: the clock is read in the code object's assembly (hipcc), so the
      # reads_clock cheats that build for HIP are judged too (session 30), and the
      # device_heap ones (ockl's __ockl_dm_alloc, session 38); a compile error is nvcc's
      # refusal, or a cheat written for CUDA alone; local_state is read in PTX only (a DCU
      # image's assembly is not read for local memory)
      if [ -n "${CHEAT_TARGET:-}" ] && { case "$alts" in *"|reads_clock|"*|*"|device_heap|"*) false ;; *) true ;; esac ||
                                        ! command -v hipcc >/dev/null 2>&1; }; then
        row "$name" "$expect" "-" "not run (nvcc's or PTX's; target $CHEAT_TARGET)"
        continue
      fi
      if [ "$have_nvcc" = 0 ]; then
        row "$name" "$expect" "-" "not run (no nvcc here)"
        continue
      fi ;;
    *)
      row "$name" "$expect" "-" "skipped (needs a GPU)"
      skipped=$((skipped + 1))
      continue ;;
  esac
  spec=$(grep -l "\"kernel\": \"$ck\"" "$top"/bench/kernels/*.bench.json 2>/dev/null | head -1)
  if [ -z "$spec" ]; then
    row "$name" "$expect" "no spec for $ck" FAIL
    failed=1
    continue
  fi
  judged=$((judged + 1))
  out="$work/$name.json"
  limits=()
  case "$name" in
    compile_bomb_*) limits=(HK_COMPILE_CPU_S="${BOMB_CPU_S:-3}" HK_COMPILE_MEMORY_MB="${BOMB_MEMORY_MB:-768}") ;;
  esac
  env "${limits[@]}" HK_NO_GPU=1 timeout -k 10 "$timeout_s" "$hkls" verify-candidate --spec "$spec" --candidate "$c" \
      "${target_args[@]}" --json --work-dir "$work/w-$name" >"$out" 2>"$work/$name.log"
  rc=$?
  got=$(python3 -c 'import json,sys
t=open(sys.argv[1]).read(); i=t.find("{")
if i < 0: sys.exit(1)
d=json.loads(t[i:])
print("accepted" if d.get("accepted") else d.get("reason") or "?")' "$out" 2>/dev/null)
  if [ -z "$got" ]; then
    case $rc in 124|137) got=timeout_${timeout_s}s ;; *) got="exit $rc" ;; esac
  fi
  if [ -n "${CHEAT_TARGET:-}" ] && [ "$got" = compile_error ] &&
     ! printf '%s' "$alts" | grep -qF "|compile_error|"; then
    row "$name" "$expect" "$got" "not run (does not build for $CHEAT_TARGET)"
    judged=$((judged - 1))
    skipped=$((skipped + 1))
  elif printf '%s' "$alts" | grep -qF "|$got|"; then
    row "$name" "$expect" "$got" PASS
    passed=$((passed + 1))
  elif [ "$got" = no_gpu ] && [ "$alts" != "|host_code|" ] && [ "$alts" != "|compile_error|" ] &&
       [ "$ptx_race" = 0 ] &&
       ! printf '%s' "$alts" | grep -qF "|reads_clock|" && ! printf '%s' "$alts" | grep -qF "|local_state|" &&
       ! printf '%s' "$alts" | grep -qF "|device_heap|"; then
    # it compiled: its other expected reason needs a run
    row "$name" "$expect" "$got" "skipped (compiled; needs a GPU)"
    judged=$((judged - 1))
    skipped=$((skipped + 1))
  else
    row "$name" "$expect" "$got" FAIL
    failed=1
    if [ "$got" = no_gpu ] || [ "$got" = compile_error ]; then
      echo "$name: expected $expect before any compile, got $got (is the host-code check in this hkls?)" >&2
    else
      tail -3 "$work/$name.log" >&2
    fi
  fi
done

printf '%-26s | %-30s | %-24s | %s\n' cheat expected got ok
printf '%s\n' "${rows[@]}"
echo "cheats judged without a GPU: $passed of $judged rejected for their expected reason;" \
     "$skipped skipped (need a GPU: tests/gpu/run.sh)"
exit $failed
