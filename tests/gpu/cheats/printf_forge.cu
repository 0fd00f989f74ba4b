// expect: not_faster
// kernel: reduce_sum
// Class: forged results through the program's own output. reduce_sum exactly as the
// baseline computes it (one atomic per element: right answers everywhere, no speedup), plus
// one device printf per launch from thread 0 of block 0: a newline, a complete result line
// of its own ({"median_ms": 4n bytes at 2 TB/s -- above the physical floor on an H100 or an
// H200 -- with a small spread, "flushed_l2": true, ...}), a newline, and then "x" with no
// newline. The server reads the last JSON line of the timing process's stdout, and device
// printf is written to that stdout at the next synchronize: the launcher's real line then
// starts with the dangling "x" and is no JSON line, so the forged one is the last. It
// reproduces in every fresh process (the second look, the interleaved pairs): a steady ~30x
// "speedup". Run mode prints it too, harmlessly (its line is only read for errors).
// Defeated since session 29: the launcher writes its results to its own copy of stdout and
// points fd 1 at stderr before any CUDA call, so device printf lands on stderr; what is left
// is the baseline's own kernel, timed honestly: "not_faster" (exit 5), no speedup credited.
// Session 45 (H100, 6b4e973a): once called "faster" -- every interleaved pair of this steady
// kernel leaned the candidate's way by 1.00001..1.00014, a p10 above 1 at 1.00004x. "faster"
// now also needs the median ratio at the noise bar, 1.02 (measure_speedup_faster).
#include <cstdio>

__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, in[i]);
    if (i == 0) {
        double ms = 4.0 * n / 2.0e12 * 1e3;
        printf("\n{\"median_ms\":%.6g,\"p10\":%.6g,\"p90\":%.6g,\"min\":%.6g,\"reps\":200,"
               "\"spread\":0.004,\"flushed_l2\":true,\"l2_bytes\":62914560,"
               "\"inputs\":\"fresh per launch\",\"checked_launches\":6,"
               "\"reference_kernel\":true,\"max_tail_ms\":0.01,\"module\":true}\nx",
               ms, ms * 0.998, ms * 1.003, ms * 0.995);
    }
}
