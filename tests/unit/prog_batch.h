/* Generated benchmark programs (harness_generate's files) compiled as one translation unit,
 * for the tests that build many (test_engine_suite through suite_compile.h, with nvcc
 * -cubin; test_engine_harness_hip, with hipcc): one compiler run instead of one each, whose
 * cost is mostly the toolchain and hk_harness.h (issue 14: CI time). Test code only:
 * include after cmocka.h and core/hk.h.
 *
 * Each program's file is #included verbatim in a namespace of its own (PREFIX_K, K from 1),
 * where its main is an ordinary function. hk_harness.h comes once, before the namespaces
 * (include guards: a namespace cannot hold it, only the first would have a copy), after
 * the system headers its candidates include (hoisted: a namespace cannot hold those either).
 * As nvcc_batch.h's batches, a batch passes no program that fails alone, with one
 * exception: under nvcc a program reads its candidate before hk_harness.h, in the batch
 * after it (under hipcc the program itself puts the header first), so a candidate that
 * used, undeclared, a name of hk_harness.h or of the system headers it includes would pass
 * here; the suite's candidates are the repository's own kernels. The rules (pb_scan,
 * pb_write):
 * - programs share a batch only when their candidates' #include <...> lines are exactly the
 *   same (no program gets a header from another), and a candidate with a quoted #include
 *   is compiled alone (the caller's choice: pb_scan says so);
 * - after each program, every macro its candidate defines is undefined;
 * - a marker type declared at the end of each namespace must be found from file scope
 *   (static_assert), so a brace left open by one program and closed by the next, or one
 *   closed too many, fails the batch.
 * A batch that fails is compiled again one program at a time by the caller, so that a
 * failure names its program's text. */
#ifndef HK_TEST_PROG_BATCH_H
#define HK_TEST_PROG_BATCH_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* A candidate's lines that decide its batch: its #include <...> lines in order (includes)
 * and "#undef NAME\n" for each macro it #defines (undefs); new strings (hk_free). False
 * when the file cannot be read or it has a quoted #include (then it is compiled alone). */
static inline bool pb_scan(const char *candidate, char **includes, char **undefs)
{
    *includes = *undefs = NULL;
    FILE *f = fopen(candidate, "rb");
    if (!f)
        return false;
    char line[1024];
    size_t inc_len = 0, und_len = 0;
    char *inc = hk_calloc(1, 1), *und = hk_calloc(1, 1);
    assert_true(inc && und);
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '#')
            continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!strncmp(p, "include", 7)) {
            const char *q = p + 7;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q != '<') {
                ok = false; /* a quoted (or computed) include: alone */
                break;
            }
            const char *end = strchr(q, '>');
            assert_non_null(end);
            char *n = hk_realloc(inc, inc_len + (size_t)(end - q) + 12);
            assert_non_null(n);
            inc = n;
            inc_len += (size_t)sprintf(inc + inc_len, "#include %.*s\n", (int)(end + 1 - q), q);
        } else if (!strncmp(p, "define", 6) && (p[6] == ' ' || p[6] == '\t')) {
            const char *q = p + 6;
            while (*q == ' ' || *q == '\t')
                q++;
            size_t len = strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789_");
            char *n = hk_realloc(und, und_len + len + 9);
            assert_non_null(n);
            und = n;
            und_len += (size_t)sprintf(und + und_len, "#undef %.*s\n", (int)len, q);
        }
    }
    fclose(f);
    if (!ok) {
        hk_free(inc);
        hk_free(und);
        return false;
    }
    *includes = inc;
    *undefs = und;
    return true;
}

/* Writes the batch of n files to f: the includes every candidate shares (pb_scan's, the
 * same for all), then header when not NULL (hk_harness.h: for benchmark programs), then for
 * each K: namespace PREFIX_K holding #include "files[K-1]" (a name relative to the batch's
 * folder, or a full path) and the marker, the marker's check, and undefs[K-1]. */
static inline void pb_write(FILE *f, const char *prefix, const char *header, const char *includes,
                            const char *const *files, char *const *undefs, size_t n)
{
    fprintf(f, "/* %zu generated files in one translation unit (prog_batch.h) */\n%s", n, includes);
    if (header)
        fprintf(f, "#include \"%s\"\n", header);
    for (size_t k = 1; k <= n; k++)
        fprintf(f, "namespace %s_%zu {\n#include \"%s\"\nstruct %s_end {};\n}\n"
                   "static_assert(sizeof(::%s_%zu::%s_end) == 1, \"%s: a brace left open or "
                   "closed too many\");\n%s",
                prefix, k, files[k - 1], prefix, prefix, k, prefix, files[k - 1], undefs[k - 1]);
}

#endif
