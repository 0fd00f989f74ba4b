#!/usr/bin/env bash
# Times chosen rewrites (and stacks of them) of one wild kernel against its baseline on this
# machine's GPU, without a search: each variant's text comes from `hkls rewrites --emit`, and
# `hkls verify-candidate` judges it (the episode's checks) and times it interleaved with the
# baseline. For questions a search answers slowly or not at all: a stack the search does not
# propose, a parameter it reaches late, the cost of the shared memory a rewrite adds.
#
#   bench/wild/variants.sh ID VARIANT...
#
# A VARIANT is
#   REWRITE[+REWRITE...][:N=V[,N=V...]]  hkls rewrites --emit REWRITE+... --param N=V ...
#                                        (REWRITE.N=V for a rewrite of the stack other than
#                                        the first), e.g. block_reduce+register_carry:block_reduce.key=1
#   pad=BYTES                            the original with a __shared__ array of BYTES it
#                                        touches only when the kernel's first parameter is
#                                        below INT_MIN + 1 (never): what the shared memory a
#                                        rewrite adds costs by itself (L1 carveout)
#   pad=BYTES@VARIANT                    the same added to VARIANT's text
#   file=PATH                            a candidate source written by hand
# Environment: HKLS (default ./build/hkls), OUT (default bench/wild/runs/variants-ID-DATE:
# the texts, their ptxas lines, logs and table.md), PAIRS (verify-candidate --pairs, default
# 5), CHECK (full|quick, default quick), SASS=1 (cuobjdump -sass of each text's kernel and
# counts of LDG, STG, LDS, STS, SHFL, BAR in it: needs nvcc and cuobjdump).
# Prints a Markdown table (variant, registers, shared bytes, verdict, speedup, spread).
# Needs python3 (the verdict's JSON). Exit 0, 2 when something is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hkls=${HKLS:-$root/build/hkls}
case $hkls in /*) ;; *) hkls=$PWD/$hkls ;; esac
[ $# -ge 2 ] || { sed -n '2,27p' "$0" >&2; exit 2; }
[ -x "$hkls" ] || { echo "variants.sh: no hkls at $hkls (set HKLS)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "variants.sh: needs python3" >&2; exit 2; }
id=$1; shift
spec=$here/specs/$id.bench.json
src=$here/src/$id.cu
[ -f "$spec" ] || { echo "variants.sh: no spec $spec" >&2; exit 2; }
[ -f "$src" ] || { echo "variants.sh: no $src: run bench/wild/extract.sh first" >&2; exit 2; }
kernel=$(sed -n 's/^ *"kernel": *"\([^"]*\)".*/\1/p' "$spec" | head -n 1)
targs=$(tr -d '\n' < "$spec" | sed -n 's/.*"template_args": *\[\([^]]*\)\].*/\1/p' | tr -d ' ')
out=${OUT:-$here/runs/variants-$id-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

# emit VARIANT FILE: the variant's source into FILE; its error on stderr, 1 when it fails
emit() {
    local v=$1 f=$2 pad=0
    case $v in
    file=*) cp "${v#file=}" "$f"; return ;;
    pad=*@*) pad=${v#pad=}; pad=${pad%%@*}; v=${v#*@} ;;
    pad=*) pad=${v#pad=}; v= ;;
    esac
    if [ -z "$v" ]; then cp "$src" "$f" || return 1
    else
        local stack=${v%%:*} args=()
        if [ "$stack" != "$v" ]; then
            local p; IFS=, read -r -a ps <<< "${v#*:}"
            for p in "${ps[@]}"; do args+=(--param "$p"); done
        fi
        "$hkls" rewrites "$src" --kernel "$kernel" --spec "$spec" --emit "$stack" "${args[@]}" > "$f" || return 1
    fi
    [ "$pad" -gt 0 ] 2>/dev/null || return 0
    # the pad: after the kernel's opening brace (the first `{` after `KERNEL(` at a line's
    # depth 0 of a __global__ definition), guarded on the first parameter's name
    local words=$(( (pad + 3) / 4 ))
    K=$kernel W=$words perl -0pi -e '
        my ($k, $w) = ($ENV{K}, $ENV{W});
        s#(__global__[^;{]*?\b\Q$k\E\s*\(\s*(?:const\s+)?(?:unsigned\s+)?\w+\s*\*?\s*(?:__restrict__\s*)?(\w+)[^{]*?\{)#$1\n    __shared__ float hk_pad[$w];\n    if ((long long)($2) < -2147483647LL) { hk_pad[threadIdx.x % $w] = 1.0f; __syncthreads(); if (hk_pad[(threadIdx.x + 1) % $w] == 2.0f) __trap(); }\n#s
            or die "no definition of $k\n";' "$f"
}

