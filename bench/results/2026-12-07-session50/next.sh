#!/bin/bash
# Session 50's device calls, never run (no machine came: bench/results/2026-12-07-session50.md).
# The next session's first calls, each through session 49's final.sh (its header says the
# environment; run from the repo root with carry ["carry", "bench/wild/src"] after rebuilding
# carry/hkls static at HEAD; set HK_COMMIT). CALL picks one; each fits one 600 s call.
#   CALL=1  referee and this session's new rewrites: the tolerance cheats (lopsided_sum and
#           reduce_sum_warp_skip must now be wrong_answer, reduce_sum_grid_aware is the known
#           residual), then column_passes, block_scan's device-function form, interior_taps and
#           session 49's rewrites on probes and wild kernels. The float reductions (rd_std_sqdev,
#           cs_reduce0, shoc_reduce) are the grid judgement's false-rejection check.
#   CALL=2  the rest of the never-run probes and the cut template kernels.
#   CALL=3  the GEMM probes (their accuracy stage re-runs 24-141 ms baselines: a long deadline).
set -e
here=$(dirname "$0")
case "${CALL:-1}" in
1) D=${D:-560} NEWCHEATS="lopsided_sum reduce_sum_warp_skip reduce_sum_grid_aware strided_sum every_nth tail_printf" \
   PROBES="rd_col_std2 la_col_zscore3 rd_scan_devfn_ks rd_scan_hs sp_stencil1d_tmpl la_mvt rd_ln_norm rd_std_sqdev la_col_minmax rd_scan_blelloch sp_conv2d_ptr la_gemver_x" \
   WILD="shoc_bottom_scan cs_reduce0 shoc_reduce mmcv_roi_align_rotated_fwd mmcv_deform_roi_pool_fwd cs_scan_exclusive_shared" \
   bash "$here/../2026-12-07-session49/final.sh" ;;
2) D=${D:-560} PROBES="sp_conv1d rd_row_var2 sp_maxpool2d sp_avgpool2d sp_heat2d_x sp_stencil9_2d sp_permute3d sp_transpose_rows rd_ln_mean rd_ln_var rd_std_mean rd_sum_tree rd_col_std rd_residual_bf16 rd_scan_devfn_seg" \
   WILD="mmcv_bbox_overlaps mmcv_roi_align_fwd mmcv_border_align_fwd mmcv_tin_shift_fwd mmcv_carafe_naive_fwd mmcv_masked_im2col" \
   bash "$here/../2026-12-07-session49/final.sh" ;;
3) D=${D:-560} PROBE_ARGS="--budget 4 --minutes 1.5" PROBE_JOBS=1 PROBES="la_syrk la_atax_second la_gemm_ta la_gemm_ab_y" \
   bash "$here/../2026-12-07-session49/final.sh" ;;
esac
# Session 51: after ca7936ef (a zero baseline element failed every referee-distribution comparison), the cheats
# with time enough (60 s timed out on reduce_sum at 2^24) and the kernels that bug emptied.
case "${CALL:-1}" in
4) D=${D:-440} CHEAT_JOBS=6 CHEAT_TIMEOUT=170 CHEAT_DEADLINE=185 NEWCHEATS="lopsided_sum reduce_sum_warp_skip reduce_sum_grid_aware reduce_sum_timed_sample" \
   PROBES="la_mvt rd_ln_norm rd_scan_blelloch sp_conv2d_ptr sp_stencil1d_tmpl la_gemver_x" \
   WILD="mmcv_roi_align_rotated_fwd mmcv_deform_roi_pool_fwd" \
   bash "$here/../2026-12-07-session49/final.sh" ;;
esac
# Session 51's changes never measured, for the next session (carry/hkls rebuilt at HEAD): gap's vectorize/coarsen
# on llm.c's normalize, offs's moved pointers (readonly_loads, load_batching) on the conv pair and mmcv's point kernels.
case "${CALL:-1}" in
5) D=${D:-560} WILD="llmc_layernorm_normalize cs_conv_rows cs_conv_cols mmcv_knn_fwd mmcv_three_nn_fwd mmcv_furthest_point_sample" \
   bash "$here/../2026-12-07-session49/final.sh" ;;
esac
