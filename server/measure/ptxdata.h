/* Module data that no instruction of a PTX image can write (the race rule's constant folding,
 * docs/referee.md "Module data nothing writes"). A candidate contributes device code only: the
 * launcher loads its image, restores the image's writable globals to their bytes at load
 * before every launch and fills the spec's __constant__ inputs by name; nothing else of the
 * host touches the image's variables. So a `.global` or `.const` variable the module defines,
 * that the launcher does not fill and that no statement of the PTX can reach with a store --
 * every mention of its name, anywhere in the text, is the address of an `ld` (`[name]` or
 * `[name+K]`) or its own declaration -- holds its PTX initializer (zero when none) in every
 * launch, in every thread, at every moment. Its address is never in a register, so no store,
 * atomic, call or other variable's initializer can reach it (or, since REF18, a `.global`'s
 * is, by `mov.u64 %rd, name` in function bodies, and a third walk over those bodies shows
 * every register holding it read only as an `ld`/`ldu` address: pd_prove); a write through a
 * pointer forged out of another object's bounds is an out-of-bounds access (memcheck's), not
 * seen here.
 * Anything else -- a second declaration of the name, `.extern`/`.weak`/`.common`, an
 * `.attribute` (managed), a vector or unsized variable, an initializer element that is not an
 * integer literal (an address: `generic(x)`), more elements than declared, a statement past
 * the cap, a `#` anywhere outside comments (a preprocessor line could name a variable under
 * another name) -- leaves the variable, or the bytes, unknown. Elements an initializer leaves out
 * are zero (nvcc writes `{7, 7, 0, 7}` of ints as 13 bytes).
 * Pure functions, any thread. */
#ifndef HK_MEASURE_PTXDATA_H
#define HK_MEASURE_PTXDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ptxdata ptxdata; /* the module's variables read as their initial value */

/* Reads the PTX text (len bytes) in two passes (declarations, then every mention). filled:
 * nfilled names (may be NULL when 0) that the launcher writes itself (the spec's constants,
 * as hk_constant_symbol names them): never known. *out: new (ptxdata_free). HK_OK,
 * HK_ENOMEM. */
int ptxdata_read(const char *text, size_t len, const char *const *filled, int nfilled,
                 ptxdata **out);

/* The same for the PTX file at path (read twice, one statement at a time). HK_OK, HK_ENOENT,
 * HK_EIO, HK_ENOMEM. */
int ptxdata_read_file(const char *path, const char *const *filled, int nfilled, ptxdata **out);

/* The value an integer load of `bytes` bytes (1, 2, 4 or 8; little-endian, sign-extended
 * when sgn) gives at [name + off] in the state space of `konst` (true: .const, false:
 * .global), when name is a variable read as its initial value there and every byte read lies
 * inside it and is known. d may be NULL (nothing known). */
bool ptxdata_load(const ptxdata *d, const char *name, int64_t off, bool konst, int bytes,
                  bool sgn, int64_t *v);

/* How many variables the module defines, and how many of them are read as their initial
 * value (nothing writes them and their bytes are kept; some bytes may still be unknown: an
 * address in the initializer). d may be NULL. */
void ptxdata_counts(const ptxdata *d, long *defined, long *known);

/* Module data that only plain stores of one kernel write (every other mention the address of
 * a plain `ld` or its declaration; docs/referee.md "Stores no launch runs"): a variable whose
 * every non-load mention is the address operand of an `st` (`[name]`, `[name+K]`), all in
 * the body of one `.entry` whose own name nothing in the text mentions but its header (no
 * device-side launch of it, no address of it taken). Such a variable stays unknown until
 * ptxdata_allow says that at this launch none of those statements runs. ptxdata_stored: for
 * index k (0 .. ptxdata_names(d) - 1, every name the module defines, functions included),
 * whether it is one, and then its name, that entry's name and how many such stores the text
 * has (the strings live as long as d). */
long ptxdata_names(const ptxdata *d);
bool ptxdata_stored(const ptxdata *d, long k, const char **name, const char **entry, long *nst);
/* The launch shows that no store to name runs (ptxrace: every one unreachable in its entry at
 * this launch): from now on its loads read as its initializer. */
void ptxdata_allow(ptxdata *d, const char *name);

/* Values of a few (docs/referee.md "Stores of a few values"): at this launch every store to
 * name that can run writes the whole variable (offset 0, its size, at most 8 bytes) with one
 * of vals[0..n) (n <= PTXDATA_VALS; little-endian over its size). In a launch the variable
 * then holds its initializer or one of those values, whatever the data. every: each of them
 * may be what a launch holds for all the image says (every such store is behind a branch on
 * data, which may go either way); else the values are used only when they are all one (the
 * initializer's too): then it is a constant, whichever store ran. */
#define PTXDATA_VALS 7
void ptxdata_allow_values(ptxdata *d, const char *name, const int64_t *vals, int n, bool every);

/* A store every block makes before its barrier (docs/referee.md "A store every block makes
 * before its barrier"): at this launch every store to name that can run writes the whole
 * variable with val, and one of them runs in at least one thread of every block, whatever
 * the data, before a barrier of the whole block that every thread reaches first, at text line
 * `line` of the entry holding the stores, with no way back before it. A load of name in that
 * entry past that line then happens after one of those stores in its own block: it reads val
 * (ptxdata_load_values_at), never the initializer. */
void ptxdata_allow_cover(ptxdata *d, const char *name, long line, int64_t val);

/* name's size in bytes, when it is a variable whose bytes are kept. */
bool ptxdata_size(const ptxdata *d, const char *name, size_t *size);

/* The values an integer load (as ptxdata_load) can give: 1 and the value where ptxdata_load
 * knows it; else, for a variable given values (ptxdata_allow_values), the load read from its
 * initializer and from each of those values, without repeats, into out (cap at most): their
 * count. 0: not known (a byte unknown, more than cap values, or more than one value where
 * not every one is possible). */
int ptxdata_load_values(const ptxdata *d, const char *name, int64_t off, bool konst, int bytes,
                        bool sgn, int64_t *out, int cap);

/* As ptxdata_load_values, for a load at text line `line` of function fn: the one value
 * ptxdata_allow_cover gave, where fn is the entry holding the stores and line is past the
 * barrier's (the caller leaves out `.nc` loads: the read-only path may miss the store). */
int ptxdata_load_values_at(const ptxdata *d, const char *name, int64_t off, bool konst,
                           int bytes, bool sgn, const char *fn, long line, int64_t *out, int cap);

void ptxdata_free(ptxdata *d);

/* An integer literal as PTX writes one, in s[0, n) with blanks around it: decimal, 0x hex,
 * octal, 0f/0d float bits, a trailing U, a sign. */
bool ptxdata_int(const char *s, size_t n, int64_t *out);

#endif
