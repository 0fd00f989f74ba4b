/* CUDA/HIP analysis: walks the tree-sitter-cuda tree and builds an an_model.
 * The model is kept per top-level item (function, template, declaration, #define) so
 * that after an incremental parse only items that changed are walked again; the flat
 * model is then re-assembled from the items, which costs little (copies, no walking). */
#include "analysis/analysis.h"

#include <malloc.h>
#include <stdatomic.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tree_sitter/api.h>

#include "analysis/chunks.h"
#include "core/hk.h"
#include "core/i18n.h"

const TSLanguage *tree_sitter_cuda(void);

#define AN_STR_MAX 4096          /* longest string copied out of the source */
#define AN_DEPTH_MAX (1u << 16)  /* deeper syntax is not walked (it is never CUDA) */
#define AN_EXPAND_MAX 4096       /* uses added per function through local variables */
#define AN_PROPAGATE_ROUNDS 64   /* tunable-to-tunable chains followed */

/* ---------------------------------------------------------------- grammar symbols */

static struct {
    bool ready;
    TSSymbol translation_unit, function_definition, template_declaration,
        template_parameter_list, parameter_declaration, optional_parameter_declaration,
        variadic_parameter_declaration, function_declarator, pointer_declarator,
        reference_declarator, array_declarator, parenthesized_declarator,
        attributed_declarator, abstract_pointer_declarator, abstract_array_declarator,
        abstract_reference_declarator, abstract_parenthesized_declarator,
        abstract_function_declarator, init_declarator, identifier, field_identifier,
        qualified_identifier, template_function, template_argument_list,
        compound_statement, declaration, field_declaration, preproc_def, call_expression,
        kernel_call_syntax, argument_list, launch_bounds, type_qualifier,
        storage_class_specifier, comment, error, namespace_definition, declaration_list,
        linkage_specification, preproc_if, preproc_ifdef, preproc_else, preproc_elif,
        cast_expression, parenthesized_expression, pointer_expression, number_literal,
        string_literal, raw_string_literal, char_literal, concatenated_string,
        binary_expression, unary_expression, sizeof_expression, primitive_type,
        sized_type_specifier, type_identifier, placeholder_type_specifier,
        preproc_include, template_type, field_expression;
    TSFieldId f_declarator, f_type, f_body, f_parameters, f_name, f_value, f_size,
        f_function, f_arguments, f_default_value;
    /* Structural symbols (statements, declarations, declarators, containers) are
     * always walked; any other subtree only when its text could hold a launch. */
    bool all_structural;
    unsigned char structural[2048];
} S;

static TSSymbol sym(const TSLanguage *l, const char *name)
{
    return ts_language_symbol_for_name(l, name, (uint32_t)strlen(name), true);
}

static TSFieldId fld(const TSLanguage *l, const char *name)
{
    return ts_language_field_id_for_name(l, name, (uint32_t)strlen(name));
}

/* Fills S once; an_grammar_check calls it at start, an_doc_new in case it did not. */
static void syms_init(void)
{
    if (S.ready)
        return;
    const TSLanguage *l = tree_sitter_cuda();
#define X(n) S.n = sym(l, #n)
    X(translation_unit); X(function_definition); X(template_declaration);
    X(template_parameter_list); X(parameter_declaration); X(optional_parameter_declaration);
    X(variadic_parameter_declaration); X(function_declarator); X(pointer_declarator);
    X(reference_declarator); X(array_declarator); X(parenthesized_declarator);
    X(attributed_declarator); X(abstract_pointer_declarator); X(abstract_array_declarator);
    X(abstract_reference_declarator); X(abstract_parenthesized_declarator);
    X(abstract_function_declarator); X(init_declarator); X(identifier); X(field_identifier);
    X(qualified_identifier); X(template_function); X(template_argument_list);
    X(compound_statement); X(declaration); X(field_declaration); X(preproc_def);
    X(call_expression); X(kernel_call_syntax); X(argument_list); X(launch_bounds);
    X(type_qualifier); X(storage_class_specifier); X(comment); X(namespace_definition);
    X(declaration_list); X(linkage_specification); X(preproc_if); X(preproc_ifdef);
    X(preproc_else); X(preproc_elif); X(cast_expression); X(parenthesized_expression);
    X(pointer_expression); X(number_literal); X(string_literal); X(raw_string_literal);
    X(char_literal); X(concatenated_string); X(binary_expression); X(unary_expression);
    X(sizeof_expression); X(primitive_type); X(sized_type_specifier); X(type_identifier);
    X(placeholder_type_specifier); X(preproc_include); X(template_type); X(field_expression);
#undef X
    S.error = (TSSymbol)-1;   /* ts_builtin_sym_error (tree_sitter/parser.h) */
#define F(n) S.f_##n = fld(l, #n)
    F(declarator); F(type); F(body); F(parameters); F(name); F(value); F(size);
    F(function); F(arguments); F(default_value);
#undef F
    static const char *const structural[] = {
        "translation_unit", "function_definition", "template_declaration",
        "compound_statement", "if_statement", "else_clause", "for_statement",
        "for_range_loop", "while_statement", "do_statement", "switch_statement",
        "case_statement", "labeled_statement", "try_statement", "catch_clause",
        "declaration", "field_declaration", "field_declaration_list", "class_specifier",
        "struct_specifier", "union_specifier", "init_declarator", "array_declarator",
        "pointer_declarator", "reference_declarator", "function_declarator",
        "parenthesized_declarator", "attributed_declarator", "parameter_list",
        "parameter_declaration", "optional_parameter_declaration", "namespace_definition",
        "declaration_list", "linkage_specification", "preproc_if", "preproc_ifdef",
        "preproc_else", "preproc_elif", "preproc_def", "launch_bounds",
        "alias_declaration", "type_definition", "friend_declaration"};
    uint32_t count = ts_language_symbol_count(l);
    S.all_structural = count > sizeof(S.structural);
    for (size_t i = 0; i < HK_ARRAY_LEN(structural); i++) {
        TSSymbol t = sym(l, structural[i]);
        if (t && t < sizeof(S.structural))
            S.structural[t] = 1;
    }
    S.ready = true;
}

int an_grammar_check(const char **why)
{
    static const char *ok = "tree-sitter-cuda grammar loads";
    const TSLanguage *l = tree_sitter_cuda();
    uint32_t v = ts_language_version(l);
    if (v > TREE_SITTER_LANGUAGE_VERSION) {
        *why = hk_tr_in(HK_LANG_EN, HK_MSG_ANX_GRAMMAR_NEWER);
        return HK_EUNSUPPORTED;
    }
    if (v < TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION) {
        *why = hk_tr_in(HK_LANG_EN, HK_MSG_ANX_GRAMMAR_OLDER);
        return HK_EUNSUPPORTED;
    }
    TSParser *p = ts_parser_new();
    bool set = p && ts_parser_set_language(p, l);
    if (p)
        ts_parser_delete(p);
    if (!set) {
        *why = hk_tr_in(HK_LANG_EN, HK_MSG_ANX_GRAMMAR_REFUSED);
        return HK_EUNSUPPORTED;
    }
    syms_init();   /* only once the layout is known to match */
    *why = ok;
    return HK_OK;
}

/* ---------------------------------------------------------------- small helpers */

/* Grows *p (element size es) to hold at least need elements. */
static int vec_reserve(void *pp, size_t *cap, size_t need, size_t es)
{
    void **p = pp;
    if (need <= *cap)
        return HK_OK;
    size_t nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    if (nc > SIZE_MAX / es)
        return HK_ENOMEM;
    void *np = hk_realloc(*p, nc * es);
    if (!np)
        return HK_ENOMEM;
    *p = np;
    *cap = nc;
    return HK_OK;
}

#define VEC(T) struct { T *v; size_t n, cap; }
#define VEC_PUSH(x, vec) \
    (vec_reserve(&(vec).v, &(vec).cap, (vec).n + 1, sizeof(*(vec).v)) == HK_OK \
         ? &(vec).v[(vec).n++] : ((x)->err = HK_ENOMEM, (void *)NULL))

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* ---------------------------------------------------------------- arena */

/* Every string and array of one item lives in its arena, so an item is freed (or
 * reused) as a whole. Chunks double in size from a first one sized to the item. */
struct an_ablock {
    struct an_ablock *next;
    size_t used, size;
    _Alignas(max_align_t) char data[];
};

struct an_arena {
    struct an_ablock *head;
    size_t hint;  /* size of the first chunk */
};

static void *arena_alloc(struct an_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    struct an_ablock *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t sz = c ? c->size * 2 : (a->hint ? a->hint : 1024);
        if (sz > ((size_t)1 << 24))
            sz = (size_t)1 << 24;
        if (sz < n)
            sz = n;
        c = hk_malloc(sizeof(*c) + sz);
        if (!c)
            return NULL;
        c->next = a->head;
        c->used = 0;
        c->size = sz;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

static void arena_free(struct an_arena *a)
{
    struct an_ablock *c = a->head;
    while (c) {
        struct an_ablock *n = c->next;
        hk_free(c);
        c = n;
    }
    a->head = NULL;
}

/* ---------------------------------------------------------------- items */

enum { USE_LAUNCH = 1, USE_ARRAY = 2 };
enum { MOD_GLOBAL = 1, MOD_DEVICE = 2, MOD_HOST = 4 };

/* A name used in a launch configuration or an array size anywhere in an item, with
 * the kinds of use (USE_LAUNCH | USE_ARRAY): what file-scope tunables are matched
 * against. Tunables owned by a function are resolved inside their item. */
struct an_gname {
    const char *name;
    uint32_t hash;
    unsigned kinds;
};

struct an_tref {       /* a name mentioned by a file-scope tunable's value */
    size_t tunable;    /* item-local */
    const char *name;
    uint32_t hash;
};

struct an_item {
    uint32_t start_byte, end_byte, start_row, end_row;
    TSSymbol symbol;
    bool had_error;                /* its unit held ERROR/MISSING nodes */
    bool dirty;                    /* an edit touched it: never reused */
    bool counted;                  /* its gnames are in the store's name table */
    int64_t shift_bytes, shift_rows; /* edits since the last parse moved it by this much: its
                                      * entries in the model are moved at the next */
    struct an_arena arena;
    an_function *funcs;            /* as extracted: once the item is in the flat model,
                                    * the model's copies are the ones kept up to date
                                    * (positions; params and shared are shared) */
    size_t n_funcs;
    size_t n_pool;                 /* launch indices of its functions, summed */
    size_t n_ppool, n_spool;       /* params and shared declarations of its functions */
    an_launch *launches;
    size_t n_launches;
    an_tunable *tunables;
    size_t n_tunables;
    struct an_gname *gnames;
    size_t n_gnames;
    struct an_tref *trefs;
    size_t n_trefs;
    const char *macro;             /* a `#define NAME` with __global__ & co. in its value:
                                    * NAME (in the arena), with its qualifiers in macro_mods */
    unsigned macro_mods;
};

static void item_free(struct an_item *it)
{
    arena_free(&it->arena);
    memset(it, 0, sizeof(*it));
}

static void span_shift(an_span *s, int64_t db, int64_t dr)
{
    s->start_byte = (uint32_t)((int64_t)s->start_byte + db);
    s->end_byte = (uint32_t)((int64_t)s->end_byte + db);
    s->start_row = (uint32_t)((int64_t)s->start_row + dr);
    s->end_row = (uint32_t)((int64_t)s->end_row + dr);
}

/* ---------------------------------------------------------------- macros */

/* `#define NAME tokens` whose tokens include __global__/__device__/__host__: such a
 * NAME written before a function means the same. File-wide; a change re-extracts all. */
struct an_macro {
    char *name;
    unsigned mods;
};

static bool is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

static unsigned mods_in_text(const char *s, size_t n)
{
    unsigned m = 0;
    size_t i = 0;
    while (i < n) {
        if (!is_ident_char(s[i])) {
            i++;
            continue;
        }
        size_t b = i;
        while (i < n && is_ident_char(s[i]))
            i++;
        size_t l = i - b;
        if (l == 10 && !memcmp(s + b, "__global__", 10))
            m |= MOD_GLOBAL;
        else if (l == 10 && !memcmp(s + b, "__device__", 10))
            m |= MOD_DEVICE;
        else if (l == 8 && !memcmp(s + b, "__host__", 8))
            m |= MOD_HOST;
    }
    return m;
}

/* ---------------------------------------------------------------- extraction */

struct an_range {
    uint32_t s, e;
};

struct an_local {      /* a local variable and its initialiser (scanned when used) */
    struct an_range name;
    long func;
    TSNode value;
    unsigned expanded;
};

enum { FR_FUNC, FR_TEMPLATE };

struct an_frame {
    int kind;
    uint32_t end_byte;      /* the frame ends at the first node starting here or later */
    uint32_t depth;
    long func;              /* FR_FUNC: item-local index */
    TSNode node;
    bool bound;             /* FR_TEMPLATE: a function took it */
    bool launchy;           /* FR_FUNC: the body's text could hold a launch */
    size_t shared_base, flaunch_base, locals_base, uses_base;
};

struct an_rawuse {
    struct an_range name;
    long func;
    unsigned kind;
};

struct an_rawtref {
    size_t tunable;
    struct an_range name;
};

struct an_kids {
    TSNode parent;
    bool valid;
    TSNode *v;
    size_t n, cap;
};

struct an_rawgn {
    struct an_range name;
    uint32_t hash;
    unsigned kinds;
};

/* Extraction state; its vectors are reused across items to avoid allocations. */
struct an_x {
    const char *src;
    uint32_t len;
    const struct an_macro *macros;
    size_t n_macros;
    struct an_item *it;
    int err;
    VEC(an_function) funcs;
    VEC(unsigned char) fkeep;     /* per function: has launches or is not host */
    VEC(an_launch) launches;
    VEC(an_tunable) tunables;
    VEC(an_shared) shared;
    VEC(size_t) flaunch;          /* launches of the open functions (stack) */
    VEC(struct an_local) locals;
    VEC(struct an_rawuse) uses;
    VEC(struct an_rawtref) trefs;
    VEC(struct an_rawgn) gn;      /* the item's gnames being deduplicated */
    VEC(long) gtab;               /* open addressing over gn; cap is a power of two */
    VEC(struct an_frame) frames;
    VEC(TSNode) anc;              /* ancestors of the current node, by depth */
    VEC(an_param) params;
    VEC(char *) args;
    VEC(TSNode) tmpnodes;
    uint32_t error_depth;         /* depth of the outermost ERROR ancestor, or UINT32_MAX */
    struct an_kids kids[4];       /* children of ERROR nodes, see x_kids */
    size_t kids_next;
    /* helper cursors, reused LIFO: a new cursor costs an allocation */
    TSTreeCursor *curs[16];
    size_t n_curs, used_curs;
    TSTreeCursor fallback;        /* used past the pool or after ENOMEM */
    bool has_fallback;
};

static void x_free(struct an_x *x)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(x->kids); i++)
        hk_free(x->kids[i].v);
    for (size_t i = 0; i < x->n_curs; i++) {
        ts_tree_cursor_delete(x->curs[i]);
        hk_free(x->curs[i]);
    }
    if (x->has_fallback)
        ts_tree_cursor_delete(&x->fallback);
    hk_free(x->funcs.v); hk_free(x->fkeep.v); hk_free(x->launches.v); hk_free(x->tunables.v);
    hk_free(x->shared.v); hk_free(x->flaunch.v); hk_free(x->locals.v);
    hk_free(x->uses.v); hk_free(x->trefs.v); hk_free(x->gn.v); hk_free(x->gtab.v);
    hk_free(x->frames.v); hk_free(x->anc.v);
    hk_free(x->params.v); hk_free(x->args.v); hk_free(x->tmpnodes.v);
}

/* Does src[s, e) contain a or b (b may be NULL)? */
static bool x_has_text(const struct an_x *x, uint32_t s, uint32_t e, const char *a, const char *b)
{
    if (e <= s)
        return false;
    return memmem(x->src + s, e - s, a, strlen(a)) ||
           (b && memmem(x->src + s, e - s, b, strlen(b)));
}

/* A cursor at n, from the pool; give it back with cur_put (LIFO). Never NULL: past
 * the pool, or on ENOMEM (x->err set), a spare cursor serves. */
static TSTreeCursor *cur_get(struct an_x *x, TSNode n)
{
    if (x->used_curs < x->n_curs) {
        TSTreeCursor *c = x->curs[x->used_curs++];
        ts_tree_cursor_reset(c, n);
        return c;
    }
    if (!x->has_fallback) {
        x->fallback = ts_tree_cursor_new(n);
        x->has_fallback = true;
    }
    TSTreeCursor *c = x->n_curs < HK_ARRAY_LEN(x->curs) ? hk_malloc(sizeof(*c)) : NULL;
    if (!c) {
        if (x->n_curs < HK_ARRAY_LEN(x->curs))
            x->err = HK_ENOMEM;
        x->used_curs++;
        ts_tree_cursor_reset(&x->fallback, n);
        return &x->fallback;
    }
    *c = ts_tree_cursor_new(n);
    x->curs[x->n_curs++] = c;
    x->used_curs++;
    return c;
}

static void cur_put(struct an_x *x)
{
    x->used_curs--;
}

static an_span node_span(TSNode n)
{
    TSPoint a = ts_node_start_point(n), b = ts_node_end_point(n);
    an_span s = {ts_node_start_byte(n), ts_node_end_byte(n), a.row, a.column, b.row, b.column};
    return s;
}

static an_span empty_span_at_end(an_span s)
{
    s.start_byte = s.end_byte;
    s.start_row = s.end_row;
    s.start_col = s.end_col;
    return s;
}

/* Span from (row, col) at byte `from` to byte `to` on the same logical text. */
static an_span span_between(const char *src, uint32_t from, uint32_t row, uint32_t col,
                            uint32_t to)
{
    an_span s = {from, to, row, col, row, col};
    for (uint32_t i = from; i < to; i++) {
        if (src[i] == '\n') {
            s.end_row++;
            s.end_col = 0;
        } else {
            s.end_col++;
        }
    }
    return s;
}

/* Copy of src[s, e) into the item arena with comments dropped, each whitespace run
 * (line continuations and NUL bytes included) made one space, trimmed, at most
 * AN_STR_MAX bytes ("..." marks a cut, made on a UTF-8 boundary). */
