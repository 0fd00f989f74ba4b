/* The hkls language server: LSP lifecycle, text sync, documentSymbol, hover and
 * background compile diagnostics on one libuv loop. lsp_main runs it on stdio; the
 * lsp_server_* functions embed it behind any byte transport (tests, the fuzzer).
 * Loop thread only. */
#ifndef HK_LSP_LSP_H
#define HK_LSP_LSP_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#include "rpc/rpc.h"

struct lsp_opts {
    const char *log_path;   /* NULL: log to stderr */
    const char *log_level;  /* "error".."trace"; NULL: "warn" */
    int in_fd, out_fd;      /* normally 0 and 1 */
};

/* Runs the server until `exit` or the end of input. Returns the process exit code:
 * 0 after shutdown + exit, 1 when input ended or exit came without shutdown, 2 when
 * it could not start (bad options, no log file). */
int lsp_main(const struct lsp_opts *o);

typedef struct lsp_server lsp_server;

/* Sends one JSON body to the client (borrowed for the call). */
typedef int (*lsp_send_fn)(const char *body, size_t len, void *ud);
/* Same, taking the body (hk_malloc'd; stolen, on error too). */
typedef int (*lsp_send_owned_fn)(char *body, size_t len, void *ud);
/* Called once when the client sent `exit` or input ended; the host stops reading. */
typedef void (*lsp_exit_fn)(int exit_code, void *ud);

/* New server in *out. loop runs its timers and compile jobs. HK_OK or HK_ENOMEM. */
int lsp_server_new(uv_loop_t *loop, lsp_send_fn send, void *send_ud, lsp_server **out);
void lsp_server_set_exit_cb(lsp_server *s, lsp_exit_fn fn, void *ud);
/* Messages the server serialised itself go out through fn instead of being copied by the
 * send function (same ud); optional. */
void lsp_server_set_send_owned(lsp_server *s, lsp_send_owned_fn fn);
/* Large replies kept by the server (the documentSymbol text) go out through fn without
 * a copy (rpc_send_parts_fn; same ud); optional: without it they are copied. */
void lsp_server_set_send_parts(lsp_server *s, rpc_send_parts_fn fn);
/* Never start compiler processes, whatever the settings say (fuzzing, tests). */
void lsp_server_disable_compiles(lsp_server *s);
/* One message body from the client. Always HK_OK except HK_ENOMEM. */
int lsp_server_feed(lsp_server *s, const char *body, size_t len);
/* Same, taking body (hk_malloc'd, NUL at len; stolen, on error too): a large one is
 * decoded on the pool without being copied first. */
int lsp_server_feed_owned(lsp_server *s, char *body, size_t len);
/* A framing error from the transport (err HK_EPARSE/HK_ETOOBIG/HK_ENOMEM; msg
 * borrowed): answered with an error response with id null. */
void lsp_server_framing_error(lsp_server *s, int err, const char *msg);
/* The input ended: behaves like `exit` (code 0 after shutdown, else 1). */
void lsp_server_input_closed(lsp_server *s);
bool lsp_server_exited(const lsp_server *s);
int lsp_server_exit_code(const lsp_server *s);
/* Cancels compile jobs and closes timers; run the loop afterwards until it is idle,
 * then call lsp_server_free. Idempotent. */
void lsp_server_stop(lsp_server *s);
void lsp_server_free(lsp_server *s);

/* ---- workspace trust (trust.c; docs/config.md "Trusted folders") ----
 * A folder's .hyperkernel.json may name programs to run (compile.nvcc, compile.hipcc),
 * compiler flags and engines, or switch on the simulated GPU; those keys apply only to
 * folders the user trusts. The trust list is the user's own file, a JSON array of
 * canonical absolute folder paths; a trusted folder trusts everything below it. These
 * functions block on disk: call them at startup, from the CLI or on a pool thread. */

/* Path of the trust list: $XDG_CONFIG_HOME/hyperkernel/trusted.json, else
 * $HOME/.config/hyperkernel/trusted.json. *out: new string. HK_OK, HK_ENOENT (neither
 * variable set), HK_ENOMEM. */
int lsp_trust_file(char **out);
/* Reads the list in file: *out is a new NULL-terminated vector (free with
 * lsp_trust_free), empty when the file does not exist. HK_OK, HK_EPARSE (not a JSON
 * array of absolute paths), HK_ETOOBIG (over 1 MiB), HK_EIO, HK_ENOMEM; *out is NULL on
 * error. */
int lsp_trust_read(const char *file, char ***out);
void lsp_trust_free(char **folders);
/* true when path (absolute, canonical) is one of folders or lies below one (whole path
 * components: /a/bc is not below /a/b). folders may be NULL. Pure. */
bool lsp_trust_covers(char *const *folders, const char *path);
/* Adds folder to the list in file (add true) or removes it. The folder is made canonical
 * with realpath (it must exist to be added; a folder that is gone can still be removed by
 * the absolute path it was added with). The file and its directory are created as
 * needed; the new list replaces the old one atomically (temporary file, fsync, rename)
 * under an flock of FILE.lock, so two writers never lose each other's change. *canon
 * (may be NULL): new string, the folder as stored. *changed (may be NULL): whether the
 * list changed. HK_OK, HK_ENOENT (folder missing when adding), HK_EINVAL (empty path),
 * HK_EPARSE (the existing file is broken: it is left alone), HK_EIO, HK_ENOMEM. */
int lsp_trust_update(const char *file, const char *folder, bool add, char **canon,
                     bool *changed);

#endif
