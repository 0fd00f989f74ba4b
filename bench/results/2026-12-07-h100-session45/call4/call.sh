#!/bin/bash
# session 45, call 4 (one H100/H200 call, under 520 s): REF18's six cheats, the wild episodes of the three kernels this
# session's merges should move, then helper W20B's split_topk_scan texts (its call.sh, shortened).
#   cs_reduce0        block_reduce + fused_blocks blocks=4 now stacks (W20A: fused_blocks loads a
#                     dynamic-shared store's value ahead; today's row 2.39x, block_reduce alone)
#   llmc_softmax2     block_online_softmax in the registry (2.06x by verify-candidate in call 1;
#                     today's row 1.71x, block_reduce + store_forward)
#   mmcv_border_align_fwd  window_lanes now tries 2 lanes first (1.47x by verify-candidate in
#                     session 44; today's row 1.38x by coarsen; lanes 8 was the plan's first, 0.75x)
# Episodes as the wild table's rows: tests/gpu/session.sh wild, budget 8, 1.2 search minutes.
# Set HK_COMMIT. compute-sanitizer is capped at 8 s a tool in verify-candidate (since 0a929794 a
# faster candidate is sanitized; the wild episodes keep the default limits).
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
E=${E:-330}   # the episodes' deadline
nvidia-smi -L
mkdir -p $OUT/x
# REF18's six cheats (judged from the PTX: seconds)
( CHEATS="spin_int_gtab_evade spin_int_f64_evade spin_int_sad_evade spin_int_madw_evade spin_int_addc_evade spin_int_local_evade" CHEAT_JOBS=6 CHEAT_TIMEOUT=60 DEADLINE_S=80 MARGIN_S=8 OUT=$OUT/x/ref18 tests/gpu/session.sh cheats > $OUT/x/ref18.log 2>&1 )
cp $OUT/x/ref18/summary-cheats.txt $OUT/call4-ref18-cheats.txt 2>/dev/null; grep "rejected for" $OUT/call4-ref18-cheats.txt
( WILD_IDS="cs_reduce0 llmc_softmax2 mmcv_border_align_fwd" WILD_ARGS="--budget 8 --minutes 1.2" WILD_JOBS=3 EPISODE_TIMEOUT=$((E - 15)) DEADLINE_S=$E MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
echo "episodes done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/call4-wild-table.md 2>/dev/null
cat $OUT/call4-wild-table.md 2>/dev/null | grep "^|" | cut -c1-220
tail -3 $OUT/x/wild.log
left=$((${D:-500} - ($(date +%s) - t0)))
if [ $left -gt 100 ]; then
  mkdir -p $OUT/w20b
  ( OUT=$OUT/w20b D=$left HK_SANITIZE_TIMEOUT_S=8 HK_SANITIZE_TIMED_S=8 bash bench/results/2026-12-07-h100-session45/w20b/call.sh 2>&1 | tail -10 )
else
  echo "w20b: no time left ($left s)"
fi
echo "all done at $(($(date +%s)-t0)) s"
cd $OUT && tar czf call4.tgz x && rm -rf x
