/* Episode reports, built from the store: one JSON document (the model), rendered as
 * JSON, Markdown and one self-contained HTML page (inline CSS and SVG, no scripts, no
 * external assets), plus the unified line diff (Myers) they show from baseline to best.
 *
 * What a report shows: kernel, target, device, engine, stages with timings, baseline and
 * best times with their spread, speedup with its spread, bandwidth, FLOP rate, % of
 * roofline (against the device's measured peaks), accuracy, evidence (ptxas, SASS, ncu,
 * roofline), rejected candidates with reasons, the version chain, and the diff.
 *
 * Conventions: int returns HK_OK or a negative HK_E*; every renderer appends into a
 * caller-owned capped hk_buf and returns HK_ETOOBIG when the cap is hit (the buffer then
 * holds a prefix: discard it). The store handle is used for reads only, from the calling
 * thread (store.h's one-thread-at-a-time rule). jansson must route its allocations
 * through the seam (hk_alloc_init_json) for the allocation tests to see them. */
#ifndef HK_REPORT_REPORT_H
#define HK_REPORT_REPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "store/store.h"

/* Format bits for report_write. */
enum report_format { REPORT_JSON = 1, REPORT_MD = 2, REPORT_HTML = 4, REPORT_ALL = 7 };

/* Largest report file report_write produces. */
#define REPORT_MAX_BYTES ((size_t)32 << 20)
/* Longest free text (reject details, error, event message) copied into a report; longer
 * text is cut and says so. */
#define REPORT_MAX_TEXT 8192
/* Diff limits: lines per side and edit distance; beyond them the report says the diff is
 * too large instead of spending quadratic time and memory. */
#define REPORT_DIFF_MAX_LINES 50000
#define REPORT_DIFF_MAX_EDITS 3000

/* *out: new reference to the report model of an episode (the JSON report; schema in
 * docs/store.md, "schema": "hyperkernel.report/1"). HK_ENOENT: no such episode;
 * HK_ENOMEM; store errors as the store returns them. */
int report_build(store *s, int64_t episode_id, json_t **out);

/* Render an episode's report into out (appending). */
int report_render_json(store *s, int64_t episode_id, struct hk_buf *out);
int report_render_markdown(store *s, int64_t episode_id, struct hk_buf *out);
int report_render_html(store *s, int64_t episode_id, struct hk_buf *out);

/* Same, from a model report_build made (borrowed); HK_EINVAL for a model without the
 * fields the renderer needs. */
int report_model_to_json(const json_t *model, struct hk_buf *out);
int report_model_to_markdown(const json_t *model, struct hk_buf *out);
int report_model_to_html(const json_t *model, struct hk_buf *out);

/* Paths of the files report_write wrote (new strings, NULL for formats not asked). */
typedef struct {
    char *json;
    char *md;
    char *html;
} report_paths;

void report_paths_clear(report_paths *p);

/* Writes the asked formats (REPORT_* bits; 0 means all) of the episode's report into dir
 * (created if missing) as episode-<id>.json / .md / .html, each atomically (temporary
 * file and rename), records the absolute paths in the episode (store_episode_set_reports,
 * so the editor can find them) and returns them in *paths_out (may be NULL). A write to
 * the store from the calling process: the episode worker calls it. HK_EIO when dir or a
 * file cannot be written; render errors as above (nothing is written then). */
int report_write(store *s, int64_t episode_id, const char *dir, unsigned formats,
                 report_paths *paths_out);

/* JSON for the editor's lists (hyperkernel/ requests, hover tables), same field names as
 * the report model. New references; NULL only when out of memory.
 * Episode: {id, name, status, kernel, file, target, backend, arch, engine, device,
 * simulated (true: the simulated GPU, its numbers are not measurements), started,
 * ended (ISO 8601 UTC or null), duration_ms, error, best_version_id, baseline_version_id,
 * reports: {json, md, html}}. */
json_t *report_episode_summary(const store_episode *e);
/* History rows (store_kernel_history / store_episode_versions) as an array of
 * {id, number, label, parent_id, episode_id, status, produced_by, created, median_ms,
 * p10_ms, p90_ms, spread, kind, speedup, speedup_lo, speedup_hi, bytes_per_s, flop_per_s,
 * roofline_pct, max_abs_err, max_rel_err, reject_reason}; unknown numbers are null. */
json_t *report_history_json(const store_history_row *rows, size_t n);

/* Unified diff (as `diff -u`) of text a to text b, lines compared exactly, with context
 * lines of context around each change (negative: 3). label_a/label_b name the sides in
 * the ---/+++ header. Appends nothing when the texts are equal. Minimal (Myers, O(ND)).
 * HK_ETOOBIG over REPORT_DIFF_MAX_LINES lines a side or REPORT_DIFF_MAX_EDITS edits, or
 * when out's cap is hit; HK_ENOMEM. */
int report_diff_unified(const char *a, size_t alen, const char *b, size_t blen,
                        const char *label_a, const char *label_b, int context,
                        struct hk_buf *out);

/* Appends s with & < > " ' escaped for HTML text and attributes. NULL appends nothing. */
int report_html_escape(struct hk_buf *out, const char *s);

#endif
