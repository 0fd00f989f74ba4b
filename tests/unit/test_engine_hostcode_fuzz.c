/* A mutation fuzz of the host-code scan (hostcode_check), seeded with every cheat of
 * tests/gpu/cheats and every suite baseline of bench/kernels: a fixed number of mutants from
 * a fixed seed (bytes flipped to NUL, CR, backslash or invalid UTF-8, preprocessor and
 * literal fragments inserted, ranges cut, doubled or spliced from another seed, texts cut
 * short), each checked against its kernel's baseline and as the baseline of the original.
 * Every call must return HK_OK (or HK_ETOOBIG for an oversized text), report a finding on a
 * line the text has with its quote and reason, and give the same answer twice; each
 * baseline checked against itself has no finding. Then the shapes a hostile text can take
 * at its extremes: a 2 MiB line, 100,000 open brackets, 50,000 nested #if, 100,000
 * namespaces, a text over the size cap. Run under ASan, this is the scanner's memory-safety
 * test; it runs in seconds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "measure/hostcode.h"

#define MUTANTS 2000 /* fixed: the run is the same every time */
#define MAX_SEEDS 128

typedef struct {
    char *text;
    size_t len;
    char *base; /* the suite baseline of its kernel (bench/kernels/K.cu), or its own text */
    size_t base_len;
} seed_text;

static seed_text seeds[MAX_SEEDS];
static size_t n_seeds;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    if (t && fread(t, 1, (size_t)n, f) != (size_t)n) {
        free(t);
        t = NULL;
    }
    fclose(f);
    if (t) {
        t[n] = '\0';
        *len = (size_t)n;
    }
    return t;
}

/* The kernel a cheat names ("// kernel: K" on its second line, else its first __global__). */
static void kernel_of(const char *text, char *out, size_t n)
{
    const char *k = strstr(text, "\n// kernel: ");
    const char *g = strstr(text, "__global__ void ");
    const char *p = k ? k + 12 : g ? g + 16 : NULL;
    size_t i = 0;
    while (p && i + 1 < n && (p[i] == '_' || (p[i] >= 'a' && p[i] <= 'z') ||
                              (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9'))) {
        out[i] = p[i];
        i++;
    }
    out[i] = '\0';
}

static void add_dir(const char *dir, bool cheats)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    char path[1024], bpath[1024], kernel[64];
    /* sorted by the seed list's order of arrival is not stable across file systems: the
     * mutants below pick seeds by index, so the list is sorted by name after reading */
    while ((e = readdir(d)) && n_seeds < MAX_SEEDS) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".cu") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        seed_text *s = &seeds[n_seeds];
        if (!(s->text = slurp(path, &s->len)))
            continue;
        kernel_of(s->text, kernel, sizeof kernel);
        snprintf(bpath, sizeof bpath, "%s/../bench/kernels/%s.cu", HK_TEST_DATA "/..", kernel);
        s->base = cheats && kernel[0] ? slurp(bpath, &s->base_len) : NULL;
        if (!s->base) {
            s->base = malloc(s->len + 1);
            assert_non_null(s->base);
            memcpy(s->base, s->text, s->len + 1);
            s->base_len = s->len;
        }
        n_seeds++;
    }
    closedir(d);
}

static int by_text(const void *a, const void *b)
{
    const seed_text *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->text, y->text, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int setup(void **state)
{
    (void)state;
    add_dir(HK_TEST_DATA "/../gpu/cheats", true);
    add_dir(HK_TEST_DATA "/../../bench/kernels", false);
    qsort(seeds, n_seeds, sizeof seeds[0], by_text);
    return n_seeds >= 20 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < n_seeds; i++) {
        free(seeds[i].text);
        free(seeds[i].base);
    }
    return 0;
}

static uint64_t rng = 0x5EED0F5CA9ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static size_t below(size_t n) { return n ? (size_t)(next() % n) : 0; }

/* Lines of text as the scan counts them (LF, CR LF and a lone CR end one). */
static unsigned lines_of(const char *t, size_t n)
{
    unsigned l = 1;
    for (size_t i = 0; i < n; i++)
        if (t[i] == '\n' || (t[i] == '\r' && (i + 1 == n || t[i + 1] != '\n')))
            l++;
    return l;
}

