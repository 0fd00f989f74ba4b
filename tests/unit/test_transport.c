/* Unit tests for the Content-Length framer and the stdio connection: split input,
 * caps, resynchronisation after bad headers, and a real pipe through libuv; a large body
 * handed over in its own buffer, which the connection has the pool allocate (reading
 * waits for it); large messages written on the pool keep their order with the small
 * ones around them; a close while a pool write is stuck frees all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "core/hk.h"
#include "transport/transport.h"

#define MAXM 32

struct sink {
    char *msgs[MAXM];
    size_t lens[MAXM];
    int n;
    int errs[MAXM];
    char *errmsg[MAXM];
    int n_err;
};

static void on_msg(const char *b, size_t len, void *ud)
{
    struct sink *s = ud;
    assert_true(s->n < MAXM);
    assert_int_equal(b[len], '\0');
    s->msgs[s->n] = malloc(len + 1);
    memcpy(s->msgs[s->n], b, len + 1);
    s->lens[s->n++] = len;
}

static void on_err(int err, const char *msg, void *ud)
{
    struct sink *s = ud;
    assert_true(s->n_err < MAXM);
    s->errmsg[s->n_err] = strdup(msg);
    s->errs[s->n_err++] = err;
}

static void sink_free(struct sink *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->msgs[i]);
    for (int i = 0; i < s->n_err; i++)
        free(s->errmsg[i]);
    memset(s, 0, sizeof *s);
}

static void feed_str(struct tr_framer *f, const char *s)
{
    assert_int_equal(tr_framer_feed(f, s, strlen(s)), HK_OK);
}

static void test_two_messages_one_feed(void **st)
{
    struct sink s = {0};
    struct tr_framer f;
    tr_framer_init(&f, 0, on_msg, on_err, &s);
    feed_str(&f, "Content-Length: 2\r\n\r\n{}Content-Length: 7\r\n"
                 "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n[1,2,3]");
    assert_int_equal(s.n, 2);
    assert_string_equal(s.msgs[0], "{}");
    assert_string_equal(s.msgs[1], "[1,2,3]");
    assert_int_equal(s.n_err, 0);
    assert_int_equal(tr_framer_pending(&f), 0);
    tr_framer_free(&f);
    sink_free(&s);
}

static void test_byte_by_byte(void **st)
{
    struct sink s = {0};
    struct tr_framer f;
    tr_framer_init(&f, 0, on_msg, on_err, &s);
    const char *in = "content-length:   5 \r\n\r\nhello\r\nContent-Length: 3\r\n\r\nabc";
    for (size_t i = 0; in[i]; i++)
        assert_int_equal(tr_framer_feed(&f, in + i, 1), HK_OK);
    /* The stray CRLF between messages is tolerated. */
    assert_int_equal(s.n, 2);
    assert_string_equal(s.msgs[0], "hello");
    assert_string_equal(s.msgs[1], "abc");
    assert_int_equal(s.n_err, 0);
    tr_framer_free(&f);
    sink_free(&s);
}

static void test_huge_length_resyncs(void **st)
{
    struct sink s = {0};
    struct tr_framer f;
    tr_framer_init(&f, 1 << 20, on_msg, on_err, &s);
    long before = hk_alloc_live();
    /* 4 TB: refused before anything is allocated for it; the next message still works. */
    feed_str(&f, "Content-Length: 4398046511104\r\n\r\n{\"x\":1}\r\n"
                 "Content-Length: 2\r\n\r\n{}");
    assert_int_equal(s.n_err, 1);
    assert_int_equal(s.errs[0], HK_ETOOBIG);
    assert_non_null(strstr(s.errmsg[0], "limit"));
    assert_int_equal(s.n, 1);
    assert_string_equal(s.msgs[0], "{}");
    assert_true(hk_alloc_live() - before <= 1); /* at most the input buffer */
    /* Also with 30 digits (overflows every integer type). */
    feed_str(&f, "Content-Length: 999999999999999999999999999999\r\n\r\nContent-Length: 1\r\n\r\nx");
    assert_int_equal(s.n_err, 2);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.msgs[1], "x");
    tr_framer_free(&f);
    sink_free(&s);
}

