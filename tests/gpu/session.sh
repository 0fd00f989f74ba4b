#!/usr/bin/env bash
# One device call's worth of the GPU proof, phase after phase under one deadline, so a
# 30-minute lease goes into a few full calls (the device README's advice) and a call cut
# short still returns what it finished. Each phase is one of the existing runners:
#
#   cheats    tests/gpu/run.sh with SUITE=0 (the cheats of CHEATS, default all)
#   suite     tests/gpu/run.sh with CHEATS=none (the kernels of KERNELS, default all)
#   wild      bench/wild/run.sh (the ids of WILD_IDS, default all), then its table
#   oneclick  bench/wild/run.sh with ONECLICK=1 (ONECLICK_IDS, default all)
#   inherited tests/gpu/inherited.sh (the inherited-finding rule on SHOC's reduce)
#   probes    tests/gpu/{smem,local,gridid,sreg}_probe.cu built with nvcc and run: whether shared
#             and local memory carry a launch's words to the next, scrubbed and not; what
#             %gridid and the unrefused special registers read (sreg: plain and under
#             compute-sanitizer, to compare)
#
#   tests/gpu/session.sh [PHASE...]        (default: cheats suite wild oneclick)
#
# Environment (besides what run.sh and bench/wild/run.sh read, HKLS above all):
#   DEADLINE_S=S   seconds for the whole call (default 540): each phase gets what is left,
#                  less MARGIN_S (default 25) for the tables and the archive
#   OUT=DIR        where at most 8 files go (the device tool's limit): summary-cheats.txt,
#                  summary-suite.txt, wild-table.md, oneclick-table.md, inherited-table.md,
#                  probes.txt,
#                  session.txt (what
#                  ran, for how long, and why a phase was skipped) and logs.tar.gz (every
#                  phase's logs and reports, no databases)
#   CHEAT_JOBS, JOBS, BUDGET, MINUTES, KERNEL_TIMEOUT, CHEAT_TIMEOUT: run.sh's;
#   WILD_JOBS (default 4), WILD_ARGS (default "--budget 3 --minutes 0.5"),
#   EPISODE_TIMEOUT (default 200): bench/wild/run.sh's JOBS, HKLS_ARGS and EPISODE_TIMEOUT.
# Exit: 77 without a GPU ("skipped: no GPU"), 2 for a phase it does not know, else 0 (the
# phases' own verdicts are in their tables).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "skipped: no GPU"
  exit 77
fi
phases=("$@")
[ ${#phases[@]} -eq 0 ] && phases=(cheats suite wild oneclick)
for p in "${phases[@]}"; do
  case "$p" in cheats|suite|wild|oneclick|inherited|probes) ;; *) echo "session.sh: unknown phase $p" >&2; exit 2 ;; esac
done
deadline=${DEADLINE_S:-540}
margin=${MARGIN_S:-25}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hk-session.XXXXXX")}
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/hk-session-work.XXXXXX")
t0=$(date +%s)
log="$out/session.txt"
: >"$log"
left() { echo $(( deadline - margin - ($(date +%s) - t0) )); }
note() { echo "$*" | tee -a "$log" >&2; }
note "session.sh: phases ${phases[*]}; deadline ${deadline} s; commit ${HK_COMMIT:-$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)}"

run_phase() {
  local p=$1 budget s rc
  budget=$(left)
  if [ "$budget" -lt 60 ]; then
    note "$p: skipped, $budget s left"
    return
  fi
  s=$(date +%s)
  case "$p" in
    cheats)
      SUITE=0 DEADLINE_S=$budget OUT="$work/cheats" "$here/run.sh" >"$work/cheats.log" 2>&1
      rc=$?
      cp "$work/cheats/summary.txt" "$out/summary-cheats.txt" 2>/dev/null ;;
    suite)
      local kernels=()
      read -r -a kernels <<<"${KERNELS:-}"
      CHEATS=none DEADLINE_S=$budget OUT="$work/suite" "$here/run.sh" "${kernels[@]}" >"$work/suite.log" 2>&1
      rc=$?
      cp "$work/suite/summary.txt" "$out/summary-suite.txt" 2>/dev/null ;;
    probes)
      # each exits 0 when its scrubbed reads found nothing (gridid_probe and sreg_probe only
      # print; sreg_probe runs a second time under compute-sanitizer, to compare)
      rc=0
      for probe in smem_probe local_probe gridid_probe sreg_probe; do
        { nvcc -std=c++17 -arch=sm_90 -I"$top/include" -o "$work/$probe" "$here/$probe.cu" &&
            timeout -k 10 "$budget" "$work/$probe"; echo "$probe: exit $?"; } >>"$out/probes.txt" 2>&1
        tail -1 "$out/probes.txt" | grep -q ': exit 0$' || rc=1
      done
      cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
      if [ -x "$cs" ] && [ -x "$work/sreg_probe" ]; then
        { timeout -k 10 "$budget" "$cs" --tool memcheck "$work/sreg_probe"
          echo "sreg_probe under compute-sanitizer: exit $?"; } >>"$out/probes.txt" 2>&1
      fi ;;
    inherited)
      timeout -k 10 "$budget" env OUT="$work/inherited" "$here/inherited.sh" >"$work/inherited.log" 2>&1
      rc=$?
      cp "$work/inherited/inherited-table.md" "$out/inherited-table.md" 2>/dev/null ;;
    wild|oneclick)
      local ids=() one=0 name=wild
      [ "$p" = oneclick ] && one=1 name=oneclick
      read -r -a ids <<<"$([ "$p" = oneclick ] && echo "${ONECLICK_IDS:-}" || echo "${WILD_IDS:-}")"
      # the episodes left running at the cut are stopped with the call; their rows read FAIL
      timeout -k 10 "$budget" env ONECLICK=$one JOBS="${WILD_JOBS:-4}" \
          EPISODE_TIMEOUT="${EPISODE_TIMEOUT:-200}" HKLS_ARGS="${WILD_ARGS:---budget 3 --minutes 0.5}" \
          OUT="$work/$name" "$top/bench/wild/run.sh" "${ids[@]}" >"$work/$name.log" 2>&1
      rc=$?
      TABLE_ONLY=1 ONECLICK=$one OUT="$work/$name" "$top/bench/wild/run.sh" "${ids[@]}" \
          >"$out/$name-table.md" 2>/dev/null ;;
  esac
  note "$p: exit $rc after $(( $(date +%s) - s )) s (had $budget s)"
}
for p in "${phases[@]}"; do run_phase "$p"; done

# every phase's logs and reports, without the databases and HTML (the 16 MiB per file limit)
(cd "$work" && tar -czf "$out/logs.tar.gz" --exclude='*.db' --exclude='*.db-*' --exclude='*.html' \
   --exclude='src' . 2>/dev/null)
note "total $(( $(date +%s) - t0 )) s; files in $out: $(ls "$out" | tr '\n' ' ')"
exit 0
