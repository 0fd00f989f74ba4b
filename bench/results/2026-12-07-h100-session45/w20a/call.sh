#!/bin/bash
# session 45, helper W20A's GPU call (one H100 call, under 250 s: D=240 stops starting texts at 180 s):
# cuda-samples' reduce0 (cs_reduce0: 2^25 floats, 131072 blocks of 256, one load per thread,
# `sdata[tid] = (i < n) ? g_idata[i] : 0;`, then a tree; one partial per block). Its best so far
# is block_reduce (2.39x, 0.1362 ms, 23.3% of roofline): one 4-byte load per thread before the
# tree, 8 blocks of 256 per SM = 8 KB of loads in flight per SM, under the ~18 KB HBM needs.
# fused_blocks now loads a first shared store's value ahead (session 45, branch s45-w20a), so
# it applies to reduce0: F blocks' loads per thread in flight before the tree (32 KB at F 4).
# Exact (bit-identical on the original; on block_reduce's text the order is block_reduce's).
# Run from the repository root at the commit of branch s45-w20a (or main once merged), with
# carry/hkls built from it and bench/wild/src extracted. The candidate texts are emitted here on
# the device (third-party kernels rewritten never enter the repository), into $OUT/v with the
# commands that made them.
#  verify-candidate, 5 pairs each (speedup against the spec's baseline, the original reduce0):
#      r0_br        block_reduce (the table's text; 22 registers at sm_90)
#      r0_br_fb4    block_reduce, then fused_blocks blocks=4 on its text (32 registers, 8 blocks/SM)
#      r0_br_fb2    ... blocks=2 (30 registers)
#      r0_br_fb8    ... blocks=8 (36 registers: 6 blocks/SM)
#      r0_fb4       fused_blocks blocks=4 on the original (its modulo tree kept; 22 registers)
# Expected (bench/results/2026-12-07-reductions-cpu-s45.md): r0_br about 2.4x; r0_br_fb4 about
# 4-5x (0.06-0.08 ms), r0_br_fb2 about 3.5x, r0_br_fb8 near r0_br_fb4; r0_fb4 between 1x and 2x.
# Then, only while time is left (context for the next step, not this branch's rewrite):
# mmcv_sync_bn_mean (256 blocks of 512, a block per channel; ~30 integer instructions an element
# for `i / spatial`, `i % spatial`), whose 2.04x row is an episode's ILP/batching text:
#      bn_ilp4      ilp_accumulators accumulators=4 (32 registers)
#      bn_ilp8_dm   ilp_accumulators accumulators=8, then fast_divmod on its text (34 registers)
#      bn_ilp4_dm   ilp_accumulators accumulators=4, then fast_divmod (32 registers)
#  (reassociated sums: the spec's tolerance applies; fast_divmod is exact)
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-240}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
V=$OUT/v
ID=cs_reduce0
K=reduce0
SPEC=bench/wild/specs/$ID.bench.json
[ -s bench/wild/src/$ID.cu ] || { echo "no bench/wild/src/$ID.cu: run bench/wild/extract.sh"; exit 2; }
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")))' "$1" 2>&1 | head -c 400; }
emit() {  # emit NAME FILE REWRITE [--param ...]
  local name=$1 file=$2 rw=$3; shift 3
  echo "$HKLS rewrites $file --kernel $K --spec $SPEC --device 132,64 --emit $rw $*" >> $V/commands.txt
  $HKLS rewrites $file --kernel $K --spec $SPEC --device 132,64 --emit $rw "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
}
emit r0_br bench/wild/src/$ID.cu block_reduce
emit r0_br_fb4 $V/r0_br.cu fused_blocks --param blocks=4
emit r0_br_fb2 $V/r0_br.cu fused_blocks --param blocks=2
emit r0_br_fb8 $V/r0_br.cu fused_blocks --param blocks=8
emit r0_fb4 bench/wild/src/$ID.cu fused_blocks --param blocks=4
ID2=mmcv_sync_bn_mean
SPEC2=bench/wild/specs/$ID2.bench.json
K2=sync_bn_forward_mean_cuda_kernel
emit2() {  # emit2 NAME FILE REWRITE [--param ...]
  local name=$1 file=$2 rw=$3; shift 3
  echo "$HKLS rewrites $file --kernel $K2 --spec $SPEC2 --device 132,64 --emit $rw $*" >> $V/commands.txt
  $HKLS rewrites $file --kernel $K2 --spec $SPEC2 --device 132,64 --emit $rw "$@" > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
}
if [ -s bench/wild/src/$ID2.cu ]; then
  emit2 bn_ilp4 bench/wild/src/$ID2.cu ilp_accumulators --param accumulators=4
  emit2 bn_ilp8 bench/wild/src/$ID2.cu ilp_accumulators --param accumulators=8
  emit2 bn_ilp8_dm $V/bn_ilp8.cu fast_divmod
  emit2 bn_ilp4_dm $V/bn_ilp4.cu fast_divmod
fi
for c in r0_br r0_br_fb4 r0_br_fb2 r0_br_fb8 r0_fb4 bn_ilp4 bn_ilp8_dm bn_ilp4_dm; do
  [ -s $V/$c.cu ] || { echo "$c: no text"; continue; }
  [ $(($(date +%s)-t0)) -gt $((D - 60)) ] && { echo "$c: no time left"; continue; }
  sp=$SPEC; case $c in bn_*) sp=$SPEC2;; esac
  timeout 60 $HKLS verify-candidate --spec $sp --candidate $V/$c.cu --pairs 5 --json > $V/$c.json 2> $V/$c.err
  echo "$c rc=$? at $(($(date +%s)-t0)) s: $(js $V/$c.json)"
done 2>&1 | tee $OUT/x/verify.log
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/verify.log $OUT/w20a-verify.txt
cd $OUT && tar czf all.tgz x v && rm -rf x v
