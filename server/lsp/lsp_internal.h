/* Shared state of the lsp module's files (server.c lifecycle and dispatch, config.c
 * settings and compile flags, textsync.c documents, features.c symbols and hover,
 * diagnostics.c background compiles). Not for use outside server/lsp/. */
#ifndef HK_LSP_INTERNAL_H
#define HK_LSP_INTERNAL_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "analysis/analysis.h"
#include "compile/compile.h"
#include "core/i18n.h"
#include "core/log.h"
#include "documents/documents.h"
#include "lsp/episodes.h"
#include "lsp/lsp.h"
#include "rpc/rpc.h"

#define LSP_CONFIG_FILE ".hyperkernel.json"
#define LSP_CONFIG_MAX_BYTES ((size_t)1 << 20)
#define LSP_COMPILE_DB_MAX_BYTES ((size_t)64 << 20)
#define LSP_MAX_FLAGS 256

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
    struct lsp_ep_config ep;  /* episodes.*, engines (episodes.h) */
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

/* Server-side state of one open document (doc_user of its doc). */
struct lsp_doc {
    struct lsp_server *s;
    char *uri;                /* owned copy, for timers and jobs */
    bool compilable;          /* a CUDA/HIP source by extension or languageId */
    an_doc *an;               /* NULL when the grammar is unusable */
    bool model_stale;         /* the last reparse failed: the model is of older text */
    char *path;               /* file path of a file:// uri, or NULL */
    uv_timer_t *debounce;     /* NULL until first scheduled; freed in its close cb */
    cc_job *job;              /* running compile or NULL */
    int64_t job_version;
    cc_resource *res;         /* resources of the last finished compile (owned copies) */
    size_t n_res;
    int64_t res_version;      /* document version those resources belong to */
    json_t *diags[LSP_DIAG_N];/* per source, new references or NULL */
};

enum lsp_state { LSP_UNINIT, LSP_RUNNING, LSP_SHUTDOWN, LSP_EXITED };

struct lsp_server {
    uv_loop_t *loop;
    rpc *rpc;
    lsp_send_fn send;
    void *send_ud;
    lsp_exit_fn on_exit;
    void *exit_ud;
    doc_store *docs;
    enum lsp_state state;
    int exit_code;
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
    struct lsp_config cfg;
    bool cli_log_level;       /* --log-level given: it wins over log.level */
    struct lsp_ccdb ccdb;
    bool grammar_ok;
    const char *grammar_why;
    bool told_no_compiler;
    bool compiles_disabled;   /* lsp_server_disable_compiles */
    size_t jobs_running;
    struct lsp_eps *eps;      /* episodes.c state */
};

/* server.c: messages to the user (window/logMessage, window/showMessage; type 1 error,
 * 2 warning, 3 info, 4 log), also written to the log. */
