/* Unit tests for the document store: utf-8 / utf-16 positions on lines with Chinese
 * comments and emoji (surrogate pairs), line endings, incremental and full changes
 * applied in order and all-or-nothing, the edits handed to tree-sitter, caps; drafts
 * (a text and its index made off the store) adopted by an open and a full change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "documents/documents.h"

/* Line 0: "// 计算 😀 sum" ; line 1: "int x;" */
static const char TEXT[] = "// \xe8\xae\xa1\xe7\xae\x97 \xf0\x9f\x98\x80 sum\nint x;";

static doc_store *store(void)
{
    doc_store *s;
    assert_int_equal(doc_store_new(0, &s), HK_OK);
    return s;
}

static struct doc_pos P(uint32_t l, uint32_t c) { return (struct doc_pos){l, c}; }

static void test_utf16_positions(void **st)
{
    doc_store *s = store();
    doc *d;
    assert_int_equal(doc_open(s, "file:///a.cu", 1, TEXT, strlen(TEXT), &d), HK_OK);
    assert_int_equal(doc_line_count(d), 2);
    uint32_t off;
    /* "// " is 3 units; each CJK char is 1 unit (3 bytes); the emoji is 2 units (4 bytes). */
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(0, 3), &off), HK_OK);
    assert_int_equal(off, 3);
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(0, 4), &off), HK_OK);
    assert_int_equal(off, 6);
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(0, 6), &off), HK_OK);
    assert_int_equal(off, 10); /* the emoji starts at byte 10 */
    /* Inside the surrogate pair: an error, not a guess. */
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(0, 7), &off), HK_ERANGE);
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(0, 8), &off), HK_OK);
    assert_int_equal(off, 14);
    /* End of line 0 is 12 units ("// " 3 + 2 + " " 1 + 2 + " sum" 4); one past is an error. */
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(0, 12), &off), HK_OK);
    assert_int_equal(off, 18);
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(0, 13), &off), HK_ERANGE);
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(1, 3), &off), HK_OK);
    assert_int_equal(off, 22);
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(2, 0), &off), HK_OK); /* end of document */
    assert_int_equal(off, strlen(TEXT));
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(2, 1), &off), HK_ERANGE);
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(7, 0), &off), HK_ERANGE);
    /* And back. */
    struct doc_pos p;
    assert_int_equal(doc_position_at(d, DOC_UTF16, 14, &p), HK_OK);
    assert_int_equal(p.line, 0);
    assert_int_equal(p.character, 8);
    assert_int_equal(doc_position_at(d, DOC_UTF16, 12, &p), HK_OK); /* mid-emoji rounds down */
    assert_int_equal(p.character, 6);
    assert_int_equal(doc_position_at(d, DOC_UTF16, 22, &p), HK_OK);
    assert_int_equal(p.line, 1);
    assert_int_equal(p.character, 3);
    assert_int_equal(doc_position_at(d, DOC_UTF16, 999, &p), HK_ERANGE);
    doc_store_free(s);
}

static void test_utf8_positions(void **st)
{
    doc_store *s = store();
    doc *d;
    assert_int_equal(doc_open(s, "file:///a.cu", 1, TEXT, strlen(TEXT), &d), HK_OK);
    uint32_t off;
    assert_int_equal(doc_offset_at(d, DOC_UTF8, P(0, 10), &off), HK_OK);
    assert_int_equal(off, 10);
    assert_int_equal(doc_offset_at(d, DOC_UTF8, P(0, 11), &off), HK_EINVAL); /* mid-sequence */
    assert_int_equal(doc_offset_at(d, DOC_UTF8, P(0, 18), &off), HK_OK);
    assert_int_equal(doc_offset_at(d, DOC_UTF8, P(0, 19), &off), HK_ERANGE);
    struct doc_pos p;
    assert_int_equal(doc_position_at(d, DOC_UTF8, 14, &p), HK_OK);
    assert_int_equal(p.character, 14);
    assert_int_equal(doc_utf16_units(TEXT, 18), 12);
    doc_store_free(s);
}

