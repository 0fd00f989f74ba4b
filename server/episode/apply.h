/* Applying a stored version to a file as it is now: the one home of what `hkls apply`
 * (cli/history.c) and the editor's Apply action and hyperkernel.applyVersion
 * (lsp/episodes.c builds the change on the pool, lsp/actions.c places it) share: how a
 * version differs from its episode's starting text, where that change goes in today's
 * text (or why it cannot), the .hip rule for the launch, and the launch-site rewrite.
 * Each face keeps only its wording and its output (a file written, a WorkspaceEdit).
 * Pure functions on texts; they parse (tree-sitter), so the editor calls them on the
 * libuv pool, never on the loop. */
#ifndef HK_EPISODE_APPLY_H
#define HK_EPISODE_APPLY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

/* How a version differs from the episode's starting text (its baseline version's). */
typedef enum {
    EP_CHANGE_LAUNCH, /* same text: only the launch configuration differs */
    EP_CHANGE_KERNEL, /* only the kernel's text differs */
    EP_CHANGE_FILE,   /* code outside the kernel differs too (a #define the launch uses) */
} ep_change_kind;

/* "launch", "kernel", "file" (static). */
const char *ep_change_kind_name(ep_change_kind k);

/* The reverse of ep_change_kind_name. HK_OK or HK_EINVAL (unknown or NULL name). */
int ep_change_kind_parse(const char *name, ep_change_kind *out);

typedef struct {
    ep_change_kind kind;
    size_t start, end;   /* KERNEL: the range of the baseline's kernel text it replaces;
                          * FILE: the range of the baseline's whole text */
    char *new_text;      /* what replaces [start, end) (new string; "" for LAUNCH) */
    char *after;         /* the version's kernel text; its whole text when it has no
                          * kernel of that name (new string) */
    bool ver_has_kernel; /* the version defines the kernel */
    int outside_line;    /* FILE: the first line of the version that differs from the
                          * baseline outside the kernel, for the refusal; else 0 */
} ep_change;

/* The smallest region of a that differs from b: a[*start, a_len - suffix) is replaced by
 * b[*start, b_len - suffix). *start + suffix <= min(a_len, b_len). Pure. */
void ep_apply_diff_region(const char *a, size_t a_len, const char *b, size_t b_len,
                          size_t *start, size_t *suffix);

/* The text of kernel's definition in text (new string, *start its offset). HK_OK,
 * HK_ENOENT (no kernel of that name), the analysis' error (HK_ENOMEM...). */
int ep_apply_kernel_text(const char *text, size_t len, const char *kernel, char **out,
                         size_t *start);

/* The change that turns base (the episode's starting text, whose kernel text base_k sits
 * at base_k_start: ep_apply_kernel_text) into ver. Analyses ver. HK_OK (out filled;
 * ep_change_free), HK_ENOMEM, or the analysis' error. */
int ep_change_of(const char *base, size_t base_len, const char *base_k, size_t base_k_start,
                 const char *ver, size_t ver_len, const char *kernel, ep_change *out);

void ep_change_free(ep_change *c);

/* Where a change goes in the text as it is now. */
typedef enum {
    EP_PLACE_AT,         /* replace [*a, *b) of cur with c->new_text (LAUNCH: a == b == 0,
                          * nothing to replace; only the launch may change) */
    EP_PLACE_ALREADY,    /* the version is in cur already (its kernel, when that differs
                          * from the starting one; else, for FILE, its whole text): nothing
                          * to replace (*a == *b == 0), only its launch may be missing */
    EP_PLACE_STALE,      /* the starting kernel is not in cur (edited, renamed, removed) */
    EP_PLACE_STALE_FILE, /* FILE: the kernel is as it started but cur changed elsewhere, so
                          * the change outside the kernel cannot be applied safely */
} ep_place;

/* Places change c (made against base, whose kernel text is base_k) in cur. base may be
 * NULL for LAUNCH and KERNEL changes (FILE needs it: cur must equal it); c->new_text and
 * c->after may be NULL (a change read back without them is never ALREADY). A kernel is
 * found by its exact text, so an edit inside it makes it stale. Pure, no parse. */
ep_place ep_change_place(const ep_change *c, const char *base, size_t base_len,
                         const char *base_k, const char *cur, size_t cur_len, uint32_t *a,
                         uint32_t *b);

/* Whether a file's launches use the HIP runtime (hipLaunchKernelGGL, the hip* helper):
 * the episode ran on the DCU backend (target or backend name, may be NULL:
 * cc_target_is_dcu) or the file is a .hip file (cc_path_is_hip; path may be NULL). */
bool ep_apply_hip(const char *target, const char *path);

/* Why ep_apply_launch could not try. */
typedef enum {
    EP_LAUNCH_OK,       /* tried: r and rep say what it did or why it is not applicable */
    EP_LAUNCH_JSON,     /* the version's launch_json cannot be read (err says why) */
    EP_LAUNCH_ANALYSE,  /* the text cannot be analysed (the return code says why) */
    EP_LAUNCH_REWRITE,  /* rw_launch_config failed without a reason (the return code) */
} ep_launch_fail;

/* The launch-site edits that make text launch kernel as the version was measured:
 * launch and base_launch are the version's and the baseline's launch_json (borrowed,
 * may be NULL), hip as ep_apply_hip; m is text's model, or NULL to analyse it here.
 * HK_OK with *fail EP_LAUNCH_OK and r, rep filled (r->applicable false: r->description
 * says why; rw_result_free, rw_launch_report_free), or an error with *fail saying where
 * (err: a message for EP_LAUNCH_JSON). HK_ENOMEM always means out of memory. */
int ep_apply_launch(const char *text, size_t len, const an_model *m, const char *kernel,
                    const json_t *launch, const json_t *base_launch, bool hip, rw_result *r,
                    rw_launch_report *rep, ep_launch_fail *fail, char *err, size_t errlen);

#endif
