#!/bin/bash
# Session 52's device calls after merging the helpers' work. Run from the repo root with carry
# ["carry","bench/wild/src"] after rebuilding carry/hkls static at HEAD; set HK_COMMIT.
#   CALL=2  The new rewrites on the kernels they were built for, as wild episodes (final.sh, 2 side by side):
#           cascade_guard (three_nn, knn), occupancy_regs (roi_align, roi_align_rotated, roi_pool), value calls
#           in load_batching (carafe_naive). Meanwhile, in the background (the harness's GPU lock serializes
#           timed runs), the new sensitivity check in verify-candidate: the cheat reduce_sum_mean_fill (its catch
#           is probabilistic, about 86% a run) and the honest dot_fma_blocks (must never be insensitive),
#           twice each. Output: $OUT/verify.txt and final.sh's tables.
set -e
here=$(dirname "$0")
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills
case "${CALL:-2}" in
2) mkdir -p $OUT
   ( for r in 1 2; do
       for pair in "reduce_sum tests/gpu/cheats/reduce_sum_mean_fill.cu" "dot tests/gpu/honest/dot_fma_blocks.cu"; do
         set -- $pair
         t0=$(date +%s)
         timeout 170 carry/hkls verify-candidate --spec bench/kernels/$1.bench.json --candidate $2 --json > $OUT/verify-$1-$r.json 2> $OUT/verify-$1-$r.err
         rc=$?
         v=$(python3 -c "import json,sys; d=json.load(open('$OUT/verify-$1-$r.json')); print(d.get('verdict'), d.get('reason'), '|', str(d.get('details') or '')[:260])" 2>/dev/null || echo "no json")
         echo "$1 run $r: rc $rc, $(( $(date +%s) - t0 )) s: $v" >> $OUT/verify.txt
       done
     done ) &
   vpid=$!
   D=${D:-540} WILD="mmcv_three_nn_fwd mmcv_roi_align_fwd mmcv_knn_fwd mmcv_roi_align_rotated_fwd mmcv_carafe_naive_fwd mmcv_roi_pool_fwd" \
     bash "$here/../2026-12-07-session49/final.sh" || true
   kill $vpid 2>/dev/null || true
   echo "== verify-candidate"; cat $OUT/verify.txt 2>/dev/null ;;
esac
