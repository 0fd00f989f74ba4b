#!/usr/bin/env bash
# One unit test with a cold compile cache of its own, as ./hk test runs it (the cache's
# stand-in first on PATH, HK_NVCC_CACHE, HK_NVCC_LOG), and what it cost: user + sys CPU of
# the whole test (its compilers included: they are its children), wall, and from the compile
# log the compiler calls (miss, hit, direct) and their CPU (issue 14: before/after figures
# of a change to a test's compiles; bench/results/2026-12-05-ci-time-s33.md).
#
#   bench/ci/cold-test.sh BUILD TEST_BINARY TAG [OUTDIR]
#
# BUILD: the build folder (its test-tools/); TEST_BINARY: the test's executable (a copy of
# an older build's runs too: it finds its data through the paths built into it); TAG names
# the files left in OUTDIR (default /tmp/hk-cold-test): TAG.out (the test's output),
# TAG.nvcc.log, TAG.time. Prints one line.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BUILD TEST_BINARY TAG [OUTDIR]" >&2; exit 2; }
build=$(cd "$1" && pwd) bin=$2 tag=$3 out=${4:-/tmp/hk-cold-test}
mkdir -p "$out"
cache=$(mktemp -d "$out/cache-$tag.XXXXXX")
log=$out/$tag.nvcc.log
rm -f "$log"
cd "$build/tests" 2>/dev/null || cd "$build"
PATH=$build/test-tools:$PATH HK_NVCC_CACHE=$cache HK_NVCC_LOG=$log HK_TEST_NAME=$tag \
  /usr/bin/time -f "%U %S %e" -o "$out/$tag.time" "$bin" > "$out/$tag.out" 2>&1
rc=$?
rm -rf "$cache"
read -r u s e < <(tail -1 "$out/$tag.time")
touch "$log"
awk -v tag="$tag" -v rc=$rc -v u="$u" -v s="$s" -v e="$e" '
  {k[$1]++} $1 != "hit" {c += $3}
  END {printf "%-32s rc %d  cpu %6.1f (user %.1f sys %.1f, wall %.1f)  compiler calls: miss %d hit %d direct %d, their cpu %.1f\n",
       tag, rc, u + s, u, s, e, k["miss"], k["hit"], k["direct"], c}' "$log"
