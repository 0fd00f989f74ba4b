/* The open-document store. A document is a flat UTF-8 buffer plus an index of line
 * starts, so a position converts in O(log lines + line length) and an edit costs one
 * memmove, a rescan of the index around it and a shift of the line starts after it: no
 * step is quadratic in the file size.
 * Changes are validated before they touch the document; a bad one changes nothing. */
#include "documents/documents.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <string.h>

#define N_BUCKETS 1024u

struct doc {
    char *uri;
    uint64_t hash;
    int64_t version;
    struct hk_buf text;
    uint32_t *lines;      /* byte offset of each line start; lines[0] == 0 */
    uint32_t n_lines, cap_lines;
    bool has_lone_cr;     /* some line ends in a bare '\r' (tree-sitter rows differ) */
    void *user;
    struct doc *next;     /* bucket chain */
};

struct doc_store {
    struct doc *buckets[N_BUCKETS];
    size_t count;
    size_t max_size;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int doc_store_new(size_t max_size, doc_store **out)
{
    doc_store *s = hk_calloc(1, sizeof *s);
    if (!s)
        return HK_ENOMEM;
    s->max_size = max_size ? max_size : DOC_DEFAULT_MAX_SIZE;
    if (s->max_size > UINT32_MAX - 1)
        s->max_size = UINT32_MAX - 1; /* offsets are uint32_t, as in tree-sitter */
    *out = s;
    return HK_OK;
}

static void doc_free(struct doc *d)
{
    hk_free(d->uri);
    hk_buf_free(&d->text);
    hk_free(d->lines);
    hk_free(d);
}

void doc_store_free(doc_store *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < N_BUCKETS; i++) {
        struct doc *d = s->buckets[i];
        while (d) {
            struct doc *n = d->next;
            doc_free(d);
            d = n;
        }
    }
    hk_free(s);
}

size_t doc_store_count(const doc_store *s) { return s->count; }

/* ---- line index ---- */

/* Computes line starts of text into *lines (reallocated as needed). */
/* Recomputes line starts of text into *lines (reallocated as needed), keeping entries
 * 0..from_line, which the caller knows to be unchanged, and rescanning after them. */
static int index_lines_from(const char *t, size_t len, uint32_t **lines, uint32_t *n,
                            uint32_t *cap, bool *lone_cr, uint32_t from_line)
{
    uint32_t count = 0;
    size_t from = 0;
    if (from_line > 0 && from_line < *n) {
        from = (*lines)[from_line];
        count = from_line + 1;
    }
    bool cr = memchr(t + from, '\r', len - from) != NULL;
    if (from == 0)
        *lone_cr = false; /* else keep: a stale true only selects the slow exact path */
#define PUSH(off)                                                                    \
    do {                                                                             \
        if (count == *cap) {                                                         \
            uint32_t nc = *cap ? *cap * 2 : 256;                                     \
            uint32_t *np_ = hk_realloc(*lines, (size_t)nc * sizeof *np_);            \
            if (!np_)                                                                \
                return HK_ENOMEM;                                                    \
            *lines = np_;                                                            \
            *cap = nc;                                                               \
        }                                                                            \
        (*lines)[count++] = (uint32_t)(off);                                         \
    } while (0)
    if (from == 0)
        PUSH(0);
    if (!cr) {
        const char *p = t + from, *end = t + len;
        while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            p++;
            PUSH(p - t);
        }
    } else {
        for (size_t i = from; i < len; i++) {
            if (t[i] == '\n') {
                PUSH(i + 1);
            } else if (t[i] == '\r') {
                if (i + 1 < len && t[i + 1] == '\n')
                    continue; /* \r\n: the '\n' ends the line */
                *lone_cr = true;
                PUSH(i + 1);
            }
        }
    }
#undef PUSH
    *n = count;
    return HK_OK;
}

static int index_lines(const char *t, size_t len, uint32_t **lines, uint32_t *n,
                       uint32_t *cap, bool *lone_cr)
{
    return index_lines_from(t, len, lines, n, cap, lone_cr, 0);
}