static void test_malformed_headers(void **st)
{
    struct sink s = {0};
    struct tr_framer f;
    tr_framer_init(&f, 0, on_msg, on_err, &s);
    feed_str(&f, "garbage without colon\r\nContent-Length: 2\r\n\r\nok");
    feed_str(&f, "Content-Length: 12abc\r\n\r\nContent-Length: 1\r\n\r\na");
    feed_str(&f, "Content-Type: x\r\n\r\nContent-Length: 1\r\n\r\nb");      /* no length */
    feed_str(&f, "Content-Length: 1\r\nContent-Length: 1\r\n\r\nContent-Length: 1\r\n\r\nc");
    feed_str(&f, "Content-Length: -1\r\n\r\nContent-Length: 1\r\n\r\nd");
    assert_int_equal(s.n_err, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(s.errs[i], HK_EPARSE);
    assert_int_equal(s.n, 5);
    assert_string_equal(s.msgs[0], "ok");
    assert_string_equal(s.msgs[1], "a");
    assert_string_equal(s.msgs[2], "b");
    assert_string_equal(s.msgs[3], "c");
    assert_string_equal(s.msgs[4], "d");
    tr_framer_free(&f);
    sink_free(&s);
}

static void test_long_header_and_count(void **st)
{
    struct sink s = {0};
    struct tr_framer f;
    tr_framer_init(&f, 0, on_msg, on_err, &s);
    char *big = malloc(100000);
    memset(big, 'A', 99999);
    big[99999] = '\0';
    /* A header line that never ends: capped at TR_MAX_HEADER_LINE, not buffered whole. */
    feed_str(&f, "X-Long: ");
    feed_str(&f, big);
    assert_int_equal(s.n_err, 1);
    assert_int_equal(s.errs[0], HK_ETOOBIG);
    assert_true(tr_framer_pending(&f) < 2 * TR_MAX_HEADER_LINE);
    feed_str(&f, "\r\nContent-Length: 1\r\n\r\nz");
    assert_int_equal(s.n, 1);
    assert_string_equal(s.msgs[0], "z");
    free(big);
    /* Too many headers. */
    char hdrs[4096] = "";
    for (int i = 0; i < TR_MAX_HEADERS + 1; i++)
        strcat(hdrs, "X-A: b\r\n");
    strcat(hdrs, "Content-Length: 1\r\n\r\nq");
    feed_str(&f, hdrs);
    assert_int_equal(s.n_err, 2);
    assert_int_equal(s.errs[1], HK_ETOOBIG);
    /* The Content-Length line after the flood resynchronises. */
    assert_int_equal(s.n, 2);
    assert_string_equal(s.msgs[1], "q");
    tr_framer_free(&f);
    sink_free(&s);
}

static void test_zero_length_and_nul(void **st)
{
    struct sink s = {0};
    struct tr_framer f;
    tr_framer_init(&f, 0, on_msg, on_err, &s);
    feed_str(&f, "Content-Length: 0\r\n\r\n");
    static const char withnul[] = "Content-Length: 3\r\n\r\na\0b";
    assert_int_equal(tr_framer_feed(&f, withnul, sizeof withnul - 1), HK_OK);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.lens[0], 0);
    assert_int_equal(s.lens[1], 3);
    assert_memory_equal(s.msgs[1], "a\0b", 3);
    tr_framer_free(&f);
    sink_free(&s);
}

static void test_frame(void **st)
{
    char *out;
    size_t n;
    assert_int_equal(tr_frame("{}", 2, &out, &n), HK_OK);
    assert_string_equal(out, "Content-Length: 2\r\n\r\n{}");
    assert_int_equal(n, strlen(out));
    hk_free(out);
}

/* ---- a real connection over pipes ---- */

struct conn_test {
    struct sink s;
    tr_conn *c;
    int eof;
    int eof_err;
};