static void test_line_endings(void **st)
{
    doc_store *s = store();
    doc *d;
    const char *t = "a\r\nbb\rccc\n";
    assert_int_equal(doc_open(s, "u", 1, t, strlen(t), &d), HK_OK);
    assert_int_equal(doc_line_count(d), 4);
    uint32_t len, off;
    assert_int_equal(doc_line_length(d, 0, &len), HK_OK);
    assert_int_equal(len, 1);
    assert_int_equal(doc_line_length(d, 1, &len), HK_OK);
    assert_int_equal(len, 2);
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(0, 2), &off), HK_ERANGE); /* the \r */
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(2, 3), &off), HK_OK);
    assert_int_equal(off, 9);
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(3, 0), &off), HK_OK);
    assert_int_equal(off, 10);
    doc_store_free(s);
}

struct edits {
    struct doc_edit e[16];
    int n;
};

static void on_edit(const struct doc_edit *e, void *ud)
{
    struct edits *x = ud;
    assert_true(x->n < 16);
    x->e[x->n++] = *e;
}

static int apply(doc *d, enum doc_encoding enc, int64_t v, const char *changes_json,
                 struct edits *x)
{
    json_error_t err;
    json_t *c = json_loads(changes_json, JSON_ALLOW_NUL, &err);
    assert_non_null(c);
    const char *why = NULL;
    int rc = doc_apply_changes(d, enc, v, c, x ? on_edit : NULL, x, &why);
    if (rc)
        assert_non_null(why);
    json_decref(c);
    return rc;
}

static void test_incremental_in_order(void **st)
{
    doc_store *s = store();
    doc *d;
    assert_int_equal(doc_open(s, "u", 1, TEXT, strlen(TEXT), &d), HK_OK);
    struct edits x = {0};
    /* Two changes in one didChange: the second's positions refer to the text after the
     * first. Insert "A" after the emoji, then replace "int" (now still line 1) by "long". */
    assert_int_equal(apply(d, DOC_UTF16, 2,
                           "[{\"range\":{\"start\":{\"line\":0,\"character\":8},"
                           "\"end\":{\"line\":0,\"character\":8}},\"text\":\"A\"},"
                           "{\"range\":{\"start\":{\"line\":1,\"character\":0},"
                           "\"end\":{\"line\":1,\"character\":3}},\"text\":\"long\\nlong\"}]",
                           &x),
                     HK_OK);
    assert_string_equal(doc_text(d), "// \xe8\xae\xa1\xe7\xae\x97 \xf0\x9f\x98\x80"
                                     "A sum\nlong\nlong x;");
    assert_int_equal(doc_version(d), 2);
    assert_int_equal(doc_line_count(d), 3);
    assert_int_equal(x.n, 2);
    assert_int_equal(x.e[0].start_byte, 14);
    assert_int_equal(x.e[0].old_end_byte, 14);
    assert_int_equal(x.e[0].new_end_byte, 15);
    assert_int_equal(x.e[0].start_row, 0);
    assert_int_equal(x.e[0].start_col, 14);
    assert_int_equal(x.e[1].start_byte, 20);
    assert_int_equal(x.e[1].old_end_byte, 23);
    assert_int_equal(x.e[1].new_end_byte, 29);
    assert_int_equal(x.e[1].start_row, 1);
    assert_int_equal(x.e[1].new_end_row, 2);
    assert_int_equal(x.e[1].new_end_col, 4);
    /* Full replacement. */
    x.n = 0;
    assert_int_equal(apply(d, DOC_UTF16, 3, "[{\"text\":\"x\\ny\"}]", &x), HK_OK);
    assert_string_equal(doc_text(d), "x\ny");
    assert_int_equal(x.n, 1);
    assert_int_equal(x.e[0].start_byte, 0);
    assert_int_equal(x.e[0].old_end_byte, 32);
    assert_int_equal(x.e[0].old_end_row, 2);
    assert_int_equal(x.e[0].new_end_row, 1);
    doc_store_free(s);
}

