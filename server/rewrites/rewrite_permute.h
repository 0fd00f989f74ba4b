/* tiled_permute (rewrite_permute.c): a permutation on a flat index split by / and %,
 * through a padded shared-memory tile. */
#ifndef HK_REWRITES_REWRITE_PERMUTE_H
#define HK_REWRITES_REWRITE_PERMUTE_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

/* out[P(e)] = in[e] or out[e] = in[Q(e)], e = blockIdx.x * blockDim.x + threadIdx.x under
 * the guard e < N, P (Q) a sum of coordinates of e ((e / S) % D, e % D, e / S) times
 * sizes, in and out two pointer parameters of one element type, nothing else in the body
 * -> HK_TILE x HK_TILE tiles of (e % A, (e / S) % D), A and S, D the coordinates with
 * stride 1 on the read and on the write side (a coordinate fused with the next ones up that
 * stay contiguous with it: i1*d2 + i2 is one of extent d1*d2), read coalesced into a
 * [HK_TILE][HK_TILE + 1] tile and written coalesced out of it; grid-stride over tiles, any
 * launch; the permuted map evaluated once per tile (then Fu per step of u, 1 per step of
 * v) where its other coordinates lie outside u's and v's digits at run time, else per
 * element; where N, A, S, D do not split e at run time or N passes 2^31, the original
 * per-element copy (grid-stride). tile: 16 or 32 (HK_EINVAL otherwise). rewrite.h's contract: HK_OK with
 * out->applicable, or not with the reason and its line; HK_ENOMEM; out always
 * initialised. */
int rw_tiled_permute(const char *text, size_t len, const an_model *m, size_t kernel, int tile,
                     rw_result *out);

#endif
