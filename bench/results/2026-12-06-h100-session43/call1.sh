#!/bin/bash
# session 43, call 1 (main 81e71b4e (REF12 and W17B merged), carry/hkls built from it; whatever card comes): session 42's call2.sh, not run then:
# every cheat of tests/gpu/cheats (86) at one commit -- the sanitizer-heavy ones in one session.sh with 4 jobs and 300 s
# each, the other 73 in two session.sh beside it with 3 jobs and 150 s each -- and REF8's three race-check controls
# (verify-candidate, 90 s each) beside them. What a group leaves unjudged (script_timeout, not started) goes to a later call.
# Beside them, a fifth lane: W16A's rstd and W17B's softmax2 requests (below).
# (Group A: the sanitizer-heavy twelve of session 38 and the open race cheat spin_ptr_call_evade, which only racecheck can catch.)
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-575}
nvidia-smi -L
mkdir -p $OUT/x $OUT/v
js() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interleaved") or {}; r=[c for c in d.get("checks",[]) if isinstance(c,dict) and c.get("check")=="race"]; print(d.get("verdict"), d.get("reason",""), "speedup=%s" % i.get("speedup"), "race_check=%s" % (r[0].get("result") if r else "-"), "race_why=%s" % ((r[0].get("why") or "")[:160] if r else "-"))' "$1" 2>&1 | head -c 500; }
A="sanitize_race_reduce_sum sanitize_oob_read_saxpy race_warp_sync oob_far_read size_race clock_sanitizer_evade race race_first_sync local_past_end local_from_int compile_bomb_unroll hang spin_ptr_call_evade"
ALL=$(cd tests/gpu/cheats && ls *.cu | sed 's/\.cu$//')
REST=$(for c in $ALL; do case " $A " in *" $c "*) ;; *) echo $c;; esac; done)
B=$(echo "$REST" | awk 'NR%2==1' | tr '\n' ' ')
C=$(echo "$REST" | awk 'NR%2==0' | tr '\n' ' ')
echo "a: $A"; echo "b: $B"; echo "c: $C"
( CHEATS="$A" CHEAT_JOBS=4 CHEAT_TIMEOUT=300 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/ca tests/gpu/session.sh cheats > $OUT/x/ca.log 2>&1 ) &
( CHEATS="$B" CHEAT_JOBS=3 CHEAT_TIMEOUT=150 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/cb tests/gpu/session.sh cheats > $OUT/x/cb.log 2>&1 ) &
( CHEATS="$C" CHEAT_JOBS=3 CHEAT_TIMEOUT=150 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/cc tests/gpu/session.sh cheats > $OUT/x/cc.log 2>&1 ) &
(
  V=$OUT/v
  k=$(python3 -c 'import json;print(json.load(open("bench/wild/specs/cs_transpose_naive.bench.json"))["kernel"])')
  $HKLS rewrites bench/wild/src/cs_transpose_naive.cu --kernel $k --spec bench/wild/specs/cs_transpose_naive.bench.json --emit tiled_transpose > $V/tiled_transpose.cu
  for c in "self_reduce_sum bench/kernels/reduce_sum.bench.json bench/kernels/reduce_sum.cu" \
           "tiled_transpose bench/wild/specs/cs_transpose_naive.bench.json $V/tiled_transpose.cu" \
           "self_cs_reduce3 bench/wild/specs/cs_reduce3.bench.json bench/wild/src/cs_reduce3.cu"; do
    set -- $c
    timeout 90 $HKLS verify-candidate --spec $2 --candidate $3 --pairs 5 --json > $V/$1.json 2> $V/$1.err
    echo "$1 rc=$? at $(($(date +%s)-t0)) s: $(js $V/$1.json)"
  done > $OUT/x/verify.log 2>&1
) &
# a fifth lane (device time is short: one call may be all there is): W16A's rstd request (session 42's
# w16a/call.sh, D=178), then W17B's softmax2 request (w17b/call.sh, D=190), each into its own folder
(
  mkdir -p $OUT/w16a $OUT/w17b
  D=178 OUT=$OUT/w16a bench/results/2026-12-06-h100-session42/w16a/call.sh > $OUT/x/w16a.log 2>&1
  D=190 OUT=$OUT/w17b bench/results/2026-12-06-h100-session43/w17b/call.sh > $OUT/x/w17b.log 2>&1
) &
wait
echo "all done at $(($(date +%s)-t0)) s"
for g in ca cb cc; do cp $OUT/x/$g/summary-cheats.txt $OUT/summary-$g.txt 2>/dev/null; done
grep -v "^kernel\|^$" $OUT/x/c?/summary-cheats.txt | grep -v "| PASS"
grep -h "rejected for" $OUT/x/c?/summary-cheats.txt
cp $OUT/x/verify.log $OUT/verify.txt; cat $OUT/verify.txt
cat $OUT/w16a/w16a-verify.txt $OUT/w16a/w16a-wild-table.md $OUT/w17b/w17b-verify.txt $OUT/w17b/w17b-wild-table.md 2>/dev/null
cd $OUT && tar czf all.tgz x v && rm -rf x v
