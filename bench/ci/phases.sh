#!/bin/bash
# .ci/run's work on a clean clone, phase by phase, for issue 14's per-phase and per-test CPU:
#   bench/ci/phases.sh CLONE TAG OUTDIR
# ./hk demo; the plain build (tests on); the ASan build (sequential here, where ./hk test
# runs it behind the plain pass: the same work, each phase's CPU alone); the plain pass; the
# ASan pass (HK_PLAIN_PASS_RAN=1, -LE no_sanitized_code), with ./hk test's environment (the
# compile cache's stand-in first on PATH, HK_NVCC_CACHE, HK_CACHE_DIR, the direct python3,
# ctest -j4 with 2 CPU slots) and HK_NVCC_LOG (OUTDIR/nvcclog/PASS.log). Each phase runs in a
# cpuacct group (cgroup v1, as root): OUTDIR/phases.txt, one line each with the load average
# at its end; each test in a group of its own (cgwrap.sh): OUTDIR/PASS.tests.
# For CPU by program: switch BSD process accounting on around it (acct_comm.py).
set -u
top=$(cd "$1" && pwd) tag=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/nvcclog"
phase() { # phase NAME CMD...: CMD in cpuacct group TAG-NAME
  local g=/sys/fs/cgroup/cpuacct/$tag-$1 t0 t1 rc tck; shift
  mkdir -p "$g"
  t0=$(date +%s.%N)
  (echo $BASHPID > "$g/cgroup.procs" && exec "$@")
  rc=$?
  t1=$(date +%s.%N)
  sleep 0.2
  tck=$(getconf CLK_TCK)
  echo "$(basename "$g") user $(awk -v k="$tck" '$1=="user"{printf "%.1f",$2/k}' "$g/cpuacct.stat")" \
       "sys $(awk -v k="$tck" '$1=="system"{printf "%.1f",$2/k}' "$g/cpuacct.stat")" \
       "wall $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f",b-a}') rc $rc" \
       "load $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)" >> "$out/phases.txt"
  return $rc
}
cd "$top"
echo "start $tag $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/phases.txt"
phase demo ./hk demo > "$out/demo.log" 2>&1 || exit 1
phase plain-build bash -c 'cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHK_TESTS=ON >/dev/null && cmake --build build -j2' > "$out/plain-build.log" 2>&1 || exit 1
phase asan-build bash -c 'cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHK_SANITIZE=ON -DHK_GRAMMAR_FROM=$PWD/build >/dev/null && cmake --build build-asan -j2' > "$out/asan-build.log" 2>&1 || exit 1
cache=$top/build/hk-test-cache
mkdir -p "$cache/nvcc" build/test-python
ln -sfn "$(python3 -c 'import sys; print(sys.executable)')" build/test-python/python3
for pass in plain asan; do
  d=build; [ $pass = asan ] && d=build-asan
  for f in $(find $d -name CTestTestfile.cmake); do
    sed -i "s|^add_test(\([^ ]*\) |add_test(\1 \"$here/cgwrap.sh\" \"\1\" |" "$f"
  done
  mkdir -p $d/Testing
  printf '{"version": {"major": 1, "minor": 0}, "local": [{"cpus": [{"id": "0", "slots": 2}]}]}\n' > $d/Testing/hk-cpu-slots.json
  extra=(); envs=(HK_PLAIN_PASS_RAN=0)
  [ $pass = asan ] && { extra=(-LE no_sanitized_code); envs=(HK_PLAIN_PASS_RAN=1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1); }
  rm -f "$out/$pass.tests"
  (cd $d && export "${envs[@]}" HK_CACHE_DIR=$cache HK_CG_GROUP=$tag-$pass-tests HK_CG_OUT=$out/$pass.tests \
     PATH="$PWD/test-tools:$top/build/test-python:$PATH" HK_NVCC_CACHE=$cache/nvcc \
     HK_COMPILE_WRITABLE=$cache/nvcc:$out/nvcclog HK_NVCC_LOG=$out/nvcclog/$pass.log &&
     phase $pass-tests ctest --output-on-failure -j 4 --resource-spec-file $PWD/Testing/hk-cpu-slots.json "${extra[@]}") > "$out/$pass-tests.log" 2>&1
done
echo "end $tag $(date -u +%T)" >> "$out/phases.txt"
