#!/bin/bash
# What compute-sanitizer would cost at the sizes the referee times, not only at the smallest
# one it runs the tools at today (docs/sanitizer.md, "by the problem size": size_race.cu is
# safe at the small size and races at the timed one). Two roles:
#
#   HK_COMPUTE_SANITIZER=tests/gpu/sanitizer_timed.sh hkls verify-candidate ... --sanitize --keep-work
#       a stand-in for the tool: records each command line it is given (NUL-separated) in
#       hk-sani-argv-<ns>.bin in its working directory (the one the sandbox leaves writable,
#       kept by --keep-work) and its environment in hk-sani-env-<ns>.bin, then runs the real
#       tool ($HK_REAL_SANITIZER, default /usr/local/cuda/bin/compute-sanitizer) as asked, so
#       hkls sees the usual outcome;
#   tests/gpu/sanitizer_timed.sh --replay ROOT [SIZE...]
#       runs every recorded command line found under ROOT again, in its recorded environment
#       and outside any sandbox, once per SIZE (size indices of the spec, default "0 1") in
#       place of the recorded --size, each under `timeout $REPLAY_TIMEOUT_S` (default 240),
#       and prints one table row per run: tool, program, recorded size, replayed size, wall
#       seconds, exit status, the tool's summary line (its error count).
real=${HK_REAL_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
if [ "${1:-}" != --replay ]; then
  n=$(date +%s%N)
  printf '%s\0' "$@" >"$(pwd)/hk-sani-argv-$n.bin" 2>/dev/null
  env -0 >"$(pwd)/hk-sani-env-$n.bin" 2>/dev/null
  exec "$real" "$@"
fi
root=${2:?usage: sanitizer_timed.sh --replay ROOT [SIZE...]}
shift 2
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(0 1)
limit=${REPLAY_TIMEOUT_S:-240}
echo "| tool | program | recorded size | size | wall s | exit | summary |"
echo "|---|---|---|---|---|---|---|"
find "$root" -name 'hk-sani-argv-*.bin' 2>/dev/null | sort | while read -r rec; do
  mapfile -d '' args <"$rec"
  envs=()
  [ -f "${rec/argv/env}" ] && mapfile -d '' envs <"${rec/argv/env}"
  tool=memcheck prog= recorded=
  for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
      --tool) tool=${args[i + 1]} ;;
      --size) recorded=${args[i + 1]} ;;
    esac
    a=${args[i]}
    [ "${a#/}" = "$a" ] && a=$(dirname "$rec")/$a # relative: to the tool's working directory
    if [ -z "$prog" ] && [ -f "$a" ] && [ -x "$a" ]; then prog=${args[i]}; fi
  done
  for s in "${sizes[@]}"; do
    run=()
    for ((i = 0; i < ${#args[@]}; i++)); do
      if [ "${args[i]}" = --size ]; then
        run+=(--size "$s")
        i=$((i + 1))
      else
        run+=("${args[i]}")
      fi
    done
    t0=$(date +%s.%N)
    out=$(cd "$(dirname "$rec")" && env -i "${envs[@]}" timeout -k 5 "$limit" "$real" "${run[@]}" 2>&1)
    rc=$?
    t1=$(date +%s.%N)
    summary=$(printf '%s\n' "$out" | grep -E 'ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY' | tail -1 |
      sed 's/^========= //')
    [ "$rc" -eq 124 ] && summary="cut at ${limit} s"
    # no program found (session 31's first replay: "Target application doesn't exist"): the
    # recorded command line itself, so the next run can say which path the sandbox gave it
    [ -z "$prog" ] && summary="no program among the recorded arguments: ${args[*]:0:12}"
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$tool" "$(basename "$(dirname "$prog")")/$(basename "$prog")" \
      "$recorded" "$s" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" "$rc" "${summary:-$(printf '%s\n' "$out" | tail -1 | cut -c1-120)}"
  done
done
