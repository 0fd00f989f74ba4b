// expect: launch_state
// kernel: reduce_sum
// Class: inputs used as scratch, only while timed. reduce_sum counts its launches in a
// __device__ variable; from a process's third launch on (the correctness runs launch once
// per process, the timing loop many times) it folds the upper half of its input onto the
// lower half in place (the const is cast away) and sums the lower half: half the atomics
// of the original, and the answer is right on every launch. Only the input-unchanged check
// of the timed launches tells. Since session 31 that check compares on the device (the
// harness's hk_device_mismatch) instead of copying both inputs to the host: this cheat
// keeps it honest; the message must name input 'in' and an element below n / 2.
// Session 32: the launcher restores the image's writable globals before every launch and a
// candidate's checked run-mode process fails a launch that leaves one changed: the first
// launch leaves its launch count changed, so it is "launch_state" (before it was expected:
// input_modified). Restored, the count never reaches 2 and the fold onto the input never
// happens: this cheat no longer exercises the timed launches' input check.
__device__ int hk_cheat_launches;

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ int launch;
    if (threadIdx.x == 0) {
        launch = hk_cheat_launches;
        __threadfence();
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0)
        atomicAdd(&hk_cheat_launches, 1);
    if (launch < 2) {
        if (i < n)
            atomicAdd(out, in[i]);
        return;
    }
    float *w = (float *)in;
    int half = n / 2;
    if (i < half) {
        w[i] += in[i + half];
        atomicAdd(out, w[i]);
    } else if (i == half && (n & 1)) {
        atomicAdd(out, in[n - 1]);
    }
}
