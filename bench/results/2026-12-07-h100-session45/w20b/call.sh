#!/bin/bash
# session 45, helper W20B's GPU call (one H100 call, under 250 s): split_topk_scan at parts 16 and 32
# (half a warp / a whole warp per query, new in this session) on mmcv's knn (a max-heap in local memory,
# guarded form) and ball_query (a counted break, guarded form), against the current leader's rewrite
# (uniform_tiles) and the original on the same machine. Why (bench/results/2026-12-07-point-scans-cpu-s45.md):
# a warp of 32 one-lane knn queries runs ~2000 of its 16384 items' heap updates one query after another
# (each a chain of local-memory loads); at P = 8 (4 queries a warp) ~390-500, at P = 32 (one query) 126; the
# session-38 figures rose from P 4 to 8 (knn 0.96x -> 1.55x, ball_query 1.20x -> 1.86x against the original
# on the multiplied grid).
# Run from the repository root at the commit of branch s45-w20b (or main once merged), with carry/hkls built
# from it and bench/wild/src extracted. The texts are emitted here on the device (third-party kernels rewritten
# never enter the repository), into $OUT/v with the commands that made them.
# A split text runs on the spec's grid x P (its result's grid_multiplier): its spec is the wild spec with
# launch.grid[0] multiplied by P and the source made absolute (as session 38's call 4 did); verify-candidate
# then times the ORIGINAL on that multiplied grid too, so compare the split's candidate_ms with the original's
# baseline_ms on the spec's own grid from the uniform_tiles line of the same kernel (same machine, same call).
#  verify-candidate, 5 pairs each, in this order (each skipped when under 45 s are left):
#      bq_sp32   ball_query split_topk_scan parts=32 (ptxas sm_90: 32 registers, as the original)
#      knn_sp32  knn split_topk_scan parts=32 (40 registers, 800-byte stack as the original's; the guard's
#                best_dist[0] read from a register copy refreshed after each heap update, no load a group)
#      bq_ut     ball_query uniform_tiles on the spec's grid (wild-latest's 2.95x is uniform_tiles + unroll_jam_scan)
#      knn_ut    knn uniform_tiles (the leader: 1.70x in wild-latest) on the spec's grid
#      knn_sp8   knn split_topk_scan parts=8: session 38 measured this P without the register copy (2.884 ms
#                on the multiplied grid's verify), so it shows what the copy alone does
#      bq_sp16   ball_query split_topk_scan parts=16
# HK_SANITIZE_TIMEOUT_S / HK_SANITIZE_TIMED_S = 8: a split's speedup against the multiplied-grid original may
# pass 2x, which starts compute-sanitizer (300 s per tool by default); a tool past its limit is "not checked"
# (no credit over 2x, not a rejection): the timing is what this call is for. If a candidate's JSON is
# missing, its .err says why (the 90 s timeout).
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
export HK_SANITIZE_TIMEOUT_S=${HK_SANITIZE_TIMEOUT_S:-8} HK_SANITIZE_TIMED_S=${HK_SANITIZE_TIMED_S:-8}
t0=$(date +%s)
D=${D:-245}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
V=$OUT/v
for id in mmcv_knn_fwd mmcv_ball_query_fwd; do
  [ -s bench/wild/src/$id.cu ] || { echo "no bench/wild/src/$id.cu: run bench/wild/extract.sh"; exit 2; }
done
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; print(d.get("verdict"), d.get("reason",""), "speedup=%s base=%s cand=%s" % (i.get("speedup"), i.get("baseline_ms"), i.get("candidate_ms")))' "$1" 2>&1 | head -c 400; }
# emit NAME ID REWRITE P: the text, and (P > 1) the spec with the grid x P
emit() {
  local name=$1 id=$2 rw=$3 P=$4 k spec=bench/wild/specs/$2.bench.json
  k=$(jq -r .kernel $spec)
  if [ "$P" -gt 1 ]; then
    jq --arg src "$PWD/bench/wild/src/$id.cu" --argjson P $P '.source=$src | .name=(.name+"_x\($P)") | .launch.grid[0]="\($P) * (" + .launch.grid[0] + ")"' $spec > $V/$name.bench.json
    echo "$HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec --device 132,64 --emit $rw --param parts=$P" >> $V/commands.txt
    $HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec --device 132,64 --emit $rw --param parts=$P > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
  else
    echo "$HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec --device 132,64 --emit $rw" >> $V/commands.txt
    $HKLS rewrites bench/wild/src/$id.cu --kernel $k --spec $spec --device 132,64 --emit $rw > $V/$name.cu 2> $V/$name.emit.err || echo "$name: not emitted: $(head -c 300 $V/$name.emit.err)"
  fi
}
emit bq_sp32 mmcv_ball_query_fwd split_topk_scan 32
emit knn_sp32 mmcv_knn_fwd split_topk_scan 32
emit bq_ut mmcv_ball_query_fwd uniform_tiles 1
emit knn_ut mmcv_knn_fwd uniform_tiles 1
emit knn_sp8 mmcv_knn_fwd split_topk_scan 8
emit bq_sp16 mmcv_ball_query_fwd split_topk_scan 16
for c in bq_sp32 knn_sp32 bq_ut knn_ut knn_sp8 bq_sp16; do
  case $c in knn*) id=mmcv_knn_fwd;; bq*) id=mmcv_ball_query_fwd;; esac
  if [ -s $V/$c.bench.json ]; then spec=$V/$c.bench.json; else spec=bench/wild/specs/$id.bench.json; fi
  [ -s $V/$c.cu ] || { echo "$c: no text"; continue; }
  left=$((D - $(date +%s) + t0))
  [ $left -lt 45 ] && { echo "$c: no time left"; continue; }
  timeout $((left < 90 ? left - 5 : 90)) $HKLS verify-candidate --spec $spec --candidate $V/$c.cu --pairs 5 --json > $V/$c.json 2> $V/$c.err
  echo "$c rc=$? at $(($(date +%s)-t0)) s: $(js $V/$c.json)"
done 2>&1 | tee $OUT/x/verify.log
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/verify.log $OUT/w20b-verify.txt
cd $OUT && tar czf all.tgz x v && rm -rf x v
