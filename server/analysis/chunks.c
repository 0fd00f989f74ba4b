/* Chunk boundaries and piece parsing for the analysis (see chunks.h). The scan is a
 * small lexer: it knows what can hide a brace or a line start from the top level
 * (comments, strings, raw strings, preprocessor lines with continuations, #if 0 blocks)
 * and nothing of the grammar. A wrong guess costs speed, never correctness: a piece that
 * does not parse cleanly on its own is parsed again together with the next one. */
#include "analysis/chunks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "core/hk.h"

uint64_t an_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- the scan */

#define COND_MAX 32   /* nested conditionals whose states are tracked */

/* What the brace open at the top level belongs to: a function body ends its item at
 * `}`; a struct, enum, union or initializer needs the `;` after it; a namespace or
 * extern "C" block ends at `}` too. */
enum an_top { TOP_FUNC, TOP_NS, TOP_AGG };

struct an_cond {
    int brace, paren;        /* at the #if */
    bool complete;
    bool have_first;         /* an #else/#elif was met: first branch's end below */
    int fbrace, fparen;
    bool fcomplete;
};

struct an_scan {
    const char *t;
    uint32_t len, i, rows;
    int brace, paren;        /* depths, never below 0 (a stray closer is the parser's) */
    bool complete;           /* the last token closed a top-level item (`;`, `}`, directive) */
    char last;               /* the last significant character */
    bool saw_ns;             /* `namespace` or `extern` since the last complete item */
    enum an_top top;         /* what the outermost open brace belongs to */
    unsigned pp;             /* open #if/#ifdef/#ifndef */
    bool skipping;           /* inside the first branch of an #if 0 */
    unsigned skip_level;     /* pp of that #if 0 */
    struct an_cond cond[COND_MAX];
};

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* From just after a block comment's opener at i: the position after its closer. An
 * opener never closed is not a comment to tree-sitter (it reports an error and parses
 * on), so it is not one here either: i is returned and the scan goes on after it. */
static uint32_t block_comment_end(const char *t, uint32_t len, uint32_t i, uint32_t *rows)
{
    const char *e = memmem(t + i, len - i, "*/", 2);
    if (!e)
        return i;
    uint32_t end = (uint32_t)(e - t) + 2;
    for (const char *p = t + i; (p = memchr(p, '\n', (size_t)(e - p))); p++)
        (*rows)++;
    return end;
}

/* At "//": the position of the newline that ends it (not consumed; a backslash before a
 * newline continues the comment, as in the preprocessor), or len. */
static uint32_t line_comment_end(const char *t, uint32_t len, uint32_t i, uint32_t *rows)
{
    for (; i < len; i++) {
        if (t[i] != '\n')
            continue;
        uint32_t b = i;
        if (b > 0 && t[b - 1] == '\r')
            b--;
        if (b > 0 && t[b - 1] == '\\') {
            (*rows)++;
            continue;
        }
        return i;
    }
    return len;
}

/* After the opening quote q at i: the position after the closing one; an unterminated
 * literal ends before its newline. */
static uint32_t quoted_end(const char *t, uint32_t len, uint32_t i, char q, uint32_t *rows)
{
    while (i < len) {
        char c = t[i];
        if (c == '\\' && i + 1 < len) {
            if (t[i + 1] == '\n')
                (*rows)++;
            i += 2;
            continue;
        }
        if (c == q)
            return i + 1;
        if (c == '\n')
            return i;
        i++;
    }
    return len;
}

/* R"delim( ... )delim" with the R at i (an encoding prefix, if any, is before i). The
 * position after it, or 0 when this is not a raw string (the caller goes on at i + 1). */
