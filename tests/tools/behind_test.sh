#!/usr/bin/env bash
# ./hk test's build behind the plain pass (./hk's behind, behind_wait, behind_stop):
#  1. the command runs at nice 19, in a process group of its own whose scheduling group
#     (where the kernel schedules sessions as groups) is at nice 19 too, its output in the log;
#  2. behind_wait gives its exit status (a failed build fails the run) and its output;
#  3. behind_stop ends the whole group: the command and what it started (make, compilers),
#     not the command alone.
# Usage: behind_test.sh HK
set -eu
hk=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for f in behind behind_wait behind_stop; do
  eval "$(sed -n "/^$f() {/,/^}/p" "$hk")"
  type "$f" >/dev/null 2>&1 || fail "no $f in $hk"
done
behind_pid=
behind_log=

# 1. priority (the process's, and its scheduling group's where sessions are scheduled as
# groups), group, output
own_group=
[ -r /proc/self/autogroup ] && own_group=$(cat /proc/self/autogroup)
behind "$t/log1" sh -c 'echo "nice $(nice) pgid $(ps -o pgid= -p $$ | tr -d " ") pid $$"; echo to-stderr >&2
  if [ -r /proc/self/autogroup ]; then echo "autogroup $(cat /proc/self/autogroup)"; fi'
pid=$behind_pid
[ -n "$pid" ] || fail "behind left no pid"
behind_wait 2> "$t/err1" || fail "behind_wait of a command that exits 0 failed"
[ -z "$behind_pid" ] || fail "behind_wait kept the pid"
grep -q "^nice 19 " "$t/log1" || fail "not at nice 19: $(cat "$t/log1")"
grep -q " pgid $pid pid $pid\$" "$t/log1" || fail "not in a process group of its own (pid $pid): $(cat "$t/log1")"
[ "$(ps -o pgid= -p $$ | tr -d ' ')" != "$pid" ] || fail "the command's group is the test's"
grep -q "^to-stderr\$" "$t/log1" || fail "its stderr is not in the log"
grep -q "^nice 19 " "$t/err1" || fail "behind_wait did not print the output"
if [ -n "$own_group" ]; then
  grep -q "^autogroup /autogroup-[0-9]* nice 19\$" "$t/log1" ||
    fail "its scheduling group is not at nice 19: $(grep autogroup "$t/log1")"
  [ "$(cat /proc/self/autogroup)" = "$own_group" ] || fail "the test's own group changed: $(cat /proc/self/autogroup)"
fi

# 2. the exit status
behind "$t/log2" sh -c 'echo building; exit 3'
rc=0
behind_wait 2>/dev/null || rc=$?
[ "$rc" = 3 ] || fail "behind_wait gave $rc for a command that exited 3"
behind_wait || fail "behind_wait with nothing behind failed"

# 3. behind_stop ends the command and its children
behind "$t/log3" sh -c "sleep 300 & echo \$! > '$t/child'; wait"
pid=$behind_pid
for _ in $(seq 100); do [ -s "$t/child" ] && break; sleep 0.1; done
[ -s "$t/child" ] || fail "the command did not start its child"
child=$(cat "$t/child")
kill -0 "$child" 2>/dev/null || fail "the child is not running"
behind_stop
[ -z "$behind_pid" ] || fail "behind_stop kept the pid"
for _ in $(seq 50); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$child" 2>/dev/null; then
  kill "$child"
  fail "behind_stop left the command's child running"
fi
if kill -0 "$pid" 2>/dev/null; then fail "behind_stop left the command running"; fi
behind_stop # nothing behind: nothing to do, no failure
echo "behind: ok"
