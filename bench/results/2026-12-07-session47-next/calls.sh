#!/bin/bash
# For session 48 (session 47 spent its device time; see bench/results/2026-12-07-h100-session47.md).
# Three calls, each through session 47's call D script (bench/results/2026-12-07-h100-session47/call-d/call.sh:
# optional NEWCHEATS, then wild episodes of IDS at the wild table's budget, 4 at a time, every report's
# accuracy_reference listed). Rebuild carry/hkls static at HEAD first and set HK_COMMIT; carry
# ["carry", "bench/wild/src"]. About 130-150 s a round of four episodes on an H100.
#   CALL=1: the template kernels given float that have not yet run with their fp64 shadow (since 80f1893b),
#           first the four session 47's call E cut at its deadline; D 560 (12 episodes, three rounds).
#   CALL=2: the other nine (two of them, bbox_overlaps and shoc_bottom_scan, refuse a shadow: the report says why); D 560.
#   CALL=3: every cheat for issue 12's table on an H200 when one comes: bench/results/2026-12-07-session46-next/call-b.sh
#           (now 122 cheats), then call-a-style re-runs of any script_timeout alone.
case "${CALL:-1}" in
  1) IDS="mmcv_three_interpolate_fwd mmcv_group_points_fwd mmcv_sync_bn_var mmcv_assign_score_withk_fwd mmcv_gather_points_fwd mmcv_deform_im2col mmcv_masked_im2col mmcv_sync_bn_backward_param cs_reduce3 shoc_stencil2d mmcv_prroi_pool_fwd mmcv_roi_pool_fwd" ;;
  2) IDS="mmcv_deform_roi_pool_fwd mmcv_softmax_focal_loss_fwd mmcv_sync_bn_output mmcv_points_in_boxes_part mmcv_bbox_overlaps mmcv_roi_align_fwd mmcv_border_align_fwd mmcv_roi_align_rotated_fwd shoc_bottom_scan" ;;
  3) exec bash bench/results/2026-12-07-session46-next/call-b.sh ;;
esac
export IDS D=${D:-560}
exec bash bench/results/2026-12-07-h100-session47/call-d/call.sh