static void ct_msg(const char *b, size_t len, void *ud)
{
    struct conn_test *t = ud;
    on_msg(b, len, &t->s);
    /* Echo it back framed. */
    assert_int_equal(tr_conn_send(t->c, b, len), HK_OK);
}

static void ct_err(int err, const char *msg, void *ud)
{
    struct conn_test *t = ud;
    on_err(err, msg, &t->s);
}

static void ct_eof(int err, void *ud)
{
    struct conn_test *t = ud;
    t->eof++;
    t->eof_err = err;
    tr_conn_close(t->c);
}

static void test_conn_pipes(void **st)
{
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    const char *req = "Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 99999999999\r\n\r\n";
    assert_int_equal(write(in[1], req, strlen(req)), (ssize_t)strlen(req));
    close(in[1]);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct conn_test t = {0};
    struct tr_conn_cbs cbs = {.on_message = ct_msg, .on_error = ct_err, .on_eof = ct_eof, .ud = &t};
    assert_int_equal(tr_conn_open(&loop, in[0], out[1], 0, &cbs, &t.c), HK_OK);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(t.eof, 1);
    assert_int_equal(t.eof_err, HK_OK);
    assert_int_equal(t.s.n, 1);
    assert_int_equal(t.s.n_err, 1);
    char buf[256] = {0};
    ssize_t n = read(out[0], buf, sizeof buf - 1);
    assert_true(n > 0);
    assert_string_equal(buf, "Content-Length: 7\r\n\r\n{\"a\":1}");
    close(out[0]);
    close(in[0]);
    sink_free(&t.s);
}

static void test_conn_file_input(void **st)
{
    char path[] = "/tmp/hk_test_transport_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *req = "Content-Length: 2\r\n\r\n{}Content-Length: 2\r\n\r\n[]";
    assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
    lseek(fd, 0, SEEK_SET);
    char opath[] = "/tmp/hk_test_transport_out_XXXXXX";
    int ofd = mkstemp(opath);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct conn_test t = {0};
    struct tr_conn_cbs cbs = {.on_message = ct_msg, .on_error = ct_err, .on_eof = ct_eof, .ud = &t};
    assert_int_equal(tr_conn_open(&loop, fd, ofd, 0, &cbs, &t.c), HK_OK);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(t.s.n, 2);
    assert_int_equal(t.eof, 1);
    char buf[256] = {0};
    assert_true(pread(ofd, buf, sizeof buf - 1, 0) > 0);
    assert_string_equal(buf, req);
    close(fd);
    close(ofd);
    unlink(path);
    unlink(opath);
    sink_free(&t.s);
}


/* ---- large bodies, owned ---- */

struct owned_log {
    struct sink s;
    char order[8]; /* 'o' owned, 'm' in place */
    int n;
};

static void ol_msg(const char *b, size_t len, void *ud)
{
    struct owned_log *l = ud;
    on_msg(b, len, &l->s);
    l->order[l->n++] = 'm';
}

static void ol_owned(char *b, size_t len, void *ud)
{
    struct owned_log *l = ud;
    on_msg(b, len, &l->s);
    hk_free(b);
    l->order[l->n++] = 'o';
}

/* A body of TR_OWNED_BODY_BYTES or more comes whole and owned, in order with the small
 * messages around it, whatever the feeds' boundaries; the rest stays in place. */
