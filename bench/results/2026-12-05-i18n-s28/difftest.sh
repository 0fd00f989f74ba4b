#!/bin/bash
# difftest.sh BIN OUTDIR [LANG]: runs every line of cmds.sh, stdout/stderr/exit per command
bin=$1; out=$2; lang=${3:-C}; mkdir -p $out; i=0
cd /work/wt-zh
while IFS= read -r line; do
  [[ $line == \#* ]] && continue
  i=$((i+1))
  env -i PATH=/usr/bin:/bin HOME=/tmp/zh/home LC_ALL=$lang HK_DB=/tmp/zh/home/none.db timeout 20 $bin $line > $out/$i.out 2> $out/$i.err < /dev/null
  echo "rc=$? :: $line" > $out/$i.rc
  sed -i "s#/tmp/zh/base#SRC#g; s#/work/wt-zh#SRC#g" $out/$i.out $out/$i.err
done < /tmp/zh/cmds.sh
