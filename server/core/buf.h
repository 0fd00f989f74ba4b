/* A growable byte buffer with a hard cap (curl's dynbuf idea): every buffer that
 * grows from outside input has a maximum, and hitting it is HK_ETOOBIG, not a crash.
 * Value type; the data is always NUL-terminated when non-NULL. */
#ifndef HK_CORE_BUF_H
#define HK_CORE_BUF_H

#include <stddef.h>

struct hk_buf {
    char *data;    /* owned; NULL until the first append */
    size_t len;
    size_t cap;
    size_t max;    /* largest len allowed */
};

void hk_buf_init(struct hk_buf *b, size_t max);
/* HK_OK, HK_ENOMEM, or HK_ETOOBIG (buffer unchanged). */
int hk_buf_append(struct hk_buf *b, const void *p, size_t n);
int hk_buf_appends(struct hk_buf *b, const char *s);
int hk_buf_printf(struct hk_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Drops the first n bytes (n <= len). */
void hk_buf_consume(struct hk_buf *b, size_t n);
void hk_buf_reset(struct hk_buf *b);
/* Hands the data to the caller (hk_free; may be NULL when empty) and resets b. */
char *hk_buf_steal(struct hk_buf *b);
void hk_buf_free(struct hk_buf *b);

/* Reads the file at path whole, at most max bytes, into *out (hk_free; NUL-terminated, ""
 * when empty) with its length in *len. HK_OK, HK_ENOENT (no such file), HK_EIO (any other
 * open or read failure), HK_ETOOBIG (over max), HK_ENOMEM; on failure *out is NULL. */
int hk_read_file(const char *path, size_t max, char **out, size_t *len);

#endif
