// Spec inference on two launch patterns from session 29's holdout batch of wild kernels,
// written here from scratch: a __constant__ table of structs of like fields that the program
// fills tile by tile, and a tile's base that the launcher's loop passes (0 on its first
// pass). Read by tests/unit/test_spec_infer_holdout.c.
#define PER_TILE 512

struct wave {
    float kx;
    float ky;
    float amp;
};

__constant__ wave waves[PER_TILE];

// Each thread adds this tile's waves at its point; the tile ends at PER_TILE waves or at
// nwaves, counted from base.
__global__ void add_waves(int nwaves, int base, const float *px, const float *py, float *re)
{
    int p = blockIdx.x * 128 + threadIdx.x;
    float x = px[p], y = py[p], r = re[p];
    for (int w = 0; w < PER_TILE && base < nwaves; w++, base++)
        r += waves[w].amp * __cosf(waves[w].kx * x + waves[w].ky * y);
    re[p] = r;
}

void add_all(int nwaves, int npoints, const wave *all, const float *px, const float *py, float *re)
{
    int tiles = (nwaves + PER_TILE - 1) / PER_TILE;
    for (int t = 0; t < tiles; t++) {
        int first = t * PER_TILE;
        int count = nwaves - first < PER_TILE ? nwaves - first : PER_TILE;
        cudaMemcpyToSymbol(waves, all + first, count * sizeof(wave));
        add_waves<<<npoints / 128, 128>>>(nwaves, first, px, py, re);
    }
}
