#!/usr/bin/env bash
# A stand-in for compute-sanitizer in the unit tests (tests/unit/test_engine_sanitize.c) and
# the simulated-GPU episode: it takes the real tool's command line (--tool T and the other
# options, each with a value, then the program and its arguments), runs the program, and
# answers like the tool:
#   $FAKE_SANITIZER_<TOOL>=FILE   (TOOL: MEMCHECK, RACECHECK, INITCHECK) print FILE's
#                                 "=========" lines as this tool's report and exit 86
#   $FAKE_SANITIZER_SLEEP=TOOL    that tool never ends (for the timeout)
#   $FAKE_SANITIZER_NO_PIDNS=1    inside a pid namespace (the tool is pid 2 there: the
#                                 namespace sandbox) fail as the real tool did on the H200:
#                                 "Error launching target app.", exit 1
#   otherwise                     "ERROR SUMMARY: 0 errors" and the program's exit status
# Every call appends "TOOL ARGS... HK_GUARD_ZONES=V" to $FAKE_SANITIZER_LOG when set.
tool=memcheck
all="$*"
while [ $# -gt 0 ]; do
  case "$1" in
    --tool) tool=$2; shift 2 ;;
    --*) shift 2 ;;
    *) break ;;
  esac
done
if [ -n "${FAKE_SANITIZER_LOG:-}" ]; then
  printf '%s %s HK_GUARD_ZONES=%s\n' "$tool" "$all" "${HK_GUARD_ZONES:-unset}" >>"$FAKE_SANITIZER_LOG"
fi
echo "========= COMPUTE-SANITIZER"
if [ "${FAKE_SANITIZER_NO_PIDNS:-}" = 1 ] && [ "$$" = 2 ]; then
  echo "========= Error launching target app."
  exit 1
fi
if [ "${FAKE_SANITIZER_SLEEP:-}" = "$tool" ]; then
  sleep 600
fi
"$@"
rc=$?
var=FAKE_SANITIZER_$(printf '%s' "$tool" | tr 'a-z' 'A-Z')
fixture=${!var:-}
if [ -n "$fixture" ]; then
  grep '^=========' "$fixture" | grep -v 'COMPUTE-SANITIZER'
  exit 86
fi
if [ "$tool" = racecheck ]; then
  echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
else
  echo "========= ERROR SUMMARY: 0 errors"
fi
exit $rc
