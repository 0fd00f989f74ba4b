/* Many block-emulator programs (emu_block.h) in one g++ run: a test that emulates a dozen
 * rewrites builds one program that holds them all instead of one program each. Most of a
 * small emulation's build is g++ parsing emu_block_rt.hpp and the CUDA headers (about a
 * second of CPU each time, of which the precompiled runtime, emu_block.h's EMU_PCH_DIR,
 * saves about 0.6 s); bench/results/2026-12-04-ci-time-s22.md has the figures.
 *
 *   emu_batch b;
 *   emu_batch_init(&b, tmpdir, "rows");
 *   emu_batch_add(&b, &prog, want);            (as many as needed, up to EMU_BATCH_MAX)
 *   emu_batch_run(&b);                         compile once, run each, check each
 * (emu_batch_finish: the same, returning how many cases did not give their want.)
 *
 * Each case is what emu_run would build alone (orig's and cand's device text, the helpers,
 * the driver as the body of a function), inside a namespace of its own, emu_case_K; main()
 * runs case K when given K, so every case still runs in a process of its own (the
 * runtime's state, a divergent barrier's exit and a crash stay the case's). Each case's
 * result is checked against its want as emu_expect does, and every case that does not
 * give its want is named with its output (g++'s or the program's) and kept as a program of
 * its own, HK_BINARY_DIR/emu_failed_TAG.cpp; the test then fails, naming them all.
 *
 * The batch never hides a case that fails alone, nor passes one that would not build
 * alone: the macros a case defines or undefines are pushed before it and popped after it
 * (another case sees neither its definitions nor its #undefs); main() names each case's
 * namespace and an end marker from file scope, so a brace or comment left open by one
 * case, closed by the next, fails the batch; a case whose helpers or driver #include
 * something, whose #if lines do not balance, or that wants EMU_NO_BUILD, is built alone. A batch that fails
 * to build is built again one case at a time: a case that fails alone is EMU_NO_BUILD,
 * with g++'s messages on it; the others run from their own programs. (The __shared__
 * variables of every case lie in the one section the runtime poisons before each block:
 * a case still finds its own poisoned, whatever else the section holds.)
 *
 * Include after emu_block.h (and so after cmocka.h and rw_fixture.h). */
#ifndef HK_TESTS_EMU_BATCH_H
#define HK_TESTS_EMU_BATCH_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "emu_block.h"
#include "cxx_batch.h"   /* cxx_scan_macros: the macros a case pushes and pops */

/* EMU_PAIR: the driver macro PAIR(T, what, nout, ...) for emu_batch_add_pair's helpers: the
 * launch (a statement using NS:: for the namespace and out for a buffer of nout T, set to a
 * sentinel) on the original and on the rewrite under the three thread orders; the outputs
 * must be bit-identical. */
#define EMU_PAIR \
    "#define PAIR(T, what, nout, ...)                                                \\\n" \
    "    for (int s = 0; s < 3; s++) {                                               \\\n" \
    "        emu::schedule = s;                                                      \\\n" \
    "        emu::buf<T> o_out(nout), c_out(nout);                                   \\\n" \
    "        o_out.set(T(-7));                                                       \\\n" \
    "        c_out.set(T(-7));                                                       \\\n" \
    "        { namespace NS = orig; auto &out = o_out; __VA_ARGS__; }                \\\n" \
    "        { namespace NS = cand; auto &out = c_out; __VA_ARGS__; }                \\\n" \
    "        if (!emu::expect(what, o_out, c_out))                                   \\\n" \
    "            printf(\"  (schedule %d)\\n\", s);                                   \\\n" \
    "    }\n"

#define EMU_BATCH_MAX 64
#define EMU_BATCH_LOG 16384

typedef struct {
    char tag[128];
    int want, got;
    char *chunk;   /* namespace emu_case_K { ... } with its macros pushed and popped; malloc'd */
    bool alone;    /* built alone, never in the batch */
    char *log;     /* the program's (or g++'s) output; malloc'd */
} emu_case;

typedef struct {
    char dir[512];
    char name[128];
    size_t n;
    size_t builds;  /* g++ runs of the last emu_batch_run */
    bool open;      /* initialized, not yet run: a case added to a closed batch would never run */
    emu_case cases[EMU_BATCH_MAX];
} emu_batch;

