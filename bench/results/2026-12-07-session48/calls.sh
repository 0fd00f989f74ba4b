#!/bin/bash
# Session 48's device calls, each through session 47's call D script (bench/results/2026-12-07-h100-session47/
# call-d/call.sh: wild episodes of IDS at the wild table's budget, 4 at a time, every report's accuracy_reference
# listed). Rebuild carry/hkls static at HEAD first and set HK_COMMIT; carry ["carry", "bench/wild/src"].
#   CALL=templates: session 47's template kernels not yet run with their fp64 shadow (its calls.sh CALL=1).
#   CALL=probes:    the generality probes of tests/data/probes (ours, written for issue 13's classes) as
#                   episodes, through bench/wild/run.sh's SUITE_DIR; PROBES (default every spec there),
#                   PROBE_ARGS (default the wild table's "--budget 8 --minutes 1.2"). Each probe's speedup,
#                   and that every emitted rewrite the search kept passed the harness's checks on a GPU.
#   CALL=cheats:    every cheat (session 46's call-b.sh).
case "${CALL:-templates}" in
  templates) CALL=1 exec bash bench/results/2026-12-07-session47-next/calls.sh ;;
  cheats) exec bash bench/results/2026-12-07-session46-next/call-b.sh ;;
  probes)
    export SUITE_DIR=$PWD/tests/data/probes
    IDS=${PROBES:-$(cd tests/data/probes && ls *.bench.json | sed 's/\.bench\.json$//' | tr '\n' ' ')}
    export IDS D=${D:-560}
    if [ -n "${PROBE_ARGS:-}" ]; then
      sed "s/--budget 8 --minutes 1.2/$PROBE_ARGS/" bench/results/2026-12-07-h100-session47/call-d/call.sh > /tmp/probe-call.sh
      exec bash /tmp/probe-call.sh
    fi
    exec bash bench/results/2026-12-07-h100-session47/call-d/call.sh ;;
  *) echo "calls.sh: CALL is templates, probes or cheats" >&2; exit 2 ;;
esac
