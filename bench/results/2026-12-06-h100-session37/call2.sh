#!/bin/bash
# session 37, call 2 (main at HEAD: REF's local scrub of frame + stack merged, WILD12's holdout-s37 batch): REF's
# probes (local_probe's reach cases, the scrub's cost), its two new cheats and two controls, honest suite controls,
# and the 11 holdout-s37 kernels' first GPU look (budget 3, 0.5 min, as session 30's first look at holdout-s29).
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-550}
nvidia-smi -L
mkdir -p $OUT/x
DEADLINE_S=130 MARGIN_S=5 OUT=$OUT/x/probes tests/gpu/session.sh probes > $OUT/x/probes.log 2>&1
D=$((D - $(date +%s) + t0))
IDS="mmcv_roiaware_maxpool3d mmcv_border_align_fwd mmcv_deform_roi_pool_fwd mmcv_roi_align_rotated_fwd mmcv_prroi_pool_fwd cs_conv_cols cs_reduce3 shoc_stencil2d rodinia_backprop_layerforward llmc_layernorm_rstd llmc_gelu_backward1_bf16"
( WILD_IDS="$IDS" WILD_ARGS="--budget 3 --minutes 0.5" WILD_JOBS=3 EPISODE_TIMEOUT=$((D-25)) DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 ) &
( CHEATS="local_past_end local_from_int asm_local_race launch_count_race" CHEAT_JOBS=2 CHEAT_TIMEOUT=$((D-60)) DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/cheats tests/gpu/session.sh cheats > $OUT/x/cheats.log 2>&1 ) &
( KERNELS="reduce_sum saxpy sgemm" JOBS=2 KERNEL_TIMEOUT=$((D-40)) DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/suite tests/gpu/session.sh suite > $OUT/x/suite.log 2>&1 ) &
wait
echo "all done at $(($(date +%s)-t0)) s"
grep -v "^$" $OUT/x/probes/probes.txt | grep -v "rep [12]:"
grep -v "^kernel\|^$" $OUT/x/cheats/summary-cheats.txt
grep -v "^cheat\|^$" $OUT/x/suite/summary-suite.txt
cat $OUT/x/wild/wild-table.md
cd $OUT && tar czf all.tgz x && rm -rf x
