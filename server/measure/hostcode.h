/* The referee's host-code policy (docs/hostcode.md): a candidate contributes device code
 * only, so text that adds or changes host code, or adds preprocessor lines aimed at the
 * harness, is rejected as host_code before any compile. The baseline (the user's own file)
 * has host code of its own; host code identical to the baseline's is fine. Pure function,
 * any thread; depends on core/ only.
 *
 * The rules, as hostcode_check applies them to the candidate text:
 *
 * Scanning. Both texts are read the way a C++ preprocessor reads them: LF, CR LF and a
 * lone CR end lines, a leading UTF-8 byte order mark is skipped, backslash-newline (also
 * with blanks between) joins lines; comments, string and character literals
 * (prefixed, raw, with user-defined suffixes), pp-numbers with digit separators and
 * digraphs (<% %> <: :> %:) are understood, so a brace inside a string or comment is not
 * structure. A line whose first token is # (or %:) is a preprocessor line, continued by
 * backslash-newline and by block comments that span lines.
 *
 * Items. The code outside preprocessor lines splits into top-level items: a declaration
 * or definition ends at `;` at bracket depth 0, or at the `}` that closes a function body
 * at depth 0 (`struct X {...};` and `float t[4] = {...};` are one item each). The bodies
 * of `namespace N {...}` and `extern "C" {...}` are split the same way; an item's identity
 * includes the heads of the blocks around it.
 *
 * An item identical to one of the baseline's items (tokens compared, so whitespace and
 * comments do not matter; a multiset: each baseline item excuses one candidate item) is
 * fine. Otherwise it must be one of these (the device kinds):
 *  - an item whose head (the tokens before its body or initializer, after any
 *    `template <...>`) has __global__, __device__, __constant__, __shared__ or
 *    __managed__ at depth 0 and outside template argument lists (`__host__ __device__`
 *    included); in a class head (`struct __device__ S {...} s;`) or a template argument
 *    (`X<int __device__> v = f();`) the word is the type's and makes no declarator device
 *    code, and after a declarator it is that declarator's alone (`int p __device__, v;`:
 *    every other declarator needs its own);
 *  - a type definition (struct/class/union/enum, typedef, using, namespace alias), unless
 *    it also declares a variable (`struct S {...} s;`), or has a `static inline` data
 *    member that is not constexpr or a constant scalar (a host variable in disguise), or
 *    defines again a type, typedef, alias or enumerator whose name the baseline's host items
 *    or host-compiled functions use (session 52: the kept host code would be compiled
 *    against the candidate's layout);
 *  - a constexpr variable; a static_assert; a declaration without a body or initializer
 *    that is `extern` or reads as a function prototype (parameters that can only be
 *    declarations: `int f(T x);` yes, `S s(x);` no);
 *  - a const scalar variable: head of only storage words, `const`, builtin type words and
 *    the name; an initializer of literals, names and operators with no call (a call is
 *    an identifier, `>`, `]`, `}` or a non-cast `)` right before `(`, an identifier or `>`
 *    before `{`, new, throw, a user-defined literal) and no assignment or increment;
 *    casts and sizeof/alignof allowed.
 * Everything else (host functions, host variables, top-level asm, ...) is a finding.
 *
 * Preprocessor lines, anywhere: `#pragma unroll [expr]`, `#pragma nounroll` and
 * `#include <rel/path>` (relative, no `..`, no backslash) are always fine. A `#define` or
 * `#undef` not in the baseline is fine unless its name is aimed at the harness (hk_, HK_,
 * cuda, CUDA, cu + uppercase, CU_, hip + uppercase, main, printf, exit, getenv, malloc,
 * ... ), reserved (__x, _X), a C++ keyword or CUDA builtin (threadIdx, warpSize,
 * ...), used by the host items the candidate keeps from the baseline (redefining BLOCK
 * would change the launcher), or its body stringifies or pastes tokens (# and ##: the scan
 * cannot see what they make). Every other line (#include "x", #line, #include_next, #import,
 * #embed, #if..., other pragmas) must be one of the baseline's lines (multiset, tokens
 * compared); the user wrote those.
 *
 * Also findings, in any item or new #define not identical to the baseline's: the
 * identifiers constructor / destructor (__attribute__((constructor)) and its spellings);
 * `.incbin` or `.include` in a string literal (adjacent literals joined, escapes decoded,
 * case ignored) or as tokens (a baseline macro could stringify them), and `#ASMSTART` /
 * `#ASMEND` the same way (clang's inline-asm markers, session 52); a _Pragma other
 * than unroll that the baseline does not have; in device-kind items, a `;` inside
 * parentheses outside a body or a candidate macro that expands to `;`, braces or a
 * constructor attribute used outside a body (declarations hidden in a macro), or to a `,`
 * or an angle bracket outside parentheses, asm or a symbol attribute, used outside a body
 * at parenthesis depth 0; outside any
 * body, an alias, ifunc, weakref or symver attribute or an asm label (they define or rename
 * host symbols; class bodies are read for them too); a `__host__ __device__` function
 * definition -- compiled for the host too -- or a friend defined in a class, with C
 * linkage, a global operator new or delete, or a member of a library's namespace (std,
 * cuda ...): it would replace the library's function; any other such function (or a friend
 * without `__device__`) outside a scope of the candidate's own -- a namespace, class,
 * struct or union the candidate defines, the baseline's text never names and no library
 * owns (not inline, not unnamed) -- unless an operator or hidden friend with a parameter of
 * such a class, or a member of one defined out of line (session 52: whatever its name; the
 * host code's lookup and the libraries' symbols reach no such scope); a `using` that brings
 * such a namespace into another scope; a
 * destructor compiled for the host in a new type (a __device__ variable's host copy runs it
 * at exit); the static inline members of a class that a typedef or
 * alias declaration defines; and a _Pragma in a namespace head. And, in the
 * whole candidate: a conditional directive (#if/#elif/#else/#endif) inside a top-level
 * item's head or whose branches do not leave bracket depth unchanged (the scan reads
 * every branch, the compiler one), unless the baseline has the same irregularity; an
 * unbalanced conditional; a trigraph on a line the baseline does not have; a raw string
 * with a backslash-newline inside (compilers undo the splice there, the scan does not); a
 * NUL byte; namespaces or conditionals nested deeper than 256 / 1024.
 *
 * Not covered (documented limits): the order of baseline items and lines is not compared;
 * the baseline's own macros are trusted; an expression initializer of a const scalar can
 * still call a user-defined operator or conversion of a baseline type. */
