/* Content-Length framing of the LSP base protocol as an incremental byte parser.
 * Nothing here trusts the peer: header lines, header count and the body size are
 * capped before anything is allocated, and a bad header costs the peer one error
 * plus resynchronisation, never the connection's memory. */
#include "transport/transport.h"

#include "core/hk.h"
#include "core/i18n.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define FEED_CHUNK (64u << 10)
static const char CL_NAME[] = "Content-Length:";
#define CL_NAME_LEN (sizeof(CL_NAME) - 1)

/* Parse state lives in the buffer: in.data[0..in.len) is unparsed input. Header lines
 * are parsed (and consumed) one at a time, so a message's headers never accumulate. */

void tr_framer_init(struct tr_framer *f, size_t max_body, tr_message_fn on_message,
                    tr_error_fn on_error, void *ud)
{
    memset(f, 0, sizeof *f);
    f->max_body = max_body ? max_body : TR_DEFAULT_MAX_BODY;
    /* One body, one header line and one feed chunk is the most that is ever held. */
    hk_buf_init(&f->in, f->max_body + TR_MAX_HEADER_LINE + FEED_CHUNK);
    f->on_message = on_message;
    f->on_error = on_error;
    f->ud = ud;
}

void tr_framer_free(struct tr_framer *f)
{
    hk_buf_free(&f->in);
    hk_free(f->big);
    f->big = NULL;
}

void tr_framer_set_owned(struct tr_framer *f, tr_owned_message_fn fn) { f->on_owned = fn; }

void tr_framer_set_big_alloc(struct tr_framer *f, tr_big_alloc_fn fn, void *ud)
{
    f->big_alloc = fn;
    f->big_alloc_ud = ud;
}

bool tr_framer_big_waiting(const struct tr_framer *f) { return f->big_wait; }

void tr_framer_set_yield(struct tr_framer *f, bool on) { f->yield_each = on; }

bool tr_framer_held(const struct tr_framer *f) { return f->held; }

size_t tr_framer_pending(const struct tr_framer *f)
{
    return f->in.len - f->head + (f->big ? f->big_have : 0);
}

/* Header-parsing state that only lives while a header block is being read. */
struct hdr_state {
    long long content_length; /* -1 until seen */
    int n_headers;
};

static void framer_error(struct tr_framer *f, int err, const char *msg)
{
    if (f->on_error)
        f->on_error(err, msg, f->ud);
}

static void enter_resync(struct tr_framer *f)
{
    f->resync = true;
    f->in_body = false;
}

/* Unparsed input is in.data[head .. in.len); consumed bytes are only skipped over
 * (head moves) and compacted once per feed, so a read holding many small messages
 * costs one memmove, not one per message. */
static const char *unparsed(const struct tr_framer *f) { return f->in.data + f->head; }
static size_t unparsed_len(const struct tr_framer *f) { return f->in.len - f->head; }
static void skip(struct tr_framer *f, size_t n) { f->head += n; }

/* After a message is handed over: with yield on, input still buffered waits for
 * tr_framer_resume. */
static void delivered(struct tr_framer *f)
{
    if (f->yield_each && unparsed_len(f) > 0)
        f->held = true;
}

/* Drops buffered input up to the next "Content-Length:". Anywhere, not only at a line
 * start: a body is followed directly by the next header, with no newline between.
 * Returns true when synchronised again. Keeps a possible partial match at the end. */
static bool do_resync(struct tr_framer *f)
{
    const char *d = unparsed(f);
    size_t n = unparsed_len(f);
    for (size_t i = 0; i < n; i++) {
        if (d[i] != 'C')
            continue;
        size_t avail = n - i < CL_NAME_LEN ? n - i : CL_NAME_LEN;
        if (memcmp(d + i, CL_NAME, avail) != 0)
            continue;
        skip(f, i);
        if (avail < CL_NAME_LEN)
            return false; /* a prefix of the name at the end: wait for more */
        f->resync = false;
        return true;
    }
    skip(f, n);
    return false;
}

/* Parses a Content-Length value: decimal digits with optional surrounding blanks.
 * HK_OK, HK_EPARSE, or HK_ETOOBIG when it exceeds max. */
static int parse_length(const char *v, size_t n, size_t max, long long *out)
{
    size_t i = 0;
    while (i < n && (v[i] == ' ' || v[i] == '\t'))
        i++;
    size_t start = i;
    unsigned long long x = 0;
    bool big = false;
    while (i < n && v[i] >= '0' && v[i] <= '9') {
        if (x > (unsigned long long)max)
            big = true; /* keep scanning to validate the syntax, but stop growing */
        else
            x = x * 10 + (unsigned long long)(v[i] - '0');
        i++;
    }
    size_t end_digits = i;
    while (i < n && (v[i] == ' ' || v[i] == '\t'))
        i++;
    if (end_digits == start || i != n)
        return HK_EPARSE;
    if (big || x > (unsigned long long)max)
        return HK_ETOOBIG;
    *out = (long long)x;
    return HK_OK;
}

