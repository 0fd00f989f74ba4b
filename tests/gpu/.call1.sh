#!/usr/bin/env bash
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HK_COMMIT=218005d HKLS=$PWD/carry/hkls
mkdir -p $OUT/s $OUT/w $OUT/c
( DEADLINE_S=540 MARGIN_S=20 OUT=$OUT/s KERNELS="stencil2d rmsnorm" JOBS=2 BUDGET=6 MINUTES=1.25 KERNEL_TIMEOUT=330 tests/gpu/session.sh suite > $OUT/s/log.txt 2>&1 ) &
( DEADLINE_S=540 MARGIN_S=20 OUT=$OUT/c CHEATS="hc_define_hip_event" CHEAT_JOBS=1 CHEAT_TIMEOUT=90 tests/gpu/session.sh cheats > $OUT/c/log.txt 2>&1;
  DEADLINE_S=480 MARGIN_S=20 OUT=$OUT/w WILD_IDS="mmcv_knn_fwd shoc_reduce" WILD_JOBS=1 EPISODE_TIMEOUT=220 WILD_ARGS="--budget 4 --minutes 1.0" tests/gpu/session.sh wild > $OUT/w/log.txt 2>&1 ) &
wait
cat $OUT/c/summary-cheats.txt $OUT/s/summary-suite.txt $OUT/w/wild-table.md 2>/dev/null | tail -40
cd $OUT && tar czf all.tgz s w c && rm -rf s w c