inst() {   # an explicit instantiation of a template kernel, for nvcc -cubin
    [ -n "$targs" ] || return 0
    printf '\n// variants.sh: instantiated for the cubin only\ntemplate __global__ void %s<%s>(' "$kernel" "$targs"
    sed -n "s/^ *{\"name\": *\"[^\"]*\", *\"kind\": *\"\([a-z]*\)\", *\"dtype\": *\"\([a-z0-9_]*\)\".*/\1 \2/p" "$spec" |
        awk '{t=$2; if (t=="int32") t="int"; if (t=="float16") t="__half"; if (t=="bfloat16") t="__nv_bfloat16";
              p = ($1=="scalar") ? t : ($1=="input" ? "const " t "*" : t "*"); printf "%s%s", (NR>1?", ":""), p}'
    printf ');\n'
}

echo "| variant | registers | shared B | verdict | speedup (interleaved) | spread p10..p90 |"
echo "|---|---|---|---|---|---|"
n=0
for v in "$@"; do
    n=$((n + 1))
    f=$out/v$n.cu
    if ! emit "$v" "$f" 2> "$out/v$n.emit.txt"; then
        echo "| \`$v\` | - | - | not emitted: $(head -c 200 "$out/v$n.emit.txt" | tr '\n|' '  ') | - | - |"; continue
    fi
    regs=- smem=-
    if command -v nvcc >/dev/null; then
        { cat "$f"; inst; } > "$out/v$n.inst.cu"
        nvcc -arch=sm_90 -cubin -Xptxas -v -o "$out/v$n.cubin" "$out/v$n.inst.cu" > "$out/v$n.ptxas.txt" 2>&1
        line=$(grep -A2 "Function properties for .*$kernel" "$out/v$n.ptxas.txt" | grep "Used" | head -n 1)
        regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' <<< "$line")
        smem=$(sed -n 's/.* \([0-9]*\) bytes smem.*/\1/p' <<< "$line")
        if [ "${SASS:-0}" = 1 ] && command -v cuobjdump >/dev/null; then
            cuobjdump -sass "$out/v$n.cubin" > "$out/v$n.sass.txt" 2>&1
            for op in LDG STG LDS STS SHFL BAR; do printf '%s %s  ' "$op" "$(grep -c "\b$op\b\|\b$op\." "$out/v$n.sass.txt")"; done > "$out/v$n.sass-counts.txt"
        fi
    fi
    "$hkls" verify-candidate --spec "$spec" --candidate "$f" --check "${CHECK:-quick}" --pairs "${PAIRS:-5}" --json \
        > "$out/v$n.json" 2> "$out/v$n.log"
    rc=$?
    IFS=$'\t' read -r verdict sp spread < <(python3 - "$out/v$n.json" <<'PY' 2>/dev/null
import json, sys
try:
    v = json.load(open(sys.argv[1]))
except Exception:
    print("\t\t"); sys.exit(0)
w = ": ".join(str(x) for x in (v.get("verdict"), v.get("reason")) if x)[:160].replace("|", " ").replace("\n", " ")
il = v.get("interleaved") or {}
sp = "%s (%s / %s ms)" % (il.get("speedup"), il.get("baseline_ms"), il.get("candidate_ms")) if il else ""
print("%s\t%s\t%s" % (w, sp, "%s..%s" % (il.get("p10"), il.get("p90")) if il else ""))
PY
)
    echo "| \`$v\` | ${regs:--} | ${smem:--} | ${verdict:-exit $rc} | ${sp:--} | ${spread:--} |"
done | tee "$out/table.md"
echo "texts, ptxas lines, logs: $out" >&2