static void test_large_body_owned(void **st)
{
    (void)st;
    long live = hk_alloc_live();
    size_t n = TR_OWNED_BODY_BYTES * 3 + 17;
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    big[n] = '\0';
    char head[64];
    snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", n);
    const char *small = "Content-Length: 2\r\n\r\n{}";
    struct hk_buf in;
    hk_buf_init(&in, (size_t)64 << 20);
    assert_int_equal(hk_buf_appends(&in, small), HK_OK);
    assert_int_equal(hk_buf_appends(&in, head), HK_OK);
    assert_int_equal(hk_buf_append(&in, big, n), HK_OK);
    assert_int_equal(hk_buf_appends(&in, small), HK_OK);
    for (size_t step = 1000; step <= in.len; step += in.len / 3) {
        struct owned_log l = {0};
        struct tr_framer f;
        tr_framer_init(&f, 0, ol_msg, on_err, &l);
        tr_framer_set_owned(&f, ol_owned);
        for (size_t off = 0; off < in.len; off += step) {
            size_t k = in.len - off < step ? in.len - off : step;
            assert_int_equal(tr_framer_feed(&f, in.data + off, k), HK_OK);
        }
        assert_int_equal(l.n, 3);
        assert_memory_equal(l.order, "mom", 3);
        assert_int_equal(l.s.lens[1], n);
        assert_memory_equal(l.s.msgs[1], big, n);
        assert_int_equal(tr_framer_pending(&f), 0);
        tr_framer_free(&f);
        sink_free(&l.s);
    }
    /* cut in the middle of the body: the buffer is freed with the framer */
    struct owned_log l = {0};
    struct tr_framer f;
    tr_framer_init(&f, 0, ol_msg, on_err, &l);
    tr_framer_set_owned(&f, ol_owned);
    assert_int_equal(tr_framer_feed(&f, in.data, in.len / 2), HK_OK);
    assert_true(tr_framer_pending(&f) > TR_OWNED_BODY_BYTES);
    tr_framer_free(&f);
    sink_free(&l.s);
    hk_buf_free(&in);
    free(big);
    assert_int_equal(hk_alloc_live(), live);
}

/* A large body's buffer asked of big_alloc: until it comes the framer only buffers (the
 * small message before it is delivered, nothing after it), then everything comes in
 * order; given NULL the framer allocates it; a big_alloc that refuses leaves the framer
 * to allocate at once. */
struct alloc_ask {
    int n;
    size_t size;
    int answer;
};

static int ask_alloc(size_t size, void *ud)
{
    struct alloc_ask *a = ud;
    a->n++;
    a->size = size;
    return a->answer;
}

static void test_large_body_buffer_asked(void **st)
{
    (void)st;
    long live = hk_alloc_live();
    size_t n = TR_OWNED_BODY_BYTES * 2 + 5;
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)('A' + i % 26);
    char head[64];
    snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", n);
    const char *small = "Content-Length: 2\r\n\r\n{}";
    struct hk_buf in;
    hk_buf_init(&in, (size_t)64 << 20);
    assert_int_equal(hk_buf_appends(&in, small), HK_OK);
    assert_int_equal(hk_buf_appends(&in, head), HK_OK);
    assert_int_equal(hk_buf_append(&in, big, n), HK_OK);
    assert_int_equal(hk_buf_appends(&in, small), HK_OK);
    for (int mode = 0; mode < 3; mode++) { /* buffer given, NULL given, refused */
        for (size_t cut = 100; cut < in.len; cut += in.len / 2) {
            struct owned_log l = {0};
            struct alloc_ask a = {.answer = mode == 2 ? HK_EIO : HK_OK};
            struct tr_framer f;
            tr_framer_init(&f, 0, ol_msg, on_err, &l);
            tr_framer_set_owned(&f, ol_owned);
            tr_framer_set_big_alloc(&f, ask_alloc, &a);
            assert_int_equal(tr_framer_feed(&f, in.data, cut), HK_OK);
            if (mode != 2 && a.n) { /* asked: waits, having delivered only what is before */
                assert_true(tr_framer_big_waiting(&f));
                assert_int_equal(a.size, n + 1);
                assert_int_equal(l.n, 1);
                /* what is fed meanwhile is only buffered */
                assert_int_equal(tr_framer_feed(&f, in.data + cut, in.len - cut), HK_OK);
                assert_int_equal(l.n, 1);
                char *buf = mode == 0 ? hk_malloc(a.size) : NULL;
                assert_int_equal(tr_framer_big_ready(&f, buf), HK_OK);
            } else {
                assert_false(tr_framer_big_waiting(&f));
                assert_int_equal(tr_framer_feed(&f, in.data + cut, in.len - cut), HK_OK);
            }
            assert_int_equal(a.n, 1);
            assert_false(tr_framer_big_waiting(&f));
            assert_int_equal(l.n, 3);
            assert_memory_equal(l.order, "mom", 3);
            assert_int_equal(l.s.lens[1], n);
            assert_memory_equal(l.s.msgs[1], big, n);
            assert_int_equal(tr_framer_pending(&f), 0);
            tr_framer_free(&f);
            sink_free(&l.s);
        }
    }
    /* freed while waiting for the buffer: nothing leaks */
    struct owned_log l = {0};
    struct alloc_ask a = {.answer = HK_OK};
    struct tr_framer f;
    tr_framer_init(&f, 0, ol_msg, on_err, &l);
    tr_framer_set_owned(&f, ol_owned);
    tr_framer_set_big_alloc(&f, ask_alloc, &a);
    assert_int_equal(tr_framer_feed(&f, in.data, in.len), HK_OK);
    assert_true(tr_framer_big_waiting(&f));
    tr_framer_free(&f);
    sink_free(&l.s);
    hk_buf_free(&in);
    free(big);
    assert_int_equal(hk_alloc_live(), live);
}

