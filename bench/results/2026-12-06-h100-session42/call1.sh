#!/bin/bash
# session 42, call 1: the wild episodes of the kernels fused_blocks now applies to (session 41's W15B,
# never measured in an episode): rodinia_srad1 (last row FAIL), rodinia_backprop_layerforward,
# rodinia_hotspot, rodinia_pathfinder, cs_scan_exclusive_shared, parboil_sgemm_nt; budget 8 / 1.5 min,
# three at once (timing is serialized by the GPU lock), carry/hkls built at HEAD.
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills HKLS=${HKLS:-$PWD/carry/hkls} HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
nvidia-smi -L
mkdir -p $OUT/x
WILD_IDS="${IDS:-rodinia_srad1 rodinia_backprop_layerforward rodinia_hotspot rodinia_pathfinder cs_scan_exclusive_shared parboil_sgemm_nt}" \
  WILD_ARGS="--budget 8 --minutes 1.5" WILD_JOBS=${JOBS:-3} EPISODE_TIMEOUT=${ET:-330} DEADLINE_S=${D:-570} MARGIN_S=10 \
  OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1
echo "all done at $(($(date +%s)-t0)) s"
cp $OUT/x/wild/wild-table.md $OUT/call1-wild-table.md 2>/dev/null
cat $OUT/call1-wild-table.md
tail -5 $OUT/x/wild.log
cd $OUT && tar czf all.tgz x && rm -rf x