static void test_bad_changes_leave_document(void **st)
{
    doc_store *s = store();
    doc *d;
    assert_int_equal(doc_open(s, "u", 5, TEXT, strlen(TEXT), &d), HK_OK);
    struct edits x = {0};
    /* inverted range */
    assert_int_equal(apply(d, DOC_UTF16, 6,
                           "[{\"range\":{\"start\":{\"line\":1,\"character\":2},"
                           "\"end\":{\"line\":1,\"character\":1}},\"text\":\"\"}]", &x),
                     HK_EINVAL);
    /* inside the surrogate pair */
    assert_int_equal(apply(d, DOC_UTF16, 6,
                           "[{\"range\":{\"start\":{\"line\":0,\"character\":7},"
                           "\"end\":{\"line\":0,\"character\":8}},\"text\":\"\"}]", &x),
                     HK_ERANGE);
    /* past the end of a line */
    assert_int_equal(apply(d, DOC_UTF16, 6,
                           "[{\"range\":{\"start\":{\"line\":1,\"character\":60},"
                           "\"end\":{\"line\":1,\"character\":61}},\"text\":\"\"}]", &x),
                     HK_ERANGE);
    /* wrong types */
    assert_int_equal(apply(d, DOC_UTF16, 6, "[{\"range\":{\"start\":{\"line\":\"1\"}},\"text\":1}]",
                           &x), HK_EINVAL);
    assert_int_equal(apply(d, DOC_UTF16, 6, "[{\"range\":{\"start\":{\"line\":-1,\"character\":0},"
                           "\"end\":{\"line\":0,\"character\":0}},\"text\":\"\"}]", &x), HK_EINVAL);
    assert_int_equal(apply(d, DOC_UTF16, 6, "{\"text\":\"\"}", &x), HK_EINVAL);
    assert_int_equal(apply(d, DOC_UTF16, 6, "[5]", &x), HK_EINVAL);
    /* the first change is fine, the second is not: nothing is applied */
    assert_int_equal(apply(d, DOC_UTF16, 6,
                           "[{\"range\":{\"start\":{\"line\":0,\"character\":0},"
                           "\"end\":{\"line\":0,\"character\":0}},\"text\":\"ok\"},"
                           "{\"range\":{\"start\":{\"line\":9,\"character\":0},"
                           "\"end\":{\"line\":9,\"character\":0}},\"text\":\"bad\"}]", &x),
                     HK_ERANGE);
    assert_int_equal(x.n, 0);
    assert_string_equal(doc_text(d), TEXT);
    assert_int_equal(doc_version(d), 5);
    assert_int_equal(doc_line_count(d), 2);
    doc_store_free(s);
}

static void test_nul_and_caps(void **st)
{
    doc_store *s;
    assert_int_equal(doc_store_new(64, &s), HK_OK);
    doc *d;
    static const char nul[] = "a\0b\nc";
    assert_int_equal(doc_open(s, "u", 1, nul, sizeof nul - 1, &d), HK_OK);
    assert_int_equal(doc_length(d), 5);
    uint32_t off;
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P(0, 3), &off), HK_OK);
    assert_int_equal(off, 3);
    struct edits x = {0};
    assert_int_equal(apply(d, DOC_UTF16, 2,
                           "[{\"range\":{\"start\":{\"line\":0,\"character\":1},"
                           "\"end\":{\"line\":0,\"character\":2}},\"text\":\"\\u0000\\u0000\"}]",
                           &x),
                     HK_OK);
    assert_int_equal(doc_length(d), 6);
    assert_memory_equal(doc_text(d), "a\0\0b\nc", 6);
    char big[100];
    memset(big, 'x', sizeof big);
    assert_int_equal(doc_open(s, "v", 1, big, sizeof big, NULL), HK_ETOOBIG);
    assert_null(doc_get(s, "v"));
    /* A change that would grow past the cap is refused whole. */
    assert_int_equal(apply(d, DOC_UTF16, 3,
                           "[{\"text\":\"0123456789012345678901234567890123456789"
                           "0123456789012345678901234567890123456789\"}]", &x),
                     HK_ETOOBIG);
    assert_int_equal(doc_length(d), 6);
    assert_int_equal(doc_close(s, "u"), HK_OK);
    assert_int_equal(doc_close(s, "u"), HK_ENOENT);
    assert_int_equal(doc_store_count(s), 0);
    doc_store_free(s);
}

