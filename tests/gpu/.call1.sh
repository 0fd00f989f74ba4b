#!/usr/bin/env bash
# session 26 call 1: srad1's episode time (debug), carafe at budget 8, srad1 SASS
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HK_COMMIT=695939c HKLS=$PWD/carry/hkls
mkdir -p $OUT/x
( cd $OUT/x
  for v in orig mb; do
    if [ $v = orig ]; then cp $OLDPWD/bench/wild/src/rodinia_srad1.cu s_$v.cu; else $HKLS rewrites $OLDPWD/bench/wild/src/rodinia_srad1.cu --kernel srad_cuda_1 --emit merge_barriers > s_$v.cu; fi
    nvcc -arch=sm_90 -cubin -o s_$v.cubin s_$v.cu 2>&1 | tail -2
    cuobjdump -sass s_$v.cubin > s_$v.sass 2>&1
    awk '/Function : .*srad_cuda_1/{f=1} /Function : .*srad_cuda_2/{f=0} f' s_$v.sass | grep -E "LDG|BAR" | awk '{print $2}' | uniq -c > s_$v.ldgbar
  done ) &
( HK_LOG_LEVEL=debug DEADLINE_S=460 MARGIN_S=20 OUT=$OUT/w1 WILD_IDS="rodinia_srad1" WILD_JOBS=1 EPISODE_TIMEOUT=420 WILD_ARGS="--budget 4 --minutes 1.0" tests/gpu/session.sh wild > $OUT/w1.log 2>&1 ) &
( sleep 2; DEADLINE_S=460 MARGIN_S=20 OUT=$OUT/w2 WILD_IDS="mmcv_carafe_naive_fwd mmcv_furthest_point_sample" WILD_JOBS=2 EPISODE_TIMEOUT=400 WILD_ARGS="--budget 8 --minutes 2.0" tests/gpu/session.sh wild > $OUT/w2.log 2>&1 ) &
wait
cd $OUT && tar czf all.tgz x w1 w2 w1.log w2.log && rm -rf x w1 w2
ls -la $OUT
