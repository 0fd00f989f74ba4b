/* Private to server/report: helpers the model builder and the renderers share (reading
 * the model, number formatting, JSON-safe text). Other modules use report.h only. */
#ifndef HK_REPORT_REPORT_IMPL_H
#define HK_REPORT_REPORT_IMPL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/i18n.h"

/* New JSON string reference from arbitrary bytes: invalid UTF-8 becomes U+FFFD (jansson
 * refuses it), and text longer than cap bytes is cut at a character boundary with a note
 * saying how much was dropped. NULL s gives json null. NULL only when out of memory. */
json_t *report__text(const char *s, size_t cap);

/* Borrowed member string of obj, or NULL when absent or not a string. */
const char *report__str(const json_t *obj, const char *key);
/* A member the model keeps in English because programs read it too (an episode's error, a
 * version's rejection details, a stage's last message: docs/i18n.md) in the current
 * language: a new string (hk_free) when it reads differently there (hk_tr_said), NULL to
 * show report__str as it is (English, no match, absent, out of memory). */
char *report__said(const json_t *obj, const char *key);
/* The physical-floor line of an episode's info (docs/episode.md, "Speedups without a
 * physical floor") into buf: none and why, whether speedups were credited, and the faster
 * versions that were not. false (buf empty) when a floor applied. */
bool report__floor_words(const json_t *info, char *buf, size_t n);
/* The library a library substitution's best version calls (info.credit.library and
 * .routine, episode.c skill_credit), in the user's language, into buf: "cuBLAS
 * (cublasSgemm, called from the version's host code; ...)". false (buf empty) when the
 * winner calls no library. */
bool report__library_words(const json_t *info, char *buf, size_t n);
/* The verify stage's bests dropped (info.verify, episode.c stage_verify) in the user's
 * language, into buf: "v4 verified; dropped before it: v2 (rejected on its interleaved
 * runs: wrong_answer)". false (buf empty) when the first best was verified or none was
 * tried. */
bool report__verify_words(const json_t *info, char *buf, size_t n);
/* The toolchain of an episode's info as readable text into buf: the compiler's path and,
 * from the device probe, the CUDA runtime and driver versions ("nvcc /usr/local/cuda/bin/nvcc,
 * CUDA 13.0 (...); driver for CUDA 13.0"). false (buf empty) when info names no compiler. */
bool report__toolchain_words(const json_t *info, char *buf, size_t n);
/* The one headline bandwidth figure of a report model (the best version's, else the
 * baseline's) into head, and into note what it is measured against and how it differs from
 * the README's "% of the copy line". false (both empty) when nothing moved bytes. */
bool report__bandwidth_words(const json_t *model, char *head, size_t hn, char *note, size_t nn);
/* Member number of obj into *out; false when absent, null or not a number. */
bool report__num(const json_t *obj, const char *key, double *out);

/* Human formats into buf (always NUL-terminated; "-" for a missing value):
 * a time in ms ("1.234 ms", "12.3 us"), a rate (GB/s, GFLOP/s or TFLOP/s), a ratio
 * ("2.41x"), a percentage ("88.1%"), an error ("1.2e-06"), an epoch-ms time (ISO 8601 UTC),
 * a duration in ms ("1.5 s", "2 min 05 s"). */
/* The rows of the baseline/best table, in order (median, p10..p90, spread, bandwidth,
 * FLOP rate, % of roofline, repetitions): message ids, shown with hk_tr. */
#define REPORT_PERF_ROWS 7
extern const enum hk_msg report__perf_labels[REPORT_PERF_ROWS];

void report__fmt_ms(char *buf, size_t n, double ms);
void report__fmt_bytes_rate(char *buf, size_t n, double bytes_per_s);
void report__fmt_flop_rate(char *buf, size_t n, double flop_per_s);
void report__fmt_ratio(char *buf, size_t n, double r);
void report__fmt_pct(char *buf, size_t n, double pct);
void report__fmt_err(char *buf, size_t n, double e);
void report__fmt_time(char *buf, size_t n, double epoch_ms);
void report__fmt_duration(char *buf, size_t n, double ms);

/* Scalar JSON as short text (strings as is, numbers %.6g, true/false/null); containers as
 * compact JSON cut at cap bytes. Appends to out. */
int report__scalar_text(struct hk_buf *out, const json_t *v, size_t cap);

#endif
