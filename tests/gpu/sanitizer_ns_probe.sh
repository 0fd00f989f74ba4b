#!/usr/bin/env bash
# Which part of the namespace sandbox stops compute-sanitizer from launching its target?
#
#   tests/gpu/sanitizer_ns_probe.sh [OUT_FILE]
#
# On the H200 (2026-12-02) compute-sanitizer answered "Error launching target app." for
# every candidate run inside hkls's namespace sandbox (server/runners/runner_ns.c), while
# the launcher alone ran there; sanitize.c then retries in the network-only sandbox
# (docs/isolation.md). This probe takes the sandbox apart: it runs memcheck on a tiny CUDA
# program under each ingredient alone (util-linux `unshare` and `setpriv`, as root), then
# under growing combinations, and prints one table row per variant: the tool launched the
# target or not, and the tool's first line of complaint. The ingredients are the ones
# runner_ns.c uses: pid, mount, network (loopback up or down), IPC and UTS namespaces, a
# private /tmp, a read-only view of $HOME, a uid no account uses (0x40000000 + n) keeping
# only CAP_DAC_OVERRIDE, an emptied capability bounding set, and no_new_privs.
# Needs a GPU, nvcc, compute-sanitizer, unshare, setpriv, ip (optional). Exit 77 without a GPU.
set -uo pipefail
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "skipped: no GPU"
  exit 77
fi
out=${1:-/dev/stdout}
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in nvcc unshare setpriv "$cs"; do
  command -v "$t" >/dev/null || { echo "sanitizer_ns_probe.sh: needs $t" >&2; exit 2; }
