#!/usr/bin/env bash
# installed.sh BUILD_DIR SOURCE_DIR: installs BUILD_DIR into a temporary prefix and runs the
# installed hkls from that prefix, with the source tree hidden (bwrap --tmpfs over it) where
# bwrap can do that: `hkls doctor` and `hkls skills` must name <prefix>/share/hyperkernel,
# and, where nvcc is, an episode without a GPU must build its baseline (the harness header
# comes from the prefix) and point at the recorded report installed there.
set -euo pipefail
build=$1 src=$2
prefix=$(mktemp -d /tmp/hk-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
share=$prefix/share/hyperkernel
for f in bin/hkls share/hyperkernel/include/hk_harness.h share/hyperkernel/include/hk_gpulock.h share/hyperkernel/include/hk_hip.h share/hyperkernel/include/hk_launcher_rt.cu share/hyperkernel/recorded/recorded.json \
         share/hyperkernel/recorded/2026-11-30-h200-saxpy/episode-2.html; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
ls "$share/skills"/*/ >/dev/null || fail "no skills installed"

# The kernel and spec of the demo, copied out of the tree before it is hidden.
work=$prefix/work
mkdir -p "$work"
cp "$src/examples/saxpy.cu" "$src/examples/saxpy.bench.json" "$work/"

hide=()
if bwrap --dev-bind / / --tmpfs "$src" true 2>/dev/null; then
  hide=(bwrap --dev-bind / / --tmpfs "$src" --chdir "$work")
  echo "source tree hidden: $src"
else
  echo "bwrap cannot hide the source tree here: checking the paths hkls names instead"
fi
run() { (cd "$work" && env -u HK_SKILLS_DIR -u HK_INCLUDE_DIR HOME="$prefix" "${hide[@]}" "$@"); }
# Every check reads its text from a here-string, never from `echo "$out" | ...`: under
# pipefail a reader that stops early (head -1, grep -q) can leave echo with SIGPIPE and fail
# a check that matched. That failed CI once, when `hkls skills` grew past one pipe write.
first_line() { printf '%s\n' "${1%%$'\n'*}"; }

out=$(run "$prefix/bin/hkls" doctor) || fail "hkls doctor failed"
grep -F "harness" <<<"$out" | grep -F "[ok]" | grep -F "$share/include/hk_harness.h" >/dev/null \
  || fail "doctor does not name the installed harness header: $out"
grep -F "skills" <<<"$out" | grep -F "[ok]" | grep -F "$share/skills" >/dev/null \
  || fail "doctor does not name the installed skills: $out"

out=$(run "$prefix/bin/hkls" skills) || fail "hkls skills failed"
first_line "$out" | grep -E "^[0-9]+ skills in $share/skills" >/dev/null \
  || fail "hkls skills does not read the installed skills: $(first_line "$out")"

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  rc=0
  out=$(run env HK_NO_GPU=1 HK_RUNNER_ISOLATION=none "$prefix/bin/hkls" optimize saxpy.cu \
        --kernel saxpy --spec saxpy.bench.json --budget 1 --jobs 2 --db "$work/h.db" 2>"$work/err") \
    || rc=$?
  [ "$rc" -eq 3 ] || fail "optimize without a GPU: exit $rc, not 3: $out $(cat "$work/err")"
  grep -E "^    v0 +[0-9]+ " <<<"$out" >/dev/null || fail "the baseline was not built: $out $(cat "$work/err")"
  grep -F "what a GPU gives: " <<<"$out" >/dev/null || fail "no recorded report named: $out"
  grep -F "what a GPU gives: " <<<"$out" | grep -F "$share/recorded/2026-11-30-h200-saxpy/episode-2.html" >/dev/null \
    || fail "the recorded report is not the installed one: $out"
fi
echo "ok: installed hkls runs from $prefix"
