/* Chunked parsing: where the text splits (server/analysis/chunks.c) and what the split
 * must not change. Pieces tile any text, even garbage, and start at line starts outside
 * comments, strings, raw strings and conditionals; on error-free code the chunked model
 * equals a parse of the whole text in one piece; the thread count changes nothing; edits
 * to a large file reparse a few chunks and end where a fresh document would be; a chunk
 * too large to split keeps its tree and is reparsed incrementally, and so does the
 * chunk an edit made, without the model ever depending on it (a tree with errors is not
 * kept, and a kept tree reparsed over broken code at the end of the text is parsed again
 * afresh); a full parse's parallel extraction sees the file's qualifier macros. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/chunks.h"
#include "core/hk.h"

#include "analysis_edits.h"

/* gen_kernels.py output (kernels, seed, HIP or CUDA), or NULL when python3 cannot run it. */
static char *generate(int kernels, int seed, bool hip, size_t *len)
{
    char tmp[] = "/tmp/hk_chunks_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "python3 %s/../../bench/gen_kernels.py --kernels %d --seed %d %s -o %s 2>/dev/null",
             HK_TEST_DATA, kernels, seed, hip ? "--hip" : "", tmp);
    char *buf = NULL;
    if (system(cmd) == 0) {
        FILE *f = fopen(tmp, "rb");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = malloc((size_t)n + 1);
        assert_non_null(buf);
        assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
        buf[n] = '\0';
        fclose(f);
        *len = (size_t)n;
    }
    unlink(tmp);
    return buf;
}

/* Splits text into pieces and checks they tile it, start at line starts and that rows
 * and the last column are right. Returns the count. */
static size_t check_tiling(const char *t, uint32_t len, uint32_t *starts, size_t cap)
{
    uint32_t pos = 0, row = 0;
    size_t n = 0;
    do {
        struct an_piece p;
        an_piece_next(t, len, pos, row, &p);
        assert_int_equal(p.start, pos);
        assert_true(p.end > p.start || len == 0);
        assert_true(p.end <= len);
        assert_true(p.start == 0 || t[p.start - 1] == '\n');
        uint32_t r = row;
        for (uint32_t i = p.start; i < p.end; i++)
            r += t[i] == '\n';
        assert_int_equal(p.end_row, r);
        if (p.end < len) {
            assert_int_equal(p.end_col, 0);
        } else {
            uint32_t c = 0;
            for (uint32_t i = p.end; i > 0 && t[i - 1] != '\n'; i--)
                c++;
            assert_int_equal(p.end_col, c);
        }
        if (n < cap)
            starts[n] = p.start;
        n++;
        pos = p.end;
        row = p.end_row;
    } while (pos < len);
    return n;
}

static void test_tiling_any_text(void **state)
{
    (void)state;
    uint32_t starts[1];
    check_tiling("", 0, starts, 0);
    check_tiling("x", 1, starts, 0);
    check_tiling("\n\n\n", 3, starts, 0);
    /* garbage of every byte, and garbage made of the scan's own special characters */
    static const char special[] = "{}()[];#\n\n\"'/*\\R(x)\" \t0if endif";
    unsigned seed = 12345;
    for (int round = 0; round < 400; round++) {
        size_t n = 1 + rnd(&seed) % 20000;
        char *t = malloc(n);
        assert_non_null(t);
        for (size_t i = 0; i < n; i++)
            t[i] = round % 2 ? (char)rnd(&seed) : special[rnd(&seed) % (sizeof(special) - 1)];
        check_tiling(t, (uint32_t)n, starts, 0);
        free(t);
    }
}

/* The pieces of text, as the list of their start offsets. */
static size_t piece_starts(const char *t, uint32_t *starts, size_t cap)
{
    return check_tiling(t, (uint32_t)strlen(t), starts, cap);
}

static bool has_start_in(const uint32_t *starts, size_t n, uint32_t lo, uint32_t hi)
{
    for (size_t i = 0; i < n; i++)
        if (starts[i] > lo && starts[i] < hi)
            return true;
    return false;
}

/* Boundaries never fall inside what hides the top level: a block comment, a raw
 * string, an #if 0 block or any conditional, a brace or a parenthesis. The filler
 * around each is long enough that the scan would otherwise split there. */
