#!/usr/bin/env python3
"""Per-test table of a ctest pass and its compile-cache log (issue 14's cold-run figures).

usage: cold-table.py BUILD_DIR NVCC_LOG [TOP]

BUILD_DIR's ctest log (Testing/Temporary/LastTest.log) gives each test's wall seconds;
NVCC_LOG is the file HK_NVCC_LOG named during that pass (tests/tools/nvcc_cache.c: one
line per compiler call: kind, wall s, CPU s, key, test, command line). Prints a Markdown
table of the TOP (default 30) slowest tests with their misses, hits and direct calls and
the misses' wall and CPU seconds, then the totals."""
import collections
import os
import re
import sys


def main():
    build, log = sys.argv[1], sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    wall = {}
    name = None
    with open(build + "/Testing/Temporary/LastTest.log", errors="replace") as f:
        for line in f:
            m = re.match(r"^\d+/\d+ Test: (\S+)", line)
            if m:
                name = m.group(1)
            m = re.match(r"^Test time =\s*([\d.]+)", line)
            if m and name:
                wall[name] = float(m.group(1))
    calls = collections.defaultdict(lambda: {"miss": 0, "hit": 0, "direct": 0,
                                             "miss_wall": 0.0, "miss_cpu": 0.0,
                                             "direct_wall": 0.0})
    with open(log, errors="replace") as f:
        for line in f:
            p = line.split(" ", 5)
            if len(p) < 5:
                continue
            c = calls[p[4]]
            c[p[0]] = c.get(p[0], 0) + 1
            if p[0] == "miss":
                c["miss_wall"] += float(p[1])
                c["miss_cpu"] += float(p[2])
            elif p[0] == "direct":
                c["direct_wall"] += float(p[1])

    # The name each test has in the log (nvcc_cache.c's test_name()): its program's base
    # name, or its script's after an interpreter, with ":WORD" for the first argument that
    # is no path (a log of before that rule has the bare script name: matched when only one
    # test runs that script, else shown as that script's group).
    logname, bare = {}, collections.defaultdict(list)
    for root, _, files in os.walk(build):
        if "CTestTestfile.cmake" not in files:
            continue
        with open(os.path.join(root, "CTestTestfile.cmake"), errors="replace") as f:
            for m in re.finditer(r'^add_test\((\S+) (.*)\)$', f.read(), re.M):
                args = re.findall(r'"([^"]*)"', m.group(2))
                if not args:
                    continue
                interp = re.match(r"^(python\d*(\.\d+)?|bash|sh|nvim|node)$",
                                  os.path.basename(args[0]))
                k = 1 if interp and len(args) > 1 else 0
                name = os.path.basename(args[k])
                bare[name].append(m.group(1))
                word = next((a for a in args[k + 1:] if a and "/" not in a
                             and not a.startswith("-")), None)
                logname[m.group(1)] = name + (":" + word if word else "")

    rows = []
    used = set()
    for t, w in wall.items():
        k = logname.get(t, t)
        if k not in calls and len(bare.get(k.split(":")[0], [])) == 1:
            k = k.split(":")[0]
        if k in calls:
            used.add(k)
        rows.append((w, t, calls.get(k, {})))
    for k in calls:  # a bare script name that several tests run: one row for the group
        if k not in used and len(bare.get(k, [])) > 1:
            used.add(k)
            ws = sum(wall.get(t, 0) for t in bare[k])
            rows.append((ws, "(" + ", ".join(sorted(bare[k])) + ")", calls[k]))
    rows.sort(key=lambda r: -r[0])
    print("| test | wall s | nvcc misses | misses wall s | misses CPU s | hits | direct (wall s) |")
    print("|---|---|---|---|---|---|---|")
    for w, t, c in rows[:top]:
        print(f"| {t} | {w:.1f} | {c.get('miss', 0)} | {c.get('miss_wall', 0):.1f} | "
              f"{c.get('miss_cpu', 0):.1f} | {c.get('hit', 0)} | "
              f"{c.get('direct', 0)} ({c.get('direct_wall', 0):.1f}) |")
    unmatched = [k for k in calls if k not in used]
    tm = sum(c["miss"] for c in calls.values())
    tw = sum(c["miss_wall"] for c in calls.values())
    tc = sum(c["miss_cpu"] for c in calls.values())
    th = sum(c["hit"] for c in calls.values())
    td = sum(c["direct"] for c in calls.values())
    print()
    print(f"{len(wall)} tests, {sum(wall.values()):.0f} test-seconds; compiler calls: "
          f"{tm} misses ({tw:.0f} s wall, {tc:.0f} s CPU), {th} hits, {td} direct")
    if unmatched:
        print("log names not matched to a test: " + ", ".join(sorted(unmatched)))


main()
