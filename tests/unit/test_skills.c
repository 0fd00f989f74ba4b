/* Skills: the shipped skills/ tree loads and covers every rewrite; each skill's code
 * condition matches its naive sample kernel (tests/data/skills/kernels/MATCHES) and not
 * the ones it should not; every malformed fixture under tests/data/skills/bad/ fails
 * naming its file and problem; ordering by record; the store's skill table (round trip,
 * migration from schema 2); metric and evidence checks; allocation failures; and the
 * `hkls skills` command run as a process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hk.h"
#include "core/i18n.h"
#include "skills/skills.h"
#include "store/store.h"

extern char **environ;

#define SHIPPED HK_SOURCE_DIR "/skills"
#define DATA HK_TEST_DATA "/skills"
#define ERRLEN (64 * 1024)

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = '\0';
    fclose(f);
    return b;
}

static sk_set *load_ok(const char *dir)
{
    static char err[ERRLEN];
    sk_set *set = NULL;
    int rc = sk_load_dir(dir, &set, err, sizeof err);
    if (rc != HK_OK)
        fail_msg("loading %s: %s\n%s", dir, hk_strerror(rc), err);
    assert_non_null(set);
    return set;
}

/* ---- the shipped tree ---- */

static void shipped_skills_load(void **state)
{
    (void)state;
    sk_set *set = load_ok(SHIPPED);
    size_t n = sk_set_count(set);
    assert_true(n >= 16);

    /* Every rewrite of the engine has an sm_90 skill. */
    for (size_t r = 0; r < rw_registry_count(); r++) {
        bool found = false;
        for (size_t i = 0; i < n; i++) {
            const sk_skill *sk = sk_set_at(set, i);
            if (sk->rewrite == rw_registry_at(r) && sk_hardware_matches(sk, "sm_90"))
                found = true;
        }
        if (!found)
            fail_msg("no sm_90 skill uses rewrite %s", rw_registry_at(r)->name);
    }
    /* The memory-bound rewrites of sm_90 exist for wavefront-64 gfx9 too. */
    for (size_t i = 0; i < n; i++) {
        const sk_skill *sk = sk_set_at(set, i);
        if (sk->cls != SK_MEMORY_BOUND || !sk_hardware_matches(sk, "sm_90"))
            continue;
        bool found = false;
        for (size_t k = 0; k < n; k++) {
            const sk_skill *o = sk_set_at(set, k);
            if (o->cls == SK_MEMORY_BOUND && o->rewrite == sk->rewrite &&
                sk_hardware_matches(o, "gfx906") && sk_hardware_matches(o, "gfx90a"))
                found = true;
        }
        if (!found)
            fail_msg("memory-bound %s (%s) has no gfx9 counterpart", sk->id,
                     sk->rewrite->name);
    }
    /* sm_90 first in the set's order; sk_get finds each; fields are filled. */
    assert_string_equal(sk_set_at(set, 0)->hardware_dir, "nvidia-sm90");
    for (size_t i = 0; i < n; i++) {
        const sk_skill *sk = sk_set_at(set, i);
        assert_ptr_equal(sk_get(set, sk->id), sk);
        assert_non_null(sk->query);
        assert_non_null(sk->guidance);
        assert_non_null(sk->params);
        assert_true(sk->evidence_sass || sk->has_evidence_metric);
        assert_non_null(strstr(sk->path, sk->id));
    }
    assert_null(sk_get(set, "no-such-skill"));
    assert_null(sk_set_at(set, n));

    /* Lookup by arch and class. */
    const sk_skill **list = NULL;
    size_t k = 0;
    assert_int_equal(sk_for(set, "gfx906", SK_MEMORY_BOUND, &list, &k), HK_OK);
    assert_true(k >= 8);
    for (size_t i = 0; i < k; i++) {
        assert_int_equal(list[i]->cls, SK_MEMORY_BOUND);
        assert_string_equal(list[i]->hardware_dir, "dcu-gfx9");
    }
    hk_free(list);
    assert_int_equal(sk_for(set, "sm_75", SK_CLASS_COUNT, &list, &k), HK_OK);
    assert_int_equal(k, 0);
    assert_null(list);
    assert_int_equal(sk_for(set, NULL, SK_CLASS_COUNT, &list, &k), HK_OK);
    assert_int_equal(k, n);
    hk_free(list);
    sk_set_free(set);
}

/* Each line of MATCHES: "skill-id kernel.cu !other.cu ...". Every shipped skill must be
 * listed (a new skill comes with a sample kernel) and match as stated. */
static void shipped_skills_match_their_kernels(void **state)
{
    (void)state;
    sk_set *set = load_ok(SHIPPED);
    char *text = read_text(DATA "/kernels/MATCHES");
    assert_non_null(text);
    size_t n = sk_set_count(set);
    bool *listed = calloc(n, sizeof *listed);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !line[0])
            continue;
        char *s2 = NULL;
        char *id = strtok_r(line, " ", &s2);
        const sk_skill *sk = sk_get(set, id);
        if (!sk)
            fail_msg("MATCHES names %s, which is not a shipped skill", id);
        for (size_t i = 0; i < n; i++)
            if (sk_set_at(set, i) == sk)
                listed[i] = true;
        for (char *k = strtok_r(NULL, " ", &s2); k; k = strtok_r(NULL, " ", &s2)) {
            bool want = k[0] != '!';
            char path[512];
            snprintf(path, sizeof path, DATA "/kernels/%s", want ? k : k + 1);
            char *src = read_text(path);
            if (!src)
                fail_msg("%s: no kernel %s", id, path);
            bool got = !want;
            assert_int_equal(sk_matches_source(sk, src, strlen(src), &got), HK_OK);
            if (got != want)
                fail_msg("skill %s %s %s", id, want ? "does not match" : "wrongly matches", path);
            free(src);
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!listed[i])
            fail_msg("skill %s has no line in kernels/MATCHES", sk_set_at(set, i)->id);
    free(listed);
    free(text);
    sk_set_free(set);
}

