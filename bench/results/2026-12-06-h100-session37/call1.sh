#!/bin/bash
# session 37, call 1 (main at af2f827): today's engine on the 16 wild kernels whose latest rows are the largest
# H200 figures of sessions 17-28 (old code): does today's default search still find them? budget 6, 1 minute.
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-af2f827}
t0=$(date +%s)
D=${D:-540}
nvidia-smi -L
mkdir -p $OUT/x
IDS="llmc_softmax1 mmcv_chamfer_distance_fwd llmc_layernorm1 parboil_sgemm_nt llmc_encoder_bf16 mmcv_tin_shift_fwd llmc_permute cs_transpose_naive cs_matrixmul rodinia_gaussian_fan2 llmc_gelu_bf16 mmcv_psamask_collect_fwd cs_histogram256 mmcv_ball_query_fwd cs_reduce0 mmcv_carafe_naive_fwd"
WILD_IDS="$IDS" WILD_ARGS="--budget 6 --minutes 1" WILD_JOBS=4 EPISODE_TIMEOUT=300 DEADLINE_S=$D MARGIN_S=5 OUT=$OUT/x/wild tests/gpu/session.sh wild > $OUT/x/wild.log 2>&1
echo "all done at $(($(date +%s)-t0)) s"
cat $OUT/x/wild/wild-table.md
cd $OUT && tar czf all.tgz x && rm -rf x
