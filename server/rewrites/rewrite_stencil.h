/* stencil_window (rewrite_stencil.c): a stencil kernel of one output per thread becomes one
 * whose threads each compute K outputs along the slowest axis, reading every input element
 * they need once into a register window. Pure function on text, any thread. */
#ifndef HK_REWRITES_STENCIL_H
#define HK_REWRITES_STENCIL_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

/* Rewrites kernel (an index into m->funcs, an AN_KERNEL) of text/len (m built from it). The
 * kernel model must call it a stencil, convolution or pooling kernel whose output element
 * moves with the global thread index along y (2-D) or z (3-D), whose slowest-axis
 * coordinate reaches the kernel only as blockIdx*blockDim+threadIdx (or blockIdx alone),
 * no __syncthreads or
 * __shared__ memory, and at least one input (never written) read at the output's element
 * plus constant offsets that differ along the slow axis. The body then runs k = 0..K-1 as
 * the virtual thread k of a block K times taller (threadIdx.a*K+k, blockDim.a*K), or of a
 * grid K times longer (blockIdx.a*K+k) when the block does not extend along that axis;
 * `return` ends one virtual thread; each such read becomes a lookup in a per-thread window
 * of K+2r rows, loaded the first time a virtual thread reads it. When an upper bound on the
 * coordinate guards every global access, the result is exact under the unchanged launch
 * (the surplus rows fail the bound) and under a grid divided by K along the axis; else the
 * virtual threads past the launched grid are skipped, exact under the unchanged launch
 * only (the description says which). k is 2..16. HK_OK (out->applicable or the reason), HK_EINVAL, HK_ENOMEM,
 * HK_EPARSE as rewrite.h says. */
int rw_stencil_window(const char *text, size_t len, const an_model *m, size_t kernel, int k,
                      rw_result *out);

/* The same for a target: hip true emits HIP's device abort() where the tiled spelling's
 * block check stops a launch (CUDA: __trap()); rw_stencil_window is hip false. */
int rw_stencil_window_for(const char *text, size_t len, const an_model *m, size_t kernel, int k,
                          bool hip, rw_result *out);

#endif