/* ---- lazy sets: queries compiled when a kernel needs them ---- */

/* A lazy set answers as the eager one, skill by skill (the sm_90 ones), on every sample
 * kernel: with no sk_prepare (each query compiled alone when needed) and with one before
 * each kernel (the plan's way: the kernel's skills together). Same order of the skills. */
static void lazy_set_matches_as_eager(void **state)
{
    (void)state;
    static char err[ERRLEN];
    sk_set *eager = load_ok(SHIPPED), *alone = NULL, *prepared = NULL;
    assert_int_equal(sk_load_dir_lazy(SHIPPED, &alone, err, sizeof err), HK_OK);
    assert_int_equal(sk_load_dir_lazy(SHIPPED, &prepared, err, sizeof err), HK_OK);
    size_t n = sk_set_count(eager);
    assert_int_equal(sk_set_count(alone), n);
    const sk_skill **all = calloc(n, sizeof *all);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(sk_set_at(alone, i)->id, sk_set_at(eager, i)->id);
        all[i] = sk_set_at(prepared, i);
    }
    DIR *d = opendir(DATA "/kernels");
    assert_non_null(d);
    size_t kernels = 0, matches = 0, sources = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cu"))
            continue;
        char path[512];
        snprintf(path, sizeof path, DATA "/kernels/%s", e->d_name);
        char *src = read_text(path);
        assert_non_null(src);
        kernels++;
        /* one parse of the kernel for all three sets, as the plan does */
        sk_text *t = NULL;
        assert_int_equal(sk_text_new(src, strlen(src), &t), HK_OK);
        assert_int_equal(sk_prepare_text(prepared, all, n, t, err, sizeof err), HK_OK);
        for (size_t i = 0; i < n; i++) {
            /* nvidia-sm90 holds every distinct query: the others' answers add time, not
             * cases */
            if (strcmp(sk_set_at(eager, i)->hardware_dir, "nvidia-sm90"))
                continue;
            bool a = false, b = true, c = true;
            assert_int_equal(sk_matches_text(sk_set_at(eager, i), t, &a), HK_OK);
            assert_int_equal(sk_matches_text(sk_set_at(alone, i), t, &b), HK_OK);
            assert_int_equal(sk_matches_text(sk_set_at(prepared, i), t, &c), HK_OK);
            if (a != b || a != c)
                fail_msg("%s on %s: eager %d, lazy %d, lazy prepared %d", sk_set_at(eager, i)->id,
                         e->d_name, a, b, c);
            /* sk_matches_source (a parse of its own per skill) answers as the shared
             * parse: one skill in 5 on each kernel, another fifth on the next kernel */
            if ((i + kernels) % 5 == 0) {
                bool one = !a;
                assert_int_equal(sk_matches_source(sk_set_at(eager, i), src, strlen(src), &one),
                                 HK_OK);
                if (one != a)
                    fail_msg("%s on %s: one parse %d, sk_matches_source %d",
                             sk_set_at(eager, i)->id, e->d_name, a, one);
                sources++;
            }
            matches += a;
        }
        sk_text_free(t);
        free(src);
    }
    closedir(d);
    assert_true(kernels >= 40);
    print_message("lazy = eager: %zu kernels, %zu matches, %zu answers of sk_matches_source\n",
                  kernels, matches, sources);
    assert_true(sources >= kernels);
    assert_true(matches >= 300);  /* the sample kernels do match (511 today): not vacuous */
    free(all);
    sk_set_free(eager);
    sk_set_free(alone);
    sk_set_free(prepared);
}

/* A lazy set compiles a query only for a kernel that could match it. bad/bad_query's
 * query (`(call_expression function: (identifer) @f)`, pattern threadIdx\.x) does not
 * compile: the lazy load succeeds; a kernel without a call (or without threadIdx.x) does
 * not need it; a kernel with both does, and then the answer is the eager load's error. A
 * lazy load that fails anyway reports what the eager one does, query problems included. */
static void lazy_set_compiles_when_needed(void **state)
{
    (void)state;
    static char err[ERRLEN], eager_err[ERRLEN];
    sk_set *set = NULL;
    assert_int_equal(sk_load_dir(DATA "/bad/bad_query", &set, eager_err, sizeof eager_err),
                     HK_EINVAL);
    assert_int_equal(sk_load_dir_lazy(DATA "/bad/bad_query", &set, err, sizeof err), HK_OK);
    assert_int_equal(sk_set_count(set), 1);
    const sk_skill *sk = sk_set_at(set, 0);
    const char *no_call = "__global__ void k(float *y) { y[threadIdx.x] = 2.0f * y[threadIdx.x]; }";
    const char *no_tid = "__global__ void k(float *y) { y[blockIdx.x] = sqrtf(y[blockIdx.x]); }";
    const char *both = "__global__ void k(float *y) { y[threadIdx.x] = sqrtf(y[threadIdx.x]); }";
    bool m = true;
    assert_int_equal(sk_prepare(set, &sk, 1, no_call, strlen(no_call), err, sizeof err), HK_OK);
    assert_int_equal(sk_matches_source(sk, no_call, strlen(no_call), &m), HK_OK);
    assert_false(m);
    m = true;
    assert_int_equal(sk_prepare(set, &sk, 1, no_tid, strlen(no_tid), err, sizeof err), HK_OK);
    assert_int_equal(sk_matches_source(sk, no_tid, strlen(no_tid), &m), HK_OK);
    assert_false(m);
    assert_int_equal(sk_matches_source(sk, both, strlen(both), &m), HK_EINVAL);
    assert_int_equal(sk_prepare(set, &sk, 1, both, strlen(both), err, sizeof err), HK_EINVAL);
    assert_string_equal(err, eager_err);
    assert_non_null(strstr(err, "fx-query.json: applies.query: unknown node type at line 1 column 29"));
    sk_set_free(set);

    /* bad/many: an unknown key in one file, an unknown node type in another's query */
    assert_int_equal(sk_load_dir(DATA "/bad/many", &set, eager_err, sizeof eager_err), HK_EINVAL);
    assert_int_equal(sk_load_dir_lazy(DATA "/bad/many", &set, err, sizeof err), HK_EINVAL);
    assert_null(set);
    assert_string_equal(err, eager_err);
    assert_non_null(strstr(err, "applies.query: unknown node type"));
}

