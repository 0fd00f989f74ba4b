// Probe: a 2D heat step with the block size a BLOCK_SIZE macro in the index (no blockDim),
// the grid sized by #defines, in-place ping-pong left to the host (two buffers, swapped).
#define NX 4096
#define NY 4096
#define BLOCK_SIZE 16
#define CX 0.1f
#define CY 0.1f

__global__ void sp_heat2d_tile(const float *Told, float *Tnew)
{
    int ix = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    int iy = blockIdx.y * BLOCK_SIZE + threadIdx.y;
    if (ix > 0 && ix < NX - 1 && iy > 0 && iy < NY - 1) {
        int c = iy * NX + ix;
        Tnew[c] = Told[c] + CX * (Told[c + 1] - 2.0f * Told[c] + Told[c - 1])
                          + CY * (Told[c + NX] - 2.0f * Told[c] + Told[c - NX]);
    }
}
