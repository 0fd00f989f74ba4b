#!/usr/bin/env python3
"""PyTorch's op beside a suite kernel, where the GPU machine has torch (issue 5: "PyTorch's
op on the GPU machine"). Same arguments and output lines as hk_refs (bench/refs/hk_refs.cu):

  torch_refs.py KERNEL [--bytes E] [--flops E] [--scalar NAME=VALUE]... [--reps N] NAME=VALUE...
  torch_refs.py --list          the kernels it has an op for, one a line

Timing as the harness: 3 warm-up calls, then each rep after an L2 flush (a fill of twice
the L2) and a synchronize, between CUDA events; the median of --reps (>= 20, default 30).
FP32 matrix products run with TF32 off (the specs' tolerances reject TF32). Exit 0 (a
line printed, "none" when torch has no op for the kernel), 1 when the op failed (an error
line), 2 bad command line, 3 no torch or no CUDA device (nothing on stdout).
"""
import json
import sys


def _ops():
    """kernel -> (label, setup(t, size, scalar) -> zero-argument callable). Built lazily:
    the lambdas only touch torch when called."""
    def f32(t, *shape):
        return t.rand(*shape, device="cuda", dtype=t.float32) * 2 - 1

    def sgemm(t, s, sc):
        A, B, C = f32(t, s["M"], s["K"]), f32(t, s["K"], s["N"]), f32(t, s["M"], s["N"])
        a, b = sc.get("alpha", 1.0), sc.get("beta", 0.0)
        return lambda: t.addmm(C, A, B, beta=b, alpha=a, out=C)

    def batched(t, s, sc):
        A, B = f32(t, s["batch"], s["M"], s["K"]), f32(t, s["batch"], s["K"], s["N"])
        C = t.empty(s["batch"], s["M"], s["N"], device="cuda")
        return lambda: t.bmm(A, B, out=C)

    def gemv(t, s, sc):
        A, x = f32(t, s["M"], s["N"]), f32(t, s["N"])
        y = t.empty(s["M"], device="cuda")
        return lambda: t.mv(A, x, out=y)

    def dot(t, s, sc):
        a, b = t.rand(s["n"], device="cuda"), t.rand(s["n"], device="cuda")
        return lambda: t.dot(a, b)

    def saxpy(t, s, sc, dtype=None):
        x, y = f32(t, s["n"]), f32(t, s["n"])
        if dtype is not None:
            x, y = x.to(dtype), y.to(dtype)
        a = sc.get("a", 1.0)
        return lambda: y.add_(x, alpha=a)

    def vector_add(t, s, sc):
        a, b = f32(t, s["n"]), f32(t, s["n"])
        c = t.empty_like(a)
        return lambda: t.add(a, b, out=c)

    def matadd2d(t, s, sc):
        A, B = f32(t, s["rows"], s["cols"]), f32(t, s["rows"], s["cols"])
        C = t.empty_like(A)
        al, be = sc.get("alpha", 1.0), sc.get("beta", 1.0)
        return lambda: t.add(t.mul(A, al, out=C), B, alpha=be, out=C)

    def transpose(t, s, sc):
        A = f32(t, s["rows"], s["cols"])
        out = t.empty(s["cols"], s["rows"], device="cuda")
        return lambda: out.copy_(A.t())

    def reduce_sum(t, s, sc):
        x = t.rand(s["n"], device="cuda")
        return lambda: t.sum(x)

    def sum_rows(t, s, sc):
        A = f32(t, s["rows"], s["cols"])
        out = t.empty(s["rows"], device="cuda")
        return lambda: t.sum(A, dim=1, out=out)

    def histogram(t, s, sc):
        x = t.randint(0, 256, (s["n"],), device="cuda", dtype=t.uint8)
        return lambda: t.bincount(x, minlength=256)

    def softmax(t, s, sc):
        x = f32(t, s["rows"], s["cols"])
        return lambda: t.softmax(x, dim=1)

    def layernorm(t, s, sc):
        x = f32(t, s["rows"], s["cols"])
        g, b = t.rand(s["cols"], device="cuda") + 0.5, f32(t, s["cols"])
        eps = sc.get("eps", 1e-5)
        return lambda: t.nn.functional.layer_norm(x, (s["cols"],), g, b, eps)

    def rmsnorm(t, s, sc):
        if not hasattr(t.nn.functional, "rms_norm"):
            raise RuntimeError("this torch has no torch.nn.functional.rms_norm (torch >= 2.4)")
        x, w = f32(t, s["rows"], s["cols"]), t.rand(s["cols"], device="cuda") + 0.5
        eps = sc.get("eps", 1e-6)
        return lambda: t.nn.functional.rms_norm(x, (s["cols"],), w, eps)

    def relu(t, s, sc):
        x = f32(t, s["n"])
        return lambda: t.relu_(x)

    def quick_gelu(t, s, sc):
        x = f32(t, s["n"])
        return lambda: x * t.sigmoid(1.702 * x)

    def half_scale_bias(t, s, sc):
        x = f32(t, s["n"]).half()
        sc_, b = sc.get("scale", 1.0), sc.get("bias", 0.0)
        return lambda: t.add(x * sc_, b)

    return {
        "sgemm": ("torch.addmm", sgemm),
        "batched_gemm": ("torch.bmm", batched),
        "gemv": ("torch.mv", gemv),
        "dot": ("torch.dot", dot),
        "saxpy": ("torch.Tensor.add_(alpha)", saxpy),
        "bf16_axpy": ("torch.Tensor.add_(alpha) bf16",
                      lambda t, s, sc: saxpy(t, s, sc, dtype=t.bfloat16)),
        "vector_add": ("torch.add", vector_add),
        "matadd2d": ("torch.mul + torch.add", matadd2d),
        "transpose": ("torch.Tensor.copy_(A.t())", transpose),
        "reduce_sum": ("torch.sum", reduce_sum),
        "sum_rows": ("torch.sum(dim=1)", sum_rows),
        "histogram": ("torch.bincount", histogram),
        "softmax": ("torch.softmax", softmax),
        "layernorm": ("torch.nn.functional.layer_norm", layernorm),
        "rmsnorm": ("torch.nn.functional.rms_norm", rmsnorm),
        "relu_inplace": ("torch.relu_", relu),
        "quick_gelu": ("torch x*sigmoid(1.702x)", quick_gelu),
        "half_scale_bias": ("torch x*scale+bias (half)", half_scale_bias),
    }


