/* Many small host programs that share one head (the same #includes and globals) in one g++
 * run: the tests that emulate kernels with a harness of their own (no emu_block.h), such as
 * test_engine_rewrite_grid2d and test_engine_rewrite_mem, build one program that holds all
 * their cases instead of one program each. Most of such a build is g++ parsing the head's
 * headers (the CUDA ones above all); emu_batch.h does the same for the block emulator and
 * uses this file's macro scan.
 *
 *   cxx_batch b;
 *   cxx_batch_init(&b, tmpdir, "vec", TEST_CXX, "-std=c++17 -O1", head);
 *   cxx_batch_add(&b, tag, program, "EMU OK", CXX_PASS);   (up to CXX_BATCH_MAX)
 *   cxx_batch_run(&b);                                      compile once, run each, check each
 *
 * program is what would follow head in a file of its own: it defines main once, spelled
 * `int main(`. Each case goes inside a namespace of its own, cxx_case_K, with its main
 * renamed run; the batch's main() runs case K when given K, so every case still runs in a
 * process of its own (its globals, a crash and its exit status stay the case's). A case
 * gives CXX_PASS when it exits 0 and prints its expect text, CXX_DIFFERS when it exits 1
 * (the programs' way of saying that an output differs), CXX_NO_BUILD when g++ refuses it,
 * CXX_OTHER otherwise; each case that does not give its want is named with its output
 * (g++'s or the program's) and kept as a program of its own, HK_BINARY_DIR/emu_failed_TAG.cpp;
 * the test then fails, naming them all.
 *
 * The batch never hides a case that fails alone, nor passes one that would not build alone:
 * the macros a case defines or undefines are pushed before it and popped after it; main()
 * names each case's namespace and an end marker from file scope, so a brace or comment left
 * open by one case, closed by the next, fails the batch; a case that #includes something or
 * whose #if lines do not balance is built alone; a batch that does not build is built again
 * one case at a time, and a case that fails alone is CXX_NO_BUILD with g++'s messages.
 *
 * Include after cmocka.h. */
#ifndef HK_TESTS_CXX_BATCH_H
#define HK_TESTS_CXX_BATCH_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define CXX_BATCH_MAX 64
#define CXX_BATCH_LOG 16384

enum { CXX_PASS, CXX_DIFFERS, CXX_NO_BUILD, CXX_OTHER };

static inline bool cxx_is_ident(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The directive of line (after '#' and blanks), or NULL when line is not one. */
static inline const char *cxx_directive(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line != '#')
        return NULL;
    line++;
    while (*line == ' ' || *line == '\t')
        line++;
    return line;
}

static inline bool cxx_directive_is(const char *d, const char *word)
{
    size_t n = strlen(word);
    return !strncmp(d, word, n) && !cxx_is_ident(d[n]);
}

/* Scans body for the names it #defines or #undefs (each once, as pragmas: push_macro to
 * push, pop_macro to pop), its #include lines and its #if nesting; false when body must be
 * built alone (an #include, or #if lines that do not balance). */
