#!/usr/bin/env bash
# Run the wild suite: `hkls optimize` on every kernel (or the ids given) with the default
# budget, then print one table row per kernel and the suite's summary.
#
#   bench/wild/run.sh [ID...]
#
# Needs only hkls (HKLS, default ./build/hkls) and the sources that extract.sh wrote to
# bench/wild/src/. Environment:
#   HKLS        the hkls binary (default ./build/hkls, relative to the repository root)
#   OUT         where logs, the history database and table.md go
#               (default bench/wild/runs/YYYYmmdd-HHMMSS, ignored by git)
#   HKLS_ARGS   extra `hkls optimize` options, e.g. "--budget 4 --minutes 0.75", or
#               "--simulate-gpu --budget 1" to rehearse on a machine without a GPU
#   JOBS        episodes at once (default 1). hkls's GPU lock keeps one benchmark program
#               on the GPU at a time, so parallel episodes overlap only their compiles;
#               every speedup is still measured interleaved, in one run
#   ONECLICK=1  issue 14's one-click run: no --spec. Each wrapper is copied to
#               OUT/oneclick/, and `hkls optimize` infers the spec, saves it beside the copy
#               and runs the episode, or refuses (exit 2) with its reasons. The table gains
#               a "spec" column (inferred / refused) and the summary counts completed episodes
#   EPISODE_TIMEOUT=S  wall-clock limit of one episode (default none): SIGTERM, on which hkls
#               stops cleanly and still writes its report, then SIGKILL 15 s later
#   BATCH=NAME  with no ID given, only the kernels whose manifest "batch" is NAME
#               (BATCH=holdout-s46 bench/wild/run.sh: session 46's holdout)
#   SUITE_DIR=DIR  run another folder's kernels instead: DIR/ID.cu with DIR/ID.bench.json
#               (SUITE_DIR=tests/data/probes: the generality probes); with no ID given, every
#               spec there. Not with ONECLICK=1 (that copies the wild launchers)
#   TABLE_ONLY=1  run nothing: make the table from the logs already in OUT (a run cut
#               short); an episode with no exit status recorded counts as FAIL
# Exit status: 0 when every episode completed, 1 otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hkls=${HKLS:-$root/build/hkls}
case $hkls in /*) ;; *) hkls=$PWD/$hkls ;; esac
[ -x "$hkls" ] || { echo "run.sh: no hkls at $hkls (set HKLS)" >&2; exit 2; }
# where the kernels are: specs/ID.bench.json and src/ID.cu here, or both in SUITE_DIR
if [ -n "${SUITE_DIR:-}" ]; then
    [ "${ONECLICK:-0}" = 1 ] && { echo "run.sh: SUITE_DIR does not go with ONECLICK=1" >&2; exit 2; }
    [ -d "$SUITE_DIR" ] || { echo "run.sh: SUITE_DIR $SUITE_DIR is not a folder" >&2; exit 2; }
    base=$(cd "$SUITE_DIR" && pwd) specs_rel=. srcs_rel=.
else
    [ -d "$here/src" ] || { echo "run.sh: $here/src is missing: run bench/wild/extract.sh first" >&2; exit 2; }
    base=$here specs_rel=specs srcs_rel=src
fi
out=${OUT:-$here/runs/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
read -r -a extra <<< "${HKLS_ARGS:-}"

if [ $# -gt 0 ]; then ids=("$@")
elif [ -n "${BATCH:-}" ]; then
    # the kernels of one manifest batch (holdout-s46, ...): the manifest writes one field a
    # line, "id" before "batch" in each kernel's object
    ids=()
    while read -r id; do ids+=("$id"); done < <(awk -v b="$BATCH" '
        /^ *"id": / { id = $0; sub(/^ *"id": *"/, "", id); sub(/".*/, "", id) }
        /^ *"batch": / { x = $0; sub(/^ *"batch": *"/, "", x); sub(/".*/, "", x); if (x == b) print id }' "$here/manifest.json")
    [ ${#ids[@]} -gt 0 ] || { echo "run.sh: no kernel of batch $BATCH in manifest.json" >&2; exit 2; }
else
    ids=(); for s in "$base/$specs_rel"/*.bench.json; do ids+=("$(basename "$s" .bench.json)"); done
fi

# kernel name of a spec: the value of its "kernel" field (the specs write one per line)
kernel_of() { sed -n 's/^ *"kernel": *"\([^"]*\)".*/\1/p' "$1" | head -n 1; }

jobs=${JOBS:-1}
limit=(env)
[ -n "${EPISODE_TIMEOUT:-}" ] && limit=(timeout -k 15 "$EPISODE_TIMEOUT")
oneclick=${ONECLICK:-0}
# the wrappers' launchers (the extracted projects' folders) go beside the copies, as they sit
# beside the wrappers in src/: inference reads the launch sites there (bench/wild/infer.sh
# runs on the same tree); without them a templated kernel has no launch to take T from
if [ "$oneclick" = 1 ]; then
    mkdir -p "$out/oneclick"
    for d in "$here"/src/*/; do cp -r "$d" "$out/oneclick/"; done
fi

# one episode; its exit status goes to OUT/ID.rc
run_one() {
    local id=$1 spec=$base/$specs_rel/$1.bench.json src=$base/$srcs_rel/$1.cu kernel rc
    kernel=$(kernel_of "$spec")
    echo "== $id ($kernel)" >&2
    if [ "$oneclick" = 1 ]; then
        cp "$src" "$out/oneclick/$id.cu"
        (cd "$out/oneclick" && "${limit[@]}" "$hkls" optimize "$id.cu" --kernel "$kernel" \
            --db "$out/history.db" --out "$out/reports-$id" --name "wild $id" "${extra[@]}") > "$out/$id.log" 2>&1
    else
        (cd "$base" && "${limit[@]}" "$hkls" optimize "$srcs_rel/$id.cu" --kernel "$kernel" --spec "$specs_rel/$id.bench.json" \
            --db "$out/history.db" --out "$out/reports-$id" --name "wild $id" "${extra[@]}") > "$out/$id.log" 2>&1
    fi
    rc=$?
    echo "$rc" > "$out/$id.rc"
    echo "== $id: exit $rc" >&2
}

status=0
rows=()
running=0
for id in "${ids[@]}"; do
    if [ ! -f "$base/$specs_rel/$id.bench.json" ] || [ ! -f "$base/$srcs_rel/$id.cu" ]; then
        echo "run.sh: $id: missing $specs_rel/$id.bench.json or $srcs_rel/$id.cu in $base" >&2; status=1; continue
    fi
    rows+=("$id")
    [ "${TABLE_ONLY:-0}" = 1 ] && continue
    run_one "$id" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
for i in "${!rows[@]}"; do
    id=${rows[$i]}
    rc=$(cat "$out/$id.rc" 2>/dev/null || echo cut)   # cut: stopped before it finished (the caller's deadline)
    [ "$rc" = 0 ] || status=1
    rows[$i]="$id $rc"
done

# One row per kernel, from each episode's own summary lines:
#   [optimize] baseline: CLASS, P% of its roofline bound; skills that fit: ...
#   best vN: B ms vs baseline A ms (interleaved): S.SSx ...   |  no faster verified version (baseline A ms)
#   P% of the roofline bound
table=$out/table.md
{
    echo "| id | class | baseline ms | best ms | speedup | % of roofline (baseline -> best) | refusals |"
    echo "|---|---|---|---|---|---|---|"
    for row in "${rows[@]}"; do
        set -- $row
        id=$1 rc=$2 log=$out/$1.log
        awk -v id="$id" -v rc="$rc" '
            /\[optimize\] baseline[: ]/ {
                line = $0
                sub(/.*\[optimize\] baseline:? /, "", line)
                cls = line; sub(/[,;].*/, "", cls); sub(/^of /, "", cls); sub(/ class$/, "", cls)
                if (match(line, /[0-9.]+% of its roofline/)) { broof = substr(line, RSTART, RLENGTH); sub(/%.*/, "", broof) }
            }
            /best v[0-9]+: .* ms vs baseline .* ms/ {
                for (i = 1; i <= NF; i++) {
                    if ($i ~ /^v[0-9]+:$/) best = $(i + 1)
                    if ($i == "baseline" && $(i + 2) == "ms") base = $(i + 1)
                    if ($i ~ /^[0-9.]+x$/ && sp == "") { sp = $i; sub(/x$/, "", sp) }
                }
            }
            /no faster verified version \(baseline / { base = $0; sub(/.*\(baseline /, "", base); sub(/ ms.*/, "", base) }
            /% of the roofline bound/ { r = $0; sub(/^ */, "", r); sub(/%.*/, "", r); roof = r }
            tolower($0) ~ /refus|does not apply|did not apply|not applied|not searched/ && $0 !~ /--untrusted|refuse a command-form/ && $0 !~ /^[0-9][0-9]:[0-9][0-9]:[0-9.]+ (debug|trace) / {
                nref++
                t = $0; sub(/^ *(\[[a-z]+\] )?/, "", t)
                # "skill S fits, but its rewrite R does not apply: why" -> "R: why"
                if (match(t, /its rewrite [^ ]+ does not apply: /)) {
                    rw = substr(t, RSTART + 12, RLENGTH - 12); sub(/ does not apply: $/, "", rw)
                    t = rw ": " substr(t, RSTART + RLENGTH)
                }
                if (length(t) > 90) t = substr(t, 1, 87) "..."
                gsub(/\|/, "/", t)
                if (nref <= 3) refs = refs (refs == "" ? "" : "; ") t
            }
            END {
                if (cls == "") cls = "?"
                if (sp == "") sp = (rc == 0 && base != "") ? "1.00" : "FAIL"
                if (best == "") best = "-"
                if (base == "") base = "-"
                rf = (broof == "" ? "-" : broof) " -> " (roof == "" ? "-" : roof)
                if (nref == 0) refs = "none listed"; else if (nref > 3) refs = refs sprintf(" (+%d more)", nref - 3)
                printf "| %s | %s | %s | %s | %s | %s | %s |\n", id, cls, base, best, sp, rf, refs
            }' "$log"
    done
} > "$table"

# Summary: every kernel, and mmcv's subset beside the platform's published figures.
awk -F'|' '
    NR > 2 {
        id = $2; gsub(/ /, "", id); s = $6; gsub(/ /, "", s)
        v = (s == "FAIL") ? 1.0 : s + 0
        n++; lg += log(v); ar += v; if (v >= 1.05) imp++; if (s == "FAIL") fail++
        if (id ~ /^mmcv_/) { mn++; mlg += log(v); mar += v; if (v >= 1.05) mimp++ }
    }
    END {
        if (n == 0) exit
        printf "\nall: %d kernels, %d improved >= 1.05x (%.0f%%; target 75%%), geometric mean %.2fx (target 2.5x), arithmetic mean %.2fx, %d failed\n",
               n, imp, 100 * imp / n, exp(lg / n), ar / n, fail
        if (mn > 0)
            printf "mmcv: %d ops, %d improved (%.0f%%; the platform: 78%% of 60 ops), arithmetic mean %.2fx (the platform: 4.75x), geometric mean %.2fx\n",
                   mn, mimp, 100 * mimp / mn, mar / mn, exp(mlg / mn)
    }' "$table" >> "$table"
# One-click: did inference give a spec and the episode complete (issue 14: 80% of them)?
if [ "$oneclick" = 1 ]; then
    {
        echo
        echo "| id | exit | spec | first reason (refused or failed) |"
        echo "|---|---|---|---|"
        done_n=0 all_n=0
        for row in "${rows[@]}"; do
            set -- $row
            id=$1 rc=$2 log=$out/$1.log
            all_n=$((all_n + 1))
            if [ "$rc" = 0 ]; then spec=inferred; done_n=$((done_n + 1)); why=""
            elif grep -q 'not sure enough\|none can be inferred' "$log"; then spec=refused
                why=$(grep -m1 -A1 'not sure enough\|none can be inferred' "$log" | tr '\n|' ' /' | cut -c1-160)
            else spec=$(grep -q 'inferred one and saved' "$log" && echo inferred || echo '?')
                why=$(grep -m1 -i 'error\|failed\|cannot' "$log" | tr '|' '/' | cut -c1-160)
                [ "$rc" = 124 ] && why="stopped at the episode's time limit (EPISODE_TIMEOUT; last: $(grep -v '^ *$' "$log" | tail -n 1 | tr '|' '/' | cut -c1-120))"
                [ "$rc" = cut ] && why="not finished when the run was stopped (last: $(grep -v '^ *$' "$log" | tail -n 1 | tr '|' '/' | cut -c1-120))"
            fi
            echo "| $id | $rc | $spec | $why |"
        done
        echo
        echo "one-click: $done_n of $all_n episodes completed with no hand edit ($((100 * done_n / (all_n > 0 ? all_n : 1)))%; target 80%)"
    } >> "$table"
fi
cat "$table"
echo "logs, reports and history.db: $out" >&2
exit $status