/* ---- malformed fixtures ---- */

struct bad_case {
    const char *dir;
    const char *file;   /* expected in the message: the file (or directory) named */
    const char *what[4];/* expected substrings, each on a line naming file */
};

static const struct bad_case bad_cases[] = {
    {"bad_json", "fx-json.json", {"bad JSON at line 1 column", NULL}},
    {"unknown_key", "fx-key.json", {"speedup: unknown key", NULL}},
    {"unknown_nested_key", "fx-nkey.json", {"evidence.metric.threshold: unknown key", NULL}},
    {"class_mismatch", "fx-class.json",
     {"class: \"compute-bound\" but the file is in the memory-bound directory", NULL}},
    {"bad_query", "fx-query.json", {"applies.query: unknown node type at line 1 column 29", NULL}},
    {"bad_query_syntax", "fx-qsyntax.json", {"applies.query: syntax error", NULL}},
    {"bad_predicate", "fx-pred.json", {"applies.query: unsupported predicate #lua-match?", NULL}},
    {"unknown_rewrite", "fx-rewrite.json", {"rewrite.name: unknown rewrite \"vectorise\"", NULL}},
    {"bad_regex", "fx-regex.json", {"evidence.sass: bad regular expression", NULL}},
    {"bad_metric", "fx-metric.json", {"applies.metrics.dram_bandwidth: unknown metric", NULL}},
    {"metric_range", "fx-mrange.json",
     {"applies.metrics.achieved_occupancy.max: 50 is outside the metric's range [0, 1]", NULL}},
    {"id_mismatch", "fx-file-name.json", {"id: \"fx-other-name\" does not match the file name", NULL}},
    {"misplaced", "nvidia-sm90/fx-misplaced.json", {"misplaced skill", NULL}},
    {"unknown_dir", "nvidia-sm75", {"unknown hardware directory", NULL}},
    {"duplicate_id", "fx-dup.json", {"id: \"fx-dup\" is also the id of", NULL}},
    {"no_evidence", "fx-noev.json", {"evidence: needs \"sass\" or \"metric\"", NULL}},
    {"bad_params", "fx-params.json", {"rewrite.params.vector_width: values must be all numbers", NULL}},
    {"bad_pairs", "fx-pairs.json",
     {"rewrite.params.launch_pairs: pairs block_size (2 values) with blocks_per_sm (3 values)", NULL}},
    {"short_guidance", "fx-guid.json", {"guidance: too short", NULL}},
    {"empty", "bad/empty", {"no skills found", NULL}},
    /* Every problem of every file, not just the first. */
    {"many", NULL,
     {"fx-many-a.json: colour: unknown key", "fx-many-a.json: rewrite.name: unknown rewrite",
      "fx-many-b.json: hardware[0]: \"gfx906\" does not belong in directory nvidia-sm90",
      "fx-many-b.json: applies.query: unknown node type"}},
};

static void bad_fixtures_fail_clearly(void **state)
{
    (void)state;
    static char err[ERRLEN];
    for (size_t c = 0; c < HK_ARRAY_LEN(bad_cases); c++) {
        const struct bad_case *bc = &bad_cases[c];
        char dir[512];
        snprintf(dir, sizeof dir, DATA "/bad/%s", bc->dir);
        sk_set *set = (sk_set *)1;
        int rc = sk_load_dir(dir, &set, err, sizeof err);
        if (rc != HK_EINVAL)
            fail_msg("%s: rc %d (%s), want HK_EINVAL; err: %s", bc->dir, rc, hk_strerror(rc), err);
        assert_null(set);
        if (bc->file && !strstr(err, bc->file))
            fail_msg("%s: message does not name %s: %s", bc->dir, bc->file, err);
        for (size_t i = 0; i < 4 && bc->what[i]; i++)
            if (!strstr(err, bc->what[i]))
                fail_msg("%s: message lacks \"%s\": %s", bc->dir, bc->what[i], err);
        /* Each line starts with the path of what is wrong. */
        char prefix[600];
        snprintf(prefix, sizeof prefix, "%s/", dir);
        if (strncmp(err, prefix, strlen(prefix)) != 0 && strncmp(err, dir, strlen(dir)) != 0)
            fail_msg("%s: message does not start with the path: %s", bc->dir, err);
    }
}

/* The loader's problems in the session's language (docs/i18n.md): the key paths, files and
 * quoted values stay; a thread that speaks English (the episode worker) gets English. */
static void bad_fixtures_in_chinese(void **state)
{
    (void)state;
    static char err[ERRLEN];
    sk_set *set = NULL;
    hk_i18n_set(HK_LANG_ZH_CN);
    assert_int_equal(sk_load_dir(DATA "/bad/class_mismatch", &set, err, sizeof err), HK_EINVAL);
    assert_non_null(strstr(err, "fx-class.json: class: 写的是 \"compute-bound\"，但文件位于 "
                                "memory-bound 目录"));
    assert_int_equal(sk_load_dir(DATA "/bad/bad_query", &set, err, sizeof err), HK_EINVAL);
    assert_non_null(strstr(err, "applies.query: 未知的节点类型，位于第 1 行第 29 列"));
    assert_int_equal(sk_load_dir(DATA "/bad/bad_pairs", &set, err, sizeof err), HK_EINVAL);
    assert_non_null(strstr(err, "rewrite.params.launch_pairs: block_size（2 个取值）与 "
                                "blocks_per_sm（3 个取值）配对"));
    char small[300];
    assert_int_equal(sk_load_dir(DATA "/bad/many", &set, small, sizeof small), HK_EINVAL);
    assert_non_null(strstr(small, "……另有"));
    assert_int_equal(sk_load_dir(DATA "/no-such-dir", &set, err, sizeof err), HK_ENOENT);
    assert_non_null(strstr(err, "no-such-dir：不是优化技能目录"));
    int old = hk_i18n_thread_lang(HK_LANG_EN);
    assert_int_equal(sk_load_dir(DATA "/bad/class_mismatch", &set, err, sizeof err), HK_EINVAL);
    assert_non_null(strstr(err, "class: \"compute-bound\" but the file is in the memory-bound "
                                "directory"));
    hk_i18n_thread_lang(old);
    hk_i18n_set(HK_LANG_EN);
    assert_null(set);
}

