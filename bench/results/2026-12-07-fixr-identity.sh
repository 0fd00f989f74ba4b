#!/usr/bin/env bash
# Session 46 (fix46): the wild suite's rewrite texts, for an identity check between two hkls
# builds (CPU only, no compile).
#
#   bench/results/2026-12-07-fix46-identity.sh HKLS OUT
#
# For each of the kernels in bench/wild/manifest.json (source bench/wild/src/<id>.cu, kernel
# and spec from the manifest), with no device and with --device 132,64 (suffix .dev):
#   OUT/<id>[.dev].json                   `hkls rewrites FILE --kernel K --spec SPEC --json`
#   OUT/<id>[.dev].stderr.txt             its stderr (the spec's warnings)
#   OUT/<id>.<name>[.dev].cu              `--emit NAME` for every rewrite that applies
#   OUT/<id>.<stack>.<params>[.dev].cu    `--emit A[+B] --param ...` for every candidate of
#                                         `--proposals 40` naming rewrites with parameters
#   OUT/<id>.proposals[.dev].txt          the --proposals 40 listing itself
# A failing --emit leaves its stderr and exit status in the .cu file (so it compares too).
# Then: diff -r OUT_BASE OUT_NEW.
set -uo pipefail
hkls=${1:?usage: $0 HKLS OUT}
out=${2:?usage: $0 HKLS OUT}
root=$(cd "$(dirname "$0")/../.." && pwd)
wild=$root/bench/wild
command -v jq >/dev/null || { echo "needs jq" >&2; exit 2; }
mkdir -p "$out"
ids=$(jq -r '.kernels[] | "\(.id) \(.kernel) \(.spec)"' "$wild/manifest.json")
emit() { # FILE K SPEC DEVARGS... -- EMITARGS...: writes stdout, or stderr + rc
    local dst=$1; shift
    "$hkls" rewrites "$@" > "$dst.tmp" 2> "$dst.err"
    local rc=$?
    if [ $rc -ne 0 ]; then { echo "rc $rc"; cat "$dst.err"; } > "$dst.tmp"; fi
    mv "$dst.tmp" "$dst"; rm -f "$dst.err"
}
while read -r id kernel spec; do
    src=$wild/src/$id.cu spec=$wild/$spec
    for dev in "" 132,64; do
        sfx= devargs=()
        [ -n "$dev" ] && sfx=.dev devargs=(--device "$dev")
        base=(rewrites "$src" --kernel "$kernel" --spec "$spec" "${devargs[@]}")
        "$hkls" "${base[@]}" --json > "$out/$id$sfx.json" 2> "$out/$id$sfx.stderr.txt"
        "$hkls" "${base[@]}" --proposals 40 > "$out/$id.proposals$sfx.txt" 2>&1
        for name in $(jq -r '.rewrites[]? | select(.applies) | .name' "$out/$id$sfx.json"); do
            emit "$out/$id.$name$sfx.cu" "${base[@]:1}" --emit "$name"
        done
        # candidates with parameters: "A k=v [+ B k=v]" before the first ';'
        sed -n 's/^ *[0-9]*: //p' "$out/$id.proposals$sfx.txt" | sed 's/ (skill[^)]*)//g; s/;.*//; s/, the kernel.s own launch.*//; s/  \[[0-9.]*\]$//' |
        grep -E '^[a-z_0-9]+( [a-z_]+=[0-9]+)+( \+ [a-z_0-9]+( [a-z_]+=[0-9]+)*)*$' | sort -u |
        while read -r cand; do
            stack= params=() tag=
            IFS='+' read -ra parts <<< "$cand"
            first=1
            for p in "${parts[@]}"; do
                read -ra w <<< "$p"
                name=${w[0]}
                stack=${stack:+$stack+}$name
                for kv in "${w[@]:1}"; do
                    if [ $first = 1 ]; then params+=(--param "$kv"); else params+=(--param "$name.$kv"); fi
                    tag=${tag:+$tag,}$kv
                done
                first=0
            done
            emit "$out/$id.$stack.$tag$sfx.cu" "${base[@]:1}" --emit "$stack" "${params[@]}"
        done
    done
done <<< "$ids"
echo "$(ls "$out" | wc -l) files in $out"