static inline bool cxx_scan_macros(const char *body, FILE *push, FILE *pop)
{
    long depth = 0;
    char seen[4096] = " ";
    for (const char *line = body; line && *line;) {
        const char *nl = strchr(line, '\n');
        const char *d = cxx_directive(line);
        if (d && (cxx_directive_is(d, "if") || cxx_directive_is(d, "ifdef") || cxx_directive_is(d, "ifndef")))
            depth++;
        else if (d && cxx_directive_is(d, "endif"))
            depth--;
        else if (d && cxx_directive_is(d, "include"))
            return false;
        else if (d && (cxx_directive_is(d, "define") || cxx_directive_is(d, "undef"))) {
            const char *m = d + (cxx_directive_is(d, "define") ? 6 : 5);
            while (*m == ' ' || *m == '\t')
                m++;
            size_t ml = 0;
            while (cxx_is_ident(m[ml]))
                ml++;
            char key[160];
            if (ml == 0 || ml + 3 > sizeof key)
                return false;
            snprintf(key, sizeof key, " %.*s ", (int)ml, m);
            if (!strstr(seen, key)) {
                if (strlen(seen) + ml + 2 >= sizeof seen)
                    return false;
                strcat(seen, key + 1);
                fprintf(push, "#pragma push_macro(\"%.*s\")\n", (int)ml, m);
                fprintf(pop, "#pragma pop_macro(\"%.*s\")\n", (int)ml, m);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    return depth == 0;
}

typedef struct {
    char tag[128];
    char expect[64];
    int want, got;
    char *chunk;   /* namespace cxx_case_K { ... } with its macros pushed and popped; malloc'd */
    bool alone;    /* built alone, never in the batch */
    char *log;     /* the program's (or g++'s) output; malloc'd */
} cxx_case;

typedef struct {
    char dir[512];
    char name[128];
    char cxx[512];     /* the compiler and its flags */
    char *head;        /* malloc'd */
    size_t n;
    size_t builds;     /* g++ runs of the last cxx_batch_finish */
    bool open;         /* initialized, not yet run: a case added to a closed batch would never run */
    cxx_case cases[CXX_BATCH_MAX];
} cxx_batch;

static inline void cxx_batch_free(cxx_batch *b)
{
    for (size_t k = 0; k < b->n; k++) {
        free(b->cases[k].chunk);
        free(b->cases[k].log);
    }
    free(b->head);
    memset(b, 0, sizeof *b);
}

/* An empty batch whose files are DIR/cxx_batch_NAME*, built with cxx and flags, each
 * program after head. */
static inline void cxx_batch_init(cxx_batch *b, const char *dir, const char *name, const char *cxx,
                                  const char *flags, const char *head)
{
    cxx_batch_free(b);
    b->open = true;
    snprintf(b->dir, sizeof b->dir, "%s", dir);
    snprintf(b->name, sizeof b->name, "%s", name);
    snprintf(b->cxx, sizeof b->cxx, "%s %s", cxx, flags);
    b->head = strdup(head);
    assert_non_null(b->head);
}

/* Queues program (see the top of this file) that must give want (CXX_PASS: exit 0 and
 * expect in its output; CXX_DIFFERS: exit 1). */
static inline void cxx_batch_add(cxx_batch *b, const char *tag, const char *program, const char *expect, int want)
{
    if (!b->open)
        print_message("program %s: its batch was not initialized (cxx_batch_init) or has run\n", tag);
    assert_true(b->open);
    assert_true(b->n < CXX_BATCH_MAX);
    assert_true(want == CXX_PASS || want == CXX_DIFFERS);
    const char *m = strstr(program, "int main(");
    if (!m || strstr(m + 1, "int main("))
        print_message("program %s: no `int main(`, or more than one\n", tag);
    assert_true(m && !strstr(m + 1, "int main("));
    size_t k = b->n++;
    cxx_case *c = &b->cases[k];
    memset(c, 0, sizeof *c);
    snprintf(c->tag, sizeof c->tag, "%s", tag);
    snprintf(c->expect, sizeof c->expect, "%s", expect);
    c->want = want;
    char *body = NULL, *push = NULL, *pop = NULL;
    size_t body_len = 0, push_len = 0, pop_len = 0;
    FILE *f = open_memstream(&body, &body_len);
    assert_non_null(f);
    fprintf(f, "namespace cxx_case_%zu {\n#line 1 \"%s\"\n%.*s static int run(%s\n}  // namespace cxx_case_%zu\n"
               "int cxx_case_%zu_end;\n",
            k, tag, (int)(m - program), program, m + strlen("int main("), k, k);
    assert_int_equal(fclose(f), 0);
    FILE *fp = open_memstream(&push, &push_len), *fq = open_memstream(&pop, &pop_len);
    assert_true(fp && fq);
    c->alone = !cxx_scan_macros(body, fp, fq);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(fclose(fq), 0);
    size_t n = push_len + body_len + pop_len + 1;
    c->chunk = malloc(n);
    assert_non_null(c->chunk);
    snprintf(c->chunk, n, "%s%s%s", push, body, pop);
    free(body);
    free(push);
    free(pop);
}

/* Writes the program of the cases idx[0..n) to path: the head, each case's chunk, and
 * main(), which runs case K given K (the first case given nothing). */
static inline void cxx_batch_write(const cxx_batch *b, const char *path, const size_t *idx, size_t n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#include <stdio.h>\n#include <stdlib.h>\n%s\n", b->head);
    for (size_t i = 0; i < n; i++)
        fputs(b->cases[idx[i]].chunk, f);
    fprintf(f, "#line 1 \"cxx_batch_main\"\nint main(int argc, char **argv)\n{\n"
               "    const long k = argc > 1 ? atol(argv[1]) : %zu;\n",
            idx[0]);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "    if (k == %zu)\n        return (void)::cxx_case_%zu_end, ::cxx_case_%zu::run();\n", idx[i],
                idx[i], idx[i]);
    fprintf(f, "    puts(\"CXX BATCH: no such case\");\n    return 4;\n}\n");
    assert_int_equal(fclose(f), 0);
}

/* The compiler on src into exe; its output in log (up to n - 1 bytes). */
static inline bool cxx_batch_build(cxx_batch *b, const char *src, const char *exe, char *log, size_t n)
{
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "%s -o '%s' '%s' 2>&1", b->cxx, exe, src);
    b->builds++;
    FILE *pp = popen(cmd, "r");
    assert_non_null(pp);
    size_t got = fread(log, 1, n - 1, pp);
    log[got] = '\0';
    return pclose(pp) == 0;
}

/* Runs case k of exe: c->got and c->log. */
static inline void cxx_batch_exec(cxx_case *c, const char *exe, size_t k)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s' %zu 2>&1", exe, k);
    FILE *pp = popen(cmd, "r");
    assert_non_null(pp);
    size_t got = fread(c->log, 1, CXX_BATCH_LOG - 1, pp);
    c->log[got] = '\0';
    int st = pclose(pp);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(c->log, c->expect))
        c->got = CXX_PASS;
    else if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
        c->got = CXX_DIFFERS;
    else
        c->got = CXX_OTHER;
}

