#!/usr/bin/env bash
# ./hk test's CPU slots (tests/CMakeLists.txt, HK_TESTS_WAITING; ./hk's cpu_slots):
#  1. in this build, every test asks for one CPU slot (RESOURCE_GROUPS cpus:1) except the
#     tests listed as waiting, and each of those exists (a renamed test must not leave a
#     stale name that marks nothing);
#  2. a resource spec file from ./hk's cpu_slots with N slots lets ctest -j 2N run at most N
#     slot-holding tests at a time, and runs a test that holds none beside N of them (a
#     scratch project of sleeping tests, their start and end times logged).
# Usage: cpu_slots_test.sh HK BUILD_DIR CMAKE CTEST WAITING_TEST...
# Exits 77 (skipped) without python3.
set -eu
hk=$1 build=$2 cmake=$3 ctest=$4
shift 4
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
eval "$(sed -n '/^cpu_slots() {/,/^}/p' "$hk")"
type cpu_slots >/dev/null 2>&1 || fail "no cpu_slots in $hk"

# 1. this build's tests, listed from a copy of its CTestTestfile.cmake tree: ctest run in the
# build folder itself, even --show-only, rewrites Testing/Temporary/LastTest.log there while
# the suite runs, and ./hk's summary of the slowest tests reads that log
(cd "$build" && find . -name CTestTestfile.cmake) | while read -r f; do
  mkdir -p "$t/list/$(dirname "$f")" && cp "$build/$f" "$t/list/$f"
done
(cd "$t/list" && "$ctest" --show-only=json-v1) > "$t/tests.json" || fail "ctest --show-only of $build's tests"
python3 - "$t/tests.json" "$@" <<'PY' || exit 1
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
waiting = set(sys.argv[2:])
names = set()
bad = []
for t in tests:
    name = t["name"]
    names.add(name)
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    groups = props.get("RESOURCE_GROUPS")
    if name in waiting:
        if groups:
            bad.append(f"{name} is listed as waiting but holds a CPU slot: {groups}")
    elif groups != [{"requirements": [{".type": "cpus", "slots": 1}]}]:
        bad.append(f"{name} holds no single CPU slot: {groups}")
for w in sorted(waiting - names):
    bad.append(f"{w} is listed as waiting but is no test of this build")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
if bad:
    sys.exit(1)
print(f"ok: {len(names) - len(waiting)} tests hold a CPU slot, {len(waiting)} wait beside them")
PY

# 2. the schedule the spec file gives: 4 tests of 1 s holding a slot, 2 holding none
mkdir -p "$t/p"
cat > "$t/p/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(cpu_slots NONE)
enable_testing()
foreach(i 1 2 3 4)
  add_test(NAME compute${i} COMMAND sh -c "echo compute${i} start $(date +%s%N) >> ${LOG}; sleep 1; echo compute${i} end $(date +%s%N) >> ${LOG}")
  set_tests_properties(compute${i} PROPERTIES RESOURCE_GROUPS cpus:1 COST 10)
endforeach()
foreach(i 1 2)
  add_test(NAME wait${i} COMMAND sh -c "echo wait${i} start $(date +%s%N) >> ${LOG}; sleep 1; echo wait${i} end $(date +%s%N) >> ${LOG}")
endforeach()
EOF
"$cmake" -S "$t/p" -B "$t/b" -DLOG="$t/log" >/dev/null || fail "cmake of the scratch project"
cpu_slots "$t/slots.json" 2
(cd "$t/b" && "$ctest" -j 4 --resource-spec-file "$t/slots.json" >/dev/null) || fail "ctest with the slots"
python3 - "$t/log" <<'PY' || exit 1
import sys
ev = sorted((int(ns), kind, name) for name, kind, ns in (l.split() for l in open(sys.argv[1])))
running, most, beside = set(), 0, 0
for ns, kind, name in ev:  # "end" sorts before "start" at the same nanosecond
    if kind == "start":
        running.add(name)
        computing = sum(n.startswith("compute") for n in running)
        most = max(most, computing)
        if name.startswith("wait") or any(n.startswith("wait") for n in running):
            beside = max(beside, computing)
    else:
        running.discard(name)
if len(ev) != 12:
    sys.exit(f"FAIL: {len(ev)} start/end lines, want 12")
if most != 2:
    sys.exit(f"FAIL: {most} slot-holding tests ran at once with 2 slots, want 2")
if beside != 2:
    sys.exit(f"FAIL: a waiting test ran beside at most {beside} slot-holding tests, want 2")
print("ok: 2 slots, at most 2 computing tests at once, a waiting test beside both")
PY
