#!/bin/bash
# session 36, call 2 (same warm H100, tree as call 1): the four cheats call 1's deadline left out, alone on the GPU
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
nvidia-smi -L
mkdir -p $OUT/x
CHEATS="leftover_output strided_sum uninit_scratch unstable_clock" CHEAT_JOBS=4 CHEAT_TIMEOUT=200 DEADLINE_S=230 MARGIN_S=8 OUT=$OUT/x/cc tests/gpu/session.sh cheats > $OUT/x/cc.log 2>&1
grep -v "^kernel\|^$" $OUT/x/cc/summary-cheats.txt
cd $OUT && tar czf all.tgz x && rm -rf x
