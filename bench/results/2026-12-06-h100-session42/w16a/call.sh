#!/bin/bash
# session 42, helper W16A's GPU call (one H100 call, under 3 minutes): block_reduce and the new
# warp_row_tree on llm.c's rstd_kernel, whose tree runs from its parameter block_size / 2 (the spec
# passes block_size equal to the block, 512, so the kernel model reads it as blockDim.x), judged by
# hand, then the episode that must propose them (block_reduce 1st, warp_row_tree 2nd: grid / 16).
# Run from the repository root at the commit of branch s42-w16a (or main once merged), with
# carry/hkls built from it and bench/wild/src extracted, as session 41's w15b/call.sh.
# The candidate texts are emitted here on the device (third-party kernels rewritten: they never
# enter the repository), into $OUT/v with the commands that made them.
#  (a) verify-candidate, 5 pairs each:
#      rstd_wrt_keep  warp_row_tree keep_launch=1: a warp per row under the spec's own launch (grid N,
#                     16 rows per block of 512: 2048 working blocks, the other 30720 exit at once);
#                     the divided form (grid N / 16) runs only in the episode (verify-candidate
#                     launches the spec's grid)
#      rstd_br        block_reduce (the tree: 10 barriers per block -> 3)
#      rstd_br_fb4    fused_blocks blocks=4 on rstd_br's text (the search's stack "A+B")
#      rstd_fb4       fused_blocks blocks=4 on the original (the control: what the plan had before)
#  (b) the wild episode of llmc_layernorm_rstd at budget 8 / 1.2 min
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-178}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
V=$OUT/v
ID=llmc_layernorm_rstd
SPEC=bench/wild/specs/$ID.bench.json
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")))' "$1" 2>&1 | head -c 400; }
emit() {  # emit NAME FILE REWRITE [--param ...]
  local name=$1 file=$2 rw=$3; shift 3
  echo "$HKLS rewrites $file --kernel rstd_kernel --spec $SPEC --device 132,64 --emit $rw $*" >> $V/commands.txt
  $HKLS rewrites $file --kernel rstd_kernel --spec $SPEC --device 132,64 --emit $rw "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
}
emit rstd_wrt_keep bench/wild/src/$ID.cu warp_row_tree --param keep_launch=1
emit rstd_br bench/wild/src/$ID.cu block_reduce
emit rstd_br_fb4 $V/rstd_br.cu fused_blocks --param blocks=4
emit rstd_fb4 bench/wild/src/$ID.cu fused_blocks --param blocks=4
for c in rstd_wrt_keep rstd_br rstd_br_fb4 rstd_fb4; do
  [ -s $V/$c.cu ] || { echo "$c: no text"; continue; }
  [ $(($(date +%s)-t0)) -gt 70 ] && { echo "$c: no time left"; continue; }
  timeout 30 $HKLS verify-candidate --spec $SPEC --candidate $V/$c.cu --pairs 5 --json > $V/$c.json 2> $V/$c.err
  echo "$c rc=$? at $(($(date +%s)-t0)) s: $(js $V/$c.json)"
done 2>&1 | tee $OUT/x/verify.log
left=$((D - ($(date +%s) - t0) - 10))
( WILD_IDS="$ID" WILD_ARGS="--budget 8 --minutes 1.2" WILD_JOBS=1 EPISODE_TIMEOUT=$left DEADLINE_S=$left MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/w16a-wild-table.md 2>/dev/null; cp $OUT/x/verify.log $OUT/w16a-verify.txt
cat $OUT/w16a-wild-table.md
tail -3 $OUT/x/wild.log
cd $OUT && tar czf all.tgz x v && rm -rf x v