static void missing_dir_and_small_err_buffer(void **state)
{
    (void)state;
    char err[256];
    sk_set *set = NULL;
    assert_int_equal(sk_load_dir(DATA "/no-such-dir", &set, err, sizeof err), HK_ENOENT);
    assert_null(set);
    assert_non_null(strstr(err, "no-such-dir"));
    /* A buffer too small for every line keeps whole lines and says how many are left. */
    char small[300];
    assert_int_equal(sk_load_dir(DATA "/bad/many", &set, small, sizeof small), HK_EINVAL);
    assert_non_null(strstr(small, "more problem"));
    /* No buffer at all is allowed. */
    assert_int_equal(sk_load_dir(DATA "/bad/many", &set, NULL, 0), HK_EINVAL);
}

/* ---- matching, metrics, evidence ---- */

static void metrics_and_evidence(void **state)
{
    (void)state;
    sk_set *set = load_ok(DATA "/good");
    assert_int_equal(sk_set_count(set), 2);
    const sk_skill *v = sk_get(set, "fx-vectorize");
    assert_non_null(v);
    assert_string_equal(sk_set_at(set, 0)->id, "fx-vectorize"); /* nvidia before dcu */

    sk_metrics m;
    sk_metrics_init(&m);
    assert_true(sk_matches_metrics(v, &m)); /* unknown does not rule it out */
    m.v[SK_M_DRAM_PCT_OF_PEAK] = 79.0;
    assert_true(sk_matches_metrics(v, &m));
    m.v[SK_M_DRAM_PCT_OF_PEAK] = 92.0;
    assert_false(sk_matches_metrics(v, &m));

    /* SASS evidence counts lines: more LDG.E.128 than before. */
    const char *before = "  LDG.E R2, desc[UR4][R2.64] ;\n  STG.E desc[UR4][R4.64], R2 ;\n";
    const char *after = "  LDG.E.128 R4, desc[UR4][R2.64] ;\n  STG.E.128 desc[UR4][R6.64], R4 ;\n";
    size_t cnt = 0;
    assert_int_equal(sk_evidence_sass_count(v, after, &cnt), HK_OK);
    assert_int_equal(cnt, 1);
    bool found = false;
    const char *what = NULL;
    assert_int_equal(sk_evidence_found(v, before, after, NULL, NULL, &found, &what), HK_OK);
    assert_true(found);
    assert_string_equal(what, "sass");
    assert_int_equal(sk_evidence_found(v, after, after, NULL, NULL, &found, &what), HK_OK);
    assert_false(found);
    assert_null(what);
    /* Metric evidence: an increase beyond noise. */
    sk_metrics b, a;
    sk_metrics_init(&b);
    sk_metrics_init(&a);
    b.v[SK_M_DRAM_PCT_OF_PEAK] = 50;
    a.v[SK_M_DRAM_PCT_OF_PEAK] = 50.5;
    assert_int_equal(sk_evidence_found(v, NULL, NULL, &b, &a, &found, &what), HK_OK);
    assert_false(found);
    a.v[SK_M_DRAM_PCT_OF_PEAK] = 80;
    assert_int_equal(sk_evidence_found(v, NULL, NULL, &b, &a, &found, &what), HK_OK);
    assert_true(found);
    assert_string_equal(what, "metric");
    a.v[SK_M_DRAM_PCT_OF_PEAK] = 30;
    assert_int_equal(sk_evidence_found(v, NULL, NULL, &b, &a, &found, &what), HK_OK);
    assert_false(found);

    /* Code condition: pattern and query must both hold. */
    const char *k1 = "__global__ void f(float *y, const float *x) { y[threadIdx.x] = x[0]; }";
    const char *k2 = "__global__ void f(float *y, int i) { y[i] = 1.0f; }";
    bool hit = false;
    assert_int_equal(sk_matches_source(v, k1, strlen(k1), &hit), HK_OK);
    assert_true(hit);
    assert_int_equal(sk_matches_source(v, k2, strlen(k2), &hit), HK_OK);
    assert_false(hit); /* no threadIdx.x */
    assert_int_equal(sk_matches_source(v, NULL, 0, &hit), HK_EINVAL);
    /* the same on a text parsed once, errors included */
    sk_text *t = NULL;
    assert_int_equal(sk_text_new(k1, strlen(k1), &t), HK_OK);
    hit = false;
    assert_int_equal(sk_matches_text(v, t, &hit), HK_OK);
    assert_true(hit);
    sk_text_free(t);
    assert_int_equal(sk_text_new(k2, strlen(k2), &t), HK_OK);
    assert_int_equal(sk_matches_text(v, t, &hit), HK_OK);
    assert_false(hit);
    sk_text_free(t);
    assert_int_equal(sk_text_new(NULL, 0, &t), HK_OK);
    assert_int_equal(sk_matches_text(v, t, &hit), HK_EINVAL);
    assert_int_equal(sk_prepare_text(set, &v, 1, t, NULL, 0), HK_OK);
    sk_text_free(t);
    size_t big_len = 16u * 1024 * 1024 + 1;
    char *big = calloc(big_len, 1);
    assert_non_null(big);
    assert_int_equal(sk_matches_source(v, big, big_len, &hit), HK_ETOOBIG);
    assert_int_equal(sk_text_new(big, big_len, &t), HK_OK);
    assert_int_equal(sk_matches_text(v, t, &hit), HK_ETOOBIG);
    sk_text_free(t);
    free(big);
    long base = hk_alloc_live();
    for (long k = 1;; k++) {
        hk_alloc_fail_after(k);
        int rc = sk_text_new(k1, strlen(k1), &t);
        hk_alloc_fail_after(0);
        if (rc == HK_OK)
            break;
        assert_int_equal(rc, HK_ENOMEM);
        assert_null(t);
        assert_int_equal(hk_alloc_live(), base);
    }
    hit = false;
    assert_int_equal(sk_matches_text(v, t, &hit), HK_OK);
    assert_true(hit);
    sk_text_free(t);
    assert_int_equal(hk_alloc_live(), base);

    /* Arch patterns. */
    const sk_skill *g = sk_get(set, "fx-gfx-reduce");
    assert_true(sk_hardware_matches(g, "gfx906"));
    assert_true(sk_hardware_matches(g, "gfx90a"));
    assert_false(sk_hardware_matches(g, "gfx1030"));
    assert_false(sk_hardware_matches(v, "sm_80"));
    assert_true(sk_hardware_matches(v, "sm_90"));
    sk_set_free(set);
}