static void test_many_docs_and_reopen(void **st)
{
    long before = hk_alloc_live();
    doc_store *s = store();
    char uri[64];
    for (int i = 0; i < 3000; i++) {
        snprintf(uri, sizeof uri, "file:///f%d.cu", i);
        assert_int_equal(doc_open(s, uri, i, uri, strlen(uri), NULL), HK_OK);
    }
    assert_int_equal(doc_store_count(s), 3000);
    doc *d = doc_get(s, "file:///f1234.cu");
    assert_non_null(d);
    assert_string_equal(doc_text(d), "file:///f1234.cu");
    doc_set_user(d, (void *)0x1);
    assert_int_equal(doc_open(s, "file:///f1234.cu", 9, "new", 3, &d), HK_OK);
    assert_int_equal(doc_store_count(s), 3000);
    assert_string_equal(doc_text(d), "new");
    assert_ptr_equal(doc_user(d), (void *)0x1);
    doc_store_free(s);
    assert_int_equal(hk_alloc_live(), before);
}

static void test_big_document_is_linear(void **st)
{
    /* 200,000 lines; 2,000 single-character edits near the end must stay fast (this
     * would take minutes if an edit were quadratic in the file). */
    size_t n = 200000;
    char *t = malloc(n * 10 + 1);
    for (size_t i = 0; i < n; i++)
        memcpy(t + i * 10, "int a = 1\n", 10);
    t[n * 10] = '\0';
    doc_store *s = store();
    doc *d;
    assert_int_equal(doc_open(s, "u", 1, t, n * 10, &d), HK_OK);
    assert_int_equal(doc_line_count(d), n + 1);
    char change[256];
    for (int i = 0; i < 2000; i++) {
        snprintf(change, sizeof change,
                 "[{\"range\":{\"start\":{\"line\":%zu,\"character\":8},"
                 "\"end\":{\"line\":%zu,\"character\":9}},\"text\":\"%d\"}]",
                 n - 5, n - 5, i % 10);
        assert_int_equal(apply(d, DOC_UTF16, 2 + i, change, NULL), HK_OK);
    }
    uint32_t off;
    assert_int_equal(doc_offset_at(d, DOC_UTF16, P((uint32_t)(n - 5), 8), &off), HK_OK);
    assert_int_equal(doc_text(d)[off], '9');
    /* 2 MB x 2,000 changes in one didChange is over the work bound: refused whole. */
    json_t *many = json_array();
    for (int i = 0; i < 2000; i++)
        json_array_append_new(many, json_pack("{s:{s:{s:i,s:i},s:{s:i,s:i}},s:s}", "range",
                                              "start", "line", 0, "character", 0, "end",
                                              "line", 0, "character", 0, "text", "x"));
    const char *why = NULL;
    assert_int_equal(doc_apply_changes(d, DOC_UTF16, 9999, many, NULL, NULL, &why), HK_ETOOBIG);
    assert_non_null(strstr(why, "too many changes"));
    assert_int_equal(doc_text(d)[0], 'i');
    json_decref(many);
    doc_store_free(s);
    free(t);
}

/* Random edits with \r, \n, \r\n and multi-byte text: the incrementally kept line
 * index must equal the index of the same text opened fresh. */
