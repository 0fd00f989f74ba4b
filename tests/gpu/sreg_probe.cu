// Which PTX special registers that no launch constant decides, and that the referee's PTX scan
// does not refuse (kimage.c refuses the clocks, %globaltimer, %pm*, %gridid), read something a
// kernel could tell a sanitized run from a plain one by, or one launch from the next? Prints,
// for two launches in a row, %envreg0..31, the reserved shared memory window
// (%reserved_smem_offset_begin/end/cap), %total_smem_size, %aggr_smem_size,
// %dynamic_smem_size, %current_graph_exec, %nsmid and the lowest and highest %smid the grid
// ran on. Run it plain and under compute-sanitizer (tests/gpu/session.sh's probes phase does
// both) and compare: a line that differs names a register a candidate could branch on to
// behave only when unwatched (the clockless way of tests/gpu/cheats/pragma_string_clock.cu),
// which the PTX scan should then refuse as it refuses %gridid. Only prints (exit 0; 77
// without a GPU). Session 51 (helper red, issue 12): written on a machine without a GPU.
//
//   nvcc -std=c++17 -arch=sm_90 -Iinclude -o /tmp/sreg_probe tests/gpu/sreg_probe.cu && /tmp/sreg_probe
//   compute-sanitizer --tool memcheck /tmp/sreg_probe
#include "hk_harness.h"

enum { NENV = 32, NOTHER = 8, NV = NENV + NOTHER + 2 };

#define ENVREG(k) asm volatile("mov.u32 %0, %%envreg" #k ";" : "=r"(v[k]))

static __global__ void read_sregs(unsigned long long *out)
{
    extern __shared__ unsigned dyn[];
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    atomicMin(&out[NENV + NOTHER], (unsigned long long)smid);
    atomicMax(&out[NENV + NOTHER + 1], (unsigned long long)smid);
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    unsigned v[NENV];
    ENVREG(0); ENVREG(1); ENVREG(2); ENVREG(3); ENVREG(4); ENVREG(5); ENVREG(6); ENVREG(7);
    ENVREG(8); ENVREG(9); ENVREG(10); ENVREG(11); ENVREG(12); ENVREG(13); ENVREG(14); ENVREG(15);
    ENVREG(16); ENVREG(17); ENVREG(18); ENVREG(19); ENVREG(20); ENVREG(21); ENVREG(22); ENVREG(23);
    ENVREG(24); ENVREG(25); ENVREG(26); ENVREG(27); ENVREG(28); ENVREG(29); ENVREG(30); ENVREG(31);
    for (int k = 0; k < NENV; k++)
        out[k] = v[k];
    unsigned a, b, c, d, e, f, g;
    unsigned long long ge;
    asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(a));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(b));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(c));
    asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(d));
    asm volatile("mov.u32 %0, %%aggr_smem_size;" : "=r"(e));
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(f));
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(g));
    asm volatile("mov.u64 %0, %%current_graph_exec;" : "=l"(ge));
    unsigned long long o[NOTHER] = {a, b, c, d, e, f, g, ge};
    for (int k = 0; k < NOTHER; k++)
        out[NENV + k] = o[k];
    dyn[0] = 0;
}

int main(void)
{
    static const char *const names[NOTHER] = {
        "reserved_smem_offset_begin", "reserved_smem_offset_end", "reserved_smem_offset_cap",
        "total_smem_size", "aggr_smem_size", "dynamic_smem_size", "nsmid", "current_graph_exec"};
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("skipped: no GPU\n");
        return 77;
    }
    HK_CHECK(cudaSetDevice(0));
    unsigned long long *d = NULL, h[2][NV];
    HK_CHECK(cudaMalloc((void **)&d, sizeof h[0]));
    for (int l = 0; l < 2; l++) {
        HK_CHECK(cudaMemset(d, 0, sizeof h[0]));
        HK_CHECK(cudaMemset(d + NENV + NOTHER, 0xff, sizeof(unsigned long long))); /* min */
        read_sregs<<<264, 128, 1024>>>(d);
        HK_CHECK(cudaGetLastError());
        HK_CHECK(cudaMemcpy(h[l], d, sizeof h[l], cudaMemcpyDeviceToHost));
    }
    for (int k = 0; k < NENV; k++)
        printf("envreg%-2d %#llx %#llx%s\n", k, h[0][k], h[1][k],
               h[0][k] != h[1][k] ? "  (differs between launches)" : "");
    for (int k = 0; k < NOTHER; k++)
        printf("%-26s %#llx %#llx%s\n", names[k], h[0][NENV + k], h[1][NENV + k],
               h[0][NENV + k] != h[1][NENV + k] ? "  (differs between launches)" : "");
    printf("smid range %llu..%llu, %llu..%llu\n", h[0][NV - 2], h[0][NV - 1], h[1][NV - 2],
           h[1][NV - 1]);
    HK_CHECK(cudaFree(d));
    return 0;
}
