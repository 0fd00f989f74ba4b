#!/bin/bash
# session 43, helper W17A's GPU call (one H100 call, under 200 s of device time): channel_lanes on
# mmcv's roi_pool and prroi_pool, judged by hand against the original under the spec's launch, then
# roi_pool's episode at budget 8 (channel_lanes is its plan's proposal 2).
# Run from the repository root at the commit of branch s43-w17a (or main once merged), with
# carry/hkls built from it and bench/wild/src extracted, as session 42's w16a/call.sh.
# The candidate texts are emitted here on the device (third-party kernels rewritten: they never
# enter the repository), into $OUT/v with the commands that made them.
#  (a) verify-candidate, 5 pairs each (the spec's own grid and block; the rewrite keeps the launch):
#      roi_cl2    channel_lanes position=2 on roi_pool: c next to pw (paper, bench/wild/lanes_model.py:
#                 window warp trips 102 -> 54 per 32 outputs at the same 588 L1 line wavefronts:
#                 ~1.3-1.5x if the window loop's issue bounds it, ~1.0x if its wavefronts do)
#      roi_cl1    position=1 on roi_pool: c innermost (trips -> 30, wavefronts -> 958: ~2x if
#                 issue-bound, ~0.6x if wavefront-bound; with roi_cl2 it tells which reading holds)
#      prroi_cl2  position=2 on prroi_pool (trips 5.4 -> 5.1, wavefronts 163 -> 165: ~1.0-1.05x)
#  (b) the wild episode of mmcv_roi_pool_fwd at budget 8 / 1.2 min, only if roi_cl2 or roi_cl1
#      verified faster than 1.02x (otherwise nothing new can win there and the time is saved)
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-190}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
V=$OUT/v
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")))' "$1" 2>&1 | head -c 400; }
sp() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print((d.get("interleaved") or {}).get("speedup") or 0)' "$1" 2>/dev/null || echo 0; }
emit() {  # emit NAME ID KERNEL REWRITE [--param ...]
  local name=$1 id=$2 k=$3 rw=$4; shift 4
  echo "$HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec bench/wild/specs/$id.bench.json --device 132,64 --emit $rw $*" >> $V/commands.txt
  $HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec bench/wild/specs/$id.bench.json --device 132,64 --emit $rw "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
}
emit roi_cl2 mmcv_roi_pool_fwd roi_pool_forward_cuda_kernel channel_lanes --param position=2
emit roi_cl1 mmcv_roi_pool_fwd roi_pool_forward_cuda_kernel channel_lanes --param position=1
emit prroi_cl2 mmcv_prroi_pool_fwd prroi_pool_forward_cuda_kernel channel_lanes --param position=2
for c in roi_cl2:mmcv_roi_pool_fwd roi_cl1:mmcv_roi_pool_fwd prroi_cl2:mmcv_prroi_pool_fwd; do
  n=${c%%:*}; id=${c#*:}
  [ -s $V/$n.cu ] || { echo "$n: no text"; continue; }
  [ $(($(date +%s)-t0)) -gt 110 ] && { echo "$n: no time left"; continue; }
  timeout 45 $HKLS verify-candidate --spec bench/wild/specs/$id.bench.json --candidate $V/$n.cu --pairs 5 --json > $V/$n.json 2> $V/$n.err
  echo "$n rc=$? at $(($(date +%s)-t0)) s: $(js $V/$n.json)"
done 2>&1 | tee $OUT/x/verify.log
left=$((D - ($(date +%s) - t0) - 10))
if python3 -c 'import sys; sys.exit(0 if max(map(float, sys.argv[1:])) > 1.02 else 1)' "$(sp $V/roi_cl2.json)" "$(sp $V/roi_cl1.json)" && [ $left -gt 60 ]; then
  ( WILD_IDS="mmcv_roi_pool_fwd" WILD_ARGS="--budget 8 --minutes 1.2" WILD_JOBS=1 EPISODE_TIMEOUT=$left DEADLINE_S=$left MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
else
  echo "episode skipped: roi_cl2 $(sp $V/roi_cl2.json), roi_cl1 $(sp $V/roi_cl1.json), $left s left" | tee -a $OUT/x/verify.log
fi
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/w17a-wild-table.md 2>/dev/null; cp $OUT/x/verify.log $OUT/w17a-verify.txt
cat $OUT/w17a-wild-table.md 2>/dev/null
tail -3 $OUT/x/wild.log 2>/dev/null
cd $OUT && tar czf all.tgz x v && rm -rf x v
