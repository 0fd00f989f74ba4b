#!/bin/bash
# session 40: REF5's GPU request, not run (the device time was spent on calls 1-2 at b67fc24, before REF5); for the
# next session, with carry/hkls built from main. Expected: spin_offset/loop/bound_evade and race, race_first_sync `race`
# from the PTX before any run; spin_word_evade (open) accepted or not_faster with clean tools unless the sensing fails
# under racecheck; the controls pass the race check (a control rejected `race` would be a false finding: keep its JSON).
# REF5: (a) the race cheats through the referee (spin_bound_evade.cu now judged from the PTX; the
# new spin_word_evade.cu); (b) the shared-memory controls that must pass the race check
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-420}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; r=[c for c in d.get("checks",[]) if isinstance(c,dict) and c.get("check")=="race"]; print(d.get("verdict"), d.get("reason",""), "speedup=%s" % i.get("speedup"), "race_check=%s" % (r[0].get("result") if r else "-"), "race_why=%s" % ((r[0].get("why") or "")[:160] if r else "-"), "| details=%s" % (d.get("details") or "")[-120:])' "$1" 2>&1 | head -c 700; }
( CHEATS="spin_offset_evade spin_loop_evade spin_bound_evade spin_word_evade race race_first_sync" CHEAT_JOBS=3 CHEAT_TIMEOUT=150 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/cheats tests/gpu/session.sh cheats > $OUT/x/cheats.log 2>&1 ) &
(
  V=$OUT/v
  k=$(python3 -c 'import json;print(json.load(open("bench/wild/specs/cs_transpose_naive.bench.json"))["kernel"])')
  $HKLS rewrites bench/wild/src/cs_transpose_naive.cu --kernel $k --spec bench/wild/specs/cs_transpose_naive.bench.json --emit tiled_transpose > $V/tiled_transpose.cu
  for c in "self_cs_reduce3 bench/wild/specs/cs_reduce3.bench.json bench/wild/src/cs_reduce3.cu" \
           "self_reduce_sum bench/kernels/reduce_sum.bench.json bench/kernels/reduce_sum.cu" \
           "tiled_transpose bench/wild/specs/cs_transpose_naive.bench.json $V/tiled_transpose.cu" \
           "spin_word_evade bench/kernels/reduce_sum.bench.json tests/gpu/cheats/spin_word_evade.cu"; do
    set -- $c
    [ $(($(date +%s)-t0)) -gt $((D-60)) ] && { echo "$1: no time left"; continue; }
    timeout 150 $HKLS verify-candidate --spec $2 --candidate $3 --pairs 5 --json > $V/$1.json 2> $V/$1.err
    echo "$1 rc=$? at $(($(date +%s)-t0)) s: $(js $V/$1.json)"
  done > $OUT/x/verify.log 2>&1
) &
wait
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/cheats/summary-cheats.txt $OUT/ref5-cheats.txt 2>/dev/null; cp $OUT/x/verify.log $OUT/ref5-verify.txt
cat $OUT/x/verify.log
grep -v "^$" $OUT/ref5-cheats.txt | tail -12
tail -3 $OUT/x/cheats.log
cd $OUT && tar czf all.tgz x v && rm -rf x v
