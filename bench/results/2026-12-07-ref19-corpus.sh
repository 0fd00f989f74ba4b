#!/bin/bash
# REF19 (session 46): rebuild the honest PTX corpus of the race sweep on a fresh machine (the
# 719 PTX of /tmp/ref4/all.list are gone). No cheat is in it (they are the attack side).
#   bench/results/2026-12-07-ref19-corpus.sh HKLS OUTDIR [part...]   (parts: wild kernels data)
# Writes OUTDIR/NAME.ptx and the lists OUTDIR/all.list (wild.ID.TEXT, kernels.NAME, data.PATH:
# read by 2026-12-07-ref19-sweep.sh as REF8's all.list) and OUTDIR/suite.list (the 20 suite
# kernels' rewrite texts, ID.TEXT, as the lead's s40 suite sweep). nvcc as the referee's scan:
# -arch=sm_90 -ptx -O3 -std=c++17 -lineinfo -w, -I include and the text's folder, the spec's
# compile_flags; a template kernel is instantiated at the spec's template_args (as
# bench/wild/compile_rewrites.sh does). A text that does not build is left out (logged).
H=$1; O=$2; shift 2; parts=${*:-wild kernels data}
W=${W:-$(cd "$(dirname "$0")/../.." && pwd)}
mkdir -p $O/src
nv() { # nv OUTNAME SRC FOLDER SPEC
  local flags=() targs=""
  if [ -n "$4" ]; then mapfile -t flags < <(jq -r '(.compile_flags // [])[]' "$4"); targs=$(jq -r '(.template_args // []) | map(tostring) | join(", ")' "$4"); fi
  if [ -n "$targs" ]; then k=$(jq -r .kernel "$4"); printf '\nstatic void *hk_compile_check_inst = (void *)&%s<%s>;\n' "$k" "$targs" >> "$2"; fi
  (cd "$3" && timeout 120 nvcc -arch=sm_90 -ptx -O3 -std=c++17 -lineinfo -w -I$W/include -I"$3" "${flags[@]}" -o $O/$1.ptx "$2" > $O/src/$1.nvcc.txt 2>&1) && echo "$1" || { rm -f $O/$1.ptx; echo "nobuild $1" >&2; return 1; }
}
for part in $parts; do case $part in
wild)
  : > $O/wild.list
  for spec in $W/bench/wild/specs/*.bench.json; do
    id=$(basename $spec .bench.json); k=$(jq -r .kernel $spec); src=$W/bench/wild/src/$id.cu
    cp $src $O/src/wild.$id.baseline.cu
    nv wild.$id.baseline $O/src/wild.$id.baseline.cu $W/bench/wild/src $spec >> $O/wild.list
    for rw in $($H rewrites $src --kernel $k --spec $spec --json 2>/dev/null | jq -r '.rewrites[]? | select(.applies and .kind != "search axis") | .name'); do
      $H rewrites $src --kernel $k --spec $spec --emit $rw > $O/src/wild.$id.$rw.cu 2>/dev/null || { echo "noemit wild.$id.$rw" >&2; continue; }
      nv wild.$id.$rw $O/src/wild.$id.$rw.cu $W/bench/wild/src $spec >> $O/wild.list
    done
  done ;;
kernels)
  : > $O/kernels.list; : > $O/suite.names
  for spec in $W/bench/kernels/*.bench.json; do
    id=$(basename $spec .bench.json); k=$(jq -r .kernel $spec); src=$W/bench/kernels/$id.cu
    cp $src $O/src/kernels.$id.cu
    nv kernels.$id $O/src/kernels.$id.cu $W/bench/kernels $spec >> $O/kernels.list
    for rw in $($H rewrites $src --kernel $k --spec $spec --json 2>/dev/null | jq -r '.rewrites[]? | select(.applies and .kind != "search axis") | .name'); do
      $H rewrites $src --kernel $k --spec $spec --emit $rw > $O/src/$id.$rw.cu 2>/dev/null || { echo "noemit $id.$rw" >&2; continue; }
      nv $id.$rw $O/src/$id.$rw.cu $W/bench/kernels $spec >> $O/suite.names
    done
  done ;;
data)
  : > $O/data.list
  for f in $(cd $W && find tests/data -name '*.cu' | sort); do
    n=data.$(echo ${f#tests/data/} | tr '/' '_' | sed 's/\.cu$//')
    cp $W/$f $O/src/$n.cu
    nv $n $O/src/$n.cu $W/$(dirname $f) "" >> $O/data.list
  done ;;
esac; done
cat $O/wild.list $O/kernels.list $O/data.list 2>/dev/null | sed "s|^|$O/|; s|$|.ptx|" > $O/all.list
sed "s|^|$O/|; s|$|.ptx|" $O/suite.names 2>/dev/null > $O/suite.list
