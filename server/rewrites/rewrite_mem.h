/* Engine v2 rewrites of one kernel, part 1: memory access (vectorized loads/stores with a
 * scalar tail and a run-time alignment check; read-only loads through __ldg), loops
 * (#pragma unroll) and arithmetic (fast intrinsics). Same contract as rewrite.h: edits on
 * the analysis model's spans, the result re-analysed, "not applicable" with a reason as a
 * normal outcome. Pure functions on text, any thread once an_grammar_check has run. */
#ifndef HK_ENGINE_REWRITE_MEM_H
#define HK_ENGINE_REWRITE_MEM_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

/* Every rewrite below: text/len is the source that model m (borrowed) was built from;
 * kernel is an index into m->funcs that must be an AN_KERNEL. Returns HK_OK with
 * out->applicable true (new text, out owns it: rw_result_free) or false (out->description
 * says why); HK_EINVAL for bad arguments (index out of range, not a kernel, a span outside
 * the text, a width or factor not listed); HK_ENOMEM; HK_ETOOBIG when the result would
 * exceed AN_TEXT_MAX_BYTES; HK_EPARSE when the rewritten text no longer parses cleanly (out
 * is then not applicable, with the reason). Applying a rewrite to its own result is never
 * applicable again, and the reason contains "already". */

/* Vectorizes an elementwise kernel: every pointer parameter the per-element code touches
 * is accessed only as p[i] (i the thread's 1D index), in the form
 *     int i = blockIdx.x * blockDim.x + threadIdx.x;  if (i < n) { ... }
 * or `if (i >= n) return; ...`, or an existing grid-stride loop over i. Other spellings
 * of the same: the index in any integer type, the product either way round or in
 * parentheses, through unchanged top-level temporaries (`int tid = threadIdx.x;`); a loop
 * macro defined once in the file as such a for header (mmcv's CUDA_1D_KERNEL_LOOP), expanded
 * as the preprocessor would; a grid-stride `while (i < n) { ...; i += ...; }` read as its
 * for loop; element types through the file's typedef/using when all agree. The result is a
 * grid-stride loop over n / width vectors (float2/float4, double2, int2/int4, uint2/uint4,
 * __half2 and __nv_bfloat162 for width 2; 16-bit types at width 4 or 8 through uint2/uint4
 * carriers), the per-element code repeated once per lane, then a scalar tail loop for the
 * n % width last elements; when a pointer is not aligned to its vector size the whole range
 * runs the scalar grid-stride loop instead. The output works with any grid (the thread to
 * element mapping changes, so it must). width: 2, 4 or 8.
 * Strided elements: every access may instead be p[s * i + k] with s 1, 2 or 4 (the same s
 * for every pointer) and 0 <= k < s, written directly (`2 * i + 1`, casts, parentheses) or
 * through a local of the per-element code declared `[const] T e = <s * i + k>;` (T an
 * integer type as wide as i's, e never changed): each vector then holds width / s
 * consecutive indices, the per-element code runs once per index with p[s * i + k] as
 * component s * l + k, and the tail and the unaligned fallback run the original code. For
 * s > 1 a written pointer must store each of its s elements exactly once per index in a
 * top-level statement, and a pointer only read must read all s.
 * Before an existing grid-stride loop other statements may come (a __shared__ table's fill
 * and __syncthreads(), as rw_invariant_table leaves them): they stay before it, unchanged.
 * A pointer the kernel never writes (every use in the body a read: p[j] as a value, *p,
 * __ldg(&p[j]), a test against NULL; an element passed to an unknown function only when
 * p points to const) may be read at any other index (a bias b[i % h], a row's value t[n]
 * with `int n = i / c;`, a table t[idx[i]], a scalar *s or s[0]): those reads stay scalar
 * loads in each lane's copy, with the lane's own index; so does its read at i when its
 * element type has no vector (int64_t). Not applicable when a launch of the file passes
 * such a pointer and a written one the same argument.
 * A template element type T with the spec's argument (targs, the spec's template_args by
 * position) travels as bytes (uint2/uint4 by size) read through T, the vector path taken
 * only when sizeof(T) is that argument's size (other instantiations run the scalar loop).
 * Not applicable (with the reason):
 * another shape; any other access of a pointer that the kernel writes (p[i + 1], p[j], *p,
 * &p[i], p passed on) or that could be written through it (a copy, an offset, an address);
 * mixed strides, k >= s, an element of a written pointer stored twice, conditionally or
 * not at all, a read-only pointer read at only some of its s elements, a width that is not
 * a multiple of s; a name the vector form declares (hk_start, hk_<pointer>...) used by the
 * code; a goto or label before the loop;
 * a reduction or other state carried across elements; synchronization, atomics, return,
 * break, continue or goto in the per-element code; an element type with no vector of that
 * width; a read of one pointer after a write of another of the same type (if they alias,
 * as an in-place call does, the vector form would read a stale value); no pointer written. */
