#!/bin/bash
# A stand-in for compute-sanitizer (HK_COMPUTE_SANITIZER=this file) that, the first time it
# runs in a directory, tries the real tool on the same command line in several variants
# inside whatever sandbox hkls put it in, and records each variant's output and exit status
# in hk-variants-<n>.txt in that directory (the candidate's, the one the sandbox leaves
# writable); then it runs the real tool as asked, so hkls sees the usual outcome.
# tests/gpu/sanitizer_wrap.sh records what the tool sees; this one asks what would change
# the tool's "Error launching target app" in the namespace sandbox:
#   plain               the same command again (the failure reproduced)
#   env                 PATH, HOME and TMPDIR set (the sandbox's environment is empty)
#   copy                the target copied into the writable directory and run from there
#   print-level info    the tool's own account of the launch
#   strace              the tool under strace -f (when strace exists), its failing calls kept
real=${HK_REAL_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
d=$(pwd)
n=$(date +%s%N)
if ! ls "$d"/hk-variants-*.txt >/dev/null 2>&1; then
  rec="$d/hk-variants-$n.txt"
  # the target: the first argument after the tool's options that is an executable file
  target=
  for a in "$@"; do
    case "$a" in --*) continue ;; esac
    if [ -f "$a" ] && [ -x "$a" ]; then target=$a; break; fi
  done
  {
    echo "== id: $(id)"
    echo "== env (unsorted):"; /usr/bin/env
    echo "== target: $target"; ls -la "$target" "$(dirname "$target")" 2>&1
    echo "== /tmp:"; ls -la /tmp 2>&1 | head -20
    echo "== ulimit -a:"; ulimit -a
    echo "--- variant plain"
    timeout 60 "$real" "$@" 2>&1 | tail -5; echo "exit ${PIPESTATUS[0]}"
    echo "--- variant env"
    PATH=/usr/local/cuda/bin:/usr/bin:/bin HOME=$d TMPDIR=$d USER=hk timeout 60 "$real" "$@" 2>&1 | tail -5
    echo "exit ${PIPESTATUS[0]}"
    if [ -n "$target" ]; then
      echo "--- variant copy"
      cp "$target" "$d/hk-target-copy" 2>&1
      args=()
      for a in "$@"; do [ "$a" = "$target" ] && args+=("$d/hk-target-copy") || args+=("$a"); done
      timeout 60 "$real" "${args[@]}" 2>&1 | tail -5; echo "exit ${PIPESTATUS[0]}"
      rm -f "$d/hk-target-copy"
    fi
    echo "--- variant print-level info"
    timeout 60 "$real" --print-level info "$@" 2>&1 | tail -40; echo "exit ${PIPESTATUS[0]}"
    if command -v strace >/dev/null 2>&1; then
      echo "--- variant strace"
      timeout 120 strace -f -o "$d/hk-strace-$n.txt" "$real" "$@" >/dev/null 2>&1
      echo "exit $?"
      grep -E '= -1 E(PERM|ACCES|ROFS|NOENT|NOSYS|INVAL|AGAIN)' "$d/hk-strace-$n.txt" |
        grep -vE 'ENOENT \(No such file' | tail -60
      echo "(execve/clone/kill/exit lines)"
      grep -E 'execve|clone|vfork|fork\(|kill\(|exited with|killed by|SIGSYS|SIGSEGV|ptrace' "$d/hk-strace-$n.txt" | tail -60
      gzip -f "$d/hk-strace-$n.txt"
    else
      echo "--- strace: not installed"
    fi
  } >"$rec" 2>&1
fi
exec "$real" "$@"
