#!/bin/bash
# session 44, helper W18A's GPU call (one H100 call, under 150 s): store_forward on llm.c's
# softmax_forward_kernel2 (llmc_softmax2: a block of 512 per row; 4 row reads and 2 row writes an
# element: max of inp, out = expf(inp - max), the sum of out read back, out = out / sum read back).
# store_forward forwards what a thread stored to its own later reads: at C 50257 (the spec's large
# size) the exponential is recomputed from inp where it is read and its store dropped (3 reads + 1
# write), at C 1027 the row fits 4 a thread and stays in registers (1 read + 1 write). Exact.
# Run from the repository root at the commit of branch s44-w18a (or main once merged), with
# carry/hkls built from it and bench/wild/src extracted. The candidate texts are emitted here on
# the device (third-party kernels rewritten never enter the repository), into $OUT/v with the
# commands that made them.
#  (a) verify-candidate, 5 pairs each:
#      sm2_sf4     store_forward cap=4 (the default: 27 registers, 4 blocks of 512 an SM as the original)
#      sm2_sf8     store_forward cap=8 (40 registers: 3 blocks an SM)
#      sm2_br_sf4  store_forward cap=4 on block_reduce's text (the stack the search offers when
#                  block_reduce leads)
#  (b) the wild episode of llmc_softmax2 at budget 8 / 1.2 min (store_forward is the plan's
#      proposal 2, the stack proposal 5 when block_reduce leads)
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-420}  # session 44: verify-candidate of softmax2 took 110 s on an H100 (5 pairs at C 50257); the first run, at 35 s a text, timed out
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
V=$OUT/v
ID=llmc_softmax2
K=softmax_forward_kernel2
SPEC=bench/wild/specs/$ID.bench.json
[ -s bench/wild/src/$ID.cu ] || { echo "no bench/wild/src/$ID.cu: run bench/wild/extract.sh"; exit 2; }
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")))' "$1" 2>&1 | head -c 400; }
emit() {  # emit NAME FILE REWRITE [--param ...]
  local name=$1 file=$2 rw=$3; shift 3
  echo "$HKLS rewrites $file --kernel $K --spec $SPEC --device 132,64 --emit $rw $*" >> $V/commands.txt
  $HKLS rewrites $file --kernel $K --spec $SPEC --device 132,64 --emit $rw "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
}
emit sm2_sf4 bench/wild/src/$ID.cu store_forward --param cap=4
emit sm2_sf8 bench/wild/src/$ID.cu store_forward --param cap=8
emit sm2_br bench/wild/src/$ID.cu block_reduce
emit sm2_br_sf4 $V/sm2_br.cu store_forward --param cap=4
for c in sm2_sf4 sm2_sf8 sm2_br_sf4; do
  [ -s $V/$c.cu ] || { echo "$c: no text"; continue; }
  [ $(($(date +%s)-t0)) -gt $((D - 130)) ] && { echo "$c: no time left"; continue; }
  timeout 125 $HKLS verify-candidate --spec $SPEC --candidate $V/$c.cu --pairs 5 --json > $V/$c.json 2> $V/$c.err
  echo "$c rc=$? at $(($(date +%s)-t0)) s: $(js $V/$c.json)"
done 2>&1 | tee $OUT/x/verify.log
left=$((D - ($(date +%s) - t0) - 10))
( WILD_IDS="$ID" WILD_ARGS="--budget 8 --minutes 1.2" WILD_JOBS=1 EPISODE_TIMEOUT=$left DEADLINE_S=$left MARGIN_S=8 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/w18a-wild-table.md 2>/dev/null; cp $OUT/x/verify.log $OUT/w18a-verify.txt
cat $OUT/w18a-wild-table.md
tail -3 $OUT/x/wild.log
cd $OUT && tar czf all.tgz x v && rm -rf x v
