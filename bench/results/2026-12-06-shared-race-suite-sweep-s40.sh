#!/bin/bash
# ad-hoc (session 40, the lead): every applying rewrite's text of the 20 suite kernels, PTX, race scan at 10 shapes
cd /work/main
O=/tmp/suite-sweep/out; mkdir -p $O
H=/tmp/b-main/hkls; S=/tmp/b-main/tests/hk_ptxrace_scan
for spec in bench/kernels/*.bench.json; do
  id=$(basename $spec .bench.json)
  src=$(python3 -c 'import json,sys,os;d=json.load(open(sys.argv[1]));print(os.path.join("bench/kernels",d.get("source",d["kernel"]+".cu")))' $spec 2>/dev/null)
  k=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["kernel"])' $spec)
  [ -f "$src" ] || src=bench/kernels/$id.cu
  for rw in $($H rewrites $src --kernel $k --spec $spec --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(r["name"] for r in d.get("rewrites",[]) if r.get("applies") and r.get("kind")!="search axis"))'); do
    $H rewrites $src --kernel $k --spec $spec --emit $rw > $O/$id.$rw.cu 2>/dev/null || continue
    (cd bench/kernels && timeout 60 nvcc -arch=sm_90 -ptx -O3 -std=c++17 -lineinfo -w -I../../include -o $O/$id.$rw.ptx $O/$id.$rw.cu > $O/$id.$rw.nvcc.txt 2>&1) || { echo "nobuild $id.$rw"; continue; }
    echo "built $id.$rw"
  done
done
