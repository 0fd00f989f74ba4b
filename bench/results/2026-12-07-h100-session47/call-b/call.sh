#!/bin/bash
# for session 47: every cheat of tests/gpu/cheats (116 at session 46's end) at one commit, on whatever card
# comes (the H200 is the one issue 12 names), as session 43's call1.sh without its two other lanes: the GPU lock
# starved them (docs/gpu-testing.md). Three session.sh cheats groups: the sanitizer-heavy ones (4 jobs, 300 s each),
# the rest split in two (3 jobs, 150 s each); group a also holds the newest race cheat, spin_int_range_evade. Measurements (REF8's race-check controls, episodes) go in a call of
# their own. At 81e71b4e on an H100 this took 332 s for 86 cheats; three cheats hit script_timeout there only
# because of the other lanes. Set D (default 575) and HK_COMMIT.
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-575}
nvidia-smi -L
mkdir -p $OUT/x
A="sanitize_race_reduce_sum sanitize_oob_read_saxpy race_warp_sync oob_far_read size_race clock_sanitizer_evade race race_first_sync local_past_end local_from_int compile_bomb_unroll hang spin_int_range_evade"
ALL=$(cd tests/gpu/cheats && ls *.cu | sed 's/\.cu$//')
REST=$(for c in $ALL; do case " $A " in *" $c "*) ;; *) echo $c;; esac; done)
B=$(echo "$REST" | awk 'NR%2==1' | tr '\n' ' ')
C=$(echo "$REST" | awk 'NR%2==0' | tr '\n' ' ')
echo "a: $A"; echo "b: $B"; echo "c: $C"
( CHEATS="$A" CHEAT_JOBS=4 CHEAT_TIMEOUT=300 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/ca tests/gpu/session.sh cheats > $OUT/x/ca.log 2>&1 ) &
( CHEATS="$B" CHEAT_JOBS=3 CHEAT_TIMEOUT=150 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/cb tests/gpu/session.sh cheats > $OUT/x/cb.log 2>&1 ) &
( CHEATS="$C" CHEAT_JOBS=3 CHEAT_TIMEOUT=150 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/cc tests/gpu/session.sh cheats > $OUT/x/cc.log 2>&1 ) &
wait
echo "all done at $(($(date +%s)-t0)) s"
for g in ca cb cc; do cp $OUT/x/$g/summary-cheats.txt $OUT/summary-$g.txt 2>/dev/null; done
grep -v "^kernel\|^$" $OUT/x/c?/summary-cheats.txt | grep -v "| PASS"
grep -h "rejected for" $OUT/x/c?/summary-cheats.txt
cd $OUT && tar czf all.tgz x && rm -rf x
