#!/bin/bash
# session 43, helper W17B's GPU call (one H100 call, under 200 s): block_reduce on a kernel of two
# shared-memory trees in one block, llm.c's softmax_forward_kernel2 (new in the wild suite as
# llmc_softmax2: a block of 512 per row of 50257, the row's max by a fmaxf tree, expf written, the
# written row's sum by a second tree over the same buffer, the division), judged by hand, then the
# episode that must propose it (block_reduce is the plan's proposal 1).
# Run from the repository root at the commit of branch s43-w17b (or main once merged), with
# carry/hkls built from it and bench/wild/src extracted by this branch's bench/wild/extract.sh (the
# manifest's new entry writes src/llmc_softmax2.cu). The candidate texts are emitted here on the
# device (third-party kernels rewritten: they never enter the repository), into $OUT/v with the
# commands that made them.
#  (a) verify-candidate, 5 pairs each:
#      sm2_br      block_reduce (both trees: 2 x 9 barriers per block at 512 threads -> 2 x 2)
#      sm2_br_fb2  fused_blocks blocks=2 on sm2_br's text (a stack the search may offer)
#  (b) the wild episode of llmc_softmax2 at budget 8 / 1.2 min
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-190}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
V=$OUT/v
ID=llmc_softmax2
K=softmax_forward_kernel2
SPEC=bench/wild/specs/$ID.bench.json
[ -s bench/wild/src/$ID.cu ] || { echo "no bench/wild/src/$ID.cu: run bench/wild/extract.sh with this branch's manifest"; exit 2; }
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")))' "$1" 2>&1 | head -c 400; }
emit() {  # emit NAME FILE REWRITE [--param ...]
  local name=$1 file=$2 rw=$3; shift 3
  echo "$HKLS rewrites $file --kernel $K --spec $SPEC --device 132,64 --emit $rw $*" >> $V/commands.txt
  $HKLS rewrites $file --kernel $K --spec $SPEC --device 132,64 --emit $rw "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
}
emit sm2_br bench/wild/src/$ID.cu block_reduce
emit sm2_br_fb2 $V/sm2_br.cu fused_blocks --param blocks=2
for c in sm2_br sm2_br_fb2; do
  [ -s $V/$c.cu ] || { echo "$c: no text"; continue; }
  [ $(($(date +%s)-t0)) -gt 70 ] && { echo "$c: no time left"; continue; }
  timeout 40 $HKLS verify-candidate --spec $SPEC --candidate $V/$c.cu --pairs 5 --json > $V/$c.json 2> $V/$c.err
  echo "$c rc=$? at $(($(date +%s)-t0)) s: $(js $V/$c.json)"
done 2>&1 | tee $OUT/x/verify.log
left=$((D - ($(date +%s) - t0) - 10))
( WILD_IDS="$ID" WILD_ARGS="--budget 8 --minutes 1.2" WILD_JOBS=1 EPISODE_TIMEOUT=$left DEADLINE_S=$left MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/w17b-wild-table.md 2>/dev/null; cp $OUT/x/verify.log $OUT/w17b-verify.txt
cat $OUT/w17b-wild-table.md
tail -3 $OUT/x/wild.log
cd $OUT && tar czf all.tgz x v && rm -rf x v