static void names_round_trip(void **state)
{
    (void)state;
    for (size_t i = 0; i < rw_registry_count(); i++)
        assert_ptr_equal(rw_find(rw_registry_at(i)->name), rw_registry_at(i));
    for (int i = 0; i < SK_M_COUNT; i++) {
        enum sk_metric m;
        assert_int_equal(sk_metric_parse(sk_metric_name((enum sk_metric)i), &m), HK_OK);
        assert_int_equal(m, i);
    }
    enum sk_class c;
    assert_int_equal(sk_class_parse("latency-bound", &c), HK_OK);
    assert_int_equal(c, SK_LATENCY_BOUND);
    assert_int_equal(sk_class_parse("io-bound", &c), HK_EINVAL);
    assert_null(rw_find(NULL));
    assert_null(rw_find("no_such_rewrite"));
    assert_null(rw_registry_at(rw_registry_count()));
    assert_int_equal(rw_registry_count(), 65);
}

/* ---- the store's record and ordering by it ---- */

static void store_record_round_trip(void **state)
{
    (void)state;
    store *db = NULL;
    assert_int_equal(store_open(":memory:", &db), HK_OK);
    int ver = 0;
    assert_int_equal(store_schema_version(db, &ver), HK_OK);
    assert_int_equal(ver, STORE_SCHEMA_VERSION);
    assert_true(STORE_SCHEMA_VERSION >= 3);

    assert_int_equal(store_skill_record(db, "a", "k1", "h1", "sm_90", true, 2.0), HK_OK);
    assert_int_equal(store_skill_record(db, "a", "k1", "h1", "sm_90", false, 0.9), HK_OK);
    assert_int_equal(store_skill_record(db, "a", "k1", "h1", "sm_90", true, 3.0), HK_OK);
    assert_int_equal(store_skill_record(db, "a", "k2", NULL, "sm_90", false, NAN), HK_OK);
    assert_int_equal(store_skill_record(db, "a", "k1", "h1", "gfx906", true, 1.5), HK_OK);
    /* helped needs a real speedup; ids are required. */
    assert_int_equal(store_skill_record(db, "a", "k1", "h1", "sm_90", true, 1.0), HK_EINVAL);
    assert_non_null(strstr(store_errmsg(db), "must be > 1"));
    assert_int_equal(store_skill_record(db, "a", "k1", "h1", "sm_90", true, NAN), HK_EINVAL);
    assert_int_equal(store_skill_record(db, "", "k1", "h1", "sm_90", false, 1.0), HK_EINVAL);
    assert_int_equal(store_skill_record(db, "a", "k1", "h1", NULL, false, 1.0), HK_EINVAL);

    store_skill_result *r = NULL;
    size_t n = 0;
    assert_int_equal(store_skill_results(db, "a", "sm_90", &r, &n), HK_OK);
    assert_int_equal(n, 2);
    /* Best speedup first, unmeasured last. */
    assert_string_equal(r[0].kernel, "k1");
    assert_string_equal(r[0].kernel_hash, "h1");
    assert_int_equal(r[0].tried, 3);
    assert_int_equal(r[0].helped, 2);
    assert_float_equal(r[0].best_speedup, 3.0, 1e-12);
    assert_float_equal(r[0].mean_speedup, 2.5, 1e-12);
    assert_true(r[0].last_ms > 0);
    assert_string_equal(r[1].kernel, "k2");
    assert_string_equal(r[1].kernel_hash, "");
    assert_true(isnan(r[1].best_speedup));
    assert_true(isnan(r[1].mean_speedup));
    store_skill_results_free(r, n);

    store_skill_stat *st = NULL;
    assert_int_equal(store_skill_stats(db, "sm_90", &st, &n), HK_OK);
    assert_int_equal(n, 1);
    assert_string_equal(st[0].skill_id, "a");
    assert_int_equal(st[0].tried, 4);
    assert_int_equal(st[0].helped, 2);
    assert_int_equal(st[0].kernels, 2);
    assert_int_equal(st[0].kernels_helped, 1);
    assert_float_equal(st[0].mean_speedup, 2.5, 1e-12);
    assert_float_equal(st[0].best_speedup, 3.0, 1e-12);
    store_skill_stats_free(st, n);
    /* All arches together: k1 on two arches is still one kernel. */
    assert_int_equal(store_skill_stats(db, NULL, &st, &n), HK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(st[0].tried, 5);
    assert_int_equal(st[0].helped, 3);
    assert_int_equal(st[0].kernels, 2);
    assert_float_equal(st[0].mean_speedup, (2.0 + 3.0 + 1.5) / 3, 1e-12);
    store_skill_stats_free(st, n);
    assert_int_equal(store_skill_stats(db, "sm_80", &st, &n), HK_OK);
    assert_int_equal(n, 0);
    assert_null(st);
    store_close(db);
}

static void store_migrates_from_v2(void **state)
{
    (void)state;
    char path[] = "/tmp/hk-skills-v2-XXXXXX";
    assert_non_null(mkdtemp(path));
    char db_path[600];
    snprintf(db_path, sizeof db_path, "%s/h.db", path);
    store *db = NULL;
    assert_int_equal(store_open_version(db_path, 2, &db), HK_OK);
    int64_t kid = 0;
    assert_int_equal(store_kernel_upsert(db, "/x.cu", "k", "h", &kid), HK_OK);
    /* Schema 2 has no skill table. */
    store_skill_stat *st = NULL;
    size_t n = 0;
    assert_int_not_equal(store_skill_stats(db, NULL, &st, &n), HK_OK);
    store_close(db);
    assert_int_equal(store_open(db_path, &db), HK_OK);
    int ver = 0;
    assert_int_equal(store_schema_version(db, &ver), HK_OK);
    assert_int_equal(ver, 3);
    assert_int_equal(store_kernel_find(db, "/x.cu", "k", &kid), HK_OK);
    assert_int_equal(store_skill_record(db, "s", "k", "h", "sm_90", true, 1.2), HK_OK);
    assert_int_equal(store_skill_stats(db, NULL, &st, &n), HK_OK);
    assert_int_equal(n, 1);
    store_skill_stats_free(st, n);
    store_close(db);
    unlink(db_path);
    char side[640];
    snprintf(side, sizeof side, "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db_path);
    unlink(side);
    rmdir(path);
}

static bool is_hint(const sk_skill *sk)
{
    return (sk->rewrite->flags & RW_HINT) != 0;
}

static void order_by_record(void **state)
{
    (void)state;
    sk_set *set = load_ok(SHIPPED);
    const sk_skill **list = NULL;
    size_t n = 0;
    assert_int_equal(sk_for(set, "sm_90", SK_MEMORY_BOUND, &list, &n), HK_OK);
    assert_true(n >= 6);
    /* Pick four skills from the end of the load order, so a move to the front shows. */
    const char *s_always = list[n - 1]->id;  /* helped 2/2, mean 1.5 */
    const char *s_half = list[n - 2]->id;    /* helped 1/2, mean 3.0 */
    const char *s_half_b = list[n - 3]->id;  /* helped 1/2, mean 1.2 */
    const char *s_never = list[0]->id;       /* tried 3, never helped */
    const char *untried_first = list[1]->id;
    /* the untried skill expected first: the first structural one in load order (compiler
     * hints wait until the structural skills had their try) */
    const char *untried_structural = NULL;
    for (size_t i = 1; i + 3 < n && !untried_structural; i++)
        if (!is_hint(list[i]))
            untried_structural = list[i]->id;
    assert_non_null(untried_structural);
    hk_free(list);

    store *db = NULL;
    assert_int_equal(store_open(":memory:", &db), HK_OK);
    assert_int_equal(store_skill_record(db, s_always, "k1", "h", "sm_90", true, 1.4), HK_OK);
    assert_int_equal(store_skill_record(db, s_always, "k2", "h", "sm_90", true, 1.6), HK_OK);
    assert_int_equal(store_skill_record(db, s_half, "k1", "h", "sm_90", true, 3.0), HK_OK);
    assert_int_equal(store_skill_record(db, s_half, "k2", "h", "sm_90", false, 0.8), HK_OK);
    assert_int_equal(store_skill_record(db, s_half_b, "k1", "h", "sm_90", true, 1.2), HK_OK);
    assert_int_equal(store_skill_record(db, s_half_b, "k2", "h", "sm_90", false, 0.9), HK_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(store_skill_record(db, s_never, "k1", "h", "sm_90", false, 0.7), HK_OK);
    /* Records on another arch do not count for sm_90. */
    assert_int_equal(store_skill_record(db, untried_first, "k1", "h", "gfx906", true, 9.0), HK_OK);
    store_skill_stat *st = NULL;
    size_t n_st = 0;
    assert_int_equal(store_skill_stats(db, "sm_90", &st, &n_st), HK_OK);
    assert_int_equal(n_st, 4);
    assert_int_equal(sk_order_by_record(set, st, n_st), HK_OK);
    store_skill_stats_free(st, n_st);
    store_close(db);

    assert_int_equal(sk_for(set, "sm_90", SK_MEMORY_BOUND, &list, &n), HK_OK);
    assert_string_equal(list[0]->id, s_always);
    assert_string_equal(list[1]->id, s_half);
    assert_string_equal(list[2]->id, s_half_b);
    assert_string_equal(list[3]->id, untried_structural);
    /* untried: structural skills first, then hints, each in load order */
    bool seen_hint = false;
    for (size_t i = 3; i + 1 < n; i++) {
        if (seen_hint && !is_hint(list[i]))
            fail_msg("untried structural skill %s after a hint", list[i]->id);
        seen_hint |= is_hint(list[i]);
    }
    assert_string_equal(list[n - 1]->id, s_never);
    hk_free(list);
    sk_set_free(set);

    /* With no record at all: the memory-bound sm_90 skills put float4 loads before
     * read-only loads, and ordering again changes nothing (stable). */
    set = load_ok(SHIPPED);
    assert_int_equal(sk_order_by_record(set, NULL, 0), HK_OK);
    assert_int_equal(sk_for(set, "sm_90", SK_MEMORY_BOUND, &list, &n), HK_OK);
    long vec = -1, ro = -1;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(list[i]->id, "sm90-vectorize-128bit"))
            vec = (long)i;
        if (!strcmp(list[i]->id, "sm90-readonly-ldg"))
            ro = (long)i;
    }
    assert_true(vec >= 0 && ro >= 0 && vec < ro);
    hk_free(list);
    const sk_skill *first = sk_set_at(set, 0), *last = sk_set_at(set, sk_set_count(set) - 1);
    assert_int_equal(sk_order_by_record(set, NULL, 0), HK_OK);
    assert_ptr_equal(sk_set_at(set, 0), first);
    assert_ptr_equal(sk_set_at(set, sk_set_count(set) - 1), last);
    (void)untried_first;
    sk_set_free(set);
}

/* ---- allocation failures: every failure point gives an error, never a crash or leak ---- */

static void load_survives_allocation_failures(void **state)
{
    (void)state;
    char err[4096];
    long base = hk_alloc_live();
    bool succeeded = false;
    for (long k = 1; k < 100000 && !succeeded; k++) {
        hk_alloc_fail_after(k);
        sk_set *set = NULL;
        int rc = sk_load_dir(DATA "/good", &set, err, sizeof err);
        hk_alloc_fail_after(0);
        if (rc == HK_OK) {
            succeeded = true;
            assert_int_equal(sk_set_count(set), 2);
            sk_set_free(set);
        } else {
            if (rc != HK_ENOMEM)
                fail_msg("fail_after %ld: rc %s: %s", k, hk_strerror(rc), err);
            assert_null(set);
        }
        if (hk_alloc_live() != base)
            fail_msg("fail_after %ld: %ld blocks leaked", k, hk_alloc_live() - base);
    }
    assert_true(succeeded);
}

static void default_dir(void **state)
{
    (void)state;
    char *d = NULL;
    setenv("HK_SKILLS_DIR", "/some/where", 1);
    assert_int_equal(sk_default_dir(&d), HK_OK);
    assert_string_equal(d, "/some/where");
    hk_free(d);
    unsetenv("HK_SKILLS_DIR");
    /* The test binary has no share/ next to it: the source tree's skills/. */
    assert_int_equal(sk_default_dir(&d), HK_OK);
    assert_string_equal(d, HK_SOURCE_DIR "/skills");
    hk_free(d);
}

/* ---- hkls skills, run as a process ---- */

struct run {
    int code;
    char *out, *err;
};

static const char *hkls_path(void)
{
    const char *p = getenv("HKLS_BIN");
    return p && *p ? p : HK_BINARY_DIR "/hkls";
}

/* Runs hkls with args; HK_DB points at a file that does not exist so the user's default
 * history database is never opened (or migrated) by a test. */
static void run_hkls(const char *const *args, struct run *r)
{
    const char *bin = hkls_path();
    if (access(bin, X_OK) != 0)
        fail_msg("%s is not built: run `cmake --build` for the hkls target before ctest", bin);
    char *argv[32];
    size_t n = 0;
    argv[n++] = (char *)bin;
    for (size_t i = 0; args[i] && n < 31; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    char *envp[512];
    size_t e = 0;
    for (size_t i = 0; environ[i] && e < 500; i++)
        if (strncmp(environ[i], "HK_DB=", 6) && strncmp(environ[i], "HK_SKILLS_DIR=", 14))
            envp[e++] = environ[i];
    envp[e++] = "HK_DB=/nonexistent/hk-skills-test.db";
    envp[e] = NULL;

    char out_path[] = "/tmp/hk-skills-out-XXXXXX", err_path[] = "/tmp/hk-skills-err-XXXXXX";
    int ofd = mkstemp(out_path), efd = mkstemp(err_path);
    assert_true(ofd >= 0 && efd >= 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, ofd, 1);
    posix_spawn_file_actions_adddup2(&fa, efd, 2);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, argv, envp), 0);
    posix_spawn_file_actions_destroy(&fa);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    close(ofd);
    close(efd);
    r->code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->out = read_text(out_path);
    r->err = read_text(err_path);
    unlink(out_path);
    unlink(err_path);
}

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
}

