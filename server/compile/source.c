/* Checks on a source before it reaches a compiler: is it text at all. nvcc given a binary
 * file answers with hundreds of lines of warnings about stray bytes; a short refusal that
 * names the file and the first bad byte says more. */
#include "compile/compile.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "core/hk.h"

/* Length of the valid UTF-8 sequence at p (n bytes available, n >= 1), 0 when invalid,
 * or -1 when a valid prefix is cut by the end of the buffer. Ranges per RFC 3629: no
 * overlong forms, no surrogates (U+D800..DFFF), nothing past U+10FFFF. */
static int utf8_seq(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    int len;
    unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n)
            return -1;
        unsigned char b = p[i];
        if (i == 1 ? b < lo || b > hi : b < 0x80 || b > 0xBF)
            return 0;
    }
    return len;
}

bool cc_source_is_text(const char *text, size_t len, const char **why, size_t *at)
{
    const unsigned char *p = (const unsigned char *)text;
    bool cut = len > CC_TEXT_PROBE_BYTES; /* the probe ends before the text does */
    size_t n = cut ? CC_TEXT_PROBE_BYTES : len;
    for (size_t i = 0; i < n;) {
        if (p[i] == 0) {
            if (why)
                *why = "a NUL byte";
            if (at)
                *at = i;
            return false;
        }
        int k = utf8_seq(p + i, n - i);
        if (k < 0 && cut)
            break;
        if (k <= 0) {
            if (why)
                *why = "invalid UTF-8";
            if (at)
                *at = i;
            return false;
        }
        i += (size_t)k;
    }
    return true;
}

int cc_source_file_is_text(const char *path, bool *is_text, const char **why, size_t *at)
{
    *is_text = false;
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? HK_ENOENT : HK_EIO;
    if (S_ISDIR(st.st_mode))
        return HK_EINVAL;
    /* one byte past the probe tells a cut sequence from a file that ends in one */
    char *buf = hk_malloc(CC_TEXT_PROBE_BYTES + 1);
    if (!buf)
        return HK_ENOMEM;
    int rc = HK_OK, err = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        rc = HK_EIO;
        err = errno;
        goto out;
    }
    size_t n = fread(buf, 1, CC_TEXT_PROBE_BYTES + 1, f);
    if (ferror(f)) {
        rc = HK_EIO;
        err = errno;
    }
    fclose(f);
    if (rc == HK_OK)
        *is_text = cc_source_is_text(buf, n, why, at);
out:
    hk_free(buf);
    if (rc)
        errno = err; /* the caller's message names the open or read failure */
    return rc;
}
