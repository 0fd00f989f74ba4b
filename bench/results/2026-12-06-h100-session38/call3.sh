#!/bin/bash
# session 38, call 3 (main at HK_COMMIT: STYLES, CI14, ROI, REF2 merged; hkls built from it): REF2's cheats (the
# sanitizer's run now laid out as every other run, guard zones declared to the tool by NVTX; three new cheats and
# regressions), the explicit --nvtx yes check, three honest kernels under --sanitize, sgemm and reduce_sum as the
# suite's controls, and ROI's two kernels that now get channel_chunks (budget 3 / 0.5 min)
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-540}
nvidia-smi -L; compute-sanitizer --version | tail -1
mkdir -p $OUT/x/honest
( CHEATS="sanitizer_by_address overread_unless_memcheck spin_sanitizer_evade sanitize_oob_read_saxpy sanitize_race_reduce_sum oob_far_read out_of_bounds size_race local_past_end heap_by_address" CHEAT_JOBS=4 CHEAT_TIMEOUT=300 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/cheats tests/gpu/session.sh cheats > $OUT/x/cheats.log 2>&1 ) &
( WILD_IDS="mmcv_roi_align_rotated_fwd mmcv_prroi_pool_fwd" WILD_ARGS="--budget 3 --minutes 0.5" WILD_JOBS=2 EPISODE_TIMEOUT=360 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 ) &
( KERNELS="sgemm reduce_sum" JOBS=1 KERNEL_TIMEOUT=200 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/suite tests/gpu/session.sh suite > $OUT/x/suite.log 2>&1 ) &
( cd $OUT/x/honest && H=$OLDPWD
  printf '#!/bin/sh\nexec compute-sanitizer --nvtx yes "$@"\n' > cs-nvtx && chmod +x cs-nvtx
  cd $H
  HK_COMPUTE_SANITIZER=$OUT/x/honest/cs-nvtx timeout 250 $HKLS verify-candidate --spec bench/kernels/saxpy.bench.json --candidate tests/gpu/cheats/sanitize_oob_read_saxpy.cu --sanitize --json > $OUT/x/honest/nvtx_saxpy.json 2> $OUT/x/honest/nvtx_saxpy.err; echo "nvtx-explicit sanitize_oob_read_saxpy rc $?"
  for c in "vector_add bench/kernels/vector_add.cu" "reduce_sum tests/gpu/honest/reduce_sum_retire.cu" "sgemm bench/kernels/sgemm.cu"; do set -- $c
    timeout 250 $HKLS verify-candidate --spec bench/kernels/$1.bench.json --candidate $2 --sanitize --json > $OUT/x/honest/$1.json 2> $OUT/x/honest/$1.err; echo "honest $1 rc $?"
  done ) > $OUT/x/honest.txt 2>&1 &
wait
echo "all done at $(($(date +%s)-t0)) s"
cat $OUT/x/honest.txt
for f in $OUT/x/honest/*.json; do echo "$(basename $f): $(jq -c '{verdict:(.verdict // .status // .result), reason:(.reason // .rejected), speedup:.speedup, sanitizer:(.sanitizer // .sanitize)}' $f 2>/dev/null | head -c 600)"; done
cp $OUT/x/cheats/summary-cheats.txt $OUT/call3-cheats.txt 2>/dev/null; cp $OUT/x/suite/summary-suite.txt $OUT/call3-suite.txt 2>/dev/null; cp $OUT/x/wild/wild-table.md $OUT/call3-wild-table.md 2>/dev/null
grep -v "^kernel\|^$" $OUT/x/cheats/summary-cheats.txt
grep -v "^cheat\|^$" $OUT/x/suite/summary-suite.txt
cat $OUT/x/wild/wild-table.md
cd $OUT && tar czf all.tgz x && rm -rf x