static uint32_t raw_string_end(const char *t, uint32_t len, uint32_t i, uint32_t *rows)
{
    uint32_t d = i + 2, k = d;   /* after R" */
    while (k < len && k - d <= 16 && t[k] != '(') {
        char c = t[k];
        if (c == ')' || c == '\\' || c == ' ' || c == '\t' || c == '\n' || c == '"')
            return 0;
        k++;
    }
    if (k >= len || t[k] != '(')
        return 0;
    uint32_t dl = k - d;
    uint32_t nl = 0;
    for (uint32_t j = k + 1; j < len; j++) {
        if (t[j] == '\n')
            nl++;
        else if (t[j] == ')' && j + 1 + dl < len && !memcmp(t + j + 1, t + d, dl) &&
                 t[j + 1 + dl] == '"') {
            *rows += nl;
            return j + 2 + dl;
        }
    }
    return 0;   /* never closed: not a raw string to the parser either */
}

/* An identifier that, right before a '"', opens a raw string literal: R, u8R, uR, UR, LR. */
static bool raw_prefix(const char *w, uint32_t n)
{
    return (n == 1 && w[0] == 'R') ||
           (n == 2 && w[1] == 'R' && (w[0] == 'u' || w[0] == 'U' || w[0] == 'L')) ||
           (n == 3 && w[0] == 'u' && w[1] == '8' && w[2] == 'R');
}

/* ' at i is a digit separator (1'000'000, 0xFF'FF) rather than a character literal. */
static bool digit_separator(const char *t, uint32_t from, uint32_t len, uint32_t i)
{
    if (i == from || i + 1 >= len || !is_hex(t[i - 1]) || !is_hex(t[i + 1]))
        return false;
    uint32_t s = i;
    while (s > from && (is_ident(t[s - 1]) || t[s - 1] == '\''))
        s--;
    return t[s] >= '0' && t[s] <= '9';
}

static void cond_push(struct an_scan *s, bool if0)
{
    s->pp++;
    if (s->skipping)
        return;                            /* nested in dead text: only counted */
    if (s->pp <= COND_MAX) {
        struct an_cond *c = &s->cond[s->pp - 1];
        c->brace = s->brace;
        c->paren = s->paren;
        c->complete = s->complete;
        c->have_first = false;
    }
    if (if0) {
        s->skipping = true;
        s->skip_level = s->pp;
    }
}

static void cond_else(struct an_scan *s)
{
    if (!s->pp)
        return;
    if (s->skipping && s->pp != s->skip_level)
        return;
    bool was_skipping = s->skipping;
    s->skipping = false;
    if (s->pp > COND_MAX)
        return;
    struct an_cond *c = &s->cond[s->pp - 1];
    if (!c->have_first) {
        c->have_first = true;
        /* a skipped first branch changed nothing */
        c->fbrace = was_skipping ? c->brace : s->brace;
        c->fparen = was_skipping ? c->paren : s->paren;
        c->fcomplete = was_skipping ? c->complete : s->complete;
    }
    s->brace = c->brace;
    s->paren = c->paren;
    s->complete = c->complete;
}

/* After #endif the state is the first branch's: code written as `#if A  f(a) {  #else
 * f(b) {  #endif  body }` opens one brace, not two. */
static void cond_pop(struct an_scan *s)
{
    if (!s->pp)
        return;
    if (s->skipping && s->pp != s->skip_level) {
        s->pp--;
        return;
    }
    bool was_skipping = s->skipping;
    s->skipping = false;
    if (s->pp <= COND_MAX) {
        struct an_cond *c = &s->cond[s->pp - 1];
        if (c->have_first) {
            s->brace = c->fbrace;
            s->paren = c->fparen;
            s->complete = c->fcomplete;
        } else if (was_skipping) {
            s->brace = c->brace;
            s->paren = c->paren;
            s->complete = c->complete;
        }
    }
    s->pp--;
}

static bool word_is(const char *w, uint32_t n, const char *lit)
{
    return strlen(lit) == n && !memcmp(w, lit, n);
}

/* The directive whose '#' is at s->i: its effect, then the rest of the logical line,
 * newline included. */
