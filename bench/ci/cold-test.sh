#!/usr/bin/env bash
# One unit test with a cold compile cache of its own, as ./hk test runs it (the cache's
# stand-in first on PATH, HK_NVCC_CACHE, HK_NVCC_LOG, HK_COMPILE_WRITABLE so that compiles
# inside the referee's sandbox use the cache too, HK_CACHE_DIR for the built launchers), and
# what it cost: user + sys CPU of the whole test (its compilers included), wall, and from
# the compile log the compiler calls (miss, hit, direct) and their CPU (issue 14:
# before/after figures of a change to a test's compiles; bench/results/2026-12-05-ci-time-s33.md).
#
#   bench/ci/cold-test.sh BUILD TEST_BINARY TAG [OUTDIR]
#   HK_KEEP_CACHE=DIR bench/ci/cold-test.sh ...   the caches in DIR, kept (a plain run, then
#                                                the ASan build's test with the same DIR and
#                                                HK_PLAIN_PASS_RAN=1: the two passes of a
#                                                clean clone)
#
# BUILD: the build folder (its test-tools/); TEST_BINARY: the test's executable (a copy of
# an older build's runs too: it finds its data through the paths built into it); TAG names
# the files left in OUTDIR (default /tmp/hk-cold-test): TAG.out (the test's output),
# TAG.nvcc.log, TAG.time. Prints one line.
#
# The CPU: where a cpuacct cgroup can be made (/sys/fs/cgroup/cpuacct, cgroup v1, as root),
# the test runs in one of its own and the figure is the group's: every process the test
# started, reaped by it or not. Otherwise /usr/bin/time's, which counts only the children
# the test waited for, and their waited-for children: session 34 found it gave
# test_engine_episode_cli 24.9 CPU-s where the group counted 78.4 (the episodes' sandboxed
# runs are not all reaped through the test). The line says which.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BUILD TEST_BINARY TAG [OUTDIR]" >&2; exit 2; }
build=$(cd "$1" && pwd) bin=$2 tag=$3 out=${4:-/tmp/hk-cold-test}
mkdir -p "$out"
if [ -n "${HK_KEEP_CACHE:-}" ]; then
  mkdir -p "$HK_KEEP_CACHE" && cache=$(cd "$HK_KEEP_CACHE" && pwd)
else
  cache=$(mktemp -d "$out/cache-$tag.XXXXXX")
fi
mkdir -p "$cache/nvcc"
log=$out/$tag.nvcc.log
rm -f "$log"
# a cpuacct group of its own, when one can be made
grp=/sys/fs/cgroup/cpuacct/hk-cold-test-$$
mkdir "$grp" 2>/dev/null || grp=
# ./hk test's python3: the interpreter itself where python3 is a version manager's shim
# (direct_python, which leaves the link in the plain tree's test-python/; BUILD's own, or
# its grammar donor's)
py=
for d in "$build/test-python" "$(sed -n 's/^HK_GRAMMAR_FROM:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null)/test-python"; do
  [ -x "$d/python3" ] && { py=$d:; break; }
done
# a sanitized build: ./hk test's ASan pass's options (HK_PLAIN_PASS_RAN=1, which that pass
# sets after a plain pass that passed, is the caller's to give)
if grep -q '^HK_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
fi
cd "$build/tests" 2>/dev/null || cd "$build"
PATH=$py$build/test-tools:$PATH HK_NVCC_CACHE=$cache/nvcc HK_CACHE_DIR=$cache \
  HK_COMPILE_WRITABLE=$cache/nvcc:$out HK_NVCC_LOG=$log HK_TEST_NAME=$tag \
  /usr/bin/time -f "%U %S %e" -o "$out/$tag.time" \
  sh -c '[ -z "$1" ] || echo $$ > "$1/cgroup.procs"; shift; exec "$@"' cold "$grp" "$bin" \
  > "$out/$tag.out" 2>&1
rc=$?
[ -n "${HK_KEEP_CACHE:-}" ] || rm -rf "$cache"
read -r u s e < <(tail -1 "$out/$tag.time")
how=time tu=$u ts=$s
if [ -n "$grp" ]; then
  sleep 0.2 # what the test left running (none, normally) counts up to here
  tck=$(getconf CLK_TCK)
  u=$(awk -v k="$tck" '$1 == "user" {printf "%.2f", $2 / k}' "$grp/cpuacct.stat")
  s=$(awk -v k="$tck" '$1 == "system" {printf "%.2f", $2 / k}' "$grp/cpuacct.stat")
  how="cgroup; /usr/bin/time counted $(awk -v u="$tu" -v s="$ts" 'BEGIN {printf "%.1f", u + s}')"
  rmdir "$grp" 2>/dev/null || echo "cold-test.sh: processes of the test still run in $grp" >&2
fi
touch "$log"
awk -v tag="$tag" -v rc=$rc -v u="$u" -v s="$s" -v e="$e" -v how="$how" '
  {k[$1]++} $1 != "hit" {c += $3}
  END {printf "%-32s rc %d  cpu %6.1f (%s: user %.1f sys %.1f, wall %.1f)  compiler calls: miss %d hit %d direct %d, their cpu %.1f\n",
       tag, rc, u + s, how, u, s, e, k["miss"], k["hit"], k["direct"], c}' "$log"
