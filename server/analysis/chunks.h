/* Splitting a document into chunks that tree-sitter parses separately (module-internal).
 * A chunk boundary is a line start where a cheap scan (comments, strings, raw strings,
 * preprocessor lines and conditionals, braces and parentheses) says the top level is
 * between two complete items. Where boundaries fall is a function of the text alone, so
 * an edit changes the pieces around it and nowhere else (content-defined, like rsync's
 * rolling checksums: a boundary depends on the bytes just before it). */
#ifndef HK_ANALYSIS_CHUNKS_H
#define HK_ANALYSIS_CHUNKS_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

/* A boundary is taken no sooner than MIN bytes after the piece start, at the first
 * candidate past MAX, and in between at a candidate whose preceding bytes hash to 0 mod
 * (MASK + 1): pieces of about MIN + (MASK + 1) items, 1-4 KB of typical CUDA (2 KB on
 * average in the benchmark file). A fresh parse of a piece costs about 0.3 us a byte,
 * so the size an edit reparses is what these set (measured on the benchmark file,
 * MIN/MAX/MASK 2048/6144/7 -> 1024/4096/3: 3.5 -> 1.9 KB, 1.5 -> 0.4 ms on average). A
 * denser mask (1) makes boundaries move after an edit more often, and the reparse then
 * runs on past several chunks before it meets an old boundary again. The cap keeps the
 * largest piece, which an edit in it parses whole, near 1.2 ms (the slowest edits). */
#define AN_PIECE_MIN 1024u
#define AN_PIECE_MAX 4096u
#define AN_PIECE_MASK 3u

/* One piece or chunk of the text: [start, end) bytes; starts at column 0 of start_row;
 * (end_row, end_col) is the point of end. */
struct an_piece {
    uint32_t start, end;
    uint32_t start_row, end_row, end_col;
};

/* The piece that starts at from (0 or a boundary) on row from_row: fills p. Never fails;
 * the last piece ends at len. */
void an_piece_next(const char *text, uint32_t len, uint32_t from, uint32_t from_row,
                   struct an_piece *p);

/* Parses text[p] alone (tree-sitter's included ranges: node offsets stay absolute) with
 * parser, incrementally from old when not NULL. deadline_ns: CLOCK_MONOTONIC time to give
 * up at, 0 for none. NULL on time-out (*timed_out set) or when tree-sitter refuses. The
 * parser is left with a full-text range and no time-out pending. */
TSTree *an_parse_piece(TSParser *parser, const char *text, uint32_t len,
                       const struct an_piece *p, TSTree *old, uint64_t deadline_ns,
                       bool *timed_out);

/* Called on the thread that parsed piece i, right after its parse, with the tree (which
 * it owns from then on: it keeps or deletes it). worker: 0 for the caller's thread, 1 ..
 * threads - 1 for the others, so state per worker needs no lock. HK_OK, or an error that
 * stops the job (the other pieces are not handed out). */
/* Most threads besides the caller's that an_parse_pieces starts: worker ids are below
 * AN_THREADS_MAX + 1. */
#define AN_THREADS_MAX 8

typedef int an_piece_fn(void *ctx, unsigned worker, size_t i, TSTree *tree);

/* Parses pieces[0..n) with parser on this thread and up to threads - 1 more (each its own
 * parser). Without done (NULL) the trees go to trees[0..n); with done, each goes to
 * done(ctx, ...) on the thread that made it, and trees may be NULL: the work after the
 * parse runs in parallel too and a tree is freed while its memory is still in cache.
 * HK_OK; HK_ETIMEDOUT or HK_EPARSE (trees that were made and not handed to done are
 * deleted and set NULL); HK_ENOMEM; or done's error. */
int an_parse_pieces(TSParser *parser, const TSLanguage *lang, const char *text, uint32_t len,
                    const struct an_piece *pieces, size_t n, TSTree **trees,
                    uint64_t deadline_ns, unsigned threads, an_piece_fn *done, void *ctx);

uint64_t an_now_ns(void);

#endif