int rw_vectorize(const char *text, size_t len, const an_model *m, size_t kernel, int width,
                 rw_result *out);

/* rw_vectorize with a template kernel's arguments (borrowed; may be NULL when n_targs is
 * 0): the spec's, which name the element type of a template type parameter. */
int rw_vectorize_targs(const char *text, size_t len, const an_model *m, size_t kernel, int width,
                       const char *const *targs, size_t n_targs, rw_result *out);

/* Routes loads from pointer parameters the kernel never writes (nor lets escape) through the
 * read-only data cache: p[e] becomes __ldg(&p[e]) and *p becomes __ldg(p), for the element
 * types __ldg has overloads for (scalar and CUDA vector types, __half, __nv_bfloat16 and
 * their pairs). hip_target: the code is compiled for an AMD/DCU GPU, where __ldg is an
 * ordinary load kept for source compatibility: not applicable, with that reason. Also not
 * applicable when the only candidates are written, when a launch site in the file passes
 * one expression both to a candidate and to a written pointer (the data would change
 * under the read-only cache), or when nothing would change. */
int rw_readonly_loads(const char *text, size_t len, const an_model *m, size_t kernel,
                      bool hip_target, rw_result *out);

/* Puts `#pragma unroll factor` (factor 2..64) or, with factor 0, `#pragma unroll` (full
 * unrolling) before every innermost for-loop of the kernel body that has no unroll pragma.
 * Full unrolling only goes on loops whose trip count is a compile-time constant (bounds
 * and step built from integer literals, #define/constexpr tunables and the kernel's
 * template parameters); other loops are skipped and the description says so. Not
 * applicable when the body has no for-loop, or every innermost one already has a pragma
 * (or, with factor 0, none has a constant trip count). */
int rw_unroll(const char *text, size_t len, const an_model *m, size_t kernel, int factor,
              rw_result *out);

/* Replaces single-precision math calls in the kernel's own body with the hardware
 * intrinsics (expf, logf, sinf, cosf, tanf, powf, sincosf, exp10f, log2f, log10f ->
 * __expf, ...) and float divisions a / b with __fdividef(a, b). Device functions the
 * kernel calls are left alone (they may be shared with other kernels), as are the double
 * versions (exp, log, ...) and any division with a double or an integer operand or of
 * unknown type. The intrinsics trade accuracy (a few ulp, worse for large arguments; __powf
 * is exp2(y * log2(x)), NaN for a negative base that powf allows with an integer exponent)
 * for speed: the engine keeps the result only if the oracle accepts it. The description
 * lists the calls changed with counts, e.g. "expf -> __expf (2), / -> __fdividef (1)". */
int rw_fast_math(const char *text, size_t len, const an_model *m, size_t kernel,
                 rw_result *out);

/* The template argument (borrowed from targs) for f's template type parameter named elem,
 * or NULL (elem is no template parameter of f, or targs gives no argument there). For
 * rewrites that must know what `T` is: the search's or the spec's arguments. */
const char *rw_template_arg_of(const an_function *f, const char *elem, const char *const *targs,
                               size_t n_targs);

#endif
