#!/usr/bin/env bash
# Builds hk_refs (bench/refs/hk_refs.cu): the cuBLAS/CUB reference timings beside the suite
# kernels (docs/gpu-testing.md, "References"). CUB is header-only in CUDA 12+ (cccl).
#
#   bench/refs/build.sh [OUTPUT]        (default: bench/refs/hk_refs next to this script)
#
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), ARCH (sm_90).
# Exit: nvcc's status; 127 when no nvcc is found.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/hk_refs}
nvcc=${NVCC:-}
if [ -z "$nvcc" ]; then
  if command -v nvcc >/dev/null 2>&1; then nvcc=nvcc
  elif [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc
  else echo "build.sh: no nvcc (set NVCC or put CUDA's bin on PATH)" >&2; exit 127
  fi
fi
exec "$nvcc" -O2 -std=c++17 -arch="${ARCH:-sm_90}" -I"$here" -o "$out" "$here/hk_refs.cu" -lcublas
