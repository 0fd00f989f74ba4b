#!/bin/bash
# session 40, call 3 (main at 2c991fe: W14 merged; carry/hkls built from it), the device time's last 283 s: W14's
# texts by verify-candidate only (5 pairs each, 45 s each, one at a time, 150 s in all), no episodes. The texts are
# emitted on the device (third-party kernels rewritten never enter the repository).
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls
t0=$(date +%s)
nvidia-smi -L
mkdir -p $OUT/v; V=$OUT/v
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")))' "$1" 2>&1 | tail -1 | head -c 300; }
emit() {
  local name=$1 id=$2 rws=$3; shift 3
  local spec=bench/wild/specs/$id.bench.json k
  k=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["kernel"])' $spec)
  $HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec --device 132,64 --emit $rws "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted"
}
emit pib_fl mmcv_points_in_boxes_part float_literals
emit pib_th_fl mmcv_points_in_boxes_part table_hoist+float_literals
emit roi_align_uj4 mmcv_roi_align_fwd unroll_jam_scan
emit deform_roi_uj4 mmcv_deform_roi_pool_fwd unroll_jam_scan
for c in "pib_fl mmcv_points_in_boxes_part" "pib_th_fl mmcv_points_in_boxes_part" "roi_align_uj4 mmcv_roi_align_fwd" "deform_roi_uj4 mmcv_deform_roi_pool_fwd"; do
  set -- $c
  [ $(($(date +%s)-t0)) -gt 150 ] && { echo "$1: no time left"; continue; }
  timeout 45 $HKLS verify-candidate --spec bench/wild/specs/$2.bench.json --candidate $V/$1.cu --pairs 5 --json > $V/$1.json 2> $V/$1.err
  echo "$1 rc=$? at $(($(date +%s)-t0)) s: $(js $V/$1.json)"
done 2>&1 | tee $OUT/verify3.txt
cd $OUT && tar czf v.tgz v && rm -rf v