static void directive(struct an_scan *s)
{
    const char *t = s->t;
    uint32_t len = s->len, i = s->i + 1;
    while (i < len && is_blank(t[i]))
        i++;
    uint32_t w = i;
    while (i < len && is_ident(t[i]))
        i++;
    uint32_t wn = i - w;
    /* "#if 0": the condition, blanks trimmed, is exactly 0 */
    bool if0 = false;
    if (word_is(t + w, wn, "if")) {
        uint32_t k = i;
        while (k < len && is_blank(t[k]))
            k++;
        if (k < len && t[k] == '0') {
            k++;
            while (k < len && is_blank(t[k]))
                k++;
            if0 = k >= len || t[k] == '\n' || (t[k] == '/' && k + 1 < len &&
                                                (t[k + 1] == '/' || t[k + 1] == '*'));
        }
    }
    if (word_is(t + w, wn, "if") || word_is(t + w, wn, "ifdef") || word_is(t + w, wn, "ifndef"))
        cond_push(s, if0);
    else if (word_is(t + w, wn, "else") || word_is(t + w, wn, "elif") ||
             word_is(t + w, wn, "elifdef") || word_is(t + w, wn, "elifndef"))
        cond_else(s);
    else if (word_is(t + w, wn, "endif"))
        cond_pop(s);
    else if (!s->skipping)
        s->complete = true;                /* #define, #include, #pragma ...: a whole item */
    while (i < len) {
        char c = t[i];
        if (c == '\\' && i + 1 < len && (t[i + 1] == '\n' || t[i + 1] == '\r')) {
            i++;
            if (t[i] == '\r' && i + 1 < len && t[i + 1] == '\n')
                i++;
            if (t[i] == '\n')
                s->rows++;
            i++;
            continue;
        }
        if (c == '/' && i + 1 < len && t[i + 1] == '*') {
            i = block_comment_end(t, len, i + 2, &s->rows);
            continue;
        }
        if (c == '/' && i + 1 < len && t[i + 1] == '/') {
            i = line_comment_end(t, len, i + 2, &s->rows);
            continue;
        }
        if ((c == '"' || c == '\'') && !s->skipping) {
            i = quoted_end(t, len, i + 1, c, &s->rows);
            continue;
        }
        if (c == '\n') {
            s->rows++;
            i++;
            break;
        }
        i++;
    }
    s->i = i;
}

/* One line from s->i (a line start), newline included; constructs that span lines
 * (block comments, raw strings, continued comments) are taken whole. */
static void scan_line(struct an_scan *s)
{
    const char *t = s->t;
    uint32_t len = s->len, i = s->i;
    uint32_t j = i;
    while (j < len && is_blank(t[j]))
        j++;
    if (j < len && t[j] == '#') {
        s->i = j;
        directive(s);
        return;
    }
    while (i < len) {
        char c = t[i];
        if (c == '\n') {
            s->rows++;
            i++;
            break;
        }
        if (c == '/' && i + 1 < len && t[i + 1] == '/') {
            i = line_comment_end(t, len, i + 2, &s->rows);
            continue;
        }
        if (c == '/' && i + 1 < len && t[i + 1] == '*') {
            i = block_comment_end(t, len, i + 2, &s->rows);
            continue;
        }
        if (s->skipping) {                 /* dead text: only comments matter */
            i++;
            continue;
        }
        if (c == '"') {
            i = quoted_end(t, len, i + 1, '"', &s->rows);
            s->complete = false;
            continue;
        }
        if (c == '\'') {
            if (digit_separator(t, s->i, len, i)) {
                i++;
                continue;
            }
            i = quoted_end(t, len, i + 1, '\'', &s->rows);
            s->complete = false;
            continue;
        }
        if (is_ident(c) && !(c >= '0' && c <= '9')) {
            uint32_t w = i;
            while (i < len && is_ident(t[i]))
                i++;
            if (i < len && t[i] == '"' && raw_prefix(t + w, i - w)) {
                /* identifiers are taken whole, so a prefixed raw string is seen here */
                uint32_t e = raw_string_end(t, len, i - 1, &s->rows);
                if (e) {
                    i = e;
                    s->complete = false;
                    continue;
                }
            }
            if (s->brace == 0 && (word_is(t + w, i - w, "namespace") ||
                                  word_is(t + w, i - w, "extern")))
                s->saw_ns = true;
            s->complete = false;
            s->last = t[i - 1];
            continue;
        }
        switch (c) {
        case '{':
            if (s->brace == 0)
                s->top = s->last == ')' ? TOP_FUNC : s->saw_ns ? TOP_NS : TOP_AGG;
            s->brace++;
            s->complete = false;
            break;
        case '}':
            if (s->brace > 0)
                s->brace--;
            s->complete = s->brace == 0 && s->paren == 0 && s->top != TOP_AGG;
            break;
        case '(':
        case '[':
            s->paren++;
            s->complete = false;
            break;
        case ')':
        case ']':
            if (s->paren > 0)
                s->paren--;
            s->complete = false;
            break;
        case ';':
            s->complete = s->brace == 0 && s->paren == 0;
            break;
        default:
            if (!is_blank(c))
                s->complete = false;
        }
        if (s->complete)
            s->saw_ns = false;
        if (!is_blank(c))
            s->last = c;
        i++;
    }
    s->i = i;
}

