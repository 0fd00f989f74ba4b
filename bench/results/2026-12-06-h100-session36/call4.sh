#!/bin/bash
# session 36, call 4 (main at HEAD: window_warp without its preprocessor guard): roi_pool's episode again
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
D=${D:-200}
nvidia-smi -L
mkdir -p $OUT/x
WILD_IDS="mmcv_roi_pool_fwd" WILD_JOBS=1 EPISODE_TIMEOUT=$((D-20)) DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/wroi tests/gpu/session.sh wild > $OUT/x/wroi.log 2>&1
cat $OUT/x/wroi/wild-table.md
cd $OUT && tar czf all.tgz x && rm -rf x
