#!/bin/bash
# REF8 (session 42; REF6's script of session 41, W changed): the race scan over session 39's 719 PTX (/tmp/ref4/all.list) and the
# suite's 76 rewrite texts (/tmp/suite-sweep/out), with the scan binary $1, output to $2/.
# As REF5's sweep: wild and bench/kernels texts at their spec's launches, cheats at their
# kernel's spec (else --block 256), tests/data at --block 256; and the nine shapes over all.
S=$1; O=$2; X=${3:-}; mkdir -p $O; W=${W:-/work/wt-ref8} # REF9: W may be given
: > $O/spec.txt
while read f; do
  b=$(basename $f .ptx); grp=${b%%.*}; rest=${b#*.}
  case $grp in
    wild) id=${rest%%.*}; $S $X --spec $W/bench/wild/specs/$id.bench.json $f >> $O/spec.txt ;;
    kernels) $S $X --spec $W/bench/kernels/$rest.bench.json $f >> $O/spec.txt ;;
    cheats) k=$(sed -n 's|^// kernel: *\([A-Za-z0-9_]*\).*|\1|p' $W/tests/gpu/cheats/$rest.cu 2>/dev/null | head -1)
            if [ -n "$k" ] && [ -f $W/bench/kernels/$k.bench.json ]; then $S $X --spec $W/bench/kernels/$k.bench.json $f >> $O/spec.txt
            else $S $X --block 256 $f >> $O/spec.txt; fi ;;
    *) $S $X --block 256 $f >> $O/spec.txt ;;
  esac
done < /tmp/ref4/all.list
xargs $S $X --block 32 --block 64 --block 128 --block 256 --block 512 --block 1024 --block 16,16,1 --block 32,8,1 --block 32,32,1 < /tmp/ref4/all.list > $O/nine.txt
: > $O/suite.txt
for f in /tmp/suite-sweep/out/*.ptx; do b=$(basename $f .ptx); id=${b%%.*}; $S $X --spec $W/bench/kernels/$id.bench.json $f >> $O/suite.txt; done
ls /tmp/suite-sweep/out/*.ptx | xargs $S $X --block 32 --block 64 --block 128 --block 256 --block 512 --block 1024 --block 16,16,1 --block 32,8,1 --block 32,32,1 --block 8,32,1 > $O/suite10.txt