static void test_random_edits_match_fresh_index(void **st)
{
    static const char *const pieces[] = {"a", "\r", "\n", "\r\n", "è®¡",
                                         "ð", "", "xy\nz"};
    doc_store *s = store();
    doc *d;
    assert_int_equal(doc_open(s, "u", 1, "ab\r\ncd\ref\ngh", 12, &d), HK_OK);
    srand(7);
    char change[512];
    for (int it = 0; it < 3000; it++) {
        uint32_t len = (uint32_t)doc_length(d);
        uint32_t a = len ? (uint32_t)rand() % (len + 1) : 0;
        uint32_t b = a + (len - a ? (uint32_t)rand() % (len - a + 1) % 4 : 0);
        struct doc_pos pa, pb;
        assert_int_equal(doc_position_at(d, DOC_UTF8, a, &pa), HK_OK);
        assert_int_equal(doc_position_at(d, DOC_UTF8, b, &pb), HK_OK);
        const char *piece = pieces[rand() % 8];
        json_t *c = json_pack("[{s:{s:{s:i,s:i},s:{s:i,s:i}},s:s}]", "range", "start", "line",
                              pa.line, "character", pa.character, "end", "line", pb.line,
                              "character", pb.character, "text", piece);
        char *cs = json_dumps(c, 0);
        snprintf(change, sizeof change, "%s", cs);
        hk_free(cs);
        json_decref(c);
        int rc = apply(d, DOC_UTF8, it + 2, change, NULL);
        if (rc) /* a position inside \r\n, which has no LSP position: allowed to refuse */
            continue;
        doc_store *fresh_s = store();
        doc *f;
        assert_int_equal(doc_open(fresh_s, "f", 1, doc_text(d), doc_length(d), &f), HK_OK);
        assert_int_equal(doc_line_count(f), doc_line_count(d));
        for (uint32_t l = 0; l < doc_line_count(f); l++) {
            uint32_t x, y;
            doc_line_start(f, l, &x);
            doc_line_start(d, l, &y);
            assert_int_equal(x, y);
        }
        doc_store_free(fresh_s);
        if (doc_length(d) > 300)
            assert_int_equal(apply(d, DOC_UTF8, it + 2, "[{\"text\":\"q\\r\\nw\"}]", NULL),
                             HK_OK);
    }
    doc_store_free(s);
}

/* Index equality with a fresh document of the same text: line starts and the
 * tree-sitter points an edit reports. */
static void assert_index_fresh(doc *d)
{
    doc_store *fresh_s = store();
    doc *f;
    assert_int_equal(doc_open(fresh_s, "f", 1, doc_text(d), doc_length(d), &f), HK_OK);
    assert_int_equal(doc_line_count(f), doc_line_count(d));
    for (uint32_t l = 0; l < doc_line_count(f); l++) {
        uint32_t x, y;
        doc_line_start(f, l, &x);
        doc_line_start(d, l, &y);
        assert_int_equal(x, y);
    }
    doc_store_free(fresh_s);
}

/* Edits that add or remove many lines at once in a long document (the index is
 * updated around the change and shifted after it, not rebuilt): the index equals a
 * fresh one after each, and the points reported for the next edit are right. */
static void test_block_edits_match_fresh_index(void **st)
{
    (void)st;
    static const char *const eols[] = {"\n", "\r\n", "\r"};
    char *text = malloc(1 << 16), *block = malloc(1 << 14);
    assert_non_null(text);
    assert_non_null(block);
    size_t n = 0;
    for (int i = 0; i < 600; i++)
        n += (size_t)sprintf(text + n, "line %d%s", i, eols[i % 7 == 3 ? 2 : i % 5 == 1]);
    doc_store *s = store();
    doc *d;
    assert_int_equal(doc_open(s, "u", 1, text, n, &d), HK_OK);
    srand(11);
    for (int it = 0; it < 200; it++) {
        uint32_t lines = doc_line_count(d);
        uint32_t a = (uint32_t)rand() % lines, b = a + (uint32_t)rand() % 120;
        if (b >= lines)
            b = lines - 1;
        /* a block of 0..199 lines with mixed endings, sometimes cut mid-line */
        size_t k = 0;
        int nl = rand() % 200;
        for (int i = 0; i < nl; i++)
            k += (size_t)sprintf(block + k, "new %d%s", i, eols[rand() % 3]);
        if (rand() % 4 == 0)
            k += (size_t)sprintf(block + k, "tail");
        block[k] = '\0';
        json_t *c = json_pack("[{s:{s:{s:i,s:i},s:{s:i,s:i}},s:s}]", "range", "start", "line",
                              a, "character", 0, "end", "line", b, "character", 0, "text", block);
        struct edits x = {0};
        const char *why = NULL;
        int rc = doc_apply_changes(d, DOC_UTF8, it + 2, c, on_edit, &x, &why);
        json_decref(c);
        assert_int_equal(rc, HK_OK);
        assert_index_fresh(d);
        /* the edit's new end point: rows count '\n' only, columns are bytes */
        assert_int_equal(x.n, 1);
        const char *t = doc_text(d);
        uint32_t row = 0, col = 0;
        for (uint32_t i = 0; i < x.e[0].new_end_byte; i++) {
            if (t[i] == '\n') {
                row++;
                col = 0;
            } else {
                col++;
            }
        }
        assert_int_equal(x.e[0].new_end_byte - x.e[0].start_byte, k);
        assert_int_equal(x.e[0].new_end_row, row);
        assert_int_equal(x.e[0].new_end_col, col);
    }
    doc_store_free(s);
    free(text);
    free(block);
}

