/* The shared state of the lsp module: the server, its settings, compile_commands.json and
 * the per-document state, with the caps they live under. Types only, no functions: every
 * other header of server/lsp/ includes this one and none includes another module's, so
 * the include graph is a DAG (docs/ARCHITECTURE.md). Loop thread only. Not for use
 * outside server/lsp/ (and its unit tests). */
#ifndef HK_LSP_STATE_H
#define HK_LSP_STATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <uv.h>

#include "analysis/analysis.h"
#include "compile/compile.h"
#include "core/i18n.h"
#include "core/log.h"
#include "documents/documents.h"
#include "lsp/lsp.h"
#include "rpc/rpc.h"

#define LSP_CONFIG_FILE ".hyperkernel.json"
#define LSP_CONFIG_MAX_BYTES ((size_t)1 << 20)
#define LSP_COMPILE_DB_MAX_BYTES ((size_t)64 << 20)
#define LSP_MAX_FLAGS 256

/* Settings under "episodes" and "engines" (config.c applies the layers through
 * lsp_ep_config_apply). Owned strings; engines is a new reference or NULL. */
struct lsp_ep_config {
    char *db;          /* episodes.db; NULL: ep_default_db_path */
    long budget;       /* episodes.budget (candidates); 0: the worker's default */
    double minutes;    /* episodes.minutes; 0: the worker's default */
    bool simulate;     /* episodes.simulate: CI only, the deterministic simulated GPU */
    char *check;       /* episodes.check: "full" | "quick" | NULL */
    bool allow_no_floor; /* episodes.allowNoFloor: credit speedups no physical floor checked
                          * (the worker's --allow-no-floor) */
    json_t *engines;   /* [{name, kind, endpoint?, model?}] as validated */
};

/* Effective settings: defaults, then .hyperkernel.json, then the client's settings
 * (initializationOptions, replaced by each workspace/didChangeConfiguration). */
struct lsp_config {
    bool target_set;          /* "target" given somewhere (else per file extension) */
    enum cc_backend backend;
    char *arch;               /* owned */
    bool compile_enabled;
    unsigned debounce_ms;
    unsigned timeout_ms;
    char **flags;             /* owned, NULL-terminated */
    char **include_paths;     /* owned, NULL-terminated */
    char *nvcc, *hipcc;       /* owned or NULL */
    bool log_level_set;
    enum hk_log_level log_level;
    bool language_set;        /* "language" given as "en" or "zh-CN" (else "auto") */
    enum hk_lang language;
    struct lsp_ep_config ep;  /* episodes.*, engines (episodes.c) */
};

/* One entry of compile_commands.json reduced to the flags we pass on. */
struct lsp_ccdb_entry {
    char *file;               /* absolute, normalised */
    char **flags;             /* NULL-terminated */
};

struct lsp_ccdb {
    char *path;
    struct timespec mtime;
    bool loaded;
    struct lsp_ccdb_entry *entries;
    size_t n;
};

enum lsp_diag_source { LSP_DIAG_COMPILE, LSP_DIAG_RESOURCES, LSP_DIAG_REPORT, LSP_DIAG_N };

/* How many spare copies of a large document's text are kept (lsp_doc_copy_buffer): a parse
 * and a compile take one each after a change, while the compile the change cancelled may
 * still hold its own. */
#define LSP_DOC_SPARES 3
/* How many of those are kept free of a large text's size: when a copy leaves fewer, a new
 * one is made and its pages touched on the pool (lsp_doc_copy_buffer), so that a parse, a
 * compile, the compile a change cancelled and a plan out at once still leave the next copy
 * a buffer whose pages are in. */
#define LSP_DOC_SPARES_FREE 2

struct lsp_spare_fill;

