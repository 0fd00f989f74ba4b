#!/bin/bash
# One ctest test in a cpuacct group of its own (issue 14: per-test CPU of a whole pass, every
# process the test started counted, the sandboxed runs too, which /usr/bin/time misses).
# phases.sh puts it in front of every add_test of a build's CTestTestfile.cmake files:
#   add_test(NAME "bench/ci/cgwrap.sh" "NAME" CMD...)
# so ctest runs `cgwrap.sh NAME CMD...`. Appends "NAME user_s sys_s wall_s rc" to $HK_CG_OUT;
# the group is made under the pass's group $HK_CG_GROUP (cgroup v1 cpuacct, as root), so the
# pass's own figure keeps counting it. HK_TEST_NAME=NAME for the compile cache's log.
name=$1; shift
base=/sys/fs/cgroup/cpuacct/${HK_CG_GROUP:?}
g=$base/t-$(echo "$name" | tr '/' '_')-$$
mkdir -p "$g"
echo $$ > "$g/cgroup.procs"
t0=$(date +%s.%N)
HK_TEST_NAME=$name "$@"
rc=$?
t1=$(date +%s.%N)
sleep 0.1 # what the test left running (none, normally) counts up to here
tck=$(getconf CLK_TCK)
u=$(awk -v k="$tck" '$1=="user"{printf "%.2f",$2/k}' "$g/cpuacct.stat")
s=$(awk -v k="$tck" '$1=="system"{printf "%.2f",$2/k}' "$g/cpuacct.stat")
echo $$ > "$base/cgroup.procs"
echo "$name $u $s $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f",b-a}') $rc" >> "${HK_CG_OUT:?}"
rmdir "$g" 2>/dev/null || echo "$name: left processes in $g" >> "$HK_CG_OUT.left"
exit $rc