/* An empty batch whose files are DIR/emu_batch_NAME*. */
static inline void emu_batch_init(emu_batch *b, const char *dir, const char *name)
{
    for (size_t k = 0; k < b->n; k++) {
        free(b->cases[k].chunk);
        free(b->cases[k].log);
    }
    memset(b, 0, sizeof *b);
    b->open = true;
    snprintf(b->dir, sizeof b->dir, "%s", dir);
    snprintf(b->name, sizeof b->name, "%s", name);
}

/* Queues program p (its dir is not used: the batch's is) that must give want. */
static inline void emu_batch_add(emu_batch *b, const emu_program *p, int want)
{
    if (!b->open)
        print_message("emulated %s: its batch was not initialized (emu_batch_init) or has run\n", p->tag);
    assert_true(b->open);
    assert_true(b->n < EMU_BATCH_MAX);
    size_t k = b->n++;
    emu_case *c = &b->cases[k];
    memset(c, 0, sizeof *c);
    snprintf(c->tag, sizeof c->tag, "%s", p->tag);
    c->want = want;
    char *body = NULL, *push = NULL, *pop = NULL;
    size_t body_len = 0, push_len = 0, pop_len = 0;
    FILE *f = open_memstream(&body, &body_len);
    assert_non_null(f);
    fprintf(f, "namespace emu_case_%zu {\n", k);
    emu_write_source(f, "orig", p->orig, p->orig_len);
    emu_write_source(f, "cand", p->cand, p->cand_len);
    if (p->helpers)
        fprintf(f, "#line 1 \"helpers\"\n%s\n", p->helpers);
    fprintf(f, "static int run(void)\n{\n#line 1 \"driver\"\n%s\n"
               "    puts(emu::failures ? \"EMU DIFFERS\" : \"EMU OK\");\n"
               "    return emu::failures ? 1 : 0;\n}\n"
               "}  // namespace emu_case_%zu\n"
               "int emu_case_%zu_end;\n",
            p->driver, k, k);
    assert_int_equal(fclose(f), 0);
    FILE *fp = open_memstream(&push, &push_len), *fq = open_memstream(&pop, &pop_len);
    assert_true(fp && fq);
    bool ok = cxx_scan_macros(body, fp, fq);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(fclose(fq), 0);
    c->alone = !ok || want == EMU_NO_BUILD;
    size_t n = push_len + body_len + pop_len + 1;
    c->chunk = malloc(n);
    assert_non_null(c->chunk);
    snprintf(c->chunk, n, "%s%s%s", push, body, pop);
    free(body);
    free(push);
    free(pop);
}

/* emu_batch_add of the program of driver over src and cand (with helpers). */
static inline void emu_batch_add_pair(emu_batch *b, const char *tag, const char *src, const char *cand,
                                      const char *helpers, const char *driver, int want)
{
    emu_program p = {.tag = tag, .orig = src, .orig_len = strlen(src), .cand = cand, .cand_len = strlen(cand),
                     .helpers = helpers, .driver = driver};
    emu_batch_add(b, &p, want);
}

/* Writes the program of the cases idx[0..n) to path: the runtime, each case's chunk, and
 * main(), which runs case K given K (the first case given nothing). */
static inline void emu_batch_write(const emu_batch *b, const char *path, const size_t *idx, size_t n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("#include \"emu_block_rt.hpp\"\n", f); /* emu_block.h's EMU_PCH_DIR */
    for (size_t i = 0; i < n; i++)
        fputs(b->cases[idx[i]].chunk, f);
    fprintf(f, "#line 1 \"emu_main\"\nint main(int argc, char **argv)\n{\n"
               "    const long k = argc > 1 ? atol(argv[1]) : %zu;\n",
            idx[0]);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "    if (k == %zu)\n        return (void)::emu_case_%zu_end, ::emu_case_%zu::run();\n", idx[i],
                idx[i], idx[i]);
    fprintf(f, "    puts(\"EMU ERROR: no such case\");\n    return 4;\n}\n");
    assert_int_equal(fclose(f), 0);
}

/* g++ on src into exe; its output in log (up to n - 1 bytes). */
static inline bool emu_batch_build(emu_batch *b, const char *src, const char *exe, char *log, size_t n)
{
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "%s " EMU_BUILD_FLAGS " -o '%s' '%s' 2>&1", EMU_CXX, exe, src);
    b->builds++;
    FILE *pp = popen(cmd, "r");
    assert_non_null(pp);
    size_t got = fread(log, 1, n - 1, pp);
    log[got] = '\0';
    return pclose(pp) == 0;
}