static void cli_lists_and_filters(void **state)
{
    (void)state;
    struct run r;
    const char *a1[] = {"skills", "--dir", SHIPPED, "--hardware", "sm_90", "--class",
                        "memory-bound", NULL};
    run_hkls(a1, &r);
    if (r.code != 0)
        fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "sm90-vectorize-128bit"));
    assert_non_null(strstr(r.out, "vectorize"));
    assert_non_null(strstr(r.out, "memory-bound"));
    assert_null(strstr(r.out, "gfx9-"));
    assert_null(strstr(r.out, "compute-bound"));
    assert_null(strstr(r.out, "RECORD")); /* no database */
    run_free(&r);

    const char *a2[] = {"skills", "--dir", SHIPPED, "--json", NULL};
    run_hkls(a2, &r);
    assert_int_equal(r.code, 0);
    json_error_t je;
    json_t *j = json_loads(r.out, 0, &je);
    if (!j)
        fail_msg("--json output is not JSON: %s", je.text);
    json_t *arr = json_object_get(j, "skills");
    assert_true(json_array_size(arr) >= 16);
    json_t *first = json_array_get(arr, 0);
    assert_string_equal(json_string_value(json_object_get(first, "hardware_dir")), "nvidia-sm90");
    assert_non_null(json_object_get(json_object_get(first, "applies"), "query"));
    assert_true(json_is_object(json_object_get(json_object_get(first, "rewrite"), "params")));
    assert_true(json_is_null(json_object_get(j, "db")));
    json_decref(j);
    run_free(&r);
}

