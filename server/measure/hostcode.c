/* The host-code policy check (hostcode.h): a small preprocessor-aware scanner splits both
 * texts into top-level items and preprocessor lines, and every candidate item or line
 * that is neither device code nor one of the baseline's is a finding. Self-contained on
 * purpose: the referee must not depend on the analysis it judges. */
#include "measure/hostcode.h"

#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

/* A finding's why: stored in English (the referee's reasons, docs/i18n.md), said again where
 * shown (hk_tr_said) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define NONE ((size_t)-1)
#define BLOCK_DEPTH_MAX 256
#define COND_DEPTH_MAX 1024
#define KEY_MAX ((size_t)64 << 20)
#define DANGER_PASSES 16

/* ---- tokens ---- */

enum { TK_IDENT, TK_NUMBER, TK_STRING, TK_CHAR, TK_PUNCT, TK_HEADER };

typedef struct {
    size_t start, end; /* in the spliced text */
    unsigned char kind;
    bool suffix;       /* literal with a user-defined suffix (calls an operator) */
    bool raw;          /* raw string literal */
    char p[4];         /* punctuator, digraphs spelled as what they mean */
} tok;

/* One preprocessor line: tokens dt[first, first + count), '#' at start. */
typedef struct {
    size_t first, count, start;
    size_t code_pos; /* code tokens before it */
} pdir;

/* A removed backslash-newline: it was at pos in the spliced text; removed bytes. */
typedef struct {
    size_t pos, removed;
} splice;

typedef struct {
    const char *orig;
    size_t orig_len;
    char *s; /* spliced copy, NUL-terminated */
    size_t n;
    splice *sp;
    size_t nsp, capsp;
    tok *t; /* code tokens */
    size_t nt, capt;
    tok *dt; /* preprocessor-line tokens */
    size_t ndt, capdt;
    pdir *d;
    size_t nd, capd;
} ptext;

typedef struct {
    size_t a, b;  /* tokens [a, b) */
    size_t block; /* enclosing namespace/extern block, NONE at top level */
} item;

typedef struct {
    size_t a, b; /* head tokens, before the `{` */
    size_t parent;
    size_t id;   /* same id in both texts for the same head in the same block */
} block;

typedef struct {
    item *it;
    size_t nit, capit;
    block *bl;
    size_t nbl, capbl;
} split;

/* ---- a string multiset (keys copied) ---- */

typedef struct {
    char *key;
    size_t len, count;
    size_t value; /* map_intern's id */
    uint64_t h;
} slot;

typedef struct {
    slot *s;
    size_t cap, n;
} strmap;

typedef struct {
    bool set;
    size_t off; /* in the original candidate text */
    const char *why;
    const char *name; /* points into the candidate's spliced text, or NULL */
    size_t name_len;
} pending;

typedef struct {
    ptext base, cand;
    split bs, cs;
    strmap base_items, base_dirs, base_funcs, base_viol, base_trig, base_blocks;
    strmap host_ids, macros, danger, danger0;
    strmap base_names;  /* every identifier of the baseline (code and preprocessor lines) */
    strmap base_host_names; /* identifiers of the baseline's host items and host-compiled
                             * functions: what its host code uses */
    strmap cand_scopes; /* names the candidate gives a namespace, class, struct or union */
    struct hk_buf key, lit;
    pending f;
} hc;

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return HK_OK;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = hk_realloc(*p, c * elem);
    if (!q)
        return HK_ENOMEM;
    *p = q;
    *cap = c;
    return HK_OK;
}

/* Seeded by the table's address: the answer never depends on the hash, and a text made
 * to collide for one seed does not collide for the next run. */
static uint64_t hash_bytes(const char *k, size_t len, uint64_t seed)
{
    uint64_t h = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)k[i];
        h *= 1099511628211ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static uint64_t map_seed(const strmap *m) { return (uint64_t)(uintptr_t)m->s >> 4; }

static slot *map_find(const strmap *m, const char *k, size_t len, uint64_t h)
{
    if (!m->cap)
        return NULL;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        slot *s = &m->s[i];
        if (!s->key)
            return s;
        if (s->h == h && s->len == len && memcmp(s->key, k, len) == 0)
            return s;
    }
}

static int map_rehash(strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    slot *ns = hk_calloc(cap, sizeof *ns);
    if (!ns)
        return HK_ENOMEM;
    strmap nm = {ns, cap, m->n};
    uint64_t seed = map_seed(&nm);
    for (size_t i = 0; i < m->cap; i++) {
        slot *o = &m->s[i];
        if (!o->key)
            continue;
        o->h = hash_bytes(o->key, o->len, seed);
        *map_find(&nm, o->key, o->len, o->h) = *o;
    }
    hk_free(m->s);
    *m = nm;
    return HK_OK;
}

static int map_add(strmap *m, const char *k, size_t len)
{
    if ((m->n + 1) * 2 > m->cap) {
        int rc = map_rehash(m);
        if (rc)
            return rc;
    }
    uint64_t h = hash_bytes(k, len, map_seed(m));
    slot *s = map_find(m, k, len, h);
    if (!s->key) {
        char *c = hk_strndup(k, len);
        if (!c)
            return HK_ENOMEM;
        *s = (slot){c, len, 0, m->n, h};
        m->n++;
    }
    s->count++;
    return HK_OK;
}

/* The id of key k (the number of keys before it was first added), adding it if new. */
static int map_intern(strmap *m, const char *k, size_t len, size_t *id)
{
    int rc = map_add(m, k, len);
    if (!rc)
        *id = map_find(m, k, len, hash_bytes(k, len, map_seed(m)))->value;
    return rc;
}

static bool map_value(const strmap *m, const char *k, size_t len, size_t *id)
{
    slot *s = map_find(m, k, len, m->cap ? hash_bytes(k, len, map_seed(m)) : 0);
    if (!s || !s->key)
        return false;
    *id = s->value;
    return true;
}

static bool map_has(const strmap *m, const char *k, size_t len)
{
    slot *s = map_find(m, k, len, m->cap ? hash_bytes(k, len, map_seed(m)) : 0);
    return s && s->key && s->count > 0;
}

/* Takes one from the multiset: true when there was one. */
static bool map_take(strmap *m, const char *k, size_t len)
{
    slot *s = map_find(m, k, len, m->cap ? hash_bytes(k, len, map_seed(m)) : 0);
    if (!s || !s->key || s->count == 0)
        return false;
    s->count--;
    return true;
}

static void map_free(strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        hk_free(m->s[i].key);
    hk_free(m->s);
    m->s = NULL;
    m->cap = m->n = 0;
}

/* ---- word lists ---- */

static bool in_list(const char *w, size_t len, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == len && memcmp(*list, w, len) == 0)
            return true;
    return false;
}

static const char *const device_words[] = {"__global__", "__device__", "__constant__",
                                           "__shared__", "__managed__", NULL};
static const char *const builtin_types[] = {
    "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "wchar_t",
    "char8_t", "char16_t", "char32_t", "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t",
    "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t", "auto",
    NULL};
static const char *const storage_words[] = {"static", "extern", "inline", "const", "constexpr",
                                            NULL};
static const char *const decl_start_words[] = {"const", "volatile", "struct", "class", "enum",
                                               "union", "typename", "register", "void",
                                               "__restrict__", "restrict", NULL};
/* Words before a parenthesized group that is not a call or a parameter list. */
static const char *const attr_words[] = {"__attribute__", "__attribute", "__declspec", "alignas",
                                         "_Alignas", "__align__", "__launch_bounds__", "noexcept",
                                         "throw", "decltype", "__nv_register_params__", NULL};
static const char *const call_free_words[] = {"sizeof", "alignof", "_Alignof", "__alignof__",
                                              "__alignof", "decltype", "noexcept", "defined",
                                              NULL};
static const char *const call_words[] = {"new", "delete", "throw", "operator", "typeid",
                                         "co_await", "co_yield", "asm", "__asm__", "__asm",
                                         "dynamic_cast", NULL};
static const char *const cast_words[] = {"static_cast", "const_cast", "reinterpret_cast",
                                         "bit_cast", NULL};
/* Attributes that define or redirect a symbol, and asm (labels): check_host_symbols. */
static const char *const symbol_attr_words[] = {"alias", "__alias__", "ifunc", "__ifunc__",
                                                "weakref", "__weakref__", "symver",
                                                "__symver__", NULL};
static const char *const macro_symbol_words[] = {"asm", "__asm__", "__asm", NULL};
static const char *const ctor_words[] = {"constructor", "__constructor__", "destructor",
                                         "__destructor__", NULL};
static const char *const keywords[] = {
    "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "char8_t",
    "char16_t", "char32_t", "class", "const", "consteval", "constexpr", "constinit",
    "const_cast", "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "nullptr",
    "operator", "private", "protected", "public", "register", "reinterpret_cast", "requires",
    "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
    "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while",
    "defined", "restrict", NULL};
/* CUDA's builtin variables and names the device code and the launcher both lean on. */
static const char *const cuda_builtins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim",
                                            "warpSize", "dim3", "std", "assert", "NDEBUG", NULL};
/* Names a harness is made of: its timer, output, exit paths, environment, allocator. */
static const char *const harness_names[] = {
    "main", "printf", "fprintf", "puts", "fputs", "fwrite", "fflush", "write", "exit",
    "quick_exit", "abort", "atexit", "at_quick_exit", "getenv", "setenv", "fopen", "open",
    "malloc", "calloc", "realloc", "free", "clock_gettime", "gettimeofday", "clock", "time",
    NULL};
/* cuda*, cu + uppercase: CUDA's runtime and driver; hip + uppercase (define_name_why): HIP's
 * (a DCU's launcher calls hipModuleLaunchKernel, hipEventRecord ...). Not HIP_: users name
 * their own macros so (HIP_BLOCK), and HIP's HIP_ macros are not the launcher's calls. */
static const char *const harness_prefixes[] = {"hk_", "HK_", "cuda", "CUDA", "CU_", NULL};

/* ---- lexing ---- */

