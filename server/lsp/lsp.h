/* The hkls language server: LSP lifecycle, text sync, documentSymbol, hover and
 * background compile diagnostics on one libuv loop. lsp_main runs it on stdio; the
 * lsp_server_* functions embed it behind any byte transport (tests, the fuzzer).
 * Loop thread only. */
#ifndef HK_LSP_LSP_H
#define HK_LSP_LSP_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

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
/* Called once when the client sent `exit` or input ended; the host stops reading. */
typedef void (*lsp_exit_fn)(int exit_code, void *ud);

/* New server in *out. loop runs its timers and compile jobs. HK_OK or HK_ENOMEM. */
int lsp_server_new(uv_loop_t *loop, lsp_send_fn send, void *send_ud, lsp_server **out);
void lsp_server_set_exit_cb(lsp_server *s, lsp_exit_fn fn, void *ud);
/* Never start compiler processes, whatever the settings say (fuzzing, tests). */
void lsp_server_disable_compiles(lsp_server *s);
/* One message body from the client. Always HK_OK except HK_ENOMEM. */
int lsp_server_feed(lsp_server *s, const char *body, size_t len);
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

#endif
