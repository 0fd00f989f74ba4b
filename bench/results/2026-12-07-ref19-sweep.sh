#!/bin/bash
# REF19 (session 46): REF8's honest sweep (2026-12-06-shared-race-cpu-s42.sh) over the corpus
# 2026-12-07-ref19-corpus.sh rebuilt, with the scan binary $1, output to $2/. The lists:
# L (default /tmp/ref19/corpus/all.list: wild.ID.TEXT, kernels.NAME, data.PATH) and SL
# (/tmp/ref19/corpus/suite.list: the suite kernels' rewrite texts, ID.TEXT). No cheat is in
# them. Wild and bench/kernels texts at their spec's launches, tests/data at --block 256, the
# nine shapes over all; the suite texts at their spec and at ten shapes.
S=$1; O=$2; X=${3:-}; mkdir -p $O
W=${W:-$(cd "$(dirname "$0")/../.." && pwd)}
L=${L:-/tmp/ref19/corpus/all.list}; SL=${SL:-/tmp/ref19/corpus/suite.list}
: > $O/spec.txt
while read f; do
  b=$(basename $f .ptx); grp=${b%%.*}; rest=${b#*.}
  case $grp in
    wild) id=${rest%%.*}; $S $X --spec $W/bench/wild/specs/$id.bench.json $f >> $O/spec.txt ;;
    kernels) $S $X --spec $W/bench/kernels/$rest.bench.json $f >> $O/spec.txt ;;
    *) $S $X --block 256 $f >> $O/spec.txt ;;
  esac
done < $L
xargs $S $X --block 32 --block 64 --block 128 --block 256 --block 512 --block 1024 --block 16,16,1 --block 32,8,1 --block 32,32,1 < $L > $O/nine.txt
: > $O/suite.txt
while read f; do b=$(basename $f .ptx); id=${b%%.*}; $S $X --spec $W/bench/kernels/$id.bench.json $f >> $O/suite.txt; done < $SL
xargs $S $X --block 32 --block 64 --block 128 --block 256 --block 512 --block 1024 --block 16,16,1 --block 32,8,1 --block 32,32,1 --block 8,32,1 < $SL > $O/suite10.txt
