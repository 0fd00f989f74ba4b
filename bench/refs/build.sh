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
# cuBLAS is linked dynamically: the loader must find libcublas.so.N when hk_refs runs. A
# toolkit from NVIDIA's runfile or tarball (/usr/local/cuda) is not on the loader's path
# unless LD_LIBRARY_PATH or /etc/ld.so.conf.d names it (NVIDIA's .deb packages do), so the
# toolkit's own library folder is written into hk_refs (-rpath) where it holds libcublas:
# found on a fresh Debian 12 with only the toolkit (bench/results/2026-12-06-fresh-debian12-s40.md).
# The folder: nvcc's own toolkit's, else the first of CUDA_HOME, CUDA_PATH, /usr/local/cuda
# (the order ./hk finds nvcc in) that has it: NVCC may be a stand-in that runs the real one
# (the test suite's compile cache, tests/tools/nvcc_cache.c).
rpath=()
nvcc_path=$(command -v "$nvcc" 2>/dev/null || true)
tops=()
[ -n "$nvcc_path" ] && tops+=("$(dirname "$nvcc_path")/..")
for t in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do [ -n "$t" ] && tops+=("$t"); done
for t in "${tops[@]}"; do
  for d in "$t/lib64" "$t/targets/x86_64-linux/lib"; do
    if [ -e "$d/libcublas.so" ]; then
      rpath=(-Xlinker -rpath -Xlinker "$(cd "$d" && pwd)")
      break 2
    fi
  done
done
exec "$nvcc" -O2 -std=c++17 -arch="${ARCH:-sm_90}" -I"$here" -o "$out" "$here/hk_refs.cu" -lcublas "${rpath[@]}"