/* ---- writes on the pool ---- */

struct reader {
    int fd;
    struct hk_buf got; /* everything read, in order */
};

static void *reader_main(void *p)
{
    struct reader *r = p;
    char buf[65536];
    ssize_t k;
    while ((k = read(r->fd, buf, sizeof buf)) > 0)
        if (hk_buf_append(&r->got, buf, (size_t)k))
            abort();
    return NULL;
}

/* A JSON string of n bytes (quotes included) filled with c. New (free). */
static char *json_fill(size_t n, char c)
{
    char *t = malloc(n + 1);
    memset(t, c, n);
    t[0] = t[n - 1] = '"';
    t[n] = '\0';
    return t;
}

/* Large messages (written on the pool) and small ones (on the loop) reach the client in
 * the order they were sent, framed, and the connection frees everything at close. */
static void test_pool_writes_keep_order(void **st)
{
    (void)st;
    long live = hk_alloc_live();
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    struct reader r = {.fd = out[0]};
    hk_buf_init(&r.got, (size_t)64 << 20);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, reader_main, &r), 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct conn_test t = {0};
    struct tr_conn_cbs cbs = {.on_message = ct_msg, .on_error = ct_err, .on_eof = ct_eof, .ud = &t};
    assert_int_equal(tr_conn_open(&loop, in[0], out[1], 0, &cbs, &t.c), HK_OK);
    const size_t sizes[] = {10, 3 * TR_POOL_WRITE_BYTES, 7, 12, 2 * TR_POOL_WRITE_BYTES + 5, 9,
                            TR_POOL_WRITE_BYTES, 11};
    struct hk_buf want;
    hk_buf_init(&want, (size_t)64 << 20);
    for (size_t i = 0; i < HK_ARRAY_LEN(sizes); i++) {
        char *m = json_fill(sizes[i], (char)('a' + i));
        char head[64];
        snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", sizes[i]);
        assert_int_equal(hk_buf_appends(&want, head), HK_OK);
        assert_int_equal(hk_buf_append(&want, m, sizes[i]), HK_OK);
        if (i % 2) { /* both entry points */
            char *own = hk_malloc(sizes[i] + 1);
            memcpy(own, m, sizes[i] + 1);
            assert_int_equal(tr_conn_send_owned(t.c, own, sizes[i]), HK_OK);
        } else {
            assert_int_equal(tr_conn_send(t.c, m, sizes[i]), HK_OK);
        }
        free(m);
        if (i == 3) /* some written before the rest is sent */
            uv_run(&loop, UV_RUN_NOWAIT);
    }
    tr_conn_close(t.c); /* lets the queued writes finish */
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(pthread_join(th, NULL), 0); /* out[1] closed with the connection */
    assert_true(want.len > 6 * TR_POOL_WRITE_BYTES);
    assert_int_equal(r.got.len, want.len);
    assert_memory_equal(r.got.data, want.data, want.len);
    hk_buf_free(&r.got);
    hk_buf_free(&want);
    close(out[0]);
    close(in[1]);
    sink_free(&t.s);
    assert_int_equal(hk_alloc_live(), live);
}