static char *x_text(struct an_x *x, uint32_t s, uint32_t e)
{
    if (x->err)
        return NULL;
    if (e > x->len)
        e = x->len;
    if (s > e)
        s = e;
    size_t cap = e - s < AN_STR_MAX ? e - s : AN_STR_MAX;
    char *out = arena_alloc(&x->it->arena, cap + 4);
    if (!out) {
        x->err = HK_ENOMEM;
        return NULL;
    }
    const char *p = x->src;
    size_t o = 0;
    bool space = false, cut = false;
    char quote = 0;
    for (uint32_t i = s; i < e; i++) {
        char c = p[i];
        if (!quote && c == '/' && i + 1 < e && p[i + 1] == '/') {
            while (i < e && p[i] != '\n')
                i++;
            space = true;
            continue;
        }
        if (!quote && c == '/' && i + 1 < e && p[i + 1] == '*') {
            i += 2;
            while (i + 1 < e && !(p[i] == '*' && p[i + 1] == '/'))
                i++;
            i++;
            space = true;
            continue;
        }
        if (!quote && c == '\\' && i + 1 < e && (p[i + 1] == '\n' || p[i + 1] == '\r')) {
            space = true;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
            c == '\0') {
            space = true;
            continue;
        }
        if (quote) {
            if (c == '\\' && i + 1 < e) {
                if (o + 2 > cap) { cut = true; break; }
                out[o++] = c;
                out[o++] = p[++i];
                continue;
            }
            if (c == quote)
                quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        }
        if (space && o > 0) {
            if (o + 1 > cap) { cut = true; break; }
            out[o++] = ' ';
        }
        space = false;
        if (o + 1 > cap) { cut = true; break; }
        out[o++] = c;
    }
    if (cut) {
        while (o > 0 && ((unsigned char)out[o - 1] & 0xC0) == 0x80)
            o--;                        /* drop continuation bytes of a cut character */
        if (o > 0 && ((unsigned char)out[o - 1] & 0xC0) == 0xC0)
            o--;                        /* and its lead byte */
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

static char *x_node_text(struct an_x *x, TSNode n)
{
    return x_text(x, ts_node_start_byte(n), ts_node_end_byte(n));
}

static bool range_eq(const struct an_x *x, struct an_range r, const char *s)
{
    size_t l = strlen(s);
    return r.e - r.s == l && !memcmp(x->src + r.s, s, l);
}

static bool node_text_is(const struct an_x *x, TSNode n, const char *s)
{
    struct an_range r = {ts_node_start_byte(n), ts_node_end_byte(n)};
    return range_eq(x, r, s);
}

/* Modifiers named by node n: the CUDA keywords themselves, or a macro for them. */
static unsigned x_node_mods(const struct an_x *x, TSNode n)
{
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e - s > 64)
        return 0;
    unsigned m = mods_in_text(x->src + s, e - s);
    if (m)
        return m;
    TSSymbol t = ts_node_symbol(n);
    if (t == S.identifier || t == S.type_identifier) {
        for (size_t i = 0; i < x->n_macros; i++) {
            size_t l = strlen(x->macros[i].name);
            if (l == e - s && !memcmp(x->src + s, x->macros[i].name, l))
                return x->macros[i].mods;
        }
    }
    return 0;
}

/* Collects the identifiers under n (field names excluded) as ranges into refs. */
typedef void an_sink(struct an_x *x, struct an_range r, void *ctx);

static void x_collect_idents(struct an_x *x, TSNode n, an_sink *sink, void *ctx)
{
    if (ts_node_is_null(n))
        return;
    if (ts_node_symbol(n) == S.identifier || ts_node_symbol(n) == S.type_identifier) {
        struct an_range r = {ts_node_start_byte(n), ts_node_end_byte(n)};
        sink(x, r, ctx);
        return;
    }
    if (ts_node_child_count(n) == 0)
        return;
    TSTreeCursor *c = cur_get(x, n);
    uint32_t depth = 0;
    if (!ts_tree_cursor_goto_first_child(c))
        goto out;
    depth = 1;
    for (;;) {
        TSNode cur = ts_tree_cursor_current_node(c);
        TSSymbol t = ts_node_symbol(cur);
        if (t == S.identifier || t == S.type_identifier) {
            /* type_identifier: `dim3 block(TILE, ROWS)` parses as a function
             * declaration whose "parameter types" are the names */
            struct an_range r = {ts_node_start_byte(cur), ts_node_end_byte(cur)};
            sink(x, r, ctx);
        } else if (t != S.field_identifier && depth < AN_DEPTH_MAX &&
                   ts_tree_cursor_goto_first_child(c)) {
            depth++;
            continue;
        }
        while (!ts_tree_cursor_goto_next_sibling(c)) {
            if (--depth == 0 || !ts_tree_cursor_goto_parent(c))
                goto out;
        }
        if (x->err)
            break;
    }
out:
    cur_put(x);
}

struct use_ctx {
    long func;
    unsigned kind;
};

static void sink_use(struct an_x *x, struct an_range r, void *ctx)
{
    const struct use_ctx *u = ctx;
    struct an_rawuse *e = VEC_PUSH(x, x->uses);
    if (e) {
        e->name = r;
        e->func = u->func;
        e->kind = u->kind;
    }
}

static void sink_tref(struct an_x *x, struct an_range r, void *ctx)
{
    struct an_rawtref *e = VEC_PUSH(x, x->trefs);
    if (e) {
        e->tunable = *(size_t *)ctx;
        e->name = r;
    }
}

static const struct an_frame *x_cur_frame(const struct an_x *x)
{
    for (size_t i = x->frames.n; i-- > 0;)
        if (x->frames.v[i].kind == FR_FUNC)
            return &x->frames.v[i];
    return NULL;
}

static long x_cur_func(const struct an_x *x)
{
    for (size_t i = x->frames.n; i-- > 0;)
        if (x->frames.v[i].kind == FR_FUNC)
            return x->frames.v[i].func;
    return -1;
}

static void x_uses(struct an_x *x, TSNode n, unsigned kind)
{
    struct use_ctx u = {x_cur_func(x), kind};
    x_collect_idents(x, n, sink_use, &u);
}

/* Integer-literal spelling (decimal, octal, hex, binary; u/l suffixes; ' separators). */
static bool int_literal(const char *s, size_t n)
{
    if (!n || !(s[0] >= '0' && s[0] <= '9'))
        return false;
    bool hex = n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.' || c == 'p' || c == 'P')
            return false;
        if (!hex && (c == 'e' || c == 'E' || c == 'f' || c == 'F'))
            return false;
        if (!(is_ident_char(c) || c == '\''))
            return false;
    }
    return true;
}

/* Is n an integer expression (see analysis.h)? */
static bool x_int_expr(const struct an_x *x, TSNode n, int depth)
{
    if (ts_node_is_null(n) || depth > 64)
        return false;
    TSSymbol t = ts_node_symbol(n);
    if (t == S.number_literal) {
        uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
        return int_literal(x->src + s, e - s);
    }
    if (t == S.identifier || t == S.sizeof_expression)
        return true;
    if (t == S.binary_expression || t == S.unary_expression ||
        t == S.parenthesized_expression) {
        uint32_t nc = ts_node_named_child_count(n);
        if (nc == 0)
            return false;
        for (uint32_t i = 0; i < nc; i++) {
            TSNode c = ts_node_named_child(n, i);
            if (ts_node_symbol(c) == S.comment)
                continue;
            if (!x_int_expr(x, c, depth + 1))
                return false;
        }
        return true;
    }
    return false;
}

/* The same test on #define text (at least one integer literal); with report, the
 * identifiers go to the tunable's references. */
static bool x_int_define(struct an_x *x, uint32_t s, uint32_t e, size_t tun, bool report)
{
    const char *p = x->src;
    bool lit = false;
    for (uint32_t i = s; i < e;) {
        char c = p[i];
        if (c == '/' && i + 1 < e && (p[i + 1] == '/' || p[i + 1] == '*'))
            break;                       /* a trailing comment ends the value */
        if (c >= '0' && c <= '9') {
            uint32_t b = i;
            while (i < e && (is_ident_char(p[i]) || p[i] == '\''))
                i++;
            if (i < e && p[i] == '.')
                return false;
            if (!int_literal(p + b, i - b))
                return false;
            lit = true;
            continue;
        }
        if (is_ident_char(c)) {
            uint32_t b = i;
            while (i < e && is_ident_char(p[i]))
                i++;
            if (report) {
                struct an_range r = {b, i};
                sink_tref(x, r, &tun);
            }
            continue;
        }
        if (strchr(" \t\r\n\\+-*/%()<>&|^~!?:", c) && c != '\0') {
            i++;
            continue;
        }
        return false;
    }
    return lit;
}

/* Unwraps pointer/reference/parenthesized/attributed declarators down to the name;
 * counts pointer depth and notes __restrict__. */
static TSNode x_declarator_name(struct an_x *x, TSNode d, int *depth, bool *restrict_)
{
    TSNode none = {{0}, 0, 0};
    for (int guard = 0; !ts_node_is_null(d) && guard < 256; guard++) {
        TSSymbol t = ts_node_symbol(d);
        if (t == S.identifier || t == S.field_identifier || t == S.qualified_identifier ||
            t == S.template_function || t == S.type_identifier)
            return d;
        if (t == S.pointer_declarator || t == S.abstract_pointer_declarator) {
            if (depth)
                (*depth)++;
            uint32_t nc = ts_node_named_child_count(d);
            for (uint32_t i = 0; i < nc; i++) {
                TSNode q = ts_node_named_child(d, i);
                if (ts_node_symbol(q) == S.type_qualifier && restrict_ &&
                    (node_text_is(x, q, "__restrict__") || node_text_is(x, q, "restrict") ||
                     node_text_is(x, q, "__restrict")))
                    *restrict_ = true;
            }
            d = ts_node_child_by_field_id(d, S.f_declarator);
        } else if (t == S.array_declarator || t == S.abstract_array_declarator) {
            if (depth)
                (*depth)++;
            d = ts_node_child_by_field_id(d, S.f_declarator);
        } else if (t == S.function_declarator || t == S.abstract_function_declarator) {
            d = ts_node_child_by_field_id(d, S.f_declarator);
        } else if (t == S.init_declarator) {
            d = ts_node_child_by_field_id(d, S.f_declarator);
        } else if (t == S.reference_declarator || t == S.abstract_reference_declarator ||
                   t == S.parenthesized_declarator ||
                   t == S.abstract_parenthesized_declarator || t == S.attributed_declarator) {
            TSNode n2 = none;
            uint32_t nc = ts_node_named_child_count(d);
            for (uint32_t i = 0; i < nc; i++) {
                TSNode q = ts_node_named_child(d, i);
                TSSymbol qt = ts_node_symbol(q);
                if (qt != S.type_qualifier && qt != S.comment) {
                    n2 = q;
                    break;
                }
            }
            d = n2;
        } else {
            return none;
        }
    }
    return none;
}

/* Array sizes along a declarator chain count as array uses. */
static void x_array_uses(struct an_x *x, TSNode d)
{
    for (int guard = 0; !ts_node_is_null(d) && guard < 64; guard++) {
        TSSymbol t = ts_node_symbol(d);
        if (t == S.array_declarator || t == S.abstract_array_declarator) {
            x_uses(x, ts_node_child_by_field_id(d, S.f_size), USE_ARRAY);
            d = ts_node_child_by_field_id(d, S.f_declarator);
        } else if (t == S.pointer_declarator || t == S.abstract_pointer_declarator ||
                   t == S.init_declarator || t == S.function_declarator) {
            d = ts_node_child_by_field_id(d, S.f_declarator);
        } else if (t == S.reference_declarator || t == S.parenthesized_declarator ||
                   t == S.abstract_parenthesized_declarator ||
                   t == S.abstract_reference_declarator) {
            d = ts_node_named_child(d, 0);
        } else {
            break;
        }
    }
}

/* Name text with template arguments left out: "ns::k" for ns::k<T, 4>. */
static char *x_strip_targs(struct an_x *x, TSNode n, TSNode *targs)
{
    char buf[512];
    size_t o = 0;
    TSTreeCursor *c = cur_get(x, n);
    uint32_t depth = 0;
    for (;;) {
        TSNode cur = ts_tree_cursor_current_node(c);
        TSSymbol t = ts_node_symbol(cur);
        if (t == S.template_argument_list) {
            if (targs && ts_node_is_null(*targs))
                *targs = cur;
        } else if (t != S.comment && ts_node_child_count(cur) == 0) {
            uint32_t s = ts_node_start_byte(cur), e = ts_node_end_byte(cur);
            if (o + (e - s) < sizeof(buf)) {
                memcpy(buf + o, x->src + s, e - s);
                o += e - s;
            }
        } else if (depth < 64 && ts_tree_cursor_goto_first_child(c)) {
            depth++;
            continue;
        }
        while (depth > 0 && !ts_tree_cursor_goto_next_sibling(c)) {
            ts_tree_cursor_goto_parent(c);
            depth--;
        }
        if (depth == 0)
            break;
    }
    cur_put(x);
    buf[o] = '\0';
    if (x->err)
        return NULL;
    size_t l = strlen(buf);
    char *out = arena_alloc(&x->it->arena, l + 1);
    if (!out) {
        x->err = HK_ENOMEM;
        return NULL;
    }
    memcpy(out, buf, l + 1);
    return out;
}

/* Named children that are not comments, into x->tmpnodes (cleared first). */
static void x_named_children(struct an_x *x, TSNode n)
{
    x->tmpnodes.n = 0;
    if (ts_node_is_null(n))
        return;
    TSTreeCursor *c = cur_get(x, n);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSNode k = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(k) && ts_node_symbol(k) != S.comment) {
                TSNode *slot = VEC_PUSH(x, x->tmpnodes);
                if (!slot)
                    break;
                *slot = k;
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    cur_put(x);
}

/* ------------------------------------------------------------ functions */

static bool is_restrict_text(const struct an_x *x, TSNode q)
{
    return node_text_is(x, q, "__restrict__") || node_text_is(x, q, "restrict") ||
           node_text_is(x, q, "__restrict");
}

