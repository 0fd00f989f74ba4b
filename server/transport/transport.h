/* LSP base protocol transport: Content-Length framing (a pure, incremental parser that
 * the fuzzer and the unit tests drive directly) and a libuv connection on stdin/stdout
 * that feeds it and queues writes without ever blocking the loop.
 * Loop thread only. */
#ifndef HK_TRANSPORT_TRANSPORT_H
#define HK_TRANSPORT_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#include "core/buf.h"

/* Caps on what a client may send (STYLE.md 8). */
#define TR_MAX_HEADER_LINE 1024          /* bytes in one header line, CRLF included */
#define TR_MAX_HEADERS 16                /* header lines before the blank line */
#define TR_DEFAULT_MAX_BODY (64u << 20)  /* Content-Length cap */

/* ---- framing ---- */

/* A complete message body (borrowed for the call; not NUL-terminated at len, though a
 * NUL follows it in memory). */
typedef void (*tr_message_fn)(const char *body, size_t len, void *ud);
/* A framing error: err is HK_EPARSE (malformed header), HK_ETOOBIG (a cap was hit) or
 * HK_ENOMEM; msg is a human sentence (borrowed for the call). After it the framer
 * resynchronises: it drops input up to the next "Content-Length:" (a JSON body
 * practically never contains that text; bodies are not newline-terminated, so it is
 * looked for anywhere, not only at line starts). */
typedef void (*tr_error_fn)(int err, const char *msg, void *ud);
/* A complete body of TR_OWNED_BODY_BYTES or more, given away: body (hk_free; NUL at len)
 * is the callee's. Such a body is gathered in a buffer of its own, allocated once from
 * its Content-Length, and never copied again (a 742 KB didOpen grown by doubling, then
 * copied for its decode, cost the loop 400-600 page faults). */
typedef void (*tr_owned_message_fn)(char *body, size_t len, void *ud);
#define TR_OWNED_BODY_BYTES ((size_t)64 << 10)
/* Asked for the buffer of a large body (size bytes) when tr_framer_set_big_alloc set it:
 * HK_OK means the buffer comes later through tr_framer_big_ready, and until then the
 * framer only buffers what it is fed (the caller stops feeding it); anything else and
 * the framer allocates the buffer itself, at once. The connection has the pool allocate
 * it and touch its pages: the 742 KB didOpen landing in fresh pages was 180-220 page
 * faults (4-7 ms) on the loop. */
typedef int (*tr_big_alloc_fn)(size_t size, void *ud);

struct tr_framer {
    struct hk_buf in;        /* input; never holds more than one body + headers + a chunk */
    size_t head;             /* in.data[head..in.len) is not parsed yet */
    size_t max_body;
    size_t body_len;         /* length of the body being waited for */
    bool in_body;            /* headers done; waiting for body_len bytes */
    bool resync;             /* dropping input until a "Content-Length:" */
    char *big;               /* the large body being gathered (on_owned set), or NULL */
    size_t big_have;         /* bytes of it received */
    bool big_wait;           /* its buffer was asked of big_alloc and is not here yet */
    bool yield_each;         /* tr_framer_set_yield: hold after each message delivered */
    bool held;               /* holding: more input is buffered, tr_framer_resume parses it */
    tr_big_alloc_fn big_alloc;
    void *big_alloc_ud;
    tr_message_fn on_message;
    tr_error_fn on_error;
    tr_owned_message_fn on_owned; /* NULL: every body through on_message */
    void *ud;
};

/* Initialises f (value struct, no allocation yet). max_body 0: TR_DEFAULT_MAX_BODY. */
void tr_framer_init(struct tr_framer *f, size_t max_body, tr_message_fn on_message,
                    tr_error_fn on_error, void *ud);
/* Large bodies go to fn, owned, instead of on_message (tr_owned_message_fn). */
void tr_framer_set_owned(struct tr_framer *f, tr_owned_message_fn fn);
/* A large body's buffer is asked of fn (tr_big_alloc_fn), with ud. */
void tr_framer_set_big_alloc(struct tr_framer *f, tr_big_alloc_fn fn, void *ud);
/* With on, the framer delivers one message per feed or resume: after a message, when more
 * input is buffered, it holds it (tr_framer_held) until tr_framer_resume, and the caller
 * feeds nothing meanwhile. The connection resumes on the loop's next iteration, so the
 * messages of one read are handled one per iteration (three of 2-3 ms each in one read
 * were one 5.33 ms iteration: bench/results/lsp-2026-12-06-s35-loop.md). */
