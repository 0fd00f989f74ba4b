// For each query point (one per thread) the nearest of m reference points, brute force:
// every thread of a block reads the same ref[3 * k ...] in the same iteration, each warp
// its own load of it, before a compare-and-swap that depends on the load.
__global__ void nearest(const float *query, const float *ref, float *dist, int *idx, int n, int m)
{
    bool hk_on = true;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (hk_on && (i >= n)) hk_on = false;
    float qx = hk_on ? (query[3 * i]) : float(), qy = hk_on ? (query[3 * i + 1]) : float(), qz = hk_on ? (query[3 * i + 2]) : float();
    float best = 1e30f;
    int besti = 0;
    {
    alignas(16) __shared__ float hk_tile0[256];
    alignas(16) __shared__ float hk_tile1[256];
    alignas(16) __shared__ float hk_tile2[256];
    bool hk_done = false;
    if (__syncthreads_or(hk_on))
    for (int hk_k0 = 0; hk_k0 < m; hk_k0 += 256) {
      for (int hk_l = (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)); hk_l < 256; hk_l += (int)(blockDim.x * blockDim.y * blockDim.z)) {
        int k = hk_k0 + hk_l;
        if (k < m) {
          hk_tile0[hk_l] = ref[3 * k];
          hk_tile1[hk_l] = ref[3 * k + 1];
          hk_tile2[hk_l] = ref[3 * k + 2];
        }
      }
      __syncthreads();
      if (hk_on && !hk_done) {
        bool hk_full;
        { int k = hk_k0 + (256 - 1); hk_full = (k < m); }
        if (hk_full) {
          for (int hk_g = 0; hk_g < 256; hk_g += 4) {
            float hk_r0[4];
            float hk_r1[4];
            float hk_r2[4];
#pragma unroll
            for (int hk_u = 0; hk_u < 4; ++hk_u) {
              hk_r0[hk_u] = hk_tile0[hk_g + hk_u];
              hk_r1[hk_u] = hk_tile1[hk_g + hk_u];
              hk_r2[hk_u] = hk_tile2[hk_g + hk_u];
            }
#pragma unroll
            for (int hk_u = 0; hk_u < 4; ++hk_u) {
              int k = hk_k0 + (hk_g + hk_u);
              {
        float x = hk_r0[hk_u], y = hk_r1[hk_u], z = hk_r2[hk_u];
        float d = (qx - x) * (qx - x) + (qy - y) * (qy - y) + (qz - z) * (qz - z);
        if (d < best) {
            best = d;
            besti = k;
        }
    }
            }
          }
        } else
        for (int hk_j = 0; hk_j < 256; ++hk_j) {
          int k = hk_k0 + hk_j;
          if (!(k < m))
            break;
          {
        float x = hk_tile0[hk_j], y = hk_tile1[hk_j], z = hk_tile2[hk_j];
        float d = (qx - x) * (qx - x) + (qy - y) * (qy - y) + (qz - z) * (qz - z);
        if (d < best) {
            best = d;
            besti = k;
        }
    }
        }
      }
      if (!__syncthreads_or(hk_on && !hk_done))
        break;
    }
    }
    if (hk_on) {
    dist[i] = best;
    idx[i] = besti;
    }
}
