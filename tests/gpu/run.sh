#!/usr/bin/env bash
# The GPU proof of issues 3 and 5: runs the engine on the kernel suite (bench/kernels) and
# the cheating candidates (tests/gpu/cheats) on an NVIDIA GPU, then times what a user would
# otherwise use beside each kernel (bench/refs: cuBLAS/CUB and a device copy), and prints
# the tables last: per cheat ("cheat | expected | got | ok", then how many were rejected for
# an expected reason; tests/gpu/cheats/README.md lists them), per kernel (baseline
# ms, best ms, speedup, % of the roofline bound, max rel error, status), per kernel against
# its references (skill credited, reference ms, ratio, % of copy bandwidth) and the issue-5
# target lines.
#
#   tests/gpu/run.sh [--quick] [KERNEL...]
#
# Environment:
#   HKLS=PATH         the hkls binary to use (e.g. built statically elsewhere); else
#   HKLS_BUILD=DIR    a build directory holding hkls (and tests/gpu/hk_device_probe); else
#                     the script builds one in build-gpu (needs the -dev libraries; with
#                     HK_STATIC when the static ones exist). It never needs npm when
#                     HKLS or HKLS_BUILD is given.
#   HK_DEVICE_PROBE=PATH  the probe program (default: next to hkls, or HKLS_BUILD's)
#   BUDGET=N          candidates per kernel (default 4; --quick: 2)
#   MINUTES=M         search time per kernel, counted from its optimize stage (default 0.5;
#                     --quick: 0.25). Sized for an H200: 10 kernels + 7 cheats in about 20
#                     minutes (docs/episode.md, "Cost on a GPU"); the 109 cheats of now (session 45) take
#                     longer (the host_code ones are refused before any compile, the others
#                     build and run both programs: up to a minute each)
#   KERNEL_TIMEOUT=S  wall-clock limit of one kernel's episode (default 150; SIGTERM, which
#                     stops it cleanly with its report, then SIGKILL 10 s later)
#   CHEAT_TIMEOUT=S   the same for one cheat's verify-candidate (default 120)
#   DEADLINE_S=S      start no kernel or cheat that could end after S seconds from the
#                     script's start (default: none); skipped ones are listed as such
#   CHEATS="a b"      only these cheats, in this order (file names without .cu; default: all of cheats/;
#                     "none" for none). The cheats run FIRST, so a cut run never loses them.
#                     Each file's first line is "// expect: REASON" or "// expect: R1|R2"
#                     (either reason passes), its second "// kernel: NAME" (the suite spec;
#                     else the file's first __global__ function)
#   CHEAT_JOBS=N      cheats verified at once (default 1; the GPU lock in hkls keeps one
#                     benchmark program on the GPU at a time, so only compiles overlap)
#   SUITE=0           skip the suite episodes (run only the cheats)
#   SASS=0            skip recording cuobjdump SASS of the suite
#   REFS=0            skip the reference timings (hk_refs, bench/refs)
#   REFS_TORCH=0      skip PyTorch's ops (bench/refs/torch_refs.py; run when torch imports
#                     and sees a GPU)
#   REFS_TIMEOUT=S    wall-clock limit of one kernel's hk_refs run (default 180)
#   HK_SKILLS_DIR=DIR the skills the episodes load (default: the tree's skills/)
#   OUT=DIR           where to leave the results (at most 8 files; else kept in a temp dir);
#                     OUT/summary.txt is rewritten after every kernel and cheat, so a run cut
#                     short still leaves its table
#   JOBS=N            N kernels' episodes at once on each GPU (default 1): compiles overlap,
#                     the GPU lock in hkls keeps one benchmark program at a time on a GPU. On
#                     the H200 two at once fit (about 90-140 s each with MINUTES=0.5); four at
#                     once cut 7 of 8 at a 170 s KERNEL_TIMEOUT (bench/results/2026-11-29-h200-session3.md)
#   GPUS="0 1"        the GPUs to spread the kernels over (default: every GPU nvidia-smi lists);
#                     kernel i runs on GPUS[i mod count], with its references after it
#   HK_COMMIT=SHA     commit to record when the tree has no .git
# Exit: 0 when every kernel completed and every cheat was rejected for its reason, 1
# otherwise, 2 when no hkls could be found or built, 77 when there is no GPU ("skipped: no
# GPU"; ctest's SKIP_RETURN_CODE, so the summary counts it as skipped, not passed).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
quick=0
kernels=()
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,55p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $a" >&2; exit 2 ;;
    *) kernels+=("$a") ;;
  esac