/* A draft opened or put in by a full change is the document doc_open / a full-text
 * doc_apply_changes makes of the same text: text, index (with \r\n and lone \r), the
 * edit reported, the version; a re-open keeps the owner's pointer; over the store's cap it
 * is refused and the document left as it was; nothing leaks. */
static void test_drafts(void **st)
{
    (void)st;
    long live = hk_alloc_live();
    static const char a[] = "one\r\ntwo\rthree\n\xe8\xae\xa1 four\nfive";
    static const char b[] = "x\ny\r\n\r\nlonger line\rz";
    doc_store *s = store();
    doc_draft *dr;
    assert_int_equal(doc_draft_new(a, sizeof a - 1, &dr), HK_OK);
    assert_int_equal(doc_draft_length(dr), sizeof a - 1);
    doc *d;
    assert_int_equal(doc_open_draft(s, "u", 3, dr, &d), HK_OK);
    assert_int_equal(doc_version(d), 3);
    assert_int_equal(doc_length(d), sizeof a - 1);
    assert_memory_equal(doc_text(d), a, sizeof a);
    assert_index_fresh(d);
    /* a re-open through a draft replaces the text and keeps the owner's pointer */
    int owner;
    doc_set_user(d, &owner);
    assert_int_equal(doc_draft_new(b, sizeof b - 1, &dr), HK_OK);
    assert_int_equal(doc_open_draft(s, "u", 4, dr, &d), HK_OK);
    assert_ptr_equal(doc_user(d), &owner);
    assert_int_equal(doc_store_count(s), 1);
    assert_string_equal(doc_text(d), b);
    assert_index_fresh(d);
    /* a full change through a draft: the same edit and document as through the changes */
    doc *e;
    assert_int_equal(doc_open(s, "v", 4, b, sizeof b - 1, &e), HK_OK);
    json_t *c = json_pack("[{s:s}]", "text", a);
    struct edits x = {0};
    assert_int_equal(doc_apply_changes(e, DOC_UTF8, 5, c, on_edit, &x, NULL), HK_OK);
    json_decref(c);
    struct doc_edit ed;
    assert_int_equal(doc_draft_new(a, sizeof a - 1, &dr), HK_OK);
    assert_int_equal(doc_replace_draft(d, 5, dr, &ed), HK_OK);
    assert_int_equal(x.n, 1);
    assert_memory_equal(&ed, &x.e[0], sizeof ed);
    assert_int_equal(doc_version(d), 5);
    assert_string_equal(doc_text(d), doc_text(e));
    assert_index_fresh(d);
    /* edits after it apply as to any document */
    assert_int_equal(apply(d, DOC_UTF8, 6, "[{\"range\":{\"start\":{\"line\":1,\"character\":0},"
                                       "\"end\":{\"line\":1,\"character\":3}},\"text\":\"TWO\"}]",
                           NULL),
                     HK_OK);
    assert_memory_equal(doc_text(d), "one\r\nTWO\r", 9);
    assert_index_fresh(d);
    doc_store_free(s);
    /* over the store's cap: refused, the draft freed, the document unchanged */
    doc_store *small;
    assert_int_equal(doc_store_new(8, &small), HK_OK);
    assert_int_equal(doc_draft_new(a, sizeof a - 1, &dr), HK_OK);
    assert_int_equal(doc_open_draft(small, "w", 1, dr, &d), HK_ETOOBIG);
    assert_int_equal(doc_store_count(small), 0);
    assert_int_equal(doc_open(small, "w", 1, "abc", 3, &d), HK_OK);
    assert_int_equal(doc_draft_new(a, sizeof a - 1, &dr), HK_OK);
    assert_int_equal(doc_replace_draft(d, 2, dr, &ed), HK_ETOOBIG);
    assert_int_equal(doc_version(d), 1);
    assert_string_equal(doc_text(d), "abc");
    doc_store_free(small);
    assert_int_equal(hk_alloc_live(), live);
}

