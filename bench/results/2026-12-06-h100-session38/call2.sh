#!/bin/bash
# session 38, call 2 (main at feebc90, hkls built from it, as call 1): the eight cheats call 1 left unjudged (seven
# script_timeout beside ten other jobs, hang not started), with fewer beside them: the four sanitizer-heavy ones with 450 s
# each (4 jobs), the other four with 250 s each (2 jobs)
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-560}
nvidia-smi -L
mkdir -p $OUT/x
( CHEATS="oob_far_read race_warp_sync sanitize_oob_read_saxpy sanitize_race_reduce_sum" CHEAT_JOBS=4 CHEAT_TIMEOUT=450 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/ca tests/gpu/session.sh cheats > $OUT/x/ca.log 2>&1 ) &
( CHEATS="leftover_output cached_result fast_softmax hang" CHEAT_JOBS=2 CHEAT_TIMEOUT=250 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/cb tests/gpu/session.sh cheats > $OUT/x/cb.log 2>&1 ) &
wait
echo "all done at $(($(date +%s)-t0)) s"
for g in ca cb; do cp $OUT/x/$g/summary-cheats.txt $OUT/summary2-$g.txt 2>/dev/null; done
grep -v "^kernel\|^$" $OUT/x/c?/summary-cheats.txt
cd $OUT && tar czf all.tgz x && rm -rf x
