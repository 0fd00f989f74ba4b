#!/bin/sh
# Builds bench_oracle against a build directory's libraries and runs it:
#   bench/oracle/run.sh [BUILD_DIR] [ELEMENTS [REPS]]     (default build dir: build)
# Prefix with `taskset -c 0` to see one core's speed.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
[ $# -gt 0 ] && shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
${CC:-cc} -O2 -std=c11 -D_GNU_SOURCE -I"$top/server" -I"$top/include" "$top/bench/oracle/bench_oracle.c" \
    "$build/libhk_measure.a" "$build/libhk_spec.a" "$build/libhk_core.a" -ljansson -lpthread -lm \
    -o "$out/bench_oracle"
"$out/bench_oracle" "$@"
