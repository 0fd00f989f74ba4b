#!/usr/bin/env python3
"""Replays a ctest pass's test times through the schedule ./hk test gives ctest (issue 14).

usage: schedule.py BUILD_DIR TIMES [SLOTS [JOBS]]

BUILD_DIR: a configured build; its tests' COST, RESOURCE_GROUPS (the CPU slots of
tests/CMakeLists.txt) and fixtures come from `ctest --show-only=json-v1`, run on a copy of
its CTestTestfile.cmake tree (ctest run in the folder itself rewrites its LastTest.log).
TIMES: each test's wall seconds, from a ctest output ("  12/178 Test  #45: unit/x ....
Passed   81.56 sec" lines, e.g. the log of a .ci/run; where a log holds two passes, the last
time of a name counts: pass the plain pass's part alone) or from a LastTest.log ("Test
time =").
SLOTS: CPU slots (default 2, ./hk test's `nproc` on the CI VM); JOBS: ctest -j (default
twice SLOTS).

ctest starts the costliest test that fits first (COST, descending; a test without one
counts 0, then in the order of the list), as many as -j allows, a slot-holding test only
while a slot is free, a test whose fixture setup has not ended not at all. Each test takes
its measured time whatever runs beside it: the replay says what the order and the slots
cost, not what contention would do. Prints the replayed wall time, then the ten tests that
end last with their start times."""
import heapq
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def tests_of(build):
    tmp = tempfile.mkdtemp()
    try:
        for root, _, files in os.walk(build):
            if "CTestTestfile.cmake" in files:
                rel = os.path.relpath(root, build)
                os.makedirs(os.path.join(tmp, rel), exist_ok=True)
                shutil.copy(os.path.join(root, "CTestTestfile.cmake"), os.path.join(tmp, rel))
        out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=tmp, check=True,
                             capture_output=True, text=True).stdout
    finally:
        shutil.rmtree(tmp)
    tests = []
    for t in json.loads(out)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        slots = 0
        for g in props.get("RESOURCE_GROUPS") or []:
            for r in g.get("requirements", []):
                if r.get(".type") == "cpus":
                    slots += r.get("slots", 0)
        tests.append({"name": t["name"], "cost": float(props.get("COST", 0) or 0),
                      "slots": slots, "setup": set(props.get("FIXTURES_SETUP") or []),
                      "required": set(props.get("FIXTURES_REQUIRED") or [])})
    return tests


def times_of(path):
    times = {}
    name = None
    with open(path, errors="replace") as f:
        for line in f:
            line = re.sub(r"\x1b\[[0-9;]*m", "", line)
            m = re.search(r"Test +#\d+: (\S+) .*?([\d.]+) sec", line)
            if m:
                times[m.group(1)] = float(m.group(2))
                continue
            m = re.match(r"^\d+/\d+ Test: (\S+)", line)
            if m:
                name = m.group(1)
            m = re.match(r"^Test time =\s*([\d.]+)", line)
            if m and name:
                times[name] = float(m.group(1))
    return times


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, times_path = sys.argv[1], sys.argv[2]
    slots = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 2 * slots
    times = times_of(times_path)
    tests = [t for t in tests_of(build) if t["name"] in times]
    # stable sort: equal costs keep the list's order, as ctest does
    pending = sorted(tests, key=lambda t: -t["cost"])
    setups = {}
    for t in tests:
        for fx in t["setup"]:
            setups.setdefault(fx, set()).add(t["name"])
    done, running, log = set(), [], []
    now, used = 0.0, 0
    while pending or running:
        started = True
        while started and len(running) < jobs:
            started = False
            for t in pending:
                if any(not setups.get(fx, set()) <= done for fx in t["required"]):
                    continue
                if used + t["slots"] > slots:
                    continue
                heapq.heappush(running, (now + times[t["name"]], t["name"], t["slots"]))
                log.append((now, t["name"]))
                used += t["slots"]
                pending.remove(t)
                started = True
                break
        if not running:
            break  # a fixture that never ends: nothing more can start
        now, name, held = heapq.heappop(running)
        used -= held
        done.add(name)
    missing = sorted(set(times) - {t["name"] for t in tests})
    print(f"replayed wall {now:.0f} s for {len(tests)} tests "
          f"(their times sum to {sum(times[t['name']] for t in tests):.0f} s; "
          f"{slots} slots, -j{jobs})")
    if missing:
        print(f"not tests of {build}: {', '.join(missing)}")
    print("ending last (start, time, test):")
    ends = sorted(((s + times[n], s, n) for s, n in log), reverse=True)[:10]
    for e, s, n in ends:
        print(f"  {s:7.1f} {times[n]:7.1f}  {n}")


if __name__ == "__main__":
    main()