static void cli_shows_record_and_order(void **state)
{
    (void)state;
    char dir[] = "/tmp/hk-skills-cli-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char db_path[600];
    snprintf(db_path, sizeof db_path, "%s/h.db", dir);
    store *db = NULL;
    assert_int_equal(store_open(db_path, &db), HK_OK);
    assert_int_equal(store_skill_record(db, "sm90-warp-shuffle-reduce", "reduce_sum", "h",
                                        "sm_90", true, 2.5), HK_OK);
    assert_int_equal(store_skill_record(db, "sm90-block-reduce-atomics", "sum_atomic", "h",
                                        "sm_90", false, 0.9), HK_OK);
    store_close(db);

    struct run r;
    const char *a[] = {"skills", "--dir", SHIPPED, "--hardware", "sm_90", "--class",
                       "memory-bound", "--db", db_path, NULL};
    run_hkls(a, &r);
    if (r.code != 0)
        fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "RECORD"));
    assert_non_null(strstr(r.out, "1/1 helped on 1/1 kernel, mean 2.50x, best 2.50x"));
    assert_non_null(strstr(r.out, "0/1 helped"));
    assert_non_null(strstr(r.out, "untried"));
    /* The helped skill is listed first, the failed one last. */
    const char *body = strstr(r.out, "RECORD");
    const char *line1 = strchr(body, '\n') + 1;
    assert_int_equal(strncmp(line1, "sm90-warp-shuffle-reduce", 24), 0);
    const char *last = r.out + strlen(r.out) - 2;
    while (last > r.out && *last != '\n')
        last--;
    assert_int_equal(strncmp(last + 1, "sm90-block-reduce-atomics", 25), 0);
    run_free(&r);

    const char *aj[] = {"skills", "--dir", SHIPPED, "--db", db_path, "--json", NULL};
    run_hkls(aj, &r);
    assert_int_equal(r.code, 0);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *s0 = json_array_get(json_object_get(j, "skills"), 0);
    assert_string_equal(json_string_value(json_object_get(s0, "id")), "sm90-warp-shuffle-reduce");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(s0, "record"), "helped")), 1);
    json_decref(j);
    run_free(&r);

    /* Issue 14: the same list in zh-CN from the environment: the headings, the count
     * line and each record in Chinese, the ids, classes and rewrites as they are; --json
     * is the same in both languages. */
    const char *aj_en[] = {"skills", "--dir", SHIPPED, "--db", db_path, "--json", NULL};
    struct run en_json, zh_json, bad;
    run_hkls(aj_en, &en_json);
    setenv("LC_ALL", "zh_CN.UTF-8", 1);
    run_hkls(a, &r);
    run_hkls(aj_en, &zh_json);
    const char *bad_class[] = {"skills", "--dir", SHIPPED, "--class", "io-bound", NULL};
    run_hkls(bad_class, &bad);
    unsetenv("LC_ALL");
    if (r.code != 0)
        fail_msg("exit %d: %s", r.code, r.err);
    static const char *const zh[] = {"个优化技能，位于 ", "（memory-bound）；战绩来自 ", "硬件",
                                     "类别", "代码改写", "战绩",
                                     "1/1 次有效，在 1/1 个核函数上，平均 2.50x，最佳 2.50x",
                                     "未尝试", "sm90-warp-shuffle-reduce", "memory-bound"};
    for (size_t i = 0; i < sizeof zh / sizeof *zh; i++)
        if (!strstr(r.out, zh[i]))
            fail_msg("no \"%s\" in the Chinese list:\n%s", zh[i], r.out);
    static const char *const english[] = {"RECORD", "HARDWARE", "helped on", "untried", "mean ",
                                          "skills in", "record from"};
    for (size_t i = 0; i < sizeof english / sizeof *english; i++)
        if (strstr(r.out, english[i]))
            fail_msg("English \"%s\" left in:\n%s", english[i], r.out);
    assert_int_equal(zh_json.code, 0);
    assert_string_equal(zh_json.out, en_json.out);
    assert_int_equal(bad.code, 2);
    assert_non_null(strstr(bad.err, "hkls skills：未知类别 'io-bound'"));
    run_free(&r);
    run_free(&en_json);
    run_free(&zh_json);
    run_free(&bad);

    /* A --db that does not exist is an error, not a new empty database. */
    char missing[640];
    snprintf(missing, sizeof missing, "%s/missing.db", dir);
    const char *am[] = {"skills", "--dir", SHIPPED, "--db", missing, NULL};
    run_hkls(am, &r);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "no history database"));
    assert_int_not_equal(access(missing, F_OK), 0);
    run_free(&r);

    char side[700];
    unlink(db_path);
    snprintf(side, sizeof side, "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db_path);
    unlink(side);
    rmdir(dir);
}

