#!/usr/bin/env bash
# The ELF type of the build's executables: the sanitized build links them not
# position-independent (CMakeLists.txt, HK_SANITIZE: -no-pie), as the ASan pass's CPU time
# wants (every start of a ~30 MB sanitized PIE applies ~300,000 relocations: issue 14,
# bench/results/2026-12-05-ci-time-s32.md).
# Usage: elf_type_test.sh WANT FILE...   (WANT: EXEC, not position-independent, or DYN, PIE)
# Reads e_type (2 bytes, little-endian, at offset 16) of each FILE: 2 is ET_EXEC, 3 ET_DYN.
set -eu
want=$1; shift
case $want in EXEC) code=2 ;; DYN) code=3 ;; *) echo "usage: $0 EXEC|DYN FILE..." >&2; exit 2 ;; esac
[ $# -gt 0 ] || { echo "usage: $0 EXEC|DYN FILE..." >&2; exit 2; }
rc=0
for f in "$@"; do
  magic=$(od -An -tx1 -N4 "$f" | tr -d ' \n')
  [ "$magic" = 7f454c46 ] || { echo "FAIL: $f is not an ELF file" >&2; rc=1; continue; }
  got=$(od -An -tu2 -j16 -N2 "$f" | tr -d ' \n')
  if [ "$got" = "$code" ]; then
    echo "ok: $f has e_type $got ($want)"
  else
    echo "FAIL: $f has e_type $got, not $code ($want)" >&2
    rc=1
  fi
done
exit $rc