static int doc_reindex(struct doc *d)
{
    return index_lines(d->text.data ? d->text.data : "", d->text.len, &d->lines, &d->n_lines,
                       &d->cap_lines, &d->has_lone_cr);
}

/* Line containing offset (the last line start <= offset). */
static uint32_t line_of(const uint32_t *lines, uint32_t n, uint32_t off)
{
    uint32_t lo = 0, hi = n; /* lines[lo] <= off < lines[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (lines[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* After [s, old_end) of the text was replaced by n bytes (the text is the new one):
 * brings the index up to date by rescanning only the lines around the change. Line
 * starts at or past old_end + 2 are still line starts, delta bytes further (a start
 * there follows a terminator the change did not touch, and whether a '\r' there is
 * lone depends on the byte after it, untouched too); the ones from the line before the
 * change up to them are found again. */
static int index_lines_edit(const char *t, size_t len, uint32_t **lines, uint32_t *n,
                            uint32_t *cap, bool *lone_cr, uint32_t s, uint32_t old_end,
                            size_t n_new)
{
    uint32_t *v = *lines, cnt = *n;
    uint32_t keep = line_of(v, cnt, s);
    keep = keep > 0 ? keep - 1 : 0;         /* one line of margin, as index_lines_from */
    /* the first line start that stays one: the first at or past old_end + 2 */
    uint32_t lo = keep + 1, hi = cnt;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < (uint64_t)old_end + 2)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t j = lo;
    int64_t delta = (int64_t)n_new - (int64_t)(old_end - s);
    size_t from = v[keep];
    size_t stop = j < cnt ? (size_t)((int64_t)v[j] + delta) : len;
    /* the rescanned starts, into a small buffer first: their number is not known */
    uint32_t small[64], *found = small, nf = 0, capf = 64;
    bool cr = memchr(t + from, '\r', stop - from) != NULL;
    int rc = HK_OK;
    for (size_t i = from; i < stop; i++) {
        size_t at;
        if (!cr) {
            const char *q = memchr(t + i, '\n', stop - i);
            if (!q)
                break;
            i = (size_t)(q - t);
            at = i + 1;
        } else if (t[i] == '\n') {
            at = i + 1;
        } else if (t[i] == '\r' && !(i + 1 < len && t[i + 1] == '\n')) {
            *lone_cr = true;
            at = i + 1;
        } else {
            continue;
        }
        if (at >= stop && j < cnt)
            break;                          /* that start is the first kept one */
        if (nf == capf) {
            uint32_t *g = hk_malloc((size_t)capf * 2 * sizeof(*g));
            if (!g) {
                rc = HK_ENOMEM;
                goto out;
            }
            memcpy(g, found, nf * sizeof(*g));
            if (found != small)
                hk_free(found);
            found = g;
            capf *= 2;
        }
        found[nf++] = (uint32_t)at;
    }
    uint32_t tail = cnt - j, total = keep + 1 + nf + tail;
    if (total > *cap) {
        uint32_t nc = *cap ? *cap : 256;
        while (nc < total)
            nc *= 2;
        uint32_t *g = hk_realloc(v, (size_t)nc * sizeof(*g));
        if (!g) {
            rc = HK_ENOMEM;
            goto out;
        }
        *lines = v = g;
        *cap = nc;
    }
    if (tail && keep + 1 + nf != j)
        memmove(v + keep + 1 + nf, v + j, (size_t)tail * sizeof(*v));
    memcpy(v + keep + 1, found, nf * sizeof(*v));
    for (uint32_t i = keep + 1 + nf; delta && i < total; i++)
        v[i] = (uint32_t)((int64_t)v[i] + delta);
    *n = total;
out:
    if (found != small)
        hk_free(found);
    return rc;
}

static uint32_t content_len(const char *t, size_t len, const uint32_t *lines, uint32_t n,
                            uint32_t line)
{
    uint32_t start = lines[line];
    uint32_t end = line + 1 < n ? lines[line + 1] : (uint32_t)len;
    if (end > start && t[end - 1] == '\n')
        end--;
    if (end > start && t[end - 1] == '\r')
        end--;
    return end - start;
}

/* ---- store ---- */