static void ct_owned(char *b, size_t len, void *ud)
{
    struct conn_test *t = ud;
    on_msg(b, len, &t->s);
    hk_free(b);
}

struct writer {
    int fd;
    const char *data;
    size_t len;
};

static void *writer_main(void *p)
{
    struct writer *w = p;
    for (size_t off = 0; off < w->len;) {
        ssize_t k = write(w->fd, w->data + off, w->len - off > 4000 ? 4000 : w->len - off);
        if (k <= 0)
            abort();
        off += (size_t)k;
    }
    close(w->fd);
    return NULL;
}

/* Over a real pipe (written in pieces by another thread) and from a regular file: the
 * connection has a large body's buffer allocated on the pool, reading waits for it, and
 * the messages come whole, in order, up to the end of input. */
static void test_conn_large_body_through_the_pool(void **st)
{
    (void)st;
    long live = hk_alloc_live();
    size_t n = TR_OWNED_BODY_BYTES * 5 + 3;
    char *big = json_fill(n, 'q');
    char head[64];
    snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", n);
    struct hk_buf in;
    hk_buf_init(&in, (size_t)64 << 20);
    assert_int_equal(hk_buf_appends(&in, "Content-Length: 7\r\n\r\n{\"a\":1}"), HK_OK);
    assert_int_equal(hk_buf_appends(&in, head), HK_OK);
    assert_int_equal(hk_buf_append(&in, big, n), HK_OK);
    assert_int_equal(hk_buf_appends(&in, "Content-Length: 2\r\n\r\n[]"), HK_OK);
    assert_int_equal(hk_buf_appends(&in, head), HK_OK); /* a second one, at the end */
    assert_int_equal(hk_buf_append(&in, big, n), HK_OK);
    for (int file = 0; file < 2; file++) {
        int rfd, wfd[2] = {-1, -1};
        char path[] = "/tmp/hk_test_transport_big_XXXXXX";
        pthread_t th;
        struct writer w = {.data = in.data, .len = in.len};
        if (file) {
            rfd = mkstemp(path);
            assert_true(rfd >= 0);
            assert_int_equal(write(rfd, in.data, in.len), (ssize_t)in.len);
            lseek(rfd, 0, SEEK_SET);
        } else {
            assert_int_equal(pipe(wfd), 0);
            rfd = wfd[0];
            w.fd = wfd[1];
            assert_int_equal(pthread_create(&th, NULL, writer_main, &w), 0);
        }
        int dn = open("/dev/null", O_WRONLY);
        uv_loop_t loop;
        uv_loop_init(&loop);
        struct conn_test t = {0};
        struct tr_conn_cbs cbs = {.on_message = ct_msg, .on_error = ct_err, .on_eof = ct_eof,
                                  .ud = &t, .on_owned_message = ct_owned};
        assert_int_equal(tr_conn_open(&loop, rfd, dn, 0, &cbs, &t.c), HK_OK);
        uv_run(&loop, UV_RUN_DEFAULT);
        assert_int_equal(uv_loop_close(&loop), 0);
        if (!file)
            assert_int_equal(pthread_join(th, NULL), 0);
        assert_int_equal(t.eof, 1);
        assert_int_equal(t.eof_err, HK_OK);
        assert_int_equal(t.s.n_err, 0);
        assert_int_equal(t.s.n, 4);
        assert_string_equal(t.s.msgs[0], "{\"a\":1}");
        assert_int_equal(t.s.lens[1], n);
        assert_memory_equal(t.s.msgs[1], big, n);
        assert_string_equal(t.s.msgs[2], "[]");
        assert_int_equal(t.s.lens[3], n);
        assert_memory_equal(t.s.msgs[3], big, n);
        sink_free(&t.s);
        close(rfd);
        close(dn);
        if (file)
            unlink(path);
    }
    hk_buf_free(&in);
    free(big);
    assert_int_equal(hk_alloc_live(), live);
}

