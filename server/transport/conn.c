/* The stdio connection: reads the client's bytes into the framer and writes framed
 * replies, all through libuv so the loop never blocks on a slow or stuck client.
 * Memory of a handle is freed only in its close callback (libuv's rule).
 * A message of TR_POOL_WRITE_BYTES or more is written to a stream from the libuv pool:
 * the write(2) of a 1 MB documentSymbol reply into the pipe took 0.5-4 ms of the loop's
 * CPU (the kernel copies it and allocates the pipe's pages). The messages sent after it
 * wait in the connection's queue and follow it in order; it starts only when the loop's
 * own stream writes before it are done, so the bytes on the wire keep the send order. */
#include "transport/transport.h"

#include "core/hk.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define READ_CHUNK (64u << 10)
#define MAX_QUEUED ((size_t)256 << 20) /* bytes waiting for a client that does not read */
#define CLOSE_GRACE_MS 1000            /* how long queued writes may delay exit */
#define PIPE_SIZE (1 << 20)            /* Linux's default limit for unprivileged processes */
#define POOL_POLL_MS 50                /* a pool write checks for an abort this often */

enum io_kind { IO_STREAM, IO_FILE };

/* One framed message: the Content-Length header and the body, written as two buffers. */
struct wreq {
    union {
        uv_write_t w;
        uv_fs_t fs;
        uv_work_t work;
    } u;
    struct wreq *next; /* FIFO of writes not yet started (IO_FILE; IO_STREAM behind a
                        * pool write) */
    tr_conn *conn;
    char *data;        /* body (owned), or its first part (tr_conn_send_parts) */
    const char *lent;  /* tr_conn_send_parts: the lent part, then tail */
    size_t lent_len;
    const char *tail;
    size_t tail_len;
    tr_release_fn release; /* called with release_arg when the lent part is done */
    void *release_arg;
    size_t len;        /* body bytes: data's, or all parts' */
    size_t data_len;
    char head[40];     /* "Content-Length: N\r\n\r\n" */
    size_t head_len;
    size_t off;        /* IO_FILE and pool writes: bytes of head + body already written */
    int err;           /* pool write: 0 or a negative errno */
};

struct tr_conn {
    uv_loop_t *loop;
    struct tr_framer framer;
    struct tr_conn_cbs cbs;

    enum io_kind in_kind, out_kind;
    int in_fd, out_fd;
    int out_stream_fd;       /* the output stream's descriptor, which pool writes use
                              * (libuv reopens a TTY: not always out_fd) */
    union {
        uv_pipe_t pipe;
        uv_tty_t tty;
        uv_stream_t stream;
    } in, out;
    bool in_open, out_open;  /* stream handles initialised and not yet closed */
    uv_fs_t in_req;          /* IO_FILE reads */
    char *in_buf;            /* IO_FILE read buffer */
    bool reading;            /* a file read is in flight */
    bool eof;                /* on_eof was called */
    struct big_alloc *big_job; /* a large body's buffer being allocated on the pool; reading
                                * waits for it */
    bool big_ready;          /* inside tr_framer_big_ready (its handlers may close c) */
    uv_idle_t resume;        /* the framer holds input: parse it on the next iteration */
    bool resume_open;        /* resume initialised and not yet closed */
    bool resuming;           /* inside tr_framer_resume (its handlers may close c) */

    struct wreq *fq_head, *fq_tail; /* IO_FILE write queue; head is in flight.
                                     * IO_STREAM: messages waiting behind a pool write */
    struct wreq *pool_write;        /* IO_STREAM: the message being written on the pool */
    unsigned stream_writes;         /* IO_STREAM: uv_write requests not called back */
    atomic_bool abort_writes;       /* tells a pool write to give up (exit grace over) */
    size_t queued;
    bool out_broken;

    bool closing;
    uv_timer_t grace;
    bool grace_open;
    int open_handles;        /* handles whose close callback is still due */
};

