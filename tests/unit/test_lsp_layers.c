/* The layers of server/lsp/ (docs/ARCHITECTURE.md, "Inside lsp/"): the files are in one
 * order, lowest first, read from the line "lsp layers, lowest first: a < b < ..." of that
 * document, and no file calls a function of a file above it nor includes its header (a
 * file tells those above it what happened through lsp_emit; server.c, the top, routes it).
 * The sources are parsed here: comments, strings and character constants are dropped, the
 * non-static functions each .c defines at file scope are found (what it owns), and every
 * identifier of a .c that another .c owns is a call (or a pointer taken) into that file.
 * Also: every .c of the module is in the order, and every header other than lsp.h (the
 * public API) and state.h (types) includes no other header of lsp/.
 * The check is shown to fail: the sources are copied to a scratch folder and violations are
 * planted there (a call up, an include up, a file left out of the order, a header that
 * includes another); a call written only in a comment or a string is not one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/hk.h"

#define SRC_DIR HK_TEST_DATA "/../../server/lsp"
#define ARCH_MD HK_TEST_DATA "/../../docs/ARCHITECTURE.md"
#define MAX_MODS 32
#define NAME_MAX_LEN 64

struct layers {
    char names[MAX_MODS][NAME_MAX_LEN];
    int n;
};

static int layer_of(const struct layers *l, const char *mod)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->names[i], mod))
            return i;
    return -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct hk_buf b;
    hk_buf_init(&b, (size_t)64 << 20);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (hk_buf_append(&b, chunk, n)) {
            fclose(f);
            hk_buf_free(&b);
            return NULL;
        }
    fclose(f);
    if (hk_buf_appends(&b, "")) {
        hk_buf_free(&b);
        return NULL;
    }
    return b.data ? hk_buf_steal(&b) : hk_strdup("");
}

/* The order from the document's line "lsp layers, lowest first: a < b < c". */
static int read_layers(const char *md_path, struct layers *l)
{
    char *md = slurp(md_path);
    if (!md)
        return HK_ENOENT;
    const char *key = "lsp layers, lowest first:";
    const char *p = strstr(md, key);
    l->n = 0;
    if (p) {
        p += strlen(key);
        const char *end = strchr(p, '\n');
        if (!end)
            end = p + strlen(p);
        while (p < end && l->n < MAX_MODS) {
            while (p < end && (*p == ' ' || *p == '<' || *p == '`'))
                p++;
            size_t k = 0;
            while (p < end && (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
                if (k < NAME_MAX_LEN - 1)
                    l->names[l->n][k++] = *p++;
                else
                    p++;
            if (k) {
                l->names[l->n][k] = '\0';
                l->n++;
            } else if (p < end) {
                p++;
            }
        }
    }
    hk_free(md);
    return l->n ? HK_OK : HK_EINVAL;
}

/* The text with comments, strings and character constants blanked (newlines kept), so
 * that what is left is code. */
static void blank_non_code(char *t)
{
    for (char *p = t; *p;) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            char *stop = e ? e + 2 : p + strlen(p);
            for (; p < stop; p++)
                if (*p != '\n')
                    *p = ' ';
        } else if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                *p++ = ' ';
        } else if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (*p && *p != q && *p != '\n') {
                if (*p == '\\' && p[1])
                    *p++ = ' ';
                *p++ = ' ';
            }
            if (*p == q)
                p++;
        } else {
            p++;
        }
    }
}