done
work=$(mktemp -d /var/tmp/hk-sanprobe.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
cat >"$work/app.cu" <<'EOF'
#include <cstdio>
__global__ void k(int *p) { p[threadIdx.x] = (int)threadIdx.x; }
int main() {
  int *d = nullptr;
  if (cudaMalloc(&d, 32 * sizeof(int)) != cudaSuccess) { puts("no device memory"); return 3; }
  k<<<1, 32>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  cudaFree(d);
  puts(e == cudaSuccess ? "app ran" : cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 4;
}
EOF
nvcc -o "$work/app" "$work/app.cu" || { echo "sanitizer_ns_probe.sh: nvcc failed" >&2; exit 2; }
chmod 755 "$work/app"
uid=$((0x40000000 + 4242))
lo_up='command -v ip >/dev/null && ip link set lo up; exec "$@"'
tmp_private='mount -t tmpfs -o mode=1777 tmpfs /tmp && exec "$@"'
home_ro='mount --bind "$HOME" "$HOME" && mount -o remount,bind,ro "$HOME" && exec "$@"'
uid_only=(setpriv --reuid="$uid" --regid="$uid" --clear-groups)
as_uid=(setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all,+dac_override --ambient-caps=+dac_override)
no_caps=(setpriv --bounding-set=-all)
nnp=(setpriv --no-new-privs)
# runner_ns.c's order in one step: the uid, CAP_DAC_OVERRIDE alone, bounding set, no_new_privs
as_sandbox=(setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all,+dac_override
            --ambient-caps=+dac_override --bounding-set=-all,+dac_override --no-new-privs)

row() {
  local name=$1; shift
  local text rc launched first
  text=$(timeout 120 "$@" "$cs" --tool memcheck "$work/app" 2>&1); rc=$?
  if grep -q "app ran" <<<"$text" && grep -q "ERROR SUMMARY: 0 errors" <<<"$text"; then launched=yes
  else launched=no; fi
  first=-
  [ "$launched" = no ] &&
    first=$(grep -v "ERROR SUMMARY: 0 errors" <<<"$text" | grep -m1 -E "Error|error|denied|failed|Failed|not permitted" | tr '|' '/' | cut -c1-110)
  printf '| %s | %s | %s | %s |\n' "$name" "$launched" "$rc" "${first:--}" >>"$out"
}

{
  echo "| variant | target launched | exit | first complaint |"
  echo "|---|---|---|---|"
} >>"$out"
# PROBE_ROWS=0: only the hkls rows below (the shell rows ran already)
if [ "${PROBE_ROWS:-1}" != 0 ]; then
row "plain" env
row "pid namespace (+ its /proc)" unshare --pid --fork --mount-proc
row "network namespace, loopback down" unshare --net
row "network namespace, loopback up" unshare --net sh -c "$lo_up" sh
row "IPC + UTS namespaces" unshare --ipc --uts
row "mount namespace, private /tmp" unshare --mount sh -c "$tmp_private" sh
row "mount namespace, \$HOME read-only" unshare --mount sh -c "$home_ro" sh
row "HOME=/nonexistent" env HOME=/nonexistent
row "uid $uid, no capabilities" "${uid_only[@]}"
row "uid $uid, CAP_DAC_OVERRIDE only" "${as_uid[@]}"
row "bounding set emptied" "${no_caps[@]}"
row "no_new_privs" "${nnp[@]}"
row "pid + net(lo up) + ipc + uts" unshare --pid --fork --mount-proc --net --ipc --uts sh -c "$lo_up" sh
row "all namespaces + private /tmp" unshare --pid --fork --mount-proc --net --ipc --uts --mount sh -c "ip link set lo up 2>/dev/null; $tmp_private" sh
row "all namespaces + /tmp + uid" unshare --pid --fork --mount-proc --net --ipc --uts --mount sh -c "ip link set lo up 2>/dev/null; $tmp_private" sh "${as_uid[@]}"
row "all + uid + bounding set + nnp" unshare --pid --fork --mount-proc --net --ipc --uts --mount sh -c "ip link set lo up 2>/dev/null; $tmp_private" sh "${as_sandbox[@]}"
row "uid + bounding set + nnp (no namespaces)" "${as_sandbox[@]}"
row "environment emptied (env -i PATH=...)" env -i PATH=/usr/local/cuda/bin:/usr/bin:/bin
# runner.c gives the program a uid of its own and RLIMIT_NPROC = max_processes (default 256;
# threads count, and the limit binds only a non-root uid)
row "uid + RLIMIT_NPROC 256 (the sandbox's default)" prlimit --nproc=256:256 "${as_sandbox[@]}"
row "uid + RLIMIT_NPROC 4096" prlimit --nproc=4096:4096 "${as_sandbox[@]}"
row "root + RLIMIT_NPROC 256 (root is exempt)" prlimit --nproc=256:256

# The rest rebuilds runner_ns.c's file system in shell: a read-only recursive bind of the
# host root entered with chroot, the work directory writable, a private /tmp, and, by
# option, a minimal /dev (the usual character devices, every /dev/nvidia*, a private
# /dev/shm) and a /proc of a new pid namespace. ROOT_OPTS selects: dev, proc.
root_sh='set -e
r=$(mktemp -d /var/tmp/hk-root.XXXXXX)
mount --rbind / "$r"
mount -o remount,bind,ro "$r"
mount --bind "$W" "$r$W"
mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
case " $ROOT_OPTS " in *" dev "*)
  mount -t tmpfs -o mode=755 tmpfs "$r/dev"
  for n in null zero full random urandom tty; do touch "$r/dev/$n"; mount --bind "/dev/$n" "$r/dev/$n"; done
  for n in /dev/nvidia*; do [ -e "$n" ] || continue
    if [ -d "$n" ]; then mkdir -p "$r$n"; mount --rbind "$n" "$r$n"
    else touch "$r$n"; mount --bind "$n" "$r$n"; fi
  done
  mkdir -p "$r/dev/shm"; mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm"
  ln -s /proc/self/fd "$r/dev/fd"; ln -s /proc/self/fd/0 "$r/dev/stdin"
  ln -s /proc/self/fd/1 "$r/dev/stdout"; ln -s /proc/self/fd/2 "$r/dev/stderr";;
esac
case " $ROOT_OPTS " in *" proc "*) mount -t proc proc "$r/proc";; esac
exec chroot "$r" "$@"'
export W="$work"
ROOT_OPTS="" row "chroot: read-only host root, private /tmp" unshare --mount sh -c "$root_sh" sh
ROOT_OPTS="dev" row "chroot: read-only root + minimal /dev" env ROOT_OPTS=dev unshare --mount sh -c "$root_sh" sh
ROOT_OPTS="proc" row "chroot: read-only root + pid ns /proc" env ROOT_OPTS=proc unshare --mount --pid --fork sh -c "$root_sh" sh
row "chroot: root + /dev + /proc + net/ipc/uts" env ROOT_OPTS="dev proc" unshare --mount --pid --fork --net --ipc --uts sh -c "ip link set lo up 2>/dev/null; $root_sh" sh
row "chroot: all of that + uid, caps, nnp" env ROOT_OPTS="dev proc" unshare --mount --pid --fork --net --ipc --uts sh -c "ip link set lo up 2>/dev/null; $root_sh" sh "${as_sandbox[@]}"
row "chroot: all of that + RLIMIT_NPROC 256 (the sandbox)" env ROOT_OPTS="dev proc" unshare --mount --pid --fork --net --ipc --uts sh -c "ip link set lo up 2>/dev/null; $root_sh" sh prlimit --nproc=256:256 "${as_sandbox[@]}"
# runner_ns.c mounts its /proc nosuid,nodev,noexec (as bwrap does), and the program is
# pid 2 under an init of the sandbox's own, not pid 1
row "pid ns, /proc nosuid,nodev,noexec" unshare --pid --fork --mount sh -c 'mount -t proc -o nosuid,nodev,noexec proc /proc && exec "$@"' sh
row "pid ns, the tool as pid 2 under a shell" unshare --pid --fork --mount-proc sh -c '"$@"; exit $?' sh
fi
# how many threads the tool and its target use at their peak (RLIMIT_NPROC counts them)
"$cs" --tool memcheck "$work/app" >/dev/null 2>&1 & tool=$!
peak=0
while kill -0 "$tool" 2>/dev/null; do
  n=$(ps -eLo pid,ppid,comm | awk -v p="$tool" '$1==p || $2==p' | wc -l)
  [ "$n" -gt "$peak" ] && peak=$n
  sleep 0.05
