/* Timing of the analysis on the benchmark file from bench/gen_kernels.py (about
 * 18,000 lines, 1,000 kernels): full parse + model, and edit + incremental parse +
 * model rebuild p50/p99. Prints the figures; asserts what must hold on any machine
 * (the model is complete, an edit re-extracts only what it touched and is cheaper
 * than a full rebuild). HK_BENCH_FILE=path uses that file instead of generating one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "core/hk.h"

/* Sanitizer builds run the same checks on less work (they are 2-10x slower). */
#if defined(__SANITIZE_ADDRESS__)
enum { FULL_RUNS = 2, EDITS = 60 };
#else
enum { FULL_RUNS = 5, EDITS = 300 };
#endif

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of n sorted values, nearest rank. */
static double quant_ms(const uint64_t *v, size_t n, double q)
{
    size_t i = (size_t)(q * (double)n + 0.999999);
    if (i < 1)
        i = 1;
    if (i > n)
        i = n;
    return (double)v[i - 1] / 1e6;
}

static char *load_bench_file(size_t *len)
{
    const char *path = getenv("HK_BENCH_FILE");
    char tmp[] = "/tmp/hk_gen_kernels_XXXXXX";
    if (!path || !*path) {
        int fd = mkstemp(tmp);
        assert_true(fd >= 0);
        close(fd);
        char cmd[1024];
        snprintf(cmd, sizeof(cmd), "python3 %s/bench/gen_kernels.py --kernels 1000 --seed 1 -o %s",
                 HK_SOURCE_DIR, tmp);
        if (system(cmd) != 0) {
            unlink(tmp);
            return NULL;
        }
        path = tmp;
    }
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    if (path == tmp)
        unlink(tmp);
    *len = (size_t)n;
    return buf;
}

/* What documentSymbol does with the model: walk the functions. */
static size_t symbols(const an_model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_funcs; i++)
        n += m->funcs[i].name[0] != '\0';
    return n;
}

/* Resident set size in KiB (Linux), or 0. */
static long rss_kib(void)
{
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &res) != 2)
        res = 0;
    fclose(f);
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static void point_of(const char *t, size_t byte, uint32_t *row, uint32_t *col)
{
    uint32_t r = 0, c = 0;
    for (size_t i = 0; i < byte; i++) {
        if (t[i] == '\n') {
            r++;
            c = 0;
        } else {
            c++;
        }
    }
    *row = r;
    *col = c;
}

