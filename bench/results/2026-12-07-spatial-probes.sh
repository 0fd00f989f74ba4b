#!/usr/bin/env bash
# Session 48 (spatial): the stencil, convolution, pooling and transpose probes (sp_*) of tests/data/probes, CPU only.
#
#   bench/results/2026-12-07-spatial-probes.sh HKLS OUT [--compile]
#
# 2026-12-07-gen-probes.sh over these probes with this family's strong rewrites (its comment
# says what each file and table row holds).
exec env PROBE_PREFIX=sp_ REASON_CHARS=110 \
    STRONG="stencil_window grid_stride_2d tiled_transpose tiled_permute window_lanes window_warp" \
    "$(dirname "$0")/2026-12-07-gen-probes.sh" "$@"