static void test_no_boundary_inside(void **state)
{
    (void)state;
    static const char *const opens[] = {"/*\n", "const char *s = R\"d(\n", "#if 0\n",
                                        "#ifdef X\n", "namespace n {\n", "int a = f(\n",
                                        "const char *u = u8R\"d(\n"};
    static const char *const closes[] = {"*/\n", ")d\";\n", "#endif\n", "#endif\n", "}\n",
                                         "0);\n", ")d\";\n"};
    for (size_t k = 0; k < sizeof(opens) / sizeof(opens[0]); k++) {
        char *t = malloc(1 << 20);
        assert_non_null(t);
        size_t n = 0;
        for (int i = 0; i < 300; i++)
            n += (size_t)sprintf(t + n, "__device__ int pre%d(int x) { return x + %d; }\n", i, i);
        uint32_t lo = (uint32_t)n;
        n += (size_t)sprintf(t + n, "%s", opens[k]);
        for (int i = 0; i < 400; i++)
            n += (size_t)sprintf(t + n, "%s__device__ int in%d(int x) { return x; }\n",
                                 k == 5 ? "0 + " : "", i);
        n += (size_t)sprintf(t + n, "%s", closes[k]);
        uint32_t hi = (uint32_t)n;
        for (int i = 0; i < 300; i++)
            n += (size_t)sprintf(t + n, "__device__ int post%d(int x) { return x; }\n", i);
        uint32_t starts[4096];
        size_t np = piece_starts(t, starts, 4096);
        assert_true(np > 4);                             /* the filler splits */
        if (has_start_in(starts, np, lo, hi))
            fail_msg("a boundary inside %s...%s", opens[k], closes[k]);
        assert_true(has_start_in(starts, np, 0, lo));
        assert_true(has_start_in(starts, np, hi, (uint32_t)n));
        free(t);
    }
}

/* A chunked model, the whole text's model in one piece, and the chunks of threads 1
 * and 4 on the same text. */
static void check_against_whole(const char *t, size_t len, bool expect_clean)
{
    an_doc *a, *w, *one;
    assert_int_equal(an_doc_new(&a), HK_OK);
    assert_int_equal(an_doc_new(&w), HK_OK);
    assert_int_equal(an_doc_new(&one), HK_OK);
    an_doc_set_parse_timeout(a, 0);
    an_doc_set_parse_timeout(w, 0);
    an_doc_set_parse_timeout(one, 0);
    an_doc_set_threads(a, 4);
    an_doc_set_threads(one, 1);
    an_doc_set_chunked(w, false);
    assert_int_equal(an_doc_parse(a, t, len), HK_OK);
    assert_int_equal(an_doc_parse(w, t, len), HK_OK);
    assert_int_equal(an_doc_parse(one, t, len), HK_OK);
    an_doc_stats st;
    an_doc_get_stats(a, &st);
    assert_true(st.chunks > 1);
    char why[256];
    if (expect_clean)
        assert_false(an_doc_model(w)->has_errors);
    if (!an_doc_model(w)->has_errors &&
        !model_eq(an_doc_model(a), an_doc_model(w), why, sizeof(why)))
        fail_msg("chunked model differs from the whole text's: %s", why);
    if (!model_eq(an_doc_model(a), an_doc_model(one), why, sizeof(why)))
        fail_msg("4 threads and 1 thread differ: %s", why);
    static uint32_t ca[1 << 16], cb[1 << 16];
    size_t na = an_doc_chunks(a, ca, 1 << 16), nb = an_doc_chunks(one, cb, 1 << 16);
    assert_int_equal(na, nb);
    assert_memory_equal(ca, cb, na * sizeof(ca[0]));
    an_doc_free(a);
    an_doc_free(w);
    an_doc_free(one);
}

static void test_generated_equals_whole(void **state)
{
    (void)state;
    size_t len;
    char *t = generate(300, 3, false, &len);
    if (!t) {
        print_message("skipped: python3 bench/gen_kernels.py failed\n");
        skip();
    }
    check_against_whole(t, len, true);
    free(t);
    t = generate(200, 4, true, &len);
    assert_non_null(t);
    /* the HIP flavour: hipLaunchKernelGGL launch sites */
    check_against_whole(t, len, true);
    free(t);
    assert_int_equal(hk_alloc_live(), 0);
}

/* A split that cuts an item (the struct's variable on the next line) is joined again:
 * the model still has the kernel after it, and no errors. */
