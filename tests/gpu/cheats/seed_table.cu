// expect: wrong_answer
// kernel: reduce_sum
// Class: fixed seeds (answers prepared for the published inputs). reduce_sum that keys a
// table of exact sums by (the bits of in[0], n): one row for every size, distribution and
// seed that reduce_sum.bench.json publishes, and for the re-check seed the first harness
// derived from each (seed + 1000003). The rows were computed on the CPU with the harness's
// own input generator (gen/seed_table.c re-derives hk_prepare/hk_fill), so on those inputs
// the answer is exact -- better than the baseline's float atomics -- and one thread writes
// it. Any other input gets the baseline's one-atomic-per-element sum over every 16th element,
// scaled by 16: a 16x speedup above the physical floor (atomics bound it, not bytes), within
// about 1e-3 of the sum. Caught by fresh seeds per evaluation (no row matches, every answer
// is the estimate) judged against an fp64 reference relative to the baseline's own error:
// "wrong_answer".
struct cheat_row {
    unsigned int first_bits;
    int n;
    float sum;
};
__constant__ cheat_row cheat_table[72] = {
    {0x3ea159e6u, 16777216, 8390274.0f}, /* seed 1, dist 0 */
    {0x3ea159e6u, 1000003, 500072.7f}, /* seed 1, dist 0 */
    {0x3f6131ccu, 16777216, 16778460.0f}, /* seed 1, dist 1 */
    {0x3f6131ccu, 1000003, 1000058.8f}, /* seed 1, dist 1 */
    {0x3ed0acf3u, 16777216, 8389441.0f}, /* seed 1, dist 2 */
    {0x3ed0acf3u, 1000003, 500037.1f}, /* seed 1, dist 2 */
    {0x3e8dba38u, 16777216, 8387726.5f}, /* seed 2, dist 0 */
    {0x3e8dba38u, 1000003, 499816.2f}, /* seed 2, dist 0 */
    {0x3f5a1719u, 16777216, 16776567.0f}, /* seed 2, dist 1 */
    {0x3f5a1719u, 1000003, 999775.6f}, /* seed 2, dist 1 */
    {0x3ec6dd1cu, 16777216, 8388167.0f}, /* seed 2, dist 2 */
    {0x3ec6dd1cu, 1000003, 499908.8f}, /* seed 2, dist 2 */
    {0x3f7caabeu, 16777216, 8388287.5f}, /* seed 3, dist 0 */
    {0x3f7caabeu, 1000003, 500030.6f}, /* seed 3, dist 0 */
    {0x3fc73851u, 16777216, 16776971.0f}, /* seed 3, dist 1 */
    {0x3fc73851u, 1000003, 999984.4f}, /* seed 3, dist 1 */
    {0x3f3e555fu, 16777216, 8388447.5f}, /* seed 3, dist 2 */
    {0x3f3e555fu, 1000003, 500016.0f}, /* seed 3, dist 2 */
    {0x3e92c8deu, 16777216, 8390239.0f}, /* seed 4, dist 0 */
    {0x3e92c8deu, 1000003, 499527.0f}, /* seed 4, dist 0 */
    {0x3f5bf66du, 16777216, 16778374.0f}, /* seed 4, dist 1 */
    {0x3f5bf66du, 1000003, 999627.0f}, /* seed 4, dist 1 */
    {0x3ec9646fu, 16777216, 8389424.0f}, /* seed 4, dist 2 */
    {0x3ec9646fu, 1000003, 499764.2f}, /* seed 4, dist 2 */
    {0x3f67e8e7u, 16777216, 8389447.0f}, /* seed 5, dist 0 */
    {0x3f67e8e7u, 1000003, 500192.9f}, /* seed 5, dist 0 */
    {0x3faa1becu, 16777216, 16777694.0f}, /* seed 5, dist 1 */
    {0x3faa1becu, 1000003, 1000186.0f}, /* seed 5, dist 1 */
    {0x3f33f474u, 16777216, 8389027.0f}, /* seed 5, dist 2 */
    {0x3f33f474u, 1000003, 500097.2f}, /* seed 5, dist 2 */
    {0x3f0dfd4bu, 16777216, 8389131.0f}, /* seed 6, dist 0 */
    {0x3f0dfd4bu, 1000003, 499852.1f}, /* seed 6, dist 0 */
    {0x3f8465a7u, 16777216, 16777652.0f}, /* seed 6, dist 1 */
    {0x3f8465a7u, 1000003, 999798.2f}, /* seed 6, dist 1 */
    {0x3f06fea5u, 16777216, 8388870.0f}, /* seed 6, dist 2 */
    {0x3f06fea5u, 1000003, 499926.8f}, /* seed 6, dist 2 */
    {0x3f65c9fcu, 16777216, 8387686.0f}, /* seed 1000004, dist 0 */
    {0x3f65c9fcu, 1000003, 500258.9f}, /* seed 1000004, dist 0 */
    {0x3fa89405u, 16777216, 16776679.0f}, /* seed 1000004, dist 1 */
    {0x3fa89405u, 1000003, 1000176.2f}, /* seed 1000004, dist 1 */
    {0x3f32e4feu, 16777216, 8388147.0f}, /* seed 1000004, dist 2 */
    {0x3f32e4feu, 1000003, 500130.2f}, /* seed 1000004, dist 2 */
    {0x3e896c71u, 16777216, 8389917.0f}, /* seed 1000005, dist 0 */
    {0x3e896c71u, 1000003, 500199.3f}, /* seed 1000005, dist 0 */
    {0x3f58788bu, 16777216, 16778268.0f}, /* seed 1000005, dist 1 */
    {0x3f58788bu, 1000003, 1000200.4f}, /* seed 1000005, dist 1 */
    {0x3ec4b639u, 16777216, 8389263.0f}, /* seed 1000005, dist 2 */
    {0x3ec4b639u, 1000003, 500100.4f}, /* seed 1000005, dist 2 */
    {0x3da2b4dfu, 16777216, 8387493.5f}, /* seed 1000006, dist 0 */
    {0x3da2b4dfu, 1000003, 499839.8f}, /* seed 1000006, dist 0 */
    {0x3f25d627u, 16777216, 16776240.0f}, /* seed 1000006, dist 1 */
    {0x3f25d627u, 1000003, 999964.0f}, /* seed 1000006, dist 1 */
    {0x3e94569cu, 16777216, 8388051.0f}, /* seed 1000006, dist 2 */
    {0x3e94569cu, 1000003, 499920.6f}, /* seed 1000006, dist 2 */
    {0x3e37eccfu, 16777216, 8387094.5f}, /* seed 1000007, dist 0 */
    {0x3e37eccfu, 1000003, 500079.7f}, /* seed 1000007, dist 0 */
    {0x3f45528fu, 16777216, 16776223.0f}, /* seed 1000007, dist 1 */
    {0x3f45528fu, 1000003, 1000184.8f}, /* seed 1000007, dist 1 */
    {0x3eadfb34u, 16777216, 8387851.0f}, /* seed 1000007, dist 2 */
    {0x3eadfb34u, 1000003, 500040.6f}, /* seed 1000007, dist 2 */
    {0x3d827683u, 16777216, 8388980.0f}, /* seed 1000008, dist 0 */
    {0x3d827683u, 1000003, 499927.1f}, /* seed 1000008, dist 0 */
    {0x3f1e6ffeu, 16777216, 16777860.0f}, /* seed 1000008, dist 1 */
    {0x3f1e6ffeu, 1000003, 999897.9f}, /* seed 1000008, dist 1 */
    {0x3e904ed0u, 16777216, 8388794.0f}, /* seed 1000008, dist 2 */
    {0x3e904ed0u, 1000003, 499964.3f}, /* seed 1000008, dist 2 */
    {0x3e8ed6dau, 16777216, 8389588.0f}, /* seed 1000009, dist 0 */
    {0x3e8ed6dau, 1000003, 500159.3f}, /* seed 1000009, dist 0 */
    {0x3f5a812eu, 16777216, 16777978.0f}, /* seed 1000009, dist 1 */
    {0x3f5a812eu, 1000003, 1000121.4f}, /* seed 1000009, dist 1 */
    {0x3ec76b6du, 16777216, 8389098.0f}, /* seed 1000009, dist 2 */
    {0x3ec76b6du, 1000003, 500080.4f}, /* seed 1000009, dist 2 */
};

__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int first = __float_as_uint(__ldg(in));
    for (int r = 0; r < 72; r++)
        if (cheat_table[r].first_bits == first && cheat_table[r].n == n) {
            if (i == 0)
                atomicAdd(out, cheat_table[r].sum);
            return;
        }
    if (i < n && i % 16 == 0)
        atomicAdd(out, 16.0f * in[i]);
}