static bool is_id_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_id_char(unsigned char c) { return is_id_start(c) || is_digit(c); }
static bool is_hspace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\0';
}
static bool is_hex(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Length of a universal character name (\uXXXX, \UXXXXXXXX) at i, 0 if none. */
static size_t ucn_len(const char *s, size_t n, size_t i)
{
    if (i + 1 >= n || s[i] != '\\' || (s[i + 1] != 'u' && s[i + 1] != 'U'))
        return 0;
    size_t digits = s[i + 1] == 'u' ? 4 : 8;
    if (i + 2 + digits > n)
        return 0;
    for (size_t k = 0; k < digits; k++)
        if (!is_hex((unsigned char)s[i + 2 + k]))
            return 0;
    return 2 + digits;
}

/* Length of the line end at i (LF, CR LF or a lone CR: GCC takes all three), 0 if none. */
static size_t eol_len(const char *s, size_t n, size_t i)
{
    if (i >= n)
        return 0;
    if (s[i] == '\n')
        return 1;
    if (s[i] == '\r')
        return i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
    return 0;
}

/* Phases 1 and 2: a lone CR becomes LF, and lines ended by a backslash (blanks allowed
 * before the line end, as GCC and Clang do) are joined, remembering where, so positions
 * map back to the original text. */
static int splice_text(ptext *pt)
{
    pt->s = hk_malloc(pt->orig_len + 1);
    if (!pt->s)
        return HK_ENOMEM;
    const char *src = pt->orig;
    size_t o = 0, n = pt->orig_len, e;
    for (size_t i = 0; i < n;) {
        if (src[i] == '\\') {
            size_t j = i + 1;
            while (j < n && (src[j] == ' ' || src[j] == '\t' || src[j] == '\f' || src[j] == '\v'))
                j++;
            if ((e = eol_len(src, n, j)) != 0) {
                int rc = grow((void **)&pt->sp, &pt->capsp, pt->nsp + 1, sizeof *pt->sp);
                if (rc)
                    return rc;
                pt->sp[pt->nsp++] = (splice){o, j + e - i};
                i = j + e;
                continue;
            }
        }
        if (src[i] == '\r' && eol_len(src, n, i) == 1) {
            pt->s[o++] = '\n';
            i++;
            continue;
        }
        pt->s[o++] = src[i++];
    }
    pt->s[o] = '\0';
    pt->n = o;
    return HK_OK;
}

static size_t orig_offset(const ptext *pt, size_t off)
{
    size_t add = 0;
    size_t lo = 0, hi = pt->nsp;
    while (lo < hi) { /* splices at pos <= off were removed before off */
        size_t mid = (lo + hi) / 2;
        if (pt->sp[mid].pos <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = 0; k < lo; k++)
        add += pt->sp[k].removed;
    return off + add;
}

static size_t skip_block_comment(const char *s, size_t n, size_t i)
{
    for (i += 2; i + 1 < n; i++)
        if (s[i] == '*' && s[i + 1] == '/')
            return i + 2;
    return n;
}

static size_t lex_quoted(const ptext *pt, size_t q, tok *tk)
{
    const char *s = pt->s;
    size_t n = pt->n;
    char qc = s[q];
    size_t j = q + 1;
    while (j < n && s[j] != qc && s[j] != '\n')
        j += (s[j] == '\\' && j + 1 < n && s[j + 1] != '\n') ? 2 : 1;
    if (j < n && s[j] == qc)
        j++;
    if (j < n && is_id_start((unsigned char)s[j])) {
        while (j < n && is_id_char((unsigned char)s[j]))
            j++;
        tk->suffix = true;
    }
    tk->kind = qc == '"' ? TK_STRING : TK_CHAR;
    tk->end = j;
    return j;
}

/* R"delim( ... )delim": q is the opening quote. */
static size_t lex_raw(const ptext *pt, size_t q, tok *tk)
{
    const char *s = pt->s;
    size_t n = pt->n, j = q + 1;
    while (j < n && j - q - 1 <= 16 && s[j] != '(' && !strchr(" )\\\t\v\f\n\r\"", s[j]))
        j++;
    if (j >= n || s[j] != '(' || j - q - 1 > 16)
        return lex_quoted(pt, q, tk); /* not a raw string; the compiler will say so */
    size_t dlen = j - q - 1, end = n;
    for (size_t k = j + 1; k + dlen + 1 < n; k++) {
        if (s[k] == ')' && memcmp(s + k + 1, s + q + 1, dlen) == 0 && s[k + 1 + dlen] == '"') {
            end = k + dlen + 2;
            break;
        }
    }
    if (end < n && is_id_start((unsigned char)s[end])) {
        while (end < n && is_id_char((unsigned char)s[end]))
            end++;
        tk->suffix = true;
    }
    tk->kind = TK_STRING;
    tk->raw = true;
    tk->end = end;
    return end;
}

static const struct {
    const char *src, *canon;
} puncts[] = {
    {"%:%:", "##"}, {"<<=", "<<="}, {">>=", ">>="}, {"...", "..."}, {"->*", "->*"},
    {"<%", "{"},    {"%>", "}"},    {"<:", "["},    {":>", "]"},    {"%:", "#"},
    {"::", "::"},   {"->", "->"},   {"++", "++"},   {"--", "--"},   {"<<", "<<"},
    {">>", ">>"},   {"<=", "<="},   {">=", ">="},   {"==", "=="},   {"!=", "!="},
    {"&&", "&&"},   {"||", "||"},   {"+=", "+="},   {"-=", "-="},   {"*=", "*="},
    {"/=", "/="},   {"%=", "%="},   {"&=", "&="},   {"|=", "|="},   {"^=", "^="},
    {"##", "##"},   {".*", ".*"},
};

/* One token at i (not whitespace or a comment). header: lex <...> or "..." as a header
 * name (after #include). Returns the index after it. */
static size_t lex_token(const ptext *pt, size_t i, tok *tk, bool header)
{
    const char *s = pt->s;
    size_t n = pt->n;
    unsigned char c = (unsigned char)s[i];
    memset(tk, 0, sizeof *tk);
    tk->start = i;
    if (header && (c == '<' || c == '"')) {
        char close = c == '<' ? '>' : '"';
        size_t j = i + 1;
        while (j < n && s[j] != close && s[j] != '\n')
            j++;
        if (j < n && s[j] == close)
            j++;
        tk->kind = TK_HEADER;
        tk->end = j;
        return j;
    }
    if (is_id_start(c) || ucn_len(s, n, i)) {
        size_t j = i, u;
        for (;;) {
            if (j < n && is_id_char((unsigned char)s[j]))
                j++;
            else if ((u = ucn_len(s, n, j)) != 0)
                j += u;
            else
                break;
        }
        size_t len = j - i;
        static const char *const raw_prefixes[] = {"R", "u8R", "uR", "UR", "LR", NULL};
        static const char *const lit_prefixes[] = {"u8", "u", "U", "L", NULL};
        if (j < n && s[j] == '"' && in_list(s + i, len, raw_prefixes))
            return lex_raw(pt, j, tk);
        if (j < n && (s[j] == '"' || s[j] == '\'') && in_list(s + i, len, lit_prefixes))
            return lex_quoted(pt, j, tk);
        tk->kind = TK_IDENT;
        tk->end = j;
        return j;
    }
    if (is_digit(c) || (c == '.' && i + 1 < n && is_digit((unsigned char)s[i + 1]))) {
        size_t j = i + 1;
        while (j < n) {
            char d = s[j];
            if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') && j + 1 < n &&
                (s[j + 1] == '+' || s[j + 1] == '-'))
                j += 2;
            else if (is_id_char((unsigned char)d) || d == '.')
                j++;
            else if (d == '\'' && j + 1 < n && is_id_char((unsigned char)s[j + 1]))
                j += 2; /* digit separator, not a character literal */
            else
                break;
        }
        tk->kind = TK_NUMBER;
        tk->end = j;
        return j;
    }
    if (c == '"' || c == '\'')
        return lex_quoted(pt, i, tk);
    tk->kind = TK_PUNCT;
    /* <:: is < then :: unless followed by : or > (C++11 [lex.pptoken]) */
    bool lt_colons = n - i >= 3 && memcmp(s + i, "<::", 3) == 0 &&
                     !(n - i >= 4 && (s[i + 3] == ':' || s[i + 3] == '>'));
    if (!lt_colons) {
        for (size_t k = 0; k < HK_ARRAY_LEN(puncts); k++) {
            size_t l = strlen(puncts[k].src);
            if (n - i >= l && memcmp(s + i, puncts[k].src, l) == 0) {
                strcpy(tk->p, puncts[k].canon);
                tk->end = i + l;
                return tk->end;
            }
        }
    }
    tk->p[0] = (char)c;
    tk->end = i + 1;
    return tk->end;
}

static int push_tok(tok **arr, size_t *n, size_t *cap, const tok *tk)
{
    int rc = grow((void **)arr, cap, *n + 1, sizeof **arr);
    if (rc)
        return rc;
    (*arr)[(*n)++] = *tk;
    return HK_OK;
}

static bool tok_eq(const ptext *pt, const tok *tk, const char *w)
{
    size_t l = strlen(w);
    if (tk->kind == TK_PUNCT)
        return strcmp(tk->p, w) == 0;
    return tk->end - tk->start == l && memcmp(pt->s + tk->start, w, l) == 0;
}

static bool tok_in(const ptext *pt, const tok *tk, const char *const *list)
{
    return tk->kind == TK_IDENT && in_list(pt->s + tk->start, tk->end - tk->start, list);
}

static const char *tok_text(const ptext *pt, const tok *tk, size_t *len)
{
    if (tk->kind == TK_PUNCT) {
        *len = strlen(tk->p);
        return tk->p;
    }
    *len = tk->end - tk->start;
    return pt->s + tk->start;
}

static int lex_directive(ptext *pt, size_t *pi)
{
    const char *s = pt->s;
    size_t n = pt->n, i = *pi;
    pdir d = {pt->ndt, 0, i, pt->nt};
    while (i < n && s[i] != '\n') {
        if (is_hspace(s[i])) {
            i++;
            continue;
        }
        if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
            i = skip_block_comment(s, n, i); /* a comment spanning lines continues the line */
            continue;
        }
        bool header = d.count == 2 &&
                      (tok_eq(pt, &pt->dt[d.first + 1], "include") ||
                       tok_eq(pt, &pt->dt[d.first + 1], "include_next") ||
                       tok_eq(pt, &pt->dt[d.first + 1], "import") ||
                       tok_eq(pt, &pt->dt[d.first + 1], "embed"));
        tok tk;
        i = lex_token(pt, i, &tk, header);
        int rc = push_tok(&pt->dt, &pt->ndt, &pt->capdt, &tk);
        if (rc)
            return rc;
        d.count++;
    }
    *pi = i;
    int rc = grow((void **)&pt->d, &pt->capd, pt->nd + 1, sizeof *pt->d);
    if (rc)
        return rc;
    pt->d[pt->nd++] = d;
    return HK_OK;
}

static int lex_text(ptext *pt)
{
    int rc = splice_text(pt);
    if (rc)
        return rc;
    const char *s = pt->s;
    size_t n = pt->n, i = 0;
    bool bol = true; /* no token yet on this line: a # here starts a directive */
    if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) /* i18n: not for people */ == 0)
        i = 3; /* a UTF-8 byte order mark is not a token (GCC skips it) */
    while (i < n) {
        char c = s[i];
        if (c == '\n') {
            bol = true;
            i++;
        } else if (is_hspace(c)) {
            i++;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            i = skip_block_comment(s, n, i);
        } else if (bol && (c == '#' || (c == '%' && i + 1 < n && s[i + 1] == ':'))) {
            if ((rc = lex_directive(pt, &i)) != HK_OK)
                return rc;
        } else {
            tok tk;
            bol = false;
            i = lex_token(pt, i, &tk, false);
            if ((rc = push_tok(&pt->t, &pt->nt, &pt->capt, &tk)) != HK_OK)
                return rc;
        }
    }
    return HK_OK;
}

static void ptext_free(ptext *pt)
{
    hk_free(pt->s);
    hk_free(pt->sp);
    hk_free(pt->t);
    hk_free(pt->dt);
    hk_free(pt->d);
    memset(pt, 0, sizeof *pt);
}

/* ---- findings ---- */

static void report_orig(hc *h, size_t off, const char *why, const char *name, size_t name_len)
{
    if (h->f.set && h->f.off <= off)
        return; /* the first finding in the text wins; ties keep the first reported */
    h->f = (pending){true, off, why, name, name_len};
}

static void report(hc *h, size_t off, const char *why)
{
    report_orig(h, orig_offset(&h->cand, off), why, NULL, 0);
}

static void report_name(hc *h, size_t off, const char *why, const ptext *pt, const tok *name)
{
    size_t len;
    const char *p = tok_text(pt, name, &len);
    report_orig(h, orig_offset(&h->cand, off), why, p, len);
}

/* ---- bracket helpers over code tokens ---- */

static bool is_open(const tok *tk)
{
    return tk->kind == TK_PUNCT && (tk->p[0] == '(' || tk->p[0] == '[' || tk->p[0] == '{') &&
           !tk->p[1];
}
static bool is_close(const tok *tk)
{
    return tk->kind == TK_PUNCT && (tk->p[0] == ')' || tk->p[0] == ']' || tk->p[0] == '}') &&
           !tk->p[1];
}
static bool is_p(const tok *tk, const char *p) { return tk->kind == TK_PUNCT && !strcmp(tk->p, p); }

/* Index of the bracket closing the one at k, or lim. */
static size_t match_close(const tok *t, size_t k, size_t lim)
{
    size_t depth = 0;
    for (size_t j = k; j < lim; j++) {
        if (is_open(&t[j]))
            depth++;
        else if (is_close(&t[j]) && --depth == 0)
            return j;
    }
    return lim;
}

/* Index of the '>' closing the template list opened at k, or lim. */
static size_t match_angle(const tok *t, size_t k, size_t lim)
{
    long depth = 0;
    for (size_t j = k; j < lim; j++) {
        if (is_open(&t[j])) {
            j = match_close(t, j, lim);
            if (j >= lim)
                return lim;
            continue;
        }
        if (is_p(&t[j], ";") || is_p(&t[j], "}"))
            return lim;
        if (is_p(&t[j], "<"))
            depth++;
        else if (is_p(&t[j], ">"))
            depth--;
        else if (is_p(&t[j], ">>"))
            depth -= 2;
        if (depth <= 0 && j > k)
            return j;
    }
    return lim;
}

static size_t skip_templates(const ptext *pt, size_t p, size_t end)
{
    while (p + 1 < end && tok_eq(pt, &pt->t[p], "template") && is_p(&pt->t[p + 1], "<")) {
        size_t m = match_angle(pt->t, p + 1, end);
        if (m >= end)
            return p;
        p = m + 1;
    }
    return p;
}

/* ---- items ---- */

static int cond_violation(hc *h, ptext *pt, const pdir *d, const char *kind, bool is_cand,
                          const char *why);
static int dir_key(const ptext *pt, const pdir *d, struct hk_buf *b);

enum { COND_NONE, COND_IF, COND_ELSE, COND_ENDIF };

static int dir_cond_kind(const ptext *pt, const pdir *d)
{
    if (d->count < 2 || pt->dt[d->first + 1].kind != TK_IDENT)
        return COND_NONE;
    static const char *const ifs[] = {"if", "ifdef", "ifndef", NULL};
    static const char *const elses[] = {"elif", "elifdef", "elifndef", "else", NULL};
    const tok *nm = &pt->dt[d->first + 1];
    if (tok_in(pt, nm, ifs))
        return COND_IF;
    if (tok_in(pt, nm, elses))
        return COND_ELSE;
    if (tok_eq(pt, nm, "endif"))
        return COND_ENDIF;
    return COND_NONE;
}

static bool is_ns_head(const ptext *pt, size_t a, size_t i)
{
    size_t p = a;
    if (p < i && tok_eq(pt, &pt->t[p], "inline"))
        p++;
    if (p < i && tok_eq(pt, &pt->t[p], "namespace"))
        return true;
    return i - a == 2 && tok_eq(pt, &pt->t[a], "extern") && pt->t[a + 1].kind == TK_STRING;
}

/* Position of the struct/class/union/enum keyword that makes [p, lim) a type head (no
 * parameter list after it), or NONE. */
static size_t type_head(const ptext *pt, size_t p, size_t lim)
{
    static const char *const type_keys[] = {"struct", "class", "union", "enum", NULL};
    size_t key = NONE;
    for (size_t j = p; j < lim; j++) {
        const tok *tk = &pt->t[j];
        if (is_open(tk)) {
            bool attr = j > p && tok_in(pt, &pt->t[j - 1], attr_words);
            if (key != NONE && tk->p[0] == '(' && !attr)
                return NONE;
            j = match_close(pt->t, j, lim);
            continue;
        }
        if (key == NONE && tok_in(pt, tk, type_keys))
            key = j;
    }
    return key;
}

static int push_item(split *sp, size_t a, size_t b, size_t blk)
{
    if (b <= a)
        return HK_OK;
    int rc = grow((void **)&sp->it, &sp->capit, sp->nit + 1, sizeof *sp->it);
    if (rc)
        return rc;
    sp->it[sp->nit++] = (item){a, b, blk};
    return HK_OK;
}

typedef struct {
    size_t depth_total;
    const pdir *d;
} cframe;