/* One check with the scan's contract asserted; the result's (found, line) in *sig. */
static void check(const char *base, size_t bl, const char *cand, size_t cl, unsigned *sig)
{
    hostcode_finding f, g;
    int rc = hostcode_check(base, bl, cand, cl, &f);
    if (rc == HK_ETOOBIG) {
        assert_true(bl > HOSTCODE_TEXT_MAX || cl > HOSTCODE_TEXT_MAX);
        assert_false(f.found);
        *sig = 0;
        return;
    }
    assert_int_equal(rc, HK_OK);
    if (f.found) {
        assert_true(f.line >= 1 && f.line <= lines_of(cand, cl));
        assert_non_null(f.quote);
        assert_true(strlen(f.quote) <= HOSTCODE_QUOTE_MAX + 3);
        assert_non_null(f.why);
        assert_true(f.why[0] != '\0');
    }
    /* the same answer twice: nothing depends on state left by the last call */
    assert_int_equal(hostcode_check(base, bl, cand, cl, &g), HK_OK);
    assert_int_equal(f.found, g.found);
    assert_int_equal(f.line, g.line);
    if (f.found)
        assert_string_equal(f.why, g.why);
    *sig = f.found ? f.line : 0;
    hostcode_finding_clear(&f);
    hostcode_finding_clear(&g);
}

static const char *const fragments[] = {
    "#", "#define cudaEventRecord(e) 0\n", "#define X(a) a\n", "\\\n", "\\ \n", "/*", "*/",
    "//", "\"", "'", "R\"x(", ")x\"", "u8R\"(", "%:", "%:%:", "<%", "%>", "<:", ":>", "?\?/",
    "?\?=define ", "\\u0063", "\\U00000063", "\xc3\x28", "\xff\xfe", "\xef\xbb\xbf", "\r",
    "\r\n", "{", "}", "(", ")", "[", "]", ";", "<", ">", "__global__ void k() {", "template <",
    "#if 1\n", "#else\n", "#endif\n", "#elif 0\n", "#include \"x\"\n", "#include <../x>\n",
    "asm(\".incbin \\\"a\\\"\");", "_Pragma(\"once\")", "namespace n {", "extern \"C\" {",
    "static int x = f();", "__attribute__((constructor))", "[[gnu::constructor]]",
    "operator new", "constexpr int f() { return 1; }", "1'000'000", "0x1p-3", "L'\\''",
    "#pragma unroll\n", "#line 1 \"a\"\n", "__host__ __device__ ", "int main() {}",
};

static void mutate(char **t, size_t *len, size_t *cap)
{
    size_t need = *len + 8192;
    if (need > *cap) {
        *t = realloc(*t, need);
        assert_non_null(*t);
        *cap = need;
    }
    char *s = *t;
    switch (below(6)) {
    case 0: { /* a byte becomes one a parser trips on */
        static const char bytes[] = {'\0', '\r', '\n', '\\', '"', '\'', '#', '/', '*', '\xff',
                                     '\xc3', '{', '}'};
        if (*len)
            s[below(*len)] = bytes[below(sizeof bytes)];
        break;
    }
    case 1: { /* a fragment inserted */
        const char *f = fragments[below(sizeof fragments / sizeof fragments[0])];
        size_t fl = strlen(f), at = below(*len + 1);
        memmove(s + at + fl, s + at, *len - at);
        memcpy(s + at, f, fl);
        *len += fl;
        break;
    }
    case 2: { /* a range cut out */
        size_t at = below(*len + 1), n = below(*len - at + 1) % 512;
        memmove(s + at, s + at + n, *len - at - n);
        *len -= n;
        break;
    }
    case 3: { /* a range doubled */
        size_t at = below(*len + 1), n = below(*len - at + 1) % 1024;
        memmove(s + at + n, s + at, *len - at);
        *len += n;
        break;
    }
    case 4: { /* a slice of another seed spliced in */
        const seed_text *o = &seeds[below(n_seeds)];
        size_t from = below(o->len + 1), n = below(o->len - from + 1) % 2048, at = below(*len + 1);
        memmove(s + at + n, s + at, *len - at);
        memcpy(s + at, o->text + from, n);
        *len += n;
        break;
    }
    default: /* cut short */
        *len = below(*len + 1);
        break;
    }
}

