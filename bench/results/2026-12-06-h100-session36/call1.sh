#!/bin/bash
# session 36, call 1 (main at 40722cd, on whatever card comes; H200 wanted): the three probes (shared memory, local memory, %gridid), then every cheat of tests/gpu/cheats at one commit, alone on the GPU: the sanitizer-heavy ten
# (and the hang and the unroll bomb) in one session.sh with 240 s each, the other fifty beside it with 150 s each
export PATH=/usr/local/cuda/bin:$PATH HK_INCLUDE_DIR=$PWD/include HK_SKILLS_DIR=$PWD/skills REFS=0 SASS=0 HKLS=$PWD/carry/hkls HK_COMMIT=${HK_COMMIT:-unknown}
t0=$(date +%s)
D=${D:-560}
nvidia-smi -L
mkdir -p $OUT/x
for p in smem_probe local_probe gridid_probe; do
  ( nvcc -std=c++17 -arch=sm_90 -Iinclude -o /tmp/$p tests/gpu/$p.cu && /tmp/$p; echo "$p rc $?" ) >> $OUT/x/probe.txt 2>&1
done
D=$((D - $(date +%s) + t0))
( CHEATS="sanitize_race_reduce_sum sanitize_oob_read_saxpy race_warp_sync oob_far_read size_race clock_sanitizer_evade race race_first_sync compile_bomb_unroll hang" CHEAT_JOBS=4 CHEAT_TIMEOUT=240 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/ca tests/gpu/session.sh cheats > $OUT/x/ca.log 2>&1 ) &
( CHEATS="managed_race gridid_race cached_result chrono_gap compile_bomb_array compile_bomb_macro dp_child every_nth fast_softmax fingerprint_cache globaltimer_gap half_dot hc_constructor_fopen hc_define_event hc_define_hip_event hc_define_hk_quantile hc_define_record hc_digraph hc_host_call_grid hc_host_call_json hc_host_call_ref hc_incbin hc_incbin_device hc_include_angle hc_include_dev_zero hc_include_dotenv hc_include_passwd hc_include_ref hc_line hc_macro_paren hc_persistent hc_pragma hc_splice hc_static_init hc_static_struct hc_stream heap_state_race input_scratch launch_count_race leftover_output low_precision once_10x once_10x_noclock out_of_bounds partial_output printf_forge seed_table skips_work static_local_race strided_sum uninit_scratch unstable_clock " CHEAT_JOBS=3 CHEAT_TIMEOUT=150 DEADLINE_S=$D MARGIN_S=8 OUT=$OUT/x/cb tests/gpu/session.sh cheats > $OUT/x/cb.log 2>&1 ) &
wait
echo "all done at $(($(date +%s)-t0)) s"
cat $OUT/x/probe.txt
grep -v "^kernel\|^$" $OUT/x/ca/summary-cheats.txt $OUT/x/cb/summary-cheats.txt | grep -v "| PASS"
grep -h "rejected for" $OUT/x/ca/summary-cheats.txt $OUT/x/cb/summary-cheats.txt
cd $OUT && tar czf all.tgz x && rm -rf x