static void x_param(struct an_x *x, TSNode p, an_param *out)
{
    memset(out, 0, sizeof(*out));
    out->span = node_span(p);
    TSNode none = {{0}, 0, 0}, d = none, ty = none;
    bool restrict_ = false;
    /* one pass over the children: fields and qualifiers */
    TSTreeCursor *c = cur_get(x, p);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSFieldId f = ts_tree_cursor_current_field_id(c);
            TSNode k = ts_tree_cursor_current_node(c);
            if (f == S.f_declarator)
                d = k;
            else if (f == S.f_type)
                ty = k;
            else if (ts_node_symbol(k) == S.type_qualifier) {
                if (node_text_is(x, k, "const"))
                    out->is_const = true;
                else if (is_restrict_text(x, k))
                    restrict_ = true;
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    cur_put(x);
    int depth = 0;
    TSNode name = x_declarator_name(x, d, &depth, &restrict_);
    out->pointer_depth = depth;
    if (!ts_node_is_null(d) &&
        memchr(x->src + ts_node_start_byte(d), '[', ts_node_end_byte(d) - ts_node_start_byte(d)))
        x_array_uses(x, d);
    out->is_restrict = restrict_;
    uint32_t ps = ts_node_start_byte(p);
    uint32_t pe = ts_node_is_null(d) ? ts_node_end_byte(p) : ts_node_end_byte(d);
    if (ts_node_is_null(d) && !ts_node_is_null(ty) &&
        ts_node_symbol(p) == S.optional_parameter_declaration)
        pe = ts_node_end_byte(ty);
    if (!ts_node_is_null(name)) {
        uint32_t ns = ts_node_start_byte(name), ne = ts_node_end_byte(name);
        out->name = x_node_text(x, name);
        /* type = the declaration with the name cut out */
        if (ne == pe) {
            out->type = x_text(x, ps, ns);
        } else {
            char *a = x_text(x, ps, ns), *b = x_text(x, ne, pe);
            if (a && b) {
                size_t la = strlen(a), lb = strlen(b);
                char *t = arena_alloc(&x->it->arena, la + lb + 2);
                if (!t) {
                    x->err = HK_ENOMEM;
                } else {
                    memcpy(t, a, la);
                    size_t o = la;
                    if (la && lb && b[0] != ')' && b[0] != '[' && b[0] != '(')
                        t[o++] = ' ';
                    memcpy(t + o, b, lb + 1);
                    out->type = t;
                }
            }
        }
    } else {
        out->name = x_text(x, 0, 0);
        out->type = x_text(x, ps, pe);
    }
    out->elem_type = ts_node_is_null(ty) ? x_text(x, 0, 0) : x_node_text(x, ty);
}

static void x_params(struct an_x *x, TSNode list, an_function *f)
{
    x->params.n = 0;
    if (!ts_node_is_null(list)) {
        TSTreeCursor *c = cur_get(x, list);
        if (ts_tree_cursor_goto_first_child(c)) {
            do {
                TSNode p = ts_tree_cursor_current_node(c);
                TSSymbol t = ts_node_symbol(p);
                if (t == S.compound_statement)
                    break;                /* recovered code: the body follows */
                if (t != S.parameter_declaration && t != S.optional_parameter_declaration &&
                    t != S.variadic_parameter_declaration)
                    continue;
                an_param *slot = VEC_PUSH(x, x->params);
                if (!slot)
                    break;
                x_param(x, p, slot);
            } while (!x->err && ts_tree_cursor_goto_next_sibling(c));
        }
        cur_put(x);
    }
    /* f(void) has no parameters */
    if (x->err)
        return;
    if (x->params.n == 1 && !x->params.v[0].name[0] && !strcmp(x->params.v[0].type, "void"))
        x->params.n = 0;
    if (x->err || x->params.n == 0)
        return;
    f->params = arena_alloc(&x->it->arena, x->params.n * sizeof(an_param));
    if (!f->params) {
        x->err = HK_ENOMEM;
        return;
    }
    memcpy(f->params, x->params.v, x->params.n * sizeof(an_param));
    f->n_params = x->params.n;
}

/* Whitespace-collapsed text of [s, e) for signatures, with the launch_bounds kept. */
static TSNode x_function_declarator(TSNode d)
{
    for (int guard = 0; !ts_node_is_null(d) && guard < 64; guard++) {
        TSSymbol t = ts_node_symbol(d);
        if (t == S.function_declarator)
            return d;
        if (t == S.pointer_declarator || t == S.attributed_declarator) {
            d = ts_node_child_by_field_id(d, S.f_declarator);
            if (ts_node_is_null(d))
                break;
            continue;
        }
        if (t == S.reference_declarator || t == S.parenthesized_declarator) {
            d = ts_node_named_child(d, 0);
            continue;
        }
        break;
    }
    TSNode none = {{0}, 0, 0};
    return none;
}

static int x_push_template_tunables(struct an_x *x, TSNode tmpl, long func);

/* Opens a function frame. namenode: the declarator's name (may be null); plist: the
 * node whose children are the parameter declarations (a parameter_list, or an ERROR in
 * broken code); body: compound statement or null; head_end: where the signature ends
 * when there is no body; frame_end: the frame covers nodes starting before it. */
static void x_open_function(struct an_x *x, unsigned mods, TSNode namenode, TSNode plist,
                            TSNode body, TSNode lb, uint32_t head_end, uint32_t depth,
                            uint32_t frame_end, bool recovered, an_span span)
{
    an_function *f = VEC_PUSH(x, x->funcs);
    unsigned char *keep = VEC_PUSH(x, x->fkeep);
    struct an_frame *fr = VEC_PUSH(x, x->frames);
    if (!f || !keep || !fr)
        return;
    memset(f, 0, sizeof(*f));
    long idx = (long)x->funcs.n - 1;
    f->kind = (mods & MOD_GLOBAL) ? AN_KERNEL : (mods & MOD_DEVICE) ? AN_DEVICE_FUNC
                                                                    : AN_LAUNCHER;
    *keep = f->kind != AN_LAUNCHER;
    f->recovered = recovered;
    f->span = span;
    TSNode nm = namenode;
    if (!ts_node_is_null(nm) && ts_node_symbol(nm) == S.template_function) {
        TSNode inner = ts_node_child_by_field_id(nm, S.f_name);
        if (!ts_node_is_null(inner))
            nm = inner;
    }
    if (ts_node_is_null(namenode)) {
        f->name = x_text(x, 0, 0);
        f->name_span = empty_span_at_end(span);
        f->name_span.end_byte = f->name_span.start_byte = span.start_byte;
        f->name_span.end_row = f->name_span.start_row = span.start_row;
        f->name_span.end_col = f->name_span.start_col = span.start_col;
    } else {
        f->name = x_strip_targs(x, namenode, NULL);
        f->name_span = node_span(nm);
    }
    uint32_t sig_end = ts_node_is_null(body) ? head_end : ts_node_start_byte(body);
    f->signature = x_text(x, span.start_byte, sig_end);
    if (!ts_node_is_null(lb)) {
        x_named_children(x, lb);
        if (x->tmpnodes.n)
            f->launch_bounds = x_text(x, ts_node_start_byte(x->tmpnodes.v[0]),
                                      ts_node_end_byte(x->tmpnodes.v[x->tmpnodes.n - 1]));
        else
            f->launch_bounds = x_text(x, 0, 0);
    }
    if (ts_node_is_null(body)) {
        f->body_span = empty_span_at_end(span);   /* recovered: no body found */
    } else {
        f->body_span = node_span(body);
    }

    memset(fr, 0, sizeof(*fr));
    fr->kind = FR_FUNC;
    fr->end_byte = frame_end;
    fr->depth = depth;
    fr->func = idx;
    fr->node = body;
    fr->shared_base = x->shared.n;
    fr->flaunch_base = x->flaunch.n;
    fr->locals_base = x->locals.n;
    fr->uses_base = x->uses.n;
    fr->launchy = !ts_node_is_null(body) &&
                  x_has_text(x, ts_node_start_byte(body), ts_node_end_byte(body), "<<<", "Launch");
    /* after the frame: array sizes in parameters are uses inside this function */
    x_params(x, plist, &x->funcs.v[idx]);
    if (!ts_node_is_null(lb))
        x_uses(x, lb, USE_LAUNCH);

    /* a template declaration directly around this function gives it its parameters */
    if (x->frames.n >= 2) {
        struct an_frame *t = &x->frames.v[x->frames.n - 2];
        if (t->kind == FR_TEMPLATE && !t->bound && t->depth + 1 == depth) {
            t->bound = true;
            TSNode tn = t->node;
            TSNode tplist = ts_node_child_by_field_id(tn, S.f_parameters);
            f = &x->funcs.v[idx];
            an_span ts = node_span(tn);
            f->span.start_byte = ts.start_byte;
            f->span.start_row = ts.start_row;
            f->span.start_col = ts.start_col;
            if (!ts_node_is_null(tplist))
                f->template_params = x_text(x, ts_node_start_byte(tn), ts_node_end_byte(tplist));
            x_push_template_tunables(x, tn, idx);
        }
    }
}

static bool is_integral_type(const struct an_x *x, TSNode ty)
{
    if (ts_node_is_null(ty))
        return false;
    TSSymbol t = ts_node_symbol(ty);
    if (t == S.sized_type_specifier)
        return true;
    static const char *const names[] = {
        "int", "unsigned", "long", "short", "char", "size_t", "ssize_t", "ptrdiff_t",
        "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
        "uint64_t", "index_t", "std::size_t", "std::int32_t", "std::int64_t", "auto",
        "std::uint32_t", "std::uint64_t", "dim_t", "uint", "IndexType"};
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
        if (node_text_is(x, ty, names[i]))
            return true;
    return false;
}

static int x_push_template_tunables(struct an_x *x, TSNode tn, long func)
{
    TSNode plist = ts_node_child_by_field_id(tn, S.f_parameters);
    if (ts_node_is_null(plist))
        return HK_OK;
    uint32_t nc = ts_node_named_child_count(plist);
    for (uint32_t i = 0; i < nc && !x->err; i++) {
        TSNode p = ts_node_named_child(plist, i);
        TSSymbol t = ts_node_symbol(p);
        if (t != S.parameter_declaration && t != S.optional_parameter_declaration)
            continue;
        TSNode ty = ts_node_child_by_field_id(p, S.f_type);
        if (!is_integral_type(x, ty) || node_text_is(x, ty, "auto"))
            continue;
        TSNode d = ts_node_child_by_field_id(p, S.f_declarator);
        if (ts_node_is_null(d) || ts_node_symbol(d) != S.identifier)
            continue;
        an_tunable *tu = VEC_PUSH(x, x->tunables);
        if (!tu)
            break;
        memset(tu, 0, sizeof(*tu));
        tu->kind = AN_TUNE_TEMPLATE;
        tu->name = x_node_text(x, d);
        tu->owner = func;
        tu->span = node_span(p);
        TSNode dv = ts_node_child_by_field_id(p, S.f_default_value);
        if (!ts_node_is_null(dv)) {
            tu->value = x_node_text(x, dv);
            tu->value_span = node_span(dv);
            size_t ti = x->tunables.n - 1;
            x_collect_idents(x, dv, sink_tref, &ti);
        } else {
            tu->value_span = empty_span_at_end(tu->span);
        }
    }
    return x->err;
}

/* Modifiers and __launch_bounds__ among the children of head before `before`. */
static unsigned x_head_mods(struct an_x *x, TSNode head, uint32_t before, TSNode *lb)
{
    unsigned m = 0;
    TSTreeCursor *c = cur_get(x, head);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSNode k = ts_tree_cursor_current_node(c);
            if (ts_node_start_byte(k) >= before)
                break;
            TSSymbol t = ts_node_symbol(k);
            if (t == S.launch_bounds) {
                *lb = k;
            } else if (t == S.error) {
                uint32_t n = ts_node_child_count(k);
                for (uint32_t i = 0; i < n && i < 16; i++)
                    m |= x_node_mods(x, ts_node_child(k, i));
            } else if (!ts_node_is_named(k) || t == S.type_qualifier || t == S.identifier ||
                       t == S.type_identifier) {
                m |= x_node_mods(x, k);
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    cur_put(x);
    return m;
}

static void x_function_definition(struct an_x *x, TSNode n, uint32_t depth)
{
    TSNode fdecl = x_function_declarator(ts_node_child_by_field_id(n, S.f_declarator));
    if (ts_node_is_null(fdecl))
        return;
    TSNode lb = {{0}, 0, 0};
    unsigned mods = x_head_mods(x, n, ts_node_start_byte(fdecl), &lb);
    TSNode body = ts_node_child_by_field_id(n, S.f_body);
    if (!ts_node_is_null(body) && ts_node_symbol(body) != S.compound_statement)
        body = (TSNode){{0}, 0, 0};
    x_open_function(x, mods, ts_node_child_by_field_id(fdecl, S.f_declarator),
                    ts_node_child_by_field_id(fdecl, S.f_parameters), body, lb,
                    ts_node_end_byte(fdecl), depth, ts_node_end_byte(n), false, node_span(n));
}

static bool is_error_node(TSNode n)
{
    return !ts_node_is_null(n) && ts_node_symbol(n) == S.error;
}

/* The children of an ERROR node, listed once per extraction: recovery looks at the
 * siblings around a node, and scanning a huge ERROR from its start for each candidate
 * would be quadratic. A few lists are cached (round robin). */
static const struct an_kids *x_kids(struct an_x *x, TSNode parent)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(x->kids); i++)
        if (x->kids[i].valid && ts_node_eq(x->kids[i].parent, parent))
            return &x->kids[i];
    struct an_kids *k = &x->kids[x->kids_next++ % HK_ARRAY_LEN(x->kids)];
    k->valid = false;
    k->parent = parent;
    k->n = 0;
    TSTreeCursor *c = cur_get(x, parent);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            if (vec_reserve(&k->v, &k->cap, k->n + 1, sizeof(TSNode))) {
                x->err = HK_ENOMEM;
                break;
            }
            k->v[k->n++] = ts_tree_cursor_current_node(c);
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    cur_put(x);
    k->valid = !x->err;
    return k;
}

/* Index of child in k, or -1. Children are in start order (zero-width ones may tie). */
static long kids_index(const struct an_kids *k, TSNode child)
{
    uint32_t s = ts_node_start_byte(child);
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ts_node_start_byte(k->v[mid]) < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < k->n && ts_node_start_byte(k->v[i]) == s; i++)
        if (ts_node_eq(k->v[i], child))
            return (long)i;
    return -1;
}

static bool is_modifier_like(struct an_x *x, TSNode k, unsigned *km)
{
    TSSymbol t = ts_node_symbol(k);
    *km = x_node_mods(x, k);
    return *km || t == S.primitive_type || t == S.type_identifier ||
           t == S.sized_type_specifier || t == S.type_qualifier ||
           t == S.storage_class_specifier || t == S.template_type ||
           t == S.qualified_identifier || t == S.launch_bounds ||
           node_text_is(x, k, "inline") || node_text_is(x, k, "__forceinline__");
}

/* Modifiers of the run of declaration-like siblings right before child `stop` inside
 * an ERROR node; *first is the start of that run (or stop itself). */
static unsigned x_error_run_mods(struct an_x *x, TSNode parent, TSNode stop, TSNode *first,
                                 TSNode *lb)
{
    unsigned mods = 0, km;
    TSNode none = {{0}, 0, 0};
    *first = stop;
    *lb = none;
    const struct an_kids *k = x_kids(x, parent);
    long i = kids_index(k, stop);
    for (long j = i - 1; j >= 0 && is_modifier_like(x, k->v[j], &km); j--) {
        *first = k->v[j];
        mods |= km;
        if (ts_node_symbol(k->v[j]) == S.launch_bounds && ts_node_is_null(*lb))
            *lb = k->v[j];
    }
    return mods;
}

/* The first compound statement after child within parent, looking one level into a
 * following ERROR sibling (tree-sitter often wraps the body of broken code in one,
 * after the parameters); *plist is that ERROR, or null. */
static TSNode x_body_after(struct an_x *x, TSNode parent, TSNode child, TSNode *plist)
{
    TSNode none = {{0}, 0, 0};
    *plist = none;
    const struct an_kids *k = x_kids(x, parent);
    long i = kids_index(k, child);
    if (i < 0)
        return none;
    TSNode next = none;
    for (size_t j = (size_t)i + 1; j < k->n; j++) {
        if (ts_node_is_named(k->v[j]) && ts_node_symbol(k->v[j]) != S.comment) {
            next = k->v[j];
            break;
        }
    }
    if (ts_node_is_null(next))
        return none;
    if (ts_node_symbol(next) == S.compound_statement)
        return next;
    if (!is_error_node(next))
        return none;
    *plist = next;
    TSNode r = none;
    TSTreeCursor *c = cur_get(x, next);
    if (ts_tree_cursor_goto_first_child(c)) {
        int steps = 0;
        do {
            TSNode g = ts_tree_cursor_current_node(c);
            TSSymbol gt = ts_node_symbol(g);
            if (!ts_node_is_named(g) || gt == S.comment || gt == S.parameter_declaration ||
                gt == S.optional_parameter_declaration)
                continue;
            if (gt == S.compound_statement)
                r = g;
            break;
        } while (++steps < 256 && ts_tree_cursor_goto_next_sibling(c));
    }
    cur_put(x);
    return r;
}

static an_span span_from_to(TSNode a, uint32_t end_byte, TSNode last)
{
    an_span s = node_span(a), b = node_span(last);
    s.end_byte = end_byte;
    s.end_row = b.end_row;
    s.end_col = b.end_col;
    return s;
}

/* Broken code (inside an ERROR): tree-sitter lost the function_definition but kept a
 * function_declarator, either in a declaration-like node or loose in the ERROR. The
 * function is kept when a body follows it, or when __global__/__device__ (or their
 * macros) precede it; the body is the compound statement that follows, else the rest
 * of the ERROR node. */
static void x_recover_function(struct an_x *x, TSNode fd, uint32_t depth)
{
    uint32_t pd = depth;
    TSNode p = fd;
    while (pd > 0) {
        TSSymbol t = ts_node_symbol(x->anc.v[pd - 1]);
        if (t != S.pointer_declarator && t != S.reference_declarator)
            break;
        p = x->anc.v[--pd];
    }
    if (pd == 0)
        return;
    TSNode parent = x->anc.v[pd - 1];
    TSSymbol pt = ts_node_symbol(parent);
    TSNode holder, container, first, lb = {{0}, 0, 0};
    unsigned mods;
    if (pt == S.parameter_declaration || pt == S.declaration || pt == S.field_declaration) {
        if (pd < 2 || x->error_depth >= pd - 1)
            return;                     /* a prototype in valid code */
        holder = parent;
        container = x->anc.v[pd - 2];
        mods = x_head_mods(x, holder, ts_node_start_byte(p), &lb);
        first = holder;
    } else if (pt == S.error) {
        holder = p;
        container = parent;
        mods = x_error_run_mods(x, parent, p, &first, &lb);
    } else {
        return;
    }
    TSNode plist_extra;
    TSNode body = x_body_after(x, container, holder, &plist_extra);
    /* the body may follow one ERROR level up */
    for (uint32_t lvl = pd - 1;
         ts_node_is_null(body) && lvl >= 2 && is_error_node(x->anc.v[lvl - 1]) &&
         ts_node_eq(x->anc.v[lvl - 1], container);
         lvl--) {
        body = x_body_after(x, x->anc.v[lvl - 2], x->anc.v[lvl - 1], &plist_extra);
        container = x->anc.v[lvl - 2];
    }
    if (ts_node_is_null(body) && !(mods & (MOD_GLOBAL | MOD_DEVICE)))
        return;
    uint32_t end;
    TSNode last;
    if (!ts_node_is_null(body)) {
        end = ts_node_end_byte(body);
        last = body;
    } else if (is_error_node(container)) {
        end = ts_node_end_byte(container);
        last = container;
    } else {
        end = ts_node_end_byte(holder);
        last = holder;
    }
    x_open_function(x, mods, ts_node_child_by_field_id(fd, S.f_declarator),
                    ts_node_child_by_field_id(fd, S.f_parameters), body, lb,
                    ts_node_end_byte(fd), depth, end, true, span_from_to(first, end, last));
}

/* Broken code where the parameter list never closed: `__global__ void k(int n {`
 * leaves the name loose in an ERROR followed by "(" and an ERROR holding the
 * parameters and the body. Only with __global__/__device__ in front. */
static void x_recover_split(struct an_x *x, TSNode name, uint32_t depth)
{
    if (depth == 0)
        return;
    TSNode parent = x->anc.v[depth - 1];
    if (!is_error_node(parent))
        return;
    /* cheap text tests first: this runs for identifiers loose in an ERROR, and the
     * scan below is linear in the ERROR's children */
    uint32_t ne = ts_node_end_byte(name), ns = ts_node_start_byte(name);
    while (ne < x->len && (x->src[ne] == ' ' || x->src[ne] == '\t'))
        ne++;
    if (ne >= x->len || x->src[ne] != '(')
        return;
    uint32_t back = ns > 256 ? ns - 256 : 0;
    if (!x_has_text(x, back, ns, "__global__", "__device__")) {
        bool macro = false;
        for (size_t i = 0; i < x->n_macros && !macro; i++)
            macro = x_has_text(x, back, ns, x->macros[i].name, NULL);
        if (!macro)
            return;
    }
    TSNode first, lb;
    unsigned mods = x_error_run_mods(x, parent, name, &first, &lb);
    if (!(mods & (MOD_GLOBAL | MOD_DEVICE)) || ts_node_eq(first, name))
        return;
    /* the next sibling must be "(" */
    const struct an_kids *k = x_kids(x, parent);
    long i = kids_index(k, name);
    if (i < 0 || (size_t)i + 1 >= k->n || !node_text_is(x, k->v[i + 1], "("))
        return;
    TSNode next = k->v[i + 1];
    TSNode plist;
    TSNode body = x_body_after(x, parent, next, &plist);
    uint32_t end = ts_node_is_null(body) ? ts_node_end_byte(parent) : ts_node_end_byte(body);
    TSNode last = ts_node_is_null(body) ? parent : body;
    x_open_function(x, mods, name, plist, body, lb, ts_node_end_byte(next), depth, end, true,
                    span_from_to(first, end, last));
}

/* Closes the function frame fr: resolves uses through local variables, then stores
 * shared declarations and launch indices in the arena. */
static void x_close_function(struct an_x *x, struct an_frame *fr)
{
    long fi = fr->func;
    /* uses through locals: `dim3 block(BLOCK); k<<<g, block>>>` means BLOCK is in the
     * launch. Each local expands once per kind, so this ends. */
    size_t added = 0;
    for (size_t u = fr->uses_base; u < x->uses.n && !x->err; u++) {
        struct an_rawuse use = x->uses.v[u];
        if (use.func != fi)
            continue;
        for (size_t l = x->locals.n; l-- > fr->locals_base;) {
            struct an_local *loc = &x->locals.v[l];
            if (loc->func != fi || (loc->expanded & use.kind))
                continue;
            if (loc->name.e - loc->name.s != use.name.e - use.name.s ||
                memcmp(x->src + loc->name.s, x->src + use.name.s, use.name.e - use.name.s))
                continue;
            loc->expanded |= use.kind;
            if (added < AN_EXPAND_MAX) {
                size_t before = x->uses.n;
                struct use_ctx uc = {fi, use.kind};
                x_collect_idents(x, loc->value, sink_use, &uc);
                added += x->uses.n - before;
            }
            break;
        }
    }
    an_function *f = &x->funcs.v[fi];
    size_t ns = x->shared.n - fr->shared_base;
    if (ns && !x->err) {
        f->shared = arena_alloc(&x->it->arena, ns * sizeof(an_shared));
        if (!f->shared) {
            x->err = HK_ENOMEM;
        } else {
            memcpy(f->shared, x->shared.v + fr->shared_base, ns * sizeof(an_shared));
            f->n_shared = ns;
        }
    }
    size_t nl = x->flaunch.n - fr->flaunch_base;
    if (nl && !x->err) {
        f->launches = arena_alloc(&x->it->arena, nl * sizeof(size_t));
        if (!f->launches) {
            x->err = HK_ENOMEM;
        } else {
            memcpy(f->launches, x->flaunch.v + fr->flaunch_base, nl * sizeof(size_t));
            f->n_launches = nl;
            x->fkeep.v[fi] = 1;
        }
    }
    x->shared.n = fr->shared_base;
    x->flaunch.n = fr->flaunch_base;
    x->locals.n = fr->locals_base;
}

static void x_pop_frame(struct an_x *x)
{
    struct an_frame fr = x->frames.v[--x->frames.n];
    if (fr.kind == FR_FUNC)
        x_close_function(x, &fr);
}

/* ------------------------------------------------------------ launches */

static TSNode x_unwrap_kernel(struct an_x *x, TSNode n)
{
    for (int guard = 0; guard < 16 && !ts_node_is_null(n); guard++) {
        TSSymbol t = ts_node_symbol(n);
        if (t == S.cast_expression) {
            n = ts_node_child_by_field_id(n, S.f_value);
        } else if (t == S.parenthesized_expression || t == S.pointer_expression) {
            x_named_children(x, n);
            if (!x->tmpnodes.n)
                break;
            n = x->tmpnodes.v[x->tmpnodes.n - 1];
        } else if (t == S.call_expression) {
            /* HIP_KERNEL_NAME(k<T>), reinterpret_cast<void*>(k), (void*)(k) */
            TSNode fn = ts_node_child_by_field_id(n, S.f_function);
            if (ts_node_is_null(fn))
                break;
            TSNode base = fn;
            if (ts_node_symbol(base) == S.template_function)
                base = ts_node_child_by_field_id(base, S.f_name);
            if (!(node_text_is(x, base, "HIP_KERNEL_NAME") ||
                  node_text_is(x, base, "reinterpret_cast") ||
                  node_text_is(x, base, "static_cast") ||
                  node_text_is(x, base, "const_cast")))
                break;
            x_named_children(x, ts_node_child_by_field_id(n, S.f_arguments));
            if (!x->tmpnodes.n)
                break;
            n = x->tmpnodes.v[0];
        } else {
            break;
        }
    }
    return n;
}