done
wait "$tool" 2>/dev/null
# hkls itself, when HKLS and a spec are given (HK_PROBE_SPEC): the real sandbox around the
# real tool, the candidate being the spec's own source
if [ -n "${HKLS:-}" ] && [ -n "${HK_PROBE_SPEC:-}" ]; then
  src=$(dirname "$HK_PROBE_SPEC")/$(sed -n 's/^ *"source": *"\([^"]*\)".*/\1/p' "$HK_PROBE_SPEC" | head -n 1)
  for iso in namespaces net; do
    HK_RUNNER_ISOLATION=$iso HK_LOG_LEVEL=debug timeout 300 "$HKLS" verify-candidate --spec "$HK_PROBE_SPEC" \
      --candidate "$src" --sanitize --pairs 1 --json >"$work/hk-$iso.json" 2>"$work/hk-$iso.log"
    note=$(grep -ho '"memory safety[^"]*"' "$work/hk-$iso.json" 2>/dev/null | head -n 1)
    # "in the network-only sandbox" at the note's end: the tool failed in the namespace
    # sandbox and sanitize.c's fallback ran it with the network namespace alone
    printf '| hkls verify-candidate --sanitize, HK_RUNNER_ISOLATION=%s | %s | - | %s |\n' "$iso" \
      "$(grep -q 'checked by compute-sanitizer' <<<"$note" && ! grep -q 'network-only' <<<"$note" && echo yes || echo no)" \
      "$(cut -c1-90 <<<"${note:-no note}")$(grep -o 'in the network-only sandbox' <<<"$note" | sed 's/^/ ... /')" >>"$out"
    grep -i -m3 "launch\|sanitizer" "$work/hk-$iso.log" | cut -c1-200 | sed 's/^/    /' >>"$out"
  done
fi
echo "peak threads of the tool and its target (sampled): $peak; CPUs: nproc $(nproc), configured $(getconf _NPROCESSORS_CONF)" >>"$out"
exit 0