/* Server-side state of one open document (doc_user of its doc). */
struct lsp_doc {
    struct lsp_server *s;
    char *uri;                /* owned copy, for timers and jobs */
    bool compilable;          /* a CUDA/HIP source by extension or languageId */
    an_doc *an;               /* NULL when the grammar is unusable; while parse is set a
                               * pool thread owns it and the loop must not touch it */
    bool model_stale;         /* the last reparse failed: the model is of older text */
    /* The analysis runs on the pool (textsync.c): one parse in flight per document, of a
     * copy of the text; the text changes on the loop meanwhile, and the analysis is
     * current when parsed_gen == text_gen and no parse is in flight. */
    struct lsp_parse *parse;  /* the parse on the pool, or NULL */
    uint64_t text_gen;        /* counts the changes that edited the text */
    uint64_t parsed_gen;      /* text_gen of the text the model (or model_stale) is of */
    struct doc_edit *edits;   /* edits made after the parse in flight took its copy; given
                               * to an when it comes back (owned, capped) */
    size_t n_edits, cap_edits;
    bool edits_lost;          /* more edits than the cap: the next parse is a full one */
    struct lsp_waiter *waiters; /* requests waiting for the current analysis, oldest first */
    bool ep_diags_due;        /* episode results wanted the model before it was current */
    char *path;               /* file path of a file:// uri, or NULL */
    uv_timer_t *debounce;     /* NULL until first scheduled; freed in its close cb */
    cc_job *job;              /* running compile or NULL */
    int64_t job_version;
    cc_resource *res;         /* resources of the last finished compile: one block (hk_free)
                               * that holds their strings too */
    size_t n_res;
    int64_t res_version;      /* document version those resources belong to */
    json_t *diags[LSP_DIAG_N];/* per source, new references or NULL (a compile's sources
                               * are kept as text only: NULL) */
    char *diag_text[LSP_DIAG_N]; /* per source, the JSON text of its diagnostics (the array's
                                  * elements, no brackets; owned), what a publish joins */
    size_t diag_len[LSP_DIAG_N]; /* 0: none */
    char *snap[LSP_DOC_SPARES]; /* a large document's buffers for the next copies of its text
                                 * a pool job takes (a parse, a compile, a plan: owned,
                                 * snap_cap bytes, their pages touched), or NULL: kept
                                 * between jobs so a copy costs no page faults */
    size_t snap_cap[LSP_DOC_SPARES];
    struct lsp_spare_fill *fill; /* a spare being made on the pool (textsync.c), or NULL */
    struct lsp_lenses *lenses; /* codeLens's Optimize lenses of the last parse (lenses.h; a
                                * reference), rendered on the pool with it, or NULL */
    bool lens_due;            /* the lenses' settings changed: parse again (the text as it
                               * is) so that the pool renders them, requests waiting */
};

/* What a file tells the files above it (docs/ARCHITECTURE.md, "Inside lsp/"): no file
 * calls one above it; it sends one of these through lsp_emit (base.h), and server.c, the
 * top, passes it on (route()). d: the document or NULL; str: as each says. */
enum lsp_event {
    LSP_EV_RECHECK_ALL,       /* what compiles read changed (folder trusted, compile database
                               * published): compile every open document again */
    LSP_EV_TRUST_CHANGED,     /* the trust list changed (trust.c): rebuild the settings */
    LSP_EV_DOC_OPENED,        /* d opened: compile it, read earlier episodes' results */
    LSP_EV_DOC_CHANGED,       /* d's text changed: compile it after the debounce */
    LSP_EV_DOC_SAVED,         /* saved: str its path (or NULL), a draft spec an Optimize may
                               * wait for; d (NULL: not open) compiled at once */
    LSP_EV_DOC_CLOSED,        /* str: the uri of a document closed: clear its diagnostics */
    LSP_EV_MODEL_FOR_RESULTS, /* d's model came in, which episode results wanted */
    LSP_EV_LENSES_STALE,      /* a setting the codeLens lenses show changed (the language,
                               * the NVIDIA target; config.c): render them again */
    LSP_EV_ANALYSIS_DRAINED,  /* requests that waited for an analysis were answered: a
                               * shutdown that waited for them goes on (may stop the server) */
};
typedef void (*lsp_event_fn)(struct lsp_server *s, enum lsp_event ev, doc *d, const char *str);

