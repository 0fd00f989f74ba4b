#!/usr/bin/env bash
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HK_COMMIT=218005d HKLS=$PWD/carry/hkls
mkdir -p $OUT/s
HK_LOG_LEVEL=debug DEADLINE_S=400 MARGIN_S=20 OUT=$OUT/s KERNELS="stencil2d" JOBS=1 BUDGET=10 MINUTES=2.5 KERNEL_TIMEOUT=370 tests/gpu/session.sh suite > $OUT/s/log.txt 2>&1
cat $OUT/s/summary-suite.txt | tail -12
cd $OUT && tar czf all.tgz s && rm -rf s
