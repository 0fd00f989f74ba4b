#!/bin/bash
# session 39, call 2 (tree main 334dd18; the suite with carry/hkls built from f563058, fused_blocks with carry/hkls-w13
# built from helper WILD13's 53f2386): (1) the own suite re-run after the referee changes of sessions 33-38 (issue 12:
# no honest result lost, episode cost <= 1.3x), session 32's command (JOBS=3 BUDGET=4 MINUTES=0.5 KERNEL_TIMEOUT=240);
# (2) then fused_blocks (new rewrite) on cs_reduce3 through verify-candidate at blocks 4, 2, 8
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-400}
nvidia-smi -L
mkdir -p $OUT/x $OUT/w13
KERNELS="reduce_sum rmsnorm sum_rows softmax transpose sgemm" JOBS=3 BUDGET=4 MINUTES=0.5 KERNEL_TIMEOUT=240 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/suite tests/gpu/session.sh suite > $OUT/x/suite.log 2>&1
echo "suite done at $(($(date +%s)-t0)) s"
cp $OUT/x/suite/summary-suite.txt $OUT/call2-summary-suite.txt 2>/dev/null
W=$PWD/carry/hkls-w13
for F in 4 2 8; do
  [ $(($(date +%s)-t0)) -gt 500 ] && { echo "fused_blocks=$F: no time left"; continue; }
  $W rewrites bench/wild/src/cs_reduce3.cu --kernel reduce3 --spec bench/wild/specs/cs_reduce3.bench.json --emit fused_blocks --param blocks=$F > $OUT/w13/reduce3_fb$F.cu
  timeout 90 $W verify-candidate --spec bench/wild/specs/cs_reduce3.bench.json --candidate $OUT/w13/reduce3_fb$F.cu --pairs 7 --json > $OUT/w13/reduce3_fb$F.json 2> $OUT/w13/reduce3_fb$F.err
  echo "reduce3 fused_blocks=$F rc=$? at $(($(date +%s)-t0)) s"
done
for f in $OUT/w13/*.json; do echo "$(basename $f): $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("verdict"), d.get("reason",""), json.dumps(d.get("interleaved")))' $f 2>&1 | head -c 500)"; done
echo "all done at $(($(date +%s)-t0)) s"
cat $OUT/call2-summary-suite.txt
tail -5 $OUT/x/suite.log
cd $OUT && tar czf all.tgz x && rm -rf x