/* Splits pt's code into items and namespace/extern blocks. Conditional directives are
 * checked against the bracket structure: on the baseline (is_cand false) irregularities
 * are recorded in base_viol, on the candidate they are findings unless recorded. */
static int split_items(hc *h, ptext *pt, split *sp, bool is_cand)
{
    size_t stack[BLOCK_DEPTH_MAX], nstack = 0;
    cframe *frames = hk_malloc(COND_DEPTH_MAX * sizeof *frames);
    size_t nframes = 0, item_a = NONE, depth = 0, k = 0;
    bool outer_fbody = false, paren0 = false, eq0 = false, brace0 = false, no_tpl = false;
    int rc = HK_OK;
    if (!frames)
        return HK_ENOMEM;
    const tok *t = pt->t;
    for (size_t i = 0; i <= pt->nt; i++) {
        for (; k < pt->nd && pt->d[k].code_pos <= i; k++) {
            const pdir *d = &pt->d[k];
            int ck = dir_cond_kind(pt, d);
            if (ck == COND_NONE)
                continue;
            size_t dt = nstack + depth;
            if (item_a != NONE && depth == 0 &&
                (rc = cond_violation(h, pt, d, "head", is_cand,
                                     EN(HC_COND_IN_DECL))))
                goto out;
            if (ck == COND_IF) {
                if (nframes == COND_DEPTH_MAX) {
                    if (is_cand)
                        report(h, d->start, EN(HC_COND_TOO_DEEP));
                    continue;
                }
                frames[nframes++] = (cframe){dt, d};
                continue;
            }
            if (!nframes) {
                if ((rc = cond_violation(h, pt, d, "unmatched", is_cand,
                                         EN(HC_COND_UNMATCHED))))
                    goto out;
                continue;
            }
            if (frames[nframes - 1].depth_total != dt &&
                (rc = cond_violation(h, pt, d, "depth", is_cand,
                                     EN(HC_COND_BRACKETS))))
                goto out;
            if (ck == COND_ENDIF)
                nframes--;
        }
        if (i == pt->nt)
            break;
        const tok *tk = &t[i];
        if (item_a == NONE) {
            if (is_p(tk, ";"))
                continue;
            if (is_p(tk, "}")) {
                if (nstack)
                    nstack--;
                continue;
            }
            item_a = i;
            paren0 = eq0 = brace0 = no_tpl = false;
        }
        if (depth > 0) {
            if (is_open(tk)) {
                depth++;
            } else if (is_close(tk) && --depth == 0 && outer_fbody && is_p(tk, "}")) {
                if ((rc = push_item(sp, item_a, i + 1, nstack ? stack[nstack - 1] : NONE)))
                    goto out;
                item_a = NONE;
            }
            continue;
        }
        if (!no_tpl && tok_eq(pt, tk, "template") && i + 1 < pt->nt && is_p(&t[i + 1], "<")) {
            size_t m = match_angle(t, i + 1, pt->nt);
            if (m < pt->nt)
                i = m; /* a default argument's '=' is not an initializer */
            else
                no_tpl = true; /* unbalanced: do not rescan for every later `template <` */
            continue;
        }
        if (is_p(tk, ";")) {
            if ((rc = push_item(sp, item_a, i + 1, nstack ? stack[nstack - 1] : NONE)))
                goto out;
            item_a = NONE;
        } else if (is_p(tk, "}")) {
            if ((rc = push_item(sp, item_a, i, nstack ? stack[nstack - 1] : NONE)))
                goto out;
            item_a = NONE;
            if (nstack)
                nstack--;
        } else if (is_p(tk, "=")) {
            if (!(i > item_a && tok_eq(pt, &t[i - 1], "operator")))
                eq0 = true;
        } else if (is_p(tk, "(") || is_p(tk, "[")) {
            paren0 = paren0 || tk->p[0] == '(';
            outer_fbody = false;
            depth = 1;
        } else if (is_p(tk, "{")) {
            if (!eq0 && is_ns_head(pt, item_a, i)) {
                if (nstack < BLOCK_DEPTH_MAX) {
                    if ((rc = grow((void **)&sp->bl, &sp->capbl, sp->nbl + 1, sizeof *sp->bl)))
                        goto out;
                    sp->bl[sp->nbl] = (block){item_a, i, nstack ? stack[nstack - 1] : NONE, 0};
                    stack[nstack++] = sp->nbl++;
                    item_a = NONE;
                    continue;
                }
                if (is_cand)
                    report(h, tk->start, EN(HC_NS_TOO_DEEP));
            }
            /* only an item's first body can be a function's (and the scan stays linear) */
            outer_fbody = !brace0 && !eq0 && paren0 &&
                          type_head(pt, skip_templates(pt, item_a, i), i) == NONE;
            brace0 = true;
            depth = 1;
        }
    }
    if (item_a != NONE && (rc = push_item(sp, item_a, pt->nt, nstack ? stack[nstack - 1] : NONE)))
        goto out;
    if (nframes)
        rc = cond_violation(h, pt, frames[nframes - 1].d, "open", is_cand,
                            EN(HC_IF_UNCLOSED));
out:
    hk_free(frames);
    return rc;
}

/* ---- keys: token texts joined by single spaces ---- */

static int append_toks(struct hk_buf *b, const ptext *pt, const tok *t, size_t a, size_t e)
{
    for (size_t k = a; k < e; k++) {
        size_t len;
        const char *p = tok_text(pt, &t[k], &len);
        int rc = b->len ? hk_buf_append(b, " ", 1) : HK_OK;
        if (rc || (rc = hk_buf_append(b, p, len)))
            return rc;
    }
    return HK_OK;
}

/* An item's key names its block by id, so a long namespace head is not repeated for
 * every item in it. */
static int item_key(const ptext *pt, const split *sp, const item *it, struct hk_buf *b)
{
    hk_buf_reset(b);
    int rc = it->block == NONE ? HK_OK : hk_buf_printf(b, "%zu@", sp->bl[it->block].id);
    return rc ? rc : append_toks(b, pt, pt->t, it->a, it->b);
}

/* Block ids: the baseline's heads (with their parent's id) are interned; a candidate block
 * whose head the baseline lacks gets an id no baseline block has. */
static int block_ids(hc *h, const ptext *pt, split *sp, bool is_cand)
{
    for (size_t i = 0; i < sp->nbl; i++) {
        block *bl = &sp->bl[i];
        hk_buf_reset(&h->key);
        int rc = bl->parent == NONE ? hk_buf_append(&h->key, "-", 1)
                                    : hk_buf_printf(&h->key, "%zu", sp->bl[bl->parent].id);
        if (!rc)
            rc = append_toks(&h->key, pt, pt->t, bl->a, bl->b);
        if (rc)
            return rc;
        if (!is_cand) {
            if ((rc = map_intern(&h->base_blocks, h->key.data, h->key.len, &bl->id)))
                return rc;
        } else if (!map_value(&h->base_blocks, h->key.data, h->key.len, &bl->id)) {
            bl->id = NONE - 1 - i;
        }
    }
    return HK_OK;
}

/* A #define keeps whether '(' touches the name: that is what makes it function-like. */
static int dir_key(const ptext *pt, const pdir *d, struct hk_buf *b)
{
    hk_buf_reset(b);
    const tok *t = pt->dt + d->first;
    bool define = d->count >= 4 && tok_eq(pt, &t[1], "define") && is_p(&t[3], "(") &&
                  t[3].start == t[2].end;
    for (size_t k = 0; k < d->count; k++) {
        size_t len;
        const char *p = tok_text(pt, &t[k], &len);
        int rc = (k && !(define && k == 3)) ? hk_buf_append(b, " ", 1) : HK_OK;
        if (rc || (rc = hk_buf_append(b, p, len)))
            return rc;
    }
    if (!b->data)
        return hk_buf_append(b, "", 0);
    return HK_OK;
}

static int cond_violation(hc *h, ptext *pt, const pdir *d, const char *kind, bool is_cand,
                          const char *why)
{
    int rc = dir_key(pt, d, &h->key);
    if (!rc)
        rc = hk_buf_appends(&h->key, kind);
    if (rc)
        return rc;
    if (!is_cand)
        return map_add(&h->base_viol, h->key.data, h->key.len);
    if (!map_take(&h->base_viol, h->key.data, h->key.len))
        report(h, d->start, why);
    return HK_OK;
}

/* ---- classification ---- */

enum { IK_EMPTY, IK_ALLOWED, IK_TYPE, IK_FUNC, IK_VAR, IK_VAR_DYN, IK_OTHER };

typedef struct {
    int kind;
    size_t name;        /* IK_FUNC: the name token */
    size_t body, close; /* IK_TYPE: the body's braces */
} iclass;

/* Does [x, y) call something when evaluated? Literals, names, operators, casts and
 * sizeof do not; an identifier, '>' or ']' right before '(' or '{' does, '}' right before
 * '(' (a lambda invoked), and so do new, throw and user-defined literals. */
static bool has_call(const ptext *pt, size_t x, size_t y)
{
    const tok *t = pt->t;
    for (size_t k = x; k < y; k++) {
        const tok *tk = &t[k];
        if (tk->kind == TK_IDENT) {
            if (tok_in(pt, tk, call_words))
                return true;
            if (tok_in(pt, tk, cast_words) && k + 1 < y && is_p(&t[k + 1], "<")) {
                size_t m = match_angle(t, k + 1, y);
                if (m >= y)
                    return true;
                k = m;
                if (k + 1 < y && is_p(&t[k + 1], "("))
                    k++; /* the cast's operand, not a call */
            }
            continue;
        }
        if (tk->kind == TK_NUMBER && memchr(pt->s + tk->start, '_', tk->end - tk->start))
            return true;
        if ((tk->kind == TK_STRING || tk->kind == TK_CHAR) && tk->suffix)
            return true;
        if (is_p(tk, "{") && k > x && (t[k - 1].kind == TK_IDENT || is_p(&t[k - 1], ">")))
            return true; /* S{...}: a constructor; = {...} of scalars or arrays is not */
        if (!is_p(tk, "(") || k == x)
            continue;
        const tok *prev = &t[k - 1];
        if (prev->kind == TK_IDENT) {
            if (!tok_in(pt, prev, builtin_types) && !tok_in(pt, prev, call_free_words))
                return true;
        } else if (is_p(prev, ">") || is_p(prev, "]") || is_p(prev, ">>") || is_p(prev, "}")) {
            return true; /* `}(`: a lambda called where it is made, `[] {...}()` */
        } else if (is_p(prev, ")")) {
            size_t o = k - 1, d = 0;
            for (;; o--) { /* the group's '(' */
                if (is_close(&t[o]))
                    d++;
                else if (is_open(&t[o]) && --d == 0)
                    break;
                if (o == x)
                    return true;
            }
            if (o + 1 == k - 1)
                return true;
            for (size_t j = o + 1; j < k - 1; j++) /* a C cast: only type words inside */
                if (!tok_in(pt, &t[j], builtin_types) && !tok_eq(pt, &t[j], "const") &&
                    !is_p(&t[j], "*"))
                    return true;
        }
    }
    return false;
}

static bool is_const_scalar(const ptext *pt, size_t p, size_t eq, size_t end)
{
    bool has_const = false;
    size_t names = 0;
    if (eq == p || eq + 1 >= end)
        return false;
    for (size_t k = p; k < eq; k++) {
        const tok *tk = &pt->t[k];
        if (tk->kind != TK_IDENT)
            return false;
        if (tok_eq(pt, tk, "const"))
            has_const = true;
        else if (!tok_in(pt, tk, storage_words) && !tok_in(pt, tk, builtin_types) &&
                 (++names > 1 || k != eq - 1))
            return false;
    }
    if (!has_const || names != 1 || has_call(pt, eq + 1, end))
        return false;
    /* an assignment or increment writes an object when the initializer runs, before main:
     * `const long x = (long)(environ[0] = (char *)"...");` (session 51) */
    static const char *const writes[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
                                         "^=", "<<=", ">>=", "++", "--", NULL};
    size_t depth = 0;
    for (size_t k = eq + 1; k < end; k++) {
        const tok *tk = &pt->t[k];
        depth += is_open(tk);
        depth -= is_close(tk) && depth;
        /* `, name =` at depth 0 starts the next declarator's initializer */
        if (!depth && is_p(tk, "=") && k >= eq + 3 && pt->t[k - 1].kind == TK_IDENT &&
            is_p(&pt->t[k - 2], ","))
            continue;
        for (size_t w = 0; writes[w]; w++)
            if (is_p(tk, writes[w]))
                return false;
    }
    return true;
}

/* Can the parameter [x, y) only be a declaration (so `S s(x);` is not taken for one)? */
static bool param_is_decl(const ptext *pt, size_t x, size_t y, bool sole)
{
    const tok *t = pt->t;
    size_t e = y;
    long angle = 0, square = 0;
    for (size_t k = x; k < y; k++) { /* cut a default argument; literals only in [] or <> */
        if (is_p(&t[k], "<"))
            angle++;
        else if (is_p(&t[k], ">"))
            angle--;
        else if (is_p(&t[k], "["))
            square++;
        else if (is_p(&t[k], "]"))
            square--;
        else if (is_p(&t[k], "=") && angle <= 0 && square <= 0) {
            e = k;
            break;
        } else if ((t[k].kind == TK_NUMBER || t[k].kind == TK_STRING || t[k].kind == TK_CHAR) &&
                   angle <= 0 && square <= 0)
            return false;
    }
    if (e == x)
        return sole && e == y;
    if (e - x == 1 && is_p(&t[x], "..."))
        return true;
    if (tok_in(pt, &t[x], builtin_types) || tok_in(pt, &t[x], decl_start_words))
        return true;
    while (e > x + 1 && is_p(&t[e - 1], "]")) { /* int a[4] */
        size_t o = e - 1;
        while (o > x && !is_p(&t[o], "["))
            o--;
        e = o;
    }
    const tok *last = &t[e - 1];
    if (is_p(last, "*") || is_p(last, "&") || is_p(last, "&&"))
        return e - x >= 2;
    if (last->kind != TK_IDENT || e - x < 2)
        return false;
    const tok *prev = &t[e - 2];
    return (prev->kind == TK_IDENT && !tok_in(pt, prev, keywords)) || is_p(prev, ">") ||
           is_p(prev, ">>");
}

