#!/bin/bash
# session 42, call 2 (main at 59591d68, hkls built from it; whatever card comes): every cheat of tests/gpu/cheats (79)
# at one commit, before REF8: the sanitizer-heavy ones (session 38's twelve and the two open race cheats, which
# are expected to be accepted at this commit) in one session.sh with 4 jobs and 300 s each, the other 65 in two
# session.sh beside it with 3 jobs and 150 s each. What a group leaves unjudged (script_timeout, not started)
# goes to a later call.
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-575}
nvidia-smi -L
mkdir -p $OUT/x
A="sanitize_race_reduce_sum sanitize_oob_read_saxpy race_warp_sync oob_far_read size_race clock_sanitizer_evade race race_first_sync local_past_end local_from_int compile_bomb_unroll hang spin_guard_evade spin_sub_evade"
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
