#!/usr/bin/env bash
# ./hk test's summary of the ten slowest tests (./hk's slowest), read from ctest's own
# Testing/Temporary/LastTest.log after the run, and that log's keeping:
#  1. on a real LastTest.log (a scratch project of 12 sleeping tests run by this ctest),
#     slowest lists the ten slowest, slowest first, with their times; without a log it says
#     nothing and succeeds;
#  2. cpu_slots_test.sh, which runs inside the suite, leaves the build folder's
#     LastTest.log as it was (it lists the tests from a copy of the CTestTestfile tree); the
#     check is shown to see a clobbered log: ctest --show-only run in the folder itself
#     rewrites it.
# Usage: slowest_test.sh HK CTEST CMAKE CPU_SLOTS_TEST. Exits 77 (skipped) without python3
# (cpu_slots_test.sh needs it).
set -eu
hk=$1 ctest=$2 cmake=$3 slots_test=$4
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
say() { :; }
eval "$(sed -n '/^slowest() {/,/^}/p' "$hk")"
type slowest >/dev/null 2>&1 || fail "no slowest in $hk"

# 1. twelve tests that sleep 0.05 s times their number, so that their order is known; each
# holds a CPU slot as the suite's do (cpu_slots_test.sh checks that, in part 2)
mkdir -p "$t/p"
{
  echo 'cmake_minimum_required(VERSION 3.16)'
  echo 'project(slowest NONE)'
  echo 'enable_testing()'
  for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
    printf 'add_test(NAME t%02d COMMAND sleep %s)\n' "$i" "$(awk "BEGIN { print $i * 0.05 }")"
    printf 'set_tests_properties(t%02d PROPERTIES RESOURCE_GROUPS cpus:1)\n' "$i"
  done
} > "$t/p/CMakeLists.txt"
"$cmake" -S "$t/p" -B "$t/b" >/dev/null || fail "cmake of the scratch project"
(cd "$t/b" && "$ctest" -j 1 >/dev/null) || fail "ctest of the scratch project"
log=$t/b/Testing/Temporary/LastTest.log
[ -f "$log" ] || fail "ctest wrote no $log"
slowest "$t/b" 2> "$t/summary"
n=$(wc -l < "$t/summary")
[ "$n" -eq 10 ] || fail "slowest printed $n lines, want 10:
$(cat "$t/summary")"
names=$(awk '{ print $2 }' "$t/summary" | tr '\n' ' ')
[ "$names" = "t12 t11 t10 t09 t08 t07 t06 t05 t04 t03 " ] ||
  fail "slowest listed '$names', want t12 down to t03:
$(cat "$t/summary")"
# the times are the log's: the slowest slept 0.6 s
first=$(awk 'NR == 1 { print $1 }' "$t/summary")
awk -v f="$first" 'BEGIN { exit !(f >= 0.5 && f < 30) }' || fail "t12 took '$first' s, want about 0.6"
mkdir -p "$t/empty"
slowest "$t/empty" 2> "$t/none" || fail "slowest without a log failed"
[ ! -s "$t/none" ] || fail "slowest without a log printed: $(cat "$t/none")"
echo "ok: the ten slowest of 12, slowest first, from ctest's own log"

# 2. cpu_slots_test.sh on that build leaves its LastTest.log alone
before=$(cksum < "$log")
"$slots_test" "$hk" "$t/b" "$cmake" "$ctest" > "$t/slots.out" 2>&1 ||
  fail "cpu_slots_test.sh on the scratch build: $(cat "$t/slots.out")"
[ "$(cksum < "$log")" = "$before" ] || fail "cpu_slots_test.sh rewrote $log"
slowest "$t/b" 2> "$t/summary2"
cmp -s "$t/summary" "$t/summary2" || fail "the summary changed after cpu_slots_test.sh"
# the check sees a clobbered log: ctest in the folder itself, even --show-only, rewrites it
(cd "$t/b" && "$ctest" --show-only >/dev/null) || fail "ctest --show-only"
[ "$(cksum < "$log")" != "$before" ] ||
  fail "ctest --show-only left the log as it was: this check could not see a clobbered log"
echo "ok: cpu_slots_test.sh keeps the build's LastTest.log (ctest --show-only in place does not)"