static void cli_errors(void **state)
{
    (void)state;
    struct run r;
    const char *a1[] = {"skills", "--dir", DATA "/bad/many", NULL};
    run_hkls(a1, &r);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "fx-many-a.json: colour: unknown key"));
    assert_non_null(strstr(r.err, "fx-many-b.json: applies.query: unknown node type"));
    assert_string_equal(r.out, "");
    run_free(&r);

    const char *a2[] = {"skills", "--class", "io-bound", NULL};
    run_hkls(a2, &r);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "unknown class 'io-bound'"));
    run_free(&r);

    const char *a3[] = {"skills", "--frobnicate", NULL};
    run_hkls(a3, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);

    const char *a4[] = {"skills", "--dir", NULL};
    run_hkls(a4, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_skills_load),
        cmocka_unit_test(shipped_skills_match_their_kernels),
        cmocka_unit_test(lazy_set_matches_as_eager),
        cmocka_unit_test(lazy_set_compiles_when_needed),
        cmocka_unit_test(bad_fixtures_fail_clearly),
        cmocka_unit_test(bad_fixtures_in_chinese),
        cmocka_unit_test(missing_dir_and_small_err_buffer),
        cmocka_unit_test(metrics_and_evidence),
        cmocka_unit_test(names_round_trip),
        cmocka_unit_test(store_record_round_trip),
        cmocka_unit_test(store_migrates_from_v2),
        cmocka_unit_test(order_by_record),
        cmocka_unit_test(load_survives_allocation_failures),
        cmocka_unit_test(default_dir),
        cmocka_unit_test(cli_lists_and_filters),
        cmocka_unit_test(cli_shows_record_and_order),
        cmocka_unit_test(cli_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