static struct doc **find_slot(doc_store *s, const char *uri, uint64_t h)
{
    struct doc **pp = &s->buckets[h % N_BUCKETS];
    while (*pp && ((*pp)->hash != h || strcmp((*pp)->uri, uri) != 0))
        pp = &(*pp)->next;
    return pp;
}

doc *doc_get(doc_store *s, const char *uri) { return *find_slot(s, uri, hash_str(uri)); }

/* Puts d in slot; a document already there (a re-open) is replaced, and its owner's
 * pointer, which refers to the uri, kept. */
static void store_insert(doc_store *s, struct doc **slot, struct doc *d)
{
    if (*slot) {
        struct doc *old = *slot;
        d->user = old->user;
        d->next = old->next;
        *slot = d;
        doc_free(old);
    } else {
        d->next = NULL;
        *slot = d;
        s->count++;
    }
}

int doc_open(doc_store *s, const char *uri, int64_t version, const char *text, size_t len,
             doc **out)
{
    int rc = HK_OK;
    struct doc *d = NULL;
    if (len > s->max_size)
        return HK_ETOOBIG;
    uint64_t h = hash_str(uri);
    struct doc **slot = find_slot(s, uri, h);
    if (!*slot && s->count >= DOC_MAX_OPEN)
        return HK_ETOOBIG;
    d = hk_calloc(1, sizeof *d);
    if (!d)
        return HK_ENOMEM;
    d->uri = hk_strdup(uri);
    if (!d->uri) {
        rc = HK_ENOMEM;
        goto out;
    }
    d->hash = h;
    d->version = version;
    hk_buf_init(&d->text, s->max_size);
    rc = hk_buf_append(&d->text, text, len);
    if (rc)
        goto out;
    rc = doc_reindex(d);
    if (rc)
        goto out;
    store_insert(s, slot, d);
    if (out)
        *out = d;
    return HK_OK;
out:
    doc_free(d);
    return rc;
}

/* ---- drafts ---- */

static void ts_point(const char *t, const uint32_t *lines, uint32_t n, bool lone_cr,
                     uint32_t off, uint32_t *row, uint32_t *col);

struct doc_draft {
    struct hk_buf text;
    uint32_t *lines;
    uint32_t n_lines, cap_lines;
    bool lone_cr;
};

int doc_draft_new(const char *text, size_t len, doc_draft **out)
{
    int rc = HK_OK;
    *out = NULL;
    if (len > DOC_DEFAULT_MAX_SIZE || len > UINT32_MAX - 1)
        return HK_ETOOBIG;
    doc_draft *dr = hk_calloc(1, sizeof *dr);
    if (!dr)
        return HK_ENOMEM;
    hk_buf_init(&dr->text, len);
    rc = hk_buf_append(&dr->text, text, len);
    if (!rc)
        rc = index_lines(dr->text.data ? dr->text.data : "", dr->text.len, &dr->lines,
                         &dr->n_lines, &dr->cap_lines, &dr->lone_cr);
    if (rc) {
        doc_draft_free(dr);
        return rc;
    }
    *out = dr;
    return HK_OK;
}

size_t doc_draft_length(const doc_draft *dr) { return dr->text.len; }
const char *doc_draft_text(const doc_draft *dr) { return dr->text.data ? dr->text.data : ""; }
uint32_t doc_draft_line_count(const doc_draft *dr) { return dr->n_lines; }

int doc_draft_line_start(const doc_draft *dr, uint32_t line, uint32_t *out)
{
    if (line >= dr->n_lines)
        return HK_ERANGE;
    *out = dr->lines[line];
    return HK_OK;
}

int doc_draft_line_length(const doc_draft *dr, uint32_t line, uint32_t *out)
{
    if (line >= dr->n_lines)
        return HK_ERANGE;
    *out = content_len(doc_draft_text(dr), dr->text.len, dr->lines, dr->n_lines, line);
    return HK_OK;
}

void doc_draft_free(doc_draft *dr)
{
    if (!dr)
        return;
    hk_buf_free(&dr->text);
    hk_free(dr->lines);
    hk_free(dr);
}

