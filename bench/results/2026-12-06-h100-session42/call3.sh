#!/bin/bash
# session 42, call 3 (main after merging s42-ref8, s42-ref9 and s42-w16a; carry/hkls built from it; whatever card
# comes; device time was short after failed starts, so the two requests share one call):
#  (a) W16A's request (w16a/call.sh, D=178): rstd_kernel's warp_row_tree / block_reduce / fused_blocks texts by
#      verify-candidate, then its episode at budget 8 / 1.2 min;
#  (b) beside it, the race cheats of this session (spin_guard_evade, spin_sub_evade: REF8; spin_tid_store_evade:
#      REF9; spin_bar2_store_evade: open) and REF7's (spin_store_evade, spin_nan_evade), race and spin_word_evade
#      (3 jobs, 120 s each);
#  (c) after (a), every other cheat of tests/gpu/cheats for what is left of D (2 jobs, 150 s each): what it
#      does not reach is listed as not started.
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-420}
nvidia-smi -L
mkdir -p $OUT/x
S="spin_guard_evade spin_sub_evade spin_tid_store_evade spin_bar2_store_evade spin_store_evade spin_nan_evade race spin_word_evade"
( CHEATS="$S" CHEAT_JOBS=3 CHEAT_TIMEOUT=120 DEADLINE_S=250 MARGIN_S=8 OUT=$OUT/x/cs tests/gpu/session.sh cheats > $OUT/x/cs.log 2>&1 ) &
( mkdir -p $OUT/x/w16a && D=178 OUT=$OUT/x/w16a bench/results/2026-12-06-h100-session42/w16a/call.sh > $OUT/x/w16a.log 2>&1 )
ALL=$(cd tests/gpu/cheats && ls *.cu | sed 's/\.cu$//')
REST=$(for c in $ALL; do case " $S " in *" $c "*) ;; *) echo $c;; esac; done | tr '\n' ' ')
left=$((D - ($(date +%s) - t0) - 5))
( CHEATS="$REST" CHEAT_JOBS=3 CHEAT_TIMEOUT=150 DEADLINE_S=$left MARGIN_S=8 OUT=$OUT/x/cr tests/gpu/session.sh cheats > $OUT/x/cr.log 2>&1 )
wait
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/cs/summary-cheats.txt $OUT/call3-cheats-spin.txt 2>/dev/null; cp $OUT/x/cr/summary-cheats.txt $OUT/call3-cheats-rest.txt 2>/dev/null
cp $OUT/x/w16a/w16a-verify.txt $OUT/call3-w16a-verify.txt 2>/dev/null; cp $OUT/x/w16a/w16a-wild-table.md $OUT/call3-w16a-wild-table.md 2>/dev/null
cat $OUT/call3-w16a-verify.txt $OUT/call3-w16a-wild-table.md 2>/dev/null
grep -v "^$" $OUT/call3-cheats-spin.txt | tail -12
grep -v "^kernel\|^$" $OUT/call3-cheats-rest.txt | grep -v "| PASS" | tail -30
grep -h "rejected for" $OUT/call3-cheats-*.txt
cd $OUT && tar czf all.tgz x && rm -rf x