static bool is_id0(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_id(char c) { return is_id0(c) || (c >= '0' && c <= '9'); }

struct owner {
    char name[NAME_MAX_LEN];
    char mod[NAME_MAX_LEN];
};

struct scan {
    struct owner *defs;
    size_t n_defs, cap_defs;
    struct hk_buf msgs;  /* one violation a line */
    int violations;
};

static void violation(struct scan *sc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    hk_buf_printf(&sc->msgs, "%s\n", line);
    sc->violations++;
}

/* The functions t (code only) defines at file scope without static, added as mod's. */
static void find_definitions(struct scan *sc, const char *mod, const char *t)
{
    int depth = 0, paren = 0;
    bool is_static = false, after_params = false;
    char cand[NAME_MAX_LEN] = "", last[NAME_MAX_LEN] = "";
    bool line_start = true;
    for (const char *p = t; *p;) {
        if (line_start && *p == '#') { /* a preprocessor line (continuations included) */
            while (*p && !(*p == '\n' && p[-1] != '\\'))
                p++;
            continue;
        }
        if (*p == '\n') {
            line_start = true;
            p++;
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\r') {
            p++;
            continue;
        }
        line_start = false;
        if (is_id0(*p)) {
            const char *s = p;
            while (is_id(*p))
                p++;
            size_t k = (size_t)(p - s);
            if (depth == 0 && paren == 0 && !after_params) {
                if (k == 6 && !strncmp(s, "static", 6))
                    is_static = true;
                snprintf(last, sizeof last, "%.*s", (int)(k < NAME_MAX_LEN ? k : 0), s);
            }
            continue;
        }
        char c = *p++;
        if (depth > 0) {
            depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            if (depth == 0) { /* the end of a function body or an initializer */
                is_static = false;
                after_params = false;
                cand[0] = last[0] = '\0';
            }
            continue;
        }
        if (c == '(') {
            if (paren == 0 && !after_params)
                snprintf(cand, sizeof cand, "%s", last);
            paren++;
        } else if (c == ')') {
            if (paren > 0 && --paren == 0 && cand[0])
                after_params = true;
        } else if (paren == 0 && c == '{') {
            if (after_params && cand[0] && !is_static) {
                if (sc->n_defs == sc->cap_defs) {
                    size_t nc = sc->cap_defs ? 2 * sc->cap_defs : 256;
                    struct owner *nd = hk_realloc(sc->defs, nc * sizeof *nd);
                    assert_non_null(nd);
                    sc->defs = nd;
                    sc->cap_defs = nc;
                }
                struct owner *o = &sc->defs[sc->n_defs++];
                snprintf(o->name, sizeof o->name, "%s", cand);
                snprintf(o->mod, sizeof o->mod, "%s", mod);
            }
            depth = 1;
        } else if (paren == 0 && c == ';') {
            is_static = false;
            after_params = false;
            cand[0] = last[0] = '\0';
        } else if (paren == 0 && c == '=') {
            after_params = false; /* an initializer, not a body */
            cand[0] = '\0';
        }
    }
}

static const struct owner *owner_of(const struct scan *sc, const char *name, size_t k)
{
    for (size_t i = 0; i < sc->n_defs; i++)
        if (strlen(sc->defs[i].name) == k && !strncmp(sc->defs[i].name, name, k))
            return &sc->defs[i];
    return NULL;
}

/* The lsp/ headers text includes, checked against the order: a .c may include its own,
 * lsp.h, state.h and those of files below it; a header (mod NULL) only lsp.h and
 * state.h. */
static void check_includes(struct scan *sc, const struct layers *l, const char *file,
                           const char *mod, const char *text)
{
    const char *key = "#include \"lsp/";
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        const char *n = p + strlen(key);
        const char *e = strstr(n, ".h\"");
        if (!e || e - n >= NAME_MAX_LEN)
            continue;
        char inc[NAME_MAX_LEN];
        snprintf(inc, sizeof inc, "%.*s", (int)(e - n), n);
        if (!strcmp(inc, "lsp") || !strcmp(inc, "state"))
            continue;
        if (!mod) {
            violation(sc, "%s includes lsp/%s.h: a header includes only lsp/state.h", file, inc);
            continue;
        }
        if (!strcmp(inc, mod))
            continue;
        int li = layer_of(l, inc), lm = layer_of(l, mod);
        if (li < 0)
            violation(sc, "%s includes lsp/%s.h, which is of no layer", file, inc);
        else if (lm >= 0 && li > lm)
            violation(sc, "%s includes lsp/%s.h: %s is above %s", file, inc, inc, mod);
    }
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* Checks the folder dir against the order in md_path; the violations go to sc. */
static void check_tree(const char *dir, const char *md_path, struct scan *sc)
{
    memset(sc, 0, sizeof *sc);
    hk_buf_init(&sc->msgs, (size_t)1 << 20);
    struct layers l;
    assert_int_equal(read_layers(md_path, &l), HK_OK);
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *texts[MAX_MODS] = {0};
    char mods[MAX_MODS][NAME_MAX_LEN];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *nm = de->d_name;
        bool c = has_suffix(nm, ".c"), h = has_suffix(nm, ".h");
        if (!c && !h)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, nm);
        char *t = slurp(path);
        assert_non_null(t);
        if (h) {
            if (strcmp(nm, "lsp.h") && strcmp(nm, "state.h"))
                check_includes(sc, &l, nm, NULL, t);
            hk_free(t);
            continue;
        }
        assert_true(n < MAX_MODS);
        snprintf(mods[n], NAME_MAX_LEN, "%.*s", (int)(strlen(nm) - 2), nm);
        if (layer_of(&l, mods[n]) < 0)
            violation(sc, "%s is in no layer: add it to the order in docs/ARCHITECTURE.md", nm);
        check_includes(sc, &l, nm, mods[n], t);
        blank_non_code(t);
        find_definitions(sc, mods[n], t);
        texts[n++] = t;
    }
    closedir(d);
    for (int i = 0; i < n; i++) {
        int lm = layer_of(&l, mods[i]);
        /* one report per (file, function) */
        struct hk_buf seen;
        hk_buf_init(&seen, (size_t)1 << 20);
        hk_buf_appends(&seen, ",");
        for (const char *p = texts[i]; *p;) {
            if (!is_id0(*p) || (p > texts[i] && is_id(p[-1]))) {
                p++;
                continue;
            }
            const char *s = p;
            while (is_id(*p))
                p++;
            const struct owner *o = owner_of(sc, s, (size_t)(p - s));
            if (!o || !strcmp(o->mod, mods[i]))
                continue;
            int lo = layer_of(&l, o->mod);
            if (lm < 0 || lo < 0 || lo < lm)
                continue; /* a file of no layer is reported above */
            char tag[NAME_MAX_LEN + 2];
            snprintf(tag, sizeof tag, ",%s,", o->name);
            if (seen.data && strstr(seen.data, tag))
                continue;
            hk_buf_printf(&seen, "%s,", o->name);
            violation(sc, "%s.c calls %s of %s.c, which is %s", mods[i], o->name, o->mod,
                      lo == lm ? "its own layer" : "above it");
        }
        hk_buf_free(&seen);
        hk_free(texts[i]);
    }
}