def usage(msg):
    sys.stderr.write("torch_refs.py: %s\n" % msg)
    sys.exit(2)


def parse(argv):
    if not argv or argv[0].startswith("-"):
        usage("the first argument is the kernel's name (or --list)")
    kernel, sizes, scalars, reps = argv[0], {}, {}, 30
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("--bytes", "--flops", "--scalar", "--reps", "--warmup"):
            if i + 1 >= len(argv):
                usage("%s needs a value" % a)
            v = argv[i + 1]
            if a == "--scalar":
                n, _, x = v.partition("=")
                try:
                    scalars[n] = float(x)
                except ValueError:
                    usage("--scalar %s: expected NAME=NUMBER" % v)
            elif a == "--reps":
                if not v.isdigit() or not 20 <= int(v) <= 1000:
                    usage("--reps must be an integer in [20, 1000]")
                reps = int(v)
            i += 2
            continue
        n, eq, x = a.partition("=")
        if not eq or not n.isidentifier() or not x.isdigit() or int(x) < 1:
            usage("unknown argument '%s' (sizes are NAME=VALUE, VALUE >= 1)" % a)
        sizes[n] = int(x)
        i += 1
    if not sizes:
        usage("no size given (NAME=VALUE, the spec's size variables)")
    return kernel, sizes, scalars, reps


def main(argv):
    if argv[:1] == ["--list"]:
        for k in sorted(_ops()):
            print(k)
        return 0
    kernel, sizes, scalars, reps = parse(argv)

    def line(**kw):
        d = {"kernel": kernel}
        d.update(kw)
        d.setdefault("size", sizes)
        print(json.dumps(d))
        sys.stdout.flush()

    ops = _ops()
    if kernel not in ops:
        line(reference="torch: none", note="no PyTorch op computes this kernel")
        return 0
    label, setup = ops[kernel]
    try:
        import torch
    except ImportError as e:
        sys.stderr.write("torch_refs.py: no torch here (%s)\n" % e)
        return 3
    if not torch.cuda.is_available():
        sys.stderr.write("torch_refs.py: torch sees no CUDA device\n")
        return 3
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        op = setup(torch, sizes, scalars)
        l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0) or (128 << 20)
        flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
        for _ in range(3):
            op()
        torch.cuda.synchronize()
        ms = []
        for r in range(reps):
            flush.fill_(r & 0xFF)
            torch.cuda.synchronize()
            t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t0.record()
            op()
            t1.record()
            t1.synchronize()
            ms.append(t0.elapsed_time(t1))
        ms.sort()

        def q(p):
            pos = p * (len(ms) - 1)
            lo = int(pos)
            hi = min(lo + 1, len(ms) - 1)
            return ms[lo] + (ms[hi] - ms[lo]) * (pos - lo)
        line(reference=label, median_ms=q(0.5), p10_ms=q(0.1), p90_ms=q(0.9), min_ms=ms[0],
             reps=len(ms), flushed_l2=True, check="n/a", torch=torch.__version__)
        return 0
    except Exception as e:  # a failed op is a line, the other kernels go on
        line(reference=label, error="%s: %s" % (type(e).__name__, e))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
