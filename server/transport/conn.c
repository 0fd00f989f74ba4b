/* The stdio connection: reads the client's bytes into the framer and writes framed
 * replies, all through libuv so the loop never blocks on a slow or stuck client.
 * Memory of a handle is freed only in its close callback (libuv's rule). */
#include "transport/transport.h"

#include "core/hk.h"
#include "core/log.h"

#include <fcntl.h>
#include <string.h>

#define READ_CHUNK (64u << 10)
#define MAX_QUEUED ((size_t)256 << 20) /* bytes waiting for a client that does not read */
#define CLOSE_GRACE_MS 1000            /* how long queued writes may delay exit */
#define PIPE_SIZE (1 << 20)            /* Linux's default limit for unprivileged processes */

enum io_kind { IO_STREAM, IO_FILE };

struct wreq {
    union {
        uv_write_t w;
        uv_fs_t fs;
    } u;
    struct wreq *next; /* IO_FILE: FIFO of writes not yet started */
    tr_conn *conn;
    char *data;
    size_t len;
    size_t off; /* IO_FILE: bytes already written */
};

struct tr_conn {
    uv_loop_t *loop;
    struct tr_framer framer;
    struct tr_conn_cbs cbs;

    enum io_kind in_kind, out_kind;
    int in_fd, out_fd;
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

    struct wreq *fq_head, *fq_tail; /* IO_FILE write queue; head is in flight */
    size_t queued;
    bool out_broken;

    bool closing;
    uv_timer_t grace;
    bool grace_open;
    int open_handles;        /* handles whose close callback is still due */
};

static void conn_maybe_free(tr_conn *c)
{
    if (!c->closing || c->open_handles > 0 || c->reading || c->fq_head)
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

static void stream_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    tr_conn *c = s->data;
    (void)buf;
    if (n > 0) {
        tr_framer_feed(&c->framer, c->in_buf, (size_t)n);
        return;
    }
    if (n == 0)
        return; /* EAGAIN */
    uv_read_stop(s);
    if (n != UV_EOF)
        HK_WARN("transport: read failed: %s", uv_strerror((int)n));
    signal_eof(c, n == UV_EOF ? HK_OK : HK_EIO);
}

static void file_read_start(tr_conn *c);

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
        if (!c->closing && !c->eof)
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

/* ---- writing ---- */

static void wreq_free(struct wreq *w)
{
    hk_free(w->data);
    hk_free(w);
}

static void stream_write_cb(uv_write_t *req, int status)
{
    struct wreq *w = req->data;
    tr_conn *c = w->conn;
    c->queued -= w->len;
    if (status < 0 && !c->out_broken) {
        c->out_broken = true;
        HK_WARN("transport: write failed: %s", uv_strerror(status));
    }
    wreq_free(w);
    if (c->closing && c->queued == 0 && c->out_open) {
        c->out_open = false;
        close_handle(c, (uv_handle_t *)&c->out.stream);
        if (c->grace_open) {
            c->grace_open = false;
            uv_timer_stop(&c->grace);
            close_handle(c, (uv_handle_t *)&c->grace);
        }
    }
}

static void file_write_next(tr_conn *c);

static void file_write_cb(uv_fs_t *req)
{
    struct wreq *w = req->data;
    tr_conn *c = w->conn;
    ssize_t n = req->result;
    uv_fs_req_cleanup(req);
    if (n > 0 && !c->out_broken) {
        w->off += (size_t)n;
        if (w->off < w->len) {
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
    c->queued -= w->len;
    wreq_free(w);
    if (c->fq_head && !c->out_broken)
        file_write_next(c);
    else if (c->out_broken)
        while (c->fq_head) { /* drop the rest */
            struct wreq *x = c->fq_head;
            c->fq_head = x->next;
            c->queued -= x->len;
            wreq_free(x);
        }
    if (!c->fq_head)
        c->fq_tail = NULL;
    conn_maybe_free(c);
}

static void file_write_next(tr_conn *c)
{
    struct wreq *w = c->fq_head;
    uv_buf_t b = uv_buf_init(w->data + w->off, (unsigned)(w->len - w->off));
    w->u.fs.data = w;
    int rc = uv_fs_write(c->loop, &w->u.fs, c->out_fd, &b, 1, -1, file_write_cb);
    if (rc < 0) {
        /* Report through the callback path so the queue is drained in one place. */
        w->u.fs.result = rc;
        file_write_cb(&w->u.fs);
    }
}

int tr_conn_send(tr_conn *c, const char *body, size_t len)
{
    if (c->out_broken || (c->closing && !c->out_open && c->out_kind == IO_STREAM))
        return HK_EIO;
    if (c->queued > MAX_QUEUED)
        return HK_ETOOBIG;
    struct wreq *w = hk_calloc(1, sizeof *w);
    if (!w)
        return HK_ENOMEM;
    int rc = tr_frame(body, len, &w->data, &w->len);
    if (rc) {
        hk_free(w);
        return rc;
    }
    w->conn = c;
    c->queued += w->len;
    if (c->out_kind == IO_STREAM) {
        uv_buf_t b = uv_buf_init(w->data, (unsigned)w->len);
        w->u.w.data = w;
        int urc = uv_write(&w->u.w, &c->out.stream, &b, 1, stream_write_cb);
        if (urc < 0) {
            c->queued -= w->len;
            wreq_free(w);
            c->out_broken = true;
            return HK_EIO;
        }
        return HK_OK;
    }
    bool idle = c->fq_head == NULL;
    if (c->fq_tail)
        c->fq_tail->next = w;
    else
        c->fq_head = w;
    c->fq_tail = w;
    if (idle)
        file_write_next(c);
    return HK_OK;
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
    c->in_open = c->out_open = false;
    conn_maybe_free(c);
    return ret;
}

static void grace_cb(uv_timer_t *t)
{
    tr_conn *c = t->data;
    if (c->out_open) {
        HK_WARN("transport: %zu bytes not written at exit (client not reading)", c->queued);
        c->out_open = false;
        close_handle(c, (uv_handle_t *)&c->out.stream);
    }
    c->grace_open = false;
    close_handle(c, (uv_handle_t *)&c->grace);
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
    if (c->in_open) {
        uv_read_stop(&c->in.stream);
        c->in_open = false;
        close_handle(c, (uv_handle_t *)&c->in.stream);
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