static bool is_prototype(const ptext *pt, size_t p, size_t end, size_t eq)
{
    const tok *t = pt->t;
    size_t lim = eq != NONE ? eq : end, q = NONE;
    for (size_t j = p; j < lim; j++) {
        if (!is_open(&t[j]))
            continue;
        if (is_p(&t[j], "(") && !(j > p && tok_in(pt, &t[j - 1], attr_words))) {
            q = j;
            break;
        }
        j = match_close(t, j, lim);
    }
    if (q == NONE || q == p)
        return false;
    const tok *prev = &t[q - 1];
    bool named = (prev->kind == TK_IDENT && !tok_in(pt, prev, keywords) &&
                  !tok_in(pt, prev, builtin_types) && !tok_eq(pt, prev, "asm") &&
                  !tok_eq(pt, prev, "__asm__")) ||
                 (prev->kind == TK_PUNCT && q >= p + 2 && tok_eq(pt, &t[q - 2], "operator"));
    if (!named)
        return false;
    size_t close = match_close(t, q, lim);
    if (close >= lim)
        return false;
    bool sole = true;
    for (size_t x = q + 1, k = q + 1; k <= close; k++) {
        if (k < close && is_open(&t[k])) {
            k = match_close(t, k, close);
            continue;
        }
        if (k < close && is_p(&t[k], "<")) {
            size_t m = match_angle(t, k, close);
            if (m < close)
                k = m;
            continue;
        }
        if (k == close || is_p(&t[k], ",")) {
            sole = sole && k == close;
            if (!param_is_decl(pt, x, k, sole))
                return false;
            x = k + 1;
        }
    }
    for (size_t j = close + 1; j < lim; j++) {
        if (is_p(&t[j], "(") && tok_in(pt, &t[j - 1], attr_words)) {
            j = match_close(t, j, lim);
            continue;
        }
        if (is_open(&t[j]))
            return false;
    }
    if (eq != NONE)
        return end == eq + 2 && (tok_eq(pt, &t[eq + 1], "delete") ||
                                 tok_eq(pt, &t[eq + 1], "default") || tok_eq(pt, &t[eq + 1], "0"));
    return true;
}

static bool depth0_has(const ptext *pt, size_t x, size_t y, const char *const *list)
{
    for (size_t k = x; k < y; k++) {
        if (is_open(&pt->t[k])) {
            k = match_close(pt->t, k, y);
            continue;
        }
        if (tok_in(pt, &pt->t[k], list))
            return true;
    }
    return false;
}

/* A device word of a declaration in [x, y): at bracket depth 0 and outside any template
 * argument list (`std::conditional_t<true, int, int __device__> v = f();` names a type with
 * the word, which nvcc ignores there; v is a host variable: session 51). A `<` opens a list
 * after a name or `>`, not after `operator`. */
static bool has_device_word(const ptext *pt, size_t x, size_t y)
{
    size_t angle = 0;
    for (size_t k = x; k < y; k++) {
        const tok *tk = &pt->t[k];
        if (is_open(tk)) {
            k = match_close(pt->t, k, y);
            continue;
        }
        if (is_p(tk, "<") && k > x && !tok_eq(pt, &pt->t[k - 1], "operator") &&
            (pt->t[k - 1].kind == TK_IDENT || is_p(&pt->t[k - 1], ">")))
            angle++;
        else if (is_p(tk, ">") && angle)
            angle--;
        else if (is_p(tk, ">>"))
            angle -= angle < 2 ? angle : 2;
        else if (!angle && tok_in(pt, tk, device_words))
            return true;
    }
    return false;
}

/* Are all the declarators of [x, y) device code? A device word in the declaration's
 * specifiers -- one a declarator follows (a name, `*`, `&`, `::`, `(`), past other device
 * words and attributes -- makes every declarator device code; one after a declarator
 * (`int pad __device__, v = f();`) only that one (nvcc: `v` is a host variable; session 51),
 * so then every declarator, split at commas outside brackets, template argument lists and
 * initializers, needs one of its own. Initializers are not read. */
static bool device_declarators(const ptext *pt, size_t x, size_t y)
{
    const tok *t = pt->t;
    bool spec = false, seg_has = false, in_init = false;
    size_t angle = 0;
    for (size_t k = x; k < y; k++) {
        const tok *tk = &t[k];
        if (is_open(tk)) {
            k = match_close(t, k, y);
            continue;
        }
        if (in_init) {
            if (is_p(tk, ",")) {
                if (!seg_has && !spec)
                    return false;
                seg_has = in_init = false;
            }
            continue;
        }
        if (is_p(tk, "<") && k > x && !tok_eq(pt, &t[k - 1], "operator") &&
            (t[k - 1].kind == TK_IDENT || is_p(&t[k - 1], ">"))) {
            angle++;
        } else if (is_p(tk, ">") && angle) {
            angle--;
        } else if (is_p(tk, ">>")) {
            angle -= angle < 2 ? angle : 2;
        } else if (angle) {
            continue;
        } else if (is_p(tk, "=") && !(k > x && tok_eq(pt, &t[k - 1], "operator"))) {
            in_init = true;
        } else if (is_p(tk, ",") && !(k > x && tok_eq(pt, &t[k - 1], "operator"))) {
            if (!seg_has && !spec)
                return false;
            seg_has = false;
        } else if (tok_in(pt, tk, device_words)) {
            seg_has = true;
            size_t j = k + 1;
            while (j < y && (tok_in(pt, &t[j], device_words) || tok_in(pt, &t[j], attr_words))) {
                if (j + 1 < y && is_p(&t[j + 1], "(") && tok_in(pt, &t[j], attr_words))
                    j = match_close(t, j + 1, y);
                j++;
            }
            if (j < y && ((t[j].kind == TK_IDENT && !tok_in(pt, &t[j], keywords)) ||
                          is_p(&t[j], "*") || is_p(&t[j], "&") || is_p(&t[j], "&&") ||
                          is_p(&t[j], "::") || is_p(&t[j], "(") ||
                          tok_in(pt, &t[j], builtin_types) || tok_in(pt, &t[j], storage_words) ||
                          tok_in(pt, &t[j], decl_start_words)))
                spec = true;
        }
    }
    return spec || seg_has;
}

static iclass classify(const ptext *pt, size_t a, size_t b)
{
    const tok *t = pt->t;
    iclass c = {IK_EMPTY, NONE, NONE, NONE};
    size_t end = b;
    if (end > a && is_p(&t[end - 1], ";"))
        end--;
    size_t p = skip_templates(pt, a, end);
    if (p >= end)
        return c;
    static const char *const alias_words[] = {"static_assert", "_Static_assert", "typedef",
                                              "using", "namespace", NULL};
    static const char *const asm_words[] = {"asm", "__asm__", "__asm", NULL};
    c.kind = IK_ALLOWED;
    if (tok_in(pt, &t[p], alias_words))
        return c;
    c.kind = IK_OTHER;
    if (tok_in(pt, &t[p], asm_words))
        return c;
    size_t fb = NONE, eq = NONE, paren0 = NONE;
    for (size_t k = p; k < end; k++) {
        const tok *tk = &t[k];
        if (is_p(tk, "=") && eq == NONE && !(k > p && tok_eq(pt, &t[k - 1], "operator")))
            eq = k;
        if (!is_open(tk))
            continue;
        if (tk->p[0] == '{' && fb == NONE)
            fb = k;
        if (tk->p[0] == '(' && paren0 == NONE)
            paren0 = k;
        k = match_close(t, k, end);
    }
    size_t head_end = fb < eq ? fb : eq;
    if (head_end > end)
        head_end = end;
    c.kind = IK_ALLOWED;
    size_t th = type_head(pt, p, head_end);
    bool type_body = th != NONE && fb != NONE && (eq == NONE || eq > fb);
    /* a device word in a class head (`struct __device__ S {...} s;`) is the type's, which
     * nvcc ignores ("does not apply here"): it makes no declarator device code, so only the
     * words before the struct keyword count (and those after the body, below) */
    if (type_body ? has_device_word(pt, p, th)
                  : has_device_word(pt, p, head_end) && device_declarators(pt, p, end))
        return c;
    if (type_body) {
        size_t close = match_close(t, fb, end);
        bool declares = false;
        for (size_t k = close + 1; k < end; k++) { /* after the body: attributes only */
            if (is_p(&t[k], "(") && tok_in(pt, &t[k - 1], attr_words)) {
                k = match_close(t, k, end);
                continue;
            }
            if (!tok_in(pt, &t[k], attr_words) && !is_p(&t[k], "[") && !is_p(&t[k], "]"))
                declares = true;
        }
        bool typedef_ = tok_eq(pt, &t[p], "typedef");
        if (!declares || typedef_) {
            c.kind = IK_TYPE;
            c.body = fb;
            c.close = close;
            return c;
        }
        if (close < end && device_declarators(pt, close + 1, end))
            return c; /* struct {...} __device__ s; */
        c.kind = has_call(pt, close + 1, end) ? IK_VAR_DYN : IK_VAR;
        return c;
    }
    if (th != NONE && fb == NONE && eq == NONE) { /* struct S; enum class E : int; */
        size_t q = th + 1;
        if (tok_eq(pt, &t[th], "enum") && q < end &&
            (tok_eq(pt, &t[q], "class") || tok_eq(pt, &t[q], "struct")))
            q++;
        while (q + 1 < end && is_p(&t[q + 1], "::"))
            q += 2;
        if (q < end && t[q].kind == TK_IDENT && (q + 1 == end || is_p(&t[q + 1], ":")))
            return c;
    }
    if (fb != NONE && (eq == NONE || fb < eq) && paren0 != NONE && paren0 < fb) {
        c.kind = IK_FUNC;
        for (size_t k = p; k < fb; k++) { /* the name: before the first non-attribute '(' */
            if (is_p(&t[k], "(") && !(k > p && tok_in(pt, &t[k - 1], attr_words))) {
                if (k > p && t[k - 1].kind == TK_IDENT)
                    c.name = k - 1;
                break;
            }
            if (is_open(&t[k]))
                k = match_close(t, k, fb);
        }
        return c;
    }
    if (depth0_has(pt, p, head_end, (const char *const[]){"constexpr", NULL}))
        return c;
    if (fb == NONE && eq == NONE) {
        if (depth0_has(pt, p, end, (const char *const[]){"extern", NULL}) ||
            is_prototype(pt, p, end, NONE))
            return c;
        c.kind = paren0 != NONE ? IK_VAR_DYN : IK_VAR;
        return c;
    }
    if (eq != NONE && (fb == NONE || eq < fb)) {
        if (is_prototype(pt, p, end, eq) || is_const_scalar(pt, p, eq, end))
            return c;
        c.kind = has_call(pt, eq + 1, end) ? IK_VAR_DYN : IK_VAR;
        return c;
    }
    c.kind = has_call(pt, fb + 1, end) ? IK_VAR_DYN : IK_VAR; /* S s{...}; */
    return c;
}

/* ---- checks on candidate tokens ---- */

static bool ieq_word(const char *p, size_t len, const char *w)
{
    if (strlen(w) != len)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = p[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != w[i])
            return false;
    }
    return true;
}

/* Appends one decoded character; anything past ASCII cannot spell a directive, so it
 * becomes '?'. */
static void put_char(struct hk_buf *b, unsigned long cp, int *rc)
{
    char c = cp < 0x80 ? (char)cp : '?';
    if (!*rc)
        *rc = hk_buf_append(b, &c, 1);
}

/* Appends the value of a string literal token to b, escapes decoded, lowercased. */
static int decode_string(const ptext *pt, const tok *tk, struct hk_buf *b)
{
    const char *s = pt->s + tk->start, *e = pt->s + tk->end;
    int rc = HK_OK;
    while (s < e && *s != '"')
        s++;
    if (s >= e)
        return HK_OK;
    if (tk->raw) {
        const char *open = memchr(s, '(', (size_t)(e - s));
        const char *close = e;
        while (open && close > open && *close != ')')
            close--;
        for (const char *c = open ? open + 1 : e; c < close && !rc; c++)
            put_char(b, (unsigned char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c), &rc);
        return rc;
    }
    for (s++; s < e && *s != '"' && !rc; s++) {
        unsigned long cp = (unsigned char)*s;
        if (*s == '\\' && s + 1 < e) {
            s++;
            static const char esc_in[] = "ntvbrfa\\?'\"", esc_out[] = "\n\t\v\b\r\f\a\\?'\"";
            const char *m = strchr(esc_in, *s);
            if (*s >= '0' && *s <= '7') {
                cp = 0;
                for (int k = 0; k < 3 && s < e && *s >= '0' && *s <= '7'; k++, s++)
                    cp = cp * 8 + (unsigned long)(*s - '0');
                s--;
            } else if (*s == 'x') {
                cp = 0;
                while (s + 1 < e && is_hex((unsigned char)s[1])) {
                    s++;
                    cp = cp * 16 + (unsigned long)(is_digit((unsigned char)*s) ? *s - '0'
                                                                               : (*s | 0x20) - 'a' + 10);
                    if (cp > 0x10ffff)
                        cp = 0x10ffff;
                }
            } else if (*s == 'u' || *s == 'U') {
                int digits = *s == 'u' ? 4 : 8;
                cp = 0;
                for (int k = 0; k < digits && s + 1 < e && is_hex((unsigned char)s[1]); k++) {
                    s++;
                    cp = cp * 16 + (unsigned long)(is_digit((unsigned char)*s) ? *s - '0'
                                                                               : (*s | 0x20) - 'a' + 10);
                }
            } else if (m && *m) {
                cp = (unsigned char)esc_out[m - esc_in];
            } else {
                cp = (unsigned char)*s;
            }
        }
        if (cp >= 'A' && cp <= 'Z')
            cp = cp - 'A' + 'a';
        put_char(b, cp, &rc);
    }
    return rc;
}