static void conn_maybe_free(tr_conn *c)
{
    if (!c->closing || c->open_handles > 0 || c->reading || c->fq_head || c->pool_write ||
        c->stream_writes || c->big_job || c->big_ready || c->resuming)
        return;
    tr_framer_free(&c->framer);
    hk_free(c->in_buf);
    hk_free(c);
}

static void handle_closed(uv_handle_t *h)
{
    tr_conn *c = h->data;
    c->open_handles--;
    conn_maybe_free(c);
}

static void close_handle(tr_conn *c, uv_handle_t *h)
{
    if (uv_is_closing(h))
        return;
    uv_close(h, handle_closed);
}

static void signal_eof(tr_conn *c, int err)
{
    if (c->eof)
        return;
    c->eof = true;
    if (c->cbs.on_eof)
        c->cbs.on_eof(err, c->cbs.ud);
}

/* ---- reading ---- */

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    tr_conn *c = h->data;
    (void)suggested;
    if (!c->in_buf)
        c->in_buf = hk_malloc(READ_CHUNK);
    buf->base = c->in_buf;
    buf->len = c->in_buf ? READ_CHUNK : 0;
}

/* ---- one message per iteration ----
 * The framer hands over one message and holds what else one read brought (yield on):
 * reading stops, and the idle handle parses the next message on the loop's next
 * iteration, after whatever else became ready meanwhile. */

static void file_read_start(tr_conn *c);
static void stream_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);

static void read_again(tr_conn *c)
{
    if (c->in_kind == IO_STREAM) {
        if (c->in_open && uv_read_start(&c->in.stream, alloc_cb, stream_read_cb) < 0)
            signal_eof(c, HK_EIO);
    } else if (!c->reading) {
        file_read_start(c);
    }
}

static void resume_cb(uv_idle_t *h)
{
    tr_conn *c = h->data;
    uv_idle_stop(h);
    if (c->closing)
        return;
    c->resuming = true; /* a message handler's close must not free c meanwhile */
    bool held = tr_framer_resume(&c->framer);
    c->resuming = false;
    if (c->closing || c->eof) {
        conn_maybe_free(c);
        return;
    }
    if (c->big_job)
        return; /* a large body's buffer is being made: big_alloc_after goes on */
    if (held)
        uv_idle_start(h, resume_cb);
    else
        read_again(c);
}

/* After a feed: true when the framer holds input and reading must wait for resume_cb. */
static bool hold_input(tr_conn *c)
{
    if (!tr_framer_held(&c->framer) || !c->resume_open)
        return false;
    if (c->in_kind == IO_STREAM && c->in_open)
        uv_read_stop(&c->in.stream);
    uv_idle_start(&c->resume, resume_cb);
    return true;
}

static void stream_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    tr_conn *c = s->data;
    (void)buf;
    if (n > 0) {
        tr_framer_feed(&c->framer, c->in_buf, (size_t)n);
        if (!c->closing && !c->big_job)
            hold_input(c);
        return;
    }
    if (n == 0)
        return; /* EAGAIN */
    uv_read_stop(s);
    if (n != UV_EOF)
        HK_WARN("transport: read failed: %s", uv_strerror((int)n));
    signal_eof(c, n == UV_EOF ? HK_OK : HK_EIO);
}

static void file_read_cb(uv_fs_t *req)
{
    tr_conn *c = req->data;
    ssize_t n = req->result;
    uv_fs_req_cleanup(req);
    if (c->closing) {
        c->reading = false;
        conn_maybe_free(c);
        return;
    }
    if (n > 0) {
        /* c->reading stays true while feeding: a message handler may close c, and
         * that must not free the framer under our feet. */
        tr_framer_feed(&c->framer, c->in_buf, (size_t)n);
        c->reading = false;
        if (!c->closing && !c->eof && !c->big_job && !hold_input(c))
            file_read_start(c);
        else
            conn_maybe_free(c);
        return;
    }
    c->reading = false;
    if (n < 0)
        HK_WARN("transport: read failed: %s", uv_strerror((int)n));
    signal_eof(c, n == 0 ? HK_OK : HK_EIO);
}

