#!/bin/sh
# Checks libhk_cupti.so on a machine with an NVIDIA GPU, without hkls: builds the library
# with cc and the example project (tests/data/cmdform/project) with nvcc, runs the program
# under the injection (one process, then two processes sharing one records file) and checks
# the records: init/exit lines per process, 10 saxpy and 12 fill launches per process,
# nothing dropped, positive durations, launch shapes. Prints the per-launch time and the
# bandwidth it implies (saxpy moves 12 bytes per element).
#   tools/cupti/gpu_check.sh            (OUT=DIR keeps the files; CUDA_HOME, CC, ARCH)
# Exit 0 when every check passed, 1 otherwise; "skipped: no GPU" (exit 0) without one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
arch=${ARCH:-sm_90}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "skipped: no GPU"
    exit 0
fi
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
libdir=$cuda/lib64
[ -e "$libdir/libcupti.so" ] || libdir=$cuda/targets/x86_64-linux/lib
"${CC:-cc}" -std=c11 -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -I"$cuda/include" \
    "$top/tools/cupti/hk_cupti.c" -o "$out/libhk_cupti.so" -L"$libdir" -Wl,-rpath,"$libdir" \
    -lcupti -ldl -lpthread
"$cuda/bin/nvcc" -O3 -arch="$arch" -o "$out/saxpy" "$top/tests/data/cmdform/project/saxpy.cu"

rm -f "$out/one.jsonl" "$out/two.jsonl"
echo "== one process"
CUDA_INJECTION64_PATH=$out/libhk_cupti.so HK_CUPTI_OUT=$out/one.jsonl "$out/saxpy"
echo "== two processes, one file"
CUDA_INJECTION64_PATH=$out/libhk_cupti.so HK_CUPTI_OUT=$out/two.jsonl \
    sh -c "'$out/saxpy' 100000 4 && '$out/saxpy' 1000 2"
echo "== without the injection (no records file may appear)"
HK_CUPTI_OUT=$out/none.jsonl "$out/saxpy" 1000 1
[ ! -e "$out/none.jsonl" ] || { echo "FAIL: records written without CUDA_INJECTION64_PATH"; exit 1; }

python3 - "$out" <<'EOF'
import json, statistics, sys
out = sys.argv[1]
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok = ok and cond
def load(name):
    with open(f"{out}/{name}") as f:
        return [json.loads(l) for l in f if l.strip()]
recs = load("one.jsonl")
ev = lambda rs, e: [r for r in rs if r["event"] == e]
check(recs[0]["event"] == "init", "the first line is init")
check(len(ev(recs, "init")) == 1 and len(ev(recs, "exit")) == 1, "one init and one exit line")
check(not ev(recs, "error"), "no error lines: " + str(ev(recs, "error")))
ex = ev(recs, "exit")[0]
check(ex["dropped"] == 0, "nothing dropped")
ks = ev(recs, "kernel")
sax = [k for k in ks if k["name"] == "_Z5saxpyifPKfPf"]
fill = [k for k in ks if k["name"] == "_Z4fillPffi"]
check(len(sax) == 10 and len(fill) == 12, f"10 saxpy and 12 fill launches (got {len(sax)}, {len(fill)})")
check(ex["kernels"] == len(ks), "the exit line counts every kernel line")
check(all(k["end"] > k["start"] and k["duration_ns"] == k["end"] - k["start"] for k in ks), "positive durations")
n = (1 << 24) + 17
check(all(k["grid"] == [(n + 255) // 256, 1, 1] and k["block"] == [256, 1, 1] for k in sax), "launch shapes")
check(all("saxpy(int, float" in k.get("demangled", "") for k in sax), "demangled names")
seq = sorted(ks, key=lambda k: k["start"])
check(all(a["end"] <= b["start"] for a, b in zip(seq, seq[1:])), "launches of one stream do not overlap")
med = statistics.median(k["duration_ns"] for k in sax)
print(f"saxpy n={n}: median {med / 1e3:.1f} us per launch, {12 * n / med:.0f} GB/s")
two = load("two.jsonl")
pids = {r["pid"] for r in ev(two, "init")}
check(len(pids) == 2 and {r["pid"] for r in ev(two, "exit")} == pids, "two processes, each with init and exit")
per = {p: len([k for k in ev(two, "kernel") if k["pid"] == p and k["name"] == "_Z5saxpyifPKfPf"]) for p in pids}
check(sorted(per.values()) == [2, 4], f"saxpy launches per process 4 and 2 (got {per})")
print("all checks passed" if ok else "SOME CHECKS FAILED")
sys.exit(0 if ok else 1)
EOF