/* Runs case k of exe: c->got and c->log, as emu_run classifies them. */
static inline void emu_batch_exec(emu_case *c, const char *exe, size_t k)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s' %zu 2>&1", exe, k);
    FILE *pp = popen(cmd, "r");
    assert_non_null(pp);
    size_t got = fread(c->log, 1, EMU_BATCH_LOG - 1, pp);
    c->log[got] = '\0';
    int st = pclose(pp);
    if (!WIFEXITED(st))
        c->got = EMU_CRASHED;
    else
        switch (WEXITSTATUS(st)) {
        case 0: c->got = strstr(c->log, "EMU OK") ? EMU_OK : EMU_CRASHED; break;
        case 1: c->got = EMU_DIFFERS; break;
        case 3: c->got = EMU_DIVERGENT; break;
        default: c->got = EMU_CRASHED; break;
        }
}

/* Builds case k alone (DIR/emu_batch_NAME_K.cpp) and runs it. */
static inline void emu_batch_alone(emu_batch *b, size_t k)
{
    emu_case *c = &b->cases[k];
    char src[810], exe[800];
    snprintf(exe, sizeof exe, "%s/emu_batch_%s_%zu", b->dir, b->name, k);
    snprintf(src, sizeof src, "%s.cpp", exe);
    emu_batch_write(b, src, &k, 1);
    if (!emu_batch_build(b, src, exe, c->log, EMU_BATCH_LOG))
        c->got = EMU_NO_BUILD;
    else
        emu_batch_exec(c, exe, k);
}

/* Builds and runs every queued case (see the head of this file) and reports each that did
 * not give its want; returns how many. Each case's got and log stay in b until the next
 * emu_batch_init. */
static inline size_t emu_batch_finish(emu_batch *b)
{
    assert_true(b->open);
    b->open = false;
    b->builds = 0;
    size_t idx[EMU_BATCH_MAX], n = 0;
    for (size_t k = 0; k < b->n; k++) {
        b->cases[k].log = malloc(EMU_BATCH_LOG);
        assert_non_null(b->cases[k].log);
        b->cases[k].log[0] = '\0';
        if (!b->cases[k].alone)
            idx[n++] = k;
    }
    if (n > 0) {
        char src[810], exe[800];
        snprintf(exe, sizeof exe, "%s/emu_batch_%s", b->dir, b->name);
        snprintf(src, sizeof src, "%s.cpp", exe);
        emu_batch_write(b, src, idx, n);
        static char log[EMU_BATCH_LOG];
        if (emu_batch_build(b, src, exe, log, sizeof log)) {
            for (size_t i = 0; i < n; i++)
                emu_batch_exec(&b->cases[idx[i]], exe, idx[i]);
        } else {
            print_message("the batch %s of %zu emulated programs did not build; each is built alone:\n%.2000s\n",
                          src, n, log);
            for (size_t i = 0; i < n; i++)
                emu_batch_alone(b, idx[i]);
        }
    }
    for (size_t k = 0; k < b->n; k++)
        if (b->cases[k].alone)
            emu_batch_alone(b, k);
    size_t bad = 0;
    char names[1024] = "";
    for (size_t k = 0; k < b->n; k++) {
        emu_case *c = &b->cases[k];
        if (c->got != c->want) {
            /* the scratch directory goes with the test: keep the case as a program of its own */
            char kept[800];
            snprintf(kept, sizeof kept, "%s/emu_failed_%s.cpp", HK_BINARY_DIR, c->tag);
            emu_batch_write(b, kept, &k, 1);
            print_message("emulated %s: want %d, got %d:\n%s\n(program: %s; built with g++ " EMU_BUILD_FLAGS ")\n",
                          c->tag, c->want, c->got, c->log, kept);
            if (strlen(names) + strlen(c->tag) + 2 < sizeof names)
                snprintf(names + strlen(names), sizeof names - strlen(names), " %s", c->tag);
            bad++;
        } else if (c->want != EMU_OK) {
            print_message("emulated %s (a broken kernel: expected to fail): %.300s\n", c->tag, c->log);
        }
    }
    print_message("%zu emulated programs (batch %s) in %zu g++ runs, %zu not as expected%s%s\n", b->n, b->name,
                  b->builds, bad, bad ? ":" : "", names);
    return bad;
}

/* emu_batch_finish, and every case must have given its want. */
static inline void emu_batch_run(emu_batch *b)
{
    assert_int_equal(emu_batch_finish(b), 0);
}

#endif