/* memmem: the decoded text may hold NUL bytes (\0 escapes). */
static bool contains(const char *p, size_t len, const char *needle)
{
    size_t l = strlen(needle);
    for (size_t i = 0; p && i + l <= len; i++)
        if (memcmp(p + i, needle, l) == 0)
            return true;
    return false;
}

#define why_incbin EN(HC_ASM_INCBIN)
#define why_include_asm EN(HC_ASM_INCLUDE)
#define why_ctor EN(HC_CTOR)
#define why_dtor EN(HC_DTOR)
#define why_pragma_op EN(HC_PRAGMA_OP)

static bool is_unroll_text(const char *p, size_t len)
{
    while (len && (*p == ' ' || *p == '\t'))
        p++, len--;
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
        len--;
    if (len == 8 && !memcmp(p, "nounroll", 8))
        return true;
    if (len < 6 || memcmp(p, "unroll", 6))
        return false;
    if (len > 6 && p[6] != ' ' && p[6] != '(' && p[6] != '\t')
        return false;
    return !memchr(p, '"', len) && !memchr(p, '#', len);
}

/* Token checks shared by items and #define bodies: constructor attributes, .incbin and
 * .include in strings or as tokens, _Pragma. */
static int check_tokens(hc *h, const ptext *pt, const tok *t, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++) {
        const tok *tk = &t[k];
        if (tk->kind == TK_IDENT) {
            size_t len = tk->end - tk->start;
            const char *p = pt->s + tk->start;
            if (tok_in(pt, tk, ctor_words))
                report(h, tk->start, p[2] == 'd' || p[0] == 'd' ? why_dtor : why_ctor);
            else if (ieq_word(p, len, "incbin"))
                report(h, tk->start, why_incbin);
            else if (ieq_word(p, len, "asmstart") || ieq_word(p, len, "asmend"))
                report(h, tk->start, EN(HC_ASM_MARKER)); /* a baseline macro could stringify */
            else if (ieq_word(p, len, "include") && k > a && is_p(&t[k - 1], "."))
                report(h, t[k - 1].start, why_include_asm);
            else if (tok_eq(pt, tk, "_Pragma")) {
                if (k + 3 >= b || !is_p(&t[k + 1], "(") || t[k + 2].kind != TK_STRING ||
                    !is_p(&t[k + 3], ")")) {
                    report(h, tk->start, why_pragma_op);
                    continue;
                }
                hk_buf_reset(&h->lit);
                int rc = decode_string(pt, &t[k + 2], &h->lit);
                if (rc)
                    return rc;
                if (is_unroll_text(h->lit.data ? h->lit.data : "", h->lit.len))
                    continue;
                hk_buf_reset(&h->key);
                if ((rc = append_toks(&h->key, pt, t, k, k + 4)))
                    return rc;
                if (!map_take(&h->base_dirs, h->key.data, h->key.len))
                    report(h, tk->start, why_pragma_op);
            }
            continue;
        }
        if (tk->kind != TK_STRING || (k > a && t[k - 1].kind == TK_STRING))
            continue;
        hk_buf_reset(&h->lit); /* a run of adjacent literals is one string */
        size_t j = k;
        for (; j < b && t[j].kind == TK_STRING; j++) {
            int rc = decode_string(pt, &t[j], &h->lit);
            if (rc)
                return rc;
        }
        if (contains(h->lit.data, h->lit.len, "incbin"))
            report(h, tk->start, why_incbin);
        else if (contains(h->lit.data, h->lit.len, ".include"))
            report(h, tk->start, why_include_asm);
        /* session 52: clang writes inline asm between `;;#ASMSTART` and `;;#ASMEND` comment
         * lines, and the DCU assembly reader (kimage_asm_clocks) judges what lies between
         * them as inline asm: an asm string holding one could forge the bounds */
        else if (contains(h->lit.data, h->lit.len, "#asmstart") ||
                 contains(h->lit.data, h->lit.len, "#asmend"))
            report(h, tk->start, EN(HC_ASM_MARKER));
    }
    return HK_OK;
}

/* Device-kind items: nothing outside their bodies may hide a declaration, through a `;`
 * inside parentheses (a macro argument) or a macro that expands to one. */
static void check_hidden_decls(hc *h, const ptext *pt, size_t a, size_t b)
{
    size_t braces = 0, parens = 0;
    for (size_t k = a; k < b; k++) {
        const tok *tk = &pt->t[k];
        if (is_p(tk, "{")) {
            braces++;
        } else if (is_p(tk, "}")) {
            braces -= braces > 0;
        } else if (braces) {
            continue;
        } else if (is_p(tk, "(") || is_p(tk, "[")) {
            parens++;
        } else if (is_p(tk, ")") || is_p(tk, "]")) {
            parens -= parens > 0;
        } else if (is_p(tk, ";") && parens) {
            report(h, tk->start, EN(HC_DECL_IN_PARENS));
        } else if (tk->kind == TK_IDENT &&
                   (map_has(&h->danger, pt->s + tk->start, tk->end - tk->start) ||
                    (!parens && map_has(&h->danger0, pt->s + tk->start, tk->end - tk->start)))) {
            report_name(h, tk->start, EN(HC_MACRO_DECLS), pt, tk);
        }
    }
}

/* A type's `static inline` data members are host variables with initializers of their
 * own: one that is not constexpr or a constant scalar is a finding. close is the body's
 * closing brace, or the item's end when the body is not closed (match_close's lim, which
 * may be the last token's end: never read). */
/* Is a member function whose head is [x, y) compiled for the host: `__host__` in it, or
 * neither `__device__` nor `__global__`? */
static bool host_compiled(const ptext *pt, size_t x, size_t y)
{
    bool host = false, device = false;
    for (size_t k = x; k < y; k++) {
        host = host || tok_eq(pt, &pt->t[k], "__host__");
        device = device || tok_eq(pt, &pt->t[k], "__device__") ||
                 tok_eq(pt, &pt->t[k], "__global__");
    }
    return host || !device;
}

static void check_type_members(hc *h, const ptext *pt, size_t body, size_t close)
{
    size_t s0 = body + 1;
    for (size_t k = body + 1; k <= close && k < pt->nt; k++) {
        const tok *tk = &pt->t[k];
        bool delim = is_p(tk, ";") || is_p(tk, "{") || is_p(tk, "}");
        if (!delim)
            continue;
        bool st = false, inl = false, cx = false;
        size_t eq = NONE, paren = NONE;
        for (size_t j = s0; j < k; j++) {
            const tok *m = &pt->t[j];
            st = st || tok_eq(pt, m, "static") || tok_eq(pt, m, "thread_local");
            inl = inl || tok_eq(pt, m, "inline") || tok_eq(pt, m, "thread_local");
            cx = cx || tok_eq(pt, m, "constexpr");
            if (is_p(m, "=") && eq == NONE)
                eq = j;
            if (is_p(m, "(") && paren == NONE)
                paren = j;
        }
        bool function = is_p(tk, "{") && paren != NONE && (eq == NONE || paren < eq);
        if (st && inl && !cx && !function) {
            bool constant = is_p(tk, ";") && eq != NONE && is_const_scalar(pt, s0, eq, k);
            if (!constant)
                report(h, pt->t[s0].start, EN(HC_STATIC_INLINE));
        }
        const tok *before = paren != NONE && paren >= s0 + 2 ? &pt->t[paren - 2] : NULL;
        if (before && (eq == NONE || paren < eq) &&
            (is_p(before, "~") ||
             (before->kind == TK_IDENT && /* `TILDE S()`, `#define TILDE ~` */
              map_has(&h->danger0, pt->s + before->start, before->end - before->start))) &&
            pt->t[paren - 1].kind == TK_IDENT && host_compiled(pt, s0, paren) &&
            !(eq != NONE && eq + 1 < k &&
              (tok_eq(pt, &pt->t[eq + 1], "default") || tok_eq(pt, &pt->t[eq + 1], "delete"))))
            report(h, pt->t[s0].start, EN(HC_HOST_DTOR));
        if (is_p(tk, "{") && (function || eq != NONE)) /* a body or `= { ... }`: skipped */
            k = match_close(pt->t, k, close);
        s0 = k + 1;
    }
}

/* ---- the passes ---- */

static const char *host_why(int kind, bool differs)
{
    switch (kind) {
    case IK_FUNC:
        return differs ? EN(HC_FUNC_DIFFERS) : EN(HC_FUNC_NEW);
    case IK_VAR_DYN:
        return EN(HC_VAR_DYNAMIC);
    case IK_VAR:
        return EN(HC_VAR_NEW);
    default:
        return EN(HC_CODE_NEW);
    }
}

static int scan_base(hc *h)
{
    ptext *pt = &h->base;
    int rc = split_items(h, pt, &h->bs, false);
    if (!rc)
        rc = block_ids(h, pt, &h->bs, false);
    for (size_t i = 0; !rc && i < h->bs.nit; i++) {
        const item *it = &h->bs.it[i];
        iclass c = classify(pt, it->a, it->b);
        if (c.kind == IK_EMPTY)
            continue;
        if ((rc = item_key(pt, &h->bs, it, &h->key)) ||
            (rc = map_add(&h->base_items, h->key.data, h->key.len)))
            break;
        /* session 52: the names the baseline's host code uses -- its host items, and its
         * functions compiled for the host (a `__host__ __device__` head) */
        size_t hp = skip_templates(pt, it->a, it->b), hb = hp;
        while (hb < it->b && !is_p(&pt->t[hb], "{") && !is_p(&pt->t[hb], "="))
            hb++;
        bool host_item = (c.kind != IK_ALLOWED && c.kind != IK_TYPE) ||
                         (c.kind == IK_ALLOWED &&
                          depth0_has(pt, hp, hb, (const char *const[]){"__host__", NULL}));
        for (size_t k = it->a; host_item && k < it->b && !rc; k++)
            if (pt->t[k].kind == TK_IDENT)
                rc = map_add(&h->base_host_names, pt->s + pt->t[k].start,
                             pt->t[k].end - pt->t[k].start);
        if (rc)
            break;
        if (c.kind == IK_FUNC && c.name != NONE) {
            size_t len;
            const char *p = tok_text(pt, &pt->t[c.name], &len);
            rc = map_add(&h->base_funcs, p, len);
        }
    }
    for (size_t i = 0; !rc && i < pt->nd; i++)
        if (!(rc = dir_key(pt, &pt->d[i], &h->key)))
            rc = map_add(&h->base_dirs, h->key.data, h->key.len);
    /* _Pragma("...") in the baseline, as the keys check_tokens looks up */
    for (int pass = 0; pass < 2 && !rc; pass++) {
        const tok *t = pass ? pt->dt : pt->t;
        size_t n = pass ? pt->ndt : pt->nt;
        for (size_t k = 0; k + 3 < n && !rc; k++) {
            if (!tok_eq(pt, &t[k], "_Pragma") || !is_p(&t[k + 1], "(") ||
                t[k + 2].kind != TK_STRING || !is_p(&t[k + 3], ")"))
                continue;
            hk_buf_reset(&h->key);
            if (!(rc = append_toks(&h->key, pt, t, k, k + 4)))
                rc = map_add(&h->base_dirs, h->key.data, h->key.len);
        }
    }
    return rc;
}

/* Trigraphs (??/ is a backslash under -trigraphs): a line with one must be the
 * baseline's. Lines are compared trimmed, in the original texts. */
static bool line_span(const char *s, size_t n, size_t at, size_t *a, size_t *b)
{
    size_t x = at, y = at;
    while (x > 0 && s[x - 1] != '\n' && s[x - 1] != '\r')
        x--;
    while (y < n && s[y] != '\n' && s[y] != '\r')
        y++;
    while (x < y && is_hspace(s[x]) && s[x] != '\0')
        x++;
    while (y > x && is_hspace(s[y - 1]) && s[y - 1] != '\0')
        y--;
    *a = x;
    *b = y;
    return true;
}

static size_t next_trigraph(const char *s, size_t n, size_t from)
{
    for (size_t i = from; i + 2 < n; i++)
        if (s[i] == '?' && s[i + 1] == '?' && strchr("=/'()!<>-", s[i + 2]) && s[i + 2])
            return i;
    return NONE;
}

static int check_raw_text(hc *h)
{
    const char *bs = h->base.orig, *cs = h->cand.orig;
    size_t bn = h->base.orig_len, cn = h->cand.orig_len, a, b;
    for (size_t i = next_trigraph(bs, bn, 0); i != NONE; i = next_trigraph(bs, bn, b)) {
        line_span(bs, bn, i, &a, &b);
        int rc = map_add(&h->base_trig, bs + a, b - a);
        if (rc)
            return rc;
    }
    for (size_t i = next_trigraph(cs, cn, 0); i != NONE; i = next_trigraph(cs, cn, b)) {
        line_span(cs, cn, i, &a, &b);
        if (!map_take(&h->base_trig, cs + a, b - a)) {
            report_orig(h, i, EN(HC_TRIGRAPH), NULL, 0);
            break;
        }
    }
    const char *nul = memchr(cs, '\0', cn);
    if (nul)
        report_orig(h, (size_t)(nul - cs), EN(HC_NUL), NULL, 0);
    for (size_t k = 0; k < h->cand.nt + h->cand.ndt; k++) { /* splices are undone in raw strings */
        const tok *tk = k < h->cand.nt ? &h->cand.t[k] : &h->cand.dt[k - h->cand.nt];
        if (!tk->raw)
            continue;
        size_t lo = 0, hi = h->cand.nsp; /* the first splice after the token's start */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (h->cand.sp[mid].pos <= tk->start)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < h->cand.nsp && h->cand.sp[lo].pos < tk->end)
            report(h, tk->start, EN(HC_RAW_SPLICE));
    }
    return HK_OK;
}

