#!/usr/bin/env bash
# Renders the recorded H200 saxpy episode (session 4, call 4, commit 20be827: its history.db
# is in bench/results/2026-11-30-h200-session4/call4-20be827.tar.gz) with this checkout's
# report code, and takes a screenshot of the HTML page in headless Chromium at 1280x900,
# the first screen a user sees.
#   bench/report_screenshot.sh [HKLS] [OUT_DIR]
# HKLS: a built hkls (default build/hkls); OUT_DIR: default bench/results/2026-11-30-h200-saxpy.
set -euo pipefail
cd "$(dirname "$0")/.."
hkls=${1:-build/hkls}
out=${2:-bench/results/2026-11-30-h200-saxpy}
tarball=bench/results/2026-11-30-h200-session4/call4-20be827.tar.gz
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -x "$hkls" ] || { echo "report_screenshot: no hkls at $hkls (cmake --build build)" >&2; exit 2; }
[ -n "$browser" ] || { echo "report_screenshot: no chromium on PATH (apt-get install chromium)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp" ./gpu-run.tar.gz
tar -xzf "$tmp/gpu-run.tar.gz" -C "$tmp" history.db
mkdir -p "$out"
"$hkls" report 2 --db "$tmp/history.db" --format html -o "$out/episode-2.html"
"$hkls" report 2 --db "$tmp/history.db" --format md -o "$out/episode-2.md"
# --no-sandbox: Chromium's own sandbox needs user namespaces that containers often lack;
# the page is our own self-contained report (no scripts, CSP default-src 'none').
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,900 \
  --screenshot="$PWD/$out/episode-2.png" "file://$PWD/$out/episode-2.html" 2>"$tmp/chromium.log" ||
  { cat "$tmp/chromium.log" >&2; exit 1; }
echo "wrote $out/episode-2.html, $out/episode-2.md, $out/episode-2.png"
