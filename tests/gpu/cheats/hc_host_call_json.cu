// expect: host_code
// kernel: reduce_sum
// Class: host code in the candidate (the HK_HOST_CALL_<kernel> hook, printing a made-up
// time). The first harness let a candidate replace its kernel by a host function (the hook
// meant for cuBLAS substitutions): define HK_HOST_CALL_reduce_sum and hk_host_reduce_sum,
// and the timing loop calls that function between its two events. This one launches the
// honest kernel; in `--mode time`, once past the warm-up, it prints a complete result line
// with a made-up median of 1 us and leaves through _exit(0) before the loop times anything,
// so the line the server reads is the fake. Caught before any compile: a #define and a
// host function the baseline does not have ("host_code"). The trusted launcher has no hook.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, in[i]);
}

#define HK_HOST_CALL_reduce_sum 1
void hk_host_reduce_sum(const float *in, float *out, int n)
{
    static int calls;
    reduce_sum<<<(n + 255) / 256, 256>>>(in, out, n);
    char cmd[4096] = "";
    FILE *f = fopen("/proc/self/cmdline", "rb");
    size_t len = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
    if (f)
        fclose(f);
    for (size_t k = 0; k < len; k++)
        if (!cmd[k])
            cmd[k] = ' ';
    if (strstr(cmd, "--mode time") && ++calls > 3) {
        cudaDeviceSynchronize();
        printf("{\"median_ms\":0.001,\"p10\":0.001,\"p90\":0.001,\"min\":0.001,\"reps\":100,"
               "\"spread\":0.01,\"flushed_l2\":true,\"l2_bytes\":62914560,\"check_seed\":1000004,"
               "\"block\":[256,1,1],\"grid\":[65536,1,1]}\n");
        fflush(stdout);
        _exit(0);
    }
}
