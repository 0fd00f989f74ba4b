#!/bin/sh
# Stands in for a CUDA program under the CUPTI injection library in tests without a GPU:
# writes kernel records to $HK_CUPTI_OUT the way libhk_cupti.so does and prints what the
# mode asks for. Run N (counted in .fake_runs in the working directory) gives each saxpy
# launch N microseconds, so the per-run sums are known: 3 launches -> 3N us.
mode=${1:-ok}
n=$(cat .fake_runs 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > .fake_runs
if [ -z "$HK_CUPTI_OUT" ] || [ ! -r "$CUDA_INJECTION64_PATH" ]; then
    echo "FAIL: HK_CUPTI_OUT or CUDA_INJECTION64_PATH not set" >&2
    exit 9
fi
if [ "$mode" = marker ] && ! grep -q HK_CANDIDATE_MARK saxpy.cu; then
    echo "FAIL: the candidate is not in saxpy.cu"
    exit 1
fi
if [ "$mode" = marker ] && [ ! -x saxpy ]; then
    echo "FAIL: the build did not produce ./saxpy"
    exit 1
fi
# Every line starts with the run's nonce, as libhk_cupti.so writes it ("forged" leaves it
# out, as a program writing its own records would; "replayed" adds the lines of an earlier
# run, kept in .fake_replay, before this run's).
nonce=$HK_CUPTI_NONCE
[ "$mode" = forged ] && nonce=
records() {
    pid=$$
    if [ -n "$nonce" ]; then p="{\"nonce\":\"$nonce\","; else p="{"; fi
    echo "$p\"event\":\"init\",\"pid\":$pid,\"cupti_version\":130001}"
    t=1000000
    for i in 1 2 3; do
        d=$((n * 1000))
        echo "$p\"event\":\"kernel\",\"pid\":$pid,\"name\":\"_Z4fillPffi\",\"start\":$t,\"end\":$((t + 500)),\"duration_ns\":500,\"grid\":[65537,1,1],\"block\":[256,1,1]}"
        t=$((t + 1000))
        if [ "$1" != nosaxpy ]; then
            echo "$p\"event\":\"kernel\",\"pid\":$pid,\"name\":\"_Z5saxpyifPKfPf\",\"start\":$t,\"end\":$((t + d)),\"duration_ns\":$d,\"grid\":[65537,1,1],\"block\":[256,1,1]}"
        fi
        t=$((t + d + 1000))
    done
    echo "$p\"event\":\"exit\",\"pid\":$pid,\"kernels\":6,\"dropped\":0,\"buffers\":1}"
}
case "$mode" in
ok|marker|forged) records >> "$HK_CUPTI_OUT"; echo "PASS (0 of 16777233 wrong)" ;;
replayed) [ -f .fake_replay ] && cat .fake_replay >> "$HK_CUPTI_OUT"
          records > .fake_replay; records >> "$HK_CUPTI_OUT"; echo "PASS (0 of 16777233 wrong)" ;;
fail) records >> "$HK_CUPTI_OUT"; echo "mismatch at 7: got 1 want 2"; echo "FAIL (1 of 16777233 wrong)" ;;
nopass) records >> "$HK_CUPTI_OUT"; echo "done" ;;
exit1) records >> "$HK_CUPTI_OUT"; echo "PASS"; exit 1 ;;
notlaunched) records nosaxpy >> "$HK_CUPTI_OUT"; echo "PASS" ;;
nocupti) echo "PASS" ;;
nogpu) echo "saxpy.cu:31: cudaMalloc: CUDA driver version is insufficient" >&2; exit 3 ;;
sleep) records >> "$HK_CUPTI_OUT"; sleep 30; echo "PASS" ;;
crash) records >> "$HK_CUPTI_OUT"; kill -SEGV $$ ;;
*) echo "fake_run.sh: unknown mode $mode" >&2; exit 64 ;;
esac
exit 0
