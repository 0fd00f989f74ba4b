#!/bin/bash
# session 41, helper W15A's GPU call (one H100 call, ~8 min): unroll_jam_scan on border_align's
# sample loop (inclusive bound, the coordinates a recurrence `x += x_stride`, the value assigned
# to `val`), judged by hand at U 2/4/8, roi_align's jam of session 40 (never measured, the same
# question), the SASS that says whether the samples' gathers overlap, then border_align's episode.
# Run from the repository root at the commit of branch s41-w15a (or main once merged), with
# carry/hkls built from it and bench/wild/src extracted, as session 40's w14/call.sh.
# The candidate texts are emitted here on the device (third-party kernels rewritten: they never
# enter the repository), into $OUT/v with the commands that made them.
#  (a) SASS (cuobjdump -sass, sm_90) of border_align's original and its U = 4 jam: $OUT/sass/*.sass and
#      a summary of the jammed loop's LDG / FFMA / FSETP order (does sample 2's first LDG come before
#      sample 1's first FFMA? the PTX leaves it to ptxas: each sample's loads and FMAs share a block
#      behind bilinear_interpolate's bounds check)
#  (b) verify-candidate, 5 pairs each:
#      ba_uj4, ba_uj2, ba_uj8   mmcv_border_align_fwd, unroll_jam_scan at unroll 4 (default), 2, 8
#      roi_align_uj4            mmcv_roi_align_fwd, unroll_jam_scan (session 40, not yet measured)
#  (c) the wild episode of mmcv_border_align_fwd at budget 8 / 1.5 min (the jam is its proposal 2)
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-480}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v $OUT/sass
V=$OUT/v
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")))' "$1" 2>&1 | head -c 400; }
emit() {  # emit NAME ID REWRITES [--param ...]
  local name=$1 id=$2 rws=$3; shift 3
  local spec=bench/wild/specs/$id.bench.json k
  k=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["kernel"])' $spec)
  echo "$HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec --device 132,64 --emit $rws $*" >> $V/commands.txt
  $HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec --device 132,64 --emit $rws "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
}
emit ba_uj4 mmcv_border_align_fwd unroll_jam_scan
emit ba_uj2 mmcv_border_align_fwd unroll_jam_scan --param unroll=2
emit ba_uj8 mmcv_border_align_fwd unroll_jam_scan --param unroll=8
emit roi_align_uj4 mmcv_roi_align_fwd unroll_jam_scan
# (a) SASS of the original and the U = 4 jam
K=_Z32border_align_forward_cuda_kernelIfEviPKT_S2_PS0_Piiiiii
for t in base ba_uj4; do
  if [ $t = base ]; then cp bench/wild/src/mmcv_border_align_fwd.cu $OUT/sass/$t.cu; else cp $V/$t.cu $OUT/sass/$t.cu; fi
  printf '\nstatic void *hk_inst = (void *)&border_align_forward_cuda_kernel<float>;\n' >> $OUT/sass/$t.cu
  nvcc -arch=sm_90 -cubin -w -Xptxas -v -o $OUT/sass/$t.cubin $OUT/sass/$t.cu > $OUT/sass/$t.ptxas.txt 2>&1
  cuobjdump -sass -fun $K $OUT/sass/$t.cubin > $OUT/sass/$t.sass 2>&1 || cuobjdump -sass $OUT/sass/$t.cubin > $OUT/sass/$t.sass
  echo "== $t: $(grep -A2 $K $OUT/sass/$t.ptxas.txt | grep -o 'Used [0-9]* registers'); LDG $(grep -c 'LDG' $OUT/sass/$t.sass), predicated LDG $(grep -c '@!\?P[0-9] *LDG' $OUT/sass/$t.sass), BRA $(grep -c 'BRA' $OUT/sass/$t.sass)"
  grep -n -E 'LDG|FSETP\.GT|FFMA|BRA' $OUT/sass/$t.sass | awk '{print $1, $2, $3, $4}' | head -150
done 2>&1 | tee $OUT/x/sass.log > /dev/null
grep '^==' $OUT/x/sass.log
# (b) verify-candidate
for c in "ba_uj4 mmcv_border_align_fwd" "ba_uj2 mmcv_border_align_fwd" "ba_uj8 mmcv_border_align_fwd" \
         "roi_align_uj4 mmcv_roi_align_fwd"; do
  set -- $c
  [ -s $V/$1.cu ] || { echo "$1: no text"; continue; }
  [ $(($(date +%s)-t0)) -gt 250 ] && { echo "$1: no time left"; continue; }
  timeout 110 $HKLS verify-candidate --spec bench/wild/specs/$2.bench.json --candidate $V/$1.cu --pairs 5 --json > $V/$1.json 2> $V/$1.err
  echo "$1 rc=$? at $(($(date +%s)-t0)) s: $(js $V/$1.json)"
done 2>&1 | tee $OUT/x/verify.log
# (c) the episode
left=$((D - ($(date +%s) - t0) - 20))
( WILD_IDS="mmcv_border_align_fwd" WILD_ARGS="--budget 8 --minutes 1.5" WILD_JOBS=1 EPISODE_TIMEOUT=200 DEADLINE_S=$left MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/w15a-wild-table.md 2>/dev/null; cp $OUT/x/verify.log $OUT/w15a-verify.txt; cp $OUT/x/sass.log $OUT/w15a-sass.txt
cat $OUT/w15a-wild-table.md
tail -3 $OUT/x/wild.log
cd $OUT && tar czf all.tgz x v sass && rm -rf x v sass