static void test_mutants(void **state)
{
    (void)state;
    unsigned sig;
    for (size_t i = 0; i < n_seeds; i++) {
        /* a baseline has no host code of its own to report */
        check(seeds[i].base, seeds[i].base_len, seeds[i].base, seeds[i].base_len, &sig);
        assert_int_equal(sig, 0);
    }
    size_t found = 0;
    for (int m = 0; m < MUTANTS; m++) {
        const seed_text *s = &seeds[below(n_seeds)];
        size_t len = s->len, cap = len + 8192;
        char *t = malloc(cap);
        assert_non_null(t);
        memcpy(t, s->text, len);
        for (size_t k = 1 + below(4); k > 0; k--)
            mutate(&t, &len, &cap);
        check(s->base, s->base_len, t, len, &sig);
        found += sig != 0;
        check(t, len, s->text, s->len, &sig); /* the mutant as the baseline */
        free(t);
    }
    /* the mutations are not all harmless: most mutants must be caught by something */
    assert_true(found > MUTANTS / 4);
}

/* text of n bytes: prefix, then unit repeated, then suffix; new */
static char *repeat(const char *prefix, const char *unit, size_t times, const char *suffix,
                    size_t *n)
{
    size_t pl = strlen(prefix), ul = strlen(unit), sl = strlen(suffix);
    *n = pl + ul * times + sl;
    char *t = malloc(*n + 1);
    assert_non_null(t);
    memcpy(t, prefix, pl);
    for (size_t i = 0; i < times; i++)
        memcpy(t + pl + i * ul, unit, ul);
    memcpy(t + pl + ul * times, suffix, sl + 1);
    return t;
}

static void test_extremes(void **state)
{
    (void)state;
    static const char base[] = "__global__ void k(float *o) { o[0] = 1; }\n";
    struct {
        const char *prefix, *unit;
        size_t times;
        const char *suffix;
        int finding; /* 1: must be reported, 0: must not, -1: either (the compiler refuses it) */
    } cases[] = {
        {"__global__ void k(float *o) { o[0] = 1; } // ", "a", (size_t)2 << 20, "\n", 0},
        {"__global__ void k(float *o) { o[0] = ", "(", 100000, "1; }\n", -1},
        {"__global__ void k(float *o) { ", "{", 100000, "}\n", -1},
        {"", "#if 1\n", 50000, "__global__ void k(float *o) { o[0] = 1; }\n", 1},
        {"", "namespace a { ", 100000, "}\n", 1},
        {"__global__ void k(float *o) { o[0] = 1; }\n", "\\\n", 500000, "\n", 0},
        {"__global__ void k(float *o) { o[0] = 1; }\n", "/*", 300000, "\n", -1},
        {"__global__ void k(float *o) { o[0] = 1; }\n", "#define A", 100000, "\n", 1},
        {"", "\xff\xfe\xc3", 300000, "\n", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n;
        char *t = repeat(cases[i].prefix, cases[i].unit, cases[i].times, cases[i].suffix, &n);
        unsigned sig;
        check(base, sizeof base - 1, t, n, &sig);
        if (cases[i].finding == 1 && !sig)
            fail_msg("case %zu: no finding in %zu bytes of '%s'", i, n, cases[i].unit);
        if (cases[i].finding == 0 && sig)
            fail_msg("case %zu: a finding at line %u", i, sig);
        check(t, n, base, sizeof base - 1, &sig);
        free(t);
    }
    /* over the cap either way: refused, not scanned */
    size_t big = HOSTCODE_TEXT_MAX + 1;
    char *t = malloc(big);
    assert_non_null(t);
    memset(t, ' ', big);
    hostcode_finding f;
    assert_int_equal(hostcode_check(base, sizeof base - 1, t, big, &f), HK_ETOOBIG);
    assert_int_equal(hostcode_check(t, big, base, sizeof base - 1, &f), HK_ETOOBIG);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutants),
        cmocka_unit_test(test_extremes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