/* Moves the draft's text and index into d (whose own are freed), capped at max. */
static void draft_move(struct doc *d, doc_draft *dr, size_t max)
{
    hk_buf_free(&d->text);
    hk_free(d->lines);
    d->text = dr->text;
    d->text.max = max;
    d->lines = dr->lines;
    d->n_lines = dr->n_lines;
    d->cap_lines = dr->cap_lines;
    d->has_lone_cr = dr->lone_cr;
    hk_free(dr);
}

int doc_open_draft(doc_store *s, const char *uri, int64_t version, doc_draft *dr, doc **out)
{
    int rc = HK_OK;
    struct doc *d = NULL;
    if (dr->text.len > s->max_size) {
        rc = HK_ETOOBIG;
        goto out;
    }
    uint64_t h = hash_str(uri);
    struct doc **slot = find_slot(s, uri, h);
    if (!*slot && s->count >= DOC_MAX_OPEN) {
        rc = HK_ETOOBIG;
        goto out;
    }
    d = hk_calloc(1, sizeof *d);
    if (!d || !(d->uri = hk_strdup(uri))) {
        rc = HK_ENOMEM;
        goto out;
    }
    d->hash = h;
    d->version = version;
    draft_move(d, dr, s->max_size);
    dr = NULL;
    store_insert(s, slot, d);
    d = NULL;
    if (out)
        *out = *slot;
out:
    doc_draft_free(dr);
    if (d)
        doc_free(d);
    return rc;
}

int doc_replace_draft(doc *d, int64_t version, doc_draft *dr, struct doc_edit *e)
{
    if (dr->text.len > d->text.max) {
        doc_draft_free(dr);
        return HK_ETOOBIG;
    }
    memset(e, 0, sizeof *e);
    e->old_end_byte = (uint32_t)d->text.len;
    ts_point(doc_text(d), d->lines, d->n_lines, d->has_lone_cr, e->old_end_byte,
             &e->old_end_row, &e->old_end_col);
    draft_move(d, dr, d->text.max);
    e->new_end_byte = (uint32_t)d->text.len;
    ts_point(doc_text(d), d->lines, d->n_lines, d->has_lone_cr, e->new_end_byte,
             &e->new_end_row, &e->new_end_col);
    d->version = version;
    return HK_OK;
}

int doc_close(doc_store *s, const char *uri)
{
    struct doc **slot = find_slot(s, uri, hash_str(uri));
    if (!*slot)
        return HK_ENOENT;
    struct doc *d = *slot;
    *slot = d->next;
    doc_free(d);
    s->count--;
    return HK_OK;
}

void doc_store_foreach(doc_store *s, void (*fn)(doc *d, void *ud), void *ud)
{
    for (size_t i = 0; i < N_BUCKETS; i++)
        for (struct doc *d = s->buckets[i]; d; d = d->next)
            fn(d, ud);
}

const char *doc_uri(const doc *d) { return d->uri; }
int64_t doc_version(const doc *d) { return d->version; }
const char *doc_text(const doc *d) { return d->text.data ? d->text.data : ""; }
size_t doc_length(const doc *d) { return d->text.len; }
uint32_t doc_line_count(const doc *d) { return d->n_lines; }
void *doc_user(const doc *d) { return d->user; }
void doc_set_user(doc *d, void *p) { d->user = p; }

int doc_line_start(const doc *d, uint32_t line, uint32_t *out)
{
    if (line >= d->n_lines)
        return HK_ERANGE;
    *out = d->lines[line];
    return HK_OK;
}

int doc_line_length(const doc *d, uint32_t line, uint32_t *out)
{
    if (line >= d->n_lines)
        return HK_ERANGE;
    *out = content_len(doc_text(d), d->text.len, d->lines, d->n_lines, line);
    return HK_OK;
}

/* ---- encodings ---- */

/* Length of the UTF-8 sequence led by byte c (1 for stray continuation bytes). */
static uint32_t seq_len(unsigned char c)
{
    if (c < 0xC0)
        return 1;
    if (c < 0xE0)
        return 2;
    if (c < 0xF0)
        return 3;
    if (c < 0xF8)
        return 4;
    return 1;
}