void lsp_log_message(struct lsp_server *s, int type, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lsp_show_message(struct lsp_server *s, int type, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* server.c: requests to the client. Each checks the client's capability first
 * (HK_EUNSUPPORTED when missing) and otherwise returns what rpc_request returns; cb is
 * called exactly once when HK_OK is returned. edit/range: stolen (NULL allowed). */
int lsp_client_apply_edit(struct lsp_server *s, const char *label, json_t *edit,
                          rpc_reply_fn cb, void *ud);
int lsp_client_progress_create(struct lsp_server *s, const char *token, rpc_reply_fn cb,
                               void *ud);
/* Without client support it falls back to a window/showMessage naming the path
 * (Neovim 0.7) and returns HK_EUNSUPPORTED; cb is then not called. */
int lsp_client_show_document(struct lsp_server *s, const char *uri, bool take_focus,
                             json_t *selection, rpc_reply_fn cb, void *ud);

/* config.c */
void lsp_config_init(struct lsp_config *c);
void lsp_config_free(struct lsp_config *c);
/* Rebuilds s->cfg from the layers; reports bad keys with window/logMessage. */
void lsp_config_rebuild(struct lsp_server *s);
/* Re-reads .hyperkernel.json when its mtime changed (or it appeared/vanished);
 * rebuilds s->cfg then. Returns true when it changed. */
bool lsp_config_refresh_file(struct lsp_server *s);
/* Builds the compile options for path: backend/arch from the target (or from the file
 * extension when no target is set), flags from the config and compile_commands.json.
 * *extra_out: new NULL-terminated vector (lsp_strv_free). HK_OK or HK_ENOMEM. */
int lsp_compile_options(struct lsp_server *s, const char *path, cc_options *o,
                        char ***extra_out);
void lsp_ccdb_free(struct lsp_ccdb *db);
void lsp_strv_free(char **v);
/* New file path for a file:// uri (percent-decoded), or NULL (other scheme, ENOMEM). */
char *lsp_uri_to_path(const char *uri);
/* New file:// uri for an absolute path, or NULL. */
char *lsp_path_to_uri(const char *path);
/* Splits a shell-like command line (quotes, backslashes) into a new vector; NULL on
 * ENOMEM or an unterminated quote. */
char **lsp_split_command(const char *cmd);

/* trust.c (the blocking list functions are in lsp.h) */
/* The keys of .hyperkernel.json that apply only in a trusted folder, nested
 * (section.key) or dotted, with why (for the warning); config.c filters them out. */
struct lsp_trust_key {
    const char *section;      /* NULL: a top-level key */
    const char *key;
    const char *why;
};
extern const struct lsp_trust_key lsp_trust_keys[];
extern const size_t lsp_trust_n_keys;
/* Reads the user's trust list into s->trusted_folders (blocking: at startup only). */
void lsp_trust_load(struct lsp_server *s);
/* true when the client said the workspace is trusted or the root is in the user's list. */
bool lsp_trusted(const struct lsp_server *s);
/* Records the keys of .hyperkernel.json the last rebuild ignored ("a,b"; borrowed) and,
 * when they changed, reports them (lsp_trust_report). */
void lsp_trust_set_ignored(struct lsp_server *s, const char *keys);
/* Sends the pending report once the initialize response is out: window/showMessage
 * (Warning) naming the ignored keys and how to trust the folder, and one Warning
 * diagnostic per key on .hyperkernel.json (an empty set when none is ignored). */
void lsp_trust_report(struct lsp_server *s);
/* workspace/executeCommand hyperkernel.trustFolder (add) / hyperkernel.untrustFolder:
 * arguments [] (the workspace root) or [{folder}] / ["PATH"] (path or file:// URI). The
 * list is written on the libuv thread pool; then the settings are rebuilt, compiles of
 * open files are redone when the folder became trusted, and call is answered with
 * {folder, file, changed, workspaceTrusted}. */
void lsp_trust_command(struct lsp_server *s, rpc_call *call, json_t *params, bool add);

/* textsync.c */
void lsp_register_textsync(struct lsp_server *s);
/* Frees the per-document state (cancels its job, closes its timer). */
void lsp_doc_state_free(struct lsp_server *s, struct lsp_doc *ld);
/* The lsp_doc of uri, or NULL when not open. */
struct lsp_doc *lsp_doc_of(doc *d);

/* features.c */
void lsp_register_features(struct lsp_server *s);
/* Typical block size for a kernel: __launch_bounds__ or a literal launch block, else 0. */
int lsp_kernel_block_threads(const an_model *m, const an_function *f, int *dyn_smem);
/* Appends a one-line resource summary ("32 registers, 0 B spill, ...") to buf. */
struct hk_buf;
int lsp_resource_summary(const cc_resource *r, const an_model *m, const an_function *f,
                         struct hk_buf *buf);
/* LSP Range JSON (new reference) for a byte span of d, or NULL. */
json_t *lsp_range_json(struct lsp_server *s, const doc *d, uint32_t start, uint32_t end);

/* diagnostics.c */
/* Schedules a compile of d after delay_ms (the configured debounce when negative). */
void lsp_diag_schedule(struct lsp_server *s, doc *d, int delay_ms);
/* Replaces one source's diagnostics of d (stolen; NULL clears) and publishes the
 * merged set. */
void lsp_diag_set(struct lsp_server *s, doc *d, enum lsp_diag_source src, json_t *diags);
/* Publishes an empty set for uri (on close). */
void lsp_diag_clear_uri(struct lsp_server *s, const char *uri);
void lsp_diag_cancel_all(struct lsp_server *s);

#endif
