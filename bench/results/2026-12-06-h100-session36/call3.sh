#!/bin/bash
# session 36, call 3 (main at 028ce63: PTXLOCAL, device_heap, ROI, COLS, I18N3 merged): the probes (hk_harness.h
# changed: the frame backstop; local_probe's frameless asm line), coalesced_columns' new shapes on llm.c's bias
# kernel (budget 6), window_warp on roi_pool and roi_align, the new cheats, two state cheats, honest controls
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-430}
nvidia-smi -L
mkdir -p $OUT/x
DEADLINE_S=100 MARGIN_S=5 OUT=$OUT/x/probes tests/gpu/session.sh probes > $OUT/x/probes.log 2>&1
D=$((D - $(date +%s) + t0))
( WILD_IDS="llmc_matmul_backward_bias1" WILD_ARGS="--budget 6 --minutes 1" WILD_JOBS=1 EPISODE_TIMEOUT=$((D-25)) DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/wbias tests/gpu/session.sh wild > $OUT/x/wbias.log 2>&1 ) &
( WILD_IDS="mmcv_roi_pool_fwd mmcv_roi_align_fwd" WILD_JOBS=2 EPISODE_TIMEOUT=$((D-25)) DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/wroi tests/gpu/session.sh wild > $OUT/x/wroi.log 2>&1 ) &
( CHEATS="asm_local_race alloca_race recursion_race heap_by_address heap_state_race uninit_scratch static_local_race managed_race" CHEAT_JOBS=2 CHEAT_TIMEOUT=$((D-60)) DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/cheats tests/gpu/session.sh cheats > $OUT/x/cheats.log 2>&1 ) &
( KERNELS="sgemm reduce_sum" JOBS=2 KERNEL_TIMEOUT=$((D-40)) DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/suite tests/gpu/session.sh suite > $OUT/x/suite.log 2>&1 ) &
wait
echo "all done at $(($(date +%s)-t0)) s"
grep -v "^$" $OUT/x/probes/probes.txt | grep -v "rep [12]:"
grep -v "^kernel\|^$" $OUT/x/cheats/summary-cheats.txt
grep -v "^cheat\|^$" $OUT/x/suite/summary-suite.txt
cat $OUT/x/wbias/wild-table.md $OUT/x/wroi/wild-table.md
cd $OUT && tar czf all.tgz x && rm -rf x