/* A function body cannot hold a kernel or a template: one that starts a line there
 * means the body was left open (mid-typing). The parser recovers there too; the scan
 * starts over at that line so the rest of the file still splits. */
static void recover_at_line(struct an_scan *s)
{
    const char *t = s->t;
    uint32_t i = s->i;
    if (s->brace == 0 || s->top != TOP_FUNC || s->pp || i >= s->len ||
        (t[i] != '_' && t[i] != 't'))
        return;
    uint32_t w = i;
    while (w < s->len && is_ident(t[w]))
        w++;
    if (word_is(t + i, w - i, "__global__") || word_is(t + i, w - i, "template")) {
        s->brace = s->paren = 0;
        s->complete = true;
        s->saw_ns = false;
    }
}

/* Whether the line start s->i ends the piece that began at from. */
static bool boundary_here(const struct an_scan *s, uint32_t from)
{
    if (s->brace || s->paren || s->pp || s->skipping || !s->complete)
        return false;
    uint32_t size = s->i - from;
    if (size < AN_PIECE_MIN)
        return false;
    /* the next line must not continue the item (`} x;`, `;` on its own, operators) */
    const char *t = s->t;
    uint32_t j = s->i;
    while (j < s->len && is_blank(t[j]))
        j++;
    if (j < s->len) {
        char c = t[j];
        bool comment = c == '/' && j + 1 < s->len && (t[j + 1] == '/' || t[j + 1] == '*');
        if (!comment && c != '\n' && strchr(";,)]=:.?&|+-*/%<>^!{}", c))
            return false;
    }
    if (size >= AN_PIECE_MAX)
        return true;
    /* FNV-1a of the bytes before the line start: depends on the text, not on from */
    uint32_t h = 2166136261u;
    for (uint32_t k = s->i > 48 ? s->i - 48 : 0; k < s->i; k++)
        h = (h ^ (unsigned char)t[k]) * 16777619u;
    return ((h >> 16) & AN_PIECE_MASK) == 0;
}

void an_piece_next(const char *text, uint32_t len, uint32_t from, uint32_t from_row,
                   struct an_piece *p)
{
    struct an_scan s;
    memset(&s, 0, sizeof(s));
    s.t = text;
    s.len = len;
    s.i = from;
    s.rows = from_row;
    uint32_t end = len;
    while (s.i < len) {
        recover_at_line(&s);
        if (s.i > from && boundary_here(&s, from)) {
            end = s.i;
            break;
        }
        scan_line(&s);
    }
    p->start = from;
    p->start_row = from_row;
    p->end = end;
    p->end_row = s.rows;
    p->end_col = 0;
    if (end == len) {
        uint32_t k = len;
        while (k > from && text[k - 1] != '\n')
            k--;
        p->end_col = len - k;
        /* the scan's rows stop at len too: the last line's row */
    }
}

/* ---------------------------------------------------------------- parsing */