uint32_t doc_utf16_units(const char *text, size_t len)
{
    uint32_t units = 0;
    for (size_t i = 0; i < len;) {
        uint32_t n = seq_len((unsigned char)text[i]);
        if (n > len - i)
            n = (uint32_t)(len - i);
        units += n == 4 ? 2 : 1;
        i += n;
    }
    return units;
}

/* Offset within one line: text t, line content [start, start+clen). */
static int offset_in_line(const char *t, uint32_t start, uint32_t clen, enum doc_encoding enc,
                          uint32_t character, uint32_t *out)
{
    if (enc == DOC_UTF8) {
        if (character > clen)
            return HK_ERANGE;
        if (character < clen && ((unsigned char)t[start + character] & 0xC0) == 0x80)
            return HK_EINVAL;
        *out = start + character;
        return HK_OK;
    }
    uint32_t units = 0, i = 0;
    while (units < character) {
        if (i >= clen)
            return HK_ERANGE; /* past the end of the line */
        uint32_t n = seq_len((unsigned char)t[start + i]);
        if (n > clen - i)
            n = clen - i;
        uint32_t u = n == 4 ? 2 : 1;
        if (units + u > character)
            return HK_ERANGE; /* between the two halves of a surrogate pair */
        units += u;
        i += n;
    }
    *out = start + i;
    return HK_OK;
}

static int offset_at(const char *t, size_t len, const uint32_t *lines, uint32_t n_lines,
                     enum doc_encoding enc, struct doc_pos pos, uint32_t *out)
{
    if (pos.line == n_lines && pos.character == 0) {
        *out = (uint32_t)len;
        return HK_OK;
    }
    if (pos.line >= n_lines)
        return HK_ERANGE;
    uint32_t clen = content_len(t, len, lines, n_lines, pos.line);
    return offset_in_line(t, lines[pos.line], clen, enc, pos.character, out);
}

int doc_offset_at(const doc *d, enum doc_encoding enc, struct doc_pos pos, uint32_t *out)
{
    return offset_at(doc_text(d), d->text.len, d->lines, d->n_lines, enc, pos, out);
}

/* doc_position_at over a text and its line index (a document's or a draft's). */
static int position_at(const char *t, size_t len, const uint32_t *lines, uint32_t n_lines,
                       enum doc_encoding enc, uint32_t offset, struct doc_pos *out)
{
    if (offset > len)
        return HK_ERANGE;
    uint32_t line = line_of(lines, n_lines, offset);
    uint32_t start = lines[line];
    uint32_t clen = content_len(t, len, lines, n_lines, line);
    uint32_t upto = offset - start;
    if (upto > clen)
        upto = clen; /* inside the line terminator */
    while (upto > 0 && upto < clen && ((unsigned char)t[start + upto] & 0xC0) == 0x80)
        upto--; /* round down to the start of a UTF-8 sequence */
    out->line = line;
    out->character = enc == DOC_UTF8 ? upto : doc_utf16_units(t + start, upto);
    return HK_OK;
}

int doc_position_at(const doc *d, enum doc_encoding enc, uint32_t offset, struct doc_pos *out)
{
    return position_at(doc_text(d), d->text.len, d->lines, d->n_lines, enc, offset, out);
}

int doc_draft_position_at(const doc_draft *dr, enum doc_encoding enc, uint32_t offset,
                          struct doc_pos *out)
{
    return position_at(doc_draft_text(dr), dr->text.len, dr->lines, dr->n_lines, enc, offset,
                       out);
}

/* ---- JSON shapes ---- */

static int get_u32(const json_t *o, const char *key, uint32_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        return HK_EINVAL;
    json_int_t x = json_integer_value(v);
    if (x < 0 || x > (json_int_t)UINT32_MAX)
        return HK_EINVAL;
    *out = (uint32_t)x;
    return HK_OK;
}

int doc_parse_position(const json_t *j, struct doc_pos *out)
{
    if (!json_is_object(j))
        return HK_EINVAL;
    struct doc_pos p;
    if (get_u32(j, "line", &p.line) || get_u32(j, "character", &p.character))
        return HK_EINVAL;
    *out = p;
    return HK_OK;
}

