#!/usr/bin/env bash
# ./hk test's build behind the plain pass (./hk's behind, behind_wait, behind_stop):
#  1. the command runs at nice 19, in a process group of its own whose scheduling group
#     (where the kernel schedules sessions as groups) is at nice 19 too, its output in the log;
#  2. behind_wait gives its exit status (a failed build fails the run) and its output;
#  3. behind_stop ends the whole group: the command and what it started (make, compilers),
#     not the command alone;
#  4. once behind_wait waits for it (the run has nothing else to do), the command gets the
#     run's priority back: its scheduling group the nice of the run's, and (where we may
#     lower a nice: root) its own the run's.
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
  if [ -r /proc/self/autogroup ]; then echo "autogroup $(cat /proc/self/autogroup)"; fi
  touch "$0"' "$t/said1"
pid=$behind_pid
[ -n "$pid" ] || fail "behind left no pid"
# what it says of its priority, before behind_wait gives the run's back (4.)
for _ in $(seq 300); do [ -e "$t/said1" ] && break; sleep 0.1; done
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

# 4. the priority behind_wait gives back. The command says it started (behind has set its
# priorities by then: in ./hk test the whole plain pass comes between), waits (up to 60
# tries) until its nice or its group's is no longer 19, then says both.
own_nice=$(nice)
behind "$t/log4" sh -c "g() { if [ -r /proc/self/autogroup ]; then cat /proc/self/autogroup; fi; }
  touch '$t/started'
  i=0; while [ \"\$(nice)\" = 19 ] && g | grep -q ' nice 19\$' && [ \$i -lt 60 ]; do
    sleep 0.5; i=\$((i + 1)); done
  sleep 0.5 # the other of the two, set just after
  echo \"nice \$(nice)\"; echo \"autogroup \$(g)\""
for _ in $(seq 300); do [ -e "$t/started" ] && break; sleep 0.1; done
[ -e "$t/started" ] || fail "the command did not start"
behind_wait 2>/dev/null || fail "behind_wait of the waiting command failed"
if [ "$(id -u)" = 0 ]; then
  grep -q "^nice $own_nice\$" "$t/log4" || fail "not back at the run's nice $own_nice: $(cat "$t/log4")"
fi
if [ -n "$own_group" ]; then
  own_group_nice=${own_group##* }
  grep -q "^autogroup /autogroup-[0-9]* nice $own_group_nice\$" "$t/log4" ||
    fail "its scheduling group is not back at the run's nice $own_group_nice: $(cat "$t/log4")"
  [ "$(cat /proc/self/autogroup)" = "$own_group" ] || fail "the test's own group changed: $(cat /proc/self/autogroup)"
fi
echo "behind: ok"
