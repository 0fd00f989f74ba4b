/* Open documents: uri -> (version, text, line index), full and incremental changes
 * applied in order and all-or-nothing, and conversion between byte offsets and LSP
 * positions in the negotiated encoding (utf-8 or utf-16). Text is UTF-8 as decoded
 * from JSON and may contain NUL. Loop thread only, but for doc_draft_new. */
#ifndef HK_DOCUMENTS_DOCUMENTS_H
#define HK_DOCUMENTS_DOCUMENTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DOC_DEFAULT_MAX_SIZE ((size_t)32 << 20) /* bytes per document */
#define DOC_MAX_OPEN 4096                        /* open documents per store */
/* Bound on (changes in one didChange) x (document bytes + 4 KiB): about 2 GB of
 * memmove, a fraction of a second, at worst. 18,000 lines allow ~3,000 changes. */
#define DOC_MAX_CHANGE_WORK ((uint64_t)1 << 31)

enum doc_encoding { DOC_UTF8, DOC_UTF16 };

/* Value: an LSP position (line, character in the encoding's code units). */
struct doc_pos {
    uint32_t line;
    uint32_t character;
};

/* Value: one applied edit as tree-sitter wants it (TSInputEdit): byte offsets and
 * (row, byte column) points, rows counted by '\n' only. */
struct doc_edit {
    uint32_t start_byte, old_end_byte, new_end_byte;
    uint32_t start_row, start_col;
    uint32_t old_end_row, old_end_col;
    uint32_t new_end_row, new_end_col;
};

typedef struct doc doc;
typedef struct doc_store doc_store;

/* New empty store in *out; max_size 0 means DOC_DEFAULT_MAX_SIZE. HK_OK or HK_ENOMEM. */
int doc_store_new(size_t max_size, doc_store **out);
/* Frees the store and all its documents. */
void doc_store_free(doc_store *s);
size_t doc_store_count(const doc_store *s);

/* Opens (or, if already open, replaces) uri with text (len bytes, copied). *out
 * (may be NULL) gets the document, borrowed until it is closed. HK_OK, HK_ENOMEM,
 * HK_ETOOBIG (text over the size cap or too many documents). */
int doc_open(doc_store *s, const char *uri, int64_t version, const char *text, size_t len,
             doc **out);
/* A document's text and line index built away from any store, on any thread, so a
 * large didOpen (or full-text didChange) costs the loop no copy and no page faults: the
 * pool makes the draft, the loop adopts it (doc_open_draft, doc_replace_draft). A draft
 * is owned by one thread at a time. */
typedef struct doc_draft doc_draft;
/* New draft of text (len bytes, copied) in *out. Any thread. HK_OK, HK_ENOMEM, HK_ETOOBIG
 * (len over DOC_DEFAULT_MAX_SIZE or a uint32_t offset). */
int doc_draft_new(const char *text, size_t len, doc_draft **out);
size_t doc_draft_length(const doc_draft *dr);
/* A draft read as a document is (doc_text, doc_line_count, doc_line_start,
 * doc_line_length, doc_position_at), on the thread that owns it: the compile's
 * diagnostics are placed on the pool against the compiled text's draft
 * (lsp/diagnostics.c). */
const char *doc_draft_text(const doc_draft *dr);
uint32_t doc_draft_line_count(const doc_draft *dr);
int doc_draft_line_start(const doc_draft *dr, uint32_t line, uint32_t *out);
int doc_draft_line_length(const doc_draft *dr, uint32_t line, uint32_t *out);
int doc_draft_position_at(const doc_draft *dr, enum doc_encoding enc, uint32_t offset,
                          struct doc_pos *out);
void doc_draft_free(doc_draft *dr);
/* doc_open with the draft's text instead of a copy; dr is stolen (freed on error too).
 * Errors as doc_open. */
int doc_open_draft(doc_store *s, const char *uri, int64_t version, doc_draft *dr, doc **out);
/* A full-text change (one contentChanges entry without "range") with the draft's text:
 * the document's text and index become the draft's, the version is set, and *e gets the
 * edit over the whole old text, as doc_apply_changes reports it. dr is stolen (freed on
 * error too). HK_OK or HK_ETOOBIG (over the store's size cap: the document unchanged). */
int doc_replace_draft(doc *d, int64_t version, doc_draft *dr, struct doc_edit *e);

/* Closes uri. HK_OK or HK_ENOENT. */
int doc_close(doc_store *s, const char *uri);
/* The open document for uri (borrowed) or NULL. */
doc *doc_get(doc_store *s, const char *uri);
/* Calls fn for every open document, in no particular order; fn must not open or
 * close documents. */
void doc_store_foreach(doc_store *s, void (*fn)(doc *d, void *ud), void *ud);

const char *doc_uri(const doc *d);
int64_t doc_version(const doc *d);
/* The text (borrowed; valid until the next change) and its length; NUL-terminated. */
const char *doc_text(const doc *d);
size_t doc_length(const doc *d);
/* Number of lines (a text ending in a newline has an empty last line). */
uint32_t doc_line_count(const doc *d);
/* Byte offset of the start of line, or HK_ERANGE. */
int doc_line_start(const doc *d, uint32_t line, uint32_t *out);
/* Byte length of line without its terminator (\n, \r\n or \r). HK_ERANGE past the end. */
int doc_line_length(const doc *d, uint32_t line, uint32_t *out);
/* A pointer slot for the owner of the store (e.g. the analysis of the document). */
void *doc_user(const doc *d);
void doc_set_user(doc *d, void *p);

/* Position -> byte offset. HK_ERANGE when the line does not exist, the character is
 * past the end of the line, or (utf-16) it falls inside a surrogate pair; HK_EINVAL
 * for a character in the middle of a UTF-8 sequence (utf-8 encoding). The position
 * (line_count, 0) is accepted as the end of the document. */
int doc_offset_at(const doc *d, enum doc_encoding enc, struct doc_pos pos, uint32_t *out);
/* Byte offset -> position. Offsets inside a UTF-8 sequence round down to its start.
 * HK_ERANGE past the end of the text. */
int doc_position_at(const doc *d, enum doc_encoding enc, uint32_t offset, struct doc_pos *out);

/* Parses an LSP Position / Range object (borrowed). HK_OK or HK_EINVAL (wrong shape or
 * types, negative numbers). Ranges are not checked against a document. */
int doc_parse_position(const json_t *j, struct doc_pos *out);
int doc_parse_range(const json_t *j, struct doc_pos *start, struct doc_pos *end);

/* Applies the contentChanges array (borrowed) of a didChange, in order, and sets the
 * version. All or nothing: on any error the document is left exactly as it was and
 * *why (may be NULL) gets a static sentence. For each applied change, in order,
 * on_edit (may be NULL) receives the edit; for a full replacement it is one edit over
 * the whole old text. Errors: HK_EINVAL (a change has the wrong shape, or the range
 * is inverted), HK_ERANGE (a position outside the document at that point),
 * HK_ETOOBIG (result over the size cap, or more changes than DOC_MAX_CHANGE_WORK
 * allows for this size), HK_ENOMEM. */
int doc_apply_changes(doc *d, enum doc_encoding enc, int64_t version, const json_t *changes,
                      void (*on_edit)(const struct doc_edit *e, void *ud), void *ud,
                      const char **why);

/* Counts of UTF-16 units / bytes for [start, end) of text (valid UTF-8 assumed; bad
 * bytes count as one unit each). Exposed for diagnostics and tests. */
uint32_t doc_utf16_units(const char *text, size_t len);

#endif