static void x_call(struct an_x *x, TSNode n)
{
    TSNode fn = ts_node_child_by_field_id(n, S.f_function);
    TSNode args = ts_node_child_by_field_id(n, S.f_arguments);
    if (ts_node_is_null(fn))
        return;
    TSNode kcs = {{0}, 0, 0};
    uint32_t nc = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode k = ts_node_named_child(n, i);
        if (ts_node_symbol(k) == S.kernel_call_syntax) {
            kcs = k;
            break;
        }
    }
    enum an_launch_form form;
    TSNode kern, cfg[4] = {{{0}, 0, 0}, {{0}, 0, 0}, {{0}, 0, 0}, {{0}, 0, 0}};
    size_t first_arg = 0;
    TSNode cuda_args = {{0}, 0, 0};
    if (!ts_node_is_null(kcs)) {
        form = AN_LAUNCH_CHEVRON;
        kern = fn;
        x_named_children(x, kcs);
        for (size_t i = 0; i < 4 && i < x->tmpnodes.n; i++)
            cfg[i] = x->tmpnodes.v[i];
    } else {
        uint32_t fs = ts_node_start_byte(fn), fe = ts_node_end_byte(fn);
        if (ts_node_symbol(fn) != S.identifier || fe - fs > 32)
            return;
        if (node_text_is(x, fn, "hipLaunchKernelGGL"))
            form = AN_LAUNCH_HIP;
        else if (node_text_is(x, fn, "cudaLaunchKernel") ||
                 node_text_is(x, fn, "cudaLaunchCooperativeKernel") ||
                 node_text_is(x, fn, "hipLaunchKernel") ||
                 node_text_is(x, fn, "hipLaunchCooperativeKernel"))
            form = AN_LAUNCH_CUDA_API;
        else
            return;
        x_named_children(x, args);
        if (x->tmpnodes.n == 0)
            return;
        kern = x->tmpnodes.v[0];
        if (form == AN_LAUNCH_HIP) {
            for (size_t i = 0; i < 4 && i + 1 < x->tmpnodes.n; i++)
                cfg[i] = x->tmpnodes.v[i + 1];
            first_arg = 5;
        } else {
            /* cudaLaunchKernel(func, grid, block, args, shmem, stream) */
            if (x->tmpnodes.n > 1) cfg[0] = x->tmpnodes.v[1];
            if (x->tmpnodes.n > 2) cfg[1] = x->tmpnodes.v[2];
            if (x->tmpnodes.n > 3) cuda_args = x->tmpnodes.v[3];
            if (x->tmpnodes.n > 4) cfg[2] = x->tmpnodes.v[4];
            if (x->tmpnodes.n > 5) cfg[3] = x->tmpnodes.v[5];
        }
        kern = x_unwrap_kernel(x, kern);
        if (ts_node_is_null(kern))
            return;
    }
    an_launch *l = VEC_PUSH(x, x->launches);
    size_t *fl = VEC_PUSH(x, x->flaunch);
    if (!l || !fl)
        return;
    *fl = x->launches.n - 1;
    memset(l, 0, sizeof(*l));
    l->form = form;
    l->caller = x_cur_func(x);
    l->span = node_span(n);
    TSNode targs = {{0}, 0, 0};
    l->kernel = x_strip_targs(x, kern, &targs);
    if (!ts_node_is_null(targs))
        l->template_args = x_node_text(x, targs);
    char **dst[4] = {&l->grid, &l->block, &l->shmem, &l->stream};
    for (int i = 0; i < 4; i++) {
        if (ts_node_is_null(cfg[i]))
            continue;
        *dst[i] = x_node_text(x, cfg[i]);
        if (i < 3)
            x_uses(x, cfg[i], USE_LAUNCH);
    }
    /* arguments */
    x->args.n = 0;
    if (form == AN_LAUNCH_CUDA_API) {
        if (!ts_node_is_null(cuda_args)) {
            char **a = VEC_PUSH(x, x->args);
            if (a)
                *a = x_node_text(x, cuda_args);
        }
    } else {
        x_named_children(x, args);
        for (size_t i = first_arg; i < x->tmpnodes.n && !x->err; i++) {
            char **a = VEC_PUSH(x, x->args);
            if (a)
                *a = x_node_text(x, x->tmpnodes.v[i]);
        }
    }
    if (x->args.n && !x->err) {
        l = &x->launches.v[x->launches.n - 1];
        l->args = arena_alloc(&x->it->arena, x->args.n * sizeof(char *));
        if (!l->args) {
            x->err = HK_ENOMEM;
            return;
        }
        memcpy(l->args, x->args.v, x->args.n * sizeof(char *));
        l->n_args = x->args.n;
    }
}

/* ------------------------------------------------------------ declarations */

static void x_tunable_decl(struct an_x *x, TSNode decl, TSNode value, long owner)
{
    TSNode name = x_declarator_name(x, decl, NULL, NULL);
    if (ts_node_is_null(name) || ts_node_is_null(value))
        return;
    TSSymbol nt = ts_node_symbol(name);
    if (nt != S.identifier && nt != S.field_identifier)
        return;
    if (ts_node_symbol(decl) != S.init_declarator && !ts_node_eq(decl, name))
        return;                          /* pointers, arrays */
    if (!x_int_expr(x, value, 0))
        return;
    an_tunable *tu = VEC_PUSH(x, x->tunables);
    if (!tu)
        return;
    memset(tu, 0, sizeof(*tu));
    tu->kind = AN_TUNE_CONSTEXPR;
    tu->name = x_node_text(x, name);
    tu->value = x_node_text(x, value);
    tu->owner = owner;
    an_span a = node_span(ts_node_symbol(decl) == S.init_declarator ? decl : name);
    an_span b = node_span(value);
    tu->span = a;
    if (b.end_byte > a.end_byte) {
        tu->span.end_byte = b.end_byte;
        tu->span.end_row = b.end_row;
        tu->span.end_col = b.end_col;
    }
    tu->value_span = b;
    size_t ti = x->tunables.n - 1;
    x_collect_idents(x, value, sink_tref, &ti);
}

static void x_declaration(struct an_x *x, TSNode n, bool file_scope)
{
    long func = x_cur_func(x);
    bool is_shared = false, is_constexpr = false, is_const = false, is_extern = false;
    TSNode none = {{0}, 0, 0}, ty = none, defval = none;
    TSNode decls[8];
    size_t nd = 0;
    bool more = false;   /* over 8 declarators: a second pass finds the rest */
    TSTreeCursor *c = cur_get(x, n);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSFieldId f = ts_tree_cursor_current_field_id(c);
            TSNode k = ts_tree_cursor_current_node(c);
            if (f == S.f_declarator) {
                if (nd < HK_ARRAY_LEN(decls))
                    decls[nd++] = k;
                else
                    more = true;
            } else if (f == S.f_type) {
                ty = k;
            } else if (f == S.f_default_value) {
                defval = k;
            } else {
                TSSymbol t = ts_node_symbol(k);
                if (t == S.type_qualifier) {
                    if (node_text_is(x, k, "__shared__"))
                        is_shared = true;
                    else if (node_text_is(x, k, "constexpr"))
                        is_constexpr = true;
                    else if (node_text_is(x, k, "const"))
                        is_const = true;
                } else if (t == S.storage_class_specifier && node_text_is(x, k, "extern")) {
                    is_extern = true;
                }
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    bool field = ts_node_symbol(n) == S.field_declaration;
    bool tunable = (is_constexpr || (is_const && file_scope)) && is_integral_type(x, ty);

    if (more) {
        /* rare: gather every declarator into tmpnodes instead */
        x->tmpnodes.n = 0;
        ts_tree_cursor_reset(c, n);
        if (ts_tree_cursor_goto_first_child(c)) {
            do {
                if (ts_tree_cursor_current_field_id(c) != S.f_declarator)
                    continue;
                TSNode *slot = VEC_PUSH(x, x->tmpnodes);
                if (!slot)
                    goto out;
                *slot = ts_tree_cursor_current_node(c);
            } while (ts_tree_cursor_goto_next_sibling(c));
        }
    }
    size_t total = more ? x->tmpnodes.n : nd;
    for (size_t i = 0; i < total && !x->err; i++) {
        TSNode d = more ? x->tmpnodes.v[i] : decls[i];
        bool init = ts_node_symbol(d) == S.init_declarator;
        if (is_shared && func >= 0) {
            an_shared *sh = VEC_PUSH(x, x->shared);
            if (!sh)
                break;
            memset(sh, 0, sizeof(*sh));
            TSNode dd = init ? ts_node_child_by_field_id(d, S.f_declarator) : d;
            TSNode name = x_declarator_name(x, dd, NULL, NULL);
            sh->is_extern = is_extern;
            sh->span = node_span(n);
            sh->type = ts_node_is_null(ty) ? x_text(x, 0, 0) : x_node_text(x, ty);
            if (ts_node_is_null(name)) {
                sh->name = x_text(x, 0, 0);
                sh->size_expr = x_text(x, 0, 0);
            } else {
                sh->name = x_node_text(x, name);
                uint32_t ne = ts_node_end_byte(name), de = ts_node_end_byte(dd);
                char *sz = ts_node_symbol(dd) == S.array_declarator ? x_text(x, ne, de)
                                                                     : x_text(x, 0, 0);
                if (sz && !strcmp(sz, "[]"))
                    sz[0] = '\0';
                sh->size_expr = sz;
            }
        }
        x_array_uses(x, d);
        TSNode value = init ? ts_node_child_by_field_id(d, S.f_value) : field ? defval : none;
        if (tunable)
            x_tunable_decl(x, d, value, func);
        /* locals and their initialisers, to follow `dim3 block(BLOCK)`; inside a
         * function `dim3 block(TILE, ROWS);` parses as a function declaration, but
         * in kernel code it is a variable */
        if (func >= 0 && !init && ts_node_symbol(d) == S.function_declarator) {
            init = true;
            value = ts_node_child_by_field_id(d, S.f_parameters);
        }
        if (func >= 0 && init && !ts_node_is_null(value)) {
            TSNode name = ts_node_child_by_field_id(d, S.f_declarator);
            if (!ts_node_is_null(name) && ts_node_symbol(name) == S.identifier) {
                struct an_local *loc = VEC_PUSH(x, x->locals);
                if (!loc)
                    break;
                loc->name.s = ts_node_start_byte(name);
                loc->name.e = ts_node_end_byte(name);
                loc->func = func;
                loc->expanded = 0;
                loc->value = value;
            }
        }
    }
out:
    cur_put(x);
}

static void x_preproc_def(struct an_x *x, TSNode n)
{
    TSNode name = ts_node_child_by_field_id(n, S.f_name);
    TSNode value = ts_node_child_by_field_id(n, S.f_value);
    if (ts_node_is_null(name) || ts_node_is_null(value))
        return;
    uint32_t vs = ts_node_start_byte(value), ve = ts_node_end_byte(value);
    if (!x_int_define(x, vs, ve, 0, false))
        return;
    /* value end: before a trailing comment and trailing blanks */
    uint32_t e = vs;
    for (uint32_t i = vs; i < ve; i++) {
        if (x->src[i] == '/' && i + 1 < ve && (x->src[i + 1] == '/' || x->src[i + 1] == '*'))
            break;
        if (!strchr(" \t\r\\\n", x->src[i]) || x->src[i] == '\0')
            e = i + 1;
    }
    an_tunable *tu = VEC_PUSH(x, x->tunables);
    if (!tu)
        return;
    memset(tu, 0, sizeof(*tu));
    tu->kind = AN_TUNE_DEFINE;
    tu->name = x_node_text(x, name);
    tu->value = x_text(x, vs, e);
    tu->owner = x_cur_func(x);
    an_span v = node_span(value);
    tu->value_span = span_between(x->src, vs, v.start_row, v.start_col, e);
    an_span s = node_span(n);
    tu->span = span_between(x->src, s.start_byte, s.start_row, s.start_col, e);
    x_int_define(x, vs, e, x->tunables.n - 1, true);
}

/* ------------------------------------------------------------ the walk */

/* Called on entering node n at depth; returns whether to walk its children. */
static bool x_enter(struct an_x *x, TSNode n, uint32_t depth)
{
    uint32_t start = ts_node_start_byte(n);
    /* pre-order visits nodes by start byte: a frame ends at the first node starting
     * at or after its end (a recovered function's body is a sibling, not a child) */
    while (x->frames.n && start >= x->frames.v[x->frames.n - 1].end_byte)
        x_pop_frame(x);
    TSNode *slot = NULL;
    if (depth < AN_DEPTH_MAX) {
        if (vec_reserve(&x->anc.v, &x->anc.cap, depth + 1, sizeof(TSNode)) != HK_OK) {
            x->err = HK_ENOMEM;
            return false;
        }
        slot = &x->anc.v[depth];
        *slot = n;
        x->anc.n = depth + 1;
    }
    if (x->error_depth >= depth)
        x->error_depth = UINT32_MAX;
    TSSymbol t = ts_node_symbol(n);
    if (t == S.error) {
        if (x->error_depth == UINT32_MAX)
            x->error_depth = depth;
        return slot != NULL;
    }
    if (t == S.identifier && x->error_depth != UINT32_MAX && depth > 0 &&
        x->error_depth < depth && slot)
        x_recover_split(x, n, depth);
    if (!ts_node_is_named(n) || t == S.comment || t == S.identifier ||
        t == S.number_literal || t == S.string_literal || t == S.raw_string_literal ||
        t == S.char_literal || t == S.concatenated_string || t == S.primitive_type ||
        t == S.field_identifier || t == S.type_identifier || t == S.preproc_include)
        return false;
    if (!slot)
        return false;
    if (t == S.function_definition) {
        x_function_definition(x, n, depth);
    } else if (t == S.template_declaration) {
        struct an_frame *fr = VEC_PUSH(x, x->frames);
        if (fr) {
            memset(fr, 0, sizeof(*fr));
            fr->kind = FR_TEMPLATE;
            fr->end_byte = ts_node_end_byte(n);
            fr->depth = depth;
            fr->node = n;
            fr->func = -1;
        }
    } else if (t == S.call_expression) {
        x_call(x, n);
    } else if (t == S.declaration || t == S.field_declaration) {
        const struct an_frame *fn = x_cur_frame(x);
        bool file_scope = !fn && t == S.declaration;
        /* most declarations in a kernel are plain locals (`int i = ...;`): only
         * arrays, __shared__, constants, and locals of functions that launch matter */
        uint32_t ds = start, de = ts_node_end_byte(n);
        if ((fn && fn->launchy) || x->error_depth != UINT32_MAX ||
            memchr(x->src + ds, '[', de - ds) || x_has_text(x, ds, de, "__shared__", "const"))
            x_declaration(x, n, file_scope);
        /* its declarators are done; walk on only for a launch in an initialiser, or
         * for a function lost in an ERROR */
        if (x->error_depth != UINT32_MAX)
            return !x->err;
        goto gate;
    } else if (t == S.preproc_def) {
        x_preproc_def(x, n);
        return false;
    } else if (t == S.function_declarator) {
        /* parameters are done by x_params */
        if (x->error_depth != UINT32_MAX)
            x_recover_function(x, n, depth);
        return false;
    } else if (t == S.parameter_declaration || t == S.optional_parameter_declaration) {
        return x->error_depth != UINT32_MAX && !x->err;
    }
    if (x->err)
        return false;
    if (S.all_structural || (t < sizeof(S.structural) && S.structural[t]) || t == S.error)
        return true;
gate:
    if (x->err)
        return false;
    /* expressions: only a launch (or a lambda holding one) matters inside */
    uint32_t s = start, e = ts_node_end_byte(n);
    return memmem(x->src + s, e - s, "<<<", 3) || memmem(x->src + s, e - s, "Launch", 6);
}

static void x_walk(struct an_x *x, TSNode root)
{
    TSTreeCursor *c = cur_get(x, root);
    uint32_t depth = 0;
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(c);
        bool descend = x_enter(x, n, depth);
        if (x->err)
            break;
        if (descend && ts_tree_cursor_goto_first_child(c)) {
            depth++;
            continue;
        }
        while (depth > 0 && !ts_tree_cursor_goto_next_sibling(c)) {
            ts_tree_cursor_goto_parent(c);
            depth--;
        }
        if (depth == 0)
            break;
    }
    cur_put(x);
    while (x->frames.n && !x->err)
        x_pop_frame(x);
    x->frames.n = 0;
}

static bool raw_name_eq(const struct an_x *x, struct an_range r, const char *name)
{
    size_t l = strlen(name);
    return r.e - r.s == l && !memcmp(x->src + r.s, name, l);
}

static uint32_t hash_range(const struct an_x *x, struct an_range r)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = r.s; i < r.e; i++)
        h = (h ^ (unsigned char)x->src[i]) * 16777619u;
    return h;
}

/* Adds (name, kinds) to the item's deduplicated gnames being built in x->gn. */
static void gn_add(struct an_x *x, struct an_range r, unsigned kinds)
{
    uint32_t h = hash_range(x, r);
    size_t mask = x->gtab.cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        long *slot = &x->gtab.v[i];
        if (*slot < 0) {
            struct an_rawgn *g = VEC_PUSH(x, x->gn);
            if (!g)
                return;
            g->name = r;
            g->hash = h;
            g->kinds = kinds;
            *slot = (long)x->gn.n - 1;
            return;
        }
        struct an_rawgn *g = &x->gn.v[*slot];
        if (g->hash == h && g->name.e - g->name.s == r.e - r.s &&
            !memcmp(x->src + g->name.s, x->src + r.s, r.e - r.s)) {
            g->kinds |= kinds;
            return;
        }
    }
}

/* Resolves what can be resolved inside the item: function-owned tunables see only
 * uses in their function (all here), so their in_launch/in_array are final; every use,
 * and every name a flagged owned tunable mentions, becomes a gname for the file-scope
 * tunables. Then drops the tunables of dropped functions and stores gnames and the
 * file-scope tunables' references in the arena. map: function index remap. */