/* Builds case k alone (DIR/cxx_batch_NAME_K.cpp) and runs it. */
static inline void cxx_batch_alone(cxx_batch *b, size_t k)
{
    cxx_case *c = &b->cases[k];
    char src[810], exe[800];
    snprintf(exe, sizeof exe, "%s/cxx_batch_%s_%zu", b->dir, b->name, k);
    snprintf(src, sizeof src, "%s.cpp", exe);
    cxx_batch_write(b, src, &k, 1);
    if (!cxx_batch_build(b, src, exe, c->log, CXX_BATCH_LOG))
        c->got = CXX_NO_BUILD;
    else
        cxx_batch_exec(c, exe, k);
}

/* Builds and runs every queued case (see the top of this file) and reports each that did
 * not give its want; returns how many. Each case's got and log stay in b until the next
 * cxx_batch_init or cxx_batch_free. */
static inline size_t cxx_batch_finish(cxx_batch *b)
{
    static const char *const names_of[] = {"passes", "differs", "does not build", "fails otherwise"};
    assert_true(b->open);
    b->open = false;
    b->builds = 0;
    size_t idx[CXX_BATCH_MAX], n = 0;
    for (size_t k = 0; k < b->n; k++) {
        b->cases[k].log = malloc(CXX_BATCH_LOG);
        assert_non_null(b->cases[k].log);
        b->cases[k].log[0] = '\0';
        b->cases[k].got = CXX_OTHER;
        if (!b->cases[k].alone)
            idx[n++] = k;
    }
    if (n > 0) {
        char src[810], exe[800];
        snprintf(exe, sizeof exe, "%s/cxx_batch_%s", b->dir, b->name);
        snprintf(src, sizeof src, "%s.cpp", exe);
        cxx_batch_write(b, src, idx, n);
        static char log[CXX_BATCH_LOG];
        if (cxx_batch_build(b, src, exe, log, sizeof log)) {
            for (size_t i = 0; i < n; i++)
                cxx_batch_exec(&b->cases[idx[i]], exe, idx[i]);
        } else {
            print_message("the batch %s of %zu programs did not build; each is built alone:\n%.2000s\n", src, n,
                          log);
            for (size_t i = 0; i < n; i++)
                cxx_batch_alone(b, idx[i]);
        }
    }
    for (size_t k = 0; k < b->n; k++)
        if (b->cases[k].alone)
            cxx_batch_alone(b, k);
    size_t bad = 0;
    char names[1024] = "";
    for (size_t k = 0; k < b->n; k++) {
        cxx_case *c = &b->cases[k];
        if (c->got != c->want) {
            /* the scratch directory goes with the test: keep the case as a program of its own */
            char kept[800];
            snprintf(kept, sizeof kept, "%s/emu_failed_%s.cpp", HK_BINARY_DIR, c->tag);
            cxx_batch_write(b, kept, &k, 1);
            print_message("program %s: want it %s, it %s:\n%s\n(program: %s)\n", c->tag, names_of[c->want],
                          names_of[c->got], c->log, kept);
            if (strlen(names) + strlen(c->tag) + 2 < sizeof names)
                snprintf(names + strlen(names), sizeof names - strlen(names), " %s", c->tag);
            bad++;
        } else if (c->want != CXX_PASS) {
            print_message("program %s (broken on purpose: expected to differ): %.300s\n", c->tag, c->log);
        }
    }
    print_message("%zu programs (batch %s) in %zu compiler runs, %zu not as expected%s%s\n", b->n, b->name,
                  b->builds, bad, bad ? ":" : "", names);
    return bad;
}

/* cxx_batch_finish, and every case must have given its want. */
static inline void cxx_batch_run(cxx_batch *b)
{
    assert_int_equal(cxx_batch_finish(b), 0);
}

#endif
