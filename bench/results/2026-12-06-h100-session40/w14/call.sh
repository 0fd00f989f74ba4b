#!/bin/bash
# session 40, helper W14's GPU call (one H100 call, ~9 min): the stacked candidates the search
# now proposes by itself, judged by hand first, then two episodes that must find them.
# Run from the repository root at the commit of branch s40-w14 (or main once merged), with
# carry/hkls built from it and bench/wild/src extracted, as session 39's call4.sh.
# The candidate texts are emitted here on the device (they are third-party kernels rewritten:
# they never enter the repository), into $OUT/v with the commands that made them.
#  (a) verify-candidate, 5 pairs each:
#      pib_fl        mmcv_points_in_boxes_part, float_literals alone (its callee copied)
#      pib_th        ... table_hoist alone (session 38's 1.26x winner, the reference)
#      pib_th_fl     ... table_hoist + float_literals (the stack)
#      reduce3_br_fb4  cs_reduce3, block_reduce + fused_blocks 4 (session 39: 1.30x)
#      bias1_br_fb4  llmc_matmul_backward_bias1, block_reduce + fused_blocks 4
#      rstd_ilp_fb4  llmc_layernorm_rstd, ilp_accumulators + fused_blocks 4
#      roi_align_uj4, deform_roi_uj4  mmcv_roi_align_fwd / mmcv_deform_roi_pool_fwd, unroll_jam_scan
#                    at its default unroll=4 through the reader bilinear_interpolate: the x loop of
#                    2 samples runs as one jammed pair
#  (b) the wild episodes of cs_reduce3, mmcv_points_in_boxes_part and mmcv_roi_align_fwd at budget 8 / 1.5 min
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-540}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
V=$OUT/v
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")))' "$1" 2>&1 | head -c 400; }
emit() {  # emit NAME ID REWRITES [--param ...]
  local name=$1 id=$2 rws=$3; shift 3
  local spec=bench/wild/specs/$id.bench.json k
  k=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["kernel"])' $spec)
  echo "$HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec --device 132,64 --emit $rws $*" >> $V/commands.txt
  $HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec --device 132,64 --emit $rws "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
}
emit pib_fl mmcv_points_in_boxes_part float_literals
emit pib_th mmcv_points_in_boxes_part table_hoist
emit pib_th_fl mmcv_points_in_boxes_part table_hoist+float_literals
emit reduce3_br_fb4 cs_reduce3 block_reduce+fused_blocks --param fused_blocks.blocks=4
emit bias1_br_fb4 llmc_matmul_backward_bias1 block_reduce+fused_blocks --param fused_blocks.blocks=4
emit rstd_ilp_fb4 llmc_layernorm_rstd ilp_accumulators+fused_blocks --param fused_blocks.blocks=4
emit roi_align_uj4 mmcv_roi_align_fwd unroll_jam_scan
emit deform_roi_uj4 mmcv_deform_roi_pool_fwd unroll_jam_scan
for c in "pib_fl mmcv_points_in_boxes_part" "pib_th mmcv_points_in_boxes_part" "pib_th_fl mmcv_points_in_boxes_part" \
         "reduce3_br_fb4 cs_reduce3" "bias1_br_fb4 llmc_matmul_backward_bias1" "rstd_ilp_fb4 llmc_layernorm_rstd" \
         "roi_align_uj4 mmcv_roi_align_fwd" "deform_roi_uj4 mmcv_deform_roi_pool_fwd"; do
  set -- $c
  [ -s $V/$1.cu ] || { echo "$1: no text"; continue; }
  [ $(($(date +%s)-t0)) -gt 260 ] && { echo "$1: no time left"; continue; }
  timeout 110 $HKLS verify-candidate --spec bench/wild/specs/$2.bench.json --candidate $V/$1.cu --pairs 5 --json > $V/$1.json 2> $V/$1.err
  echo "$1 rc=$? at $(($(date +%s)-t0)) s: $(js $V/$1.json)"
done 2>&1 | tee $OUT/x/verify.log
left=$((D - ($(date +%s) - t0) - 20))
( WILD_IDS="cs_reduce3 mmcv_points_in_boxes_part mmcv_roi_align_fwd" WILD_ARGS="--budget 8 --minutes 1.5" WILD_JOBS=3 EPISODE_TIMEOUT=240 DEADLINE_S=$left MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/w14-wild-table.md 2>/dev/null; cp $OUT/x/verify.log $OUT/w14-verify.txt
cat $OUT/w14-wild-table.md
tail -3 $OUT/x/wild.log
cd $OUT && tar czf all.tgz x v && rm -rf x v