int doc_parse_range(const json_t *j, struct doc_pos *start, struct doc_pos *end)
{
    if (!json_is_object(j))
        return HK_EINVAL;
    if (doc_parse_position(json_object_get(j, "start"), start) ||
        doc_parse_position(json_object_get(j, "end"), end))
        return HK_EINVAL;
    return HK_OK;
}

/* ---- changes ---- */

/* Tree-sitter point of offset: rows count '\n' only, columns are bytes. */
static void ts_point(const char *t, const uint32_t *lines, uint32_t n, bool lone_cr,
                     uint32_t off, uint32_t *row, uint32_t *col)
{
    if (!lone_cr) {
        uint32_t l = line_of(lines, n, off);
        *row = l;
        *col = off - lines[l];
        return;
    }
    uint32_t r = 0, last = 0;
    const char *p = t, *end = t + off;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        r++;
        p++;
        last = (uint32_t)(p - t);
    }
    *row = r;
    *col = off - last;
}

/* Working state of a change set: the text and its index (the document's own, or a
 * scratch copy when several changes must be applied all-or-nothing). */
struct work {
    struct hk_buf *text;
    uint32_t **lines;
    uint32_t *n_lines, *cap_lines;
    bool *lone_cr;
};

/* Replaces [s, e) of the working text by repl (n bytes). Reserves before modifying,
 * so failure leaves the text unchanged. */
static int splice(struct hk_buf *b, uint32_t s, uint32_t e, const char *repl, size_t n)
{
    size_t old = e - s;
    if (n > old) {
        size_t grow = n - old;
        int rc = hk_buf_append(b, repl, grow); /* reserve + extend; bytes fixed below */
        if (rc)
            return rc;
        memmove(b->data + e + grow, b->data + e, b->len - grow - e);
    } else if (n < old) {
        memmove(b->data + s + n, b->data + e, b->len - e);
        b->len -= old - n;
        b->data[b->len] = '\0';
    }
    if (n)
        memcpy(b->data + s, repl, n);
    return HK_OK;
}

static int apply_one(struct work *w, enum doc_encoding enc, const json_t *change, size_t max,
                     struct doc_edit *e, const char **why)
{
    if (!json_is_object(change)) {
        *why = hk_tr(HK_MSG_DOC_CHANGE_NOT_OBJECT);
        return HK_EINVAL;
    }
    json_t *jt = json_object_get(change, "text");
    if (!json_is_string(jt)) {
        *why = hk_tr(HK_MSG_DOC_CHANGE_NO_TEXT);
        return HK_EINVAL;
    }
    const char *t = w->text->data ? w->text->data : "";
    size_t len = w->text->len;
    const char *repl = json_string_value(jt);
    size_t n = json_string_length(jt);
    json_t *jr = json_object_get(change, "range");
    uint32_t s = 0, end = (uint32_t)len;
    if (jr) {
        struct doc_pos ps, pe;
        if (doc_parse_range(jr, &ps, &pe)) {
            *why = hk_tr(HK_MSG_DOC_CHANGE_BAD_RANGE);
            return HK_EINVAL;
        }
        if (pe.line < ps.line || (pe.line == ps.line && pe.character < ps.character)) {
            *why = hk_tr(HK_MSG_DOC_CHANGE_INVERTED);
            return HK_EINVAL;
        }
        int rc = offset_at(t, len, *w->lines, *w->n_lines, enc, ps, &s);
        if (!rc)
            rc = offset_at(t, len, *w->lines, *w->n_lines, enc, pe, &end);
        if (rc) {
            *why = hk_tr(HK_MSG_DOC_CHANGE_OUTSIDE);
            return rc;
        }
    }
    if (len - (end - s) + n > max) {
        *why = hk_tr(HK_MSG_DOC_CHANGE_TOO_BIG);
        return HK_ETOOBIG;
    }
    e->start_byte = s;
    e->old_end_byte = end;
    e->new_end_byte = (uint32_t)(s + n);
    ts_point(t, *w->lines, *w->n_lines, *w->lone_cr, s, &e->start_row, &e->start_col);
    ts_point(t, *w->lines, *w->n_lines, *w->lone_cr, end, &e->old_end_row, &e->old_end_col);
    /* Lines that end before the edit keep their starts (one line of margin: an edit
     * right after a '\r' can merge it with a new '\n' into one terminator), and so do
     * the lines after it, moved. */
    int rc = splice(w->text, s, end, repl, n);
    if (rc) {
        *why = hk_tr(HK_MSG_LSP_ERR_OOM);
        return rc;
    }
    rc = index_lines_edit(w->text->data ? w->text->data : "", w->text->len, w->lines,
                          w->n_lines, w->cap_lines, w->lone_cr, s, end, n);
    if (rc) {
        *why = hk_tr(HK_MSG_LSP_ERR_OOM);
        return rc;
    }
    ts_point(w->text->data ? w->text->data : "", *w->lines, *w->n_lines, *w->lone_cr,
             e->new_end_byte, &e->new_end_row, &e->new_end_col);
    return HK_OK;
}

