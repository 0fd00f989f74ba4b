/* What a kernel computes (issue 13, item 4, the recognition half): km_classify reads a
 * built kernel model and names its class (GEMM, GEMV, transpose, histogram, reduction,
 * stencil, convolution, pooling, scan, norm, softmax, elementwise) with the parameters a
 * rewrite needs; when a class almost fits, it says which construct, on which line, stops
 * it. docs/model.md lists the classes and the spellings each one accepts. */
#ifndef HK_MODEL_KCLASS_H
#define HK_MODEL_KCLASS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/kmodel.h"

enum km_class_kind {
    KM_CLASS_NONE,
    KM_CLASS_GEMM,        /* C[i,j] (=|+=) alpha*sum_k A[i,k]*B[k,j] (+ beta*C[i,j]) */
    KM_CLASS_GEMV,        /* y[i] = alpha*sum_j A[i,j]*x[j] (+ beta*y[i]) */
    KM_CLASS_TRANSPOSE,   /* out[f(i,j)] = in[g(i,j)], one side strided in threadIdx.x */
    KM_CLASS_PERMUTATION, /* out[f(e)] = in[g(e)] with a non-affine (/, %) element map */
    KM_CLASS_HISTOGRAM,   /* atomicAdd(&bins[h(in[i])], 1 or w) */
    KM_CLASS_REDUCTION,   /* sum/max/min/mean/variance/std per row, column or global */
    KM_CLASS_STENCIL,     /* reads at constant offsets of the output element */
    KM_CLASS_CONVOLUTION, /* a filter array read at loop offsets */
    KM_CLASS_POOLING,     /* max/avg over a window loop */
    KM_CLASS_SCAN,        /* prefix sums */
    KM_CLASS_NORM,        /* layernorm / rmsnorm */
    KM_CLASS_SOFTMAX,     /* row max, exp-sum, normalise */
    KM_CLASS_ELEMENTWISE, /* every stream read and written at the thread's element */
};

enum km_reduce { KM_REDUCE_SUM, KM_REDUCE_MAX, KM_REDUCE_MIN, KM_REDUCE_MEAN,
                 KM_REDUCE_VARIANCE, KM_REDUCE_STD, KM_REDUCE_SUMSQ };
/* Reductions and norms: which elements one result combines. */
enum km_axis { KM_AXIS_NONE, KM_AXIS_GLOBAL, KM_AXIS_ROW, KM_AXIS_COLUMN };
/* How the combining is spelled. */
enum km_how { KM_HOW_NONE, KM_HOW_LOOP, KM_HOW_ATOMIC, KM_HOW_TREE, KM_HOW_SERIAL };

/* A small form owned by the class (a value: the struct may be copied). known is false
 * when the kernel does not say (a size given only by the launch). Atom ids are the
 * kernel's: read it with km_cform_view while the model lives. */
#define KM_CFORM_TERMS 8
typedef struct {
    bool known;
    uint32_t n;
    km_term t[KM_CFORM_TERMS];
} km_cform;

#define KM_CLASS_IN_MAX 8
#define KM_CLASS_OFFSETS_MAX 32

/* The class and its parameters; fields that do not concern kind are zero. Buffer names
 * and the maps are borrowed from the model (valid until km_free). */
typedef struct {
    enum km_class_kind kind;
    const char *out;                 /* the buffer the class writes */
    const char *in[KM_CLASS_IN_MAX]; /* GEMM: A, B; GEMV: A, x; others: inputs read */
    uint32_t n_in;
    uint32_t line;                   /* line of the write (or atomic) that defines it */

    /* GEMM and GEMV: C is M x N (GEMV: y has M elements, x has N), the sum runs over K */
    km_cform m, n, k;
    km_cform lda, ldb, ldc;          /* leading dimensions in C's layout */
    bool col_major;                  /* C[i + j*ldc] (the row index is contiguous) */
    bool trans_a, trans_b;           /* A stored as A[k,i], B as B[j,k] in C's layout */
    bool alpha, beta;                /* the sum is scaled; the old C takes part */
    bool accumulate;                 /* C is updated with += inside the k loop */
    bool batched;
    km_cform batch_a, batch_b, batch_c; /* offsets of one batch (blockIdx.z*stride ...) */
    int row_axis, col_axis;          /* thread axis (0 x, 1 y, 2 z) of i and j, -1 none */
    km_cform row_index, col_index;   /* i and j themselves (C's write with its leading
                                      * dimension and batch offset taken out): where m or
                                      * n is not known, how the launch maps threads to rows
                                      * and columns. GEMV: col_index is not set */
    bool by_columns;                 /* GEMV: A read as A[j*lda + i] (coalesced) */
    bool shared_tiles;               /* GEMM: the product reads __shared__ tiles */
    bool tiles_seen;                 /* GEMM: ... which the class saw through: in[] are the
                                      * global matrices the tiles are filled from, k the
                                      * tile loop and the k loop together */
    km_cform tile_block[3];          /* tiles_seen: the block extent along each thread axis
                                      * the tiles need (known where one does); the kernel
                                      * is correct only when launched with such blocks */

    /* reductions, norms, softmax, scans */
    enum km_reduce reduce;
    enum km_axis axis;
    enum km_how how;
    unsigned passes;                 /* loops over the input (two-pass variance: 2) */
    bool rms;                        /* NORM: no mean subtracted (rmsnorm) */

    /* transpose, permutation: element read and element written by one thread */
    km_form in_map, out_map;

    /* histogram */
    km_cform bins;                   /* bin count (known when the kernel says it) */
    bool weighted, privatized;       /* adds a weight; bins in __shared__ first */

    /* stencil, convolution, pooling: offsets of the reads from the output element */
    unsigned dims;
    uint32_t n_offsets;
    km_cform offsets[KM_CLASS_OFFSETS_MAX];
    int64_t radius;                  /* largest constant offset along one axis */
    const char *filter;              /* CONVOLUTION: the weights */

    /* elementwise */
    uint32_t streams_read, streams_written;
    const char *elem_type;           /* of the output */

    /* When kind is NONE (or another class won), the class that almost fit and why not:
     * the construct and its line. near is NONE when nothing came close. */
    enum km_class_kind near;
    char why[256];
    uint32_t why_line;
} km_class;

/* Classifies k into *out (overwritten entirely). HK_OK (kind may be KM_CLASS_NONE, with
 * near/why saying what came closest), HK_EINVAL when k or out is NULL. Allocates
 * nothing; any thread. */
int km_classify(const km_kernel *k, km_class *out);

/* The GEMM or GEMV whose product writes buffer out_buffer, as km_classify would read it
 * were that the kernel's only product (mvt's x2 beside its x1: blas_substitution calls the
 * library once per output); the other classes are not tried. kind NONE (with near/why)
 * when no product writes out_buffer. HK_OK, HK_EINVAL when an argument is NULL. Allocates
 * nothing; any thread. */
int km_classify_product(const km_kernel *k, const char *out_buffer, km_class *out);

/* Static name of a class ("gemm", "softmax", ...), of a reduction ("sum", "variance") and
 * of an axis ("row"). Never NULL. */
const char *km_class_name(enum km_class_kind kind);
const char *km_reduce_name(enum km_reduce r);
const char *km_axis_name(enum km_axis a);

/* The class form as a model form (borrows c: valid while c and the model live). */
km_form km_cform_view(const km_cform *c);

/* One-line summary "gemm out=C in=A,B M=... ..." followed, when set, by the near miss.
 * HK_OK, HK_ENOMEM, HK_ETOOBIG from b. */
int km_class_print(const km_kernel *k, const km_class *c, struct hk_buf *b);

#endif
