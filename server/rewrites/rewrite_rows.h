/* The general thread-per-row -> warp-per-row rewrite (issue 5, "Rewrites"): a kernel that
 * gives each thread one matrix row and loops over the columns (row sums, norms, scaled
 * copies) reads addresses a row apart within a warp; this rewrite hands each row to a warp
 * whose lanes stride the columns, so the loads coalesce. Pure function on text, any
 * thread (once an_grammar_check has run). */
#ifndef HK_ENGINE_REWRITE_ROWS_H
#define HK_ENGINE_REWRITE_ROWS_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

/* One thread per row → one warp (32 lanes) per row, rows grid-strided over all warps of
 * the grid, so any grid and any block shape compute the same result.
 *
 * Recognized body: optional plain declarations, the row index
 * `[const] INT r = blockIdx.x * blockDim.x + threadIdx.x;` (any order, casts allowed), then
 * `if (r >= ROWS) return;` + row body, or `if (r < ROWS) { row body }`. Row-body statements:
 * declarations and assignments of per-row scalars, stores `p[...] = ...;` (index mentions
 * the row) and column loops `for (T c = 0; c < COLS; c++ | ++c | c += 1) STMT-or-BLOCK`.
 * Inside a loop: declarations of locals, `if`/`else`, `continue`, stores whose index
 * depends on c, and reductions into a per-row scalar: `acc += e;`, `acc -= e;`,
 * `acc = acc + e;` (acc declared before the loop with a zero initializer and not written
 * since, nor reduced in an earlier loop), and maxima and minima in any spelling
 * rwl_minmax_update reads: `acc = fmaxf(acc, e)` / fminf / fmax / fmin / max / min in
 * either argument order, `if (e > acc) acc = e;` (braces, `acc < e`, >= and <= too),
 * `acc = e > acc ? e : acc;` (any initial value: those are idempotent; the if and ?: forms
 * are combined with fmaxf/fminf, fmax/fmin or max/min by the accumulator's type, exact
 * also for NaN as rewrite_lex.h says).
 *
 * New body: each column loop runs `c = lane; c < COLS; c += width`; after a loop each of
 * its accumulators is combined across the warp with __shfl_xor_sync (width 32, so a HIP
 * wavefront of 64 holds two independent 32-lane groups), every lane gets the total; stores
 * outside loops run on lane 0 only. Partial warps (blocks that are not a multiple of 32
 * threads) stride by the lanes that exist and broadcast lane 0's total. The order of
 * floating-point additions changes.
 *
 * float4 path: a column loop whose every memory access is a load `P[E + c]` / `P[c + E]` /
 * `P[c]` or a statement-level store `P[E + c] = ...;` through a pointer to float (a
 * parameter or a row-level `[const] float *p`), E free of c and of the loop's locals and
 * not a bare constant, and whose body does not branch (no if, ?:, &&, ||, continue), is
 * emitted as `if (all &P[E] are 16-byte aligned) { float4 loop over COLS / 4 per lane,
 * unrolled 4, the body once per component, each stream loaded and stored once as float4;
 * scalar tail } else { scalar lane loop }`, chosen per row. The one branch of an if or ?:
 * maximum is allowed (it picks a register). A stream read after it is stored in the same
 * iteration reads the stored component, and a statement-level `P[E + c] op= x;` loads,
 * updates and stores its float4. Loops that share stored memory (stored in one, accessed
 * at the same index in another) test every base of all of them, so they choose alike and
 * each lane keeps its columns; when that test cannot be the same at each (another bound, a
 * name declared between them or changed) or one of them is scalar only, all of them keep
 * the scalar lane map. Other loops stay scalar only; the description names each and why.
 *
 * Not applicable (out->description says why) when the body holds atomics, barriers,
 * shared memory, shuffles, other uses of threadIdx/blockIdx/blockDim/gridDim, returns
 * or breaks besides the guard, nested loops, a loop that writes a row variable other than
 * as a reduction, an accumulator read or written elsewhere in its loop, a sum whose
 * accumulator does not start at zero, a store in a loop whose index does not depend on
 * c, or memory written in one place and read elsewhere in the row with another index
 * (another lane may own it) or outside the column loops. Memory stored in a column loop
 * and re-read at the same index, in that loop or a later one (`y[c] = expf(...); s +=
 * y[c];` then `y[c] /= s;`), is the same lane's element and is accepted.
 *
 * Contract (as rewrite.h's): text/len is the source that model m (borrowed) was built
 * from; kernel indexes m->funcs and must be an AN_KERNEL. Returns HK_OK with
 * out->applicable true (the whole new source in out->text) or false (the reason);
 * HK_EINVAL for bad arguments; HK_ENOMEM; HK_EPARSE when the result does not re-analyse
 * cleanly (out not applicable, with the reason). out is always initialised; free it with
 * rw_result_free. */
int rw_warp_rows(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out);

/* The same recognition with row_threads threads per row (32, 64, 128, 256, 512 or 1024;
 * else HK_EINVAL): 32 is rw_warp_rows; more is a BLOCK per row (registry parameter
 * `row_threads` of warp_rows), for rows long and few, where a warp per row leaves most of
 * the GPU's resident warps idle (llm.c's softmax: 2048 rows of 50257 columns). Rows are
 * grid-strided over the blocks (`for (row = blockIdx.x; row < ROWS; row += gridDim.x)`), so
 * any grid is correct; the whole block is the row's group whatever its size (up to 1024), so
 * any block is correct too, and row_threads is the block the body is written for (the
 * descriptor's launch_block: the search launches it so). Column loops stride by every thread
 * of the block (float4 path as above); each reduction after a loop is combined by the
 * warp's butterfly (__shfl_xor_sync, partial last warp masked), lane 0 of each warp writes
 * one `__shared__` slot (8 bytes: any shuffle type, a double sum stays double), a
 * __syncthreads, every thread folds the slots in warp order (all get the same total), and a
 * second __syncthreads before the slots are reused; all reductions after one loop share the
 * two barriers. Per-row stores run on thread 0. The block form's float4 loops peel to the
 * rows' 16-byte boundary (the bases need only the same address mod 16), and a store that a
 * later loop with the same header only updates in place (`y[c] = E; s += y[c];` then
 * `y[c] /= s;`, E pure math of names unchanged until then) is kept in a register and
 * recomputed by the update (`y[c] = ((float)(E)) / (s);`): the same values, one write and one
 * read of each row element less. Through the registry (with a spec and the
 * device's SM count and warps per SM in the context) it also refuses, naming the bound and
 * its line, a kernel whose rows at the spec's first size are at least the device's resident
 * warps (a warp per row fills it without barriers) or whose column loop is shorter than
 * row_threads. */
int rw_block_rows(const char *text, size_t len, const an_model *m, size_t kernel, unsigned row_threads,
                  rw_result *out);

#endif
