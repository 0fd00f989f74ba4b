// For each point (one per thread) the nearest of m lines through the origin, each given by
// its angle: every thread computes the same cosf/sinf of line k in the same iteration.
__global__ void nearest_line(const float *pts, const float *angle, float *dist, int *idx, int n, int m)
{
    bool hk_on = true;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (hk_on && (i >= n)) hk_on = false;
    float x = hk_on ? (pts[2 * i]) : float(), y = hk_on ? (pts[2 * i + 1]) : float();
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
          hk_tile0[hk_l] = angle[k];
          {
            float hk_c0;
            float hk_c1;
float a = angle[k];
float c = cosf(a);
hk_c0 = c;
float s = sinf(a);
hk_c1 = s;
            hk_tile1[hk_l] = hk_c0;
            hk_tile2[hk_l] = hk_c1;
          }
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
        float a = hk_r0[hk_u];
        float c = hk_r1[hk_u], s = hk_r2[hk_u];
        float d = fabsf(x * s - y * c);
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
        float a = hk_tile0[hk_j];
        float c = hk_tile1[hk_j], s = hk_tile2[hk_j];
        float d = fabsf(x * s - y * c);
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