done

# ---- a GPU, or nothing to do ----
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "skipped: no GPU"
  exit 77
fi
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"

if [ "$quick" = 1 ]; then
  budget=${BUDGET:-2}; minutes=${MINUTES:-0.25}
  [ ${#kernels[@]} -eq 0 ] && kernels=(vector_add reduce_sum transpose)
else
  budget=${BUDGET:-4}; minutes=${MINUTES:-0.5}
fi
kernel_timeout=${KERNEL_TIMEOUT:-150}
refs_timeout=${REFS_TIMEOUT:-180}
cheat_timeout=${CHEAT_TIMEOUT:-120}
deadline=${DEADLINE_S:-0}

say() { printf '==> %s\n' "$*" >&2; }

# ---- the binary ----
hkls=${HKLS:-}
probe=${HK_DEVICE_PROBE:-}
if [ -z "$hkls" ] && [ -n "${HKLS_BUILD:-}" ]; then
  hkls="$HKLS_BUILD/hkls"
  [ -z "$probe" ] && probe="$HKLS_BUILD/tests/gpu/hk_device_probe"
fi
if [ -z "$hkls" ]; then
  bdir="$top/build-gpu"
  static=OFF
  have_static=1
  for lib in libuv_a.a libtree-sitter.a libjansson.a libsqlite3.a; do
    ls /usr/lib/*/"$lib" /usr/lib/"$lib" /usr/local/lib/"$lib" >/dev/null 2>&1 || have_static=0
  done
  [ "$have_static" = 1 ] && static=ON
  say "building hkls in $bdir (HK_STATIC=$static)"
  if ! cmake -S "$top" -B "$bdir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHK_STATIC=$static >"$top/build-gpu.log" 2>&1 ||
     ! cmake --build "$bdir" -j "$(nproc)" --target hkls hk_device_probe >>"$top/build-gpu.log" 2>&1; then
    tail -20 "$top/build-gpu.log" >&2
    echo "run.sh: cannot build hkls here (see $top/build-gpu.log); pass HKLS=path to a prebuilt" \
         "binary, or HKLS_BUILD=dir" >&2
    exit 2
  fi
  hkls="$bdir/hkls"
  [ -z "$probe" ] && probe="$bdir/tests/gpu/hk_device_probe"
fi
if [ ! -x "$hkls" ]; then
  echo "run.sh: no hkls at $hkls" >&2
  exit 2
fi
[ -z "$probe" ] && probe="$(dirname "$hkls")/tests/gpu/hk_device_probe"

# ---- workspace ----
work=$(mktemp -d "${TMPDIR:-/tmp}/hk-gpu-run.XXXXXX")
logs="$work/logs"; reports="$work/reports"; evid="$work/evidence"
mkdir -p "$logs" "$reports" "$evid"
db="$work/history.db"
export HK_DB="$db"
# the skills loader's default is the build tree's copy, which a prebuilt binary's machine lacks
export HK_SKILLS_DIR="${HK_SKILLS_DIR:-$top/skills}"
commit=${HK_COMMIT:-$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)}
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
read -r -a gpus <<<"${GPUS:-$(nvidia-smi -L 2>/dev/null | sed -n 's/^GPU \([0-9][0-9]*\):.*/\1/p' | tr '\n' ' ')}"
[ ${#gpus[@]} -gt 0 ] || gpus=(0)
t_start=$(date +%s)
cmdline="BUDGET=$budget MINUTES=$minutes JOBS=${JOBS:-1}${GPUS:+ GPUS=\"$GPUS\"} tests/gpu/run.sh"
[ "$quick" = 1 ] && cmdline+=" --quick"
[ $# -gt 0 ] && cmdline+=" $(printf '%s ' "$@" | sed 's/--quick //; s/ $//')"
say "GPU: $gpu_name; commit $commit; hkls $hkls; budget $budget candidates, $minutes min per kernel"
say "workspace $work"

# ---- doctor and the device probe ----
"$hkls" doctor >"$logs/doctor.txt" 2>&1
say "hkls doctor: exit $? ($(grep -c . "$logs/doctor.txt") lines in logs/doctor.txt)"
grep -iE 'missing|nvcc|ncu|cuobjdump|sanitizer|GPU' "$logs/doctor.txt" | head -12 >&2
probe_json=""
if [ -x "$probe" ]; then
  say "device probe (measured peaks, cached for the episodes)"
  # every other GPU in use is probed beside the first (its own cache entry, by UUID)
  if [ ${#gpus[@]} -gt 1 ]; then
    for g in "${gpus[@]:1}"; do
      CUDA_VISIBLE_DEVICES=$g "$probe" >"$logs/probe-gpu$g.json" 2>"$logs/probe-gpu$g.err" &
    done
  fi
  pv=()
  [ ${#gpus[@]} -gt 1 ] && pv=(env CUDA_VISIBLE_DEVICES="${gpus[0]}")
  if "${pv[@]}" "$probe" >"$logs/probe.json" 2>"$logs/probe.err"; then
    probe_json=$(tail -1 "$logs/probe.json")
    echo "$probe_json" >&2
  else
    say "device probe failed: $(tail -3 "$logs/probe.err")"
  fi
  wait
else
  say "no hk_device_probe at $probe: the first episode measures the peaks itself"
fi

# ---- results, rewritten after every kernel and cheat ----
failed=0
rows="$work/rows.tsv"
cheat_rows="$work/cheats.tsv"
episodes="$work/episodes.jsonl"   # per kernel: summary, credit, size (bench/refs/summary.py)
refs_out="$work/refs.jsonl"       # hk_refs's lines
: >"$rows"
: >"$cheat_rows"
: >"$episodes"
: >"$refs_out"
summary="$work/summary.txt"
# The cheats' table: one row per cheat run (expected reason(s), reason got, PASS / FAIL /
# SKIPPED), then the count of cheats rejected for an expected reason.
cheat_table() {
  local n e g v total=0 pass=0
  printf '%-26s | %-30s | %-24s | %s\n' cheat expected got ok
  while IFS=$'\t' read -r n e g v; do
    printf '%-26s | %-30s | %-24s | %s\n' "$n" "$e" "$g" "$v"
    total=$((total + 1))
    [ "$v" = PASS ] && pass=$((pass + 1))
  done <"$cheat_rows"
  echo "cheats: $pass of $total rejected for their expected reason"
}
write_summary() {
  local t_now
  t_now=$(date +%s)
  {
    echo "GPU: ${gpu_name:-?} (${#gpus[@]} used: ${gpus[*]})   commit: $commit   $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "command: $cmdline"
    [ -n "$probe_json" ] && python3 -c 'import json,sys
d=json.loads(sys.argv[1])
def g(k): return d.get(k)
print("peaks: copy %s GB/s (memcpy %s GB/s), FP32 %s TFLOP/s, BF16 tensor %s TFLOP/s, %s SMs, L2 %s MB" % (
  g("copy_kernel_gbs"), g("memcpy_d2d_gbs"), g("fp32_tflops"), g("tensor_bf16_tflops"), g("sm_count"),
  (g("l2_bytes") or 0) >> 20))' "$probe_json" 2>/dev/null
    echo "total wall time: $((t_now - t_start)) s${1:+ ($1)}"
    echo
    cheat_table
    echo
    printf '%-14s %12s %12s %9s %9s %10s %8s  %s\n' kernel "baseline ms" "best ms" speedup "% roof" "max relerr" "time s" status
    while IFS=$'\t' read -r k b bm sp pct err st secs; do
      printf '%-14s %12s %12s %9s %9s %10s %8s  %s\n' "$k" "$b" "$bm" "$sp" "$pct" "$err" "$secs" "$st"
    done <"$rows"
    if [ -s "$episodes" ]; then
      echo
      [ -n "${refs_note:-}" ] && echo "$refs_note"
      python3 "$top/bench/refs/summary.py" --episodes "$episodes" --refs "$refs_out" \
          ${probe_json:+--probe "$logs/probe.json"} 2>&1 ||
        echo "(no reference table: bench/refs/summary.py failed or python3 is missing)"
    fi
  } >"$summary"
  if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT" && cp "$summary" "$OUT/summary.txt"
  fi
}
# true when a job of limit seconds may still start under DEADLINE_S
fits() { [ "$deadline" -le 0 ] || [ $(( $(date +%s) - t_start + $1 )) -le "$deadline" ]; }
write_summary "started"

# ---- the cheats, first: a run cut short must never lose them ----
# One cheat: its row goes to $work/cheat-rows/NAME (gathered in name order by
# gather_cheats), so CHEAT_JOBS of them can run at once.
mkdir -p "$work/cheat-rows"
run_cheat() {
  local c=$1 spec=$2 name=$3 expect=$4 sflag=() t0 rc got verdict
  # sanitize_*: cheats only compute-sanitizer catches (docs/sanitizer.md): checked whatever
  # speedup they claim
  # speedup they claim; so are the memory-safety cheats (out_of_bounds, race,
  # uninitialized): a user gets the same check on any accepted best (the episode's, and
  # verify-candidate's faster verdict since session 45)
  case "$name" in sanitize_*) sflag=(--sanitize) ;; esac
  case "|$expect|" in *'|out_of_bounds|'*|*'|race|'*|*'|uninitialized|'*) sflag=(--sanitize) ;; esac
  say "verify-candidate $name (expect $expect)"
  t0=$(date +%s)
  timeout -k 10 "$cheat_timeout" "$hkls" verify-candidate --spec "$spec" --candidate "$c" --json \
      ${sflag[@]+"${sflag[@]}"} >"$logs/cheat-$name.json" 2>"$logs/cheat-$name.log"
  rc=$?
  say "$name: exit $rc after $(( $(date +%s) - t0 )) s"
  got=$(python3 -c 'import json,sys
t=open(sys.argv[1]).read(); i=t.find("{")
if i < 0: sys.exit(1)
d=json.loads(t[i:])
v=d.get("verdict")
print("not_faster" if v == "not_faster" else "accepted" if d.get("accepted") else d.get("reason") or "?")' "$logs/cheat-$name.json" 2>/dev/null)
  if [ -z "$got" ]; then
    case $rc in
      3) got=no_gpu ;; 4) got=baseline_failed ;; 124|137) got=script_timeout ;; *) got="exit $rc" ;;
    esac
  fi
  verdict=FAIL
  # rejected (exit 1) for an expected reason; or, where the cheat says so, measured as not
  # faster (exit 5): checked timing left it nothing to gain, so no speedup is credited
  { [ "$rc" -eq 1 ] || { [ "$rc" -eq 5 ] && [ "$got" = not_faster ]; }; } &&
    printf '|%s|' "$expect" | grep -qF "|$got|" && verdict=PASS
  printf '%s\t%s\t%s\t%s\n' "$name" "$expect" "$got" "$verdict" >"$work/cheat-rows/$name"
}
gather_cheats() {
  cat "$work"/cheat-rows/* >"$cheat_rows" 2>/dev/null
  grep -q $'\t''FAIL$' "$cheat_rows" && failed=1
  write_summary "${1:-running}"
}
cheat_jobs=${CHEAT_JOBS:-1}
running=0
cheat_files=()
if [ -n "${CHEATS:-}" ] && [ "$CHEATS" != none ]; then
  for n in $CHEATS; do cheat_files+=("$here/cheats/$n.cu"); done   # in the order given
elif [ -z "${CHEATS:-}" ]; then
  cheat_files=("$here"/cheats/*.cu)
fi
for c in ${cheat_files[@]+"${cheat_files[@]}"}; do
  if [ ! -f "$c" ]; then
    printf '%s\t%s\t%s\tFAIL\n' "$(basename "$c")" "?" "no such cheat" >"$work/cheat-rows/$(basename "$c")"
    continue
  fi
  # "// expect: REASON" or "// expect: REASON|REASON" (either is a PASS); "// kernel: NAME" on
  # the second line names the suite kernel (its spec) when the file's first kernel is a helper
  expect=$(sed -n '1s#^// expect: *\([a-z_|]*\).*#\1#p' "$c")
  ck=$(sed -n '2s#^// kernel: *\([A-Za-z_0-9:]*\).*#\1#p' "$c")
  [ -n "$ck" ] || ck=$(sed -n 's/^__global__ void \([A-Za-z_0-9]*\)(.*/\1/p' "$c" | head -1)
  spec=$(grep -l "\"kernel\": \"$ck\"" "$top"/bench/kernels/*.bench.json 2>/dev/null | head -1)
  name=$(basename "$c")
  if [ -z "$spec" ]; then
    printf '%s\t%s\t%s\tFAIL\n' "$name" "$expect" "no spec for $ck" >"$work/cheat-rows/$name"
    continue
  fi
  if sed -n '3p' "$c" | grep -q '^// target: dcu'; then # AMDGPU inline asm (session 52)
    printf '%s\t%s\t%s\tSKIPPED\n' "$name" "$expect" "DCU's" >"$work/cheat-rows/$name"
    continue
  fi
  if ! fits "$cheat_timeout"; then
    printf '%s\t%s\t%s\tSKIPPED\n' "$name" "$expect" "deadline" >"$work/cheat-rows/$name"
    continue
  fi
  run_cheat "$c" "$spec" "$name" "$expect" &
  running=$((running + 1))
  if [ "$running" -ge "$cheat_jobs" ]; then wait -n; running=$((running - 1)); gather_cheats; fi
done
wait
gather_cheats "cheats done"

[ -s "$cheat_rows" ] && cheat_table >&2

# ---- real SASS and ncu output, for the evidence fixtures ----
sass_out="$evid/real_suite_sm90.sass"
: >"$sass_out"
[ "${SASS:-1}" = 0 ] || say "cuobjdump --dump-sass of the suite kernels"
for cu in "$top"/bench/kernels/*.cu; do
  [ "${SASS:-1}" = 0 ] && break
  ( o="$evid/$(basename "$cu" .cu).o"
    nvcc -arch=sm_90 -O3 -c -o "$o" "$cu" >"$o.log" 2>&1 &&
      cuobjdump --dump-sass "$o" >"$o.sass" 2>>"$o.log" ) &
done
wait
for cu in "$top"/bench/kernels/*.cu; do
  [ "${SASS:-1}" = 0 ] && break
  o="$evid/$(basename "$cu" .cu).o"
  [ -f "$o.sass" ] && cat "$o.sass" >>"$sass_out"
  cat "$o.log" >>"$logs/sass-build.log" 2>/dev/null
  rm -f "$o" "$o.sass" "$o.log"
done
[ -s "$sass_out" ] || [ "${SASS:-1}" = 0 ] || say "no SASS recorded (see logs/sass-build.log)"

# ---- the suite ----
spec_of() { grep -l "\"kernel\": \"$1\"" "$top"/bench/kernels/*.bench.json 2>/dev/null | head -1; }
all_specs=("$top"/bench/kernels/*.bench.json)
if [ ${#kernels[@]} -eq 0 ]; then
  for s in "${all_specs[@]}"; do
    kernels+=("$(sed -n 's/.*"kernel": *"\([^"]*\)".*/\1/p' "$s" | head -1)")
  done
fi
[ "${SUITE:-1}" = 0 ] && kernels=()
run_kernel() {
  local k=$1 spec src t0 t1 rc kwork exe
  spec=$(spec_of "$k")
  if [ -z "$spec" ]; then
    printf '%s\t-\t-\t-\t-\t-\tno spec\t0\n' "$k" >>"$rows"
    printf '{"kernel":"%s","status":"no spec"}\n' "$k" >>"$episodes"
    touch "$work/failed"
    return
  fi
  src="$top/bench/kernels/$(sed -n 's/.*"source": *"\([^"]*\)".*/\1/p' "$spec" | head -1)"
  if ! fits "$kernel_timeout"; then
    printf '%s\t-\t-\t-\t-\t-\tskipped (DEADLINE_S)\t0\n' "$k" >>"$rows"
    printf '{"kernel":"%s","status":"skipped (DEADLINE_S)"}\n' "$k" >>"$episodes"
    write_summary "DEADLINE_S=$deadline"
    return
  fi
  say "optimize $k ($(basename "$spec"))"
  t0=$(date +%s)
  kwork="$work/work-$k"
  # --check quick (the default): the search checks the quick set, the accuracy stage the
  # full set on new seeds; SIGTERM from timeout stops it cleanly (report kept, exit 130)
  timeout -k 10 "$kernel_timeout" "$hkls" optimize "$src" --kernel "$k" --spec "$spec" \
      --budget "$budget" --minutes "$minutes" --check quick --db "$db" --out "$reports/$k" \
      --work-dir "$kwork" --json $jobs_flag \
      >"$logs/optimize-$k.json" 2>"$logs/optimize-$k.log"
  rc=$?
  t1=$(date +%s)
  say "$k: exit $rc after $((t1 - t0)) s"; tail -2 "$logs/optimize-$k.log" >&2
  python3 - "$logs/optimize-$k.json" "$k" "$rc" "$((t1 - t0))" "$episodes" >>"$rows" <<'EOF'
import json, math, sys
path, k, rc, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = open(path).read()
start = text.find("{")
d = json.loads(text[start:]) if start >= 0 else {}
s = d.get("summary", d)
def num(key, fmt):
    v = s.get(key)
    return fmt % v if isinstance(v, (int, float)) and math.isfinite(v) else "-"
status = d.get("status") or ("exit %d" % rc)
if rc == 124:   # timeout(1) sent SIGTERM: the episode says "stopped by the user"
    status = "cut by KERNEL_TIMEOUT after %s s" % secs
    d.pop("error", None)
if s.get("flagged"):
    status += " (flagged >10x)"
if status != "completed" and d.get("error"):
    status += ": " + d["error"].splitlines()[0][:60]
print("\t".join([k, num("baseline_ms", "%.4f"), num("best_ms", "%.4f"),
                 num("speedup", "%.2fx"), num("roofline_pct", "%.1f%%"),
                 num("max_rel_err", "%.1e"), status, secs]))
# for the reference table: the skill credit and the measured size from the episode's report
# (the row above is printed: nothing here may fail the script)
ep = {"kernel": k, "status": d.get("status") or ("exit %d" % rc)}
for key in ("baseline_ms", "best_ms", "speedup", "flagged", "produced_by"):
    ep[key] = s.get(key) if isinstance(s, dict) else None
try:
    rp = (d.get("report") or {}).get("json")
    rep = json.load(open(rp)) if rp else {}
    info = (rep.get("episode") or {}).get("info")
    info = info if isinstance(info, dict) else {}
    ep["credit"] = info.get("credit")
    ep["bottleneck"] = info.get("bottleneck")
    ep["peaks"] = (rep.get("device") or {}).get("peaks")
    for v in rep.get("versions") or []:
        if v.get("is_baseline") and isinstance(v.get("time"), dict):
            ep["size"] = v["time"].get("size")
except Exception as e:
    sys.stderr.write("run.sh: %s: no report read (%s)\n" % (k, e))
try:
    with open(sys.argv[5], "a") as f:
        f.write(json.dumps(ep) + "\n")
except OSError as e:
    sys.stderr.write("run.sh: %s: %s\n" % (sys.argv[5], e))
EOF
  if [ $? -ne 0 ]; then
    printf '%s\t-\t-\t-\t-\t-\texit %s\t%s\n' "$k" "$rc" "$((t1 - t0))" >>"$rows"
    printf '{"kernel":"%s","status":"exit %s"}\n' "$k" "$rc" >>"$episodes"
  fi
  [ "$rc" -eq 0 ] || touch "$work/failed"
  # one real ncu table: the baseline harness of the first kernel that has one
  if [ ! -s "$evid/real_ncu.csv" ] && command -v ncu >/dev/null 2>&1; then
    exe=$(find "$kwork" -maxdepth 3 -type f -perm -u+x -path '*baseline*' 2>/dev/null | head -1)
    if [ -n "$exe" ]; then
      with_gpu_lock timeout 300 ncu --clock-control none --csv --metrics \
        dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
        --kernel-name "$k" --launch-count 1 "$exe" --mode run --size 0 --seed 1 --dist 0 \
        >"$evid/real_ncu.csv" 2>"$logs/ncu.err" || true
      echo "# kernel $k, $exe" >>"$logs/ncu.err"
    fi
  fi
  rm -rf "$kwork"
  write_summary "running"
}

# ---- references: what a user would otherwise use, beside each kernel (issue 5) ----
# hk_refs (bench/refs) at the size the episode measured (its report's size key), else the
# spec's first; one JSON line per measurement into refs.jsonl, read by write_summary. They
# run right after their kernel's episode, on its GPU, holding hkls's GPU lock for that GPU
# (measure.c, measure_gpu_lock_path) so no episode times a program beside them.
refs_note=""
refs_ok=0
torch_ok=0
if [ "${REFS:-1}" != 0 ] && [ ${#kernels[@]} -gt 0 ]; then
  say "building hk_refs (bench/refs/build.sh)"
  if [ "${REFS_TORCH:-1}" != 0 ]; then
    if python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' \
        >/dev/null 2>&1; then
      torch_ok=1
    else
      refs_note="references: no PyTorch with CUDA here, so no torch lines (REFS_TORCH=0 hides this)"
    fi
  fi
  if "$top/bench/refs/build.sh" "$work/hk_refs" >"$logs/refs-build.log" 2>&1; then
    refs_ok=1
  else
    refs_note="references: hk_refs did not build ($(tail -1 "$logs/refs-build.log"))${refs_note:+; $refs_note}"
    say "$refs_note"
  fi
fi
# the lock file hkls takes for the GPU this process's programs run on (measure_gpu_lock_path:
# the first entry of CUDA_VISIBLE_DEVICES, else of HIP_VISIBLE_DEVICES, "0" when unset)
gpu_lock_file() {
  local dev=${CUDA_VISIBLE_DEVICES-${HIP_VISIBLE_DEVICES-}}
  dev=${dev%%,*}
  dev=$(printf '%s' "${dev:-0}" | tr -c 'A-Za-z0-9-' '_')
  printf '/tmp/hyperkernel-gpu-%s-%s.lock' "$(id -u)" "$dev"
}
# runs a command holding that lock exclusively for its whole life (without flock(1):
# unlocked, as hkls does when it cannot lock). The turnstile first, held throughout, as a
# writer of include/hk_gpulock.h does: programs that come later wait behind it, so the
# episodes' shared holders cannot keep it out.
with_gpu_lock() {
  if command -v flock >/dev/null 2>&1; then
    flock "$(gpu_lock_file).turn" flock "$(gpu_lock_file)" "$@"
  else
    "$@"
  fi
}
refs_for() {
  local k=$1 spec key rc
  [ "$refs_ok" = 1 ] || return 0
  spec=$(spec_of "$k")
  [ -n "$spec" ] || return 0
  if ! fits "$refs_timeout"; then
    printf '{"kernel":"%s","reference":"-","error":"skipped (DEADLINE_S)"}\n' "$k" >>"$refs_out"
    return 0
  fi
  key=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d.get("kernel") == sys.argv[2] and d.get("size"): print(d["size"])' "$episodes" "$k" 2>/dev/null | tail -1)
  mapfile -t rargs < <("$top/bench/refs/spec_args.sh" "$spec" ${key:+--size "$key"} 2>>"$logs/refs.log")
  if [ ${#rargs[@]} -eq 0 ]; then
    printf '{"kernel":"%s","reference":"-","error":"spec_args.sh failed (logs/refs.log)"}\n' "$k" >>"$refs_out"
    return 0
  fi
  say "references for $k on GPU ${CUDA_VISIBLE_DEVICES:-all} (${rargs[*]})"
  with_gpu_lock timeout -k 10 "$refs_timeout" "$work/hk_refs" "${rargs[@]}" \
      >"$work/refs-$k.jsonl" 2>>"$logs/refs.log"
  rc=$?
  case $rc in
    0|1|2) ;;
    124|137) printf '{"kernel":"%s","reference":"-","error":"timeout after %s s"}\n' "$k" "$refs_timeout" >>"$work/refs-$k.jsonl" ;;
    *) printf '{"kernel":"%s","reference":"-","error":"hk_refs exit %s"}\n' "$k" "$rc" >>"$work/refs-$k.jsonl" ;;
  esac
  if [ "$torch_ok" = 1 ]; then
    with_gpu_lock timeout -k 10 "$refs_timeout" python3 "$top/bench/refs/torch_refs.py" "${rargs[@]}" \
        >>"$work/refs-$k.jsonl" 2>>"$logs/refs.log"
    rc=$?
    [ $rc -eq 124 ] || [ $rc -eq 137 ] &&
      printf '{"kernel":"%s","reference":"torch","error":"timeout after %s s"}\n' "$k" "$refs_timeout" >>"$work/refs-$k.jsonl"
  fi
  # one append of whole lines: lanes finish kernels at the same time
  cat "$work/refs-$k.jsonl" >>"$refs_out"
  rm -f "$work/refs-$k.jsonl"
  write_summary "running"
}

# The GPUs: GPUS (indices) or every GPU nvidia-smi lists. Kernel i goes to lane i mod the
# number of GPUs; each lane runs JOBS episodes at once on its GPU (CUDA_VISIBLE_DEVICES), each
# followed by its references. Within a lane the compiles overlap and hkls's GPU lock lets one
# benchmark program at a time on the GPU, so the timings are as good as run alone.
jobs_n=${JOBS:-1}
ncpu=$(nproc 2>/dev/null || echo 4)
per=$(( (ncpu - 2) / (jobs_n * ${#gpus[@]}) ))
[ "$per" -ge 1 ] || per=1
jobs_flag=""
if [ "$jobs_n" -gt 1 ] || [ ${#gpus[@]} -gt 1 ]; then
  jobs_flag="--jobs $per"
  say "${#gpus[@]} GPU(s) (${gpus[*]}), $jobs_n episodes at once on each, $per compile jobs each"
fi
lane() {
  local g=$1 i k
  # one GPU: leave CUDA_VISIBLE_DEVICES as it came (and the lock name hkls uses with it)
  [ ${#gpus[@]} -gt 1 ] && export CUDA_VISIBLE_DEVICES=$g
  for i in "${!kernels[@]}"; do
    [ $(( i % ${#gpus[@]} )) -eq "$2" ] || continue
    k=${kernels[$i]}
    if [ "$jobs_n" -gt 1 ]; then
      while [ "$(jobs -rp | wc -l)" -ge "$jobs_n" ]; do wait -n; done
      { run_kernel "$k"; refs_for "$k"; } &
    else
      run_kernel "$k"
      refs_for "$k"
    fi
  done
  wait
}
rm -f "$work/failed"
for gi in "${!gpus[@]}"; do
  lane "${gpus[$gi]}" "$gi" &
done
wait
[ -f "$work/failed" ] && failed=1

# ---- results ----
write_summary
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$summary" "$OUT/summary.txt"
  [ -s "$refs_out" ] && cp "$refs_out" "$OUT/refs.jsonl"
  [ -s "$sass_out" ] && cp "$sass_out" "$OUT/real_suite_sm90.sass"
  [ -s "$evid/real_ncu.csv" ] && cp "$evid/real_ncu.csv" "$OUT/real_ncu.csv"
  tar -C "$work" -czf "$OUT/gpu-run.tar.gz" logs reports history.db evidence rows.tsv cheats.tsv \
      episodes.jsonl refs.jsonl 2>/dev/null
  say "results in $OUT: $(ls "$OUT" | tr '\n' ' ')"
else
  say "results kept in $work"
fi
cat "$summary"
exit $failed
