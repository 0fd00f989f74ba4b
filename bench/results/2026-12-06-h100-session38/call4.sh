#!/bin/bash
# session 38, call 4 (main at HK_COMMIT: NEAR, SCAN, I18N5 merged besides call 3's; hkls built from it): NEAR's guarded
# split_topk_scan on knn and ball_query (verify-candidate on the spec's grid x P, P 4 and 8; then the episodes at budget
# 8), SCAN's shared_padding on our own work-efficient scan (verify-candidate), and the four cheats call 3 left
# (heap_by_address, local_past_end, size_race not started; spin_sanitizer_evade cut at 300 s)
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-430}
nvidia-smi -L
mkdir -p $OUT/x/near $OUT/x/scan
( CHEATS="heap_by_address local_past_end size_race spin_sanitizer_evade" CHEAT_JOBS=2 CHEAT_TIMEOUT=400 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/cheats tests/gpu/session.sh cheats > $OUT/x/cheats.log 2>&1 ) &
( sleep 150; WILD_IDS="mmcv_knn_fwd mmcv_ball_query_fwd" WILD_ARGS="--budget 8 --minutes 1.5" WILD_JOBS=2 EPISODE_TIMEOUT=260 DEADLINE_S=$((D-150)) MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 ) &
( for id in mmcv_knn_fwd mmcv_ball_query_fwd; do k=$(jq -r .kernel bench/wild/specs/$id.bench.json); for P in 4 8; do
    jq --arg src "$PWD/bench/wild/src/$id.cu" --argjson P $P '.source=$src | .name=(.name+"_x\($P)") | .launch.grid[0]="\($P) * (" + .launch.grid[0] + ")"' bench/wild/specs/$id.bench.json > $OUT/x/near/$id.x$P.bench.json
    $HKLS rewrites bench/wild/src/$id.cu --kernel $k --emit split_topk_scan --param parts=$P > $OUT/x/near/$id.split$P.cu
    timeout 150 $HKLS verify-candidate --spec $OUT/x/near/$id.x$P.bench.json --candidate $OUT/x/near/$id.split$P.cu --pairs 5 --json > $OUT/x/near/$id.P$P.json 2> $OUT/x/near/$id.P$P.err; echo "$id P=$P rc=$?"
  done; done
  $HKLS rewrites tests/data/styles/misc.cu --kernel scan_bank_conflicts --emit shared_padding > $OUT/x/scan/scan_pad.cu
  timeout 150 $HKLS verify-candidate --spec tests/data/styles/scan_bank_conflicts.bench.json --candidate $OUT/x/scan/scan_pad.cu --pairs 9 --json > $OUT/x/scan/scan.json 2> $OUT/x/scan/scan.err; echo "scan shared_padding rc=$?"
) > $OUT/x/verify.txt 2>&1 &
wait
echo "all done at $(($(date +%s)-t0)) s"
cat $OUT/x/verify.txt
for f in $OUT/x/near/*.json $OUT/x/scan/scan.json; do echo "$(basename $f): $(jq -c '{verdict, reason, speedup, baseline_ms:(.baseline_ms // .baseline.median_ms), candidate_ms:(.candidate_ms // .candidate.median_ms), details:(.details // "" | tostring | .[0:300])}' $f 2>/dev/null | head -c 700)"; done
cp $OUT/x/cheats/summary-cheats.txt $OUT/call4-cheats.txt 2>/dev/null; cp $OUT/x/wild/wild-table.md $OUT/call4-wild-table.md 2>/dev/null
grep -v "^kernel\|^$" $OUT/x/cheats/summary-cheats.txt
cat $OUT/x/wild/wild-table.md
cd $OUT && tar czf all.tgz x && rm -rf x
