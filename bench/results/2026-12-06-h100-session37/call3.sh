#!/bin/bash
# session 37, call 3 (main at 0dd0cb5: REF's second scrub form, WILD12's block_reduce carry, STYLES, I18N4,
# grid_y_lanes): probes (local_probe's 1016/1024 B cases), grid_y_lanes on roiaware_maxpool3d and block_reduce's
# carry on cs_reduce3 (holdout-s37, budget 3 / 0.5 min as call 2), the local/state cheats, sgemm.
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-380}
nvidia-smi -L
mkdir -p $OUT/x
DEADLINE_S=110 MARGIN_S=5 OUT=$OUT/x/probes tests/gpu/session.sh probes > $OUT/x/probes.log 2>&1
grep -v "^$" $OUT/x/probes/probes.txt | grep -v "rep [12]:" | grep "reach\|scrub\|exit\|GPU"
D=$((D - $(date +%s) + t0))
( WILD_IDS="mmcv_roiaware_maxpool3d cs_reduce3" WILD_ARGS="--budget 3 --minutes 0.5" WILD_JOBS=2 EPISODE_TIMEOUT=$((D-25)) DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 ) &
( CHEATS="local_past_end local_from_int launch_count_race static_local_race uninit_scratch managed_race asm_local_race" CHEAT_JOBS=4 CHEAT_TIMEOUT=$((D-40)) DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/cheats tests/gpu/session.sh cheats > $OUT/x/cheats.log 2>&1 ) &
( KERNELS="sgemm" JOBS=1 KERNEL_TIMEOUT=$((D-30)) DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/suite tests/gpu/session.sh suite > $OUT/x/suite.log 2>&1 ) &
wait
echo "all done at $(($(date +%s)-t0)) s"
grep -v "^kernel\|^$" $OUT/x/cheats/summary-cheats.txt
grep -v "^cheat\|^$" $OUT/x/suite/summary-suite.txt
cat $OUT/x/wild/wild-table.md
cd $OUT && tar czf all.tgz x && rm -rf x