int doc_apply_changes(doc *d, enum doc_encoding enc, int64_t version, const json_t *changes,
                      void (*on_edit)(const struct doc_edit *e, void *ud), void *ud,
                      const char **why)
{
    int rc = HK_OK;
    const char *reason = NULL;
    struct doc_edit *edits = NULL;
    struct hk_buf scratch;
    uint32_t *slines = NULL, sn = 0, scap = 0;
    bool slone = false;
    hk_buf_init(&scratch, d->text.max);
    if (!json_is_array(changes)) {
        reason = hk_tr(HK_MSG_DOCX_CHANGES_NOT_ARRAY);
        rc = HK_EINVAL;
        goto out;
    }
    size_t k = json_array_size(changes);
    /* Each change costs up to one pass over the text; bound the product so a message
     * of many tiny changes to a big document cannot stall the loop. */
    if (k > 1 && (uint64_t)k * (d->text.len + 4096) > DOC_MAX_CHANGE_WORK) {
        reason = hk_tr(HK_MSG_DOCX_TOO_MANY_CHANGES);
        rc = HK_ETOOBIG;
        goto out;
    }
    edits = hk_calloc(k ? k : 1, sizeof *edits);
    if (!edits) {
        rc = HK_ENOMEM;
        reason = hk_strerror_tr(HK_ENOMEM);
        goto out;
    }
    struct work w;
    bool in_place = k == 1;
    if (in_place) {
        /* One change is validated completely before the splice, so it can be applied
         * to the document directly. */
        w = (struct work){&d->text, &d->lines, &d->n_lines, &d->cap_lines, &d->has_lone_cr};
    } else {
        rc = hk_buf_append(&scratch, doc_text(d), d->text.len);
        if (!rc && d->n_lines) {
            slines = hk_malloc((size_t)d->n_lines * sizeof *slines);
            if (!slines)
                rc = HK_ENOMEM;
            else
                memcpy(slines, d->lines, (size_t)d->n_lines * sizeof *slines);
            sn = scap = d->n_lines;
            slone = d->has_lone_cr;
        }
        if (rc) {
            reason = hk_strerror_tr(HK_ENOMEM);
            goto out;
        }
        w = (struct work){&scratch, &slines, &sn, &scap, &slone};
    }
    for (size_t i = 0; i < k; i++) {
        rc = apply_one(&w, enc, json_array_get(changes, i), d->text.max, &edits[i], &reason);
        if (rc) {
            if (in_place && rc == HK_ENOMEM)
                doc_reindex(d); /* the splice happened; keep the index true to the text */
            goto out;
        }
    }
    if (!in_place) {
        struct hk_buf tmp = d->text;
        d->text = scratch;
        scratch = tmp;
        uint32_t *tl = d->lines;
        d->lines = slines;
        slines = tl;
        d->n_lines = sn;
        d->cap_lines = scap;
        d->has_lone_cr = slone;
    }
    d->version = version;
    if (on_edit)
        for (size_t i = 0; i < k; i++)
            on_edit(&edits[i], ud);
out:
    if (why)
        *why = reason;
    hk_free(edits);
    hk_free(slines);
    hk_buf_free(&scratch);
    return rc;
}
