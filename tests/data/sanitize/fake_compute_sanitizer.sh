#!/usr/bin/env bash
# A stand-in for compute-sanitizer in the unit tests (tests/unit/test_engine_sanitize.c) and
# the simulated-GPU episode: it takes the real tool's command line (--tool T and the other
# options, each with a value, then the program and its arguments), runs the program, and
# answers like the tool:
#   $FAKE_SANITIZER_<TOOL>=FILE   (TOOL: MEMCHECK, RACECHECK, INITCHECK) print FILE's
#                                 "=========" lines as this tool's report and exit 86; as
#                                 the tool does, at most --print-limit N reports (0: all),
#                                 every summary line, and after an "ERROR SUMMARY: M errors"
#                                 that counts more than were printed the tool's
#                                 "ERROR SUMMARY: K errors were not printed. ..." line
#   --log-file F                  the tool's lines go to F instead of stdout (the program's
#                                 own output stays on stdout)
#   $FAKE_SANITIZER_AT_SIZE=K      the FAKE_SANITIZER_<TOOL> fixtures apply only to a program
#                                 run with --size K (a kernel that races only at the size
#                                 the referee times: tests/gpu/cheats/size_race.cu)
#   $FAKE_SANITIZER_STDOUT=FILE   FILE printed on stdout as the program's own output (what a
#                                 kernel's printf would print)
#   $FAKE_SANITIZER_SLEEP=TOOL    that tool never ends (for the timeout)
#   $FAKE_SANITIZER_SLEEP_IF=TEXT  ... only for a command line holding TEXT (e.g. /candidate/:
#                                 a kernel that is slow only under the tool, the original
#                                 kernel's run completing)
#   $FAKE_SANITIZER_NO_PIDNS=1    inside a pid namespace (the tool is pid 2 there: the
#                                 namespace sandbox) fail as the real tool did on the H200:
#                                 "Error launching target app.", exit 1
#   otherwise                     "ERROR SUMMARY: 0 errors" and the program's exit status
# Every call appends "TOOL ARGS... HK_TOOL_REGIONS=V" to $FAKE_SANITIZER_LOG when set.
tool=memcheck
limit=0
logfile=
all="$*"
while [ $# -gt 0 ]; do
  case "$1" in
    --tool) tool=$2; shift 2 ;;
    --print-limit) limit=$2; shift 2 ;;
    --log-file) logfile=$2; shift 2 ;;
    --*) shift 2 ;;
    *) break ;;
  esac
done
if [ -n "${FAKE_SANITIZER_LOG:-}" ]; then
  printf '%s %s HK_TOOL_REGIONS=%s\n' "$tool" "$all" "${HK_TOOL_REGIONS:-unset}" >>"$FAKE_SANITIZER_LOG"
fi
if [ -n "$logfile" ]; then
  exec 3>"$logfile"
else
  exec 3>&1
fi
echo "========= COMPUTE-SANITIZER" >&3
if [ "${FAKE_SANITIZER_NO_PIDNS:-}" = 1 ] && [ "$$" = 2 ]; then
  echo "========= Error launching target app." >&3
  exit 1
fi
if [ "${FAKE_SANITIZER_SLEEP:-}" = "$tool" ]; then
  case "$all" in
    *"${FAKE_SANITIZER_SLEEP_IF:-}"*) sleep 600 ;;
  esac
fi
"$@"
rc=$?
if [ -n "${FAKE_SANITIZER_STDOUT:-}" ]; then
  cat "$FAKE_SANITIZER_STDOUT"
fi
var=FAKE_SANITIZER_$(printf '%s' "$tool" | tr 'a-z' 'A-Z')
fixture=${!var:-}
if [ -n "${FAKE_SANITIZER_AT_SIZE:-}" ]; then
  size=
  prev=
  for a in "$@"; do
    [ "$prev" = --size ] && size=$a
    prev=$a
  done
  [ "$size" = "$FAKE_SANITIZER_AT_SIZE" ] || fixture=
fi
if [ -n "$fixture" ]; then
  grep '^=========' "$fixture" | grep -v 'COMPUTE-SANITIZER' | awk -v limit="$limit" '
    # a report: a top-level line (one blank after the prefix) that is no summary, with its
    # indented detail lines and the blank line closing it
    /^========= [^ ]/ {
      body = substr($0, 11)
      if (body ~ /SUMMARY:/) {
        print
        if (body ~ /^ERROR SUMMARY: [0-9,]+ errors?$/) {
          n = body; sub(/^ERROR SUMMARY: /, "", n); sub(/ .*/, "", n); gsub(/,/, "", n)
          if (n + 0 > shown) printf "========= ERROR SUMMARY: %d error%s not printed. Use --print-limit option to adjust the number of printed errors\n", n - shown, (n - shown == 1 ? " was" : "s were")
        }
        next
      }
      reports++
      keep = (limit == 0 || reports <= limit)
      if (keep) shown++
      if (keep) print
      next
    }
    { if (keep) print }' >&3
  exit 86
fi
if [ "$tool" = racecheck ]; then
  echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" >&3
else
  echo "========= ERROR SUMMARY: 0 errors" >&3
fi
exit $rc