/* The body [x, y) of the candidate's #define at d, or false when it is not a define. */
static bool define_body(const ptext *pt, const pdir *d, size_t *name, size_t *x, size_t *y)
{
    const tok *t = pt->dt;
    if (d->count < 3 || !tok_eq(pt, &t[d->first + 1], "define") ||
        t[d->first + 2].kind != TK_IDENT)
        return false;
    size_t nm = d->first + 2, e = d->first + d->count, b = nm + 1;
    if (b < e && is_p(&t[b], "(") && t[b].start == t[nm].end) {
        while (b < e && !is_p(&t[b], ")"))
            b++;
        b += b < e;
    }
    *name = nm;
    *x = b;
    *y = e;
    return true;
}

/* Macros of the candidate that expand to `;`, braces or a constructor attribute, directly
 * or through other macros (a bounded fixed point; past the bound every macro that uses
 * another counts). */
static int find_dangerous_macros(hc *h)
{
    ptext *pt = &h->cand;
    size_t nm, x, y;
    int rc = HK_OK;
    for (size_t i = 0; i < pt->nd && !rc; i++)
        if (define_body(pt, &pt->d[i], &nm, &x, &y))
            rc = map_add(&h->macros, pt->s + pt->dt[nm].start, pt->dt[nm].end - pt->dt[nm].start);
    bool changed = true;
    for (int pass = 0; changed && !rc && pass <= DANGER_PASSES; pass++) {
        changed = false;
        for (size_t i = 0; i < pt->nd && !rc; i++) {
            if (!define_body(pt, &pt->d[i], &nm, &x, &y))
                continue;
            const tok *n = &pt->dt[nm];
            size_t nlen = n->end - n->start;
            if (map_has(&h->danger, pt->s + n->start, nlen))
                continue;
            bool bad = false, bad0 = false;
            size_t depth = 0;
            for (size_t k = x; k < y && !bad; k++) {
                const tok *tk = &pt->dt[k];
                size_t len = tk->end - tk->start;
                depth += is_p(tk, "(") || is_p(tk, "[");
                depth -= (is_p(tk, ")") || is_p(tk, "]")) && depth;
                bad = is_p(tk, ";") || is_p(tk, "{") || is_p(tk, "}") ||
                      tok_in(pt, tk, ctor_words) ||
                      (tk->kind == TK_IDENT &&
                       (map_has(&h->danger, pt->s + tk->start, len) ||
                        (pass == DANGER_PASSES && map_has(&h->macros, pt->s + tk->start, len))));
                /* (session 51) outside parentheses, a `,` or an angle bracket splits a
                 * declaration the scan reads whole (`int pad __device__ COMMA v = f();`), a
                 * `~` makes a destructor (check_type_members), and
                 * an asm or symbol attribute word names a symbol (`f() LABEL("clock_gettime")`):
                 * dangerous at parenthesis depth 0 only, so `k(KERNEL_ARGS)` stays fine */
                bad0 = bad0 ||
                       (!depth && (is_p(tk, ",") || is_p(tk, "<") || is_p(tk, ">") ||
                                   is_p(tk, ">>") || is_p(tk, "~"))) ||
                       tok_in(pt, tk, macro_symbol_words) || tok_in(pt, tk, symbol_attr_words) ||
                       (tk->kind == TK_IDENT && map_has(&h->danger0, pt->s + tk->start, len));
            }
            if (bad) {
                changed = true;
                rc = map_add(&h->danger, pt->s + n->start, nlen);
            } else if (bad0 && !map_has(&h->danger0, pt->s + n->start, nlen)) {
                changed = true;
                rc = map_add(&h->danger0, pt->s + n->start, nlen);
            }
        }
    }
    return rc;
}

/* Names aimed at the harness: its own (hk_, HK_), CUDA's and HIP's runtimes and drivers
 * (cuda, CUDA, cu + uppercase, CU_, hip + uppercase) and harness_names. */
static bool is_harness_name(const char *p, size_t len)
{
    if (in_list(p, len, harness_names))
        return true;
    for (const char *const *q = harness_prefixes; *q; q++)
        if (len >= strlen(*q) && !memcmp(p, *q, strlen(*q)))
            return true;
    return (len >= 3 && p[0] == 'c' && p[1] == 'u' && p[2] >= 'A' && p[2] <= 'Z') ||
           (len >= 4 && p[0] == 'h' && p[1] == 'i' && p[2] == 'p' && p[3] >= 'A' && p[3] <= 'Z');
}

/* Namespaces of the C++ and CUDA libraries: a host definition of one of their members
 * (`std::chrono::steady_clock::now()`, defined in libstdc++.so) replaces the library's. */
static const char *const library_namespaces[] = {"std", "__gnu_cxx", "__cxxabiv1", "__cxx11",
                                                 "cuda", "thrust", "cub", "nv", NULL};

/* Is the block chain from blk outward inside an `extern "C"` (or any language) block, or a
 * library's namespace? */
static bool in_linkage_block(const ptext *pt, const split *sp, size_t blk)
{
    for (; blk != NONE; blk = sp->bl[blk].parent) {
        const block *bl = &sp->bl[blk];
        if (bl->b - bl->a == 2 && tok_eq(pt, &pt->t[bl->a], "extern") &&
            pt->t[bl->a + 1].kind == TK_STRING)
            return true;
        for (size_t k = bl->a; k < bl->b; k++)
            if (tok_in(pt, &pt->t[k], library_namespaces))
                return true;
    }
    return false;
}

/* Is the declarator name ending at token e (the name) qualified by a library's namespace
 * (`std::chrono::steady_clock::now`, `::std::x`)? Walks back over `name ::` pairs. */
static bool library_qualified(const ptext *pt, size_t p, size_t e)
{
    const tok *t = pt->t;
    for (size_t k = e; k >= p + 2 && is_p(&t[k - 1], "::") && t[k - 2].kind == TK_IDENT; k -= 2)
        if (tok_in(pt, &t[k - 2], library_namespaces))
            return true;
    return false;
}

/* Device-kind items that still make or change host symbols (session 51): outside any body,
 * an attribute that defines or redirects a symbol (alias, ifunc, weakref, symver) or an asm
 * label (`int f(...) asm("clock_gettime")`, `extern ... cudaEventElapsedTime(...)
 * asm("mine")`: the name the host code calls or defines is not the one written); and a
 * `__host__ __device__` function -- compiled for the host too -- that replaces a library's
 * or the harness's: C linkage (extern "C", in its head or a block around it), a global
 * operator new or delete, a harness or C library name, or a member of a library's
 * namespace (qualified, or in a `namespace std {` block). */
/* Does the function declared by head [p, fb) replace a library's or the harness's: C
 * linkage written in it, a global operator new or delete, a harness or C library name, or
 * a name qualified by a library's namespace? */
static bool head_interposes(const ptext *pt, size_t p, size_t fb)
{
    const tok *t = pt->t;
    for (size_t k = p; k < fb; k++) {
        const tok *tk = &t[k];
        if (tok_eq(pt, tk, "extern") && k + 1 < fb && t[k + 1].kind == TK_STRING)
            return true;
        if (!is_open(tk))
            continue;
        if (!is_p(tk, "(") || (k > p && tok_in(pt, &t[k - 1], attr_words))) {
            k = match_close(t, k, fb);
            continue;
        }
        if (k > p + 2 && is_p(&t[k - 1], "]") && is_p(&t[k - 2], "[") &&
            (tok_eq(pt, &t[k - 3], "new") || tok_eq(pt, &t[k - 3], "delete")))
            return true; /* operator new[] / delete[] */
        if (k == p || t[k - 1].kind != TK_IDENT)
            return false;
        bool op_new = k >= p + 2 && tok_eq(pt, &t[k - 2], "operator") &&
                      (tok_eq(pt, &t[k - 1], "new") || tok_eq(pt, &t[k - 1], "delete"));
        return op_new || library_qualified(pt, p, k - 1);
    }
    return false;
}

/* Session 52: which functions compiled for the host the baseline's host code can reach.
 * A host function reaches the program by name (a definition of a symbol a library or the
 * host code declared: clock_gettime takes <ctime>'s C linkage) or by lookup (an overload the
 * host code's call prefers: `int printf(const char *, float)` beats libc's `...`). Both need
 * the function in a scope the host code or a library names: the global namespace, a
 * namespace or class the baseline names, a library's. A scope of the candidate's own -- a
 * namespace, class, struct or union the candidate names, the baseline nowhere, and no
 * library's namespace -- is named by neither: its members' symbols are mangled with its name
 * and no lookup of the host code enters it. So the rule needs no list of the functions a
 * harness may call (host_lib_names was one: `#define NOW clock_gettime` then a
 * `__host__ __device__ int NOW(...)`, or any libc name not on it, went through). */
static bool own_scope(const hc *h, const ptext *pt, const tok *tk)
{
    size_t len;
    const char *p = tok_text(pt, tk, &len);
    return tk->kind == TK_IDENT && map_has(&h->cand_scopes, p, len) &&
           !map_has(&h->base_names, p, len) && !in_list(p, len, library_namespaces);
}

/* Is block blk, or one around it, a namespace of the candidate's own (named, not inline: an
 * inline namespace's members are its parent's too)? */
static bool in_own_namespace(const hc *h, const ptext *pt, const split *sp, size_t blk)
{
    for (; blk != NONE; blk = sp->bl[blk].parent) {
        const block *bl = &sp->bl[blk];
        if (bl->a >= bl->b || !tok_eq(pt, &pt->t[bl->a], "namespace"))
            continue; /* extern "C" {, inline namespace N { */
        for (size_t k = bl->a + 1; k < bl->b; k++) /* namespace a::b::c {, each part */
            if (!tok_eq(pt, &pt->t[k - 1], "inline") && own_scope(h, pt, &pt->t[k]))
                return true;
    }
    return false;
}

/* The name token of the function declared by head [p, fb): before its first parameter list
 * (attributes skipped); NONE if none. */
static size_t head_name(const ptext *pt, size_t p, size_t fb)
{
    const tok *t = pt->t;
    for (size_t k = p; k < fb; k++) {
        if (is_p(&t[k], "(") && !(k > p && tok_in(pt, &t[k - 1], attr_words)))
            return k > p ? k - 1 : NONE;
        if (is_open(&t[k]))
            k = match_close(t, k, fb);
    }
    return NONE;
}

/* Is the function of head [p, fb) out of the host code's reach: a qualifier of its name is a
 * scope of the candidate's own (`__host__ __device__ float V::norm() const`), or it is an
 * operator (not new or delete) with a parameter of a class of the candidate's own (an
 * operator is looked up only for an operand of class type, and the host code has no value
 * of the candidate's classes; a converting constructor could still bring one of the host
 * code's operands to it where the host code has no operator of its own for it). */
static bool own_function(const hc *h, const ptext *pt, size_t p, size_t fb)
{
    const tok *t = pt->t;
    size_t nm = head_name(pt, p, fb);
    if (nm == NONE)
        return false;
    size_t q = nm > p && is_p(&t[nm - 1], "~") ? nm - 1 : nm; /* S::~S */
    for (size_t k = q; k >= p + 2 && is_p(&t[k - 1], "::") && t[k - 2].kind == TK_IDENT; k -= 2)
        if (own_scope(h, pt, &t[k - 2]))
            return true;
    bool op = false;
    for (size_t k = p; k <= nm && !op; k++)
        op = tok_eq(pt, &t[k], "operator");
    if (!op || tok_eq(pt, &t[nm], "new") || tok_eq(pt, &t[nm], "delete") ||
        (nm >= 1 && is_p(&t[nm], "]")))
        return false;
    size_t close = match_close(t, nm + 1, fb);
    for (size_t k = nm + 2; k < close; k++)
        if (own_scope(h, pt, &t[k]))
            return true;
    return false;
}

/* A friend defined in a class is the enclosing namespace's function, reached by the host
 * code's lookup only through a parameter of its class (a hidden friend) -- unless a
 * declaration elsewhere names it (clock_gettime's in <ctime>): so a friend compiled for the
 * host needs a parameter of a class of the candidate's own. */
static bool own_friend(const hc *h, const ptext *pt, size_t p, size_t fb)
{
    size_t nm = head_name(pt, p, fb);
    if (nm == NONE)
        return false;
    size_t close = match_close(pt->t, nm + 1, fb);
    for (size_t k = nm + 2; k < close; k++)
        if (own_scope(h, pt, &pt->t[k]))
            return true;
    return false;
}

/* The names of scopes the candidate opens (namespace a::b {, struct/class/union NAME), and
 * every identifier of the baseline. */