static void file_read_start(tr_conn *c)
{
    uv_buf_t b = uv_buf_init(c->in_buf, READ_CHUNK);
    c->in_req.data = c;
    int rc = uv_fs_read(c->loop, &c->in_req, c->in_fd, &b, 1, -1, file_read_cb);
    if (rc < 0) {
        HK_WARN("transport: cannot read input: %s", uv_strerror(rc));
        signal_eof(c, HK_EIO);
        return;
    }
    c->reading = true;
}

/* ---- a large body's buffer, allocated on the pool ----
 * The pool thread allocates it and touches its pages, and reading waits meanwhile (what
 * was read already stays in the framer): the 742 KB didOpen copied into fresh pages cost
 * the loop 180-220 page faults, 4-7 ms on a VM, after a trim. */

#define PAGE_TOUCH_STRIDE 4096

struct big_alloc {
    uv_work_t req;
    tr_conn *conn;
    size_t size;
    char *buf;  /* hk_malloc'd here, or NULL (the framer then allocates it) */
};

static void big_alloc_work(uv_work_t *req)
{
    hk_thread_background();
    struct big_alloc *b = req->data;
    b->buf = hk_malloc(b->size);
    if (!b->buf)
        return;
    for (size_t i = 0; i < b->size; i += PAGE_TOUCH_STRIDE)
        b->buf[i] = 0;
    b->buf[b->size - 1] = 0;
}

static void big_alloc_after(uv_work_t *req, int status)
{
    (void)status; /* cancelled: no buffer, which the framer makes itself */
    struct big_alloc *b = req->data;
    tr_conn *c = b->conn;
    char *buf = b->buf;
    hk_free(b);
    c->big_job = NULL;
    c->big_ready = true; /* a message handler's close must not free c meanwhile */
    if (!c->closing)
        tr_framer_big_ready(&c->framer, buf);
    else
        hk_free(buf);
    c->big_ready = false;
    if (c->closing || c->eof) { /* closed before, or by a message handler just now */
        conn_maybe_free(c);
        return;
    }
    if (c->big_job)
        return; /* the framer asked for the next large body's buffer: reading waits on */
    if (!hold_input(c))
        read_again(c);
}

/* tr_big_alloc_fn: queues the allocation and stops reading until it is back. */
static int big_alloc_cb(size_t size, void *ud)
{
    tr_conn *c = ud;
    if (c->big_job || c->closing || size == 0)
        return HK_EINVAL;
    struct big_alloc *b = hk_calloc(1, sizeof *b);
    if (!b)
        return HK_ENOMEM;
    b->req.data = b;
    b->conn = c;
    b->size = size;
    if (uv_queue_work(c->loop, &b->req, big_alloc_work, big_alloc_after)) {
        hk_free(b);
        return HK_EIO;
    }
    c->big_job = b;
    if (c->in_kind == IO_STREAM && c->in_open)
        uv_read_stop(&c->in.stream); /* a file read is simply not started again */
    return HK_OK;
}

/* ---- writing ---- */

static void wreq_free(struct wreq *w)
{
    hk_free(w->data);
    if (w->release)
        w->release(w->release_arg);
    hk_free(w);
}

static size_t wreq_total(const struct wreq *w) { return w->head_len + w->len; }

#define WREQ_MAX_BUFS 4

/* The buffers of what is left to write of w (up to WREQ_MAX_BUFS). */
static unsigned wreq_bufs(struct wreq *w, uv_buf_t b[WREQ_MAX_BUFS])
{
    const char *part[WREQ_MAX_BUFS] = {w->head, w->data, w->lent, w->tail};
    size_t len[WREQ_MAX_BUFS] = {w->head_len, w->data_len, w->lent_len, w->tail_len};
    unsigned n = 0;
    size_t off = w->off;
    for (unsigned i = 0; i < WREQ_MAX_BUFS; i++) {
        if (off >= len[i]) {
            off -= len[i];
            continue;
        }
        b[n++] = uv_buf_init((char *)part[i] + off, (unsigned)(len[i] - off));
        off = 0;
    }
    return n;
}

