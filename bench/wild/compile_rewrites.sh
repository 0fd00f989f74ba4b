#!/usr/bin/env bash
# Does every rewrite that applies to a wild kernel give text that nvcc compiles? CPU only
# (nvcc, no GPU): per kernel, the baseline and each rewrite that `hkls rewrites --json`
# says applies are emitted (`hkls rewrites --emit`), a template kernel is instantiated at the
# spec's template arguments (its address taken), and `nvcc -arch=sm_90 -cubin` builds it
# with the spec's compile_flags. One table row per (kernel, text): ok, or FAIL with the
# first error line. A compile says nothing about equivalence: that needs the GPU (or the
# CPU emulation tests of tests/unit for the rewrites that have one).
#
#   bench/wild/compile_rewrites.sh [ID...]
#
# Environment: HKLS (default ./build/hkls), NVCC (default nvcc), OUT (default a new
# temporary folder: the emitted texts and nvcc's messages stay there).
# Exit status: 0 when every text compiles, 1 when one does not, 2 when something is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hkls=${HKLS:-$root/build/hkls}
nvcc=${NVCC:-nvcc}
command -v jq >/dev/null || { echo "compile_rewrites.sh: needs jq" >&2; exit 2; }
command -v "$nvcc" >/dev/null || { echo "compile_rewrites.sh: no nvcc ($nvcc)" >&2; exit 2; }
[ -x "$hkls" ] || { echo "compile_rewrites.sh: no hkls at $hkls (set HKLS)" >&2; exit 2; }
[ -d "$here/src" ] || { echo "compile_rewrites.sh: $here/src is missing: run bench/wild/extract.sh first" >&2; exit 2; }
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/wild-compile.XXXXXX")}
mkdir -p "$out" || exit 2
if [ $# -gt 0 ]; then ids=("$@"); else
    ids=(); for s in "$here"/specs/*.bench.json; do ids+=("$(basename "$s" .bench.json)"); done
fi

echo "| kernel | text | nvcc -cubin (sm_90) |"
echo "|---|---|---|"
texts=0 fails=0
for id in "${ids[@]}"; do
    spec=$here/specs/$id.bench.json
    [ -f "$spec" ] || { echo "compile_rewrites.sh: no spec $spec" >&2; exit 2; }
    kernel=$(jq -r '.kernel' "$spec")
    targs=$(jq -r '(.template_args // []) | map(tostring) | join(", ")' "$spec")
    mapfile -t flags < <(jq -r '(.compile_flags // [])[]' "$spec")
    j=$("$hkls" rewrites "$here/src/$id.cu" --kernel "$kernel" --spec "$spec" --json 2>/dev/null) || {
        echo "| $id | - | hkls rewrites failed |"; fails=$((fails + 1)); continue; }
    # set_tunable is a search axis whose value the search sets: at its default (0) it is
    # no candidate (a #define'd array size of 0), so it is left out
    for r in baseline $(jq -r '.rewrites[] | select(.applies and .name != "set_tunable") | .name' <<< "$j"); do
        f=$out/$id.$r.cu
        if [ "$r" = baseline ]; then
            cp "$here/src/$id.cu" "$f"
        elif ! "$hkls" rewrites "$here/src/$id.cu" --kernel "$kernel" --spec "$spec" --emit "$r" \
                > "$f" 2> "$out/$id.$r.emit.txt"; then
            echo "| $id | $r | FAIL: not emitted: $(head -n 1 "$out/$id.$r.emit.txt" | tr '|' '/' | cut -c1-120) |"
            texts=$((texts + 1)) fails=$((fails + 1)); continue
        fi
        # the address of the specialization instantiates a template kernel (for the cubin only)
        [ -n "$targs" ] && printf '\nstatic void *hk_compile_check_inst = (void *)&%s<%s>;\n' "$kernel" "$targs" >> "$f"
        texts=$((texts + 1))
        if "$nvcc" -arch=sm_90 -cubin -w "${flags[@]}" -o "$out/$id.$r.cubin" "$f" > "$out/$id.$r.nvcc.txt" 2>&1; then
            echo "| $id | $r | ok |"
        else
            fails=$((fails + 1))
            echo "| $id | $r | FAIL: $(grep -m1 -i 'error' "$out/$id.$r.nvcc.txt" | sed "s#$out/##" | tr '|' '/' | cut -c1-160) |"
        fi
    done
done
echo
echo "$texts texts over ${#ids[@]} kernels: $((texts - fails)) compile, $fails do not; texts and nvcc messages: $out"
[ "$fails" -eq 0 ]