/* A draft read as its document would be (the compile's diagnostics are placed on the
 * pool against the compiled text's draft): the same lines, line starts and lengths, and
 * every offset at the same position in both encodings (a Chinese comment, a CRLF line, a
 * 4-byte character, the end). */
static void test_draft_reads_as_its_document(void **state)
{
    (void)state;
    static const char t[] = "// 核函数 scale\r\n__global__ void k(float *p) {}\n\xF0\x9F\x98\x80 x\nend";
    doc_store *st;
    doc *d;
    doc_draft *dr;
    assert_int_equal(doc_store_new(0, &st), HK_OK);
    assert_int_equal(doc_open(st, "file:///x.cu", 1, t, sizeof t - 1, &d), HK_OK);
    assert_int_equal(doc_draft_new(t, sizeof t - 1, &dr), HK_OK);
    assert_string_equal(doc_draft_text(dr), doc_text(d));
    assert_int_equal(doc_draft_line_count(dr), doc_line_count(d));
    assert_int_equal(doc_draft_line_count(dr), 4);
    for (uint32_t l = 0; l <= doc_line_count(d); l++) {
        uint32_t a = 0, b = 0;
        int ra = doc_line_start(d, l, &a), rb = doc_draft_line_start(dr, l, &b);
        assert_int_equal(ra, rb);
        assert_int_equal(a, b);
        ra = doc_line_length(d, l, &a);
        rb = doc_draft_line_length(dr, l, &b);
        assert_int_equal(ra, rb);
        assert_int_equal(a, b);
    }
    for (uint32_t off = 0; off <= sizeof t; off++)
        for (int e = 0; e < 2; e++) {
            enum doc_encoding enc = e ? DOC_UTF16 : DOC_UTF8;
            struct doc_pos p = {0, 0}, q = {0, 0};
            int rp = doc_position_at(d, enc, off, &p), rq = doc_draft_position_at(dr, enc, off, &q);
            assert_int_equal(rp, rq);
            assert_int_equal(p.line, q.line);
            assert_int_equal(p.character, q.character);
        }
    /* "scale" after "// 核函数 " is at UTF-16 column 7 (byte 13) */
    struct doc_pos p;
    assert_int_equal(doc_draft_position_at(dr, DOC_UTF16, 13, &p), HK_OK);
    assert_int_equal(p.line, 0);
    assert_int_equal(p.character, 7);
    assert_int_equal(doc_draft_position_at(dr, DOC_UTF16, sizeof t, &p), HK_ERANGE);
    doc_draft_free(dr);
    doc_store_free(st);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf16_positions),
        cmocka_unit_test(test_utf8_positions),
        cmocka_unit_test(test_line_endings),
        cmocka_unit_test(test_incremental_in_order),
        cmocka_unit_test(test_bad_changes_leave_document),
        cmocka_unit_test(test_nul_and_caps),
        cmocka_unit_test(test_many_docs_and_reopen),
        cmocka_unit_test(test_big_document_is_linear),
        cmocka_unit_test(test_random_edits_match_fresh_index),
        cmocka_unit_test(test_block_edits_match_fresh_index),
        cmocka_unit_test(test_drafts),
        cmocka_unit_test(test_draft_reads_as_its_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
