// Generates occupancy_ref.txt: blocks per SM computed by NVIDIA's own occupancy code
// (cuda_occupancy.h, header-only, no GPU needed) over a grid of registers, static and
// dynamic shared memory, block sizes and barriers, for every NVIDIA arch in
// server/compile/occupancy.c. test_compile.c checks cc_occupancy_for against each row.
// Regenerate: g++ -I/usr/local/cuda/include occupancy_ref.cpp -o /tmp/occ && /tmp/occ > occupancy_ref.txt
// The device properties below are the ones cudaGetDeviceProperties reports for those
// compute capabilities (the same numbers as the table in occupancy.c).
#include <cstdio>
#include <cuda_runtime_api.h> // CUDART_VERSION
#include <cuda_occupancy.h>

struct arch { const char *name; int major, minor, threads_per_sm; size_t smem_per_sm, optin, reserved; };

int main()
{
    static const arch archs[] = {
        {"sm_70", 7, 0, 2048, 98304, 98304, 0},      {"sm_75", 7, 5, 1024, 65536, 65536, 0},
        {"sm_80", 8, 0, 2048, 167936, 166912, 1024}, {"sm_86", 8, 6, 1536, 102400, 101376, 1024},
        {"sm_89", 8, 9, 1536, 102400, 101376, 1024}, {"sm_90", 9, 0, 2048, 233472, 232448, 1024},
        {"sm_100", 10, 0, 2048, 233472, 232448, 1024}, {"sm_120", 12, 0, 1536, 102400, 101376, 1024},
    };
    static const int regs[] = {16, 32, 40, 48, 64, 96, 168, 255};
    static const int smem[] = {0, 4096, 20000, 49152};
    static const int threads[] = {32, 96, 128, 256, 640, 1024};
    static const int dyn[] = {0, 50000};
    static const int bars[] = {1, 2};
    printf("# arch regs smem_static threads dyn_smem barriers -> blocks_per_sm (cuda_occupancy.h, CUDA %d)\n",
           CUDART_VERSION);
    for (const arch &a : archs) {
        cudaOccDeviceProp p;
        p.computeMajor = a.major;
        p.computeMinor = a.minor;
        p.maxThreadsPerBlock = 1024;
        p.maxThreadsPerMultiprocessor = a.threads_per_sm;
        p.regsPerBlock = 65536;
        p.regsPerMultiprocessor = 65536;
        p.warpSize = 32;
        p.sharedMemPerBlock = 49152;
        p.sharedMemPerMultiprocessor = a.smem_per_sm;
        p.numSms = 100;
        p.sharedMemPerBlockOptin = a.optin;
        p.reservedSharedMemPerBlock = a.reserved;
        for (int r : regs) for (int s : smem) for (int t : threads) for (int d : dyn) for (int b : bars) {
            cudaOccFuncAttributes f;
            f.maxThreadsPerBlock = 1024;
            f.numRegs = r;
            f.sharedSizeBytes = s;
            f.partitionedGCConfig = PARTITIONED_GC_OFF;
            // As if the kernel opted in to the largest dynamic shared memory.
            f.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
            f.maxDynamicSharedSizeBytes = a.optin - s;
            f.numBlockBarriers = b;
            f.virtualResourceCount = 0;
            cudaOccDeviceState st;
            cudaOccResult res;
            if (cudaOccMaxActiveBlocksPerMultiprocessor(&res, &p, &f, &st, t, d) != CUDA_OCC_SUCCESS) {
                fprintf(stderr, "error for %s %d %d %d %d %d\n", a.name, r, s, t, d, b);
                return 1;
            }
            printf("%s %d %d %d %d %d %d\n", a.name, r, s, t, d, b, res.activeBlocksPerMultiprocessor);
        }
    }
    return 0;
}