static void test_bad_split_joined(void **state)
{
    (void)state;
    char *t = malloc(1 << 20);
    assert_non_null(t);
    size_t n = 0;
    for (int i = 0; i < 2000; i++) {
        n += (size_t)sprintf(t + n, "struct S%d { int v; }\n", i);
        n += (size_t)sprintf(t + n, "s%d;\n", i);      /* continues the line above */
    }
    n += (size_t)sprintf(t + n, "__global__ void last(int *p) { p[0] = 1; }\n");
    check_against_whole(t, n, true);
    an_model *m;
    assert_int_equal(an_analyze(t, n, &m), HK_OK);
    assert_false(m->has_errors);
    assert_true(an_model_find_kernel(m, "last") >= 0);
    an_model_free(m);
    free(t);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Random edits to a 300-kernel file: few chunks parsed per edit, and every few steps
 * the same model and chunks as a fresh document's. */
static void test_edits_large_file(void **state)
{
    (void)state;
    size_t len;
    char *base = generate(300, 5, false, &len);
    if (!base) {
        print_message("skipped: python3 bench/gen_kernels.py failed\n");
        skip();
    }
    struct text t = {base, len, len + 1, len + 4096};
    char *orig = malloc(len);
    assert_non_null(orig);
    memcpy(orig, base, len);
    size_t orig_len = len;
    an_doc *d;
    assert_int_equal(an_doc_new(&d), HK_OK);
    an_doc_set_parse_timeout(d, 0);
    assert_int_equal(an_doc_parse(d, t.p, t.len), HK_OK);
    an_doc_stats st;
    an_doc_get_stats(d, &st);
    size_t chunks = st.chunks;
    assert_true(chunks > 20);
    unsigned seed = 2024;
    size_t parsed = 0, steps = 150, compared = 0, skipped = 0;
    uint64_t bytes = 0;
    char why[256];
    static uint32_t ca[1 << 16], cb[1 << 16];
    for (size_t step = 0; step < steps; step++) {
        if (step && step % 25 == 0) {
            /* back to the original text, as one edit of the whole document: broken code
             * tends to stay broken under random edits, and these runs should also see
             * clean code */
            uint32_t er, ec;
            point_of(t.p, t.len, &er, &ec);
            uint32_t nr, nc;
            point_of(orig, orig_len, &nr, &nc);
            if (t.cap < orig_len + 1) {
                t.p = realloc(t.p, orig_len + 1);
                assert_non_null(t.p);
                t.cap = orig_len + 1;
            }
            memcpy(t.p, orig, orig_len);
            assert_int_equal(an_doc_edit(d, 0, (uint32_t)t.len, (uint32_t)orig_len, 0, 0, er, ec,
                                         nr, nc), HK_OK);
            t.len = orig_len;
            t.p[t.len] = '\0';
        } else {
            random_edit(&t, &seed, &d, 1);
        }
        assert_int_equal(an_doc_parse(d, t.p, t.len), HK_OK);
        an_doc_get_stats(d, &st);
        parsed += st.chunks_parsed;
        bytes += st.bytes_parsed;
        /* the one exception: a chunk too large to split, reparsed incrementally over
         * broken code, recovers as tree-sitter's incremental parse does */
        if (step % 3 == 2 && st.trees_kept && an_doc_model(d)->has_errors) {
            skipped++;
        } else if (step % 3 == 2) {
            an_doc *fresh;
            assert_int_equal(an_doc_new(&fresh), HK_OK);
            an_doc_set_parse_timeout(fresh, 0);
            assert_int_equal(an_doc_parse(fresh, t.p, t.len), HK_OK);
            if (!model_eq(an_doc_model(d), an_doc_model(fresh), why, sizeof(why))) {
                size_t na = an_doc_chunks(d, ca, 1 << 16);
                for (size_t i = 0; i < na; i++)
                    print_message("chunk %zu at %u size %u\n", i, ca[i],
                                  (i + 1 < na ? ca[i + 1] : (uint32_t)t.len) - ca[i]);
                fail_msg("step %zu: edited model differs from fresh: %s", step, why);
            }
            size_t na = an_doc_chunks(d, ca, 1 << 16), nb = an_doc_chunks(fresh, cb, 1 << 16);
            assert_int_equal(na, nb);
            assert_memory_equal(ca, cb, na * sizeof(ca[0]));
            an_doc_free(fresh);
            compared++;
        }
    }
    print_message("%zu chunks; %zu edits parsed %.2f chunks, %.0f bytes each on average "
                  "(the text is %zu bytes); %zu fresh comparisons, %zu skipped (kept tree, "
                  "broken code)\n", chunks, steps, (double)parsed / (double)steps,
                  (double)bytes / (double)steps, t.len, compared, skipped);
    assert_true(compared >= 5);
    an_doc_free(d);
    free(t.p);
    free(orig);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Typing in kernel bodies of a large file, an unclosed brace included: each edit parses
 * at most a few chunks, never the file. */
static void test_typing_cost(void **state)
{
    (void)state;
    size_t len;
    char *base = generate(600, 6, false, &len);
    if (!base) {
        print_message("skipped: python3 bench/gen_kernels.py failed\n");
        skip();
    }
    struct text t = {base, len, len + 1, 0};
    t.p = realloc(t.p, len + 4096);
    assert_non_null(t.p);
    t.cap = len + 4096;
    an_doc *d;
    assert_int_equal(an_doc_new(&d), HK_OK);
    an_doc_set_parse_timeout(d, 0);
    assert_int_equal(an_doc_parse(d, t.p, t.len), HK_OK);
    unsigned seed = 77;
    uint64_t most = 0;
    for (int e = 0; e < 200; e++) {
        const an_model *m = an_doc_model(d);
        const an_function *f = &m->funcs[rnd(&seed) % m->n_funcs];
        /* inside the body, after its "{": a space, or an unclosed "{" typed there and
         * removed at the next edit */
        size_t pos = f->body_span.start_byte + 1;
        const char *ins = e % 4 == 2 ? " if (n) {" : " ";
        size_t il = strlen(ins);
        uint32_t r, c;
        point_of(t.p, pos, &r, &c);
        memmove(t.p + pos + il, t.p + pos, t.len - pos);
        memcpy(t.p + pos, ins, il);
        t.len += il;
        assert_int_equal(an_doc_edit(d, (uint32_t)pos, (uint32_t)pos, (uint32_t)(pos + il), r, c,
                                     r, c, r, c + (uint32_t)il), HK_OK);
        assert_int_equal(an_doc_parse(d, t.p, t.len), HK_OK);
        an_doc_stats st;
        an_doc_get_stats(d, &st);
        assert_true(st.incremental);
        if (st.bytes_parsed > most)
            most = st.bytes_parsed;
        /* take it out again */
        memmove(t.p + pos, t.p + pos + il, t.len - pos - il);
        t.len -= il;
        assert_int_equal(an_doc_edit(d, (uint32_t)pos, (uint32_t)(pos + il), (uint32_t)pos, r, c,
                                     r, c + (uint32_t)il, r, c), HK_OK);
        assert_int_equal(an_doc_parse(d, t.p, t.len), HK_OK);
        an_doc_get_stats(d, &st);
        if (st.bytes_parsed > most)
            most = st.bytes_parsed;
    }
    print_message("400 edits in a %zu-byte file: at most %llu bytes parsed by one\n", t.len,
                  (unsigned long long)most);
    assert_true(most <= 4 * AN_PIECE_MAX);
    an_model *fresh;
    assert_int_equal(an_analyze(t.p, t.len, &fresh), HK_OK);
    char why[256];
    if (!model_eq(an_doc_model(d), fresh, why, sizeof(why)))
        fail_msg("after typing: %s", why);
    an_model_free(fresh);
    an_doc_free(d);
    free(t.p);
    assert_int_equal(hk_alloc_live(), 0);
}

/* A file-long namespace cannot be split: one chunk over the size limit, whose tree is
 * kept and reparsed incrementally; after error-free edits the model equals a fresh one. */
static void test_unsplittable_keeps_tree(void **state)
{
    (void)state;
    char *t = malloc(1 << 20);
    assert_non_null(t);
    size_t n = (size_t)sprintf(t, "namespace big {\n");
    for (int i = 0; i < 1500; i++)
        n += (size_t)sprintf(t + n,
                             "__global__ void k%d(float *p, int n) {\n"
                             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "    if (i < n) p[i] = %d.0f;\n}\n", i, i);
    n += (size_t)sprintf(t + n, "}\n");
    an_doc *d;
    assert_int_equal(an_doc_new(&d), HK_OK);
    an_doc_set_parse_timeout(d, 0);
    assert_int_equal(an_doc_parse(d, t, n), HK_OK);
    an_doc_stats st;
    an_doc_get_stats(d, &st);
    assert_int_equal(st.chunks, 1);
    assert_int_equal(an_doc_model(d)->n_funcs, 1500);
    /* rename k700 to k700x (error-free edit in the middle) */
    char *at = strstr(t, "void k700(");
    assert_non_null(at);
    size_t pos = (size_t)(at - t) + strlen("void k700");
    memmove(t + pos + 1, t + pos, n - pos);
    t[pos] = 'x';
    n++;
    uint32_t row, col;
    point_of(t, pos, &row, &col);
    assert_int_equal(an_doc_edit(d, (uint32_t)pos, (uint32_t)pos, (uint32_t)pos + 1, row, col,
                                 row, col, row, col + 1), HK_OK);
    assert_int_equal(an_doc_parse(d, t, n), HK_OK);
    an_doc_get_stats(d, &st);
    assert_true(st.incremental);
    assert_true(st.items_reused >= st.items - 1);
    an_model *fresh;
    assert_int_equal(an_analyze(t, n, &fresh), HK_OK);
    char why[256];
    if (!model_eq(an_doc_model(d), fresh, why, sizeof(why)))
        fail_msg("after an edit in the kept tree: %s", why);
    assert_true(an_model_find_kernel(fresh, "k700x") >= 0);
    an_model_free(fresh);
    an_doc_free(d);
    free(t);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Qualifier macros in a file large enough to be parsed on several threads (400 kernels,
 * ~75 KB, over AN_PARALLEL_MIN: 64 KiB in analysis.c; 900 until session 34), where each
 * piece is extracted right after its parse with a macro table guessed from the text:
 * `#define KERNEL __global__` at the top makes KERNEL functions kernels. A `#define`
 * of such a word inside a function body or a block comment is no qualifier macro (the
 * guess counts it; the parse is then redone the serial way): functions spelled with it
 * are host functions without launches, so not in the model. Either way the model is the
 * same whatever the threads and equals the whole text's. */
static void test_parallel_qualifier_macros(void **state)
{
    (void)state;
    for (int wrong = 0; wrong < 3; wrong++) {
        char *t = malloc(1 << 20);
        assert_non_null(t);
        size_t n = (size_t)sprintf(t, "#define KERNEL __global__\n"
                                      "#define DEVFN __device__ __forceinline__\n");
        if (wrong == 1)
            n += (size_t)sprintf(t + n, "void setup(int *p) {\n#define SNEAKY __global__\n"
                                        "    p[0] = 0;\n}\n");
        if (wrong == 2)
            n += (size_t)sprintf(t + n, "/* not code:\n#define SNEAKY __global__\n*/\n");
        for (int i = 0; i < 400; i++) {
            n += (size_t)sprintf(t + n, "KERNEL void k%d(float *p, int n) {\n"
                                        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                        "    if (i < n) p[i] = d%d(p[i]);\n}\n", i, i);
            n += (size_t)sprintf(t + n, "DEVFN float d%d(float x) { return x * %d; }\n", i, i);
            if (i % 3 == 0)
                n += (size_t)sprintf(t + n, "SNEAKY void s%d(int *q) { q[0] = %d; }\n", i, i);
            if (i % 5 == 0)
                n += (size_t)sprintf(t + n, "void l%d(float *p) { k%d<<<1, 32>>>(p, 1); }\n", i,
                                     i);
        }
        assert_true(n > (64u << 10));   /* over AN_PARALLEL_MIN: parsed on several threads */
        /* `KERNEL void k(...)` is an ERROR to the grammar (two types): functions are
         * recovered there, so only the thread counts are compared */
        check_against_whole(t, n, false);
        an_doc *d;
        assert_int_equal(an_doc_new(&d), HK_OK);
        an_doc_set_parse_timeout(d, 0);
        an_doc_set_threads(d, 3);
        assert_int_equal(an_doc_parse(d, t, n), HK_OK);
        const an_model *m = an_doc_model(d);
        size_t kernels = 0, devs = 0, launchers = 0, sneaky = 0;
        for (size_t i = 0; i < m->n_funcs; i++) {
            const an_function *f = &m->funcs[i];
            kernels += f->kind == AN_KERNEL && f->name[0] == 'k';
            devs += f->kind == AN_DEVICE_FUNC && f->name[0] == 'd';
            launchers += f->kind == AN_LAUNCHER && f->name[0] == 'l';
            sneaky += f->name[0] == 's';
        }
        assert_int_equal(kernels, 400);
        assert_int_equal(devs, 400);
        assert_int_equal(launchers, 80);
        /* only the file-scope #define (none here: wrong == 1, 2) makes SNEAKY a kernel */
        assert_int_equal(sneaky, 0);
        assert_true(an_model_find_kernel(m, "k399") >= 0);
        an_doc_free(d);
        free(t);
    }
    assert_int_equal(hk_alloc_live(), 0);
}

/* Typing a statement into a kernel body of a 100-kernel file (~73 KB, over
 * AN_PARALLEL_MIN: each keystroke's fresh model is a parallel full parse; 200 kernels
 * until session 34, twice the CPU) one keystroke at a time, then deleting it the same
 * way: the chunk the last edit made keeps its tree (when error-free) and is reparsed
 * incrementally (11 of the 116 keystrokes here, 23 with 200 kernels), and over the
 * broken states in between the model must still be the fresh one's. */
static void test_keystrokes_match_fresh(void **state)
{
    (void)state;
    size_t len;
    char *base = generate(100, 8, false, &len);
    if (!base) {
        print_message("skipped: python3 bench/gen_kernels.py failed\n");
        skip();
    }
    static const char typed[] = "    if (i < n) { float v = p[i] * (2.0f + i); p[i] = v; }\n";
    size_t tl = sizeof(typed) - 1;
    char *t = malloc(len + tl + 1);
    assert_non_null(t);
    memcpy(t, base, len);
    an_doc *d;
    assert_int_equal(an_doc_new(&d), HK_OK);
    an_doc_set_parse_timeout(d, 0);
    assert_int_equal(an_doc_parse(d, t, len), HK_OK);
    const an_model *m0 = an_doc_model(d);
    size_t pos = 0;
    for (size_t i = m0->n_funcs / 2; i < m0->n_funcs && !pos; i++)
        if (m0->funcs[i].kind == AN_KERNEL)
            pos = m0->funcs[i].body_span.start_byte + 2;   /* after "{\n" */
    assert_true(pos > 0 && t[pos - 1] == '\n');
    size_t cur = len, reused = 0;
    char why[256];
    for (size_t k = 0; k < 2 * tl; k++) {
        bool typing = k < tl;
        size_t at = typing ? pos + k : pos + (2 * tl - k - 1);   /* backspace from the end */
        uint32_t r, c;
        point_of(t, at, &r, &c);
        if (typing) {
            memmove(t + at + 1, t + at, cur - at);
            t[at] = typed[k];
            cur++;
            uint32_t nr = t[at] == '\n' ? r + 1 : r, nc = t[at] == '\n' ? 0 : c + 1;
            assert_int_equal(an_doc_edit(d, (uint32_t)at, (uint32_t)at, (uint32_t)at + 1, r, c,
                                         r, c, nr, nc), HK_OK);
        } else {
            uint32_t er = t[at] == '\n' ? r + 1 : r, ec = t[at] == '\n' ? 0 : c + 1;
            memmove(t + at, t + at + 1, cur - at - 1);
            cur--;
            assert_int_equal(an_doc_edit(d, (uint32_t)at, (uint32_t)at + 1, (uint32_t)at, r, c,
                                         er, ec, r, c), HK_OK);
        }
        assert_int_equal(an_doc_parse(d, t, cur), HK_OK);
        an_doc_stats st;
        an_doc_get_stats(d, &st);
        assert_true(st.incremental);
        reused += st.trees_reused;
        an_model *fresh;
        assert_int_equal(an_analyze(t, cur, &fresh), HK_OK);
        if (!model_eq(an_doc_model(d), fresh, why, sizeof(why)))
            fail_msg("keystroke %zu: model differs from fresh: %s", k, why);
        an_model_free(fresh);
    }
    assert_int_equal(cur, len);
    assert_memory_equal(t, base, len);
    /* the keystrokes after an error-free state start from the tree it left (a chunk
     * with errors keeps none) */
    print_message("%zu keystrokes, %zu reparses from a kept tree\n", 2 * tl, reused);
    assert_true(reused >= 10);
    an_doc_free(d);
    free(t);
    free(base);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Replaces del bytes at `at` of t (length *n, room for ins) with ins, tells d, parses. */
static void splice_parse(an_doc *d, char *t, size_t *n, size_t at, size_t del, const char *ins)
{
    size_t il = strlen(ins);
    uint32_t sr, sc, oer, oec, ner, nec;
    point_of(t, at, &sr, &sc);
    point_of(t, at + del, &oer, &oec);
    memmove(t + at + il, t + at + del, *n - at - del + 1);
    memcpy(t + at, ins, il);
    *n = *n - del + il;
    point_of(t, at + il, &ner, &nec);
    assert_int_equal(an_doc_edit(d, (uint32_t)at, (uint32_t)(at + del), (uint32_t)(at + il), sr,
                                 sc, oer, oec, ner, nec), HK_OK);
    assert_int_equal(an_doc_parse(d, t, *n), HK_OK);
}

/* 60 small kernels (~7 KB: a few chunks of AN_PIECE_MIN and more), k59 at the end. */
static size_t small_kernels(char *t, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < 60; i++)
        n += (size_t)snprintf(t + n, cap - n,
                              "__global__ void k%d(float *p, int n) {\n"
                              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    if (i < n) p[i] = %d.0f;\n}\n", i, i);
    return n;
}

static void same_as_fresh(an_doc *d, const char *t, size_t n, const char *when)
{
    an_model *fresh;
    assert_int_equal(an_analyze(t, n, &fresh), HK_OK);
    char why[256];
    if (!model_eq(an_doc_model(d), fresh, why, sizeof(why)))
        fail_msg("%s: model differs from fresh: %s", when, why);
    an_model_free(fresh);
}

/* The chunk an error-free edit made keeps its tree ("recent"); the next edit, there at
 * the end of the text, breaks the code: tree-sitter's incremental parse from that tree may
 * recover otherwise than a fresh parse, so the piece is parsed again from scratch (two
 * parses of the same bytes, the first from the kept tree), and the model is a fresh
 * document's. Back to clean code, the tree is kept again. */
static void test_recent_tree_reparsed_afresh_over_errors(void **state)
{
    (void)state;
    static char t[16384];
    size_t n = small_kernels(t, sizeof(t));
    an_doc *d;
    assert_int_equal(an_doc_new(&d), HK_OK);
    an_doc_set_parse_timeout(d, 0);
    assert_int_equal(an_doc_parse(d, t, n), HK_OK);
    an_doc_stats st;
    an_doc_get_stats(d, &st);
    assert_true(st.chunks >= 3);
    /* error-free: "p[i] = 59.0f" -> "p[i] = 59.0f + 1" in the last kernel */
    char *at = strstr(t, "= 59.0f;");
    assert_non_null(at);
    size_t pos = (size_t)(at - t) + strlen("= 59.0f");
    splice_parse(d, t, &n, pos, 0, " + 1");
    an_doc_get_stats(d, &st);
    assert_true(st.incremental);
    assert_false(an_doc_model(d)->has_errors);
    same_as_fresh(d, t, n, "clean edit");
    /* broken: an unclosed call in the same statement, the last chunk of the text */
    splice_parse(d, t, &n, pos + strlen(" + 1"), 0, " * f(");
    an_doc_get_stats(d, &st);
    assert_true(st.incremental);
    assert_true(an_doc_model(d)->has_errors);
    print_message("over broken code: %zu parses, %zu from a kept tree, %llu bytes\n",
                  st.chunks_parsed, st.trees_reused, (unsigned long long)st.bytes_parsed);
    assert_int_equal(st.trees_reused, 1);             /* started from the recent tree */
    assert_int_equal(st.chunks_parsed, 2);            /* and parsed again afresh */
    same_as_fresh(d, t, n, "broken edit");
    an_doc_free(d);
    assert_int_equal(hk_alloc_live(), 0);
}

/* A chunk whose tree has errors keeps none: the edit after it parses that chunk from
 * scratch (tree-sitter's incremental parse from a tree with ERROR nodes is what the
 * model must not depend on); an error-free result's tree is kept again. */
static void test_tree_with_errors_not_kept(void **state)
{
    (void)state;
    static char t[16384];
    size_t n = small_kernels(t, sizeof(t));
    an_doc *d;
    assert_int_equal(an_doc_new(&d), HK_OK);
    an_doc_set_parse_timeout(d, 0);
    assert_int_equal(an_doc_parse(d, t, n), HK_OK);
    /* in the middle of the file (k20), so no piece at the end of the text is involved */
    char *at = strstr(t, "= 20.0f;");
    assert_non_null(at);
    size_t pos = (size_t)(at - t) + strlen("= 20.0f");
    an_doc_stats st;
    an_doc_get_stats(d, &st);
    assert_true(st.chunks >= 3);
    splice_parse(d, t, &n, pos, 0, " + 1");           /* clean: its tree is kept */
    splice_parse(d, t, &n, pos, 0, " * 3");           /* clean, from that tree */
    an_doc_get_stats(d, &st);
    assert_true(st.incremental);
    assert_int_equal(st.trees_reused, 1);
    splice_parse(d, t, &n, pos, 0, " * (");           /* broken: no tree kept */
    an_doc_get_stats(d, &st);
    assert_true(an_doc_model(d)->has_errors);
    same_as_fresh(d, t, n, "broken edit");
    splice_parse(d, t, &n, pos + 4, 0, "2");          /* still broken, parsed from scratch */
    an_doc_get_stats(d, &st);
    assert_true(an_doc_model(d)->has_errors);
    print_message("after a broken state: %zu parses, %zu from a kept tree\n", st.chunks_parsed,
                  st.trees_reused);
    assert_int_equal(st.trees_reused, 0);
    same_as_fresh(d, t, n, "still broken");
    splice_parse(d, t, &n, pos + 5, 0, ")");          /* clean again, from scratch */
    an_doc_get_stats(d, &st);
    assert_int_equal(st.trees_reused, 0);
    assert_false(an_doc_model(d)->has_errors);
    same_as_fresh(d, t, n, "clean again");
    splice_parse(d, t, &n, pos + 6, 0, " ");          /* and its tree kept */
    an_doc_get_stats(d, &st);
    assert_int_equal(st.trees_reused, 1);
    same_as_fresh(d, t, n, "after the fix");
    an_doc_free(d);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Allocation failures in a full parse run on two threads (a worker's extraction may be
 * the one that fails) and in the splice after an edit that adds a function: HK_ENOMEM or
 * HK_OK, never a crash or a leak, and the next parse gives the model again. */
static void test_parallel_enomem(void **state)
{
    (void)state;
    char *t = malloc(1 << 20);
    assert_non_null(t);
    size_t n = 0;
    for (int i = 0; i < 500; i++)
        n += (size_t)sprintf(t + n, "#define B%d %d\n__global__ void k%d(float *p, int n) {\n"
                                    "    __shared__ float s[B%d];\n"
                                    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                    "    if (i < n) p[i] = s[i %% B%d];\n}\n"
                                    "void l%d(float *p) { k%d<<<1, B%d>>>(p, 1); }\n",
                             i, 32 + i, i, i, i, i, i, i);
    assert_true(n > (64u << 10));
    an_model *fresh;
    assert_int_equal(an_analyze(t, n, &fresh), HK_OK);
    long base = hk_alloc_live();
    int fails = 0, oks = 0;
    for (long k = 1; k < 200000; k = k * 3 / 2 + 1) {   /* every stage, early to late */
        an_doc *d;
        assert_int_equal(an_doc_new(&d), HK_OK);
        an_doc_set_parse_timeout(d, 0);
        an_doc_set_threads(d, 2);
        hk_alloc_fail_after(k);
        int rc = an_doc_parse(d, t, n);
        hk_alloc_fail_after(0);
        assert_true(rc == HK_OK || rc == HK_ENOMEM);
        rc == HK_OK ? oks++ : fails++;
        assert_int_equal(an_doc_parse(d, t, n), HK_OK);
        char why[256];
        if (!model_eq(an_doc_model(d), fresh, why, sizeof(why)))
            fail_msg("after a failed full parse (%ld): %s", k, why);
        /* a new kernel at the start: everything after it moves and is renumbered */
        static const char add[] = "__global__ void added(int *q) { q[0] = 1; }\n";
        size_t al = sizeof(add) - 1;
        char *u = malloc(n + al);
        assert_non_null(u);
        memcpy(u, add, al);
        memcpy(u + al, t, n);
        assert_int_equal(an_doc_edit(d, 0, 0, (uint32_t)al, 0, 0, 0, 0, 1, 0), HK_OK);
        hk_alloc_fail_after(k / 50 + 1);
        rc = an_doc_parse(d, u, n + al);
        hk_alloc_fail_after(0);
        assert_true(rc == HK_OK || rc == HK_ENOMEM);
        assert_int_equal(an_doc_parse(d, u, n + al), HK_OK);
        an_model *fu;
        assert_int_equal(an_analyze(u, n + al, &fu), HK_OK);
        if (!model_eq(an_doc_model(d), fu, why, sizeof(why)))
            fail_msg("after a failed splice (%ld): %s", k / 50 + 1, why);
        an_model_free(fu);
        free(u);
        an_doc_free(d);
        assert_int_equal(hk_alloc_live(), base);
    }
    assert_true(fails > 5);
    assert_true(oks > 0);
    an_model_free(fresh);
    free(t);
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    const char *why;
    if (an_grammar_check(&why) != HK_OK) {
        fprintf(stderr, "grammar: %s\n", why);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiling_any_text),
        cmocka_unit_test(test_no_boundary_inside),
        cmocka_unit_test(test_generated_equals_whole),
        cmocka_unit_test(test_bad_split_joined),
        cmocka_unit_test(test_edits_large_file),
        cmocka_unit_test(test_typing_cost),
        cmocka_unit_test(test_unsplittable_keeps_tree),
        cmocka_unit_test(test_recent_tree_reparsed_afresh_over_errors),
        cmocka_unit_test(test_tree_with_errors_not_kept),
        cmocka_unit_test(test_parallel_qualifier_macros),
        cmocka_unit_test(test_keystrokes_match_fresh),
        cmocka_unit_test(test_parallel_enomem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
