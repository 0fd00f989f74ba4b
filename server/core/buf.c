#include "core/buf.h"
#include "core/hk.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void hk_buf_init(struct hk_buf *b, size_t max)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->max = max;
}

static int buf_reserve(struct hk_buf *b, size_t extra)
{
    if (extra > b->max - b->len)
        return HK_ETOOBIG;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return HK_OK;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
    char *p = hk_realloc(b->data, cap);
    if (!p)
        return HK_ENOMEM;
    b->data = p;
    b->cap = cap;
    return HK_OK;
}

int hk_buf_append(struct hk_buf *b, const void *p, size_t n)
{
    int rc = buf_reserve(b, n);
    if (rc)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return HK_OK;
}

int hk_buf_appends(struct hk_buf *b, const char *s) { return hk_buf_append(b, s, strlen(s)); }

int hk_buf_printf(struct hk_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return HK_EINVAL;
    int rc = buf_reserve(b, (size_t)n);
    if (rc)
        return rc;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return HK_OK;
}

void hk_buf_consume(struct hk_buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
    } else {
        memmove(b->data, b->data + n, b->len - n);
        b->len -= n;
    }
    if (b->data)
        b->data[b->len] = '\0';
}

void hk_buf_reset(struct hk_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

char *hk_buf_steal(struct hk_buf *b)
{
    char *p = b->data;
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}

void hk_buf_free(struct hk_buf *b)
{
    hk_free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int hk_read_file(const char *path, size_t max, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? HK_ENOENT : HK_EIO;
    struct hk_buf b;
    hk_buf_init(&b, max);
    char chunk[65536];
    size_t n;
    int rc = HK_OK;
    while (rc == HK_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        rc = hk_buf_append(&b, chunk, n);
    if (rc == HK_OK && ferror(f))
        rc = HK_EIO;
    fclose(f);
    if (rc == HK_OK && !b.data)
        rc = hk_buf_appends(&b, "");
    if (rc != HK_OK) {
        hk_buf_free(&b);
        return rc;
    }
    *len = b.len;
    *out = hk_buf_steal(&b);
    return HK_OK;
}