/* Drops the messages not yet started (the output broke or the exit grace is over). */
static void drop_waiting(tr_conn *c)
{
    while (c->fq_head) {
        struct wreq *x = c->fq_head;
        c->fq_head = x->next;
        c->queued -= wreq_total(x);
        wreq_free(x);
    }
    c->fq_tail = NULL;
}

/* Closing and everything written (or given up): the output handle can go. A pool write
 * still out keeps it open, since it writes to the handle's descriptor. */
static void stream_maybe_close_out(tr_conn *c)
{
    if (!c->closing || !c->out_open || c->pool_write)
        return;
    if (c->queued != 0 && !atomic_load(&c->abort_writes))
        return;
    c->out_open = false;
    close_handle(c, (uv_handle_t *)&c->out.stream);
    if (c->grace_open) {
        c->grace_open = false;
        uv_timer_stop(&c->grace);
        close_handle(c, (uv_handle_t *)&c->grace);
    }
}

static void stream_kick(tr_conn *c);

static void stream_write_cb(uv_write_t *req, int status)
{
    struct wreq *w = req->data;
    tr_conn *c = w->conn;
    c->stream_writes--;
    c->queued -= wreq_total(w);
    if (status < 0 && !c->out_broken) {
        c->out_broken = true;
        HK_WARN("transport: write failed: %s", uv_strerror(status));
    }
    wreq_free(w);
    stream_kick(c);
    stream_maybe_close_out(c);
    conn_maybe_free(c);
}

/* Pool thread: writes what is left of the message, waiting in poll(2) while the pipe is
 * full; gives up when the loop sets abort_writes. Reads only w and the descriptor. */
static void pool_write_work(uv_work_t *req)
{
    hk_thread_background();
    struct wreq *w = req->data;
    tr_conn *c = w->conn;
    while (w->off < wreq_total(w)) {
        if (atomic_load(&c->abort_writes)) {
            w->err = -ECANCELED;
            return;
        }
        uv_buf_t b[WREQ_MAX_BUFS];
        struct iovec iov[WREQ_MAX_BUFS];
        unsigned n = wreq_bufs(w, b);
        for (unsigned i = 0; i < n; i++) {
            iov[i].iov_base = b[i].base;
            iov[i].iov_len = b[i].len;
        }
        ssize_t k = writev(c->out_stream_fd, iov, (int)n);
        if (k > 0) {
            w->off += (size_t)k;
        } else if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = c->out_stream_fd, .events = POLLOUT};
            (void)poll(&p, 1, POOL_POLL_MS);
        } else if (k < 0 && errno != EINTR) {
            w->err = -errno;
            return;
        }
    }
}

static void pool_write_after(uv_work_t *req, int status)
{
    struct wreq *w = req->data;
    tr_conn *c = w->conn;
    c->pool_write = NULL;
    c->queued -= wreq_total(w);
    int err = status ? status : w->err;
    if (err && err != -ECANCELED && !c->out_broken) {
        c->out_broken = true;
        HK_WARN("transport: write failed: %s", uv_strerror(err));
    }
    wreq_free(w);
    if (c->out_broken || atomic_load(&c->abort_writes))
        drop_waiting(c);
    stream_kick(c);
    stream_maybe_close_out(c);
    conn_maybe_free(c);
}

/* Starts w on the loop's stream (HK_OK) or fails with the output marked broken. */
static int stream_start(tr_conn *c, struct wreq *w)
{
    uv_buf_t b[WREQ_MAX_BUFS];
    unsigned n = wreq_bufs(w, b);
    w->u.w.data = w;
    int urc = uv_write(&w->u.w, &c->out.stream, b, n, stream_write_cb);
    if (urc < 0) {
        c->queued -= wreq_total(w);
        wreq_free(w);
        c->out_broken = true;
        drop_waiting(c);
        return HK_EIO;
    }
    c->stream_writes++;
    return HK_OK;
}

