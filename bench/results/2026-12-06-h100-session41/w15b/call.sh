#!/bin/bash
# session 41, helper W15B's GPU call (one H100 call, ~9 min): fused_blocks on the tile-staging
# kernels (a staged __shared__ tile per copy, top-level barriers passed once, the grid's y axis),
# judged by hand first, then the episodes that must propose it.
# Run from the repository root at the commit of branch s41-w15b (or main once merged), with
# carry/hkls built from it and bench/wild/src extracted, as session 40's w14/call.sh.
# The candidate texts are emitted here on the device (third-party kernels rewritten: they never
# enter the repository), into $OUT/v with the commands that made them.
#  (a) verify-candidate, 5 pairs each:
#      srad1_fb2, srad1_fb4   rodinia_srad1 (srad_cuda_1), fused_blocks blocks=2 / 4 (x)
#      lf_fb4, lf_fb2         rodinia_backprop_layerforward, blocks=4 / 2 (along y)
#      hotspot_fb2, hotspot_fb4  rodinia_hotspot (calculate_temp), blocks=2 / 4
#      pathfinder_fb4         rodinia_pathfinder (dynproc_kernel), blocks=4
#      conv_rows_fb2          cs_conv_rows, blocks=2 along y, emitted WITHOUT --device: the
#                             device refuses it (80 KB of loads per SM in flight already); this is
#                             the control of that rule (expected about 1.00x)
#  (b) the wild episodes of rodinia_srad1, rodinia_backprop_layerforward and rodinia_hotspot at budget 8 / 1.5 min
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-540}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
V=$OUT/v
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")))' "$1" 2>&1 | head -c 400; }
emit() {  # emit NAME ID DEVICE(132,64 or -) REWRITES [--param ...]
  local name=$1 id=$2 dev=$3 rws=$4; shift 4
  local spec=bench/wild/specs/$id.bench.json k d=()
  [ "$dev" != - ] && d=(--device $dev)
  k=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["kernel"])' $spec)
  echo "$HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec ${d[*]} --emit $rws $*" >> $V/commands.txt
  $HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec "${d[@]}" --emit $rws "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
}
emit srad1_fb2 rodinia_srad1 132,64 fused_blocks --param blocks=2
emit srad1_fb4 rodinia_srad1 132,64 fused_blocks --param blocks=4
emit lf_fb4 rodinia_backprop_layerforward 132,64 fused_blocks --param blocks=4
emit lf_fb2 rodinia_backprop_layerforward 132,64 fused_blocks --param blocks=2
emit hotspot_fb2 rodinia_hotspot 132,64 fused_blocks --param blocks=2
emit hotspot_fb4 rodinia_hotspot 132,64 fused_blocks --param blocks=4
emit pathfinder_fb4 rodinia_pathfinder 132,64 fused_blocks --param blocks=4
emit conv_rows_fb2 cs_conv_rows - fused_blocks --param blocks=2
for c in "srad1_fb4 rodinia_srad1" "lf_fb4 rodinia_backprop_layerforward" "hotspot_fb2 rodinia_hotspot" \
         "conv_rows_fb2 cs_conv_rows" "srad1_fb2 rodinia_srad1" "lf_fb2 rodinia_backprop_layerforward" \
         "hotspot_fb4 rodinia_hotspot" "pathfinder_fb4 rodinia_pathfinder"; do
  set -- $c
  [ -s $V/$1.cu ] || { echo "$1: no text"; continue; }
  [ $(($(date +%s)-t0)) -gt 260 ] && { echo "$1: no time left"; continue; }
  timeout 110 $HKLS verify-candidate --spec bench/wild/specs/$2.bench.json --candidate $V/$1.cu --pairs 5 --json > $V/$1.json 2> $V/$1.err
  echo "$1 rc=$? at $(($(date +%s)-t0)) s: $(js $V/$1.json)"
done 2>&1 | tee $OUT/x/verify.log
left=$((D - ($(date +%s) - t0) - 20))
( WILD_IDS="rodinia_srad1 rodinia_backprop_layerforward rodinia_hotspot" WILD_ARGS="--budget 8 --minutes 1.5" WILD_JOBS=3 EPISODE_TIMEOUT=240 DEADLINE_S=$left MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/w15b-wild-table.md 2>/dev/null; cp $OUT/x/verify.log $OUT/w15b-verify.txt
cat $OUT/w15b-wild-table.md
tail -3 $OUT/x/wild.log
cd $OUT && tar czf all.tgz x v && rm -rf x v
