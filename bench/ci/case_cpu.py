#!/usr/bin/env python3
"""The CPU of each case of one cmocka test program (issue 14: where a test's CPU goes).

    bench/ci/case_cpu.py [--env NAME=VALUE ...] TEST_BINARY [ARGS...]

Runs the program on a pseudo-terminal (so that its stdio is line-buffered; stdbuf's
LD_PRELOAD would stop a sanitized program: ASan must come first), reads its output as it comes, and at each
cmocka "[ RUN      ]" and "[       OK ]"/"[  FAILED  ]"/"[  SKIPPED ]" line reads the
program's CPU from /proc/PID/stat (user + sys of all its threads, plus its waited-for
children's): the difference between a case's RUN line and its end line is the case's CPU,
its threads and the children it reaped included (a sandboxed or reparented grandchild is
not: bench/ci/cold-test.sh's cgroup counts those). Prints one row per case, then the
program's total and its exit status. The program's own output goes to stderr.
"""
import io
import os
import pty
import re
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def cpu(pid):
    """user + sys + children's user + sys of pid, in seconds (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # fields[0] is the state (field 3); utime is field 14, stime 15, cutime 16, cstime 17
    return sum(int(x) for x in fields[11:15]) / TICK


def main(argv):
    env = dict(os.environ)
    while argv and argv[0] == "--env":
        name, _, value = argv[1].partition("=")
        env[name] = value
        argv = argv[2:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    out = io.TextIOWrapper(io.FileIO(master, "rb", closefd=True), errors="replace", newline=None)
    run = re.compile(r"^\[ RUN +\] (\S+)")
    end = re.compile(r"^\[ +(OK|FAILED|SKIPPED) +\] (\S+)")
    rows, start, t0 = [], {}, time.monotonic()
    last = 0.0
    while True:
        try:
            line = out.readline()
        except OSError:   # EIO: the program and its children closed the terminal
            break
        if not line:
            break
        sys.stderr.write(line)
        now = cpu(proc.pid)
        if now is not None:
            last = now
        m = run.match(line)
        if m:
            start[m.group(1)] = (last, time.monotonic())
            continue
        m = end.match(line)
        if m and m.group(2) in start:
            c0, w0 = start.pop(m.group(2))
            rows.append((m.group(2), m.group(1), last - c0, time.monotonic() - w0))
    _, status, ru = os.wait4(proc.pid, 0)   # the whole program, its exit (LSan's scan) included
    proc.returncode = os.waitstatus_to_exitcode(status)
    total = time.monotonic() - t0
    whole = ru.ru_utime + ru.ru_stime
    print(f"{'case':48} {'result':8} {'CPU-s':>7} {'wall-s':>7}")
    for name, res, c, w in rows:
        print(f"{name:48} {res:8} {c:7.2f} {w:7.2f}")
    print(f"{'(program, until its last line)':48} {'':8} {last:7.2f}")
    print(f"{'(program, whole: wait4 rusage)':48} {'rc ' + str(proc.returncode):8} {whole:7.2f} {total:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
