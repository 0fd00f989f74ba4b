/* Episodes in the editor (issue 4, docs/protocol.md "hyperkernel/"): optimization workers
 * (`hkls optimize --events`) spawned in their own process groups, their events turned into
 * work-done progress and hyperkernel/episodeChanged notifications, results read back from
 * the SQLite store off the loop, and the per-file result cache that code actions, code
 * lenses, hover and the result diagnostics answer from. episodes.c runs the workers and the
 * cache; actions.c holds the LSP methods (actions.h). Loop thread only, except where a
 * function says it runs on the libuv thread pool. Not for use outside server/lsp/. */
#ifndef HK_LSP_EPISODES_H
#define HK_LSP_EPISODES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "episode/apply.h"
#include "lsp/state.h"

struct hk_buf;
typedef struct store store;

/* Longest stdout line accepted from a worker; longer lines are dropped (and logged). */
#define LSP_EP_MAX_LINE ((size_t)1 << 20)
/* Kept tail of a worker's stderr, for the message when it dies. */
#define LSP_EP_ERR_TAIL 2048
/* Workers running at once; more are refused with a clear error. */
#define LSP_EP_MAX_RUNNING 16
/* After SIGTERM, a worker's process group gets SIGKILL after this long. */
#define LSP_EP_KILL_GRACE_MS 3000
/* Versions of a best chain offered as "Apply vN", and rows of the hover table. */
#define LSP_EP_MAX_CHAIN 12
#define LSP_EP_MAX_TABLE 15


/* ---- lifecycle (server.c) ---- */

/* Creates the episode state of s (server.c then registers the methods of actions.c). HK_OK or
 * HK_ENOMEM. */
int lsp_ep_init(struct lsp_server *s);
/* Sends SIGTERM to every worker's process group (SIGKILL after LSP_EP_KILL_GRACE_MS) and
 * stops accepting new ones (the child layer closes their handles); run the loop until idle
 * afterwards. Idempotent. */
void lsp_ep_stop(struct lsp_server *s);
/* true once lsp_ep_stop ran (or before lsp_ep_init): start nothing new. */
bool lsp_ep_stopping(const struct lsp_server *s);
/* Frees the state; lsp_ep_stop and a loop run must have come first. */
void lsp_ep_free(struct lsp_server *s);

/* ---- workers (episodes.c) ---- */

/* What one optimization needs; strings borrowed for the call. */
struct lsp_ep_start {
    const char *uri;       /* document uri (file://) */
    const char *kernel;
    const char *target;    /* "nvidia", "nvidia:sm_90", "dcu" ... */
    const char *engine;    /* NULL: builtin */
    const char *spec;      /* spec path or file:// uri; NULL: spec_find's, or the worker
                            * infers one (spec/infer.c) */
};

/* Spawns a worker for st and keeps call (an executeCommand request) to answer it with
 * {episode, token} as soon as the worker's episode id is known (or with an error when the
 * worker fails before creating one). On an immediate failure (no spec, spawn failed, too
 * many running) the call is answered here with an error. */
void lsp_ep_optimize(struct lsp_server *s, rpc_call *call, const struct lsp_ep_start *st);
/* A document at path was saved: when it is the draft spec an optimization was refused for
 * (the worker's inference had doubts), that optimization starts again with it, without a
 * request (its errors become window/showMessage). */
void lsp_ep_spec_saved(struct lsp_server *s, const char *path);
/* Cancels the running episode with that store id: SIGTERM to its process group, SIGKILL
 * after the grace period; the episode ends "stopped". HK_OK, HK_ENOENT (not running). */
int lsp_ep_cancel(struct lsp_server *s, int64_t episode);
/* Cancels by work-done progress token; HK_ENOENT when none has it. */
int lsp_ep_cancel_token(struct lsp_server *s, const char *token);
/* The running episodes as {id -> {stage, percent, message, uri, kernel, target, engine,
 * token}}; new reference (never NULL unless out of memory). */
json_t *lsp_ep_running_json(struct lsp_server *s);

/* ---- store queries off the loop (episodes.c) ---- */

/* Runs on a libuv pool thread with the store open (its own handle); arg is the caller's.
 * *out: new reference or NULL. Returns HK_OK or an HK_E* code; *msg (may stay NULL): new
 * string with the reason. */
typedef int (*lsp_ep_query_fn)(store *st, void *arg, json_t **out, char **msg);
/* Back on the loop: rc and out (stolen) from the query, msg borrowed. Called exactly once
 * when lsp_ep_query returned HK_OK, also when the server stops first (rc HK_ECANCELED). */
typedef void (*lsp_ep_done_fn)(struct lsp_server *s, int rc, json_t *out, const char *msg,
                               void *arg);
/* Queues fn on the pool. free_arg (may be NULL) releases arg after done. HK_OK,
 * HK_ENOMEM, HK_ESTATE (stopping); on error neither fn nor done runs and arg is freed. */
int lsp_ep_query(struct lsp_server *s, lsp_ep_query_fn fn, lsp_ep_done_fn done, void *arg,
                 void (*free_arg)(void *));

/* ---- per-file result cache (episodes.c) ---- */

/* The cached results of file path (absolute): {kernel name -> info} (borrowed; valid until
 * the next loop iteration that reloads it), or NULL when not loaded yet -- then a load is
 * queued and, when call is not NULL, call is deferred and re-dispatched through retry
 * when the load ends. Info: {"latest": episode summary, "best": {...} or absent,
 * "chain": [...], "table": [...], "base_kernel_text": "..."} (see episodes.c). */
typedef void (*lsp_ep_retry_fn)(struct lsp_server *s, rpc_call *call, json_t *params);
json_t *lsp_ep_file_results(struct lsp_server *s, const char *path, rpc_call *call,
                            json_t *params, lsp_ep_retry_fn retry);
/* Drops the cache of path and reloads it (diagnostics and code lenses refresh after). */
void lsp_ep_file_reload(struct lsp_server *s, const char *path);
/* A CUDA/HIP document was opened: reads its file's results (off the loop) so that the
 * result diagnostics show without waiting for a lens, action or hover request; for
 * textsync.c's didOpen. */
void lsp_ep_doc_opened(struct lsp_server *s, doc *d);
/* Appends the version table of kernel in d (when the cache has it) to b; queues a cache
 * load otherwise. Markdown when the client takes it. */
void lsp_ep_hover(struct lsp_server *s, doc *d, const char *kernel, struct hk_buf *b);

/* ---- helpers shared with actions.c and the unit tests ---- */

/* The change of chain entry c (borrowed) as chain_entry recorded it (ep_change_of), for
 * ep_change_place: a view whose texts are borrowed from c (never ep_change_free it).
 * HK_OK, or HK_EINVAL when c has no kind this reads. Any thread. */
int lsp_ep_change_view(json_t *c, ep_change *out);
/* The first occurrence of needle (n bytes) in hay (len bytes) at or after from, or -1. */
long lsp_ep_find(const char *hay, size_t len, const char *needle, size_t n, size_t from);

#endif
