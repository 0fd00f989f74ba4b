#!/usr/bin/env python3
"""Generates a large, varied CUDA (or HIP) source file for the hkls benchmarks.

Usage: python3 bench/gen_kernels.py [--kernels N] [--seed S] [--hip] [-o FILE]
Default: 1000 kernels, seed 1, CUDA, to stdout -- about 18,000 lines. The output is
deterministic for a given (kernels, seed, hip). It mixes elementwise kernels, templated
kernels with __launch_bounds__, shared-memory tiles, reductions, stencils, device
functions, launchers with <<<...>>> (or hipLaunchKernelGGL), #define / constexpr
tunables and comments in English and Chinese. Line and kernel counts go to stderr.
"""
import argparse
import random
import sys

TYPES = ["float", "double", "int", "__half", "float2", "float4"]
OPS = ["a * x[i] + y[i]", "x[i] * x[i]", "fmaxf(x[i], 0.0f)", "x[i] + y[i]",
       "sqrtf(fabsf(x[i]))", "x[i] * scale + bias", "expf(-x[i])", "x[i] - y[i] * 0.5f"]
CN = ["每个线程处理一个元素", "共享内存分块以合并访存", "归约：先在线程块内求和",
      "注意：边界检查", "寄存器分块，减少全局内存访问", "转置时避免 bank 冲突",
      "模板参数控制块大小", "启动配置：网格跨步循环"]
EN = ["one element per thread", "tile through shared memory for coalescing",
      "block-level reduction, then atomics", "bounds check for the tail",
      "grid-stride loop", "padding avoids shared-memory bank conflicts"]


