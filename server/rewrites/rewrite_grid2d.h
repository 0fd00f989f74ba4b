/* The grid_stride_2d rewrite: a 2-D elementwise kernel whose thread indices come from the x
 * and y axes becomes one grid-stride loop over all rows x columns, with the index that is
 * contiguous in memory fastest, so neighbouring threads touch neighbouring addresses
 * whichever axis the launch gave that index. Same contract as rewrite.h. */
#ifndef HK_ENGINE_REWRITE_GRID2D_H
#define HK_ENGINE_REWRITE_GRID2D_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

/* Rewrites the shape
 *     int r = blockIdx.x * blockDim.x + threadIdx.x;   (x and y in either order, any
 *     int c = blockIdx.y * blockDim.y + threadIdx.y;    integer type, the usual spellings)
 *     [plain declarations]
 *     if (r < R && c < C) { body }      or      if (r >= R || c >= C) return; body
 * (one or several `if (...) return;` guards) into one grid-stride loop over the R x C
 * elements, correct for any grid and block shape (x, y and z of both), whose fast index is
 * the one that appears unscaled in the body's subscripts (`A[r * W + c]`: c; `A[c * H + r]`:
 * r). The loop runs over work units of one fast position and a strip of HK_STRIP (16,
 * a constexpr tunable) slow positions: threads side by side take neighbouring fast positions
 * (coalesced) and each walks its strip in order, so the rows a stencil reads next to the
 * current one were read a step before and are still in L1 (one division per strip, none
 * per element). Plain declarations between the indices and the check that do
 * not involve the indices are hoisted above the loop; those that do move into it. Declarations
 * `T x = <expression of the indices>` (also pointers `A + r * W`) count where x is used.
 * Elementwise on contiguous rows -- the body is one store `P[s * W + f] = EXPR;`, W the fast
 * bound, and every other use of the indices is a float array subscript of that same element
 * (in any of its spellings) -- the loop is instead flat over the R * W elements in memory
 * order, four at a time through float4 loads and stores when every array is 16-byte
 * aligned, then one at a time (the rest, or all of them when unaligned).
 * A stencil -- every use of a pointer parameter in the per-element code is a float array
 * element (s + ds) * W + (f + df) with |ds|, |df| <= 2 (s, f the slow and fast index, in
 * any spelling the index analysis reads, aliases included), some read is a neighbour
 * ((ds, df) != (0, 0)), writes are statements `P[e] op= v;` of the element itself, and an
 * array that is written is read only at the element -- gets the register-window form
 * instead: units of 4 fast x HK_ROWS (4, a constexpr tunable) slow positions, grid-strided
 * with neighbouring threads on neighbouring units along the fast index. A unit whose
 * windows lie inside the grid loads each read array's window (rows s0 - ds_max ..
 * s0 + HK_ROWS - 1 + ds_max, columns f0 - df_max .. f0 + 3 + df_max) once into registers,
 * the 4 middle values of a row as one float4 when W % 4 == 0 and every array is 16-byte
 * aligned (checked at run time); evaluates the original code per point with the indices
 * bound to the point and each read replaced by its register (`return;` ending the point);
 * stages the stores (value and written flag) and writes a row of 4 as one float4 when all
 * 4 were written and the rows are aligned, else point by point. Units at an edge of the
 * grid (their windows would leave it: the first and last rows and columns, a ragged last
 * column of units or rows) run the original code per point from memory, so nothing
 * outside the grid is read unless the original reads it. Declarations of aliases whose
 * every use became a register are dropped from the window path (nvcc warns otherwise).
 * Same arithmetic per element in the same order: bit-identical results. A kernel the
 * window form does not take gets the strips loop, with the reason at the end of
 * out->description ("(no register windows: ...)").
 * text/len: the source model m (borrowed) was built from; kernel: an index into m->funcs
 * that must be an AN_KERNEL. Returns HK_OK with out->applicable true (out owns the new text:
 * rw_result_free) or false with the reason in out->description: another shape, a 1-D or 3-D
 * kernel, thread coordinates used outside the two index declarations, subscripts that
 * disagree on the contiguous index (a transpose: rw_tiled_transpose's job) or cannot be read
 * (`A[r * c]`, `A[f(r)]`, `A[idx[r]]`), no subscript that combines both indices,
 * synchronization, shared memory, atomics, warp operations, a loop (a GEMM or a reduction per
 * element, whose 2-D blocks share reads in cache), goto/break/continue or a return with a
 * value in the per-element code (a plain `return;` there ends one element: it becomes
 * `continue;`), a change of an index, of a bound or of state declared outside the
 * per-element code, a bound that depends on an index or reads memory, and "already" for the
 * rewrite's own output. HK_EINVAL (bad arguments, not a kernel, a span outside the text),
 * HK_ENOMEM, HK_ETOOBIG (result over AN_TEXT_MAX_BYTES), HK_EPARSE (the result would not
 * parse: out says why). Pure function, any thread once an_grammar_check has run. */
int rw_grid_stride_2d(const char *text, size_t len, const an_model *m, size_t kernel,
                      rw_result *out);

#endif