#ifndef HK_ENGINE_HOSTCODE_H
#define HK_ENGINE_HOSTCODE_H

#include <stdbool.h>
#include <stddef.h>

#define HOSTCODE_TEXT_MAX ((size_t)16 << 20) /* larger texts: HK_ETOOBIG */
#define HOSTCODE_QUOTE_MAX 200               /* bytes of the line quoted (then "...") */

/* The first finding, by position in the candidate. Owns its strings. */
typedef struct {
    bool found;
    unsigned line; /* 1-based line of the candidate text where the finding is */
    char *quote;   /* owned: that line, trimmed, cut at HOSTCODE_QUOTE_MAX bytes */
    char *why;     /* owned: a short sentence, e.g. "a host function that the baseline
                    * does not have", "#define of a name the harness uses (cudaEventRecord)" */
} hostcode_finding;

/* Frees the strings and zeroes f; NULL is fine. */
void hostcode_finding_clear(hostcode_finding *f);

/* Checks the candidate text cand (cand_len bytes, need not be NUL-terminated) against the
 * baseline text base under the rules above. HK_OK with out->found false (clean) or true
 * (line, quote, why filled); HK_EINVAL when base, cand or out is NULL; HK_ETOOBIG when a
 * text is over HOSTCODE_TEXT_MAX; HK_ENOMEM. *out is initialized whenever out is not NULL,
 * and holds nothing on an error. */
int hostcode_check(const char *base, size_t base_len, const char *cand, size_t cand_len,
                   hostcode_finding *out);

#endif
