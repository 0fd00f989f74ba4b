#!/usr/bin/env bash
# What a build leaves out of its compiles for CI's CPU (issue 14,
# bench/results/2026-12-05-ci-time-s33-builds.md), read from the build tree itself:
#   - every unit test's own object is compiled at -O0 (tests/CMakeLists.txt,
#     HK_TEST_COMPILE_OPTIONS), in the sanitized build too: the last -O flag of each
#     tests/unit/test_*.c entry of compile_commands.json;
#   - with TAKEN (the tree was configured with HK_GRAMMAR_FROM and took that tree's grammar
#     library, CMakeLists.txt): no parser.c object in this tree (the grammar was not compiled
#     again) and the taken library present.
# Usage: build_cuts_test.sh BUILD_DIR [TAKEN]
set -eu
dir=$1 taken=${2:-}
rc=0
python3 - "$dir/compile_commands.json" <<'PY' || rc=1
import json, re, shlex, sys
entries = [e for e in json.load(open(sys.argv[1]))
           if re.search(r"/tests/unit/test_[^/]*\.c$", e["file"])]
if not entries:
    sys.exit("FAIL: no unit test in " + sys.argv[1])
bad = 0
for e in entries:
    args = e.get("arguments") or shlex.split(e["command"])
    levels = [a for a in args if re.fullmatch(r"-O[0-3sgz]?|-Ofast", a)]
    if not levels or levels[-1] != "-O0":
        print("FAIL: %s is compiled at %s, not -O0" % (e["file"], levels[-1] if levels else "the default"))
        bad += 1
print("%d unit test objects, %d not at -O0" % (len(entries), bad))
sys.exit(1 if bad else 0)
PY
if [ -n "$taken" ]; then
  objs=$(find "$dir/CMakeFiles" -name 'parser.c.o' | head -3)
  if [ -n "$objs" ]; then
    echo "FAIL: the grammar was taken from another tree but compiled here too: $objs" >&2; rc=1
  else
    echo "ok: no parser.c object in $dir"
  fi
  [ -s "$dir/hk_grammar_taken/libhk_grammar_lib.a" ] ||
    { echo "FAIL: no taken grammar library in $dir/hk_grammar_taken" >&2; rc=1; }
fi
exit $rc