static void scan_free(struct scan *sc)
{
    hk_free(sc->defs);
    hk_buf_free(&sc->msgs);
}

/* The tree as it is: no violation, and the order names every file with one header. */
static void test_the_lsp_files_call_only_down(void **state)
{
    (void)state;
    struct scan sc;
    check_tree(SRC_DIR, ARCH_MD, &sc);
    if (sc.violations)
        fprintf(stderr, "%s", sc.msgs.data);
    assert_int_equal(sc.violations, 0);
    /* the check saw the module: base.c's and server.c's functions are owned */
    assert_non_null(owner_of(&sc, "lsp_emit", strlen("lsp_emit")));
    assert_string_equal(owner_of(&sc, "lsp_emit", strlen("lsp_emit"))->mod, "base");
    assert_string_equal(owner_of(&sc, "lsp_server_new", strlen("lsp_server_new"))->mod,
                        "server");
    assert_null(owner_of(&sc, "route", strlen("route"))); /* static */
    scan_free(&sc);
    struct layers l;
    assert_int_equal(read_layers(ARCH_MD, &l), HK_OK);
    assert_int_equal(layer_of(&l, "base"), 1);
    assert_int_equal(layer_of(&l, "server"), l.n - 1);
}

/* A scratch copy of server/lsp/ and of the document. */
static void copy_file(const char *from, const char *to)
{
    char *t = slurp(from);
    assert_non_null(t);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    fputs(t, f);
    fclose(f);
    hk_free(t);
}