/* Starts the waiting messages whose turn it is: small ones on the loop's stream while no
 * pool write is out, a large one on the pool once the stream's writes before it are done.
 * HK_OK, or HK_EIO when the output broke (the waiting ones are dropped). */
static void stream_kick(tr_conn *c)
{
    while (c->fq_head && !c->pool_write && !c->out_broken && c->out_open) {
        struct wreq *w = c->fq_head;
        bool big = w->len >= TR_POOL_WRITE_BYTES;
        if (big && c->stream_writes)
            return; /* stream_write_cb kicks again */
        c->fq_head = w->next;
        if (!c->fq_head)
            c->fq_tail = NULL;
        w->next = NULL;
        if (!big) {
            if (stream_start(c, w))
                return;
            continue;
        }
        w->u.work.data = w;
        if (uv_queue_work(c->loop, &w->u.work, pool_write_work, pool_write_after) == 0) {
            c->pool_write = w;
            return;
        }
        if (stream_start(c, w)) /* no pool (the loop is closing): on the loop */
            return;
    }
}

static void file_write_next(tr_conn *c);
static void queue_append(tr_conn *c, struct wreq *w);

static void file_write_cb(uv_fs_t *req)
{
    struct wreq *w = req->data;
    tr_conn *c = w->conn;
    ssize_t n = req->result;
    uv_fs_req_cleanup(req);
    if (n > 0 && !c->out_broken) {
        w->off += (size_t)n;
        if (w->off < wreq_total(w)) {
            file_write_next(c); /* short write: continue the same request */
            return;
        }
    } else if (!c->out_broken) {
        c->out_broken = true;
        HK_WARN("transport: write failed: %s", n < 0 ? uv_strerror((int)n) : "short write");
    }
    c->fq_head = w->next;
    if (!c->fq_head)
        c->fq_tail = NULL;
    c->queued -= wreq_total(w);
    wreq_free(w);
    if (c->fq_head && !c->out_broken)
        file_write_next(c);
    else if (c->out_broken)
        drop_waiting(c);
    if (!c->fq_head)
        c->fq_tail = NULL;
    conn_maybe_free(c);
}

static void file_write_next(tr_conn *c)
{
    struct wreq *w = c->fq_head;
    uv_buf_t b[WREQ_MAX_BUFS];
    unsigned n = wreq_bufs(w, b);
    w->u.fs.data = w;
    int rc = uv_fs_write(c->loop, &w->u.fs, c->out_fd, b, n, -1, file_write_cb);
    if (rc < 0) {
        /* Report through the callback path so the queue is drained in one place. */
        w->u.fs.result = rc;
        file_write_cb(&w->u.fs);
    }
}

static void queue_append(tr_conn *c, struct wreq *w)
{
    if (c->fq_tail)
        c->fq_tail->next = w;
    else
        c->fq_head = w;
    c->fq_tail = w;
}

/* Queues w (body parts set; owned by the queue now, freed on error too). */
static int send_wreq(tr_conn *c, struct wreq *w)
{
    if (c->out_broken || (c->closing && !c->out_open && c->out_kind == IO_STREAM)) {
        wreq_free(w);
        return HK_EIO;
    }
    if (c->queued > MAX_QUEUED) {
        wreq_free(w);
        return HK_ETOOBIG;
    }
    w->conn = c;
    w->len = w->data_len + w->lent_len + w->tail_len;
    w->head_len =
        (size_t)snprintf(w->head, sizeof w->head, "Content-Length: %zu\r\n\r\n", w->len);
    c->queued += wreq_total(w);
    if (c->out_kind == IO_STREAM) {
        if (w->len < TR_POOL_WRITE_BYTES && !c->fq_head && !c->pool_write)
            return stream_start(c, w); /* the common case: nothing waits, written now */
        queue_append(c, w);
        stream_kick(c);
        return c->out_broken ? HK_EIO : HK_OK;
    }
    bool idle = c->fq_head == NULL;
    queue_append(c, w);
    if (idle)
        file_write_next(c);
    return HK_OK;
}

