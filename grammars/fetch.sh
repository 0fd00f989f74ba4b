#!/bin/sh
# Fetches the tree-sitter-cuda grammar from npm into DEST (only its src/ is kept).
# The grammar is never committed or edited: this script is the one place it comes from.
# Usage: grammars/fetch.sh DEST [TARBALL]   (TARBALL: a local `npm pack` output, for
# machines with no registry, e.g. the GPU machine)
set -eu
dest=$1
version=0.20.4
tarball=${2:-${HK_GRAMMAR_TGZ:-}}
if [ -f "$dest/src/parser.c" ] && [ -f "$dest/.version" ] && [ "$(cat "$dest/.version")" = "$version" ]; then
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$tarball" ]; then
  command -v npm >/dev/null 2>&1 || { echo "grammars/fetch.sh: npm is needed to fetch tree-sitter-cuda@$version (or set HK_GRAMMAR_TGZ)" >&2; exit 1; }
  (cd "$tmp" && npm pack --silent "tree-sitter-cuda@$version" >/dev/null)
  tarball=$(ls "$tmp"/tree-sitter-cuda-*.tgz)
fi
tar -xzf "$tarball" -C "$tmp"
grep -q 'define LANGUAGE_VERSION 14' "$tmp/package/src/parser.c" || {
  echo "grammars/fetch.sh: tree-sitter-cuda@$version is not ABI 14; the runtime (0.20.x) loads ABI 13-14 only" >&2; exit 1; }
rm -rf "$dest"
mkdir -p "$dest"
cp -r "$tmp/package/src" "$dest/src"
echo "$version" > "$dest/.version"