static int x_resolve_item(struct an_x *x, const long *map)
{
    struct an_item *it = x->it;
    an_tunable *tv = x->tunables.v;
    size_t nt = x->tunables.n;
    for (size_t i = 0; i < nt; i++) {
        if (tv[i].owner < 0)
            continue;
        for (size_t u = 0; u < x->uses.n; u++) {
            const struct an_rawuse *r = &x->uses.v[u];
            if (r->func != tv[i].owner || !raw_name_eq(x, r->name, tv[i].name))
                continue;
            if (r->kind & USE_LAUNCH)
                tv[i].in_launch = true;
            if (r->kind & USE_ARRAY)
                tv[i].in_array = true;
        }
    }
    /* owned tunables flag the owned tunables their value names (same owner) */
    for (int round = 0; round < AN_PROPAGATE_ROUNDS; round++) {
        bool changed = false;
        for (size_t k = 0; k < x->trefs.n; k++) {
            const an_tunable *a = &tv[x->trefs.v[k].tunable];
            if (a->owner < 0 || (!a->in_launch && !a->in_array))
                continue;
            for (size_t j = 0; j < nt; j++) {
                an_tunable *b = &tv[j];
                if (b->owner != a->owner || !raw_name_eq(x, x->trefs.v[k].name, b->name))
                    continue;
                if ((a->in_launch && !b->in_launch) || (a->in_array && !b->in_array)) {
                    b->in_launch |= a->in_launch;
                    b->in_array |= a->in_array;
                    changed = true;
                }
            }
        }
        if (!changed)
            break;
    }
    /* gnames: every use, and the names flagged owned tunables mention */
    size_t want = 16;
    while (want < 2 * (x->uses.n + x->trefs.n) + 2)
        want *= 2;
    if (vec_reserve(&x->gtab.v, &x->gtab.cap, want, sizeof(long)))
        return x->err = HK_ENOMEM;
    x->gtab.cap = want;
    for (size_t i = 0; i < want; i++)
        x->gtab.v[i] = -1;
    x->gn.n = 0;
    for (size_t u = 0; u < x->uses.n && !x->err; u++)
        gn_add(x, x->uses.v[u].name, x->uses.v[u].kind);
    for (size_t k = 0; k < x->trefs.n && !x->err; k++) {
        const an_tunable *a = &tv[x->trefs.v[k].tunable];
        if (a->owner >= 0 && (a->in_launch || a->in_array))
            gn_add(x, x->trefs.v[k].name,
                   (a->in_launch ? USE_LAUNCH : 0u) | (a->in_array ? USE_ARRAY : 0u));
    }
    if (x->err)
        return x->err;
    if (x->gn.n) {
        it->gnames = arena_alloc(&it->arena, x->gn.n * sizeof(struct an_gname));
        if (!it->gnames)
            return x->err = HK_ENOMEM;
        for (size_t i = 0; i < x->gn.n; i++) {
            struct an_gname *g = &it->gnames[i];
            g->name = x_text(x, x->gn.v[i].name.s, x->gn.v[i].name.e);
            if (!g->name)
                return x->err;
            g->hash = hash_str(g->name);
            g->kinds = x->gn.v[i].kinds;
        }
        it->n_gnames = x->gn.n;
    }
    /* tunables of dropped functions go too; file-scope ones keep their references */
    long *tmap = NULL;
    size_t kept = 0;
    if (nt) {
        tmap = arena_alloc(&it->arena, nt * sizeof(long));
        it->tunables = arena_alloc(&it->arena, nt * sizeof(an_tunable));
        if (!tmap || !it->tunables)
            return x->err = HK_ENOMEM;
        for (size_t i = 0; i < nt; i++) {
            an_tunable t = tv[i];
            long o = t.owner >= 0 ? map[t.owner] : -1;
            if (t.owner >= 0 && o < 0) {
                tmap[i] = -1;
                continue;
            }
            t.owner = o;
            tmap[i] = (long)kept;
            it->tunables[kept++] = t;
        }
        it->n_tunables = kept;
    }
    size_t nr = 0;
    for (size_t k = 0; k < x->trefs.n; k++)
        nr += tv[x->trefs.v[k].tunable].owner < 0;
    if (nr) {
        it->trefs = arena_alloc(&it->arena, nr * sizeof(struct an_tref));
        if (!it->trefs)
            return x->err = HK_ENOMEM;
        for (size_t k = 0; k < x->trefs.n; k++) {
            struct an_rawtref r = x->trefs.v[k];
            if (tv[r.tunable].owner >= 0)
                continue;
            struct an_tref *tr = &it->trefs[it->n_trefs];
            tr->tunable = (size_t)tmap[r.tunable];
            tr->name = x_text(x, r.name.s, r.name.e);
            if (!tr->name)
                return x->err;
            tr->hash = hash_str(tr->name);
            it->n_trefs++;
        }
    }
    return HK_OK;
}

/* Extracts one top-level item from unit into it (fresh). */
/* Ids for extracted functions and models: one counter for the process, since
 * an_analyze may run on other threads. */
static _Atomic uint64_t gen_counter;

static uint64_t next_gen(void)
{
    return atomic_fetch_add_explicit(&gen_counter, 1, memory_order_relaxed) + 1;
}

static int x_item(struct an_x *x, struct an_item *it, TSNode unit)
{
    memset(it, 0, sizeof(*it));
    it->start_byte = ts_node_start_byte(unit);
    it->end_byte = ts_node_end_byte(unit);
    it->start_row = ts_node_start_point(unit).row;
    it->end_row = ts_node_end_point(unit).row;
    it->symbol = ts_node_symbol(unit);
    it->had_error = ts_node_has_error(unit);
    TSSymbol t = it->symbol;
    if (t == S.comment || t == S.preproc_include || !ts_node_is_named(unit))
        return HK_OK;
    size_t ulen = it->end_byte - it->start_byte;
    it->arena.hint = ulen < 512 ? 512 : ulen > 65536 ? 65536 : ulen;
    x->it = it;
    x->err = HK_OK;
    x->funcs.n = x->fkeep.n = x->launches.n = x->tunables.n = x->shared.n = 0;
    x->flaunch.n = x->locals.n = x->uses.n = x->trefs.n = x->frames.n = 0;
    x->anc.n = 0;
    x->error_depth = UINT32_MAX;
    for (size_t i = 0; i < HK_ARRAY_LEN(x->kids); i++)
        x->kids[i].valid = false;
    x_walk(x, unit);
    if (x->err)
        goto out;

    /* drop host functions without launches; remap indices */
    long *map = NULL;
    size_t nf = 0;
    if (x->funcs.n) {
        map = arena_alloc(&it->arena, x->funcs.n * sizeof(long));
        if (!map) {
            x->err = HK_ENOMEM;
            goto out;
        }
        for (size_t i = 0; i < x->funcs.n; i++)
            map[i] = x->fkeep.v[i] ? (long)nf++ : -1;
    }
    if (nf) {
        it->funcs = arena_alloc(&it->arena, nf * sizeof(an_function));
        if (!it->funcs) {
            x->err = HK_ENOMEM;
            goto out;
        }
        for (size_t i = 0; i < x->funcs.n; i++)
            if (map[i] >= 0)
                it->funcs[map[i]] = x->funcs.v[i];
        it->n_funcs = nf;
    }
    if (x->launches.n) {
        it->launches = arena_alloc(&it->arena, x->launches.n * sizeof(an_launch));
        if (!it->launches) {
            x->err = HK_ENOMEM;
            goto out;
        }
        for (size_t i = 0; i < x->launches.n; i++) {
            it->launches[i] = x->launches.v[i];
            long cf = it->launches[i].caller;
            it->launches[i].caller = cf >= 0 ? map[cf] : -1;
        }
        it->n_launches = x->launches.n;
    }
    if (x_resolve_item(x, map))
        goto out;
    for (size_t i = 0; i < it->n_funcs; i++) {
        it->funcs[i].gen = next_gen();
        it->n_pool += it->funcs[i].n_launches;
        it->n_ppool += it->funcs[i].n_params;
        it->n_spool += it->funcs[i].n_shared;
    }
out:
    if (x->err) {
        int e = x->err;
        item_free(it);
        return e;
    }
    return HK_OK;
}

/* ---------------------------------------------------------------- documents */

/* The file-wide table of names used in launch configurations and array sizes, with
 * how many items use each: kept up to date as items come and go, so an edit costs a
 * few updates instead of re-hashing every use of the file. */
struct an_nslot {
    char *name;        /* owned; NULL: empty; NSLOT_TOMB: deleted */
    uint32_t hash;
    uint32_t n_launch, n_array;
};

static char nslot_tomb;
#define NSLOT_TOMB (&nslot_tomb)

struct an_names {
    struct an_nslot *s;
    size_t cap, used, live;   /* used counts tombstones too */
    bool changed;             /* a name started or stopped being used in a launch or an
                               * array size since the flags were last resolved */
};

static void names_free(struct an_names *t)
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->s[i].name && t->s[i].name != NSLOT_TOMB)
            hk_free(t->s[i].name);
    hk_free(t->s);
    memset(t, 0, sizeof(*t));
}

static struct an_nslot *names_find(const struct an_names *t, const char *name, uint32_t h)
{
    if (!t->cap)
        return NULL;
    size_t mask = t->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct an_nslot *sl = &t->s[i];
        if (!sl->name)
            return NULL;
        if (sl->name != NSLOT_TOMB && sl->hash == h && !strcmp(sl->name, name))
            return sl;
    }
}

static int names_grow(struct an_names *t)
{
    size_t nc = t->cap ? t->cap : 64;
    while (nc < 4 * (t->live + 1))
        nc *= 2;
    struct an_nslot *ns = hk_calloc(nc, sizeof(*ns));
    if (!ns)
        return HK_ENOMEM;
    for (size_t i = 0; i < t->cap; i++) {
        struct an_nslot *o = &t->s[i];
        if (!o->name || o->name == NSLOT_TOMB)
            continue;
        size_t j = o->hash & (nc - 1);
        while (ns[j].name)
            j = (j + 1) & (nc - 1);
        ns[j] = *o;
    }
    hk_free(t->s);
    t->s = ns;
    t->cap = nc;
    t->used = t->live;
    return HK_OK;
}

/* Adds (delta 1) or removes (delta -1) an item's names. */
static int names_update(struct an_names *t, const struct an_item *it, int delta)
{
    for (size_t k = 0; k < it->n_gnames; k++) {
        const struct an_gname *g = &it->gnames[k];
        struct an_nslot *sl = names_find(t, g->name, g->hash);
        if (delta < 0) {
            if (!sl)
                continue;        /* cannot happen: every add precedes its remove */
            if (g->kinds & USE_LAUNCH)
                t->changed |= --sl->n_launch == 0;
            if (g->kinds & USE_ARRAY)
                t->changed |= --sl->n_array == 0;
            if (!sl->n_launch && !sl->n_array) {
                hk_free(sl->name);
                sl->name = NSLOT_TOMB;
                t->live--;
            }
            continue;
        }
        if (!sl) {
            if (2 * (t->used + 1) > t->cap && names_grow(t))
                return HK_ENOMEM;
            size_t mask = t->cap - 1, i = g->hash & mask;
            while (t->s[i].name && t->s[i].name != NSLOT_TOMB)
                i = (i + 1) & mask;
            char *copy = hk_strdup(g->name);
            if (!copy)
                return HK_ENOMEM;
            if (!t->s[i].name)
                t->used++;
            sl = &t->s[i];
            sl->name = copy;
            sl->hash = g->hash;
            sl->n_launch = sl->n_array = 0;
            t->live++;
        }
        if (g->kinds & USE_LAUNCH)
            t->changed |= sl->n_launch++ == 0;
        if (g->kinds & USE_ARRAY)
            t->changed |= sl->n_array++ == 0;
    }
    return HK_OK;
}

struct an_store {
    an_model m;                    /* first: an_model_free casts back */
    struct an_item *items;
    size_t n_items, cap_items;
    size_t cap_funcs, cap_launches, cap_tunables;
    size_t *pool;                  /* an_function.launches point here */
    size_t cap_pool;
    an_param *ppool;               /* an_function.params point here: one array, so that
                                    * moving the positions after an edit streams */
    size_t cap_ppool;
    an_shared *spool;              /* an_function.shared point here */
    size_t cap_spool;
    struct an_names names;         /* gnames of the items with counted set */
    long *tnext;                   /* assembly scratch: tunables chained by name */
    size_t cap_tnext;
    long *thead;
    size_t cap_thead;
    size_t n_tref_items;           /* items with tunable references (n_trefs) */
};

/* A chunk: a run of top-level items parsed on its own (chunks.h says where they split).
 * Chunks tile the text. A chunk over AN_CHUNK_KEEP_TREE bytes keeps its tree between
 * parses (one that cannot be split: a file-long namespace or #ifdef), and so do the
 * chunks the last edit made (AN_RECENT_MAX); the others are parsed again from scratch
 * when an edit touches them, which at 1-4 KB costs about what tree-sitter's incremental
 * reparse of a whole 700 KB file does, and holds no tree in memory (a tree takes ~50
 * times its text). */
#define AN_CHUNK_KEEP_TREE (64u << 10)
/* The error-free chunks the last incremental parse made keep their trees too, up to this
 * many bytes in all: typing goes on where it was, and tree-sitter's incremental reparse
 * of a kept tree costs a fraction of parsing the chunk again (2 KB: 0.6 ms). A result
 * with errors is never kept from such a reparse (see plan_region), so the model stays a
 * function of the text. The next parse that makes other chunks drops them; memory stays
 * under a megabyte. */
#define AN_RECENT_MAX (16u << 10)
#define AN_PARALLEL_MIN (64u << 10)   /* shorter texts are parsed on the caller's thread */
#define AN_THREADS_DEFAULT 4u

struct an_seg {
    uint32_t start, end;           /* bytes; start is 0 or a line start */
    uint32_t start_row, end_row, end_col;
    bool has_error;                /* its tree has ERROR/MISSING nodes */
    bool dirty;                    /* an edit touched it: its start may be stale */
    bool recent;                   /* tree kept as the last edit's (see AN_RECENT_MAX) */
    TSTree *tree;                  /* kept over AN_CHUNK_KEEP_TREE bytes, or recent */
};

struct an_doc {
    TSParser *parser;
    struct an_seg *segs;           /* the chunks, in text order; none before a parse */
    size_t n_segs, cap_segs;
    bool edited;                   /* edits recorded since the last parse */
    uint32_t dirty_lo, dirty_hi;   /* bytes of the current text the edits touched */
    bool reuse;
    bool model_ok;                 /* items match the chunks (false after ENOMEM) */
    uint64_t timeout_us;
    unsigned threads;
    bool whole;                    /* an_doc_set_chunked(false): one chunk, parsed afresh */
    struct an_store st;
    struct an_macro *macros;
    size_t n_macros;
    an_doc_stats stats;
    uint64_t model_id;             /* 0 until the first successful parse */
    void *user;                    /* an_doc_set_user */
    void (*user_free)(void *p);
};

static void store_free(struct an_store *st)
{
    for (size_t i = 0; i < st->n_items; i++)
        item_free(&st->items[i]);
    hk_free(st->items);
    hk_free(st->m.funcs);
    hk_free(st->m.launches);
    hk_free(st->m.tunables);
    hk_free(st->pool);
    hk_free(st->ppool);
    hk_free(st->spool);
    hk_free(st->tnext);
    hk_free(st->thead);
    names_free(&st->names);
    memset(st, 0, sizeof(*st));
}

static void store_clear(struct an_store *st)
{
    for (size_t i = 0; i < st->n_items; i++)
        item_free(&st->items[i]);
    st->n_items = 0;
    st->n_tref_items = 0;
    st->m.n_funcs = st->m.n_launches = st->m.n_tunables = 0;
    st->m.has_errors = false;
    names_free(&st->names);
}

static void macros_free(struct an_macro *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hk_free(m[i].name);
    hk_free(m);
}

static void segs_clear(an_doc *d)
{
    for (size_t i = 0; i < d->n_segs; i++)
        if (d->segs[i].tree)
            ts_tree_delete(d->segs[i].tree);
    d->n_segs = 0;
}

int an_doc_new(an_doc **out)
{
    *out = NULL;
    an_doc *d = hk_calloc(1, sizeof(*d));
    if (!d)
        return HK_ENOMEM;
    d->parser = ts_parser_new();
    if (!d->parser) {
        hk_free(d);
        return HK_ENOMEM;
    }
    if (!ts_parser_set_language(d->parser, tree_sitter_cuda())) {
        ts_parser_delete(d->parser);
        hk_free(d);
        return HK_EUNSUPPORTED;
    }
    syms_init();   /* after set_language: the grammar's layout is one this runtime reads */
    d->reuse = true;
    d->timeout_us = AN_PARSE_TIMEOUT_US;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    d->threads = ncpu < 1 ? 1 : ncpu > AN_THREADS_DEFAULT ? AN_THREADS_DEFAULT : (unsigned)ncpu;
    *out = d;
    return HK_OK;
}

void an_doc_free(an_doc *d)
{
    if (!d)
        return;
    segs_clear(d);
    hk_free(d->segs);
    ts_parser_delete(d->parser);
    if (d->user && d->user_free)
        d->user_free(d->user);
    store_free(&d->st);
    macros_free(d->macros, d->n_macros);
    hk_free(d);
}

void an_doc_set_parse_timeout(an_doc *d, uint64_t micros)
{
    d->timeout_us = micros;
}

void an_doc_set_threads(an_doc *d, unsigned threads)
{
    d->threads = threads ? threads : 1;
}

void an_doc_set_chunked(an_doc *d, bool chunked)
{
    d->whole = !chunked;
}

void an_doc_set_reuse(an_doc *d, bool reuse)
{
    d->reuse = reuse;
}

void an_doc_get_stats(const an_doc *d, an_doc_stats *out)
{
    *out = d->stats;
}

char *an_tree_string(const char *text, size_t len)
{
    if (len > AN_TEXT_MAX_BYTES)
        return NULL;
    TSParser *p = ts_parser_new();
    if (!p)
        return NULL;
    char *r = NULL;
    if (ts_parser_set_language(p, tree_sitter_cuda())) {
        TSTree *t = ts_parser_parse_string(p, NULL, text ? text : "", (uint32_t)len);
        if (t) {
            char *s = ts_node_string(ts_tree_root_node(t));
            if (s)
                r = hk_strdup(s);
            free(s);                /* tree-sitter allocates with malloc */
            ts_tree_delete(t);
        }
    }
    ts_parser_delete(p);
    return r;
}

size_t an_doc_chunks(const an_doc *d, uint32_t *starts, size_t cap)
{
    for (size_t i = 0; i < d->n_segs && i < cap; i++)
        starts[i] = d->segs[i].start;
    return d->n_segs;
}

uint32_t an_doc_rows(const an_doc *d)
{
    /* the chunks tile the text: the last one ends where it does */
    return d->n_segs ? d->segs[d->n_segs - 1].end_row : 0;
}

uint64_t an_doc_model_id(const an_doc *d)
{
    return d->model_id;
}

void an_doc_set_user(an_doc *d, void *p, void (*free_fn)(void *p))
{
    if (d->user && d->user != p && d->user_free)
        d->user_free(d->user);
    d->user = p;
    d->user_free = free_fn;
}

void *an_doc_user(const an_doc *d)
{
    return d->user;
}

const an_model *an_doc_model(const an_doc *d)
{
    return &d->st.m;
}