static int collect_scopes(hc *h)
{
    const ptext *pt = &h->cand;
    int rc = HK_OK;
    for (size_t k = 0; k + 1 < pt->nt && !rc; k++) {
        const tok *t = pt->t;
        if (tok_eq(pt, &t[k], "namespace")) { /* a definition; `namespace X = std;` is no scope */
            size_t j = k + 1;
            while (j < pt->nt && (t[j].kind == TK_IDENT || is_p(&t[j], "::")))
                j++;
            if (j >= pt->nt || !is_p(&t[j], "{"))
                continue;
            for (size_t q = k + 1; q < j && !rc; q++)
                if (t[q].kind == TK_IDENT && !tok_eq(pt, &t[q], "inline"))
                    rc = map_add(&h->cand_scopes, pt->s + t[q].start, t[q].end - t[q].start);
        } else if (tok_eq(pt, &t[k], "struct") || tok_eq(pt, &t[k], "class") ||
                   tok_eq(pt, &t[k], "union")) {
            size_t j = k + 1;
            for (;;) { /* struct __align__(16) V, struct alignas(8) V, struct [[x]] V */
                if (j + 1 < pt->nt && tok_in(pt, &t[j], attr_words) && is_p(&t[j + 1], "("))
                    j = match_close(t, j + 1, pt->nt) + 1;
                else if (j + 1 < pt->nt && is_p(&t[j], "[") && is_p(&t[j + 1], "["))
                    j = match_close(t, j, pt->nt) + 1;
                else if (j < pt->nt && tok_in(pt, &t[j], device_words))
                    j++;
                else
                    break;
            }
            /* a definition (NAME {, NAME : base, NAME final), not `struct timespec *ts` */
            size_t e = j + 1;
            if (e < pt->nt && tok_eq(pt, &t[e], "final"))
                e++;
            if (j < pt->nt && t[j].kind == TK_IDENT && e < pt->nt &&
                (is_p(&t[e], "{") || is_p(&t[e], ":")))
                rc = map_add(&h->cand_scopes, pt->s + t[j].start, t[j].end - t[j].start);
        }
    }
    const ptext *bt = &h->base;
    for (int pass = 0; pass < 2 && !rc; pass++) {
        const tok *t = pass ? bt->dt : bt->t;
        size_t n = pass ? bt->ndt : bt->nt;
        for (size_t k = 0; k < n && !rc; k++)
            if (t[k].kind == TK_IDENT)
                rc = map_add(&h->base_names, bt->s + t[k].start, t[k].end - t[k].start);
    }
    return rc;
}

/* Device-kind items that still make or change host symbols (session 51): outside function
 * bodies (class bodies are read, members included), an attribute that defines or redirects
 * a symbol (alias, ifunc, weakref, symver) or an asm label (`int f(...) asm("clock_gettime")`,
 * `extern ... cudaEventElapsedTime(...) asm("mine")`: the name the host code calls or
 * defines is not the one written); a `__host__ __device__` function -- compiled for the
 * host too -- and a friend defined in a class that replace a library's or the harness's
 * (head_interposes, or C linkage or a library namespace from a block around the item). */
static void check_host_symbols(hc *h, const ptext *pt, const split *sp, const item *it)
{
    const tok *t = pt->t;
    static const char *const asm_words[] = {"asm", "__asm__", "__asm", NULL};
    size_t s0 = it->a, fb = NONE;
    for (size_t k = it->a; k < it->b; k++) {
        const tok *tk = &t[k];
        if (is_p(tk, ";") || is_p(tk, "}")) {
            s0 = k + 1;
            continue;
        }
        if (is_p(tk, "{")) {
            if (fb == NONE)
                fb = k;
            bool fn = false, friend_ = false;
            for (size_t j = s0; j < k; j++) {
                fn = fn || (is_p(&t[j], "(") && !(j > s0 && tok_in(pt, &t[j - 1], attr_words)));
                friend_ = friend_ || tok_eq(pt, &t[j], "friend");
            }
            if (friend_ && fn && head_interposes(pt, s0, k)) {
                report(h, t[s0].start, EN(HC_HOST_DEVICE_INTERPOSE));
            } else if (friend_ && fn) { /* session 52: a friend compiled for the host */
                static const char *const dev[] = {"__device__", NULL}, *const host[] = {
                                                                          "__host__", NULL};
                bool device_only = depth0_has(pt, s0, k, dev) && !depth0_has(pt, s0, k, host);
                if (!device_only && !in_own_namespace(h, pt, sp, it->block) &&
                    !own_friend(h, pt, s0, k))
                    report(h, t[s0].start, EN(HC_HOST_DEVICE_REACHABLE));
            }
            if (fn) /* a function's body: its asm is device code */
                k = match_close(t, k, it->b);
            s0 = k + 1;
            continue;
        }
        if (tk->kind != TK_IDENT || k + 1 >= it->b || !is_p(&t[k + 1], "("))
            continue;
        if (tok_in(pt, tk, symbol_attr_words))
            report(h, tk->start, EN(HC_SYMBOL_ATTR));
        else if (tok_in(pt, tk, asm_words))
            report(h, tk->start, EN(HC_ASM_LABEL));
    }
    size_t p = skip_templates(pt, it->a, it->b);
    /* session 52: `using namespace own;` / `using own::f;` outside a scope of the candidate's
     * own brings its functions into the host code's lookup */
    bool alias = false; /* `using T = ...;` declares a type, not a lookup */
    for (size_t k = p; k < it->b && !alias; k++)
        alias = is_p(&t[k], "=");
    if (p < it->b && tok_eq(pt, &t[p], "using") && !alias &&
        !in_own_namespace(h, pt, sp, it->block))
        for (size_t k = p + 1; k < it->b; k++)
            if (own_scope(h, pt, &t[k])) {
                report(h, t[it->a].start, EN(HC_USING_OWN_NAMESPACE));
                break;
            }
    if (fb == NONE || fb <= p || !depth0_has(pt, p, fb, (const char *const[]){"__host__", NULL}))
        return;
    bool interposes = in_linkage_block(pt, sp, it->block) || head_interposes(pt, p, fb);
    if (interposes)
        report(h, t[it->a].start, EN(HC_HOST_DEVICE_INTERPOSE));
    for (size_t k = p; k < fb; k++) { /* `__host__ __device__ S::~S() {...}` */
        if (!is_p(&t[k], "(") || (k > p && tok_in(pt, &t[k - 1], attr_words))) {
            if (is_open(&t[k]))
                k = match_close(t, k, fb);
            continue;
        }
        if (k >= p + 2 && is_p(&t[k - 2], "~") && t[k - 1].kind == TK_IDENT)
            report(h, t[it->a].start, EN(HC_HOST_DTOR));
        break; /* the first parameter list only */
    }
    if (!interposes && !in_own_namespace(h, pt, sp, it->block) && !own_function(h, pt, p, fb))
        report(h, t[it->a].start, EN(HC_HOST_DEVICE_REACHABLE));
}

/* A typedef or alias declaration that defines a class (`typedef struct S {...} T;`,
 * `using T = struct S {...};`): its static inline members are checked as a type
 * definition's are (they are host variables with initializers of their own). */
static void check_alias_types(hc *h, const ptext *pt, size_t a, size_t b)
{
    size_t p = skip_templates(pt, a, b);
    if (p >= b || !(tok_eq(pt, &pt->t[p], "typedef") || tok_eq(pt, &pt->t[p], "using")))
        return;
    for (size_t k = p; k < b; k++) {
        if (!is_open(&pt->t[k]))
            continue;
        size_t close = match_close(pt->t, k, b);
        if (is_p(&pt->t[k], "{"))
            check_type_members(h, pt, k, close < b ? close : b - 1);
        k = close;
    }
}

/* Session 52: a type the baseline's host code uses, defined again differently by the
 * candidate (a struct's members reordered or resized, a typedef or alias to another type, an
 * enumerator's value): the host code kept from the baseline would be compiled against the
 * candidate's definition while the device code reads it as the candidate wrote it, so
 * buffers the host allocates or fills by the old layout are read by the new one. Checked on
 * type definitions, typedefs, alias declarations and enumerators of an item that is not the
 * baseline's; the names the host code uses are base_host_names. Reports the first name. */
static void check_host_types(hc *h, const ptext *pt, size_t a, size_t b)
{
    const tok *t = pt->t;
    size_t p = skip_templates(pt, a, b);
    if (p >= b)
        return;
    size_t name = NONE;
    bool typedef_ = tok_eq(pt, &t[p], "typedef"), using_ = tok_eq(pt, &t[p], "using");
    if (using_ && p + 2 < b && t[p + 1].kind == TK_IDENT && is_p(&t[p + 2], "="))
        name = p + 1; /* using T = ...; */
    size_t depth = 0, last_ident = NONE;
    bool in_enum_body = false;
    size_t enum_depth = 0;
    for (size_t k = p; k < b && name == NONE; k++) {
        const tok *tk = &t[k];
        if ((tok_eq(pt, tk, "struct") || tok_eq(pt, tk, "class") || tok_eq(pt, tk, "union") ||
             tok_eq(pt, tk, "enum")) &&
            !(k > p && tok_eq(pt, &t[k - 1], "enum"))) {
            size_t j = k + 1;
            if (tok_eq(pt, tk, "enum") && j < b &&
                (tok_eq(pt, &t[j], "class") || tok_eq(pt, &t[j], "struct")))
                j++;
            for (;;) { /* attributes before the name */
                if (j + 1 < b && tok_in(pt, &t[j], attr_words) && is_p(&t[j + 1], "("))
                    j = match_close(t, j + 1, b) + 1;
                else if (j + 1 < b && is_p(&t[j], "[") && is_p(&t[j + 1], "["))
                    j = match_close(t, j, b) + 1;
                else if (j < b && tok_in(pt, &t[j], device_words))
                    j++;
                else
                    break;
            }
            size_t e = j + 1;
            if (e < b && tok_eq(pt, &t[e], "final"))
                e++;
            if (j < b && t[j].kind == TK_IDENT && e < b &&
                (is_p(&t[e], "{") || is_p(&t[e], ":") || is_p(&t[e], "<")) &&
                map_has(&h->base_host_names, pt->s + t[j].start, t[j].end - t[j].start))
                name = j;
            if (tok_eq(pt, tk, "enum")) {
                in_enum_body = true;
                enum_depth = depth + 1;
            }
            continue;
        }
        if (is_open(tk)) {
            depth++;
            continue;
        }
        if (is_close(tk)) {
            if (in_enum_body && depth == enum_depth && is_p(tk, "}"))
                in_enum_body = false;
            depth -= depth > 0;
            continue;
        }
        /* an enumerator: first in its body or after a comma at the body's depth */
        if (in_enum_body && depth == enum_depth && tk->kind == TK_IDENT &&
            (is_p(&t[k - 1], "{") || is_p(&t[k - 1], ",")) &&
            map_has(&h->base_host_names, pt->s + tk->start, tk->end - tk->start))
            name = k;
        /* a typedef's names: identifiers at depth 0 right before `,` or the end */
        if (typedef_ && depth == 0 && tk->kind == TK_IDENT)
            last_ident = k;
        if (typedef_ && depth == 0 && (is_p(tk, ",") || is_p(tk, ";")) && last_ident != NONE &&
            map_has(&h->base_host_names, pt->s + t[last_ident].start,
                    t[last_ident].end - t[last_ident].start))
            name = last_ident;
    }
    if (typedef_ && name == NONE && last_ident != NONE &&
        map_has(&h->base_host_names, pt->s + t[last_ident].start,
                t[last_ident].end - t[last_ident].start))
        name = last_ident;
    if (using_ && name != NONE && name == p + 1 &&
        !map_has(&h->base_host_names, pt->s + t[name].start, t[name].end - t[name].start))
        name = NONE;
    if (name != NONE)
        report_name(h, t[a].start, EN(HC_HOST_TYPE), pt, &t[name]);
}

static int scan_items(hc *h)
{
    ptext *pt = &h->cand;
    int rc = split_items(h, pt, &h->cs, true);
    if (!rc)
        rc = block_ids(h, pt, &h->cs, true);
    /* namespace and extern heads are no item: `namespace N _Pragma("redefine_extname ...")
     * {` hid a pragma there (session 51) */
    for (size_t i = 0; !rc && i < h->cs.nbl; i++)
        rc = check_tokens(h, pt, pt->t, h->cs.bl[i].a, h->cs.bl[i].b);
    for (size_t i = 0; !rc && i < h->cs.nit; i++) {
        const item *it = &h->cs.it[i];
        iclass c = classify(pt, it->a, it->b);
        if (c.kind == IK_EMPTY)
            continue;
        if ((rc = item_key(pt, &h->cs, it, &h->key)))
            break;
        bool host = c.kind != IK_ALLOWED && c.kind != IK_TYPE;
        if (map_take(&h->base_items, h->key.data, h->key.len)) {
            for (size_t k = it->a; host && k < it->b && !rc; k++) /* names host code uses */
                if (pt->t[k].kind == TK_IDENT)
                    rc = map_add(&h->host_ids, pt->s + pt->t[k].start,
                                 pt->t[k].end - pt->t[k].start);
            continue;
        }
        if (!host) {
            if ((rc = check_tokens(h, pt, pt->t, it->a, it->b)))
                break;
            check_hidden_decls(h, pt, it->a, it->b);
            check_host_types(h, pt, it->a, it->b);
            if (c.kind == IK_TYPE)
                check_type_members(h, pt, c.body, c.close);
            else
                check_alias_types(h, pt, it->a, it->b);
            check_host_symbols(h, pt, &h->cs, it);
            continue;
        }
        const char *why = host_why(c.kind, false);
        for (size_t k = it->a; k < it->b; k++)
            if (tok_in(pt, &pt->t[k], ctor_words)) {
                const char *p = pt->s + pt->t[k].start;
                why = p[0] == 'd' || p[2] == 'd' ? why_dtor : why_ctor;
                break;
            }
        size_t len = 0;
        const char *name = c.name != NONE ? tok_text(pt, &pt->t[c.name], &len) : NULL;
        if (why == host_why(IK_FUNC, false) && name && map_has(&h->base_funcs, name, len))
            report_name(h, pt->t[it->a].start, host_why(IK_FUNC, true), pt, &pt->t[c.name]);
        else
            report(h, pt->t[it->a].start, why);
    }
    return rc;
}