void tr_framer_set_yield(struct tr_framer *f, bool on);
/* Whether the framer holds buffered input after a message (feed nothing more). */
bool tr_framer_held(const struct tr_framer *f);
/* Parses the held input as tr_framer_feed does (at most one message with yield on);
 * returns whether it holds again. Not from within a callback of f. */
bool tr_framer_resume(struct tr_framer *f);
/* Whether a large body's buffer was asked for and has not come (feed nothing more). */
bool tr_framer_big_waiting(const struct tr_framer *f);
/* The buffer asked for (hk_malloc'd, at least the size asked, stolen), or NULL to have
 * the framer allocate it here; then parses what was buffered meanwhile, calling the
 * callbacks as tr_framer_feed does. HK_OK or HK_ENOMEM (the body is dropped with an
 * error, and the framer resynchronises). Not from within a callback of f. */
int tr_framer_big_ready(struct tr_framer *f, char *buf);
/* Feeds len bytes. Calls on_message for each complete message and on_error for each
 * framing error, synchronously, in order. Returns HK_OK or HK_ENOMEM (input that could
 * not be buffered is reported through on_error too, and dropped). Callbacks must not
 * call tr_framer_feed or tr_framer_free on the same framer. */
int tr_framer_feed(struct tr_framer *f, const char *data, size_t len);
/* Bytes of an unfinished message buffered now (for tests and EOF diagnostics). */
size_t tr_framer_pending(const struct tr_framer *f);
void tr_framer_free(struct tr_framer *f);

/* New "Content-Length: N\r\n\r\n" + body in *out (hk_free), total length in *out_len.
 * HK_OK or HK_ENOMEM. */
int tr_frame(const char *body, size_t len, char **out, size_t *out_len);

/* ---- connection on file descriptors ---- */

typedef struct tr_conn tr_conn;

/* Called once when input ends (EOF, read error or close); the connection stays usable
 * for writes until tr_conn_close. err: HK_OK for a clean EOF, else HK_EIO. */
typedef void (*tr_eof_fn)(int err, void *ud);

struct tr_conn_cbs {
    tr_message_fn on_message;
    tr_error_fn on_error;
    tr_eof_fn on_eof;
    void *ud;
    tr_owned_message_fn on_owned_message; /* optional: see tr_framer_set_owned */
};

/* Opens a connection reading in_fd and writing out_fd (0 and 1 for stdio). Pipes,
 * sockets and TTYs are read through libuv streams; a regular file is read with
 * uv_fs_read (so `hkls < transcript` works); writes to a regular file are done with
 * uv_fs_write, in order. Reading starts at once. HK_OK, HK_ENOMEM, HK_EIO. */
int tr_conn_open(uv_loop_t *loop, int in_fd, int out_fd, size_t max_body,
                 const struct tr_conn_cbs *cbs, tr_conn **out);
/* Bodies of this many bytes or more are written to a stream from the libuv pool (the
 * messages sent after one wait for it: the wire keeps the send order). */
#define TR_POOL_WRITE_BYTES ((size_t)64 << 10)

/* Queues body (copied) for writing; never blocks. HK_OK, HK_ENOMEM, HK_ETOOBIG (more than
 * the queued-bytes cap is waiting: the client is not reading), HK_EIO (the output is
 * closed). */
int tr_conn_send(tr_conn *c, const char *body, size_t len);
/* Same without the copy: body (hk_malloc'd, len bytes) is stolen, on error too, and freed
 * once written. The Content-Length header goes in a buffer of its own. */
int tr_conn_send_owned(tr_conn *c, char *body, size_t len);
/* Called once, on the loop, when a lent part is no longer needed (written, dropped, or
 * at once on error). */
typedef void (*tr_release_fn)(void *arg);
/* Queues one message whose body is head (hk_malloc'd, stolen; may be NULL with
 * head_len 0), then lent (lent_len bytes, read in place, possibly from a pool thread,
 * until release(arg)), then tail (static storage). Nothing of lent is copied. Errors as
 * tr_conn_send; on error head is freed and release called. */
int tr_conn_send_parts(tr_conn *c, char *head, size_t head_len, const char *lent,
                       size_t lent_len, const char *tail, size_t tail_len, tr_release_fn release,
                       void *arg);
/* Bytes queued and not yet written. */
size_t tr_conn_queued(const tr_conn *c);
/* Stops reading, lets queued writes finish, then closes the handles and frees c in
 * their close callbacks; uv_run returns once that is done. c is invalid afterwards. */
void tr_conn_close(tr_conn *c);

#endif