/* Handles one complete header line (without its line ending). Returns HK_OK, or an
 * error after which the caller resynchronises. *done is set at the blank line. */
static int header_line(struct tr_framer *f, struct hdr_state *h, const char *line, size_t n,
                       bool *done)
{
    char msg[160];
    *done = false;
    if (n == 0) {
        if (h->n_headers == 0)
            return HK_OK; /* stray blank line between messages: harmless */
        if (h->content_length < 0) {
            framer_error(f, HK_EPARSE, hk_tr(HK_MSG_TR_NO_CONTENT_LENGTH));
            return HK_EPARSE;
        }
        *done = true;
        return HK_OK;
    }
    if (++h->n_headers > TR_MAX_HEADERS) {
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_TR_TOO_MANY_HEADERS), TR_MAX_HEADERS);
        framer_error(f, HK_ETOOBIG, msg);
        return HK_ETOOBIG;
    }
    const char *colon = memchr(line, ':', n);
    if (!colon || colon == line) {
        framer_error(f, HK_EPARSE, hk_tr(HK_MSG_TR_MALFORMED_HEADER));
        return HK_EPARSE;
    }
    size_t name_len = (size_t)(colon - line);
    if (name_len == CL_NAME_LEN - 1 && strncasecmp(line, CL_NAME, name_len) == 0) {
        if (h->content_length >= 0) {
            framer_error(f, HK_EPARSE, "duplicate Content-Length header");
            return HK_EPARSE;
        }
        long long v = 0;
        int rc = parse_length(colon + 1, n - name_len - 1, f->max_body, &v);
        if (rc == HK_ETOOBIG) {
            snprintf(msg, sizeof msg, hk_tr(HK_MSG_TR_BODY_OVER_LIMIT),
                     f->max_body);
            framer_error(f, HK_ETOOBIG, msg);
            return rc;
        }
        if (rc) {
            framer_error(f, HK_EPARSE, hk_tr(HK_MSG_TR_LENGTH_NOT_DECIMAL));
            return rc;
        }
        h->content_length = v;
    }
    /* Content-Type and unknown headers are accepted and ignored (the spec fixes utf-8). */
    return HK_OK;
}

/* Parses what is buffered. Headers are consumed line by line; a body is delivered in
 * place. Header state is kept in f between calls through in_body/body_len only, so a
 * header block split across feeds is re-read from its start: at most
 * TR_MAX_HEADERS * TR_MAX_HEADER_LINE bytes, a bounded cost. */
/* The large body is complete: hand it over. */
static void big_deliver(struct tr_framer *f)
{
    char *b = f->big;
    f->big = NULL;
    f->in_body = false;
    b[f->body_len] = '\0';
    if (f->on_owned)
        f->on_owned(b, f->body_len, f->ud);
    else
        hk_free(b); /* the connection closed meanwhile */
    delivered(f);
}

static void parse_buffer(struct tr_framer *f);

/* Gathers the large body in b (its own buffer), starting with what is buffered of it. */
static void big_fill(struct tr_framer *f, char *b)
{
    size_t n = unparsed_len(f) < f->body_len ? unparsed_len(f) : f->body_len;
    if (n)
        memcpy(b, unparsed(f), n);
    skip(f, n);
    f->big = b;
    f->big_have = n;
    if (n == f->body_len)
        big_deliver(f);
}

/* Starts gathering a large body in a buffer of its own, or asks big_alloc for one; false
 * (no memory) leaves it to the in-place path. */
static bool big_start(struct tr_framer *f)
{
    if (f->big_alloc && f->big_alloc(f->body_len + 1, f->big_alloc_ud) == HK_OK) {
        f->big_wait = true; /* parse_buffer waits for tr_framer_big_ready */
        return true;
    }
    char *b = hk_malloc(f->body_len + 1);
    if (!b)
        return false;
    big_fill(f, b);
    return true;
}

int tr_framer_big_ready(struct tr_framer *f, char *buf)
{
    int ret = HK_OK;
    if (!f->big_wait) {
        hk_free(buf);
        return HK_OK;
    }
    f->big_wait = false;
    if (!buf)
        buf = hk_malloc(f->body_len + 1);
    if (buf) {
        big_fill(f, buf);
    } else { /* no buffer at all: the body is dropped, as a feed that cannot buffer does */
        framer_error(f, HK_ENOMEM, hk_tr(HK_MSG_TR_NO_MEMORY));
        skip(f, unparsed_len(f) < f->body_len ? unparsed_len(f) : f->body_len);
        enter_resync(f);
        ret = HK_ENOMEM;
    }
    parse_buffer(f);
    hk_buf_consume(&f->in, f->head);
    f->head = 0;
    return ret;
}