enum lsp_state { LSP_UNINIT, LSP_RUNNING, LSP_SHUTDOWN, LSP_EXITED };

struct lsp_server {
    uv_loop_t *loop;
    struct lsp_loopwatch *loopwatch; /* the loop's busy time (loopwatch.h), or NULL */
    unsigned long lens_loop_renders; /* codeLens requests that rendered the Optimize lenses
                                      * on the loop (lenses.h): tests read it */
    lsp_event_fn on_event;    /* where lsp_emit sends events: server.c's route() */
    rpc *rpc;
    lsp_send_fn send;
    void *send_ud;
    lsp_exit_fn on_exit;
    void *exit_ud;
    doc_store *docs;
    enum lsp_state state;
    int exit_code;
    rpc_call *shutdown_call;  /* shutdown, answered once the requests that wait for an
                               * analysis are (lsp_server_analysis_drained), or NULL */
    bool exit_due;            /* exit (or the end of input) came while shutdown waited */
    struct lsp_inmsg *in_head, *in_tail; /* messages behind one decoded on the pool, in
                                          * arrival order (server.c) */
    bool input_closed_due;    /* the input ended while messages were queued */
    struct lsp_text_prep *in_prep; /* the text of the message being handled, made ready on
                                    * the pool (textsync.h), or NULL; owned */
    bool stopped;
    enum doc_encoding enc;
    /* what the client said it supports */
    bool cl_hier_symbols, cl_markdown, cl_apply_edit, cl_show_document, cl_progress;
    bool cl_diag_version;
    bool cl_codelens_refresh, cl_doc_changes; /* workspace.codeLens.refreshSupport,
                                               * workspaceEdit.documentChanges */
    bool cl_action_disabled;  /* textDocument.codeAction.disabledSupport */
    int trace;                /* 0 off, 1 messages, 2 verbose */
    char *root;               /* workspace root directory or NULL */
    char *client_locale;      /* initialize's "locale", owned, or NULL */
    json_t *cfg_file_json;    /* parsed .hyperkernel.json or NULL */
    struct timespec cfg_file_mtime;
    bool cfg_file_seen;
    char *cfg_file_text;      /* its text (owned), to place the untrusted-key warnings */
    json_t *cfg_client_json;  /* the client's settings or NULL */
    /* workspace trust (trust.c) */
    char **trusted_folders;   /* the user's trust list (read at start and after
                               * hyperkernel.trustFolder); owned, may be NULL */
    char *root_canon;         /* realpath of root (owned), what the list is matched to */
    bool client_trusted;      /* the client said so: "isTrusted": true in its settings */
    bool cfg_trusted;         /* s->cfg was built with the folder's keys that need trust */
    char *untrusted_keys;     /* keys of the file the last rebuild ignored, "a,b"; owned */
    bool trust_report_due;    /* untrusted_keys changed and is not reported yet */
    bool init_replied;        /* the initialize response went out */
    size_t trust_jobs;        /* trust list writes on the pool */
    size_t plan_jobs;         /* code action / applyVersion plans and createSpec jobs on the
                               * pool (actions.c) */
    struct lsp_config cfg;
    bool cli_log_level;       /* --log-level given: it wins over log.level */
    struct lsp_ccdb ccdb;     /* the published database (config.c) */
    struct ccdb_job *ccdb_job;/* its read on the pool, or NULL */
    bool grammar_ok;
    const char *grammar_why;
    bool told_no_compiler;
    bool compiles_disabled;   /* lsp_server_disable_compiles */
    size_t jobs_running;
    struct lsp_eps *eps;      /* episodes.c state */
};

#endif
