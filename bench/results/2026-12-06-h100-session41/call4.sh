#!/bin/bash
# session 41, call 4: the three helpers' GPU requests in one call (device time left ~900 s, one start),
# at main after merging s41-ref6, s41-w15b and s41-w15a, carry/hkls built from it.
#  (a) REF6's cheats (background): spin_word_evade (now race from the PTX), spin_store_evade and
#      spin_nan_evade (open: expected accepted or not_faster with clean tools)
#  (b) verify-candidate --pairs 5 (serial, beside (a)): W15B's fused_blocks texts srad1 F4, layerforward F4,
#      hotspot F2, cs_conv_rows F2 (the loads-in-flight control: 0.95-1.05x expected), W15A's border_align jam
#      at U 4 and 2; REF6's controls with spec constants, cs_conv_rows and parboil_mriq as their own candidates
#      (race check must pass)
#  (c) the wild episodes of rodinia_srad1, rodinia_backprop_layerforward, rodinia_hotspot and
#      mmcv_border_align_fwd at budget 8 / 1.5 min, four at once
# The full per-helper scripts are w15a/call.sh, w15b/call.sh and ref6-call.sh beside this one.
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-540}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
V=$OUT/v
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; r=[c for c in d.get("checks",[]) if isinstance(c,dict) and c.get("check")=="race"]; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")), "race_check=%s" % (r[0].get("result") if r else "-"), "| details=%s" % (d.get("details") or "")[-160:])' "$1" 2>&1 | head -c 600; }
emit() {  # emit NAME ID DEVICE(132,64 or -) REWRITES [--param ...]
  local name=$1 id=$2 dev=$3 rws=$4; shift 4
  local spec=bench/wild/specs/$id.bench.json k d=()
  [ "$dev" != - ] && d=(--device $dev)
  k=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["kernel"])' $spec)
  echo "$HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec ${d[*]} --emit $rws $*" >> $V/commands.txt
  $HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec "${d[@]}" --emit $rws "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
}
emit srad1_fb4 rodinia_srad1 132,64 fused_blocks --param blocks=4
emit lf_fb4 rodinia_backprop_layerforward 132,64 fused_blocks --param blocks=4
emit hotspot_fb2 rodinia_hotspot 132,64 fused_blocks --param blocks=2
emit conv_rows_fb2 cs_conv_rows - fused_blocks --param blocks=2
emit ba_uj4 mmcv_border_align_fwd 132,64 unroll_jam_scan
emit ba_uj2 mmcv_border_align_fwd 132,64 unroll_jam_scan --param unroll=2
# W15A's SASS question (background, CPU only): do border_align's jammed samples' LDGs overlap?
( mkdir -p $OUT/x/sass; S=$OUT/x/sass; K=_Z32border_align_forward_cuda_kernelIfEviPKT_S2_PS0_Piiiiii
  for t in base ba_uj4; do
    if [ $t = base ]; then cp bench/wild/src/mmcv_border_align_fwd.cu $S/$t.cu; else cp $V/$t.cu $S/$t.cu; fi
    printf '\nstatic void *hk_inst = (void *)&border_align_forward_cuda_kernel<float>;\n' >> $S/$t.cu
    nvcc -arch=sm_90 -cubin -w -Xptxas -v -o $S/$t.cubin $S/$t.cu > $S/$t.ptxas.txt 2>&1
    cuobjdump -sass -fun $K $S/$t.cubin > $S/$t.sass 2>&1 || cuobjdump -sass $S/$t.cubin > $S/$t.sass
    echo "== $t: $(grep -A2 $K $S/$t.ptxas.txt | grep -o 'Used [0-9]* registers'); LDG $(grep -c 'LDG' $S/$t.sass), predicated LDG $(grep -c '@!\?P[0-9] *LDG' $S/$t.sass), BRA $(grep -c 'BRA' $S/$t.sass)"
    grep -n -E 'LDG|FSETP\.GT|FFMA|BRA' $S/$t.sass | awk '{print $1, $2, $3, $4}' | head -150
  done > $OUT/x/sass.log 2>&1 ) &
( CHEATS="spin_word_evade spin_store_evade spin_nan_evade" CHEAT_JOBS=3 CHEAT_TIMEOUT=150 DEADLINE_S=${VCUT:-250} MARGIN_S=8 OUT=$OUT/x/cheats tests/gpu/session.sh cheats > $OUT/x/cheats.log 2>&1 ) &
for c in "srad1_fb4 bench/wild/specs/rodinia_srad1.bench.json $V/srad1_fb4.cu" \
         "lf_fb4 bench/wild/specs/rodinia_backprop_layerforward.bench.json $V/lf_fb4.cu" \
         "ba_uj4 bench/wild/specs/mmcv_border_align_fwd.bench.json $V/ba_uj4.cu" \
         "hotspot_fb2 bench/wild/specs/rodinia_hotspot.bench.json $V/hotspot_fb2.cu" \
         "conv_rows_fb2 bench/wild/specs/cs_conv_rows.bench.json $V/conv_rows_fb2.cu" \
         "self_cs_conv_rows bench/wild/specs/cs_conv_rows.bench.json bench/wild/src/cs_conv_rows.cu" \
         "self_parboil_mriq bench/wild/specs/parboil_mriq.bench.json bench/wild/src/parboil_mriq.cu" \
         "ba_uj2 bench/wild/specs/mmcv_border_align_fwd.bench.json $V/ba_uj2.cu"; do
  set -- $c
  [ -s "$3" ] || { echo "$1: no text"; continue; }
  [ $(($(date +%s)-t0)) -gt ${VCUT:-250} ] && { echo "$1: no time left"; continue; }
  timeout 110 $HKLS verify-candidate --spec $2 --candidate $3 --pairs 5 --json > $V/$1.json 2> $V/$1.err
  echo "$1 rc=$? at $(($(date +%s)-t0)) s: $(js $V/$1.json)"
done 2>&1 | tee $OUT/x/verify.log
wait
left=$((D - ($(date +%s) - t0) - 15))
[ $left -lt 150 ] && echo "episodes: not run ($left s left)" || ( WILD_IDS="rodinia_srad1 rodinia_backprop_layerforward rodinia_hotspot mmcv_border_align_fwd" WILD_ARGS="--budget 8 --minutes 1.5" WILD_JOBS=4 EPISODE_TIMEOUT=240 DEADLINE_S=$left MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/call4-wild-table.md 2>/dev/null; cp $OUT/x/verify.log $OUT/call4-verify.txt; cp $OUT/x/cheats/summary-cheats.txt $OUT/call4-cheats.txt 2>/dev/null
cp $OUT/x/sass.log $OUT/call4-sass.txt 2>/dev/null; grep "^==" $OUT/call4-sass.txt
grep -v "^$" $OUT/call4-cheats.txt | tail -6
cat $OUT/call4-wild-table.md
tail -3 $OUT/x/wild.log
cd $OUT && tar czf all.tgz x v && rm -rf x v