static void parse_buffer(struct tr_framer *f)
{
    for (;;) {
        if (f->held)
            return; /* tr_framer_resume goes on */
        if (f->resync && !do_resync(f))
            return;
        if (f->big || f->big_wait)
            return; /* tr_framer_feed fills it (once tr_framer_big_ready gave it) */
        if (f->in_body) {
            if (f->on_owned && f->body_len >= TR_OWNED_BODY_BYTES && big_start(f))
                continue;
            if (unparsed_len(f) < f->body_len)
                return;
            if (!f->in.data) { /* Content-Length: 0 with nothing buffered yet */
                if (f->on_message)
                    f->on_message("", 0, f->ud);
                f->in_body = false;
                delivered(f);
                continue;
            }
            char *body = f->in.data + f->head;
            char saved = body[f->body_len];
            body[f->body_len] = '\0';
            if (f->on_message)
                f->on_message(body, f->body_len, f->ud);
            body[f->body_len] = saved;
            skip(f, f->body_len);
            f->in_body = false;
            delivered(f);
            continue;
        }
        /* Read the header block from the start of the unparsed input. */
        struct hdr_state h = {.content_length = -1, .n_headers = 0};
        size_t pos = 0;
        bool done = false;
        int rc = HK_OK;
        while (!done) {
            const char *start = unparsed(f) + pos;
            size_t avail = unparsed_len(f) - pos;
            const char *nl = avail ? memchr(start, '\n', avail) : NULL;
            size_t line_len = nl ? (size_t)(nl - start) + 1 : avail;
            if (line_len > TR_MAX_HEADER_LINE) {
                char msg[96];
                snprintf(msg, sizeof msg, hk_tr(HK_MSG_TR_HEADER_LINE_LONG), TR_MAX_HEADER_LINE);
                framer_error(f, HK_ETOOBIG, msg);
                rc = HK_ETOOBIG;
                pos += nl ? line_len : avail;
                break;
            }
            if (!nl)
                return; /* incomplete header block: wait for more */
            size_t n = line_len - 1;
            if (n && start[n - 1] == '\r')
                n--;
            pos += line_len;
            rc = header_line(f, &h, start, n, &done);
            if (rc)
                break;
            if (!done && h.n_headers == 0) {
                /* A stray blank line: consume it so it is never re-read. */
                skip(f, pos);
                pos = 0;
            }
        }
        skip(f, pos);
        if (rc) {
            enter_resync(f); /* the offending line is dropped */
            continue;
        }
        f->in_body = true;
        f->body_len = (size_t)h.content_length;
    }
}

bool tr_framer_resume(struct tr_framer *f)
{
    f->held = false;
    parse_buffer(f);
    hk_buf_consume(&f->in, f->head);
    f->head = 0;
    return f->held;
}

int tr_framer_feed(struct tr_framer *f, const char *data, size_t len)
{
    int ret = HK_OK;
    while (len) {
        if (f->big) { /* a large body: straight into its own buffer */
            size_t want = f->body_len - f->big_have, k = len < want ? len : want;
            memcpy(f->big + f->big_have, data, k);
            f->big_have += k;
            data += k;
            len -= k;
            if (f->big_have == f->body_len)
                big_deliver(f);
            continue;
        }
        size_t n = len < FEED_CHUNK ? len : FEED_CHUNK;
        int rc = hk_buf_append(&f->in, data, n);
        if (rc) {
            /* Cannot happen with the caps above except on ENOMEM: drop and resync. */
            framer_error(f, rc, rc == HK_ENOMEM ? hk_tr(HK_MSG_TR_NO_MEMORY)
                                                : hk_tr(HK_MSG_TR_BUFFER_CAP));
            hk_buf_reset(&f->in);
            f->head = 0;
            enter_resync(f);
            ret = rc == HK_ENOMEM ? HK_ENOMEM : HK_OK;
        }
        data += n;
        len -= n;
        parse_buffer(f);
        hk_buf_consume(&f->in, f->head);
        f->head = 0;
    }
    return ret;
}

int tr_frame(const char *body, size_t len, char **out, size_t *out_len)
{
    char hdr[64];
    int h = snprintf(hdr, sizeof hdr, "Content-Length: %zu\r\n\r\n", len);
    char *p = hk_malloc((size_t)h + len + 1);
    if (!p)
        return HK_ENOMEM;
    memcpy(p, hdr, (size_t)h);
    if (len)
        memcpy(p + h, body, len);
    p[(size_t)h + len] = '\0';
    *out = p;
    *out_len = (size_t)h + len;
    return HK_OK;
}