/* A client that stops reading: the large message's pool write waits in poll; closing
 * the connection gives up after the exit grace, drops what waits behind it and frees
 * everything (the loop ends). */
static void test_close_with_a_stuck_pool_write(void **st)
{
    (void)st;
    long live = hk_alloc_live();
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct conn_test t = {0};
    struct tr_conn_cbs cbs = {.on_message = ct_msg, .on_error = ct_err, .on_eof = ct_eof, .ud = &t};
    assert_int_equal(tr_conn_open(&loop, in[0], out[1], 0, &cbs, &t.c), HK_OK);
    size_t n = (size_t)4 << 20; /* more than any pipe buffer */
    char *m = json_fill(n, 'x');
    assert_int_equal(tr_conn_send(t.c, m, n), HK_OK);
    assert_int_equal(tr_conn_send(t.c, "{}", 2), HK_OK); /* waits behind it */
    free(m);
    assert_true(tr_conn_queued(t.c) > n);
    uv_run(&loop, UV_RUN_NOWAIT);
    tr_conn_close(t.c);
    uv_run(&loop, UV_RUN_DEFAULT); /* about CLOSE_GRACE_MS */
    assert_int_equal(uv_loop_close(&loop), 0);
    char buf[65536];
    ssize_t k = read(out[0], buf, sizeof buf);
    assert_true(k > 0);
    assert_memory_equal(buf, "Content-Length: 4194304\r\n\r\n\"xxx", 30);
    close(out[0]);
    close(in[1]);
    sink_free(&t.s);
    assert_int_equal(hk_alloc_live(), live);
}

/* ---- one message per loop iteration ---- */

/* The framer with yield on: one message per feed or resume, the rest held in order. */
static void test_framer_yield_holds(void **st)
{
    (void)st;
    struct sink s = {0};
    struct tr_framer f;
    tr_framer_init(&f, 0, on_msg, on_err, &s);
    tr_framer_set_yield(&f, true);
    const char *three = "Content-Length: 2\r\n\r\n{}Content-Length: 2\r\n\r\n[]Content-Length: 1\r\n\r\n1";
    assert_int_equal(tr_framer_feed(&f, three, strlen(three)), HK_OK);
    assert_int_equal(s.n, 1);
    assert_true(tr_framer_held(&f));
    assert_true(tr_framer_resume(&f));
    assert_int_equal(s.n, 2);
    assert_false(tr_framer_resume(&f)); /* the last: nothing more buffered */
    assert_int_equal(s.n, 3);
    assert_string_equal(s.msgs[0], "{}");
    assert_string_equal(s.msgs[1], "[]");
    assert_string_equal(s.msgs[2], "1");
    /* A partial message after the last whole one is not held: it waits for input. */
    const char *part = "Content-Length: 2\r\n\r\n{}Content-Len";
    assert_int_equal(tr_framer_feed(&f, part, strlen(part)), HK_OK);
    assert_int_equal(s.n, 4);
    assert_true(tr_framer_held(&f));
    assert_false(tr_framer_resume(&f));
    assert_int_equal(s.n, 4);
    assert_int_equal(tr_framer_feed(&f, "gth: 1\r\n\r\n2", 11), HK_OK);
    assert_int_equal(s.n, 5);
    assert_string_equal(s.msgs[4], "2");
    tr_framer_free(&f);
    sink_free(&s);
}

struct iter_test {
    struct conn_test t;
    uv_check_t check;
    unsigned iter;       /* loop iterations so far (the check handle's calls) */
    unsigned at[8];      /* the iteration each message came in */
    int close_after;     /* close the connection after this many messages (0: never) */
};

static void it_check(uv_check_t *h)
{
    struct iter_test *it = h->data;
    it->iter++;
}

static void it_msg(const char *b, size_t len, void *ud)
{
    struct iter_test *it = ud;
    on_msg(b, len, &it->t.s);
    if (it->t.s.n <= 8)
        it->at[it->t.s.n - 1] = it->iter;
    if (it->close_after && it->t.s.n == it->close_after) {
        tr_conn_close(it->t.c);
        uv_close((uv_handle_t *)&it->check, NULL);
    }
}

