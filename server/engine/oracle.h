/* The oracle: decides whether a candidate's outputs match the baseline's on the same
 * inputs (same size, seed and distribution), reading the output files the generated
 * harness writes (layout in hk_harness.h). Tolerance is per output, by dtype unless the
 * spec says otherwise; NaN or Inf never passes where the baseline is finite. Pure
 * functions, any thread. */
#ifndef HK_ENGINE_ORACLE_H
#define HK_ENGINE_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/spec.h"

#define ORACLE_MAX_FILE (16ULL << 30) /* larger output files are refused */

typedef struct {
    uint32_t arg_index;
    int dtype;
    uint64_t count;
    const unsigned char *data; /* borrowed from the oracle_file's blob */
} oracle_output;

typedef struct {
    oracle_output *outputs;
    size_t n;
    unsigned char *blob; /* owned file contents */
} oracle_file;

typedef struct {
    bool pass;
    int arg_index;          /* output that failed first; for a pass, the worst one; -1 if none */
    long long first_bad;    /* first failing element of that output, -1 when none */
    size_t n_bad;           /* failing elements of that output */
    size_t n_nonfinite;     /* NaN/Inf where the baseline is finite, in that output */
    double max_abs, max_rel, rel_l2; /* over all compared outputs */
    char reason[320];       /* one line: "ok ..." or why it failed */
} oracle_result;

/* Parses an output file held in memory; takes ownership of blob (hk_malloc'd, len
 * bytes) whatever the result. HK_OK, HK_EPARSE with a reason in err (bad magic,
 * version, dtype, truncated, trailing bytes), HK_ENOMEM. */
int oracle_parse(unsigned char *blob, size_t len, oracle_file *out, char *err, size_t errlen);

/* Reads and parses an output file. HK_OK, HK_ENOENT/HK_EIO (unreadable), HK_ETOOBIG,
 * HK_EPARSE, HK_ENOMEM; err gets a reason. */
int oracle_read(const char *path, oracle_file *out, char *err, size_t errlen);

void oracle_file_free(oracle_file *f);

/* Compares count elements of one output (dtype) with tolerance tol into r; fills every
 * field of r (arg_index -1; the caller sets it). Elements pass when
 * |c - b| <= atol + rtol * |b|; a baseline NaN needs a NaN, an Inf the same Inf; and
 * the relative L2 error ||c - b|| / ||b|| must be <= tol.l2 when tol.l2 > 0. */
void oracle_compare_buffer(int dtype, const void *base, const void *cand, size_t count,
                           spec_tolerance tol, oracle_result *r);

/* Compares every output of base with cand using the spec's per-argument tolerances
 * (s may be NULL: dtype defaults). Outputs must agree in number, argument, dtype and
 * count, else the candidate fails with that reason. Always HK_OK; the verdict is r->pass. */
int oracle_compare(const spec *s, const oracle_file *base, const oracle_file *cand, oracle_result *r);

/* Reads both files and compares. A baseline that cannot be read is an error
 * (HK_ENOENT/HK_EIO/HK_EPARSE, reason in r->reason); a candidate file that is missing or
 * malformed is a failed candidate (HK_OK, r->pass false). */
int oracle_compare_files(const spec *s, const char *baseline_path, const char *candidate_path,
                         oracle_result *r);

/* Element i of a buffer of dtype as a double (half and bfloat16 decoded exactly). */
double oracle_element(int dtype, const void *data, size_t i);

#endif
