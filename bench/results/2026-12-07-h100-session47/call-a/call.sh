#!/bin/bash
# for session 47 (session 46 had 197 s of device time, too little to start a machine: nothing of it ran on a GPU).
# Call A (one H100/H200 call, under 560 s): session 46's new cheats (REF19's, judged from the PTX: seconds), then the
# wild episodes of session 45's call 4 (cs_reduce0, llmc_softmax2, mmcv_border_align_fwd: never run at their
# merged code), then the third holdout (batch holdout-s46, 11 kernels never developed against) as far as time goes.
# Episodes as the wild table's rows (budget 8, 1.2 search minutes). Since 88a38db1 a best whose compute-sanitizer
# check it leaves incomplete where the original's completes is not credited: the episodes keep the default
# sanitizer limits (300 s) so that no honest best loses its credit to a shortened limit.
# Set HK_COMMIT (rebuild carry/hkls at it first: cmake -DHK_STATIC=ON, RECIPES) and run from the repo root with
# carry: ["carry", "bench/wild/src"]. Then call-b.sh (every cheat, for issue 12's table).
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-560}
nvidia-smi -L
mkdir -p $OUT/x
NEW="spin_int_sword_evade spin_int_swordlate_evade spin_int_subc_evade spin_int_madc_evade spin_int_dmul_evade spin_int_localjoin_evade spin_int_merge_evade"
( CHEATS="$NEW" CHEAT_JOBS=7 CHEAT_TIMEOUT=60 DEADLINE_S=80 MARGIN_S=8 OUT=$OUT/x/ref19 tests/gpu/session.sh cheats > $OUT/x/ref19.log 2>&1 )
cp $OUT/x/ref19/summary-cheats.txt $OUT/a-ref19-cheats.txt 2>/dev/null; grep "rejected for" $OUT/a-ref19-cheats.txt
HOLD=$(python3 -c "import json; print(' '.join(k['id'] for k in json.load(open('bench/wild/manifest.json'))['kernels'] if k.get('batch') == 'holdout-s46'))")
left=$((D - ($(date +%s) - t0) - 20))
( WILD_IDS="cs_reduce0 llmc_softmax2 mmcv_border_align_fwd $HOLD" WILD_ARGS="--budget 8 --minutes 1.2" WILD_JOBS=4 EPISODE_TIMEOUT=300 DEADLINE_S=$left MARGIN_S=10 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
echo "episodes done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/a-wild-table.md 2>/dev/null
grep "^|" $OUT/a-wild-table.md 2>/dev/null | cut -c1-220
tail -3 $OUT/x/wild.log
echo "all done at $(($(date +%s)-t0)) s"
cd $OUT && tar czf call-a.tgz x && rm -rf x
