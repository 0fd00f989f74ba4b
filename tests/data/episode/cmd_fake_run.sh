#!/bin/sh
# The GPU boundary of a command-form episode, for tests without a GPU: stands in for the
# user's program run under the CUPTI injection library. It writes the kernel records
# libhk_cupti.so would write to $HK_CUPTI_OUT (3 saxpy launches per run) and prints PASS,
# deterministically by the source text in its working copy, the way a GPU would answer:
# each saxpy launch takes 1000 ns, 800 ns when the kernel has __restrict__ pointers; a
# source containing HK_WRONG prints FAIL (a wrong answer the program itself catches).
# $FAKE_CMD_NS="WORD:NS ...": a source containing WORD takes NS ns per launch instead.
# $FAKE_CMD_FAIL_FROM="WORD:N": a source containing WORD prints FAIL from its Nth run on,
# its runs counted per source text in the directory $FAKE_CMD_STATE (a version the
# search's runs passed that fails when the verify stage runs it again).
if [ -z "$HK_CUPTI_OUT" ] || [ ! -r "$CUDA_INJECTION64_PATH" ]; then
    echo "FAIL: HK_CUPTI_OUT or CUDA_INJECTION64_PATH not set" >&2
    exit 9
fi
d=1000
grep -q '__restrict__' saxpy.cu && d=800
for rule in ${FAKE_CMD_NS:-}; do
    grep -qF -- "${rule%:*}" saxpy.cu && d=${rule##*:}
done
late=0
for rule in ${FAKE_CMD_FAIL_FROM:-}; do
    if grep -qF -- "${rule%:*}" saxpy.cu && [ -n "${FAKE_CMD_STATE:-}" ]; then
        f="$FAKE_CMD_STATE/$(cksum < saxpy.cu | cut -d' ' -f1).runs"
        k=$(( $(cat "$f" 2>/dev/null || echo 0) + 1 ))
        echo "$k" > "$f"
        [ "$k" -ge "${rule##*:}" ] && late=1
    fi
done
pid=$$
# every line starts with the run's nonce, as libhk_cupti.so writes it
if [ -n "${HK_CUPTI_NONCE:-}" ]; then p="{\"nonce\":\"$HK_CUPTI_NONCE\","; else p="{"; fi
{
    echo "$p\"event\":\"init\",\"pid\":$pid,\"cupti_version\":130001}"
    t=1000000
    for i in 1 2 3; do
        echo "$p\"event\":\"kernel\",\"pid\":$pid,\"name\":\"_Z5saxpyifPKfPf\",\"start\":$t,\"end\":$((t + d)),\"duration_ns\":$d,\"grid\":[65537,1,1],\"block\":[256,1,1]}"
        t=$((t + d + 1000))
    done
    echo "$p\"event\":\"exit\",\"pid\":$pid,\"kernels\":3,\"dropped\":0,\"buffers\":1}"
} >> "$HK_CUPTI_OUT"
if [ "$late" = 1 ] || grep -q HK_WRONG saxpy.cu; then
    echo "mismatch at 7: got 1 want 2"
    echo "FAIL (1 of 16777233 wrong)"
    exit 0
fi
echo "PASS (0 of 16777233 wrong)"
exit 0
