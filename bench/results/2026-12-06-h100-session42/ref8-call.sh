#!/bin/bash
# session 42: REF8's GPU request, at s42-ref8's HEAD (or main after its merge), with carry/hkls built from it.
# Expected: spin_guard_evade and spin_sub_evade `race` from the PTX before any run (a word of a few values behind a
# branch on data, judged at each; x - x made an int); spin_store_evade, spin_nan_evade `race` as before; spin_tid_store_evade
# (REF8's next attack, open) accepted or not_faster with the three tools clean unless the
# sensing fails under racecheck; the controls pass the race check (a control rejected `race` would be a false
# finding: keep its JSON).
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-210} # under 4 minutes of device time in all
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; r=[c for c in d.get("checks",[]) if isinstance(c,dict) and c.get("check")=="race"]; print(d.get("verdict"), d.get("reason",""), "speedup=%s" % i.get("speedup"), "race_check=%s" % (r[0].get("result") if r else "-"), "race_why=%s" % ((r[0].get("why") or "")[:160] if r else "-"), "| details=%s" % (d.get("details") or "")[-160:])' "$1" 2>&1 | head -c 700; }
( CHEATS="spin_guard_evade spin_sub_evade spin_tid_store_evade spin_store_evade spin_nan_evade race" CHEAT_JOBS=3 CHEAT_TIMEOUT=120 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/cheats tests/gpu/session.sh cheats > $OUT/x/cheats.log 2>&1 ) &
(
  V=$OUT/v
  k=$(python3 -c 'import json;print(json.load(open("bench/wild/specs/cs_transpose_naive.bench.json"))["kernel"])')
  $HKLS rewrites bench/wild/src/cs_transpose_naive.cu --kernel $k --spec bench/wild/specs/cs_transpose_naive.bench.json --emit tiled_transpose > $V/tiled_transpose.cu
  for c in "self_reduce_sum bench/kernels/reduce_sum.bench.json bench/kernels/reduce_sum.cu" \
           "tiled_transpose bench/wild/specs/cs_transpose_naive.bench.json $V/tiled_transpose.cu" \
           "self_cs_reduce3 bench/wild/specs/cs_reduce3.bench.json bench/wild/src/cs_reduce3.cu"; do
    set -- $c
    [ -f "$3" ] || { echo "$1: no $3"; continue; }
    [ $(($(date +%s)-t0)) -gt $((D-60)) ] && { echo "$1: no time left"; continue; }
    timeout 90 $HKLS verify-candidate --spec $2 --candidate $3 --pairs 5 --json > $V/$1.json 2> $V/$1.err
    echo "$1 rc=$? at $(($(date +%s)-t0)) s: $(js $V/$1.json)"
  done > $OUT/x/verify.log 2>&1
) &
wait
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/cheats/summary-cheats.txt $OUT/ref8-cheats.txt 2>/dev/null; cp $OUT/x/verify.log $OUT/ref8-verify.txt
cat $OUT/x/verify.log
grep -v "^$" $OUT/ref8-cheats.txt | tail -12
tail -3 $OUT/x/cheats.log
cd $OUT && tar czf all.tgz x v && rm -rf x v
