#!/bin/bash
# session 39, call 4 (main at 7165b8e: REF3, WILD13, I18N6, CI16 merged; carry/hkls built from it): three groups at once
# (a) REF3's race rule in the real referee flow: the cheats whose reason changed + race.cu (racecheck)
# (b) shared-memory controls that must pass the race check (cs_reduce3 itself, tiled_transpose of cs_transpose_naive, reduce_sum)
#     and WILD13's fused_blocks texts (rstd, bias1 at F=4; block_reduce+fused_blocks 4 on cs_reduce3)
# (c) WILD13's episodes: cs_reduce3 and llmc_layernorm_rstd at budget 4 / 1 min (the engine must propose fused_blocks itself)
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-330}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; r=[c for c in d.get("checks",[]) if isinstance(c,dict) and c.get("check")=="race"]; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")), "race_check=%s" % (r[0].get("result") if r else "-"))' "$1" 2>&1 | head -c 400; }
( CHEATS="race_warp_sync spin_sanitizer_evade launch_count_race managed_race static_local_race local_past_end local_from_int sanitize_race_reduce_sum race" CHEAT_JOBS=3 CHEAT_TIMEOUT=150 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/cheats tests/gpu/session.sh cheats > $OUT/x/cheats.log 2>&1 ) &
( WILD_IDS="cs_reduce3 llmc_layernorm_rstd" WILD_ARGS="--budget 4 --minutes 1" WILD_JOBS=2 EPISODE_TIMEOUT=240 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 ) &
(
  V=$OUT/v
  k=$(python3 -c 'import json;print(json.load(open("bench/wild/specs/cs_transpose_naive.bench.json"))["kernel"])')
  $HKLS rewrites bench/wild/src/cs_transpose_naive.cu --kernel $k --spec bench/wild/specs/cs_transpose_naive.bench.json --emit tiled_transpose > $V/tiled_transpose.cu
  $HKLS rewrites bench/wild/src/cs_reduce3.cu --kernel reduce3 --spec bench/wild/specs/cs_reduce3.bench.json --emit block_reduce > $V/cs_reduce3_br.cu
  $HKLS rewrites $V/cs_reduce3_br.cu --kernel reduce3 --spec bench/wild/specs/cs_reduce3.bench.json --emit fused_blocks --param blocks=4 > $V/cs_reduce3_br_fb4.cu
  $HKLS rewrites bench/wild/src/llmc_layernorm_rstd.cu --kernel rstd_kernel --spec bench/wild/specs/llmc_layernorm_rstd.bench.json --emit fused_blocks --param blocks=4 > $V/rstd_fb4.cu
  $HKLS rewrites bench/wild/src/llmc_matmul_backward_bias1.cu --kernel matmul_backward_bias_kernel1 --spec bench/wild/specs/llmc_matmul_backward_bias1.bench.json --emit fused_blocks --param blocks=4 > $V/bias1_fb4.cu
  for c in "self_cs_reduce3 bench/wild/specs/cs_reduce3.bench.json bench/wild/src/cs_reduce3.cu" \
           "self_tiled_transpose bench/wild/specs/cs_transpose_naive.bench.json $V/tiled_transpose.cu" \
           "self_reduce_sum bench/kernels/reduce_sum.bench.json bench/kernels/reduce_sum.cu" \
           "cs_reduce3_br_fb4 bench/wild/specs/cs_reduce3.bench.json $V/cs_reduce3_br_fb4.cu" \
           "rstd_fb4 bench/wild/specs/llmc_layernorm_rstd.bench.json $V/rstd_fb4.cu" \
           "bias1_fb4 bench/wild/specs/llmc_matmul_backward_bias1.bench.json $V/bias1_fb4.cu"; do
    set -- $c
    [ $(($(date +%s)-t0)) -gt $((D-60)) ] && { echo "$1: no time left"; continue; }
    timeout 110 $HKLS verify-candidate --spec $2 --candidate $3 --pairs 5 --json > $V/$1.json 2> $V/$1.err
    echo "$1 rc=$? at $(($(date +%s)-t0)) s: $(js $V/$1.json)"
  done > $OUT/x/verify.log 2>&1
) &
wait
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/cheats/summary-cheats.txt $OUT/call4-cheats.txt 2>/dev/null; cp $OUT/x/wild/wild-table.md $OUT/call4-wild-table.md 2>/dev/null; cp $OUT/x/verify.log $OUT/call4-verify.txt
cat $OUT/x/verify.log
grep -v "^$" $OUT/call4-cheats.txt | tail -14
cat $OUT/call4-wild-table.md
tail -3 $OUT/x/wild.log $OUT/x/cheats.log
cd $OUT && tar czf all.tgz x v && rm -rf x v