int an_doc_edit(an_doc *d, uint32_t start_byte, uint32_t old_end_byte, uint32_t new_end_byte,
                uint32_t start_row, uint32_t start_col, uint32_t old_end_row, uint32_t old_end_col,
                uint32_t new_end_row, uint32_t new_end_col)
{
    if (old_end_byte < start_byte || new_end_byte < start_byte || old_end_row < start_row ||
        new_end_row < start_row || (old_end_row == start_row && old_end_col < start_col) ||
        (new_end_row == start_row && new_end_col < start_col))
        return HK_EINVAL;
    if (!d->n_segs)
        return HK_OK;                      /* nothing parsed yet: the next parse is full */
    TSInputEdit e = {start_byte, old_end_byte, new_end_byte, {start_row, start_col},
                     {old_end_row, old_end_col}, {new_end_row, new_end_col}};
    int64_t db = (int64_t)new_end_byte - (int64_t)old_end_byte;
    int64_t dr = (int64_t)new_end_row - (int64_t)old_end_row;

    /* the touched range, in the coordinates after this edit */
    if (!d->edited) {
        d->dirty_lo = start_byte;
        d->dirty_hi = new_end_byte;
    } else {
        uint32_t hi = d->dirty_hi;
        if (hi > start_byte)
            hi = hi >= old_end_byte ? (uint32_t)((int64_t)hi + db) : new_end_byte;
        d->dirty_hi = hi > new_end_byte ? hi : new_end_byte;
        if (start_byte < d->dirty_lo)
            d->dirty_lo = start_byte;
    }
    d->edited = true;

    for (size_t i = 0; i < d->n_segs; i++) {
        struct an_seg *c = &d->segs[i];
        if (c->tree)
            ts_tree_edit(c->tree, &e);     /* kept trees follow every edit */
        if (c->dirty || c->end < start_byte)
            continue;
        /* a chunk after the edit moves; it still starts a line when the text before it
         * ends one (new_end_col 0) or is unchanged */
        if (c->start > old_end_byte || (c->start == old_end_byte && new_end_col == 0 &&
                                          c->end > c->start)) {
            c->start = (uint32_t)((int64_t)c->start + db);
            c->end = (uint32_t)((int64_t)c->end + db);
            c->start_row = (uint32_t)((int64_t)c->start_row + dr);
            c->end_row = (uint32_t)((int64_t)c->end_row + dr);
        } else if (c->end > start_byte || c->start >= start_byte) {
            c->dirty = true;
        }
    }
    for (size_t i = 0; i < d->st.n_items; i++) {
        struct an_item *it = &d->st.items[i];
        if (it->dirty || it->end_byte <= start_byte)
            continue;
        if (it->start_byte >= old_end_byte && it->start_row > old_end_row) {
            it->start_byte = (uint32_t)(it->start_byte + db);
            it->end_byte = (uint32_t)(it->end_byte + db);
            it->start_row = (uint32_t)(it->start_row + dr);
            it->end_row = (uint32_t)(it->end_row + dr);
            it->shift_bytes += db;
            it->shift_rows += dr;
        } else {
            it->dirty = true;
        }
    }
    return HK_OK;
}

/* Top-level items: children of the root, looking through namespaces, extern "C" and
 * #if/#ifdef blocks. */
struct node_vec {
    TSNode *v;
    size_t n, cap;
};

static int collect_units(TSNode n, struct node_vec *out, int depth)
{
    TSTreeCursor c = ts_tree_cursor_new(n);
    int rc = HK_OK;
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&c);
            TSSymbol t = ts_node_symbol(k);
            if (depth < 64 &&
                (t == S.namespace_definition || t == S.declaration_list ||
                 t == S.linkage_specification || t == S.preproc_if || t == S.preproc_ifdef ||
                 t == S.preproc_else || t == S.preproc_elif)) {
                rc = collect_units(k, out, depth + 1);
            } else if (ts_node_is_named(k) && t != S.comment) {
                /* an ERROR is one item: recovering functions needs its siblings */
                if (vec_reserve(&out->v, &out->cap, out->n + 1, sizeof(TSNode)) != HK_OK)
                    rc = HK_ENOMEM;
                else
                    out->v[out->n++] = k;
            }
        } while (rc == HK_OK && ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return rc;
}

/* The macro table from the #define units. */
static int collect_macros(const char *src, const TSNode *units, size_t n, struct an_macro **out,
                          size_t *n_out)
{
    struct an_macro *m = NULL;
    size_t nm = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        if (ts_node_symbol(units[i]) != S.preproc_def)
            continue;
        TSNode name = ts_node_child_by_field_id(units[i], S.f_name);
        TSNode value = ts_node_child_by_field_id(units[i], S.f_value);
        if (ts_node_is_null(name) || ts_node_is_null(value))
            continue;
        uint32_t vs = ts_node_start_byte(value), ve = ts_node_end_byte(value);
        unsigned mods = mods_in_text(src + vs, ve - vs);
        if (!mods)
            continue;
        uint32_t ns = ts_node_start_byte(name), ne = ts_node_end_byte(name);
        if (ne - ns > 64)
            continue;
        if (vec_reserve(&m, &cap, nm + 1, sizeof(*m)) != HK_OK)
            goto oom;
        m[nm].name = hk_strndup(src + ns, ne - ns);
        if (!m[nm].name)
            goto oom;
        m[nm].mods = mods;
        nm++;
    }
    *out = m;
    *n_out = nm;
    return HK_OK;
oom:
    macros_free(m, nm);
    return HK_ENOMEM;
}

static bool macros_equal(const struct an_macro *a, size_t na, const struct an_macro *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (a[i].mods != b[i].mods || strcmp(a[i].name, b[i].name))
            return false;
    return true;
}

/* The in_launch / in_array flags of file-scope tunables: from the name table, then
 * along the tunable-to-tunable references. all: every file-scope tunable of the model;
 * else only those in [t0, t1), which is exact when no item has references and the
 * table's flags did not change (names.changed) since the others were resolved. */
static int tunables_resolve(struct an_store *st, bool all, size_t t0, size_t t1)
{
    an_model *m = &st->m;
    size_t nt = m->n_tunables;
    st->names.changed = false;
    if (!all) {
        for (size_t k = t0; k < t1; k++) {
            an_tunable *t = &m->tunables[k];
            if (t->owner >= 0)
                continue;                   /* resolved inside its item */
            const struct an_nslot *sl = names_find(&st->names, t->name, hash_str(t->name));
            t->in_launch = sl && sl->n_launch;
            t->in_array = sl && sl->n_array;
        }
        return HK_OK;
    }
    bool flagged_refs = false;
    size_t ot = 0;
    for (size_t i = 0; i < st->n_items; i++) {
        struct an_item *it = &st->items[i];
        for (size_t k = 0; k < it->n_tunables; k++) {
            an_tunable *t = &m->tunables[ot + k];
            if (t->owner >= 0)
                continue;
            const struct an_nslot *sl = names_find(&st->names, t->name, hash_str(t->name));
            t->in_launch = sl && sl->n_launch;
            t->in_array = sl && sl->n_array;
            flagged_refs |= (t->in_launch || t->in_array) && it->n_trefs;
        }
        ot += it->n_tunables;
    }
    if (!flagged_refs)
        return HK_OK;

    /* a file-scope tunable in a launch (array) makes the file-scope tunables its value
     * names so too: chain them by name, then follow references to a fixed point */
    size_t hn = 16;
    while (hn < 2 * nt)
        hn *= 2;
    if (vec_reserve(&st->tnext, &st->cap_tnext, nt, sizeof(long)) ||
        vec_reserve(&st->thead, &st->cap_thead, hn, sizeof(long)))
        return HK_ENOMEM;
    for (size_t i = 0; i < hn; i++)
        st->thead[i] = -1;
    for (size_t k = 0; k < nt; k++) {
        if (m->tunables[k].owner >= 0)
            continue;
        size_t b = hash_str(m->tunables[k].name) & (hn - 1);
        st->tnext[k] = st->thead[b];
        st->thead[b] = (long)k;
    }
    for (int round = 0; round < AN_PROPAGATE_ROUNDS; round++) {
        bool changed = false;
        ot = 0;
        for (size_t i = 0; i < st->n_items; i++) {
            struct an_item *it = &st->items[i];
            for (size_t k = 0; k < it->n_trefs; k++) {
                const struct an_tref *r = &it->trefs[k];
                const an_tunable *a = &m->tunables[ot + r->tunable];
                if (!a->in_launch && !a->in_array)
                    continue;
                for (long b = st->thead[r->hash & (hn - 1)]; b >= 0; b = st->tnext[b]) {
                    an_tunable *bt = &m->tunables[b];
                    if (strcmp(bt->name, r->name))
                        continue;
                    if ((a->in_launch && !bt->in_launch) || (a->in_array && !bt->in_array)) {
                        bt->in_launch |= a->in_launch;
                        bt->in_array |= a->in_array;
                        changed = true;
                    }
                }
            }
            ot += it->n_tunables;
        }
        if (!changed)
            break;
    }
    return HK_OK;
}

/* Where an item's entries are in the flat arrays and pools. */
struct an_flat_at {
    size_t f, l, t, p, pp, sp;
};

static void flat_at_add(struct an_flat_at *a, const struct an_item *it)
{
    a->f += it->n_funcs;
    a->l += it->n_launches;
    a->t += it->n_tunables;
    a->p += it->n_pool;
    a->pp += it->n_ppool;
    a->sp += it->n_spool;
}

/* Model entries being built. */
struct an_flat_vec {
    VEC(an_function) f;
    VEC(an_launch) l;
    VEC(an_tunable) t;
    VEC(size_t) p;
    VEC(an_param) pp;
    VEC(an_shared) sp;
};

/* Moves a function's own positions by db bytes and dr rows (its params and shared
 * declarations are in the pools, moved with them). */
static void func_shift(an_function *f, int64_t db, int64_t dr)
{
    span_shift(&f->span, db, dr);
    span_shift(&f->name_span, db, dr);
    span_shift(&f->body_span, db, dr);
}

/* Appends to v the model entries of item it: from its own arrays when fresh (was NULL),
 * else copied from the current model where they are at *was, moved by the item's
 * pending shift. at: where they go in the new model (indices are renumbered for it).
 * The functions' launches, params and shared are left NULL for the caller to point
 * into the pools. */
static int flat_push_item(const an_model *m, struct an_item *it, const struct an_flat_at *was,
                          struct an_flat_at at, struct an_flat_vec *v)
{
    if (vec_reserve(&v->f.v, &v->f.cap, v->f.n + it->n_funcs, sizeof(an_function)) ||
        vec_reserve(&v->l.v, &v->l.cap, v->l.n + it->n_launches, sizeof(an_launch)) ||
        vec_reserve(&v->t.v, &v->t.cap, v->t.n + it->n_tunables, sizeof(an_tunable)) ||
        vec_reserve(&v->p.v, &v->p.cap, v->p.n + it->n_pool, sizeof(size_t)) ||
        vec_reserve(&v->pp.v, &v->pp.cap, v->pp.n + it->n_ppool, sizeof(an_param)) ||
        vec_reserve(&v->sp.v, &v->sp.cap, v->sp.n + it->n_spool, sizeof(an_shared)))
        return HK_ENOMEM;
    int64_t db = it->shift_bytes, dr = it->shift_rows;
    bool move = was && (db || dr);
    /* old index -> new index: x - from + to */
    long df = was ? (long)at.f - (long)was->f : (long)at.f;
    size_t dl_from = was ? was->l : 0;
    for (size_t k = 0; k < it->n_funcs; k++) {
        an_function f = was ? m->funcs[was->f + k] : it->funcs[k];
        if (move)
            func_shift(&f, db, dr);
        for (size_t j = 0; j < f.n_launches; j++)
            v->p.v[v->p.n++] = f.launches[j] - dl_from + at.l;
        for (size_t j = 0; j < f.n_params; j++) {
            an_param q = f.params[j];
            if (move)
                span_shift(&q.span, db, dr);
            v->pp.v[v->pp.n++] = q;
        }
        for (size_t j = 0; j < f.n_shared; j++) {
            an_shared q = f.shared[j];
            if (move)
                span_shift(&q.span, db, dr);
            v->sp.v[v->sp.n++] = q;
        }
        f.launches = NULL;
        f.params = NULL;
        f.shared = NULL;
        v->f.v[v->f.n++] = f;
    }
    for (size_t k = 0; k < it->n_launches; k++) {
        an_launch l = was ? m->launches[was->l + k] : it->launches[k];
        if (move)
            span_shift(&l.span, db, dr);
        if (l.caller >= 0)
            l.caller += df;
        v->l.v[v->l.n++] = l;
    }
    for (size_t k = 0; k < it->n_tunables; k++) {
        an_tunable t = was ? m->tunables[was->t + k] : it->tunables[k];
        if (move) {
            span_shift(&t.span, db, dr);
            span_shift(&t.value_span, db, dr);
        }
        if (t.owner >= 0)
            t.owner += df;
        v->t.v[v->t.n++] = t;
    }
    it->shift_bytes = it->shift_rows = 0;
    return HK_OK;
}

/* Points the model's functions [f0, n_funcs) at their launches, params and shared
 * declarations in the pools, from where f0's are (at). */
static void flat_point(struct an_store *st, size_t f0, struct an_flat_at at)
{
    an_model *m = &st->m;
    size_t op = at.p, opp = at.pp, osp = at.sp;
    for (size_t k = f0; k < m->n_funcs; k++) {
        an_function *f = &m->funcs[k];
        f->launches = f->n_launches ? st->pool + op : NULL;
        f->params = f->n_params ? st->ppool + opp : NULL;
        f->shared = f->n_shared ? st->spool + osp : NULL;
        op += f->n_launches;
        opp += f->n_params;
        osp += f->n_shared;
    }
}

/* Builds the flat model from freshly extracted items (their own arrays are what the
 * model copies); the name table must hold every item. */
static int assemble(struct an_store *st, bool has_errors)
{
    an_model *m = &st->m;
    /* the model's arrays are filled in place, as vectors */
    struct an_flat_vec v = {
        {m->funcs, 0, st->cap_funcs}, {m->launches, 0, st->cap_launches},
        {m->tunables, 0, st->cap_tunables}, {st->pool, 0, st->cap_pool},
        {st->ppool, 0, st->cap_ppool}, {st->spool, 0, st->cap_spool}};
    struct an_flat_at at = {0, 0, 0, 0, 0, 0};
    int rc = HK_OK;
    st->n_tref_items = 0;
    for (size_t i = 0; rc == HK_OK && i < st->n_items; i++) {
        struct an_item *it = &st->items[i];
        rc = flat_push_item(m, it, NULL, at, &v);
        flat_at_add(&at, it);
        st->n_tref_items += it->n_trefs > 0;
    }
    m->funcs = v.f.v;
    st->cap_funcs = v.f.cap;
    m->launches = v.l.v;
    st->cap_launches = v.l.cap;
    m->tunables = v.t.v;
    st->cap_tunables = v.t.cap;
    st->pool = v.p.v;
    st->cap_pool = v.p.cap;
    st->ppool = v.pp.v;
    st->cap_ppool = v.pp.cap;
    st->spool = v.sp.v;
    st->cap_spool = v.sp.cap;
    m->n_funcs = rc ? 0 : v.f.n;
    m->n_launches = rc ? 0 : v.l.n;
    m->n_tunables = rc ? 0 : v.t.n;
    if (rc)
        return rc;
    flat_point(st, 0, (struct an_flat_at){0, 0, 0, 0, 0, 0});
    m->has_errors = has_errors;
    return tunables_resolve(st, true, 0, m->n_tunables);
}

/* ---------------------------------------------------------------- parsing in chunks */

/* The chunks a parse makes for the region it redoes, with their trees. */
struct an_plan {
    struct an_seg *segs;
    size_t n, cap;
    size_t c0, c1;                 /* old chunks [c0, c1) are replaced */
    uint32_t r0, r1;               /* the region, bytes of the new text */
    size_t parsed;                 /* tree-sitter parses run */
    size_t reused;                 /* of which from a kept tree */
    uint64_t bytes_parsed;
};

static void plan_free(struct an_plan *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        if (pl->segs[i].tree)
            ts_tree_delete(pl->segs[i].tree);
    hk_free(pl->segs);
    memset(pl, 0, sizeof(*pl));
}

static int plan_push(struct an_plan *pl, const struct an_piece *p, TSTree *tree)
{
    if (vec_reserve(&pl->segs, &pl->cap, pl->n + 1, sizeof(*pl->segs))) {
        ts_tree_delete(tree);
        return HK_ENOMEM;
    }
    struct an_seg *c = &pl->segs[pl->n++];
    memset(c, 0, sizeof(*c));
    c->start = p->start;
    c->end = p->end;
    c->start_row = p->start_row;
    c->end_row = p->end_row;
    c->end_col = p->end_col;
    c->tree = tree;
    c->has_error = ts_node_has_error(ts_tree_root_node(tree));
    return HK_OK;
}

static struct an_piece piece_join(const struct an_piece *a, const struct an_piece *b)
{
    struct an_piece m = {a->start, b->end, a->start_row, b->end_row, b->end_col};
    return m;
}

static int parse_failed(bool timed_out)
{
    return timed_out ? HK_ETIMEDOUT : HK_EPARSE;
}

/* A piece whose tree has errors is parsed again together with the next piece: text the
 * scan split wrongly (`struct S {...}` then `s;` on the next line) parses as one does in
 * the whole file. Once only: a real syntax error must not swallow the rest of the file. */
static int plan_take(an_doc *d, struct an_plan *pl, const char *text, uint32_t len,
                     const struct an_piece *p, TSTree *tree, const struct an_piece *next,
                     uint64_t deadline)
{
    if (next && ts_node_has_error(ts_tree_root_node(tree))) {
        ts_tree_delete(tree);
        struct an_piece m = piece_join(p, next);
        bool to;
        tree = an_parse_piece(d->parser, text, len, &m, NULL, deadline, &to);
        if (!tree)
            return parse_failed(to);
        pl->parsed++;
        pl->bytes_parsed += m.end - m.start;
        return plan_push(pl, &m, tree);
    }
    return plan_push(pl, p, tree);
}

/* The whole text: its pieces parsed in parallel, then joined where one has errors. */
/* Cuts the whole text into pieces (one piece when d->whole), appended to *pc (n, cap):
 * the pieces a full parse hands to its threads. HK_OK or HK_ENOMEM. */
static int cut_pieces(const an_doc *d, const char *text, uint32_t len, struct an_piece **pc,
                      size_t *np, size_t *cap)
{
    uint32_t pos = 0, row = 0;
    do {
        if (vec_reserve(pc, cap, *np + 1, sizeof(**pc)))
            return HK_ENOMEM;
        struct an_piece *p = &(*pc)[*np];
        if (d->whole) {
            struct an_piece w = {0, len, 0, 0, 0};
            for (uint32_t i = 0; i < len; i++) {
                if (text[i] == '\n') {
                    w.end_row++;
                    w.end_col = 0;
                } else {
                    w.end_col++;
                }
            }
            *p = w;
        } else {
            an_piece_next(text, len, pos, row, p);
        }
        pos = p->end;
        row = p->end_row;
        (*np)++;
    } while (pos < len);
    return HK_OK;
}

