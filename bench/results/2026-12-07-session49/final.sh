#!/bin/bash
# Session 49's last device call: the session's new rewrites and referee changes on a GPU, in one call under D
# seconds (default 560). Run from the repo root with carry ["carry", "bench/wild/src"] after rebuilding
# carry/hkls static at HEAD; set HK_COMMIT.
#   NEWCHEATS   cheats of tests/gpu/cheats to run first (CHEAT_JOBS 8 jobs, CHEAT_TIMEOUT 60 s each, at most CHEAT_DEADLINE 90 s in all)
#   PROBES      generality probes (tests/data/probes) as episodes, PROBE_ARGS (default "--budget 4 --minutes 0.6")
#   WILD        wild kernels as episodes at the wild table's budget ("--budget 8 --minutes 1.2")
# Probes and wild kernels run side by side, 2 episodes each (the harness's GPU lock serializes their timed runs;
# the time an episode waits for the GPU is not counted in its search budget). Tables: $OUT/probe-table.md,
# $OUT/wild-table.md, each report's accuracy reference in $OUT/reference.txt; logs in $OUT/final.tgz.
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-560}
nvidia-smi -L
mkdir -p $OUT/x
if [ -n "${NEWCHEATS:-}" ]; then
  ( CHEATS="$NEWCHEATS" CHEAT_JOBS=${CHEAT_JOBS:-8} CHEAT_TIMEOUT=${CHEAT_TIMEOUT:-60} DEADLINE_S=${CHEAT_DEADLINE:-90} MARGIN_S=8 OUT=$OUT/x/cheats tests/gpu/session.sh cheats > $OUT/x/cheats.log 2>&1 )
  cp $OUT/x/cheats/summary-cheats.txt $OUT/cheats.txt 2>/dev/null; cat $OUT/cheats.txt 2>/dev/null | tail -40
fi
left=$((D - ($(date +%s) - t0) - 25))
pids=
if [ -n "${PROBES:-}" ]; then
  ( SUITE_DIR=$PWD/tests/data/probes WILD_IDS="$PROBES" WILD_ARGS="${PROBE_ARGS:---budget 4 --minutes 0.6}" WILD_JOBS=${PROBE_JOBS:-2} EPISODE_TIMEOUT=300 DEADLINE_S=$left MARGIN_S=10 OUT=$OUT/x/probes tests/gpu/session.sh wild > $OUT/x/probes.log 2>&1 ) &
  pids="$pids $!"
fi
if [ -n "${WILD:-}" ]; then
  ( WILD_IDS="$WILD" WILD_ARGS="--budget 8 --minutes 1.2" WILD_JOBS=${WILD_JOBS:-2} EPISODE_TIMEOUT=300 DEADLINE_S=$left MARGIN_S=10 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 ) &
  pids="$pids $!"
fi
[ -n "$pids" ] && wait $pids
echo "episodes done at $(($(date +%s)-t0)) s"
for part in probes wild; do
  [ -f $OUT/x/$part/wild-table.md ] || continue
  name=$([ $part = probes ] && echo probe-table.md || echo wild-table.md)
  cp $OUT/x/$part/wild-table.md $OUT/$name
  grep "^|\|^all\|^mmcv" $OUT/$name | cut -c1-200
  mkdir -p $OUT/x/l-$part && tar xzf $OUT/x/$part/logs.tar.gz -C $OUT/x/l-$part 2>/dev/null
done
for j in $(find $OUT/x/l-* -name 'episode-*.json' 2>/dev/null); do
  python3 -c "
import json
d=json.load(open('$j'))
def find(o,k):
    if isinstance(o,dict):
        if k in o: return o[k]
        for v in o.values():
            r=find(v,k)
            if r is not None: return r
    if isinstance(o,list):
        for v in o:
            r=find(v,k)
            if r is not None: return r
print('$j'.split('reports-')[-1].split('/')[0], '|', str(find(d,'accuracy_reference'))[:150])" 2>/dev/null
done | sort > $OUT/reference.txt
cat $OUT/reference.txt
# each finished episode's verified version and what it was
for f in $(find $OUT/x/l-* -name '*.log' 2>/dev/null); do
  id=$(basename $f .log); v=$(grep -o "baseline and v[0-9]* interleaved" $f | head -1 | grep -o "v[0-9]*")
  [ -n "$v" ] && echo "$id | $v | $(grep -m1 "\] $v: [0-9.]* ms" $f | grep -o '(builtin: .*)' | cut -c1-140)"
done | sort > $OUT/best.txt
cat $OUT/best.txt
echo "all done at $(($(date +%s)-t0)) s"
cd $OUT && tar czf final.tgz x && rm -rf x
