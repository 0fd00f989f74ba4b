#!/bin/sh
# A stand-in for compute-sanitizer (HK_COMPUTE_SANITIZER=this file, HK_REAL_SANITIZER=the
# tool) that records, in the directory it runs in (the candidate's, the one the sandbox
# leaves writable), what the tool sees inside hkls's sandbox, then runs the real tool and
# keeps its whole output: tests/gpu/sanitizer_ns_probe.sh uses it to find why the tool
# cannot launch its target in the namespace sandbox.
n=$(date +%s%N)
{
  echo "== id: $(id)"; echo "== cwd: $(pwd)"; echo "== args: $*"
  grep -E '^(Cap|NoNewPrivs|Seccomp|Uid|Gid|Threads)' /proc/self/status
  echo "== limits"; cat /proc/self/limits
  echo "== mounts"; cat /proc/self/mounts
  echo "== /dev"; ls -la /dev
  echo "== env"; env | sort
} >"hk-wrap-$n.env" 2>&1
"${HK_REAL_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}" "$@" >"hk-wrap-$n.out" 2>&1
rc=$?
cat "hk-wrap-$n.out"
echo "== exit $rc" >>"hk-wrap-$n.out"
exit $rc