TSTree *an_parse_piece(TSParser *parser, const char *text, uint32_t len,
                       const struct an_piece *p, TSTree *old, uint64_t deadline_ns,
                       bool *timed_out)
{
    *timed_out = false;
    TSRange r = {{p->start_row, 0}, {p->end_row, p->end_col}, p->start, p->end};
    if (!ts_parser_set_included_ranges(parser, &r, 1))
        return NULL;
    uint64_t micros = 0;
    if (deadline_ns) {
        uint64_t now = an_now_ns();
        if (now >= deadline_ns) {
            *timed_out = true;
            ts_parser_set_included_ranges(parser, NULL, 0);
            return NULL;
        }
        micros = (deadline_ns - now) / 1000 + 1;
    }
    ts_parser_set_timeout_micros(parser, micros);
    TSTree *tree = ts_parser_parse_string(parser, old, text, len);
    if (!tree) {
        *timed_out = micros > 0;
        ts_parser_reset(parser);   /* a timed-out parser would resume this parse next time */
    }
    ts_parser_set_included_ranges(parser, NULL, 0);
    return tree;
}

struct an_pjob {
    const TSLanguage *lang;
    const char *text;
    uint32_t len;
    const struct an_piece *pieces;
    size_t n;
    TSTree **trees;
    uint64_t deadline_ns;
    an_piece_fn *done;
    void *ctx;
    atomic_size_t next;
    atomic_uint worker;   /* ids handed to the threads that start */
    atomic_int err;
};

static void pjob_fail(struct an_pjob *j, int err)
{
    int zero = 0;
    atomic_compare_exchange_strong(&j->err, &zero, err);
}

static void pjob_run(struct an_pjob *j, TSParser *ps, unsigned worker)
{
    for (;;) {
        if (atomic_load(&j->err))
            return;
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n)
            return;
        bool to;
        TSTree *t = an_parse_piece(ps, j->text, j->len, &j->pieces[i], NULL, j->deadline_ns, &to);
        if (!t) {
            pjob_fail(j, to ? HK_ETIMEDOUT : HK_EPARSE);
            return;
        }
        if (!j->done) {
            j->trees[i] = t;
            continue;
        }
        int rc = j->done(j->ctx, worker, i, t);
        if (rc) {
            pjob_fail(j, rc);
            return;
        }
    }
}

static void *pjob_worker(void *arg)
{
    struct an_pjob *j = arg;
    unsigned worker = atomic_fetch_add(&j->worker, 1);
    TSParser *ps = ts_parser_new();
    if (!ps)
        return NULL;                       /* the other threads do the work */
    if (ts_parser_set_language(ps, j->lang))
        pjob_run(j, ps, worker);
    ts_parser_delete(ps);
    return NULL;
}

int an_parse_pieces(TSParser *parser, const TSLanguage *lang, const char *text, uint32_t len,
                    const struct an_piece *pieces, size_t n, TSTree **trees,
                    uint64_t deadline_ns, unsigned threads, an_piece_fn *done, void *ctx)
{
    struct an_pjob j = {.lang = lang, .text = text, .len = len, .pieces = pieces, .n = n,
                        .trees = trees, .deadline_ns = deadline_ns, .done = done, .ctx = ctx};
    atomic_init(&j.next, 0);
    atomic_init(&j.worker, 1);
    atomic_init(&j.err, 0);
    for (size_t i = 0; trees && i < n; i++)
        trees[i] = NULL;
    pthread_t tid[AN_THREADS_MAX];
    unsigned started = 0;
    unsigned extra = threads > 1 ? threads - 1 : 0;
    if (extra > AN_THREADS_MAX)
        extra = AN_THREADS_MAX;
    if (extra > n / 2)
        extra = (unsigned)(n / 2);         /* a thread per two pieces at least */
    for (unsigned k = 0; k < extra; k++) {
        if (pthread_create(&tid[started], NULL, pjob_worker, &j))
            break;                         /* fewer threads: slower, still right */
        started++;
    }
    pjob_run(&j, parser, 0);
    for (unsigned k = 0; k < started; k++)
        pthread_join(tid[k], NULL);
    int err = atomic_load(&j.err);
    if (!err)
        return HK_OK;
    for (size_t i = 0; trees && i < n; i++) {
        if (trees[i])
            ts_tree_delete(trees[i]);
        trees[i] = NULL;
    }
    return err;
}