int tr_conn_send_owned(tr_conn *c, char *body, size_t len)
{
    struct wreq *w = hk_calloc(1, sizeof *w);
    if (!w) {
        hk_free(body);
        return HK_ENOMEM;
    }
    w->data = body;
    w->data_len = len;
    return send_wreq(c, w);
}

int tr_conn_send_parts(tr_conn *c, char *head, size_t head_len, const char *lent,
                       size_t lent_len, const char *tail, size_t tail_len, tr_release_fn release,
                       void *arg)
{
    struct wreq *w = hk_calloc(1, sizeof *w);
    if (!w) {
        hk_free(head);
        if (release)
            release(arg);
        return HK_ENOMEM;
    }
    w->data = head;
    w->data_len = head_len;
    w->lent = lent;
    w->lent_len = lent_len;
    w->tail = tail;
    w->tail_len = tail_len;
    w->release = release;
    w->release_arg = arg;
    return send_wreq(c, w);
}

int tr_conn_send(tr_conn *c, const char *body, size_t len)
{
    char *copy = hk_strndup(body, len);
    if (!copy)
        return HK_ENOMEM;
    return tr_conn_send_owned(c, copy, len);
}

size_t tr_conn_queued(const tr_conn *c) { return c->queued; }

/* ---- opening and closing ---- */

static int open_stream(tr_conn *c, int fd, uv_handle_type t, bool readable, uv_stream_t *s)
{
    int rc;
    if (t == UV_TTY) {
        rc = uv_tty_init(c->loop, (uv_tty_t *)s, fd, 0);
    } else {
#ifdef F_SETPIPE_SZ
        /* A 1 MB pipe instead of 64 KB takes a 1.1 MB documentSymbol reply or a 740 KB
         * didOpen in a few reads instead of dozens of wake-ups of both processes. Best
         * effort: a socket, or a limit set lower, keeps what it has. */
        if (t == UV_NAMED_PIPE)
            (void)fcntl(fd, F_SETPIPE_SZ, PIPE_SIZE);
#endif
        rc = uv_pipe_init(c->loop, (uv_pipe_t *)s, 0);
        if (rc == 0) {
            rc = uv_pipe_open((uv_pipe_t *)s, fd);
            if (rc < 0) {
                s->data = c;
                c->open_handles++;
                close_handle(c, (uv_handle_t *)s);
                return rc;
            }
        }
    }
    if (rc < 0)
        return rc;
    (void)readable;
    s->data = c;
    c->open_handles++;
    return 0;
}

static enum io_kind kind_of(uv_handle_type t)
{
    return (t == UV_NAMED_PIPE || t == UV_TTY || t == UV_TCP) ? IO_STREAM : IO_FILE;
}