class Gen:
    def __init__(self, n, seed, hip):
        self.r = random.Random(seed)
        self.n = n
        self.hip = hip
        self.out = []
        self.tunables = []

    def emit(self, s=""):
        self.out.append(s)

    def comment(self):
        r = self.r
        if r.random() < 0.5:
            self.emit("// " + r.choice(CN))
        else:
            self.emit("/* " + r.choice(EN) + " */")

    def launch(self, kernel, targs, grid, block, shmem, args):
        name = kernel + targs
        if self.hip:
            kn = "HIP_KERNEL_NAME(%s)" % name if targs else name
            self.emit("    hipLaunchKernelGGL(%s, dim3(%s), dim3(%s), %s, stream, %s);"
                      % (kn, grid, block, shmem, ", ".join(args)))
        else:
            self.emit("    %s<<<%s, %s, %s, stream>>>(%s);"
                      % (name, grid, block, shmem, ", ".join(args)))

    def stream_t(self):
        return "hipStream_t" if self.hip else "cudaStream_t"

    def elementwise(self, k):
        r = self.r
        name = "ew_kernel_%d" % k
        blk = "BLOCK_%d" % k
        self.emit("#define %s %d" % (blk, r.choice([64, 128, 256, 512])))
        self.comment()
        self.emit("__global__ void %s(int n, float a, const float *__restrict__ x," % name)
        self.emit("                          float *__restrict__ y, float scale, float bias) {")
        self.emit("    int i = blockIdx.x * blockDim.x + threadIdx.x;")
        self.emit("    if (i < n) {")
        self.emit("        y[i] = %s;" % r.choice(OPS))
        self.emit("    }")
        self.emit("}")
        self.emit("")
        self.emit("void launch_%s(int n, const float *x, float *y, %s stream) {" % (name, self.stream_t()))
        self.emit("    dim3 block(%s);" % blk)
        self.emit("    dim3 grid((n + %s - 1) / %s);" % (blk, blk))
        self.launch(name, "", "grid", "block", "0", ["n", "2.0f", "x", "y", "1.0f", "0.0f"])
        self.emit("}")
        self.emit("")

    def tiled(self, k):
        r = self.r
        name = "transpose_%d" % k
        tile = "TILE_%d" % k
        self.emit("constexpr int %s = %d;" % (tile, r.choice([16, 32])))
        self.comment()
        self.emit("__global__ void %s(const float *in, float *out, int w, int h) {" % name)
        self.emit("    __shared__ float tile[%s][%s + 1];  // 转置时避免 bank 冲突" % (tile, tile))
        self.emit("    int x = blockIdx.x * %s + threadIdx.x;" % tile)
        self.emit("    int y = blockIdx.y * %s + threadIdx.y;" % tile)
        self.emit("    if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];")
        self.emit("    __syncthreads();")
        self.emit("    x = blockIdx.y * %s + threadIdx.x;" % tile)
        self.emit("    y = blockIdx.x * %s + threadIdx.y;" % tile)
        self.emit("    if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];")
        self.emit("}")
        self.emit("")
        self.emit("void launch_%s(const float *in, float *out, int w, int h, %s stream) {"
                  % (name, self.stream_t()))
        self.emit("    dim3 block(%s, %s);" % (tile, tile))
        self.emit("    dim3 grid((w + %s - 1) / %s, (h + %s - 1) / %s);" % (tile, tile, tile, tile))
        self.launch(name, "", "grid", "block", "0", ["in", "out", "w", "h"])
        self.emit("}")
        self.emit("")

    def reduction(self, k):
        r = self.r
        name = "reduce_%d" % k
        t = r.choice(["float", "double", "int"])
        self.comment()
        self.emit("template <int BLOCK, typename T>")
        self.emit("__global__ void __launch_bounds__(BLOCK) %s(const T *__restrict__ in, T *out, int n) {" % name)
        self.emit("    __shared__ T partial[BLOCK];")
        self.emit("    T sum = T(0);")
        self.emit("    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)")
        self.emit("        sum += in[i];")
        self.emit("    partial[threadIdx.x] = sum;")
        self.emit("    __syncthreads();")
        self.emit("    for (int s = BLOCK / 2; s > 0; s >>= 1) {")
        self.emit("        if (s > threadIdx.x) partial[threadIdx.x] += partial[threadIdx.x + s];")
        self.emit("        __syncthreads();")
        self.emit("    }")
        self.emit("    if (threadIdx.x == 0) atomicAdd(out, partial[0]);")
        self.emit("}")
        self.emit("")
        b = r.choice([128, 256, 512])
        self.emit("void launch_%s(const %s *in, %s *out, int n, %s stream) {" % (name, t, t, self.stream_t()))
        self.launch(name, "<%d, %s>" % (b, t), "(n + %d - 1) / %d" % (b, b), str(b), "0",
                    ["in", "out", "n"])
        self.emit("}")
        self.emit("")

    def device_and_stencil(self, k):
        r = self.r
        name = "stencil_%d" % k
        rad = "RADIUS_%d" % k
        self.emit("static constexpr int %s = %d;" % (rad, r.choice([1, 2, 3, 4])))
        self.emit("__device__ __forceinline__ float weight_%d(int d) { return 1.0f / (1 + d * d); }" % k)
        self.comment()
        self.emit("template <int BS>")
        self.emit("__global__ void %s(const float *in, float *out, int n) {" % name)
        self.emit("    extern __shared__ float halo[];")
        self.emit("    int g = blockIdx.x * BS + threadIdx.x;")
        self.emit("    halo[threadIdx.x + %s] = g < n ? in[g] : 0.0f;" % rad)
        self.emit("    __syncthreads();")
        self.emit("    float acc = 0.0f;")
        self.emit("    for (int d = -%s; d <= %s; d++) acc += weight_%d(d) * halo[threadIdx.x + %s + d];"
                  % (rad, rad, k, rad))
        self.emit("    if (g < n) out[g] = acc;")
        self.emit("}")
        self.emit("")
        self.emit("template <int BS>")
        self.emit("void launch_%s(const float *in, float *out, int n, %s stream) {" % (name, self.stream_t()))
        self.emit("    size_t shmem = (BS + 2 * %s) * sizeof(float);" % rad)
        self.launch(name, "<BS>", "(n + BS - 1) / BS", "BS", "shmem", ["in", "out", "n"])
        self.emit("}")
        self.emit("")

    def matmul(self, k):
        r = self.r
        name = "gemm_tile_%d" % k
        tm = r.choice([2, 4, 8])
        self.comment()
        self.emit("template <int TS = 16, int TM = %d>" % tm)
        self.emit("__global__ void %s(const float *A, const float *B, float *C, int M, int N, int K) {" % name)
        self.emit("    __shared__ float As[TS][TS], Bs[TS][TS];")
        self.emit("    float acc[TM] = {0};")
        self.emit("    int row = blockIdx.y * TS + threadIdx.y, col = blockIdx.x * TS + threadIdx.x;")
        self.emit("    for (int t = 0; t < (K + TS - 1) / TS; t++) {")
        self.emit("        As[threadIdx.y][threadIdx.x] = A[row * K + t * TS + threadIdx.x];")
        self.emit("        Bs[threadIdx.y][threadIdx.x] = B[(t * TS + threadIdx.y) * N + col];")
        self.emit("        __syncthreads();")
        self.emit("        for (int e = 0; e < TS; e++) acc[e % TM] += As[threadIdx.y][e] * Bs[e][threadIdx.x];")
        self.emit("        __syncthreads();")
        self.emit("    }")
        self.emit("    if (row < M && col < N) C[row * N + col] = acc[0] + acc[TM - 1];")
        self.emit("}")
        self.emit("")

    def generate(self):
        kinds = [self.elementwise, self.tiled, self.reduction, self.device_and_stencil, self.matmul]
        self.emit("// Generated by bench/gen_kernels.py: %d kernels (生成的基准文件)" % self.n)
        if self.hip:
            self.emit("#include <hip/hip_runtime.h>")
        else:
            self.emit("#include <cuda_runtime.h>")
            self.emit("#include <cuda_fp16.h>")
        self.emit("")
        for k in range(self.n):
            self.r.choice(kinds)(k)
        return "\n".join(self.out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hip", action="store_true", help="HIP launches (hipLaunchKernelGGL)")
    ap.add_argument("-o", "--output", help="write here instead of stdout")
    a = ap.parse_args()
    if a.kernels < 1 or a.kernels > 1000000:
        ap.error("--kernels must be between 1 and 1000000")
    text = Gen(a.kernels, a.seed, a.hip).generate()
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    print("gen_kernels: %d kernels, %d lines, %d bytes" %
          (a.kernels, text.count("\n"), len(text.encode("utf-8"))), file=sys.stderr)


if __name__ == "__main__":
    main()