static int plan_full(an_doc *d, const char *text, uint32_t len, uint64_t deadline,
                     struct an_plan *pl)
{
    struct an_piece *pc = NULL;
    size_t np = 0, cap = 0;
    TSTree **trees = NULL;
    int rc = HK_OK;
    if ((rc = cut_pieces(d, text, len, &pc, &np, &cap)))
        goto out;
    trees = hk_calloc(np, sizeof(*trees));
    if (!trees) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = an_parse_pieces(d->parser, tree_sitter_cuda(), text, len, pc, np, trees, deadline,
                         len >= AN_PARALLEL_MIN ? d->threads : 1, NULL, NULL);
    if (rc)
        goto out;
    pl->parsed += np;
    pl->bytes_parsed += len;
    for (size_t i = 0; i < np; i++) {
        bool join = i + 1 < np && ts_node_has_error(ts_tree_root_node(trees[i]));
        TSTree *t = trees[i];
        trees[i] = NULL;
        if (join) {
            ts_tree_delete(trees[i + 1]);
            trees[i + 1] = NULL;
        }
        rc = plan_take(d, pl, text, len, &pc[i], t, join ? &pc[i + 1] : NULL, deadline);
        if (rc)
            goto out;
        i += join;
    }
    pl->c0 = 0;
    pl->c1 = d->n_segs;
    pl->r0 = 0;
    pl->r1 = len;
out:
    if (trees)
        for (size_t i = 0; i < np; i++)
            if (trees[i])
                ts_tree_delete(trees[i]);
    hk_free(trees);
    hk_free(pc);
    return rc;
}

/* After edits: from the chunk before the first edit, pieces are made and parsed one by
 * one until one ends where an old chunk past the last edit starts. From there on the old
 * chunks are what the same scan would make again (the scan restarts at each chunk start
 * and a boundary depends only on the text before it and the line after), so they are
 * kept. A kept tree is reused for its chunk's reparse. */
static int plan_region(an_doc *d, const char *text, uint32_t len, uint64_t deadline,
                       struct an_plan *pl)
{
    /* the last chunk that starts before the first edit (its start is still right), or
     * the text's start when an edit is there (chunk 0 may have moved) */
    size_t c0 = 0;
    bool found = false;
    for (size_t i = 0; i < d->n_segs && d->segs[i].start < d->dirty_lo; i++) {
        c0 = i;
        found = true;
    }
    pl->c0 = c0;
    pl->c1 = d->n_segs;
    pl->r0 = found ? d->segs[c0].start : 0;
    pl->r1 = len;
    uint32_t pos = pl->r0, row = found ? d->segs[c0].start_row : 0;
    size_t j = found ? c0 + 1 : 0;   /* old chunks searched for a resynchronization point */
    for (;;) {
        struct an_piece p, q;
        an_piece_next(text, len, pos, row, &p);
        const struct an_seg *from = NULL;
        if (found && pos == pl->r0 && d->segs[c0].tree)
            from = &d->segs[c0];           /* its start is before every edit */
        else
            for (size_t k = j; k < d->n_segs && d->segs[k].start <= pos; k++)
                if (!d->segs[k].dirty && d->segs[k].start == pos && d->segs[k].tree)
                    from = &d->segs[k];
        bool to;
        TSTree *tree = an_parse_piece(d->parser, text, len, &p, from ? from->tree : NULL,
                                      deadline, &to);
        if (!tree)
            return parse_failed(to);
        pl->parsed++;
        pl->reused += from != NULL;
        pl->bytes_parsed += p.end - p.start;
        if (from && from->recent && p.end >= len && ts_node_has_error(ts_tree_root_node(tree))) {
            /* over broken code tree-sitter's incremental parse may recover otherwise than
             * a fresh one, and a cached tree must not change the model: parse afresh
             * (before another piece plan_take does so, joining the two) */
            ts_tree_delete(tree);
            tree = an_parse_piece(d->parser, text, len, &p, NULL, deadline, &to);
            if (!tree)
                return parse_failed(to);
            pl->parsed++;
            pl->bytes_parsed += p.end - p.start;
        }
        bool has_next = p.end < len;
        if (has_next)
            an_piece_next(text, len, p.end, p.end_row, &q);
        int rc = plan_take(d, pl, text, len, &p, tree, has_next ? &q : NULL, deadline);
        if (rc)
            return rc;
        pos = pl->segs[pl->n - 1].end;
        row = pl->segs[pl->n - 1].end_row;
        if (pos >= len)
            break;
        if (pos < d->dirty_hi)
            continue;
        while (j < d->n_segs && (d->segs[j].dirty || d->segs[j].start < pos))
            j++;
        if (j < d->n_segs && d->segs[j].start == pos) {
            pl->c1 = j;
            pl->r1 = pos;
            break;
        }
    }
    return HK_OK;
}

/* The macro table the new model would have: kept items before and after the region,
 * and the region's units, in text order. */
static int plan_macros(const an_doc *d, size_t i0, size_t i1, const char *text,
                       const struct node_vec *units, struct an_macro **out, size_t *n_out)
{
    struct an_macro *mid = NULL, *m = NULL;
    size_t n_mid = 0, n = 0, cap = 0;
    int rc = collect_macros(text, units->v, units->n, &mid, &n_mid);
    if (rc)
        return rc;
    const struct an_store *st = &d->st;
    for (int part = 0; part < 3 && rc == HK_OK; part++) {
        size_t a = part == 0 ? 0 : part == 1 ? 0 : i1;
        size_t b = part == 0 ? i0 : part == 1 ? n_mid : st->n_items;
        for (size_t i = a; i < b; i++) {
            const char *name = part == 1 ? mid[i].name : st->items[i].macro;
            if (!name)
                continue;
            if (vec_reserve(&m, &cap, n + 1, sizeof(*m))) {
                rc = HK_ENOMEM;
                break;
            }
            m[n].mods = part == 1 ? mid[i].mods : st->items[i].macro_mods;
            m[n].name = hk_strdup(name);
            if (!m[n].name) {
                rc = HK_ENOMEM;
                break;
            }
            n++;
        }
    }
    macros_free(mid, n_mid);
    if (rc) {
        macros_free(m, n);
        return rc;
    }
    *out = m;
    *n_out = n;
    return HK_OK;
}

static int plan_units(const struct an_plan *pl, struct node_vec *units)
{
    for (size_t i = 0; i < pl->n; i++) {
        int rc = collect_units(ts_tree_root_node(pl->segs[i].tree), units, 0);
        if (rc)
            return rc;
    }
    return HK_OK;
}

/* The qualifier macro an item defines, kept with it for later tables. */
static int item_set_macro(struct an_item *it, const char *src, TSNode unit)
{
    struct an_macro *m = NULL;
    size_t n = 0;
    int rc = collect_macros(src, &unit, 1, &m, &n);
    if (rc || !n)
        return rc;
    size_t l = strlen(m[0].name);
    char *s = arena_alloc(&it->arena, l + 1);
    if (s) {
        memcpy(s, m[0].name, l + 1);
        it->macro = s;
        it->macro_mods = m[0].mods;
    }
    macros_free(m, n);
    return s ? HK_OK : HK_ENOMEM;
}

/* The items of the region [r0, r1) that a plan redoes: [*i0, *i1). Items before the
 * region are untouched by the edits; dirty ones (stale positions) all lie inside it. */
static void region_items(const an_doc *d, const struct an_plan *pl, size_t *i0, size_t *i1)
{
    const struct an_store *st = &d->st;
    size_t a = 0, b;
    while (a < st->n_items && st->items[a].start_byte < pl->r0)
        a++;
    if (pl->c1 >= d->n_segs) {
        b = st->n_items;
    } else {
        for (b = a; b < st->n_items; b++)
            if (!st->items[b].dirty && st->items[b].start_byte >= pl->r1)
                break;
    }
    *i0 = a;
    *i1 = b;
}

/* ---------------------------------------------------------------- full parse, in parallel */

/* A full parse extracts each piece's items on the thread that parsed it, right after the
 * parse, and frees the tree there: the trees of a large file (~50 times its text) are
 * then never all in memory at once, and extraction, not only tree-sitter, runs on every
 * thread. Extraction needs the file's qualifier macro table before the whole tree is
 * known, so the workers use one guessed from the text (macros_guess); the real table is
 * read from the items afterwards, and when the guess was wrong (such a #define in a
 * function body or a comment) the parse is done again the serial way. */

/* `#define NAME value` lines (continuations included) whose value names __global__,
 * __device__ or __host__, in text order: what collect_macros finds in the tree of
 * ordinary code. */
