#!/bin/bash
# Session 47, call D (one H100/H200 call, under 560 s): REF20's new race cheats (judged from the PTX: seconds),
# then wild episodes of template kernels that got an fp64 shadow at 80f1893b/c4383ba3 (before, every template given
# float was judged by the tolerance alone) and of the kernels CLASSIFY's model/rewrite changes reach. Episodes as
# the wild table's rows (budget 8, 1.2 search minutes, default sanitizer limits). Each report's accuracy_reference
# says whether the shadow gave the reference. Set HK_COMMIT, NEWCHEATS and IDS; run from the repo root with
# carry: ["carry", "bench/wild/src"].
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-560}
nvidia-smi -L
mkdir -p $OUT/x
if [ -n "$NEWCHEATS" ]; then
  ( CHEATS="$NEWCHEATS" CHEAT_JOBS=8 CHEAT_TIMEOUT=60 DEADLINE_S=90 MARGIN_S=8 OUT=$OUT/x/cheats tests/gpu/session.sh cheats > $OUT/x/cheats.log 2>&1 )
  cp $OUT/x/cheats/summary-cheats.txt $OUT/d-cheats.txt 2>/dev/null; grep "rejected for\|FAIL" $OUT/d-cheats.txt
fi
left=$((D - ($(date +%s) - t0) - 20))
( WILD_IDS="$IDS" WILD_ARGS="--budget 8 --minutes 1.2" WILD_JOBS=4 EPISODE_TIMEOUT=300 DEADLINE_S=$left MARGIN_S=10 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1 )
echo "episodes done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/d-wild-table.md 2>/dev/null
grep "^|" $OUT/d-wild-table.md 2>/dev/null | cut -c1-200
mkdir -p $OUT/x/l && tar xzf $OUT/x/wild/logs.tar.gz -C $OUT/x/l 2>/dev/null
for j in $(find $OUT/x/l -name 'episode-*.json'); do
  python3 -c "
import json,sys
d=json.load(open('$j')); i=d.get('info',d)
def find(o,k):
    if isinstance(o,dict):
        if k in o: return o[k]
        for v in o.values():
            r=find(v,k)
            if r is not None: return r
    if isinstance(o,list):
        for v in o:
            r=find(v,k)
            if r is not None: return r
print('$j'.split('reports-')[-1].split('/')[0], '|', str(find(d,'accuracy_reference'))[:150])" 2>/dev/null
done | sort > $OUT/d-reference.txt
cat $OUT/d-reference.txt
tail -3 $OUT/x/wild.log
echo "all done at $(($(date +%s)-t0)) s"
cd $OUT && tar czf call-d.tgz x && rm -rf x