static void scratch_tree(char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/hk-layers-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    DIR *d = opendir(SRC_DIR);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!has_suffix(de->d_name, ".c") && !has_suffix(de->d_name, ".h"))
            continue;
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/%s", SRC_DIR, de->d_name);
        snprintf(b, sizeof b, "%s/%s", dir, de->d_name);
        copy_file(a, b);
    }
    closedir(d);
    char md[1100];
    snprintf(md, sizeof md, "%s/ARCHITECTURE.md", dir);
    copy_file(ARCH_MD, md);
}

static void append(const char *dir, const char *file, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static void check_scratch(const char *dir, struct scan *sc)
{
    char md[1100];
    snprintf(md, sizeof md, "%s/ARCHITECTURE.md", dir);
    check_tree(dir, md, sc);
}

/* Each planted violation is found, and named; what is only in a comment or a string is
 * not a call. */
static void test_planted_violations_are_found(void **state)
{
    (void)state;
    char dir[1024];
    scratch_tree(dir, sizeof dir);
    struct scan sc;

    check_scratch(dir, &sc); /* the copy as it is */
    assert_int_equal(sc.violations, 0);
    scan_free(&sc);

    /* not calls: a comment, a string, a character constant */
    append(dir, "loopwatch.c",
           "/* lsp_ep_stop(s) */\n// lsp_diag_schedule(s, d, 0);\n"
           "static const char *planted_text = \"lsp_config_rebuild(s)\";\n"
           "static const char planted_char = '\"'; /* \" lsp_trusted(s) */\n");
    check_scratch(dir, &sc);
    if (sc.violations)
        fprintf(stderr, "%s", sc.msgs.data);
    assert_int_equal(sc.violations, 0);
    scan_free(&sc);

    /* a call up: the loop watch (the lowest) stopping the episodes */
    append(dir, "loopwatch.c",
           "void lsp_planted(struct lsp_server *s) { lsp_ep_stop(s); }\n");
    check_scratch(dir, &sc);
    assert_int_equal(sc.violations, 1);
    assert_non_null(strstr(sc.msgs.data, "loopwatch.c calls lsp_ep_stop of episodes.c"));
    scan_free(&sc);

    /* an include up, and a call within one layer's neighbour: config.c asking textsync.c */
    append(dir, "config.c",
           "#include \"lsp/textsync.h\"\n"
           "static bool planted(const struct lsp_doc *ld) { return lsp_doc_analysis_current(ld); }\n");
    check_scratch(dir, &sc);
    assert_int_equal(sc.violations, 3);
    assert_non_null(strstr(sc.msgs.data, "config.c includes lsp/textsync.h: textsync is above config"));
    assert_non_null(strstr(sc.msgs.data, "config.c calls lsp_doc_analysis_current of textsync.c"));
    scan_free(&sc);

    /* a file of no layer, and a header that includes another */
    append(dir, "planted.c", "int lsp_planted_fn(void) { return 0; }\n");
    append(dir, "trust.h", "#include \"lsp/config.h\"\n");
    check_scratch(dir, &sc);
    assert_int_equal(sc.violations, 5);
    assert_non_null(strstr(sc.msgs.data, "planted.c is in no layer"));
    assert_non_null(strstr(sc.msgs.data, "trust.h includes lsp/config.h"));
    scan_free(&sc);
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_lsp_files_call_only_down),
        cmocka_unit_test(test_planted_violations_are_found),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
