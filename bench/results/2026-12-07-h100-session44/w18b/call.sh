#!/bin/bash
# session 44, helper W18B's GPU call (one H100 call, under 150 s of device time): window_lanes'
# stepped form on mmcv's border_align forward (issue 13), judged by hand against the original,
# then border_align's episode at budget 8 (window_lanes lanes=8 is its plan's proposal 1, lanes=4
# proposal 7).
# Run from the repository root at the commit of branch s44-w18b (or main once merged), with
# carry/hkls built from it and bench/wild/src extracted, as session 43's w17a/call.sh.
# The candidate texts are emitted here on the device (third-party kernels rewritten: they never
# enter the repository), into $OUT/v with the commands that made them.
#  (a) verify-candidate, 5 pairs each, under the spec's own launch (4096 blocks of (128, 4): the
#      rewritten grid-stride loop covers every output under any grid, and 2.1 M threads already
#      fill an H100 7.8 times over, so the episode's grid x G changes nothing but the trip count):
#      ba_g2, ba_g4, ba_g8   window_lanes lanes=2/4/8. Paper (bench/wild/stepped_model.py,
#      bench/results/2026-12-07-stepped-cpu-s44.md): L1 line wavefronts per output 41.6 ->
#      32.7 / 29.1 / 27.4 (the horizontal borders only: 41.7 -> 25.3 / 18.6 / 15.2; vertical ones
#      stay ~40), instructions about 1.5x / 2.6x / 5.2x the original's (ALU ~0.3 ms of 2.52 ms):
#      ~1.0-1.27x / ~1.0-1.43x / ~0.8-1.5x, by how well the added issue hides under the L1.
#      ba_g4_lb3             lanes=4 stacked with __launch_bounds__(512, 3): 40 registers, 3 blocks
#      per SM as the original (45 registers: 2), whether occupancy is part of the answer.
#  (b) the wild episode of mmcv_border_align_fwd at budget 8 / 1.2 min, only if one of them
#      verified faster than 1.02x and 60 s are left.
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-145}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
V=$OUT/v
ID=mmcv_border_align_fwd
K=border_align_forward_cuda_kernel
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")))' "$1" 2>&1 | head -c 400; }
sp() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print((d.get("interleaved") or {}).get("speedup") or 0)' "$1" 2>/dev/null || echo 0; }
emit() {  # emit NAME REWRITE [--param ...]
  local name=$1 rw=$2; shift 2
  echo "$HKLS rewrites bench/wild/src/$ID.cu --kernel $K --spec bench/wild/specs/$ID.bench.json --device 132,64 --emit $rw $*" >> $V/commands.txt
  $HKLS rewrites bench/wild/src/$ID.cu --kernel $K --spec bench/wild/specs/$ID.bench.json --device 132,64 --emit $rw "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
}
for G in 2 4 8; do emit ba_g$G window_lanes --param lanes=$G; done
# G 4 held to 40 registers (3 blocks of 512 per SM, as the original's 38; 45 otherwise: 2 blocks)
emit ba_g4_lb3 window_lanes+launch_bounds --param lanes=4 --param launch_bounds.max_threads=512 --param launch_bounds.min_blocks=3
for n in ba_g4 ba_g4_lb3 ba_g2 ba_g8; do
  [ -s $V/$n.cu ] || { echo "$n: no text"; continue; }
  [ $(($(date +%s)-t0)) -gt 100 ] && { echo "$n: no time left"; continue; }
  timeout 40 $HKLS verify-candidate --spec bench/wild/specs/$ID.bench.json --candidate $V/$n.cu --pairs 5 --json > $V/$n.json 2> $V/$n.err
  echo "$n rc=$? at $(($(date +%s)-t0)) s: $(js $V/$n.json)"
done 2>&1 | tee $OUT/x/verify.log
left=$((D - ($(date +%s) - t0) - 10))
if python3 -c 'import sys; sys.exit(0 if max(map(float, sys.argv[1:])) > 1.02 else 1)' "$(sp $V/ba_g2.json)" "$(sp $V/ba_g4.json)" "$(sp $V/ba_g8.json)" "$(sp $V/ba_g4_lb3.json)" && [ $left -gt 60 ]; then
  ( WILD_IDS="$ID" WILD_ARGS="--budget 8 --minutes 1.2" WILD_JOBS=1 EPISODE_TIMEOUT=$left DEADLINE_S=$left MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
else
  echo "episode skipped: g2 $(sp $V/ba_g2.json), g4 $(sp $V/ba_g4.json), g4_lb3 $(sp $V/ba_g4_lb3.json), g8 $(sp $V/ba_g8.json), $left s left" | tee -a $OUT/x/verify.log
fi
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/w18b-wild-table.md 2>/dev/null; cp $OUT/x/verify.log $OUT/w18b-verify.txt
cat $OUT/w18b-wild-table.md 2>/dev/null
tail -3 $OUT/x/wild.log 2>/dev/null
cd $OUT && tar czf all.tgz x v && rm -rf x v