int tr_conn_open(uv_loop_t *loop, int in_fd, int out_fd, size_t max_body,
                 const struct tr_conn_cbs *cbs, tr_conn **out)
{
    int ret = HK_OK;
    tr_conn *c = hk_calloc(1, sizeof *c);
    if (!c)
        return HK_ENOMEM;
    c->loop = loop;
    c->cbs = *cbs;
    c->in_fd = in_fd;
    c->out_fd = out_fd;
    tr_framer_init(&c->framer, max_body, cbs->on_message, cbs->on_error, cbs->ud);
    tr_framer_set_owned(&c->framer, cbs->on_owned_message);
    if (cbs->on_owned_message)
        tr_framer_set_big_alloc(&c->framer, big_alloc_cb, c);
    if (uv_idle_init(loop, &c->resume) == 0) {
        c->resume.data = c;
        c->open_handles++;
        c->resume_open = true;
        tr_framer_set_yield(&c->framer, true);
    }
    c->in_buf = hk_malloc(READ_CHUNK);
    if (!c->in_buf) {
        ret = HK_ENOMEM;
        goto out;
    }
    uv_handle_type tin = uv_guess_handle(in_fd), tout = uv_guess_handle(out_fd);
    c->in_kind = kind_of(tin);
    c->out_kind = kind_of(tout);
    if (c->in_kind == IO_STREAM) {
        int rc = open_stream(c, in_fd, tin == UV_TCP ? UV_NAMED_PIPE : tin, true, &c->in.stream);
        if (rc < 0) {
            HK_ERROR("transport: cannot open input fd %d: %s", in_fd, uv_strerror(rc));
            ret = HK_EIO;
            goto out;
        }
        c->in_open = true;
    }
    if (c->out_kind == IO_STREAM) {
        int rc = open_stream(c, out_fd, tout == UV_TCP ? UV_NAMED_PIPE : tout, false,
                             &c->out.stream);
        if (rc < 0) {
            HK_ERROR("transport: cannot open output fd %d: %s", out_fd, uv_strerror(rc));
            ret = HK_EIO;
            goto out;
        }
        c->out_open = true;
        uv_os_fd_t sfd;
        c->out_stream_fd = uv_fileno((uv_handle_t *)&c->out.stream, &sfd) == 0 ? sfd : out_fd;
    }
    if (c->in_kind == IO_STREAM) {
        int rc = uv_read_start(&c->in.stream, alloc_cb, stream_read_cb);
        if (rc < 0) {
            HK_ERROR("transport: cannot read input: %s", uv_strerror(rc));
            ret = HK_EIO;
            goto out;
        }
    } else {
        file_read_start(c);
    }
    *out = c;
    return HK_OK;
out:
    /* Handles already initialised must be closed through the loop; free happens in
     * their close callbacks (or now, if none was opened). */
    c->closing = true;
    if (c->in_open)
        close_handle(c, (uv_handle_t *)&c->in.stream);
    if (c->out_open)
        close_handle(c, (uv_handle_t *)&c->out.stream);
    if (c->resume_open)
        close_handle(c, (uv_handle_t *)&c->resume);
    c->in_open = c->out_open = c->resume_open = false;
    conn_maybe_free(c);
    return ret;
}

static void grace_cb(uv_timer_t *t)
{
    tr_conn *c = t->data;
    if (c->out_open)
        HK_WARN("transport: %zu bytes not written at exit (client not reading)", c->queued);
    /* A pool write gives up within POOL_POLL_MS; the handle is closed after it. */
    atomic_store(&c->abort_writes, true);
    if (c->out_kind == IO_STREAM)
        drop_waiting(c);
    c->grace_open = false;
    close_handle(c, (uv_handle_t *)&c->grace);
    stream_maybe_close_out(c);
}

void tr_conn_close(tr_conn *c)
{
    if (!c || c->closing)
        return;
    c->closing = true;
    c->eof = true; /* no on_eof after close */
    /* Messages still buffered in the framer are not delivered after close. */
    c->framer.on_message = NULL;
    c->framer.on_error = NULL;
    c->framer.on_owned = NULL;
    if (c->in_open) {
        uv_read_stop(&c->in.stream);
        c->in_open = false;
        close_handle(c, (uv_handle_t *)&c->in.stream);
    }
    if (c->resume_open) {
        uv_idle_stop(&c->resume);
        c->resume_open = false;
        close_handle(c, (uv_handle_t *)&c->resume);
    }
    if (c->reading)
        uv_cancel((uv_req_t *)&c->in_req); /* file read: its callback frees if cancelled */
    if (c->out_open) {
        if (c->queued == 0) {
            c->out_open = false;
            close_handle(c, (uv_handle_t *)&c->out.stream);
        } else if (uv_timer_init(c->loop, &c->grace) == 0) {
            c->grace.data = c;
            c->open_handles++;
            c->grace_open = true;
            uv_timer_start(&c->grace, grace_cb, CLOSE_GRACE_MS, 0);
        } else {
            c->out_open = false;
            close_handle(c, (uv_handle_t *)&c->out.stream);
        }
    }
    conn_maybe_free(c);
}