static int macros_guess(const char *text, uint32_t len, struct an_macro **out, size_t *n_out)
{
    struct an_macro *m = NULL;
    size_t n = 0, cap = 0;
    const char *p = text, *end = text + len;
    while ((p = memchr(p, '#', (size_t)(end - p)))) {
        const char *b = p++;
        while (b > text && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (b > text && b[-1] != '\n')
            continue;                                /* not the line's first token */
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (end - p < 7 || memcmp(p, "define", 6) || (p[6] != ' ' && p[6] != '\t'))
            continue;
        p += 7;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        const char *ns = p;
        while (p < end && is_ident_char(*p))
            p++;
        size_t nl = (size_t)(p - ns);
        if (!nl || nl > 64 || (p < end && *p == '('))
            continue;                                /* function-like: not a qualifier */
        const char *vs = p;
        while (p < end && !(*p == '\n' && p[-1] != '\\' &&
                            !(p[-1] == '\r' && p - 2 >= vs && p[-2] == '\\')))
            p++;
        unsigned mods = mods_in_text(vs, (size_t)(p - vs));
        if (!mods)
            continue;
        if (vec_reserve(&m, &cap, n + 1, sizeof(*m)))
            goto oom;
        m[n].name = hk_strndup(ns, nl);
        if (!m[n].name)
            goto oom;
        m[n].mods = mods;
        n++;
    }
    *out = m;
    *n_out = n;
    return HK_OK;
oom:
    macros_free(m, n);
    return HK_ENOMEM;
}

/* What the thread that parsed a piece made of it. */
struct an_pres {
    struct an_item *items;        /* the piece's top-level items, when extracted */
    size_t n_items;
    TSTree *tree;                 /* kept for a chunk over AN_CHUNK_KEEP_TREE only */
    bool has_error;
    bool extracted;
};

struct an_full {
    const char *text;
    uint32_t len;
    const struct an_piece *pc;
    size_t np;
    struct an_pres *res;
    struct an_x x[AN_THREADS_MAX + 1];   /* one per worker: no lock */
};

static void pres_free(struct an_pres *r)
{
    for (size_t i = 0; i < r->n_items; i++)
        item_free(&r->items[i]);
    hk_free(r->items);
    if (r->tree)
        ts_tree_delete(r->tree);
    memset(r, 0, sizeof(*r));
}

/* The items of the units under root into a new array (*out, n_out). */
static int extract_tree(struct an_x *x, TSNode root, struct an_item **out, size_t *n_out)
{
    struct node_vec units = {0};
    struct an_item *items = NULL;
    size_t n = 0;
    int rc = collect_units(root, &units, 0);
    if (rc == HK_OK && units.n) {
        items = hk_malloc(units.n * sizeof(*items));
        if (!items)
            rc = HK_ENOMEM;
    }
    for (size_t u = 0; rc == HK_OK && u < units.n; u++) {
        rc = x_item(x, &items[n], units.v[u]);     /* frees the item on failure */
        if (rc == HK_OK) {
            rc = item_set_macro(&items[n], x->src, units.v[u]);
            if (rc)
                item_free(&items[n]);
            else
                n++;
        }
    }
    hk_free(units.v);
    if (rc) {
        for (size_t i = 0; i < n; i++)
            item_free(&items[i]);
        hk_free(items);
        return rc;
    }
    *out = items;
    *n_out = n;
    return HK_OK;
}

/* an_piece_fn: extracts piece i unless the merge will parse it again joined with the
 * next one (it has errors and is not the last), then frees its tree unless kept. */
static int full_piece_done(void *ctx, unsigned worker, size_t i, TSTree *tree)
{
    struct an_full *f = ctx;
    struct an_pres *r = &f->res[i];
    TSNode root = ts_tree_root_node(tree);
    int rc = HK_OK;
    r->has_error = ts_node_has_error(root);
    if (!r->has_error || i + 1 == f->np) {
        rc = extract_tree(&f->x[worker], root, &r->items, &r->n_items);
        r->extracted = rc == HK_OK;
    }
    if (r->extracted && f->pc[i].end - f->pc[i].start > AN_CHUNK_KEEP_TREE)
        r->tree = tree;
    else
        ts_tree_delete(tree);
    return rc;
}

static int plan_push_seg(struct an_plan *pl, const struct an_piece *p, TSTree *tree,
                         bool has_error)
{
    if (vec_reserve(&pl->segs, &pl->cap, pl->n + 1, sizeof(*pl->segs))) {
        if (tree)
            ts_tree_delete(tree);
        return HK_ENOMEM;
    }
    struct an_seg *c = &pl->segs[pl->n++];
    memset(c, 0, sizeof(*c));
    c->start = p->start;
    c->end = p->end;
    c->start_row = p->start_row;
    c->end_row = p->end_row;
    c->end_col = p->end_col;
    c->tree = tree;
    c->has_error = has_error;
    return HK_OK;
}

/* Appends items[0..n) to the vector (*v, *nv, *cv), moving them. */
static int items_append(struct an_item **v, size_t *nv, size_t *cv, struct an_item *items,
                        size_t n)
{
    if (!n)
        return HK_OK;
    if (vec_reserve(v, cv, *nv + n, sizeof(**v)))
        return HK_ENOMEM;
    memcpy(*v + *nv, items, n * sizeof(*items));
    *nv += n;
    return HK_OK;
}

/* The whole text: pieces parsed and extracted in parallel, then merged in text order,
 * a piece with errors parsed again joined with the next one (see plan_take) on this
 * thread. Fills pl (chunks; trees only where kept), *items (new array, in text order)
 * and the macro table they define. *redo: the guessed macro table was wrong; nothing is
 * returned then, and the caller parses the serial way. */
static int parse_full(an_doc *d, const char *text, uint32_t len, uint64_t deadline,
                      struct an_plan *pl, struct an_item **items_out, size_t *n_items_out,
                      struct an_macro **macros_out, size_t *n_macros_out, bool *redo)
{
    struct an_piece *pc = NULL;
    size_t np = 0, cap = 0;
    struct an_full *f = NULL;
    struct an_macro *guess = NULL, *real = NULL;
    size_t n_guess = 0, n_real = 0, cap_real = 0;
    struct an_item *items = NULL;
    size_t n_items = 0, cap_items = 0;
    int rc = HK_OK;
    *redo = false;
    if ((rc = cut_pieces(d, text, len, &pc, &np, &cap)))
        goto out;
    rc = macros_guess(text, len, &guess, &n_guess);
    if (rc)
        goto out;
    f = hk_calloc(1, sizeof(*f));
    struct an_pres *res = f ? hk_calloc(np, sizeof(*res)) : NULL;
    if (!res) {
        rc = HK_ENOMEM;
        goto out;
    }
    f->text = text;
    f->len = len;
    f->pc = pc;
    f->np = np;
    f->res = res;
    for (size_t w = 0; w < HK_ARRAY_LEN(f->x); w++) {
        f->x[w].src = text;
        f->x[w].len = len;
        f->x[w].macros = guess;
        f->x[w].n_macros = n_guess;
    }
    rc = an_parse_pieces(d->parser, tree_sitter_cuda(), text, len, pc, np, NULL, deadline,
                         len >= AN_PARALLEL_MIN ? d->threads : 1, full_piece_done, f);
    if (rc)
        goto out;
    pl->parsed += np;
    pl->bytes_parsed += len;
    for (size_t i = 0; i < np;) {
        struct an_pres *r = &res[i];
        if (!r->has_error || i + 1 == np) {
            rc = items_append(&items, &n_items, &cap_items, r->items, r->n_items);
            if (rc)
                goto out;
            hk_free(r->items);                     /* moved */
            r->items = NULL;
            r->n_items = 0;
            rc = plan_push_seg(pl, &pc[i], r->tree, r->has_error);
            r->tree = NULL;
            if (rc)
                goto out;
            i++;
            continue;
        }
        pres_free(&res[i + 1]);
        struct an_piece m = piece_join(&pc[i], &pc[i + 1]);
        bool to;
        TSTree *t = an_parse_piece(d->parser, text, len, &m, NULL, deadline, &to);
        if (!t) {
            rc = parse_failed(to);
            goto out;
        }
        pl->parsed++;
        pl->bytes_parsed += m.end - m.start;
        struct an_item *ji = NULL;
        size_t nj = 0;
        TSNode root = ts_tree_root_node(t);
        bool err = ts_node_has_error(root);
        rc = extract_tree(&f->x[0], root, &ji, &nj);
        if (rc == HK_OK) {
            rc = items_append(&items, &n_items, &cap_items, ji, nj);
            if (rc)
                for (size_t k = 0; k < nj; k++)
                    item_free(&ji[k]);
            hk_free(ji);
        }
        if (rc == HK_OK && m.end - m.start > AN_CHUNK_KEEP_TREE) {
            rc = plan_push_seg(pl, &m, t, err);
        } else {
            ts_tree_delete(t);
            if (rc == HK_OK)
                rc = plan_push_seg(pl, &m, NULL, err);
        }
        if (rc)
            goto out;
        i += 2;
    }
    /* the real table: the #define items, in text order */
    for (size_t i = 0; i < n_items; i++) {
        if (!items[i].macro)
            continue;
        if (vec_reserve(&real, &cap_real, n_real + 1, sizeof(*real))) {
            rc = HK_ENOMEM;
            goto out;
        }
        real[n_real].name = hk_strdup(items[i].macro);
        if (!real[n_real].name) {
            rc = HK_ENOMEM;
            goto out;
        }
        real[n_real++].mods = items[i].macro_mods;
    }
    if (!macros_equal(real, n_real, guess, n_guess)) {
        *redo = true;
        goto out;
    }
    pl->c0 = 0;
    pl->c1 = d->n_segs;
    pl->r0 = 0;
    pl->r1 = len;
    *items_out = items;
    *n_items_out = n_items;
    items = NULL;
    n_items = 0;
    *macros_out = real;
    *n_macros_out = n_real;
    real = NULL;
    n_real = 0;
out:
    if (f) {
        if (f->res)
            for (size_t i = 0; i < np; i++)
                pres_free(&f->res[i]);
        hk_free(f->res);
        for (size_t w = 0; w < HK_ARRAY_LEN(f->x); w++)
            x_free(&f->x[w]);
        hk_free(f);
    }
    for (size_t i = 0; i < n_items; i++)
        item_free(&items[i]);
    hk_free(items);
    macros_free(guess, n_guess);
    macros_free(real, n_real);
    hk_free(pc);
    if (rc || *redo)
        plan_free(pl);
    return rc;
}

/* Replaces the whole store with items (moved; the array is freed) and the chunks with
 * the plan's, then assembles the model. */
static int install_full(an_doc *d, struct an_plan *pl, struct an_item *items, size_t n_items,
                        struct an_macro **macros, size_t *n_macros)
{
    struct an_store *st = &d->st;
    int rc = HK_OK;
    for (size_t i = 0; i < st->n_items; i++) {
        if (st->items[i].counted)
            names_update(&st->names, &st->items[i], -1);
        item_free(&st->items[i]);
    }
    hk_free(st->items);
    st->items = items;
    st->n_items = st->cap_items = n_items;
    for (size_t i = 0; i < n_items; i++) {
        rc = names_update(&st->names, &items[i], 1);
        if (rc)
            return rc;               /* the caller clears the store */
        items[i].counted = true;
    }
    segs_clear(d);
    hk_free(d->segs);
    d->segs = pl->segs;
    d->n_segs = pl->n;
    d->cap_segs = pl->cap;
    pl->segs = NULL;
    pl->n = pl->cap = 0;
    macros_free(d->macros, d->n_macros);
    d->macros = *macros;
    d->n_macros = *n_macros;
    *macros = NULL;
    *n_macros = 0;
    bool has_errors = false;
    for (size_t i = 0; i < d->n_segs; i++)
        has_errors |= d->segs[i].has_error;
    rc = assemble(st, has_errors);
    if (rc)
        return rc;
    d->stats.items = st->n_items;
    d->stats.items_reused = 0;
    return HK_OK;
}

/* Replaces the items of the region with the units of the plan's chunks, reusing an old
 * item when no edit touched its text and a unit of the same kind covers exactly that
 * text, both free of errors: error-free text parsed from the same top-level state gives
 * the same subtree. (TSNode ids cannot tell: they address the child slot in the parent.)
 * The flat model is spliced the same way: the region's entries are replaced (a reused
 * item's moved from where they were), the ones after it move over by the difference in
 * number and by their pending shift; those before it are not touched. Then the chunks
 * are spliced. full: everything is the region and nothing is reused. */
static int commit(an_doc *d, struct an_plan *pl, const struct node_vec *units,
                  struct an_macro **macros, size_t *n_macros, const char *text, uint32_t len,
                  bool full)
{
    struct an_x x;
    memset(&x, 0, sizeof(x));
    struct an_store *st = &d->st;
    an_model *m = &st->m;
    struct an_item *reg = NULL;
    struct an_flat_at *was = NULL;
    long *src = NULL;
    struct an_flat_vec fv;
    memset(&fv, 0, sizeof(fv));
    size_t n_old = st->n_items, n_reg = 0, reused = 0;
    bool reg_moved = false;
    int rc = HK_OK;

    size_t i0 = 0, i1 = n_old;
    if (!full)
        region_items(d, pl, &i0, &i1);
    /* the region's entries start after those of the items before it */
    struct an_flat_at at0 = {0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < i0; i++)
        flat_at_add(&at0, &st->items[i]);
    was = hk_malloc((i1 - i0 ? i1 - i0 : 1) * sizeof(*was));
    reg = hk_malloc((units->n ? units->n : 1) * sizeof(*reg));
    src = hk_malloc((units->n ? units->n : 1) * sizeof(*src));
    if (!was || !reg || !src) {
        rc = HK_ENOMEM;
        goto out;
    }
    struct an_flat_at end_old = at0;       /* where the tail starts in the model now */
    for (size_t i = i0; i < i1; i++) {
        const struct an_item *it = &st->items[i];
        was[i - i0] = end_old;
        flat_at_add(&end_old, it);
        st->n_tref_items -= it->n_trefs > 0;
    }
    if (full)
        end_old = (struct an_flat_at){m->n_funcs, m->n_launches, m->n_tunables, 0, 0, 0};

    struct an_item *old = st->items;
    x.src = text;
    x.len = len;
    x.macros = *macros;
    x.n_macros = *n_macros;
    size_t j = i0;
    for (size_t u = 0; u < units->n; u++) {
        TSNode un = units->v[u];
        uint32_t s = ts_node_start_byte(un);
        if (!full) {
            while (j < i1 && (old[j].dirty || old[j].start_byte < s))
                j++;
            if (j < i1 && old[j].start_byte == s && old[j].end_byte == ts_node_end_byte(un) &&
                old[j].symbol == ts_node_symbol(un) && !old[j].had_error &&
                !ts_node_has_error(un)) {
                reg[n_reg] = old[j];
                src[n_reg++] = (long)(j - i0);
                memset(&old[j], 0, sizeof(old[j]));   /* moved */
                old[j].dirty = true;
                j++;
                reused++;
                continue;
            }
        }
        struct an_item *it = &reg[n_reg];
        rc = x_item(&x, it, un);
        if (rc)
            goto out;
        src[n_reg++] = -1;
        rc = item_set_macro(it, text, un);
        if (rc == HK_OK)
            rc = names_update(&st->names, it, 1);
        if (rc)
            goto out;
        it->counted = true;
    }
    /* the region's model entries, in their new order (the model is read, not changed) */
    struct an_flat_at end_new = at0;
    for (size_t k = 0; k < n_reg; k++) {
        struct an_item *it = &reg[k];
        rc = flat_push_item(m, it, src[k] >= 0 ? &was[src[k]] : NULL, end_new, &fv);
        if (rc)
            goto out;
        flat_at_add(&end_new, it);
        st->n_tref_items += it->n_trefs > 0;
    }
    /* old items of the region that were not moved leave the name table and go */
    for (size_t i = i0; i < i1; i++) {
        if (old[i].counted)
            names_update(&st->names, &old[i], -1);
        item_free(&old[i]);
    }
    size_t n_tail = n_old - i1, n_items = i0 + n_reg + n_tail;
    if (vec_reserve(&st->items, &st->cap_items, n_items, sizeof(*st->items))) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (n_tail && i0 + n_reg != i1)
        memmove(st->items + i0 + n_reg, st->items + i1, n_tail * sizeof(*st->items));
    if (n_reg)
        memcpy(st->items + i0, reg, n_reg * sizeof(*reg));
    reg_moved = true;
    st->n_items = n_items;
    size_t kept = i0 + n_tail;            /* outside the region: not even looked at */

    /* the model: the tail moves over, then the region's entries go in */
    struct an_flat_at tail = {0, 0, 0, 0, 0, 0};
    for (size_t i = i0 + n_reg; i < n_items; i++)
        flat_at_add(&tail, &st->items[i]);
    const void *pools_were[3] = {st->pool, st->ppool, st->spool};
    if (vec_reserve(&m->funcs, &st->cap_funcs, end_new.f + tail.f, sizeof(an_function)) ||
        vec_reserve(&m->launches, &st->cap_launches, end_new.l + tail.l, sizeof(an_launch)) ||
        vec_reserve(&m->tunables, &st->cap_tunables, end_new.t + tail.t, sizeof(an_tunable)) ||
        vec_reserve(&st->pool, &st->cap_pool, end_new.p + tail.p, sizeof(size_t)) ||
        vec_reserve(&st->ppool, &st->cap_ppool, end_new.pp + tail.pp, sizeof(an_param)) ||
        vec_reserve(&st->spool, &st->cap_spool, end_new.sp + tail.sp, sizeof(an_shared))) {
        rc = HK_ENOMEM;
        goto out;
    }
#define MOVE_TAIL(arr, field)                                                            \
    if (end_new.field != end_old.field && tail.field)                                    \
        memmove((arr) + end_new.field, (arr) + end_old.field, tail.field * sizeof(*(arr)))
    MOVE_TAIL(m->funcs, f);
    MOVE_TAIL(m->launches, l);
    MOVE_TAIL(m->tunables, t);
    MOVE_TAIL(st->pool, p);
    MOVE_TAIL(st->ppool, pp);
    MOVE_TAIL(st->spool, sp);
#undef MOVE_TAIL
    long df = (long)end_new.f - (long)end_old.f;
    long dl = (long)end_new.l - (long)end_old.l;
    struct an_flat_at cur = end_new;
    for (size_t i = i0 + n_reg; i < n_items; i++) {
        struct an_item *it = &st->items[i];
        int64_t db = it->shift_bytes, dr = it->shift_rows;
        if (db || dr) {
            for (size_t k = 0; k < it->n_funcs; k++)
                func_shift(&m->funcs[cur.f + k], db, dr);
            for (size_t k = 0; k < it->n_ppool; k++)
                span_shift(&st->ppool[cur.pp + k].span, db, dr);
            for (size_t k = 0; k < it->n_spool; k++)
                span_shift(&st->spool[cur.sp + k].span, db, dr);
        }
        for (size_t k = 0; k < it->n_launches; k++) {
            an_launch *l = &m->launches[cur.l + k];
            span_shift(&l->span, db, dr);
            if (l->caller >= 0)
                l->caller += df;
        }
        for (size_t k = 0; k < it->n_tunables; k++) {
            an_tunable *t = &m->tunables[cur.t + k];
            span_shift(&t->span, db, dr);
            span_shift(&t->value_span, db, dr);
            if (t->owner >= 0)
                t->owner += df;
        }
        for (size_t k = 0; dl && k < it->n_pool; k++)
            st->pool[cur.p + k] = (size_t)((long)st->pool[cur.p + k] + dl);
        it->shift_bytes = it->shift_rows = 0;
        flat_at_add(&cur, it);
    }
    if (fv.f.n)
        memcpy(m->funcs + at0.f, fv.f.v, fv.f.n * sizeof(an_function));
    if (fv.l.n)
        memcpy(m->launches + at0.l, fv.l.v, fv.l.n * sizeof(an_launch));
    if (fv.t.n)
        memcpy(m->tunables + at0.t, fv.t.v, fv.t.n * sizeof(an_tunable));
    if (fv.p.n)
        memcpy(st->pool + at0.p, fv.p.v, fv.p.n * sizeof(size_t));
    if (fv.pp.n)
        memcpy(st->ppool + at0.pp, fv.pp.v, fv.pp.n * sizeof(an_param));
    if (fv.sp.n)
        memcpy(st->spool + at0.sp, fv.sp.v, fv.sp.n * sizeof(an_shared));
    m->n_funcs = end_new.f + tail.f;
    m->n_launches = end_new.l + tail.l;
    m->n_tunables = end_new.t + tail.t;
    /* functions point into the pools: all of them when one moved, else the region's */
    if (st->pool != pools_were[0] || st->ppool != pools_were[1] ||
        st->spool != pools_were[2] || end_new.p != end_old.p || end_new.pp != end_old.pp ||
        end_new.sp != end_old.sp) {
        flat_point(st, 0, (struct an_flat_at){0, 0, 0, 0, 0, 0});
    } else {
        size_t n = m->n_funcs;
        m->n_funcs = end_new.f;          /* flat_point stops at n_funcs */
        flat_point(st, at0.f, at0);
        m->n_funcs = n;
    }

    /* the chunks: old [c0, c1) out, the plan's in; only large ones keep their trees */
    size_t n_segs = pl->c0 + pl->n + (d->n_segs - pl->c1);
    struct an_seg *segs = hk_malloc((n_segs ? n_segs : 1) * sizeof(*segs));
    if (!segs) {
        rc = HK_ENOMEM;
        goto out;
    }
    for (size_t i = pl->c0; i < pl->c1; i++)
        if (d->segs[i].tree)
            ts_tree_delete(d->segs[i].tree);
    if (pl->c0)
        memcpy(segs, d->segs, pl->c0 * sizeof(*segs));
    uint64_t region = 0;
    for (size_t i = 0; i < pl->n; i++)
        region += pl->segs[i].end - pl->segs[i].start;
    for (size_t i = 0; i < pl->n; i++) {
        struct an_seg *c = &pl->segs[i];
        c->recent = false;
        if (c->end - c->start <= AN_CHUNK_KEEP_TREE) {
            if (!full && region <= AN_RECENT_MAX && !c->has_error && c->tree) {
                c->recent = true;
            } else {
                ts_tree_delete(c->tree);
                c->tree = NULL;
            }
        }
        segs[pl->c0 + i] = *c;
    }
    if (d->n_segs > pl->c1)
        memcpy(segs + pl->c0 + pl->n, d->segs + pl->c1, (d->n_segs - pl->c1) * sizeof(*segs));
    /* an earlier edit's recent trees go */
    for (size_t i = 0; i < n_segs; i++) {
        if (i == pl->c0)
            i += pl->n;
        if (i < n_segs && segs[i].recent) {
            ts_tree_delete(segs[i].tree);
            segs[i].tree = NULL;
            segs[i].recent = false;
        }
    }
    hk_free(d->segs);
    d->segs = segs;
    d->n_segs = d->cap_segs = n_segs;
    pl->n = 0;                             /* moved */

    macros_free(d->macros, d->n_macros);
    d->macros = *macros;
    d->n_macros = *n_macros;
    *macros = NULL;
    *n_macros = 0;
    bool has_errors = false;
    for (size_t i = 0; i < d->n_segs; i++)
        has_errors |= d->segs[i].has_error;
    m->has_errors = has_errors;
    rc = tunables_resolve(st, full || st->names.changed || st->n_tref_items, at0.t, end_new.t);
    if (rc)
        goto out;
    d->stats.items = st->n_items;
    d->stats.items_reused = reused + kept;
out:
    /* on failure the caller clears the store (and the name table) and the chunks */
    if (!reg_moved)
        for (size_t i = 0; i < n_reg; i++)
            item_free(&reg[i]);
    hk_free(reg);
    hk_free(was);
    hk_free(src);
    hk_free(fv.f.v);
    hk_free(fv.l.v);
    hk_free(fv.t.v);
    hk_free(fv.p.v);
    hk_free(fv.pp.v);
    hk_free(fv.sp.v);
    x_free(&x);
    return rc;
}

int an_doc_parse(an_doc *d, const char *text, size_t len)
{
    if (len > AN_TEXT_MAX_BYTES)
        return HK_ETOOBIG;
    if (!text)
        text = "";
    uint32_t n = (uint32_t)len;
    uint64_t t0 = an_now_ns();
    uint64_t deadline = d->timeout_us ? t0 + d->timeout_us * 1000 : 0;
    bool incremental = d->edited && d->n_segs && d->model_ok && d->reuse && !d->whole;
    struct an_plan pl;
    struct node_vec units = {0};
    struct an_macro *macros = NULL;
    size_t n_macros = 0;
    int rc = HK_OK;
    memset(&pl, 0, sizeof(pl));
    if (incremental) {
        rc = plan_region(d, text, n, deadline, &pl);
        if (rc)
            goto fail;
        rc = plan_units(&pl, &units);
        size_t i0, i1;
        region_items(d, &pl, &i0, &i1);
        if (rc == HK_OK)
            rc = plan_macros(d, i0, i1, text, &units, &macros, &n_macros);
        if (rc)
            goto fail;
        if (!macros_equal(macros, n_macros, d->macros, d->n_macros)) {
            /* a qualifier macro changed how every function reads: all is redone */
            size_t parsed = pl.parsed;
            uint64_t bytes = pl.bytes_parsed;
            plan_free(&pl);
            macros_free(macros, n_macros);
            macros = NULL;
            n_macros = 0;
            units.n = 0;
            incremental = false;
            pl.parsed = parsed;
            pl.bytes_parsed = bytes;
        }
    }
    bool done = false;
    uint64_t t1 = 0, t2 = 0;
    size_t parsed = 0, reused = pl.reused;
    uint64_t bytes_parsed = 0;
    if (!incremental) {
        struct an_item *items = NULL;
        size_t n_items = 0;
        bool redo;
        size_t before = pl.parsed;
        uint64_t before_bytes = pl.bytes_parsed;
        rc = parse_full(d, text, n, deadline, &pl, &items, &n_items, &macros, &n_macros, &redo);
        if (rc)
            goto fail;
        if (!redo) {
            t1 = an_now_ns();
            parsed = pl.parsed;
            bytes_parsed = pl.bytes_parsed;
            rc = install_full(d, &pl, items, n_items, &macros, &n_macros);
            t2 = an_now_ns();
            if (rc)
                goto fail;
            done = true;
        } else {
            /* the guessed qualifier macros were wrong: tree first, then the items */
            pl.parsed = before;
            pl.bytes_parsed = before_bytes;
            rc = plan_full(d, text, n, deadline, &pl);
            if (rc == HK_OK)
                rc = plan_units(&pl, &units);
            if (rc == HK_OK)
                rc = collect_macros(text, units.v, units.n, &macros, &n_macros);
            if (rc)
                goto fail;
        }
    }
    if (!done) {
        t1 = an_now_ns();
        parsed = pl.parsed;
        bytes_parsed = pl.bytes_parsed;
        rc = commit(d, &pl, &units, &macros, &n_macros, text, n, !incremental);
        t2 = an_now_ns();
        if (rc)
            goto fail;
    }
    plan_free(&pl);
    macros_free(macros, n_macros);
    hk_free(units.v);
    d->edited = false;
    d->model_ok = true;
    d->model_id = next_gen();
    d->stats.incremental = incremental;
    d->stats.chunks = d->n_segs;
    d->stats.chunks_parsed = parsed;
    d->stats.bytes_parsed = bytes_parsed;
    d->stats.trees_reused = reused;
    d->stats.trees_kept = 0;
    for (size_t i = 0; i < d->n_segs; i++)
        d->stats.trees_kept += d->segs[i].tree && !d->segs[i].recent;
    d->stats.parse_ns = t1 - t0;
    d->stats.model_ns = t2 - t1;
#ifdef __GLIBC__
    /* a full parse of a large text freed tens of MB of trees: give the pages back */
    if (!incremental && n >= (256u << 10))
        malloc_trim(0);
#endif
    return HK_OK;
fail:
    plan_free(&pl);
    macros_free(macros, n_macros);
    hk_free(units.v);
    if (rc == HK_ENOMEM) {
        /* the model may be half rebuilt: empty it; the next parse is a full one */
        store_clear(&d->st);
        segs_clear(d);
        macros_free(d->macros, d->n_macros);
        d->macros = NULL;
        d->n_macros = 0;
        d->model_ok = false;
        d->edited = false;
        d->model_id = next_gen();  /* the model is now empty: a different one */
    }
    /* otherwise (time-out, parser refused) the document is as it was: its chunks, items
     * and pending edits */
    return rc;
}

/* ---------------------------------------------------------------- queries */

static bool span_has(const an_span *s, uint32_t byte)
{
    return s->start_byte <= byte && byte < s->end_byte;
}

long an_model_function_at(const an_model *m, uint32_t byte)
{
    /* functions are in source order; the innermost container is the last one that
     * starts at or before byte and contains it */
    size_t lo = 0, hi = m->n_funcs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->funcs[mid].span.start_byte <= byte)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;)
        if (span_has(&m->funcs[i].span, byte))
            return (long)i;
    return -1;
}

long an_model_launch_at(const an_model *m, uint32_t byte)
{
    size_t lo = 0, hi = m->n_launches;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->launches[mid].span.start_byte <= byte)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;)
        if (span_has(&m->launches[i].span, byte))
            return (long)i;
    return -1;
}

long an_model_find_kernel(const an_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_funcs; i++)
        if (m->funcs[i].kind == AN_KERNEL && !strcmp(m->funcs[i].name, name))
            return (long)i;
    /* a launch may qualify the name (ns::k) where the definition, inside namespace
     * ns { }, is named k: try the last component */
    const char *last = name;
    for (const char *p = name; (p = strstr(p, "::")); p += 2)
        last = p + 2;
    if (last != name && *last)
        return an_model_find_kernel(m, last);
    return -1;
}

int an_analyze(const char *text, size_t len, an_model **out)
{
    *out = NULL;
    an_doc *d;
    int rc = an_doc_new(&d);
    if (rc)
        return rc;
    an_doc_set_parse_timeout(d, 0);   /* not on the loop: no reason to give up */
    rc = an_doc_parse(d, text, len);
    if (rc == HK_OK) {
        struct an_store *st = hk_malloc(sizeof(*st));
        if (!st) {
            rc = HK_ENOMEM;
        } else {
            *st = d->st;
            memset(&d->st, 0, sizeof(d->st));
            *out = &st->m;
        }
    }
    an_doc_free(d);
    return rc;
}

void an_model_free(an_model *m)
{
    if (!m)
        return;
    struct an_store *st = (struct an_store *)m;
    store_free(st);
    hk_free(st);
}
