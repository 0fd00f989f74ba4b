#!/bin/bash
# session 44, helper W19A's GPU call (one H100 call, under 100 s): block_online_softmax on llm.c's
# softmax_forward_kernel2 (llmc_softmax2: a block of 512 per row; 4 row reads and 2 row writes an
# element: max of inp, out = expf(inp - max), the sum of out read back, out = out / sum read back).
# block_online_softmax makes it one pass per thread keeping a running (max, sum) pair (four loads
# in flight a thread), one block reduction of the pairs (xor shuffles, one shared slot per warp)
# and one write pass: 2 row reads and 1 row write. Not bit-identical (the sum is reassociated):
# the spec's tolerance (rtol 1e-4) applies. For comparison, in the same call: store_forward cap=4
# (exact; 3 reads + 1 write at C 50257, 1 + 1 in registers at C 1027).
# Run from the repository root at the commit of branch s44-w19a (or main once merged), with
# carry/hkls built from it and bench/wild/src extracted. The candidate texts are emitted here on
# the device (third-party kernels rewritten never enter the repository), into $OUT/v with the
# commands that made them.
#  verify-candidate, 5 pairs each:
#      sm2_bos     block_online_softmax (32 registers at sm_90 --use_fast_math: 4 blocks of 512 an SM)
#      sm2_sf4     store_forward cap=4 (27 registers)
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-280}  # two texts at up to 125 s each: verify-candidate of softmax2 took 110 s on an H100 in session 44
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
emit sm2_bos bench/wild/src/$ID.cu block_online_softmax
emit sm2_sf4 bench/wild/src/$ID.cu store_forward --param cap=4
for c in sm2_bos sm2_sf4; do
  [ -s $V/$c.cu ] || { echo "$c: no text"; continue; }
  [ $(($(date +%s)-t0)) -gt $((D - 130)) ] && { echo "$c: no time left"; continue; }
  timeout 125 $HKLS verify-candidate --spec $SPEC --candidate $V/$c.cu --pairs 5 --json > $V/$c.json 2> $V/$c.err
  echo "$c rc=$? at $(($(date +%s)-t0)) s: $(js $V/$c.json)"
done 2>&1 | tee $OUT/x/verify.log
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/verify.log $OUT/w19a-verify.txt
cd $OUT && tar czf all.tgz x v && rm -rf x v
