/* Spec inference: a harness-form bench spec for a kernel that has none, from the kernel's
 * index math and the host code at its launch site, with what was guessed and from where,
 * and the reasons when a guess is not sure enough to run on. The one home of spec
 * discovery (where a kernel's spec lives) for the CLI and the editor. Pure functions on
 * files and values, any thread; the editor calls them from the episode worker, never on
 * its loop. */
#ifndef HK_SPEC_INFER_H
#define HK_SPEC_INFER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Where a new spec for kernel of the source at path is saved: <dir>/<stem>.<kernel>.bench.json.
 * New string (hk_free), NULL on ENOMEM. */
char *spec_default_path(const char *path, const char *kernel);

/* The existing spec for kernel next to path: <stem>.<kernel>.bench.json,
 * <kernel>.bench.json, <stem>.bench.json in the source's directory, the first readable.
 * New string, or NULL when there is none (or on ENOMEM). */
char *spec_find(const char *path, const char *kernel);

/* What inference found. Strings and spec are owned by the value (spec_inference_free). */
typedef struct {
    json_t *spec;      /* the spec (a new reference); it passes spec_parse at the path it
                        * was inferred for; its "inferred" field holds the notes */
    char **notes;      /* what was guessed and from where ("sizes from the launch site at
                        * main.cu:42") */
    size_t n_notes;
    char **doubts;     /* why a guess is not sure enough to run on; none: it is */
    size_t n_doubts;
} spec_inference;

void spec_inference_free(spec_inference *inf);

/* Infers the spec of kernel in the source file at path, to be saved at spec_path (source
 * written relative to it). HK_OK (*out filled; doubts may be non-empty), HK_ENOENT (no
 * such file or kernel), HK_EUNSUPPORTED (nothing a harness could drive: no parameters or
 * no pointer it could compare; err says which), HK_EIO, HK_ETOOBIG, HK_ENOMEM. err (may be
 * NULL) gets a sentence on failure. */
int spec_infer(const char *path, const char *kernel, const char *spec_path, spec_inference *out,
               char *err, size_t errlen);

/* Writes inf->spec to spec_path (indented JSON and a newline), replacing a file there only
 * when replace. HK_OK, HK_EIO (errno kept; EEXIST when it exists), HK_ENOMEM. */
int spec_infer_save(const spec_inference *inf, const char *spec_path, bool replace);

/* Whether byte at of t (len bytes) is compiled in a build without -D flags: 1 yes, 0 no,
 * -1 cannot say (a condition other than defined(X) / !defined(X) / #ifdef, decided by the
 * text's own #defines). The type of a typedef per #if branch (llm.c's floatX) is read
 * with it. Pure; any thread. */
int spec_pp_active(const char *t, size_t len, size_t at);

#endif