/* Why a #define/#undef of this name is aimed at the harness or the scan, or NULL. */
static const char *define_name_why(hc *h, const char *p, size_t len, bool undef)
{
    if (memchr(p, '\\', len))
        return undef ? EN(HC_UNDEF_UCN) : EN(HC_DEFINE_UCN);
    if (is_harness_name(p, len))
        return undef ? EN(HC_UNDEF_HARNESS) : EN(HC_DEFINE_HARNESS);
    if ((len >= 2 && p[0] == '_' && (p[1] == '_' || (p[1] >= 'A' && p[1] <= 'Z'))) ||
        in_list(p, len, keywords) || in_list(p, len, cuda_builtins) ||
        in_list(p, len, device_words))
        return undef ? EN(HC_UNDEF_RESERVED) : EN(HC_DEFINE_RESERVED);
    if (map_has(&h->host_ids, p, len))
        return undef ? EN(HC_UNDEF_HOST_NAME) : EN(HC_DEFINE_HOST_NAME);
    return NULL;
}

/* Whether p (len bytes, the text between < and >) names a header: no path component that
 * starts with '.' (.env, .git/, .hyperkernel/), and a last component with a header's
 * extension, or none for the C++ library's own headers and libcu++'s (cuda/..., nv/...).
 * An angle include is searched in every -I folder, the spec's own among them, and what it
 * reads is compiled in or quoted back by the compiler's errors ("null character(s)
 * ignored" with the bytes): `#include <.env>` or a reference output under the project would
 * reach the candidate's image or its diagnostics, which go back to whoever wrote it. */
static bool header_name(const char *p, size_t len)
{
    static const char *const exts[] = {"h", "hh", "hpp", "hxx", "h++", "cuh", "inl", "ipp",
                                       "tcc", "tpp", NULL};
    static const char *const std_headers[] = {
        "algorithm", "any", "array", "atomic", "barrier", "bit", "bitset", "cassert",
        "ccomplex", "cctype", "cerrno", "cfenv", "cfloat", "charconv", "chrono", "cinttypes",
        "ciso646", "climits", "clocale", "cmath", "codecvt", "compare", "complex", "concepts",
        "condition_variable", "coroutine", "csetjmp", "csignal", "cstdalign", "cstdarg",
        "cstdbool", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "ctgmath", "ctime",
        "cuchar", "cwchar", "cwctype", "deque", "exception", "execution", "expected",
        "filesystem", "format", "forward_list", "fstream", "functional", "future",
        "initializer_list", "iomanip", "ios", "iosfwd", "iostream", "istream", "iterator",
        "latch", "limits", "list", "locale", "map", "memory", "memory_resource", "mutex", "new",
        "numbers", "numeric", "optional", "ostream", "queue", "random", "ranges", "ratio",
        "regex", "scoped_allocator", "semaphore", "set", "shared_mutex", "source_location",
        "span", "sstream", "stack", "stdexcept", "stop_token", "streambuf", "string",
        "string_view", "syncstream", "system_error", "thread", "tuple", "type_traits",
        "typeindex", "typeinfo", "unordered_map", "unordered_set", "utility", "valarray",
        "variant", "vector", "version", NULL};
    size_t last = 0;
    for (size_t i = 0; i < len; i++) {
        if ((i == 0 || p[i - 1] == '/') && p[i] == '.')
            return false;
        if (p[i] == '/')
            last = i + 1;
    }
    const char *name = p + last, *dot = NULL;
    size_t nl = len - last;
    for (size_t i = 0; i < nl; i++)
        if (name[i] == '.')
            dot = name + i;
    if (dot) {
        size_t el = nl - (size_t)(dot + 1 - name);
        for (size_t i = 0; exts[i]; i++)
            if (strlen(exts[i]) == el && !memcmp(dot + 1, exts[i], el))
                return true;
        return false;
    }
    if ((len > 5 && !memcmp(p, "cuda/", 5)) || (len > 3 && !memcmp(p, "nv/", 3)))
        return true;
    if (last)
        return false;
    for (size_t i = 0; std_headers[i]; i++)
        if (strlen(std_headers[i]) == nl && !memcmp(name, std_headers[i], nl))
            return true;
    return false;
}

/* The header name of an angle include d (between < and >), or NULL. */
static const char *angle_name(const ptext *pt, const pdir *d, size_t *len)
{
    if (d->count != 3 || !tok_eq(pt, &pt->dt[d->first + 1], "include"))
        return NULL;
    const tok *hn = &pt->dt[d->first + 2];
    const char *p = pt->s + hn->start;
    size_t l = hn->end - hn->start;
    if (hn->kind != TK_HEADER || l < 3 || p[0] != '<' || p[l - 1] != '>')
        return NULL;
    *len = l - 2;
    return p + 1;
}

static bool include_is_relative(const ptext *pt, const pdir *d)
{
    size_t len;
    const char *p = angle_name(pt, d, &len);
    if (!p)
        return false;
    if (p[0] == '/' || memchr(p, '\\', len) || memchr(p, '\0', len))
        return false;
    for (size_t i = 0; i + 1 < len; i++)
        if (p[i] == '.' && p[i + 1] == '.')
            return false;
    return header_name(p, len);
}

static bool include_is_outside(const ptext *pt, const pdir *d)
{
    if (d->count < 3)
        return false;
    const tok *hn = &pt->dt[d->first + 2];
    const char *p = pt->s + hn->start;
    size_t len = hn->end - hn->start;
    if (hn->kind != TK_HEADER || len < 2)
        return false;
    if (p[1] == '/' || p[1] == '~' || memchr(p, '\\', len))
        return true;
    for (size_t i = 0; i + 1 < len; i++)
        if (p[i] == '.' && p[i + 1] == '.')
            return true;
    return false;
}

static const char *directive_why(const ptext *pt, const pdir *d)
{
    const tok *nm = &pt->dt[d->first + 1];
    if (tok_eq(pt, nm, "line"))
        return EN(HC_LINE);
    if (tok_eq(pt, nm, "embed"))
        return EN(HC_EMBED);
    if (tok_eq(pt, nm, "include_next") || tok_eq(pt, nm, "import"))
        return include_is_outside(pt, d) ? EN(HC_INCLUDE_OUTSIDE) : EN(HC_INCLUDE_NEXT);
    size_t an = 0;
    const char *a = angle_name(pt, d, &an);
    if (tok_eq(pt, nm, "include") && !include_is_outside(pt, d) && a && !header_name(a, an))
        return EN(HC_INCLUDE_NOT_HEADER);
    if (tok_eq(pt, nm, "include"))
        return include_is_outside(pt, d) ? EN(HC_INCLUDE_OUTSIDE) : EN(HC_INCLUDE_NEW);
    if (dir_cond_kind(pt, d) != COND_NONE)
        return EN(HC_COND_NEW);
    if (tok_eq(pt, nm, "pragma"))
        return EN(HC_PRAGMA_NEW);
    return EN(HC_PP_LINE_NEW);
}

static int scan_directives(hc *h)
{
    ptext *pt = &h->cand;
    for (size_t i = 0; i < pt->nd; i++) {
        const pdir *d = &pt->d[i];
        const tok *t = pt->dt + d->first;
        if (d->count == 1)
            continue; /* the null directive */
        if (t[1].kind != TK_IDENT) {
            report(h, d->start, EN(HC_PP_LINE_NEW));
            continue;
        }
        if (tok_eq(pt, &t[1], "pragma") && d->count >= 3 &&
            (tok_eq(pt, &t[2], "unroll") || (tok_eq(pt, &t[2], "nounroll") && d->count == 3))) {
            bool plain = true;
            for (size_t k = 3; k < d->count; k++)
                plain = plain && (t[k].kind == TK_IDENT || t[k].kind == TK_NUMBER ||
                                  (t[k].kind == TK_PUNCT && !is_p(&t[k], "#") &&
                                   !is_p(&t[k], "##")));
            if (plain)
                continue;
        }
        if (include_is_relative(pt, d))
            continue;
        int rc = dir_key(pt, d, &h->key);
        if (rc)
            return rc;
        bool known = map_take(&h->base_dirs, h->key.data, h->key.len);
        bool define = tok_eq(pt, &t[1], "define"), undef = tok_eq(pt, &t[1], "undef");
        if (known)
            continue;
        if (!define && !undef) {
            report(h, d->start, directive_why(pt, d));
            continue;
        }
        if (d->count < 3 || t[2].kind != TK_IDENT || (undef && d->count != 3)) {
            report(h, d->start, define ? EN(HC_DEFINE_NO_NAME) : EN(HC_UNDEF_NO_NAME));
            continue;
        }
        const char *why = define_name_why(h, pt->s + t[2].start, t[2].end - t[2].start, undef);
        if (why) {
            report_name(h, d->start, why, pt, &t[2]);
            continue;
        }
        size_t nm, x, y;
        if (!define || !define_body(pt, d, &nm, &x, &y))
            continue;
        for (size_t k = x; k < y; k++)
            if (is_p(&pt->dt[k], "#") || is_p(&pt->dt[k], "##")) {
                report(h, d->start, EN(HC_MACRO_PASTES));
                break;
            }
        /* brackets that do not balance inside the body: every use then opens or closes a
         * bracket the scan cannot see (`#define RP )` in `if ((i < n) RP` leaves the scan a
         * parenthesis deep for the rest of the text, so whatever follows, host code
         * included, reads as part of the kernel) */
        long depth[3] = {0, 0, 0};
        static const char *const opens[3] = {"(", "[", "{"}, *const closes[3] = {")", "]", "}"};
        bool unbalanced = false;
        for (size_t k = x; k < y && !unbalanced; k++)
            for (int b = 0; b < 3; b++) {
                depth[b] += is_p(&pt->dt[k], opens[b]) - is_p(&pt->dt[k], closes[b]);
                unbalanced = unbalanced || depth[b] < 0;
            }
        if (unbalanced || depth[0] || depth[1] || depth[2]) {
            report(h, d->start, EN(HC_MACRO_UNBALANCED));
            continue;
        }
        if ((rc = check_tokens(h, pt, pt->dt, x, y)))
            return rc;
    }
    return HK_OK;
}

static int make_finding(hc *h, hostcode_finding *out)
{
    const char *s = h->cand.orig;
    size_t n = h->cand.orig_len, off = h->f.off, a, b;
    if (off > n)
        off = n;
    unsigned line = 1;
    for (size_t i = 0; i < off; i++)
        line += s[i] == '\n' || (s[i] == '\r' && eol_len(s, n, i) == 1);
    line_span(s, n, off, &a, &b);
    bool cut = b - a > HOSTCODE_QUOTE_MAX;
    if (cut) {
        b = a + HOSTCODE_QUOTE_MAX;
        while (b > a && ((unsigned char)s[b] & 0xc0) == 0x80)
            b--; /* not inside a UTF-8 sequence */
    }
    int rc = HK_ENOMEM;
    char *quote = hk_asprintf("%.*s%s", (int)(b - a), s + a, cut ? "..." : "");
    /* "WHY (NAME)": the table's HC_*_NAMED entries read it back (hk_tr_said) */
    char *why = h->f.name ? hk_asprintf("%s (%.*s)", h->f.why, (int)h->f.name_len, h->f.name)
                          : hk_strdup(h->f.why);
    if (!quote || !why)
        goto out;
    for (char *c = quote; *c; c++) /* a quote is one line of text for a report */
        if ((unsigned char)*c < 0x20 && *c != '\t')
            *c = ' ';
    *out = (hostcode_finding){true, line, quote, why};
    quote = why = NULL;
    rc = HK_OK;
out:
    hk_free(quote);
    hk_free(why);
    return rc;
}

void hostcode_finding_clear(hostcode_finding *f)
{
    if (!f)
        return;
    hk_free(f->quote);
    hk_free(f->why);
    memset(f, 0, sizeof *f);
}

int hostcode_check(const char *base, size_t base_len, const char *cand, size_t cand_len,
                   hostcode_finding *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!base || !cand || !out)
        return HK_EINVAL;
    if (base_len > HOSTCODE_TEXT_MAX || cand_len > HOSTCODE_TEXT_MAX)
        return HK_ETOOBIG;
    hc h;
    memset(&h, 0, sizeof h);
    h.base.orig = base;
    h.base.orig_len = base_len;
    h.cand.orig = cand;
    h.cand.orig_len = cand_len;
    hk_buf_init(&h.key, KEY_MAX);
    hk_buf_init(&h.lit, KEY_MAX);
    int rc;
    if ((rc = lex_text(&h.base)) || (rc = lex_text(&h.cand)) || (rc = scan_base(&h)) ||
        (rc = check_raw_text(&h)) || (rc = find_dangerous_macros(&h)) || (rc = collect_scopes(&h)) ||
        (rc = scan_items(&h)) ||
        (rc = scan_directives(&h)))
        goto out;
    if (h.f.set)
        rc = make_finding(&h, out);
out:
    ptext_free(&h.base);
    ptext_free(&h.cand);
    hk_free(h.bs.it);
    hk_free(h.bs.bl);
    hk_free(h.cs.it);
    hk_free(h.cs.bl);
    map_free(&h.base_items);
    map_free(&h.base_dirs);
    map_free(&h.base_funcs);
    map_free(&h.base_viol);
    map_free(&h.base_trig);
    map_free(&h.base_blocks);
    map_free(&h.host_ids);
    map_free(&h.macros);
    map_free(&h.danger);
    map_free(&h.danger0);
    map_free(&h.base_names);
    map_free(&h.base_host_names);
    map_free(&h.cand_scopes);
    hk_buf_free(&h.key);
    hk_buf_free(&h.lit);
    if (rc)
        hostcode_finding_clear(out);
    return rc;
}
