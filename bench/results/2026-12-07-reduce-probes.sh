#!/usr/bin/env bash
# Session 48 (reduce): the reduction, norm, scan, histogram, optimizer and half-elementwise probes (rd_*) of tests/data/probes, CPU only.
#
#   bench/results/2026-12-07-reduce-probes.sh HKLS OUT [--compile]
#
# 2026-12-07-gen-probes.sh over these probes with this family's strong rewrites (its comment
# says what each file and table row holds).
exec env PROBE_PREFIX=rd_ REASON_CHARS=90 \
    STRONG="warp_reduce block_reduce warp_row_tree privatized_histogram histogram_lane_replicas online_layernorm warp_rows unroll_jam_scan split_grid_partials vectorize" \
    "$(dirname "$0")/2026-12-07-gen-probes.sh" "$@"