static void test_perf(void **state)
{
    (void)state;
    size_t len = 0;
    char *text = load_bench_file(&len);
    if (!text) {
        print_message("skipped: python3 bench/gen_kernels.py failed\n");
        skip();
    }
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';

    /* full: new document, parse, model, symbols -- what didOpen + documentSymbol cost */
    uint64_t full[FULL_RUNS], parse[FULL_RUNS], model[FULL_RUNS];
    size_t kernels = 0;
    for (int r = 0; r < FULL_RUNS; r++) {
        an_doc *d;
        uint64_t t0 = now_ns();
        assert_int_equal(an_doc_new(&d), HK_OK);
        an_doc_set_parse_timeout(d, 0);
        assert_int_equal(an_doc_parse(d, text, len), HK_OK);
        size_t ns = symbols(an_doc_model(d));
        full[r] = now_ns() - t0;
        an_doc_stats st;
        an_doc_get_stats(d, &st);
        parse[r] = st.parse_ns;
        model[r] = st.model_ns;
        const an_model *m = an_doc_model(d);
        assert_false(m->has_errors);
        kernels = 0;
        for (size_t i = 0; i < m->n_funcs; i++)
            kernels += m->funcs[i].kind == AN_KERNEL;
        assert_int_equal(kernels, 1000);
        assert_true(ns >= 1000);
        an_doc_free(d);
    }
    qsort(full, FULL_RUNS, sizeof(full[0]), cmp_u64);
    qsort(parse, FULL_RUNS, sizeof(parse[0]), cmp_u64);
    qsort(model, FULL_RUNS, sizeof(model[0]), cmp_u64);

    /* edits: typing inside kernel bodies -- insert a character, later delete it, and
     * now and then add a line -- each followed by the incremental parse and symbols */
    an_doc *d;
    long rss0 = rss_kib();
    assert_int_equal(an_doc_new(&d), HK_OK);
    an_doc_set_parse_timeout(d, 0);
    assert_int_equal(an_doc_parse(d, text, len), HK_OK);
    long rss1 = rss_kib();
    size_t cap = len + 4096;
    char *cur = malloc(cap);
    assert_non_null(cur);
    memcpy(cur, text, len);
    size_t cur_len = len;
    static uint64_t edit[EDITS], emodel[EDITS];
    unsigned seed = 7;
    size_t reuse_min = SIZE_MAX, items = 0;
    for (int e = 0; e < EDITS; e++) {
        const an_model *m = an_doc_model(d);
        seed = seed * 1103515245u + 12345u;
        const an_function *f = &m->funcs[(seed >> 8) % m->n_funcs];
        /* a position right after the body's "{": always inside the function */
        size_t pos = f->body_span.start_byte + 1;
        const char *ins = (e % 10 == 9) ? "\n    int typed = 0;" : " ";
        size_t il = strlen(ins), del = 0;
        if (e % 2 == 1 && e % 10 != 9 && cur[pos] == ' ') {
            ins = "";
            il = 0;
            del = 1;
        }
        uint32_t sr, sc, er, ec, nr, nc;
        point_of(cur, pos, &sr, &sc);
        point_of(cur, pos + del, &er, &ec);
        uint64_t t0 = now_ns();
        memmove(cur + pos + il, cur + pos + del, cur_len - pos - del);
        memcpy(cur + pos, ins, il);
        cur_len = cur_len - del + il;
        nr = sr;
        nc = sc;
        for (size_t i = 0; i < il; i++) {
            if (ins[i] == '\n') {
                nr++;
                nc = 0;
            } else {
                nc++;
            }
        }
        assert_int_equal(an_doc_edit(d, (uint32_t)pos, (uint32_t)(pos + del), (uint32_t)(pos + il),
                                     sr, sc, er, ec, nr, nc), HK_OK);
        assert_int_equal(an_doc_parse(d, cur, cur_len), HK_OK);
        size_t ns = symbols(an_doc_model(d));
        edit[e] = now_ns() - t0;
        assert_true(ns >= 1000);
        an_doc_stats st;
        an_doc_get_stats(d, &st);
        assert_true(st.incremental);
        emodel[e] = st.model_ns;
        items = st.items;
        if (st.items - st.items_reused < reuse_min || reuse_min == SIZE_MAX)
            reuse_min = st.items - st.items_reused;
        assert_true(st.items_reused + 2 >= st.items);   /* only the edited item is redone */
        if (cur_len + 64 > cap)
            break;
    }
    qsort(edit, EDITS, sizeof(edit[0]), cmp_u64);
    qsort(emodel, EDITS, sizeof(emodel[0]), cmp_u64);

    /* full model rebuild on an unchanged tree, for comparison with the reuse path */
    an_doc_set_reuse(d, false);
    uint64_t rebuild[5];
    for (int r = 0; r < 5; r++) {
        assert_int_equal(an_doc_edit(d, 0, 0, 0, 0, 0, 0, 0, 0, 0), HK_OK);
        assert_int_equal(an_doc_parse(d, cur, cur_len), HK_OK);
        an_doc_stats st;
        an_doc_get_stats(d, &st);
        rebuild[r] = st.model_ns;
    }
    qsort(rebuild, 5, sizeof(rebuild[0]), cmp_u64);

    print_message("analysis benchmark: %zu lines, %zu bytes, %zu kernels, %zu items\n", lines,
                  len, kernels, items);
    print_message("  open (new doc + full parse + model + symbols), median of %d: %.1f ms "
                  "(parse %.1f ms, model %.1f ms); min %.1f ms\n", FULL_RUNS,
                  quant_ms(full, FULL_RUNS, 0.5), quant_ms(parse, FULL_RUNS, 0.5),
                  quant_ms(model, FULL_RUNS, 0.5), quant_ms(full, FULL_RUNS, 0.0));
    print_message("  edit + incremental parse + model + symbols, %d edits: p50 %.2f ms, "
                  "p99 %.2f ms, max %.2f ms\n", EDITS, quant_ms(edit, EDITS, 0.5),
                  quant_ms(edit, EDITS, 0.99), quant_ms(edit, EDITS, 1.0));
    print_message("  model rebuild after an edit (reusing items): p50 %.3f ms, p99 %.3f ms\n",
                  quant_ms(emodel, EDITS, 0.5), quant_ms(emodel, EDITS, 0.99));
    print_message("  full model rebuild of the same tree (no reuse): median %.1f ms\n",
                  quant_ms(rebuild, 5, 0.5));
    print_message("  resident memory of one open document (tree + model): about %ld KiB\n",
                  rss1 - rss0);
    /* reuse must beat re-extraction by a wide margin, whatever the machine */
    assert_true(quant_ms(emodel, EDITS, 0.5) * 4 < quant_ms(rebuild, 5, 0.5));
    an_doc_free(d);
    free(cur);
    free(text);
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