static void it_eof(int err, void *ud)
{
    struct iter_test *it = ud;
    it->t.eof++;
    it->t.eof_err = err;
    tr_conn_close(it->t.c);
    uv_close((uv_handle_t *)&it->check, NULL);
}

/* Four messages in one read, over a pipe and from a file: each is handled in a loop
 * iteration of its own, in order, and all before the end of input; a handler that closes
 * the connection stops the rest, and everything is freed. */
static void test_conn_one_message_per_iteration(void **st)
{
    (void)st;
    long live = hk_alloc_live();
    const char *req = "Content-Length: 3\r\n\r\n\"a\"Content-Length: 3\r\n\r\n\"b\""
                      "Content-Length: 3\r\n\r\n\"c\"Content-Length: 3\r\n\r\n\"d\"";
    for (int round = 0; round < 4; round++) {
        bool file = round & 1, closes = round & 2;
        int rfd, p[2] = {-1, -1};
        char path[] = "/tmp/hk_test_transport_iter_XXXXXX";
        if (file) {
            rfd = mkstemp(path);
            assert_true(rfd >= 0);
            assert_int_equal(write(rfd, req, strlen(req)), (ssize_t)strlen(req));
            lseek(rfd, 0, SEEK_SET);
        } else {
            assert_int_equal(pipe(p), 0);
            assert_int_equal(write(p[1], req, strlen(req)), (ssize_t)strlen(req));
            close(p[1]);
            rfd = p[0];
        }
        int dn = open("/dev/null", O_WRONLY);
        uv_loop_t loop;
        uv_loop_init(&loop);
        struct iter_test it = {.close_after = closes ? 2 : 0};
        uv_check_init(&loop, &it.check);
        it.check.data = &it;
        uv_check_start(&it.check, it_check);
        struct tr_conn_cbs cbs = {.on_message = it_msg, .on_error = ct_err, .on_eof = it_eof,
                                  .ud = &it};
        assert_int_equal(tr_conn_open(&loop, rfd, dn, 0, &cbs, &it.t.c), HK_OK);
        uv_run(&loop, UV_RUN_DEFAULT);
        assert_int_equal(uv_loop_close(&loop), 0);
        assert_int_equal(it.t.s.n_err, 0);
        if (closes) {
            assert_int_equal(it.t.s.n, 2);
            assert_int_equal(it.t.eof, 0);
        } else {
            assert_int_equal(it.t.s.n, 4);
            assert_int_equal(it.t.eof, 1);
            assert_int_equal(it.t.eof_err, HK_OK);
            assert_string_equal(it.t.s.msgs[3], "\"d\"");
        }
        assert_string_equal(it.t.s.msgs[0], "\"a\"");
        assert_string_equal(it.t.s.msgs[1], "\"b\"");
        for (int i = 1; i < it.t.s.n; i++)
            assert_true(it.at[i] > it.at[i - 1]); /* a later iteration each */
        sink_free(&it.t.s);
        close(rfd);
        close(dn);
        if (file)
            unlink(path);
    }
    assert_int_equal(hk_alloc_live(), live);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_messages_one_feed),
        cmocka_unit_test(test_byte_by_byte),
        cmocka_unit_test(test_huge_length_resyncs),
        cmocka_unit_test(test_malformed_headers),
        cmocka_unit_test(test_long_header_and_count),
        cmocka_unit_test(test_zero_length_and_nul),
        cmocka_unit_test(test_frame),
        cmocka_unit_test(test_conn_pipes),
        cmocka_unit_test(test_conn_file_input),
        cmocka_unit_test(test_large_body_owned),
        cmocka_unit_test(test_large_body_buffer_asked),
        cmocka_unit_test(test_conn_large_body_through_the_pool),
        cmocka_unit_test(test_pool_writes_keep_order),
        cmocka_unit_test(test_close_with_a_stuck_pool_write),
        cmocka_unit_test(test_framer_yield_holds),
        cmocka_unit_test(test_conn_one_message_per_iteration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
